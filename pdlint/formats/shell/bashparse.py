"""Asking bash's own parser whether a text is valid shell, where tree-sitter-bash says it is not.

tree-sitter-bash 0.25 rejects some valid bash (``cmd 2>&1 << EOF &``, ``${T[$A,$B]:-}``, a word starting with
``@`` such as Nix's ``@toolServer@/bin/x``, ``if cmd <<EOF | tee log; then``).  Before a parse error becomes a
PD009 "shell syntax error", bash is asked: ``bash -n`` reads the text and runs nothing (no command, no
substitution, no startup file: ``--norc --noprofile`` and an environment without ``BASH_ENV``), and says whether
it parses.  When bash accepts it, the error is tree-sitter's, not the script's, and no PD009 is reported; what
pdlint could not read of the region is still reported as not checked when it holds launch text (coverage).
An error inside an arithmetic expression (``$(( ... ))``) is not sent: bash parses arithmetic only when it
evaluates it, so ``bash -n`` accepts what fails at run time.

Bounded like every child pdlint starts: the text goes on stdin, at most :data:`MAX_BYTES` of it, and bash gets
:data:`TIMEOUT` seconds.  Without bash (or when it fails, times out or the text is too large) the parse error
stands, as before.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from typing import Optional

from pdlint import lazyre

#: largest text handed to bash (a parse of it takes milliseconds)
MAX_BYTES = 2_000_000
#: seconds bash may take
TIMEOUT = 5.0


def bash_binary() -> Optional[str]:
    from pdlint.safeio import program
    return program("bash")


@lru_cache(maxsize=256)
def bash_verdict(text: str) -> tuple:
    """``(True, "")`` when ``bash -n`` parses ``text`` without a syntax error; ``(False, message)`` when bash
    refuses it (its first message, without the ``bash: line N:`` prefix: ``unexpected EOF while looking for
    matching `"'``); ``(None, "")`` when bash was not asked or did not answer (no bash, too large, a timeout)."""
    bash = bash_binary()
    data = text.encode("utf-8", "surrogateescape") if text else b""
    if bash is None or not data or len(data) > MAX_BYTES or b"\0" in data:
        return None, ""
    env = {"PATH": os.defpath, "LC_ALL": "C"}
    from pdlint.budget import unlimited_children
    try:
        with unlimited_children():
            proc = subprocess.run([bash, "--norc", "--noprofile", "-n"], input=data, env=env,
                                  capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None, ""
    if proc.returncode == 0 and not proc.stderr:
        return True, ""
    said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    first = said[0] if said else ""
    m = _PREFIX.match(first)
    return (False, first[m.end():] if m else first) if proc.returncode == 2 or said else (None, "")


#: what bash puts before its message about text read from stdin
_PREFIX = lazyre.compile(r"^(?:\S*bash: )?(?:line \d+: )?")


def bash_accepts(text: str) -> bool:
    """True when ``bash -n`` parses ``text`` without a syntax error."""
    return bash_verdict(text)[0] is True


bash_accepts.cache_clear = bash_verdict.cache_clear  # (the verdicts are cached, once per text)


__all__ = ["bash_accepts", "bash_binary", "bash_verdict", "MAX_BYTES", "TIMEOUT"]
