"""Kubernetes-style containers anywhere in a YAML document.

Any mapping listed under ``containers`` / ``initContainers``, a Dynamo
``mainContainer``, or any mapping with an ``image`` and a ``command``/``args``
is a container, whatever object holds it (Deployment, StatefulSet, Job,
LeaderWorkerSet, RoleBasedGroup, a CRD).  Its argv is ``command`` followed by
``args``, as Kubernetes runs it; ``$(VAR)`` references are expanded from the
container's own ``env`` literals as Kubernetes does, and stay opaque when the
value comes from elsewhere (downward API, secrets, operator-injected).
"""

from __future__ import annotations

from typing import Optional

from pdlint import lazyre
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field
from pdlint.text import CONFIGMAP_NOT_JOINED, TStr

CONTAINER_LISTS = ("containers", "initContainers")
_REF = lazyre.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
#: the same with envsubst's ``${NAME}`` and ``$NAME``
_REF_ENVSUBST = lazyre.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*")


def envsubst_template(texts) -> bool:
    """Is a manifest an ``envsubst`` template: ``${NAME}`` in one of ``texts`` (its object's name, its image, its
    container's name), where Kubernetes takes no such text (a name is a DNS label, an image a reference)?
    ai-dynamo/modelexpress's CI Jobs (``name: ${JOB_NAME}``, ``image: ${WORKER_IMAGE}``, ``--port
    "${WORKER_PORT}"``, applied with ``envsubst < manifest | kubectl apply -f -``): field test rw12/d."""
    return any(t and _ENVSUBST_NAME.search(t) for t in texts)


_ENVSUBST_NAME = lazyre.compile(r"\$\{[A-Za-z_]\w*\}")


def envsubst_text(text: str, given: Optional[dict]) -> str:
    """``text`` with each ``${NAME}`` that ``given`` has a value for replaced by it (an image reference)."""
    if not given or "${" not in text:
        return text
    def one(m):
        v = given.get(m.group(0)[2:-1])
        return v.text if v is not None and not v.opaque else m.group(0)
    return _ENVSUBST_NAME.sub(one, text)


@dataclass
class Container:
    ref: yt.Ref
    path: tuple  # keys / indexes from the document root
    doc_index: int
    resource_kind: Optional[str] = None
    resource_name: Optional[str] = None
    names: dict = field(default_factory=dict)  # path element index -> 'name' field of that mapping

    def path_text(self) -> str:
        out = ""
        for p in self.path:
            out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + str(p))
        return out


class WalkLimit(Exception):
    """The document expands (through aliases) to more nodes than allowed."""


def find_containers(docs: list, max_nodes: int = 50_000) -> list:
    """Containers of every document; raises :class:`WalkLimit` on alias bombs."""
    out: list = []
    for di, doc in enumerate(docs):
        if doc.root is None:
            continue
        root = yt.Ref(doc.root)
        kind = yt.scalar_text(yt.get(root, "kind")) if isinstance(yt.deref(root).node, yt.YMap) else None
        meta = yt.get(root, "metadata") if kind else None
        name = yt.scalar_text(yt.get(meta, "name")) if meta else None
        budget = [max_nodes]
        _walk(root, (), di, kind, name, out, budget, set(), {})
    return out


def _walk(ref: yt.Ref, path: tuple, di: int, kind, name, out: list, budget: list, active: set, names: dict) -> None:
    r = yt.deref(ref)
    node = r.node
    _spend(budget)
    if len(path) > 64 or id(node) in active:
        return
    if node.__class__ is yt.YMap:
        items, first = yt.mapping(r)
        nm = yt.scalar_text(first.get("name"))
        if nm is not None:
            names = dict(names)
            names[len(path)] = nm
        if path and _is_container(path, first.keys()) and not (
                kind is None and len(path) == 3 and
                yt.scalar_text(first.get("modelCommand")) in CHART_WRITTEN_COMMANDS):
            out.append(Container(r, path, di, kind, name, names))
            return
        children = items
    elif node.__class__ is yt.YSeq:
        children = list(enumerate(yt.seq_items(r)))
    else:
        return
    active.add(id(node))  # the nodes on the path from the root: an alias cycle stops here
    try:
        for k, v in children:
            if v.node.__class__ is yt.YScalar:  # a leaf: counted, nothing to walk
                _spend(budget)
                continue
            _walk(v, path + (k,), di, kind, name, out, budget, active, names)
    finally:
        active.discard(id(node))


def _spend(budget: list) -> None:
    """Count one node against the walk's budget (alias bombs expand to millions)."""
    budget[0] -= 1
    if budget[0] < 0:
        # (a document of 60,000 URLs and no alias was told "alias expansion": field test rw22/h)
        raise WalkLimit("the document has or expands to more YAML nodes than pdlint walks (each use of an alias "
                        "counts: the YAML alias expansion limit)")


