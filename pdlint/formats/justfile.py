"""Justfiles (``just`` task runner): each recipe body is a shell script.

A recipe is a header at column 0 (``name arg='x' *rest:`` with optional
dependencies after the colon) followed by indented body lines; each body is
handed to the shell front-end with the recipe name as context (a recipe named
``prefill``/``decode`` is a role hint).  Top-level ``name := "value"``
assignments become variables, and ``{{ NAME }}`` is the value of one (traced to
its assignment, also in a justfile an ``import`` line reads); other ``{{ expr }}`` interpolations are kept as opaque
values.  A recipe another recipe calls
with literal arguments (``just serve prefill nixl``) is bound to them per call (:func:`calls`, :func:`bind`).
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass
from pdlint.text import TStr, split_lines

# name, then parameters (`x`, `x="default"`, `+rest`, `*rest`, `$env`), then `:` (not `:=`)
_HEADER = lazyre.compile(r"""^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[+*$]?[A-Za-z_][A-Za-z0-9_-]*"""
                     r"""(?:=(?:"[^"]*"|'[^']*'|[^\s:]+))?)*)\s*:(?!=)""")
_ASSIGN = lazyre.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*(['\"]?)(.*?)\2\s*$")
# an indented (triple-quoted) string over several lines: `NAME := '''` ... `'''`
_ASSIGN_LONG = lazyre.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:=\s*('''|\"\"\")")
_INTERP = lazyre.compile(r"\{\{(.*?)\}\}")
#: `import 'path'` / `import? "path"` at column 0: the recipes and variables of another justfile, merged
_IMPORT = lazyre.compile(r"""^import(\?)?[ \t]+(?:'([^'\n]*)'|"([^"\\\n]*)")[ \t]*(?:#.*)?$""")
MAX_IMPORTS = 32  # justfiles one justfile's imports read in all (nested too)
_NAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass
class Recipe:
    name: str
    body: TStr  # the body lines, positions in the Justfile
    line: int
    params: tuple = ()  # its parameter names
    raw: object = None  # the body before interpolation (TStr)
    variables: object = None  # the Justfile's variables (for binding parameters later)


@dataclass
class Call:
    """``just RECIPE ARG...`` in another recipe's body: the recipe with these literal arguments."""

    caller: str
    args: tuple  # TStr each, where written
    line: int


#: `just NAME ARG...` as a command of a recipe body (its own line or after `&&` / `;` / `&`), literal words only
_CALL = lazyre.compile(r"(?:^|[;&|])[ \t]*@?just[ \t]+([A-Za-z_][A-Za-z0-9_-]*)((?:[ \t]+[A-Za-z0-9_./:=,+-]+)*)"
                   r"[ \t]*(?=$|[;&|>\n])", re.M)
MAX_CALLS = 8  # calls of one recipe run (each its own render of the recipe)
MAX_CALLS_SEEN = 1024  # distinct calls of one recipe the choice is made from


def is_justfile(name: str) -> bool:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base in ("Justfile", "justfile", ".justfile") or base.endswith(".just")


def imports(doc: TStr) -> list:
    """``(optional, path TStr)`` of each ``import`` line of a Justfile (just reads the file relative to the
    justfile's directory; ``import?`` does not fail when it is missing)."""
    lines, offsets = split_lines(doc.text)
    out = []
    for line, offset in zip(lines, offsets):
        if line.startswith("import"):
            m = _IMPORT.match(line)
            if m:
                g = 2 if m.group(2) is not None else 3
                out.append((bool(m.group(1)), doc[offset + m.start(g):offset + m.end(g)]))
    return out


def recipes(doc: TStr, imported: tuple = (), given: Optional[dict] = None) -> tuple:
    """``(recipes, variables)`` of a Justfile; ``imported``: the TStr of the justfiles its ``import`` lines
    read (their assignments are variables of this one, as just merges them; its own win); ``given``: values
    (``--var``, the config's) of names neither sets (``just --set NAME VALUE`` at deploy time)."""
    text = doc.text
    lines, offsets = split_lines(text)
    out, variables = [], dict(given or {})
    for other in imported:
        _, theirs = recipes(other)
        variables.update(theirs)
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
    return [Recipe(r.name, _interpolations(r.body, variables, r.params), r.line, r.params, r.body, variables)
            for r in out], variables


def unset_names(found: list, variables: dict) -> list:
    """The names the recipes' ``{{ NAME }}`` read that are neither a variable nor a parameter, sorted."""
    out = set()
    for r in found:
        for m in _INTERP.finditer((r.raw if r.raw is not None else r.body).text):
            name = m.group(1).strip()
            if _NAME.fullmatch(name) and name not in r.params and variables.get(name) is None:
                out.add(name)
    return sorted(out)


def calls(found: list, left: dict = None) -> dict:
    """Recipe name -> the :class:`Call` s other recipes of the Justfile make of it with literal arguments, as many
    as it has parameters (tlrmchlsmth/vllm's `pd:` recipe runs `just serve prefill nixl &` and `just serve decode
    mooncake &`: `serve role backend:` was a launch whose role pdlint could not see, field test rw22/a): at most
    :data:`MAX_CALLS` distinct ones, those bringing the most argument values first
    (:func:`pdlint.formats.choose.most_varied`); ``left`` gets recipe name -> (calls not run, the first of them)."""
    from pdlint.formats.choose import most_varied
    by_name = {r.name: r for r in found if r.params}
    out: dict = {}
    for r in found:
        body = r.raw if r.raw is not None else r.body
        for m in _CALL.finditer(body.text):
            target = by_name.get(m.group(1))
            if target is None or target is r:
                continue
            words = [(w.start(), w.group(0)) for w in re.finditer(r"\S+", m.group(2))]
            if len(words) != len(target.params):
                continue  # (fewer: parameter defaults, more: variadic; not bound)
            base = m.start(2)
            args = tuple(body[base + i:base + i + len(w)] for i, w in words)
            line = r.line + body.text.count("\n", 0, m.start(1)) + 1
            lst = out.setdefault(target.name, [])
            if len(lst) < MAX_CALLS_SEEN and all([a.text for a in c.args] != [a.text for a in args] for c in lst):
                lst.append(Call(r.name, args, line))
    for name, lst in out.items():
        keep = most_varied([{(i, a.text) for i, a in enumerate(c.args)} for c in lst], MAX_CALLS)
        if len(keep) < len(lst) and left is not None:
            kept = set(keep)
            dropped = [c for i, c in enumerate(lst) if i not in kept]
            left[name] = (len(dropped), dropped[0])
        out[name] = [lst[i] for i in keep]
    return out


def bind(recipe: Recipe, call: Call) -> TStr:
    """The recipe's body with its parameters taken from ``call``'s arguments (each traced to the call)."""
    bound = dict(recipe.variables or {})
    for name, arg in zip(recipe.params, call.args):
        bound[name] = arg
    return _interpolations(recipe.raw, bound, ())


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
