"""Text edits at the origin of traced tokens, for ``pdlint --fix``.

:mod:`pdlint.fix` decides *what* changes (a flag spelled differently, a flag
occurrence moved out of a shared part); this module decides *how* the source
text changes so that the edit touches only that: it finds where a token is
written (:func:`span`) and in what kind of list it stands (:func:`locate`),
then produces the minimal edits to remove a run of tokens from that list or to
add tokens after one of its entries, in the list's own syntax.

Lists a token can stand in:

* ``block`` -- a YAML block sequence entry (``- --flag``), in a YAML file or a
  template that renders YAML; entries are added as new lines with the same
  indentation, removed as whole lines;
* ``flow`` -- an entry of a YAML flow sequence (``[a, b]``) or of a Jinja list
  literal (``{% set x = ["--a", "--b"] %}``); entries are added after ``, ``,
  removed with one neighbouring comma;
* ``word`` -- a blank-separated word of a command line: a shell line, a YAML
  string, a shell variable's value, a template's literal text; words are added
  after a blank and removed with one neighbouring run of blanks (a line left
  empty, or holding only a ``\\`` continuation, goes with them).

In YAML files the nodes come from ruamel.yaml's composer (exact start and end
offsets, quoting and flow style; imported only here, only for ``--fix`` and
``--diff``); templates and shell scripts are read as text.  New entries are
quoted for the list they join; a value that cannot be written safely there
makes the fix unavailable rather than approximate.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from pdlint import lazyre
from pdlint.model import Edit
from pdlint.records import dataclass
from pdlint.text import SourceFile, TStr

# a word any command line, YAML scalar or template text takes as is
_WORD_SAFE = lazyre.compile(r"^[A-Za-z0-9_./:=@+%-]+$")
_PLAIN_BLOCK = lazyre.compile(r"^[A-Za-z0-9_./=@+%-][A-Za-z0-9_./:=@+%,-]*$")
_PLAIN_FLOW = lazyre.compile(r"^[A-Za-z0-9_./=@+%-][A-Za-z0-9_./:=@+%-]*$")
# plain scalars YAML would read as something other than a string (1.1 and 1.2 core schemas)
_YAML_TYPED = lazyre.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N"
    r"|[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)|\d[\d_]*(?::[0-5]?\d)+(?:\.\d*)?|\d{4}-\d\d?-\d\d?.*|<<|=)$")


def kind_of(path: str) -> str:
    """``yaml``, ``jinja`` (any template), ``shell`` or ``other``, by file name (``x.yaml.example``: as ``x.yaml``)."""
    from pdlint.discover import COPY_SUFFIXES, SHELL_EXT, SNIFF_SHELL_EXT
    lower = path.lower()
    if lower.endswith(COPY_SUFFIXES):
        lower = lower[:lower.rfind(".")]
    if lower.endswith((".j2", ".jinja", ".jinja2", ".tpl")):
        return "jinja"
    if lower.endswith((".yaml", ".yml")):
        return "yaml"
    if lower.endswith(SHELL_EXT + SNIFF_SHELL_EXT) or "." not in lower.rsplit("/", 1)[-1]:
        return "shell"
    return "other"


def span(tok: TStr, i: int = 0, j: Optional[int] = None) -> Optional[tuple]:
    """``(source, start, end)`` when ``tok.text[i:j]`` is written, character for
    character, at ``source.text[start:end]``; None otherwise (a template
    expression's output, text joined from several places, a synthetic token)."""
    j = len(tok.text) if j is None else j
    if not tok.pieces or i >= j:
        return None
    src, start, end = None, 0, 0
    for p in tok.pieces:
        if p.end <= i or p.start >= j:
            continue
        if not p.exact or p.opaque or p.src is None:
            return None
        a, b = max(p.start, i), min(p.end, j)
        off = p.offset + (a - p.start)
        if src is None:
            src, start, end = p.src, off, off + (b - a)
        elif p.src is not src or off != end:
            return None
        else:
            end = off + (b - a)
    if src is None or end - start != j - i or src.text[start:end] != tok.text[i:j]:
        return None
    return src, start, end


def point_after(tok: TStr) -> Optional[tuple]:
    """``(source, offset)`` just after where ``tok`` is written: its exact end, or
    the end of the ``{{ ... }}`` expression that printed it."""
    s = span(tok)
    if s is not None:
        return s[0], s[2]
    p = tok.pieces[-1] if tok.pieces else None
    if p is None or p.src is None or p.opaque or p.exact:
        return None
    text = p.src.text
    if text.startswith("{{", p.offset):
        end = text.find("}}", p.offset)
        return (p.src, end + 2) if end >= 0 else None
    return None


# ---------------------------------------------------------------------------
# Where a token stands
# ---------------------------------------------------------------------------

@dataclass
class Spot:
    """A token's place in its list: ``kind`` is ``block``, ``flow`` or ``word``;
    ``[start, end)`` the entry (quotes included) or the word; ``container`` an
    identity shared by the entries of one list (None for words)."""

    src: SourceFile
    kind: str
    start: int
    end: int
    container: object = None
    siblings: int = 0  # entries in a block list (0: unknown); a flow list emptied stays a list: []
    in_tag: bool = False  # inside a Jinja {% %} / {{ }} tag: entries are Jinja literals
    file_kind: str = "other"


def locate(src: SourceFile, start: int, end: int) -> Optional[Spot]:
    """Where the text ``src.text[start:end]`` stands (see :class:`Spot`)."""
    fk = kind_of(src.path)
    text = src.text
    in_tag = fk == "jinja" and _in_jinja_tag(text, start)
    if fk == "yaml":
        found = _yaml_scalar_at(src, start, end)
        if found is None:
            return None  # not a scalar of a YAML document ruamel can read (e.g. a Go template): no edit
        scalar, parent, count, is_key = found
        if _scalar_is_token(text, scalar, start, end):
            if parent is None or "\n" in text[start:end]:
                return None
            kind = "flow" if parent.flow_style else "block"
            return Spot(src, kind, scalar.start_mark.index, scalar.end_mark.index, id(parent), count, False, fk)
        return None if is_key else _word(src, start, end, fk, False)
    qs, qe = start, end
    if start > 0 and end < len(text) and text[start - 1] in "\"'" and text[end] == text[start - 1]:
        qs, qe = start - 1, end + 1
    if fk in ("jinja", "other") and not in_tag:
        ls = text.rfind("\n", 0, qs) + 1
        le = _line_end(text, qe)
        if re.fullmatch(r"[ \t]*-[ \t]+", text[ls:qs]) and re.fullmatch(r"[ \t]*(#.*)?", text[qe:le]):
            indent = len(text[ls:qs]) - len(text[ls:qs].lstrip(" \t"))  # the dash's column
            return Spot(src, "block", qs, qe, ("block", indent), _block_siblings(text, ls, indent), False, fk)
    before = text[max(0, qs - 200):qs].rstrip()
    after = text[qe:qe + 200].lstrip()
    if fk != "shell" and before.endswith(("[", ",")) and after.startswith((",", "]")) and "\n" not in text[qs:qe]:
        opener = _flow_opener(text, qs)
        if opener is not None:
            return Spot(src, "flow", qs, qe, ("flow", opener), 0, in_tag, fk)
    return _word(src, start, end, fk, in_tag)


def locate_end(src: SourceFile, end: int) -> Optional[Spot]:
    """The entry or word of a template that ends at ``end`` (where a ``{{ ... }}``
    expression ends), to add entries after it."""
    text = src.text
    fk = kind_of(src.path)
    if fk == "yaml" or (fk == "jinja" and _in_jinja_tag(text, end)):
        return None
    ls = text.rfind("\n", 0, end) + 1
    le = _line_end(text, end)
    qe = end + 1 if end < len(text) and text[end] in "\"'" else end
    m = re.match(r"[ \t]*-[ \t]+", text[ls:end])
    if fk != "shell" and m and re.fullmatch(r"[ \t]*(#.*)?", text[qe:le]):
        return Spot(src, "block", ls + m.end(), qe, ("block", len(m.group()) - len(m.group().lstrip(" \t"))), 0,
                    False, fk)
    if end == len(text) or text[end] in " \t\n;&|)\\":
        return Spot(src, "word", end, end, None, 0, False, fk)
    return None


def _scalar_is_token(text: str, scalar, start: int, end: int) -> bool:
    s, e = scalar.start_mark.index, scalar.end_mark.index
    if (s, e) == (start, end):
        return True
    return (s, e) == (start - 1, end + 1) and text[s] in "\"'" and text[e - 1] == text[s]


def _word(src: SourceFile, start: int, end: int, fk: str, in_tag: bool) -> Optional[Spot]:
    text = src.text
    ok_before = start == 0 or text[start - 1] in " \t\n\"'=("
    ok_after = end == len(text) or text[end] in " \t\n\"';&|)\\"
    if not (ok_before and ok_after):
        return None
    return Spot(src, "word", start, end, None, 0, in_tag, fk)


def _line_end(text: str, i: int) -> int:
    e = text.find("\n", i)
    return len(text) if e < 0 else e


def _in_jinja_tag(text: str, i: int) -> bool:
    opened = max(text.rfind("{%", 0, i), text.rfind("{{", 0, i), text.rfind("{#", 0, i))
    closed = max(text.rfind("%}", 0, i), text.rfind("}}", 0, i), text.rfind("#}", 0, i))
    return opened > closed


def _flow_opener(text: str, i: int) -> Optional[int]:
    """The ``[`` of the flow list around ``i`` (quotes and nesting respected, on a short scan back)."""
    depth, k, quote = 0, i - 1, None
    limit = max(0, i - 20000)
    while k >= limit:
        c = text[k]
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "]}":
            depth += 1
        elif c in "[{":
            if depth == 0:
                return k if c == "[" else None
            depth -= 1
        k -= 1
    return None


def _block_siblings(text: str, ls: int, indent: int) -> int:
    """Entries of the block sequence whose entry starts on the line at ``ls`` (text scan: a template
    cannot be parsed as YAML); lines of template tags and comments are skipped."""
    lines = text.split("\n")
    row = text.count("\n", 0, ls)

    def entry(line: str) -> Optional[bool]:  # True: entry of this list; False: list ends; None: skip
        s = line.strip()
        if not s or s.startswith(("#", "{%", "{#")):
            return None
        ind = len(line) - len(line.lstrip(" \t"))
        if ind > indent:
            return None  # continuation of an entry
        return ind == indent and (s == "-" or s.startswith(("- ", "-\t")))

    count = 1
    for rng in (range(row - 1, -1, -1), range(row + 1, len(lines))):
        for r in rng:
            e = entry(lines[r])
            if e is None:
                continue
            if not e:
                break
            count += 1
    return count


_YAML_CACHE: dict = {}


def _yaml_scalar_at(src: SourceFile, start: int, end: int) -> Optional[tuple]:
    """(scalar node, its sequence or None, entries in it, is a mapping key) for the scalar of a YAML file
    that holds ``[start, end)``."""
    import bisect
    starts, rows = _yaml_scalars(src)
    i = bisect.bisect_right(starts, start) - 1
    while i >= 0:
        node = rows[i][0]
        if node.start_mark.index <= start and end <= node.end_mark.index:
            return rows[i]
        if node.end_mark.index < start and i < len(rows) - 1:
            break
        i -= 1
    return None


def _yaml_scalars(src: SourceFile) -> tuple:
    """Every scalar of a YAML file, by start offset, with its parent (ruamel.yaml's composer: exact offsets)."""
    key = (id(src), len(src.text), hash(src.text))
    got = _YAML_CACHE.get(key)
    if got is not None:
        return got
    rows: list = []
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
        docs = list(YAML(typ="rt").compose_all(src.text))
    except Exception:  # not YAML ruamel can read: no YAML-aware edit in this file
        docs = []
    seen: set = set()
    stack = [(d, None, False) for d in docs if d is not None]
    while stack:
        n, parent, is_key = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ScalarNode):
            count = len(parent.value) if parent is not None else 0
            rows.append((n, parent, count, is_key))
        elif isinstance(n, SequenceNode):
            stack.extend((c, n, False) for c in n.value)
        elif isinstance(n, MappingNode):
            for k, v in n.value:
                stack.append((k, None, True))
                stack.append((v, None, False))
    rows.sort(key=lambda r: r[0].start_mark.index)
    out = ([r[0].start_mark.index for r in rows], rows)
    if len(_YAML_CACHE) > 64:
        _YAML_CACHE.clear()
    _YAML_CACHE[key] = out
    return out


