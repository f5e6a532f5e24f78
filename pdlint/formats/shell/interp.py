"""The evaluator: runs a parsed script over a set of paths and records every
simple command it would run.

Evaluation is a walk over the tree-sitter tree with a list of *paths*
(:class:`~pdlint.formats.shell.state.State`).  A statement maps each path to
one or more paths (``Out``: state + exit status); a condition whose value is
not known at lint time splits the path in two, each arm with the variable
bindings the condition implies.  Paths that end up identical are merged.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Optional

from pdlint import lazyre
from pdlint.formats.shell import ShellHeredoc
from pdlint.launchers import PASS_THROUGH, program_at
from pdlint.text import EMPTY, TStr

from . import syntax
from .builtins import MAX_OUTPUTS, Builtins, filter_text, printed_texts
from .conditions import Conditions, bind
from .jobs import KILLERS, checks_only, job_pid, killed, listed, piped_kill
from .joins import Joins
from .tails import TAIL, Tails
from .control import Control, all_exit, unassumed
from .envruns import EnvVariants
from .matching import Budget
from .state import CWD, INTEGER, NAMEREF, Ctx, FuncDef, Out, State, Var, tstr_key
from .words import Words, computed, join_with

MAX_NESTING = 50
MAX_STEPS = 100_000
MAX_PARSE_REPORTS = 5
#: in the report of the branch-path limit, and in no other (a caller may hold it back: ``extract``)
PATHS_LIMIT = " branch paths; only the first "
#: the limits that cost nothing in a function the script never calls that cannot start a launch (Interpreter.limit)
_QUIET_UNCALLED = frozenset({"paths", "expansion"})


#: a bash named-descriptor redirection's word (`{name}` of `exec {name}>file`)
_NAMED_FD = lazyre.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}\Z")



#: words a launch the shell spells from its variables keeps (an engine's name, a launcher's module, a PD setting)
_BUILT_LAUNCH_WORDS = lazyre.compile(r"launch_server|serve\b|sglang|vllm|trtllm|dynamo|disagg|kv.role|kv.transfer", re.I)
#: a Go / Jinja template action left in shell text (what another tool fills in)
_TEMPLATE_ACTION = lazyre.compile(r"\{\{[^{}\n]{0,200}?\}\}")
#: what bash says of a quote it never saw closed (bash -n, its message without the `bash: line N:` prefix)
_UNEXPECTED_EOF = "unexpected EOF while looking for matching"

class LimitReached(Exception):
    """Raised to stop the evaluation when a global budget is exhausted (``quiet``: in a function the script
    never calls that cannot start a launch: only that function's evaluation stops,
    :meth:`Control.evaluate_uncalled`)."""

    def __init__(self, kind: str, quiet: bool = False):
        super().__init__(kind)
        self.quiet = quiet


def _as_written(text: str) -> str:
    """``text`` in quotes as the file writes it: ``') \\ -'`` read ``') \\\\ -'`` in Python's repr (field test rw31/a
    item 4); a character that is not printable keeps its escape, the quotes are ones ``text`` does not hold."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    q = "'" if "'" not in text else '"' if '"' not in text else "`"
    return f"{q}{shown}{q}"


def _killer_words(words: list) -> list:
    """``kill ...`` / ``pkill ...`` / ``killall ...`` / ``fuser ...``, also behind the wrappers pdlint follows
    (``sudo -E kill ...``, ``timeout 5 pkill ...``); [] for any other command."""
    j = program_at([w.text for w in words], 0)
    return words[j:] if words[j].text in KILLERS else []


class Interpreter(Words, Conditions, Control, Builtins, Joins, Tails, EnvVariants):
    """Evaluates one script (see :func:`pdlint.formats.shell.shell_commands`)."""

    def __init__(self, ctx, command_type):
        self.ctx = ctx
        self.command_type = command_type
        self.commands: list = []
        self._seen: dict = {}  # words (text + origins) -> commands
        self._seen_ids: dict = {}  # ids of the word objects -> commands
        self.unit: Optional[syntax.Unit] = None
        self.top: Optional[syntax.Unit] = None
        self.anchor = 0
        self.depth = 0
        self.nest = 0
        self.steps = 0
        self.max_steps = ctx.max_steps if ctx.max_steps is not None else MAX_STEPS
        self.expanded = 0
        self.bg = 0
        self._started: Optional[list] = None  # commands a background statement being evaluated starts
        # what the command being evaluated reads on its standard input (ShellCommand.stdin): a pipeline's earlier
        # stage, a `< FILE`; and the commands a pipeline stage being evaluated runs (exec_pipeline)
        self.stdin: tuple = ()
        self._stage_log: Optional[list] = None
        self._serials: dict = {}  # id(State.jobs) -> (that tuple, serials of its commands): _started_serials
        self.reported: set = set()
        self.defined: dict = {}  # FuncDef.key -> (FuncDef, State at definition)
        self.called: set = set()
        self.active_calls: list = []  # FuncDef.key of the functions being evaluated (innermost last)
        self.uncalled = False  # evaluating a function the script never calls
        self.containers: dict = {}  # container name -> image of the `docker run --name` commands run so far
        self.container_runs: dict = {}  # container name -> the words of that `docker run` (launchers.container_run)
        self.uncalled_fd: Optional[FuncDef] = None  # that function (Control.evaluate_uncalled)
        self.uncalled_memo: dict = {}  # FuncDef.key -> can a limit in it stay quiet (uncalled_quiet)
        self.overlap_memo: dict = {}  # (id(unit), start byte) -> Joins.overlapping
        self.units: dict = {}  # id(SourceFile) -> Unit
        self.sourcing: list = []  # ids of the files being sourced (innermost last)
        self.initial: dict = {}  # name -> Var given by the caller's env
        self.capture_unk: list = []
        self.static_cache: dict = {}  # (word, Var objects it reads) -> expansion
        self.ref_cache: dict = {}  # word -> the variables it reads, or a "not pure" marker
        self.match_budget = Budget()  # steps of every glob / =~ match of the script
        self.keepalive: list = []
        self.heredocs_read: set = set()  # (id(unit), start) of the here-documents recorded
        self.heredocs_accepted: dict = {}  # (id(unit), start) -> what ctx.heredoc_filter said
        self.heredoc_keys: set = set()  # (text key, role hint) of those recorded
        self.reads: object = {}  # variable reads of the units parsed so far (Joins.reads_index)
        self.reads_done = 0  # how many units of keepalive are in it
        self.relevance: dict = {}  # name -> can its value reach a launch (Joins.launch_relevant)
        self.job_launches: dict = {}  # id(job) -> (job, does it start a launch) (Joins.launch_jobs)
        self.bodies: Optional[tuple] = None  # (units seen, the functions they define) (Joins.function_bodies)
        self.tail_frames: list = []  # the statement lists being run, innermost last (Tails)
        self.tail_memo: dict = {}  # statements and lists -> can they start a launch (Tails.tail_static)
        self.tail_defs: Optional[int] = None  # units seen when tail_memo was last valid (Tails.tail_functions)
        self.env_spans: set = set()  # the defaults taken for variables with no known value (EnvVariants)
        self.env_pending: list = []  # values of those noted by the conditions being decided (EnvVariants)
        self.env_tested: list = []  # the environment-defaulted variables the conditions compared (EnvVariants)
        self.env_outer = 0  # enclosing conditions that judge the values noted (an `if`'s, a list's left part)
        self.sub_forks: Optional[list] = None  # substitutions with several outputs in the statement (per_output)
        self.sub_pick: dict = {}  # (id(unit), start) of such a substitution -> the output this run takes
        self.nested_out: Optional[tuple] = None  # what the last `sh -c` child printed, when known (nested_shell)
        self.xargs_input: Optional[TStr] = None  # what the `echo`/`printf` before `| xargs ...` writes, when known

    # -- driver -----------------------------------------------------------------
    def run(self, script: TStr, env: Optional[dict], positional: Optional[list],
            bound: Optional[dict] = None) -> list:
        st = State()
        for name, value in (env or {}).items():
            var = Var(value)
            st.vars[name] = var
            st.exported[name] = True
            self.initial[name] = var
        if positional is not None:
            st.positional = tuple(Var(t) for t in positional)
        elif bound:
            st.pos_bind = {i: Var(t) for i, t in bound.items()}
        unit = self.parse(script, top=True, kind=self.ctx.script_kind)
        self.top = self.unit = unit
        try:
            outs = self.run_block(unit.root, st, tail=True)
            for o in outs:
                if o.st.flow == TAIL:
                    o.st.flow = None  # ended where nothing after could start a launch: as at the script's end
            self.evaluate_uncalled(outs)
        except LimitReached:
            self.unreached_heredocs()
        except RecursionError:
            self.limit("recursion", "shell constructs nest too deeply; evaluation stopped", abort=False)
            self.unreached_heredocs()
        return self.commands

    def parse(self, tstr: TStr, top: bool = False, kind: str = "script") -> syntax.Unit:
        unit = syntax.Unit(tstr, top, kind)
        self.keepalive.append(unit)  # ids of units key caches: keep every unit alive
        n = 0
        for a, b in unit.bad_subs[:MAX_PARSE_REPORTS]:
            word = unit.text[a:b]
            if word.startswith(("${$", "${!$")):  # a `$` too many: bash refuses the command, it does not run
                at = word.index("$", 2)
                self.ctx.report("PD-SHELL-PARSE", f"shell syntax error: bad substitution {word!r}: bash stops the "
                                f"command holding it with \"bad substitution\" and does not run it (did you mean "
                                f"'{word[:at] + word[at + 1:]}'?) ({kind})", tstr, a)
            else:
                self.ctx.report("PD-SHELL-PARSE", f"shell syntax error: bad substitution {word!r}"
                                f" (a template placeholder? its value is unknown) ({kind})", tstr, a)
            n += 1
        errors = unit.arith_errors + [(e, o) for e, o in syntax.errors(unit.root, _unwritten(unit, tstr))
                                      if not (syntax.arithmetic(e) and syntax.arithmetic_readable(unit, e))]
        from pdlint.formats.shell.bashparse import bash_verdict
        ok, said = None, ""  # what bash said of the text, when asked
        if errors and not unit.bad_subs and not any(syntax.arithmetic(e) for e, _ in errors):
            ok, said = bash_verdict(unit.text)
            if ok:
                errors = []  # valid bash that tree-sitter-bash does not read (pdlint.formats.shell.bashparse)
        unclosed = syntax.unclosed_quote(unit) if errors else None
        if unclosed is not None and ok is None and not said:
            # (asked here too: `${a.b}` and arithmetic fail only when bash expands them, `bash -n` reads past them)
            ok, said = bash_verdict(unit.text)
        if unclosed is not None and (ok or said and not said.startswith(_UNEXPECTED_EOF)):
            unclosed = None  # bash reads the quotes otherwise, or stops at another error first
        if unclosed is not None and not top and kind != "script" and \
                any(_in_opaque(tstr, unit.char(b)) for b in (unclosed.stray, unclosed.open)):
            unclosed = None  # a quote of a value pdlint stands in for (as for the errors below)
        if unclosed is not None:
            # bash runs nothing from the statement holding the quote on (field round rw31/a problem 3); the
            # errors after the quote are the wrong pairs it makes, not errors of their own
            unit.cut = unclosed.cut
            key = (unclosed.node.start_byte, unclosed.node.end_byte, unclosed.node.type)
            errors = [(e, o) for e, o in errors if o < unclosed.stray and (e.start_byte, e.end_byte, e.type) != key]
            self._report_unclosed(unit, tstr, kind, unclosed, said)
            n += 1
        for err, offset in errors:
            if n >= MAX_PARSE_REPORTS:
                break
            i = unit.char(offset)
            if not top and kind != "script" and _in_opaque(tstr, i):
                # a string the script builds and runs (`ssh HOST "$cmd"`) whose error is in a value pdlint stands in
                # for (`<what the loop at line 6 adds to LAYER>`): the script's own text is fine (bash -n), the
                # stand-in is not shell (littlemex's control_experiment.sh, field test rw16/m)
                continue
            n += 1
            if err.is_missing:
                msg = f"shell syntax error: missing {err.type!r}"
            else:
                # (the message quotes what a file says, not what pdlint added)
                added = _added_after(tstr, i, unit.char(err.end_byte))
                snippet = " ".join(unit.text[i:added].split()[:4])[:40]
                msg = f"shell syntax error: cannot parse {_as_written(snippet)}" if snippet else "shell syntax error"
                # (the action in what failed to parse, near its start: an error node can run to the end of the
                # script, and a `docker info --format '{{.SecurityOptions}}'` 1,600 lines on is not its cause -
                # field compare, av/harbor's harbor.sh)
                end = min(unit.char(err.end_byte), i + 300)
                stop = unit.text.find("\n", max(i, end))
                act = _TEMPLATE_ACTION.search(unit.text, i, stop if stop >= 0 else len(unit.text))
                if act is not None:  # (rw26/a: a controller's `{{ or .X 1 }}` inside `$(( ))`)
                    msg += (f": the template action {act.group(0)[:60]!r} in it is filled in by another tool (a "
                            f"controller, Helm's tpl) before the shell runs")
            self.ctx.report("PD-SHELL-PARSE", msg + f" ({kind})", tstr, i)
        return unit

    def _report_unclosed(self, unit: syntax.Unit, tstr: TStr, kind: str, q: "syntax.Unclosed", said: str) -> None:
        """PD009 for a quote the text never closes, at the quote to delete (:class:`syntax.Unclosed`), and the
        text bash does not run (``PD-SHELL-CUT``: the launch text there is not checked, PD020).  An error when
        bash refuses the text and every character from the statement on is written in a file (a value pdlint
        stands in for, or text it adds, as around a Makefile recipe line, may be what holds the quote)."""
        stray, opened, cut = unit.char(q.stray), unit.char(q.open), unit.char(q.cut)
        where = tstr.real_origin_at(stray) if tstr.pieces else None
        at_cut = tstr.real_origin_at(cut) if tstr.pieces else None
        name = q.quote if q.quote != "`" else "backquote"
        bash = f" (bash -n: \"{said}\")" if said else ""
        if q.stray != q.open and tstr.pieces:
            o = tstr.real_origin_at(opened)
            other = f"line {o.line} column {o.column}" if where is None or o.path == where.path else \
                f"{o.path}:{o.line}:{o.column}"
            what = (f"this {tstr.text[stray]} makes every quote after it pair with the wrong one, and the {name} at "
                    f"{other} is left open{bash}: delete or close this one")
        else:
            what = f"this {name} is never closed{bash}"
        since = f" from the command at line {at_cut.line} on" if at_cut is not None else ""
        certain = said.startswith(_UNEXPECTED_EOF) and _written(tstr, cut)
        msg = f"shell syntax error: unterminated quote: {what}; bash refuses the {kind} and runs nothing{since}"
        self.ctx.report("PD-SHELL-PARSE-ERROR" if certain else "PD-SHELL-PARSE", msg + f" ({kind})", tstr, stray)
        loc = f"line {where.line} column {where.column}" if where is not None else "the quote"
        self.ctx.report("PD-SHELL-CUT", (
            f"bash never runs it: the {name} at {loc} is never closed (an unterminated quote, PD009), so bash "
            f"refuses the {kind}{since}"), tstr, cut)

    @contextmanager
    def in_unit(self, unit: syntax.Unit):
        saved = self.unit
        self.unit = unit
        try:
            yield
        finally:
            self.unit = saved

    def limit(self, kind: str, message: str, abort: bool = False) -> None:
        """Report a PD-SHELL-LIMIT (once per kind); ``abort`` stops everything.  The branch-path and the
        expansion-size limit hit in a function the script never calls that cannot start a launch
        (:meth:`Joins.uncalled_inert`) are not reported, and stop only that function's evaluation: what it cuts
        reaches nothing."""
        quiet = kind in _QUIET_UNCALLED and self.uncalled_fd is not None and self.uncalled_quiet()
        if quiet:
            if abort:
                raise LimitReached(kind, quiet=True)
            return
        if kind not in self.reported:
            self.reported.add(kind)
            where = self.top.tstr if self.top is not None else EMPTY
            self.ctx.limit_serials.append(len(self.commands))
            # (an evaluation stopped altogether is reported as such: what follows was not evaluated)
            self.ctx.report("PD-SHELL-ABORT" if abort else "PD-SHELL-LIMIT", message, where,
                            min(self.anchor, max(len(where.text) - 1, 0)))
        if abort:
            raise LimitReached(kind)

    def uncalled_quiet(self) -> bool:
        """:meth:`Joins.uncalled_inert` of the function the script never calls being evaluated (memoised)."""
        fd = self.uncalled_fd
        got = self.uncalled_memo.get(fd.key)
        if got is None:
            got = self.uncalled_memo[fd.key] = self.uncalled_inert(fd.unit, fd.body)
        return got

    def spend(self, n: int) -> None:
        """Charge ``n`` expanded characters to the script's budget."""
        self.expanded += n
        if self.expanded > self.ctx.max_expansion:
            self.limit("expansion", f"expansions produced more than {self.ctx.max_expansion} characters;"
                                    " evaluation stopped", abort=True)

    def deeper(self, what: str, quiet: bool = False) -> bool:
        """False (and a report, unless ``quiet``) when another nested eval/source/call would exceed the depth
        limit."""
        if self.depth >= self.ctx.max_eval_depth:
            if not quiet:
                self.limit("depth", f"{what} nested deeper than {self.ctx.max_eval_depth} levels was not evaluated")
            return False
        return True

    # -- statement lists --------------------------------------------------------
    def statements(self, node) -> list:
        """Statement children of a container, each with its ``&`` flag.  Of a text with an unterminated quote,
        the top-level statements before the one holding it (``Unit.cut``): bash runs nothing from there on."""
        kids = node.children
        out = []
        cut = self.unit.cut if self.unit is not None and node.type == "program" else None
        for i, child in enumerate(kids):
            if cut is not None and child.start_byte >= cut:
                break
            if cut is not None and child.type == "ERROR" and child.end_byte > cut:
                # (an error node that starts with complete statements, the quote in a later one: those run,
                # syntax._after_complete_statements - a Makefile recipe's earlier lines)
                ks = child.children
                out += [(c, k + 1 < len(ks) and ks[k + 1].type == "&") for k, c in enumerate(ks)
                        if c.is_named and c.end_byte <= cut and c.type in syntax.COMPLETE]
                break
            if not child.is_named or child.type in ("comment", "heredoc_body"):
                continue
            bg = i + 1 < len(kids) and kids[i + 1].type == "&"
            out.append((child, bg))
        return out

    def run_block(self, node, st: State, tail: bool = False) -> list:
        return self.run_seq(self.statements(node), st, tail)

    def run_seq(self, items: list, st: State, tail: bool = False) -> list:
        """Run statements in order; a statement that split a path into copies the rest of the
        script cannot tell apart gives one path again (:meth:`Joins.join_split`).  ``tail``: a list the
        evaluation may end in when nothing after can start a launch (:mod:`.tails`)."""
        outs = [Out(st)]
        last = len(items) - 1
        frames = self.tail_frames
        tail = tail and self.ctx.launch_text is not None and None not in frames
        start = self.tail_start(self.unit, items) if tail else len(items)
        frames.append(None)
        try:
            for i, (node, bg) in enumerate(items):
                if i >= start:
                    frames.pop()
                    inert = self.tail_inert(items, i, outs)
                    frames.append(None)
                    if inert:
                        return self.tail_end(outs)
                if tail:
                    frames[-1] = (self.unit, items, i + 1, node)
                nxt = []
                for o in outs:
                    if o.st.flow:
                        nxt.append(o)
                    else:
                        split = self.exec_stmt(node, o.st, bg)
                        nxt.extend(self.join_split(split, node, i == last) if len(split) > 1 else split)
                outs = self.merge(nxt, node)
        finally:
            frames.pop()
        return outs

    def merge(self, outs: list, node=None) -> list:
        """Drop duplicate running paths; keep at most ``max_paths`` of them, after joining those that
        differ in nothing a launch reads (:meth:`Joins.widen`, when ``node``, the statement that made
        them, is given).  Paths that stopped (``exit``, ``return``...) pass through unmerged."""
        if len(outs) <= 1:
            return outs
        n_running = sum(1 for o in outs if not o.st.flow)
        if n_running <= 1 and len(outs) - 1 <= 4 * self.ctx.max_paths:
            return outs  # one running path (the others stopped): nothing to merge
        # twins are same() states, whose fingerprints are equal: hashing every variable of every path pays
        # only with more than two of them (two are compared at once)
        fine = n_running > 2
        kept: list = []
        buckets: dict = {}
        running: list = []
        stopped = 0
        for o in outs:
            if o.st.flow:
                stopped += 1
                if stopped <= 4 * self.ctx.max_paths:
                    kept.append(o)
                continue
            bucket = buckets.setdefault((o.status, o.st.fingerprint()) if fine else o.status, [])
            twin = next((k for k in bucket if k.st.same(o.st)), None)
            if twin is not None:
                twin.st.absorb(o.st)
                continue
            bucket.append(o)
            running.append(o)
        if len(running) > self.ctx.max_paths and node is not None:
            running = self.widen(running, node)
        if len(running) > self.ctx.max_paths:
            self.limit("paths", f"more than {self.ctx.max_paths}{PATHS_LIMIT}{self.ctx.max_paths} were followed")
            running = running[:self.ctx.max_paths]
        if not stopped:
            return running
        chosen = set(map(id, running + kept))
        return [o for o in outs if id(o) in chosen]

    def run_arm(self, items: list, st: State, entry: Ctx, keep: bool = True, tail: bool = False) -> list:
        """Run a branch arm or loop body under the context ``entry``."""
        depth = st.push_ctx(entry)
        outs = self.run_seq(items, st, tail)
        for o in outs:
            o.st.close_ctx(depth, keep)
        return outs

    # -- statements -------------------------------------------------------------
    def exec_stmt(self, node, st: State, bg: bool = False) -> list:
        self.steps += 1
        if self.steps > self.max_steps:
            self.limit("steps", f"more than {self.max_steps} statements evaluated; evaluation stopped", abort=True)
        if self.unit.top:
            self.anchor = self.unit.start(node)
        if bg:
            return self.background(node, st)
        handler = _HANDLERS.get(node.type)
        if handler is None:
            return [Out(st, None)]
        self.nest += 1
        try:
            if self.nest > MAX_NESTING:
                self.limit("nesting", f"constructs nested deeper than {MAX_NESTING} levels were not evaluated")
                st.out_bad = st.out is not None  # inside $(...): the output is not known
                return [Out(st, None)]
            return handler(self, node, st)
        finally:
            self.nest -= 1

    def background(self, node, st: State) -> list:
        sub = st.fork()
        inner = node.child_by_field_name("body") if node.type == "redirected_statement" else node
        if inner is None or inner.type != "command":
            sub.push_ctx(Ctx("background job"))
        self.bg += 1
        outer, self._started = self._started, []
        self.tail_frames.append(None)  # a job runs beside the script: what the script runs next is not its rest
        try:
            self.exec_stmt(node, sub)
        finally:
            self.tail_frames.pop()
            self.bg -= 1
            started, self._started = self._started, outer
        if outer is not None:
            outer += started
        if started:
            # `$!`: which commands the job runs (a placeholder value `kill "$!"` / `kill $PID` is read back from)
            before = self._started_serials(st)
            st.jobs = st.jobs + (tuple(started),)
            self._serials[id(st.jobs)] = (st.jobs, before | {c.serial for c in started})
            st.vars["!"] = Var(TStr.synthetic(job_pid(started), "<job>", opaque=True))
        return [Out(st, True)]

    def _started_serials(self, st) -> frozenset:
        """Serials of the background commands started on the path ``st`` is: made as each job starts, from those
        before it (a set built from all jobs at every command was quadratic: 1 s of 2,000 background launches,
        rw32/h P5's script)."""
        hit = self._serials.get(id(st.jobs))
        if hit is not None and hit[0] is st.jobs:
            return hit[1]
        serials = frozenset(c.serial for job in st.jobs for c in job)
        self._serials[id(st.jobs)] = (st.jobs, serials)
        return serials

    def exec_command(self, node, st: State, extra: tuple = ()) -> list:
        """``extra``: argument words written after a redirection (:meth:`exec_redirected`)."""
        unk: set = set()
        prefix = [c for c in node.named_children if c.type == "variable_assignment"]
        name = node.child_by_field_name("name")
        if name is None:
            return self.assign_all(prefix, st)
        args = syntax.field_children(node, "argument")
        cut = None
        if self.unit.root.has_error and syntax.in_error_region(node):
            args, cut = syntax.first_line_words(self.unit, name, args)
        words = self.expand_word(name, st, unk)
        func = st.funcs.get(words[0].text) if len(words) == 1 else None
        if func is None:
            words += self.expand_args(args, st, unk)
            empty_unknown = None
        else:  # a function's arguments: which unknown variables went into an empty one (`f "$MODEL_NAME"`)
            empty_unknown = {}
            for arg in args:
                u: set = set()
                got = self.expand_word(arg, st, u)
                unk |= u
                if u:
                    empty_unknown.update((len(words) + k, frozenset(u)) for k, w in enumerate(got) if not w.text)
                words += got
        if cut is not None:
            words += self.expand_parts(cut, st, unk)
        words += self.expand_args(list(extra), st, unk)
        if not words:
            return self.assign_all(prefix, st)
        penv = self.prefix_env(prefix, st, unk)
        return self.run_words(words, st, unk, penv, node, empty_unknown)

    def prefix_env(self, prefix: list, st: State, unk: set) -> list:
        """``VAR=value cmd``: the assignments, in order (each sees the earlier ones)."""
        if not prefix:
            return []
        tmp = st.fork()
        out = []
        for node in prefix:
            res = self.assignment(node, tmp, unk)
            if res is None:
                continue
            name, var = res
            tmp.vars[name] = var
            if not var.is_array:
                out.append((name, var))
        return out

    def run_words(self, words: list, st: State, unk: set, penv: list, node, empty_unknown=None) -> list:
        """``empty_unknown``: {index of an empty argument word of a function call: the unknown variables it
        was made of}."""
        name = words[0].text
        if st.jobs and (name in KILLERS or name in PASS_THROUGH):
            kw = _killer_words(words)
            if kw:
                st.ended = st.ended | killed(kw[0].text, kw[1:], st.jobs)
                if kw[0].text == "kill":
                    st.ended = st.ended | self.substituted_pids(node, kw, st)
        func = st.funcs.get(name)
        if func is not None:
            return self.call_function(func, words, st, unk, penv, tail=self.tail_whole(node),
                                      empty_unknown=empty_unknown)
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, words, st, unk, penv, node)
        return self.external(words, st, unk, penv, node)

    def external(self, words: list, st: State, unk: set, penv: list, node) -> list:
        name = words[0].text
        if name == "xargs" and len(words) > 1 and st.out is None:
            words = self.xargs_words(words)
        if st.out is not None:
            if name in ("echo", "printf"):
                self.capture(words, st, unk)
                return [Out(st, True)]
            numbers = _seq_output(words) if name == "seq" else None
            if numbers is not None:  # `bs=($(seq 1 128))`: the numbers, one per line
                st.out = st.out + (numbers,)
                return [Out(st, True)]
            program = _located_program(words)
            if program is not None:  # `PY=$(command -v python3)`: the program, as the shell finds it on PATH
                st.out = st.out + (program + computed("\n", program),)
                return [Out(st, True)]
            if name == "cd":  # prints nothing
                _change_directory(words, st)
                return [Out(st, True)]
            cwd = st.vars.get("PWD") if name == "pwd" and len(words) == 1 else None
            if cwd is not None and isinstance(cwd.value, TStr) and cwd.value.text:
                # `ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)`: the directory as the script names it
                st.out = st.out + (cwd.value + computed("\n", words[0]),)
                return [Out(st, True)]
        captured, bad = st.out, st.out_bad
        if captured is not None and not _prints_nothing(words):
            st.out_bad = True
        if name == "cd":
            _change_directory(words, st)
        if name == "exec" and len(words) == 1:
            return [Out(st, True)]
        if name == "exec" and all(_NAMED_FD.match(w.text) for w in words[1:]):
            # `exec {lock_fd}>/tmp/x`: bash opens a descriptor and puts its number in lock_fd; the shell goes on
            # (tree-sitter leaves `{lock_fd}` a word: taken for a program, the rest of the script was lost, rw20/h)
            for w in words[1:]:
                st.vars[w.text[1:-1]] = Var(TStr.synthetic("10", "<fd>", opaque=True))
            return [Out(st, True)]
        cmd = self.emit(words, st, unk, penv, node)
        self.nested_out = None
        if self.nested_shell(words, st, penv) and cmd is not None:
            cmd.runs_shell = True
            if captured is not None and self.nested_out is not None:
                # `$(docker exec C bash -c "ls ... >/dev/null 2>&1")`: what the child shell prints
                st.out, st.out_bad = captured + self.nested_out, bad
        if name == "exec":
            st.flow = "exit"
        return [Out(st, True if name in ("echo", "printf") else None)]

    def emit(self, words: list, st: State, unk: set, penv: list, node):
        """Record a simple command (once per distinct words/origins/env); the
        command recorded (or the identical one recorded before)."""
        env: dict = {}
        for name in st.exported:
            var = st.vars.get(name)
            if var is not None and var is not self.initial.get(name) and isinstance(var.value, TStr):
                env[name] = var.value
        unknown = set(unk)
        for name, var in penv:
            env[name] = var.value
            unknown |= var.unknown
        start = self.unit.start(node) if (node is not None and self.unit.top) else self.anchor
        role = st.role_hint()
        # identical word objects (shared by paths through the expansion cache)
        # are found by identity; the stored commands keep them alive
        ids = tuple(map(id, words))
        candidates = self._seen_ids.get(ids)
        key = None
        if candidates is None:
            key = tuple(tstr_key(w) for w in words)
            candidates = self._seen.get(key, ())
        for seen in candidates:
            if _same_env(seen.env, env):
                if seen.role_hint != role:
                    seen.role_hint = None
                # (a job one path never started is not running there: a warm-up server a function starts and
                # kills after an early `return` guard, michael-amd/sglang-ci, field test rw25/b - it was the
                # intersection of the paths' ended jobs, so the path that skipped it made it overlap)
                started = self._started_serials(st)
                seen.started_before = seen.started_before | started | st.ended
                seen.running_before = seen.running_before | (started - st.ended)
                seen.ended_before = seen.started_before - seen.running_before
                if self._started is not None:
                    self._started.append(seen)
                if self.stdin:
                    seen.stdin = _merge_stdin(seen.stdin, self.stdin)
                if self._stage_log is not None:
                    self._stage_log.append(seen)
                return seen
        if len(self.commands) >= self.ctx.max_commands:
            self.limit("commands", f"more than {self.ctx.max_commands} commands; evaluation stopped", abort=True)
        started = self._started_serials(st)
        cmd = self.command_type(
            words=list(words), env=env, context=st.context_text(), role_hint=role, start=start,
            background=self.bg > 0, unset_vars=sorted(unknown), uncalled=self.uncalled, serial=len(self.commands),
            ended_before=st.ended, started_before=started | st.ended,
            running_before=started - st.ended, remote=any(c.remote for c in st.ctx),
            instances=tuple(c.text for c in st.ctx if c.instance),
            image=next((c.image for c in reversed(st.ctx) if c.image), "") or self._exec_image(words),
            container=next((c.container for c in reversed(st.ctx) if c.container), "") or self._container(words),
            stdin=self.stdin)
        if self._started is not None:
            self._started.append(cmd)
        if self._stage_log is not None:
            self._stage_log.append(cmd)
        if key is None:
            key = tuple(tstr_key(w) for w in words)
        self._seen.setdefault(key, []).append(cmd)
        self._seen_ids.setdefault(tuple(map(id, cmd.words)), []).append(cmd)
        self.commands.append(cmd)
        if _container_verb(words) in ("run", "create"):  # (`docker exec NAME ...` links to it)
            from pdlint.launchers import container_run, named_containers
            texts = [w.text for w in words]
            named = named_containers([texts])
            self.containers.update(named)
            for name in named:
                self.container_runs[name] = container_run(texts, {})
        return cmd

    def _container(self, words: list) -> str:
        """:func:`pdlint.launchers.container_run` of a command's words (``docker exec NAME vllm serve ...``)."""
        if _container_verb(words) is None:
            return ""
        from pdlint.launchers import container_run
        return container_run([w.text for w in words], self.container_runs)

    def _exec_image(self, words: list) -> str:
        """The image of the container a ``docker exec NAME COMMAND`` runs in, when this script started NAME
        (``docker run -d --name NAME IMAGE sleep infinity``; :attr:`containers`), else ``""``."""
        if not self.containers or _container_verb(words) != "exec":
            return ""
        from pdlint.launchers import exec_container_image
        return exec_container_image([w.text for w in words], self.containers) or ""

    # -- assignments ------------------------------------------------------------
    def assignment(self, node, st: State, unk: set, assoc: bool = False):
        """Evaluate a ``variable_assignment`` node: ``(name, Var)`` or None.  ``assoc``: the name is declared an
        associative array here (``declare -A``)."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        value_node = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        local: set = set()
        if value_node is not None and value_node.type == "array" and name_node.type == "variable_name":
            name = self.unit.source_text(name_node)
            old = st.vars.get(name)
            if assoc or (isinstance(old, Var) and old.is_assoc):
                var = self.assoc_items(value_node, st, local)
                unk |= local
                if append and isinstance(old, Var) and old.is_assoc and var.is_assoc:
                    var = _assoc_merge(old, var)
                return name, var
        if value_node is not None and value_node.type == "array":
            items = [c for c in value_node.named_children if c.type != "comment"]
            value = tuple(self.expand_args(items, st, local))
        else:
            value = self.expand_value(value_node, st, local)
        unk |= local
        if name_node.type == "subscript":
            var_node = name_node.child_by_field_name("name")
            index_node = name_node.child_by_field_name("index")
            if var_node is None:
                return None
            name = self.unit.source_text(var_node)
            index_text = self.unit.source_text(index_node) if index_node is not None else "0"
            return name, self.set_element(st, name, index_text, value, append, frozenset(local))
        name = self.unit.source_text(name_node)
        return name, self.combine(st, name, value, append, frozenset(local))

    def combine(self, st: State, name: str, value, append: bool, unknown: frozenset) -> Var:
        old = st.vars.get(st.resolve(name) or name if NAMEREF + name in st.vars else name)
        if not append or old is None or old.value is None:
            return Var(value, unknown)
        if isinstance(value, tuple):
            base = old.value if isinstance(old.value, tuple) else (old.value,)
            if old.idx is not None:  # (after the highest index, as bash appends)
                top = old.idx[-1] + 1 if old.idx else 0
                return Var(base + value, old.unknown | unknown, idx=old.idx + tuple(range(top, top + len(value))))
            return Var(base + value, old.unknown | unknown)
        if isinstance(old.value, tuple) and old.idx is not None and (not old.idx or old.idx[0] != 0):
            return Var((value,) + old.value, old.unknown | unknown, idx=(0,) + old.idx)  # (element 0 was unset)
        if isinstance(old.value, tuple):
            head = old.value[0] if old.value else EMPTY
            return Var((head + value,) + old.value[1:], old.unknown | unknown)
        return Var(old.value + value, old.unknown | unknown)

    def assoc_items(self, array_node, st: State, unk: set) -> Var:
        """``declare -A A=([k]=v ...)``: the associative array, its keys in the order written (a key set twice
        keeps its first place and its last value).  An item that is no ``[key]=value`` or whose key pdlint
        cannot see makes the whole array one it cannot read (an opaque placeholder, never a wrong value)."""
        keys: list = []
        values: list = []
        for item in array_node.named_children:
            if item.type == "comment":
                continue
            t = self.expand_value(item, st, unk)
            m = re.match(r"\[([^\]]*)\]\+?=", t.text)
            # (the key must be seen; a value with a part pdlint cannot see keeps its other words: field test
            # rw23/a, `["m"]="--port 30001 --chunked-prefill-size ${cps}"` hid every flag of the element)
            key = self.assoc_key(m.group(1), st) if m and not t[:m.end()].opaque else None
            if key is None:
                return Var(self.unit.tstr[self.unit.start(array_node):self.unit.char(array_node.end_byte)].as_opaque())
            if key in keys:
                values[keys.index(key)] = t[m.end():]
            else:
                keys.append(key)
                values.append(t[m.end():])
        return Var(tuple(values), frozenset(unk), tuple(keys))

    def set_element(self, st: State, name: str, index_text: str, value, append: bool, unknown) -> Var:
        """``A[i]=v``: the array after the assignment (``A[key]=v`` for an associative array)."""
        old = st.vars.get(st.resolve(name) or name if NAMEREF + name in st.vars else name)
        if old is not None and old.is_assoc:
            scalar = value if isinstance(value, TStr) else join_with(list(value), EMPTY)
            key = self.assoc_key(index_text, st)
            if key is None:  # a key pdlint cannot see: the array is no longer one it can read
                return Var(scalar.as_opaque(), old.unknown | unknown)
            one = Var((scalar,), frozenset(unknown), (key,))
            if append and old.item(key) is not None:
                one = Var((old.item(key) + scalar,), frozenset(unknown), (key,))
            return _assoc_merge(old, one)
        items = ()
        if old is not None and old.value is not None:
            items = old.value if isinstance(old.value, tuple) else (old.value,)
        scalar = value if isinstance(value, TStr) else join_with(list(value), EMPTY)
        index = self.arith_text(index_text, st, set(), scalar)
        indices = old.indices() if old is not None and old.value is not None else ()
        if index is not None and index < 0 and indices:
            index += indices[-1] + 1  # (counted from the end, as bash does)
        unknown = (old.unknown if old else frozenset()) | unknown
        if index is None or index < 0:
            if old is not None and old.idx is not None:  # (which item of an array with gaps: not known)
                return Var(tuple(t.as_opaque() for t in items + (scalar,)), unknown)
            return Var(items + (scalar,), unknown)
        if index in indices:
            at = indices.index(index)
            new = items[at] + scalar if append else scalar
            return Var(items[:at] + (new,) + items[at + 1:], unknown, idx=tuple(indices))
        # a new index: in order among the others, gaps kept (`X=(); X[5]=2`: one item, index 5; hostile-input
        # round rw27/h item P9: it was appended as item 0, ${X[5]} empty, a false SGL003)
        if any(t.opaque for t in items):  # (a placeholder stands for any number of items: where is index i?)
            return Var(items + (scalar,), unknown)
        at = sum(1 for k in indices if k < index)
        return Var(items[:at] + (scalar,) + items[at:], unknown,
                   idx=tuple(indices[:at]) + (index,) + tuple(indices[at:]))

    def per_output(self, node, st: State, run) -> list:
        """Run an assignment statement (``run(st)``); when a command substitution in it
        prints one of a few texts by a condition pdlint cannot decide (``x=$(f)``, f
        printing ``HF_HUB_OFFLINE=1 `` or nothing), run it again once per text, each on
        its own path, as for an ``if`` whose condition is not known.  A substitution
        with more possible outputs (:data:`MAX_OUTPUTS`) stays a placeholder."""
        text = self.unit.source_text(node)
        if "$(" not in text and "`" not in text:
            return run(st)
        before = st.fork()
        forks, self.sub_forks = self.sub_forks, []
        try:
            outs = run(st)
            found = self.sub_forks
        finally:
            self.sub_forks = forks
        if not found:
            return outs
        picks = [{}]
        for key, alternatives in found:
            picks = [{**p, key: alt} for p in picks for alt in alternatives]
            if len(picks) > MAX_OUTPUTS:
                return outs
        done = []
        for pick in picks:
            saved, self.sub_pick = self.sub_pick, {**self.sub_pick, **pick}
            try:
                outs = run(before.fork())
            finally:
                self.sub_pick = saved
            chosen = {key: alt[3] for key, alt in pick.items()}
            for o in outs:  # (the commands after it say which output they follow)
                for _, _, said, _ in pick.values():
                    o.st.push_ctx(Ctx(said, enclosing=False))
                o.st.picks = {**(o.st.picks or {}), **chosen}
            done.extend(outs)
        return done

    def assign_all(self, nodes: list, st: State) -> list:
        for node in nodes:
            res = self.assignment(node, st, set())
            if res is not None:
                var = res[1]
                if INTEGER + (st.resolve(res[0]) or res[0]) in st.vars:
                    var = self.integer_value(var, st, any(c.type == "+=" for c in node.children))
                st.assign(res[0], self.given_instead(res[0], var))
        return [Out(st, True)]

    def integer_value(self, var: Var, st: State, append: bool = False) -> Var:
        """The value a ``declare -i`` variable takes: its text evaluated as arithmetic (``1+1`` is 2; hostile-input
        round rw27/h item P8: read as the text ``1+1``, a false SGL005); a placeholder when pdlint cannot
        evaluate it (or for ``+=``, which adds)."""
        value = var.value
        if not isinstance(value, TStr):
            return var
        n = None if append or value.opaque else self.arith_text(value.text, st, set(), value)
        if n is None:
            return Var(value.as_opaque() if value.text else value, var.unknown)
        return Var(computed(str(n), value), var.unknown)

    def given_instead(self, name: str, var: Var) -> Var:
        """The user's value of ``name`` (ShellContext.given) where the script assigns it one pdlint cannot see."""
        if name not in self.ctx.given or name not in self.initial:
            return var
        v = var.value
        if isinstance(v, TStr) and v.pieces and all(p.opaque for p in v.pieces):
            return self.initial[name]
        return var

    def exec_assignment(self, node, st: State) -> list:
        return self.per_output(node, st, lambda s: self.assign_all([node], s))

    def exec_assignments(self, node, st: State) -> list:
        nodes = [c for c in node.named_children if c.type == "variable_assignment"]
        return self.per_output(node, st, lambda s: self.assign_all(nodes, s))

    def exec_declaration(self, node, st: State) -> list:
        return self.per_output(node, st, lambda s: self.declaration(node, s))

    def declaration(self, node, st: State) -> list:
        """``export``/``local``/``declare``/``typeset``/``readonly`` as parsed."""
        cmd = syntax.first_token(node) or "declare"
        flags: set = set()
        for child in node.named_children:
            if child.type == "word" and self.unit.source_text(child)[:1] in "-+":
                flags.add(self.unit.source_text(child))
                continue
            if child.type == "variable_assignment":
                res = self.assignment(child, st, set(), assoc=any(f.startswith("-") and "A" in f for f in flags))
                if res is not None:
                    self.declare(cmd, flags, res[0], res[1], st)
            elif child.type == "variable_name":
                self.declare(cmd, flags, self.unit.source_text(child), None, st)
            elif child.type != "comment":
                for word in self.expand_word(child, st, set()):
                    if word.opaque:
                        # `declare "$(python3 render.py)"`: names pdlint cannot see (Builtins.forget_shown)
                        self.forget_shown(node, self.unit.slice(node), [st])
                    self.declare_word(cmd, flags, word, st)
        return [Out(st, True)]

    def declare_word(self, cmd: str, flags: set, word: TStr, st: State) -> None:
        text = word.text
        if text[:1] in "-+":
            flags.add(text)
            return
        name, eq, _ = text.partition("=")
        append = name.endswith("+")
        name = name[:-1] if append else name
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return
        var = self.combine(st, name, word[len(name) + (2 if append else 1):], append, frozenset()) if eq else None
        self.declare(cmd, flags, name, var, st)

    def declare(self, cmd: str, flags: set, name: str, var: Optional[Var], st: State) -> None:
        letters = "".join(f[1:] for f in flags if f.startswith("-"))
        unexport = "n" in letters and cmd == "export"
        export = (cmd == "export" and not unexport) or "x" in letters
        local = cmd == "local" or (cmd in ("declare", "typeset") and st.frames and "g" not in letters)
        if "n" in letters and cmd != "export":
            # a nameref: the variable its value names (State.resolve); one pdlint cannot see reads as unknown
            if local:
                st.declare_local(NAMEREF + name)
            if var is not None:
                target = var.scalar()
                st.vars[NAMEREF + name] = Var(target if target is not None else EMPTY.as_opaque())
            return
        if local:
            st.declare_local(name)
        if "i" in letters and cmd != "export":
            if local:
                st.declare_local(INTEGER + name)
            st.vars[INTEGER + name] = Var(EMPTY)
            if var is not None:
                var = self.integer_value(var, st)
        if var is not None:
            st.assign(name, var, export=export)
        elif "A" in letters and cmd in ("declare", "typeset", "local") and \
                not (name in st.vars and st.vars[name].is_assoc and not local):
            st.vars[name] = Var((), keys=())  # `declare -A NAME`: an empty associative array
        elif local or (cmd in ("declare", "typeset") and name not in st.vars):
            st.vars[name] = Var(() if "a" in letters else None)
        if export:
            st.exported[name] = True
        if unexport:
            st.exported.pop(name, None)

    def exec_unset(self, node, st: State) -> list:
        words = []
        prev = None
        for child in node.named_children:
            got = self.expand_word(child, st, set())
            if prev is not None and prev.end_byte == child.start_byte and words and len(got) == 1 and \
                    self.unit.source_text(child).startswith("["):
                # `unset A[0]`: tree-sitter-bash reads the name and `[0]` as two words; bash, one
                words[-1] = words[-1] + got[0]
            else:
                words.extend(got)
            prev = child
        return self.unset_words(words, st)

    def unset_words(self, words: list, st: State) -> list:
        functions = False
        for w in words:
            text = w.text
            if text.startswith("-"):
                functions = "f" in text
                continue
            if functions:
                st.funcs.pop(text, None)
                continue
            m = _ELEMENT.fullmatch(text)
            if m is not None:
                self.unset_element(st, m.group(1), m.group(2), w)
                continue
            st.vars[text] = Var(None)
            st.exported.pop(text, None)
        return [Out(st, True)]

    def unset_element(self, st: State, name: str, sub: str, word: TStr) -> None:
        """``unset 'A[i]'``: the item of index ``i`` leaves the array, the others keep their indices (hostile-input
        round rw27/h item P3: the unset was a no-op, so a flag's removed value was still there).  An index or
        key pdlint cannot see makes the array's items placeholders."""
        old = st.vars.get(name)
        if old is None or old.value is None or sub in ("@", "*"):
            if sub in ("@", "*") and old is not None:
                st.vars[name] = Var(None)  # (`unset 'A[@]'` unsets the whole array)
            return
        if old.is_assoc:
            key = self.assoc_key(sub, st)
            if key is None:
                st.vars[name] = Var(word.as_opaque(), old.unknown)
            elif isinstance(old.value, tuple):
                pairs = [(k, v) for k, v in zip(old.keys, old.value) if k != key]
                st.vars[name] = Var(tuple(v for _, v in pairs), old.unknown, tuple(k for k, _ in pairs))
            return
        items = old.value if isinstance(old.value, tuple) else (old.value,)
        indices = old.indices()
        index = self.arith_text(sub, st, set(), word)
        if index is not None and index < 0 and indices:
            index += indices[-1] + 1
        if index is None or index < 0:
            st.vars[name] = Var(tuple(t.as_opaque() for t in items), old.unknown)
            return
        if index not in indices:
            return
        at = indices.index(index)
        if not isinstance(old.value, tuple):
            st.vars[name] = Var(None)  # (a scalar is its own element 0)
            return
        st.vars[name] = Var(items[:at] + items[at + 1:], old.unknown, idx=tuple(indices[:at]) + tuple(indices[at + 1:]))

    # -- here-documents ---------------------------------------------------------
    def heredocs(self, node, st: Optional[State]) -> None:
        """Record the here-documents of a redirected statement that ``ShellContext.heredoc_filter``
        accepts, as its command reads them (``st`` None: as written)."""
        unit = self.unit
        for r in node.named_children:
            if r.type != "heredoc_redirect":
                continue
            found = syntax.heredoc_parts(unit, r)
            if found is None:
                continue
            where = (id(unit), found[1])
            accepted = self.heredocs_accepted.get(where)
            if accepted is None:  # (a loop runs it again: its text as written is the same)
                accepted = self.heredocs_accepted[where] = bool(self.ctx.heredoc_filter(unit.text[found[1]:found[2]]))
            reader, dest = syntax.heredoc_reader(unit, node, r)
            # a config file the script writes (`cat > "$W/ctx.yaml" <<EOF`) is kept for the `--config` that
            # names it later, launch text or not
            config = dest is not None and st is not None and \
                unit.source_text(dest).strip("'\"").endswith((".yaml", ".yml", ".json"))
            text = None
            if not (accepted or config) and st is not None and not found[3] and \
                    _BUILT_LAUNCH_WORDS.search(unit.text, found[1], found[2]) and "$" in unit.text[found[1]:found[2]]:
                # an unquoted here-document whose launch the script's variables spell (`python3 -m
                # $E.launch_server` with E=sglang: rw26/h item 4): judged as the command reads it
                text = self.expand_heredoc(found, st, set())
                accepted = bool(self.ctx.heredoc_filter(text.text))
            if not (accepted or config) or (st is None and where in self.heredocs_read):
                continue
            self.heredocs_read.add(where)
            if text is None:
                text = self.expand_heredoc(found, st, set())
            role = st.role_hint() if st is not None else None
            key = (tstr_key(text), role)
            if key in self.heredoc_keys:
                continue
            self.heredoc_keys.add(key)
            if st is not None and not found[3]:
                self.spend(len(text.text))  # a new text per loop value: bounded as expansions are
            path = None
            if dest is not None and st is not None:
                unk: set = set()
                path = self.expand_value(dest, st, unk)
                if unk or path.opaque or not path.text:
                    path = None
            self.ctx.heredocs.append(ShellHeredoc(
                text=text, start=unit.start(node) if unit.top else self.anchor,
                context=st.context_text() if st is not None else "", role_hint=role,
                evaluated=st is not None, uncalled=self.uncalled, reader=reader,
                target=unit.source_text(dest) if dest is not None else "", path=path, launch_text=accepted))

    def unreached_heredocs(self) -> None:
        """After a limit stopped the evaluation: the script's here-documents it had not reached, as
        written (a generated installer's manifests after thousands of commands)."""
        if self.ctx.heredoc_filter is None or self.top is None:
            return
        with self.in_unit(self.top):
            for r in syntax.heredoc_redirects(self.top):
                if r.parent is not None:
                    self.heredocs(r.parent, None)

    # -- compound statements ----------------------------------------------------
    def exec_redirected(self, node, st: State) -> list:
        # `sed "s#{TP}#2#g" < t.yaml`: the file the body reads on stdin (ShellCommand.stdin; a sed template's
        # renderer, Extractor.sed_values)
        reds = [r for r in node.named_children if r.type == "file_redirect" and r.children
                and r.children[0].type == "<"]
        dest = reds[-1].child_by_field_name("destination") if reds else None
        if dest is None:
            return self.exec_redirected_body(node, st)
        unk: set = set()
        saved, self.stdin = self.stdin, (("file", self.expand_value(dest, st, unk)),)
        try:
            return self.exec_redirected_body(node, st)
        finally:
            self.stdin = saved

    def exec_redirected_body(self, node, st: State) -> list:
        if self.ctx.heredoc_filter is not None:
            self.heredocs(node, st)
        body = node.child_by_field_name("body")
        if body is None:
            return [Out(st, True)]
        if st.out is None and self.ctx.heredoc_filter is not None and body.type in ("command", "compound_statement"):
            written = self.echoed_file(node, body, st)
            if written is not None:
                return written
        if st.out is None and self.ctx.heredoc_filter is not None:
            self.unknown_write(node, st)
        if st.out is not None and _stdout_away(node):
            # `ls x >/dev/null 2>&1` in `$(...)`: the output goes elsewhere; the substitution captures none of it
            return self.captured_body(node, body, st)[0]
        if st.out is not None and self.cat_heredoc(node, body, st):
            return [Out(st, True)]
        return self.redirected_body(node, body, st)

    def written_path(self, node, st: State) -> Optional[tuple]:
        """``(path, dest node)`` of the one ``>`` a statement writes a ``.yaml`` / ``.yml`` / ``.json`` file with, its
        path known (or known below the script's own directory: named relative to it); else None."""
        reds = [r for r in node.named_children if r.type == "file_redirect"]
        if len(reds) != 1 or not any(c.type == ">" for c in reds[0].children) or \
                reds[0].children[0].type == "file_descriptor":
            return None
        dest = reds[0].child_by_field_name("destination")
        if dest is None:
            return None
        unk: set = set()
        path = self.expand_value(dest, st, unk)
        if path.opaque:  # (beside the script: the launch names it so too, engines' script_relative_token)
            from .builtins import script_relative_token
            path = script_relative_token(path)
        elif unk:
            return None
        if path.opaque or not path.text or not path.text.endswith((".yaml", ".yml", ".json")):
            return None
        return path, dest

    def unknown_write(self, node, st: State, name: str = "") -> None:
        """A config file the statement writes with text pdlint does not know (rw34/a P9): kept by its path, so that
        a launch naming it says the script writes it at run time, not that its path is a value it cannot see."""
        if any(c.type in ("heredoc_redirect", "herestring_redirect") for c in node.named_children):
            return  # (`cat > ctx.yml <<EOF`: the here-document's text, :meth:`heredocs`)
        found = self.written_path(node, st)
        if found is None:
            return
        path, dest = found
        self.ctx.heredocs.append(ShellHeredoc(
            text=EMPTY, start=self.unit.start(node) if self.unit.top else self.anchor, context=st.context_text(),
            role_hint=None, evaluated=True, uncalled=self.uncalled, reader=name,
            target=self.unit.source_text(dest), path=path, launch_text=False, text_known=False))

    def echoed_file(self, node, body, st: State) -> Optional[list]:
        """``echo -e "backend: UCX\\n..." > ctx.yml`` (TensorRT-LLM's README) or ``printf`` to a ``.yaml`` /
        ``.yml`` / ``.json`` file: the file's text is kept for the launch that names it, as a here-document's
        (:meth:`heredocs`); so is a ``{ echo ...; echo ...; } > "$cfg"`` group of them (ddps-lab's
        ``launch_trtllm.sh`` writes its ``trtllm-serve disaggregated -c`` config so: rw34/a P9), and a path below
        the script's own directory (``$(dirname "${BASH_SOURCE[0]}")/results/x.yaml``), named relative to it.
        None for any other statement (it is run as usual)."""
        if body.type == "compound_statement":
            cmds = [c for c in body.named_children if c.type != "comment"]
            if not cmds or any(c.type != "command" or self.unit.source_text(
                    c.child_by_field_name("name") or c).strip() not in ("echo", "printf") for c in cmds):
                return None
            name = "echo"
        else:
            name = self.unit.source_text(body.child_by_field_name("name") or body).strip()
        if name not in ("echo", "printf"):
            return None
        found = self.written_path(node, st)
        if found is None:
            return None
        path, dest = found
        outs, captured = self.captured_body(node, body, st)
        texts = printed_texts(captured)
        if texts is not None and len(texts) == 1:
            text = TStr.join(texts[0])
            self.ctx.heredocs.append(ShellHeredoc(
                text=text, start=self.unit.start(node) if self.unit.top else self.anchor,
                context=st.context_text(), role_hint=st.role_hint(), evaluated=True, uncalled=self.uncalled,
                reader=name, target=self.unit.source_text(dest), path=path,
                launch_text=bool(self.ctx.heredoc_filter(text.text))))
        else:
            self.unknown_write(node, st, name)
        return outs

    def captured_body(self, node, body, st: State) -> tuple:
        """Run a redirected statement's body with its standard output captured: (the paths, what each printed as
        ``(out, out_bad)``); every path's capture is what it was before."""
        out, bad = st.out, st.out_bad
        st.out, st.out_bad = (), False
        try:
            outs = self.redirected_body(node, body, st)
        except BaseException:
            st.out, st.out_bad = out, bad
            raise
        captured = [(o.st.out, o.st.out_bad) for o in outs]
        for o in outs:
            o.st.out, o.st.out_bad = out, bad
        return outs, captured

    def redirected_body(self, node, body, st: State) -> list:
        if body.type == "command":
            # tree-sitter hangs the words after a redirection's target on it (`cmd > log --flag x`): the
            # shell passes them to the command (`--model <path> \ --kv-transfer-config '{...}'`)
            reds = [r for r in node.named_children if r.type == "file_redirect"]
            self.placeholder_redirects(reds)
            extra = [d for r in reds for d in self.redirect_args(r)]
            if extra:
                return self.exec_command(body, st, extra)
        return self.exec_stmt(body, st)

    def cat_heredoc(self, node, body, st: State) -> bool:
        """``cat <<EOF`` (or ``cat - <<EOF``) with nothing else redirected, in a command substitution: its
        output is the here-document as the shell expands it (a function that prints the
        ``--kv-transfer-config`` JSON: ``kv_json(){ cat <<JSON {"kv_role":"${role}"...} JSON }``, then
        ``"$(kv_json kv_consumer)"``).  False (nothing captured) for any other statement."""
        if body.type != "command" or [c.type for c in node.named_children[1:]] != ["heredoc_redirect"]:
            return False
        words = [self.unit.source_text(c) for c in body.named_children]
        if words not in (["cat"], ["cat", "-"]) or body.child_by_field_name("name") is None:
            return False
        red = node.named_children[1]
        if any(c.type in ("pipeline", "file_redirect", "herestring_redirect") or
               (c.type not in ("heredoc_start", "heredoc_body", "heredoc_end") and c.is_named)
               for c in red.named_children):
            return False  # `cat <<EOF | jq`, `cat <<EOF > file`, `cat <<EOF && ...`
        found = syntax.heredoc_parts(self.unit, red)
        if found is None:
            return False
        unk: set = set()
        text = self.expand_heredoc(found, st, unk)
        self.spend(len(text.text))
        st.out = st.out + (text,)
        if self.capture_unk:
            self.capture_unk[-1].update(unk)
        return True

    @staticmethod
    def redirect_args(redirect) -> list:
        """The words tree-sitter hangs on a redirection after its target, which the shell passes to the
        command. A piece that touches the one before it is still the target: tree-sitter-bash 0.25 splits
        ``> $LOG_DIR/prefill_$i.txt`` into ``$LOG_DIR/prefill_$`` and ``i.txt`` (vllm-project/tpu-inference's
        disagg example, field test rw7/a)."""
        dests = redirect.children_by_field_name("destination")
        out, glued = [], True
        for prev, d in zip(dests, dests[1:]):
            glued = glued and d.start_byte == prev.end_byte
            if not glued:
                out.append(d)
        return out

    def placeholder_redirects(self, reds: list) -> None:
        """PD061: ``<name>`` written as a placeholder (``--model <model-path>``) is ``< name`` then ``>``, whose
        target is the next word: reported once per place, with the word the command loses."""
        text = self.unit.text
        for a, b in zip(reds, reds[1:]):
            if not a.children or a.children[0].type != "<" or not b.children or b.children[0].type != ">":
                continue
            dest = a.children_by_field_name("destination")
            if len(dest) != 1 or dest[0].type != "word" or b.start_byte != dest[0].end_byte:
                continue
            i = self.unit.char(a.start_byte)
            name = text[self.unit.char(dest[0].start_byte):self.unit.char(dest[0].end_byte)]
            key = ("placeholder", id(self.unit), i)
            if not re.fullmatch(r"[A-Za-z][\w.-]*", name) or key in self.reported:
                continue
            self.reported.add(key)
            target = b.children_by_field_name("destination")
            lost = text[self.unit.char(target[0].start_byte):self.unit.char(target[0].end_byte)] if target else ""
            self.ctx.report("PD-SHELL-PLACEHOLDER",
                            f"`<{name}>` is not a value: the shell reads it as `< {name}` (stdin from a file "
                            f"named {name!r}) and `>`" + (f", which writes stdout to a file named {lost!r}, so "
                                                          f"`{lost}` never reaches the command" if lost else ""),
                            self.unit.tstr, i)

    def exec_pipeline(self, node, st: State) -> list:
        capturing = st.out is not None
        out: Optional[TStr] = None  # inside $(...): what the stages so far write, while pdlint knows it
        stages = [c for c in node.named_children if c.type != "comment"]
        if st.jobs and len(stages) > 1 and self.unit.source_text(stages[-1]).startswith("xargs"):
            # `pgrep python3 | xargs -r kill -9`: the pids end processes of the whole script, not of the
            # pipeline's subshells (shell.jobs.piped_kill)
            st.ended = st.ended | piped_kill([self.stage_words(c, st) for c in stages], st.jobs)
        before: tuple = ()  # the commands the stage before runs: what this one reads (ShellCommand.stdin)
        for i, child in enumerate(stages):
            sub = st.fork()
            if capturing:
                sub.out = ()
            if capturing and i and out is not None:
                out = self.pipe_filter(child, sub, out)  # `echo "$X" | tr -d '[:space:]'`
                before = ()
                continue
            outer_log, self._stage_log = self._stage_log, []
            saved_in = self.stdin
            if i:
                self.stdin = tuple(("cmd", n) for n in before)
            try:
                if i and self.unit.source_text(child).startswith("xargs"):
                    saved, self.xargs_input = self.xargs_input, self.printed(stages[i - 1], st)
                    try:
                        self.exec_stmt(child, sub)
                    finally:
                        self.xargs_input = saved
                    continue
                self.exec_stmt(child, sub)
            finally:
                self.stdin = saved_in
                ran, self._stage_log = self._stage_log, outer_log
                if outer_log is not None:
                    outer_log.extend(ran)
                before = tuple(dict.fromkeys(c.serial for c in ran))
            if capturing and not i and not sub.out_bad and sub.out is not None:
                out = TStr.join(sub.out)
        if capturing:
            if out is None:
                st.out_bad = True
            else:
                st.out = st.out + (out,)
        return [Out(st, None)]

    def printed(self, node, st: State) -> Optional[TStr]:
        """What a pipeline stage that is an ``echo`` / ``printf`` of known text writes; None otherwise."""
        name = node.child_by_field_name("name") if node.type == "command" else None
        if name is None or self.unit.source_text(name) not in ("echo", "printf"):
            return None
        sub = st.fork()
        sub.out, sub.out_bad = (), False
        self.exec_stmt(node, sub)
        if sub.out_bad or sub.out is None:
            return None
        return TStr.join(sub.out)

    def xargs_words(self, words: list) -> list:
        """``... | xargs [-r] [-t] [-P N] CMD ARGS``: CMD runs with ARGS and then the words xargs reads, those of
        the ``echo`` / ``printf`` before it when pdlint knows them (:attr:`xargs_input`), else one placeholder
        (hostile-input round rw27/h item P6: the launch was read without them, a false SGL010 and the real flags
        unseen).  ``-I {}`` puts them in place of ``{}``: those words are placeholders.  Any other option
        (``-n 1``, ``-L``, ``-d``, ``-a FILE``...) changes what one run gets: one placeholder too."""
        i, plain, replace = 1, True, None
        while i < len(words) and words[i].text.startswith("-") and words[i].text != "--":
            opt = words[i].text
            if opt in ("-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-rt", "-tr"):
                i += 1
            elif opt in ("-P", "--max-procs"):
                i += 2
            elif opt.startswith(("-P", "--max-procs=")):
                i += 1
            elif opt in ("-I", "-i") or opt.startswith(("-I", "-i", "--replace")):
                if opt == "-I":
                    replace = words[i + 1].text if i + 1 < len(words) else None
                    i += 2
                else:
                    replace = opt[2:] if opt.startswith("-I") else (opt.partition("=")[2] or "{}")
                    i += 1
            else:
                plain = False
                i += 2 if opt in ("-n", "-L", "-d", "-a", "-s", "-E", "-e") else 1
        if words[i:i + 1] and words[i].text == "--":
            i += 1
        if i >= len(words):
            return words  # (`xargs` alone runs echo)
        if replace is not None:
            return [w.as_opaque() if replace and replace in w.text and k >= i else w for k, w in enumerate(words)]
        placeholder = computed("<the words xargs reads>", words[0]).as_opaque()
        text, self.xargs_input = self.xargs_input, None  # (read once: a command it runs reads no more of it)
        line = None
        if plain and text is not None:
            from .builtins import _xargs_echo
            line = _xargs_echo(text)
        if line is None:
            return words + [placeholder]
        line = line[:len(line.text.rstrip("\n"))]
        return words + [line[m.start():m.end()] for m in re.finditer(r"[^ ]+", line.text)]

    def substituted_pids(self, node, words: list, st: State) -> frozenset:
        """Serials of the jobs ``kill $(LISTING)`` ends: ``kill -9 $(pgrep -f sglang.launch_server)``,
        ``kill $(lsof -t -i:30000)``, backquotes alike (shell.jobs.listed)."""
        if node is None or node.type != "command" or checks_only([w.text for w in words[1:]]):
            return frozenset()
        out: frozenset = frozenset()
        for arg in syntax.field_children(node, "argument"):
            if arg.type == "string" and len(arg.named_children) == 1:  # "$(pgrep ...)"
                arg = arg.named_children[0]
            if arg.type != "command_substitution":
                continue
            inner = [c for c in arg.named_children if c.type != "comment"]
            if len(inner) != 1:
                continue
            stages = [c for c in inner[0].named_children if c.type != "comment"] \
                if inner[0].type == "pipeline" else inner
            out = out | listed([self.stage_words(c, st) for c in stages], st.jobs)
        return out

    def stage_words(self, node, st: State) -> Optional[list]:
        """A pipeline stage's words as text, when it is a simple command whose words pdlint knows (a stderr
        redirection allowed: ``lsof -t -i:8100 2>/dev/null``); else None."""
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            reds = [r for r in node.named_children if r.type != "comment" and r != body]
            if any(r.type != "file_redirect" or not self.unit.source_text(r).startswith("2>") for r in reds):
                return None
            node = body
        if node is None or node.type != "command" or any(c.type == "variable_assignment" for c in node.named_children):
            return None
        name = node.child_by_field_name("name")
        if name is None:
            return None
        unk: set = set()
        words = self.expand_args([name] + syntax.field_children(node, "argument"), st.fork(), unk)
        if unk or not words or any(w.opaque for w in words):
            return None
        return [w.text for w in words]

    def pipe_filter(self, node, st: State, text: TStr) -> Optional[TStr]:
        """A text filter's output (:func:`builtins.filter_text`), or None when pdlint does not know it."""
        if node.type != "command" or any(c.type == "variable_assignment" for c in node.named_children):
            return None
        name = node.child_by_field_name("name")
        if name is None:
            return None
        unk: set = set()
        words = self.expand_args([name] + syntax.field_children(node, "argument"), st, unk)
        if unk or not words or any(w.opaque for w in words):
            return None
        return filter_text([w.text for w in words], text)

    def exec_negated(self, node, st: State) -> list:
        inner = [c for c in node.named_children if c.type != "comment"]
        if not inner:
            return [Out(st, None)]
        return [Out(o.st, None if o.status is None else not o.status, o.if_false, o.if_true, o.forked)
                for o in self.exec_stmt(inner[0], st)]

    def exec_list(self, node, st: State) -> list:
        """``a && b`` / ``a || b`` (tree-sitter nests longer lists to the left)."""
        named = [c for c in node.named_children if c.type != "comment"]
        ops = [c.type for c in node.children if c.type in ("&&", "||")]
        if len(named) < 2 or not ops:
            return self.run_seq([(c, False) for c in named], st)
        left, right, op = named[0], named[-1], ops[0]
        results = []
        mark = len(self.env_pending)
        self.env_outer += 1
        try:
            lefts = self.exec_stmt(left, st)
        finally:
            self.env_outer -= 1
        if len(self.env_pending) > mark:  # `[ "$ROLE" = decode ] && launch_decode`: was the launch skipped?
            skips = any(o.status is (op == "||") and not o.forked and not o.st.flow for o in lefts)
            if self.env_outer and not (skips and self.may_launch([right])):
                # `if [ "$NNODES" -gt 1 ] && [ -n "$HOST" ]; then <flags>`: the `if` around judges them (what its
                # decision skipped), as it does a test in the list's last part (field test rw22/h)
                pass
            else:
                self.env_commit(mark, [right] if skips else [])
        for o in lefts:
            if o.st.flow:
                results.append(o)
                continue
            runs_right = True if op == "&&" else False
            if o.status is (not runs_right):
                results.append(o)
            elif o.status is runs_right:
                spare = unassumed(o.st.fork()) if o.assumed and not o.forked else None
                outs = self.exec_stmt(right, o.st)
                results.extend(outs)
                if spare is not None and all_exit(outs):
                    # `[ -z "${MODEL:-}" ] && { echo usage; exit 1; }`: as in Control.exec_if
                    results.append(Out(spare, not runs_right))
            else:
                go, stop = (o.if_true, o.if_false) if op == "&&" else (o.if_false, o.if_true)
                taken = o.st.fork()
                for fact in go:
                    bind(taken, fact)
                for r in self.exec_stmt(right, taken):
                    if op == "&&":
                        results.append(Out(r.st, r.status, go + r.if_true, r.if_false, True))
                    else:
                        results.append(Out(r.st, r.status, r.if_true, go + r.if_false, True))
                for fact in stop:
                    bind(o.st, fact)
                results.append(Out(o.st, op == "||", o.if_true, o.if_false, True))
        return self.merge(results, node)

    def exec_subshell(self, node, st: State) -> list:
        sub = st.fork()
        outs = self.run_block(node, sub)
        if st.out is not None:
            if len(outs) == 1 and outs[0].st.out is not None:
                st.out = outs[0].st.out
                st.out_bad = st.out_bad or outs[0].st.out_bad
            else:
                st.out_bad = True
        statuses = {o.status for o in outs}
        return [Out(st, statuses.pop() if len(statuses) == 1 else None)]

    def exec_group(self, node, st: State) -> list:
        if syntax.first_token(node) == "((":
            return self.exec_arith_command(node, st)
        return self.run_block(node, st, self.tail_whole(node))

    def exec_arith_command(self, node, st: State) -> list:
        a, b = self.unit.start(node), self.unit.char(node.end_byte)
        text = self.unit.text
        ia = a + 2
        ib = b - 2 if text[a:b].endswith("))") else b
        at = self.unit.tstr[a:b]
        expr = self.expand_range_value(ia, ib, syntax.special_parts(self.unit, node), st, set())
        value = None if expr.opaque else self.arith_text(expr.text, st, set(), at)
        if self.env_spans and not expr.opaque:
            self.note_env_arith(expr, self.unit.tstr[ia:ib], st)
        return [Out(st, None if value is None else value != 0)]

    def exec_test(self, node, st: State) -> list:
        cond = self.test_node(node, st, set())
        return [Out(st, cond.value, cond.if_true, cond.if_false, assumed=cond.assumed)]

    def exec_error(self, node, st: State) -> list:
        return self.run_block(node, st)

    def exec_function_def(self, node, st: State) -> list:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return [Out(st, True)]
        fd = FuncDef(self.unit.source_text(name_node), body, self.unit, (id(self.unit), node.start_byte))
        st.funcs[fd.name] = fd
        if fd.key not in self.defined:
            self.defined[fd.key] = (fd, st.fork())
        return [Out(st, True)]

