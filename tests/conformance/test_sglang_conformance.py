"""Conformance with SGLang itself (opt in: ``pytest -m conformance``).

Needs an SGLang oracle venv and ``../shared/tools/sglang-oracle``.  By default the release is 0.5.23
(``.ci/run`` builds its venv in ``.oracle-venv``, or set PDLINT_ORACLE_PYTHON); for an older release set
PDLINT_ORACLE_RELEASE and point PDLINT_ORACLE_PYTHON at a venv that
``scripts/make_sglang_oracle_venv.sh RELEASE DIR`` built (the oracle is then
``scripts/sglang_oracle_legacy.py``).  Every rule example that applies to the release must get the same
verdict from pdlint and from SGLang; on random PD flag combinations (0.5.23: seed 23 from the PD pool;
older releases: seed 5101 from the release's own table) pdlint must report no error where SGLang accepts
and catch at least 99 % of the rejections decidable from flags.
"""

import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def release(conformance_harness):
    return os.environ.get("PDLINT_ORACLE_RELEASE", conformance_harness.VERSION)


@pytest.fixture(scope="module")
def report(conformance_harness, release):
    h = conformance_harness
    python = os.environ.get("PDLINT_ORACLE_PYTHON") or os.path.join(REPO, ".oracle-venv", "bin", "python")
    if release == h.VERSION:
        script = os.environ.get("PDLINT_ORACLE_SCRIPT", h.DEFAULT_ORACLE_SCRIPT)
        combos, seed = int(os.environ.get("PDLINT_CONFORMANCE_COMBOS", "300")), 23
    else:
        script = h.LEGACY_ORACLE_SCRIPT
        combos, seed = int(os.environ.get("PDLINT_CONFORMANCE_COMBOS", "520")), 5101
    if not os.path.exists(python) or not os.path.exists(script):
        pytest.skip(f"SGLang oracle not available ({python}, {script})")
    cases = h.rule_cases(version=release) + h.combo_cases(combos, seed, release)
    r = h.compare(cases, h.run_oracle(cases, python, script, release), release)
    print(f"SGLang {release}")
    h.print_report(r)
    return r


def test_rule_examples_agree_with_sglang(report):
    assert report["rule_total"] > 0
    assert report["rule_disagree"] == []


def test_no_error_where_sglang_accepts(report):
    assert report["accepts"] > 0
    assert report["false_errors"] == []


def test_catches_decidable_rejections(conformance_harness, report, release):
    assert report["rejects_decidable"] > 0
    assert report["rejects_caught"] >= conformance_harness.threshold(release) * report["rejects_decidable"]
