"""Cold runs on several processes (pdlint.parallel): the report is the one process's, byte for byte."""

import json
import os
import shutil

import pytest

from pdlint import parallel
from pdlint.cli import main
from pdlint.options import Options

DATA = os.path.join(os.path.dirname(__file__), "data")


def report(capsys, *args) -> tuple:
    code = main(["--no-cache", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A copy of tests/data (a git work tree of its own): real launch files of every kind pdlint reads."""
    root = tmp_path / "data"
    shutil.copytree(DATA, root)
    (root / "realworld" / ".pdlint.yaml").unlink()  # the held-out set, read as it is upstream
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_report_of_several_processes_is_the_report_of_one(data, capsys, fmt):
    one = report(capsys, "--jobs", "1", "--format", fmt, ".")
    assert one[0] == 1 and "internal error" not in one[2]
    for n in ("2", "3"):
        assert report(capsys, "--jobs", n, "--format", fmt, ".") == one


def test_the_demo_repository_with_its_values_file_in_parts(tmp_path, capsys, monkeypatch):
    # a config whose values file feeds templates in two directories, and the worst split: the parts meet at
    # the values file and are analysed again together
    root = tmp_path / "demo"
    shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "fixtures"), root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    one = report(capsys, "--jobs", "1", "--format", "json", ".")
    assert one[0] == 1
    assert report(capsys, "--jobs", "3", "--format", "json", ".") == one
    monkeypatch.setattr(parallel, "split", lambda jobs, resolver, k, boundary=None:
                        [jobs[i::k] for i in range(k) if jobs[i::k]])
    assert report(capsys, "--jobs", "3", "--format", "json", ".") == one


def test_parts_that_interact_are_analysed_again_together(data, capsys, monkeypatch):
    # the worst split: files dealt out in turn, so templates lose their partials and sibling files their pair
    monkeypatch.setattr(parallel, "split", lambda jobs, resolver, k, boundary=None:
                        [jobs[i::k] for i in range(k) if jobs[i::k]])
    seen = []
    real = parallel._interacting
    monkeypatch.setattr(parallel, "_interacting", lambda comps: seen.append(real(comps)) or seen[-1])
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    one = report(capsys, "--jobs", "1", "--format", "json", ".")
    assert report(capsys, "--jobs", "3", "--format", "json", ".") == one
    assert seen[0] and not seen[-1]  # some components were tangled at first, none at the end


def test_a_process_that_fails_leaves_its_part_to_the_parent(data, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "_child", lambda *a: os._exit(3))
    one = report(capsys, "--jobs", "1", "--format", "json", "realworld")
    assert report(capsys, "--jobs", "2", "--format", "json", "realworld") == one


def test_a_parallel_cold_run_fills_the_cache_for_any_number_of_processes(data, capsys, monkeypatch):
    monkeypatch.setenv("PDLINT_CACHE_DIR", str(data / "cache"))
    (data / ".gitignore").write_text("cache/\n")
    one = report(capsys, "--jobs", "1", "realworld")
    assert main(["--jobs", "2", "realworld"]) == one[0]
    assert capsys.readouterr().out == one[1]
    import pdlint.lint
    monkeypatch.setattr(pdlint.lint, "analyse", lambda *a, **k: pytest.fail("analysed again"))
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # the patch reaches the run (a worker would fork it anyway)
    assert main(["realworld"]) == one[0]  # the default number of processes: the same cache entries
    assert capsys.readouterr().out == one[1]


def test_split_keeps_what_reads_or_pairs_together(tmp_path):
    from pdlint.discover import FileJob
    from pdlint.lint import ConfigResolver
    files = {"prefill/run.sh": "x", "decode/run.sh": "x",  # role siblings in two directories
             "t/deploy.yaml.j2": '{% include "flags.j2" %}\n', "t/partials/flags.j2": "--tp 2\n",
             "c/one.yaml": "x", "c/two.yaml": "x", "d/other.yaml": "x"}
    jobs = []
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        kind = "jinja" if rel.endswith(".j2") else "shell" if rel.endswith(".sh") else "yaml"
        jobs.append(FileJob(str(p), rel, str(tmp_path), kind))
    parts = parallel.split(jobs, ConfigResolver(str(tmp_path)), 7)
    where = {j.display: i for i, part in enumerate(parts) for j in part}
    assert where["prefill/run.sh"] == where["decode/run.sh"]
    assert where["t/deploy.yaml.j2"] == where["t/partials/flags.j2"]
    assert where["c/one.yaml"] == where["c/two.yaml"]
    assert len(parts) == 4 and sorted(len(p) for p in parts) == [1, 2, 2, 2]


def test_how_many_processes(monkeypatch):
    monkeypatch.setattr(parallel, "available_cpus", lambda: 4)
    opts = Options(cwd="/")
    assert parallel.processes(opts, 1000) == 1  # a library run: one process, every launch in its result
    opts.jobs = 0  # the check command's default
    assert parallel.processes(opts, parallel.MIN_JOBS - 1) == 1
    assert parallel.processes(opts, parallel.MIN_JOBS) == parallel.MIN_JOBS // parallel.JOBS_PER_PROCESS == 2
    assert parallel.processes(opts, 1000) == 4  # the CPUs there are
    opts.jobs = 3
    assert parallel.processes(opts, 10) == 3 and parallel.processes(opts, 2) == 2
    opts.jobs = 100
    assert parallel.processes(opts, 1000) == parallel.MAX_PROCESSES
    opts.debug = True
    assert parallel.processes(opts, 1000) == 1


@pytest.mark.parametrize("value", ["-1", "two"])
def test_jobs_must_be_a_count(capsys, value):
    assert main(["check", "--jobs", value, "."]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_process_stuck_in_one_file_stops_the_run_that_goes_on_without_it(tmp_path, capsys, monkeypatch):
    import signal
    import time

    from pdlint import worker
    from test_bounded_algorithms import Clock  # noqa: E402
    from test_budget import GOOD, hostile_stage
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PDLINT_NO_WORKER", raising=False)
    monkeypatch.setattr(worker, "GRACE", 0.5)
    (tmp_path / ".git").mkdir()
    for d in "abcd":  # four directories: four parts, each in a process of its own
        (tmp_path / d).mkdir()
        (tmp_path / d / "good.sh").write_text(GOOD)
    (tmp_path / "c" / "hostile.sh").write_text(GOOD)

    def stuck():  # one long C call: no signal handler runs
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)

    hostile_stage(monkeypatch, stuck, "c/hostile.sh")
    with Clock(30):
        code = main(["--no-cache", "--jobs", "4", "--format", "json", "--time-per-file", "1", "."])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    by = {}
    for f in doc["findings"]:
        by.setdefault(f["path"], []).append(f["code"])
    assert by == {"a/good.sh": ["SGL005"], "b/good.sh": ["SGL005"], "c/good.sh": ["SGL005"],
                  "d/good.sh": ["SGL005"], "c/hostile.sh": ["PD008"]}


def test_a_process_that_dies_leaves_its_part_to_the_worker_and_no_stale_deadline(tmp_path, capsys, monkeypatch):
    # a process of the parallel scan dies in a file (a crash only it meets); the worker analyses that part
    # itself, which takes longer than the dead process's deadline for the file: the watch must not read the
    # dead process's slot as a file still running and stop the run
    import signal
    import time

    from pdlint import worker
    from test_bounded_algorithms import Clock  # noqa: E402
    from test_budget import GOOD
    import pdlint.formats.shell as shell
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PDLINT_NO_WORKER", raising=False)
    monkeypatch.setattr(worker, "GRACE", 0.3)
    (tmp_path / ".git").mkdir()
    for d in "ab":
        (tmp_path / d).mkdir()
        (tmp_path / d / "good.sh").write_text(GOOD)
    for name in ("hostile.sh", "slow1.sh", "slow2.sh"):
        (tmp_path / "a" / name).write_text(GOOD)
    top = os.getpid()
    real = shell.shell_commands

    def shell_commands(doc, *a, **k):
        path = doc.pieces[0].src.path if doc.pieces and doc.pieces[0].src is not None else ""
        in_part = os.getppid() != top  # a process of the parallel scan (the worker's parent is this test)
        if path == "a/hostile.sh" and in_part:
            os.kill(os.getpid(), signal.SIGSEGV)
        if path in ("a/slow1.sh", "a/slow2.sh") and not in_part:
            time.sleep(0.7)  # within the 1 s budget, past the dead process's deadline for a/hostile.sh
        return real(doc, *a, **k)

    monkeypatch.setattr(shell, "shell_commands", shell_commands)
    with Clock(30):
        code = main(["--no-cache", "--jobs", "2", "--format", "json", "--time-per-file", "1", "."])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert sorted((f["path"], f["code"]) for f in doc["findings"]) == sorted(
        (p, "SGL005") for p in ("a/good.sh", "a/hostile.sh", "a/slow1.sh", "a/slow2.sh", "b/good.sh"))
