"""Command line: ``pdlint [check] [PATH ...]``, ``pdlint show PATH``,
``pdlint rule CODE``, ``pdlint rules``.

``main(argv) -> int`` (pre-commit-hooks style: no global state; tests call it).
Exit codes: 0 no error findings, 1 error findings (or warnings with
``--strict``), 2 usage, configuration or internal error.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Optional, Sequence

from pdlint import __version__

SUBCOMMANDS = ("check", "show", "rule", "rules")


def _common(p: argparse.ArgumentParser, formats: tuple = ("text", "json")) -> None:
    p.add_argument("--var", action="append", default=[], metavar="KEY=VALUE",
                   help="template variable for every render (wins over config and values files)")
    p.add_argument("--role-var", metavar="NAME", help="the template variable that holds the role")
    p.add_argument("--config", metavar="FILE", help="use this config file instead of discovering one")
    p.add_argument("--sglang-version", metavar="VERSION", help="SGLang release to judge against")
    p.add_argument("--vllm-version", metavar="VERSION", help="vLLM release to judge vLLM launches against")
    p.add_argument("--format", choices=formats, default="text",
                   help="output format" + (" (github: Actions annotations; sarif: SARIF 2.1.0 for code scanning; "
                                           "gitlab: a GitLab Code Quality report; junit: JUnit XML)"
                                           if "sarif" in formats else ""))
    p.add_argument("--debug", action="store_true",
                   help="show tracebacks of internal errors (and scan in-process, without the worker process)")
    p.add_argument("--time-per-file", type=_limit("--time-per-file", "seconds", "TIME_CAP"), metavar="SECONDS",
                   help="wall-clock budget of one file's work, all stages (default 10; a config may lower it)")
    p.add_argument("--memory-per-file", type=_limit("--memory-per-file", "MB", "MEMORY_CAP"), metavar="MB",
                   help="memory one file's work may add (default 512; a config may lower it)")
    p.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")


def _limit(flag: str, unit: str, cap: str):
    def parse(text: str) -> float:
        from pdlint import budget
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        try:
            return budget.check_limit(value, flag, unit, getattr(budget, cap))
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    return parse


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected 0 (automatic) or more processes, got {n}")
    return n


def _selection_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("rule selection (as in ruff; applied after the config file's)")
    g.add_argument("--select", action="append", metavar="CODES",
                   help="comma-separated codes or prefixes to enable; replaces the default set (ALL: every rule)")
    g.add_argument("--extend-select", action="append", metavar="CODES",
                   help="codes or prefixes to enable in addition (e.g. an off-by-default rule)")
    g.add_argument("--ignore", action="append", metavar="CODES", help="codes or prefixes to disable")
    g.add_argument("--per-file-ignores", action="append", metavar="GLOB:CODES",
                   help="codes or prefixes to disable in files whose reported path matches GLOB; replaces the "
                        "config's per-file-ignores (repeat for more globs)")
    g.add_argument("--extend-per-file-ignores", action="append", metavar="GLOB:CODES",
                   help="like --per-file-ignores, in addition to the config's")


def _force_exclude(p: argparse.ArgumentParser) -> None:
    p.add_argument("--exclude", action="append", metavar="GLOBS",
                   help="comma-separated globs (relative to the current directory) of files and directories not "
                        "to scan; replaces the config's exclude")
    p.add_argument("--extend-exclude", action="append", metavar="GLOBS",
                   help="like --exclude, in addition to the config's exclude")
    p.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                   help="apply `exclude` to files named on the command line too (the pre-commit hook does; "
                        "default: the config's force-exclude, else off)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pdlint",
        description="Lint prefill/decode (PD-disaggregated) LLM-serving launch templates per role.",
        epilog="Subcommands: check (default), show PATH, rule CODE, rules. Exit: 0 clean, 1 findings, 2 error.")
    p.add_argument("--version", action="version", version=f"pdlint {__version__}")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="check files and directories (default)")
    c.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    _common(c, ("text", "json", "github", "sarif", "gitlab", "junit"))
    c.add_argument("--strict", action="store_true", help="warnings fail the run too")
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    c.add_argument("--no-hints", action="store_true", help="do not print fix hints")
    c.add_argument("--ignore-noqa", action="store_true",
                   help="disable every inline suppression (# pdlint: ignore[...], # noqa: ..., skip-file)")
    c.add_argument("--no-cache", action="store_true",
                   help="do not read or write the result cache (.pdlint_cache/, or PDLINT_CACHE_DIR)")
    c.add_argument("--jobs", "-j", type=_jobs, default=0, metavar="N",
                   help="analyse the files in N processes (default 0: one per available CPU for a run of many "
                        "files, else one; 1: one process)")
    c.add_argument("--baseline", metavar="FILE",
                   help="report only the findings FILE does not hold (exit code from those alone); "
                        "say which of its entries are stale")
    c.add_argument("--write-baseline", metavar="FILE",
                   help="write the run's findings to FILE as a baseline (exit 0) instead of reporting them")
    c.add_argument("--statistics", action="store_true",
                   help="print the number of findings per rule instead of the findings (as text, or JSON with "
                        "--format json)")
    c.add_argument("--quiet", "-q", action="store_true",
                   help="print the findings and nothing else (no summary, no warnings)")
    _selection_options(c)
    _force_exclude(c)
    c.add_argument("--fix", action="store_true",
                   help="apply the safe fixes (files are written; each fix is proven by re-checking)")
    c.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff instead of writing them (exit 1 if there are any)")
    c.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: apply the unsafe fixes too")
    c.add_argument("--exit-non-zero-on-fix", action="store_true",
                   help="with --fix: exit 1 when files were fixed, even if no finding remains")
    s = sub.add_parser("show", help="print every launch found, per role, with each token's origin")
    s.add_argument("paths", nargs="+", metavar="PATH")
    s.add_argument("--role", choices=("prefill", "decode", "null"), help="only launches of this role")
    _force_exclude(s)
    _common(s)
    _selection_options(s)
    r = sub.add_parser("rule", help="print one rule's documentation")
    r.add_argument("code", metavar="CODE", help="rule code or name, e.g. SGL101")
    rs = sub.add_parser("rules", help="list every rule")
    rs.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    return p


def main(argv: Optional[Sequence[str]] = None, held: Optional[list] = None) -> int:
    """``held``: a list the scan's result is appended to, so that it is not freed when the scan returns (for a
    process that ends right after: :func:`main_and_exit`; a worker process always does)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["check"] + args_list
    if args_list[0] in ("check", "show"):
        args_list[1:] = _paths_named_like_options(args_list[1:])
    parser = build_parser()
    try:
        ns = parser.parse_args(args_list)
    except SystemExit as e:
        return 2 if e.code not in (0, None) else 0
    except BrokenPipeError:  # `pdlint --help | head -1`
        _stdout_gone()
        return 0
    if ns.command in ("check", "show") and not ns.debug:
        from pdlint import worker
        if worker.available():  # layer 3 of the resource budget (docs/safety.md)
            try:
                # the worker ends with os._exit: what its scan made is held to the end, not freed object by object
                kept = [] if held is None else held
                return worker.run(lambda progress, skip: _command(ns, progress, skip, kept),
                                  ns.memory_per_file or 0.0)
            except KeyboardInterrupt:  # pragma: no cover
                return 130
            except BrokenPipeError:
                _stdout_gone()
                return 0
    return _command(ns, held=held)


