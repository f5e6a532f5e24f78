"""Config files a container reads through a ConfigMap volume.

A launch's ``--config /etc/sglang/prefill.yaml`` (or Dynamo's
``--disagg-config``) names a path inside the container.  Kubernetes puts a
file there when a ``volumeMounts`` entry of the container covers the path
(``mountPath``, with ``subPath`` a single file or directory of the volume),
the pod's ``volumes`` entry of that name is a ``configMap`` (or a
``projected`` volume with ``configMap`` sources) and the ConfigMap's ``data``
has the key the file is named after (``items`` map keys to other file names
and restrict the volume to the keys they list).

:func:`mounts_of` reads what a container mounts, :func:`configmaps` the
ConfigMaps of a YAML stream, :func:`resolve` follows a path through them.  The
file's text is the data value as a traced string: every key of the config is
located at its line inside the ConfigMap's block scalar.  When the path is
not provided by a ConfigMap pdlint can see, :func:`resolve` says why (a
Secret, a PersistentVolumeClaim, a ConfigMap no scanned file defines, a key
the ConfigMap lacks, no mount at all).
"""

from __future__ import annotations

import posixpath
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field
from pdlint.text import TStr


@dataclass
class Mount:
    path: str  # mountPath
    volume: str  # the volume's name
    sub_path: str = ""
    where: Optional[TStr] = None  # the mountPath as written


@dataclass
class Volume:
    name: str
    kind: str  # configMap | projected | secret | persistentVolumeClaim | ... (the volume source key)
    sources: list = field(default_factory=list)  # [(ConfigMap name, {file path: key} or None: every key)]
    claim: str = ""  # the Secret / claim / host path the volume names, for messages


@dataclass
class ConfigMap:
    name: str
    data: dict  # key -> Ref of the value (in doc), or the value's TStr (a kustomize configMapGenerator's file)
    doc: TStr
    path: str  # display path of the file that defines it
    abspath: Optional[str] = None
    # another ConfigMap of this name in another namespace is in the same stream: which one a workload's
    # `configMapKeyRef` reads depends on the workload's namespace, which pdlint does not follow (rw20/h)
    ambiguous: bool = False
    #: key -> the key's text in ``doc`` (``kv-transfer-config:``): a container env's ``configMapKeyRef`` that takes
    #: the key's value reads that line too (coverage: no PD020 on it, field round rw35/b P3)
    keys: dict = field(default_factory=dict)


@dataclass
class Resolved:
    """A file found in a ConfigMap: the data value's text, traced into the ConfigMap's file."""

    text: TStr
    configmap: ConfigMap
    key: str
    mount: Mount

    @property
    def note(self) -> str:
        return f"ConfigMap {self.configmap.name} key {self.key} mounted at {self.mount.path}"


MAX_MOUNTS = 256


def mounts_of(layers: list) -> list:
    """The ``volumeMounts`` of a container (its layers, base first: a later
    layer's entry replaces one with the same ``mountPath``, as strategic merge does)."""
    by_path: dict = {}
    for doc, ref in layers:
        for item in yt.seq_items(yt.get(ref, "volumeMounts"))[:MAX_MOUNTS]:
            mp = yt.get(item, "mountPath")
            path = yt.scalar_text(mp)
            name = yt.scalar_text(yt.get(item, "name"))
            if not path or not name or not path.startswith("/"):
                continue
            sub = yt.scalar_text(yt.get(item, "subPath")) or ""
            by_path[_norm(path)] = Mount(_norm(path), name, sub.strip("/"), yt.scalar_tstr(doc, mp))
    return list(by_path.values())


def volumes_of(root: yt.Ref, path: tuple) -> Optional[yt.Ref]:
    """The ``volumes`` list of the pod spec that holds the container at ``path``
    (the nearest mapping on the way from the document root that has one)."""
    found = None
    cur: Optional[yt.Ref] = root
    for p in path:
        if cur is None:
            break
        node = yt.deref(cur).node
        if isinstance(node, yt.YMap):
            v = yt.get(cur, "volumes")
            if v is not None and isinstance(yt.deref(v).node, yt.YSeq):
                found = v
        if isinstance(p, int):
            items = yt.seq_items(cur)
            cur = items[p] if 0 <= p < len(items) else None
        else:
            cur = yt.get(cur, p) if isinstance(node, yt.YMap) else None
    return found


def volume_table(refs: list) -> dict:
    """name -> :class:`Volume` of ``volumes`` lists (later lists win by name, as strategic merge does)."""
    out: dict = {}
    for ref in refs:
        for item in yt.seq_items(ref)[:MAX_MOUNTS]:
            name = yt.scalar_text(yt.get(item, "name"))
            if not name or not isinstance(yt.deref(item).node, yt.YMap):
                continue
            out[name] = _volume(name, item)
    return out


