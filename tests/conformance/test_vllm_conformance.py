"""vLLM conformance: the generated flag table equals what vLLM's own parser
accepts, and the command-line rules agree with vLLM's verdicts.

Recorded by ``scripts/vllm_conformance.py`` from vLLM 0.33.0's real
``make_arg_parser(FlexibleArgumentParser())`` on CPU (``scripts/vllm_oracle.py``
in a venv made by ``scripts/make_vllm_oracle_venv.sh``) and replayed here
without vLLM.  With ``PDLINT_VLLM_ORACLE_PYTHON`` set, the ``conformance``
marker re-runs a sample of them live.
"""

import json
import os
import re
import subprocess

import pytest

from pdlint.engines.vllm import flags
from pdlint.engines.vllm.engine import candidates, interpret
from pdlint.model import Launch
from pdlint.text import TStr

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "0.33.0"
DECIDABLE = re.compile(r"unrecognized arguments|invalid choice|ambiguous option|invalid \S+ value|cannot be converted "
                       r"to|Decimals are not allowed")
# a number one of vLLM's number converters reads (`None`, `32k`, `auto`) refused by the option's own converter: the
# table does not tell optional_type / human_readable_int from int, so VLLM037 lets these pass (its notes)
NUMBER_REFUSED = re.compile(r"invalid \S+ value: '(.*)'$|Value (.*) cannot be converted to|Decimals are not allowed "
                            r"with binary suffixes like (\w)")
# choices that depend on the machine vLLM runs on (the CPU oracle offers auto/cpu, a CUDA host adds cuda): the
# table leaves them open, so these rejections are not decidable from the flags
PLATFORM_CHOICES = ("argument --mm-processor-device:",)


def _records():
    with open(os.path.join(HERE, f"vllm-recorded-{VERSION}.jsonl")) as fh:
        return [json.loads(l) for l in fh if l.strip()]


class _Ctx:
    vllm_version = VERSION


def pdlint_errors(argv: list) -> list:
    toks = [TStr.synthetic(w, "<argv>") for w in argv]
    launch = Launch(path="<argv>", line=1, engine="vllm", entrypoint="vllm serve", kind="server", argv=toks)
    interpret(launch, _Ctx())
    from pdlint.rules import all_rules
    rules = all_rules()
    return [(c.code, c.message) for c in candidates(launch, lambda code: True) if rules[c.code].severity == "error"]


def _lenient_number(rec) -> bool:
    """A value VLLM037 documents as let through: one some vLLM number converter accepts."""
    from pdlint.engines.vllm.rules.cmdline import _number_kinds, _number_ok
    m = NUMBER_REFUSED.search(rec["message"])
    option = re.search(r"argument (-[^/: ]+)", rec["message"])
    if m is None or option is None:
        return False
    kinds = _number_kinds(flags.load(VERSION).lookup(option.group(1)).primary)
    if m.group(3):  # human_readable_int: `1.5M` (decimals with a binary suffix)
        return "int" in kinds
    return _number_ok(m.group(1) if m.group(1) is not None else m.group(2), kinds)


def test_generated_table_equals_the_live_parser():
    with open(os.path.join(HERE, f"vllm-{VERSION}-options.json")) as fh:
        live = json.load(fh)
    table = flags.load(VERSION)
    live_by = {s: o for o in live["options"] for s in o["option_strings"]}
    assert set(live_by) == set(table.options)
    for s, o in live_by.items():
        f = table.lookup(s)
        assert (o["nargs"] == 0) == (not f.takes_value and not f.optional_value), s
        assert (o["nargs"] == "?") == f.optional_value, s
        if f.choices is not None:  # never stricter than vLLM: the table's choices cover the live ones
            assert o["choices"] is not None and set(o["choices"]) <= set(f.choices), (s, o["choices"], f.choices)


def test_recorded_verdicts_agree():
    recs = _records()
    assert len(recs) >= 400
    false_errors, missed, decidable = [], [], 0
    for r in recs:
        errs = pdlint_errors(r["argv"])
        if r["verdict"] == "ACCEPT":
            if errs:
                false_errors.append((r["argv"], errs))
        elif DECIDABLE.search(r["message"]) and not any(p in r["message"] for p in PLATFORM_CHOICES) and \
                not _lenient_number(r):
            decidable += 1
            if not errs:
                missed.append((r["argv"], r["message"]))
    assert false_errors == []
    assert missed == []  # every flag-decidable rejection is caught
    assert decidable >= 200


