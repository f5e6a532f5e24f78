"""YAML documents as positioned node trees.

PyYAML's composer resolves an alias to the very node object of its anchor and
forgets where the alias was written; pdlint needs both (a flag list reached
through ``*common`` belongs to every launch that reaches it, and the finding
must name the alias sites).  So this module builds its own small node tree from
the parser's *events* (libyaml's C parser when available: fast, and its marks
are character indices), keeping:

* every node's character span in the document text,
* anchors (name and position) on the anchored node,
* aliases as :class:`YAlias` nodes pointing at their target.

Nothing is expanded while composing, so alias bombs cost nothing here; walkers
that do expand (:func:`to_python`) count what they produce.
"""

from __future__ import annotations

import re
from typing import Iterator, Optional

import yaml

from pdlint import lazyre
from pdlint.model import Hop
from pdlint.records import dataclass, field
from pdlint.text import Piece, TStr

try:  # pragma: no cover - depends on the installed PyYAML build
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


class YamlError(Exception):
    """A document that does not parse.  ``index`` is a character index into the text (where the error was
    found); ``context_index`` where the construct it was found in began (PyYAML's context mark: the ``[``
    of an unclosed flow sequence, the quote of an unclosed string), ``context`` and ``problem`` the two
    halves of the message."""

    def __init__(self, message: str, index: int, context_index: Optional[int] = None,
                 context: Optional[str] = None, problem: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.index = index
        self.context_index = context_index
        self.context = context
        self.problem = problem

    def message_in(self, doc) -> str:
        """The message naming where the construct began, as a line and column of ``doc`` (the
        :class:`~pdlint.text.TStr` that was parsed: a rendered template maps to its source line)."""
        ci = self.context_index
        if ci is None or ci == self.index or not self.context or not self.problem or not doc.pieces:
            return self.message
        o, here = doc.origin_at(ci), doc.origin_at(self.index)
        if o.path.startswith("<"):
            return self.message
        where = f"line {o.line}, column {o.column}" + (f" of {o.path}" if o.path != here.path else "")
        verb = "opened" if re.search(r"\b(flow|quoted)\b", self.context) else "started"
        return f"{self.context} ({verb} at {where}), {self.problem}"


class LimitError(YamlError):
    pass


@dataclass(eq=False)
class YNode:
    start: int
    end: int
    tag: Optional[str] = None
    anchor: Optional[str] = None


@dataclass(eq=False)
class YScalar(YNode):
    value: str = ""
    style: Optional[str] = None  # None (plain), "'", '"', "|", ">"
    implicit: tuple = (True, False)


@dataclass(eq=False)
class YSeq(YNode):
    items: list = field(default_factory=list)
    budget: Optional["Budget"] = field(default=None, repr=False)  # the document's (see Budget)


@dataclass(eq=False)
class YMap(YNode):
    pairs: list = field(default_factory=list)  # [(key node, value node)]
    # map_items() per hops chain (() : relative to the mapping itself); the
    # tree does not change after compose()
    memo: dict = field(default_factory=dict, repr=False)
    budget: Optional["Budget"] = field(default=None, repr=False)  # the document's (see Budget)


@dataclass(eq=False)
class YAlias(YNode):
    name: str = ""
    target: Optional[YNode] = None


@dataclass
class YDoc:
    root: Optional[YNode]
    start: int
    end: int
    anchors: dict


#: what merge keys may cost per text, in copied entries plus hops (each
#: merged entry is a Ref with the chain of merge keys and aliases that reached
#: it); a legitimate document uses a few hundred
MAX_MERGE_COST = 500_000
#: nodes :func:`to_python` may produce per text, over all its calls (aliases
#: expanded: a 300-byte "billion laughs" expands to 10^9)
MAX_EXPANSION = 200_000


class Budget:
    """What alias expansion may still cost in one composed text, shared by its
    containers: every walk that expands aliases draws on it, so a document
    read key by key costs no more than one read whole."""

    __slots__ = ("merge", "expand")

    def __init__(self):
        self.merge = MAX_MERGE_COST
        self.expand = MAX_EXPANSION


def compose(text: str, max_nodes: int = 200_000) -> list:
    """Parse every document of ``text`` into :class:`YDoc` trees."""
    docs: list = []
    budget = Budget()
    # the container under construction (``node``) and the list its children go
    # to (``kids``: a sequence's items; a mapping's keys and values in turn,
    # paired when it ends), and those of the containers around it
    stack: list = []
    node = kids = None
    anchors: dict = {}
    count = 0
    loader = None
    # event classes as locals, the most frequent tested first: this loop runs
    # once per event of every YAML text
    Scalar, Alias = yaml.ScalarEvent, yaml.AliasEvent
    SeqStart, MapStart = yaml.SequenceStartEvent, yaml.MappingStartEvent
    SeqEnd, MapEnd = yaml.SequenceEndEvent, yaml.MappingEndEvent
    DocStart, DocEnd = yaml.DocumentStartEvent, yaml.DocumentEndEvent
    try:
        loader = _Loader(text)  # the pure-Python reader can reject the text already here
        get_event = loader.get_event  # yaml.parse() without its generator and check_event() per event
        while True:
            ev = get_event()
            if ev is None:
                break
            kind = ev.__class__
            if kind is Scalar:
                count += 1
                if count > max_nodes:
                    raise LimitError(f"more than {max_nodes} YAML nodes", ev.start_mark.index)
                anchor = ev.anchor
                child = YScalar(ev.start_mark.index, ev.end_mark.index, ev.tag, anchor,
                                ev.value, ev.style or None, ev.implicit)
                if anchor:
                    anchors[anchor] = child
            elif kind is MapEnd or kind is SeqEnd:
                node.end = ev.end_mark.index
                if kind is MapEnd:
                    it = iter(kids)
                    node.pairs = list(zip(it, it))
                node, kids = stack.pop()
                continue
            elif kind is MapStart or kind is SeqStart:
                count += 1
                if count > max_nodes:
                    raise LimitError(f"more than {max_nodes} YAML nodes", ev.start_mark.index)
                anchor = ev.anchor
                cls = YMap if kind is MapStart else YSeq
                child = cls(ev.start_mark.index, ev.end_mark.index, ev.tag, anchor, budget=budget)
                if anchor:
                    anchors[anchor] = child  # before its children: an alias inside may refer to it
                # attached now, its children below it: the order they are written in
                if kids is not None:
                    kids.append(child)
                elif docs:
                    docs[-1].root = child
                stack.append((node, kids))
                node = child
                kids = child.items if kind is SeqStart else []
                continue
            elif kind is Alias:
                count += 1
                if count > max_nodes:
                    raise LimitError(f"more than {max_nodes} YAML nodes", ev.start_mark.index)
                target = anchors.get(ev.anchor)
                if target is None:
                    raise YamlError(f"found undefined alias {ev.anchor!r}", ev.start_mark.index)
                child = YAlias(ev.start_mark.index, ev.end_mark.index, None, None, ev.anchor, target)
            elif kind is DocStart:
                anchors = {}
                doc_start = ev.start_mark.index
                docs.append(YDoc(None, doc_start, doc_start, anchors))
                continue
            elif kind is DocEnd:
                docs[-1].end = ev.end_mark.index
                continue
            else:  # the stream's start and end
                continue
            if kids is not None:
                kids.append(child)
            elif docs:
                docs[-1].root = child
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise YamlError(_yaml_message(e), mark.index if mark else 0,
                        e.context_mark.index if e.context_mark is not None else None, e.context, e.problem) from None
    except yaml.YAMLError as e:
        raise YamlError(str(e).strip(), 0) from None
    finally:
        if loader is not None:
            loader.dispose()
    return docs


def _yaml_message(e: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (e.context, e.problem) if p]
    return ", ".join(parts) if parts else "invalid YAML"


# ---------------------------------------------------------------------------
# Walking with alias awareness
# ---------------------------------------------------------------------------

class Ref:
    """A node as reached from somewhere: ``hops`` are the (use-site index, note)
    references followed to get to it, outermost first.  Immutable by
    convention; a plain slotted class because every tree walk makes one per
    node (a frozen dataclass's ``__init__`` costs five times as much)."""

    __slots__ = ("node", "hops")

    def __init__(self, node: YNode, hops: tuple = ()):
        self.node = node
        self.hops = hops

    def __eq__(self, other) -> bool:
        if other.__class__ is not Ref:
            return NotImplemented
        return self.node == other.node and self.hops == other.hops

    def __hash__(self) -> int:
        return hash((self.node, self.hops))

    def __repr__(self) -> str:
        return f"Ref(node={self.node!r}, hops={self.hops!r})"


def deref(ref: Ref) -> Ref:
    """Follow aliases, recording ``alias *x`` and ``anchor &x`` hops."""
    node, hops, seen = ref.node, ref.hops, 0
    if node.__class__ is not YAlias:
        return ref  # immutable: nothing to follow
    while isinstance(node, YAlias) and node.target is not None:
        seen += 1
        if seen > 64:
            break
        target = node.target
        hops = hops + ((node.start, f"alias *{node.name}"), (target.start, f"anchor &{node.name}"))
        node = target
    return Ref(node, hops)


def scalar_text(ref: Optional[Ref]) -> Optional[str]:
    if ref is None:
        return None
    r = deref(ref)
    return r.node.value if isinstance(r.node, YScalar) else None


def seq_items(ref: Optional[Ref]) -> list:
    if ref is None:
        return []
    r = deref(ref)
    if not isinstance(r.node, YSeq):
        return []
    return [Ref(item, r.hops) for item in r.node.items]


def map_items(ref: Ref) -> tuple:
    """(key text, value Ref) pairs of a mapping, with ``<<`` merge keys applied
    (keys written in the mapping itself win over merged ones).

    Linear in the document: each mapping's merged items are computed once,
    relative to the mapping itself (:func:`_base`), and the hops of the path
    that reached it are prefixed afterwards, once per such path.  A merge-key
    bomb (``mN: &mN {<<: [*mN-1, *mN-1]}``) thus costs one small computation
    per mapping, not one per alias chain (2^N)."""
    if ref is None:
        return ()
    r = deref(ref)
    if not isinstance(r.node, YMap):
        return ()
    return _memoised(r)[0]


def mapping(r: Ref) -> tuple:
    """(:func:`map_items`, {key: :func:`get`'s value}) of ``r``, a :class:`YMap` already dereferenced:
    for a walker that reads both."""
    return _memoised(r)


def _memoised(r: Ref) -> tuple:
    """(items, {key: first value Ref}) of the mapping ``r`` (dereferenced) as
    reached through ``r.hops``."""
    memo = r.node.memo
    cached = memo.get(r.hops)
    if cached is None:
        base = _base(r.node)
        if not r.hops:
            return base
        hops = r.hops
        _spend(r.node, len(base[0]) * (1 + len(hops)))
        items = tuple((k, Ref(v.node, hops + v.hops)) for k, v in base[0])
        cached = memo[hops] = (items, _first(items))
    return cached


def _merge_sources(node: YMap) -> list:
    """The merge sources of a mapping: (merge key node, Ref of a source
    mapping with its hops relative to ``node``)."""
    out = []
    for k, v in node.pairs:
        if isinstance(k, YScalar) and k.value == "<<" and k.style is None:
            vd = deref(Ref(v, ((k.start, "merge key <<"),)))
            sources = ([deref(Ref(i, vd.hops)) for i in vd.node.items] if isinstance(vd.node, YSeq) else [vd])
            out.extend(s for s in sources if isinstance(s.node, YMap))
    return out


def _base(node: YMap) -> tuple:
    """(items, first) of ``node`` relative to itself (hops ``()``), computed
    once per mapping.  Merge sources are resolved bottom-up with an explicit
    stack (a chain of thousands of merges needs no recursion); a merge cycle
    (``&x {<<: *x}``, which an alias to an enclosing anchor can build) reads
    the mapping still being resolved as empty."""
    cached = node.memo.get(())
    if cached is not None:
        return cached
    own, merges = _own(node)
    if not merges:  # most mappings: their own keys are all there is
        items = tuple(own)
        cached = node.memo[()] = (items, _first(items))
        return cached
    stack = [node]
    visiting: set = set()
    while stack:
        n = stack[-1]
        if () in n.memo:
            stack.pop()
            continue
        if id(n) not in visiting:
            visiting.add(id(n))
            pending = [s.node for s in _merge_sources(n) if () not in s.node.memo and id(s.node) not in visiting]
            if pending:
                stack.extend(reversed(pending))
                continue
        n.memo[()] = _items_of(n)
        stack.pop()
    return node.memo[()]


def _own(node: YMap) -> tuple:
    """([(key, value Ref)] of the keys written in ``node`` itself, whether it
    has a ``<<`` merge key)."""
    own: list = []
    merges = False
    for k, v in node.pairs:
        if k.__class__ is YScalar:  # an alias or a collection as a key: no text key
            key = k.value
            if key == "<<" and k.style is None:
                merges = True
            else:
                own.append((key, Ref(v)))
    return own, merges


def _items_of(node: YMap) -> tuple:
    """(items, first) of ``node`` relative to itself, its merge sources'
    bases already computed (a source without one is part of a cycle: empty)."""
    own = _own(node)[0]
    merged: list = []
    for src in _merge_sources(node):
        base = src.node.memo.get(())
        if base is None:
            continue
        hops = src.hops
        _spend(node, sum(2 + len(mv.hops) for _, mv in base[0]))
        merged.extend((mk, Ref(mv.node, hops + mv.hops)) for mk, mv in base[0])
    out = list(own)
    seen = {k for k, _ in own}
    for mk, mv in merged:
        if mk not in seen:
            seen.add(mk)
            out.append((mk, mv))
    items = tuple(out)
    return items, _first(items)


def _spend(node: YMap, cost: int) -> None:
    """Charge merge work to the document's budget (:data:`MAX_MERGE_COST`)."""
    budget = node.budget
    if budget is not None:
        budget.merge -= cost
        if budget.merge < 0:
            raise LimitError(f"YAML aliases and merge keys expand to more than {MAX_MERGE_COST} entries", node.start)


def _first(items: tuple) -> dict:
    first = dict(items)
    if len(first) == len(items):
        return first  # no key written twice (the usual case): dict() keeps each first value, as below
    first = {}
    for k, v in items:
        first.setdefault(k, v)
    return first


def get(ref: Ref, key: str) -> Optional[Ref]:
    """The value of ``key`` (its first occurrence) in the mapping ``ref``, or None."""
    if ref is None:
        return None
    node = ref.node
    if node.__class__ is YAlias:
        ref = deref(ref)
        node = ref.node
    if node.__class__ is not YMap:
        return None
    cached = node.memo.get(ref.hops)  # what _memoised() returns, without its call when known
    return (cached if cached is not None else _memoised(ref))[1].get(key)


def key_node(ref: Ref, key: str) -> Optional[YNode]:
    r = deref(ref)
    if isinstance(r.node, YMap):
        for k, _ in r.node.pairs:
            if isinstance(k, YScalar) and k.value == key:
                return k
    return None


# ---------------------------------------------------------------------------
# Python values
# ---------------------------------------------------------------------------

_resolver = yaml.resolver.Resolver()
_constructor = yaml.constructor.SafeConstructor()


def scalar_value(node: YScalar):
    """The Python value PyYAML's safe loader would give this scalar (YAML 1.1)."""
    tag = node.tag
    if not tag or tag == "!":
        tag = _resolver.resolve(yaml.ScalarNode, node.value, node.implicit)
    snode = yaml.ScalarNode(tag, node.value, style=node.style)
    handler = {
        "tag:yaml.org,2002:null": _constructor.construct_yaml_null,
        "tag:yaml.org,2002:bool": _constructor.construct_yaml_bool,
        "tag:yaml.org,2002:int": _constructor.construct_yaml_int,
        "tag:yaml.org,2002:float": _constructor.construct_yaml_float,
    }.get(tag)
    if handler is None:
        return node.value
    try:
        return handler(snode)
    except Exception:
        return node.value


def to_python(ref: Ref, budget: Optional[Budget] = None):
    """Convert to Python values, expanding aliases.  The number of nodes
    produced is drawn from the document's :class:`Budget` (``budget``: another
    one), over all calls: alias bombs raise :class:`LimitError`."""
    r = deref(ref)
    if budget is None:
        budget = getattr(r.node, "budget", None) or Budget()
    return _to_python(r, budget)


def _to_python(ref: Ref, budget: Budget):
    """Iterative (a values.yaml list nested 400 deep hit Python's recursion limit in `toYaml .Values`, Helm's
    checksum idiom: field test rw22/h)."""
    box: list = [None]
    stack: list = [(ref, box, 0)]  # (node, container, key): the node's value goes to container[key]
    while stack:
        r, into, key = stack.pop()
        r = deref(r)
        budget.expand -= 1
        if budget.expand < 0:
            raise LimitError(f"YAML alias expansion limit exceeded (more than {MAX_EXPANSION} values)", r.node.start)
        n = r.node
        if isinstance(n, YScalar):
            into[key] = scalar_value(n)
        elif isinstance(n, YSeq):
            out = into[key] = [None] * len(n.items)
            stack.extend((Ref(item), out, i) for i, item in reversed(list(enumerate(n.items))))
        elif isinstance(n, YMap):
            items = map_items(Ref(n))
            d = into[key] = {}
            for k, _ in items:
                d[k] = None  # (the keys in their order; a key written twice keeps its first place)
            stack.extend((v, d, k) for k, v in reversed(items))
        else:
            into[key] = None
    return box[0]


def iter_nodes(root: Optional[YNode]) -> Iterator[YNode]:
    """Every node once (aliases not followed)."""
    if root is None:
        return
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, YSeq):
            stack.extend(reversed(n.items))
        elif isinstance(n, YMap):
            for k, v in reversed(n.pairs):
                stack.append(v)
                stack.append(k)


