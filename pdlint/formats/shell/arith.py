"""Shell arithmetic (``$((...))``, ``((...))``, ``for ((...))``): bash's
64-bit signed integer semantics, evaluated on text whose ``$`` expansions have
already been done.  Bare names are variables, looked up (and assigned) through
callbacks; a name without a known value stops the evaluation (:class:`Unknown`).
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from pdlint import lazyre

_MASK = (1 << 64) - 1
_MAX_DEPTH = 32


class ArithError(Exception):
    """Syntax error, division by zero, or an expression too deep."""


class Unknown(Exception):
    """The expression uses a variable whose value is not known."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def wrap(n: int) -> int:
    """Reduce to a signed 64-bit integer like bash does."""
    n &= _MASK
    return n - (1 << 64) if n >> 63 else n


_TOKEN = lazyre.compile(r"""
    \s*(?:
      (?P<num>0[xX][0-9a-fA-F]+|[0-9]+\#[0-9a-zA-Z@_]+|[0-9]+)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>\*\*=|<<=|>>=|\*\*|\+\+|--|<=|>=|==|!=|&&|\|\||<<|>>|[-+*/%&|^]=|[-+*/%<>=!~&|^?:(),])
    )""", re.X)


def tokenize(text: str) -> list:
    tokens, i, n = [], 0, len(text)
    while i < n:
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            if text[i:].strip() == "":
                break
            raise ArithError(f"unexpected {text[i:i + 10]!r}")
        i = m.end()
        if m.group("num") is not None:
            tokens.append(("num", parse_number(m.group("num"))))
        elif m.group("name") is not None:
            tokens.append(("name", m.group("name")))
        elif m.group("op") is not None:
            tokens.append(("op", m.group("op")))
    return tokens


def parse_number(text: str) -> int:
    try:
        if "#" in text:
            base_s, digits = text.split("#", 1)
            base = int(base_s)
            if not 2 <= base <= 36:
                raise ArithError(f"bad base {base}")
            return wrap(int(digits, base))
        if text[:2] in ("0x", "0X"):
            return wrap(int(text, 16))
        if len(text) > 1 and text[0] == "0":
            return wrap(int(text, 8))
        return wrap(int(text))
    except ValueError as exc:
        raise ArithError(f"bad number {text!r}") from exc


# Binary operators: precedence (higher binds tighter).
_BINARY = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "%": 10, "**": 11,
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "**="}


class _Parser:
    """Precedence-climbing parser producing a small tuple AST."""

    def __init__(self, tokens: list):
        self.toks = tokens
        self.i = 0
        self.depth = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, op: str):
        kind, val = self.take()
        if kind != "op" or val != op:
            raise ArithError(f"expected {op!r}")

    def parse(self):
        if not self.toks:
            return ("num", 0)
        node = self.comma()
        if self.i != len(self.toks):
            raise ArithError("trailing tokens")
        return node

    def _enter(self):
        self.depth += 1
        if self.depth > 200:
            raise ArithError("expression too deep")

    def comma(self):
        node = self.assign()
        while self.peek() == ("op", ","):
            self.take()
            node = ("seq", node, self.assign())
        return node

    def assign(self):
        self._enter()
        try:
            kind, val = self.peek()
            nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else (None, None)
            if kind == "name" and nxt[0] == "op" and nxt[1] in _ASSIGN:
                self.i += 2
                return ("assign", val, nxt[1], self.assign())
            return self.ternary()
        finally:
            self.depth -= 1

    def ternary(self):
        cond = self.binary(1)
        if self.peek() == ("op", "?"):
            self.take()
            a = self.assign()
            self.expect(":")
            b = self.assign()
            return ("if", cond, a, b)
        return cond

    def binary(self, min_prec: int):
        left = self.unary()
        while True:
            kind, op = self.peek()
            prec = _BINARY.get(op) if kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec if op == "**" else prec + 1)  # ** is right-associative
            left = ("bin", op, left, right)

    def unary(self):
        self._enter()
        try:
            kind, val = self.peek()
            if kind == "op" and val in ("-", "+", "!", "~"):
                self.take()
                return ("un", val, self.unary())
            if kind == "op" and val in ("++", "--"):
                self.take()
                k2, name = self.take()
                if k2 != "name":
                    raise ArithError("++/-- needs a variable")
                return ("pre", val, name)
            return self.postfix()
        finally:
            self.depth -= 1

    def postfix(self):
        kind, val = self.take()
        if kind == "num":
            return ("num", val)
        if kind == "name":
            if self.peek() in (("op", "++"), ("op", "--")):
                return ("post", self.take()[1], val)
            return ("var", val)
        if (kind, val) == ("op", "("):
            node = self.comma()
            self.expect(")")
            return node
        raise ArithError("unexpected token")


class Evaluator:
    """Evaluates arithmetic text.  ``get(name)`` returns the variable's text
    (None when unset, raising :class:`Unknown` when not known); ``put(name,
    value)`` assigns."""

    def __init__(self, get: Callable[[str], Optional[str]], put: Callable[[str, int], None]):
        self.get = get
        self.put = put
        self.depth = 0

    def evaluate(self, text: str) -> int:
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                raise ArithError("variable references nest too deeply")
            return self.run(_Parser(tokenize(text)).parse())
        finally:
            self.depth -= 1

    def value_of(self, name: str) -> int:
        text = self.get(name)
        if text is None or not text.strip():
            return 0
        text = text.strip()
        if re.fullmatch(r"-?[0-9]+", text):
            return wrap(int(text))
        return self.evaluate(text)  # bash evaluates a variable's text as an expression

    def run(self, node) -> int:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "var":
            return self.value_of(node[1])
        if kind == "seq":
            self.run(node[1])
            return self.run(node[2])
        if kind == "un":
            v = self.run(node[2])
            return wrap({"-": -v, "+": v, "!": int(not v), "~": ~v}[node[1]])
        if kind in ("pre", "post"):
            old = self.value_of(node[2])
            new = wrap(old + (1 if node[1] == "++" else -1))
            self.put(node[2], new)
            return new if kind == "pre" else old
        if kind == "if":
            return self.run(node[2]) if self.run(node[1]) else self.run(node[3])
        if kind == "assign":
            _, name, op, rhs = node
            value = self.run(rhs)
            if op != "=":
                value = binop(op[:-1], self.value_of(name), value)
            self.put(name, value)
            return value
        if kind == "bin":
            op = node[1]
            if op == "&&":
                return int(bool(self.run(node[2])) and bool(self.run(node[3])))
            if op == "||":
                return int(bool(self.run(node[2])) or bool(self.run(node[3])))
            return binop(op, self.run(node[2]), self.run(node[3]))
        raise ArithError(f"bad node {kind}")  # pragma: no cover - parser produces only the kinds above


def binop(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise ArithError("division by zero")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q  # C truncation toward zero
        return wrap(q if op == "/" else a - q * b)
    if op == "**":
        if b < 0:
            raise ArithError("negative exponent")
        return wrap(pow(a, b, 1 << 64))
    if op in ("<<", ">>"):
        b &= 63
        return wrap(a << b if op == "<<" else a >> b)
    result = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
    }.get(op)
    if result is None:
        raise ArithError(f"unknown operator {op}")
    return wrap(result())
