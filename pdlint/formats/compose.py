"""Docker Compose files: every service's command as ``docker compose up`` runs it.

A Compose file is a YAML mapping with a ``services`` mapping (and no
Kubernetes ``apiVersion``/``kind``).  For each service:

* **Interpolation** first, as Compose does on the file's text values:
  ``$VAR``, ``${VAR}``, ``${VAR:-default}`` / ``${VAR-default}``,
  ``${VAR:+alt}`` / ``${VAR+alt}``, ``${VAR:?err}`` / ``${VAR?err}``
  (nested defaults too) and ``$$`` for a literal ``$``.  Values come from
  the ``.env`` file beside the Compose file (Compose's project directory);
  the shell environment of whoever runs ``docker compose`` is unknown at lint
  time (unless ``--var`` / ``[tool.pdlint.vars]`` give it: those win over ``.env``), so a variable it would
  supply stays opaque, and a variable with no
  known value takes the default the file writes.  ``$VAR`` in ``command`` is
  Compose's, not the container's: it is *not* read from the service's
  ``environment:`` (``$$VAR`` passes ``$VAR`` on to a shell in the container).
* **argv**: ``entrypoint`` + ``command``.  A list is passed as is (exec form,
  one argument per item); a string is split into words as Compose does
  (``go-shellwords``: blanks, quotes and backslashes, no expansion, parsing
  stops at an unquoted ``;``, ``&``, ``|``, ``<`` or ``>``).  Setting
  ``entrypoint`` drops the image's default command, so ``command`` alone
  follows the image's entry point (unknown here: the words start at
  ``command``).
* **environment** (a mapping or a ``KEY=value`` list; a key without a value
  is taken from the shell environment, so opaque) over ``env_file`` files
  found in the repository: the container's environment, which ``sh -c``
  scripts in the command read.
* ``extends: {service: NAME}`` within the same file, or ``{file: PATH, service: NAME}`` in another Compose file
  of the repository: the service inherits
  the fields it does not set (``command`` and ``entrypoint`` whole; the
  environment key by key, the extending service's values winning).  Top-level ``x-*`` extension fields are templates reached through
  anchors, never services of their own.
* **the override file**: ``docker compose up`` without ``-f`` reads the first of :data:`DEFAULT_FILES` in the
  project directory and, beside it, the first of :data:`OVERRIDE_FILES` (compose-go's ``DefaultFileNames`` /
  ``DefaultOverrideFileNames``), and merges them: a service of both is the base's with the override's fields
  over it (``command`` / ``entrypoint`` / ``image`` replaced, the environment key by key), a service only the
  override has is a service of the project.  The base file's launches are those of the merged project; the
  override file has none of its own (:func:`override_of`, :func:`base_of`).
* **role**: a service named after a role (``prefill``, ``decode-0``,
  ``sglang-prefill``) is that role's server.
* **project**: the top-level ``name:`` (:func:`project_name`).  Compose files
  of one directory that declare the same project name are one deployment
  (``node-a.yaml`` with the prefill service, ``node-b.yaml`` with the decode,
  each started on its own node: :func:`pdlint.pairing.group`).
"""

from __future__ import annotations

import os
import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.formats import crd
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field
from pdlint.text import SourceFile, TStr

SERVICE_KEYS = {"image", "build", "command", "entrypoint", "environment", "env_file", "ports", "volumes",
                "deploy", "depends_on", "container_name", "extends", "networks", "restart", "ipc", "runtime"}
_NAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set(";&|<>")


