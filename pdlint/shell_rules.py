"""Shell-text rules (PD060-PD069): shell command lines whose layout makes the
launch differ from what its text suggests.  They are checked on every shell
text pdlint evaluates - scripts, rendered ``*.sh.j2`` templates, ``sh -c``
strings in YAML - after rendering, so a template line that renders to an
empty line counts as the blank line it is."""

from __future__ import annotations

from typing import Optional

from pdlint import lazyre
from pdlint.model import ERROR, WARNING, Finding, Related
from pdlint.rules import Rule, register
from pdlint.text import TStr

_C = "shell"

BROKEN_CONTINUATION = register(Rule(
    "PD060", "broken-line-continuation", ERROR,
    "Reports flags on a line of their own after a command whose `\\` line continuation is broken: by a blank line "
    "(a template tag that renders to an empty line is one), by a comment line, by a blank written after the "
    "`\\`, or missing (a launch written over several lines of a script or a YAML `|` block with no `\\` at "
    "all).",
    "A `\\` continues a command only when it is the last character of its line and the next line belongs to the "
    "command. A blank or comment line ends the command there: the server starts without the flags below, and the "
    "shell then runs those flags as a command of their own (`--tp-size: command not found`). Jinja templates hit "
    "this when a `{% if %}` line between two continued lines renders to an empty line (no `trim_blocks`, or a "
    "deploy tool that renders differently from the author's).",
    "Remove the blank or comment line (move comments above the command, or use `{%- ... %}` in a template), "
    "and delete blanks after the `\\`. If the tool that renders the template sets Jinja's `trim_blocks` / "
    "`lstrip_blocks` (so the line is never blank there), tell pdlint: `[tool.pdlint.jinja] trim-blocks = true` "
    "(`jinja: {trim-blocks: true, lstrip-blocks: true}` in .pdlint.yaml).",
    example="python3 -m sglang.launch_server --model-path /m \\\n\n  --disaggregation-mode prefill",
    example_fixed="python3 -m sglang.launch_server --model-path /m \\\n  --disaggregation-mode prefill",
    notes="A break made only of a template's block-tag lines is a warning, not an error, when no "
          "`[tool.pdlint.jinja]` says how templates render and a Python file of the repository creates a Jinja "
          "`Environment(..., trim_blocks=True)` (its generator renders them so: ai-dynamo/aiconfigurator): the "
          "command is whole where it is deployed, so pdlint renders that template with `trim_blocks` and checks the "
          "command whole; the warning, at the tag lines, says so until the config says how templates render.",
    category=_C))

PLACEHOLDER_REDIRECT = register(Rule(
    "PD061", "placeholder-redirection", WARNING,
    "Reports a `<name>` placeholder written unquoted in a shell command line (`--model <model-path>`).",
    "The shell reads `<name>` as two redirections: `< name` (stdin from a file called `name`) and `>`, whose "
    "target is the next word. That word - often the next flag - becomes the name of an output file and never "
    "reaches the server, and the flag before the placeholder takes the word after that as its value "
    "(`--model <model-path> --served-model-name <name> --kv-transfer-config '{...}'` runs `--model '{...}'`). If "
    "the file cannot be opened the command does not run at all.",
    "Replace the placeholder with the real value, or quote it (`\"<model-path>\"`) if it is meant to be filled in "
    "by hand.",
    example="vllm serve --model <model-path> \\\n  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}'",
    example_fixed="vllm serve --model /models/Qwen3-8B \\\n  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}'",
    category=_C))

_FLAG = lazyre.compile(r"--?[A-Za-z][\w.-]*")
_TRAILING_BLANK = lazyre.compile(r"(?<!\\)(?:\\\\)*\\[ \t]+$")
_CONTINUED = lazyre.compile(r"(?<!\\)(?:\\\\)*\\$")


def _launch_text(line: str) -> bool:
    from pdlint.coverage import MARKER
    return MARKER.search(line) is not None


