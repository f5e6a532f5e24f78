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
