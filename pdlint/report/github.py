"""``--format github``: GitHub Actions workflow commands, one per finding, so
that a CI step shows each finding as an annotation on the line to edit::

    ::error title=pdlint (SGL101),file=k8s/app.yaml,line=9,col=5,endColumn=35::[prefill] --enable-... (SGL101)

The ``related:`` locations of the text output are appended to the message
(annotations have one location).  Values are escaped as the Actions runner
unescapes them (``actions/runner`` ``ActionCommand.cs``; the toolkit's
``escapeData`` / ``escapeProperty``): ``%`` as ``%25``, CR as ``%0D``, LF as
``%0A``; in properties also ``:`` as ``%3A`` and ``,`` as ``%2C``.  Before
that, the control characters of paths, messages and notes are escaped
(:mod:`pdlint.report.escape`), so only pdlint's own line breaks reach the
annotation.
"""

from __future__ import annotations

from pdlint.report import escape as esc, role_label


def render(findings: list) -> str:
    out = []
    for f in findings:
        # (the file property is the name itself, escaped once, as the runner unescapes it: the reversible `%XX`
        # form of other formats, escaped again, named no file, field test rw20/h)
        props = [f"title={_prop(f'pdlint ({f.code})')}", f"file={_prop(esc.text(f.path))}", f"line={f.line}",
                 f"col={f.column}"]
        end_line = f.end_line or f.line
        if end_line > f.line:
            props.append(f"endLine={end_line}")
        if f.end_column and (end_line > f.line or f.end_column > f.column):
            props.append(f"endColumn={f.end_column}")
        # each part's own control characters escaped first (pdlint.report.escape): only the
        # newlines pdlint puts between the parts remain, and those become %0A
        text = (f"[{esc.text(role_label(f.role))}] " if f.role else "") + f"{esc.text(f.message)} ({f.code} {f.name})"
        for r in f.related:
            text += f"\nrelated: {esc.path(r.path)}:{r.line}:{r.column}: {esc.text(r.note)}"
        if f.fix:
            text += f"\nhelp: {esc.text(f.fix)}"
        level = "error" if f.severity == "error" else "warning"
        out.append(f"::{level} {','.join(props)}::{_data(text)}")
    return "".join(line + "\n" for line in out)


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")
