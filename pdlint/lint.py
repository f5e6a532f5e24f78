"""The pipeline: discover -> render/extract -> check -> (report, by the CLI)."""

from __future__ import annotations

import os
import re
from typing import Optional

from pdlint import lazyre
from pdlint.config import Config, ConfigError, has_pdlint_table, load_config_file
from pdlint.discover import discover, display_path, expand_units
from pdlint.options import Options
from pdlint.records import dataclass, field, replace


class UsageError(Exception):
    pass


@dataclass
class Result:
    findings: list = field(default_factory=list)
    launches: list = field(default_factory=list)
    files: int = 0
    sources: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    coverage: object = None  # pdlint.coverage.Coverage
    suppressed: int = 0  # findings an inline suppression covered
    # --format json from the result cache: (launch dicts, pair dicts) as pdlint.report.jsonfmt writes them;
    # ``launches`` is then empty
    docs: Optional[tuple] = None
    baseline: object = None  # pdlint.baseline.Outcome when --baseline was given
    # what the run judged: (display paths of the files scanned, absolute directories walked)
    scope: tuple = ((), ())
    left_out: frozenset = frozenset()  # paths of findings a run on named files left out (_restrict_to_named)
    # the files named on the command line when the run brought in others (their siblings, what reads them):
    # the undecided summary lists the named files' values (_restrict_to_named)
    named: frozenset = frozenset()


class ConfigResolver:
    """The config that applies to a path: ``--config FILE`` if given, else the
    nearest ``.pdlint.yaml`` / ``pyproject.toml`` with ``[tool.pdlint]`` walking
    up from the file, stopping at its repository root.

    A config file pdlint cannot use (unreadable, not UTF-8, invalid TOML or
    YAML, a key of the wrong type, a values file outside the repository) does
    not stop the run: it becomes a config whose ``error`` is a PD012 finding,
    the files it governs are not checked, and every other file is.  A
    pyproject.toml without ``[tool.pdlint]`` is not a config at all, whatever
    it holds."""

    def __init__(self, cwd: str, explicit: Optional[str] = None, overlay=None, boundary=None, options=None):
        from pdlint.safeio import Boundary
        self.cwd = cwd
        self.overlay = overlay  # the command line's rule selection (config.Selection), over every config
        # the command line's exclusion globs (relative to cwd) and whether they replace the configs' own
        # (--exclude) or add to them (--extend-exclude); its per-file ignores, as (replace, {glob: codes})
        given = getattr(options, "exclude", None)
        self.cli_exclude = tuple(given or ()) + tuple(getattr(options, "extend_exclude", ()) or ())
        self.replace_exclude = given is not None
        pfi, extend = getattr(options, "per_file_ignores", None), getattr(options, "extend_per_file_ignores", None)
        merged: dict = {}
        for table in (pfi or {}, extend or {}):
            for glob, codes in table.items():
                merged.setdefault(glob, []).extend(codes)
        self.cli_ignores = (pfi is not None, merged) if pfi is not None or extend else None
        self.boundary = boundary or Boundary(cwd)
        self.explicit = None
        self.by_dir: dict = {}
        self._by_display: dict = {}  # display path -> its config (for_display)
        self.warnings: list = []
        self.broken: dict = {}  # config abspath -> its Config (with .error)
        if explicit:
            path = os.path.abspath(os.path.join(cwd, explicit))
            if not os.path.lexists(path):
                raise UsageError(f"{explicit}: config file not found")
            if os.path.isdir(path) and not os.path.islink(path):
                raise UsageError(f"{explicit}: is a directory, not a config file")
            self.explicit = self._load(path)

    def _load(self, path: str, data: Optional[bytes] = None) -> Config:
        display = display_path(path, self.cwd)
        try:
            cfg = load_config_file(path, display, self.boundary, data)
        except ConfigError as e:
            cfg = Config(path=path, root=os.path.dirname(path), error=config_finding(e, display))
            self.broken[path] = cfg
        else:
            self.warnings += cfg.warnings
        return cfg.with_overlay(self.overlay, self.cli_ignores)

    def for_file(self, abspath: str) -> Config:
        if self.explicit is not None:
            return self.explicit
        d = os.path.dirname(os.path.abspath(abspath))
        cached = self.by_dir.get(d)
        if cached is not None:  # asked once per launch and finding: skip the stat calls
            return cached
        root = self.boundary.root_for(abspath)
        chain = []
        cfg = None
        while True:
            if d in self.by_dir:
                cfg = self.by_dir[d]
                break
            chain.append(d)
            found = self._config_in(d)
            if found is not None:
                cfg = found
                break
            parent = os.path.dirname(d)
            if d == root or parent == d or not d.startswith(root):
                cfg = Config().with_overlay(self.overlay, self.cli_ignores)
                break
            d = parent
        for c in chain:
            self.by_dir[c] = cfg
        return cfg

    def _config_in(self, d: str) -> Optional[Config]:
        from pdlint.safeio import MISSING, Refused
        dotfile = os.path.join(d, ".pdlint.yaml")
        if os.path.lexists(dotfile):
            r = self.boundary.refusal(dotfile)
            if r is None or r.kind != MISSING:  # (a dangling symlink is no config)
                return self._load(dotfile)
        pyproject = os.path.join(d, "pyproject.toml")
        if os.path.lexists(pyproject):
            try:
                data = self.boundary.read(pyproject)
            except Refused as r:
                if r.kind == MISSING:
                    return None
                return self._load(pyproject)  # a config pdlint cannot read (a FIFO, a symlink out): PD012
            if has_pdlint_table(data):
                return self._load(pyproject, data)
        return None

    def excluded(self, abspath: str) -> bool:
        if not self.replace_exclude and self.for_file(abspath).excluded(abspath):
            return True
        if not self.cli_exclude:
            return False
        from pdlint.config import glob_match
        return glob_match(os.path.relpath(abspath, self.cwd).replace(os.sep, "/"), self.cli_exclude)

    def force_exclude(self, flag: Optional[bool]):
        """Does ``exclude`` apply to a file named on the command line?  The
        flag (``--force-exclude`` / ``--no-force-exclude``) wins, else the
        file's config (``force-exclude``), else no."""
        if flag is not None:
            return lambda abspath: flag
        return lambda abspath: bool(self.for_file(abspath).force_exclude)

    def for_display(self, path: str) -> Config:
        cfg = self._by_display.get(path)  # asked per rule and launch, per finding: no path arithmetic each time
        if cfg is None:
            cfg = self._by_display[path] = self.for_file(os.path.join(self.cwd, path))
        return cfg

    def config_findings(self, jobs: list) -> list:
        """PD012 for every invalid config that governs a scanned file, saying how many it leaves unchecked."""
        out = []
        for path, cfg in sorted(self.broken.items()):
            n = sum(1 for j in jobs if self.for_file(j.abspath).path == path)
            if not n:
                continue
            f = cfg.error
            out.append(replace(f, message=f"{f.message}; pdlint did not check the {n} file{'s' if n != 1 else ''} "
                                          f"this config governs (fix the config to check them)"))
        return out


