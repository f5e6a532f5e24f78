#!/usr/bin/env python3
"""Generate pdlint's SGLang server-flag tables statically from an SGLang wheel.

Usage::

    python scripts/gen_sglang_flags.py --wheel sglang-0.5.23-....whl [--wheel ...] [--out DIR] [--json]
    python scripts/gen_sglang_flags.py --version 0.5.23 [--version ...] [--out DIR] [--json]

The wheel is read as a zip archive and its Python sources are analysed with
:mod:`ast`; SGLang is never imported (it needs torch).  Each release's table
describes every option that ``ServerArgs.add_cli_args(parser)`` registers on
the ``argparse`` parser that ``prepare_server_args`` builds, in registration
order.  The tables are added to ``sglang-flags.jsonl`` (every release, packed:
``pdlint/engines/sglang/packed.py``); ``--json`` writes ``flags-<version>.json``
files instead.

Three SGLang layouts are understood:

* **namespaces** (0.5.20+): ``server_args.py`` lists ``_INPUT_NAMESPACES``,
  ``msgspec.Struct`` classes in ``sglang/srt/arg_groups/fields/*.py`` whose
  fields are ``A[T, "help" | Arg(...)]``.  ``collect_input_fields`` orders the
  fields by ``arg_groups/field_order.py: POSITIONAL_FIELD_ORDER`` and
  ``arg_groups/arg_utils.py: add_cli_args_from_dataclass`` turns them into
  options; ``ServerArgs.add_cli_args`` then registers a few options by hand.
* **annotated dataclass** (0.5.15): ``ServerArgs`` is a dataclass in
  ``server_args.py`` with the same ``A[T, ...]`` field annotations, derived by
  the same ``add_cli_args_from_dataclass`` plus hand-registered options.
* **classic** (0.4.x - 0.5.9): ``ServerArgs.add_cli_args`` is a flat list of
  ``parser.add_argument(...)`` calls whose defaults are usually
  ``ServerArgs.<field>`` and whose choices are module-level constants.

Only the standard library is used.  Output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

GENERATOR = "scripts/gen_sglang_flags.py"
SCHEMA_VERSION = 1
SUPPRESS = "==SUPPRESS=="  # the value of argparse.SUPPRESS
SERVER_ARGS_MODULE = "sglang.srt.server_args"

# Names SGLang's action classes carry, mapped to the table's action kinds.
SGLANG_ACTION_KINDS = {
    "DeprecatedStoreTrueAction": "deprecated_store_true",
    "DeprecatedStoreConstAction": "deprecated_store_const",
    "DeprecatedAction": "deprecated",
    "DeprecatedAliasStoreAction": "deprecated_alias_store",
    "LoRAPathAction": "lora_path",
}

# argparse's built-in actions the table schema names: kind -> (nargs, const,
# default) argparse applies when add_argument() does not pass them.  Any other
# built-in action stops the generator, so the schema gets extended deliberately.
ARGPARSE_ACTIONS = {
    "store": (None, None, None),
    "store_const": (0, None, None),
    "store_true": (0, True, False),
    "store_false": (0, False, True),
    "append": (None, None, None),
    "count": (0, None, None),
    "boolean_optional": (0, None, None),
}

BUILTIN_TYPES = {"str", "int", "float"}
LIST_MUTATORS = {"append", "extend", "add", "insert", "update"}


class Unresolvable(Exception):
    """An expression whose value cannot be known without running SGLang."""


# ---------------------------------------------------------------------------
# Reading the wheel
# ---------------------------------------------------------------------------


class Wheel:
    """A wheel opened as a zip: module sources and parsed ASTs by module name."""

    def __init__(self, path: str):
        self.path = path
        with open(path, "rb") as fh:
            data = fh.read()
        self.sha256 = hashlib.sha256(data).hexdigest()
        self._zip = zipfile.ZipFile(path)
        self._names = set(self._zip.namelist())
        self._ast_cache: Dict[str, ast.Module] = {}

    @property
    def filename(self) -> str:
        return os.path.basename(self.path)

    def version(self) -> str:
        """The ``Version:`` field of the wheel's ``*.dist-info/METADATA``."""
        for name in sorted(self._names):
            if name.endswith(".dist-info/METADATA"):
                text = self._zip.read(name).decode("utf-8")
                match = re.search(r"^Version:\s*(\S+)\s*$", text, re.M)
                if match:
                    return match.group(1)
        raise SystemExit(f"{self.path}: no dist-info/METADATA Version field")

    def module_path(self, module: str) -> Optional[str]:
        """Archive path of ``module`` (a ``.py`` file or a package ``__init__``)."""
        base = module.replace(".", "/")
        for candidate in (base + ".py", base + "/__init__.py"):
            if candidate in self._names:
                return candidate
        return None

    def is_package(self, module: str) -> bool:
        return (module.replace(".", "/") + "/__init__.py") in self._names

    def module_ast(self, module: str) -> ast.Module:
        if module not in self._ast_cache:
            path = self.module_path(module)
            if path is None:
                raise Unresolvable(f"module {module} is not in the wheel")
            source = self._zip.read(path).decode("utf-8")
            self._ast_cache[module] = ast.parse(source, filename=path)
        return self._ast_cache[module]


# ---------------------------------------------------------------------------
# Values the static evaluator produces besides plain Python data
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class External:
    """A name from outside the wheel (stdlib, typing, msgspec, builtins)."""

    dotted: str


@dataclasses.dataclass(frozen=True)
class ModuleRef:
    """A module of the wheel bound by ``import x`` or reached as ``pkg.sub``."""

    name: str


@dataclasses.dataclass(frozen=True, eq=False)
class ClassRef:
    """A class defined in the wheel."""

    module: str
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name


@dataclasses.dataclass(frozen=True, eq=False)
class FuncRef:
    """A module-level function defined in the wheel."""

    module: str
    node: ast.FunctionDef


@dataclasses.dataclass(frozen=True, eq=False)
class LambdaRef:
    """A ``lambda`` (used as a ``default_factory``)."""

    node: ast.Lambda
    scope: "Scope"


@dataclasses.dataclass(frozen=True)
class EnumMember:
    """A member of an ``enum.Enum`` subclass defined in the wheel."""

    cls: str
    name: str
    value: Any


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """``dataclasses.field(...)`` / ``msgspec.field(...)`` as a field default."""

    default: Any
    factory: Any  # None, External("builtins.list"), LambdaRef, ...


@dataclasses.dataclass(frozen=True)
class BoundMethod:
    """``obj.method`` for a str/list/dict/set value, awaiting its call."""

    obj: Any
    name: str


class Placeholder:
    """A runtime-only value (``option_string``) rendered as ``{name}``."""

    def __init__(self, name: str):
        self.name = name

    def __format__(self, spec: str) -> str:
        return "{" + self.name + "}"

    __str__ = __repr__ = lambda self: "{" + self.name + "}"


class AttrBag:
    """An object with fixed attributes (``self`` inside an action's ``__call__``)."""

    def __init__(self, attrs: Dict[str, Any]):
        self.attrs = attrs


@dataclasses.dataclass
class Scope:
    """Where names are looked up: function locals, then a class body, then a module."""

    module: str
    locals: Dict[str, Tuple[Any, Tuple[str, ...]]] = dataclasses.field(
        default_factory=dict
    )
    cls: Optional[ClassRef] = None


# ---------------------------------------------------------------------------
# The static evaluator
# ---------------------------------------------------------------------------


def absolute_module(current: str, is_pkg: bool, level: int, module: Optional[str]) -> str:
    """Resolve a relative ``from ..x import y`` against the importing module."""
    if level == 0:
        return module or ""
    parts = current.split(".")
    if not is_pkg:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if module:
        parts.append(module)
    return ".".join(parts)


