"""One resource budget per file: wall clock and memory (docs/safety.md).

Every stage a file goes through (template transform and source alignment,
Jinja render, YAML, shell, arguments and rules, the pair stage of its
deployment) runs inside :meth:`Budget.charge` for that file.  The file's
time is cumulative over its stages; its memory is bounded per stage as the
address space it may add.

* Time: ``signal.setitimer(ITIMER_REAL)`` raises :class:`OverBudget` (a
  ``BaseException``, so that the pipeline's "a bug must not stop the scan"
  handlers do not swallow it) when the file's time is spent.  Timers nest
  (:func:`deadline`: the render timeout inside a file's budget), the earliest
  fires first; a timer that fired and whose exception some handler swallowed
  fires again every 0.1 s until its section ends.
* Memory: a soft ``RLIMIT_AS`` of the address space in use plus the file's
  budget, set when the file's section starts (kept from the section before
  while within 1/16 of the budget of that) and restored when the run's budget
  ends; an allocation past it is a ``MemoryError``, which the section turns
  into :class:`OverBudget`.

One long C operation (a huge integer power, a regex) cannot be interrupted
by a signal: the sandbox and the algorithms are bounded so that none exists
(layer 1), and the CLI's worker process (:mod:`pdlint.worker`, layer 3)
kills a worker that overruns a file's deadline anyway.  The worker learns
each file's deadline from the ``progress`` callback.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from typing import Callable, Optional

TIME_DEFAULT = 10.0  # seconds per file
MEMORY_DEFAULT = 512  # MB per file
TIME_CAP = 120.0  # the most --time-per-file (the command line) may give a file
MEMORY_CAP = 2048  # the most --memory-per-file may give a file, MB
MB = 1 << 20
REFIRE = 0.1  # seconds between re-raises of a timer whose exception was swallowed


class OverBudget(BaseException):
    """A file ran out of its budget (``kind``: time, memory, or ``stopped``:
    the worker process was killed or died in it, :mod:`pdlint.worker`)."""

    def __init__(self, kind: str, stage: str, limit: str, text: str = ""):
        super().__init__(kind, stage, limit)
        self.kind = kind
        self.stage = stage
        self.limit = limit
        self.text = text  # the whole message (a file the worker was stopped in)

    @property
    def message(self) -> str:
        return self.text or f"not checked: exceeded {self.limit} in {self.stage}"


def check_limit(value, key: str, unit: str, cap: float) -> float:
    """A configured limit as a float, or ValueError naming ``key``: a finite
    positive number of ``unit`` at most ``cap`` (booleans and strings are no numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{key} must be a number of {unit}, got {type(value).__name__} {value!r}")
    v = float(value)
    if math.isnan(v) or math.isinf(v) or v <= 0:
        raise ValueError(f"{key} must be a finite positive number of {unit}, got {value!r}")
    if v > cap:
        raise ValueError(f"{key} must be at most {cap:g} {unit} (pdlint's hard cap), got {value!r}")
    return v


# ---------------------------------------------------------------------------
# Timers: one ITIMER_REAL shared by nested deadlines
# ---------------------------------------------------------------------------

class _Timer:
    __slots__ = ("at", "make", "fired")

    def __init__(self, at: float, make: Callable[[], BaseException]):
        self.at = at
        self.make = make
        self.fired = False


_timers: list = []  # active deadlines, innermost last (signals are per process: module state)
_old_handler = None
_held = [0]  # budgets in progress: they keep the handler installed between their files' sections


try:  # the C function: signal.getsignal converts its answer to an enum (a failed lookup and a caught
    from _signal import getsignal as _getsignal  # ValueError for a Python handler), once per section
except ImportError:  # pragma: no cover - another Python
    _getsignal = signal.getsignal


def _install() -> None:
    global _old_handler
    if _getsignal(signal.SIGALRM) is not _fire:
        _old_handler = signal.signal(signal.SIGALRM, _fire)


def _uninstall() -> None:
    if not _timers and not _held[0] and _getsignal(signal.SIGALRM) is _fire:
        if _armed_at() is not None:  # a timer left set (_arm): cleared before the handler goes
            _set_timer(None)
        signal.signal(signal.SIGALRM, _old_handler if _old_handler is not None else signal.SIG_DFL)


def timers_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


_pid = [os.getpid()]  # this process's id, kept current in a forked child: getpid() is a system call


def _forked() -> None:
    _pid[0] = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)