def config_finding(e: ConfigError, display: str):
    """PD012 at a config file (the key's line where known)."""
    from pdlint import core_rules as C
    from pdlint.model import Finding
    return Finding(e.path or display, e.line or 1, 1, C.CONFIG_ERROR.code, C.CONFIG_ERROR.name,
                   C.CONFIG_ERROR.severity, None, f"invalid pdlint config: {e.message}")


def run(paths: list, options: Options, config: Optional[str] = None) -> Result:
    from pdlint.safeio import Boundary
    options.boundary = Boundary(options.cwd, list(paths) or ["."])
    resolver = ConfigResolver(options.cwd, config, options.selection, options.boundary, options)
    listings: dict = {}  # repository root -> its files (git ls-files), listed once per run
    excluded: set = set()

    def excluding(abspath: str) -> bool:
        if resolver.excluded(abspath):
            excluded.add(abspath)
            return True
        return False

    jobs, missing = discover(paths, options.cwd, excluding, resolver.force_exclude(options.force_exclude),
                             listings=listings, boundary=options.boundary, notes=resolver.warnings)
    if missing:
        raise UsageError("no such file or directory: " + ", ".join(missing))
    jobs = expand_units(jobs, options.cwd, resolver.excluded, resolver, listings=listings,
                        boundary=options.boundary)
    if not options.cache_docs and any(j.explicit for j in jobs) and not all(j.explicit for j in jobs):
        options = replace(options, cache_docs=True)  # _restrict_to_named reads every launch's origins
    result = None
    if options.cache:
        from pdlint import cache
        try:
            result = cache.run(jobs, options, resolver, config, listings)
        except Exception as e:  # a damaged cache must not cost the run its findings
            if options.debug:
                raise
            resolver.warnings.append(f"the result cache failed ({type(e).__name__}: {e}); checked without it")
    if result is None:
        from pdlint import parallel
        if parallel.processes(options, len(jobs)) > 1:
            from pdlint import cache
            _, comps, sources = parallel.fresh(jobs, options, resolver)
            result = cache.merge(jobs, [], comps, sources, options, resolver, {})
        else:
            result = analyse(jobs, options, resolver)
    extra = [f for f in resolver.config_findings(jobs) if Config().with_overlay(options.selection).enabled(f.code)]
    if extra:
        result.findings = sorted(result.findings + extra, key=lambda f: f.sort_key())
    if not jobs:  # said as ruff does ("No Python files found under the given path(s)"); exit 0
        result.warnings.append(nothing_to_check(len(excluded)))
    _restrict_to_named(result, jobs)
    result.scope = ([j.display for j in jobs],
                    [a for a in (os.path.abspath(os.path.join(options.cwd, p)) for p in paths) if os.path.isdir(a)])
    if options.baseline is not None:  # the stage after suppressions (and after the cache: it is not cached)
        from pdlint import baseline
        result.findings, result.baseline = baseline.apply(result.findings, options.baseline, options.cwd,
                                                          *result.scope)
    return result


