"""Safe output: what a file name, a token or a YAML key can put into a report.

File names, tokens and the messages that quote them come from the scanned
repository, so they are untrusted.  Every format applies these rules:

* **File names are written reversibly** (:func:`name`).  A name that is not
  valid UTF-8 (Python decodes it with ``surrogateescape``) would make JSON
  invalid or crash the output; each undecodable byte is written as ``%XX``
  (upper-case hex) and, in such a name, every ``%`` as ``%25``.  A name that
  already holds ``%`` followed by two hex digits is written the same way, so
  the original bytes are always ``urllib.parse.unquote_to_bytes(written)``
  (``os.fsdecode`` of that gives the name as Python sees it).  Every other
  name is written unchanged.  SARIF's URIs percent-encode the same bytes.
* **Text and GitHub formats escape control characters** (:func:`text`): C0
  (newline, carriage return, tab, escape ...), DEL, C1, the Unicode line and
  paragraph separators and the bidirectional overrides become ``\\n``,
  ``\\r``, ``\\t``, ``\\xNN`` or ``\\uNNNN``, so a file name holding
  ``\\n::error file=...::`` cannot start a line of its own, a token cannot
  move the cursor or reorder what is displayed.
* **No line can be a GitHub workflow command** unless pdlint means it: the
  runner reads ``::command ...::`` at the start of a line (after blanks) and
  the legacy ``##[command]`` anywhere in a line.  In text output a line that
  would start with ``::`` has its first colon written ``\\x3a`` (:func:`lines`)
  and every ``##[`` is written ``##\\x5b``; JSON and SARIF write that bracket
  as ``\\u005b`` and the control characters above as ``\\uNNNN``, which reads
  back as the same string (:func:`json_text`).
"""

from __future__ import annotations

import re

from pdlint import lazyre

# C0, DEL, C1, ALM, LRM/RLM, line/paragraph separators, bidi embeddings/overrides and isolates
_CONTROL = lazyre.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_JSON_UNSAFE = lazyre.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SURROGATE = lazyre.compile("[\ud800-\udfff]")
_PERCENT_HEX = lazyre.compile("%[0-9A-Fa-f]{2}")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _char(m: re.Match) -> str:
    c = m.group(0)
    o = ord(c)
    return _SHORT.get(c) or (f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")


def _percent(s: str) -> str:
    out = []
    for ch in s:
        if ch == "%":
            out.append("%25")
        elif "\udc80" <= ch <= "\udcff":  # a byte os.fsdecode could not decode
            out.append(f"%{ord(ch) - 0xdc00:02X}")
        elif "\ud800" <= ch <= "\udfff":
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    return "".join(out)


def name(path: str) -> str:
    """A file name as every format writes it (see the module docstring): reversible, valid UTF-8."""
    if _SURROGATE.search(path) or _PERCENT_HEX.search(path):
        return _percent(path)
    return path


def utf8(s: str) -> str:
    """Any other string made writable as UTF-8: undecodable bytes (from a file name) as ``%XX``."""
    return _percent(s) if _SURROGATE.search(s) else s


def text(s) -> str:
    """A path, token or message for the text and GitHub formats: control characters escaped,
    ``##[`` defused, valid UTF-8."""
    s = utf8(str(s))
    if _CONTROL.search(s):
        s = _CONTROL.sub(_char, s)
    if "##[" in s:
        s = s.replace("##[", "##\\x5b")
    return s


def path(p: str) -> str:
    """A file name in text output: :func:`name`, then :func:`text`."""
    return text(name(p))


def lines(out: str) -> str:
    """Text output whose lines cannot be read as workflow commands: a line that
    starts (after blanks) with ``::`` gets its first colon escaped."""
    if "::" not in out:
        return out
    return _COMMAND_START.sub(lambda m: m.group(1) + "\\x3a:", out)


_COMMAND_START = lazyre.compile(r"(?m)^([ \t\f\v]*)::")


def json_text(doc: str) -> str:
    """Serialised JSON (``ensure_ascii=False``) with what a terminal or CI log could
    interpret (C1, bidi, line separators, ``##[``) written as ``\\uNNNN`` escapes:
    the same JSON value, byte for byte safer."""
    if _JSON_UNSAFE.search(doc):
        doc = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", doc)
    if "##[" in doc:
        doc = doc.replace("##[", "##\\u005b")
    return doc


def json_doc(obj, key: str = ""):
    """A JSON-ready value with every file name (a ``path`` value, the keys of a
    coverage ``files`` table) through :func:`name` and every other string
    through :func:`utf8`."""
    if isinstance(obj, str):
        return name(obj) if key == "path" else utf8(obj)
    if isinstance(obj, dict):
        if key == "files" and all(isinstance(v, dict) for v in obj.values()):
            return {name(k): json_doc(v) for k, v in obj.items()}
        return {utf8(k) if isinstance(k, str) else k: json_doc(v, k) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_doc(v, key) for v in obj]
    return obj
