"""JSON over traced strings: every value keeps the token it is written in.

vLLM takes ``--kv-transfer-config`` (and other config flags) as one JSON
argument; after shell expansion the token may be spliced from several quoted
parts and variables (``'{"proxy_ip":"'"$VLLM_HOST_IP"'"}'``).  :func:`parse`
returns :class:`JNode` values whose ``tok`` is the slice of the argument that
holds the value (for strings: the characters between the quotes), so a finding
points at ``"kv_producer"`` itself.  Errors are Python's ``json`` messages.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from pdlint.records import dataclass
from pdlint.text import TStr

MAX_DEPTH = 64


@dataclass
class JNode:
    value: Any  # str/int/float/bool/None, dict key -> JNode, list of JNode
    tok: TStr  # where the value is written
    key_tok: Optional[TStr] = None  # for object members: the key

    def get(self, *path) -> Optional["JNode"]:
        cur = self
        for k in path:
            if not isinstance(cur.value, dict) or k not in cur.value:
                return None
            cur = cur.value[k]
        return cur

    def plain(self) -> Any:
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


class TooDeep(ValueError):
    """Valid JSON nested deeper than :data:`MAX_DEPTH` (not traced)."""


class JSONError(ValueError):
    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.message = message
        self.pos = pos


def parse(tok: TStr) -> JNode:
    """Parse ``tok`` as one JSON document (raises :class:`JSONError` with
    Python's message and the character position, :class:`TooDeep` for valid
    JSON nested deeper than :data:`MAX_DEPTH`)."""
    text = tok.text
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        stand_in = _stand_in(tok)
        if stand_in is None:
            raise JSONError(f"{e.msg}: line {e.lineno} column {e.colno} (char {e.pos})", e.pos) from None
        text = stand_in
    except RecursionError:
        raise TooDeep() from None
    p = _Parser(tok, text)
    node = p.value(0)
    return node


def _stand_in(tok: TStr) -> Optional[str]:
    """The text of ``tok`` with each value pdlint cannot see that stands outside a JSON string (``..."kv_buffer_size":
    '$BUF'}``) written as a number of the same length, when the result is JSON: the members around such a value
    stay readable (the literal ``kv_role`` beside it, field test rw16/m), the value itself is unknown (None, its
    token opaque).  None when there is no such value or the text is not JSON even so."""
    spans = [(p.start, p.end) for p in tok.pieces if p.opaque and p.end > p.start]
    if not spans:
        return None
    text = tok.text
    chars = list(text)
    for a, b in spans:
        if _in_string(text, a):
            continue
        chars[a:b] = ["0"] + [" "] * (b - a - 1)
    out = "".join(chars)
    if out == text:
        return None
    try:
        json.loads(out)
    except (json.JSONDecodeError, RecursionError):
        return None
    return out


def _in_string(text: str, i: int) -> bool:
    """Is position ``i`` of ``text`` inside a JSON string (counting unescaped quotes before it)?"""
    inside, j = False, 0
    while j < i:
        c = text[j]
        if c == "\\" and inside:
            j += 2
            continue
        if c == '"':
            inside = not inside
        j += 1
    return inside


class _Parser:
    def __init__(self, tok: TStr, text: Optional[str] = None):
        self.tok = tok
        self.text = tok.text if text is None else text  # (a stand-in of the same length: _stand_in)
        self.stand_in = text is not None and text != tok.text
        self.i = 0

    def ws(self):
        t, n = self.text, len(self.text)
        while self.i < n and t[self.i] in " \t\n\r":
            self.i += 1

    def value(self, depth: int) -> JNode:
        if depth > MAX_DEPTH:
            raise TooDeep()
        self.ws()
        t = self.text
        c = t[self.i]
        start = self.i
        if c == "{":
            self.i += 1
            out: dict = {}
            self.ws()
            if t[self.i] == "}":
                self.i += 1
                return JNode(out, self.tok[start:self.i])
            while True:
                self.ws()
                key_node = self.string()
                self.ws()
                self.i += 1  # ':'
                v = self.value(depth + 1)
                v.key_tok = key_node.tok
                out[key_node.value] = v
                self.ws()
                if t[self.i] == ",":
                    self.i += 1
                    continue
                self.i += 1  # '}'
                return JNode(out, self.tok[start:self.i])
        if c == "[":
            self.i += 1
            items = []
            self.ws()
            if t[self.i] == "]":
                self.i += 1
                return JNode(items, self.tok[start:self.i])
            while True:
                items.append(self.value(depth + 1))
                self.ws()
                if t[self.i] == ",":
                    self.i += 1
                    continue
                self.i += 1  # ']'
                return JNode(items, self.tok[start:self.i])
        if c == '"':
            return self.string()
        dec = json.JSONDecoder()
        val, end = dec.raw_decode(t, self.i)
        self.i = end
        at = self.tok[start:end]
        if self.stand_in and at.opaque:
            val = None  # (a value pdlint cannot see, written as a number in the stand-in text)
        return JNode(val, at)

    def string(self) -> JNode:
        t = self.text
        start = self.i
        j = start + 1
        while t[j] != '"':
            j += 2 if t[j] == "\\" else 1
        raw = t[start:j + 1]
        self.i = j + 1
        inner = self.tok[start + 1:j] if j > start + 1 else self.tok[start:j + 1]
        return JNode(json.loads(raw), inner)
