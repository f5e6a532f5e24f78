"""Field test rw26/b: a differential test of pdlint's SGLang rules against SGLang 0.5.23's own argument
resolution (the oracle: emulated H200, config-only models; the Qwen3-8B, Qwen3-30B-A3B and DeepSeek-V3-0324
configs are the published config.json files without weights).  What it found that pdlint missed, each with the
oracle's verdict (recorded in the docstrings and comments; the tests do not run the oracle).  The launches are
the harness's mutations of the PD pair of michael-amd/sglang-ci (test/pd/run_pd_docker.sh), the repository the
rw25/b launches came from too.

- 1: SGL288 did not place dense Qwen3 (the family row also holds Qwen3-MoE, which is on the DeepEP v2 list),
  GLM-4.5/4.6/4.7 or MiniMax-M2;
- 2: the speculative draft inherits `--moe-a2a-backend deepep_v2` (SGL292, new);
- 3: `--enable-kv-cache-sharding` with a written fa3 backend and no `--page-size` was only SGL350's warning
  (now SGL185's error);
- 6: `--quantization nvfp4_online` off Blackwell (SGL293, new, a warning like SGL515)."""

import pytest

from pdlint.engines.sglang.judge import judge

SERVER = "python3 -m sglang.launch_server"
V2_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
V2 = "--moe-a2a-backend deepep_v2 --tp 8 "


def _findings(out, code):
    return [f for f in out["findings"] if f["code"] == code]


# -- 1: SGL288 places dense Qwen3, GLM-4.x and MiniMax-M2 --------------------------------------------------------

def test_deepep_v2_pair_with_dense_qwen3(scratch):
    """rw26/b repro 1: oracle (Qwen3-8B's config.json) REJECT "DeepEP v2 MoE is not validated for
    'Qwen3ForCausalLM'. ..." (moe_hook.py:726); pdlint reported only the Qwen2.5 line."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {V2_ENV}=65536 {SERVER} --model-path Qwen/Qwen3-8B --tp 8 --disaggregation-mode prefill --moe-a2a-backend deepep_v2 &
        {V2_ENV}=65536 {SERVER} --model-path Qwen/Qwen2.5-7B-Instruct --tp 8 --port 30001 --disaggregation-mode decode --moe-a2a-backend deepep_v2 &
        """)
    code, out = scratch.lint("launch.sh")
    found = _findings(out, "SGL288")
    assert code == 1 and [f["line"] for f in found] == [2, 3]
    assert "not validated for 'Qwen3ForCausalLM'. The model package" in found[0]["message"]
    assert found[0]["severity"] == "error"


@pytest.mark.parametrize("model, arch", [
    ("Qwen/Qwen3-8B", "Qwen3ForCausalLM"),                          # oracle REJECT (real config)
    ("Qwen/Qwen3-32B", "Qwen3ForCausalLM"),                         # rw26/b 1x/2
    ("Qwen/Qwen3-4B-Instruct-2507", "Qwen3ForCausalLM"),            # rw26/b 1x/3
    ("/models/Qwen3-8B-FP8", "Qwen3ForCausalLM"),                   # a local copy, FP8 build
    ("zai-org/GLM-4.6", "Glm4MoeForCausalLM"),                      # rw26/b 1x/8 (not on the list: GLM-5 only)
    ("zai-org/GLM-4.5-Air", "Glm4MoeForCausalLM"),
    ("zai-org/GLM-4.7-Flash", "Glm4MoeLiteForCausalLM"),
    ("MiniMaxAI/MiniMax-M2", "MiniMaxM2ForCausalLM"),               # rw26/b 1x/10
])
def test_deepep_v2_unvalidated_model_fires(model, arch):
    j = judge(f"--model-path {model} {V2}--disaggregation-mode prefill", env={V2_ENV: "65536"})
    assert "SGL288" in j.errors
    assert f"not validated for '{arch}'" in " ".join(j.messages)


