"""Which of many runs of one launch text pdlint builds when it cannot build them all.

A job matrix, the calls of one Justfile recipe, the recursive ``$(MAKE)`` runs of one target: each is the same
launch text run with other values, and pdlint builds a bounded number of them.  The first ones in the file are
often alike (a matrix's product puts every ``decode`` combination before the first ``prefill``; eight decode
calls before the prefill one): the runs kept are those that bring the most values no kept run has yet, so every
role and every value is run once where the bound allows it (field test rw23/h: the prefill runs and their errors
were dropped without a word).  Callers report the runs left out.
"""

from __future__ import annotations

from typing import Optional


#: the features of one item past which its pairs are not added (a call with many arguments)
MAX_PAIRED = 8


def most_varied(features: list, limit: int, groups: Optional[list] = None) -> list:
    """Indices (ascending) of at most ``limit`` of the items whose ``features`` (a set of hashable values each)
    are given: one at a time the item with the most features and pairs of features no chosen item has (ties: the
    earliest), while one brings any; then the first others.  Pairs count: an error needs a role and a flag value
    together, and every value once is not every role with every value (rw25/h item 10: of 48 matrix runs, the one
    prefill kept carried a harmless extra, and the prefill with the refused flag was never built).

    ``groups`` (one hashable per item): items of one group are chosen together or not at all, a group as one
    item with the features of all its members (a matrix's runs of one combination of its other keys with each
    value of its role key: rw26/h item 8, a `role x model` matrix of 32 kept 15 prefill runs and 1 decode,
    paired across models); a group larger than what is left is not taken, and when no group fits at all the
    items are chosen one by one."""
    if len(features) <= limit:
        return list(range(len(features)))
    features = [f | {frozenset(p) for p in _pairs(f)} if len(f) <= MAX_PAIRED else f for f in features]
    if groups is not None and len(groups) == len(features):
        members: dict = {}
        for i, g in enumerate(groups):
            members.setdefault(g, []).append(i)
        units = [m for m in members.values() if len(m) <= limit]
        if units and any(len(m) > 1 for m in units):
            chosen = _choose([set().union(*(features[i] for i in m)) for m in units], [len(m) for m in units],
                             limit)
            return sorted(i for u in chosen for i in units[u])
    return sorted(_choose(features, [1] * len(features), limit))


def _choose(features: list, sizes: list, limit: int) -> list:
    """Indices of units (``features``, ``sizes`` each) whose sizes sum to at most ``limit``: the one bringing
    the most features not yet seen first (ties: the earliest), while one brings any; then the first others."""
    seen: set = set()
    chosen: list = []
    taken: set = set()
    room = limit
    while room > 0:
        best, gain = -1, 0
        for i, f in enumerate(features):
            if sizes[i] > room or i in taken:
                continue
            g = len(f - seen)
            if g > gain:
                best, gain = i, g
        if best < 0:
            break
        chosen.append(best)
        taken.add(best)
        room -= sizes[best]
        seen |= features[best]
    for i in range(len(features)):
        if room <= 0:
            break
        if i not in taken and sizes[i] <= room:
            chosen.append(i)
            room -= sizes[i]
    return chosen


def _pairs(f: set):
    items = sorted(f, key=repr)
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            yield (a, b)
