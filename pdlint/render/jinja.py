"""Render Jinja2 launch templates per role, tracing every output character back
to the template line (and column) that produced it.

Safety: templates come from pull requests.  They are rendered in Jinja's
:class:`~jinja2.sandbox.ImmutableSandboxedEnvironment`; ``include`` /
``import`` / ``extends`` resolve relative to the including template and are
confined to the repository root (symlinks resolved); rendering is bounded in
time and output size; an undefined variable is recorded (with its template
line) instead of aborting, so one render reports every undefined use.

Tracing (the technique of sqlfluff's Jinja tracer, done on Jinja's AST):
after parsing, every literal chunk (``TemplateData``) is wrapped in invisible
marker characters carrying a segment id, and every ``{{ expression }}`` is
passed through a function that wraps its output the same way (a call the code
generator writes around the expression).  Literal chunks captured by
``{% set %}`` blocks and macro bodies keep their markers when they are output
later, nested inside the marker of the expression that outputs
them, so the innermost segment is the place to edit and the enclosing ones are
the chain (``{{ common }}`` -> ``{% set common %}`` body).  String constants
assigned with ``{% set x = "..." %}`` and configuration variables become
:class:`OStr` values that remember where they are written.  After rendering,
markers are stripped into a :class:`~pdlint.text.TStr`.  When a template
post-processes captured text (``| trim``, ``| length`` ...) the markers could
change the result, so such templates are rendered a second time without
markers and the traced result is used only if both agree; otherwise a
bounded alignment of output to source (:mod:`pdlint.render.align`) gives a coarser mapping.
"""

from __future__ import annotations

import functools
import os
from bisect import bisect_right
import re
import sys
from typing import Callable, Optional

from pdlint import budget, lazyre
from pdlint.model import Hop
from pdlint.records import dataclass, field, replace
from pdlint.text import DEPLOY_TIME, Piece, SourceFile, TStr

OPEN, SEP, CLOSE = "\ue000", "\ue001", "\ue002"
_MARK_RE = lazyre.compile("[\ue000-\ue002]")

ROLE_NAMES = ("role", "mode", "disaggregation_mode", "pd_role", "server_role", "worker_type")
ROLE_SYNONYMS = {
    "prefill": "prefill", "p": "prefill", "prefiller": "prefill", "ctx": "prefill",
    "context": "prefill", "sender": "prefill", "producer": "prefill", "kv_producer": "prefill",
    "decode": "decode", "d": "decode", "decoder": "decode", "gen": "decode",
    "generation": "decode", "receiver": "decode", "consumer": "decode", "kv_consumer": "decode",
}
_FLAG_TAIL = lazyre.compile(r"(?:--disaggregation[-_]mode[ =]|disaggregation[-_]mode[\"']?\s*[:=,]\s*[\"']?)$")


class OStr(str):
    """A ``str`` that remembers where it is written (a :class:`TStr` of itself)."""

    __slots__ = ("tstr",)

    def __new__(cls, tstr: TStr):
        obj = super().__new__(cls, tstr.text)
        obj.tstr = tstr
        return obj


class OInt(int):
    """An ``int`` from a values file that remembers where it is written.
    Arithmetic gives plain ints (a computed number is the template's)."""

    def __new__(cls, value: int, tstr: TStr):
        obj = super().__new__(cls, value)
        obj.tstr = tstr
        return obj


class OFloat(float):
    """A ``float`` from a values file that remembers where it is written."""

    def __new__(cls, value: float, tstr: TStr):
        obj = super().__new__(cls, value)
        obj.tstr = tstr
        return obj


#: filters that only re-spell one value (a value file's boolean rendered with ``| lower``
#: still comes from the values file line)
_SPELLING_FILTERS = {"lower", "upper", "string", "bool", "int", "float", "tojson", "to_json", "to_yaml", "trim",
                     "e", "escape", "safe", "capitalize", "title"}


#: Jinja's own extensions a config may enable (name as written -> import path);
#: nothing else is ever imported, so a repository's config cannot make pdlint run code
EXTENSIONS = {}
for _short in ("do", "loopcontrols", "i18n", "debug"):
    EXTENSIONS[_short] = EXTENSIONS[f"jinja2.ext.{_short}"] = f"jinja2.ext.{_short}"
for _builtin in ("with_", "autoescape"):  # built into Jinja since 3.0: accepted, nothing to load
    EXTENSIONS[_builtin] = EXTENSIONS[f"jinja2.ext.{_builtin}"] = ""
PRESETS = ("ansible",)


@dataclass
class JinjaOptions:
    """How templates are rendered (``[tool.pdlint.jinja]``).  pdlint's
    defaults are Jinja's, except that a template's final newline is kept."""

    trim_blocks: bool = False
    lstrip_blocks: bool = False
    keep_trailing_newline: bool = True
    extensions: tuple = ()  # import paths, from EXTENSIONS only
    preset: Optional[str] = None  # "ansible": its filters, tests, facts and whitespace settings
    #: with the ansible preset: the variables the repository's inventory sets (group_vars/, host_vars/), whose
    #: value depends on the host a play runs on: opaque, as facts are
    inventory: frozenset = frozenset()
    #: the template's own source with the block tags of a command continued across them trimmed, as trim_blocks
    #: would, and the rest as written (:func:`trim_continued`): how pdlint renders a template when only the
    #: repository's Python says that templates render with trim_blocks
    trimmed_source: Optional[str] = None
    #: filters the deploy tool registers (``[tool.pdlint.jinja] filters``): rendered as a value pdlint cannot see,
    #: as an undeclared one is, without a finding
    filters: tuple = ()

    @classmethod
    def for_preset(cls, name: Optional[str]) -> "JinjaOptions":
        if name == "ansible":
            # the template module's defaults: trim_blocks on, lstrip_blocks off, the final newline kept;
            # `do` and loop controls are common in roles
            return cls(trim_blocks=True, lstrip_blocks=False, keep_trailing_newline=True,
                       extensions=("jinja2.ext.do", "jinja2.ext.loopcontrols"), preset="ansible")
        return cls()


#: a line continued by `\` over one or more lines that are one block tag without whitespace control each
#: (`{% if spec %}`): blank lines, which end the command, unless the template renders with trim_blocks
CONTINUED_TAG = lazyre.compile(r"\\[ \t]*\n(?:[ \t]*\{%(?!-)[^\n]*?(?<!-)%\}[ \t]*\n)+")
_TAG_END = lazyre.compile(r"[ \t]%\}[ \t]*\n")


def trim_continued(text: str) -> Optional[str]:
    """``text`` with each block tag of a command continued across tag lines (:data:`CONTINUED_TAG`) ending in
    ``-%}`` where it ended in `` %}``, so that a render without trim_blocks keeps the command whole there and
    nowhere else (a whole-template trim_blocks render also joins other lines: a `# ... {% if %}{% endif %}`
    comment line swallowed the next launch, hostile-input test rw24/h item 8); the same length, so positions
    hold.  ``None`` when a tag there has no space before its ``%}`` to trade for the ``-``."""
    out = list(text)
    for m in CONTINUED_TAG.finditer(text):
        pos = m.start() + text[m.start():m.end()].index("\n") + 1
        while pos < m.end():
            nl = text.index("\n", pos)
            end = _TAG_END.search(text, pos, nl + 1)
            if end is None:
                return None
            nxt = text.find("\n", nl + 1)
            if text[nl + 1:nxt if nxt >= 0 else len(text)].strip():  # (a blank line after it ends the command, as
                out[end.start()] = "-"  # trim_blocks leaves it)
            pos = nl + 1
    return "".join(out)


@dataclass
class Limits:
    render_seconds: float = 5.0
    max_output: int = 4_000_000
    max_file_bytes: int = 2_000_000


@dataclass
class Problem:
    code: str
    message: str
    src: Optional[SourceFile]
    line: int
    column: int = 1
    hint: Optional[str] = None  # what to do (the finding's help line), when the problem knows better than its rule
    test: bool = False  # an undefined variable used in a truth test or a loop here (Recording._record)
    name: Optional[str] = None  # an unknown filter's / test's name (code "filter" / "test")
    close: Optional[str] = None  # the builtin filter / test whose name is close to it (a misspelling?)
    also: tuple = ()  # the other lines of the same file that use it


#: how an unset variable was used where Jinja asks only whether it is set (``is defined``, ``default(false)``)
OPTIONAL = "optional"


@dataclass
class Rendered:
    text: TStr
    role: Optional[str]
    role_var: Optional[str]
    role_value: Optional[str]
    traced: bool = True


@dataclass
class Segment:
    src: Optional[SourceFile]
    offset: int
    exact: bool
    note: Optional[str] = None  # a hop note when the segment encloses others
    opaque: object = False  # True, or text.DEPLOY_TIME for a value made when the template is deployed
    path: tuple = ()  # {{ a.b }}: the variable path it outputs (values-file booleans)


class RenderTimeout(Exception):
    pass


class OutsideRepo(Exception):
    pass


# ---------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------

def _jinja():
    import jinja2  # noqa: F401  (lazy: only templates pay for Jinja)
    import jinja2.sandbox
    return jinja2


class _State:
    """Per-environment bookkeeping shared by the transform and the renders."""

    def __init__(self, root: str, cwd: str, limits: Limits, read_file: Callable[[str], Optional[SourceFile]],
                 options: Optional[JinjaOptions] = None):
        self.options = options or JinjaOptions()
        self.root = root
        self.cwd = cwd
        self.limits = limits
        self.read_file = read_file
        self.segments: list = []
        self.sources: dict = {}  # template name -> SourceFile
        self.line_maps: dict = {}  # id(compiled template) -> (code lines, template lines) of its debug info
        self.undefined: list = []  # (name, SourceFile|None, line)
        self.problems: list = []
        self.risky = False  # captured output may be post-processed
        self.role_info: dict = {}  # template name -> RoleInfo
        self.free: dict = {}  # template name -> the names it reads from the context (Jinja's own resolve loads)
        # template name -> the templates it includes / extends / imports by a constant name, each with the names
        # bound where it does (_referenced)
        self.refs: dict = {}
        self.traced = True
        self.search_dirs: list = []  # extra repository-relative directories for includes
        self.value_positions: dict = {}  # values files' booleans: (key, subkey, ...) -> TStr
        self.main: Optional[str] = None  # the name of the template rendered (not an include)
        #: filters and tests the templates use that the environment does not have: (kind, name) -> [the builtin
        #: name close to it, (template name, line) ...], each rendered by a stand-in (:func:`_stand_in_unknown`)
        self.unknown: dict = {}

    def add(self, seg: Segment) -> int:
        self.segments.append(seg)
        return len(self.segments) - 1


