#!/usr/bin/env python3
"""Generate pdlint's ``trtllm-serve`` option tables statically from TensorRT-LLM's
``tensorrt_llm/commands/serve.py``.

Usage::

    # from a clone of NVIDIA/TensorRT-LLM, one table per release tag
    python scripts/gen_trtllm_options.py --git-dir TensorRT-LLM/.git v1.0.0 v1.2.0rc6 ...
    # or from serve.py files (LABEL: the release its version.py names, ``main@<commit>``, or
    # ``fork@<owner>/<name>@<commit>`` when no version.py of that commit is at hand)
    python scripts/gen_trtllm_options.py --file serve.py LABEL ...
    # keep a table of the current output as it is (its source is no longer at hand)
    python scripts/gen_trtllm_options.py --keep main@00209af --file serve.py 1.3.0rc3 ...

``trtllm-serve`` is a click group (``DefaultGroup``: a first word that is no
sub-command runs ``serve``).  Each ``@click.command("NAME")`` function's
``@click.option`` decorators are read with :mod:`ast` (TensorRT-LLM is never
imported): the option strings (aliases, ``--x/--y`` pairs split), ``is_flag``,
``count``, ``multiple``, ``nargs`` and ``type``; a ``click.Choice`` /
``ChoiceWithAlias`` of literal strings gives its choices (and aliases), one
computed at run time (``severity_map.keys()``, a parser registry) is left open.
Releases before the group (a single ``@click.command("trtllm-serve")``) give
that command as ``serve``.

The output, ``pdlint/engines/trtllm/data/serve-options.json``, holds one table
per distinct option set, in the order given (``--keep`` tables first): sources
whose tables are identical (options, flags, types, choices) collapse into one,
labelled ``SMALLEST..LARGEST`` of the labels it covers, its ``covers`` listing
them and its ``versions`` the releases among them (``version``: the one release
when it covers exactly one).  A release is a label of the form ``1.2.0rc6`` /
``0.17.0.dev2024121700`` (the ``__version__`` of that commit's ``version.py``).
Only the standard library is used; the output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from typing import Optional

GENERATOR = "scripts/gen_trtllm_options.py"
SERVE_PY = "tensorrt_llm/commands/serve.py"
VERSION_PY = "tensorrt_llm/version.py"
COMMANDS = ("serve", "disaggregated", "disaggregated_mpi_worker")  # the ones pdlint reads
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "pdlint", "engines", "trtllm", "data", "serve-options.json")


def _const(node) -> Optional[object]:
    return node.value if isinstance(node, ast.Constant) else None


def _command_name(dec) -> Optional[str]:
    """``@click.command("serve")`` / ``@main.command("x")`` -> its name (``""``: the function's)."""
    if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "command"):
        return None
    if dec.args and isinstance(_const(dec.args[0]), str):
        return dec.args[0].value
    for kw in dec.keywords:
        if kw.arg == "name" and isinstance(_const(kw.value), str):
            return kw.value.value
    return ""


def _is_option(dec) -> bool:
    return (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "option"
            and isinstance(dec.func.value, ast.Name) and dec.func.value.id == "click")


def _choices(node) -> tuple:
    """(choices, aliases) of a ``click.Choice([...])`` / ``ChoiceWithAlias([...], {...})`` of literals."""
    if not isinstance(node, ast.Call):
        return None, None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name not in ("Choice", "ChoiceWithAlias") or not node.args:
        return None, None
    first = node.args[0]
    if not isinstance(first, (ast.List, ast.Tuple)) or not all(isinstance(_const(e), str) for e in first.elts):
        return None, None  # computed at run time: left open
    choices = [e.value for e in first.elts]
    aliases = None
    if name == "ChoiceWithAlias" and len(node.args) > 1 and isinstance(node.args[1], ast.Dict):
        d = node.args[1]
        if all(isinstance(_const(k), str) and isinstance(_const(v), str) for k, v in zip(d.keys, d.values)):
            aliases = {k.value: v.value for k, v in zip(d.keys, d.values)}
    return choices, aliases


def _type_name(node) -> Optional[str]:
    if node is None:
        return None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _option(dec) -> dict:
    opts, secondary = [], []
    for a in dec.args:
        s = _const(a)
        if not isinstance(s, str):
            continue
        if "/" in s and s[:1] == "-":
            first, _, second = s.partition("/")
            opts.append(first.strip())
            if second.strip():
                secondary.append(second.strip())
        elif s[:1] == "-":
            opts.append(s)
    kw = {k.arg: k.value for k in dec.keywords if k.arg}
    is_flag = _const(kw.get("is_flag")) is True or bool(secondary) or _const(kw.get("count")) is True
    choices, aliases = _choices(kw.get("type"))
    nargs = _const(kw.get("nargs"))
    return {"options": opts, "secondary": secondary, "is_flag": is_flag,
            "multiple": _const(kw.get("multiple")) is True,
            "nargs": nargs if isinstance(nargs, int) else 1,
            "type": _type_name(kw.get("type")) or ("bool" if is_flag else None),
            "choices": choices, "choice_aliases": aliases, "line": dec.lineno}


