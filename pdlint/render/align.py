"""Bounded alignment of a template's plain output to its source (the tracing fallback).

When a template post-processes captured text so that tracing markers would
change the result, its output is mapped back to the template by aligning
the two texts.  ``difflib.SequenceMatcher`` does that well on ordinary
templates but its recursion makes it cubic on repetitive text (a 2,000
character ``x y {{ i }}`` block: 28 s; 30 KB: hours).  This module runs the
same algorithm (the same blocks, so the same mapping, whenever it finishes)
with a step budget counted exactly (the inner loop's iterations, by
``bisect``, before they run):

1. characters, when the whole alignment fits in :data:`STEPS`;
2. else lines (hashed); an output line in a run of changed lines goes with
   the template line of that run it shares the most words with, again by
   characters while the steps the line level left last; lines not aligned
   map to the start of their template line (not exact);
3. else the output is "not aligned": one inexact piece at the template's
   first character.

Each level costs at most :data:`STEPS` inner-loop steps (about 0.3 s on an
idle machine), so the fallback is bounded whatever the input.  A level whose
very first search cannot fit (counted in linear time from the element
counts) is skipped at once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter

from pdlint.text import Piece, SourceFile, TStr

STEPS = 1_000_000  # inner-loop steps of the matcher per level (characters, then lines): ~0.3 s


_WORD_LINES = 8  # template lines a word votes for when output lines are matched to template lines


class _Over(Exception):
    pass


class _Matcher:
    """``difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()`` with a step budget."""

    def __init__(self, a, b, steps: int):
        self.a, self.b = a, b
        self.steps = steps
        b2j: dict = {}
        for i, elt in enumerate(b):
            b2j.setdefault(elt, []).append(i)
        self.b2j = b2j

    def fits(self) -> bool:
        """Can the first (whole-range) search fit in the steps?  It alone iterates, for every element of
        ``a``, over every position of that element in ``b``: refuse at once what cannot fit."""
        b2j, need = self.b2j, len(self.a)
        for x, n in Counter(self.a).items():
            need += n * len(b2j.get(x, ()))
            if need > self.steps:
                return False
        return True

    def blocks(self) -> list:
        if not self.fits():
            raise _Over()
        return self._blocks()

    def longest(self, alo: int, ahi: int, blo: int, bhi: int) -> tuple:
        a, b2j = self.a, self.b2j
        besti, bestj, bestsize = alo, blo, 0
        j2len: dict = {}
        nothing: list = []
        for i in range(alo, ahi):
            js = b2j.get(a[i], nothing)
            self.steps -= bisect_left(js, bhi) + 1  # the iterations of the loop below
            if self.steps < 0:
                raise _Over()
            j2lenget = j2len.get
            newj2len: dict = {}
            for j in js:
                if j < blo:
                    continue
                if j >= bhi:
                    break
                k = newj2len[j] = j2lenget(j - 1, 0) + 1
                if k > bestsize:
                    besti, bestj, bestsize = i - k + 1, j - k + 1, k
            j2len = newj2len
        return besti, bestj, bestsize

    def _blocks(self) -> list:
        la, lb = len(self.a), len(self.b)
        queue = [(0, la, 0, lb)]
        found = []
        while queue:
            alo, ahi, blo, bhi = queue.pop()
            i, j, k = x = self.longest(alo, ahi, blo, bhi)
            if k:
                found.append(x)
                if alo < i and blo < j:
                    queue.append((alo, i, blo, j))
                if i + k < ahi and j + k < bhi:
                    queue.append((i + k, ahi, j + k, bhi))
        found.sort()
        i1 = j1 = k1 = 0
        out = []
        for i2, j2, k2 in found:
            if i1 + k1 == i2 and j1 + k1 == j2:
                k1 += k2
            else:
                if k1:
                    out.append((i1, j1, k1))
                i1, j1, k1 = i2, j2, k2
        if k1:
            out.append((i1, j1, k1))
        out.append((la, lb, 0))
        return out


def _char_pieces(plain: str, a0: int, src: SourceFile, b0: int, b1: int, m: _Matcher) -> list:
    """Pieces of ``plain`` (at output offset ``a0``) aligned to ``src.text[b0:b1]`` (as the original
    difflib fallback built them)."""
    pieces: list = []
    last = 0
    for a, b, size in m.blocks():
        if a > last:
            pieces.append(Piece(a0 + last, a0 + a, src, max(b0 + b - 1, 0), (), False))
        if size:
            pieces.append(Piece(a0 + a, a0 + a + size, src, b0 + b, (), True))
        last = a + size
    if last < len(plain):
        pieces.append(Piece(a0 + last, a0 + len(plain), src, b0, (), False))
    return pieces


def _lines(text: str) -> tuple:
    lines = text.splitlines(keepends=True)
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line)
    return lines, offsets


def align(plain: str, src: SourceFile, steps: int = STEPS) -> TStr:
    """``plain`` with pieces pointing into ``src`` (see the module docstring)."""
    text = src.text
    try:
        pieces = _char_pieces(plain, 0, src, 0, len(text), _Matcher(plain, text, steps))
        return TStr(plain, tuple(p for p in pieces if p.end > p.start))
    except _Over:
        pass
    a, a_off = _lines(plain)
    b, b_off = _lines(text)
    lines = _Matcher(a, b, steps)
    try:
        blocks = lines.blocks()
    except _Over:
        return TStr(plain, (Piece(0, len(plain), src, 0, (), False),) if plain else ())
    pieces: list = []
    left = [lines.steps]  # the line pairs share what the line level left

    def line_pair(i: int, j: int) -> None:
        """Output line i against template line j: by characters while steps are left."""
        start, line = a_off[i], a[i]
        if j is None:
            pieces.append(Piece(start, start + len(line), src, 0, (), False))
            return
        if left[0] > 0:
            m = _Matcher(line, b[j], left[0])
            try:
                pieces.extend(_char_pieces(line, start, src, b_off[j], b_off[j] + len(b[j]), m))
                left[0] = m.steps
                return
            except _Over:
                left[0] = 0
        pieces.append(Piece(start, start + len(line), src, b_off[j], (), False))

    ai = bj = 0
    for i, j, size in blocks:
        # the unmatched run a[ai:i] against b[bj:j]: each output line with the template line it shares
        # the most words with (by position when it shares none)
        index: dict = {}
        for jj in range(bj, j):
            for w in set(b[jj].split()):
                hits = index.setdefault(w, [])
                if len(hits) < _WORD_LINES:  # a word on many lines says little (and stays linear)
                    hits.append(jj)
        for k in range(ai, i):
            votes: dict = {}
            for w in set(a[k].split()):
                for jj in index.get(w, ()):
                    votes[jj] = votes.get(jj, 0) + 1
            if votes:
                line_pair(k, max(votes, key=lambda x: (votes[x], -x)))
            else:
                line_pair(k, min(bj + (k - ai), j - 1) if j > bj else (max(bj - 1, 0) if b else None))
        for k in range(size):
            s = a_off[i + k]
            pieces.append(Piece(s, s + len(a[i + k]), src, b_off[j + k], (), True))
        ai, bj = i + size, j + size
    return TStr(plain, tuple(p for p in pieces if p.end > p.start))