def _restrict_to_named(result: Result, jobs: list) -> None:
    """Files named on the command line (a pre-commit run) bring in the files whose launches read them
    and the sibling files their launches pair with (:func:`pdlint.discover.expand_units`): a commit that
    touches only a sourced library or a values file checks the launches that use it, one that touches a
    decode script checks it against its prefill.  Of those files' findings, report what involves a named file - a
    finding at a named file, or at (or related to) a line of a launch that reads a named file - and say how
    many others were left out: they are not the commit's doing (checking those files shows them)."""
    named = {j.display for j in jobs if j.explicit}
    if not named or len(named) == len(jobs):
        return
    result.named = frozenset(named)
    if result.docs is not None:
        launches = result.docs[0]
    elif not result.launches and result.findings:
        return  # (no launch kept: nothing to tell involved findings by; cannot happen with cache_docs set)
    else:
        from pdlint.report.jsonfmt import launch_dict
        launches = [launch_dict(l) for l in result.launches]
    touching: set = set()  # (path, line) of every token of a launch that reads a named file, and its line
    for d in launches:
        places = {(d["path"], d["line"])}
        for o in d.get("origins", ()):
            places.add((o["path"], o["line"]))
            places.update((h["path"], h["line"]) for h in o.get("via", ()))
        if any(p in named for p, _ in places):
            touching |= places

    def involved(f) -> bool:
        return f.path in named or (f.path, f.line) in touching or \
            any(r.path in named or (r.path, r.line) in touching for r in f.related)

    kept = [f for f in result.findings if involved(f)]
    left = len(result.findings) - len(kept)
    if left:
        result.left_out = frozenset(f.path for f in result.findings if not involved(f))
        result.findings = kept
        result.warnings.append(
            f"{left} finding{'s' if left != 1 else ''} in files checked because their launches read or pair "
            f"with a named file {'were' if left != 1 else 'was'} left out: "
            f"{'they involve' if left != 1 else 'it involves'} "
            f"none of the named files (check those files to see {'them' if left != 1 else 'it'})")


