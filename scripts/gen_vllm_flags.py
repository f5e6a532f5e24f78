#!/usr/bin/env python3
"""Generate pdlint's vLLM server-flag tables statically from a vLLM wheel.

Usage::

    python scripts/gen_vllm_flags.py --wheel vllm-0.11.0-....whl [--out DIR]
    python scripts/gen_vllm_flags.py --version 0.11.0 [--out DIR]   # pip download vllm==X --no-deps

The wheel is read as a zip archive and its Python sources are analysed with
:mod:`ast`; vLLM is never imported (it needs torch and a GPU build).  The
output, ``flags-<version>.json``, lists every option the parser of
``vllm serve`` (and ``python -m vllm.entrypoints.openai.api_server``) accepts:

* the ``add_argument`` calls of ``vllm/entrypoints/cli/serve.py``
  (``subparser_init``), ``make_arg_parser`` (``vllm/entrypoints/openai/cli_args.py``
  or ``vllm/entrypoints/common/cli_args.py``), ``EngineArgs.add_cli_args`` and
  ``AsyncEngineArgs.add_cli_args`` (``vllm/engine/arg_utils.py``);
* every field of ``FrontendArgs`` (and its bases) where the frontend options are
  derived from that dataclass (``--<field-name>`` plus the ``flags`` its
  ``_customize_cli_kwargs`` adds);
* ``**X_kwargs["field"]`` where ``X_kwargs = get_kwargs(Cls)``: the field's
  annotation in the config dataclass ``Cls`` is classified the way vLLM's
  ``_compute_kwargs`` does (a config dataclass: one JSON value; ``bool``:
  ``BooleanOptionalAction``, i.e. ``--x`` and ``--no-x``; ``bool | str | None``
  in newer releases: an optional value; ``Literal[...]`` without ``str``:
  choices, ``"None"``/``None`` added when the field is optional; a list of
  literals: choices for each element; anything else: one value), type
  aliases followed through the wheel's modules; later assignments
  ``X_kwargs["field"]["key"] = ...`` override.

What cannot be resolved statically is left open (no ``choices``), so a table
never makes pdlint reject a value vLLM accepts.  Only the standard library is
used.  Output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

GENERATOR = "scripts/gen_vllm_flags.py"
SCHEMA_VERSION = 1

ENTRY_FUNCTIONS = (
    ("vllm.entrypoints.cli.serve", None, "subparser_init"),
    ("vllm.entrypoints.openai.cli_args", None, "make_arg_parser"),
    ("vllm.entrypoints.common.cli_args", None, "make_arg_parser"),
    ("vllm.engine.arg_utils", "EngineArgs", "add_cli_args"),
    ("vllm.engine.arg_utils", "AsyncEngineArgs", "add_cli_args"),
)
FRONTEND_MODULES = ("vllm.entrypoints.openai.cli_args", "vllm.entrypoints.common.cli_args")
ACTIONS = {"store": "store", "store_true": "store_true", "store_false": "store_false", "store_const": "store_const",
           "append": "append", "count": "count", "help": "help", "version": "version",
           "BooleanOptionalAction": "boolean_optional"}
ZERO_ARG = {"store_true", "store_false", "store_const", "count", "help", "version", "boolean_optional"}


class Wheel:
    def __init__(self, path: str):
        self.path = path
        with open(path, "rb") as fh:
            self.sha256 = hashlib.sha256(fh.read()).hexdigest()
        self.zip = zipfile.ZipFile(path)
        self.names = set(self.zip.namelist())
        self.cache: Dict[str, Optional[ast.Module]] = {}

    def version(self) -> str:
        for name in sorted(self.names):
            if name.endswith(".dist-info/METADATA"):
                m = re.search(r"^Version:\s*(\S+)\s*$", self.zip.read(name).decode("utf-8"), re.M)
                if m:
                    return m.group(1)
        raise SystemExit(f"{self.path}: no Version in METADATA")

    def file_of(self, module: str) -> Optional[str]:
        base = module.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in self.names:
                return cand
        return None

    def module(self, module: str) -> Optional[ast.Module]:
        if module not in self.cache:
            path = self.file_of(module)
            self.cache[module] = ast.parse(self.zip.read(path).decode("utf-8"), path) if path else None
        return self.cache[module]


# ---------------------------------------------------------------------------
# names, classes, annotations
# ---------------------------------------------------------------------------

class Resolver:
    def __init__(self, wheel: Wheel):
        self.w = wheel

    def _absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        pkg = module.split(".")
        is_pkg = (self.w.file_of(module) or "").endswith("__init__.py")
        base = pkg if is_pkg else pkg[:-1]
        base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
        return ".".join(base + ([node.module] if node.module else []))

    def lookup(self, module: str, name: str, depth: int = 0) -> Optional[Tuple[str, ast.AST]]:
        """(module, node) defining ``name`` at module level: a ClassDef, FunctionDef or an assigned value."""
        tree = self.w.module(module)
        if tree is None or depth > 8:
            return None
        found = None
        for node in tree.body:
            for n in _flatten_ifs(node):
                if isinstance(n, ast.ClassDef) and n.name == name:
                    found = (module, n)
                elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
                    found = (module, n)
                elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
                    found = (module, n.value)
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name \
                        and n.value is not None:
                    found = (module, n.value)
                elif isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) and found is None:
                    src = self._absolute(module, n)
                    if src.startswith("vllm") and src != module:
                        found = self.lookup(src, name, depth + 1)
                elif isinstance(n, ast.ImportFrom):
                    for a in n.names:
                        if (a.asname or a.name) == name:
                            src = self._absolute(module, n)
                            if src.startswith("vllm"):
                                sub = self.lookup(src, a.name, depth + 1)
                                if sub is None and self.w.file_of(src + "." + a.name):
                                    return None
                                found = sub or found
                            else:
                                found = ("<external>", ast.Name(id=f"{src}.{a.name}"))
        return found

    def klass(self, module: str, name: str) -> Optional[Tuple[str, ast.ClassDef]]:
        r = self.lookup(module, name)
        if r is not None and isinstance(r[1], ast.ClassDef):
            return r
        return None

    def fields(self, module: str, cls: ast.ClassDef, depth: int = 0) -> Dict[str, Tuple[str, ast.AST, int]]:
        """field name -> (module, annotation, line), bases first (dataclass field order)."""
        out: Dict[str, Tuple[str, ast.AST, int]] = {}
        if depth > 6:
            return out
        for b in cls.bases:
            bn = _dotted(b)
            if bn is None:
                continue
            r = self.klass(module, bn.split(".")[-1])
            if r is not None:
                out.update(self.fields(r[0], r[1], depth + 1))
        for n in cls.body:
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                ann = n.annotation
                if _dotted(ann) in ("ClassVar", "typing.ClassVar") or (
                        isinstance(ann, ast.Subscript) and _dotted(ann.value) in ("ClassVar", "typing.ClassVar")):
                    continue
                if isinstance(ann, ast.Subscript) and _dotted(ann.value) in ("InitVar", "dataclasses.InitVar"):
                    continue
                out[n.target.id] = (module, ann, n.lineno)
        return out

    def is_dataclass(self, module: str, cls: ast.ClassDef) -> bool:
        for d in cls.decorator_list:
            name = _dotted(d.func if isinstance(d, ast.Call) else d) or ""
            if name.split(".")[-1] in ("dataclass", "config", "pydantic_dataclass"):
                return True
        return False

    def atoms(self, module: str, ann: ast.AST, depth: int = 0) -> List[tuple]:
        """The union members of an annotation: ("bool",), ("str",), ("int",), ("float",), ("none",),
        ("dict",), ("list", [atoms]), ("tuple", n), ("set",), ("literal", [values]), ("dataclass",),
        ("other",)."""
        if depth > 12:
            return [("other",)]
        if isinstance(ann, ast.Constant):
            if ann.value is None:
                return [("none",)]
            if isinstance(ann.value, str):  # a string annotation
                try:
                    return self.atoms(module, ast.parse(ann.value, mode="eval").body, depth + 1)
                except SyntaxError:
                    return [("other",)]
            return [("other",)]
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self.atoms(module, ann.left, depth + 1) + self.atoms(module, ann.right, depth + 1)
        if isinstance(ann, ast.Subscript):
            head = (_dotted(ann.value) or "").split(".")[-1]
            args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if head == "Optional":
                return self.atoms(module, args[0], depth + 1) + [("none",)]
            if head == "Union":
                return [a for x in args for a in self.atoms(module, x, depth + 1)]
            if head in ("Annotated", "SkipValidation"):
                return self.atoms(module, args[0], depth + 1)
            if head == "Literal":
                vals = []
                for x in args:
                    v = self.literal_values(module, x, depth + 1)
                    if v is None:
                        return [("other",)]
                    vals += v
                return [("literal", vals)]
            if head in ("list", "List", "Sequence"):
                return [("list", self.atoms(module, args[0], depth + 1))]
            if head in ("tuple", "Tuple"):
                return [("tuple", "+" if any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in args)
                         else len(args))]
            if head in ("set", "Set", "frozenset"):
                return [("set",)]
            if head in ("dict", "Dict", "Mapping"):
                return [("dict",)]
            if head in ("Callable", "type", "Type"):
                return [("other",)]
            return [("other",)]
        name = _dotted(ann)
        if name is None:
            return [("other",)]
        short = name.split(".")[-1]
        if short in ("bool", "str", "int", "float"):
            return [(short,)]
        if short in ("None", "NoneType"):
            return [("none",)]
        if short in ("dict", "Dict"):
            return [("dict",)]
        if short in ("list", "List"):
            return [("list", [("other",)])]
        if short in ("Any",):
            return [("other",)]
        r = self.lookup(module, short) if "." not in name else self.lookup(module, name.split(".")[0])
        if r is None:
            return [("other",)]
        mod, node = r
        if "." in name and isinstance(node, ast.AST) and not isinstance(node, ast.ClassDef):
            return [("other",)]
        if isinstance(node, ast.ClassDef):
            if self.is_dataclass(mod, node):
                return [("dataclass",)]
            for b in node.bases:
                bn = (_dotted(b) or "").split(".")[-1]
                if bn in ("dict", "Dict", "TypedDict"):
                    return [("dict",)] if bn != "TypedDict" else [("other",)]
                if bn in ("str", "int", "float"):
                    return [(bn,)]
            return [("other",)]
        if mod == "<external>":
            return [("other",)]
        if isinstance(node, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute, ast.Constant)):
            return self.atoms(mod, node, depth + 1)
        if isinstance(node, ast.Call) and (_dotted(node.func) or "").endswith("TypeAliasType") and len(node.args) > 1:
            return self.atoms(mod, node.args[1], depth + 1)
        return [("other",)]

    def literal_values(self, module: str, node: ast.AST, depth: int = 0) -> Optional[list]:
        if isinstance(node, ast.Constant):
            return [node.value]
        if isinstance(node, ast.Subscript) and (_dotted(node.value) or "").split(".")[-1] == "Literal":
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out = []
            for a in args:
                v = self.literal_values(module, a, depth + 1)
                if v is None:
                    return None
                out += v
            return out
        name = _dotted(node)
        if name is not None and depth < 10:
            r = self.lookup(module, name.split(".")[-1])
            if r is not None and r[0] != "<external>" and not isinstance(r[1], (ast.ClassDef, ast.FunctionDef)):
                return self.literal_values(r[0], r[1], depth + 1)
        return None

    def const(self, module: str, node: ast.AST, depth: int = 0) -> Any:
        """A literal value (constants, lists, tuples, dict keys, names of such) or raise ValueError."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [self.const(module, e, depth + 1) for e in node.elts]
        if isinstance(node, ast.Call) and _dotted(node.func) in ("list", "sorted", "tuple") and len(node.args) == 1:
            v = self.const(module, node.args[0], depth + 1)
            if isinstance(v, dict):
                v = list(v)
            return sorted(v) if _dotted(node.func) == "sorted" else list(v)
        if isinstance(node, ast.Call) and _dotted(node.func) in ("get_args", "typing.get_args") and node.args:
            v = self.literal_values(module, node.args[0])
            if v is None:
                raise ValueError("get_args")
            return v
        if isinstance(node, ast.Dict):
            return {self.const(module, k, depth + 1): None for k in node.keys if k is not None}
        if isinstance(node, ast.ListComp) and len(node.generators) == 1 and not node.generators[0].ifs and \
                isinstance(node.elt, ast.Attribute) and node.elt.attr == "value" and \
                isinstance(node.elt.value, ast.Name) and isinstance(node.generators[0].target, ast.Name) and \
                node.elt.value.id == node.generators[0].target.id and _dotted(node.generators[0].iter):
            # `[f.value for f in LoadFormat]` (vLLM 0.9.2's --load-format / --model-impl choices): the enum's
            # members as its class body writes them (a member the source does not write as a literal: open)
            r = self.lookup(module, _dotted(node.generators[0].iter).split(".")[-1])
            if r is not None and isinstance(r[1], ast.ClassDef):
                vals = [self.const(r[0], st.value, depth + 1) for st in r[1].body
                        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                        and not st.targets[0].id.startswith("_")]
                if vals:
                    return vals
        name = _dotted(node)
        if name is not None and depth < 10:
            r = self.lookup(module, name.split(".")[-1])
            if r is not None and r[0] != "<external>" and not isinstance(r[1], (ast.ClassDef, ast.FunctionDef)):
                return self.const(r[0], r[1], depth + 1)
        raise ValueError(ast.dump(node)[:80])


