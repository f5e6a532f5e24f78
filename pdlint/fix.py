"""Fix stage (``pdlint --fix`` / ``--diff``): turn the findings' fix intents
into text edits, apply them, re-check, write.

Rules opt in declaratively (``Rule.autofix``, :class:`~pdlint.model.AutoFix`);
findings carry a :class:`~pdlint.model.FixIntent`:

* ``replace`` -- a token's text changes (a typo's single close match, a
  renamed or deprecated flag's replacement); the edit covers only the
  characters that differ, at the token's origin;
* ``move`` -- a flag at a shared origin (anchor, list, variable,
  ``{% set %}``, template line) that some roles reject: the flag and its value
  tokens are removed from the shared part and written into the part of each
  keeping launch that no rejecting launch reaches (after its last flag there),
  or, in a template rendered per role with no such part, under a new
  ``{% if <role var> == "<role>" %}`` branch.

:func:`run` repeats lint -> plan -> apply in memory (the edited texts are an
overlay the next lint reads instead of the files) until nothing is left to
fix.  A fix is kept only if the re-lint shows its finding gone and no finding
that was not there before (a YAML file must also still parse), so every
applied fix is proven by re-linting the fixed tree, and a second run finds
nothing to fix.  Files are written only by :func:`write` (``--fix``): never
outside the repository, never through a symbolic link, never when the file
changed since it was read.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
from collections import Counter
from typing import Optional

from pdlint import edits as E, lazyre
from pdlint.model import SAFE, Edit, Finding, Fix, FixIntent
from pdlint.records import dataclass, field, replace
from pdlint.report import escape as esc

MAX_PASSES = 8
MAX_LINTS = 40


@dataclass
class FixRun:
    result: object  # lint.Result after the fixes
    original: dict = field(default_factory=dict)  # display path -> text as first read
    fixed: dict = field(default_factory=dict)  # display path -> text after the fixes
    applied: list = field(default_factory=list)  # (Finding, Fix) proven by the re-lint
    unsafe_left: int = 0  # remaining findings with a fix that needs --unsafe-fixes
    problems: list = field(default_factory=list)  # files not written, with the reason
    forms: dict = field(default_factory=dict)  # display path -> (BOM?, line end) of the file on disk
    findings: list = field(default_factory=list)  # the selected findings left after the fixes

    @property
    def changed(self) -> list:
        return sorted(p for p, t in self.fixed.items() if t != self.original.get(p))


# ---------------------------------------------------------------------------
# Planning: intents -> edits
# ---------------------------------------------------------------------------

class Planner:
    def __init__(self, launches: list, cwd: Optional[str] = None):
        from pdlint.check import launch_tokens
        self.launches = launches
        self.cwd = cwd or os.getcwd()
        self._listings: dict = {}  # repository root -> its files (readers search)
        self._readers: dict = {}  # a shared file -> the files that read it (:meth:`_naming`)
        self.reach: dict = {}
        for launch in launches:
            # what the server's parser sees and every word written for the launch (a wrapper's own flags too)
            for tok in launch_tokens(launch) + list(launch.argv) + list(launch.command):
                if tok.pieces:
                    self.reach.setdefault(tok.origin_key(), set()).add(id(launch))

    def plan(self, finding: Finding) -> Optional[Fix]:
        intent = finding.autofix
        if not isinstance(intent, FixIntent):
            return None
        try:
            if intent.kind == "replace":
                edits = self._replace(intent)
            elif intent.kind == "move":
                edits = self._move(intent)
            else:
                edits = None
        except (ValueError, IndexError, KeyError):  # a source shape the planner did not foresee: no fix
            edits = None
        if not edits:
            return None
        edits = sorted(set(edits), key=lambda e: (e.path, e.start, e.end, e.content))
        if _overlapping(edits):
            return None
        return Fix(intent.message, intent.applicability, tuple(edits))

    # -- replace ---------------------------------------------------------------
    def _replace(self, intent: FixIntent) -> Optional[list]:
        tok, old = intent.token, intent.token.text
        new = intent.new[0]
        if new == old and len(intent.new) == 1:
            return None
        whole = E.span(tok)
        spot = E.locate(*whole) if whole is not None else None
        if spot is not None:
            # a flag written in shared text (a shell array, a `{% set %}`, a YAML anchor) that another command reads
            # too (`python3 bench.py "${ARGS[@]}"`): renaming it there renames that command's word as well - no fix
            # (hostile-input round rw27/h P21; the move fix refuses the same)
            key = tok.origin_key()
            readers = [l for l in self.launches if id(l) in self.reach.get(key, ())]
            words = [t for l in readers for t in list(l.argv) + list(l.command) if t.pieces and t.origin_key() == key]
            if not self._every_alias_reached([spot], readers, key) or \
                    not self._every_reader_reached([spot], readers, key, words):
                return None
        p = 0
        while p < min(len(old), len(new)) and old[p] == new[p]:
            p += 1
        s = 0
        while s < min(len(old), len(new)) - p and old[-1 - s] == new[-1 - s]:
            s += 1
        i, j = p, len(old) - s
        content = new[p:len(new) - s]
        out = []
        if i < j:
            sp = E.span(tok, i, j)
            if sp is None:
                return None
            out.append(Edit(sp[0].path, sp[1], sp[2], content))
        elif content:
            sp = E.span(tok, i - 1, i) if i > 0 else E.span(tok, i, i + 1)
            if sp is None:
                return None
            at = sp[2] if i > 0 else sp[1]
            out.append(Edit(sp[0].path, at, at, content))
        if len(intent.new) > 1:
            whole = E.span(tok)
            spot = E.locate(*whole) if whole is not None else None
            if spot is None:
                return None
            entries = [E.entry_text(t, spot) for t in intent.new[1:]]
            if None in entries:
                return None
            ins = E.insert_after(spot, entries)
            if out and out[-1].end == ins.start:
                # the replaced characters end where the new entries start (a word or flow entry, or a block
                # entry that ends its line): one edit
                last = out.pop()
                ins = Edit(last.path, last.start, last.end, last.content + ins.content)
            out.append(ins)
        return out

    # -- move --------------------------------------------------------------------
    def _groups(self, launch) -> Optional[list]:
        from pdlint.engines import adapter
        engine = adapter(launch.engine)
        fn = getattr(engine, "occurrence_groups", None) if engine is not None else None
        return fn(launch) if fn is not None else None

    def _move(self, intent: FixIntent) -> Optional[list]:
        key = intent.token.origin_key()
        moved = None
        dest = None
        for launch in intent.source + intent.target:
            groups = self._groups(launch)
            if not groups:
                return None
            hit = [(d, g) for d, g in groups if any(t.origin_key() == key for t in g)]
            if len(hit) != 1:
                return None
            d, g = hit[0]
            keys = tuple(t.origin_key() for t in g)
            if moved is None:
                moved, dest, moved_keys = g, d, keys
            elif keys != moved_keys:
                return None  # the launches see different value tokens: not one shared occurrence
        reached = self.reach.get(key, set())
        if any(self.reach.get(k, set()) != reached for k in moved_keys):
            return None
        spans = [E.span(t) for t in moved]
        if None in spans:
            return None
        spots = [E.locate(*s) for s in spans]
        if None in spots:
            return None
        if not self._every_alias_reached(spots, intent.source + intent.target, key):
            return None
        if not self._every_reader_reached(spots, intent.source + intent.target, key):
            return None
        comments = [E.trailing_comment(s) for s in spots]  # a block entry's comment goes with it
        if E.remove(spots) is None:
            return None
        out: list = []
        placed = True  # every keeping launch got the comments: none stays where the entries were
        raws = [s.src.text[s.start:s.end] if s.file_kind == "yaml" and s.kind != "word" else None for s in spots]
        texts = [t.text for t in moved]
        target_ids = {id(l) for l in intent.target}
        source_ids = {id(l) for l in intent.source}
        for launch in intent.target:
            groups = self._groups(launch) or []
            if any(d == dest and tuple(t.origin_key() for t in g) != moved_keys for d, g in groups):
                return None  # the keeping launch writes the flag again: moving could change which one wins
            ins = self._insert(launch, groups, set(moved_keys), texts, raws, target_ids, comments) or \
                self._branch(launch, groups, set(moved_keys), texts, target_ids | source_ids, intent, comments)
            if ins is None:
                return None
            edits, with_comments = ins
            placed = placed and with_comments
            out += edits
        return E.remove(spots, keep_comments=not placed) + out

    def _every_alias_reached(self, spots: list, launches: list, key) -> bool:
        """Does every alias of the YAML anchors holding ``spots`` lead to one of ``launches``?  An alias that
        another object uses (a benchmark Job's ``args: *sglang_args``, no server) would lose the moved flag
        with no word: no fix then (hostile-input test rw25/h item 1)."""
        from pdlint.formats import yamltree as yt
        used = set()
        for launch in launches:
            for _, g in self._groups(launch) or []:
                for t in g:
                    if t.origin_key() == key:
                        used |= {(h.path, h.line, h.column) for h in t.origin.chain if h.note.startswith("alias ")}
        for spot in spots:
            if spot.file_kind != "yaml" or "*" not in spot.src.text:
                continue
            try:
                docs = yt.compose(spot.src.text)
            except yt.YamlError:
                return False
            holders = {n.anchor for n in _nodes(docs) if n.anchor and n.start <= spot.start < n.end}
            for n in _nodes(docs):
                if isinstance(n, yt.YAlias) and n.name in holders:
                    line, col = spot.src.position(n.start)
                    if (spot.src.path, line, col) not in used:
                        return False
        return True

    def _every_reader_reached(self, spots: list, launches: list, key, words: tuple = ()) -> bool:
        """Is every reader of the shared text the spots are in one of ``launches``?  The text is a shell or env
        file variable's value (read as ``$NAME``), a Jinja ``{% set NAME %}`` (read as ``NAME``), or a partial
        (read through an ``include`` / ``source`` of its file name); a reader elsewhere - a benchmark's
        ``python3 bench/replay.py $COMMON``, a template including the partial - would lose the moved flag with no
        word (hostile-input test rw26/h item 1; the YAML twin is :meth:`_every_alias_reached`).  The readers are
        searched in the spot's file and in the repository's files that name it; when they cannot all be read,
        no fix."""
        used = {(os.path.normpath(os.path.join(self.cwd, h.path)), h.line)
                for launch in launches for _, g in self._groups(launch) or [] for t in g
                if t.origin_key() == key for h in t.origin.chain}
        used |= {(os.path.normpath(os.path.join(self.cwd, launch.path)), launch.line) for launch in launches}
        used |= {(os.path.normpath(os.path.join(self.cwd, h.path)), h.line) for t in words for h in t.origin.chain}
        for spot in spots:
            if spot.file_kind == "yaml" or spot.src.abspath is None:
                continue
            pattern, defined = _reader_pattern(spot)
            if pattern is None:
                continue  # the launch's own line (a template's, a script's): no other reader
            files = self._naming(spot.src.abspath)
            if files is None:
                return False
            for path, text in files:
                for m in pattern.finditer(text):
                    if path == spot.src.abspath and defined is not None and defined[0] <= m.start() < defined[1]:
                        continue  # the definition itself
                    line = text.count("\n", 0, m.start()) + 1
                    lines = _loop_lines(text, m.start(), line) or (line,)
                    if not any((os.path.normpath(path), n) in used for n in lines):
                        return False
        return True

    def _naming(self, abspath: str) -> Optional[list]:
        """``(abspath, text)`` of the file and of every file of its repository that reads it (a shell ``source``
        / ``.``, a Jinja ``include`` / ``import`` / ``from`` / ``extends`` naming its base name), at most
        :data:`MAX_READER_FILES` read; None when they cannot all be read."""
        if abspath in self._readers:
            return self._readers[abspath]
        self._readers[abspath] = got = self._read_naming(abspath)
        return got

    def _read_naming(self, abspath: str) -> Optional[list]:
        from pdlint import discover
        root = discover.repo_root(abspath, {}) or os.path.dirname(abspath)
        listed = discover.repo_files(root, self._listings)
        if listed is None:  # not a git work tree (or git missing): its files, as a walk of pdlint lists them
            listed = []
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d not in discover._SKIP_DIRS)
                listed += [os.path.join(dirpath, f) for f in sorted(filenames)]
                if len(listed) > MAX_READER_FILES:
                    return None
        needle = os.path.basename(abspath).encode()
        reads = re.compile(rb"(?:\bsource|(?:^|[;&|({])[ \t]*\.)[ \t]+[\"']?[^\s\"';&|]*" + re.escape(needle) +
                           rb"|\{%[-+]?\s*(?:include|import|from|extends)\b[^%\n]*" + re.escape(needle), re.M)
        out, read = [], 0
        for f in listed:
            path = f if os.path.isabs(f) else os.path.join(root, f)
            try:
                if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_READER_BYTES:
                    continue
                read += 1
                if read > MAX_READER_FILES:
                    return None
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if os.path.normpath(path) == os.path.normpath(abspath) or (needle in data and reads.search(data)):
                out.append((os.path.normpath(path), data.decode("utf-8", "replace")))
        return out

    def _insert(self, launch, groups, moved_keys, texts, raws, target_ids, comments) -> Optional[tuple]:
        """After the last flag of ``launch`` that only keeping launches reach and that is written there
        whole (the flag with its values, in one place): (edits, whether ``comments`` went with them)."""
        for _, g in reversed(groups):
            keys = [t.origin_key() for t in g]
            if any(k in moved_keys for k in keys):
                continue
            reached = set().union(*(self.reach.get(k, set()) for k in keys))
            if not reached or not reached <= target_ids:
                continue
            spot = self._spot_after(g[-1]) if _written_together(g) else None
            if spot is None:
                continue  # its value comes from elsewhere (a variable's default, a values file): an earlier flag
            entries = [E.entry_text(t, spot, r) for t, r in zip(texts, raws)]
            if None in entries:
                return None
            return _with_comments(spot, entries, comments)
        return None

    def _spot_after(self, tok):
        sp = E.span(tok)
        if sp is not None:
            return E.locate(*sp)
        at = E.point_after(tok)
        return E.locate_end(*at) if at is not None else None

    def _branch(self, launch, groups, moved_keys, texts, render_ids, intent, comments) -> Optional[tuple]:
        """No part of the template is the keeping role's own: add a branch on the role variable after the
        launch's last flag written directly in the template."""
        var = launch.meta.get("render_var")
        if not var or not isinstance(var[1], str):
            return None
        name, value = var
        for other in intent.source:
            ov = other.meta.get("render_var")
            if not ov or ov[0] != name or ov[1] == value or other.path != launch.path:
                return None
        for _, g in reversed(groups):
            keys = [t.origin_key() for t in g]
            if any(k in moved_keys for k in keys):
                continue
            reached = set().union(*(self.reach.get(k, set()) for k in keys))
            last = g[-1]
            if not reached or not reached <= render_ids or any(p.chain for p in last.pieces):
                continue
            if last.pieces[-1].src is None or last.pieces[-1].src.path != launch.path:
                continue
            spot = self._spot_after(last)
            if spot is None or spot.in_tag or spot.file_kind != "jinja":
                return None
            entries = [E.entry_text(t, spot) for t in texts]
            if None in entries:
                return None
            cond = "{% if " + name + " == " + json.dumps(value) + " %}"
            if spot.kind == "block":
                prefix = E.block_line_prefix(spot)
                tags_at_0 = any(line.startswith("{%") for line in spot.src.text.split("\n"))
                indent = "" if tags_at_0 else prefix[:len(prefix) - len(prefix.lstrip(" \t"))]
                lines = [indent + cond] + [prefix + e + c for e, c in zip(entries, comments)] + \
                    [indent + "{% endif %}"]
                return [E.insert_after_line(spot.src, spot.end, lines)], True
            sep = ", " if spot.kind == "flow" else " "
            return [Edit(spot.src.path, spot.end, spot.end, cond + "".join(sep + e for e in entries) +
                         "{% endif %}")], not any(comments)
        return None


MAX_READER_FILES = 20_000  # repository files a move's reader search opens (past it: no fix)
MAX_READER_BYTES = 4_000_000  # larger files are not a script or template that reads a shared value

#: `NAME=` / `export NAME=` / `local NAME=` ... at the start of a shell statement, up to the spot
_ASSIGNMENT = lazyre.compile(r"(?:^|[;&|(]|\b(?:export|local|readonly|declare(?:[ \t]+-\w+)*))[ \t]*"
                         r"([A-Za-z_][A-Za-z0-9_]*)\+?=", re.M)
_SET_TAG = lazyre.compile(r"\{%[-+]?\s*set\s+([A-Za-z_][A-Za-z0-9_]*)\s*=")


def _reader_pattern(spot) -> tuple:
    """``(pattern of a read of the shared text at spot, the definition's span or None)``: ``$NAME`` of the shell
    variable it is assigned to, ``NAME`` of the ``{% set %}`` it is in, or the file's name (an ``include`` /
    ``source`` of a partial); ``(None, None)`` for text on a launch's own line."""
    text, start = spot.src.text, spot.start
    if spot.file_kind == "jinja" and spot.in_tag:
        tag = text.rfind("{%", 0, start)
        m = _SET_TAG.match(text, tag) if tag >= 0 else None
        if m is None:
            return None, None
        end = text.find("%}", start)
        return re.compile(r"(?<![\w.$])" + re.escape(m.group(1)) + r"(?!\w)"), (tag, end if end >= 0 else len(text))
    statement = text.rfind("\n", 0, start) + 1
    while statement > 1 and text[statement - 2] == "\\":  # (a value continued over lines)
        statement = text.rfind("\n", 0, statement - 1) + 1
    found = None
    for m in _ASSIGNMENT.finditer(text, statement, start):
        found = m
    if found is not None and spot.file_kind != "jinja":
        name = found.group(1)
        return re.compile(r"\$\{?" + re.escape(name) + r"(?![A-Za-z0-9_])"), (found.start(1), start)
    if _launch_line(text, start):
        return None, None
    base = os.path.basename(spot.src.abspath or spot.src.path)
    return re.compile(r"(?<![\w.-])" + re.escape(base) + r"(?![\w-])"), None


_FOR_TAG = lazyre.compile(r"\{%[-+]?\s*for\b")
_ENDFOR = lazyre.compile(r"\{%[-+]?\s*endfor\b")


def _loop_lines(text: str, at: int, line: int) -> tuple:
    """The lines of a ``{% for x in NAME %}`` loop's body when the read at ``at`` is its iterable: what the
    launches read of it is the body's ``{{ x }}`` (their tokens' hops are there); () otherwise."""
    tag = text.rfind("{%", 0, at)
    if tag < 0 or not _FOR_TAG.match(text, tag) or text.find("%}", tag, at) >= 0:
        return ()
    end = _ENDFOR.search(text, at)
    last = line + text.count("\n", at, end.start()) if end is not None else line
    return tuple(range(line, last + 1))


def _launch_line(text: str, at: int) -> bool:
    """Is ``at`` on a line (or a backslash-continued run of lines) that starts a server (a launcher in it)?"""
    from pdlint.coverage import has_launch_text
    ls = text.rfind("\n", 0, at) + 1
    while ls > 1 and text[ls - 2] == "\\":
        ls = text.rfind("\n", 0, ls - 1) + 1
    le = text.find("\n", at)
    while le > 0 and text[le - 1] == "\\":
        le = text.find("\n", le + 1)
    return has_launch_text(text[ls:le if le >= 0 else len(text)])


def _nodes(docs: list):
    """Every node of composed YAML documents, aliases as themselves (not followed)."""
    from pdlint.formats import yamltree as yt
    for d in docs:
        yield from yt.iter_nodes(d.root)


def _with_comments(spot, entries: list, comments: list) -> tuple:
    """The edits that add ``entries`` after ``spot`` with the comments their lines had (a block entry's on
    its own line, the flow list's at the end of its line where that is safe), and whether they went too."""
    if not any(comments):
        return [E.insert_after(spot, entries)], True
    if spot.kind == "block":
        return [E.insert_after(spot, [e + c for e, c in zip(entries, comments)])], True
    note = E.comment_after(spot, comments)
    return [E.insert_after(spot, entries)] + ([note] if note is not None else []), note is not None


def _written_together(group: list) -> bool:
    """The flag and its value tokens are written in one place, one after the other (every piece from the
    same file, reached the same way): the end of the last one is the end of the whole occurrence. A value
    carried in by a variable (``--port "$PORT"``, ``{% set %}``, a values file) is written where the variable
    is set: adding entries there would put them inside the variable (or between a flag and its value)."""
    first = group[0].pieces[0] if group and group[0].pieces else None
    if first is None or first.src is None:
        return False
    last = -1
    for tok in group:
        for p in tok.pieces:
            if p.src is not first.src or p.chain != first.chain or p.opaque or p.offset < last:
                return False
            last = p.offset
    return True


def _overlapping(edits: list) -> bool:
    by_path: dict = {}
    for e in edits:
        by_path.setdefault(e.path, []).append(e)
    for es in by_path.values():
        es.sort(key=lambda e: (e.start, e.end))
        for a, b in zip(es, es[1:]):
            if b.start < a.end or (b.start == a.start and a.start == a.end) or (a.end == b.start and (
                    a.start == a.end or b.start == b.end)):
                return True
    return False


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------

def _key(f: Finding) -> tuple:
    return (f.code, f.path, f.role or "", f.message)


def _shape(findings: list) -> Counter:
    return Counter((f.code, f.path, f.role or "", f.severity) for f in findings)


def run(paths: list, options, config: Optional[str], select, unsafe: bool = False) -> FixRun:
    """Lint, fix in memory until nothing is left to fix, and return the final state.

    ``select(result) -> findings`` is the CLI's view of the findings (after
    rule selection and suppressions); only their fixes are applied.
    """
    from pdlint.discover import repo_root
    from pdlint.lint import run as lint
    overlay: dict = {}
    state = FixRun(None)
    lints = 0

    def relint():
        nonlocal lints
        lints += 1
        res = lint(paths, replace(options, overlay=dict(overlay)), config)
        return res, select(res)

    result, findings = relint()
    for path, src in result.sources.items():
        state.original.setdefault(path, src.text)
    disproven: set = set()  # fixes a re-lint refuted: not tried again

    def attempt(group: list) -> bool:
        nonlocal result, findings
        new = _apply(group, _texts(result), result)
        if new is None:
            return False
        saved = dict(overlay)
        overlay.update(new)
        res, found = relint()
        if _proven(group, findings, found):
            result, findings = res, found
            return True
        overlay.clear()
        overlay.update(saved)
        return False

    roots: dict = {}
    refusals: dict = {}

    def writable(fx: Fix) -> bool:
        for e in fx.edits:
            if e.path not in refusals:
                src = result.sources.get(e.path)
                if src is None or not src.abspath:
                    refusals[e.path] = "it was not read from a file"
                else:
                    abspath = os.path.abspath(src.abspath)
                    root = repo_root(abspath, roots) or options.cwd
                    refusals[e.path] = _unsafe_target(abspath, root)
                    if refusals[e.path] is None:  # refused here, not at writing: --diff shows what --fix writes
                        form = _disk_form(abspath, root)
                        if isinstance(form, str):
                            refusals[e.path] = form
                        else:
                            state.forms[e.path] = form
            if refusals[e.path] is not None:
                note = f"{e.path}: not fixed: {refusals[e.path]}"
                if note not in state.problems:
                    state.problems.append(note)
                return False
        return True

    for _ in range(MAX_PASSES):
        planner = Planner(result.launches, options.cwd)
        plans = []
        for f in findings:
            fx = planner.plan(f)
            if fx is not None and (fx.applicability == SAFE or unsafe) and (_key(f), fx.message) not in disproven \
                    and writable(fx):
                plans.append((f, fx))
        chosen = _compatible(plans)
        if not chosen or lints >= MAX_LINTS:
            break
        if attempt(chosen):
            state.applied += chosen
            continue
        # the pass as a whole is refuted: find the fixes that hold on their own (one kept, then re-plan)
        kept = False
        for one in chosen:
            if lints >= MAX_LINTS:
                break
            if attempt([one]):
                state.applied.append(one)
                kept = True
                break
            disproven.add((_key(one[0]), one[1].message))
        if not kept:
            break
    for path, src in result.sources.items():
        state.original.setdefault(path, src.text)
        state.fixed[path] = src.text
    state.result = result
    state.findings = findings
    if not unsafe:
        planner = Planner(result.launches, options.cwd)
        for f in findings:
            fx = planner.plan(f) if f.autofix is not None else None
            if fx is not None and fx.applicability != SAFE:
                state.unsafe_left += 1
    return state


def _texts(result) -> dict:
    return {p: s.text for p, s in result.sources.items()}


def _compatible(plans: list) -> list:
    """The fixes of one pass: in finding order, each whose edits do not touch another's (identical edits are
    shared); the rest wait for the next pass."""
    chosen, taken = [], []
    for f, fx in plans:
        ok = True
        for e in fx.edits:
            for t in taken:
                if e == t:
                    continue
                if e.path == t.path and _overlapping([e, t]):
                    ok = False
                    break
            if not ok:
                break
        if ok:
            chosen.append((f, fx))
            taken += [e for e in fx.edits if e not in taken]
    return chosen


def _apply(chosen: list, texts: dict, result) -> Optional[dict]:
    """abspath -> new text for the files the chosen fixes edit; None when one cannot be edited."""
    per_file: dict = {}
    for _, fx in chosen:
        for e in fx.edits:
            per_file.setdefault(e.path, [])
            if e not in per_file[e.path]:
                per_file[e.path].append(e)
    out = {}
    for path, es in per_file.items():
        src = result.sources.get(path)
        if src is None or not src.abspath or path not in texts:
            return None
        new = E.apply(texts[path], es)
        if E.kind_of(path) == "yaml" and not E.yaml_valid(new):
            return None
        out[os.path.abspath(src.abspath)] = new
    return out


def _proven(chosen: list, before: list, after: list) -> bool:
    """The re-lint shows every chosen finding gone and nothing new (by rule, file and role)."""
    b, a = _shape(before), _shape(after)
    if any(a[k] > b[k] for k in a):
        return False
    left = Counter(_key(f) for f in after)
    was = Counter(_key(f) for f in before)
    gone = Counter(_key(f) for f, _ in chosen)
    return all(left[k] <= was[k] - n for k, n in gone.items())


# ---------------------------------------------------------------------------
# Output: diff, write
# ---------------------------------------------------------------------------

def diff(state: FixRun) -> str:
    out = []
    for path in state.changed:
        bom, eol = state.forms.get(path, (False, "\n"))
        old, new = (_on_disk(t, bom, eol) for t in (state.original[path], state.fixed[path]))
        name = esc.path(path)  # headers escaped; the body is the files' own lines, so that the diff applies
        lines = difflib.unified_diff(_lines(old), _lines(new), f"a/{name}", f"b/{name}")
        out.extend(lines)
    return "".join(out)


def _on_disk(text: str, bom: bool, eol: str) -> str:
    """A text as its file holds it: the BOM and line ends pdlint's reading dropped, put back."""
    return ("\ufeff" if bom else "") + (text.replace("\n", eol) if eol != "\n" else text)


def _lines(text: str) -> list:
    """The lines of a text, each with its line end (split at LF only: ``splitlines`` also ends a line
    at a form feed or U+2028, which ``patch`` does not)."""
    lines = [line + "\n" for line in text.split("\n")]
    if lines[-1] == "\n":
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1] + "\n\\ No newline at end of file\n"
    return lines


