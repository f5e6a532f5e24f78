"""End-to-end tests of pdlint as a commit gate: the pre-commit hook manifest
(the real ``pre-commit try-repo``, offline), the git hook ``hooks/pre-commit``
and the CI script ``hooks/ci-scan``.

Everything runs in temporary git repositories.  The pre-commit test installs
pdlint into a fresh hook venv from a local wheelhouse (``PDLINT_WHEELHOUSE``,
default ``<repo>/wheelhouse``, filled by ``scripts/build_wheelhouse.sh``) with
``PIP_NO_INDEX=1`` and no pip configuration, and skips when there is none.  The
git-hook and CI-script tests use the pdlint installed next to
``sys.executable``.  ``try-repo`` installs what this checkout has committed
(plus staged and modified tracked files), not untracked files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "hooks"
MANIFEST = REPO / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent

# One template rendered per role; the flag list shared by both roles carries a
# flag SGLang rejects on a prefill server (SGL101).
BROKEN = """\
{#- One template, rendered once per role: role=prefill and role=decode. -#}
{% set shared_flags = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2",
                       "--enable-linear-replayssm-spec"] %}
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
          args:
{% for flag in shared_flags %}
            - "{{ flag }}"
{% endfor %}
            - "--disaggregation-mode"
            - "{{ role }}"
