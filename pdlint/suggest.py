"""``did you mean``: close matches for a misspelt option name, for every engine.

A suggestion is offered only when it is a likely typo of what was written, so
that a wrong flag never gets a confident but unrelated hint (``--model-name``
is not a typo of ``--model-path``).  Two names are close when, after dropping
the leading dashes, lower-casing and reading ``_`` as ``-``:

* they are equal (``--tp_size`` -> ``--tp-size``), or
* their optimal-string-alignment distance (insertions, deletions,
  substitutions and swaps of two neighbours, each costing 1) is at most 1 for
  names of up to 4 characters, 2 up to 12 characters and 3 beyond, and smaller
  than a third of the written name.

At most three suggestions, nearest first (ties in the order of ``options``); only
the exact ones when the name differs from an option only in dashes or case.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Iterable


def _norm(name: str) -> str:
    return name.lstrip("-").lower().replace("_", "-")


def _limit(n: int) -> int:
    if n <= 4:
        return 1
    return 2 if n <= 12 else 3


def distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance of ``a`` and ``b``; ``limit + 1`` once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[len(b)]


@functools.lru_cache(maxsize=64)
def _index(options: tuple) -> dict:
    """``options`` by the length of their normalised name: ``{length: [(first index, option, normalised, its
    character counts)]}``, each option once (its first place)."""
    out: dict = {}
    seen = set()
    for i, opt in enumerate(options):
        if opt in seen:
            continue
        seen.add(opt)
        norm = _norm(opt)
        out.setdefault(len(norm), []).append((i, opt, norm, dict(Counter(norm))))
    return out


def close_matches(name: str, options: Iterable[str], n: int = 3) -> list:
    """Options that ``name`` is a likely misspelling of, nearest first.  Only the options whose length and
    characters could be within the distance are aligned (an alignment costs ~10 us; 1,000 unknown flags of one
    launch against SGLang's 560 options took 7 s: hostile-input round rw27/h item P20b)."""
    want = _norm(name)
    if not want:
        return []
    return [opt for _, _, opt in _scored(want, options if isinstance(options, tuple) else tuple(options))[:n]]


@functools.lru_cache(maxsize=512)
def _scored(want: str, options: tuple) -> tuple:
    limit = min(_limit(len(want)), max(0, (len(want) - 1) // 3))
    index = _index(options)
    counts = tuple(Counter(want).items())
    scored = []
    for length in range(len(want) - limit, len(want) + limit + 1):
        shorter = len(want) - length
        for i, opt, norm, have in index.get(length, ()):
            # an edit changes at most one character's count up and one down (a swap: none), so the characters
            # ``want`` has more of than ``norm`` (and those it has fewer of) bound the distance from below
            more = 0
            for ch, c in counts:
                h = have.get(ch, 0)
                if c > h:
                    more += c - h
            if more > limit or more - shorter > limit:
                continue
            d = distance(want, norm, limit)
            if d <= limit:
                scored.append((d, i, opt))
    scored.sort()
    if scored and scored[0][0] == 0:  # the same name written with other dashes/case: nothing else to guess
        scored = [s for s in scored if s[0] == 0]
    return tuple(scored)


def hint(name: str, options: Iterable[str]) -> str:
    """``"; did you mean --x?"`` (or ``--x or --y``), or ``""`` when nothing is close."""
    close = close_matches(name, options)
    return "; did you mean " + " or ".join(close) + "?" if close else ""


__all__ = ["close_matches", "distance", "hint"]
