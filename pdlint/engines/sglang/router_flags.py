"""sglang-router's own command line, judged the way its argparse parser judges it.

``data/router-flags.json`` (``scripts/gen_router_flags.py``) holds, per option string, the sglang-router
releases whose ``parse_router_args`` parser registers it, with nargs, action and choices per release.  A word
of a router launch is rejected only when *no* release accepts it: a flag that is neither an option nor an
unambiguous prefix of one (``allow_abbrev``) in any release, or a value outside the choices of every release
whose parser reads the word as that option.  The table is read only when a router launch needs it.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass

_DATA = os.path.join(os.path.dirname(__file__), "data", "router-flags.json")
# argparse's _negative_number_matcher (Python 3.8-3.13); no sglang-router option looks like a negative number,
# so such a word is always a value
_NEGATIVE = lazyre.compile(r"^-\d+$|^-\d*\.\d+$")


@dataclass(frozen=True)
class Release:
    version: str
    options: dict  # option string -> (nargs, choices or None)


@functools.lru_cache(maxsize=1)
def releases() -> tuple:
    """The table's releases, oldest first (``()`` when the table cannot be read)."""
    try:
        with open(_DATA, encoding="utf-8") as fh:
            table = json.load(fh)
    except (OSError, ValueError):
        return ()
    out = []
    for rel in table.get("releases", ()):
        v = rel["version"]
        opts = {}
        for name, e in table.get("options", {}).items():
            if v not in e["releases"]:
                continue
            nargs = e["nargs"].get(v) if isinstance(e["nargs"], dict) else e["nargs"]
            choices = e.get("choices", {}).get(v)
            opts[name] = (nargs, tuple(choices) if choices is not None else None)
        out.append(Release(v, opts))
    return tuple(out)


def all_options() -> list:
    """Every option string of every release (long ones first, in table order), for a did-you-mean."""
    seen: dict = {}
    for r in releases():
        for name in r.options:
            seen.setdefault(name, None)
    return sorted(seen, key=lambda n: (not n.startswith("--"), n))


def resolve(word: str, rel: Release):
    """What ``rel``'s parser makes of ``word`` (argparse ``_parse_optional`` with ``allow_abbrev``):
    ``("value", None)`` a value / positional, ``("option", NAME)`` the option NAME (``explicit`` value after
    ``=`` kept in the word), ``("ambiguous", [NAMES])``, ``("unknown", None)``."""
    opts = rel.options
    if not word or word[0] != "-":
        return "value", None
    if word in opts:
        return "option", word
    if len(word) == 1:
        return "value", None
    if "=" in word:
        name = word.split("=", 1)[0]
        if name in opts:
            return "option", name
    if word[1] == "-":
        prefix = word.split("=", 1)[0]
        matches = [o for o in opts if o.startswith(prefix)]
    else:
        short = word[:2]
        matches = [o for o in opts if o == short or o.startswith(word)]
    if len(matches) > 1:
        return "ambiguous", matches
    if len(matches) == 1:
        return "option", matches[0]
    if _NEGATIVE.match(word) or " " in word:
        return "value", None
    return "unknown", None


@dataclass
class Rejection:
    token: object  # TStr: the word to report
    kind: str  # "unknown" | "ambiguous" | "choice"
    message: str  # sglang-router's (argparse's) own message
    option: str = ""  # the flag as written (name part)
    choices: tuple = ()  # the choices of the newest release that has the option (kind "choice")


MAX_WORDS = 4096  # a router command line longer than this is judged up to here


def check(argv: list) -> list:
    """Rejections of the router argv ``argv`` (TStr words after the entry point and its sub-command)."""
    rels = releases()
    if not rels:
        return []
    out = []
    words = argv[:MAX_WORDS]
    seen: dict = {}  # word -> verdicts (a long command line repeats its flags)
    i = 0
    while i < len(words):
        tok = words[i]
        text = tok.text
        i += 1
        if text == "--":
            break  # (everything after it is a positional argument)
        if not text.startswith("-") or len(text) < 2:
            continue
        name, eq, _ = text.partition("=")
        if tok[:len(name)].opaque:
            continue  # (a variable writes the flag's name: it cannot be judged)
        verdicts = seen.get(text)
        if verdicts is None:
            verdicts = seen[text] = [(r, resolve(text, r)) for r in rels]
        if any(v[0] == "value" for _, v in verdicts):
            continue
        accepted = [(r, v[1]) for r, v in verdicts if v[0] == "option"]
        if not accepted:
            kind, matches = verdicts[-1][1]  # (the message of the newest release)
            if kind == "ambiguous":
                out.append(Rejection(tok, "ambiguous",
                                     f"ambiguous option: {name} could match {', '.join(matches)}", name))
            else:
                out.append(Rejection(tok, "unknown", f"unrecognized arguments: {text}", name))
            continue
        # the value of an option with choices (every option with choices takes one value: nargs None)
        if eq:
            value = tok[len(name) + 1:]
        elif i < len(words) and _is_value(words[i].text, rels):
            value = words[i]
        else:
            continue
        if value.opaque:
            continue
        bad = None
        for rel, opt in accepted:
            nargs, choices = rel.options[opt]
            if nargs is not None or choices is None or value.text in choices:
                bad = None
                break
            bad = (rel, opt, choices)
        if bad is not None:
            rel, opt, choices = bad  # (the newest release that has the option)
            listed = ", ".join(repr(c) for c in choices)
            out.append(Rejection(value, "choice",
                                 f"argument {opt}: invalid choice: {value.text!r} (choose from {listed})", opt,
                                 choices))
    return out


def _is_value(text: str, rels: tuple) -> bool:
    """argparse reads ``text`` as a value (not an option) in some release."""
    return not text.startswith("-") or any(resolve(text, r)[0] == "value" for r in rels)


__all__ = ["MAX_WORDS", "Rejection", "all_options", "check", "releases", "resolve"]
