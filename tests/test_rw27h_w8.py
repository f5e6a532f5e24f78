"""Shell evaluator fidelity on hostile input (hostile-input round rw27/h, worktree w8).

Each item of the round's report has a test that failed before its fix and one showing the common case stays as it
was.  Ground truth is bash itself (the argv a script runs) and the SGLang 0.5.23 oracle for the verdicts:

* P25: ``$((10#$P - 6))`` is valid bash (a base prefix before an expansion) that tree-sitter-bash 0.25 does not
  read; pdlint evaluated it and also reported PD009.
* P5: ``"${F[@]/#/--}"``: an anchored empty pattern matches the start (end) of every item; pdlint dropped the
  prefix (false SGL011 x2 and SGL010).
* P23: ``${TP@Q}`` of a known ``2`` is ``'2'`` (oracle: REJECT invalid int value: "'2'"); pdlint kept the word
  opaque and passed clean.  ``@E``, ``@U``, ``@L``, ``@u`` are computed too; the others stay opaque.
* P2 / P2b: the script's ``IFS`` was ignored in word splitting (a constant): ``IFS=`` kept a clean pass where bash
  passes one word (oracle REJECT), ``IFS=,`` gave false SGL001/SGL010 on a valid argv.
* P3 / P3b / P9: ``unset 'A[3]'`` was a no-op and ``X=(); X[5]=2`` put the item at index 0: indexed arrays now
  keep their gaps (``Var.idx``).
* P7 / P8: ``declare -n R=V`` read ``$R`` as the text ``V``; ``declare -i TP=1+1`` as the text ``1+1`` (false
  SGL005 both).
* P4: ``$(< file)`` gave no output (a clean pass of the file's flags, a false SGL010); now as ``$(cat file)``.
* P6: ``echo ... | xargs LAUNCH`` and ``xargs LAUNCH < file``: the words xargs appends were dropped (false
  SGL010); now the echoed words, or one placeholder (PD023).
* P12 / P12b: ``python3 -m sglang".launch_server"`` (also ``"sglang"".launch_server"``, ``$'sg\\x6cang...'``):
  0 launches, the statement judged unable to launch on its written text (shell.tails); a script running
  ``python3 -m "$E.${S}_server"`` was skipped in a directory walk (discover.worth_parsing).
* P10: a Makefile's recipe lines (no ``.ONESHELL:``) were read as one shell script: ``TP=2`` on one line was taken
  as set for ``--tp-size $$TP`` on the next, where make's shell passes no value.
"""

from __future__ import annotations

from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr

LAUNCH = "python3 -m sglang.launch_server"


def _run(script: str):
    reports = []
    ctx = ShellContext(lambda p, c: None, lambda code, msg, *a: reports.append((code, msg)))
    cmds = shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx)
    return cmds, reports


def argv(script: str) -> list:
    return [[w.text for w in c.words] for c in _run(script)[0]]


def words(script: str) -> list:
    """(text, opaque) of each word of each command."""
    return [[(w.text, w.opaque) for w in c.words] for c in _run(script)[0]]


def reports(script: str) -> list:
    return [code for code, _ in _run(script)[1]]


def _codes(report, *codes):
    return [f["code"] for f in report["findings"] if not codes or f["code"] in codes]


# --- P25: base-prefixed arithmetic ---------------------------------------------------------------------------------

def test_p25_base_prefix_before_an_expansion_is_not_a_syntax_error():
    script = f"P=08\n{LAUNCH} --model-path /m --tp-size $((10#$P - 6))\n"
    assert argv(script)[-1][-2:] == ["--tp-size", "2"]
    assert "PD-SHELL-PARSE" not in reports(script)


def test_p25_broken_arithmetic_is_still_a_syntax_error():
    assert "PD-SHELL-PARSE" in reports(f"P=08\n{LAUNCH} --model-path /m --tp-size $((10#$P - 6 +* ))\n")


# --- P5: per-item pattern operations of an array --------------------------------------------------------------------

def test_p5_anchored_empty_pattern_prefixes_and_suffixes_every_item():
    # bash 5.2: --tp-size=2 --model-path=/m
    script = f'F=(tp-size=2 model-path=/m)\n{LAUNCH} "${{F[@]/#/--}}" "${{F[@]/%/x}}"\n'
    assert argv(script)[-1][3:] == ["--tp-size=2", "--model-path=/m", "tp-size=2x", "model-path=/mx"]


