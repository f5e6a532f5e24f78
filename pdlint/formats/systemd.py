"""systemd service units (``*.service``, and ``*.service.j2`` templates once rendered): each ``ExecStart=``
command line of the ``[Service]`` section is a launch, evaluated as a shell command with the unit's
``Environment=`` variables.

systemd's command lines (systemd.service(5), "Command lines") are close to a shell's: words split at blanks,
single and double quotes, a backslash at the end of a line continues it, ``$NAME`` (split into words) and
``${NAME}`` are the unit's environment variables.  What differs is handled here:

* the prefixes before the program (``-``, ``@``, ``:``, ``+``, ``!``, ``!!``) are dropped (``@`` also drops the
  word after the program, the process's ``argv[0]``);
* ``%`` specifiers (``%i`` the instance of a ``name@.service`` unit, ``%h`` the home directory) are values
  pdlint cannot see; ``%%`` is a ``%``;
* ``EnvironmentFile=`` sets variables pdlint does not read: they stay unknown;
* an empty ``ExecStart=`` resets the list (a drop-in replacing the command).

A unit starts one process per ``ExecStart=`` of a ``Type=oneshot`` unit, else exactly one: each is read.
"""

from __future__ import annotations

import re

from pdlint import lazyre
from pdlint.records import dataclass
from pdlint.text import TStr

_KEY = lazyre.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*=[ \t]*")
_SECTION = lazyre.compile(r"^[ \t]*\[([^\]]+)\]")
_PREFIX = lazyre.compile(r"[-@:+!]*")
_SPECIFIER = lazyre.compile(r"%.")
_ASSIGNMENT = lazyre.compile(r"""(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))""")
_NAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Unit:
    commands: list  # [(TStr, line)]: the ExecStart= command lines, prefixes dropped
    env: dict  # NAME -> TStr, from Environment=
    env_files: list  # the EnvironmentFile= values (TStr)


def _logical_lines(doc: TStr):
    """``(TStr, first line number)`` of each logical line: a line ending in a backslash continues on the next."""
    text = doc.text
    start, line, n = 0, 1, len(text)
    while start <= n:
        end = start
        first = line
        while True:
            nl = text.find("\n", end)
            if nl < 0:
                nl = n
            if nl > start and text[nl - 1] == "\\" and nl < n:
                end = nl + 1
                line += 1
                continue
            break
        yield doc[start:nl], first
        start = nl + 1
        line += 1
        if nl >= n:
            break


def parse(doc: TStr) -> Unit:
    commands: list = []
    env: dict = {}
    env_files: list = []
    section = ""
    for item, line in _logical_lines(doc):
        stripped = item.text.lstrip()
        if not stripped or stripped[0] in "#;":
            continue
        m = _SECTION.match(item.text)
        if m:
            section = m.group(1).strip()
            continue
        if section != "Service":
            continue
        m = _KEY.match(item.text)
        if not m:
            continue
        key, value = m.group(1), item[m.end():]
        if key == "ExecStart":
            if not value.text.strip():
                commands = []  # an empty assignment resets the list
                continue
            commands.append((_command(value), line))
        elif key == "Environment":
            for a in _ASSIGNMENT.finditer(value.text):
                g = 1 if a.group(1) is not None else 2 if a.group(2) is not None else 3
                word = value[a.start(g):a.end(g)]
                name, eq, _ = word.text.partition("=")
                if eq and _NAME.fullmatch(name):
                    env[name] = _specifiers(word[len(name) + 1:])
        elif key == "EnvironmentFile":
            env_files.append(value)
    return Unit(commands, env, env_files)


def _command(value: TStr) -> TStr:
    prefix = _PREFIX.match(value.text).group(0)
    cmd = value[len(prefix):]
    if "@" in prefix:  # `@/usr/bin/prog name args`: the second word is argv[0], not an argument
        words = list(re.finditer(r"\S+", cmd.text))
        if len(words) > 1:
            cmd = cmd[:words[0].end()] + cmd[words[1].end():]
    return _specifiers(cmd)


def _specifiers(t: TStr) -> TStr:
    """``%i``, ``%h``, ...: values pdlint cannot see; ``%%`` a percent sign."""
    if "%" not in t.text:
        return t
    parts, last = [], 0
    for m in _SPECIFIER.finditer(t.text):
        parts.append(t[last:m.start()])
        piece = t[m.start():m.end()]
        parts.append(piece[:1] if m.group(0) == "%%" else piece.as_opaque())
        last = m.end()
    parts.append(t[last:])
    return TStr.join(parts)


__all__ = ["Unit", "parse"]
