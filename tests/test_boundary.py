"""The repository is the boundary (issue 9 item 3): pdlint opens only regular
files inside the repository, never follows a symlink out of it, never blocks
on a FIFO, and no byte of a file outside it reaches any output.  Every attack
gives its finding, and the good file beside it is still reported."""

import json
import os
import subprocess
import sys
import time

import pytest

from pdlint.cli import main
from pdlint.safeio import MAX_FILE_BYTES, Boundary, Refused

GOOD = ("containers:\n  - name: d\n    command: [python3, -m, sglang.launch_server]\n"
        "    args: [--model-path, /m, --disaggregation-mode, prefill, --disaggregation-transfer-backend, fake]\n")
SECRET = "TOPSECRET-c0ffee"
# outside the repository: would be launch text (and a finding quoting it) if pdlint read it
OUTSIDE = f"python3 -m sglang.launch_server --{SECRET} --disaggregation-mode prefill\n"
OUTSIDE_YAML = f"{SECRET}: 1\nargs: [--{SECRET}]\n"


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository (``repo/``) with a good file, and ``outside/`` beside it."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "good.yaml").write_text(GOOD)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(OUTSIDE_YAML)
    (outside / "x.sh").write_text(f"ARGS=--{SECRET}\n")
    (outside / "x.yaml").write_text(OUTSIDE_YAML)
    (tmp_path / "outside.yaml").write_text(OUTSIDE_YAML)
    (tmp_path / "secret.yaml").write_text(OUTSIDE)
    git(root, "init", "-q", ".")
    monkeypatch.chdir(root)
    return root


def commit(repo):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "x")


def outputs(capsys, *paths):
    """Every report of the paths (check text/json/sarif/github, show text/json): {format: (exit, stdout+stderr)}."""
    out = {}
    for name, args in (("text", []), ("json", ["--format", "json"]), ("sarif", ["--format", "sarif"]),
                       ("github", ["--format", "github"]), ("show", ["show"]),
                       ("show-json", ["show", "--format", "json"])):
        argv = ([args[0]] + list(paths) + args[1:]) if args[:1] == ["show"] else args + list(paths)
        code = main(argv)
        o = capsys.readouterr()
        assert "Traceback" not in o.err
        out[name] = (code, o.out + o.err)
    return out


def findings(capsys, *paths):
    code = main(["--format", "json", *paths])
    o = capsys.readouterr()
    assert "Traceback" not in o.err
    doc = json.loads(o.out)
    return code, doc, {(f["path"], f["code"]): f for f in doc["findings"]}


def assert_no_secret(outs, cache_dir=None):
    for name, (_, text) in outs.items():
        assert SECRET not in text, name
    if cache_dir:
        for dirpath, _, files in os.walk(cache_dir):
            for f in files:
                with open(os.path.join(dirpath, f), "rb") as fh:
                    assert SECRET.encode() not in fh.read(), f


def good_reported(doc):
    assert any(f["path"] == "good.yaml" and f["code"] == "SGL104" for f in doc["findings"])


# -- symlinks ----------------------------------------------------------------------------------------

def test_committed_symlink_to_dev_zero_is_refused_at_once(repo, capsys):
    os.symlink("/dev/zero", repo / "zero.yaml")
    commit(repo)
    t = time.monotonic()
    code, doc, by = findings(capsys, ".")
    assert time.monotonic() - t < 20
    assert code == 1 and by[("zero.yaml", "PD001")]["message"] == "not read: symlink pointing outside the repository"
    good_reported(doc)
    assert doc["coverage"]["files"]["zero.yaml"]["status"] == "error"