def _flatten_ifs(node: ast.AST) -> list:
    if isinstance(node, ast.If):
        return [x for n in node.body + node.orelse for x in _flatten_ifs(n)]
    if isinstance(node, ast.Try):
        return [x for n in node.body + node.orelse + node.finalbody for x in _flatten_ifs(n)] + \
            [x for h in node.handlers for n in h.body for x in _flatten_ifs(n)]
    return [node]


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


# ---------------------------------------------------------------------------
# kwargs of a config field, as vLLM's _compute_kwargs builds them
# ---------------------------------------------------------------------------

def field_kwargs(res: Resolver, module: str, ann: ast.AST, newer_optional_bool: bool, name: str = "",
                 converters: Optional[dict] = None) -> dict:
    kw = _field_kwargs(res, module, ann, newer_optional_bool)
    if kw.get("type") == "json":
        # a config dataclass: parse_dataclass (TypeAdapter(cls).validate_json); a dict: json.loads, or for a dict
        # that may also be a string (`str | dict`) union_dict_and_str, where the release has them
        atoms = res.atoms(module, ann)
        kinds = {a[0] for a in atoms}
        conv = None
        if "dataclass" in kinds:
            conv = "parse_dataclass"
        elif (converters or {}).get("union_dict_and_str") and kinds & {"str", "other"}:
            conv = "union_dict_and_str"
        elif (converters or {}).get("parse_loads"):
            conv = "parse_type(loads)"
        if conv and (converters or {}).get("optional") and "none" in kinds and conv != "union_dict_and_str":
            conv = f"optional_type({conv})"
        if conv:
            kw["converter"] = conv
    values = int_enum_values(res, module, ann)
    if values is not None:
        # argparse passes the text on (type str); the config's pydantic validation then takes only the enum's
        # values: `--optimization-level 5` / `-O5` stops the engine with "Input should be 0, 1, 2 or 3"
        kw["enum_values"] = values
    if kw.get("type") in ("int", "float"):
        # the function argparse calls: vLLM's _compute_kwargs names its own for some int fields
        # (human_readable_int: `32k`), and wraps an Optional field's in optional_type (`None` and `` pass)
        conv = (converters or {}).get("fields", {}).get(name, kw["type"]) if kw["type"] == "int" else kw["type"]
        atoms = res.atoms(module, ann)
        if (converters or {}).get("optional") and any(a[0] == "none" for a in atoms):
            conv = f"optional_type({conv})"
        kw["converter"] = conv
    return kw


