"""Dockerfiles (``Dockerfile``, ``Dockerfile.prefill``, ``prefill.Dockerfile``, ``Containerfile``): the command an
image built from it runs, per build stage.

What the image runs is its ``ENTRYPOINT`` followed by its ``CMD`` (the Dockerfile reference, "Understand how CMD
and ENTRYPOINT interact"):

* both in exec form (a JSON array): the entry point's words, then the command's;
* a shell-form ``ENTRYPOINT`` (``ENTRYPOINT python3 -m ...``) runs as ``/bin/sh -c`` and ignores ``CMD``;
* no ``ENTRYPOINT`` of the file's own: the ``CMD`` alone, after the base image's entry point when pdlint knows
  it (``vllm/vllm-openai``'s is ``vllm serve``: :func:`pdlint.launchers.image_entrypoint`); a shell-form
  ``CMD`` runs as ``/bin/sh -c``;
* a stage's ``ENTRYPOINT`` resets the ``CMD`` it inherited; an array that is not valid JSON is the shell form.

Every stage that writes its own ``ENTRYPOINT`` or ``CMD`` is one launch (``docker build --target`` may pick any
stage); a stage ``FROM`` another inherits its entry point, command and environment.  ``ENV`` sets the launch's
environment, ``ARG`` defaults fill ``FROM`` (whose image tag pins the engine release, as a container's
``image:`` does, and wins).  An exact pin of an engine a stage's ``RUN`` installs (``RUN pip install
"sglang[all]==${SGLANG_VERSION}"``, ``uv pip install vllm==0.10.1``: :func:`pdlint.formats.pins.text_install_pins`,
the stage's ``ARG`` and ``ENV`` values substituted) pins the release of its launches too, as does one in a stage
it is built on or whose ``site-packages`` it copies (``COPY --from=builder /usr/local/lib/python3.12/dist-packages
...``); a later install wins.  A ``RUN`` line is a build step: its commands are read as a script's are (a server it starts
fails the build with the same flags; ``pip install`` and ``cp`` of an engine are no launches), each stage's own; a
``RUN <<EOF`` here-document script is left to coverage (PD020 for its launch text).
"""

from __future__ import annotations

import json
import re
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass, field
from pdlint.text import TStr, split_lines

#: file names of Dockerfiles (a base name, case-insensitively)
NAME = lazyre.compile(r"^(?:Dockerfile(?:\.[\w.-]+)?|Containerfile(?:\.[\w.-]+)?|[\w.-]+\.(?:dockerfile|containerfile))$",
                  re.I)

_INSTRUCTION = lazyre.compile(r"^[ \t]*([A-Za-z]+)(?:[ \t]+|$)")
_FROM = lazyre.compile(r"^(?:--\S+[ \t]+)*(?P<image>\S+)(?:[ \t]+AS[ \t]+(?P<stage>\S+))?[ \t]*$", re.I)
_ARG = lazyre.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:=(?P<value>.*))?$")
_VAR = lazyre.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?[-+][^}]*)?\}?")
_ENV_PAIR = lazyre.compile(r"""([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|(?:[^\s\\]|\\.)*)""")

_HEREDOC = lazyre.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
MAX_HEREDOC_LINES = 20_000
#: RUN's own flags before the command (`--mount=type=cache,target=/root/.cache`, `--network=none`)
_RUN_FLAGS = lazyre.compile(r"(?:[ \t]*--[a-z-]+=\S+)+[ \t]*")
MAX_STAGES = 64
MAX_INSTRUCTIONS = 5000
MAX_NAMED = 4096  # file names one stage's COPY / ADD lines record
MAX_EXPANDED = 100_000  # characters a value may have once its variables are substituted


def is_dockerfile(name: str) -> bool:
    return bool(NAME.match(name.replace("\\", "/").rsplit("/", 1)[-1]))


@dataclass
class Form:
    exec_words: Optional[list] = None  # [TStr] of an exec-form array
    shell: Optional[TStr] = None  # the text of a shell form
    line: int = 0


@dataclass
class Stage:
    name: str  # its `AS` name, else its index
    image: str  # the base image (ARG defaults filled), "" when a variable pdlint cannot see names it
    image_tok: Optional[TStr]
    line: int
    env: dict = field(default_factory=dict)  # NAME -> TStr
    entry: Optional[Form] = None
    cmd: Optional[Form] = None
    own: bool = False  # writes an ENTRYPOINT or CMD of its own
    runs: list = field(default_factory=list)  # [Form] of its RUN instructions (build steps), flags dropped
    pins: dict = field(default_factory=dict)  # engine -> (version, Origin of the pin) its RUN lines install
    #: base names of the files it (or a stage it is built on) copies in or runs (COPY / ADD sources, ENTRYPOINT and
    #: CMD words): which scripts the image runs (pdlint.formats.pins)
    named: set = field(default_factory=set)


