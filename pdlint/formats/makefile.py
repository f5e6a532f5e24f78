"""Makefiles (``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``): each rule's recipe is a shell script.

A rule is a target line at column 0 (``serve-prefill: deps``) followed by recipe lines that start with a tab; each
recipe goes to the shell front-end with the target name as context (a target named ``prefill`` / ``decode`` is a
role hint, as a Justfile recipe's name).  What make does to a recipe line before the shell sees it is done here:

* the ``@`` / ``-`` / ``+`` prefixes are dropped;
* ``$(NAME)`` / ``${NAME}`` of a variable the file assigns (``=``, ``:=``, ``::=``, ``?=``, ``+=``; ``export`` and
  ``override`` too) is its value, expanded in turn and traced to its assignment; a variable the file does not assign
  comes from the environment (make imports it), so it is the shell's ``${NAME}``: a value pdlint cannot see unless
  the configuration gives it;
* ``$$`` is a ``$`` for the shell; automatic variables (``$@``, ``$<``), functions (``$(shell ...)``,
  ``$(or ...)``), substitution references (``$(X:.c=.o)``) and ``define`` blocks are values pdlint cannot see.

``make NAME=value`` on the command line overrides any assignment: an assignment's value is what runs when nobody
does.
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint.records import dataclass
from pdlint.text import TStr

NAMES = ("makefile", "gnumakefile")
_ASSIGN = re.compile(r"^(?:(?:export|override)[ \t]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(::=|:::=|:=|\?=|\+=|!=|=)[ \t]*")
_TARGET = re.compile(r"^([^\s:=#][^:=#]*?)[ \t]*::?(?!=)")
_VARNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
MAX_DEPTH = 8  # nested variable references followed
MAX_RULES = 2000


@dataclass
class Rule:
    target: str
    body: TStr  # the recipe, make's expansion done, positions in the Makefile
    line: int


def is_makefile(name: str) -> bool:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.lower() in NAMES or base.lower().endswith(".mk")


def _strip_comment(value: TStr) -> TStr:
    """A variable's value ends at an unescaped ``#`` (make drops the comment and the blanks before it)."""
    text = value.text
    i = 0
    while True:
        i = text.find("#", i)
        if i < 0:
            break
        if i == 0 or text[i - 1] != "\\":
            value = value[:i]
            break
        i += 1
    end = len(value.text.rstrip())
    return value[:end]


def rules(doc: TStr) -> tuple:
    """``(rules, variables)`` of a Makefile."""
    text = doc.text
    lines = text.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    variables: dict = {}  # NAME -> TStr (None: a value pdlint cannot see)
    raw: list = []
    i = 0
    while i < len(lines) and len(raw) < MAX_RULES:
        line = lines[i]
        if line.startswith("define") and re.match(r"define[ \t]+([A-Za-z_][A-Za-z0-9_.-]*)", line):
            name = re.match(r"define[ \t]+([A-Za-z_][A-Za-z0-9_.-]*)", line).group(1)
            variables[name] = None
            while i < len(lines) and not lines[i].startswith("endef"):
                i += 1
            i += 1
            continue
        # a logical line: a backslash at the end continues it
        j = i
        while lines[j].endswith("\\") and j + 1 < len(lines):
            j += 1
        if line.startswith("\t") or not line.strip() or line.lstrip().startswith("#"):
            i = j + 1
            continue
        m = _ASSIGN.match(line)
        if m:
            start = offsets[i] + m.end()
            value = _strip_comment(doc[start:offsets[j] + len(lines[j])])
            name, op = m.group(1), m.group(2)
            if op == "!=":  # the output of a shell command
                variables[name] = None
            elif op == "+=" and variables.get(name) is not None:
                variables[name] = TStr.join([variables[name], TStr.synthetic(" ", "<+=>"), value])
            elif op == "?=":
                variables.setdefault(name, value)
            else:
                variables[name] = value
            i = j + 1
            continue
        t = _TARGET.match(line)
        if t:
            k = j + 1
            while k < len(lines) and (lines[k].startswith("\t") or not lines[k].strip() or
                                      lines[k].startswith("#")):
                k += 1
            while k > j + 1 and not lines[k - 1].startswith("\t"):
                k -= 1
            if k > j + 1:
                raw.append((t.group(1).strip(), doc[offsets[j + 1]:offsets[k - 1] + len(lines[k - 1])], i + 1))
            i = k
            continue
        i = j + 1
    out = [Rule(target, _recipe(body, variables), line) for target, body, line in raw]
    return out, variables


