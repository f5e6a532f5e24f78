"""Field test rw25/b: a differential test of pdlint's SGLang rules against SGLang 0.5.23's own argument
resolution (the oracle: emulated H200, tiny config-only models; 0.5.21 through the legacy oracle where said).
What it found that pdlint missed, each with the oracle's verdict (recorded in the docstrings and comments; the
tests do not run the oracle).  The base launches came from michael-amd/sglang-ci (test/pd/run_pd_docker.sh, a
1P+1D SGLang PD pair), mutated by the harness.

- P8: `--moe-a2a-backend deepep_v2` - the per-rank prefill budget (SGL197, SGL198 with the variable unset), the
  decode CUDA graph budget (SGL199, SGL291 with the variable or the graph batch size left to SGLang) and the
  model allow-list (SGL288);
- P10: `--moe-runner-backend flashinfer_cutedsl` without an NVFP4 quantization (SGL289, SGL290 without
  `--quantization`);
- P11: SGL683 for the text-only Qwen3 / Qwen3-MoE families;
- P9: `--enable-kv-cache-sharding` with `--page-size` left to SGLang (SGL350)."""

import pytest

from pdlint.engines.sglang.judge import judge

SERVER = "python3 -m sglang.launch_server"
V2_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
QWEN_MOE = "--model-path Qwen/Qwen3-30B-A3B "
V2 = QWEN_MOE + "--moe-a2a-backend deepep_v2 --tp-size 2 "


def _findings(out, code):
    return [f for f in out["findings"] if f["code"] == code]


# -- P8: DeepEP v2 budgets and model allow-list ---------------------------------------------------------------

def test_deepep_v2_pair_with_a_small_budget(scratch):
    """rw25/b repro 7 (michael-amd/sglang-ci's PD pair with DeepEP v2 and the variable at 16; DeepSeek-V3 config).
    Oracle: prefill REJECT "DeepEP v2 per-rank prefill budget exceeds ...: required=2048, capacity=16"
    (moe_hook.py:689); decode REJECT "DeepEP v2 per-rank decode CUDA graph exceeds ...: required=512,
    capacity=16" (moe_hook.py:700).  The prefill's chunk is left to SGLang, but even the smallest chunk SGLang
    derives (2048, 512 per attention-DP rank) is over 16: an error.  The decode's graph batch size depends on the
    GPU (512 on the H200): a warning."""
    env = f"{V2_ENV}=16 "
    common = "--model-path deepseek-ai/DeepSeek-V3-0324 --tp 4 --moe-a2a-backend deepep_v2 --attn-dp-size 4 --ep-size 4"
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {env}{SERVER} {common} --disaggregation-mode prefill --port 30000 &
        {env}{SERVER} {common} --disaggregation-mode decode --port 30001 --base-gpu-id 4 &
        """)
    code, out = scratch.lint("launch.sh")
    [pre] = _findings(out, "SGL197")
    assert code == 1 and pre["severity"] == "error" and pre["line"] == 2
    assert "required=at least 512, capacity=16" in pre["message"]
    assert f"{V2_ENV}=16 in this launch's environment" in pre["message"]
    [dec] = _findings(out, "SGL291")
    assert dec["severity"] == "warning" and dec["line"] == 3
    assert "required=512, capacity=16 (requests=512, tokens/request=1)" in dec["message"]
    assert not _findings(out, "SGL199") and not _findings(out, "SGL198") and not _findings(out, "SGL288")


def test_deepep_v2_prefill_budget_from_a_written_chunk():
    """Oracle 0.5.23 REJECT "required=2048, capacity=1024" (4096 per attention-DP rank over 2 TP ranks)."""
    j = judge(V2 + "--disaggregation-mode prefill --chunked-prefill-size 4096", env={V2_ENV: "1024"})
    assert j.errors == ["SGL197"]
    assert "required=2048, capacity=1024" in " ".join(j.messages)


@pytest.mark.parametrize("argv, env", [
    # oracle 0.5.23 ACCEPT: 4096 over 2 TP ranks fits 2048
    (V2 + "--disaggregation-mode prefill --chunked-prefill-size 4096", {V2_ENV: "2048"}),
    # oracle ACCEPT: 2048 per attention-DP rank, not scattered further
    (V2 + "--disaggregation-mode prefill --attn-dp-size 2 --chunked-prefill-size 4096", {V2_ENV: "2048"}),
    # oracle ACCEPT: a decode server has no prefill budget
    (V2 + "--disaggregation-mode decode --chunked-prefill-size 4096 --cuda-graph-max-bs-decode 64", {V2_ENV: "1024"}),
    # oracle ACCEPT: the chunk left to SGLang, a large budget
    (V2 + "--disaggregation-mode prefill", {V2_ENV: "100000"}),
])
def test_deepep_v2_prefill_budget_quiet(argv, env):
    j = judge(argv, env=env)
    assert "SGL197" not in j.codes and "SGL198" not in j.codes and not j.errors


def test_deepep_v2_prefill_budget_before_0_5_22_counts_the_whole_chunk():
    """SGLang 0.5.21 (legacy oracle) REJECTs "required=4096, capacity=2048": the scatter over TP ranks came in
    0.5.22 (0.5.23 accepts the same launch, test above)."""
    j = judge(V2 + "--disaggregation-mode prefill --chunked-prefill-size 4096", env={V2_ENV: "2048"},
              version="0.5.21")
    assert "SGL197" in j.errors


def test_deepep_v2_prefill_with_the_variable_unset_is_a_warning():
    """Oracle REJECT "required=2048, capacity=128" (the variable unset); it may be set in the image: a warning."""
    j = judge(V2 + "--disaggregation-mode prefill --chunked-prefill-size 4096")
    assert "SGL198" in j.codes and not j.errors


def test_deepep_v2_decode_graph_budget():
    """Oracle REJECT "DeepEP v2 per-rank decode CUDA graph exceeds ...: required=256, capacity=128 (requests=256,
    tokens/request=1)"."""
    j = judge(V2 + "--disaggregation-mode decode --cuda-graph-max-bs-decode 256", env={V2_ENV: "128"})
    assert j.errors == ["SGL199"]
    assert "required=256, capacity=128 (requests=256, tokens/request=1)" in " ".join(j.messages)