#: a COPY source that carries installed Python packages
_PACKAGES_DIR = lazyre.compile(r"(?:site|dist)-packages")


def _run_pins(run: Form, env: dict) -> dict:
    """``{engine: (version, Origin)}`` of the exact engine pins a RUN installs (:mod:`pdlint.formats.pins`), its
    variables (the stage's ARG and ENV values) substituted first (:func:`_substitute`): each is placed where its
    version is written (an ``ARG`` default's line when it came from one)."""
    if run.exec_words is not None:  # (the exec form substitutes no variables)
        if not any("==" in w.text for w in run.exec_words):
            return {}
        from pdlint.formats.pins import install_pins
        return {e: (v, run.exec_words[k].origin) for e, (v, k) in install_pins([w.text for w in run.exec_words]).items()}
    if run.shell is None or "==" not in run.shell.text:
        return {}
    from pdlint.formats.pins import text_install_pins
    text = _substitute(run.shell, env)
    return {e: (v, text.origin_at(a)) for e, (v, a, _) in text_install_pins(text.text).items()}


def _words(text: str) -> list:
    """The words of an instruction's value: its JSON array (exec form), else split at blanks."""
    r = text.strip()
    if r.startswith("["):
        try:
            v = json.loads(r.replace("\\\n", ""))
            if isinstance(v, list):
                return [str(x) for x in v]
        except (ValueError, RecursionError):
            pass
    return r.split()


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1].strip("\"'")


def _logical(doc: TStr):
    """``(TStr, first line)`` of each instruction: a line ending in a backslash continues on the next.  Inside a
    continued instruction Docker drops comment lines and empty lines (the Dockerfile reference, "Parser
    directives" and "Comments": `RUN if ...; then \\` / `# a note` / `apt-get ...`), so they are left out of it."""
    text = doc.text
    lines, offsets = split_lines(text)
    esc = _escape_char(lines)
    i = 0
    while i < len(lines):
        first = i
        parts = [doc[offsets[i]:offsets[i] + len(lines[i])]]
        kept = i
        # (a comment line is never continued: `#   docker build ... \\` above a FROM, vLLM's docker/Dockerfile)
        while not lines[first].lstrip().startswith("#") and lines[kept].rstrip().endswith(esc) and \
                i + 1 < len(lines):
            i += 1
            physical = lines[i]
            if not physical.strip() or physical.lstrip().startswith("#"):
                continue  # dropped by Docker inside a continued instruction
            if esc == "\\":
                parts.append(doc[offsets[i] - 1:offsets[i] + len(physical)])  # (with the line break before it)
            else:  # `# escape=``: Docker drops the escape character and the line break (a shell reads no `)
                last = parts[-1]
                parts[-1] = last[:len(last.text.rstrip()) - 1]
                parts.append(doc[offsets[i]:offsets[i] + len(physical)])
            kept = i
        if not lines[first].lstrip().startswith("#"):
            # BuildKit here-documents (`RUN python - <<'PY'` ... `PY`, `RUN <<EOF` ... `EOF`): the lines up to each
            # delimiter belong to the instruction
            for m in _HEREDOC.finditer("".join(p.text for p in parts)):
                tabs, delim = m.group(1) == "-", m.group(3)
                while i + 1 < len(lines) and i - first < MAX_HEREDOC_LINES:
                    i += 1
                    parts.append(doc[offsets[i] - 1:offsets[i] + len(lines[i])])
                    if (lines[i].lstrip("\t") if tabs else lines[i]) == delim:
                        break
        yield TStr.join(parts), first + 1
        i += 1


_DIRECTIVE = lazyre.compile(r"#[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]*=[ \t]*(\S*)[ \t]*$")


def _escape_char(lines: list) -> str:
    """The line-continuation character of a Dockerfile: ``\\``, or `` ` `` where a ``# escape=`` parser directive
    at its top says so (the Dockerfile reference, "Parser directives": directives only before the first comment,
    empty line or instruction; a Windows image's Dockerfile: field test rw27/h item P26)."""
    for ln in lines[:MAX_DIRECTIVES]:
        m = _DIRECTIVE.match(ln.strip())
        if m is None or m.group(1).lower() not in ("syntax", "escape", "check"):
            break  # (an unknown directive is a comment, and a comment ends the directives)
        if m.group(1).lower() == "escape":
            return "`" if m.group(2) == "`" else "\\"
    return "\\"


