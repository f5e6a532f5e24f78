"""Builtins with an effect on the evaluation (``eval``, ``source``, ``set``,
``shift``, ``exit``...), command substitution and nested ``sh -c`` shells."""

from __future__ import annotations

import posixpath
import re
from typing import Optional

from pdlint import lazyre
from pdlint.text import EMPTY, SourceFile, TStr

from .control import short
from .state import CWD, Ctx, Out, State, Var, rest_of_args, tstr_key
from .words import _ANSI, computed, has_known_char, join_with, opaque_mask

#: at most this many possible outputs of one ``$(...)`` are followed, each on its own path (and at most this many
#: paths made by one statement's substitutions)
MAX_OUTPUTS = 4

_SHELLS = frozenset({"sh", "bash", "dash", "ksh", "zsh", "ash"})
_DASH_C = lazyre.compile(r"-[a-zA-Z]*c[a-zA-Z]*")
#: a wrapper option that runs the command in the background and prints an id instead (`docker run -d`)
_DETACH = lazyre.compile(r"-[a-zA-Z]*d[a-zA-Z]*|--detach")
_ECHO_FLAGS = lazyre.compile(r"-[neE]+")
_PRINTF_CONV = lazyre.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?([sdibqc%])")
_SCRIPT_DIR = lazyre.compile(r"^\$\{(0|BASH_SOURCE(\[0\])?)%/\*\}$")


