"""The result cache: a repeated run re-checks only what changed.

A run's files fall into *components*: the smallest groups of files whose
results depend only on each other.  Two files are in one component when one
file's launches read the other (a template and its partial, a script and the
file it ``source``s, a launch and its ``--config`` file, a kustomization and
its members, a chart's templates and values), when launch text of both comes
from one place (a values file, a config variable), or when they could be
paired (the same deployment unit, sibling file names such as
``run_prefill.sh`` / ``run_decode.sh``).  The findings at a shared line, the
pair rules and a file's coverage are then computed from one component's
launches only, and the component's results can be kept as they are.

Each component is stored with what decides its results:

* the content (a BLAKE2 digest) of every file its extraction read or probed
  (templates, includes, values files, ``--config`` files, sourced scripts,
  kustomize members, a ``.env`` that does not exist yet, the scripts searched
  for callers of a script) and of the config files that govern its files;
* the run's *environment*: pdlint's version and code, the libraries it
  parses with, the Python release, the command-line options that change
  results (``--var``, ``--role-var``, ``--sglang-version``, ``--config``,
  rule selection, ``--strict``, ``--ignore-noqa``, ...), the working
  directory; and the repository's file listing (a file added, removed or
  renamed anywhere starts over: what a run found depends on which files
  exist, not only on what they say).

A run validates every stored component of its files, runs the pipeline on
the files of the components that changed (and on new files), and when that
fresh run reads a file of an unchanged component or could pair with one, it
takes that component in too and runs again, so that results are never
combined across components that depend on each other.  Its results
(findings, coverage, suppression counts, release notes and, for
``--format json``, the launches and pairs) are merged with the stored ones;
the output is byte for byte the output of a run without the cache
(``tests/test_cache.py`` checks it on the suite's scenarios).

Storage: ``.pdlint_cache/`` at the repository root (a ``.gitignore`` holding
``*`` and a ``CACHEDIR.TAG`` are written into it, as ruff does), or
``PDLINT_CACHE_DIR``.  One index per environment (``index-<key>.json``,
JSON behind a header line with the format and a digest of the body;
launches for ``--format json`` in ``docs/``), written to a temporary file
and renamed into place, so concurrent runs never see half a file.  A file
whose header, digest, format or environment does not match is ignored and
rewritten.  Nothing is unpickled or executed from the cache.  A cache
directory that git lists (committed, or not ignored) is not trusted: its
content could come from a pull request.  At most :data:`MAX_INDEXES`
environments and :data:`MAX_COMPONENTS` components per index are kept.
Components with findings that depend on time (a render over its time limit,
a file over its resource budget) are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Optional

from pdlint.safeio import MAX_FILE_BYTES, MAX_SEARCHED_BYTES  # noqa: F401  (files above them are not read)

FORMAT = 4  # 2: findings carry end_line and token; 3: coverage carries undecided values; 4: the index is a JSON list,
#            its head then one component a line (Store.load_index)
MAX_INDEXES = 8  # environments kept (option sets, working directories)
MAX_COMPONENTS = 50_000  # components kept per index
MAX_DOCS = 100_000  # --format json launch files kept
MAX_CACHE_FILE_BYTES = 1 << 28  # an index or launch file larger than this is not read (rewritten)
ENV_DIR = "PDLINT_CACHE_DIR"
DIR_NAME = ".pdlint_cache"
ABSENT = "-"  # the digest of a path that is not a readable regular file
BIG = "+big"  # ... of a file larger than MAX_SEARCHED_BYTES (pdlint.safeio)
_HEADER = "pdlint-cache"
# findings that depend on time, not on the files: never stored
_UNSTABLE_CODES = ("PD030", "PD031")


def digest_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: str, boundary=None) -> str:
    """The digest of a file as pdlint's extract stage reads it (ABSENT, BIG or the content's), through
    :mod:`pdlint.safeio`: a file outside the repository, or no regular file, is ABSENT (never read).  A file
    over MAX_FILE_BYTES that the extract stage searches for launch text (up to MAX_SEARCHED_BYTES) has its
    content's digest: whether it holds any decides its findings."""
    from pdlint.safeio import BIG as _BIG, Boundary, Refused
    b = boundary or Boundary(os.path.dirname(os.path.abspath(path)))
    try:
        try:
            data = b.read(path)
        except Refused as r:
            if r.kind != _BIG:
                return ABSENT
            try:
                data = b.read(path, limit=MAX_SEARCHED_BYTES)
            except Refused:
                return BIG
    except ValueError:
        return ABSENT
    return digest_bytes(data)


# ---------------------------------------------------------------------------
# What a run read, per job (filled by pdlint.extract.Extractor)
# ---------------------------------------------------------------------------