#: llm-d-modelservice values (a top-level section's ``decode.containers[0]``) whose command the chart writes
#: (``vllm serve`` with the parallel sizes from ``parallelism``): read by the values adapter
#: (:mod:`pdlint.formats.keyed`), not as the image's own entry point with these args (the llm-d image's:
#: ``parallelism.tensor`` was lost, a true PD153 missed; field test rw18/o, repro 10).  ``custom`` (the
#: container's own command) and ``imageDefault`` (the image's entry point) containers are containers
CHART_WRITTEN_COMMANDS = frozenset({"vllmServe", "vllm-serve"})


def _is_container(path: tuple, keys) -> bool:
    """``keys``: the mapping's keys (a set or a dict's keys view)."""
    if "command" not in keys and "args" not in keys:
        return False
    if isinstance(path[0], str) and path[0].startswith(("x-", ".")):
        return False  # compose extension fields / hidden keys: templates merged elsewhere, not workloads
    if len(path) >= 2 and isinstance(path[-1], int) and path[-2] in CONTAINER_LISTS:
        return True
    if path[-1] == "mainContainer":
        return True
    return "image" in keys


def container_env(doc: TStr, c: Container, configmaps: Optional[dict] = None, fields: Optional[dict] = None,
                  keys: Optional[dict] = None) -> dict:
    """Literal ``env`` values as traced strings; a ``configMapKeyRef`` into a ConfigMap of ``configmaps`` (those
    of the same YAML stream or kustomize build: name -> pdlint.formats.mounts.ConfigMap) as that key's value; a
    ``fieldRef`` to a pod field of ``fields`` (what a controller sets: LeaderWorkerSet's size annotation) as its
    value; other ``valueFrom`` ones opaque.  ``keys`` (when given) gets, per variable taken from a ConfigMap, the
    data key's text it reads (and loses a variable this container sets otherwise)."""
    env: dict = {}
    for item in yt.seq_items(yt.get(c.ref, "env")):
        name = yt.scalar_text(yt.get(item, "name"))
        if not name:
            continue
        vref = yt.get(item, "value")
        if vref is not None and isinstance(yt.deref(vref).node, yt.YScalar):
            value = yt.scalar_tstr(doc, vref)
            # a `$(NAME)` of a variable defined earlier in the list is expanded in the value, as the kubelet does
            # (`B: "$(A)"` after `A: "2"` is 2: a false SGL005 "invalid int value: '$(A)'" before, rw20/h)
            env[name] = expand_refs(value, env, known_only=True) if "$(" in value.text else value
            continue
        cm_ref = yt.get(yt.get(item, "valueFrom"), "configMapKeyRef")
        from_cm = _configmap_value(cm_ref, configmaps)
        field_value = _field_value(yt.get(yt.get(item, "valueFrom"), "fieldRef"), fields)
        if keys is not None:
            key_tok = _configmap_key(cm_ref, configmaps) if field_value is None and from_cm is not None else None
            if key_tok is not None:
                keys[name] = key_tok
            else:
                keys.pop(name, None)
        if field_value is not None:
            env[name] = field_value
        elif from_cm is not None:
            # (field test rw19/a, yeqcharlotte/router's vllm-deepseek-deployment.yaml: TP, DP and both ports from
            # its ConfigMap; the pair's size and port rules ran on opaque `$(TP_SIZE)` without a word)
            env[name] = from_cm
        else:  # valueFrom (secrets, downward API): known only at run time
            where = yt.node_tstr(doc, item)
            p = where.pieces[0] if where.pieces else None
            # (a ConfigMap pdlint did not join, one of another file: its value is written, --var gives it)
            how = CONFIGMAP_NOT_JOINED if cm_ref is not None and not _configmap_joined(cm_ref, configmaps) else True
            env[name] = TStr.at(f"$({name})", p.src if p else None, p.offset if p else 0,
                                p.chain if p else (), opaque=how)
    return env


def _field_value(ref, fields: Optional[dict]) -> Optional[TStr]:
    """The value ``fields`` gives the ``fieldPath`` of a ``fieldRef`` (quotes and blanks as the API takes them:
    ``metadata.annotations["k"]`` is ``metadata.annotations['k']``)."""
    if ref is None or not fields:
        return None
    path = yt.scalar_text(yt.get(ref, "fieldPath"))
    return fields.get(path.replace('"', "'").replace(" ", "")) if path else None


def ref_names(word: TStr) -> list:
    """``(name, token)`` of each ``$(NAME)`` reference in one argument, as :func:`expand_refs` reads them
    (``$$(NAME)`` is an escape, no reference)."""
    if "$(" not in word.text:
        return []
    return [(m.group(1), word[m.start():m.end()]) for m in _REF.finditer(word.text) if m.group(1) is not None]