class Evaluator:
    """Evaluates constant-ish expressions of the wheel's modules without importing them.

    Handles literals, containers, arithmetic, f-strings, comprehensions,
    module-level constants (following ``from x import y`` across the wheel),
    class attributes (including ``Enum`` members), ``list()/set()/sorted()``,
    str/dict methods, ``dataclasses.field``/``msgspec.field`` and zero-argument
    helper functions (evaluated along their final ``return``).  Anything else
    raises :class:`Unresolvable`.  While evaluating, it collects notes about
    values that SGLang may change at runtime (plugin hooks, env-dependent
    branches), which become ``choices_note``/``default_note``.
    """

    def __init__(self, wheel: Wheel):
        self.wheel = wheel
        self.notes: List[str] = []
        # (module, function) -> replacement for calls of that wheel function
        self.call_hooks: Dict[Tuple[str, str], Callable[[List[Any]], Any]] = {}
        # (module, class) -> replacement for ``Class.attr`` reads
        self.attr_hooks: Dict[Tuple[str, str], Callable[[str], Any]] = {}
        self._module_bindings: Dict[str, Dict[str, List[ast.stmt]]] = {}

    # -- entry points -------------------------------------------------------

    def evaluate(self, node: ast.AST, scope: Scope) -> Tuple[Any, List[str]]:
        """Evaluate ``node``; return the value and the notes gathered on the way."""
        saved, self.notes = self.notes, []
        try:
            value = self.eval(node, scope)
            notes = list(dict.fromkeys(self.notes))
        finally:
            self.notes = saved
        return value, notes

    def value(self, node: ast.AST, scope: Scope) -> Any:
        return self.evaluate(node, scope)[0]

    # -- module bindings ----------------------------------------------------

    def bindings(self, module: str) -> Dict[str, List[ast.stmt]]:
        """Top-level statements binding or mutating each module-level name, in order."""
        if module in self._module_bindings:
            return self._module_bindings[module]
        tree = self.wheel.module_ast(module)
        out: Dict[str, List[ast.stmt]] = {}

        def visit(stmts: Iterable[ast.stmt]) -> None:
            for stmt in stmts:
                for name in self._bound_names(stmt):
                    out.setdefault(name, []).append(stmt)
                if isinstance(stmt, ast.Try):
                    visit(stmt.body)
                elif isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
                    visit(stmt.body)

        visit(tree.body)
        self._module_bindings[module] = out
        return out

    @staticmethod
    def _bound_names(stmt: ast.stmt) -> List[str]:
        if isinstance(stmt, ast.Assign):
            names = []
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names.append(target.id)
            return names
        if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(
            stmt.target, ast.Name
        ):
            if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
                return []
            return [stmt.target.id]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [stmt.name]
        if isinstance(stmt, ast.ImportFrom):
            return [alias.asname or alias.name for alias in stmt.names]
        if isinstance(stmt, ast.Import):
            return [alias.asname or alias.name.split(".")[0] for alias in stmt.names]
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.attr in LIST_MUTATORS
        ):
            return [stmt.value.func.value.id]
        return []

    def module_name(self, module: str, name: str) -> Any:
        """Value of the module-level ``name`` in ``module`` (replaying its bindings)."""
        stmts = self.bindings(module).get(name)
        if not stmts:
            if self.wheel.is_package(module) and self.wheel.module_path(f"{module}.{name}"):
                return ModuleRef(f"{module}.{name}")
            raise Unresolvable(f"{module}.{name} is not defined at module level")
        value: Any = _UNSET
        scope = Scope(module)
        for stmt in stmts:
            value = self._apply_module_stmt(stmt, name, value, scope)
        self._note_runtime_mutators(module, name, value)
        return value

    def _apply_module_stmt(self, stmt: ast.stmt, name: str, value: Any, scope: Scope) -> Any:
        module = scope.module
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            return self.eval(stmt.value, scope)
        if isinstance(stmt, ast.AugAssign):
            return _binop(stmt.op, value, self.eval(stmt.value, scope))
        if isinstance(stmt, ast.ClassDef):
            return ClassRef(module, stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return FuncRef(module, stmt)
        if isinstance(stmt, ast.ImportFrom):
            alias = next(a for a in stmt.names if (a.asname or a.name) == name)
            source = absolute_module(
                module, self.wheel.is_package(module), stmt.level, stmt.module
            )
            return self.import_from(source, alias.name)
        if isinstance(stmt, ast.Import):
            alias = next(
                a for a in stmt.names if (a.asname or a.name.split(".")[0]) == name
            )
            target = alias.name if alias.asname else alias.name.split(".")[0]
            return self.import_module(target)
        if isinstance(stmt, ast.Expr):  # NAME.extend(...) at module level
            call = stmt.value
            args = [self.eval(a, scope) for a in call.args]
            return _call_method(value, call.func.attr, args, mutate=True)
        raise Unresolvable(f"unsupported binding of {name}: {ast.unparse(stmt)[:80]}")

    def import_module(self, module: str) -> Any:
        if self.wheel.module_path(module):
            return ModuleRef(module)
        return External(module)

    def import_from(self, module: str, name: str) -> Any:
        if self.wheel.module_path(module) is None:
            return External(f"{module}.{name}")
        if self.wheel.module_path(f"{module}.{name}") and name not in self.bindings(module):
            return ModuleRef(f"{module}.{name}")
        return self.module_name(module, name)

    def _note_runtime_mutators(self, module: str, name: str, value: Any) -> None:
        """Note functions in ``module`` that extend the container ``name`` at runtime."""
        if not isinstance(value, (list, set, dict)):
            return
        funcs = _mutating_functions(self.wheel.module_ast(module), lambda t: (
            isinstance(t, ast.Name) and t.id == name
        ))
        if funcs:
            self.notes.append(
                f"built-in values of {module}.{name}; plugins can extend it at "
                f"runtime through {', '.join(f + '()' for f in funcs)}"
            )

    # -- expression evaluation ---------------------------------------------

    def eval(self, node: ast.AST, scope: Scope) -> Any:
        method = getattr(self, "_eval_" + type(node).__name__, None)
        if method is None:
            raise Unresolvable(f"unsupported expression: {ast.unparse(node)[:80]}")
        return method(node, scope)

    def _eval_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def _eval_elements(self, elts: List[ast.expr], scope: Scope) -> List[Any]:
        out: List[Any] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                out.extend(self.iterate(self.eval(elt.value, scope)))
            else:
                out.append(self.eval(elt, scope))
        return out

    def _eval_List(self, node: ast.List, scope: Scope) -> Any:
        return self._eval_elements(node.elts, scope)

    def _eval_Tuple(self, node: ast.Tuple, scope: Scope) -> Any:
        return tuple(self._eval_elements(node.elts, scope))

    def _eval_Set(self, node: ast.Set, scope: Scope) -> Any:
        return set(self._eval_elements(node.elts, scope))

    def _eval_Dict(self, node: ast.Dict, scope: Scope) -> Any:
        out: Dict[Any, Any] = {}
        for key, val in zip(node.keys, node.values):
            if key is None:
                out.update(self.eval(val, scope))
                continue
            try:
                out[self.eval(key, scope)] = self.eval(val, scope)
            except Unresolvable:
                # Registries map names to classes; only the keys matter here.
                out[self.eval(key, scope)] = _OPAQUE
        return out

    def _eval_JoinedStr(self, node: ast.JoinedStr, scope: Scope) -> Any:
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(part.value)
                continue
            value = self.eval(part.value, scope)
            if part.conversion == ord("r"):
                value = repr(value)
            elif part.conversion == ord("s"):
                value = str(value)
            elif part.conversion == ord("a"):
                value = ascii(value)
            spec = self.eval(part.format_spec, scope) if part.format_spec else ""
            parts.append(format(value, spec))
        return "".join(parts)

    def _eval_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        return _binop(node.op, self.eval(node.left, scope), self.eval(node.right, scope))

    def _eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        operand = self.eval(node.operand, scope)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.Invert):
            return ~operand
        raise Unresolvable(ast.unparse(node))

    def _eval_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        result: Any = None
        for operand in node.values:
            result = self.eval(operand, scope)
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
        return result

    def _eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.eval(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator, scope)
            ok = {
                ast.Eq: lambda a, b: a == b,
                ast.NotEq: lambda a, b: a != b,
                ast.Is: lambda a, b: a is b,
                ast.IsNot: lambda a, b: a is not b,
                ast.In: lambda a, b: a in b,
                ast.NotIn: lambda a, b: a not in b,
                ast.Lt: lambda a, b: a < b,
                ast.LtE: lambda a, b: a <= b,
                ast.Gt: lambda a, b: a > b,
                ast.GtE: lambda a, b: a >= b,
            }[type(op)](left, right)
            if not ok:
                return False
            left = right
        return True

    def _eval_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        branch = node.body if self.eval(node.test, scope) else node.orelse
        return self.eval(branch, scope)

    def _eval_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        container = self.eval(node.value, scope)
        if isinstance(node.slice, ast.Slice):
            parts = [
                self.eval(p, scope) if p is not None else None
                for p in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            return container[slice(*parts)]
        return container[self.eval(node.slice, scope)]

    def _eval_Lambda(self, node: ast.Lambda, scope: Scope) -> Any:
        return LambdaRef(node, scope)

    def _eval_comprehension(self, node: Any, scope: Scope) -> List[Any]:
        results: List[Any] = []

        def loop(index: int, local: Scope) -> None:
            if index == len(node.generators):
                results.append(self.eval(node.elt, local))
                return
            gen = node.generators[index]
            for item in self.iterate(self.eval(gen.iter, local)):
                inner = Scope(local.module, dict(local.locals), local.cls)
                _bind_target(gen.target, item, inner)
                if all(self.eval(cond, inner) for cond in gen.ifs):
                    loop(index + 1, inner)

        loop(0, scope)
        return results

    def _eval_ListComp(self, node: ast.ListComp, scope: Scope) -> Any:
        return self._eval_comprehension(node, scope)

    def _eval_GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Any:
        return self._eval_comprehension(node, scope)

    def _eval_SetComp(self, node: ast.SetComp, scope: Scope) -> Any:
        return set(self._eval_comprehension(node, scope))

    def _eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        name = node.id
        if name in scope.locals:
            value, notes = scope.locals[name]
            self.notes.extend(notes)
            return value
        if scope.cls is not None:
            try:
                return self.class_attr(scope.cls, name)
            except Unresolvable:
                pass
        if name in self.bindings(scope.module):
            return self.module_name(scope.module, name)
        if name in _BUILTIN_NAMES:
            return External("builtins." + name)
        raise Unresolvable(f"name {name!r} is not resolvable in {scope.module}")

    def _eval_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        return self.attribute(self.eval(node.value, scope), node.attr)

    def attribute(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, External):
            dotted = f"{obj.dotted}.{attr}"
            if dotted == "argparse.SUPPRESS":
                return SUPPRESS
            return External(dotted)
        if isinstance(obj, ModuleRef):
            if self.wheel.module_path(f"{obj.name}.{attr}") and attr not in self.bindings(obj.name):
                return ModuleRef(f"{obj.name}.{attr}")
            return self.module_name(obj.name, attr)
        if isinstance(obj, ClassRef) and attr != "__doc__":
            hook = self.attr_hooks.get((obj.module, obj.name))
            if hook is not None:
                return hook(attr)
            return self.class_attr(obj, attr)
        if isinstance(obj, EnumMember):
            if attr == "name":
                return obj.name
            if attr == "value":
                return obj.value
        if isinstance(obj, (FuncRef, ClassRef)) and attr == "__doc__":
            # CPython < 3.13 keeps docstrings verbatim (the wheel targets 3.11).
            return ast.get_docstring(obj.node, clean=False)
        if isinstance(obj, AttrBag):
            if attr in obj.attrs:
                return obj.attrs[attr]
            raise Unresolvable(f"unknown attribute {attr}")
        if isinstance(obj, (str, list, tuple, dict, set, frozenset)):
            return BoundMethod(obj, attr)
        raise Unresolvable(f"attribute {attr} of {obj!r}")

    def class_attr(self, cls: ClassRef, attr: str) -> Any:
        """A class attribute: an ``Enum`` member, the last class-level (Ann)Assign, or a base's."""
        body_scope = Scope(cls.module)
        enum = self.is_enum(cls)
        for stmt in reversed(cls.node.body):
            targets: List[ast.expr] = []
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets = [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                value = self._class_body_value(cls, stmt.value)
                if enum and not attr.startswith("_"):
                    return EnumMember(cls.name, attr, value)
                if isinstance(value, (list, set, dict)):
                    self._note_class_mutators(cls, attr)
                return value
        for base in cls.node.bases:
            try:
                base_ref = self.eval(base, body_scope)
            except Unresolvable:
                continue
            if isinstance(base_ref, ClassRef):
                try:
                    return self.class_attr(base_ref, attr)
                except Unresolvable:
                    pass
        raise Unresolvable(f"class {cls.name} has no attribute {attr}")

    def _class_body_value(self, cls: ClassRef, node: ast.expr) -> Any:
        """Evaluate a class-body expression where earlier class names are visible."""
        return self.eval(node, Scope(cls.module, cls=cls))

    def _note_class_mutators(self, cls: ClassRef, attr: str) -> None:
        funcs = _mutating_functions(
            self.wheel.module_ast(cls.module),
            lambda t: isinstance(t, ast.Attribute)
            and t.attr == attr
            and isinstance(t.value, ast.Name)
            and t.value.id in (cls.name, "cls", "self"),
        )
        if funcs:
            self.notes.append(
                f"built-in entries of {cls.module}.{cls.name}.{attr}; it can be "
                f"extended at runtime through {', '.join(f + '()' for f in funcs)}"
            )

    def is_enum(self, cls: ClassRef) -> bool:
        for base in cls.node.bases:
            text = ast.unparse(base)
            if text.split(".")[-1] in {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}:
                return True
        return False

    def enum_members(self, cls: ClassRef) -> List[EnumMember]:
        members = []
        for stmt in cls.node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    members.append(self.class_attr(cls, target.id))
        return members

    def iterate(self, value: Any) -> List[Any]:
        """Iterate like Python would; sets in sorted order; Enum classes yield members."""
        if isinstance(value, (set, frozenset)):
            return sorted(value, key=_sort_key)
        if isinstance(value, (list, tuple, str, dict)):
            return list(value)
        if isinstance(value, ClassRef) and self.is_enum(value):
            return self.enum_members(value)
        raise Unresolvable(f"cannot iterate {value!r}")

    def _eval_Call(self, node: ast.Call, scope: Scope) -> Any:
        func = self.eval(node.func, scope)
        if isinstance(func, FuncRef):
            hook = self.call_hooks.get((func.module, func.node.name))
            if hook is not None:
                return hook([self.eval(a, scope) for a in node.args])
        args = self._eval_elements(node.args, scope)
        kwargs = {kw.arg: self.eval(kw.value, scope) for kw in node.keywords if kw.arg}
        return self.call(func, args, kwargs)

    def call(self, func: Any, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        if isinstance(func, BoundMethod):
            return _call_method(func.obj, func.name, args)
        if isinstance(func, External):
            return self._call_external(func.dotted, args, kwargs)
        if isinstance(func, LambdaRef):
            if func.node.args.args or args:
                raise Unresolvable("lambda with arguments")
            return self.eval(func.node.body, func.scope)
        if isinstance(func, FuncRef):
            return self.call_helper(func, args)
        raise Unresolvable(f"call of {func!r}")

    def _call_external(self, dotted: str, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        short = dotted.rsplit(".", 1)[-1]
        if dotted in ("dataclasses.field", "msgspec.field"):
            factory = kwargs.get("default_factory")
            return FieldSpec(kwargs.get("default", _UNSET), factory)
        if dotted.startswith("builtins."):
            if short in ("list", "tuple", "set", "frozenset", "sorted"):
                items = list(self.iterate(args[0])) if args else []
                if short == "sorted":
                    return sorted(items, reverse=bool(kwargs.get("reverse")))
                return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[
                    short
                ](items)
            if short in ("str", "int", "float", "bool", "len", "repr", "dict"):
                return {"str": str, "int": int, "float": float, "bool": bool,
                        "len": len, "repr": repr, "dict": dict}[short](*args, **kwargs)
        raise Unresolvable(f"call of {dotted}")

    def call_helper(self, func: FuncRef, args: List[Any]) -> Any:
        """A zero-argument helper: replay its imports/assignments, take its last ``return``.

        SGLang computes some choice lists in helpers such as
        ``_reasoning_parser_choices()`` that prefer a live registry when a
        plugin has already imported it and otherwise return a built-in list;
        the final ``return`` is that built-in path.
        """
        if args or func.node.args.args:
            raise Unresolvable(f"helper {func.node.name} takes arguments")
        scope = Scope(func.module)
        final: Optional[ast.Return] = None
        branches: List[str] = []
        assigned: Dict[str, str] = {}
        for stmt in func.node.body:
            if isinstance(stmt, ast.ImportFrom):
                source = absolute_module(
                    func.module, self.wheel.is_package(func.module), stmt.level, stmt.module
                )
                for alias in stmt.names:
                    scope.locals[alias.asname or alias.name] = (
                        self.import_from(source, alias.name), ())
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    scope.locals[alias.asname or alias.name.split(".")[0]] = (
                        self.import_module(alias.name.split(".")[0]), ())
            elif isinstance(stmt, ast.Assign):
                assigned[ast.unparse(stmt.targets[0])] = ast.unparse(stmt.value)
            elif isinstance(stmt, ast.Return):
                final = stmt
            elif isinstance(stmt, ast.If):
                names = sorted({n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)})
                where = "".join(f", {n} = {assigned[n]}" for n in names if n in assigned)
                branches.append(f"`{ast.unparse(stmt.test)}`{where}")
        if final is None or final.value is None:
            raise Unresolvable(f"helper {func.node.name} has no final return")
        value = self.eval(final.value, scope)
        if branches:
            self.notes.append(
                f"computed at registration time by {func.module}.{func.node.name}(); "
                f"listed is its fallback `{ast.unparse(final.value)}`; it returns "
                f"something else when {' or '.join(branches)}"
            )
        return value


_UNSET = object()
_OPAQUE = External("<unevaluated>")
_BUILTIN_NAMES = {
    "list", "tuple", "set", "frozenset", "sorted", "str", "int", "float", "bool",
    "len", "repr", "dict", "object", "type",
}


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _binop(op: ast.operator, left: Any, right: Any) -> Any:
    ops = {
        ast.Add: lambda a, b: a + b,
        ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b,
        ast.FloorDiv: lambda a, b: a // b,
        ast.Mod: lambda a, b: a % b,
        ast.Pow: lambda a, b: a**b,
        ast.LShift: lambda a, b: a << b,
        ast.RShift: lambda a, b: a >> b,
        ast.BitOr: lambda a, b: a | b,
        ast.BitAnd: lambda a, b: a & b,
    }
    if type(op) not in ops:
        raise Unresolvable(f"operator {type(op).__name__}")
    try:
        return ops[type(op)](left, right)
    except TypeError as exc:
        raise Unresolvable(str(exc)) from exc


def _sort_key(value: Any) -> Tuple[str, Any]:
    """Deterministic order for set members (argparse itself iterates sets in hash order)."""
    plain = isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return (type(value).__name__, value if plain else repr(value))


def _call_method(obj: Any, name: str, args: List[Any], mutate: bool = False) -> Any:
    """Call a side-effect-free str/list/dict method (or, at module level, a mutator)."""
    allowed = {
        str: {"lower", "upper", "strip", "replace", "join", "format", "split",
              "title", "capitalize", "startswith", "endswith"},
        dict: {"keys", "values", "items", "get", "copy"},
        list: {"copy", "index", "count"},
        tuple: {"index", "count"},
        set: {"copy", "union"},
        frozenset: {"union"},
    }
    kind = type(obj)
    if mutate and name in LIST_MUTATORS and isinstance(obj, (list, set, dict)):
        obj = type(obj)(obj)
        getattr(obj, name)(*args)
        return obj
    if name not in allowed.get(kind, set()):
        raise Unresolvable(f"method {kind.__name__}.{name}")
    result = getattr(obj, name)(*args)
    if name in ("keys", "values", "items"):
        result = list(result)
    return result


def _bind_target(target: ast.expr, item: Any, scope: Scope) -> None:
    if isinstance(target, ast.Name):
        scope.locals[target.id] = (item, ())
    elif isinstance(target, ast.Tuple):
        for sub, value in zip(target.elts, item):
            _bind_target(sub, value, scope)
    else:
        raise Unresolvable("unsupported comprehension target")


def _mutating_functions(tree: ast.Module, is_target: Callable[[ast.expr], bool]) -> List[str]:
    """Functions/methods in ``tree`` that mutate a matching container, and
    module-level aliases of its mutating methods (``add_x = X.extend``)."""
    found = []
    for stmt in tree.body:  # add_x_choices = X_CHOICES.extend
        if (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Attribute)
            and stmt.value.attr in LIST_MUTATORS
            and is_target(stmt.value.value)
        ):
            found.extend(t.id for t in stmt.targets if isinstance(t, ast.Name))
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            hit = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in LIST_MUTATORS
                and is_target(node.func.value)
            ) or (
                isinstance(node, (ast.Assign, ast.AugAssign))
                and any(
                    isinstance(t, ast.Subscript) and is_target(t.value)
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                )
            )
            if hit:
                found.append(fn.name)
                break
    return sorted(set(found))


# ---------------------------------------------------------------------------
# Flag model
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Flag:
    """One argparse action, in the table's schema."""

    dest: str
    option_strings: List[str]
    action: str
    type: Optional[str]
    nargs: Any
    choices: Optional[List[Any]]
    default: Any
    const: Any
    required: bool
    deprecated: Optional[Dict[str, Any]]
    hidden: bool
    help: Optional[str]
    source: str
    choices_note: Optional[str] = None
    default_note: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        out = {
            "dest": self.dest,
            "option_strings": self.option_strings,
            "action": self.action,
            "type": self.type,
            "nargs": self.nargs,
            "choices": self.choices,
            "default": self.default,
            "const": self.const,
            "required": self.required,
            "deprecated": self.deprecated,
            "hidden": self.hidden,
            "help": self.help,
            "source": self.source,
        }
        if self.choices_note:
            out["choices_note"] = self.choices_note
        if self.default_note:
            out["default_note"] = self.default_note
        return out


def to_json_value(value: Any) -> Any:
    """Convert an evaluated Python value into JSON data (sets sorted, enums to values)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Unresolvable(f"non-JSON float {value}")
        return value
    if isinstance(value, (list, tuple)):
        return [to_json_value(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json_value(v) for v in value), key=_sort_key)
    if isinstance(value, dict):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, EnumMember):
        return to_json_value(value.value)
    raise Unresolvable(f"value {value!r} has no JSON form")


# ---------------------------------------------------------------------------
# Action classes: kind, argparse defaults and deprecation messages
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class ActionInfo:
    """What an ``action=`` argument means for the table."""

    kind: str
    nargs: Any
    const: Any
    default: Any
    deprecated: Optional[Dict[str, Any]]


class ActionAnalyzer:
    """Interprets ``action=`` values: argparse's names or SGLang's Action subclasses."""

    def __init__(self, evaluator: Evaluator):
        self.ev = evaluator

    def analyze(self, action: Any, kwargs: Dict[str, Any]) -> ActionInfo:
        """Resolve ``action`` (a string, ``argparse.X`` or a ClassRef) for one registration."""
        if action is None:
            action = "store"
        if isinstance(action, External) and action.dotted == "argparse.BooleanOptionalAction":
            action = "boolean_optional"
        if isinstance(action, str):
            if action not in ARGPARSE_ACTIONS:
                raise SystemExit(f"unknown argparse action {action!r}")
            nargs, const, default = ARGPARSE_ACTIONS[action]
            return ActionInfo(
                kind=action,
                nargs=kwargs.get("nargs", nargs),
                const=kwargs.get("const", const),
                default=kwargs.get("default", default),
                deprecated=None,
            )
        if isinstance(action, ClassRef):
            return self._analyze_class(action, kwargs)
        raise SystemExit(f"unsupported action {action!r}")

    def _init_defaults(self, cls: ClassRef) -> Dict[str, Any]:
        """Keyword defaults of the class's ``__init__`` (argparse.Action's when absent)."""
        defaults: Dict[str, Any] = {"nargs": None, "const": None, "default": None}
        init = _method(cls.node, "__init__")
        if init is None:
            return defaults
        params = init.args.args + init.args.kwonlyargs
        values = [None] * (len(init.args.args) - len(init.args.defaults)) + list(
            init.args.defaults
        ) + list(init.args.kw_defaults)
        for param, default in zip(params, values):
            if default is not None:
                defaults[param.arg] = self.ev.value(default, Scope(cls.module))
            elif param.arg not in ("self", "option_strings", "dest"):
                defaults.setdefault(param.arg, None)
        return defaults

    def _analyze_class(self, cls: ClassRef, kwargs: Dict[str, Any]) -> ActionInfo:
        attrs = {**self._init_defaults(cls), **kwargs}
        attrs.setdefault("help", None)
        call = _method(cls.node, "__call__")
        message, fatal, stored = None, False, _UNSET
        if call is not None:
            message, fatal, stored = self._trace_call(cls, call, attrs)
        # ``const`` is what the flag stores when given: for SGLang's
        # DeprecatedStoreConstAction that is ``const_value``, not argparse's const.
        const = attrs.get("const") if stored is _UNSET else stored
        deprecated = None
        if message is not None:
            deprecated = {"message": message, "replacement": attrs.get("new_flag")}
        kind = SGLANG_ACTION_KINDS.get(cls.name, "custom:" + cls.name)
        if kind == "deprecated" and not fatal:
            # A DeprecatedAction that only warns (and stores nothing) is not the
            # hard error the "deprecated" kind stands for.
            kind = "custom:" + cls.name
        return ActionInfo(
            kind=kind,
            nargs=attrs.get("nargs"),
            const=const,
            default=attrs.get("default"),
            deprecated=deprecated,
        )

    def _trace_call(
        self, cls: ClassRef, call: ast.FunctionDef, attrs: Dict[str, Any]
    ) -> Tuple[Optional[str], bool, Any]:
        """Follow ``__call__`` for this registration's attributes.

        Returns the first warning/error message it emits (``{option_string}``
        left as a placeholder), whether that message stops the launch
        (``parser.error``/``raise``), and the constant it stores, if any.
        """
        scope = Scope(cls.module)
        scope.locals["self"] = (AttrBag(attrs), ())
        for name in ("option_string", "values", "namespace", "parser"):
            scope.locals[name] = (Placeholder(name), ())
        state: Dict[str, Any] = {"message": None, "fatal": False, "stored": _UNSET}

        def run(stmts: List[ast.stmt]) -> bool:
            for stmt in stmts:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ast.Name
                ):
                    try:
                        scope.locals[stmt.targets[0].id] = (self.ev.value(stmt.value, scope), ())
                    except Unresolvable:
                        scope.locals[stmt.targets[0].id] = (Placeholder(stmt.targets[0].id), ())
                elif isinstance(stmt, ast.If):
                    try:
                        taken = self.ev.value(stmt.test, scope)
                    except Unresolvable:
                        continue
                    if run(stmt.body if taken else stmt.orelse):
                        return True
                elif isinstance(stmt, ast.Raise) and isinstance(stmt.exc, ast.Call):
                    if stmt.exc.args and state["message"] is None:
                        state["message"] = self.ev.value(stmt.exc.args[0], scope)
                        state["fatal"] = True
                    return True
                elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                    if self._emit(stmt.value, scope, state):
                        return True
            return False

        run(call.body)
        return state["message"], state["fatal"], state["stored"]

    def _emit(self, node: ast.Call, scope: Scope, state: Dict[str, Any]) -> bool:
        """Record a message or stored constant from one call in ``__call__``; True stops."""
        name = ast.unparse(node.func)
        last = name.rsplit(".", 1)[-1]
        if last == "setattr" and len(node.args) == 3:
            stored = node.args[2]
            if isinstance(stored, ast.Constant) or (
                isinstance(stored, ast.Attribute)
                and isinstance(stored.value, ast.Name)
                and stored.value.id == "self"
            ):
                state["stored"] = self.ev.value(stored, scope)
            return False
        if not node.args:
            return False
        if name == "parser.error":
            if state["message"] is None:
                state["message"] = self.ev.value(node.args[0], scope)
            state["fatal"] = True
            return True
        if last in ("print_deprecated_warning", "warning", "warn", "print"):
            if state["message"] is None:
                state["message"] = self.ev.value(node.args[0], scope)
        return False


def _method(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


# ---------------------------------------------------------------------------
# ServerArgs fields
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Field:
    """One ServerArgs field: its (last) AnnAssign and the value that is its default."""

    name: str
    module: str
    node: ast.AnnAssign
    value: Optional[ast.expr]
    is_dataclass: bool  # True: dataclasses semantics for ServerArgs.<name>

    @property
    def scope(self) -> Scope:
        return Scope(self.module)


def class_fields(module: str, cls: ast.ClassDef, is_dataclass: bool) -> List[Field]:
    """The annotated fields of a class body, as ``__annotations__`` records them.

    A name annotated twice keeps the position of its first annotation (dict
    insertion order) but the later annotation, and the last value assigned is
    the class attribute, i.e. the default.  (0.5.15 declares ``dcp_size`` twice.)
    """
    fields: Dict[str, Field] = {}
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        name = stmt.target.id
        previous = fields.get(name)
        value = stmt.value if stmt.value is not None else (previous.value if previous else None)
        fields[name] = Field(name, module, stmt, value, is_dataclass)
    return list(fields.values())


def find_class(tree: ast.Module, name: str) -> Optional[ast.ClassDef]:
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return stmt
    return None


def server_args_fields(ev: Evaluator) -> List[Field]:
    """The ServerArgs fields in ``dataclasses.fields`` / ``msgspec`` order.

    Namespace layout: the classes named in ``server_args._INPUT_NAMESPACES``,
    ordered like ``arg_groups/fields/__init__.py: collect_input_fields``
    (``POSITIONAL_FIELD_ORDER`` first, then the rest in namespace order), then
    annotations of the ``ServerArgs`` class body itself.  Otherwise the
    ``ServerArgs`` dataclass body in declaration order.
    """
    tree = ev.wheel.module_ast(SERVER_ARGS_MODULE)
    server_args = find_class(tree, "ServerArgs")
    if server_args is None:
        raise SystemExit("sglang/srt/server_args.py defines no class ServerArgs")
    if "_INPUT_NAMESPACES" not in ev.bindings(SERVER_ARGS_MODULE):
        return class_fields(SERVER_ARGS_MODULE, server_args, True)

    namespaces = ev.value(ast.Name("_INPUT_NAMESPACES"), Scope(SERVER_ARGS_MODULE))
    collected: Dict[str, Field] = {}
    for ns in namespaces:
        if not isinstance(ns, ClassRef):
            raise SystemExit(f"_INPUT_NAMESPACES entry {ns!r} is not a class of the wheel")
        for field in class_fields(ns.module, ns.node, False):
            if field.name in collected:
                raise SystemExit(f"field {field.name} declared in two namespaces")
            collected[field.name] = field
    order = ev.module_name("sglang.srt.arg_groups.field_order", "POSITIONAL_FIELD_ORDER")
    known = [n for n in order if n in collected]
    rest = [n for n in collected if n not in set(order)]
    fields = [collected[n] for n in known + rest]
    for own in class_fields(SERVER_ARGS_MODULE, server_args, False):
        if own.name in collected:
            index = next(i for i, f in enumerate(fields) if f.name == own.name)
            fields[index] = own
        else:
            fields.append(own)
    return fields


def field_default(ev: Evaluator, field: Field) -> Any:
    """The field's default: the assigned value, ``field(default_factory=...)()``, or _UNSET."""
    if field.value is None:
        return _UNSET
    value = ev.value(field.value, field.scope)
    if isinstance(value, FieldSpec):
        if value.default is not _UNSET:
            return value.default
        if value.factory is not None:
            return ev.call(value.factory, [], {})
        return _UNSET
    return value


