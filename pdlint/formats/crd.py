"""Role adapters for Kubernetes objects that name prefill/decode in their structure.

:func:`workloads` turns the containers of a YAML stream into
:class:`Workload` values: the effective container (strategic-merge layers,
base first), the role the *structure* names with the scalar that names it,
leader/worker position, the deployment unit and a human context.  Extraction
turns each workload into launches and copies that information onto them
(``structural_role``, ``structural_origin``, ``meta['unit']``,
``meta['group_role']``, ``meta['replica_of']``).

Known shapes:

* RoleBasedGroup (``workloads.x-k8s.io`` v1alpha1/v1alpha2): ``spec.roles[].name``;
  ``standalonePattern`` / ``leaderWorkerPattern`` (``template`` or
  ``templateRef`` to ``spec.roleTemplates[]`` with ``patch`` applied as a
  strategic merge; ``leaderTemplatePatch`` / ``workerTemplatePatch``);
  v1alpha1 ``template`` (or ``templateRef`` with the role's ``templatePatch``) +
  ``leaderWorkerSet.patchLeaderTemplate`` /
  ``patchWorkerTemplate``; ``engineRuntimes`` sidecars whose
  ``--instance-info`` JSON names a ``worker_type`` (a role claim).
* LeaderWorkerSet: ``leaderTemplate`` / ``workerTemplate``; the role comes from
  the resource name (or a role label).
* DisaggregatedSet (llm-d): ``spec.roles[].name`` with a ``leaderWorkerTemplate``.
* DynamoGraphDeployment: v1alpha1 ``spec.services.<Name>`` (``subComponentType``,
  else the service name) with service-level ``envs``; v1beta1
  ``spec.components[].type``.  The operator injects role flags itself.
* OME ClusterServingRuntime / ServingRuntime / InferenceService:
  ``engineConfig`` (prefill when a ``decoderConfig`` exists) / ``decoderConfig``
  / ``routerConfig``, each with ``leader`` / ``worker``.
* KServe LLMInferenceService (and LLMInferenceServiceConfig, whose spec is the
  same): ``spec.template`` (decode when ``spec.prefill``
  exists) and ``spec.prefill.template``; ``spec.worker`` / ``spec.prefill.worker``
  are multi-node workers.  The controller writes the ``vllm serve`` command:
  a container without ``command``/``args`` becomes a controller-generated vLLM
  launch whose argv is the ``VLLM_ADDITIONAL_ARGS`` value.
* AIBrix StormService: ``spec.template.spec.roles[].name``.
* Anything else (Deployment, StatefulSet, Job, Pod …): the role a resource
  name, a role label or the container name names (name tokens such as
  ``prefill``/``decode``/``prefiller``/``ctx``/``gen``).
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.formats import argo, kube, mounts
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field
from pdlint.text import TStr

PREFILL_WORDS = {"prefill", "prefiller", "prefills", "ctx", "context", "producer", "sender"}
DECODE_WORDS = {"decode", "decoder", "decodes", "decoding", "gen", "generation", "consumer", "receiver"}
#: words that make a decode word name speculative decoding, not a PD role (llmaz's `speculative-decoding`
#: config, `eagle-decoder-draft`); beside a speculative method's name only the technique's nouns do: Dynamo's
#: TRT-LLM recipes name their MTP / EAGLE decode workers' option files `mtp_decode.yaml`, `eagle_decode.yaml`
_NOT_PD = {"speculative", "spec", "draft"}
_SPEC_METHODS = {"eagle", "eagle3", "mtp", "medusa", "ngram"}
_SPEC_NOUNS = {"decoding", "decoder"}
ROLE_LABELS = ("llm-d.ai/role", "role", "app.kubernetes.io/component", "component", "pd-role", "pd_role")
LEADER_KEYS = {"leaderTemplate": "leader", "workerTemplate": "worker", "leaderTemplatePatch": "leader",
               "workerTemplatePatch": "worker", "patchLeaderTemplate": "leader", "patchWorkerTemplate": "worker",
               "leader": "leader", "worker": "worker"}
_CAMEL = lazyre.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NON_ALNUM = lazyre.compile(r"[^A-Za-z0-9]+")


@dataclass
class Workload:
    """One effective container and what its structure says about it."""

    layers: list  # [(doc TStr, container Ref)], base first, most specific last
    path: tuple
    doc_index: int
    resource_kind: Optional[str] = None
    resource_name: Optional[str] = None
    names: dict = field(default_factory=dict)
    role: Optional[str] = None  # prefill | decode | None
    role_tok: Optional[TStr] = None  # the text that names the role
    role_how: str = ""  # e.g. "RoleBasedGroup role name"
    role_label: str = ""  # e.g. "role 'prefill'"
    group_role: Optional[str] = None  # leader | worker
    group: Optional[str] = None  # leader and workers of one instance share this key
    replicas: Optional[int] = None
    unit: str = ""
    extra_env: dict = field(default_factory=dict)  # lower priority than the container's own env
    #: what a controller sets in every container whatever its own ``env`` says, above an entry pdlint cannot see
    #: (a ``valueFrom``) - a literal the container writes stays (LeaderWorkerSet's ``LWS_GROUP_SIZE``)
    injected: dict = field(default_factory=dict)
    #: downward-API fields the controller fills (``metadata.annotations['leaderworkerset.sigs.k8s.io/size']``):
    #: an ``env`` entry with that ``fieldRef`` takes the value
    fields: dict = field(default_factory=dict)
    claims: list = field(default_factory=list)  # [(role, TStr, note)]: other places that name the role
    virtual: Optional[str] = None  # "kserve": the controller writes the command
    flag_args: bool = False  # (kserve) the container's args are flags the controller appends to its command
    controller: dict = field(default_factory=dict)  # what a controller's command depends on (Kthena's)
    injects_role: bool = False  # the operator adds the role flag itself
    router: bool = False  # the structure says this is the router/frontend
    image_override: Optional[str] = None  # e.g. a Kustomize ``images:`` entry
    volumes: list = field(default_factory=list)  # Refs of the pod's ``volumes`` lists, base first (mounts)
    #: an Argo workflow's container: the values its ``{{workflow.parameters.X}}`` / ``{{inputs.parameters.X}}``
    #: take in one run of its template (the workflow's arguments, the call's arguments over the template's input
    #: defaults: :mod:`pdlint.formats.argo`), None elsewhere; ``call``: the step / task of that run
    params: Optional[dict] = None
    call: str = ""

    @property
    def doc(self) -> TStr:
        return self.layers[-1][0]

    @property
    def ref(self) -> yt.Ref:
        return self.layers[-1][1]

    def container_name(self) -> Optional[str]:
        return yt.scalar_text(yt.get(self.ref, "name"))

    def context(self) -> str:
        head = f"{self.resource_kind}/{self.resource_name}" if self.resource_kind and self.resource_name else \
            (self.resource_kind or f"document {self.doc_index + 1}")
        parts = [head]
        if self.role_label:
            parts[0] += f" {self.role_label}"
        if self.group_role:
            parts[0] += f" ({self.group_role})"
        elif self.group:
            parts[0] += " (leader and workers)"
        cname = self.container_name()
        where = _path_text(self.path)
        tail = (f"container {cname!r} at {where}" if cname else where)
        if self.call:
            tail += f", run by {self.call}"
        if len(self.layers) > 1:
            tail += f", merged over {len(self.layers) - 1} base layer" + ("s" if len(self.layers) > 2 else "")
        return f"{parts[0]}, {tail}"


# ---------------------------------------------------------------------------
# Names -> roles
# ---------------------------------------------------------------------------

def words_of(name: str) -> list:
    out = []
    for part in _NON_ALNUM.split(name or ""):
        out += [w.lower() for w in _CAMEL.findall(part)] or ([part.lower()] if part else [])
    return out


def role_of_name(name: Optional[str]) -> Optional[str]:
    """prefill/decode when the name's words name exactly one of them."""
    if not name:
        return None
    ws = set(words_of(name))
    if ws & _NOT_PD:
        ws -= DECODE_WORDS
    elif ws & _SPEC_METHODS:
        ws -= _SPEC_NOUNS
    p, d = bool(ws & PREFILL_WORDS), bool(ws & DECODE_WORDS)
    if not (p or d):
        # one word of a name Helm's `title` wrote (`Decodeworker1`, `Tinyllamadecode` from `tinyllama-decode`:
        # vllm-project/semantic-router's chart, field test rw12/d): a word that starts or ends with a long role word
        p = any(w.startswith(_LONG_PREFILL) or w.endswith(_LONG_PREFILL) for w in ws)
        d = any(w.startswith(_LONG_DECODE) or w.endswith(_LONG_DECODE) for w in ws) and not ws & _NOT_PD
    if p and not d:
        return "prefill"
    if d and not p:
        return "decode"
    return None


