"""Hostile-input round rw35/h, P3 and P11 (shell loops).

P3: a 198-byte script, ``for (( i = 0; i < 255; i++ ))`` over ``if [ "$X" = "$i" ]; then Y="${Y}a"; else
Y="${Y}b"; fi`` before a launch reading ``$Y``, used 512 MB and ended in PD008 (the launch not checked): the
counter is kept (the body changes a variable a launch reads), every iteration split every path again on the unknown
``$X`` and the paths never joined, so the loop ran its whole count at the path limit.  The ``for i in $(seq ...)``
form did the same (the time budget).  Now a loop whose paths multiply for SPLIT_ITERATIONS iterations in a row goes
on as a ``while`` loop does: what it sets is unknown after it (an undecided value at the launch), with a PD015 at
the loop saying its other iterations were skipped.

P11: a ``for (( ))`` or ``while`` loop cut at 256 iterations said nothing when its body ran no command
(``ARGS+=(--prefill http://p$i:8000)`` 300 times: a clean pass with 256 prefills; a loop to 100,000,000 too),
while ``for i in $(seq 1 300)`` gave PD015, as docs/shell-parser.md's limits table promises for every loop.  Now a
cut loop whose iterations change a variable a launch reads (or run a command) reports PD015, at the loop's line.
"""

SPLIT_MSG = ("a loop's paths kept splitting: they doubled in 4 of its iterations and never became fewer; the rest "
             "of its iterations were skipped and what it sets is unknown after it")  # (worded so since rw35/i P4)
CUT_MSG = "a loop ran more than 256 iterations; the rest was skipped"
SERVER = 'python3 -m sglang.launch_server --model-path m --tp-size 2 --served-model-name "$Y"\n'
ROUTER = 'python -m sglang_router.launch_router --pd-disaggregation "${ARGS[@]}" --decode http://d:8000\n'


def _check(scratch, name, text):
    scratch.write(name, text)
    code, report = scratch.lint(name)
    return code, [(f["line"], f["code"], f["message"]) for f in report["findings"]], report["launches"]


def _flag(launch, flag):
    argv = launch["argv"]
    return argv[argv.index(flag) + 1]


# -- P3 -------------------------------------------------------------------------------------------------------

def test_a_counted_loop_whose_paths_keep_splitting_is_widened_and_its_launch_checked(scratch):
    # (60 iterations, not the repro's 255: on main's code 60 already ran at the path limit to the end, 16 launches
    # each with one guess of Y and a 'more than 16 branch paths' PD015; 255 ran out the 512 MB budget)
    code, findings, launches = _check(scratch, "loop.sh", (
        "for (( i = 0; i < 60; i++ )); do\n"
        '  if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi\n'
        "done\n" + SERVER))
    assert findings == [(1, "PD015", SPLIT_MSG)] and code == 0
    assert len(launches) == 1
    assert _flag(launches[0], "--served-model-name") == "<what the loop at line 1 leaves in Y>"


def test_a_for_in_loop_whose_paths_keep_splitting_is_widened_too(scratch):
    code, findings, launches = _check(scratch, "forin.sh", (
        "for i in $(seq 0 59); do\n"
        '  if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi\n'
        "done\n" + SERVER))
    assert findings == [(1, "PD015", SPLIT_MSG)] and code == 0
    assert [_flag(l, "--served-model-name") for l in launches] == ["<what the loop at line 1 leaves in Y>"]


def test_a_counted_loop_that_adds_one_path_per_iteration_still_runs_its_count(scratch):
    """Neighbour: `if [ "$NODE_RANK" = "$i" ]; then PORT=...; fi` splits once per iteration, the path where it
    matched does not split again: each rank's port reaches the launch, no finding."""
    code, findings, launches = _check(scratch, "rank.sh", (
        "for (( i = 0; i < 8; i++ )); do\n"
        '  if [ "$NODE_RANK" = "$i" ]; then PORT=$((30000 + i)); fi\n'
        "done\n"
        'python -m sglang.launch_server --port "$PORT" --model-path m\n'))
    assert findings == [] and code == 0
    assert sorted(_flag(l, "--port") for l in launches) == ["$PORT"] + [str(30000 + i) for i in range(8)]


def test_a_splitting_loop_that_ends_within_the_bound_keeps_every_path(scratch):
    """Neighbour: four iterations, each splitting: the loop ends before it would be cut (16 launches, no note)."""
    code, findings, launches = _check(scratch, "four.sh", (
        "for (( i = 0; i < 4; i++ )); do\n"
        '  if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi\n'
        "done\n" + SERVER))
    assert findings == [] and code == 0
    assert len({_flag(l, "--served-model-name") for l in launches}) == 16


# -- P11 ------------------------------------------------------------------------------------------------------

def test_a_counted_loop_cut_at_the_bound_is_said(scratch):
    for count in ("300", "100000000"):
        code, findings, launches = _check(scratch, f"router{count}.sh", (
            f"ARGS=()\nfor (( i = 0; i < {count}; i++ )); do\n  ARGS+=(--prefill http://p$i:8000)\ndone\n" + ROUTER))
        assert findings == [(2, "PD015", CUT_MSG)] and code == 0
        assert len(launches) == 1


def test_a_while_loop_cut_at_the_bound_is_said(scratch):
    code, findings, _ = _check(scratch, "while.sh", (
        "ARGS=()\ni=0\nwhile [ $i -lt 300 ]; do\n  ARGS+=(--prefill http://p$i:8000)\n  i=$((i + 1))\ndone\n"
        + ROUTER))
    assert findings == [(3, "PD015", CUT_MSG)] and code == 0


def test_a_counter_read_after_a_cut_loop_is_said(scratch):
    code, findings, launches = _check(scratch, "after.sh", (
        "for (( i = 0; i < 1000; i++ )); do :; done\n"
        "python3 -m sglang.launch_server --model-path m --port $((30000 + i))\n"))
    assert findings == [(1, "PD015", CUT_MSG)] and code == 0


def test_the_for_in_cut_is_said_at_the_loop(scratch):
    code, findings, _ = _check(scratch, "forin300.sh", (
        "ARGS=()\nfor i in $(seq 1 300); do\n  ARGS+=(--prefill http://p$i:8000)\ndone\n" + ROUTER))
    assert findings == [(2, "PD015", CUT_MSG)] and code == 0


def test_long_polling_loops_beside_a_launch_stay_quiet(scratch):
    """Neighbour: loops of 600 rounds that only sleep and print, their counters read by nothing a launch reads."""
    code, findings, launches = _check(scratch, "poll.sh", (
        "python -m sglang.launch_server --model-path m --port 30000 &\n"
        "for ((i=0; i<600; i++)); do sleep 1; echo $i; done\n"
        "j=0\nwhile [ $j -lt 600 ]; do sleep 2; j=$((j+1)); done\n"))
    assert findings == [] and code == 0 and len(launches) == 1
