"""Background jobs, and the commands that end them.

A command started with ``&`` runs until the script ends, unless a later ``kill`` / ``pkill`` / ``killall``
on the same path ends it.  Scripts that benchmark one layout, stop its servers and start the next one on the
same ports and GPUs (vLLM's ``benchmarks/disagg_benchmarks``) rely on that, and the pair rules (ports, GPUs)
compare only launches that run at the same time.  What this module decides:

* ``$!`` after a background statement is a placeholder naming the commands it started
  (:func:`job_pid`); ``kill $PID``, ``kill "$!"``, ``kill %1`` / ``%%`` end those commands.
* ``pkill [-f] PATTERN`` ends the jobs whose process name (``-f``: whole command line, as written) the
  pattern matches (an extended regular expression, searched); ``killall NAME`` those whose program is NAME.
* Anything else (a pid pdlint does not know, ``$(lsof -t -i:8100)``, ``xargs kill``) ends nothing: pdlint
  keeps comparing those launches.
"""

from __future__ import annotations

import os
import re

from pdlint.launchers import PASS_THROUGH

KILLERS = frozenset({"kill", "pkill", "killall"})
_PID = re.compile(r"<pid of job ([0-9]+(?:,[0-9]+)*)>")
_VALUED = frozenset({"-s", "-n", "-u", "-U", "-g", "-G", "-P", "-t", "--signal", "-F", "--pidfile", "--ns"})


def job_pid(cmds: list) -> str:
    """The placeholder value of ``$!`` after a background statement that started ``cmds``."""
    return "<pid of job " + ",".join(str(c.serial) for c in cmds) + ">"


def killed(name: str, args: list, jobs: tuple) -> frozenset:
    """Serials of the commands of ``jobs`` (tuples of ShellCommand, oldest first) that ``name args`` ends."""
    texts = [a.text for a in args if not a.opaque or _PID.search(a.text)]
    if len(texts) != len(args) and name != "kill":
        return frozenset()  # the pattern is a value pdlint cannot see
    operands = _operands(texts)
    if name == "kill":
        return _kill(operands, jobs)
    if not operands:
        return frozenset()
    full = name == "pkill" and any(t.startswith("-") and not t.startswith("--") and "f" in t[1:]
                                   for t in _options(texts))
    exact = name == "killall" or any(t.startswith("-") and "x" in t[1:] for t in _options(texts))
    pattern = operands[0]
    out = set()
    for job in jobs:
        for cmd in job:
            subject = " ".join(w.text for w in cmd.words) if full else _process_name(cmd)
            if _matches(pattern, subject, exact):
                out.add(cmd.serial)
    return frozenset(out)


def _options(texts: list) -> list:
    out = []
    for t in texts:
        if t == "--" or not t.startswith("-"):
            break
        out.append(t)
    return out


def _operands(texts: list) -> list:
    out, i = [], 0
    while i < len(texts):
        t = texts[i]
        if t == "--":
            return out + texts[i + 1:]
        if t.startswith("-") and not out and len(t) > 1:
            i += 2 if t in _VALUED else 1
            continue
        out.append(t)
        i += 1
    return out


def _kill(operands: list, jobs: tuple) -> frozenset:
    out = set()
    for t in operands:
        for m in _PID.finditer(t):
            out.update(int(x) for x in m.group(1).split(","))
        if t.startswith("%") and jobs:
            spec = t[1:]
            job = None
            if spec in ("", "%", "+"):
                job = jobs[-1]
            elif spec == "-" and len(jobs) > 1:
                job = jobs[-2]
            elif spec.isdigit() and 0 < int(spec) <= len(jobs):
                job = jobs[int(spec) - 1]
            if job is not None:
                out.update(c.serial for c in job)
    return frozenset(out)


def _process_name(cmd) -> str:
    """The name the kernel gives the command's process (what ``pkill`` without ``-f`` matches)."""
    for w in cmd.words:
        base = os.path.basename(w.text)
        if base in PASS_THROUGH or "=" in base or base.startswith("-") or base.isdigit():
            continue
        return base[:15]  # the kernel's comm: the first 15 characters
    return ""


def _matches(pattern: str, subject: str, exact: bool) -> bool:
    if not subject:
        return False
    try:
        rx = re.compile(pattern)
    except re.error:
        return pattern == subject if exact else pattern in subject
    return bool(rx.fullmatch(subject) if exact else rx.search(subject))
