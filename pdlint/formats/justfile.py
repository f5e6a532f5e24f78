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
#: `NAME :=` at column 0 (its expression follows: :class:`_Parser`)
_ASSIGN = lazyre.compile(r"^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:=")
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
    (``--var``, the config's) of names neither sets (``just --set NAME VALUE`` at deploy time).  A variable
    whose value pdlint cannot evaluate (a function call, a backtick, a condition on one) is None."""
    text = doc.text
    lines, offsets = split_lines(text)
    out, variables = [], dict(given or {})
    for other in imported:
        _, theirs = recipes(other)
        variables.update(theirs)
    defined: dict = {}  # NAME -> its expression (evaluated once all are read: just orders them by use)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _ASSIGN.match(line)
        if m:
            expr, end = _Parser(doc, offsets[i] + m.end()).assignment()
            defined[m.group(1)] = expr
            i += max(text.count("\n", offsets[i], end), 0) + 1
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
    # (just evaluates every top-level assignment before any recipe runs, wherever it is written)
    busy: set = set()
    done: set = set()

    def value(name: str):
        if name not in defined or name in done:
            return variables.get(name)
        if name in busy or len(busy) > MAX_DEPTH:
            return None  # (a circular definition: just refuses the file; a chain past pdlint's bound)
        busy.add(name)
        # (a value it cannot evaluate is the one `--var` gives, as `just --set` does)
        v = _evaluate(defined[name], value, given)
        variables[name] = v if v is not None else (given or {}).get(name)
        busy.discard(name)
        done.add(name)
        return variables[name]

    for name in defined:
        value(name)
    return [Recipe(r.name, _interpolations(r.body, variables, r.params, given or {}), r.line, r.params, r.body,
                   variables) for r in out], variables


# -- just's expressions (the right side of `NAME := ...`) -------------------------------------------------------
# A node is ("str", TStr) / ("var", name) / ("cat", [node...]) / ("if", left, op, right, then, else) /
# ("env", function, key, default or None): an environment function (`env_var_or_default`, `env`, `env_var`) /
# ("unknown", why): another function call, a backtick, `||` / `&&`, a shell-expanded `x'...'` string, a syntax
# pdlint does not know.  `A + B` is concatenation and `A / B` joins with a `/` (the operator's own, where it is written).
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}
MAX_EXPR = 1 << 16  # characters of one assignment's expression read
MAX_DEPTH = 48  # variables one value reads through, and nested ( ) / { } / if of one expression
MAX_VALUE = 1 << 16  # characters of one evaluated value (`a1 := a0 + a0` doubling past it: a value not known)
MAX_MATCHED = 256  # characters of a value an `=~` matches (Python's engine backtracks; just's regex crate does not)
MAX_QUANTIFIERS = 2  # repetitions (`*`, `+`, `?`, `{m,n}`) of an `=~` pattern: at most MAX_MATCHED ** 2 steps
#: just's functions that read the environment, with how many arguments each takes (`env`: one or two)
_ENV_FUNCTIONS = {"env_var": 1, "env_var_or_default": 2, "env": 2}


class _Parser:
    def __init__(self, doc: TStr, pos: int):
        self.doc, self.text, self.pos, self.depth = doc, doc.text, pos, 0
        self.stop = min(len(self.text), pos + MAX_EXPR)

    def assignment(self) -> tuple:
        """(expression node, offset of its end); the rest of the line after it must be blank or a comment."""
        start = self.pos
        try:
            node = self.expression()
        except _Unknown as e:  # (read on from the next line)
            end = self.text.find("\n", start)
            return ("unknown", str(e)), len(self.text) if end < 0 else end
        self.depth = 0
        self.skip()
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        rest = self.text[self.pos:end].strip()
        if rest and not rest.startswith("#"):
            node = ("unknown", f"`{rest[:20]}`")
        return node, self.pos

    def skip(self) -> None:
        t = self.text
        while self.pos < self.stop:
            c = t[self.pos]
            if c in " \t":
                self.pos += 1
            elif c == "\\" and t.startswith("\n", self.pos + 1):  # a line continued
                self.pos += 2
            elif c == "\n" and self.depth:  # inside ( ) or { }: line breaks are blanks
                self.pos += 1
            elif c == "#" and self.depth:
                nl = t.find("\n", self.pos)
                self.pos = self.stop if nl < 0 else nl
            else:
                break

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def expression(self):
        self.nest = getattr(self, "nest", 0) + 1
        try:
            if self.nest > MAX_DEPTH:
                raise _Unknown("an expression nested past pdlint's bound")
            return self._expression()
        finally:
            self.nest -= 1

    def _expression(self):
        self.skip()
        if re.match(r"if\b", self.text[self.pos:self.pos + 3]):
            return self.conditional()
        left = self.value()
        parts = [left]
        while True:
            if self.peek("+"):
                self.pos += 1
                parts.append(self.value())
            elif self.peek("/"):
                parts.append(("str", self.doc[self.pos:self.pos + 1]))
                self.pos += 1
                parts.append(self.value())
            elif self.peek("||") or self.peek("&&"):
                raise _Unknown("`||` / `&&`")
            else:
                break
        return parts[0] if len(parts) == 1 else ("cat", parts)

    def conditional(self):
        self.pos += 2
        left = self.expression()
        self.skip()
        op = next((o for o in ("==", "!=", "=~") if self.text.startswith(o, self.pos)), None)
        if op is None:
            raise _Unknown("a condition")
        self.pos += 2
        right = self.expression()
        then = self.block()
        if not self.peek("else"):
            raise _Unknown("`if` without `else`")
        self.pos += 4
        if self.peek("if") and re.match(r"if\b", self.text[self.pos:self.pos + 3]):
            other = self.conditional()
        else:
            other = self.block()
        return ("if", left, op, right, then, other)

    def block(self):
        if not self.peek("{"):
            raise _Unknown("a condition")
        self.pos += 1
        self.depth += 1
        node = self.expression()
        if not self.peek("}"):
            raise _Unknown("a condition")
        self.depth -= 1
        self.pos += 1
        return node

    def value(self):
        self.skip()
        t, p = self.text, self.pos
        if t.startswith(("'''", '"""'), p):
            return self.string(t[p:p + 3], indented=True)
        if t.startswith(("'", '"'), p):
            return self.string(t[p], indented=False)
        if t.startswith("(", p):
            self.pos += 1
            self.depth += 1
            node = self.expression()
            if not self.peek(")"):
                raise _Unknown("`(`")
            self.depth -= 1
            self.pos += 1
            return node
        if t.startswith("/", p):  # `/ B`: an absolute path
            self.pos += 1
            self.nest = getattr(self, "nest", 0) + 1
            try:
                if self.nest > MAX_DEPTH:
                    raise _Unknown("an expression nested past pdlint's bound")
                return ("cat", [("str", self.doc[p:p + 1]), self.value()])
            finally:
                self.nest -= 1
        if t.startswith("`", p):
            raise _Unknown("a backtick")
        m = _NAME.match(t, p)
        if m:
            self.pos = m.end()
            self.skip()
            if t.startswith("(", self.pos):
                if m.group(0) in _ENV_FUNCTIONS:
                    return self.env_call(m.group(0))
                raise _Unknown(f"the function call `{m.group(0)}()`")
            if t.startswith(("'", '"'), self.pos) and m.group(0) in ("x", "f"):
                raise _Unknown(f"a `{m.group(0)}` string")
            return ("var", m.group(0))
        raise _Unknown(f"`{t[p:p + 20].split(chr(10))[0]}`")

    def env_call(self, name: str):
        """``env_var_or_default(KEY, DEFAULT)`` / ``env(KEY, DEFAULT)`` (the environment variable KEY, DEFAULT when
        it is unset), ``env_var(KEY)`` / ``env(KEY)`` (KEY, or just fails): ``("env", name, key, default or
        None)``."""
        self.pos += 1
        self.depth += 1
        args = [self.expression()]
        while self.peek(",") and len(args) < 3:
            self.pos += 1
            if self.peek(")"):
                break  # (a trailing comma)
            args.append(self.expression())
        if not self.peek(")") or len(args) != _ENV_FUNCTIONS[name] and not (name == "env" and len(args) in (1, 2)):
            raise _Unknown(f"the function call `{name}()`")
        self.depth -= 1
        self.pos += 1
        return ("env", name, args[0], args[1] if len(args) > 1 else None)

    def string(self, quote: str, indented: bool):
        t, start = self.text, self.pos + len(quote)
        if quote[0] == "'":
            end = t.find(quote, start, self.stop)
        else:  # (a backslash escapes the character after it)
            end, j = -1, start
            while j < self.stop:
                if t[j] == "\\":
                    j += 2
                elif t.startswith(quote, j):
                    end = j
                    break
                else:
                    j += 1
        if end < 0:
            raise _Unknown("an unterminated string")
        self.pos = end + len(quote)
        if not indented and "\n" in t[start:end]:
            raise _Unknown("a string over several lines")
        body = self.doc[start:end]
        if quote[0] == '"':
            body = _unescape(body)
        if indented:
            body = _unindent(body)
        return ("str", body)


class _Unknown(Exception):
    pass


def _unescape(body: TStr) -> TStr:
    """A ``"..."`` string's escapes as just reads them (``\\n`` is a line break, ``\\\"`` a quote, ``\\`` and a
    line break are nothing); one just refuses is an unknown value."""
    t = body.text
    if "\\" not in t:
        return body
    parts, last, i = [], 0, t.find("\\")
    while i >= 0:
        parts.append(body[last:i])
        c = t[i + 1:i + 2]
        if c == "\n":
            j = i + 2
            while j < len(t) and t[j] in " \t":
                j += 1
            last = j
        elif c in _ESCAPES:
            where = body[i + 1:i + 2]
            parts.append(TStr(_ESCAPES[c], where.pieces) if _ESCAPES[c] != c else where)
            last = i + 2
        else:
            raise _Unknown(f"the escape `\\{c}`")
        i = t.find("\\", last)
    parts.append(body[last:])
    return TStr.join(parts)


def _unindent(body: TStr) -> TStr:
    """An indented (triple-quoted) string as just reads it: a line break right after the opening quotes dropped,
    then the indentation all its non-blank lines share."""
    if body.text.startswith("\n"):
        body = body[1:]
    elif body.text.startswith("\r\n"):
        body = body[2:]
    lines = body.text.split("\n")
    indents = [len(ln) - len(ln.lstrip(" \t")) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    if not cut:
        return body
    parts, at = [], 0
    for ln in lines:
        drop = min(cut, len(ln) - len(ln.lstrip(" \t")))
        parts.append(body[at + drop:at + len(ln) + 1])
        at += len(ln) + 1
    return TStr.join(parts)


def _linear_pattern(pattern: str) -> bool:
    """Is ``pattern`` one Python's backtracking ``re`` matches in bounded time, and reads as just's regex crate
    does: no back-reference or look-around (the crate has neither), no repeated group holding a repetition or an
    alternation (``(a+)+``, ``(a|a)*``: exponential), at most :data:`MAX_QUANTIFIERS` repetitions in all?"""
    if re.search(r"\\[1-9]|\(\?(?:[=!]|<[=!]|P=)", pattern):
        return False
    quantifiers = 0
    stack: list = [False]  # per open group: does it hold a repetition or an alternation?
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":  # a class: its characters are literal ( `]` first, escapes)
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            stack.append(False)
            if pattern[i + 1:i + 2] == "?":  # (`(?:`, `(?P<name>`, `(?i)`: the group's prefix is no repetition)
                j = i + 2
                while j < n and pattern[j] not in ":>)":
                    j += 1
                if j < n and pattern[j] == ")":
                    stack.pop()  # (flags only: no group)
                i = j + 1
                continue
        elif c == ")" and len(stack) > 1:
            inner = stack.pop()
            if pattern[i + 1:i + 2] in ("*", "+", "?", "{") and inner:
                return False
            stack[-1] = stack[-1] or inner
        elif c == "|":
            stack[-1] = True
        elif c in "*+?{" and i:
            if c == "?" and pattern[i - 1] in "*+?}":
                i += 1
                continue  # (a lazy repetition's `?`)
            quantifiers += 1
            stack[-1] = True
            if quantifiers > MAX_QUANTIFIERS:
                return False
        i += 1
    return True


def _evaluate(node, value, env: Optional[dict] = None):
    """The TStr an expression node is (``value(NAME)``: a variable's), or None when pdlint cannot know it.
    ``env``: the values given (``--var``, the config's) of the environment variables just's ``env_var()``
    functions read; one not given is the function's default (as the shell's ``${NAME:-default}`` is read), and
    unknown without one."""
    kind = node[0]
    if kind == "str":
        return node[1]
    if kind == "env":
        _, _, key, default = node
        k = _evaluate(key, value, env)
        if k is None or k.opaque:
            return None
        given = (env or {}).get(k.text)
        if isinstance(given, TStr):
            return given
        return None if default is None else _evaluate(default, value, env)
    if kind == "var":
        v = value(node[1])
        return v if isinstance(v, TStr) else None
    if kind == "cat":
        parts = [_evaluate(n, value, env) for n in node[1]]
        if any(p is None for p in parts) or sum(len(p.text) for p in parts) > MAX_VALUE:
            return None  # (a value doubled past pdlint's bound: `a1 := a0 + a0` ... rw35/h P9)
        return TStr.join(parts)
    if kind == "if":
        _, left, op, right, then, other = node
        a, b = _evaluate(left, value, env), _evaluate(right, value, env)
        if a is None or b is None or a.opaque or b.opaque:
            return None
        if op == "=~":
            if len(a.text) > MAX_MATCHED or not _linear_pattern(b.text):
                return None  # (a pattern Python's backtracking engine could take exponential time on: rw35/h P8)
            try:
                hit = re.search(b.text, a.text) is not None  # (just's regex crate; a pattern Python reads alike)
            except (re.error, OverflowError, RecursionError):  # (`a{4294967296}`: OverflowError, rw35/i P3)
                return None
        else:
            hit = (a.text == b.text) == (op == "==")
        return _evaluate(then if hit else other, value, env)
    return None


def parameter_at(text: str, offset: int, name: str) -> Optional[tuple]:
    """``(recipe, default)`` when ``{{ name }}`` at ``offset`` of a Justfile's ``text`` is a parameter of the
    recipe it is written in (``default``: the text its header gives it, None when it has none); else None."""
    start = text.rfind("\n", 0, offset) + 1
    for _ in range(4096):
        line = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
        if line and not line.startswith((" ", "\t", "#")):
            m = _HEADER.match(line)
            if m is None:
                return None
            for p in re.finditer(r"""[+*$]?([A-Za-z_][A-Za-z0-9_-]*)(?:=("[^"]*"|'[^']*'|[^\s:]+))?""",
                                 m.group(2)):
                if p.group(1) == name:
                    default = p.group(2)
                    if default and default[0] in "'\"":
                        default = default[1:-1]
                    return m.group(1), default
            return None
        if start == 0:
            return None
        start = text.rfind("\n", 0, start - 1) + 1
    return None


def unevaluated(text: str, name: str) -> Optional[tuple]:
    """``(line, what)`` when ``text`` (a Justfile) assigns ``name`` an expression pdlint does not evaluate:
    ``what`` says which part (a function call, a backtick, a variable the file does not set); else None."""
    doc = TStr(text, ())
    lines, offsets = split_lines(text)
    _, variables = recipes(doc)
    seen: set = set()
    first = None
    while name not in seen and len(seen) < 16:
        seen.add(name)
        for i, line in enumerate(lines):
            m = _ASSIGN.match(line) if line.startswith((name, "export")) else None
            if m and m.group(1) == name:
                node, _ = _Parser(doc, offsets[i] + m.end()).assignment()
                break
        else:
            return (first, f"`{name}`, which this file does not set") if first else None
        first = first or i + 1
        why = _first_unknown(node, variables)
        if why is None:
            return None
        if why[0] == "var":
            name = why[1]
            continue
        return first, why[1]
    return None


def _first_unknown(node, variables: dict) -> Optional[tuple]:
    """("unknown", what) of the first part of an expression node pdlint cannot evaluate, or ("var", NAME) when
    that is a variable without a value (the caller looks at its assignment); None when there is none."""
    kind = node[0]
    if kind == "unknown":
        return node
    if kind == "var":
        return node if variables.get(node[1]) is None else None
    if kind == "env":  # (an environment variable: its default, or the call without one)
        return ("unknown", f"the function call `{node[1]}()`") if node[3] is None else \
            _first_unknown(node[2], variables) or _first_unknown(node[3], variables)
    for sub in node[1] if kind == "cat" else node[1:] if kind == "if" else ():
        if isinstance(sub, tuple):
            why = _first_unknown(sub, variables)
            if why is not None:
                return why
    return None


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


def _interpolations(body: TStr, variables: dict, params: tuple, given: Optional[dict] = None) -> TStr:
    """``{{ NAME }}`` of a top-level ``NAME := "value"`` is that value, where it is written (minosfuture/vllm's
    justfile, field test rw6/f: 18 of 21 launches had their variable-held flags unchecked); a recipe parameter
    is the value ``given`` (``--var``) has for it; any other interpolation (a parameter none gives, an expression,
    a value that is itself interpolated) is a value pdlint cannot see."""
    parts, last = [], 0
    for m in _INTERP.finditer(body.text):
        parts.append(body[last:m.start()])
        name = m.group(1).strip()
        value = variables.get(name) if name not in params else (given or {}).get(name)
        if value is not None and "{{" not in value.text and "`" not in value.text:
            parts.append(value)
        else:
            parts.append(body[m.start():m.end()].as_opaque())
        last = m.end()
    parts.append(body[last:])
    return TStr.join(parts)
