"""Backtracking cost of a regular expression a template supplies (Ansible's ``regex_search`` / ``regex_replace`` /
``regex_findall``, Helm's ``regexMatch`` / ``regexFind`` / ``regexReplaceAll`` / ``regexSplit``): Python's ``re``
backtracks, and one C call cannot be interrupted by the file's time budget.  :func:`refusal` reads the pattern's
parse tree (``re._parser``) and refuses, before it runs:

* an **exponential** pattern: a repetition (``*``, ``+``, ``{n,}``, ``{n,m}`` with m > 1) whose body can match the
  same text in more than one way - a variable repetition inside it that the next item of the body (or, at its end,
  the body's own start) can also match (``(a+)+``, ``(a?){40}``, ``(.*a){25}``), or alternatives that can start
  with the same character (``(a|a)*``, ``(a|aa)*``, ``(?:a|a){1,50}``); ``(\\d+,)*`` and ``(foo|bar)*`` stay;
* a **polynomial** pattern whose cost on this value passes :data:`MAX_STEPS`: k variable repetitions in a row that
  can match the same characters (``a*a*a*``, ``.*=.*``) cost about (n+1)^k steps on a value of n characters (one more
  factor for an unanchored search).

The character sets are sampled over :data:`ALPHABET` (Latin-1 and the pattern's own literals); a construct the
analysis does not model (a back-reference, a conditional group) counts as matching anything (hostile-input round
rw27/h item P20: ``regex_search('^(a|a)*$')`` on a 46-character value took each file's whole 10 s budget)."""

from __future__ import annotations

import functools
import re
from typing import Optional

try:
    import re._parser as _sre  # Python 3.11+
    from re._constants import MAXREPEAT
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore
    from sre_constants import MAXREPEAT  # type: ignore

#: the backtracking steps a polynomial pattern may cost on its value
MAX_STEPS = 10_000_000
#: the characters the sets are sampled over (besides the pattern's literals)
ALPHABET = frozenset(chr(i) for i in range(0x180))
#: the nodes :func:`refusal` reads at most (a longer pattern is refused: nothing a launch template needs)
MAX_NODES = 2_000


class _Unknown(Exception):
    pass


def refusal(pattern, value="", flags: int = 0) -> Optional[str]:
    """Why ``pattern`` may not run on ``value`` (None: it may).  Never raises: a pattern ``re`` cannot compile is
    left to ``re`` itself (its error is the template's)."""
    if not isinstance(pattern, str):
        return None
    try:
        return _refusal(pattern, len(str(value)), flags)
    except RecursionError:
        return f"the regular expression {pattern[:60]!r} is nested too deep"


@functools.lru_cache(maxsize=256)
def _shape(pattern: str, flags: int):
    """(exponential reason or None, longest chain of overlapping variable repetitions, anchored) of a pattern."""
    try:
        tree = _sre.parse(pattern, flags)
    except Exception:  # (re.error, OverflowError...): re.compile reports it when the filter runs
        return None, 0, True
    a = _Analysis(pattern, tree.state.flags)
    if a.count(tree.data) > MAX_NODES:
        return f"has more than {MAX_NODES} parts", 0, True
    reason = a.exponential(list(tree.data))
    chain = a.chain(list(tree.data))
    first = tree.data[0] if len(tree.data) else None
    # `\A`, or `^` without MULTILINE: one start position tried, not every one
    anchored = first is not None and str(first[0]) == "AT" and (
        str(first[1]) == "AT_BEGINNING_STRING" or (str(first[1]) == "AT_BEGINNING" and not tree.state.flags & re.M))
    return reason, chain, anchored


def _refusal(pattern: str, n: int, flags: int) -> Optional[str]:
    reason, chain, anchored = _shape(pattern, flags)
    if reason is not None:
        return f"the regular expression {pattern[:60]!r} {reason}, which can take exponential time"
    k = chain + (0 if anchored else 1)
    if k >= 2 and (n + 1) ** k > MAX_STEPS:
        return (f"the regular expression {pattern[:60]!r} has variable repetitions that can match the same "
                f"characters ({chain} in a row{'' if anchored else ', tried at every position'}): about {n + 1}^{k} steps on a value of {n} characters, more than {MAX_STEPS}")
    return None