def class_attribute_default(ev: Evaluator, field: Field) -> Any:
    """``ServerArgs.<name>`` / ``_declared_default(name)`` as SGLang evaluates it."""
    if field.value is None:
        raise Unresolvable(f"ServerArgs.{field.name} has no default")
    value = ev.value(field.value, field.scope)
    if isinstance(value, FieldSpec):
        if value.default is not _UNSET:
            return value.default
        if field.is_dataclass:
            raise Unresolvable(
                f"ServerArgs.{field.name} uses a default_factory, so the dataclass "
                "has no class attribute for it"
            )
        return _UNSET
    return value


# ---------------------------------------------------------------------------
# Annotation analysis (arg_utils.add_cli_args_from_dataclass rules)
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class TypeShape:
    """What ``add_cli_args_from_dataclass`` sees in ``T`` of ``A[T, meta]``."""

    kind: str  # "literal" | "list" | "bool" | "scalar"
    literal_values: List[Any] = dataclasses.field(default_factory=list)
    elem: Optional[str] = None  # list element / scalar builtin name
    text: str = ""


def _subscript_parts(node: ast.Subscript) -> List[ast.expr]:
    if isinstance(node.slice, ast.Tuple):
        return list(node.slice.elts)
    return [node.slice]


def _base_name(node: ast.expr) -> str:
    return ast.unparse(node).split(".")[-1]


