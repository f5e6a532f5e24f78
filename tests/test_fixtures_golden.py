"""Golden test: pdlint's whole JSON report on the demo repository (fixtures/).

Regenerate after an intended change with ``PDLINT_UPDATE_GOLDEN=1 pytest tests/test_fixtures_golden.py``
and review the diff.
"""

import json
import os

from pdlint.cli import main

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(REPO, "tests", "data", "golden", "fixtures.json")
TEXT = os.path.join(REPO, "tests", "data", "golden", "fixtures.txt")


def run(capsys, monkeypatch, *args):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("NO_COLOR", "1")
    code = main(list(args))
    return code, capsys.readouterr().out


def check(path, actual):
    if os.environ.get("PDLINT_UPDATE_GOLDEN"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(actual)
    with open(path, encoding="utf-8") as f:
        assert actual == f.read()


def test_demo_json_report_is_golden(capsys, monkeypatch):
    code, out = run(capsys, monkeypatch, "--format", "json", "fixtures")
    assert code == 1
    doc = json.loads(out)
    assert {f["code"] for f in doc["findings"]} >= {"SGL101", "SGL102", "SGL107", "SGL020"}
    check(GOLDEN, out)


def test_demo_text_report_is_golden(capsys, monkeypatch):
    code, out = run(capsys, monkeypatch, "fixtures")
    assert code == 1
    check(TEXT, out)


def test_clean_demo_files_have_no_findings(capsys, monkeypatch):
    code, out = run(capsys, monkeypatch, "--strict", "fixtures/k8s/clean.yaml", "fixtures/templates/launch.sh.j2",
                    "fixtures/scripts/clean.sh")
    assert code == 0, out


def test_a_clean_file_named_alone_is_judged_with_its_broken_sibling(capsys, monkeypatch):
    # fixtures/sglang/decode.yaml is clean, but a commit that touches it is judged with prefill.yaml beside it
    # (pdlint.discover.expand_units): the pair's TP mismatch (the prefill's `tp_size` key is refused, so its TP
    # stays 1) is reported at the decode's line; the prefill's own errors are not the commit's
    code, out = run(capsys, monkeypatch, "fixtures/sglang/decode.yaml")
    assert "decode.yaml:4:10: SGL815" in out and "SGL020" not in out and code == 0, out
