"""DeepSeek-V4's KV pool is an MLA backend to SGLang's PD transfer.

Field test rw18/o: six SemiAnalysisAI/InferenceX DeepSeek-V4 recipes (different attention TP on prefill and decode)
got SGL815 "Performance is NOT guaranteed when using different TP sizes for non-MLA models". SGLang's ModelConfig
gives DeepSeek-V4 MHA attention, but disaggregation/utils.py `is_mla_backend` counts its DeepSeekV4TokenToKVPool as
MLA (0.5.19, 0.5.21, 0.5.22, 0.5.23), and conn.py warns (and mooncake/conn.py slices KV by heads, where SGL830's
pipeline-parallel refusal lives) only for a pool that is not."""

import pytest

SERVER = "python -m sglang.launch_server --model-path {model} --disaggregation-mode {role} --tp-size {tp} {extra}\n"


def _pair(scratch_git, model, ptp, dtp, pextra="", dextra=""):
    scratch_git.write("run.sh", SERVER.format(model=model, role="prefill", tp=ptp, extra=pextra + " --port 30000")
                      + SERVER.format(model=model, role="decode", tp=dtp, extra=dextra + " --port 30001"))
    code, report = scratch_git.lint("run.sh")
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("model", ["deepseek-ai/DeepSeek-V4-Flash", "/models/DeepSeek-V4-Pro"])
def test_different_attention_tp_is_quiet_for_deepseek_v4(scratch_git, model):
    assert "SGL815" not in _pair(scratch_git, model, 4, 8)
    assert "SGL830" not in _pair(scratch_git, model, 4, 8, pextra="--pp-size 2")
    assert "SGL832" not in _pair(scratch_git, model, 8, 8, dextra="--dcp-size 8")


def test_a_non_mla_model_still_gets_them(scratch_git):
    assert "SGL815" in _pair(scratch_git, "Qwen/Qwen3-32B", 4, 8)
    assert "SGL832" in _pair(scratch_git, "Qwen/Qwen3-32B", 8, 8, dextra="--dcp-size 8")
    assert "SGL830" in _pair(scratch_git, "openai/gpt-oss-120b", 4, 8, pextra="--pp-size 2")


@pytest.mark.parametrize("model, says", [
    ("Qwen/Qwen3-32B", "attention TP 4 on the prefill, 8 on the decode; Qwen3 is not an MLA model"),
    # SGLang's message says "non-MLA"; of a model path pdlint cannot name, the note says that is not known (rw19/b)
    ("/models/house-model", "attention TP 4 on the prefill, 8 on the decode; whether the model is MLA, for which "
                            "different sizes are expected, is not in the flags"),
])
def test_the_note_says_what_is_known_of_the_model(scratch_git, model, says):
    scratch_git.write("run.sh", SERVER.format(model=model, role="prefill", tp=4, extra="--port 30000")
                      + SERVER.format(model=model, role="decode", tp=8, extra="--port 30001"))
    _, report = scratch_git.lint("run.sh")
    (f,) = [f for f in report["findings"] if f["code"] == "SGL815"]
    assert says in f["message"]