def _union_members(node: ast.expr) -> Optional[List[ast.expr]]:
    """Members of ``Optional[X]``/``Union[...]``/``X | Y`` (flattened), else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (_union_members(node.left) or [node.left]) + (
            _union_members(node.right) or [node.right]
        )
    if isinstance(node, ast.Subscript):
        base = _base_name(node.value)
        if base == "Optional":
            inner = _subscript_parts(node)[0]
            return (_union_members(inner) or [inner]) + [ast.Constant(None)]
        if base == "Union":
            out: List[ast.expr] = []
            for part in _subscript_parts(node):
                out.extend(_union_members(part) or [part])
            return out
    return None


def _is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or (
        ast.unparse(node) in ("NoneType", "type(None)")
    )


def type_shape(ev: Evaluator, node: ast.expr, scope: Scope) -> TypeShape:
    """Classify ``T`` the way ``_unwrap_optional``/``_unwrap_literal``/``get_origin`` do."""
    members = _union_members(node)
    if members is not None:
        non_none = [m for m in members if not _is_none(m)]
        if len(non_none) == 1:
            node = non_none[0]
        else:
            return TypeShape("scalar", elem="str", text=ast.unparse(node))
    text = ast.unparse(node)
    if isinstance(node, ast.Subscript):
        base = _base_name(node.value)
        if base == "Literal":
            values = [ev.value(v, scope) for v in _subscript_parts(node)]
            return TypeShape("literal", literal_values=values, text=text)
        if base in ("List", "list"):
            elem = _subscript_parts(node)[0]
            return TypeShape("list", elem=_builtin_name(elem), text=text)
        return TypeShape("scalar", elem="str", text=text)
    if isinstance(node, (ast.Name, ast.Attribute)):
        base = _base_name(node)
        if base == "bool":
            return TypeShape("bool", text=text)
        if base == "List":  # bare typing.List: get_origin is list, no element type
            return TypeShape("list", elem="str", text=text)
        return TypeShape("scalar", elem=_builtin_name(node), text=text)
    return TypeShape("scalar", elem="str", text=text)


def _builtin_name(node: ast.expr) -> str:
    """``_infer_type_func``: str/int/float map to themselves, anything else to str."""
    text = ast.unparse(node)
    return text if text in BUILTIN_TYPES else "str"


def _annotated_parts(node: ast.expr) -> Optional[Tuple[ast.expr, List[ast.expr]]]:
    """``A[T, m1, ...]`` / ``Annotated[...]`` -> (T, [m1, ...]); other annotations -> None."""
    if isinstance(node, ast.Subscript) and _base_name(node.value) in ("A", "Annotated"):
        parts = _subscript_parts(node)
        return parts[0], parts[1:]
    return None


@dataclasses.dataclass
class ArgMeta:
    """The keywords of an ``Arg(...)`` (or a bare help string), evaluated."""

    values: Dict[str, Any]
    nodes: Dict[str, ast.expr]
    notes: Dict[str, List[str]]

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def arg_meta(ev: Evaluator, metas: List[ast.expr], scope: Scope) -> Optional[ArgMeta]:
    """``_unwrap_annotated``: the first metadata that is an ``Arg(...)`` or a str."""
    for meta in metas:
        if isinstance(meta, ast.Call) and _base_name(meta.func) == "Arg":
            values: Dict[str, Any] = {}
            nodes: Dict[str, ast.expr] = {}
            notes: Dict[str, List[str]] = {}
            for kw in meta.keywords:
                nodes[kw.arg] = kw.value
                if kw.arg in ("type_parser", "action"):
                    continue  # resolved by name, not by value
                if kw.arg == "action_kwargs":
                    continue
                values[kw.arg], notes[kw.arg] = ev.evaluate(kw.value, scope)
            return ArgMeta(values, nodes, notes)
        if isinstance(meta, ast.Call):
            continue
        try:
            text, _ = ev.evaluate(meta, scope)
        except Unresolvable:
            continue
        if isinstance(text, str):
            return ArgMeta({"help": text}, {"help": meta}, {})
    return None


# ---------------------------------------------------------------------------
# Building flags
# ---------------------------------------------------------------------------


def type_name(node: Optional[ast.expr]) -> Optional[str]:
    """The ``type=`` callable's name: ``str``/``int``/``float`` or its source spelling."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    text = ast.unparse(node)
    if text in BUILTIN_TYPES or text == "bool":
        return text
    if isinstance(node, (ast.Name, ast.Attribute)):
        return text
    raise SystemExit(f"unsupported type= expression {text}")