# ---------------------------------------------------------------------------
# Scalar content -> source positions
# ---------------------------------------------------------------------------

def scalar_tstr(doc: TStr, ref: Ref) -> TStr:
    """The scalar's *value* as a traced string: each character maps to where it
    is written in the source (through block-scalar indentation, quotes and
    folding), and the alias/merge hops followed to reach it are recorded."""
    r = deref(ref)
    node = r.node
    if node.__class__ is not YScalar:
        traced = getattr(node, "traced", None)  # a value another tool substituted (srt_sweep.YSwept): as traced
        return apply_hops(traced, doc, r.hops) if traced is not None and isinstance(node, YScalar) else TStr("", ())
    value = node.value
    start, end = node.start, node.end  # marks of the parsed doc.text: in range, as span() needs
    raw = doc.text[start:end]
    if raw[:1] in ("&", "!"):  # an anchor or a tag before the value (`&a "--x"`): its mark starts there
        props = _PROPERTIES.match(raw)
        if props is not None:
            start += props.end()
            raw = raw[props.end():]
    # the common cases, a plain scalar or a quoted one read exactly as written:
    # one run, the same result as the alignment below
    style = node.style
    if style is None and raw == value:
        return apply_hops(doc.span(start, end), doc, r.hops)
    if (style == "'" or style == '"') and raw[1:-1] == value and len(raw) >= 2:
        return apply_hops(doc.span(start + 1, end - 1), doc, r.hops)
    cached = getattr(node, "_aligned", None)  # one alignment per scalar, however many aliases reach it (rw20/h)
    if cached is not None and cached[0] is doc:
        return apply_hops(cached[1], doc, r.hops)
    parts = []
    for vs, ve, rs in _align(value, raw, node.style):
        # same length as the raw run; the text is the value's (a folded line
        # break reads as a space), the positions the raw characters'
        run = doc[start + rs: start + rs + (ve - vs)]
        parts.append(TStr(value[vs:ve], run.pieces))
    out = TStr.join(parts) if parts else TStr("", ())
    if out.text != value:
        # alignment failed somewhere: map the whole value to the scalar start
        o = doc[node.start:node.start + 1]
        p = o.pieces[0] if o.pieces else None
        out = TStr.at(value, p.src if p else None, p.offset if p else 0, p.chain if p else (),
                      exact=False, label=p.label if p else "")
        if "{{" in value and any(q.opaque for q in doc[start:end].pieces):
            # (the template actions go_actions_opaque marked stay opaque: one word each, never split by the shell)
            out = _actions_kept_opaque(out)
    node._aligned = (doc, out)
    return apply_hops(out, doc, r.hops)


