"""Word expansion: parameter and arithmetic expansion, command substitution
results, word splitting and quote removal -- all on traced strings.

Every output character is a slice of the script's :class:`TStr` (a literal
written in the word) or of a variable's value (which is itself a slice of the
place the value was written, reached through a hop ``$NAME`` at the use site).
Computed text (arithmetic results, ``$'\\n'`` escapes, separators) is located
at the expression that computed it.

Values not known at lint time are *placeholders*: the reference as written
(``$HOST_IP``, ``$(hostname -i)``), marked opaque.  Word splitting never
splits inside a placeholder.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Optional

from pdlint import lazyre
from pdlint.text import EMPTY, Piece, TStr

from . import arith
from .state import NAMEREF, Var, rest_of_args
from .matching import MAX_STEPS as MAX_MATCH_STEPS, Glob
from .syntax import SPECIAL_WORD_NODES as _SPECIAL_TYPES, special_parts

IFS = " \t\n"

#: ``${`` prefix, name, subscript of a braced parameter expansion.
_PARAM_RE = lazyre.compile(r"\$\{([#!]?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!\-])(\[[^\]]*\])?")
_OPS = (":-", ":=", ":+", ":?", "##", "%%", "//", "/#", "/%", "^^", ",,",
        "-", "=", "+", "?", "#", "%", "/", "^", ",", ":", "@")
_NAME_RE = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: special parameters bash always sets to a non-empty value: ``$$``, ``$?``, ``$-``
_ALWAYS_SET = frozenset("$?-")
_NUMBER = lazyre.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
#: Word parts bash expands (a placeholder carried into eval'd text is not expanded again).
_EXPANDING_TYPES = frozenset(("simple_expansion", "expansion", "command_substitution",
                              "arithmetic_expansion", "process_substitution"))
#: A reference whose value depends only on the named variable.
_PURE_REF_RE = lazyre.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}$`\"'\\]*)?\}")
_SIMPLE_REF_RE = lazyre.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_LENGTH_REF_RE = lazyre.compile(r"\$\{#([A-Za-z_][A-Za-z0-9_]*)(\[[@*]\])?\}")
_MAX_PATTERN_SUBJECT = 4096
_MAX_REPLACE_SUBJECT = 512
#: a subscript that is one variable reference (``$name``, ``${name}``), and one that is literal text
_KEY_REF = lazyre.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*|[1-9])|\{([A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*)\})")
_KEY_LITERAL = lazyre.compile(r"[^$`\\\"'*?\[\]]*")


#: blanks and line continuations, then the `$` of an expansion (what tree-sitter-bash's `${` / `$` token may hold)
_CONTINUED = lazyre.compile(r"(?:[ \t]*\\\n)+[ \t]*\$")

class _Unknown:
    """Marker: the variable has no value known at lint time."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<unknown>"


UNKNOWN = _Unknown()
UNSET = Var(None)
_DYNAMIC = object()  # cache marker: the word's expansion depends on the state


# -- traced-text helpers -------------------------------------------------------

def computed(text: str, at: TStr) -> TStr:
    """``text`` computed by the expression written at ``at`` (all its
    characters are located at ``at``'s first character)."""
    if not text:
        return EMPTY
    if not at.pieces:
        return TStr.synthetic(text, "<shell>")
    p = at.pieces[0]
    return TStr(text, (Piece(0, len(text), p.src, p.offset, p.chain, False, False, p.label),))


def join_with(items: list, sep: TStr) -> TStr:
    parts = []
    for i, item in enumerate(items):
        if i:
            parts.append(sep)
        parts.append(item)
    return TStr.join(parts)


def plain_runs(t: TStr) -> list:
    """Quote removal for unquoted text: ``(TStr, escaped)`` runs, where a
    backslash-escaped character is its own escaped run and a backslash-newline
    disappears."""
    s = t.text
    if "\\" not in s:
        return [(t, False)] if s else []
    runs, start, i, n = [], 0, 0, len(s)
    while i < n:
        if s[i] != "\\":
            i += 1
            continue
        if i > start:
            runs.append((t[start:i], False))
        if i + 1 >= n:  # a trailing backslash stays
            runs.append((t[i:i + 1], False))
            start = i = n
            break
        if s[i + 1] != "\n":
            runs.append((t[i + 1:i + 2], True))
        i += 2
        start = i
    if start < n:
        runs.append((t[start:], False))
    return runs


def unquote_plain(t: TStr) -> TStr:
    if "\\" not in t.text:
        return t
    return TStr.join(r for r, _ in plain_runs(t))


def unquote_dq(t: TStr, escapes: str = '$`"\\\n') -> TStr:
    """Quote removal inside double quotes: only ``\\$ \\` \\" \\\\`` and
    backslash-newline are escapes (``escapes``; a here-document's text: the same but ``\\"``)."""
    s = t.text
    if "\\" not in s:
        return t
    parts, start, i, n = [], 0, 0, len(s)
    while i < n:
        if s[i] == "\\" and i + 1 < n and s[i + 1] in escapes:
            parts.append(t[start:i])
            start = i + 1 if s[i + 1] != "\n" else i + 2
            i += 2
        else:
            i += 1
    parts.append(t[start:])
    return TStr.join(parts)


#: what a backslash escapes in the text of a here-document whose delimiter is not quoted
HEREDOC_ESCAPES = "$`\\\n"


#: in the text of a here-document: an escape, a backquoted command, a special parameter; and the
#: expansions tree-sitter-bash stops finding in a body after a line ending in ``\`` (a continued command
#: line of a generated script): ``$NAME``, ``${...}``, ``$(...)`` / ``$((...))`` (one level of nesting)
_HEREDOC_MISSED = lazyre.compile(r"\\.|`(?:[^`\\]|\\.)*`|\$[0-9@*#?$!-]|\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^{}\n]*\}"
                             r"|\$\((?:[^()\n]|\([^()\n]*\))*\)", re.S)


def strip_leading_tabs(t: TStr) -> TStr:
    """``<<-``: every line of the text without its leading tabs."""
    s = t.text
    if "\t" not in s:
        return t
    parts, i, n = [], 0, len(s)
    while i < n:
        j = i
        while j < n and s[j] == "\t":
            j += 1
        end = s.find("\n", j)
        end = n if end < 0 else end + 1
        parts.append(t[j:end])
        i = end
    return TStr.join(parts)


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
         "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_NUM = lazyre.compile(r"x[0-9a-fA-F]{1,2}|[0-7]{1,3}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}")


def ansi_c(t: TStr) -> TStr:
    """Escape processing of a ``$'...'`` string body; an escape's character is
    located at its backslash."""
    s = t.text
    if "\\" not in s:
        return t
    parts, start, i, n = [], 0, 0, len(s)
    while i < n:
        if s[i] != "\\" or i + 1 >= n:
            i += 1
            continue
        parts.append(t[start:i])
        c = s[i + 1]
        if c in _ANSI:
            parts.append(computed(_ANSI[c], t[i:i + 2]))
            i += 2
        else:
            m = _ANSI_NUM.match(s, i + 1)
            if m:
                code = m.group(0)
                value = int(code[1:], 16) if code[0] in "xuU" else int(code, 8)
                try:
                    parts.append(computed(chr(value), t[i:m.end()]))
                except (ValueError, OverflowError):
                    parts.append(t[i:m.end()])
                i = m.end()
            else:
                parts.append(t[i:i + 2])
                i += 2
        start = i
    parts.append(t[start:])
    return TStr.join(parts)


