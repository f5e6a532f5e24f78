#!/usr/bin/env python3
"""Replay the real PD incidents of ``tests/data/incidents/incidents.yaml`` through pdlint.

Each incident's files are written to a fresh directory and checked with ``pdlint check --format json`` (its
``.pdlint.yaml`` pins the release the reporter ran).  An incident is *caught* when pdlint reports one of its
``expect`` codes; a *false error* is an error-severity finding whose code is in neither ``expect`` nor
``allowed``.  Prints one line per incident and the figures::

    python scripts/replay_incidents.py            # exit 1 when below 16 caught of 20, or any false error
    python scripts/replay_incidents.py --verbose  # with every finding's message
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
INCIDENTS = os.path.join(REPO, "tests", "data", "incidents", "incidents.yaml")


def load(path: str = INCIDENTS) -> list:
    import yaml
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def run_one(incident: dict, root: str) -> dict:
    """Write the incident's files under ``root`` and check them; the result's ``caught``/``false_errors``."""
    sys.path.insert(0, REPO)
    from pdlint.cli import main
    paths = []
    for rel, text in incident["files"].items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        if not rel.startswith("."):
            paths.append(rel)
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(root)
        with contextlib.redirect_stdout(out):
            main(["check", "--format", "json", "--exit-zero", "--no-cache", *sorted(paths)])
    finally:
        os.chdir(cwd)
    doc = json.loads(out.getvalue())
    expect = set(incident.get("expect") or ())
    allowed = expect | set(incident.get("allowed") or ())
    found = [f for f in doc["findings"]]
    caught = sorted({f["code"] for f in found if f["code"] in expect})
    false = [f for f in found if f["severity"] == "error" and f["code"] not in allowed]
    return {"id": incident["id"], "thread": incident["thread"], "caught": bool(caught), "codes": caught,
            "false_errors": false, "findings": found, "miss": incident.get("miss")}


def replay(incidents: list) -> list:
    out = []
    for inc in incidents:
        with tempfile.TemporaryDirectory() as tmp:
            out.append(run_one(inc, tmp))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--incidents", default=INCIDENTS)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)
    incidents = load(a.incidents)
    results = replay(incidents)
    for inc, r in zip(incidents, results):
        mark = "caught" if r["caught"] else "MISSED"
        sev = sorted({f["severity"] for f in r["findings"] if f["code"] in r["codes"]})
        print(f"{mark:7} {r['id']:28} {r['thread']:40} {','.join(r['codes']) or '-'} ({'/'.join(sev) or '-'})"
              + (f"  false errors: {[f['code'] for f in r['false_errors']]}" if r["false_errors"] else ""))
        if not r["caught"] and r["miss"]:
            print(f"        why: {r['miss']}")
        if a.verbose:
            for f in r["findings"]:
                print(f"        {f['path']}:{f['line']} {f['code']} {f['severity']}: {f['message'][:200]}")
    caught = sum(r["caught"] for r in results)
    false = sum(len(r["false_errors"]) for r in results)
    print(f"caught {caught} of {len(results)} incidents; {false} false errors")
    return 0 if caught >= 0.8 * len(results) and not false else 1


if __name__ == "__main__":
    raise SystemExit(main())
