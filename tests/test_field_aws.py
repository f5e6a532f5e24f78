"""Fixes from the stop-23 field test on AWS repositories (awslabs/ai-on-eks, aws-samples/sample-genai-on-eks-starter-kit)."""

TEMPLATE = """\
spec:
  template:
    spec:
      nodeSelector:
        {{{KARPENTER_PREFIX}}}/instance-family: g6e
      containers:
        - name: vllm
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args:
            - --kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}
"""


def test_launch_text_in_an_unparsable_file_is_reported_when_the_parse_error_is_ignored(scratch_git):
    # the file's PD003 stood for its launch text; with PD003 ignored the run passed clean, even with --strict
    scratch_git.write("model.template.yaml", TEMPLATE)
    code, doc = scratch_git.lint("--ignore", "PD003", "model.template.yaml")
    assert [f["code"] for f in doc["findings"]] == ["PD020"] and doc["findings"][0]["line"] == 8


def test_with_the_parse_error_reported_the_launch_text_is_not_reported_twice(scratch_git):
    # (a file broken as YAML: with Handlebars' `{{{X}}}` the file is a template pdlint does not render, PD020 alone,
    # tests/test_field_tpl.py)
    scratch_git.write("model.yaml", TEMPLATE.replace("{{{KARPENTER_PREFIX}}}", "{{KARPENTER_PREFIX}}"))
    code, doc = scratch_git.lint("model.yaml")
    assert [f["code"] for f in doc["findings"]] == ["PD003"] and code == 1


def test_the_router_package_name_alone_is_no_launch_text(scratch_git):
    # awslabs/ai-on-eks blueprints/inference/nvidia-dynamo: a DynamoGraphDeployment named sglang-router (3
    # PD020 on a file whose launches were all checked), and deploy.sh's case labels (a PD008 error on a
    # script that launches nothing)
    scratch_git.write("router.yaml", "metadata:\n  name: sglang-router\nspec:\n  dynamoNamespace: sglang-router\n")
    scratch_git.write("deploy.sh", 'case "$1" in\n  "sglang-router") echo "sglang/router" ;;\nesac\n')
    code, doc = scratch_git.lint("router.yaml", "deploy.sh")
    assert code == 0 and doc["findings"] == []


def test_the_router_console_script_is_launch_text(scratch_git):
    # (a command pdlint does not turn into a launch would be a PD020: the text is still searched for)
    scratch_git.write("r.yaml", 'command: ["sglang-router", "launch", "--pd-disaggregation"]\n')
    scratch_git.write("r.sh", "#!/bin/sh\nexec sglang-router --pd-disaggregation --prefill $P\n")
    code, doc = scratch_git.lint("r.yaml", "r.sh")
    files = doc["coverage"]["files"]
    assert files["r.yaml"]["status"] == files["r.sh"]["status"] == "checked"
    from pdlint.coverage import find_markers
    assert [m.text for m in find_markers('command: ["sglang-router", "launch"]\n')] == ["sglang-router"]
    assert [m.text for m in find_markers("sglang-router --pd-disaggregation\n")][:1] == ["sglang-router"]


def test_a_file_sourced_after_cd_is_that_directory_s(scratch_git):
    # awslabs/ai-on-eks infra/*/install.sh: `cd terraform/_LOCAL; source ./install.sh` reads a copy of the
    # base installer there (not in the repository), not the script itself: a false "sources itself" PD008
    for d in ("a", "b"):
        scratch_git.write(f"{d}/install.sh", "#!/bin/bash\ncd terraform/_LOCAL\nsource ./install.sh\n")
    code, doc = scratch_git.lint("a/install.sh")
    assert code == 0 and doc["findings"] == []


def test_cd_then_source_reads_the_file_in_that_directory(scratch_git):
    scratch_git.write("run/start.sh", "#!/bin/bash\ncd conf\nsource ./env.sh\n"
                                      "python3 -m sglang.launch_server --model-path m $FLAGS\n")
    scratch_git.write("run/conf/env.sh", "FLAGS='--disaggregation-mode prefill'\n")
    scratch_git.write("run/env.sh", "FLAGS='--disaggregation-mode decode'\n")
    code, doc = scratch_git.lint("run/start.sh")
    assert [l["role"] for l in doc["launches"]] == ["prefill"]


def test_without_cd_a_relative_source_is_the_script_directory_s(scratch_git):
    scratch_git.write("run/start.sh", "#!/bin/bash\ncd \"$(dirname \"$0\")\"\nsource ./env.sh\n"
                                      "python3 -m sglang.launch_server --model-path m $FLAGS\n")
    scratch_git.write("run/env.sh", "FLAGS='--disaggregation-mode decode'\n")
    code, doc = scratch_git.lint("run/start.sh")
    assert [l["role"] for l in doc["launches"]] == ["decode"]


def test_a_cli_written_as_list_items_is_launch_text(scratch_git):
    # sample-genai-on-eks-starter-kit components/llm-model/vllm/*.template.yaml: `command: ["vllm", "serve"]` in a
    # Handlebars template pdlint cannot read was not counted as launch text (17 unchecked places, not 39)
    scratch_git.write("m.template.yaml", TEMPLATE.replace(
        '["python3", "-m", "vllm.entrypoints.openai.api_server"]', '["vllm", "serve"]').replace(
        '--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_both"}', "--port=8000"))
    code, doc = scratch_git.lint("--ignore", "PD003", "m.template.yaml")
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("PD020", 8)]
