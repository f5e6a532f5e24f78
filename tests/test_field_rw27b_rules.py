"""Field test rw27/b: a differential test of pdlint's SGLang rules against SGLang 0.5.23's own argument
resolution (the oracle: emulated H200, config-only models).  The items pdlint missed or worded wrongly, each with
the oracle's verdict in the docstrings (the tests do not run the oracle; the rule examples are replayed from
tests/conformance/recorded-*.jsonl):

- P4: `--page-size` written on a prefill that leaves `--chunked-prefill-size` to SGLang and divides none of the
  sizes SGLang derives from GPU memory (SGL103 with written backends that keep the page size, SGL351 otherwise);
- P5: `--enable-unified-memory --dcp-size N` on a non-MLA model (SGL352) or on a PD server (SGL353);
- P6: `--enable-hisparse` on a model that is not DSA / DeepSeek-V4 / MiniMax-M3 (SGL354);
- P7: `--kv-cache-dtype mxfp8` / `nvfp4` off Blackwell (SGL355 / SGL356, warnings like SGL293);
- P8: a decode with `--max-running-requests` and zero DP ranks crashes with ZeroDivisionError before the
  `--attn-dp-size must be positive` check SGL204 quoted (SGL294)."""

import pytest

from pdlint.engines.sglang.judge import judge

LLAMA = "--model-path /models/Llama-3.1-8B-Instruct "


def _severity(j, code):
    from pdlint.rules import all_rules
    assert code in j.codes
    return all_rules()[code].severity


# -- P4: the page size against SGLang's derived chunked prefill size ---------------------------------------------

def test_prefill_page_size_dividing_no_default_chunk_warns():
    """rw27/b repro 3: oracle REJECT `--disaggregation-mode prefill --page-size 48` ("chunked_prefill_size must be
    divisible by page_size", validation_hook.py:244, chunked prefill size 8192 on the H200); emulating a B200 the
    oracle accepts it (trtllm_mha replaces the page size with 64), so without a written backend a warning."""
    j = judge(LLAMA + "--disaggregation-mode prefill --page-size 48")
    assert _severity(j, "SGL351") == "warning" and "SGL103" not in j.codes and not j.reject
    assert "2048, 4096, 8192 or 16384 tokens" in " ".join(j.messages)
    j = judge(LLAMA + "--page-size 3")  # a non-PD server checks it too
    assert "SGL351" in j.codes


def test_prefill_page_size_with_page_keeping_backend_is_an_error():
    """Oracle REJECT with `--attention-backend flashinfer` on the H200, and on a B200 (the written backend keeps
    the page size there too)."""
    j = judge(LLAMA + "--disaggregation-mode prefill --page-size 48 --attention-backend flashinfer")
    assert "SGL103" in j.errors and "SGL351" not in j.codes
    assert "every GPU refuses" in " ".join(j.messages)
    j = judge(LLAMA + "--disaggregation-mode prefill --tp-size 2 --attn-dp-size 2 --page-size 16384 "
                      "--attention-backend fa3")
    assert "SGL103" in j.errors and "per attention-DP rank" in " ".join(j.messages)


@pytest.mark.parametrize("extra", [
    "--disaggregation-mode decode --page-size 48",                        # decode skips the check (oracle ACCEPT)
    "--disaggregation-mode prefill --page-size 64",
    "--disaggregation-mode prefill --page-size 1024",                     # divides 8192 and 16384 (oracle ACCEPT)
    "--disaggregation-mode prefill --page-size 48 --chunked-prefill-size 4800",
    "--disaggregation-mode prefill --page-size 48 --chunked-prefill-size -1",
    "--disaggregation-mode prefill --page-size 48 --attention-backend trtllm_mha",  # rewrites the page size
    "--disaggregation-mode prefill --tp-size 2 --attn-dp-size 2 --page-size 4096",
])
def test_prefill_page_size_quiet(extra):
    j = judge(LLAMA + extra)
    assert "SGL351" not in j.codes and "SGL103" not in j.codes


def test_prefill_page_size_on_page_setting_model_quiet():
    """DeepSeek-V3.2 (DSA) sets its own page size whatever the backend: not judged."""
    j = judge("--model-path deepseek-ai/DeepSeek-V3.2 --disaggregation-mode prefill --page-size 48 --tp-size 8")
    assert "SGL351" not in j.codes and "SGL103" not in j.codes


# -- P5: the unified memory pool with decode context parallelism --------------------------------------------------

UM_DCP = "--tp-size 2 --enable-unified-memory --dcp-size 2"


@pytest.mark.parametrize("role", ["prefill", "decode", None])
def test_unified_memory_dcp_non_mla_model_fires(role):
    """rw27/b repro 4: oracle REJECT on both roles (Llama) "--enable-unified-memory with decode context parallelism
    (--dcp-size > 1) supports MLA models only (e.g. kimi-linear) ..." (kv_cache_hook.py:727); pdlint only warned
    (SGL132, DCP on a prefill)."""
    mode = f"--disaggregation-mode {role} " if role else ""
    j = judge(LLAMA + mode + UM_DCP)
    assert "SGL352" in j.errors and "SGL353" not in j.codes
    assert "supports MLA models only" in " ".join(j.messages) and "names Llama-3" in " ".join(j.messages)


