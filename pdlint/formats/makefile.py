"""Makefiles (``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``): each rule's recipe is a shell script.

A rule is a target line at column 0 (``serve-prefill: deps``) followed by recipe lines that start with a tab; each
recipe goes to the shell front-end with the target name as context (a target named ``prefill`` / ``decode`` is a
role hint, as a Justfile recipe's name).  What make does to a recipe line before the shell sees it is done here:

* the ``@`` / ``-`` / ``+`` prefixes are dropped;
* ``$(NAME)`` / ``${NAME}`` of a variable the file assigns (``=``, ``:=``, ``::=``, ``?=``, ``+=``; ``export`` and
  ``override`` too) is its value, expanded in turn and traced to its assignment; a variable the file does not assign
  comes from the environment (make imports it), so it is the shell's ``${NAME}``: a value pdlint cannot see unless
  the configuration gives it;
* ``$$`` is a ``$`` for the shell; ``$@`` is the target; ``$(if ...)`` / ``$(or ...)`` / ``$(and ...)`` are
  evaluated when the values they test are known (the file's, the configuration's: :func:`_function`); other automatic
  variables (``$<``), functions (``$(shell ...)``), substitution references (``$(X:.c=.o)``) and ``define`` blocks
  are values pdlint cannot see (a word :func:`placeholder` describes, never a variable to set);
* a logical recipe line (a backslash continuing it) is expanded as one text, so a reference continued over lines is
  one reference.

A rule with several targets (``prefill decode:``) runs its recipe once per target: one :class:`Rule` each, ``$@`` the
target's name where the rule line writes it, with the target's own variables (``prefill: PORT := 30000``).  A target's
variables are in effect for its prerequisites too (GNU make): ``decode: ROLE=decode`` + ``decode: serve`` makes
``make decode`` run ``serve``'s recipe with ROLE=decode, one more :class:`Rule` (``via``); so does a recipe line
``$(MAKE) serve ROLE=prefill`` (command-line variables win over the file's).  A recipe that reads a variable only such
runs give (``--tp $(TP)``, TP set per role target) is a helper: its plain ``make serve`` is not built (field test
rw22/a).
``include`` / ``-include`` give the variables of the files they name (read through a callback: pdlint's reader, inside
the repository; :data:`MAX_INCLUDE_DEPTH` deep).  Conditionals (``ifeq`` / ``ifneq`` / ``ifdef`` / ``ifndef``,
``else ifeq``) are evaluated with the file's values; one that tests a variable the file does not assign (``make
ROLE=prefill``) makes :func:`variants` read the file once per value the conditional compares it with and once with it
unset (field test rw18/p: both branches' assignments were merged, the last winning).  A branch pdlint cannot tell is
taken (nested too deep, a function in the test, too many variants) makes what it assigns a value pdlint cannot see.

``make NAME=value`` on the command line overrides any assignment: an assignment's value is what runs when nobody
does.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.records import dataclass
from pdlint.text import TStr, split_lines

NAMES = ("makefile", "gnumakefile")
_ASSIGN = lazyre.compile(r"^(?:(?:export|override)[ \t]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*(::=|:::=|:=|\?=|\+=|!=|=)[ \t]*")
_TARGET = lazyre.compile(r"^([^\s:=#][^:=#]*?)[ \t]*::?(?!=)")
_VARNAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
MAX_DEPTH = 8  # nested variable references followed
MAX_RULES = 2000


@dataclass
class Rule:
    target: str
    body: TStr  # the recipe, make's expansion done, positions in the Makefile
    line: int
    #: the invocation that runs this recipe with other values than ``make TARGET`` does: a target whose
    #: target-specific variables its prerequisites see (``make decode``, ``decode: ROLE=decode``, ``decode: serve``)
    #: or a recursive make call (``make serve ROLE=prefill``, from ``$(MAKE) serve ROLE=prefill`` in ``pd``'s recipe)
    via: str = ""
    root: str = ""  # the target that invocation names (``decode``), for its role hint


def is_makefile(name: str) -> bool:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.lower() in NAMES or base.lower().endswith(".mk")


def _strip_comment(value: TStr) -> TStr:
    """A variable's value ends at an unescaped ``#`` (make drops the comment and the blanks before it)."""
    text = value.text
    i = 0
    while True:
        i = text.find("#", i)
        if i < 0:
            break
        if i == 0 or text[i - 1] != "\\":
            value = value[:i]
            break
        i += 1
    end = len(value.text.rstrip())
    return value[:end]


def rules(doc: TStr, read: Optional[Callable] = None, given: Optional[dict] = None,
          assume: Optional[dict] = None) -> tuple:
    """``(rules, variables)`` of a Makefile: ``read(name)`` gives the text of an included file (None: not read),
    ``given`` the values pdlint knows of variables from outside the file (the configuration's), ``assume`` those of a
    variant (:func:`variants`)."""
    p = _Parser(read, given or {}, assume or {})
    p.feed(doc, 0)
    return p.finish(), p.variables


#: variables make sets itself (GNU make's own and its built-in rules' defaults)
_MAKE_OWN = frozenset("MAKE MAKEFLAGS MAKELEVEL MAKECMDGOALS CURDIR SHELL MAKEFILE_LIST .SHELLFLAGS AR AS CC CXX CPP "
                      "FC LD LEX YACC RM ARFLAGS ASFLAGS CFLAGS CXXFLAGS CPPFLAGS LDFLAGS LDLIBS".split())
#: `$(NAME)` / `${NAME}` of a make variable in a recipe line (a tab first)
_RECIPE_REF = lazyre.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")


def unset_refs(doc: TStr, variables: dict, given: dict) -> list:
    """The make variables recipe lines read (``$(NAME)``) that neither the Makefile, what it includes, nor
    ``given`` sets, sorted (automatic and make's own variables aside)."""
    out = set()
    for line in doc.text.split("\n"):
        if line.startswith("\t"):
            for m in _RECIPE_REF.finditer(line):
                name = m.group(1)
                if name not in variables and name not in given and name not in _MAKE_OWN:
                    out.add(name)
    return sorted(out)