def int_enum_values(res: Resolver, module: str, ann: ast.AST) -> Optional[list]:
    """The member values of an ``IntEnum`` annotation (``OptimizationLevel``), as text; None for another one."""
    name = _dotted(ann)
    r = res.lookup(module, name.split(".")[-1]) if name else None
    if r is None or not isinstance(r[1], ast.ClassDef):
        return None
    if not any((_dotted(b) or "").split(".")[-1] == "IntEnum" for b in r[1].bases):
        return None
    out = [str(n.value.value) for n in r[1].body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
           and isinstance(n.value.value, int)]
    return out or None


def _field_kwargs(res: Resolver, module: str, ann: ast.AST, newer_optional_bool: bool) -> dict:
    atoms = res.atoms(module, ann)
    kinds = {a[0] for a in atoms}
    optional = "none" in kinds
    if "dataclass" in kinds:
        return {"action": "store", "type": "json"}
    if newer_optional_bool and kinds == {"bool", "str", "none"}:
        return {"action": "store", "nargs": "?", "type": "str"}
    if "bool" in kinds:
        return {"action": "boolean_optional"}
    if "literal" in kinds:
        vals = [v for a in atoms if a[0] == "literal" for v in a[1]]
        if "str" in kinds:
            return {"action": "store", "type": "str"}
        return _choices({"action": "store", "type": type(vals[0]).__name__ if vals else "str"}, vals, optional)
    if "tuple" in kinds:
        n = next(a[1] for a in atoms if a[0] == "tuple")
        return {"action": "store", "nargs": n}
    if "list" in kinds:
        inner = next(a[1] for a in atoms if a[0] == "list")
        ik = {a[0] for a in inner}
        out = {"action": "store", "nargs": "+"}
        if ik == {"literal"}:
            return _choices(out, [v for a in inner for v in a[1]], optional)
        return out
    if "set" in kinds:
        return {"action": "store", "nargs": "+"}
    if "int" in kinds:
        return {"action": "store", "type": "int"}
    if "float" in kinds:
        return {"action": "store", "type": "float"}
    if "dict" in kinds:
        return {"action": "store", "type": "json"}
    return {"action": "store", "type": "str"}


