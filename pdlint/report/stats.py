"""``--statistics``: how many findings each rule produced (as ruff prints it),
most frequent first, then by code::

    3	SGL101	error	linear-replayssm-spec-on-prefill

``--format json`` gives the same as a list of
``{"code", "name", "severity", "count"}``.
"""

from __future__ import annotations

import json


def counts(findings: list) -> list:
    from pdlint.rules import code_key
    by_code: dict = {}
    for f in findings:
        row = by_code.setdefault(f.code, {"code": f.code, "name": f.name, "severity": f.severity, "count": 0})
        row["count"] += 1
    return sorted(by_code.values(), key=lambda r: (-r["count"], code_key(r["code"])))


def render(findings: list, fmt: str = "text") -> str:
    rows = counts(findings)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = len(str(rows[0]["count"]))
    code_width = max(len(r["code"]) for r in rows)
    sev_width = max(len(r["severity"]) for r in rows)
    return "".join(f"{r['count']:>{width}}\t{r['code']:<{code_width}}\t{r['severity']:<{sev_width}}\t{r['name']}\n"
                   for r in rows)