def _actions_kept_opaque(t: TStr) -> TStr:
    """``t`` with each ``{{ ... }}`` of its text opaque."""
    parts, at = [], 0
    for m in re.finditer(r"\{\{.*?\}\}", t.text, re.S):
        parts += [t[at:m.start()], t[m.start():m.end()].as_opaque()]
        at = m.end()
    return TStr.join(parts + [t[at:]]) if parts else t


#: the properties (anchor, tag) written before a scalar's value: the scalar's mark starts at them
_PROPERTIES = lazyre.compile(r"(?:[&!][^\s]*[ \t]+)+")


def apply_hops(value: TStr, doc: TStr, hops: tuple) -> TStr:
    """``value`` as reached through ``hops`` (outermost first): each hop, with
    the chain through which its own place was reached, prepended to every
    piece's chain, in one pass (as :meth:`TStr.with_hop` per hop would)."""
    if not hops:
        return value
    head: list = []
    for index, note in hops:
        o = doc.origin_at(index)
        head.extend(o.chain)
        head.append(Hop(o.path, o.line, o.column, note))
    head_t = tuple(head)
    return TStr(value.text, tuple(
        Piece(p.start, p.end, p.src, p.offset, head_t + p.chain, p.exact, p.opaque, p.label)
        for p in value.pieces))


