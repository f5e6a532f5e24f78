"""Source files and traced strings.

A :class:`TStr` is a string in which every character still knows where it was
written.  Format adapters never handle bare ``str`` for anything that can end
up in an argv: they slice, split and concatenate ``TStr`` values, so a token
produced three expansions away from its source (a shell variable holding a
YAML scalar rendered from a Jinja ``{% set %}`` block) still reports the line
and column a human must edit, plus the chain of references that led there.

Representation: the text plus a tuple of :class:`Piece` runs that cover it.  A
piece maps ``text[start:end]`` to ``source.text[offset:...]`` (``exact``), or
maps every character to one fixed source offset (not exact: e.g. the output
of a template expression, whose characters are not written anywhere).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable, Optional

from pdlint.model import Hop, Origin


class SourceFile:
    """A decoded text file with a line index.  ``path`` is the display path
    (relative to the working directory, ``/``-separated)."""

    __slots__ = ("path", "abspath", "text", "_starts")

    def __init__(self, path: str, text: str, abspath: Optional[str] = None):
        self.path = path
        self.abspath = abspath
        self.text = text
        self._starts: Optional[list] = None

    def _line_starts(self) -> list:
        if self._starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._starts = starts
        return self._starts

    def position(self, offset: int) -> tuple:
        """1-based (line, column) of a character offset (clamped to the text)."""
        starts = self._starts
        if starts is None:
            starts = self._line_starts()
        # called for every piece a finding, a render or the coverage report
        # names: comparisons, not max()/min() calls
        if offset < 0:
            offset = 0
        elif offset > len(self.text):
            offset = len(self.text)
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def line_of(self, offset: int) -> int:
        """1-based line of a character offset (:meth:`position` without the column)."""
        starts = self._starts
        if starts is None:
            starts = self._line_starts()
        return bisect_right(starts, 0 if offset < 0 else min(offset, len(self.text)))

    def offset_of(self, line: int, column: int = 1) -> int:
        starts = self._line_starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + max(column, 1) - 1, len(self.text))

    def line_text(self, line: int) -> str:
        starts = self._line_starts()
        if line < 1 or line > len(starts):
            return ""
        start = starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def line_count(self) -> int:
        return len(self._line_starts())

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"SourceFile({self.path!r})"


#: :attr:`Piece.opaque` of a value made when a template is deployed - an Ansible fact or lookup, the result of a filter
#: pdlint does not have (PD016) - rather than a variable pdlint was not given: truthy as ``True`` is, and no
#: ``--var`` gives it a value (the undecided summary says so)
DEPLOY_TIME = "deploy-time"
#: :attr:`Piece.opaque` of a GitLab variable whose nested expansion pdlint did not make (over its bounds: rw31/h P2):
#: written in the file, so no ``--var`` gives it a value either
NOT_EXPANDED = "not-expanded"
#: :attr:`Piece.opaque` of such a variable whose expansion the file's budget, not its own bounds, stopped (the other
#: jobs of the file spent it: rw33/h P5)
NOT_EXPANDED_BUDGET = "not-expanded-budget"
#: :attr:`Piece.opaque` of a Kubernetes env value a ``configMapKeyRef`` names in a ConfigMap pdlint did not join (one
#: of another file: pdlint joins those of the same YAML stream or kustomize build): the value is in a file, often the
#: repository's own; ``--var NAME=VALUE`` gives it (field round rw35/b P2)
CONFIGMAP_NOT_JOINED = "configmap-not-joined"
#: :attr:`Piece.opaque` of what a shell loop pdlint cut by its own bound leaves (its paths kept splitting:
#: ``Control.split_cut``): the file makes the value, in a loop whose count is known, but pdlint did not compute it
#: (rw35/i P5: the help said the loop reads input pdlint cannot see)
SPLIT_CUT = "split-cut"


class Piece:
    """``text[start:end]`` of a :class:`TStr` comes from ``src`` at ``offset``
    (every character, when ``exact``; else all of them from that one offset).
    ``label`` is the display path when ``src`` is None (e.g. "<command line>").

    Immutable by convention.  A plain slotted class: a scan makes one for
    every slice and join of traced text (about 120,000 in 1000 files), and a
    frozen dataclass's ``__init__`` costs five times as much."""

    __slots__ = ("start", "end", "src", "offset", "chain", "exact", "opaque", "label")

    def __init__(self, start: int, end: int, src: Optional[SourceFile], offset: int,
                 chain: tuple = (), exact: bool = True, opaque: bool = False, label: str = ""):
        self.start = start
        self.end = end
        self.src = src
        self.offset = offset
        self.chain = chain
        self.exact = exact
        self.opaque = opaque
        self.label = label

    def _key(self) -> tuple:
        return (self.start, self.end, self.src, self.offset, self.chain, self.exact, self.opaque, self.label)

    def __eq__(self, other) -> bool:
        if other.__class__ is not Piece:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Piece({})".format(", ".join(f"{k}={v!r}" for k, v in zip(self.__slots__, self._key())))

    def shifted(self, delta: int) -> "Piece":
        return Piece(self.start + delta, self.end + delta, self.src, self.offset,
                     self.chain, self.exact, self.opaque, self.label)