def variants(doc: TStr, read: Optional[Callable] = None, given: Optional[dict] = None,
             left: Optional[list] = None, refused: Optional[list] = None) -> list:
    """``[(label, rules)]``: one entry per value of each variable from outside the file (``make ROLE=prefill``) that a
    conditional tests - the values it is compared with, and unset - at most :data:`MAX_VARIANTS`; ``label`` names the
    values (``ROLE=prefill``), empty when no conditional depends on such a variable.  ``left`` gets ``(runs not
    built, the invocation of the first, a word of it)`` of each reading whose bound runs were cut
    (:meth:`_Parser.bound_runs`); ``refused`` gets ``(name, word, names)`` of each required include not read
    when recipe lines read variables (``names``) that nothing read sets."""
    p = _Parser(read, given or {}, {})
    p.feed(doc, 0)
    first = p.finish()
    if left is not None and p.left is not None:
        left.append(p.left)
    if refused is not None and p.refused:  # (names make's reading left unset: those a refused include may set)
        unset = unset_refs(doc, p.variables, given or {})
        refused.extend((n, word, unset) for n, word in p.refused if unset)
    if not p.wanted:
        return [("", first)]
    combos: list = [{}]
    for name, values in p.wanted.items():  # in the order the file tests them
        grown = [{**c, name: v} for c in combos for v in list(values.values())[:MAX_VALUES] + [_UNSET]]
        if len(grown) > MAX_VARIANTS:
            break
        combos = grown
    built = []  # (label, rule)
    for c in combos:
        q = _Parser(read, given or {}, c)
        q.feed(doc, 0)
        label = ", ".join(f"{k} unset" if v[2] == "unset" else f"{k} defined" if v[2] == "defined" else f"{k}={v[0]}"
                          for k, v in c.items())
        built.extend((label, r) for r in q.finish())
        if left is not None and q.left is not None and q.left not in left:
            left.append(q.left)
    # a recipe the conditionals do not change is one launch, not one per variant (`ifeq ($(DEBUG),1)` elsewhere)
    seen: dict = {}  # (target, line) -> [recipe keys]
    kept = []
    for label, r in built:
        key = (r.body.text, tuple((p.start, p.end, p.offset, p.src is not None and p.src.path) for p in r.body.pieces))
        keys = seen.setdefault((r.target, r.line), [])
        if key not in keys:
            keys.append(key)
            kept.append((label, r))
    return [("" if len(seen[(r.target, r.line)]) == 1 else label, [r]) for label, r in kept]


_UNSET = ("", None, "unset")  # a variant's value of a variable: (text, where it is written, kind)
_DEFINED = ("", None, "defined")  # `ifdef NAME` taken: a value pdlint cannot see
_COND = lazyre.compile(r"^ *(ifeq|ifneq|ifdef|ifndef)(?![A-Za-z0-9_.-])[ \t]*")
_ELSE = lazyre.compile(r"^ *else(?![A-Za-z0-9_.-])[ \t]*")
_ENDIF = lazyre.compile(r"^ *endif(?![A-Za-z0-9_.-])")
_INCLUDE = lazyre.compile(r"^ *(?:-include|sinclude|include)[ \t]+")
MAX_COND_DEPTH = 16  # nested conditionals evaluated; deeper ones are unknown
MAX_VARIANTS = 4  # variants of a Makefile built for the values of variables from the make command line
MAX_VALUES = 3  # values of one such variable (besides unset)
MAX_INCLUDE_DEPTH = 4
MAX_INCLUDES = 32
MAX_LINES = 200000  # lines read in all (the Makefile and what it includes)
MAX_STEPS = 20000  # references expanded to evaluate the conditionals of one reading
MAX_TEST = 4096  # characters of a conditional's test (or a value it expands to) evaluated
MAX_EXPANSION = 20000  # references expanded in one recipe


class _Unknown(Exception):
    pass


