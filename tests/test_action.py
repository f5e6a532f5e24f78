"""The GitHub Action (action.yml), tested offline: the file parses as a composite action, every expression
names an input, step or output that exists, and its pdlint step (the real bash script, with the pdlint
installed next to the test's Python) writes SARIF and reports pdlint's exit code, with a command line
pdlint's parser accepts."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pdlint.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def step(step_id: str) -> dict:
    return next(s for s in ACTION["runs"]["steps"] if s.get("id") == step_id)


def test_action_is_a_composite_action_with_documented_inputs():
    assert ACTION["name"] == "pdlint" and ACTION["description"]
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) >= {"paths", "args", "strict", "sarif-file", "upload"}
    for name, spec in ACTION["inputs"].items():
        assert spec.get("description") and "default" in spec, name
    for s in ACTION["runs"]["steps"]:
        assert s.get("name")
        assert ("uses" in s) != ("run" in s), s
        if "run" in s:
            assert s.get("shell") == "bash", s  # composite run steps must name their shell
    uses = [s["uses"] for s in ACTION["runs"]["steps"] if "uses" in s]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)


def test_every_expression_names_what_exists():
    inputs = set(ACTION["inputs"])
    ids = {s["id"] for s in ACTION["runs"]["steps"] if "id" in s}
    outputs_written = set()
    for s in ACTION["runs"]["steps"]:
        for m in re.finditer(r'echo "([a-z-]+)=', s.get("run", "")):
            outputs_written.add((s.get("id"), m.group(1)))
    exprs = [e for text in _strings(ACTION) for e in _EXPR.findall(text)]
    assert exprs
    for e in exprs:
        for name in re.findall(r"\binputs\.([A-Za-z0-9_-]+)", e):
            assert name in inputs, e
        for sid, out in re.findall(r"\bsteps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", e):
            assert sid in ids and (sid, out) in outputs_written, e
        rest = re.sub(r"\b(inputs|steps|github)\.[A-Za-z0-9_.-]+|'[^']*'|always\(\)|==|!=|&&", "", e)
        assert not rest.strip(), f"unexpected expression text {rest!r} in {e!r}"
    for name, spec in ACTION["outputs"].items():
        assert _EXPR.search(spec["value"]), name
    # run scripts take inputs through env only (no expression spliced into shell text)
    for s in ACTION["runs"]["steps"]:
        assert not _EXPR.search(s.get("run", "")), s["name"]


def _run_step(tmp_path: Path, cwd: Path, **inputs) -> tuple:
    """Run the action's pdlint step as the runner would: its env with the inputs' values, GITHUB_OUTPUT."""
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    s = step("pdlint")
    values = {k: v["default"] for k, v in ACTION["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    env = dict(os.environ)
    for k, v in s["env"].items():
        env[k] = _EXPR.sub(lambda m: values[m.group(1).split(".", 1)[1]], v)
    out = tmp_path / "github_output"
    out.write_text("")
    env["GITHUB_OUTPUT"] = str(out)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    r = subprocess.run(["bash", "-e", "-c", s["run"]], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return r, outputs


@pytest.fixture
def demo(tmp_path):
    if shutil.which("pdlint", path=str(BIN)) is None:
        pytest.skip("pdlint is not installed next to the test's Python")
    work = tmp_path / "repo"
    shutil.copytree(REPO / "fixtures", work)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


def test_the_pdlint_step_writes_sarif_and_reports_the_exit_code(tmp_path, demo):
    r, outputs = _run_step(tmp_path, demo)
    assert r.returncode == 0, r.stdout  # the step itself succeeds: the last step fails with the code
    assert outputs["exit-code"] == "1" and outputs["sarif-file"] == "pdlint.sarif"
    sarif = json.loads((demo / "pdlint.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"]
    assert "SGL101" in r.stdout  # the findings are in the job log too
    # a clean path: exit code 0
    r, outputs = _run_step(tmp_path, demo, paths="k8s/clean.yaml scripts/clean.sh")
    assert outputs["exit-code"] == "0", r.stdout
    # strict, args and several paths reach pdlint as separate words
    r, outputs = _run_step(tmp_path, demo, strict="true", args="--select SGL101 --no-cache", paths="k8s sglang",
                           sarif_file="p.sarif")
    assert outputs["exit-code"] == "1", r.stdout
    rules = {res["ruleId"] for res in json.loads((demo / "p.sarif").read_text())["runs"][0]["results"]}
    assert rules == {"SGL101"}
    # a usage error: exit code 2, no SARIF to upload
    r, outputs = _run_step(tmp_path, demo, args="--no-such-option", sarif_file="none.sarif")
    assert outputs["exit-code"] == "2" and outputs["sarif-file"] == ""


def test_the_command_it_runs_is_accepted_by_pdlints_parser():
    s = step("pdlint")["run"]
    (line,) = [ln.strip() for ln in s.splitlines() if ln.strip().startswith("set -- check --format sarif")]
    words = shlex.split(line)[2:]
    expanded = []
    for w in words:
        expanded += {"$PDLINT_SARIF": ["pdlint.sarif"], "${strict[@]}": ["--strict"],
                     "$PDLINT_ARGS": ["--baseline", "b.json", "--sglang-version", "0.5.23"],
                     "$PDLINT_PATHS": [".", "deploy"]}.get(w, [w])
    ns = build_parser().parse_args(expanded)
    assert (ns.command, ns.format, ns.output_file, ns.strict, ns.baseline, ns.paths) == \
        ("check", "sarif", "pdlint.sarif", True, "b.json", [".", "deploy"])


def test_the_last_step_fails_with_pdlints_exit_code():
    s = next(x for x in ACTION["runs"]["steps"] if x.get("name") == "Fail with pdlint's exit code")
    assert s["if"] == "${{ always() }}"
    for code in ("0", "1", "2"):
        r = subprocess.run(["bash", "-c", s["run"]], env={"PDLINT_EXIT_CODE": code, "PATH": os.environ["PATH"]})
        assert r.returncode == int(code)
    r = subprocess.run(["bash", "-c", s["run"]], env={"PATH": os.environ["PATH"]})
    assert r.returncode == 2  # pdlint never ran (the install failed): fail
    upload = next(x for x in ACTION["runs"]["steps"] if "upload-sarif" in x.get("uses", ""))
    assert "always()" in upload["if"]  # findings (exit 1) are still uploaded