def _configmap_joined(ref, configmaps: Optional[dict]) -> bool:
    """Is the ConfigMap a ``configMapKeyRef`` names one of ``configmaps`` (joined: its missing key is the file's to
    fix, not a ConfigMap elsewhere)?"""
    return bool(configmaps) and (yt.scalar_text(yt.get(ref, "name")) or "") in configmaps


def _configmap_key(ref, configmaps: Optional[dict]) -> Optional[TStr]:
    """The text of the data key a ``configMapKeyRef`` reads in a ConfigMap of ``configmaps`` (None for a generated
    one: its key is a file name)."""
    cm = configmaps.get(yt.scalar_text(yt.get(ref, "name")) or "") if ref is not None and configmaps else None
    keys = getattr(cm, "keys", None) or {}
    return keys.get(yt.scalar_text(yt.get(ref, "key")) or "")


def _configmap_value(ref, configmaps: Optional[dict]) -> Optional[TStr]:
    """The value a ``configMapKeyRef`` names, when its ConfigMap is one of ``configmaps`` and holds the key as
    a scalar."""
    if ref is None or not configmaps:
        return None
    cm = configmaps.get(yt.scalar_text(yt.get(ref, "name")) or "")
    if cm is not None and getattr(cm, "ambiguous", False):
        return None  # one of that name in each of two namespaces: the workload's decides (not followed)
    key = yt.scalar_text(yt.get(ref, "key"))
    value = cm.data.get(key) if cm is not None and key else None
    if isinstance(value, TStr):
        return value
    if value is not None and isinstance(yt.deref(value).node, yt.YScalar):
        return yt.scalar_tstr(cm.doc, value)
    return None


def container_words(doc: TStr, c: Container, env: dict, keys: tuple = ("command", "args"),
                    envsubst: bool = False, given: Optional[dict] = None) -> list:
    """The container's ``command`` / ``args`` words, ``$(VAR)`` expanded (:func:`expand_refs`); ``given``: the
    values the config and ``--var`` give an envsubst placeholder."""
    words: list = []
    for key in keys:
        ref = yt.get(c.ref, key)
        if ref is None:
            continue
        node = yt.deref(ref).node
        items = yt.seq_items(ref) if isinstance(node, yt.YSeq) else [ref] if isinstance(node, yt.YScalar) else []
        for item in items:
            if isinstance(yt.deref(item).node, yt.YScalar):
                word = yt.scalar_tstr(doc, item)
                # an argument that is one `${NAME}` (or `--flag=${NAME}`) is a placeholder a templating step
                # fills (envsubst, Flux's post-build substitution): Kubernetes would pass it as written, which no
                # server takes (llm-d-inference-scheduler's "${VLLM_EXTRA_ARGS_P}", field test rw25/a: read as
                # no flag at all, a false PD105)
                word = expand_refs(word, env, envsubst or bool(_PLACEHOLDER_ARG.fullmatch(word.text)), given=given)
                if "{" in word.text:
                    word = brace_placeholders(word, given) if not _BLANK.search(word.text) \
                        else _script_placeholders(word, given)
                words.append(word)
    return words


_BLANK = lazyre.compile(r"\s")
#: a sed template's placeholder standing as a shell word of a script argument (``--tp-size {PREFILL_TP}``,
#: ``--host={NAME}-prefill``, ``"{ROLE}"``)
_SCRIPT_PLACEHOLDER = lazyre.compile(r"(?:(?<=[\s=\"'])|^)\{[A-Z][A-Z0-9_]*\}(?!\})")


def _script_placeholders(word: TStr, given: Optional[dict]) -> TStr:
    """A script argument (``sh -c "python3 -m sglang.launch_server --tp-size {PREFILL_TP}"``) with each sed
    template placeholder that starts a shell word given its value (:func:`brace_placeholders`), else opaque: the
    shell would pass ``{PREFILL_TP}`` as written, which no server takes (rw32/a item 1)."""
    found = list(_SCRIPT_PLACEHOLDER.finditer(word.text))
    if not found:
        return word
    parts, last = [], 0
    for m in found:
        parts += [word[last:m.start()], brace_placeholders(word[m.start():m.end()], given)]
        last = m.end()
    parts.append(word[last:])
    return TStr.join(parts)


