"""Field test ai-dynamo/dynamo: examples/backends/trtllm/launch/disagg.sh names its prefill and decode engine
configs as ``$DYNAMO_HOME/.../prefill.yaml`` and ``.../decode.yaml`` with ``DYNAMO_HOME=/workspace``.  Both
paths start at DYNAMO_HOME's value, so coverage kept one PD022 for the two unread files: the decode counted as
checked without its config and nothing said so."""

SCRIPT = """\
    #!/bin/bash
    export DYNAMO_HOME=${{DYNAMO_HOME:-"{home}"}}
    CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B \\
      --extra-engine-args "$DYNAMO_HOME/examples/cfg/{prefill}.yaml" --disaggregation-mode prefill &
    CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B \\
      --extra-engine-args "$DYNAMO_HOME/examples/cfg/{decode}.yaml" --disaggregation-mode decode
    """


def _pd022(out) -> list:
    return [f for f in out["findings"] if f["code"] == "PD022"]


def test_every_unread_config_traced_to_one_line_is_named(scratch_git):
    scratch_git.write("disagg.sh", SCRIPT.format(home="/workspace", prefill="prefill", decode="decode"))
    code, out = scratch_git.lint("disagg.sh")
    found = _pd022(out)
    assert sorted(f["message"].split(" was ")[0] for f in found) == [
        "--extra-engine-args /workspace/examples/cfg/decode.yaml",
        "--extra-engine-args /workspace/examples/cfg/prefill.yaml"]
    assert {(f["line"], f["column"]) for f in found} == {(2, 36)}  # both at DYNAMO_HOME's value
    assert out["coverage"]["unchecked"] == 2
    assert out["coverage"]["files"]["disagg.sh"]["status"] == "partial"


def test_one_unread_config_shared_by_two_launches_is_one_place(scratch_git):
    scratch_git.write("disagg.sh", SCRIPT.format(home="/workspace", prefill="engine", decode="engine"))
    code, out = scratch_git.lint("disagg.sh")
    assert [f["message"].split(" was ")[0] for f in _pd022(out)] == [
        "--extra-engine-args /workspace/examples/cfg/engine.yaml"]
    assert out["coverage"]["unchecked"] == 1


def test_configs_found_relative_to_the_script_leave_no_gap(scratch_git):
    scratch_git.write("examples/cfg/prefill.yaml", "tensor_parallel_size: 1\ndisable_overlap_scheduler: true\n"
                                                   "cache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("examples/cfg/decode.yaml", "tensor_parallel_size: 1\ncache_transceiver_config:\n"
                                                  "  backend: UCX\n")
    scratch_git.write("disagg.sh", SCRIPT.format(home=".", prefill="prefill", decode="decode"))
    code, out = scratch_git.lint("disagg.sh")
    assert _pd022(out) == [] and out["coverage"]["unchecked"] == 0
    assert code == 0, out["findings"]