def _choices(kw: dict, vals: list, optional: bool) -> dict:
    vals = sorted(vals, key=str)
    if optional:
        vals = vals + ["None"]
    kw["choices"] = [str(v) for v in vals]
    return kw


# ---------------------------------------------------------------------------
# add_argument calls
# ---------------------------------------------------------------------------

_REASONING_REGISTRY = "ReasoningParserManager.reasoning_parsers"


def registered_reasoning_parsers(wheel: "Wheel", node: ast.AST) -> Optional[List[str]]:
    """``choices=list(ReasoningParserManager.reasoning_parsers)`` (``--reasoning-parser``, vLLM 0.9.2-0.11.0): the
    names the parser modules ``vllm/reasoning/__init__.py`` imports register with
    ``@ReasoningParserManager.register_module("name")``, in registration order (import order; stacked decorators
    apply bottom-up), as argparse lists them. None (left open) when a registration is not a literal name or a
    lazy one, or the registry is not the one written."""
    if not (isinstance(node, ast.Call) and _dotted(node.func) == "list" and len(node.args) == 1 and
            _dotted(node.args[0]) == _REASONING_REGISTRY):
        return None
    pkg = wheel.module("vllm.reasoning")
    if pkg is None:
        return None
    names: List[str] = []
    for stmt in pkg.body:
        if not (isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module):
            continue
        tree = wheel.module("vllm.reasoning." + stmt.module)
        if tree is None:
            return None
        for sub in ast.walk(tree):
            if isinstance(sub, ast.Call) and (_dotted(sub.func) or "").endswith("ReasoningParserManager.register_"
                                                                                 "lazy_module"):
                return None
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for dec in reversed(cls.decorator_list):
                if not (isinstance(dec, ast.Call) and _dotted(dec.func) == "ReasoningParserManager.register_module"):
                    continue
                arg = dec.args[0] if dec.args else next((k.value for k in dec.keywords if k.arg == "name"), None)
                if arg is None:
                    names.append(cls.name)  # (register_module(): the class's name)
                elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.append(arg.value)
                elif isinstance(arg, (ast.List, ast.Tuple)) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in arg.elts):
                    names.extend(e.value for e in arg.elts)
                else:
                    return None
    return list(dict.fromkeys(names)) or None


