"""Parsing shell text with tree-sitter-bash, and positions in the traced text.

tree-sitter is imported lazily (the first time a shell text is parsed), so
importing pdlint stays cheap for repositories without shell scripts.

A :class:`Unit` is one parsed text: the script handed to
:func:`pdlint.formats.shell.shell_commands`, a sourced file, the string given
to ``eval`` or an ``sh -c`` string.  tree-sitter reports UTF-8 *byte* offsets;
a unit converts them to character indices of its :class:`TStr`, so slicing a
node out of the unit keeps the origin of every character.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator, Optional

from pdlint import lazyre
from pdlint.text import TStr

_PARSER = None

#: Word-level nodes that expand (everything else inside a word is literal text).
SPECIAL_WORD_NODES = frozenset({
    "string", "raw_string", "ansi_c_string", "translated_string",
    "simple_expansion", "expansion", "command_substitution",
    "arithmetic_expansion", "process_substitution",
})

#: Special nodes whose tree-sitter span may include whitespace written before
#: them inside a double-quoted string (a quirk of the grammar's scanner).
_LEADING_BLANK_QUIRK = frozenset({
    "simple_expansion", "expansion", "command_substitution", "arithmetic_expansion",
    "translated_string", "ansi_c_string", "process_substitution",
})

#: Containers whose children are parts of one word.
_WORD_CONTAINERS = frozenset({"concatenation", "word", "number", "extglob_pattern", "regex",
                              "string_content", "brace_expression", "subscript"})


class ParserUnavailable(Exception):
    """tree-sitter or its bash grammar is not installed."""


def parser():
    """The shared tree-sitter parser for bash (created on first use)."""
    global _PARSER
    if _PARSER is None:
        try:
            import tree_sitter
            import tree_sitter_bash
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise ParserUnavailable(str(exc)) from exc
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


class Unit:
    """A parsed shell text and the byte -> character index map of its TStr."""

    __slots__ = ("tstr", "text", "root", "_b2c", "top", "kind", "parts_cache", "bad_subs", "quoted_subs",
                 "comment_subs", "arith_errors", "errexit", "cut")

    def __init__(self, tstr: TStr, top: bool = False, kind: str = "script"):
        self.tstr = tstr
        self.text = tstr.text
        self.errexit = None  # where the text turns errexit on and off (builtins._exits_on_failure; asked lazily)
        #: where the top-level statement holding an unterminated quote starts (bytes; :func:`unclosed_quote`):
        #: bash runs nothing from there on, so the evaluation stops there; None: no such quote
        self.cut: Optional[int] = None
        self.top = top
        self.kind = kind
        data = self.text.encode("utf-8", "surrogatepass")
        self._b2c = None if len(data) == len(self.text) else _continuations(data)
        data = _drop_final_continuation(data)
        if b"<>" in data:
            data = _read_write_respelled(data)
        if b"$((" in data and b"<<" in data:
            data = _arith_shift_respelled(data)
        if "{{" in self.text:
            data = _actions_respelled(tstr, data)
        self.root = parser().parse(data).root_node
        #: where the backquoted comments parsed as empty substitutions end (characters; _comment_substitutions_blanked)
        self.comment_subs: frozenset = frozenset()
        if b"`" in data and _COMMENT_SUB.search(data):
            again, ends = _comment_substitutions_blanked(self.root, data)
            if again is not data:
                data = again
                self.root = parser().parse(data).root_node
                self.comment_subs = frozenset(self.char(b) for b in ends)
        if kind.endswith(" -c string") or kind == "eval":
            # (a quote in a placeholder's source parses, but ends the quoted string around it: ROCm/MAD's
            # `'{"kv_role":"$role",...,"proxy_ip":"$HOST_IP"}'` with HOST_IP=$(... | awk '/src/{print $7}'))
            again = _placeholders_respelled(tstr, data, quoted_only=not self.root.has_error)
            if again is not data:
                data = again
                self.root = parser().parse(data).root_node
        self.arith_errors: list = []  # (node, offset) of arithmetic errors parsed around (_recover_arithmetic)
        if self.root.has_error and b"$((" in data:
            data = self._recover_arithmetic(data)
        self.parts_cache: dict = {}
        #: character spans of ``${a.b}`` words bash rejects ("bad substitution")
        self.bad_subs: list = []
        #: character spans of ``${a.b}`` inside single quotes of a unit that has
        #: bad substitutions outside them: the same template's placeholders
        self.quoted_subs: list = []
        if "${" in self.text and (self.root.has_error or _DOLLAR_SUB.search(self.text)):
            self._recover_bad_substitutions(data)

    def _recover_arithmetic(self, data: bytes) -> bytes:
        """``$((d[((i - 1) * (n + 1) + j)] + 1))`` is valid bash (an array subscript is an arithmetic
        expression) that tree-sitter-bash 0.25 does not read, and its error recovery swallows the lines after
        it (av/harbor's harbor.sh, field test rw14/g: every launch after such a line was PD020).  Parse again
        with the expansion's inside respelled ``0`` and blanks (same length: every position holds); the
        expansion's own text is still the original one, which the evaluator reads.  The errors met are kept
        (``arith_errors``) for the PD009 bash cannot confirm or refute (:func:`arithmetic`)."""
        for _ in range(MAX_ARITH_RECOVERIES):
            hit = None
            for node, off in errors(self.root):
                if node.type == "ERROR" and node.end_point.row > node.start_point.row and arithmetic(node):
                    hit = node, off
                    break
            if hit is None:
                break
            node, off = hit
            start = _arith_start(node)
            end = _arith_end(data, start) if start is not None else None
            if end is None or end - start < 6:
                break
            inner = bytes(c if c == 10 else 32 for c in data[start + 3:end - 2])
            again = data[:start + 3] + b"0" + inner[1:] + data[end - 2:]
            root = parser().parse(again).root_node
            if sum(1 for _ in errors(root)) > sum(1 for _ in errors(self.root)):
                break
            self.arith_errors.append((node, start))  # (reported at the expansion it could not read)
            data, self.root = again, root
        return data

    def _recover_bad_substitutions(self, data: bytes) -> None:
        """``${name.field}`` (a template placeholder, e.g. llm-d-benchmark's
        ``${accelerator.extraArgs}``) and ``${$name}`` (a ``$`` too many) are bad substitutions in bash, and
        tree-sitter-bash's error recovery swallows the words after it (the
        ``--`` of the next flag).  Parse again with each such word outside
        single quotes respelled ``${name_field}`` (same length, so every
        position holds); the word's text is still the original one, which the
        expander does not recognise as a parameter and keeps as an opaque
        placeholder.

        Such a word shows that something other than bash fills ``${a.b}`` in
        before the script runs (bash would stop at it), and that tool does not
        know shell quoting: the same placeholders inside single quotes
        (``'{"kv_port":${vllm.port}}'``) are recorded in ``quoted_subs``, and
        the expander keeps them opaque too instead of as literal text."""
        spans, quoted = [], []
        text = data.decode("latin-1")
        for m in _BAD_SUB_RE.finditer(text):
            back = m.start()
            while back > 0 and text[back - 1] == "\\":
                back -= 1
            if (m.start() - back) % 2:
                continue  # `\${$x}`: a literal `$`, nothing is substituted
            node = self.root.descendant_for_byte_range(m.start(), m.start() + 1)
            while node is not None and node.type not in _LITERAL_CONTEXT:
                node = node.parent
            if node is None:
                spans.append((m.start(), m.end()))
            elif node.type == "raw_string":
                quoted.append((m.start(), m.end()))
        if not spans:
            return
        buf = bytearray(data)
        for a, b in spans:
            buf[a + 2:b - 1] = bytes(buf[a + 2:b - 1]).translate(_RESPELL)
        self.root = parser().parse(bytes(buf)).root_node
        self.bad_subs = [(self.char(a), self.char(b)) for a, b in spans]
        self.quoted_subs = [(self.char(a), self.char(b)) for a, b in quoted]

    # -- positions ------------------------------------------------------------
    def char(self, byte: int) -> int:
        """Character index of a byte offset (of the character that byte belongs to)."""
        cont = self._b2c
        if cont is None:
            return byte
        if byte <= 0:
            return 0
        if byte >= len(self.text) + len(cont):  # the end (or past it)
            return len(self.text)
        return byte - bisect_right(cont, byte)  # the bytes up to it, less the continuation bytes among them

    def span(self, node) -> tuple:
        return self.char(node.start_byte), self.char(node.end_byte)

    def start(self, node) -> int:
        """Character index where ``node`` really starts (see :func:`true_start`)."""
        return true_start(self, node)

    def slice(self, node) -> TStr:
        return self.tstr[self.start(node):self.char(node.end_byte)]

    def source_text(self, node) -> str:
        return self.text[self.start(node):self.char(node.end_byte)]


_READ_WRITE = lazyre.compile(rb"(?<![<>])<>(?![<>&(])")


def _read_write_respelled(data: bytes) -> bytes:
    """``exec 9<>"$lock"`` (open for reading and writing) is valid bash that tree-sitter-bash does not parse
    (a PD009 on InferenceX's lock files): parsed as ``9< "$lock"`` (same length, every position holds; a
    redirection either way, and words are read from the original text).  Inside quotes ``< `` is text
    as ``<>`` was."""
    return _READ_WRITE.sub(b"< ", data)


def _arith_shift_respelled(data: bytes) -> bytes:
    """``${KV_CACHE_BYTES:-$((26 << 30))}`` is valid bash, but tree-sitter-bash 0.25 reads the ``<<`` of an
    arithmetic expansion inside a parameter expansion as a here-document, whose body swallows the rest of the
    script (AMD-AGI/Infera's launch_vllm_kvd_v2_kimi.sh, field test rw15/j: its launch was PD020).  Inside
    each ``$(( ... ))`` a ``<<`` is parsed as ``**`` (same length, every position holds; another arithmetic
    operator, and the evaluator reads the original text)."""
    out = bytearray(data)
    i = data.find(b"$((")
    while i >= 0:
        depth, j, n = 0, i + 1, len(data)
        while j < n:
            c = data[j]
            if c == 40:
                depth += 1
            elif c == 41:
                depth -= 1
                if depth == 0:
                    break
            elif c == 10:
                break
            j += 1
        if j < n and depth == 0:
            k = data.find(b"<<", i, j)
            while 0 <= k < j:
                out[k:k + 2] = b"**"
                k = data.find(b"<<", k + 2, j)
        i = data.find(b"$((", i + 3)
    return bytes(out)


def _drop_final_continuation(data: bytes) -> bytes:
    """A ``\\`` that continues the last line into the end of the text
    (``nohup python -m sglang_router.launch_router ... > log 2>&1 & \\``, the
    last line of shun8686/sglang's deepseekr1_router.sh) ends the command in
    bash; tree-sitter-bash reports a syntax error.  The backslash is parsed
    as a blank (same length, every position holds)."""
    end = len(data.rstrip(b" \t\r\n"))
    if not end or data[end - 1] != 0x5C or not (data[end:end + 1] == b"\n" or data[end:end + 2] == b"\r\n"):
        return data
    i = end - 1
    while i >= 0 and data[i] == 0x5C:
        i -= 1
    if (end - 1 - i) % 2 == 0:  # an escaped backslash
        return data
    return data[:end - 1] + b" " + data[end:]


#: A backquoted substitution holding only a comment: ``\`# why this flag\` \\`` between flags.
_COMMENT_SUB = lazyre.compile(rb"`[ \t]*#[^`\n]*`")


def _comment_substitutions_blanked(root, data: bytes) -> tuple:
    """``--host 0.0.0.0 \\`` / ```# Unconditional -- see recipe/serve.sh.` \\`` / ``--disable-radix-cache``
    (a comment inside a flag list, an AWS DeepSeek-R1 PD-over-EFA ``serve-pd.sh``, there inside the
    double-quoted script of ``docker run --entrypoint bash IMAGE -c "..."``): bash runs the backquoted text,
    a comment, and its output is empty (no word when unquoted).  tree-sitter-bash reads the comment on to the
    end of the line, closing backquote included, so the later flags fell into the substitution (one opaque
    word, or in a string dropped without a word).  Each such substitution standing alone (after a blank or
    an opening quote, before a blank, a closing quote or an operator; not inside single quotes, a comment or
    a here-document) is parsed as ``$(:   )`` (same length, every position holds), a substitution the
    evaluator gives no output for (its end byte is in the second item returned: tree-sitter may start a
    substitution in a string at the blanks before it; `` `#` `` is left as it is).  ``(data, offsets)``:
    ``data`` itself when there is none."""
    buf, ends = None, set()
    for m in _COMMENT_SUB.finditer(data):
        a, b = m.start(), m.end()
        if (a and data[a - 1] not in b" \t\n\"") or (b < len(data) and data[b] not in b" \t\r\n;|&)\""):
            continue  # part of a longer word
        node = root.descendant_for_byte_range(a, a + 1)
        if node is None or node.type != "`" or node.parent is None:
            continue  # in single quotes, or inside a comment
        outer = node.parent
        while outer is not None and outer.type != "heredoc_body":
            outer = outer.parent
        if outer is not None:
            continue
        if b - a < 4:
            continue  # (`#`: no room for `$(:)`)
        if buf is None:
            buf = bytearray(data)
        buf[a:b] = b"$(:" + b" " * (b - a - 4) + b")"
        ends.add(b)
    return (data, frozenset()) if buf is None else (bytes(buf), frozenset(ends))


_SHELL_SYNTAX = lazyre.compile(r"""[\s'"`$(){}\[\];|&<>\\#]""")
_QUOTE = lazyre.compile(r"['\"]")


def _placeholders_respelled(tstr: TStr, data: bytes, quoted_only: bool = False) -> bytes:
    """A ``sh -c`` / ``eval`` text built by the outer script holds a placeholder for each value pdlint does not
    know, written as its source (``$(awk '/^'"$M"':/{...}' "$F")``); at run time that is the value, whose
    characters are no shell syntax of the inner script (``if [ -d '$path' ]`` with the awk output in it).  Each
    placeholder holding shell syntax is parsed as one run of word characters (same length, every position
    holds; the word's text is still the placeholder, opaque) when the text does not parse as it is (a
    placeholder that parses, `$((N * G))`, is evaluated again in the inner shell, as before).  ``quoted_only``
    (the text parses): only each placeholder holding a quote, which parses but ends the quoted string around
    it (ROCm/MAD's ``'{..."proxy_ip":"$HOST_IP"}'`` with ``HOST_IP=$(... | awk '/src/{print $7}')``)."""
    text = tstr.text
    if quoted_only:  # the text parses: only the placeholders with a quote in them change it
        if "'" not in text and '"' not in text:
            return data
        return _as_word(text, data, [(p.start, p.end) for p in tstr.pieces
                                     if p.opaque and _QUOTE.search(text, p.start, p.end)])
    return _as_word(text, data, [(p.start, p.end) for p in tstr.pieces
                                 if p.opaque and _SHELL_SYNTAX.search(text, p.start, p.end)])


def _as_word(text: str, data: bytes, spans) -> bytes:
    """``data`` (the UTF-8 of ``text``) with the characters of each ``(start, end)`` span of ``text`` as word
    characters (``x``), same length: ``data`` itself when there are none."""
    buf = None
    for i, j in spans:
        if len(data) != len(text):  # non-ASCII text: byte offsets
            i, j = len(text[:i].encode("utf-8", "surrogatepass")), len(text[:j].encode("utf-8", "surrogatepass"))
        if buf is None:
            buf = bytearray(data)
        buf[i:j] = b"x" * (j - i)
    return data if buf is None else bytes(buf)


def _actions_respelled(tstr: TStr, data: bytes) -> bytes:
    """A template action pdlint cannot see (``{{ .Spec.Model.Name }}``, ``{{- if .X -}}``: an opaque span,
    :func:`pdlint.formats.yamltree.go_actions_opaque`) is filled in before the shell runs, so its own blanks,
    quotes and pipes are not shell syntax: it is parsed as one run of word characters (same length, so every
    position holds; the word's text is still the original one, an opaque placeholder).  Otherwise each of
    ``{{-``, ``if``, ``.X``, ``-}}--flag`` would be a word of its own."""
    text = tstr.text
    spans, cur = [], None
    for p in tstr.pieces:
        if not p.opaque:
            continue
        if cur is not None and cur[1] == p.start:
            cur[1] = p.end
        else:
            cur = [p.start, p.end]
            spans.append(cur)
    # (also inside a placeholder for `$(( x * {{ .N }} ))`)
    return _as_word(text, data, [m.span() for a, b in spans for m in _ACTION_RE.finditer(text, a, b)])


_ACTION_RE = lazyre.compile(r"\{\{.*?\}\}", re.S)


#: ``${name.field}``: not a parameter expansion (bash: "bad substitution").
_BAD_SUB_RE = lazyre.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\}"
                         # `${$NODES}`: a `$` too many (billishyahao/sglang_disagg, field round rw28/a P4), and
                         # every other `${$...}` bash refuses (`${$NAME:-2}`, `${$1}`, `${$$}`, `${$@}`, `${$!}`,
                         # `${!$}`: field report rw29/h P9) - not what it reads as `$$` with an operator: `${$}`,
                         # `${$-w}`, `${$:-w}`, `${$#w}`, `${$?w}`, `${$/a/b}`, `${$^}`, `${$@Q}`, `${$:1}` ...
                         r"|\$\{!\$(?:\$(?!\{)|[^\s}'\"${])*\}"
                         r"|\$\{\$(?![}\-=?+#%/^,]|:[^}]|@[QEPAaKkUuL]\})(?:\$(?!\{)|[^\s}'\"${])*\}")
#: a text that may hold a ``${$...}`` bash refuses where tree-sitter-bash reads no error (``${$!}``)
_DOLLAR_SUB = lazyre.compile(r"\$\{!?\$")
#: what a bad substitution's inner text is parsed again with: the characters that make it one, as `_`
_RESPELL = bytes.maketrans(b".$!@*[]", b"_______")
#: Nodes whose text bash does not expand.
_LITERAL_CONTEXT = frozenset(("raw_string", "comment", "heredoc_body", "ansi_c_string"))


_CONTINUATION_RUN = lazyre.compile(rb"[\x80-\xbf]+")


def _continuations(data: bytes) -> list:
    """The offsets of the UTF-8 continuation bytes of ``data``, ascending: a byte's character index is its
    offset less the continuation bytes up to it (a table of every byte cost a large script, mostly ASCII,
    a list of millions of entries)."""
    out: list = []
    for m in _CONTINUATION_RUN.finditer(data):
        out.extend(range(m.start(), m.end()))
    return out


def true_start(unit: Unit, node) -> int:
    """Start of ``node`` without the blanks tree-sitter-bash sometimes folds
    into an expansion that follows literal text inside double quotes."""
    a = unit.char(node.start_byte)
    if node.type in _LEADING_BLANK_QUIRK:
        end = unit.char(node.end_byte)
        text = unit.text
        while a < end and text[a] in " \t\n":
            a += 1
    return a


def special_parts(unit: Unit, node) -> list:
    """The expanding sub-nodes of a word-level ``node`` as sorted
    ``(start, end, node)`` character spans; text between them is literal.
    Cached per unit (the list must not be modified)."""
    key = (node.start_byte, node.end_byte, node.type)
    out = unit.parts_cache.get(key)
    if out is None:
        out = []
        _collect_specials(unit, node, out)
        out.sort(key=lambda t: t[0])
        unit.parts_cache[key] = out
    return out


def _collect_specials(unit: Unit, node, out: list) -> None:
    for child in node.named_children:
        if child.type in SPECIAL_WORD_NODES:
            out.append((true_start(unit, child), unit.char(child.end_byte), child))
        elif child.type in _WORD_CONTAINERS or child.type == "ERROR":
            _collect_specials(unit, child, out)


def heredoc_parts(unit: Unit, redirect) -> Optional[tuple]:
    """A ``heredoc_redirect`` node's here-document: ``(body node, start, end, quoted, dash)``, the
    character span of its text in ``unit``; ``quoted``: the delimiter is quoted (``<<'EOF'``, ``<<"EOF"``,
    ``<<\\EOF``), so the text is not expanded; ``dash``: ``<<-``, whose lines lose their leading tabs.
    None when it has no body (an unterminated here-document)."""
    body = start = None
    dash = False
    for child in redirect.children:
        kind = child.type
        if kind == "<<-":
            dash = True
        elif kind == "heredoc_start":
            start = child
        elif kind == "heredoc_body":
            body = child
    if body is None or start is None:
        return None
    delimiter = unit.source_text(start)
    quoted = any(c in delimiter for c in "'\"\\")
    return body, unit.char(body.start_byte), unit.char(body.end_byte), quoted, dash


def heredoc_reader(unit: Unit, statement, redirect) -> tuple:
    """(the command a here-document is fed to as written, the destination node of the file its statement
    writes or None): ``cat`` and ``"$W/run.sh"`` for ``cat > "$W/run.sh" <<EOF`` and ``cat <<EOF > run.sh``;
    the piped command for ``cat <<EOF | kubectl apply -f -``; "" where there is none."""
    reader, target = "", None
    body = statement.child_by_field_name("body")
    if body is not None and body.type == "command":
        reader = unit.source_text(body)
    for parent in (statement, redirect):
        for child in parent.named_children:
            if child.type == "file_redirect" and target is None:
                dest = child.child_by_field_name("destination")
                if dest is not None and any(c.type in (">", ">>", ">|") for c in child.children):
                    target = dest
            elif child.type == "pipeline" and parent is redirect:
                reader = unit.source_text(child)
    return reader, target


def heredoc_redirects(unit: Unit) -> list:
    """Every ``heredoc_redirect`` node of ``unit``, in text order (found from the ``<<`` in the text:
    a walk over every node of a large script costs more)."""
    data = unit.text.encode("utf-8", "surrogatepass")
    out, seen = [], set()
    for m in _HEREDOC_OP.finditer(data):
        node = unit.root.descendant_for_byte_range(m.start(), m.end())
        while node is not None and node.type != "heredoc_redirect":
            node = node.parent
        if node is not None and node.start_byte not in seen:
            seen.add(node.start_byte)
            out.append(node)
    return out


_HEREDOC_OP = lazyre.compile(rb"(?<!<)<<-?(?!<)")


def errors(root, unwritten=None) -> Iterator:
    """Outermost ERROR nodes and missing tokens, in document order, each as
    ``(node, byte offset of the problem)``; ``unwritten``: see :func:`error_offset`."""
    if not root.has_error:
        return
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" and (_split_herestring(node) or _semicolon_in_default(node)):
            continue
        if node.type == "ERROR" or node.is_missing:
            yield node, error_offset(node, unwritten)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))