"""

# The same launch with the flag scoped to the decode role: SGLang accepts both.
CLEAN = """\
{#- One template, rendered once per role: role=prefill and role=decode. -#}
{% set shared_flags = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2"] %}
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
          args:
{% for flag in shared_flags %}
            - "{{ flag }}"
{% endfor %}
            - "--disaggregation-mode"
            - "{{ role }}"
{% if role == "decode" %}
            - "--enable-linear-replayssm-spec"
{% endif %}
"""

# A launch split over two files: the template includes a partial holding the
# flag list of both roles.
INCLUDER = """\
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
          args:
{% include "partials/shared-flags.j2" %}
            - "--disaggregation-mode"
            - "{{ role }}"
"""
PARTIAL_CLEAN = """\
            - "--model-path"
            - "meta-llama/Llama-3.1-8B-Instruct"
"""
PARTIAL_BROKEN = PARTIAL_CLEAN + """\
            - "--enable-linear-replayssm-spec"
"""

BROKEN_SCRIPT = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \\
    --disaggregation-mode prefill --enable-linear-replayssm-spec
"""


# -- helpers ---------------------------------------------------------------------


def base_env(tmp_path: Path, **extra: str) -> dict:
    """The environment of a hermetic git run: no GIT_* from outside (pytest
    may itself run inside a git hook), no global or system git config, a
    private TMPDIR, pdlint and pre-commit of this environment first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    tmp = tmp_path / "tmpdir"
    tmp.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1",
               TMPDIR=str(tmp), PATH=str(BIN) + os.pathsep + env.get("PATH", os.defpath), NO_COLOR="1")
    env.pop("SKIP", None)
    env.pop("PDLINT", None)
    env.pop("PDLINT_ARGS", None)
    env.update(extra)
    return env


GIT_IDENTITY = ["-c", "user.name=pdlint tests", "-c", "user.email=pdlint-tests@example.invalid",
                "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


def git(repo: Path, *args: str, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, env=env, check=check,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)


def new_repo(tmp_path: Path, env: dict, name: str = "repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q", env=env)
    return repo


def write(repo: Path, rel: str, text: str) -> Path:
    p = repo / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def needs_git():
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


def needs_pdlint() -> str:
    exe = shutil.which("pdlint", path=str(BIN))
    if exe is None:
        pytest.skip(f"pdlint is not installed next to {sys.executable}")
    return exe


# -- (b) the manifest -------------------------------------------------------------


def manifest_hook() -> dict:
    hooks = yaml.safe_load(MANIFEST.read_text())
    assert isinstance(hooks, list) and len(hooks) == 1
    return hooks[0]


def test_manifest_validates():
    exe = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed")
    r = subprocess.run([exe, "validate-manifest", str(MANIFEST)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    assert r.returncode == 0, r.stdout


def test_manifest_fields():
    hook = manifest_hook()
    assert hook["id"] == "pdlint"
    assert hook["language"] == "python"
    assert hook["entry"].split()[0] == "pdlint"
    assert hook["require_serial"] is True
    assert set(hook["types_or"]) >= {"yaml", "jinja", "shell", "text"}
    assert tuple(int(x) for x in hook["minimum_pre_commit_version"].split(".")) >= (2, 9, 0)
    assert "require_serial" in MANIFEST.read_text().split("- id:")[0], "the manifest explains require_serial"


SELECTED = ["a.yaml", "k8s/b.yml", "deploy/pd.yaml.j2", "run/serve.sh.j2", "t.jinja", "t.jinja2", "x.j2",
            "charts/x/templates/_helpers.tpl", "launch.sh", "launch.bash", "Justfile", "justfile",
            "sub/dir/.justfile", "UPPER.YAML", "dir with space/p d.yaml",
            # text kinds whose launch text pdlint reports as unchecked (PD020)
            "Makefile", "a.json", "pyproject.toml", "script.py", "rules.mk", "docker/Dockerfile.gpu", "deploy.yaml.tmpl",
            "notebooks/serve.ipynb", "infra/main.tf", "prod.tfvars", "job.nomad.hcl", "pd.nomad", "sglang.service",
            "k8s.jsonnet", "lib.libsonnet", "pd.cue", "module.nix", "run.ps1", "run.bat", "run.cmd", "ci.groovy",
            "Jenkinsfile", "Tiltfile", "job.slurm", "job.sbatch", "job.pbs", "job.qsub", "job.lsf", "job.bsub",
            "serve.zsh", "serve.ksh", "run.job", "serve.run", "train.sub", "helmfile.d/values.yaml.gotmpl",
            # copies to fill in, read as the file they copy
            "docker-compose.yml.example", "start_model.sh.example", "values.yaml.sample", "pd.yaml.j2.dist"]
NOT_SELECTED = ["README.md", "LICENSE", "CODEOWNERS", "yaml", "x.yaml.bak", "docs/guide.rst", "README.md.example",
                "myjustfile", "Justfile.bak", "sub/launch", "script.pyc"]


def test_manifest_files_regex_selects_every_kind_a_directory_scan_reads_or_reports():
    from pdlint import discover
    files = manifest_hook()["files"]
    for ext in discover.YAML_EXT + discover.JINJA_EXT + discover.SHELL_EXT + discover.SNIFF_SHELL_EXT + discover.OTHER_TEXT_EXT + (
            ".tpl", ".mk", ".dockerfile", ".containerfile"):
        assert re.search(files, "dir/x" + ext), ext
    for name in ("Makefile", "GNUmakefile", "Dockerfile", "Dockerfile.gpu", "Containerfile", "Containerfile.arm",
                 "Procfile", "Jenkinsfile", "Tiltfile"):
        kind = discover.kind_of(name)
        assert (kind in ("makefile", "dockerfile") or discover.OTHER_TEXT_NAMES.fullmatch(name)) and \
            re.search(files, "dir/" + name), name


@pytest.mark.parametrize("path", SELECTED)
def test_manifest_files_regex_selects(path):
    assert re.search(manifest_hook()["files"], path), path


@pytest.mark.parametrize("path", NOT_SELECTED)
def test_manifest_files_regex_skips(path):
    assert not re.search(manifest_hook()["files"], path), path


def test_documented_files_override_reaches_extensionless_scripts_and_pdlint_skips_other_files(tmp_path,
                                                                                                 monkeypatch):
    """docs/pre-commit.md's opt-in `files` override passes every extensionless
    file; pdlint then checks those with a shell shebang and skips the rest."""
    from pdlint.cli import main

    doc = (REPO / "docs" / "pre-commit.md").read_text()
    m = re.search(r"^ +files: (\(\?i\).*\[\^/\.\]\+\).*\$)$", doc, re.M)
    assert m, "the override in docs/pre-commit.md"
    override = m.group(1)
    for path in SELECTED + ["bin/serve-prefill", "Makefile", "Procfile", "LICENSE"]:
        assert re.search(override, path), path
    for path in ["README.md", "x.yaml.bak", "script.pyc", ".gitignore"]:
        assert not re.search(override, path), path
    monkeypatch.chdir(tmp_path)
    (tmp_path / "LICENSE").write_text("* not yaml: [\n")
    # (a Procfile is a kind pdlint does not read: its launch text is PD020, a warning)
    (tmp_path / "Procfile").write_text("web: python -m sglang.launch_server --disaggregation-mode prefill "
                                       "--enable-linear-replayssm-spec\n")
    (tmp_path / "CODEOWNERS").write_text("key: value\n")
    assert main(["check", "LICENSE", "Procfile", "CODEOWNERS"]) == 0
    (tmp_path / "serve-prefill").write_text(BROKEN_SCRIPT)
    assert main(["check", "LICENSE", "Procfile", "CODEOWNERS", "serve-prefill"]) == 1


def test_git_hook_uses_the_manifest_pattern():
    """hooks/pre-commit selects the same names as the manifest (bash =~, with
    nocasematch, stands for the manifest's (?i))."""
    m = re.search(r"^PATTERN='([^']*)'$", (HOOKS / "pre-commit").read_text(), re.M)
    assert m, "PATTERN= line in hooks/pre-commit"
    assert "(?i)" + m.group(1) == manifest_hook()["files"]


@pytest.mark.parametrize("script", ["hooks/pre-commit", "hooks/ci-scan", "scripts/build_wheelhouse.sh"])
def test_scripts_are_executable_and_shellcheck_clean(script):
    path = REPO / script
    assert os.access(path, os.X_OK), f"{script} is not executable"
    if shutil.which("git"):
        r = subprocess.run(["git", "ls-files", "-s", "--", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
        if r.returncode == 0 and r.stdout:
            assert r.stdout.startswith("100755 "), f"{script} is not committed as 100755: {r.stdout}"
    if shutil.which("shellcheck") is None:
        return  # shellcheck is optional here
    r = subprocess.run(["shellcheck", str(path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0, r.stdout


# -- (a) the real pre-commit try-repo, offline -------------------------------------


def wheelhouse() -> Path:
    wh = Path(os.environ.get("PDLINT_WHEELHOUSE") or REPO / "wheelhouse")
    if not wh.is_dir() or not any(wh.glob("*.whl")):
        pytest.skip(f"no wheelhouse at {wh} (fill it with `bash scripts/build_wheelhouse.sh {wh}` while "
                    "the package registry is reachable, or point PDLINT_WHEELHOUSE at one)")
    return wh


def try_repo_env(tmp_path: Path) -> dict:
    env = base_env(tmp_path)
    for k in list(env):
        if k.startswith("PIP_") or k.startswith("VIRTUALENV_"):
            del env[k]
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheelhouse()),
        PIP_CONFIG_FILE=os.devnull,  # no index, find-links or constraints from the machine's pip config
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
        PRE_COMMIT_COLOR="never",
    )
    return env


def try_repo(target: Path, env: dict) -> subprocess.CompletedProcess:
    exe = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed")
    return subprocess.run([exe, "try-repo", str(REPO), "pdlint", "--all-files", "--color", "never"],
                          cwd=target, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)


@pytest.fixture
def hook_repo_ready():
    needs_git()
    r = subprocess.run(["git", "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        pytest.skip(f"{REPO} does not track .pre-commit-hooks.yaml (try-repo uses the committed hook repository)")


def test_try_repo_broken_template_fails(tmp_path, hook_repo_ready):
    env = try_repo_env(tmp_path)
    target = new_repo(tmp_path, env, "target")
    write(target, "deploy/pd.yaml.j2", BROKEN)
    write(target, "README.md", "not a launch file\n")
    git(target, "add", ".", env=env)
    r = try_repo(target, env)
    assert r.returncode == 1, r.stdout
    assert "Failed" in r.stdout and "hook id: pdlint" in r.stdout, r.stdout
    assert "deploy/pd.yaml.j2:" in r.stdout and "SGL101" in r.stdout, r.stdout
    assert "--enable-linear-replayssm-spec is not supported on a PD prefill server" in r.stdout


def test_try_repo_clean_template_passes(tmp_path, hook_repo_ready):
    env = try_repo_env(tmp_path)
    target = new_repo(tmp_path, env, "target")
    write(target, "deploy/pd.yaml.j2", CLEAN)
    git(target, "add", ".", env=env)
    git(target, "commit", "-q", "-m", "clean", env=env)
    r = try_repo(target, env)
    assert r.returncode == 0, r.stdout
    assert re.search(r"pdlint \(prefill/decode launch templates\)\.+Passed", r.stdout), r.stdout


# The broken template with the shared flag list suppressed inline at its origin.
SUPPRESSED = BROKEN.replace("{% set shared_flags", "{# pdlint: ignore[SGL101] the operator drops it for prefill #}\n"
                            "{% set shared_flags", 1)


def test_try_repo_inline_suppression_passes(tmp_path, hook_repo_ready):
    env = try_repo_env(tmp_path)
    target = new_repo(tmp_path, env, "target")
    write(target, "deploy/pd.yaml.j2", SUPPRESSED)
    git(target, "add", ".", env=env)
    r = try_repo(target, env)
    assert r.returncode == 0, r.stdout
    assert re.search(r"pdlint \(prefill/decode launch templates\)\.+Passed", r.stdout), r.stdout


def shadow_hook_repo(tmp_path: Path, env: dict) -> tuple:
    """A clone of this checkout with its modified tracked files committed (what ``try-repo`` installs), as a
    hook repository a ``.pre-commit-config.yaml`` can name with a ``rev`` and ``args``."""
    shadow = tmp_path / "hook-repo"
    git(tmp_path, "clone", "-q", "--no-hardlinks", str(REPO), str(shadow), env=env)
    diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=REPO, stdout=subprocess.PIPE, check=True).stdout
    if diff.strip():
        subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=shadow, input=diff, check=True, env=env)
        git(shadow, "add", "-A", env=env)
        git(shadow, "commit", "-q", "-m", "working tree", env=env)
    return shadow, git(shadow, "rev-parse", "HEAD", env=env).stdout.strip()


def pre_commit_setup(tmp_path: Path) -> tuple:
    """(env, the pre-commit program, a hook repository of this checkout and its rev, an empty target repository)."""
    env = try_repo_env(tmp_path)
    exe = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed")
    shadow, rev = shadow_hook_repo(tmp_path, env)
    return env, exe, shadow, rev, new_repo(tmp_path, env, "target")


def pre_commit_run(exe: str, target: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([exe, "run", "--all-files", "--color", "never"], cwd=target, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)


def test_pre_commit_with_fix_args_fixes_and_fails_then_passes(tmp_path, hook_repo_ready):
    """pre-commit users add `args: [--fix]`: the hook fixes the shared anchor in the working tree, pre-commit
    fails the run because files were modified; the next run passes on the fixed files."""
    env, exe, shadow, rev, target = pre_commit_setup(tmp_path)
    broken = (REPO / "fixtures" / "k8s" / "shared-anchor.yaml").read_text()
    write(target, "k8s/pd.yaml", broken)
    write(target, ".pre-commit-config.yaml",
          f"repos:\n  - repo: {shadow}\n    rev: {rev}\n    hooks:\n      - id: pdlint\n        args: [--fix]\n")
    git(target, "add", ".", env=env)
    r = pre_commit_run(exe, target, env)
    assert r.returncode == 1, r.stdout
    assert "files were modified by this hook" in r.stdout, r.stdout
    assert "Fixed 1 finding (0 remaining)." in r.stdout, r.stdout
    fixed = (target / "k8s" / "pd.yaml").read_text()
    assert "  - --enable-linear-replayssm-spec" not in fixed
    assert '"30001", --enable-linear-replayssm-spec]' in fixed
    git(target, "add", ".", env=env)
    r = pre_commit_run(exe, target, env)
    assert r.returncode == 0, r.stdout
    assert (target / "k8s" / "pd.yaml").read_text() == fixed


def test_pre_commit_with_baseline_args_gates_only_new_findings(tmp_path, hook_repo_ready):
    """`args: [--baseline, .pdlint-baseline.json]`: a repository with a baselined finding passes; a new
    finding fails with only the new one reported.  The hook venv holds the runtime dependencies only."""
    env, exe, shadow, rev, target = pre_commit_setup(tmp_path)
    write(target, "deploy/pd.yaml.j2", BROKEN)
    write(target, ".pre-commit-config.yaml",
          f"repos:\n  - repo: {shadow}\n    rev: {rev}\n    hooks:\n      - id: pdlint\n"
          f"        args: [--baseline, .pdlint-baseline.json]\n")
    r = subprocess.run([str(BIN / "pdlint"), "--write-baseline", ".pdlint-baseline.json", "."], cwd=target,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0 and "Wrote 1 finding" in r.stdout, r.stdout
    git(target, "add", ".", env=env)
    r = pre_commit_run(exe, target, env)
    assert r.returncode == 0, r.stdout
    assert "1 finding in the baseline (.pdlint-baseline.json) not reported." in r.stdout or "Passed" in r.stdout
    write(target, "deploy/other.yaml.j2", BROKEN)
    git(target, "add", ".", env=env)
    r = pre_commit_run(exe, target, env)
    assert r.returncode == 1, r.stdout
    assert "deploy/other.yaml.j2:" in r.stdout and "deploy/pd.yaml.j2:" not in r.stdout, r.stdout
    # the hook's environment: pdlint's runtime dependencies, not pre-commit (a test dependency)
    envs = list((tmp_path / "pre-commit-home").glob("repo*/py_env-*"))
    assert len(envs) == 1, envs
    listed = subprocess.run([str(next(envs[0].glob("bin/python"))), "-m", "pip", "list", "--format", "json"],
                            env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    names = {p["name"].lower().replace("_", "-") for p in json.loads(listed)}
    assert "pdlint" in names and "jinja2" in names and "pre-commit" not in names, sorted(names)


def _readme_local_hook() -> str:
    """The `repo: local` block the README documents."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"```yaml\n(repos:\n  - repo: local\n.*?)```", text, re.S)
    assert m, "README: no `repo: local` example"
    return m.group(1)


def test_readme_local_hook_matches_the_manifest():
    local = yaml.safe_load(_readme_local_hook())["repos"][0]["hooks"][0]
    hook = yaml.safe_load(MANIFEST.read_text())[0]
    for key in ("id", "entry", "language", "files", "types_or", "require_serial"):
        assert local[key] == hook[key], key


def test_readme_local_hook_runs_from_a_local_path(tmp_path, hook_repo_ready):
    """The README's `repo: local` + `language: python` hook, pointed at a checkout of pdlint."""
    env, exe, shadow, _, target = pre_commit_setup(tmp_path)
    write(target, "deploy/pd.yaml.j2", BROKEN)
    write(target, ".pre-commit-config.yaml", _readme_local_hook().replace("/path/to/pdlint", str(shadow)))
    git(target, "add", ".", env=env)
    r = pre_commit_run(exe, target, env)
    assert r.returncode == 1, r.stdout
    assert "deploy/pd.yaml.j2:" in r.stdout and "SGL101" in r.stdout, r.stdout


# -- (c) the git hook ---------------------------------------------------------------


@pytest.fixture
def hooked(tmp_path):
    """A repository whose hooks are this checkout's hooks/ (core.hooksPath)."""
    needs_git()
    needs_pdlint()
    env = base_env(tmp_path)
    repo = new_repo(tmp_path, env)
    git(repo, "config", "core.hooksPath", str(HOOKS), env=env)
    return repo, env


def commit(repo: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return git(repo, "commit", "-q", "-m", "change", *args, env=env, check=False)


def head(repo: Path, env: dict):
    r = git(repo, "rev-parse", "-q", "--verify", "HEAD", env=env, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def no_snapshot_left(env: dict) -> bool:
    return not any(p.name.startswith("pdlint-hook.") for p in Path(env["TMPDIR"]).iterdir())


def test_hook_blocks_broken_staged_file(hooked):
    repo, env = hooked
    write(repo, "deploy dir/pd.yaml.j2", BROKEN)  # a space in the path: the hook reads -z lists
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode != 0, r.stdout
    assert "deploy dir/pd.yaml.j2:3:" in r.stdout and "SGL101" in r.stdout, r.stdout
    assert "commit blocked" in r.stdout
    assert head(repo, env) is None
    assert no_snapshot_left(env)


def test_hook_passes_clean_staged_file(hooked):
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", CLEAN)
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode == 0, r.stdout
    assert head(repo, env) is not None
    assert no_snapshot_left(env)


def test_hook_ignores_unstaged_edits(hooked):
    """A broken working-tree edit that is not staged neither blocks the commit
    nor gets touched by the hook."""
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", CLEAN)
    git(repo, "add", ".", env=env)
    assert commit(repo, env).returncode == 0
    tpl = write(repo, "deploy/pd.yaml.j2", BROKEN)  # unstaged
    write(repo, "deploy/other.yaml", "kind: ConfigMap\n")
    git(repo, "add", "deploy/other.yaml", env=env)
    before = tpl.stat().st_mtime_ns
    r = commit(repo, env)
    assert r.returncode == 0, r.stdout
    assert "SGL101" not in r.stdout
    assert tpl.read_text() == BROKEN and tpl.stat().st_mtime_ns == before
    status = git(repo, "status", "--porcelain", env=env).stdout
    assert status.strip() == "M deploy/pd.yaml.j2", status


def test_hook_checks_staged_content_not_worktree(hooked):
    """Broken content staged, fixed only in the working tree: the commit is
    blocked (the staged version is what would be committed), and the fixed
    working-tree file is left as it is."""
    repo, env = hooked
    tpl = write(repo, "deploy/pd.yaml.j2", BROKEN)
    git(repo, "add", ".", env=env)
    tpl.write_text(CLEAN)  # unstaged fix
    r = commit(repo, env)
    assert r.returncode != 0 and "SGL101" in r.stdout, r.stdout
    assert tpl.read_text() == CLEAN
    assert git(repo, "diff", "--cached", "--name-only", env=env).stdout.split() == ["deploy/pd.yaml.j2"]
    assert git(repo, "diff", "--name-only", env=env).stdout.split() == ["deploy/pd.yaml.j2"]


def test_hook_commit_all_checks_the_temporary_index(hooked):
    """`git commit -a` commits through a temporary index (GIT_INDEX_FILE)."""
    repo, env = hooked
    tpl = write(repo, "deploy/pd.yaml.j2", CLEAN)
    git(repo, "add", ".", env=env)
    assert commit(repo, env).returncode == 0
    tpl.write_text(BROKEN)
    r = commit(repo, env, "-a")
    assert r.returncode != 0 and "SGL101" in r.stdout, r.stdout
    tpl.write_text(CLEAN.replace('"2"', '"4"'))
    r = commit(repo, env, "-a")
    assert r.returncode == 0, r.stdout


def test_hook_expands_a_staged_partial_to_its_launch_unit(hooked):
    """Only the included partial is staged; the launch that includes it is
    rendered from the snapshot and the finding points into the partial."""
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", INCLUDER)
    partial = write(repo, "deploy/partials/shared-flags.j2", PARTIAL_CLEAN)
    git(repo, "add", ".", env=env)
    assert commit(repo, env).returncode == 0
    partial.write_text(PARTIAL_BROKEN)
    git(repo, "add", "deploy/partials/shared-flags.j2", env=env)
    r = commit(repo, env)
    assert r.returncode != 0, r.stdout
    assert "deploy/partials/shared-flags.j2:3:" in r.stdout and "SGL101" in r.stdout, r.stdout
    assert "deploy/pd.yaml.j2" in r.stdout  # the including launch is named as related


def test_hook_honours_inline_suppressions(hooked):
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", SUPPRESSED)
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode == 0, r.stdout
    assert "SGL101" not in r.stdout


def test_hook_matching_snapshot_mode(hooked):
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", INCLUDER)
    write(repo, "deploy/partials/shared-flags.j2", PARTIAL_BROKEN)
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "x", env={**env, "PDLINT_HOOK_SNAPSHOT": "matching"}, check=False)
    assert r.returncode != 0 and "SGL101" in r.stdout, r.stdout


def test_hook_sniffs_extensionless_shell_scripts(hooked):
    import importlib.util
    if importlib.util.find_spec("pdlint.formats.shell") is None:
        pytest.skip("this pdlint has no shell front-end (pdlint.formats.shell)")
    repo, env = hooked
    script = write(repo, "bin/serve-prefill", BROKEN_SCRIPT)
    script.chmod(0o755)
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode != 0, r.stdout
    assert "bin/serve-prefill:3:" in r.stdout and "SGL101" in r.stdout, r.stdout


def test_hook_checks_extensionless_launch_scripts_without_a_shebang(hooked):
    """A staged extensionless script with no shebang (hhhh1252023/pass ``tong/102sh``: `export` lines and a
    launch) is checked when its content names an engine, as a directory scan reads it."""
    import importlib.util
    if importlib.util.find_spec("pdlint.formats.shell") is None:
        pytest.skip("this pdlint has no shell front-end (pdlint.formats.shell)")
    repo, env = hooked
    write(repo, "tong/102sh", "export NCCL_DEBUG=INFO\n" + BROKEN_SCRIPT.split("\n", 1)[1])
    git(repo, "add", ".", env=env)
    r = commit(repo, env)
    assert r.returncode != 0, r.stdout
    assert "tong/102sh:3:" in r.stdout and "SGL101" in r.stdout, r.stdout


def test_hook_leaves_extensionless_docs_and_files_without_engine_words(hooked):
    """An extensionless README with a launch line is documentation (a directory scan leaves it too), and an
    extensionless file that names no engine never starts pdlint (PDLINT points at a missing command)."""
    repo, env = hooked
    write(repo, "README", "Run:\n" + BROKEN_SCRIPT.split("\n", 1)[1])
    write(repo, "notes", "prefill and decode run on two nodes\n")
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "docs", env={**env, "PDLINT": "pdlint-not-installed"}, check=False)
    assert r.returncode == 0, r.stdout


def test_hook_does_not_run_without_launch_files(hooked):
    """Commits that touch no launch file never start pdlint (PDLINT points at
    a command that does not exist)."""
    repo, env = hooked
    write(repo, "README.md", "# docs\n")
    write(repo, "LICENSE", "* not yaml: [\n")
    write(repo, "tool", "#!/usr/bin/env python3\nprint('decode')\n")
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "docs", env={**env, "PDLINT": "pdlint-not-installed"}, check=False)
    assert r.returncode == 0, r.stdout


def test_hook_reports_missing_pdlint(hooked):
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", CLEAN)
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "x", env={**env, "PDLINT": "pdlint-not-installed"}, check=False)
    assert r.returncode != 0
    assert "'pdlint-not-installed' is not installed or not on PATH" in r.stdout, r.stdout
    assert head(repo, env) is None


def test_hook_skip_and_extra_args(hooked):
    repo, env = hooked
    write(repo, "deploy/pd.yaml.j2", BROKEN)
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "x", env={**env, "PDLINT_ARGS": "--exit-zero"}, check=False)
    assert r.returncode == 0 and "SGL101" in r.stdout, r.stdout
    write(repo, "deploy/pd.yaml.j2", BROKEN + "# again\n")
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "y", env={**env, "SKIP": "other,pdlint"}, check=False)
    assert r.returncode == 0 and "skipped" in r.stdout, r.stdout


def test_hook_ignores_fix_in_pdlint_args(hooked):
    """The git hook checks a snapshot of the index: --fix there would pass a commit whose staged files are
    still broken, so the hook drops it (with a note) and blocks as usual; the work tree is untouched."""
    repo, env = hooked
    p = write(repo, "deploy/pd.yaml.j2", BROKEN)
    git(repo, "add", ".", env=env)
    r = git(repo, "commit", "-q", "-m", "x", env={**env, "PDLINT_ARGS": "--fix --strict"}, check=False)
    assert r.returncode != 0 and "SGL101" in r.stdout, r.stdout
    assert "--fix ignored in the git hook" in r.stdout, r.stdout
    assert p.read_text() == BROKEN
    assert head(repo, env) is None


# -- (d) the CI script ---------------------------------------------------------------


def ci_scan(repo_dir, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([str(HOOKS / "ci-scan"), *([str(repo_dir)] if repo_dir is not None else [])],
                          cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)


def test_ci_scan(tmp_path):
    needs_git()
    needs_pdlint()
    env = base_env(tmp_path)
    broken = new_repo(tmp_path, env, "broken")
    write(broken, "deploy/pd.yaml.j2", BROKEN)
    write(broken, "deploy/ok.yaml.j2", CLEAN)
    write(broken, "build/ignored.yaml.j2", BROKEN)
    write(broken, ".gitignore", "build/\n")
    clean = new_repo(tmp_path, env, "clean")
    write(clean, "deploy/pd.yaml.j2", CLEAN)

    r = ci_scan(broken, {**env, "PDLINT_REPORT": "reports/pdlint.json"}, cwd=tmp_path)
    assert r.returncode == 1, r.stdout
    assert "deploy/pd.yaml.j2:3:" in r.stdout and "SGL101" in r.stdout, r.stdout
    assert "build/ignored.yaml.j2" not in r.stdout
    report = json.loads((tmp_path / "reports/pdlint.json").read_text())
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("deploy/pd.yaml.j2", "SGL101")]
    assert report["files"] == 2

    r = ci_scan(None, {**env, "PDLINT_REPORT": str(tmp_path / "clean.json")}, cwd=clean)
    assert r.returncode == 0, r.stdout
    assert json.loads((tmp_path / "clean.json").read_text())["findings"] == []
    r = ci_scan(clean, env, cwd=tmp_path)  # no PDLINT_REPORT: text only
    assert r.returncode == 0 and "JSON report" not in r.stdout, r.stdout

    # SARIF for code scanning: same finding, same status
    r = ci_scan(broken, {**env, "PDLINT_REPORT": "pdlint.sarif", "PDLINT_REPORT_FORMAT": "sarif"}, cwd=tmp_path)
    assert r.returncode == 1 and "SARIF report written" in r.stdout, r.stdout
    sarif = json.loads((tmp_path / "pdlint.sarif").read_text())
    assert [(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], x["ruleId"])
            for x in sarif["runs"][0]["results"]] == [("deploy/pd.yaml.j2", "SGL101")]
    r = ci_scan(clean, {**env, "PDLINT_REPORT": "x", "PDLINT_REPORT_FORMAT": "xml"}, cwd=tmp_path)
    assert r.returncode == 2 and "json or sarif" in r.stdout, r.stdout

    r = ci_scan(tmp_path / "does-not-exist", env, cwd=tmp_path)
    assert r.returncode == 2, r.stdout
    r = ci_scan(clean, {**env, "PDLINT": "pdlint-not-installed"}, cwd=tmp_path)
    assert r.returncode == 2 and "not installed" in r.stdout, r.stdout


def test_try_repo_files_named_like_options_are_files(tmp_path, hook_repo_ready):
    # pre-commit appends the file names to `entry` with no `--`: a committed file named `--extend-exclude=*,x.yaml`
    # excluded every file (Passed), one named `--output-file=victim.yaml` overwrote victim.yaml
    env = try_repo_env(tmp_path)
    target = new_repo(tmp_path, env, "target")
    write(target, "deploy/pd.yaml.j2", BROKEN)
    write(target, "victim.yaml", "keep: me\n")
    write(target, "--extend-exclude=*,x.yaml", "")
    write(target, "--output-file=victim.yaml", "")
    git(target, "add", "--", ".", env=env)
    r = try_repo(target, env)
    assert r.returncode == 1, r.stdout
    assert "deploy/pd.yaml.j2:" in r.stdout and "SGL101" in r.stdout, r.stdout
    assert (target / "victim.yaml").read_text() == "keep: me\n"