def _disk_form(abspath: str, root: str):
    """(BOM?, line end) of the file as it is on disk, or why pdlint will not write it."""
    from pdlint.safeio import Boundary, Refused
    try:
        raw = Boundary(root).read(abspath, root)
    except Refused as e:
        return f"cannot read it again: {e.reason}"
    return _form_of(raw)


def _form_of(raw: bytes):
    bom = raw.startswith(b"\xef\xbb\xbf")
    crlf = raw.count(b"\r\n")
    if crlf and crlf == raw.count(b"\n") == raw.count(b"\r"):
        return bom, "\r\n"
    if b"\r" not in raw:
        return bom, "\n"
    return "it mixes line endings (LF, CRLF or CR): pdlint writes only files with one kind"


def write(state: FixRun, cwd: str) -> list:
    """Write the fixed files; returns the display paths written.  Refusals are
    added to ``state.problems``."""
    from pdlint.discover import repo_root
    written = []
    roots: dict = {}
    for path in state.changed:
        src = state.result.sources.get(path)
        abspath = os.path.abspath(src.abspath if src is not None and src.abspath else os.path.join(cwd, path))
        root = repo_root(abspath, roots) or cwd
        reason = _unsafe_target(abspath, root)
        if reason is None:
            reason = _write_one(abspath, state.original[path], state.fixed[path], root)
        if reason is None:
            written.append(path)
        else:
            state.problems.append(f"{path}: not fixed: {reason}")
    return written


