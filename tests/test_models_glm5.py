"""GLM-5 is an MLA model (ai-dynamo/dynamo recipes/glm-5-nvfp4/sglang/disagg: prefill TP 4, decode attention
DP 4): SGLang 0.5.23 classifies GlmMoeDsaForCausalLM as MLA (ModelConfig._derive_model_shapes), so
different attention TP on the two roles is harmless and SGL815 stays quiet."""

from pdlint.models import family

PAIR = """#!/bin/bash
CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m sglang.launch_server --model-path {m} --tp-size 4 --disaggregation-mode prefill &
CUDA_VISIBLE_DEVICES=4,5,6,7 python3 -m sglang.launch_server --model-path {m} --tp-size 4 --attn-dp-size 4 \\
  --disaggregation-mode decode --port 30001
"""


def _mla_family(name: str, members: tuple, others: tuple = ()) -> None:
    for m in members:
        assert family(m).name == name and family(m).mla, m
    for m in others:
        assert family(m) is None, m


def _sgl815_only_for(scratch_git, mla_model: str, other_model: str) -> None:
    """A pair of the MLA model with different attention TP is quiet; the same pair of the other model warns."""
    scratch_git.write("mla.sh", PAIR.format(m=mla_model))
    scratch_git.write("other.sh", PAIR.format(m=other_model))
    _, report = scratch_git.lint("mla.sh", "other.sh")
    assert [(f["path"], f["code"]) for f in report["findings"] if f["code"] == "SGL815"] == [("other.sh", "SGL815")]


def test_glm5_names():
    _mla_family("GLM-5", ("zai-org/GLM-5", "nvidia/GLM-5-NVFP4", "zai-org/GLM-5.1-FP8", "/models/glm_5.2"),
                ("THUDM/glm-4-9b-chat", "zai-org/GLM-4.6", "x/glm-50b"))


def test_sgl815_quiet_for_glm5_and_still_warns_for_an_unknown_model(scratch_git):
    _sgl815_only_for(scratch_git, "nvidia/GLM-5-NVFP4", "acme/SomeModel-70B")


def test_kimi_k3_is_mla():
    # SGLang 0.5.23 configs/model_config.py: KimiK3ForConditionalGeneration / KimiK3LinearForCausalLM take the
    # Kimi-Linear (MLA) branch (field test rw6/a: yangwhale/gpu-tpu-pedia kimi-k3 PD scripts, a false SGL815)
    _mla_family("Kimi-K3", ("/mnt/ssd/Kimi-K3", "moonshotai/Kimi-K3-Instruct", "/models/kimi_k3"))


def test_sgl815_quiet_for_kimi_k3(scratch_git):
    _sgl815_only_for(scratch_git, "/mnt/ssd/Kimi-K3", "/mnt/ssd/Other-K3")


def test_served_model_name_places_a_mounted_model(scratch_git):
    # alisachen-google/gcp-dynamo-cuj dsr1-sweep manifests (field test rw7/e): weights mounted at /model, the
    # served name says DeepSeek-R1 (MLA); a path that names a model is not overridden by the served name
    served = "/model --served-model-name deepseek-ai/DeepSeek-R1"
    scratch_git.write("mounted.sh", PAIR.format(m=served))
    scratch_git.write("unnamed.sh", PAIR.format(m="/model --served-model-name my-endpoint"))
    scratch_git.write("path_wins.sh", PAIR.format(m="deepseek-ai/DeepSeek-R1-Distill-Qwen-7B --served-model-name deepseek-ai/DeepSeek-R1"))
    _, report = scratch_git.lint("mounted.sh", "unnamed.sh", "path_wins.sh")
    assert sorted(f["path"] for f in report["findings"] if f["code"] == "SGL815") == ["path_wins.sh", "unnamed.sh"]


def test_longcat_flash_is_mla():
    # SGLang 0.5.23 configs/model_config.py: LongcatFlashForCausalLM takes the MLA branch (field test rw13/e:
    # whn09/LongCat-2.0-SGLang-EFA launch-2p2d.sh, prefill attention TP 8 against decode 1, a false SGL815)
    _mla_family("LongCat-Flash", ("meituan-longcat/LongCat-Flash-Chat", "/models/LongCat-Flash-Chat-FP8",
                                  "meituan-longcat/LongCat-Flash-Thinking-2601"),
                ("meituan-longcat/LongCat-Flash-Omni", "meituan-longcat/LongCat-Video", "/models/LongCat-2.0"))


def test_sgl815_quiet_for_longcat_flash(scratch_git):
    _sgl815_only_for(scratch_git, "/models/LongCat-Flash-Chat", "/models/LongCat-Flash-Omni")
