"""SGL822 (quantization-mismatch) when one side leaves ``--quantization`` unset and the model's name says the
checkpoint is already in the other side's format: SGLang takes the unset value from the checkpoint's config, so
both sides run the same weights.

Field test: NVIDIA/srt-slurm's Qwen3.5-397B-A17B-FP8 recipes (prefill unset, decode ``quantization: fp8``):
13 false warnings."""

import pytest

P = "python -m sglang.launch_server --model-path {m} --disaggregation-mode prefill --tp-size 4 --base-gpu-id 0 {pq} &\n"
D = ("python -m sglang.launch_server --model-path {m} --disaggregation-mode decode --tp-size 4 --base-gpu-id 4 "
     "--port 30001 {dq}\n")


def lint(scratch_git, model: str, pq: str, dq: str) -> list:
    scratch_git.write("pd.sh", P.format(m=model, pq=pq) + D.format(m=model, dq=dq))
    _, report = scratch_git.lint("pd.sh")
    return [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("model, pq, dq", [
    ("Qwen/Qwen3.5-397B-A17B-FP8", "", "--quantization fp8"),
    ("Qwen/Qwen3.5-397B-A17B-FP8", "--quantization fp8", ""),
    ("Qwen/Qwen2.5-7B-Instruct-AWQ", "", "--quantization awq"),
    ("nvidia/DeepSeek-R1-NVFP4", "--quantization modelopt_fp4", ""),
])
def test_unset_against_the_checkpoints_own_format_is_quiet(scratch_git, model, pq, dq):
    assert "SGL822" not in lint(scratch_git, model, pq, dq)


@pytest.mark.parametrize("model, pq, dq", [
    ("Qwen/Qwen3-8B", "", "--quantization fp8"),  # a BF16 checkpoint quantized online on the decode only
    ("Qwen/Qwen3.5-397B-A17B-FP8", "", "--quantization awq"),
    ("Qwen/Qwen3.5-397B-A17B-FP8", "--quantization fp8", "--quantization w8a8_int8"),
])
def test_a_different_format_is_still_reported(scratch_git, model, pq, dq):
    assert "SGL822" in lint(scratch_git, model, pq, dq)