@dataclass
class Service:
    name: str
    name_tok: Optional[TStr]
    words: list  # argv (entrypoint + command), interpolated, traced
    exec_form: bool  # the words come from YAML lists (one argument per item)
    env: dict  # container environment: name -> TStr (opaque when unknown)
    image: str
    role: Optional[str] = None
    notes: list = field(default_factory=list)
    entrypoint_set: bool = False  # else `command` is the arguments of the image's ENTRYPOINT
    image_tok: Optional[TStr] = None  # where the image is named
    #: the other names the project's network resolves to its container besides the service name: its
    #: ``container_name``, ``hostname`` and ``networks.<net>.aliases`` (Docker Engine API 1.44+
    #: EndpointSettings.DNSNames: "based on the container name, network aliases, container short ID, and hostname")
    dns_names: tuple = ()
    binds: list = field(default_factory=list)  # its bind mounts: [(host path as written, container path)]
    #: ``network_mode`` as written ("" when not set: the project's bridge network, the container's own ports)
    network: str = ""
    #: the GPUs its container gets, as :func:`pdlint.pairing.docker_gpus` says them for a ``docker run``
    #: ("all", a count, device ids, "none", "unknown"; None: no request but a device mask in its environment,
    #: counted as on the host), where that is written and how (:func:`gpu_request`)
    gpus: object = "none"
    gpus_tok: Optional[TStr] = None
    gpus_what: str = ""
    #: ``profiles``: started only when one of them is enabled (() : always)
    profiles: tuple = ()


def is_compose(docs: list) -> bool:
    if len(docs) != 1 or docs[0].root is None:
        return False
    root = yt.Ref(docs[0].root)
    if not isinstance(yt.deref(root).node, yt.YMap):
        return False
    if yt.get(root, "kind") is not None and yt.get(root, "apiVersion") is not None:
        return False
    services = yt.get(root, "services")
    if services is None or not isinstance(yt.deref(services).node, yt.YMap):
        return False
    items = yt.map_items(services)
    if not items:
        return False
    for _, ref in items:
        if not isinstance(yt.deref(ref).node, yt.YMap):
            return False
    return any({k for k, _ in yt.map_items(ref)} & SERVICE_KEYS for _, ref in items)


def project_name(docs: list) -> Optional[str]:
    """The project name a Compose document declares (top-level ``name:``), when it is written literally:
    a name Compose interpolates (``${PROJECT:-x}``) may differ between the hosts that start each file."""
    name = yt.scalar_text(yt.get(yt.Ref(docs[0].root), "name"))
    if not isinstance(name, str) or not name.strip() or "$" in name:
        return None
    return name.strip()


#: the Compose files ``docker compose`` reads in a directory without ``-f``, in its order (compose-go's
#: ``DefaultFileNames``): the first that exists is the project's
DEFAULT_FILES = ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml")
#: and the first of these beside it is merged over it (``DefaultOverrideFileNames``)
OVERRIDE_FILES = ("compose.override.yml", "compose.override.yaml", "docker-compose.override.yml",
                  "docker-compose.override.yaml")


def _first(folder: str, names: tuple, exists: Callable[[str], bool]) -> Optional[str]:
    return next((n for n in names if exists(os.path.join(folder, n))), None)


def override_of(path: str, exists: Callable[[str], bool]) -> Optional[str]:
    """The override file (its base name) ``docker compose`` merges over the Compose file ``path``: only when
    ``path`` is the project file of its directory (the first of :data:`DEFAULT_FILES` there)."""
    folder, name = os.path.split(path)
    if name not in DEFAULT_FILES or _first(folder, DEFAULT_FILES, exists) != name:
        return None
    return _first(folder, OVERRIDE_FILES, exists)


def base_of(path: str, exists: Callable[[str], bool]) -> Optional[str]:
    """The project file (its base name) the override file ``path`` is merged over, or None (not an override
    file, or an override file no project file is beside: ``docker compose`` does not read it then)."""
    folder, name = os.path.split(path)
    if name not in OVERRIDE_FILES or _first(folder, OVERRIDE_FILES, exists) != name:
        return None
    return _first(folder, DEFAULT_FILES, exists)


@dataclass
class Override:
    """The override file merged over a project file: its text and its documents (it is in the project's directory:
    the files it names are read as the project file's are)."""

    doc: TStr
    docs: list


def override_services(docs: list) -> Optional[yt.Ref]:
    """The ``services`` mapping of an override file's documents, or None (not one mapping holding a mapping)."""
    if len(docs) != 1 or docs[0].root is None:
        return None
    root = yt.Ref(docs[0].root)
    if not isinstance(yt.deref(root).node, yt.YMap):
        return None
    svcs = yt.get(root, "services")
    return svcs if svcs is not None and isinstance(yt.deref(svcs).node, yt.YMap) else None