class Collector:
    def __init__(self, wheel: Wheel):
        self.w = wheel
        self.res = Resolver(wheel)
        self.options: List[dict] = []
        self.seen: Dict[str, dict] = {}
        self.newer_optional_bool = False
        self.converters: dict = {}

    def add(self, entry: dict) -> None:
        fresh = [o for o in entry["option_strings"] if o not in self.seen]
        if not fresh and entry["option_strings"]:
            return  # registered twice (a conditional branch): the first wins, as in argparse
        entry["option_strings"] = fresh or entry["option_strings"]
        for o in entry["option_strings"]:
            self.seen[o] = entry
        self.options.append(entry)

    def function(self, module: str, cls: Optional[str], name: str) -> None:
        tree = self.w.module(module)
        if tree is None:
            return
        fn = None
        holder = tree.body
        if cls is not None:
            c = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
            if c is None:
                return
            holder = c.body
        for n in holder:
            for x in _flatten_ifs(n):
                if isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef)) and x.name == name:
                    fn = x
        if fn is None:
            return
        path = self.w.file_of(module)
        kw_sources = self._kwargs_sources(module, fn)
        overrides = self._overrides(module, fn)
        for alias, (var, fld) in self._field_aliases(fn, kw_sources).items():
            kw_sources[alias] = (var, fld)
            for key, val in overrides.get((alias, None), {}).items():
                overrides.setdefault((var, fld), {})[key] = val
        looped = _loop_calls(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "add_argument":
                for call in looped.get(id(node), [node]):
                    self._add_call(module, path, call, kw_sources, overrides)
            if isinstance(node, ast.Call) and (_dotted(node.func) or "").endswith("FrontendArgs.add_cli_args"):
                self.frontend(module)

    def _kwargs_sources(self, module: str, fn: ast.AST) -> dict:
        """variable -> (module, ClassDef) for ``X = get_kwargs(Cls)``."""
        out = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call) and (_dotted(node.value.func) or "").endswith("get_kwargs") \
                    and node.value.args:
                cname = _dotted(node.value.args[0])
                if cname:
                    r = self.res.klass(module, cname.split(".")[-1])
                    if r is not None:
                        out[node.targets[0].id] = r
        return out

    def _field_aliases(self, fn: ast.AST, kw_sources: dict) -> dict:
        """variable -> (kwargs variable, field) for ``Y = X["field"]``."""
        out = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name) \
                    and node.value.value.id in kw_sources and isinstance(node.value.slice, ast.Constant):
                out[node.targets[0].id] = (node.value.value.id, node.value.slice.value)
        return out

    def _overrides(self, module: str, fn: ast.AST) -> dict:
        """(variable, field) -> {key: value node} for ``X["field"]["key"] = value``."""
        out: dict = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                t = node.targets[0]
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Subscript) and \
                        isinstance(t.value.value, ast.Name) and isinstance(t.value.slice, ast.Constant) and \
                        isinstance(t.slice, ast.Constant):
                    out.setdefault((t.value.value.id, t.value.slice.value), {})[t.slice.value] = node.value
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                        isinstance(t.slice, ast.Constant):  # Y["type"] = ... on an alias Y = X["field"]
                    out.setdefault((t.value.id, None), {})[t.slice.value] = node.value
        return out

    def _add_call(self, module: str, path: str, call: ast.Call, kw_sources: dict, overrides: dict) -> None:
        opts = []
        for a in call.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                opts.append(a.value)
            elif isinstance(a, ast.JoinedStr) or isinstance(a, ast.Starred):
                return  # built in a loop: the frontend dataclass path handles it
        if not opts or not opts[0].startswith("-"):
            return  # positional
        kw: dict = {"action": "store"}
        explicit: dict = {}
        def unpack(v: ast.AST) -> None:
            if isinstance(v, ast.Dict):  # **{**X_kwargs["f"], "default": None}
                for key, val in zip(v.keys, v.values):
                    if key is None:
                        unpack(val)
                    elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                        explicit[key.value] = val
            elif isinstance(v, ast.Name) and isinstance(kw_sources.get(v.id), tuple) and \
                    isinstance(kw_sources[v.id][1], str):  # **Y with Y = X["field"]
                var, fld = kw_sources[v.id]
                unpack(ast.Subscript(value=ast.Name(id=var), slice=ast.Constant(value=fld)))
            elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and \
                    isinstance(v.slice, ast.Constant) and v.value.id in kw_sources and \
                    isinstance(kw_sources[v.value.id][1], ast.ClassDef):
                cmod, cls = kw_sources[v.value.id]
                fld = self.res.fields(cmod, cls).get(v.slice.value)
                if fld is not None:
                    kw.update(field_kwargs(self.res, fld[0], fld[1], self.newer_optional_bool, v.slice.value,
                                           self.converters))
                for key, val in overrides.get((v.value.id, v.slice.value), {}).items():
                    explicit[key] = val

        for k in call.keywords:
            if k.arg is None:
                unpack(k.value)
                continue
            explicit[k.arg] = k.value
        for key, val in explicit.items():
            self._apply(module, kw, key, val)
        entry = {"option_strings": opts, "action": kw.get("action", "store"), "nargs": kw.get("nargs"),
                 "type": kw.get("type"), "choices": kw.get("choices"), "deprecated": bool(kw.get("deprecated")),
                 "source": f"{path}:{call.lineno}"}
        _converter(entry, kw)
        if entry["action"] == "boolean_optional":
            entry["option_strings"] = opts + ["--no-" + o[2:] for o in opts if o.startswith("--")]
        self.add(entry)

    def _apply(self, module: str, kw: dict, key: str, val: ast.AST) -> None:
        if key == "action":
            name = val.value if isinstance(val, ast.Constant) else (_dotted(val) or "").split(".")[-1]
            kw["action"] = ACTIONS.get(name, "custom:" + str(name))
            if kw["action"].startswith("custom:") and self._zero_arg_action(module, str(name)):
                kw["nargs"] = 0
            if kw["action"] in ZERO_ARG or kw["action"].startswith("custom"):
                kw.pop("choices", None)
        elif key == "choices":
            try:
                kw["choices"] = [str(v) for v in self.res.const(module, val)]
            except ValueError:
                # computed at run time: a registry the release's sources fill with literal names (reasoning
                # parsers, 0.9.2-0.11.0), else left open
                kw["choices"] = registered_reasoning_parsers(self.res.w, val)
        elif key == "nargs":
            try:
                kw["nargs"] = self.res.const(module, val)
            except ValueError:
                kw["nargs"] = None
        elif key == "type":
            if isinstance(val, ast.Lambda):
                body = ast.unparse(val.body) if hasattr(ast, "unparse") else ""
                arg = val.args.args[0].arg if val.args.args else ""
                kw["type"] = {f"{arg}.lower().replace('-', '_')": "lower_dash",
                              f"{arg}.lower()": "lower"}.get(body, "custom")
            else:
                kw["type"] = (_dotted(val) or "custom").split(".")[-1]
            kw["converter"] = kw["type"]  # (written: the field's converter is replaced)
            if isinstance(val, ast.Call) and len(val.args) == 1 and _dotted(val.func) in ("optional_type", "parse_type"):
                kw["converter"] = f"{_dotted(val.func)}({(_dotted(val.args[0]) or 'custom').split('.')[-1]})"
        elif key == "deprecated":
            kw["deprecated"] = isinstance(val, ast.Constant) and bool(val.value)
        elif key == "const":
            kw["const"] = True

    def _zero_arg_action(self, module: str, name: str, depth: int = 0) -> bool:
        """A custom argparse action class that takes no value (a store_true / BooleanOptional subclass, or one
        that passes ``nargs=0`` to ``argparse.Action``)."""
        r = self.res.klass(module, name)
        if r is None or depth > 4:
            return False
        mod, cls = r
        for b in cls.bases:
            bn = (_dotted(b) or "").split(".")[-1]
            if bn in ("_StoreTrueAction", "_StoreFalseAction", "_StoreConstAction", "BooleanOptionalAction",
                      "_CountAction") or (bn and self._zero_arg_action(mod, bn, depth + 1)):
                return True
        for node in ast.walk(cls):
            if isinstance(node, ast.keyword) and node.arg == "nargs" and isinstance(node.value, ast.Constant) \
                    and node.value.value == 0:
                return True
        return False

    def frontend(self, module: str) -> None:
        """Options derived from the fields of FrontendArgs (and its bases)."""
        r = self.res.klass(module, "FrontendArgs")
        if r is None:
            return
        mod, cls = r
        flags, overrides = self._frontend_customisation(mod, cls)
        for name, (fmod, ann, line) in self.res.fields(mod, cls).items():
            kw = field_kwargs(self.res, fmod, ann, self.newer_optional_bool, name, self.converters)
            for key, val in overrides.get(name, {}).items():
                self._apply(fmod, kw, key, val)
            opt = "--" + name.replace("_", "-")
            entry = {"option_strings": list(flags.get(name, [])) + [opt], "action": kw.get("action", "store"),
                     "nargs": kw.get("nargs"), "type": kw.get("type"), "choices": kw.get("choices"),
                     "deprecated": False, "source": f"{self.w.file_of(fmod)}:{line}"}
            _converter(entry, kw)
            if entry["action"] == "boolean_optional":
                entry["option_strings"].append("--no-" + opt[2:])
            self.add(entry)

    def _frontend_customisation(self, module: str, cls: ast.ClassDef) -> tuple:
        flags: dict = {}
        overrides: dict = {}
        classes = [cls]
        for b in cls.bases:
            bn = _dotted(b)
            rb = self.res.klass(module, bn.split(".")[-1]) if bn else None
            if rb is not None:
                classes.append(rb[1])
        for c in classes:
            for node in ast.walk(c):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    t = node.targets[0]
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Subscript) and \
                            isinstance(t.value.slice, ast.Constant) and isinstance(t.slice, ast.Constant):
                        fld, key = t.value.slice.value, t.slice.value
                        if key == "flags":
                            try:
                                flags[fld] = [str(x) for x in self.res.const(module, node.value)]
                            except ValueError:
                                pass
                        else:
                            overrides.setdefault(fld, {})[key] = node.value
        return flags, overrides


