"""Skip rule predicates that cannot fire on a launch, soundly.

A rule predicate is a deterministic function of the values it reads through
:class:`~pdlint.engines.sglang.resolve.Args` (flags, resolved values, the
environment).  Run it once on the *minimal* launch of a role
(``--model-path M [--disaggregation-mode ROLE]``) and record what it read.  On
any launch of that role whose values differ from the minimal launch in none of
those flags and whose environment sets none of those variables, every read
returns the same value as on the minimal launch, so the predicate takes the
same path to the same result: it does not fire unless it fired on the minimal
launch.  The check stage then evaluates ~10 predicates per launch instead of
~600, with the same findings.
"""

from __future__ import annotations

import functools
from typing import Optional

from pdlint import engines
from pdlint.engines.sglang import argv as argv_mod
from pdlint.engines.sglang import flags
from pdlint.engines.sglang.resolve import Args
from pdlint.records import dataclass
from pdlint.text import TStr

_MISSING = object()


@dataclass(frozen=True)
class Profile:
    always: bool  # fires (or fails) on the minimal launch: evaluate every time
    reads: frozenset  # table dests read on the minimal launch
    env: frozenset  # environment variables looked at


class _Seen:
    def __init__(self):
        self.on = False
        self.dests: set = set()
        self.env: set = set()


class _Env(dict):
    """The launch environment, recording every name looked up."""

    def __init__(self, seen: _Seen, data: dict):
        super().__init__(data)
        self.seen = seen

    def _note(self, name):
        if self.seen.on:
            self.seen.env.add(name)

    def get(self, name, default=None):
        self._note(name)
        return super().get(name, default)

    def __contains__(self, name):
        self._note(name)
        return super().__contains__(name)

    def __getitem__(self, name):
        self._note(name)
        return super().__getitem__(name)


class _Parsed:
    """A parse result that records the dests read through it."""

    def __init__(self, seen: _Seen, parsed: argv_mod.Parsed):
        self._seen = seen
        self._p = parsed

    def __getattr__(self, name):
        return getattr(self._p, name)

    def _note(self, dest):
        if self._seen.on:
            self._seen.dests.add(self._p.dest(dest))

    def value(self, dest):
        self._note(dest)
        return self._p.value(dest)

    def explicit(self, dest):
        self._note(dest)
        return self._p.explicit(dest)

    def occurrence(self, dest):
        self._note(dest)
        return self._p.occurrence(dest)


class _Recording(Args):
    def __init__(self, seen: _Seen, parsed, env, version):
        self._seen = seen
        super().__init__(_Parsed(seen, parsed), env, version)
        self.env = _Env(seen, self.env)  # Args copies the mapping it is given

    def get(self, dest):
        if self._seen.on:
            self._seen.dests.add(self.parsed.dest(dest))
        return super().get(dest)


def _minimal_argv(role: str) -> list:
    words = ["--model-path", "M"] + (["--disaggregation-mode", role] if role in ("prefill", "decode") else [])
    return [TStr.synthetic(w, "<minimal>") for w in words]


@functools.lru_cache(maxsize=None)
def minimal(version: str, role: str) -> Args:
    table = flags.load(version)
    return Args(argv_mod.parse(table, _minimal_argv(role)), {}, version)


@functools.lru_cache(maxsize=None)
def profiles(version: str, role: str, codes: tuple) -> dict:
    """code -> Profile for the given rules on a ``role`` server of ``version``."""
    from pdlint.rules import rule as rule_of
    table = flags.load(version)
    out = {}
    # one launch for every rule: predicates only read it (Args resolves everything up front and keeps
    # no lazy state a first reader could fill for a later one), and each read is recorded afresh
    seen = _Seen()
    args = _Recording(seen, argv_mod.parse(table, _minimal_argv(role)), {}, version)
    for rule in (rule_of(c) for c in codes):
        seen.dests, seen.env = set(), set()
        seen.on = True
        try:
            fired = bool(rule.check(args))
        except Exception:
            fired = True  # let the real run report it
        finally:
            seen.on = False
        out[rule.code] = Profile(fired, frozenset(seen.dests), frozenset(seen.env))
    return out


@dataclass(frozen=True)
class Index:
    always: tuple  # rule positions evaluated on every launch
    by_dest: dict  # table dest -> rule positions that read it
    by_env: dict  # variable -> rule positions that read it


KNOWN_INDEXES = "sglang prefilter"  # pdlint.engines.KNOWN: indexes() of an earlier run with the same code and data
_DECIDED: dict = {}  # "version\trole" -> the index this process built, as stored


def _key(version: str, role: str) -> str:
    return f"{version}\t{role}"


@functools.lru_cache(maxsize=None)
def index(version: str, role: str, codes: tuple) -> Index:
    key = _key(version, role)
    doc = engines.KNOWN.get(KNOWN_INDEXES, {}).get(key)
    if doc is None or tuple(doc["codes"]) != codes:
        # the predicates on the minimal launch: a function of pdlint's code and tables only (tens of
        # milliseconds a run), so a later run with the same code takes it from the result cache
        profs = profiles(version, role, codes)
        always, by_dest, by_env = [], {}, {}
        for i, code in enumerate(codes):
            p = profs[code]
            if p.always:
                always.append(i)
            for d in sorted(p.reads):
                by_dest.setdefault(d, []).append(i)
            for e in sorted(p.env):
                by_env.setdefault(e, []).append(i)
        doc = {"codes": list(codes), "always": always, "by_dest": by_dest, "by_env": by_env}
    _DECIDED[key] = doc
    return Index(tuple(doc["always"]), doc["by_dest"], doc["by_env"])


def indexes() -> dict:
    """The indexes this process has built or taken, for a later run (``pdlint.engines.KNOWN``)."""
    return dict(_DECIDED)



def selected(args: Args, version: str, role: Optional[str], codes: tuple) -> Optional[list]:
    """Positions (in ``codes``) of the rules to evaluate on this launch, in
    order; None: evaluate them all."""
    if role is None:
        return None
    differ = changed(args, version, role)
    if differ is None:
        return None
    ix = index(version, role, codes)
    picked = set(ix.always)
    for d in differ:
        picked.update(ix.by_dest.get(d, ()))
    for e in args.env:
        picked.update(ix.by_env.get(e, ()))
    return sorted(picked)


def model_class(path) -> str:
    """What rules distinguish in a model path: the pipeline's early return for
    ``dummy``/``none``, remote URIs, a ``:`` (served-model-name); otherwise any
    path behaves like the minimal launch's ``M`` (tests/test_prefilter.py)."""
    if not isinstance(path, str):
        return repr(path)
    if path.lower() in ("dummy", "none"):
        return path.lower()
    if "://" in path:
        return "uri"
    return "colon" if ":" in path else "M"


def changed(args: Args, version: str, role: str) -> Optional[set]:
    """Table dests whose value may differ from the minimal launch; None: anything may."""
    if args.parsed.incomplete:
        return None
    base = minimal(version, role)
    dest = args.parsed.dest
    out = {dest(d) for d in args.parsed.last}
    if model_class(args.get("model_path")) == "M" and args.explicit("model_path"):
        out.discard(dest("model_path"))
    for d, v in args.overrides.items():
        if base.overrides.get(d, _MISSING) != v:
            out.add(dest(d))
    return out