def _split_herestring(node) -> bool:
    """tree-sitter-bash 0.25 reads a here-string after a file redirection (``jq -e . >/dev/null <<<"$x"``,
    valid bash) as an ERROR ``<<`` followed by an input redirection ``<"$x"``: not a syntax error.  (The
    here-string's text is not a command: nothing a launch reads is lost.)"""
    nxt = node.next_sibling
    return (node.end_byte - node.start_byte == 2 and node.child_count == 1 and node.children[0].type == "<<"
            and nxt is not None and nxt.type == "file_redirect" and nxt.start_byte == node.end_byte
            and nxt.child_count > 0 and nxt.children[0].type == "<")


def _semicolon_in_default(node) -> bool:
    """tree-sitter-bash 0.25 reads a ``;`` (or ``|``, ``&``) in a parameter expansion's word (``"${ARCH:-gfx942;gfx950}"``,
    valid bash: the word is the text up to ``}``) as an ERROR holding the words before it; the expansion's
    text, which the evaluation reads, is whole."""
    parent = node.parent
    return parent is not None and parent.type == "expansion" and node.child_count > 0 and \
        all(c.type in _DEFAULT_WORD_PARTS for c in node.children) and \
        any(c.type != "word" for c in node.children)


#: what tree-sitter-bash splits a parameter expansion's word at (``${X:-a;b}``, ``${GREP:-FATAL|Traceback}``:
#: dcotroneCLT/llm-serving-bench, field test rw6/f)
_DEFAULT_WORD_PARTS = frozenset({"word", ";", "|", "&", "||", "&&"})


