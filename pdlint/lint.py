"""The pipeline: discover -> render/extract -> check -> (report, by the CLI)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from pdlint.config import Config, ConfigError, has_pdlint_table, load_config_file
from pdlint.discover import discover, display_path, expand_units, repo_root
from pdlint.options import Options


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


class ConfigResolver:
    """The config that applies to a path: ``--config FILE`` if given, else the
    nearest ``.pdlint.yaml`` / ``pyproject.toml`` with ``[tool.pdlint]`` walking
    up from the file, stopping at its repository root."""

    def __init__(self, cwd: str, explicit: Optional[str] = None, overlay=None):
        self.cwd = cwd
        self.overlay = overlay  # the command line's rule selection (config.Selection), over every config
        self.explicit = None
        self.by_dir: dict = {}
        self.roots: dict = {}
        self.warnings: list = []
        if explicit:
            path = os.path.abspath(os.path.join(cwd, explicit))
            if not os.path.isfile(path):
                raise ConfigError(f"{explicit}: config file not found")
            self.explicit = load_config_file(path, display_path(path, cwd))
            self.warnings += self.explicit.warnings
            self.explicit = self.explicit.with_overlay(overlay)

    def for_file(self, abspath: str) -> Config:
        if self.explicit is not None:
            return self.explicit
        d = os.path.dirname(os.path.abspath(abspath))
        cached = self.by_dir.get(d)
        if cached is not None:  # asked once per launch and finding: skip the stat calls
            return cached
        root = repo_root(abspath, self.roots) or self.cwd
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
                cfg = Config().with_overlay(self.overlay)
                break
            d = parent
        for c in chain:
            self.by_dir[c] = cfg
        return cfg

    def _config_in(self, d: str) -> Optional[Config]:
        dotfile = os.path.join(d, ".pdlint.yaml")
        if os.path.isfile(dotfile):
            cfg = load_config_file(dotfile, display_path(dotfile, self.cwd))
            self.warnings += cfg.warnings
            return cfg.with_overlay(self.overlay)
        pyproject = os.path.join(d, "pyproject.toml")
        if os.path.isfile(pyproject) and has_pdlint_table(pyproject):
            cfg = load_config_file(pyproject, display_path(pyproject, self.cwd))
            self.warnings += cfg.warnings
            return cfg.with_overlay(self.overlay)
        return None

    def excluded(self, abspath: str) -> bool:
        return self.for_file(abspath).excluded(abspath)

    def force_exclude(self, flag: Optional[bool]):
        """Does ``exclude`` apply to a file named on the command line?  The
        flag (``--force-exclude`` / ``--no-force-exclude``) wins, else the
        file's config (``force-exclude``), else no."""
        if flag is not None:
            return lambda abspath: flag
        return lambda abspath: bool(self.for_file(abspath).force_exclude)

    def for_display(self, path: str) -> Config:
        return self.for_file(os.path.join(self.cwd, path))


def run(paths: list, options: Options, config: Optional[str] = None) -> Result:
    resolver = ConfigResolver(options.cwd, config, options.selection)
    listings: dict = {}  # repository root -> its files (git ls-files), listed once per run
    excluded: set = set()

    def excluding(abspath: str) -> bool:
        if resolver.excluded(abspath):
            excluded.add(abspath)
            return True
        return False

    jobs, missing = discover(paths, options.cwd, excluding, resolver.force_exclude(options.force_exclude),
                             listings=listings)
    if missing:
        raise UsageError("no such file or directory: " + ", ".join(missing))
    jobs = expand_units(jobs, options.cwd, resolver.excluded, resolver, listings=listings)
    if options.cache:
        from pdlint import cache
        result = cache.run(jobs, options, resolver, config, listings)
    else:
        result = analyse(jobs, options, resolver)
    if not jobs:  # said as ruff does ("No Python files found under the given path(s)"); exit 0
        result.warnings.append(nothing_to_check(len(excluded)))
    result.scope = ([j.display for j in jobs],
                    [a for a in (os.path.abspath(os.path.join(options.cwd, p)) for p in paths) if os.path.isdir(a)])
    if options.baseline is not None:  # the stage after suppressions (and after the cache: it is not cached)
        from pdlint import baseline
        result.findings, result.baseline = baseline.apply(result.findings, options.baseline, options.cwd,
                                                          *result.scope)
    return result


def analyse(jobs: list, options: Options, resolver: ConfigResolver, deps=None) -> Result:
    """The stages after discovery, on ``jobs``: extract, check, coverage, rule
    selection, suppressions.  ``deps`` (:class:`pdlint.cache.Deps`) records
    what each job read, for the result cache."""
    from pdlint import coverage
    from pdlint.check import check
    from pdlint.extract import Extractor
    extraction = Extractor(options, resolver.for_file, deps).run(jobs)

    def enabled_for(path: str):
        cfg = resolver.for_display(path)
        return lambda code: cfg.enabled(code)

    findings = list(extraction.findings) + check(extraction.launches, enabled_for)
    cov = coverage.assess(jobs, extraction, findings, strict=options.strict)
    findings += cov.findings
    findings = [f for f in findings if resolver.for_display(f.path).enabled(f.code, f.path)]
    suppressed = 0
    if not options.ignore_noqa:
        from pdlint import suppress
        findings, suppressed = suppress.apply(findings, extraction.sources,
                                              lambda code, path: resolver.for_display(path).enabled(code, path),
                                              None if deps is None else deps.suppressed)
    findings.sort(key=lambda f: f.sort_key())
    launches = sorted(extraction.launches, key=lambda l: (l.path, l.line, l.ordinal))
    return Result(findings, launches, extraction.files, extraction.sources,
                  resolver.warnings + release_notes(launches), cov, suppressed)


def nothing_to_check(excluded: int) -> str:
    why = f"{excluded} file{'s' if excluded != 1 else ''} excluded by `exclude`; " if excluded else ""
    return (f"No files to check under the given path(s) ({why}pdlint reads YAML, Jinja, shell scripts, "
            f"Justfiles and files named on the command line)")


def release_notes(launches: list) -> list:
    """A release with no table of its own (judged against the nearest older one) is said once per run."""
    notes = {getattr(l.parsed, "version_note", None) for l in launches}
    return sorted(n for n in notes if n)