def services(doc: TStr, docs: list, read: Callable[[str], Optional[SourceFile]], given: Optional[dict] = None,
             override: Optional[Override] = None) -> list:
    """The services of a Compose document.  ``read(name)`` reads a file named
    relative to the Compose file (``.env``, ``env_file`` entries), or None; ``given``: the values pdlint was
    given for the environment ``docker compose`` runs in (``--var``, ``[tool.pdlint.vars]``), which win over
    ``.env``'s as the shell's do (field test rw23/a: the summary's hint to give them did nothing for Compose).
    ``override``: the override file merged over this one (the services of the merged project)."""
    root = yt.Ref(docs[0].root)
    svcs = yt.get(root, "services")
    variables = {**dotenv(read(".env")), **(given or {})}
    osvcs = override_services(override.docs) if override is not None else None
    over = dict(yt.map_items(osvcs)) if osvcs is not None else {}
    out = []
    for name, ref in yt.map_items(svcs):
        top = []
        if isinstance(over.get(name), yt.Ref) and isinstance(yt.deref(over[name]).node, yt.YMap):
            top = _layers(override.doc, osvcs, over[name], read)  # the override's fields over the base's
        out.append(_service(doc, svcs, name, ref, variables, read, top))
    names = {name for name, _ in yt.map_items(svcs)}
    for name, ref in over.items():  # services only the override file has: the project's too
        if name not in names and isinstance(ref, yt.Ref) and isinstance(yt.deref(ref).node, yt.YMap):
            out.append(_service(override.doc, osvcs, name, ref, variables, read))
    return out


@dataclass
class _Layer:
    """A service a service is made of (itself, or one it ``extends``): its node, the document it is in, and how
    files that document names are read (relative to its own directory)."""

    doc: TStr
    ref: yt.Ref
    read: Callable


MAX_EXTENDS = 8  # services one `extends` chain reads (a cycle ends there)


def _layers(doc: TStr, svcs: yt.Ref, ref: yt.Ref, read, depth: int = 0) -> list:
    """The service and the services it ``extends``, most specific first: in this file, or in the Compose file
    ``extends: {file: ..., service: ...}`` names (inside the repository, read by ``read``: one it does not read
    is PD014 there; its own relative paths are relative to its directory, as Compose reads them)."""
    layers = [_Layer(doc, ref, read)]
    ext = yt.get(ref, "extends")
    if ext is None or depth >= MAX_EXTENDS:
        return layers
    if isinstance(yt.deref(ext).node, yt.YScalar):
        base, file = yt.scalar_text(ext), None
    elif isinstance(yt.deref(ext).node, yt.YMap):
        base, file = yt.scalar_text(yt.get(ext, "service")), yt.get(ext, "file")
    else:
        return layers
    if not base:
        return layers
    if file is None:
        if yt.get(svcs, base) is not None:
            layers += _layers(doc, svcs, yt.get(svcs, base), read, depth + 1)
        return layers
    name = yt.scalar_text(file)
    if not name or "$" in name:
        return layers
    other = read(name, "extends file", yt.node_tstr(doc, file))
    if other is None:
        return layers
    try:
        docs = yt.compose(other.text)
    except (yt.YamlError, yt.LimitError, RecursionError):
        return layers
    root = yt.Ref(docs[0].root) if len(docs) == 1 and docs[0].root is not None else None
    osvcs = yt.get(root, "services") if root is not None and isinstance(yt.deref(root).node, yt.YMap) else None
    bref = yt.get(osvcs, base) if osvcs is not None and isinstance(yt.deref(osvcs).node, yt.YMap) else None
    if bref is None or not isinstance(yt.deref(bref).node, yt.YMap):
        return layers
    where = os.path.dirname(name)

    def their_read(n: str, *rest):  # a path the other file names: relative to its directory
        return read(n if os.path.isabs(n) else os.path.normpath(os.path.join(where, n)), *rest)

    return layers + _layers(TStr.from_source(other), osvcs, bref, their_read, depth + 1)


def _field(layers: list, key: str) -> tuple:
    """``(layer, node)`` of the most specific layer that sets ``key``, else ``(None, None)``."""
    for layer in layers:
        v = yt.get(layer.ref, key)
        if v is not None:
            return layer, v
    return None, None


