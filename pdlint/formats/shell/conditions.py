"""Conditions: ``[ ... ]``, ``[[ ... ]]``, ``test`` and ``case`` patterns.

A condition evaluates to a :class:`Cond`: True, False or None (not known at
lint time) plus the *facts* each outcome implies.  When a test compares a
single variable reference with a literal (``[ "$mode" = prefill ]``), the
"true" outcome binds the variable to the literal, located where the literal is
written; a literal that names a role also gives the branch its role hint.
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass
from pdlint.text import TStr

from .state import Fact
from .syntax import first_token, special_parts
from .matching import Budget, Glob, ere_search
from .words import UNKNOWN, Var, has_glob, has_known_char
from .jobs import PID_PLACEHOLDER

#: Literal values that name a role (compared case-insensitively, glob
#: characters and quotes stripped).
ROLE_WORDS = {
    "prefill": "prefill", "p": "prefill", "prefiller": "prefill", "ctx": "prefill",
    "context": "prefill", "sender": "prefill",
    "decode": "decode", "d": "decode", "decoder": "decode", "gen": "decode",
    "generation": "decode", "receiver": "decode", "recver": "decode",
}

_REFS = frozenset({"simple_expansion", "expansion"})
_EXPANDING = frozenset({"simple_expansion", "expansion", "command_substitution",
                        "arithmetic_expansion", "process_substitution"})
_INT_TEXT = lazyre.compile(r"[-+]?[0-9]+")
_NUMERIC = {"-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
            "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b}
_INT_RE = lazyre.compile(r"\s*[-+]?[0-9]+\s*")


_INDIRECT = lazyre.compile(r'"?\$\{!([A-Za-z_][A-Za-z0-9_]*)(?::?-)?\}"?')


def role_of(text: str) -> Optional[str]:
    return ROLE_WORDS.get(text.strip("*?\"' ").lower())


@dataclass(frozen=True)
class Cond:
    value: Optional[bool]
    if_true: tuple = ()
    if_false: tuple = ()
    #: decided only because a variable with no known value counts as unset (``[ -z "${MODEL:-}" ]``): if the
    #: branch that decision takes ends the script, the other one is followed too (see ``Control.exec_if``)
    assumed: bool = False

    def negated(self) -> "Cond":
        return Cond(None if self.value is None else not self.value, self.if_false, self.if_true, self.assumed)


def cond_and(a: Cond, b: Cond) -> Cond:
    if a.value is False or b.value is False:
        value = False
    elif a.value is True and b.value is True:
        value = True
    else:
        value = None
    if_false = b.if_false if a.value is True else a.if_false if b.value is True else ()
    return Cond(value, a.if_true + b.if_true, if_false)


def cond_or(a: Cond, b: Cond) -> Cond:
    if a.value is True or b.value is True:
        value = True
    elif a.value is False and b.value is False:
        value = False
    else:
        value = None
    if_true = b.if_true if a.value is False else a.if_true if b.value is False else ()
    return Cond(value, if_true, a.if_false + b.if_false)


@dataclass
class Operand:
    """One side of a test: its expansion, the variable it consists of (if it
    is exactly one reference) and whether it is a pure literal."""

    t: TStr
    mask: list
    var: Optional[str]
    literal: bool
    unknown: frozenset = frozenset()  # the variables with no known value that went into it

    @property
    def known(self) -> bool:
        return not self.t.opaque


def string_facts(left: Operand, right: Operand, pattern: bool) -> tuple:
    """Facts implied by ``left == right`` being true."""
    facts = []
    for ref, lit in ((left, right), (right, left)):
        if ref.var is None or not lit.literal:
            continue
        if pattern and has_glob(lit.t.text, lit.mask):
            role = role_of(lit.t.text)
            if role:
                facts.append(Fact(None, None, role))
            continue
        facts.append(Fact(ref.var, lit.t, role_of(lit.t.text)))
    return tuple(facts)


class Conditions:
    """Condition half of the interpreter (mixed into it)."""

    def test_node(self, node, st, unk: set) -> Cond:
        """Evaluate a ``test_command`` node."""
        double = first_token(node) == "[["
        exprs = [c for c in node.named_children if c.type != "comment"]
        if not exprs:
            return Cond(False)
        cond = self._test_expr(exprs[0], st, unk, double)
        for extra in exprs[1:]:
            cond = cond_and(cond, self._test_expr(extra, st, unk, double))
        return cond

    def _test_expr(self, node, st, unk: set, double: bool) -> Cond:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children]
            return self._test_expr(inner[0], st, unk, double) if inner else Cond(None)
        if kind == "negated_expression" or (kind == "unary_expression" and first_token(node) == "!"):
            inner = node.named_children
            return self._test_expr(inner[-1], st, unk, double).negated() if inner else Cond(None)
        if kind == "unary_expression":
            return self._unary(node, st, unk, double)
        if kind == "binary_expression":
            return self._binary(node, st, unk, double)
        return self._nonempty(self.operand(node, st, unk, False))

    def _operator(self, node) -> str:
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "operator":
                return self.unit.source_text(child) if child.is_named else child.type
        return ""

    def _unary(self, node, st, unk: set, double: bool) -> Cond:
        op = self._operator(node) or ""
        if not op:
            ops = [c for c in node.children if c.type == "test_operator"]
            op = self.unit.source_text(ops[0]) if ops else ""
        args = [c for c in node.named_children if c.type != "test_operator"]
        if not args:
            return Cond(None)
        if op in ("-z", "-n") and self._named_by_value_unknown(args[-1], st):
            return Cond(op == "-n")
        operand = self.operand(args[-1], st, unk, False)
        if op in ("-z", "-n") and operand.known and not operand.t.text and operand.unknown:
            self.note_env_empty(operand.unknown, st)  # (what the environment may set it to: EnvVariants)
        if op == "-z":
            return self._nonempty(operand).negated()
        if op == "-n":
            return self._nonempty(operand)
        if op == "-v":
            name = operand.t.text
            var = self.lookup(name, st) if operand.known else UNKNOWN
            return Cond(None if var is UNKNOWN else var.value is not None)
        return Cond(None)  # file tests and the like depend on the machine

    def _named_by_value_unknown(self, node, st) -> bool:
        """``"${!name:-}"`` / ``"${!name}"`` of a variable with no known value: the loop of a required-variable
        check (InferenceX's ``check_env_vars MODEL TP``: ``[[ -z "${!var_name:-}" ]]`` ... ``exit 1``) or of
        optional settings (``[ -n "${!v:-}" ] && FLAGS+=" --$v ${!v}"``).  An expansion counts a variable with
        no known value as unset, so that the defaults a script carries get checked (``[ -z "${X:-}" ] &&
        X=8000``); a variable named by value is one the deploy environment is asked for, and is taken as set
        to a value pdlint cannot see: the launch after a required check runs (with that value opaque), an
        optional setting's flags are added (opaque, reported where flags could be) rather than dropped.  Not a
        fork: a loop over N names would make 2^N paths."""
        m = _INDIRECT.fullmatch(self.unit.source_text(node))
        if not m:
            return False
        name = self._indirect(m.group(1), None, st)
        return name is None or self.lookup(name, st) is UNKNOWN

    def _nonempty(self, operand: Operand) -> Cond:
        if operand.known:
            # empty because a variable with no known value counted as unset (`${X:-}`): an assumption
            return Cond(bool(operand.t.text), assumed=not operand.t.text and bool(operand.unknown))
        # `$!` (a background job's pid: a placeholder, shell.jobs) is never empty: `[[ -n "$PID" ]] && kill "$PID"`
        return Cond(True if has_known_char(operand.t) or PID_PLACEHOLDER.search(operand.t.text) else None)

    def _binary(self, node, st, unk: set, double: bool) -> Cond:
        op = self._operator(node)
        left_n = node.child_by_field_name("left")
        right_n = node.child_by_field_name("right")
        if left_n is None or right_n is None:
            named = [c for c in node.named_children if c.type != "test_operator"]
            if len(named) < 2:
                return Cond(None)
            left_n, right_n = named[0], named[-1]
        if op in ("&&", "-a", "||", "-o"):
            a = self._test_expr(left_n, st, unk, double)
            b = self._test_expr(right_n, st, unk, double)
            return cond_and(a, b) if op in ("&&", "-a") else cond_or(a, b)
        pattern = double and op in ("==", "!=", "=")
        left = self.operand(left_n, st, unk, False)
        right = self.operand(right_n, st, unk, pattern or (double and op == "=~"))
        cond = self.matched(compare(op, left, right, pattern, self.match_budget))
        if self.env_spans and (op in ("=", "==", "!=") or op in _NUMERIC):
            for ref, lit, flipped in ((left, right, False), (right, left, True)):
                if lit.literal and not lit.t.opaque and not (pattern and has_glob(lit.t.text, lit.mask)):
                    self.note_env_compare(op, ref.t, lit.t, flipped)
                elif not flipped and op in _NUMERIC and not left.literal and _INT_TEXT.fullmatch(lit.t.text) and \
                        self.env_source(lit.t) is not None:
                    # both sides environment defaults (`[[ $NODE_RANK -lt $PREFILL_NODES ]]` with
                    # `PREFILL_NODES="${PREFILL_NODES:-1}"`, SemiAnalysisAI/InferenceX llm-d/server.sh): the right
                    # side's default counts as the number written there, the left side's values are tried
                    self.note_env_compare(op, ref.t, lit.t, flipped)
        if cond.value is None and op in ("=", "==", "!="):
            for ref, lit in ((left, right), (right, left)):
                if lit.literal and not lit.t.opaque:
                    self.note_arg_value(ref.unknown, lit.t)
        return cond

    def note_arg_value(self, unknown, literal: TStr) -> None:
        """A role name compared with a value made from the script's unknown
        first argument (``$1``, ``ROLE=${1:?}``): remember it, so that the
        caller can evaluate the script once per role value (the first place
        a value is written wins)."""
        if "1" in unknown and role_of(literal.text) is not None:
            self.ctx.arg_values.setdefault(literal.text, literal)

    def operand(self, node, st, unk: set, pattern: bool) -> Operand:
        local: set = set()
        t, mask = self.expand_pattern(node, st, local)
        unk |= local
        if not pattern:
            mask = [True] * len(t.text)
        return Operand(t, mask, single_reference(self.unit, node), is_literal(self.unit, node), frozenset(local))

    # -- test as a command (``test ...`` / ``[ ... ]`` produced by expansion) --
    def test_words(self, args: list, unknown: frozenset = frozenset()) -> Cond:
        """POSIX ``test`` on already expanded words (no variable bindings); ``unknown``: the variables with
        no known value the words were expanded from."""
        ops = [Operand(a, [True] * len(a.text), None, not a.opaque, unknown) for a in args]
        if ops and ops[0].t.text == "!" and len(ops) > 1:
            return self.test_words(args[1:], unknown).negated()
        if not ops:
            return Cond(False)
        if len(ops) == 1:
            return self._nonempty(ops[0])
        if len(ops) == 2:
            op = ops[0].t.text
            if op == "-z":
                return self._nonempty(ops[1]).negated()
            if op == "-n":
                return self._nonempty(ops[1])
            return Cond(None)
        if len(ops) == 3:
            op = ops[1].t.text
            if self.env_spans and (op in ("=", "==", "!=") or op in _NUMERIC):
                # `test $NNODES -gt 1` (the builtin, not `[ ]`): what the environment may set NNODES to, as for
                # `[ "$NNODES" -gt 1 ]` (field test rw22/h); the literal side is any word not an environment
                # default, or a number one is (`test $RANK -lt $PREFILL_NODES`: the left one's values are tried)
                a, b = args[0], args[2]
                for ref, lit, flipped in ((a, b, False), (b, a, True)):
                    if not lit.opaque and (self.env_source(lit) is None or (
                            not flipped and op in _NUMERIC and _INT_TEXT.fullmatch(lit.text))):
                        self.note_env_compare(op, ref, lit, flipped)
            return self.matched(compare(op, ops[0], ops[2], False, self.match_budget))
        return Cond(None)


def compare(op: str, left: Operand, right: Operand, pattern: bool, budget: Optional[Budget] = None) -> Cond:
    if op in ("=", "==", "!="):
        facts = string_facts(left, right, pattern)
        if left.known and right.known and not (_assumed_empty(left, right) or _assumed_empty(right, left)):
            if pattern:
                equal = Glob(right.t.text, right.mask, budget).fullmatch(left.t.text)  # None: over budget
            else:
                equal = left.t.text == right.t.text
            value = equal
        else:
            value = None
        cond = Cond(value, facts, ())
        return cond.negated() if op == "!=" else cond
    if op in _NUMERIC:
        if left.known and right.known and _INT_RE.fullmatch(left.t.text) and _INT_RE.fullmatch(right.t.text):
            return Cond(_NUMERIC[op](int(left.t.text), int(right.t.text)))
        return Cond(None)
    if op in ("<", ">"):
        if left.known and right.known:
            return Cond(left.t.text < right.t.text if op == "<" else left.t.text > right.t.text)
        return Cond(None)
    if op == "=~":
        if left.known and right.known:
            # POSIX ERE as bash's regcomp reads it, quoted characters literal;
            # None (unknown: both branches) beyond the step budget or for
            # constructs not modelled -- Python's re could backtrack forever
            return Cond(ere_search(right.t.text, right.mask, left.t.text, budget))
        return Cond(None)
    return Cond(None)


def _assumed_empty(ref: Operand, lit: Operand) -> bool:
    """``ref`` is empty only because a variable with no known value counted as unset (``ROLE=${ROLE:-}``)
    and is compared with a word: the environment decides the test, as for ``$ROLE`` with no default."""
    return not ref.t.text and bool(ref.unknown) and lit.literal and bool(lit.t.text)


def single_reference(unit, node) -> Optional[str]:
    """The variable name when ``node`` is exactly one plain reference
    (``$X``, ``${X}``, ``"$X"``, ``"${X}"``)."""
    if node.type == "string":
        named = [c for c in node.named_children]
        a, b = unit.start(node), unit.char(node.end_byte)
        if len(named) != 1 or node.named_children[0].type not in _REFS:
            return None
        child = named[0]
        if unit.start(child) != a + 1 or unit.char(child.end_byte) != b - 1:
            return None
        node = child
    if node.type not in _REFS:
        return None
    text = unit.source_text(node)
    if node.type == "simple_expansion":
        name = text[1:]
    else:
        m = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\}", text)
        if not m:
            return None
        name = m.group(1)
    return name if (name.isdigit() and name != "0") or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else None


def is_literal(unit, node) -> bool:
    """True when ``node`` contains no expansion at all."""
    if node.type in _EXPANDING:
        return False
    for _, _, child in special_parts(unit, node):
        if child.type in _EXPANDING or not is_literal(unit, child):
            return False
    return True


def bind(st, fact: Fact) -> None:
    """Make a fact true in ``st`` (the variable takes the literal's value)."""
    if fact.name is None or fact.value is None:
        return
    if fact.name.isdigit():
        i = int(fact.name)
        if st.positional is None:
            st.pos_bind[i] = Var(fact.value)
        elif 1 <= i <= len(st.positional):
            st.positional = st.positional[:i - 1] + (Var(fact.value),) + st.positional[i:]
        return
    st.vars[fact.name] = Var(fact.value)


__all__ = ["Cond", "Conditions", "Operand", "ROLE_WORDS", "bind", "compare", "cond_and", "cond_or", "role_of"]