class _Parser:
    """make's reading of a Makefile: assignments, conditionals, includes and rules, in order."""

    def __init__(self, read, given: dict, assume: dict):
        self.read, self.given, self.assume = read, given, assume
        self.left = None  # (bound runs not built, the invocation of the first, a word of it): bound_runs
        self.variables: dict = {}  # NAME -> TStr (None: a value pdlint cannot see)
        self.target_vars: dict = {}  # target -> [(name, op, value)]
        self.prereqs: dict = {}  # target -> [prerequisite as written]
        self.raw: list = []  # (targets [(name, TStr)], grouped, [recipe line TStr], line)
        self.wanted: dict = {}  # variable from outside the file -> {value: (text, TStr)} a conditional compares
        self.untaken: set = set()  # variables assigned only in branches not taken
        self.includes = 0
        self.refused: list = []  # (name, word naming it) of each required include not read
        self.lines_read = 0
        self.steps = 0  # references expanded to evaluate conditionals
        self.oneshell = False  # `.ONESHELL:`: a recipe's lines run in one shell (else each line in its own)

    # -- reading ----------------------------------------------------------------
    def feed(self, doc: TStr, depth: int) -> None:
        text = doc.text
        lines, offsets = split_lines(text)
        stack: list = []  # [current branch: True / False / None (unknown), a branch taken: True / False / None]
        rule = None  # the rule whose recipe is being read
        i = 0
        while i < len(lines) and len(self.raw) < MAX_RULES and self.lines_read < MAX_LINES:
            self.lines_read += 1
            line = lines[i]
            j = i  # a logical line: a backslash at the end continues it
            while lines[j].endswith("\\") and j + 1 < len(lines):
                j += 1
            logical = doc[offsets[i]:offsets[j] + len(lines[j])]
            state = _state(stack)
            if line.startswith("\t") and rule is not None:
                if state is not False:
                    rule[2].append(logical)
                    rule[2].append(doc[offsets[j] + len(lines[j]):offsets[j] + len(lines[j]) + 1] or
                                   TStr.synthetic("\n", "<make>"))
                i = j + 1
                continue
            if line.startswith("\t") or not line.strip() or line.lstrip().startswith("#"):
                i = j + 1
                continue
            m = _COND.match(line)
            if m:
                if state is False:
                    stack.append([False, True])
                elif len(stack) >= MAX_COND_DEPTH:
                    stack.append([None, None])
                else:
                    t = self.test(m.group(1), _strip_comment(logical[m.end():]))
                    stack.append([t, t])
                i = j + 1
                continue
            m = _ELSE.match(line)
            if m and stack:
                frame = stack[-1]
                outer = _state(stack[:-1])
                rest = _strip_comment(logical[m.end():])
                c = _COND.match(rest.text)
                if frame[1] is True or outer is False:
                    frame[0] = False
                elif c and len(stack) > MAX_COND_DEPTH:
                    frame[0], frame[1] = None, None
                elif c:
                    t = self.test(c.group(1), rest[c.end():])
                    if frame[1] is False:
                        frame[0], frame[1] = t, t
                    else:
                        frame[0] = False if t is False else None
                        frame[1] = True if t is True else None
                else:
                    frame[0] = True if frame[1] is False else None
                    frame[1] = True if frame[1] is False else None
                i = j + 1
                continue
            if _ENDIF.match(line):
                if stack:
                    stack.pop()
                i = j + 1
                continue
            rule = None
            if line.startswith("define") and re.match(r"define[ \t]+([A-Za-z_][A-Za-z0-9_.-]*)", line):
                name = re.match(r"define[ \t]+([A-Za-z_][A-Za-z0-9_.-]*)", line).group(1)
                if state is not False:
                    self.variables[name] = None
                while i < len(lines) and not lines[i].startswith("endef"):
                    i += 1
                i += 1
                continue
            if state is False:
                m = _ASSIGN.match(line)
                if m and len(self.untaken) < MAX_RULES:  # assigned in a branch make does not take: empty
                    self.untaken.add(m.group(1))
                i = j + 1
                continue
            m = _INCLUDE.match(line)
            if m:
                self.include(_strip_comment(logical[m.end():]), depth, m.group().strip() == "include")
                i = j + 1
                continue
            m = _ASSIGN.match(line)
            if m:
                value = _strip_comment(logical[m.end():])
                self.assign(self.variables, m.group(1), m.group(2), value, state is None)
                i = j + 1
                continue
            t = _TARGET.match(line)
            if t:
                targets = _words(logical[:t.end(1)])
                if any(name == ".ONESHELL" for name, _ in targets) and state is not False:
                    self.oneshell = True
                grouped = bool(targets) and targets[-1][0] == "&"
                if grouped:
                    targets = targets[:-1]
                rest = logical[t.end():]
                a = _ASSIGN.match(rest.text.lstrip(" \t"))
                if a and not rest.text.lstrip(" \t").startswith(("|", ";")):  # `target: VAR := value`
                    k = len(rest.text) - len(rest.text.lstrip(" \t"))
                    value = _strip_comment(rest[k + a.end():])
                    for name, _ in targets:
                        self.target_vars.setdefault(name, []).append((a.group(1), a.group(2), value, state is None))
                elif depth == 0 and targets:
                    rule = (targets, grouped, [], i + 1)
                    self.raw.append(rule)
                    semi = rest.text.find(";")  # `target: deps ; recipe` (not in a `## help` comment before it)
                    hash_at = rest.text.find("#")
                    if 0 <= hash_at < semi:
                        semi = -1
                    deps = rest.text[:semi if semi >= 0 else hash_at if hash_at >= 0 else len(rest.text)]
                    for name, _ in targets:  # its prerequisites (order-only ones too: make builds them first)
                        for dep in deps.split():
                            if dep != "|" and len(self.prereqs) < MAX_RULES:
                                self.prereqs.setdefault(name, []).append(dep)
                    if semi >= 0 and rest.text[semi + 1:].strip():
                        rule[2].append(rest[semi + 1:])
                        rule[2].append(TStr.synthetic("\n", "<make>"))
            i = j + 1

    def include(self, names: TStr, depth: int, required: bool = False) -> None:
        """``required``: an ``include`` (not ``-include`` / ``sinclude``) - a file it names that is not read is
        recorded in :attr:`refused` with the word that names it."""
        if self.read is None or depth >= MAX_INCLUDE_DEPTH:
            return
        for word, at in _words(names):
            try:
                name = self.text_of(word, 0)
            except _Unknown:
                continue
            for n in name.split():
                if self.includes >= MAX_INCLUDES or any(c in n for c in "*?["):
                    continue
                self.includes += 1
                sub = self.read(n)
                if sub is not None:
                    self.feed(sub, depth + 1)
                elif required and len(self.refused) < MAX_INCLUDES:
                    self.refused.append((n, at))

    @staticmethod
    def assign(variables: dict, name: str, op: str, value: TStr, unknown: bool) -> None:
        if op in (":=", "::=", ":::=") and not unknown and "$" in value.text:
            # simply expanded: the value's references are expanded now (`E := sgl`, `E := $(E)ang` is `sglang`;
            # read later, the self-reference was a value pdlint cannot see: rw26/h notes)
            value = _expand(value, variables, 0)
        if unknown or op == "!=":  # a branch pdlint cannot tell is taken; the output of a shell command
            variables[name] = None
        elif op == "+=":
            if variables.get(name) is not None:
                variables[name] = TStr.join([variables[name], TStr.synthetic(" ", "<+=>"), value])
            elif name not in variables:
                variables[name] = value
        elif op == "?=":
            variables.setdefault(name, value)
        else:
            variables[name] = value

    # -- conditionals -----------------------------------------------------------
    def test(self, kind: str, args: TStr) -> Optional[bool]:
        """Whether a conditional's branch is taken: None when pdlint cannot tell."""
        try:
            if kind in ("ifdef", "ifndef"):
                name = self.text_of(args.text.strip(), 0).strip()
                if not _VARNAME.fullmatch(name):
                    return None
                defined = self.defined(name, args)
                return None if defined is None else defined == (kind == "ifdef")
            pair = _pair(args)
            if pair is None:
                return None
            for a, b in (pair, pair[::-1]):  # `ifeq ($(ROLE),prefill)`: ROLE from the make command line
                r = re.fullmatch(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]", a.text.strip())
                if r and "$" not in b.text and r.group(1) not in self.variables and r.group(1) not in self.given \
                        and r.group(1) not in self.assume:
                    k = len(b.text) - len(b.text.lstrip())
                    lit = b[k:k + len(b.text.strip())]
                    self.wanted.setdefault(r.group(1), {}).setdefault(lit.text, (lit.text, lit, "value"))
            same = self.text_of(pair[0].text, 0).strip() == self.text_of(pair[1].text, 0).strip()
            return same == (kind == "ifeq")
        except _Unknown:
            return None

    def defined(self, name: str, at: TStr) -> Optional[bool]:
        if name in self.variables:
            v = self.variables[name]
            return None if v is None else bool(v.text.strip())
        if name in self.given:
            return bool(self.given[name].strip())
        if name in self.assume:
            return self.assume[name][2] != "unset"
        self.wanted.setdefault(name, {}).setdefault("", _DEFINED)
        raise _Unknown

    def text_of(self, text: str, depth: int) -> str:
        """The value of a text as make expands it; :class:`_Unknown` when it depends on a value pdlint cannot see."""
        self.steps += 1
        if depth >= MAX_DEPTH or self.steps > MAX_STEPS or len(text) > MAX_TEST:
            raise _Unknown
        out, last = [], 0
        for a, b, inner in _refs(text):
            out.append(text[last:a])
            last = b
            if inner == "$" and b - a == 2:
                out.append("$")
                continue
            name = (inner or "").strip()
            if inner is not None and b - a > 2 and _CONDITIONAL.match(inner):
                # `ifeq ($(or $(ROLE),decode),prefill)`: make's `$(if)` / `$(or)` / `$(and)` as a recipe's are
                # (stop 48's left item from w30); a value a variant takes only as set is no text to compare
                left = [MAX_STEPS - self.steps]
                try:
                    value = _known_text(text[a:b], self.variables, {}, self, depth + 1, left)
                finally:
                    self.steps = MAX_STEPS - left[0]  # (one budget: each reference it reads is a step)
                if _DEFINED_TEXT in value:
                    raise _Unknown
                out.append(value)
                continue
            if inner is None or b - a <= 2 or not _VARNAME.fullmatch(name):
                raise _Unknown
            if name in self.variables:
                if self.variables[name] is None:
                    raise _Unknown
                out.append(self.text_of(self.variables[name].text, depth + 1))
            elif name in self.given:
                out.append(self.given[name])
            elif name in self.assume:
                if self.assume[name][2] == "defined":
                    raise _Unknown
                out.append(self.assume[name][0])
            else:  # from outside the file
                raise _Unknown
        out.append(text[last:])
        return "".join(out)

    # -- rules ------------------------------------------------------------------
    def finish(self) -> list:
        base = dict(self.variables)
        for name in sorted(self.untaken - set(base) - set(self.given) - set(self.assume)):
            base[name] = TStr.synthetic("", "<make: assigned in a branch not taken>")
        for name, v in self.assume.items():  # `make ROLE=prefill`: the value, at the conditional that compares it
            if v[1] is not None:
                base[name] = v[1]
        recipes: list = []  # (target, its name where written, grouped, recipe as written, line)
        for targets, grouped, body, line in self.raw:
            if not body:
                continue
            body = TStr.join(body)
            for name, tok in (targets[:1] if grouped else targets):
                recipes.append((name, tok, grouped, body, line))
        bound = self.bound_runs(recipes, base)
        helpers = {k for k, (names, _) in bound.items() if names}
        out = []
        for k, (name, tok, grouped, body, line) in enumerate(recipes):
            if k not in helpers:
                out.append(Rule(name, _recipe(body, self.chain_variables(base, (name,), {}),
                                              {} if grouped else {"@": tok}, self.oneshell, self), line))
        for k, (_, runs) in sorted(bound.items()):
            name, tok, grouped, body, line = recipes[k]
            for via, root, recipe in runs:
                out.append(Rule(name, recipe, line, via, root))
        return out

    def chain_variables(self, base: dict, chain: tuple, overrides: dict) -> dict:
        """The variables a recipe of ``chain[-1]`` sees when make builds it for ``chain[0]`` through the
        prerequisites ``chain`` (GNU make: a target's target-specific variables are in effect for its prerequisites,
        a prerequisite's own win), ``overrides`` from the make command line winning over all."""
        if not overrides and not any(self.target_vars.get(t) for t in chain):
            return base
        variables = dict(base)
        for t in chain:
            for var, op, value, unknown in self.target_vars.get(t, ()):
                if var not in overrides:
                    self.assign(variables, var, "=" if op == "+=" and var not in variables else op, value, unknown)
        variables.update(overrides)
        return variables

    def bound_runs(self, recipes: list, base: dict) -> dict:
        """The recipes make runs with other values than ``make TARGET`` gives them: reached through the
        prerequisites of a target with target-specific variables (``decode: ROLE=decode``, ``decode: serve``: ``make
        decode`` runs ``serve``'s recipe with ROLE=decode), or named by a recursive make call with variables
        (``$(MAKE) serve ROLE=prefill``).  ``{recipe index: (variables only such runs give it that the recipe
        reads, [(invocation, target it names, recipe expanded)])}``; a run whose recipe is the plain one's is none.
        The plain ``make TARGET`` of a recipe that reads a variable only such runs give (a helper target) is not
        built.  At most :data:`MAX_BOUND` runs, :data:`MAX_CHAIN` prerequisites deep, :data:`MAX_BOUND_STEPS` targets
        visited."""
        by_target: dict = {}
        for k, r in enumerate(recipes):
            by_target.setdefault(r[0], []).append(k)
        starts: list = []  # (invocation, root target, overrides)
        for root, assigns in self.target_vars.items():
            if root in self.prereqs and any(not unknown for _, _, _, unknown in assigns):
                starts.append((f"make {root}", root, {}))
        for k, (name, _, _, body, _) in enumerate(recipes):
            for call in _make_calls(body, self.default_goal()):
                targets, overrides, words = call
                for t in targets:
                    starts.append((f"make {' '.join([t] + words)} (in make {name})", t, overrides))
        from pdlint.formats.choose import most_varied
        found: list = []  # (recipe index, via, root, recipe, names read, values read, a word of the invocation)
        seen: set = set()
        count = 0
        plain: dict = {}
        steps = 0
        for via, root, overrides in starts:
            stack = [(root,)]
            at = next((v for v in overrides.values() if v is not None), None)
            while stack and count < MAX_BOUND_SEEN and steps < MAX_BOUND_STEPS:
                steps += 1
                chain = stack.pop()
                t = chain[-1]
                if len(chain) < MAX_CHAIN:
                    stack.extend(chain + (d,) for d in reversed(self.prereqs.get(t, ())) if d not in chain)
                if len(chain) == 1 and not overrides:
                    continue  # (the root's own recipe with its own variables: the plain run)
                for k in by_target.get(t, ()):
                    name, tok, grouped, body, line = recipes[k]
                    auto = {} if grouped else {"@": tok}
                    variables = self.chain_variables(base, chain, overrides)
                    recipe = _recipe(body, variables, auto, self.oneshell, self)
                    if k not in plain:
                        plain[k] = _key(_recipe(body, self.chain_variables(base, (name,), {}), auto, self.oneshell,
                                                self))
                    key = _key(recipe)
                    if key == plain[k] or (k, key) in seen:
                        continue
                    seen.add((k, key))
                    count += 1
                    reads = {inner.strip() for _, _, inner in _refs(body.text) if inner}
                    names = {n for n in reads if n in variables and n not in base and n not in self.given}
                    values = {(n, getattr(variables.get(n), "text", None)) for n in reads if n in variables}
                    found.append((k, via, root, recipe, names, values | {("", t)}, at))
        keep = most_varied([f[5] for f in found], MAX_BOUND)  # (the runs bringing the most values, first)
        if len(keep) < len(found):
            kept = set(keep)
            dropped = [f for i, f in enumerate(found) if i not in kept]
            self.left = (len(dropped) if count < MAX_BOUND_SEEN else f"{len(dropped)} or more", dropped[0][1],
                         dropped[0][6])
        out: dict = {}
        for i in keep:
            k, via, root, recipe, names, _, _ = found[i]
            got, runs = out.setdefault(k, (set(), []))
            runs.append((via, root, recipe))
            got.update(names)
        return out

    def default_goal(self) -> Optional[str]:
        """The target ``make`` builds when given none: the first one not starting with ``.``."""
        for targets, _, _, _ in self.raw:
            for name, _ in targets:
                if not name.startswith("."):
                    return name
        return None