MAX_ARITH_RECOVERIES = 16


def _arith_start(node) -> Optional[int]:
    """The byte offset of the ``$((`` an arithmetic parse error is in: from the innermost ERROR node of
    ``node``, the nearest ``$((`` token before it among its earlier siblings, then its parents' (an ERROR
    node may span the whole script: av/harbor's harbor.sh)."""
    inner = node
    for _ in range(100):
        nxt = next((c for c in inner.children if c.type == "ERROR"), None)
        if nxt is None:
            break
        inner = nxt
    cur = inner
    while cur is not None:
        sib = cur.prev_sibling
        while sib is not None:
            if sib.type == "$((":
                return sib.start_byte
            sib = sib.prev_sibling
        if cur == node:
            break
        cur = cur.parent
    return None


def _arith_end(data: bytes, start: int) -> Optional[int]:
    """The offset just past the ``))`` closing the ``$((`` at ``start``, counting parentheses; None when the
    expansion does not close (or closes with a single parenthesis, ``$((a)+b)``: a command substitution)."""
    depth, i, n = 0, start + 1, len(data)
    while i < n:
        c = data[i]
        if c == 40:  # (
            depth += 1
        elif c == 41:  # )
            depth -= 1
            if depth == 0:
                return i + 1 if data[i - 1] == 41 else None
        elif c == 10 and i > 0 and data[i - 1] != 92:  # an unescaped line end inside: not an expansion we close
            return None
        i += 1
    return None