#: the parser directives read at a Dockerfile's top (Docker knows three: syntax, escape, check)
MAX_DIRECTIVES = 16


def _form(value: TStr, line: int) -> Form:
    v = value.text.strip()
    if v.startswith("["):
        try:
            items = json.loads(v.replace("\\\n", ""))
        except (ValueError, RecursionError):
            items = None
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            words, search = [], 0
            raw = value.text
            for item in items:
                quoted = json.dumps(item)
                i = raw.find(quoted, search)
                if i < 0:  # escaped differently than json.dumps writes it: placed at the array
                    words.append(TStr.synthetic(item, "<Dockerfile array item>"))
                    continue
                raw_item = value[i + 1:i + len(quoted) - 1]
                if quoted[1:-1] == item or not raw_item.pieces:
                    words.append(raw_item if quoted[1:-1] == item else TStr.synthetic(item, "<Dockerfile array item>"))
                else:  # JSON escapes (`\"`): the item's text, placed where it is written
                    p = raw_item.pieces[0]
                    words.append(TStr.at(item, p.src, p.offset, p.chain, label=p.label))
                search = i + len(quoted)
            return Form(exec_words=words, line=line)
    return Form(shell=value, line=line)


def _env(value: TStr, env: dict) -> dict:
    """``ENV A=1 B="x y"`` or the legacy ``ENV A 1 2`` (one variable, the rest of the line its value), with Docker's
    substitution of the variables set before (:func:`_substitute`; not inside single quotes)."""
    text = value.text
    out: dict = {}
    first = text.split(None, 1)[0] if text.split() else ""
    if "=" in first:
        for m in _ENV_PAIR.finditer(text):
            v = m.group(2)
            a, b = m.start(2), m.end(2)
            quote = v[0] if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'" else ""
            if quote:
                a, b = a + 1, b - 1
            out[m.group(1)] = value[a:b] if quote == "'" else _substitute(value[a:b], {**env, **out})
        return out
    parts = text.split(None, 1)
    if len(parts) == 2:
        i = text.find(parts[1], len(parts[0]))
        out[parts[0]] = _substitute(value[i:i + len(parts[1].rstrip())], env)
    return out