def _live(mode: str, cases: list) -> list:
    """``scripts/vllm_oracle.py MODE`` on ``cases`` in the oracle venv (skipped without one)."""
    py = os.environ.get("PDLINT_VLLM_ORACLE_PYTHON")
    if not py:
        pytest.skip("PDLINT_VLLM_ORACLE_PYTHON not set")
    oracle = os.path.join(HERE, "..", "..", "scripts", "vllm_oracle.py")
    data = "".join(json.dumps(c) + "\n" for c in cases)
    out = subprocess.run([py, oracle, mode], input=data, capture_output=True, text=True, check=True,
                         env=dict(os.environ, VLLM_TARGET_DEVICE="cpu")).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


@pytest.mark.conformance
def test_live_oracle_agrees_with_the_records():
    recs = _records()[:60]
    live = _live("--batch", [{"argv": r["argv"]} for r in recs])
    assert [x["verdict"] for x in live] == [r["verdict"] for r in recs]


# -- --config files: the argv vLLM makes of them ------------------------------------------------------
# Recorded by ``scripts/vllm_oracle.py --pull`` (vLLM 0.33.0's FlexibleArgumentParser._pull_args_from_config,
# with the parser that runs it for each entry point) from the cases in the file itself; to record again (a new
# case, another release): ``VENV/bin/python scripts/vllm_oracle.py --pull < FILE > NEW`` (each line keeps its
# case and gets vLLM's ``pulled`` argv).

def _config_records():
    with open(os.path.join(HERE, f"vllm-config-recorded-{VERSION}.jsonl"), encoding="utf-8") as fh:
        return [json.loads(l) for l in fh if l.strip()]


def _pdlint_pull(case: dict) -> list:
    from pdlint.text import SourceFile
    sources = {name: SourceFile(name, text) for name, text in case["files"].items()}

    class Ctx(_Ctx):
        @staticmethod
        def resolve_config(tok, launch):
            return sources.get(tok.text)

    toks = [TStr.synthetic(w, "<argv>") for w in case["argv"]]
    launch = Launch(path="<argv>", line=1, engine="vllm", entrypoint=case["entry"], kind="server", argv=toks)
    interpret(launch, Ctx())
    return [t.text for t in launch.parsed.tokens]


def test_config_file_expansion_agrees_with_the_records():
    recs = _config_records()
    assert len(recs) >= 8
    for r in recs:
        got = _pdlint_pull(r)
        if r["id"] == "merge-top":  # a merge key's keys: the same flags and values, yaml.safe_load's order aside
            assert sorted(got) == sorted(r["pulled"]), (r["id"], got)
        else:
            assert got == r["pulled"], (r["id"], got, r["pulled"])


@pytest.mark.conformance
def test_live_config_expansion_agrees_with_the_records():
    recs = _config_records()
    live = _live("--pull", [{k: r[k] for k in ("id", "entry", "argv", "files")} for r in recs])
    assert [x.get("pulled") for x in live] == [r["pulled"] for r in recs]


# -- --kv-transfer-config: what KVTransferConfig refuses --------------------------------------------------------
# Recorded by ``scripts/vllm_oracle.py --batch`` (vLLM 0.33.0's parser) from the argv in the file: kv_role
# values and case, kv_connector without kv_role, keys removed after 0.20.0, typos, every field 0.33.0 has, field
# types as pydantic validates them (engine_id 0, kv_port "abc" / 30000.5 / "30000", enable_permute_local_kv "yes"),
# dotted arguments.

def _kv_records():
    with open(os.path.join(HERE, f"vllm-kv-config-recorded-{VERSION}.jsonl"), encoding="utf-8") as fh:
        return [json.loads(l) for l in fh if l.strip()]


def test_kv_transfer_config_verdicts_agree():
    recs = _kv_records()
    assert {r["verdict"] for r in recs} == {"ACCEPT", "REJECT"} and len(recs) >= 15
    disagree = []
    for r in recs:
        errs = [c for c in pdlint_errors(r["argv"]) if c[0] == "VLLM029"]
        if bool(errs) != (r["verdict"] == "REJECT"):
            disagree.append((r["argv"], r["verdict"], errs))
    assert disagree == []


@pytest.mark.conformance
def test_live_kv_transfer_config_verdicts_agree_with_the_records():
    recs = _kv_records()
    live = _live("--batch", [{"argv": r["argv"]} for r in recs])
    assert [x["verdict"] for x in live] == [r["verdict"] for r in recs]