#: the words that name a PD role itself, and the words a server's name may add around one (`sglang-decode`,
#: `prefill-worker`): such a name is that role's server whatever its resource is called
_ROLE_ITSELF = {"prefill", "decode"}
_SERVER_WORDS = {"sglang", "vllm", "trtllm", "dynamo", "server", "worker", "main", "engine", "pd", "llm", "serve",
                 "serving", "node", "instance", "pod", "container", "step", "leader"}


def _names_role_itself(name: Optional[str]) -> bool:
    """Is ``name`` a role's server name: one of :data:`_ROLE_ITSELF` and nothing but server words and numbers
    (not `encoder-decoder`, `whisper-decoder`, `prefill-cache-client`: field test rw18/p)?"""
    ws = [w for w in words_of(name or "") if not w.isdigit()]
    roles = [w for w in ws if w in _ROLE_ITSELF]
    return len(roles) == 1 and all(w in _ROLE_ITSELF or w in _SERVER_WORDS for w in ws)

_LONG_PREFILL = ("prefill", "prefiller")
_LONG_DECODE = ("decode", "decoder")


def narrow(tok: Optional[TStr], role: Optional[str]) -> Optional[TStr]:
    """The part of a name that names the role (``prefill`` in ``x-prefill-main``)."""
    if tok is None or role is None:
        return tok
    words = PREFILL_WORDS if role == "prefill" else DECODE_WORDS
    low = tok.text.lower()
    best = None
    for w in words:
        a = low.find(w)
        while a >= 0:  # each occurrence, left to right, not overlapping (as re.finditer() finds them)
            b = a + len(w)
            if (a == 0 or not low[a - 1].isalpha()) or tok.text[a].isupper():
                if best is None or a < best[0] or (a == best[0] and b > best[1]):
                    best = (a, b)
            a = low.find(w, b)
    return tok[best[0]:best[1]] if best else tok


def role_of_value(value: Optional[str]) -> Optional[str]:
    """A field whose value is the role itself (``type: prefill``)."""
    v = (value or "").strip().lower()
    if v in ("prefill", "prefiller", "context", "ctx"):
        return "prefill"
    if v in ("decode", "decoder", "generation", "gen"):
        return "decode"
    return None


# ---------------------------------------------------------------------------
# Tree helpers
# ---------------------------------------------------------------------------

def at(ref: Optional[yt.Ref], *path) -> Optional[yt.Ref]:
    cur = ref
    for p in path:
        if cur is None:
            return None
        if isinstance(p, int):
            items = yt.seq_items(cur)
            cur = items[p] if 0 <= p < len(items) else None
        else:
            cur = yt.get(cur, p)
    return cur


def text_at(ref, *path) -> Optional[str]:
    return yt.scalar_text(at(ref, *path))


def tstr(doc: TStr, ref: Optional[yt.Ref]) -> Optional[TStr]:
    if ref is None:
        return None
    node = yt.deref(ref).node
    if isinstance(node, yt.YScalar):
        return yt.scalar_tstr(doc, ref)
    return yt.node_tstr(doc, ref)


def _path_key_role(doc: TStr, root: Optional[yt.Ref], path: tuple) -> tuple:
    """(role, the key naming it) of the deepest mapping key above a container that names one role: the
    ``prefill:`` / ``decode:`` sections of a values file (llm-d-modelservice's ``decode.containers[0]``),
    whose container, resource and labels name none.  (None, None) when no key does."""
    for i in range(len(path) - 1, -1, -1):
        key = path[i]
        if isinstance(key, str):
            r = role_of_name(key)
            if r:
                return r, key_tstr(doc, at(root, *path[:i]), key)
    return None, None


def key_tstr(doc: TStr, parent: Optional[yt.Ref], key: str) -> Optional[TStr]:
    if parent is None:
        return None
    k = yt.key_node(parent, key)
    if k is None:
        return None
    return doc[k.start:k.end]


def at_node(doc: TStr, ref: yt.Ref, text: str) -> TStr:
    """``text`` (written nowhere) positioned at the start of a node."""
    node = yt.deref(ref).node
    first = doc[node.start:node.start + 1]
    p = first.pieces[0] if first.pieces else None
    if p is None:
        return TStr.synthetic(text, "<generated>")
    return TStr.at(text, p.src, p.offset, p.chain, exact=False, label=p.label)


def _path_text(path: tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + str(p))
    return out


def _int(ref) -> Optional[int]:
    t = yt.scalar_text(ref)
    try:
        return int(t) if t is not None else None
    except ValueError:
        return None


def containers_of(pod: Optional[yt.Ref], lists=("containers",)) -> list:
    """(name, Ref) of the containers of a pod template (``template`` or its ``spec``)."""
    if pod is None:
        return []
    spec = yt.get(pod, "spec")
    if spec is None and yt.get(pod, "containers") is not None:
        spec = pod
    out = []
    for lst in lists:
        for item in yt.seq_items(yt.get(spec, lst) if spec is not None else None):
            if isinstance(yt.deref(item).node, yt.YMap):
                out.append((yt.scalar_text(yt.get(item, "name")), item))
    return out


# ---------------------------------------------------------------------------
# Effective container: strategic merge over layers
# ---------------------------------------------------------------------------

def effective_env(w: Workload, configmaps: Optional[dict] = None, keys: Optional[dict] = None) -> dict:
    """The container's env over its layers; ``keys`` (when given) gets the ConfigMap data keys its values are
    read from (:func:`pdlint.formats.kube.container_env`)."""
    env: dict = dict(w.extra_env)
    for doc, ref in w.layers:
        env.update(kube.container_env(doc, kube.Container(ref, w.path, w.doc_index), configmaps, w.fields, keys))
    for name, value in w.injected.items():
        if env.get(name) is None or env[name].opaque:
            env[name] = value
            if keys is not None:
                keys.pop(name, None)
    return env


