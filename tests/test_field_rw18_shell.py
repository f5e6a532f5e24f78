"""Field test rw18/o (SemiAnalysisAI/InferenceX at 843c6254): shell the interpreter read wrongly, each with the
repository and file it came from."""

import textwrap

_SGL = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill"


def _argv(out, line=None):
    return [la["argv"] for la in out["launches"] if line is None or la["line"] == line]


def test_arithmetic_in_a_parameter_default_is_evaluated_not_empty(scratch_git):
    """InferenceX benchmarks/single_node/fixed_seq_len/dsv4_fp4_b300_sglang.sh:161
    `--max-running-requests "${MAX_RUNNING_REQUESTS:-$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8 ))}"`: tree-sitter-bash
    reads the `$(( ))` inside `${..:-..}` as a subshell, so the value was '' and SGL005 a false error."""
    scratch_git.write("launch.sh", textwrap.dedent(f"""\
        #!/bin/bash
        CONC=16
        {_SGL} --max-running-requests "${{MAX_RUNNING_REQUESTS:-$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8 ))}}" \\
          --max-prefill-tokens "${{X:-$(( 4 * 2 ))}}" --chunked-prefill-size ${{Y:-$(( $CONC * 2 ))}}
        """))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert _argv(out)[0][-6:] == ["--max-running-requests", "24", "--max-prefill-tokens", "8",
                                  "--chunked-prefill-size", "32"]


def test_arithmetic_in_a_parameter_default_of_an_unknown_value_is_opaque_and_a_set_variable_wins(scratch_git):
    """The same shape when a name in the expression has no known value: an opaque value, never ''; and the
    variable's own value when the script sets it."""
    scratch_git.write("launch.sh", textwrap.dedent(f"""\
        #!/bin/bash
        {_SGL} --max-running-requests "${{MAXR:-$(( CONC > 8 ? CONC : 8 ))}}"
        {_SGL} --max-running-requests "${{MAXR:-$(( ( 3 + 1 ) * 2 ))}}"
        MAXR=5
        {_SGL} --max-running-requests "${{MAXR:-$(( 4 > 2 ? 4 : 2 ))}}"
        """))
    code, out = scratch_git.lint(".")
    assert (code, [f["code"] for f in out["findings"] if f["severity"] == "error"]) == (0, [])
    assert [a[-1] for a in _argv(out)] == ["$(( CONC > 8 ? CONC : 8 ))", "8", "5"]


def test_a_subshell_in_a_command_substitution_in_a_parameter_default_is_still_run(scratch_git):
    """`$( (echo 7) )` (a blank after `$(`) is a command substitution of a subshell, not arithmetic."""
    scratch_git.write("launch.sh", f'#!/bin/bash\n{_SGL} --max-running-requests "${{MAXR:-$( (echo 7) )}}"\n')
    code, out = scratch_git.lint(".")
    assert code == 0
    assert _argv(out)[0][-1] == "7"
