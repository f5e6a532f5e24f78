"""Differential field test rw27/b (pdlint against SGLang 0.5.23's own parsing and source).

* SGL803: SGLang 0.5.10+ compares the two servers' KV cache dtype *strings* (disaggregation/common/conn.py:
  `info.kv_cache_dtype != self.kv_cache_dtype_str`), so `bf16` against `bfloat16`, and `auto` against an explicit
  dtype, fail the first request for a model whose dtype SGLang does not set itself; pdlint called `bf16` and
  `bfloat16` the same and `auto` against `bf16` a warning that "differs ... for most models".
* PD101: an explicit `--disaggregation-mode null` in a launch its structure names prefill or decode passed clean
  (no flag at all was PD105)."""

import pytest


def _pair(scratch, prefill: str, decode: str, model: str = "meta-llama/Llama-3.1-8B-Instruct", *args):
    for role, extra in (("prefill", prefill), ("decode", decode)):
        scratch.write(f"{role}.sh", f"python -m sglang.launch_server --model-path {model} --disaggregation-mode "
                                    f"{role} --port {30000 if role == 'prefill' else 30001} {extra}\n")
    code, report = scratch.lint("--sglang-version", *(args or ("0.5.23",)), ".")
    return code, sorted((f["code"], f["severity"], f["path"]) for f in report["findings"])


@pytest.mark.parametrize("prefill,decode,model,found", [
    ("--kv-cache-dtype bf16", "--kv-cache-dtype bfloat16", "meta-llama/Llama-3.1-8B-Instruct",
     [("SGL803", "error", "decode.sh")]),
    ("", "--kv-cache-dtype bf16", "Qwen/Qwen3-8B", [("SGL803", "error", "decode.sh")]),
    ("--kv-cache-dtype fp8_e5m2", "", "Qwen/Qwen3-8B", [("SGL803", "error", "decode.sh")]),
    # the same spelling: quiet
    ("--kv-cache-dtype bfloat16", "--kv-cache-dtype bfloat16", "Qwen/Qwen3-8B", []),
    # `auto` becomes fp8_e4m3 for an FP8-KV checkpoint (0.5.17+): whether it matches depends on the checkpoint
    ("", "--kv-cache-dtype fp8_e4m3", "Qwen/Qwen3-8B", [("SGL804", "warning", "prefill.sh")]),
    # a DSA model: SGLang renames bf16 to bfloat16 and sets `auto` itself
    ("--kv-cache-dtype bf16", "--kv-cache-dtype bfloat16", "zai-org/GLM-5", []),
    ("--kv-cache-dtype bf16", "--kv-cache-dtype bfloat16", "deepseek-ai/DeepSeek-V3.2-Exp", []),
    ("", "--kv-cache-dtype bf16", "deepseek-ai/DeepSeek-V3.2-Exp", [("SGL804", "warning", "prefill.sh")]),
    # a model pdlint cannot name: the spelling is not judged, `auto` against bf16 stays a warning
    ("--kv-cache-dtype bf16", "--kv-cache-dtype bfloat16", "/models/my-model", []),
    ("", "--kv-cache-dtype bf16", "/models/my-model", [("SGL804", "warning", "prefill.sh")]),
])
def test_sglang_compares_the_kv_dtype_strings(scratch, prefill, decode, model, found):
    _, got = _pair(scratch, prefill, decode, model)
    assert got == found


def test_before_0_5_17_auto_is_compared_as_written(scratch):
    # 0.5.10-0.5.16 send server_args.kv_cache_dtype: `auto` against fp8_e4m3 fails for every checkpoint
    _, got = _pair(scratch, "", "--kv-cache-dtype fp8_e4m3", "Qwen/Qwen3-8B", "0.5.15")
    assert got == [("SGL803", "error", "decode.sh")]


def test_an_explicit_null_mode_where_the_structure_names_a_role(scratch):
    _pair(scratch, "", "")
    line = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --disaggregation-mode null "
            "--port 30000\n")
    scratch.write("prefill.sh", line)
    code, report = scratch.lint(".")
    assert [(f["code"], f["path"], f["column"], f["role"]) for f in report["findings"]] == [
        ("PD101", "prefill.sh", line.index("null") + 1, None)]
    assert "ordinary (non-disaggregated) server" in report["findings"][0]["message"] and code == 1
    scratch.write("prefill.sh", line.replace("null", "prefill"))
    code, report = scratch.lint(".")
    assert (code, report["findings"]) == (0, [])