@pytest.mark.parametrize("extra", [
    "--cuda-graph-max-bs-decode 128",                               # oracle ACCEPT
    "--cuda-graph-max-bs-decode 256 --disable-cuda-graph",          # oracle ACCEPT: no decode graph
    "--cuda-graph-max-bs-decode 256 --max-running-requests 64",     # oracle ACCEPT: graph capped at 64
])
def test_deepep_v2_decode_graph_budget_quiet(extra):
    j = judge(V2 + "--disaggregation-mode decode " + extra, env={V2_ENV: "128"})
    assert "SGL199" not in j.codes and "SGL291" not in j.codes and not j.errors


def test_deepep_v2_decode_with_everything_left_to_sglang_is_a_warning():
    """Oracle (H200) REJECT "required=256, capacity=128": the default graph batch size (256 below --tp-size 4)
    over the default budget.  Quiet (oracle ACCEPT) with the variable at 512."""
    j = judge(V2 + "--disaggregation-mode decode")
    assert "SGL291" in j.codes and not j.errors
    assert "SGL291" not in judge(V2 + "--disaggregation-mode decode", env={V2_ENV: "512"}).codes


def test_deepep_v2_on_a_model_it_is_not_validated_for():
    """Oracle REJECT "DeepEP v2 MoE is not validated for 'LlamaForCausalLM'. The model package must register
    its architecture with register_deepep_v2_model, ..." (moe_hook.py:726)."""
    j = judge("--model-path meta-llama/Llama-3.1-8B-Instruct --moe-a2a-backend deepep_v2 --tp-size 2",
              env={V2_ENV: "100000"})
    assert j.errors == ["SGL288"]
    assert "not validated for 'LlamaForCausalLM'" in " ".join(j.messages)


@pytest.mark.parametrize("argv", [
    V2,                                                                  # oracle ACCEPT (Qwen3-MoE config)
    "--model-path deepseek-ai/DeepSeek-V3-0324 --moe-a2a-backend deepep_v2 --tp-size 2",  # DeepseekV3: listed
    "--model-path /models/served --moe-a2a-backend deepep_v2 --tp-size 2",                 # a name pdlint cannot place
    "--model-path meta-llama/Llama-3.1-8B-Instruct --moe-a2a-backend deepep --tp-size 2",  # DeepEP v1: no list
])
def test_deepep_v2_model_quiet(argv):
    assert "SGL288" not in judge(argv, env={V2_ENV: "100000"}).codes


# -- P10: FlashInfer CuteDSL MoE runner's quantization --------------------------------------------------------

def test_flashinfer_cutedsl_without_quantization_warns(scratch):
    """rw25/b repro 10 (DeepSeek-V3 config without a quantization config): oracle REJECT on both roles
    "Invalid quantization 'None'. FlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4',
    'modelopt_mixed' (with NVFP4 MoE layers), 'nvfp4_online', or hybrid NVFP4 models." (moe_hook.py:98).  An NVFP4
    checkpoint passes without --quantization, so a warning."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path deepseek-ai/DeepSeek-V3-0324 --disaggregation-mode prefill --tp 4 --moe-runner-backend flashinfer_cutedsl --port 30000 &
        {SERVER} --model-path deepseek-ai/DeepSeek-V3-0324 --disaggregation-mode decode --tp 4 --moe-runner-backend flashinfer_cutedsl --port 30001 --base-gpu-id 4 &
        """)
    code, out = scratch.lint("launch.sh")
    found = _findings(out, "SGL290")
    assert [f["line"] for f in found] == [2, 3] and {f["severity"] for f in found} == {"warning"}
    assert code == 0 and not _findings(out, "SGL289")
    assert "Invalid quantization 'None'" in found[0]["message"]


