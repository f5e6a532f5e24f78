"""Which of many runs of one launch text pdlint builds when it cannot build them all.

A job matrix, the calls of one Justfile recipe, the recursive ``$(MAKE)`` runs of one target: each is the same
launch text run with other values, and pdlint builds a bounded number of them.  The first ones in the file are
often alike (a matrix's product puts every ``decode`` combination before the first ``prefill``; eight decode
calls before the prefill one): the runs kept are those that bring the most values no kept run has yet, so every
role and every value is run once where the bound allows it (field test rw23/h: the prefill runs and their errors
were dropped without a word).  Callers report the runs left out.
"""

from __future__ import annotations


#: the features of one item past which its pairs are not added (a call with many arguments)
MAX_PAIRED = 8


def most_varied(features: list, limit: int) -> list:
    """Indices (ascending) of at most ``limit`` of the items whose ``features`` (a set of hashable values each)
    are given: one at a time the item with the most features and pairs of features no chosen item has (ties: the
    earliest), while one brings any; then the first others.  Pairs count: an error needs a role and a flag value
    together, and every value once is not every role with every value (rw25/h item 10: of 48 matrix runs, the one
    prefill kept carried a harmless extra, and the prefill with the refused flag was never built)."""
    if len(features) <= limit:
        return list(range(len(features)))
    features = [f | {frozenset(p) for p in _pairs(f)} if len(f) <= MAX_PAIRED else f for f in features]
    seen: set = set()
    chosen: list = []
    while len(chosen) < limit:
        best, gain = -1, 0
        for i, f in enumerate(features):
            g = len(f - seen)
            if g > gain:
                best, gain = i, g
        if best < 0:
            break
        chosen.append(best)
        seen |= features[best]
    taken = set(chosen)
    chosen += [i for i in range(len(features)) if i not in taken][:limit - len(chosen)]
    return sorted(chosen)


def _pairs(f: set):
    items = sorted(f, key=repr)
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            yield (a, b)