def arithmetic(node) -> bool:
    """Is a parse error in an arithmetic expression (``$(( ... ))``, ``(( ... ))``)?  bash parses those only
    when it evaluates them, so ``bash -n`` cannot confirm or refute it (:mod:`.bashparse`)."""
    if any(c.type in ("$((", "((", "$[") for c in node.children):
        return True
    p = node.parent
    while p is not None:
        if p.type in ("arithmetic_expansion", "compound_statement") and p.children and \
                p.children[0].type in ("$((", "((", "$["):
            return True
        p = p.parent
    return False


#: references inside an arithmetic expansion, stood in for by a number when only its syntax is asked about
_ARITH_REF = lazyre.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]|\{[^{}]*\})")


def arithmetic_readable(unit: "Unit", node) -> bool:
    """Is ``node`` (a parse error in a ``$(( ... ))``) tree-sitter-bash's gap, not the script's: the expansion,
    its references stood in for by ``1``, is an expression pdlint's own arithmetic (bash's grammar) reads?
    ``$((10#$P - 6))`` (a base prefix before an expansion) is valid bash that tree-sitter-bash 0.25 does not
    read (hostile-input round rw27/h item P25: a PD009 on a line pdlint evaluates)."""
    p = node.parent
    while p is not None and p.type != "arithmetic_expansion":
        p = p.parent
    if p is None or not p.children or p.children[0].type != "$((":
        return False
    text = unit.text[unit.char(p.start_byte):unit.char(p.end_byte)]
    if not text.startswith("$((") or not text.endswith("))") or len(text) > 4096:
        return False
    inner = _ARITH_REF.sub("1", text[3:-2])
    if "$" in inner or "`" in inner or "\\" in inner:
        return False
    from . import arith
    try:
        arith._Parser(arith.tokenize(inner)).parse()
    except (arith.ArithError, RecursionError):
        return False
    return True


