"""SGL184 (`--enable-kv-cache-sharding` without a shard topology) for a model pdlint knows is not MLA.

Field test rw22/b (differential test against SGLang 0.5.23's argument resolution, problem P2, repro 2: a
Qwen/Qwen3-8B prefill + decode pair written after the corpus' SGLang PD launch scripts): SGLang takes the GQA
branch of ``arg_groups/kv_shard_hook.py:266`` for every non-MLA model, so `--tp-size 2` does not help; pdlint
fired only at tp 1 (an MLA model shards across attention TP) although its SGL815 already said "Qwen3 is not an
MLA model"."""

from pdlint.engines.sglang.judge import judge

KS = "--disaggregation-mode prefill --enable-kv-cache-sharding "


def test_known_gqa_model_with_tp_over_one_fires():
    """Oracle 0.5.23 (tiny Llama served as meta-llama/Llama-3.1-8B-Instruct, --tp-size 2): REJECT
    "--enable-kv-cache-sharding for GQA models shards across attention-CP ranks and requires --enable-prefill-cp
    with attn_cp_size > 1."."""
    j = judge("--model-path Qwen/Qwen3-8B " + KS + "--tp-size 2 --port 30000")
    assert "SGL184" in j.errors
    msg = next(m for c, m in zip(j.codes, j.messages) if c == "SGL184")
    assert "Qwen3 (--model-path) is not an MLA model" in msg
    served = judge("--model-path /model --served-model-name meta-llama/Llama-3.1-8B-Instruct " + KS + "--tp-size 4")
    assert "SGL184" in served.errors


def test_known_gqa_model_with_cp_size_but_no_prefill_cp_fires():
    """Oracle 0.5.23 (same model, --tp-size 2 --attn-cp-size 2, no --enable-prefill-cp): REJECT, same message."""
    assert "SGL184" in judge("--model-path Qwen/Qwen3-8B " + KS + "--tp-size 2 --attn-cp-size 2").errors


def test_known_gqa_model_with_prefill_cp_is_quiet():
    """Oracle 0.5.23 (tiny Llama, --enable-prefill-cp --attn-cp-size 2 --tp-size 2 --cp-strategy interleave
    --page-size 64): ACCEPT."""
    j = judge("--model-path Qwen/Qwen3-8B " + KS + "--enable-prefill-cp --attn-cp-size 2 --tp-size 2 "
              "--cp-strategy interleave --page-size 64")
    assert "SGL184" not in j.codes


def test_mla_or_unknown_model_with_tp_over_one_stays_quiet():
    """An MLA model shards across attention TP (SGLang's MLA branch accepts tp > 1 without attention DP); an
    unknown model keeps the cautious verdict."""
    assert "SGL184" not in judge("--model-path deepseek-ai/DeepSeek-V3 " + KS + "--tp-size 8").codes
    assert "SGL184" not in judge("--model-path /models/my-model " + KS + "--tp-size 2").codes
    assert "SGL184" not in judge("--model-path $MODEL " + KS + "--tp-size 2").codes
    # unknown model at tp 1: fails on either branch, as before
    assert "SGL184" in judge("--model-path /models/my-model " + KS).errors