def option_dest(option_strings: List[str]) -> str:
    """argparse's dest for optionals: first ``--long`` option, else the first option."""
    long = [s for s in option_strings if s.startswith("--")]
    name = (long or option_strings)[0].lstrip("-")
    return name.replace("-", "_")


def boolean_optional_strings(option_strings: List[str]) -> List[str]:
    """``argparse.BooleanOptionalAction`` adds ``--no-x`` after each ``--x``."""
    out = []
    for option in option_strings:
        out.append(option)
        if option.startswith("--"):
            out.append("--no-" + option[2:])
    return out


class TableBuilder:
    """Walks ``ServerArgs.add_cli_args`` and produces the flags in registration order."""

    def __init__(self, wheel: Wheel):
        self.wheel = wheel
        self.ev = Evaluator(wheel)
        self.actions = ActionAnalyzer(self.ev)
        self.fields = server_args_fields(self.ev)
        self.fields_by_name = {f.name: f for f in self.fields}
        self._install_hooks()

    def _install_hooks(self) -> None:
        """``_declared_default(name)`` and ``ServerArgs.<name>`` read a field default.

        (In the namespace layout ``ServerArgs`` is rebuilt with
        ``msgspec.defstruct``, so its class body does not hold the fields.)
        """

        tree = self.wheel.module_ast(SERVER_ARGS_MODULE)
        server_args = ClassRef(SERVER_ARGS_MODULE, find_class(tree, "ServerArgs"))

        def field_value(name: str) -> Any:
            if name not in self.fields_by_name:  # a plain class attribute
                return self.ev.class_attr(server_args, name)
            return class_attribute_default(self.ev, self.fields_by_name[name])

        self.ev.call_hooks[(SERVER_ARGS_MODULE, "_declared_default")] = (
            lambda args: field_value(args[0]))
        self.ev.attr_hooks[(SERVER_ARGS_MODULE, "ServerArgs")] = field_value

    def source(self, module: str, node: ast.AST) -> str:
        return f"{self.wheel.module_path(module)}:{node.lineno}"

    # -- the add_cli_args body ---------------------------------------------

    def build(self) -> List[Flag]:
        tree = self.wheel.module_ast(SERVER_ARGS_MODULE)
        server_args = find_class(tree, "ServerArgs")
        method = _method(server_args, "add_cli_args")
        if method is None:
            raise SystemExit("ServerArgs has no add_cli_args")
        parser_name = method.args.args[0].arg
        scope = Scope(SERVER_ARGS_MODULE)
        flags: List[Flag] = []
        for stmt in method.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            if isinstance(stmt, ast.Assign):
                self._assign_local(stmt, scope)
            elif isinstance(stmt, ast.If):
                self._conditional_mutation(stmt, scope)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                func = ast.unparse(call.func)
                if func == f"{parser_name}.add_argument":
                    flags.append(self.hand_flag(call, scope))
                elif func.split(".")[-1] == "add_cli_args_from_dataclass":
                    flags.extend(self.derived_flags())
                else:
                    raise SystemExit(f"add_cli_args: unsupported call {func} at line {stmt.lineno}")
            else:
                raise SystemExit(
                    f"add_cli_args: unsupported statement at line {stmt.lineno}: "
                    f"{ast.unparse(stmt)[:80]}"
                )
        return flags

    def _assign_local(self, stmt: ast.Assign, scope: Scope) -> None:
        """``local = <expr>`` inside add_cli_args (choice lists, shared help text)."""
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise SystemExit(f"add_cli_args: unsupported assignment at line {stmt.lineno}")
        value, notes = self.ev.evaluate(stmt.value, scope)
        scope.locals[stmt.targets[0].id] = (value, tuple(notes))

    def _conditional_mutation(self, stmt: ast.If, scope: Scope) -> None:
        """``if <runtime condition>: local.add(x)``: keep the static set, note the extra values."""
        if stmt.orelse:
            raise SystemExit(f"add_cli_args: unsupported if/else at line {stmt.lineno}")
        for inner in stmt.body:
            call = inner.value if isinstance(inner, ast.Expr) else None
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id in scope.locals
                and call.func.attr in LIST_MUTATORS
            ):
                raise SystemExit(f"add_cli_args: unsupported conditional at line {stmt.lineno}")
            name = call.func.value.id
            added = self.ev.value(call.args[0], scope)
            extra = self.ev.iterate(added) if call.func.attr in ("extend", "update") else [added]
            value, notes = scope.locals[name]
            note = (
                f"SGLang also accepts {', '.join(repr(v) for v in extra)} when "
                f"`{ast.unparse(stmt.test)}` is true while the parser is built"
            )
            scope.locals[name] = (value, notes + (note,))

    # -- hand-registered options ----------------------------------------------

    def hand_flag(self, call: ast.Call, scope: Scope) -> Flag:
        """One ``parser.add_argument(...)`` call."""
        options = [self.ev.value(a, scope) for a in call.args]
        if not options or not all(isinstance(o, str) and o.startswith("-") for o in options):
            raise SystemExit(f"positional or odd add_argument at line {call.lineno}")
        kw_nodes = {kw.arg: kw.value for kw in call.keywords}
        if None in kw_nodes:
            raise SystemExit(f"**kwargs in add_argument at line {call.lineno}")
        kwargs: Dict[str, Any] = {}
        notes: Dict[str, List[str]] = {}
        errors: Dict[str, str] = {}
        for key, node in kw_nodes.items():
            if key == "type":
                continue
            try:
                kwargs[key], notes[key] = self.ev.evaluate(node, scope)
            except Unresolvable as exc:
                if key not in ("default", "choices"):
                    raise SystemExit(f"line {call.lineno}: cannot evaluate {key}=: {exc}")
                errors[key] = f"{ast.unparse(node)} could not be evaluated statically ({exc})"
        type_ = type_name(kw_nodes.get("type"))
        return self.make_flag(
            options=options,
            kwargs=kwargs,
            type_=type_,
            notes=notes,
            errors=errors,
            source=self.source(SERVER_ARGS_MODULE, call),
        )

    # -- options derived from field annotations --------------------------------

    def derived_flags(self) -> List[Flag]:
        """``add_cli_args_from_dataclass(parser, ServerArgs)`` over all fields."""
        flags = []
        for field in self.fields:
            flag = self.derived_flag(field)
            if flag is not None:
                flags.append(flag)
        return flags

    def derived_flag(self, field: Field) -> Optional[Flag]:
        """One field, following arg_utils.add_cli_args_from_dataclass branch by branch."""
        parts = _annotated_parts(field.node.annotation)
        if parts is None:
            return None
        inner, metas = parts
        scope = field.scope
        meta = arg_meta(self.ev, metas, scope)
        if meta is None or meta.get("no_cli"):
            return None
        cli_name = meta.get("cli_name") or "--" + field.name.replace("_", "-")
        options = [cli_name] + list(meta.get("aliases") or [])
        kwargs: Dict[str, Any] = {"help": meta.get("help", ""), "dest": field.name}
        notes: Dict[str, List[str]] = {}
        errors: Dict[str, str] = {}
        try:
            default = field_default(self.ev, field)
        except Unresolvable as exc:
            default = _UNSET
            errors["default"] = f"{ast.unparse(field.value)} could not be evaluated statically ({exc})"
        if default is not _UNSET:
            kwargs["default"] = default
        source = self.source(field.module, field.node)

        if "action" in meta.nodes:  # custom action: no type/choices inference
            kwargs["action"] = self.ev.value(meta.nodes["action"], scope)
            type_ = None
            if "action_kwargs" in meta.nodes:
                type_ = self._action_kwargs(meta.nodes["action_kwargs"], scope, kwargs)
            return self.make_flag(options, kwargs, type_, notes, errors, source)

        type_parser = type_name(meta.nodes.get("type_parser"))
        shape = type_shape(self.ev, inner, scope)
        const = meta.get("const")
        if shape.kind == "literal":
            if meta.get("choices"):
                kwargs["choices"] = meta.get("choices")
                notes["choices"] = meta.notes.get("choices", [])
            else:
                kwargs["choices"] = shape.literal_values
            first = shape.literal_values[0] if shape.literal_values else ""
            first_type = type(first).__name__
            type_ = type_parser or (first_type if first_type in BUILTIN_TYPES else "str")
            if const is not None:
                kwargs["const"] = const
        elif shape.kind == "list" and type_parser is None:
            type_ = shape.elem
            kwargs["nargs"] = meta.get("nargs") or "+"
            if meta.get("choices"):
                kwargs["choices"] = meta.get("choices")
                notes["choices"] = meta.notes.get("choices", [])
            if const is not None:
                kwargs["const"] = const
        elif shape.kind == "bool":
            kwargs["action"] = "store_true"
            type_ = None
        else:
            type_ = type_parser or shape.elem
            if meta.get("choices"):
                kwargs["choices"] = meta.get("choices")
                notes["choices"] = meta.notes.get("choices", [])
            if meta.get("nargs"):
                kwargs["nargs"] = meta.get("nargs")
            if const is not None:
                kwargs["const"] = const
            required = meta.get("required")
            if (required is True or (required is None and default is _UNSET)) and not errors:
                kwargs["required"] = True
        return self.make_flag(options, kwargs, type_, notes, errors, source)

    def _action_kwargs(self, node: ast.expr, scope: Scope, kwargs: Dict[str, Any]) -> Optional[str]:
        """``Arg(action_kwargs={...})``: merged into add_argument's keywords."""
        if not isinstance(node, ast.Dict):
            raise SystemExit(f"unsupported action_kwargs {ast.unparse(node)}")
        type_ = None
        for key_node, value_node in zip(node.keys, node.values):
            key = self.ev.value(key_node, scope)
            if key == "type":
                type_ = type_name(value_node)
            else:
                kwargs[key] = self.ev.value(value_node, scope)
        return type_

    # -- common -----------------------------------------------------------------

    def make_flag(
        self,
        options: List[str],
        kwargs: Dict[str, Any],
        type_: Optional[str],
        notes: Dict[str, List[str]],
        errors: Dict[str, str],
        source: str,
    ) -> Flag:
        """Apply argparse's (and the action class's) defaults to one registration."""
        info = self.actions.analyze(kwargs.get("action"), kwargs)
        if info.kind == "boolean_optional":
            options = boolean_optional_strings(options)
        dest = kwargs.get("dest") or option_dest(options)
        choices = kwargs.get("choices")
        choices_note = "; ".join(notes.get("choices", [])) or None
        if "choices" in errors:
            choices, choices_note = None, errors["choices"]
        default = info.default
        default_note = "; ".join(notes.get("default", [])) or None
        if "default" in errors:
            default, default_note = None, errors["default"]
        try:
            default = to_json_value(default)
        except Unresolvable as exc:
            default, default_note = None, f"the default has no JSON form ({exc})"
        help_text = kwargs.get("help")
        return Flag(
            dest=dest,
            option_strings=list(options),
            action=info.kind,
            type=type_,
            nargs=info.nargs,
            choices=None if choices is None else to_json_value(list(self.ev.iterate(choices))),
            default=default,
            const=to_json_value(info.const),
            required=bool(kwargs.get("required", False)),
            deprecated=_json_deprecated(info.deprecated),
            hidden=help_text == SUPPRESS,
            help=help_text,
            source=source,
            choices_note=choices_note,
            default_note=default_note,
        )


