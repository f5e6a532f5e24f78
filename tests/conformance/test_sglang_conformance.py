"""Conformance with SGLang itself (opt in: ``pytest -m conformance``).

Needs the SGLang oracle venv (``.ci/run`` builds it in ``.oracle-venv``, or set
PDLINT_ORACLE_PYTHON) and ``../shared/tools/sglang-oracle``.  Every rule
example must get the same verdict from pdlint and from SGLang; on random PD
flag combinations pdlint must report no error where SGLang accepts and catch
at least 98 % of the rejections decidable from flags.
"""

import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def report(conformance_harness):
    h = conformance_harness
    python = os.environ.get("PDLINT_ORACLE_PYTHON") or os.path.join(REPO, ".oracle-venv", "bin", "python")
    script = os.environ.get("PDLINT_ORACLE_SCRIPT", h.DEFAULT_ORACLE_SCRIPT)
    if not os.path.exists(python) or not os.path.exists(script):
        pytest.skip(f"SGLang oracle not available ({python}, {script})")
    cases = h.rule_cases() + h.combo_cases(int(os.environ.get("PDLINT_CONFORMANCE_COMBOS", "300")), 23)
    r = h.compare(cases, h.run_oracle(cases, python, script))
    h.print_report(r)
    return r


def test_rule_examples_agree_with_sglang(report):
    assert report["rule_total"] > 0
    assert report["rule_disagree"] == []


def test_no_error_where_sglang_accepts(report):
    assert report["accepts"] > 0
    assert report["false_errors"] == []


def test_catches_decidable_rejections(report):
    assert report["rejects_decidable"] > 0
    assert report["rejects_caught"] >= 0.98 * report["rejects_decidable"]
