"""Joining paths that differ only in what the script never reads again.

A condition whose value is not known at lint time splits a path (see
:mod:`pdlint.formats.shell.control`), and the copies continue after the
construct.  That is what a role dispatch needs (``if [ "$ROLE" = prefill ];
then FLAGS=...; else FLAGS=...; fi; python ... $FLAGS``), but scripts are
full of guards whose outcome no later command can tell apart::

    [ -d /opt/a ] && export PATH="/opt/a:${PATH}"
    if [ "$use_nixl" = "true" ]; then export UCX_TLS=rc; fi

Five of them made 32 paths: the evaluation stopped at the path limit with a
PD008 error on a script that starts nothing, or repeated one launch 16 times
(ai-dynamo/dynamo container/dev/50-framework-paths.sh, NVIDIA/TensorRT-LLM
examples/disaggregated/slurm/benchmark/start_worker.sh).

So after a statement splits one path, the copies that differ only in
variables no other place of the script reads are joined back into one
(:meth:`Joins.join_split`): such a variable gets a placeholder value (opaque,
located at the statement; a launch that uses it anyway, or sees it in its
environment, sees a value pdlint cannot tell), and a variable both copies
agree on keeps its value.  An exported variable the caller's checks read from
a launch's environment (``ShellContext.env_checked``) counts as read by the
launch, so a rule never concludes from a joined value; for widening
(:meth:`Joins.launch_relevant`) it reaches a launch, and so does what feeds it
(the counter in ``export CUDA_VISIBLE_DEVICES=$i``).  Copies whose role hint, functions, background jobs,
positional parameters or pending control flow differ are never joined: the
commands after them can differ.

"Read" is decided on the text of every unit parsed so far: a ``$NAME`` /
``${NAME...}`` anywhere (also inside quotes, here-documents and strings given
to ``eval`` / ``sh -c``) or a bare name in arithmetic, except a comment, a
``NAME="...$NAME..."`` that only extends the variable itself, and reads inside
the statement that split the path (its own condition).  Indirection
(``${!ref}``) and namerefs (``declare -n``) read names pdlint cannot see: a
script that uses them is never joined.  A file sourced later is not known yet
when the join happens; a variable read only there shows as a value pdlint
cannot see, never as a wrong value.
"""

from __future__ import annotations

from typing import Optional

from pdlint import launchers, lazyre

from . import syntax
from .state import Out, State, Var
from .tails import _SPECIAL_READ, _risky_word
from .words import computed

#: ``$NAME``, ``${NAME``, ``${#NAME``, ``${!NAME`` (group 1: ``!`` for an indirection, group 2: the name)
_REF_RE = lazyre.compile(rb"\$\{?(?:#|(!))?([A-Za-z_][A-Za-z0-9_]*)")
#: declarations of a nameref: reads through it name another variable
_NAMEREF_RE = lazyre.compile(rb"\b(?:declare|local|typeset)\s+(?:-\w*\s+)*-\w*n")
#: tree-sitter parents of a ``variable_name`` that writes or declares the name instead of reading it
_WRITES = frozenset({"variable_assignment", "declaration_command", "unset_command", "for_statement"})
#: commands that end no process and wait for none (a loop or function running only these beside its launches
#: leaves them running: Joins.overlapping); not ``wait``, ``kill``, ``source``
_PASSIVE = frozenset({"sleep", "local", "export", "declare", "typeset", "readonly", "set", "shift", "return",
                      "true", "false", ":", "test", "[", "[[", "cd", "pushd", "popd", "mkdir", "touch", "nohup",
                      "setsid", "env", "ulimit", "umask", "date", "seq", "basename", "dirname"})
_EVERYWHERE = object()  # reads index marker: the script reads variables pdlint cannot name


#: variables the shell itself reads (word splitting, program lookup, ``cd -``): never widened
_IMPLICIT = frozenset({"IFS", "PATH", "PWD", "OLDPWD", "HOME", "BASH_ENV", "ENV", "CDPATH"})
#: commands that write variables without an assignment node pdlint looks for (``read X``, ``printf -v X``)
_WRITERS_RE = lazyre.compile(r"(?<![\w-])(?:read|readarray|mapfile|printf|let|getopts)(?![\w-])"
                         r"|(?<!\$)\(\(")
