"""Inline suppressions: the stage after check.

A finding is placed at the line a human edits (:mod:`pdlint.check`), so a
suppression is a comment at that line.  Forms (codes or rule names, comma- or
space-separated; anything after the closing bracket is the reason)::

    - --enable-linear-replayssm-spec   # pdlint: ignore[SGL101] decode only, see runbook
    {# pdlint: ignore[SGL101, PD005] reason #}                (Jinja)
    {{/* pdlint: ignore[SGL101] */}}                          (Go templates)
    --port 30000  # noqa: SGL007                              (ruff's form; other tools' codes are left alone)
    # pdlint: skip-file                                       (every finding in this file)

A directive covers findings of its codes

* on its own line, when it ends a line of code (trailing comment);
* on the next line of code, when the comment stands alone on its line
  (comment-only lines stacked above one line all cover it);
* on every line of a backslash-continued command, or of a Jinja tag written
  over several lines (``{% set flags = [...] %}``), that it ends or stands
  above (a comment cannot sit inside a continued shell command, only after
  its last line or above its first).

A directive at a shared origin (an anchor, a ``{% set %}``, a shared flag
list) therefore covers the finding there, which already names every launch
that reaches it.  ``pdlint: skip-file`` drops every finding placed in its file
(findings it causes elsewhere, e.g. at the other launch of a pair, stay).

Directives are read from the text of the files the run already read
(``Extraction.sources``); nothing is parsed again.  A ``#`` directive must
start the line or follow whitespace, as a YAML or shell comment does, and not
stand inside a string quoted on its line (:func:`_quoted`).

The check stage gives a launch at most 32 findings of a rule one by one and
one that counts the rest; it sees the directives through a :class:`Scope`, so
a suppressed finding is neither one of the 32 nor counted, and the counting
finding sits where no directive covers it (rw31/h P1).

Every code of a directive that covered no finding is reported as PD070
(unused-suppression, a warning, like ruff's RUF100): the rule is not enabled,
the code is unknown, or nothing fires there any more.  ``--ignore-noqa``
disables every directive (to audit them).  A directive that names PD070
itself is never reported.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.model import Finding
from pdlint.records import dataclass, field

_CODES = r"(?P<codes>[^\]\n]*)"
_DIRECTIVE = lazyre.compile(
    r"(?P<jinja>\{#-?[ \t]*)?(?P<go>\{\{-?[ \t]*/\*[ \t]*)?(?P<hash>(?:(?<=\s)|^)#[ \t]*)?"
    r"(?:pdlint:[ \t]*(?:ignore\[" + _CODES + r"\]|(?P<skip>skip-file\b))|"
    r"(?i:noqa):[ \t]*(?P<noqa>[A-Za-z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Za-z]+[0-9]+)*))",
    re.M)
_TAG_EDGE = lazyre.compile(r"\{[{%]|[%}]\}")
_COMMENT_ONLY = lazyre.compile(r"^[ \t]*(#|\{#|\{\{-?[ \t]*/\*)")
UNUSED_CODE = "PD070"


@dataclass
class Directive:
    path: str
    line: int
    column: int
    end_column: int
    codes: tuple  # as written, upper-cased (names mapped to codes)
    form: str  # "pdlint" | "noqa" | "skip-file"
    own_line: bool  # the comment stands alone on its line
    used: set = field(default_factory=set)

    def names(self, code: str) -> bool:
        return code in self.codes


def directives(src) -> list:
    """Every suppression directive in a source file (quick exit for files without one)."""
    text = src.text
    lower = text.lower()  # the quick exit as plain searches (a case-insensitive regex took 15x as long)
    if "pdlint:" not in lower and "noqa:" not in lower:
        return []
    from pdlint.rules import all_rules, get
    rules = all_rules()
    out = []
    inside = None  # (start, end) character spans of strings that run over several lines (_string_spans)
    raw = None  # ... of Jinja's `{% raw %}` blocks (_raw_spans)
    for m in _DIRECTIVE.finditer(text):
        opener = m.group("jinja") or m.group("go") or m.group("hash")
        if opener is None:
            continue  # "pdlint:" in running text, not a comment
        start = m.start()
        line, column = src.position(start)
        if m.group("hash") and _quoted(src.line_text(line), column, src.path):
            continue  # "# pdlint: ..." inside a quoted string (an echo, a value): text, not a comment
        if m.group("jinja"):
            if raw is None:
                raw = _raw_spans(text)
            if any(a <= start < b for a, b in raw):
                continue  # `{% raw %}{# pdlint: skip-file #}{% endraw %}`: text Jinja writes out, no comment
        if m.group("hash"):
            if inside is None:
                inside = _string_spans(text, src.path)
            if any(a <= start < b for a, b in inside):
                continue  # a line of a string opened on an earlier line (a usage text): text, not a comment
        own = _own_line(src.line_text(line), column, m)
        end_column = column + len(m.group(0))
        if m.group("skip"):
            out.append(Directive(src.path, line, column, end_column, (), "skip-file", own))
            continue
        if m.group("noqa") is not None:
            # ruff's form: only pdlint's own codes count, other tools' codes are theirs
            codes = tuple(c for c in re.findall(r"(?<![A-Za-z])[A-Za-z]+[0-9]+", m.group("noqa")) if c.upper() in rules)
            if codes:
                out.append(Directive(src.path, line, column, end_column, tuple(c.upper() for c in codes), "noqa",
                                     own))
            continue
        codes = []
        for word in re.split(r"[\s,]+", m.group("codes") or ""):
            if not word:
                continue
            rule = get(word)
            codes.append(rule.code if rule is not None else word.upper())
        out.append(Directive(src.path, line, column, end_column, tuple(codes), "pdlint", own))
    return out


_RAW_OPEN = lazyre.compile(r"\{%[-+]?[ \t\r\n]*raw[ \t\r\n]*[-+]?%\}")
_RAW_CLOSE = lazyre.compile(r"\{%[-+]?[ \t\r\n]*endraw[ \t\r\n]*[-+]?%\}")


# the end of a `{{ }}` / `{% %}` tag, or a string literal inside it, which Jinja's lexer reads whole (a `}}` in
# `{{ "}} {#" }}` ends nothing: hostile-input round rw35/h P1), or a quote no string closes (Jinja refuses it)
_EXPR_END = lazyre.compile(r"""\}\}|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|['"]""", re.S)
_STMT_END = lazyre.compile(r"""%\}|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|['"]""", re.S)


def _tag_end(text: str, at: int, ends) -> int:
    """The offset just past the closer of the tag whose body starts at ``at`` (strings skipped), -1 when none."""
    search = ends.search
    while True:
        m = search(text, at)
        if m is None:
            return -1
        if m.group()[0] not in "'\"":
            return m.end()
        at = m.end()  # (a string, or a quote no string closes: read on past it)


def _raw_spans(text: str) -> list:
    """Character spans of the bodies of Jinja's ``{% raw %}`` blocks, whose ``{# #}`` is text Jinja writes out
    (hostile-input round rw32/h P7: `{# pdlint: skip-file #}` there skipped the template).  Read as Jinja's lexer
    reads the template: from one tag to the next, a ``{# ... #}`` comment and a ``{{ ... }}`` whole, so a
    ``{% raw %}`` a comment mentions opens nothing (rw33/h P7: every later directive was ignored).  One pass."""
    out, at = [], 0
    find = text.find
    while True:
        j = find("{", at)
        if j < 0:
            return out
        opener = text[j:j + 2]
        if opener == "{#":
            k = find("#}", j + 2)
            if k < 0:
                return out  # (never closed: Jinja refuses the template; nothing after it is raw)
            at = k + 2
            continue
        if opener == "{{":
            k = _tag_end(text, j + 2, _EXPR_END)
            if k < 0:
                return out
            at = k
            continue
        if opener != "{%":
            at = j + 1
            continue
        m = _RAW_OPEN.match(text, j)
        if m is None:
            k = _tag_end(text, j + 2, _STMT_END)
            if k < 0:
                return out
            at = k
            continue
        e = _RAW_CLOSE.search(text, m.end())
        end = e.start() if e is not None else len(text)
        out.append((m.end(), end))
        if e is None:
            return out
        at = e.end()


_TAG_CLOSERS = {"{{": "}}", "{%": "%}", "{#": "#}"}


def _blank_tags(text: str) -> str:
    r"""``text`` with each ``{{ }}`` / ``{% %}`` / ``{# #}`` written over with ``_`` (newlines kept), as the lazy
    pattern ``\{\{.*?\}\}|...`` would find them, in one pass: from an opener with no closer after it that pattern
    scans to the end of the text, once per opener (field test rw23/h: 60,000 unclosed `{{` took 98 s)."""
    out: list = []
    i = at = 0
    unclosed: set = set()  # openers no closer follows (none follows a later one either)
    while True:
        j = text.find("{", at)
        if j < 0:
            break
        opener = text[j:j + 2]
        closer = _TAG_CLOSERS.get(opener)
        if closer is None or opener in unclosed:
            at = j + 1
            continue
        k = text.find(closer, j + 2)
        if k < 0:
            unclosed.add(opener)
            at = j + 1
            continue
        out.append(text[i:j])
        out.append(re.sub(r"[^\n]", "_", text[j:k + 2]))
        i = at = k + 2
    out.append(text[i:])
    return "".join(out)


def _string_spans(text: str, path: str) -> list:
    """Character spans of the strings of a shell script or YAML file that run over several lines (a shell
    string, a here-document's body; a quoted or block YAML scalar): a ``#`` line inside one is text (field test
    rw20/h: `# pdlint: skip-file` in a script's multi-line usage string skipped the whole file)."""
    from pdlint.edits import kind_of
    kind = kind_of(path)
    out = []
    if kind == "jinja":
        # a template: the strings of the kind it renders to, read in the source with each `{{ }}` / `{% %}` /
        # `{# #}` written over with `_` (offsets and lines kept; a word where it stood) - a `# pdlint: skip-file`
        # in a usage string of a `.sh.j2` skipped the file for both roles (field test rw21/h)
        from pdlint.extract import _inner_kind
        kind = _inner_kind(path) or "yaml"
        if "{" in text:
            text = _blank_tags(text)
    if kind == "shell":
        from pdlint.formats.makefile import is_makefile
        if is_makefile(path):  # (a `define` body is the variable's value, comments and all: GNU make)
            out += _define_spans(text)
        from pdlint.formats.shell.syntax import ParserUnavailable, parser
        try:
            data = text.encode("utf-8", "surrogatepass")
            root = parser().parse(data).root_node
        except (ParserUnavailable, ValueError):
            return out
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type in ("string", "raw_string", "heredoc_body", "ansi_c_string") and \
                    n.start_point[0] != n.end_point[0]:
                out.append((len(data[:n.start_byte].decode("utf-8", "surrogatepass")),
                            len(data[:n.end_byte].decode("utf-8", "surrogatepass"))))
                continue
            stack.extend(n.children)
    elif kind == "yaml":
        from pdlint.formats import yamltree as yt
        try:
            docs = yt.compose(text)
        except yt.YamlError:
            docs = None
        if docs is None and "{" in text:
            # a Helm template (or a manifest with Go actions): its `{{ }}` actions written over, as for a Jinja
            # template; a `# pdlint: skip-file` in a block scalar of a chart skipped the chart (rw27/h P17)
            try:
                docs = yt.compose(_blank_tags(text))
            except yt.YamlError:
                pass
        if docs is None:  # still no structure: the block scalars as their indentation shows them
            return _block_scalar_spans(text)
        stack = [d.root for d in docs if d.root is not None]
        while stack:
            n = stack.pop()
            if isinstance(n, yt.YScalar):
                if n.style is not None and "\n" in text[n.start:n.end]:
                    out.append((n.start, n.end))
            elif isinstance(n, yt.YMap):
                for k, v in n.pairs:
                    stack += [k, v]
            elif isinstance(n, yt.YSeq):
                stack += n.items
    return out


#: a line whose value is a block scalar: `key: |`, `- >-`, `key: |2 # comment`
_BLOCK_HEADER = lazyre.compile(r"^(?P<indent>[ ]*)(?P<dashes>(?:-[ ]+)*)(?P<key>[^\n]*?)[|>][0-9+-]{0,2}[ \t]*(?:#[^\n]*)?$")


def _block_scalar_spans(text: str) -> list:
    """The bodies of the block scalars of a YAML text that does not compose (a Helm template whose actions
    break its structure), by indentation: the lines after a ``key: |`` / ``- |`` line indented deeper than
    its key (or its last ``-``), blank lines among them."""
    out = []
    lines = text.split("\n")
    offsets, at = [], 0
    for ln in lines:
        offsets.append(at)
        at += len(ln) + 1
    i = 0
    while i < len(lines):
        m = _BLOCK_HEADER.match(lines[i])
        key = m.group("key") if m else None
        if m is None or (key and not key.rstrip().endswith(":")) or "#" in key:
            i += 1
            continue
        parent = len(m.group("indent")) + (len(m.group("dashes")) if key else max(len(m.group("dashes")) - 2, 0))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip(" ")) > parent):
            j += 1
        if j > i + 1:
            out.append((offsets[i + 1], offsets[j - 1] + len(lines[j - 1])))
        i = j
    return out