def node_tstr(doc: TStr, ref: Ref) -> TStr:
    """A traced stand-in for a non-scalar node: its source text, hops applied."""
    r = deref(ref)
    return apply_hops(doc[r.node.start:r.node.end], doc, r.hops)


def _align(value: str, raw: str, style: Optional[str]) -> list:
    """Runs (value_start, value_end, raw_start) mapping value chars to raw chars.

    Greedy subsequence alignment: every value character is looked for at or
    after the current raw position (a folded line break matches a space, an
    escape sequence is skipped).  Works for plain, quoted, literal and folded
    scalars without re-implementing each style's rules.
    """
    runs: list = []
    i = 0
    p = 0
    if style in ("|", ">"):
        nl = raw.find("\n")
        p = nl + 1 if nl >= 0 else len(raw)
    elif style in ("'", '"'):
        p = 1
    n, m = len(value), len(raw)
    dq = style == '"'
    cur = None
    while i < n and p < m:
        c = value[i]
        j = p
        limit = min(m, p + 256)
        step = 1
        while j < limit:
            if dq and raw[j] == "\\":  # an escape (`\n`, `\"`, `\x41`): one value character, or none
                ch, step = _dq_escape(raw, j)
                if ch == c:
                    break
                j += step
                continue
            step = 1
            if raw[j] == c or (c == " " and raw[j] == "\n" and style != "|"):
                break
            j += 1
        if j >= limit:
            break  # the caller notices the partial alignment and falls back
        if cur is not None and cur[1] == i and cur[2] + (cur[1] - cur[0]) == j:
            cur[1] = i + 1
        else:
            if cur is not None:
                runs.append(tuple(cur))
            cur = [i, i + 1, j]
        i += 1
        p = j + step
    if cur is not None:
        runs.append(tuple(cur))
    return runs