def yaml_valid(text: str) -> bool:
    try:
        from ruamel.yaml import YAML
        for _ in YAML(typ="rt").compose_all(text):
            pass
        return True
    except Exception:
        return False


# ---------------------------------------------------------------------------
# Writing entries
# ---------------------------------------------------------------------------

def entry_text(text: str, spot: Spot, raw: Optional[str] = None) -> Optional[str]:
    """``text`` written as an entry of the list at ``spot``; ``raw`` is how a YAML file
    already writes it (kept when it fits). None when it cannot be written there safely."""
    if "\n" in text or "\r" in text:
        return None
    if spot.kind == "word":
        if not _WORD_SAFE.match(text) or "{{" in text or "{%" in text:
            return None
        return text
    if spot.in_tag:  # a Jinja list literal
        return json.dumps(text) if text.isprintable() else None
    if raw is not None and "\n" not in raw and (raw[:1] in "\"'" or (
            (_PLAIN_FLOW if spot.kind == "flow" else _PLAIN_BLOCK).match(raw) and not _YAML_TYPED.match(raw))):
        return raw
    plain = _PLAIN_FLOW if spot.kind == "flow" else _PLAIN_BLOCK
    if plain.match(text) and text != "-" and not _YAML_TYPED.match(text) and "{{" not in text:
        return text
    return json.dumps(text) if text.isprintable() else None