@functools.lru_cache(maxsize=None)
def _code_generator():
    """Jinja's code generator, compiling the transformer's markers (made once: it needs Jinja).

    The transformer does not add nodes to the tree for them (a filter call per output and per
    string constant doubled the nodes of a small template, and every one of Jinja's tree walks
    during code generation, the dependency and symbol finders and ``find_all`` for blocks,
    imports and extends, visits every node).  It notes the nodes to trace instead
    (:attr:`_Transformer.marks`, :attr:`_Transformer.ostrs`) and this generator writes the calls
    around them that the filters would compile to.  ``environment`` is a local (a default
    argument) of every function of a template module; ``_pdl_mark`` / ``_pdl_ostr`` are
    pdlint's attributes of it (make_environment), out of the templates' reach (the sandbox
    refuses attributes starting with an underscore)."""
    from jinja2 import nodes
    from jinja2.compiler import CodeGenerator
    from jinja2.runtime import escape  # markupsafe's, as the generated modules import it

    class TracingCodeGenerator(CodeGenerator):
        # the transformer's notes of the template being compiled, keyed by node (a node's
        # hash is its identity); empty (read only) for a template it did not see
        marks: dict = {}  # output expression -> segment id
        ostrs: dict = {}  # string constant -> segment id

        def enter_frame(self, frame):
            # the names this frame resolves from the context, as jinja2.meta.find_undeclared_variables finds
            # them (a name a `{% set %}`, `{% for %}`, `{% with %}` or macro parameter binds first is not one)
            super().enter_frame(frame)
            state = getattr(self.environment, "_pdl_state", None)
            if state is not None and self.name is not None:
                free = state.free.setdefault(self.name, set())
                for action, param in frame.symbols.loads.values():
                    if action == "resolve":
                        free.add(param)

        def visit_Template(self, node, frame=None):
            noted = getattr(self.environment, "_pdl_noted", None)
            if noted is not None and noted[0] is node:
                _, self.marks, self.ostrs = noted
            super().visit_Template(node, frame)

        def _output_child_to_const(self, node, frame, finalize):
            sid = self.marks.get(node)
            if sid is None:
                return super()._output_child_to_const(node, frame, finalize)
            # what a filter call does at compile time: Jinja folds an output whose
            # expression is constant (``{{ "x" }}``), so its marker is made then
            if frame.eval_ctx.volatile:
                raise nodes.Impossible()
            value = node.as_const(frame.eval_ctx)
            try:
                value = self.environment._pdl_mark(value, sid)
            except Exception as e:
                raise nodes.Impossible() from e
            if frame.eval_ctx.autoescape:
                value = escape(value)
            return finalize.const(value)

        def _output_child_pre(self, node, frame, finalize):
            super()._output_child_pre(node, frame, finalize)
            if node in self.marks:
                self.write("environment._pdl_mark(")

        def _output_child_post(self, node, frame, finalize):
            sid = self.marks.get(node)
            if sid is not None:
                self.write(f", {sid!r})")
            super()._output_child_post(node, frame, finalize)

        def visit_Const(self, node, frame):
            sid = self.ostrs.get(node)
            if sid is None:
                return super().visit_Const(node, frame)
            self.write(f"environment._pdl_ostr({node.value!r}, {sid!r})")

    return TracingCodeGenerator


