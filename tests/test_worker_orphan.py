"""A worker whose parent is gone stops (found when ``timeout 60 pdlint check`` had killed the parent of a
scan of SemiAnalysisAI/InferenceX: the forked worker, in a process group of its own, scanned on for minutes
with nobody to read its result)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from pdlint import worker

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _in_child(parent_offset: int) -> int:
    shared = worker._Shared()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            progress = worker.Progress(shared, parent=os.getppid() + parent_offset)
            progress("B", "a.yaml", "read", (5.0, 5.0))
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status)


def test_the_next_file_is_not_started_when_the_parent_is_gone():
    assert _in_child(10 ** 6) == 2


def test_with_its_parent_there_the_worker_goes_on():
    assert _in_child(0) == 0


def test_killing_pdlint_stops_its_worker(tmp_path):
    # eight templates that each use up their 1 s budget: the scan runs 8 s, its worker stops within about one
    slow = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
    for i in range(8):
        (tmp_path / f"s{i}.sh.j2").write_text(slow + f"python -m sglang.launch_server --port {i}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("PDLINT_NO_WORKER", None)
    proc = subprocess.Popen([sys.executable, "-m", "pdlint", "check", "--no-cache", "--jobs", "1",
                             "--time-per-file", "1", "-q", "."],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    children = []
    while time.monotonic() < deadline and not children:
        time.sleep(0.05)
        children = _children(proc.pid)
    assert children, "the worker did not start"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    end = time.monotonic() + 3
    while time.monotonic() < end and any(_alive(c) for c in children):
        time.sleep(0.05)
    alive = [c for c in children if _alive(c)]
    for c in alive:
        os.kill(c, signal.SIGKILL)
    assert not alive


def _children(pid: int) -> list:
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    except OSError:
        pytest.skip("no ps")
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
