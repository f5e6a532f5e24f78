"""Cold runs on several CPUs, with the report a single process gives, byte for byte.

A run's files are split into *parts* that are unlikely to interact (:func:`split`: the files of one
directory, a template and the partials it names, sibling files named for the two roles, the files of one
Helm chart, the files whose config gives them a values file), and each part is analysed in a forked
process as :func:`pdlint.lint.analyse` analyses a run, with :class:`pdlint.cache.Deps` recording what each
file read.  Each process sends back its *components* (:func:`pdlint.cache.partition`: the smallest groups
of files whose results depend only on each other, with their findings, coverage, suppression counts,
release notes, the files their launches read and the pair keys of their launches).  Components of two
runs that share a file or a pair key did interact: their files are analysed again together, in this
process, until no two do - as the result cache re-runs a stored component that a fresh run touches
(:func:`pdlint.cache.run`).  The components are then merged as the cache merges them
(:func:`pdlint.cache.merge`).

When: a ``check`` run (``show`` and ``--fix`` need every launch object: one process) of at least
:data:`MIN_JOBS` files with more than one CPU available (one process per CPU, and per
:data:`JOBS_PER_PROCESS` files, at most), or ``--jobs N`` (N > 1) for any run; not with
``--debug`` (tracebacks in-process).  Processes are forked after the pipeline's modules and the release
tables and rule sets the files need are loaded (:func:`_prewarm`), so they load nothing twice.  Each runs
its files under its own resource budgets and reports its progress to the worker's watch
(:mod:`pdlint.worker`, one slot per process), which stops them all when one overruns a file's deadline.
A process that fails or dies leaves its part to this process.
"""

from __future__ import annotations

import os
import sys
import threading

from pdlint import worker

