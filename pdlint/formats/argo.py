"""Argo Workflows: the values a template's ``{{inputs.parameters.X}}`` take, once per place that runs it.

A template runs once per step or DAG task that names it (``template: NAME``, or ``templateRef`` to a
WorkflowTemplate / ClusterWorkflowTemplate of the same YAML stream), and once per item of that step's
``withItems`` / ``withParam`` / ``withSequence``; each run's inputs are the ``arguments.parameters`` the call
passes over the template's input ``default``s (an input's ``value`` wins over what is passed, as Argo has it).
The entry point (``spec.entrypoint``) is called with the workflow's ``spec.arguments.parameters``; a template
nothing in the stream calls (one a Workflow of another file runs through ``templateRef``, an ``onExit``
handler) runs with its defaults.  An argument pdlint cannot read (``{{steps.x.outputs.result}}``, ``{{item}}``
of a list computed at run time, a ``valueFrom``) is a value pdlint cannot see.

Field test rw26/h item 13: the arguments were ignored, a ``server`` template called as a prefill with a refused
flag and as a decode with its defaults was checked once, as the decode its defaults make (exit 0 with
``--strict``).
"""

from __future__ import annotations

import json
from typing import Optional

from pdlint.formats import yamltree as yt
from pdlint.records import dataclass
from pdlint.text import TStr

KINDS = ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")
#: runs of one template checked at most (call sites times their items, through nested steps templates)
MAX_RUNS = 16
#: nested steps / DAG templates followed up to the workflow's entry point
MAX_DEPTH = 8
#: the call of the entry point: the workflow's arguments
ENTRY = "the workflow's arguments"
#: characters of a ``withParam`` literal JSON list read
MAX_PARAM_JSON = 20_000


@dataclass
class Run:
    """One run of a template: the values of its expressions, and which call made it ("" for its defaults)."""

    params: dict  # "workflow.parameters.X" / "inputs.parameters.X" / "item" ... -> TStr (unsubstituted)
    call: str = ""


@dataclass
class Cut:
    """A template's runs past :data:`MAX_RUNS`: where the calls are, how many runs they start, how many ran."""

    where: TStr
    started: int
    ran: int


@dataclass
class _Site:
    caller: Optional[tuple]  # (doc index, template name) of the steps / DAG template holding the call
    ref: yt.Ref  # the step / task mapping (or the workflow's spec for the entry point's call)
    doc: TStr
    label: str
    entry: bool = False


def spec_of(root: yt.Ref) -> Optional[yt.Ref]:
    spec = yt.get(root, "spec")
    if yt.get(spec, "workflowSpec") is not None:  # a CronWorkflow
        spec = yt.get(spec, "workflowSpec")
    return spec


def _scalar(ref) -> bool:
    return ref is not None and isinstance(yt.deref(ref).node, yt.YScalar) and \
        yt.scalar_value(yt.deref(ref).node) is not None


def _opaque_at(doc: TStr, ref: yt.Ref, text: str) -> TStr:
    from pdlint.formats.crd import at_node
    return at_node(doc, ref, text).as_opaque()