def _service(doc: TStr, svcs: yt.Ref, name: str, ref: yt.Ref, variables: dict, read, top: tuple = ()) -> Service:
    layers = list(top) + _layers(doc, svcs, ref, read)
    name_tok = crd.key_tstr(doc, svcs, name)
    entry_at, entry = _field(layers, "entrypoint")
    command_at, command = _field(layers, "command")
    words: list = []
    exec_form = False
    for at, part in ((entry_at, entry), (command_at, command)):
        if part is None:
            continue
        node = yt.deref(part).node
        if isinstance(node, yt.YSeq):
            exec_form = True
            for item in yt.seq_items(part):
                if isinstance(yt.deref(item).node, yt.YScalar):
                    words.append(interpolate(yt.scalar_tstr(at.doc, item), variables))
        elif isinstance(node, yt.YScalar) and yt.scalar_value(node) is not None:
            words += shellwords(interpolate(yt.scalar_tstr(at.doc, part), variables))
    env: dict = {}
    for layer in reversed(layers):  # extends: the base's environment, then each override's, key by key
        for ef in _env_files(yt.get(layer.ref, "env_file")):
            env.update(dotenv(layer.read(ef)))
        env.update(environment(layer.doc, yt.get(layer.ref, "environment"), variables))
    image_at, image_tok = _field(layers, "image")
    image = yt.scalar_text(image_tok) or ""
    if image and "$" in image and image_tok is not None:
        image = interpolate(yt.scalar_tstr(image_at.doc, image_tok), variables).text
    itok = yt.scalar_tstr(image_at.doc, image_tok) if image_tok is not None else None
    entrypoint_set = entry is not None
    build_at, build = _field(layers, "build")
    if build is not None:
        # the image is built from a Dockerfile of the repository: its last FROM is the image whose entry point
        # runs `command` (av/harbor's vllm service, `FROM ${HARBOR_VLLM_IMAGE}` with `ARG
        # HARBOR_VLLM_IMAGE=vllm/vllm-openai`: its command passed unseen, field test rw14/h), unless the
        # Dockerfile sets an ENTRYPOINT of its own
        built = _built_image(build_at.doc, build, variables, build_at.read)
        if built is not None:
            base, base_tok, entry_words = built
            image, itok = base, base_tok
            if entry_words is not None and not entrypoint_set:
                words = entry_words + words
                exec_form = True
                entrypoint_set = True
    # (a service's own container name: the override file's over the project file's, never one it `extends`)
    own = [(t.doc, t.ref) for t in top[:1]] + [(doc, ref)]
    binds = _binds(*_field(layers, "volumes"), variables)
    if top:  # the override file's mounts merged over the project file's, by the path in the container
        base_binds = _binds(*_field(layers[len(top):], "volumes"), variables)
        binds += [b for b in base_binds if b[1] not in {t for _, t in binds}]
    gpus, gpus_tok, gpus_what = gpu_request(layers, env)
    return Service(name, name_tok, words, exec_form, env, image, crd.role_of_name(name),
                   entrypoint_set=entrypoint_set, image_tok=itok, dns_names=_dns_names(own, layers, variables),
                   binds=binds, network=_text_field(layers, "network_mode", variables), gpus=gpus,
                   gpus_tok=gpus_tok, gpus_what=gpus_what, profiles=_profiles(layers, variables))


def _text_field(layers: list, key: str, variables: dict) -> str:
    """A scalar field's interpolated text ("" when not set or not known)."""
    at, ref = _field(layers, key)
    if ref is None or not isinstance(yt.deref(ref).node, yt.YScalar):
        return ""
    t = interpolate(yt.scalar_tstr(at.doc, ref), variables)
    return "" if t.opaque else t.text.strip()


def _profiles(layers: list, variables: dict) -> tuple:
    at, ref = _field(layers, "profiles")
    if ref is None:
        return ()
    out = []
    for item in yt.seq_items(ref):
        if isinstance(yt.deref(item).node, yt.YScalar):
            t = interpolate(yt.scalar_tstr(at.doc, item), variables)
            out.append("\0" if t.opaque else t.text)  # (a profile pdlint cannot see: one of its own)
    return tuple(sorted(set(out))) or ("\0",)


