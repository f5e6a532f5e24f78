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


# -- a commit that only edits an input of a launch is checked through that launch ---------------

VALUES_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-{{ role }}
spec:
  template:
    spec:
      containers:
        - name: {{ role }}
          image: lmsysorg/sglang:v0.5.23
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "{{ model }}", "--tp-size", "{{ tp }}", "--disaggregation-mode", "{{ role }}",
                 "--disaggregation-transfer-backend", "{{ backend }}"]
"""
VALUES = "model: meta-llama/Llama-3.1-8B-Instruct\ntp: 2\nbackend: mooncake\n"

CONFIG_SCRIPT = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \\
    --disaggregation-mode prefill --config cfg/prefill.yaml
"""


def _commit_baseline(repo: Path, env: dict) -> None:
    git(repo, "add", ".", env=env)
    git(repo, "commit", "-q", "-m", "baseline", env=env)


def _staged_only(repo: Path, env: dict, rel: str, text: str) -> subprocess.CompletedProcess:
    write(repo, rel, text)
    git(repo, "add", rel, env=env)
    staged = git(repo, "diff", "--cached", "--name-only", env=env).stdout.split()
    assert staged == [rel], staged
    return run_hook(repo, env)


def test_try_repo_blocks_a_commit_that_only_breaks_a_values_file(target):
    repo, env = target
    write(repo, ".pdlint.yaml", "values: [deploy/values.yaml]\n")
    write(repo, "deploy/values.yaml", VALUES)
    write(repo, "deploy/pd.yaml.j2", VALUES_TEMPLATE)
    _commit_baseline(repo, env)
    r = _staged_only(repo, env, "deploy/values.yaml", VALUES.replace("mooncake", "moonkake"))
    assert r.returncode == 1, r.stdout
    assert "deploy/values.yaml:3:10: SGL004" in r.stdout and "moonkake" in r.stdout, r.stdout
    r = _staged_only(repo, env, "deploy/values.yaml", VALUES.replace("tp: 2", "tp: 4"))
    assert r.returncode == 0 and passed(r.stdout), r.stdout


def test_try_repo_blocks_a_commit_that_only_breaks_a_config_file(target):
    repo, env = target
    write(repo, "scripts/run.sh", CONFIG_SCRIPT)
    write(repo, "scripts/cfg/prefill.yaml", "tp-size: 2\n")
    _commit_baseline(repo, env)
    r = _staged_only(repo, env, "scripts/cfg/prefill.yaml",
                     "tp-size: 2\ndisaggregation-transfer-backend: moonkake\n")
    assert r.returncode == 1, r.stdout
    assert "scripts/cfg/prefill.yaml:2:34: SGL004" in r.stdout, r.stdout


def test_try_repo_blocks_a_commit_that_only_breaks_an_include_partial(target):
    from test_precommit_e2e import INCLUDER, PARTIAL_BROKEN, PARTIAL_CLEAN
    repo, env = target
    write(repo, "deploy/pd.yaml.j2", INCLUDER)
    write(repo, "deploy/partials/shared-flags.j2", PARTIAL_CLEAN)
    _commit_baseline(repo, env)
    r = _staged_only(repo, env, "deploy/partials/shared-flags.j2", PARTIAL_BROKEN)
    assert r.returncode == 1, r.stdout
    assert "deploy/partials/shared-flags.j2:3:" in r.stdout and "SGL101" in r.stdout, r.stdout


def test_git_hook_blocks_a_commit_that_only_breaks_a_values_file(tmp_path):
    needs_git()
    needs_pdlint()
    env = base_env(tmp_path)
    repo = new_repo(tmp_path, env)
    git(repo, "config", "core.hooksPath", str(HOOKS), env=env)
    write(repo, ".pdlint.yaml", "values: [deploy/values.yaml]\n")
    write(repo, "deploy/values.yaml", VALUES)
    write(repo, "deploy/pd.yaml.j2", VALUES_TEMPLATE)
    git(repo, "add", ".", env=env)
    assert commit(repo, env).returncode == 0
    write(repo, "deploy/values.yaml", VALUES.replace("mooncake", "moonkake"))
    git(repo, "add", "deploy/values.yaml", env=env)
    r = commit(repo, env)
    assert r.returncode != 0 and "deploy/values.yaml:3:10: SGL004" in r.stdout, r.stdout
