#!/usr/bin/env python3
"""Extract the value sets SGLang checks after argparse, per release, from its wheels.

Some flags are plain strings to argparse (no ``choices``) but SGLang looks
their value up later, and an unknown value stops the server:

* ``--speculative-algorithm``: ``SpeculativeAlgorithm.from_string`` upper-cases
  the name and looks it up among the ``SpeculativeAlgorithm`` enum members
  (``sglang/srt/speculative/spec_info.py``), the reserved aliases of the plugin
  registry (``_RESERVED_ALIASES``) and the plugins' registrations; only for the
  releases whose parser has no ``choices`` for it (earlier ones are argparse's);
* ``--dllm-algorithm``: ``get_algorithm_cls`` looks the name up in the class
  names of the ``Algorithm`` of every module of ``sglang/srt/dllm/algorithm/``;
* ``--model-config-parser``: ``get_model_config_parser`` looks it up among the
  names registered with ``@register_model_config_parser(...)`` (``auto`` is
  resolved first);
* ``--log-level``: ``getattr(logging, log_level.upper())`` (Python's logging
  level names; any other attribute is an AttributeError, a non-level one a
  ValueError from ``logging.basicConfig``);
* ``--json-model-override-args``: ``json.loads`` in ``ModelConfig`` and the
  object's ``.items()`` in ``get_config`` (not a set: a JSON object).

It also records what a release supports under PD, read from the same
source, for the checks whose outcome changed between releases:

* ``decode_radix_cache_speculation``: the speculative algorithms a decode
  server with ``--disaggregation-decode-enable-radix-cache`` may use (the
  ``not in (None, ...)`` / ``is not None`` condition of the check that raises
  "--disaggregation-decode-enable-radix-cache is incompatible with speculative
  decoding"), and whether it sees the value as written (a hook that runs
  before the speculative hook upper-cases and aliases it);
* ``pd_prefill_pipeline_parallel``: releases that have pipeline parallelism
  (``event_loop_pp``) but whose PD prefill dispatch in ``run_scheduler_process``
  never runs a pipeline-parallel loop (the prefill crashes on its first batch);
* ``pd_decode_dflash``: releases with the DFLASH algorithm whose PD decode
  path builds no DFLASH draft input (the decode crashes on its first batch);
* ``pd_swa_hybrid_heterogeneous_tp``: the transfer backends whose sender
  raises "PD Disaggregation does NOT support PD different TP sizes for non-MLA
  ... hybrid models yet" for the sliding-window (SWA) state, i.e. refuse
  different attention TP sizes for a non-MLA SWA hybrid model (gpt-oss).

The wheel is read as a zip and its sources with ``ast``; SGLang is never
imported.  Each set records the release's values and the source line of the
check (``path:line``) with the message as that release writes it.  The result
is packed into ``pdlint/engines/sglang/data/sglang-values.jsonl``
(``pdlint/engines/sglang/packed.py``).  A layout the generator does not know
stops it with an error, so a new release is looked at, not guessed.

Usage: python scripts/gen_sglang_values.py --wheel sglang-X-….whl [--wheel ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import logging
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "pdlint", "engines", "sglang", "data")
GENERATOR = "scripts/gen_sglang_values.py"

SPEC_INFO = "sglang/srt/speculative/spec_info.py"
SPEC_REGISTRY = "sglang/srt/speculative/spec_registry.py"
DLLM_PKG = "sglang/srt/dllm/algorithm/"
MCP_REGISTRY = "sglang/srt/configs/model_config_parser_registry.py"
MODEL_CONFIG = "sglang/srt/configs/model_config.py"

# Python's logging: the names getattr(logging, NAME) resolves to a level (the same in CPython 3.8-3.13)
LOG_LEVELS = sorted(n for n in dir(logging) if n.isupper() and isinstance(getattr(logging, n), int))


class Unknown(Exception):
    """A layout this generator does not understand."""


class Wheel:
    def __init__(self, path: str):
        self.path = path
        self.zip = zipfile.ZipFile(path)
        self.names = set(self.zip.namelist())
        self._trees: dict = {}

    @property
    def version(self) -> str:
        return os.path.basename(self.path).split("-")[1]

    def text(self, name: str) -> str:
        return self.zip.read(name).decode("utf-8")

    def tree(self, name: str) -> ast.Module:
        t = self._trees.get(name)
        if t is None:
            t = self._trees[name] = ast.parse(self.text(name), name)
        return t

    def sources(self, prefix: str = "sglang/srt/"):
        for n in sorted(self.names):
            if n.startswith(prefix) and n.endswith(".py"):
                yield n


def _fstring(node) -> str:
    """An f-string with its fields as ``{}`` (the message corpus' convention), a plain string as is."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _fstring(node.left) + _fstring(node.right)
    return ""


def _raise_with(tree: ast.AST, needle: str):
    """``(line, message)`` of the first ``raise X(msg)`` whose message contains ``needle``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            msg = _fstring(node.exc.args[0])
            if needle in msg:
                return node.lineno, " ".join(msg.split())
    return None


def _class(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def _method(cls: ast.ClassDef, name: str):
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _str_set(node) -> list:
    """The strings of a literal set/frozenset/tuple/list (``frozenset({"NEXTN"})`` too)."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Name) and \
            node.func.id in ("frozenset", "set", "tuple"):
        node = node.args[0]
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        out = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(out) == len(node.elts):
            return out
    raise Unknown(f"not a literal set of strings: {ast.dump(node)[:200]}")


def _module_assign(tree: ast.Module, name: str):
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node.value
    return None


def _compared_literals(w: Wheel, dest: str) -> set:
    """String literals the resolution compares ``<...>.dest`` / ``dest`` with (``== "NEXTN"``, ``in ("EAGLE",
    "NEXTN")``) in server_args.py and arg_groups/: names SGLang's own code handles before or instead of the
    lookup (NEXTN becomes EAGLE)."""
    out: set = set()

    def named(n) -> bool:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "upper":
            n = n.func.value
        return (isinstance(n, ast.Name) and n.id == dest) or (isinstance(n, ast.Attribute) and n.attr == dest)

    for name in w.sources("sglang/srt/"):
        if not (name == "sglang/srt/server_args.py" or name.startswith("sglang/srt/arg_groups/")):
            continue
        for node in ast.walk(w.tree(name)):
            if not isinstance(node, ast.Compare) or not named(node.left):
                continue
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) and \
                        isinstance(right.value, str):
                    out.add(right.value)
                elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                    out |= {e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return out


# ---------------------------------------------------------------------------
# The sets
# ---------------------------------------------------------------------------

def speculative_algorithm(w: Wheel, table) -> dict:
    """Only where argparse has no choices for the flag (before that argparse rejects unknown names)."""
    flag = table.lookup("--speculative-algorithm") if table is not None else None
    if flag is None or flag.choices or SPEC_INFO not in w.names:
        return {}
    tree = w.tree(SPEC_INFO)
    cls = _class(tree, "SpeculativeAlgorithm")
    fn = _method(cls, "from_string") if cls is not None else None
    if fn is None:
        raise Unknown("SpeculativeAlgorithm.from_string not found")
    body = ast.unparse(fn)
    if "cls[" not in body:
        raise Unknown("from_string does not look the name up among the enum members")
    if not any(isinstance(b, ast.Name) and b.id in ("Enum", "IntEnum") for b in cls.bases):
        raise Unknown("SpeculativeAlgorithm is not an Enum")
    members = [t.id for node in cls.body if isinstance(node, ast.Assign) for t in node.targets
               if isinstance(t, ast.Name) and t.id.isupper()]
    aliases: list = []
    if "_RESERVED_ALIASES" in body:
        value = _module_assign(w.tree(SPEC_REGISTRY), "_RESERVED_ALIASES") if SPEC_REGISTRY in w.names else None
        if value is None:
            raise Unknown("_RESERVED_ALIASES is read but not defined in spec_registry.py")
        aliases = _str_set(value)
    handled = sorted(v.upper() for v in _compared_literals(w, "speculative_algorithm") if v.upper() not in members)
    found = _raise_with(fn, "Unknown speculative algorithm")
    if found is None:
        raise Unknown("from_string raises no 'Unknown speculative algorithm' error")
    line, message = found
    plugins = "_get_registered_spec" in body
    return {"speculative_algorithm": {
        "dest": "speculative_algorithm", "case": "upper", "error": "ValueError",
        "values": sorted(set(members) | set(aliases) | set(handled)),
        "members": members, "aliases": sorted(aliases), "handled": handled,
        "plugins": plugins, "source": f"{SPEC_INFO}:{line}", "message": message}}


def dllm_algorithm(w: Wheel, table) -> dict:
    init = DLLM_PKG + "__init__.py"
    if init not in w.names:
        return {}
    text = w.text(init)
    if "iter_modules" not in text or "algo.__name__" not in text or "Algorithm" not in text:
        raise Unknown("dllm/algorithm/__init__.py does not map module.Algorithm.__name__")
    found = _raise_with(w.tree(init), "Unknown diffusion LLM algorithm")
    if found is None:
        raise Unknown("no 'Unknown diffusion LLM algorithm' error")
    names = []
    for name in w.sources(DLLM_PKG):
        if name.count("/") != DLLM_PKG.count("/") or name.endswith("__init__.py"):
            continue  # iter_modules: the package's own modules, not sub-packages
        value = _module_assign(w.tree(name), "Algorithm")
        if value is None:
            continue
        if not isinstance(value, ast.Name):
            raise Unknown(f"{name}: Algorithm = {ast.unparse(value)}")
        cls = _class(w.tree(name), value.id)
        if cls is None:
            raise Unknown(f"{name}: Algorithm = {value.id}, a class not defined there")
        names.append(cls.name)
    line, message = found
    return {"dllm_algorithm": {"dest": "dllm_algorithm", "case": "exact", "error": "RuntimeError",
                               "values": sorted(names), "source": f"{init}:{line}", "message": message}}


def model_config_parser(w: Wheel, table) -> dict:
    if MCP_REGISTRY not in w.names:
        return {}
    found = _raise_with(w.tree(MCP_REGISTRY), "Unknown model-config parser")
    if found is None:
        raise Unknown("no 'Unknown model-config parser' error")
    names = set()
    for name in w.sources("sglang/"):
        text = w.text(name)
        if "register_model_config_parser(" not in text:
            continue
        for node in ast.walk(w.tree(name)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == \
                    "register_model_config_parser" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
                elif name != MCP_REGISTRY:
                    raise Unknown(f"{name}: register_model_config_parser({ast.unparse(arg)})")
    auto = "auto" in _compared_literals(w, "model_config_parser") or any(
        '"auto"' in w.text(n) and "model_config_parser" in w.text(n)
        for n in ("sglang/srt/utils/hf_transformers/config.py", "sglang/srt/utils/hf_transformers_utils.py")
        if n in w.names)
    line, message = found
    return {"model_config_parser": {"dest": "model_config_parser", "case": "exact", "error": "ValueError",
                                    "values": sorted(names), "resolved_first": ["auto"] if auto else [],
                                    "source": f"{MCP_REGISTRY}:{line}", "message": message}}


def log_level(w: Wheel, table) -> dict:
    """The first place the launch runs ``getattr(logging, ....log_level.upper())``: prepare_server_args when it
    does (0.5.11+), else configure_logger at launch."""
    pattern = re.compile(r"getattr\(\s*logging\s*,\s*[\w.]*\blog_level\.upper\(\)\s*\)")
    found = []
    for name in w.sources("sglang/srt/"):
        text = w.text(name)
        if "log_level.upper()" not in text:
            continue
        for i, line in enumerate(text.split("\n"), 1):
            if pattern.search(line):
                found.append((name, i))
    if not found:
        raise Unknown("no getattr(logging, log_level.upper())")
    first = next((f for f in found if f[0] == "sglang/srt/server_args.py"), None) or next(
        (f for f in found if "utils" in f[0]), found[0])
    return {"log_level": {"dest": "log_level", "case": "upper", "error": "AttributeError",
                          "values": LOG_LEVELS, "source": f"{first[0]}:{first[1]}",
                          "message": "module 'logging' has no attribute '{}'"}}


def json_model_override_args(w: Wheel, table) -> dict:
    """ModelConfig's ``json.loads(model_override_args)``."""
    if MODEL_CONFIG not in w.names:
        raise Unknown("no configs/model_config.py")
    lines = [i for i, line in enumerate(w.text(MODEL_CONFIG).split("\n"), 1)
             if re.search(r"json\.loads\(\s*model_override_args\s*\)", line)]
    if not lines:
        raise Unknown("ModelConfig does not json.loads(model_override_args)")
    return {"json_model_override_args": {"dest": "json_model_override_args", "kind": "json-object",
                                         "error": "JSONDecodeError", "source": f"{MODEL_CONFIG}:{lines[-1]}"}}


# ---------------------------------------------------------------------------
# What PD supports, per release
# ---------------------------------------------------------------------------

RADIX_SPEC = "--disaggregation-decode-enable-radix-cache is incompatible with speculative decoding"
SCHEDULER = "sglang/srt/managers/scheduler.py"
DECODE_MIXIN = "sglang/srt/disaggregation/decode_schedule_batch_mixin.py"


def _parents(tree) -> dict:
    out = {}
    for p in ast.walk(tree):
        for c in ast.iter_child_nodes(p):
            out[c] = p
    return out


def _enclosing(node, parents):
    """The ``If`` tests around ``node`` (innermost first) and the name of its function."""
    tests, fn = [], None
    p = node
    while p in parents:
        p = parents[p]
        if isinstance(p, ast.If):
            tests.append(p.test)
        elif isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = p.name
            break
    return tests, fn


def decode_radix_cache_speculation(w: Wheel, table) -> dict:
    for name in w.sources("sglang/srt/"):
        if not (name == "sglang/srt/server_args.py" or name.startswith("sglang/srt/arg_groups/")):
            continue
        if "--disaggregation-decode-enable-radix-cache is incompatible" not in w.text(name):
            continue
        tree = w.tree(name)
        parents = _parents(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            message = " ".join(_fstring(node.exc.args[0]).split())
            if RADIX_SPEC not in message:
                continue
            tests, fn = _enclosing(node, parents)
            allowed = None
            for t in tests:
                for cmp in ast.walk(t):
                    if not (isinstance(cmp, ast.Compare) and isinstance(cmp.left, ast.Attribute)
                            and cmp.left.attr == "speculative_algorithm" and len(cmp.ops) == 1):
                        continue
                    op, right = cmp.ops[0], cmp.comparators[0]
                    if isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
                        allowed = []
                    elif isinstance(op, ast.NotIn) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                        vals = [e.value for e in right.elts if isinstance(e, ast.Constant)]
                        if None not in vals or not all(isinstance(v, str) for v in vals if v is not None):
                            raise Unknown(f"{name}:{node.lineno}: {ast.unparse(cmp)}")
                        allowed = sorted(v for v in vals if v is not None)
                    else:
                        raise Unknown(f"{name}:{node.lineno}: {ast.unparse(cmp)}")
            if allowed is None:
                raise Unknown(f"{name}:{node.lineno}: no condition on speculative_algorithm")
            return {"decode_radix_cache_speculation": {
                "dest": "speculative_algorithm", "kind": "allowed", "values": allowed,
                # the speculative hook upper-cases the name and turns NEXTN into EAGLE; a check in an earlier
                # hook sees it as written
                "raw": fn != "handle_speculative_decoding", "function": fn,
                "source": f"{name}:{node.lineno}", "message": message, "error": "ValueError"}}
    return {}


def _calls(node) -> set:
    return {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def pd_prefill_pipeline_parallel(w: Wheel, table) -> dict:
    if SCHEDULER not in w.names:
        return {}
    managers = [n for n in w.sources("sglang/srt/managers/")]
    if not any("def event_loop_pp(" in w.text(n) for n in managers):
        return {}  # no pipeline parallelism at all
    if any(re.search(r"\.event_loop_pp_disagg_prefill\(", w.text(n)) for n in managers):
        return {}  # the PD prefill has its pipeline-parallel loop
    tree = w.tree(SCHEDULER)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "DisaggregationMode.PREFILL" in ast.unparse(node.test) and \
                "disaggregation_mode" in ast.unparse(node.test):
            loops = {c for stmt in node.body for c in _calls(stmt) if c.startswith("event_loop")}
            if not loops:
                continue
            crash = ""
            prefill = "sglang/srt/disaggregation/prefill.py"
            if prefill in w.names:
                for i, line in enumerate(w.text(prefill).split("\n"), 1):
                    if "next_token_ids.tolist()" in line:
                        crash = f"{prefill}:{i}"
                        break
            return {"pd_prefill_pipeline_parallel": {
                "dest": "pp_size", "kind": "unsupported", "loops": sorted(loops), "crash": crash,
                "source": f"{SCHEDULER}:{node.lineno}"}}
    raise Unknown(f"{SCHEDULER}: no PD prefill branch that runs an event loop")


def pd_decode_dflash(w: Wheel, table) -> dict:
    if SPEC_INFO not in w.names:
        return {}
    cls = _class(w.tree(SPEC_INFO), "SpeculativeAlgorithm")
    members = [t.id for node in (cls.body if cls else []) if isinstance(node, ast.Assign) for t in node.targets
               if isinstance(t, ast.Name)]
    if "DFLASH" not in members:
        return {}
    builder = _method(cls, "build_disagg_draft_input")
    if builder is not None:
        if "dflash" in ast.unparse(builder).lower():
            return {}
        return {"pd_decode_dflash": {"dest": "speculative_algorithm", "kind": "unsupported",
                                     "source": f"{SPEC_INFO}:{builder.lineno}",
                                     "branches": sorted(c for c in _calls(builder) if c.startswith("is_"))}}
    if DECODE_MIXIN not in w.names:
        raise Unknown("no build_disagg_draft_input and no decode_schedule_batch_mixin.py")
    text = w.text(DECODE_MIXIN)
    if "dflash" in text.lower():
        return {}
    line = next((i for i, l in enumerate(text.split("\n"), 1) if "spec_algorithm.is_eagle()" in l), None)
    if line is None:
        raise Unknown(f"{DECODE_MIXIN}: no speculative draft-input branch")
    return {"pd_decode_dflash": {"dest": "speculative_algorithm", "kind": "unsupported",
                                 "source": f"{DECODE_MIXIN}:{line}", "branches": ["is_eagle"]}}


SWA_TP = "PD Disaggregation does NOT support PD different TP sizes for non-MLA"


def _state_set(tree, method: str) -> str:
    """The source of the tuple a ``self.<method>(st)`` membership helper returns ('' when not found)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == method:
            return ast.unparse(node)
    return ""


def pd_swa_hybrid_heterogeneous_tp(w: Wheel, table) -> dict:
    backends, sources = [], {}
    for name in w.sources("sglang/srt/disaggregation/"):
        parts = name.split("/")
        if len(parts) != 5 or parts[4] != "conn.py" or SWA_TP not in w.text(name):
            continue
        tree = w.tree(name)
        parents = _parents(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            if SWA_TP not in " ".join(_fstring(node.exc.args[0]).split()):
                continue
            tests, fn = _enclosing(node, parents)
            text = " ".join(ast.unparse(t) for t in tests)
            for helper in re.findall(r"self\.(_is_\w+)\(st\)", text):
                text += " " + _state_set(tree, helper)
            if re.search(r"!=\s*StateType\.SWA\b|!=\s*'swa'", text):
                continue  # the SWA state is sliced by heads: supported
            if re.search(r"StateType\.SWA\b|'swa'", text):
                backend = parts[3]
                if backend not in backends:
                    backends.append(backend)
                    sources[backend] = f"{name}:{node.lineno}"
    if not backends:
        return {}
    return {"pd_swa_hybrid_heterogeneous_tp": {"dest": "disaggregation_transfer_backend", "kind": "unsupported",
                                               "values": sorted(backends), "sources": sources,
                                               "source": sources[sorted(backends)[0]], "error": "RuntimeError"}}


EXTRACTORS = (speculative_algorithm, dllm_algorithm, model_config_parser, log_level, json_model_override_args,
              decode_radix_cache_speculation, pd_prefill_pipeline_parallel, pd_decode_dflash,
              pd_swa_hybrid_heterogeneous_tp)


def extract(wheel: str) -> dict:
    sys.path.insert(0, REPO)
    from pdlint.engines.sglang import flags
    w = Wheel(wheel)
    try:
        table = flags.load(w.version)
    except Exception:
        table = None  # no flag table for this release: the argparse-dependent sets are left out
    sets: dict = {}
    for fn in EXTRACTORS:
        try:
            sets.update(fn(w, table))
        except Unknown as e:
            raise SystemExit(f"{os.path.basename(wheel)}: {fn.__name__}: {e}")
    with open(wheel, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"schema": 1, "engine": "sglang", "version": w.version, "wheel": os.path.basename(wheel),
            "wheel_sha256": digest, "generator": GENERATOR, "sets": sets}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wheel", required=True, action="append")
    p.add_argument("--out", default=OUT)
    a = p.parse_args(argv)
    sys.path.insert(0, REPO)
    from pdlint.engines.sglang import packed
    path = os.path.join(a.out, packed.VALUES_FILE)
    docs = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            store = packed.ValueStore(f.read())
        docs = {v: store.doc(v) for v in store.versions}
    for wheel in a.wheel:
        data = extract(wheel)
        docs[data["version"]] = data
        print(f"SGLang {data['version']}: {', '.join(sorted(data['sets'])) or 'no sets'}")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(packed.pack_values(list(docs.values())))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