_DEFINE = lazyre.compile(r"^[ ]*(?:(?:override|export|private)[ \t]+)*define(?:[ \t]|$)")
_ENDEF = lazyre.compile(r"^[ ]*endef(?:[ \t]|$)")


def _define_spans(text: str) -> list:
    """The bodies of a Makefile's ``define`` ... ``endef`` blocks (nested ones counted, as GNU make does)."""
    out, depth, start, at = [], 0, 0, 0
    for ln in text.split("\n"):
        if not ln.startswith("\t"):
            if _DEFINE.match(ln):
                if depth == 0:
                    start = at + len(ln) + 1
                depth += 1
            elif depth and _ENDEF.match(ln):
                depth -= 1
                if depth == 0:
                    out.append((start, at))
        at += len(ln) + 1
    if depth:
        out.append((start, len(text)))  # (make: "missing 'endef'"; the rest is the value)
    return out


def _quoted(text: str, column: int, path: str) -> bool:
    """The ``#`` at ``column`` of this line is inside a quoted string, not a comment: the line is read from
    its start with shell quoting (a quote opens anywhere, ``\\`` escapes outside single quotes) or, in a YAML
    file, YAML's (a quote opens a scalar only at its start; ``''`` inside single quotes).  A ``#`` met
    outside quotes before it starts the comment the directive is part of.  Quotes opened on an earlier
    line are not seen (the line counts as a comment, as before)."""
    from pdlint.edits import kind_of
    from pdlint.extract import _inner_kind
    kind = kind_of(path)
    if kind == "jinja":  # a template: the kind it renders to (a YAML manifest unless it is a script's)
        kind = _inner_kind(path) or "yaml"
    yaml = kind != "shell"
    end = column - 1
    i, quote = 0, None
    while i < end:
        ch = text[i]
        if quote is None:
            if ch == "#" and (i == 0 or text[i - 1] in " \t"):
                return False  # a comment starts before the directive
            if ch == "\\" and not yaml:
                i += 2
                continue
            if ch in "'\"" and (not yaml or i == 0 or text[i - 1] in " \t[{,:-?"):
                quote = ch
        elif ch == quote:
            if yaml and quote == "'" and text[i + 1:i + 2] == "'":
                i += 2
                continue
            quote = None
        elif ch == "\\" and quote == '"':
            i += 2
            continue
        i += 1
    return quote is not None