@functools.lru_cache(maxsize=None)
def _environment_classes() -> tuple:
    """``(Env, RepoLoader)``, made once (they need Jinja, imported lazily); an environment
    reaches its :class:`_State` as ``_pdl_state`` (make_environment)."""
    jinja2 = _jinja()
    from pdlint.render import guards
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class RepoLoader(jinja2.BaseLoader):
        def __init__(self, state: _State):
            self.state = state

        def get_source(self, environment, template):
            state = self.state
            src = state.sources.get(template)
            if src is None:
                full = os.path.realpath(os.path.join(state.root, template))
                root = os.path.realpath(state.root)
                if full != root and not full.startswith(root + os.sep):
                    raise jinja2.TemplateNotFound(template, f"{template!r} is outside the repository")
                src = state.read_file(full)
                if src is None:
                    raise jinja2.TemplateNotFound(template)
                state.sources[template] = src
            # the "filename" is the template name: Jinja's rewritten tracebacks
            # then name the template (and its line) for every frame
            if state.options.trimmed_source is not None and template == state.main:
                return state.options.trimmed_source, template, lambda: True
            return src.text, template, lambda: True

    class Env(ImmutableSandboxedEnvironment):
        code_generator_class = _code_generator()
        # operators whose result size an operand chooses: checked before they run (pdlint.render.guards)
        intercepted_binops = frozenset({"**", "*", "%", "+"})

        def call_binop(self, context, operator, left, right):
            guards.binop(operator, left, right)
            return super().call_binop(context, operator, left, right)

        def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (the sandbox's signature)
            guards.call(__obj, args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

        def join_path(self, template, parent):
            state = self._pdl_state
            template = str(template)
            if template.startswith("/"):
                return os.path.normpath(template.lstrip("/")).replace(os.sep, "/")
            # relative to the including template, then the config directory,
            # then the repository root
            bases = [os.path.dirname(parent)] + list(state.search_dirs) + [""]
            cands = [os.path.normpath(os.path.join(b, template)).replace(os.sep, "/") for b in bases]
            for cand in cands:
                if not cand.startswith("../") and os.path.exists(os.path.join(state.root, cand)):
                    return cand
            return cands[0]

        def _tokenize(self, source, name, filename=None, state_=None):
            # Jinja's own tokenisation, with the raw (lineno, kind, value) tokens
            # kept for the transformer below, which would otherwise lex again
            raw: list = []
            self._raw_tokens = raw

            def tee(tokens):
                for tok in tokens:
                    raw.append(tok)
                    yield tok

            lexer = self.lexer
            return jinja2.lexer.TokenStream(
                lexer.wrap(tee(lexer.tokeniter(source, name, filename, state_)), name, filename),
                name, filename)

        def _parse(self, source, name, filename):
            tree = super()._parse(source, name, filename)
            state = self._pdl_state
            kinds = _nodes_by_type(tree)  # one walk for the analyses below
            _stand_in_unknown(self, state, kinds, name)
            src = state.sources.get(name)
            if src is not None:
                state.role_info[name] = collect_role_info(tree, kinds)
                state.refs[name] = _referenced(tree, kinds)
                if _has_risky_constructs(tree, kinds):
                    state.risky = True
                if self._pdl_traced:
                    t = _Transformer(self, state, src, source, self._raw_tokens)
                    t.run(tree)
                    self._pdl_noted = (tree, t.marks, t.ostrs)  # for the code generator
            return tree

    return Env, RepoLoader


def make_environment(state: _State, traced: bool = True):
    jinja2 = _jinja()
    from pdlint.render import guards
    Env, RepoLoader = _environment_classes()

    class Recording(jinja2.ChainableUndefined):
        __slots__ = ()

        def _record(self, test: bool = False):
            # (``test``: a truth test, a loop or a comparison, which Jinja's default undefined answers as false /
            # empty without an error; a value written out or computed with is what a strict tool refuses)
            name = self._undefined_name or "<undefined>"
            src, line = _current_template_line(state)
            state.undefined.append((name, src, line, test))

        def __str__(self):
            if _no_else(self):
                return ""
            self._record()
            return f"${{{self._undefined_name}}}"

        def __iter__(self):
            self._record(True)
            return iter(())

        def __bool__(self):
            self._record(True)
            return False

        def __len__(self):
            self._record(True)
            return 0

        def __eq__(self, other):
            self._record(True)
            return False

        def __ne__(self, other):
            self._record(True)
            return True

        def _value(self, *args):
            # `{{ prefill_size + decode_size }}`, `{{ tp * 2 }}`: a value pdlint cannot see, not a render error
            # that stops every launch of the template (field test rw6/g: Volcano job templates)
            self._record()
            for other in args:
                if isinstance(other, Recording):
                    other._record()
            return self

        def _compared(self, other):
            return self._value(other) is None

        __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _value
        __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = _value
        __lt__ = __le__ = __gt__ = __ge__ = _compared

        __hash__ = object.__hash__

    # optimized=False: Jinja's constant folding visits every node of every
    # template again during code generation (a fifth of compile time here) to
    # pre-compute outputs that each template renders only twice anyway
    opts = state.options
    env = Env(loader=RepoLoader(state), undefined=Recording, keep_trailing_newline=opts.keep_trailing_newline,
              trim_blocks=opts.trim_blocks, lstrip_blocks=opts.lstrip_blocks,
              extensions=[e for e in opts.extensions if e], autoescape=False, optimized=False)
    env._pdl_state = state
    env._pdl_traced = traced
    if "jinja2.ext.i18n" in opts.extensions:
        env.install_null_translations(newstyle=True)
    if opts.preset == "ansible":
        from pdlint.render import ansible
        env.filters.update(ansible.FILTERS)
        env.tests.update(ansible.TESTS)
        env.globals.update(ansible.GLOBALS)
        missing = jinja2.utils.missing

        def undefined(hint=None, obj=missing, name=None, exc=jinja2.exceptions.UndefinedError):
            # facts and inventory variables exist on the controller at deploy time: opaque, not undefined
            if obj is missing and hint is None and name is not None and (ansible.is_fact_name(name) or
                                                                          name in opts.inventory):
                return ansible.Fact(name)
            return Recording(hint, obj, name, exc)

        env.undefined = undefined
    for fname in opts.filters:  # (declared: `[tool.pdlint.jinja] filters`)
        env.filters.setdefault(fname, _opaque_filter(fname))
    guards.install(env)

    def mark(value, seg_id):
        seg = state.segments[seg_id]
        if isinstance(value, jinja2.Undefined) and _no_else(value):
            value = ""  # (`{{ '--flag' if x }}` with x false: Jinja writes nothing)
        if isinstance(value, jinja2.Undefined):
            name = value._undefined_name or "<undefined>"
            line, _ = seg.src.position(seg.offset) if seg.src else (1, 1)
            state.undefined.append((name, seg.src, line, False))
            inner = state.add(Segment(seg.src, seg.offset, False, None, opaque=True))
            return f"{OPEN}{seg_id}{SEP}{OPEN}{inner}{SEP}${{{name}}}{CLOSE}{CLOSE}"
        if _is_opaque_value(value):
            # a fact or a filter result known only at deploy time (hostvars, lookup(), password_hash ...), or the
            # result of a filter the deploy tool registers and pdlint does not have (_stand_in_unknown)
            inner = state.add(Segment(seg.src, seg.offset, False, None, opaque=DEPLOY_TIME))
            return f"{OPEN}{seg_id}{SEP}{OPEN}{inner}{SEP}{value}{CLOSE}{CLOSE}"
        if seg.path and state.traced and isinstance(value, (bool, str)) and not isinstance(value, OStr):
            where = state.value_positions.get(seg.path)
            if where is not None and where.pieces and _same_bool(where.text, value):
                # a values file's boolean: the line to edit is where it is set
                p = where.pieces[0]
                inner = state.add(Segment(p.src, p.offset, False, None))
                return f"{OPEN}{seg_id}{SEP}{OPEN}{inner}{SEP}{value}{CLOSE}{CLOSE}"
        return f"{OPEN}{seg_id}{SEP}{_ostr_marked(state, value)}{CLOSE}"

    def ostr(value, seg_id):
        seg = state.segments[seg_id]
        return OStr(TStr.at(value, seg.src, seg.offset, exact=True))

    def join(value, d="", attribute=None):
        items = list(value)
        if attribute is not None:
            items = [env.getitem(x, attribute) for x in items]
        return str(d).join(_ostr_marked(state, x) for x in items)

    def optional(value) -> None:
        # `{% if spec is defined %}`, `{% if spec | default(false) %}`: Jinja answers an unset variable without
        # touching it, so the branch it guards is silently not rendered (rw24/h item 5)
        if isinstance(value, Recording):
            src, line = _current_template_line(state)
            state.undefined.append((value._undefined_name or "<undefined>", src, line, OPTIONAL))

    def defined(value):
        optional(value)
        return not isinstance(value, jinja2.Undefined)

    def undefined_(value):
        optional(value)
        return isinstance(value, jinja2.Undefined)

    plain_tojson = env.filters["tojson"]

    @jinja2.pass_eval_context
    def tojson(eval_ctx, value, indent=None):
        # `{{ model | tojson }}` with `model` unset (or a deploy-time fact): the value pdlint cannot see, as
        # `{{ model }}` is - recorded, opaque where it is written; Jinja's json.dumps stopped the render with
        # "TypeError: Object of type Recording is not JSON serializable" and left the launch unchecked (rw29/h P8)
        if isinstance(value, jinja2.Undefined) or _is_opaque_value(value):
            return value
        return plain_tojson(eval_ctx, value, indent)

    env.filters["tojson"] = tojson
    env.policies["json.dumps_function"] = _json_dumps  # (one nested in a value: its placeholder text)
    plain_default = env.filters["default"]

    def default(value, default_value="", boolean=False):
        # (a value default, `{{ port | default(8000) }}`, is rendered and checked; an unset default, `default(x)`,
        # is not asked for its truth here: that would be a use of it of its own, llm-d-benchmark's harness pod)
        if not isinstance(default_value, jinja2.Undefined) and not default_value:
            optional(value)
        return plain_default(value, default_value, boolean)

    env._pdl_optional = optional
    for tname, fn in list(env.tests.items()):  # `spec is true`, `is string`, `is sameas true`, `is number`...:
        env.tests[tname] = _recording_test(fn)  # answered for an unset variable as quietly (rw26/h 5)
    env.tests["defined"], env.tests["undefined"] = defined, undefined_
    env.filters["default"] = env.filters["d"] = default
    env._pdl_mark = mark
    env._pdl_ostr = ostr
    env.filters["__pdl_mark"] = mark  # around includes (_Transformer._wrap_include)
    if traced:
        env.filters["join"] = join
    return env


def _opaque_filter(name: str):
    """A stand-in for a filter pdlint does not have: its result is a value pdlint cannot see (``$name``, opaque
    where it is written, as the ansible preset's deploy-time filters are)."""
    word = "$" + (re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "_")

    def f(*args, **kwargs):
        return _unseen_class()(word)
    f.__name__ = name
    f._pdl_opaque = True  # (its result decides no test pdlint can render per value: :func:`through_unknown`)
    return f


@functools.lru_cache(maxsize=None)
def _unseen_class():
    """The class of an unknown filter's result: opaque text (:class:`pdlint.render.ansible.Opaque`) that a loop
    walks as empty, as an Ansible fact is (`{% for a in args | expand %}--{{ a }}{% endfor %}` wrote one flag per
    character of the placeholder: `--$`, `--e` ...)."""
    from pdlint.render.ansible import Opaque

    class Unseen(Opaque):
        __slots__ = ()

        def __iter__(self):
            return iter(())
    return Unseen


def _false_test(*args, **kwargs) -> bool:
    """A stand-in for a test pdlint does not have: answered false (what it guards is not rendered; said)."""
    return False


#: unknown filters / tests recorded per environment (a template generator's thousand names: bounded)
MAX_UNKNOWN = 64


def _stand_in_unknown(env, state: _State, kinds: dict, name: str) -> None:
    """Each filter and test a parsed template uses that ``env`` does not have (a filter the deploy tool registers on its
    Environment, ``env.filters["model_id_label"] = ...``): Jinja refuses to compile the template ("No filter named
    'model_id_label'."), which depends on the environment, not on the template's syntax (field round rw30/a P4: a
    PD004 error on a template the repository's own renderer compiles).  A stand-in renders it instead (a filter's
    result: a value pdlint cannot see; a test: false), and the use is recorded (``state.unknown``) for the caller
    to report, with the builtin name it may misspell.  ``kinds``: the template's nodes (:func:`_nodes_by_type`)."""
    from jinja2 import nodes
    for node in sorted(_of(kinds, nodes.Filter, nodes.Test), key=lambda n: n.lineno):
        kind = "filter" if isinstance(node, nodes.Filter) else "test"
        table = env.filters if kind == "filter" else env.tests
        fname = node.name
        if fname in table and (kind, fname) not in state.unknown:
            continue
        short = fname.rpartition(".")[2]
        if state.options.preset == "ansible" and fname.startswith(("ansible.builtin.", "ansible.legacy.")) and \
                short in table:
            table[fname] = table[short]  # (a filter's fully qualified name: `| ansible.builtin.to_json`)
            continue
        uses = state.unknown.get((kind, fname))
        if uses is None:
            if len(state.unknown) >= MAX_UNKNOWN:
                continue  # (Jinja then refuses it: PD004, as before)
            import difflib
            known = [k for k in table if not k.startswith("_")]
            close = difflib.get_close_matches(fname, known, n=1, cutoff=0.8)
            uses = state.unknown[(kind, fname)] = [close[0] if close else None]
            table[fname] = _opaque_filter(fname) if kind == "filter" else _false_test
        if len(uses) < 65 and (name, node.lineno) not in uses:
            uses.append((name, node.lineno))


def unknown_problems(state: _State, fallback: SourceFile) -> list:
    """A :class:`Problem` (code ``filter`` / ``test``) per unknown filter and test and template file, at its first
    use (:func:`_stand_in_unknown`)."""
    out = []
    for (kind, fname), uses in sorted(state.unknown.items()):
        close, places = uses[0], uses[1:]
        by_file: dict = {}
        for tname, line in places:
            by_file.setdefault(tname, []).append(line)
        for tname, lines in by_file.items():
            src = state.sources.get(tname) or fallback
            lines = sorted(set(lines))
            what = ("its result was rendered as a value pdlint cannot see" if kind == "filter" else
                    "it was answered false, so what it guards was not rendered")
            out.append(Problem(kind, f"No {kind} named '{fname}' in pdlint's Jinja: {what}", src, lines[0],
                               _filter_column(src, lines[0], fname, kind), name=fname, close=close,
                               also=tuple(lines[1:])))
    return out


def _filter_column(src: SourceFile, line: int, name: str, kind: str) -> int:
    text = src.line_text(line) if src else ""
    lead = r"(?:\||\bfilter\b)[ \t]*" if kind == "filter" else r"\bis[ \t]+(?:not[ \t]+)?"
    m = re.search(lead + r"(" + re.escape(name) + r")(?![\w.])", text)
    return m.start(1) + 1 if m else 1


_RECORDING_TESTS: dict = {}  # a Jinja test -> its recording twin (made once: an environment is made per template)


def _recording_test(fn):
    """A Jinja test that first records an unset variable it is asked about (the environment's ``_pdl_optional``);
    a test that takes the context or the environment itself (``test_filter``, ``test_test``: names, no variables)
    is left as it is."""
    if getattr(fn, "jinja_pass_arg", None) is not None:
        return fn
    got = _RECORDING_TESTS.get(fn)
    if got is None:
        jinja2 = _jinja()

        @jinja2.pass_environment
        def got(environment, value, *args, **kwargs):
            environment._pdl_optional(value)
            return fn(value, *args, **kwargs)
        _RECORDING_TESTS[fn] = got
    return got


def _json_dumps(obj, **kw) -> str:
    """``json.dumps`` for Jinja's ``tojson``: an unset variable or a deploy-time value inside the value
    (``{{ {"model": model} | tojson }}``) is written as its placeholder text (``"${model}"``, recorded as
    ``{{ model }}`` is), not a TypeError naming pdlint's own classes; anything else JSON has no form for is
    Jinja's error, as it is at deploy time."""
    import json
    jinja2 = _jinja()

    def default(o):
        if isinstance(o, jinja2.Undefined) or _is_opaque_value(o):
            return str(o)
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")
    kw.setdefault("default", default)
    return json.dumps(_json_keys(obj, jinja2.Undefined), **kw)


def _json_keys(obj, undefined, active: Optional[set] = None):
    """``obj`` with every mapping key that is an unset variable or a deploy-time value (``{{ {key: 1} | tojson
    }}``, ``key`` unset) as its placeholder text: ``json.dumps`` checks a key's type before ``default`` is asked
    (the render stopped with "TypeError: keys must be str, int, float, bool or None, not Recording" and every
    launch of the template went unchecked, hostile-input round rw30/h P6). Other keys are left as they are - a
    tuple key is Jinja's own TypeError at deploy time too; containers without such a key are returned as they
    are, and a container met again inside itself is left for ``json.dumps``'s "Circular reference detected"."""
    if not isinstance(obj, (dict, list, tuple)):
        return obj
    active = set() if active is None else active
    if id(obj) in active:
        return obj
    active.add(id(obj))
    try:
        if isinstance(obj, dict):
            out, changed = {}, False
            for k, v in obj.items():
                nk = str(k) if isinstance(k, undefined) or _is_opaque_value(k) else k
                nv = _json_keys(v, undefined, active)
                changed = changed or nk is not k or nv is not v
                out[nk] = nv
            return out if changed else obj
        items = [_json_keys(v, undefined, active) for v in obj]
        if all(a is b for a, b in zip(items, obj)):
            return obj
        return type(obj)(items) if type(obj) in (list, tuple) else items
    finally:
        active.discard(id(obj))


def _no_else(value) -> bool:
    """Is ``value`` the undefined an inline ``a if b`` without ``else`` gives when ``b`` is false?  Jinja writes it
    as nothing; it names no variable (it was PD005's "undefined variable '<undefined>'")."""
    return value._undefined_name is None and str(value._undefined_hint or "").startswith("the inline if-expression")


def _is_opaque_value(value) -> bool:
    from pdlint.render.ansible import Fact, Opaque
    return isinstance(value, (Fact, Opaque))


_BOOL_WORDS = {True: {"true", "yes", "on", "y"}, False: {"false", "no", "off", "n"}}


def _same_bool(written: str, value) -> bool:
    """Is ``value`` (rendered from the variable) the boolean written as ``written``?"""
    w = written.strip().lower()
    stored = True if w in _BOOL_WORDS[True] else False if w in _BOOL_WORDS[False] else None
    if stored is None:
        return False
    return str(value).strip().lower() in _BOOL_WORDS[stored] | {"1" if stored else "0"}


def _ostr_marked(state: _State, value) -> str:
    """``str(value)``; an :class:`OStr` (or a values file's :class:`OInt` /
    :class:`OFloat`) gets markers for its own origin."""
    if isinstance(value, (OStr, OInt, OFloat)) and state.traced:
        pieces = value.tstr.pieces
        if pieces and pieces[0].src is not None:
            p = pieces[0]
            text = str(value)
            exact = p.exact and text == value.tstr.text
            seg = state.add(Segment(p.src, p.offset, exact, None))
            return f"{OPEN}{seg}{SEP}{text}{CLOSE}"
    if isinstance(value, str):
        return value
    return str(value)


def _template_line(state: _State, tmpl, code_line: int) -> int:
    """``tmpl.get_corresponding_lineno(code_line)`` with the template's debug info read once: Jinja parses the
    whole of it on every call (one call per undefined name: a template of 1,000 `{% if xN %}` tests took seconds
    in these calls alone, hostile-input round rw29/h)."""
    m = state.line_maps.get(id(tmpl))
    if m is None or m[0] is not tmpl:
        info = tmpl.debug_info
        code = [c for _, c in info]
        if code != sorted(code):
            return tmpl.get_corresponding_lineno(code_line)
        m = state.line_maps[id(tmpl)] = (tmpl, code, [t for t, _ in info])
    _, code, lines = m
    i = bisect_right(code, code_line)
    return lines[i - 1] if i else 1


def _current_template_line(state: _State) -> tuple:
    """(SourceFile, line) of the innermost template frame on the stack."""
    f = sys._getframe(1)
    while f is not None:
        tmpl = f.f_globals.get("__jinja_template__")
        if tmpl is not None:
            try:
                line = _template_line(state, tmpl, f.f_lineno)
            except Exception:
                line = 1
            return state.sources.get(tmpl.name), line
        f = f.f_back
    return None, 1


# filters that keep captured text intact apart from inserting whitespace at line starts
_SHAPE_FILTERS = {"indent", "safe", "string"}


def _nodes_by_type(tree) -> dict:
    """Every node of the tree grouped by node class (one walk, in the order of ``iter_child_nodes`` pushed on
    a stack; the fields read directly, without its two generators per node)."""
    from jinja2.nodes import Node
    out: dict = {}
    stack = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        group = out.get(node.__class__)
        if group is None:
            group = out[node.__class__] = []
        group.append(node)
        for name in node.fields:
            item = getattr(node, name, None)
            if isinstance(item, list):
                for n in item:
                    if isinstance(n, Node):
                        push(n)
            elif isinstance(item, Node):
                push(item)
    return out


def _of(kinds: dict, *types) -> list:
    out = []
    for t in types:
        out.extend(kinds.get(t, ()))
    return out


def _has_risky_constructs(tree, kinds: Optional[dict] = None) -> bool:
    """Could this template post-process captured output (a ``{% set %}`` block,
    a macro's result, ``caller()``) so that tracing markers change the result?
    Captured output printed directly (``{{ common }}``, ``{{ flags() }}``) or
    through a whitespace-only filter is safe; anything else (``| trim``,
    ``| length``, comparisons, string methods, filter blocks) is not."""
    from jinja2 import nodes
    kinds = kinds if kinds is not None else _nodes_by_type(tree)
    captured = {n.target.name for n in _of(kinds, nodes.AssignBlock) if isinstance(n.target, nodes.Name)}
    captured |= {n.name for n in _of(kinds, nodes.Macro)} | {"caller", "super", "self"}
    if _of(kinds, nodes.FilterBlock, nodes.Extends, nodes.Import, nodes.FromImport):
        # imported macros and inherited blocks: their results are captured text too
        safe = _direct_uses_only(kinds, captured | _imported_names(kinds), nodes)
        return not safe or any(not _shape_filter(f) for f in _of(kinds, nodes.FilterBlock))
    return not _direct_uses_only(kinds, captured, nodes)


def _imported_names(kinds: dict) -> set:
    from jinja2 import nodes
    out = set()
    for n in _of(kinds, nodes.FromImport):
        out |= {name if isinstance(name, str) else name[1] for name in n.names}
    for n in _of(kinds, nodes.Import):
        out.add(n.target)
    return out


def _shape_filter(fb) -> bool:
    return getattr(fb.filter, "name", None) in _SHAPE_FILTERS


def _direct_uses_only(kinds: dict, names: set, nodes) -> bool:
    """Every use of ``names`` is the whole expression of an output (possibly a
    call, attribute or shape-only filter of it)."""
    direct = set()
    for out in _of(kinds, nodes.Output):
        for child in out.nodes:
            expr = child
            while isinstance(expr, nodes.Filter) and expr.name in _SHAPE_FILTERS:
                expr = expr.node
            if isinstance(expr, nodes.Call):
                expr = expr.node
            while isinstance(expr, nodes.Getattr):
                expr = expr.node
            if isinstance(expr, nodes.Name):
                direct.add(id(expr))
    for n in _of(kinds, nodes.Name):
        if n.ctx == "load" and n.name in names and id(n) not in direct:
            return False
    return True


# ---------------------------------------------------------------------------
# AST transform: markers and OStr constants
# ---------------------------------------------------------------------------

class _Transformer:
    def __init__(self, env, state: _State, src: SourceFile, source: str, tokens: list):
        self.env = env
        self.state = state
        self.src = src
        self.source = source
        self.data_pos: list = []
        self.var_pos: list = []
        self.marks: dict = {}  # output expression -> segment id: passed through mark()
        self.ostrs: dict = {}  # string constant -> segment id: made an OStr
        self.ok = True
        self._scan_tokens(tokens)

    def _scan_tokens(self, tokens: list) -> None:
        """Character offsets of every data chunk and ``{{`` in the (normalised)
        source, from the lexer's raw tokens of the parse that built the tree."""
        text = self.source
        cursor = 0
        try:
            for _lineno, kind, value in tokens:
                if not value:
                    continue
                pos = text.find(value, cursor)
                if pos < 0:
                    self.ok = False
                    return
                if kind == "data":
                    self.data_pos.append((pos, value))
                elif kind == "variable_begin":
                    self.var_pos.append(pos)
                cursor = pos + len(value)
        except Exception:
            self.ok = False

    def run(self, tree) -> None:
        from jinja2 import nodes
        self.data_i = 0
        self.var_i = 0
        self._walk(tree, nodes)

    def _offset_for_line(self, lineno: int) -> int:
        return self.src.offset_of(lineno, 1)

    def _walk(self, node, nodes) -> None:
        if isinstance(node, nodes.Output):
            new = []
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    new.append(self._data(child, nodes))
                else:
                    self._walk(child, nodes)
                    self._expr(child, nodes)
                    new.append(child)
            node.nodes = new
            return
        if isinstance(node, (nodes.Assign,)):
            self._note_consts(node.node, nodes)
        elif isinstance(node, nodes.For):
            self._note_consts(node.iter, nodes)
        Node, Include = nodes.Node, nodes.Include
        for fname in node.fields:
            value = getattr(node, fname, None)
            if isinstance(value, list):
                changed = None
                for i, item in enumerate(value):
                    if isinstance(item, Include):
                        if changed is None:
                            changed = list(value)
                        changed[i] = self._wrap_include(item, nodes)
                    elif isinstance(item, Node):
                        self._walk(item, nodes)
                if changed is not None:
                    setattr(node, fname, changed)
            elif isinstance(value, Node):
                self._walk(value, nodes)

    def _data(self, child, nodes):
        pos = None
        if self.ok and self.data_i < len(self.data_pos):
            p, value = self.data_pos[self.data_i]
            if value == child.data:
                pos = p
        self.data_i += 1
        if pos is None:
            seg = Segment(self.src, self._offset_for_line(child.lineno), False)
        else:
            seg = Segment(self.src, pos, True)
        sid = self.state.add(seg)
        return nodes.TemplateData(f"{OPEN}{sid}{SEP}{child.data}{CLOSE}", lineno=child.lineno)

    def _expr(self, child, nodes):
        pos = None
        if self.ok and self.var_i < len(self.var_pos):
            pos = self.var_pos[self.var_i]
            if self.src.position(pos)[0] != child.lineno and not _spans(self.src, pos, child.lineno):
                pos = None
        self.var_i += 1
        if pos is None:
            pos = self._offset_for_line(child.lineno)
        note = "{{ " + _describe(child, nodes) + " }}"
        self.marks[child] = self.state.add(Segment(self.src, pos, False, note, path=_var_path(child, nodes)))

    def _wrap_include(self, node, nodes):
        pos = self._offset_for_line(node.lineno)
        line_text = self.src.line_text(node.lineno)
        col = line_text.find("include")
        if col >= 0:
            pos += max(line_text.rfind("{", 0, col), 0)
        name = node.template.value if isinstance(node.template, nodes.Const) else "…"
        sid = self.state.add(Segment(self.src, pos, False, f"include {name!r}"))
        filt = nodes.Filter(None, "__pdl_mark", [nodes.Const(sid)], [], None, None, lineno=node.lineno)
        return nodes.FilterBlock([node], filt, lineno=node.lineno)

    def _note_consts(self, expr, nodes):
        if isinstance(expr, nodes.Const) and isinstance(expr.value, str):
            off = self._const_offset(expr)
            # compiled to a direct call (a global would go through the sandbox's
            # environment.call and an undefined check per constant)
            self.ostrs[expr] = self.state.add(Segment(self.src, off, True))
        elif isinstance(expr, (nodes.List, nodes.Tuple)):
            for item in expr.items:
                self._note_consts(item, nodes)

    def _const_offset(self, const) -> int:
        """Offset of the first character of a string constant's value."""
        line_start = self._offset_for_line(const.lineno)
        text = self.source
        value = const.value
        for quote in ('"', "'"):
            i = text.find(quote + value + quote, line_start)
            if i >= 0 and (i - line_start) < 4000:
                return i + 1
        return line_start


def _var_path(node, nodes) -> tuple:
    """``{{ a.b['c'] | lower }}`` -> ("a", "b", "c"); () when the output is not one variable's value."""
    while isinstance(node, nodes.Filter) and node.name in _SPELLING_FILTERS and node.node is not None:
        node = node.node
    out: list = []
    while True:
        if isinstance(node, nodes.Name):
            return (node.name,) + tuple(reversed(out))
        if isinstance(node, nodes.Getattr):
            out.append(node.attr)
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
            out.append(node.arg.value)
        else:
            return ()
        node = node.node


def _spans(src: SourceFile, pos: int, lineno: int) -> bool:
    line, _ = src.position(pos)
    return line <= lineno <= line + 3


def _describe(node, nodes) -> str:
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_describe(node.node, nodes)}.{node.attr}"
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
        return f"{_describe(node.node, nodes)}[{node.arg.value!r}]"
    if isinstance(node, nodes.Filter):
        return f"{_describe(node.node, nodes) if node.node else '…'} | {node.name}"
    if isinstance(node, nodes.Call):
        return f"{_describe(node.node, nodes)}(…)"
    if isinstance(node, nodes.Const):
        return repr(node.value)
    return "…"


# ---------------------------------------------------------------------------
# Role variable detection
# ---------------------------------------------------------------------------

@dataclass
class RoleInfo:
    compared: dict = field(default_factory=dict)  # name -> [literal values]
    after_flag: set = field(default_factory=set)  # names rendered right after --disaggregation-mode
    names: set = field(default_factory=set)  # every Name loaded
    assigned: set = field(default_factory=set)
    # the names the template (and what it reaches) reads from the context; None when unknown. A name every
    # use of which a `{% set %}` / `{% for %}` / macro parameter binds first is the template's own, not a role
    # variable to give per role (`{% for role in ["prefill", "decode"] %}` renders both launches at once)
    free: Optional[set] = None
    # name -> the names whose values decide what the template assigns to it: those the value expression reads
    # (``{% set mode = "prefill" if is_prefill else "decode" %}``) and those the tests of the ``if`` blocks around
    # the assignment read (``{% if is_prefill %}{% set role = "prefill" %}``)
    guards: dict = field(default_factory=dict)
    # the names the template reads where no binding of its own holds on every path (read from the context there;
    # :func:`_scope_walk`); None when unknown. An assigned name not in it is the template's own value wherever it
    # is read (`{% if node_type == "ctx" %}{% set mode = "prefill" %}{% else %}{% set mode = "decode" %}{% endif
    # %}`), never its input - Jinja's own analysis counts it as one
    read_unset: Optional[set] = None
    # a name of ``guards``' values -> ``(template name or None: this one, line)`` of its first read there
    guard_at: dict = field(default_factory=dict)
    # a name an ``{% if %}`` / ``x if ... else y`` test reads -> the filters between it and the test on each read
    # (a frozenset per read, empty for a plain one; the transparent ones left out): a test that reads a switch
    # only through a filter pdlint does not have decides nothing pdlint can render per value
    # (:func:`through_unknown`)
    tested_through: dict = field(default_factory=dict)

    def always_set(self) -> set:
        """The names the template assigns before every read of them, on every path."""
        return set() if self.read_unset is None else self.assigned - self.read_unset


def _loaded(node) -> set:
    """The names ``node`` (an expression) reads, itself included."""
    from jinja2 import nodes
    out = {n.name for n in node.find_all(nodes.Name) if n.ctx == "load"}
    if isinstance(node, nodes.Name) and node.ctx == "load":
        out.add(node.name)
    return out


def _assign_targets(node) -> set:
    """The names an ``{% set %}`` (or a ``{% set %}`` block) assigns."""
    from jinja2 import nodes
    target = node.target
    if isinstance(target, nodes.Name):
        return {target.name}
    return {n.name for n in target.find_all(nodes.Name)} if isinstance(target, nodes.Tuple) else set()


#: filters whose result a comparison with a word reads as the variable's own value: `node_type | default("gen") ==
#: "ctx"` is true when the deploy gives node_type "ctx", as `node_type == "ctx"` is (`| lower`, `| trim` ... keep a
#: word that is already lower case, trimmed ...). The variable under them is the one compared: it was not seen
#: through the filter, and a role the template set from it was rendered for the default's branch only - the
#: prefill launch silently dropped (hostile-input round rw31/h P6)
_TRANSPARENT_FILTERS = frozenset({"default", "d", "lower", "upper", "trim", "string"})


def _compared_name(node, nodes) -> Optional[str]:
    """The variable a comparison operand reads (``x``, ``x | default("gen")``, ``x | d("gen") | lower``), or
    None."""
    for _ in range(16):  # (a chain of filters, bounded)
        if not (isinstance(node, nodes.Filter) and node.name in _TRANSPARENT_FILTERS and node.node is not None):
            break
        node = node.node
    return node.name if isinstance(node, nodes.Name) and node.ctx == "load" else None


def _test_reads(test, nodes, out: dict) -> None:
    """The names ``test`` reads, each with the filters above it there (:attr:`RoleInfo.tested_through`)."""
    todo = [(test, frozenset())]
    while todo and len(todo) < 4096:
        node, under = todo.pop()
        if isinstance(node, nodes.Name):
            if node.ctx == "load":
                out.setdefault(node.name, set()).add(under)
            continue
        if isinstance(node, nodes.Filter) and node.name not in _TRANSPARENT_FILTERS:
            under = under | {node.name}
        todo.extend((child, under) for child in node.iter_child_nodes())


def through_unknown(info: RoleInfo, name: str, unknown: set) -> Optional[str]:
    """The filter pdlint does not have (of ``unknown``) that every test reading ``name`` reads it through
    (``{% if is_prefill | default(false) | bool %}`` without the ansible preset: the stand-in's result is truthy
    whatever ``is_prefill`` is, so both of its renders took the prefill branch - a false PD101 on the one made
    for decode, hostile-input round rw32/h P3), or None (a test reads it plainly, or none reads it)."""
    reads = info.tested_through.get(name)
    if not reads or not unknown:
        return None
    names = []
    for filters in reads:
        hit = sorted(filters & unknown)
        if not hit:
            return None
        names.append(hit[0])
    return min(names)


def _blind_hint(filter_name: str, var: str) -> str:
    from pdlint.render import ansible
    plain = f"test the variable itself (`{{% if {var} %}}`) so that pdlint renders one launch per value"
    if filter_name in ansible.FILTERS:
        return f"if Ansible renders this template, say so (`[tool.pdlint.jinja] preset = \"ansible\"`, which has " \
               f"`{filter_name}`); else {plain}"
    return plain[0].upper() + plain[1:]


def collect_role_info(tree, kinds: Optional[dict] = None) -> RoleInfo:
    from jinja2 import nodes
    kinds = kinds if kinds is not None else _nodes_by_type(tree)
    info = RoleInfo()
    for n in _of(kinds, nodes.Name):
        (info.names if n.ctx == "load" else info.assigned).add(n.name)
    for t in _of(kinds, nodes.If, nodes.CondExpr):
        _test_reads(t.test, nodes, info.tested_through)
    for cmp in _of(kinds, nodes.Compare):
        operands = [cmp.expr] + [op.expr for op in cmp.ops]
        names = [n for n in (_compared_name(o, nodes) for o in operands) if n is not None]
        consts = []
        for o in operands:
            if isinstance(o, nodes.Const) and isinstance(o.value, str):
                consts.append(o.value)
            elif isinstance(o, (nodes.List, nodes.Tuple)):
                consts.extend(i.value for i in o.items if isinstance(i, nodes.Const) and isinstance(i.value, str))
        for name in names:
            info.compared.setdefault(name, []).extend(consts)
    for out in _of(kinds, nodes.Output):
        prev = None
        for child in out.nodes:
            if prev is not None and isinstance(prev, nodes.TemplateData) and _FLAG_TAIL.search(prev.data):
                target = child.node if isinstance(child, nodes.Filter) else child
                if isinstance(target, nodes.Name):
                    info.after_flag.add(target.name)
            prev = child
    info.read_unset = _scope_walk(tree, kinds)[1] if info.assigned else set(info.names)
    assigns = _of(kinds, nodes.Assign, nodes.AssignBlock)
    if assigns:
        for a in assigns:
            reads = _loaded(a.node) if isinstance(a, nodes.Assign) else set()
            for t in _assign_targets(a):
                info.guards.setdefault(t, set()).update(reads)
            if reads:
                _note_guard_lines(info, a.node, nodes)
        for branch in _of(kinds, nodes.If):
            tested = _loaded(branch.test)
            if tested:
                _note_guard_lines(info, branch.test, nodes)
            for sub in (*branch.body, *branch.elif_, *branch.else_):
                inner = [sub] if isinstance(sub, (nodes.Assign, nodes.AssignBlock)) else []
                for a in inner + list(sub.find_all((nodes.Assign, nodes.AssignBlock))):
                    for t in _assign_targets(a):
                        info.guards.setdefault(t, set()).update(tested)
    return info


def _note_guard_lines(info: RoleInfo, expr, nodes) -> None:
    for n in (expr, *expr.find_all(nodes.Name)):
        if isinstance(n, nodes.Name) and n.ctx == "load" and n.lineno:
            got = info.guard_at.get(n.name)
            if got is None or n.lineno < got[1]:
                info.guard_at[n.name] = (None, n.lineno)


def _referenced(tree, kinds: dict) -> list:
    """The templates a tree includes, extends or imports by a constant name (of a list of names: the first), each
    as ``(name, names bound there)``: the names a ``{% for %}`` around the include, a macro's parameters or a
    ``{% set %}`` before it (on every branch of an ``{% if %}``) bind where it stands - the included template reads
    them from its includer, not from the context (hostile-input rounds rw29/h P11, rw30/h P12: a template included
    both inside `{% for role in [...] %}` and at the top level reads `role` from the context at the second)."""
    from jinja2 import nodes
    if not _of(kinds, nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport):
        return []
    # (one entry per template named: bound there only where every one of its includes binds it)
    out: dict = {}
    for ref, here in _scope_walk(tree, kinds)[0]:
        out[ref] = out[ref] & here if ref in out else here
    return list(out.items())


def _scope_walk(tree, kinds: dict) -> tuple:
    """``(references, read unset)`` of a tree, walked in order with the names bound at each point: the
    templates it includes / extends / imports by a constant name with the names bound where each stands
    (:func:`_referenced`), and the names it reads somewhere no binding of its own (a ``{% set %}`` on every
    branch before, a loop, a macro parameter) has given them - read from the context there. None for either
    past the interpreter's nesting limit. Kept in ``kinds`` (one walk for both)."""
    got = kinds.get(_scope_walk)
    if got is not None:
        return got
    from jinja2 import nodes
    out: list = []
    unset: set = set()

    def const_name(t):
        if isinstance(t, nodes.Const) and isinstance(t.value, str):
            return t.value
        if isinstance(t, (nodes.List, nodes.Tuple)) and t.items and isinstance(t.items[0], nodes.Const) \
                and isinstance(t.items[0].value, str):
            return t.items[0].value
        return None

    def targets(t) -> set:
        if isinstance(t, nodes.Name):
            return {t.name}
        return {n.name for n in t.find_all(nodes.Name)} if isinstance(t, nodes.Tuple) else set()

    def reads(expr, cur) -> None:
        if expr is None:
            return
        for n in (expr, *expr.find_all(nodes.Name)):
            if isinstance(n, nodes.Name) and n.ctx == "load" and n.name not in cur:
                unset.add(n.name)

    def walk(body, bound: frozenset) -> frozenset:
        cur = bound
        for n in body:
            if isinstance(n, nodes.AssignBlock):
                walk(n.body, cur)
                reads(n.filter, cur)
                cur = cur | targets(n.target)
            elif isinstance(n, nodes.Assign):
                reads(n.node, cur)
                cur = cur | targets(n.target)
            elif isinstance(n, nodes.For):
                reads(n.iter, cur)
                inner = cur | targets(n.target) | {"loop"}
                reads(n.test, inner)
                walk(n.body, inner)
                walk(n.else_, cur)
            elif isinstance(n, nodes.If):
                reads(n.test, cur)
                after = [walk(n.body, cur)]
                for e in n.elif_:
                    reads(e.test, cur)
                    after.append(walk(e.body, cur))
                after.append(walk(n.else_, cur))
                cur = frozenset.intersection(*after)
            elif isinstance(n, (nodes.Macro, nodes.CallBlock)):
                for d in n.defaults:
                    reads(d, cur)
                if isinstance(n, nodes.CallBlock):
                    reads(n.call, cur)
                walk(n.body, cur | {a.name for a in n.args} | {"caller", "varargs", "kwargs"})
                if isinstance(n, nodes.Macro):
                    cur = cur | {n.name}
            elif isinstance(n, nodes.With):
                for v in n.values:
                    reads(v, cur)
                walk(n.body, cur | {t for tgt in n.targets for t in targets(tgt)})
            else:
                for child in n.iter_child_nodes():
                    if isinstance(child, nodes.Expr):
                        reads(child, cur)
                if isinstance(n, (nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport)):
                    ref = const_name(n.template)
                    if ref is not None:
                        out.append((ref, cur, id(n)))
                    if isinstance(n, nodes.Import):
                        cur = cur | {n.target}
                    elif isinstance(n, nodes.FromImport):
                        cur = cur | {a if isinstance(a, str) else a[-1] for a in n.names}
                elif isinstance(getattr(n, "body", None), list):  # (block, filter block, scoped modifiers)
                    walk(n.body, cur)
        return cur

    try:
        top = walk(tree.body, frozenset())
    except RecursionError:  # (nested past the interpreter's limit: the compiler refuses it too)
        got = kinds[_scope_walk] = ([], None)
        return got
    # (a child template's top-level `{% set %}`s run before its parent renders, wherever the `{% extends %}` is)
    extended = {id(n) for n in _of(kinds, nodes.Extends)}
    got = kinds[_scope_walk] = ([(ref, top | here) if site in extended else (ref, here) for ref, here, site in out],
                                unset)
    return got


#: the templates an include / extends chain is followed through for the role variable
MAX_REACHED = 32


def _reached_role_info(env, state, name: str) -> RoleInfo:
    """The :class:`RoleInfo` of ``name`` and of the templates it includes, extends or imports (by constant
    names, at most MAX_REACHED): a role variable used only in a partial (``{% include "_base.j2" %}`` whose text
    has ``--disaggregation-mode {{ role }}``) is the template's role variable, as it is when written in the
    template itself (it was rendered once, ``role`` undefined: PD005 + PD021; hostile-input round rw27/h item P24).
    A template that cannot be loaded here is reported when the render reaches it."""
    info = state.role_info.get(name, RoleInfo())
    if not state.refs.get(name):
        free = state.free.get(name)
        return info if free is None else replace(info, free=set(free))
    merged = RoleInfo(free=set(), read_unset=set())
    # (each reached template with the names the templates above it on the way bind: `{% for role in [...] %}{%
    # include "launch.j2" %}` gives launch.j2 the loop's `role`, which is no input of the whole template - it was
    # rendered per role, both launches in each render, a false PD101 for each: hostile-input round rw29/h P11.
    # A name is bound for a template only when every path that reaches it binds it: the bound set of the first
    # path alone dropped `role` for a launch.j2 also included at the top level, where `role` is the template's
    # input - rendered once, role undefined, the decode render's SGL005 missed: hostile-input round rw30/h P12)
    bound = {name: frozenset()}
    order, todo, steps, resolved = [name], [name], 0, {}
    while todo:
        cur = todo.pop(0)
        steps += 1
        if steps > MAX_REACHED * 16:  # (bound sets only shrink; past this, none is taken as bound)
            bound = dict.fromkeys(bound, frozenset())
            break
        for ref, here in state.refs.get(cur, ()):
            below = bound[cur] | here
            loaded = resolved.get((cur, ref), resolved)
            if loaded is resolved:
                if len(bound) >= MAX_REACHED:  # (no template is added past the cap: none is loaded for it)
                    continue
                try:
                    loaded = env.get_template(ref, parent=cur).name
                except MemoryError:
                    raise
                except Exception:  # (not found, a syntax error, outside the repository: the render reports it)
                    loaded = None
                resolved[(cur, ref)] = loaded
            if loaded is None:
                continue
            if loaded not in bound:
                if len(bound) >= MAX_REACHED:
                    continue
                bound[loaded] = below
                order.append(loaded)
            elif bound[loaded] <= below:
                continue
            else:
                bound[loaded] = bound[loaded] & below
            if loaded not in todo:
                todo.append(loaded)
    for cur in order:
        part = state.role_info.get(cur)
        if part is not None:
            for k, v in part.compared.items():
                merged.compared.setdefault(k, []).extend(v)
            merged.after_flag |= part.after_flag
            merged.names |= part.names
            merged.assigned |= part.assigned
            for k, v in part.guards.items():
                merged.guards.setdefault(k, set()).update(v)
            for k, (_, line) in part.guard_at.items():
                merged.guard_at.setdefault(k, (cur, line))
            for k, v in part.tested_through.items():
                merged.tested_through.setdefault(k, set()).update(v)
            if part.read_unset is None or merged.read_unset is None:
                merged.read_unset = None
            else:
                merged.read_unset |= part.read_unset - bound[cur]
        free = state.free.get(cur)
        if free is None or merged.free is None:
            merged.free = None
        else:
            merged.free |= free - bound[cur]
    return merged


def choose_role_var(info: RoleInfo, known_vars: set, given: frozenset = frozenset()) -> tuple:
    """(name, {canonical role: literal}) or (None, {}); ``given``: names whose value the deployment tool gives
    the template (an Ansible play's variables), never enumerated.

    A role name the template sets itself from a role switch it reads (``{% if is_prefill %}{% set role =
    "prefill" %}{% else %}{% set role = "decode" %}{% endif %}``: Jinja reads ``role`` from the context only
    when neither branch ran) gives way to the switch: rendering ``role`` per role gave both renders the role the
    unset switch chose, and the other render a false PD101."""
    name, values = _choose_role_var(info, known_vars, given)
    # the role name the template sets itself: the chosen one, else one after --disaggregation-mode or compared
    # with role words
    targets = ({name} & info.assigned) if name is not None else _self_set_roles(info)
    if targets and info.free is not None:
        # the switches the assignment depends on (through the names it reads, as far as they are set in turn);
        # never another switch the template happens to read (`{% if enable_decode_radix_off %}`: rendered per its
        # value, both renders took the unset role switch's branch, a false PD101; hostile-input round rw29/h P2),
        # and none for a name a `{% for %}` binds (both launches in one render)
        deciding = _deciding(info, targets)
        for other in sorted(deciding):
            parts = _name_parts(other)
            if other != name and other in info.free and other not in known_vars and other not in given \
                    and other not in info.assigned and parts and parts[-1] not in _VALUE_WORDS \
                    and switch_values(other) is not None:
                return other, switch_values(other)
        if targets <= info.always_set():
            # the template sets its role name on every path before reading it (`{% if node_type == "ctx" %}{% set
            # mode = "prefill" %}{% else %}{% set mode = "decode" %}{% endif %}`): never the role variable - each
            # render's "role" was the value the template discarded, a false PD101 in each, also with `--var
            # node_type=ctx` (hostile-input round rw30/h P13). Rendered per value of a guard it compares with role
            # words (`"ctx"`: the prefill value), once when that is given or there is none
            for other in sorted(deciding):
                roles = {ROLE_SYNONYMS.get(v.lower()) for v in info.compared.get(other, ())} - {None}
                if other in info.free and other not in given and other not in info.assigned and roles:
                    return (None, {}) if other in known_vars else (other, _role_values(info.compared[other]))
            return None, {}
    return name, values


MAX_GUARDS = 256  # names followed back from a role name the template sets


def _deciding(info: RoleInfo, targets: set) -> set:
    """The names whose values decide what the template assigns to ``targets`` (through the names those read, as
    far as they are set in turn; at most :data:`MAX_GUARDS`)."""
    deciding, todo = set(), sorted(targets)
    while todo and len(deciding) < MAX_GUARDS:
        for n in sorted(info.guards.get(todo.pop(), ())):
            if n not in deciding:
                deciding.add(n)
                if n in info.assigned:
                    todo.append(n)
    return deciding


def undecided_guards(info: RoleInfo, known_vars: set, given: frozenset = frozenset()) -> list:
    """``[(guard, role name)]``: when the template sets its launches' role name itself on every path from a variable
    nothing gives it and pdlint found no role word it is compared with (``node_type | replace("-", "_") ==
    "ctx"``, ``node_type in ctx_types``), so that :func:`choose_role_var` renders it once - for the branch the
    unset variable takes. The other branches' roles went unrendered: said, never a clean pass (hostile-input
    round rw31/h P6)."""
    targets = _self_set_roles(info)
    if not targets or info.free is None or not targets <= info.always_set():
        return []
    out = []
    for target in sorted(targets):
        for g in sorted(_deciding(info, {target})):
            if g in info.free and g not in known_vars and g not in given and g not in info.assigned \
                    and all(g != o for o, _ in out):
                out.append((g, target))
    return out


def _self_set_roles(info: RoleInfo) -> set:
    """The names the template assigns (``{% set %}``, ``{% for %}``) that hold a launch's role: rendered right
    after ``--disaggregation-mode``, or compared with role words."""
    return (info.after_flag & info.assigned) | \
        {n for n, vs in info.compared.items() if n in info.assigned and {ROLE_SYNONYMS.get(v.lower()) for v in vs} - {None}}


def _choose_role_var(info: RoleInfo, known_vars: set, given: frozenset = frozenset()) -> tuple:
    """:func:`choose_role_var` before a switch that sets the chosen name is preferred."""
    if info.free is not None:  # names the template binds itself are not its inputs
        given = given | (info.names - info.free) | (set(info.compared) - info.free) | (info.after_flag - info.free)
    scored = []
    for name, values in info.compared.items():
        if name in given:
            continue
        roles = {ROLE_SYNONYMS.get(v.lower()) for v in values} - {None}
        if roles:
            scored.append((-len(roles), -len(values), name))
    if scored:
        scored.sort()
        name = scored[0][2]
        return name, _role_values(info.compared[name])
    for name in sorted(info.after_flag):
        if name not in given:
            return name, {"prefill": "prefill", "decode": "decode"}
    for name in ROLE_NAMES:
        if name in info.names and name not in info.assigned and name not in known_vars and name not in given:
            return name, {"prefill": "prefill", "decode": "decode"}
    return None, {}


def _name_parts(name: str) -> list:
    return [p for p in re.split(r"[_\-]+", name.lower()) if p]


#: last words of a variable name that names a value (of one role's server), not a boolean switch
_VALUE_WORDS = frozenset({"port", "ports", "path", "dir", "host", "hosts", "addr", "address", "url", "urls", "ip",
                          "model", "args", "image", "file", "size", "num", "count", "gpus", "tp", "dp", "ep", "pp",
                          "config", "cmd", "command", "name", "replicas", "nodes", "env", "memory", "mem", "backend",
                          "flags", "opts", "options", "extra", "id", "ids", "devices", "list", "len", "length"})


def switch_values(name: str) -> Optional[dict]:
    """The values of a boolean role switch for each role (``is_prefill``: true on prefill, false on decode;
    ``is_decode`` the other way round), or None when ``name`` names one role not exactly once."""
    roles = {ROLE_SYNONYMS.get(p) for p in _name_parts(name) if p in ("prefill", "decode", "prefiller", "decoder")}
    if len(roles) != 1:
        return None
    (role,) = roles
    return {"prefill": role == "prefill", "decode": role == "decode"}


#: flags or role words in what a test guards: a variable it tests picks launch text (a role, a flag)
_LAUNCH_WORDS = lazyre.compile(r"(?<![\w-])--[A-Za-z]|prefill|decode|kv_producer|kv_consumer|kv_both", re.I)
_BLOCK_END = lazyre.compile(r"\{%[-+]?\s*(?:endif|else|elif)\b")
#: the block tags a guard's body may nest (their ends do not end the guard: rw25/h item 9)
_BLOCK_TAG = lazyre.compile(r"\{%[-+]?\s*(if|for|endif|endfor|else|elif)\b")


def _guards_launch_text(src, line: int, most: int = 64, test_on_line: bool = True) -> bool:
    """Do the test on ``line`` of ``src`` and what it guards (up to the ``{% endif %}`` / ``{% else %}``, at most
    ``most`` lines) hold flags or role words?  Then a variable only tested there picks launch text
    (``--disaggregation-mode {{ "prefill" if is_first else "decode" }}``, field test rw24/h): a PD005 error, as
    a value written out is; a guard of other text (a volume mount) is a warning."""
    if src is None:
        return True
    depth = 0
    for n in range(line, min(line + most, src.line_count + 1)):  # (counted once: one call per undefined name)
        text = src.line_text(n)
        if _LAUNCH_WORDS.search(text) or (n > line and "{{" in text and text.rstrip().endswith("\\")):
            return True  # (a value written into a continued command line: arguments, whatever they hold)
        if n > line and _ITEM_OF_TEMPLATE.match(text) and _list_key(src, n) in ("args", "command"):
            return True  # (`- {{ spec }}`, `- {% include 'spec.part' %}` in a container's args: rw26/h item 14)
        for m in _BLOCK_TAG.finditer(text):
            word = m.group(1)
            if test_on_line and n == line and word in ("if", "for") and depth == 0 and \
                    not _BLOCK_END.search(text, m.end()):
                continue  # (the test itself)
            if word in ("if", "for"):
                depth += 1
            elif word in ("endif", "endfor"):
                depth -= 1
                if depth < 0:
                    return False
            elif depth == 0:  # an `else` / `elif` of the guard: what it guards ends here
                return False
    return False


#: a YAML list item whose value a template writes: ``- {{ spec }}``, ``- {% include 'x' %}``
_ITEM_OF_TEMPLATE = lazyre.compile(r"^([ \t]*)-[ \t]+[\"']?(?:\{\{|\{%[-+]?\s*include\b)")
_KEY_LINE = lazyre.compile(r"^([ \t]*)(?:-[ \t]+)?([\w.-]+):[ \t]*(?:#.*)?$")


def _list_key(src, line: int, most: int = 200) -> Optional[str]:
    """The YAML key whose block list the item on ``line`` is in (``args`` / ``command`` of a container), looked
    for in the lines above it with less indentation (template tags skipped), at most ``most`` lines."""
    indent = len(src.line_text(line)) - len(src.line_text(line).lstrip(" \t"))
    for n in range(line - 1, max(0, line - most), -1):
        text = src.line_text(n)
        stripped = text.strip()
        if not stripped or stripped.startswith(("{%", "{#", "#")):
            continue
        m = _KEY_LINE.match(text)
        if m and len(m.group(1)) <= indent:
            return m.group(2)
        if len(text) - len(text.lstrip(" \t")) < indent and not stripped.startswith("-"):
            return None
    return None


_STMT_WORD = lazyre.compile(r"\{%[-+]?\s*(\w+)")
_ASSIGNED = lazyre.compile(r"\{%[-+]?\s*(?:set|with)\s+([A-Za-z_]\w*)\s*=")
#: what a branch writes that may be launch text: flags, role words, an include (its text)
_BRANCH_LAUNCH = lazyre.compile(_LAUNCH_WORDS.pattern + r"|\{%[-+]?\s*include\b", re.I)
MAX_BRANCH_CHARS = 20_000  # of a branch's text looked at
MAX_DERIVED_TESTS = 64  # later tests of a variable a default or a test was assigned to


def _tag_at(text: str, pos: int) -> Optional[tuple]:
    """``(start, end, expression?)`` of the Jinja tag ``pos`` is in (``{{ }}`` or ``{% %}``), or None.  Linear: the
    last opener before ``pos`` (a regex over every ``{{`` of a line of many, with no ``}}``, was quadratic -
    rw26/h item 2), also for a tag written over several lines (rw26/h item 5)."""
    s, p = text.rfind("{{", 0, pos), text.rfind("{%", 0, pos)
    start = max(s, p)
    if start < 0:
        return None
    close = "}}" if start == s else "%}"
    end = text.find(close, start + 2)
    if 0 <= end < pos:
        return None
    return start, (end + 2 if end >= 0 else len(text)), start == s


def _branch(text: str, after: int) -> tuple:
    """``(start, end)`` of the branch a test's tag ending at ``after`` guards: to its ``{% else %}`` /
    ``{% elif %}`` / ``{% endif %}`` (nested blocks skipped), at most :data:`MAX_BRANCH_CHARS`."""
    depth = 0
    stop = min(len(text), after + MAX_BRANCH_CHARS)
    for m in _BLOCK_TAG.finditer(text, after, stop):
        word = m.group(1)
        if word in ("if", "for"):
            depth += 1
        elif word in ("endif", "endfor"):
            if depth == 0:
                return after, m.start()
            depth -= 1
        elif depth == 0:
            return after, m.start()
    return after, stop


def _guarded(text: str, pos: int) -> Optional[list]:
    """The branches (``(start, end)`` spans) a test of the name at ``pos`` decides: the ``{% if %}`` /
    ``{% elif %}`` branch it is the test of, the inline ``{{ a if b }}`` it is in, or, when the test's answer is
    assigned (``{% set s = spec | default(false) %}``, ``{% with %}``, ``namespace(spec=spec is defined)``), the
    branches of the later tests of that name; None where the name is in no test."""
    tag = _tag_at(text, pos)
    if tag is None:
        return None
    start, end, expression = tag
    if expression:
        return [(start, end)] if re.search(r"\bif\b", text[start + 2:pos]) else None
    word = _STMT_WORD.match(text, start)
    if word is None:
        return None
    if word.group(1) in ("if", "elif"):
        return [_branch(text, end)]
    assigned = _ASSIGNED.match(text, start)
    if assigned is None:
        return None
    name = re.compile(r"(?<![\w.])" + re.escape(assigned.group(1)) + r"(?!\w)")
    out: list = []
    for m in name.finditer(text, end, min(len(text), end + 16 * MAX_BRANCH_CHARS)):
        later = _guarded(text, m.start()) if not _ASSIGNED.match(text, max(text.rfind("{%", 0, m.start()), 0)) \
            else None
        if later:
            out += later
        if len(out) >= MAX_DERIVED_TESTS:
            break
    return out or None


def _rendered_spans(tstr, src) -> Optional[list]:
    """The spans of ``src`` a traced render wrote (sorted), None when the render is not traced."""
    if tstr is None:
        return None
    out = []
    for p in tstr.pieces:
        if p.src is src or (p.src is not None and src is not None and p.src.path == src.path):
            out.append((p.offset, p.offset + (p.end - p.start if p.exact else 1)))
    return sorted(out)


def _unrendered_guard(name: str, src, line: int, variables: dict, role_vars: dict,
                      rendered: Optional[list] = None) -> Optional[Problem]:
    """The problem of a branch of launch text guarded by a test of ``name`` (``is defined``, ``| default(false)``,
    ``is true``, ``is string``...: Jinja answers it for an unset variable without an error) for a ``name`` nothing
    gives a value, when the render did not write that branch (``rendered``: the spans of ``src`` it wrote; None:
    unknown, taken as not written): the flags it guards were never rendered, hence never checked (a PD020 warning,
    so that ``--strict`` fails).  A guard of other text, a branch the render wrote (``is not defined``), or a
    variable set for one role only, says nothing."""
    if src is None or name in variables or any(name in vs for vs in role_vars.values()):
        return None
    text = src.text
    word = re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])")
    columns: list = []
    for at in (line, line + 1, line + 2):  # (Jinja may give the line before a `{%-` tag: its `-` took the break)
        columns = [m.start() for m in word.finditer(src.line_text(at))]
        if columns:
            line = at
            break
    columns = columns or [len(src.line_text(line))]  # (a test of `s`, set from the name on an earlier line)
    for column in columns:  # each test of the name on the line: the first whose branch of launch text is unwritten
        branches = _guarded(text, src.offset_of(line, column + 1)) or []
        if any(_BRANCH_LAUNCH.search(text, b[0], b[1]) and
               not (rendered and any(a < b[1] and b[0] < e for a, e in rendered)) for b in branches):
            break
    else:
        return None
    return Problem("unrendered", f"launch text guarded by '{name}' on this line was not rendered: no file pdlint "
                                 f"read sets '{name}', so Jinja took it as unset and what it guards went unchecked",
                   src, line, column + 1,
                   f"give '{name}' the value the deployment gives it (`--var {name}=...`, or `{name} = ...` under "
                   f"`[tool.pdlint.vars]`) to check that branch, or `# pdlint: ignore[PD020]` if it is never set")


