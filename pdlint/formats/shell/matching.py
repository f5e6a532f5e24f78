"""Shell pattern and regex matching in linear time.

Shell scripts come from pull requests, and the interpreter matches their
patterns against values it computed (``case`` arms, ``[[ $x == pat ]]``,
``${x#pat}`` / ``${x%pat}`` / ``${x/pat/rep}``, ``[[ $x =~ re ]]``).  A
backtracking matcher is exponential or high-polynomial on patterns such as
``*a*a*a*a*b`` or ``^(a+)+$``, and Python's ``re`` cannot be interrupted, so
both kinds of pattern are compiled here to a non-deterministic automaton and
simulated on the set of live states: time ``O(len(subject) x len(pattern))``.
Every matcher counts its steps (state visits) against a :class:`Budget`, which
the interpreter shares across one script (:data:`MAX_STEPS`); past it, and for
regex constructs it does not model, the answer is *unknown* (None), which the
interpreter treats as a value it cannot see: both branches are followed.
"""

from __future__ import annotations

import re
from typing import Optional

#: state visits one script's pattern matches may spend together (~0.4 s)
MAX_STEPS = 1_000_000
#: automaton states a regex may compile to ({m,n} repetitions are copied)
MAX_STATES = 5_000

_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "space": " \\t\\n\\r\\f\\v",
            "upper": "A-Z", "lower": "a-z", "xdigit": "0-9A-Fa-f", "blank": " \\t", "punct":
            re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "word": "a-zA-Z0-9_", "cntrl": "\\x00-\\x1f\\x7f",
            "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e"}


class TooMuchWork(Exception):
    """The matcher's step budget ran out."""


class _Set:
    """One bracket expression: a single-character test (cached per character)."""

    __slots__ = ("rx", "cache")

    def __init__(self, rx):
        self.rx = rx
        self.cache: dict = {}

    def __call__(self, c: str) -> bool:
        hit = self.cache.get(c)
        if hit is None:
            hit = self.cache[c] = self.rx.fullmatch(c) is not None
        return hit


def _bracket(body: str, neg: bool) -> Optional[_Set]:
    """A character class from the text between ``[`` and ``]`` (POSIX names,
    ranges and a leading ``]`` literal), or None when it is not a valid class."""
    out, i, n = [], 0, len(body)
    while i < n:
        if body.startswith("[:", i):
            j = body.find(":]", i + 2)
            name = body[i + 2:j] if j > 0 else None
            if name in _CLASSES:
                out.append(_CLASSES[name])
                i = j + 2
                continue
        c = body[i]
        if c == "-" and 0 < i < n - 1:
            out.append("-")
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return _Set(re.compile("[" + ("^" if neg else "") + "".join(out) + "]", re.S))
    except re.error:
        return None


class Budget:
    """Steps left to the matchers sharing it."""

    __slots__ = ("left",)

    def __init__(self, steps: int = MAX_STEPS):
        self.left = steps

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise TooMuchWork()


# ---------------------------------------------------------------------------
# Glob patterns
# ---------------------------------------------------------------------------

_STAR = object()
_ANY = object()


class Glob:
    """A shell pattern (``*``, ``?``, ``[...]``; characters whose ``mask`` is
    True are quoted, hence literal) matched without backtracking.

    Elements are literal characters, ``_ANY``, ``_STAR`` or a :class:`_Set`;
    state ``i`` is "the first ``i`` elements matched".  Methods answer None
    when the budget is spent."""

    def __init__(self, text: str, mask: list, budget: Optional[Budget] = None):
        self.elems = _glob_elems(text, mask)
        self.budget = budget if budget is not None else Budget(MAX_STEPS)

    def reversed(self) -> "Glob":
        g = Glob.__new__(Glob)
        g.elems = list(reversed(self.elems))
        g.budget = self.budget
        return g

    def _closure(self, states: set) -> set:
        elems, m = self.elems, len(self.elems)
        stack = list(states)
        while stack:
            i = stack.pop()
            if i < m and elems[i] is _STAR and i + 1 not in states:
                states.add(i + 1)
                stack.append(i + 1)
        return states

    def _step(self, states: set, c: str) -> set:
        elems, m = self.elems, len(self.elems)
        self.budget.spend(len(states) + 1)
        new = set()
        for i in states:
            if i >= m:
                continue
            e = elems[i]
            if e is _STAR:
                new.add(i)
            elif e is _ANY or (e == c if e.__class__ is str else e(c)):
                new.add(i + 1)
        return self._closure(new)

    def ends(self, s: str, start: int = 0, end: Optional[int] = None) -> Optional[list]:
        """Every ``k`` in ``start..end`` such that the pattern matches
        ``s[start:k]``, in increasing order (None: over budget)."""
        end = len(s) if end is None else end
        m = len(self.elems)
        try:
            states = self._closure({0})
            out = [start] if m in states else []
            for k in range(start, end):
                states = self._step(states, s[k])
                if not states:
                    break
                if m in states:
                    out.append(k + 1)
        except TooMuchWork:
            return None
        return out

    def fullmatch(self, s: str, pos: int = 0, endpos: Optional[int] = None) -> Optional[bool]:
        """Does the pattern match ``s[pos:endpos]`` exactly (None: over budget)?"""
        endpos = len(s) if endpos is None else endpos
        ends = self.ends(s, pos, endpos)
        if ends is None:
            return None
        return bool(ends) and ends[-1] == endpos


