"""Control flow for the evaluator: ``if``/``case`` (with the path splits and
variable bindings of unknown conditions), loops, and function calls."""

from __future__ import annotations

from typing import Optional

from pdlint import lazyre
from pdlint.text import SPLIT_CUT, TStr

from . import syntax
from .conditions import bind, is_literal, role_of, single_reference
from .joins import names_word
from .state import Ctx, Fact, FuncDef, Out, State, Var
from .words import computed, has_glob

MAX_LOOP_ITERATIONS = 256
#: iterations of a ``while`` loop whose paths still differ, and iterations of a ``for`` / ``for ((...))`` loop whose
#: paths multiply (Control.multiplied) with no iteration between them that leaves fewer paths than it took, after
#: which it is read as a loop pdlint does not count (Control.split_count)
SPLIT_ITERATIONS = 4
#: the PD015 of a loop cut at MAX_LOOP_ITERATIONS (any loop: ``for``, ``for ((...))``, ``while``/``until``)
_LOOP_CUT = f"a loop ran more than {MAX_LOOP_ITERATIONS} iterations; the rest was skipped"
#: the PD015 of a ``for`` / ``for ((...))`` whose paths kept multiplying, read from there as a loop of unknown count
_LOOP_SPLIT = (f"a loop's paths kept splitting: they doubled in {SPLIT_ITERATIONS} of its iterations and never "
               "became fewer; the rest of its iterations were skipped and what it sets is unknown after it")
_IMPLICIT_VARS = ("?", "!", "_", "PIPESTATUS", "RANDOM", "LINENO")
#: commands whose words decide nothing when the command stands alone as a statement of a loop's body (not in a
#: pipeline, a substitution, a list or a condition): a ``for`` loop's variable read only in them (``echo "Attempt
#: $i/15..."``) leaves the iterations alike, so the idle-loop shortcut of :meth:`Control.exec_for` still holds
_SAYS_ONLY = frozenset({"echo", "printf", "sleep"})
#: the nodes such a command may stand in, up to the loop's body (an ``if``'s only after its ``then``)
_STATEMENT_PARENTS = frozenset({"do_group", "compound_statement", "if_statement", "elif_clause", "else_clause",
                                "case_item", "subshell", "redirected_statement"})
_CTX_TEXT = 80
#: a case item's word that names what the script starts (`router`, `lb`, `agg`), not an option (`-h`)
_ARM_NAME = lazyre.compile(r"[A-Za-z][\w.-]*")

#: Commands that do not make a function worth evaluating when the script never
#: calls it (see :meth:`Control.evaluate_uncalled`).
INERT_COMMANDS = frozenset({
    "echo", "printf", "local", "export", "declare", "typeset", "readonly", "unset", "set",
    "shift", "return", "exit", "true", "false", ":", "test", "[", "[[", "cd", "pushd", "popd",
    "read", "wait", "kill", "sleep", "trap", "break", "continue", "shopt", "umask", "ulimit",
})


