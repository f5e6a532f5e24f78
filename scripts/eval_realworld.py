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
        # or: context: "why" (a file the evaluated ones read: not counted)

For every file the script reports whether each expected launch was extracted
with its role (the flags', else the structure's: what pdlint pairs and checks
it as) and with exactly its argv, and the file's coverage status; it
also checks the promise that no file holding launch text passes silently
(every such file has a checked launch or a coverage finding; a file of the
expectation that pdlint does not even scan counts as silent), and counts the
launches pdlint builds that no expected launch is (``-v`` lists them).
``--write`` writes pdlint's current launches as the expectation of files that
have none yet (to be reviewed by hand before they count).

The files are a held-out set collected from public repositories
(EVAL_DIR/SOURCES: repository, path, commit and kind of each, tab-separated).
Each folder is scanned with an empty config of its own (``--config``), so that
EVAL_DIR/.pdlint.yaml can keep the set out of the lint of the repository that
holds it.  ``tests/test_realworld.py`` pins the figures of tests/data/realworld.
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


def scan(repo_dir: str) -> dict:
    """pdlint's launches and coverage of one repository folder (``show --format json``:
    the same extraction and coverage accounting as ``check``)."""
    import tempfile
    from pdlint.cli import main
    old = os.getcwd()
    out = io.StringIO()
    # the files are read as they are upstream: an empty config of its own, not the .pdlint.yaml
    # that keeps the set out of this repository's own lint
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, ".pdlint.yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write("{}\n")
        try:
            os.chdir(repo_dir)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(["show", "--format", "json", "--config", config, "."])
            return json.loads(out.getvalue())
        finally:
            os.chdir(old)


def evaluate(eval_dir: str, expected: dict, write: bool = False, verbose: bool = False) -> tuple:
    """``(totals, rows, wrote)``: the figures, one line per shortfall, and whether ``write``
    added draft expectations to ``expected`` (files it had none for)."""
    repos = sorted(d for d in os.listdir(eval_dir) if os.path.isdir(os.path.join(eval_dir, d)))
    totals = {"files": 0, "launches": 0, "role_ok": 0, "argv_ok": 0, "silent": 0, "spots": 0,
              "files_checked": 0, "extra": 0}
    rows = []
    wrote = False
    for repo in repos:
        doc = scan(os.path.join(eval_dir, repo))
        cov = doc.get("coverage", {}).get("files", {})
        by_file: dict = {}
        for l in doc["launches"]:
            if l.get("kind") == "router":
                l["role"] = "router"
            elif l.get("role") not in ("prefill", "decode") and l.get("structural_role") in ("prefill", "decode"):
                # flags that name no role (vLLM kv_both, a TRT-LLM server without --server-role): the role
                # pdlint pairs and checks it as is the structure's (a CRD field, a sibling file's name)
                l["role"] = l["structural_role"]
            by_file.setdefault(l["path"], []).append(l)
        # a file of the expectation that pdlint did not even scan is listed too
        # (as status "unscanned"): it must not vanish from the figures
        prefix = repo + "/"
        for key in expected:
            if key.startswith(prefix) and key[len(prefix):] not in cov:
                cov[key[len(prefix):]] = {"status": "unscanned", "launches": 0, "unchecked": []}
        for path, fc in sorted(cov.items()):
            key = f"{repo}/{path}"
            exp = expected.get(key)
            if exp is None:
                if write and (fc["launches"] or fc["unchecked"]):
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
            used = set()
            for e in exp.get("launches") or []:
                totals["launches"] += 1
                match = _match(e, got)
                if match is None:
                    rows.append(f"MISSING {key}:{e.get('line')} {e.get('role')}")
                    continue
                used.add(id(match))
                if match.get("role") == e.get("role"):
                    totals["role_ok"] += 1
                else:
                    rows.append(f"ROLE    {key}:{match['line']} got {match.get('role')} want {e.get('role')}")
                if "argv" not in e or match["argv"] == e["argv"]:
                    totals["argv_ok"] += 1
                else:
                    rows.append(f"ARGV    {key}:{match['line']} " + _argv_diff(e["argv"], match["argv"]))
            # launches pdlint built that no expected launch is (a branch that never runs, a duplicate)
            extra = [l for l in got if id(l) not in used and not any(
                l["line"] == e.get("line") and l.get("role") == e.get("role") and l["argv"] == e.get("argv")
                for e in exp.get("launches") or [])]
            totals["extra"] += len(extra)
            if verbose:
                for l in extra:
                    rows.append(f"EXTRA   {key}:{l['line']} {l.get('role')} " + " ".join(l["argv"])[:140])
                for sp in spots:
                    rows.append(f"spot    {key}:{sp['line']} {sp['code']} {sp['reason'][:140]}")
    return totals, rows, wrote


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
    t, rows, wrote = evaluate(ns.eval_dir, expected, ns.write, ns.verbose)
    if ns.write and wrote:
        with open(expect_path, "w", encoding="utf-8") as f:
            yaml.safe_dump({"files": expected}, f, sort_keys=True, width=120)
    for r in rows:
        print(r)
    print(f"\n{t['files']} files evaluated; {t['files_checked']} with a checked launch; "
          f"{t['launches']} expected launches: {t['role_ok']} with their role, {t['argv_ok']} with the exact argv; "
          f"{t['extra']} launches not expected; "
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