def test_p5_unanchored_empty_pattern_and_the_other_item_operations_stay_as_bash():
    script = ('F=(tp-size=2 model-path=/m)\nprintf "<%s>" "${F[@]//}" "${F[@]#tp-}" "${F[@]%%-*}" "${F[@]^^}" '
              '${F[@]/-/_}\n')
    assert argv(script)[-1][2:] == ["tp-size=2", "model-path=/m", "size=2", "model-path=/m", "tp", "model",
                                    "TP-SIZE=2", "MODEL-PATH=/M", "tp_size=2", "model_path=/m"]


def test_p5_array_prefix_gives_a_clean_launch(scratch_git):
    scratch_git.write("run.sh", f'F=(tp-size=2 model-path=/m)\n{LAUNCH} "${{F[@]/#/--}}"\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


# --- P23: ${X@op} transformations of a known value --------------------------------------------------------------

def test_p23_quoted_transformation_of_a_known_value_is_computed(scratch_git):
    script = "TP=2\nY=\"a'b\"\nE=$'a\\\\tb'\nprintf '<%s>' ${TP@Q} ${Y@Q} ${Y@U} ${Y@u} \"${E@E}\" ${TP@A}\n"
    # bash 5.2: <'2'><'a'\''b'><A'B><A'b><a	b> and ${TP@A} (not computed: opaque)
    got = words(script)[-1][2:]
    assert [t for t, _ in got[:5]] == ["'2'", "'a'\\''b'", "A'B", "A'b", "a\tb"]
    assert got[5][1] is True
    scratch_git.write("run.sh", f"TP=2\n{LAUNCH} --model-path /m --tp-size ${{TP@Q}}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["SGL005"] and code == 1


def test_p23_case_transformation_of_a_flag_value_stays_clean(scratch_git):
    scratch_git.write("run.sh", f"M=PREFILL\n{LAUNCH} --model-path /m --disaggregation-mode ${{M@L}}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert "SGL004" not in _codes(report) and "PD023" not in _codes(report)


# --- P2 / P2b: the script's IFS ----------------------------------------------------------------------------------

IFS_CASES = r"""p() { printf '<%s>' "$@"; }
IFS=,; x=",a"; p $x pre$x; x="a,"; p $x; x="a,,b"; p $x; x="a"; p $x"",
IFS=", "; x=" a , b ,, c "; p $x
IFS=; x="a b"; p $x; A=(1 2); p "${A[*]}"
IFS=$'\n'; x="a b
c d"; p $x
IFS=:; p "${A[*]}"
unset IFS; x="a b"; p $x
f() { local IFS=,; x="a,b c"; p $x; }; f; x="a b"; p $x
g() { local IFS; x="a b"; p $x; }; IFS=,; g
x="a,b"; IFS=" " p $x  # (a prefix assignment does not split its own command's words: IFS is still ",")
IFS=$(cat f); y="f g"; p $y
"""


def test_p2_words_split_at_the_scripts_ifs_as_bash_does():
    got = [["<%s>" % t for t, _ in c[2:]] for c in words(IFS_CASES) if c and c[0][0] == "printf"]
    # bash 5.2's output, one command per line
    assert ["".join(c) for c in got[:-1]] == [
        "<><a><pre><a>", "<a>", "<a><><b>", "<a,>",
        "<a><b><><c>",
        "<a b>", "<12>",
        "<a b><c d>",
        "<1:2>",
        "<a><b>",
        "<a><b c>", "<a><b>",
        "<a><b>",
        "<a><b>",
    ]
    last = [c for c in words(IFS_CASES) if c and c[0][0] == "printf"][-1]
    assert last[2][1] is True  # an IFS pdlint cannot see: where the value splits is unknown


def test_p2_empty_ifs_keeps_the_flags_one_word(scratch_git):
    scratch_git.write("run.sh", f'IFS=\nA="--model-path /m --tp-size 2"\n{LAUNCH} $A\n')
    code, report = scratch_git.lint("--strict", ".")
    assert "SGL010" in _codes(report) and code == 1  # oracle: REJECT, one argument


def test_p2b_comma_ifs_splits_a_valid_argv(scratch_git):
    scratch_git.write("run.sh", f'IFS=,\nA="--model-path,/m,--tp-size,2"\n{LAUNCH} $A\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p2_default_ifs_and_read_with_an_ifs_prefix_stay_as_before(scratch_git):
    scratch_git.write("run.sh", f'IFS=, read -ra P <<< "--model-path,/m"\nA="--tp-size 2"\n'
                                f'{LAUNCH} "${{P[@]}}" $A\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


# --- P3 / P3b / P9: indexed arrays with gaps -----------------------------------------------------------------------

def test_p3_unset_element_and_assignment_past_the_end_as_bash():
    got = [["<%s>" % w for w in c[2:]] for c in argv(r"""p() { printf '<%s>' "$@"; }
A=(a b c d); unset 'A[1]'; p "${A[@]}" "${A[2]}" "${#A[@]}" "${!A[@]}" "$A"
unset A[0]; p "${A[@]}" "${A[-1]}" "$A" x${A}x
A+=(e f); p "${A[@]}" "${!A[@]}"
A[1]=B; p "${A[@]}" "${!A[@]}"
X=(); X[5]=2; p "${X[@]}" "${X[5]}" "${#X[@]}" "${!X[@]}" x${X}x
X[-1]=9; unset 'X[-1]'; p "${X[@]}" "${!X[@]}"
declare -A M=([a]=1 [b]=2); unset 'M[a]'; p "${M[@]}"
C=(1 2 3); unset 'C[@]'; p "${C[@]-gone}"
""") if c[0] == "printf"]
    # bash 5.2's output, one command per line
    assert ["".join(c) for c in got] == [
        "<a><c><d><c><3><0><2><3><a>",
        "<c><d><d><><xx>",
        "<c><d><e><f><2><3><4><5>",
        "<B><c><d><e><f><1><2><3><4><5>",
        "<2><2><1><5><xx>",
        "<>",
        "<2>",
        "<gone>",
    ]


def test_p3_unset_value_of_a_flag_is_seen(scratch_git):
    scratch_git.write("run.sh", f"A=(--model-path /m --tp-size 2)\nunset 'A[3]'\n{LAUNCH} \"${{A[@]}}\"\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["SGL003"] and code == 1  # oracle: expected one argument


def test_p3b_unset_bad_value_gives_a_valid_argv(scratch_git):
    scratch_git.write("run.sh", f"A=(--model-path /m --tp-size x)\nunset 'A[3]'\n{LAUNCH} \"${{A[@]}}\" 2\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p9_assignment_past_the_end_of_an_empty_array(scratch_git):
    scratch_git.write("run.sh", f"X=()\nX[5]=2\n{LAUNCH} --model-path /m --tp-size ${{X[5]}}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p3_dense_array_edits_stay_as_before():
    assert argv('A=(a b); A[1]=c; A[2]=d; A+=(e); unset "A[4]"; printf "<%s>" "${A[@]}" "${A[1]}" "${!A[@]}"\n')[-1][2:] \
        == ["a", "c", "d", "e", "c", "0", "1", "2", "3"]  # (bash 5.2)


# --- P7 / P8: declare -n and declare -i ------------------------------------------------------------------------

REFS = r"""p() { printf '<%s>' "$@"; }
declare -n R=V; V=2; p "$R" "${R}x" "${#R}"
R=5; p "$V"
f() { local -n arr=$1; p "${arr[@]}"; arr+=(z); }; L=(a b); f L; p "${L[@]}"
declare -i N=1+1; p $N; N=3*4; p $N; M=3*4; p $M
g() { local -i k=7/2; p $k; }; g; k=1+1; p $k
declare -i Q=$X+1; p $Q
"""


def test_p7_p8_namerefs_and_integer_variables_as_bash():
    got = [c[2:] for c in words(REFS) if c and c[0][0] == "printf"]
    # bash 5.2's output, one command per line
    assert ["".join("<%s>" % t for t, _ in c) for c in got[:-1]] == [
        "<2><2x><1>", "<5>", "<a><b>", "<a><b><z>", "<2>", "<12>", "<3*4>", "<3>", "<1+1>"]
    assert got[-1][0][1] is True  # an integer value pdlint cannot evaluate (X unknown): a placeholder


def test_p7_nameref_value_is_the_target_s(scratch_git):
    scratch_git.write("run.sh", f'declare -n R=V\nV=2\n{LAUNCH} --model-path /m --tp-size "$R"\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p8_integer_variable_is_evaluated(scratch_git):
    scratch_git.write("run.sh", f"declare -i TP=1+1\n{LAUNCH} --model-path /m --tp-size $TP\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p8_plain_declare_keeps_the_text(scratch_git):
    scratch_git.write("run.sh", f"declare TP=1+1\n{LAUNCH} --model-path /m --tp-size $TP\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["SGL005"] and code == 1  # bash passes '1+1' (oracle: invalid int value)


# --- P4: $(< file) ---------------------------------------------------------------------------------------------

def test_p4_file_read_substitution_is_unseen_not_empty(scratch_git):
    scratch_git.write("args.txt", "--model-path /m --tp-size 2\n")
    scratch_git.write("run.sh", f"{LAUNCH} $(< args.txt)\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["PD023"] and code == 1  # as for $(cat args.txt); no false SGL010


def test_p4_cat_substitution_and_write_redirect_stay_as_before():
    got = words('echo $(cat a.txt) x$(> /dev/null)y\n')[-1]
    assert got[1] == ("$(cat a.txt)", True) and got[2] == ("xy", False)


# --- P6: xargs appends the words it reads -------------------------------------------------------------------------

def test_p6_xargs_appends_the_echoed_words(scratch_git):
    scratch_git.write("run.sh", f"echo --model-path /m --tp-size 2 | xargs {LAUNCH}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


def test_p6_xargs_of_a_file_ends_in_words_pdlint_cannot_see(scratch_git):
    scratch_git.write("args.txt", "--tp-size x\n")
    scratch_git.write("run.sh", f"xargs {LAUNCH} < args.txt\n")
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["PD023"] and code == 1  # never the false SGL010


def test_p6_xargs_forms():
    got = words("echo --tp-size x | xargs python3 -m sglang.launch_server --model-path /m\n"
                "find . | xargs -I{} python3 -m sglang.launch_server --config {}\n"
                "echo /m | xargs -n1 python3 -m sglang.launch_server --model-path\n")
    texts = [[t for t, _ in c] for c in got]
    assert texts[1][-2:] == ["--tp-size", "x"]  # the echoed words, at the echo
    assert got[3][-1] == ("{}", True)  # -I: the replaced words are placeholders, nothing appended
    assert got[5][-1][1] is True and got[5][-2][0] == "--model-path"  # -n1: one placeholder


# --- P12 / P12b: a launcher split by quotes; a module name the script computes -------------------------------

def test_p12_launcher_split_by_quotes_is_evaluated(scratch_git):
    for module in ('sglang".launch_server"', '"sglang"".launch_server"', "$'sg\\x6cang.launch_server'"):
        scratch_git.write("run.sh", f"# sglang\npython3 -m {module} --model-path /m --tp-size x\n")
        code, report = scratch_git.lint("--strict", "run.sh")
        assert _codes(report) == ["SGL005"] and code == 1, module


def test_p12b_computed_module_is_checked_in_a_directory_walk(scratch_git):
    from pdlint.discover import worth_parsing
    assert worth_parsing("shell", b'python3 -m "$MOD" --port 1\n')
    scratch_git.write("run.sh", 'E=sg\nE+=lang\nS=launch\npython3 -m "$E.${S}_server" --model-path /m --tp-size x\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == ["SGL005"] and code == 1


def test_p12_scripts_without_launches_stay_quiet(scratch_git):
    from pdlint.discover import worth_parsing
    assert not worth_parsing("shell", b'python3 -m pip install -r "requirements.txt"\necho "done"\n')
    scratch_git.write("run.sh", 'M=http.server\npython3 -m "$M" 8000\necho "a"".b"\n')
    code, report = scratch_git.lint("--strict", ".")
    assert _codes(report) == [] and code == 0


# --- P10: Makefile recipe lines run in shells of their own -----------------------------------------------------

def _recipe_words(makefile: str) -> dict:
    """target -> the words of each command its recipe runs (text, opaque)."""
    from pdlint.formats import makefile as mk
    out = {}
    for rule in mk.rules(TStr.from_source(SourceFile("Makefile", makefile)))[0]:
        ctx = ShellContext(lambda p, c: None, lambda *a: None)
        out[rule.target] = [[(w.text, w.opaque) for w in c.words] for c in shell_commands(rule.body, ctx)]
    return out


def test_p10_variable_of_one_recipe_line_is_not_set_on_the_next():
    got = _recipe_words(f"serve:\n\tTP=2\n\tcd /tmp\n\t{LAUNCH} --model-path /m --tp-size $$TP\n")
    # make runs each line in its own shell: TP is not set there (bash: `--tp-size` with no value, or the
    # environment's TP) - never 2
    assert got["serve"][-1][-1] == ("$TP", True)


def test_p10_variable_of_one_recipe_line_is_not_checked_as_set(scratch_git):
    scratch_git.write("Makefile", f"serve:\n\tTP=x\n\t{LAUNCH} --model-path /m --tp-size $$TP\n")
    code, report = scratch_git.lint("--strict", ".")
    assert "SGL005" not in _codes(report)  # (x is not what the launch line's shell has)


def test_p10_oneshell_continued_and_one_line_recipes_share_their_variables():
    got = _recipe_words(f".ONESHELL:\nserve:\n\tTP=x\n\t{LAUNCH} --model-path /m --tp-size $$TP\n")
    assert got["serve"][-1][-1] == ("x", False)
    got = _recipe_words(f"serve:\n\tTP=y; \\\n\t{LAUNCH} --model-path /m --tp-size $$TP\n"
                        f"other:\n\tTP=z && {LAUNCH} --model-path /m --tp-size $$TP\n")
    assert got["serve"][-1][-1] == ("y", False) and got["other"][-1][-1] == ("z", False)