_DQ_SIMPLE = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
              "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
              "L": "\u2028", "P": "\u2029"}
_DQ_HEX = {"x": 2, "u": 4, "U": 8}


def _dq_escape(raw: str, j: int) -> tuple:
    """The value character of the double-quoted scalar escape at ``raw[j]`` (a backslash) and the escape's length
    in ``raw``; ``""`` for an escaped line break (YAML 1.2 5.7, 7.3.1).  A KServe LLMInferenceServiceConfig's
    script written as one "..." scalar with `\n` escapes (rhaii-on-xks, field test rw26/a): without this no
    character after the first escape was placed, and the Go template actions in it lost their opaque marking."""
    e = raw[j + 1:j + 2]
    if e in _DQ_SIMPLE:
        return _DQ_SIMPLE[e], 2
    if e in _DQ_HEX:
        n = _DQ_HEX[e]
        digits = raw[j + 2:j + 2 + n]
        if len(digits) == n and all(d in "0123456789abcdefABCDEF" for d in digits):
            code = int(digits, 16)
            return (chr(code) if code <= 0x10FFFF else ""), 2 + n
        return "", 2
    if e in ("\n", "\r"):  # an escaped line break: it and the next line's leading blanks are no content
        k = j + 2 + (raw[j + 1:j + 3] == "\r\n")
        while k < len(raw) and raw[k] in " \t":
            k += 1
        return "", k - j
    return "", 1 + bool(e)


