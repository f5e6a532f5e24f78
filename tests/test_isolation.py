"""One bad file never hides the rest (issue 9 item 4): every per-file or
per-config failure is a finding with its path, a broken config turns pdlint
off only for the files it governs, exit 1 when such findings exist and 2 only
for usage errors; and the invariant "the findings of the good files are always
reported" holds through ``pdlint.cli.main`` for every format."""

import json
import os
import subprocess

import pytest

from pdlint.cli import main
from pdlint.config import JINJA_SCHEMA, SCHEMA, ConfigError, load_config_file

GOOD = ("containers:\n  - name: d\n    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, /m, --disaggregation-mode, prefill, --disaggregation-transfer-backend, fake]\n")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    (tmp_path / "good.yaml").write_text(GOOD)
    return tmp_path


def scan(capsys, *args):
    code = main(["--format", "json", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    doc = json.loads(out.out)
    return code, doc, {(f["path"], f["code"]): f for f in doc["findings"]}


def good_reported(doc, path="good.yaml"):
    assert any(f["path"] == path and f["code"] == "SGL104" for f in doc["findings"]), doc["findings"]


def hostile_repository(repo):
    """One hostile file, a broken config in a subdirectory, an undecodable values file, a good file."""
    os.symlink("/dev/zero", repo / "zero.yaml")
    (repo / "sub").mkdir()
    (repo / "sub" / "pyproject.toml").write_text("[tool.pdlint]\nexclude = 5\n")
    (repo / "sub" / "pd.yaml").write_text(GOOD)
    (repo / "tpl").mkdir()
    (repo / "tpl" / ".pdlint.yaml").write_text("values: [values.yaml]\n")
    (repo / "tpl" / "values.yaml").write_bytes(b"model: caf\xe9\n")
    (repo / "tpl" / "run.sh.j2").write_text("python -m sglang.launch_server --model-path /m\n")


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_good_files_are_always_reported(repo, capsys, fmt):
    hostile_repository(repo)
    code = main(["--format", fmt, "."])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.err and "internal error" not in out.err
    assert "good.yaml" in out.out and "SGL104" in out.out
    if fmt == "json":
        doc = json.loads(out.out)
        by = {(f["path"], f["code"]): f for f in doc["findings"]}
        assert ("zero.yaml", "PD001") in by
        assert by[("sub/pyproject.toml", "PD012")]["line"] == 2
        assert by[("tpl/values.yaml", "PD010")]["message"] == (
            "values file: not valid UTF-8 at line 1, column 11 (byte 0xe9: invalid continuation byte)")
        assert doc["coverage"]["files"]["sub/pd.yaml"]["status"] == "error"
        assert doc["coverage"]["files"]["good.yaml"]["status"] == "checked"
        good_reported(doc)


def test_a_pyproject_without_the_table_does_not_matter_at_all(repo, capsys):
    (repo / "vendor").mkdir()
    (repo / "vendor" / "pyproject.toml").write_bytes(b"[project]\nname = \"caf\xe9\"\n[broken\n")
    (repo / "vendor" / "pd.yaml").write_text(GOOD)
    code, doc, by = scan(capsys, ".")
    assert code == 1 and sorted(by) == [("good.yaml", "SGL104"), ("vendor/pd.yaml", "SGL104")]


@pytest.mark.parametrize("name,data,line,message", [
    ("pyproject.toml", b"[tool.pdlint]\nrole-var = \"caf\xe9\"\n", 2, "config file is not valid UTF-8 at line 2, column 16"),
    (".pdlint.yaml", b"role-var: caf\xe9\n", 1, "config file is not valid UTF-8"),
    ("pyproject.toml", b"[tool.pdlint]\nselect = [\"SGL\"\n[tool.pdlint.vars]\n", 3, "invalid TOML"),
    (".pdlint.yaml", b"select: [SGL\n", 2, "invalid YAML"),
    (".pdlint.yaml", b"- a\n- b\n", 1, "the config must be a mapping"),
    ("pyproject.toml", b"[tool.pdlint]\nexclude = 5\n", 2,
     "exclude must be a list of glob patterns, not an integer (5)"),
    ("pyproject.toml", b'[tool.pdlint]\nper-file-ignores = {"x" = 5}\n', 2,
     "per-file-ignores must be a table mapping globs to lists of rule codes or prefixes, not a table"),
    ("pyproject.toml", b'[tool.pdlint]\nextend-ignore = "SGL"\n', 2,
     "extend-ignore must be a list of rule codes or prefixes, not a string ('SGL')"),
    ("pyproject.toml", b"[tool.pdlint]\nrender-timeout = nan\n", 2, "render-timeout must be a positive number"),
    ("pyproject.toml", b"[tool.pdlint]\nrender-timeout = inf\n", 2, "render-timeout must be a positive number"),
    ("pyproject.toml", b'[tool.pdlint]\nengine-version = "banana"\n', 2, "engine-version: unknown SGLang release"),
    ("pyproject.toml", b"[tool.pdlint]\nx = 1\n[tool.pdlint.jinja]\ntrim-blocks = 1\n", 4,
     "jinja.trim-blocks must be true or false, not an integer (1)"),
])
def test_a_broken_config_is_one_finding_and_turns_pdlint_off_only_below_it(repo, capsys, name, data, line, message):
    (repo / "sub").mkdir()
    (repo / "sub" / name).write_bytes(data)
    (repo / "sub" / "pd.yaml").write_text(GOOD)
    (repo / "sub" / "deeper").mkdir()
    (repo / "sub" / "deeper" / "pd.yaml").write_text(GOOD)
    code, doc, by = scan(capsys, ".")
    f = by[(f"sub/{name}", "PD012")]
    assert code == 1 and f["line"] == line and message in f["message"], f
    n = 3 if name.endswith(".yaml") else 2  # (a .pdlint.yaml is a YAML file it governs itself)
    assert f["severity"] == "error" and f"did not check the {n} files this config governs" in f["message"]
    assert doc["coverage"]["files"]["sub/pd.yaml"]["status"] == "error"
    assert "sub/pyproject.toml" in doc["coverage"]["files"]["sub/deeper/pd.yaml"]["error"] or \
        "sub/.pdlint.yaml" in doc["coverage"]["files"]["sub/deeper/pd.yaml"]["error"]
    assert not any(p.startswith("sub/") and c == "SGL104" for p, c in by)  # not checked: no guessing
    good_reported(doc)


def test_extend_ignore_as_a_string_never_silences_rules(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nextend-ignore = "SGL"\n')
    code, doc, by = scan(capsys, ".")
    assert code == 1 and ("pyproject.toml", "PD012") in by  # refused (as ruff does), not read as S, G, L


@pytest.mark.parametrize("key", sorted(SCHEMA))
def test_every_config_key_is_type_checked(repo, key):
    """The schema table covers every key: a value of the wrong type names the key, what it must be and the line."""
    bad = {"role-var": "1x", "force-exclude": "yes"}.get(
        key, "slow" if key in ("render-timeout", "time-per-file", "memory-per-file") else 3.5)
    (repo / ".pdlint.yaml").write_text(f"# a comment\n{key}: {json.dumps(bad)}\n")
    with pytest.raises(ConfigError) as e:
        load_config_file(str(repo / ".pdlint.yaml"), ".pdlint.yaml")
    assert e.value.line == 2 and e.value.path == ".pdlint.yaml" and e.value.message.startswith(f"{key} must be ")


@pytest.mark.parametrize("key", sorted(JINJA_SCHEMA))
def test_every_jinja_key_is_type_checked(repo, key):
    (repo / "pyproject.toml").write_text(f"[tool.pdlint.jinja]\n{key} = 3\n")
    with pytest.raises(ConfigError) as e:
        load_config_file(str(repo / "pyproject.toml"), "pyproject.toml")
    assert e.value.line == 2 and e.value.message.startswith(f"jinja.{key} must be ")


def test_a_valid_config_gives_no_finding(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nselect = ["SGL", "PD"]\nexclude = ["vendor/**"]\n'
                                         'per-file-ignores = {"legacy/*" = ["SGL1"]}\nrender-timeout = 2\n'
                                         '[tool.pdlint.jinja]\ntrim-blocks = true\n')
    code, doc, by = scan(capsys, ".")
    assert code == 1 and sorted(by) == [("good.yaml", "SGL104")]


def test_explicit_config_errors(repo, capsys):
    assert main(["--config", "nope.toml", "good.yaml"]) == 2  # usage: the named config does not exist
    assert "config file not found" in capsys.readouterr().err
    (repo / "dir").mkdir()
    assert main(["--config", "dir", "good.yaml"]) == 2
    capsys.readouterr()
    (repo / "bad.yaml").write_text("exclude: 5\n")
    code, doc, by = scan(capsys, "--config", "bad.yaml", "good.yaml")
    assert code == 1 and ("bad.yaml", "PD012") in by and doc["coverage"]["files"]["good.yaml"]["status"] == "error"
    assert main(["--select", "NOPE9", "good.yaml"]) == 2  # an unknown selector on the command line: usage


# -- PD013: an exception on one file ----------------------------------------------------------------------

def _explode_on(monkeypatch, target, attr, path_of, name="bad.yaml"):
    real = getattr(target, attr)

    def boom(*a, **k):
        if name in path_of(*a, **k):
            raise TypeError("kaboom")
        return real(*a, **k)

    monkeypatch.setattr(target, attr, boom)


def _bad_and_good(repo):
    (repo / "bad.yaml").write_text(GOOD)


def test_an_exception_while_extracting_one_file(repo, capsys, monkeypatch):
    from pdlint.extract import Extractor
    _bad_and_good(repo)
    _explode_on(monkeypatch, Extractor, "yaml", lambda self, job, *a, **k: job.display)
    code, doc, by = scan(capsys, ".")
    f = by[("bad.yaml", "PD013")]
    assert code == 1 and "TypeError: kaboom" in f["message"] and "--debug" in f["message"]
    assert doc["coverage"]["files"]["bad.yaml"]["status"] == "error"
    good_reported(doc)
    with pytest.raises(TypeError):  # --debug: the traceback
        main(["--debug", "--no-cache", "."])


def test_an_exception_in_the_engine_adapter_for_one_launch(repo, capsys, monkeypatch):
    from pdlint.engines.sglang import engine
    _bad_and_good(repo)
    _explode_on(monkeypatch, engine, "interpret", lambda launch, ctx: launch.path)
    code, doc, by = scan(capsys, ".")
    assert code == 1 and "a launch in this file" in by[("bad.yaml", "PD013")]["message"]
    good_reported(doc)


def test_an_exception_in_the_check_stage_for_one_file(repo, capsys, monkeypatch):
    from pdlint import check
    _bad_and_good(repo)
    real = check.check

    def boom(launches, enabled_for):
        if any(l.path == "bad.yaml" for l in launches):
            raise KeyError("kaboom")
        return real(launches, enabled_for)

    monkeypatch.setattr(check, "check", boom)
    code, doc, by = scan(capsys, ".")
    assert code == 1 and "the rules" in by[("bad.yaml", "PD013")]["message"]
    good_reported(doc)


def test_an_exception_in_the_structure_rules_coverage_and_suppressions(repo, capsys, monkeypatch):
    from pdlint import coverage, structure_rules, suppress
    _bad_and_good(repo)
    real_s, real_c, real_p = structure_rules.check, coverage.assess, suppress.apply

    def s_boom(launches):
        if any(l.path == "bad.yaml" for l in launches):
            raise ValueError("s")
        return real_s(launches)

    def c_boom(jobs, *a, **k):
        if any(j.display == "bad.yaml" for j in jobs):
            raise ValueError("c")
        return real_c(jobs, *a, **k)

    def p_boom(findings, sources, *a):
        if "bad.yaml" in sources:
            raise ValueError("p")
        return real_p(findings, sources, *a)

    monkeypatch.setattr(structure_rules, "check", s_boom)
    monkeypatch.setattr(coverage, "assess", c_boom)
    monkeypatch.setattr(suppress, "apply", p_boom)
    code, doc, by = scan(capsys, ".")
    messages = [f["message"] for f in doc["findings"] if f["code"] == "PD013" and f["path"] == "bad.yaml"]
    assert len(messages) == 3, messages
    assert doc["coverage"]["files"]["bad.yaml"]["status"] == "error"
    good_reported(doc)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_an_exception_in_pairing_for_one_file(repo, capsys, monkeypatch, fmt):
    from pdlint import pairing
    _bad_and_good(repo)
    real = pairing.pair_launches

    def boom(launches):
        if any(l.path == "bad.yaml" for l in launches):
            raise IndexError("kaboom")
        return real(launches)

    monkeypatch.setattr(pairing, "pair_launches", boom)
    if fmt == "text":
        assert main(["show", "."]) == 0 and "good.yaml" in capsys.readouterr().out
        return
    code, doc, by = scan(capsys, ".")  # the rules' pair stage and the report's pairs, file by file
    assert code == 1 and "IndexError: kaboom" in by[("bad.yaml", "PD013")]["message"]
    good_reported(doc)


def test_a_damaged_cache_costs_nothing_but_the_cache(repo, capsys, monkeypatch):
    from pdlint import cache
    monkeypatch.setattr(cache, "run", lambda *a, **k: 1 / 0)
    code = main(["good.yaml"])
    out = capsys.readouterr()
    assert code == 1 and "SGL104" in out.out and "the result cache failed (ZeroDivisionError" in out.err


def test_internal_error_rule_is_quiet_on_ordinary_files(repo, capsys):
    code, doc, by = scan(capsys, ".")
    assert not any(f["code"] in ("PD012", "PD013", "PD014") for f in doc["findings"])
