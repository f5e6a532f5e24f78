"""Shell evaluator fidelity on hostile input (hostile-input round rw27/h, worktree w8).

Each item of the round's report has a test that failed before its fix and one showing the common case stays as it
was.  Ground truth is bash itself (the argv a script runs) and the SGLang 0.5.23 oracle for the verdicts:

* P25: ``$((10#$P - 6))`` is valid bash (a base prefix before an expansion) that tree-sitter-bash 0.25 does not
  read; pdlint evaluated it and also reported PD009.
"""

from __future__ import annotations

from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr

LAUNCH = "python3 -m sglang.launch_server"


def _run(script: str):
    reports = []
    ctx = ShellContext(lambda p, c: None, lambda code, msg, *a: reports.append((code, msg)))
    cmds = shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx)
    return cmds, reports


def argv(script: str) -> list:
    return [[w.text for w in c.words] for c in _run(script)[0]]


def words(script: str) -> list:
    """(text, opaque) of each word of each command."""
    return [[(w.text, w.opaque) for w in c.words] for c in _run(script)[0]]


def reports(script: str) -> list:
    return [code for code, _ in _run(script)[1]]


def _codes(report, *codes):
    return [f["code"] for f in report["findings"] if not codes or f["code"] in codes]


# --- P25: base-prefixed arithmetic ---------------------------------------------------------------------------------

def test_p25_base_prefix_before_an_expansion_is_not_a_syntax_error():
    script = f"P=08\n{LAUNCH} --model-path /m --tp-size $((10#$P - 6))\n"
    assert argv(script)[-1][-2:] == ["--tp-size", "2"]
    assert "PD-SHELL-PARSE" not in reports(script)


def test_p25_broken_arithmetic_is_still_a_syntax_error():
    assert "PD-SHELL-PARSE" in reports(f"P=08\n{LAUNCH} --model-path /m --tp-size $((10#$P - 6 +* ))\n")