MAX_BOUND = 32  # recipes built with the variables of a target or a recursive make call, per reading
MAX_BOUND_SEEN = 512  # such runs the ones built are chosen from (those bringing the most values: choose.most_varied)
MAX_CHAIN = 8  # prerequisites followed deep
MAX_BOUND_STEPS = 2000  # targets visited following prerequisites, per reading
#: a recipe line that runs make again (``$(MAKE) serve ROLE=prefill &``, ``@make -s decode TP=4``)
_MAKE_CALL = lazyre.compile(r"^\t?[@+\- \t]*(?:\$\(MAKE\)|\$\{MAKE\}|make)[ \t]+(.*)$", re.M)
_CALL_ASSIGN = lazyre.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)=(.*)", re.S)
_CALL_END = frozenset(("&", "&&", ";", "||", "|", ">", ">>", "2>&1", "\\"))


def _key(t: TStr) -> tuple:
    return t.text, tuple((p.start, p.end, p.offset, p.opaque, p.src is not None and p.src.path) for p in t.pieces)


def _make_calls(body: TStr, default: Optional[str]) -> list:
    """``(targets, {NAME: value TStr or None}, words)`` of each recursive make call a recipe (as written) makes at
    the start of a line: ``$(MAKE) serve ROLE=prefill BACKEND=nixl &``.  A call with ``-C`` / ``-f`` (another
    Makefile) is not one of this file; a value with a reference in it is one pdlint cannot see (None)."""
    out = []
    for m in _MAKE_CALL.finditer(body.text):
        targets, overrides, words, other = [], {}, [], False
        pos = m.start(1)
        skip_number = False
        for w in re.finditer(r"\S+", m.group(1)):
            text = w.group(0)
            if text in _CALL_END or text.endswith(("&", ";")) and not _CALL_ASSIGN.fullmatch(text):
                break
            if skip_number and text.isdigit():
                skip_number = False
                continue
            skip_number = False
            if text.startswith("-"):
                if text in ("-C", "-f", "--file", "--makefile", "--directory") or text.startswith(
                        ("-C", "-f", "--file=", "--makefile=", "--directory=")) and text != "-f":
                    other = True
                    break
                skip_number = text in ("-j", "-l", "--jobs", "--load-average")
                continue
            a = _CALL_ASSIGN.fullmatch(text)
            tok = body[pos + w.start():pos + w.end()]
            if a:
                value = tok[a.start(2):]
                v = value.text
                if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                    value = value[1:-1]
                overrides[a.group(1)] = None if "$" in value.text else value
                words.append(text)
            elif "$" not in text and "=" not in text:
                targets.append(text)
                words.append(text)
            else:
                other = True
                break
        if other or not overrides:
            continue  # (no variables: `$(MAKE) decode` runs decode as `make decode` does)
        if not targets and default:
            targets = [default]
        out.append((targets, overrides, [x for x in words if "=" in x]))
    return out[:MAX_BOUND_SEEN]