_DEVICE_ID = lazyre.compile(r"\d{1,6}")
MAX_DEVICE_IDS = 64


def gpu_request(layers: list, env: dict) -> tuple:
    """``(devices, token, what)``: the GPUs ``docker compose up`` gives the service's container, in the terms of
    :func:`pdlint.pairing.docker_gpus` - ``deploy.resources.reservations.devices`` (the entry whose
    ``capabilities`` name ``gpu``: its ``device_ids``, else its ``count``, else all GPUs, as the Compose
    specification says), the service's ``gpus:`` (``all`` or such entries), else ``NVIDIA_VISIBLE_DEVICES`` in its
    environment (the NVIDIA runtime's list, as ``docker run -e NVIDIA_VISIBLE_DEVICES``); without any of them
    ``"none"`` (the container sees no GPU), or None when the environment sets a device mask such as
    ``CUDA_VISIBLE_DEVICES`` (the host's runtime exposes the GPUs: the mask counts them as on the host)."""
    entries, what = [], ""
    at, deploy = _field(layers, "deploy")
    if deploy is not None and isinstance(yt.deref(deploy).node, yt.YMap):
        res = yt.get(deploy, "resources")
        rsv = yt.get(res, "reservations") if res is not None and isinstance(yt.deref(res).node, yt.YMap) else None
        devs = yt.get(rsv, "devices") if rsv is not None and isinstance(yt.deref(rsv).node, yt.YMap) else None
        for item in yt.seq_items(devs) if devs is not None else []:
            if not isinstance(yt.deref(item).node, yt.YMap):
                continue
            caps = yt.get(item, "capabilities")
            names = {yt.scalar_text(c) for c in yt.seq_items(caps)} if caps is not None else set()
            if "gpu" in names or (not names and yt.scalar_text(yt.get(item, "driver")) == "nvidia"):
                entries.append((at.doc, item))
        what = "deploy.resources.reservations.devices"
    gat, gref = _field(layers, "gpus")
    if not entries and gref is not None:
        what = "gpus"
        if isinstance(yt.deref(gref).node, yt.YScalar):
            text = yt.scalar_text(gref) or ""
            return ("all" if text == "all" else "unknown"), yt.scalar_tstr(gat.doc, gref), what
        entries = [(gat.doc, item) for item in yt.seq_items(gref) if isinstance(yt.deref(item).node, yt.YMap)]
    if len(entries) > 1:
        return "unknown", None, what
    if entries:
        doc, item = entries[0]
        ids = yt.get(item, "device_ids")
        count = yt.get(item, "count")
        if ids is not None:
            texts = [yt.scalar_text(i) for i in yt.seq_items(ids)]
            tok = yt.scalar_tstr(doc, yt.seq_items(ids)[0]) if texts else None
            if texts and len(texts) <= MAX_DEVICE_IDS and all(t and _DEVICE_ID.fullmatch(t) for t in texts):
                return [int(t) for t in texts], tok, what + " device_ids"
            return "unknown", tok, what + " device_ids"
        if count is not None:
            text = (yt.scalar_text(count) or "").strip()
            tok = yt.scalar_tstr(doc, count)
            if text == "all":
                return "all", tok, what + " count"
            return (int(text) if _DEVICE_ID.fullmatch(text) and int(text) <= MAX_DEVICE_IDS else "unknown"), tok, \
                what + " count"
        return "all", None, what
    nv = env.get("NVIDIA_VISIBLE_DEVICES")
    if nv is not None:
        text = nv.text.strip()
        if nv.opaque:
            return "unknown", nv, "NVIDIA_VISIBLE_DEVICES"
        if text == "all":
            return "all", nv, "NVIDIA_VISIBLE_DEVICES"
        if text in ("none", "void", ""):
            return "none", nv, "NVIDIA_VISIBLE_DEVICES"
        ids = [x.strip() for x in text.split(",")]
        if len(ids) <= MAX_DEVICE_IDS and all(_DEVICE_ID.fullmatch(x) for x in ids):
            return [int(x) for x in ids], nv, "NVIDIA_VISIBLE_DEVICES"
        return "unknown", nv, "NVIDIA_VISIBLE_DEVICES"
    from pdlint.pair_rules import DEVICE_MASKS
    if any(name in env for name in DEVICE_MASKS):
        return None, None, ""
    return "none", None, ""