def undefined_message(name: str, role_var: Optional[str], variables: dict, role_vars: dict,
                      role_info: dict, self_roles: bool = False) -> tuple:
    """(message, hint) of an undefined variable: a did-you-mean over the names the template can see (the
    config's, values files', ``--var``, per-role variables, the role variable, names the template and
    its includes set), and, for a name that looks like a role switch (``is_prefill``, ``prefill_mode``,
    ``pd_role``), how to give it its value per role.  ``self_roles``: the template sets its launches' roles
    itself (``{% for r in ["prefill", "decode"] %}``: both launches in one render), so no role variable is to
    be named and a switch takes one value."""
    from pdlint.suggest import close_matches
    defined = set(variables) | {k for vs in role_vars.values() for k in vs}
    for info in role_info.values():
        defined |= info.assigned
    if role_var:
        defined.add(role_var)
    defined.discard(name)
    close = close_matches(name, sorted(defined), 2)
    message = f"undefined variable '{name}'"
    if close:
        message += "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    parts = _name_parts(name)
    hint = None
    if name == role_var or close:
        return message, hint
    # (`sglang_prefill_port`, `decode_model_path`: a value of one role's server, no switch)
    switch = switch_values(name) if parts[-1:] and parts[-1] not in _VALUE_WORDS else None
    if switch is not None:
        on = [r for r in ("prefill", "decode") if switch[r]][0]
        off = "decode" if on == "prefill" else "prefill"
        if self_roles and not role_var:
            hint = (f"'{name}' looks like a role switch, but this template sets its launches' roles itself (one "
                    f"render): give it its value, `--var {name}=true` or `{name} = true` in `[tool.pdlint.vars]`")
        elif role_var:
            hint = (f"'{name}' looks like a role switch: give it its value per role, `{name} = true` in "
                    f"`[tool.pdlint.roles.{on}.vars]` and `{name} = false` in `[tool.pdlint.roles.{off}.vars]` "
                    f"(this template renders once per value of its role variable '{role_var}')")
        else:
            hint = (f"'{name}' looks like a role switch: name it with `role-var = \"{name}\"` (or "
                    f"`--role-var {name}`): pdlint then renders the template twice, with {name} true for {on} "
                    f"and false for {off}")
    elif not role_var and not self_roles and ("role" in parts or (parts[-1:] == ["mode"] and len(parts) > 1) or name in ROLE_NAMES):
        hint = (f"'{name}' looks like the role variable: name it with `role-var = \"{name}\"` (or "
                f"`--role-var {name}`), and pdlint renders the template once per role")
    return message, hint