def _volume(name: str, item: yt.Ref) -> Volume:
    keys = [k for k, _ in yt.map_items(item) if k != "name"]
    cm = yt.get(item, "configMap")
    if cm is not None:
        return Volume(name, "configMap", [_cm_source(cm)])
    proj = yt.get(item, "projected")
    if proj is not None:
        sources = []
        other = []
        for s in yt.seq_items(yt.get(proj, "sources")):
            c = yt.get(s, "configMap")
            if c is not None:
                sources.append(_cm_source(c))
            else:
                other += [k for k, _ in yt.map_items(s)] if isinstance(yt.deref(s).node, yt.YMap) else []
        return Volume(name, "projected", sources, ", ".join(sorted(set(other))))
    kind = keys[0] if keys else "emptyDir"
    claim = ""
    src = yt.get(item, kind)
    if kind == "secret":
        claim = yt.scalar_text(yt.get(src, "secretName")) or ""
    elif kind == "persistentVolumeClaim":
        claim = yt.scalar_text(yt.get(src, "claimName")) or ""
    elif kind == "hostPath":
        claim = yt.scalar_text(yt.get(src, "path")) or ""
    return Volume(name, kind, [], claim)


def _cm_source(cm: yt.Ref) -> tuple:
    name = yt.scalar_text(yt.get(cm, "name")) or ""
    items = yt.get(cm, "items")
    files = None
    if items is not None:
        files = {}
        for it in yt.seq_items(items)[:MAX_MOUNTS]:
            k, p = yt.scalar_text(yt.get(it, "key")), yt.scalar_text(yt.get(it, "path"))
            if k and p:
                files[_norm("/" + p).lstrip("/")] = k
    return name, files


def configmaps(docs: list, doc: TStr, path: str, abspath: Optional[str] = None) -> dict:
    """name -> :class:`ConfigMap` of the ``kind: ConfigMap`` documents of a YAML stream (the first of a name;
    ``ambiguous`` when another namespace has one of that name too)."""
    out: dict = {}
    namespaces: dict = {}
    for d in docs:
        if d.root is None:
            continue
        root = yt.Ref(d.root)
        if not isinstance(yt.deref(root).node, yt.YMap) or yt.scalar_text(yt.get(root, "kind")) != "ConfigMap":
            continue
        name = yt.scalar_text(yt.get(yt.get(root, "metadata"), "name")) if yt.get(root, "metadata") else None
        data = yt.get(root, "data")
        if not name or data is None or not isinstance(yt.deref(data).node, yt.YMap):
            continue
        values = {k: v for k, v in yt.map_items(data) if isinstance(yt.deref(v).node, yt.YScalar)}
        namespace = yt.scalar_text(yt.get(yt.get(root, "metadata"), "namespace")) or ""
        if name in out:
            if namespaces.get(name) != namespace:
                out[name].ambiguous = True
            continue
        namespaces[name] = namespace
        keys = {k.value: doc[k.start:k.end] for k, _ in getattr(yt.deref(data).node, "pairs", ())
                if isinstance(k, yt.YScalar) and k.value in values and k.end > k.start}
        out[name] = ConfigMap(name, values, doc, path, abspath, keys=keys)
    return out


def _norm(p: str) -> str:
    return posixpath.normpath(p) if p else p


