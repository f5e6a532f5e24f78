"""--format github (Actions annotations) and --format sarif (SARIF 2.1.0 for
code scanning): same findings, same exit codes, deterministic."""

import json
import os
import shutil
import urllib.parse

import pytest

from pdlint.cli import main

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures")


@pytest.fixture
def demo(tmp_path, monkeypatch):
    root = tmp_path / "demo repo"  # a space: paths become URIs
    shutil.copytree(FIXTURES, root)
    monkeypatch.chdir(root)
    return root


def run(args, capsys):
    code = main(args)
    return code, capsys.readouterr().out


def test_sarif_has_one_result_per_finding_with_rules_locations_and_related(demo, capsys):
    code_json, out_json = run(["--format", "json", "."], capsys)
    findings = json.loads(out_json)["findings"]
    code, out = run(["--format", "sarif", "."], capsys)
    assert code == code_json == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    (sarif_run,) = doc["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "pdlint" and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted({f["code"] for f in findings})
    for r in rules:
        assert r["name"] and r["shortDescription"]["text"] and r["help"]["markdown"].startswith(f"# {r['id']} ")
        assert r["defaultConfiguration"]["level"] in ("error", "warning")
    base = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file://") and base.endswith("/") and "demo%20repo" in base
    results = sarif_run["results"]
    assert len(results) == len(findings)
    for res, f in zip(results, findings):
        assert res["ruleId"] == f["code"] and rules[res["ruleIndex"]]["id"] == f["code"]
        assert res["level"] == f["severity"]
        assert f["message"] in res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": urllib.parse.quote(f["path"]), "uriBaseId": "%SRCROOT%"}
        assert (loc["region"]["startLine"], loc["region"]["startColumn"]) == (f["line"], f["column"])
        related = res.get("relatedLocations", [])
        assert [(r["physicalLocation"]["region"]["startLine"], r["message"]["text"]) for r in related] == \
            [(r["line"], r["note"]) for r in f["related"]]
        if f["role"]:
            assert res["properties"]["role"] == f["role"] and res["message"]["text"].startswith(f"[{f['role']}] ")
    assert {r["level"] for r in results} == {"error", "warning"}  # the demo has both
    assert run(["--format", "sarif", "."], capsys)[1] == out  # deterministic


def test_sarif_of_a_clean_run_is_valid_and_empty(demo, capsys):
    code, out = run(["--format", "sarif", "k8s/clean.yaml"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []


def test_github_annotations_one_per_finding_escaped(demo, capsys):
    findings = json.loads(run(["--format", "json", "."], capsys)[1])["findings"]
    code, out = run(["--format", "github", "."], capsys)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == len(findings)
    for line, f in zip(lines, findings):
        level, rest = line[2:].split(" ", 1)
        props, message = rest.split("::", 1)
        assert level == f["severity"]
        assert props.split(",")[:4] == [f"title=pdlint ({f['code']})",
                                        "file=" + f["path"].replace(",", "%2C").replace(":", "%3A"),
                                        f"line={f['line']}", f"col={f['column']}"]
        decoded = message.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
        assert "\n" not in message and f["message"] in decoded and f"({f['code']} {f['name']})" in decoded
        assert decoded.count("\nrelated: ") == len(f["related"])


def test_github_escaping():
    from pdlint.model import Finding, Related
    from pdlint.report import github
    f = Finding("a,b:c.yaml", 3, 2, "SGL001", "unknown-flag", "warning", None, "100% bad\nreally",
                (Related("x.yaml", 1, 1, "see: here"),), None, None, 9)
    # a newline inside the message is escaped (\\n): only pdlint's own separators become %0A
    assert github.render([f]) == ("::warning title=pdlint (SGL001),file=a%2Cb%3Ac.yaml,line=3,col=2,endColumn=9::"
                                  "100%25 bad\\nreally (SGL001 unknown-flag)%0Arelated: x.yaml:1:1: see: here\n")


def test_github_file_property_is_the_name_escaped_once():
    """A name holding `%XX`: the runner unescapes `%25` to `%` once, so `file=` must be the name escaped once (the
    reversible form other formats write, `%250A`, escaped again named no file; field test rw20/h)."""
    from urllib.parse import unquote
    from pdlint.model import Finding
    from pdlint.report import github
    name = "b%0A::warning::x.sh"
    out = github.render([Finding(name, 1, 1, "SGL001", "unknown-flag", "error", None, "m")])
    prop = out.split("file=", 1)[1].split(",", 1)[0]
    assert prop == "b%250A%3A%3Awarning%3A%3Ax.sh" and unquote(prop) == name


def test_github_annotation_of_a_token_over_several_lines_has_its_end_line():
    from pdlint.model import Finding
    from pdlint.report import github
    one = Finding("a.yaml", 3, 2, "SGL001", "unknown-flag", "error", None, "m", (), None, None, 9)
    several = Finding("a.yaml", 3, 2, "SGL001", "unknown-flag", "error", None, "m", (), None, None, 4, end_line=5)
    assert ",line=3,col=2,endColumn=9::" in github.render([one])
    assert ",line=3,col=2,endLine=5,endColumn=4::" in github.render([several])


def test_show_keeps_its_formats(demo, capsys):
    assert main(["show", "--format", "sarif", "."]) == 2


def test_sarif_locations_outside_the_working_directory_are_file_uris():
    from pdlint.report.sarif import _location
    assert _location("/srv/repo/a b.yaml", 2, 3)["physicalLocation"]["artifactLocation"] == \
        {"uri": "file:///srv/repo/a%20b.yaml"}
    assert _location("k8s/x.yaml", 1, 1, (1, 5))["physicalLocation"] == {
        "artifactLocation": {"uri": "k8s/x.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 5}}


def test_a_server_that_is_not_disaggregated_reads_non_pd(tmp_path, monkeypatch, capsys):
    # field test rw7/a: "VLLM018 [null] error" and "null vllm server" in `pdlint show`; JSON keeps "null"
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen3-0.6B --port 8000 --bogus-flag\n")
    monkeypatch.chdir(tmp_path)
    outs = {fmt: run(["check", "--no-cache", "--format", fmt, "serve.sh"], capsys)[1]
            for fmt in ("text", "github", "sarif", "json")}
    assert "VLLM018 [non-PD] error" in outs["text"] and "[null]" not in outs["text"]
    assert "[non-PD]" in outs["github"] and "[non-PD]" in outs["sarif"]
    assert json.loads(outs["json"])["findings"][0]["role"] == "null"
    _, shown = run(["show", "serve.sh"], capsys)
    assert "non-PD vllm server" in shown
