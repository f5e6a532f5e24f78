"""The command line: exit codes, the JSON contract, text output, options, show, determinism."""

import json
import subprocess
import sys
import textwrap

import pytest

from pdlint.cli import main

SHARED = textwrap.dedent("""\
    common: &common
      - --model-path
      - /models/q
      - --enable-linear-replayssm-spec
    prefill:
      containers:
        - name: p
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
          args: *common
    decode:
      containers:
        - name: d
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode]
          args: *common
    """)
CLEAN = textwrap.dedent("""\
    containers:
      - name: p
        image: lmsysorg/sglang:v0.5.23
        command: [python3, -m, sglang.launch_server]
        args: [--model-path, /m, --disaggregation-mode, prefill]
    """)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_exit_codes(repo, capsys):
    (repo / "clean.yaml").write_text(CLEAN)
    assert run(["clean.yaml"], capsys)[0] == 0
    (repo / "bad.yaml").write_text(SHARED)
    assert run(["."], capsys)[0] == 1
    assert run(["--exit-zero", "."], capsys)[0] == 0
    assert run(["missing.yaml"], capsys)[0] == 2
    assert run(["--format", "xml", "."], capsys)[0] == 2
    assert run(["--var", "novalue", "."], capsys)[0] == 2


def test_warnings_fail_only_with_strict(repo, capsys):
    (repo / "w.yaml").write_text(CLEAN.replace("prefill]", "prefill, --port, '1', --port, '2']"))
    code, out, _ = run(["w.yaml"], capsys)
    assert code == 0 and "SGL007" in out
    assert run(["--strict", "w.yaml"], capsys)[0] == 1


