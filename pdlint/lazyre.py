"""Module-level regular expressions compiled on first use.

pdlint's modules define about 370 patterns at import time, and ``re.compile`` runs
Python code (the parser and compiler in ``re._parser`` / ``re._compiler``): about
80 ms of a run that re-checks one changed file in a cached repository (issue 11's
"one changed file" figure), while such a run uses some 30 of them.  A pattern
made with :func:`compile` is compiled the first time one of its methods is looked
up and is then a plain attribute of the object: no cost on later calls.

``.pattern`` is there from the start (patterns built from other patterns' text do
not compile them).  The object is not a :class:`re.Pattern`: pass ``.compiled`` to
code that needs one (``re.sub(PAT, ...)``, ``isinstance``).  Every pattern is
compiled once by the test suite (tests/test_lazyre.py), so a bad pattern fails
there, not at its first use in a run.
"""

from __future__ import annotations

import re

_METHODS = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
            "groupindex", "groups", "flags")


class LazyPattern:
    """``re.compile(pattern, flags)`` when first used (see the module docstring)."""

    def __init__(self, pattern, flags: int = 0):
        self.pattern = pattern
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern:
        c = self.__dict__.get("_compiled")
        if c is None:
            c = re.compile(self.pattern, self._flags)
            d = self.__dict__
            for name in _METHODS:
                d[name] = getattr(c, name)
            d["_compiled"] = c
        return c

    def __getattr__(self, name: str):
        # only for names not set yet: the methods before the first use
        if name in _METHODS:
            return getattr(self.compiled, name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"lazyre.compile({self.pattern!r})"


def compile(pattern, flags: int = 0) -> LazyPattern:  # noqa: A001 - the name the call sites read like re's
    return LazyPattern(pattern, flags)


class _Seeded(LazyPattern):
    """A :class:`LazyPattern` that ``re.compile`` returns from its cache (:func:`seed`): its compilation takes
    itself out of the cache first (else ``re.compile`` would return it again)."""

    def __init__(self, pattern, flags: int, key: tuple):
        super().__init__(pattern, flags)
        self._key = key

    @property
    def compiled(self) -> re.Pattern:
        if self.__dict__.get("_compiled") is None:
            for name in ("_cache", "_cache2"):  # (3.12 keeps a second cache)
                cache = getattr(re, name, None)
                if isinstance(cache, dict) and cache.get(self._key) is self:
                    del cache[self._key]
        return LazyPattern.compiled.fget(self)


def seed(pattern: str, flags: int = 0) -> None:
    """Make a library's module-level ``re.compile(pattern, flags)`` return a pattern compiled on first use, by
    placing one in ``re``'s compile cache before the library is imported.  For a library pattern that is costly
    to compile and that pdlint's use of the library never runs: PyYAML's ``Reader.NON_PRINTABLE`` (a class of
    astral ranges: 56M instructions, 9 ms - a fifth of ``import yaml``), which only the pure-Python reader uses,
    never the C loader pdlint reads YAML with.  A Python whose ``re`` keeps no such cache is left alone (the
    library compiles the pattern itself, as without this)."""
    cache = getattr(re, "_cache", None)
    if not isinstance(cache, dict):
        return
    key = (type(pattern), pattern, flags)
    cache.setdefault(key, _Seeded(pattern, flags, key))