def test_flashinfer_cutedsl_with_a_wrong_quantization_is_an_error():
    """Oracle REJECT "Invalid quantization 'fp8'. FlashInfer CuteDSL MOE currently supports only: ..."."""
    j = judge(QWEN_MOE + "--moe-runner-backend flashinfer_cutedsl --quantization fp8")
    assert j.errors == ["SGL289"]
    assert "Invalid quantization 'fp8'" in " ".join(j.messages)


@pytest.mark.parametrize("argv", [
    QWEN_MOE + "--moe-runner-backend flashinfer_cutedsl --quantization modelopt_fp4",  # oracle ACCEPT
    QWEN_MOE + "--moe-runner-backend flashinfer_cutedsl --quantization mxfp8",         # oracle ACCEPT (runner replaced)
    QWEN_MOE + "--moe-runner-backend flashinfer_cutlass --quantization fp8",           # another runner (SGL286's)
    # an NVFP4 checkpoint by name (source: a hybrid FP8+NVFP4 checkpoint passes whatever --quantization says,
    # and without one SGLang takes the checkpoint's modelopt_fp4)
    "--model-path nvidia/DeepSeek-V4-Pro-NVFP4 --moe-runner-backend flashinfer_cutedsl --quantization fp8",
    "--model-path nvidia/DeepSeek-R1-FP4 --moe-runner-backend flashinfer_cutedsl",
])
def test_flashinfer_cutedsl_quantization_quiet(argv):
    j = judge(argv)
    assert "SGL289" not in j.codes and "SGL290" not in j.codes


# -- P11: SGL683 for text-only Qwen3 / Qwen3-MoE ----------------------------------------------------------------

def test_language_only_on_qwen3_moe(scratch):
    """rw25/b repro 9: oracle REJECT on both roles "Model type Qwen3MoeForCausalLM is not supported for encoder
    disaggregation. Supported architectures: Qwen2VL, Qwen3VL, Qwen3.5, ..." (pd_disaggregation_hook.py:372)."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path Qwen/Qwen3-30B-A3B --disaggregation-mode prefill --tp 4 --language-only --port 30000 &
        {SERVER} --model-path Qwen/Qwen3-30B-A3B --disaggregation-mode decode --tp 4 --language-only --port 30001 --base-gpu-id 4 &
        """)
    code, out = scratch.lint("launch.sh")
    found = _findings(out, "SGL683")
    assert code == 1 and [f["line"] for f in found] == [2, 3]
    assert "Model type Qwen3MoeForCausalLM is not supported" in found[0]["message"]
    assert "--model-path names Qwen3-MoE" in found[0]["message"]


def test_language_only_on_dense_qwen3():
    """Qwen3ForCausalLM is not on the list either (pd_disaggregation_hook.py:353-372)."""
    j = judge("--model-path Qwen/Qwen3-8B --language-only")
    assert j.errors == ["SGL683"] and "Model type Qwen3ForCausalLM" in " ".join(j.messages)


@pytest.mark.parametrize("model", [
    "Qwen/Qwen3-VL-30B-A3B-Instruct",    # Qwen3VLMoeForConditionalGeneration: on the list
    "Qwen/Qwen3.5-397B-A17B",            # Qwen3_5MoeForConditionalGeneration: on the list
    "Qwen/Qwen3-Omni-30B-A3B-Instruct",  # Qwen3OmniMoeForConditionalGeneration: on the list
    "Qwen/Qwen3-Embedding-8B",           # a Qwen3 name pdlint does not place
])
def test_language_only_quiet_for_qwen3_multimodal_or_unplaced(model):
    assert "SGL683" not in judge(f"--model-path {model} --language-only").codes


# -- P9: KV cache sharding with the page size left to SGLang ----------------------------------------------------

def test_kv_sharding_with_the_default_page_size_warns():
    """rw25/b env_results e017: a DeepSeek-V3 prefill with --enable-kv-cache-sharding and no --page-size, oracle
    (H200) REJECT "--enable-kv-cache-sharding requires a real page size (--page-size 64 recommended) ..."
    (kv_shard_hook.py:274): the default page size is 1.  On Blackwell SGLang's default MLA backend sets 64, so a
    warning."""
    j = judge("--model-path deepseek-ai/DeepSeek-V3-0324 --disaggregation-mode prefill --tp 8 "
              "--enable-kv-cache-sharding")
    assert "SGL350" in j.codes and not j.errors
    assert "SGL185" not in j.codes


@pytest.mark.parametrize("extra", [
    "--page-size 64",                       # oracle ACCEPT (the tiny-model equivalent: SGL350's quiet examples)
    "--attention-backend trtllm_mla",       # the backend sets page size 64 itself
])
def test_kv_sharding_page_size_quiet(extra):
    j = judge("--model-path deepseek-ai/DeepSeek-V3-0324 --disaggregation-mode prefill --tp 8 "
              "--enable-kv-cache-sharding " + extra)
    assert "SGL350" not in j.codes and "SGL185" not in j.codes
