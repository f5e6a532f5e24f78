"""Human output: ``path:line:col: CODE [role] message``, the source line with a
caret under the token (as actionlint prints), ``related:`` lines for every
other location involved, then a summary."""

from __future__ import annotations

import os
import sys
from typing import Optional

from pdlint.report import escape as esc, role_label

_COLORS = {"error": "\033[31m", "warning": "\033[33m", "code": "\033[1m", "dim": "\033[2m", "reset": "\033[0m"}


def use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


#: columns of a source line quoted under a finding, and how many of them before the token
SNIPPET_COLUMNS = 160
SNIPPET_LEAD = 60


def render(findings: list, sources: dict, files: int, color: bool = False, show_fix: bool = True,
           summary: bool = True, coverage=None, left_out: Optional[set] = None,
           named: Optional[set] = None) -> str:
    """The report.  Paths, messages, source lines and hints come from the scanned
    files: they are escaped (:mod:`pdlint.report.escape`) so that none can start a
    line of its own, forge a finding or a CI annotation, or send a terminal escape."""
    c = _COLORS if color else {k: "" for k in _COLORS}
    out = []
    for f in findings:
        role = f" [{esc.text(role_label(f.role))}]" if f.role else ""
        out.append(f"{esc.path(f.path)}:{f.line}:{f.column}: {c['code']}{f.code}{c['reset']}{role} "
                   f"{c[f.severity]}{f.severity}{c['reset']}: {esc.text(f.message)}")
        src = sources.get(f.path)
        if src is not None:
            text = src.line_text(f.line)
            if text.strip():
                column = f.column
                width = max(1, (f.end_column or f.column + 1) - f.column)
                width = min(width, max(1, len(text) - f.column + 1))
                if len(text) > SNIPPET_COLUMNS:
                    # a window of a long line around the token: the whole line under each of many findings on it
                    # was N x its length (field test rw24/h: 6,000 flags on one 53 KB line, a MemoryError, exit 2)
                    start = max(0, min(column - 1 - SNIPPET_LEAD, len(text) - SNIPPET_COLUMNS))
                    end = start + SNIPPET_COLUMNS
                    width = max(1, min(width, end - (column - 1)))
                    text = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
                    column += (3 if start else 0) - start
                text = text.expandtabs(1)
                # the caret under the token as displayed (escapes make some characters wider)
                before, under = text[:column - 1], text[column - 1:column - 1 + width]
                pad = len(esc.text(before)) + (column - 1 - len(before))
                width = len(esc.text(under)) + (width - len(under))
                caret = " " * pad + "^" + "~" * (max(1, width) - 1)
                out.append(f"  {f.line:>4} | {esc.text(text)}")
                out.append(f"       | {c[f.severity]}{caret}{c['reset']}")
        for r in f.related:
            out.append(f"  {c['dim']}related: {esc.path(r.path)}:{r.line}:{r.column}: {esc.text(r.note)}{c['reset']}")
        if show_fix and f.fix:
            out.append(f"  help: {esc.text(f.fix)}")
    if not summary:
        return esc.lines("".join(line + "\n" for line in out))
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    if findings:
        out.append("")
    noun = "file" if files == 1 else "files"
    if coverage is not None:
        out.append(coverage_line(coverage, files, left_out))
        if disabled_line(coverage):
            out.append(disabled_line(coverage))
        if coverage.unpaired_summary():
            out.append(coverage.unpaired_summary() + ".")
        undecided = coverage.undecided_summary(named)
        if undecided:
            out.append(esc.text(undecided) + ".")
    # findings in files the run did not scan (the bases of a kustomization named on the command line): counted
    # too, not left to look like some of the run's files (hostile-input round rw29/h P3)
    other = len({f.path for f in findings} - set(coverage.files)) if coverage is not None and coverage.files else 0
    also = f" and {other} other file{'s' if other != 1 else ''} they read" if other else ""
    out.append(f"Found {errors} error{'s' if errors != 1 else ''} and {warnings} warning"
               f"{'s' if warnings != 1 else ''} in {files} {noun}{also}.")
    return esc.lines("\n".join(out) + "\n")


def coverage_line(cov, files: int, left_out: Optional[set] = None) -> str:
    """What was checked: never a bare "0 errors" when launch text went unchecked.  ``left_out``: the files whose
    findings the report left out (a pre-commit run reports only what involves the named files); one of them not
    checked is named, not pointed at "above" (field test rw20/h)."""
    failed_paths = sorted(p for p, f in cov.files.items() if f.status == "error")
    failed = len(failed_paths)
    unseen = [p for p in failed_paths if left_out and p in left_out]
    where = (f"see above" if not unseen else
             ("; ".join(esc.path(p) for p in unseen[:3]) + (" and others" if len(unseen) > 3 else "") +
              ": check " + ("it" if len(unseen) == 1 else "them") + " to see why" +
              ("; the others: see above" if len(unseen) < failed else "")))
    if failed and not cov.launches and not cov.unchecked:
        # (an invalid config: its files were not read at all, so nobody knows whether they hold launch text;
        # field test rw19/c: this said "No launch text found" over three launches)
        return f"{failed} of {files} file{'s' if files != 1 else ''} not checked ({where}); no launch checked."
    if not cov.launches and not cov.unchecked:
        if not files:  # (not "found in 0 files": nothing was read, field round rw33/a)
            return "No files checked."
        return f"No launch text found in {files} file{'s' if files != 1 else ''}."
    if not cov.launches:
        n = cov.unchecked
        return (f"No launch checked: {n} place{'s' if n != 1 else ''} with launch text not checked "
                f"(pdlint could not turn them into launches; see the findings above).")
    line = cov.summary() + "."
    if failed:
        line += f" {failed} file{'s' if failed != 1 else ''} not checked ({where})."
    return line


def disabled_line(cov) -> str:
    """The files whose launches no enabled rule judged (coverage status ``disabled``), or "": their launches are
    counted as read, and a run must not look as if rules had passed them."""
    items = sorted((p, f) for p, f in cov.files.items() if f.status == "disabled")
    if not items:
        return ""
    n = sum(f.launches for _, f in items)
    shown = "; ".join(f"{esc.path(p)} (by {esc.text(f.disabled_by or '?')})" for p, f in items[:3])
    more = f"; and {len(items) - 3} more" if len(items) > 3 else ""
    one = len(items) == 1
    return (f"Every rule that judges launches is disabled for {len(items)} file{'' if one else 's'}, so nothing was "
            f"reported about {'its' if one else 'their'} {n} launch{'' if n == 1 else 'es'}: {shown}{more}.")


def write(text: str, stream=None) -> None:
    (stream or sys.stdout).write(text)
