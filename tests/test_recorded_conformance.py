"""SGLang's recorded verdicts replayed against pdlint, without the oracle.

``tests/conformance/recorded-<release>.jsonl`` is written by ``scripts/sglang_conformance.py --write``
from SGLang's real argument checks: 0.5.23 through the shared oracle (its resolution pipeline), older
releases through ``scripts/sglang_oracle_legacy.py`` in a venv with that release (``ServerArgs.__post_init__``
+ ``check_server_args``, or the pipeline from 0.5.20).  For each release: every rule example that applies
to it agrees, no error where SGLang accepts, and at least 99 % of the
flag-decidable rejections caught."""

import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFORMANCE = os.path.join(REPO, "tests", "conformance")
REFERENCE = "0.5.23"
# the recorded releases (a test below checks that this names every recorded file)
RELEASES = (REFERENCE, "0.5.21", "0.5.15", "0.5.9", "0.4.8.post1")


@pytest.fixture(scope="module")
def harness(conformance_harness):
    return conformance_harness


def recorded(release):
    with open(os.path.join(CONFORMANCE, f"recorded-{release}.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_recorded_release_is_replayed(harness):
    files = sorted(f[len("recorded-"):-len(".jsonl")] for f in os.listdir(CONFORMANCE)
                   if f.startswith("recorded-") and f.endswith(".jsonl"))
    assert sorted(RELEASES) == files
    assert set(harness.OLDER_RELEASES) | {harness.VERSION} == set(RELEASES)


@pytest.mark.parametrize("release", RELEASES)
def test_every_rule_example_has_a_recorded_sglang_verdict(harness, release):
    have = {(r["id"], tuple(r["argv"]), tuple(sorted(r["env"].items()))) for r in recorded(release)}
    missing = [c["id"] for c in harness.rule_cases(version=release)
               if (c["id"], tuple(c["argv"]), tuple(sorted(c["env"].items()))) not in have]
    assert not missing, (f"{len(missing)} rule examples have no recorded SGLang {release} verdict (e.g. "
                         f"{missing[:3]}): run scripts/sglang_conformance.py --release {release} --write "
                         "with that release's oracle")


@pytest.mark.parametrize("release", RELEASES)
def test_pdlint_agrees_with_recorded_sglang(harness, release):
    cases, oracle = harness.replay(release)
    report = harness.compare(cases, oracle, release)
    assert report["rule_total"] >= (1000 if release == REFERENCE else 10)
    assert report["rule_disagree"] == []
    assert report["combo_total"] >= (1500 if release == REFERENCE else 500) and report["false_errors"] == []
    assert report["rejects_caught"] >= harness.threshold(release) * report["rejects_decidable"] > 0
