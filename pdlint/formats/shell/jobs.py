"""Background jobs, and the commands that end them.

A command started with ``&`` runs until the script ends, unless a later ``kill`` / ``pkill`` / ``killall``
on the same path ends it.  Scripts that benchmark one layout, stop its servers and start the next one on the
same ports and GPUs (vLLM's ``benchmarks/disagg_benchmarks``) rely on that, and the pair rules (ports, GPUs)
compare only launches that run at the same time.  What this module decides:

* ``$!`` after a background statement is a placeholder naming the commands it started
  (:func:`job_pid`); ``kill $PID``, ``kill "$!"``, ``kill %1`` / ``%%`` end those commands.
* ``pkill [-f] PATTERN`` ends the jobs whose process name (``-f``: whole command line, as written) the
  pattern matches (an extended regular expression, searched); ``killall NAME`` those whose program is NAME.
* ``fuser -k PORT/tcp`` (or ``-n tcp PORT``) ends the jobs whose command line sets ``--port PORT``.
* A pipeline that hands process ids to ``xargs [opts] kill`` (:func:`piped_kill`; vLLM's
  ``kill_gpu_processes``: ``pgrep python3 | xargs -r kill -9``, ``lsof -t -i:$port | xargs -r kill -9``),
  or ``kill`` given them by a command substitution (``kill -9 $(pgrep -f sglang.launch_server)``):
  ``pgrep ARGS`` ends what ``pkill ARGS`` would; ``lsof -t -i:PORT`` what ``fuser -k PORT/tcp`` would;
  ``ps aux | grep PAT [| grep -v X] | awk '{print $2}'`` what ``pkill -f PAT`` would (minus the ``-v``
  matches) (:func:`listed`).
* Signal 0 (``kill -0 $PID``: "still running?") ends nothing.
* Anything else (a pid pdlint does not know, ``$(cat server.pid)``, an option that narrows the list in a way
  pdlint does not follow: ``pgrep -n``, ``lsof -u``, ``| head -1``) ends nothing: pdlint keeps comparing those
  launches.
"""

from __future__ import annotations

import os
import re

from pdlint import lazyre
from pdlint.launchers import PASS_THROUGH, program_at

KILLERS = frozenset({"kill", "pkill", "killall", "fuser"})
PID_PLACEHOLDER = lazyre.compile(r"<pid of job ([0-9]+(?:,[0-9]+)*)>")
_VALUED = frozenset({"-s", "-n", "-u", "-U", "-g", "-G", "-P", "-t", "--signal", "-F", "--pidfile", "--ns"})

#: ``pkill`` / ``pgrep`` options that keep only some matching processes (a user's, a parent's children...)
_NARROW = frozenset({"-u", "-U", "-g", "-G", "-P", "-s", "-t", "--ns", "-F", "--pidfile", "--euid", "--uid",
                     "--pgroup", "--group", "--parent", "--session", "--terminal"})


def job_pid(cmds: list) -> str:
    """The placeholder value of ``$!`` after a background statement that started ``cmds``."""
    return "<pid of job " + ",".join(str(c.serial) for c in cmds) + ">"


def killed(name: str, args: list, jobs: tuple) -> frozenset:
    """Serials of the commands of ``jobs`` (tuples of ShellCommand, oldest first) that ``name args`` ends."""
    texts = [a.text for a in args if not a.opaque or PID_PLACEHOLDER.search(a.text)]
    if len(texts) != len(args) and name != "kill":
        return frozenset()  # the pattern is a value pdlint cannot see
    if name == "fuser":
        return _fuser(texts, jobs)
    if checks_only(texts):
        return frozenset()
    operands = _operands(texts)
    if name == "kill":
        return _kill(operands, jobs)
    return _by_pattern(name, texts, operands, jobs)