def insert_after(spot: Spot, entries: list) -> Optional[Edit]:
    """Add ``entries`` (already written by :func:`entry_text`) right after the entry at ``spot``."""
    text = spot.src.text
    if not entries:
        return None
    if spot.kind == "block":
        ls = text.rfind("\n", 0, spot.start) + 1
        prefix = text[ls:spot.start]
        le = _line_end(text, spot.end)
        lines = "".join("\n" + prefix + e for e in entries)
        return Edit(spot.src.path, le, le, lines)
    if spot.kind == "flow":
        return Edit(spot.src.path, spot.end, spot.end, "".join(", " + e for e in entries))
    return Edit(spot.src.path, spot.end, spot.end, "".join(" " + e for e in entries))


def trailing_comment(spot: Spot) -> str:
    """The comment (``# ...``, with the blanks before it) that ends a block entry's line, else ""."""
    if spot.kind != "block":
        return ""
    text = spot.src.text
    m = re.match(r"[ \t]+#[^\n]*", text[spot.end:_line_end(text, spot.end)])
    return m.group().rstrip() if m else ""


def comment_after(spot: Spot, comments: list) -> Optional[Edit]:
    """An edit that writes ``comments`` (from :func:`trailing_comment`) at the end of the line of the flow
    entry at ``spot``, where entries were just added after it; None where a comment there could land in a
    string or a template tag (then it is not moved)."""
    comments = [c.strip() for c in comments if c]
    if not comments or spot.kind != "flow" or spot.in_tag or spot.file_kind == "shell":
        return None
    text = spot.src.text
    ls = text.rfind("\n", 0, spot.start) + 1
    le = _line_end(text, spot.end)
    line, rest = text[ls:le], text[spot.end:le]
    if re.search(r"[#\"'\\{}%]", rest) or "{{" in line or "{%" in line or "{#" in line \
            or text[ls:spot.end].count('"') % 2 or text[ls:spot.end].count("'") % 2:
        return None
    return Edit(spot.src.path, le, le, "  " + " ".join(comments))


