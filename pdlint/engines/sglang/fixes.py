"""Replacement fixes for SGLang's command-line findings (``pdlint --fix``).

Each helper answers with the text a flag token should become, or None when
there is no single certain answer; :func:`replace` wraps it in a
:class:`~pdlint.model.FixIntent` that :mod:`pdlint.fix` turns into text edits
at the token's origin.

* a typo (SGL001): the one flag the message's "did you mean" names (the
  dash spelling of an underscore name, or :mod:`pdlint.suggest`'s single close
  match);
* a config key written with underscores (SGL020): the dash form;
* a deprecated flag (SGL008) or one renamed by an earlier release (its
  deprecation record in an older table names the replacement): the replacement,
  when it is a flag of the judged release that takes the same kind of value.
"""

from __future__ import annotations

from typing import Optional

from pdlint import lazyre
from pdlint.model import SAFE, FixIntent
from pdlint.text import TStr

_BRACES = lazyre.compile(r"\{([^{}]*)\}")
_FLAG = lazyre.compile(r"^--[A-Za-z0-9][A-Za-z0-9_-]*(=[A-Za-z0-9_./:,+-]+)?$")


def replace(token: TStr, option: str, new: tuple, message: str, applicability: str = SAFE) -> Optional[FixIntent]:
    """Replace ``option`` at the start of ``token`` (``--flag`` or ``--flag=value``) with ``new[0]``; ``new[1:]``
    become extra tokens after it."""
    if token is None or not token.pieces or not new or not token.text.startswith(option):
        return None
    rest = token.text[len(option):]
    if rest and not rest.startswith("="):
        return None
    if rest and (len(new) > 1 or "=" in new[0]):
        return None  # --old=v -> a flag with its own =value, or several flags: no single spelling
    return FixIntent("replace", message, applicability, token, (new[0] + rest,) + tuple(new[1:]))


def typo(name: str, table) -> Optional[tuple]:
    """(flag, applicability) when the message's "did you mean" names exactly one flag: the same name with
    dashes (a unique prefix of one, as argparse reads it), or the single close match of
    :func:`pdlint.suggest.close_matches` (a likely typo by its definition: a few edits, under a third of the
    name)."""
    from pdlint.suggest import close_matches
    dashed = name.replace("_", "-")
    if "_" in name:
        hit = table.lookup(dashed)
        if hit is not None:
            return hit.primary, SAFE
        if len(table.prefix_matches(dashed)) == 1:
            return dashed, SAFE
    close = close_matches(name, table.options, n=2)
    return (close[0], SAFE) if len(close) == 1 else None


def replacement_tokens(replacement: str) -> Optional[tuple]:
    """``--a-{x,y}=v`` -> ``("--a-x=v", "--a-y=v")``; None for a placeholder (``--attn-dp-size <dp-size>``)."""
    if not replacement:
        return None
    m = _BRACES.search(replacement)
    if m:
        words = [replacement[:m.start()] + alt + replacement[m.end():] for alt in m.group(1).split(",")]
    else:
        words = replacement.split()
    if not words or not all(_FLAG.match(w) for w in words):
        return None
    return tuple(words)


def deprecated(occ, table) -> Optional[tuple]:
    """The tokens that replace a deprecated flag's occurrence, when the replacement is certain."""
    dep = occ.flag.deprecated or {}
    words = replacement_tokens(dep.get("replacement") or "")
    if words is None:
        return None
    return _compatible(occ.flag, words, table)


def renamed(option: str, version: str) -> Optional[tuple]:
    """A flag the judged release lacks but an older release deprecated in favour of a flag this release has
    (``--cuda-graph-max-bs`` -> ``--cuda-graph-max-bs-decode``): the replacement tokens."""
    from pdlint.engines.sglang import flags
    table = flags.load(version)
    found = None
    for v in flags.available_versions():
        if v == version:
            continue
        old = flags.load(v).lookup(option)
        if old is None or not old.deprecated or option not in old.option_strings:
            continue
        words = replacement_tokens(old.deprecated.get("replacement") or "")
        words = _compatible(old, words, table) if words else None
        if words is None:
            continue
        if found is not None and found != words:
            return None  # releases disagree: no single answer
        found = words
    return found


def _compatible(old, words: tuple, table) -> Optional[tuple]:
    """``words`` when they are flags of ``table`` that take what ``old`` takes: a flag with a value for a flag
    with a value (the value is kept), switches or ``--x=value`` for a switch."""
    for w in words:
        name = w.split("=", 1)[0]
        new = table.lookup(name)
        if new is None or name not in new.option_strings or new.deprecated:
            return None
        if "=" in w:
            if not old.nargs_zero or new.nargs_zero:
                return None
        elif old.nargs_zero != new.nargs_zero or (not old.nargs_zero and len(words) > 1):
            return None
        elif not old.nargs_zero and (old.nargs or None) != (new.nargs or None):
            return None
    return words