#: the start of a Go template action (``{{ .Spec.Model.Name }}``, ``{{- if ... -}}``, ``{{ end }}``)
GO_ACTION = lazyre.compile(r"\{\{-?\s*(?:[.$]|/\*|(?:if|else|end|range|with|define|include|template|toYaml|printf|or|"
                        r"and|not|eq|ne|default|quote|tpl)\b)")


def go_actions_opaque(doc: TStr, docs: list, strict: bool = False) -> Optional[TStr]:
    """``doc`` (a YAML text, composed as ``docs``) with every ``{{ ... }}`` inside a string scalar opaque: a Go
    template action some tool renders later (a Helm ``tpl``, kserve's controller filling an
    LLMInferenceServiceConfig), whose value pdlint cannot see.  ``strict``: None when an action stands outside
    the scalars, or there is none; else ``doc`` itself when nothing changes."""
    text = doc.text
    if "{{" not in text or not GO_ACTION.search(text):
        return None if strict else doc
    spans = sorted((n.start, n.end) for d in docs for n in iter_nodes(d.root)
                   if isinstance(n, YScalar) and "{{" in n.value)
    parts, at = [], 0
    for m in re.finditer(r"\{\{", text):
        if m.start() < at:
            continue  # inside the previous action
        if text[text.rfind("\n", 0, m.start()) + 1:m.start()].lstrip().startswith("#"):
            continue  # a comment line
        end = text.find("}}", m.end())
        if end < 0 or not any(a <= m.start() and end + 2 <= b for a, b in spans):
            if strict:
                return None
            continue
        parts += [doc[at:m.start()], doc[m.start():end + 2].as_opaque()]
        at = end + 2
    if not parts:
        return None if strict else doc
    return TStr.join(parts + [doc[at:]])