def _own_line(text: str, column: int, m) -> bool:
    """The directive's comment stands alone on its line (nothing but blanks before it, and after
    the end of a Jinja or Go-template comment)."""
    if text[:column - 1].strip():
        return False
    close = "#}" if m.group("jinja") else "*/" if m.group("go") else None
    if close is None:
        return True
    rest = text[column - 1:]
    end = rest.find(close)
    if end < 0:
        return True  # a comment that goes on over the next lines
    after = rest[end + len(close):].strip()
    if m.group("go"):
        after = after.lstrip("-").lstrip()
        after = after[2:] if after.startswith("}}") else after
    return not after.strip()


class _FileDirectives:
    """The directives of one file, indexed by the lines they cover."""

    def __init__(self, src, found: list):
        self.src = src
        self.all = found
        self.tag_span: dict = {}  # line -> (first, last) of a Jinja tag written over several lines
        if "{%" in src.text or "{{" in src.text:
            opened = None  # one linear pass over tag openers and closers (no regex backtracking)
            for m in _TAG_EDGE.finditer(src.text):
                if m.group(0)[0] == "{":
                    opened = m.start()
                elif opened is not None:
                    first, last = src.position(opened)[0], src.position(m.end())[0]
                    for ln in range(first, last + 1) if last > first else ():
                        self.tag_span[ln] = (first, last)
                    opened = None
        self.skip = [d for d in found if d.form == "skip-file"]
        self._covering: dict = {}  # line -> covering(line)
        self._runs: dict = {}  # line -> (first, last) of its continued command
        self._spans: dict = {}  # (first, last) -> the directives covering that command or tag
        self._hits: dict = {}  # (place, code) -> hits
        self.marked: set = set()  # (place, code) whose directives are marked used (Scope.take)
        self.by_line: dict = {}
        for d in found:
            if d.form != "skip-file":
                self.by_line.setdefault(d.line, []).append(d)

    def covering(self, line: int) -> list:
        """The directives (of any code) that cover a finding at ``line`` (memoised per command or tag: the check
        stage asks it for every finding of a rule that has many on one launch, :class:`Scope`)."""
        key = self.place(line)
        hit = self._covering.get(key)
        if hit is None:
            hit = self._covering[key] = self._cover(line)
        return hit

    def place(self, line: int) -> tuple:
        """What the directives covering ``line`` depend on: its command's or tag's first and last line, and the
        line itself when it is the first (a comment-only directive on it covers it)."""
        first, last = self.tag_span.get(line, (line, line))
        first, last = self._run(first)[0], self._run(last)[1]
        return first, last, first == line

    def hits(self, line: int, code: str) -> list:
        """The directives covering a finding of ``code`` at ``line`` (memoised)."""
        key = (self.place(line), code)
        hit = self._hits.get(key)
        if hit is None:
            hit = self._hits[key] = list(self.skip) or [d for d in self.covering(line) if d.names(code)]
        return hit

    def _run(self, line: int) -> tuple:
        """(first, last) line of the backslash-continued command ``line`` is part of, found once per command."""
        run = self._runs.get(line)
        if run is None:
            src = self.src
            first = last = line
            while first > 1 and src.line_text(first - 1).endswith("\\"):
                first -= 1
            while last < src.line_count and src.line_text(last).endswith("\\"):
                last += 1
            run = (first, last)
            for ln in range(first, last + 1):
                self._runs[ln] = run
        return run

    def _cover(self, line: int) -> list:
        src = self.src
        first, last = self.tag_span.get(line, (line, line))
        first = self._run(first)[0]
        last = self._run(last)[1]
        span = self._spans.get((first, last))  # (the lines of one continued command or tag share it)
        if span is None:
            span = []
            for ln in range(first, last + 1):
                span += [d for d in self.by_line.get(ln, ()) if not d.own_line]
            above = first - 1
            while above >= 1 and _COMMENT_ONLY.match(src.line_text(above)):
                span += [d for d in self.by_line.get(above, ()) if d.own_line]
                above -= 1
            self._spans[(first, last)] = span
        out = list(span)
        if first == line:  # a directive on the finding's own line even when it is comment-only (a Jinja tag)
            out += [d for d in self.by_line.get(line, ()) if d.own_line]
        return out


