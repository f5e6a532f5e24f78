"""Field round rw34/a: the problems fixed in the main line (the others in their helpers' test files)."""

import pytest

SERVER = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000 --disaggregation-mode prefill"


@pytest.mark.parametrize("word", ['"${EXTRA[@]+"${EXTRA[@]}"}"', '"${EXTRA[@]:+${EXTRA[@]}}"'])
@pytest.mark.parametrize("extra, argv_tail", [
    ("()", []),
    ("(--page-size 16)", ["--page-size", "16"]),
])
def test_the_set_u_idiom_for_a_possibly_empty_array_makes_its_elements(scratch, word, extra, argv_tail):
    """P1 (ddps-lab/disaggregation-TensorRT-LLM's launch_trtllm.sh, `"${role_flag[@]+"${role_flag[@]}"}"`): bash
    expands an empty array through either form to zero words (`A=(); set -- "${A[@]+"${A[@]}"}"; echo $#`: 0).
    pdlint made one empty word - SGL011 "unrecognized arguments: " at column 1 (the SGLang 0.5.23 oracle accepts the
    argv without it, refuses it with the '')."""
    scratch.write("run.sh", f"#!/bin/bash\nset -u\nEXTRA={extra}\n{SERVER} {word}\n")
    code, report = scratch.lint("run.sh")
    (launch,) = report["launches"]
    assert launch["argv"][6:] == argv_tail
    assert [f for f in report["findings"] if f["severity"] == "error"] == [] and code == 0


def test_a_kustomize_build_of_no_server_is_not_judged(scratch):
    """P3 (llm-d/llm-d-kv-cache-manager's deploy/kustomization.yaml: a KV-cache indexer, 9 PD106 errors and exit 1):
    kustomize would refuse the build, but nothing in it is a serving launch - not pdlint's to judge. The same missing
    resource beside a build that holds a launch is still PD106."""
    scratch.write("deploy/kustomization.yaml", "resources:\n- sts.yaml\n- service.yaml\n")
    scratch.write("deploy/sts.yaml", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: indexer\nspec:\n"
                                     "  template:\n    spec:\n      containers:\n      - name: i\n        image: x\n")
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
    scratch.write("deploy/sts.yaml", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: prefill\nspec:\n"
                                     "  template:\n    spec:\n      containers:\n      - name: s\n"
                                     "        image: lmsysorg/sglang:v0.5.9\n        command: [python3, -m, "
                                     "sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill]\n")
    code, report = scratch.lint(".")
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"] if f["code"] == "PD106"] == [
        ("PD106", "deploy/kustomization.yaml", 3)] and code == 1


def test_a_named_markdown_file_is_told_apart_from_the_no_files_message(scratch):
    """P8: the no-files warning said Markdown is read when named, and naming it said "a file kind pdlint does not
    read", with a hint to put a `#` directive on the line - a line of the command a Markdown code block shows. Both
    now say what pdlint does: its launch text is listed as not checked (PD020), accepted by `per-file-ignores`."""
    scratch.write("docs/README.md", "# PD\n\n```bash\npython3 -m sglang.launch_server --model-path m "
                                    "--disaggregation-mode prefill\n```\n")
    code, report = scratch.lint("docs/README.md")
    (f,) = report["findings"]
    assert f["code"] == "PD020" and "per-file-ignores" in f["fix"] and "# pdlint" not in f["fix"] and code == 0


DISAGG = """\
hostname: 0.0.0.0
port: 8000
backend: pytorch
context_servers:
  num_instances: 1
  cache_transceiver_config: {backend: UCX}
  urls: ["localhost:8001"]
generation_servers:
  num_instances: 1
  cache_transceiver_config: {backend: UCX}
  urls: ["localhost:8011"]
"""
LAUNCH = """\
#!/bin/bash
trtllm-serve Qwen/Qwen3-4B --host 0.0.0.0 --port 8001 --extra_llm_api_options ctx.yaml &
trtllm-serve Qwen/Qwen3-4B --host 0.0.0.0 --port 8011 --extra_llm_api_options gen.yaml &
trtllm-serve disaggregated -c "$CFG"
"""


def test_a_disaggregated_config_named_alone_is_judged_with_the_scripts_of_its_directory(scratch_git):
    """P7 (ddps-lab/disaggregation-TensorRT-LLM's disagg-exp/): the config's context server is started by the
    script beside it with `disable_overlap_scheduler: true`; a scan of the directory judges the config's servers by
    those settings (no TRT005), but a pre-commit run naming only the config did not read the script - a TRT005 CI
    never shows. The script is brought into the run; a config with no such script keeps its TRT005."""
    scratch_git.write("disagg_config.yaml", DISAGG)
    code, report = scratch_git.lint("disagg_config.yaml")
    assert "TRT005" in {f["code"] for f in report["findings"]}
    scratch_git.write("launch.sh", LAUNCH)
    scratch_git.write("ctx.yaml", "disable_overlap_scheduler: true\ncache_transceiver_config: {backend: UCX}\n")
    scratch_git.write("gen.yaml", "cache_transceiver_config: {backend: UCX}\n")
    code, report = scratch_git.lint("disagg_config.yaml")
    assert "TRT005" not in {f["code"] for f in report["findings"]}
    _, scan = scratch_git.lint(".")
    assert "TRT005" not in {f["code"] for f in scan["findings"]}


def test_the_json_says_a_recipe_parameter_and_its_default(scratch_git):
    """The JSON's undecided value names its cause as the summary does (w37 left the JSON without it): a just
    recipe's parameter with its recipe and default; a Kubernetes `$(NAME)` only the file can set."""
    scratch_git.write("justfile", 'decode PORT="8200" TP:\n    vllm serve Qwen/Qwen3-8B --port {{PORT}}'
                      ' --tensor-parallel-size {{TP}}\n')
    _, report = scratch_git.lint("justfile")
    got = [{k: u.get(k) for k in ("flag", "cause", "name", "recipe", "default")}
           for u in report["coverage"]["files"]["justfile"]["undecided"]]
    assert got == [
        {"flag": "--port", "cause": "recipe-parameter", "name": "PORT", "recipe": "decode", "default": "8200"},
        {"flag": "--tensor-parallel-size", "cause": "recipe-parameter", "name": "TP", "recipe": "decode",
         "default": None}], got
    scratch_git.write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                      "  - name: decode\n    image: vllm/vllm-openai:v0.33.0\n"
                      "    command: [vllm, serve, Qwen/Qwen3-8B, --port, $(PORT)]\n")
    _, report = scratch_git.lint("pod.yaml")
    assert [(u["flag"], u["cause"], "name" in u) for u in report["coverage"]["files"]["pod.yaml"]["undecided"]] \
        == [("--port", "not-in-file", False)]


def test_a_recipe_parameters_summary_is_the_same_from_the_cache(scratch_git, capsys):
    """w39's recipe-parameter wording (P2) is kept by the result cache too (the cache stored the undecided values
    without it: a second run said the sed `{NAME}` wording again)."""
    from pdlint.cli import main
    scratch_git.write("justfile", 'decode PORT="8200":\n    vllm serve Qwen/Qwen3-8B --port {{PORT}}\n')
    outs = []
    for args in (["--no-cache"], [], []):
        main(["check", *args, "justfile"])
        outs.append(capsys.readouterr().out)
    assert "the parameter PORT of just recipe `decode`" in outs[0]
    assert outs[0] == outs[1] == outs[2]
