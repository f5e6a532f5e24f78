"""Shell front-end: statically evaluate a shell script into the simple
commands it would run, every word traced back to where its characters are
written.

>>> cmds = shell_commands(TStr.from_source(src), ShellContext(resolve, report))  # doctest: +SKIP

The script is parsed with tree-sitter-bash (imported on first use) and
evaluated over *paths*: an ``if``/``case`` whose condition is unknown at lint
time runs each arm with its own copy of the variables, and the paths continue
after the construct, so a script that picks its flags by role yields one
command per role.  What is supported and what is deliberately not is listed
in ``docs/shell-parser.md``.

This module does not decide what a server launch is: it returns every simple
command (wrappers such as ``exec``, ``nohup``, ``srun`` or ``docker run`` are
left in the words).
"""

from __future__ import annotations

from typing import Callable, Optional

from pdlint.records import dataclass, field
from pdlint.text import SourceFile, TStr

__all__ = ["ShellCommand", "ShellContext", "ShellHeredoc", "shell_commands"]


@dataclass
class ShellCommand:
    """One simple command the script would run."""

    #: argv after expansion, word splitting and quote removal; words[0] is the program
    words: list[TStr]
    #: environment the command sees that the script sets: exported variables
    #: (assigned by the script) and prefix assignments (``VAR=x cmd``)
    env: dict[str, TStr]
    #: where it runs, innermost last, e.g. ``case "$1" in prefill)`` or
    #: ``function launch (called at line 40) > background job``
    context: str
    #: 'prefill' / 'decode' when an enclosing (or earlier, path-deciding)
    #: branch condition or case pattern names a role
    role_hint: Optional[str]
    #: character index in the script TStr where the command starts; for a
    #: command in eval'd text, a sourced file or a function defined there, the
    #: start of the script's statement that led to it
    start: int
    #: ran with ``&`` (itself or an enclosing statement)
    background: bool
    #: variables expanded in the command that had no known value
    unset_vars: list[str] = field(default_factory=list)
    #: the command runs ``sh -c SCRIPT`` (itself or behind a wrapper) and the
    #: front-end evaluated SCRIPT: its commands are reported on their own, so
    #: a caller must not evaluate SCRIPT again
    runs_shell: bool = False
    #: found only by evaluating a function the script never calls (see
    #: ``Control.evaluate_uncalled``): running the script does not run it
    uncalled: bool = False
    #: its index in the evaluation's commands
    serial: int = -1
    #: part of an ``ssh HOST COMMAND`` string: it runs on another host, not beside the script's other commands
    remote: bool = False
    #: the container image a wrapper runs its ``sh -c`` string in (``docker run IMAGE bash -c "..."``), if any
    image: str = ""
    #: the words of the ``docker run`` that made the container it runs in, or of its ``docker exec`` into a
    #: container the script did not start (:func:`pdlint.launchers.container_run`); "" outside a container
    container: str = ""
    #: serials of earlier background commands a ``kill``/``pkill``/``killall`` ended before this command
    #: runs, on every path that runs it (or that a path did not start): the two never run at the same time
    ended_before: frozenset = frozenset()
    #: (the paths that run it: the background commands they started or ended, and those still running on one)
    started_before: frozenset = frozenset()
    running_before: frozenset = frozenset()
    #: the context entries of the loop iterations and function calls it is in whose launches keep running
    #: beside the next iteration's or call's (:attr:`pdlint.formats.shell.state.Ctx.instance`)
    instances: tuple = ()
    #: what it reads on its standard input, as the script writes it: ``("cmd", serial)`` for each command of the
    #: pipeline stage before it (``cat t.yaml | sed ...``), ``("file", path TStr)`` for a ``< FILE`` (a sed
    #: template's renderer: :meth:`pdlint.extract.Extractor.sed_values`)
    stdin: tuple = ()


