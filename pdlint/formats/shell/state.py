"""The state of one evaluation path: variables, functions, positional
parameters, the branch context, and pending control flow.

Forking a path (both arms of an ``if`` whose condition is unknown) copies the
state; values are immutable :class:`~pdlint.text.TStr` objects or tuples of
them, so copies are shallow.
"""

from __future__ import annotations

from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass
from pdlint.text import EMPTY, TStr


#: the variable holding the directory a literal relative ``cd`` moved to, from the one the script started in
#: (a name no script can read; see ``interp._moved``)
CWD = "\0cwd"
#: prefixes of the names (no script can read them) that hold a variable's attributes: ``declare -n R=V`` stores
#: ``V`` under NAMEREF + "R", ``declare -i N`` an empty value under INTEGER + "N" (hostile-input round rw27/h
#: items P7 and P8); kept in ``vars`` so paths fork, merge and restore them (``local -n``) as values
NAMEREF = "\0n "
INTEGER = "\0i "
_MAX_REFS = 8
_NAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Var:
    """A variable's value: a TStr (scalar), a tuple of TStr (indexed array) or
    None (known to be unset).  ``unknown`` names the variables with no known
    value that went into it (they are placeholders inside ``value``).  An
    associative array (``declare -A``) has ``keys``: the key of each item of
    ``value``, in the order they were set.  An indexed array with gaps (``unset 'A[1]'``, ``X[5]=2`` past its
    end) has ``idx``: the index of each item, ascending; None for the usual 0, 1, 2... (hostile-input round
    rw27/h items P3 and P9)."""

    __slots__ = ("value", "unknown", "keys", "idx")

    def __init__(self, value, unknown: frozenset = frozenset(), keys: Optional[tuple] = None,
                 idx: Optional[tuple] = None):
        self.value = value
        self.unknown = unknown
        self.keys = keys
        self.idx = idx if idx is not None and idx != tuple(range(len(idx))) else None

    def indices(self) -> tuple:
        """The index of each item of an indexed array."""
        v = self.value
        n = len(v) if isinstance(v, tuple) else (0 if v is None else 1)
        return self.idx if self.idx is not None else tuple(range(n))

    @property
    def is_assoc(self) -> bool:
        return self.keys is not None

    def item(self, key: str) -> Optional[TStr]:
        """An associative array's value for ``key``; None when it has none."""
        for k, v in zip(self.keys or (), self.value or ()):
            if k == key:
                return v
        return None

    @property
    def is_array(self) -> bool:
        return isinstance(self.value, tuple)

    def scalar(self) -> Optional[TStr]:
        """The value as a scalar (an array's element 0), None when unset."""
        v = self.value
        if isinstance(v, tuple):
            if self.idx is not None:
                return v[0] if v and self.idx[0] == 0 else None
            return v[0] if v else None
        return v

    def same(self, other: "Var") -> bool:
        if self is other:
            return True
        return self.unknown == other.unknown and self.keys == other.keys and \
            _value_key(self.value) == _value_key(other.value)


def _value_key(value):
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple((t.text, t.pieces) for t in value)
    return (value.text, value.pieces)


def tstr_key(t: TStr) -> tuple:
    return (t.text, t.pieces)


#: the placeholder word an unknown ``"$@"`` / ``"$*"`` expands to: passed on (``router "$@"``), it stands for as
#: many words as the caller's arguments hold, not one
ALL_ARGS = frozenset({"$@", "${@}", "$*", "${*}"})


def rest_of_args(positional: Optional[tuple]) -> bool:
    """Does a known argument list end with the caller's unknown arguments (``f a "$@"``)?"""
    if not positional:
        return False
    last = positional[-1].value
    return isinstance(last, TStr) and last.opaque and last.text in ALL_ARGS