@pytest.mark.parametrize("role", ["prefill", "decode"])
def test_unified_memory_dcp_pd_mla_or_unknown_model_fires(role):
    """An MLA model passes the MLA-only check and is refused for the PD role (oracle, a DeepSeek-V3 config.json
    without weights: REJECT "... does not support PD disaggregation ..." at kv_cache_hook.py:740); a model pdlint
    cannot place is refused by one of the three checks."""
    for model in ("deepseek-ai/DeepSeek-V3-0324", "/models/my-model"):
        j = judge(f"--model-path {model} --disaggregation-mode {role} " + UM_DCP)
        assert "SGL353" in j.errors and "SGL352" not in j.codes


@pytest.mark.parametrize("argv", [
    "--model-path deepseek-ai/DeepSeek-V3-0324 " + UM_DCP,     # MLA, no PD role: the backend decides (not judged)
    "--model-path /models/my-model " + UM_DCP,                  # unknown model, no PD role
    LLAMA + "--disaggregation-mode decode --tp-size 2 --enable-unified-memory",
    LLAMA + "--disaggregation-mode decode --tp-size 2 --dcp-size 2",
])
def test_unified_memory_dcp_quiet(argv):
    j = judge(argv)
    assert "SGL352" not in j.codes and "SGL353" not in j.codes


# -- P6: HiSparse on a model without a sparse-attention indexer ---------------------------------------------------

@pytest.mark.parametrize("model", ["/models/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-8B",
                                   "openai/gpt-oss-120b", "zai-org/GLM-4.6", "MiniMaxAI/MiniMax-M2"])
def test_hisparse_on_unsupported_model_fires(model):
    """rw27/b repro 5: oracle REJECT `--disaggregation-mode decode --enable-hisparse` (Llama) "--enable-hisparse is
    only supported for DSA (DeepSeek Sparse Attention) models (e.g., DeepSeek V3.2, GLM-5), DeepSeek V4, and MiniMax
    M3 now." (hisparse_hook.py:104), on both roles and the Qwen3-MoE base too."""
    j = judge(f"--model-path {model} --disaggregation-mode decode --enable-hisparse")
    assert "SGL354" in j.errors
    assert "only supported for DSA" in " ".join(j.messages)


@pytest.mark.parametrize("model", [
    "deepseek-ai/DeepSeek-V3.2",         # DSA (oracle ACCEPT with a DSA config.json, index_topk set)
    "zai-org/GLM-5",
    "deepseek-ai/DeepSeek-V4-Flash",
    "deepseek-ai/DeepSeek-V3.2-Exp",
    "/models/deepseek-v32",
    "deepseek-ai/DeepSeek-V3.3",         # a release pdlint does not know: quiet
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",  # a Qwen student (refused too, but not placed by this row)
    "MiniMaxAI/MiniMax-M3",              # not placed by name: quiet
    "/models/my-model",
])
def test_hisparse_on_supported_or_unknown_model_quiet(model):
    assert "SGL354" not in judge(f"--model-path {model} --disaggregation-mode decode --enable-hisparse").codes


@pytest.mark.parametrize("model", ["deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3", "DeepSeek-V3.1-Terminus",
                                   "/data/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-Prover-V2-671B",
                                   "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Thinking", "moonshotai/Kimi-K2.5"])
def test_hisparse_on_a_deepseek_v3_checkpoint_without_the_dsa_indexer_fires(model):
    """DeepseekV3ForCausalLM is a DSA architecture only with `index_topk` in config.json (`is_deepseek_dsa`,
    configs/model_config.py:191 in 0.5.23, the same in 0.5.21; `is_deepseek_nsa` in 0.5.10). The oracle on a
    config-only DeepseekV3ForCausalLM model: without index_topk REJECT "--enable-hisparse is only supported for DSA
    ...", with index_topk (DeepSeek-V3.2's) ACCEPT. These names are the checkpoints without it (they were left quiet
    as sharing the architecture with DeepSeek-V3.2)."""
    j = judge(f"--model-path {model} --disaggregation-mode decode --enable-hisparse --disable-radix-cache")
    assert "SGL354" in j.errors
    assert "without the DSA indexer" in " ".join(j.messages) or "index_topk" in " ".join(j.messages)


def test_hisparse_rule_not_applied_before_its_message():
    """0.5.15 refuses other models with an earlier wording (\"... models now(e.g., ...)\"): not this rule."""
    assert "SGL354" not in judge(LLAMA + "--disaggregation-mode decode --enable-hisparse", version="0.5.15").codes