def _unsafe_target(abspath: str, root: str) -> Optional[str]:
    real_root = os.path.realpath(root)
    if os.path.realpath(abspath) != abspath and os.path.realpath(os.path.dirname(abspath)) != \
            os.path.dirname(abspath) or os.path.islink(abspath):
        return "it is reached through a symbolic link"
    real = os.path.realpath(abspath)
    if not real.startswith(real_root + os.sep):
        return "it is outside the repository"
    rel = os.path.relpath(abspath, root)
    d = root
    for part in rel.split(os.sep)[:-1]:
        d = os.path.join(d, part)
        if os.path.islink(d):
            return "it is reached through a symbolic link"
    if not os.path.isfile(abspath):
        return "it is not a regular file"
    return None


def _write_one(abspath: str, original: str, fixed: str, root: Optional[str] = None) -> Optional[str]:
    from pdlint.safeio import Boundary, Refused
    try:  # read again as the extract stage read it: inside the repository, a regular file, bounded
        raw = Boundary(root or os.path.dirname(abspath)).read(abspath, root)
    except Refused as e:
        return f"cannot read it again: {e.reason}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "it changed since pdlint read it"
    form = _form_of(raw)
    if isinstance(form, str):
        return form
    bom, eol = form
    if _on_disk(original, bom, eol) != text:
        return "it changed since pdlint read it"
    data = _on_disk(fixed, bom, eol).encode("utf-8")
    mode = os.stat(abspath).st_mode
    try:
        replace_file(abspath, data, mode & 0o7777, ".pdlint-fix-")
    except OSError as e:
        return f"cannot write it: {e.strerror or e}"
    return None


def replace_file(abspath: str, data: bytes, mode: int, prefix: str = ".pdlint-") -> None:
    """Write ``data`` to a temporary file beside ``abspath`` and rename it into place (a reader never
    sees half a file; a symbolic link at ``abspath`` is replaced, not followed); raises OSError."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=os.path.dirname(abspath))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, abspath)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