#: commands that change the shell's state in ways other than an assignment (:meth:`Joins._runs_only_named`)
_STATEFUL = frozenset({"eval", "source", ".", "exec", "cd", "pushd", "popd", "set", "shopt", "alias", "unalias",
                       "trap", "enable", "builtin", "command", "hash", "unset"})
#: tree-sitter nodes whose value pdlint computes: a word that holds one may name a command
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "process_substitution",
                         "arithmetic_expansion"})
#: tree-sitter parents whose children are the statements of a list
_LISTS = frozenset({"program", "compound_statement", "do_group", "subshell", "case_item", "else_clause",
                    "if_statement", "elif_clause", "function_definition"})


class Joins:
    """Mixed into the interpreter: :meth:`join_split`, :meth:`widen` and the index of variable reads."""

    def join_split(self, outs: list, node, last: bool) -> list:
        """The paths one statement (``node``) made of one path, with the copies that differ only in
        variables the script does not read elsewhere joined.  ``last``: the statement ends its
        sequence, so its exit status is the sequence's (only copies that agree on it are joined)."""
        running = [o for o in outs if not o.st.flow]
        if len(running) < 2:
            return outs
        joined: list = []
        for o in running:
            for k in joined:
                names = self.joinable(k, o, node, last)
                if names is not None:
                    self.join_into(k, o, names, node)
                    break
            else:
                joined.append(o)
        if len(joined) == len(running):
            return outs
        return [o for o in outs if o.st.flow or o in joined]

    def joinable(self, a: Out, b: Out, node, last: bool) -> Optional[set]:
        """The variables ``a`` and ``b`` differ in when nothing else tells them apart and the script
        reads none of those outside ``node``; else None."""
        if last and (a.status != b.status or a.if_true != b.if_true or a.if_false != b.if_false):
            return None
        sa, sb = a.st, b.st
        if not _same_but_vars(sa, sb):
            return None
        names = _differing(sa, sb)
        if not names or any(self.read_elsewhere(n, node) for n in names) or self.env_read(sa, sb, names):
            return None
        return names

    def env_read(self, sa: State, sb: State, names: set) -> bool:
        """Does a check read one of ``names`` from a launch's environment (exported on either path)?  Then
        each value is checked, and the paths stay apart."""
        checked = self.ctx.env_checked
        return checked is not None and any((n in sa.exported or n in sb.exported) and checked(n) for n in names)

    def join_into(self, a: Out, b: Out, names: set, node) -> None:
        """Make ``a`` stand for both paths: ``names`` get a placeholder value (exported when either
        path exported them), decisions the two do not share are dropped."""
        at = self.unit.slice(node)
        for name in names:
            a.st.vars[name] = Var(computed("$" + name, at).as_opaque(), frozenset((name,)))
            if name in b.st.exported:
                a.st.exported[name] = True
        a.st.absorb(b.st)
        if a.status != b.status:
            a.status = None
        if a.if_true != b.if_true:
            a.if_true = ()
        if a.if_false != b.if_false:
            a.if_false = ()
        a.forked = a.forked or b.forked

    # -- widening ---------------------------------------------------------------------
    def widen(self, outs: list, node) -> list:
        """``outs`` (distinct running paths, more than ``max_paths``) with the copies that differ only in
        variables and background jobs no launch needs joined, so the limit does not drop paths that hold a
        launch.  A script that starts a GPU monitor three ways (``command -v nvidia-smi`` / ``amd-smi`` /
        neither) after two branches that set the launch's flags had 18 paths, and a PD008 error on each of
        SemiAnalysisAI/InferenceX's benchmark scripts.  A variable is widened (its value a placeholder, as
        :meth:`join_into` gives) only when no launch text reads it: not in a statement that holds launch
        text or calls a function that does, nor through a variable or function that one reads
        (:meth:`launch_relevant`); a background job only when it starts no launch."""
        if self.ctx.launch_text is None or self.reads_index() is _EVERYWHERE:
            return outs
        joined: list = []
        buckets: dict = {}  # paths only compare with paths that agree on all a join keeps
        for o in outs:
            bucket = buckets.setdefault(self.widen_key(o.st), [])
            for k in bucket:
                names = self.widenable(k, o)
                if names is not None:
                    self.join_into(k, o, names, node)
                    break
            else:
                bucket.append(o)
                joined.append(o)
        return joined

    def widen_key(self, st: State) -> tuple:
        """What two paths must share to be widened into one (:func:`_same_but_vars` compares the rest)."""
        jobs = self.launch_jobs(st.jobs)
        serials = {c.serial for job in jobs for c in job}
        return (st.flow, st.allexport, st.out_bad, st.role_hint(), st.enclosing(),
                tuple((k, f.key) for k, f in st.funcs.items()), _ids(jobs),
                frozenset(s for s in st.ended if s in serials))

    def launch_jobs(self, jobs: tuple) -> tuple:
        """The background jobs that start a launch (or a shell that may)."""
        memo = self.job_launches
        out = []
        for job in jobs:
            hit = memo.get(id(job))
            if hit is None or hit[0] is not job:
                hit = memo[id(job)] = (job, any(launchers.find(c.words) is not None for c in job))
            if hit[1]:
                out.append(job)
        return tuple(out)

    def widen_loop(self, states: list, node) -> None:
        """After a loop's first iteration: the variables its body sets that no launch text can read (a
        counter, a probe's output) get their placeholder, so a loop without launch text does not run its
        bound out.  InferenceX's cleanup waits for GPU memory: ``while [[ $waited -lt 120 ]]; do
        used=$(nvidia-smi ...); if [[ ... ]]; then break; fi; sleep 3; waited=$((waited + 3)); done``, 40
        iterations, each splitting on the probe, in every cell of a sweep: a PD008 (expansion limit)."""
        if self.ctx.launch_text is None or self.ctx.launch_text(self.unit.source_text(node)) or \
                self.reads_index() is _EVERYWHERE:
            return
        at = self.unit.slice(node)
        names = set(_assigned(self.unit, node))
        if node.type == "c_style_for_statement" and any(
                n not in _IMPLICIT and self.launch_relevant(n) for n in names):
            # a counted loop whose body changes what a launch reads (`ARGS+=(--prefill URL PORT)`): its counter
            # keeps its value, so the loop runs the count it says (field round rw33/a: `for (( i = 0; i < 1; i++ ))`
            # was run once more with what it adds unknown, a false SGL824 on the router's stand-in URL)
            for part in syntax.field_children(node, "initializer"):
                names -= set(_assigned(self.unit, part))
        for name in names:
            if name in _IMPLICIT or self.launch_relevant(name):  # (also an env_checked name: launch_relevant)
                continue
            for st in states:
                if name in st.vars:
                    st.vars[name] = Var(computed("$" + name, at).as_opaque(), frozenset((name,)))

    def iteration_reaches_launch(self, before: list, after: list) -> bool:
        """Does a loop iteration that took the paths ``before`` to ``after`` change a variable a launch may read
        (``ARGS+=(--prefill http://p$i:8000)``, a port counter read after the loop)?  Then the iterations a limit
        cuts would change it too, and the launch that reads it is not the one bash runs (hostile-input round
        rw35/h P11: a counted loop of 300 prefills cut at 256 gave a clean pass).  Without launch detection
        (``ShellContext.launch_text`` None, a library caller) no variable is known to matter: False."""
        if self.ctx.launch_text is None:
            return False
        everywhere = self.reads_index() is _EVERYWHERE
        names = {n for a in after for b in before for n in _differing(a, b)}
        return any(n not in _IMPLICIT and (everywhere or self.launch_relevant(n)) for n in names)

    def widenable(self, a: Out, b: Out) -> Optional[set]:
        sa, sb = a.st, b.st
        if not _same_but_vars(sa, sb, loose_jobs=True):
            return None
        names = _differing(sa, sb)
        if any(n in _IMPLICIT or self.launch_relevant(n) for n in names) or self.env_read(sa, sb, names):
            return None
        return names

    def launch_relevant(self, name: str) -> bool:
        """Can ``name``'s value reach a launch?  A variable a check reads from a launch's environment
        (``ShellContext.env_checked``: ``CUDA_VISIBLE_DEVICES``...) always can: the launched server reads it
        without a ``$NAME`` in the script, so what feeds it (a loop's counter in ``export
        CUDA_VISIBLE_DEVICES=$i``) is relevant too (hostile-input round rw35/i P2: the counter became a
        placeholder after the first iteration, a false PD151, a missed one, no PD015 for a loop cut at 256).
        Otherwise decided on the units parsed so far, per read: the statement that holds it (for a condition,
        the whole ``if`` / ``while``) holds launch text, calls a function the script defines that holds launch
        text or sets such a variable, sets such a variable itself, or writes variables in a way pdlint does not
        follow (``read``, ``printf -v``, ``let``, ``(( ))``)."""
        memo = self.relevance
        if memo.get(None) != self.reads_done:
            memo.clear()
            memo[None] = self.reads_done
        if name not in memo:
            checked = self.ctx.env_checked
            if checked is not None and name not in _IMPLICIT and checked(name):
                memo[name] = True
                return True
            memo[name] = True  # while deciding (a cycle): relevant until shown otherwise
            memo[name] = self._reads_reach_launch(name, self.reads_index().get(name, ()))
        return memo[name]

    def _reads_reach_launch(self, name: str, reads) -> bool:
        units = {id(u): u for u in self.keepalive}
        for unit_id, pos in reads:
            unit = units.get(unit_id)
            if unit is None:
                return True
            stmt = _statement_at(unit.root, pos)
            if stmt is None or self._statement_reaches_launch(unit, stmt, set(), name):
                return True
        return False

    def _statement_reaches_launch(self, unit, node, funcs_seen: set, name: str = "") -> bool:
        text = unit.source_text(node)
        if self.ctx.launch_text(text) or _WRITERS_RE.search(text):
            return True
        for target in _assigned(unit, node):
            if target != name and self.launch_relevant(target):  # (a counter: `waited=$((waited + 3))`)
                return True
        for fname, (fn_unit, body) in self.function_bodies().items():
            if fname in funcs_seen or not names_word(fname, text):
                continue
            funcs_seen.add(fname)
            if self._statement_reaches_launch(fn_unit, body, funcs_seen):
                return True
        return False

    def inert_function(self, unit, body) -> bool:
        """Can nothing the function ``body`` does reach a launch, so that not evaluating it (at the depth
        limit) loses nothing a rule reads?  Its text (and that of the functions it names) holds no launch
        text and sets no variable a launch reads (:meth:`_statement_reaches_launch`), and it runs only commands
        its text names (:meth:`_runs_only_named`).  FlexKV's benchmark.sh: ``main > run_variant >
        start_server > cleanup_gpu > log_step``, where ``log_step`` only echoes: a PD008 error on a script
        whose launch was checked."""
        if self.ctx.launch_text is None or self.reads_index() is _EVERYWHERE:
            return False
        return not self._statement_reaches_launch(unit, body, set()) and self._runs_only_named(unit, body, set())

    def overlapping(self, unit, body) -> bool:
        """Do the launches one run of ``body`` (a loop's, a function's) starts keep running while the next run
        starts its own: it runs nothing but its launches, commands that only print, test, wait for a port with
        ``curl`` or ``sleep``, set variables or directories, and functions that do the same (haNa-meister/sglang's
        ``for (( i=0; i<NUM_PREFILL; i++ )); do port=...; nohup python -m sglang.launch_server ... & done``)?
        Not when it runs ``wait``, a ``kill``, a benchmark client or anything else pdlint cannot tell ends
        nothing (vllm-project/tpu-inference's benchmark loop: start a server, measure, ``cleanUp``)."""
        key = (id(unit), body.start_byte)
        got = self.overlap_memo.get(key)
        if got is None:
            self.overlap_memo[key] = False  # (a function calling itself)
            got = self.overlap_memo[key] = self._overlapping(unit, body)
        return got

    def _overlapping(self, unit, body) -> bool:
        if self.ctx.launch_text is None:
            return False
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "command":
                name = n.child_by_field_name("name")
                prog = unit.source_text(name) if name is not None and name.named_child_count == 1 and \
                    name.named_children[0].type == "word" else None
                if prog is None:
                    return False
                if prog in self.function_bodies():
                    fn_unit, fn_body = self.function_bodies()[prog]
                    if not self.overlapping(fn_unit, fn_body):
                        return False
                elif prog not in _PASSIVE and prog.rsplit("/", 1)[-1] not in launchers.NOT_RUNNERS and \
                        not self.ctx.launch_text(unit.source_text(n)):
                    return False
            elif n.type in ("unset_command", "function_definition"):
                return False
            stack.extend(n.children)
        return True

    def idle_loop(self, node, body) -> bool:
        """Can the loop ``node`` start nothing and change no state but variables, whatever it iterates over?
        Its text (and that of the functions it names) holds no launch text and no word where a launch or a
        hand-off may begin (:func:`tails._risky_word`; ``docker inspect``/``ps``/``logs``... start nothing),
        and its ``body`` runs only commands its text names (:meth:`_runs_only_named`)."""
        if self.ctx.launch_text is None or self.ctx.launch_text(self.unit.source_text(node)):
            return False
        return self._starts_nothing(self.unit, body, set()) and self._runs_only_named(self.unit, body, set(),
                                                                                     loops=False)

    def _starts_nothing(self, unit, body, funcs_seen: set) -> bool:
        text = unit.source_text(body)
        if self.ctx.launch_text(text):
            return False
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "command":
                words = [unit.source_text(c) for c in n.named_children if c.type in ("command_name", "word")]
                if words and launchers.runs_no_words(words):  # (`docker inspect --format ... C` starts nothing)
                    words = []
                if any(_risky_word(w) for w in words):
                    return False
            stack.extend(n.children)
        return self._named_functions_all(text, funcs_seen, self._starts_nothing)

    def _named_functions_all(self, text: str, funcs_seen: set, check) -> bool:
        """``check(unit, body, funcs_seen)`` holds for every function ``text`` names that ``funcs_seen`` does not
        hold yet (added to it as checked)."""
        for fname, (fn_unit, fn_body) in self.function_bodies().items():
            if fname not in funcs_seen and names_word(fname, text):
                funcs_seen.add(fname)
                if not check(fn_unit, fn_body, funcs_seen):
                    return False
        return True

    def uncalled_inert(self, unit, body) -> bool:
        """Can evaluating ``body``, a function the script never calls (``Control.evaluate_uncalled``: what it
        sets and returns reaches nothing), start no launch, so that a limit hit in it (paths cut, its evaluation
        stopped) costs none?  As :meth:`inert_function`, except that what it sets may reach a launch and that
        launch text in the words of a command that prints or searches them (``echo``, ``printf``, ``grep``:
        ``launchers.NOT_RUNNERS``) counts as none: such a command starts nothing, and its output reaches no
        command except through an expansion :meth:`_runs_only_named` refuses.  Nor may a word name a shell,
        ``ssh``, a container runtime, a server program or script (``tails._risky_word``).  A checker's
        ``verify_critical_configs`` (littlemex/disaggregated-inference-with-nixl-over-aws-efa's
        verify-s3-deployment.sh): nested ``if``s in a ``for`` loop, ``echo "...: kv_role=kv_producer"``, a
        PD008 error on a script that starts nothing."""
        if self.ctx.launch_text is None or self.reads_index() is _EVERYWHERE:
            return False
        return self._runs_only_named(unit, body, set(), loops=False) and self._prints_only(unit, body, set())

    def _prints_only(self, unit, body, funcs_seen: set) -> bool:
        """Does ``body`` (and every function it names) hold no launch text but in the words of commands that
        print or search them, no read through a computed name and no word :func:`tails._risky_word` flags?"""
        base = unit.start(body)
        chars = list(unit.source_text(body))
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "command":
                name = n.child_by_field_name("name")
                prog = unit.source_text(name) if name is not None else ""
                if _risky_word(prog):
                    return False
                if prog.rsplit("/", 1)[-1] in launchers.NOT_RUNNERS:
                    for arg in n.children:
                        if arg == name or _runs_inside(arg):  # (`echo "$(python3 -m ...)"` runs it)
                            stack.append(arg)
                        else:
                            a, b = unit.start(arg) - base, unit.char(arg.end_byte) - base
                            chars[a:b] = " " * (b - a)
                    continue
            elif n.type == "word" and _risky_word(unit.source_text(n)):
                return False
            stack.extend(n.children)
        text = "".join(chars)
        if self.ctx.launch_text(text) or _SPECIAL_READ.search(text):
            return False
        whole = unit.source_text(body)
        return self._named_functions_all(whole, funcs_seen, self._prints_only)

    def _runs_only_named(self, unit, body, funcs_seen: set, loops: bool = True) -> bool:
        """Does ``body`` (and every function it names) run only commands its text names, and change no
        state but variables: no command named by an expansion (``$CMD &``, ``"$@"``), no expansion handed
        to a program that may run its words (``nohup $CMD``; a function's words are checked in its body), no
        ``eval`` / ``source`` / ``cd`` / ``set`` /
        ``unset`` ..., no function definition, no ``for`` over a variable a launch reads (unless not
        ``loops``: what the function sets reaches nothing)?"""
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type in ("unset_command", "function_definition"):
                return False
            if n.type == "for_statement" and loops:
                var = n.child_by_field_name("variable")
                if var is None or self.launch_relevant(unit.source_text(var)):
                    return False
            if n.type == "command":
                name = n.child_by_field_name("name")
                prog = unit.source_text(name) if name is not None and name.named_child_count == 1 and \
                    name.named_children[0].type == "word" else None
                if prog is None or prog in _STATEFUL:
                    return False
                if prog not in launchers.NOT_RUNNERS and prog not in self.function_bodies() and _expands(n) and \
                        not launchers.runs_no_words([prog] + [unit.source_text(c) for c in n.named_children[1:2]]):
                    return False
            stack.extend(n.children)
        text = unit.source_text(body)
        return self._named_functions_all(text, funcs_seen,
                                         lambda u, b, seen: self._runs_only_named(u, b, seen, loops))

    def function_bodies(self) -> dict:
        """name -> (unit, body node) of the functions the units parsed so far define (a later one wins)."""
        return self._definitions()[1]

    def function_definitions(self) -> dict:
        """name -> [(unit, body node)] of every definition of the name in the units parsed so far."""
        return self._definitions()[0]

    def _definitions(self) -> tuple:
        cached = self.bodies
        if cached is not None and cached[0] == len(self.keepalive):
            return cached[1]
        every: dict = {}
        for unit in self.keepalive:
            stack = [unit.root]
            while stack:
                n = stack.pop()
                if n.type == "function_definition":
                    name = n.child_by_field_name("name")
                    body = n.child_by_field_name("body")
                    if name is not None and body is not None:
                        every.setdefault(unit.source_text(name), []).append((unit, body))
                stack.extend(n.children)
        self.bodies = (len(self.keepalive), (every, {name: defs[-1] for name, defs in every.items()}))
        return self.bodies[1]

    # -- reads ----------------------------------------------------------------------
    def read_elsewhere(self, name: str, node) -> bool:
        """Does a unit parsed so far read ``name`` outside ``node`` (in the current unit)?"""
        reads = self.reads_index()
        if reads is _EVERYWHERE:
            return True
        here = id(self.unit)
        for unit_id, pos in reads.get(name, ()):
            if unit_id != here or not node.start_byte <= pos < node.end_byte:
                return True
        return False

    def reads_index(self):
        """name -> [(id(unit), byte offset)] of the reads in the units parsed so far (extended as
        more are parsed), or a marker when some unit reads variables through a name it computes."""
        index = self.reads
        if index is _EVERYWHERE:
            return index
        for unit in self.keepalive[self.reads_done:]:
            if not _unit_reads(unit, index):
                self.reads = _EVERYWHERE
                return _EVERYWHERE
        self.reads_done = len(self.keepalive)
        return index