def _binds(layer: Optional[_Layer], volumes: Optional[yt.Ref], variables: dict) -> list:
    """A service's bind mounts: short syntax ``./ctx.yaml:/cfg/ctx.yaml[:ro]`` and long syntax ``{type: bind,
    source, target}``; variables interpolated, named volumes left out."""
    from pdlint.formats import mounts
    out: list = []
    doc = layer.doc if layer is not None else None
    for item in yt.seq_items(volumes)[:mounts.MAX_BINDS] if volumes is not None else ():
        node = yt.deref(item).node
        if isinstance(node, yt.YScalar):
            got = mounts.bind_spec(interpolate(yt.scalar_tstr(doc, item), variables).text)
        elif isinstance(node, yt.YMap) and yt.scalar_text(yt.get(item, "type")) == "bind":
            src, dst = yt.scalar_text(yt.get(item, "source")), yt.scalar_text(yt.get(item, "target"))
            got = (src, dst) if src and dst and dst.startswith("/") and not src.startswith("$") else None
        else:
            got = None
        if got is not None:
            out.append(got)
    return out


MAX_DNS_NAMES = 64  # names of one service pdlint keeps (container name, hostname, network aliases)


def _dns_names(own: list, layers: list, variables: dict) -> tuple:
    """The service's ``container_name`` (its own, not inherited through ``extends``: a container name is
    unique; ``own``: the (document, node) of the service, the override file's first), ``hostname`` and the
    ``aliases`` of each network it joins; names with a variable pdlint cannot resolve are left out.  Sorted, at
    most MAX_DNS_NAMES."""
    doc = own[-1][0]
    host_at, host = _field(layers, "hostname")
    named = next(((d, r) for d, r in ((d, yt.get(r, "container_name")) for d, r in own) if r is not None),
                 (doc, None))
    refs = [named, (host_at.doc if host_at else doc, host)]
    nets_at, nets = _field(layers, "networks")
    if nets is not None and isinstance(yt.deref(nets).node, yt.YMap):
        for _, net in yt.map_items(nets)[:MAX_DNS_NAMES]:
            if net is not None and isinstance(yt.deref(net).node, yt.YMap):
                refs += [(nets_at.doc, a) for a in yt.seq_items(yt.get(net, "aliases"))[:MAX_DNS_NAMES]]
    out = set()
    for d, r in refs:
        if r is None or not isinstance(yt.deref(r).node, yt.YScalar) or yt.scalar_value(yt.deref(r).node) is None:
            continue
        t = interpolate(yt.scalar_tstr(d, r), variables)
        if t.text and not t.opaque:
            out.add(t.text)
    return tuple(sorted(out)[:MAX_DNS_NAMES])


def _built_image(doc: TStr, build: yt.Ref, variables: dict, read) -> Optional[tuple]:
    """``(base image, where it is named, ENTRYPOINT words or None)`` of a service's ``build:`` (a context
    path, or ``context`` / ``dockerfile`` / ``args``), from the Dockerfile pdlint reads; None when it cannot
    read it or the base image is not known (a variable with no default)."""
    node = yt.deref(build).node
    if isinstance(node, yt.YScalar):
        context, dockerfile, args = yt.scalar_text(build) or ".", "Dockerfile", {}
    elif isinstance(node, yt.YMap):
        context = yt.scalar_text(yt.get(build, "context")) or "."
        dockerfile = yt.scalar_text(yt.get(build, "dockerfile")) or "Dockerfile"
        args = {}
        a = yt.get(build, "args")
        if a is not None and isinstance(yt.deref(a).node, yt.YMap):
            args = {k: yt.scalar_text(v) for k, v in yt.map_items(a)}
        elif a is not None:
            for item in yt.seq_items(a):
                k, eq, v = (yt.scalar_text(item) or "").partition("=")
                if eq:
                    args[k] = v
    else:
        return None
    if "$" in context or "$" in dockerfile or "://" in context:
        return None
    src = read(os.path.normpath(os.path.join(context, dockerfile)), "Dockerfile", yt.node_tstr(doc, build))
    if src is None:
        return None
    from pdlint.formats.dockerfile import parse
    stages = parse(TStr.from_source(src), args)
    if not stages or not stages[-1].image:
        return None
    last = stages[-1]
    if last.entry is not None and last.entry.exec_words is None:
        # an entry point of its own pdlint cannot read (shell form): not the base image's
        return "", None, None
    return last.image, last.image_tok, (list(last.entry.exec_words) if last.entry is not None else None)