def _state(stack: list) -> Optional[bool]:
    """Whether the lines here are read: False in a branch not taken, None in one pdlint cannot tell."""
    state = True
    for frame in stack:
        if frame[0] is False:
            return False
        if frame[0] is None:
            state = None
    return state


def _pair(args: TStr) -> Optional[tuple]:
    """The two arguments of ``ifeq (a,b)`` / ``ifeq "a" "b"`` / ``ifeq 'a' 'b'``."""
    text = args.text.strip()
    if len(text) > MAX_TEST:
        return None
    k = len(args.text) - len(args.text.lstrip())
    args = args[k:k + len(text)]
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, c in enumerate(text[:-1]):
            if c in "({":
                depth += 1
            elif c in ")}":
                depth -= 1
            elif c == "," and depth == 1:
                return args[1:i], args[i + 1:len(text) - 1]
        return None
    m = re.fullmatch(r"""(["'])(.*?)\1[ \t]+(["'])(.*)\3""", text)
    if m:
        return args[m.start(2):m.end(2)], args[m.start(4):m.end(4)]
    return None


def _words(s: TStr) -> list:
    return [(s[m.start():m.end()].text, s[m.start():m.end()]) for m in re.finditer(r"\S+", s.text)]


_OPEN = TStr.synthetic("(\n", "<make: the line's own shell>")
_CLOSE = TStr.synthetic("\n)\n", "<make: the line's own shell>")


