#!/usr/bin/env python3
"""Generate pdlint's Dynamo-SGLang wrapper flag tables statically from an ai-dynamo wheel.

Usage::

    python scripts/gen_dynamo_flags.py --wheel ai_dynamo-1.6.1-py3-none-any.whl [--out DIR]
    python scripts/gen_dynamo_flags.py --version 1.6.1 [--out DIR]

NVIDIA Dynamo launches SGLang workers through ``python -m dynamo.sglang``.  Its
``dynamo/sglang/args.py: parse_args`` accepts Dynamo's own options besides
SGLang's.  This script reads the wheel as a zip, analyses the sources with
:mod:`ast` (Dynamo is never imported: it needs its compiled runtime and SGLang)
and writes ``dynamo-sglang-<version>.json``: every option string the wrapper
accepts on top of SGLang's ``ServerArgs.add_cli_args``, which parser consumes
it, and how the parsers are chained.

``parse_args`` is followed statement by statement with a small abstract
interpreter: ``argparse.ArgumentParser(...)`` objects and their argument
groups are tracked, ``ArgGroup`` classes are instantiated (``__init__``
assignments are replayed) and their ``add_arguments`` bodies are run, helper
functions of the wheel that touch a parser are entered with their parameters
bound, and Dynamo's registration helpers ``add_argument`` /
``add_negatable_bool_argument`` (``dynamo/common/configuration/utils.py``) are
applied with their documented semantics (flag + obsolete alias, dest, the
``env var: X | default: Y`` help suffix computed by the wheel's own
``_build_help_message``, the ``Deprecated`` wrapper).  Two layouts are known:

* **arg groups** (1.0+): ``DynamoRuntimeArgGroup`` and ``DynamoSGLangArgGroup``
  register on a parser of their own that runs ``parse_known_args`` first;
  SGLang's options live on a second parser (``ServerArgs.add_cli_args`` plus
  ``add_sglang_cli_compat``) that parses the remainder.  From 1.6 the worker
  router advertisement flags are parsed in between by a third parser
  (``parse_worker_router_config``).
* **flat dict** (0.x): ``DYNAMO_ARGS`` entries, ``--version`` and
  ``--config-key`` are added to the very parser ``ServerArgs.add_cli_args``
  fills, and one ``parse_args`` call parses everything.

Values are evaluated for a launch with an empty environment: ``os.environ``
reads yield their defaults and are reported as ``env_var``.  The statically
unknowable choice lists (``dynamo._core.get_tool_parser_names()``, compiled in
ai-dynamo-runtime) become ``null`` with a ``choices_note``.

The expression evaluator is the one of ``scripts/gen_sglang_flags.py``.
Only the standard library is used.  Output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

GENERATOR = "scripts/gen_dynamo_flags.py"
SCHEMA_VERSION = 1
ARGS_MODULE = "dynamo.sglang.args"
UTILS_MODULE = "dynamo.common.configuration.utils"
ENTRY_FUNCTION = "parse_args"


def _load_sglang_generator():
    """``scripts/gen_sglang_flags.py`` as a module (its evaluator and wheel reader)."""
    name = "gen_sglang_flags"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_sglang_flags.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


SG = _load_sglang_generator()
Unresolvable = SG.Unresolvable
External = SG.External
ClassRef = SG.ClassRef
FuncRef = SG.FuncRef
LambdaRef = SG.LambdaRef
ModuleRef = SG.ModuleRef
Placeholder = SG.Placeholder
Scope = SG.Scope
SUPPRESS = SG.SUPPRESS
UNSET = SG._UNSET

# kind -> (nargs, const, default) that argparse applies when add_argument()
# does not pass them.
ACTION_DEFAULTS = {
    "store": (None, None, None),
    "store_const": (0, None, None),
    "store_true": (0, True, False),
    "store_false": (0, False, True),
    "append": (None, None, None),
    "append_const": (0, None, None),
    "count": (0, None, None),
    "boolean_optional": (0, None, None),
    "version": (0, None, SUPPRESS),
    "help": (0, None, SUPPRESS),
}

# argparse's own help texts for the actions it supplies them for (CPython 3.10-3.13).
ARGPARSE_HELP = {
    "help": "show this help message and exit",
    "version": "show program's version number and exit",
}

# Calls whose presence inside a statement means it may register options.
REGISTRATION_NAMES = {
    "add_argument", "add_negatable_bool_argument", "add_arguments", "add_cli_args",
    "add_argument_group", "add_mutually_exclusive_group",
}


class StopWalk(Exception):
    """Raised once the final (SGLang) parse call of ``parse_args`` is reached."""


class ReturnValue(Exception):
    def __init__(self, value: Any):
        self.value = value


# ---------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------


class Unknown:
    """A runtime value the interpreter does not model (argv, configs, ...)."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = Unknown()


@dataclasses.dataclass(frozen=True)
class Opaque:
    """An argument that cannot be evaluated statically (its source text)."""

    text: str
    reason: str


@dataclasses.dataclass(eq=False)
class Parser:
    """One ``argparse.ArgumentParser`` built while parsing a Dynamo worker's argv."""

    index: int
    function: str  # where it was created
    variable: Optional[str]
    add_help: bool
    allow_abbrev: bool
    source: str
    flags: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    sglang_registered: bool = False
    parse_calls: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    help_copies_from: List[str] = dataclasses.field(default_factory=list)
    name: str = ""

    def option_strings(self) -> List[str]:
        return [o for f in self.flags for o in f["option_strings"]]


@dataclasses.dataclass(eq=False)
class ParserRef:
    """A parser or one of its argument groups (groups register on their parser)."""

    parser: Parser


@dataclasses.dataclass(eq=False)
class OptionsView:
    """``parser._option_string_actions``: contents depend on the SGLang version."""

    parser: Parser


@dataclasses.dataclass(eq=False)
class ActionsView:
    """``parser._actions`` (iterated by the wrapper to patch or copy actions)."""

    parser: Parser


class Instance(SG.AttrBag):
    """An object of a class defined in the wheel (ArgGroup, ``Deprecated``)."""

    def __init__(self, cls: ClassRef, attrs: Dict[str, Any]):
        super().__init__(attrs)
        self.cls = cls


@dataclasses.dataclass(eq=False)
class BoundWheelMethod:
    instance: Instance
    cls: ClassRef
    node: ast.FunctionDef


@dataclasses.dataclass
class EnvRead:
    name: str
    how: str  # "get" or "membership"


# ---------------------------------------------------------------------------
# Evaluator: gen_sglang_flags' evaluator plus os.environ, wheel functions with
# arguments, and instances of wheel classes
# ---------------------------------------------------------------------------