# -- helpers ----------------------------------------------------------------------

def _assoc_merge(old: Var, new: Var) -> Var:
    """An associative array with ``new``'s items set on ``old``'s (a key of both takes ``new``'s value)."""
    keys, values = list(old.keys), list(old.value)
    for k, v in zip(new.keys, new.value):
        if k in keys:
            values[keys.index(k)] = v
        else:
            keys.append(k)
            values.append(v)
    return Var(tuple(values), old.unknown | new.unknown, tuple(keys))


#: redirection operators that can send standard output elsewhere
_OUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})


def _stdout_away(node) -> bool:
    """Does the redirected statement ``node`` send its standard output anywhere but
    the standard output (a file, ``/dev/null``, ``>&2``)?  The last redirection of
    descriptor 1 decides; ``> >(tee ...)`` still prints."""
    away = False
    for r in node.named_children:
        if r.type != "file_redirect" or not r.children:
            continue
        first = r.children[0]
        fd = "1"
        if first.type == "file_descriptor":
            fd = first.text.decode("utf-8", "replace")
            op = r.children[1].type if len(r.children) > 1 else ""
        else:
            op = first.type
        if op not in _OUT_OPS or (fd != "1" and op not in ("&>", "&>>")):
            continue
        dest = r.children_by_field_name("destination")
        away = not dest or not (dest[0].type == "process_substitution" or
                                (op == ">&" and dest[0].text == b"1"))
    return away