@pytest.mark.parametrize("model", [
    "Qwen/Qwen3-235B-A22B",              # Qwen3MoeForCausalLM: on the list (rw26/b 1x/5, accepted by this check)
    "Qwen/Qwen3-30B-A3B",                # oracle ACCEPT (real config)
    "Qwen/Qwen3-Coder-480B-A35B-Instruct",
    "Qwen/Qwen3-VL-8B-Instruct",         # Qwen3-VL: not placed
    "Qwen/Qwen3-Embedding-8B",           # a Qwen3 name pdlint does not place
    "moonshotai/Kimi-K2-Instruct",       # DeepseekV3ForCausalLM (rw26/b 1x/9)
    "zai-org/GLM-5",                     # GlmMoeDsaForCausalLM: on the list
    "/models/my-model",                  # unknown: quiet
])
def test_deepep_v2_listed_or_unplaced_model_quiet(model):
    j = judge(f"--model-path {model} {V2}--disaggregation-mode prefill", env={V2_ENV: "65536"})
    assert "SGL288" not in j.codes


def test_dense_qwen3_with_deepep_v1_quiet():
    assert "SGL288" not in judge("--model-path Qwen/Qwen3-8B --moe-a2a-backend deepep --tp 8").codes


# -- 2: the speculative draft inherits DeepEP v2 (SGL292) ----------------------------------------------------------

DSV3_DECODE = ("--model-path deepseek-ai/DeepSeek-V3 --tp 8 --disaggregation-mode decode --moe-a2a-backend deepep_v2 "
               "--cuda-graph-max-bs-decode 16 --speculative-algorithm NEXTN --speculative-num-steps 2 "
               "--speculative-eagle-topk 1 --speculative-num-draft-tokens 3")


def test_deepep_v2_mtp_decode(scratch):
    """rw26/b repro 2: oracle (DeepSeek-V3-0324's config.json) REJECT "DeepEP v2 MoE is not validated as a
    speculative draft backend. Select another --speculative-moe-a2a-backend." (moe_hook.py:635
    validate_deepep_v2_speculative_draft); pdlint: 0 findings."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {V2_ENV}=65536 {SERVER} {DSV3_DECODE} &
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL292")
    assert code == 1 and f["severity"] == "error" and f["line"] == 2
    assert "not validated as a speculative draft backend" in f["message"]
    assert "the NEXTN draft inherits deepep_v2" in f["message"]


@pytest.mark.parametrize("extra", [
    "",                                              # NEXTN (above): oracle REJECT
    "--speculative-moe-a2a-backend deepep_v2",       # written: oracle REJECT
])
def test_deepep_v2_draft_fires(extra):
    j = judge(DSV3_DECODE + " " + extra, env={V2_ENV: "65536"})
    assert "SGL292" in j.errors


@pytest.mark.parametrize("argv", [
    "--model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-a2a-backend deepep_v2 --speculative-algorithm STANDALONE "
    "--speculative-draft-model-path Qwen/Qwen3-0.6B",
    "--model-path Qwen/Qwen3-30B-A3B --speculative-algorithm NGRAM --speculative-moe-a2a-backend deepep_v2",
    "--model-path Qwen/Qwen3-30B-A3B --speculative-moe-a2a-backend deepep_v2",  # no algorithm
])
def test_deepep_v2_draft_other_shapes_fire(argv):
    """Oracle, on the tiny Qwen3-MoE config (without a draft path for STANDALONE): REJECT for all three - a written
    draft backend is refused whatever the algorithm, NGRAM included."""
    assert "SGL292" in judge(argv, env={V2_ENV: "100000"}).errors


@pytest.mark.parametrize("extra", [
    "--speculative-moe-a2a-backend none",    # oracle ACCEPT (rw26/b r2b)
    "--speculative-moe-a2a-backend deepep",  # oracle ACCEPT (tiny Qwen3-MoE config)
])
def test_deepep_v2_draft_backend_written_quiet(extra):
    j = judge(DSV3_DECODE + " " + extra, env={V2_ENV: "65536"})
    assert "SGL292" not in j.codes


@pytest.mark.parametrize("argv", [
    "--model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-a2a-backend deepep_v2 --speculative-algorithm NGRAM",  # tiny: ACCEPT
    "--model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-a2a-backend deepep_v2",                                # no draft
    "--model-path Qwen/Qwen3-30B-A3B --tp 2 --moe-a2a-backend deepep --speculative-algorithm NEXTN",
])
def test_deepep_v2_draft_quiet(argv):
    assert "SGL292" not in judge(argv, env={V2_ENV: "100000"}).codes


# -- 3: a sharded prefill whose written backend keeps page size 1 ------------------------------------------------

SHARD = "--model-path deepseek-ai/DeepSeek-V3 --tp 8 --disaggregation-mode prefill --enable-kv-cache-sharding "


def test_kv_sharding_written_fa3_without_page_size(scratch):
    """rw26/b repro 3: oracle (DeepSeek-V3-0324's config.json, H200) REJECT "--enable-kv-cache-sharding requires a
    real page size (--page-size 64 recommended) ..." (kv_shard_hook.py:274); pdlint gave SGL350's warning "unless the
    attention backend it picks ... sets its own", but the backend is written and fa3 sets none: an error."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} {SHARD}--attention-backend fa3 &
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL185")
    assert code == 1 and f["severity"] == "error" and f["line"] == 2
    assert "written attention backend fa3 sets no page size of its own" in f["message"]
    assert not _findings(out, "SGL350")


