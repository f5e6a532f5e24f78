"""Untrusted input: every bad file gives one located finding with its own code,
the scan goes on, no traceback, no hang, and scanned files are never written."""

import hashlib
import json
import os

import pytest

from pdlint.cli import main

GOOD = ("containers:\n  - name: d\n    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, /m, --disaggregation-mode, prefill, --disaggregation-transfer-backend, fake]\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text(GOOD)
    return tmp_path


def scan(capsys, *paths):
    code = main(["--format", "json", *paths])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    doc = json.loads(out.out)
    return code, doc, {(f["path"], f["code"]): f for f in doc["findings"]}


def test_bad_files_each_give_one_finding_and_the_scan_goes_on(repo, capsys):
    (repo / "latin1.yaml").write_bytes(b"a: 1\nb: caf\xe9\n")
    (repo / "nul.sh").write_bytes(b"#!/bin/sh\necho \x00\n")
    # (a directory scan parses YAML that mentions an engine; named files are always parsed)
    (repo / "broken.yaml").write_text("containers:\n  - name: sglang\n   bad: [\n")
    (repo / "syntax.sh.j2").write_text("{% for x in y %}\n")
    # (a launch template: one with no launch text gets no render error, tests/test_field_tpl.py)
    (repo / "render.sh.j2").write_text("python3 -m sglang.launch_server \\\n{{ 1 / 0 }}\n")
    os.symlink("does-not-exist.yaml", repo / "dangling.yaml")
    code, doc, by = scan(capsys, ".")
    assert code == 1
    assert by[("latin1.yaml", "PD002")]["line"] == 2
    assert by[("nul.sh", "PD002")]["message"].startswith("file contains NUL bytes")
    assert (by[("broken.yaml", "PD003")]["line"], by[("broken.yaml", "PD003")]["column"]) == (3, 4)
    assert by[("syntax.sh.j2", "PD004")]["line"] == 1
    assert by[("render.sh.j2", "PD006")]["line"] == 2
    assert "ZeroDivisionError" in by[("render.sh.j2", "PD006")]["message"]
    assert ("dangling.yaml", "PD001") in by
    assert ("good.yaml", "SGL104") in by  # the good file is still checked


def test_unreadable_file(repo, capsys):
    if os.geteuid() == 0:
        pytest.skip("root can read any file")
    p = repo / "secret.yaml"
    p.write_text(GOOD)
    p.chmod(0)
    try:
        _, _, by = scan(capsys, ".")
        assert ("secret.yaml", "PD001") in by
    finally:
        p.chmod(0o644)


def test_file_size_limit(repo, capsys):
    # (with launch text: a big file without any is nothing to check, test_field_cov_big_files.py)
    (repo / "huge.yaml").write_text("# python3 -m sglang.launch_server\n" + "x: y\n" * 500_000)
    _, _, by = scan(capsys, ".")
    assert "larger than" in by[("huge.yaml", "PD008")]["message"]


def test_yaml_alias_bomb_is_bounded(repo, capsys):
    bomb = ["a0: &a0 [sglang, sglang]"]
    for i in range(1, 30):
        bomb.append(f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]")
    bomb.append("containers:\n  - name: x\n    command: *a29")
    (repo / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    code, doc, by = scan(capsys, "bomb.yaml")
    assert code == 1 and "alias expansion limit" in by[("bomb.yaml", "PD008")]["message"]


def test_template_limits(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.pdlint]\nrender-timeout = 0.5\n")
    (repo / "slow.sh.j2").write_text("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    (repo / "big.sh.j2").write_text("{% for i in range(100000) %}{% for j in range(100) %}xxxxxxxxxx{% endfor %}{% endfor %}")
    _, _, by = scan(capsys, "slow.sh.j2", "big.sh.j2")
    assert "longer than 0.5 s" in by[("slow.sh.j2", "PD008")]["message"]
    assert "exceeds" in by[("big.sh.j2", "PD008")]["message"]


def test_include_outside_the_repository(repo, capsys, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.j2"
    outside.write_text("python -m sglang.launch_server --bogus")
    os.symlink(str(outside), repo / "link.j2")
    (repo / "t.sh.j2").write_text("# x\n{% include 'link.j2' %}\n{% include '" + str(outside) + "' %}\n")
    code, doc, by = scan(capsys, "t.sh.j2")
    f = by[("t.sh.j2", "PD007")]
    assert f["line"] == 2 and "outside the repository" in f["message"]
    assert doc["launches"] == []


def test_pdlint_never_writes_to_scanned_files(repo, capsys):
    (repo / "t.sh.j2").write_text("python -m sglang.launch_server --model-path {{ m }}\n")
    (repo / "s.sh").write_text("#!/bin/sh\nCOMMON='--tp 2'\npython -m sglang.launch_server $COMMON\n")
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in repo.iterdir() if p.is_file()}
    mtimes = {p.name: p.stat().st_mtime_ns for p in repo.iterdir() if p.is_file()}
    main(["."])
    main(["show", "."])
    capsys.readouterr()
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in repo.iterdir() if p.is_file()}
    assert before == after
    assert mtimes == {p.name: p.stat().st_mtime_ns for p in repo.iterdir() if p.is_file()}
    assert sorted(p.name for p in repo.iterdir()) == sorted(before)  # no caches written


def test_bad_config_is_a_finding_at_its_line(repo, capsys):
    (repo / "pyproject.toml").write_text("[tool.pdlint]\nrole-var = 3\n")
    code, doc, by = scan(capsys, ".")
    f = by[("pyproject.toml", "PD012")]
    assert code == 1 and f["line"] == 2 and "role-var must be a variable name, not an integer (3)" in f["message"]
    assert doc["coverage"]["files"]["good.yaml"]["status"] == "error"  # governed by it: not checked
    (repo / "pyproject.toml").write_text("[tool.pdlint\n")
    code, doc, by = scan(capsys, ".")
    assert code == 1 and "invalid TOML" in by[("pyproject.toml", "PD012")]["message"]


def test_a_config_with_a_huge_integer_is_a_finding_and_the_rest_is_checked(repo, capsys):
    """Python refuses to convert an integer of more than 4300 digits: a `.pdlint.yaml` holding one lost the whole
    run to an internal error (exit 2, field test rw20/h)."""
    (repo / "sub").mkdir()
    (repo / "sub" / ".pdlint.yaml").write_text("vars:\n  tp: " + "9" * 5000 + "\n")
    (repo / "sub" / "run.sh").write_text("python -m sglang.launch_server --model-path m --disaggregation-mode decode\n")
    code, doc, by = scan(capsys, ".")
    assert code == 1 and "an integer with too many digits" in by[("sub/.pdlint.yaml", "PD012")]["message"]
    assert ("good.yaml", "SGL104") in by


def test_named_files_of_unknown_kind_are_sniffed_not_reported(repo, capsys):
    (repo / "CODEOWNERS").write_text("* @team # decode prefill sglang\n*.yaml @ops\n")
    (repo / "Procfile").write_text("web: python -m sglang.launch_server --model-path m\n")
    (repo / "pods").write_text(GOOD)
    code, doc, by = scan(capsys, "CODEOWNERS", "Procfile", "pods")
    # never reported as invalid YAML; the Procfile's launch is not checked, and pdlint says so (coverage)
    assert sorted(f["code"] for f in doc["findings"]) == ["PD020", "SGL104"] and by[("pods", "SGL104")]
    assert "file kind pdlint does not read" in by[("Procfile", "PD020")]["message"]
    assert "`# pdlint: ignore[PD020]`" in by[("Procfile", "PD020")]["fix"]
    assert doc["coverage"]["files"]["Procfile"]["status"] == "unchecked"
    assert doc["coverage"]["files"]["CODEOWNERS"]["status"] == "none"