def _role_values(values: list) -> dict:
    out: dict = {}
    for v in values:
        role = ROLE_SYNONYMS.get(v.lower())
        if role and role not in out:
            out[role] = v
    for role in ("prefill", "decode"):
        out.setdefault(role, role)
    return {"prefill": out["prefill"], "decode": out["decode"]}


# ---------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------

def _alarm(seconds: float):
    """A wall-clock bound on one render (SIGALRM, main thread on POSIX only), nested in the file's
    budget (:func:`pdlint.budget.deadline`)."""
    from pdlint.budget import deadline
    return deadline(seconds, RenderTimeout)


def render_template(src: SourceFile, name: str, *, root: str, cwd: str, variables: dict,
                    role_var: Optional[str], role_vars: dict, limits: Limits,
                    read_file: Callable[[str], Optional[SourceFile]], search_dirs: tuple = (),
                    options: Optional[JinjaOptions] = None, value_positions: Optional[dict] = None,
                    given: frozenset = frozenset()) -> tuple:
    """Render ``src`` (repository-relative ``name``) once per role (``given``: variables whose value the
    deployment tool gives, never a role variable to enumerate).

    Returns ``(renders, problems, role_var)``; ``renders`` is a list of
    :class:`Rendered`; problems are located template diagnostics.
    """
    jinja2 = _jinja()
    state = _State(root, cwd, limits, read_file, options)
    state.value_positions = value_positions or {}
    state.sources[name] = src
    state.main = name
    state.search_dirs = list(search_dirs)
    env = make_environment(state, traced=True)
    problems: list = []
    try:
        template = env.get_template(name)
    except jinja2.TemplateSyntaxError as e:
        where = state.sources.get(e.name or name, src) if e.name else src
        return [], [Problem("syntax", e.message or "template syntax error", where, e.lineno or 1)], None
    except jinja2.TemplateNotFound as e:
        return [], [Problem("include", _not_found_message(e, state.search_dirs), src, 1)], None
    except RecursionError:
        return [], [Problem("render", "template nesting too deep", src, 1)], None
    budget.stage("jinja render")
    info = _reached_role_info(env, state, name)
    known = set(variables)
    var, values = (role_var, {"prefill": "prefill", "decode": "decode"}) if role_var else \
        choose_role_var(info, known, given)
    if role_var and info.compared.get(role_var):
        values = _role_values(info.compared[role_var])
    elif role_var and switch_values(role_var):  # a boolean switch ({% if is_prefill %}): true for its role
        values = switch_values(role_var)
    blind = None
    if var and info.tested_through.get(var):
        blind = through_unknown(info, var, {k for k, f in env.filters.items() if getattr(f, "_pdl_opaque", False)})
        if blind is not None:
            blind_var, var = var, None  # (rendered once: both values took the branch the stand-in's result chose)
    roles = [("prefill", values["prefill"]), ("decode", values["decode"])] if var else [(None, None)]
    renders: list = []
    for role, value in roles:
        ctx = dict(variables)
        if role is not None:
            ctx.update(role_vars.get(role, {}))
            ctx[var] = value
        state.undefined = []
        risky_before = state.risky
        out, err = _render_once(template, ctx, state, limits)
        if err is not None:
            problems.append(err)
            continue
        optional_uses = []
        for uname, usrc, uline, utest in state.undefined:
            if utest == OPTIONAL:
                optional_uses.append((uname, usrc or src, uline))
                continue
            message, hint = undefined_message(uname, var, variables, role_vars, state.role_info,
                                              var is None and bool(_self_set_roles(info)))
            # (a test of a name close to a defined one, or of a role switch, stays the error it was: a typo, or the
            # role variable pdlint must be told)
            problems.append(Problem("undefined", message, usrc or src, uline,
                                    _name_column(usrc or src, uline, uname), hint,
                                    utest and hint is None and "did you mean" not in message
                                    and not _guards_launch_text(usrc or src, uline)))
        tstr, traced = _decode(out, state)
        for uname, usrc, uline in dict.fromkeys(optional_uses):
            p = _unrendered_guard(uname, usrc, uline, variables, role_vars,
                                  _rendered_spans(tstr if traced else None, usrc))
            if p is not None:
                problems.append(p)
        if state.risky or risky_before:
            plain_state = _State(root, cwd, limits, read_file, options)
            plain_state.sources = dict(state.sources)
            plain_state.search_dirs = state.search_dirs
            plain_state.main = name
            plain_state.traced = False
            plain_env = make_environment(plain_state, traced=False)
            try:
                plain_out, _ = _render_once(plain_env.get_template(name), ctx, plain_state, limits)
            except MemoryError:
                raise
            except Exception:  # same template compiled once already: should not fail
                plain_out = None
            if plain_out is not None and plain_out != tstr.text:
                budget.stage("source alignment")
                tstr, traced = _align_fallback(plain_out, src), False
                budget.stage("jinja render")
        renders.append(Rendered(tstr, role, var, value, traced))
        if blind is not None:
            problems.append(_guard_problem(
                info, state, src, name, blind_var,
                f"'{blind_var}' decides the role this template renders, but every test reads it through `{blind}`, "
                f"a filter whose result pdlint cannot see: rendered once (the test taken as true), so the launch "
                f"text of the other role went unchecked", _blind_hint(blind, blind_var)))
        elif var is None and not role_var:
            problems += _undecided_role_problems(info, state, env, src, name, variables, given, problems)
    problems += unknown_problems(state, src)
    return renders, _dedupe_problems(problems), var


