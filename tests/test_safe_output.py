"""Safe output (issue 9 item 5): a file name, a token or a YAML key cannot
forge a GitHub annotation or a finding line, send a terminal escape or make
JSON/SARIF invalid; ordinary output is unchanged (the golden demo reports in
tests/test_fixtures_golden.py stay byte for byte the same)."""

import json
import os
import re
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

from pdlint.cli import main
from pdlint.report import escape

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORGED = "\n::error file=x.yaml,line=1::forged finding\n"
TEMPLATE = ("containers:\n  - name: {name}\n    command: [python3, -m, sglang.launch_server]\n"
            "    args: [--model-path, /m, --disaggregation-mode, prefill, {arg}, --disaggregation-transfer-backend, "
            "fake]\n")
FIRES = TEMPLATE.format(name="d", arg="--tp-size")  # --tp-size without a value: a finding quoting the token


def pdlint(cwd, *args):
    """pdlint in a subprocess: the exact bytes it writes (capsys would hide an encoding error)."""
    env = {**os.environ, "PYTHONPATH": REPO, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    r = subprocess.run([sys.executable, "-m", "pdlint", *args], cwd=cwd, env=env, capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")  # strict: must be valid UTF-8


def command_lines(text: str) -> list:
    """Lines the GitHub runner would take as workflow commands (``::cmd`` after blanks, ``##[`` anywhere)."""
    return [l for l in text.split("\n") if l.lstrip().startswith("::") or "##[" in l]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    (tmp_path / "good.yaml").write_text(FIRES)
    return tmp_path


def all_formats(cwd):
    outs = {}
    for name, args in (("text", []), ("github", ["--format", "github"]), ("json", ["--format", "json"]),
                       ("sarif", ["--format", "sarif"]), ("gitlab", ["--format", "gitlab"]),
                       ("junit", ["--format", "junit"]), ("show", ["show", "."]), ("stats", ["--statistics"])):
        argv = args if name == "show" else args + ["."]
        outs[name] = pdlint(cwd, "--no-cache", *argv) if name != "show" else pdlint(cwd, *argv)
    return outs


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_a_file_name_cannot_forge_an_annotation(repo):
    (repo / f"a{FORGED}\x1b[2Jb\u202e.yaml").write_text(FIRES)
    outs = all_formats(repo)
    for name in ("text", "show", "stats"):
        code, out, err = outs[name]
        assert command_lines(out + err) == [], (name, out)
        assert "\x1b" not in out and "\u202e" not in out
    code, out, _ = outs["github"]
    lines = out.splitlines()
    assert all(re.match(r"::(error|warning) title=pdlint \(", l) for l in lines)  # only pdlint's own commands
    forged = [l for l in lines if "forged" in l]
    assert forged and all("file=a\\n%3A%3Aerror file=x.yaml%2Cline=1%3A%3Aforged" in l for l in forged)
    text = outs["text"][1]
    assert "a\\n::error file=x.yaml,line=1::forged finding\\n\\x1b[2Jb\\u202e.yaml:4:" in text
    for name in ("json", "sarif", "gitlab"):
        json.loads(outs[name][1])
    junit = outs["junit"][1]
    assert command_lines(junit) == [] and "\x1b" not in junit and "\u202e" not in junit
    ET.fromstring(junit.encode("utf-8"))


def test_a_token_cannot_forge_an_annotation(repo):
    (repo / "tok.yaml").write_text(TEMPLATE.format(name="d", arg=json.dumps("--bogus" + FORGED + "\x1b[31m")))
    outs = all_formats(repo)
    for name in ("text", "show"):
        code, out, err = outs[name]
        assert command_lines(out) == [], (name, out)
        assert "\x1b" not in out
    assert "--bogus ::error file=x.yaml,line=1::forged finding" in outs["text"][1]  # mid-line: inert
    assert all(l.startswith("::") for l in outs["github"][1].splitlines())
    assert "\\x1b" in outs["show"][1]


def test_a_yaml_key_cannot_forge_a_legacy_command(repo):
    """``##[error]`` anywhere in a line is a workflow command for the runner (its legacy form)."""
    (repo / "key.yaml").write_text(TEMPLATE.format(name='"##[error]forged"', arg="--tp-size"))
    outs = all_formats(repo)
    for name in ("text", "github", "show", "json", "sarif", "gitlab", "junit"):
        out = outs[name][1]
        assert "##[" not in out, name
    assert "container '##\\x5berror]forged'" in outs["text"][1]
    doc = json.loads(outs["json"][1])
    assert any("'##[error]forged'" in r["note"] for f in doc["findings"] for r in f["related"])  # the same value


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="a file name that is not UTF-8")
def test_json_and_sarif_stay_valid_with_a_name_that_is_not_utf8(repo):
    raw = b"bad\xff%41.yaml"
    with open(os.path.join(os.fsencode(str(repo)), raw), "w") as f:
        f.write(FIRES)
    outs = all_formats(repo)
    for name, (code, out, err) in outs.items():
        assert code in (0, 1), (name, err)
        assert not re.search(r"\\ud[89a-f][0-9a-f]{2}", out, re.I), name  # no lone surrogate escapes either
    doc = json.loads(outs["json"][1])
    paths = {f["path"] for f in doc["findings"]}
    assert "bad%FF%2541.yaml" in paths and set(doc["coverage"]["files"]) == {"bad%FF%2541.yaml", "good.yaml"}
    assert urllib.parse.unquote_to_bytes("bad%FF%2541.yaml") == raw  # the documented way back
    sarif = json.loads(outs["sarif"][1])
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "bad%FF%2541.yaml" in uris
    assert "bad%FF%2541.yaml" in {i["location"]["path"] for i in json.loads(outs["gitlab"][1])}
    assert "bad%FF%2541.yaml" in {s.get("name") for s in ET.fromstring(outs["junit"][1].encode("utf-8"))}
    assert "bad%FF%2541.yaml:4:" in outs["text"][1]
    # the result cache keeps such a name too, and gives the same report
    env_dir = str(repo / ".cache-dir")
    first = subprocess.run([sys.executable, "-m", "pdlint", "--format", "json", "."], cwd=repo,
                           env={**os.environ, "PYTHONPATH": REPO, "PDLINT_CACHE_DIR": env_dir},
                           capture_output=True, timeout=120)
    second = subprocess.run([sys.executable, "-m", "pdlint", "--format", "json", "."], cwd=repo,
                            env={**os.environ, "PYTHONPATH": REPO, "PDLINT_CACHE_DIR": env_dir},
                            capture_output=True, timeout=120)
    assert first.stdout == second.stdout == outs["json"][1].encode() and b"cache failed" not in second.stderr


def test_ordinary_names_and_text_are_unchanged():
    for s in ("k8s/app.yaml", "deploy/a b.yaml", "x%y.yaml", "ünïcode/名前.yaml", "a::b.yaml", "10% of it"):
        assert escape.name(s) == s
        assert escape.text(s) == s
        assert escape.json_text(json.dumps(s, ensure_ascii=False)) == json.dumps(s, ensure_ascii=False)
    assert escape.lines("a.yaml:1:1: x\n  related: y\n") == "a.yaml:1:1: x\n  related: y\n"


def test_escapes():
    assert escape.text("a\nb\rc\td\x00e\x7ff\x85g\u2028h\u202ei") == "a\\nb\\rc\\td\\x00e\\x7ff\\x85g\\u2028h\\u202ei"
    assert escape.text("x ##[error]y") == "x ##\\x5berror]y"
    assert escape.lines("ok\n  ::error::x\n::warning::y\nz ::a::") == "ok\n  \\x3a:error::x\n\\x3a:warning::y\nz ::a::"
    assert escape.name("a%41") == "a%2541" and escape.name("caf\udce9") == "caf%E9"
    assert escape.utf8("10% caf\udce9") == "10%25 caf%E9"
    s = "##[x] \u2028 \x85"
    assert json.loads(escape.json_text(json.dumps(s, ensure_ascii=False))) == s
    assert "##[" not in escape.json_text(json.dumps(s, ensure_ascii=False))


def test_github_escaping_is_the_runners(repo):
    """Data: % CR LF; properties: also : and , (actions/runner ActionCommand.cs)."""
    from pdlint.model import Finding
    from pdlint.report import github
    f = Finding("p,a:t%h.yaml", 1, 1, "SGL001", "n", "error", None, "m%\r\n")
    assert github.render([f]) == "::error title=pdlint (SGL001),file=p%2Ca%3At%25h.yaml,line=1,col=1::m%25\\r\\n " \
                                 "(SGL001 n)\n"


def test_warnings_and_diff_headers_are_escaped(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\n"\\n::error::forged" = 1\n')
    code = main(["good.yaml"])
    err = capsys.readouterr().err
    assert command_lines(err) == [] and "unknown pdlint config key" in err
    from pdlint.fix import FixRun, diff
    state = FixRun(None)
    state.original["a\n::error::x.yaml"] = "a\n"
    state.fixed["a\n::error::x.yaml"] = "b\n"
    out = diff(state)
    assert command_lines(out) == [] and out.startswith("--- a/a\\n::error::x.yaml\n")
