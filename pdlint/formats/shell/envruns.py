"""Values of environment-defaulted variables that select launches: what to run the script with again.

A multi-node script often picks its role from a variable the environment may set, with a default
(sabreshao/sglang_disagg ``scripts/pd_server.sh``): ``NODE_RANK="${NODE_RANK:-0}"``, then ``if [[
"${NODE_RANK}" -eq 0 ]]; then <prefill launch>; else <decode launch>; fi``.  The evaluation counts a
variable with no known value as unset, so it builds the prefill only; the decode is launch text no run
reaches, and no pair rule ever sees the two.  The same problem for the script's first argument is solved
by running the script once per role value (``ShellContext.arg_values``); this does the same for such
variables:

* a variable is *environment-defaulted* where ``${V:-d}`` / ``${V-d}`` / ``${V:=d}`` (``d`` not empty)
  takes the default because ``V`` has no known value: not assigned before on the path, not given by the
  caller (``--var``, ``[tool.pdlint.vars]``: those are known, so nothing is recorded);
* a test (``=``, ``==``, ``!=``, ``-eq``... with a literal on the other side; ``[ ]``, ``[[ ]]`` or the
  ``test`` builtin; in an ``&&``/``||`` list, judged by the ``if`` the list is the condition of), an arithmetic condition
  comparing one variable or expansion with a number (``(( NODE_RANK == 0 ))``, ``(( ${RANK:-0} > 0 ))``)
  or a ``case`` whose subject
  is exactly such a default (every character of it written in the default, however many variables it
  was copied through: ``NODE_RANK="${NODE_RANK:-0}"; [[ $NODE_RANK -eq 0 ]]``) gives the values that
  would decide it otherwise: the literal words (``case`` patterns without glob characters; for a word that is
  the default itself, ``[ "$NNODES" != 1 ]``, another value: :func:`_other`), or for a
  numeric test the value on the other side of the literal from the default (``-eq 0`` with default 0: 1);
  in a numeric test of two such defaults (``[[ $NODE_RANK -lt $PREFILL_NODES ]]``) the right one counts as
  the number written there; in a nested default (``${NODE_RANK:-${SLURM_PROCID:-0}}``) the outermost
  variable is the one tried;
* those values are kept (``ShellContext.env_values``) only when the decision skipped a part of the
  statement that holds launch text, or names a function that does, or assigns a long option to a
  variable (``ARGS+=(--lmcache-config ...)``: flags a switch adds), or gives a variable a launch reads a
  role word (``KV_ROLE=kv_consumer``; :meth:`EnvVariants.may_launch`): a
  script whose defaults reach every launch and every such flag costs nothing more.

Not recorded: arithmetic conditions other than one comparison of a name with a number, globs, variables read in a function the script never calls.
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.text import TStr

_INT = lazyre.compile(r"[-+]?[0-9]+")
_WORD = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_:.-]*")
_LONG_OPTION = lazyre.compile(r"(?:^|\s)--[A-Za-z]")
#: an assignment whose value holds a long option (``ARGS+=(--lmcache-config ...)``, ``EXTRA="$EXTRA --enable-x"``)
_FLAG_ASSIGNMENT = lazyre.compile(r"^[ \t]*(?:(?:export|local|declare|typeset|readonly)(?:[ \t]+-\w+)*[ \t]+)?"
                              r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\n]*\])?\+?=[^\n]*?(?<=[\s(\"'=])--[A-Za-z]", re.M)
_OPTION_WORD = lazyre.compile(r"(?<![\w-])--[A-Za-z]")  # (also after `(` or a quote: `ARGS+=(--x)`, `"--x"`)
MAX_REACH_LINES = 64  # lines of launch text recorded for one value (EnvVariants.launch_lines)
_KV_ROLES = frozenset({"kv_producer", "kv_consumer", "kv_both"})
_MIRROR = {"-gt": "-lt", "-lt": "-gt", "-ge": "-le", "-le": "-ge", "-eq": "-eq", "-ne": "-ne"}
#: the values on the two sides of ``-OP N``, as offsets from N (a rank test ``-eq 0`` gives 0 and 1, not -1)
_SIDES = {"-eq": (0, 1), "-ne": (0, 1), "-gt": (1, 0), "-ge": (0, -1), "-lt": (-1, 0), "-le": (0, 1)}
#: the arithmetic comparison operators, as ``test``'s
_ARITH_OPS = {"==": "-eq", "!=": "-ne", "<": "-lt", "<=": "-le", ">": "-gt", ">=": "-ge"}
_ARITH_CMP = lazyre.compile(r"^\s*(?P<a>\$?\{?[A-Za-z_][A-Za-z0-9_]*\}?|[-+]?[0-9]+)\s*(?P<op>==|!=|<=|>=|<|>)\s*"
                        r"(?P<b>\$?\{?[A-Za-z_][A-Za-z0-9_]*\}?|[-+]?[0-9]+)\s*$")
_TESTS = {"-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
          "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b}


class EnvVariants:
    """Mixed into the interpreter.  ``env_spans``: (name, source, start, end) of each default text taken
    for a variable with no known value; ``env_pending``: (name, value text, where, array or None) noted by
    conditions, kept by the ``if``/``case``/``&&`` around them (:meth:`env_commit`) or dropped; ``array``: the
    associative array whose key the value is (:meth:`note_env_empty`)."""

    def note_env_default(self, name: str, default: TStr) -> None:
        """``${name:-default}`` took ``default`` because ``name`` has no known value."""
        if self.uncalled or not default.text or self.ctx.launch_text is None:
            return
        for p in default.pieces:
            if p.src is not None and not p.opaque:
                self.env_spans.add((name, p.src, p.offset, p.offset + p.end - p.start))

    def env_source(self, t: TStr) -> Optional[str]:
        """The environment-defaulted variable whose default ``t`` is, character for character written
        there; else None."""
        if not self.env_spans or not t.text or t.opaque:
            return None
        names: dict = {}
        for p in t.pieces:
            if p.src is None:
                return None
            end = p.offset + p.end - p.start
            hit = [(n, b - a) for n, src, a, b in self.env_spans if src is p.src and a <= p.offset and end <= b]
            if not hit:
                return None
            for n, width in hit:
                names[n] = max(names.get(n, 0), width)
        if len(names) == 1:
            return next(iter(names))
        # a nested default (`NODE_RANK="${NODE_RANK:-${SLURM_PROCID:-0}}"`, SemiAnalysisAI/InferenceX
        # llm-d/server.sh): the outermost variable, whose default holds the others' whole text
        widest = max(names.values())
        outer = sorted(n for n, w in names.items() if w == widest)
        return outer[0] if len(outer) == 1 else None

    def note_env_compare(self, op: str, value: TStr, literal: TStr, flipped: bool) -> None:
        """A test ``value OP literal`` (``literal OP value`` when ``flipped``): the values of the variable
        ``value`` is the default of that would decide it the other way."""
        name = self.env_source(value)
        if name is None or literal.opaque:
            return
        self.env_tested.append(name)
        if op in ("=", "==", "!="):
            if literal.text != value.text:
                self.env_pending.append((name, literal.text, literal, None))
            else:  # the default itself (`[ "$NNODES" != "1" ]` with `NNODES=${NNODES:-1}`): any other value
                self.env_pending.append((name,) + _other(literal) + (None,))
            return
        op = _MIRROR.get(op, "") if flipped else op
        test = _TESTS.get(op)
        if test is None or not _INT.fullmatch(literal.text.strip()):
            return
        n = int(literal.text)
        was = test(int(value.text), n) if _INT.fullmatch(value.text.strip()) else None
        for c in (n + _SIDES[op][0], n + _SIDES[op][1]):
            if test(c, n) is not was and str(c) != value.text.strip():
                self.env_pending.append((name, str(c), literal if str(c) == literal.text else
                                         _computed(str(c), literal), None))
                if was is not None:
                    break  # one value on the other side is enough

    def note_env_arith(self, expr: TStr, source: TStr, st) -> None:
        """An arithmetic condition ``(( a OP b ))``: ``expr`` its expanded text, ``source`` its written text.
        One side a number written there, the other a variable name (its value) or an expansion whose text is
        an environment default: noted as the ``test`` with the same operator."""
        m = _ARITH_CMP.match(expr.text)
        w = _ARITH_CMP.match(source.text)
        if m is None or w is None:
            return
        op = _ARITH_OPS[m.group("op")]
        for ref, lit, flipped in (("a", "b", False), ("b", "a", True)):
            if not _INT.fullmatch(w.group(lit)):
                continue  # the number must be written in the condition, not come from an expansion
            value = self._arith_operand(expr[m.start(ref):m.end(ref)], st)
            if value is not None:
                self.note_env_compare(op, value, source[w.start(lit):w.end(lit)], flipped)

    def _arith_operand(self, t: TStr, st) -> Optional[TStr]:
        """The text an arithmetic operand stands for: a bare name's value, else the (expanded) text."""
        if _INT.fullmatch(t.text):
            return t
        name = t.text.strip("${}")
        var = self.lookup(name, st)
        value = getattr(var, "value", None)
        return value if isinstance(value, TStr) else None

    def forget_env(self, st, names: set) -> None:
        """``st`` (a fork) where the variables that hold the default of one of the environment-defaulted
        ``names`` have no known value: the path that goes on as if the environment set them."""
        for name, var in list(st.vars.items()):
            value = getattr(var, "value", None)
            if name in names or (isinstance(value, TStr) and not getattr(var, "is_array", False)
                                 and self.env_source(value) in names):
                del st.vars[name]

    def note_env_case(self, subject: TStr, literals: list, body: Optional[list] = None) -> None:
        """``case SUBJECT in`` an item with these literal patterns (TStr) whose body (statement nodes) holds
        launch text."""
        name = self.env_source(subject)
        if name is None or self.uncalled:
            return
        reach = None
        for t in literals:
            if t.text != subject.text:
                self.ctx.env_values.setdefault(name, {}).setdefault(t.text, t)
                if body:
                    reach = self.launch_lines(body) if reach is None else reach
                    self.ctx.env_reach.setdefault((name, t.text), set()).update(reach)

    def note_env_empty(self, unknown: frozenset, st) -> None:
        """``[[ -n "$model_name" ]]`` decided false because the value is empty only as the default of a
        variable with no known value (``MODEL_NAME="${MODEL_NAME:-}"``, passed on as ``"$1"``): the keys of
        each associative array whose items hold long options (``declare -A MODEL_BASE_CONFIGS=(["DeepSeek-R1"]=
        "--chunked-prefill-size 262144 --page-size 3")``, billishyahao/sglang_disagg) are that variable's
        values to try, kept when the part the test skipped reads that array (:meth:`env_commit`)."""
        if len(unknown) != 1 or self.uncalled or self.ctx.launch_text is None:
            return
        from .words import _NAME_RE
        name = next(iter(unknown))
        if not _NAME_RE.fullmatch(name):
            return
        for array, var in st.vars.items():
            if var is None or not var.is_assoc or not isinstance(var.value, tuple):
                continue
            for key, value in zip(var.keys, var.value):
                if key and _LONG_OPTION.search(value.text):
                    self.env_pending.append((name, key, _computed(key, value), array))

    def env_commit(self, mark: int, skipped: list) -> None:
        """Keep the values noted since ``mark`` when the statement nodes ``skipped`` (a part a decided
        condition did not run) may start a launch; drop them otherwise.  A value taken from an array's keys
        (:meth:`note_env_empty`) is kept when the skipped part reads that array."""
        new = self.env_pending[mark:]
        del self.env_pending[mark:]
        if not new or not skipped or self.uncalled:
            return
        texts = None
        launches = None
        reach = None
        for name, text, where, array in new:
            if array is not None:  # (a key of that array: kept when the skipped part reads it)
                if texts is None:
                    texts = "\n".join(self.unit.text[self.unit.start(n):self.unit.char(n.end_byte)] for n in skipped)
                keep = re.search(r"\$\{" + re.escape(array) + r"\[", texts) is not None
            else:
                if launches is None:
                    launches = self.may_launch(skipped)
                keep = launches
            if keep:
                self.ctx.env_values.setdefault(name, {}).setdefault(text, where)
                if array is None:
                    reach = self.launch_lines(skipped) if reach is None else reach
                    self.ctx.env_reach.setdefault((name, text), set()).update(reach)

    def may_launch(self, nodes: list) -> bool:
        """Do these statements (of the current unit) hold launch text (``ctx.launch_text``), in their own
        text or in the body of a function they name (and so on), or assign a long option to a variable in
        their own text (``VLLM_ARGS+=(--lmcache-config ...)``, littlemex/pd-disaggregated-inference-on-aws:
        a flag an environment switch adds to a launch)?  Launch text, not just a command that might run one
        (``bash -c "$ROUTER_CMD"``, ``source "$DIR/server_vllm.sh"``): a run again costs a whole
        evaluation of the script."""
        if self.ctx.launch_text is None or not nodes:
            return False
        functions = self.function_definitions()
        texts = [self.unit.text[self.unit.start(n):self.unit.char(n.end_byte)] for n in nodes]
        if any(_FLAG_ASSIGNMENT.search(t) for t in texts):
            return True  # flags for a launch (in the statements themselves: a function's body must launch)
        seen: set = set()
        while texts:
            text = texts.pop()
            if self.ctx.launch_text(text):
                return True
            for word in set(_WORD.findall(text)):
                if word in functions and word not in seen:
                    seen.add(word)
                    texts.extend(u.text[u.start(body):u.char(body.end_byte)] for u, body in functions[word])
        # a role the skipped part gives a variable a launch reads (`if [[ $NODE_RANK -lt $PREFILL_NODES ]]; then
        # KV_ROLE=kv_producer; else KV_ROLE=kv_consumer; fi`, then `vllm serve ... "kv_role":"$KV_ROLE"`,
        # SemiAnalysisAI/InferenceX llm-d/server.sh, field test rw18/o: the decode launch was never built); other
        # values (an etcd URI instead of an http one) are another configuration, not the other role: no second run
        if any(self.launch_relevant(name) for name in sorted(self._role_assignments(nodes))):
            return True
        # a flag switch: a variable the skipped part sets that the script turns into a flag where it is set
        # (`if [ "$MODEL" = big ]; then SPEC=1; fi` ... `${SPEC:+--enable-x}`, or `[ -n "$SPEC" ] && ARGS+=(--x)`:
        # rw26/h item 6, the prefill with the flag was never built)
        return any(self._flag_switch(name) for name in sorted(self._assignments(nodes)))

    def _assignments(self, nodes: list) -> set:
        """Names the statements ``nodes`` assign (at most 64)."""
        out: set = set()
        stack = list(nodes)
        while stack and len(out) < 64:
            n = stack.pop()
            if n.type == "variable_assignment":
                name = n.child_by_field_name("name")
                if name is not None:
                    out.add(self.unit.source_text(name).split("[", 1)[0])
                continue
            stack.extend(n.children)
        return out

    def _flag_switch(self, name: str) -> bool:
        """Does the script write a flag where ``name`` is set: ``${NAME:+--flag}`` (``${NAME+...}``), or a test
        of it (``[ -n "$NAME" ]``, ``[[ $NAME ]]``, ``[ "$NAME" = 1 ]``) on a line that adds a long option or opens
        a branch that does within three lines?"""
        memo = self.__dict__.setdefault("_switch_memo", {})
        if name in memo:
            return memo[name]
        text = self.unit.text
        ref = r"\$\{?" + re.escape(name) + r"\b"
        found = re.search(r"\$\{" + re.escape(name) + r":?\+[^}]*--[A-Za-z]", text) is not None
        if not found:
            for m in re.finditer(r"\[\[?[^\]\n]*" + ref + r"[^\]\n]*\]\]?", text):
                end = m.end()
                for _ in range(3):
                    end = text.find("\n", end + 1)
                    if end < 0:
                        end = len(text)
                        break
                if _OPTION_WORD.search(text, m.end(), end):
                    found = True
                    break
        memo[name] = found
        return found

    def launch_lines(self, nodes: list) -> set:
        """``{(path, line, text, start, end)}`` of the lines with launch text in these statements (of the current unit) and
        in the functions they name (and so on): what a run that takes them may build.  At most
        :data:`MAX_REACH_LINES` lines."""
        functions = self.function_definitions()
        todo = [(self.unit, n) for n in nodes]
        seen: set = set()
        out: set = set()
        while todo and len(out) < MAX_REACH_LINES:
            unit, n = todo.pop()
            a, b = unit.start(n), unit.char(n.end_byte)
            text = unit.text[a:b]
            pos = 0
            for line in text.split("\n"):
                if self.ctx.launch_text(line):
                    seg = unit.tstr[a + pos:a + pos + len(line)]
                    if seg.pieces and seg.pieces[0].src is not None:
                        o, first, last = seg.origin, seg.pieces[0], seg.pieces[-1]
                        out.add((o.path, o.line, " ".join(line.split()), first.offset,
                                 last.offset + last.end - last.start))
                pos += len(line) + 1
            for word in set(_WORD.findall(text)):
                if word in functions and word not in seen:
                    seen.add(word)
                    todo.extend(functions[word])
        return out

    def _role_assignments(self, nodes: list) -> set:
        """Names the statements ``nodes`` assign a literal role word (``decode``, ``generation``, ``kv_consumer``)."""
        from .conditions import role_of
        out = set()
        stack = list(nodes)
        while stack:
            n = stack.pop()
            if n.type == "variable_assignment":
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None and value is not None:
                    text = self.unit.source_text(value).strip("\"'")
                    if role_of(text) is not None or text in _KV_ROLES:
                        out.add(self.unit.source_text(name).split("[", 1)[0])
                continue
            stack.extend(n.children)
        return out


def _other(literal: TStr) -> tuple:
    """(text, value) of a value other than ``literal``: the next number, or a word pdlint cannot see (opaque:
    no check judges a value the script never writes) located at the literal."""
    if _INT.fullmatch(literal.text.strip()):
        text = str(int(literal.text) + 1)
        return text, _computed(text, literal)
    text = "OTHER"
    if not literal.pieces:
        return f"<not {literal.text}>", TStr.synthetic(text, "<shell>", opaque=True)
    p = literal.pieces[0]
    return f"<not {literal.text}>", TStr.at(text, p.src, p.offset, p.chain, False, True, p.label)


def _computed(text: str, at: TStr) -> TStr:
    from .words import computed
    return computed(text, at)