def _in_yaml(path: str) -> bool:
    """Is the script written in a YAML file (a `|` block of a manifest or workflow, also in its Jinja template or
    a Helm chart's ``.tpl``), whose layout the message names, rather than in a shell script of its own?"""
    from pdlint.discover import JINJA_EXT, YAML_EXT
    name = path.lower()
    if name.endswith(JINJA_EXT):
        name = name.rsplit(".", 1)[0]
    return name.endswith(YAML_EXT + (".tpl",))


def orphaned_flags(doc: TStr, start: int, words: list) -> Optional[Finding]:
    """PD060 for the command starting at ``doc[start]`` when it begins a line
    with a flag and the command above it was cut off from it; else None."""
    text = doc.text
    if not words or not _FLAG.fullmatch(words[0].text.split("=", 1)[0]):
        return None
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return None  # not the first command of its line
    breaks = []  # (offset, kind) of the blank / comment lines skipped, nearest first
    end = line_start - 1  # the newline ending the line above
    while end > 0:
        prev_start = text.rfind("\n", 0, end) + 1
        line = text[prev_start:end]
        stripped = line.strip()
        if not stripped:
            breaks.append((prev_start, "a blank line"))
        elif stripped.startswith("#"):
            breaks.append((prev_start + line.index("#"), "a comment line"))
        else:
            break
        end = prev_start - 1
    if end <= 0:
        return None
    above_start = text.rfind("\n", 0, end) + 1
    above = text[above_start:end]
    fix = BROKEN_CONTINUATION.fix
    if breaks and _CONTINUED.search(above.rstrip(" \t")):
        at, kind = breaks[-1]  # the first break after the continued line
        why = f"{kind} after the `\\` continuation ends the command above"
    elif not breaks and _TRAILING_BLANK.search(above):
        at, kind = above_start + len(above.rstrip(" \t")), "a blank after the `\\`"
        why = ("the `\\` at the end of the line above is followed by a blank, so it escapes the blank instead of "
               "continuing the line, and the command ends there")
    elif not breaks and above.strip() and (_FLAG.match(above.strip()) or _launch_text(above)) \
            and not above.rstrip(" \t").endswith(("\\", "|", "&&", "||", "(", "{")):
        # a launch written over several lines with no `\` at all: in a script (a YAML `|` block is one) each
        # line is a command of its own
        at, kind = above_start + len(above.rstrip(" \t")), "the end of a line without `\\`"
        if _in_yaml(words[0].origin.path):
            fix = ("End every line of the command but the last with `\\`, or write the YAML block with `>` (folded "
                   "into one line) instead of `|`.")
            why = ("the line above does not end with `\\`, so the command ends there (in a YAML `|` block every "
                   "line is a line of the script: fold it with `>` or end the lines with `\\`)")
        else:
            fix = "End every line of the command but the last with `\\`."
            why = ("the line above does not end with `\\`, so the command ends there (in a shell script every line "
                   "is a command of its own: end the lines with `\\`)")
    else:
        return None
    flags = " ".join(w.text for w in words[:6]) + (" ..." if len(words) > 6 else "")
    o = words[0].origin
    if o.path.startswith("<"):
        return None
    where = doc.origin_at(at) if doc.pieces else None
    cont = doc.origin_at(above_start + len(above.rstrip(" \t")) - 1) if doc.pieces else None
    related = []
    if where is not None and not where.path.startswith("<"):
        related.append(Related(where.path, where.line, where.column, f"the command is cut here ({kind})"))
    if breaks and cont is not None and not cont.path.startswith("<"):
        related.append(Related(cont.path, cont.line, cont.column, "the `\\` that was meant to continue it"))
    message = f"these flags never reach the launch: {why}, so `{flags}` runs as a command of its own"
    return Finding(o.path, o.line, o.column, BROKEN_CONTINUATION.code, BROKEN_CONTINUATION.name,
                   BROKEN_CONTINUATION.severity, None, message, tuple(related), fix,
                   end_column=o.column + len(words[0].text), token=words[0].text)
