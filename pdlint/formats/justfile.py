"""Justfiles (``just`` task runner): each recipe body is a shell script.

A recipe is a header at column 0 (``name arg='x' *rest:`` with optional
dependencies after the colon) followed by indented body lines; each body is
handed to the shell front-end with the recipe name as context (a recipe named
``prefill``/``decode`` is a role hint).  Top-level ``name := "value"``
assignments become variables, and ``{{ NAME }}`` is the value of one (traced to
its assignment); other ``{{ expr }}`` interpolations are kept as opaque values.
"""

from __future__ import annotations

import re

from pdlint.records import dataclass
from pdlint.text import TStr, split_lines

# name, then parameters (`x`, `x="default"`, `+rest`, `*rest`, `$env`), then `:` (not `:=`)
_HEADER = re.compile(r"""^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[+*$]?[A-Za-z_][A-Za-z0-9_-]*"""
                     r"""(?:=(?:"[^"]*"|'[^']*'|[^\s:]+))?)*)\s*:(?!=)""")
_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*(['\"]?)(.*?)\2\s*$")
# an indented (triple-quoted) string over several lines: `NAME := '''` ... `'''`
_ASSIGN_LONG = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*('''|\"\"\")")
_INTERP = re.compile(r"\{\{(.*?)\}\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass
class Recipe:
    name: str
    body: TStr  # the body lines, positions in the Justfile
    line: int
    params: tuple = ()  # its parameter names


def is_justfile(name: str) -> bool:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base in ("Justfile", "justfile", ".justfile") or base.endswith(".just")


def recipes(doc: TStr) -> tuple:
    """``(recipes, variables)`` of a Justfile."""
    text = doc.text
    lines, offsets = split_lines(text)
    out, variables = [], {}
    aliases: dict = {}  # NAME := OTHER
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _ASSIGN_LONG.match(line)
        if m:
            quote, start = m.group(2), offsets[i] + m.end(2)
            if text[start:start + 1] == "\n":
                start += 1  # just strips the line break right after the opening quotes of an indented string
            end = text.find(quote, start)
            if end < 0:
                i += 1
                continue
            variables[m.group(1)] = doc[start:end]
            i += text.count("\n", offsets[i], end) + 1
            continue
        m = _ASSIGN.match(line)
        if m:
            start = offsets[i] + m.start(3)
            value = doc[start:start + len(m.group(3))]
            if not m.group(2):  # unquoted: another variable's name, or an expression (`A + B`, a function call)
                value = aliases.setdefault(m.group(1), value.text) if _NAME.fullmatch(value.text) else None
            variables[m.group(1)] = value
            i += 1
            continue
        m = _HEADER.match(line)
        if m and not line.startswith((" ", "\t", "#")):
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
            if j > i + 1:
                body = doc[offsets[i + 1]:offsets[j - 1] + len(lines[j - 1])]
                params = tuple(re.sub(r"=.*", "", p).lstrip("+*$") for p in m.group(2).split())
                out.append(Recipe(m.group(1), body, i + 1, params))
            i = j
            continue
        i += 1
    for name, other in aliases.items():
        value = variables.get(other)
        variables[name] = value if not isinstance(value, str) else None
    # (just evaluates every top-level assignment before any recipe runs, wherever it is written)
    return [Recipe(r.name, _interpolations(r.body, variables, r.params), r.line, r.params) for r in out], variables


def _interpolations(body: TStr, variables: dict, params: tuple) -> TStr:
    """``{{ NAME }}`` of a top-level ``NAME := "value"`` is that value, where it is written (minosfuture/vllm's
    justfile, field test rw6/f: 18 of 21 launches had their variable-held flags unchecked); any other
    interpolation (a recipe parameter, an expression, a value that is itself interpolated) is a value pdlint
    cannot see."""
    parts, last = [], 0
    for m in _INTERP.finditer(body.text):
        parts.append(body[last:m.start()])
        name = m.group(1).strip()
        value = variables.get(name) if name not in params else None
        if value is not None and "{{" not in value.text and "`" not in value.text:
            parts.append(value)
        else:
            parts.append(body[m.start():m.end()].as_opaque())
        last = m.end()
    parts.append(body[last:])
    return TStr.join(parts)