def _converter(entry: dict, kw: dict) -> None:
    if kw.get("enum_values") and entry["action"] == "store" and not entry.get("choices"):
        entry["enum_values"] = kw["enum_values"]
    """``converter``: for a number option, the function argparse converts its value with (``int``, ``float``,
    ``human_readable_int``, ``human_readable_int_or_auto``, ``optional_type(...)`` of one of them): which texts it
    takes (``32k`` only where vLLM names human_readable_int, ``None`` only for an Optional field).
    ``enum_values``: an IntEnum field's values (validated after parsing, not by argparse)."""
    if entry["type"] in ("int", "float") and entry["action"] == "store":
        entry["converter"] = kw.get("converter") or entry["type"]
    elif entry["action"] == "store" and entry["nargs"] is None and kw.get("converter") in JSON_CONVERTERS:
        entry["converter"] = kw["converter"]


#: converters of options that take JSON text (recorded in ``converter``): what VLLM043 judges
JSON_CONVERTERS = ("parse_dataclass", "optional_type(parse_dataclass)", "parse_type(loads)",
                   "optional_type(parse_type(loads))", "optional_type(loads)", "union_dict_and_str")


def number_converters(w: Wheel) -> dict:
    """What the release's ``_compute_kwargs`` (vllm/engine/arg_utils.py) gives int fields: ``fields`` (field name ->
    the converter it names: ``if name == "max_model_len": kwargs[name]["type"] = human_readable_int_or_auto``,
    ``elif name in {...}: ... = human_readable_int``) and ``optional`` (an Optional field's converter wrapped in
    ``optional_type``)."""
    tree = w.module("vllm.engine.arg_utils")
    fn = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_compute_kwargs"),
              None) if tree is not None else None
    if fn is None:
        return {"fields": {}, "optional": False, "union_dict_and_str": False, "parse_loads": False}
    sets: dict = {}  # local name -> field names (`human_readable_ints = {...}`)
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, (ast.Set, ast.Tuple, ast.List)):
            sets[n.targets[0].id] = [e.value for e in n.value.elts if isinstance(e, ast.Constant)]
    out: dict = {}
    for n in ast.walk(fn):
        if not (isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and isinstance(n.test.left, ast.Name)
                and n.test.left.id == "name" and len(n.test.ops) == 1):
            continue
        right = n.test.comparators[0]
        if isinstance(n.test.ops[0], ast.Eq) and isinstance(right, ast.Constant):
            names = [right.value]
        elif isinstance(n.test.ops[0], ast.In) and isinstance(right, (ast.Set, ast.Tuple, ast.List)):
            names = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        elif isinstance(n.test.ops[0], ast.In) and isinstance(right, ast.Name):
            names = sets.get(right.id, [])
        else:
            continue
        for st in n.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript) \
                    and isinstance(st.targets[0].slice, ast.Constant) and st.targets[0].slice.value == "type" \
                    and isinstance(st.value, ast.Name):
                for name in names:
                    out.setdefault(name, st.value.id)
    optional = any(isinstance(n, ast.Call) and _dotted(n.func) == "optional_type" and n.args and
                   isinstance(n.args[0], ast.Subscript) for n in ast.walk(fn))
    text = ast.unparse(fn) if hasattr(ast, "unparse") else ""
    return {"fields": out, "optional": optional, "union_dict_and_str": "union_dict_and_str" in text,
            "parse_loads": "parse_type(json.loads)" in text}


