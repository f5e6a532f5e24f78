"""Layer 3 of the resource budget (docs/safety.md): the scan runs in a forked
worker process, watched by the process that started it.

The worker runs the scan as ``pdlint`` would in-process (layers 1 and 2:
bounded algorithms, the per-file budget of :mod:`pdlint.budget`) under a hard
``RLIMIT_AS`` for the whole run, and keeps in memory it shares with the parent
which file's budgeted work it is in, its deadline and stage (memory writes, no
system call per file: a pipe message per section cost a 1000-file run 10% of
its CPU time in wake-ups); the parent looks every :data:`POLL` seconds.
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
import mmap
import os
import signal
import struct
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
    written = _forward(outcome)
    if outcome.kind == "failed":
        sys.stderr.write(f"pdlint: internal error: {outcome.message}\n")
        return 2
    return outcome.code if written else 2


def _forward(outcome: _Outcome) -> bool:
    """Write the worker's output; False when the report could not be written (a full disk: the run's result
    is not known to whoever reads it, so it exits 2, as `--output-file` on a full disk does)."""
    ok = True
    for data, stream in ((outcome.out, sys.stdout), (outcome.err, sys.stderr)):
        if not data:
            continue
        enc = getattr(stream, "encoding", None) or "utf-8"
        try:
            stream.write(data.decode(enc, "replace"))
            stream.flush()
        except BrokenPipeError:  # a reader that went away (`pdlint | head -1`): quiet, the exit code stands
            to_devnull(stream)
        except OSError as e:  # (field test rw20/h: `pdlint check . >/dev/full` ended in a traceback, exit 1)
            to_devnull(stream)
            if stream is sys.stdout:
                ok = False
                try:
                    sys.stderr.write(f"pdlint: error: cannot write the report to standard output: "
                                     f"{e.strerror or e}\n")
                except OSError:
                    pass
    return ok


def to_devnull(stream) -> None:
    """Point ``stream`` at /dev/null: what it still buffers is dropped (the interpreter's final flush then
    succeeds, with no "Exception ignored" message); a stream without a file descriptor (tests) is left."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass


SLOTS = 17  # progress slots: the worker's own, and one for each process of a parallel scan (pdlint.parallel)


class _Shared:
    """What the worker is doing, in memory shared with the parent (no system call per file), one slot per
    process of the scan (slot 0: the worker; 1..: the processes of a parallel scan, :mod:`pdlint.parallel`):
    a sequence number (odd while the process writes), the current file's deadline (``time.monotonic``: one
    clock for every process), its limit, path and stage, and (slot 0) whether the worker finished, with its
    exit code."""

    HEAD = struct.Struct("<QddIIii")
    PATH, STAGE, SLOT = 64, 64 + 32768, 64 + 32768 + 1024

    def __init__(self, slots: int = SLOTS):
        # anonymous and shared: the forked worker (and the processes it forks) write, the parent reads
        self.m = mmap.mmap(-1, self.SLOT * slots)
        self.slots = slots
        self.seq = [0] * slots

    def _write(self, slot: int, deadline: float, limit: float, path: bytes, stage: bytes, done: int = 0,
               code: int = 0):
        m, base = self.m, slot * self.SLOT
        self.seq[slot] += 1
        m[base:base + 8] = struct.pack("<Q", self.seq[slot])  # odd: being written
        path, stage = path[:self.STAGE - self.PATH], stage[:self.SLOT - self.STAGE]
        m[base + self.PATH:base + self.PATH + len(path)] = path
        m[base + self.STAGE:base + self.STAGE + len(stage)] = stage
        self.seq[slot] += 1
        self.HEAD.pack_into(m, base, self.seq[slot], deadline, limit, len(path), len(stage), done, code)

    def progress(self, slot: int, event: str, path: str, stage: str, value) -> None:
        enc = lambda t: t.encode("utf-8", "surrogateescape")  # noqa: E731
        if event == "B":
            left, limit = value
            self._write(slot, time.monotonic() + left, limit, enc(path), enc(stage))
        elif event == "S":
            base = slot * self.SLOT
            _, deadline, limit, plen, _, _, _ = self.HEAD.unpack_from(self.m, base)
            self._write(slot, deadline, limit, bytes(self.m[base + self.PATH:base + self.PATH + plen]), enc(stage))
        else:
            self._write(slot, 0.0, 0.0, b"", b"")

    def finish(self, code: int) -> None:
        self._write(0, 0.0, 0.0, b"", b"", 1, code)

    def read(self, slot: int = 0) -> tuple:
        """(deadline, limit, path or None, stage, done, code) of one slot, a consistent copy."""
        base = slot * self.SLOT
        for _ in range(100):
            seq, deadline, limit, plen, slen, done, code = self.HEAD.unpack_from(self.m, base)
            path = bytes(self.m[base + self.PATH:base + self.PATH + plen])
            stage = bytes(self.m[base + self.STAGE:base + self.STAGE + slen])
            if seq % 2 == 0 and struct.unpack_from("<Q", self.m, base)[0] == seq:
                dec = lambda b: b.decode("utf-8", "surrogateescape")  # noqa: E731
                return deadline, limit, dec(path) if plen else None, dec(stage), done, code
            time.sleep(0.001)
        return 0.0, 0.0, None, "", 0, 0

    def overrun(self) -> Optional[tuple]:
        """(path, stage, limit) of a file some process of the scan is past its deadline in, by GRACE."""
        now = time.monotonic()
        for slot in range(self.slots):
            deadline, limit, path, stage, _, _ = self.read(slot)
            if path is not None and now > deadline + GRACE:
                return path, stage, limit
        return None

    def busy(self) -> Optional[tuple]:
        """(path, stage) of a file some process of the scan is in, the worker's first."""
        for slot in range(self.slots):
            _, _, path, stage, _, _ = self.read(slot)
            if path is not None:
                return path, stage
        return None