def analyse(jobs: list, options: Options, resolver: ConfigResolver, deps=None) -> Result:
    """The stages after discovery, on ``jobs``: extract, check, coverage, rule
    selection, suppressions.  ``deps`` (:class:`pdlint.cache.Deps`) records
    what each job read, for the result cache.  A stage that fails on one
    file's launches or findings is run again file by file, so only that file
    loses its results (a PD013 finding says so)."""
    from pdlint import coverage
    from pdlint.check import check
    from pdlint.extract import Extractor, isolate_per_file
    from pdlint.pairing import Paired

    def enabled_for(path: str):
        # the bound method itself (called once per rule and launch): a wrapper would cost a frame each time
        return resolver.for_display(path).enabled

    def stage(fn, per_file):
        try:
            return fn()
        except Exception:
            if options.debug:
                raise
        return per_file()

    with file_budget(options, resolver) as b:
        extraction = Extractor(options, resolver.for_file, deps).run(jobs)
        if b.over:  # a file over its budget in the extract stage: none of its launches is checked
            extraction.launches = [l for l in extraction.launches if l.path not in b.over]
        launches = extraction.launches
        failed: set = set()  # files the rules failed on (PD013)
        paired = Paired()  # the check stage's deployments, for the coverage stage
        from pdlint import suppress
        # the inline suppressions and rule selection as the check stage folds a rule's many findings (rw31/h P1)
        scope = suppress.Scope(extraction.sources, lambda path, code: resolver.for_display(path).enabled(code, path),
                               not options.ignore_noqa)
        with suppress.active(scope):
            findings = list(extraction.findings) + stage(
                lambda: check(launches, enabled_for, paired),
                lambda: isolate_per_file(launches, lambda g: check(g, enabled_for), "the rules", lambda l: l.path,
                                         failed))
        if failed:  # no rule checked their launches: coverage counts them as not checked, not as checked
            extraction.launches = launches = [l for l in extraction.launches if l.path not in failed]
    if b.over:
        extraction.launches = launches = [l for l in extraction.launches if l.path not in b.over]
        findings = [f for f in findings if f.path not in b.over] + \
            over_budget_findings(b, extraction.sources, extraction.reads, getattr(options, "boundary", None))
        for path in b.over:  # (its findings are dropped, not suppressed)
            scope.taken.pop(path, None)
        if deps is not None:
            deps.unstable |= {j.abspath for j in jobs if j.display in b.over}
    def shown(f) -> bool:
        return resolver.for_display(f.path).enabled(f.code, f.path)

    findings = _at_the_text(findings, extraction.sources)
    cov = stage(lambda: coverage.assess(jobs, extraction, findings, strict=options.strict, shown=shown, paired=paired),
                lambda: _coverage_per_file(jobs, extraction, findings, options.strict, shown))
    if b.over:
        budget_coverage(cov, b.over)
    disabled_files(cov, resolver)
    findings += cov.findings
    findings = [f for f in findings if shown(f)]
    suppressed = 0
    if not options.ignore_noqa:
        from pdlint import suppress

        def enabled(code, path):
            return resolver.for_display(path).enabled(code, path)

        counts = None if deps is None else deps.suppressed
        judged = _judged_paths(jobs, extraction.launches, findings)
        findings, suppressed = stage(
            lambda: suppress.apply(findings, extraction.sources, enabled, counts, judged, scope),
            lambda: _suppress_per_file(findings, extraction.sources, enabled, counts, scope))
    findings.sort(key=lambda f: f.sort_key())
    launches = sorted(extraction.launches, key=lambda l: (l.path, l.line, l.ordinal))
    return Result(findings, launches, extraction.files, extraction.sources,
                  resolver.warnings + release_notes(launches), cov, suppressed)


def disabled_files(cov, resolver) -> None:
    """A file whose launches no enabled rule judges (``ignore = ["ALL"]``, every prefix ignored, ``ALL`` in
    ``per-file-ignores``): its status is ``disabled``, with what disabled them, not ``checked`` - the summary
    said its launches were checked with nothing reported (rw28/h item 4)."""
    from pdlint.rules import launch_rule_codes
    codes = None
    for path, fc in cov.files.items():
        if not fc.launches or fc.status not in ("checked", "partial"):
            continue
        cfg = resolver.for_display(path)
        if cfg.error is not None:
            continue
        if codes is None:
            codes = launch_rule_codes()
        if any(cfg.enabled(c, path) for c in codes):
            continue
        own = replace(cfg, overlay=None, cli_ignores=None, _enabled={})
        name = display_path(cfg.path, resolver.cwd) if cfg.path else None
        if name and not any(own.enabled(c, path) for c in codes):
            by = name
        elif name:
            by = f"{name} with the command line's rule selection"
        else:
            by = "the command line's rule selection"
        fc.status, fc.disabled_by = "disabled", by