else:  # pragma: no cover - not POSIX
    _pid = None


def getpid() -> int:
    """This process's id, without a system call where the fork hook keeps it."""
    return _pid[0] if _pid is not None else os.getpid()


_armed = [0, None]  # (pid, the monotonic time the interval timer fires at); a forked child has no timer


def _armed_at() -> Optional[float]:
    pid, at = _armed
    return at if pid == getpid() else None


def _set_timer(at: Optional[float]) -> None:
    """The interval timer set to fire at ``at`` (monotonic), or cleared (None)."""
    signal.setitimer(signal.ITIMER_REAL, 0 if at is None else max(at - time.monotonic(), 1e-4))
    _armed[:] = [getpid(), at]


def _arm() -> None:
    """The timer set for the earliest deadline.  A timer already set to fire earlier is left: it fires,
    finds nothing due and sets this one (:func:`_fire`).  So a run's sections, each later than the
    last, cost one signal per deadline's length instead of two system calls each."""
    if not _timers:
        if _armed_at() is not None:
            _set_timer(None)
        return
    if any(t.fired for t in _timers):
        _set_timer(time.monotonic() + REFIRE)
        return
    at = min(t.at for t in _timers)
    armed = _armed_at()
    if armed is None or armed > at:
        _set_timer(at)


def _fire(signum, frame) -> None:
    _armed[1] = None  # the timer went off (it fires once)
    now = time.monotonic()
    due = [t for t in _timers if t.fired or t.at <= now + 1e-4]
    if not due:
        _arm()
        return
    t = min(due, key=lambda x: x.at)  # the earliest (the outermost of equal ones)
    t.fired = True
    _set_timer(now + REFIRE)  # again, should a handler swallow this one
    raise t.make()


class deadline:
    """``with deadline(seconds, make_exception):`` raises ``make_exception()``
    when the block runs longer than ``seconds`` (no-op where timers are
    unavailable: not POSIX, not the main thread, ``seconds`` <= 0)."""

    def __init__(self, seconds: float, make: Callable[[], BaseException]):
        self.seconds = seconds
        self.make = make
        self.timer: Optional[_Timer] = None

    def __enter__(self):
        if self.seconds is None or not (self.seconds > 0) or not timers_available():
            return self
        _install()
        self.timer = _Timer(time.monotonic() + self.seconds, self.make)
        _timers.append(self.timer)
        _arm()
        return self

    @property
    def fired(self) -> bool:
        return self.timer is not None and self.timer.fired

    def __exit__(self, *exc):
        t = self.timer
        if t is None:
            return False
        if t in _timers:
            _timers.remove(t)  # first: a signal from here on finds nothing due
        if not _timers and not _held[0]:
            _set_timer(None)
            _uninstall()
        # otherwise the timer stays set: the next deadline of the run is later (_arm)
        return False


# ---------------------------------------------------------------------------
# Memory: a soft RLIMIT_AS around each file's work
# ---------------------------------------------------------------------------

try:
    import resource as _resource
except ImportError:  # pragma: no cover - not POSIX
    _resource = None

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


_statm = [None, -1]  # (file descriptor of /proc/self/statm, the pid that opened it): read again with pread


def address_space() -> Optional[int]:
    """Bytes of address space this process maps now (Linux), else None."""
    fd, pid = _statm
    try:
        if fd is None or pid != getpid():  # a forked worker opens its own
            fd = os.open("/proc/self/statm", os.O_RDONLY)
            _statm[:] = [fd, getpid()]
        return int(os.pread(fd, 128, 0).split()[0]) * _PAGE
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def peak_rss() -> int:
    """The process's peak resident set, bytes."""
    if _resource is None:  # pragma: no cover
        return 0
    return _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss * 1024


