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
    scratch_git.write("model.template.yaml", TEMPLATE)
    code, doc = scratch_git.lint("model.template.yaml")
    assert [f["code"] for f in doc["findings"]] == ["PD003"] and code == 1
