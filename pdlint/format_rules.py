"""Format rules (PD050-PD059): launch files whose *format* makes the launch
differ from what its text suggests (a whole command line in one exec-form
list item, ...).  The format adapters detect them while extracting; each
finding is placed at the text to edit."""

from __future__ import annotations

from typing import Optional

from pdlint.model import ERROR, WARNING, Finding, Related
from pdlint.rules import Rule, register
from pdlint.text import TStr

_C = "formats"

PACKED_ITEM = register(Rule(
    "PD050", "command-line-in-one-list-item", ERROR,
    "Reports an exec-form command list (Kubernetes `command`/`args`, a Compose `entrypoint`/`command` list) whose "
    "single item holds a whole command line (`- python3 -m sglang.launch_server --model-path ...`, or a folded `>` "
    "block) or several flags (`- --tp-size 2`).",
    "An exec-form list is not parsed by a shell: each item is exactly one argument. The kubelet (or Docker) looks "
    "for a program literally named `python3 -m sglang.launch_server --model-path ...`, and the container fails to "
    "start (`executable file not found`); a flag item such as `--tp-size 2` reaches the server as one argument, "
    "which argparse rejects (`unrecognized arguments`). pdlint checks the launch as if the item were split the way "
    "a shell would split it, so the flags are still checked.",
    "Write one list item per argument, or run the line through a shell: `command: [sh, -c]` with the whole line "
    "as the single `args` item.",
    example="command:\n  - python3 -m sglang.launch_server --model-path /models/m --tp-size 2",
    example_fixed="command: [python3, -m, sglang.launch_server]\nargs: [--model-path, /models/m, --tp-size, \"2\"]",
    category=_C))


def finding(rule: Rule, tok: Optional[TStr], message: str, path: str = "", line: int = 1,
            related: tuple = ()) -> Finding:
    """A finding at ``tok`` (its chain of references as related locations), else at ``path:line``."""
    if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
        o = tok.origin
        rel = tuple(related) + tuple(Related(h.path, h.line, h.column, f"via {h.note}") for h in o.chain)
        end = o.column + len(tok.text.split("\n", 1)[0])
        return Finding(o.path, o.line, o.column, rule.code, rule.name, rule.severity, None, message, rel, rule.fix,
                       None, end, token=tok.text)
    return Finding(path or "<unknown>", line, 1, rule.code, rule.name, rule.severity, None, message, tuple(related),
                   rule.fix)


def packed_item_message(tok: TStr, program: bool, runtime: str) -> str:
    shown = " ".join(tok.text.split())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if program:
        return (f"this list item is one argument, not a command line: {runtime} runs a program literally named "
                f"{shown!r}, which does not exist, so the container never starts (pdlint checks the launch as if the "
                f"item were split into words)")
    return (f"this list item reaches the server as ONE argument {shown!r}, which its argument parser rejects "
            f"(unrecognized arguments); pdlint checks it as if split into words")

SRT_OVERRIDE = register(Rule(
    "PD051", "srt-slurm-override-error", ERROR,
    "Reports an srt-slurm override file (`base` plus `override_*` / `zip_override_*` sections) that `srtctl` "
    "refuses to expand: a `zip_override_*` section with no list, an empty list, or lists of two different lengths "
    "other than 1, or a section that is not a mapping; and a recipe's `sweep:` section that is not a mapping of "
    "keys to non-empty lists.",
    "`srtctl apply -f FILE` stops with this error before it submits any job (an empty sweep list makes no job), so "
    "none of the file's variants runs; and pdlint can check only the variants it can expand.",
    "Give every list of a zip section the same length (or length 1 to broadcast it), wrap a list value that must "
    "stay whole in another list (`[[4, 8]]`), or move a setting without a sweep into `base`; give every `sweep:` "
    "key a list of at least one value.",
    example="zip_override_tp:\n  backend:\n    sglang_config:\n      prefill:\n        tensor-parallel-size: [4, 8]\n"
            "        max-running-requests: [64, 128, 256]",
    example_fixed="zip_override_tp:\n  backend:\n    sglang_config:\n      prefill:\n        tensor-parallel-size: [4, 8]\n"
                  "        max-running-requests: [64, 128]",
    category=_C))


DUPLICATE_KEY = register(Rule(
    "PD052", "duplicate-mapping-key", WARNING,
    "Reports a YAML mapping that holds the same key twice on the way to a launch: the container itself, its pod "
    "or workload, or the values section it is in (a rendered template included).",
    "YAML forbids duplicate keys, and tools disagree on what to do with them: kustomize, Flux's post-render and "
    "every yaml.v3 reader reject the file (`mapping key \"containers\" already defined at line 12`), while Helm "
    "and PyYAML keep the last value and silently drop the first. So one of the launches written under the key is "
    "not the one that is deployed, or the deployment fails. A template whose whitespace control differs from its "
    "renderer's (`trim_blocks`, `lstrip_blocks`) produces exactly this: a section glued under the one before it.",
    "Keep one occurrence of the key (merge the two), or fix the template's indentation; if the renderer trims "
    "block tags, tell pdlint (`jinja: {trim-blocks: true, lstrip-blocks: true}`).",
    example="decode:\n  containers:\n    - name: vllm\n      args: [--port, \"8200\"]\n  containers:\n    - name: vllm\n"
            "      args: [--port, \"8000\"]",
    example_fixed="decode:\n  containers:\n    - name: vllm\n      args: [--port, \"8200\"]\nprefill:\n  containers:\n"
                  "    - name: vllm\n      args: [--port, \"8000\"]",
    category=_C))


def duplicate_key_message(keys: list, first_line: int, rendered: bool) -> str:
    """``keys``: the keys this mapping holds twice, in order (the first of them reported at its second place)."""
    if len(keys) == 1:
        what = f"key {keys[0]!r} appears twice in this mapping (first at line {first_line})"
    else:
        shown = ", ".join(repr(k) for k in keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
        what = f"keys {shown} appear twice in this mapping ({keys[0]!r} first at line {first_line})"
    msg = (f"{what}: kustomize, Flux and yaml.v3 readers reject the file, Helm and PyYAML keep the last value and "
           f"drop the first, so a launch written under such a key is not the one deployed")
    if rendered:
        msg += " (a rendered template: check that pdlint trims block tags as its renderer does)"
    return msg
