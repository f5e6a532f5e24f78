"""The SGLang checks pdlint does not decide, and why.

``data/unchecked-<version>.json`` (written by ``scripts/gen_sglang_unchecked.py``
from the validation catalog) holds the checks whose outcome needs the model
checkpoint (``MODEL``) or the serving node (``PLATFORM``); ``docs/rules.md``
lists them after the rules.
"""

from __future__ import annotations

import json
import os

from pdlint.engines.sglang.flags import DATA

VERSION = "0.5.23"
REASONS = {
    "MODEL": "needs the checkpoint's `config.json` (architecture such as DeepSeek DSA/V4, Qwen4-Exp, MiniMax or "
             "MiniCPM; MLA, sliding-window or Mamba layers; quantization). A launch file names the model; the "
             "checkpoint is on the serving node or a model hub, and pdlint reads neither.",
    "PLATFORM": "needs the serving node: GPU generation, CUDA/ROCm/NPU, the host's InfiniBand devices, files or "
                "installed packages.",
}


def load(version: str = VERSION) -> list:
    with open(os.path.join(DATA, f"unchecked-{version}.json"), encoding="utf-8") as f:
        return json.load(f)["checks"]


def markdown(rules, version: str = VERSION) -> str:
    """The docs section: every check not decided, its reason, and the pdlint rules that cover the part of
    it that the flags decide (same ``upstream_id``)."""
    checks = load(version)
    covered: dict = {}
    for r in rules:
        if r.upstream_id:
            covered.setdefault(r.upstream_id, []).append(r.code)
    out = ["## SGLang checks pdlint does not decide", "",
           f"{len(checks)} checks of SGLang {version}'s validation catalog (`research/sglang-rules.md`) depend on "
           "more than a launch file says, so no rule reports them:", ""]
    for cls, reason in REASONS.items():
        out.append(f"- **{cls}** ({sum(c['class'] == cls for c in checks)}): {reason}")
    out += ["", "Where part of a check is decidable from the flags, the rule that checks that part is named.", "",
            "| Check | Class | Role | When SGLang rejects | Message | Source | Checked part |",
            "|---|---|---|---|---|---|---|"]
    for c in checks:
        part = ", ".join(f"[{code}](#{code.lower()}-{_name(rules, code)})" for code in covered.get(c["id"], []))
        out.append(f"| `{c['id']}` | {c['class']} | {c['role']} | {c['condition']} | {c['message']} | "
                   f"{c['source']} | {part or '-'} |")
    out.append("")
    return "\n".join(out)


def _name(rules, code: str) -> str:
    return next(r.name for r in rules if r.code == code)