def error_offset(node, unwritten=None) -> int:
    """Where the problem inside an ERROR node is: tree-sitter wraps whole
    statements that parsed fine into the node, so skip them and point at the
    first stray token (or nested error).  ``unwritten(byte)``: is the byte in text pdlint added, written in no
    file (the ``(`` it puts around each line of a Makefile recipe, run in a shell of its own)?  A stray token
    there is passed over for the next one, in the text a human wrote (rw30/a problem 1: the error of a recipe
    line `echo one && \\` followed by a `# comment` line was filed at the added ``(``)."""
    depth = 0
    while node.type == "ERROR" and depth < 100:
        depth += 1
        for child in node.children:
            if child.type == "ERROR":
                node = child
                break
            if not child.is_named or child.is_missing:
                if unwritten is not None and unwritten(child.start_byte):
                    continue
                return child.start_byte
        else:
            return node.start_byte
    return node.start_byte


def field_children(node, name: str) -> list:
    """Named children of ``node`` stored under field ``name``."""
    out = []
    for i, child in enumerate(node.children):
        if child.is_named and node.field_name_for_child(i) == name:
            out.append(child)
    return out


def first_token(node) -> Optional[str]:
    """Type of the first (anonymous or named) child, e.g. ``'[['`` or ``'until'``."""
    return node.children[0].type if node.child_count else None