def resolve(path: str, mounts: list, volumes: dict, find: Callable[[str], Optional[ConfigMap]]):
    """The file at container path ``path``: a :class:`Resolved`, else (reason, hint) saying why not,
    else None when no volume covers the path (the image's own file system: not a mount question)."""
    if not path.startswith("/"):
        return None
    p = _norm(path)
    best = None
    for m in mounts:
        if p == m.path or p.startswith(m.path.rstrip("/") + "/"):
            if best is None or len(m.path) > len(best.path):
                best = m
    if best is None:
        return None
    rel = p[len(best.path):].lstrip("/")
    inner = "/".join(x for x in (best.sub_path, rel) if x)
    vol = volumes.get(best.volume)
    if vol is None:
        return (f"is under mountPath {best.path}, whose volume {best.volume!r} the pod spec does not define",
                f"define the volume {best.volume!r} in the pod's `volumes` (a `configMap` source pdlint reads)")
    if vol.kind not in ("configMap", "projected") or not vol.sources:
        what = {"secret": "Secret", "persistentVolumeClaim": "PersistentVolumeClaim", "hostPath": "hostPath",
                "emptyDir": "emptyDir", "projected": "projected volume of"}.get(vol.kind, vol.kind)
        named = f" {vol.claim}" if vol.claim else ""
        return (f"is mounted from the {what}{named} (volume {best.volume!r}), whose content is not in the "
                f"repository",
                "provide the config file from a ConfigMap kept in the repository (in this manifest, its "
                "kustomization or a file scanned with it), or keep the file in the repository and pass its "
                "repository path")
    if not inner:
        return (f"is the mount point {best.path} of volume {best.volume!r} itself, a directory",
                "name a file inside the mounted directory")
    missing = []
    for cm_name, files in vol.sources:
        if files is not None:
            key = files.get(inner)
            if key is None:
                continue
        else:
            if "/" in inner:
                continue
            key = inner
        cm = find(cm_name) if cm_name else None
        if cm is None:
            missing.append((cm_name, key, "undefined"))
            continue
        ref = cm.data.get(key)
        if ref is None:
            missing.append((cm_name, key, "no key"))
            continue
        text = ref if isinstance(ref, TStr) else yt.scalar_tstr(cm.doc, ref)
        return Resolved(text, cm, key, best)
    if missing:
        cm_name, key, why = missing[0]
        if why == "undefined":
            return (f"is mounted from ConfigMap {cm_name} (key {key}), which no scanned file defines",
                    f"scan the file that defines ConfigMap {cm_name} with this one (the same directory, "
                    f"manifest or kustomization), or keep the config file in the repository")
        return (f"is mounted from ConfigMap {cm_name}, which has no key {key}",
                f"add the key {key} to ConfigMap {cm_name}'s `data`, or fix the file name in the path")
    names = ", ".join(s[0] for s in vol.sources if s[0]) or best.volume
    return (f"is under mountPath {best.path}, but volume {best.volume!r} (ConfigMap {names}) puts no file "
            f"{inner} there (its `items` do not list it)",
            "list the file in the volume's `items`, or fix the file name in the path")


# ---------------------------------------------------------------------------
# Bind mounts (`docker run -v SRC:DST`, Compose `volumes:`): a container path that is a file of the repository
# ---------------------------------------------------------------------------

#: what a bind mount's source may start with for "the directory the command runs in"
_CWD = lazyre.compile(r"^(?:\$\(pwd\)|`pwd`|\$\{PWD\}|\$PWD)(?=/|$)")
MAX_BINDS = 64


def bind_spec(text: str) -> Optional[tuple]:
    """``(source, target)`` of a ``-v`` / Compose short-syntax volume ``SRC:DST[:OPTIONS]`` whose source is a host
    path (``./configs``, ``$(pwd)/ctx.yaml``, ``/abs``; not a named volume), else None."""
    parts = text.split(":")
    if len(parts) < 2 or not parts[1].startswith("/"):
        return None
    src = _CWD.sub(".", parts[0])
    if not src.startswith(("/", ".", "~")):
        return None  # a named volume
    return src, parts[1]


def mount_spec(text: str) -> Optional[tuple]:
    """``(source, target)`` of a ``--mount type=bind,source=...,target=...``, else None."""
    fields = dict(f.split("=", 1) for f in text.split(",") if "=" in f)
    if fields.get("type", "volume") != "bind":
        return None
    src = fields.get("source") or fields.get("src")
    dst = fields.get("target") or fields.get("destination") or fields.get("dst")
    if not src or not dst or not dst.startswith("/"):
        return None
    return _CWD.sub(".", src), dst


def docker_binds(texts: list) -> list:
    """The bind mounts of the ``docker run`` / ``podman run`` among ``texts`` (a launch's wrapper words)."""
    out: list = []
    for i, t in enumerate(texts):
        got = None
        if t in ("-v", "--volume") and i + 1 < len(texts):
            got = bind_spec(texts[i + 1])
        elif t.startswith("--volume="):
            got = bind_spec(t[len("--volume="):])
        elif t == "--mount" and i + 1 < len(texts):
            got = mount_spec(texts[i + 1])
        elif t.startswith("--mount="):
            got = mount_spec(t[len("--mount="):])
        if got is not None and len(out) < MAX_BINDS:
            out.append(got)
    return out


def bind_source(path: str, binds: list) -> Optional[str]:
    """The host path (as the mount writes it, relative to where the command runs) the container path ``path``
    comes from through ``binds`` (the longest target that covers it), else None."""
    best = None
    for src, dst in binds:
        d = dst.rstrip("/") or "/"
        if path == d or path.startswith(d + "/"):
            if best is None or len(d) > len(best[1]):
                best = (src, d)
    if best is None:
        return None
    src, d = best
    rest = path[len(d):].lstrip("/")
    return posixpath.normpath(posixpath.join(src, rest)) if rest else posixpath.normpath(src)