def effective_words(w: Workload, env: dict, given: Optional[dict] = None) -> list:
    """``command`` + ``args``; each list comes whole from the most specific layer
    that sets it (strategic merge replaces lists of scalars); ``given``: envsubst placeholders' values."""
    words: list = []
    envsubst = kube.envsubst_template([w.resource_name, effective_image(w)]
                                      + [yt.scalar_text(yt.get(ref, "name")) for _, ref in w.layers])
    for key in ("command", "args"):
        chosen = None
        for doc, ref in w.layers:
            if yt.get(ref, key) is not None:
                chosen = (doc, ref)
        if chosen is None:
            continue
        doc, ref = chosen
        words += kube.container_words(doc, kube.Container(ref, w.path, w.doc_index), env, keys=(key,),
                                      envsubst=envsubst, given=given)
    if w.params is not None:
        words = [argo_substitute(t, w.params) for t in words]
    return words


def effective_image(w: Workload) -> str:
    if w.image_override:
        return w.image_override
    image = ""
    for _, ref in w.layers:
        v = yt.scalar_text(yt.get(ref, "image"))
        if v:
            image = v
    return image


def has_command(w: Workload) -> bool:
    return any(yt.get(ref, "command") is not None or yt.get(ref, "args") is not None for _, ref in w.layers)


def merge_by_name(base: list, patch: list) -> list:
    """Strategic merge of two container lists: [(name, [refs])] in base order, new names appended."""
    out: list = [(n, [r]) for n, r in base]
    index = {n: i for i, (n, _) in enumerate(out) if n is not None}
    for n, r in patch:
        if n is not None and n in index:
            out[index[n]][1].append(r)
        else:
            index[n] = len(out)
            out.append((n, [r]))
    return out


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def workloads(docs: list, doc: TStr, containers: list, unit_base: str, cut: Optional[list] = None) -> list:
    """Every workload of a YAML stream; ``containers`` are those
    :func:`pdlint.formats.kube.find_containers` found (the generic fallback); ``cut`` gets the
    :class:`pdlint.formats.argo.Cut` of each Argo template whose runs were not all checked."""
    out: list = []
    stream = None
    covered: set = set()
    by_doc: dict = {}
    for c in containers:
        by_doc.setdefault(c.doc_index, []).append(c)
    for di, d in enumerate(docs):
        if d.root is None:
            continue
        root = yt.Ref(d.root)
        if not isinstance(yt.deref(root).node, yt.YMap):
            for c in by_doc.get(di, []):
                out.append(_generic(doc, c, None, unit_base))
            continue
        kind = yt.scalar_text(yt.get(root, "kind"))
        name = text_at(root, "metadata", "name")
        unit = f"{unit_base}#{kind}/{name}" if kind and name else (f"{unit_base}#{di + 1}" if len(docs) > 1
                                                                    else unit_base)
        ctx = _Doc(doc, root, di, kind, name, unit)
        special = _SPECIAL.get(kind or "")
        mine: list = []
        if special is not None:
            try:
                mine = special(ctx)
            except RecursionError:  # pragma: no cover - pathological nesting
                mine = []
        for w in mine:
            for _, ref in w.layers:
                covered.add(id(yt.deref(ref).node))
        out += mine
        start = len(out) - len(mine)
        for c in by_doc.get(di, []):
            node = yt.deref(c.ref).node
            if id(node) in covered or (kind == "RoleBasedGroup" and "roleTemplates" in c.path):
                continue
            out.append(_generic(doc, c, ctx, unit))
        for w in out[start:]:
            vols = mounts.volumes_of(root, w.path)
            if vols is not None:
                w.volumes.append(vols)
        if kind in ARGO_KINDS and len(out) > start:
            stream = stream or argo.Stream(doc, docs)
            _argo_runs(out, start, stream, di, root)
    if stream is not None and cut is not None:
        cut += stream.cuts
    return out


ARGO_KINDS = argo.KINDS


def _argo_runs(out: list, start: int, stream: "argo.Stream", di: int, root: yt.Ref) -> None:
    """The workloads ``out[start:]`` of an Argo object, each once per run of its template (a step / DAG task
    that calls it, each item of its loop: :class:`pdlint.formats.argo.Stream`), with the values its
    ``{{workflow.parameters.X}}`` / ``{{inputs.parameters.X}}`` take in that run (field test rw25/a: passed to
    SGLang as written, a false SGL004 / SGL005; rw26/h: the arguments a call passes were ignored)."""
    import copy
    mine = out[start:]
    del out[start:]
    for w in mine:
        name = argo.template_name(root, w.path)
        runs = stream.runs(di, name) if name else [argo.Run(stream.workflow_params(di))]
        for run in runs:
            c = copy.copy(w) if len(runs) > 1 else w
            c.params, c.call = run.params, run.call
            out.append(c)


def argo_substitute(word: TStr, params: dict) -> TStr:
    """``{{workflow.parameters.X}}`` / ``{{inputs.parameters.X}}`` in one argument, as Argo fills them: the value
    ``params`` has, else a value pdlint cannot see (the substitution Argo ``script.source`` strings get)."""
    if "{{" not in word.text:
        return word
    from pdlint.formats.yaml_shell import substitute
    return substitute(word, params, "argo")


@dataclass
class _Doc:
    doc: TStr
    root: yt.Ref
    di: int
    kind: Optional[str]
    name: Optional[str]
    unit: str

    def workload(self, layers: list, path: tuple, **kw) -> Workload:
        return Workload(layers=[(self.doc, r) for r in layers], path=path, doc_index=self.di,
                        resource_kind=self.kind, resource_name=self.name, unit=self.unit, **kw)


def _generic(doc: TStr, c: kube.Container, ctx: Optional[_Doc], unit: str) -> Workload:
    w = Workload(layers=[(doc, c.ref)], path=c.path, doc_index=c.doc_index, resource_kind=c.resource_kind,
                 resource_name=c.resource_name, names=c.names, unit=unit)
    if ctx is None:
        return w
    root = ctx.root
    if ctx.kind == "StatefulSet":  # its pods' stable names <name>-<ordinal> (PD107: a router that lists some)
        w.replicas = _int(at(root, "spec", "replicas"))
    # a role the resource's path names (RBG roles[i], OME engineConfig, ...), when a special handler
    # did not take the container (sidecars, init containers)
    hint = _PATH_ROLES.get(ctx.kind or "")
    if hint is not None:
        hint(ctx, c.path, w)
        if w.role is not None or w.router:
            return w
    # generic: container name, resource name, role labels.  The innermost unit wins: a Tekton Task or a
    # Deployment named after what it tests (`prefill-latency-smoke`) may hold a `prefill` and a `decode`
    # step / container, each the server its own name says (field test rw18/o, repro 5: the Task's name made
    # the decode step a prefill server, a false PD101 error)
    meta = yt.get(root, "metadata")
    name_ref = yt.get(meta, "name") if meta is not None else None
    cname_ref = yt.get(c.ref, "name")
    r = role_of_name(yt.scalar_text(cname_ref))
    outer = role_of_name(yt.scalar_text(name_ref))
    # (against a resource name of the other role, only a container name that says the role itself wins: not a
    # model's `encoder-decoder` / `whisper-decoder` container in Deployment `t5-prefill`, field test rw18/p)
    if r and (outer is None or outer == r or _names_role_itself(yt.scalar_text(cname_ref))):
        w.role, w.role_tok, w.role_how = r, tstr(doc, cname_ref), "container name"
    elif outer:
        r = role_of_name(yt.scalar_text(name_ref))
        w.role, w.role_tok, w.role_how = r, narrow(tstr(doc, name_ref), r), "resource name"
        w.role_label = ""
    else:
        for labels in _label_maps(root, c.path):
            for lk in ROLE_LABELS:
                lv = yt.get(labels, lk)
                r = role_of_value(yt.scalar_text(lv)) or (role_of_name(yt.scalar_text(lv)) if lk != "role" else None)
                if r:
                    w.role, w.role_tok, w.role_how = r, tstr(doc, lv), f"label {lk}"
                    break
            if w.role:
                break
    if w.role is None and hint is None:  # (a resource's own handler may leave the role open on purpose)
        r, tok = _path_key_role(doc, root, c.path)
        if r:
            w.role, w.role_tok, w.role_how = r, tok, "the key it is under"
    if ctx.kind == "LeaderWorkerSet":
        for p in c.path:
            if p in ("leaderTemplate", "workerTemplate"):
                w.group_role = LEADER_KEYS[p]
                w.group = f"{ctx.unit}:{ctx.name}"
                lwt = at(root, "spec", "leaderWorkerTemplate")
                _group_size_env(w, ctx.doc, lwt, "LWS_GROUP_SIZE")
                _lws_env(w, ctx.doc, lwt, p)
                break
    return w