def _recipe(body: TStr, variables: dict, auto: Optional[dict] = None, oneshell: bool = True, ctx=None) -> TStr:
    """The recipe as the shell gets it: each line's tab and ``@``/``-``/``+`` prefixes dropped, make's references
    expanded.  Without ``oneshell`` (GNU make's default, no ``.ONESHELL:``) each line (with the lines a backslash
    continues it onto) runs in a shell of its own: it is given as a subshell ``( ... )``, so a variable one line
    sets, a ``cd`` or a function is not there on the next (hostile-input round rw27/h item P10: ``TP=2`` on one
    recipe line was read as set for ``--tp-size $$TP`` on the next, where make passes no value)."""
    parts = []
    text = body.text
    budget = [MAX_EXPANSION]
    lines = text.split("\n")
    starts = []
    pos = 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1
    wrap = not oneshell and sum(1 for ln in lines if ln.strip() and not ln.endswith("\\")) > 1
    n = 0
    while n < len(lines):
        last = n  # the logical line: lines[n..last], a backslash at the end continuing each onto the next
        while lines[last].endswith("\\") and last + 1 < len(lines):
            last += 1
        # make expands the logical line as one text, the tab that starts each continuation line dropped: a
        # reference continued onto the next line (`$(shell go list ./... | \` + `grep -v /vendor) \`) is one
        # reference, its `)` there make's, not the shell's (field test rw31/a item 4: a false PD009 and a launch
        # split at the `|` inside the function)
        segs = []
        for i in range(n, last + 1):
            k, end = starts[i], starts[i] + len(lines[i])
            if text.startswith("\t", k):
                k += 1
            while i == n and k < end and text[k] in "@-+ \t":  # (a continuation line keeps its words)
                k += 1
            segs.append(body[k:end])
            if i < last:
                segs.append(body[end:end + 1])
        # a logical line of comments only runs nothing: as `( # note )` it would be an empty subshell, which
        # bash refuses (a false PD009 at the added text, rw30/a problem 1; a comment's `\` continues make's
        # line, not the comment: llm-d-inference-scheduler's Makefile.cluster.mk, `# @if ...; then \`)
        alone = wrap and _comments_only(lines, n)
        if wrap and not alone and lines[n].strip():
            parts.append(_OPEN)
        parts.append(_expand(TStr.join(segs), variables, 0, auto or {}, budget, ctx=ctx))
        end = starts[last] + len(lines[last])
        if wrap and not alone and not lines[last].endswith("\\") and (last > n or lines[last].strip()):
            parts.append(_CLOSE)
        else:
            parts.append(body[end:end + 1])
        n = last + 1
    return TStr.join(parts)


def _comments_only(lines: list, n: int) -> bool:
    """Does the logical recipe line that starts at ``lines[n]`` (with the lines a backslash continues it onto)
    hold only shell comments and blanks?"""
    for i in range(n, len(lines)):
        ln = lines[i]
        words = (ln[1:] if ln.startswith("\t") else ln).lstrip("@-+ \t" if i == n else " \t")
        if words.strip() and not words.startswith("#"):
            return False
        if not ln.endswith("\\"):
            break
    return True


def _refs(text: str):
    """``(start, end, inner)`` of each make reference in ``text``: ``inner`` is the text between balanced parentheses
    or braces (``$(if $(wildcard $(F)),a,b)`` is one reference), ``"$"`` for ``$$``, the character of a one-character
    reference (``$@``), or None for an unclosed one (to the end of the text)."""
    i, n = 0, len(text)
    while True:
        i = text.find("$", i)
        if i < 0 or i + 1 >= n:
            return
        c = text[i + 1]
        if c not in "({":
            yield i, i + 2, "$" if c == "$" else c
            i += 2
            continue
        close = ")" if c == "(" else "}"
        depth, j = 0, i + 1
        while j < n:
            if text[j] == c:
                depth += 1
            elif text[j] == close:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= n:
            yield i, n, None
            return
        yield i, j + 1, text[i + 2:j]
        i = j + 1


