"""The hook gates what it should (issue 8 items 4 and 6), through the real
pre-commit framework (``pre-commit try-repo``, offline, from the wheelhouse)
and the plain git hook: ``exclude`` applies to staged files, and a commit that
only edits an input of a launch (a values file, a ``--config`` file, an
include partial) is checked through the launches that read it.

The helpers (hermetic git, the offline try-repo environment) are those of
``test_precommit_e2e.py``."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from test_precommit_e2e import (BIN, BROKEN, CLEAN, HOOKS, REPO, base_env, commit, git, head, needs_git, needs_pdlint,
                                new_repo, try_repo_env, write)

pytestmark = pytest.mark.e2e


def run_hook(target: Path, env: dict, *files: str) -> subprocess.CompletedProcess:
    """``pre-commit try-repo`` on the staged files (or the named ones)."""
    exe = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed")
    args = [exe, "try-repo", str(REPO), "pdlint", "--color", "never"]
    if files:
        args += ["--files", *files]
    return subprocess.run(args, cwd=target, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)


@pytest.fixture
def target(tmp_path):
    needs_git()
    r = subprocess.run(["git", "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        pytest.skip(f"{REPO} does not track .pre-commit-hooks.yaml")
    env = try_repo_env(tmp_path)
    return new_repo(tmp_path, env, "target"), env


def passed(out: str) -> bool:
    return re.search(r"pdlint \(prefill/decode launch templates\)\.+Passed", out) is not None


def test_try_repo_excluded_staged_file_passes(target):
    repo, env = target
    write(repo, ".pdlint.yaml", "exclude: [vendor/**]\n")
    write(repo, "vendor/pd.yaml.j2", BROKEN)
    write(repo, "deploy/pd.yaml.j2", CLEAN)
    git(repo, "add", ".", env=env)
    r = run_hook(repo, env)
    assert r.returncode == 0 and passed(r.stdout), r.stdout
    write(repo, "deploy/pd.yaml.j2", BROKEN)
    git(repo, "add", ".", env=env)
    r = run_hook(repo, env)
    assert r.returncode == 1 and "deploy/pd.yaml.j2:" in r.stdout and "vendor/" not in r.stdout, r.stdout


def test_git_hook_excluded_staged_file_passes(tmp_path):
    needs_git()
    needs_pdlint()
    env = base_env(tmp_path)
    repo = new_repo(tmp_path, env)
    git(repo, "config", "core.hooksPath", str(HOOKS), env=env)
    write(repo, ".pdlint.yaml", "exclude: [vendor/**]\n")
    write(repo, "vendor/pd.yaml.j2", BROKEN)
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode == 0 and head(repo, env), r.stdout
    write(repo, "vendor/pd.yaml.j2", BROKEN + "# again\n")
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "x", env={**env, "PDLINT_ARGS": "--no-force-exclude"}, check=False)
    assert r.returncode != 0 and "SGL101" in r.stdout, r.stdout