#: the variables LeaderWorkerSet adds to every container of its pods (kubernetes-sigs/lws
#: api/leaderworkerset/v1/leaderworkerset_types.go: ``LwsLeaderAddress``, ``LwsGroupSize``, ``LwsWorkerIndex``,
#: "Environment variable added to all containers in the LeaderWorkerSet"), listed in the container's ``env`` or not
LWS_INJECTED = ("LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX")
#: the pod annotation / label LeaderWorkerSet sets (the same file: ``SizeAnnotationKey``, ``WorkerIndexLabelKey``)
LWS_SIZE_FIELD = "metadata.annotations['leaderworkerset.sigs.k8s.io/size']"
LWS_INDEX_FIELD = "metadata.labels['leaderworkerset.sigs.k8s.io/worker-index']"


def _lws_env(w: Workload, doc: TStr, lwt: Optional[yt.Ref], template: Optional[str]) -> None:
    """LeaderWorkerSet's variables in a container of its leader or worker pods, set (injected) even where its
    ``env`` does not list them, so a script's ``${LWS_WORKER_INDEX:-0}`` never takes its default (field test
    rw26/a, AI-Hypercomputer/gpu-recipes' lws-launcher.yaml: a false PD113 "this worker is given --node-rank 0").

    * ``LWS_GROUP_SIZE``: ``leaderWorkerTemplate.size`` when it is a number (:func:`_group_size_env`), else
      what the file writes there (a template's ``{{ .Values.workload.nnodes }}``, a chart's unset value rendered
      as null), opaque; 1 (the API's default) when no size is written;
    * ``LWS_WORKER_INDEX``: 0 in the ``leaderTemplate``'s pod (the leader's index is always 0); opaque in the
      ``workerTemplate``'s, which runs the workers 1..size-1 (and the leader too when there is no
      ``leaderTemplate``); ``template``: the key of the pod's template under ``lwt`` (the leader's patch key of a
      RoleBasedGroup's ``leaderWorkerSet``), None for a template leader and workers share;
    * ``LWS_LEADER_ADDRESS``: opaque (the leader pod's DNS name, ``<name>-<group>.<name>.<namespace>``).

    A ``fieldRef`` to the size annotation or the worker-index label is the same value."""
    if lwt is None:
        return
    size = at(lwt, "size")
    written = tstr(doc, size) if size is not None else None
    if written is None:  # (none written: the API's default)
        value = at_node(doc, lwt, "1")
    elif written.text.strip() in ("", "~", "null", "Null", "NULL"):
        # (a chart's value the values files do not set, rendered as null: the value it is deployed with)
        value = at_node(doc, size, "$(LWS_GROUP_SIZE)").as_opaque()
    elif _int(size) is not None:
        value = written
    else:
        value = written.as_opaque()
    w.injected.setdefault("LWS_GROUP_SIZE", value)
    w.fields.setdefault(LWS_SIZE_FIELD, value)
    where = (key_tstr(doc, lwt, template) if template else None) or at_node(doc, lwt, "-")
    if template and LEADER_KEYS.get(template) == "leader":
        index = TStr.at("0", *_place(where), exact=False)
    else:
        index = TStr.at("$(LWS_WORKER_INDEX)", *_place(where), exact=False, opaque=True)
    w.injected.setdefault("LWS_WORKER_INDEX", index)
    w.fields.setdefault(LWS_INDEX_FIELD, index)
    w.injected.setdefault("LWS_LEADER_ADDRESS", TStr.at("$(LWS_LEADER_ADDRESS)", *_place(where), exact=False,
                                                        opaque=True))


def _place(t: TStr) -> tuple:
    """(src, offset, chain) of where ``t`` starts."""
    p = t.pieces[0] if t.pieces else None
    return (p.src, p.offset, p.chain) if p is not None else (None, 0, ())


def _group_size_env(w: Workload, doc: TStr, group: Optional[yt.Ref], name: str) -> None:
    """The group size a leader/worker controller puts in every container's environment as ``name``
    (LeaderWorkerSet's ``LWS_GROUP_SIZE``: the pods' size annotation, from ``leaderWorkerTemplate.size``; a
    v1alpha2 RoleBasedGroup's ``RBG_LWP_GROUP_SIZE`` from ``leaderWorkerPattern.size``), below a literal of the
    container's own ``env``, above one pdlint cannot see (a ``fieldRef``: LeaderWorkerSet writes its own
    variables over the container's, kubernetes-sigs/lws pkg/utils/pod/pod_utils.go addEnvVarsIfNotExists):
    `--nnodes $(LWS_GROUP_SIZE)` is that number, not a value pdlint cannot see."""
    size = at(group, "size") if group is not None else None
    if size is not None and _int(size) is not None:
        w.extra_env.setdefault(name, tstr(doc, size))
        w.injected.setdefault(name, tstr(doc, size))


def _label_maps(root: yt.Ref, path: tuple) -> list:
    """``metadata.labels`` of the resource and of every template on the way to the container."""
    out = []
    lab = at(root, "metadata", "labels")
    if lab is not None:
        out.append(lab)
    cur = root
    for p in path:
        cur = at(cur, p)
        if cur is None:
            break
        lab = at(cur, "metadata", "labels")
        if lab is not None:
            out.append(lab)
    return list(reversed(out))


# ---------------------------------------------------------------------------
# RoleBasedGroup
# ---------------------------------------------------------------------------