def covered(src, line: int, code: str) -> bool:
    """Does a directive of ``src`` cover ``code`` at ``line`` (as :func:`apply` would judge a finding there)?
    For findings merged before they are reported (one per file for several places): a place its own directive
    covers is reported on its own, so that the directive suppresses that place only (rw26/h item 15: an ignore
    written for a first, benign guard hid every later one merged into its finding)."""
    found = directives(src) if src is not None else []
    if not found:
        return False
    fd = _FileDirectives(src, found)
    return bool(fd.skip) or any(d.names(code) for d in fd.covering(line))


class Scope:
    """The inline suppressions and the rule selection of a run, as the check stage sees them before the findings
    are reported: it gives a launch at most :data:`pdlint.check.MAX_PER_CODE` findings of a rule one by one and
    one finding that counts the rest (and SGLang's engine, :data:`MAX_PER_KIND` command-line errors of a kind),
    and a finding a directive suppresses, or one its file's rule selection does not show, must neither count
    toward those nor be the place of the counting finding (hostile-input round rw31/h P1: 33 suppressed vendor
    flags put the counting finding, which stood for a misspelt flag on the next line, on the 33rd's ignored line,
    and the directive hid it).  ``state`` tells a place's state for a code; ``take`` suppresses a finding there
    at once (for the ones past the limit, which are never made one by one), marking its directives used as
    :func:`apply` does; :func:`apply` then reads the same directives and counts those taken.
    ``directives_on`` is False with ``--ignore-noqa``; ``shown(path, code)``: the rule selection for a file
    (``per-file-ignores`` included)."""

    def __init__(self, sources: dict, shown: Optional[Callable[[str, str], bool]] = None,
                 directives_on: bool = True):
        self.sources = sources
        self.shown = shown
        self.on = directives_on
        self.files: dict = {}  # path -> _FileDirectives or None
        self.taken: dict = {}  # path -> keys of the findings suppressed in the check stage

    def file(self, path: str) -> Optional[_FileDirectives]:
        if path not in self.files:
            src = self.sources.get(path)
            found = directives(src) if src is not None else []
            self.files[path] = _FileDirectives(src, found) if found else None
        return self.files[path]

    def _hits(self, path: str, line: int, code: str) -> list:
        fd = self.file(path) if self.on else None
        return fd.hits(line, code) if fd is not None else []

    def state(self, path: str, line: int, code: str) -> str:
        """``hidden`` (the rule is not shown for the file), ``covered`` (a directive suppresses it) or ``open``."""
        if self.shown is not None and not self.shown(path, code):
            return "hidden"
        return "covered" if self._hits(path, line, code) else "open"

    def near(self, path: str, line: int) -> bool:
        """Does any directive (of any code) cover ``line``: a finding there may be suppressed, by the code it gets."""
        fd = self.file(path) if self.on else None
        return fd is not None and bool(fd.skip or fd.covering(line))

    def take(self, path: str, line: int, code: str, key) -> bool:
        """Suppress a finding of ``code`` at ``line`` now, if a directive covers it (``key``: what tells it from
        the others there, for the count)."""
        hits = self._hits(path, line, code)
        if not hits:
            return False
        fd = self.file(path)
        mark = (fd.place(line), code)
        if mark not in fd.marked:  # (once per command: a directive above one may cover thousands of findings)
            fd.marked.add(mark)
            for d in hits:
                d.used.add(code)
        self.taken.setdefault(path, set()).add(key)
        return True