def in_error_region(node) -> bool:
    """Was ``node`` recovered from text tree-sitter could not parse: an ERROR node around it or inside it."""
    return node.has_error or inside(node, "ERROR")


def inside(node, kind: str) -> bool:
    """Is ``node`` inside a node of type ``kind`` (an ancestor, not itself)?"""
    parent = node.parent
    while parent is not None:
        if parent.type == kind:
            return True
        parent = parent.parent
    return False


_UNESCAPED_NEWLINE = lazyre.compile(r"(?<!\\)\n")


def first_line_words(unit: Unit, name, args: list) -> tuple:
    """The argument nodes of a command recovered from a parse-error region that are written on its first
    line: ``(whole argument nodes, parts of a last word cut at the newline or None)``.

    tree-sitter's error recovery glues words of different lines into one command (a terminal transcript
    saved as ``.sh``: ``[me@node1 ~]$ python3 -m sglang.launch_server ... prefill`` followed by the next
    prompt and an ``echo done``), even into one word (``prefill``, newline, ``((venv``).  A shell ends a
    command at a newline that is neither quoted nor after a backslash, and no word spans one: the words
    after it are not this command's arguments.  Newlines inside a quoted or expanding part of a word (a
    string, ``$(...)``) are that part's own."""
    prev = name.end_byte
    for k, node in enumerate(args):
        if _newline_between(unit, prev, node.start_byte):
            return args[:k], None
        parts = _first_line_parts(unit, node)
        if parts is not None:
            return args[:k], parts
        prev = node.end_byte
    return args, None


