"""Layer 3 of the resource budget (docs/safety.md): the scan runs in a forked
worker process, watched by the process that started it.

The worker runs the scan as ``pdlint`` would in-process (layers 1 and 2:
bounded algorithms, the per-file budget of :mod:`pdlint.budget`) under a hard
``RLIMIT_AS`` for the whole run, and reports through a pipe when each file's
budgeted work starts (with the seconds it has left), changes stage and ends.
The parent forwards nothing until the worker is done: then it writes the
worker's stdout and stderr to its own ``sys.stdout`` / ``sys.stderr`` (so
``main([...])`` under pytest's ``capsys`` sees them) and returns its exit
code.  When the worker overruns a file's deadline by :data:`GRACE` seconds
(one C call a signal cannot interrupt) or dies (a crash, the kernel's OOM
killer), the parent kills it and runs the scan again with that file reported
over budget and skipped, at most :data:`MAX_RESTARTS` times.

Not used with ``--debug`` (tracebacks in-process), with ``PDLINT_NO_WORKER=1``,
where ``fork`` is unavailable, or outside the main thread.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import threading
import time
from typing import Callable, Optional

GRACE = 2.0  # seconds past a file's deadline before the worker is killed
MAX_RESTARTS = 16  # files one run may skip this way before it gives up
RUN_MEMORY_MB = 1024  # address space the whole run may add to what the worker maps when it starts
ENV = "PDLINT_NO_WORKER"


def available() -> bool:
    return (hasattr(os, "fork") and sys.platform != "win32" and not os.environ.get(ENV)
            and threading.current_thread() is threading.main_thread())


class _Tty(io.TextIOWrapper):
    """The worker's stdout: a pipe that answers ``isatty()`` as the parent's stream would (colours)."""

    tty = False

    def isatty(self) -> bool:
        return self.tty


def _stream(fd: int, like) -> io.TextIOWrapper:
    enc = getattr(like, "encoding", None) or "utf-8"
    errors = getattr(like, "errors", None) or "strict"
    s = _Tty(io.FileIO(fd, "wb", closefd=True), encoding=enc, errors=errors, newline="\n")
    try:
        s.tty = bool(like.isatty())
    except (AttributeError, ValueError, OSError):
        s.tty = False
    return s


def _limit_whole_run(megabytes: float) -> None:
    from pdlint import budget
    try:
        import resource
    except ImportError:  # pragma: no cover
        return
    used = budget.address_space()
    if used is None:
        return
    cap = used + int(megabytes * budget.MB)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        pass


class _Outcome:
    def __init__(self, kind: str, code: int = 2, path: str = "", message: str = "", stage: str = ""):
        self.kind = kind  # done | stopped (at a file) | failed (outside any file)
        self.code = code
        self.path = path
        self.message = message
        self.stage = stage
        self.out = b""
        self.err = b""


def run(scan: Callable[[Optional[Callable], dict], int], memory_mb: float = 0.0) -> int:
    """``scan(progress, skip) -> exit code`` in a watched worker (see the module docstring)."""
    skip: dict = {}
    outcome = None
    for _ in range(MAX_RESTARTS + 1):
        outcome = _attempt(scan, skip, memory_mb)
        if outcome.kind != "stopped":
            break
        skip[outcome.path] = (outcome.message, outcome.stage)
    else:
        outcome.kind = "failed"
        outcome.message = (f"stopped after {MAX_RESTARTS} files that the worker process could not finish "
                           f"({', '.join(sorted(skip))[:200]})")
    _forward(outcome)
    if outcome.kind == "failed":
        sys.stderr.write(f"pdlint: internal error: {outcome.message}\n")
        return 2
    return outcome.code


def _forward(outcome: _Outcome) -> None:
    for data, stream in ((outcome.out, sys.stdout), (outcome.err, sys.stderr)):
        if not data:
            continue
        enc = getattr(stream, "encoding", None) or "utf-8"
        try:
            stream.write(data.decode(enc, "replace"))
            stream.flush()
        except BrokenPipeError:  # a reader that went away (`pdlint | head -1`): quiet, the exit code stands
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):
                pass


def _attempt(scan, skip: dict, memory_mb: float) -> _Outcome:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    prog_r, prog_w = os.pipe()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError):
            pass
    pid = os.fork()
    if pid == 0:  # the worker
        code = 2
        try:
            os.close(out_r)
            os.close(err_r)
            os.close(prog_r)
            sys.stdout = _stream(out_w, sys.__stdout__ if sys.stdout is None else sys.stdout)
            sys.stderr = _stream(err_w, sys.__stderr__ if sys.stderr is None else sys.stderr)
            import faulthandler
            if faulthandler.is_enabled():  # a crash report goes with the worker's stderr (dropped on a restart)
                faulthandler.enable(file=sys.stderr)
            _limit_whole_run(RUN_MEMORY_MB + memory_mb)

            def progress(event: str, path: str, stage: str, value) -> None:
                os.write(prog_w, (json.dumps([event, path, stage, value]) + "\n").encode("ascii"))

            code = scan(progress, dict(skip))
            sys.stdout.flush()
            sys.stderr.flush()
            os.write(prog_w, (json.dumps(["R", "", "", code]) + "\n").encode("ascii"))
        except BaseException:  # noqa: B036 - whatever happens, the worker must not return into the parent's code
            try:
                import traceback
                sys.stderr.write("pdlint: internal error in the worker process:\n" + traceback.format_exc())
                sys.stderr.flush()
            except BaseException:  # noqa: B036
                pass
        finally:
            os._exit(code if isinstance(code, int) else 2)
    os.close(out_w)
    os.close(err_w)
    os.close(prog_w)
    return _watch(pid, out_r, err_r, prog_r)


def _watch(pid: int, out_r: int, err_r: int, prog_r: int) -> _Outcome:
    import select
    bufs = {out_r: bytearray(), err_r: bytearray(), prog_r: bytearray()}
    open_fds = [out_r, err_r, prog_r]
    current: Optional[list] = None  # [path, stage, limit text]
    deadline: Optional[float] = None
    result: Optional[int] = None
    killed_for: Optional[str] = None
    try:
        while open_fds:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select(open_fds, [], [], timeout)
            if not ready:
                if deadline is not None and time.monotonic() >= deadline and killed_for is None:
                    killed_for = "time"
                    _kill(pid)
                    deadline = None
                continue
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if not data:
                    open_fds.remove(fd)
                    continue
                bufs[fd] += data
                if fd != prog_r:
                    continue
                while b"\n" in bufs[prog_r]:
                    line, _, rest = bytes(bufs[prog_r]).partition(b"\n")
                    bufs[prog_r] = bytearray(rest)
                    try:
                        event, path, stage, value = json.loads(line.decode("ascii"))
                    except ValueError:
                        continue
                    if event == "B":
                        left, limit = value
                        current = [path, stage, limit]
                        deadline = time.monotonic() + float(left) + GRACE
                    elif event == "S" and current is not None:
                        current[1] = stage
                    elif event == "E":
                        current, deadline = None, None
                    elif event == "R":
                        result = int(value)
    except KeyboardInterrupt:
        _kill(pid)
        _reap(pid)
        raise
    finally:
        for fd in (out_r, err_r, prog_r):
            try:
                os.close(fd)
            except OSError:
                pass
    status = _reap(pid)
    outcome: _Outcome
    if result is not None and killed_for is None:
        outcome = _Outcome("done", result)
    elif current is not None:
        path, stage, limit = current
        if killed_for == "time":
            text = (f"not checked: exceeded {limit:g} s in {stage} (one operation ran past the budget and could "
                    f"not be interrupted: pdlint stopped it)")
        else:
            text = f"not checked: pdlint's worker process {_death(status)} in {stage}"
        outcome = _Outcome("stopped", 2, path, text, stage)
    else:
        outcome = _Outcome("failed", 2, message=f"pdlint's worker process {_death(status)} outside any file's work")
    outcome.out, outcome.err = bytes(bufs[out_r]), bytes(bufs[err_r])
    return outcome


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _reap(pid: int) -> int:
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except InterruptedError:  # pragma: no cover
            continue
        except ChildProcessError:
            return 0


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"died of {name}"
    if os.WIFEXITED(status):
        return f"exited with status {os.WEXITSTATUS(status)} before it finished"
    return "stopped"