def _rbg(ctx: _Doc) -> list:
    out = []
    spec = yt.get(ctx.root, "spec")
    templates = {}
    for i, t in enumerate(yt.seq_items(yt.get(spec, "roleTemplates"))):
        n = text_at(t, "name")
        if n is not None:
            templates[n] = (i, t)
    for i, role in enumerate(yt.seq_items(yt.get(spec, "roles"))):
        rname_ref = yt.get(role, "name")
        rname = yt.scalar_text(rname_ref) or f"roles[{i}]"
        info = dict(role=role_of_name(rname), role_tok=tstr(ctx.doc, rname_ref), role_how="RoleBasedGroup role name",
                    role_label=f"role {rname!r}", replicas=_int(yt.get(role, "replicas")))
        base_path = ("spec", "roles", i)
        pattern, pname = None, None
        for key in ("standalonePattern", "leaderWorkerPattern", "customComponentsPattern"):
            if yt.get(role, key) is not None:
                pattern, pname = yt.get(role, key), key
                break
        if pattern is None:  # v1alpha1: role.template (+ leaderWorkerSet patches)
            pattern, pname = role, None
        pod = yt.get(pattern, "template")
        tref = yt.get(pattern, "templateRef") or yt.get(role, "templateRef")
        base_pod = None
        pod_path = base_path + ((pname,) if pname else ()) + ("template",)
        if tref is not None:
            tname = text_at(tref, "name")
            if tname in templates:
                base_pod = yt.get(templates[tname][1], "template")
            pod = yt.get(tref, "patch")
            pod_path = base_path + ((pname,) if pname else ()) + ("templateRef", "patch")
            if pod is None and pname is None and yt.get(role, "templatePatch") is not None:
                # v1alpha1: the role's `templatePatch` (a strategic-merge patch of the referenced template,
                # rbg api/workloads/v1alpha1/rolebasedgroup_types.go RoleSpec.TemplatePatch; field test rw16/l:
                # its --disaggregation-mode was dropped, two false PD105)
                pod = yt.get(role, "templatePatch")
                pod_path = base_path + ("templatePatch",)
        merged = merge_by_name(containers_of(base_pod), containers_of(pod))
        lwp = pattern if pname == "leaderWorkerPattern" else yt.get(role, "leaderWorkerSet")
        patches = {}
        if lwp is not None:
            for key in ("leaderTemplatePatch", "workerTemplatePatch", "patchLeaderTemplate", "patchWorkerTemplate"):
                p = yt.get(lwp, key)
                if p is not None and containers_of(p):
                    patches[LEADER_KEYS[key]] = containers_of(p)
        group = f"{ctx.unit}:{rname}" if lwp is not None else None
        # (v1alpha2's leaderWorkerPattern: RBG's own variables; v1alpha1's leaderWorkerSet: an LWS it creates)
        size_env = "RBG_LWP_GROUP_SIZE" if pname == "leaderWorkerPattern" else "LWS_GROUP_SIZE"
        for ci, (cname, refs) in enumerate(merged):
            variants = [(None, refs)]
            if patches:
                variants = []
                for gr in ("leader", "worker"):
                    extra = [r for n, r in patches.get(gr, []) if n == cname]
                    variants.append((gr, refs + extra))
            for gr, layers in variants:
                path = pod_path + ("spec", "containers", ci)
                w = ctx.workload(layers, path, group_role=gr, group=group, **info)
                if lwp is not None:
                    _group_size_env(w, ctx.doc, lwp, size_env)
                    if pname != "leaderWorkerPattern":  # (v1alpha1: the LeaderWorkerSet it creates injects its own)
                        _lws_env(w, ctx.doc, lwp, next((k for k in ("leaderTemplatePatch", "patchLeaderTemplate")
                                                        if yt.get(lwp, k) is not None), "leaderTemplatePatch")
                                 if gr == "leader" else None)
                out.append(w)
        # engineRuntimes sidecars (v1alpha1): --instance-info={"data": {"worker_type": ...}}
        for er in yt.seq_items(yt.get(role, "engineRuntimes")):
            for _, cref in containers_of(er):
                for arg in yt.seq_items(yt.get(cref, "args")):
                    claim = _instance_info_claim(ctx.doc, arg)
                    if claim is not None:
                        for w in out:
                            if w.role_label == info["role_label"]:
                                w.claims.append(claim)
    return out


_WORKER_TYPE = lazyre.compile(r'"worker_type"\s*:\s*"([A-Za-z_]+)"')


def _instance_info_claim(doc: TStr, arg: yt.Ref) -> Optional[tuple]:
    t = tstr(doc, arg)
    if t is None or "worker_type" not in t.text:
        return None
    m = _WORKER_TYPE.search(t.text)
    if not m:
        return None
    r = role_of_value(m.group(1))
    if r is None:
        return None
    return (r, t[m.start(1):m.end(1)], "runtime sidecar --instance-info worker_type")


# ---------------------------------------------------------------------------
# DisaggregatedSet, StormService: roles[] lists
# ---------------------------------------------------------------------------

def _roles_list(ctx: _Doc, roles_path: tuple, how: str) -> list:
    out = []
    for i, role in enumerate(yt.seq_items(at(ctx.root, *roles_path))):
        rname_ref = yt.get(role, "name")
        rname = yt.scalar_text(rname_ref) or f"roles[{i}]"
        info = dict(role=role_of_name(rname), role_tok=tstr(ctx.doc, rname_ref), role_how=how,
                    role_label=f"role {rname!r}")
        spec = yt.get(role, "spec") or role
        info["replicas"] = _int(yt.get(spec, "replicas")) or _int(yt.get(role, "replicas"))
        base = roles_path + (i,) + (("spec",) if yt.get(role, "spec") is not None else ())
        lwt = yt.get(spec, "leaderWorkerTemplate")
        pods = []
        if lwt is not None:
            for key in ("leaderTemplate", "workerTemplate"):
                if yt.get(lwt, key) is not None:
                    pods.append((key, base + ("leaderWorkerTemplate", key), yt.get(lwt, key)))
        elif yt.get(spec, "template") is not None:
            pods.append((None, base + ("template",), yt.get(spec, "template")))
        group = f"{ctx.unit}:{rname}" if lwt is not None and len(pods) > 1 else None
        for key, ppath, pod in pods:
            for ci, (_, cref) in enumerate(containers_of(pod)):
                if yt.get(cref, "command") is None and yt.get(cref, "args") is None:
                    continue
                w = ctx.workload([cref], ppath + ("spec", "containers", ci),
                                 group_role=LEADER_KEYS[key] if group and key else None, group=group, **info)
                if lwt is not None:  # (a DisaggregatedSet role's leaderWorkerTemplate is a LeaderWorkerSet's)
                    _group_size_env(w, ctx.doc, lwt, "LWS_GROUP_SIZE")
                    _lws_env(w, ctx.doc, lwt, key)
                out.append(w)
    return out


def _disaggregated_set(ctx: _Doc) -> list:
    return _roles_list(ctx, ("spec", "roles"), "DisaggregatedSet role name")


def _storm(ctx: _Doc) -> list:
    return _roles_list(ctx, ("spec", "template", "spec", "roles"), "StormService role name")


# ---------------------------------------------------------------------------
# Path-based roles for the generic walker
# ---------------------------------------------------------------------------

def _dgd_hint(ctx: _Doc, path: tuple, w: Workload) -> None:
    spec = yt.get(ctx.root, "spec")
    w.injects_role = True
    if len(path) >= 3 and path[:2] == ("spec", "services"):
        sname = path[2]
        svc = at(spec, "services", sname)
        w.role_label = f"service {sname!r}"
        sub = yt.get(svc, "subComponentType")
        comp = yt.get(svc, "componentType")
        r = role_of_value(yt.scalar_text(sub))
        if r:
            w.role, w.role_tok, w.role_how = r, tstr(ctx.doc, sub), "subComponentType"
        elif role_of_value(yt.scalar_text(comp)):
            w.role, w.role_tok, w.role_how = role_of_value(yt.scalar_text(comp)), tstr(ctx.doc, comp), "componentType"
        else:
            r = role_of_name(sname)
            if r == "decode" and not _graph_has_prefill(ctx.doc, yt.map_items(at(spec, "services"))):
                r = None  # an aggregated graph: Dynamo's agg.yaml names its only worker VllmDecodeWorker
            if r:
                w.role, w.role_tok, w.role_how = r, key_tstr(ctx.doc, at(spec, "services"), sname), "service name"
        if yt.scalar_text(comp) in ("frontend", "main") and w.role is None:
            w.router = True
        w.extra_env = _env_list(ctx.doc, yt.get(svc, "envs"))
        w.replicas = _int(yt.get(svc, "replicas"))
    elif len(path) >= 3 and path[:2] == ("spec", "components") and isinstance(path[2], int):
        comp = at(spec, "components", path[2])
        cname = text_at(comp, "name") or text_at(comp, "componentName")
        w.role_label = f"component {cname!r}" if cname else f"components[{path[2]}]"
        t = yt.get(comp, "type") or yt.get(comp, "componentType")
        r = role_of_value(yt.scalar_text(t))
        if r:
            w.role, w.role_tok, w.role_how = r, tstr(ctx.doc, t), "component type"
        elif role_of_name(cname) == "prefill" or (role_of_name(cname) == "decode" and _graph_has_prefill(
                ctx.doc, _named_components(at(spec, "components")))):
            w.role, w.role_tok, w.role_how = role_of_name(cname), tstr(ctx.doc, yt.get(comp, "name")), "component name"
        if yt.scalar_text(t) in ("frontend", "main") and w.role is None:
            w.router = True
        w.extra_env = _env_list(ctx.doc, yt.get(comp, "envs"))
        w.replicas = _int(yt.get(comp, "replicas"))