def _recipe(body: TStr, variables: dict) -> TStr:
    """The recipe as the shell gets it: each line's tab and ``@``/``-``/``+`` prefixes dropped, make's references
    expanded."""
    parts = []
    text = body.text
    pos = 0
    continued = False
    for ln in text.split("\n"):
        end = pos + len(ln)
        k = pos
        if text.startswith("\t", k):
            k += 1
        while not continued and k < end and text[k] in "@-+ \t":  # (a continuation line keeps its words)
            k += 1
        parts.append(_expand(body[k:end], variables, 0))
        parts.append(body[end:end + 1])
        continued = ln.endswith("\\")
        pos = end + 1
    return TStr.join(parts)


def _refs(text: str):
    """``(start, end, inner)`` of each make reference in ``text``: ``inner`` is the text between balanced parentheses
    or braces (``$(if $(wildcard $(F)),a,b)`` is one reference), ``"$"`` for ``$$``, the character of a one-character
    reference (``$@``), or None for an unclosed one (to the end of the text)."""
    i, n = 0, len(text)
    while True:
        i = text.find("$", i)
        if i < 0 or i + 1 >= n:
            return
        c = text[i + 1]
        if c not in "({":
            yield i, i + 2, "$" if c == "$" else c
            i += 2
            continue
        close = ")" if c == "(" else "}"
        depth, j = 0, i + 1
        while j < n:
            if text[j] == c:
                depth += 1
            elif text[j] == close:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= n:
            yield i, n, None
            return
        yield i, j + 1, text[i + 2:j]
        i = j + 1


def _expand(s: TStr, variables: dict, depth: int) -> TStr:
    parts, last = [], 0
    for a, b, inner in _refs(s.text):
        parts.append(s[last:a])
        ref = s[a:b]
        if inner == "$" and b - a == 2:  # `$$`: one `$` for the shell
            parts.append(ref[1:])
        elif inner is not None and b - a > 2 and _VARNAME.fullmatch(inner.strip()):
            name = inner.strip()
            if name in variables:
                value = variables[name]
                parts.append(_opaque_word(ref) if value is None or depth >= MAX_DEPTH else
                             _expand(value, variables, depth + 1))
            else:  # from the environment make imports: the shell's variable of that name
                p = ref.pieces[0] if ref.pieces else None
                parts.append(TStr.at("${" + name + "}", p.src, p.offset, p.chain, label=p.label) if p is not None
                             else TStr.synthetic("${" + name + "}", "<make variable>"))
        else:  # an automatic variable, a function, a substitution reference
            parts.append(_opaque_word(ref, inner))
        last = b
    parts.append(s[last:])
    return TStr.join(parts)


def _opaque_word(ref: TStr, inner: Optional[str] = None) -> TStr:
    """A value pdlint cannot see, at ``ref``, spelt as one shell word naming what make computes there (``make-if``,
    ``make-shell``, ``make-var``: the reference's own text may hold blanks or parentheses)."""
    what = re.match(r"[A-Za-z0-9_-]+", (inner or "").strip())
    word = "make-" + (what.group(0) if what and inner and not _VARNAME.fullmatch(inner.strip()) else "var")
    if not ref.pieces:
        return TStr.synthetic(word, "<make expansion>", opaque=True)
    p = ref.pieces[0]
    return TStr.at(word, p.src, p.offset, p.chain, opaque=True, label=p.label)


def role_hint(target: str) -> Optional[str]:
    from pdlint.formats import crd
    from pdlint.render.jinja import ROLE_SYNONYMS
    return ROLE_SYNONYMS.get(target.lower()) or crd.role_of_name(target)