class _Analysis:
    def __init__(self, pattern: str, flags: int):
        self.icase = bool(flags & re.I)
        self.dotall = bool(flags & re.S)
        lits = {c for c in pattern if ord(c) >= 0x180}
        self.alphabet = ALPHABET | lits
        self.all = frozenset(self.alphabet)

    def count(self, items) -> int:
        total, stack = 0, [items]
        while stack and total <= MAX_NODES:
            for op, av in stack.pop():
                total += 1
                stack.extend(self._children(op, av))
        return total

    @staticmethod
    def _children(op, av) -> list:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            return [list(av[2])]
        if name == "SUBPATTERN":
            return [list(av[-1])]
        if name == "BRANCH":
            return [list(x) for x in av[1]]
        if name in ("ASSERT", "ASSERT_NOT"):
            return [list(av[1])]
        if name == "ATOMIC_GROUP":
            return [list(av)]
        if name == "GROUPREF_EXISTS":
            return [list(x) for x in av[1:] if x is not None]
        return []

    # -- character sets -------------------------------------------------------------------------------------
    def _fold(self, s: set) -> frozenset:
        if self.icase:
            s = s | {c.swapcase() for c in s} | {c.lower() for c in s} | {c.upper() for c in s if len(c.upper()) == 1}
        return frozenset(s)

    def atom_chars(self, op, av) -> Optional[frozenset]:
        """The characters a one-character item matches (None: not a one-character item)."""
        name = str(op)
        if name == "LITERAL":
            return self._fold({chr(av)})
        if name == "NOT_LITERAL":
            return self.all - self._fold({chr(av)})
        if name == "ANY":
            return self.all if self.dotall else self.all - {"\n"}
        if name == "IN":
            return self._in(av)
        return None

    def _in(self, items) -> frozenset:
        out: set = set()
        negate = False
        for op, av in items:
            name = str(op)
            if name == "NEGATE":
                negate = True
            elif name == "LITERAL":
                out.add(chr(av))
            elif name == "RANGE":
                lo, hi = av
                out |= {c for c in self.alphabet if lo <= ord(c) <= hi}
            elif name == "CATEGORY":
                out |= _category(str(av), self.alphabet)
            else:  # (a set operation re does not document): anything
                out |= self.all
        s = self._fold(out)
        return self.all - s if negate else s

    def chars(self, items) -> frozenset:
        """Every character any match of ``items`` may contain."""
        out: set = set()
        for op, av in items:
            c = self.atom_chars(op, av)
            if c is not None:
                out |= c
            elif str(op) in ("GROUPREF", "GROUPREF_EXISTS"):
                out |= self.all
            elif str(op) not in ("ASSERT", "ASSERT_NOT"):
                for kid in self._children(op, av):
                    out |= self.chars(kid)
        return frozenset(out)

    def first(self, items) -> tuple:
        """(the characters a match of ``items`` may start with, whether ``items`` may match the empty string)."""
        out: set = set()
        for op, av in items:
            name = str(op)
            c = self.atom_chars(op, av)
            if c is not None:
                return frozenset(out | c), False
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                f, nullable = self.first(av[2])
                out |= f
                if av[0] > 0 and not nullable:
                    return frozenset(out), False
            elif name == "SUBPATTERN" or name == "ATOMIC_GROUP":
                f, nullable = self.first(av[-1] if name == "SUBPATTERN" else av)
                out |= f
                if not nullable:
                    return frozenset(out), False
            elif name == "BRANCH":
                nullable = False
                for alt in av[1]:
                    f, n = self.first(alt)
                    out |= f
                    nullable = nullable or n
                if not nullable:
                    return frozenset(out), False
            elif name in ("GROUPREF", "GROUPREF_EXISTS"):
                return frozenset(out | self.all), True
            # AT, ASSERT, ASSERT_NOT: zero width
        return frozenset(out), True

    def _follow(self, items, j: int, tail: frozenset) -> frozenset:
        f, nullable = self.first(items[j:])
        return f | tail if nullable else f

    # -- exponential ------------------------------------------------------------------------------------------
    def exponential(self, items) -> Optional[str]:
        """A repetition (max > 1) in ``items`` (anywhere) whose body is ambiguous."""
        for op, av in items:
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT") and (av[1] == MAXREPEAT or av[1] > 1):
                body = list(av[2])
                if self._ambiguous(body, self.first(body)[0]):
                    return "repeats a part that can match the same text in more than one way"
            for kid in self._children(op, av):
                r = self.exponential(kid)
                if r is not None:
                    return r
        return None

    def _ambiguous(self, items, tail: frozenset) -> bool:
        """Whether ``items``, followed by text starting with one of ``tail``, can split one text two ways."""
        for j, (op, av) in enumerate(items):
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT"):
                if av[0] != av[1]:  # a variable repetition: what follows may take its characters
                    if self.chars(av[2]) & self._follow(items, j + 1, tail):
                        return True
                body = list(av[2])
                if self._ambiguous(body, self._follow(items, j + 1, tail) | self.first(body)[0]):
                    return True
            elif name == "SUBPATTERN":
                if self._ambiguous(list(av[-1]), self._follow(items, j + 1, tail)):
                    return True
            elif name == "BRANCH":
                after = self._follow(items, j + 1, tail)
                seen: set = set()
                nulls = 0
                for alt in av[1]:
                    f, nullable = self.first(alt)
                    if nullable:
                        nulls += 1
                        f = f | after
                    if f & seen or nulls > 1:
                        return True
                    seen |= f
                    if self._ambiguous(list(alt), after):
                        return True
            elif name in ("GROUPREF", "GROUPREF_EXISTS"):
                return True
        return False

    # -- polynomial -------------------------------------------------------------------------------------------
    def chain(self, items) -> int:
        """The longest run of variable repetitions (max - min unbounded or large) in one sequence (nested ones
        in their own) where each can match what the one before it matches: no mandatory item between them
        that the earlier cannot match."""
        best = run = 0
        prev: Optional[frozenset] = None
        for op, av in _flat(items):
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT") and (av[1] == MAXREPEAT or av[1] - av[0] > 16):
                c = self.chars(av[2])
                run = run + 1 if prev is not None and prev & c else 1
                prev = c if prev is None or not (prev & c) else prev | c
                best = max(best, run)
                for kid in self._children(op, av):
                    best = max(best, self.chain(kid))
                continue
            c = self.atom_chars(op, av)
            if c is not None:
                if prev is not None and not (prev & c):
                    prev, run = None, 0  # a mandatory character the repetitions before cannot take
                continue
            for kid in self._children(op, av):
                best = max(best, self.chain(kid))
            if name in ("SUBPATTERN", "BRANCH", "ATOMIC_GROUP"):
                kids = self._children(op, av)
                if kids and all(not self.first(k)[1] and prev is not None and not (prev & self.chars(k))
                                for k in kids):
                    prev, run = None, 0
        return best


def _flat(items) -> list:
    """``items`` with each group's items in its place (``(.*)=(.*)``: two repetitions in one sequence)."""
    out, stack = [], [iter(items)]
    while stack:
        for op, av in stack[-1]:
            if str(op) == "SUBPATTERN" and len(out) < MAX_NODES:
                stack.append(iter(av[-1]))
                break
            out.append((op, av))
        else:
            stack.pop()
    return out


@functools.lru_cache(maxsize=None)
def _category(name: str, alphabet: frozenset) -> frozenset:
    esc = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
           "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}.get(name)
    if esc is None:
        return alphabet
    rx = re.compile(esc)
    return frozenset(c for c in alphabet if rx.match(c))
