"""srt-slurm (``srtctl``) parameter sweeps: a recipe's ``sweep:`` section and
the ``{name}`` placeholders its other values hold.

Semantics (srtctl ``src/srtctl/core/sweep.py`` ``generate_sweep_configs`` /
``expand_template``, read at richardhuo-nv/srt-slurm-trtllm 22d46ba; the
caller is ``cli/submit.py``, which sweeps a plain recipe and, in an override
file, every resolved variant that has a ``sweep`` section):

* the jobs are ``itertools.product`` of the sweep's value lists, in the
  section's key order (the last key varies fastest); each job's config is the
  recipe without ``sweep``, named ``<name>_<key><value>_...``;
* in every string of the config, each ``{key}`` of the sweep is replaced by
  ``str(value)`` (``True``, ``None`` as Python writes them); a list value
  replaces a string that is exactly the placeholder by the list itself and is
  written ``a,b`` inside a longer string.  Numbers, keys and strings without a
  placeholder stay as written; a ``{name}`` the sweep has no key for stays
  literally (and reaches the server so).

Each job is a variant built from the file's own nodes; only the strings that
hold a placeholder get new nodes, whose text traces the recipe's characters
to the recipe and the substituted value to its item in the ``sweep`` section
(reached via the placeholder).  A line no value changes is thus one finding
for all jobs.  A grid larger than :data:`MAX_SWEEP_VARIANTS` is cut (see
:func:`pick`), and the cut is reported.
"""

from __future__ import annotations

from itertools import islice, product

from pdlint import lazyre
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass
from pdlint.text import TStr, hop_from