def test_committed_symlink_to_a_secret_outside_prints_nothing_of_it(repo, capsys, tmp_path):
    os.symlink("../secret.yaml", repo / "leak.yaml")
    os.symlink("../secret.yaml", repo / "leak.sh")
    commit(repo)
    outs = outputs(capsys, ".")
    assert_no_secret(outs, os.environ.get("PDLINT_CACHE_DIR"))
    code, doc, by = findings(capsys, ".")
    assert code == 1 and "symlink pointing outside the repository" in by[("leak.yaml", "PD001")]["message"]
    assert ("leak.sh", "PD001") in by
    good_reported(doc)
    # named explicitly (as pre-commit does), and through show
    assert_no_secret(outputs(capsys, "leak.yaml", "good.yaml"))


def test_symlink_inside_the_repository_is_read(repo, capsys):
    (repo / "real").mkdir()
    (repo / "real" / "pd.yaml").write_text(GOOD)
    os.symlink("real/pd.yaml", repo / "link.yaml")
    commit(repo)
    code, doc, by = findings(capsys, "link.yaml")
    assert code == 1 and ("link.yaml", "SGL104") in by and not any(f["code"] == "PD001" for f in doc["findings"])


def test_symlink_loop_and_dangling_symlink(repo, capsys):
    os.symlink("loop-b.yaml", repo / "loop-a.yaml")
    os.symlink("loop-a.yaml", repo / "loop-b.yaml")
    os.symlink("missing.yaml", repo / "dangling.yaml")
    commit(repo)
    code, doc, by = findings(capsys, ".")
    assert by[("loop-a.yaml", "PD001")]["message"] == "not read: symlink loop"
    assert by[("dangling.yaml", "PD001")]["message"] == "not read: dangling symlink (its target does not exist)"
    good_reported(doc)


def test_symlinked_directory_out_of_the_repository(repo, capsys, tmp_path):
    os.symlink(str(tmp_path / "outside"), repo / "vendor")
    commit(repo)
    code, doc, by = findings(capsys, "vendor/x.yaml", "good.yaml")  # named explicitly, as pre-commit would
    assert by[("vendor/x.yaml", "PD001")]["message"] == "not read: symlink pointing outside the repository"
    good_reported(doc)
    assert_no_secret(outputs(capsys, "vendor/x.yaml", "good.yaml"))


