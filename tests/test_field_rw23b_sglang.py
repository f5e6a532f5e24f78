"""Field test rw23/b: a differential test of pdlint's SGLang rules against SGLang 0.5.23's own argument
resolution (the oracle, emulated H200, tiny config-only models).  What it found that pdlint missed, each with
the oracle's verdict (recorded in the docstrings; the tests do not run the oracle) and, where the launch came
from one, the repository.

- SGL683: `--language-only` / `--encoder-only` on a text-only model (problem 4);
- SGL286 / SGL287: `--moe-runner-backend flashinfer_cutlass` with an unsupported quantization or an EP size other
  than 1 or the TP size (problem 6);
- SGL515: `--attention-backend trtllm_mla` off Blackwell (problem 7, a warning: the GPU is unseen);
- SGL012: an unpinned flag the newest release refuses as an ambiguous abbreviation (problem 2,
  sabreshao/sglang_disagg's `--cuda-graph-bs`)."""

import pytest

from pdlint.engines.sglang.judge import judge

SERVER = "python3 -m sglang.launch_server"


def _findings(out, code):
    return [f for f in out["findings"] if f["code"] == code]


# -- SGL683: encoder disaggregation on a model SGLang's allow-list does not hold ------------------------------

def test_language_only_on_deepseek_r1_is_an_error_at_the_flag(scratch):
    """rw23/b repro 4: oracle REJECT, "Model type DeepseekV3ForCausalLM is not supported for encoder
    disaggregation. Supported architectures: Qwen2VL, Qwen3VL, ..." (pd_disaggregation_hook.py:372)."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path deepseek-ai/DeepSeek-R1 --disaggregation-mode decode --tp 8 \\
          --trust-remote-code --language-only
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL683")
    assert code == 1 and f["severity"] == "error" and (f["line"], f["column"]) == (3, 23)
    assert "Model type DeepseekV3ForCausalLM is not supported for encoder disaggregation" in f["message"]
    assert "--model-path names DeepSeek-R1" in f["message"]


@pytest.mark.parametrize("argv", [
    # oracle REJECT (tiny Llama / Qwen3-Next configs): "Model type LlamaForCausalLM|Qwen3NextForCausalLM is not
    # supported for encoder disaggregation"
    "--model-path meta-llama/Llama-3.1-8B-Instruct --encoder-only",
    "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct --disaggregation-mode prefill --language-only",
    "--model-path /model --served-model-name deepseek-ai/DeepSeek-V3 --language-only",
    "--model-path openai/gpt-oss-120b --language-only --encoder-urls http://enc:30000",
])
def test_encoder_disaggregation_on_a_known_text_only_family_fires(argv):
    assert "SGL683" in judge(argv).errors


@pytest.mark.parametrize("argv", [
    # architectures on SGLang 0.5.23's list (no tiny config of them for the oracle: taken from the source)
    "--model-path Qwen/Qwen2.5-VL-7B-Instruct --language-only --encoder-urls http://enc:30000",
    "--model-path moonshotai/Kimi-VL-A3B-Instruct --encoder-only",
    # the Qwen3 pattern also covers Qwen3-VL (on the list): a -VL name stays quiet (the text-only
    # Qwen/Qwen3-30B-A3B fires since rw25/b: tests/test_field_rw25b_sglang.py)
    "--model-path Qwen/Qwen3-VL-30B-A3B-Instruct --language-only",
    # Kimi-K2 shares its pattern with Kimi-K2.5 (KimiK25ForConditionalGeneration, on the list)
    "--model-path moonshotai/Kimi-K2-Instruct --language-only",
    # a name pdlint cannot place: oracle REJECT for the tiny Llama, but pdlint does not know the architecture
    "--model-path /models/served --language-only",
    # a multimodal word in a name whose pattern is a text-only family's (GLM-5 / Glm5NextForConditionalGeneration)
    "--model-path zai-org/GLM-5-Next --language-only",
    # no encoder disaggregation: oracle ACCEPT
    "--model-path deepseek-ai/DeepSeek-R1 --disaggregation-mode decode",
])
def test_encoder_disaggregation_quiet_where_the_model_is_supported_or_unknown(argv):
    assert "SGL683" not in judge(argv).codes


# -- SGL286 / SGL287: the FlashInfer Cutlass MoE runner's asserts ------------------------------------------------

def test_flashinfer_cutlass_with_ep_other_than_tp_is_an_error(scratch):
    """rw23/b repro 8: `--tp 4 --ep 8` alone is accepted by the oracle; with `--moe-runner-backend
    flashinfer_cutlass` it is refused, "The expert parallel size must be 1 or the same as the tensor parallel
    size" (moe_hook.py:89)."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path Qwen/Qwen3-30B-A3B --tp 4 --disaggregation-mode decode --ep 8
        {SERVER} --model-path Qwen/Qwen3-30B-A3B --tp 4 --disaggregation-mode decode --port 33000 --ep 8 \\
          --moe-runner-backend flashinfer_cutlass
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL287")
    assert code == 1 and (f["line"], f["column"]) == (3, 119)  # the value of --ep
    assert f["message"].startswith("The expert parallel size must be 1 or the same as the tensor parallel size")