def _glob_elems(text: str, mask: list) -> list:
    out: list = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if mask[i] or c not in "*?[":
            out.append(c)
        elif c == "*":
            if not out or out[-1] is not _STAR:  # ** is *
                out.append(_STAR)
        elif c == "?":
            out.append(_ANY)
        else:
            j = i + 1
            if j < n and text[j] in "!^":
                j += 1
            if j < n and text[j] == "]":
                j += 1
            while j < n and text[j] != "]":
                j += 1
            cls = None
            if j < n:
                body = text[i + 1:j]
                neg = body[:1] in ("!", "^")
                cls = _bracket(body[1:] if neg else body, neg)
            if cls is None:
                out.append(c)  # an unclosed or invalid bracket is a literal "["
            else:
                out.append(cls)
                i = j
        i += 1
    return out


# ---------------------------------------------------------------------------
# [[ $x =~ ERE ]]
# ---------------------------------------------------------------------------

class Unsupported(Exception):
    """A regex construct this matcher does not model (back-references, word
    boundaries ...): the match result is unknown."""


def _parse_ere(text: str, mask: list) -> tuple:
    """The regex as a tree: ("cat", [..]) ("alt", [..]) ("rep", node, lo, hi)
    ("char", test) ("bol",) ("eol",) ("empty",)."""
    p = _EreParser(text, mask)
    tree = p.alternation()
    if p.i != len(text):
        raise Unsupported("unbalanced parenthesis")
    return tree