class Stream:
    """The Argo objects of one YAML stream and who calls each of their templates."""

    def __init__(self, doc: TStr, docs: list):
        self.doc = doc
        self.roots: dict = {}  # doc index -> root Ref of an Argo object
        self.templates: dict = {}  # (doc index, name) -> template Ref
        self.by_name: dict = {}  # (kind group, metadata.name) -> doc index, for templateRef
        self.sites: dict = {}  # (doc index, name) -> [_Site]
        self.entry: dict = {}  # doc index -> entry point template name
        self._runs: dict = {}
        self.cuts: list = []
        self._cut_seen: set = set()
        for di, d in enumerate(docs):
            if d.root is None:
                continue
            root = yt.Ref(d.root)
            if not isinstance(yt.deref(root).node, yt.YMap):
                continue
            kind = yt.scalar_text(yt.get(root, "kind"))
            if kind not in KINDS:
                continue
            self.roots[di] = root
            name = yt.scalar_text(yt.get(yt.get(root, "metadata"), "name"))
            if name and kind in ("WorkflowTemplate", "ClusterWorkflowTemplate"):
                self.by_name.setdefault((kind == "ClusterWorkflowTemplate", name), di)
            spec = spec_of(root)
            for t in yt.seq_items(yt.get(spec, "templates")):
                tname = yt.scalar_text(yt.get(t, "name"))
                if tname:
                    self.templates.setdefault((di, tname), t)
            entry = yt.scalar_text(yt.get(spec, "entrypoint"))
            if entry:
                self.entry[di] = entry
        for di, root in self.roots.items():
            self._find_calls(di, root)
        for di, entry in self.entry.items():
            if (di, entry) in self.templates:
                self.sites.setdefault((di, entry), []).insert(
                    0, _Site(None, spec_of(self.roots[di]), doc, ENTRY, entry=True))

    def _find_calls(self, di: int, root: yt.Ref) -> None:
        spec = spec_of(root)
        for t in yt.seq_items(yt.get(spec, "templates")):
            tname = yt.scalar_text(yt.get(t, "name"))
            if not tname:
                continue
            calls = []
            for group in yt.seq_items(yt.get(t, "steps")):  # [[step, ...], ...]: parallel steps in a group
                items = yt.seq_items(group) if isinstance(yt.deref(group).node, yt.YSeq) else [group]
                calls += [("step", s) for s in items]
            calls += [("task", s) for s in yt.seq_items(yt.get(yt.get(t, "dag"), "tasks"))]
            for what, s in calls:
                if not isinstance(yt.deref(s).node, yt.YMap):
                    continue
                target = self._target(di, s)
                if target is None:
                    continue
                sname = yt.scalar_text(yt.get(s, "name")) or "?"
                label = f"{what} {sname!r} of template {tname!r}"
                self.sites.setdefault(target, []).append(_Site((di, tname), s, self.doc, label))

    def _target(self, di: int, step: yt.Ref) -> Optional[tuple]:
        name = yt.scalar_text(yt.get(step, "template"))
        if name:
            return (di, name) if (di, name) in self.templates else None
        ref = yt.get(step, "templateRef")
        if ref is None:
            return None
        wft, name = yt.scalar_text(yt.get(ref, "name")), yt.scalar_text(yt.get(ref, "template"))
        cluster = (yt.scalar_text(yt.get(ref, "clusterScope")) or "").lower() == "true"
        other = self.by_name.get((cluster, wft or ""))
        if other is None or (other, name) not in self.templates:
            return None  # (a WorkflowTemplate of another file: not read here)
        return other, name

    # -- values ------------------------------------------------------------------------------------------
    def workflow_params(self, di: int) -> dict:
        out: dict = {}
        spec = spec_of(self.roots[di])
        for p in yt.seq_items(yt.get(yt.get(spec, "arguments"), "parameters")):
            n, v = yt.scalar_text(yt.get(p, "name")), yt.get(p, "value")
            if n and _scalar(v):
                out[f"workflow.parameters.{n}"] = yt.scalar_tstr(self.doc, v)
        return out

    def runs(self, di: int, name: str, depth: int = 0, active: Optional[set] = None) -> list:
        """The :class:`Run` values of template ``name`` of document ``di``: one per call (and item), at most
        :data:`MAX_RUNS`; its defaults alone when nothing in the stream calls it."""
        key = (di, name)
        if key in self._runs:
            return self._runs[key]
        active = set() if active is None else active
        template = self.templates.get(key)
        base = self.workflow_params(di) if di in self.roots else {}
        if template is None or depth > MAX_DEPTH or key in active:
            return [Run(self._inputs(template, base, {}))] if template is not None else [Run(base)]
        active.add(key)
        out: list = []
        started = 0
        gens: list = []  # (site, its runs, lazily)
        try:
            for site in self.sites.get(key, []):
                if site.entry:
                    callers = [Run(base, ENTRY)]
                else:
                    callers = self.runs(site.caller[0], site.caller[1], depth + 1, active)
                items, count = self._items(site)
                started += len(callers) * count
                gens.append([site, self._site_runs(di, template, base, site, callers, items, count)])
            # each call's first run, then their second ..., until MAX_RUNS (a long loop does not crowd out the
            # calls after it)
            while gens and len(out) < MAX_RUNS:
                for g in list(gens):
                    run = next(g[1], None)
                    if run is None:
                        gens.remove(g)
                    elif len(out) < MAX_RUNS:
                        out.append(run)
        finally:
            active.discard(key)
        if started > len(out) and key not in self._cut_seen:
            self._cut_seen.add(key)
            site = gens[0][0] if gens else self.sites[key][0]
            at = yt.deref(site.ref).node.start
            self.cuts.append(Cut(self.doc[at:at + 1], started, len(out)))
        if not out:
            out = [Run(self._inputs(template, base, {}))]
        self._runs[key] = out
        return out

    def _site_runs(self, di: int, template, base: dict, site: _Site, callers: list, items: list, count: int):
        """The runs one call starts: once per run of the template holding it, per item of its loop."""
        for caller in callers:
            own = base
            if not site.entry and site.caller[0] != di:  # (templateRef: the running workflow's parameters)
                own = {k: v for k, v in caller.params.items() if k.startswith("workflow.parameters.")}
            for i, item in enumerate(items):
                args = self._arguments(site, {**caller.params, **item})
                call = site.label
                if len(items) > 1 or count > 1:
                    call += f" (item {item['item'].text!r})" if "item" in item and not item["item"].opaque \
                        else f" (item {i + 1})"
                if caller.call and caller.call != ENTRY:
                    call += f", in {caller.call}"
                yield Run(self._inputs(template, own, args), call)

    def _inputs(self, template, base: dict, args: dict) -> dict:
        """The workflow's parameters and the template's inputs: an input's ``value``, else the argument the call
        passes, else its ``default`` (an input with none of them stays unknown)."""
        out = dict(base)
        for p in yt.seq_items(yt.get(yt.get(template, "inputs"), "parameters")):
            n = yt.scalar_text(yt.get(p, "name"))
            if not n:
                continue
            v, d = yt.get(p, "value"), yt.get(p, "default")
            if _scalar(v):
                out[f"inputs.parameters.{n}"] = yt.scalar_tstr(self.doc, v)
            elif n in args:
                out[f"inputs.parameters.{n}"] = args[n]
            elif _scalar(d):
                out[f"inputs.parameters.{n}"] = yt.scalar_tstr(self.doc, d)
        return out

    def _arguments(self, site: _Site, ctx: dict) -> dict:
        """The parameters a call passes, each with the caller's expressions substituted (an unknown one, a
        ``valueFrom`` or a non-scalar value: a value pdlint cannot see)."""
        from pdlint.formats.yaml_shell import substitute
        out: dict = {}
        for p in yt.seq_items(yt.get(yt.get(site.ref, "arguments"), "parameters")):
            n = yt.scalar_text(yt.get(p, "name"))
            if not n or n in out:
                continue
            v = yt.get(p, "value")
            if _scalar(v):
                out[n] = substitute(yt.scalar_tstr(self.doc, v), ctx, "argo")
            else:
                out[n] = _opaque_at(self.doc, p, "{{" + f"arguments.parameters.{n}" + "}}")
        return out

    def _items(self, site: _Site) -> tuple:
        """(``[{"item": ..., "item.KEY": ...}]`` of the runs a call's loop starts, at most :data:`MAX_RUNS`;
        how many it starts).  A loop over a list computed at run time is one run whose ``{{item}}`` is a
        value pdlint cannot see."""
        if site.entry:
            return [{}], 1
        s = site.ref
        items = yt.get(s, "withItems")
        if items is not None:
            if not isinstance(yt.deref(items).node, yt.YSeq):
                return [{"item": _opaque_at(self.doc, items, "{{item}}")}], 1
            refs = yt.seq_items(items)
            return [self._item(r) for r in refs[:MAX_RUNS]] or [{}], max(1, len(refs))
        param = yt.get(s, "withParam")
        if param is not None:
            text = yt.scalar_text(param) or ""
            values = None
            if "{{" not in text and len(text) <= MAX_PARAM_JSON:
                try:
                    values = json.loads(text)
                except (ValueError, RecursionError):
                    values = None
            if not isinstance(values, list) or not values:
                return [{"item": _opaque_at(self.doc, param, "{{item}}")}], 1
            return [self._json_item(param, v) for v in values[:MAX_RUNS]], len(values)
        seq = yt.get(s, "withSequence")
        if seq is not None:
            nums = self._sequence(seq)
            if nums is None:
                return [{"item": _opaque_at(self.doc, seq, "{{item}}")}], 1
            first, last, step = nums
            count = abs(last - first) + 1
            return [{"item": self._at(seq, str(first + i * step))} for i in range(min(count, MAX_RUNS))], count
        return [{}], 1

    def _at(self, ref: yt.Ref, text: str) -> TStr:
        from pdlint.formats.crd import at_node
        return at_node(self.doc, ref, text)

    def _item(self, ref: yt.Ref) -> dict:
        node = yt.deref(ref).node
        if isinstance(node, yt.YScalar):
            return {"item": yt.scalar_tstr(self.doc, ref)}
        if isinstance(node, yt.YMap):
            return {f"item.{k}": yt.scalar_tstr(self.doc, v) for k, v in yt.map_items(ref) if _scalar(v)}
        return {}

    def _json_item(self, param: yt.Ref, v) -> dict:
        def text(x) -> Optional[str]:
            if isinstance(x, bool):
                return "true" if x else "false"
            if isinstance(x, (str, int, float)):
                return str(x)
            return None
        if isinstance(v, dict):
            return {f"item.{k}": self._at(param, text(x)) for k, x in list(v.items())[:64] if text(x) is not None}
        t = text(v)
        return {"item": self._at(param, t)} if t is not None else {}

    @staticmethod
    def _sequence(seq: yt.Ref) -> Optional[tuple]:
        """(first, last, step) of a ``withSequence`` of integer literals (``count`` or ``start``/``end``);
        None for one pdlint cannot read (an expression, a ``format``)."""
        if yt.get(seq, "format") is not None:
            return None

        def num(key: str, default: Optional[int]) -> Optional[int]:
            t = yt.scalar_text(yt.get(seq, key))
            if t is None:
                return default
            try:
                return int(t.strip())
            except ValueError:
                return None
        start = num("start", 0)
        count, end = num("count", None), num("end", None)
        if start is None:
            return None
        if count is not None and yt.get(seq, "end") is None:
            return (start, start + count - 1, 1) if count > 0 else None
        if end is not None and yt.get(seq, "count") is None:
            return start, end, 1 if end >= start else -1
        return None


def template_of(path: tuple) -> Optional[tuple]:
    """(index into ``templates``, the path up to it) of a container's path in an Argo object, None outside
    a template."""
    if "templates" not in path:
        return None
    k = path.index("templates")
    if k + 1 >= len(path) or not isinstance(path[k + 1], int):
        return None
    return path[k + 1], path[:k + 2]


def template_name(root: yt.Ref, path: tuple) -> Optional[str]:
    found = template_of(path)
    if found is None:
        return None
    ref = root
    for step in found[1]:
        if ref is None:
            return None
        if isinstance(step, int):
            items = yt.seq_items(ref)
            ref = items[step] if 0 <= step < len(items) else None
        else:
            ref = yt.get(ref, step)
    return yt.scalar_text(yt.get(ref, "name")) if ref is not None else None