class Deps:
    """What each job of one run read: files (with the digest of the bytes
    read), weak inputs (files whose content matters but whose text no launch
    uses: values files, scripts searched for callers, absent paths), the job
    each launch came from, and the jobs extracted as one unit."""

    ABSENT = ABSENT
    BIG = BIG

    def __init__(self, boundary=None):
        self.boundary = boundary  # pdlint.safeio.Boundary: how files are read
        self.job: Optional[str] = None  # the job (abspath) being extracted
        self.reads: dict = {}  # job -> set of abspaths read
        self.digests: dict = {}  # abspath -> digest of what was read
        self.display: dict = {}  # abspath -> display path
        self.weak_deps: dict = {}  # job -> {abspath: digest}
        self.launch_job: dict = {}  # id(launch) -> job
        self.groups: list = []  # lists of jobs extracted as one unit (a kustomize build, a chart)
        self.suppressed: dict = {}  # display path -> findings an inline suppression covered
        self.unstable: set = set()  # jobs whose results depend on time (a render over its time limit)
        self._memo: dict = {}

    def read(self, abspath: str, cached=None) -> None:
        if self.job is not None:
            self.reads.setdefault(self.job, set()).add(abspath)

    def content(self, abspath: str, display: str, data) -> None:
        self.display[abspath] = display
        if abspath not in self.digests:
            self.digests[abspath] = data if isinstance(data, str) else digest_bytes(data)

    def weak(self, path: str, data: Optional[bytes] = None) -> None:
        if self.job is None:
            return
        path = os.path.abspath(path)
        if data is not None:
            d = digest_bytes(data)
        else:
            d = self._memo.get(path)
            if d is None:
                d = file_digest(path, self.boundary)
        self._memo[path] = d
        self.weak_deps.setdefault(self.job, {})[path] = d

    def launch(self, launch) -> None:
        self.launch_job[id(launch)] = self.job

    def together_with(self, builds: dict, charts: dict) -> None:
        for kfile, build in builds.items():
            self.groups.append([kfile] + sorted(build.members))
        by_chart: dict = {}
        for path, chart in charts.items():
            by_chart.setdefault(chart, []).append(path)
        self.groups += list(by_chart.values())


# ---------------------------------------------------------------------------
# The environment: what every stored result depends on
# ---------------------------------------------------------------------------

def _code_fingerprint() -> list:
    """pdlint's own files (code and release tables) and the parsing libraries, by size and mtime."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    for dirpath, dirnames, filenames in os.walk(here):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith((".pyc", ".pyo")):
                continue
            p = os.path.join(dirpath, f)
            try:
                st = os.stat(p)
            except OSError:
                continue
            out.append([os.path.relpath(p, here), st.st_size, st.st_mtime_ns])
    for mod in ("jinja2", "markupsafe", "yaml", "_yaml", "ruamel.yaml", "tree_sitter", "tree_sitter_bash"):
        try:
            spec = importlib.util.find_spec(mod)
            origin = spec.origin if spec is not None else None
            st = os.stat(origin) if origin else None
            out.append([mod, origin, st.st_size if st else None, st.st_mtime_ns if st else None])
        except (ImportError, ValueError, OSError):
            out.append([mod, None])
    return out


def _new_temp(directory: str) -> tuple:
    """``tempfile.mkstemp(dir=directory, prefix=".tmp-")``: ``(fd, path)`` of a new file only this process opened
    (created exclusively, never through a symlink)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | \
        getattr(os, "O_BINARY", 0)
    for _ in range(100):
        p = os.path.join(directory, f".tmp-{os.urandom(6).hex()}")
        try:
            return os.open(p, flags, 0o600), p
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def environment(options, config: Optional[str]) -> str:
    """The key of everything besides the files that decides a run's results."""
    from pdlint import __version__
    from pdlint.safeio import program
    explicit = os.path.abspath(os.path.join(options.cwd, config)) if config else None
    env = {
        "format": FORMAT,
        "pdlint": __version__,
        "python": list(sys.version_info[:3]) + [sys.implementation.name],
        "code": _code_fingerprint(),
        "cwd": options.cwd,
        "variables": sorted([str(k), str(v)] for k, v in options.variables.items()),
        "role_var": options.role_var,
        "engine_version": options.engine_version,
        "force_exclude": options.force_exclude,
        "render_seconds": options.render_seconds,
        "selection": repr(options.selection),
        "strict": options.strict,
        "ignore_noqa": options.ignore_noqa,
        "config": explicit,
        "helm": program("helm"),
        "extra": {k: repr(v) for k, v in sorted(vars(options).items())
                  if k not in _OPTION_KEYS},  # options added later change the key too
    }
    return digest_bytes(json.dumps(env, sort_keys=True, default=repr).encode())


# options that are part of the key above, or that do not change results
_OPTION_KEYS = {"cwd", "variables", "role_var", "engine_version", "force_exclude", "render_seconds", "selection",
                "strict", "ignore_noqa", "cache", "cache_docs", "overlay", "debug", "boundary",
                "progress", "skip",  # the worker's watch (pdlint.worker): over-budget files are never stored
                "jobs"}  # how many processes analyse (pdlint.parallel): the results are the same


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------

def cache_dir(cwd: str, roots: Optional[dict] = None) -> str:
    """``PDLINT_CACHE_DIR``, else ``.pdlint_cache`` at the root of the repository holding ``cwd``, else in ``cwd``
    (where :func:`run` does not use it: no repository vouches for it); ``roots``: :func:`repo_root`'s cache."""
    env = os.environ.get(ENV_DIR)
    if env:
        return os.path.abspath(os.path.join(cwd, env))
    from pdlint.discover import repo_root
    return os.path.join(repo_root(cwd, {} if roots is None else roots) or cwd, DIR_NAME)