#: a prefill role flag written in a graph entry's text: ``--is-prefill-worker``, ``--disaggregation-mode prefill``
#: (``=prefill``, a list's next item, a ``disaggregation-mode: prefill`` key of a config it holds)
_PREFILL_FLAG = lazyre.compile(r"--is-prefill-worker\b|disaggregation[-_]mode[\s=:\"',\[\]-]*prefill\b", re.I)


def _graph_has_prefill(doc: TStr, entries) -> bool:
    """Does a Dynamo graph (its ``(name, Ref)`` services or components) run a prefill worker: an entry whose
    sub/component type or name names prefill, or whose text writes a prefill role flag?  A worker named for
    decode is the decode worker only beside one; alone it is the graph's aggregated worker, as Dynamo runs it
    (``--disaggregation-mode`` defaults to ``agg``; examples/backends/vllm/deploy/agg.yaml names that worker
    ``VllmDecodeWorker``)."""
    for name, ref in entries:
        kinds = (text_at(ref, "subComponentType"), text_at(ref, "componentType"), text_at(ref, "type"))
        if any(role_of_value(k) == "prefill" for k in kinds) or role_of_name(name) == "prefill":
            return True
        text = tstr(doc, ref)
        if text is not None and _PREFILL_FLAG.search(text.text):
            return True
    return False


def _named_components(ref) -> list:
    """(name, Ref) of a v1beta1 graph's ``components`` list."""
    return [(text_at(c, "name") or text_at(c, "componentName"), c) for c in yt.seq_items(ref)]


def _env_list(doc: TStr, ref) -> dict:
    if ref is None:
        return {}
    fake = yt.YMap(0, 0, None, None, [(yt.YScalar(0, 0, value="env"), yt.deref(ref).node)])
    return kube.container_env(doc, kube.Container(yt.Ref(fake, yt.deref(ref).hops), (), 0))


OME_KEYS = {"engineConfig": "engine", "decoderConfig": "decoder", "routerConfig": "router",
            "engine": "engine", "decoder": "decoder", "router": "router"}


def _ome_hint(ctx: _Doc, path: tuple, w: Workload) -> None:
    if len(path) < 2 or path[0] != "spec" or path[1] not in OME_KEYS:
        return
    spec = yt.get(ctx.root, "spec")
    what = OME_KEYS[path[1]]
    has_decoder = yt.get(spec, "decoderConfig") is not None or yt.get(spec, "decoder") is not None
    tok = key_tstr(ctx.doc, spec, path[1])
    w.role_label = f"{path[1]}"
    if what == "router":
        w.router = True
    elif what == "decoder":
        w.role, w.role_tok, w.role_how = "decode", tok, f"OME {path[1]}"
    elif has_decoder:
        w.role, w.role_tok, w.role_how = "prefill", tok, f"OME {path[1]} (a {'decoderConfig' if path[1].endswith('Config') else 'decoder'} exists)"
    if len(path) > 2 and path[2] in ("leader", "worker"):
        w.group_role = path[2]
        w.group = f"{ctx.unit}:{path[1]}"
        w.role_label = path[1]
        if path[2] == "worker":
            w.replicas = _int(at(spec, path[1], "worker", "size"))


def _rbg_hint(ctx: _Doc, path: tuple, w: Workload) -> None:
    if len(path) >= 3 and path[:2] == ("spec", "roles") and isinstance(path[2], int):
        role = at(ctx.root, "spec", "roles", path[2])
        rn = yt.get(role, "name")
        r = role_of_name(yt.scalar_text(rn))
        w.role_label = f"role {yt.scalar_text(rn)!r}"
        if r:
            w.role, w.role_tok, w.role_how = r, tstr(ctx.doc, rn), "RoleBasedGroup role name"


def _roles_hint(roles_path: tuple, how: str):
    def hint(ctx: _Doc, path: tuple, w: Workload) -> None:
        n = len(roles_path)
        if len(path) > n and path[:n] == roles_path and isinstance(path[n], int):
            role = at(ctx.root, *roles_path, path[n])
            rn = yt.get(role, "name")
            w.role_label = f"role {yt.scalar_text(rn)!r}"
            r = role_of_name(yt.scalar_text(rn))
            if r:
                w.role, w.role_tok, w.role_how = r, tstr(ctx.doc, rn), how
    return hint


# ---------------------------------------------------------------------------
# KServe LLMInferenceService
# ---------------------------------------------------------------------------

def _kserve(ctx: _Doc) -> list:
    out = []
    spec = yt.get(ctx.root, "spec")
    has_prefill = yt.get(spec, "prefill") is not None
    places = [(("spec", "template"), None, "template"), (("spec", "worker"), None, "worker"),
              (("spec", "prefill", "template"), "prefill", "prefill.template"),
              (("spec", "prefill", "worker"), "prefill", "prefill.worker")]
    for path, pool, label in places:
        pod = at(ctx.root, *path)
        if pod is None:
            continue
        if pool == "prefill":
            role, tok, how = "prefill", key_tstr(ctx.doc, spec, "prefill"), "LLMInferenceService spec.prefill"
            replicas = _int(at(spec, "prefill", "replicas"))
        else:
            role = "decode" if has_prefill else None
            tok = key_tstr(ctx.doc, spec, path[1]) if role else None
            how = "LLMInferenceService spec.template (the decode pool when spec.prefill exists)" if role else ""
            replicas = _int(yt.get(spec, "replicas"))
        multi = at(ctx.root, *path[:-1], "worker") is not None
        for ci, (cname, cref) in enumerate(containers_of(pod)):
            if cname not in (None, "main") and len(containers_of(pod)) > 1:
                continue
            w = ctx.workload([cref], path + ("containers", ci), role=role, role_tok=tok, role_how=how,
                             role_label=f"pool {label!r}", replicas=replicas)
            if multi:
                w.group = f"{ctx.unit}:{pool or 'main'}"
                w.group_role = "worker" if path[-1] == "worker" else "leader"
            args = yt.get(cref, "args")
            if yt.get(cref, "command") is None and (args is None or _flags_first(ctx.doc, args)):
                # the controller writes `vllm serve /mnt/models ... ${VLLM_ADDITIONAL_ARGS} "$@"`: args that
                # start with a flag are that server's (upstream KServe's templates append them)
                w.virtual = "kserve"
                w.flag_args = args is not None
            w.injects_role = True
            out.append(w)
    return out


def kserve_words(w: Workload, env: dict) -> list:
    """The controller's ``vllm serve`` plus ``$VLLM_ADDITIONAL_ARGS`` (shell-split, traced) and the container's
    ``args`` when they start with a flag."""
    words = [at_node(w.doc, w.ref, "vllm"), at_node(w.doc, w.ref, "serve")]
    extra = env.get("VLLM_ADDITIONAL_ARGS")
    if extra is not None and not extra.opaque:
        words += shell_split(extra)
    if w.flag_args:
        words += effective_words(w, env)
    return words