def insert_after_line(src: SourceFile, offset: int, lines: list) -> Edit:
    le = _line_end(src.text, offset)
    return Edit(src.path, le, le, "".join("\n" + x for x in lines))


def block_line_prefix(spot: Spot) -> str:
    text = spot.src.text
    return text[text.rfind("\n", 0, spot.start) + 1:spot.start]


def remove(spots: list, keep_comments: bool = False) -> Optional[list]:
    """Edits that remove the consecutive entries (or words) at ``spots`` from their list; None when they
    are not consecutive, would empty the list, or the list cannot be edited as text.  ``keep_comments``:
    the comments that end removed block entries' lines stay, each on a line of its own."""
    if not spots:
        return None
    spots = sorted(spots, key=lambda s: s.start)
    src, kind = spots[0].src, spots[0].kind
    if any(s.src is not src or s.kind != kind or s.container != spots[0].container for s in spots):
        return None
    text = src.text
    for a, b in zip(spots, spots[1:]):
        gap = text[a.end:b.start]
        if kind == "block":
            if not re.fullmatch(r"[ \t]*(#[^\n]*)?\n[ \t]*-[ \t]+", gap):
                return None
        elif kind == "flow":
            if not re.fullmatch(r"\s*,\s*", gap):
                return None
        elif not re.fullmatch(r"(?:[ \t]|\\\n)+", gap):
            return None
    start, end = spots[0].start, spots[-1].end
    if kind == "block":
        if spots[0].siblings and spots[0].siblings <= len(spots):
            return None  # the list would be empty: YAML reads an empty block list as null
        ls = text.rfind("\n", 0, start) + 1
        le = _line_end(text, end)
        kept = ""
        if keep_comments:
            dash = text[ls:start]
            indent = dash[:len(dash) - len(dash.lstrip(" \t"))]
            kept = "".join(indent + c.strip() + "\n" for c in map(trailing_comment, spots) if c)
        return [Edit(src.path, ls, min(le + 1, len(text)), kept)]
    if kind == "flow":
        before = text[:start].rstrip()
        if before.endswith(","):
            k = len(before) - 1
            return [Edit(src.path, k, end, "")]
        m = re.match(r"\s*,[ \t]*", text[end:])
        if m:
            return [Edit(src.path, start, end + m.end(), "")]
        return [Edit(src.path, start, end, "")]  # the only entry: [] stays a list
    return _remove_words(src, start, end)