def test_kv_sharding_both_sides_written_fa3():
    """Oracle (tiny GQA Llama with prefill CP) REJECT: prefill and decode backends both fa3 (SGL185-fire-2)."""
    j = judge(SHARD + "--prefill-attention-backend fa3 --decode-attention-backend fa3")
    assert "SGL185" in j.errors and "SGL350" not in j.codes


@pytest.mark.parametrize("extra", [
    "--attention-backend fa3 --page-size 64",                     # oracle ACCEPT (real config)
    "--attention-backend fa3 --decode-attention-backend trtllm_mha",  # decode side sets 64 (ACCEPT, tiny Llama)
    "--prefill-attention-backend fa3",                            # decode side left to SGLang: SGL350's warning
    "",                                                           # backend left to SGLang: SGL350's warning
])
def test_kv_sharding_page_size_not_an_error(extra):
    j = judge(SHARD + extra)
    assert "SGL185" not in j.codes


def test_kv_sharding_backend_left_to_sglang_still_warns():
    j = judge(SHARD + "--prefill-attention-backend fa3")
    assert "SGL350" in j.codes and not j.errors


@pytest.mark.parametrize("model", [
    "deepseek-ai/DeepSeek-V4-Flash",   # model_overrides/deepseek_v4.py sets page size 256
    "MiniMaxAI/MiniMax-M3.1-NVFP4",    # model_overrides/minimax_m3.py sets 128
])
def test_kv_sharding_model_that_sets_its_page_size_not_an_error(model):
    j = judge(f"--model-path {model} --tp 8 --disaggregation-mode prefill --enable-kv-cache-sharding "
              "--attention-backend fa3")
    assert "SGL185" not in j.codes


# -- 6: --quantization nvfp4_online off Blackwell (SGL293) -------------------------------------------------------

def test_nvfp4_online_warns(scratch):
    """rw26/b repro 7: oracle (Qwen3-30B-A3B's config.json, H200) REJECT "--quantization nvfp4_online is supported
    only on NVIDIA Blackwell SM100/SM103 GPUs." (overrides.py:1458); on an emulated B200 (SM100) ACCEPT.  pdlint
    cannot see the GPU: a warning, like SGL515."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path Qwen/Qwen3-30B-A3B --tp 8 --disaggregation-mode prefill --quantization nvfp4_online &
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL293")
    assert code == 0 and f["severity"] == "warning" and f["line"] == 2
    assert "supported only on NVIDIA Blackwell SM100/SM103 GPUs" in f["message"]


@pytest.mark.parametrize("extra", ["--quantization fp8", "--quantization modelopt_fp4", ""])
def test_nvfp4_online_quiet(extra):
    assert "SGL293" not in judge("--model-path Qwen/Qwen3-30B-A3B --tp 8 " + extra).codes