_current: Optional[Scope] = None


def current() -> Optional[Scope]:
    """The :class:`Scope` of the check stage in progress (None outside one: every place is open)."""
    return _current


class active:
    """``with active(scope):`` the check stage's :func:`current` scope."""

    def __init__(self, scope: Optional[Scope]):
        self.scope = scope

    def __enter__(self):
        global _current
        self._prev = _current
        _current = self.scope
        return self.scope

    def __exit__(self, *exc):
        global _current
        _current = self._prev
        return False


def apply(findings: list, sources: dict, enabled: Callable[[str, str], bool],
          counts: Optional[dict] = None, judged: Optional[Callable[[str], bool]] = None,
          scope: Optional[Scope] = None) -> tuple:
    """(findings left, number suppressed): drop what a directive covers, add
    PD070 for every directive code that covered nothing.  ``enabled(code,
    path)`` tells whether a rule is on for a file; ``counts`` (if given)
    collects the number suppressed per path; ``judged(path)`` (if given) tells
    whether the run judged a file's lines at all (a file read only to look at it,
    a YAML beside a template that might be a playbook, cannot have used its
    directives: no PD070 there, field test rw19/c); ``scope`` (if given): the
    check stage's :class:`Scope`, whose directives (and what it suppressed
    already) are used."""
    files: dict = {}

    def for_path(path: str) -> Optional[_FileDirectives]:
        if scope is not None and path in sources and scope.sources.get(path) is sources[path]:
            return scope.file(path)
        if path not in files:
            src = sources.get(path)
            found = directives(src) if src is not None else []
            files[path] = _FileDirectives(src, found) if found else None
        return files[path]

    kept = []
    suppressed = 0
    for f in findings:
        fd = for_path(f.path)
        if fd is None:
            kept.append(f)
            continue
        hits = fd.hits(f.line, f.code)
        if hits:
            mark = (fd.place(f.line), f.code)
            if mark not in fd.marked:
                fd.marked.add(mark)
                for d in hits:
                    d.used.add(f.code)
            suppressed += 1
            if counts is not None:
                counts[f.path] = counts.get(f.path, 0) + 1
        else:
            kept.append(f)
    if scope is not None:
        for path, keys in sorted(scope.taken.items()):
            if path in sources:
                suppressed += len(keys)
                if counts is not None:
                    counts[path] = counts.get(path, 0) + len(keys)
    for path in sorted(sources):
        fd = for_path(path)
        if fd is None or not enabled(UNUSED_CODE, path) or (judged is not None and not judged(path)):
            continue
        for d in fd.all:
            if d.form == "skip-file" or UNUSED_CODE in d.codes:
                continue
            for code in d.codes:
                if code in d.used:
                    continue
                kept.append(_unused(d, code, enabled(code, path)))
    return kept, suppressed


def _unused(d: Directive, code: str, enabled: bool) -> Finding:
    from pdlint.rules import all_rules
    rule = all_rules()[UNUSED_CODE]
    where = "the line below" if d.own_line else "this line"
    if code not in all_rules():
        why = f"{code!r} is not a pdlint rule code (see `pdlint rules`)"
    elif not enabled:
        why = f"{code} is not enabled here"
    else:
        why = f"no {code} finding on {where}"
    return Finding(d.path, d.line, d.column, rule.code, rule.name, rule.severity, None,
                   f"unused suppression of {code}: {why}", (),
                   f"Remove {code} from the comment (or the whole comment when it names nothing else).",
                   None, d.end_column, token=code)