class DynEvaluator(SG.Evaluator):
    def __init__(self, wheel):
        super().__init__(wheel)
        self.env_reads: List[EnvRead] = []
        self.depth = 0

    def _eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        value = super()._eval_Name(node, scope)
        if isinstance(value, Unknown):
            raise Unresolvable(f"{node.id} is a runtime value")
        return value

    # -- os.environ: an empty environment ---------------------------------

    def _is_environ(self, node: ast.AST) -> bool:
        return ast.unparse(node) in ("os.environ", "environ")

    def _eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) and \
                self._is_environ(node.comparators[0]):
            key = self.eval(node.left, scope)
            self.env_reads.append(EnvRead(str(key), "membership"))
            return isinstance(node.ops[0], ast.NotIn)
        return super()._eval_Compare(node, scope)

    def _call_external(self, dotted: str, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        if dotted in ("os.environ.get", "os.getenv"):
            self.env_reads.append(EnvRead(str(args[0]), "get"))
            if len(args) > 1:
                return args[1]
            return kwargs.get("default")
        if dotted == "builtins.isinstance":
            raise Unresolvable("isinstance")
        return super()._call_external(dotted, args, kwargs)

    # -- wheel classes and functions ---------------------------------------

    def attribute(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, Instance):
            if attr in obj.attrs:
                return obj.attrs[attr]
            found = find_method(self, obj.cls, attr)
            if found is not None:
                return BoundWheelMethod(obj, found[0], found[1])
            try:
                return self.class_attr(obj.cls, attr)
            except Unresolvable:
                raise Unresolvable(f"{obj.cls.name} has no attribute {attr}")
        if isinstance(obj, ParserRef):
            if attr == "_option_string_actions":
                return OptionsView(obj.parser)
            if attr == "_actions":
                return ActionsView(obj.parser)
            raise Unresolvable(f"parser attribute {attr}")
        return super().attribute(obj, attr)

    def call(self, func: Any, args: List[Any], kwargs: Dict[str, Any]) -> Any:
        if isinstance(func, FuncRef):
            return self.call_function(func.module, func.node, args, kwargs, None)
        if isinstance(func, BoundWheelMethod):
            return self.call_function(func.cls.module, func.node, args, kwargs, func.instance)
        if isinstance(func, ClassRef):
            return self.instantiate(func, args, kwargs)
        return super().call(func, args, kwargs)

    def instantiate(self, cls: ClassRef, args: List[Any], kwargs: Dict[str, Any]) -> Instance:
        """A wheel class: replay ``__init__`` or bind dataclass-style fields."""
        instance = Instance(cls, {})
        found = find_method(self, cls, "__init__")
        if found is not None:
            self.call_function(found[0].module, found[1], args, kwargs, instance)
            return instance
        fields = [s for s in cls.node.body if isinstance(s, ast.AnnAssign)
                  and isinstance(s.target, ast.Name)]
        remaining = list(args)
        for stmt in fields:
            name = stmt.target.id
            if remaining:
                instance.attrs[name] = remaining.pop(0)
            elif name in kwargs:
                instance.attrs[name] = kwargs[name]
            elif stmt.value is not None:
                instance.attrs[name] = self.eval(stmt.value, Scope(cls.module))
        if remaining or set(kwargs) - set(instance.attrs):
            raise Unresolvable(f"cannot construct {cls.name}")
        return instance

    def bind_params(self, module: str, node: ast.FunctionDef, args: List[Any],
                    kwargs: Dict[str, Any], self_obj: Any) -> Scope:
        scope = Scope(module)
        spec = node.args
        positional = list(spec.posonlyargs) + list(spec.args)
        values = list(args)
        if self_obj is not None:
            values = [self_obj] + values
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        extra_kwargs = dict(kwargs)
        for param, default in zip(positional, defaults):
            if values:
                value = values.pop(0)
            elif param.arg in extra_kwargs:
                value = extra_kwargs.pop(param.arg)
            elif default is not None:
                value = self.eval(default, Scope(module))
            else:
                raise Unresolvable(f"{node.name}: missing argument {param.arg}")
            scope.locals[param.arg] = (value, ())
        if values:
            if spec.vararg is None:
                raise Unresolvable(f"{node.name}: too many arguments")
            scope.locals[spec.vararg.arg] = (tuple(values), ())
        elif spec.vararg is not None:
            scope.locals[spec.vararg.arg] = ((), ())
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
            if param.arg in extra_kwargs:
                value = extra_kwargs.pop(param.arg)
            elif default is not None:
                value = self.eval(default, Scope(module))
            else:
                raise Unresolvable(f"{node.name}: missing keyword argument {param.arg}")
            scope.locals[param.arg] = (value, ())
        if spec.kwarg is not None:
            scope.locals[spec.kwarg.arg] = (extra_kwargs, ())
        elif extra_kwargs:
            raise Unresolvable(f"{node.name}: unexpected keywords {sorted(extra_kwargs)}")
        return scope

    def call_function(self, module: str, node: ast.FunctionDef, args: List[Any],
                      kwargs: Dict[str, Any], self_obj: Any) -> Any:
        """A pure helper (help/message builders, ``env_or_default``, ...)."""
        if self.depth > 20:
            raise Unresolvable("recursion")
        scope = self.bind_params(module, node, args, kwargs, self_obj)
        self.depth += 1
        try:
            self._run_pure(node.body, scope)
        except ReturnValue as ret:
            return ret.value
        finally:
            self.depth -= 1
        return None

    def _run_pure(self, stmts: List[ast.stmt], scope: Scope) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.Return):
                raise ReturnValue(None if stmt.value is None else self.eval(stmt.value, scope))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                scope.locals[stmt.targets[0].id] = (self.eval(stmt.value, scope), ())
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Attribute) and \
                    isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "self":
                owner = self.eval(stmt.targets[0].value, scope)
                owner.attrs[stmt.targets[0].attr] = self.eval(stmt.value, scope)
                continue
            if isinstance(stmt, ast.If):
                self._run_pure(stmt.body if self.eval(stmt.test, scope) else stmt.orelse, scope)
                continue
            raise Unresolvable(f"unsupported statement in helper: {ast.unparse(stmt)[:60]}")


def find_method(ev: DynEvaluator, cls: ClassRef, name: str) -> Optional[Tuple[ClassRef, ast.FunctionDef]]:
    """``name`` defined in ``cls`` or in a base class of the wheel (MRO, depth-first)."""
    for stmt in cls.node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return cls, stmt
    for base in cls.node.bases:
        try:
            ref = ev.eval(base, Scope(cls.module))
        except Unresolvable:
            continue
        if isinstance(ref, ClassRef):
            found = find_method(ev, ref, name)
            if found is not None:
                return found
    return None


# ---------------------------------------------------------------------------
# The interpreter of parse_args and the ArgGroup bodies
# ---------------------------------------------------------------------------