#: a sed template's placeholder: an upper-case name alone in braces (``{PREFILL_TP}``, filled in by a deploy
#: script's ``sed "s#{PREFILL_TP}#${PREFILL_TP}#g"``), not ``${NAME}`` / ``{{ name }}`` / a JSON or flow mapping
BRACE_PLACEHOLDER = lazyre.compile(r"\{(?<![{$]\{)[A-Z][A-Z0-9_]*\}(?!\})")  # (the `{` first: re's fast scan, 20x)
#: an argument that is such placeholders and name characters only (``{PREFILL_TP}``, ``--tp={TP}``,
#: ``{NAME}-prefill``, ``/models/{MODEL}``): no quotes, blanks or other braces (a JSON value, a format string)
_BRACE_ARG = lazyre.compile(r"(?:--?[\w.-]+=)?[\w.:/@%$()-]*(?:\{[A-Z][A-Z0-9_]*\}[\w.:/@%$()-]*)+")


def brace_placeholders(word: TStr, given: Optional[dict] = None) -> TStr:
    """An argument made of ``{NAME}`` placeholders (:data:`BRACE_PLACEHOLDER`) and name characters, each
    placeholder the value ``given`` has - under ``NAME`` the config's ``vars`` and ``--var``, under ``{NAME}``
    the sed of the script beside the template (:meth:`pdlint.extract.Extractor.sed_values`) - else opaque: a
    value pdlint cannot see.  Kubernetes would pass ``{PREFILL_TP}`` as written, which no server takes; the text
    is a template a script substitutes (`sed "s#{PREFILL_TP}#${PREFILL_TP}#g" deploy_base.yaml | kubectl apply
    -f -`, field report rw32/a item 1: each was judged as a literal, ``invalid int value: '{PREFILL_TP}'``).
    Any other word as it is (a flow mapping's text, ``{}``, a lower-case ``{name}`` format field)."""
    text = word.text
    if not _BRACE_ARG.fullmatch(text):
        return word
    parts, last = [], 0
    for m in BRACE_PLACEHOLDER.finditer(text):
        parts.append(word[last:m.start()])
        use = word[m.start():m.end()]
        value = (given or {}).get(m.group(0)[1:-1])
        note = m.group(0)
        if value is None or value.opaque:  # (the value the script beside the template substitutes)
            value = (given or {}).get(m.group(0))
            note = f"{m.group(0)}, substituted by sed"
        parts.append(value.reached_via(use, note) if value is not None and not value.opaque
                     else use.as_opaque())
        last = m.end()
    parts.append(word[last:])
    return TStr.join(parts)


_PLACEHOLDER_ARG = lazyre.compile(r"(?:--?[\w.-]+=)?\$\{[A-Za-z_]\w*\}")


def expand_refs(word: TStr, env: dict, envsubst: bool = False, known_only: bool = False,
                given: Optional[dict] = None) -> TStr:
    """Kubernetes dependent-variable expansion of ``$(VAR)`` in one argument.  In a manifest that is an
    ``envsubst`` template (``envsubst``: :func:`envsubst_template`), ``${NAME}`` and ``$NAME`` are the values the
    shell that applies it has: the value ``given`` (the config's ``vars``, ``--var``) has, else opaque.
    ``known_only``: only the variables ``env`` sets are replaced, the rest (and ``$$``) left as written - a command
    kept in YAML whose other ``$(...)`` are the shell's."""
    text = word.text
    if "$" not in text:
        return word
    parts, last = [], 0
    for m in (_REF_ENVSUBST if envsubst else _REF).finditer(text):
        parts.append(word[last:m.start()])
        use = word[m.start():m.end()]
        if known_only and (m.group(1) is None or env.get(m.group(1)) is None):
            parts.append(use)
        elif m.group(0) == "$$":
            parts.append(word[m.start():m.start() + 1])
        elif m.group(1) is None:  # envsubst's
            value = (given or {}).get(m.group(0).strip("${}"))
            parts.append(value.reached_via(use, m.group(0)) if value is not None and not value.opaque
                         else use.as_opaque())
        else:
            var = m.group(1)
            value = env.get(var)
            if value is not None and not value.opaque:
                parts.append(value.reached_via(use, f"$({var})"))
            else:  # (why the value is unseen kept: a ConfigMap of another file's, CONFIGMAP_NOT_JOINED)
                parts.append(use.as_opaque(next((p.opaque for p in value.pieces if p.opaque), True)
                                           if value is not None else True))
        last = m.end()
    parts.append(word[last:])
    return TStr.join(parts)


def image_of(c: Container) -> Optional[str]:
    return yt.scalar_text(yt.get(c.ref, "image"))


def describe(c: Container) -> str:
    cname = yt.scalar_text(yt.get(c.ref, "name"))
    head = (f"{c.resource_kind}/{c.resource_name}" if c.resource_name else c.resource_kind) if c.resource_kind \
        else f"document {c.doc_index + 1}"
    return f"{head} {c.path_text()}" + (f" (container {cname!r})" if cname else "")