def test_symlink_to_another_git_checkout_is_not_a_root_of_its_own(repo, capsys, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.yaml").write_text(OUTSIDE_YAML)
    git(other, "init", "-q", ".")
    os.symlink(str(other), repo / "vendor")
    b = Boundary(str(repo))
    assert b.root_for(str(repo / "vendor" / "x.yaml")) == str(repo)
    with pytest.raises(Refused, match="symlink pointing outside"):
        b.read(str(repo / "vendor" / "x.yaml"))


# -- special files ---------------------------------------------------------------------------------

def _scan_in_subprocess(cwd, *args, timeout=60):
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    return subprocess.run([sys.executable, "-m", "pdlint", "--format", "json", *args], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_outside_git_and_named_explicitly_does_not_block(tmp_path):
    d = tmp_path / "plain"  # no git: the directory is walked
    d.mkdir()
    (d / "good.yaml").write_text(GOOD)
    os.mkfifo(d / "x.yaml")
    os.mkfifo(d / "run")  # no extension: sniffed for a shebang, must not block either
    t = time.monotonic()
    for args in (["."], ["x.yaml", "good.yaml"], ["run", "good.yaml"]):
        r = _scan_in_subprocess(d, *args)  # a hang fails with TimeoutExpired
        doc = json.loads(r.stdout)
        by = {(f["path"], f["code"]): f for f in doc["findings"]}
        assert r.returncode == 1, r.stderr
        good_reported(doc)
        if "x.yaml" in args or args == ["."]:
            assert by[("x.yaml", "PD001")]["message"] == "not read: not a regular file (FIFO)"
    assert time.monotonic() - t < 60


def test_special_file_inside_the_root_is_refused_without_opening_it(tmp_path):
    b = Boundary(str(tmp_path))
    os.mkdir(tmp_path / "d.yaml")
    with pytest.raises(Refused, match=r"not a regular file \(directory\)"):
        b.read(str(tmp_path / "d.yaml"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "f")
        with pytest.raises(Refused, match=r"\(FIFO\)"):
            b.read(str(tmp_path / "f"))
        assert b.head(str(tmp_path / "f")) == b""


def test_reads_are_bounded(tmp_path):
    b = Boundary(str(tmp_path))
    (tmp_path / "big.yaml").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(Refused, match="larger than") as e:
        b.read(str(tmp_path / "big.yaml"))
    assert e.value.kind == "big"
    (tmp_path / "ok.yaml").write_bytes(b"x" * 10)
    assert b.read(str(tmp_path / "ok.yaml")) == b"x" * 10
    assert b.read(str(tmp_path / "ok.yaml"), limit=10) == b"x" * 10
    with pytest.raises(Refused):
        b.read(str(tmp_path / "ok.yaml"), limit=9)


def test_no_gap_between_check_and_read(tmp_path):
    """The file is opened one component at a time from the root with O_NOFOLLOW:
    a directory swapped for a symlink after the path was resolved fails the open."""
    from pdlint import safeio
    if not safeio._AT:
        pytest.skip("no openat on this platform")
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f.yaml").write_text(SECRET)
    os.symlink(str(tmp_path / "elsewhere"), root / "swapped")
    with pytest.raises(OSError):  # as if resolve_path had seen a real directory "swapped"
        safeio._open_beneath(str(root / "swapped" / "f.yaml"), str(root))


# -- references --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,why", [
    ("/proc/self/status", "outside the repository (an absolute path)"),
    ("../../outside.yaml", "outside the repository"),
    ("link.yaml", "outside the repository through a symlink"),
])
def test_values_file_outside_the_repository_is_a_config_finding(repo, capsys, value, why):
    os.symlink("../outside.yaml", repo / "link.yaml")
    (repo / "t").mkdir()
    (repo / "t" / "pyproject.toml").write_text(f'[tool.pdlint]\nrole-var = "role"\nvalues = ["{value}"]\n')
    if value == "link.yaml":
        os.remove(repo / "link.yaml")
        os.symlink("../../outside.yaml", repo / "t" / "link.yaml")
    (repo / "t" / "run.sh.j2").write_text("python -m sglang.launch_server --model-path {{ model }}\n")
    commit(repo)
    outs = outputs(capsys, ".")
    assert_no_secret(outs)
    code, doc, by = findings(capsys, ".")
    f = by[("t/pyproject.toml", "PD012")]
    assert code == 1 and f["line"] == 3 and f"values file {value} is {why}" in f["message"]
    assert doc["coverage"]["files"]["t/run.sh.j2"]["status"] == "error"
    good_reported(doc)


def test_values_file_inside_the_repository_above_the_config_is_fine(repo, capsys):
    (repo / "deploy").mkdir()
    (repo / "deploy" / "values.yaml").write_text("model: /m\n")
    (repo / "ci").mkdir()
    (repo / "ci" / ".pdlint.yaml").write_text("values: [../deploy/values.yaml]\n")
    (repo / "ci" / "run.sh.j2").write_text("python -m sglang.launch_server --model-path {{ model }}\n")
    code, doc, by = findings(capsys, ".")
    assert not any(f["code"] in ("PD012", "PD010", "PD005") for f in doc["findings"]), doc["findings"]


def test_jinja_include_of_etc_passwd_and_of_a_file_outside(repo, capsys):
    (repo / "a.sh.j2").write_text("# x\n{% include '/etc/passwd' %}\n")
    (repo / "b.sh.j2").write_text("# x\n{% include '../secret.yaml' %}\n")
    (repo / "c.sh.j2").write_text("# x\n{% include 'lnk.j2' %}\n")
    os.symlink("../secret.yaml", repo / "lnk.j2")
    outs = outputs(capsys, ".")
    assert_no_secret(outs)
    assert all("root:x:0:0" not in text for _, text in outs.values())
    code, doc, by = findings(capsys, ".")
    assert by[("a.sh.j2", "PD007")]["line"] == 2  # /etc/passwd is looked up inside the repository: not there
    assert "outside the repository" in by[("b.sh.j2", "PD007")]["message"]
    assert "outside the repository" in by[("c.sh.j2", "PD007")]["message"]
    good_reported(doc)


def test_jinja_include_of_a_fifo_inside_the_repository(repo, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    os.mkfifo(repo / "part.j2")
    (repo / "t.sh.j2").write_text("# x\n{% include 'part.j2' %}\n")
    code, doc, by = findings(capsys, "t.sh.j2", "good.yaml")
    assert by[("t.sh.j2", "PD007")]["message"] == "'part.j2' is not read: not a regular file (FIFO)"
    good_reported(doc)


def test_source_of_etc_passwd_and_of_a_script_outside(repo, capsys):
    (repo / "run.sh").write_text("#!/bin/sh\nsource /etc/passwd\n. ../outside/x.sh\n"
                                 "python -m sglang.launch_server --model-path /m $ARGS\n")
    commit(repo)
    outs = outputs(capsys, ".")
    assert_no_secret(outs)
    assert all("root:x:0:0" not in text for _, text in outs.values())
    code, doc, by = findings(capsys, ".")
    f = by[("run.sh", "PD014")]
    assert f["line"] == 3 and f["column"] == 1 and f["severity"] == "warning"
    assert f["message"].startswith("sourced file ../outside/x.sh is outside the repository; pdlint does not read it")
    # an absolute path is a file of the deploy host, looked up inside the repository, nothing read: reported
    # because the launch after it reads $ARGS, which no file pdlint read sets
    (host,) = [f for f in doc["findings"] if f["code"] == "PD014" and f["line"] == 2]
    assert "/etc/passwd is not in the repository (a file of the deploy host)" in host["message"]
    assert "$ARGS" in host["message"]
    good_reported(doc)


def test_source_through_a_symlink_out(repo, capsys):
    os.symlink("../outside/x.sh", repo / "env.sh")
    (repo / "run.sh").write_text("#!/bin/sh\n. ./env.sh\npython -m sglang.launch_server --model-path /m $ARGS\n")
    commit(repo)
    assert_no_secret(outputs(capsys, "run.sh"))
    code, doc, by = findings(capsys, "run.sh", "good.yaml")
    assert "is a symlink pointing outside the repository" in by[("run.sh", "PD014")]["message"]
    good_reported(doc)


def test_sglang_config_reference_outside_the_repository(repo, capsys):
    (repo / "pd.yaml").write_text("containers:\n  - name: p\n    command: [python3, -m, sglang.launch_server]\n"
                                  "    args: [--config, ../outside/x.yaml, --disaggregation-mode, prefill]\n")
    commit(repo)
    assert_no_secret(outputs(capsys, "."))
    code, doc, by = findings(capsys, ".")
    f = by[("pd.yaml", "PD022")]
    assert "--config ../outside/x.yaml is outside the repository" in f["message"]
    good_reported(doc)


def test_kustomization_resource_outside_the_repository(repo, capsys):
    (repo / "k" / "base").mkdir(parents=True)
    (repo / "k" / "base" / "kustomization.yaml").write_text("resources:\n  - ../../../outside\n  - pd.yaml\n")
    (repo / "k" / "base" / "pd.yaml").write_text(
        "kind: Pod\nspec:\n  containers:\n    - name: d\n      command: [python3, -m, sglang.launch_server]\n"
        "      args: [--model-path, /m, --disaggregation-mode, decode]\n")
    commit(repo)
    assert_no_secret(outputs(capsys, "."))
    code, doc, by = findings(capsys, ".")
    f = by[("k/base/kustomization.yaml", "PD106")]
    assert f["line"] == 2 and "outside the repository" in f["message"]
    good_reported(doc)


def test_compose_env_file_outside_the_repository(repo, capsys):
    (repo / "compose.yaml").write_text(
        "services:\n  prefill:\n    image: lmsysorg/sglang\n    env_file: ../outside/x.sh\n"
        "    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill $ARGS\n")
    commit(repo)
    assert_no_secret(outputs(capsys, "."))
    code, doc, by = findings(capsys, ".")
    f = by[("compose.yaml", "PD014")]
    assert f["line"] == 4 and "compose env file ../outside/x.sh is outside the repository" in f["message"]
    good_reported(doc)


def test_explicit_config_that_is_a_symlink_out(repo, capsys, tmp_path):
    (tmp_path / "evil.yaml").write_text(f"select: [{SECRET}\n")  # a parse error would quote it
    os.symlink("../evil.yaml", repo / "pdlint.yaml")
    code = main(["--config", "pdlint.yaml", "good.yaml"])
    out = capsys.readouterr()
    assert code == 1 and SECRET not in out.out + out.err
    assert "PD012" in out.out and "symlink pointing outside the repository" in out.out
    assert main(["--config", "missing.yaml", "good.yaml"]) == 2  # a usage error


def _small_chart(repo):
    """A chart (``repo/chart``) whose one template is an SGLang pod."""
    chart = repo / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("model: /m\n")
    (chart / "templates" / "pod.yaml").write_text(
        "kind: Pod\nspec:\n  containers:\n    - name: p\n      command: [python3, -m, sglang.launch_server]\n"
        "      args: [--model-path, {{ .Values.model }}]\n")
    return chart


def test_helm_is_not_run_on_a_chart_with_a_symlink_out(repo, capsys, tmp_path, monkeypatch):
    from pdlint.formats import helm
    chart = _small_chart(repo)
    assert helm.unsafe_chart_entry(str(chart), str(repo)) is None
    os.symlink(str(tmp_path / "secret.yaml"), chart / "templates" / "leak.yaml")
    assert helm.unsafe_chart_entry(str(chart), str(repo)) == str(chart / "templates" / "leak.yaml")
    # a fake helm that would print the file it was pointed at: it must not run
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "helm-ran"
    (bindir / "helm").write_text(f"#!/bin/sh\ntouch {marker}\ncat {tmp_path / 'secret.yaml'}\n")
    (bindir / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    commit(repo)
    outs = outputs(capsys, ".")
    assert not marker.exists()
    assert_no_secret(outs)
    code, doc, by = findings(capsys, ".")
    assert ("chart/templates/leak.yaml", "PD001") in by
    good_reported(doc)


def test_pre_commit_expansion_never_reads_outside(repo, capsys):
    """A named file is expanded to the files that reference it; those are read through the boundary too."""
    os.symlink("../secret.yaml", repo / "caller.sh")
    (repo / "part.sh").write_text("ARGS=--tp-size 2\n")
    commit(repo)
    assert_no_secret(outputs(capsys, "part.sh", "good.yaml"))


def test_baseline_file_is_read_inside_the_repository(repo, capsys, tmp_path):
    (tmp_path / "base.json").write_text('{"pdlint-baseline": 1, "findings": []}\n')
    os.symlink("../base.json", repo / "baseline.json")
    assert main(["--baseline", "baseline.json", "good.yaml"]) == 2  # a usage error, as any unusable baseline
    assert "cannot read the baseline: symlink pointing outside the repository" in capsys.readouterr().err
    if hasattr(os, "mkfifo"):
        os.mkfifo(repo / "fifo.json")
        assert main(["--baseline", "fifo.json", "good.yaml"]) == 2  # at once, not blocked on the FIFO
        assert "not a regular file (FIFO)" in capsys.readouterr().err
    assert main(["--baseline", "none.json", "good.yaml"]) == 2
    assert "baseline file not found" in capsys.readouterr().err


def test_git_runs_no_program_the_repositorys_own_config_names(repo, capsys, tmp_path):
    """`git ls-files` starts the program `core.fsmonitor` names: a work tree whose `.git/config` someone else wrote
    (an archive, a copied checkout) ran its command on `pdlint check` (field test rw20/h)."""
    git(repo, "init", "-q", ".")
    marker = tmp_path / "PWNED"
    hook = repo / ".git" / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    code = main(["--no-cache", "--format", "json", "."])
    found = {f["code"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert not marker.exists()
    assert code == 1 and "SGL104" in found  # the files were listed all the same


def test_the_listing_is_the_repositorys_own_work_tree(repo, capsys, tmp_path):
    """A `.git/config` with `core.worktree` pointing elsewhere made `git ls-files --others` list that directory:
    names of files outside the repository reached the report as PD001 (field test rw21/h)."""
    git(repo, "init", "-q", ".")
    git(repo, "config", "core.worktree", str(tmp_path / "outside"))
    code = main(["--no-cache", "--format", "json", "."])
    out = capsys.readouterr().out
    assert "secret.yaml" not in out and "x.sh" not in out
    assert code == 1 and "SGL104" in {f["code"] for f in json.loads(out)["findings"]}  # good.yaml: listed, read


def test_a_program_the_repository_commits_is_never_run_through_an_empty_path_entry(repo, capsys, monkeypatch,
                                                                                    tmp_path):
    """Hostile-input round rw32/h P8: with an empty PATH entry (`PATH=$PATH:$EXTRA`, EXTRA unset: POSIX reads it as
    the current directory) and no helm installed, pdlint ran the `helm` a pull request committed in the chart's
    directory (its cwd for `helm template`); git and bash are looked up the same way. Only PATH's absolute
    directories are searched."""
    from pdlint.safeio import program
    chart = _small_chart(repo)
    marker = tmp_path / "committed-program-ran"
    for where in (chart, repo, repo / "bin"):
        where.mkdir(exist_ok=True)
        for name in ("helm", "bash"):
            (where / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
            (where / name).chmod(0o755)
    commit(repo)
    dirs = [d for d in os.environ["PATH"].split(os.pathsep)
            if d and os.path.isabs(d) and not os.path.exists(os.path.join(d, "helm"))]
    monkeypatch.setenv("PATH", os.pathsep.join(["", "bin", *dirs, ""]))
    monkeypatch.chdir(chart)
    assert program("helm") is None
    assert program("git") is not None and os.path.isabs(program("git"))
    monkeypatch.chdir(repo)
    outputs(capsys, ".")
    assert not marker.exists()


def test_a_program_the_repository_commits_is_never_run_through_an_absolute_path_entry(repo, capsys, monkeypatch,
                                                                                       tmp_path):
    """Hostile-input round rw33/h P10: with the repository's own `bin/` on PATH by its absolute path (direnv's
    `PATH_add bin`, an in-repository venv, CI's `$GITHUB_WORKSPACE/bin`), pdlint ran a `bin/git` or `bin/helm` a
    pull request committed. A PATH directory inside the repository pdlint runs in is skipped; the next one that
    has the program is used."""
    from pdlint.safeio import program
    chart = _small_chart(repo)
    marker = tmp_path / "committed-program-ran"
    (repo / "bin").mkdir(exist_ok=True)
    for name in ("helm", "git", "bash"):
        (repo / "bin" / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (repo / "bin" / name).chmod(0o755)
    commit(repo)
    monkeypatch.setenv("PATH", os.pathsep.join([str(repo / "bin"), os.environ["PATH"]]))
    for where in (repo, chart):
        monkeypatch.chdir(where)
        for name in ("git", "helm", "bash"):
            found = program(name)
            assert found is None or not found.startswith(str(repo)), found
    monkeypatch.chdir(repo)
    outputs(capsys, ".")
    assert not marker.exists()
    monkeypatch.chdir(tmp_path / "outside")  # (run elsewhere, that directory is just a PATH entry)
    assert program("git") == str(repo / "bin" / "git")