def _at_the_text(findings: list, sources: dict) -> list:
    """Findings (and their related places) about a whole launch point at its line, column 1: on an indented line
    (a command in a YAML block scalar, an `if` body) column 1 is blank, and the caret stood under nothing (field
    test rw27/a).  Such places move to the line's first character."""
    from pdlint.records import replace

    def first(path: str, line: int) -> int:
        src = sources.get(path)
        if src is None or line < 1 or line > src.line_count:
            return 1
        text = src.line_text(line)
        return len(text) - len(text.lstrip(" \t")) + 1 if text.strip() else 1

    out = []
    for f in findings:
        if f.column == 1 and f.end is None:
            col = first(f.path, f.line)
            if col != 1:
                f = replace(f, column=col)
        if any(r.column == 1 for r in f.related):
            rel = tuple(replace(r, column=first(r.path, r.line)) if r.column == 1 else r for r in f.related)
            if rel != f.related:
                f = replace(f, related=rel)
        out.append(f)
    return out


def _judged_paths(jobs: list, launches: list, findings: list):
    """``judged(path)``: the run checked that file's lines - a file it was asked to check, one a launch read
    tokens from (a values file, a partial, a `--config` file), or one with a finding.  (The launches' tokens
    are walked only when a file outside the jobs holds a directive.)"""
    known = {j.display for j in jobs} | {f.path for f in findings}
    read: Optional[set] = None

    def judged(path: str) -> bool:
        nonlocal read
        if path in known:
            return True
        if read is None:
            read = set()
            for l in launches:
                for t in list(l.command) + list(l.argv) + list(l.env.values()):
                    for p in getattr(t, "pieces", ()):
                        if p.src is not None:
                            read.add(p.src.path)
                            for hop in p.chain or ():
                                read.add(getattr(hop, "path", None))
        return path in read
    return judged


def nothing_to_check(excluded: int) -> str:
    why = f"{excluded} file{'s' if excluded != 1 else ''} excluded by `exclude`; " if excluded else ""
    return (f"No files to check under the given path(s) ({why}pdlint reads YAML, Jinja, shell scripts, "
            f"Makefiles, Justfiles, Dockerfiles and files named on the command line; documentation such as "
            f"Markdown is not read: named, its launch text is listed as not checked, PD020)")


def _coverage_per_file(jobs: list, extraction, findings: list, strict: bool, shown=None):
    """Coverage when assessing all files at once failed: the files it fails on
    are "error" (PD013), the others assessed together."""
    from pdlint import coverage
    from pdlint.extract import internal_error
    bad = {}
    for job in jobs:
        try:
            coverage.assess([job], extraction, findings, strict=strict, shown=shown)
        except Exception as e:
            bad[job.display] = internal_error(job.display, e, "the coverage accounting of this file")
    cov = coverage.assess([j for j in jobs if j.display not in bad], extraction, findings, strict=strict,
                          shown=shown)
    for path, f in bad.items():
        cov.files[path] = coverage.FileCoverage(path, "error", error=f"{f.code} {f.message}")
        cov.findings.append(f)
    return cov


def _suppress_per_file(findings: list, sources: dict, enabled, counts, scope=None) -> tuple:
    """Inline suppressions file by file: a file they fail on keeps all its findings (and gets PD013)."""
    from pdlint import suppress
    from pdlint.extract import internal_error
    by_path: dict = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    kept, total = [], 0
    for path in sorted(set(by_path) | set(sources)):
        group = by_path.get(path, [])
        try:
            left, n = suppress.apply(group, {path: sources[path]} if path in sources else {}, enabled, counts,
                                     scope=scope)
        except Exception as e:
            kept += group + [internal_error(path, e, "the inline suppressions of this file")]
            continue
        kept += left
        total += n
    return kept, total


def file_budget(options: Options, resolver: ConfigResolver):
    """The run's :class:`pdlint.budget.Budget`: the options' limits, lowered by each file's config."""
    from pdlint import budget

    def limits(path: str) -> tuple:
        cfg = resolver.for_display(path)
        return cfg.time_per_file, cfg.memory_per_file

    return budget.Budget(options.time_per_file, options.memory_per_file, limits, options.progress,
                         options.skip)