@pytest.mark.parametrize("argv,fires", [
    # oracle REJECT: the assert reads --ep-size as written, before deepep widens EP to the TP size
    ("--tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutlass --moe-a2a-backend deepep", True),
    # oracle ACCEPT
    ("--tp-size 4 --ep-size 4 --moe-runner-backend flashinfer_cutlass", False),
    ("--tp-size 4 --moe-runner-backend flashinfer_cutlass --moe-a2a-backend deepep", False),
    ("--tp-size 4 --ep-size 8 --moe-runner-backend triton", False),
    # oracle ACCEPT: mxfp8 replaces the runner (flashinfer_trtllm) before the assert
    ("--tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutlass --quantization mxfp8", False),
])
def test_flashinfer_cutlass_ep_size(argv, fires):
    assert ("SGL287" in judge("--model-path Qwen/Qwen3-30B-A3B " + argv).errors) is fires


@pytest.mark.parametrize("argv,fires", [
    # oracle REJECT: "Invalid quantization 'fp8'. FlashInfer Cutlass MOE supports only: ..." (moe_hook.py:81)
    ("--moe-runner-backend flashinfer_cutlass --quantization fp8", True),
    ("--moe-runner-backend flashinfer_cutlass --quantization w8a8_fp8", True),
    # oracle ACCEPT
    ("--moe-runner-backend flashinfer_cutlass --quantization modelopt_fp8", False),
    ("--moe-runner-backend flashinfer_cutlass", False),
    ("--quantization fp8", False),
    ("--moe-runner-backend flashinfer_cutlass --quantization mxfp8", False),
])
def test_flashinfer_cutlass_quantization(argv, fires):
    j = judge("--model-path Qwen/Qwen3-30B-A3B " + argv)
    assert ("SGL286" in j.errors) is fires
    if fires:
        assert "SGL287" not in j.codes  # the quantization assert comes first


# -- SGL515: trtllm_mla is Blackwell-only (a warning: pdlint does not know the GPU) ----------------------------

