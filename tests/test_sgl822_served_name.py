"""SGL822 (quantization-mismatch) and the name a checkpoint is served under.

Field test rw21/b (NVIDIA/srt-slurm's Qwen3.5 FP8 recipes, 13 warnings): both roles load the FP8 checkpoint
mounted at `/model/` and serve it as `Qwen/Qwen3.5-397B-A17B-FP8`; only the decode writes `quantization: fp8`.
An unset `--quantization` takes the checkpoint's own format (fp8), so both roles run the same weights."""

RECIPE = """\
name: "qwen3.5-1p1d-tp4"
model:
  path: "qwen3.5-fp8"
  container: "lmsysorg/sglang:v0.5.8-cu130"
  precision: "fp8"
resources:
  gpu_type: "gb200"
  gpus_per_node: 4
  prefill_nodes: 1
  decode_nodes: 1
  prefill_workers: 1
  decode_workers: 1
backend:
  type: sglang
  sglang_config:
    prefill:
      served-model-name: "SERVED"
      model-path: "/model/"
      tensor-parallel-size: 4
    decode:
      served-model-name: "SERVED"
      model-path: "/model/"
      tensor-parallel-size: 4
      quantization: "fp8"
"""

PAIR = ("python -m sglang.launch_server --model-path /model/ --served-model-name {p} --disaggregation-mode prefill "
        "--tp-size 4 --port 30000 &\n"
        "CUDA_VISIBLE_DEVICES=4,5,6,7 python -m sglang.launch_server --model-path /model/ --served-model-name {d} "
        "--disaggregation-mode decode --tp-size 4 --quantization fp8 --port 30001 &\n")


def _codes(scratch_git, name, text):
    scratch_git.write(name, text)
    _, report = scratch_git.lint(name)
    return [f["code"] for f in report["findings"]]


def test_a_recipe_serving_the_fp8_checkpoint_on_both_roles_is_quiet(scratch_git):
    assert "SGL822" not in _codes(scratch_git, "r.yaml", RECIPE.replace("SERVED", "Qwen/Qwen3.5-397B-A17B-FP8"))


def test_a_recipe_whose_served_name_says_no_format_still_warns(scratch_git):
    assert "SGL822" in _codes(scratch_git, "r.yaml", RECIPE.replace("SERVED", "Qwen/Qwen3.5-397B-A17B"))


def test_a_shell_pair_takes_the_served_name_when_both_sides_agree(scratch_git):
    fp8 = "Qwen/Qwen3.5-397B-A17B-FP8"
    assert "SGL822" not in _codes(scratch_git, "pd.sh", PAIR.format(p=fp8, d=fp8))
    # names that differ say nothing about one checkpoint
    assert "SGL822" in _codes(scratch_git, "pd.sh", PAIR.format(p=fp8, d="qwen"))