@dataclass
class ShellHeredoc:
    """A here-document the script feeds to a command (``kubectl apply -f - <<EOF``)."""

    #: its text as the command reads it: expanded unless the delimiter is quoted (a value the
    #: front-end does not know stays as written, opaque), without the leading tabs of ``<<-``
    text: TStr
    #: character index in the script TStr of the statement it belongs to (see ShellCommand.start)
    start: int
    #: where it is fed, as ShellCommand.context
    context: str
    #: as ShellCommand.role_hint
    role_hint: Optional[str]
    #: False: read as written, not evaluated, because the evaluation stopped at a limit before the
    #: statement (its expansions are all opaque)
    evaluated: bool = True
    #: as ShellCommand.uncalled
    uncalled: bool = False
    #: the command it is fed to, as written (``cat``, ``bash``, ``ssh host bash -s``, ``kubectl apply -f -``
    #: when piped), and the file a ``>`` / ``>>`` of that statement writes, as written (``"$DIR/run.sh"``)
    reader: str = ""
    target: str = ""
    #: that file's path as the command sees it, when every character of it is known (else None)
    path: Optional[TStr] = None
    #: ``ShellContext.heredoc_filter`` accepted it (False: kept only as a config file the script writes)
    launch_text: bool = True
    #: False: a file the statement writes (``{ echo ...; cat x; } > "$cfg"``) whose text pdlint does not know;
    #: ``text`` is empty, ``path`` its path (a launch naming it is told the script writes it at run time)
    text_known: bool = True


@dataclass
class ShellContext:
    """What the shell front-end needs from its caller."""

    #: ``source X`` / ``. X``: the repository file, or None.  The path is the
    #: expanded text; a leading script-directory idiom (``$(dirname "$0")/``,
    #: ``${BASH_SOURCE%/*}/``...) is removed, so a relative path is relative
    #: to the directory of the sourcing file (the second argument).
    resolve_source: Callable[[str, SourceFile], Optional[SourceFile]]
    #: report(code, message, where, index): 'PD-SHELL-PARSE' (unparsable
    #: region), 'PD-SHELL-PARSE-ERROR' (one bash refuses for certain: an unterminated quote in text written in a
    #: file), 'PD-SHELL-CUT' (bash runs nothing of the text from ``where[index]`` on: the message says why the
    #: launch text there was not checked), 'PD-SHELL-LIMIT' (a limit was hit) or 'PD-SHELL-ABORT' (a limit
    #: stopped the whole evaluation); ``where[index]`` is the position
    report: Callable[[str, str, TStr, int], None]
    #: source_refused(path, sourcing file, word): called when ``resolve_source``
    #: gave None, so the caller can report a file it refused to read (outside
    #: the repository, not a regular file) at the ``source`` / ``.`` word
    source_refused: Optional[Callable[[str, SourceFile, TStr], None]] = None
    #: source_read(path word, index, file): ``resolve_source`` read ``file`` through a path a variable wrote
    #: ``path word``'s piece ``index`` of (``source "models/${MODEL}.env"``): the other texts that piece may take
    #: to name another file of the repository (``big`` for ``models/big.env``), at most a few dozen
    source_read: Optional[Callable[[TStr, int, SourceFile], list]] = None
    #: output: the role names (``prefill``, ``p``, ``decode``...) the script
    #: compares with a value made from its unknown first argument (``case
    #: "$1" in prefill)``, ``ROLE=${1:?}; [[ $ROLE != decode ]]``), in script
    #: order: text -> the literal where it is written
    arg_values: dict = field(default_factory=dict)
    #: output: values for variables the environment may set (``NODE_RANK="${NODE_RANK:-0}"``) that would
    #: run launch text the script's defaults skip (``[[ $NODE_RANK -eq 0 ]]``, ``case "${ROLE:-prefill}"
    #: in decode)``), in script order: name -> {value text -> where it is written (or computed from)}
    #: (:mod:`pdlint.formats.shell.envruns`)
    env_values: dict = field(default_factory=dict)
    #: output: (name, value text) of ``env_values`` -> {(path, line, launch text, start, end offsets)} the part its
    #: value would run holds (:meth:`EnvVariants.launch_lines`), to order the runs and to say where a run not made
    #: leaves launch text unchecked (``extract._env_runs``)
    env_reach: dict = field(default_factory=dict)
    #: a ``while`` loop whose condition is unknown also continues after one
    #: iteration of its body, not only after none: the script run with one
    #: option (``while [[ $# -gt 0 ]]; do case "$1" in --role) ROLE="$2"; shift 2``)
    loops_once: bool = False
    #: here-documents: the front-end records those whose text (as written) this returns true for
    #: in ``heredocs``, once per distinct text and role hint; None: none is recorded
    heredoc_filter: Optional[Callable[[str], bool]] = None
    #: output (see ``heredoc_filter``): ShellHeredoc, in evaluation order
    heredocs: list = field(default_factory=list)
    #: an exported variable's name this returns true for is read by the caller's checks from a launch's
    #: environment (``SGLANG_...``, ``PYTHONHASHSEED``): paths that give it different values stay apart
    #: (see ``joins``); None: no name is
    env_checked: Optional[Callable[[str], bool]] = None
    #: variables whose values the user gave (the config's ``vars``, ``--var``): where the script assigns one a
    #: value pdlint cannot see (``GPU_MEM_ARGS=$(build_args)``, a function of a file it cannot read), the given
    #: value stands for it - what "give X its deploy-time value" asks for (field test rw19/c)
    given: frozenset = frozenset()
    #: what the text is, as syntax errors name it ("script"; "script the here-document at line 880 writes")
    script_kind: str = "script"
    #: output: for each limit reported (``PD-SHELL-LIMIT``, in order), how many commands had been recorded
    #: when it was hit (a command with a higher ``serial`` came after it)
    limit_serials: list = field(default_factory=list)
    #: text this returns true for holds launch text: when a statement leaves more than ``max_paths`` paths,
    #: those that differ only in variables no launch text reads (directly or through other variables and
    #: functions) are joined instead of dropped (see ``joins``); None: they are dropped
    launch_text: Optional[Callable[[str], bool]] = None
    max_paths: int = 16
    max_commands: int = 2000
    #: nested eval / source / function call / ``sh -c`` levels: a test harness's launcher is often five or six
    #: down (kvcache-ai/Mooncake's tone tests: run_test > run_single_model > start_server > launch_sglang_server
    #: > launch_and_track_process > eval > docker exec ... bash -c)
    max_eval_depth: int = 8
    max_expansion: int = 1_000_000
    #: statements evaluated before the evaluation stops (a PD-SHELL-ABORT); None: the front-end's own bound
    #: (:data:`pdlint.formats.shell.interp.MAX_STEPS`)
    max_steps: Optional[int] = None
    #: output: how many statements the evaluation ran (a caller's work bound across scripts)
    steps: int = 0


