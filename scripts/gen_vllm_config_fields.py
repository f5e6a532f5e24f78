#!/usr/bin/env python3
"""Generate pdlint's table of the config classes vLLM's JSON options convert to, per release, statically.

Usage::

    python scripts/gen_vllm_config_fields.py vllm-0.9.2-...whl ... vllm-0.33.0-...whl [--out FILE]

Each wheel is read as a zip archive (only the modules needed are read) and analysed with :mod:`ast`, with the
resolver of ``scripts/gen_vllm_flags.py``; vLLM is never imported.  For every option whose converter is
``parse_dataclass`` (``TypeAdapter(cls).validate_json``, vllm/engine/arg_utils.py ``_compute_kwargs``) the
output (default ``pdlint/engines/vllm/data/config-fields.json``) records the class, and for each class:

* ``fields``: the keys its ``__init__`` takes (dataclass fields, bases first; ``ClassVar``, ``InitVar`` and
  ``field(init=False)`` fields left out: pydantic refuses those as unexpected keywords), each mapped to the
  config class of a nested field (``CompilationConfig.pass_config: PassConfig``) or null;
* ``extra``: ``forbid`` when the class is built by vLLM's ``@config`` decorator and that decorator forbids extra
  fields (``ConfigDict(extra="forbid")`` in vllm/config/utils.py, 0.20.0 on) or its own ``ConfigDict`` does
  (``CompilationConfig``, ``PassConfig``, ``DynamicShapesConfig``: 0.13.0 on; not in 0.12.0);
  else ``ignore`` (pydantic dataclasses' default: an unknown key is dropped);
* ``source``: file and line of the class;
* ``values``: for a field whose string value is checked against fixed names while the JSON is validated, those
  names: ``literal`` (a ``Literal[...]`` of strings, in source order as pydantic lists them; ``optional``: null is
  taken too), or ``enum`` (the member names an Enum field's own ``mode="before"`` validator looks the upper-cased
  text up in: ``CUDAGraphMode[value.upper()]``, whose miss is a ``KeyError``, or ``CompilationMode.__members__``,
  whose miss is the validator's ``ValueError`` - ``error``, ``{}`` the value).  Fields with another validator, or
  of a class with a ``model_validator(mode="before")``, are left out (VLLM046).

``--speculative-config`` (a dict, ``json.loads``) is recorded under ``engine_options``: its dict becomes a
``SpeculativeConfig(**dict)`` in ``EngineArgs.create_speculative_config`` when the engine config is built, after
the arguments are parsed; ``engine_dash_keys``: that release first turns ``-`` into ``_`` in its keys.

Only the standard library is used; the output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vllm_flags as G  # noqa: E402

DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "pdlint", "engines", "vllm", "data", "config-fields.json"))
MAX_NEST = 4


def _dataclass_of(res, module: str, ann: ast.AST, depth: int = 0):
    """(module, ClassDef) of the one config dataclass an annotation names (``X``, ``X | None``,
    ``Optional[X]``, a string annotation), or None."""
    if depth > 8 or ann is None:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return _dataclass_of(res, module, ast.parse(ann.value, mode="eval").body, depth + 1)
        except SyntaxError:
            return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [s for s in (ann.left, ann.right) if not (isinstance(s, ast.Constant) and s.value is None)
                 and G._dotted(s) not in ("None",)]
        found = [_dataclass_of(res, module, s, depth + 1) for s in sides]
        found = [f for f in found if f is not None]
        return found[0] if len(found) == 1 and len(sides) == 1 else None
    if isinstance(ann, ast.Subscript):
        head = (G._dotted(ann.value) or "").split(".")[-1]
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head in ("Optional", "Annotated", "SkipValidation"):
            return _dataclass_of(res, module, args[0], depth + 1)
        return None
    name = G._dotted(ann)
    if name is None:
        return None
    r = res.klass(module, name.split(".")[-1])
    if r is not None and res.is_dataclass(*r):
        return r
    return None


def _init_false(node: ast.AnnAssign) -> bool:
    v = node.value
    return isinstance(v, ast.Call) and (G._dotted(v.func) or "").split(".")[-1] in ("field", "Field") and any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False for k in v.keywords)


def _fields(res, module: str, cls: ast.ClassDef, depth: int = 0) -> dict:
    """name -> (module, annotation) of the keys ``__init__`` takes, bases first."""
    out: dict = {}
    if depth > 6:
        return out
    for b in cls.bases:
        bn = G._dotted(b)
        r = res.klass(module, bn.split(".")[-1]) if bn else None
        if r is not None:
            out.update(_fields(res, r[0], r[1], depth + 1))
    for n in cls.body:
        if not (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)):
            continue
        ann = n.annotation
        head = G._dotted(ann.value if isinstance(ann, ast.Subscript) else ann) or ""
        if head.split(".")[-1] in ("ClassVar", "InitVar"):
            continue
        if _init_false(n):
            out.pop(n.target.id, None)
            continue
        out[n.target.id] = (module, ann)
    return out


def _extra(w, module: str, cls: ast.ClassDef) -> str:
    for d in cls.decorator_list:
        text = ast.unparse(d)
        if re.search(r"extra\s*=\s*[\"']forbid[\"']", text):
            return "forbid"
        if re.search(r"extra\s*=\s*[\"'](?:allow|ignore)[\"']", text):
            return "ignore"
    names = [(G._dotted(d.func if isinstance(d, ast.Call) else d) or "").split(".")[-1] for d in cls.decorator_list]
    if "config" in names:
        utils = w.file_of("vllm.config.utils")
        text = w.zip.read(utils).decode("utf-8") if utils else ""
        if re.search(r"ConfigDict\(\s*extra\s*=\s*[\"']forbid[\"']", text):
            return "forbid"
    return "ignore"


def _validators(cls: ast.ClassDef) -> tuple:
    """({field: [(mode, FunctionDef)]} of the class's own ``@field_validator``s, whether it has a
    ``@model_validator(mode="before")`` (which may rewrite any value))."""
    out: dict = {}
    model_before = False
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for d in fn.decorator_list:
            if not isinstance(d, ast.Call):
                continue
            head = (G._dotted(d.func) or "").split(".")[-1]
            mode = next((k.value.value for k in d.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)),
                        "after")
            if head == "model_validator" and mode != "after":
                model_before = True
            if head == "field_validator":
                for a in d.args:
                    if isinstance(a, ast.Constant) and isinstance(a.value, str):
                        out.setdefault(a.value, []).append((mode, fn))
    return out, model_before


def _passes_through(mode: str, fn: ast.FunctionDef) -> bool:
    """A ``mode="wrap"`` validator that only lets None through unvalidated (``if value is None: return value``,
    then ``return handler(value)``: vLLM 0.33.0's ``_skip_none_validation``)."""
    if mode != "wrap":
        return False
    body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    text = "\n".join(ast.unparse(n) for n in body)
    return re.fullmatch(r"if (\w+) is None:\n\s+return \1\nreturn handler\(\1\)", text) is not None


def _enum_members(res, module: str, name: str) -> list:
    """The member names of an Enum class, as its body writes them (None when it is no such class, or one whose
    metaclass may look names up its own way: vLLM 0.33.0's AttentionBackendEnum raises ValueError)."""
    r = res.klass(module, name)
    if r is None or r[1].keywords or not any((G._dotted(b) or "").split(".")[-1] in ("Enum", "IntEnum", "StrEnum")
                            for b in r[1].bases):
        return None
    out = []
    for n in r[1].body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                not n.targets[0].id.startswith("_"):
            out.append(n.targets[0].id)
    return out or None


def _render(node: ast.AST, param: str, members: list) -> str:
    """The text of a validator's ``ValueError(f"...")`` for the value ``{value}`` (``{}`` in the output), the
    enum's member names joined where it joins ``X.__members__`` (None: another expression)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts = [_render(v, param, members) for v in node.values]
        return None if None in parts else "".join(parts)
    if isinstance(node, ast.FormattedValue) and node.conversion == -1 and node.format_spec is None:
        if isinstance(node.value, ast.Name) and node.value.id == param:
            return "{}"
        text = ast.unparse(node.value)
        if re.fullmatch(r"[\"']([^\"']*)[\"']\.join\((\w+)\.__members__(?:\.keys\(\))?\)", text):
            sep = re.match(r"[\"']([^\"']*)[\"']", text).group(1)
            return sep.join(members).replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _render(node.left, param, members), _render(node.right, param, members)
        return None if a is None or b is None else a + b
    return None


def _field_values(res, module: str, cls: ast.ClassDef, fname: str, fmod: str, ann: ast.AST, validators: dict):
    """What a string value of the field may be, where pydantic (or the field's own validator) checks it against
    fixed names: ``{"literal": [...], "optional": bool}`` (a ``Literal`` of strings; pydantic's literal_error), or
    ``{"enum": [member names], "upper": true, "error": "KeyError" | message}`` (a ``mode="before"`` validator that
    looks the upper-cased text up in an Enum: ``CUDAGraphMode[value.upper()]``, KeyError on a miss; or checks
    ``X.__members__`` and raises ValueError with ``message``, ``{}`` the value).  None: not fixed, or not known."""
    own = [(mode, fn) for mode, fn in validators.get(fname) or [] if not _passes_through(mode, fn)]
    if any(mode not in ("before", "after") for mode, _ in own):
        return None  # (a wrap or plain validator: not modelled)
    before = [fn for mode, fn in own if mode == "before"]
    if len(before) > 1:
        return None
    if before:
        fn = before[0]
        param = fn.args.args[-1].arg if fn.args.args else "value"
        text = ast.unparse(fn)
        m = re.search(r"\breturn (\w+)\[" + re.escape(param) + r"\.upper\(\)\]", text)
        if m:
            members = _enum_members(res, module, m.group(1))
            return {"enum": members, "upper": True, "error": "KeyError"} if members else None
        m = re.search(r"(\w+)\.__members__", text)
        if m and ".upper()" in text:
            members = _enum_members(res, module, m.group(1))
            raises = [n for n in ast.walk(fn) if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call) and
                      G._dotted(n.exc.func) == "ValueError" and n.exc.args]
            msg = _render(raises[0].exc.args[0], param, members or []) if len(raises) == 1 else None
            return {"enum": members, "upper": True, "error": msg} if members and msg else None
        return None
    atoms = res.atoms(fmod, ann)
    lits = [a for a in atoms if a[0] == "literal"]
    if not lits or any(a[0] not in ("literal", "none") for a in atoms):
        return None
    vals = [v for a in lits for v in a[1]]
    if not vals or not all(isinstance(v, str) for v in vals):
        return None
    return {"literal": list(dict.fromkeys(vals)), "optional": any(a[0] == "none" for a in atoms)}


def _describe(w, res, module: str, cls: ast.ClassDef, classes: dict, depth: int = 0) -> str:
    name = cls.name
    if name in classes or depth > MAX_NEST:
        return name
    entry = {"source": f"{w.file_of(module)}:{cls.lineno}", "extra": _extra(w, module, cls), "fields": {}}
    classes[name] = entry
    validators, model_before = _validators(cls)
    values = {}
    for fname, (fmod, ann) in _fields(res, module, cls).items():
        sub = _dataclass_of(res, fmod, ann)
        entry["fields"][fname] = _describe(w, res, sub[0], sub[1], classes, depth + 1) if sub is not None else None
        v = None if sub is not None or model_before else _field_values(res, module, cls, fname, fmod, ann,
                                                                         validators)
        if v is not None:
            values[fname] = v
    if values:
        entry["values"] = values
    return name


def release(wheel_path: str) -> tuple:
    w = G.Wheel(wheel_path)
    version = w.version()
    found: dict = {}  # option strings (tuple) -> (module, ClassDef)
    orig = G.field_kwargs

    def recording(res, module, ann, *a, **k):
        kw = orig(res, module, ann, *a, **k)
        if "parse_dataclass" in (kw.get("converter") or ""):
            kw["_class"] = _dataclass_of(res, module, ann)
        return kw
    orig_conv = G._converter

    def conv(entry, kw):
        orig_conv(entry, kw)
        if kw.get("_class") is not None and "parse_dataclass" in (entry.get("converter") or ""):
            found[tuple(entry["option_strings"])] = kw["_class"]
    G.field_kwargs, G._converter = recording, conv
    try:
        c = G.Collector(w)
        c.converters = G.number_converters(w)
        for module, cls, fn in G.ENTRY_FUNCTIONS:
            c.function(module, cls, fn)
    finally:
        G.field_kwargs, G._converter = orig, orig_conv
    classes: dict = {}
    options = {}
    for strings, (mod, cls) in sorted(found.items()):
        primary = max(strings, key=lambda o: (o.startswith("--"), -len(o)))
        options[primary] = _describe(w, c.res, mod, cls, classes)
    engine_options = {}
    spec = c.res.klass("vllm.config", "SpeculativeConfig")
    if spec is not None:
        engine_options["--speculative-config"] = _describe(w, c.res, spec[0], spec[1], classes)
    if not options:
        raise SystemExit(f"{wheel_path}: no parse_dataclass option found")
    au = w.file_of("vllm.engine.arg_utils")
    # (0.33.0: `{k.replace("-", "_"): v for k, v in self.speculative_config.items()}` before SpeculativeConfig(**...))
    dash = re.search(r"k\.replace\(\s*[\"']-[\"']\s*,\s*[\"']_[\"']\s*\)\s*:\s*v\s+for\s+k\s*,\s*v\s+in\s+self\."
                     r"speculative_config", w.zip.read(au).decode("utf-8")) is not None
    return version, {"options": options, "engine_options": engine_options, "classes": classes,
                     "engine_dash_keys": dash}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    doc = {"generator": "scripts/gen_vllm_config_fields.py",
           "releases": dict(release(p) for p in args.wheels)}
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    sys.stdout.write(f"{args.out}: {', '.join(doc['releases'])}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