def _newline_between(unit: Unit, a: int, b: int) -> bool:
    """Does the text between byte offsets ``a`` and ``b`` hold a newline not after a backslash?"""
    return b > a and _UNESCAPED_NEWLINE.search(unit.text, unit.char(a), unit.char(b)) is not None


def _first_line_parts(unit: Unit, node) -> Optional[list]:
    """The parts of a word ``node`` (a ``concatenation``) before the first newline between them, or inside
    an ERROR part of it; None when the word is on one line."""
    if node.type != "concatenation":
        return None
    prev = None
    for k, part in enumerate(node.children):
        if (prev is not None and _newline_between(unit, prev, part.start_byte)) or \
                (part.type == "ERROR" and _newline_between(unit, part.start_byte, part.end_byte)):
            return node.children[:k]
        prev = part.end_byte
    return None


# -- an unterminated quote ------------------------------------------------------------------------

#: largest text searched for the quote to delete (a parse per candidate, milliseconds each), and how many
#: quotes before the unclosed one are tried
MAX_QUOTE_SEARCH_BYTES = 262_144
MAX_QUOTE_CANDIDATES = 32


class Unclosed:
    """A quote (``"``, ``'``, a backquote) the text never closes: bash reads to the end of the text looking for
    its match ("unexpected EOF while looking for matching ..."), refuses the command it started in and runs
    nothing from there on.  Byte offsets in the parsed text: ``open`` the quote bash sees as unclosed, ``stray``
    the quote whose deletion makes the text parse (a stray ``"`` after a model path makes every later quote pair
    with the wrong one, so the one left open is further down: the line a human edits is the stray one's; only a
    quote of the statement bash could not complete, on a line whose quotes do not balance; ``open`` when no such
    single deletion does it), ``cut`` where the top-level statement holding them starts (what bash does
    not run), ``node`` the parse error that stands for it."""

    __slots__ = ("open", "stray", "cut", "node", "quote")

    def __init__(self, open_: int, stray: int, cut: int, node, quote: str):
        self.open, self.stray, self.cut, self.node, self.quote = open_, stray, cut, node, quote


def _unclosed_at(root, data: bytes) -> Optional[tuple]:
    """``(error node, offset of the quote)`` of a quote tree-sitter-bash reads as never closed, or None."""
    end = len(data.rstrip(b" \t\r\n"))
    for node, off in errors(root):
        if node.is_missing and node.type in ('"', "`") and node.parent is not None:
            at = data.find(node.type.encode(), node.parent.start_byte, node.parent.start_byte + 3)
            if at >= 0:
                return node, at
        elif node.type == "ERROR" and node.end_byte >= end and data[off:off + 1] in (b"'", b'"', b"`"):
            return node, off
        elif node.type == "ERROR" and node.end_byte >= end:
            at = _quote_inside(node, data, end)
            if at is not None:
                return node, at
    return None


def _quote_inside(node, data: bytes, end: int) -> Optional[int]:
    """The offset of a quote inside an error node that runs to the end of the text and that no later quote
    closes: an error node of its own starting at a quote (``'...``), or a ``"`` followed by string content only.
    A Makefile recipe line given to the shell as ``( ... )`` (makefile._recipe) makes the error node start at
    that line's ``(``, not at the quote (stop 49 left the PD009 a warning there).  Bounded: tree-sitter's nodes
    of the one error node, those that end before the text does skipped whole."""
    stack = list(reversed(node.children))
    seen = 0
    while stack and seen < 100_000:
        n = stack.pop()
        seen += 1
        first = data[n.start_byte:n.start_byte + 1]
        if n.type == '"' and first == b'"' and n.parent is not None:
            rest = []
            sib = n.next_sibling
            while sib is not None and len(rest) < 10_000:
                rest.append(sib)
                sib = sib.next_sibling
            if rest and all(r.type == "string_content" for r in rest) and rest[-1].end_byte >= end:
                return n.start_byte
            continue
        if n.end_byte < end:
            continue
        if n.type == "ERROR" and first in (b"'", b'"', b"`"):
            return n.start_byte
        stack.extend(reversed(n.children))
    return None


