"""Fixtures shared by test directories."""

import importlib.util
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script(name: str):
    """``scripts/<name>.py`` loaded as a module (a maintainer script, not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def conformance_harness():
    """``scripts/sglang_conformance.py`` loaded as a module."""
    return _script("sglang_conformance")


@pytest.fixture(scope="session")
def incident_harness():
    """``scripts/replay_incidents.py`` loaded as a module."""
    return _script("replay_incidents")


@pytest.fixture(autouse=True)
def _fresh_result_cache(tmp_path_factory, monkeypatch):
    """Every test starts with an empty result cache of its own (pdlint.cache): results never
    leak from one test into another (tests monkeypatch pdlint), nothing is written into the
    checkout, and every run still goes through the cache's cold path."""
    monkeypatch.setenv("PDLINT_CACHE_DIR", str(tmp_path_factory.mktemp("pdlint-cache")))


class Scratch:
    """A scratch repository the test runs pdlint in (the working directory): ``write`` puts a dedented
    file there, ``lint`` runs ``pdlint --format json --no-cache`` and returns (exit code, report)."""

    def __init__(self, root, capsys):
        self.root = root
        self._capsys = capsys

    def write(self, rel: str, text: str):
        import textwrap
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
        return p

    def lint(self, *args) -> tuple:
        return lint_json(self._capsys, *args)


def lint_json(capsys, *args) -> tuple:
    import json
    from pdlint.cli import main
    code = main(["--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


@pytest.fixture
def lint(capsys):
    """``lint(*args)``: ``pdlint --format json --no-cache ARGS`` -> (exit code, report)."""
    return lambda *args: lint_json(capsys, *args)


@pytest.fixture
def scratch(tmp_path, monkeypatch, capsys):
    """A :class:`Scratch` repository (a ``.git`` directory marks its root)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / ".git").mkdir()
    return Scratch(tmp_path, capsys)


@pytest.fixture
def scratch_dir(scratch):
    """The :class:`Scratch` repository's directory (a path), for tests that write files themselves."""
    return scratch.root


@pytest.fixture
def scratch_git(tmp_path, monkeypatch, capsys):
    """A :class:`Scratch` repository that is a real git work tree (what the hook's expansion needs)."""
    import subprocess
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return Scratch(tmp_path, capsys)


@pytest.fixture
def shell_eval():
    """``shell_eval(script, **ShellContext options)`` -> (the ShellCommands pdlint's shell front-end finds in
    ``script``, the context: its ``heredocs`` when a ``heredoc_filter`` is given)."""
    from pdlint.formats.shell import ShellContext, shell_commands
    from pdlint.text import SourceFile, TStr

    def run(script: str, **options):
        ctx = ShellContext(lambda p, c: None, lambda *a: None, **options)
        return shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx), ctx
    return run