def _flags_first(doc: TStr, args) -> bool:
    """Is a container's ``args`` a list whose first item is a flag (``--max-model-len``)?"""
    items = list(yt.seq_items(args)) if isinstance(yt.deref(args).node, yt.YSeq) else []
    if not items or not isinstance(yt.deref(items[0]).node, yt.YScalar):
        return False
    return str(yt.scalar_value(yt.deref(items[0]).node)).startswith("-")


def shell_split(s: TStr) -> list:
    """POSIX-style word splitting with quote removal on a traced string (no expansions)."""
    out, cur, i, t, n = [], [], 0, s.text, len(s.text)
    started = False
    while i < n:
        c = t[i]
        if c in " \t\n":
            if started:
                out.append(TStr.join(cur))
                cur, started = [], False
            i += 1
            continue
        started = True
        if c == "'":
            j = t.find("'", i + 1)
            j = n if j < 0 else j
            cur.append(s[i + 1:j])
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and t[j] != '"':
                if t[j] == "\\" and j + 1 < n and t[j + 1] == "\n":  # a line continuation: removed
                    j += 2
                    continue
                if t[j] == "\\" and j + 1 < n and t[j + 1] in '"\\$`':
                    cur.append(s[j + 1:j + 2])
                    j += 2
                    continue
                cur.append(s[j:j + 1])
                j += 1
            i = j + 1
        elif c == "\\" and i + 1 < n and t[i + 1] == "\n":  # a line continuation: no character, no word
            started = bool(cur)
            i += 2
        elif c == "\\" and i + 1 < n:
            cur.append(s[i + 1:i + 2])
            i += 2
        else:
            cur.append(s[i:i + 1])
            i += 1
    if started:
        out.append(TStr.join(cur))
    return out


# ---------------------------------------------------------------------------
# llmaz BackendRuntime
# ---------------------------------------------------------------------------

def _llmaz(ctx: _Doc) -> list:
    """An llmaz BackendRuntime: the server container runs ``spec.command`` with the ``args`` of the
    recommended config a Playground picks (InftyAI/llmaz pkg/controller_helper/backendruntime), image
    ``spec.image:spec.version``. One workload per recommended config; its ``{{ .ModelPath }}`` placeholders
    are the controller's (opaque)."""
    api = text_at(ctx.root, "apiVersion") or ""
    spec = yt.get(ctx.root, "spec")
    if not api.startswith("inference.llmaz.io/") or spec is None or yt.get(spec, "command") is None:
        return []
    image, version = text_at(spec, "image"), text_at(spec, "version")
    out = []
    for i, cfg in enumerate(yt.seq_items(yt.get(spec, "recommendedConfigs"))):
        if not isinstance(yt.deref(cfg).node, yt.YMap):
            continue
        name = text_at(cfg, "name") or ""
        role = role_of_name(name)
        w = ctx.workload([spec, cfg], ("spec", "recommendedConfigs", i), role=role,
                         role_tok=narrow(tstr(ctx.doc, yt.get(cfg, "name")), role) if role else None,
                         role_how="llmaz recommended config name" if role else "",
                         role_label=f"recommended config {name!r}" if name else "")
        if image and version:
            w.image_override = f"{image}:{version}"
        out.append(w)
    return out


# ---------------------------------------------------------------------------
# Volcano Kthena ModelBooster
# ---------------------------------------------------------------------------

#: backend types whose workers the controller starts with vLLM (volcano-sh/kthena
#: pkg/model-booster-controller/convert/model_serving.go buildCommands)
_KTHENA_VLLM = ("vLLM", "vLLMDisaggregated")


def _kthena(ctx: _Doc) -> list:
    """A ModelBooster's workers: the controller starts each with ``python3 -m
    vllm.entrypoints.openai.api_server --model <download path>`` plus its ``config`` map as flags
    (:func:`kthena_words`); a worker ``type`` prefill/decode is its role."""
    api = text_at(ctx.root, "apiVersion") or ""
    backend = at(ctx.root, "spec", "backend")
    if not api.startswith("workload.serving.volcano.sh/") or text_at(backend, "type") not in _KTHENA_VLLM:
        return []
    workers = [(i, wk) for i, wk in enumerate(yt.seq_items(yt.get(backend, "workers")))
               if isinstance(yt.deref(wk).node, yt.YMap)]
    server = next((wk for _, wk in workers if text_at(wk, "type") == "server"), None)
    env = _env_list(ctx.doc, yt.get(backend, "env"))  # buildEngineEnvVars: the backend's env
    skip = env.get("KTHENA_SKIP_ENGINE_DEPENDENCY_INSTALL")
    controller = {
        "model": _kthena_model_path(text_at(backend, "cacheURI") or "", text_at(backend, "modelURI") or ""),
        "model_ref": yt.get(backend, "modelURI"),
        "ray_pods": _int(yt.get(server, "pods")),
        "ray_devices": _devices(server),
        "gpu": any(_quantity(at(wk, "resources", "limits", "nvidia.com/gpu")) > 0 for _, wk in workers),
        "skip_install": skip is not None and skip.text in ("1", "t", "T", "TRUE", "true", "True"),
    }
    out = []
    for i, worker in workers:
        kind = text_at(worker, "type") or ""
        role = role_of_value(kind) if kind in ("prefill", "decode") else None
        w = ctx.workload([worker], ("spec", "backend", "workers", i), role=role,
                         role_tok=tstr(ctx.doc, yt.get(worker, "type")) if role else None,
                         role_how="Kthena ModelBooster worker type" if role else "",
                         role_label=f"worker {kind!r}" if kind else "", replicas=_int(yt.get(worker, "replicas")))
        w.virtual = "kthena"
        w.extra_env = env
        w.controller = controller
        out.append(w)
    return out


def _kthena_model_path(cache_uri: str, model_uri: str) -> str:
    """Where the controller's downloader puts the model (``GetCachePath(cacheURI) + GetMountPath(modelURI)``):
    the cache URI's host and path without the scheme, then the MD5 of the model URI."""
    import hashlib
    from urllib.parse import urlsplit
    cache = ""
    if cache_uri:
        try:
            u = urlsplit(cache_uri)
            rest = (u.netloc + u.path).strip("/") if u.scheme else ""
        except ValueError:
            rest = ""
        cache = "/" + rest if rest else ""
    return cache + "/" + hashlib.md5(model_uri.encode("utf-8", "surrogatepass")).hexdigest()


def _quantity(ref) -> int:
    """A resource quantity's whole units (``"2"``, ``2``; a suffixed one such as ``500m`` counts as 0)."""
    t = (yt.scalar_text(ref) or "").strip()
    return int(t) if t.isdigit() else 0


#: workloads whose pods run a whole server each and get no variables but those the manifest and the namespace's
#: services give (not a LeaderWorkerSet / RoleBasedGroup / Kthena group, whose controller spreads one server over
#: several pods and injects variables of its own)
CORE_WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "Pod", "Job", "ReplicaSet", "DaemonSet", "CronJob"})

#: the extended resources that give a container whole GPUs (NVIDIA's and AMD's device plugins): a container
#: sees as many devices as its limit, numbered from 0
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")