def _remove_words(src: SourceFile, start: int, end: int) -> list:
    text = src.text
    ls = text.rfind("\n", 0, start) + 1
    le = _line_end(text, end)
    k = start
    while k > ls and text[k - 1] in " \t":
        k -= 1
    m = end
    while m < le and text[m] in " \t":
        m += 1
    if k < start and k > ls and text[k - 1] not in "\"'=([{":
        a, b = k, end
    elif m > end:
        a, b = start, m
    else:
        a, b = start, end
    first_line_start = ls
    last_line_end = le
    rest = text[first_line_start:a] + text[b:last_line_end]
    if rest.strip() in ("", "\\") and text[first_line_start:start].strip() == "":
        # the words were the line: drop the line (and a continuation that now leads nowhere)
        if rest.strip() == "" and first_line_start > 0:
            prev_end = first_line_start - 1
            prev = text[text.rfind("\n", 0, prev_end) + 1:prev_end]
            if prev.rstrip().endswith("\\"):
                cut = prev_end - (len(prev) - len(prev.rstrip())) - 1
                while cut > 0 and text[cut - 1] in " \t":
                    cut -= 1
                return [Edit(src.path, cut, last_line_end, "")]
        return [Edit(src.path, first_line_start, min(last_line_end + 1, len(text)), "")]
    return [Edit(src.path, a, b, "")]


def apply(text: str, edits: list) -> str:
    """``text`` with non-overlapping ``edits`` applied (offsets into the original text)."""
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[pos:e.start])
        out.append(e.content)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)