def _expand(s: TStr, variables: dict, depth: int, auto: Optional[dict] = None, budget: Optional[list] = None,
            active: frozenset = frozenset(), ctx=None) -> TStr:
    auto = auto or {}
    budget = budget if budget is not None else [MAX_EXPANSION]
    parts, last = [], 0
    for a, b, inner in _refs(s.text):
        parts.append(s[last:a])
        ref = s[a:b]
        budget[0] -= 1
        if budget[0] < 0:  # (hostile input: values that reference each other many times over)
            parts.append(_opaque_word(ref, inner))
            last = b
            continue
        if inner == "$" and b - a == 2:  # `$$`: one `$` for the shell
            parts.append(ref[1:])
        elif inner is not None and inner.strip() in auto:  # `$@` of a rule: the target, where the rule names it
            parts.append(auto[inner.strip()])
        elif inner is not None and b - a > 2 and _VARNAME.fullmatch(inner.strip()):
            name = inner.strip()
            if name in variables:
                value = variables[name]
                # (a variable that references itself, `A = $(A)$(A)`: make stops, "Recursive variable 'A'
                # references itself"; one word naming it, not 2^8 of them, field test rw20/h)
                parts.append(_opaque_word(ref, name=name) if value is None or depth >= MAX_DEPTH or name in active
                             else _expand(value, variables, depth + 1, auto, budget, active | {name}, ctx))
            else:  # from the environment make imports: the shell's variable of that name
                p = ref.pieces[0] if ref.pieces else None
                parts.append(TStr.at("${" + name + "}", p.src, p.offset, p.chain, label=p.label) if p is not None
                             else TStr.synthetic("${" + name + "}", "<make variable>"))
        else:  # an automatic variable, a function, a substitution reference
            got = None
            if inner is not None and b - a > 2 and depth < MAX_DEPTH:
                got = _function(ref, inner, variables, depth, auto, budget, active, ctx)
            parts.append(got if got is not None else _opaque_word(ref, inner))
        last = b
    parts.append(s[last:])
    return TStr.join(parts)


#: the make functions pdlint evaluates when the values they test are known (GNU make's manual, "Functions for
#: Conditionals"): ``$(if COND,THEN[,ELSE])``, ``$(or A,B,...)``, ``$(and A,B,...)``
_CONDITIONAL = lazyre.compile(r"(if|or|and)[ \t]+")
_DEFINED_TEXT = "\0"  # the text of a variable a variant takes as set: not empty, its value unknown


def _arguments(inner: str, start: int, most: int = 0) -> list:
    """``(start, end)`` in ``inner`` of each comma-separated argument of a function from ``start`` (a comma inside
    nested parentheses or braces is the inner reference's); at most ``most`` (the last keeps the commas after)."""
    out, depth, begin = [], 0, start
    for i in range(start, len(inner)):
        c = inner[i]
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0 and (not most or len(out) < most - 1):
            out.append((begin, i))
            begin = i + 1
    out.append((begin, len(inner)))
    return out


def _function(ref: TStr, inner: str, variables: dict, depth: int, auto: dict, budget: list, active: frozenset,
              ctx) -> Optional[TStr]:
    """``$(if ...)`` / ``$(or ...)`` / ``$(and ...)`` at ``ref`` as make expands it, when the arguments it tests
    have values pdlint knows (the Makefile's, the configuration's, a variant's): the argument make returns,
    expanded, at its place in the Makefile.  None (a value pdlint cannot see) for another function or a test that
    reads a value pdlint does not have (field test rw31/a item 2: each was the placeholder word ``make-if`` /
    ``make-or``, which PD023's help asked the user to set with ``--var``).  GNU make strips the blanks around each
    tested argument before expanding it; the test is whether the expansion is empty."""
    m = _CONDITIONAL.match(inner)
    if not m:
        return None
    fn = m.group(1)
    args = [ref[2 + x:2 + y] for x, y in _arguments(inner, m.end(), 3 if fn == "if" else 0)]
    if fn == "if" and len(args) < 2:  # (make: "insufficient number of arguments")
        return None

    def stripped(t: TStr) -> TStr:
        k = len(t.text) - len(t.text.lstrip())
        return t[k:k + len(t.text.strip())]

    def expand(t: TStr) -> TStr:
        return _expand(t, variables, depth + 1, auto, budget, active, ctx)

    try:
        if fn == "if":
            cond = stripped(args[0])
            if cond.text and _known_text(cond.text, variables, auto, ctx, depth + 1, budget):
                return expand(args[1])
            return expand(args[2]) if len(args) > 2 else ref[:0]
        chosen = None
        for t in args:
            t = stripped(t)
            empty = not t.text or not _known_text(t.text, variables, auto, ctx, depth + 1, budget)
            if fn == "or" and not empty:
                return expand(t)
            if fn == "and":
                if empty:
                    return ref[:0]
                chosen = t
        return expand(chosen) if chosen is not None else ref[:0]
    except _Unknown:
        return None