def _json_deprecated(dep: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if dep is None:
        return None
    return {"message": str(dep["message"]), "replacement": dep["replacement"]}


# ---------------------------------------------------------------------------
# Table assembly and CLI
# ---------------------------------------------------------------------------


def parser_prog(ev: Evaluator) -> Optional[str]:
    """``prog=`` of the ArgumentParser built in ``prepare_server_args`` (None if unset)."""
    tree = ev.wheel.module_ast(SERVER_ARGS_MODULE)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "prepare_server_args":
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ArgumentParser"):
                    for kw in node.keywords:
                        if kw.arg == "prog":
                            return ev.value(kw.value, Scope(SERVER_ARGS_MODULE))
                    return None
    return None


def build_table(wheel_path: str) -> Dict[str, Any]:
    """The complete JSON document for one wheel."""
    wheel = Wheel(wheel_path)
    builder = TableBuilder(wheel)
    flags = builder.build()
    return {
        "schema": SCHEMA_VERSION,
        "engine": "sglang",
        "version": wheel.version(),
        "wheel": wheel.filename,
        "wheel_sha256": wheel.sha256,
        "generator": GENERATOR,
        "prog": parser_prog(builder.ev),
        "flags": [flag.to_json() for flag in flags],
    }


def render(table: Dict[str, Any]) -> str:
    return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def download_wheel(version: str, directory: str) -> str:
    """``pip download sglang==VERSION --no-deps`` into ``directory``; the wheel's path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"sglang=={version}", "--no-deps",
         "--only-binary", ":all:", "-d", directory],
        check=True,
    )
    wheels = sorted(f for f in os.listdir(directory) if f.endswith(".whl")) if os.path.isdir(directory) else []
    if not wheels:
        raise SystemExit(f"pip downloaded no wheel for sglang=={version}")
    return os.path.join(directory, wheels[0])


def write_packed(tables: List[Dict[str, Any]], out_dir: str) -> str:
    """Add (or replace) these releases' tables in ``OUT/sglang-flags.jsonl`` (every release's table, each
    distinct flag definition stored once: ``pdlint/engines/sglang/packed.py``)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from pdlint.engines.sglang import packed
    path = os.path.join(out_dir, packed.FLAGS_FILE)
    by_version: Dict[str, Dict[str, Any]] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            store = packed.FlagStore(fh.read())
        by_version = {v: store.table(v) for v in store.versions}
    for t in tables:
        by_version[t["version"]] = t
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(packed.pack_flags(list(by_version.values())))
    return path


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--wheel", action="append", help="path to an sglang-*.whl (repeatable)")
    source.add_argument("--version", action="append", help="download sglang==VERSION with pip first (repeatable)")
    parser.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "pdlint", "engines", "sglang", "data"),
        help="output directory (default: pdlint/engines/sglang/data/)",
    )
    parser.add_argument("--json", action="store_true",
                        help="write flags-<version>.json per release instead of updating the packed file")
    args = parser.parse_args(argv)
    tables = []
    with tempfile.TemporaryDirectory() as tmp:
        wheels = args.wheel or [download_wheel(v, os.path.join(tmp, str(i))) for i, v in enumerate(args.version)]
        for wheel_path in wheels:
            table = build_table(wheel_path)
            print(f"SGLang {table['version']}: {len(table['flags'])} flags")
            tables.append(table)
    if args.json:
        os.makedirs(args.out, exist_ok=True)
        for table in tables:
            out_path = os.path.join(args.out, f"flags-{table['version']}.json")
            with open(out_path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(render(table))
            print(f"wrote {out_path}")
        return 0
    print(f"wrote {write_packed(tables, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
