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


# -- an absolute container path whose file the repository has below its root ---------------------------------

TRT_CFG = "tensor_parallel_size: 1\ncache_transceiver_config:\n  backend: UCX\n"


def test_an_absolute_path_names_the_repository_file_of_the_same_path_but_does_not_read_it(scratch_git):
    scratch_git.write("examples/cfg/prefill.yaml", TRT_CFG)  # no disable_overlap_scheduler: TRT005 if read
    scratch_git.write("examples/cfg/decode.yaml", "tensor_parallel_size: 1\n")  # no backend: TRT010 if read
    scratch_git.write("launch/disagg.sh", SCRIPT.format(home="/workspace", prefill="prefill", decode="decode"))
    code, out = scratch_git.lint("launch/disagg.sh")
    assert sorted(f["code"] for f in out["findings"]) == ["PD022", "PD022"]
    messages = sorted(f["message"] for f in _pd022(out))
    assert messages[1] == (
        "--extra-engine-args /workspace/examples/cfg/prefill.yaml was not found in the repository (it has "
        "examples/cfg/prefill.yaml, the same path below /workspace, not read: if /workspace is the repository's "
        "checkout, name the file relative to the repository): the settings in that file were not checked")
    assert "it has examples/cfg/decode.yaml, the same path below /workspace" in messages[0]


def test_no_file_of_the_same_path_leaves_the_plain_reason(scratch_git):
    scratch_git.write("prefill.yaml", TRT_CFG)  # a bare file name at the root is no evidence
    scratch_git.write("disagg.sh", SCRIPT.format(home="/workspace", prefill="prefill", decode="decode")
                      .replace("/examples/cfg/", "/"))
    code, out = scratch_git.lint("disagg.sh")
    assert sorted(f["message"] for f in _pd022(out)) == [
        "--extra-engine-args /workspace/decode.yaml was not found in the repository: the settings in that file "
        "were not checked",
        "--extra-engine-args /workspace/prefill.yaml was not found in the repository: the settings in that file "
        "were not checked"]


def test_vllm_and_sglang_config_paths_name_the_file_too(scratch_git):
    scratch_git.write("configs/vllm.yaml", "enforce-eager: true\n")
    scratch_git.write("configs/sglang.yaml", "mem-fraction-static: 0.8\n")
    scratch_git.write("run.sh", """\
        #!/bin/bash
        CUDA_VISIBLE_DEVICES=0 vllm serve m --config /opt/app/configs/vllm.yaml &
        CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path m --config /opt/app/configs/sglang.yaml --port 30001
        """)
    code, out = scratch_git.lint("run.sh")
    messages = sorted(f["message"] for f in _pd022(out))
    assert len(messages) == 2
    assert messages[0].startswith("--config /opt/app/configs/sglang.yaml was not found in the repository (it has "
                                  "configs/sglang.yaml, the same path below /opt/app, not read:")
    assert messages[1].startswith("--config /opt/app/configs/vllm.yaml was not found in the repository (it has "
                                  "configs/vllm.yaml, the same path below /opt/app, not read:")


def test_an_sglang_config_beside_the_script_named_from_its_directory_is_read(scratch_git):
    # (field test rw6/b: the script-directory idiom left TRT-LLM options files unread; SGLang's --config too)
    scratch_git.write("exp/prefill.yaml", "disaggregation-mode: prefill\ndisaggregation-transfer-backend: fake\n")
    scratch_git.write("exp/run.sh", """\
        #!/bin/bash
        HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
        python3 -m sglang.launch_server --model-path /m --config "$HERE/prefill.yaml"
        """)
    code, out = scratch_git.lint(".")
    assert _pd022(out) == []
    assert [(f["path"], f["code"]) for f in out["findings"]] == [("exp/prefill.yaml", "SGL104")]
    assert out["launches"][0]["role"] == "prefill"