class TStr:
    """An immutable traced string (see the module docstring)."""

    __slots__ = ("text", "pieces", "_starts")

    def __init__(self, text: str, pieces: tuple):
        self.text = text
        self.pieces = pieces  # in text order, not overlapping
        self._starts: Optional[list] = None  # piece starts, for slicing texts of many pieces

    # -- construction -----------------------------------------------------
    @classmethod
    def from_source(cls, src: SourceFile, start: int = 0, end: Optional[int] = None,
                    chain: tuple = ()) -> "TStr":
        """``src.text[start:end]``, each character placed where it is written.  A file written inside
        another (``config_merge.EmbeddedFile``: a ConfigMap value a launch mounts as its config) has no lines
        of its own: its text is its ``doc``, traced into the file that holds it, so that every finding and
        related place on a key of it points at that key's line there."""
        doc = getattr(src, "doc", None)
        if doc is not None:
            part = doc[start:] if end is None else doc[start:end]
            return TStr(part.text, tuple(
                Piece(p.start, p.end, p.src, p.offset, tuple(chain) + p.chain, p.exact, p.opaque, p.label)
                for p in part.pieces)) if chain else part
        end = len(src.text) if end is None else end
        text = src.text[start:end]
        return cls(text, (Piece(0, len(text), src, start, chain),) if text else ())

    @classmethod
    def at(cls, text: str, src: Optional[SourceFile], offset: int, chain: tuple = (),
           exact: bool = False, opaque: bool = False, label: str = "") -> "TStr":
        """Text whose characters all come from one place (e.g. an expression)."""
        if not text:
            return cls("", ())
        return cls(text, (Piece(0, len(text), src, offset, chain, exact, opaque, label),))

    @classmethod
    def synthetic(cls, text: str, label: str, opaque: bool = False) -> "TStr":
        """Text that is written nowhere in the scanned files (command line, defaults)."""
        return cls.at(text, None, 0, (), False, opaque, label)

    @classmethod
    def join(cls, parts: Iterable["TStr"]) -> "TStr":
        texts, pieces, n = [], [], 0
        for p in parts:
            if not p.text:
                continue
            texts.append(p.text)
            if n:
                pieces.extend(q.shifted(n) for q in p.pieces)
            else:
                pieces.extend(p.pieces)  # immutable: the first part's pieces need no shift
            n += len(p.text)
        return cls("".join(texts), tuple(pieces))

    # -- str-like behaviour -------------------------------------------------
    def __len__(self) -> int:
        return len(self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        o = self.origin
        return f"TStr({self.text!r} @ {o.path}:{o.line}:{o.column})"

    def __eq__(self, other) -> bool:  # compare by text; origins are metadata
        if isinstance(other, TStr):
            return self.text == other.text
        return self.text == other

    def __hash__(self) -> int:
        return hash(self.text)

    def __add__(self, other: "TStr") -> "TStr":
        return TStr.join((self, other))

    def __getitem__(self, item) -> "TStr":
        if isinstance(item, int):
            item = slice(item, item + 1 if item != -1 else None)
        a, b, step = item.indices(len(self.text))
        if step != 1:
            raise ValueError("TStr slices must be contiguous")
        return self.span(a, b)

    def span(self, a: int, b: int) -> "TStr":
        """``self[a:b]`` for ``0 <= a`` and ``b <= len(self)`` (no index to normalise: a YAML node's
        span in its document, sliced once per scalar read)."""
        if b <= a:
            return TStr("", ())
        pieces = self.pieces
        if len(pieces) > 16:
            # a rendered template is one text of hundreds of pieces, sliced once
            # per YAML scalar: start at the last piece beginning at or before a
            starts = self._starts
            if starts is None:
                starts = self._starts = [p.start for p in pieces]
            first = max(bisect_right(starts, a) - 1, 0)
        elif pieces:
            first = 0
        else:
            return TStr(self.text[a:b], ())
        p = pieces[first]
        if p.start <= a and b <= p.end:  # inside one piece (a YAML scalar of a plain file): that piece, cut
            return TStr(self.text[a:b], (Piece(0, b - a, p.src, p.offset + (a - p.start) if p.exact else p.offset,
                                               p.chain, p.exact, p.opaque, p.label),))
        out = []
        for i in range(first, len(pieces)):  # each overlapping piece, clipped and re-based to a
            p = pieces[i]
            if p.start >= b:
                break
            if p.end > a:
                s = p.start if p.start > a else a
                e = p.end if p.end < b else b
                out.append(Piece(s - a, e - a, p.src, p.offset + (s - p.start) if p.exact else p.offset,
                                 p.chain, p.exact, p.opaque, p.label))
        return TStr(self.text[a:b], tuple(out))

    def startswith(self, prefix) -> bool:
        return self.text.startswith(prefix)

    def find(self, sub: str, start: int = 0) -> int:
        return self.text.find(sub, start)

    def strip(self, chars: Optional[str] = None) -> "TStr":
        t = self.text
        left = len(t) - len(t.lstrip(chars))
        right = len(t.rstrip(chars))
        return self[left:right] if right > left else TStr("", ())

    def split_ws(self) -> list:
        """Split on runs of blanks (shell-style IFS splitting of an unquoted value)."""
        out, i, t, n = [], 0, self.text, len(self.text)
        while i < n:
            while i < n and t[i] in " \t\n":
                i += 1
            j = i
            while j < n and t[j] not in " \t\n":
                j += 1
            if j > i:
                out.append(self[i:j])
            i = j
        return out

    def partition(self, sep: str) -> tuple:
        i = self.text.find(sep)
        if i < 0:
            return self, TStr("", ()), TStr("", ())
        return self[:i], self[i:i + len(sep)], self[i + len(sep):]

    # -- provenance -------------------------------------------------------
    def _piece_at(self, i: int) -> Optional[Piece]:
        pieces = self.pieces
        if not pieces:
            return None
        lo, hi = 0, len(pieces)
        while lo < hi:  # last piece whose start <= i
            mid = (lo + hi) // 2
            if pieces[mid].start <= i:
                lo = mid + 1
            else:
                hi = mid
        return pieces[max(lo - 1, 0)]

    def origin_at(self, i: int = 0) -> Origin:
        p = self._piece_at(i)
        if p is None:
            return Origin("<unknown>", 1, 1)
        if p.src is None:
            return Origin(p.label or "<unknown>", 1, 1, p.chain)
        off = p.offset + (min(max(i, p.start), max(p.end - 1, p.start)) - p.start if p.exact else 0)
        line, col = p.src.position(off)
        return Origin(p.src.path, line, col, p.chain)

    def real_origin_at(self, i: int = 0) -> Origin:
        """:meth:`origin_at`, skipping text written in no file (a synthetic piece: the ``( ... )`` pdlint puts
        around each line of a Makefile recipe) to the nearest character that is written in one (after ``i``
        on a tie): a finding is filed where a human can edit (rw30/a problem 1: a PD009 filed at
        ``<make: the line's own shell>:1:1``).  ``origin_at(i)`` when no character is written in a file."""
        p = self._piece_at(i)
        if p is None or p.src is not None:
            return self.origin_at(i)
        pieces = self.pieces
        k = pieces.index(p)
        after = next((q for q in pieces[k + 1:] if q.src is not None), None)
        before = next((q for q in reversed(pieces[:k]) if q.src is not None), None)
        if after is None and before is None:
            return self.origin_at(i)
        if before is None or (after is not None and after.start - i <= i - (before.end - 1)):
            return self.origin_at(after.start)
        return self.origin_at(before.end - 1)

    @property
    def origin(self) -> Origin:
        return self.origin_at(0)

    def origin_key(self) -> Optional[tuple]:
        """A hashable key equal for two texts exactly when their first
        characters have the same origin place (``origin.key``), without
        computing a line and column; None for empty text."""
        pieces = self.pieces
        if not pieces:
            return None
        p = pieces[0]  # what _piece_at(0) finds: piece starts are never negative, so the first
        src = p.src
        if src is None:
            return (p.label or "<unknown>", -1)
        off = p.offset  # the character at max(0, p.start) is the piece's first: its own offset, exact or not
        return (src.path, max(0, min(off, len(src.text))))  # as origin_at and position() clamp

    @property
    def opaque(self) -> bool:
        """True when any character is a placeholder for a value unknown at lint time."""
        for p in self.pieces:
            if p.opaque:
                return True
        return False

    def with_hop(self, hop: Hop, prefix: tuple = ()) -> "TStr":
        """Record that this text was reached through ``hop`` (prepended: outermost
        first); ``prefix`` is the chain through which the hop itself was reached."""
        head = tuple(prefix) + (hop,)
        return TStr(self.text, tuple(
            Piece(p.start, p.end, p.src, p.offset, head + p.chain, p.exact, p.opaque, p.label)
            for p in self.pieces))

    def reached_via(self, use: "TStr", note: str, i: int = 0) -> "TStr":
        """This text, as reached from the reference written at ``use[i]``."""
        o = use.origin_at(i)
        return self.with_hop(Hop(o.path, o.line, o.column, note), o.chain)

    def option_name_opaque(self) -> bool:
        """Does a placeholder stand in the option name, the part before any ``=`` (``--$key``, ``--${k}=v``:
        a flag name read at run time)?"""
        end = self.text.find("=")
        end = len(self.text) if end < 0 else end
        for p in self.pieces:
            if p.opaque and p.start < end:
                return True
        return False

    def as_opaque(self, how: object = True) -> "TStr":
        return TStr(self.text, tuple(
            Piece(p.start, p.end, p.src, p.offset, p.chain, p.exact, how, p.label)
            for p in self.pieces))

    def sources(self) -> set:
        return {p.src.path for p in self.pieces if p.src is not None}


EMPTY = TStr("", ())


def hop_at(src: SourceFile, offset: int, note: str) -> Hop:
    line, col = src.position(offset)
    return Hop(src.path, line, col, note)


def hop_from(tstr: TStr, i: int, note: str) -> Hop:
    """A hop located where ``tstr[i]`` is written (keeps no chain of its own)."""
    o = tstr.origin_at(i)
    return Hop(o.path, o.line, o.column, note)


#: words and characters of a list of words a message quotes (150,000 `--` words after a `--` made one 450 KB message
#: line: hostile-input round rw29/h)
MAX_SHOWN_WORDS = 32
MAX_SHOWN_CHARS = 400


def shown_words(words: list) -> str:
    """The words as argparse lists them, the list cut (and said) past MAX_SHOWN_WORDS / MAX_SHOWN_CHARS."""
    text = " ".join(words[:MAX_SHOWN_WORDS])
    if len(words) <= MAX_SHOWN_WORDS and len(text) <= MAX_SHOWN_CHARS:
        return text
    return f"{text[:MAX_SHOWN_CHARS].rstrip()} ... ({len(words)} words)"


def split_lines(text: str) -> tuple:
    """``(lines, offsets)``: the text's lines split at ``\\n`` (without it) and the offset each starts at."""
    lines = text.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    return lines, offsets
