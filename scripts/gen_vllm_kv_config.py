#!/usr/bin/env python3
"""Generate pdlint's table of vLLM's ``KVTransferConfig`` per release, statically.

Usage::

    python scripts/gen_vllm_kv_config.py vllm-0.9.2.tar.gz vllm-0.33.0-...whl ... [--out FILE]

Each argument is a vLLM source distribution (``.tar.gz``) or wheel (``.whl``),
read as an archive; its Python sources are analysed with :mod:`ast` and vLLM is
never imported.  For every release the output (default
``pdlint/engines/vllm/data/kv-transfer-config.json``) records what
``--kv-transfer-config`` JSON vLLM accepts at start-up, where
``EngineArgs`` turns the value into a ``KVTransferConfig`` with
``pydantic.TypeAdapter(KVTransferConfig).validate_json``:

* ``fields``: the dataclass's fields (``name: annotation = default``), each with
  its ``choices`` when the annotation is a ``Literal`` (through the module's
  type aliases: ``KVRole = Literal[KVProducer, KVConsumer]``), else ``null``;
  its ``type`` - ``str``, ``int``, ``float``, ``bool`` or ``dict``, what pydantic
  validates a JSON value against (lax mode: ``"30000"`` is an int, ``0`` no
  string) - or ``null`` for any other annotation (a Literal, a union of several
  types); and ``optional``: ``None`` (JSON ``null``) is in the annotation;
* ``extra``: ``forbid`` when the class is a pydantic dataclass whose config
  forbids extra fields (vLLM's ``@config`` decorator in ``vllm/config/utils.py``
  builds ``ConfigDict(extra="forbid")``: an unknown key stops vLLM with
  "Unexpected keyword argument"), ``ignore`` for a standard-library dataclass
  (pydantic's ``TypeAdapter`` drops unknown keys of those);
* ``missing_role``: the message ``__post_init__`` raises when ``kv_connector`` is
  set and ``kv_role`` is not (the f-string's literal text, ``{...}`` parts as
  written);
* ``source``: the file and line of the class;
* ``connectors``: the connector names ``KVConnectorFactory.register_connector``
  registers (``vllm/distributed/kv_transfer/kv_connector/factory.py``): a
  ``kv_connector`` outside them, with no ``kv_connector_module_path``, stops the
  engine with "Unsupported connector type" unless a plugin registers it.

Only the standard library is used; the output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "pdlint", "engines", "vllm", "data", "kv-transfer-config.json"))
_VERSION = re.compile(r"vllm-(\d+(?:\.\d+)+(?:\.post\d+)?)")


def _sources(path: str) -> dict:
    """{path inside the package (``vllm/...``): text} of the archive's ``vllm/config*`` sources."""
    out = {}
    want = re.compile(r"(?:^|/)(vllm/config(?:\.py|/[^/]+\.py)|vllm/distributed/kv_transfer/kv_connector/factory\.py)$")
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                m = want.search(name)
                if m:
                    out[m.group(1)] = z.read(name).decode("utf-8")
    else:
        with tarfile.open(path) as t:
            for member in t.getmembers():
                m = want.search(member.name)
                if m and member.isfile():
                    out[m.group(1)] = t.extractfile(member).read().decode("utf-8")
    return out