def _mentions_registration(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else (
                func.id if isinstance(func, ast.Name) else "")
            if name in REGISTRATION_NAMES or name.startswith("add_") or \
                    name in ("parse_args", "parse_known_args") or name == "ArgumentParser":
                return True
    return False


def _function_touches_parsers(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return any(word in text for word in ("ArgumentParser", "add_argument", "add_arguments",
                                         "_actions", "_option_string_actions"))


def type_spelling(value: Any) -> Optional[str]:
    """The ``type=`` callable: builtin name, wheel function name, or lambda source."""
    if value is None:
        return None
    if isinstance(value, External):
        return value.dotted[len("builtins."):] if value.dotted.startswith("builtins.") else value.dotted
    if isinstance(value, FuncRef):
        return value.node.name
    if isinstance(value, ClassRef):
        return value.name
    if isinstance(value, LambdaRef):
        return ast.unparse(value.node)
    raise Unresolvable(f"type {value!r}")


class Interpreter:
    """Runs ``parse_args`` abstractly and records parsers, flags and parse calls."""

    def __init__(self, wheel):
        self.wheel = wheel
        self.ev = DynEvaluator(wheel)
        self.parsers: List[Parser] = []
        self.sites: List[Tuple[str, int]] = []  # registration call stack (module, line)
        self.conditions: List[Dict[str, List[str]]] = []
        self.item_context: List[Dict[str, Any]] = []
        self.function_stack: List[str] = []
        self.final_parse: Optional[Dict[str, Any]] = None
        self.sglang_overrides: Dict[str, Any] = {}

    # -- helpers ------------------------------------------------------------

    def source(self, module: str, node: ast.AST) -> str:
        return f"{self.wheel.module_path(module)}:{node.lineno}"

    def value(self, node: ast.AST, scope: Scope) -> Any:
        return self.ev.eval(node, scope)

    # -- statements ---------------------------------------------------------

    def run(self, stmts: List[ast.stmt], scope: Scope) -> None:
        for stmt in stmts:
            self.statement(stmt, scope)

    def statement(self, stmt: ast.stmt, scope: Scope) -> None:
        if isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return
            if isinstance(stmt.value, ast.Call):
                self.call(stmt.value, scope, optional=not _mentions_registration(stmt))
            return
        if isinstance(stmt, ast.Assign):
            self.assign(stmt, scope)
            return
        if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            if _mentions_registration(stmt):
                raise SystemExit(f"unsupported statement at {self.source(scope.module, stmt)}")
            return
        if isinstance(stmt, ast.If):
            self.if_statement(stmt, scope)
            return
        if isinstance(stmt, ast.For):
            self.for_statement(stmt, scope)
            return
        if isinstance(stmt, ast.Try):
            self.run(stmt.body, scope)
            self.run(stmt.finalbody, scope)
            return
        if isinstance(stmt, ast.With):
            self.run(stmt.body, scope)
            return
        if isinstance(stmt, ast.Return):
            value = UNKNOWN
            if stmt.value is not None:
                try:
                    value = self.expression(stmt.value, scope)
                except Unresolvable:
                    value = UNKNOWN
            raise ReturnValue(value)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                if isinstance(stmt, ast.ImportFrom):
                    module = SG.absolute_module(scope.module, self.wheel.is_package(scope.module),
                                                stmt.level, stmt.module)
                    scope.locals[name] = (self.ev.import_from(module, alias.name), ())
                else:
                    scope.locals[name] = (self.ev.import_module(alias.name.split(".")[0]), ())
            return
        if _mentions_registration(stmt):
            raise SystemExit(f"unsupported statement at {self.source(scope.module, stmt)}: "
                             f"{ast.unparse(stmt)[:80]}")

    def assign(self, stmt: ast.Assign, scope: Scope) -> None:
        try:
            value = self.expression(stmt.value, scope)
        except Unresolvable:
            if _mentions_registration(stmt.value):
                raise SystemExit(f"cannot follow {ast.unparse(stmt)[:80]} at "
                                 f"{self.source(scope.module, stmt)}")
            value = UNKNOWN
        for target in stmt.targets:
            self.bind(target, value, scope)
        if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) and \
                stmt.value.func.attr in ("parse_args", "parse_known_args"):
            calls = self._parser_of(stmt.value.func.value, scope)
            if calls is not None and calls.parse_calls:
                calls.parse_calls[-1]["result"] = ast.unparse(stmt.targets[0])
                if self.final_parse is not None and self.final_parse["parser"] is calls:
                    self.final_parse["result"] = ast.unparse(stmt.targets[0])
                    raise StopWalk()

    def bind(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.locals[target.id] = (value, ())
        elif isinstance(target, ast.Tuple):
            values = list(value) if isinstance(value, (list, tuple)) else [UNKNOWN] * len(target.elts)
            for sub, item in zip(target.elts, values):
                self.bind(sub, item, scope)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in scope.locals:
            container = scope.locals[target.value.id][0]
            if isinstance(container, dict):
                try:
                    container[self.value(target.slice, scope)] = value
                except Unresolvable:
                    pass
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                target.value.id == "self" and "self" in scope.locals:
            owner = scope.locals["self"][0]
            if isinstance(owner, SG.AttrBag):
                owner.attrs[target.attr] = value

    def if_statement(self, stmt: ast.If, scope: Scope) -> None:
        guard = self.option_guard(stmt, scope)
        if guard is not None:
            self.conditions.append(guard)
            return
        try:
            taken = self.value(stmt.test, scope)
        except Unresolvable:
            if _mentions_registration(stmt):
                raise SystemExit(f"registration under a runtime condition at "
                                 f"{self.source(scope.module, stmt)}: {ast.unparse(stmt.test)}")
            return
        self.run(stmt.body if taken else stmt.orelse, scope)

    def option_guard(self, stmt: ast.If, scope: Scope) -> Optional[Dict[str, List[str]]]:
        """``if "--x" in options or "--y" not in options: return`` on a parser's options.

        The options present depend on the SGLang release, so the registrations
        that follow carry the condition instead of being decided here.
        """
        if not (len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Return) and not stmt.orelse):
            return None
        tests = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and \
            isinstance(stmt.test.op, ast.Or) else [stmt.test]
        absent, present = [], []
        for test in tests:
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
                    isinstance(test.ops[0], (ast.In, ast.NotIn))):
                return None
            try:
                container = self.value(test.comparators[0], scope)
            except Unresolvable:
                return None
            if not isinstance(container, OptionsView):
                return None
            option = self.value(test.left, scope)
            (absent if isinstance(test.ops[0], ast.In) else present).append(option)
        return {"requires_absent": absent, "requires_present": present}

    def for_statement(self, stmt: ast.For, scope: Scope) -> None:
        try:
            iterable = self.value(stmt.iter, scope)
        except Unresolvable:
            iterable = UNKNOWN
        if isinstance(iterable, ActionsView):
            self.actions_loop(stmt, iterable.parser, scope)
            return
        if isinstance(iterable, Unknown):
            if _mentions_registration(stmt):
                raise SystemExit(f"loop over a runtime value registers options at "
                                 f"{self.source(scope.module, stmt)}")
            return
        items = self.ev.iterate(iterable)
        provenance = self.dict_literal_items(stmt.iter, scope)
        for index, item in enumerate(items):
            SG._bind_target(stmt.target, item, scope)
            self.item_context.append(provenance[index] if provenance else {})
            try:
                self.run(stmt.body, scope)
            finally:
                self.item_context.pop()

    def dict_literal_items(self, node: ast.expr, scope: Scope) -> Optional[List[Dict[str, Any]]]:
        """For ``for info in NAME.values()`` over a module-level dict literal:
        each entry's line, its value nodes and the env vars its evaluation reads."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr == "values" and isinstance(node.func.value, ast.Name)):
            return None
        stmts = self.ev.bindings(scope.module).get(node.func.value.id)
        if not stmts or not isinstance(getattr(stmts[-1], "value", None), ast.Dict):
            return None
        out = []
        for value_node in stmts[-1].value.values:
            fields: Dict[Any, ast.expr] = {}
            field_reads: Dict[Any, List[str]] = {}
            if isinstance(value_node, ast.Dict):
                for key_node, field_node in zip(value_node.keys, value_node.values):
                    if not isinstance(key_node, ast.Constant):
                        continue
                    fields[key_node.value] = field_node
                    mark = len(self.ev.env_reads)
                    try:
                        self.ev.eval(field_node, Scope(scope.module))
                    except Unresolvable:
                        pass
                    field_reads[key_node.value] = [r.name for r in self.ev.env_reads[mark:]]
            out.append({"source": self.source(scope.module, value_node),
                        "fields": fields, "field_reads": field_reads})
        return out

    def actions_loop(self, stmt: ast.For, parser: Parser, scope: Scope) -> None:
        """Loops over ``parser._actions``: a choices patch or a help-only copy."""
        var = stmt.target.id if isinstance(stmt.target, ast.Name) else None
        for node in ast.walk(stmt):
            # group._group_actions.append(action): shows the actions in --help only.
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "append" and isinstance(node.func.value, ast.Attribute) and \
                    node.func.value.attr == "_group_actions":
                target = self._parser_of(node.func.value.value, scope)
                if target is not None:
                    target.help_copies_from.append(parser.name or f"parser#{parser.index}")
            # action.choices = list(action.choices) + [...] under `dest == "x"`.
            if isinstance(node, ast.If):
                dest = None
                for sub in ast.walk(node.test):
                    if isinstance(sub, ast.Compare) and isinstance(sub.ops[0], ast.Eq) and \
                            isinstance(sub.comparators[0], ast.Constant) and \
                            "dest" in ast.unparse(sub.left):
                        dest = sub.comparators[0].value
                for sub in node.body:
                    if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and \
                            ast.unparse(sub.targets[0]) == f"{var}.choices" and \
                            isinstance(sub.value, ast.BinOp) and isinstance(sub.value.right, ast.List):
                        extra = self.value(sub.value.right, scope)
                        parser_key = parser
                        self.sglang_overrides.setdefault(dest, {"extra_choices": [],
                                                                "parser": parser_key,
                                                                "source": self.source(scope.module, sub)})
                        self.sglang_overrides[dest]["extra_choices"].extend(extra)

    def _parser_of(self, node: ast.expr, scope: Scope) -> Optional[Parser]:
        try:
            value = self.value(node, scope)
        except Unresolvable:
            return None
        return value.parser if isinstance(value, ParserRef) else None

    # -- expressions with side effects ----------------------------------------

    def expression(self, node: ast.expr, scope: Scope) -> Any:
        if isinstance(node, ast.Call):
            return self.call(node, scope, optional=False)
        return self.value(node, scope)

    def call(self, call: ast.Call, scope: Scope, optional: bool) -> Any:
        func_node = call.func
        # parser.add_argument / add_argument_group / parse_known_args ...
        if isinstance(func_node, ast.Attribute):
            try:
                owner = self.expression(func_node.value, scope)
            except Unresolvable:
                owner = UNKNOWN
            if isinstance(owner, ParserRef):
                return self.parser_method(owner.parser, func_node.attr, call, scope)
            if isinstance(owner, External) and owner.dotted.endswith("ServerArgs") and \
                    func_node.attr == "add_cli_args":
                target = self.value(call.args[0], scope)
                target.parser.sglang_registered = True
                return None
            if isinstance(owner, Instance):
                found = find_method(self.ev, owner.cls, func_node.attr)
                if found is not None and _function_touches_parsers(found[1]):
                    return self.enter(found[0].module, found[1], call, scope, owner)
        try:
            func = self.value(func_node, scope)
        except Unresolvable:
            func = UNKNOWN
        if isinstance(func, External) and func.dotted == "argparse.ArgumentParser":
            return self.new_parser(call, scope)
        if isinstance(func, FuncRef):
            if func.module == UTILS_MODULE and func.node.name == "add_argument":
                args, kwargs = self.arguments(call, scope)
                self.sites.append((scope.module, call.lineno))
                try:
                    self.dynamo_add_argument(func, args, kwargs)
                finally:
                    self.sites.pop()
                return None
            if _function_touches_parsers(func.node):
                return self.enter(func.module, func.node, call, scope, None)
        if isinstance(func, ClassRef):
            args, kwargs = self.arguments(call, scope)
            return self.ev.instantiate(func, args, kwargs)
        if optional:
            return UNKNOWN
        # A pure expression (e.g. a constant helper); fall back to the evaluator.
        return self.value(call, scope)

    def arguments(self, call: ast.Call, scope: Scope) -> Tuple[List[Any], Dict[str, Any]]:
        """Evaluate a call's arguments; keywords that cannot be evaluated become
        :class:`Opaque`, and the env vars each keyword reads go to ``self.kw_reads``."""
        args: List[Any] = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.ev.iterate(self.value(arg.value, scope)))
                continue
            try:
                args.append(self.expression(arg, scope))
            except Unresolvable:
                if _mentions_registration(arg):
                    raise
                args.append(UNKNOWN)  # e.g. the argv list being parsed
        kwargs: Dict[str, Any] = {}
        reads: Dict[str, List[str]] = {}
        for kw in call.keywords:
            if kw.arg is None:
                kwargs.update(self.value(kw.value, scope))
                continue
            mark = len(self.ev.env_reads)
            try:
                kwargs[kw.arg] = self.expression(kw.value, scope)
            except Unresolvable as exc:
                if _mentions_registration(kw.value):
                    raise
                kwargs[kw.arg] = Opaque(ast.unparse(kw.value), str(exc))
            reads[kw.arg] = [r.name for r in self.ev.env_reads[mark:]]
        self.kw_reads = reads
        return args, kwargs

    def enter(self, module: str, node: ast.FunctionDef, call: ast.Call, scope: Scope,
              self_obj: Any) -> Any:
        """Run a wheel function that builds or fills parsers, parameters bound."""
        args, kwargs = self.arguments(call, scope)
        inner = self.ev.bind_params(module, node, args, kwargs, self_obj)
        self.sites.append((scope.module, call.lineno))
        self.function_stack.append(node.name)
        depth = len(self.conditions)
        try:
            self.run(node.body, inner)
        except ReturnValue as ret:
            return ret.value
        finally:
            del self.conditions[depth:]
            self.function_stack.pop()
            self.sites.pop()
        return None

    def new_parser(self, call: ast.Call, scope: Scope) -> ParserRef:
        _, kwargs = self.arguments(call, scope)
        parser = Parser(
            index=len(self.parsers),
            function=self.function_stack[-1] if self.function_stack else "",
            variable=None,
            add_help=bool(kwargs.get("add_help", True)),
            allow_abbrev=bool(kwargs.get("allow_abbrev", True)),
            source=self.source(scope.module, call),
        )
        if kwargs.get("prefix_chars", "-") != "-" or kwargs.get("conflict_handler", "error") != "error":
            raise SystemExit(f"unsupported ArgumentParser options at {parser.source}")
        if parser.add_help:
            parser.flags.append(self.flag(
                options=["-h", "--help"], dest="help", action="help", type_=None,
                kwargs={}, env_var=None, notes={},
                source="argparse: ArgumentParser(add_help=True)"))
        self.parsers.append(parser)
        return ParserRef(parser)

    def parser_method(self, parser: Parser, method: str, call: ast.Call, scope: Scope) -> Any:
        if method in ("add_argument_group", "add_mutually_exclusive_group"):
            return ParserRef(parser)
        if method == "add_argument":
            self.sites.append((scope.module, call.lineno))
            try:
                args, kwargs = self.arguments(call, scope)
                self.argparse_add_argument(parser, args, kwargs, self.kw_reads)
            finally:
                self.sites.pop()
            return None
        if method in ("parse_known_args", "parse_args"):
            try:
                given = ast.unparse(call.args[0]) if call.args else "sys.argv[1:]"
            except Exception:
                given = "?"
            entry = {"parser": parser, "method": method, "input": given,
                     "function": self.function_stack[-1] if self.function_stack else "",
                     "source": self.source(scope.module, call)}
            parser.parse_calls.append(entry)
            if parser.sglang_registered and method == "parse_args":
                self.final_parse = entry
            return (UNKNOWN, UNKNOWN) if method == "parse_known_args" else UNKNOWN
        if method in ("set_defaults",):
            raise SystemExit(f"set_defaults at {self.source(scope.module, call)} is not modelled")
        return UNKNOWN

    # -- registrations ------------------------------------------------------------

    def current_source(self) -> str:
        """The innermost registration call site outside the registration helpers."""
        item = self.item_context[-1] if self.item_context else {}
        if item.get("source"):
            return item["source"]
        for module, line in reversed(self.sites):
            if module != UTILS_MODULE:
                return f"{self.wheel.module_path(module)}:{line}"
        module, line = self.sites[-1]
        return f"{self.wheel.module_path(module)}:{line}"

    def argparse_add_argument(self, parser: Parser, args: List[Any], kwargs: Dict[str, Any],
                              reads: Dict[str, List[str]]) -> None:
        """A direct ``parser.add_argument(...)``.

        The env vars read while evaluating ``default`` make ``env_var``; in the
        flat-dict layout each entry's fields were evaluated one by one beforehand.
        """
        item = self.item_context[-1] if self.item_context else {}
        if item:
            reads = item["field_reads"]
            for key, value in list(kwargs.items()):
                if value is SG._OPAQUE and key in item["fields"]:
                    kwargs[key] = Opaque(ast.unparse(item["fields"][key]), "not evaluable")
        notes: Dict[str, List[str]] = {}
        default_reads = list(dict.fromkeys(reads.get("default", [])))
        env_var = default_reads[0] if default_reads else None
        if len(default_reads) > 1:
            notes.setdefault("env_var", []).append("the default reads " + ", ".join(default_reads))
        other = [name for key, names in sorted(reads.items()) if key != "default" for name in names]
        if other:
            notes.setdefault("help", []).append(
                "computed with an empty environment; it reads " + ", ".join(dict.fromkeys(other)))
        self._register(parser, list(args), kwargs, env_var, notes)

    def _register(self, parser: Parser, options: List[Any], kwargs: Dict[str, Any],
                  env_var: Optional[str], notes: Dict[str, List[str]],
                  deprecated: Optional[Dict[str, Any]] = None,
                  env_var_note: Optional[str] = None) -> None:
        if not options or not all(isinstance(o, str) and o.startswith("-") for o in options):
            raise SystemExit(f"positional or odd add_argument at {self.current_source()}")
        kwargs = dict(kwargs)
        for key, value in list(kwargs.items()):
            if isinstance(value, Opaque) or value is SG._OPAQUE:
                if key not in ("choices", "default"):
                    raise SystemExit(f"{key}= of {options[0]} cannot be evaluated statically")
                kwargs.pop(key)
                text = value.text if isinstance(value, Opaque) else key
                notes.setdefault(key, []).append(
                    f"`{text}` is computed when the parser is built and cannot be "
                    "evaluated statically")
        type_ = type_spelling(kwargs.pop("type", None))
        action = kwargs.pop("action", "store")
        if isinstance(action, External) and action.dotted == "argparse.BooleanOptionalAction":
            action = "boolean_optional"
        if isinstance(action, External) and action.dotted.startswith("argparse."):
            raise SystemExit(f"unsupported argparse action {action.dotted}")
        if not isinstance(action, str) or action not in ACTION_DEFAULTS:
            raise SystemExit(f"unsupported action {action!r} at {self.current_source()}")
        if action == "boolean_optional":
            options = SG.boolean_optional_strings(options)
        if env_var_note:
            notes.setdefault("env_var", []).insert(0, env_var_note)
        dest = kwargs.pop("dest", None) or SG.option_dest(options)
        flag = self.flag(options=options, dest=dest, action=action, type_=type_, kwargs=kwargs,
                         env_var=env_var, notes=notes, source=self.current_source(),
                         deprecated=deprecated)
        existing = set(parser.option_strings())
        clash = [o for o in flag["option_strings"] if o in existing]
        if clash:
            raise SystemExit(f"{clash} registered twice on one parser at {flag['source']}")
        parser.flags.append(flag)

    def flag(self, options: List[str], dest: str, action: str, type_: Optional[str],
             kwargs: Dict[str, Any], env_var: Optional[str], notes: Dict[str, List[str]],
             source: str, deprecated: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        nargs, const, default = ACTION_DEFAULTS[action]
        if action in ARGPARSE_HELP and "help" not in kwargs:
            kwargs = dict(kwargs, help=ARGPARSE_HELP[action])
        unknown = set(kwargs) - {"nargs", "const", "default", "help", "choices", "required",
                                 "metavar", "version"}
        if unknown:
            raise SystemExit(f"unsupported add_argument keywords {sorted(unknown)} at {source}")
        help_text = kwargs.get("help")
        choices = kwargs.get("choices")
        out: Dict[str, Any] = {
            "dest": dest,
            "option_strings": list(options),
            "action": action,
            "nargs": kwargs.get("nargs", nargs),
            "type": type_,
            "choices": None if choices is None else SG.to_json_value(list(self.ev.iterate(choices))),
            "default": SG.to_json_value(kwargs.get("default", default)),
            "const": SG.to_json_value(kwargs.get("const", const)),
            "required": bool(kwargs.get("required", False)),
            "deprecated": deprecated,
            "hidden": help_text == SUPPRESS,
            "help": help_text,
            "env_var": env_var,
            "parser": None,  # filled in once the parsers are named
            "source": source,
        }
        for key in ("choices", "default", "env_var", "help"):
            if notes.get(key):
                out[f"{key}_note"] = "; ".join(dict.fromkeys(notes[key]))
        if self.conditions:
            merged: Dict[str, List[str]] = {"requires_absent": [], "requires_present": []}
            for cond in self.conditions:
                for key in merged:
                    merged[key].extend(cond[key])
            out["condition"] = merged
        return out

    def dynamo_add_argument(self, func: FuncRef, args: List[Any], kwargs: Dict[str, Any]) -> None:
        """``dynamo.common.configuration.utils.add_argument`` as the wheel defines it.

        The keywords are bound against the wheel's own signature (so a keyword
        a release does not know fails here as it would at runtime).
        """
        scope = self.ev.bind_params(func.module, func.node, args, kwargs, None)
        p = {name: value for name, (value, _) in scope.locals.items()}
        extra = dict(p.pop(func.node.args.kwarg.arg, {}) if func.node.args.kwarg else {})
        parser = p["parser"].parser
        flag_name, env_var, default, help_text = p["flag_name"], p["env_var"], p["default"], p["help"]
        obsolete = p.get("obsolete_flag")
        arg_type = p.get("arg_type")
        deprecated = p.get("deprecated")
        names = [flag_name] + ([obsolete] if obsolete else [])
        if help_text == SUPPRESS:
            env_help = SUPPRESS
        else:
            builder = self.ev.module_name(UTILS_MODULE, "_build_help_message")
            env_help = self.ev.call(builder, [help_text, env_var, default, obsolete], {})
        dest = extra.pop("dest", None) or flag_name.lstrip("-").replace("-", "_")
        merged = dict(extra)
        merged.update({"dest": dest, "default": default, "help": env_help})
        if arg_type is not None:
            merged["type"] = arg_type
        dep_json = None
        if deprecated is not None:
            message = self.ev.call(self.ev.attribute(deprecated, "message"),
                                   [Placeholder("option_string")], {})
            if help_text != SUPPRESS:
                flag_message = self.ev.call(self.ev.attribute(deprecated, "message"), [flag_name], {})
                merged["help"] = flag_message + " " + env_help
            dep_json = {"message": str(message),
                        "replacement": deprecated.attrs.get("replacement"),
                        "remove_in": deprecated.attrs.get("remove_in")}
        env_var_note = None
        site_call = self._site_call()
        if site_call is not None:
            node = next((kw.value for kw in site_call.keywords if kw.arg == "env_var"), None)
            if node is not None and not isinstance(node, ast.Constant):
                env_var_note = (f"env_var is `{ast.unparse(node)}`; listed is its value "
                                "with an empty environment")
        notes: Dict[str, List[str]] = {}
        if deprecated is not None:
            notes.setdefault("env_var", []).append(
                f"setting {env_var} also prints the deprecation warning")
        self._register(parser, names, merged, env_var, notes,
                       deprecated=dep_json, env_var_note=env_var_note)

    def _site_call(self) -> Optional[ast.Call]:
        """The ast.Call of the outermost non-helper registration site (for notes)."""
        for module, line in reversed(self.sites):
            if module == UTILS_MODULE:
                continue
            tree = self.wheel.module_ast(module)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and node.lineno == line and \
                        any(kw.arg == "flag_name" for kw in node.keywords):
                    return node
            return None
        return None


# ---------------------------------------------------------------------------
# Post-parse analysis of parse_args: value rewriting between the parsers
# ---------------------------------------------------------------------------


def function_node(wheel, module: str, name: str) -> Optional[ast.AST]:
    for stmt in wheel.module_ast(module).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            return stmt
    return None


def disaggregation_mode_values(ev: DynEvaluator, wheel) -> List[Dict[str, Any]]:
    """Values ``_normalize_multimodal_disaggregation_args`` accepts for
    ``--disaggregation-mode`` and what SGLang's parser then receives."""
    func = function_node(wheel, ARGS_MODULE, "_normalize_multimodal_disaggregation_args")
    if func is None:
        return []
    scope = Scope(ARGS_MODULE)
    out: List[Dict[str, Any]] = []
    for node in ast.walk(func):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and
                len(node.test.ops) == 1 and ast.unparse(node.test.left) == "disaggregation_mode"):
            continue
        op = node.test.ops[0]
        if not isinstance(op, (ast.In, ast.Eq)):
            continue
        values = ev.value(node.test.comparators[0], scope)
        values = [values] if isinstance(op, ast.Eq) else ev.iterate(values)
        rewrite, removed, sets = None, False, []
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                args = sub.args
                if sub.func.id == "_set_cli_flag_value" and len(args) == 3 and \
                        ev.value(args[1], scope) == "--disaggregation-mode":
                    rewrite = ev.value(args[2], scope)
                if sub.func.id == "_remove_cli_flag_and_value" and len(args) == 2 and \
                        ev.value(args[1], scope) == "--disaggregation-mode":
                    removed = True
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and \
                    isinstance(sub.targets[0], ast.Attribute) and \
                    ast.unparse(sub.targets[0].value) == "dynamo_config":
                sets.append(f"{sub.targets[0].attr} = {ast.unparse(sub.value)}")
        for value in sorted(values, key=str) if isinstance(op, ast.In) else values:
            value = SG.to_json_value(value)
            entry: Dict[str, Any] = {
                "value": value,
                "sglang_receives": rewrite if rewrite is not None else None,
                "removed": removed,
                "dynamo_sets": sets,
                "source": f"{wheel.module_path(ARGS_MODULE)}:{node.lineno}",
            }
            out.append(entry)
    return out