def opaque_mask(t: TStr) -> Optional[list]:
    """Per-character opaque flags, or None when no character is opaque."""
    if not any(p.opaque for p in t.pieces):
        return None
    mask = [False] * len(t.text)
    for p in t.pieces:
        if p.opaque:
            for k in range(p.start, p.end):
                mask[k] = True
    return mask


def split_fields(t: TStr) -> list:
    """Field splitting of an unquoted expansion result: ``(blank, run)``
    pairs.  Blanks inside opaque placeholders do not split."""
    s = t.text
    if not any(c in IFS for c in s):
        return [(False, t)] if s else []
    mask = opaque_mask(t)
    out, i, n = [], 0, len(s)
    while i < n:
        blank = s[i] in IFS and not (mask and mask[i])
        j = i + 1
        while j < n and (s[j] in IFS and not (mask and mask[j])) == blank:
            j += 1
        out.append((blank, t[i:j]))
        i = j
    return out


def split_fields_ifs(t: TStr, ifs: str) -> list:
    """:func:`split_fields` at a script's own ``IFS`` (not empty, not the default): ``(kind, run)`` pairs, kind 0 a
    run of text, 1 a delimiter of IFS blanks only, 2 one of another IFS character with the IFS blanks around it
    (it ends a field even an empty one: ``a,,b`` is three fields, ``,a`` two).  POSIX 2.6.5."""
    s = t.text
    if not any(c in ifs for c in s):
        return [(0, t)] if s else []
    ws = "".join(c for c in " \t\n" if c in ifs)
    mask = opaque_mask(t)
    out, i, n = [], 0, len(s)
    while i < n:
        if s[i] in ifs and not (mask and mask[i]):
            j = i
            while j < n and s[j] in ws and not (mask and mask[j]):
                j += 1
            hard = j < n and s[j] in ifs and s[j] not in ws and not (mask and mask[j])
            if hard:
                j += 1
                while j < n and s[j] in ws and not (mask and mask[j]):
                    j += 1
            out.append((2 if hard else 1, t[i:j]))
            i = j
            continue
        j = i + 1
        while j < n and not (s[j] in ifs and not (mask and mask[j])):
            j += 1
        out.append((0, t[i:j]))
        i = j
    return out


def ifs_of(st) -> Optional[str]:
    """The ``IFS`` unquoted expansions are split at on this path: the default when the script never set it or
    unset it, None when it set one pdlint cannot see (hostile-input round rw27/h item P2: the constant default
    was used, so ``IFS=`` / ``IFS=$'\\n'`` / ``IFS=,`` scripts were split where bash does not, and not where it
    does)."""
    var = st.vars.get("IFS") if st is not None else None
    if var is None:
        return IFS
    value = var.scalar()
    if value is None:
        return IFS
    if value.opaque:
        return None
    return value.text


def has_known_char(t: TStr) -> bool:
    mask = opaque_mask(t)
    return bool(t.text) and (mask is None or not all(mask))


# -- glob patterns ---------------------------------------------------------------

def has_glob(text: str, mask: list) -> bool:
    return any(c in "*?[" and not mask[i] for i, c in enumerate(text))


# -- fields ---------------------------------------------------------------------

class Fields:
    """Accumulates what one shell word expands to.

    In split mode the result is a list of fields (argv words); in ``nosplit``
    mode (assignments, ``case`` subjects, test operands, patterns) one string,
    with a per-character literal mask for pattern matching.
    """

    __slots__ = ("nosplit", "fields", "cur", "has", "parts", "ifs")

    def __init__(self, nosplit: bool = False, ifs: Optional[str] = IFS):
        self.nosplit = nosplit
        self.ifs = ifs  # what unquoted expansion results split at; None: an IFS pdlint cannot see (ifs_of)
        self.fields: list = []
        self.cur: list = []
        self.has = False
        self.parts: list = []  # nosplit: (TStr, literal)

    def lit(self, t: TStr, quoted: bool = False) -> None:
        """Text that is never split (written in the word, or quoted)."""
        if t.text:
            if self.nosplit:
                self.parts.append((t, quoted))
            else:
                self.cur.append(t)
            self.has = True
        elif quoted:
            self.has = True

    def value(self, t: TStr, quoted: bool) -> None:
        """An expansion result: split into fields when unquoted."""
        if quoted or self.nosplit:
            self.lit(t, quoted)
            return
        ifs = self.ifs
        if ifs != IFS:
            self._value_ifs(t, ifs)
            return
        for blank, run in split_fields(t):
            if blank:
                self.end()
            else:
                self.cur.append(run)
                self.has = True

    def _value_ifs(self, t: TStr, ifs: Optional[str]) -> None:
        """:meth:`value` of an unquoted result at a script's own ``IFS``: none splits nothing, one pdlint
        cannot see makes the result a placeholder (where it splits is unknown)."""
        if not t.text:
            return
        if ifs is None:
            self.cur.append(t if t.opaque else t.as_opaque())
            self.has = True
            return
        if not ifs:
            self.cur.append(t)
            self.has = True
            return
        for kind, run in split_fields_ifs(t, ifs):
            if kind == 0:
                self.cur.append(run)
                self.has = True
            elif kind == 2:
                self.has = True  # (a field ends here, even an empty one)
                self.end()
            else:
                self.end()

    def many(self, items: list, quoted: bool, sep: TStr) -> None:
        """``"$@"`` / ``${A[@]}``: one field per item (the first and last join
        the text around them)."""
        if self.nosplit:
            if items:
                self.lit(join_with(items, sep), quoted)
            return
        for i, item in enumerate(items):
            if i:
                self.end()
            self.value(item, quoted)
            if quoted:
                self.has = True

    def end(self) -> None:
        if self.has:
            cur = self.cur
            self.fields.append(cur[0] if len(cur) == 1 else TStr.join(cur))
        self.cur = []
        self.has = False

    def finish(self) -> list:
        self.end()
        return self.fields

    def joined(self) -> TStr:
        parts = self.parts
        if len(parts) == 1:
            return parts[0][0]
        return TStr.join(t for t, _ in parts)

    def mask(self) -> list:
        out: list = []
        for t, literal in self.parts:
            out.extend([literal] * len(t.text))
        return out


_ALL_ELEMENTS = lazyre.compile(r"\$@|\$\{@|\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]")


def _only_all_elements(unit, specials: list, a: int, b: int) -> bool:
    """Is the text ``[a, b)`` inside double quotes exactly one ``$@`` /
    ``${@...}`` / ``${NAME[@]...}`` expansion?  (Its operator's word may hold quotes and expansions of its own:
    ``"${A[@]+"${A[@]}"}"``, the `set -u` idiom for a possibly empty array - zero words when it is empty, field
    round rw34/a P1.)"""
    if len(specials) != 1:
        return False
    s, e, node = specials[0]
    text = unit.text[s:e]
    if not (s == a and e == b):
        return False
    if text == "$@":
        return True
    m = _ALL_ELEMENTS.match(text) if text.startswith("${") and text.endswith("}") else None
    # (`${A[@]:-WORD}` / `-` / `=` / `:=` / `?`: an empty array gives the operator's word, one field - "" for
    # `"${A[@]:-}"`, which SGLang refuses as an argument; rw35/h P2)
    return m is not None and not text.startswith(_DEFAULTING, m.end())


#: the operators after `${A[@]` whose word an empty array expands to
_DEFAULTING = (":-", ":=", ":?", "-", "=", "?")


# -- brace expansion ---------------------------------------------------------------