def _top_statement_start(root, data: bytes, at: int) -> int:
    """Where the top-level statement holding byte ``at`` starts, taking in the statements before it that no
    separator ends (tree-sitter-bash ends ``vllm serve /m`` before an unclosed ``'...`` and makes the rest an
    error node: bash reads it as one command)."""
    kids = [c for c in root.children if c.type != "comment"]
    k = next((i for i, c in enumerate(kids) if c.start_byte <= at < max(c.end_byte, c.start_byte + 1)), None)
    if k is None:
        k = max((i for i, c in enumerate(kids) if c.start_byte <= at), default=None)
        if k is None:
            return at
    start = kids[k].start_byte
    if kids[k].type == "ERROR":
        inner = _after_complete_statements(kids[k], data, at)
        if inner > start:
            return inner
    while k > 0:
        gap = data[kids[k - 1].end_byte:start].replace(b"\\\r\n", b"").replace(b"\\\n", b"")
        if re.search(rb"[\n;&|]", gap):
            break
        k -= 1
        start = kids[k].start_byte
    return start


#: statements tree-sitter-bash completes: an error node that starts with them holds them whole (bash runs them)
COMPLETE = frozenset({"subshell", "command", "pipeline", "list", "compound_statement", "if_statement",
                       "for_statement", "c_style_for_statement", "while_statement", "case_statement",
                       "function_definition", "variable_assignment", "declaration_command", "redirected_statement",
                       "negated_command", "test_command", "unset_command"})


def _after_complete_statements(node, data: bytes, at: int) -> int:
    """Where, in an error node holding byte ``at``, the statement bash cannot complete starts, after the
    complete statements the node starts with, each ended by a separator (``(echo a)\n(vllm serve "x``: the
    Makefile recipe's lines as makefile._recipe gives them, the first run by make's shell); the node's start
    when it starts otherwise (``if ...; then`` - a keyword: nothing of it runs)."""
    kids = [c for c in node.children if c.type != "comment"]
    start = node.start_byte
    i = 0
    while i < len(kids) - 1:
        c = kids[i]
        if c.type not in COMPLETE or c.has_error or c.end_byte > at:
            break
        j = i + 1
        ended = False
        while j < len(kids) and kids[j].type in ("&", ";"):  # (`server &` then the broken statement)
            ended, j = True, j + 1
        if j >= len(kids):
            break
        gap = data[c.end_byte:kids[j].start_byte].replace(b"\\\r\n", b"").replace(b"\\\n", b"")
        if not (ended or re.search(rb"[\n;&]", gap)) or kids[j].start_byte > at:
            break
        start, i = kids[j].start_byte, j
    return start


def _odd_on_line(data: bytes, at: int) -> bool:
    """Does the line holding the quote at byte ``at`` hold an odd number of that quote character (not after a
    backslash)?  A line whose quotes balance is no place for a stray one."""
    lo = data.rfind(b"\n", 0, at) + 1
    hi = data.find(b"\n", at)
    line = data[lo:hi if hi >= 0 else len(data)]
    q = bytes((data[at],))
    return (line.count(q) - line.count(b"\\" + q)) % 2 == 1


def unclosed_quote(unit: "Unit") -> Optional[Unclosed]:
    """The :class:`Unclosed` quote of a parsed text, or None (see there)."""
    data = _drop_final_continuation(unit.text.encode("utf-8", "surrogatepass"))
    hit = _unclosed_at(unit.root, data)
    if hit is None:
        return None
    node, open_ = hit
    quote = chr(data[open_])
    stray = open_
    first = _top_statement_start(unit.root, data, open_)
    if len(data) <= MAX_QUOTE_SEARCH_BYTES:
        # bash reads the script statement by statement and completes every one before ``first`` (their quotes
        # pair up): the stray quote is in the statement bash could not complete, on a line whose quotes do not
        # balance - deleting a quote of a well-formed line only re-pairs the quotes after it (rw32/h P1)
        starts = [m.start() for m in re.finditer(rb"[\"'`]", data[first:open_])]
        candidates: list = []
        odd: dict = {}  # (line start, quote) -> does that line hold an odd number of it (each line counted once)
        for s in reversed(starts):  # (the last ones: a line of 5,000 quotes was tested 5,000 times, rw33/h P6)
            if len(candidates) >= MAX_QUOTE_CANDIDATES:
                break
            if s and data[first + s - 1] == 0x5C:
                continue
            at = first + s
            key = (data.rfind(b"\n", 0, at) + 1, data[at])
            if key not in odd:
                odd[key] = _odd_on_line(data, at)
            if odd[key]:
                candidates.append(at)
        candidates.reverse()
        before = sum(1 for _ in errors(unit.root))
        for c in candidates:
            again = parser().parse(data[:c] + data[c + 1:]).root_node
            if _unclosed_at(again, data[:c] + data[c + 1:]) is None and sum(1 for _ in errors(again)) < before:
                stray = c
                break
    cut = min(first, _top_statement_start(unit.root, data, stray))
    return Unclosed(open_, stray, cut, node, quote)
