"""``--format gitlab``: a GitLab Code Quality report, the JSON a CI job gives as
``artifacts: reports: codequality`` so that merge requests show each finding
(GitLab's "Code Quality" widget and diff annotations)::

    [{"check_name": "SGL101", "description": "[prefill] ... (SGL101 role-only-flag)",
      "fingerprint": "9c1...", "severity": "major",
      "location": {"path": "k8s/app.yaml", "lines": {"begin": 9, "end": 9}}}]

Paths are relative to the git work tree (GitLab resolves them against the
repository root, whatever the job's working directory).  Severity: an error is
``major``, a warning ``minor``.  The fingerprint is what GitLab compares between
a merge request and its target branch to tell new findings from fixed ones: it
is the finding's baseline key (:mod:`pdlint.baseline`: path, code, role and the
flag or text it points at, never a line number) and its occurrence among the
findings of that key, so a finding keeps its fingerprint when lines move.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from pdlint.report import escape as esc, role_label


def render(findings: list, root: str) -> str:
    """``findings`` with paths relative to ``root`` (:func:`pdlint.report.repository_paths`)."""
    from pdlint.baseline import key_of
    seen: Counter = Counter()
    out = []
    for f in findings:
        k = key_of(f, root, root)
        base = json.dumps([k.path, k.code, k.role, k.kind, k.text])
        seen[base] += 1
        fingerprint = hashlib.sha256(f"{base}\n{seen[base]}".encode("utf-8", "surrogateescape")).hexdigest()
        text = (f"[{role_label(f.role)}] " if f.role else "") + f"{f.message} ({f.code} {f.name})"
        out.append({
            "check_name": f.code,
            "description": esc.utf8(text),
            "fingerprint": fingerprint,
            "severity": "major" if f.severity == "error" else "minor",
            "location": {"path": esc.name(f.path), "lines": {"begin": f.line, "end": max(f.end_line or f.line, f.line)}},
        })
    return esc.json_text(json.dumps(out, indent=2, ensure_ascii=False)) + "\n"