def generate(wheel_path: str) -> dict:
    w = Wheel(wheel_path)
    version = w.version()
    c = Collector(w)
    au = w.module("vllm.engine.arg_utils")
    c.newer_optional_bool = au is not None and "type_hints == {bool, str, type(None)}" in \
        w.zip.read(w.file_of("vllm.engine.arg_utils")).decode("utf-8")
    c.converters = number_converters(w)
    for module, cls, fn in ENTRY_FUNCTIONS:
        c.function(module, cls, fn)
    for module in FRONTEND_MODULES:
        tree = w.module(module)
        if tree is not None and any(isinstance(n, ast.ClassDef) and n.name == "FrontendArgs" for n in tree.body):
            text = w.zip.read(w.file_of(module)).decode("utf-8")
            if "FrontendArgs.add_cli_args" in text or "get_kwargs(FrontendArgs)" in text or \
                    "get_kwargs(cls)" in text:
                c.frontend(module)
    if not c.options:
        raise SystemExit(f"{wheel_path}: no options found")
    # releases whose FlexibleArgumentParser registers EnableDisableAction for BooleanOptionalAction also accept
    # --disable-x for --enable-x (and the reverse)
    ap = w.file_of("vllm.utils.argparse_utils")
    ap_text = w.zip.read(ap).decode("utf-8") if ap else ""
    if re.search(r'register\(\s*"action",\s*BooleanOptionalAction,\s*EnableDisableAction', ap_text):
        for e in c.options:
            if e["action"] != "boolean_optional":
                continue
            for o in list(e["option_strings"]):
                for a, b in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                    if o.startswith(a) and b + o[len(a):] not in c.seen:
                        e["option_strings"].append(b + o[len(a):])
                        c.seen[b + o[len(a):]] = e
    return {
        "schema": SCHEMA_VERSION,
        "engine": "vllm",
        "version": version,
        "wheel": os.path.basename(wheel_path),
        "wheel_sha256": w.sha256,
        "generator": GENERATOR,
        "allow_abbrev": True,  # FlexibleArgumentParser keeps argparse's unique-prefix matching
        # parse_dataclass expands bare `32k` / `80m` in the JSON before validating it (0.20.0 on)
        "json_human_readable_numbers": "_expand_json_human_readable_numbers(val)" in
        w.zip.read(w.file_of("vllm.engine.arg_utils")).decode("utf-8"),
        "flags": c.options,
    }