# -- P7: MXFP8 / NVFP4 KV cache off Blackwell ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype, code, sm", [("mxfp8", "SGL355", "SM100+"), ("nvfp4", "SGL356", "SM100 or SM120")])
@pytest.mark.parametrize("role", ["prefill", "decode", None])
def test_fp8_fp4_kv_cache_dtype_warns(dtype, code, sm, role):
    """rw27/b repro 8: oracle (emulated H200) REJECT `--disaggregation-mode decode --kv-cache-dtype mxfp8` ("requires
    an SM100+ (Blackwell) GPU ...", kv_cache_hook.py:106) and `nvfp4` ("requires Blackwell SM100 or SM120 ...",
    :128); emulating a B200 it accepts both on a non-PD server. A warning: pdlint does not see the GPU."""
    mode = f"--disaggregation-mode {role} " if role else ""
    j = judge(LLAMA + mode + f"--kv-cache-dtype {dtype}")
    assert _severity(j, code) == "warning" and not j.reject
    assert sm in " ".join(j.messages)


@pytest.mark.parametrize("dtype", ["fp8_e4m3", "bf16", "auto", "fp4_mx_block16"])
def test_other_kv_cache_dtypes_quiet(dtype):
    j = judge(LLAMA + f"--disaggregation-mode decode --kv-cache-dtype {dtype}")
    assert "SGL355" not in j.codes and "SGL356" not in j.codes


def test_fp4_kv_cache_rules_not_applied_before_their_release():
    """0.5.15 has no mxfp8 / nvfp4 KV cache dtype (its parser refuses them): no platform warning there."""
    j = judge(LLAMA + "--kv-cache-dtype nvfp4", version="0.5.15")
    assert "SGL356" not in j.codes and "SGL355" not in j.codes


# -- P8: zero DP ranks on a decode with --max-running-requests ---------------------------------------------------

@pytest.mark.parametrize("extra", ["--tp-size 2 --attn-dp-size 0", "--dp-size 0", "--dp-size 0 --enable-dp-attention"])
def test_decode_zero_dp_ranks_with_max_running_requests_crash(extra):
    """rw27/b repro 6: oracle REJECT `--disaggregation-mode decode --tp-size 2 --attn-dp-size 0
    --max-running-requests 64` with ZeroDivisionError "integer division or modulo by zero"
    (pd_disaggregation_hook.py:136), not SGL204's "--attn-dp-size must be positive" (that is the prefill's
    message, parallel_hook.py:286). `--dp-size 0` crashes the same way (oracle), and pdlint was silent on it."""
    j = judge(LLAMA + f"--disaggregation-mode decode {extra} --max-running-requests 64")
    assert "SGL294" in j.errors and "SGL204" not in j.codes
    text = " ".join(j.messages)
    assert "ZeroDivisionError" in text and "must be positive" not in text


@pytest.mark.parametrize("argv, code", [
    ("--disaggregation-mode prefill --tp-size 2 --attn-dp-size 0 --max-running-requests 64", "SGL204"),  # oracle: :286
    ("--disaggregation-mode decode --tp-size 2 --attn-dp-size 0", "SGL204"),                # no division: :286
    ("--disaggregation-mode decode --attn-dp-size 0 --max-running-requests 64 "
     "--disaggregation-decode-extra-slots 4", "SGL204"),                                     # oracle: :286
    ("--disaggregation-mode decode --dp-size 0", None),                                      # oracle ACCEPT
])
def test_zero_dp_ranks_without_the_division_keeps_sgl204(argv, code):
    j = judge(LLAMA + argv)
    assert "SGL294" not in j.codes
    assert (code in j.errors) if code else not j.reject


def test_decode_zero_dp_ranks_on_0_5_21_quiet():
    """0.5.21 divides by max(1, --dp-size) (pd_disaggregation_hook.py:130): no crash, no SGL294."""
    j = judge(LLAMA + "--disaggregation-mode decode --dp-size 0 --max-running-requests 64", version="0.5.21")
    assert "SGL294" not in j.codes and not j.reject


def test_page_size_zero_is_an_error_only_where_the_written_backend_keeps_it(scratch):
    """Stop 44 (helper w7): emulating a B200 the oracle accepts `--page-size 0` on a prefill - Blackwell's default
    TensorRT-LLM backend replaces the page size before the chunked-prefill check - so SGL194 was a false error there
    when no attention backend is written; SGL357 warns then, SGL194 stays for a written backend that keeps it."""
    line = "python -m sglang.launch_server --model-path /m --disaggregation-mode prefill --page-size 0"
    found = {}
    for name, extra in (("default.sh", ""), ("fa3.sh", " --attention-backend fa3"),
                        ("trtllm.sh", " --attention-backend trtllm_mha")):
        scratch.write(name, line + extra + "\n")
        _, report = scratch.lint("--sglang-version", "0.5.23", name)
        found[name] = [(f["code"], f["severity"]) for f in report["findings"]]
    assert found == {"default.sh": [("SGL357", "warning")], "fa3.sh": [("SGL194", "error")], "trtllm.sh": []}