class Control:
    """Branches, loops and functions (mixed into the interpreter)."""

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
        tail = self.tail_whole(node)  # (the arms are the rest of the statement; the conditions are not)
        first = self.cond_text(arms[0][1]) if arms else ""
        results: list = []
        pending = [(st, ())]
        for i, (keyword, cond, body) in enumerate(arms):
            text = self.cond_text(cond)
            if not pending and self.env_spans:
                self.probe_env_arm(cond, body, st)
            nxt = []
            for s, else_facts in pending:
                mark, tested = len(self.env_pending), len(self.env_tested)
                self.env_outer += 1
                try:
                    outs = self.run_seq(cond, s)
                finally:
                    self.env_outer -= 1
                env_names = set(self.env_tested[tested:])
                del self.env_tested[tested:]
                if len(self.env_pending) > mark:  # a test of an environment default: what did its decision skip?
                    self.env_commit(mark, _skipped_arms(outs, arms, i, else_items))
                for o in outs:
                    if o.st.flow:
                        results.append(o)
                        continue
                    if o.status is not False:
                        decided = o.status is True and not o.forked
                        spare = None
                        if decided and (o.assumed or env_names):
                            spare = o.st.fork()
                            if o.assumed:
                                spare = unassumed(spare)
                            if env_names:
                                self.forget_env(spare, env_names)
                        taken = o.st if o.status is True else o.st.fork()
                        if not decided:
                            for fact in o.if_true:
                                bind(taken, fact)
                        entry = self.arm_ctx(f"{keyword} {text} (then)", o.if_true, not decided)
                        outs = self.run_arm(body, taken, entry, tail=tail)
                        results.extend(outs)
                        if spare is not None and all_exit(outs):
                            # `if [ -z "${MODEL:-}" ]; then echo usage; exit 1; fi`: an unknown MODEL counted as
                            # unset ends the script here; the deploy environment may set it, so go on as if it did;
                            # the same for a test of a default (`[[ "${DECODER_HOST:-NOT_SET}" == NOT_SET ]] && exit`,
                            # ddps-lab/vllm-disaggregation, field test rw16/m)
                            nxt.append((spare, else_facts))
                    if o.status is not True:
                        decided = o.status is False and not o.forked
                        if not decided:
                            for fact in o.if_false:
                                bind(o.st, fact)
                        nxt.append((o.st, else_facts + (() if decided else o.if_false)))
            pending = nxt
        for s, facts in pending:
            entry = self.arm_ctx(f"if {first} (else)", facts, True)
            results.extend(self.run_arm(else_items or [], s, entry, tail=tail))
        return self.merge(results, node)

    def probe_env_arm(self, cond: list, body: list, st: State) -> None:
        """An ``elif`` no path reaches because an earlier test of an environment default was decided true
        (``ROLE=${ROLE:-prefill}; if [ "$ROLE" = prefill ]; then ...; elif [ "$ROLE" = decode ]; then
        <launch>``): its condition is evaluated on a copy of the state at the ``if`` only to note the values
        that would run its body (:class:`EnvVariants`); what it ran is not kept."""
        mark, count = len(self.env_pending), len(self.commands)
        self.env_outer += 1
        try:
            self.run_seq(cond, st.fork())
        finally:
            self.env_outer -= 1
            del self.commands[count:]
        if len(self.env_pending) > mark:
            self.env_commit(mark, [n for n, _ in body])

    def exec_case(self, node, st: State) -> list:
        subject_node = node.child_by_field_name("value")
        if subject_node is None:
            return [Out(st, True)]
        subject_unknown: set = set()
        subject = self.expand_value(subject_node, st, subject_unknown)
        ref = single_reference(self.unit, subject_node)
        subject_text = short(self.unit.source_text(subject_node))
        results: list = []
        alive, carry = [st], []
        tail = self.tail_whole(node)
        for item in (c for c in node.named_children if c.type == "case_item"):
            patterns = syntax.field_children(item, "value")
            body = [(c, bg) for c, bg in self.statements(item) if c not in patterns and not _is_pattern(item, c)]
            term = next((c.type for c in item.children if c.type in (";;", ";&", ";;&")), ";;")
            label = f"case {subject_text} in {'|'.join(self.unit.source_text(p) for p in patterns)})"
            entering = [(c, Ctx(label, self.pattern_role(patterns))) for c in carry]
            carry, still = [], []
            if subject.opaque and "1" in subject_unknown:
                launching = None  # (asked once per item: does its body hold launch text?)
                for p in patterns:
                    if is_literal(self.unit, p):
                        t, mask = self.expand_pattern(p, st, set())
                        if has_glob(t.text, mask):
                            continue
                        if role_of(t.text) is None and _ARM_NAME.fullmatch(t.text):
                            # `router) exec python3 -m sglang_router.launch_router ...`: another value the
                            # script is run with, beside the role names (whn09/LongCat-2.0-SGLang-EFA)
                            if launching is None:
                                launching = self.may_launch([n for n, _ in body])
                            if launching:
                                self.ctx.arg_values.setdefault(t.text, t)
                        else:
                            self.note_arg_value(subject_unknown, t)
            if self.env_spans and not subject.opaque and body:
                self.env_case_item(subject, patterns, body, st)
            for a in alive:
                matched, forks = self.case_match(subject, ref, patterns, a, label)
                entering.extend(forks)
                if matched is not True:
                    still.append(a)
            alive = still
            for state, entry in entering:
                for o in self.run_arm(body, state, entry, tail=tail and term == ";;"):
                    if o.st.flow or term == ";;":
                        results.append(o)
                    elif term == ";&":
                        carry.append(o.st)
                    else:
                        alive.append(o.st)
        results.extend(Out(s, True) for s in alive + carry)
        return self.merge(results, node)

    def env_case_item(self, subject: TStr, patterns: list, body: list, st: State) -> None:
        """``case "${ROLE:-prefill}" in decode) <launch>``: the literal patterns of an item the default
        does not select and whose body holds launch text are values to run the script with
        (:class:`pdlint.formats.shell.envruns.EnvVariants`)."""
        literals = []
        for p in patterns:
            if not is_literal(self.unit, p):
                return
            t, mask = self.expand_pattern(p, st, set())
            if has_glob(t.text, mask) or t.text == subject.text:
                return
            literals.append(t)
        if literals and self.env_source(subject) is not None and self.may_launch([n for n, _ in body]):
            self.note_env_case(subject, literals, [n for n, _ in body])

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
                else:
                    hit = self.matched(self.glob(t.text, mask).fullmatch(subject.text))
                    if hit:
                        return True, [(st, Ctx(label, role))]
                    if hit is None:  # the script's matching budget ran out: unknown
                        unknown_pattern = True
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
        # a polling loop (`for i in {1..15}; do pid=$(...); if [ -n "$pid" ]; then return 0; fi; sleep 1; done`)
        # that can start nothing: once an iteration leaves the paths as the one before did but for the loop's
        # variable, the rest would too (each would split the paths again: Mooncake's tone_tests reached the
        # path limit before their prefill)
        # Only when no later item can take another path: a body that reads the variable where it decides
        # something (`if [ "$i" = 2 ]; then FLAG=--no-such-flag; fi`) runs every item (rw35/i P1: the third
        # item's flag was lost, a clean pass where bash starts the launch with it)
        idle = len(items) > 2 and self.idle_loop(node, body_node) and \
            not self.reads_variable(self.unit, body_node, var, set())
        overlap = len(items) > 1 and self.overlapping(self.unit, body_node)
        entry = st.fork()
        splits = 0  # iterations whose paths multiplied since the paths last became fewer (split_count)
        for n, item in enumerate(items):
            if n >= MAX_LOOP_ITERATIONS:
                self.loop_limit(node, "loop", _LOOP_CUT)
                break
            nxt: list = []
            before = [s.fork() for s in states] if idle and n else None
            stopped = len(done)
            went_in = len(states)
            for s in states:
                s.assign(var, Var(item, frozenset(unk) if item.opaque else frozenset()))
                for o in self.run_arm(body, s, Ctx(f"for {var} in ... ({var}={short(item.text, 40)})",
                                                   instance=overlap), False):
                    self.loop_step(o, nxt, done)
            running = len(nxt)
            states = [o.st for o in self.merge(nxt, node)]
            if before is not None:
                # (a path that stopped as one of an earlier iteration did: the same but for the variable)
                done[stopped:] = [o for o in done[stopped:]
                                  if not any(_same_but(o.st, d.st, var) for d in done[:stopped])]
                if len(states) <= len(before) and all(any(_same_but(s, p, var) for p in before) for s in states):
                    last = items[-1]
                    for s in states:
                        s.assign(var, Var(last, frozenset(unk) if last.opaque else frozenset()))
                    break
            if not states:
                break
            splits = self.split_count(splits, went_in, running, states)
            if splits >= SPLIT_ITERATIONS and n + 1 < len(items):
                self.split_cut(entry, states, node, done)
                last = items[-1]  # (what bash leaves in the variable)
                entry.assign(var, Var(last, frozenset(unk) if last.opaque else frozenset()))
                states = []
                break
        return self.merge([Out(s, True) for s in states] + done, node)

    def reads_variable(self, unit, body, name: str, funcs_seen: set) -> bool:
        """Can ``body`` (or a function its text names) do anything by the value of variable ``name``: does it
        read it (``$name``, ``${name...}``, ``name`` in arithmetic, a word ``name`` such as ``[[ -v name ]]``'s)
        but in the words of a command :data:`_SAYS_ONLY` that stands alone as a statement, or read variables by
        a computed name (``${!x}``, ``eval``)?  What such a read decides may differ from one loop item to the
        next although the states after two items are alike but for ``name`` (:meth:`exec_for`)."""
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "command":
                prog = n.child_by_field_name("name")
                prog = unit.source_text(prog) if prog is not None else ""
                if prog == "eval":
                    return True
                if prog in _SAYS_ONLY and _stands_alone(n, body):
                    continue
            elif n.type in ("variable_name", "word") and unit.source_text(n) == name:
                return True
            elif n.type == "expansion" and any(c.type == "!" for c in n.children):
                return True
            stack.extend(n.children)
        return not self._named_functions_all(
            unit.source_text(body), funcs_seen, lambda u, b, seen: not self.reads_variable(u, b, name, seen))

    def exec_while(self, node, st: State) -> list:
        """``while``/``until``: iterate while the condition is known; when it is
        not, evaluate the body once (for its commands) and continue after the
        loop with the state from before that body (zero iterations) and, with
        ``ShellContext.loops_once``, also with the states after it (one)."""
        keyword = syntax.first_token(node) or "while"
        cond = [(c, False) for c in syntax.field_children(node, "condition")]
        body_node = node.child_by_field_name("body")
        body = self.statements(body_node) if body_node is not None else []
        label = f"{keyword} {self.cond_text(cond)}"
        states, done = [st], []
        entry = st.fork()
        busy = False  # an iteration after the first ran a command other than echo / sleep / ...
        for it in range(MAX_LOOP_ITERATIONS):
            nxt: list = []
            before = [s.fork() for s in states]  # the body mutates the states
            mark = len(self.commands)
            for s in states:
                for o in self.run_seq(cond, s):
                    if o.st.flow:
                        done.append(o)
                        continue
                    status, go = o.status, o.if_true
                    if keyword == "until":
                        status, go = (None if status is None else not status), o.if_false
                    if o.forked:
                        # known only on a path split on an unknown condition (`read -r k v || [ -n "$k" ]`,
                        # the read succeeding): as unknown, else the loop runs on that assumption until a
                        # limit (AI-Hypercomputer/gpu-recipes' Dynamo workers: PD008 and 20 SGL011 errors)
                        status = None
                    if status is False:
                        done.append(Out(o.st, True))
                    elif status is True:
                        for r in self.run_arm(body, o.st, Ctx(f"{label} (loop body)"), False):
                            self.loop_step(r, nxt, done)
                    else:
                        probe = o.st.fork()
                        for fact in go:
                            bind(probe, fact)
                        once: list = []
                        for r in self.run_arm(body, probe, Ctx(f"{label} (loop body)"), False):
                            self.loop_step(r, once, once)
                        self.mark_appends(o.st, once, node)
                        done.append(Out(o.st, True))
                        # a path the body ends (`if curl -sf "$url"; then return 0; fi` in a health wait bounded by
                        # `$(date +%s)`): the function returns there (NVIDIA/cloudai's `wait_for_health URL || exit
                        # 1` returned only 1, and every launch after it was a branch not taken)
                        done.extend(r for r in once if r.st.flow)
                        if self.ctx.loops_once:  # also one iteration: what the body set reaches the rest
                            done.extend(r for r in once if not r.st.flow)
            busy = busy or (it > 0 and self.new_work(mark))
            new = [o.st for o in self.merge(nxt, node)]
            if not new:
                break
            if it == 0:
                self.widen_loop(new, node)
            if len(new) <= len(before) and all(any(n.same(p) for p in before) for n in new):
                done.extend(Out(s, True) for s in new)  # no progress: stop iterating
                break
            if it + 1 >= SPLIT_ITERATIONS and len(new) > 1:
                # its paths keep splitting on what each iteration probes (`while [ "${#free_ports[@]}" -lt 4 ];
                # do if ! lsof -iTCP:$port ...; then free_ports+=($port); fi; ((port++)); done`, LMCache's
                # LMBench: the file's time limit): go on as for a loop pdlint does not count, what it sets unknown
                self.mark_appends(entry, [Out(s, True) for s in new], node)
                self.mark_changed(entry, new, node)
                done.append(Out(entry, True))
                break
            states = new
        else:
            # (not when the iterations left would run only what was seen and change nothing a launch reads:
            # `while [ $i -lt 600 ]; do sleep 2`)
            if busy or self.iteration_reaches_launch(before, states):
                self.loop_limit(node, "loop", _LOOP_CUT)
            done.extend(Out(s, True) for s in states)
        return self.merge(done, node)

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

        def once(s: State) -> list:
            """A count pdlint cannot tell (``for ((i=0; i<n; i++))``, n the script's argument): one
            iteration, whose effects reach the rest of the script.  Zero would drop what the body adds
            (``decode_args+=" --decode ..."``: a router with none, TonyLi15/sglang-benchmark), and a loop
            over a count of workers or retries runs at least once."""
            out: list = []
            entry = s.fork()
            for r in self.run_arm(body, s, Ctx("for ((...)) (loop body)"), False):
                self.loop_step(r, out, out)
            # what the iteration appends, the others may append again: an array it grows holds an unknown number
            # of items (LMCache/LMBench's `for ((i=0; i<total_gpus; i++)); do ... free_gpus+=("$i")`, whose
            # `${#free_gpus[@]} -lt $count` then read 1 < 4 and exited before the launches, field test rw13/f)
            self.append_unknown(entry, out, node)
            return out

        states, done = [st], []
        if run("initializer", st, 0) is None:
            return self.merge(once(st), node)
        overlap = self.overlapping(self.unit, body_node) if body_node is not None else False
        busy = False
        entry = st.fork()  # (after the initializer)
        splits = 0  # iterations whose paths multiplied since the paths last became fewer (split_count)
        for it in range(MAX_LOOP_ITERATIONS):
            nxt: list = []
            before = [s.fork() for s in states]
            mark = len(self.commands)
            for s in states:
                value = run("condition", s, 1)
                if value is None:
                    done.extend(once(s))
                elif not value:
                    done.append(Out(s, True))
                else:  # (each iteration named: the launches two of them start may be two processes, pdlint.pairing)
                    for r in self.run_arm(body, s, Ctx(f"for ((...)) (iteration {it + 1})", instance=overlap), False):
                        self.loop_step(r, nxt, done)
            busy = busy or (it > 0 and self.new_work(mark))
            states = []
            running = sum(1 for o in nxt if not o.st.flow)
            for o in self.merge(nxt, node):
                if run("update", o.st, 0) is None:
                    done.append(o)
                else:
                    states.append(o.st)
            if not states:
                break
            if it == 0:
                self.widen_loop(states, node)
            if len(states) <= len(before) and all(any(n.same(p) for p in before) for n in states):
                done.extend(Out(s, True) for s in states)  # no progress: stop iterating
                break
            splits = self.split_count(splits, len(before), running, states)
            if splits >= SPLIT_ITERATIONS and any(run("condition", s.fork(), 1) != 0 for s in states):
                # its counter kept (the body changes what a launch reads), each iteration splits every path
                # again (`if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi`) and the paths never join
                self.split_cut(entry, states, node, done)
                break
        else:
            if busy or self.iteration_reaches_launch(before, states):
                self.loop_limit(node, "loop", _LOOP_CUT)
            done.extend(Out(s, True) for s in states)
        return self.merge(done, node)

    def multiplied(self, went_in: int, running: int, states: list) -> bool:
        """Did a loop iteration that took ``went_in`` paths in leave ``states`` (``running`` paths out of its
        body, before they were merged) multiply the paths: at least twice as many, or as many as the path limit
        keeps and more came out of the body.  Not a path more per iteration (``if [ "$NODE_RANK" = "$i" ];
        then PORT=...; fi``: the paths where it matched no longer split)."""
        return len(states) >= 2 * went_in or (len(states) >= self.ctx.max_paths and running > len(states))

    def split_count(self, splits: int, went_in: int, running: int, states: list) -> int:
        """The count of a loop's iterations whose paths :meth:`multiplied` (``splits`` before this one, which took
        ``went_in`` paths in and left ``states``), reset only by an iteration that leaves fewer paths than it
        took: one that leaves as many (``if [ $((i % 2)) = 0 ]; then if [ "$X" = "$i" ] ...``, doubling every
        other iteration; at the path limit, every path run again each iteration) does not start it over
        (hostile-input round rw35/i P4: that 252-byte loop was never cut, 6.9 s and 157 MB, and with ten more
        assignments in its body PD008, the launch not checked)."""
        if self.multiplied(went_in, running, states):
            return splits + 1
        return 0 if len(states) < went_in else splits

    def split_cut(self, entry: State, states: list, node, done: list) -> None:
        """A loop whose paths :meth:`multiplied` in SPLIT_ITERATIONS iterations (:meth:`split_count`), with iterations
        left: each would split every path again and the paths never join (hostile-input round rw35/h P3: a
        198-byte ``for ((i = 0; i < 255; i++))`` over ``if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b";
        fi`` ran out the memory budget, 512 MB, PD008 and the launch not checked).  Go on as after a loop pdlint
        does not count, as ``while`` does: the state ``entry`` from before the loop, with a placeholder for
        what the loop adds to or leaves in each variable it changed; the iterations not run are said (PD015)."""
        self.loop_limit(node, "loop-split", _LOOP_SPLIT)
        # (its placeholders say pdlint's bound cut it, SPLIT_CUT: not input pdlint cannot see, rw35/i P5)
        self.mark_appends(entry, [Out(s, True) for s in states], node, SPLIT_CUT)
        self.mark_changed(entry, states, node, SPLIT_CUT)
        done.append(Out(entry, True))

    def loop_limit(self, node, kind: str, message: str) -> None:
        """Report a loop's limit (PD015) at the loop's first line when it is in the file checked (else at the
        statement of that file evaluating it): not at the statement of its body evaluated last."""
        saved = self.anchor
        if self.unit.top:
            self.anchor = self.unit.start(node)
        try:
            self.limit(kind, message)
        finally:
            self.anchor = saved

    def mark_changed(self, before: State, after: list, node, how: object = True) -> None:
        """After :meth:`mark_appends`: a variable some of the states ``after`` the loop hold with another value
        than ``before`` does gets a placeholder (what the loop leaves in it), opaque as ``how`` says."""
        at = self.unit.slice(node)
        line = at.origin_at(0).line if at.text else 0
        for name in {n for s in after for n in s.vars} - set(_IMPLICIT_VARS):
            old = before.vars.get(name)
            if old is not None and old.unknown and any(t.opaque for t in (
                    old.value if old.is_array else (old.value,)) if t is not None):
                continue  # (mark_appends gave it its placeholder)
            if all(s.vars.get(name) is not None and old is not None and s.vars[name].same(old) for s in after):
                continue
            before.vars[name] = Var(computed(f"<what the loop at line {line} leaves in {name}>", at).as_opaque(how),
                                    frozenset((name,)))

    def append_unknown(self, entry: State, outs: list, node) -> None:
        """After one iteration of a loop whose count pdlint cannot tell: each array the iteration extended
        (relative to ``entry``) ends with a placeholder for what the other iterations add."""
        at = self.unit.slice(node)
        line = at.origin_at(0).line if at.text else 0
        for o in outs:
            if o.st.flow:
                continue
            for name, var in list(o.st.vars.items()):
                old = entry.vars.get(name)
                if var.is_array and _extends(old, var):
                    tail = computed(f"<what the loop at line {line} adds to {name}>", at).as_opaque()
                    o.st.vars[name] = Var(tuple(var.value) + (tail,), frozenset(var.unknown | {name}))

    def mark_appends(self, before: State, after: list, node, how: object = True) -> None:
        """A loop pdlint does not count goes on with the state from before its body; a variable the body
        extends (``ARGS+=("--$key" "$value")`` in ``while read -r key value; do ... done < "$FILE"``, the
        flags of AI-Hypercomputer/gpu-recipes' Dynamo workers) gets a placeholder after its value there:
        what the iterations add, which a launch reports as not checked (PD023) instead of passing clean
        without it.  ``how``: the placeholder's :attr:`Piece.opaque` (``SPLIT_CUT`` after :meth:`split_cut`)."""
        at = self.unit.slice(node)
        line = at.origin_at(0).line if at.text else 0
        for name, old in list(before.vars.items()) + [(n, None) for n in _new_names(before, after)]:
            grown = [o.st.vars.get(name) for o in after if not o.st.flow]
            if not any(_extends(old, g) for g in grown if g is not None):
                continue
            tail = computed(f"<what the loop at line {line} adds to {name}>", at).as_opaque(how)
            unknown = frozenset((old.unknown if old is not None else frozenset()) | {name})
            if old is None or old.value is None or old.is_array or any(g.is_array for g in grown if g):
                base = () if old is None or old.value is None else (
                    old.value if old.is_array else (old.value,))
                before.vars[name] = Var(tuple(base) + (tail,), unknown)
            else:
                before.vars[name] = Var(old.value + computed(" ", at) + tail, unknown)

    def new_work(self, mark: int) -> bool:
        """A command recorded since ``mark`` other than a builtin such as echo or sleep (INERT_COMMANDS)."""
        return any(c.words and c.words[0].text not in INERT_COMMANDS for c in self.commands[mark:])

    # -- functions ----------------------------------------------------------------
    def call_function(self, fd: FuncDef, words: list, st: State, unk: set, penv: list,
                      label: Optional[str] = None, tail: bool = False, empty_unknown=None) -> list:
        """``empty_unknown``: {index in ``words`` of an empty argument: the unknown variables it was made of}
        (``build_config "$MODEL_NAME"`` with ``MODEL_NAME="${MODEL_NAME:-}"``): that positional parameter is
        unknown too, so a test of it is an assumption (billishyahao/sglang_disagg picks a model's flags with
        ``[[ -n "$model_name" ]]``), not decided as empty."""
        quiet = (st.out is not None or fd.key in self.active_calls or self.uncalled) and \
            not self.launches_in(fd.name)
        if not quiet and self.depth >= self.ctx.max_eval_depth:
            quiet = self.inert_function(fd.unit, fd.body)
        if not self.deeper(f"function {fd.name}", quiet=quiet):
            # a function that starts nothing, inside $(...) (it changes nothing but its output, which stays
            # unknown), calling itself (the levels evaluated did what the deeper ones would) or called from a
            # function nobody calls (evaluated for its commands; what it sets reaches nothing): no report
            # (process-tree walkers, InferenceX's _descendants and benchmark_lib.sh's
            # _background_process_descendants; its _patch_swebench_agent five calls down a library function);
            # nor for a function nothing of which can reach a launch (Joins.inert_function: a logging helper
            # past the limit, FlexKV's log_step, kserve's log_info)
            st.out_bad = st.out is not None  # inside $(...): the output is not known
            return [Out(st, None)]
        self.called.add(fd.key)
        saved_pos, saved_bind = st.positional, st.pos_bind
        if words is not None:
            st.positional = tuple(Var(w, frozenset(unk) if w.opaque else
                                      (empty_unknown or {}).get(i, frozenset())) for i, w in enumerate(words[1:], 1))
        else:
            st.positional = None
        st.pos_bind = {}
        saved_env = [(name, st.vars.get(name), name in st.exported) for name, _ in penv]
        for name, var in penv:
            st.assign(name, var, export=True)
        st.frames.append({})
        if label is None:
            label = f"function {fd.name} (called at line {words[0].origin.line})"
        depth = st.push_ctx(Ctx(label, instance=words is not None and self.overlapping(fd.unit, fd.body)))
        self.depth += 1
        self.active_calls.append(fd.key)
        try:
            with self.in_unit(fd.unit):
                if fd.body.type == "subshell":
                    outs = self.exec_subshell(fd.body, st)
                elif fd.body.type == "compound_statement":
                    outs = self.run_block(fd.body, st, tail)
                else:
                    outs = self.exec_stmt(fd.body, st)
        finally:
            self.depth -= 1
            self.active_calls.pop()
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

    def launches_in(self, name: str, seen: Optional[set] = None) -> bool:
        """May the function ``name`` start a launch: its body, or a function it names, holds launch text
        (without ``ctx.launch_text``: always)?"""
        if self.ctx.launch_text is None:
            return True
        seen = set() if seen is None else seen
        seen.add(name)
        bodies = self.function_bodies()
        unit, body = bodies.get(name, (None, None))
        if body is None:
            return True
        text = unit.source_text(body)
        if self.ctx.launch_text(text):
            return True
        return any(other not in seen and names_word(other, text) and self.launches_in(other, seen) for other in bodies)

    def evaluate_uncalled(self, outs: list) -> None:
        """Evaluate the top script's functions that were never called, once,
        with unknown arguments -- but only those that run some command other
        than shell builtins, so a launcher function invoked from elsewhere is
        still seen while helpers like ``usage()`` stay quiet."""
        from .interp import LimitReached  # (interp imports this module)
        finals = [o.st for o in outs]
        for key, (fd, at_def) in list(self.defined.items()):
            if key in self.called or not fd.unit.top or not self.runs_commands(fd):
                continue
            base = next((s for s in finals if s.funcs.get(fd.name) is not None
                         and s.funcs[fd.name].key == key), at_def)
            st = base.fork()
            st.flow, st.flow_n, st.ctx = None, 0, ()
            self.uncalled, self.uncalled_fd = True, fd
            try:
                self.call_function(fd, None, st, set(), [], label=f"function {fd.name} (not called in this script)")
            except LimitReached as stop:
                if not stop.quiet:
                    raise
                # a limit in a function that cannot start a launch (Interpreter.limit): its evaluation
                # stopped, the next function's goes on (a budget spent stops it too, reported if it may launch)
            finally:
                self.uncalled, self.uncalled_fd = False, None

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