def shell_commands(script: TStr, ctx: ShellContext, env: Optional[dict[str, TStr]] = None,
                   positional: Optional[list[TStr]] = None,
                   bound: Optional[dict[int, TStr]] = None) -> list[ShellCommand]:
    """The simple commands ``script`` would run, in script order.

    ``env`` holds variables known before the script runs (e.g. a container's
    environment for an ``sh -c`` string); ``positional`` the arguments $1, $2...
    when known (None: unknown); ``bound`` some of them while the others stay
    unknown ({1: "prefill"}: the script run as ``script prefill ...``).
    Never raises: problems are reported through
    ``ctx.report`` and what was found so far is returned.
    """
    from .interp import Interpreter
    from .syntax import ParserUnavailable

    interp = Interpreter(ctx, ShellCommand)
    try:
        return interp.run(script, env, positional, bound)
    except ParserUnavailable as exc:
        ctx.report("PD-SHELL-PARSE", f"shell scripts cannot be parsed: tree-sitter-bash is not installed ({exc})",
                   script, 0)
        return []
    except MemoryError:  # the file's memory budget (pdlint.budget: a PD008), not the script's fault (rw23/h)
        raise
    except Exception as exc:  # a bug must not stop the lint of the other files
        ctx.report("PD-SHELL-PARSE", f"shell evaluation failed ({type(exc).__name__}: {exc})", script, 0)
        return list(interp.commands)
    finally:
        ctx.steps = interp.steps
