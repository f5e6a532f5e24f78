"""``--format github``: GitHub Actions workflow commands, one per finding, so
that a CI step shows each finding as an annotation on the line to edit::

    ::error title=pdlint (SGL101),file=k8s/app.yaml,line=9,col=5,endColumn=35::[prefill] --enable-... (SGL101)

The ``related:`` locations of the text output are appended to the message
(annotations have one location).  Values are escaped as the Actions toolkit
escapes them (``%``, CR, LF; plus ``:`` and ``,`` in properties).
"""

from __future__ import annotations


def render(findings: list) -> str:
    out = []
    for f in findings:
        props = [f"title={_prop(f'pdlint ({f.code})')}", f"file={_prop(f.path)}", f"line={f.line}",
                 f"col={f.column}"]
        if f.end_column and f.end_column > f.column:
            props.append(f"endColumn={f.end_column}")
        text = (f"[{f.role}] " if f.role else "") + f"{f.message} ({f.code} {f.name})"
        for r in f.related:
            text += f"\nrelated: {r.path}:{r.line}:{r.column}: {r.note}"
        if f.fix:
            text += f"\nhelp: {f.fix}"
        level = "error" if f.severity == "error" else "warning"
        out.append(f"::{level} {','.join(props)}::{_data(text)}")
    return "".join(line + "\n" for line in out)


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")
