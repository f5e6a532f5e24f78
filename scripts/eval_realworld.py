#!/usr/bin/env python3
"""Measure pdlint on real launch files it has never seen (issue 8's coverage figure).

    python scripts/eval_realworld.py EVAL_DIR [--expect EXPECT.yaml] [--write]

EVAL_DIR holds one folder per repository (``owner__repo``), each a copy of the
repository's files at the paths they have upstream (so sourced scripts, values
files and includes resolve as they would in the repository).  ``EXPECT.yaml``
(default: EVAL_DIR/expected.yaml) lists, per evaluated file, the launches a
human reviewed::

    files:
      owner__repo/path/to/file.sh:
        source: owner/repo@commit
        launches:              # in file order
          - {line: 12, role: prefill, argv: [--model-path, /m, ...]}
          - {line: 30, role: router}
        # or: no_launches: "why this file has none"

For every file the script reports whether each expected launch was extracted
with its role and with exactly its argv, and the file's coverage status; it
also checks the promise that no file holding launch text passes silently
(every such file has a checked launch or a coverage finding).  ``--write``
writes pdlint's current launches as the expectation of files that have none
yet (to be reviewed by hand before they count).

The files themselves are not part of the repository: they are a held-out set,
collected from public repositories (see EVAL_DIR/SOURCES).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)


def scan(repo_dir: str) -> tuple:
    """pdlint's launches and coverage of one repository folder (``show --format json``)."""
    from pdlint.cli import main
    old = os.getcwd()
    out = io.StringIO()
    try:
        os.chdir(repo_dir)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            main(["show", "--format", "json", "."])
        doc = json.loads(out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()) as chk, contextlib.redirect_stderr(io.StringIO()):
            main(["check", "--format", "json", "--exit-zero", "."])
        findings = json.loads(chk.getvalue())["findings"]
    finally:
        os.chdir(old)
    return doc, findings


def main(argv=None) -> int:
    import yaml
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("eval_dir")
    ap.add_argument("--expect")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    ns = ap.parse_args(argv)
    expect_path = ns.expect or os.path.join(ns.eval_dir, "expected.yaml")
    expected = {}
    if os.path.exists(expect_path):
        with open(expect_path, encoding="utf-8") as f:
            expected = (yaml.safe_load(f) or {}).get("files", {}) or {}
    repos = sorted(d for d in os.listdir(ns.eval_dir) if os.path.isdir(os.path.join(ns.eval_dir, d)))
    totals = {"files": 0, "launches": 0, "role_ok": 0, "argv_ok": 0, "silent": 0, "spots": 0,
              "files_checked": 0}
    rows = []
    wrote = False
    for repo in repos:
        doc, findings = scan(os.path.join(ns.eval_dir, repo))
        cov = doc.get("coverage", {}).get("files", {})
        by_file: dict = {}
        for l in doc["launches"]:
            if l.get("kind") == "router":
                l["role"] = "router"
            by_file.setdefault(l["path"], []).append(l)
        for path, fc in sorted(cov.items()):
            key = f"{repo}/{path}"
            exp = expected.get(key)
            if exp is None:
                if ns.write and (fc["launches"] or fc["unchecked"]):
                    expected[key] = {"launches": [{"line": l["line"], "role": l["role"], "argv": l["argv"]}
                                                  for l in by_file.get(path, [])], "reviewed": False}
                    wrote = True
                continue
            if exp.get("context"):
                continue  # a file the evaluated ones read (sourced script, values file): not counted
            totals["files"] += 1
            got = by_file.get(path, [])
            spots = fc.get("unchecked", [])
            totals["spots"] += len(spots)
            if got:
                totals["files_checked"] += 1
            if (fc["status"] != "none" or exp.get("launches")) and not got and not spots:
                totals["silent"] += 1
                rows.append(f"SILENT  {key}: launch text, no checked launch and no coverage finding")
            for i, e in enumerate(exp.get("launches") or []):
                totals["launches"] += 1
                match = _match(e, got)
                if match is None:
                    rows.append(f"MISSING {key}:{e.get('line')} {e.get('role')}")
                    continue
                if match.get("role") == e.get("role"):
                    totals["role_ok"] += 1
                else:
                    rows.append(f"ROLE    {key}:{match['line']} got {match.get('role')} want {e.get('role')}")
                if "argv" not in e or match["argv"] == e["argv"]:
                    totals["argv_ok"] += 1
                else:
                    rows.append(f"ARGV    {key}:{match['line']} " + _argv_diff(e["argv"], match["argv"]))
            if ns.verbose:
                for s in spots:
                    rows.append(f"spot    {key}:{s['line']} {s['code']} {s['reason'][:140]}")
    if ns.write and wrote:
        with open(expect_path, "w", encoding="utf-8") as f:
            yaml.safe_dump({"files": expected}, f, sort_keys=True, width=120)
    for r in rows:
        print(r)
    t = totals
    print(f"\n{t['files']} files evaluated; {t['files_checked']} with a checked launch; "
          f"{t['launches']} expected launches: {t['role_ok']} with their role, {t['argv_ok']} with the exact argv; "
          f"{t['spots']} coverage findings; {t['silent']} files with launch text passed silently")
    return 0


def _match(e: dict, got: list):
    same_line = [l for l in got if l["line"] == e.get("line")]
    pool = same_line or got
    for l in pool:
        if l.get("role") == e.get("role") and ("argv" not in e or l["argv"] == e["argv"]):
            return l
    return pool[0] if same_line else None


def _argv_diff(want: list, got: list) -> str:
    import difflib
    d = [x for x in difflib.ndiff(want, got) if x[:1] in "+-"]
    return " ".join(d[:8]) + (" ..." if len(d) > 8 else "")


if __name__ == "__main__":
    raise SystemExit(main())
