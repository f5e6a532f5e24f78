"""RFC 6902 JSON patches on composed YAML trees (kustomize's ``patches`` / ``patchesJson6902`` with ``op:`` lists).

kustomize applies them with evanphx/json-patch (``api/filters/patchjson6902``): each operation's ``path`` (and
``from``) is an RFC 6901 JSON pointer (``~1`` is ``/``, ``~0`` is ``~``; an array index is a decimal number without
leading zeros, ``-`` the end of the array for ``add``).  Here an operation makes a new tree: the nodes on the
pointer's way are copied, every other node is shared with the resource as read, so untouched tokens keep the line of
the base file.  A ``value`` comes from the patch: its scalars are :class:`Patched` nodes whose ``traced`` text is
where the patch writes them (the inline patch's line in ``kustomization.yaml``, or the patch file's line), which is
what :func:`pdlint.formats.yamltree.scalar_tstr` returns for them.

An operation that cannot be applied raises :class:`NotApplied` with the reason (a path that is not there, an index
past the end, a pointer that is no pointer, a value that is not a list or mapping where the path goes on, a ``test``
that does not hold).  Everything is bounded: pointers of at most :data:`MAX_SEGMENTS` segments, indexes compared,
never allocated, at most :data:`MAX_VALUE_NODES` nodes copied from a ``value``.
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.formats import yamltree as yt
from pdlint.text import TStr

MAX_SEGMENTS = 64
MAX_VALUE_NODES = 20_000
OPS = ("add", "remove", "replace", "move", "copy", "test")
_INDEX = lazyre.compile(r"0|[1-9][0-9]{0,17}")


class NotApplied(Exception):
    """Why an operation was not applied (the message says it)."""


class Patched(yt.YScalar):
    """A scalar a JSON patch's ``value`` put into a resource: ``traced`` is where the patch writes it.  Its
    ``start``/``end`` are the place in the resource it went to (offsets of the resource's text)."""

    def __init__(self, like: yt.YScalar, at: yt.YNode, traced: TStr):
        super().__init__(at.start, at.end, like.tag, None, like.value, like.style, like.implicit)
        self.traced = traced


def pointer(text: Optional[str], what: str = "path") -> list:
    """The unescaped segments of a JSON pointer (``""``: the whole document)."""
    if text is None:
        raise NotApplied(f"it has no {what}")
    if text == "":
        return []
    if not text.startswith("/"):
        raise NotApplied(f"its {what} {text!r} is no JSON pointer (one starts with \"/\")")
    segs = text[1:].split("/")
    if len(segs) > MAX_SEGMENTS:
        raise NotApplied(f"its {what} is deeper than {MAX_SEGMENTS} segments")
    if re.search(r"~(?![01])", text):
        raise NotApplied(f"its {what} {text!r} has a \"~\" that is neither \"~0\" nor \"~1\"")
    return [s.replace("~1", "/").replace("~0", "~") for s in segs]


def show(segs: list) -> str:
    return "/" + "/".join(s.replace("~", "~0").replace("/", "~1") for s in segs) if segs else '""'


def _index(node: yt.YSeq, seg: str, segs: list, add: bool) -> int:
    n = len(node.items)
    if seg == "-" and add:
        return n
    if not _INDEX.fullmatch(seg):
        raise NotApplied(f"{show(segs)}: {seg!r} is no index of the list there ({n} items)")
    i = int(seg)
    if i > n or (i == n and not add):
        raise NotApplied(f"{show(segs)}: index {seg} is past the end of the list there ({n} items)")
    return i


def _child(node: yt.YNode, seg: str, segs: list) -> yt.YNode:
    node = yt.deref(yt.Ref(node)).node
    if isinstance(node, yt.YMap):
        v = yt.get(yt.Ref(node), seg)
        if v is None:
            raise NotApplied(f"{show(segs)} is not in the resource (no key {seg!r} there)")
        return yt.deref(v).node
    if isinstance(node, yt.YSeq):
        return yt.deref(yt.Ref(node.items[_index(node, seg, segs, False)])).node
    raise NotApplied(f"{show(segs)}: the value before {seg!r} is no list or mapping")


def get(root: yt.YNode, segs: list) -> yt.YNode:
    node = root
    for i, seg in enumerate(segs):
        node = _child(node, seg, segs[:i + 1])
    return node


def _key(node: yt.YMap, seg: str) -> Optional[int]:
    """The index of ``seg``'s pair written in ``node`` itself (None: not there, or only merged in)."""
    for i, (k, _) in enumerate(node.pairs):
        if k.__class__ is yt.YScalar and k.value == seg and not (seg == "<<" and k.style is None):
            return i
    return None


def _set(parent: yt.YNode, seg: str, segs: list, op: str, value: Optional[yt.YNode]) -> yt.YNode:
    """A copy of ``parent`` with ``op`` (add / replace / remove) done at its child ``seg``."""
    parent = yt.deref(yt.Ref(parent)).node
    if isinstance(parent, yt.YMap):
        i = _key(parent, seg)
        pairs = list(parent.pairs)
        merged = i is None and yt.get(yt.Ref(parent), seg) is not None  # (a key written here wins over it)
        if op == "remove" and merged:
            raise NotApplied(f"{show(segs)} comes from a YAML merge key (<<), which pdlint does not patch")
        if op == "add" or (op == "replace" and (i is not None or merged)):
            if i is None:
                pairs.append((yt.YScalar(parent.start, parent.start, None, None, seg), value))
            else:
                pairs[i] = (pairs[i][0], value)
        elif op == "remove" and i is not None:
            del pairs[i]
        else:
            raise NotApplied(f"{show(segs)} is not in the resource (no key {seg!r} there)")
        return yt.YMap(parent.start, parent.end, parent.tag, None, pairs, budget=parent.budget)
    if isinstance(parent, yt.YSeq):
        i = _index(parent, seg, segs, op == "add")
        items = list(parent.items)
        if op == "add":
            items.insert(i, value)
        elif op == "replace":
            items[i] = value
        else:
            del items[i]
        return yt.YSeq(parent.start, parent.end, parent.tag, None, items, budget=parent.budget)
    raise NotApplied(f"{show(segs)}: the value before {seg!r} is no list or mapping")


def _edit(node: yt.YNode, segs: list, depth: int, op: str, value: Optional[yt.YNode]) -> yt.YNode:
    """A copy of the tree ``node`` with ``op`` done at ``segs[depth:]`` (copied along the way only)."""
    if depth == len(segs) - 1:
        return _set(node, segs[depth], segs, op, value)
    child = _child(node, segs[depth], segs[:depth + 1])
    new = _edit(child, segs, depth + 1, op, value)
    return _set(node, segs[depth], segs[:depth + 1], "replace", new)


def imported(pdoc: TStr, ref: yt.Ref, at: yt.YNode, budget: list, depth: int = 0) -> yt.YNode:
    """The patch's ``value`` as nodes of the resource's tree, each scalar traced to the patch (``at``: the node
    whose place it takes, for offsets into the resource's text).  ``budget``: [nodes still allowed]."""
    r = yt.deref(ref)
    node = r.node
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_SEGMENTS:
        raise NotApplied(f"its value is larger than pdlint copies ({MAX_VALUE_NODES} nodes, "
                         f"{MAX_SEGMENTS} levels)")
    if isinstance(node, yt.YScalar):
        return Patched(node, at, yt.scalar_tstr(pdoc, r))
    if isinstance(node, yt.YSeq):
        return yt.YSeq(at.start, at.end, node.tag, None,
                       [imported(pdoc, item, at, budget, depth + 1) for item in yt.seq_items(r)])
    if isinstance(node, yt.YMap):
        return yt.YMap(at.start, at.end, node.tag, None,
                       [(yt.YScalar(at.start, at.start, None, None, k), imported(pdoc, v, at, budget, depth + 1))
                        for k, v in yt.map_items(r)])
    return Patched(yt.YScalar(node.start, node.end, "tag:yaml.org,2002:null", None, "", None, (True, False)), at,
                   TStr("", ()))


def apply(root: yt.YNode, op: str, segs: list, value=None, source: Optional[list] = None) -> yt.YNode:
    """The new root after one operation.  ``value``: a callable (the node whose place it takes) -> the imported
    value node; ``source``: the ``from`` pointer of ``move`` / ``copy``."""
    if op not in OPS:
        raise NotApplied(f"{op!r} is no JSON patch operation (add, remove, replace, move, copy, test)")
    if op in ("add", "replace", "test") and value is None:
        raise NotApplied(f"it has no value (a {op} needs one)")
    if op in ("move", "copy"):
        if source is None:
            raise NotApplied(f"it has no from (a {op} needs one)")
        moved = get(root, source)
        if op == "move":
            if segs[:len(source)] == source and len(segs) > len(source):
                raise NotApplied(f"it moves {show(source)} into itself")
            root = _remove(root, source)
        return _add(root, segs, lambda at: moved)
    if op == "test":
        have = get(root, segs)
        try:
            same = yt.to_python(yt.Ref(have)) == yt.to_python(yt.Ref(value(have)))
        except yt.LimitError:
            raise NotApplied("its values are too large to compare") from None
        if not same:
            raise NotApplied(f"the test of {show(segs)} fails on the resource pdlint built (kustomize stops "
                             f"there)")
        return root
    if op == "remove":
        return _remove(root, segs)
    if op == "replace":
        if not segs:
            return value(root)
        return _edit(root, segs, 0, "replace", value(get(root, segs)))
    return _add(root, segs, value)


def _add(root: yt.YNode, segs: list, value) -> yt.YNode:
    if not segs:
        return value(root)
    parent = get(root, segs[:-1])
    return _edit(root, segs, 0, "add", value(parent))


def _remove(root: yt.YNode, segs: list) -> yt.YNode:
    if not segs:
        raise NotApplied("it removes the whole resource")
    get(root, segs)
    return _edit(root, segs, 0, "remove", None)