def _known_text(text: str, variables: dict, auto: dict, ctx, depth: int, budget: list) -> str:
    """What make expands ``text`` to, when pdlint knows it (a variable a variant takes as set stands as
    :data:`_DEFINED_TEXT`: only whether a text is empty is read); :class:`_Unknown` otherwise.  Each reference
    read spends one of the recipe's ``budget`` (hostile input: tests that read each other many times over)."""
    if depth >= MAX_DEPTH or len(text) > MAX_TEST:
        raise _Unknown
    out, last = [], 0
    for a, b, inner in _refs(text):
        out.append(text[last:a])
        last = b
        budget[0] -= 1
        if budget[0] < 0:
            raise _Unknown
        if inner == "$" and b - a == 2:
            out.append("$")
            continue
        if inner is None:
            raise _Unknown
        name = inner.strip()
        if name in auto:
            out.append(auto[name].text)
        elif b - a > 2 and _VARNAME.fullmatch(name):
            given = getattr(ctx, "given", {})
            assume = getattr(ctx, "assume", {})
            if name in variables:
                if variables[name] is None:
                    raise _Unknown
                out.append(_known_text(variables[name].text, variables, auto, ctx, depth + 1, budget))
            elif name in given:
                out.append(given[name])
            elif name in assume:
                out.append(_DEFINED_TEXT if assume[name][2] == "defined" else assume[name][0])
            else:  # from the environment, not given
                raise _Unknown
        elif b - a > 2 and _CONDITIONAL.match(inner):
            fn = _CONDITIONAL.match(inner).group(1)
            args = [inner[x:y] for x, y in _arguments(inner, _CONDITIONAL.match(inner).end(), 3 if fn == "if" else 0)]
            if fn == "if" and len(args) < 2:
                raise _Unknown
            value = ""
            if fn == "if":
                cond = args[0].strip()
                if cond and _known_text(cond, variables, auto, ctx, depth + 1, budget):
                    value = _known_text(args[1], variables, auto, ctx, depth + 1, budget)
                elif len(args) > 2:
                    value = _known_text(args[2], variables, auto, ctx, depth + 1, budget)
            else:
                for t in args:
                    t = t.strip()
                    value = _known_text(t, variables, auto, ctx, depth + 1, budget) if t else ""
                    if bool(value) == (fn == "or"):
                        break
            out.append(value)
        else:  # another function, an automatic variable of no rule here, a substitution reference
            raise _Unknown
    out.append(text[last:])
    return "".join(out)


def _opaque_word(ref: TStr, inner: Optional[str] = None, name: Optional[str] = None) -> TStr:
    """A value pdlint cannot see, at ``ref``, spelt as one shell word naming what make computes there (``make-if``,
    ``make-shell``, ``make-var``, ``make-var-NAME``: the reference's own text may hold blanks or parentheses)."""
    what = re.match(r"[A-Za-z0-9_-]+", (inner or "").strip())
    word = "make-" + (what.group(0) if what and inner and not _VARNAME.fullmatch(inner.strip()) else "var")
    if name and re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        word = f"make-var-{name}"
    if not ref.pieces:
        return TStr.synthetic(word, "<make expansion>", opaque=True)
    p = ref.pieces[0]
    return TStr.at(word, p.src, p.offset, p.chain, opaque=True, label=p.label)


def role_hint(target: str) -> Optional[str]:
    from pdlint.formats import crd
    from pdlint.render.jinja import ROLE_SYNONYMS
    return ROLE_SYNONYMS.get(target.lower()) or crd.role_of_name(target)


@dataclass
class Placeholder:
    """What a word :func:`_opaque_word` made stands for: ``text`` the reference as the Makefile writes it
    (``$(if $(TP),--tp $(TP),)``), ``function`` its make function ("" for a variable), ``variable`` the variable
    whose value pdlint cannot compute (``make-var-NAME``), ``reads`` the variables the reference reads by name."""

    text: str
    function: str = ""
    variable: str = ""
    reads: tuple = ()

    def hint(self) -> str:
        """What a user does about it: never "give ``make-if`` a value" - that word is pdlint's, no ``--var`` sets it
        (field test rw31/a item 2)."""
        literal = "or write the flags it adds into the recipe as literal words"
        if self.function in ("if", "or", "and") and self.reads:
            given = " ".join(f"`--var {n}=VALUE`" for n in self.reads[:3]) + (" ..." if len(self.reads) > 3 else "")
            return (f"pdlint evaluates make's `$({self.function} ...)` when it knows the values it tests: give "
                    f"{'the variable' if len(self.reads) == 1 else 'the variables'} it reads from the make command "
                    f"line or the environment as {given} (an empty string when unset) or in `[tool.pdlint.vars]`, "
                    f"{literal}")
        if self.function:
            return f"pdlint does not run make's `$({self.function} ...)`, nor what it tests: write what it adds " \
                   f"into the recipe as literal words"
        if self.variable:
            return (f"make sets {self.variable} in a way pdlint does not compute (`!=`, `define`, a conditional it "
                    f"cannot decide, a variable that references itself): {literal}")
        return f"pdlint does not compute make's `{self.text}`: {literal}"


def placeholder(tok: TStr) -> Optional[Placeholder]:
    """The :class:`Placeholder` a word of a Makefile's recipe is (a word :func:`_opaque_word` made: ``make-if``,
    ``make-shell``, ``make-var-NAME``; several such words run together, ``$(A)$(A)``, are one), or None."""
    if not tok.text.startswith("make-") or not tok.pieces or not all(p.opaque for p in tok.pieces):
        return None
    texts, first = [], None
    for p in tok.pieces[:8]:
        if p.src is None or not is_makefile(p.src.path) or not p.src.text.startswith("$", p.offset):
            return None
        a, b, inner = next(_refs(p.src.text[p.offset:p.offset + MAX_TEST]), (0, 0, None))
        if a != 0 or inner is None:
            return None
        texts.append(p.src.text[p.offset:p.offset + b])
        if first is None:
            first = (inner, tok.text[p.start:p.end])
    inner, word = first
    text = "".join(texts)
    what = re.match(r"[A-Za-z0-9_-]+", inner.strip())
    function = what.group(0) if what and not _VARNAME.fullmatch(inner.strip()) and \
        re.match(r"[A-Za-z0-9_-]+\s", inner.lstrip()) else ""
    variable = word[len("make-var-"):] if word.startswith("make-var-") else ""
    reads = tuple(dict.fromkeys(m.group(1) for m in _RECIPE_REF.finditer(texts[0])
                                if m.group(1) not in _MAKE_OWN and m.group(1) != variable))
    return Placeholder(" ".join(text.replace("\\\n", " ").split()), function, variable, reads)