def _literal_values(node, aliases: dict, depth: int = 0):
    """The strings a ``Literal[...]`` annotation (through ``aliases``, ``X | None``, ``Optional[X]``) admits, or
    None when it is no Literal."""
    if depth > 10 or node is None:
        return None
    if isinstance(node, ast.Name):
        return _literal_values(aliases.get(node.id), aliases, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        parts = [_literal_values(side, aliases, depth + 1) for side in (node.left, node.right)
                 if not (isinstance(side, ast.Constant) and side.value is None)]
        return parts[0] if len(parts) == 1 else None
    if isinstance(node, ast.Subscript):
        head = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return _literal_values(items[0], aliases, depth + 1)
        if head == "Literal":
            values: list = []
            for it in items:
                if isinstance(it, ast.Constant) and isinstance(it.value, str):
                    values.append(it.value)
                else:
                    sub = _literal_values(it, aliases, depth + 1)
                    if sub is None:
                        return None
                    values += sub
            return values
    return None


_SIMPLE = {"str": "str", "int": "int", "float": "float", "bool": "bool", "dict": "dict", "Dict": "dict"}


def _type_atoms(node, aliases: dict, depth: int = 0) -> list:
    """The members of an annotation's union: ``str`` / ``int`` / ``float`` / ``bool`` / ``dict`` / ``none``, or
    ``other`` (a Literal, a class, a list...)."""
    if depth > 10 or node is None:
        return ["other"]
    if isinstance(node, ast.Constant) and node.value is None:
        return ["none"]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        try:
            return _type_atoms(ast.parse(node.value, mode="eval").body, aliases, depth + 1)
        except SyntaxError:
            return ["other"]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _type_atoms(node.left, aliases, depth + 1) + _type_atoms(node.right, aliases, depth + 1)
    if isinstance(node, ast.Name):
        if node.id in _SIMPLE:
            return [_SIMPLE[node.id]]
        if node.id in aliases:
            return _type_atoms(aliases[node.id], aliases, depth + 1)
        return ["other"]
    if isinstance(node, ast.Subscript):
        head = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return _type_atoms(items[0], aliases, depth + 1) + ["none"]
        if head == "Union":
            return [a for it in items for a in _type_atoms(it, aliases, depth + 1)]
        if head in ("dict", "Dict"):
            return ["dict"]
    return ["other"]


def _field_type(annotation, aliases: dict) -> dict:
    atoms = _type_atoms(annotation, aliases)
    kinds = sorted({a for a in atoms if a != "none"})
    return {"type": kinds[0] if len(kinds) == 1 and kinds[0] != "other" else None, "optional": "none" in atoms}


def _message(call) -> str:
    """The text of ``raise ValueError("..." f"...")``: literal parts as written, ``{expr}`` kept."""
    if not call.args:
        return ""
    arg = call.args[0]
    if isinstance(arg, ast.Constant):
        return str(arg.value)
    if isinstance(arg, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                       for v in arg.values)
    return ast.unparse(arg)


def _connectors(sources: dict) -> list:
    text = sources.get("vllm/distributed/kv_transfer/kv_connector/factory.py")
    if text is None:
        raise SystemExit("no vllm/distributed/kv_transfer/kv_connector/factory.py in the archive")
    return sorted({n.args[0].value for n in ast.walk(ast.parse(text))
                   if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "register_connector"
                   and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)})


def _forbids_extra(sources: dict) -> bool:
    text = sources.get("vllm/config/utils.py", "")
    return re.search(r"ConfigDict\(\s*extra\s*=\s*[\"']forbid[\"']", text) is not None


def release(path: str) -> tuple:
    m = _VERSION.search(os.path.basename(path))
    if not m:
        raise SystemExit(f"{path}: cannot tell the vLLM release from the file name")
    version = m.group(1)
    sources = _sources(path)
    for rel, text in sorted(sources.items()):
        if not rel.startswith("vllm/config"):
            continue
        tree = ast.parse(text)
        aliases = {t.targets[0].id: t.value for t in tree.body
                   if isinstance(t, ast.Assign) and len(t.targets) == 1 and isinstance(t.targets[0], ast.Name)}
        for node in tree.body:
            if not (isinstance(node, ast.ClassDef) and node.name == "KVTransferConfig"):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            fields = {}
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    choices = _literal_values(st.annotation, aliases)
                    fields[st.target.id] = {"choices": sorted(set(choices)) if choices is not None else None,
                                            **_field_type(st.annotation, aliases)}
            missing = ""
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "__post_init__":
                    for r in ast.walk(fn):
                        if isinstance(r, ast.Raise) and isinstance(r.exc, ast.Call):
                            msg = _message(r.exc)
                            if msg.startswith("Please specify"):
                                missing = msg
            pydantic = "config" in decorators and "dataclass" not in decorators
            extra = "forbid" if pydantic and _forbids_extra(sources) else "ignore"
            return version, {"source": f"{rel}:{node.lineno}", "fields": fields, "extra": extra,
                             "missing_role": missing, "connectors": _connectors(sources)}
    raise SystemExit(f"{path}: no KVTransferConfig class in vllm/config*")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="+")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    doc = {"generator": "scripts/gen_vllm_kv_config.py", "releases": dict(release(p) for p in args.archives)}
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    with io.open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(f"{args.out}: {', '.join(doc['releases'])}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