def _guard_problem(info: RoleInfo, state: _State, src: SourceFile, name: str, guard: str, message: str,
                   hint: str) -> Problem:
    """A PD020 note (``unrendered``) at the first read of the role guard ``guard`` (:attr:`RoleInfo.guard_at`)."""
    where, line = info.guard_at.get(guard, (None, 1))
    gsrc = state.sources.get(where or name) or src
    return Problem("unrendered", message, gsrc, line, _name_column(gsrc, line, guard), hint)


def _undecided_role_problems(info: RoleInfo, state: _State, env, src: SourceFile, name: str, variables: dict,
                             given: frozenset, problems: list) -> list:
    """A PD020 note for each variable the template's own role name is set from that the render took as unset,
    when pdlint could not tell its value for each role (:func:`undecided_guards`): only the branch the unset value
    takes was rendered. Not for one already reported (an undefined variable the test reads, PD005; a guard whose
    branch went unrendered, PD020)."""
    said = {n for n, _, _, test in state.undefined if test != OPTIONAL} | \
        {p.message.split("'")[1] for p in problems if p.code == "unrendered" and "'" in p.message}
    out = []
    for guard, target in undecided_guards(info, set(variables), given):
        if guard in said or guard in env.globals:
            continue
        out.append(_guard_problem(
            info, state, src, name, guard,
            f"'{guard}' decides the role this template gives its launch ('{target}', set on every path), but no "
            f"file pdlint read sets it and pdlint cannot tell its value for prefill and for decode: rendered once "
            f"with '{guard}' unset, so the launch text of the other role went unchecked",
            f"give '{guard}' the value the deployment gives it (`--var {guard}=...`, one run per value, or `{guard} "
            f"= ...` under `[tool.pdlint.vars]`) to check that render, or compare it with a role word "
            f"(`{guard} == \"prefill\"`) so that pdlint renders one launch per role"))
    return out