def _loop_calls(fn: ast.AST) -> dict:
    """id(add_argument call) -> its copies, one per iteration, for a call in ``for a, b in [(lit, lit), ...]:``
    with the loop's names replaced by each item's values (vLLM 0.11.0's deprecated ``--guided-decoding-*``
    options: ``for arg, type in [("--guided-decoding-backend", str), ...]: group.add_argument(arg, type=type,
    deprecated=True)``, missing from the table: a false VLLM018, rw25/b)."""
    import copy
    out: dict = {}
    for loop in ast.walk(fn):
        if not isinstance(loop, ast.For) or not isinstance(loop.iter, (ast.List, ast.Tuple)):
            continue
        names = [t.id for t in (loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target])
                 if isinstance(t, ast.Name)]
        items = []
        for it in loop.iter.elts:
            vals = it.elts if isinstance(it, ast.Tuple) and isinstance(loop.target, ast.Tuple) else [it]
            if len(vals) != len(names):
                break
            items.append(dict(zip(names, vals)))
        else:
            for node in ast.walk(loop):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                        node.func.attr == "add_argument"):
                    continue
                copies = []
                for binding in items:
                    class Sub(ast.NodeTransformer):
                        def visit_Name(self, n):  # noqa: N802 (ast's visitor name)
                            return copy.deepcopy(binding[n.id]) if n.id in binding else n
                    copies.append(ast.fix_missing_locations(Sub().visit(copy.deepcopy(node))))
                out[id(node)] = copies
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--wheel")
    g.add_argument("--version")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pdlint",
                                                  "engines", "vllm", "data"))
    args = ap.parse_args(argv)
    wheel = args.wheel
    if wheel is None:
        tmp = tempfile.mkdtemp(prefix="vllm-wheel-")
        subprocess.check_call([sys.executable, "-m", "pip", "download", f"vllm=={args.version}", "--no-deps",
                               "--only-binary", ":all:", "-q", "-d", tmp])
        wheel = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
    table = generate(wheel)
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, f"flags-{table['version']}.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(table, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"{out}: {len(table['flags'])} options")
    return 0


if __name__ == "__main__":
    sys.exit(main())
