"""VLLM037 judges a number by the converter vLLM gives that option (the flag tables' ``converter``).

Field test rw23/b (differential test against vLLM 0.33.0's parser, repro/1; base launches from
vllm-project/vllm-ascend's Nixl PD examples): `--max-num-seqs 1k` passed, because VLLM037 took the `k`/`M`
suffix on every int option; only the options vLLM converts with `human_readable_int` take it.  Oracle verdicts
(scripts/vllm_oracle.py --batch, vLLM 0.33.0):

* `--max-num-seqs 1k`            REJECT "argument --max-num-seqs: invalid int value: '1k'"
* `--max-num-seqs None`          REJECT "argument --max-num-seqs: invalid int value: 'None'"
* `--max-num-batched-tokens 1k`  ACCEPT;  `1.5K`  REJECT "Decimals are not allowed with binary suffixes like K.
  Did you mean to use 1.5k instead?"
* `--max-num-scheduled-tokens None` ACCEPT (optional_type(human_readable_int)); `x` REJECT "Value x cannot be
  converted to <function human_readable_int>."
* `--max-model-len auto` ACCEPT (human_readable_int_or_auto); `1.5x` REJECT "invalid human_readable_int_or_auto
  value: '1.5x'"
"""

import json
import os

DATA = os.path.join(os.path.dirname(__file__), "..", "pdlint", "engines", "vllm", "data")


def _vllm037(scratch_git, line: str) -> list:
    scratch_git.write("serve.sh", line + "\n")
    _, report = scratch_git.lint("serve.sh")
    return [f["message"] for f in report["findings"] if f["code"] == "VLLM037"]


def test_a_size_suffix_on_a_plain_int_option_is_an_error(scratch_git):
    found = _vllm037(scratch_git, "vllm serve Qwen/Qwen3-8B --max-num-seqs 1k")
    assert len(found) == 1
    assert found[0].startswith("argument --max-num-seqs: invalid int value: '1k' (vLLM 0.33.0; only --max-model-len")


def test_a_size_suffix_where_vllm_reads_human_readable_sizes_is_quiet(scratch_git):
    assert _vllm037(scratch_git, "vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 1k --max-model-len auto "
                                 "--max-num-scheduled-tokens None --max-num-seqs 256 --kv-cache-memory-bytes 25.6k") == []


def test_none_on_a_non_optional_int_and_a_decimal_binary_suffix(scratch_git):
    found = _vllm037(scratch_git, "vllm serve Qwen/Qwen3-8B --max-num-seqs None --max-num-batched-tokens 1.5K "
                                  "--max-num-scheduled-tokens x --max-model-len 1.5x")
    assert [m.split(" (vLLM")[0] for m in found] == [
        "argument --max-num-seqs: invalid int value: 'None'",
        "argument --max-num-batched-tokens: Decimals are not allowed with binary suffixes like K. Did you mean to "
        "use 1.5k instead?",
        "argument --max-num-scheduled-tokens: Value x cannot be converted to <function human_readable_int>.",
        "argument --max-model-len: invalid human_readable_int_or_auto value: '1.5x'",
    ]


def test_auto_for_max_model_len_is_judged_by_the_release_pinned(scratch_git):
    # vLLM 0.10.1 converts --max-model-len with human_readable_int (vllm/engine/arg_utils.py: int("auto") raises);
    # 0.20.0 on with human_readable_int_or_auto
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nvllm-version = "0.10.1"\n')
    assert [m.split(" (vLLM")[0] for m in _vllm037(scratch_git, "vllm serve Qwen/Qwen3-8B --max-model-len auto")] \
        == ["argument --max-model-len: invalid human_readable_int value: 'auto'"]
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nvllm-version = "0.33.0"\n')
    assert _vllm037(scratch_git, "vllm serve Qwen/Qwen3-8B --max-model-len auto") == []


def test_the_tables_record_each_number_options_converter():
    with open(os.path.join(DATA, "flags-0.33.0.json"), encoding="utf-8") as fh:
        flags = {f["option_strings"][0]: f for f in json.load(fh)["flags"]}
    assert flags["--max-num-seqs"]["converter"] == "int"
    assert flags["--max-model-len"]["converter"] == "human_readable_int_or_auto"
    assert flags["--max-num-batched-tokens"]["converter"] == "human_readable_int"
    assert flags["--max-num-scheduled-tokens"]["converter"] == "optional_type(human_readable_int)"
    assert flags["--gpu-memory-utilization"]["converter"] == "float"
    assert flags["--kv-transfer-config"]["converter"] == "optional_type(parse_dataclass)"
    assert "converter" not in flags["--model"]