def main_and_exit() -> None:  # pragma: no cover - ends the process
    """``python -m pdlint``: :func:`main`, then the process ends without freeing the scan's objects one by one (a
    1000-file scan leaves a heap whose teardown took about 2% of the run), once its output is flushed.  Should a
    flush fail, the interpreter's usual exit reports it."""
    held: list = []
    code = main(held=held)
    try:
        for s in (sys.stdout, sys.stderr):
            if s is not None:
                s.flush()
    except BaseException:  # noqa: B036 - the interpreter's exit handles (and reports) it as before
        raise SystemExit(code) from None
    os._exit(code)


def _paths_named_like_options(words: list) -> list:
    """A word that starts with ``-`` and names a file or directory that exists is that path, not an option.

    pre-commit appends the staged file names to the hook's ``entry`` without a ``--``: a pull request that adds a
    file named ``--extend-exclude=*,x.yaml`` (``--output-file=victim.yaml``, ``--write-baseline=b.json``) turned
    every file off, overwrote a committed file or wrote a new one, and the run passed (hostile-input round rw28/h
    item 1).  Such a word is given to the parser as ``./NAME``; words after a ``--`` are paths already.  A ``--``
    while a file of that name exists ends the options and is that file too: pre-commit appends a staged file named
    ``--`` like any other, and the parser took it for the end of the options and checked neither it nor, when it
    was the only one, the named files but the whole directory (hostile-input round rw29/h P1)."""
    out = []
    for i, w in enumerate(words):
        if w == "--":
            return out + ["--"] + (["./--"] if os.path.lexists("--") else []) + words[i + 1:]
        if w.startswith("-") and w != "-" and os.path.lexists(w):
            w = os.path.join(os.curdir, w)
        out.append(w)
    return out