def test_json_contract(repo, capsys):
    (repo / "deploy").mkdir()
    (repo / "deploy" / "pd.yaml").write_text(SHARED)
    code, out, _ = run(["--format", "json"], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["version"] == 1 and doc["files"] == 1
    (f,) = doc["findings"]
    assert set(f) >= {"path", "line", "column", "code", "name", "severity", "role", "message", "related"}
    assert (f["path"], f["line"], f["column"], f["code"], f["severity"], f["role"]) == (
        "deploy/pd.yaml", 4, 5, "SGL101", "error", "prefill")
    assert f["name"] == "linear-replayssm-spec-on-prefill"
    assert sorted(r["line"] for r in f["related"]) == [9, 14]
    assert all(set(r) == {"path", "line", "column", "note"} for r in f["related"])
    assert [l["role"] for l in doc["launches"]] == ["prefill", "decode"]
    launch = doc["launches"][0]
    assert set(launch) >= {"path", "line", "role", "engine", "entrypoint", "argv", "origins"}
    assert launch["engine"] == "sglang" and launch["entrypoint"] == "python -m sglang.launch_server"
    assert len(launch["origins"]) == len(launch["argv"])
    assert launch["origins"][2] == {"path": "deploy/pd.yaml", "line": 2, "column": 5,
                                    "via": [{"path": "deploy/pd.yaml", "line": 9, "column": 13, "note": "alias *common"},
                                            {"path": "deploy/pd.yaml", "line": 1, "column": 9, "note": "anchor &common"}]}


def test_text_output_has_snippet_caret_related_and_summary(repo, capsys):
    (repo / "pd.yaml").write_text(SHARED)
    code, out, _ = run(["pd.yaml"], capsys)
    lines = out.splitlines()
    assert lines[0].startswith("pd.yaml:4:5: SGL101 [prefill] error: --enable-linear-replayssm-spec is not supported")
    assert lines[1] == "     4 |   - --enable-linear-replayssm-spec"
    assert lines[2] == "       |     ^" + "~" * 29
    assert any(l.startswith("  related: pd.yaml:9:13: prefill launch") for l in lines)
    assert any(l.startswith("  related: pd.yaml:14:13: decode launch") and "accepts it" in l for l in lines)
    assert lines[-1] == "Found 1 error and 0 warnings in 1 file."
    assert "one shared" not in out and out.count("SGL101") == 1


def test_output_is_deterministic(repo, capsys):
    for i in range(5):
        (repo / f"f{i}.yaml").write_text(SHARED)
    first = run(["--format", "json", "."], capsys)[1]
    assert all(run(["--format", "json", "."], capsys)[1] == first for _ in range(2))
    paths = [f["path"] for f in json.loads(first)["findings"]]
    assert paths == sorted(paths)


def test_var_role_var_and_config(repo, capsys):
    (repo / "t.sh.j2").write_text("python -m sglang.launch_server --model-path {{ m }} --disaggregation-mode {{ kind }} "
                                  "{{ extra }}\n")
    code, out, _ = run(["--format", "json", "--role-var", "kind", "--var", "m=/x", "--var",
                        "extra=--enable-linear-replayssm-spec", "t.sh.j2"], capsys)
    doc = json.loads(out)
    assert [l["role"] for l in doc["launches"]] == ["prefill", "decode"]
    assert [f["code"] for f in doc["findings"]] == ["SGL101"]
    (repo / "alt.yaml").write_text("role-var: kind\nvars:\n  m: /y\n  extra: ''\n")
    code, out, _ = run(["--format", "json", "--config", "alt.yaml", "t.sh.j2"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["launches"][0]["argv"][1] == "/y"


def test_undefined_variable_is_a_finding_at_its_line(repo, capsys):
    (repo / "t.sh.j2").write_text("# launcher\npython -m sglang.launch_server --model-path {{ model }}\n")
    code, out, _ = run(["t.sh.j2"], capsys)
    assert code == 1 and out.startswith("t.sh.j2:2:48: PD005 error: undefined variable 'model'")


def test_show_prints_launches_with_origins(repo, capsys):
    (repo / "pd.yaml").write_text(SHARED)
    code, out, _ = run(["show", "pd.yaml"], capsys)
    assert code == 0
    assert "pd.yaml:8: prefill sglang server: python -m sglang.launch_server" in out
    assert "--enable-linear-replayssm-spec  pd.yaml:4:5  via alias *common (pd.yaml:9) -> anchor &common (pd.yaml:1)" in out
    code, out, _ = run(["show", "--role", "decode", "--format", "json", "pd.yaml"], capsys)
    assert [l["role"] for l in json.loads(out)["launches"]] == ["decode"]


def test_rules_listing(capsys):
    code, out, _ = run(["rules"], capsys)
    assert code == 0 and "SGL101   linear-replayssm-spec-on-prefill" in out
    code, out, _ = run(["rules", "--format", "json"], capsys)
    assert any(r["code"] == "SGL101" and r["roles"] == ["prefill"] for r in json.loads(out))


def test_gitignore_and_dot_git_are_respected(repo, capsys):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("ignored/\n")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "pd.yaml").write_text(SHARED)
    (repo / ".git" / "pd.yaml").write_text(SHARED)
    code, out, _ = run(["."], capsys)
    assert code == 0 and "Found 0 errors" in out
    assert run(["ignored/pd.yaml"], capsys)[0] == 1  # named explicitly: always scanned


def test_internal_errors_are_one_line_without_debug(repo, capsys, monkeypatch):
    import pdlint.lint

    def boom(*a, **k):
        raise ValueError("kaboom")

    monkeypatch.setattr(pdlint.lint, "run", boom)
    code, out, err = run(["."], capsys)
    assert code == 2 and err == "pdlint: internal error: ValueError: kaboom (run with --debug for details)\n"
    with pytest.raises(ValueError):
        main(["--debug", "."])


def test_python_dash_m_and_version():
    r = subprocess.run([sys.executable, "-m", "pdlint", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("pdlint ")


def test_main_leaves_the_gc_thresholds_as_it_found_them(repo, capsys, monkeypatch):
    # the scan raises the GC threshold for speed; main() must not leak that
    # (or anything else) into the calling process, even when the scan fails
    import gc

    import pdlint.lint

    (repo / "bad.yaml").write_text(SHARED)
    before = gc.get_threshold()
    seen = []
    real_run = pdlint.lint.run

    def spy(*a, **k):
        seen.append(gc.get_threshold())
        return real_run(*a, **k)

    monkeypatch.setattr(pdlint.lint, "run", spy)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # the scan in this process (the worker's gc is its own)
    assert run(["."], capsys)[0] == 1
    assert seen and seen[0] != before and gc.get_threshold() == before

    def boom(*a, **k):
        raise ValueError("kaboom")

    monkeypatch.setattr(pdlint.lint, "run", boom)
    assert run(["."], capsys)[0] == 2
    assert gc.get_threshold() == before


def test_the_worker_ends_without_a_collection_over_what_the_scan_left(repo, capsys):
    # in the worker process (a progress callback) nothing follows the report but the exit: the raised
    # threshold stays, so no pass walks the scan's heap (about 0.2 s of a 1000-file run)
    import gc

    from pdlint.cli import _scan, build_parser
    (repo / "bad.yaml").write_text(SHARED)
    before = gc.get_threshold()
    try:
        assert _scan(build_parser().parse_args(["check", "--no-cache", "."]), progress=lambda *a: None) == 1
        assert gc.get_threshold() != before
    finally:
        gc.set_threshold(*before)
    capsys.readouterr()


def test_a_file_named_like_an_option_is_a_path(tmp_path, monkeypatch):
    # (pre-commit appends staged file names without `--`; hostile-input round rw28/h item 1)
    from pdlint.cli import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pd.sh").write_text("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill"
                                    " --enable-linear-replayssm-spec\n")
    (tmp_path / "victim.yaml").write_text("keep: me\n")
    for name in ("--extend-exclude=*,x.yaml", "--output-file=victim.yaml", "--write-baseline=b.json", "--strict"):
        (tmp_path / name).write_text("")
    assert main(["check", "--force-exclude", "--extend-exclude=*,x.yaml", "--output-file=victim.yaml",
                 "--write-baseline=b.json", "pd.sh", "victim.yaml"]) == 1
    assert (tmp_path / "victim.yaml").read_text() == "keep: me\n" and not (tmp_path / "b.json").exists()
    # an option no file is named like stays an option; after `--` every word is a path already
    (tmp_path / "--strict").unlink()
    out = tmp_path / "out.txt"
    assert main(["check", "--output-file", str(out), "--", "pd.sh"]) == 1 and "SGL101" in out.read_text()
    assert main(["check", "--select", "PD", "pd.sh"]) == 0


def test_a_file_named_double_dash_is_checked_too(tmp_path, monkeypatch, capsys):
    # hostile-input round rw29/h P1: pre-commit appends a staged file named `--` like any other; the parser took it
    # for the end of the options and never read it (the other files passed: exit 0), or, alone, walked the directory
    from pdlint.cli import main
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    (tmp_path / "--").write_text("python3 -m sglang.launch_server --model-path m --nonexistent-flag\n")
    (tmp_path / "ok.sh").write_text("python3 -m sglang.launch_server --model-path m\n")
    (tmp_path / "other.sh").write_text("python3 -m sglang.launch_server --model-path m --also-not-a-flag\n")
    assert main(["check", "--no-cache", "--force-exclude", "--", "ok.sh"]) == 1
    out = capsys.readouterr().out
    assert "--:1:" in out and "SGL001" in out and "other.sh" not in out
    assert main(["check", "--no-cache", "--force-exclude", "--"]) == 1
    out = capsys.readouterr().out
    assert "--:1:" in out and "other.sh" not in out
    # (with no file of that name, `--` only ends the options)
    (tmp_path / "--").unlink()
    assert main(["check", "--no-cache", "--force-exclude", "--", "ok.sh"]) == 0