@dataclass(frozen=True)
class Ctx:
    """One entry of a path's context.

    ``enclosing`` entries describe constructs the current command is inside
    (an ``if`` arm, a function call, an ``eval``); when the construct ends, its
    entry is dropped unless it was a *decision*: an arm entered on an unknown
    condition that bound a variable or names a role.  Decisions stay on the
    path (``enclosing=False``) because the commands after the construct
    depend on them.
    """

    text: str
    role: Optional[str] = None
    decision: bool = False
    enclosing: bool = True
    remote: bool = False  # the commands inside run on another host (``ssh HOST COMMAND``)
    image: str = ""  # the commands inside run in this container image (``docker run IMAGE bash -c ...``)
    container: str = ""  # ... in the container these words made (launchers.container_run)
    # a loop iteration or function call whose launches stay running beside the next one's (Joins.overlapping):
    # the launches of one line it and another such entry start are two processes (pdlint.pairing)
    instance: bool = False

    def closed(self) -> "Ctx":
        return Ctx(self.text, self.role, self.decision, False, self.remote, self.image, self.container, self.instance)


@dataclass(frozen=True)
class Fact:
    """What a condition implies when it is true (or false): ``name`` equals
    ``value`` (a literal written in the condition), and/or a role."""

    name: Optional[str]
    value: Optional[TStr]
    role: Optional[str] = None


@dataclass(frozen=True)
class FuncDef:
    name: str
    body: object  # tree-sitter node
    unit: object  # syntax.Unit
    key: tuple