def _unit_reads(unit, index: dict) -> bool:
    """Add ``unit``'s reads to ``index``; False when it reads through indirection or a nameref."""
    data = unit.text.encode("utf-8", "surrogatepass")
    if _NAMEREF_RE.search(data):
        return False
    root = unit.root
    for m in _REF_RE.finditer(data):
        if m.group(1):
            if not m.group(0).startswith(b"${"):
                continue  # `$!` (the last background job) followed by text
            after = data[m.end():m.end() + 1]
            if after == b"}":
                return False  # ${!ref}: the variable named by ref's value
            if after != b"[":
                continue  # ${!prefix*}: names, not values; ${!A[@]} reads A
        name = m.group(2).decode()
        pos = m.start()
        if _self_or_comment(root.descendant_for_byte_range(pos, pos + 1), name, unit):
            continue
        index.setdefault(name, []).append((id(unit), pos))
    stack = [root]
    while stack:  # bare names in arithmetic: $((N * 2)), (( i++ ))
        n = stack.pop()
        if n.type == "variable_name":
            parent = n.parent
            if parent is not None and parent.type not in _WRITES and parent.type not in ("expansion",
                                                                                         "simple_expansion"):
                name = unit.source_text(n)
                if not _self_or_comment(n, name, unit):
                    index.setdefault(name, []).append((id(unit), n.start_byte))
            continue
        stack.extend(n.children)
    return True


