"""srt-slurm (``srtctl``) override files: a ``base`` recipe plus
``override_<name>`` and ``zip_override_<name>`` sections, each expanded into
the recipes ``srtctl apply -f FILE`` submits (``base`` itself only with the
``:base`` selector, so it is not one of them).

Semantics (srtctl's ``deep_merge`` / ``expand_zip_override``):

* ``override_<name>``: deep-merged over ``base``: mappings merge key by key,
  lists and scalars replace, ``null`` deletes the key.  Its name is the
  section's ``name`` or ``<base name>_<name>``.
* ``zip_override_<name>``: every list leaf is a zip dimension; lists of
  length 1 broadcast, all others must share one length N; a list of lists
  gives each variant a literal list; scalars broadcast.  Variant ``i`` is
  the section with each list leaf replaced by its ``i``-th item, merged over
  ``base``; its name is ``name[i]`` when ``name`` is a list, else
  ``<base name>_<name>_<i>``.  No list, an empty list, or two lengths other
  than 1 make srtctl refuse the file.

The variants are built as trees of the file's own nodes (no copies), so a
flag written once in ``base`` keeps its line in every variant and a finding
on it names every variant that reaches it.
"""

from __future__ import annotations

from typing import Optional

from pdlint.formats import yamltree as yt
from pdlint.records import dataclass


@dataclass
class Variant:
    key: str  # override_x / zip_override_x
    label: str  # override_x, zip_override_x[2]
    name: str
    root: yt.Ref


@dataclass
class OverrideError:
    key: str
    message: str


def is_override_file(root: yt.Ref) -> bool:
    if not isinstance(yt.deref(root).node, yt.YMap):
        return False
    keys = [k for k, _ in yt.map_items(root)]
    return "base" in keys and isinstance(yt.deref(yt.get(root, "base")).node, yt.YMap) and \
        any(k.startswith(("override_", "zip_override_")) for k in keys)


def _is_null(node: yt.YNode) -> bool:
    return isinstance(node, yt.YScalar) and yt.scalar_value(node) is None and node.style is None


def _map_node(pairs: list, like: yt.YNode) -> yt.YMap:
    return yt.YMap(like.start, like.end, None, None, pairs)


def _key(ref: yt.Ref, key: str, value: yt.YNode) -> yt.YNode:
    k = yt.key_node(ref, key)
    return k if k is not None else yt.YScalar(value.start, value.start, value=key)


def deep_merge(base: yt.Ref, over: yt.Ref) -> yt.YNode:
    """srtctl's ``deep_merge`` of two mapping nodes, as a new mapping of the files' nodes."""
    bnode = yt.deref(base).node
    out: list = []
    index: dict = {}
    for k, v in yt.map_items(base):
        index[k] = len(out)
        out.append((_key(base, k, yt.deref(v).node), yt.deref(v).node))
    for k, v in yt.map_items(over):
        vnode = yt.deref(v).node
        if _is_null(vnode):
            if k in index:
                out[index[k]] = None
            continue
        if k in index and out[index[k]] is not None and isinstance(vnode, yt.YMap) \
                and isinstance(out[index[k]][1], yt.YMap):
            merged = deep_merge(yt.Ref(out[index[k]][1]), yt.Ref(vnode))
            out[index[k]] = (out[index[k]][0], merged)
        elif k in index and out[index[k]] is not None:
            out[index[k]] = (out[index[k]][0], vnode)
        else:
            index[k] = len(out)
            out.append((_key(over, k, vnode), vnode))
    return _map_node([p for p in out if p is not None], bnode)


def _list_lengths(ref: yt.Ref) -> list:
    out = []
    for _, v in yt.map_items(ref):
        node = yt.deref(v).node
        if isinstance(node, yt.YSeq):
            out.append(len(node.items))
        elif isinstance(node, yt.YMap):
            out += _list_lengths(v)
    return out


def zip_length(ref: yt.Ref) -> int:
    """N of a zip section; raises ValueError with srtctl's reason."""
    lengths = _list_lengths(ref)
    if not lengths:
        raise ValueError("zip_override section contains no list values — nothing to zip")
    if any(n == 0 for n in lengths):
        raise ValueError("zip_override contains an empty list — cannot zip zero-length lists")
    other = {n for n in lengths if n != 1}
    if not other:
        return 1
    if len(other) > 1:
        raise ValueError(f"Incompatible zip lengths {sorted(other)}. All lists must have the same length or "
                         f"length 1 (broadcast).")
    return other.pop()


def zip_slice(ref: yt.Ref, i: int) -> yt.YNode:
    """The section with every list leaf replaced by its ``i``-th item (length 1: its only item)."""
    node = yt.deref(ref).node
    pairs = []
    for k, v in yt.map_items(ref):
        vnode = yt.deref(v).node
        if isinstance(vnode, yt.YSeq):
            vnode = vnode.items[0 if len(vnode.items) == 1 else i]
            while isinstance(vnode, yt.YAlias) and vnode.target is not None:
                vnode = vnode.target
        elif isinstance(vnode, yt.YMap):
            vnode = zip_slice(v, i)
        pairs.append((_key(ref, k, vnode), vnode))
    return _map_node(pairs, node)


def variants(root: yt.Ref) -> tuple:
    """([Variant], [OverrideError]) in srtctl's order: override_* sorted, then zip_override_* sorted."""
    base = yt.get(root, "base")
    base_name = yt.scalar_text(yt.get(base, "name")) or "unnamed"
    keys = [k for k, _ in yt.map_items(root)]
    out, errors = [], []
    for key in sorted(k for k in keys if k.startswith("override_")):
        sec = yt.get(root, key)
        if not isinstance(yt.deref(sec).node, yt.YMap):
            errors.append(OverrideError(key, f"{key} is not a mapping"))
            continue
        merged = deep_merge(base, sec)
        name = yt.scalar_text(yt.get(sec, "name")) or f"{base_name}_{key[len('override_'):]}"
        out.append(Variant(key, key, name, yt.Ref(merged)))
    for key in sorted(k for k in keys if k.startswith("zip_override_")):
        sec = yt.get(root, key)
        if not isinstance(yt.deref(sec).node, yt.YMap):
            errors.append(OverrideError(key, f"{key} is not a mapping"))
            continue
        try:
            n = zip_length(sec)
        except ValueError as e:
            errors.append(OverrideError(key, str(e)))
            continue
        group = key[len("zip_override_"):]
        names = yt.get(sec, "name")
        name_list = [yt.scalar_text(x) for x in yt.seq_items(names)] \
            if names is not None and isinstance(yt.deref(names).node, yt.YSeq) else None
        for i in range(n):
            merged = deep_merge(base, yt.Ref(zip_slice(sec, i)))
            if name_list is not None:
                name = name_list[0 if len(name_list) == 1 else i] or f"{base_name}_{group}_{i}"
            else:
                name = f"{base_name}_{group}_{i}"
            out.append(Variant(key, f"{key}[{i}]", name, yt.Ref(merged)))
    return out, errors


def section_key(root: yt.Ref, key: str) -> Optional[yt.YNode]:
    return yt.key_node(root, key)