def commands_of(text: str, lines: bool = True) -> dict:
    """``{command: [option, ...]}`` of a serve.py source (``lines``: with each option's line in it)."""
    tree = ast.parse(text)
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        name = None
        for dec in node.decorator_list:
            name = _command_name(dec) if name is None else name
        if name is None:
            continue
        name = name or node.name
        if name == "trtllm-serve":  # before the group: the one command is `serve`
            name = "serve"
        if name not in COMMANDS:
            continue
        # decorators apply bottom-up; click lists the options in source order (top first)
        opts = [_option(d) for d in node.decorator_list if _is_option(d)]
        if not lines:
            for o in opts:
                o.pop("line")
        out[name] = opts
    return dict(sorted(out.items()))


def _git(git_dir: str, rev: str, path: str) -> Optional[str]:
    try:
        return subprocess.run(["git", "--git-dir", git_dir, "show", f"{rev}:{path}"], check=True,
                              capture_output=True, text=True).stdout
    except subprocess.CalledProcessError:
        return None


def _version(text: Optional[str]) -> Optional[str]:
    m = re.search(r"""__version__\s*=\s*["']([^"']+)["']""", text or "")
    return m.group(1) if m else None


RELEASE = re.compile(r"^v?(\d+\.\d+\.\d+(?:rc\d+)?(?:\.post\d+)?(?:\.dev\d+)?)$")


def release_of_label(label: str) -> Optional[str]:
    """``1.2.0rc6`` / ``v1.0.0`` -> the release; a ``main@`` / ``fork@`` label -> None."""
    m = RELEASE.match(label)
    return m.group(1) if m else None


def version_key(label: str) -> tuple:
    """Order of labels: releases by version (``1.0.0rc4`` < ``1.0.0``), then the others by name."""
    v = release_of_label(label)
    if v is None:
        return (1, label)
    m = re.match(r"(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?", v)
    major, minor, patch, rc, post, dev = m.groups()
    # a dev build precedes its release candidates, which precede the release and its post releases
    stage = (0, int(dev)) if dev else (1, int(rc)) if rc else (2, int(post or 0))
    return (0, int(major), int(minor), int(patch)) + stage


def _strip_lines(commands: dict) -> dict:
    return {c: [{k: v for k, v in o.items() if k != "line"} for o in opts] for c, opts in commands.items()}


def dedupe(tables: list) -> list:
    """Tables with the same option sets collapse into one (in the place of the first)."""
    groups, order = {}, []
    for t in tables:
        key = json.dumps(_strip_lines(t["commands"]), sort_keys=True)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(t)
    out = []
    for key in order:
        group = groups[key]
        covers = sorted({c for t in group for c in (t.get("covers") or [t["label"]])}, key=version_key)
        versions = sorted({v for t in group for v in (t.get("versions") or ([t["version"]] if t.get("version")
                                                                             else []))}, key=version_key)
        if len(group) == 1:
            t = dict(group[0])
        else:
            t = {"label": covers[0] if len(covers) == 1 else f"{covers[0]}..{covers[-1]}",
                 "source": "; ".join(dict.fromkeys(g["source"] for g in group)),
                 "commands": json.loads(key)}  # (the lines of one file are not the others')
        t["covers"] = covers
        t["versions"] = versions
        t["version"] = versions[0] if len(versions) == 1 else None
        out.append(t)
    return out


class _InOrder(argparse.Action):
    """``--keep`` and ``--file`` into one list, in the order given (the order of the tables)."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append((option_string, values))
        setattr(namespace, self.dest, items)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", help="a TensorRT-LLM git directory; the positional words are revisions (tags)")
    ap.add_argument("--file", nargs=2, action=_InOrder, dest="sources", metavar=("SERVE_PY", "LABEL"),
                    help="a serve.py file and the label of its table (the release its version.py names, "
                         "main@<commit>, or fork@<owner>/<name>@<commit>)")
    ap.add_argument("--keep", action=_InOrder, dest="sources", metavar="LABEL",
                    help="copy the table of that label from the current output (its source is not at hand)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("revs", nargs="*")
    args = ap.parse_args(argv)
    tables = []
    for rev in args.revs:
        if not args.git_dir:
            ap.error("revisions need --git-dir")
        text = _git(args.git_dir, rev, SERVE_PY)
        if text is None:
            print(f"{rev}: no {SERVE_PY}", file=sys.stderr)
            return 1
        version = _version(_git(args.git_dir, rev, VERSION_PY))
        tables.append({"label": version or rev, "source": f"{SERVE_PY} at {rev}", "version": version,
                       "commands": commands_of(text)})
    old = None
    for kind, value in args.sources or ():  # --keep and --file tables in the order given
        if kind == "--keep":
            if old is None:
                with open(args.out, encoding="utf-8") as fh:
                    old = {t["label"]: t for t in json.load(fh).get("tables") or ()}
            if value not in old:
                print(f"--keep {value}: no such table in {args.out}", file=sys.stderr)
                return 1
            tables.append(old[value])
            continue
        path, label = value
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        tables.append({"label": label, "source": f"{SERVE_PY} ({label})", "version": release_of_label(label),
                       "commands": commands_of(text, lines=False)})  # (a copy's lines may not be the file's)
    doc = {"generator": GENERATOR, "schema": 2, "tables": dedupe(tables)}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
