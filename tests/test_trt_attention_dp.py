"""TRT003 (tensor-parallel-size-differs) and attention data parallelism.

Field test: NVIDIA/srt-slurm's DeepSeek-R1 TensorRT-LLM recipes run a DEP4 context beside a DEP8 generation
(``tensor_parallel_size`` 4 and 8, ``enable_attention_dp: true`` on both): attention TP is 1 on both sides, each
rank keeps whole KV heads, and nothing is split between the layouts; pdlint warned on 137 such pairs.
TRT003 judges only pairs with the FlashInfer attention backend (field test rw21/a: NVIDIA/TensorRT-LLM#6507 is
FlashInfer's), so the recipe below sets it."""

RECIPE = """\
name: "dsr1-trtllm-dep4-dep8"
model:
  path: "dsr1"
  container: "dynamo-trtllm"
  precision: "fp4"
resources:
  gpu_type: "b200"
  prefill_nodes: 1
  prefill_workers: 1
  gpus_per_prefill: 4
  decode_nodes: 1
  decode_workers: 1
  gpus_per_node: 8
backend:
  type: trtllm
  trtllm_config:
    prefill:
      tensor_parallel_size: 4
      moe_expert_parallel_size: 4
      enable_attention_dp: true
      attn_backend: FLASHINFER
      disable_overlap_scheduler: true
      cache_transceiver_config:
        backend: UCX
      speculative_config:
        decoding_type: MTP
        num_nextn_predict_layers: 2
    decode:
      tensor_parallel_size: 8
      moe_expert_parallel_size: 8
      enable_attention_dp: true
      attn_backend: FLASHINFER
      cache_transceiver_config:
        backend: UCX
      speculative_config:
        decoding_type: MTP
        num_nextn_predict_layers: 2
"""


def codes(scratch_git, text: str) -> list:
    scratch_git.write("recipe.yaml", text)
    _, report = scratch_git.lint("recipe.yaml")
    return [f["code"] for f in report["findings"]]


def test_attention_dp_on_both_sides_is_quiet(scratch_git):
    assert "TRT003" not in codes(scratch_git, RECIPE)


def test_attention_dp_on_one_side_only_still_warns(scratch_git):
    i = RECIPE.rindex("      enable_attention_dp: true\n")
    assert "TRT003" in codes(scratch_git, RECIPE[:i] + RECIPE[i + len("      enable_attention_dp: true\n"):])


def test_attention_dp_on_one_side_with_the_default_backend_is_quiet(scratch_git):
    # richardhuo-nv/srt-slurm-trtllm's ctx DEP4 / gen TEP8 recipes (73 warnings, field test rw21/a)
    text = RECIPE.replace("      attn_backend: FLASHINFER\n", "")
    i = text.rindex("      enable_attention_dp: true\n")
    assert "TRT003" not in codes(scratch_git, text[:i] + text[i + len("      enable_attention_dp: true\n"):])