def _render_once(template, ctx: dict, state: _State, limits: Limits) -> tuple:
    jinja2 = _jinja()
    chunks: list = []
    size = 0
    try:
        with _alarm(limits.render_seconds):
            for chunk in template.generate(ctx):
                size += len(chunk)
                if size > limits.max_output:
                    src, line = state.sources.get(template.name), 1
                    return None, Problem("limit", f"rendered output exceeds {limits.max_output} characters",
                                         src, line)
                chunks.append(chunk)
    except RenderTimeout:
        return None, Problem("limit", f"rendering took longer than {limits.render_seconds:g} s",
                             state.sources.get(template.name), 1)
    except jinja2.TemplateNotFound as e:
        src, line = _exc_location(state, template)
        return None, Problem("include", _not_found_message(e, state.search_dirs), src, line)
    except jinja2.TemplateSyntaxError as e:
        where = state.sources.get(e.name) if e.name else None
        return None, Problem("syntax", e.message or "template syntax error",
                             where or state.sources.get(template.name), e.lineno or 1)
    except jinja2.exceptions.SecurityError as e:
        src, line = _exc_location(state, template)
        return None, Problem("render", f"unsafe operation refused by the sandbox: {e}", src, line)
    except RecursionError:
        src, line = _exc_location(state, template)
        return None, Problem("render", "template recursion too deep", src, line)
    except MemoryError:  # the file's memory budget (pdlint.budget): not the template's error
        raise
    except Exception as e:  # any other failure inside the template (TypeError, ZeroDivisionError ...)
        src, line = _exc_location(state, template)
        return None, Problem("render", f"{type(e).__name__}: {e}", src, line)
    return "".join(chunks), None