#: words a brace expansion may make (a `for` loop over more is cut by its own iteration limit, said as such)
MAX_BRACE_WORDS = 257
#: literal characters the expansion of one word may search for braces (each word it makes is searched again)
MAX_BRACE_SCAN = 1_000_000
#: word nodes whose text is quoted or an expansion as a whole: no brace expansion
_NO_BRACES = frozenset({"string", "raw_string", "ansi_c_string", "translated_string", "simple_expansion", "expansion",
                        "command_substitution", "arithmetic_expansion", "process_substitution"})
_NUM_RANGE = lazyre.compile(r"([+-]?\d+)\.\.([+-]?\d+)(?:\.\.([+-]?\d+))?")
_CHAR_RANGE = lazyre.compile(r"([A-Za-z])\.\.([A-Za-z])(?:\.\.([+-]?\d+))?")


#: the characters of a word's literal text the brace search reads: an escape (skipped), a brace, a comma
_BRACE_TOKEN = lazyre.compile(r"\\.|[{},]", re.S)


def _brace_in(pieces: list) -> Optional[tuple]:
    """The first brace expression of a word's pieces (literal text as TStr, quoted parts and expansions as nodes):
    ``(index of its first piece, index of its last, [alternative piece lists], text before it in the first piece,
    text after it in the last)``, or None.  The braces and the commas are unquoted literal text; an alternative
    may hold quoted parts and expansions, each one piece of it (``{"mlx5_0","mlx5_1"}`` is two words, as bash
    expands braces before anything else: field round rw29/a P1 - pdlint kept the one word and passed a launch
    SGLang stops on); a sequence expression (``{0..3}``) lies in one literal piece.  A `\\{`, a `{}`, a `{x}`
    without a comma or a range, and an unclosed `{` are literal, as in bash (the search goes on after them).

    One pass over the word, matching the braces with a stack (hostile-input round rw30/h P3: each `{` was
    followed to the end of the word, so 10,000 unclosed `{a` took the whole 10 s budget).  A `{` after an escaped
    backslash is a brace (`a\\\\{b,c}` is `a\\b a\\c` to bash; it was left literal)."""
    stack: list = []  # ((piece index, offset) of a `{`, [the commas at its depth])
    best = None
    for k, piece in enumerate(pieces):
        if not isinstance(piece, TStr) or any(p.opaque for p in piece.pieces):
            continue  # (a template's placeholder, a value pdlint stands in for: not the script's own braces;
            # a quoted part, an expansion: one piece of an alternative)
        t = piece.text
        if "{" not in t and "}" not in t and "," not in t:
            continue
        for m in _BRACE_TOKEN.finditer(t):
            j = m.start()
            c = t[j]
            if c == "{":
                stack.append(((k, j), []))
            elif c == ",":
                if stack:
                    stack[-1][1].append((k, j))
            elif c == "}" and stack:
                at, commas = stack.pop()
                if best is not None and best[0] < at:
                    continue
                if commas:
                    best = (at, (k, j), commas, None)
                elif at[0] == k and (_NUM_RANGE.fullmatch(t, at[1] + 1, j) or _CHAR_RANGE.fullmatch(t, at[1] + 1, j)):
                    items = _range_items(t[at[1] + 1:j], piece[at[1]:j + 1])
                    if items is not None:
                        best = (at, (k, j), commas, items)
    if best is None:
        return None
    (i, start), end, commas, items = best
    if items is not None:
        alts = [[x] for x in items]
    else:
        cuts = [(i, start)] + commas + [end]
        alts = [_between(pieces, cuts[m], cuts[m + 1]) for m in range(len(cuts) - 1)]
    return i, end[0], alts, pieces[i][:start], pieces[end[0]][end[1] + 1:]


def _between(pieces: list, a: tuple, b: tuple) -> list:
    """The pieces strictly between two positions ``(piece index, offset)`` of literal pieces."""
    (pa, ca), (pb, cb) = a, b
    if pa == pb:
        out = [pieces[pa][ca + 1:cb]]
    else:
        out = [pieces[pa][ca + 1:]] + pieces[pa + 1:pb] + [pieces[pb][:cb]]
    return [x for x in out if not isinstance(x, TStr) or x.text]


