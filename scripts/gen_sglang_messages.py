#!/usr/bin/env python3
"""Extract the validation messages of one SGLang release, for rule versioning.

A pdlint rule applies to an SGLang release when that release's source still
contains the check's message.  This script reads the wheel statically (``ast``,
no import) and adds the release to ``pdlint/engines/sglang/data/sglang-messages.jsonl``
(every release's corpus, packed by ``pdlint/engines/sglang/packed.py``):
every string constant (f-strings with their fields as ``{}``) in the modules
where argument validation and PD start-up checks live, whitespace-normalised,
sorted and de-duplicated.

Usage: python scripts/gen_sglang_messages.py --wheel sglang-X-….whl [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import sys
import zipfile

PREFIXES = (
    "sglang/srt/arg_groups/", "sglang/srt/server_args.py", "sglang/srt/disaggregation/",
    "sglang/srt/mem_cache/kv_cache_builder.py", "sglang/srt/managers/scheduler.py",
    "sglang/srt/managers/disagg_service.py", "sglang/srt/utils/server_args_config_parser.py",
    "sglang/srt/elastic_ep/",
)
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pdlint", "engines", "sglang",
                   "data")


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def strings(tree: ast.AST) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value.strip()) >= 4:
            out.add(norm(node.value))
        elif isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    parts.append(v.value)
                else:
                    parts.append("{}")
            s = norm("".join(parts))
            if len(s) >= 4:
                out.add(s)
    return out


def version_of(wheel: str) -> str:
    return os.path.basename(wheel).split("-")[1]


def extract(wheel: str) -> dict:
    msgs: set = set()
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if not name.endswith(".py") or not name.startswith(PREFIXES):
                continue
            try:
                tree = ast.parse(z.read(name).decode("utf-8"), name)
            except (SyntaxError, UnicodeDecodeError):
                continue
            msgs |= strings(tree)
    with open(wheel, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"schema": 1, "engine": "sglang", "version": version_of(wheel), "wheel": os.path.basename(wheel),
            "wheel_sha256": digest, "generator": "scripts/gen_sglang_messages.py", "modules": list(PREFIXES),
            "messages": sorted(msgs)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wheel", required=True, action="append")
    p.add_argument("--out", default=OUT)
    a = p.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from pdlint.engines.sglang import packed
    path = os.path.join(a.out, packed.MESSAGES_FILE)
    docs = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            store = packed.MessageStore(f.read())
        docs = {v: store.doc(v) for v in store.versions}
    for wheel in a.wheel:
        data = extract(wheel)
        docs[data["version"]] = data
        print(f"SGLang {data['version']}: {len(data['messages'])} messages")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(packed.pack_messages(list(docs.values())))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