def _command(ns, progress=None, skip=None, held=None) -> int:
    """Run the parsed command; errors become messages and exit code 2."""
    try:
        if ns.command == "rule":
            return _rule(ns.code)
        if ns.command == "rules":
            return _rules(ns.format)
        return _scan(ns, progress, skip, held)
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except BrokenPipeError:  # a write that _emit did not guard: end quietly all the same
        _stdout_gone()
        return 0
    except Exception as e:  # internal error: a message, not a traceback (unless --debug)
        from pdlint.config import ConfigError
        from pdlint.lint import UsageError
        if getattr(ns, "debug", False):
            raise
        from pdlint.report.escape import text as esc
        if isinstance(e, (ConfigError, UsageError)):
            sys.stderr.write(f"pdlint: error: {esc(e)}\n")
        else:
            sys.stderr.write(f"pdlint: internal error: {type(e).__name__}: {esc(e)} (run with --debug for details)\n")
        return 2


def _emit(text: str, output_file: Optional[str] = None) -> None:
    """Write output to stdout (or ``--output-file``).  A reader that went away
    (``pdlint rules | head -1``) ends the output quietly: the command still
    returns its own exit code."""
    if output_file:
        try:
            with open(output_file, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            from pdlint.lint import UsageError
            raise UsageError(f"cannot write {output_file}: {e.strerror or e}") from None
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_gone()
    except OSError as e:  # a full disk (`>/dev/full`): the report is lost, so the run cannot say it passed
        _stdout_gone()
        from pdlint.lint import UsageError
        raise UsageError(f"cannot write the report to standard output: {e.strerror or e}") from None


def _esc(text: str) -> str:
    from pdlint.report.escape import text as esc
    return esc(text)


def _stdout_gone() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush does
    not print "Exception ignored ... BrokenPipeError" (Python's documented recipe)."""
    from pdlint.worker import to_devnull
    to_devnull(sys.stdout)


def _selection(ns):
    from pdlint.config import Selection, parse_selectors, unknown_selectors
    from pdlint.lint import UsageError
    sel = Selection(parse_selectors(ns.select) if ns.select else None, parse_selectors(ns.extend_select),
                    parse_selectors(ns.ignore))
    bad = unknown_selectors(sel.selectors()) if sel.selectors() else []
    if bad:
        raise UsageError(f"unknown rule selector{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} "
                         "(codes or prefixes from `pdlint rules`, or ALL)")
    return sel if sel else None


def _globs(values) -> list:
    """``--exclude 'a/**,b' --exclude c`` -> ``["a/**", "b", "c"]``, each as :func:`_cli_glob` writes it."""
    return [_cli_glob(g.strip()) for v in values or () for g in v.split(",") if g.strip()]


def _cli_glob(glob: str) -> str:
    """A command-line path glob as the paths it is matched with are written (relative to the working directory,
    '/'-separated): `./legacy/*` and an absolute `$PWD/legacy/*` are `legacy/*`, as ruff reads them (field test
    rw21/h: they matched nothing, without a word)."""
    if os.path.isabs(glob):
        rel = os.path.relpath(glob, os.getcwd())
        if not rel.startswith(".."):
            glob = rel.replace(os.sep, "/")
    while glob.startswith("./"):
        glob = glob[2:]
    return glob


def _per_file_ignores(values) -> Optional[dict]:
    """``--per-file-ignores 'legacy/*:SGL1,PD020'`` (repeatable) -> ``{"legacy/*": ["SGL1", "PD020"]}``;
    None when not given."""
    if values is None:
        return None
    from pdlint.config import parse_selectors, unknown_selectors
    from pdlint.lint import UsageError
    out: dict = {}
    for v in values:
        glob, sep, codes = v.rpartition(":")
        selectors = parse_selectors([codes])
        if not sep or not glob.strip() or not selectors:
            raise UsageError(f"--per-file-ignores: expected GLOB:CODES (e.g. 'legacy/*:SGL1,PD020'), got {v!r}")
        bad = unknown_selectors(selectors)
        if bad:
            raise UsageError(f"--per-file-ignores: unknown rule selector{'s' if len(bad) > 1 else ''} "
                             f"{', '.join(map(repr, bad))} (codes or prefixes from `pdlint rules`)")
        out.setdefault(_cli_glob(glob.strip()), []).extend(selectors)
    return out


def _variables(pairs: list) -> dict:
    out = {}
    for p in pairs:
        if "=" not in p:
            from pdlint.lint import UsageError
            raise UsageError(f"--var expects KEY=VALUE, got {p!r}")
        k, v = p.split("=", 1)
        out[k.strip()] = v
    return out


def _fewer_gc_passes() -> tuple:
    """Raise the first-generation GC threshold for the scan; returns the old
    thresholds for the caller to restore.

    A scan builds hundreds of thousands of small objects that all live until
    the report (traced strings, their pieces, parsed launches), so CPython's
    default threshold (700 allocations) triggers full collections that walk
    that whole heap and find almost nothing: about 11% of a 1000-file scan
    (bench/README.md).  At 1,000,000 a 1000-file scan makes no pass at all
    (a pass over 100,000 young objects costs about 20 ms; it made 7); cycles
    are still collected (every template leaves about 37 KB of cyclic garbage,
    Jinja's environment and filter cycles), at most a million objects apart:
    a template-heavy monorepo keeps its memory bounded.
    """
    old = gc.get_threshold()
    gc.set_threshold(1_000_000, 50, 100)
    return old


def _scan(ns, progress=None, skip=None, held=None) -> int:
    # raised until the report is written: restored before it, the next collections walked the whole
    # heap the scan left (its launches live until the report), a tenth of a one-changed-file run
    old_threshold = _fewer_gc_passes()
    try:
        return _scan_and_report(ns, progress, skip, held)
    finally:
        if progress is None:  # in the worker (pdlint.worker) the process ends here: no pass over what it leaves
            gc.set_threshold(*old_threshold)


def _scan_and_report(ns, progress=None, skip=None, held=None) -> int:
    from pdlint.options import Options
    from pdlint.lint import UsageError, run
    if getattr(ns, "statistics", False) and ns.format not in ("text", "json"):
        # (statistics are no findings: a SARIF upload or annotations step given text fails later, field test
        # rw19/c; the action's `args` could add --statistics to its --format sarif)
        raise UsageError(f"--statistics prints text or JSON, not --format {ns.format}")
    if ns.sglang_version is not None:
        from pdlint.engines.sglang.flags import UnknownRelease, check_release
        try:
            check_release(ns.sglang_version)
        except UnknownRelease as e:
            raise UsageError(f"--sglang-version: {e}") from None
    if getattr(ns, "vllm_version", None) is not None:
        from pdlint.engines.vllm.flags import UnknownRelease as UnknownVllm, check_release as check_vllm
        try:
            check_vllm(ns.vllm_version)
        except UnknownVllm as e:
            raise UsageError(f"--vllm-version: {e}") from None
    cwd = os.getcwd()
    opts = Options(cwd=cwd, variables=_variables(ns.var), role_var=ns.role_var,
                   engine_version=ns.sglang_version, vllm_version=getattr(ns, "vllm_version", None),
                   selection=_selection(ns),
                   exclude=tuple(_globs(ns.exclude)) if ns.exclude is not None else None,
                   extend_exclude=tuple(_globs(ns.extend_exclude)),
                   per_file_ignores=_per_file_ignores(ns.per_file_ignores),
                   extend_per_file_ignores=_per_file_ignores(ns.extend_per_file_ignores) or {},
                   strict=bool(getattr(ns, "strict", False)), force_exclude=ns.force_exclude,
                   ignore_noqa=getattr(ns, "ignore_noqa", False), debug=bool(getattr(ns, "debug", False)),
                   progress=progress, skip=dict(skip or {}))
    if ns.time_per_file:
        opts.time_per_file = ns.time_per_file
    if ns.memory_per_file:
        opts.memory_per_file = ns.memory_per_file
    fixing = ns.command == "check" and (ns.fix or ns.diff)
    writing = getattr(ns, "write_baseline", None)
    if writing and fixing:
        raise UsageError("--write-baseline cannot be combined with --fix or --diff")
    if getattr(ns, "baseline", None) and not writing:
        from pdlint import baseline
        try:
            opts.baseline = baseline.load(ns.baseline, cwd)
        except baseline.BaselineError as e:
            raise UsageError(str(e)) from None
    # the result cache: for check runs (show prints every token; --fix re-checks edited text)
    opts.cache = ns.command == "check" and not fixing and not ns.no_cache
    opts.cache_docs = ns.command == "check" and ns.format == "json" and not ns.statistics
    opts.jobs = 1 if fixing or ns.command != "check" else getattr(ns, "jobs", 0) or 0  # show, --fix: every launch
    state = None
    if fixing:
        from pdlint import fix
        state = fix.run(list(ns.paths) or ["."], opts, ns.config, _selected, ns.unsafe_fixes)
        result = state.result
    else:
        result = run(list(ns.paths) or ["."], opts, ns.config)
    if held is not None:
        held.append(result)
    quiet = getattr(ns, "quiet", False)
    if not quiet:
        from pdlint.report.escape import text as esc
        for w in result.warnings + (result.baseline.warnings() if result.baseline is not None else []):
            sys.stderr.write(f"pdlint: warning: {esc(w)}\n")
    if writing:
        return _write_baseline(ns, result, cwd)
    if ns.command == "show":
        return _show(ns, result)
    if fixing and ns.diff:
        return _diff(ns, state)
    if state is not None:
        result.findings = state.findings
    status = _status(ns, result.findings)
    if ns.statistics:
        from pdlint.report import stats
        _emit(stats.render(result.findings, ns.format), ns.output_file)
    elif ns.format == "json":
        from pdlint.report import jsonfmt
        _emit(jsonfmt.render(result.findings, result.launches, result.files, result.coverage, result.docs,
                             result.baseline), ns.output_file)
    elif ns.format == "sarif":
        from pdlint.report import repository_paths, sarif
        _emit(sarif.render(*repository_paths(result.findings, opts.cwd)), ns.output_file)
    elif ns.format == "github":
        from pdlint.report import github, repository_paths
        _emit(github.render(repository_paths(result.findings, opts.cwd)[0]), ns.output_file)
    elif ns.format == "gitlab":
        from pdlint.report import gitlab, repository_paths
        _emit(gitlab.render(*repository_paths(result.findings, opts.cwd)), ns.output_file)
    elif ns.format == "junit":
        from pdlint.report import junit
        _emit(junit.render(result.findings), ns.output_file)
    else:
        from pdlint.report import text
        report = text.render(result.findings, result.sources, result.files,
                             color=not ns.output_file and text.use_color(sys.stdout), show_fix=not ns.no_hints,
                             summary=not quiet, coverage=result.coverage, left_out=result.left_out,
                             named=result.named)
        if result.baseline is not None and not quiet:
            report += _baseline_line(result.baseline)
        _emit(report, ns.output_file)
    if state is not None:
        written, unwritten = _write_fixes(ns, state, opts.cwd)
        if not ns.exit_zero and (unwritten or (written and ns.exit_non_zero_on_fix)):
            return 1
    return status


def _baseline_line(outcome) -> str:
    stale = sum(n for _, n in outcome.stale)
    return (f"{_plural(outcome.baselined, 'finding')} in the baseline ({outcome.file}) not reported"
            + (f"; {_plural(stale, 'stale entry', 'stale entries')}" if stale else "") + ".\n")


def _write_baseline(ns, result, cwd: str) -> int:
    """--write-baseline FILE: the run's findings become the baseline; exit 0 (as ruff's --add-noqa)."""
    from pdlint import baseline
    from pdlint.lint import UsageError
    try:
        entries, kept = baseline.write(ns.write_baseline, result.findings, cwd, *result.scope)
    except baseline.BaselineError as e:
        raise UsageError(str(e)) from None
    if not ns.quiet:
        more = f"; {kept} kept for files this run did not check" if kept else ""
        sys.stderr.write(f"Wrote {_plural(len(result.findings), 'finding')} to {ns.write_baseline} "
                         f"({_plural(entries, 'entry', 'entries')}{more}).\n")
    return 0


def _status(ns, findings: list) -> int:
    if ns.exit_zero:
        return 0
    errors = any(f.severity == "error" for f in findings)
    warnings = any(f.severity == "warning" for f in findings)
    return 1 if errors or (ns.strict and warnings) else 0


def _selected(result) -> list:
    """The findings the run reports (and --fix may fix)."""
    return result.findings


def _plural(n: int, word: str, plural: Optional[str] = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _diff(ns, state) -> int:
    """--diff: the fixes as a unified diff (stdout or --output-file), a summary on stderr; exit 1 if any."""
    from pdlint import fix
    _emit(fix.diff(state), ns.output_file)
    if not ns.quiet:
        for p in state.problems:
            sys.stderr.write(f"pdlint: warning: {_esc(p)}\n")
        n, left = len(state.applied), len(state.findings)
        extra = f"; {state.unsafe_left} more with --unsafe-fixes" if state.unsafe_left else ""
        if n:
            sys.stderr.write(f"Would fix {_plural(n, 'finding')} ({left} remaining{extra}).\n")
        else:
            sys.stderr.write(f"No fixes available ({_plural(left, 'finding')}{extra}).\n")
    return 1 if state.changed else 0


def _write_fixes(ns, state, cwd: str) -> tuple:
    """Write the fixed files and say what was fixed (stdout after a text report, stderr otherwise);
    returns (files written, fixes not written)."""
    from pdlint import fix
    written = fix.write(state, cwd)
    n = sum(1 for _, fx in state.applied if all(e.path in written for e in fx.edits))
    if not ns.quiet:
        for p in state.problems:
            sys.stderr.write(f"pdlint: warning: {_esc(p)}\n")
        left = len(state.findings) + (len(state.applied) - n)
        extra = f"; {state.unsafe_left} more fixable with --unsafe-fixes" if state.unsafe_left else ""
        line = f"Fixed {_plural(n, 'finding')} ({left} remaining{extra}).\n"
        (sys.stdout if ns.format == "text" or ns.output_file else sys.stderr).write(line)
    return len(written), len(state.applied) - n


_CONSUMED = {"--config merge": "read by the --config merge", "--config": "the --config file pdlint did not read"}


def _consumed_note(consumed: str) -> str:
    """How ``pdlint show`` marks a token the server's parser does not see (:func:`pdlint.check.written_tokens`)."""
    if consumed in ("launcher", "wrapper") or consumed.startswith("not "):
        return consumed
    if consumed in _CONSUMED:
        return _CONSUMED[consumed]
    if consumed.endswith(" rewrite"):
        return f"rewritten by {consumed[:-len(' rewrite')]}"
    return f"consumed by {consumed}"


def _unpaired_lines(deps: list, shown: set) -> list:
    """``pdlint show``'s lines for the servers :func:`pdlint.pairing.unpaired` finds (the summary counts them)."""
    from pdlint.coverage import checked
    from pdlint.pairing import pair_role, refused_build, unique_servers, unpaired
    other = {"prefill": "decode", "decode": "prefill"}
    return [f"  {pair_role(l)} {_at(l)} [{l.engine}]: " + (
        "kustomize refuses its build (PD106)" if refused_build(l) else
        f"no {other[pair_role(l)]} server of this engine in its deployment")
        for l in unique_servers(unpaired(deps)) if id(l) in shown and checked(l)]


def _show(ns, result) -> int:
    from pdlint.pairing import as_dicts, pair_launches_isolated as pair_launches, unique_servers
    launches = [l for l in result.launches if ns.role is None or l.role == ns.role]
    deps = pair_launches(result.launches)
    if ns.format == "json":
        import json
        from pdlint.report.jsonfmt import launch_dict
        doc = {"version": 1, "files": result.files, "launches": [launch_dict(l, written=True) for l in launches],
               "pairs": as_dicts(deps, launches)}
        if result.coverage is not None:
            doc["coverage"] = result.coverage.as_dict()
        from pdlint.report import escape
        _emit(escape.json_text(json.dumps(escape.json_doc(doc), indent=2)) + "\n", ns.output_file)
        return 0
    from pdlint.report import role_label
    from pdlint.report.escape import lines as safe_lines, path as P, text as E  # repository text, escaped
    out = []
    for l in launches:
        role = role_label(l.role) if l.role is not None else ("router" if l.kind == "router" else "unknown role")
        info = l.parsed
        eng = {"sglang": "SGLang", "vllm": "vLLM"}.get(l.engine, l.engine)
        ver = f" [{eng} {info.version}]" if info is not None and getattr(info, "version", None) else ""
        if info is not None and getattr(info, "version_note", None):
            ver += f" ({info.version_note})"
        out.append(f"{P(l.path)}:{l.line}: {E(role)} {l.engine} {l.kind}: {E(l.entrypoint)}{E(ver)}")
        if l.context:
            out.append(f"  context: {E(l.context)}")
        if l.structural_role or l.meta.get("group_role"):
            where = ""
            if l.structural_origin is not None:
                o = l.structural_origin
                where = f" (named at {P(o.path)}:{o.line}:{o.column})"
            group = f", {E(l.meta['group_role'])}" if l.meta.get("group_role") else ""
            out.append(f"  structure: {E(l.structural_role or 'no role')}{group}{where}")
        unit = l.unit or l.meta.get("unit")
        if unit:
            out.append(f"  unit: {E(unit)}")
        for note in l.notes:
            out.append(f"  note: {E(note)}")
        if l.env:
            out.append("  env: " + " ".join(f"{E(k)}={'<opaque>' if v.opaque else E(v.text)}"
                                            for k, v in sorted(l.env.items())))
        from pdlint.check import written_tokens
        tokens = written_tokens(l)  # every token as written; those the server's parser does not see marked
        width = min(max((len(E(t.text)) for t, _ in tokens), default=0), 48)
        for t, consumed in tokens:
            o = t.origin
            via = f"  via {E(o.describe_chain())}" if o.chain else ""
            opaque = "  (opaque)" if t.opaque else ""
            mark = f"  ({_consumed_note(consumed)})" if consumed else ""
            out.append(f"    {E(t.text):<{width}}  {P(o.path)}:{o.line}:{o.column}{via}{opaque}{E(mark)}")
        settings = l.meta.get("settings")
        if isinstance(settings, dict) and settings:
            for k, v in settings.items():
                o = v.origin
                out.append(f"    {E(k)}: {E(v.text)}  {P(o.path)}:{o.line}:{o.column}")
        out.append("")
    shown = {id(l) for l in launches}
    npairs = 0
    pair_lines = []
    for d in deps:
        pairs = [p for p in d.pairs if id(p.prefill) in shown or id(p.decode) in shown]
        links = [k for k in d.links if id(k.router) in shown or any(id(s) in shown for s in k.servers)]
        if not pairs and not links:
            continue
        pair_lines.append(f"deployment {E(d.key)} ({E(d.how)}):")
        for p in pairs:
            npairs += 1
            pair_lines.append(f"  pair [{p.engine}] prefill {_at(p.prefill, p.prefill_variants)} <-> "
                              f"decode {_at(p.decode, p.decode_variants)}")
        for k in links:
            target = f" {E(k.token.text)}" if k.token is not None else ""
            boot = f" (bootstrap port {E(k.bootstrap.text)})" if k.bootstrap is not None else ""
            servers = ", ".join(_at(s) for s in unique_servers(k.servers)) or "no server of this deployment"
            pair_lines.append(f"  router {_at(k.router)} --{k.role}{target}{boot} [{k.how}] -> {servers}")
    if pair_lines:
        out.append("Pairs:")
        out += pair_lines
        out.append("")
    lone = _unpaired_lines(deps, shown)
    if lone:
        out.append("Not paired (no pair rule checked them):")
        out += lone
        out.append("")
    spots = result.coverage.spots if result.coverage is not None else []
    if spots:
        out.append("Launch text not checked:")
        for sp in spots:
            out.append(f"  {P(sp.path)}:{sp.line}:{sp.column}: {sp.code} {E(sp.reason)}")
            out.append(f"    help: {E(sp.hint)}")
        out.append("")
    out.append(f"{len(launches)} launch{'es' if len(launches) != 1 else ''} in {result.files} file"
               f"{'s' if result.files != 1 else ''}, {npairs} prefill/decode pair{'s' if npairs != 1 else ''}"
               + (f", {len(spots)} place{'s' if len(spots) != 1 else ''} with launch text not checked"
                  if spots else "") + ".")
    _emit(safe_lines("\n".join(out) + "\n"), ns.output_file)
    return 0


def _at(launch, variants=()) -> str:
    from pdlint.report.escape import path
    more = f" (+{len(variants) - 1} variant{'s' if len(variants) > 2 else ''})" if len(variants) > 1 else ""
    return f"{path(launch.path)}:{launch.line}{more}"


def _rule(code: str) -> int:
    from pdlint.rules import get
    rule = get(code)
    if rule is None:
        sys.stderr.write(f"pdlint: error: unknown rule {code!r} (see `pdlint rules`)\n")
        return 2
    _emit(rule.docs())
    return 0


def _rules(fmt: str) -> int:
    from pdlint.rules import all_rules, code_key, rules_markdown
    rules = sorted(all_rules().values(), key=lambda r: code_key(r.code))
    if fmt == "markdown":
        _emit(rules_markdown())
    elif fmt == "json":
        import json
        _emit(json.dumps([{
            "code": r.code, "name": r.name, "severity": r.severity, "default": r.default, "engine": r.engine,
            "roles": list(r.roles), "versions": _version_runs(r), "summary": r.summary,
            "upstream": r.upstream, "source": r.source, "category": r.category} for r in rules], indent=2) + "\n")
    else:
        lines = [f"{'CODE':<8} {'NAME':<48} {'SEVERITY':<8} {'DEFAULT':<7} {'ROLES':<16} VERSIONS"]
        for r in rules:
            roles = ",".join(r.roles) or "any"
            versions = r.version_text().replace(", ", ",") or "all"
            lines.append(f"{r.code:<8} {r.name:<48} {r.severity:<8} {'on' if r.default else 'off':<7} "
                         f"{roles:<16} {versions}")
        _emit("\n".join(lines) + "\n")
    return 0


def _version_runs(rule) -> list:
    """The rule's releases as ``[first, last]`` runs of consecutive releases (``[]``: all)."""
    if rule.engine == "sglang" and rule.check is not None:
        from pdlint.engines.sglang.versions import runs
        return [list(r) for r in runs(rule.version_list())]
    return [[v, v] for v in rule.version_list()]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