def short(text: str, limit: int = _CTX_TEXT) -> str:
    """One-line, length-capped rendering of source text for contexts."""
    text = " ".join(text.replace("\\\n", " ").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _fact(name: str, value: TStr):
    return Fact(name, value, role_of(value.text))


def _is_pattern(item, child) -> bool:
    for i, c in enumerate(item.children):
        if c == child:
            return item.field_name_for_child(i) == "value"
    return False


def _skipped_arms(outs: list, arms: list, i: int, else_items) -> list:
    """The statements of an ``if`` that the decided outcomes of arm ``i``'s condition did not run: its
    body (decided false), the later arms and the ``else`` (decided true)."""
    skipped: list = []
    for o in outs:
        if o.forked or o.st.flow or o.status is None:
            continue
        if o.status is False:
            skipped += [n for n, _ in arms[i][2]]
        else:
            skipped += [n for _, cond, body in arms[i + 1:] for n, _ in cond + body]
            skipped += [n for n, _ in else_items or ()]
    return skipped


def all_exit(outs: list) -> bool:
    """Does every path out of a branch end the script (``exit``)?"""
    return bool(outs) and all(o.st.flow == "exit" for o in outs)


def unassumed(st: State) -> State:
    """``st`` (a fork) where the variables an assumption made empty (``MODEL=${MODEL:-}``: counted as unset,
    the empty default) have no known value again: the path that goes on as if the environment set them."""
    for name, var in list(st.vars.items()):
        if name in var.unknown and not var.is_array and var.value is not None and not var.value.text:
            del st.vars[name]
    return st


def _new_names(before: State, after: list) -> set:
    return {n for o in after for n in o.st.vars if n not in before.vars}


def _extends(old: Optional[Var], new: Var) -> bool:
    """Is ``new`` ``old`` with something after it (an array with more items, a longer text it starts with)?"""
    if new.value is None:
        return False
    if old is None or old.value is None:
        return bool(new.value) if new.is_array else False
    if old.is_array and new.is_array:
        return len(new.value) > len(old.value) and all(
            a.text == b.text for a, b in zip(old.value, new.value))
    if not old.is_array and not new.is_array:
        return len(new.value.text) > len(old.value.text) and new.value.text.startswith(old.value.text)
    return False


def _stands_alone(command, body) -> bool:
    """Is ``command`` a statement of ``body`` (or of a block in it) whose output and status no other command reads:
    each node from it up to ``body`` is one of :data:`_STATEMENT_PARENTS`, and an ``if``/``elif`` holds it after
    its ``then`` (not in its condition)."""
    child, parent = command, command.parent
    while parent is not None and parent != body:
        if parent.type not in _STATEMENT_PARENTS:
            return False
        if parent.type in ("if_statement", "elif_clause"):
            then = next((c for c in parent.children if c.type == "then"), None)
            if then is None or child.start_byte < then.end_byte:
                return False
        child, parent = parent, parent.parent
    return parent is not None


def _same_but(a: State, b: State, name: str) -> bool:
    """``a`` and ``b`` are :meth:`State.same` once variable ``name`` is given ``a``'s value in both."""
    if a.vars.get(name) is not None and b.vars.get(name) is not None:
        b = b.fork()
        b.vars[name] = a.vars[name]
    return a.same(b)