def _range_items(inner: str, where: TStr) -> Optional[list]:
    """The words of a sequence expression (`0..3`, `01..10..2`, `a..e`, `5..1`), each placed at the braces; None
    when ``inner`` is none."""
    m = _NUM_RANGE.fullmatch(inner)
    if m is not None:
        lo, hi = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        width = max(len(m.group(1).lstrip("+-")), len(m.group(2).lstrip("+-")))
        padded = any(x.lstrip("+-").startswith("0") and len(x.lstrip("+-")) > 1 for x in (m.group(1), m.group(2)))
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        texts = []
        for n in seq:
            if len(texts) > MAX_BRACE_WORDS:
                break
            texts.append(("-" if n < 0 else "") + str(abs(n)).zfill(width - (n < 0)) if padded else str(n))
    else:
        m = _CHAR_RANGE.fullmatch(inner)
        if m is None:
            return None
        lo, hi = ord(m.group(1)), ord(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        texts = [chr(n) for n in seq][:MAX_BRACE_WORDS + 1]
    p = where.pieces[0] if where.pieces else None
    return [TStr.at(x, p.src if p else None, p.offset if p else 0, p.chain if p else (), exact=False,
                    label=p.label if p else "") for x in texts]


# -- the expander ---------------------------------------------------------------

class Words:
    """Word-expansion half of the interpreter (mixed into it).  Relies on
    ``self.unit`` (the unit whose nodes are being evaluated), ``self.spend``
    (the expansion budget) and ``self.command_substitution``."""

    # -- entry points ---------------------------------------------------------
    def expand_args(self, nodes: list, st, unk: set) -> list:
        """Expand argument nodes into argv words."""
        words: list = []
        u = self.unit
        i, n = 0, len(nodes)
        while i < n:
            j = i + 1
            # (tree-sitter-bash ends a word before a backquoted substitution that follows a `{`: `{`echo 2`,}` is
            # three argument nodes with nothing between them, one word to bash - hostile-input round rw30/h P2)
            while j < n and nodes[j].start_byte == nodes[j - 1].end_byte and u.text[u.start(nodes[j]):][:1] == "`":
                j += 1
            if j == i + 1:
                words.extend(self.expand_word(nodes[i], st, unk))
            else:
                words.extend(self._expand_glued(nodes[i:j], st, unk))
            i = j
        return words

    def _expand_glued(self, nodes: list, st, unk: set) -> list:
        """One shell word written as several adjacent nodes (see :meth:`expand_args`)."""
        pieces: list = []
        for node in nodes:
            pieces += self._node_pieces(node)
        variants = self._brace_pieces(pieces) if any(isinstance(p, TStr) and "{" in p.text for p in pieces) else None
        return self._emit_variants(variants if variants is not None else [nodes], st, unk)

    def _emit_variants(self, variants: list, st, unk: set) -> list:
        """The fields of each variant (a list of literal pieces and nodes), one after the other."""
        out: list = []
        for pieces in variants:
            fb = Fields(ifs=ifs_of(st))
            for piece in pieces:
                if isinstance(piece, TStr):
                    self.emit_literal(piece, fb, False, False)
                else:
                    self.emit_node(piece, st, fb, False, False, unk)
            out += fb.finish()
        return out

    def expand_word(self, node, st, unk: set) -> list:
        return list(self._memo(node, st, unk, "w", self._expand_word))

    def _expand_word(self, node, st, unk: set) -> list:
        if node.type not in _NO_BRACES and self.unit.text.find("{", self.unit.start(node),
                                                                self.unit.char(node.end_byte)) >= 0:
            variants = self.brace_variants(node)
            if variants is not None:  # `for i in {0..1}`, `--model-path /m/qwen{2,3}`: one word per variant
                return self._emit_variants(variants, st, unk)
        fb = Fields(ifs=ifs_of(st))
        self.emit_node(node, st, fb, False, False, unk)
        return fb.finish()

    def brace_variants(self, node) -> Optional[list]:
        """Bash's brace expansion of an unquoted word, done before any other expansion: the word's variants, each a
        list of pieces (literal text as a TStr, expanding nodes as nodes), or None when the word has no brace
        expression (`{a,b}`, `{0..3}`, `{01..10..2}`, `{a..e}`) in its literal text.  At most
        :data:`MAX_BRACE_WORDS` variants (a limit reached is said)."""
        return self._brace_pieces(self._node_pieces(node))

    def _node_pieces(self, node) -> list:
        """A word node as brace expansion reads it: literal text as TStr, quoted parts and expansions as nodes."""
        u = self.unit
        if node.type in _NO_BRACES:
            return [node]
        a, b = u.start(node), u.char(node.end_byte)
        pieces: list = []
        pos = a
        for s, e, sub in special_parts(u, node):
            if s < pos or e > b:
                continue
            if s > pos:
                pieces.append(u.tstr[pos:s])
            pieces.append(sub)
            pos = e
        if pos < b:
            pieces.append(u.tstr[pos:b])
        return pieces

    def _brace_pieces(self, pieces: list) -> Optional[list]:
        """:meth:`brace_variants` of a word's pieces."""
        done: list = []
        todo = deque([pieces])
        expanded = cut = False
        scanned = 0
        while todo:
            cur = todo.popleft()
            scanned += sum(len(x.text) if isinstance(x, TStr) else 1 for x in cur)
            if expanded and scanned > MAX_BRACE_SCAN:
                # (what is still to do is half expanded: left out, never read as literal text)
                cut = True
                break
            hit = _brace_in(cur)
            if hit is None:
                done.append(cur)
                continue
            i, last, alternatives, before, after = hit
            expanded = True
            # every word taken from the queue is expanded to the end, its first alternatives first while the
            # words made stay within the cap (hostile-input round rw30/h P1: at the cap the words still queued,
            # whose later brace groups were not expanded, were returned as they were - `--enable-metrics{,}` read
            # as a literal flag - and no limit was said)
            room = MAX_BRACE_WORDS - len(done) - len(todo)
            if len(alternatives) > room:
                alternatives = alternatives[:room]
                cut = True
            for alt in alternatives:
                todo.append(cur[:i] + [x for x in (before, *alt, after) if not isinstance(x, TStr) or x.text]
                            + cur[last + 1:])
        if cut:
            self.limit("brace", f"a brace expansion made more than {MAX_BRACE_WORDS} words; the rest were skipped")
        return done if expanded else None

    def expand_parts(self, parts: list, st, unk: set) -> list:
        """Expand the first parts of a word node (the children of a ``concatenation``) as one word would be."""
        fb = Fields(ifs=ifs_of(st))
        for part in parts:
            self.emit_node(part, st, fb, False, False, unk)
        return fb.finish()

    def expand_value(self, node, st, unk: set) -> TStr:
        """Expand without word splitting (assignment values, case subjects)."""
        if node is None:
            return EMPTY
        return self._memo(node, st, unk, "v", self._expand_value)

    def _expand_value(self, node, st, unk: set) -> TStr:
        fb = Fields(nosplit=True)
        self.emit_node(node, st, fb, False, False, unk)
        return fb.joined()

    def _memo(self, node, st, unk: set, kind: str, expand):
        """Expand ``node`` through a cache.  A word made of literal text and
        plain ``$NAME``/``${NAME}``/``${NAME:-literal}`` references is a pure
        function of those variables' Var objects (shared by the paths that
        forked from one another), so paths that agree on them share one
        expansion.  Other words are expanded every time."""
        key = (id(self.unit), node.start_byte, node.end_byte, kind)
        refs = self.ref_cache.get(key)
        if refs is None:
            refs = self.ref_cache[key] = self._pure_refs(node)
        if refs is _DYNAMIC or any(NAMEREF + name in st.vars for name in refs):
            return expand(node, st, unk)
        full = (key, tuple(st.vars.get(name) for name in refs), st.vars.get("IFS"))
        hit = self.static_cache.get(full)
        if hit is None:
            local: set = set()
            hit = self.static_cache[full] = (expand(node, st, local), frozenset(local))
        else:
            self.spend(sum(len(t.text) for t in hit[0]) if isinstance(hit[0], list) else len(hit[0].text))
        unk |= hit[1]
        return hit[0]

    def _pure_refs(self, node):
        """The variable names a pure word reads (see :meth:`_memo`), or _DYNAMIC."""
        u = self.unit
        names: list = []
        todo = [node] if node.type in _SPECIAL_TYPES else [p for _, _, p in special_parts(u, node)]
        while todo:
            part = todo.pop()
            kind = part.type
            if kind in ("raw_string", "ansi_c_string"):
                continue
            if kind == "string":
                todo.extend(p for _, _, p in special_parts(u, part))
                continue
            if kind not in ("simple_expansion", "expansion"):
                return _DYNAMIC
            m = _PURE_REF_RE.fullmatch(u.source_text(part))
            if not m:
                return _DYNAMIC
            names.append(m.group(1) or m.group(2))
        return tuple(dict.fromkeys(names))

    def expand_heredoc(self, found: tuple, st, unk: set) -> TStr:
        """The text of a here-document (:func:`syntax.heredoc_parts` of the current unit) as its
        command reads it: parameter, command and arithmetic expansion unless the delimiter is quoted,
        no splitting.  ``st`` None: as written, every expansion opaque."""
        body, a, b, quoted, dash = found
        u = self.unit
        if quoted:
            text = u.tstr[a:b]
        else:
            fb = Fields(nosplit=True)
            pos = a
            for s, e, part in special_parts(u, body):
                if s < pos or e > b:
                    continue
                if s > pos:
                    self._heredoc_literal(u.tstr[pos:s], st, fb, unk)
                if st is None:
                    fb.lit(u.tstr[s:e].as_opaque(), True)
                else:
                    self.emit_node(part, st, fb, True, False, unk)
                pos = e
            if pos < b:
                self._heredoc_literal(u.tstr[pos:b], st, fb, unk)
            text = fb.joined()
        return strip_leading_tabs(text) if dash else text

    def _heredoc_literal(self, t: TStr, st, fb: "Fields", unk: set) -> None:
        """Text of a here-document between the expansions tree-sitter-bash finds there, which are not
        all of them: backquotes and the special parameters (``$1``, ``$@``, ``$#``...) it leaves in the
        text are expanded here, each parsed on its own (its characters keep their origins)."""
        text, pos = t.text, 0
        if "`" in text or "$" in text:
            for m in _HEREDOC_MISSED.finditer(text):
                if m.group(0)[0] == "\\":
                    continue  # an escape: unquote_dq's
                if m.start() > pos:
                    fb.lit(unquote_dq(t[pos:m.start()], HEREDOC_ESCAPES), True)
                fragment = t[m.start():m.end()]
                fb.lit(fragment.as_opaque() if st is None else self._expand_fragment(fragment, st, unk), True)
                pos = m.end()
        if pos < len(text):
            fb.lit(unquote_dq(t[pos:], HEREDOC_ESCAPES), True)

    def _expand_fragment(self, fragment: TStr, st, unk: set) -> TStr:
        unit = self.parse(fragment, kind="here-document")
        node = unit.root.named_children[0] if unit.root.named_child_count else None
        name = node.child_by_field_name("name") if node is not None and node.type == "command" else None
        if name is None:
            return fragment.as_opaque()
        with self.in_unit(unit):
            return self.expand_value(name, st, unk)

    def expand_pattern(self, node, st, unk: set) -> tuple:
        """Expand a pattern: ``(TStr, literal mask)``."""
        fb = Fields(nosplit=True)
        self.emit_node(node, st, fb, False, False, unk)
        return fb.joined(), fb.mask()

    # -- node walk ------------------------------------------------------------
    def emit_node(self, node, st, fb: Fields, quoted: bool, opsplit: bool, unk: set) -> None:
        u = self.unit
        kind = node.type
        if kind in _EXPANDING_TYPES and self._carried_placeholder(node, unk):
            fb.value(u.slice(node), quoted)
            return
        if kind in ("string", "translated_string"):
            a, b = u.start(node), u.char(node.end_byte)
            a2 = a + (2 if kind == "translated_string" else 1)
            b2 = b - 1 if b - 1 >= a2 and u.text[b - 1] == '"' else b
            specials = special_parts(u, node)
            if not _only_all_elements(u, specials, a2, b2):
                # "" makes an (empty) word; "$@" / "${A[@]}" alone in the
                # quotes make one word per element: none for an empty array
                fb.lit(EMPTY, True)
            self.emit_range(a2, b2, specials, st, fb, True, False, unk)
        elif kind == "raw_string":
            a, b = u.start(node), u.char(node.end_byte)
            b2 = b - 1 if b - 1 > a and u.text[b - 1] == "'" else b
            at = a + 1
            for pa, pb in u.quoted_subs:  # the template's own placeholders (syntax.Unit)
                if at <= pa and pb <= b2:
                    fb.lit(u.tstr[at:pa], True)
                    fb.lit(u.tstr[pa:pb].as_opaque(), True)
                    at = pb
            fb.lit(u.tstr[at:b2], True)
        elif kind == "ansi_c_string":
            a, b = u.start(node), u.char(node.end_byte)
            b2 = b - 1 if b - 1 > a + 1 and u.text[b - 1] == "'" else b
            fb.lit(ansi_c(u.tstr[a + 2:b2]), True)
        elif kind in ("simple_expansion", "expansion"):
            self.parameter(node, st, fb, quoted, unk)
        elif kind == "command_substitution":
            fb.value(self.command_substitution(node, st, unk), quoted)
        elif kind == "arithmetic_expansion":
            fb.value(self.arithmetic_expansion(node, st, unk), quoted)
        elif kind == "process_substitution":
            fb.lit(u.slice(node).as_opaque(), quoted)
        else:
            a, b = u.start(node), u.char(node.end_byte)
            self.emit_range(a, b, special_parts(u, node), st, fb, quoted, opsplit, unk)

    def _carried_placeholder(self, node, unk: set) -> bool:
        """True when ``node`` is an expansion whose every character is a
        placeholder carried into re-parsed text (``eval``, ``sh -c``): the
        reference as written where an unknown value stood.  Bash would have
        expanded the real value once, before the re-parse, so the text must
        not be expanded again -- in another frame ``$1`` would read the
        wrong function's argument.  The names it stood for stay unknown."""
        t = self.unit.slice(node)
        if not t.text or not t.pieces or not all(p.opaque for p in t.pieces) \
                or sum(p.end - p.start for p in t.pieces) != len(t.text):
            return False
        if node.type == "simple_expansion":
            name = t.text[1:]
        else:
            m = _PARAM_RE.match(t.text) if node.type == "expansion" else None
            name = m.group(2) if m else ""
        if name and (_NAME_RE.fullmatch(name) or name.isdigit()):
            unk.add(name)
        return True

    def emit_range(self, a: int, b: int, specials: list, st, fb: Fields, quoted: bool,
                   opsplit: bool, unk: set) -> None:
        """Text ``[a, b)`` of the current unit: literal text between the
        ``specials`` (sorted spans of expanding nodes), which are expanded."""
        pos = a
        for s, e, node in specials:
            if s < pos or e > b:
                continue
            if s > pos:
                self.emit_literal(self.unit.tstr[pos:s], fb, quoted, opsplit)
            self.emit_node(node, st, fb, quoted, opsplit, unk)
            pos = e
        if pos < b:
            self.emit_literal(self.unit.tstr[pos:b], fb, quoted, opsplit)

    def emit_literal(self, t: TStr, fb: Fields, quoted: bool, opsplit: bool) -> None:
        if quoted:
            fb.lit(unquote_dq(t), True)
        elif fb.nosplit:
            for run, escaped in plain_runs(t):
                fb.lit(run, escaped)
        elif opsplit:
            for run, escaped in plain_runs(t):
                if escaped:
                    fb.lit(run, True)
                else:
                    fb.value(run, False)
        else:
            fb.lit(unquote_plain(t), False)

    # -- variables ------------------------------------------------------------
    def lookup(self, name: str, st):
        """The Var for ``name``, :data:`UNSET`, or :data:`UNKNOWN`."""
        if name.isdigit():
            i = int(name)
            if i == 0:
                return UNKNOWN
            if st.positional is not None:
                return st.positional[i - 1] if i <= len(st.positional) else UNSET
            return st.pos_bind.get(i, UNKNOWN)
        if name in ("@", "*"):
            if st.positional is None:
                return UNKNOWN
            unknown = frozenset().union(*(v.unknown for v in st.positional)) if st.positional else frozenset()
            return Var(tuple(v.value for v in st.positional), unknown)
        if name == "!":  # the last background job: a placeholder naming its commands (shell.jobs)
            return st.vars.get("!", UNKNOWN)
        if len(name) == 1 and name in "#?$-_":
            return UNKNOWN
        if NAMEREF + name in st.vars:  # `declare -n R=V`: $R is $V
            name = st.resolve(name)
            if name is None:
                return UNKNOWN
        return st.vars.get(name, UNKNOWN)

    def parameter(self, node, st, fb: Fields, quoted: bool, unk: set) -> None:
        """``$X`` / ``${...}`` (see the module docstring for unknown values)."""
        u = self.unit
        a, b = u.start(node), u.char(node.end_byte)
        use = u.tstr[a:b]
        text = use.text
        if not text.startswith("$") and _CONTINUED.match(text):
            # tree-sitter-bash puts the blanks and a line continuation before a `${` / `$` in a double-quoted
            # string into that token (`"run ${X} \<newline>  ${Y}"`): they are the string's text, the continuation
            # removed; the expansion starts at `${` (whn09/LongCat-2.0-SGLang-EFA's `bash -c "...
            # ${MOE_A2A_ARGS} \"`, field test rw13/e: read as a literal `${Y}`, its flags unchecked)
            lead = text.index("$")
            at = a
            for piece in re.split(r"(\\\n)", text[:lead]):
                if piece and piece != "\\\n":
                    fb.lit(u.tstr[at:at + len(piece)], quoted)
                at += len(piece)
            a += lead
            use = u.tstr[a:b]
            text = use.text
        ifs = ifs_of(st) if "IFS" in st.vars else IFS
        # ("$*" / "${A[*]}" join at IFS's first character: none when it is empty, unknown when pdlint cannot see it)
        sep = computed(ifs[:1], use) if ifs is not None else computed(" ", use).as_opaque()
        if node.type == "simple_expansion":
            name = text[1:]
            if not name:
                fb.lit(use, quoted)
                return
            pre, sub, op, oa, ob = "", None, None, b, b
        else:
            m = _PARAM_RE.match(text)
            if not m or not text.endswith("}"):
                fb.value(use.as_opaque(), quoted)
                return
            pre, name, sub = m.group(1), m.group(2), m.group(3)
            sub = sub[1:-1] if sub else None
            rest = text[m.end():-1]
            op = next((o for o in _OPS if rest.startswith(o)), None)
            if rest and op is None:
                fb.value(use.as_opaque(), quoted)
                return
            oa, ob = a + m.end() + (len(op) if op else 0), b - 1
        if name == "#" and not pre:
            self._deliver(self._count_positional(st, use), fb, quoted, False, sep, unk)
            return
        if pre == "!" and sub in ("@", "*"):  # ${!A[@]}: the array's indices
            var = self.lookup(name, st)
            if not isinstance(var, Var):
                fb.value(use.as_opaque(), quoted)
                return
            if var.is_assoc:
                keys = [computed(k, use) for k in var.keys]
            else:
                keys = [computed(str(k), use) for k in var.indices()]
            self._deliver(keys, fb, quoted, sub == "*", sep, unk)
            return
        if pre == "!":
            name = self._indirect(name, sub, st)
            if name is None:
                fb.value(use.as_opaque(), quoted)
                return
            sub = None
        star = name == "*" or sub == "*"
        var = self.lookup(name, st)
        val = self._select(var, name, sub, st, use)
        if isinstance(var, Var):
            unk |= var.unknown
        if pre == "#":
            self._deliver(self._length(val, name, sub, use), fb, quoted, False, sep, unk)
            if val is UNKNOWN:
                unk.add(name)
            return
        if op is None:
            if val is UNKNOWN:
                unk.add(name)
                self._deliver(use.as_opaque(), fb, quoted, star, sep, unk)
            else:
                self._deliver(val, fb, quoted, star, sep, unk)
            return
        specials = [s for s in special_parts(u, node) if s[0] >= oa]
        if op[-1] in "-=+?":
            self._default_op(op, name, val, use, oa, ob, specials, st, fb, quoted, star, sep, unk)
            return
        if val is UNKNOWN or _is_opaque(val):
            if val is UNKNOWN:
                unk.add(name)
            known = self._trim_known_end(op, val, oa, ob, specials, st, unk)
            fb.value(use.as_opaque() if known is None else self.matched(known), quoted)
            return
        result = self._transform(op, name, val, oa, ob, specials, st, use, unk)
        self._deliver(result if result is not None else use.as_opaque(), fb, quoted, star, sep, unk)

    def _select(self, var, name: str, sub: Optional[str], st, use: TStr):
        """The value a reference denotes: None (unset), TStr, list (``[@]``,
        ``$@``) or UNKNOWN; known values carry the hop ``$NAME``."""
        if var is UNKNOWN:
            return UNKNOWN
        v = var.value
        note = "$" + name
        if name in ("@", "*") or sub in ("@", "*"):
            items = list(v) if isinstance(v, tuple) else ([] if v is None else [v])
            return [t.reached_via(use, note) for t in items]
        if var.is_assoc and not isinstance(v, tuple):
            return UNKNOWN  # (an associative array pdlint could not read: an opaque placeholder)
        if var.is_assoc:
            key = self.assoc_key("0" if sub is None else sub, st)
            if key is None:
                return UNKNOWN
            v = var.item(key)
        elif sub is not None:
            index = self.arith_text(sub, st, set(), use)
            if index is None:
                return UNKNOWN
            items = v if isinstance(v, tuple) else ((v,) if v is not None else ())
            if var.idx is not None and isinstance(v, tuple):  # an array with gaps: the item of that index
                if any(t.opaque for t in items):
                    return UNKNOWN
                if index < 0:
                    index += var.idx[-1] + 1 if var.idx else 0
                v = items[var.idx.index(index)] if index in var.idx else None
                return None if v is None else v.reached_via(use, note)
            if any(t.opaque for t in items) and not (0 <= index < len(items) and not any(
                    t.opaque for t in items[:index + 1])):
                # an item at or before it is a placeholder (what a loop or an unknown output adds: any number
                # of words), so which item this is is not known (LMCache/LMBench's "${free_gpus[$i]}")
                return UNKNOWN
            if index < 0:
                index += len(items)
            v = items[index] if 0 <= index < len(items) else None
        elif isinstance(v, tuple):
            v = var.scalar()
        return None if v is None else v.reached_via(use, note)

    def assoc_key(self, text: str, st) -> Optional[str]:
        """The key a subscript of an associative array names (``[R1]``, ``["R1"]``, ``[$name]``,
        ``["${name}"]``); None when pdlint cannot see it (another expansion, a variable with no known value)."""
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            quote, text = text[0], text[1:-1]
            if quote == "'":
                return text
        m = _KEY_REF.fullmatch(text)
        if m is None:
            return text if _KEY_LITERAL.fullmatch(text) else None
        var = self.lookup(m.group(1) or m.group(2), st)
        if not isinstance(var, Var) or var.is_array:
            return None
        value = var.value
        if value is None or (not value.text and not value.opaque):
            return ""  # (empty, also when only because a variable with no known value counts as unset)
        return None if var.unknown or value.opaque else value.text

    def _deliver(self, val, fb: Fields, quoted: bool, star: bool, sep: TStr, unk: set) -> None:
        if val is None or val is UNKNOWN:
            return
        if isinstance(val, list):
            self.spend(sum(len(t.text) for t in val))
            if star and quoted:
                fb.value(join_with(val, sep), True)
            else:
                fb.many(val, quoted, sep)
            return
        self.spend(len(val.text))
        fb.value(val, quoted)

    def _count_positional(self, st, use: TStr):
        if st.positional is None or rest_of_args(st.positional):
            return use.as_opaque()
        return computed(str(len(st.positional)), use)

    def _indirect(self, name: str, sub, st) -> Optional[str]:
        if sub is not None:
            return None
        var = self.lookup(name, st)
        if not isinstance(var, Var):
            return None
        t = var.scalar()
        if t is None or t.opaque or not (_NAME_RE.fullmatch(t.text) or t.text.isdigit()):
            return None
        return t.text

    def _length(self, val, name: str, sub, use: TStr):
        if val is UNKNOWN or _is_opaque(val):
            return use.as_opaque()
        if isinstance(val, list):
            return computed(str(len(val)), use)
        return computed(str(len(val.text) if val is not None else 0), use)

    def _default_op(self, op, name, val, use, oa, ob, specials, st, fb, quoted, star, sep, unk) -> None:
        """``${X-w} ${X:-w} ${X=w} ${X:=w} ${X+w} ${X:+w} ${X?w} ${X:?w}``.
        A variable with no known value counts as unset (so the defaults a script
        carries get checked), except for ``?`` and for a word the script's
        own arguments default to: ``ROLE=${1:-prefill}`` in a role-dispatch script
        is whatever the caller passes, and every ``case "$ROLE"`` arm must stay
        reachable.  A number an argument defaults to (``NNODES=${2:-2}``) is taken,
        the argument still counted as read (so the roles callers pass at its
        position are tried) and noted as the environment's defaults are, so that
        a test of it runs the script again with the other value (field test
        rw21/b: ``--tp-size $((NNODES * GPUS_PER_NODE))`` was unchecked, unsaid)."""
        kind = op[-1]
        if val is UNKNOWN and name in _ALWAYS_SET:
            # `${$-}`, `${$:-x}`, `${?:-1}`: bash always sets these (the shell's pid, the last status, its
            # flags) and never to empty: the value, not the default (`${$-}` read as empty took --tp-size's
            # value away: a false SGL003, rw29/h P9)
            if kind == "+":
                self.emit_range(oa, ob, specials, st, fb, quoted, not quoted, unk)
            else:
                fb.value(use.as_opaque(), quoted)
            return
        if val is UNKNOWN and (kind == "?" or name in ("@", "*") or (name.isdigit() and (
                name == "0" or kind == "+" or self._word_default(oa, ob)))):
            unk.add(name)
            fb.value(use.as_opaque(), quoted)
            return
        if val is UNKNOWN and name.isdigit():
            unk.add(name)
        is_set = val is not UNKNOWN and val is not None and not (isinstance(val, list) and not val)
        if is_set and op.startswith(":"):
            is_set = any(t.text for t in val) if isinstance(val, list) else bool(val.text)
        if kind == "+":
            if is_set:
                self.emit_range(oa, ob, specials, st, fb, quoted, not quoted, unk)
            return
        if is_set:
            self._deliver(val, fb, quoted, star, sep, unk)
            return
        if kind == "?":
            fb.value(use.as_opaque(), quoted)
            return
        if val is UNKNOWN and oa >= ob:
            unk.add(name)  # `${X:-}`: empty because X counts as unset; a test of it is an assumption (Cond)
        elif val is UNKNOWN and (_NAME_RE.fullmatch(name) or name.isdigit()):
            self.note_env_default(name, self.unit.tstr[oa:ob])  # the environment may set it (EnvVariants)
        if kind == "=":
            sub_fb, local = Fields(nosplit=True), set()
            self.emit_range(oa, ob, specials, st, sub_fb, True, False, local)
            unk |= local
            value = sub_fb.joined()
            if _NAME_RE.fullmatch(name):
                st.assign(name, Var(value, frozenset(local) | (frozenset((name,)) if oa >= ob else frozenset())))
            self._deliver(value, fb, quoted, False, sep, unk)
            return
        self.emit_range(oa, ob, specials, st, fb, quoted, not quoted, unk)

    def _word_default(self, oa: int, ob: int) -> bool:
        """Is the default text at ``oa:ob`` anything but a number (``${1:-prefill}``, ``${1:-all}``,
        ``${1:-$ROLE}``)?  A word an argument defaults to may be what a script dispatches on (every
        ``case`` arm must stay reachable): it stays the caller's to give."""
        return not _NUMBER.fullmatch(self.unit.tstr.text[oa:ob].strip("\"'"))

    def glob(self, text: str, mask: list) -> Glob:
        """A shell pattern drawing on the script's matching budget."""
        return Glob(text, mask, self.match_budget)

    def matched(self, result):
        """``result`` of a match, after reporting (once) that the script's
        matching budget ran out when it did (the result is then unknown)."""
        if self.match_budget.left < 0:
            self.limit("match", f"pattern matching took more than {MAX_MATCH_STEPS} steps; the values of"
                                " later pattern operations and matches are unknown")
        return result

    def _pattern(self, oa: int, ob: int, specials: list, st, unk: set) -> tuple:
        fb = Fields(nosplit=True)
        self.emit_range(oa, ob, specials, st, fb, False, False, unk)
        return fb.joined(), fb.mask()

    def _trim_known_end(self, op, val, oa, ob, specials, st, unk) -> Optional[TStr]:
        """``${x##*:}`` / ``${x%%:*}`` of a value partly unknown (``"$1:pd_spike_prefill"``), when the literal
        separator is in its known end: the last ``:`` of the value is in its known tail (``##``), the first in its
        known head (``%%``), wherever the unknown part ends.  None otherwise."""
        if op not in ("##", "%%") or not isinstance(val, TStr) or not val.pieces:
            return None
        pat, _ = self._pattern(oa, ob, specials, st, unk)
        text = pat.text
        if pat.opaque or len(text) < 2:
            return None
        lit = text[1:] if op == "##" else text[:-1]
        if (text[0] if op == "##" else text[-1]) != "*" or any(c in lit for c in "*?[\\"):
            return None
        opaque = [(q.start, q.end) for q in val.pieces if q.opaque]
        if not opaque:
            return None
        if op == "##":
            tail = max(e for _, e in opaque)
            i = val.text.rfind(lit)
            return val[i + len(lit):] if i >= tail else None
        head = min(a for a, _ in opaque)
        i = val.text.find(lit)
        return val[:i] if 0 <= i and i + len(lit) <= head else None

    def _transform(self, op, name, val, oa, ob, specials, st, use, unk):
        """Pattern removal/replacement, case change and substrings; None when
        the result cannot be computed."""
        if op in ("#", "##", "%", "%%"):
            pat, mask = self._pattern(oa, ob, specials, st, unk)
            if pat.opaque:
                return None
            glob = self.glob(pat.text, mask)
            return self.matched(_each(val, lambda t: _remove(t, glob, op)))
        if op in ("/", "//", "/#", "/%"):
            slash = _top_level_slash(self.unit.text, oa, ob, specials)
            pat, mask = self._pattern(oa, slash if slash is not None else ob,
                                      [s for s in specials if slash is None or s[1] <= slash], st, unk)
            rep = EMPTY
            if slash is not None:
                rep = self.expand_range_value(slash + 1, ob, [s for s in specials if s[0] > slash], st, unk)
            if pat.opaque or rep.opaque:
                return None
            glob = self.glob(pat.text, mask)
            return self.matched(_each(val, lambda t: _replace(t, glob, rep, op)))
        if op in ("^^", ",,", "^", ","):
            if ob > oa:
                return None
            return _each(val, lambda t: _case(t, op))
        if op == ":":
            var = self.lookup(name, st)
            if isinstance(val, list) and isinstance(var, Var) and var.idx is not None:
                return None  # (an array with gaps: its offset counts indices, not items)
            return self._substring(name, val, self.unit.text[oa:ob], st, use, unk)
        if op == "@" and ob == oa + 1 and self.unit.text[oa] in _TRANSFORMS:
            return _each(val, _TRANSFORMS[self.unit.text[oa]])
        return None

    def expand_range_value(self, a: int, b: int, specials: list, st, unk: set) -> TStr:
        fb = Fields(nosplit=True)
        self.emit_range(a, b, specials, st, fb, False, False, unk)
        return fb.joined()

    def _substring(self, name, val, spec: str, st, use: TStr, unk: set):
        off_s, _, len_s = spec.partition(":")
        offset = self.arith_text(off_s, st, unk, use)
        length = self.arith_text(len_s, st, unk, use) if len_s.strip() else None
        if offset is None or (len_s.strip() and length is None):
            return None
        if isinstance(val, list):
            if name in ("@", "*"):
                if offset < 1:
                    return None
                offset -= 1
            items = val[offset:] if offset >= 0 else val[max(0, len(val) + offset):]
            return items if length is None else items[:max(length, 0)]
        if val is None:
            return None
        n = len(val.text)
        start = offset if offset >= 0 else max(0, n + offset)
        end = n if length is None else (start + length if length >= 0 else n + length)
        return val[start:max(start, end)]

    # -- arithmetic -----------------------------------------------------------
    def arithmetic_expansion(self, node, st, unk: set) -> TStr:
        u = self.unit
        a, b = u.start(node), u.char(node.end_byte)
        use = u.tstr[a:b]
        text = use.text
        if text.startswith("$(("):
            ia, ib = a + 3, b - 2 if text.endswith("))") else b
        else:  # $[ ... ]
            ia, ib = a + 2, b - 1 if text.endswith("]") else b
        expr = self.expand_range_value(ia, ib, special_parts(u, node), st, unk)
        value = None if expr.opaque else self.arith_text(expr.text, st, unk, use)
        if value is None:
            return use.as_opaque()
        return computed(str(value), use)

    def arith_text(self, text: str, st, unk: set, at: TStr) -> Optional[int]:
        """Evaluate arithmetic ``text`` (``$NAME`` references are looked up);
        None when it uses an unknown value or does not evaluate."""
        if "$" in text:
            text = self._substitute_refs(text, st, unk)
            if text is None:
                return None

        def get(name: str) -> Optional[str]:
            var = self.lookup(name, st)
            if var is UNKNOWN:
                raise arith.Unknown(name)
            value = var.scalar()
            if value is None:
                return None
            if value.opaque:
                unk.update(var.unknown)
                raise arith.Unknown(name)
            return value.text

        def put(name: str, value: int) -> None:
            st.assign(name, Var(computed(str(value), at)))

        try:
            return arith.Evaluator(get, put).evaluate(text)
        except arith.Unknown as exc:
            unk.add(exc.name)
            return None
        except (arith.ArithError, RecursionError):
            return None

    def _substitute_refs(self, text: str, st, unk: set) -> Optional[str]:
        """Replace simple ``$X``/``${X}`` references, and lengths ``${#X}`` / ``${#X[@]}``, in arithmetic text by
        values (``(( ${#extra[@]} > 0 ))`` of an array the script built: field test rw26/b, both branches of the
        test were launches, two of them phantom)."""
        missing = []

        def length(m):
            name, sub = m.group(1), m.group(2)
            var = self.lookup(name, st)
            if var is UNKNOWN:
                missing.append(name)
                return "0"
            v = var.value
            if sub:  # the number of items: each a word, known when none is a placeholder (any number of words)
                items = v if isinstance(v, tuple) else (() if v is None else (v,))
                if any(t.opaque for t in items):
                    missing.append(name)
                    return "0"
                return str(len(items))
            one = v[0] if isinstance(v, tuple) and v else (None if isinstance(v, tuple) else v)
            if one is not None and one.opaque:
                missing.append(name)
                return "0"
            return str(len(one.text) if one is not None else 0)

        if "${#" in text:
            text = _LENGTH_REF_RE.sub(length, text)

        def repl(m):
            var = self.lookup(m.group(1), st)
            value = var.scalar() if isinstance(var, Var) else None
            if var is UNKNOWN or (value is not None and value.opaque):
                missing.append(m.group(1))
                return "0"
            return value.text if value is not None else ""

        out = _SIMPLE_REF_RE.sub(repl, text)
        if missing or "$" in out:
            unk.update(missing)
            return None
        return out


# -- transforms -------------------------------------------------------------------

def _is_opaque(val) -> bool:
    if isinstance(val, list):
        return any(t.opaque for t in val)
    return val is not None and val is not UNKNOWN and val.opaque


def _each(val, fn):
    if isinstance(val, list):
        out = [fn(t) for t in val]
        return None if any(t is None for t in out) else out
    if val is None:
        return EMPTY
    return fn(val)


def _remove(t: TStr, glob: Glob, op: str) -> Optional[TStr]:
    """``${x#p}`` ``${x##p}`` ``${x%p}`` ``${x%%p}`` on one value (None: unknown,
    the matcher ran out of steps)."""
    s = t.text
    n = len(s)
    if n > _MAX_PATTERN_SUBJECT:
        return None
    if op in ("#", "##"):
        ends = glob.ends(s)
        if ends is None:
            return None
        return t[(ends[-1] if op == "##" else ends[0]):] if ends else t
    # a suffix of s matching p is a prefix of reversed s matching reversed p
    lengths = glob.reversed().ends(s[::-1])
    if lengths is None:
        return None
    return t[:n - (lengths[-1] if op == "%%" else lengths[0])] if lengths else t


def _replace(t: TStr, glob: Glob, rep: TStr, op: str) -> Optional[TStr]:
    """``${x/p/r}`` ``${x//p/r}`` ``${x/#p/r}`` ``${x/%p/r}``: the longest
    non-empty match at the leftmost position (None: unknown)."""
    s = t.text
    n = len(s)
    if not glob.elems:
        # an empty pattern matches nothing, but anchored it matches the empty start or end: `${F[@]/#/--}` puts
        # `--` before every item (hostile-input round rw27/h item P5: the prefix was dropped, a false SGL011)
        if op == "/#":
            return TStr.join((rep, t))
        if op == "/%":
            return TStr.join((t, rep))
        return t
    if n > _MAX_REPLACE_SUBJECT:
        return None
    parts, pos = [], 0
    if op == "/%":
        lengths = glob.reversed().ends(s[::-1])
        if lengths is None:
            return None
        if lengths and lengths[-1] > 0:
            parts.extend((t[:n - lengths[-1]], rep))
            pos = n
    else:
        for i in ([0] if op == "/#" else range(n)):
            if i < pos:
                continue
            ends = glob.ends(s, i)
            if ends is None:
                return None
            if not ends or ends[-1] == i:
                continue
            parts.extend((t[pos:i], rep))
            pos = ends[-1]
            if op != "//":
                break
    if not parts:
        return t
    parts.append(t[pos:])
    return TStr.join(parts)


def _case(t: TStr, op: str) -> TStr:
    s = t.text
    if op == "^^":
        new = s.upper()
    elif op == ",,":
        new = s.lower()
    elif op == "^":
        new = s[:1].upper() + s[1:]
    else:
        new = s[:1].lower() + s[1:]
    if len(new) == len(s):
        return TStr(new, t.pieces)
    return computed(new, t)


def _quoted(t: TStr) -> Optional[TStr]:
    """``${X@Q}``: the value quoted for reuse as shell input, as bash 5 writes it (``'2'``, ``'a'\\''b'``); None
    (unknown) for a value with a character bash writes as a ``$'...'`` escape."""
    s = t.text
    if any(not c.isprintable() for c in s):
        return None
    return computed("'" + s.replace("'", "'\\''") + "'", t)


#: the ``${X@op}`` transformations of a known value pdlint computes (hostile-input round rw27/h item P23: the word
#: was opaque, though ``${TP@Q}`` of a known ``2`` is ``'2'`` that SGLang refuses); the others stay unknown
_TRANSFORMS = {
    "Q": _quoted,
    "E": lambda t: ansi_c(t),
    "U": lambda t: _case(t, "^^"),
    "L": lambda t: _case(t, ",,"),
    "u": lambda t: _case(t, "^"),
}


def _top_level_slash(text: str, a: int, b: int, specials: list) -> Optional[int]:
    """Index of the ``/`` separating pattern and replacement in ``${X/p/r}``."""
    i = a
    while i < b:
        inside = next((e for s, e, _ in specials if s <= i < e), None)
        if inside is not None:
            i = inside
            continue
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "/":
            return i
        i += 1
    return None