# ---------------------------------------------------------------------------
# What yaml.safe_load refuses in a text that composes
# ---------------------------------------------------------------------------

_Y = "tag:yaml.org,2002:"
#: the tags SafeConstructor has a constructor for, by the node kind it constructs them from (a
#: tag on another kind: "expected a scalar node, but found sequence")
_SAFE_SCALAR_TAGS = frozenset(_Y + t for t in ("null", "bool", "int", "float", "binary", "timestamp", "str"))
_SAFE_SEQ_TAGS = frozenset(_Y + t for t in ("seq", "omap", "pairs"))
_SAFE_MAP_TAGS = frozenset(_Y + t for t in ("map", "set"))


def safe_load_refusal(docs: list) -> Optional[tuple]:
    """``(index, message)`` where ``yaml.safe_load`` (and ``yaml.load(..., SafeLoader)``) stops on a text
    :func:`compose` read as ``docs``, or None: a second document (ComposerError), a tag SafeConstructor has
    no constructor for (``!!python/int``, ``!custom``: ConstructorError), a known tag on a node it does
    not construct from, or whose scalar it cannot convert (``!!int abc``), an unhashable (sequence or
    mapping) key.  What SGLang's and vLLM's ``--config`` loaders fail on before they start
    (hostile-input round rw27/h item P15/P16).  Bounded by the document's nodes (aliases not followed)."""
    if len(docs) > 1:
        return docs[1].start, "expected a single document in the stream, but found another document"
    if not docs:
        return None
    for n in iter_nodes(docs[0].root):
        if isinstance(n, YMap):
            for k, _ in n.pairs:
                kn = k.target if isinstance(k, YAlias) else k
                if isinstance(kn, (YSeq, YMap)):
                    return k.start, "while constructing a mapping, found unhashable key"
        tag = n.tag
        if not tag or tag == "!" or isinstance(n, YAlias):
            continue
        kinds = (_SAFE_SCALAR_TAGS if isinstance(n, YScalar) else _SAFE_SEQ_TAGS if isinstance(n, YSeq)
                 else _SAFE_MAP_TAGS)
        if tag not in kinds:
            if tag in _SAFE_SCALAR_TAGS | _SAFE_SEQ_TAGS | _SAFE_MAP_TAGS:
                return n.start, f"the tag {tag!r} does not apply to this kind of node"
            return n.start, f"could not determine a constructor for the tag {tag!r}"
        if isinstance(n, YScalar) and tag != _Y + "str":
            snode = yaml.ScalarNode(tag, n.value, style=n.style)
            try:
                _constructor.yaml_constructors[tag](_constructor, snode)
            except Exception as e:  # (ValueError, KeyError, ConstructorError: the loader stops the same)
                return n.start, f"cannot construct {tag!r} from {n.value[:40]!r} ({type(e).__name__})"
        elif tag in (_Y + "omap", _Y + "pairs") and not all(
                isinstance(i, YMap) and len(i.pairs) == 1 for i in n.items):
            return n.start, f"while constructing {tag!r}, expected a mapping of length 1"
    return None