class _RunMemory:
    """The soft RLIMIT_AS of a run's file sections: the address space in use plus the file's budget, set
    when a file's section starts.  It stays set between sections, and is set again only when it is more
    than 1/16 of the budget off what a section wants (a run's address space grows slowly: this saves two
    system calls a section); the limit the run found is restored when its budget ends (:meth:`release`)."""

    def __init__(self):
        self.base: Optional[tuple] = None  # (soft, hard) before this run set any
        self.set_to: Optional[int] = None  # the soft limit in force that this run set
        self.pid = 0

    def limit(self, megabytes: float) -> bool:
        """Bound a section to ``megabytes`` more address space; True when a file limit is in force."""
        used = address_space() if megabytes and _resource is not None else None
        if used is None:
            self.release()
            return False
        if self.base is None or self.pid != getpid():  # a forked child starts from what it has
            self.base, self.pid, self.set_to = _resource.getrlimit(_resource.RLIMIT_AS), getpid(), None
        soft, hard = self.base
        want = used + int(megabytes * MB)
        if hard != _resource.RLIM_INFINITY:
            want = min(want, hard)
        if soft != _resource.RLIM_INFINITY and soft <= want:  # an enclosing limit is already tighter
            self.release()
            return False
        if self.set_to is not None and abs(self.set_to - want) <= megabytes * MB / 16:
            return True
        try:
            _resource.setrlimit(_resource.RLIMIT_AS, (want, hard))
        except (ValueError, OSError):
            self.release()
            return False
        self.set_to = want
        return True

    def release(self) -> None:
        if self.set_to is not None and self.pid == getpid():
            try:
                _resource.setrlimit(_resource.RLIMIT_AS, self.base)
            except (ValueError, OSError):
                pass
        self.set_to = None


class unlimited_children:
    """Around a subprocess call inside a file's section: the child (``helm``) starts
    without the file's soft memory limit (a Go runtime maps far more address space
    than it uses); the worker's whole-run limit still applies.  The soft RLIMIT_AS
    is raised to the hard one on entry and restored on exit."""

    old = None

    def __enter__(self):
        if _resource is None:
            return self
        soft, hard = _resource.getrlimit(_resource.RLIMIT_AS)
        if soft != hard:
            try:
                _resource.setrlimit(_resource.RLIMIT_AS, (hard, hard))
                self.old = (soft, hard)
            except (ValueError, OSError):
                pass
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            try:
                _resource.setrlimit(_resource.RLIMIT_AS, self.old)
            except (ValueError, OSError):
                pass
        return False


# ---------------------------------------------------------------------------
# The per-file budget
# ---------------------------------------------------------------------------

_current: Optional["Budget"] = None  # the budget of the run in progress (stage labels from deep modules)


def stage(name: str) -> None:
    """Name the stage the current file is in (for the over-budget message); no-op outside a budget."""
    b = _current
    if b is not None and b.active is not None and b.stage_name != name:
        b.stage_name = name
        if b.progress is not None:
            b.progress("S", b.active, name, 0)


class Budget:
    """The budgets of one run's files (display path -> seconds spent) and the files over budget.

    ``limits(path) -> (seconds, megabytes)``: the file's budget (its config may lower the run's);
    ``progress(event, path, stage, seconds_left)``: told when a file's section starts ("B"),
    changes stage ("S") and ends ("E") - the worker's parent watches it;
    ``skip``: display path -> (what happened, stage) for the files a previous worker was stopped in.
    """

    def __init__(self, seconds: float = TIME_DEFAULT, megabytes: float = MEMORY_DEFAULT,
                 limits: Optional[Callable[[str], tuple]] = None, progress: Optional[Callable] = None,
                 skip: Optional[dict] = None):
        self.seconds = seconds
        self.megabytes = megabytes
        self.limits = limits
        self.progress = progress
        self.skip = dict(skip or {})
        self.spent: dict = {}  # path -> seconds used so far
        self.over: dict = {}  # path -> OverBudget
        self.active: Optional[str] = None
        self.t0 = 0.0  # when the active file's section started
        self.stage_name = ""
        self._limits: dict = {}
        self.memory = _RunMemory()

    def __enter__(self):
        global _current
        self._prev = _current
        _current = self
        if timers_available():
            _held[0] += 1
            _install()
        self._held = timers_available()
        return self

    def __exit__(self, *exc):
        global _current
        _current = self._prev
        self.memory.release()
        if self._held:
            _held[0] -= 1
            _uninstall()
        return False

    def limit_of(self, path: str) -> tuple:
        got = self._limits.get(path)
        if got is None:
            if self.limits is None:
                got = self.seconds, self.megabytes
            else:
                s, m = self.limits(path)
                got = min(s or self.seconds, self.seconds), min(m or self.megabytes, self.megabytes)
            self._limits[path] = got
        return got

    def charge(self, path: str, stage_name: str) -> "_Section":
        """``with budget.charge(path, stage):`` the block's time and memory count against ``path``'s budget;
        raises :class:`OverBudget` when the file is (or goes) over budget.  Nested sections (any path)
        only rename the stage: the outermost file pays."""
        return _Section(self, path, stage_name)

    def record(self, path: str, exc: OverBudget) -> None:
        self.over.setdefault(path, exc)


