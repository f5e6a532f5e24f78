"""Field test rw26/b: a differential test of pdlint's SGLang rules against SGLang 0.5.23's own argument
resolution (the oracle: emulated H200, config-only models; the Qwen3-8B, Qwen3-30B-A3B and DeepSeek-V3-0324
configs are the published config.json files without weights).  What it found that pdlint missed, each with the
oracle's verdict (recorded in the docstrings and comments; the tests do not run the oracle).  The launches are
the harness's mutations of the PD pair of michael-amd/sglang-ci (test/pd/run_pd_docker.sh), the repository the
rw25/b launches came from too.

- 3: `--enable-kv-cache-sharding` with a written fa3 backend and no `--page-size` was only SGL350's warning
  (now SGL185's error)."""

import pytest

from pdlint.engines.sglang.judge import judge

SERVER = "python3 -m sglang.launch_server"


def _findings(out, code):
    return [f for f in out["findings"] if f["code"] == code]


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
