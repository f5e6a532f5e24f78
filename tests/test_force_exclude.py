"""Named-file filters (issue 8 item 6): ``exclude`` applies to files named on
the command line when ``--force-exclude`` (or the config's ``force-exclude``)
is on - what pre-commit does, since it names every staged file.  Modelled on
ruff's ``--force-exclude``."""

import textwrap

import pytest
import yaml

from pdlint.cli import main

BROKEN = textwrap.dedent("""\
    containers:
      - name: p
        image: lmsysorg/sglang:v0.5.23
        command: [python3, -m, sglang.launch_server]
        args: [--model-path, /m, --disaggregation-mode, prefill, --enable-linear-replayssm-spec]
    """)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "pd.yaml").write_text(BROKEN)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "pd.yaml").write_text(BROKEN)
    return tmp_path


def run(args, capsys):
    code = main(args)
    return code, capsys.readouterr().out


def test_named_excluded_file_is_checked_without_force_exclude(repo, capsys):
    (repo / ".pdlint.yaml").write_text("exclude: [vendor/**]\n")
    code, out = run(["vendor/pd.yaml"], capsys)
    assert code == 1 and "vendor/pd.yaml:5:" in out and "SGL101" in out
    code, out = run(["--no-force-exclude", "vendor/pd.yaml"], capsys)
    assert code == 1 and "SGL101" in out


def test_force_exclude_skips_a_named_excluded_file(repo, capsys):
    (repo / ".pdlint.yaml").write_text("exclude: [vendor/**]\n")
    code, out = run(["--force-exclude", "vendor/pd.yaml"], capsys)
    assert code == 0 and "SGL101" not in out and "in 0 files" in out
    # a file the patterns do not match is still checked
    code, out = run(["--force-exclude", "vendor/pd.yaml", "deploy/pd.yaml"], capsys)
    assert code == 1 and "deploy/pd.yaml:5:" in out and "vendor/" not in out


def test_force_exclude_from_the_config_and_the_flag_wins(repo, capsys):
    (repo / ".pdlint.yaml").write_text("exclude: [vendor/**]\nforce-exclude: true\n")
    assert run(["vendor/pd.yaml"], capsys)[0] == 0
    code, out = run(["--no-force-exclude", "vendor/pd.yaml"], capsys)
    assert code == 1 and "SGL101" in out
    (repo / ".pdlint.yaml").write_text("exclude: [vendor/**]\nforce-exclude: false\n")
    assert run(["--force-exclude", "vendor/pd.yaml"], capsys)[0] == 0


def test_force_exclude_applies_to_show_and_pyproject(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nexclude = ["vendor"]\nforce-exclude = true\n')
    code, out = run(["show", "vendor/pd.yaml", "deploy/pd.yaml"], capsys)
    assert code == 0 and "deploy/pd.yaml:4:" in out and "vendor/pd.yaml" not in out


def test_force_exclude_must_be_a_boolean(repo, capsys):
    (repo / ".pdlint.yaml").write_text("force-exclude: yes-please\n")
    assert main(["deploy/pd.yaml"]) == 1  # a PD012 finding at the config; the files it governs are not checked
    assert "force-exclude must be true or false" in capsys.readouterr().out


def test_the_hooks_force_exclude():
    """The manifest's entry (not its args: a user's `args:` replaces them) and
    the git hook pass --force-exclude."""
    from pathlib import Path
    repo = Path(__file__).resolve().parents[1]
    hook = yaml.safe_load((repo / ".pre-commit-hooks.yaml").read_text())[0]
    assert "--force-exclude" in hook["entry"].split()
    assert "--force-exclude" in (repo / "hooks" / "pre-commit").read_text()
