"""A numeric or word default the environment may override (``NNODES=${NNODES:-1}``, ``NNODES=${2:-1}``) is tried
with another value however the script's test is spelt (pdlint.formats.shell.envruns, conditions.test_words,
interp.exec_list): ``!=`` / ``=`` against the default itself, the ``test`` builtin, and a test inside an
``&&`` / ``||`` list of an ``if``.  Before, only ``[[ $NNODES -ge 2 ]]`` / ``-ne`` were, and the multi-node
branch's flags were never checked, with no word (exit 0).

Field test rw22/h item 10 (reproduction: a script shaped as the multi-node launchers of the PD repositories it
scanned, ``if COND; then EXTRA="--nnodes $NNODES ..."; fi; python -m sglang.launch_server ... $EXTRA``)."""

import pytest

from pdlint.coverage import has_launch_text

LAUNCH = "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp 2 $EXTRA"
BAD = "--enable-linear-replayssm-spec --nnodes $NNODES --dist-init-addr h:5000"  # SGL101 on a prefill server
GOOD = "--nnodes $NNODES --dist-init-addr h:5000"

CONDITIONS = [
    '[[ $NNODES -ge 2 ]]',  # (already handled: the control)
    '[ "$NNODES" != "1" ]',
    'test $NNODES -gt 1',
    'test "$NNODES" != 1',
    '[ "$NNODES" -gt 1 ] && [ -n "$HOST" ]',
    '[ -n "$NNODES" ] && [ "$NNODES" -gt 1 ]',
    '[ "$NNODES" -gt 1 ] || [ -n "$FORCE" ]',
]


def script(default: str, cond: str, extra: str) -> str:
    return (f"#!/bin/bash\nNNODES={default}\nHOST=h1\n"
            f'if {cond}; then EXTRA="{extra}"; else EXTRA=""; fi\n{LAUNCH}\n')


def codes(report) -> list:
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("default", ["${NNODES:-1}", "${2:-1}"])
@pytest.mark.parametrize("cond", CONDITIONS)
def test_the_branch_another_value_takes_is_checked(scratch_git, default, cond):
    scratch_git.write("run.sh", script(default, cond, BAD))
    code, report = scratch_git.lint("run.sh")
    assert codes(report) == ["SGL101"], cond
    assert report["findings"][0]["line"] == 4
    assert code == 1


@pytest.mark.parametrize("default", ["${NNODES:-1}", "${2:-1}"])
@pytest.mark.parametrize("cond", CONDITIONS)
def test_valid_flags_of_that_branch_are_quiet(scratch_git, default, cond):
    scratch_git.write("run.sh", script(default, cond, GOOD))
    code, report = scratch_git.lint("run.sh")
    assert codes(report) == [] and code == 0
    assert any("--nnodes" in l["argv"] for l in report["launches"])  # the branch was built, not skipped


def test_a_word_compared_with_its_default_is_tried_as_a_value_pdlint_cannot_see(scratch_git):
    scratch_git.write("run.sh", '#!/bin/bash\nMODE="${MODE:-pd}"\n'
                                f'if [ "$MODE" != "pd" ]; then EXTRA="--enable-linear-replayssm-spec"; else EXTRA=""; fi\n'
                                f'{LAUNCH}\n')
    _, report = scratch_git.lint("run.sh")
    assert codes(report) == ["SGL101"]
    assert "run with MODE=<not pd>" in report["launches"][-1]["context"]


@pytest.mark.parametrize("default", ["${NNODES:-1}", "${2:-1}"])
def test_an_equality_with_the_default_tries_another_value(scratch_git, default):
    scratch_git.write("run.sh", f'#!/bin/bash\nNNODES={default}\nif [ "$NNODES" = 1 ]; then EXTRA=""; '
                                f'else EXTRA="{BAD}"; fi\n{LAUNCH}\n')
    _, report = scratch_git.lint("run.sh")
    assert codes(report) == ["SGL101"]


def env_values(shell_eval, text: str) -> dict:
    _, ctx = shell_eval(text, launch_text=has_launch_text)
    return {name: list(values) for name, values in ctx.env_values.items()}


def test_a_list_whose_skipped_part_holds_no_launch_notes_nothing(shell_eval):
    # outside an `if`, `[ ... ] && echo` skips no launch: no value kept
    assert env_values(shell_eval, 'N="${N:-1}"\n[ "$N" -gt 1 ] && echo many\n'
                                  'python -m sglang.launch_server --model-path m\n') == {}
    # in an `if` whose arms launch alike: nothing either
    assert env_values(shell_eval, 'N="${N:-1}"\nif [ "$N" -gt 1 ] && [ -n "$H" ]; then echo many; fi\n'
                                  'python -m sglang.launch_server --model-path m\n') == {}


def test_a_word_default_with_a_value_of_its_own_is_not_tried_as_any_other(scratch_git):
    # `= prefill` (the default) and `elif = decode`: decode is the other value; no third run with "<not prefill>"
    scratch_git.write("role.sh", """\
        #!/bin/bash
        ROLE=${ROLE:-prefill}
        if [ "$ROLE" = "prefill" ]; then EXTRA="--disaggregation-mode prefill"
        elif [ "$ROLE" = "decode" ]; then EXTRA="--disaggregation-mode decode"
        else exit 1; fi
        python -m sglang.launch_server --model-path m $EXTRA
        """)
    _, report = scratch_git.lint("role.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill", "decode"]
