#!/usr/bin/env python3
"""Generate pdlint's table of TensorRT-LLM LLM-API option keys (TRT014) statically from
``tensorrt_llm/llmapi/llm_args.py``.

Usage::

    python scripts/gen_trtllm_llm_args.py LLM_ARGS_PY --repository NVIDIA/TensorRT-LLM \\
        --commit 0004396720054fd8e205cbf616f21f0b57c6b412 --label main@0004396 [--note TEXT]

The file is read with :mod:`ast` (TensorRT-LLM is never imported).  The keys an LLM-API options file may hold
are the fields of ``TorchLlmArgs`` (``LlmArgs = TorchLlmArgs``), its bases' included (``BaseLlmArgs``): every
annotated assignment of a class body whose name does not start with ``_`` and is no ``ClassVar``; a field's
``Field(alias=...)`` and ``validation_alias=AliasChoices(...)`` names are accepted too.  ``BaseLlmArgs`` and the
sub-configs are ``StrictBaseModel`` s (``extra="forbid"``): an unknown key stops the server ("Extra inputs are
not permitted").

A field typed with a model class of the file (``KvCacheConfig``, ``Optional[CacheTransceiverConfig]``) holds
that class's keys (nested: ``kv_cache_config.free_gpu_memory_fraction``); one typed with a discriminated union
of model classes (``speculative_config``: ``SpeculativeConfig``, keyed by ``decoding_type``) holds the keys of
any member (a key no member has is unknown whatever the discriminator; a key of another member than the one
chosen is not judged).  Any other field -- a scalar, a ``dict``, ``object``, a class imported from another
module (``LoraConfig``, ``TelemetryConfig``), a union with a non-model member -- is ``"*"``: any key below it.

Keys trtllm-serve and Dynamo's ``dynamo.trtllm`` consume before the LLM arguments are built
(``update_llm_args_with_extra_dict``: the keys it tests with ``'KEY' in llm_args_dict`` and its
``field_mapping``), and the removed arguments ``TorchLlmArgs`` still drops on input
(``_TORCH_LLMARGS_REMOVED_ARG_CHECKS``) are top-level keys too.

Output: ``pdlint/engines/trtllm/data/llm-args-keys.json`` (deterministic; standard library only).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from typing import Optional

GENERATOR = "scripts/gen_trtllm_llm_args.py"
ROOT_CLASS = "TorchLlmArgs"
MODEL_BASES = ("StrictBaseModel", "BaseModel")
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "pdlint", "engines", "trtllm", "data", "llm-args-keys.json")
ANY = "*"
MAX_DEPTH = 12


def _name(node) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted (forward) annotation
        try:
            return _name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    return None


class Source:
    def __init__(self, text: str):
        self.tree = ast.parse(text)
        self.classes = {}  # name -> (bases, [(field, annotation, aliases)])
        self.aliases = {}  # type alias name -> annotation node
        self.removed = []  # _TORCH_LLMARGS_REMOVED_ARG_CHECKS keys
        self.consumed = []  # keys update_llm_args_with_extra_dict tests for
        self.field_mapping = {}  # key -> class name
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = ([_name(b) for b in node.bases], self._fields(node))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self._module_assign(node.targets[0].id, node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self._module_assign(node.target.id, node.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "update_llm_args_with_extra_dict":
                self._merge_function(node)

    def _module_assign(self, name: str, value) -> None:
        if name == "_TORCH_LLMARGS_REMOVED_ARG_CHECKS" and isinstance(value, ast.Dict):
            self.removed = [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        elif isinstance(value, (ast.Subscript, ast.Name, ast.BinOp)):
            self.aliases[name] = value

    def _merge_function(self, fn) -> None:
        for node in ast.walk(fn):
            if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In)
                    and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
                    and _name(node.comparators[0]) == "llm_args_dict"):
                if node.left.value not in self.consumed:
                    self.consumed.append(node.left.value)
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and _name(node.targets[0]) == "field_mapping"
                  and isinstance(node.value, ast.Dict)):
                for k, v in zip(node.value.keys, node.value.values):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        self.field_mapping[k.value] = _name(v)

    @staticmethod
    def _fields(cls) -> list:
        out = []
        for st in cls.body:
            if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                continue
            name = st.target.id
            if name.startswith("_") or name == "model_config":
                continue
            ann = st.annotation
            if isinstance(ann, ast.Subscript) and _name(ann.value) == "ClassVar":
                continue
            aliases = []
            if isinstance(st.value, ast.Call) and _name(st.value.func) in ("Field", "PydanticField"):
                for kw in st.value.keywords:
                    if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                        aliases.append(kw.value.value)
                    elif kw.arg == "validation_alias":
                        v = kw.value
                        if isinstance(v, ast.Constant) and isinstance(v.value, str):
                            aliases.append(v.value)
                        elif isinstance(v, ast.Call) and _name(v.func) == "AliasChoices":
                            aliases += [a.value for a in v.args if isinstance(a, ast.Constant)
                                        and isinstance(a.value, str)]
            out.append((name, ann, [a for a in aliases if isinstance(a, str) and a != name]))
        return out

    def is_model(self, name: Optional[str], depth: int = 0) -> bool:
        if name in MODEL_BASES:
            return True
        if name not in self.classes or depth > MAX_DEPTH:
            return False
        return any(self.is_model(b, depth + 1) for b in self.classes[name][0])

    def fields_of(self, name: str, depth: int = 0) -> dict:
        """{field: (annotation, aliases)} of a model class, its bases' first (a redeclaration wins)."""
        if name not in self.classes or depth > MAX_DEPTH:
            return {}
        bases, own = self.classes[name]
        out = {}
        for b in reversed(bases):
            out.update(self.fields_of(b, depth + 1))
        for f, ann, aliases in own:
            out[f] = (ann, aliases)
        return out

    def members(self, ann, depth: int = 0) -> Optional[list]:
        """The model classes an annotation is (Optional / Union / Annotated / ``X | None`` / a type alias
        unwrapped); None when any member is something else."""
        if depth > MAX_DEPTH or ann is None:
            return None
        if isinstance(ann, ast.Constant) and ann.value is None:
            return []
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                return self.members(ast.parse(ann.value, mode="eval").body, depth + 1)
            except SyntaxError:
                return None
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            left, right = self.members(ann.left, depth + 1), self.members(ann.right, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(ann, ast.Subscript):
            head = _name(ann.value)
            sl = ann.slice.value if isinstance(ann.slice, ast.Index) else ann.slice  # (Python 3.8's ast.Index)
            args = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
            if head == "Optional":
                return self.members(args[0], depth + 1)
            if head == "Union":
                out = []
                for a in args:
                    m = self.members(a, depth + 1)
                    if m is None:
                        return None
                    out += m
                return out
            if head == "Annotated":
                return self.members(args[0], depth + 1)
            return None
        name = _name(ann)
        if name is None:
            return None
        if name == "None":
            return []
        if name in self.aliases and name not in self.classes:
            return self.members(self.aliases[name], depth + 1)
        if name in self.classes and self.is_model(name):
            return [name]
        return None

    def node(self, classes: list, depth: int = 0):
        """The key tree of a model class (or of a union of them: any member's keys)."""
        if depth > MAX_DEPTH:
            return ANY
        keys: dict = {}
        for cls in classes:
            for f, (ann, aliases) in sorted(self.fields_of(cls).items()):
                m = self.members(ann)
                sub = self.node(m, depth + 1) if m else ANY
                for k in [f] + aliases:
                    keys[k] = _merge(keys.get(k), sub)
        return {"class": " | ".join(classes), "keys": dict(sorted(keys.items()))}


def _merge(a, b):
    if a is None:
        return b
    if a == ANY or b == ANY:
        return ANY
    keys = dict(a["keys"])
    for k, v in b["keys"].items():
        keys[k] = _merge(keys.get(k), v)
    classes = a["class"].split(" | ") + [c for c in b["class"].split(" | ") if c not in a["class"].split(" | ")]
    return {"class": " | ".join(classes), "keys": dict(sorted(keys.items()))}


def build(text: str, source: dict) -> dict:
    src = Source(text)
    if ROOT_CLASS not in src.classes:
        raise SystemExit(f"{ROOT_CLASS} is not defined in the file")
    root = src.node([ROOT_CLASS])
    extra = {}
    for k in src.removed:
        extra[k] = "removed argument: TorchLlmArgs drops it on input (_TORCH_LLMARGS_REMOVED_ARG_CHECKS)"
    for k in src.consumed:
        extra.setdefault(k, "read by update_llm_args_with_extra_dict (trtllm-serve, dynamo.trtllm)")
    for k, cls in src.field_mapping.items():
        extra.setdefault(k, f"converted by update_llm_args_with_extra_dict's field_mapping ({cls})")
    for k in sorted(extra):
        if k in root["keys"]:
            continue
        cls = src.field_mapping.get(k)
        root["keys"][k] = src.node([cls]) if cls in src.classes and src.is_model(cls) else ANY
    root["keys"] = dict(sorted(root["keys"].items()))
    return {
        "generator": GENERATOR,
        "schema": 1,
        "source": source,
        "root": ROOT_CLASS,
        "consumed_before_llm_args": dict(sorted(extra.items())),
        "tree": root,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="tensorrt_llm/llmapi/llm_args.py (a copy, or an excerpt holding its classes)")
    ap.add_argument("--repository", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--label", required=True, help="main@<commit7>, or the release its version.py names")
    ap.add_argument("--note", default="", help="how the file was obtained")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    with open(a.file, encoding="utf-8") as fh:
        text = fh.read()
    source = {"repository": a.repository, "path": "tensorrt_llm/llmapi/llm_args.py", "commit": a.commit,
              "label": a.label}
    if a.note:
        source["note"] = a.note
    doc = build(text, source)
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=False)
        fh.write("\n")
    n = _count(doc["tree"])
    print(f"wrote {a.out}: {n} keys under {ROOT_CLASS}", file=sys.stderr)
    return 0


def _count(node) -> int:
    if node == ANY:
        return 0
    return sum(1 + _count(v) for v in node["keys"].values())


if __name__ == "__main__":
    sys.exit(main())