def _env_files(ref: Optional[yt.Ref]) -> list:
    if ref is None:
        return []
    node = yt.deref(ref).node
    if isinstance(node, yt.YScalar):
        return [node.value]
    out = []
    for item in yt.seq_items(ref):
        if isinstance(yt.deref(item).node, yt.YScalar):
            out.append(yt.scalar_text(item))
        else:
            out.append(yt.scalar_text(yt.get(item, "path")))
    return [p for p in out if p]


def environment(doc: TStr, ref: Optional[yt.Ref], variables: dict) -> dict:
    """``environment:`` as a mapping or a ``KEY=value`` list; a bare key takes
    its value from the shell running Compose (opaque)."""
    env: dict = {}
    if ref is None:
        return env
    node = yt.deref(ref).node
    if isinstance(node, yt.YMap):
        for k, v in yt.map_items(ref):
            vnode = yt.deref(v).node
            if isinstance(vnode, yt.YScalar) and yt.scalar_value(vnode) is not None:
                env[k] = interpolate(yt.scalar_tstr(doc, v), variables)
            else:
                env[k] = _opaque_at(doc, v, f"${{{k}}}")
    elif isinstance(node, yt.YSeq):
        for item in yt.seq_items(ref):
            if not isinstance(yt.deref(item).node, yt.YScalar):
                continue
            t = interpolate(yt.scalar_tstr(doc, item), variables)
            key, eq, value = t.partition("=")
            if not _NAME.fullmatch(key.text.strip()):
                continue
            env[key.text.strip()] = value if eq.text else _opaque_at(doc, item, f"${{{key.text.strip()}}}")
    return env


def _opaque_at(doc: TStr, ref: yt.Ref, text: str) -> TStr:
    return crd.at_node(doc, ref, text).as_opaque()


# ---------------------------------------------------------------------------
# .env files
# ---------------------------------------------------------------------------

def dotenv(src: Optional[SourceFile]) -> dict:
    """``KEY=value`` lines of a Compose ``.env`` / ``env_file`` file (``#``
    comments, ``export`` prefixes and quotes as Compose reads them)."""
    out: dict = {}
    if src is None:
        return out
    doc = TStr.from_source(src)
    pos = 0
    for line in src.text.split("\n"):
        start = pos
        pos += len(line) + 1
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        lead = len(line) - len(line.lstrip())
        body = doc[start + lead:start + len(line.rstrip())]
        if body.text.startswith("export "):
            body = body[7:].strip()
        key, eq, value = body.partition("=")
        name = key.text.strip()
        if not eq.text or not _NAME.fullmatch(name):
            continue
        value = value.strip()
        v = value.text
        if len(v) >= 2 and v[0] == v[-1] and v[0] == "'":
            out[name] = value[1:-1]  # single-quoted: literal
            continue
        if len(v) >= 2 and v[0] == v[-1] and v[0] == '"':
            value = value[1:-1]
        elif " #" in v:
            value = value[:v.index(" #")].strip()
        # unquoted and double-quoted values are interpolated, from the lines above and the environment of
        # `docker compose` (unknown: opaque, or the default written): `TP=${OTHER:-2}` is 2 (rw27/h P19)
        out[name] = interpolate(value, out) if "$" in value.text else value
    return out


# ---------------------------------------------------------------------------
# Interpolation and word splitting
# ---------------------------------------------------------------------------

