#!/usr/bin/env python3
"""List the SGLang checks pdlint does not decide, for docs/rules.md.

Reads the validation catalog (``../shared/research/sglang-rules.md``: one
markdown table row per SGLang check, with a ``Class`` column) and writes
``pdlint/engines/sglang/data/unchecked-<version>.json``: every row whose class
is ``MODEL`` (needs the checkpoint's config) or ``PLATFORM`` (needs the GPU,
ROCm/NPU detection or the host), with its role, condition, message, source
and the section it stands in.  ``pdlint rules --format markdown`` lists them
with the reason they are not checked, and names the pdlint rules that cover
the flag-decidable part of a row (same ``upstream_id``).

Usage: python scripts/gen_sglang_unchecked.py [--catalog PATH] [--version 0.5.23] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "pdlint", "engines", "sglang", "data")
CATALOG = os.path.join(os.path.dirname(REPO), "shared", "research", "sglang-rules.md")
CLASSES = ("MODEL", "PLATFORM")


def _cells(line: str) -> list:
    """A markdown table row's cells; a ``|`` inside backticks stays in its cell."""
    cells, cur, code = [], [], False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    cells.append("".join(cur).strip())
    return cells


def rows(text: str) -> list:
    """(section, {column: cell}) for every table row whose first column is ``ID``."""
    out, header, section = [], None, ""
    for line in text.splitlines():
        if line.startswith("#"):
            section, header = line.lstrip("#").strip(), None
            continue
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if header[0] == "ID":
            out.append((section, dict(zip(header, cells))))
    return out


def unchecked(text: str) -> list:
    out = []
    for section, r in rows(text):
        if r.get("Class") not in CLASSES:
            continue
        out.append({
            "id": r["ID"].strip("`"),
            "class": r["Class"],
            "role": r.get("Role") or ("prefill vs decode" if section.startswith("5.") else "any"),
            "condition": r.get("Condition (CLI flags)") or r.get("Must hold", ""),
            "message": r.get("Message") or r.get("Failure (exact text)", ""),
            "source": r.get("Source", ""),
            "section": section,
        })
    return out  # catalog order


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--catalog", default=CATALOG)
    p.add_argument("--version", default="0.5.23")
    p.add_argument("--out", default=OUT)
    a = p.parse_args(argv)
    try:
        with open(a.catalog, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"gen_sglang_unchecked: cannot read the catalog: {e}", file=sys.stderr)
        return 2
    entries = unchecked(text)
    path = os.path.join(a.out, f"unchecked-{a.version}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"version": a.version, "catalog": "research/sglang-rules.md", "checks": entries}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
    counts = ", ".join(f"{c} {sum(e['class'] == c for e in entries)}" for c in CLASSES)
    print(f"wrote {path}: {len(entries)} checks ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