def _enclosing_conditions(func: ast.AST) -> Dict[int, List[str]]:
    """id(node) -> the tests of the ``if`` branches enclosing it (negated in ``else``)."""
    out: Dict[int, List[str]] = {}

    def visit(node: ast.AST, conds: List[str]) -> None:
        out[id(node)] = conds
        if isinstance(node, ast.If):
            test = ast.unparse(node.test)
            visit(node.test, conds)
            for child in node.body:
                visit(child, conds + [test])
            for child in node.orelse:
                visit(child, conds + [f"not ({test})"])
            return
        for child in ast.iter_child_nodes(node):
            visit(child, conds)

    visit(func, [])
    return out


def namespace_assignments(wheel, result_name: Optional[str]) -> List[Dict[str, Any]]:
    """Assignments ``parse_args`` makes to the SGLang namespace after parsing
    (``parsed_args.x = ...``, ``vars(parsed_args)["x"] = ...``) and, in releases
    that patch the built ``ServerArgs``, to ``server_args`` from ``from_cli_args``."""
    func = function_node(wheel, ARGS_MODULE, ENTRY_FUNCTION)
    if func is None or not result_name:
        return []
    aliases = {result_name}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            text = ast.unparse(node.value)
            if text == f"vars({result_name})":
                aliases.add(node.targets[0].id)
            if node.targets[0].id == "server_args" and ".from_cli_args(" in text:
                aliases.add("server_args")
    # server_args rebound to something other than from_cli_args (a stub) in a block:
    stub_blocks = []
    for node in ast.walk(func):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(
                    isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "server_args"
                    and ".from_cli_args(" not in ast.unparse(s.value) for s in block):
                stub_blocks.append(block)
    in_stub = {id(n) for block in stub_blocks for s in block for n in ast.walk(s)}
    conds = _enclosing_conditions(func)
    out = []
    for node in ast.walk(func):
        if not isinstance(node, (ast.Assign, ast.AugAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            base, key = None, None
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                base, key = target.value.id, target.attr
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                    isinstance(target.slice, ast.Constant):
                base, key = target.value.id, target.slice.value
            if base not in aliases or key is None:
                continue
            if base == "server_args" and id(node) in in_stub:
                continue
            out.append({
                "dest": key,
                "value": ast.unparse(node.value),
                "when": conds.get(id(node), []),
                "target": "server_args" if base == "server_args" else "parsed_args",
                "source": f"{wheel.module_path(ARGS_MODULE)}:{node.lineno}",
            })
    out.sort(key=lambda e: int(e["source"].rsplit(":", 1)[1]))
    return out


def config_merge(wheel) -> Optional[Dict[str, Any]]:
    """``if "--config" in X: ConfigArgumentMerger(...)``: where SGLang's --config merge runs."""
    func = function_node(wheel, ARGS_MODULE, ENTRY_FUNCTION)
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
                isinstance(node.test.left, ast.Constant) and node.test.left.value == "--config" and \
                "ConfigArgumentMerger" in ast.unparse(node):
            return {"trigger": "the exact token --config",
                    "tested_on": ast.unparse(node.test.comparators[0]),
                    "source": f"{wheel.module_path(ARGS_MODULE)}:{node.lineno}"}
    return None


# ---------------------------------------------------------------------------
# Table assembly
# ---------------------------------------------------------------------------


def name_parsers(parsers: List[Parser]) -> List[Parser]:
    """Name the parsers that parse argv: ``dynamo``, ``router`` and ``sglang``."""
    parsed = [p for p in parsers if p.parse_calls]
    for parser in parsed:
        if parser.sglang_registered and parser is not parsed[0]:
            parser.name = "sglang"
        elif parser is parsed[0]:
            parser.name = "dynamo"
        elif "router" in parser.function:
            parser.name = "router"
        else:
            parser.name = parser.function or f"parser{parser.index}"
    return parsed


def build_table(wheel_path: str) -> Dict[str, Any]:
    wheel = SG.Wheel(wheel_path)
    version = wheel.version()
    if wheel.module_path(ARGS_MODULE) is None:
        raise SystemExit(f"{wheel.filename}: no dynamo/sglang/args.py; this release has no "
                         "`python -m dynamo.sglang` wrapper in the shape this generator reads")
    interp = Interpreter(wheel)
    func = function_node(wheel, ARGS_MODULE, ENTRY_FUNCTION)
    if func is None:
        raise SystemExit(f"{ARGS_MODULE} has no {ENTRY_FUNCTION}()")
    scope = interp.ev.bind_params(ARGS_MODULE, func, [UNKNOWN], {}, None)
    interp.function_stack.append(ENTRY_FUNCTION)
    try:
        interp.run(func.body, scope)
    except StopWalk:
        pass
    else:
        raise SystemExit("parse_args: no final SGLang parse_args() call found")
    parsed = name_parsers(interp.parsers)
    flags: List[Dict[str, Any]] = []
    for parser in parsed:
        for flag in parser.flags:
            flag["parser"] = parser.name
            flags.append(flag)
    # Groups that copy actions for --help name the source parser by its final name.
    parsers_json = []
    for parser in parsed:
        for call in parser.parse_calls:
            parsers_json.append({
                "name": parser.name,
                "method": call["method"],
                "input": call["input"],
                "add_help": parser.add_help,
                "allow_abbrev": parser.allow_abbrev,
                "sglang_flags": parser.sglang_registered,
                "wrapper_flags": len(parser.flags),
                "created": parser.source,
                "called": call["source"],
            })
    parsers_json.sort(key=lambda p: (p["called"].split(":")[0] != wheel.module_path(ARGS_MODULE),
                                     int(p["called"].rsplit(":", 1)[1])))
    # The router parser runs inside parse_worker_router_config, called from parse_args
    # between the two others; order the pipeline by where parse_args triggers each step.
    order = {"dynamo": 0, "router": 1, "sglang": 2}
    parsers_json.sort(key=lambda p: order.get(p["name"], 1))
    overrides = {}
    for dest, info in sorted(interp.sglang_overrides.items()):
        overrides[dest] = {"extra_choices": SG.to_json_value(info["extra_choices"]),
                           "source": info["source"]}
    final = interp.final_parse
    entrypoint = "python -m dynamo.sglang" if wheel.module_path("dynamo.sglang.__main__") else None
    aliases = []
    for name in sorted(wheel._names):  # deprecated `python -m dynamo.sglang.<x>` spellings
        parts = name.split("/")
        if len(parts) == 4 and parts[:2] == ["dynamo", "sglang"] and parts[3] == "__main__.py":
            module = f"dynamo.sglang.{parts[2]}.__main__"
            text = ast.unparse(wheel.module_ast(module))
            if "dynamo.sglang.main import main" in text:
                aliases.append(f"python -m dynamo.sglang.{parts[2]}")
    return {
        "schema": SCHEMA_VERSION,
        "tool": "ai-dynamo",
        "version": version,
        "wheel": wheel.filename,
        "wheel_sha256": wheel.sha256,
        "generator": GENERATOR,
        "entrypoint": entrypoint,
        "entrypoint_aliases": aliases,
        "parsers": parsers_json,
        "flags": flags,
        "sglang_overrides": overrides,
        "disaggregation_mode_values": disaggregation_mode_values(interp.ev, wheel),
        "sglang_config_merge": config_merge(wheel),
        "sglang_namespace_assignments": namespace_assignments(wheel, final.get("result")),
        "sglang_pin": sglang_pin(wheel_path),
    }


def sglang_pin(wheel_path: str):
    """The SGLang release this Dynamo release installs with its ``sglang`` extra
    (``Requires-Dist: sglang[...]==X; extra == 'sglang'`` in the wheel METADATA):
    pdlint judges a ``python -m dynamo.sglang`` launch against it."""
    return engine_pin(wheel_path, "sglang")


_OPTION_LITERAL = re.compile(r"""(?<![\w])["'](--[a-z0-9][a-z0-9-]*(?:\.[a-z0-9_-]+)?)["']""")


def dynamo_vllm_options(wheel_path: str) -> set:
    """Every option string the ``dynamo.vllm`` worker of a Dynamo wheel may define beside vLLM's: each string
    literal that is a whole ``--option`` in the non-test sources of ``dynamo/vllm/`` and ``dynamo/common/`` (the
    runtime and worker argspecs: ``add_argument(g, flag_name="--namespace", ...)``), with the ``--no-`` form of
    each (``add_negatable_bool_argument``).  A superset (option names in messages too): pdlint reports a
    dynamo.vllm option only when it is none of these nor vLLM's, and close to one of them."""
    out: set = set()
    with zipfile.ZipFile(wheel_path) as z:
        names = [n for n in z.namelist() if n.startswith(("dynamo/vllm/", "dynamo/common/")) and n.endswith(".py")
                 and "/tests/" not in n]
        if not any(n.startswith("dynamo/vllm/") for n in names):
            return out
        for n in names:
            for m in _OPTION_LITERAL.finditer(z.read(n).decode("utf-8", "replace")):
                out.add(m.group(1))
    out |= {"--no-" + o[2:] for o in out if not o.startswith("--no-")}
    return out


def _write(out_path: str, doc: dict, what: str) -> None:
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render(doc))
    print(f"{out_path}: {what}")


def engine_pin(wheel_path: str, engine: str):
    """The release of ``engine`` (``sglang``, ``vllm``) this Dynamo release installs with the extra of that name
    (``Requires-Dist: vllm[flashinfer]==0.10.1.1; extra == 'vllm'`` in the wheel METADATA)."""
    with zipfile.ZipFile(wheel_path) as z:
        meta = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        text = z.read(meta).decode("utf-8") if meta else ""
    m = re.search(r"^Requires-Dist: %s(?:\[[^\]]*\])?==([^\s;]+)\s*;\s*extra == ['\"]%s['\"]"
                  % (re.escape(engine), re.escape(engine)), text, re.M)
    return m.group(1) if m else None


# ---------------------------------------------------------------------------
# Maintainer check: compare a table with Dynamo's live parsers
# ---------------------------------------------------------------------------
#
# Run with an interpreter that has SGLang installed (not ai-dynamo):
#
#     /path/to/venv/bin/python scripts/gen_dynamo_flags.py --cross-check \
#         --wheel ai_dynamo-1.6.1-py3-none-any.whl
#
# The wheel is extracted to a temporary directory and imported from there;
# modules that are neither in it nor installed (Dynamo's compiled runtime
# ``dynamo._core`` / ``dynamo.llm`` / ``dynamo.runtime``, optional
# dependencies) are replaced by inert stubs.  ``parse_args`` is then run on
# ``--model-path m`` with Dynamo's env vars cleared; the parsers it builds are
# captured and the final SGLang parse is interrupted.


# Packages whose missing modules are stubbed (Dynamo's compiled runtime lives in
# ai-dynamo-runtime; the rest are optional dependencies of modules args.py imports).
STUB_TOP_LEVEL = {"dynamo", "gpu_memory_service", "nixl", "modelexpress", "prometheus_client",
                  "uvloop", "psutil", "pynvml", "etcd3", "nats", "kubernetes"}


def _argparse_kind(action: Any) -> str:
    import argparse as ap
    kinds = [
        (ap.BooleanOptionalAction, "boolean_optional"), (ap._StoreTrueAction, "store_true"),
        (ap._StoreFalseAction, "store_false"), (ap._StoreConstAction, "store_const"),
        (ap._AppendConstAction, "append_const"), (ap._AppendAction, "append"),
        (ap._CountAction, "count"), (ap._VersionAction, "version"), (ap._HelpAction, "help"),
        (ap._StoreAction, "store"),
    ]
    for cls, kind in kinds:
        if isinstance(action, cls):
            return kind
    return "custom:" + type(action).__name__


def _live_type(value: Any) -> Optional[str]:
    if value is None:
        return None
    name = getattr(value, "__name__", repr(value))
    return name


def cross_check(wheel_path: str, table: Dict[str, Any]) -> List[str]:
    """Differences between ``table`` and the parsers ``parse_args`` builds live."""
    import argparse as ap
    import asyncio
    import importlib.abc
    import importlib.machinery
    import types
    import zipfile

    class StubMeta(type):
        def __getattr__(cls, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return StubMeta(name, (StubBase,), {})

    class StubBase(metaclass=StubMeta):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return StubBase()

        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return StubBase()

        def __iter__(self):
            return iter([])

    class StubModule(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return StubMeta(name, (StubBase,), {})

    class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def __init__(self) -> None:
            self.stubbed: List[str] = []

        def find_spec(self, fullname, path, target=None):
            if fullname.split(".")[0] not in STUB_TOP_LEVEL:
                return None
            self.stubbed.append(fullname)
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

        def create_module(self, spec):
            module = StubModule(spec.name)
            module.__path__ = []
            return module

        def exec_module(self, module):
            pass

    env_names = {f["env_var"] for f in table["flags"] if f["env_var"]}
    for name in list(os.environ):
        if name.startswith("DYN_") or name in env_names:
            del os.environ[name]

    created: List[ap.ArgumentParser] = []
    calls: List[Tuple[str, ap.ArgumentParser]] = []
    original_init = ap.ArgumentParser.__init__
    original_known = ap.ArgumentParser.parse_known_args
    original_parse = ap.ArgumentParser.parse_args

    class Interrupt(Exception):
        pass

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        created.append(self)

    def parse_known_args(self, args=None, namespace=None):
        calls.append(("parse_known_args", self))
        return original_known(self, args, namespace)

    def parse_args(self, args=None, namespace=None):
        calls.append(("parse_args", self))
        raise Interrupt()

    tmp = tempfile.mkdtemp(prefix="dynamo-wheel-")
    with zipfile.ZipFile(wheel_path) as zf:
        zf.extractall(tmp)
    sys.path.insert(0, tmp)
    finder = StubFinder()
    sys.meta_path.append(finder)
    ap.ArgumentParser.__init__ = init
    ap.ArgumentParser.parse_known_args = parse_known_args
    ap.ArgumentParser.parse_args = parse_args
    try:
        import importlib as il
        try:  # releases before SGLang 0.5.19 moved the module
            il.import_module("sglang.srt.server_args_config_parser")
        except ModuleNotFoundError:
            sys.modules["sglang.srt.server_args_config_parser"] = il.import_module(
                "sglang.srt.utils.server_args_config_parser")
        args_module = il.import_module(ARGS_MODULE)
        try:
            result = args_module.parse_args(["--model-path", "m"])
            if asyncio.iscoroutine(result):
                asyncio.run(result)
        except Interrupt:
            pass
        from sglang.srt.server_args import ServerArgs
        plain = ap.ArgumentParser(add_help=False)
        ServerArgs.add_cli_args(plain)
    finally:
        ap.ArgumentParser.__init__ = original_init
        ap.ArgumentParser.parse_known_args = original_known
        ap.ArgumentParser.parse_args = original_parse
    problems: List[str] = []
    stubbed_dynamo = sorted(m for m in finder.stubbed if m.startswith("dynamo"))
    print(f"stubbed modules: {', '.join(stubbed_dynamo)}"
          f" (+{len(finder.stubbed) - len(stubbed_dynamo)} others)")

    sglang_plain = {o for a in plain._actions for o in a.option_strings}
    live_by_parser: Dict[str, List[Any]] = {}
    names = [p["name"] for p in table["parsers"]]
    if [m for m, _ in calls] != [p["method"] for p in table["parsers"]]:
        problems.append(f"parse calls {[m for m, _ in calls]} != table "
                        f"{[p['method'] for p in table['parsers']]}")
    for (method, parser), name in zip(calls, names):
        actions = [a for a in parser._actions if a.option_strings]
        if name == "sglang" or any("--model-path" in a.option_strings for a in actions):
            actions = [a for a in actions if not set(a.option_strings) & sglang_plain]
        live_by_parser[name] = actions
        # Parsing sees _option_string_actions only: the help-only copies are not there.
        registered = set(parser._option_string_actions)
        declared = {o for a in parser._actions for o in a.option_strings}
        if registered != declared:
            problems.append(f"{name}: _option_string_actions differs from _actions")
        if name == "dynamo" and table["parsers"][0]["sglang_flags"] is False:
            own = {o for f in table["flags"] if f["parser"] == name for o in f["option_strings"]}
            leaked = (registered - own) & sglang_plain
            shared = sorted(own & sglang_plain)
            if shared:
                print(f"options both the dynamo parser and SGLang define: {shared}")
            if leaked:
                problems.append(f"dynamo parser registers SGLang options {sorted(leaked)[:5]}")
            probe = ["--model-path", "x", "--tp-size", "2", "--endpoint", "dyn://a.b.c"]
            ns, rest = original_known(parser, probe)
            if rest != probe[:4]:
                problems.append(f"dynamo parser consumed SGLang tokens: rest={rest}")

    for name in names:
        live = {a.option_strings[0]: a for a in live_by_parser.get(name, [])}
        mine = {f["option_strings"][0]: f for f in table["flags"] if f["parser"] == name}
        for option in sorted(set(live) ^ set(mine)):
            problems.append(f"{name}: {option} only in {'live' if option in live else 'table'}")
        for option in sorted(set(live) & set(mine)):
            a, f = live[option], mine[option]
            kind = _argparse_kind(a)
            deprecated = type(a).__name__ == "DeprecatedAction"
            if deprecated:
                kind = _argparse_kind(type(a).__mro__[1].__new__(type(a).__mro__[1]))
            live_type = _live_type(a.type)
            checks = {
                "option_strings": (list(a.option_strings), f["option_strings"]),
                "dest": (a.dest, f["dest"]),
                "action": (kind, f["action"]),
                "nargs": (a.nargs, f["nargs"]),
                "default": (a.default, f["default"]),
                "const": (a.const, f["const"]),
                "required": (a.required, f["required"]),
                "help": (a.help, f["help"]),
                "deprecated": (deprecated, f["deprecated"] is not None),
                "type": (live_type, "<lambda>" if (f["type"] or "").startswith("lambda") else f["type"]),
            }
            if "choices_note" not in f:
                checks["choices"] = (None if a.choices is None else list(a.choices), f["choices"])
            if f.get("condition"):
                cond = f["condition"]
                holds = all(o not in sglang_plain for o in cond["requires_absent"]) and \
                    all(o in sglang_plain for o in cond["requires_present"])
                checks["condition"] = (True, holds)
            for key, (got, want) in checks.items():
                if got != want and not (isinstance(got, tuple) and list(got) == want):
                    problems.append(f"{name}: {option}: {key} live={got!r} table={want!r}")
    # Choices the wrapper adds to SGLang's own options.
    if calls and "sglang" in names:
        sglang_parser = calls[names.index("sglang")][1]
        for dest, info in table["sglang_overrides"].items():
            live = next(a for a in sglang_parser._actions if a.dest == dest)
            base = next(a for a in plain._actions if a.dest == dest)
            extra = [c for c in live.choices if c not in list(base.choices)]
            if extra != info["extra_choices"]:
                problems.append(f"sglang_overrides.{dest}: live extra {extra}")
    return problems


def render(table: Dict[str, Any]) -> str:
    return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def download_wheel(version: str, directory: str) -> str:
    """``pip download ai-dynamo==VERSION --no-deps`` into ``directory``; the wheel's path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"ai-dynamo=={version}", "--no-deps",
         "--only-binary", ":all:", "-d", directory],
        check=True,
    )
    wheels = sorted(f for f in os.listdir(directory) if f.endswith(".whl"))
    if not wheels:
        raise SystemExit(f"pip downloaded no wheel for ai-dynamo=={version}")
    return os.path.join(directory, wheels[0])


def _release_key(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.]|post", v) if p != "")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--wheel", help="path to an ai_dynamo-*.whl")
    source.add_argument("--version", help="download ai-dynamo==VERSION with pip first")
    source.add_argument("--pins", nargs="+", metavar="WHEEL",
                        help="write dynamo-sglang-pins.json: the SGLang release each of these ai-dynamo wheels "
                        "pins with its sglang extra (every release with a dynamo.sglang wrapper)")
    source.add_argument("--vllm-options", nargs="+", metavar="WHEEL",
                        help="write pdlint/engines/vllm/data/dynamo-vllm-options.json: the options Dynamo's vLLM "
                        "worker adds to vLLM's, over these ai-dynamo wheels (a superset: every option string)")
    source.add_argument("--vllm-pins", nargs="+", metavar="WHEEL",
                        help="write pdlint/engines/vllm/data/dynamo-vllm-pins.json: the vLLM release each of these "
                        "ai-dynamo wheels pins with its vllm extra (every release with a dynamo.vllm wrapper)")
    parser.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "pdlint", "engines", "sglang", "data"),
        help="output directory (default: pdlint/engines/sglang/data/)",
    )
    parser.add_argument("--cross-check", action="store_true",
                        help="maintainer check: compare the table built from --wheel with the "
                        "parsers Dynamo builds live (needs SGLang importable; imports the wheel)")
    args = parser.parse_args(argv)
    vllm_data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pdlint", "engines",
                             "vllm", "data")
    if args.pins or args.vllm_pins:
        engine = "sglang" if args.pins else "vllm"
        found = {}
        for wheel_path in args.pins or args.vllm_pins:
            pin = engine_pin(wheel_path, engine)
            with zipfile.ZipFile(wheel_path) as z:
                wraps = any(n.startswith(f"dynamo/{engine}/") for n in z.namelist())
            if pin and wraps:
                found[SG.Wheel(wheel_path).version()] = pin
        doc = {"schema": SCHEMA_VERSION, "engine": f"dynamo-{engine}", "generator": GENERATOR,
               "pins": dict(sorted(found.items(), key=lambda kv: _release_key(kv[0])))}
        _write(os.path.join(args.out if args.pins else vllm_data, f"dynamo-{engine}-pins.json"), doc,
               f"{len(found)} Dynamo releases")
        return 0
    if args.vllm_options:
        options, releases = set(), []
        for wheel_path in args.vllm_options:
            found = dynamo_vllm_options(wheel_path)
            if found:
                options |= found
                releases.append(SG.Wheel(wheel_path).version())
        doc = {"schema": SCHEMA_VERSION, "engine": "dynamo-vllm", "generator": GENERATOR,
               "releases": sorted(releases, key=_release_key), "options": sorted(options)}
        _write(os.path.join(vllm_data, "dynamo-vllm-options.json"), doc,
               f"{len(options)} options of {len(releases)} Dynamo releases")
        return 0
    if args.cross_check:
        if not args.wheel:
            parser.error("--cross-check needs --wheel")
        table = build_table(args.wheel)
        problems = cross_check(args.wheel, table)
        for problem in problems:
            print("MISMATCH", problem)
        print(f"{table['version']}: {len(table['flags'])} flags checked, "
              f"{len(problems)} mismatches")
        return 1 if problems else 0
    with tempfile.TemporaryDirectory() as tmp:
        wheel_path = args.wheel or download_wheel(args.version, tmp)
        table = build_table(wheel_path)
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, f"dynamo-sglang-{table['version']}.json")
    with open(out_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render(table))
    print(f"{out_path}: {len(table['flags'])} flags")
    return 0


if __name__ == "__main__":
    sys.exit(main())