def over_budget_findings(b, sources: Optional[dict] = None, reads: Optional[dict] = None, boundary=None) -> list:
    """One PD008 finding per file over its budget, at its first line: a warning for a file that holds no launch
    text (:data:`pdlint.coverage.MARKER`) and reads none - no file its extraction read (``reads``:
    :attr:`pdlint.extract.Extraction.reads`) nor any it names in an include / import / ``source`` (a bounded textual
    search, :func:`names_launch_text`) holds any -, where the budget stopped a search that had found nothing (a
    1137-line evidence script of Tennsoku/k8s-llm-serving-public took 8 to 10 s and failed CI as an error whenever
    the runner was busy, field test rw25/a).  A template whose launch is in a template it includes, a script that
    sources its launch stays an error (rw31/h P5: an include fan-out took the budget and passed, exit 0)."""
    from pdlint import core_rules as C
    from pdlint.coverage import MARKER, has_launch_text
    from pdlint.model import WARNING, Finding
    rule = C.LIMIT
    out = []
    by_abspath = {s.abspath: s for s in (sources or {}).values() if getattr(s, "abspath", None)}
    for path, exc in sorted(b.over.items()):
        src = (sources or {}).get(path)
        # (a chart's or a kustomization's finding stands for the files it renders or builds: never downgraded)
        own = os.path.basename(path) not in ("Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization")
        if src is not None and own and exc.kind == "time" and not MARKER.search(src.text) \
                and not any(has_launch_text(by_abspath[a].text) for a in sorted((reads or {}).get(path, ()))
                            if a in by_abspath and a != src.abspath) \
                and not (boundary is not None and src.abspath and names_launch_text(src.abspath, src.text, boundary)):
            out.append(Finding(path, 1, 1, rule.code, rule.name, WARNING, None,
                               f"{exc.message}; it holds no launch text pdlint knows, nor do the files it includes "
                               f"or sources, so no launch it names went unchecked (one built from variables alone "
                               f"would have)",
                               fix="raise `--time-per-file` (or `time-per-file` in the config) to read it whole"))
        else:
            out.append(Finding(path, 1, 1, rule.code, rule.name, rule.severity, None, exc.message))
    return out


#: files (and bytes, path lookups) the textual search of :func:`names_launch_text` reads at most from one file over
#: its budget; beyond them it answers yes (not known: the PD008 stays an error)
MAX_NAMED_FILES = 64
MAX_NAMED_BYTES = 8_000_000
MAX_NAMED_LOOKUPS = 4096
#: a Jinja include / import / from / extends tag, a shell `source` or `.` command: the text naming the file
_NAMES_FILE = lazyre.compile(r"\{%[-+]?\s*(include|import|from|extends)\b([^%\n]{0,400})"
                             # (where a command starts, as pdlint.discover's _COMPUTED_INCLUDE: not "1. Check ..." in
                             # an echo's text)
                             r"|(?:^|[;&|({!]|\b(?:then|do|else|elif|if|while|until|time|builtin|command|exec))"
                             r"[ \t]*(?:source|\.)[ \t]+([^\n;&|#]{1,400})", re.M)
_PATH_WORD = lazyre.compile(r"(?:[\w.+@-]+/)*[\w.+@-]+")
#: a Jinja tag's name: one string literal, or a list / tuple of them (what the tag names, known without a render),
#: before the clauses that follow it
_JINJA_LITERAL = r"""(?:"[^"\\]*"|'[^'\\]*')"""
_JINJA_NAMES = lazyre.compile(rf"\s*(?:{_JINJA_LITERAL}|"
                              rf"[\[(]\s*{_JINJA_LITERAL}(?:\s*,\s*{_JINJA_LITERAL})*\s*,?\s*[\])])\s*")
_JINJA_CLAUSE = lazyre.compile(r"\s(?:ignore\s+missing|with\s+context|without\s+context|import|as)\b.*|[-+]\s*$",
                               re.S)
#: a shell `source` command's file word (its first word), and the prefixes naming a file outside the repository
_SHELL_WORD = lazyre.compile(r"""(?:"[^"]*"|'[^']*'|[^\s"'])+""")
_SHELL_HOME = lazyre.compile(r"""^["']?(?:~|\$HOME\b|\$\{HOME\})""")