def _self_or_comment(n, name: str, unit) -> bool:
    """Is the read at node ``n`` in a comment, or in the value of an assignment to ``name`` itself
    (``PATH="/opt/a:${PATH}"`` only extends PATH)?"""
    while n is not None:
        if n.type == "comment":
            return True
        if n.type == "variable_assignment":
            target = n.child_by_field_name("name")
            if target is not None and unit.source_text(target) == name:
                return True
        n = n.parent
    return False


def _same_but_vars(a: State, b: State, loose_jobs: bool = False) -> bool:
    """Everything but the variables (and which are exported) and the decisions that led to them is
    the same: the commands after the two paths can differ only through those variables.
    ``loose_jobs``: the background jobs are not compared (the caller compared those that start a launch)."""
    if a.flow or b.flow or a.allexport != b.allexport or a.out_bad != b.out_bad:
        return False
    if a.role_hint() != b.role_hint() or a.enclosing() != b.enclosing():
        return False
    if a.funcs.keys() != b.funcs.keys() or any(f.key != b.funcs[k].key for k, f in a.funcs.items()):
        return False
    if not loose_jobs and (_ids(a.jobs) != _ids(b.jobs) or a.ended != b.ended):
        return False
    probe = State.__new__(State)  # State.same() on copies that share the variables
    for slot in State.__slots__:
        setattr(probe, slot, getattr(b, slot))
    probe.vars, probe.exported, probe.ctx = a.vars, a.exported, a.ctx
    probe.jobs, probe.ended = a.jobs, a.ended
    return a.same(probe)