def test_trtllm_mla_warns_naming_the_platform(scratch):
    """rw23/b rows *__attn_trtllm_mla: oracle (emulated H200, SM 9.0) REJECT, "TRTLLM MLA backend is only
    supported on Blackwell GPUs (SM100/SM12x). Please use a different backend." (overrides.py:1211)."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path deepseek-ai/DeepSeek-R1 --disaggregation-mode decode --tp 8 \\
          --attention-backend trtllm_mla
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL515")
    assert code == 0 and f["severity"] == "warning" and (f["line"], f["column"]) == (3, 23)
    assert "Blackwell GPU (SM100/SM12x)" in f["message"]
    assert "TRTLLM MLA backend is only supported on Blackwell GPUs" in f["message"]


@pytest.mark.parametrize("argv,fires", [
    ("--disaggregation-mode decode --decode-attention-backend trtllm_mla", True),
    # oracle ACCEPT: SGLang checks --attention-backend and --decode-attention-backend only
    ("--disaggregation-mode prefill --prefill-attention-backend trtllm_mla", False),
    ("--attention-backend flashmla", False),
    ("--attention-backend fa3", False),
])
def test_trtllm_mla_backends(argv, fires):
    j = judge("--model-path deepseek-ai/DeepSeek-R1 " + argv)
    assert ("SGL515" in j.codes) is fires and "SGL515" not in j.errors


# -- SGL012: the newest release's ambiguous-abbreviation refusal, named ----------------------------------------

def test_unpinned_cuda_graph_bs_names_the_ambiguity_of_the_newest_release(scratch):
    """sabreshao/sglang_disagg@01d360d5 sglang_disagg_server.sh (rw23/b repro 5): oracle 0.5.23 REJECT, "sglang
    serve: error: ambiguous option: --cuda-graph-bs could match --cuda-graph-bs-decode, --cuda-graph-bs-prefill".
    No release is pinned, so SGL012 stays a warning and now says so."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path deepseek-ai/DeepSeek-R1 --disaggregation-mode prefill --tp-size 8 \\
          --trust-remote-code --cuda-graph-bs 1 2 3 --disable-radix-cache
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL012")
    assert code == 0 and f["severity"] == "warning" and (f["line"], f["column"]) == (3, 23)
    assert ('(SGLang 0.5.23 stops at it: "ambiguous option: --cuda-graph-bs could match --cuda-graph-bs-decode, '
            '--cuda-graph-bs-prefill")') in f["message"]
    assert "--cuda-graph-bs was removed in SGLang 0.5.20" in f["message"]


def test_unpinned_config_key_that_is_an_ambiguous_prefix_says_so(scratch):
    """rw23/b sgl2 `dsp__prefix_key`: a `--config` file with `page: 64`; oracle 0.5.23 REJECT, "ambiguous
    option: --page could match --page-size, --paged-experts-num-resident"."""
    scratch.write("c.yaml", "page: 64\n")
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path deepseek-ai/DeepSeek-R1 --tp 8 --disaggregation-mode prefill --config c.yaml
        """)
    code, out = scratch.lint(".")
    [f] = _findings(out, "SGL012")
    assert f["path"] == "c.yaml" and f["severity"] == "warning"
    assert ('SGLang 0.5.23 refuses --page as an ambiguous abbreviation ("ambiguous option: --page could match '
            '--page-size, --paged-experts-num-resident")') in f["message"]


def test_unpinned_flag_that_is_simply_gone_says_nothing_of_ambiguity(scratch):
    """`--disaggregation-decode-tp` (removed after 0.5.9) is no prefix of a 0.5.23 flag: oracle 0.5.23 REJECT,
    "unrecognized arguments"; the message stays as it was."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        {SERVER} --model-path /models/m --disaggregation-mode decode --disaggregation-decode-tp 2
        """)
    code, out = scratch.lint("launch.sh")
    [f] = _findings(out, "SGL012")
    assert "ambiguous" not in f["message"] and "stops at it" not in f["message"]


def test_pinned_release_keeps_cuda_graph_bs_quiet(scratch):
    """The same sabreshao launch with its release pinned (an image tag of 0.5.19, which has --cuda-graph-bs): no
    SGL012 and no ambiguity to report."""
    scratch.write("launch.sh", f"""\
        #!/bin/bash
        docker run lmsysorg/sglang:v0.5.19 {SERVER} --model-path deepseek-ai/DeepSeek-R1 \\
          --disaggregation-mode prefill --tp-size 8 --cuda-graph-bs 1 2 3
        """)
    code, out = scratch.lint("launch.sh")
    assert not _findings(out, "SGL012") and not any("ambiguous" in f["message"] for f in out["findings"])
