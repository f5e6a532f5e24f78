#!/usr/bin/env python3
"""Generate pdlint's sglang-router flag table from sglang-router wheels.

Usage::

    python scripts/gen_router_flags.py WHEEL [WHEEL ...] [--out FILE]
    python scripts/gen_router_flags.py --version 0.3.2 --version 0.2.4 ...   # pip download --no-deps first

For each wheel the generator builds the parser that the router's launch entry
point builds: ``sglang_router/launch_router.py``'s ``parse_router_args`` (what
``python -m sglang_router.launch_router``, ``python -m sglang_router launch``
and the ``sglang-router`` / ``smg`` / ``amg launch`` console scripts run), with
the wheel's own Python sources (``launch_router.py``, ``router_args.py``, ...)
copied to a temporary directory and executed in a child process.  Nothing of
the wheel's compiled extension is loaded: ``sglang_router_rs`` /
``sglang_router.sglang_router_rs`` and every third-party module the sources
import (``setproctitle``, ``aiohttp``, ...) are permissive stubs, so no
package is installed or imported from anywhere but the wheel and the standard
library.  ``ArgumentParser.parse_args`` is replaced by a hook that hands the
finished parser back instead of parsing.

The output (``pdlint/engines/sglang/data/router-flags.json``) lists, per
option string, the releases that register it, with argparse's ``nargs``, the
action kind and the choices in each release, and the ``file:line`` of its
``add_argument`` call in the newest release that has it.  Output is
deterministic (sorted keys, releases in version order).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

GENERATOR = "scripts/gen_router_flags.py"
SCHEMA_VERSION = 1

# Runs in a child process: sys.argv[1] is the directory holding the wheel's `sglang_router/*.py`.
CHILD = r'''
import argparse, importlib.abc, importlib.machinery, importlib.util, json, resource, sys, types

resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
root = sys.argv[1]
STDLIB = set(sys.stdlib_module_names)


class Stub(types.ModuleType):
    """A module, class and value at once: any attribute, call, subscript or base class works."""
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return StubType


class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return StubType

    def __call__(cls, *a, **k):
        return StubType

    def __getitem__(cls, item):
        return StubType

    def __iter__(cls):
        return iter(())

    def __or__(cls, other):
        return StubType

    __ror__ = __or__


class StubType(metaclass=_Meta):
    pass


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if name == "sglang_router.sglang_router_rs" or (top not in STDLIB and top != "sglang_router"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return Stub(spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, Finder())
sys.path[:] = [root] + [p for p in sys.path if p and "site-packages" not in p and "dist-packages" not in p]

calls = {}
_add = argparse._ActionsContainer.add_argument


def add_argument(self, *args, **kwargs):
    action = _add(self, *args, **kwargs)
    f = sys._getframe(1)
    while f is not None and not f.f_code.co_filename.startswith(root):
        f = f.f_back
    if f is not None:
        calls[id(action)] = f"{f.f_code.co_filename[len(root) + 1:]}:{f.f_lineno}"
    return action


argparse._ActionsContainer.add_argument = add_argument


class Captured(Exception):
    pass


def capture(self, args=None, namespace=None):
    raise Captured(self)


argparse.ArgumentParser.parse_args = capture
import sglang_router.launch_router as lr
try:
    lr.parse_router_args([])
    raise SystemExit("parse_router_args returned without parsing")
except Captured as c:
    parser = c.args[0]

KINDS = {argparse._StoreAction: "store", argparse._StoreTrueAction: "store_true",
         argparse._StoreFalseAction: "store_false", argparse._StoreConstAction: "store_const",
         argparse._AppendAction: "append", argparse._AppendConstAction: "append_const",
         argparse._CountAction: "count", argparse._HelpAction: "help", argparse._VersionAction: "version"}
out = []
for a in parser._actions:
    if not a.option_strings:
        out.append({"positional": a.dest, "nargs": a.nargs})
        continue
    choices, note = None, None
    if a.choices is StubType or isinstance(a.choices, types.ModuleType):
        note = "computed by the compiled extension at run time: left open"
    elif a.choices is not None:
        try:
            choices = [c for c in a.choices]
        except TypeError:
            choices = None
        if not choices or not all(isinstance(c, str) for c in choices):
            choices, note = None, "not a list of strings pdlint can read: left open"
    nargs = a.nargs
    if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction,
                      argparse._AppendConstAction, argparse._CountAction, argparse._HelpAction,
                      argparse._VersionAction)):
        nargs = 0
    out.append({"options": list(a.option_strings), "dest": a.dest, "nargs": nargs,
                "action": KINDS.get(type(a), "custom:" + type(a).__name__), "choices": choices, "choices_note": note,
                "source": calls.get(id(a))})
print(json.dumps({"allow_abbrev": parser.allow_abbrev, "prefix_chars": parser.prefix_chars, "actions": out}))
'''


def _vkey(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.]", v))


def read_wheel(path: str) -> dict:
    with open(path, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    with zipfile.ZipFile(path) as z:
        version = None
        for name in sorted(z.namelist()):
            if name.endswith(".dist-info/METADATA"):
                m = re.search(r"^Version:\s*(\S+)\s*$", z.read(name).decode("utf-8"), re.M)
                version = m.group(1) if m else None
        if version is None:
            raise SystemExit(f"{path}: no version in METADATA")
        with tempfile.TemporaryDirectory() as tmp:
            for name in z.namelist():
                if name.startswith("sglang_router/") and name.endswith(".py") and ".." not in name:
                    dest = os.path.join(tmp, name)
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    with open(dest, "wb") as fh:
                        fh.write(z.read(name))
            res = subprocess.run([sys.executable, "-I", "-c", CHILD, tmp], capture_output=True, text=True,
                                 timeout=120)
    if res.returncode != 0:
        raise SystemExit(f"{path}: building the parser failed:\n{res.stderr}")
    parser = json.loads(res.stdout)
    return {"version": version, "wheel": os.path.basename(path), "sha256": sha, **parser}


def build(wheels: list) -> dict:
    releases = sorted((read_wheel(p) for p in wheels), key=lambda r: _vkey(r["version"]))
    options: dict = {}
    positionals: dict = {}
    for r in releases:
        v = r["version"]
        for a in r["actions"]:
            if "positional" in a:
                positionals.setdefault(a["positional"], []).append(v)
                continue
            for opt in a["options"]:
                e = options.setdefault(opt, {"releases": [], "nargs": {}, "action": {}, "choices": {}})
                e["releases"].append(v)
                e["nargs"][v] = a["nargs"]
                e["action"][v] = a["action"]
                if a["choices"] is not None:
                    e["choices"][v] = a["choices"]
                if a["choices_note"]:
                    e["choices_note"] = a["choices_note"]
                if a["source"]:
                    e["source"] = f"sglang-router {v} {a['source']}"
    # collapse per-release values that never change
    for e in options.values():
        for key in ("nargs", "action"):
            vals = {json.dumps(x) for x in e[key].values()}
            if len(vals) == 1:
                e[key] = next(iter(e[key].values()))
        if not e["choices"]:
            del e["choices"]
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": GENERATOR,
        "entry_point": "sglang_router/launch_router.py parse_router_args",
        "releases": [{"version": r["version"], "wheel": r["wheel"], "wheel_sha256": r["sha256"],
                      "allow_abbrev": r["allow_abbrev"], "prefix_chars": r["prefix_chars"]} for r in releases],
        "positionals": positionals,
        "options": dict(sorted(options.items())),
    }


def dumps(table: dict) -> str:
    """The table as JSON with one line per release and per option (small, and diffs read per option)."""
    def one(x) -> str:
        return json.dumps(x, sort_keys=False, separators=(", ", ": "))
    lines = ["{"]
    for key, val in table.items():
        if key in ("releases", "options") and val:
            items = val.items() if isinstance(val, dict) else enumerate(val)
            body = [(f" {one(k)}: " if isinstance(val, dict) else " ") + one(v) for k, v in items]
            opening, closing = ("{", "}") if isinstance(val, dict) else ("[", "]")
            lines.append(f"{one(key)}: {opening}\n" + ",\n".join(body) + f"\n{closing},")
        else:
            lines.append(f"{one(key)}: {one(val)},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="*", help="sglang-router wheel files")
    ap.add_argument("--version", action="append", default=[],
                    help="download sglang-router==VERSION with `pip download --no-deps` (repeatable)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pdlint",
                                                  "engines", "sglang", "data", "router-flags.json"))
    args = ap.parse_args(argv)
    wheels = list(args.wheels)
    tmp = None
    if args.version:
        tmp = tempfile.mkdtemp(prefix="router-wheels-")
        for v in args.version:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", f"sglang-router=={v}", "--no-deps",
                            "--only-binary", ":all:", "-d", tmp], check=True)
        wheels += sorted(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
    if not wheels:
        ap.error("give wheels or --version")
    table = build(wheels)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(dumps(table))
    print(f"{args.out}: {len(table['options'])} option strings over "
          f"{', '.join(r['version'] for r in table['releases'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