def interpolate(s: TStr, variables: dict) -> TStr:
    """Compose's variable interpolation of one value, traced; a variable with
    no known value (and no default) becomes an opaque placeholder."""
    text = s.text
    if "$" not in text:
        return s
    out, i, n, last = [], 0, len(text), 0
    while i < n:
        if text[i] != "$" or i + 1 >= n:
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":
            out += [s[last:i], s[i:i + 1]]
            i += 2
            last = i
            continue
        if nxt == "{":
            end = _closing(text, i + 2)
            if end < 0:
                i += 1
                continue
            out += [s[last:i], _braced(s, i, end, variables)]
            i = last = end + 1
            continue
        m = _NAME.match(text, i + 1)
        if m is None:
            i += 1
            continue
        out += [s[last:i], _value(s[i:m.end()], m.group(0), variables)]
        i = last = m.end()
    out.append(s[last:])
    return TStr.join(out)


def _closing(text: str, i: int) -> int:
    depth = 1
    while i < len(text):
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _value(use: TStr, name: str, variables: dict) -> TStr:
    v = variables.get(name)
    if v is None or v.opaque:
        return use.as_opaque()
    return v.reached_via(use, f"${{{name}}}")


def _braced(s: TStr, start: int, end: int, variables: dict) -> TStr:
    """``${...}`` spanning ``s[start:end + 1]``."""
    inner = s[start + 2:end]
    m = _NAME.match(inner.text)
    use = s[start:end + 1]
    if m is None:
        return _unseen(use, None)
    if re.search(r"\s", use.text):  # a placeholder is one word: Compose splits the value it gives, not the text
        use = _unseen(use, m.end())
    name = m.group(0)
    rest = inner.text[m.end():]
    value = variables.get(name)
    known = value is not None and not value.opaque
    if not rest:
        return _value(use, name, variables)
    for op in (":-", "-", ":+", "+", ":?", "?"):
        if rest.startswith(op):
            word = interpolate(inner[m.end() + len(op):], variables)
            empty = known and value.text == ""
            if op in (":-", "-"):
                use_default = not known or (op == ":-" and empty)
                return word if use_default else _value(use, name, variables)
            if op in (":+", "+"):
                if not known:
                    return use.as_opaque()
                return TStr("", ()) if (op == ":+" and empty) else word
            return _value(use, name, variables)  # ${X:?err}: the value, or Compose refuses the file
    return use.as_opaque()


def _unseen(use: TStr, name_end: Optional[int]) -> TStr:
    """The opaque placeholder of ``${...}`` whose value pdlint cannot see, without the blanks of its default,
    alternative or message (``${TP:?need tp}`` -> ``${TP}``, at the variable): Compose interpolates the string
    before it splits it into words, so the text of the expression never becomes words (PD023 named a word
    ``tp}``: hostile-input round rw27/h item P29)."""
    if not re.search(r"\s", use.text):
        return use.as_opaque()
    if name_end is None:
        return TStr.join([use[:2], use[len(use.text) - 1:]]).as_opaque()
    return TStr.join([use[:2 + name_end], use[len(use.text) - 1:]]).as_opaque()


def shellwords(s: TStr) -> list:
    """Split a Compose string ``command`` / ``entrypoint`` into words as Compose
    does (``go-shellwords``): blanks separate words, quotes and backslashes
    quote, nothing is expanded; an unquoted ``;`` ``&`` ``|`` ``<`` ``>`` ends
    the command (the ``2`` of ``2>&1`` is dropped too).  A backslash quotes the next
    character, so a backslash line continuation in a YAML block scalar becomes
    part of a word, as it does for Compose."""
    t = s.text
    cut = _special_at(t)
    if cut is None:
        return crd.shell_split(s)
    head = t[:cut]
    if t[cut] in "<>":
        m = re.search(r"(^|\s)\d+$", head)  # `2>&1`: the descriptor number is not a word
        if m:
            head = head[:m.end(1)]
    return crd.shell_split(s[:len(head)])


def _special_at(t: str) -> Optional[int]:
    i, n, quote = 0, len(t), None
    while i < n:
        c = t[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c in _SPECIAL:
            return i
        i += 1
    return None


def env_file_path(compose_abspath: str, name: str) -> str:
    return os.path.normpath(os.path.join(os.path.dirname(compose_abspath), name))
