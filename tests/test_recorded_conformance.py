"""SGLang's recorded verdicts (tests/conformance/recorded-0.5.23.jsonl, written by
``scripts/sglang_conformance.py --write`` from SGLang's real argument resolution)
replayed against pdlint, without the oracle: every rule example agrees, no error
where SGLang accepts, at least 98 % of the flag-decidable rejections caught."""

import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDED = os.path.join(REPO, "tests", "conformance", "recorded-0.5.23.jsonl")


@pytest.fixture(scope="module")
def harness(conformance_harness):
    return conformance_harness


@pytest.fixture(scope="module")
def recorded():
    with open(RECORDED, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_rule_example_has_a_recorded_sglang_verdict(harness, recorded):
    have = {(r["id"], tuple(r["argv"]), tuple(sorted(r["env"].items()))) for r in recorded}
    missing = [c["id"] for c in harness.rule_cases()
               if (c["id"], tuple(c["argv"]), tuple(sorted(c["env"].items()))) not in have]
    assert not missing, (f"{len(missing)} rule examples have no recorded SGLang verdict (e.g. {missing[:3]}): "
                         "run scripts/sglang_conformance.py --write with the oracle")


def test_pdlint_agrees_with_recorded_sglang(harness, recorded):
    current = {c["id"]: c for c in harness.rule_cases()}
    cases, oracle = [], {}
    for r in recorded:
        if r["kind"] == "rule":
            c = current.get(r["id"])
            if c is None or c["argv"] != r["argv"]:
                continue  # an example that changed since recording: covered by the test above
        else:
            c = {"id": r["id"], "argv": r["argv"], "env": r["env"], "kind": "combo"}
        cases.append(c)
        oracle[r["id"]] = r
    report = harness.compare(cases, oracle)
    assert report["rule_total"] >= 1000 and report["rule_disagree"] == []
    assert report["combo_total"] >= 300 and report["false_errors"] == []
    assert report["rejects_caught"] >= 0.98 * report["rejects_decidable"] > 0