#: jobs of one recipe's sweep that are checked: the shell's branch-path cap (``ShellContext.max_paths``) and the
#: pair stage's variant combinations (``pairing.MAX_VARIANT_COMBOS``) stop at the same number
MAX_SWEEP_VARIANTS = 16
_PLACEHOLDER = lazyre.compile(r"\{([^{}]+)\}")
_IDENT = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: the sections srtctl turns into server flags or settings as they are written (no runtime ``{...}`` formatting:
#: environment values and FormattableString fields have placeholders of their own, ``{node}``, ``{job_id}``)
CONFIG_KEYS = ("sglang_config", "vllm_config", "trtllm_config")
_MAX_DEPTH = 64


@dataclass
class Grid:
    keys: list  # sweep keys, in the section's order
    values: list  # per key: the item nodes of its list
    key_nodes: list  # per key: its key node in the sweep section (None when not found)
    section: object  # the sweep key node of the recipe


@dataclass
class Job:
    index: int  # srtctl's job number, from 1
    params: list  # [(key, item node)]


@dataclass
class Unresolved:
    node: object  # the scalar holding it
    name: str
    at: TStr  # the placeholder as written


class YSwept(yt.YScalar):
    """A string after srtctl's substitution: ``traced`` is its value, each character where it is written."""

    def __init__(self, like: yt.YScalar, value: str, traced: TStr):
        super().__init__(like.start, like.end, "tag:yaml.org,2002:str", None, value, '"', (False, True))
        self.traced = traced


def is_sweep_recipe(root: yt.Ref) -> bool:
    """A recipe (or override file) srtctl sweeps: a top-level ``sweep`` key."""
    return isinstance(yt.deref(root).node, yt.YMap) and yt.get(root, "sweep") is not None


def grid(root: yt.Ref) -> tuple:
    """(Grid or None, [(node, why srtctl submits nothing)]) of a recipe's ``sweep`` section (None: no sweep)."""
    sec = yt.get(root, "sweep")
    if sec is None:
        return None, []
    where = yt.key_node(root, "sweep")
    if not isinstance(yt.deref(sec).node, yt.YMap):
        return None, [(where, "srtctl refuses this section: sweep is not a mapping of keys to lists of values")]
    keys, values, nodes, errors = [], [], [], []
    for key, ref in yt.map_items(sec):
        node = yt.deref(ref).node
        knode = yt.key_node(sec, key)
        if not isinstance(node, yt.YSeq):
            errors.append((knode or where, f"srtctl refuses this section: sweep.{key} is not a list (srtctl's grid, "
                                           f"itertools.product, takes a list of values for each key)"))
        elif not node.items:
            errors.append((knode or where, f"sweep.{key} is an empty list: srtctl's grid has no job, so none of "
                                           f"the recipe runs"))
        else:
            keys.append(str(key))
            values.append([yt.deref(it).node for it in yt.seq_items(ref)])
            nodes.append(knode)
    if errors:
        return None, errors
    return Grid(keys, values, nodes, where), []


def total(g: Grid) -> int:
    n = 1
    for v in g.values:
        n *= len(v)
    return n


def pick(g: Grid) -> list:
    """The jobs checked, in srtctl's order: all of them up to :data:`MAX_SWEEP_VARIANTS`; of a larger grid,
    first one job per position ``i`` taking each key's ``i``-th value (so every value of every key is checked
    in some job, as long as no key has more values than the cap), then the others in srtctl's order."""
    sizes = [len(v) for v in g.values]
    if total(g) <= MAX_SWEEP_VARIANTS:
        chosen = list(product(*[range(n) for n in sizes]))
    else:
        diagonal = range(min(max(sizes), MAX_SWEEP_VARIANTS))
        chosen = list(dict.fromkeys(tuple(i % n for n in sizes) for i in diagonal))
        taken = set(chosen)
        for combo in islice(product(*[range(n) for n in sizes]), 4 * MAX_SWEEP_VARIANTS):
            if len(chosen) >= MAX_SWEEP_VARIANTS:
                break
            if combo not in taken:
                taken.add(combo)
                chosen.append(combo)
    out = []
    for combo in sorted(chosen):  # product order is lexicographic in the indices
        params = [(k, g.values[j][i]) for j, (k, i) in enumerate(zip(g.keys, combo))]
        out.append(Job(_job_number(combo, sizes), params))
    return out


def _job_number(combo: tuple, sizes: list) -> int:
    index = 0
    for i, n in zip(combo, sizes):
        index = index * n + i
    return index + 1


def value_text(node: yt.YNode) -> str:
    """``str(value)`` of a sweep item as srtctl substitutes it inside a longer string (a list: ``a,b``)."""
    if isinstance(node, yt.YSeq):
        return ",".join(value_text(yt.deref(it).node) for it in yt.seq_items(yt.Ref(node)))
    if isinstance(node, yt.YScalar):
        v = yt.scalar_value(node)
        return v if isinstance(v, str) else str(v)
    return str(yt.to_python(yt.Ref(node)))


def job_name(name: str, job: Job) -> str:
    return f"{name}_" + "_".join(f"{k}{value_text(v)}" for k, v in job.params)


def job_label(job: Job) -> str:
    return f"sweep job {job.index} (" + ", ".join(f"{k}={value_text(v)}" for k, v in job.params) + ")"


def expand(doc: TStr, root: yt.Ref, job: Job, unresolved: list) -> yt.YNode:
    """The recipe without ``sweep``, every placeholder of ``job``'s keys replaced (srtctl's
    ``expand_template``); a ``{name}`` in a server section the sweep has no key for goes to ``unresolved``."""
    params = dict(job.params)
    memo: dict = {}
    node = yt.deref(root).node
    pairs = []
    for key, ref in yt.map_items(root):
        if key == "sweep":
            continue
        v = _walk(doc, yt.deref(ref).node, params, memo, unresolved, "backend" if key == "backend" else "", 0)
        pairs.append((_key(root, key, v), v))
    return yt.YMap(node.start, node.end, None, None, pairs)


def _key(ref: yt.Ref, key: str, value: yt.YNode) -> yt.YNode:
    k = yt.key_node(ref, key)
    return k if k is not None else yt.YScalar(value.start, value.start, value=key)


def _walk(doc: TStr, node: yt.YNode, params: dict, memo: dict, unresolved: list, scope: str,
          depth: int) -> yt.YNode:
    """``node`` with its placeholders replaced: the node itself when nothing in it changes.  Each node is
    walked once per ``scope`` (``memo``), so a tree that aliases one mapping many times costs its size only.
    ``scope``: ``backend`` under the recipe's ``backend``, ``config`` in one of its :data:`CONFIG_KEYS`
    (where a placeholder without a sweep key is reported), else empty."""
    while isinstance(node, yt.YAlias) and node.target is not None:
        node = node.target
    key = (id(node), scope)
    done = memo.get(key)
    if done is not None:
        return done
    out = node
    if depth > _MAX_DEPTH:  # deeper than any recipe: left as written
        return out
    if isinstance(node, yt.YScalar):
        out = _scalar(doc, node, params, unresolved if scope == "config" else None)
    elif isinstance(node, yt.YMap):
        ref = yt.Ref(node)
        pairs, changed = [], False
        for k, v in yt.map_items(ref):
            vnode = yt.deref(v).node
            inside = "config" if scope == "backend" and k in CONFIG_KEYS else scope
            new = _walk(doc, vnode, params, memo, unresolved, inside, depth + 1)
            changed = changed or new is not vnode
            pairs.append((_key(ref, k, new), new))
        if changed:
            out = yt.YMap(node.start, node.end, None, None, pairs)
    elif isinstance(node, yt.YSeq):
        items = [_walk(doc, yt.deref(it).node, params, memo, unresolved, scope, depth + 1)
                 for it in yt.seq_items(yt.Ref(node))]
        if any(a is not b for a, b in zip(items, (yt.deref(it).node for it in yt.seq_items(yt.Ref(node))))):
            out = yt.YSeq(node.start, node.end, None, None, items)
    memo[key] = out
    return out


def _scalar(doc: TStr, node: yt.YScalar, params: dict, unresolved) -> yt.YNode:
    if "{" not in node.value or not isinstance(yt.scalar_value(node), str):
        return node  # srtctl substitutes in strings only
    text = node.value
    found = list(_PLACEHOLDER.finditer(text))
    ours = [m for m in found if m.group(1) in params]
    if unresolved is not None:
        written = None
        for m in found:
            if m.group(1) not in params and _IDENT.match(m.group(1)):
                written = written or yt.scalar_tstr(doc, yt.Ref(node))
                unresolved.append(Unresolved(node, m.group(1), written[m.start():m.end()]))
    if not ours:
        return node
    if len(ours) == 1 and ours[0].group(0) == text and isinstance(params[ours[0].group(1)], yt.YSeq):
        return params[ours[0].group(1)]  # the whole string is the placeholder of a list: the list itself
    written = yt.scalar_tstr(doc, yt.Ref(node))
    parts, at = [], 0
    for m in ours:
        parts.append(written[at:m.start()])
        parts.append(_value(doc, params[m.group(1)], m.group(1), written, m.start()))
        at = m.end()
    parts.append(written[at:])
    traced = TStr.join(parts)
    return YSwept(node, traced.text, traced)


def _value(doc: TStr, item: yt.YNode, key: str, written: TStr, at: int) -> TStr:
    """The substituted text, traced to the sweep item, reached via the placeholder."""
    text = value_text(item)
    tok = yt.scalar_tstr(doc, yt.Ref(item)) if isinstance(item, yt.YScalar) else yt.node_tstr(doc, yt.Ref(item))
    if tok.text != text:
        p = tok.pieces[0] if tok.pieces else None
        tok = TStr.at(text, p.src, p.offset, p.chain, exact=False, label=p.label) if p is not None \
            else TStr.synthetic(text, "<sweep>")
    return tok.with_hop(hop_from(written, at, f"sweep placeholder {{{key}}}"))