class Progress:
    """The ``progress`` callback of one process of the scan (:class:`pdlint.budget.Budget`): it writes
    that process's slot of the memory the worker's parent watches."""

    __slots__ = ("shared", "slot", "parent")

    def __init__(self, shared: _Shared, slot: int = 0, parent: Optional[int] = None):
        self.shared = shared
        self.slot = slot
        self.parent = os.getppid() if parent is None else parent  # made in the process it reports for

    def __call__(self, event: str, path: str, stage: str, value) -> None:
        if event == "B" and os.getppid() != self.parent:
            # the process that waits for this one is gone (``timeout`` or CI stopped pdlint with SIGTERM, or
            # SIGKILL): nobody reads the result, so stop at the next file instead of scanning on unwatched
            os._exit(2)
        self.shared.progress(self.slot, event, path, stage, value)

    def for_process(self, i: int) -> Optional["Progress"]:
        """The callback of the ``i``-th process a parallel scan forks (from 0), None past the slots."""
        return Progress(self.shared, i + 1) if i + 1 < self.shared.slots else None


def fork() -> int:
    """``os.fork()`` after flushing stdout and stderr (a child must not write the parent's buffered output
    again)."""
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError, AttributeError):
            pass
    return os.fork()


def _attempt(scan, skip: dict, memory_mb: float) -> _Outcome:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    shared = _Shared()
    pid = fork()
    if pid == 0:  # the worker
        code = 2
        try:
            try:  # a group of its own: a parallel scan's processes are stopped with it (_kill)
                os.setpgid(0, 0)
            except OSError:
                pass
            os.close(out_r)
            os.close(err_r)
            sys.stdout = _stream(out_w, sys.__stdout__ if sys.stdout is None else sys.stdout)
            sys.stderr = _stream(err_w, sys.__stderr__ if sys.stderr is None else sys.stderr)
            import faulthandler
            if faulthandler.is_enabled():  # a crash report goes with the worker's stderr (dropped on a restart)
                faulthandler.enable(file=sys.stderr)
            _limit_whole_run(RUN_MEMORY_MB + memory_mb)
            code = scan(Progress(shared), dict(skip))
            sys.stdout.flush()
            sys.stderr.flush()
            shared.finish(code)
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
    return _watch(pid, out_r, err_r, shared)


POLL = 0.1  # seconds between looks at the worker's progress while it writes nothing


def _watch(pid: int, out_r: int, err_r: int, shared: _Shared) -> _Outcome:
    import select
    bufs = {out_r: bytearray(), err_r: bytearray()}
    open_fds = [out_r, err_r]
    stopped = None  # (path, stage, limit) of a file the worker was killed in
    try:
        while open_fds:
            ready, _, _ = select.select(open_fds, [], [], POLL)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if data:
                    bufs[fd] += data
                else:
                    open_fds.remove(fd)
            if stopped is None:
                stopped = shared.overrun()
                if stopped is not None:
                    _kill(pid)
    except KeyboardInterrupt:
        _kill(pid)
        reap(pid)
        raise
    finally:
        for fd in (out_r, err_r):
            try:
                os.close(fd)
            except OSError:
                pass
    status = reap(pid)
    _, _, _, _, done, code = shared.read()
    busy = shared.busy()
    shared.m.close()
    outcome: _Outcome
    if done and stopped is None:
        outcome = _Outcome("done", code)
    elif stopped is not None:
        path, stage, limit = stopped
        text = (f"not checked: exceeded {limit:g} s in {stage} (one operation ran past the budget and could "
                f"not be interrupted: pdlint stopped it)")
        outcome = _Outcome("stopped", 2, path, text, stage)
    elif busy is not None:
        path, stage = busy
        outcome = _Outcome("stopped", 2, path, f"not checked: pdlint's worker process {_death(status)} in {stage}",
                           stage)
    elif os.WIFEXITED(status) and not os.WIFSIGNALED(status) and os.WEXITSTATUS(status) == 2 and bufs[err_r]:
        outcome = _Outcome("done", 2)  # an error the worker reported itself (on its stderr)
    else:
        outcome = _Outcome("failed", 2, message=f"pdlint's worker process {_death(status)} outside any file's work")
    outcome.out, outcome.err = bytes(bufs[out_r]), bytes(bufs[err_r])
    return outcome


def _kill(pid: int) -> None:
    """Stop the worker and the processes of a parallel scan it started (its process group)."""
    try:
        os.killpg(pid, signal.SIGKILL)
        return
    except OSError:  # not a group leader (setpgid failed): the worker alone
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def reap(pid: int) -> int:
    """The exit status of the child ``pid`` (waited for; 0 when it was already reaped)."""
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