class State:
    """Mutable state of one path (mutated in place; :meth:`fork` to branch)."""

    __slots__ = ("vars", "exported", "positional", "pos_bind", "funcs", "frames", "ctx",
                 "flow", "flow_n", "allexport", "out", "out_bad", "jobs", "ended", "picks")

    def __init__(self):
        self.vars: dict = {}  # name -> Var; a missing name has no known value
        self.exported: dict = {}  # names in the order they were first exported
        self.positional: Optional[tuple] = None  # tuple of Var, None = unknown
        self.pos_bind: dict = {}  # index -> Var bound by a condition while positional is unknown
        self.funcs: dict = {}  # name -> FuncDef
        self.frames: list = []  # per function call: name -> previous Var (or None) for `local`
        self.ctx: tuple = ()  # tuple of Ctx
        self.flow: Optional[str] = None  # 'exit' | 'return' | 'break' | 'continue'
        self.flow_n: int = 0  # loop levels for break/continue
        self.allexport = False
        self.out: Optional[tuple] = None  # captured stdout inside $(...): tuple of TStr
        self.out_bad = False  # the captured output is not known
        self.jobs: tuple = ()  # background jobs started on this path: tuples of ShellCommand
        self.ended: frozenset = frozenset()  # serials of those commands a `kill`/`pkill` on this path ended
        # command substitutions this path took one of several outputs of (Interpreter.per_output): (id(unit),
        # start) -> the output's index; replaced, never changed in place, so forks share it
        self.picks: Optional[dict] = None

    def fork(self) -> "State":
        s = State.__new__(State)
        s.vars = dict(self.vars)
        s.exported = dict(self.exported)
        s.positional = self.positional
        s.pos_bind = dict(self.pos_bind)
        s.funcs = dict(self.funcs)
        s.frames = [dict(f) for f in self.frames]
        s.ctx = self.ctx
        s.flow = self.flow
        s.flow_n = self.flow_n
        s.allexport = self.allexport
        s.out = self.out
        s.out_bad = self.out_bad
        s.jobs = self.jobs
        s.ended = self.ended
        s.picks = self.picks
        return s

    # -- variables ------------------------------------------------------------
    def resolve(self, name: str) -> Optional[str]:
        """The variable ``name`` stands for: itself, or the one a nameref chain (``declare -n``) ends at; None
        when a reference in it is not known (or the chain loops)."""
        for _ in range(_MAX_REFS):
            ref = self.vars.get(NAMEREF + name)
            if ref is None:
                return name
            t = ref.value
            if not isinstance(t, TStr) or t.opaque or not _NAME.fullmatch(t.text):
                return None
            name = t.text
        return None

    def assign(self, name: str, var: Var, export: bool = False) -> None:
        if NAMEREF + name in self.vars:
            name = self.resolve(name) or name
        self.vars[name] = var
        if export or self.allexport:
            self.exported[name] = True

    def declare_local(self, name: str) -> None:
        """Remember the outer value of ``name`` so the function's return restores it."""
        if self.frames and name not in self.frames[-1]:
            self.frames[-1][name] = self.vars.get(name, _ABSENT)

    def pop_frame(self) -> None:
        if not self.frames:
            return
        frame = self.frames.pop()
        for name, old in frame.items():
            if old is _ABSENT:
                self.vars.pop(name, None)
            else:
                self.vars[name] = old

    # -- context --------------------------------------------------------------
    def push_ctx(self, entry: Ctx) -> int:
        depth = len(self.ctx)
        self.ctx = self.ctx + (entry,)
        return depth

    def close_ctx(self, depth: int, keep: bool = True) -> None:
        """Leave the construct whose context entry was pushed at ``depth``;
        its decisions stay on the path unless ``keep`` is False (a loop body:
        one iteration's decisions say nothing about the path after the loop)."""
        if len(self.ctx) <= depth:
            return
        kept = tuple(c.closed() for c in self.ctx[depth:] if c.decision and keep)
        self.ctx = self.ctx[:depth] + kept

    def role_hint(self) -> Optional[str]:
        for c in reversed(self.ctx):
            if c.role:
                return c.role
        return None

    def context_text(self) -> str:
        return " > ".join(c.text if c.enclosing else "after " + c.text for c in self.ctx)

    # -- comparison -----------------------------------------------------------
    def enclosing(self) -> tuple:
        return tuple(c for c in self.ctx if c.enclosing)

    def absorb(self, other: "State") -> None:
        """Merge a path that is :meth:`same` as this one: decisions the two
        paths do not share are dropped (their later commands are identical, so
        a role hint they would disagree on means nothing)."""
        if self.ctx != other.ctx:
            self.ctx = tuple(c for c in self.ctx if c.enclosing or c in other.ctx)

    def fingerprint(self) -> int:
        """A hash that :meth:`same` states share (cheap pre-filter for merging)."""
        h = hash((len(self.vars), len(self.funcs), self.flow, self.positional is None, len(self.frames)))
        for name, var in self.vars.items():
            value = var.value
            h ^= hash((name, value.text if isinstance(value, TStr) else None if value is None else len(value)))
        return h

    def same(self, other: "State") -> bool:
        """True when both paths would behave identically from here on (apart
        from the decisions that led to them, see :meth:`absorb`)."""
        if self is other:
            return True
        if (self.flow != other.flow or self.flow_n != other.flow_n or len(self.vars) != len(other.vars)
                or self.exported != other.exported or self.allexport != other.allexport
                or self.out_bad != other.out_bad):
            return False
        if self.ctx != other.ctx and self.enclosing() != other.enclosing():
            return False
        if self.vars.keys() != other.vars.keys() or self.funcs.keys() != other.funcs.keys():
            return False
        ovars = other.vars
        for k, v in self.vars.items():
            w = ovars[k]
            if v is not w and not v.same(w):
                return False
        for k, f in self.funcs.items():
            if f.key != other.funcs[k].key:
                return False
        if not _same_vars(self.positional, other.positional):
            return False
        if self.pos_bind.keys() != other.pos_bind.keys():
            return False
        if any(not v.same(other.pos_bind[k]) for k, v in self.pos_bind.items()):
            return False
        if len(self.frames) != len(other.frames):
            return False
        for fa, fb in zip(self.frames, other.frames):
            if fa.keys() != fb.keys():
                return False
            for k, v in fa.items():
                w = fb[k]
                if v is not w and (v is _ABSENT or w is _ABSENT or not v.same(w)):
                    return False
        if (self.out is None) != (other.out is None):
            return False
        if self.out is not None and tuple(map(tstr_key, self.out)) != tuple(map(tstr_key, other.out)):
            return False
        return True


def _same_vars(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x.same(y) for x, y in zip(a, b))


class _Absent:
    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<absent>"


_ABSENT = _Absent()


class Out:
    """One path after a statement: its state, the exit status (True = success,
    False = failure, None = unknown) and what a success or a failure implies.
    ``forked`` marks a status that is known only because the path was split on
    an unknown condition inside the statement (``[ "$m" = p ] && ...``)."""

    __slots__ = ("st", "status", "if_true", "if_false", "forked", "assumed")

    def __init__(self, st: State, status: Optional[bool] = True, if_true: tuple = (), if_false: tuple = (),
                 forked: bool = False, assumed: bool = False):
        self.st = st
        self.status = status
        self.if_true = if_true
        self.if_false = if_false
        self.forked = forked
        self.assumed = assumed  # the status rests on an unknown variable counted as unset (conditions.Cond)


EMPTY_VAR = Var(EMPTY)
