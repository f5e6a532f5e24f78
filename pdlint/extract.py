"""Extract stage: every launch in every file, with traced argv.

Per file kind: Jinja templates are rendered per role (``pdlint.render``) and
their output read as YAML or shell; YAML documents give containers
(``formats.kube``) and standalone SGLang ``--config`` files; shell scripts give
commands (``formats.shell``).  Commands become launches where
``pdlint.launchers`` recognises an entry point.  Engine adapters then
interpret each launch's argv (SGLang: version, ``--config`` merge, parse,
role).  Problems with the input itself become ``PD`` findings here.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
import time
from typing import Callable, Optional

from pdlint import budget, lazyre
from pdlint import core_rules as C
from pdlint import launchers
from pdlint.config import Config
from pdlint.discover import SHELL_EXT, FileJob, chart_root, display_path, worth_parsing
from pdlint.formats import crd, kube
from pdlint.formats import yamltree as yt
from pdlint.model import ERROR, WARNING, Finding, Launch
from pdlint.options import Options  # noqa: F401  (its home before pdlint.options; imported from here)
from pdlint.records import dataclass, field, replace
from pdlint.text import CONFIGMAP_NOT_JOINED, SourceFile, TStr

from pdlint.safeio import MAX_FILE_BYTES  # noqa: E402  (its home before pdlint.safeio)
from pdlint.formats.ansible_plays import MAX_PLAYS as MAX_RENDERED_PLAYS  # noqa: E402


_ENGINE_IMAGE = lazyre.compile(r"vllm|sglang|tensorrt|trtllm|dynamo", re.I)  # an image named for an engine


def _engine_image(image: str) -> bool:
    """Is an image named for an engine: its own name (the last path component, tag included:
    ``tritonserver:24.05-trtllm-python-py3``), not the organisation or project in front of it
    (``ghcr.io/vllm-project/semantic-router/extproc``, aibrix's semantic-router sample, is no engine)."""
    return bool(_ENGINE_IMAGE.search(image.split("@", 1)[0].rsplit("/", 1)[-1]))


_PLAIN_VAR = lazyre.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")  # a word that is one variable: $PY, ${PY}


@dataclass
class Extraction:
    launches: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    files: int = 0
    sources: dict = field(default_factory=dict)  # display path -> SourceFile (for snippets)
    # for coverage accounting (pdlint.coverage): why launch text on a line did not become a launch,
    # display path -> {line: (reason, hint, (line, column) of the command) or None: not a launch};
    # and the template lines some role's render produced
    notes: dict = field(default_factory=dict)
    rendered: dict = field(default_factory=dict)  # display path -> set of lines
    # files not checked at all, display path -> why (their config is invalid, pdlint failed on them): for coverage
    not_checked: dict = field(default_factory=dict)
    # containers whose args (no program of their own) go to an engine image's entry point pdlint does not
    # know: display path -> [(line, column, image)]; launch text even without an engine-only flag
    entry_gaps: dict = field(default_factory=dict)
    # parts of a build pdlint did not apply that may change a launch (a kustomize JSON 6902 operation):
    # [(Gap at the text to edit, the display path to report at when that text has no place)]
    build_gaps: list = field(default_factory=list)
    # display path of a job -> abspaths of the files its extraction read (its includes, sourced scripts): a file over
    # its budget holds launch text when one of them does (pdlint.lint.over_budget_findings, rw31/h P5)
    reads: dict = field(default_factory=dict)


#: variables the login shell, the job scheduler or the launcher sets, not a sourced file (`$USER`, `$HOME` after
#: `source /etc/profile.d/modules.sh` or a venv's `activate`: field test rw17/n)
_HOST_VARIABLE = lazyre.compile(r"(?:USER|HOME|PATH|PWD|OLDPWD|SHELL|LOGNAME|HOSTNAME|HOST|TMPDIR|LANG|TERM|VIRTUAL_ENV|"
                            r"CONDA_PREFIX|CONDA_DEFAULT_ENV|(?:SLURM|PBS|LSB|OMPI|PMI|PMIX|FLUX|SGE|MPI|LSF)_\w+)")


#: what makes a JSON 6902 operation pdlint did not apply checkable
_UNAPPLIED_HINT = ("make the operation apply to the resource as written (compare its path with `kubectl kustomize` "
                   "output), or write the change as a strategic-merge patch (the container by `name` with its "
                   "whole `args` list), which pdlint applies")


@dataclass
class OverlayRuns:
    """What the values overlays of one chart gave: the overlays rendered, those that were not ((overlay,
    why)), and those left out past :data:`pdlint.formats.helm.MAX_OVERLAYS` (paths relative to the chart)."""

    rendered: list
    failed: list
    cut: list
    guards: list = field(default_factory=list)  # per overlay rendered: the keys of its unrendered guards


def _merged_unless_ignored(groups, where) -> list:
    """Each group of places (sorted) as one finding, except a place a PD020 directive covers (``where(x)``: its
    source and line), which is a finding of its own: an ignore written for one place suppresses that place only
    (rw26/h item 15), and is used."""
    from pdlint.suppress import covered
    out = []
    for items in groups:
        items = sorted(items, key=lambda x: x[:2])
        own = [x for x in items if covered(*where(x), "PD020")]
        rest = [x for x in items if not any(x is y for y in own)]
        out += [[x] for x in own] + ([rest] if rest else [])
    return out


def _unread_include(what: str, name: str, outside: bool, unset: list) -> str:
    """PD014's message for an include / import pdlint did not read while the recipes read names no file sets."""
    shown = ", ".join(unset[:5]) + (f" and {len(unset) - 5} more" if len(unset) > 5 else "")
    return (f"{what} {name} is {'not in the repository' if outside else 'not a file pdlint can read'}: the recipes "
            f"read {shown}, which no file pdlint read sets, so their values were not checked: keep the file in the "
            f"repository, or give them with `--var NAME=VALUE`")


def _outer_expansions(doc: TStr) -> dict:
    """Where the text of a script an outer one wrote holds a value the outer shell expanded and pdlint could not
    see (an opaque piece: ``$PPORT`` of an unquoted here-document when the outer script's PPORT is unknown):
    {source file: (starts, ends)} of those characters' origins, merged and sorted (found by bisection: a text
    of many such pieces costs a logarithm per reference, not their number).  Empty for a script file's own
    text (no opaque piece)."""
    spans: dict = {}
    for p in doc.pieces:
        if p.opaque and p.src is not None:
            spans.setdefault(p.src, []).append((p.offset, p.offset + (p.end - p.start if p.exact else 1)))
    out: dict = {}
    for src, pairs in spans.items():
        starts: list = []
        ends: list = []
        for a, b in sorted(pairs):
            if ends and a <= ends[-1]:
                ends[-1] = max(ends[-1], b)
            else:
                starts.append(a)
                ends.append(b)
        out[src] = (starts, ends)
    return out


def _reads_at_run_time(words: list, name: str, written: dict) -> bool:
    """Whether a launch's words reference ``$name`` (``${name``) written in the script's own text, not at a
    value an outer script expanded into it (``written``, :func:`_outer_expansions`): a variable the launch
    still reads when the script runs."""
    pattern = re.compile(r"\$\{?" + re.escape(name) + r"\b")
    for w in words:
        for m in pattern.finditer(w.text):
            p = w._piece_at(m.start())
            if p is None or p.src is None or p.src not in written:
                return True
            off = p.offset + (m.start() - p.start if p.exact else 0)
            starts, ends = written[p.src]
            k = bisect.bisect_right(starts, off) - 1
            if k < 0 or off >= ends[k]:
                return True
    return False


def _no_values_note(res) -> str:
    """What a render failure of a chart that ships no values.yaml is likely to be: values missing, as `helm
    template` would fail without them too (AI-Hypercomputer/gpu-recipes' a3mega charts, field test rw26/a:
    `div .Values.job.gpus 8` with no value, "integer divide by zero")."""
    if getattr(res, "values", None) is not None or getattr(res, "overlay", None) is not None:
        return ""
    return ("; the chart ships no values.yaml, so `helm template` fails the same way without the values it is "
            "deployed with: name them with `helm-values` in pdlint's config to render it with them")


def _unset_hint(paths: list) -> str:
    """The help of a chart branch not rendered because its test reads values nothing sets (``paths``)."""
    keys = list(dict.fromkeys(".".join(p) for p in paths))
    one = len(keys) == 1
    return (f"give {'it' if one else 'them'} the value{'' if one else 's'} the chart is deployed with in values.yaml "
            f"or in a values overlay (`{keys[0]}`{'' if one else ', ...'}; pdlint renders the chart once per overlay "
            f"in its directory), or `{{{{/* pdlint: ignore[PD020] */}}}}` where {'it is' if one else 'they are'} "
            f"never set")


def _guard_key(g) -> tuple:
    """A chart guard (``ChartResult.guards``) by where its action is: the same in every render of the chart."""
    o = g[1].origin_at(0) if g[1].pieces else None
    return (o.path, o.line, o.column) if o is not None else (g[0].path, 0, 0)


def _render_signature(res) -> tuple:
    """What a chart render produced, text and origins: two renders alike build the same launches."""
    return tuple((r.template.path, r.text.text, tuple((p.src.path if p.src is not None else None, p.offset, p.start,
                                                       p.end) for p in r.text.pieces)) for r in res.rendered)


def _names(items: list, most: int = 4) -> str:
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def _unrendered_reason(chart_display: str, how: str, overlays: Optional[OverlayRuns]) -> str:
    """Why a template line of a rendered chart is not checked: no render reached it, with values.yaml alone or
    with any of its values overlays (naming those not rendered, and those past the bound)."""
    if overlays is None or not (overlays.rendered or overlays.failed or overlays.cut):
        return (f"no render of chart {chart_display} with its values.yaml produced it (a branch or template those "
                f"values do not reach; rendered by {how})")
    n = len(overlays.rendered)
    if n:
        reason = (f"no render of chart {chart_display} with its values.yaml or its {n} values overlay"
                  f"{'' if n == 1 else 's'} ({_names(overlays.rendered)}) produced it (a branch or template none "
                  f"of those values reach; rendered by {how})")
    else:
        reason = (f"no render of chart {chart_display} with its values.yaml produced it (a branch or template those "
                  f"values do not reach; rendered by {how})")
    for rel, why in overlays.failed:
        reason += f"; values overlay {rel} was not rendered ({why})"
    if overlays.cut:
        from pdlint.formats.helm import MAX_OVERLAYS
        reason += (f"; {len(overlays.cut)} more values overlay{'' if len(overlays.cut) == 1 else 's'} not rendered "
                   f"(at most {MAX_OVERLAYS} per chart): {_names(overlays.cut)}")
    return reason


class Extractor:
    def __init__(self, options: Options, config_for, deps=None):
        self.opt = options
        self.config_for = config_for  # abspath -> Config
        self.deps = deps  # pdlint.cache.Deps: what each job read (for the result cache), or None
        self.out = Extraction()
        self._files: dict = {}  # abspath -> SourceFile | Finding
        self._ordinals: dict = {}  # path -> launches found so far
        self._charts_done: set = set()
        self._chart_overlays: dict = {}  # chart directory -> abspaths of the values overlays found in its tree
        self._named_overlays: dict = {}  # chart directory -> the helm-values files its config names (memo)
        self._repo_roots: dict = {}  # directory -> its repository root (discover.repo_root's memo)
        self._engine_sources: dict = {}  # (root, engine) -> the engine's own source file there, or None
        self._glob_walk = [MAX_GLOB_RUN]  # entries all helm-values globs of this run may still walk
        self._listings: dict = {}  # directory -> its names (Ansible playbooks and inventories looked for)
        self._trims: dict = {}  # repository root -> its Python renders templates with trim_blocks (PD060)
        self._registrations: dict = {}  # repository root -> the Jinja filters / tests its Python registers (PD016)
        self._inventory_memo: dict = {}  # (directory above a role, root) -> (inventory files, variable names)
        self._orphans: dict = {}  # PD060 place -> [index in findings, render roles]
        self._problems: set = set()  # (path, line, column, code, message) of the problem_at findings made
        self._crlf: set = set()  # abspaths of the files read whose lines end in CRLF
        self._heredoc_depth = 0  # here-document scripts being evaluated (Extractor.heredoc_script)
        self._shell_problems: set = set()  # PD008 / PD009 places reported
        self._dir_names: dict = {}  # directory -> names of the release-pin files in it (release_pins)
        self._dupe_keys: set = set()  # PD052 places reported
        self._placeholders: set = set()  # PD061 places reported
        self._repo_files: dict = {}  # repository root -> its files (callers of scripts)
        self._repo_data: dict = {}  # their contents, read once
        self._caller_cmds: dict = {}  # path of a script that calls another -> its commands (caller_args)
        self._included: set = set()  # realpaths of the templates a render included, imported or extended
        from pdlint.safeio import Boundary
        # every repository file is read through it (pdlint.safeio): inside its root, regular, bounded
        self.boundary = getattr(options, "boundary", None) or Boundary(options.cwd)
        self.refused: dict = {}  # abspath of a file a reference named -> safeio.Refused
        self._reported: set = set()  # abspaths whose read problem is a finding already
        self._jobs: list = []  # the run's jobs (files searched for the ConfigMaps that launches mount)
        self._configmaps: dict = {}  # ConfigMap name -> [formats.mounts.ConfigMap] of the YAML read so far
        self._cm_scanned: set = set()  # files whose ConfigMaps are remembered
        self._cm_words: dict = {}  # file -> its words (:data:`_CM_WORD`), when it may define a ConfigMap
        # a ConfigMap value's origin key -> [ScriptRunner] of the containers that mount it and run it (rw29/a P10)
        self._script_runners: dict = {}
        self._job_reads: Optional[set] = None  # Extraction.reads of the job being extracted

    # -- reading -------------------------------------------------------------
    def read(self, abspath: str, report: bool = True) -> Optional[SourceFile]:
        """Read a file once (decoded, CRLF-normalised); a bad file is reported once."""
        abspath = os.path.abspath(abspath)
        cached = self._files.get(abspath)
        if self.deps is not None:
            self.deps.read(abspath, None if cached is None else cached)
        if self._job_reads is not None:
            self._job_reads.add(abspath)
        if isinstance(cached, SourceFile):
            return cached
        if cached is not None:
            if report and abspath not in self._reported:  # read quietly before (an include), reported now
                self._reported.add(abspath)
                self.out.findings.append(cached)
            return None
        display = display_path(abspath, self.opt.cwd)
        fixed = self.opt.overlay.get(abspath)
        if fixed is not None:  # the text a --fix pass produced (already decoded and normalised)
            src = SourceFile(display, fixed, abspath)
            self._files[abspath] = src
            self.out.sources[display] = src
            return src
        deps = self.deps
        from pdlint.safeio import BIG, Refused, decode
        try:
            data = self.boundary.read(abspath)
        except Refused as r:
            searched = self.read_big(abspath) if r.kind == BIG else None
            if deps is not None:
                deps.content(abspath, display, searched[0] if searched else deps.BIG if r.kind == BIG
                             else deps.ABSENT)
            self.refused[abspath] = r  # (a file that reads it still goes without it)
            if searched is not None and not searched[1]:
                self._reported.add(abspath)  # nothing to check: no PD008, as a small file without launch text
                report = False
            return self._bad(abspath, display, C.LIMIT if r.kind == BIG else C.UNREADABLE, r.message, report)
        if deps is not None:
            deps.content(abspath, display, data)
        text, bad = decode(data)
        if bad is not None:
            return self._bad(abspath, display, C.UNDECODABLE, bad[0], report, bad[1], bad[2])
        if b"\r\n" in data:
            self._crlf.add(abspath)  # (normalised for reading; a script run by bash keeps them: see shell_crlf)
        src = SourceFile(display, text, abspath)
        self._files[abspath] = src
        self.out.sources[display] = src
        return src

    def read_bytes(self, abspath: str) -> Optional[tuple]:
        """``(display path, bytes)`` of a binary file inside the boundary (a chart's dependency archive), or
        None when it is refused (too large, outside the repository, not a regular file); recorded for the cache."""
        from pdlint.safeio import Refused
        abspath = os.path.abspath(abspath)
        display = display_path(abspath, self.opt.cwd)
        if self.deps is not None:
            self.deps.read(abspath, None)
        try:
            data = self.boundary.read(abspath)
        except Refused:
            if self.deps is not None:
                self.deps.content(abspath, display, self.deps.ABSENT)
            return None
        if self.deps is not None:
            self.deps.content(abspath, display, data)
        return display, data

    def read_big(self, abspath: str) -> Optional[tuple]:
        """``(bytes, holds launch text)`` of a file larger than MAX_FILE_BYTES but within MAX_SEARCHED_BYTES,
        else None.  pdlint does not scan such a file, but one without launch text is nothing to check: rbg's
        generated CRDs (config/crd/bases, 3 MB) were PD008 errors that failed the run.  The search reads only
        the lines holding a literal marker (pdlint.coverage.has_launch_text); a file that is not text counts
        as holding launch text."""
        from pdlint.coverage import has_launch_text
        from pdlint.safeio import MAX_SEARCHED_BYTES, Refused, decode
        try:
            data = self.boundary.read(abspath, limit=MAX_SEARCHED_BYTES)
        except Refused:
            return None
        text = decode(data)[0]
        return data, text is None or has_launch_text(text)

    def _bad(self, abspath, display, rule, message, report, line=1, column=1):
        f = Finding(display, line, column, rule.code, rule.name, rule.severity, None, message)
        self._files[abspath] = f
        if report:
            self._reported.add(abspath)
            self.out.findings.append(f)
        return None

    def problem(self, rule, src: Optional[SourceFile], line: int, column: int, message: str,
                path: Optional[str] = None, fix: Optional[str] = None, severity: Optional[str] = None) -> None:
        self.out.findings.append(Finding(src.path if src else (path or "<unknown>"), max(line, 1),
                                         max(column, 1), rule.code, rule.name, severity or rule.severity, None,
                                         message, fix=fix))

    def _unread_source_values(self, unread: list, cmds: list, doc: TStr) -> None:
        """PD014 at a ``source FILE`` of a file that is not in the repository (``source /opt/env.sh``, a deploy
        host's file) when a launch after it reads variables no line pdlint read sets: their values were not
        checked (whn09/kimi-k3-sglang's ``--tp-size "$TP_SIZE"``, field test rw16/k).  A source whose variables
        no launch reads (``source /opt/conda/etc/profile.d/conda.sh``) is not reported.

        Only a reference the text ``doc`` itself holds counts: in a script an outer one writes or runs from an
        unquoted here-document (``cat > entry.sh <<EOF ... source /host/flags.sh ... --port $PPORT ... EOF``,
        ``bash <<EOF``), the outer shell substituted ``$PPORT`` when it wrote the text - pdlint keeps the value
        it could not see as the opaque text ``$PPORT`` there - so the ``source`` that runs later cannot set it
        (rw35/b P4: ZhengWG/sglang's launch_mi355x.sh, 21 variables of ``eval "$RECIPE_VARS"`` blamed on a host
        file).  An escaped ``\\$X`` there, or a quoted here-document's ``$X``, is the
        generated script's own and still counts."""
        from pdlint import launchers
        written = _outer_expansions(doc)
        for word, name in unread:
            o = word.origin
            names: list = []
            for c in cmds:
                m = launchers.find(c.words) if c.unset_vars and not c.uncalled and c.words else None
                if not isinstance(m, launchers.Match):
                    continue
                w = c.words[0].origin if c.words[0].pieces else None
                if w is None or w.path != o.path or w.line <= o.line:
                    continue
                argv = " ".join(t.text for t in c.words[m.argv_start:])  # (a server argument, not a wrapper's)
                names += [v for v in c.unset_vars if v not in names and re.fullmatch(r"[A-Za-z_]\w*", v)
                          and not _HOST_VARIABLE.fullmatch(v) and re.search(r"\$\{?" + re.escape(v) + r"\b", argv)
                          and (not written or _reads_at_run_time(c.words[m.argv_start:], v, written))]
            if names:
                shown = ", ".join(f"${v}" for v in names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6
                                                                  else "")
                found = self._sourced_by_name(name, o.path)
                if found is not None:
                    # (`source $SGL_WS_PATH/set_env_vars.sh`, the file beside the script: "is not in the
                    # repository" was wrong, field test rw23/a, sabreshao/sglang_disagg)
                    var, rel = found
                    self.outside_reference(word, f"sourced file {name}: pdlint cannot see ${var}, so it did not read "
                                                 f"the file; {rel} in the repository may be it; the launches after it "
                                                 f"read {shown}, whose values were not checked: give {var} its value "
                                                 f"(`--var {var}=DIR`, the directory the script runs it from) or "
                                                 f"source the file by a path relative to the script")
                    continue
                unseen = self._sourced_by_pattern(name, o.path)
                if unseen is not None:
                    # (`source "$REPO_ROOT/configs/ratios/${ratio}.env"` in a loop over $RATIOS a file outside the
                    # repository sets: the files are there, only the variable is unknown - "is not in the repository
                    # ... keep the file in the repository" was wrong, field test rw29/a P6)
                    var_names, matches, example = unseen
                    vs = " and ".join(f"${v}" for v in var_names)
                    var = var_names[0]
                    if matches:
                        listed = ", ".join(matches[:4]) + (f" and {len(matches) - 4} more" if len(matches) > 4
                                                           else "")
                        where = (f"{listed} in the repository match{'es' if len(matches) == 1 else ''} it")
                        value = example or "VALUE"
                    else:
                        where = "no file of the repository matches it"
                        value = "VALUE"
                    self.outside_reference(word, f"sourced file {name}: its path depends on {vs}, whose value "
                                                 f"pdlint cannot see, so it did not read the file; {where}; the "
                                                 f"launches after it read {shown}, whose values were not checked: "
                                                 f"give {var} the value you run with (`--var {var}={value}` or "
                                                 f"[tool.pdlint.vars])")
                    continue
                host = " (a file of the deploy host)" if name.startswith("/") else ""
                self.outside_reference(word, f"sourced file {name} is not in the repository{host}; the launches "
                                             f"after it read {shown}, which no file pdlint read "
                                             f"sets, so their values were not checked: give them in "
                                             f"[tool.pdlint.vars], or keep the file in the repository and source it "
                                             f"by a path relative to the script")

    def _sourced_by_pattern(self, name: str, script: str) -> Optional[tuple]:
        """``(variables, repository files that match, a value of the first variable that names the first of them)``
        when a sourced path relative to the script is literal but for whole variable references
        (``../configs/ratios/${RATIOS[@]}.env``) pdlint cannot see; None for another path.  The files are found
        among the script's directory's neighbours (bounded: at most two components hold a variable, at most
        :data:`_MAX_SOURCE_MATCHES` files listed)."""
        import glob
        if name.startswith(("/", "~")) or "\0" in name:
            return None
        refs = list(_SOURCE_VAR.finditer(name))
        if not refs or "$" in _SOURCE_VAR.sub("", name) or any(c in _SOURCE_VAR.sub("", name) for c in "*?[]{}`"):
            return None
        var_names = list(dict.fromkeys(m.group(1) or m.group(2) for m in refs))
        if any(not re.fullmatch(r"[A-Za-z_]\w*", v) or _HOST_VARIABLE.fullmatch(v) for v in var_names):
            return None
        src = self.out.sources.get(script)
        if src is None or not src.abspath:
            return None
        marked = _SOURCE_VAR.sub("\0", name)  # (each reference: one path component's part, any text)
        if sum("\0" in part for part in marked.split("/")) > 2:
            return None
        from pdlint.discover import repo_root
        here = os.path.dirname(src.abspath)
        root = repo_root(src.abspath, self._repo_roots) or here
        full = os.path.normpath(os.path.join(here, marked))
        try:
            if os.path.commonpath([os.path.abspath(root), os.path.abspath(full)]) != os.path.abspath(root):
                return None
        except ValueError:
            return None
        parts = full.split("\0")
        pattern = "*".join(glob.escape(p) for p in parts)  # (a `[` of a directory's name is no glob class)
        literal = re.compile("(.+?)".join(re.escape(p) for p in parts) + "$")
        matches, example = [], None
        for cand in sorted(glob.glob(pattern))[:_MAX_SOURCE_MATCHES * 4]:
            if not self.boundary.is_file(cand, root):
                continue
            matches.append(os.path.relpath(cand, root).replace(os.sep, "/"))
            if example is None:
                m = literal.match(cand)
                example = m.group(1) if m and re.fullmatch(r"[\w.-]+", m.group(1)) else None
            if len(matches) >= _MAX_SOURCE_MATCHES:
                break
        return var_names, matches, example

    def _sourced_by_name(self, name: str, script: str) -> Optional[tuple]:
        """``(variable, repository path)`` when a sourced path starts with a variable pdlint cannot see
        (``$SGL_WS_PATH/set_env_vars.sh``) and a file of that name is beside the script or at the repository's
        root: the file it likely names."""
        m = re.match(r"\$\{?([A-Za-z_]\w*)\}?/(.+)$", name)
        src = self.out.sources.get(script)
        if m is None or src is None or not src.abspath or "$" in m.group(2):
            return None
        from pdlint.discover import repo_root
        here = os.path.dirname(src.abspath)
        root = repo_root(src.abspath, self._repo_roots) or here
        for d in (here, root):
            cand = os.path.join(d, m.group(2))
            if self.boundary.is_file(cand, root):
                return m.group(1), os.path.relpath(cand, root).replace(os.sep, "/")
        return None

    def outside_reference(self, where: TStr, message: str) -> None:
        """PD014 at the word that names a file pdlint refused to read (once per place)."""
        if not where.pieces:
            return
        o = where.origin
        key = (C.OUTSIDE_REF.code, o.path, o.line, o.column)
        if key in self._files:
            return
        self._files[key] = True
        self.problem_at(C.OUTSIDE_REF, where, 0, message)

    def unchecked(self, where: Optional[TStr], reason: str, hint: str, job: FileJob) -> None:
        """A PD020 at ``where`` (else at ``job``'s file): launch text a bound of pdlint left unbuilt."""
        from pdlint import coverage_rules as CR
        from pdlint.model import Gap
        self.out.build_gaps.append((Gap(CR.UNCHECKED.code, where, reason, hint), job.display))

    def problem_at(self, rule, where: TStr, index: int, message: str, severity: Optional[str] = None) -> None:
        o = where.real_origin_at(index) if where.pieces else None  # (never at text written in no file)
        if o is None:
            return
        key = (o.path, o.line, o.column, rule.code, message)
        if key in self._problems:  # (a file two jobs read: an override file, read as Compose and merged)
            return
        self._problems.add(key)
        self.out.findings.append(Finding(o.path, o.line, o.column, rule.code, rule.name, severity or rule.severity,
                                         None, message))

    def note_cut(self, where: TStr, index: int, reason: str) -> None:
        """The launch text of ``where`` from ``index`` on is text bash never runs (a quote left open before it):
        its lines' PD020 says so (``reason``), whatever other note they had (field round rw31/a problem 3)."""
        hint = ("close or delete the quote the PD009 finding points at; pdlint then checks the launches after it "
                "(`bash -n FILE` shows the same error)")
        left = MAX_CUT_NOTE_LINES
        o = where.real_origin_at(index) if where.pieces else None
        at = (o.line, o.column) if o is not None and not o.path.startswith("<") else None
        for p in where.pieces:
            if p.end <= index or p.src is None or left <= 0:
                continue
            start = p.offset + (max(index, p.start) - p.start if p.exact else 0)
            end = p.offset + (p.end - p.start if p.exact else 1)
            first, last = p.src.line_of(start), p.src.line_of(max(start, end - 1))
            notes = self.out.notes.setdefault(p.src.path, {})
            # (one spot, at the statement bash refuses, for all of it: `at` in that statement's file)
            here = at if o is not None and p.src.path == o.path else None
            for line in range(first, min(last, first + left - 1) + 1):
                notes[line] = (reason, hint, here)
            left -= last - first + 1

    # -- dispatch --------------------------------------------------------------
    def run(self, jobs: list) -> Extraction:
        """Every job's launches.  One file never hides the rest: a file whose
        config is invalid is not checked (the config's PD012 finding says why,
        coverage lists the file as not checked), and an exception while
        extracting one file becomes a PD013 finding at that file (``--debug``:
        the traceback)."""
        jobs = self.skip_unconfigured(jobs)
        self._jobs = jobs
        builds, members = self.kustomize_builds(jobs)
        charts = self.helm_charts(jobs)
        if self.deps is not None:
            self.deps.together_with(builds, charts)
        partials = self.partial_candidates(jobs)
        for job in self.configmaps_last([j for j in jobs if j.abspath not in partials]) + \
                [j for j in jobs if j.abspath in partials]:
            self.out.files += 1
            if self.deps is not None:
                self.deps.job = job.abspath
            self._job_reads = self.out.reads.setdefault(job.display, set())
            self.budgeted(job.display, "read",
                          lambda: self.isolated(job.display, lambda: self.extract(job, builds, members, charts,
                                                                                   partials)))
        self._job_reads = None
        self.interpret()
        from pdlint import structure_rules
        self.out.findings += self.per_file(self.out.launches, structure_rules.check, "the structure rules")
        return self.out

    def partial_candidates(self, jobs: list) -> set:
        """Templates of the run that another template of the run may include, import or extend (its
        ``{% include "..." %}`` names the file): they are extracted after the others, and one that a
        render did load is a partial, checked only in its includers' context (rendered alone it is a
        fragment: a flag list ending in ``\\``, a macro file)."""
        import re
        templates = [j for j in jobs if j.kind in ("jinja", "tpl")]
        if len(templates) < 2:
            return set()
        named: set = set()
        for j in templates:
            if self.deps is not None:
                self.deps.job = j.abspath  # the job reads its own file (once: the loop below gets it cached)
            src = self.read(j.abspath)  # a bad file is reported here, once, as the loop would
            if src is not None and "{%" in src.text:
                named |= {os.path.basename(m) for m in re.findall(_INCLUDE_NAME, src.text)}
        return {j.abspath for j in templates if os.path.basename(j.abspath) in named}

    def configmaps_last(self, jobs: list) -> list:
        """``jobs`` with the YAML files that define a ConfigMap after the others, when a file of the run mounts one
        (``volumes: [{configMap: {name: ...}}]``): a ConfigMap script is checked with the image and env of the
        containers that run it (:meth:`note_script_runs`), which a container of a file extracted later did not give
        yet (a script in `a-cm.yaml` run by `b-deploy.yaml`'s `image: vllm/vllm-openai:v0.10.1` was judged against
        the newest vLLM, the same files named the other way round against 0.10.1).  Among them, those that also
        mount one first."""
        yaml_jobs = [j for j in jobs if j.kind == "yaml"]
        if len(yaml_jobs) < 2:
            return jobs
        defines: dict = {}
        mounting = False
        for j in yaml_jobs:
            if self.deps is not None:
                self.deps.job = j.abspath  # the job reads its own file (once: the main loop gets it cached)
            src = self.read(j.abspath)
            if src is None:
                continue
            mounts = "configMap" in src.text
            mounting = mounting or mounts
            if "ConfigMap" in src.text:
                defines[j.abspath] = 0 if mounts else 1
        if not mounting or not defines:
            return jobs
        return [j for j in jobs if j.abspath not in defines] + \
            sorted((j for j in jobs if j.abspath in defines), key=lambda j: defines[j.abspath])

    def budgeted(self, path: str, stage: str, fn):
        """``fn()`` inside ``path``'s resource budget (:mod:`pdlint.budget`); when the file goes
        over it, what the call added (launches, findings) is dropped and None returned."""
        if budget.current() is None:
            return fn()
        n_launches, n_findings = len(self.out.launches), len(self.out.findings)
        try:
            with budget.charged(path, stage):
                return fn()
        except budget.OverBudget:
            del self.out.launches[n_launches:]
            del self.out.findings[n_findings:]
            return None

    def extract(self, job: FileJob, builds: dict, members: set, charts: dict, partials: set = frozenset()) -> None:
        """The launches of one job."""
        if job.abspath in builds:
            self.kustomize(job, builds[job.abspath])
            return
        if job.abspath in members:
            return  # checked as part of a kustomization build
        chart = charts.get(job.abspath)
        if chart is not None:
            self.read(job.abspath)  # a chart file pdlint cannot read is reported at the file (the render skips it)
            if chart not in self._charts_done:
                self._charts_done.add(chart)
                if not self.chart_may_launch(chart):
                    return  # an operator's or a database's chart: no render of it holds launch text
                try:
                    self.helm(job, chart)
                except (yt.LimitError, RecursionError) as e:  # alias/merge bombs in values or manifests
                    self.problem(C.LIMIT, None, 1, 1, f"Helm chart not checked: "
                                 f"{e.message if isinstance(e, yt.LimitError) else 'nested too deep'}",
                                 path=display_path(os.path.join(chart, "Chart.yaml"), self.opt.cwd))
            return
        src = self.read(job.abspath)
        if src is None:
            return
        try:
            data = src.text.encode("utf-8", "surrogatepass")
        except Exception:
            data = b""
        if not job.explicit and not worth_parsing(job.kind, data):
            return
        if job.kind in ("yaml", "tpl", "unknown", "unsupported"):
            foreign = _foreign_template(job.abspath, src.text)
            if foreign is not None:
                self.foreign_template(src, *foreign)
                return
        if job.kind in ("jinja", "tpl"):
            if job.abspath in partials and os.path.realpath(job.abspath) in self._included:
                return  # an include-only partial: checked in its includers' renders only
            if job.kind == "tpl" and _is_go_template(src.text):
                # a Go template outside any chart: its literal flag lines only
                self.go_template_literals(job, src, job.display, "Go template outside a Helm chart")
                return
            self.jinja(job, src)
        elif job.kind == "yaml":
            doc = TStr.from_source(src)
            if _is_go_template(src.text):
                doc = _actions_in_strings_opaque(src)
                if doc is None:
                    self.go_template_literals(job, src, job.display, "Go template outside a Helm chart")
                    return
            self.yaml(job, src, doc, None)
        elif job.kind == "shell":
            if job.abspath in self._crlf:
                from pdlint.formats.yaml_shell import may_hold_script_text
                if may_hold_script_text(src.text):
                    self.shell_crlf(src)
            self.shell(job, src, TStr.from_source(src), None, env=self.shell_env(job) or None, per_arg=True,
                       meta=self.release_pins(job))
        elif job.kind == "justfile":
            self.justfile(job, src)
        elif job.kind == "systemd":
            self.systemd(job, src, TStr.from_source(src), None)
        elif job.kind == "dockerfile":
            self.dockerfile(job, src)
        elif job.kind == "makefile":
            self.makefile(job, src)
        elif job.kind == "unknown" and worth_parsing("yaml", data):
            self.unknown(job, src)

    # -- isolation ---------------------------------------------------------------
    def skip_unconfigured(self, jobs: list) -> list:
        """The jobs whose config is valid; the others are counted, not checked,
        and listed for coverage (their config's PD012 finding says why)."""
        out = []
        for job in jobs:
            cfg = self.config_for(job.abspath)
            error = getattr(cfg, "error", None)
            if error is None:
                out.append(job)
                continue
            self.out.files += 1
            self.out.not_checked[job.display] = f"not checked: its config {error.path} is invalid ({error.code})"
        return out

    def isolated(self, path: str, work, where: str = "this file") -> bool:
        """Run ``work()``; an exception becomes a PD013 finding at ``path`` (the
        findings and launches ``work`` produced before it stay).  ``--debug`` re-raises."""
        try:
            work()
            return True
        except Exception as e:
            if getattr(self.opt, "debug", False) or (isinstance(e, MemoryError) and budget.current() is not None):
                raise  # (a MemoryError is the file's memory budget: pdlint.budget reports it)
            self.out.findings.append(internal_error(path, e, where))
            self.out.not_checked.setdefault(path, f"not checked: pdlint failed on it ({type(e).__name__})")
            return False

    def per_file(self, launches: list, stage, what: str) -> list:
        """``stage(launches)`` (a check over every launch); when it raises, again per
        file, so that only the files it fails on lose their findings (PD013 there)."""
        try:
            return stage(launches)
        except Exception:
            if getattr(self.opt, "debug", False):
                raise
        return isolate_per_file(launches, stage, what, lambda l: l.path)

    # -- Kustomize ---------------------------------------------------------------
    def kustomize_builds(self, jobs: list) -> tuple:
        """Build every kustomization in the run that no other one includes;
        (builds by abspath, files the builds consumed).

        Which kustomizations include which is read first (each file once), and only the tops are built: building
        every kustomization to learn what it includes made a run of N kustomizations that include each other read
        N x N of them (rw29/h P3).  All the builds of the run read at most ``kustomize.MAX_RUN_VISITS``
        kustomizations together; a kustomization not built for it is a PD008 at its file."""
        from pdlint.formats import kustomize
        kjobs = {j.abspath: j for j in jobs if kustomize.is_kustomization(j.abspath)}
        if not kjobs:
            return {}, set()
        graph: dict = {}  # kustomization -> the kustomizations it includes (those outside the run too)
        fs: dict = {}  # path lookups, shared by the builders of the run
        for a in sorted(kjobs):
            if self.deps is not None:
                self.deps.job = a
            todo = [a]
            while todo:
                k = todo.pop()
                if k in graph:
                    continue
                graph[k] = kustomize.Builder(lambda p: self.read(p, report=False), kjobs.get(k, kjobs[a]).root,
                                             fs=fs).includes(k) if len(graph) < 20 * kustomize.MAX_RUN_VISITS else []
                todo += [n for n in graph[k] if n not in graph]
        includers: dict = {}
        for k, ns in graph.items():
            for n in ns:
                if n != k:
                    includers.setdefault(n, set()).add(k)
        scc = _components(graph)
        run = kustomize.RunBudget()
        builds: dict = {}
        not_built: dict = {}
        abandoned: set = set()  # what a build over its time budget includes

        def build(a: str) -> None:
            j = kjobs[a]
            if run.spent():
                not_built[a] = j
                return
            if self.deps is not None:
                self.deps.job = a
            try:
                with budget.charged(j.display, "kustomize build"):
                    builds[a] = kustomize.Builder(lambda p: self.read(p), j.root, run, fs).build(a)
            except budget.OverBudget:
                # reported at the file; its build is not used, and what it includes is not built again one by one
                # (each as slow: a cycle of 300 kustomizations)
                stack = [a]
                while stack:
                    k = stack.pop()
                    if k not in abandoned:
                        abandoned.add(k)
                        stack += graph.get(k, ())
            except (RecursionError, yt.LimitError) as e:
                self.problem(C.LIMIT, None, 1, 1, f"kustomization too deep or too large: {e}", path=j.display)
            except Exception as e:  # untrusted input must not stop the scan
                from pdlint import structure_rules
                self.problem(structure_rules.KUSTOMIZE_ERROR, None, 1, 1,
                             f"cannot build this kustomization ({type(e).__name__}: {e})", path=j.display)

        # the kustomizations no other one includes; then of kustomizations that include each other (a cycle) that
        # no other one includes, the first by path (rw28/h item 3: a directory scan built none of them, where naming
        # one reports both); then any one no build reached (a build stopped at one of its limits)
        first = [a for a in sorted(kjobs) if not includers.get(a)]
        for a in first:
            build(a)
        top = {a: builds[a] for a in first if a in builds}
        covered = {m for b in top.values() for m in b.members}
        for a in sorted(kjobs):
            if a in top or a in covered or a not in includers:
                continue
            if all(scc[o] == scc[a] for o in includers[a]) and a not in not_built and a not in abandoned:
                build(a)
                if a in builds:
                    top[a] = builds[a]
                    covered |= builds[a].members
        for a in sorted(kjobs):
            if a in top or a in covered or a in not_built or a in abandoned:
                continue
            build(a)
            if a in builds:
                top[a] = builds[a]
                covered |= builds[a].members
        members: set = set()
        for a, b in top.items():
            members |= {m for m in b.members if m != a}
        for j in not_built.values():
            self.problem(C.LIMIT, None, 1, 1, f"kustomization not built: the kustomize builds of this run read "
                         f"{run.limit} kustomizations (pdlint's budget for a run); its launches were not checked",
                         path=j.display)
            members.add(j.abspath)
        return top, members

    def _build_holds_launch_text(self, job: FileJob, build) -> bool:
        """Does the kustomization, a file its build reads or one a problem of it is in (a patch it could not
        apply) hold launch text (coverage.has_launch_text)?"""
        from pdlint.coverage import has_launch_text
        srcs = [self.read(path, report=False) for path in [job.abspath, *sorted(build.members)]]
        srcs += [pc.src for p in build.problems for pc in p.where.pieces[:1]]
        return any(src is not None and has_launch_text(src.text) for src in srcs)

    def kustomize(self, job: FileJob, build) -> None:
        from pdlint import structure_rules
        from pdlint.formats import kustomize
        seen: set = set()
        serving = None  # does the build hold launch text (its kustomization, a member file)?
        for p in build.problems:
            o = p.where.origin_at(0) if p.where.pieces else None
            key = ((o.path, o.line, o.column) if o is not None else None, p.message)
            if key in seen:
                continue  # one base reached along several paths: its problem once
            seen.add(key)
            rule = C.INVALID_YAML if p.invalid_yaml else C.LIMIT if p.limit else structure_rules.KUSTOMIZE_ERROR
            if rule is structure_rules.KUSTOMIZE_ERROR:
                if serving is None:
                    serving = self._build_holds_launch_text(job, build)
                if not serving:
                    continue  # (a build of no server - a KV-cache indexer, a database - is not pdlint's to judge:
                    # llm-d-kv-cache-manager's 9 PD106 errors, field round rw34/a P3)
            if p.where.pieces:
                self.problem_at(rule, p.where, 0, p.message)
            else:
                self.problem(rule, None, 1, 1, p.message, path=job.display)
        if build.unapplied:
            from pdlint import coverage_rules as CR
            from pdlint.model import Gap
            for where, why, *hint in build.unapplied:
                self.out.build_gaps.append((Gap(CR.UNCHECKED.code, where, why if hint else why + ": the launches built "
                                                "from this kustomization may differ from what pdlint checked",
                                                hint[0] if hint else _UNAPPLIED_HINT), job.display))
        # base text an applied replace / remove, or a strategic-merge patch's command / args, took out: covered by
        # the overlay
        for text in build.superseded + kustomize.smp_superseded(build):
            for p in text.pieces:
                if p.src is not None:
                    width = p.end - p.start if p.exact and p.end > p.start else 1
                    first, last = p.src.position(p.offset)[0], p.src.position(p.offset + width - 1)[0]
                    for n in range(first, min(last, first + _NOTE_LINES) + 1):
                        self.out.notes.setdefault(p.src.path, {}).setdefault(n, None)
        unit = f"kustomization:{os.path.dirname(job.display) or '.'}"
        label = f"kustomize build of {job.display}"
        if build.skipped:
            label += " (" + "; ".join(sorted(set(build.skipped))) + ")"
        meta = {"kustomization": job.display}
        if build.refused():
            # kustomize refuses the build (PD106, rw30/a P5 / P6): each launch is checked as written, none is
            # paired - `kubectl apply -k` starts none of them
            label += ", which kustomize refuses (PD106): not paired"
            meta["build_refused"] = True
        from pdlint.formats import mounts
        local: dict = {}
        for r in build.resources:  # the build's ConfigMaps: what its containers mount
            if r.kind == "ConfigMap":
                for name, cm in mounts.configmaps([r.docs[r.di]], r.doc, r.src.path, r.src.abspath).items():
                    local.setdefault(name, cm)
                    self.remember_configmap(cm)
        for name, data in build.generated.items():  # configMapGenerator: each key's value is a file
            src = next((p.src for v in data.values() for p in v.pieces if p.src is not None), None)
            local[name] = mounts.ConfigMap(name, data, TStr("", ()), src.path if src else job.display,
                                           src.abspath if src else None)
        for w in kustomize.workloads(build, unit):
            src = kustomize.layer_source(w)
            jb = FileJob(src.abspath, src.path, job.root, "yaml") if src is not None and src.abspath else job
            self.workload_launches(jb, w, None, label, meta, local)

    # -- Helm ----------------------------------------------------------------------
    def helm_charts(self, jobs: list) -> dict:
        """abspath -> chart directory, for the files of Helm charts (templates, values)."""
        out: dict = {}
        candidates: dict = {}  # chart -> its other YAML files (values overlays, manifests beside it)
        for j in jobs:
            base = os.path.basename(j.abspath)
            if j.kind not in ("yaml", "tpl") and not base.endswith(".tpl"):
                continue
            chart = chart_root(j.abspath, j.root)
            if chart is None:
                continue
            rel = os.path.relpath(j.abspath, chart).replace(os.sep, "/")
            if rel.startswith("templates/") or (rel.startswith("values") and "/" not in rel) or rel == "Chart.yaml":
                out[j.abspath] = chart
            if j.kind == "yaml" and not rel.startswith("templates/"):
                candidates.setdefault(chart, []).append(j.abspath)
        for chart, paths in candidates.items():
            if chart in out.values():
                for p in self.overlays_in_tree(chart, paths):
                    out[p] = chart  # rendered with its chart, not read on its own
        named = {j.abspath for j in jobs}
        for chart in set(out.values()):
            for p in self.named_overlays(chart):
                if p in named and p not in out and self.values_mapping(p):
                    out[p] = chart  # (one that is no values mapping is read on its own too: PD003 says why)
        return out

    def values_mapping(self, path: str) -> bool:
        """Does a file parse as a YAML mapping (a values file Helm can merge)?"""
        from pdlint.formats import helm
        src = self.read(path, report=False)
        return src is not None and bool(helm.top_keys(src.text))

    def overlays_in_tree(self, chart: str, paths: list) -> list:
        """The values overlays among ``paths``, YAML files of ``chart``'s tree (:func:`helm.overlay_location`,
        :func:`helm.is_overlay`): the extra ``--values`` files a chart is installed with (aibrix's
        ``test/regression/v0.4.0/configs/sglang-disagg-base.yaml``, which its README installs the chart with)."""
        from pdlint.formats import helm
        vsrc = self.read(os.path.join(chart, "values.yaml"), report=False)
        keys = set(helm.top_keys(vsrc.text) or ()) if vsrc is not None else set()
        found, used = [], None
        for p in sorted(paths):
            if not keys or not helm.overlay_location(chart, p):
                continue
            src = self.read(p, report=False)
            if src is None:
                continue
            if not helm.is_overlay(keys, src.text):
                # an optional feature's section values.yaml leaves out (`.Values.pdCellSpec | default dict`)
                # that an example values file beside the chart turns on
                if used is None:
                    used = helm.template_value_keys(chart, lambda f: self.read(f, report=False))
                if not helm.is_overlay(keys | used, src.text):
                    continue
            found.append(p)
        self._chart_overlays[chart] = found
        return found

    def helm(self, job: FileJob, chart: str) -> None:
        """Render a chart (``helm template``, else pdlint's template subset) and read its manifests;
        when neither works, check values role sections and literal flag lines (PD104)."""
        from pdlint import structure_rules
        from pdlint.coverage import may_hold_launch
        from pdlint.formats import helm, keyed
        budget.stage("helm render")
        chart_display = display_path(chart, self.opt.cwd)
        unit = f"helm:{chart_display}"
        read = lambda p: self.read(p, report=False)  # noqa: E731
        started = time.monotonic()
        res, helm_failed = self.render_chart(chart, read, job.root)
        if res.rendered and res.failed is None:
            how = self.render_how(res, helm_failed)
            self.chart_launches(job, res, chart_display, unit, how)
            self.report_not_yaml(res, how)
            self.report_unrendered(job, chart, res, chart_display, unit, helm_failed)
            took = time.monotonic() - started
            overlays = self.chart_render_overlays(job, chart, chart_display, read, res, took)
            self.report_unset_guards(job, res, chart_display, overlays)
            self.note_unrendered_chart_lines(chart, chart_display, how, overlays)
            return
        # tier 3: values role sections + literal flag lines
        why = res.failed.message if res.failed is not None else "no templates"
        where = res.failed.where if res.failed is not None else None
        message = (f"Helm chart {chart_display} was not rendered: " +
                   ("helm template failed and " if helm_failed else "helm is not on PATH and ") +
                   f"pdlint's template subset stopped ({why}); only values.yaml role sections and literal flag "
                   f"lines of its templates were checked" + _no_values_note(res))
        if not self.chart_has_launch_text(chart):
            pass  # nothing a render would have checked (an operator's chart, a library chart): no coverage lost
        elif where is not None and where.pieces and not where.origin.path.startswith("<"):
            self.problem_at(structure_rules.HELM_NOT_RENDERED, where, 0, message)
        else:
            self.problem(structure_rules.HELM_NOT_RENDERED, None, 1, 1, message,
                         path=display_path(os.path.join(chart, "Chart.yaml"), self.opt.cwd))
        label = f"chart {chart_display} not rendered"
        templates = self.chart_templates(chart)
        if res.values is not None:
            vdoc = TStr.from_source(res.values)
            try:
                docs = yt.compose(res.values.text)
            except yt.YamlError as e:
                docs = []
                # the chart's values do not parse: helm cannot render or install the chart either (an error at
                # values.yaml's own line, not only the PD104 warning at Chart.yaml; field test rw21/h)
                self.problem_at(C.INVALID_YAML, vdoc, e.index, f"invalid YAML: {e.message_in(vdoc)} (the values of "
                                                               f"Helm chart {chart_display}: it cannot be rendered)")
            if docs and docs[0].root is not None and isinstance(yt.deref(yt.Ref(docs[0].root)).node, yt.YMap):
                vjob = FileJob(res.values.abspath, res.values.path, job.root, "yaml")
                engines = keyed.chart_engines(src.text for _, src in templates)
                for launch in keyed.values_launches(vjob, res.values, vdoc, yt.Ref(docs[0].root), unit,
                                                    chart=chart_display, chart_engines=engines):
                    launch.context += f"; {label}"
                    launch.meta["chart"] = chart_display
                    self.add_launch(launch)
        for f, src in templates:
            if not may_hold_launch(src.text):
                continue  # (a redis init container's `sh -c` in an argo-cd chart: nothing pdlint checks)
            self.go_template_literals(FileJob(f, src.path, job.root, "yaml"), src, unit, label,
                                      {"chart": chart_display})

    def chart_templates(self, chart: str) -> list:
        """(path, source) of the manifest and ``.tpl`` files of a chart's ``templates/`` folder that can be read."""
        from pdlint.formats import helm
        folder = os.path.join(chart, "templates")
        out = []
        for f in helm.chart_files(folder) if os.path.isdir(folder) else []:
            if helm.manifest_name(f) or f.endswith(".tpl"):
                src = self.read(f, report=False)
                if src is not None:
                    out.append((f, src))
        return out

    def render_chart(self, chart: str, read, root: str, overlay: Optional[SourceFile] = None) -> tuple:
        """(the chart's render: ``helm template``, else pdlint's template subset; whether ``helm template``
        failed), with ``values.yaml`` and ``overlay`` (a values file merged on top, as ``--values`` does).  A
        render whose output is not YAML has ``failed`` set."""
        from pdlint.formats import helm
        res = None
        helm_failed = False
        if helm.helm_binary() is not None:
            if self.deps is not None:  # helm reads every file of the chart (subcharts too), not only pdlint's reads
                for f in helm.chart_files(chart):
                    self.deps.weak(f)
            try:
                res = helm.render_helm(chart, read, root, overlay)
            except Exception:  # a mapping bug must not stop the scan
                res = None
            helm_failed = res is None
        if res is None or not res.rendered:
            res = helm.render_subset(chart, read, overlay, self.read_bytes)
        if res.rendered and res.failed is None:
            good, bad = [], []
            for r in res.rendered:
                try:
                    yt.compose(r.text.text)
                except yt.YamlError as e:
                    bad.append((r, e))
                else:
                    good.append(r)
            if bad and not good:
                r, e = bad[0]
                res.failed = helm.Unsupported(f"the rendered {os.path.basename(r.template.path)} is not YAML "
                                              f"({e.message_in(r.text)})", r.text[e.index:e.index + 1])
            elif bad:
                # one template whose render is not YAML does not change what the others render: they are read,
                # it is reported (volcano-sh/kthena's chart, field test rw19/b: one over-indented non-PD template
                # left the whole chart unrendered, four errors in its PD templates unseen)
                res.rendered = good
                res.not_yaml = bad
        return res, helm_failed

    def report_unrendered(self, job: FileJob, chart: str, res, chart_display: str, unit: str,
                          helm_failed: bool, overlay: Optional[str] = None, said: frozenset = frozenset()) -> None:
        """PD104 for each template of a chart pdlint's subset could not render while it rendered the others (one
        that holds launch text, or includes a define that may); the literal flag lines of such a template are
        checked as for a chart that is not rendered at all."""
        from pdlint import structure_rules
        from pdlint.coverage import has_launch_text, may_hold_launch
        if not res.unrendered or not self.chart_has_launch_text(chart):
            return  # nothing a render would have checked (sgl-project/ome's ome-resources chart): no coverage lost
        for src, e in res.unrendered:
            if not has_launch_text(src.text) and not re.search(r"\b(?:include|template)\s+\"", src.text):
                continue  # (`checksum/config: {{ include ... | sha256sum }}` on a ConfigMap: no launch lost)
            name = os.path.basename(src.path)
            if src.path in said:
                continue  # (said for the render with values.yaml already)
            message = (f"{name} of Helm chart {chart_display}"
                       + (f" with values overlay {overlay}" if overlay is not None else "") + " was not rendered: "
                       + ("helm template failed and " if helm_failed else "helm is not on PATH and ")
                       + f"pdlint's template subset stopped there ({e.message}); only its literal flag lines were "
                         f"checked, the chart's other templates were rendered and checked" + _no_values_note(res))
            if e.where is not None and e.where.pieces and not e.where.origin.path.startswith("<"):
                self.problem_at(structure_rules.HELM_NOT_RENDERED, e.where, 0, message)
            else:
                self.problem(structure_rules.HELM_NOT_RENDERED, None, 1, 1, message, path=src.path)
            if src.abspath and may_hold_launch(src.text):
                self.go_template_literals(FileJob(src.abspath, src.path, job.root, "yaml"), src, unit,
                                          f"template {name} of chart {chart_display} not rendered",
                                          {"chart": chart_display})

    def report_not_yaml(self, res, how: str) -> None:
        """PD003 for a chart template whose render is not YAML at a line without a template action (every
        render fails there, `helm template` too); PD104 where template logic produced the bad text (pdlint's
        subset may be what got it wrong)."""
        from pdlint import structure_rules
        for r, e in res.not_yaml:
            o = r.text.origin_at(e.index) if r.text.pieces else None
            lines = r.template.text.split("\n")
            near = [lines[i] for i in (o.line - 2, o.line - 1) if o is not None and 0 <= i < len(lines)]
            name = os.path.basename(r.template.path)
            if near and not any("{{" in line for line in near):
                self.problem_at(C.INVALID_YAML, r.text, e.index,
                                f"invalid YAML in every render of {name} (no template action here): "
                                f"{e.message_in(r.text)}; the chart's other templates were checked")
            else:
                self.problem_at(structure_rules.HELM_NOT_RENDERED, r.text, e.index,
                                f"the render of {name} by {how} is not YAML ({e.message_in(r.text)}): its launches "
                                f"were not checked; the chart's other templates were")

    @staticmethod
    def render_how(res, helm_failed: bool) -> str:
        return "helm template" if res.how == "helm template" else \
            "pdlint's Helm template subset" + (" (helm template failed)" if helm_failed else " (helm not on PATH)")

    def chart_launches(self, job: FileJob, res, chart_display: str, unit: str, how: str,
                       overlay: Optional[str] = None) -> None:
        """The launches of one render of a chart (``overlay``: the values overlay it was rendered with, relative
        to the chart), all in the deployment unit ``unit``."""
        meta = {"chart": chart_display, "rendered_by": res.how}
        label = f"chart {chart_display} rendered by {how}"
        if overlay is not None:
            meta["values_overlay"] = overlay
            label = f"chart {chart_display} rendered with values overlay {overlay} by {how}"
        elif getattr(res, "values", None) is None:
            meta["no_values"] = True  # a chart that ships no values.yaml, rendered with none
        for r in res.rendered:
            if not r.template.abspath:
                continue
            self.note_rendered(r.text)
            jb = FileJob(r.template.abspath, r.template.path, job.root, "yaml")
            self.yaml(jb, r.template, r.text, None, label, unit=unit, unit_meta=dict(meta), keyed=False)

    def named_overlays(self, chart: str) -> list:
        """The values files the config's ``helm-values`` names for ``chart`` (globs relative to the config's
        directory), in name order per glob, each once; never the chart's own values.yaml."""
        hit = self._named_overlays.get(chart)
        if hit is not None:  # (asked for by the chart's members, its render and its overlays: walked once)
            return list(hit)
        cfg = self.config_for(os.path.join(chart, "Chart.yaml"))
        own = os.path.join(os.path.normpath(chart), "values.yaml")
        root = self.boundary.root_for(os.path.join(chart, "Chart.yaml"))
        out: list = []
        for pattern in cfg.helm_values.get(os.path.normpath(chart), ()):
            # (field test rw22/h: a glob through a committed link out of the repository listed the names of
            # the files there in the overlay's "cannot be read" message; what is outside is never matched)
            for p in safe_glob(pattern, lambda d: self.boundary.contains(d, root), self._glob_walk):
                p = os.path.abspath(p)
                if p not in out and p != own and self.boundary.is_file(p, root):
                    out.append(p)
        self._named_overlays[chart] = out
        return list(out)

    def chart_overlay_paths(self, chart: str) -> list:
        """The values overlays of a chart: those found in its tree, then those its config's ``helm-values``
        names for it, each once."""
        out = list(self._chart_overlays.get(chart, ()))
        return out + [p for p in self.named_overlays(chart) if p not in out]

    def chart_render_overlays(self, job: FileJob, chart: str, chart_display: str, read, base,
                              took: float = 0.0) -> "OverlayRuns":
        """Render the chart once per values overlay (at most :data:`helm.MAX_OVERLAYS`), each render its own
        deployment unit (``helm:<chart> --values <overlay>``): the launches of two overlays are alternative
        deployments of the chart and never pair.  A render that produces exactly what an earlier one did (an
        overlay restating the defaults) adds no launch: its findings would be the earlier ones again.  ``took``:
        the seconds a render with values.yaml took; a render that would leave the file less than twice that of
        its budget is not made (the chart checked with fewer overlays, not over budget and not checked at all)."""
        from pdlint.formats import helm
        paths = self.chart_overlay_paths(chart)
        runs = OverlayRuns([], [], [os.path.relpath(p, chart).replace(os.sep, "/")
                                   for p in paths[helm.MAX_OVERLAYS:]])
        seen = {_render_signature(base)}
        for p in paths[:helm.MAX_OVERLAYS]:
            rel = os.path.relpath(p, chart).replace(os.sep, "/")
            left = budget.time_left()
            if left is not None and left < 3 * took:
                runs.failed.append((rel, "too little of the file's time budget left"))
                continue
            started = time.monotonic()
            src = self.read(p, report=False)
            if src is None:
                runs.failed.append((rel, "it cannot be read"))
                continue
            res, helm_failed = self.render_chart(chart, read, job.root, src)
            took = max(took, time.monotonic() - started)
            if not res.rendered or res.failed is not None:
                runs.failed.append((rel, res.failed.message if res.failed is not None else "no templates"))
                continue
            runs.rendered.append(rel)
            runs.guards.append({_guard_key(g) for g in res.guards})
            # a template this overlay's values lead into a construct the subset cannot render, while the others
            # rendered: PD104 at it, not "no values reach it" (sjm446/ai-on-eks, field test rw26/a: `kebabcase`)
            self.report_unrendered(job, chart, res, chart_display, f"helm:{chart_display} --values {rel}",
                                   helm_failed, rel, {u[0].path for u in base.unrendered})
            sig = _render_signature(res)
            if sig in seen:
                continue
            seen.add(sig)
            self.chart_launches(job, res, chart_display, f"helm:{chart_display} --values {rel}",
                                self.render_how(res, helm_failed), rel)
        return runs

    def chart_may_launch(self, chart: str) -> bool:
        """Can a render of the chart hold launch text: does a file it renders from hold a word launch text is
        made of (:func:`pdlint.coverage.may_hold_launch`: ``vllm``, ``sglang``, ``disagg``..., comments too) -
        its templates, a YAML file of its tree (values.yaml, the values overlays), the helper templates of its
        dependencies in ``charts/`` (an archived dependency counts as one that may), a values file the config's
        ``helm-values`` names?  A chart without (redis, argo-cd: most charts of a charts repository) is not
        rendered at all."""
        from pdlint.coverage import may_hold_launch
        from pdlint.formats import helm
        tdir = os.path.join(chart, "templates")
        paths = [p for p in helm.chart_files(chart)
                 if p.startswith(tdir + os.sep) or p.endswith((".yaml", ".yml", ".json", ".tpl"))]
        cdir = os.path.join(chart, "charts")
        for name in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else ():
            if name.endswith((".tgz", ".tar.gz")):
                return True
            sub = os.path.join(cdir, name, "templates")
            if os.path.isdir(sub) and not os.path.islink(os.path.join(cdir, name)):
                paths += [p for p in helm.chart_files(sub) if os.path.basename(p).startswith("_")]
        for path in paths + self.named_overlays(chart):
            src = self.read(path, report=False)
            if src is not None and may_hold_launch(src.text):
                return True
        return False

    def chart_has_launch_text(self, chart: str) -> bool:
        """Does a chart's values.yaml or any file of its templates hold launch text (outside comments: a
        values.yaml comment listing `trtllm-serve` among the server types it accepts is none)?"""
        from pdlint.coverage import find_markers, has_launch_text
        from pdlint.formats import helm
        tdir = os.path.join(chart, "templates")
        paths = [os.path.join(chart, "values.yaml")] + (list(helm.chart_files(tdir)) if os.path.isdir(tdir) else [])
        for path in paths:
            src = self.read(path, report=False) if os.path.isfile(path) else None
            if src is not None and has_launch_text(src.text) and find_markers(src.text):
                return True
        return False

    def report_unset_guards(self, job: FileJob, res, chart_display: str, overlays: "OverlayRuns") -> None:
        """PD020, once per template file, for branches that write flags and that no render of the chart (with
        values.yaml, with each values overlay) took because their test reads a value no values file sets: the
        template took it as nil, as Helm does, so the flags were never rendered, hence never checked
        (``{{- if .Values.spec }} - --enable-x{{- end }}``; the Jinja twin is render/jinja's unrendered guard).
        A value set to false in a values file is a default: its branch stays quiet, as one ``helm template`` with
        that file would.  (``helm template``'s render tells no such thing: only pdlint's subset reports them.)"""
        from pdlint.coverage import MARKER
        from pdlint.structure_rules import router_options_judged
        kept = [g for g in res.guards if all(_guard_key(g) in keys for keys in overlays.guards)]
        checked = set()  # the template files that built a launch whose flags pdlint checks (a server, a router
        for launch in self.out.launches:  # with a table): a flag in another container (a router image's own
            if launch.meta.get("chart") == chart_display and (  # args, a sidecar) is no launch text
                    launch.kind != "router" or router_options_judged(launch)):
                checked.add(launch.path)
        files = len(overlays.rendered)
        read = "values.yaml" + (f" and {files} values overlay{'s' if files > 1 else ''}" if files else "")
        by_file: dict = {}
        for src, act, path, lines in kept:
            o = act.origin_at(0) if act.pieces else None
            if o is None or o.path.startswith("<"):
                continue
            # a branch whose launch text coverage names line by line (an engine word, a PD flag): those lines say
            # why they were not checked; the PD020 below is for a branch of other flags, which coverage does not see
            noted = False
            for p, n in sorted(lines):
                srcf = act.pieces[0].src if p == o.path else None
                if srcf is None or n in self.out.rendered.get(p, set()) or not MARKER.search(srcf.line_text(n)):
                    continue
                self.out.notes.setdefault(p, {}).setdefault(n, (
                    f"it is in a branch (line {o.line}) guarded by `.Values.{'.'.join(path)}`, which no values file "
                    f"pdlint read ({read}) sets: the template took it as unset", _unset_hint([path]), None))
                noted = True
            if not noted and src.path in checked:
                by_file.setdefault(o.path, []).append((o.line, o.column, act, path))
        for items in _merged_unless_ignored(by_file.values(), lambda x: (x[2].pieces[0].src, x[0])):
            names = list(dict.fromkeys(".Values." + ".".join(x[3]) for x in items))
            lines = sorted({x[0] for x in items})
            shown = ", ".join(f"`{n}`" for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            one = len(names) == 1
            message = (f"flags guarded by {shown} on line{'s' if len(lines) > 1 else ''} {_line_list(lines)} were "
                       f"not rendered: no values file pdlint read ({read}) sets {'it' if one else 'them'}, so the "
                       f"template took {'it' if one else 'them'} as unset and the flags went unchecked")
            self.unchecked(items[0][2], message, _unset_hint([x[3] for x in items]), job)

    def note_unrendered_chart_lines(self, chart: str, chart_display: str, how: str,
                                    overlays: Optional["OverlayRuns"] = None) -> None:
        """Launch text in a rendered chart's templates that no render produced: a branch the chart's
        values.yaml (and its values overlays) does not take (`{{- if .Values.backendRuntime.enabled }}` with the
        feature off by default).  Said on its lines (coverage reasons), naming the overlays left out."""
        from pdlint.coverage import MARKER
        from pdlint.formats import helm
        templates = os.path.join(chart, "templates")
        for f in helm.chart_files(templates) if os.path.isdir(templates) else []:
            if not (helm.manifest_name(f) or f.endswith(".tpl")):
                continue
            src = self.read(f, report=False)
            if src is None or not MARKER.search(src.text):
                continue
            done = self.out.rendered.get(src.path, set())
            notes = self.out.notes.setdefault(src.path, {})
            for n, line in enumerate(src.text.split("\n"), 1):
                if n not in done and MARKER.search(line):
                    notes.setdefault(n, (_unrendered_reason(chart_display, how, overlays),
                                         f"check what the chart renders with the values it is deployed with (`helm "
                                         f"template {chart_display} -f <values> > rendered.yaml`, then pdlint "
                                         f"rendered.yaml), or set those values in its values.yaml or in a values "
                                         f"overlay pdlint renders it with (a YAML file in the chart's directory "
                                         f"whose top-level keys are values.yaml keys or keys its templates name, "
                                         f"or one `helm-values` names)",
                                         None))

    def go_template_literals(self, job: FileJob, src: SourceFile, unit: str, label: str,
                             meta: Optional[dict] = None) -> None:
        """Launches from the literal ``- item`` lines of a Go template (template actions stay opaque)."""
        from pdlint.formats import crd, helm
        for define, words in helm.literal_commands(src):
            words = [kube.expand_refs(w, {}) for w in words]  # $(VAR): set by Kubernetes at run time
            m = {"unit": unit, "literal_lines": True, **(meta or {})}
            context = f"literal flag lines of {define or os.path.basename(job.abspath)}; {label}"
            for launch in self.command_launches(job, words, {}, context, None, m):
                launch.unit = unit
                role = crd.role_of_name(define) if define else crd.role_of_name(os.path.basename(job.abspath))
                if role:
                    launch.structural_role = role
                    launch.structural_origin = words[0].origin
                    launch.meta["role_how"] = "named template" if define else "template file name"
                launch.incomplete = True
        # the rest of its launch text (a block scalar's script, a line with an action) is not read: say so there
        from pdlint.coverage import MARKER
        notes = self.out.notes.setdefault(src.path, {})
        for n, line in enumerate(src.text.split("\n"), 1):
            if MARKER.search(line):
                notes.setdefault(n, (f"it is in a Go template ({label}), of which pdlint reads only the literal "
                                     f"`- item` lines, not a block scalar's script or a line with a template action",
                                     "check what the tool that renders it writes (helm template, the controller's "
                                     "output), or write the flags as literal `- item` lines", None))

    # -- templates of a language pdlint does not render ------------------------------------
    def foreign_template(self, src: SourceFile, language: str, where: str, hint: str) -> None:
        """A Handlebars/Mustache or Terraform template (:func:`_foreign_template`): not read as the YAML or
        Jinja its name suggests (its text is no YAML, and no Jinja, until its own tool fills it: not a
        PD003/PD004 of a broken file), and its launch text said unchecked on its lines, naming the language
        (one note for all of them: one PD020 for the file, as for a file kind pdlint does not read)."""
        from pdlint.coverage import MARKER
        note = (f"it is in a {language} template ({where}), which pdlint does not render", hint, None)
        notes = self.out.notes.setdefault(src.path, {})
        for n, text in enumerate(src.text.split("\n"), 1):
            if MARKER.search(text):
                notes.setdefault(n, note)

    # -- Jinja -------------------------------------------------------------------
    def jinja(self, job: FileJob, src: SourceFile) -> None:
        from pdlint.render.jinja import Limits, render_template
        budget.stage("template transform")
        cfg: Config = self.config_for(job.abspath)
        role_files = ansible_role_files(job.abspath, job.root)
        options = cfg.jinja
        role_dir = ansible_role_dir(job.abspath, job.root)
        found = self.ansible_plays(job, role_dir) if options is None or options.preset in (None, "ansible") else None
        plays = found.plays if found is not None else []
        by_ansible = (role_dir is not None or bool(plays)) and (options is None or options.preset == "ansible")
        if by_ansible:
            # a role's template renders with Ansible's filters and facts (`{{ ansible_managed | comment }}`,
            # `| to_json`: PD004 stopped the render, jedmund/homelab, field test rw14/h), and the inventory's
            # variables (group_vars/, host_vars/) are values of the host it deploys to
            from pdlint.records import replace
            from pdlint.render.jinja import JinjaOptions
            names = set(self.inventory_names(role_dir, job.root)) if role_dir is not None else set()
            for play in plays:
                names |= self.inventory_names(os.path.join(os.path.dirname(play.playbook), "_"), job.root)
            options = replace(options or JinjaOptions.for_preset("ansible"), inventory=frozenset(names))
        from pdlint.render.jinja import CONTINUED_TAG
        if options is None and CONTINUED_TAG.search(src.text):
            # a command continued across block-tag lines, in a repository whose Python renders templates with
            # trim_blocks: rendered so, the command whole and its flags checked (field test rw23/h: rendered
            # without it, the flags after the tag lines were a PD060 warning, unchecked, and any such call - dead
            # code, a test helper - passed them); said where the tag lines are
            from pdlint.discover import repo_root
            trimmed_by = self.repo_trims_blocks(repo_root(src.abspath, {}) or os.path.dirname(src.abspath))
            if trimmed_by:
                from pdlint.render.jinja import JinjaOptions, trim_continued
                from pdlint.shell_rules import BROKEN_CONTINUATION
                trimmed = trim_continued(src.text)
                # (only there: the other lines as a render without it writes them, rw24/h item 8)
                options = JinjaOptions(trimmed_source=trimmed) if trimmed is not None else \
                    JinjaOptions(trim_blocks=True)
                at = CONTINUED_TAG.search(src.text).start() + 1
                line, col = src.position(at + src.text[at:].index("{%"))
                self.problem(BROKEN_CONTINUATION, src, line, col,
                             f"a command continues across block-tag lines: rendered without trim_blocks they are "
                             f"blank lines that end it; checked as rendered with trim_blocks=True "
                             f"{'there' if trimmed is not None else 'in the whole template'}, as the "
                             f"repository's Python renders templates ({trimmed_by})", severity=WARNING,
                             fix="Say how the templates render: `[tool.pdlint.jinja] trim-blocks = true` (then this "
                                 "is not reported), or write the tags as `{%- ... %}` so that any render keeps the "
                                 "command whole.")
        # one render (per role) with the config's variables, or one per play of the repository's playbooks that
        # renders this template, with the variables Ansible gives it there (field test rw18/o, repro 7)
        contexts: list = []
        seen: set = set()
        for play in plays or [None]:
            bools: dict = {}
            layers = self.play_layers(play) if play is not None else ((), ())
            variables, role_vars = self.variables(cfg, bools, role_files, layers)
            key = repr(sorted((k, _plain_repr(v)) for k, v in variables.items()))
            if key not in seen:
                seen.add(key)
                given = frozenset(k for layer in layers[0] + layers[1] for k in layer)
                contexts.append((play, variables, role_vars, bools, given))
        # plays past the cap (after those giving the same variables are merged): said where they start, as
        # are playbooks not read (field test rw22/h items 7, 8: a ninth play's SGL101 was dropped with no word)
        lost = self._plays_not_rendered(job, found, contexts)
        del contexts[MAX_RENDERED_PLAYS:]
        limits = Limits(render_seconds=cfg.render_timeout or self.opt.render_seconds, max_file_bytes=MAX_FILE_BYTES)

        read_here: list = []  # what this template includes or imports (its text: may it hold a launch?)

        def read_file(full: str) -> Optional[SourceFile]:
            self._included.add(os.path.realpath(full))
            src = self.read(full, report=False)
            if src is not None:
                read_here.append(src.text)
            refused = self.refused.get(os.path.abspath(full)) if src is None else None
            if refused is not None and refused.kind != "missing":
                import jinja2  # the template exists but is no file pdlint reads: say why (PD007)
                name = os.path.relpath(full, job.root).replace(os.sep, "/")
                raise jinja2.TemplateNotFound(name, f"{name!r} is not read: {refused.reason}")
            return src

        search = []
        if cfg.root and (cfg.root + os.sep).startswith(job.root + os.sep):
            rel = os.path.relpath(cfg.root, job.root).replace(os.sep, "/")
            if rel != ".":
                search.append(rel)
        renders: list = []  # [(Rendered, the play it renders for or None)]
        problems: list = []
        known: set = set()
        for play, variables, role_vars, bools, given in contexts:
            dirs = list(search)
            if by_ansible:
                dirs += [d for d in _ansible_search_path(job, role_dir, play) if d not in dirs]
            got, found, _ = render_template(
                src, job.rel, root=job.root, cwd=self.opt.cwd, variables=variables,
                role_var=self.opt.role_var or cfg.role_var, role_vars=role_vars, limits=limits,
                read_file=read_file, search_dirs=tuple(dirs), options=options, value_positions=bools,
                given=given)
            renders += [(r, play) for r in got]
            for p in found:
                if play is not None and p.code == "undefined":
                    # a variable no play, inventory file, role file or fact set: given at deploy time (extra
                    # vars, an inventory outside the repository); rendered as a value pdlint cannot see
                    continue
                k = (p.code, p.src.path if p.src else None, p.line, p.column, p.message)
                if k not in known:
                    known.add(k)
                    problems.append(p)
        variables, role_vars = contexts[0][1], contexts[0][2]
        plain = [r for r, _ in renders]
        problems = self.unknown_filters(src, problems)
        rule_for = {"syntax": C.TEMPLATE_SYNTAX, "undefined": C.UNDEFINED, "render": C.RENDER_ERROR,
                    "include": C.INCLUDE, "limit": C.LIMIT, "filter": C.UNKNOWN_FILTER, "test": C.UNKNOWN_FILTER}
        includes = _includes_may_launch(src, read_here, problems)
        foreign = _not_a_launch_template(job.abspath, src, plain, includes)
        far: frozenset = frozenset()  # (file, line) of undefined uses no launch can be built from
        if foreign:
            problems = [p for p in problems if p.code == "limit"]  # a chat template: its Jinja is not ours to judge
        elif not _may_launch(src, plain, (variables, role_vars), includes):
            takes = _may_take_a_command(job.abspath, src, plain)
            # (an unknown filter's or test's result is a value pdlint cannot see, as an undefined variable's)
            drop = ("render", "unrendered") if takes else ("render", "undefined", "unrendered", "filter", "test")
            if takes and not _is_script_template(job.abspath, src):
                # a manifest with no launch text: an undefined name only in an env value, a ConfigMap value, a
                # name or a label makes no launch whatever its value (vllm-project/vllm-ascend's LWS template,
                # `value: "{{ aop_multi_enabled }}"`, field report rw28/a P3): a warning, not PD005's error
                reach = _launch_reaching_lines(src.text)
                far = frozenset((src.path, n) for n in range(1, src.text.count("\n") + 2) if n not in reach)
            if _OTHER_DELIMITERS.search(src.text):
                # nor its syntax, when its tool sets other delimiters and keeps GitHub's `${{ a || b }}` for
                # Actions (THUDM/slime's `<% %>` workflow templates, field test rw13/e)
                drop += ("syntax",)
            problems = [p for p in problems if p.code not in drop]
            lost = []  # (a template that holds no launch: nothing of it went unchecked)
        if not foreign:
            self.out.build_gaps.extend(lost)
        guards: dict = {}  # file -> [(line, column, name, problem)] of the branches Jinja skipped
        for p in problems:
            if p.code == "unrendered":
                at = p.src or src
                name = re.match(r"\w*", at.line_text(p.line)[p.column - 1:]).group() or "-"
                guards.setdefault(at.path, []).append((p.line, p.column, name, p, at))
        for items in _merged_unless_ignored(guards.values(), lambda x: (x[4], x[0])):
            # one PD020 per file, at its first such guard (a generator's template guards every flag with
            # `{% if sglang.x is defined %}`: ai-dynamo/aiconfigurator's cli_args.j2, one warning per line before)
            line, column, name, p, at = items[0]
            names = list(dict.fromkeys(x[2] for x in items))
            lines = sorted({x[0] for x in items})
            message, hint = p.message, p.hint
            if len(items) > 1:
                shown = ", ".join(f"'{n}'" for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5
                                                                   else "")
                message = (f"launch text guarded by {shown} on line{'s' if len(lines) > 1 else ''} "
                           f"{_line_list(lines)} was not rendered: no file pdlint read sets "
                           f"{'it' if len(names) == 1 else 'them'}, so Jinja took "
                           f"{'it' if len(names) == 1 else 'them'} as unset and what they guard went unchecked")
                hint = (f"give {'it' if len(names) == 1 else 'them'} the values the deployment gives (`--var "
                        f"{names[0]}=...`, or under `[tool.pdlint.vars]`) to check those branches, or "
                        f"`# pdlint: ignore[PD020]` where they are never set")
            self.unchecked(TStr.at(name, at, at.offset_of(line, column)), message, hint, job)
        problems = [p for p in problems if p.code != "unrendered"]
        for p, also, tested, away in _one_per_undefined_name(problems, src, far):
            message = p.message + (f" (also used on line{'s' if len(also) > 1 else ''} "
                                   f"{_line_list(also)})" if also else "") + \
                (_ONLY_TESTED if tested else _OFF_THE_LAUNCH if away else "")
            self.problem(rule_for[p.code], p.src or src, p.line, p.column, message, fix=p.hint,
                         severity=WARNING if tested or away else None)
        inner = _inner_kind(job.abspath)
        for r, play in renders:
            self.note_rendered(r.text)
            if foreign:
                continue  # nor is its output shell or YAML (`{{- '<|begin_of_sentence|>' -}}` is no redirection)
            kind = inner or _sniff(r.text.text)
            label = f"rendered with {r.role_var}={r.role_value!r}" if r.role_var else "rendered"
            if play is not None:
                label += f" for {play.label(display_path(play.playbook, self.opt.cwd))}"
            before = len(self.out.launches)
            if kind == "yaml":
                self.yaml(job, src, r.text, r.role, label)
            elif kind == "systemd":
                self.systemd(job, src, r.text, r.role, label)
            elif kind == "text":
                pass  # (its launch text: PD020)
            else:
                self.shell(job, src, r.text, r.role, label)
            if r.role_var:
                for launch in self.out.launches[before:]:  # pdlint --fix can add a branch on this variable
                    launch.meta.setdefault("render_var", (r.role_var, r.role_value))
                    if launch.structural_role == r.role and _role_bound_by_template(launch, r.role_var, r.role):
                        launch.structural_role = None
                        launch.meta.pop("role_hint", None)
                        launch.meta.pop("role_how", None)

    def ansible_plays(self, job: FileJob, role_dir: Optional[str]):
        """The plays of the repository's playbooks that render this template, in a stable order, and what was
        not looked at (:func:`pdlint.formats.ansible_plays.search_plays`, a ``Found``)."""
        from pdlint.formats.ansible_plays import Found, search_plays

        def read(path: str) -> Optional[SourceFile]:
            return self.read(path, report=False) if os.path.isfile(path) else None

        try:
            return search_plays(job.abspath, role_dir, job.root, read, self.listdir)
        except (yt.YamlError, RecursionError):
            return Found()

    def _plays_not_rendered(self, job: FileJob, found, contexts: list) -> list:
        """PD020 gaps (``build_gaps`` entries) for the plays that render the template past
        :data:`MAX_RENDERED_PLAYS` distinct variable sets (at the first of them), and for candidate playbooks
        not read (at the template)."""
        from pdlint import coverage_rules as CR
        from pdlint.formats import ansible_plays as ap
        from pdlint.model import Gap
        out: list = []
        if found is None:
            return out
        first = contexts[MAX_RENDERED_PLAYS][0] if len(contexts) > MAX_RENDERED_PLAYS else found.over
        if first is not None:
            more = len(contexts) - MAX_RENDERED_PLAYS
            count = "this play, with variables of its own, also renders" if more == 1 and found.over is None \
                else f"{more if found.over is None else f'{max(more, 1)} or more'} plays from this one on, each " \
                     f"with variables of its own, also render"
            src = self.read(first.playbook, report=False)
            where = TStr.at("-", src, first.offset) if src is not None else None
            out.append((Gap(CR.UNCHECKED.code, where,
                            f"{count} {job.display}, but pdlint renders a template for at most {MAX_RENDERED_PLAYS} "
                            f"plays' variables: their renders were not checked",
                            "give the plays that render the template the same variables where they agree (pdlint "
                            "renders plays with equal variables once), or check this play's values with "
                            "`[tool.pdlint.vars]` in a config of its own"), job.display))
        if found.unread or found.unscanned:
            what = (f"{found.unread} playbook{'s' if found.unread != 1 else ''} naming "
                    f"{'the role' if ansible_role_dir(job.abspath, job.root) else 'this template'} "
                    f"past the first {ap.MAX_PLAYBOOKS}") if found.unread else ""
            if found.unscanned:
                what += (" and " if what else "") + f"the YAML files past the first {ap.MAX_SCANNED} beside it"
            out.append((Gap(CR.UNCHECKED.code, None,
                            f"{what} were not read: the plays that render this template may be among them, with "
                            f"values pdlint did not check", "keep fewer playbooks naming the role beside it and "
                            "above it (pdlint parses at most "
                            f"{ap.MAX_PLAYBOOKS}), or give the plays' values in `[tool.pdlint.vars]`"), job.display))
        return out

    def _read_quietly(self, path: str) -> Optional[SourceFile]:
        return self.read(path, report=False) if os.path.isfile(path) else None

    def listdir(self, path: str) -> list:
        """The names in a directory, sorted, at most 4096 (empty when it is none): Ansible playbooks and
        inventories looked for."""
        names = self._listings.get(path)
        if names is None:
            try:
                names = sorted(os.listdir(path))[:4096] if os.path.isdir(path) else []
            except OSError:
                names = []
            self._listings[path] = names
        return names

    def layer_values(self, layer) -> dict:
        """name -> TStr of the scalar variables of an Ansible variables layer
        (:class:`~pdlint.formats.ansible_plays.Layer`): a whole file, or a mapping in one."""
        from pdlint.formats.yaml_shell import named_values
        if layer.pairs:  # an INI inventory's `[group:vars]`: each value a string, as Ansible reads them
            return {k: TStr.from_source(layer.src, a, b) for k, a, b in layer.pairs}
        try:
            ref = _layer_mapping(layer)
            if ref is None:
                return {}
            return {k: v for k, v in named_values(TStr.from_source(layer.src), ref).items()
                    if isinstance(k, str) and k not in layer.skip}
        except (yt.YamlError, RecursionError):
            return {}

    def play_layers(self, play) -> tuple:
        """(low, high) variable mappings of an Ansible play (:class:`~pdlint.formats.ansible_plays.Play`), each
        value positioned where it is written (a value that is a template itself: opaque)."""
        from pdlint.config import MAX_VALUES_NODES, _positioned_value

        def values(layer) -> dict:
            if layer.pairs:  # an INI inventory's `[group:vars]`: strings (Ansible does not parse them)
                from pdlint.render.jinja import OStr
                return _ansible_values({k: OStr(TStr.from_source(layer.src, a, b)) for k, a, b in layer.pairs})
            try:
                ref = _layer_mapping(layer)
                if ref is None:
                    return {}
                doc = TStr.from_source(layer.src)
                spend = [MAX_VALUES_NODES]
                return _ansible_values({k: _positioned_value(doc, v, spend, (k,)) for k, v in yt.map_items(ref)
                                        if isinstance(k, str) and k not in layer.skip})
            except (yt.YamlError, RecursionError):
                return {}

        return tuple(values(x) for x in play.low), tuple(values(x) for x in play.high)

    def inventory_names(self, role_dir: str, root: str) -> frozenset:
        """The variables an Ansible inventory kept in the repository sets (top-level keys of the files under
        ``group_vars/`` and ``host_vars/`` at the role's directory or above it, inside ``root``, and the group
        variables of its inventory files)."""
        from pdlint.formats.ansible_plays import inventory_files
        from pdlint.formats.ansible_plays import inventory_names as inventory_file_names
        memo = self._inventory_memo
        key = (os.path.dirname(role_dir), root)
        if key in memo:  # (every role of a repository: one walk; each file read again records it for the cache)
            paths, names = memo[key]
            for path in paths:
                self.read(path, report=False)
            return names
        names: set = set()
        paths: list = []
        d = os.path.dirname(role_dir)
        while True:
            for f in inventory_files(d, root, self._read_quietly, self.listdir):
                # (an inventory file's group variables: INI `[group:vars]`, YAML `vars:`, field test rw22/h)
                paths.append(f)
                src = self.read(f, report=False)
                if src is not None:
                    try:
                        names.update(inventory_file_names(src))
                    except (yt.YamlError, RecursionError):
                        pass
            for rel in _INVENTORY_DIRS:
                base = os.path.join(d, rel)
                # (os.walk follows the top it is given: `group_vars -> /` committed walked the machine's 18,515
                # directories, field test rw22/h; a walk inside the repository, bounded)
                if not os.path.isdir(base) or not self.boundary.contains(base, root):
                    continue
                walked = 0
                for top, dirs, files in os.walk(base):
                    walked += len(dirs) + len(files)
                    if walked > MAX_INVENTORY_WALK or top.count(os.sep) - base.count(os.sep) >= 4:
                        dirs[:] = []
                    dirs[:] = sorted(x for x in dirs if not x.startswith("."))[:64]
                    for n in sorted(files)[:256]:
                        if n.startswith(".") or not (n.endswith((".yml", ".yaml")) or "." not in n):
                            continue
                        paths.append(os.path.join(top, n))
                        src = self.read(paths[-1], report=False)
                        if src is not None:
                            names.update(_TOP_KEY.findall(src.text))
            if d == root or len(d) <= len(root) or os.path.dirname(d) == d:
                break
            d = os.path.dirname(d)
        memo[key] = (paths, frozenset(names))
        return memo[key][1]

    def release_pins(self, job: FileJob) -> Optional[dict]:
        """The release a script's launches run with by a file beside it (:mod:`pdlint.formats.pins`): the
        image of a Dockerfile that runs it (``meta["script_image"]``, taken by a launch with no image of its
        own) and exact pip pins (``meta["pins"]``: engine -> version), each with where it is written."""
        from pdlint.formats.pins import release_pins

        def read(path: str) -> Optional[str]:
            src = self.read(path, report=False)
            return src.text if src is not None else None

        def probe(path: str) -> None:
            if self.deps is not None:
                self.deps.weak(path)

        def listdir(path: str) -> list:
            names = self._dir_names.get(path)
            if names is None:
                names = self._dir_names[path] = [n for n in os.listdir(path) if _PIN_FILE.match(n)]
            return names

        found = release_pins(job.abspath, job.root, read, probe, listdir)
        if not found:
            return None
        meta: dict = {}
        if "image" in found:
            image, path, line = found["image"]
            meta["script_image"] = image
            meta["script_image_at"] = (display_path(path, self.opt.cwd), line)
        pins = {k: v for k, v in found.items() if k != "image"}
        if pins:
            meta["pins"] = {k: v[0] for k, v in pins.items()}
            meta["pins_at"] = {k: (display_path(v[1], self.opt.cwd), v[2]) for k, v in pins.items()}
        return meta

    def role_var_runs(self, job: FileJob, doc: TStr, cmds: list, env: Optional[dict], label: str, quiet) -> list:
        """A script whose launch reads a variable it leaves unset that the config's ``roles.prefill.vars`` and
        ``roles.decode.vars`` both give (``--disaggregation-mode "$ROLE"``): one run per role with that role's
        variables, as a template is rendered once per role (field test rw19/c: PD021's help named those tables,
        which only templates read, and the script stayed "role unknown")."""
        from pdlint.formats.shell import shell_commands
        cfg = self.config_for(job.abspath)
        per_role = {r: self.env_tstrs(cfg.role_vars.get(r) or {}, {}) for r in ("prefill", "decode")}
        if not all(per_role.values()):
            return []
        names = set(per_role["prefill"]) | set(per_role["decode"])
        read = set()
        for c in cmds:
            if launchers.find(c.words) is not None:
                read |= set(c.unset_vars)
        if not read & names:
            return []
        runs = []
        for role, extra in per_role.items():
            run_ctx = quiet()
            how = f"run with roles.{role}.vars (" + ", ".join(f"{k}={v.text}" for k, v in sorted(extra.items())) + ")"
            runs.append((shell_commands(doc, run_ctx, env={**(env or {}), **extra}), role,
                         ", ".join(x for x in (label, how) if x), run_ctx.heredocs))
        return runs

    def sed_values(self, template: str) -> dict:
        """``{NAME: value}`` of the sed template placeholders (:data:`kube.BRACE_PLACEHOLDER`) a script beside
        ``template`` (an absolute path) substitutes: a ``.sh`` / ``.bash`` file of its directory or of the one above
        it (inside the repository) whose sed reads the template - names it as its file operand (``-i`` too), or
        reads it on stdin from ``< TEMPLATE`` or from ``cat TEMPLATE |`` / another such sed upstream in its
        pipeline - and runs ``sed "s#{NAME}#VALUE#g"``, evaluated by pdlint's shell front-end (never run) with its
        defaults (``PREFILL_TP=${4:-16}``: 16, traced to where it is written).  A command's substitutions apply
        in order (``-e`` after ``-e``, ``;``-separated, seds piped one after another): a value holding a later
        one's ``{NAME}`` takes its value.  A placeholder whose value the script does not know (``NAME=$1``),
        whose value still holds a placeholder, or that two substitutions give different values, is left out
        (field report rw32/a item 1: deploy.sh renders deploy_base.yaml with ten such seds before ``kubectl
        apply``; rw33/h items 2, 3).  Each script is evaluated once a run (rw33/h item 4), pruned as a script's
        own check is (:meth:`_sed_renders`); the scripts read for one template are bounded in bytes and statements
        (:data:`_MAX_SED_TEMPLATE_BYTES`, :data:`_MAX_SED_TEMPLATE_STEPS`, :data:`_MAX_SED_SCRIPT_STEPS`), per
        template, so that no other file the process checked changes what it finds (rw35/h P4, P6); when a bound
        leaves a script that may render the template unread, every placeholder of it stays unseen (:meth:`sed_cut`)."""
        cache = self.__dict__.setdefault("_sed_values", {})
        if template in cache:
            for path in cache[template][1]:
                self.read(path, report=False)  # (this job's dependencies too: the result cache's)
            return cache[template][0]
        found: dict = {}
        read: list = []
        cache[template] = (found, read)
        here, name = os.path.split(template)
        dirs = [here]
        root = self.boundary.root_for(template, listed=True)
        parent = os.path.dirname(here)
        if parent != here and (parent == root or parent.startswith(root.rstrip(os.sep) + os.sep)):
            dirs.append(parent)  # (`deploy/deploy.sh` rendering `deploy/k8s/base.yaml`)
        unknown: set = set()
        cut = 0
        spent = steps = 0  # (this template's bounds: whatever else the run evaluated, rw35/h P6)
        for d in dirs:
            for path in self._sed_scripts(d):
                texts = self._sed_script_text(path)
                if texts is None:
                    continue
                read.append(path)
                words, text = texts
                if name not in (words if _SED_NAME_WORD.fullmatch(name) else text):
                    continue  # (a cheap text test: it names the template)
                spent += len(text)
                if spent > _MAX_SED_TEMPLATE_BYTES or steps > _MAX_SED_TEMPLATE_STEPS:
                    cut += 1  # (a bound left it unread)
                    continue
                renders, took = self._sed_renders(path)
                steps += took
                if renders is None:  # (its evaluation stopped at its bound)
                    cut += 1
                    continue
                script_dir = os.path.dirname(path)
                for w, values in renders.get(name, ()):
                    if not _sed_input_is(w, template, script_dir, root):
                        continue
                    for key, value in values.items():
                        if value is None or (key in found and found[key].text != value.text):
                            unknown.add(key)
                        else:
                            found[key] = value
        if cut:
            self.__dict__.setdefault("_sed_cut", {})[template] = cut
            found.clear()
            return found
        for key in unknown:
            found.pop(key, None)
        return found

    def sed_cut_note(self, doc: TStr, template: str) -> None:
        """PD015 at a template's first placeholder, once: a bound left scripts that may render it unread, so its
        placeholders stay unseen (rw33/h item 11)."""
        done = self.__dict__.setdefault("_sed_cut_noted", set())
        m = kube.BRACE_PLACEHOLDER.search(doc.text)
        if template in done or m is None:
            return
        done.add(template)
        n = self.sed_cut(template)
        self.problem_at(C.SHELL_LIMIT, doc, m.start(), (
            f"{n} script{'s' if n != 1 else ''} beside this template that may substitute its placeholders "
            f"({m.group(0)} ...) {'were' if n != 1 else 'was'} not read: the scripts read for a sed template's "
            f"values are bounded ({_MAX_SED_TEMPLATE_BYTES:,} bytes and {_MAX_SED_TEMPLATE_STEPS:,} statements "
            f"evaluated together, {_MAX_SED_SCRIPT_STEPS:,} a script), so every placeholder of the template is "
            f"left undecided; give their values with --var NAME=VALUE"))

    def sed_cut(self, template: str) -> int:
        """How many scripts that may render ``template`` a bound left unread (:meth:`sed_values`)."""
        return self.__dict__.get("_sed_cut", {}).get(template, 0)

    def _sed_scripts(self, d: str) -> list:
        """The ``.sh`` / ``.bash`` files of directory ``d`` (listed once a run)."""
        listed = self.__dict__.setdefault("_sed_dirs", {})
        if d not in listed:
            try:
                listed[d] = [os.path.join(d, e) for e in sorted(os.listdir(d)) if e.endswith((".sh", ".bash"))]
            except OSError:
                listed[d] = []
        return listed[d]

    def _sed_script_text(self, path: str) -> Optional[tuple]:
        """(the file names it writes, its text) of a script that holds a ``s#{NAME}#`` substitution, read once a
        run; None for any other file (or one over :data:`_MAX_SED_SCRIPT_BYTES`)."""
        texts = self.__dict__.setdefault("_sed_texts", {})
        if path in texts:
            if texts[path] is not None:
                self.read(path, report=False)
            return texts[path]
        texts[path] = None
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > _MAX_SED_SCRIPT_BYTES:
                return None
        except OSError:
            return None
        src = self.read(path, report=False)
        if src is None or not _SED_BRACE.search(src.text):
            return None
        texts[path] = (frozenset(_SED_NAME_WORD.findall(src.text)), src.text)
        self.__dict__.setdefault("_sed_src", {})[path] = src
        return texts[path]

    def _sed_renders(self, path: str) -> tuple:
        """(a script's renders, the statements its evaluation ran), evaluated once a run: template file name ->
        [(a word that names a sed's input file, {NAME: value, or None when it is not known})]; None when the
        evaluation stopped at its bound (:data:`_MAX_SED_SCRIPT_STEPS`) or another, so that a sed after it may
        have been missed.  What it gives depends on the script alone, never on what else the run evaluated."""
        renders = self.__dict__.setdefault("_sed_render_cache", {})
        if path in renders:
            return renders[path]
        from pdlint.formats.shell import ShellContext, shell_commands
        stopped: list = []

        def report(code: str, message: str, *_) -> None:
            # (an evaluation a limit or a front-end failure stopped: what came after, a sed too, was not seen)
            if code == "PD-SHELL-ABORT" or (code == "PD-SHELL-PARSE" and message.startswith("shell evaluation")):
                stopped.append(code)

        # what the evaluation reaches for is a sed's words, not a server's launch: the statements that hold a
        # ``sed`` or a ``s#{NAME}#`` substitution are its "launch text", so the variables none of them reads are
        # widened and the loops and tails that reach none are cut short, as in the script's own check (hostile-
        # input round rw35/h P4: without it every iteration of a 255-count loop of 160 ``if``s ran in full, and
        # an 11 KB script beside the template made the template's check a PD008 error)
        ctx = ShellContext(lambda p, c: None, report, launch_text=_sed_text, max_steps=_MAX_SED_SCRIPT_STEPS)
        cmds = shell_commands(TStr.from_source(self.__dict__["_sed_src"][path]), ctx)
        if stopped:
            renders[path] = (None, ctx.steps)
            return renders[path]
        out: dict = {}
        for ins, subs in _sed_flows(cmds):
            values = _sed_chain_values(subs)
            for w in ins:
                base = posixpath.basename(w.text.rstrip("/"))
                if base:
                    out.setdefault(base, []).append((w, values))
        renders[path] = (out, ctx.steps)
        return renders[path]

    def shell_env(self, job: FileJob) -> dict:
        """The environment a script starts with: the config's variables and ``--var`` (scalars only),
        so a variable set outside the repository can be given the value it has at deploy time."""
        bools: dict = {}
        variables, _ = self.variables(self.config_for(job.abspath), bools)
        return self.env_tstrs(variables, bools)

    def env_tstrs(self, variables: dict, bools: dict) -> dict:
        """Scalar variables (identifiers) as traced strings a shell environment holds."""
        from pdlint.render.jinja import OFloat, OInt, OStr
        env = {}
        for k, v in variables.items():
            if not isinstance(k, str) or not k.isidentifier():
                continue
            if isinstance(v, OStr):
                env[k] = v.tstr
            elif isinstance(v, (OInt, OFloat)):  # a values file's number, at the line that sets it
                env[k] = v.tstr
            elif isinstance(v, bool):
                env[k] = bools.get((k,)) or TStr.synthetic("true" if v else "false", "<config>")
            elif isinstance(v, (str, int, float)):
                env[k] = TStr.synthetic(str(v), "<command line>" if k in self.opt.variables else "<config>")
        return env

    def variables(self, cfg: Config, bools: Optional[dict] = None, role_files: tuple = ((), ()),
                  play: tuple = ((), ())) -> tuple:
        """(variables, per-role variables) of a config: values files, ``vars``,
        ``--var``; ``bools`` collects where the values files' booleans are set.  ``role_files``: an Ansible
        role's ``defaults`` files (below the values files) and ``vars`` files (above them, below ``vars`` and
        ``--var``, as Ansible's extra vars are above a role's vars).  ``play``: (low, high) mappings of the
        Ansible play that renders the template (:meth:`play_layers`): inventory and play variables below the
        role's vars files, task variables, facts and role parameters above them."""
        from pdlint.config import ConfigError, load_values_file
        variables: dict = {}
        defaults, role_vars_files = role_files
        low, high = play
        for path in tuple(defaults) + tuple(cfg.values_files) + (None,) + tuple(role_vars_files) + (None,):
            if path is None:  # the play's inventory and vars, then its task vars, facts and role parameters
                for layer in low if low is not None else high:
                    variables.update(layer)
                low = None
                continue
            if self.deps is not None:
                self.deps.weak(path)
            try:
                root = self.boundary.root_for(cfg.path) if cfg.path else None
                vals, _ = load_values_file(path, display_path(path, self.opt.cwd), bools, self.boundary, root)
                if path in defaults or path in role_vars_files:
                    vals = _ansible_values(vals)
                variables.update(vals)
            except ConfigError as e:
                key = ("values", path)
                if key not in self._files:
                    self._files[key] = True
                    self.out.findings.append(Finding(e.path or display_path(path, self.opt.cwd), e.line or 1, 1,
                                                     C.CONFIG_REF.code, C.CONFIG_REF.name, ERROR, None, e.message))
        variables.update(cfg.vars)
        variables.update(self.opt.variables)
        if bools:
            for path in [p for p in bools if p[0] in cfg.vars or p[0] in self.opt.variables]:
                del bools[path]  # set again by the config or the command line
        return variables, cfg.role_vars

    # -- YAML --------------------------------------------------------------------
    def yaml(self, job: FileJob, src: SourceFile, doc: TStr, render_role: Optional[str],
             label: str = "", unit: Optional[str] = None, unit_meta: Optional[dict] = None,
             keyed: bool = True, docs: Optional[list] = None) -> None:
        """The launches of a YAML text; ``docs``: its documents when the caller composed them already."""
        budget.stage("yaml")
        try:
            docs = docs if docs is not None else _compose_braces(doc.text)
        except yt.LimitError as e:
            self.problem_at(C.LIMIT, doc, e.index, e.message)
            return
        except yt.YamlError as e:
            found = _without_placeholder_lines(doc.text) or _inline_placeholders_respelled(doc.text, e)
            if found is None:
                what = "rendered YAML" if render_role is not None or label else "YAML"
                self.problem_at(C.INVALID_YAML, doc, e.index, f"invalid {what}: {e.message_in(doc)}")
                return
            docs, blanked, placeholders = found
            label = ", ".join(x for x in (label, f"a template: {blanked}") if x)
            before = len(self.out.launches)
            self.yaml(job, src, doc, render_role, label, unit, unit_meta, keyed, docs)
            _placeholder_gaps(doc, placeholders, self.out.launches[before:])
            return
        doc = yt.go_actions_opaque(doc, docs)  # the same text: the nodes' positions hold
        if "serveConfigV2" in doc.text:
            self.ray_service_configs(job, src, doc, docs, render_role, label)
        from pdlint.formats import compose
        found = False
        try:
            if self.compose_override_read(job, src, render_role, label, docs):
                return  # its services are the project's: checked merged over the project file beside it
            if compose.is_compose(docs):
                self.compose(job, src, doc, docs, render_role, label, unit_meta)
                return
            containers = kube.find_containers(docs)
            local = self.stream_configmaps(job, docs, doc)
            before = len(self.out.launches)
            cut: list = []
            for w in crd.workloads(docs, doc, containers, unit or job.display, cut):
                if self.workload_launches(job, w, render_role, label, unit_meta, local):
                    found = True
                    if not (unit_meta or {}).get("no_values"):
                        # (a chart with no values.yaml is installed with a values file pdlint was not given: its
                        # `if`/`else if` on empty values leave out keys the real install writes, AI-Hypercomputer/
                        # gpu-recipes' dynamo-deployment chart; the keys an empty render repeats say nothing)
                        self.duplicate_keys(docs, doc, w, render_role is not None or "rendered" in label)
            for c in cut:
                self.argo_cut(job, c.where, c.started, c.ran)
            found |= bool(self.yaml_scripts(job, src, doc, docs, containers, render_role, label, unit, unit_meta))
            if not found and keyed and not self.keyed(job, src, doc, docs, render_role, label, unit_meta):
                self.sglang_config(job, src, doc, docs, render_role)
            elif found and keyed and render_role is None:
                self.bare_argv_lists(job, src, doc, docs, self.out.launches[before:], unit_meta)
        except kube.WalkLimit as e:
            self.problem_at(C.LIMIT, doc, docs[0].start if docs else 0, str(e))
        except yt.LimitError as e:  # merge keys over their budget
            self.problem_at(C.LIMIT, doc, e.index, e.message)

    def ray_service_configs(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, render_role: Optional[str],
                            label: str) -> None:
        """A KubeRay RayService's ``spec.serveConfigV2``: the Ray Serve config (a YAML text in a string) its
        cluster runs, read as such a file is (Ray Serve LLM prefill/decode applications; GKE/EKS/AKS deploy Ray
        Serve this way: field test rw15/i, where it was two PD020)."""
        for d in docs:
            root = yt.Ref(d.root) if d.root is not None else None
            if root is None or not isinstance(yt.deref(root).node, yt.YMap) or \
                    yt.scalar_text(yt.get(root, "kind")) != "RayService":
                continue
            node = crd.at(root, "spec", "serveConfigV2")
            if node is None or not isinstance(yt.deref(node).node, yt.YScalar):
                continue
            text = yt.scalar_tstr(doc, node)
            if "applications" not in text.text:
                continue
            name = crd.text_at(root, "metadata", "name") or "rayservice"
            self.yaml(job, src, text, render_role, ", ".join(x for x in (label, f"RayService {name} serveConfigV2")
                                                             if x), unit=f"{job.display}#rayservice/{name}")

    def duplicate_keys(self, docs: list, doc: TStr, w, rendered: bool) -> None:
        """PD052: a mapping on the way from the document's root to a launch's container (and the container
        itself) that holds a key twice; each place once."""
        from pdlint import format_rules as F
        if not 0 <= w.doc_index < len(docs) or docs[w.doc_index].root is None:
            return
        ref = yt.Ref(docs[w.doc_index].root)
        for step in tuple(w.path) + (None,):
            node = yt.deref(ref).node if ref is not None else None
            if isinstance(node, yt.YMap):
                seen: dict = {}
                dupes: list = []  # (key node, its first occurrence)
                for k, _ in node.pairs:
                    key = k.value if isinstance(k, yt.YScalar) else None
                    if key is None or key == "<<":
                        continue
                    if key in seen:
                        dupes.append((k, seen[key]))
                    else:
                        seen[key] = k
                if dupes:
                    k, first = dupes[0]
                    tok = doc[k.start:k.end]
                    place = (tok.origin.path, tok.origin.line, tok.origin.column) if tok.pieces else None
                    if place is not None and place not in self._dupe_keys:
                        self._dupe_keys.add(place)
                        keys = list(dict.fromkeys(d.value for d, _ in dupes))
                        self.out.findings.append(F.finding(F.DUPLICATE_KEY, tok, F.duplicate_key_message(
                            keys, doc[first.start:first.end].origin.line, rendered)))
            if step is None or ref is None:
                break
            ref = crd.at(ref, step)

    def workload_launches(self, job: FileJob, w, render_role: Optional[str], label: str = "",
                          unit_meta: Optional[dict] = None, configmaps: Optional[dict] = None) -> list:
        """Launches of one effective container (:class:`pdlint.formats.crd.Workload`); ``configmaps``:
        those of its YAML stream or kustomize build, first in line for the files it mounts."""
        cm_keys: dict = {}  # variable -> the ConfigMap data key its value is read from
        env = crd.effective_env(w, configmaps, cm_keys)
        if any(p.opaque == CONFIGMAP_NOT_JOINED for v in env.values() for p in v.pieces[:1]):
            # a configMapKeyRef into a ConfigMap of another file: the value the config's vars or --var give
            # the variable (the undecided summary's advice, field round rw35/b P2)
            given_vars = self.shell_env(job)
            for name, v in list(env.items()):
                if v.pieces and v.pieces[0].opaque == CONFIGMAP_NOT_JOINED and name in given_vars:
                    env[name] = given_vars[name]
        if w.virtual == "kserve":
            words = crd.kserve_words(w, env)
        elif w.virtual == "kthena":
            words = crd.kthena_words(w, w.doc)
        else:
            # (`${NAME}` placeholders an envsubst step fills: the values the config and --var give them, rw25/a)
            # (and a sed template's `{NAME}`, rw32/a item 1)
            given = self.shell_env(job) if any("${" in d.text or kube.BRACE_PLACEHOLDER.search(d.text)
                                               for d, _ in w.layers) else None
            for d, _ in w.layers if given is not None else ():
                at = next((p.src.abspath for p in d.pieces if p.src is not None and p.src.abspath), None)
                if at and kube.BRACE_PLACEHOLDER.search(d.text):
                    for name, value in self.sed_values(at).items():
                        given.setdefault("{" + name + "}", value)  # (below --var and the config's vars)
                    if self.sed_cut(at):
                        self.sed_cut_note(d, at)
            words = crd.effective_words(w, env, given)
            if given and not w.image_override and "{" in crd.effective_image(w):
                from pdlint.formats.kube import envsubst_text
                image = envsubst_text(crd.effective_image(w), given)
                if kube.BRACE_PLACEHOLDER.search(image):  # (a sed template's `image: {IMAGE}`)
                    image = kube.brace_placeholders(TStr.synthetic(image, "<image>"), given)
                    image = image.text if not image.opaque else crd.effective_image(w)
                if image != crd.effective_image(w):
                    w.image_override = image
        image = crd.effective_image(w)
        no_command = not any(yt.get(ref, "command") is not None for _, ref in w.layers)
        # an LLMInferenceService container with no command and one `args` item holding a command line: Open Data
        # Hub / RHOAI's controller runs its template's `command: [/bin/bash, -c]` with that item as the script
        shell_line = (w.virtual is None and no_command and (w.resource_kind or "").startswith("LLMInferenceService")
                      and len(words) == 1 and any(c in words[0].text.strip() for c in " \t\n"))
        if w.virtual is None and no_command and not shell_line:
            at = next((crd.tstr(d, yt.get(r, "image")) for d, r in reversed(w.layers) if yt.get(r, "image") is not None),
                      None)
            given, words = words, image_entry_words(image, words, at)
        else:
            given = words
        meta = {"image": image, "yaml_path": w.path, "resource_kind": w.resource_kind,
                "resource_name": w.resource_name, "names": w.names, "doc_index": w.doc_index,
                "exec_form": w.virtual != "kserve"}
        limit = crd.gpu_limit(w) if w.virtual is None else None
        if limit is not None:
            meta["gpu_limit"] = limit  # the devices the container gets (pair_rules PD153)
        wd = next((yt.scalar_text(yt.get(r, "workingDir")) for _, r in reversed(w.layers)
                   if yt.get(r, "workingDir") is not None), None)
        if isinstance(wd, str) and wd.startswith("/"):
            meta["working_dir"] = wd  # (PD022: a relative file it names may be the image's)
        meta.update(unit_meta or {})
        context = w.context() + (f", {label}" if label else "")
        if words is not given:
            context += f", args of the image's ENTRYPOINT ({' '.join(t.text for t in words[:len(words) - len(given)])})"
        kthena = w.virtual == "kthena" and len(words) == 3 and words[1].text == "-c"
        if kthena or shell_line:
            # the controller's `bash -c` runs the script: Kthena's `bash -c "pip install ... && python3 -m
            # vllm..."`, an LLMInferenceService's one `args` line on Open Data Hub / RHOAI's template
            src = next((p.src for p in w.doc.pieces if p.src is not None), None)
            before = len(self.out.launches)
            self.shell(job, src, words[2] if kthena else words[0], render_role, env=env,
                       context=context + ", bash -c by the controller", meta={**meta, "exec_form": False})
            launches = self.out.launches[before:]
            note = ("the controller runs it through `bash -c` with its words joined by blanks, unquoted (a worker "
                    "requests nvidia.com/gpu and its connector needs a pip install, or a Ray leader starts it); "
                    "KTHENA_SKIP_ENGINE_DEPENDENCY_INSTALL=true in the backend's env skips the install") if kthena \
                else ("the LLMInferenceService controller supplies the command: Open Data Hub / RHOAI run this "
                      "`args` item as a script (`/bin/bash -c`), as checked here; a controller whose template "
                      "appends `args` to its own `vllm serve` would pass the whole line to that server as arguments")
            for launch in launches:
                launch.notes.append(note)
        else:
            launches = self.command_launches(job, words, env, context, render_role, meta)
        if launches and w.virtual is None:
            refs, env_from = crd.env_refs(w)
            if refs:
                from pdlint.structure_rules import undefined_ref_findings
                self.out.findings += undefined_ref_findings(refs, env, w.resource_kind, env_from)
        scope = None
        for launch in launches:
            crd_apply(launch, w)
            if cm_keys:  # (the data keys its env reads: that ConfigMap text was read, no PD020 on it - rw35/b P3)
                launch.meta.setdefault("covers", []).extend(cm_keys[n] for n in sorted(cm_keys) if n in env)
            if scope is None:
                scope = self.mount_scope(w, configmaps, job)
            if scope:
                launch.meta["mounts"] = scope
        if w.virtual is None or kthena:
            self.note_script_runs(w, words, env, image, meta.get("working_dir"), context,
                                  scope if scope is not None else self.mount_scope(w, configmaps, job))
        return launches

    def note_script_runs(self, w, words: list, env: dict, image: str, working_dir: Optional[str], context: str,
                         scope) -> None:
        """Remember the ConfigMap scripts a container runs through its mounts (``command: [/bin/bash,
        /workspace/prefill.sh]`` with that file mounted from a ConfigMap's ``prefill.sh`` key, or ``bash -c "cd
        /workspace && ./prefill.sh"``): :meth:`yaml_scripts` checks such a script with the container's image and
        env, as it runs (it was judged against the newest table with no env: a flag vLLM 0.10.1 lacks passed on
        `image: vllm/vllm-openai:v0.10.1`, field test rw29/a P10).  Only a path the command runs counts
        (:func:`_runs_at`): an init container that copies the script (`cp /scripts/prefill.sh /work/`) does not run
        it (rw30/h P9: the launch was "run by" the copier and judged with its busybox image)."""
        if not scope or not words:
            return
        from pdlint.formats import mounts
        text = " ".join(t.text for t in words[:_MAX_RUN_WORDS])[:_MAX_RUN_TEXT]
        dirs = [d for d in ([working_dir] if working_dir else []) + _CD_DIR.findall(text)][:8]
        seen: set = set()
        ran = [m.group(1) for m in _RUN_PATH.finditer(text) if _runs_at(text, m.start())]
        for tok in ran[:_MAX_RUN_PATHS]:
            cands = [tok] if tok.startswith("/") else [posixpath.join(d, tok) for d in dirs]
            for path in cands:
                path = posixpath.normpath(path)
                if path in seen:
                    continue
                seen.add(path)
                r = mounts.resolve(path, scope[0], scope[1], lambda n: self.find_configmap(n, scope))
                if not isinstance(r, mounts.Resolved):
                    continue
                key = r.text.origin_key()
                runners = self._script_runners.setdefault(key, []) if key is not None else None
                if runners is not None and len(runners) < _MAX_RUNNERS and \
                        not any(x.context == context for x in runners):
                    runners.append(ScriptRunner(image or "", dict(env), context, r.mount.path))

    # -- files a container mounts (formats.mounts) --------------------------------------
    def mount_scope(self, w, configmaps: Optional[dict], job: FileJob):
        """(mounts, volumes, nearby ConfigMaps, the job's directory) of a container, () when it mounts nothing."""
        from pdlint.formats import mounts
        ms = mounts.mounts_of(w.layers)
        if not ms:
            return ()
        return (ms, mounts.volume_table(w.volumes), configmaps or {}, os.path.dirname(job.abspath), job.root)

    def stream_configmaps(self, job: FileJob, docs: list, doc: TStr) -> dict:
        """The ConfigMaps of one YAML stream (remembered for the launches of other files that mount them)."""
        if "ConfigMap" not in doc.text:
            return {}
        from pdlint.formats import mounts
        src = next((p.src for p in doc.pieces if p.src is not None), None)
        found = mounts.configmaps(docs, doc, src.path if src is not None else job.display,
                                  src.abspath if src is not None else job.abspath)
        for cm in found.values():
            self.remember_configmap(cm)
        if src is not None and src.abspath:
            self._cm_scanned.add(os.path.abspath(src.abspath))
        return found

    def remember_configmap(self, cm) -> None:
        known = self._configmaps.setdefault(cm.name, [])
        if not any(k.path == cm.path and k.doc.text == cm.doc.text for k in known):
            known.append(cm)

    def find_configmap(self, name: str, scope: tuple):
        """The ConfigMap ``name`` a launch mounts: of its own YAML stream or kustomize build, else of a
        file of the run or of its repository (the nearest to the launch's directory first)."""
        local = scope[2]
        if name in local:
            return local[name]
        here, root = scope[3], scope[4]
        if name not in self._configmaps:
            self.scan_configmaps(name, root)
        cands = self._configmaps.get(name) or []
        if not cands:
            return None

        def distance(cm) -> tuple:
            d = os.path.dirname(cm.abspath or "")
            rel = os.path.relpath(d, here) if d else "~"
            return (rel.count(".."), rel.count("/"), cm.path)
        return sorted(cands, key=distance)[0]

    def scan_configmaps(self, name: str, root: str) -> None:
        """Search the run's YAML files, then the repository's, for ``kind: ConfigMap`` named ``name``."""
        from pdlint.discover import _git_files
        from pdlint.formats import mounts
        from pdlint.safeio import Refused
        files = [j.abspath for j in self._jobs if j.kind == "yaml"]
        repo = self._repo_files.get(root)
        if repo is None:
            repo = self._repo_files[root] = sorted(_git_files(root, root) or [])
        files += [f for f in repo if f.lower().endswith((".yaml", ".yml"))]
        want = name.encode()
        for f in files:
            f = os.path.abspath(f)
            if f in self._cm_scanned:
                continue
            words = self._cm_words.get(f)
            try:
                data = self._repo_data.get(f)
                if data is None:
                    data = self._repo_data[f] = self.boundary.read(f, root)
            except Refused:
                continue
            if self.deps is not None:  # a file that defines it later changes the launch
                self.deps.weak(f, data)
            if words is None:  # the file's words, for the names later searches ask about (each file read once;
                # a file passed over for one name is still searched for the next: rw30 ConfigMap order)
                words = self._cm_words[f] = frozenset(_CM_WORD.findall(data)) if b"ConfigMap" in data \
                    else frozenset()
            if want not in words:
                continue
            self._cm_scanned.add(f)
            src = self.read(f, report=False)
            if src is None:
                continue
            try:
                docs = yt.compose(src.text)
            except yt.YamlError:
                continue
            for cm in mounts.configmaps(docs, TStr.from_source(src), src.path, src.abspath).values():
                self.remember_configmap(cm)

    def bound_file(self, tok: TStr, launch: Launch, root: str) -> Optional[SourceFile]:
        """A container path a bind mount of the launch's ``docker run -v`` or Compose ``volumes:`` puts a file of
        the repository at (``-v $(pwd)/ctx.yaml:/cfg/ctx.yaml``, ``./configs:/configs``), relative to the file that
        writes the mount (field test rw17/n: PD022 "not found" on a Compose service's mounted config)."""
        if tok.opaque or not tok.text.startswith("/"):
            return None
        from pdlint.formats import mounts
        binds = launch.meta.get("binds")
        if binds is None:
            binds = mounts.docker_binds([w.text for w in launch.meta.get("wrapper_words", ())])
        host = mounts.bind_source(tok.text, binds) if binds else None
        if host is None or host.startswith(("~", "/")):
            return None  # (a path of the host pdlint cannot place in the repository)
        return self.resolve_in_repo(host, os.path.join(self.opt.cwd, launch.path), root)

    def mounted_config(self, tok: TStr, launch: Launch):
        """A ``--config`` path inside the container, resolved through its ConfigMap mounts: a
        :class:`pdlint.engines.sglang.config_merge.EmbeddedFile`, else None (the reason, when a mount covers
        the path, in ``launch.meta["config_mount"]``)."""
        scope = launch.meta.get("mounts")
        if not scope or tok.opaque or not tok.text.startswith("/"):
            return None
        from pdlint.engines.sglang.config_merge import EmbeddedFile
        from pdlint.formats import mounts
        r = mounts.resolve(tok.text, scope[0], scope[1], lambda n: self.find_configmap(n, scope))
        if r is None:
            return None
        if isinstance(r, mounts.Resolved):
            src = next((p.src for p in r.text.pieces if p.src is not None), None)
            if self.deps is not None and src is not None and src.abspath:
                self.read(src.abspath, report=False)  # the launch reads the ConfigMap's file
            if src is not None and len(r.text.pieces) == 1 and r.text.text == src.text:
                launch.meta["mounted_file"] = src.abspath  # a whole file (configMapGenerator): not standalone
            return EmbeddedFile(src.path if src else r.configmap.path, src.abspath if src else r.configmap.abspath,
                                r.text, r.note)
        launch.meta["config_mount"] = r
        return None

    def yaml_scripts(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, containers: list,
                     render_role: Optional[str], label: str = "", unit: Optional[str] = None,
                     unit_meta: Optional[dict] = None) -> list:
        """Shell strings in CI / workflow YAML (:mod:`pdlint.formats.yaml_shell`), containers excluded."""
        from pdlint.formats import yaml_shell
        if not yaml_shell.may_hold_script_text(doc.text):
            return []
        # containers are read by formats.kube, except Argo script templates (`source:` run by `command`)
        skip = {id(yt.deref(c.ref).node) for c in containers if yt.get(c.ref, "source") is None}
        if not yaml_shell.may_hold_scripts(docs, skip):
            return []
        found: list = []
        cut: list = []
        written: dict = {}  # (sflow: the files its runner writes from artifacts' `content:`)
        given = None
        for s in yaml_shell.scripts(doc, docs, skip, _AnsibleScope(self, job), cut):
            written.update(s.meta.get("written_files") or {})
            if given is None:
                given = self.shell_env(job)
            if given:  # (the environment a script starts with: `--var` / the config's vars under the YAML's own
                # `env:`, as README promises for shell scripts; rw34/a P10: `--var MODEL_ID=...` changed nothing)
                s.env = {**given, **(s.env or {})}
            meta = {"yaml_path": s.path, "unit": unit or job.display, **s.meta}
            if "unit_suffix" in meta:
                meta["unit"] += meta.pop("unit_suffix")
            meta.update(unit_meta or {})
            context = s.context + (f", {label}" if label else "")
            if s.text is not None:
                before = len(self.out.launches)
                runs = self._script_runners.get(s.text.origin_key()) if self._script_runners else None
                for image, env, how, note in _runner_groups(runs, s.env, meta.get("image")):
                    rmeta = {**meta, "image": image} if image else meta
                    first = len(self.out.launches)
                    self.shell(job, src, s.text, render_role, env=env, context=context + how, meta=rmeta)
                    if note:
                        for launch in self.out.launches[first:]:
                            launch.notes.append(note)
                new = self.out.launches[before:]
            else:
                new = self.command_launches(job, s.words, s.env, context, render_role, {**meta, "exec_form": True})
            for launch in new:
                launch.unit = launch.unit or meta["unit"]
                if s.role and not launch.structural_role:
                    launch.structural_role = s.role
                    launch.structural_origin = s.role_tok.origin if s.role_tok is not None and s.role_tok.pieces \
                        else None
                    launch.meta["role_how"] = s.role_how
            found += new
        if written:  # (the config a `trtllm-serve disaggregated -c` of the file reads; another written file with
            # `context_servers:` is a piece the tasks assemble at run time - nv-sflow's PREFILL_URLS)
            from pdlint.engines.trtllm.engine import proxy_config_words
            named = {os.path.normpath(t.text) for l in found if l.engine == "trtllm" and l.kind == "router"
                     for t in proxy_config_words(l.argv)}
            for path, (content, note) in sorted(written.items()):
                if path in named:
                    found += self.written_disagg_config(job, src, content, note, unit or job.display)
        for where, started, ran, kind, name in cut:
            if kind == "argo":
                self.argo_cut(job, where, started, ran)
                continue
            if kind == "gitlab-matrix" and started > yaml_shell.GITLAB_MAX_JOBS:
                # (rw30/h P15: GitHub's bound and words were given for a GitLab job; GitLab's bound is 200)
                self.unchecked(where, f"this job's parallel: matrix generates {started} jobs, more than the "
                                      f"{yaml_shell.GITLAB_MAX_JOBS} GitLab allows for one matrix: GitLab does not create "
                                      f"the pipeline (\"jobs:{name}:parallel:matrix config generates too many jobs "
                                      f"(maximum is {yaml_shell.GITLAB_MAX_JOBS})\"); pdlint ran its script for {ran} "
                                      f"of them, the others were not checked",
                               f"split the job so that one matrix generates at most {yaml_shell.GITLAB_MAX_JOBS} jobs "
                               f"(GitLab's bound), and at most {yaml_shell.MAX_MATRIX} for pdlint to check them all",
                               job)
                continue
            if kind == "gitlab-matrix":
                self.unchecked(where, f"this job's parallel: matrix generates {started} jobs; pdlint ran its script "
                                      f"for {ran} of them (each value of each key at least once where {ran} allow it, "
                                      f"with every value of a key that names the roles): the other jobs were not "
                                      f"checked",
                               f"split the job so that one matrix generates at most {yaml_shell.MAX_MATRIX} jobs, or "
                               f"check the others' values with `[tool.pdlint.vars]` in a config of their own", job)
                continue
            if started > yaml_shell.GITHUB_MAX_JOBS:  # (rw26/h item 8: 16,000 combinations read as 16 runs)
                self.unchecked(where, f"this job's matrix produces {started} combinations, more than the "
                                      f"{yaml_shell.GITHUB_MAX_JOBS} GitHub starts for one matrix: GitHub refuses the "
                                      f"workflow (\"Strategy for job '{name}' produced {started} configurations which "
                                      f"exceeds the maximum of {yaml_shell.GITHUB_MAX_JOBS} configurations\"); pdlint "
                                      f"ran its steps for {ran} of them, the others were not checked",
                               f"split the job so that one matrix produces at most {yaml_shell.GITHUB_MAX_JOBS} "
                               f"combinations (GitHub's bound), and at most {yaml_shell.MAX_MATRIX} for pdlint to "
                               f"check them all", job)
                continue
            self.unchecked(where, f"this job's matrix starts {started} combinations; pdlint ran its steps for {ran} "
                                  f"of them (each value of each key, and each pair of values, at least once where "
                                  f"{ran} allow it): the other runs were not checked",
                           f"split the job so that one matrix starts at most {yaml_shell.MAX_MATRIX} combinations, or "
                           f"check the others' values with `[tool.pdlint.vars]` in a config of their own", job)
        return found

    def argo_cut(self, job: FileJob, where: TStr, started: int, ran: int) -> None:
        """PD020 at the calls of an Argo template that start more runs than pdlint checks."""
        from pdlint.formats.argo import MAX_RUNS
        self.unchecked(where, f"the steps / tasks that call this Argo template (and their withItems / withParam / "
                              f"withSequence loops) run it {started} times; pdlint checked {ran} of them (each call at "
                              f"least once where {ran} allow it): the others' arguments were not checked",
                       f"have at most {MAX_RUNS} runs call one template (split a long loop), or check the others' "
                       f"values in a workflow of their own", job)

    def compose(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, render_role: Optional[str],
                label: str = "", unit_meta: Optional[dict] = None) -> None:
        """A Docker Compose file (:mod:`pdlint.formats.compose`): one launch per service command."""
        from pdlint.formats import compose

        def read(name: str, what: str = "env file", at: Optional[TStr] = None) -> Optional[SourceFile]:
            src = self.read_beside(name, job)
            if src is None and name and not os.path.isabs(name) and "\0" not in name:
                why = self.refused_reference(name, job.abspath, job.root)
                if why:
                    i = doc.text.find(name) if name != ".env" else -1
                    where = doc[i:i + len(name)] if i >= 0 else (at if at is not None and at.pieces else doc[:1])
                    # (a service's `build:` Dockerfile: named as one, at its `build:` - field test rw21/h)
                    sets = {"env file": "the variables it sets", "extends file": "the service fields it gives"}.get(
                        what, "the image and entry point it builds")
                    self.outside_reference(where, f"compose {what} {name} {why}; pdlint does not read it, so "
                                                  f"{sets} were not checked")
            return src

        self.compose_project(job, doc, docs, render_role, label, unit_meta, read, f"{job.display}#compose")
        if render_role is None and not label and src is not None and src.abspath == job.abspath:
            # `docker compose up` merges the override file beside it over this one (a developer's local changes,
            # most often, while a deployment names its files with -f): the project checked both ways, each its
            # own deployment
            name = compose.override_of(job.abspath, lambda p: self.boundary.is_file(p, job.root))
            osrc = self.read_beside(name, job) if name else None
            if osrc is not None:
                odoc = TStr.from_source(osrc)
                try:
                    override = compose.Override(odoc, yt.compose(osrc.text))
                except (yt.YamlError, yt.LimitError) as e:
                    # (the message the override file's own check gives, where it has one: one finding, not two)
                    self.problem_at(C.INVALID_YAML if isinstance(e, yt.YamlError) else C.LIMIT, odoc, e.index,
                                    f"invalid YAML: {e.message_in(odoc)}" if isinstance(e, yt.YamlError) else
                                    e.message)
                    return
                except RecursionError:
                    return
                self.compose_project(job, doc, docs, render_role, f"merged with {name}", unit_meta, read,
                                     f"{job.display}#compose+{name}", override)

    def compose_project(self, job: FileJob, doc: TStr, docs: list, render_role: Optional[str], label: str,
                        unit_meta: Optional[dict], read, unit: str, override=None) -> None:
        """The launches of one Compose project: the file's services, or with ``override`` the services of the
        file and the override file merged (:func:`pdlint.formats.compose.services`)."""
        from pdlint.formats import compose
        project = compose.project_name(docs)
        for svc in compose.services(doc, docs, read, self.shell_env(job), override):
            if not svc.words:
                continue
            given = svc.words
            if not svc.entrypoint_set:  # `command` alone: the arguments of the image's ENTRYPOINT
                svc.words = image_entry_words(svc.image, svc.words, svc.image_tok)
            meta = {"image": svc.image, "yaml_path": ("services", svc.name), "resource_kind": "compose service",
                    "resource_name": svc.name, "unit": unit, "exec_form": svc.exec_form}
            if svc.dns_names:
                meta["compose_names"] = svc.dns_names
            if svc.binds:
                meta["binds"] = svc.binds
            if project is not None:
                meta["compose_project"] = project
            # (the host resources `docker compose up` gives it, compared with its project's other services':
            # pairing.compose_together, rw30/a P8)
            meta["container_network"] = svc.network
            meta["container_gpus"] = svc.gpus
            if svc.gpus_tok is not None:
                meta["container_gpus_at"] = svc.gpus_tok
            if svc.gpus_what:
                meta["container_gpus_what"] = svc.gpus_what
            if svc.profiles:
                meta["compose_profiles"] = svc.profiles
            meta.update(unit_meta or {})
            context = f"compose service {svc.name!r}" + (f", {label}" if label else "")
            if svc.words is not given:
                entry = svc.words[:len(svc.words) - len(given)]
                context += f", command of the image's ENTRYPOINT ({' '.join(t.text for t in entry)})"
            start = None
            if override is not None and svc.words[0].origin.path != job.display:
                start = svc.name_tok  # a command the override file writes: the launch is at the service's name
            for launch in self.command_launches(job, svc.words, svc.env, context, render_role, meta, start=start):
                launch.unit = launch.meta.get("unit") or unit
                if svc.role and svc.name_tok is not None:
                    launch.structural_role = svc.role
                    launch.structural_origin = crd.narrow(svc.name_tok, svc.role).origin
                    launch.meta["role_how"] = "compose service name"

    def compose_override_read(self, job: FileJob, src: SourceFile, render_role: Optional[str], label: str,
                              docs: list) -> bool:
        """Is ``job`` the override file ``docker compose`` merges over the project file beside it
        (``docker-compose.override.yml`` beside ``docker-compose.yml``)?  Its services are checked merged over
        the project file's (:meth:`compose`), in that file's launches: none of its own here.  Checked on its own,
        a service it only changes was a launch without the project file's image, environment or flags, and its
        prefill was never paired with the project's decode."""
        from pdlint.formats import compose
        if render_role is not None or label or src is None or src.abspath != job.abspath:
            return False
        base = compose.base_of(job.abspath, lambda p: self.boundary.is_file(p, job.root))
        if base is None or compose.override_services(docs) is None:
            return False
        bsrc = self.read_beside(base, job)  # (the project file must read as Compose: else this file is its own)
        try:
            return bsrc is not None and compose.is_compose(yt.compose(bsrc.text))
        except (yt.YamlError, yt.LimitError, RecursionError):
            return False

    def shell_crlf(self, src: SourceFile) -> None:
        """PD009 for a shell script with Windows (CRLF) line ends: bash keeps each line's carriage return in its last
        word (`--disaggregation-mode prefill\\r`, which SGLang refuses as an invalid choice), a `\\` before one
        continues nothing, and `#!/bin/bash\\r` names no interpreter.  pdlint reads the script with them removed
        (its launches are still checked); hostile-input round rw27/h P11: such a script passed clean."""
        self.problem(C.SHELL_PARSE, src, 1, 1, "the script's lines end in CRLF (Windows line ends): bash keeps the "
                     "carriage return in each line's last word (a flag value `prefill\\r` the engine refuses), a `\\` "
                     "before it continues nothing, and a `#!` line with it names no interpreter; pdlint checked the "
                     "script as if its lines ended in LF",
                     fix="Convert the file to LF line ends (`dos2unix FILE`, or `* text eol=lf` for scripts in "
                         "`.gitattributes`).")

    def read_beside(self, name: str, job: FileJob) -> Optional[SourceFile]:
        """A file named relative to ``job``'s directory, inside the repository, or None."""
        if not name or "\0" in name:
            return None
        path = os.path.join(os.path.dirname(job.abspath), name)
        if os.path.isabs(name) or not self.boundary.contains(path, job.root):
            return None
        if not self.boundary.is_file(path, job.root):
            if self.deps is not None:  # (an ignored .env created later is not in the repository listing)
                self.deps.weak(os.path.realpath(path))
            return None
        return self.read(os.path.realpath(path), report=False)

    def keyed(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, render_role, label: str = "",
              unit_meta: Optional[dict] = None) -> bool:
        """Role-keyed files (srt-slurm recipes, Helm values role sections, TRT-LLM and LMCache configs)."""
        from pdlint.formats import keyed, srt_overrides
        if render_role is not None:
            return False
        try:
            root = yt.Ref(docs[0].root) if len(docs) == 1 and docs[0].root is not None else None
            if root is not None and (srt_overrides.is_override_file(root) or keyed.is_srt_sweep(root)):
                from pdlint import format_rules as F
                found, problems = keyed.srt_recipes(job, src, doc, root)
                for rule, tok, message in problems:
                    self.out.findings.append(F.finding(rule, tok, message, path=job.display))
            else:
                found = keyed.launches(job, src, doc, docs)
        except (yt.LimitError, RecursionError) as e:
            self.problem(C.LIMIT, src, 1, 1, f"role-keyed file too deep or too large: {e}")
            return True
        except Exception:  # an unexpected shape: the file is simply not a role-keyed config
            if getattr(self.opt, "debug", False):
                raise  # (--debug shows what the adapter failed on)
            return False
        for launch in found:
            if launch.meta.get("no_servers"):
                # a server section with `num_instances: 0`: it describes no server; its key is no launch text
                self.out.notes.setdefault(job.display, {})[launch.line] = None
                continue
            launch.meta.update(unit_meta or {})
            self.add_launch(launch)
        return bool(found)

    def bare_argv_lists(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, found: list,
                        unit_meta: Optional[dict] = None) -> None:
        """Bare SGLang argv lists (:func:`pdlint.formats.keyed.argv_lists`) of a values-like file some of
        whose launches other readers found (a workflow step's command), those lists excepted."""
        from pdlint.formats import keyed
        if len(docs) != 1 or docs[0].root is None:
            return
        root = yt.Ref(docs[0].root)
        if not isinstance(yt.deref(root).node, yt.YMap) or yt.get(root, "kind") is not None:
            return
        taken = {t.origin_key() for l in found for t in l.argv if t.pieces}
        try:
            lists = keyed.argv_lists(src, doc, root, job.display)
        except (yt.LimitError, RecursionError):
            return
        for launch in lists:
            if any(t.pieces and t.origin_key() in taken for t in launch.argv):
                continue
            launch.meta.update(unit_meta or {})
            self.add_launch(launch)

    def sglang_config(self, job: FileJob, src: SourceFile, doc: TStr, docs: list, render_role) -> None:
        """A standalone SGLang ``--config`` file: a virtual launch that reads it."""
        from pdlint.engines.sglang import config_merge, flags
        if len(docs) != 1 or docs[0].root is None or render_role is not None:
            return
        root = yt.Ref(docs[0].root)
        if not isinstance(yt.deref(root).node, yt.YMap):
            return
        keys = [k for k, _ in yt.map_items(root)]
        table = flags.load(flags.newest())
        vllm_keys = _vllm_config_keys(keys, table)
        if not vllm_keys and not config_merge.looks_like_config(keys, table):
            return
        first = doc[docs[0].root.start:docs[0].root.start + 1]
        cfg_tok = TStr.at("--config", first.pieces[0].src if first.pieces else src, docs[0].root.start)
        path_tok = TStr.at(job.rel, src, docs[0].root.start)
        if vllm_keys:
            # keys only vLLM has (`kv-transfer-config`, `gpu-memory-utilization`): a `vllm serve --config` file,
            # judged as vLLM reads it (field test rw19/a: checked alone, as pre-commit does, it was judged as an
            # SGLang config, a false SGL001 on its kv-transfer-config)
            launch = Launch(path=src.path, line=1, engine="vllm", entrypoint="vllm serve", kind="server",
                            command=[], argv=[cfg_tok, path_tok], context="vLLM --config file (keys "
                            + ", ".join(vllm_keys[:3]) + ")", meta={"virtual_config": job.abspath})
            launch.incomplete = True  # the command line that reads it may add what it leaves out
        else:
            launch = Launch(path=src.path, line=1, engine="sglang", entrypoint="python -m sglang.launch_server",
                            kind="server", command=[], argv=[cfg_tok, path_tok], context="SGLang --config file",
                            meta={"virtual_config": job.abspath})
        self.add_launch(launch)

    def unknown(self, job: FileJob, src: SourceFile) -> None:
        """A file named on the command line whose kind the name does not tell
        (a Makefile, CODEOWNERS, ...): read as YAML only when it is YAML, never
        reported as invalid YAML."""
        doc = TStr.from_source(src)
        try:
            docs = yt.compose(src.text)
        except yt.YamlError:
            return
        if any(isinstance(d.root, (yt.YMap, yt.YSeq)) for d in docs):
            self.yaml(job, src, doc, None)

    # -- Justfiles -------------------------------------------------------------------
    def justfile(self, job: FileJob, src: SourceFile) -> None:
        from pdlint.formats import justfile
        from pdlint.render.jinja import ROLE_SYNONYMS
        from pdlint.formats import crd
        imported, refused = self.just_imports(job, src)
        found, variables = justfile.recipes(TStr.from_source(src), imported, self.shell_env(job))
        unset = justfile.unset_names(found, variables)
        for name, outside in refused if unset else ():
            self.outside_reference(name, _unread_include("imported justfile", name.text, outside,
                                                         [f"'{n}'" for n in unset]))
        left: dict = {}
        called = justfile.calls(found, left)
        for name, (count, first) in sorted(left.items()):  # said at the first call not run
            self.unchecked(first.args[0] if first.args else None,
                           f"{count} more call{'s' if count != 1 else ''} of recipe {name!r} with other arguments "
                           f"(from this one on) {'were' if count != 1 else 'was'} not run: pdlint runs a recipe for at "
                           f"most {justfile.MAX_CALLS} distinct calls (those bringing the most argument values)",
                           "call the recipe with fewer distinct arguments, or check those calls' launches in a recipe "
                           "of their own", job)
        for r in found:
            meta = {}
            # a recipe named for its role, whole or as a word (`prefill`, `decode-worker-pd`)
            role = ROLE_SYNONYMS.get(r.name.lower()) or crd.role_of_name(r.name)
            if role:
                meta["role_hint"] = role
            meta["shell_run"] = f"just recipe {r.name!r}"  # each recipe is its own invocation: not co-located
            for call in called.get(r.name, ()):
                # a recipe another one calls with literal arguments: run with them, as part of the caller's run
                # (the calls of one `pd:` recipe start the servers of one deployment)
                words = " ".join(a.text for a in call.args)
                self.shell(job, src, justfile.bind(r, call), None, env=None,
                           context=f"just recipe {r.name!r} as `just {r.name} {words}` (line {call.line})",
                           meta=dict(meta, shell_run=f"just recipe {call.caller!r}"))
            if r.name not in called:
                self.shell(job, src, r.body, None, env=None, context=f"just recipe {r.name!r}", meta=meta)

    def just_imports(self, job: FileJob, src: SourceFile) -> list:
        """The justfiles ``src``'s ``import`` lines read (nested ones first, each once, at most
        :data:`pdlint.formats.justfile.MAX_IMPORTS`), inside the repository, and ``(path, outside the repository)``
        of each required one pdlint does not read (outside, missing: PD014 when a recipe reads a name nothing sets)."""
        from pdlint.formats import justfile
        out: list = []
        refused: list = []
        seen = {os.path.realpath(job.abspath)}

        def walk(at: FileJob, text: TStr, depth: int) -> None:
            for optional, name in justfile.imports(text):
                if len(seen) > justfile.MAX_IMPORTS or depth > 8:
                    return
                found = self.read_beside(name.text, at)
                if found is None or not found.abspath:
                    if not optional:
                        refused.append((name, self._outside(name.text, at)))
                    continue
                real = os.path.realpath(found.abspath)
                if real in seen:
                    continue
                seen.add(real)
                inner = TStr.from_source(found)
                walk(FileJob(found.abspath, found.path, job.root, "justfile"), inner, depth + 1)
                out.append(inner)

        walk(job, TStr.from_source(src), 0)
        return out, refused

    def _outside(self, name: str, job: FileJob) -> bool:
        """Does a path named relative to ``job``'s directory leave the repository?"""
        return os.path.isabs(name) or not self.boundary.contains(os.path.join(os.path.dirname(job.abspath), name),
                                                                 job.root)

    # -- systemd units ---------------------------------------------------------------
    def systemd(self, job: FileJob, src: SourceFile, doc: TStr, render_role: Optional[str], label: str = "") -> None:
        """Each ``ExecStart=`` of the unit's ``[Service]`` section, as a shell command with the unit's
        ``Environment=`` (:mod:`pdlint.formats.systemd`)."""
        from pdlint.formats import systemd
        unit = systemd.parse(doc)
        env = dict(self.shell_env(job))
        env.update(unit.env)
        for cmd, line in unit.commands:
            context = ", ".join(x for x in (label, f"systemd unit ExecStart= (line {line})") if x)
            self.shell(job, src, cmd, render_role, env=env or None, context=context,
                       meta={"shell_run": f"systemd unit {os.path.basename(job.abspath)}"})

    # -- Makefiles -----------------------------------------------------------------
    def makefile(self, job: FileJob, src: SourceFile) -> None:
        """Each rule's recipe as a shell script (:mod:`pdlint.formats.makefile`), the target name a role hint."""
        from pdlint.formats import makefile

        def read(name: str) -> Optional[TStr]:  # `include other.mk`: relative to the Makefile, in the repository
            found = self.read_beside(name, job)
            return TStr.from_source(found) if found is not None else None

        env = self.shell_env(job)
        given = {k: v.text for k, v in env.items() if isinstance(v, TStr)}
        left: list = []
        refused: list = []
        readings = makefile.variants(TStr.from_source(src), read, given, left, refused)
        from pdlint.coverage import has_launch_text
        for name, word, unset in refused if has_launch_text(src.text) else ():
            self.outside_reference(word, _unread_include("included makefile", name, self._outside(name, job),
                                                         [f"$({n})" for n in unset]))
        for count, via, at in left[:1]:  # said at the first run not built
            self.unchecked(at, f"{count} more run{'s' if count != 1 else ''} of recipes with other variables ({via} "
                               f"and later) {'were' if count != 1 else 'was'} not built: pdlint builds at most "
                               f"{makefile.MAX_BOUND} per reading of the Makefile (those bringing the most values)",
                           "give fewer distinct variable values to recursive `$(MAKE)` calls of one target, or check "
                           "the others with `[tool.pdlint.vars]` in a config of their own", job)
        for label, found in readings:
            # one variant per value of a variable a conditional tests that comes from the make command line
            # (`make ROLE=prefill`): each is its own invocation, as each target is
            for r in found:
                # (`make decode` running `serve`'s recipe with decode's target-specific variables, or a recursive
                # `$(MAKE) serve ROLE=prefill`: that invocation, rw22/a)
                run = (r.via or f"make {r.target}") + (f" with {label}" if label else "")
                meta = {"shell_run": run}  # each target is its own invocation: not co-located
                role = (makefile.role_hint(r.root) if r.root else None) or makefile.role_hint(r.target)
                if role:
                    meta["role_hint"] = role
                self.shell(job, src, r.body, None, env=env or None, context=f"make target {r.target!r}" +
                           (f" via {r.via}" if r.via else "") + (f" with {label}" if label else ""), meta=meta)

    # -- Dockerfiles ---------------------------------------------------------------
    def dockerfile(self, job: FileJob, src: SourceFile) -> None:
        """What each build stage with an ``ENTRYPOINT`` or ``CMD`` of its own runs (:mod:`pdlint.formats.dockerfile`),
        in its base image (whose tag pins the engine release, else the engine pins its ``RUN`` lines install) with
        its ``ENV``."""
        from pdlint.formats import dockerfile
        for st in dockerfile.parse(TStr.from_source(src)):
            env = dict(self.shell_env(job))
            env.update(st.env)
            where = f"Dockerfile stage {st.name!r} (FROM {st.image or 'an image pdlint cannot see'}, line {st.line})"
            meta = {"image": st.image, "shell_run": f"Dockerfile {job.display} stage {st.name}"}
            for run in st.runs:  # build steps
                build = {**meta, "shell_run": f"Dockerfile {job.display} RUN at line {run.line}"}
                if run.shell is not None:
                    self.shell(job, src, run.shell, None, env=env, context=f"{where}, RUN (a build step)", meta=build)
                else:
                    self.command_launches(job, list(run.exec_words), env, f"{where}, RUN (a build step)", None,
                                          {**build, "exec_form": True})
            if not st.own:
                continue
            if st.pins:  # `RUN pip install "sglang[all]==0.5.9"`: the release the image runs (its FROM tag wins)
                meta["pins"] = {e: v for e, (v, _) in st.pins.items()}
                meta["pins_at"] = {e: (o.path, o.line) for e, (_, o) in st.pins.items()}
            entry, cmd = st.entry, st.cmd
            if entry is not None and entry.shell is not None:  # `/bin/sh -c`, CMD ignored
                self.shell(job, src, entry.shell, None, env=env, context=f"{where}, ENTRYPOINT", meta=meta)
            elif entry is not None:
                words = list(entry.exec_words)
                if cmd is not None:
                    words += cmd.exec_words if cmd.exec_words is not None else \
                        [TStr.synthetic("/bin/sh", "<CMD shell form>"), TStr.synthetic("-c", "<CMD shell form>"),
                         cmd.shell]
                self.command_launches(job, words, env, f"{where}, ENTRYPOINT and CMD", None,
                                      {**meta, "exec_form": True})
            elif cmd is not None and cmd.shell is not None:
                self.shell(job, src, cmd.shell, None, env=env, context=f"{where}, CMD", meta=meta)
            elif cmd is not None:
                words = image_entry_words(st.image, list(cmd.exec_words), st.image_tok)
                self.command_launches(job, words, env, f"{where}, CMD", None, {**meta, "exec_form": True})

    # -- shell ---------------------------------------------------------------------
    def shell(self, job: FileJob, src: SourceFile, doc: TStr, render_role: Optional[str], label: str = "",
              env: Optional[dict] = None, positional: Optional[list] = None, context: str = "",
              meta: Optional[dict] = None, per_arg: bool = False, kind: str = "script") -> int:
        """Launches of a shell text.  ``per_arg`` (a script file): when a launch
        depends on the script's unknown first argument, the script is evaluated
        once per role value for it - the role names the script itself compares
        ``$1`` with, else those its callers in the repository pass - as a
        template is rendered once per role."""
        try:
            from pdlint.formats.shell import ShellContext, shell_commands
        except ImportError:
            return 0
        budget.stage("shell")
        root = job.root

        sourced: list = []  # the texts the evaluation sourced (a launch function may be defined there)

        def resolve_source(name: str, current: SourceFile) -> Optional[SourceFile]:
            base = current.abspath if current and current.abspath else job.abspath
            found = self.resolve_in_repo(name, base, root)
            if found is None and name.startswith("/") and "\0" not in name and not name.endswith("/"):
                # a host or container path of the repository's own file, mounted there (`source
                # /host/kimi-k3-sglang/env_common.sh` beside env_common.sh, whn09/kimi-k3-sglang, field test rw16/k):
                # the file of that name beside the script (or between it and the root)
                found = self.resolve_in_repo(os.path.basename(name), base, root)
            if found is not None:
                sourced.append(found.text)
            return found

        from pdlint.formats.yaml_shell import has_launcher

        def report(code: str, message: str, where: TStr, index: int) -> None:
            if code == "PD-SHELL-PLACEHOLDER":
                from pdlint.shell_rules import PLACEHOLDER_REDIRECT as rule
                o = where.real_origin_at(index) if where.pieces else None
                if o is not None and not o.path.startswith("<") and \
                        (o.path, o.line, o.column, rule.code) not in self._placeholders:
                    self._placeholders.add((o.path, o.line, o.column, rule.code))
                    token = message.split("`", 2)[1]  # `<name>`
                    self.out.findings.append(Finding(o.path, o.line, o.column, rule.code, rule.name, rule.severity,
                                                     None, message, fix=rule.fix, end_column=o.column + len(token),
                                                     token=token))
                return
            if code == "PD-SHELL-CUT":  # text bash never runs: its launch text is PD020 with this reason
                self.note_cut(where, index, message)
                return
            rule = C.SHELL_LIMIT if code.endswith(("LIMIT", "ABORT")) else C.SHELL_PARSE
            o = where.real_origin_at(index) if where.pieces else None  # (as problem_at files it)
            # (a parse error's message names the text kind: the same error read as a script and as a sourced file)
            key = (o.path, o.line, o.column, rule.code, message if rule is C.SHELL_LIMIT else "") \
                if o is not None else None
            if key in self._shell_problems:
                return  # the same text again: another path's `sh -c` string, a library each script sources
            self._shell_problems.add(key)
            if code == "PD-SHELL-ABORT" and o is not None and (
                    has_launcher(where.text[index:]) or any(has_launcher(t) for t in sourced)):
                # the evaluation stopped altogether before a server's entry point: said so (field test rw20/h).
                # A warning still, as PD020 for the launch text it left is: legitimate scripts reach these limits
                # too (a GPU-memory wait loop before the next server in SemiAnalysisAI/InferenceX's speedbench
                # scripts: eight errors in the field compare); `--strict` fails on both
                message += "; the launches after it were not evaluated"
            elif code == "PD-SHELL-ABORT" and o is not None and _ENGINE_WORDS.search(where.text, index):
                message += ("; what follows was not evaluated, and it holds launch words (a launch built there was not "
                            "seen)")
            # (in a Makefile or justfile recipe too: what make or just leaves of a recipe line is the shell's,
            # every character from the quote on written in the file - interp._written - and sh refuses it, "make:
            # *** Error 2"; hostile-input round rw32/h P9)
            certain = code == "PD-SHELL-PARSE-ERROR"
            self.problem_at(rule, where, index, message, ERROR if certain else None)

        unread_sources: list = []  # (word, name): `source FILE` of a file not in the repository (a deploy host's)

        def source_refused(name: str, current: SourceFile, word: TStr) -> None:
            base = current.abspath if current and current.abspath else job.abspath
            why = self.refused_reference(name, base, root)
            if why:
                self.outside_reference(word, f"sourced file {name} {why}; pdlint does not read it, so what it "
                                             f"sets (variables, functions, flags) was not checked")
            elif word.pieces:
                unread_sources.append((word, name))

        from pdlint.coverage import has_launch_text

        cfg = self.config_for(job.abspath)
        given = frozenset(k for k in list(cfg.vars) + list(self.opt.variables) if isinstance(k, str))

        def quiet(**kw) -> ShellContext:  # a run again: its problems were reported by the first one
            return ShellContext(resolve_source=resolve_source, report=lambda *a: None, heredoc_filter=has_launch_text,
                                env_checked=env_checked, launch_text=has_launch_text, given=given, **kw)

        held: list = []  # the evaluator's limits: reported when they may have cost a launch (below)

        def report_or_hold(code: str, message: str, where: TStr, index: int) -> None:
            if code in ("PD-SHELL-LIMIT", "PD-SHELL-ABORT"):
                held.append((code, message, where, index))
            else:
                report(code, message, where, index)

        def source_read(path: TStr, index: int, src: SourceFile) -> list:
            """The texts the path's computed piece ``index`` may take to name another file beside ``src`` (the
            computed part within the file's base name, the rest of it literal): ``big`` for ``models/big.env``."""
            p = path.pieces[index]
            before, value, after = path.text[:p.start], path.text[p.start:p.end], path.text[p.end:]
            if "/" in value or "/" in after or not src.abspath:
                return []
            prefix = before.rsplit("/", 1)[-1]
            folder = os.path.dirname(src.abspath)
            try:
                names = sorted(os.listdir(folder))[:MAX_SOURCE_SIBLINGS * 16]
            except OSError:
                return []
            out = []
            for n in names:
                if n.startswith(prefix) and n.endswith(after) and len(n) > len(prefix) + len(after):
                    text = n[len(prefix):len(n) - len(after) if after else len(n)]
                    f = os.path.join(folder, n)
                    if text != value and self.boundary.is_file(f, root):
                        out.append(text)
                        if len(out) >= MAX_SOURCE_SIBLINGS:
                            break
            return out

        ctx = ShellContext(resolve_source=resolve_source, report=report_or_hold, source_refused=source_refused,
                           source_read=source_read,
                           heredoc_filter=has_launch_text, env_checked=env_checked, launch_text=has_launch_text,
                           given=given, script_kind=kind)
        if kind == "script" and doc.text.find("#SBATCH", 0, 65536) >= 0:
            env = {**slurm_env(doc), **(env or {})}
        started = time.monotonic()
        cmds = shell_commands(doc, ctx, env=env, positional=positional)
        took = time.monotonic() - started  # (what another run of the script may take: _env_runs)
        if unread_sources:
            self._unread_source_values(unread_sources, cmds, doc)
        for args, serial in zip(held, ctx.limit_serials):
            if _limit_matters(args[3], serial, doc, cmds, sourced, args[0] == "PD-SHELL-ABORT"):
                report(*args)
        heredocs = ctx.heredocs
        loops = False  # the run used is the one given one option (below)
        if positional is None and not any(launchers.find(c.words) is not None for c in cmds):
            if has_launch_text(doc.text):
                # no launch when run without options: it may need one (`while [[ $# -gt 0 ]]; do case "$1" in
                # --role) ROLE="$2"; shift 2 ;; ... esac; done; [[ -z $ROLE ]] && exit 1`, sgl-project/sglang
                # benchmark/hicache/run_pd_disagg_bench_dp8ep8.sh): run it as given one
                again_ctx = quiet(loops_once=True)
                again = shell_commands(doc, again_ctx, env=env)
                if any(launchers.find(c.words) is not None for c in again):
                    cmds, heredocs, loops = again, again_ctx.heredocs, True
                    ctx.env_values, ctx.env_reach = again_ctx.env_values, again_ctx.env_reach
        runs = [(cmds, render_role, label, heredocs)]
        from pdlint.formats.shell.conditions import role_of as _role_of
        read = set()  # the arguments the launches read ("1", "6")
        launching = []
        if per_arg and positional is None and render_role is None:
            launching = [c for c in cmds if launchers.find(c.words) is not None]
            for c in launching:
                read.update(v for v in c.unset_vars if v.isdigit() and v != "0")
        own = bool(launching) and {_role_of(t) for t in ctx.arg_values} >= {"prefill", "decode"}
        if read or own:
            # the launch reads $1, or the script itself dispatches on $1 by role (`[ "$role" = GEN ]`
            # in TensorRT-LLM's start_worker.sh, whose launch line does not mention it)
            k, values = 1, {}
            if "1" in read or own:
                values = self.arg_values(job, ctx.arg_values)
            if not values and read:  # the role names the calling scripts pass at a position the launch reads
                by_position = self.caller_args(job)
                k = next((int(v) for v in sorted(read, key=int) if by_position.get(int(v))), 1)
                values = by_position.get(k, {})
            if values:
                from pdlint.formats.shell.conditions import role_of
                name = os.path.basename(job.abspath)
                runs = []
                for text, tok in values.items():
                    run_ctx = quiet()
                    how = f"run as `{name} {text}`" if k == 1 else f"run with `{text}` as ${k}"
                    runs.append((shell_commands(doc, run_ctx, env=env, bound={k: tok}), role_of(text),
                                 ", ".join(x for x in (label, how) if x), run_ctx.heredocs))
                runs = _uncalled_once(_new_launches_only(runs, [role_of(t) is None for t in values]))
        if per_arg and positional is None and render_role is None and len(runs) == 1:
            runs = self.role_var_runs(job, doc, cmds, env, label, quiet) or runs
        env_labels: set = set()
        if per_arg and positional is None and render_role is None and len(runs) == 1 and ctx.env_values:
            extra, unreached = _env_runs(doc, ctx.env_values, runs[0], env, lambda: quiet(loops_once=loops), label,
                                         took, ctx.env_reach)
            for (path, at), (reason, hint) in sorted(((k, v) for k, v in unreached.items() if k[0] is not None),
                                                     key=lambda kv: kv[0]):
                self.out.notes.setdefault(path, {}).setdefault(at, (reason, hint, None))
            for (path, at), (reason, hint) in unreached.items():  # (values that change flags: at the value)
                if path is None:
                    self.unchecked(at[0], reason, hint, job)
            env_labels = {r[2] for r in extra}
            runs += extra
        orphans = self.orphaned_flags(doc, cmds, render_role)
        n = 0
        seen_heredocs: set = set()
        for cmds, role, run_label, heredocs in runs:
            for hd in heredocs:
                if not hd.launch_text:
                    continue  # a config file the script writes: read when a launch names it (_written_files)
                n += self.heredoc(job, src, doc, hd, render_role, role, run_label, context, meta, seen_heredocs)
        from pdlint.formats.pins import install_pins
        for cmds, role, run_label, heredocs in runs:
            written = _written_files(heredocs, doc)
            unread_writes = _unread_writes(heredocs, doc)
            installed: dict = dict((meta or {}).get("installed_pins") or {})  # engine -> (version, word)
            for cmd in cmds:
                if cmd.start in orphans:
                    continue  # flags cut off their launch (PD060): no command, no image entry point's args
                if not (cmd.uncalled or cmd.remote or cmd.container or cmd.image):
                    # `pip install "sglang[all]==0.5.9"` on this host: the release of what starts after it
                    for engine, (version, k) in install_pins([w.text for w in cmd.words]).items():
                        installed[engine] = (version, cmd.words[k])
                ctx_text = ", ".join(x for x in (context, cmd.context, run_label) if x)
                merged_env = dict(env or {})
                merged_env.update(cmd.env)
                m = _run_meta(meta, cmd.role_hint, role, cmd.uncalled, run_label)
                if installed:
                    m["pins"] = {**(m.get("pins") or {}), **{e: v for e, (v, _) in installed.items()}}
                    m["pins_at"] = {**(m.get("pins_at") or {}),
                                    **{e: (w.origin.path, w.origin.line) for e, (_, w) in installed.items()}}
                if written:  # (a script's own here-documents win over the files its runner writes: sflow's)
                    m["written_files"] = {**m.get("written_files", {}), **written}
                if unread_writes:
                    m["written_unread"] = unread_writes
                m["shell_job"] = (run_label, cmd.serial)
                m["command_at"] = (run_label, cmd.start)  # where in the text it is (pairing.apart_in_text)
                m["script_command"] = True  # a command of a script, never a container's args
                if not (cmd.background or cmd.uncalled):  # the script waits for it to end before going on
                    m["foreground"] = True
                if run_label in env_labels:  # another node or invocation: never beside the other runs' launches
                    m["shell_run"] = m["env_run"] = run_label
                if cmd.remote:  # in an `ssh HOST COMMAND` string: on another host
                    m["remote"] = True
                if cmd.image and not m.get("image"):  # `docker run IMAGE bash -c "..."`: the image pins the release
                    m["image"] = cmd.image
                if cmd.container:  # its devices and network (pairing.container_text)
                    m["container_run"] = cmd.container
                if cmd.instances:  # loop iterations / function calls whose launches run side by side (pairing)
                    m["instances"] = frozenset(cmd.instances)
                if cmd.ended_before:  # background launches a kill ended before this one runs (shell.jobs)
                    m["ended_before"] = frozenset((run_label, s) for s in cmd.ended_before)
                start = doc[cmd.start:cmd.start + 1] if 0 <= cmd.start < len(doc.text) else None
                n += len(self.command_launches(job, cmd.words, merged_env, ctx_text, role, m,
                                               nested_done=cmd.runs_shell, start=start))
        return n

    def heredoc(self, job: FileJob, src: SourceFile, doc: TStr, hd, render_role: Optional[str],
                run_role: Optional[str], run_label: str, context: str, meta: Optional[dict], seen: set) -> int:
        """The launches of a here-document of a shell text (:class:`pdlint.formats.shell.ShellHeredoc`)
        that holds YAML: a Kubernetes manifest fed to ``kubectl apply -f - <<EOF``, written by ``cat >
        pod.yaml <<EOF``.  Other text (a Python program, an INI file) is not read: its launch text stays
        reported as not checked (PD020).  ``seen``: the texts (with their role) read before, in another
        run of the script."""
        from pdlint.formats.shell.state import tstr_key
        m = _run_meta(meta, hd.role_hint, run_role, hd.uncalled, run_label)
        key = (tstr_key(hd.text), m.get("role_hint"))
        if key in seen:
            return 0
        seen.add(key)
        line = doc.origin_at(hd.start).line if 0 <= hd.start < len(doc.text) else 1
        where = f"here-document at line {line}" + ("" if hd.evaluated else
                                                    " (read as written: the evaluation stopped before it)")
        label = ", ".join(x for x in (context, run_label, hd.context, where) if x)
        if heredoc_script(hd):
            if _reader_program(hd) == "ssh":  # `ssh HOST <<EOF`: the script runs on that host
                m["remote"] = True
            return self.heredoc_script(job, src, hd, render_role, label, m, line)
        try:
            docs = yt.compose(hd.text.text)
        except yt.YamlError:
            return 0
        except yt.LimitError:
            docs = None  # an alias bomb: self.yaml reports it
        if docs is not None and not any(isinstance(d.root, (yt.YMap, yt.YSeq)) for d in docs):
            return 0
        before = len(self.out.launches)
        self.yaml(job, src, hd.text, render_role, keyed=False, docs=docs, label=label, unit_meta=m)
        if len(self.out.launches) == before and docs:
            # `cat > disagg-config.yml <<EOF` with `context_servers:` / `generation_servers:` for the script's
            # `trtllm-serve disaggregated -c disagg-config.yml` (TensorRT-LLM's README): its servers, as for such
            # a file in the repository (other keyed files a script writes are read where a launch names them)
            self.written_disagg_config(job, src, hd.text, where, meta=m, docs=docs)
        return len(self.out.launches) - before

    def written_disagg_config(self, job: FileJob, src: SourceFile, text: TStr, note: str, unit: str = "",
                              meta: Optional[dict] = None, docs: Optional[list] = None) -> list:
        """The servers of a TensorRT-LLM disaggregated config (``context_servers`` / ``generation_servers``) a
        script or a runner writes for a ``trtllm-serve disaggregated -c`` (a here-document; an sflow artifact's
        ``content:``, NVIDIA's trtllm_serve_disagg sample, field round rw34/a P6), as for such a file in the
        repository; ``docs``: ``text`` composed already, ``meta``: given to each launch."""
        if docs is None:
            try:
                docs = yt.compose(text.text)
            except (yt.YamlError, yt.LimitError):
                return []
        if len(docs) != 1 or not isinstance(docs[0].root, yt.YMap):
            return []
        root = yt.Ref(docs[0].root)
        if not {k for k, _ in yt.map_items(root)} & {"context_servers", "generation_servers"}:
            return []
        from pdlint.formats import keyed
        out = []
        for launch in keyed.trtllm_disagg(job, src, text, root):
            if not launch.meta.get("no_servers"):
                launch.meta.update(meta or {})
                launch.unit = launch.unit or unit
                launch.context = ", ".join(x for x in (launch.context, note) if x)
                self.add_launch(launch)
                out.append(launch)
        return out

    def heredoc_script(self, job: FileJob, src: SourceFile, hd, render_role: Optional[str], label: str,
                       meta: dict, line: Optional[int] = None) -> int:
        """A shell script a script writes or runs from a here-document (``cat > prefill_entry.sh <<EOF``,
        ``bash <<EOF``): evaluated as a script of its own, from the text the outer script writes (its
        variables expanded there, each character traced to where it is written); it runs later, in
        another process, so it starts from the configured variables only."""
        if self._heredoc_depth >= MAX_HEREDOC_SCRIPTS:
            return 0
        self._heredoc_depth += 1
        try:
            # (a syntax error in it is the written script's: field test rw19/a, a `cat > /tmp/router_deploy.sh
            # <<EOF` whose `\\\$(if ...)` made the generated script fail, was "missing ';' (script)" at the outer one)
            return self.shell(job, src, hd.text, render_role, label=label, env=self.shell_env(job), context=label,
                              meta=meta, kind="script the here-document" + (f" at line {line}" if line else "")
                              + " writes or runs")
        finally:
            self._heredoc_depth -= 1

    def orphaned_flags(self, doc: TStr, cmds: list, render_role: Optional[str]) -> set:
        """PD060: flags cut off from their command by a broken ``\\`` continuation.
        One finding per place; a place only one role's render reaches keeps that role."""
        from pdlint.shell_rules import orphaned_flags
        starts = set()
        for cmd in cmds:
            if not cmd.words or not (0 <= cmd.start < len(doc.text)) or not cmd.words[0].pieces:
                continue
            at, first = doc[cmd.start:cmd.start + 1], cmd.words[0].pieces[0]
            if not at.pieces or at.pieces[0].src is not first.src or at.origin.key != cmd.words[0].origin.key:
                continue  # the command's words are not written where its statement starts (eval, $CMD ...)
            f = orphaned_flags(doc, cmd.start, cmd.words)
            if f is None:
                continue
            trimmed = self.cut_by_trimmed_tag(f, doc, cmd.start)
            if trimmed:
                # (field test rw22/h: not reporting the break left the flags below it unchecked - rendered without
                # trim_blocks they are a command of their own no rule reads - and a comment naming the option was
                # enough to turn the finding off)
                m = re.search(r"so (`.*`) runs as a command of its own", f.message)
                f = replace(f, severity=WARNING, message=(
                    f"{m.group(1) if m else 'these flags'} not checked as part of the launch: the template's "
                    f"block-tag lines above render to a blank line without trim_blocks, which ends the command in "
                    f"pdlint's render; the repository's Python renders templates with trim_blocks=True ({trimmed}), "
                    f"where the command is whole"),
                    fix="Tell pdlint how the templates render: `[tool.pdlint.jinja] trim-blocks = true` "
                        "(`lstrip-blocks` too if your code sets it); pdlint then checks the command whole.")
            starts.add(cmd.start)
            for w in cmd.words:  # reported as PD060, not as launch text pdlint did not understand
                for p in w.pieces:
                    if p.src is not None:
                        self.out.notes.setdefault(p.src.path, {})[p.src.position(p.offset)[0]] = None
            key = (f.path, f.line, f.column)
            seen = self._orphans.get(key)
            if seen is None:
                self._orphans[key] = [len(self.out.findings), {render_role}]
                self.out.findings.append(replace(f, role=render_role))
            elif render_role not in seen[1]:
                seen[1].add(render_role)
                i = seen[0]
                self.out.findings[i] = replace(self.out.findings[i], role=None)
        return starts

    def cut_by_trimmed_tag(self, f: Finding, doc: TStr, start: int) -> str:
        """A PD060 whose blank lines are all a template's block-tag lines (``{% if x %}`` alone on its line) in
        a repository whose own Python renders templates with Jinja's ``trim_blocks`` (and no
        ``[tool.pdlint.jinja]`` says how they render): there those lines are never blank.  Field test rw21/a:
        ai-dynamo/aiconfigurator renders with ``Environment(trim_blocks=True, lstrip_blocks=True)``; two false
        PD060 errors on its benchmark templates.  The place of that ``Environment(...)`` call, or "": a PD060
        there is a warning that says the flags below were not checked, and how to make them checkable."""
        if not any(r.note == "the command is cut here (a blank line)" for r in f.related) or not doc.pieces:
            return ""
        text = doc.text
        end = text.rfind("\n", 0, start)  # the newline ending the line above the flags
        src = None
        while end > 0:
            line_start = text.rfind("\n", 0, end) + 1
            if text[line_start:end].strip():
                break
            o = doc.origin_at(end)  # (a blank line's newline: the template line it comes from)
            s = self.out.sources.get(o.path) if o is not None else None
            if s is None or not s.abspath or (src is not None and s is not src) or \
                    not _TAG_LINE.fullmatch(s.line_text(o.line)):
                return ""
            src, end = s, line_start - 1
        if src is None or self.config_for(src.abspath).jinja is not None:
            return ""  # (the config says how templates are rendered)
        from pdlint.discover import repo_root
        return self.repo_trims_blocks(repo_root(src.abspath, {}) or os.path.dirname(src.abspath))

    def unknown_filters(self, src: SourceFile, problems: list) -> list:
        """The unknown filters and tests of a template's render (problems ``filter`` / ``test``:
        :func:`pdlint.render.jinja._stand_in_unknown`) said as what they are: one a Python file of the repository
        registers (``env.filters["model_id_label"] = ...``, field round rw30/a P4: a PD004 error on a template the
        repository's own renderer compiles) is a warning naming that place; a name close to a builtin one that
        nothing registers is a misspelling, PD004 with the name it is close to; any other a warning saying how to
        declare it."""
        if not any(p.code in ("filter", "test") for p in problems):
            return problems
        from pdlint.discover import repo_root
        from pdlint.render import ansible
        registered = self.repo_jinja_registrations(repo_root(src.abspath, {}) or os.path.dirname(src.abspath)) \
            if src.abspath else {}
        skipped = registered.get(("skipped", None)) or []
        # (a Python file pdlint did not parse may register it: said, not "no Python file registers it", rw31/h P7)
        more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        unread = f"; pdlint did not parse {', '.join(skipped[:3])}{more}, which may register it" if skipped else ""
        out = []
        for p in problems:
            if p.code not in ("filter", "test"):
                out.append(p)
                continue
            kind, name = p.code, p.name
            where = registered.get((kind, name))
            also = (f" (also used on line{'s' if len(p.also) > 1 else ''} {_line_list(list(p.also))})"
                    if p.also else "")
            declare = (f"declare it: `[tool.pdlint.jinja] filters = [\"{name}\"]` (its result stays a value pdlint "
                       f"cannot see, without this warning)")
            # (a test decides a branch: not declarable, what it guards would pass unchecked)
            unchecked = ("What it guards is not checked: guard it with a variable pdlint can be given "
                         "(`[tool.pdlint.vars]`, `--var`), or put `{# pdlint: ignore[PD016] #}` on the line to accept "
                         "it unchecked")

            def hint_if(lead: str) -> str:
                return f"{lead}, {declare}" if kind == "filter" else unchecked
            if name in (ansible.FILTERS if kind == "filter" else ansible.TESTS):
                # (an Ansible role's template checked without the preset: not a misspelling of Jinja's `tojson`)
                out.append(replace(p, message=f"{p.message}{also}; it is an Ansible {kind}", hint=(
                    "If Ansible renders this template, say so: `[tool.pdlint.jinja] preset = \"ansible\"` (its "
                    "filters, tests and facts)")))
            elif where:
                message = (f"{p.message}{also}; the repository's Python registers it ({where}) on the Environment "
                           f"its templates render with, which pdlint reads as text and never runs")
                out.append(replace(p, message=message, hint=hint_if("If that Environment renders this template")))
            elif p.close:
                out.append(replace(p, code="syntax", message=(
                    f"No {kind} named '{name}'. Did you mean '{p.close}'? (no Python file of the repository "
                    f"registers a {kind} of that name{unread}){also}"),
                    hint=f"Fix the name (`{p.close}`)" + (
                        f"; if the tool that renders the template registers '{name}', {declare}"
                        if kind == "filter" else "")))
            else:
                message = (f"{p.message}{also}; no Python file of the repository that pdlint read registers it "
                           f"(`env.{kind}s[\"{name}\"] = ...`){unread}")
                out.append(replace(p, message=message,
                                   hint=hint_if("If the tool that renders this template registers it")))
        return out

    def repo_python(self, root: str, big: bool = False):
        """``(path, bytes)`` of the repository's Python files, at most :data:`MAX_PY_SCAN` of them and
        :data:`MAX_PY_SCAN_BYTES` in all, each read through the boundary (to be parsed as text, never run);
        ``big``: also ``(path, None)`` for a file larger than :data:`MAX_FILE_BYTES`."""
        from pdlint.discover import _git_files
        from pdlint.safeio import BIG, Refused
        repo = self._repo_files.get(root)
        if repo is None:
            repo = self._repo_files[root] = sorted(_git_files(root, root) or [])
        left = MAX_PY_SCAN_BYTES
        for path in [f for f in repo if f.endswith(".py")][:MAX_PY_SCAN]:
            if left <= 0:
                break
            try:
                data = self.boundary.read(path, root, limit=min(left, MAX_FILE_BYTES))
            except Refused as r:
                if big and r.kind == BIG and left >= MAX_FILE_BYTES:
                    yield path, None
                continue
            except (OSError, TypeError):
                continue
            left -= len(data)
            if self.deps is not None:  # a file that says so later changes the result
                self.deps.weak(path, data)
            yield path, data

    def repo_jinja_registrations(self, root: str) -> dict:
        """``{(kind, name): "path:line"}``: where a Python file of the repository (at most :data:`MAX_PY_SCAN`
        of them and :data:`MAX_PY_SCAN_BYTES` in all, each read through the boundary, parsed, never run) registers
        a Jinja filter or test (``kind``): ``env.filters["x"] = f``, ``env.filters.update(x=f)`` /
        ``update({"x": f})``, an Ansible plugin's ``def filters(self): return {"x": f}``, Flask's
        ``@app.template_filter("x")``; the first place of each name.  A file larger than
        :data:`MAX_PY_PARSE_BYTES` (or than pdlint reads), past :data:`MAX_PY_PARSE_TOTAL`, or too deep to parse,
        is not parsed: the key
        ``("skipped", None)`` lists them (``path (why)``), for the finding to say (rw31/h P7)."""
        cached = self._registrations.get(root)
        if cached is not None:
            return cached
        found: dict = {}
        skipped: list = []
        parse_left = MAX_PY_PARSE_TOTAL
        for path, data in self.repo_python(root, big=True):
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if data is None:
                skipped.append(f"{rel} (over the {MAX_FILE_BYTES:,} bytes pdlint reads)")
                continue
            if b"filter" not in data and b"tests" not in data and b"template_test" not in data or \
                    not _REGISTRATION_TEXT.search(data):
                continue
            if len(data) > MAX_PY_PARSE_BYTES:
                skipped.append(f"{rel} ({len(data):,} bytes: over the {MAX_PY_PARSE_BYTES:,} pdlint parses)")
                continue
            if len(data) > parse_left:
                skipped.append(f"{rel} (past the {MAX_PY_PARSE_TOTAL:,} bytes of Python pdlint parses in all)")
                continue
            parse_left -= len(data)
            regs = _jinja_registrations(data)
            if regs is None:
                skipped.append(f"{rel} (too deep or too large to parse)")
                continue
            for key, line in regs:
                found.setdefault(key, f"{rel}:{line}")
        if skipped:
            found[("skipped", None)] = skipped
        self._registrations[root] = found
        return found

    def repo_trims_blocks(self, root: str) -> str:
        """Where a Python file of the repository (at most :data:`MAX_PY_SCAN` of them and
        :data:`MAX_PY_SCAN_BYTES` in all, each read through the boundary, parsed, never run) creates a Jinja
        environment with ``trim_blocks=True`` (``path:line``, relative to the repository), or ""."""
        cached = self._trims.get(root)
        if cached is not None:
            return cached
        found = ""
        for path, data in self.repo_python(root):
            line = _trim_blocks_call(data) if b"trim_blocks" in data and _TRIM_BLOCKS.search(data) else None
            if line is not None:
                found = f"{os.path.relpath(path, root)}:{line}"
                break
        self._trims[root] = found
        return found

    def arg_values(self, job: FileJob, own: dict) -> dict:
        """The values to run a script with as its first argument: the role
        names it compares ``$1`` with when they name both roles, else those and
        the role names its callers in the repository pass
        (``run_worker.sh prefill`` in a script, ``[bash, run_worker.sh,
        decode]`` in a manifest); {} when there are none."""
        from pdlint.formats.shell.conditions import role_of
        if {role_of(t) for t in own} >= {"prefill", "decode"}:
            out = dict(own)
        else:
            callers = self.caller_values(job)
            if not callers:
                return {}
            out = dict(own)
            for text, tok in callers.items():
                out.setdefault(text, tok)
        order = {"prefill": 0, "decode": 1}
        return dict(sorted(out.items(), key=lambda kv: order.get(role_of(kv[0]), 2)))

    def caller_values(self, job: FileJob) -> dict:
        """Role names passed as the first argument of this script by the other
        files of its repository: text -> the word where the first caller writes it."""
        import re as _re
        from pdlint.formats.shell.conditions import ROLE_WORDS
        name = os.path.basename(job.abspath)
        words = "|".join(sorted((_re.escape(w) for w in ROLE_WORDS), key=len, reverse=True))
        pat = _re.compile(r"(?<![\w.-])" + _re.escape(name) + r"[\"']?(?:\s*,\s*|\s+-\s+|[ \t]+)[\"']?(" + words +
                          r")[\"']?(?=[\s,;)\]]|$)", _re.I)
        out: dict = {}
        for src in self.callers(job):
            for m in pat.finditer(src.text):
                out.setdefault(m.group(1), TStr.at(m.group(1), src, m.start(1), exact=True))
        return out

    def caller_args(self, job: FileJob) -> dict:
        """Role names the shell scripts of the repository pass to this script, by
        position, as pdlint evaluates those scripts: {k: {text: the word}} for ``$k``.
        Evaluated, not read as text, so that an unquoted empty variable before the
        role drops out as in bash (``start_disagg_worker.sh $cfg ... ${nsys_on}
        $model_path 'prefill'`` with ``nsys_on=""`` gives ``$6``, Dynamo's TensorRT-LLM
        performance sweeps)."""
        from pdlint.discover import kind_of
        from pdlint.formats.shell import ShellContext, shell_commands
        from pdlint.formats.shell.conditions import role_of
        name = os.path.basename(job.abspath)
        out: dict = {}
        for src in self.callers(job):
            if kind_of(src.path, src.text[:64].encode("utf-8", "replace")) != "shell":
                continue
            cmds = self._caller_cmds.get(src.abspath)
            if cmds is None:
                ctx = ShellContext(resolve_source=lambda n, c: None, report=lambda *a: None)
                cmds = self._caller_cmds[src.abspath] = shell_commands(TStr.from_source(src), ctx)
            for cmd in cmds:
                at = next((i for i, w in enumerate(cmd.words) if w.text.rsplit("/", 1)[-1] == name), None)
                if at is None:
                    continue
                for k, w in enumerate(cmd.words[at + 1:], 1):
                    if len(w.text) > 3 and not w.opaque and role_of(w.text):  # (not `p`, `d`, `gen`: too loose here)
                        out.setdefault(k, {}).setdefault(w.text, w)
        return out

    def callers(self, job: FileJob) -> list:
        """The other files of the repository (scripts, manifests) that name this script."""
        from pdlint.discover import _git_files, kind_of
        name = os.path.basename(job.abspath)
        files = self._repo_files.get(job.root)
        if files is None:
            files = _git_files(job.root, job.root)
            self._repo_files[job.root] = files = sorted(files or [])
        out: list = []
        for f in files:
            if os.path.abspath(f) == os.path.abspath(job.abspath) or not kind_of(f, b"#!/bin/sh"):
                continue
            data = self._repo_data.get(f)
            if data is None:
                from pdlint.safeio import Refused
                try:
                    data = self.boundary.read(f, job.root)
                except Refused:
                    data = b""
                self._repo_data[f] = data  # read once per run, however many scripts ask
            if self.deps is not None:  # a script that names it later makes it a caller
                self.deps.weak(f, data or None)
            if name.encode() not in data:
                continue
            src = self.read(f, report=False)
            if src is not None:
                out.append(src)
        return out

    # -- launches ------------------------------------------------------------------
    def command_launches(self, job: FileJob, words: list, env: dict, context: str, render_role: Optional[str],
                         meta: dict, depth: int = 0, nested_done: bool = False, start: Optional[TStr] = None) -> list:
        """Launches of one command.  ``nested_done``: the shell front-end already
        evaluated the script of the command's ``sh -c`` (and reported its
        commands), so it is not evaluated again here (one launch, not two).
        ``start``: where the command's statement starts (its first character),
        so that a launch written with an environment prefix or a wrapper on an
        earlier line (``FOO=1 \\`` / ``srun ... \\``) is placed on that line."""
        if meta.get("exec_form") and depth == 0:
            words = self.unpack_exec_form(words, meta)
        found = launchers.find(words)
        if found is None and words and words[0].text.startswith("-") and meta.get("image") and \
                not meta.get("script_command"):
            # a container (Compose command, Kubernetes args) with no program of its own runs its
            # image's entry point with these words (not a command of a script that starts with a flag: the shell
            # runs it as a program of that name and fails; Kthena's `bash -c` of a multi-line JSON made a
            # phantom server of `} --served-model-name m ...`, field test rw19/a)
            found = launchers.image_match(meta["image"])
            if found is None and words[0].pieces:
                # (another image's too: where its args hold launch text, the PD020 says what runs them, not that
                # their first flag is "not a launcher" - field round rw35/b P5, an SGLang gateway image)
                o = words[0].origin
                self.out.entry_gaps.setdefault(o.path, []).append((o.line, o.column, meta["image"],
                                                                  _engine_image(meta["image"])))
        if found is None:
            self.note_unrecognised(words)
            return []
        if isinstance(found, launchers.ShellHandoff):
            if depth > 3:
                return []
            script, positional = found.script, found.positional
            if len(script.text.split()) == 1 and positional and not script.opaque:
                # `sh -c` followed by one token per argv word: only the first word is the script
                self.problem_at(C.SHELL_C_ARGS, script, 0,
                                f"`sh -c` runs only {script.text!r} as its script; the {len(positional)} words "
                                f"after it become $0, $1, ... and are not passed to {script.text!r}")
                return self.command_launches(job, [script] + positional, {**env, **found.env}, context,
                                             render_role, meta, depth + 1)
            merged = {**env, **found.env}
            inner_meta = {k: v for k, v in meta.items() if k != "exec_form"}
            if not inner_meta.get("image") and found.start:
                # `docker run IMAGE bash -c "python3 -m sglang.launch_server ..."`: the image pins the release
                image = launchers.wrapper_image([w.text for w in words[:found.start]])
                if image:
                    inner_meta["image"] = image
            if found.remote:  # `ssh HOST COMMAND`: the remote login shell starts from the configured values only
                merged, inner_meta["remote"] = self.shell_env(job), True
            from pdlint import structure_rules
            from pdlint.coverage import has_launch_text
            if has_launch_text(script.text):  # (a script that starts no server: whatever it sets harms none,
                self.out.findings += structure_rules.sh_c_findings(  # llumnix's mooncake_master container)
                    script, "`ssh` command string" if found.remote else "`sh -c` script")
            if nested_done:
                return []
            before = len(self.out.launches)
            # (`sh -c SCRIPT ARG0 ARGS...`: the first word after the script is $0, not $1: `bash -c '... "$@"' --`
            # in a container's command with its args after it, DO-Solutions/gtc-2026-doks)
            self.shell(job, self.read(job.abspath, report=False), script, render_role, env=merged,
                       positional=positional[1:], context=context, meta=inner_meta)
            return self.out.launches[before:]
        m: launchers.Match = found
        if m.entrypoint == "sglang serve" and _diffusion_serve(words[m.argv_start:]):
            self.note_unrecognised(words, (
                "`sglang serve` of a diffusion model runs SGLang's diffusion server (sglang.multimodal_gen), whose "
                "flags pdlint does not check"), "nothing to change if it serves an image or video model; a "
                "prefill/decode pair is an LLM server's (`--model-type llm` makes `sglang serve` one)")
            return []
        image = (meta or {}).get("image") or launchers.wrapper_image([w.text for w in words[:m.start]]) or ""
        if m.engine == "vllm" and any(w.text == "--omni" for w in words[m.argv_start:]) and \
                not _PLAIN_VLLM_IMAGE.search(image):
            self.note_unrecognised(words, (
                "`--omni` runs vLLM-Omni (the vllm-omni plugin's omni-modality and diffusion server), whose "
                "flags pdlint does not check"), "nothing to change if it serves an omni-modal or diffusion model; "
                "a prefill/decode pair of vLLM's own is checked without `--omni`")
            return []
        launch_env = dict(env)
        launch_env.update(m.env)
        entry = words[m.line_word if m.line_word is not None else m.start] if words else None
        if entry is None:
            return []
        o = entry.origin
        line = o.line if o.path == job.display else next(
            (h.line for h in o.chain if h.path == job.display), None)
        if line is None:
            # written wholly in another file (a function of a sourced library): where this file's own statement
            # that reached it starts (`start`), not line 1 (kvcache-ai/Mooncake's test_epd_sglang.sh)
            sp = start.pieces[0] if start is not None and start.pieces else None
            line = sp.src.position(sp.offset)[0] if sp is not None and sp.src is not None and \
                sp.src.path == job.display else 1
        if o.chain or o.path != job.display:
            # a program named by a variable (`$PYTHON -m sglang.launch_server`, `"$VLLM_BIN" serve`): the launch is
            # where its command is written, the first of its words written in place, not the variable's assignment
            # (two launches there were one site to the same-host rules, field test rw12/c)
            here = next((w.origin for w in words[m.start:] if w.pieces and not w.opaque and
                         not w.origin.chain and w.origin.path == job.display), None)
            if here is not None:
                line = here.line
        if start is not None and start.pieces and entry.pieces and not o.chain:
            sp, ep = start.pieces[0], entry.pieces[0]
            if sp.src is ep.src and sp.src is not None and sp.offset <= ep.offset and o.path == job.display:
                line = min(line, sp.src.position(sp.offset)[0])
        launch = Launch(path=job.display, line=line, engine=m.engine, entrypoint=m.entrypoint, kind=m.kind,
                        command=list(words[m.start:m.argv_start]), argv=list(words[m.argv_start:]),
                        env=launch_env, context=context, render_role=render_role, meta=dict(meta))
        if meta.get("role_hint"):
            launch.structural_role = meta["role_hint"]
        if m.start:  # what runs the launcher (srun ..., docker run ... IMAGE, env VAR=x): shown by `pdlint show`
            launch.meta["wrapper_words"] = list(words[:m.start])
            if not meta.get("image"):
                # (`docker run [OPTIONS] IMAGE ARGS`: the image is the entry point, words[m.start])
                texts = [w.text for w in words[:m.start + 1]]
                image = launchers.wrapper_image(texts[:-1]) or launchers.wrapper_image(texts)
                if image:
                    launch.meta["image"] = image
        if not launch.meta.get("image") and meta.get("script_image"):  # the Dockerfile that runs the script
            launch.meta["image"] = meta["script_image"]
        self.add_launch(launch)
        return [launch]

    def note_rendered(self, text: TStr) -> None:
        """Remember which source lines a template render produced (coverage reasons)."""
        rendered = self.out.rendered
        src = lines = None
        for p in text.pieces:  # hundreds per render, nearly all of one source file
            if p.src is None:
                continue
            if p.src is not src:
                src = p.src
                lines = rendered.setdefault(src.path, set())
            first = src.line_of(p.offset)
            if p.exact and p.end - p.start > 1:
                lines.update(range(first, src.line_of(p.offset + p.end - p.start - 1) + 1))
            else:
                lines.add(first)

    def note_unrecognised(self, words: list, why: Optional[str] = None, why_hint: str = "") -> None:
        """A command that is no launch pdlint knows but holds launch text: say why on its lines (``why``: a
        reason the caller knows, with ``why_hint``)."""
        from pdlint.coverage import MARKER
        if not words or not MARKER.search(" ".join(w.text for w in words)):
            return
        i = 0
        while i < len(words) - 1 and launchers.is_assignment(words[i].text):
            i += 1
        prog = words[i]
        texts = [w.text for w in words]
        if why is not None:
            reason, hint = why, why_hint
        elif launchers.basename(texts[launchers.program_at(texts, i)]) in _NOT_RUN or \
                launchers.only_help(texts[i:]) or \
                any(launchers.package_command(texts, k) for k in range(i, len(texts))) or \
                _quoted_not_run(texts[i + 1:]) or _python_c_imports_only(words, launchers.program_at(texts, i)):
            # printed, searched for, killed by name, asked for help, installed as a package, or only imported by
            # `python -c` (a preflight check): no launch
            reason = None
            hint = ""
        elif prog.opaque:
            var = _PLAIN_VAR.fullmatch(prog.text)
            whole = all(p.opaque for p in prog.pieces)
            reason = (f"the command's program is {prog.text or 'a value'} whose value pdlint cannot see, so it "
                      f"cannot tell which server it starts") if whole else (
                f"the command's program `{prog.text}` is partly a value pdlint cannot see (a variable or command "
                f"substitution in it may add words), so it cannot tell which server it starts")
            launcher = "write the launcher (e.g. `python3 -m sglang.launch_server`) into the command"
            if var:
                hint = f"give {var.group(1)} its value in `[tool.pdlint.vars]` or `--var`, or {launcher}"
            elif "$(" in prog.text or "`" in prog.text:
                hint = f"{launcher}: pdlint does not run command substitutions"
            else:
                hint = f"give the variables it reads their values in `[tool.pdlint.vars]` or `--var`, or {launcher}"
        else:
            program = _run_program(words, i)
            reason = f"`{program}` is not a launcher pdlint knows, so its arguments were not checked as a server's"
            hint = ("if it passes its arguments on to a server, call the server directly here, or check the script "
                    "it runs (pdlint checks a repository script called with literal role arguments)")
            if program.endswith((".", "-", "_")):  # `python3 -m dynamo.{{ .Values.workload.framework }}` with no value
                reason += " (its name ends where a value was written empty: a template value nothing set?)"
                hint = ("give the value the name is made of in the values or variables pdlint reads (a values file, "
                        "`--var`), or " + hint)
        start = prog.origin if prog.pieces else None
        spans: dict = {}  # (source path, line) -> [(start, end) character offsets of this command's words there]
        for w in words:
            for p in w.pieces:
                if p.src is None:
                    continue
                end = p.offset + (p.end - p.start if p.exact else 1)
                line, _ = p.src.position(p.offset)
                last = p.src.position(end - 1)[0] if end - p.offset > 1 else line
                for n in range(line, min(last, line + _NOTE_LINES) + 1):
                    # (every line of a piece: the script of `sh -c "..."` over lines 4-9 holds the launcher on
                    # line 5 and the flags on 7-8, one command and one finding, not one per line a piece starts)
                    spans.setdefault((p.src.path, n), (p.src, []))[1].append((p.offset, end))
        for (path, line), (src, got) in spans.items():
            if reason is None and _launch_text_beside(src, line, got):
                continue  # `echo "... sglang.launch_server"; torchrun -m sglang.launch_server ...`: not for the
                # whole line: the other command's launch text is still to be accounted for
            at = (start.line, start.column) if start is not None and start.path == path else None
            self.out.notes.setdefault(path, {}).setdefault(line, (reason, hint, at) if reason else None)

    def unpack_exec_form(self, words: list, meta: dict) -> list:
        """PD050: exec-form list items holding several words; the words split as a shell would."""
        from pdlint import format_rules as F
        words, packed = launchers.unpack(words, crd.shell_split)
        # (a Dockerfile's ENTRYPOINT / CMD: the container runtime, not the kubelet - rw27/h P28)
        runtime = "Docker" if meta.get("resource_kind") == "compose service" else \
            "the container runtime" if str(meta.get("shell_run", "")).startswith("Dockerfile ") else "the kubelet"
        for p in packed:
            self.out.findings.append(F.finding(F.PACKED_ITEM, p.item,
                                               F.packed_item_message(p.item, p.program, runtime)))
        return words

    def add_launch(self, launch: Launch) -> None:
        if self.deps is not None:
            self.deps.launch(launch)
        self._engine_source(launch)
        launch.ordinal = self._ordinals.get(launch.path, 0)
        self._ordinals[launch.path] = launch.ordinal + 1
        self.out.launches.append(launch)

    def _engine_source(self, launch: Launch) -> None:
        """``launch.meta["engine_source"]``: the file showing that the launch's repository is its engine's own
        source (a fork: :func:`pdlint.discover.engine_source`), which the check stage names in the findings a
        fork may not deserve, and ``launch.meta["engine_words"]`` the words its definitions hold
        (:func:`pdlint.discover.engine_words`: a refused name the fork does not write is refused there too);
        those files' presence and contents are inputs of the result (the cache's)."""
        from pdlint.discover import ENGINE_DEFINITIONS, ENGINE_SOURCES, engine_source, engine_words, repo_root
        if launch.engine not in ENGINE_SOURCES:
            return
        root = repo_root(os.path.abspath(launch.path), self._repo_roots)
        if root is None:
            return
        key = (root, launch.engine)
        if key not in self._engine_sources:
            rel = engine_source(root, launch.engine)
            self._engine_sources[key] = None if rel is None else (rel, engine_words(root, launch.engine, self.boundary))
        if self.deps is not None:  # (their contents: the words a fork defines are an input of the result)
            for rel in ENGINE_SOURCES[launch.engine] + ENGINE_DEFINITIONS[launch.engine]:
                self.deps.weak(os.path.join(root, rel))
        if self._engine_sources[key] is not None:
            launch.meta["engine_source"], launch.meta["engine_words"] = self._engine_sources[key]

    # -- files referenced from launches ------------------------------------------------
    def resolve_in_repo(self, name: str, from_abspath: str, root: str) -> Optional[SourceFile]:
        """A file named by a launch (``source``, ``--config``): relative to the
        referring file, then to the repository root, then to the directories between
        (the working directory the launch assumes); never outside the root
        (an absolute name is taken as relative to the root: a container path
        such as ``/app/run.sh`` is the repository's ``app/run.sh`` when it exists)."""
        if not name or "\0" in name:
            return None
        for cand in self._candidates(name, from_abspath, root):
            if self.boundary.is_file(cand, root):
                return self.read(os.path.realpath(cand), report=False)
            if self.deps is not None and self.boundary.contains(cand, root):
                self.deps.weak(os.path.realpath(cand))
        return None

    @staticmethod
    def _candidates(name: str, from_abspath: str, root: str) -> list:
        if os.path.isabs(name):
            return [os.path.join(root, name.lstrip("/"))]
        if name.startswith("../"):  # relative to the referring file (a script directory's parent), never the root
            return [os.path.join(os.path.dirname(from_abspath), name)]
        here = os.path.dirname(from_abspath)
        out = [os.path.join(here, name), os.path.join(root, name)]
        # then relative to the directories between (nearest first): the working directory a launch script or a
        # manifest assumes (ai-dynamo's `cd components/backends/trtllm; ./launch/disagg.sh` and its DGDs'
        # `workingDir: /workspace/components/backends/trtllm` both name `engine_configs/prefill.yaml`)
        rel = os.path.relpath(here, root)
        if not rel.startswith("..") and rel != ".":
            parts = rel.split(os.sep)
            for k in range(len(parts) - 1, 0, -1):
                out.append(os.path.join(root, *parts[:k], name))
        return out

    #: leading directories of an absolute path dropped at most by :meth:`same_path_below_root`
    NEAR_PREFIX_DIRS = 8

    def same_path_below_root(self, name: str, from_root: str) -> Optional[str]:
        """The repository file an absolute container path not found in the repository would name if its first
        directories were the repository root (``/workspace/examples/x.yaml`` -> ``examples/x.yaml``), keeping
        at least one directory; None when there is none.  Only said in PD022's message, never read: that the
        prefix is the repository's checkout is a guess."""
        if not name or "\0" in name or not name.startswith("/"):
            return None
        parts = [p for p in name.split("/") if p]
        for k in range(1, min(len(parts) - 1, self.NEAR_PREFIX_DIRS + 1)):
            rel = "/".join(parts[k:])
            cand = os.path.join(from_root, rel)
            if self.boundary.is_file(cand, from_root):
                if self.deps is not None:
                    self.deps.weak(os.path.realpath(cand))
                return rel
            if self.deps is not None and self.boundary.contains(cand, from_root):
                self.deps.weak(os.path.realpath(cand))
        return None

    def refused_reference(self, name: str, from_abspath: str, root: str) -> Optional[str]:
        """Why a file a launch names (``source``, ``--config``) exists but was
        not read: it leaves the repository, or is no regular file (None: it
        simply does not exist, or it was read)."""
        if not name or "\0" in name:
            return None
        for cand in self._candidates(name, from_abspath, root):
            r = self.boundary.refusal(cand, root)
            if r is None:
                return None
            from pdlint.safeio import MISSING, OUTSIDE
            if r.kind == OUTSIDE and (os.path.lexists(cand) or not os.path.isabs(name)):
                return "is outside the repository" if r.reason == "outside the repository" else f"is a {r.reason}"
            if r.kind != MISSING and r.kind != OUTSIDE:
                return f"is not read: {r.reason}"
        return None

    def interpret(self) -> None:
        """Hand every launch to its engine's adapter (``pdlint.engines.<engine>.engine``):
        it parses the argv and decides the launch's role."""
        from pdlint.engines import adapter
        from pdlint.engines.sglang.engine import EngineContext
        referenced: set = set()
        failed: set = set()  # files with a launch the engine adapter failed on: not checked (PD013)

        def resolve_config(tok: TStr, launch: Launch) -> Optional[SourceFile]:
            if launch.meta.get("virtual_config"):
                return self.read(launch.meta["virtual_config"], report=False)
            written = launch.meta.get("written_files")
            if written and os.path.normpath(tok.text) in written:  # `cat > cfg.yaml <<EOF` in the script
                from pdlint.engines.sglang.config_merge import EmbeddedFile
                text, note = written[os.path.normpath(tok.text)]
                return EmbeddedFile(launch.path, os.path.join(self.opt.cwd, launch.path), text, note)
            mounted = self.mounted_config(tok, launch)
            if mounted is not None:
                if launch.meta.get("mounted_file"):
                    referenced.add(launch.meta["mounted_file"])
                return mounted
            base = None
            for p in tok.pieces:
                if p.src is not None and p.src.abspath:
                    base = p.src.abspath
                    break
            if base is None:
                base = os.path.join(self.opt.cwd, launch.path)
            root = self.boundary.root_for(base)
            bound = self.bound_file(tok, launch, root)
            if bound is not None:
                referenced.add(bound.abspath)
                return bound
            src = self.resolve_in_repo(tok.text, base, root)
            if src is not None and not launch.meta.get("virtual_config"):
                referenced.add(src.abspath)
            elif src is None:
                why = self.refused_reference(tok.text, base, root)
                if why:  # coverage (PD022) says why the file was not read
                    launch.meta["config_refused"] = why
                else:
                    near = self.same_path_below_root(tok.text, root)
                    if near:  # coverage (PD022) names it; never read: the prefix need not be the root
                        launch.meta.setdefault("config_near", {})[tok.text] = near
            return src

        from itertools import groupby
        for path, group in groupby(self.out.launches, key=lambda l: l.path):
            try:  # one section per file's run of launches; a file over budget is dropped (pdlint.lint.analyse)
                with budget.charged(path, "arguments"):
                    for launch in group:
                        engine = adapter(launch.engine)
                        if engine is None or (launch.kind != "server"
                                              and not getattr(engine, "INTERPRETS_ROUTERS", False)):
                            continue
                        if self.deps is not None:  # the --config files it reads are the reads of its job
                            self.deps.job = self.deps.launch_job.get(id(launch))
                        cfg = self.config_for(os.path.join(self.opt.cwd, launch.path))
                        ctx = EngineContext(resolve_config, self.opt.engine_version or cfg.engine_version,
                                            self.opt.vllm_version or getattr(cfg, "vllm_version", None))
                        if not self.isolated(launch.path, lambda: engine.interpret(launch, ctx),
                                             "a launch in this file"):
                            failed.add(launch.path)
            except budget.OverBudget:
                pass
        self.out.launches = [l for l in self.out.launches
                             if not (l.meta.get("virtual_config") and l.meta["virtual_config"] in referenced)
                             and l.path not in failed]
        for name in sorted({l.engine for l in self.out.launches if isinstance(l.engine, str)}):
            engine = adapter(name)  # roles that only the deployment shows (a TRT-LLM proxy config's URLs)
            if engine is not None and hasattr(engine, "deployment_roles"):
                self.per_file(self.out.launches, engine.deployment_roles, "the deployment roles")
        for l in self.out.launches:
            l.meta.pop("mounts", None)  # read by the --config resolution only (it holds whole YAML trees)


def _vllm_config_keys(keys: list, sglang_table) -> list:
    """The keys of a top-level mapping that are options of vLLM's newest release and neither options nor
    abbreviations of SGLang's (none when it names an SGLang disaggregation mode, or when fewer than half its
    keys, or fewer than two, are vLLM options)."""
    norm = [str(k).replace("_", "-") for k in keys]
    if "disaggregation-mode" in norm:
        return []
    from pdlint.engines.vllm import flags as vflags
    vtable = vflags.load(vflags.available_versions()[0])
    known = [k for k in norm if vtable.resolve("--" + k)[1] == "exact"]
    if len(known) < max(2, (len(norm) + 1) // 2):
        return []  # mostly other keys: some tool's settings (sgl-project/ome's ome-agent.yaml has `hf_token`)
    return [k for k in known if sglang_table.lookup("--" + k) is None and not sglang_table.prefix_matches("--" + k)]


def image_entry_words(image: str, words: list, at: Optional[TStr]) -> list:
    """``words`` (the arguments only) behind the ENTRYPOINT of a known server image
    (:func:`pdlint.launchers.image_entrypoint`), the entry words placed at the image name ``at``; else ``words``."""
    entry = launchers.image_entrypoint(image, words)
    if entry is None or launchers.find(words) is not None:
        return words
    p = at.pieces[0] if at is not None and at.pieces else None
    if p is None:
        return [TStr.synthetic(w, "<image entrypoint>") for w in entry] + list(words)
    return [TStr.at(w, p.src, p.offset, p.chain, label=p.label) for w in entry] + list(words)


#: a line that is one ``${NAME}`` placeholder (envsubst / string.Template templates: a YAML block the
#: deploy script substitutes, such as ``${IMAGE_PULL_SECRETS_BLOCK}`` at column 1), or one sed template's
#: ``{NAME}`` (:data:`kube.BRACE_PLACEHOLDER`)
_PLACEHOLDER_LINE = lazyre.compile(r"^[ \t]*(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\{[A-Z][A-Z0-9_]*\})[ \t]*$", re.M)


#: a script that may substitute sed template placeholders: ``s#{NAME}#`` (any delimiter)
_SED_BRACE = lazyre.compile(r"\bs([#/|@,:%!])\{[A-Z][A-Z0-9_]*\}\1")
#: one substitution of a sed word (``s#{PREFILL_TP}#16#g``, ``-e``'s, ``;``-separated): delimiter, name, value
_SED_SUBST = lazyre.compile(r"(?:^|;)[ \t]*s([#/|@,:%!])\{([A-Z][A-Z0-9_]*)\}\1((?:(?!\1)[^\n])*)\1[gIp0-9]*[ \t]*(?=;|$)")
#: text that holds a ``sed`` or a ``s#{NAME}#`` substitution: what evaluating a script for sed templates' values
#: reaches for (the ``launch_text`` of :meth:`Extractor._sed_renders`)
_SED_TEXT = lazyre.compile(r"\bsed\b|\bs([#/|@,:%!])\{[A-Z][A-Z0-9_]*\}\1")


def _sed_text(text: str) -> bool:
    return _SED_TEXT.search(text) is not None


_MAX_SED_SCRIPT_BYTES = 262_144  # a script read for a sed template's values
#: the scripts read for one sed template's values, together, in the order they are listed (the template's
#: directory, then the one above it; each by name): a bound per template, so what a template's check finds never
#: depends on what else the process checked, the file order or --jobs (hostile-input round rw35/h P6: a bound per
#: process gave SGL005 on two templates of four with --jobs 1 and on all four with --jobs 2)
_MAX_SED_TEMPLATE_BYTES = 524_288
#: statements evaluated for one script's sed values (a bound of work, as the bytes are not: a loop of ``if``s runs
#: its count; rw35/h P4); past it the script is left unread
_MAX_SED_SCRIPT_STEPS = 10_000
#: statements evaluated for one template's scripts together: past it the scripts after are left unread
_MAX_SED_TEMPLATE_STEPS = 20_000
#: a word a template's file name may be (the cheap test that a script names it)
_SED_NAME_WORD = lazyre.compile(r"[A-Za-z0-9_.+-]+")
#: programs that pass the file they read (or their stdin) on to the sed after them as it is
_SED_PASS = frozenset({"cat", "envsubst"})


def _sed_parse(words: list) -> tuple:
    """(the substitutions of a sed command's scripts, in order: (NAME, value TStr or None when pdlint cannot tell
    it), its file operands, True when a script is one pdlint does not read: ``-f FILE``)."""
    exprs, pos, given, opaque = [], [], False, False
    i = 1
    while i < len(words):
        t = words[i].text
        if t == "--":
            pos += words[i + 1:]
            break
        if t in ("-e", "--expression") and i + 1 < len(words):
            exprs.append(words[i + 1])
            given = True
            i += 2
            continue
        if t.startswith("--expression="):
            exprs.append(words[i][len("--expression="):])
            given = True
        elif t in ("-f", "--file"):
            given = opaque = True
            i += 2
            continue
        elif t.startswith("--file=") or (t.startswith("-f") and not t.startswith("--")):
            given = opaque = True
        elif t.startswith("-e") and len(t) > 2:
            exprs.append(words[i][2:])
            given = True
        elif t.startswith("-") and len(t) > 1:
            pass  # (-i, -n, -E, -r, --in-place=.bak ...)
        else:
            pos.append(words[i])
        i += 1
    if not given and pos:
        exprs, pos = [pos[0]], pos[1:]
    subs = []
    for word in exprs:
        for m in _SED_SUBST.finditer(word.text):
            value = word[m.start(3):m.end(3)]
            bad = any(p.opaque for p in value.pieces) or "&" in value.text or "\\" in value.text
            subs.append((m.group(2), None if bad else value))
    return subs, pos, opaque


def _sed_flows(cmds: list) -> list:
    """(the words naming the files whose text reaches it, its substitutions in the order they apply) of each
    sed of ``cmds`` whose output no other sed reads: a file operand (``sed ... t.yaml``, ``sed -i ... t.yaml``),
    else its stdin - ``< t.yaml``, or ``cat t.yaml |`` / a sed / ``envsubst`` upstream in its pipeline, with the
    upstream seds' substitutions first (rw33/h items 2, 3)."""
    by_serial = {c.serial: c for c in cmds}
    prog = {c.serial: posixpath.basename(c.words[0].text) if c.words else "" for c in cmds}
    memo: dict = {}

    def flows(c, depth: int) -> list:
        if c.serial in memo:
            return memo[c.serial]
        memo[c.serial] = []  # (a cycle, or too deep: nothing)
        if depth > 16:
            return []
        name = prog[c.serial]
        if name == "sed":
            subs, files, opaque = _sed_parse(c.words)
            if opaque:
                subs = subs + [(None, None)]  # (a script pdlint does not read: what it does is not known)
        elif name == "cat":
            subs, files = [], [w for w in c.words[1:] if not w.text.startswith("-")]
        elif name in _SED_PASS:
            subs, files = [], []
        else:
            return []
        if files:
            out = [(files, subs)]
        else:
            out = []
            for kind, v in c.stdin:
                if kind == "file":
                    out.append(([v], subs))
                elif v in by_serial:
                    out += [(ins, up + subs) for ins, up in flows(by_serial[v], depth + 1)]
        memo[c.serial] = out[:64]
        return memo[c.serial]

    fed = {v for c in cmds if prog[c.serial] == "sed" for kind, v in c.stdin if kind == "cmd"}
    out = []
    for c in cmds:
        if prog[c.serial] == "sed" and c.serial not in fed:
            out += [(ins, subs) for ins, subs in flows(c, 0) if subs]
    return out


def _sed_chain_values(subs: list) -> dict:
    """``{NAME: value}`` of substitutions applied in order: a value holding the ``{NAME}`` of a later one takes
    that one's value (sed runs the later on the line the earlier wrote); a value left holding a placeholder, one
    pdlint cannot tell, or a name two substitutions give different values, is None."""
    out: dict = {}
    if any(k is None for k, _ in subs):  # (`sed -f script`: any substitution may follow)
        return {k: None for k, _ in subs if k is not None}
    for j, (key, value) in enumerate(subs):
        for later, lv in subs[j + 1:]:
            if value is None:
                break
            mark = "{" + later + "}"
            if mark not in value.text:
                continue
            if lv is None:
                value = None
                break
            parts, at = [], 0
            while True:
                k = value.text.find(mark, at)
                if k < 0:
                    break
                parts += [value[at:k], lv]
                at = k + len(mark)
            value = TStr.join(parts + [value[at:]])
        if value is not None and kube.BRACE_PLACEHOLDER.search(value.text):
            value = None  # (still a placeholder: never its literal text)
        if key in out and (out[key] is None or value is None or out[key].text != value.text):
            out[key] = None
        else:
            out[key] = value
    return out


def _sed_input_is(word: TStr, template: str, script_dir: str, root: str) -> bool:
    """Whether a sed's input word (``t.yaml``, ``k8s/t.yaml``, ``"$DIR/t.yaml"``) names ``template`` for a
    script in ``script_dir``: the bare file name (the script may ``cd`` first), a path from the script's directory
    or the repository's root, or the known end of a path a variable starts."""
    cut = max((p.end for p in word.pieces if p.opaque), default=0)
    rel = word.text[cut:]
    name = os.path.basename(template)
    if rel == name and not cut:
        return True
    if not rel.endswith("/" + name) and rel != name:
        return False
    if cut:
        tail = posixpath.normpath(rel.lstrip("/"))
        while tail.startswith("../"):
            tail = tail[3:]
        return tail not in ("", ".", "..") and template.replace(os.sep, "/").endswith("/" + tail)
    if rel.startswith("/"):
        return os.path.normpath(rel) == template
    return any(os.path.normpath(os.path.join(d, rel)) == template for d in (script_dir, root))


def _compose_braces(text: str) -> list:
    """The documents of a YAML text, each sed template placeholder (:data:`kube.BRACE_PLACEHOLDER`: an
    upper-case name alone in braces, ``{PREFILL_TP}``, filled in by a deploy script's ``sed "s#{X}#${X}#g"``
    before anything reads the file) read as text: unquoted, YAML takes ``- {PREFILL_TP}`` for a mapping and
    ``name: {NAME}-prefill`` for invalid YAML (field report rw32/a item 1: a PD003 error on the template).
    Composed with each spelled ``_NAME_`` (same length, every position holds) and written back in the scalars'
    values; as YAML reads the text when that reading is invalid too (the placeholders were not the problem)."""
    spans = [m.span() for m in kube.BRACE_PLACEHOLDER.finditer(text)] if "{" in text else []
    if not spans:
        return yt.compose(text)
    chars = list(text)
    for i, j in spans:
        chars[i], chars[j - 1] = "_", "_"
    try:
        docs = yt.compose("".join(chars))
    except yt.LimitError:
        raise
    except yt.YamlError:
        return yt.compose(text)
    _respelled_back(docs, text, spans, brace=True)
    return docs


def _without_placeholder_lines(text: str) -> Optional[tuple]:
    """(documents, what was left out) of a YAML text that is invalid only because of whole-line
    ``${NAME}`` placeholders: composed with those lines blanked (same length, so every position holds);
    None when it has none or is invalid without them too."""
    found = [(m.start(), m.end()) for m in _PLACEHOLDER_LINE.finditer(text)]
    if not found:
        return None
    parts, pos = [], 0
    for a, b in found:
        parts += [text[pos:a], " " * (b - a)]
        pos = b
    parts.append(text[pos:])
    try:
        docs = _compose_braces("".join(parts))
    except (yt.YamlError, yt.LimitError):
        return None
    names = []
    for a, b in found:
        name = text[a:b].strip()
        if name not in names:
            names.append(name)
    line = text.count("\n", 0, found[0][0]) + 1
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return (docs, f"placeholder line{'s' if len(found) > 1 else ''} {shown} (line {line}{', ...' if len(found) > 1 else ''})"
                  f" read as empty", found)


#: an envsubst placeholder written inside a line (``prefill-set: ${PREFILL_NAME}}``)
_INLINE_PLACEHOLDER = lazyre.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_FLOW_START = lazyre.compile(r"[{\[]")


def _inline_placeholders_respelled(text: str, error, tries: int = 4) -> Optional[tuple]:
    """(documents, what was changed, []) of a YAML text invalid only because of ``${NAME}`` placeholders in
    flow collections (``labels: {app: x, set: ${NAME}}``: the braces are YAML's there), which ``envsubst`` fills
    in before anything reads the file (teppakorn/design-inference-cluster..., field report rw11/a): composed
    with the placeholders of the line the error points at spelled ``$_NAME_`` (same length, every position
    holds), then those of every line with a flow collection (at most ``tries`` compositions); None when the
    error is elsewhere."""
    chars = list(text)
    names: list = []
    done: list = []
    first = None
    for _ in range(tries):
        at = getattr(error, "index", None)
        if at is None or not 0 <= at <= len(text):
            return None
        a = text.rfind("\n", 0, at) + 1
        b = text.find("\n", at)
        b = len(text) if b < 0 else b
        spans = [m.span() for m in _INLINE_PLACEHOLDER.finditer(text, a, b) if chars[m.start() + 1] == "{"]
        if not spans:
            return None
        if first is not None:  # a second line: every placeholder on a line with a flow collection, and
            # every placeholder inside a flow collection that spans lines (a multi-line JSON template's
            # `"k": ${v},` lines: one line per try left the fifth one broken, kdevops milvus_config.json.j2,
            # field report rw28/a P1), at once
            spans += [m.span() for m in _INLINE_PLACEHOLDER.finditer(text) if chars[m.start() + 1] == "{" and
                      _FLOW_START.search(text, text.rfind("\n", 0, m.start()) + 1, m.start())]
            spans += [(i, j) for i, j in _flow_placeholders(text) if chars[i + 1] == "{"]
        for i, j in spans:
            chars[i + 1], chars[j - 1] = "_", "_"
            done.append((i, j))
            if text[i:j] not in names:
                names.append(text[i:j])
        first = first if first is not None else text.count("\n", 0, a) + 1
        try:
            docs = yt.compose("".join(chars))
        except yt.LimitError:
            return None
        except yt.YamlError as e:
            error = e
            continue
        _respelled_back(docs, text, done)
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return docs, f"placeholder{'s' if len(names) > 1 else ''} {shown} (line {first}) read as text", []
    return None


def _respelled_back(docs: list, text: str, spans: list, brace: bool = False) -> None:
    """The scalars of ``docs`` (composed with the placeholders at ``spans`` of ``text`` spelled ``$_NAME_``) with
    each such placeholder in their value written back as ``${NAME}``: the respelling is only for YAML's sake, the
    value is the placeholder, opaque (undecided) as ``${NAME}`` is in block style (a template's ``"--tp-size",
    {{ tp }}]`` was type-checked as the literal ``$_tp_``: a false SGL005, field report rw29/h P7)."""
    if not spans:
        return
    spans = sorted(set(spans))
    starts = [i for i, _ in spans]
    for d in docs:
        for node in yt.iter_nodes(d.root):
            if node.__class__ is not yt.YScalar or ("_" if brace else "$_") not in node.value:
                continue
            k = bisect.bisect_left(starts, node.start)
            value = node.value
            while k < len(spans) and spans[k][0] < node.end:
                i, j = spans[k]
                k += 1
                if j <= node.end and brace:  # (a sed template's `{NAME}`, spelled `_NAME_`)
                    name = text[i + 1:j - 1]
                    value = value.replace(f"_{name}_", f"{{{name}}}", 1)
                elif j <= node.end:
                    name = text[i + 2:j - 1]
                    value = value.replace(f"$_{name}_", f"${{{name}}}", 1)
            node.value = value


def _quoted_end(text: str, j: int, e: int) -> int:
    """The index after the YAML quoted scalar opening at ``j`` (``"`` with ``\\`` escapes, ``'`` with ``''``),
    at most ``e`` (the end of its line)."""
    q, k = text[j], j + 1
    while k < e:
        if q == '"' and text[k] == "\\":
            k += 2
            continue
        if text[k] == q:
            if q == "'" and k + 1 < e and text[k + 1] == "'":
                k += 2
                continue
            return k + 1
        k += 1
    return e


def _flow_placeholders(text: str) -> list:
    """The spans of the ``${NAME}`` placeholders inside YAML flow collections (``{...}``, ``[...]``, also across
    lines, as in a JSON template), outside quoted scalars; block scalars (``|``, ``>``) and comments are skipped.
    A reading of the text's shape, not a parser: the caller composes the result."""
    spans: list = []
    depth, i, n, indent = 0, 0, len(text), 0
    block = None  # the indentation of a block scalar's parent line while the block's lines are skipped
    while i < n:
        e = text.find("\n", i)
        e = n if e < 0 else e
        j, at_node = i, depth == 0
        if depth == 0:
            body = text[i:e]
            stripped = body.lstrip(" ")
            if block is not None:
                if not stripped.strip() or len(body) - len(stripped) > block:
                    i = e + 1
                    continue
                block = None
            indent = len(body) - len(stripped)
            j = i + indent
        while j < e:
            c = text[j]
            m = _INLINE_PLACEHOLDER.match(text, j) if c == "$" else None
            if m:
                if depth:
                    spans.append(m.span())
                j, at_node = m.end(), False
                continue
            if c in " \t\r":
                j += 1
                continue
            if c == "#" and (j == i or text[j - 1] in " \t"):
                break
            if depth:
                if c in "\"'":
                    j = _quoted_end(text, j, e)
                    continue
                if c in "{[":
                    depth += 1
                elif c in "}]":
                    depth -= 1
                j += 1
                continue
            if at_node and c in "{[":
                depth = 1
            elif at_node and c in "\"'":
                j, at_node = _quoted_end(text, j, e), False
                continue
            elif at_node and c in "|>":
                block = indent
                break
            elif c in "-?:" and (j + 1 == e or text[j + 1] in " \t\r"):
                at_node = True
            else:
                at_node = False
            j += 1
        i = e + 1
    return spans


def _placeholder_gaps(doc: TStr, placeholders: list, launches: list) -> None:
    """A whole-line placeholder among a launch's command lines (from its first token to the line after its
    last) may add arguments: PD023 at the placeholder, and the launch may hold any flags."""
    from pdlint import coverage_rules as CR
    from pdlint.model import Gap
    for a, b in placeholders:
        tok = doc[a:b]
        tok = tok[len(tok.text) - len(tok.text.lstrip()):len(tok.text.rstrip())]
        if not tok.pieces:
            continue
        o = tok.origin
        for launch in launches:
            lines = [t.origin.line for t in list(launch.command) + list(launch.argv)
                     if t.pieces and t.origin.path == o.path]
            if not lines or not (min(lines) <= o.line <= max(lines) + 1):
                continue
            launch.argv.append(tok.as_opaque())
            launch.gaps.append(Gap(CR.OPAQUE_ARGS.code, tok,
                                   f"{tok.text} is a template placeholder among this launch's arguments: whatever "
                                   f"it adds was not checked",
                                   "check the file the deploy script renders from this template, or write the "
                                   "arguments into the template"))


#: an engine's name or a PD setting: words a launch the shell builds from pieces still holds (`E=sgl; E=${E}ang`,
#: `python3 -m $E.launch_server`: no launcher pdlint's text search finds)
_ENGINE_WORDS = lazyre.compile(r"launch_server|(?<![\w/.-])serve\b|trtllm-serve|disaggregation|kv.role|kv.transfer", re.I)
# (not an engine's bare name: `rm -f /tmp/vllm_*.log` after a stop is no launch - field compare,
# littlemex/disaggregated-inference-with-nixl-over-aws-efa's run_experiment.sh)


#: lines of text bash never runs (after an unterminated quote) noted with that reason for their PD020
MAX_CUT_NOTE_LINES = 100_000
MAX_SOURCE_SIBLINGS = 32  # other files a computed `source` name may take, tried as values of its variable


def _limit_matters(index: int, serial: int, doc: TStr, cmds: list, sourced: list = (), abort: bool = False) -> bool:
    """Is a limit the shell evaluator hit at the statement starting at ``index``, after ``serial`` commands,
    worth a PD008?  Not when the text launched nothing and neither it nor a file it sourced holds launch
    text: whatever the evaluation did not reach, it could not have been a launch (an environment script other
    scripts source; production-stack's OCI bootstrap script deployment_on_cloud/oci/entry_point.sh, whose
    retry loops in functions exceed the expansion limit).  Nor when no launch came after it (a launch
    identical to one before counts as before: the paths cut would repeat it) and nothing from that statement
    on holds launch text: the evaluation of a benchmark client after the servers started
    (SemiAnalysisAI/InferenceX's run_benchmark_serving option parser) cost no launch.  A hostile script's
    limits stay reported: before or among its launches, with launch text after them, or in a text with launch
    text that launched nothing.  An evaluation that stopped altogether (``abort``) is reported when what it did
    not reach holds launch words (a launcher module, `serve`, a PD setting): a launch the shell builds from pieces
    holds no launch text
    (rw26/h item 1: a doubling loop before such launches left the file "no launch text found", exit 0 with
    `--strict`)."""
    from pdlint.coverage import has_launch_text
    if abort and _ENGINE_WORDS.search(doc.text, index):
        return True
    found = [c for c in cmds if _starts_launch(c.words)]
    if not found:
        return has_launch_text(doc.text) or any(has_launch_text(t) for t in sourced)
    if any(c.serial >= serial for c in found):
        return True
    return has_launch_text(doc.text[index:])


def _starts_launch(words: list) -> bool:
    """Does a command start a launch: an entry point, or ``sh -c`` with launch text in its script (a
    readiness poll's ``bash -c 'while kill -0 $PID; do ...'`` starts none)?"""
    from pdlint.coverage import has_launch_text
    found = launchers.find(words)
    if isinstance(found, launchers.ShellHandoff):
        return has_launch_text(found.script.text)
    return found is not None


def _run_program(words: list, i: int) -> str:
    """What a command runs, for a reason that says pdlint does not know it: past wrappers pdlint follows
    (``setsid``, ``env X=1``, ``nohup``) and with a Python module (``python3 -m atom.entrypoints.openai_server``):
    the unknown part, not the wrapper (ROCm/ATOM, AMD-AGI/Infera)."""
    j = launchers.program_at([w.text for w in words], i)
    prog = words[j].text
    if launchers.basename(prog) in ("docker", "podman", "nerdctl") and j + 1 < len(words) and \
            words[j + 1].text in ("run", "create"):
        # `docker run [OPTIONS] IMAGE python -m infera.engine.sglang` (AMD-AGI/Infera, field test rw15/j): the
        # program the container runs, not docker (a wrapper pdlint follows)
        texts = [w.text for w in words]
        image, entry = launchers._docker_image_index(texts, j + 2)
        if entry is not None:  # `--entrypoint PROG`: the program, whatever follows the image
            return texts[entry] if entry >= 0 else next(t.split("=", 1)[1] for t in texts[j + 2:image]
                                                        if t.startswith("--entrypoint="))
        if image + 1 < len(words) and not texts[image + 1].startswith("-"):
            return _run_program(words, image + 1)
        if image < len(words):
            return f"{texts[image]}'s entry point"  # (only its arguments follow the image)
    if launchers.basename(prog) in _JOB_RUNNERS:
        # `srun --nodes=1 --container-image=X bash /install/ai_dynamo.sh ...` (NVIDIA/cloudai, field test rw14/g):
        # the program srun runs, not srun (a wrapper pdlint follows); its options' values are no programs
        for k in range(j + 1, len(words)):
            t = words[k].text
            b = launchers.basename(t)
            if not t.startswith("-") and ":" not in t and "=" not in t and (
                    b in launchers.SHELLS or b.startswith("python") or "/" in t or t.startswith(".")):
                return _run_program(words, k)
    if launchers.basename(prog).startswith("python") and j + 2 < len(words) and words[j + 1].text == "-m":
        return f"{prog} -m {words[j + 2].text}"
    if launchers.basename(prog) in launchers.SHELLS and j + 1 < len(words) and not words[j + 1].text.startswith("-"):
        return f"{prog} {words[j + 1].text}"  # the script it runs
    return prog


#: programs that run a command on allocated nodes or ranks, after options of their own
_JOB_RUNNERS = frozenset({"srun", "salloc", "mpirun", "mpiexec", "pdsh"})


#: here-document scripts inside here-document scripts (each level's text is part of the one before)
MAX_HEREDOC_SCRIPTS = 4


def _reader_program(hd) -> str:
    """The program a here-document is fed to, as written (``ssh`` of ``ssh HOST bash -s <<EOF``)."""
    words = hd.reader.split()
    return os.path.basename(words[0]) if words else ""


@dataclass
class ScriptRunner:
    """A container that runs a script it mounts from a ConfigMap (:meth:`Extractor.note_script_runs`)."""
    image: str
    env: dict
    context: str  # the container (Workload.context())
    path: str  # where it mounts the script


#: bounds on what :meth:`Extractor.note_script_runs` reads of a container's command
_MAX_RUN_WORDS, _MAX_RUN_TEXT, _MAX_RUN_PATHS, _MAX_RUNNERS = 64, 8192, 64, 16
#: a path a command line names (`/workspace/prefill.sh`, `./prefill.sh`, `scripts/run.sh`)
#: commands whose next word (after its options) is a script they run
_SCRIPT_RUNNERS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "source", ".", "exec", "nohup", "sudo", "env",
                             "python", "python3", "time", "setsid", "stdbuf"})
_RUN_BEFORE = lazyre.compile(r"[;&|(`\n]\s*$")


def _runs_at(text: str, at: int) -> bool:
    """Is the word at ``at`` of a container's command text one it runs: the first word of a command (at the
    start, after ``;`` ``&&`` ``||`` ``|`` ``(``), the script of a shell / ``source`` / ``exec`` / ``python``
    (the word before it, options skipped, is one of :data:`_SCRIPT_RUNNERS`), or the program of a command wrapper
    with its options' values and operands (:func:`_wrapped_at`: ``tini --``, ``timeout 86400``, ``gosu USER``)?"""
    before = text[max(0, at - 256):at]
    if (at <= 256 and not before.strip()) or _RUN_BEFORE.search(before):
        return True
    for word in reversed(before.split()):
        if word.startswith("-"):
            continue
        if word.rsplit("/", 1)[-1] in _SCRIPT_RUNNERS:
            return True
        break
    return _wrapped_at(before, at <= 256)


#: separators that start a command in a container's command text (as :data:`_RUN_BEFORE`)
_COMMAND_START = lazyre.compile(r"[;&|(`\n]")


def _wrapped_at(before: str, whole: bool) -> bool:
    """Is the word after ``before`` (the text of the command line before it) the program its command runs behind
    command wrappers - ``tini -s --``, ``dumb-init``, ``timeout -s KILL 1h``, ``gosu USER``, ``su-exec USER``,
    ``numactl --cpunodebind=0 --membind=0``, ``taskset -c 0-7``, each read with its options' values and operands
    (:data:`launchers.WRAPPERS`), assignments and a shell's ``-c`` script between them?  An init wrapper execs its
    program, so a container whose command is ``["tini", "--", "/scripts/decode.sh"]`` runs the mounted script
    (rw31/h P3: it was judged with no image, SGL012, where the image's release refuses a flag).  ``timeout 5 cat
    /scripts/x.sh`` runs cat, not the script.  ``whole``: ``before`` starts where the text does (else the command's
    start must be in it)."""
    starts = list(_COMMAND_START.finditer(before))
    if not starts and not whole:
        return False
    words = before[starts[-1].end():].split() if starts else before.split()
    target = len(words)
    words.append("")  # (the word itself: any text but a wrapper's)
    k = 0
    for _ in range(16):
        if k == target:
            return True
        t = words[k]
        if launchers.is_assignment(t):
            k += 1
            continue
        if launchers.basename(t) in launchers.SHELLS:
            s = launchers._shell_script_index(words, k)  # (`sh -c "timeout 60 /scripts/x.sh"`: a command)
        else:
            s = launchers.wrapped_program(words, k)
        if s is None or s <= k:
            return False
        k = s
    return False


_RUN_PATH = lazyre.compile(r"(?<![\w$.{}-])((?:\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)*)")
#: `cd DIR` in a `bash -c` line: the directory its relative paths are in
#: a ConfigMap's name as :meth:`Extractor.scan_configmaps` looks for it: a whole run of these characters
_CM_WORD = lazyre.compile(rb"[\w.-]+")
_CD_DIR = lazyre.compile(r"(?:^|[;&|(\s])cd\s+[\"']?(/[\w./-]+)")


def _runner_groups(runs: Optional[list], env: dict, image: Optional[str]) -> list:
    """``[(image, env, context suffix, note)]``: how to check a ConfigMap script the containers ``runs`` mount
    and run - once per image among them (the script runs in each), with the env those containers agree on
    under the script's own; once as written when no container is known to run it (or the script names its
    own image)."""
    if not runs or image:
        return [(None, env, "", None)]
    groups: dict = {}
    for r in runs:
        groups.setdefault(r.image, []).append(r)
    out = []
    several = len(groups) > 1
    for img in sorted(groups):
        rs = groups[img]
        common = {k: v for k, v in rs[0].env.items()
                  if all(k in x.env and x.env[k].text == v.text and x.env[k].opaque == v.opaque for x in rs[1:])}
        names = "; ".join(x.context for x in rs[:3]) + (f"; and {len(rs) - 3} more" if len(rs) > 3 else "")
        how = f", run by {names} (mounted at {rs[0].path})"
        note = None
        if several:
            others = ", ".join(f"{i or 'no image'}" for i in sorted(groups) if i != img)
            note = (f"containers with different images run this script: checked once per image (here "
                    f"{img or 'no image'}; also {others})")
        out.append((img or None, {**common, **env}, how, note))
    return out


def heredoc_script(hd) -> bool:
    """Is a here-document a shell script: its ``#!`` line names a shell, or (without one) it is fed to a
    shell (``bash <<EOF``, ``ssh host <<EOF``: the remote login shell) or written to a ``*.sh`` file."""
    first = hd.text.text.lstrip("\n").split("\n", 1)[0].strip()
    if first.startswith("#!"):  # (the shebang pattern discover reads a script file's first line with)
        from pdlint.discover import SHELL_SHEBANG
        return bool(SHELL_SHEBANG.match(first[:256].encode("utf-8", "replace")))
    words = hd.reader.split()
    program = _reader_program(hd)
    if program in launchers.SHELLS:
        return True
    if program == "ssh":
        return not any(os.path.basename(w).startswith("python") for w in words[1:])
    return hd.target.strip("'\"").endswith((".sh", ".bash"))


def _written_files(heredocs: list, doc: TStr) -> dict:
    """The files a script's run writes from here-documents (``cat > "$W/ctx.yaml" <<EOF``), by their path
    as the later commands name it: {normalised path: (text, how the launch reaches it)}; a later write wins."""
    out: dict = {}
    for hd in heredocs:
        if hd.path is not None and hd.evaluated:
            line = doc.origin_at(hd.start).line if 0 <= hd.start < len(doc.text) else 1
            if not hd.text_known:  # (`{ echo ...; cat x; } > "$cfg"`: said by PD022, never read; rw34/a P9)
                out.pop(os.path.normpath(hd.path.text), None)
                continue
            how = "here-document" if hd.reader not in ("echo", "printf") else f"`{hd.reader}` statement"
            out[os.path.normpath(hd.path.text)] = (hd.text, f"written by the {how} at line {line}")
    return out


def _unread_writes(heredocs: list, doc: TStr) -> dict:
    """The config files a script's run writes with text pdlint does not know: {normalised path: (line, path
    TStr)}; a later write of known text wins."""
    out: dict = {}
    for hd in heredocs:
        if hd.path is not None and hd.evaluated:
            if hd.text_known:
                out.pop(os.path.normpath(hd.path.text), None)
            else:
                line = doc.origin_at(hd.start).line if 0 <= hd.start < len(doc.text) else 1
                out[os.path.normpath(hd.path.text)] = (line, hd.path)
    return out


def _run_meta(meta: Optional[dict], role_hint: Optional[str], run_role: Optional[str], uncalled: bool,
              run_label: str) -> dict:
    """``meta`` for what one run of a script launches (a command, a here-document's manifest): the role a
    branch around it names, else, when the script was run with a role value as ``$1``, that role (unless
    its flags say otherwise), except for what only a function the run never calls holds."""
    m = dict(meta or {})
    if role_hint:
        m["role_hint"] = role_hint
    elif run_role in ("prefill", "decode") and not m.get("role_hint") and not uncalled:
        m["role_hint"], m["role_how"] = run_role, run_label
    return m


#: environment variables read by checks that do not declare them (``Rule.env``): launchers and pair rules
_ENV_READ = frozenset({"CUDA_VISIBLE_DEVICES", "DYN_SGL_DISAGG_CONFIG", "DYN_SGL_DISAGG_CONFIG_KEY", "DYN_SYSTEM_PORT",
                       "LMCACHE_CONFIG_FILE", "PYTHONHASHSEED", "VLLM_NIXL_SIDE_CHANNEL_HOST",
                       "VLLM_NIXL_SIDE_CHANNEL_PORT"})
_ENV_READ_PREFIXES = ("LMCACHE_",)
_env_names: Optional[frozenset] = None


def env_checked(name: str) -> bool:
    """Does a check read ``name`` from a launch's environment?  (The shell front-end keeps the paths
    that give such a variable different values apart, so no rule concludes from a joined value.)"""
    global _env_names
    if _env_names is None:
        from pdlint.rules import all_rules
        _env_names = _ENV_READ | frozenset(e for r in all_rules().values() for e in (r.env or ()))
    return name in _env_names or name.startswith(_ENV_READ_PREFIXES)


#: the names pdlint.formats.pins reads (a Dockerfile, a requirements file, a pyproject.toml)
_PIN_FILE = lazyre.compile(r"(?i)^(?:(?:docker|container)file(?:\.[\w.-]+)?|[\w.-]+\.(?:docker|container)file"
                       r"|requirements[\w.-]*\.txt|pyproject\.toml)$")

#: at most this many runs of a script with other values for the variables the environment may set
#: (:mod:`pdlint.formats.shell.envruns`), beyond its run with the defaults; the launch text only the values
#: left out reach stays reported as not checked (PD020)
MAX_ENV_RUNS = 4
#: values of environment switches a run is chosen from (field test rw24/h: a 39 KB `case` gave thousands, and choosing
#: among them took the file's whole budget)
MAX_ENV_VALUES = 256


_ROLE_VAR_FILES = ("main.yml", "main.yaml")


#: a template line that is one block tag (`{% if x %}`, `{%- endif %}`): blank when rendered without trim_blocks
_TAG_LINE = lazyre.compile(r"[ \t]*\{%[^\n]*?%\}[ \t]*")
_TRIM_BLOCKS = lazyre.compile(rb"Environment\([^)]{0,400}?trim_blocks\s*=\s*True", re.S)
#: entries one inventory directory's walk (group_vars/, host_vars/) visits at most, four directories deep
MAX_INVENTORY_WALK = 4096
#: Python files read to tell whether the repository renders its templates with trim_blocks
MAX_PY_SCAN = 2000
#: bytes of them read in all (field test rw22/h: 400 files of 2 MB took 8 s)
MAX_PY_SCAN_BYTES = 32 * 1024 * 1024
#: bytes of one Python file, and of all of them, the Jinja registration scan parses (rw31/h P7: the syntax tree of
#: an 807 KB file of 200,000 statements took 500 MB and seconds to build; a filter plugin is a few KB); only files
#: whose text has a registration's shape (:data:`_REGISTRATION_TEXT`) are parsed
MAX_PY_PARSE_BYTES = 128 * 1024
MAX_PY_PARSE_TOTAL = 1024 * 1024
#: the text of what :func:`_jinja_registrations` finds: `X.filters[` / `X.tests.update(`, `def filters`,
#: `template_filter`; a file without it is not parsed
_REGISTRATION_TEXT = lazyre.compile(rb"\.\s*(?:filters|tests)\b\s*\)?\s*(?:\[|\.\s*update\b)|"
                                    rb"\bdef\s+(?:filters|tests)\b|template_(?:filter|test)\b")


def _trim_blocks_call(data: bytes) -> Optional[int]:
    """The line of an ``Environment(..., trim_blocks=True)`` call (``jinja2.Environment``, ``SandboxedEnvironment``
    ...) in Python source, parsed (never run); None without one: a comment or a string that names the option is
    no call (field test rw22/h: `# Environment(trim_blocks=True)` in a notes file turned PD060 off)."""
    import ast
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        if name.endswith("Environment") and any(
                k.arg == "trim_blocks" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords):
            return node.lineno
    return None

_KINDS = {"filters": "filter", "tests": "test"}


def _jinja_registrations(data: bytes) -> Optional[list]:
    """``[((kind, name), line)]``: the Jinja filters and tests Python source registers (parsed, never run):
    ``X.filters["name"] = ...`` / ``X.tests[...]``, ``X.filters.update(name=..., **{...})`` with a dict literal,
    ``def filters(self): return {"name": ...}`` (an Ansible filter / test plugin), ``@X.template_filter("name")``
    / ``@X.template_filter()`` on ``def name`` (Flask; ``template_test`` likewise)."""
    import ast
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):
        return None  # (said: the file may register it)
    out: list = []

    def table(node) -> Optional[str]:
        return _KINDS.get(node.attr) if isinstance(node, ast.Attribute) else None

    def dict_keys(d, kind: str) -> None:
        if isinstance(d, ast.Dict):
            for k in d.keys:
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    out.append(((kind, k.value), k.lineno))

    # one walk (ast.walk's order), each node with its nearest enclosing function: a `return {...}` counts for the
    # `def filters` / `def tests` it returns from.  Walking each such function's body again (ast.walk inside
    # ast.walk) walked nested definitions once per level: 99 nested `def filters` around 200,000 statements took
    # the 10 s budget of the template that used an unknown filter (rw31/h P7)
    from collections import deque
    todo = deque([(tree, None)])
    while todo:
        node, fn = todo.popleft()
        if isinstance(node, ast.Return):
            if fn is not None and fn.name in _KINDS:
                dict_keys(node.value, _KINDS[fn.name])
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Subscript) and table(t.value):
                    key = t.slice.value if isinstance(t.slice, ast.Index) else t.slice  # (ast.Index: Python < 3.9)
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        out.append(((table(t.value), key.value), node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                and table(node.func.value):
            kind = table(node.func.value)
            for k in node.keywords:
                if k.arg is not None:
                    out.append(((kind, k.arg), node.lineno))
                else:
                    dict_keys(k.value, kind)
            for a in node.args:
                dict_keys(a, kind)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                attr = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                m = re.fullmatch(r"(?:app_)?template_(filter|test)", attr)
                if m is None:
                    continue
                name = node.name
                if isinstance(d, ast.Call):
                    given = [a for a in d.args[:1]] + [k.value for k in d.keywords if k.arg == "name"]
                    if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
                        name = given[0].value
                out.append(((m.group(1), name), d.lineno))
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
            None if isinstance(node, ast.Lambda) else fn
        todo.extend((c, inner) for c in ast.iter_child_nodes(node))
    return sorted(out, key=lambda x: x[1])


#: paths a config glob (`helm-values`) looks at, and the matches it keeps
MAX_GLOB_WALK = 50_000
MAX_GLOB_MATCHES = 1_000
#: entries all the globs of one run walk at most (field test rw22/h: 300 globs over a tree of 50,000 files took
#: 107 s, mostly outside any file's budget)
MAX_GLOB_RUN = 200_000


def safe_glob(pattern: str, contains: Optional[Callable[[str], bool]] = None, budget: Optional[list] = None) -> list:
    """The files an absolute glob (``*``, ``?``, ``[...]`` within a name, ``**`` for any directories) matches,
    sorted: found by a walk from its fixed leading directories that never follows a symlinked directory and
    stops after :data:`MAX_GLOB_WALK` entries (at most :data:`MAX_GLOB_MATCHES` kept).  Names starting with
    ``.`` match only a pattern part that starts with ``.``, as glob's.  Field test rw21/h: ``glob.glob(...,
    recursive=True)`` followed two committed links to ``.`` in ``envs/**/*.yaml``: 2^depth paths, a run that
    never ended, outside any file's budget.  ``contains(directory)``: may the walk start there (its fixed
    directories may be a link out of the repository; os.walk follows the top it is given); ``budget``: a
    one-item list of the entries the caller's globs may still walk, spent here."""
    parts = pattern.split(os.sep)
    fixed = 0
    while fixed < len(parts) - 1 and not any(c in parts[fixed] for c in "*?["):
        fixed += 1
    base = os.sep.join(parts[:fixed]) or os.sep
    rest = parts[fixed:]
    if not any(c in "".join(rest) for c in "*?["):
        return [pattern] if os.path.lexists(pattern) else []
    if contains is not None and not contains(base):
        return []
    if budget is not None and budget[0] <= 0:
        return []
    rx = re.compile(_glob_regex(rest))
    dots = any(p.startswith(".") for p in rest)
    out: list = []
    seen = 0
    limit = MAX_GLOB_WALK if budget is None else min(MAX_GLOB_WALK, budget[0])
    for top, dirs, files in os.walk(base):  # (followlinks False: a linked directory is not entered)
        dirs.sort()
        if not dots:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(files + [d for d in dirs if rest[-1] == "**"]):
            seen += 1
            if not dots and name.startswith("."):
                continue
            path = os.path.join(top, name)
            if rx.fullmatch(os.path.relpath(path, base).replace(os.sep, "/")):
                out.append(path)
                if len(out) >= MAX_GLOB_MATCHES:
                    break
        seen += len(dirs)
        if seen > limit or len(out) >= MAX_GLOB_MATCHES:
            break
    if budget is not None:
        budget[0] -= seen
    return sorted(out)


def _glob_regex(parts: list) -> str:
    out = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        rx, j = "", 0
        while j < len(part):
            c = part[j]
            if c == "*":
                rx += "[^/]*"
            elif c == "?":
                rx += "[^/]"
            elif c == "[" and part.find("]", j + 2) > j:  # (a `]` right after `[` is a member, as glob's)
                end = part.find("]", j + 2)
                body = part[j + 1:end]
                rx += "[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]"
                j = end
            else:
                rx += re.escape(c)
            j += 1
        out.append(rx + ("" if last else "/"))
    return "".join(out)


def _layer_mapping(layer) -> Optional[yt.Ref]:
    """The mapping of an Ansible variables layer (its ``ref``, or its file's first document), None when it is
    none; raises :class:`yt.YamlError` for a file that does not parse."""
    ref = layer.ref
    if ref is None:
        docs = yt.compose(layer.src.text)
        if not docs or docs[0].root is None:
            return None
        ref = yt.Ref(docs[0].root)
    return ref if isinstance(yt.deref(ref).node, yt.YMap) else None


class _AnsibleScope:
    """The variables Ansible gives the tasks of a YAML file from other files of the repository
    (:func:`pdlint.formats.yaml_shell.scripts`): asked only of a file that is an Ansible task list or playbook.
    Field test rw20/f: a role's `command: ... --tp {{ tp }}` with `tp` in `defaults/main.yml` was an opaque
    word, so a launch's real value went unchecked."""

    def __init__(self, x: "Extractor", job: FileJob):
        self.x, self.job = x, job
        self._role: Optional[dict] = None  # (role(): once per file, however many documents it holds)

    def _read(self, path: str) -> Optional[SourceFile]:
        return self.x.read(path, report=False) if os.path.isfile(path) else None

    def _file(self, path: str) -> dict:
        from pdlint.formats.ansible_plays import Layer
        src = self._read(path)
        return self.x.layer_values(Layer(src)) if src is not None else {}

    def role(self) -> dict:
        """A role's task file: its ``defaults/`` < what every play applying the role gives alike < its
        ``vars/`` < the plays' higher variables (role parameters, the task's ``vars:``), as for its templates."""
        if self._role is None:
            self._role = self._role_vars()
        return self._role

    def _role_vars(self) -> dict:
        from pdlint.formats.ansible_plays import plays_rendering
        job = self.job
        role_dir = ansible_role_dir(job.abspath, job.root, ("tasks", "handlers"))
        if role_dir is None:
            return {}
        defaults, role_vars = ansible_role_files(job.abspath, job.root, ("tasks", "handlers"))
        try:
            plays = plays_rendering(job.abspath, role_dir, job.root, self._read, self.x.listdir)
        except (yt.YamlError, RecursionError):
            plays = []
        low = [self._merged(p.low) for p in plays]
        high = [self._merged(p.high) for p in plays]
        out: dict = {}
        for f in defaults:
            out.update(self._file(f))
        out.update(_agreed(low))
        for f in role_vars:
            out.update(self._file(f))
        out.update(_agreed(high))
        return out

    def _merged(self, layers: list) -> dict:
        out: dict = {}
        for layer in layers:
            out.update(self.x.layer_values(layer))
        return out

    def play(self, item: yt.Ref) -> tuple:
        """(the inventory's, the ``vars_files:``) variables of a play of this file."""
        from pdlint.formats.ansible_plays import play_files, play_hosts
        job = self.job
        inventory, files = play_files(item, play_hosts(item), os.path.dirname(job.abspath), job.root,
                                      self._read, self.x.listdir)
        return self._merged(inventory), self._merged(files)


def _agreed(scopes: list) -> dict:
    """The variables every scope gives the same value (by text); one that differs between plays stays a value
    pdlint cannot see (each play would start another command)."""
    if not scopes:
        return {}
    out = dict(scopes[0])
    for other in scopes[1:]:
        out = {k: v for k, v in out.items() if k in other and other[k].text == v.text}
    return out


def _ansible_search_path(job: FileJob, role_dir: Optional[str], play) -> list:
    """The repository-relative directories Ansible's ``template`` action looks up an ``include`` / ``import``
    in, in its order: each of ``ansible_search_path`` (the role's directory, the playbook's directory) and the
    template's own directory, its ``templates/`` first (``{% import './templates/drives.j2' %}`` in a role's
    template is the role's templates/drives.j2: linux-kdevops/kdevops gen_nodes, field report rw28/a P2)."""
    bases = [role_dir] if role_dir is not None else []
    if play is not None:
        bases.append(os.path.dirname(play.playbook))
    bases.append(os.path.dirname(job.abspath))
    out: list = []
    for base in bases:
        for d in (os.path.join(base, "templates"), base):
            rel = os.path.relpath(d, job.root).replace(os.sep, "/")
            if rel.split("/")[0] != ".." and rel not in out:
                out.append(rel)
    return out


def ansible_role_dir(abspath: str, root: str, kinds: tuple = ("templates",)) -> Optional[str]:
    """The Ansible role a template belongs to (``roles/<role>/templates/...``, or ``<role>/templates/...``
    beside ``<role>/tasks/``), inside ``root``; None for a file of no role.  ``kinds``: the role's
    directories the file may be in (``("tasks", "handlers")``: a task file's role)."""
    parts = os.path.relpath(abspath, root).split(os.sep)
    if ".." in parts:
        return None
    for i in range(len(parts) - 2, -1, -1):  # (i 0: a Galaxy role that is the repository, CyVerse-Ansible/ansible-vllm)
        if parts[i] not in kinds:
            continue
        role_dir = os.path.join(root, *parts[:i])
        # under a `roles/` directory, or a role directory anywhere a roles_path names (topsail's
        # projects/*/toolbox/<role>/): its tasks/ beside templates/
        if (i >= 2 and parts[i - 2] == "roles") or os.path.isdir(os.path.join(role_dir, "tasks")):
            return role_dir
    return None


#: where a repository keeps the inventory's variables, relative to a directory at or above a role's
_INVENTORY_DIRS = ("group_vars", "host_vars", "inventory/group_vars", "inventory/host_vars")
_TOP_KEY = lazyre.compile(r"(?m)^([A-Za-z_][A-Za-z0-9_]*)[ \t]*:")


def ansible_role_files(abspath: str, root: str, kinds: tuple = ("templates",)) -> tuple:
    """(defaults files, vars files) of the Ansible role a template belongs to (``roles/<role>/templates/...``,
    or ``<role>/templates/...`` beside ``<role>/tasks/``):
    ``defaults/main.yml`` or ``defaults/main/*.yml`` and the same under ``vars``, inside ``root``; empty
    tuples for a file of no role.  openshift-psap/topsail (field test rw6/e): every role template's variables
    were undefined (PD005 errors), and a launch's real error hid behind them."""
    role_dir = ansible_role_dir(abspath, root, kinds)
    if role_dir is None:
        return (), ()
    out = []
    for kind in ("defaults", "vars"):
        d = os.path.join(role_dir, kind)
        files = [os.path.join(d, n) for n in _ROLE_VAR_FILES if os.path.isfile(os.path.join(d, n))]
        sub = os.path.join(d, "main")
        if not files and os.path.isdir(sub):
            files = sorted(os.path.join(sub, n) for n in os.listdir(sub)
                           if n.endswith((".yml", ".yaml")) and os.path.isfile(os.path.join(sub, n)))
        out.append(tuple(files))
    return out[0], out[1]


def _plain_repr(value) -> str:
    """A value as text, whatever its origin (two plays that give a template the same values render it once)."""
    if isinstance(value, dict):
        return repr(sorted((str(k), _plain_repr(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return repr([_plain_repr(v) for v in value])
    return f"{type(value).__name__}:{value}"


def _ansible_values(vals: dict) -> dict:
    """A role's variables as a template sees them: a value that is itself a template (``"{{ base_port + 1
    }}"``, which Ansible renders lazily) is one pdlint cannot tell: an opaque placeholder."""
    from pdlint.render.ansible import Opaque

    def lazy(v, name: str):
        if isinstance(v, str):
            return Opaque("$" + name) if "{{" in v or "{%" in v else v
        if isinstance(v, dict):  # (also in a list's or a mapping's values: `extra_volumes: ["{{ base }}/c:/c"]`,
            return type(v)((k, lazy(x, f"{name}.{k}")) for k, x in v.items())  # jedmund/homelab, rw14/h)
        if isinstance(v, list):
            return type(v)(lazy(x, f"{name}_{i}") for i, x in enumerate(v))
        return v

    return {k: lazy(v, k) for k, v in vals.items()}


_SBATCH_NODES = lazyre.compile(r"(?:--nodes[= ]|-N[= ]?)\s*([0-9]+)(?![-0-9:,])")


def slurm_env(doc: TStr) -> dict:
    """The variables Slurm sets for a batch script from its ``#SBATCH`` header (the comment lines before its first
    command, as sbatch reads them): ``--nodes=N`` / ``-N N`` gives ``SLURM_JOB_NUM_NODES`` and ``SLURM_NNODES``,
    valued at the number in the header.  Field test rw21/b (pbelevich/awsome-ai-research's kimi-k2-sgl.sbatch):
    `--nnodes $SLURM_JOB_NUM_NODES` beside `#SBATCH --nodes=2` was a value pdlint could not see, so `--tp 15` over
    two nodes passed."""
    text = doc.text
    out: dict = {}
    pos = 0
    for line in text[:65536].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break  # sbatch stops at the first command
        if stripped.startswith("#SBATCH"):
            for m in _SBATCH_NODES.finditer(line):
                at = pos + m.start(1)
                tok = doc[at:at + len(m.group(1))]
                out = {"SLURM_JOB_NUM_NODES": tok, "SLURM_NNODES": tok}
        pos += len(line) + 1
    return out


def _env_runs(doc: TStr, env_values: dict, first: tuple, env: Optional[dict], quiet, label: str,
              took: float, reach: Optional[dict] = None) -> tuple:
    """The script run again once per value (at most :data:`MAX_ENV_RUNS`) of a variable the environment
    may set that would reach launch text its default skips (``NODE_RANK=1`` for ``if [[ $NODE_RANK -eq 0
    ]]; then <prefill>; else <decode>; fi``): each run's commands and here-documents that its run with the
    defaults (``first``) did not have, labelled ``run with NAME=VALUE``; the value is located where the
    script writes the literal it was compared with.  ``took``: the seconds the first run took; a run that
    would leave the file less than twice that of its budget (for the rules and the pair stage) is not
    made: a file checked with fewer runs, not one over budget and not checked at all.

    ``reach``: (name, value) -> {(path, line, text, start, end)} the launch text lines that value would run
    (``ShellContext.env_reach``).  The values are tried first that reach launch text no run built yet and no value
    tried reaches with the same text (four switches each starting the same prefill do not use up the runs before
    the rank test whose other arm is the decode, field test rw22/h); a value whose lines every run so far built is
    not tried.  A value another run reaches (``MODEL_NAME`` in the ``NODE_RANK=1`` run) is tried with that run's
    value too.  Returns ``(runs, notes)``: ``notes`` (path, line) -> (reason, hint) at the launch text of each
    value not tried for the bound or the time budget, which no run built; (None, (the value's token, its variable)) -> (reason,
    hint) for such a value that only changes flags, or a pair of values whose first is a role switch's (at most 8)."""
    from pdlint.formats.shell import shell_commands
    from pdlint.formats.shell.conditions import role_of
    from pdlint.formats.shell.state import tstr_key

    def key(c, names: frozenset) -> tuple:
        return (tuple(tstr_key(w) for w in c.words), tuple(sorted((k, v.text) for k, v in c.env.items()
                                                                 if k not in names)))

    def offsets_of(cmds, into: dict) -> None:
        for c in cmds:
            for w in c.words:
                for p in w.pieces:
                    if p.src is not None and not p.opaque:
                        into.setdefault(p.src.path, set()).add(p.offset)

    ordered: dict = {}  # path -> the covered offsets sorted (made again after each run)

    def built(x: tuple) -> bool:  # a word of a command built so far is in this line of launch text
        offsets = ordered.get(x[0])
        if offsets is None:
            offsets = ordered[x[0]] = sorted(covered.get(x[0], ()))
        k = bisect.bisect_left(offsets, x[3])
        return k < len(offsets) and offsets[k] < x[4]

    reach = reach or {}
    # ("<not worker>": any value but the default a test compared with, pdlint.formats.shell.envruns._other; only
    # when no test gave the variable a value of its own: `elif [ "$ROLE" = decode ]` says which other value)
    values = [((name, text, tok),) for name, vs in env_values.items() for text, tok in vs.items()
              if not (text.startswith("<not ") and any(not t.startswith("<not ") for t in vs))]
    reaches = [reach.get(v[0][:2]) or () for v in values]  # the launch text lines each run may build
    out = []
    had = {tstr_key(h.text) for h in first[3]}
    covered: dict = {}  # path -> offsets of the words of the commands built so far
    offsets_of(first[0], covered)
    cut: list = []  # the values past MAX_ENV_VALUES that may change what runs: said, never dropped unsaid
    if len(values) > MAX_ENV_VALUES:
        # the values whose every line the first run built go past the bound first (256 decoy `case` values
        # reaching one built line pushed a flag switch out of the list with no word, rw25/h item 2)
        done = [bool(r) and all(built(x) for x in r) for r in reaches]
        order = sorted(range(len(values)), key=lambda j: (done[j], j))
        keep = sorted(order[:MAX_ENV_VALUES])
        cut = [(values[j], reaches[j]) for j in order[MAX_ENV_VALUES:] if not done[j]]
        values, reaches = [values[j] for j in keep], [reaches[j] for j in keep]
    claimed: set = set()  # the launch texts of the values tried
    singles = {v[0][:2] for v in values}  # the values the first run noted, each tried on its own
    made: list = []  # the commands the runs built (a pair of values builds only what no run did)
    after_switch: set = set()  # pairs whose first value reached launch text of its own (a role switch)
    pending = list(range(len(values)))
    why = None

    def rank(i: int) -> tuple:
        # launch text no run built first (the other arm of a rank test: field test rw23/a, sabreshao/sglang_disagg,
        # four per-model flag values used up the runs before NODE_RANK=1 and its decode), then values that change
        # flags, a role word or an array's keys (no line of their own), then lines another value already claims
        lines = reaches[i]
        if not lines:
            return (1, i)
        fresh = [x for x in lines if not built(x)]
        if not fresh:
            # every line it reaches is built already: last, for the runs left, as the line may read a variable this
            # value sets otherwise (`case $NODE_RANK in 1|2)` whose rank 2 adds a flag, rw24/h item 3)
            return (3, i)
        return (0 if any(x[2] not in claimed for x in fresh) else 2, i)

    while pending:
        ranks = {j: rank(j) for j in pending}  # (they change only with a run: once per run, not per value)
        i = min(pending, key=ranks.__getitem__)
        last = ranks[i][0] == 3  # (only values whose lines a run built are left: not said when cut)
        if len(out) >= MAX_ENV_RUNS:
            why = None if last else "bound"
            break
        left = budget.time_left()
        if left is not None and left < 3 * took:
            why = None if last else "time"
            break
        pending.remove(i)
        assigns = values[i]
        claimed.update(x[2] for x in reaches[i])
        started = time.monotonic()
        run_env = dict(env or {})
        bound = None
        for name, text, tok in assigns:
            if name.isdigit():  # the script's argument (`NNODES=${2:-2}`): run with it given
                bound = {**(bound or {}), int(name): tok}
            else:
                run_env[name] = tok
        names = frozenset(a[0] for a in assigns)
        run_ctx = quiet()
        base = {key(b, names) for b in first[0] + (made if len(assigns) > 1 or last else [])}
        cmds = [c for c in shell_commands(doc, run_ctx, env=run_env, bound=bound)
                if not c.uncalled and key(c, names) not in base]
        offsets_of(cmds, covered)
        ordered.clear()
        made += cmds
        heredocs = [h for h in run_ctx.heredocs if not h.uncalled and tstr_key(h.text) not in had]
        how = " and ".join(f"${n}={x}" if n.isdigit() else f"{n}={x}" for n, x, _ in assigns)
        out.append((cmds, next((role_of(x) for _, x, _ in assigns if role_of(x)), None),
                    ", ".join(x for x in (label, f"run with {how}") if x), heredocs))
        took = max(took, time.monotonic() - started)
        if len(assigns) == 1 and not last:  # (a run for the runs left, its lines built: no pairs of its own)
            # a switch this run reached that its default passed by (`NODE_RANK=1` takes the decode branch, whose
            # per-model flags `MODEL_NAME` selects): tried together with this run's value, when it may build launch
            # text no run built (field test rw23/b, sabreshao/sglang_disagg: the decode ran with no model's flags)
            for n2, vs in run_ctx.env_values.items():
                if n2 in names:
                    continue
                for t2, tok2 in vs.items():
                    if t2.startswith("<not "):
                        continue
                    lines = run_ctx.env_reach.get((n2, t2)) or ()
                    if len(values) >= 2 * MAX_ENV_VALUES:
                        break
                    if (lines and any(not built(x) for x in lines)) or (not lines and (n2, t2) in singles):
                        values.append(assigns + ((n2, t2, tok2),))
                        reaches.append(lines)
                        pending.append(len(values) - 1)
                        if reaches[i]:
                            after_switch.add(len(values) - 1)
    notes: dict = {}
    flag_values: dict = {}  # variable -> [(value, its token, hint, why)] of the flag values not tried

    def note(assigns: tuple, lines: tuple, why: str, after: bool) -> None:
        if len(assigns) > 1:  # (a pair of values another run reached: said at the second one, past the bound)
            (n1, t1, _), (name, text, tok) = assigns[:2]
            if after and not lines and tok.pieces and not tok.opaque:
                flag_values.setdefault(f"{n1}={t1} and {name}", []).append(
                    (text, tok, f"give {n1} and {name} the values you deploy with ({_var_args((n1, t1), (name, text))})"
                                f" to check it", why))
            return
        name, text, tok = assigns[0]
        what = f"the script's argument ${name} is {text}" if name.isdigit() else \
            f"the environment sets {name}={text}"
        give = f"run it with that argument from a script pdlint reads" if name.isdigit() else \
            f"give {name} the value you deploy with ({_var_args((name, text))})"
        if why == "bound":
            reason = (f"the script builds this launch only when {what}, and pdlint runs a script again for at "
                      f"most {MAX_ENV_RUNS} such values (environment switches that lead to other launch text); "
                      f"this one was past that bound")
            hint = f"{give} to check it, or split the script so that fewer switches pick its launches"
        else:
            reason = (f"the script builds this launch only when {what}, and the file's time budget had too little "
                      f"left for another run of the script with that value")
            hint = f"raise `--time-per-file`, or {give} to check it"
        for x in sorted(lines):
            if not built(x):
                notes.setdefault((x[0], x[1]), (reason, hint))
        if not lines and tok.pieces and not tok.opaque:
            # a value that changes flags (an array's key, a switch adding an option) not tried: said once per
            # variable, where its first such value is written (for the time budget too, in words that name no
            # figure of the machine's: a --strict scan must not pass it, rw25/h item 4)
            flag_values.setdefault(name, []).append((text, tok, hint, why))

    for i in pending if why else ():
        note(values[i], reaches[i], why, i in after_switch)
    for assigns, lines in cut:
        note(assigns, lines, "bound", False)
    for name, vals in list(flag_values.items())[:8]:
        text, tok, hint, why = vals[0]
        more = f" (or {', '.join(v[0] for v in vals[1:4])}{', ...' if len(vals) > 4 else ''})" if len(vals) > 1 else ""
        cause = (f"pdlint runs a script again for at most {MAX_ENV_RUNS} such values (environment switches that lead "
                 f"to other launch text, of at most {MAX_ENV_VALUES} values)") if why == "bound" else \
            "the file's time budget had too little left for another run of the script"
        notes[(None, (tok, name))] = (
            f"the script runs its launch with other flags when the environment sets {name}={text}{more}, and "
            f"{cause}; {'these were' if more else 'this one was'} not tried", hint)
    return out, notes


#: a value a suggested command may hold as written (anything else is quoted: it comes from the repository, and a
#: `case` pattern `big $(curl ... | sh)` pasted from the help would run, rw25/h item 11)
_SAFE_ARG = lazyre.compile(r"[\w.,:/@+=%-]*")


def _var_args(*pairs) -> str:
    """``--var NAME=VALUE ...`` for the help of a value not tried, each argument shell-quoted when it must be, or
    the config's form when a value holds a backquote (which no code span shows)."""
    import shlex
    if any("`" in text for _, text in pairs):
        return "in `[tool.pdlint.vars]`"
    args = " ".join(f"--var {a}" if _SAFE_ARG.fullmatch(a) else f"--var {shlex.quote(a)}"
                    for a in (f"{name}={text}" for name, text in pairs))
    return f"`{args}`" + (" or `[tool.pdlint.vars]`" if len(pairs) == 1 else "")


def _command_key(item) -> tuple:
    """A command (its words where they were written, its environment) or here-document of a script run,
    to find it in another run."""
    if not hasattr(item, "words"):  # a here-document
        from pdlint.formats.shell.state import tstr_key
        return ("heredoc", tstr_key(item.text))
    return (tuple((w.text, w.pieces) for w in item.words), tuple(sorted((k, v.text) for k, v in item.env.items())))


def _new_launches_only(runs: list, extra: list) -> list:
    """The runs of a script with a value of ``$1`` that names no role (``router)`` or ``all)`` of
    ``case "$1" in prefill) ... decode) ... router) ... all) ...``): keep only the launches no role
    run has (the router); ``all`` starting the role runs' servers again is not counted twice."""
    if not any(extra):
        return runs
    key = _command_key
    seen = {key(c) for run, x in zip(runs, extra) if not x for c in run[0]
            if not c.uncalled and launchers.find(c.words) is not None}  # (what a role run only found uncalled:
    # the `proxy)` run's `start_proxy` is its own launch, not the role runs' "not called" one)
    out = []
    for run, x in zip(runs, extra):
        if x:
            cmds = []
            for c in run[0]:
                if launchers.find(c.words) is not None:
                    k = key(c)
                    if k in seen:
                        continue
                    seen.add(k)
                cmds.append(c)
            run = (cmds,) + tuple(run[1:])
        out.append(run)
    return out


def _written_at(cmd) -> Optional[tuple]:
    """Where a command's first word is written (file, line, column), when it is written there exactly."""
    w = cmd.words[0] if cmd.words else None
    if w is None or not w.pieces or w.opaque or w.pieces[0].src is None:
        return None
    o = w.origin
    return (o.path, o.line, o.column)


def _uncalled_once(runs: list) -> list:
    """A script evaluated once per role value of ``$1``: a command (or here-document) found only in a
    function that run never calls (``start_prefill`` of a ``case "$1" in decode)``
    dispatcher) is not what the script runs with that value, so it takes no role
    from the run; it is kept once, in the first run, and not at all when another
    run calls it."""
    key = _command_key
    called = {key(c) for run in runs for items in (run[0], run[3]) for c in items if not c.uncalled}
    # (and where it is written: a run calls the function with its arguments, the uncalled evaluation has them
    # unknown; ddps-lab/disaggregation-TensorRT-LLM's `launch_worker 8001 ctx.yaml` under `context)` was also a
    # launch of `--port $1 --extra_llm_api_options $2` "not called" by the `proxy)` run: PD022, TRT008)
    called_at = {at for run in runs for c in run[0] if not c.uncalled for at in [_written_at(c)] if at is not None}
    kept: set = set()
    out = []
    for cmds, role, label, heredocs in runs:
        keeps = ([], [])
        for items, keep in zip((cmds, heredocs), keeps):
            for c in items:
                if c.uncalled:
                    k = key(c)
                    if k in called or k in kept or (hasattr(c, "words") and _written_at(c) in called_at):
                        continue
                    kept.add(k)
                keep.append(c)
        out.append((keeps[0], role, label, keeps[1]))
    return out


#: the most lines of one piece of a command's word noted as that command's (note_unrecognised)
_NOTE_LINES = 200


def internal_error(path: str, e: BaseException, where: str = "this file") -> Finding:
    """PD013: pdlint failed on one file (a bug, or input it does not survive); the others are still checked."""
    text = str(e)
    if len(text) > 200:
        text = text[:200] + "..."
    return Finding(path, 1, 1, C.INTERNAL.code, C.INTERNAL.name, C.INTERNAL.severity, None,
                   f"pdlint failed on {where} and did not check it: {type(e).__name__}: {text} (a pdlint bug: "
                   f"please report it; `--debug` shows the traceback)")


def isolate_per_file(items: list, stage, what: str, path_of, failed: Optional[set] = None) -> list:
    """``stage`` on the items of each file in turn; a file it raises on gives one PD013 finding (and its
    path goes into ``failed``, when given)."""
    by_path: dict = {}
    for it in items:
        by_path.setdefault(path_of(it), []).append(it)
    out: list = []
    for path, group in by_path.items():
        try:
            out += stage(group)
        except Exception as e:
            out.append(internal_error(path, e, what))
            if failed is not None:
                failed.add(path)
    return out


def _one_per_undefined_name(problems: list, src, far: frozenset = frozenset()) -> list:
    """[(problem, later lines of the same file with the same undefined name, only tested, away)]: one PD005 per
    variable and file, at its first use (a template rendered from a generator's objects,
    ai-dynamo/aiconfigurator's ``BenchConfig.*``, gave one error per use: 69 for 15 names); ``only tested``: every
    use is a truth test or a loop (:class:`pdlint.render.jinja.Problem`); ``away``: every use is on a line
    ``far`` holds (``(path, line)``: no launch is built from there); other problems as they are."""
    out: list = []
    first: dict = {}
    for p in sorted(problems, key=lambda q: (q.line or 0, q.column or 0)):  # (the report sorts them again)
        if p.code != "undefined":
            out.append([p, [], False, False])
            continue
        key = ((p.src or src).path, p.message)
        away = ((p.src or src).path, p.line) in far
        if key in first:
            if p.line != first[key][0].line and p.line not in first[key][1]:
                first[key][1].append(p.line)
            first[key][2] = first[key][2] and p.test
            first[key][3] = first[key][3] and away
            continue
        first[key] = [p, [], p.test, away]
        out.append(first[key])
    return out


#: said of an undefined variable a template only tests (``{% if shared_volume_path %}``, ``{% for s in steps %}``):
#: Jinja's default undefined makes it false / empty without an error (the `jinja2` command line renders it so,
#: vllm-project/vllm-ascend's nightly LWS templates, field test rw23/b), so a warning, not PD005's error
_ONLY_TESTED = (" (only tested or looped over here: rendered as false / empty, as Jinja's default undefined does; "
                "what it guards was not rendered)")


#: said of an undefined variable a manifest with no launch text uses only where no launch can come from it (an env
#: or ConfigMap value, a name, a label: :func:`_launch_reaching_lines`), field report rw28/a P3
_OFF_THE_LAUNCH = (" (only in values no launch is built from, such as an env or ConfigMap value, in a file with no "
                   "launch text: rendered as empty, as Jinja's default undefined does)")


def _line_list(lines: list, most: int = 5) -> str:
    shown = ", ".join(str(n) for n in sorted(lines)[:most])
    return shown + (f" and {len(lines) - most} more" if len(lines) > most else "")


def crd_apply(launch: Launch, w) -> None:
    """Copy what a workload's structure says onto a launch found in it."""
    if w.role in ("prefill", "decode"):
        launch.structural_role = w.role
        launch.structural_origin = w.role_tok.origin if w.role_tok is not None and w.role_tok.pieces else None
        launch.meta["role_how"] = w.role_how
    if w.unit:
        launch.unit = w.unit
        launch.meta["unit"] = w.unit
    if w.group:
        launch.meta["replica_of"] = w.group
    if w.group_role:
        launch.meta["group_role"] = w.group_role
    if w.replicas is not None:
        launch.meta["replicas"] = w.replicas
    if w.role_label.startswith("role "):
        launch.meta["role_name"] = w.role_label[6:-1]
    if w.claims:
        launch.meta["role_claims"] = list(w.claims)
    if w.injects_role:
        launch.meta["injects_role"] = True
    if w.virtual == "kthena":  # the whole command, as Kthena's controller writes it from the worker's config
        launch.notes.append("Kthena's controller writes this command: `python3 -m vllm.entrypoints.openai.api_server "
                            "--model <download path>` and the worker's config as flags, in key order (model_serving.go "
                            "buildCommands)")
    elif w.virtual:
        launch.incomplete = True
        launch.meta["controller_generated"] = w.virtual
        launch.notes.append("the controller writes this command; pdlint sees only the flags the manifest adds")
        if w.flag_args:
            launch.notes.append("the container's args are taken as flags the controller appends to its `vllm serve` "
                                "(upstream KServe); Open Data Hub / RHOAI's template runs its own script from args, "
                                "which these would replace")


# programs whose arguments mention launch text without running it (usage messages, process management)
_NOT_RUN = launchers.NOT_RUNNERS | {"pip", "pip3", "uv"}


#: bounds on the `python -c` code :func:`_python_c_imports_only` parses
_MAX_PY_C = 4096


def _python_c_imports_only(words: list, at: int) -> bool:
    """Is the command ``python -c CODE`` whose code only imports modules (``python -c "import sglang.launch_server;
    print('ok')"``, ``if ! python -c "import dynamo.frontend"``: a preflight check that the runtime has the server,
    field test rw29/a P5)?  Importing a server's module starts no server (its ``if __name__ == "__main__"`` does):
    import statements, ``print(...)`` and ``pass`` only; the code is parsed (:mod:`ast`), never run.  Code that
    calls anything else (``python -c "from sglang.launch_server import ...; launch_server(...)"``) is launch text
    pdlint did not check."""
    import ast
    if not (0 <= at < len(words)) or not launchers._PYTHON.match(launchers.basename(words[at].text)):
        return False
    j = at + 1
    while j < len(words) and words[j].text.startswith("-") and words[j].text != "-c":
        if words[j].text in ("-m",) or words[j].text.startswith("-m"):
            return False
        j += 2 if words[j].text in launchers._PY_VALUE_OPTS else 1
    if j + 1 >= len(words) or words[j].text != "-c":
        return False
    code = words[j + 1]
    if code.opaque or len(code.text) > _MAX_PY_C:
        return False
    try:
        tree = ast.parse(code.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False

    def harmless(node) -> bool:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass)):
            return True
        return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
            isinstance(node.value.func, ast.Name) and node.value.func.id == "print" and \
            not any(isinstance(n, ast.Call) for a in node.value.args for n in ast.walk(a))
    return bool(tree.body) and all(harmless(n) for n in tree.body) and \
        any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)


#: a whole variable reference in a sourced path: `$NAME`, `${NAME}`, `${NAME[@]}`, `${NAME[*]}`, `${NAME[0]}`
_SOURCE_VAR = lazyre.compile(r"\$\{([A-Za-z_]\w*)(?:\[(?:@|\*|\d+)\])?\}|\$([A-Za-z_]\w*)")
_MAX_SOURCE_MATCHES = 16


def _quoted_not_run(args: list) -> bool:
    """Is every argument holding launch text a command line of a program that runs none (``log_command "pkill -9
    trtllm-serve"``: a clean-up hint a function prints, MLPerf v6.0's benchmark_llama2_70b.sh, field test rw14/g)?"""
    from pdlint.coverage import MARKER
    marked = [t.split() for t in args if MARKER.search(t)]
    return bool(marked) and all(w and launchers.basename(w[0]) in _NOT_RUN for w in marked)


# the template names of include / import / from ... import / extends tags (their string literals)
_INCLUDE_NAME = (r"""\{%-?\s*(?:include|import|from|extends)\s+(?:\[[^\]]*?)?["']([^"'\n]+)["']""")  # a re pattern


#: diffusion model families `sglang serve` hands to its diffusion server (SGLang 0.5.23 sglang/cli/serve.py:
#: `--model-type diffusion`, or a model its registry or model_index.json says is one; pdlint reads no model files)
_DIFFUSION_MODEL = lazyre.compile(r"(?:^|[/_-])(?:flux|stable-diffusion|sdxl|sd3|sd-3|wan2|wan-2|hunyuan-?video|"
                              r"qwen-image|z-image|ltx-video|cogvideo|mochi|kandinsky|pixart|hidream)", re.I)


#: options only SGLang 0.5.23's diffusion server defines (sglang/multimodal_gen/runtime/server_args/server_args.py,
#: none of them the LLM server's): MiniMax-H3's `sglang serve --model-variant fl2va --num-gpus 8 --ulysses-degree ...`
_DIFFUSION_FLAGS = frozenset({"--num-gpus", "--ulysses-degree", "--ring-degree", "--model-variant",
                              "--text-encoder-cpu-offload", "--vae-cpu-offload", "--dit-cpu-offload",
                              "--image-encoder-cpu-offload", "--enable-cfg-parallel", "--cfg-parallel-size",
                              "--pipeline-class-name", "--performance-mode", "--encoder-parallel"})


#: vLLM's own images (mirrors too), which have no vLLM-Omni: `--omni` there is an unknown option (VLLM018)
_PLAIN_VLLM_IMAGE = lazyre.compile(r"(?:^|/)vllm-openai(?:[:@]|$)")


def _diffusion_serve(argv: list) -> bool:
    """Does ``sglang serve ARGV`` serve a diffusion model (GoogleCloudPlatform/accelerated-platforms' FLUX.2
    overlays, field test rw12/d: its `--backend` and `--num-gpus` were SGL001 errors of the LLM server)?"""
    texts = [t.text for t in argv]
    for i, t in enumerate(texts):
        if t == "--model-type" and i + 1 < len(texts):
            return texts[i + 1].lower() == "diffusion"
        if t.startswith("--model-type="):
            return t.partition("=")[2].lower() == "diffusion"
    if any(t.partition("=")[0] in _DIFFUSION_FLAGS for t in texts):
        return True
    model = texts[0] if texts and not texts[0].startswith("-") else next(
        (texts[i + 1] for i, t in enumerate(texts[:-1]) if t in ("--model-path", "--model")), None) or next(
        (t.partition("=")[2] for t in texts if t.startswith(("--model-path=", "--model="))), None)
    return bool(model) and _DIFFUSION_MODEL.search(model) is not None


def _launch_text_beside(src, line: int, spans: list) -> bool:
    """Launch text on this line of ``src`` outside the character ranges ``spans`` (another command's)."""
    from pdlint.coverage import find_markers
    base = src.offset_of(line)
    return any(not any(s <= base + m.column - 1 < e for s, e in spans)
               for m in find_markers(src.line_text(line)))  # as coverage finds them (comments left out)


#: a template written for other delimiters than Jinja's (`<% if x %>`, `<< var >>`, `[[ var ]]`) beside text that
#: is not Jinja (GitHub Actions' `${{ expression }}`)
_OTHER_DELIMITERS = lazyre.compile(r"<%-?\s*(?:if|for|set|endif|endfor|else|elif)\b|<<-?\s*[\w.]+\s*-?>>|\$\{\{")


def _includes_may_launch(src: SourceFile, read: list, problems: list) -> bool:
    """May what a Jinja template includes, imports or extends hold launch text: it names a template and one
    that its renders read holds some or a command-line option, or one could not be read, or none was read (an
    include in a branch no render took, a name computed from a variable)?  keivenchang/dynamo-utils' HTML dashboards import their
    macros and extend a layout (field test rw12/d): read as launch templates, 22 PD005 errors and a PD009."""
    from pdlint.coverage import has_launch_text
    if not re.search(_INCLUDE_NAME, src.text):
        return False
    return not read or any(p.code == "include" for p in problems) or \
        any(has_launch_text(t) or _OPTION_WORD.search(t) for t in read)


# a command-line option among the words of an included template (a partial of shared flags: `--tp-size 2`), not
# a CSS custom property (`--main-color: #fff`, `var(--gap)`) or an HTML comment's dashes
_OPTION_WORD = lazyre.compile(r"(?:^|\s)--[A-Za-z][\w-]*(?=[\s=]|$)", re.M)


def _not_a_launch_template(path: str, src: SourceFile, renders: list, includes: bool) -> bool:
    """A Jinja file that is no launch template: no launch text in it or in what it renders, no other
    template it includes that may hold some (``includes``: :func:`_includes_may_launch`), a name that says no
    YAML or shell, and neither a script (``#!``) nor YAML structure
    (a Deployment whose command comes from variables) in it or its renders. A model's chat template
    (``template_chatml.jinja`` with ``messages`` and ``add_generation_prompt``, rendered by the server, not by
    a deployment tool), an nginx.conf template. Its undefined variables and syntax pdlint does not report (a
    resource limit it still does)."""
    from pdlint.coverage import has_launch_text
    name = os.path.basename(path).lower()
    if _inner_kind(path) is not None or re.search(r"(?:[._-](?:ya?ml|sh|bash)|\.json)\.(?:j2|jinja2?)$", name) \
            or includes or has_launch_text(src.text) or src.text.lstrip().startswith("#!"):
        return False
    for r in renders:
        text = r.text.text
        if has_launch_text(text) or text.lstrip().startswith("#!"):
            return False
        if _MANIFEST_KEY.search(text):  # (an undefined value may leave it no valid YAML)
            return False
        try:
            docs = yt.compose(text)
        except (yt.YamlError, yt.LimitError):
            continue
        if any(isinstance(d.root, (yt.YMap, yt.YSeq)) for d in docs):
            return False
    return True


def _may_launch(src: SourceFile, renders: list, values, includes: bool) -> bool:
    """May a Jinja template's renders hold a launch: launch text in it, in a template it includes or imports
    (``includes``: :func:`_includes_may_launch`), in a render, or in the values it renders with?  One that may not (gpu-recipes' Ray values template, whose
    ``{{ fluent_bit_conf | indent(8) }}`` its deploy script fills: Jinja's ``indent`` raises on the undefined
    value) gets no render error (PD006): pdlint would check nothing in what it renders, as it reads no
    non-launch template's renders (:func:`_not_a_launch_template`).  (A render that failed has no text: the
    template's own text and the values tell.)  Nor does it get undefined variables (PD005) unless a command may
    come from one (:func:`_may_take_a_command`): the JSON task templates of
    littlemex/disaggregated-inference-with-nixl-over-aws-efa (``iperf3 ... {{ pattern_id }}.json``, filled by
    the script that renders them) got 291 PD005 errors in 17 files without any launch text.  Syntax errors
    (PD004) stay: the template does not compile for any tool."""
    from pdlint.coverage import has_launch_text
    if has_launch_text(src.text) or includes or any(has_launch_text(r.text.text) for r in renders):
        return True
    return has_launch_text("\n".join(_strings(values)))


def _is_script_template(path: str, src: SourceFile) -> bool:
    """A shell template (a shell name, ``*.sh.j2``, or a shebang): any of its words may be a command."""
    return _inner_kind(path) == "shell" or bool(re.search(r"[._-](?:sh|bash)\.(?:j2|jinja2?)$",
                                                          os.path.basename(path).lower())) \
        or src.text.lstrip().startswith("#!")


#: a key (or an env variable's name) whose value may be a command, its arguments or a script
_LAUNCHY_KEY = lazyre.compile(r"(?i)^(?:command|args|image|entrypoint|script|run|exec)$|cmd|command|args|argv|script|"
                          r"entrypoint|flags|opts|options|launch|extra|\.(?:sh|bash|py)$")
#: keys whose whole value, written by one expression, may be a pod or a list of containers
_STRUCT_KEY = lazyre.compile(r"^(?:spec|template|\w*[Tt]emplate|\w*[Cc]ontainers|services|env|envFrom|values|jobs|"
                         r"tasks|steps|data|stringData|workers?|leader\w*|roles?|\w*[Ss]pecs?)$")
_YAML_KEY_LINE = lazyre.compile(r"""^([ \t]*)((?:-[ \t]+)*)(["']?)([^"'#:{}\[\]\s][^"'#:{}\[\]]*?)\3[ \t]*:(?:[ \t]+|$)(.*)$""")
_JINJA_SETTING = lazyre.compile(r"\{%-?[ \t]*(?:set|macro|call|filter|with|include|import|from)\b")
_MANIFEST_SHAPE = lazyre.compile(r"(?m)^[ \t-]*([\"']?)(?:apiVersion|kind|containers|initContainers|services)\1[ \t]*:")


def _launch_reaching_lines(text: str) -> set:
    """The lines (1-based) of a manifest template where a variable's value may reach launch text: under a
    ``command`` / ``args`` / ``entrypoint`` key (or a key, a ConfigMap entry or an env variable named like one:
    ``server_args``, ``run.sh``, ``LAUNCH_CMD``), an ``image`` of a manifest, in a block scalar (a script), a
    ``{% set %}`` / macro line, an expression that writes keys or a whole structure (a line of its own, the
    value of ``spec:`` / ``containers:``), an env value the file refers to (``$(NAME)``, ``$NAME``).  The
    others are values no launch is built from: an env or ConfigMap value, a name, a label, a comment.  A reading
    of the text's shape (indentation), not of the rendered YAML."""
    manifest = bool(_MANIFEST_SHAPE.search(text))
    reach: set = set()
    stack: list = []  # [(column, key)] of the enclosing keys
    block = None  # a block scalar's parent column while its lines are read
    env_name: Optional[str] = None
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        if block is not None:
            if not body or indent > block:
                reach.add(n)  # (a script's text, a config file's: its words may be a command)
                continue
            block = None
        if not body or body.startswith("#"):
            continue
        if _JINJA_SETTING.search(line):
            reach.add(n)
            continue
        m = _YAML_KEY_LINE.match(line)
        if m is None:
            rest = body
            while rest.startswith("- ") or rest == "-":
                rest = rest[2:].lstrip(" \t")
            chain = [k for c, k in stack if c < indent]
            if "{{" in line and (not body.startswith("-") and rest.startswith("{{")
                                 or "{{" in rest.split(":", 1)[0] and ":" in rest
                                 or any(_LAUNCHY_KEY.search(k) for k in chain)):
                reach.add(n)  # keys or a structure written by an expression, or a command's item
            continue
        col = len(m.group(1)) + len(m.group(2))
        key, value = m.group(4).strip(), m.group(5).strip()
        while stack and stack[-1][0] >= col:
            stack.pop()
        chain = [k for _, k in stack] + [key]
        stack.append((col, key))
        if m.group(2) and key == "name":
            env_name = value.strip("\"'")
        if value[:1] in "|>" and value[:1]:
            block = col
        if "{{" not in line and "{%" not in line:
            continue
        launchy = any(_LAUNCHY_KEY.search(k) and (k != "image" or manifest) for k in chain)
        whole = value.startswith("{{") and value.endswith("}}") and _STRUCT_KEY.match(key) is not None
        named = key == "value" and "env" in chain and env_name is not None and (
            _LAUNCHY_KEY.search(env_name) is not None or
            re.search(r"\$\(%s\)|\$\{%s\}|\$%s\b" % ((re.escape(env_name),) * 3), text) is not None)
        if launchy or whole or named or "{{" in key:
            reach.add(n)
    return reach


def _may_take_a_command(path: str, src: SourceFile, renders: list) -> bool:
    """May a template without launch text (:func:`_may_launch`) launch with the value of a variable it lacks: is
    it a script (a shebang, a shell name: ``job_script.j2``'s ``srun ... --nodes={{ total_nodes }}``) or a
    manifest (a ``command``/``args``/``image``/``containers`` key: a Deployment whose command comes from
    variables)?  Then its undefined variables (PD005) stay: given their values (``--var``, a values file) it
    may render a launch pdlint checks.  A data template (an iperf3 task list in JSON) gets none."""
    if _inner_kind(path) == "shell" or re.search(r"[._-](?:sh|bash)\.(?:j2|jinja2?)$", os.path.basename(path).lower()):
        return True
    texts = [src.text] + [r.text.text for r in renders]
    if not any(_LAUNCH_KEY.search(t) for t in texts):
        kinds = {k for t in texts for k in _KIND.findall(t)}
        if kinds and kinds <= _NO_POD_KINDS:
            return False  # a PVC, a namespace's RBAC, an HTTPRoute (llm-d-benchmark's 46 PD005, field test rw16/l)
    return any(t.lstrip().startswith("#!") or _MANIFEST_KEY.search(t) for t in texts)


def _strings(value, limit: int = 10_000) -> list:
    """The strings of a variables structure (dicts, lists, scalars), at most ``limit`` of them."""
    out: list = []
    stack = [value]
    while stack and len(out) < limit:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack += [x for kv in v.items() for x in kv]
        elif isinstance(v, (list, tuple)):
            stack += list(v)
    return out


_MANIFEST_KEY = lazyre.compile(r"(?m)^[ \t-]*([\"']?)(?:apiVersion|kind|containers|command|args|image|env)\1[ \t]*:")
_LAUNCH_KEY = lazyre.compile(r"(?m)^[ \t-]*([\"']?)(?:containers|command|args|image|env|template|data)\1[ \t]*:"
                         r"|^[ \t-]*([\"']?)spec\2[ \t]*:[ \t]*\{\{")
_KIND = lazyre.compile(r"(?m)^kind:[ \t]*[\"']?([A-Za-z]+)[\"']?[ \t]*(?:#.*)?$")
#: Kubernetes kinds that hold no pod and no script (a ConfigMap may hold one): a template of only these (and no
#: container, command, args or image key) launches nothing whatever its variables are
_NO_POD_KINDS = frozenset({"PersistentVolumeClaim", "PersistentVolume", "Namespace", "ServiceAccount", "Role",
                           "RoleBinding", "ClusterRole", "ClusterRoleBinding", "Service", "Secret", "HTTPRoute",
                           "GRPCRoute", "Gateway", "Ingress", "NetworkPolicy", "StorageClass", "PodDisruptionBudget",
                           "HorizontalPodAutoscaler", "ResourceQuota", "LimitRange", "InferencePool", "InferenceModel",
                           "InferenceObjective", "ServiceMonitor", "PodMonitor", "PriorityClass", "DestinationRule",
                           "VirtualService", "EnvoyFilter", "ReferenceGrant"})


def _role_bound_by_template(launch: Launch, var: str, role: Optional[str]) -> bool:
    """Does ``launch`` write another role through ``{{ var }}`` than the one this render gives ``var`` - a
    value of the template's own (``{% for role in ["prefill"] %}{% include "launch.j2" %}``, the included
    ``--disaggregation-mode {{ role }}`` reads the loop's ``role``)?  Its role is then no role of the render: the
    decode render's copy of the loop's prefill launch was "the decode server" (a false PD101; hostile-input
    round rw30/h P12)."""
    from pdlint.render.jinja import ROLE_SYNONYMS
    note = "{{ " + var + " }}"
    for w in launch.argv:
        canon = ROLE_SYNONYMS.get(w.text.lower())
        if canon is None or canon == role or len(w.text) < 3:
            continue
        if w.pieces and all(p.src is not None and any(h.note == note for h in p.chain) for p in w.pieces):
            return True
    return False


def _inner_kind(path: str) -> Optional[str]:
    base = os.path.basename(path).lower()
    for ext in (".j2", ".jinja2", ".jinja", ".tpl"):
        if base.endswith(ext):
            base = base[: -len(ext)]
            break
    if base.endswith((".yaml", ".yml", ".json")):
        return "yaml"
    if base.endswith(SHELL_EXT):
        return "shell"
    if base.endswith(".service"):
        return "systemd"
    if _OTHER_RENDERED.search(base):
        return "text"
    return None


#: what a template renders that is neither YAML nor a shell script (`opencode.jsonc.j2`, `vllm.conf.j2`): its
#: launch text is reported as not checked (PD020), it is not parsed as a script (jedmund/homelab's JSONC
#: template: three PD009 and an exit 1 on a file with no launch, field test rw14/h)
_OTHER_RENDERED = lazyre.compile(r"\.(?:jsonc|json5|toml|ini|cfg|conf|py|md|txt|html?|xml|properties|js|ts|lua|tf|hcl"
                             r"|nomad|nginx|caddyfile|cs?v|sql)$")


def _sniff(text: str) -> str:
    from pdlint.discover import SHELL_SHEBANG
    stripped = text.lstrip()
    if stripped.startswith("#!") and not SHELL_SHEBANG.match(stripped[:256].encode("utf-8", "replace")):
        # another interpreter's script (a Bazel `.tpl` of a Python wrapper, `#!/opt/conda310/bin/python`: alibaba/
        # rtp-llm's crosstool templates were parsed as shell, four PD009 and an exit 1 with --strict in a repository
        # with no launch text: field test rw27/a): its launch text is PD020, it is not parsed as a script
        return "text"
    if stripped.startswith("#!") or not stripped:
        return "shell"
    try:
        docs = yt.compose(text)
    except yt.YamlError:
        return "shell"
    if any(isinstance(d.root, (yt.YMap, yt.YSeq)) for d in docs):
        return "yaml"
    return "shell"


# Handlebars / Mustache tags, which neither YAML, Jinja nor a Go template holds: a section `{{#if X}}`, `{{#each xs}}`,
# an inverted section `{{^X}}`, a section's close `{{/if}}`, a triple-stash `{{{X}}}` (a Go template's comment
# `{{/* ... */}}` is no close: a name follows the slash)
_MUSTACHE = lazyre.compile(r"\{\{~?(?:[#^]\s*[A-Za-z_@][\w@.-]*[^{}\n]{0,80}|/\s*[A-Za-z_@][\w@.-]*\s*~?|"
                       r"\{~?\s*[A-Za-z_@][\w@.-]*\s*~?\})\}\}")
# a Terraform template directive: `%{ for ip in ips ~}`, `%{ endfor }`, `%{ if x }`, `%{ else }`, `%{ endif }`
_TERRAFORM = lazyre.compile(r"%\{~?\s*(?:for\s+\w+(?:\s*,\s*\w+)?\s+in\s|endfor\b|if\s|else\b|endif\b)[^{}\n]{0,80}\}")

_MUSTACHE_HINT = ("check what the tool that fills the template writes: render it with the values it is deployed "
                  "with and run pdlint on the output, or write the launch in a form pdlint reads (a Jinja2 "
                  "template, a Helm chart, plain YAML or a shell script); if it is no launch, exclude the file")
_TERRAFORM_HINT = ("check what Terraform renders: write `templatefile(...)` with the variables it is deployed with "
                   "to a file (`terraform console`, a `local_file` resource) and run pdlint on it, or write the "
                   "launch in a form pdlint reads (a Jinja2 template, a Helm chart, plain YAML or a shell script); "
                   "if it is no launch, exclude the file")


def _foreign_template(path: str, text: str) -> Optional[tuple]:
    """(language, what tells it, hint) of a template pdlint does not render, else None:

    * Handlebars/Mustache (aws-samples/sample-genai-on-eks-starter-kit's ``*.template.yaml``, filled by its
      ``index.mjs``): any section or triple-stash tag makes the file one, whether or not it parses as YAML.
      Read as YAML, its text holds every ``{{#if}}`` branch at once (``--is-prefill-worker`` beside
      ``--is-decode-worker``) and ``{{{VAR}}}`` is a flow mapping, not the value it stands for: a launch read
      from it is none that is deployed, and a clean result on it would be a silent pass;
    * Terraform ``templatefile`` (``*.tftpl``; a ``*.yaml.tpl`` / ``*.sh.tpl`` with a ``%{ for ... }``
      directive, GoogleCloudPlatform/ai-on-gke's ``locust-runner-service.yaml.tpl``).  Its ``${...}`` alone
      does not tell: a Jinja ``.sh.tpl`` holds shell's."""
    def at(m: re.Match) -> str:
        return f"`{m.group(0)}` on line {text.count(chr(10), 0, m.start()) + 1}"
    m = _TERRAFORM.search(text)
    if m is not None or path.lower().endswith(".tftpl"):
        return "Terraform templatefile", at(m) if m is not None else "a `.tftpl` file", _TERRAFORM_HINT
    m = _MUSTACHE.search(text)
    if m is not None:
        return "Handlebars/Mustache", at(m), _MUSTACHE_HINT
    return None


def _is_go_template(text: str) -> bool:
    import re
    return re.search(r"\{\{-?\s*(define|include|template|\.Values|\.Release|\$\.|end\b)", text) is not None


def _actions_in_strings_opaque(src: SourceFile) -> Optional[TStr]:
    """The text of a YAML file whose Go template actions all sit inside string scalars, each action opaque; None
    when one stands in the YAML structure (a template to render, of which pdlint reads the literal lines).

    Such a file is YAML whatever it holds: Helm values a chart passes through ``tpl`` (llm-d-modelservice's
    ``uri: hf://"{{ .Values.modelArtifacts.name }}"``), or manifests whose strings a controller fills in (kserve's
    LLMInferenceServiceConfig, alone or many in one installer bundle). Read as YAML, each document keeps its own
    objects, containers and roles, and its scalars their YAML meaning (a double-quoted script's ``\\n``); what an
    action renders stays unknown (opaque), as a variable whose value pdlint cannot see. Read as one template's
    literal lines instead, a bundle's documents were one script on one host (a false PD150 between two objects'
    launches) and a quoted scalar was read undecoded (a false PD009)."""
    try:
        docs = yt.compose(src.text)
    except yt.YamlError:
        return None
    return yt.go_actions_opaque(TStr.from_source(src), docs, strict=True)


def _components(graph: dict) -> dict:
    """node -> its strongly connected component's id (Tarjan's algorithm, iterative): the kustomizations that
    include each other share one."""
    index: dict = {}
    low: dict = {}
    comp: dict = {}
    stack: list = []
    on: set = set()
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph.get(w, ()))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp[w] = v
                    if w == v:
                        break
    return comp
