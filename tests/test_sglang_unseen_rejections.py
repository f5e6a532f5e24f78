"""Warnings for launches SGLang refuses unless something pdlint cannot see saves them.

Field test rw22/b (differential test against SGLang 0.5.23's argument resolution, launches written after the
corpus' SGLang PD scripts: dynamo disagg.yaml, ome, rbg, ...):

- P1 (repro 1): NGRAM speculation with `--page-size 16/64` and no `--attention-backend` (21 variants). The
  oracle on an emulated H200 (SM90, default backend fa3) REJECTs "speculative_eagle_topk(10) > 1 with
  page_size(16) > 1 is unstable ..." (``arg_groups/speculative_hook.py:1361``), and ACCEPTs at SM80 and SM100;
  SGL412 fired only with an explicit backend. SGL467 warns (pdlint does not know the GPU).
- P5 (repro 6): `--moe-a2a-backend mori` with `--chunked-prefill-size 8192` on a prefill and
  SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK unset (10 variants): oracle REJECT "(default 4096) must be >= ..."
  (``arg_groups/moe_hook.py:567``), ACCEPT with 8192. SGL163 compares only a visible value; SGL195 (MoRI) and
  SGL196 (pplx, default 128, ``moe_hook.py:615``) warn with the default budget.
"""

from pdlint.engines.sglang.judge import judge
from pdlint.engines.sglang.rulebase import UNSEEN
from pdlint.rules import all_rules

LLAMA = "--model-path meta-llama/Llama-3.1-8B-Instruct "
QWEN_MOE = "--model-path Qwen/Qwen3-30B-A3B "
MORI = QWEN_MOE + "--disaggregation-mode prefill --moe-a2a-backend mori --tp-size 2 --ep-size 2 --chunked-prefill-size 8192"
PPLX = QWEN_MOE + "--disaggregation-mode prefill --moe-a2a-backend pplx --tp-size 2 --attn-dp-size 2 --chunked-prefill-size 4096"


def _message(j, code):
    return next(m for c, m in zip(j.codes, j.messages) if c == code)


def test_ngram_tree_with_pages_and_default_backend_warns():
    """Oracle 0.5.23, emulated H200: REJECT "speculative_eagle_topk(10) > 1 with page_size(16) > 1 is unstable ..."."""
    j = judge(LLAMA + "--disaggregation-mode prefill --page-size 16 --speculative-algorithm NGRAM --port 30000")
    assert "SGL467" in j.codes and not j.reject  # a warning: the GPU decides
    msg = _message(j, "SGL467")
    assert "--attention-backend flashinfer" in msg and "page_size(16)" in msg and "Hopper" in msg


def test_ngram_with_flashinfer_or_page_one_or_breadth_one_is_quiet():
    """Oracle 0.5.23: ACCEPT for each."""
    for extra in ("--page-size 16 --attention-backend flashinfer", "--page-size 1",
                  "--page-size 16 --speculative-ngram-max-bfs-breadth 1", ""):
        j = judge(LLAMA + "--speculative-algorithm NGRAM " + extra)
        assert "SGL467" not in j.codes, extra


def test_ngram_with_an_explicit_other_backend_is_sgl412_not_sgl467():
    """Oracle 0.5.23: REJECT (same message); the backend is on the command line, so SGL412 decides (error)."""
    j = judge(LLAMA + "--speculative-algorithm NGRAM --page-size 16 --attention-backend fa3")
    assert "SGL412" in j.errors and "SGL467" not in j.codes
    assert "SGL467" not in judge(LLAMA + "--speculative-algorithm NGRAM --page-size 16 "
                                         "--attention-backend $BACKEND").codes


def test_mori_budget_unset_warns_with_the_default():
    """Oracle 0.5.23: REJECT "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be >= ..."."""
    j = judge(MORI)
    assert "SGL195" in j.codes and "SGL163" not in j.codes and not j.reject
    msg = _message(j, "SGL195")
    assert "4096 tokens per rank" in msg and "8192" in msg


def test_mori_budget_set_or_small_chunk_or_decode_is_quiet():
    """Oracle 0.5.23: ACCEPT with the variable at 8192, on decode, and with a 4096 chunk."""
    assert "SGL195" not in judge(MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "8192"}).codes
    assert "SGL195" not in judge(MORI.replace("prefill", "decode")).codes
    assert "SGL195" not in judge(MORI.replace("8192", "4096")).codes
    # set to a value pdlint cannot read: it is set, so no default-budget warning (and no SGL163 either)
    j = judge(MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "$BUDGET"})
    assert "SGL195" not in j.codes and "SGL163" not in j.codes
    # set too low in the launch: SGL163's error, not the warning
    j = judge(MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"})
    assert "SGL163" in j.errors and "SGL195" not in j.codes


def test_pplx_budget_unset_warns_and_set_is_quiet():
    """Oracle 0.5.23: REJECT "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 128) must be >= ..." unset,
    ACCEPT at 4096."""
    j = judge(PPLX)
    assert "SGL196" in j.codes and not j.reject and "128 tokens per rank" in _message(j, "SGL196")
    assert "SGL196" not in judge(PPLX, {"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}).codes


def test_the_unseen_rules_are_warnings_and_say_what_pdlint_cannot_see():
    rules = all_rules()
    for code in ("SGL467", "SGL195", "SGL196"):
        assert rules[code].severity == "warning" and UNSEEN[code]