def _differing(sa: State, sb: State) -> set:
    """The variables two paths give different values, or export on one path only."""
    names = {n for n in sa.vars.keys() | sb.vars.keys()
             if n not in sa.vars or n not in sb.vars or not sa.vars[n].same(sb.vars[n])}
    return names | (sa.exported.keys() ^ sb.exported.keys())


def _ids(jobs: tuple) -> tuple:
    return tuple(tuple(map(id, j)) for j in jobs)


def names_word(name: str, text: str) -> bool:
    """Does ``text`` hold ``name`` as a word (a function it calls: not part of a longer name or option)?"""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_-")) and \
                (end == len(text) or not (text[end].isalnum() or text[end] in "_-")):
            return True
        at = text.find(name, at + 1)
    return False


def _statement_at(root, pos: int):
    """The statement that holds the byte at ``pos``: the node of a statement list (a condition of an
    ``if`` / ``elif`` / ``while`` counts as its whole construct); None outside any."""
    n = root.descendant_for_byte_range(pos, pos + 1)
    while n is not None and n.parent is not None:
        p = n.parent
        if p.type in ("while_statement", "until_statement") and n.type != "do_group" or \
                p.type in ("if_statement", "elif_clause") and _before_then(p, n):
            n = p.parent if p.type == "elif_clause" else p
            continue
        if p.type in _LISTS:
            return n
        n = p
    return None


def _before_then(construct, node) -> bool:
    for c in construct.children:
        if c.type == "then":
            return node.end_byte <= c.start_byte
    return False


def _assigned(unit, node) -> list:
    """Names a statement assigns (``X=...``, ``export X=...``, ``local X=...``, ``local X``, in any branch of
    it)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "variable_assignment":
            target = n.child_by_field_name("name")
            if target is not None:
                out.append(unit.source_text(target).split("[", 1)[0])
        elif n.type == "variable_name" and n.parent is not None and n.parent.type == "declaration_command":
            out.append(unit.source_text(n))
        stack.extend(n.children)
    return out



def _runs_inside(node) -> bool:
    """Does ``node`` hold a command substitution (``$(...)``, backquotes, ``<(...)``): commands that run?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("command_substitution", "process_substitution"):
            return True
        stack.extend(n.children)
    return False


def _expands(command) -> bool:
    """Does one of a command's words other than its name hold an expansion (``$X``, ``$(...)``, ``$((...))``)?"""
    stack = [c for c in command.children if c != command.child_by_field_name("name")]
    while stack:
        n = stack.pop()
        if n.type in _EXPANSIONS:
            return True
        stack.extend(n.children)
    return False