def _named(kind: Optional[str], arg: str) -> Optional[tuple]:
    """What an include / import / extends / from tag (``kind``) or a `source` command (``kind`` None) names:
    ``(path words, whether one of them must name a file)``, or None when the name is computed - a Jinja
    expression that is not one string literal or a list of them (``"parts/" ~ role ~ ".txt"``, a variable,
    ``"%s" % x``), a shell word with an expansion, a command substitution or a glob (``"$DIR/x.sh"``): which
    file it names is not known without evaluating it (rw32/h P4).  A Jinja name that names no file is not known
    either (the render would read one pdlint cannot: the template is judged as if it held launch text), unless
    ``ignore missing``; a shell file outside the repository (an absolute path, ``~`` or ``$HOME``) is one pdlint
    reads in no run."""
    if kind is not None:
        name = _JINJA_CLAUSE.sub("", arg, count=1)
        if not _JINJA_NAMES.fullmatch(name):
            return None
        return _PATH_WORD.findall(name), not re.search(r"\signore\s+missing\b", arg)
    word = _SHELL_WORD.match(arg.strip())
    if word is None:
        return None
    text = _SHELL_HOME.sub("", word.group(0), count=1)
    if any(c in text for c in "$`*?[{"):
        return None
    return _PATH_WORD.findall(text), False


def names_launch_text(abspath: str, text: str, boundary) -> bool:
    """Does a file that ``text`` (the file at ``abspath``) includes, imports, extends or sources - or one those
    name, and so on - hold launch text?  A textual search, never an evaluation: every path-like word of such a
    tag or command (``{% include 'parts/launch.j2' %}``, ``source "$(dirname "$0")/lib/launch.sh"``) that names a
    regular file of the repository beside the naming file or beside ``abspath`` (its last parts too: the
    expansion before them is not known).  A named file too large to read, a search beyond its bounds
    (:data:`MAX_NAMED_FILES`, :data:`MAX_NAMED_BYTES`, :data:`MAX_NAMED_LOOKUPS`), or a name the search cannot
    know without evaluating it (:func:`_named`: ``{% include "parts/" ~ role ~ ".txt" %}``, ``source "$DIR/x.sh"``,
    a template name naming no file) counts as launch text: not known to hold none."""
    from pdlint.coverage import has_launch_text
    from pdlint.safeio import BIG, MAX_FILE_BYTES, Refused, decode
    top = os.path.dirname(abspath)
    seen = {os.path.realpath(abspath)}
    todo = [(abspath, text)]
    spent = 0
    tried: set = set()  # the paths looked up
    files: set = set()  # those that are files
    while todo:
        path, body = todo.pop(0)
        here = os.path.dirname(path)
        for m in _NAMES_FILE.finditer(body):
            what = _named(m.group(1), m.group(2)) if m.group(1) else _named(None, m.group(3))
            if what is None:
                return True  # (a computed name: not known to name no launch text)
            words, must_resolve = what
            found = False  # (a list of templates: the render reads the first that exists)
            for word in words:
                parts = [p for p in word.split("/") if p not in ("", ".")]
                for tail in ("/".join(parts[i:]) for i in range(len(parts))):
                    for base in dict.fromkeys((here, top)):
                        cand = os.path.join(base, tail)
                        if cand in tried:
                            found = found or cand in files
                            continue
                        tried.add(cand)
                        if len(tried) > MAX_NAMED_LOOKUPS:
                            return True
                        real = os.path.realpath(cand)
                        if not os.path.isfile(cand):
                            continue
                        found = True
                        files.add(cand)
                        if real in seen:
                            continue
                        seen.add(real)
                        if len(seen) > MAX_NAMED_FILES + 1:
                            return True
                        try:
                            data = boundary.read(cand, limit=min(MAX_FILE_BYTES, MAX_NAMED_BYTES - spent))
                        except Refused as r:
                            if r.kind == BIG:
                                return True
                            continue  # (outside the repository, not a regular file: nothing pdlint reads)
                        spent += len(data)
                        named = decode(data)[0]
                        if named is None:
                            continue
                        if has_launch_text(named):
                            return True
                        todo.append((cand, named))
            if must_resolve and not found:
                return True  # (a template the render would look for and not find: not known)
    return False


def budget_coverage(cov, over: dict) -> None:
    """Files over their budget were not checked: status error, no launch, no finding but the PD008."""
    for path in over:
        fc = cov.files.get(path)
        if fc is None:
            continue
        fc.status, fc.launches = "error", 0
        fc.error = f"PD008 {over[path].message}"
    cov.findings = [f for f in cov.findings if f.path not in over]


def release_notes(launches: list) -> list:
    """A release with no table of its own (judged against the nearest older one) is said once per run."""
    notes = {getattr(l.parsed, "version_note", None) for l in launches}
    return sorted(n for n in notes if n)
