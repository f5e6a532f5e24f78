"""`--page-size 0` on a prefill / non-PD SGLang server (SGL194) and SGL802 staying quiet on it.

Field test rw22/b (differential test against SGLang 0.5.23's argument resolution, problem P4, repro 4: a
prefill + decode pair written after the corpus' SGLang PD launch scripts, model meta-llama/Llama-3.1-8B-Instruct):
the oracle rejects the prefill with ZeroDivisionError "integer modulo by zero"
(``arg_groups/validation_hook.py:244`` ``chunked_prefill_size % page_size``) and accepts the decode, while
pdlint was silent and SGL802 described `--page-size 0` as a page size set on one role."""

from pdlint.engines.sglang.judge import judge
from pdlint.engines.sglang.pairbase import pair_judge

M = "--model-path meta-llama/Llama-3.1-8B-Instruct "


def test_page_size_zero_on_prefill_is_an_error():
    """Oracle 0.5.23 (and 0.5.21), emulated H200: REJECT, ZeroDivisionError "integer modulo by zero".  An error where
    the written attention backend keeps the page size; without one a warning (SGL357): emulating a B200 the oracle
    accepts it, the default TensorRT-LLM backend replacing the page size first (stop 44)."""
    j = judge(M + "--disaggregation-mode prefill --page-size 0 --port 30000 --attention-backend fa3")
    assert "SGL194" in j.errors
    msg = next(m for c, m in zip(j.codes, j.messages) if c == "SGL194")
    assert "integer modulo by zero" in msg and "prefill" in msg
    j = judge(M + "--disaggregation-mode prefill --page-size 0 --port 30000")
    assert "SGL194" not in j.codes and "SGL357" in j.codes and not j.errors


def test_page_size_zero_on_a_non_pd_server_with_chunked_prefill_is_an_error():
    """Oracle 0.5.23: REJECT, "integer modulo by zero"."""
    assert "SGL194" in judge(M + "--page-size 0 --chunked-prefill-size 8192 --attention-backend flashinfer").errors
    assert "SGL357" in judge(M + "--page-size 0 --chunked-prefill-size 8192").codes


def test_page_size_zero_on_decode_is_quiet():
    """Oracle 0.5.23: ACCEPT (a decode server skips the chunk/page check)."""
    assert "SGL194" not in judge(M + "--disaggregation-mode decode --page-size 0").codes


def test_page_size_zero_without_chunked_prefill_or_with_a_page_forcing_backend_is_quiet():
    """Oracle 0.5.23: ACCEPT for both (chunked prefill off skips the check; trtllm_mha resets the page size to
    64 before it)."""
    assert "SGL194" not in judge(M + "--disaggregation-mode prefill --page-size 0 --chunked-prefill-size -1").codes
    assert "SGL194" not in judge(M + "--disaggregation-mode prefill --page-size 0 --attention-backend trtllm_mha").codes
    assert "SGL194" not in judge(M + "--disaggregation-mode prefill --page-size 64").codes


def test_a_page_size_from_a_shell_variable_is_not_judged():
    assert "SGL194" not in judge(M + "--disaggregation-mode prefill --page-size $PAGE").codes


def test_sgl802_does_not_treat_page_size_zero_as_a_size():
    assert "SGL802" not in pair_judge("--page-size 0", "").codes
    assert "SGL802" not in pair_judge("", "--page-size 0").codes
    assert "SGL801" not in pair_judge("--page-size 0", "--page-size 64").codes
    assert "SGL802" in pair_judge("--page-size 64", "").codes
