"""--format gitlab (GitLab Code Quality) and --format junit (JUnit XML): one entry per finding, the same exit
codes as the text report, paths relative to the repository root, fingerprints that survive moved lines, and
valid output whatever the file names hold."""

import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from pdlint.cli import main

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    shutil.copytree(FIXTURES, tmp_path / "deploy")
    monkeypatch.chdir(tmp_path / "deploy")
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def run(capsys, *args):
    code = main(["--no-cache", *args])
    return code, capsys.readouterr().out


def test_gitlab_report_has_one_issue_per_finding(repo, capsys):
    code_json, out = run(capsys, "--format", "json", ".")
    findings = json.loads(out)["findings"]
    code, out = run(capsys, "--format", "gitlab", ".")
    assert code == code_json == 1
    issues = json.loads(out)
    assert len(issues) == len(findings) and findings
    for issue, f in zip(issues, findings):
        assert set(issue) == {"check_name", "description", "fingerprint", "severity", "location"}
        assert issue["check_name"] == f["code"] and f["message"] in issue["description"]
        assert issue["severity"] == {"error": "major", "warning": "minor"}[f["severity"]]
        # run in deploy/: paths are relative to the repository root, as GitLab resolves them
        assert issue["location"]["path"] == "deploy/" + f["path"]
        assert issue["location"]["lines"]["begin"] == f["line"] <= issue["location"]["lines"]["end"]
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert {i["severity"] for i in issues} == {"major", "minor"}


def test_gitlab_fingerprints_survive_moved_lines(repo, capsys):
    _, out = run(capsys, "--format", "gitlab", ".")
    before = {i["fingerprint"]: i for i in json.loads(out)}
    p = repo / "deploy" / "k8s" / "shared-anchor.yaml"
    p.write_text("# a comment that moves every line down\n\n" + p.read_text())
    _, out = run(capsys, "--format", "gitlab", ".")
    after = {i["fingerprint"]: i for i in json.loads(out)}
    assert set(after) == set(before)
    moved = [f for f in after if after[f]["location"]["path"].endswith("shared-anchor.yaml")]
    assert moved and all(after[f]["location"]["lines"]["begin"] == before[f]["location"]["lines"]["begin"] + 2
                         for f in moved)


def test_gitlab_report_of_a_clean_run_is_an_empty_list(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.yaml").write_text("model-path: /m\ndisaggregation-mode: decode\n")
    code, out = run(capsys, "--format", "gitlab", ".")
    assert (code, json.loads(out)) == (0, [])


def test_junit_report_is_one_failing_case_per_finding(repo, capsys):
    code_json, out = run(capsys, "--format", "json", ".")
    findings = json.loads(out)["findings"]
    code, out = run(capsys, "--format", "junit", ".")
    assert code == code_json == 1
    root = ET.fromstring(out.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("failures") == str(len(findings))
    cases = [(s.get("name"), c) for s in root for c in s]
    assert [(name, c.get("name"), c.get("line")) for name, c in cases] == \
        [(f["path"], "pdlint." + f["code"], str(f["line"])) for f in findings]
    for (_, c), f in zip(cases, findings):
        (failure,) = c.findall("failure")
        assert failure.get("type") == f["severity"] and f["message"] in failure.get("message")
        assert f["code"] in failure.text


def test_junit_report_of_a_clean_run_has_one_passing_case(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.yaml").write_text("model-path: /m\ndisaggregation-mode: decode\n")
    code, out = run(capsys, "--format", "junit", ".")
    root = ET.fromstring(out.encode("utf-8"))
    assert code == 0 and root.get("failures") == "0"
    (case,) = root.iter("testcase")
    assert not list(case)


def test_reports_stay_valid_with_control_characters_in_a_file_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    name = "bad\x1b[31m\x07name.yaml"
    (tmp_path / name).write_text("model-path: /m\ndisaggregation-mode: prefill\nenable-linear-replayssm-spec: true\n")
    code, out = run(capsys, "--format", "junit", ".")
    assert code == 1
    root = ET.fromstring(out.encode("utf-8"))  # XML 1.0 cannot hold ESC or BEL: they are written \xNN
    assert "\x1b" not in out and "\x07" not in out
    assert [s.get("name") for s in root] == ["bad\\x1b[31m\\x07name.yaml"]
    code, out = run(capsys, "--format", "gitlab", ".")
    (issue,) = json.loads(out)
    assert code == 1 and issue["location"]["path"] == name and issue["check_name"] == "SGL101"


@pytest.mark.parametrize("fmt", ["gitlab", "junit"])
def test_statistics_is_not_a_report_format(fmt, repo, capsys):
    code = main(["--statistics", "--format", fmt, "."])
    assert code == 2 and "--statistics prints text or JSON" in capsys.readouterr().err


def test_junit_stays_well_formed_with_xml_non_characters(tmp_path, monkeypatch, capsys):
    """U+FFFE / U+FFFF are no XML 1.0 characters: a flag or a file name holding one made the report not
    well-formed, and a CI junit reader dropped every finding (field test rw21/h)."""
    monkeypatch.chdir(tmp_path)
    name = "a\uffffb.sh"
    (tmp_path / name).write_text("python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                 "--bogus\ufffe\n")
    code, out = run(capsys, "--format", "junit", ".")
    root = ET.fromstring(out.encode("utf-8"))
    assert code == 1 and "\uffff" not in out and "\ufffe" not in out
    assert [s.get("name") for s in root] == ["a\\uffffb.sh"]
    assert "--bogus\\ufffe" in root.find(".//failure").get("message")
