"""The value sets SGLang checks after argparse and the per-release PD support facts
(data/sglang-values.jsonl, scripts/gen_sglang_values.py), and the rules that read them:
each fires in a release that has the check and stays quiet where the release differs."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

from pdlint.engines.sglang.flags import available_versions
from pdlint.engines.sglang.judge import example_argv, judge
from pdlint.engines.sglang.packed import pack_values, value_store
from pdlint.engines.sglang.versions import VALUE_SETS, describe, value_set
from pdlint.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "scripts" / "gen_sglang_values.py"


def codes(argv, version=None, env=None):
    return judge(example_argv(argv), env or {}, version).codes


def test_every_release_with_a_flag_table_has_value_data():
    store = value_store()
    assert store is not None
    assert set(store.versions) == set(available_versions())
    for v in store.versions:
        sets = store.sets(v)
        assert "log_level" in sets and "json_model_override_args" in sets, v  # every release reads both


def test_packing_round_trips():
    store = value_store()
    docs = [store.doc(v) for v in store.versions]
    with open(ROOT / "pdlint" / "engines" / "sglang" / "data" / "sglang-values.jsonl", encoding="utf-8") as f:
        assert pack_values(docs) == f.read()


def test_ranges_come_from_the_data():
    rules = all_rules()
    for code, name in VALUE_SETS.items():
        have = [v for v in available_versions() if value_set(v, name) is not None]
        assert rules[code].version_list() == tuple(have), code
    assert rules["SGL040"].version_text() == "0.5.12–0.5.23"  # before, argparse had choices for the flag
    assert rules["SGL041"].version_text() == "0.5.6–0.5.23"
    assert rules["SGL191"].version_text() == "0.4.6.post2–0.5.0rc2"
    assert rules["SGL192"].version_text() == "0.5.11–0.5.19"
    assert describe(rules["SGL110"].version_list()) == "0.5.11–0.5.23"


def test_speculative_algorithm_names_per_release():
    assert "SGL040" in codes("--speculative-algorithm auto")
    assert "SGL040" not in codes("--speculative-algorithm nextn")
    assert "SGL040" not in codes("--speculative-algorithm uno --uno-lora-path /l")  # UNO is a 0.5.20+ member
    got = codes("--speculative-algorithm UNO", "0.5.19")  # a later release's builtin: SGL916's, not both
    assert "SGL916" in got and "SGL040" not in got
    assert "SGL040" in codes("--speculative-algorithm eagle-3", "0.5.19")
    # 0.5.11's parser lists choices: argparse refuses first (SGL004), never both
    got = codes("--speculative-algorithm auto", "0.5.11")
    assert "SGL004" in got and "SGL040" not in got
    vs = value_set("0.5.23", "speculative_algorithm")
    assert vs["aliases"] == ["NEXTN"] and vs["plugins"] is True
    assert value_set("0.5.19", "speculative_algorithm")["aliases"] == []


def test_dllm_algorithms_are_class_names_of_the_release():
    for name in value_set("0.5.23", "dllm_algorithm")["values"]:
        assert "SGL041" not in codes(f"--dllm-algorithm {name}"), name
    assert "SGL041" in codes("--dllm-algorithm JointThresholdInDel", "0.5.12")  # added later
    assert value_set("0.5.6", "dllm_algorithm")["values"] == ["LowConfidence"]


def test_model_config_parser_auto_and_registered_names():
    assert "SGL042" not in codes("--model-config-parser mistral")
    assert "SGL042" not in codes("--model-config-parser auto")
    msg = judge(example_argv("--model-config-parser HF")).messages
    assert msg == ["Unknown model-config parser 'HF'. Registered: ['hf', 'mistral']"]


def test_log_level_in_every_release():
    assert "SGL043" in codes("--log-level none", "0.4.8.post1")
    assert value_set("0.4.8.post1", "log_level")["source"].startswith("sglang/srt/utils.py:")
    assert value_set("0.5.23", "log_level")["source"] == "sglang/srt/server_args.py:704"
    for level in ("debug", "INFO", "Warning", "warn", "error", "critical", "fatal", "notset"):
        assert "SGL043" not in codes(f"--log-level {level}"), level


def test_json_model_override_args_messages_are_pythons():
    j = judge(example_argv("--json-model-override-args \"{'a': 1}\""))
    assert j.messages == ["JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 "
                          "(char 1)"]
    for quiet in ("'{}'", "null", "0", "'[]'", "'{\"rope_theta\": 1}'"):
        assert "SGL044" not in codes(f"--json-model-override-args {quiet}"), quiet
    assert "SGL044" in codes("--json-model-override-args '\"text\"'")


def test_decode_radix_cache_speculation_per_release():
    base = "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm "
    assert value_set("0.5.20", "decode_radix_cache_speculation")["values"] == []
    assert value_set("0.5.22", "decode_radix_cache_speculation")["values"] == ["DSPARK"]
    assert value_set("0.5.23", "decode_radix_cache_speculation")["values"] == ["DSPARK", "EAGLE", "EAGLE3"]
    assert "SGL110" in codes(base + "EAGLE", "0.5.15")
    assert "SGL110" not in codes(base + "EAGLE")
    assert "SGL110" not in codes(base + "NEXTN")  # 0.5.23 checks after NEXTN became EAGLE
    draft = " --speculative-draft-model-path /d"
    # 0.5.21-0.5.22 check in the PD hook, before the speculative hook upper-cases the name
    assert "SGL110" in codes(base + "dspark" + draft, "0.5.22")
    assert "SGL110" not in codes(base + "DSPARK" + draft, "0.5.22")


def test_release_dependent_pd_crashes_name_the_release():
    msgs = judge(example_argv("--disaggregation-mode prefill --pp-size 2"), {}, "0.4.9.post2").messages
    assert any("SGLang 0.4.9.post2 runs a PD prefill without its pipeline-parallel loop" in m for m in msgs)
    assert "SGL191" not in codes("--disaggregation-mode decode --pp-size 2", "0.4.9.post2")
    assert "SGL192" in codes("--disaggregation-mode decode --speculative-algorithm DFLASH "
                             "--speculative-draft-model-path /d", "0.5.11")


def test_release_dependent_rule_through_the_cli(tmp_path, capsys):
    from pdlint.cli import main
    script = tmp_path / "prefill.sh"
    script.write_text("python -m sglang.launch_server --model-path /m --disaggregation-mode prefill --pp-size 2\n")
    assert main([str(script), "--sglang-version", "0.4.9.post6", "--select", "SGL191"]) == 1
    out = capsys.readouterr().out
    assert "SGL191" in out and "prefill.sh:1" in out
    assert main([str(script), "--sglang-version", "0.5.1", "--select", "SGL191"]) == 0


def _wheels() -> list:
    spec = os.environ.get("PDLINT_SGLANG_WHEELS", "/work/wheels")
    found = []
    for item in filter(None, spec.split(os.pathsep)):
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(path.glob("sglang-*.whl")))
        elif path.is_file():
            found.append(path)
    return found


@pytest.mark.parametrize("version", ["0.5.23", "0.5.16", "0.5.0rc2", "0.4.8.post1"])
def test_regenerated_from_the_wheel(version):
    doc = value_store().doc(version)
    wheel = next((w for w in _wheels() if w.name == doc["wheel"]), None)
    if wheel is None:
        pytest.skip(f"{doc['wheel']} not available (set PDLINT_SGLANG_WHEELS)")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == doc["wheel_sha256"]
    spec = importlib.util.spec_from_file_location("gen_sglang_values", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.extract(str(wheel)) == doc