class Builtins:
    """Builtins, ``$(...)`` and ``sh -c`` (mixed into the interpreter)."""

    # -- builtins -----------------------------------------------------------------
    def b_eval(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        if not args:
            return [Out(st, True)]
        text = join_with(args, computed(" ", words[0]))
        if not has_known_char(text) or not self.deeper("eval"):
            self.forget_shown(node, words[0], [st])
            return [Out(st, None)]
        self.spend(len(text.text))
        unit = self.parse(text, kind="eval")
        depth = st.push_ctx(Ctx(f"eval at line {words[0].origin.line}"))
        self.depth += 1
        try:
            with self.in_unit(unit):
                outs = self.run_block(unit.root, st)
        finally:
            self.depth -= 1
        for o in outs:
            o.st.close_ctx(depth)
        if any(p.opaque for p in text.pieces):  # (a part pdlint cannot see ran too)
            self.forget_shown(node, words[0], [o.st for o in outs])
        return outs

    def forget_shown(self, node, at: TStr, states: list) -> None:
        """After ``eval "$(...)"`` / ``source <(...)`` / ``declare "$(...)"`` of text pdlint cannot see: the
        variables that text may assign have no known value on ``states``, at least every name the command
        substitutions of ``node`` (their here-documents included, and the script file they run when the
        repository has it) show assigned: ``NAME=``, ``print(f"NAME=...")``, ``export NAME``.  Keeping the
        old value dropped the flags silently (SemiAnalysisAI/InferenceX benchmarks/multi_node/llm-d/server.sh:
        ``ROLE_EXTRA_ARGS=""``, then ``eval "$(python3 - <<PY ... PY)"`` sets it from a recipe, then ``vllm serve
        ... $ROLE_EXTRA_ARGS``, field test rw18/o); now the launch reports the part it did not check (PD023)."""
        if node is None or not states:
            return
        texts = _substitution_texts(self.unit, node)
        if not texts:
            return
        current = file_of(at) or (file_of(self.top.tstr) if self.top else None)
        names: set = set()
        for text in texts:
            names |= shown_assigned(text)
            if current is None:
                continue
            for path in _RUN_FILE.findall(text)[:_MAX_RUN_FILES]:
                try:
                    src = self.ctx.resolve_source(path, current)
                except Exception:  # the caller's resolver must not stop the evaluation
                    src = None
                if src is not None and len(src.text) <= _MAX_SCANNED:
                    names |= shown_assigned(src.text)
        for s in states:
            for name in names:
                s.vars.pop(name, None)

    def note_source_values(self, word: TStr, src) -> None:
        """``source "models/${MODEL}.env"`` with ``MODEL=${MODEL:-llama}``: the other files of the repository the
        name may take (``models/big.env``) are values of ``MODEL`` to run the script with, as a test's values are
        (hostile-input test rw26/h item 11: a sibling with a refused flag was never read, in a scan or a hook)."""
        computed = [i for i, p in enumerate(word.pieces) if p.chain]
        if len(computed) != 1:
            return
        p = word.pieces[computed[0]]
        part = word[p.start:p.end]
        name = self.env_source(part)
        if name is None:
            return
        from .words import computed as _computed
        for text in self.ctx.source_read(word, computed[0], src) or ():
            if text != part.text:  # (the value, where the variable's default is written)
                self.ctx.env_values.setdefault(name, {}).setdefault(text, _computed(text, part))
                self.ctx.env_reach.setdefault((name, text), set())

    def b_source(self, words, st, unk, penv, node) -> list:
        if len(words) < 2:
            return [Out(st, False)]
        path = script_relative(words[1])
        moved = st.vars.get(CWD)
        if moved is not None and path == words[1].text and not path.startswith("/") and \
                isinstance(moved.value, TStr):
            path = posixpath.normpath(moved.value.text + "/" + path)  # after `cd DIR`: DIR's file
        current = file_of(words[0]) or file_of(words[1]) or (file_of(self.top.tstr) if self.top else None)
        if current is None:
            return [Out(st, None)]
        try:
            src = self.ctx.resolve_source(path, current)
        except Exception:  # the caller's resolver must not stop the evaluation
            src = None
        if src is None:
            if any(p.opaque for p in words[1].pieces) or not words[1].pieces:
                self.forget_shown(node, words[0], [st])  # `source <(python3 render.py)`
            if self.ctx.source_refused is not None:  # reported at the `source` / `.` word: the line to edit
                self.ctx.source_refused(path, current, words[0])
            return [Out(st, None)]
        if self.ctx.source_read is not None and not self.uncalled:
            self.note_source_values(words[1], src)
        if id(src) in self.sourcing:
            self.limit("source-loop", f"{src.path} sources itself (directly or through other files);"
                                      " the inner source was not evaluated")
            return [Out(st, None)]
        if not self.deeper(f"source {path}"):
            return [Out(st, None)]
        unit = self.units.get(id(src))
        if unit is None:
            unit = self.units[id(src)] = self.parse(TStr.from_source(src), kind="sourced file")
        saved_pos = st.positional
        if len(words) > 2:
            st.positional = tuple(Var(w) for w in words[2:])
        depth = st.push_ctx(Ctx(f"source {short(path, 60)} (line {words[0].origin.line})"))
        self.depth += 1
        self.sourcing.append(id(src))
        tail = self.tail_whole(node)  # (before the unit changes: the `source` statement is the caller's)
        try:
            with self.in_unit(unit):
                outs = self.run_block(unit.root, st, tail)
        finally:
            self.depth -= 1
            self.sourcing.pop()
        for o in outs:
            if o.st.flow == "return":
                o.st.flow = None
            if len(words) > 2:
                o.st.positional = saved_pos
            o.st.close_ctx(depth)
        return outs

    def b_exit(self, words, st, unk, penv, node) -> list:
        st.flow = "exit" if words[0].text == "exit" else "return"
        return [Out(st, exit_status(words))]

    def b_loop_control(self, words, st, unk, penv, node) -> list:
        st.flow = words[0].text
        st.flow_n = int(words[1].text) if len(words) > 1 and words[1].text.isdigit() else 1
        return [Out(st, True)]

    def b_shift(self, words, st, unk, penv, node) -> list:
        n = int(words[1].text) if len(words) > 1 and words[1].text.isdigit() else 1
        if st.positional is not None:
            if rest_of_args(st.positional) and n >= len(st.positional):
                # (`f a "$@"`: the caller's unknown arguments, as many as they are: shifting past the known
                # ones leaves them unknown, MindLab-Research/sglang's `while [[ $# -gt 0 ]] ... shift 2`)
                st.positional = st.positional[-1:]
                return [Out(st, None)]
            if n > len(st.positional):
                return [Out(st, False)]
            st.positional = st.positional[n:]
        else:
            st.pos_bind = {i - n: v for i, v in st.pos_bind.items() if i > n}
        return [Out(st, True)]

    def b_set(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        i = 0
        while i < len(args):
            text = args[i].text
            if text == "--":
                st.positional = tuple(Var(w) for w in args[i + 1:])
                break
            if text[:1] in "-+" and len(text) > 1:
                on = text[0] == "-"
                if "a" in text[1:]:
                    st.allexport = on
                if "o" in text[1:] and i + 1 < len(args):
                    if args[i + 1].text == "allexport":
                        st.allexport = on
                    i += 1
                i += 1
                continue
            st.positional = tuple(Var(w) for w in args[i:])
            break
        return [Out(st, True)]

    def b_declare(self, words, st, unk, penv, node) -> list:
        flags: set = set()
        for w in words[1:]:
            self.declare_word(words[0].text, flags, w, st)
        return [Out(st, True)]

    def b_unset(self, words, st, unk, penv, node) -> list:
        return self.unset_words(words[1:], st)

    def b_true(self, words, st, unk, penv, node) -> list:
        return [Out(st, words[0].text != "false")]

    def b_test(self, words, st, unk, penv, node) -> list:
        args = words[1:]
        if words[0].text == "[" and args and args[-1].text == "]":
            args = args[:-1]
        cond = self.test_words(args, frozenset(unk))
        return [Out(st, cond.value, cond.if_true, cond.if_false, assumed=cond.assumed)]

    def b_read(self, words, st, unk, penv, node) -> list:
        """``read [-r] [-a NAME] NAME...``: the names get values not known at lint time,
        except from a here-string of known text (``IFS=, read -ra PORTS <<< "$LIST"``):
        then the line is split at ``IFS`` as bash does."""
        args, names, array = words[1:], [], None
        i = 0
        while i < len(args):
            text = args[i].text
            if text.startswith("-") and len(text) > 1:
                if text[-1] in "adinNptu" and i + 1 < len(args):
                    if text[-1] == "a":
                        array = args[i + 1].text
                        names.append(array)
                    i += 1
            else:
                names.append(text)
            i += 1
        names = [n for n in names or ["REPLY"] if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
        line = self._herestring(node, st, unk)
        if line is not None and (array is not None or len(names) == 1):
            if array is not None:
                st.assign(array, Var(tuple(_ifs_split(line, _ifs(st, penv))), frozenset(unk)))
            else:
                st.assign(names[0], Var(line, frozenset(unk)))
            return [Out(st, True)]
        for name in names:
            st.vars.pop(name, None)
        return [Out(st, None)]

    def _herestring(self, node, st, unk) -> Optional[TStr]:
        """The text of a command's ``<<< WORD`` when every character of it is known."""
        here = next((c for c in node.named_children if c.type == "herestring_redirect"), None) \
            if node is not None else None
        if here is None or not here.named_children:
            return None
        value = self.expand_value(here.named_children[0], st, unk)
        if opaque_mask(value) is not None:  # a part pdlint cannot see: the fields are unknown
            return None
        return value

    def b_printf_var(self, words, st, unk, penv, node) -> list:
        """``printf -v NAME FORMAT ARGS``: an assignment, not output."""
        if len(words) >= 4 and words[1].text == "-v":
            value = format_printf(words[3], words[4:])
            name = words[2].text
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                st.assign(name, Var(value if value is not None else words[3].as_opaque(), frozenset(unk)))
            return [Out(st, True)]
        return self.external(words, st, unk, penv, node)

    # -- command substitution and nested shells ---------------------------------------
    def command_substitution(self, node, st: State, unk: set) -> TStr:
        """The output of ``$(...)`` when it is made of ``echo``/``printf`` of
        known text (e.g. a function emitting flags); else a placeholder."""
        if self.unit.comment_subs and self.unit.char(node.end_byte) in self.unit.comment_subs:
            return EMPTY  # `# a comment` in backquotes: no output
        if _misparsed_arithmetic(self.unit, node):
            # tree-sitter-bash reads `$(( ... ))` inside a `${X:-...}` word as `$( ( ... ) )`, a subshell running
            # `4 > 2 ? 4 : 2` (output '' into a file "2"); bash evaluates it as arithmetic (SemiAnalysisAI/InferenceX
            # dsv4_fp4_b300_sglang.sh's `"${MAX_RUNNING_REQUESTS:-$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8 ))}"`,
            # field test rw18/o: '' and a false SGL005)
            use = self.unit.slice(node)
            value = self.arith_text(use.text[3:-2], st, unk, use)
            return use.as_opaque() if value is None else computed(str(value), use)
        key = (id(self.unit), node.start_byte)
        picked = self.sub_pick.get(key)
        if picked is not None:  # the statement is being run once per possible output (Interpreter.per_output)
            unk |= picked[1]
            return picked[0]
        use = self.unit.slice(node)
        placeholder = use.as_opaque()
        items = self.statements(node)
        if items and all(c.type == "file_redirect" for c, _ in items):
            if any(c.children and c.children[0].type == "<" for c, _ in items):
                # `$(< file)` is bash's `$(cat file)`: the file's text, which pdlint does not see (hostile-input
                # round rw27/h item P4: it was no output, so the flags in the file were neither checked nor
                # said unchecked, and a launch given its --model-path there got a false SGL010)
                self.spend(len(use.text))
                return placeholder
            return EMPTY  # (`$(> file)`: no output)
        if not items:
            return EMPTY
        sub = st.fork()
        sub.out, sub.out_bad, sub.flow = (), False, None
        sub.push_ctx(Ctx(f"command substitution at line {use.origin.line}"))
        self.capture_unk.append(set())
        forks, self.sub_forks = self.sub_forks, None  # (only the statement's own substitutions fork it)
        try:
            outs = self.run_seq(items, sub)
        finally:
            inner_unk = self.capture_unk.pop()
            self.sub_forks = forks
        if len(outs) > 1 and _exits_on_failure(self.unit, node):
            # `X=$(f)` under `set -e`: a path on which f fails ends the script there, so what it printed (often
            # nothing: `echo "none found" >&2; return 1`) is no value X takes (libertywing/FlashMemory-
            # Deepseek-V4's ci_start_disaggregation_servers.sh: `DEVICE=$(find_active_ib_device)`, a false
            # SGL049 for an empty --disaggregation-ib-device)
            ok = [o for o in outs if o.status is not False]
            outs = ok or outs
        outputs = printed_texts([(o.st.out, o.st.out_bad) for o in outs])
        if outputs is None:
            return placeholder
        inner = use.text[2:] if use.text.startswith("$(") else use.text[1:]
        first = inner.split()[0] if inner.split() else ""

        def output(parts: tuple) -> TStr:
            out = TStr.join(parts)
            out = out[:len(out.text.rstrip("\n"))]
            self.spend(len(out.text))
            return out.reached_via(use, f"$({first.rstrip(')')})")

        if len(outputs) != 1:
            label = f"$({short(inner.rstrip(')'), 40)})"

            def said(text: TStr) -> str:
                return f"{label} printing {short(text.text, 40)!r}" if text.text.strip() else \
                    f"{label} printing nothing"

            chosen = st.picks.get(key) if st.picks else None
            if chosen is not None and chosen < len(outputs):
                # this path took that output of the substitution before (a loop, a second call of the
                # function): the same one again, as the script would see (one path per choice, not per call)
                unk |= inner_unk
                text = output(outputs[chosen])
                st.push_ctx(Ctx(said(text), enclosing=False))
                return text
            if forks is not None and len(outputs) <= MAX_OUTPUTS and len(forks) < MAX_OUTPUTS:
                # `x=$(f)` where f prints one of a few texts, by a condition pdlint cannot decide
                alternatives = []
                for i, o in enumerate(outputs):
                    text = output(o)
                    alternatives.append((text, frozenset(inner_unk), said(text), i))
                forks.append((key, alternatives))
            return placeholder
        unk |= inner_unk
        return output(outputs[0])

    def capture(self, words: list, st: State, unk: set) -> None:
        """``echo``/``printf`` inside ``$(...)``: append to the captured output."""
        if words[0].text == "echo":
            args, newline, escapes = words[1:], True, False
            while args and _ECHO_FLAGS.fullmatch(args[0].text):
                newline = newline and "n" not in args[0].text
                escapes = escapes or "e" in args[0].text  # (`-eE`: the last one wins; rare enough)
                args = args[1:]
            if escapes:  # `echo -e "backend: UCX\nmax_tokens: 8"`
                args = [_echo_escapes(a) for a in args]
            out = join_with(args, computed(" ", words[0]))
            if newline:
                out = out + computed("\n", words[0])
        else:
            out = format_printf(words[1], words[2:]) if len(words) > 1 else EMPTY
            if out is None:
                st.out_bad = True
                return
        st.out = st.out + (out,)
        if self.capture_unk:
            self.capture_unk[-1].update(unk)

    def nested_shell(self, words: list, st: State, penv: list) -> bool:
        """``sh -c STRING [ARG0 ARGS...]`` anywhere in a command (also behind
        wrappers such as ``srun``/``timeout``/``docker run IMAGE``): evaluate
        STRING as a child shell that sees only exported variables.  ``ssh
        [OPTIONS] HOST COMMAND...``: COMMAND's words joined by spaces are such
        a STRING for the remote login shell, which sees none of this shell's
        variables.  Not behind a program that runs none of its words (``echo
        ssh HOST ...``)."""
        from pdlint.launchers import (NOT_RUNNERS, entrypoint_shell_image, is_assignment, ssh_command_index, ssh_script,
                                      tmux_script)
        texts = [w.text for w in words]
        prog = next((t for t in texts if not is_assignment(t)), "")
        if prog.rsplit("/", 1)[-1] in NOT_RUNNERS:
            return False
        remote = False
        entry = entrypoint_shell_image(texts, _SHELLS) if "--entrypoint" in " ".join(texts) else None
        for i in range(len(words) - 1):
            if entry is not None and i == entry[0]:  # `docker run --entrypoint bash IMAGE -c SCRIPT`
                at = _dash_c_script(words, i)
                if at is not None:
                    base, i = entry[1], i + 1  # (the words before `i` hold the image)
                    script, rest = words[at], words[at + 1:]
                    break
            base = texts[i].rsplit("/", 1)[-1]
            if base == "ssh":
                at = ssh_command_index(texts, i)
                if at is not None:
                    script, rest, remote = ssh_script(words, at), [], True
                    break
            if base == "tmux":  # (a pane's shell: started by this script's tmux, with its environment)
                typed = tmux_script(words, i)
                if typed is not None:
                    script, rest = typed, []
                    break
            if base in _SHELLS and i < len(words) - 2:
                at = _dash_c_script(words, i)
                if at is not None:
                    script, rest = words[at], words[at + 1:]
                    break
            if base in ("su", "runuser"):  # `su [-] [USER] -c CMD [USER]`: CMD run by the user's shell
                found = _su_command(words, texts, i)
                if found is not None:  # (field test rw22/h: only a PD020 "su is not a launcher")
                    script, rest = found, []
                    break
        else:
            return False
        what = "ssh" if remote else "tmux" if base == "tmux" else f"{base} -c"
        if not has_known_char(script) or not self.deeper(what):
            return False
        child = State()
        if remote:
            # the remote login shell: none of this shell's variables, the environment the script started with
            # (the configured deploy-time values), as for `ssh HOST <<EOF`
            for name, var in self.initial.items():
                child.vars[name] = var
                child.exported[name] = True
        else:
            self.child_env(child, words, i, st, penv)
        child.positional = tuple(Var(w) for w in rest[1:])
        from pdlint.launchers import container_run, exec_container_image, wrapper_image
        # (`docker run IMAGE bash -c`, or `docker exec NAME bash -c` into a container the script started by name)
        image = wrapper_image(texts[:i]) or (exec_container_image(texts[:i], self.containers)
                                             if self.containers else None)
        child.ctx = st.ctx + (Ctx(f"{what} at line {words[i].origin.line}", remote=remote, image=image or "",
                                  container=container_run(texts[:i], self.container_runs)),)
        if st.out is not None:
            child.out = ()
        unit = self.parse(script, kind="ssh command" if remote else "tmux command" if base == "tmux"
                          else f"{base} -c string")
        self.depth += 1
        try:
            with self.in_unit(unit):
                outs = self.run_block(unit.root, child)
        finally:
            self.depth -= 1
        self.nested_out = None  # (not what a shell nested in this one printed)
        if child.out is not None and not any(_DETACH.fullmatch(t) for t in texts[:i]):
            printed = printed_texts([(o.st.out, o.st.out_bad) for o in outs])
            if printed is not None and len(printed) == 1:
                self.nested_out = printed[0]  # (read by Interpreter.external)
        return True

    @staticmethod
    def child_env(child: State, words: list, i: int, st: State, penv: list) -> None:
        """The variables a local child shell (``words[i]``) sees: exported ones, the command's prefix
        assignments, and what the wrappers before the shell set (``env VAR=x``, ``docker run -e VAR=x``)."""
        from pdlint.launchers import wrapper_env
        for name, var in st.vars.items():
            if name in st.exported and not var.is_array:
                child.vars[name] = var
                child.exported[name] = True
        for name, var in penv:
            child.vars[name] = var
            child.exported[name] = True
        for name, value in wrapper_env(words, i).items():
            child.vars[name] = Var(value)
            child.exported[name] = True


_ERREXIT_ON = lazyre.compile(r"(?:^|[ \t])(?:-[a-zA-Z]*e[a-zA-Z]*\b|-o[ \t]+errexit\b)")
_ERREXIT_OFF = lazyre.compile(r"(?:^|[ \t])(?:\+[a-zA-Z]*e[a-zA-Z]*\b|\+o[ \t]+errexit\b)")
#: statements a failing assignment does not end the script from (bash ignores errexit in a `||` / `&&` list
#: but its last command, a pipeline but its last command, after `!`, and in a condition)
_NOT_STATEMENT = frozenset({"declaration_command", "command", "list", "pipeline", "negated_command",
                            "test_command", "binary_expression", "unary_expression"})


def _errexit_switches(unit) -> list:
    """``(start byte, on)`` of each ``set`` command of the text that turns errexit on or off, in text order
    (a here-document's body is text, no command: a `set -e` a script writes into another file is not its own)."""
    out = []
    stack = [unit.root]
    while stack:
        n = stack.pop()
        if n.type == "command":
            name = n.child_by_field_name("name")
            if name is not None and unit.text[unit.char(name.start_byte):unit.char(name.end_byte)] == "set":
                args = unit.text[unit.char(name.end_byte):unit.char(n.end_byte)]
                if _ERREXIT_ON.search(args):
                    out.append((n.start_byte, True))
                elif _ERREXIT_OFF.search(args):
                    out.append((n.start_byte, False))
            continue
        if n.type in ("heredoc_body", "command_substitution", "subshell", "string", "raw_string"):
            continue
        stack.extend(n.children)
    return sorted(out)


def _exits_on_failure(unit, node) -> bool:
    """Does a failing ``$(...)`` end the script here: the whole value of a plain assignment statement
    (``X=$(f)``, not ``local X=$(f)``, ``X=$(f) cmd`` whose status is another's, ``X=$(f) || true``, nor a
    condition's) where errexit is on: the last ``set -e`` / ``set +e`` (``-o errexit``) of the text before it
    (in text order: an approximation of the order they run in; field test rw20/h)."""
    parent = node.parent
    stmt = parent.parent if parent is not None else None
    if parent is None or parent.type != "variable_assignment" or stmt is None or stmt.type in _NOT_STATEMENT:
        return False
    if stmt.type in ("if_statement", "elif_clause", "while_statement", "until_statement") and any(
            c.start_byte <= parent.start_byte < c.end_byte for c in stmt.children_by_field_name("condition")):
        return False
    if unit.errexit is None:
        unit.errexit = _errexit_switches(unit)
    on = False
    for at, state in unit.errexit:
        if at >= parent.start_byte:
            break
        on = state
    return on


def printed_texts(captured: list) -> Optional[list]:
    """The distinct texts the paths of a statement printed, given each path's ``(out, out_bad)``, in path order;
    None when what one path printed is not known."""
    if any(bad or out is None for out, bad in captured):
        return None
    return list({tuple(tstr_key(t) for t in out): out for out, _ in captured}.values())


_ESCAPE = lazyre.compile(r"\\([ntr\\])")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def _echo_escapes(t: TStr) -> TStr:
    """``echo -e``'s ``\\n``, ``\\t``, ``\\r`` and ``\\\\`` in ``t``, each replaced by its character (placed at
    the escape); other text kept with its origins."""
    if "\\" not in t.text:
        return t
    parts, last = [], 0
    for m in _ESCAPE.finditer(t.text):
        parts += [t[last:m.start()], computed(_ESCAPED[m.group(1)], t[m.start():m.end()])]
        last = m.end()
    parts.append(t[last:])
    return TStr.join(parts)


def _dash_c_script(words: list, i: int) -> Optional[int]:
    """Index of SCRIPT in ``sh [OPTIONS] -c SCRIPT`` (``-lc``, ``-l -c``,
    ``--login -c``, ``-e -u -c``) when ``words[i]`` is the shell."""
    j = i + 1
    while j < len(words) - 1:
        t = words[j].text
        if _DASH_C.fullmatch(t):
            return j + 1
        if t.startswith("-") and len(t) > 1 and t not in ("-o", "+o", "-O", "+O"):
            j += 1
            continue
        return None
    return None


_TR_CLASSES = {"[:space:]": " \t\n\r\f\v", "[:blank:]": " \t"}
_TR_ESCAPES = {"\\n": "\n", "\\t": "\t", "\\r": "\r", "\\f": "\f", "\\v": "\v", "\\\\": "\\"}


def _tr_set(spec: str) -> Optional[str]:
    """The characters of a ``tr`` set made of literal characters, ``\\n``-style escapes and the
    ``[:space:]`` / ``[:blank:]`` classes; None for anything else (ranges, other classes)."""
    out, i = [], 0
    while i < len(spec):
        for k, v in list(_TR_CLASSES.items()) + list(_TR_ESCAPES.items()):
            if spec.startswith(k, i):
                out.append(v)
                i += len(k)
                break
        else:
            c = spec[i]
            if c in "[\\" or (c == "-" and 0 < i < len(spec) - 1):
                return None
            out.append(c)
            i += 1
    return "".join(out)


def _delete(text: TStr, drop) -> TStr:
    """``text`` without the characters at which ``drop(index)`` holds (the others keep their origins)."""
    parts, start = [], None
    for i in range(len(text.text)):
        if drop(i):
            if start is not None:
                parts.append(text[start:i])
                start = None
        elif start is None:
            start = i
    if start is not None:
        parts.append(text[start:])
    return TStr.join(parts)


def filter_text(words: list, text: TStr) -> Optional[TStr]:
    """What a text filter in a pipeline inside ``$(...)`` writes for ``text``, or None when pdlint does not
    know it.  Known: ``tr -d SET`` (SET of literal characters, escapes, ``[:space:]``, ``[:blank:]``: vLLM's
    ``KV_CONFIG=$(echo "$KV_CONFIG" | tr -d '[:space:]')``), ``jq -c .`` / ``jq -c`` on a JSON text (its
    insignificant blanks removed, one line) and ``xargs`` / ``xargs echo`` (:func:`_xargs_echo`)."""
    prog = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if prog == "xargs" and args in ([], ["echo"]):
        return _xargs_echo(text)
    if prog == "tr" and len(args) == 2 and args[0] == "-d":
        chars = _tr_set(args[1])
        if chars is None:
            return None
        return _delete(text, lambda i: text.text[i] in chars)
    if prog == "jq" and args in (["-c"], ["-c", "."], ["--compact-output", "."], ["--compact-output"]):
        import json
        try:
            json.loads(text.text)
        except (ValueError, RecursionError):
            return None
        inside, escaped, drop = False, False, set()
        for i, c in enumerate(text.text):
            if inside:
                escaped, inside = (not escaped and c == "\\"), inside if (escaped or c != '"') else False
            elif c == '"':
                inside = True
            elif c in " \t\n\r":
                drop.add(i)
        return _delete(text, drop.__contains__) + computed("\n", text)
    return None


#: the most ``xargs`` passes to one ``echo`` (GNU xargs' default command-line size): more is more than one line
_XARGS_MAX = 128 * 1024
#: what ``xargs`` reads as quoting (its own, not the shell's); blanks an unknown value must not hold
_XARGS_QUOTES = frozenset("'\"\\")
_XARGS_BLANKS = lazyre.compile(r"[^ \t\n]+")


def _xargs_echo(text: TStr) -> Optional[TStr]:
    """What ``xargs`` (``xargs echo``) writes for ``text``: its blank- and newline-separated words on one line,
    single spaces between them, each word keeping its origins: the whitespace trim ``trim_spaces() { echo "$*" |
    xargs; }`` of ROCm/AMD-derived scripts (sabreshao/sglang_disagg's pd_server.sh builds its servers' flags
    through it).  None when pdlint cannot tell: a quote or backslash (xargs' own quoting), an unknown value
    that may hold blanks or quotes, a first word ``echo`` reads as its option (``-n``), more than one command
    line of words."""
    s = text.text
    if len(s) > _XARGS_MAX or any(c in _XARGS_QUOTES for c in s):
        return None
    if any(p.opaque and not _XARGS_BLANKS.fullmatch(s[p.start:p.end]) for p in text.pieces):
        return None
    found = [text[m.start():m.end()] for m in _XARGS_BLANKS.finditer(s)]
    if found and _ECHO_FLAGS.fullmatch(found[0].text):
        return None
    return join_with(found, computed(" ", text)) + computed("\n", text)


def exit_status(words: list) -> Optional[bool]:
    if len(words) < 2:
        return True if words[0].text == "exit" else None
    text = words[1].text
    return text == "0" if text.lstrip("-").isdigit() else None


def file_of(t: TStr) -> Optional[SourceFile]:
    for p in t.pieces:
        if p.src is not None:
            return p.src
    return None


def script_relative(path: TStr) -> str:
    """The path given to ``source``, with a leading script-directory idiom
    (``$(dirname "$0")/``, ``$SCRIPT_DIR/`` holding ``$(cd "$(dirname
    "${BASH_SOURCE[0]}")" && pwd)``, ``${BASH_SOURCE%/*}/``...) removed, so it
    is relative to the sourcing file's directory."""
    text = path.text
    mask = opaque_mask(path)
    if not mask or not mask[0]:
        return text
    k = next((i for i, m in enumerate(mask) if not m), len(text))
    prefix = text[:k]
    if k < len(text) and text[k] == "/" and _is_script_dir(prefix):
        # `$(cd "$(dirname "$0")" && cd .. && pwd)`, `$(dirname "$0")/..`: the script directory's parent
        return "../" * len(_PARENT.findall(prefix)) + text[k + 1:]
    return text


def script_relative_token(tok: TStr) -> TStr:
    """``tok`` without a leading script-directory idiom (:func:`script_relative`): ``$SCRIPT_DIR/ctx.yaml``
    with ``SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"`` is ``ctx.yaml`` beside the script,
    and a launch's config file named so is read (vLLM --config, TRT-LLM --extra_llm_api_options, SGLang
    --config); a path that climbs (``../x.yaml``) keeps only what was written after the idiom."""
    if not tok.opaque:
        return tok
    rel = script_relative(tok)
    if rel == tok.text or rel.startswith("../"):
        return tok
    return tok[len(tok.text) - len(rel):]


_PARENT = lazyre.compile(r"""(?:(?<=[\s/"'])|^)\.\.(?=$|[\s/"');&])""")


def _is_script_dir(prefix: str) -> bool:
    if _SCRIPT_DIR.match(prefix):
        return True
    return "dirname" in prefix and bool(re.search(r"\$0\b|\$\{0\}|BASH_SOURCE", prefix))


_Q_SAFE = lazyre.compile(r"[A-Za-z0-9_./:=@%+,-]")


def shell_quote(arg: TStr, at: TStr) -> TStr:
    """``printf %q``: ``arg`` quoted so that the shell reads it back as exactly
    one word, as bash does (a backslash before each special character; a
    single-quoted word when it holds control characters; ``''`` for the empty
    string).  The quoting characters are computed (located at the ``%q`` in
    ``at``); the characters of ``arg`` keep their origins (and placeholders
    stay opaque), so the word read back is ``arg`` itself."""
    text = arg.text
    if not text:
        return computed("''", at)
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        parts = [computed("'", at)]
        start = 0
        for k, c in enumerate(text):
            if c == "'":
                parts += [arg[start:k], computed("'\\''", at)]
                start = k + 1
        parts += [arg[start:], computed("'", at)]
        return TStr.join(parts)
    parts = []
    start = 0
    for k, c in enumerate(text):
        if _Q_SAFE.fullmatch(c) or (ord(c) > 127 and c.isprintable()):
            continue
        parts += [arg[start:k], computed("\\", at), arg[k:k + 1]]
        start = k + 1
    if not parts:
        return arg
    parts.append(arg[start:])
    return TStr.join(parts)


def format_printf(fmt: TStr, args: list) -> Optional[TStr]:
    """``printf FORMAT ARGS`` for ``%s %b %q %d %i %c %%`` without widths;
    None for anything else.  The format is reused while arguments remain."""
    s = fmt.text
    parts: list = []
    ai = 0
    for _ in range(len(args) + 1):
        consumed = False
        start = i = 0
        while i < len(s):
            c = s[i]
            if c == "\\" and i + 1 < len(s):
                parts.append(fmt[start:i])
                esc = s[i + 1]
                parts.append(computed(_ANSI[esc], fmt[i:i + 2]) if esc in _ANSI else fmt[i:i + 2])
                i += 2
                start = i
                continue
            if c != "%":
                i += 1
                continue
            parts.append(fmt[start:i])
            m = _PRINTF_CONV.match(s, i)
            if not m or m.group(1) or m.group(2) or m.group(3) is not None:
                return None
            conv = m.group(4)
            if conv == "%":
                parts.append(fmt[i + 1:i + 2])
            else:
                arg = args[ai] if ai < len(args) else EMPTY
                ai += 1
                consumed = True
                if conv in "di" and not arg.opaque:
                    text = arg.text.strip()
                    if text and not re.fullmatch(r"[-+]?[0-9]+", text):
                        return None
                    parts.append(computed(str(int(text or "0")), arg if arg.text else fmt[i:m.end()]))
                elif conv == "c":
                    parts.append(arg[:1])
                elif conv == "q":
                    parts.append(shell_quote(arg, fmt[i:m.end()]))
                else:
                    parts.append(arg)
            i = m.end()
            start = i
        parts.append(fmt[start:])
        if ai >= len(args) or not consumed:
            break
    return TStr.join(parts)


def _ifs(st, penv) -> str:
    """``IFS`` for one command: its ``IFS=...`` prefix, else the shell's, else blank-tab-newline."""
    for name, var in penv:
        if name == "IFS" and var.scalar() is not None:
            return var.scalar().text
    var = st.vars.get("IFS")
    if var is not None and var.scalar() is not None and not var.scalar().opaque:
        return var.scalar().text
    return " \t\n"


def _ifs_split(line: TStr, ifs: str) -> list:
    """``read -a``'s fields of ``line``: IFS blanks run together and are trimmed, any other
    IFS character ends one field (so ``a,,b`` has an empty middle field)."""
    text, out, start = line.text, [], 0
    for i, ch in enumerate(text):
        if ch in ifs:
            if i > start or ch not in " \t\n":
                out.append(line[start:i])
            start = i + 1
    if start < len(text):
        out.append(line[start:])
    return out


def _misparsed_arithmetic(unit, node) -> bool:
    """``$(( ... ))`` that tree-sitter-bash parsed as a command substitution of a subshell (it does so inside a
    ``${X:-...}`` word): the text is ``$((...))`` with no blank after ``$(`` and the only child is that subshell."""
    text = unit.source_text(node)
    if not (text.startswith("$((") and text.endswith("))")):
        return False
    kids = node.named_children
    return len(kids) == 1 and kids[0].type == "subshell"


#: a name shown assigned in text a command prints for ``eval``: ``NAME=``, ``NAME+=`` (not ``--flag=``, ``a.b=``,
#: ``x==``); ``export NAME`` / ``declare -x NAME ...``
_SHOWN_ASSIGN = lazyre.compile(r"(?<![\w$.{}\-])([A-Za-z_][A-Za-z0-9_]*)\+?=(?![=~])")
_SHOWN_DECLARED = lazyre.compile(r"\b(?:export|declare|typeset|readonly)((?:[ \t]+-[A-Za-z]+)*(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)+)")
#: the script file a command substitution runs (``python3 tools/render.py``, ``bash ./env.sh``)
_RUN_FILE = lazyre.compile(r"(?:^|[\s;|&(])(?:python3?|bash|sh)\s+(?:-[A-Za-z]+\s+)*[\"']?([\w./-]+\.(?:py|sh))\b")
_MAX_RUN_FILES = 4
_MAX_SCANNED = 256 * 1024


def shown_assigned(text: str) -> set:
    """The variable names ``text`` shows assigned (see :data:`_SHOWN_ASSIGN`)."""
    names = set(_SHOWN_ASSIGN.findall(text))
    for m in _SHOWN_DECLARED.finditer(text):
        names.update(w for w in m.group(1).split() if not w.startswith("-"))
    return names


def _substitution_texts(unit, node) -> list:
    """The source texts of the command / process substitutions in ``node`` (and in the here-documents of the
    statement it heads)."""
    out = []
    top = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
    stack = [top]
    while stack:
        n = stack.pop()
        if n.type in ("command_substitution", "process_substitution"):
            out.append(unit.source_text(n))
            continue
        if n.type == "heredoc_body" and n.parent is not None and n.parent.parent is top:
            out.append(unit.source_text(n))
            continue
        stack.extend(n.children)
    return out


#: su's and runuser's options that take a value (util-linux): in a cluster the rest of it, else the next word
_SU_SHORT_VALUE = "gGsw"
_SU_LONG_VALUE = ("--shell", "--group", "--supp-group", "--whitelist-environment")
_SU_COMMAND = ("--command", "--session-command")


def _su_command(words: list, texts: list, i: int):
    """The command ``su`` / ``runuser`` at ``words[i]`` runs with the user's shell, as getopt reads its options:
    ``-c CMD``, ``-cCMD``, a cluster ending in it (``-lc CMD``, ``-pcCMD``), ``--command[=]CMD``,
    ``--session-command[=]CMD`` (field test rw23/h: every spelling but ``-c`` / ``--command`` was a PD020); None
    when it runs none."""
    j = i + 1
    while j < len(texts):
        t = texts[j]
        if t == "--":
            return None  # (what follows is the user and the shell's own arguments)
        if t in _SU_COMMAND:
            return words[j + 1] if j + 1 < len(texts) else None
        for long in _SU_COMMAND:
            if t.startswith(long + "="):
                return words[j][len(long) + 1:]
        if t.startswith("--"):
            j += 2 if t in _SU_LONG_VALUE else 1
            continue
        if t.startswith("-") and len(t) > 1:
            for k in range(1, len(t)):
                if t[k] == "c":
                    if k + 1 < len(t):
                        return words[j][k + 1:]
                    return words[j + 1] if j + 1 < len(texts) else None
                if t[k] in _SU_SHORT_VALUE:
                    if k + 1 == len(t):
                        j += 1  # (its value is the next word)
                    break
        j += 1
    return None