class Store:
    def __init__(self, directory: str, env: str):
        self.dir = directory
        self.env = env
        self.index_path = os.path.join(directory, f"index-{env[:24]}.json")
        self._raw: dict = {}  # id(component read from the index) -> its line, written back as it was read

    # -- reading ---------------------------------------------------------------
    @staticmethod
    def _body(path: str) -> Optional[bytes]:
        """A cache file's body, or None when it is missing or its header does not vouch for it."""
        from pdlint.safeio import Boundary, Refused
        d = os.path.dirname(os.path.abspath(path))
        try:  # a regular file of the cache directory, never a FIFO or a symlink out of it
            raw = Boundary(d).read(path, d, limit=MAX_CACHE_FILE_BYTES)
        except Refused:
            return None
        head, sep, body = raw.partition(b"\n")
        parts = head.decode("ascii", "replace").split(" ")
        if not sep or len(parts) != 3 or parts[0] != _HEADER or parts[1] != str(FORMAT) \
                or parts[2] != digest_bytes(body):
            return None
        return body

    @classmethod
    def _load(cls, path: str) -> Optional[dict]:
        """A cache file's JSON object (an index's: its head with ``components``), or None when it is missing or
        cannot be validated."""
        body = cls._body(path)
        try:
            doc = json.loads(body.decode("utf-8")) if body is not None else None
        except (ValueError, UnicodeDecodeError):
            return None
        if isinstance(doc, list) and doc and isinstance(doc[0], dict):
            return dict(doc[0], components=doc[1:])
        return doc if isinstance(doc, dict) else None

    def load_index(self) -> Optional[dict]:
        """The index: ``[head, component, ...]`` with one element a line (JSON escapes every line break inside a
        string, so the lines are the elements): each component's line is kept (:meth:`save` writes an unchanged
        component back as it was read instead of encoding the whole index again: a run that re-checks one
        changed file of 1,000 spent 10 ms on that)."""
        body = self._body(self.index_path)
        try:
            items = json.loads(body.decode("utf-8")) if body is not None else None
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(items, list) or not items or not isinstance(items[0], dict):
            return None
        doc, components = items[0], items[1:]
        if doc.get("format") != FORMAT or doc.get("env") != self.env or not isinstance(doc.get("listing"), dict) \
                or not all(isinstance(c, dict) for c in components):
            return None
        lines = body[1:-1].split(b",\n")
        if len(lines) == len(items):  # (else written otherwise: every component is encoded again)
            self._raw = {id(c): line for c, line in zip(components, lines[1:])}
        doc["components"] = components
        return doc

    def load_docs(self, cid: str) -> Optional[dict]:
        if not isinstance(cid, str) or not cid.isalnum():
            return None
        doc = self._load(os.path.join(self.dir, "docs", cid + ".json"))
        if doc is None or doc.get("id") != cid or not isinstance(doc.get("launches"), list) \
                or not isinstance(doc.get("deployments"), list):
            return None
        return doc

    # -- writing ---------------------------------------------------------------
    def _prepare(self) -> bool:
        try:
            os.makedirs(os.path.join(self.dir, "docs"), exist_ok=True)
            for name, text in ((".gitignore", "# Automatically created by pdlint.\n*\n"),
                               ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                                "# This file is a cache directory tag created by pdlint.\n")):
                p = os.path.join(self.dir, name)
                if not os.path.exists(p):
                    self._write(p, text.encode())
        except OSError:
            return False
        return True

    @staticmethod
    def _write(path: str, data: bytes) -> None:
        fd, tmp = _new_temp(os.path.dirname(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # atomic: a concurrent run reads the old file or the new one
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def _dump(self, path: str, doc: dict) -> None:
        body = self._encode(doc)
        self._write(path, f"{_HEADER} {FORMAT} {digest_bytes(body)}\n".encode("ascii") + body)

    def _dump_index(self, index: dict) -> None:
        """The index as :meth:`load_index` reads it; a component read from the index is written as it was read
        (a stored component is never changed in a run: one that changes is a fresh one)."""
        head = {k: v for k, v in index.items() if k != "components"}
        lines = [self._encode(head)]
        for c in index["components"]:
            raw = self._raw.get(id(c))
            lines.append(raw if raw is not None else self._encode(c))
        body = b"[" + b",\n".join(lines) + b"]"
        self._write(self.index_path, f"{_HEADER} {FORMAT} {digest_bytes(body)}\n".encode("ascii") + body)

    @staticmethod
    def _encode(doc) -> bytes:
        try:
            return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a file name that is not UTF-8 (surrogate escapes): \udcXX in JSON
            return json.dumps(doc, separators=(",", ":")).encode("ascii")

    def save(self, index: dict, docs: dict) -> None:
        """Write the index and new launch files; drop the oldest indexes and unused launch files."""
        if not self._prepare():
            return
        try:
            for cid, doc in docs.items():
                p = os.path.join(self.dir, "docs", cid + ".json")
                if not os.path.exists(p):
                    self._dump(p, doc)
            self._dump_index(index)
            self._prune(index)
        except OSError:
            pass  # a read-only or full disk: the run's result stands, the cache is not updated

    def _prune(self, index: dict) -> None:
        names = [n for n in os.listdir(self.dir) if n.startswith("index-") and n.endswith(".json")]
        if len(names) > MAX_INDEXES:
            by_age = sorted(names, key=lambda n: os.path.getmtime(os.path.join(self.dir, n)), reverse=True)
            for n in by_age[MAX_INDEXES:]:
                if os.path.join(self.dir, n) != self.index_path:
                    os.unlink(os.path.join(self.dir, n))
        ddir = os.path.join(self.dir, "docs")
        names = os.listdir(ddir)
        if len(names) > MAX_DOCS:
            keep = {c.get("docs") for c in index["components"]}
            for n in names:
                if n[:-5] not in keep:
                    os.unlink(os.path.join(ddir, n))


def _refusal(directory: str, listings: dict) -> Optional[str]:
    """Why the cache directory is not used, or None.  A cache directory inside a repository is trusted only
    when git ignores it (its generated .gitignore): a committed cache could claim results for files it never
    saw.  The default one (``.pdlint_cache``, no ``PDLINT_CACHE_DIR``) must be a directory of its own: a
    symlink committed in its place would make pdlint write where the link points, outside the repository,
    or read an index committed under the link's target (field test rw20/h)."""
    if not os.environ.get(ENV_DIR) and (os.path.islink(directory) or (
            os.path.lexists(directory) and not os.path.isdir(directory))):
        return (f"the result cache {directory} is a symlink or not a directory, so it is not used (pdlint writes its "
                f"cache only into a directory of its own); delete it (pdlint recreates it) or set {ENV_DIR}")
    docs = os.path.join(directory, "docs")
    if os.path.islink(docs) or (os.path.lexists(docs) and not os.path.isdir(docs)):
        # (pdlint writes its launch files into it and prunes what it did not write: never through a link)
        return (f"the result cache's {docs} is a symlink or not a directory, so the cache is not used; delete "
                f"{directory} (pdlint recreates it)")
    places = {os.path.join(directory, ""), os.path.join(os.path.realpath(directory), "")}
    way = _way(directory, listings)
    on_way: set = set()  # the directories on the cache's way that git lists (one pass over the listing for both)
    for files in listings.values():
        for f in files or ():
            if f.startswith(tuple(places)) or os.path.join(f, "") in places:
                return (f"the result cache {directory} is listed by git (committed or not ignored), so it is not "
                        f"used; delete it (pdlint recreates it with a .gitignore) or set {ENV_DIR}")
            if f in way:
                on_way.add(f)
    for here in way:
        if os.path.islink(here):
            why = "a symlink"
        elif here in on_way:
            why = "a path git lists (a committed file or a submodule)"
        elif os.path.lexists(os.path.join(here, ".git")):
            why = "a git work tree of its own"
        else:
            continue
        return (f"the result cache {directory} is not used: {here} on its way is {why}, and pdlint writes its "
                f"cache only into directories the repository cannot redirect; set {ENV_DIR} to a directory "
                f"outside the repository or ignored by git")
    return None


def _way(directory: str, listings: dict) -> list:
    """The directories from a listed work tree's root down to a cache directory inside it (the directory
    included), in order; [] outside every listed tree.  A cache there is not used when one of them is a
    symlink (pdlint would write where it points, outside the repository), a path git lists (a committed file
    or symlink, a submodule's gitlink) or a work tree of its own (a submodule or a nested checkout, whose
    committed files the listing does not show).  Field test rw21/h: `PDLINT_CACHE_DIR` set to
    `$CI_PROJECT_DIR/.cache/pdlint` (GitLab's in-project caches) and a pull request committing `.cache` as a
    symlink out of the repository, or as a submodule holding a forged index."""
    # (the directory as written may reach the tree through a symlink above it - a CI workspace reached through
    # a link, `$CI_PROJECT_DIR/.cache/pdlint` - while the listed roots are real paths: each component's parent
    # is resolved before the component is compared, and the components inside the tree are kept as written,
    # so that a link among them is seen; field test rw22/h)
    parts = [p for p in os.path.abspath(directory).split(os.sep) if p]
    parent = os.sep
    for i, part in enumerate(parts):
        here = os.path.join(parent, part)
        root = next((r for r in listings if here == r or here.startswith(os.path.join(r, ""))), None)
        if root is not None:
            rel = [] if here == root else os.path.relpath(here, root).split(os.sep)
            out = [os.path.join(root, *rel[:k + 1]) for k in range(len(rel))]
            for rest in parts[i + 1:]:
                here = os.path.join(here, rest)
                out.append(here)
            return out
        parent = os.path.realpath(here)
    return []


# ---------------------------------------------------------------------------
# Components of a fresh run
# ---------------------------------------------------------------------------

class UnionFind:
    """Disjoint sets of hashable items (path halving; an item is a set of its own until joined)."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        p = self.parent
        p.setdefault(x, x)
        while p[x] != x:
            p[x] = p[p[x]]
            x = p[x]
        return x

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def pair_keys(launch) -> set:
    """Keys two launches share when the pair stage could put them in one deployment
    (:func:`pdlint.pairing.group`): unit keys, replica groups, Compose projects, role-word sibling keys, the
    server addresses routers name and their hosts."""
    from pdlint.pairing import address_keys, compose_project_key, model_sibling_key, role_word_keys, unit_key
    keys = {"u:" + unit_key(launch)}
    sibling = model_sibling_key(launch)
    if sibling is not None:
        keys.add("m:" + sibling)
    if launch.meta.get("replica_of"):
        keys.add("g:" + str(launch.meta["replica_of"]))
    project = compose_project_key(launch)
    if project is not None:
        keys.add("c:" + project)
    for _, key in address_keys(launch):
        keys.add("a:" + key)
        keys.add("h:" + key.rsplit(":", 1)[0])  # a router's URL names the servers of its host on another port too
    for key, _, _ in role_word_keys(launch.path):
        keys.add("s:" + key)
    if launch.engine == "trtllm":  # a disaggregated config and the servers a script beside it starts at its URLs
        from pdlint.engines.trtllm.engine import served_keys
        keys |= {"t:" + k for k in served_keys(launch)}
    return keys


def launch_paths(launch) -> set:
    """The files a launch's text comes from (every token, hop, environment value, setting)."""
    from pdlint.coverage import read_paths
    out = read_paths(launch)
    o = launch.structural_origin
    if o is not None:
        out.add(o.path)
    return out


def _finding_doc(f) -> list:
    return [f.path, f.line, f.column, f.code, f.name, f.severity, f.role, f.message,
            [[r.path, r.line, r.column, r.note] for r in f.related], f.fix, f.engine_version, f.end_column,
            f.end_line, f.token]


def _finding(d: list):
    from pdlint.model import Finding, Related
    return Finding(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], tuple(Related(*r) for r in d[8]),
                   d[9], d[10], d[11], end_line=d[12], token=d[13])


def _undecided_of(u: list):
    """The :class:`Undecided` a record of :func:`_fc_doc` holds (its flags by name: the record's order is not the
    class's, rw35/i P5)."""
    from pdlint.coverage import Undecided
    return Undecided(*u[:8], recipe_param=tuple(u[8]) if len(u) > 8 else (),
                     configmap=bool(u[9]) if len(u) > 9 else False, loop_cut=bool(u[10]) if len(u) > 10 else False)


def _fc_doc(fc) -> dict:
    return {"status": fc.status, "launches": fc.launches, "markers": fc.markers, "error": fc.error,
            "spots": [[s.path, s.line, s.column, s.end_line, s.code, s.reason, s.hint, s.text] for s in fc.spots],
            "undecided": [[u.line, u.column, u.flag, u.text, u.name, u.deployed, u.unexpanded, u.budget,
                           list(u.recipe_param), u.configmap, u.loop_cut] for u in fc.undecided],
            "disabled_by": fc.disabled_by}


def partition(jobs: list, res, deps: Deps, resolver, cwd: str, docs: bool) -> list:
    """The components of a fresh run on ``jobs`` (see the module docstring), each as stored."""
    from pdlint.coverage import checked, role_keys, unpaired_keys
    from pdlint.discover import display_path
    from pdlint.pairing import pair_role
    order = {j.abspath: i for i, j in enumerate(jobs)}
    by_display = {j.display: j.abspath for j in jobs}
    uf = UnionFind()
    owner: dict = {}  # display path -> a job whose component holds it

    def disp(abspath: str) -> str:
        return deps.display.get(abspath) or display_path(abspath, cwd)

    def link(job: str, display: str) -> None:
        o = owner.setdefault(display, job)
        if o != job:
            uf.union(o, job)

    for j in jobs:
        uf.find(j.abspath)
        link(j.abspath, j.display)
    for job, paths in deps.reads.items():
        if job in order:
            for a in paths:
                link(job, disp(a))
    for group in deps.groups:
        group = [g for g in group if g in order]
        for g in group[1:]:
            uf.union(group[0], g)
    key_owner: dict = {}
    launch_job: list = []
    for launch in res.launches:
        job = deps.launch_job.get(id(launch))
        if job not in order:
            job = owner.get(launch.path)
        launch_job.append(job)
        if job is None:
            continue
        for p in launch_paths(launch):
            if not p.startswith("<"):  # "<config>", "<command line>": written nowhere
                link(job, p)
        for k in pair_keys(launch):
            o = key_owner.setdefault(k, job)
            if o != job:
                uf.union(o, job)

    def where(path: str) -> Optional[str]:
        return owner.get(path) or by_display.get(path)

    places = [f.path for f in res.findings] + list(res.coverage.files) + list(deps.suppressed)
    if any(j is None for j in launch_job) or any(where(p) is None for p in places):
        for j in jobs[1:]:  # something this module cannot place: one component (correct, not incremental)
            uf.union(jobs[0].abspath, j.abspath)

    def place(job: Optional[str]) -> Optional[str]:
        """The job whose component holds what ``where`` cannot place (a finding at no file of the run): the
        one component all jobs were joined into above, which holds the job that produced it.  Never a
        component of no job, which a cached run never replays (rw30/a problem 3: a PD009 under a synthetic
        path reported by the fresh run only)."""
        return job if job is not None or not jobs else jobs[0].abspath

    comps: dict = {}

    def comp(job: str) -> dict:
        root = uf.find(job)
        c = comps.get(root)
        if c is None:
            c = comps[root] = {"jobs": [], "findings": [], "sources": [], "coverage": {}, "launches": 0,
                               "by_role": {}, "unpaired": {}, "suppressed": 0, "notes": set(), "keys": set(), "links": set(),
                               "_launches": [], "stable": True}
        return c

    for j in jobs:
        comp(j.abspath)["jobs"].append([j.abspath, j.display, j.kind, j.explicit])
        if j.abspath in deps.unstable:
            comp(j.abspath)["stable"] = False
    for display, job in owner.items():
        comp(job)["links"].add(display)
    for k, job in key_owner.items():
        comp(job)["keys"].add(k)
    for f in res.findings:
        c = comp(place(where(f.path)))
        c["findings"].append(_finding_doc(f))
        if f.path in res.sources and f.path not in c["sources"]:
            c["sources"].append(f.path)
        if f.code in _UNSTABLE_CODES or (f.code == "PD008" and ("took longer than" in f.message or
                                                              f.message.startswith("not checked: "))):
            c["stable"] = False
    for path, fc in res.coverage.files.items():
        comp(place(where(path)))["coverage"][path] = _fc_doc(fc)
    for path, n in deps.suppressed.items():
        comp(place(where(path)))["suppressed"] += n
    unpaired = {id(l) for l in res.coverage.unpaired_launches}
    for launch, job in zip(res.launches, launch_job):
        c = comp(place(job))
        if id(launch) in unpaired:  # (a component holds every launch its launches could pair with)
            for k in unpaired_keys(launch):  # (its role, and why: Coverage.unpaired_summary)
                c["unpaired"][k] = c["unpaired"].get(k, 0) + 1
        c["_launches"].append(launch)
        note = getattr(launch.parsed, "version_note", None)
        if note:
            c["notes"].add(note)
        if checked(launch):
            c["launches"] += 1
            for key in role_keys(launch, pair_role(launch)):  # (as coverage._count counts it)
                c["by_role"][key] = c["by_role"].get(key, 0) + 1

    out = []
    for c in comps.values():
        files: dict = {}
        for job, _, _, _ in c["jobs"]:
            for a in deps.reads.get(job, ()):
                files[a] = deps.digests.get(a, ABSENT)
        for job, _, _, _ in c["jobs"]:
            for a, d in deps.weak_deps.get(job, {}).items():
                files.setdefault(a, d)
        c["deps"] = files
        c["configs"] = _configs(resolver, [j[0] for j in c["jobs"]] + list(files) +
                                [os.path.join(cwd, p) for p in c["links"]] +
                                [os.path.join(cwd, f[0]) for f in c["findings"]])
        c["notes"] = sorted(c["notes"])
        c["keys"] = sorted(c["keys"])
        c["links"] = sorted(c["links"])
        c["id"] = digest_bytes(json.dumps([c["jobs"], sorted(files.items()), c["configs"]]).encode())
        launches = c.pop("_launches")
        if docs:
            c["_docs"] = _launch_docs(c["id"], launches)
        out.append(c)
    return out


def _configs(resolver, paths: list) -> list:
    """[path, digest] of the config files (and their values files) that govern ``paths``."""
    seen: dict = {}
    done: set = set()
    for p in paths:
        d = os.path.dirname(os.path.abspath(p))
        if d in done:
            continue
        done.add(d)
        cfg = resolver.for_file(p)
        for f in ([cfg.path] if cfg.path else []) + list(cfg.values_files):
            if f not in seen:
                seen[f] = file_digest(f, getattr(resolver, "boundary", None))
    return sorted([k, v] for k, v in seen.items())


def _launch_docs(cid: str, launches: list) -> dict:
    """The component's launches and deployments as ``--format json`` writes them; each
    deployment with the position of its first launch (the order :func:`pdlint.pairing.group` gives)."""
    from pdlint.pairing import as_dicts, pair_launches_isolated as pair_launches
    from pdlint.report.jsonfmt import launch_dict
    index = {id(l): i for i, l in enumerate(launches)}
    deployments = []
    for d in pair_launches(launches):
        if d.pairs or d.links:
            deployments.append([index[id(d.launches[0])], as_dicts([d], launches)[0]])
    return {"id": cid, "launches": [[[l.path, l.line, l.ordinal], launch_dict(l)] for l in launches],
            "deployments": deployments}


# ---------------------------------------------------------------------------
# A run with the cache
# ---------------------------------------------------------------------------

# A file whose status changed less than this before a run began is never vouched for by its status
# (file systems that keep coarse times: a write in the same tick as the read would not change it).
_SETTLED_NS = 2_000_000_000


class _Files:
    """Digests of the files as they are now (each file read once per run).

    ``stats`` (from the index): path -> [size, mtime_ns, ctime_ns, inode, device, digest], the status
    of a file whose digest is known, recorded when it had not changed for :data:`_SETTLED_NS` before the
    run that read it began.  A file :mod:`pdlint.safeio` would read with exactly that status (the same
    path checks, one ``lstat``) has that digest without being read: every write changes the ctime,
    which no program can set back."""

    def __init__(self, boundary=None, stats: Optional[dict] = None, start_ns: int = 0):
        self.memo: dict = {}
        self.boundary = boundary
        self.stats = stats or {}
        self.start_ns = start_ns
        self.idents: dict = {}  # path -> its status this run (None: refused)

    def _boundary(self, path: str):
        if self.boundary is not None:
            return self.boundary
        from pdlint.safeio import Boundary
        return Boundary(os.path.dirname(os.path.abspath(path)))

    def identity(self, path: str) -> Optional[tuple]:
        if path in self.idents:
            return self.idents[path]
        ident = self.idents[path] = self._boundary(path).identity(path)
        return ident

    def digest(self, path: str) -> str:
        d = self.memo.get(path)
        if d is None:
            rec = self.stats.get(path)
            ident = self.identity(path)
            if rec is not None and ident == tuple(rec[:5]):
                d = self.memo[path] = rec[5]
            elif ident is None:  # a path safeio refuses after the same checks (most often: no such file)
                d = self.memo[path] = ABSENT
            else:
                d = self.memo[path] = file_digest(path, self.boundary)
        return d

    def record(self, files: dict, old: dict) -> dict:
        """The ``stats`` entries for ``files`` (path -> digest read this run): a file read
        or vouched for this run with its status now, when it was settled before the run began."""
        out: dict = {}
        limit = self.start_ns - _SETTLED_NS
        for path, d in files.items():
            if d in (ABSENT, BIG) or not isinstance(d, str):
                continue
            rec = self.stats.get(path)
            if path not in self.memo and rec is not None and rec[5] == d:
                out[path] = rec  # not looked at this run (another component's file): kept as it was
                continue
            ident = self.identity(path)
            if ident is not None and ident[1] < limit and ident[2] < limit:
                out[path] = [*ident, d]
        return out


def _stats(index: Optional[dict]) -> dict:
    """The index's file statuses that have the expected shape."""
    raw = index.get("stats") if index is not None else None
    if not isinstance(raw, dict):
        return {}
    return {p: r for p, r in raw.items() if isinstance(r, list) and len(r) == 6
            and all(type(x) is int for x in r[:5]) and isinstance(r[5], str)}


def _listing(roots: list, listings: dict, directory: str) -> dict:
    """root -> digest of its file listing (paths only; the cache directory left out)."""
    from pdlint.discover import _walk, relpath, repo_files
    out = {}
    for root in roots:
        files = repo_files(root, listings) if os.path.isdir(os.path.join(root, ".git")) or \
            os.path.exists(os.path.join(root, ".git")) else None
        if files is None:
            files = _walk(root)
        prefix = os.path.join(directory, "")
        names = sorted(relpath(f, root) for f in files if not f.startswith(prefix))
        out[root] = digest_bytes("\0".join(names).encode("utf-8", "surrogateescape"))
    return out


def run(jobs: list, options, resolver, config: Optional[str], listings: dict):
    """``pdlint.lint.analyse`` on ``jobs`` with the result cache (see the module docstring)."""
    from pdlint.lint import analyse
    if not jobs:
        return analyse(jobs, options, resolver)
    from pdlint.discover import repo_root
    roots = sorted({j.root for j in jobs})
    seen_roots: dict = {}  # repo_root's cache, for the three questions below (each directory walked up once)
    if any(j.explicit and repo_root(j.abspath, seen_roots) is None for j in jobs):
        return analyse(jobs, options, resolver)  # no repository: no listing to vouch for what exists
    if not os.environ.get(ENV_DIR) and repo_root(options.cwd, seen_roots) is None:
        # a tree no git repository holds (a tarball, a `docker build` context without .git, an artifact): nothing
        # tells a `.pdlint_cache` pdlint wrote from one the tree brought, with an index forged for the broken
        # files or a `docs` link out of the tree that pdlint would write into and prune (rw28/h items 2 and 5);
        # the default place is not used there, PDLINT_CACHE_DIR is
        return analyse(jobs, options, resolver)
    start_ns = time.time_ns()
    directory = cache_dir(options.cwd, seen_roots)
    listing = _listing(roots, listings, directory)
    refused = _refusal(directory, listings)
    if refused:
        resolver.warnings.append(refused)
        return analyse(jobs, options, resolver)
    store = Store(directory, environment(options, config))
    index = store.load_index()
    stored = index["components"] if index is not None else []
    if index is not None and index["listing"] != listing:
        stored = [c for c in stored if not any(j[0].startswith(os.path.join(r, "")) for j in c["jobs"]
                                                for r in roots)]
    old_stats = _stats(index)
    now = _Files(options.boundary, old_stats, start_ns)
    current = {j.abspath: j for j in jobs}
    by_job: dict = {}
    for c in stored:
        for j in c.get("jobs", ()):
            by_job.setdefault(j[0], c)
    usable: list = []
    dirty: set = set()
    seen: set = set()
    docs_of: dict = {}
    for j in jobs:
        c = by_job.get(j.abspath)
        if c is None:
            dirty.add(j.abspath)
            continue
        if id(c) in seen:
            continue
        seen.add(id(c))
        ok = _valid(c, current, now)
        if ok and options.cache_docs:
            d = store.load_docs(c.get("docs"))
            ok = d is not None
            if ok:
                docs_of[id(c)] = d
        if ok:
            usable.append(c)
        else:
            dirty |= {x[0] for x in c["jobs"] if x[0] in current}
    if not dirty:
        result = merge(jobs, usable, [], {}, options, resolver, docs_of)
        stats = _new_stats(now, stored)
        if stats != old_stats:  # files read this run that can be vouched for by their status next time
            store.save({"format": FORMAT, "env": store.env, "listing": index["listing"], "components": stored,
                        "stats": stats, "known": _known(index)}, {})
        return result
    _use_known(index)
    from pdlint import parallel
    while True:
        subset = [j for j in jobs if j.abspath in dirty]
        res, fresh, sources = parallel.fresh(subset, options, resolver)
        links = set().union(*(c["links"] for c in fresh))
        keys = set().union(*(c["keys"] for c in fresh))
        touched = [c for c in usable if links.intersection(c["links"]) or keys.intersection(c["keys"])]
        if not touched:
            break
        for c in touched:
            usable.remove(c)
            dirty |= {x[0] for x in c["jobs"]}
    if res is not None and len(subset) == len(jobs):
        result = res
    else:
        result = merge(jobs, usable, fresh, sources, options, resolver, docs_of)
    _save(store, stored, usable, fresh, current, listing, jobs, now, _known(index))
    return result


def _codes(v) -> bool:
    return isinstance(v, list) and all(isinstance(c, str) for c in v)


def _prefilter_index(v) -> bool:
    """Shaped as ``pdlint.engines.sglang.prefilter.index`` stores it (rule positions into ``codes``)."""
    if not isinstance(v, dict) or not _codes(v.get("codes")):
        return False
    n = len(v["codes"])

    def positions(x):
        return isinstance(x, list) and all(type(i) is int and 0 <= i < n for i in x)

    def table(x):
        return isinstance(x, dict) and all(isinstance(k, str) and positions(y) for k, y in x.items())

    return positions(v.get("always")) and table(v.get("by_dest")) and table(v.get("by_env"))


# facts a run decides that depend on pdlint's code and release tables only, which the index's environment
# key covers: (pdlint.engines.KNOWN key, the module that decides them, its function returning what this
# process decided, the check of one stored entry).  A later run takes them instead of deciding them again
# (reading a release's message corpus, running every rule on the minimal launch: tens of milliseconds)
_KNOWN = (("sglang rule sets", "pdlint.engines.sglang.engine", "rule_sets", _codes),  # engine.KNOWN_SETS
          ("sglang prefilter", "pdlint.engines.sglang.prefilter", "indexes", _prefilter_index))


def _use_known(index: Optional[dict]) -> None:
    """Give the engines the facts the index holds (read by an engine if the run imports it)."""
    known = index.get("known") if index is not None else None
    if not isinstance(known, dict):
        return
    from pdlint.engines import KNOWN
    for name, _module, _fn, valid in _KNOWN:
        got = known.get(name)
        if isinstance(got, dict) and got and all(isinstance(k, str) and valid(v) for k, v in got.items()):
            KNOWN.setdefault(name, {}).update(got)


def _known(index: Optional[dict]) -> dict:
    """The facts to store: the index's, and what this run decided."""
    old = index.get("known") if index is not None else None
    out = {}
    for name, module, fn, _valid in _KNOWN:
        had = old.get(name) if isinstance(old, dict) else None
        got = dict(had) if isinstance(had, dict) else {}
        mod = sys.modules.get(module)
        if mod is not None:
            got.update(getattr(mod, fn)())
        if got:
            out[name] = got
    return out


def _new_stats(now: _Files, components: list) -> dict:
    files: dict = {}
    for c in components:
        files.update(c.get("deps") or {})
        for path, d in c.get("configs") or ():
            files[path] = d
    return now.record(files, now.stats)


def _valid(c: dict, current: dict, now: _Files) -> bool:
    """Is a stored component's result the one a run would give now?"""
    try:
        for abspath, display, kind, explicit in c["jobs"]:
            j = current.get(abspath)
            if j is None or j.display != display or j.kind != kind:
                return False
            if j.explicit != explicit and not _worth(j, now.boundary):
                return False  # an explicit file is read even without an engine keyword
        for path, d in c["deps"].items():
            if now.digest(path) != d:
                return False
        for path, d in c["configs"]:
            if now.digest(path) != d:
                return False
        return all(isinstance(c[k], list) for k in ("findings", "links", "keys", "notes", "sources")) \
            and isinstance(c["coverage"], dict)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def _worth(job, boundary=None) -> bool:
    from pdlint.discover import worth_parsing
    from pdlint.safeio import Boundary, Refused
    if job.kind == "unknown":
        return False
    try:
        data = (boundary or Boundary(job.root)).read(job.abspath)
    except Refused:
        return False
    try:
        data = data.decode("utf-8").encode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return worth_parsing(job.kind, data)


def _save(store: Store, stored: list, usable: list, fresh: list, current: dict, listing: dict, jobs: list,
          now: _Files, known: dict) -> None:
    keep = [c for c in fresh if c.pop("stable")]
    docs = {}
    for c in keep:
        d = c.pop("_docs", None)
        c["docs"] = d["id"] if d is not None else None
        if d is not None:
            docs[d["id"]] = d
    taken = {j[0] for c in usable + keep for j in c["jobs"]}
    others = [c for c in stored if not any(j[0] in current or j[0] in taken for j in c.get("jobs", ()))]
    components = usable + keep + others
    if len(components) > MAX_COMPONENTS:
        components = components[:MAX_COMPONENTS]
    store.save({"format": FORMAT, "env": store.env, "listing": listing, "components": components,
                "stats": _new_stats(now, components), "known": known}, docs)


def _source(display: str, cwd: str, boundary=None):
    """The file as the extract stage reads it (for the report's snippets)."""
    from pdlint.safeio import Boundary, Refused, decode
    from pdlint.text import SourceFile
    abspath = os.path.join(cwd, display)
    try:
        data = (boundary or Boundary(cwd)).read(abspath)
    except Refused:
        return None
    text, bad = decode(data)
    return None if bad is not None else SourceFile(display, text, abspath)


def merge(jobs: list, usable: list, fresh: list, fresh_sources: dict, options, resolver, docs_of: dict):
    """The result of the whole run from stored (``usable``) and fresh components; ``fresh_sources``: the
    files this process read for the fresh ones (display path -> SourceFile), the others are read again
    (for the report's snippets)."""
    from pdlint.coverage import Coverage, FileCoverage, Spot
    from pdlint.lint import Result
    comps = usable + fresh
    stored = {id(c) for c in usable}
    findings = [_finding(d) for c in comps for d in c["findings"]]
    findings.sort(key=lambda f: f.sort_key())
    sources: dict = {}
    for c in comps:
        for p in c["sources"]:
            src = fresh_sources.get(p)
            if src is None:
                src = _source(p, options.cwd, options.boundary)
            if src is not None:
                sources[p] = src
    cov = Coverage()
    for c in comps:
        cov.launches += c["launches"]
        for k, n in c["by_role"].items():
            cov.by_role[k] = cov.by_role.get(k, 0) + n
        for k, n in c["unpaired"].items():
            cov.unpaired[k] = cov.unpaired.get(k, 0) + n
        for path, d in c["coverage"].items():
            fc = FileCoverage(path, d["status"], d["launches"], d["markers"],
                              [Spot(*s) for s in d["spots"]], d["error"], [_undecided_of(u) for u in d["undecided"]],
                              d.get("disabled_by"))
            cov.files[path] = fc
            cov.spots += fc.spots
    cov.spots.sort(key=lambda s: (s.path, s.line, s.column, s.code))
    notes = sorted({n for c in comps for n in c["notes"]})
    # the configs that govern the stored components' files are loaded (and warn) as in a run without the cache:
    # a directory's files share its config (ConfigResolver.for_file), so one file a directory asks for all
    asked: set = set()
    for c in usable:
        for p in c["links"]:
            d = p.rpartition("/")[0]
            if d not in asked:
                asked.add(d)
                resolver.for_display(p)
    result = Result(findings, [], len(jobs), sources, resolver.warnings + notes, cov,
                    sum(c["suppressed"] for c in comps))
    if options.cache_docs:
        result.docs = _merge_docs(comps, stored, docs_of)
    return result


def _merge_docs(comps: list, stored: set, docs_of: dict) -> tuple:
    parts = []
    for c in comps:
        d = docs_of.get(id(c)) if id(c) in stored else c.get("_docs")
        parts.append(d)
    order = sorted(((tuple(key), n, i) for n, d in enumerate(parts) for i, (key, _) in enumerate(d["launches"])))
    position = {(n, i): g for g, (_, n, i) in enumerate(order)}
    launches = [parts[n]["launches"][i][1] for _, n, i in order]
    deployments = []
    for n, d in enumerate(parts):
        for first, dep in d["deployments"]:
            dep = json.loads(json.dumps(dep))

            def fix(ref, n=n):
                if isinstance(ref, dict) and ref.get("launch") is not None:
                    ref["launch"] = position[(n, ref["launch"])]

            for p in dep.get("pairs", ()):
                fix(p.get("prefill"))
                fix(p.get("decode"))
            for r in dep.get("routers", ()):
                fix(r.get("router"))
                for s in r.get("servers", ()):
                    fix(s)
            deployments.append((position[(n, first)], dep))
    deployments.sort(key=lambda x: x[0])
    return launches, [d for _, d in deployments]
