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


def all_options(rels: Optional[tuple] = None) -> list:
    """Every option string of every release (long ones first, in table order), for a did-you-mean."""
    seen: dict = {}
    for r in (releases() if rels is None else rels):
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


def check(argv: list, rels: Optional[tuple] = None) -> list:
    """Rejections of the router argv ``argv`` (TStr words after the entry point and its sub-command); ``rels``:
    the tables to judge with (:func:`server_releases` for ``sglang_router.launch_server``'s router words)."""
    rels = releases() if rels is None else rels
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


#: ``sglang_router.launch_server`` (also the CLI's ``server`` sub-command, which calls its ``main``) builds one
#: parser of SGLang's ``ServerArgs.add_cli_args`` and ``RouterArgs.add_cli_args(parser, use_router_prefix=True,
#: exclude_host_port=True)`` plus ``--router-dp-worker-base-port`` (type int), then starts SGLang servers with the
#: ServerArgs and the router with the ``router_*`` values (sglang-router 0.3.2 sglang_router/launch_server.py
#: main; router_args.py:159 ``prefix = "router-" if use_router_prefix``, ``--worker-urls`` registered without it)
_SERVER_OWN = {"--router-dp-worker-base-port": (None, None)}
_UNPREFIXED = frozenset({"--worker-urls"})
#: exclude_host_port (ServerArgs' --host / --port serve both); --help is parse_router_args' own
_NOT_IN_SERVER = frozenset({"--host", "--port", "--help"})


@functools.lru_cache(maxsize=1)
def server_releases() -> tuple:
    """The router options of ``sglang_router.launch_server``'s parser per release: each option of
    ``parse_router_args``'s table with the ``--router-`` prefix (not ``--host``, ``--port``, ``-h``, ``--help``)."""
    out = []
    for rel in releases():
        opts = {}
        for name, spec in rel.options.items():
            if name in _NOT_IN_SERVER or not name.startswith("--"):
                continue
            opts[name if name in _UNPREFIXED else "--router-" + name[2:]] = spec
        opts.update(_SERVER_OWN)
        out.append(Release(rel.version, opts))
    return tuple(out)


def _router_word(tok) -> bool:
    """A word ``sglang_router.launch_server``'s parser reads as a router option: ``--router-*`` (no SGLang server
    flag starts so), ``--worker-urls`` or an abbreviation of it (no server flag starts with ``--worker``)."""
    text = tok.text
    name = text.partition("=")[0]
    if name.startswith("--router-"):
        return not tok[:len("--router-")].opaque
    return len(name) > len("--worker") and "--worker-urls".startswith(name) and not tok[:len(name)].opaque


def split_server_argv(argv: list) -> tuple:
    """``(server words, router words)`` of a ``sglang_router.launch_server`` argv, as its one parser splits them:
    each router option with the values argparse gives it (its nargs in the newest release that has it) goes to
    the router; every other word, and everything from ``--`` on, to SGLang's server parser.  An option no release
    has keeps the plain words after it (argparse's "unrecognized arguments" lists them with it); a word a variable
    writes after a list option stays with the server words (whatever it holds is unseen there too)."""
    rels = server_releases()
    server: list = []
    router: list = []
    i, n = 0, len(argv)
    while i < n:
        tok = argv[i]
        i += 1
        if tok.text == "--":
            server.extend(argv[i - 1:])
            break
        if not _router_word(tok):
            server.append(tok)
            continue
        router.append(tok)
        if "=" in tok.text:
            continue
        nargs = "*"  # (an unknown or ambiguous option: the plain words after it)
        for rel in reversed(rels):
            kind, opt = resolve(tok.text, rel)
            if kind == "option":
                nargs = rel.options[opt][0]
                break
        if nargs == 0:
            continue
        if nargs is None or nargs == 1 or nargs == "?":
            if i < n and (argv[i].opaque or _is_value(argv[i].text, rels)):
                router.append(argv[i])
                i += 1
            continue
        left = nargs if isinstance(nargs, int) else n  # ("+" / "*": every plain word up to the next option)
        while left > 0 and i < n and not argv[i].opaque and _is_value(argv[i].text, rels):
            router.append(argv[i])
            i += 1
            left -= 1
    return server, router


__all__ = ["MAX_WORDS", "Rejection", "all_options", "check", "releases", "resolve", "server_releases",
           "split_server_argv"]