def _exc_location(state: _State, template) -> tuple:
    """The innermost template frame of the current exception.  Jinja rewrites
    tracebacks so that template frames carry the template name as file name
    and the template line as line number."""
    tb = sys.exc_info()[2]
    src, line = state.sources.get(template.name), 1
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name in state.sources:
            src, line = state.sources[name], tb.tb_lineno
        tb = tb.tb_next
    return src, line


def _not_found_message(e, search_dirs: list = ()) -> str:
    msg = getattr(e, "message", None) or str(e)
    if "outside the repository" in msg or " is not read: " in msg:
        return msg
    dirs = [d for d in search_dirs if d != "."]
    then = f", then to {', '.join(dirs[:6])}{', ...' if len(dirs) > 6 else ''}" if dirs else ""
    return (f"template not found: {getattr(e, 'name', msg)!s} (includes resolve relative to the including "
            f"template{then}, inside the repository)")


def _name_column(src: SourceFile, line: int, name: str) -> int:
    text = src.line_text(line) if src else ""
    # the name as a template identifier, not inside a flag such as --model-path
    m = re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])", text)
    return m.start() + 1 if m else 1


def _dedupe_problems(problems: list) -> list:
    seen, out = set(), []
    for p in problems:
        key = (p.code, p.message, p.src.path if p.src else None, p.line)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


# one token of marked output: an opening marker, a closing one, a run of text, or an opening
# marker without its segment id (template text holding the marker characters: decoded the slow way)
_DECODE_RE = lazyre.compile(f"{OPEN}([0-9]+){SEP}|({CLOSE})|([^{OPEN}{CLOSE}]+)|{OPEN}")


def _decode(marked: str, state: _State) -> tuple:
    """Strip markers into a TStr whose pieces follow the innermost segment."""
    if OPEN not in marked:
        return TStr(marked, ()), False
    segs = state.segments
    out: list = []
    pieces: list = []
    stack: list = []  # [segment id, chars consumed]
    chain = ()  # the hops of the segments below the innermost one (None: to compute)
    hops: dict = {}  # segment id -> its hop (a loop prints one expression's segment many times)
    pos = 0
    # findall's (segment id, close, run): one of them non-empty, or none for a bare opening
    # marker (no match objects and group calls: a fifth of the decoding time)
    for sid, close, run in _DECODE_RE.findall(marked):
        if run:
            out.append(run)
            n = len(run)
            if stack:
                top = stack[-1]
                seg = segs[top[0]]
                if chain is None:
                    chain = tuple(hops.get(s) or hops.setdefault(s, _hop(segs[s]))
                                  for s, _ in stack[:-1] if segs[s].note)
                off = seg.offset + top[1] if seg.exact else seg.offset
                pieces.append(Piece(pos, pos + n, seg.src, off, chain, seg.exact, seg.opaque))
                top[1] += n
            pos += n
        elif sid:
            if not sid.isascii() or int(sid) >= len(segs):  # the input's own marker characters
                return _decode_slow(marked, state)
            stack.append([int(sid), 0])
            chain = None
        elif close:
            if stack:
                stack.pop()
                chain = None
        else:
            return _decode_slow(marked, state)
    return TStr("".join(out), tuple(pieces)), True


def _decode_slow(marked: str, state: _State) -> tuple:
    """:func:`_decode` one character at a time (output holding marker characters of its own: where they do
    not open a segment pdlint made, or close one that is open, they are text)."""
    segs = state.segments
    out: list = []
    pieces: list = []
    stack: list = []  # [segment id, chars consumed]
    n = len(marked)
    i = 0
    pos = 0
    while i < n:
        c = marked[i]
        if c == OPEN:
            j = marked.find(SEP, i, i + 12)
            digits = marked[i + 1:j] if j > i else ""
            if digits.isdigit() and digits.isascii() and int(digits) < len(segs):
                stack.append([int(digits), 0])
                i = j + 1
                continue
            # a marker character the input itself holds (template text, a variable's value): text
        elif c == CLOSE and stack:
            stack.pop()
            i += 1
            continue
        j = i + 1
        while j < n and marked[j] not in (OPEN, CLOSE):
            j += 1
        run = marked[i:j]
        out.append(run)
        if stack:
            top = stack[-1]
            seg = segs[top[0]]
            chain = tuple(_hop(segs[s]) for s, _ in stack[:-1] if segs[s].note)
            off = seg.offset + top[1] if seg.exact else seg.offset
            pieces.append(Piece(pos, pos + len(run), seg.src, off, chain, seg.exact, seg.opaque))
            top[1] += len(run)
        pos += len(run)
        i = j
    return TStr("".join(out), tuple(pieces)), True


def _hop(seg: Segment) -> Hop:
    line, col = seg.src.position(seg.offset) if seg.src else (1, 1)
    return Hop(seg.src.path if seg.src else "<template>", line, col, seg.note or "")


def _align_fallback(plain: str, src: SourceFile) -> TStr:
    """Coarse mapping when tracing is unreliable: align output to the template text (bounded:
    :mod:`pdlint.render.align`)."""
    from pdlint.render.align import align
    return align(plain, src)


def strip_markers(text: str) -> str:
    return _MARK_RE.sub("", text)
