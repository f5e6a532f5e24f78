"""The evaluator: runs a parsed script over a set of paths and records every
simple command it would run.

Evaluation is a walk over the tree-sitter tree with a list of *paths*
(:class:`~pdlint.formats.shell.state.State`).  A statement maps each path to
one or more paths (``Out``: state + exit status); a condition whose value is
not known at lint time splits the path in two, each arm with the variable
bindings the condition implies.  Paths that end up identical are merged.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Optional

from pdlint.text import EMPTY, SourceFile, TStr

from . import syntax
from .conditions import Conditions, bind, role_of, single_reference, is_literal
from .state import Ctx, FuncDef, Out, State, Var, tstr_key
from .words import (_ANSI, UNKNOWN, Words, computed, glob_regex, has_glob, has_known_char,
                    join_with, opaque_mask)

MAX_LOOP_ITERATIONS = 256
MAX_NESTING = 100
MAX_STEPS = 100_000
MAX_PARSE_REPORTS = 5
_CTX_TEXT = 80

#: Commands that do not make a function worth evaluating when the script never
#: calls it (see :meth:`Interpreter.evaluate_uncalled`).
INERT_COMMANDS = frozenset({
    "echo", "printf", "local", "export", "declare", "typeset", "readonly", "unset", "set",
    "shift", "return", "exit", "true", "false", ":", "test", "[", "[[", "cd", "pushd", "popd",
    "read", "wait", "kill", "sleep", "trap", "break", "continue", "shopt", "umask", "ulimit",
})
_SHELLS = frozenset({"sh", "bash", "dash", "ksh", "zsh", "ash"})
_DASH_C = re.compile(r"-[a-zA-Z]*c[a-zA-Z]*")
_ECHO_FLAGS = re.compile(r"-[neE]+")
_PRINTF_CONV = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?([sdibqc%])")
_SCRIPT_DIR = re.compile(r"^\$\{(0|BASH_SOURCE(\[0\])?)%/\*\}$")


class LimitReached(Exception):
    """Raised to stop the evaluation when a global budget is exhausted."""


class Interpreter(Words, Conditions):
    """Evaluates one script (see :func:`pdlint.formats.shell.shell_commands`)."""

    def __init__(self, ctx, command_type):
        self.ctx = ctx
        self.command_type = command_type
        self.commands: list = []
        self._seen: dict = {}  # words (text + origins) -> commands
        self._seen_ids: dict = {}  # ids of the word objects -> commands
        self.unit: Optional[syntax.Unit] = None
        self.top: Optional[syntax.Unit] = None
        self.anchor = 0
        self.depth = 0
        self.nest = 0
        self.steps = 0
        self.expanded = 0
        self.bg = 0
        self.reported: set = set()
        self.defined: dict = {}  # FuncDef.key -> (FuncDef, State at definition)
        self.called: set = set()
        self.units: dict = {}  # id(SourceFile) -> Unit
        self.sourcing: list = []  # ids of the files being sourced (innermost last)
        self.initial: dict = {}  # name -> Var given by the caller's env
        self.capture_unk: list = []
        self.static_cache: dict = {}  # (word, Var objects it reads) -> expansion
        self.ref_cache: dict = {}  # word -> the variables it reads, or a "not pure" marker
        self.keepalive: list = []

    # -- driver -----------------------------------------------------------------
    def run(self, script: TStr, env: Optional[dict], positional: Optional[list]) -> list:
        st = State()
        for name, value in (env or {}).items():
            var = Var(value)
            st.vars[name] = var
            st.exported[name] = True
            self.initial[name] = var
        if positional is not None:
            st.positional = tuple(Var(t) for t in positional)
        unit = self.parse(script, top=True, kind="script")
        self.top = self.unit = unit
        try:
            outs = self.run_block(unit.root, st)
            self.evaluate_uncalled(outs)
        except LimitReached:
            pass
        except RecursionError:
            self.limit("recursion", "shell constructs nest too deeply; evaluation stopped", abort=False)
        return self.commands

    def parse(self, tstr: TStr, top: bool = False, kind: str = "script") -> syntax.Unit:
        unit = syntax.Unit(tstr, top, kind)
        self.keepalive.append(unit)  # ids of units key caches: keep every unit alive
        for n, (err, offset) in enumerate(syntax.errors(unit.root)):
            if n >= MAX_PARSE_REPORTS:
                break
            i = unit.char(offset)
            if err.is_missing:
                msg = f"shell syntax error: missing {err.type!r}"
            else:
                snippet = " ".join(unit.text[i:unit.char(err.end_byte)].split()[:4])[:40]
                msg = f"shell syntax error: cannot parse {snippet!r}" if snippet else "shell syntax error"
            self.ctx.report("PD-SHELL-PARSE", msg + f" ({kind})", tstr, i)
        return unit

    @contextmanager
    def in_unit(self, unit: syntax.Unit):
        saved = self.unit
        self.unit = unit
        try:
            yield
        finally:
            self.unit = saved

    def limit(self, kind: str, message: str, abort: bool = False) -> None:
        """Report a PD-SHELL-LIMIT (once per kind); ``abort`` stops everything."""
        if kind not in self.reported:
            self.reported.add(kind)
            where = self.top.tstr if self.top is not None else EMPTY
            self.ctx.report("PD-SHELL-LIMIT", message, where, min(self.anchor, max(len(where.text) - 1, 0)))
        if abort:
            raise LimitReached(kind)

    def spend(self, n: int) -> None:
        """Charge ``n`` expanded characters to the script's budget."""
        self.expanded += n
        if self.expanded > self.ctx.max_expansion:
            self.limit("expansion", f"expansions produced more than {self.ctx.max_expansion} characters;"
                                    " evaluation stopped", abort=True)

    def deeper(self, what: str) -> bool:
        """False (and a report) when another nested eval/source/call would exceed the depth limit."""
        if self.depth >= self.ctx.max_eval_depth:
            self.limit("depth", f"{what} nested deeper than {self.ctx.max_eval_depth} levels was not evaluated")
            return False
        return True

    # -- statement lists --------------------------------------------------------
    def statements(self, node) -> list:
        """Statement children of a container, each with its ``&`` flag."""
        kids = node.children
        out = []
        for i, child in enumerate(kids):
            if not child.is_named or child.type in ("comment", "heredoc_body"):
                continue
            bg = i + 1 < len(kids) and kids[i + 1].type == "&"
            out.append((child, bg))
        return out

    def run_block(self, node, st: State) -> list:
        return self.run_seq(self.statements(node), st)

    def run_seq(self, items: list, st: State) -> list:
        outs = [Out(st)]
        for node, bg in items:
            nxt = []
            for o in outs:
                if o.st.flow:
                    nxt.append(o)
                else:
                    nxt.extend(self.exec_stmt(node, o.st, bg))
            outs = self.merge(nxt)
        return outs

    def merge(self, outs: list) -> list:
        """Drop duplicate running paths; keep at most ``max_paths`` of them.
        Paths that stopped (``exit``, ``return``...) pass through unmerged."""
        if len(outs) <= 1:
            return outs
        kept: list = []
        buckets: dict = {}
        running = stopped = 0
        for o in outs:
            if o.st.flow:
                stopped += 1
                if stopped <= 4 * self.ctx.max_paths:
                    kept.append(o)
                continue
            bucket = buckets.setdefault((o.status, o.st.fingerprint()), [])
            twin = next((k for k in bucket if k.st.same(o.st)), None)
            if twin is not None:
                twin.st.absorb(o.st)
                continue
            running += 1
            if running > self.ctx.max_paths:
                self.limit("paths", f"more than {self.ctx.max_paths} branch paths; only the first"
                                    f" {self.ctx.max_paths} were followed")
                continue
            bucket.append(o)
            kept.append(o)
        return kept

    def run_arm(self, items: list, st: State, entry: Ctx, keep: bool = True) -> list:
        """Run a branch arm or loop body under the context ``entry``."""
        depth = st.push_ctx(entry)
        outs = self.run_seq(items, st)
        for o in outs:
            o.st.close_ctx(depth, keep)
        return outs

    # -- statements -------------------------------------------------------------
    def exec_stmt(self, node, st: State, bg: bool = False) -> list:
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.limit("steps", f"more than {MAX_STEPS} statements evaluated; evaluation stopped", abort=True)
        if self.unit.top:
            self.anchor = self.unit.start(node)
        if bg:
            return self.background(node, st)
        handler = _HANDLERS.get(node.type)
        if handler is None:
            return [Out(st, None)]
        self.nest += 1
        try:
            if self.nest > MAX_NESTING:
                self.limit("nesting", f"constructs nested deeper than {MAX_NESTING} levels were not evaluated")
                return [Out(st, None)]
            return handler(self, node, st)
        finally:
            self.nest -= 1

    def background(self, node, st: State) -> list:
        sub = st.fork()
        inner = node.child_by_field_name("body") if node.type == "redirected_statement" else node
        if inner is None or inner.type != "command":
            sub.push_ctx(Ctx("background job"))
        self.bg += 1
        try:
            self.exec_stmt(node, sub)
        finally:
            self.bg -= 1
        return [Out(st, True)]

    def exec_command(self, node, st: State) -> list:
        unk: set = set()
        prefix = [c for c in node.named_children if c.type == "variable_assignment"]
        name = node.child_by_field_name("name")
        if name is None:
            return self.assign_all(prefix, st)
        words = self.expand_args([name] + syntax.field_children(node, "argument"), st, unk)
        if not words:
            return self.assign_all(prefix, st)
        penv = self.prefix_env(prefix, st, unk)
        return self.run_words(words, st, unk, penv, node)

    def prefix_env(self, prefix: list, st: State, unk: set) -> list:
        """``VAR=value cmd``: the assignments, in order (each sees the earlier ones)."""
        if not prefix:
            return []
        tmp = st.fork()
        out = []
        for node in prefix:
            res = self.assignment(node, tmp, unk)
            if res is None:
                continue
            name, var = res
            tmp.vars[name] = var
            if not var.is_array:
                out.append((name, var))
        return out

    def run_words(self, words: list, st: State, unk: set, penv: list, node) -> list:
        name = words[0].text
        func = st.funcs.get(name)
        if func is not None:
            return self.call_function(func, words, st, unk, penv)
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, words, st, unk, penv, node)
        return self.external(words, st, unk, penv, node)

    def external(self, words: list, st: State, unk: set, penv: list, node) -> list:
        name = words[0].text
        if st.out is not None:
            if name in ("echo", "printf"):
                self.capture(words, st, unk)
                return [Out(st, True)]
            st.out_bad = True
        if name == "exec" and len(words) == 1:
            return [Out(st, True)]
        self.emit(words, st, unk, penv, node)
        self.nested_shell(words, st, penv)
        if name == "exec":
            st.flow = "exit"
        return [Out(st, True if name in ("echo", "printf") else None)]

    def emit(self, words: list, st: State, unk: set, penv: list, node) -> None:
        """Record a simple command (once per distinct words/origins/env)."""
        env: dict = {}
        for name in st.exported:
            var = st.vars.get(name)
            if var is not None and var is not self.initial.get(name) and isinstance(var.value, TStr):
                env[name] = var.value
        unknown = set(unk)
        for name, var in penv:
            env[name] = var.value
            unknown |= var.unknown
        start = self.unit.start(node) if (node is not None and self.unit.top) else self.anchor
        role = st.role_hint()
        # identical word objects (shared by paths through the expansion cache)
        # are found by identity; the stored commands keep them alive
        ids = tuple(map(id, words))
        candidates = self._seen_ids.get(ids)
        key = None
        if candidates is None:
            key = tuple(tstr_key(w) for w in words)
            candidates = self._seen.get(key, ())
        for seen in candidates:
            if _same_env(seen.env, env):
                if seen.role_hint != role:
                    seen.role_hint = None
                return
        if len(self.commands) >= self.ctx.max_commands:
            self.limit("commands", f"more than {self.ctx.max_commands} commands; evaluation stopped", abort=True)
        cmd = self.command_type(
            words=list(words), env=env, context=st.context_text(), role_hint=role, start=start,
            background=self.bg > 0, unset_vars=sorted(unknown))
        if key is None:
            key = tuple(tstr_key(w) for w in words)
        self._seen.setdefault(key, []).append(cmd)
        self._seen_ids.setdefault(tuple(map(id, cmd.words)), []).append(cmd)
        self.commands.append(cmd)

    # -- assignments ------------------------------------------------------------
    def assignment(self, node, st: State, unk: set):
        """Evaluate a ``variable_assignment`` node: ``(name, Var)`` or None."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        value_node = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        local: set = set()
        if value_node is not None and value_node.type == "array":
            items = [c for c in value_node.named_children if c.type != "comment"]
            value = tuple(self.expand_args(items, st, local))
        else:
            value = self.expand_value(value_node, st, local)
        unk |= local
        if name_node.type == "subscript":
            var_node = name_node.child_by_field_name("name")
            index_node = name_node.child_by_field_name("index")
            if var_node is None:
                return None
            name = self.unit.source_text(var_node)
            index_text = self.unit.source_text(index_node) if index_node is not None else "0"
            return name, self.set_element(st, name, index_text, value, append, frozenset(local))
        name = self.unit.source_text(name_node)
        return name, self.combine(st, name, value, append, frozenset(local))

    def combine(self, st: State, name: str, value, append: bool, unknown: frozenset) -> Var:
        old = st.vars.get(name)
        if not append or old is None or old.value is None:
            return Var(value, unknown)
        if isinstance(value, tuple):
            base = old.value if isinstance(old.value, tuple) else (old.value,)
            return Var(base + value, old.unknown | unknown)
        if isinstance(old.value, tuple):
            head = old.value[0] if old.value else EMPTY
            return Var((head + value,) + old.value[1:], old.unknown | unknown)
        return Var(old.value + value, old.unknown | unknown)

    def set_element(self, st: State, name: str, index_text: str, value, append: bool, unknown) -> Var:
        """``A[i]=v``: the array after the assignment."""
        old = st.vars.get(name)
        items = ()
        if old is not None and old.value is not None:
            items = old.value if isinstance(old.value, tuple) else (old.value,)
        scalar = value if isinstance(value, TStr) else join_with(list(value), EMPTY)
        index = self.arith_text(index_text, st, set(), scalar)
        if index is None or index < 0:
            return Var(items + (scalar,), (old.unknown if old else frozenset()) | unknown)
        if index < len(items):
            new = items[index] + scalar if append else scalar
            items = items[:index] + (new,) + items[index + 1:]
        else:
            items = items + (scalar,)
        return Var(items, (old.unknown if old else frozenset()) | unknown)

    def assign_all(self, nodes: list, st: State) -> list:
        for node in nodes:
            res = self.assignment(node, st, set())
            if res is not None:
                st.assign(res[0], res[1])
        return [Out(st, True)]

    def exec_assignment(self, node, st: State) -> list:
        return self.assign_all([node], st)

    def exec_assignments(self, node, st: State) -> list:
        return self.assign_all([c for c in node.named_children if c.type == "variable_assignment"], st)

    def exec_declaration(self, node, st: State) -> list:
        """``export``/``local``/``declare``/``typeset``/``readonly`` as parsed."""
        cmd = syntax.first_token(node) or "declare"
        flags: set = set()
        for child in node.named_children:
            if child.type == "word" and self.unit.source_text(child)[:1] in "-+":
                flags.add(self.unit.source_text(child))
                continue
            if child.type == "variable_assignment":
                res = self.assignment(child, st, set())
                if res is not None:
                    self.declare(cmd, flags, res[0], res[1], st)
            elif child.type == "variable_name":
                self.declare(cmd, flags, self.unit.source_text(child), None, st)
            elif child.type != "comment":
                for word in self.expand_word(child, st, set()):
                    self.declare_word(cmd, flags, word, st)
        return [Out(st, True)]

    def declare_word(self, cmd: str, flags: set, word: TStr, st: State) -> None:
        text = word.text
        if text[:1] in "-+":
            flags.add(text)
            return
        name, eq, _ = text.partition("=")
        append = name.endswith("+")
        name = name[:-1] if append else name
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return
        var = self.combine(st, name, word[len(name) + (2 if append else 1):], append, frozenset()) if eq else None
        self.declare(cmd, flags, name, var, st)

    def declare(self, cmd: str, flags: set, name: str, var: Optional[Var], st: State) -> None:
        letters = "".join(f[1:] for f in flags if f.startswith("-"))
        unexport = "n" in letters and cmd == "export"
        export = (cmd == "export" and not unexport) or "x" in letters
        local = cmd == "local" or (cmd in ("declare", "typeset") and st.frames and "g" not in letters)
        if local:
            st.declare_local(name)
        if var is not None:
            st.assign(name, var, export=export)
        elif local or (cmd in ("declare", "typeset") and name not in st.vars):
            st.vars[name] = Var(() if ("a" in letters or "A" in letters) else None)
        if export:
            st.exported[name] = True
        if unexport:
            st.exported.pop(name, None)

    def exec_unset(self, node, st: State) -> list:
        words = []
        for child in node.named_children:
            words.extend(self.expand_word(child, st, set()))
        return self.unset_words(words, st)

    def unset_words(self, words: list, st: State) -> list:
        functions = False
        for w in words:
            text = w.text
            if text.startswith("-"):
                functions = "f" in text
                continue
            if functions:
                st.funcs.pop(text, None)
            else:
                st.vars[text] = Var(None)
                st.exported.pop(text, None)
        return [Out(st, True)]

    # -- compound statements ----------------------------------------------------
    def exec_redirected(self, node, st: State) -> list:
        body = node.child_by_field_name("body")
        if body is None:
            return [Out(st, True)]
        return self.exec_stmt(body, st)

    def exec_pipeline(self, node, st: State) -> list:
        capturing = st.out is not None
        for child in node.named_children:
            if child.type == "comment":
                continue
            sub = st.fork()
            if capturing:
                sub.out = ()
            self.exec_stmt(child, sub)
        if capturing:
            st.out_bad = True
        return [Out(st, None)]

    def exec_negated(self, node, st: State) -> list:
        inner = [c for c in node.named_children if c.type != "comment"]
        if not inner:
            return [Out(st, None)]
        return [Out(o.st, None if o.status is None else not o.status, o.if_false, o.if_true, o.forked)
                for o in self.exec_stmt(inner[0], st)]

    def exec_list(self, node, st: State) -> list:
        """``a && b`` / ``a || b`` (tree-sitter nests longer lists to the left)."""
        named = [c for c in node.named_children if c.type != "comment"]
        ops = [c.type for c in node.children if c.type in ("&&", "||")]
        if len(named) < 2 or not ops:
            return self.run_seq([(c, False) for c in named], st)
        left, right, op = named[0], named[-1], ops[0]
        results = []
        for o in self.exec_stmt(left, st):
            if o.st.flow:
                results.append(o)
                continue
            runs_right = True if op == "&&" else False
            if o.status is (not runs_right):
                results.append(o)
            elif o.status is runs_right:
                results.extend(self.exec_stmt(right, o.st))
            else:
                go, stop = (o.if_true, o.if_false) if op == "&&" else (o.if_false, o.if_true)
                taken = o.st.fork()
                for fact in go:
                    bind(taken, fact)
                for r in self.exec_stmt(right, taken):
                    if op == "&&":
                        results.append(Out(r.st, r.status, go + r.if_true, r.if_false, True))
                    else:
                        results.append(Out(r.st, r.status, r.if_true, go + r.if_false, True))
                for fact in stop:
                    bind(o.st, fact)
                results.append(Out(o.st, op == "||", o.if_true, o.if_false, True))
        return self.merge(results)

    def exec_subshell(self, node, st: State) -> list:
        sub = st.fork()
        outs = self.run_block(node, sub)
        if st.out is not None:
            if len(outs) == 1 and outs[0].st.out is not None:
                st.out = outs[0].st.out
                st.out_bad = st.out_bad or outs[0].st.out_bad
            else:
                st.out_bad = True
        statuses = {o.status for o in outs}
        return [Out(st, statuses.pop() if len(statuses) == 1 else None)]

    def exec_group(self, node, st: State) -> list:
        if syntax.first_token(node) == "((":
            return self.exec_arith_command(node, st)
        return self.run_block(node, st)

    def exec_arith_command(self, node, st: State) -> list:
        a, b = self.unit.start(node), self.unit.char(node.end_byte)
        text = self.unit.text
        ia = a + 2
        ib = b - 2 if text[a:b].endswith("))") else b
        at = self.unit.tstr[a:b]
        expr = self.expand_range_value(ia, ib, syntax.special_parts(self.unit, node), st, set())
        value = None if expr.opaque else self.arith_text(expr.text, st, set(), at)
        return [Out(st, None if value is None else value != 0)]

    def exec_test(self, node, st: State) -> list:
        cond = self.test_node(node, st, set())
        return [Out(st, cond.value, cond.if_true, cond.if_false)]

    def exec_error(self, node, st: State) -> list:
        return self.run_block(node, st)

    def exec_function_def(self, node, st: State) -> list:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return [Out(st, True)]
        fd = FuncDef(self.unit.source_text(name_node), body, self.unit, (id(self.unit), node.start_byte))
        st.funcs[fd.name] = fd
        if fd.key not in self.defined:
            self.defined[fd.key] = (fd, st.fork())
        return [Out(st, True)]

    # -- if / case ----------------------------------------------------------------
    def cond_text(self, items: list) -> str:
        if not items:
            return ""
        a = self.unit.start(items[0][0])
        b = self.unit.char(items[-1][0].end_byte)
        return short(self.unit.text[a:b])

    def if_arms(self, node) -> tuple:
        """``([(keyword, condition items, body items)], else items or None)``."""
        arms, else_items = [], None
        for clause in [node] + [c for c in node.named_children if c.type == "elif_clause"]:
            cond, body, in_body = [], [], False
            kids = clause.children
            for i, child in enumerate(kids):
                if child.type == "then":
                    in_body = True
                    continue
                if not child.is_named or child.type in ("comment", "elif_clause", "else_clause"):
                    continue
                bg = i + 1 < len(kids) and kids[i + 1].type == "&"
                (body if in_body else cond).append((child, bg))
            arms.append(("if" if clause is node else "elif", cond, body))
        for clause in node.named_children:
            if clause.type == "else_clause":
                else_items = self.statements(clause)
        return arms, else_items

    def arm_ctx(self, text: str, facts: tuple, forked: bool) -> Ctx:
        role = next((f.role for f in facts if f.role), None)
        binds = any(f.name for f in facts)
        return Ctx(text, role, forked and (binds or role is not None))

    def exec_if(self, node, st: State) -> list:
        arms, else_items = self.if_arms(node)
        first = self.cond_text(arms[0][1]) if arms else ""
        results: list = []
        pending = [(st, ())]
        for keyword, cond, body in arms:
            text = self.cond_text(cond)
            nxt = []
            for s, else_facts in pending:
                for o in self.run_seq(cond, s):
                    if o.st.flow:
                        results.append(o)
                        continue
                    if o.status is not False:
                        decided = o.status is True and not o.forked
                        taken = o.st if o.status is True else o.st.fork()
                        if not decided:
                            for fact in o.if_true:
                                bind(taken, fact)
                        entry = self.arm_ctx(f"{keyword} {text} (then)", o.if_true, not decided)
                        results.extend(self.run_arm(body, taken, entry))
                    if o.status is not True:
                        decided = o.status is False and not o.forked
                        if not decided:
                            for fact in o.if_false:
                                bind(o.st, fact)
                        nxt.append((o.st, else_facts + (() if decided else o.if_false)))
            pending = nxt
        for s, facts in pending:
            entry = self.arm_ctx(f"if {first} (else)", facts, True)
            results.extend(self.run_arm(else_items or [], s, entry))
        return self.merge(results)

    def exec_case(self, node, st: State) -> list:
        subject_node = node.child_by_field_name("value")
        if subject_node is None:
            return [Out(st, True)]
        subject = self.expand_value(subject_node, st, set())
        ref = single_reference(self.unit, subject_node)
        subject_text = short(self.unit.source_text(subject_node))
        results: list = []
        alive, carry = [st], []
        for item in (c for c in node.named_children if c.type == "case_item"):
            patterns = syntax.field_children(item, "value")
            body = [(c, bg) for c, bg in self.statements(item) if c not in patterns and not _is_pattern(item, c)]
            term = next((c.type for c in item.children if c.type in (";;", ";&", ";;&")), ";;")
            label = f"case {subject_text} in {'|'.join(self.unit.source_text(p) for p in patterns)})"
            entering = [(c, Ctx(label, self.pattern_role(patterns))) for c in carry]
            carry, still = [], []
            for a in alive:
                matched, forks = self.case_match(subject, ref, patterns, a, label)
                entering.extend(forks)
                if matched is not True:
                    still.append(a)
            alive = still
            for state, entry in entering:
                for o in self.run_arm(body, state, entry):
                    if o.st.flow or term == ";;":
                        results.append(o)
                    elif term == ";&":
                        carry.append(o.st)
                    else:
                        alive.append(o.st)
        results.extend(Out(s, True) for s in alive + carry)
        return self.merge(results)

    def pattern_role(self, patterns: list) -> Optional[str]:
        roles = {role_of(self.unit.source_text(p)) for p in patterns}
        roles.discard(None)
        return roles.pop() if len(roles) == 1 else None

    def case_match(self, subject: TStr, ref: Optional[str], patterns: list, st: State, label: str) -> tuple:
        """Does ``subject`` match the item?  ``(True|False|None, [(state, ctx)])``."""
        pats = []
        for p in patterns:
            t, mask = self.expand_pattern(p, st, set())
            pats.append((t, mask, is_literal(self.unit, p)))
        role = self.pattern_role(patterns)
        if not subject.opaque:
            unknown_pattern = False
            for t, mask, _ in pats:
                if t.opaque:
                    unknown_pattern = True
                elif glob_regex(t.text, mask).fullmatch(subject.text):
                    return True, [(st, Ctx(label, role))]
            if not unknown_pattern:
                return False, []
            return None, [(st.fork(), Ctx(label, role, role is not None))]
        if any(t.text == "*" and not mask[0] for t, mask, _ in pats):
            return True, [(st, Ctx(label, role))]
        forks = []
        literal = [t for t, mask, lit in pats if lit and not t.opaque and not has_glob(t.text, mask)]
        if ref is not None and literal:
            for t in literal:
                arm = st.fork()
                bind(arm, _fact(ref, t))
                forks.append((arm, Ctx(label, role_of(t.text) or role, True)))
            if len(literal) < len(pats):
                forks.append((st.fork(), Ctx(label, role, role is not None)))
        else:
            forks.append((st.fork(), Ctx(label, role, role is not None)))
        return None, forks

    # -- loops ------------------------------------------------------------------
    def loop_step(self, o: Out, nxt: list, done: list) -> None:
        """Sort a path leaving a loop body: next iteration or out of the loop."""
        s = o.st
        if s.flow in ("break", "continue"):
            if s.flow_n > 1:
                s.flow_n -= 1
                done.append(o)
                return
            flow, s.flow, s.flow_n = s.flow, None, 0
            (done if flow == "break" else nxt).append(Out(s, True))
        elif s.flow:
            done.append(o)
        else:
            nxt.append(Out(s, True))

    def exec_for(self, node, st: State) -> list:
        var_node = node.child_by_field_name("variable")
        body_node = node.child_by_field_name("body")
        if var_node is None or body_node is None:
            return [Out(st, None)]
        var = self.unit.source_text(var_node)
        values = syntax.field_children(node, "value")
        unk: set = set()
        if values:
            items = self.expand_args(values, st, unk)
        elif st.positional is not None:
            items = [v.value for v in st.positional]
        else:
            items = [computed("$@", self.unit.slice(var_node)).as_opaque()]
            unk.add("@")
        body = self.statements(body_node)
        states, done = [st], []
        for n, item in enumerate(items):
            if n >= MAX_LOOP_ITERATIONS:
                self.limit("loop", f"a loop ran more than {MAX_LOOP_ITERATIONS} iterations; the rest was skipped")
                break
            nxt: list = []
            for s in states:
                s.assign(var, Var(item, frozenset(unk) if item.opaque else frozenset()))
                for o in self.run_arm(body, s, Ctx(f"for {var} in ... ({var}={short(item.text, 40)})"), False):
                    self.loop_step(o, nxt, done)
            states = [o.st for o in self.merge(nxt)]
            if not states:
                break
        return self.merge([Out(s, True) for s in states] + done)

    def exec_while(self, node, st: State) -> list:
        """``while``/``until``: iterate while the condition is known; when it is
        not, evaluate the body once (for its commands) and continue after the
        loop with the state from before that body (zero iterations)."""
        keyword = syntax.first_token(node) or "while"
        cond = [(c, False) for c in syntax.field_children(node, "condition")]
        body_node = node.child_by_field_name("body")
        body = self.statements(body_node) if body_node is not None else []
        label = f"{keyword} {self.cond_text(cond)}"
        states, done = [st], []
        for _ in range(MAX_LOOP_ITERATIONS):
            nxt: list = []
            before = [s.fork() for s in states]  # the body mutates the states
            for s in states:
                for o in self.run_seq(cond, s):
                    if o.st.flow:
                        done.append(o)
                        continue
                    status, go = o.status, o.if_true
                    if keyword == "until":
                        status, go = (None if status is None else not status), o.if_false
                    if status is False:
                        done.append(Out(o.st, True))
                    elif status is True:
                        for r in self.run_arm(body, o.st, Ctx(f"{label} (loop body)"), False):
                            self.loop_step(r, nxt, done)
                    else:
                        probe = o.st.fork()
                        for fact in go:
                            bind(probe, fact)
                        self.run_arm(body, probe, Ctx(f"{label} (loop body)"), False)
                        done.append(Out(o.st, True))
            new = [o.st for o in self.merge(nxt)]
            if not new:
                break
            if len(new) <= len(before) and all(any(n.same(p) for p in before) for n in new):
                done.extend(Out(s, True) for s in new)  # no progress: stop iterating
                break
            states = new
        else:
            self.limit("loop", f"a loop ran more than {MAX_LOOP_ITERATIONS} iterations; the rest was skipped")
            done.extend(Out(s, True) for s in states)
        return self.merge(done)

    def exec_c_for(self, node, st: State) -> list:
        body_node = node.child_by_field_name("body")
        body = self.statements(body_node) if body_node is not None else []
        parts = {f: syntax.field_children(node, f) for f in ("initializer", "condition", "update")}
        at = self.unit.slice(node)

        def run(field: str, s: State, default: Optional[int]) -> Optional[int]:
            value = default
            for n in parts[field]:
                text = self.expand_value(n, s, set())
                value = None if text.opaque else self.arith_text(text.text, s, set(), at)
                if value is None:
                    return None
            return value

        states, done = [st], []
        if run("initializer", st, 0) is None:
            self.run_arm(body, st.fork(), Ctx("for ((...)) (loop body)"), False)
            return [Out(st, True)]
        for _ in range(MAX_LOOP_ITERATIONS):
            nxt: list = []
            before = [s.fork() for s in states]
            for s in states:
                value = run("condition", s, 1)
                if value is None:
                    self.run_arm(body, s.fork(), Ctx("for ((...)) (loop body)"), False)
                    done.append(Out(s, True))
                elif not value:
                    done.append(Out(s, True))
                else:
                    for r in self.run_arm(body, s, Ctx("for ((...)) (loop body)"), False):
                        self.loop_step(r, nxt, done)
            states = []
            for o in self.merge(nxt):
                if run("update", o.st, 0) is None:
                    done.append(o)
                else:
                    states.append(o.st)
            if not states:
                break
            if len(states) <= len(before) and all(any(n.same(p) for p in before) for n in states):
                done.extend(Out(s, True) for s in states)  # no progress: stop iterating
                break
        else:
            self.limit("loop", f"a loop ran more than {MAX_LOOP_ITERATIONS} iterations; the rest was skipped")
            done.extend(Out(s, True) for s in states)
        return self.merge(done)

    # -- functions ----------------------------------------------------------------
    def call_function(self, fd: FuncDef, words: list, st: State, unk: set, penv: list,
                      label: Optional[str] = None) -> list:
        if not self.deeper(f"function {fd.name}"):
            return [Out(st, None)]
        self.called.add(fd.key)
        saved_pos, saved_bind = st.positional, st.pos_bind
        if words is not None:
            st.positional = tuple(Var(w, frozenset(unk) if w.opaque else frozenset()) for w in words[1:])
        else:
            st.positional = None
        st.pos_bind = {}
        saved_env = [(name, st.vars.get(name), name in st.exported) for name, _ in penv]
        for name, var in penv:
            st.assign(name, var, export=True)
        st.frames.append({})
        if label is None:
            label = f"function {fd.name} (called at line {words[0].origin.line})"
        depth = st.push_ctx(Ctx(label))
        self.depth += 1
        try:
            with self.in_unit(fd.unit):
                if fd.body.type == "subshell":
                    outs = self.exec_subshell(fd.body, st)
                elif fd.body.type == "compound_statement":
                    outs = self.run_block(fd.body, st)
                else:
                    outs = self.exec_stmt(fd.body, st)
        finally:
            self.depth -= 1
        results = []
        for o in outs:
            s = o.st
            if s.flow in ("return", "break", "continue"):
                s.flow, s.flow_n = None, 0
            s.pop_frame()
            s.positional, s.pos_bind = saved_pos, dict(saved_bind)
            for name, old, was_exported in saved_env:
                if old is None:
                    s.vars.pop(name, None)
                else:
                    s.vars[name] = old
                if not was_exported:
                    s.exported.pop(name, None)
            s.close_ctx(depth)
            results.append(Out(s, o.status, o.if_true, o.if_false, o.forked))
        return self.merge(results)

    def evaluate_uncalled(self, outs: list) -> None:
        """Evaluate the top script's functions that were never called, once,
        with unknown arguments -- but only those that run some command other
        than shell builtins, so a launcher function invoked from elsewhere is
        still seen while helpers like ``usage()`` stay quiet."""
        finals = [o.st for o in outs]
        for key, (fd, at_def) in list(self.defined.items()):
            if key in self.called or not fd.unit.top or not self.runs_commands(fd):
                continue
            base = next((s for s in finals if s.funcs.get(fd.name) is not None
                         and s.funcs[fd.name].key == key), at_def)
            st = base.fork()
            st.flow, st.flow_n, st.ctx = None, 0, ()
            self.call_function(fd, None, st, set(), [], label=f"function {fd.name} (not called in this script)")

    def runs_commands(self, fd: FuncDef) -> bool:
        stack = [fd.body]
        while stack:
            node = stack.pop()
            if node.type == "command":
                name = node.child_by_field_name("name")
                if name is not None and fd.unit.source_text(name) not in INERT_COMMANDS:
                    return True
            stack.extend(node.named_children)
        return False

    # -- builtins -----------------------------------------------------------------
    def b_eval(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        if not args:
            return [Out(st, True)]
        text = join_with(args, computed(" ", words[0]))
        if not has_known_char(text):
            return [Out(st, None)]
        if not self.deeper("eval"):
            return [Out(st, None)]
        self.spend(len(text.text))
        unit = self.parse(text, kind="eval")
        depth = st.push_ctx(Ctx(f"eval at line {words[0].origin.line}"))
        self.depth += 1
        try:
            with self.in_unit(unit):
                outs = self.run_block(unit.root, st)
        finally:
            self.depth -= 1
        for o in outs:
            o.st.close_ctx(depth)
        return outs

    def b_source(self, words, st, unk, penv, node) -> list:
        if len(words) < 2:
            return [Out(st, False)]
        path = script_relative(words[1])
        current = file_of(words[0]) or file_of(words[1]) or (file_of(self.top.tstr) if self.top else None)
        if current is None:
            return [Out(st, None)]
        try:
            src = self.ctx.resolve_source(path, current)
        except Exception:  # the caller's resolver must not stop the evaluation
            src = None
        if src is None:
            return [Out(st, None)]
        if id(src) in self.sourcing:
            self.limit("source-loop", f"{src.path} sources itself (directly or through other files);"
                                      " the inner source was not evaluated")
            return [Out(st, None)]
        if not self.deeper(f"source {path}"):
            return [Out(st, None)]
        unit = self.units.get(id(src))
        if unit is None:
            unit = self.units[id(src)] = self.parse(TStr.from_source(src), kind="sourced file")
        saved_pos = st.positional
        if len(words) > 2:
            st.positional = tuple(Var(w) for w in words[2:])
        depth = st.push_ctx(Ctx(f"source {short(path, 60)} (line {words[0].origin.line})"))
        self.depth += 1
        self.sourcing.append(id(src))
        try:
            with self.in_unit(unit):
                outs = self.run_block(unit.root, st)
        finally:
            self.depth -= 1
            self.sourcing.pop()
        for o in outs:
            if o.st.flow == "return":
                o.st.flow = None
            if len(words) > 2:
                o.st.positional = saved_pos
            o.st.close_ctx(depth)
        return outs

    def b_exit(self, words, st, unk, penv, node) -> list:
        st.flow = "exit" if words[0].text == "exit" else "return"
        return [Out(st, exit_status(words))]

    def b_loop_control(self, words, st, unk, penv, node) -> list:
        st.flow = words[0].text
        st.flow_n = int(words[1].text) if len(words) > 1 and words[1].text.isdigit() else 1
        return [Out(st, True)]

    def b_shift(self, words, st, unk, penv, node) -> list:
        n = int(words[1].text) if len(words) > 1 and words[1].text.isdigit() else 1
        if st.positional is not None:
            if n > len(st.positional):
                return [Out(st, False)]
            st.positional = st.positional[n:]
        else:
            st.pos_bind = {i - n: v for i, v in st.pos_bind.items() if i > n}
        return [Out(st, True)]

    def b_set(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        i = 0
        while i < len(args):
            text = args[i].text
            if text == "--":
                st.positional = tuple(Var(w) for w in args[i + 1:])
                break
            if text[:1] in "-+" and len(text) > 1:
                on = text[0] == "-"
                if "a" in text[1:]:
                    st.allexport = on
                if "o" in text[1:] and i + 1 < len(args):
                    if args[i + 1].text == "allexport":
                        st.allexport = on
                    i += 1
                i += 1
                continue
            st.positional = tuple(Var(w) for w in args[i:])
            break
        return [Out(st, True)]

    def b_declare(self, words, st, unk, penv, node) -> list:
        flags: set = set()
        for w in words[1:]:
            self.declare_word(words[0].text, flags, w, st)
        return [Out(st, True)]

    def b_unset(self, words, st, unk, penv, node) -> list:
        return self.unset_words(words[1:], st)

    def b_true(self, words, st, unk, penv, node) -> list:
        return [Out(st, words[0].text != "false")]

    def b_test(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        if words[0].text == "[" and args and args[-1].text == "]":
            args = args[:-1]
        cond = self.test_words(args)
        return [Out(st, cond.value, cond.if_true, cond.if_false)]

    def b_read(self, words, st, unk, penv, node) -> list:
        """``read [-r] [-a NAME] NAME...``: the names get values not known at lint time."""
        args, names = words[1:], []
        i = 0
        while i < len(args):
            text = args[i].text
            if text.startswith("-") and len(text) > 1:
                if text[-1] in "adinNptu" and i + 1 < len(args):
                    if text[-1] == "a":
                        names.append(args[i + 1].text)
                    i += 1
            else:
                names.append(text)
            i += 1
        for name in names or ["REPLY"]:
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                st.vars.pop(name, None)
        return [Out(st, None)]

    def b_printf_var(self, words, st, unk, penv, node) -> list:
        """``printf -v NAME FORMAT ARGS``: an assignment, not output."""
        if len(words) >= 4 and words[1].text == "-v":
            value = format_printf(words[3], words[4:])
            name = words[2].text
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                st.assign(name, Var(value if value is not None else words[3].as_opaque(), frozenset(unk)))
            return [Out(st, True)]
        return self.external(words, st, unk, penv, node)

    # -- command substitution and nested shells ---------------------------------------
    def command_substitution(self, node, st: State, unk: set) -> TStr:
        """The output of ``$(...)`` when it is made of ``echo``/``printf`` of
        known text (e.g. a function emitting flags); else a placeholder."""
        use = self.unit.slice(node)
        placeholder = use.as_opaque()
        items = self.statements(node)
        if not items:
            return EMPTY
        if not self.deeper("command substitution"):
            return placeholder
        sub = st.fork()
        sub.out, sub.out_bad, sub.flow = (), False, None
        sub.push_ctx(Ctx(f"command substitution at line {use.origin.line}"))
        self.capture_unk.append(set())
        self.depth += 1
        try:
            outs = self.run_seq(items, sub)
        finally:
            self.depth -= 1
            inner_unk = self.capture_unk.pop()
        outputs = {tuple(tstr_key(t) for t in o.st.out or ()) for o in outs}
        if any(o.st.out_bad or o.st.out is None for o in outs) or len(outputs) != 1:
            return placeholder
        out = TStr.join(outs[0].st.out)
        out = out[:len(out.text.rstrip("\n"))]
        unk |= inner_unk
        self.spend(len(out.text))
        inner = use.text[2:] if use.text.startswith("$(") else use.text[1:]
        first = inner.split()[0] if inner.split() else ""
        return out.reached_via(use, f"$({first.rstrip(')')})")

    def capture(self, words: list, st: State, unk: set) -> None:
        """``echo``/``printf`` inside ``$(...)``: append to the captured output."""
        if words[0].text == "echo":
            args, newline = words[1:], True
            while args and _ECHO_FLAGS.fullmatch(args[0].text):
                newline = newline and "n" not in args[0].text
                args = args[1:]
            out = join_with(args, computed(" ", words[0]))
            if newline:
                out = out + computed("\n", words[0])
        else:
            out = format_printf(words[1], words[2:]) if len(words) > 1 else EMPTY
            if out is None:
                st.out_bad = True
                return
        st.out = st.out + (out,)
        if self.capture_unk:
            self.capture_unk[-1].update(unk)

    def nested_shell(self, words: list, st: State, penv: list) -> None:
        """``sh -c STRING [ARG0 ARGS...]`` anywhere in a command (also behind
        wrappers such as ``srun``/``timeout``/``docker run IMAGE``): evaluate
        STRING as a child shell that sees only exported variables."""
        for i in range(len(words) - 2):
            base = words[i].text.rsplit("/", 1)[-1]
            if base in _SHELLS and _DASH_C.fullmatch(words[i + 1].text):
                script, rest = words[i + 2], words[i + 3:]
                break
        else:
            return
        if not has_known_char(script) or not self.deeper(f"{base} -c"):
            return
        child = State()
        for name, var in st.vars.items():
            if name in st.exported and not var.is_array:
                child.vars[name] = var
                child.exported[name] = True
        for name, var in penv:
            child.vars[name] = var
            child.exported[name] = True
        child.positional = tuple(Var(w) for w in rest[1:])
        child.ctx = st.ctx + (Ctx(f"{base} -c at line {words[i].origin.line}"),)
        if st.out is not None:
            child.out = ()
        unit = self.parse(script, kind=f"{base} -c string")
        self.depth += 1
        try:
            with self.in_unit(unit):
                self.run_block(unit.root, child)
        finally:
            self.depth -= 1


# -- helpers ----------------------------------------------------------------------

def short(text: str, limit: int = _CTX_TEXT) -> str:
    """One-line, length-capped rendering of source text for contexts."""
    text = " ".join(text.replace("\\\n", " ").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def exit_status(words: list) -> Optional[bool]:
    if len(words) < 2:
        return True if words[0].text == "exit" else None
    text = words[1].text
    return text == "0" if text.lstrip("-").isdigit() else None


def file_of(t: TStr) -> Optional[SourceFile]:
    for p in t.pieces:
        if p.src is not None:
            return p.src
    return None


def script_relative(path: TStr) -> str:
    """The path given to ``source``, with a leading script-directory idiom
    (``$(dirname "$0")/``, ``$SCRIPT_DIR/`` holding ``$(cd "$(dirname
    "${BASH_SOURCE[0]}")" && pwd)``, ``${BASH_SOURCE%/*}/``...) removed, so it
    is relative to the sourcing file's directory."""
    text = path.text
    mask = opaque_mask(path)
    if not mask or not mask[0]:
        return text
    k = next((i for i, m in enumerate(mask) if not m), len(text))
    prefix = text[:k]
    if k < len(text) and text[k] == "/" and _is_script_dir(prefix):
        return text[k + 1:]
    return text


def _is_script_dir(prefix: str) -> bool:
    if _SCRIPT_DIR.match(prefix):
        return True
    return "dirname" in prefix and bool(re.search(r"\$0\b|\$\{0\}|BASH_SOURCE", prefix))


def format_printf(fmt: TStr, args: list) -> Optional[TStr]:
    """``printf FORMAT ARGS`` for ``%s %b %q %d %i %c %%`` without widths;
    None for anything else.  The format is reused while arguments remain."""
    s = fmt.text
    parts: list = []
    ai = 0
    for _ in range(len(args) + 1):
        consumed = False
        start = i = 0
        while i < len(s):
            c = s[i]
            if c == "\\" and i + 1 < len(s):
                parts.append(fmt[start:i])
                esc = s[i + 1]
                parts.append(computed(_ANSI[esc], fmt[i:i + 2]) if esc in _ANSI else fmt[i:i + 2])
                i += 2
                start = i
                continue
            if c != "%":
                i += 1
                continue
            parts.append(fmt[start:i])
            m = _PRINTF_CONV.match(s, i)
            if not m or m.group(1) or m.group(2) or m.group(3) is not None:
                return None
            conv = m.group(4)
            if conv == "%":
                parts.append(fmt[i + 1:i + 2])
            else:
                arg = args[ai] if ai < len(args) else EMPTY
                ai += 1
                consumed = True
                if conv in "di" and not arg.opaque:
                    text = arg.text.strip()
                    if text and not re.fullmatch(r"[-+]?[0-9]+", text):
                        return None
                    parts.append(computed(str(int(text or "0")), arg if arg.text else fmt[i:m.end()]))
                elif conv == "c":
                    parts.append(arg[:1])
                else:
                    parts.append(arg)
            i = m.end()
            start = i
        parts.append(fmt[start:])
        if ai >= len(args) or not consumed:
            break
    return TStr.join(parts)


def _same_env(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(v is b[k] or tstr_key(v) == tstr_key(b[k]) for k, v in a.items())


def _fact(name: str, value: TStr):
    from .state import Fact
    return Fact(name, value, role_of(value.text))


def _is_pattern(item, child) -> bool:
    for i, c in enumerate(item.children):
        if c == child:
            return item.field_name_for_child(i) == "value"
    return False


_HANDLERS = {
    "command": Interpreter.exec_command,
    "variable_assignment": Interpreter.exec_assignment,
    "variable_assignments": Interpreter.exec_assignments,
    "declaration_command": Interpreter.exec_declaration,
    "unset_command": Interpreter.exec_unset,
    "redirected_statement": Interpreter.exec_redirected,
    "pipeline": Interpreter.exec_pipeline,
    "negated_command": Interpreter.exec_negated,
    "list": Interpreter.exec_list,
    "subshell": Interpreter.exec_subshell,
    "compound_statement": Interpreter.exec_group,
    "if_statement": Interpreter.exec_if,
    "case_statement": Interpreter.exec_case,
    "for_statement": Interpreter.exec_for,
    "c_style_for_statement": Interpreter.exec_c_for,
    "while_statement": Interpreter.exec_while,
    "function_definition": Interpreter.exec_function_def,
    "test_command": Interpreter.exec_test,
    "ERROR": Interpreter.exec_error,
}

_BUILTINS = {
    "eval": Interpreter.b_eval,
    "source": Interpreter.b_source,
    ".": Interpreter.b_source,
    "exit": Interpreter.b_exit,
    "return": Interpreter.b_exit,
    "break": Interpreter.b_loop_control,
    "continue": Interpreter.b_loop_control,
    "shift": Interpreter.b_shift,
    "set": Interpreter.b_set,
    "export": Interpreter.b_declare,
    "local": Interpreter.b_declare,
    "declare": Interpreter.b_declare,
    "typeset": Interpreter.b_declare,
    "readonly": Interpreter.b_declare,
    "unset": Interpreter.b_unset,
    "true": Interpreter.b_true,
    ":": Interpreter.b_true,
    "false": Interpreter.b_true,
    "test": Interpreter.b_test,
    "[": Interpreter.b_test,
    "printf": Interpreter.b_printf_var,
    "read": Interpreter.b_read,
}