def _by_pattern(name: str, texts: list, operands: list, jobs: tuple) -> frozenset:
    """``pkill`` / ``pgrep`` / ``killall``: the jobs whose process name or command line the pattern matches."""
    if not operands:
        return frozenset()
    if name != "killall" and any(t in _NARROW or not t.startswith("--") and
                                 set(t[1:]) & set("vnoc" if name == "pgrep" else "vno") for t in _options(texts)):
        return frozenset()  # -v: the processes it does not match; -n / -o: one of them; pgrep -c: a count
    full = name in ("pkill", "pgrep") and any(t.startswith("-") and not t.startswith("--") and "f" in t[1:]
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


def checks_only(texts: list) -> bool:
    """Signal 0 (``kill -0 $PID``, a loop's "still running?" test) ends nothing."""
    for i, t in enumerate(_options(texts)):
        if t in ("-0", "-SIG0") or t in ("-s", "-n", "--signal") and texts[i + 1:i + 2] == ["0"]:
            return True
    return False


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
        for m in PID_PLACEHOLDER.finditer(t):
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
    """The name the kernel gives the command's process (what ``pkill`` without ``-f`` matches): the program the
    command runs past assignments and wrappers with their options and operands (:func:`launchers.program_at`:
    ``gosu USER prog``, ``timeout -s KILL 1h prog``), "" when it runs none."""
    texts = [w.text for w in cmd.words]
    if not texts:
        return ""
    word = texts[program_at(texts, 0)]
    base = os.path.basename(word)
    if base in PASS_THROUGH or "=" in word or base.startswith("-") or base.isdigit():
        return ""  # (the words ended before a program: `nohup`, `timeout 5`)
    return base[:15]  # the kernel's comm: the first 15 characters


def _matches(pattern: str, subject: str, exact: bool) -> bool:
    if not subject:
        return False
    try:
        rx = re.compile(pattern)
    except re.error:
        return pattern == subject if exact else pattern in subject
    return bool(rx.fullmatch(subject) if exact else rx.search(subject))


def _fuser(texts: list, jobs: tuple) -> frozenset:
    """``fuser -k [-SIGNAL] [-n tcp] PORT[/tcp] ...``: the jobs listening on those ports (without ``-k`` it
    only lists them; ``-i`` asks first, ``-m`` names file systems)."""
    kill, tcp, ports, i = False, False, [], 0
    while i < len(texts):
        t = texts[i]
        if t == "-n" and i + 1 < len(texts):
            tcp = texts[i + 1] == "tcp"
            i += 2
            continue
        if re.fullmatch(r"-[a-z]+", t):
            if set(t[1:]) & set("imM"):
                return frozenset()
            kill = kill or "k" in t
        elif t in ("-0", "-SIG0") or t.startswith("-") and "=" in t:
            return frozenset()
        elif not t.startswith("-"):
            m = re.fullmatch(r"([0-9]+)(/tcp)?", t)
            if m is None or not (m.group(2) or tcp):
                return frozenset()  # a file, a udp port, a remote address: not modelled
            ports.append(m.group(1))
        i += 1
    return listening(ports, jobs) if kill else frozenset()


def listening(ports: list, jobs: tuple) -> frozenset:
    """Serials of the commands of ``jobs`` whose command line sets ``--port`` to one of ``ports`` (what
    listens there; a launcher's default port, which no word names, is not guessed)."""
    out = set()
    for job in jobs:
        for cmd in job:
            texts = [w.text for w in cmd.words]
            for i, t in enumerate(texts):
                value = texts[i + 1] if t == "--port" and i + 1 < len(texts) else \
                    t[len("--port="):] if t.startswith("--port=") else None
                if value in ports:
                    out.add(cmd.serial)
    return frozenset(out)


#: ``ps`` options that list every process with its whole command line (``ps aux``, ``ps -ef``)
_PS_ALL = frozenset({"aux", "auxww", "auxw", "-aux", "ax", "axu", "-ef", "-efww", "-eF", "-elf", "-A", "-e",
                     "-ax", "-aef", "aefx", "-efw"})
#: ``xargs`` options that take a value as the next word
_XARGS_VALUED = frozenset({"-n", "-L", "-P", "-s", "-d", "-E", "-a", "-I", "--max-args", "--max-lines",
                           "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file", "--replace"})


def piped_kill(stages: list, jobs: tuple) -> frozenset:
    """Serials of the commands of ``jobs`` a pipeline ends that lists process ids and hands them to
    ``xargs kill`` (``stages``: each stage's words as text, None for a stage pdlint cannot read)."""
    if len(stages) < 2 or not stages[-1] or not _xargs_kill(stages[-1]):
        return frozenset()
    return listed(stages[:-1], jobs)


def listed(stages: list, jobs: tuple) -> frozenset:
    """Serials of the commands of ``jobs`` whose process ids a listing writes: ``pgrep ARGS``,
    ``lsof -t -i:PORT``, ``ps aux | grep PAT ... | awk '{print $2}'`` (``stages`` as for :func:`piped_kill`);
    what ``xargs kill`` or ``kill $(...)`` then ends."""
    if not stages or any(s is None or not s for s in stages):
        return frozenset()
    first, rest = stages[0], stages[1:]
    if first[0] == "pgrep" and not rest:
        return _by_pattern("pgrep", first[1:], _operands(first[1:]), jobs)
    if first[0] == "lsof" and not rest:
        return listening(_lsof_ports(first[1:]), jobs)
    if first[0] == "ps" and len(first) == 2 and first[1] in _PS_ALL:
        return _ps_grep(rest, jobs)
    return frozenset()


def _xargs_kill(words: list) -> bool:
    """``xargs [opts] [sudo] kill [-SIGNAL]``, signal 0 (a check) excepted."""
    if words[0] != "xargs":
        return False
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _XARGS_VALUED else 1
    rest = words[i:]
    if rest[:1] == ["sudo"]:
        rest = rest[1:]
    return rest[:1] == ["kill"] and not checks_only(rest[1:]) and \
        all(t.startswith("-") or t in ("{}", "%") for t in _options(rest[1:]) + _operands(rest[1:]))


def _lsof_ports(args: list) -> list:
    """The ports of ``lsof -t -i[:PORT|tcp:PORT]`` (terse: pids only), none when another option narrows or
    widens what it lists."""
    terse, ports, i = False, [], 0
    while i < len(args):
        t = args[i]
        m = re.fullmatch(r"-([tPnlVw]*)(?:i(.*))?", t)
        if m is None:
            if not re.fullmatch(r"-sTCP:LISTEN", t):
                return []
            i += 1
            continue
        terse = terse or "t" in m.group(1)
        if m.group(2) is not None:
            addr = m.group(2)
            if not addr and i + 1 < len(args):
                i += 1
                addr = args[i]
            port = re.fullmatch(r"(?:4|6)?(?:tcp|TCP)?:([0-9]+)", addr)
            if port is None:
                return []
            ports.append(port.group(1))
        i += 1
    return ports if terse else []


def _ps_grep(stages: list, jobs: tuple) -> frozenset:
    """``ps aux | grep PAT [| grep -v X ...] | awk '{print $2}'``: the jobs whose command line every ``grep``
    matches and no ``grep -v`` does (``pkill -f PAT``)."""
    if not stages or not _awk_pid(stages[-1]):
        return frozenset()
    keep, drop = [], []
    for words in stages[:-1]:
        grep = _grep(words)
        if grep is None:
            return frozenset()
        (drop if grep[1] else keep).append(grep[0])
    if not keep:
        return frozenset()
    out = set()
    for job in jobs:
        for cmd in job:
            line = " ".join(w.text for w in cmd.words)
            if all(rx.search(line) for rx in keep) and not any(rx.search(line) for rx in drop):
                out.add(cmd.serial)
    return frozenset(out)


def _awk_pid(words: list) -> bool:
    """``awk '{print $2}'``: the pid column of ``ps aux`` / ``ps -ef``, every line."""
    return len(words) == 2 and words[0] == "awk" and re.fullmatch(r"\{\s*print\s+\$2;?\s*\}", words[1]) is not None


def _grep(words: list):
    """``grep [-v] [-E|-F] [-i] PATTERN``: (compiled pattern, inverted?), None for any other form."""
    if words[0] != "grep" or len(words) < 2:
        return None
    flags = "".join(t[1:] for t in words[1:-1] if re.fullmatch(r"-[vEFi]+", t))
    if any(not re.fullmatch(r"-[vEFi]+", t) for t in words[1:-1]) or words[-1].startswith("-"):
        return None
    pattern = words[-1]
    if "F" in flags:
        pattern = re.escape(pattern)
    elif "E" not in flags:
        if "\\" in pattern:
            return None  # GNU basic-regex escapes (\|, \(): not modelled
        pattern = re.sub(r"([+?|(){}])", r"\\\1", pattern)  # literal in a basic regular expression
    try:
        return re.compile(pattern, re.IGNORECASE if "i" in flags else 0), "v" in flags
    except re.error:
        return None