class _EreParser:
    """POSIX extended regular expressions (``regcomp(REG_EXTENDED)``, what bash's
    ``=~`` uses), with glibc's ``\\w \\W \\s \\S``; quoted characters (mask
    True) are literal, as bash quotes them."""

    def __init__(self, text: str, mask: list):
        self.t, self.mask, self.i = text, mask, 0

    def special(self, c: str) -> bool:
        return self.i < len(self.t) and self.t[self.i] == c and not self.mask[self.i]

    def alternation(self) -> tuple:
        branches = [self.concat()]
        while self.special("|"):
            self.i += 1
            branches.append(self.concat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concat(self) -> tuple:
        items = []
        while self.i < len(self.t) and not self.special("|") and not self.special(")"):
            items.append(self.repeat())
        if not items:
            return ("empty",)
        return items[0] if len(items) == 1 else ("cat", items)

    def repeat(self) -> tuple:
        node = self.atom()
        while self.i < len(self.t) and not self.mask[self.i] and self.t[self.i] in "*+?{":
            c = self.t[self.i]
            if c == "{":
                m = re.match(r"\{(\d*)(,?)(\d*)\}", self.t[self.i:])
                if not m or (not m.group(1) and not m.group(3)):
                    raise Unsupported("invalid interval")
                lo = int(m.group(1) or 0)
                hi = None if (m.group(2) and not m.group(3)) else int(m.group(3) or lo)
                if (hi is not None and hi < lo) or lo > 255 or (hi or 0) > 255:
                    raise Unsupported("interval out of range")
                self.i += m.end()
            else:
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            node = ("rep", node, lo, hi)
        return node

    def atom(self) -> tuple:
        t, i = self.t, self.i
        c = t[i]
        self.i += 1
        if self.mask[i]:
            return ("char", c)
        if c == "(":
            if self.special(")"):
                self.i += 1
                return ("empty",)
            node = self.alternation()
            if not self.special(")"):
                raise Unsupported("unbalanced parenthesis")
            self.i += 1
            return node
        if c == ".":
            return ("char", _ANY)
        if c == "^":
            return ("bol",)
        if c == "$":
            return ("eol",)
        if c == "[":
            j = i + 1
            if j < len(t) and t[j] == "^":
                j += 1
            if j < len(t) and t[j] == "]":
                j += 1
            while j < len(t) and t[j] != "]":
                if t.startswith("[:", j) and t.find(":]", j + 2) > 0:
                    j = t.find(":]", j + 2) + 2
                else:
                    j += 1
            if j >= len(t):
                raise Unsupported("unclosed bracket")
            body = t[i + 1:j]
            neg = body.startswith("^")
            cls = _bracket(body[1:] if neg else body, neg)
            if cls is None:
                raise Unsupported("invalid bracket")
            self.i = j + 1
            return ("char", cls)
        if c == "\\":
            if self.i >= len(t):
                raise Unsupported("trailing backslash")
            e = t[self.i]
            self.i += 1
            if e in "wWsS":
                return ("char", _bracket("[:word:]" if e in "wW" else "[:space:]", e.isupper()))
            if e.isalnum():  # back-references, word boundaries, \d ...: not modelled
                raise Unsupported("\\" + e)
            return ("char", e)
        if c in "*+?":
            raise Unsupported("repetition of nothing")
        return ("char", c)


class _Nfa:
    """Thompson construction: nodes are ["char", test, next] ["split", a, b]
    ["eps", next] ["bol", next] ["eol", next] ["match"]."""

    def __init__(self):
        self.nodes: list = []

    def add(self, node: list) -> int:
        if len(self.nodes) >= MAX_STATES:
            raise Unsupported("regex too large")
        self.nodes.append(node)
        return len(self.nodes) - 1

    def patch(self, outs: list, target: int) -> None:
        for state, slot in outs:
            self.nodes[state][slot] = target

    def build(self, node: tuple) -> tuple:
        """(start, dangling exits [(state, slot)]) of the fragment for ``node``."""
        kind = node[0]
        if kind == "char":
            s = self.add(["char", node[1], None])
            return s, [(s, 2)]
        if kind in ("bol", "eol"):
            s = self.add([kind, None])
            return s, [(s, 1)]
        if kind == "empty":
            s = self.add(["eps", None])
            return s, [(s, 1)]
        if kind == "cat":
            start, outs = self.build(node[1][0])
            for child in node[1][1:]:
                s, o = self.build(child)
                self.patch(outs, s)
                outs = o
            return start, outs
        if kind == "alt":
            start, outs = self.build(node[1][0])
            for child in node[1][1:]:
                s, o = self.build(child)
                start = self.add(["split", start, s])
                outs = outs + o
            return start, outs
        _, child, lo, hi = node
        parts = [("cat", [child] * lo)] if lo else []
        if hi is None:
            parts.append(("star", child))
        else:
            parts += [("opt", child)] * (hi - lo)
        start, outs = None, []
        for part in parts or [("empty",)]:
            if part[0] == "star":
                s0 = self.add(["split", None, None])
                s, o = self.build(part[1])
                self.nodes[s0][1] = s
                self.patch(o, s0)
                s, o = s0, [(s0, 2)]
            elif part[0] == "opt":
                s, o = self.build(part[1])
                s = self.add(["split", s, None])
                o = o + [(s, 2)]
            else:
                s, o = self.build(part)
            if start is None:
                start, outs = s, o
            else:
                self.patch(outs, s)
                outs = o
        return start, outs


def ere_search(pattern: str, mask: list, subject: str, budget: Optional[Budget] = None) -> Optional[bool]:
    """Does the POSIX ERE ``pattern`` match anywhere in ``subject``?  None
    when unknown: a construct not modelled, or over the step budget."""
    nfa = _Nfa()
    try:
        start, outs = nfa.build(_parse_ere(pattern, mask))
        final = nfa.add(["match"])
    except (Unsupported, RecursionError):
        return None
    nfa.patch(outs, final)
    nodes = nfa.nodes
    budget = budget if budget is not None else Budget(MAX_STEPS)
    n = len(subject)

    def closure(starts: list, pos: int) -> set:
        seen: set = set()
        stack = list(starts)
        while stack:
            q = stack.pop()
            if q in seen:
                continue
            seen.add(q)
            node = nodes[q]
            kind = node[0]
            if kind == "split":
                stack.append(node[1])
                stack.append(node[2])
            elif kind == "eps" or (kind == "bol" and pos == 0) or (kind == "eol" and pos == n):
                stack.append(node[1])
        budget.spend(len(seen) + 1)
        return seen

    try:
        states: set = set()
        for pos in range(n + 1):
            states = closure(list(states) + [start], pos)  # unanchored: a new start at every position
            if final in states:
                return True
            if pos == n:
                break
            c = subject[pos]
            states = {node[2] for node in (nodes[q] for q in states)
                      if node[0] == "char" and _test(node[1], c)}
    except TooMuchWork:
        return None
    return False


def _test(test, c: str) -> bool:
    if test is _ANY:  # regcomp without REG_NEWLINE: "." matches a newline too
        return True
    if test.__class__ is str:
        return test == c
    return test(c)