class _Section:
    __slots__ = ("b", "path", "stage", "outer", "prev_stage", "timer", "limited", "t0")

    def __init__(self, b: Budget, path: str, stage_name: str):
        self.b = b
        self.path = path
        self.stage = stage_name

    def __enter__(self):
        b = self.b
        self.outer = b.active is None
        self.prev_stage = b.stage_name
        if not self.outer:
            stage(self.stage)
            return self
        path = self.path
        if path in b.over:
            raise b.over[path]
        if path in b.skip:
            detail, st = b.skip[path]
            exc = OverBudget("stopped", st or self.stage, "", detail)
            b.record(path, exc)
            raise exc
        seconds, megabytes = b.limit_of(path)
        left = seconds - b.spent.get(path, 0.0)
        b.active, b.stage_name = path, self.stage
        if b.progress is not None:
            b.progress("B", path, self.stage, [round(left, 3), seconds])
        self.t0 = b.t0 = time.monotonic()
        limit = f"{seconds:g} s"
        self.timer = deadline(max(left, 1e-3), lambda: OverBudget("time", b.stage_name, limit))
        self.limited = False
        try:
            self.timer.__enter__()
            self.limited = b.memory.limit(megabytes)
        except BaseException:
            self._leave()
            raise
        return self

    def _leave(self) -> None:
        b = self.b
        self.timer.__exit__(None, None, None)
        b.spent[self.path] = b.spent.get(self.path, 0.0) + (time.monotonic() - self.t0)
        b.active = None
        if b.progress is not None:
            b.progress("E", self.path, b.stage_name, 0)

    def __exit__(self, et, ev, tb):
        b = self.b
        if not self.outer:
            b.stage_name = self.prev_stage
            return False
        stage_now = b.stage_name
        fired = self.timer.fired
        self._leave()
        if isinstance(ev, OverBudget):
            b.record(self.path, ev)
            return False
        if isinstance(ev, MemoryError) or (et is not None and issubclass(et, MemoryError)):
            # the file's own limit, or the whole run's (pdlint.worker) when that one was the tighter.  What the
            # failed work allocated is still reachable from the traceback, and the soft limit still in force:
            # lifted and dropped first, or making the report itself raises MemoryError again, an internal error
            # that lost the whole run (field test rw20/h: a Helm template doubling a string, --memory-per-file 100)
            if self.limited:
                b.memory.release()
            if ev is not None:
                ev.__traceback__ = None
            tb = None  # noqa: F841
            limit = f"{b.limit_of(self.path)[1]:g} MB" if self.limited else "the run's memory limit"
            exc = OverBudget("memory", stage_now, limit)
            b.record(self.path, exc)
            raise exc from None
        if fired:  # the timer's exception was swallowed on the way: still over budget
            exc = OverBudget("time", stage_now, f"{b.limit_of(self.path)[0]:g} s")
            b.record(self.path, exc)
            raise exc from None
        return False


def current() -> Optional[Budget]:
    return _current


def time_left() -> Optional[float]:
    """Seconds the file being checked has left of its budget; None outside one.  For work a file may
    do without (another run of a script with other values: extract._env_runs), not to be cut by it."""
    b = _current
    if b is None or b.active is None:
        return None
    return b.limit_of(b.active)[0] - b.spent.get(b.active, 0.0) - (time.monotonic() - b.t0)


class _Free:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_FREE = _Free()


def charged(path: str, stage_name: str):
    """The current run's :meth:`Budget.charge` for ``path``, or a no-op context outside a budgeted run."""
    b = _current
    return _FREE if b is None else _Section(b, path, stage_name)