def _merge_stdin(have: tuple, more: tuple) -> tuple:
    """ShellCommand.stdin ``have`` and ``more`` (a command two paths run, each reading its own input)."""
    keys = {(k, v if k == "cmd" else v.text) for k, v in have}
    return have + tuple(x for x in more if (x[0], x[1] if x[0] == "cmd" else x[1].text) not in keys)


def _same_env(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(v is b[k] or tstr_key(v) == tstr_key(b[k]) for k, v in a.items())


_HANDLERS = {
    "command": Interpreter.exec_command,
    "variable_assignment": Interpreter.exec_assignment,
    "variable_assignments": Interpreter.exec_assignments,
    "declaration_command": Interpreter.exec_declaration,
    "unset_command": Interpreter.exec_unset,
    "redirected_statement": Interpreter.exec_redirected,
    "pipeline": Interpreter.exec_pipeline,
    "negated_command": Interpreter.exec_negated,
    "list": Interpreter.exec_list,
    "subshell": Interpreter.exec_subshell,
    "compound_statement": Interpreter.exec_group,
    "if_statement": Interpreter.exec_if,
    "case_statement": Interpreter.exec_case,
    "for_statement": Interpreter.exec_for,
    "c_style_for_statement": Interpreter.exec_c_for,
    "while_statement": Interpreter.exec_while,
    "function_definition": Interpreter.exec_function_def,
    "test_command": Interpreter.exec_test,
    "ERROR": Interpreter.exec_error,
}

def _change_directory(words: list, st: State) -> None:
    """``cd DIR``: ``$PWD`` as the script names the directory (``DIR``, or the previous ``$PWD`` joined with a
    relative ``DIR``), so that a later ``pwd`` prints it; unknown for ``cd`` alone, ``cd -``, options, or a
    relative ``DIR`` from an unknown directory."""
    args = words[1:]
    target = args[0] if len(args) == 1 else None
    _moved(st, target)
    if target is None or not target.text or target.text.startswith("-") or target.text.startswith("~"):
        st.vars.pop("PWD", None)
        return
    if target.text.startswith("/") or (target.pieces and target.pieces[0].opaque):
        st.vars["PWD"] = Var(target)  # absolute, or led by a value pdlint cannot see (`$(dirname "$0")`)
        return
    here = st.vars.get("PWD")
    if here is None or not isinstance(here.value, TStr) or not here.value.text:
        st.vars.pop("PWD", None)
        return
    st.vars["PWD"] = Var(here.value + computed("/", target) + target)


def _moved(st: State, target: Optional[TStr]) -> None:
    """Track ``cd terraform/_LOCAL``: a later ``source ./install.sh`` reads the file there, not the script's own
    (awslabs/ai-on-eks infra/*/install.sh: a false "sources itself" PD008).  Any other ``cd`` (a script-directory
    idiom, an absolute or unknown path) goes back to pdlint's assumption that relative paths are the script's."""
    if target is None or not target.text or target.opaque or any(p.opaque for p in target.pieces) or \
            target.text.startswith(("/", "-", "~")):
        st.vars.pop(CWD, None)
        return
    here = st.vars.get(CWD)
    base = here.value.text + "/" if here is not None and isinstance(here.value, TStr) else ""
    st.vars[CWD] = Var(computed(base + target.text, target))


#: programs that print nothing on standard output unless asked (``-v``): ``d=$(mkdir -p "$D"; echo "$D")``
_SILENT = frozenset({"mkdir", "rm", "rmdir", "touch", "sleep", "chmod", "chown", "cp", "mv", "ln", "wait"})
_VERBOSE = lazyre.compile(r"-[a-zA-Z]*v[a-zA-Z]*|--verbose(=.*)?|--help|--version")
_GREP_QUIET = lazyre.compile(r"-[a-zA-Z]*q[a-zA-Z]*|--quiet|--silent")


def _prints_nothing(words: list) -> bool:
    """Does the command print nothing on standard output (``mkdir -p DIR``, ``grep -q X FILE``)?"""
    name = words[0].text.rsplit("/", 1)[-1]
    args = [w.text for w in words[1:]]
    if name in _SILENT:
        return not any(w.opaque or _VERBOSE.fullmatch(a) for w, a in zip(words[1:], args))
    if name in ("grep", "egrep", "fgrep"):
        return any(_GREP_QUIET.fullmatch(a) for a in args) and not any(a in ("--help", "--version") for a in args)
    return False


def _located_program(words: list) -> Optional[TStr]:
    """The program ``command -v NAME`` / ``which NAME`` / ``type -P NAME`` prints: NAME, standing for the
    path PATH gives it (a launcher is known by its name: ``"$PY" -m sglang.launch_server``); None for
    anything else (several names, options, an unknown name)."""
    texts = [w.text for w in words]
    if texts[:2] in (["command", "-v"], ["type", "-P"]) and len(words) == 3:
        name = words[2]
    elif texts[0] == "which" and len(words) == 2:
        name = words[1]
    else:
        return None
    if name.opaque or not name.text or name.text.startswith("-") or "/" in name.text:
        return None
    return name


_INTEGER = lazyre.compile(r"[-+]?[0-9]+")

_BUILTINS = {
    "eval": Interpreter.b_eval,
    "source": Interpreter.b_source,
    ".": Interpreter.b_source,
    "exit": Interpreter.b_exit,
    "return": Interpreter.b_exit,
    "break": Interpreter.b_loop_control,
    "continue": Interpreter.b_loop_control,
    "shift": Interpreter.b_shift,
    "set": Interpreter.b_set,
    "export": Interpreter.b_declare,
    "local": Interpreter.b_declare,
    "declare": Interpreter.b_declare,
    "typeset": Interpreter.b_declare,
    "readonly": Interpreter.b_declare,
    "unset": Interpreter.b_unset,
    "true": Interpreter.b_true,
    ":": Interpreter.b_true,
    "false": Interpreter.b_true,
    "test": Interpreter.b_test,
    "[": Interpreter.b_test,
    "printf": Interpreter.b_printf_var,
    "read": Interpreter.b_read,
}


_CONTAINER_CLIS = frozenset({"docker", "podman", "nerdctl"})
#: the most numbers a ``seq`` inside ``$(...)`` is evaluated for (more: its output stays unknown)
MAX_SEQ = 4096


def _seq_output(words: list) -> Optional[TStr]:
    """The output of ``seq [FIRST [INCREMENT]] LAST`` with integer operands and no options (``cuda_graph_bs=($(seq
    1 128))``, billishyahao/sglang_disagg): the numbers, each on a line, located at ``seq``; None for anything
    else or more than :data:`MAX_SEQ` numbers."""
    args = [w.text for w in words[1:]]
    if not 1 <= len(args) <= 3 or not all(_INTEGER.fullmatch(a) for a in args):
        return None
    nums = [int(a) for a in args]
    first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (
        (nums[0], 1, nums[1]) if len(nums) == 2 else tuple(nums))
    if step == 0:
        return None
    count = max(0, (last - first) // step + 1)
    if count > MAX_SEQ:
        return None
    text = "".join(f"{first + i * step}\n" for i in range(count))
    return computed(text, words[0]) if text else EMPTY


def _container_verb(words: list) -> Optional[str]:
    """``run`` / ``create`` / ``exec`` of a container CLI among a command's first words (``docker exec``,
    ``sudo docker run``, ``sudo -E podman exec``), else None."""
    for i, w in enumerate(words[:4]):
        if w.text.rsplit("/", 1)[-1] in _CONTAINER_CLIS:
            verb = words[i + 1].text if i + 2 < len(words) else None
            return verb if verb in ("run", "create", "exec") else None
    return None


#: an array element as ``unset`` names it (``A[3]``, ``A[$i]``, ``M[key]``)
_ELEMENT = lazyre.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[(.+)\]", re.S)


def _unwritten(unit, t: TStr):
    """``unwritten(byte)`` for :func:`syntax.errors`: is the byte of ``unit`` in text pdlint added, written in no
    file (a synthetic piece that stands for no unknown value), in a text of which some is written in a file?
    None when there is no such text (nothing to pass over)."""
    added = [(p.start, p.end) for p in t.pieces if p.src is None and not p.opaque]
    if not added or len(added) == len(t.pieces):
        return None

    def unwritten(byte: int) -> bool:
        i = unit.char(byte)
        return any(a <= i < b for a, b in added)
    return unwritten


def _added_after(t: TStr, i: int, end: int) -> int:
    """Where, from character ``i`` on (to ``end``), the first text pdlint added begins (a synthetic piece that
    stands for no unknown value), in a text of which some is written in a file; else ``end``."""
    pieces = t.pieces
    if not any(p.src is not None for p in pieces):
        return end
    for p in pieces:
        if p.src is None and not p.opaque and p.end > i and p.start < end and p.start > i:
            return p.start
    return end


def _in_opaque(t: TStr, i: int) -> bool:
    """Is character ``i`` of ``t`` (or the one before it, for an error at a stand-in's end) in a piece whose value
    pdlint does not know?"""
    for p in t.pieces:
        if p.opaque and p.start <= i <= p.end and p.end > p.start:
            return True
    return False


def _written(t: TStr, i: int) -> bool:
    """Is the text of ``t`` from ``i`` on what a file writes: no value pdlint stands in for (it may hold the
    closing quote), and no quote in text pdlint added?  Separators it adds are no quote: a GitLab job's script items
    joined by line breaks, a Makefile recipe line wrapped in its own shell's parentheses (hostile-input round
    rw32/h P9: an unterminated quote there stayed a warning, exit 0, where bash refuses the script)."""
    if not t.pieces:
        return False
    text = t.text
    for p in t.pieces:
        if p.end <= i:
            continue
        if p.opaque or (p.src is None and any(q in text[max(p.start, i):p.end] for q in "\"'`")):
            return False
    return True
