"""srtctl (NVIDIA/srt-slurm) pops ``model-path``, ``served-model-name``, ``nccl-port`` and ``grpc-port`` from each
``sglang_config`` section and passes its own (``build_worker_command``, src/srtctl/backends/sglang.py): the recipe's
values never reach the server that way.  Field test rw18/o, repro 8 (SemiAnalysisAI/InferenceX
``benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.2/agentic/disagg-h200-2p2d-pcp8-tp8-dp8-mtp.yaml:9``):
``model.path: hf:...`` beside ``model-path: /model/`` was ``SGL007 --model-path is given 2 times ...; SGLang uses
the last (/model/)``, the opposite of what runs (the Hugging Face id)."""

import pytest

RECIPE = """\
name: "disagg-1p1d"
model:
  path: "hf:Qwen/Qwen3-8B"
  container: "lmsysorg/sglang:v0.5.16-cu130"
  precision: "bf16"
resources:
  gpu_type: h200
  gpus_per_node: 8
  prefill_nodes: 1
  decode_nodes: 1
  prefill_workers: 1
  decode_workers: 1
  gpus_per_prefill: 8
  gpus_per_decode: 8
backend:
  type: sglang
  sglang_config:
    prefill:
{prefill}      tp-size: 8
      disaggregation-mode: prefill
      disaggregation-transfer-backend: nixl
    decode:
{decode}      tp-size: 8
      disaggregation-mode: decode
      disaggregation-transfer-backend: nixl
"""


def keys(*lines):
    return "".join(f"      {l}\n" for l in lines)


def run(scratch, prefill, decode):
    scratch.write("recipe.yaml", RECIPE.format(prefill=prefill, decode=decode))
    code, out = scratch.lint("recipe.yaml")
    argv = {l["role"]: l["argv"] for l in out["launches"]}
    return code, [(f["line"], f["code"]) for f in out["findings"]], argv


@pytest.mark.parametrize("spelling", ["-", "_"])
def test_the_keys_srtctl_pops_do_not_reach_the_server(scratch, spelling):
    own = keys(*(k.replace("-", spelling) + v for k, v in
                 (("model-path", ": /model/"), ("served-model-name", ": Qwen/Qwen3-8B"), ("nccl-port", ": 29999"),
                  ("grpc-port", ": 30010"))))
    code, found, argv = run(scratch, own, own)
    assert (code, found) == (0, [])  # (before: SGL007 at model.path, the hf: id named as the value ignored)
    for role in ("prefill", "decode"):
        words = argv[role]
        assert words[:4] == ["--model-path", "Qwen/Qwen3-8B", "--served-model-name", "Qwen/Qwen3-8B"]
        assert words.count("--model-path") == 1 and "/model/" not in words
        assert "--nccl-port" not in words and "29999" not in words and "--grpc-port" not in words


def test_srtctl_gives_every_worker_the_first_served_model_name(scratch):
    # get_served_model_name: the prefill section's, then aggregated's, then decode's
    code, found, argv = run(scratch, keys("served-model-name: qwen-a"), keys("served-model-name: qwen:b"))
    assert argv["decode"][2:4] == argv["prefill"][2:4] == ["--served-model-name", "qwen-a"]
    assert found == []  # (the decode's `qwen:b`, SGL628 on its own, is not what srtctl passes)


def test_a_served_model_name_srtctl_passes_is_still_judged(scratch):
    code, found, argv = run(scratch, keys("served-model-name: qwen:8b"), "")
    assert (code, found) == (1, [(19, "SGL628")])


def test_quiet_without_such_keys(scratch):
    code, found, argv = run(scratch, "", "")
    assert (code, found) == (0, [])
    assert argv["prefill"][:2] == ["--model-path", "Qwen/Qwen3-8B"] and "--served-model-name" not in argv["prefill"]