_SUBST = lazyre.compile(r"\\\$|\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def _substitute(value: TStr, env: dict) -> TStr:
    """Docker's variable substitution in an instruction's value (the Dockerfile reference, "Environment
    replacement"): ``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${NAME:+word}`` from the ``ENV`` and ``ARG`` values
    set before; a name nobody set is empty, one only a build argument gives (``ARG TP`` with no default) a value
    pdlint cannot see; ``\\$`` is a ``$``."""
    if "$" not in value.text:
        return value
    parts, last = [], 0
    for m in _SUBST.finditer(value.text):
        parts.append(value[last:m.start()])
        last = m.end()
        if m.group(0) == "\\$":
            parts.append(value[m.start() + 1:m.end()])
            continue
        name = m.group(1) or m.group(4)
        got = env.get(name)
        if m.group(2) == "-":
            if got is None or (not got.opaque and got.text == ""):
                w = m.start(3)
                parts.append(_substitute(value[w:w + len(m.group(3))], env))
            else:
                parts.append(got)
        elif m.group(2) == "+":
            if got is not None and got.opaque:
                parts.append(value[m.start():m.end()].as_opaque())
            elif got is not None and got.text:
                w = m.start(3)
                parts.append(_substitute(value[w:w + len(m.group(3))], env))
        elif got is not None:
            parts.append(got)
    parts.append(value[last:])
    out = TStr.join(parts)
    # (values built from values: `ENV B=$A$A`, `ENV C=$B$B` ... doubles each line)
    return out if len(out.text) <= MAX_EXPANDED else value.as_opaque()


_SHELL_BANG = lazyre.compile(r"#!\s*\S*?(?:/|env\s+)(?:ba|da|a)?sh\b")


def _heredoc_script(body: TStr) -> Optional[TStr]:
    """The text of ``RUN <<EOF`` ... ``EOF`` (the instruction's first here-document, its delimiter line left out);
    None when the instruction does not start with one."""
    text = body.text
    m = _HEREDOC.match(text.lstrip())
    if m is None:
        return None
    start = text.find("\n")
    if start < 0:
        return None
    end = text.rfind("\n")
    return body[start + 1:end] if end > start else body[start + 1:start + 1]


def parse(doc: TStr, build_args: Optional[dict] = None) -> list:
    """The stages of a Dockerfile, in order (at most MAX_STAGES, MAX_INSTRUCTIONS instructions read);
    ``build_args`` (``docker build --build-arg``, Compose ``build.args``) override the ``ARG`` defaults."""
    stages: list = []
    by_name: dict = {}
    args: dict = {}  # ARG values before the first FROM
    given = {k: v for k, v in (build_args or {}).items() if v is not None}
    cur: Optional[Stage] = None
    for count, (item, line) in enumerate(_logical(doc)):
        if count >= MAX_INSTRUCTIONS or len(stages) > MAX_STAGES:
            break
        text = item.text
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _INSTRUCTION.match(text)
        if not m:
            continue
        word = m.group(1).upper()
        value = item[m.end():]
        if word == "ARG" and cur is None:
            a = _ARG.match(value.text.strip())
            if a and a.group("name") in given:
                args[a.group("name")] = given[a.group("name")]
            elif a and a.group("value") is not None:
                args.setdefault(a.group("name"), a.group("value").strip().strip("\"'"))
        elif word == "ARG":  # in a stage: a variable of its RUN lines (the build argument, else the default)
            a = _ARG.match(value.text.strip())
            if a:
                name = a.group("name")
                if name in given or (a.group("value") is None and name in args):
                    cur.env[name] = TStr.synthetic(str(given.get(name, args.get(name))), "<build argument>")
                elif a.group("value") is not None:
                    at = value.text.find("=") + 1
                    v = value[at:len(value.text.rstrip())]
                    if len(v.text) >= 2 and v.text[0] == v.text[-1] and v.text[0] in "\"'":
                        v = v[1:-1]
                    cur.env[name] = _substitute(v, cur.env)
                else:  # given at build time (`--build-arg`), if at all
                    cur.env[name] = TStr.synthetic("${" + name + "}", f"<build argument {name}>", opaque=True)
        elif word == "FROM":
            f = _FROM.match(value.text.strip())
            if not f:
                cur = Stage(str(len(stages)), "", None, line)
            else:
                ref = f.group("image")
                img = _VAR.sub(lambda v: args.get(v.group(1), v.group(0)), ref)
                at = value.text.find(ref)
                tok = value[at:at + len(ref)] if at >= 0 else None
                parent = by_name.get(img.lower())
                cur = Stage(f.group("stage") or str(len(stages)), "" if "$" in img else img, tok, line)
                if parent is not None:  # FROM an earlier stage: its image, entry point, command, environment
                    cur.image, cur.image_tok = parent.image, parent.image_tok
                    cur.env, cur.entry, cur.cmd = dict(parent.env), parent.entry, parent.cmd
                    cur.pins, cur.named = dict(parent.pins), set(parent.named)
            stages.append(cur)
            by_name[cur.name.lower()] = cur
        elif cur is None:
            continue
        elif word == "ENV":
            cur.env.update(_env(value, cur.env))
        elif word == "ENTRYPOINT":
            cur.entry, cur.cmd, cur.own = _form(value, line), None, True
            cur.named.update(_basename(w) for w in _words(value.text))
        elif word == "CMD":
            cur.cmd, cur.own = _form(value, line), True
            cur.named.update(_basename(w) for w in _words(value.text))
        elif word == "RUN":
            flags = _RUN_FLAGS.match(value.text)
            body = value[flags.end():] if flags else value
            script = _heredoc_script(body)
            if script is not None:  # `RUN <<EOF` ... `EOF`: the here-document is the script
                if not script.text.startswith("#!") or _SHELL_BANG.match(script.text):
                    cur.runs.append(Form(shell=script, line=line))
            else:
                cur.runs.append(_form(body, line))
                cur.pins.update(_run_pins(cur.runs[-1], cur.env))  # (a later install wins)
        elif word in ("COPY", "ADD") and len(cur.named) < MAX_NAMED:
            cur.named.update(_basename(w) for w in _words(value.text)[:-1] if not w.startswith("--"))
        if word in ("COPY", "ADD") and "--from=" in value.text and _PACKAGES_DIR.search(value.text):
            # `COPY --from=builder /usr/local/lib/python3.12/dist-packages ...`: the packages that stage installed
            words = value.text.split()
            source = next((w.split("=", 1)[1] for w in words if w.lower().startswith("--from=")), "")
            copied = by_name.get(source.lower())
            paths = [w for w in words if not w.startswith("--")][:-1]
            if copied is not None and copied is not cur and any(_PACKAGES_DIR.search(w) for w in paths):
                cur.pins.update(copied.pins)
    return stages