MIN_JOBS = 64  # fewer files: one process (forking and merging would cost more than the split saves)
JOBS_PER_PROCESS = 32  # automatic: no more processes than parts of this many files
MAX_PROCESSES = worker.SLOTS - 1  # a progress slot each, beside the worker's own
_TEMPLATE_WEIGHT = 3  # a template costs about three times its size: compiled, then rendered per role


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the CPUs this process may run on (a container's share)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def processes(options, n_jobs: int) -> int:
    """How many processes analyse ``n_jobs`` files: 1 (in this process) or more."""
    want = getattr(options, "jobs", 0) or 0
    if want == 1 or n_jobs < 2 or getattr(options, "debug", False) or options.overlay:
        return 1
    if not hasattr(os, "fork") or sys.platform == "win32" or threading.current_thread() is not threading.main_thread():
        return 1
    if want <= 0:  # automatic
        if n_jobs < MIN_JOBS:
            return 1
        want = min(available_cpus(), n_jobs // JOBS_PER_PROCESS)
    return max(1, min(want, MAX_PROCESSES, n_jobs))


# ---------------------------------------------------------------------------
# Parts
# ---------------------------------------------------------------------------

def split(jobs: list, resolver, k: int, boundary=None) -> list:
    """``jobs`` in at most ``k`` parts of about equal work; files that are likely to read each other or to
    pair (see the module docstring) in one part.  A guess: files of two parts that do interact are analysed
    again together (:func:`fresh`)."""
    import re
    from pdlint.cache import UnionFind
    from pdlint.extract import _INCLUDE_NAME
    from pdlint.discover import chart_root
    from pdlint.pairing import role_word_keys
    from pdlint.safeio import Boundary, Refused
    boundary = boundary or Boundary(os.getcwd())
    n = len(jobs)
    uf = UnionFind()
    first: dict = {}  # a grouping key -> the first job that has it

    def join(key, i: int) -> None:
        j = first.setdefault(key, i)
        if j != i:
            uf.union(j, i)

    by_name: dict = {}
    for i, j in enumerate(jobs):
        by_name.setdefault(os.path.basename(j.abspath), []).append(i)
    charts: dict = {}  # directory -> its chart (or None)
    for i, j in enumerate(jobs):
        d = os.path.dirname(j.abspath)
        join(("dir", d), i)
        for key, _, _ in role_word_keys(j.display):
            join(("role", key), i)
        cfg = resolver.for_file(j.abspath)
        if cfg.values_files or cfg.helm_values:
            # its templates' text comes from one values file; a chart is rendered with values files elsewhere
            join(("config", cfg.path), i)
        if j.kind in ("yaml", "tpl"):
            if d not in charts:
                charts[d] = chart_root(j.abspath, j.root)
            if charts[d] is not None:
                join(("chart", charts[d]), i)
        if j.kind in ("jinja", "tpl"):
            try:
                data = boundary.read(j.abspath, j.root)
            except Refused:
                continue
            if b"{%" in data:
                text = data.decode("utf-8", "replace")
                for name in re.findall(_INCLUDE_NAME, text):
                    for other in by_name.get(os.path.basename(name), ()):
                        uf.union(i, other)
    groups: dict = {}
    for i in range(n):
        groups.setdefault(uf.find(i), []).append(i)
    cost = [_cost(j) for j in jobs]
    parts = [[] for _ in range(k)]
    load = [0] * k
    for members in sorted(groups.values(), key=lambda g: (-sum(cost[i] for i in g), g[0])):
        p = load.index(min(load))
        parts[p] += members
        load[p] += sum(cost[i] for i in members)
    return [[jobs[i] for i in sorted(p)] for p in parts if p]


def _cost(job) -> int:
    try:
        size = os.lstat(job.abspath).st_size
    except OSError:
        size = 0
    return (size + 512) * (_TEMPLATE_WEIGHT if job.kind in ("jinja", "tpl") else 1)


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

def fresh(jobs: list, options, resolver) -> tuple:
    """``(result, components, sources)`` of a fresh run on ``jobs``: the :class:`pdlint.lint.Result` of a
    run in this process on all of them (None when parts ran in other processes), the components as
    :func:`pdlint.cache.partition` gives them, and display path -> SourceFile of the files this process
    read for them."""
    from pdlint.cache import Deps, partition
    from pdlint.lint import analyse
    k = processes(options, len(jobs))
    parts = split(jobs, resolver, k, options.boundary) if k > 1 else [jobs]
    if len(parts) < 2:
        deps = Deps(options.boundary)
        res = analyse(jobs, options, resolver, deps)
        return res, partition(jobs, res, deps, resolver, options.cwd, options.cache_docs), res.sources
    _prewarm(jobs)
    runs = _run_parts(parts, options, resolver)
    sources: dict = {}
    comps: list = []
    for part, got in zip(parts, runs):
        if got is None:  # the process failed: its part is analysed here
            deps = Deps(options.boundary)
            res = analyse(part, options, resolver, deps)
            sources.update(res.sources)
            got = partition(part, res, deps, resolver, options.cwd, options.cache_docs)
        else:  # the configs its files read are loaded (and warn) here, as in a run in one process
            for c in got:
                for p in c["links"]:
                    resolver.for_display(p)
        comps += got
    while True:
        tangled = _interacting(comps)
        if not tangled:
            break
        redo = {x[0] for c in tangled for x in c["jobs"]}
        gone = {id(c) for c in tangled}
        comps = [c for c in comps if id(c) not in gone]
        subset = [j for j in jobs if j.abspath in redo]
        deps = Deps(options.boundary)
        res = analyse(subset, options, resolver, deps)
        sources.update(res.sources)
        comps += partition(subset, res, deps, resolver, options.cwd, options.cache_docs)
    return None, comps, sources


def _interacting(comps: list) -> list:
    """The components that share a file or a pair key with another one (of another run: one run's
    components share none, :func:`pdlint.cache.partition` joins those)."""
    from pdlint.cache import UnionFind
    owner: dict = {}  # ("l", display path) / ("k", pair key) -> index into comps
    uf = UnionFind()
    for i, c in enumerate(comps):
        for key in [("l", x) for x in c["links"]] + [("k", x) for x in c["keys"]]:
            o = owner.setdefault(key, i)
            if o != i:
                uf.union(o, i)
    size: dict = {}
    for i in range(len(comps)):
        r = uf.find(i)
        size[r] = size.get(r, 0) + 1
    return [comps[i] for i in range(len(comps)) if size[uf.find(i)] > 1]


def _run_parts(parts: list, options, resolver) -> list:
    """Each part's components, analysed in a forked process each (None for a process that failed)."""
    import select
    progress = options.progress
    children = []
    for n, part in enumerate(parts):
        r, w = os.pipe()
        pid = worker.fork()
        if pid == 0:
            os.close(r)
            for _, fd, _ in children:
                os.close(fd)
            _child(part, options, resolver, w, progress.for_process(n) if hasattr(progress, "for_process") else None)
        os.close(w)
        children.append((pid, r, bytearray()))
    open_fds = {r: buf for _, r, buf in children}
    try:
        while open_fds:
            ready, _, _ = select.select(list(open_fds), [], [])
            for fd in ready:
                data = os.read(fd, 1 << 20)
                if data:
                    open_fds[fd] += data
                else:
                    del open_fds[fd]
    finally:
        for pid, fd, _ in children:
            try:
                os.close(fd)
            except OSError:
                pass
    out = []
    for n, (pid, _, buf) in enumerate(children):
        status = worker.reap(pid)
        got = None
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and buf:
            import pickle  # (here: a run of one process never needs it)
            try:
                kind, value = pickle.loads(bytes(buf))  # our own child's bytes, through a pipe of this run
            except Exception:
                kind, value = "error", None
            if kind == "ok":
                got = value
        if got is None and hasattr(progress, "for_process"):
            slot = progress.for_process(n)
            if slot is not None:  # a process that died in a file: its slot no longer says it is there
                slot("E", "", "", 0)
        out.append(got)
    return out


def _child(part: list, options, resolver, fd: int, progress) -> None:
    """A forked process: analyse ``part``, write its components to ``fd``, exit (never return)."""
    code = 0
    try:
        from pdlint.cache import Deps, partition
        from pdlint.lint import analyse
        options.progress = progress
        deps = Deps(options.boundary)
        res = analyse(part, options, resolver, deps)
        comps = partition(part, res, deps, resolver, options.cwd, options.cache_docs)
        import pickle
        data = pickle.dumps(("ok", comps), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # noqa: B036 - whatever happens, the part is left to the parent
        data = b""
        code = 3
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError:
        code = 3
    finally:
        os._exit(code)


def _prewarm(jobs: list) -> None:
    """Load, once and before the fork, what every part would otherwise load for itself: the stages'
    modules, Jinja and tree-sitter when there are templates or scripts, and the SGLang release table and
    rule sets (best effort: a part loads whatever this missed)."""
    try:
        import pdlint.check  # noqa: F401
        import pdlint.coverage  # noqa: F401
        import pdlint.extract  # noqa: F401
        import pdlint.pairing  # noqa: F401
        import pdlint.structure_rules  # noqa: F401
        import pdlint.suppress  # noqa: F401
        kinds = {j.kind for j in jobs}
        if kinds & {"jinja", "tpl"}:
            from pdlint.render import jinja
            jinja._environment_classes()
            jinja._code_generator()
        if kinds & {"shell", "jinja", "justfile", "systemd", "dockerfile", "makefile"}:
            from pdlint.formats.shell import syntax
            syntax.parser()
        from pdlint.engines.sglang import engine, flags, prefilter
        from pdlint.rules import engine_rules
        engine_rules("sglang")
        version, _ = flags.pick(None)
        flags.load(version)
        for role in ("prefill", "decode", None):
            engine._rules_for(version, role)
            if role is not None:
                prefilter.index(version, role, engine._codes_for(version, role))
    except Exception:  # noqa: BLE001 - only a head start
        pass