def env_refs(w) -> tuple:
    """``([(name, token)], has envFrom)``: the ``$(NAME)`` references of an effective container's ``command``
    and ``args`` (each from the last layer that sets it), and whether a layer takes variables from ``envFrom``."""
    refs = []
    env_from = any(yt.get(ref, "envFrom") is not None for _, ref in w.layers)
    words = []  # (text, doc, item): a word is traced only when it holds a reference
    for key in ("command", "args"):
        layer = next(((d, r) for d, r in reversed(w.layers) if yt.get(r, key) is not None), None)
        if layer is None:
            continue
        doc, ref = layer
        node = yt.get(ref, key)
        items = yt.seq_items(node) if isinstance(yt.deref(node).node, yt.YSeq) else [node]
        for item in items:
            scalar = yt.deref(item).node
            if isinstance(scalar, yt.YScalar):
                # a plain YScalar's traced value is its value (yt.scalar_tstr); another tool's stand-in is read as traced
                text = scalar.value if scalar.__class__ is yt.YScalar else yt.scalar_tstr(doc, item).text
                words.append((text, doc, item))
    script = _shell_script_index([t for t, _, _ in words])
    for i, (text, doc, item) in enumerate(words):
        if i != script and "$(" in text:
            refs += kube.ref_names(yt.scalar_tstr(doc, item))
    return refs, env_from


_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "ash"))


def _shell_script_index(argv: list) -> Optional[int]:
    """The index of the script in an exec-form ``sh -c SCRIPT`` / ``/bin/bash -ec SCRIPT`` argv, None when the
    argv runs no shell script.  Its ``$(...)`` that Kubernetes cannot resolve is the shell's command
    substitution (``make -j$(nproc)``), no text a server receives (field test rw26/a, AI-Hypercomputer/gpu-recipes'
    a4xmax multi-node-aggregated-tensorrt-llm-deployment.yaml: a false PD112 on a UCX build step)."""
    if not argv or argv[0].rsplit("/", 1)[-1] not in _SHELLS:
        return None
    i = 1
    while i < len(argv) and i < 32:
        a = argv[i]
        if a in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if a == "--" or not a.startswith(("-", "+")):
            return None  # a script file: no -c
        if a.startswith("--"):  # (--login, --norc)
            i += 1
            continue
        if "c" in a[1:]:
            return i + 1 if i + 1 < len(argv) else None
        i += 1
    return None


def gpu_limit(w) -> Optional[tuple]:
    """``(count, token, resource)``: the GPU limit of an effective container (the last layer that sets one; its
    request when it sets no limit: Kubernetes makes an extended resource's request its limit), None when no
    layer sets a whole number of them."""
    for doc, ref in reversed(w.layers):
        res = yt.get(ref, "resources")
        if res is None:
            continue
        for part in ("limits", "requests"):
            for name in GPU_RESOURCES:
                q = at(res, part, name)
                if q is None:
                    continue
                t = (yt.scalar_text(q) or "").strip()
                if not t.isdigit() or len(t) > 6:
                    return None
                return int(t), yt.scalar_tstr(doc, q), f"resources.{part}[{name}]"
    return None


def _devices(worker) -> int:
    """utils.GetDeviceNum: the worker's accelerator limits (``nvidia.com/gpu``, ``huawei.com/ascend-1980``)."""
    return sum(_quantity(at(worker, "resources", "limits", r)) for r in ("nvidia.com/gpu", "huawei.com/ascend-1980"))


#: model_serving.go VllmMultiNodeServingScriptPath
_KTHENA_RAY_SCRIPT = "examples/online_serving/multi-node-serving.sh"
#: what the controller installs before the server when a worker requests nvidia.com/gpu, by kv_connector
_KTHENA_INSTALL = {"MooncakeConnector": "pip install mooncake-transfer-engine",
                   "NixlConnector": "PIP_DISABLE_PIP_VERSION_CHECK=1 pip install -U --no-cache-dir nixl"}


def kthena_words(w: Workload, doc: TStr) -> list:
    """The command Kthena's controller writes for a ModelBooster worker (``buildCommands``,
    ``utils.ConvertVLLMArgsFromJson``): its ``config`` keys in sorted order, each ``--key`` (``_`` written
    ``-``) followed by its value unless that is the empty string (``true``/``false`` as such). The model is
    the controller's download path (at ``modelURI``). Behind a Ray leader script when a ``server`` worker has several
    pods, and behind a ``pip install`` when a worker requests ``nvidia.com/gpu`` and the connector is Mooncake
    or NIXL: both join the words with blanks into a ``bash -c`` string, unquoted, as the controller does."""
    ref = w.ref
    words = [at_node(doc, ref, t) for t in ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model")]
    c = w.controller
    words.append(at_node(doc, c["model_ref"] if c.get("model_ref") is not None else ref, c.get("model", "")))
    config = yt.get(ref, "config")
    connector = None
    if config is not None and isinstance(yt.deref(config).node, yt.YMap):
        for key, value in sorted(yt.map_items(config), key=lambda kv: kv[0]):
            k = yt.key_node(config, key)
            flag = "--" + key.replace("_", "-")
            name = doc[k.start:k.end] if k is not None else at_node(doc, value, flag)
            words.append(name if name.text == flag else TStr.at(flag, *_first(name)))
            node = yt.deref(value).node
            if isinstance(node, yt.YScalar):
                text = node.value
                if node.style is None and text.lower() in ("true", "false"):
                    words.append(at_node(doc, value, text.lower()))
                elif text != "":
                    words.append(yt.scalar_tstr(doc, value))
                if key == "kv-transfer-config":
                    m = re.search(r'"kv_connector"\s*:\s*"([^"]*)"', text)
                    connector = m.group(1) if m else None
            else:
                words.append(yt.node_tstr(doc, value).as_opaque())  # a map or list: Go's %v of it
    prefix = None
    if (c.get("ray_pods") or 0) > 1:
        words += [at_node(doc, ref, "--distributed_executor_backend"), at_node(doc, ref, "ray")]
        script = _KTHENA_RAY_SCRIPT
        prefix = f"chmod u+x {script} && {script} leader --ray_cluster_size={c['ray_pods']} " \
                 f"--num-gpus={c['ray_devices']} && "
    if c.get("gpu") and not c.get("skip_install") and connector in _KTHENA_INSTALL:
        prefix = _KTHENA_INSTALL[connector] + " && " + (prefix or "")
    if prefix is None:
        return words
    blank = at_node(doc, ref, " ")
    joined = [at_node(doc, ref, prefix)]
    for i, word in enumerate(words):
        joined += [blank, word] if i else [word]
    return [at_node(doc, ref, "bash"), at_node(doc, ref, "-c"), TStr.join(joined)]


def _first(t: TStr) -> tuple:
    p = t.pieces[0] if t.pieces else None
    return (p.src, p.offset, p.chain, False) if p is not None else (None, 0, (), False)


_SPECIAL = {
    "RoleBasedGroup": _rbg,
    "DisaggregatedSet": _disaggregated_set,
    "StormService": _storm,
    "LLMInferenceService": _kserve,
    "LLMInferenceServiceConfig": _kserve,  # the same spec, merged into the services that name it in baseRefs
    "ModelBooster": _kthena,
    "BackendRuntime": _llmaz,
}
_PATH_ROLES = {
    "DynamoGraphDeployment": _dgd_hint,
    "ClusterServingRuntime": _ome_hint,
    "ServingRuntime": _ome_hint,
    "InferenceService": _ome_hint,
    "RoleBasedGroup": _rbg_hint,
    "DisaggregatedSet": _roles_hint(("spec", "roles"), "DisaggregatedSet role name"),
    "StormService": _roles_hint(("spec", "template", "spec", "roles"), "StormService role name"),
}
