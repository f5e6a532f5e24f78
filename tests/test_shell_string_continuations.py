"""A line continuation before an expansion in a double-quoted string (`"... ${RANK} \\<newline>  ${ARGS} \\"`):
tree-sitter-bash puts the blanks and the continuation into the expansion's `${` / `$` token, and pdlint read the
expansion as literal text. whn09/LongCat-2.0-SGLang-EFA's `docker run ... bash -c "python3 -m
sglang.launch_server ... ${MOE_A2A_ARGS} \\"` lost the flags of a variable the script sets (PD023 said pdlint
could not see its value), field test rw13/e."""

import pytest


@pytest.mark.parametrize("script, words", [
    ('X="--a b"\necho "run ${X} \\\n  ${X}"\n', ["echo", "run --a b   --a b"]),
    ('X="--a b"\necho "run $X \\\n  $X"\n', ["echo", "run --a b   --a b"]),
    ('X="--a b"\necho "run \\\n  ${X}"\n', ["echo", "run   --a b"]),
])
def test_a_continued_expansion_in_a_string_is_expanded(shell_eval, script, words):
    cmds, _ = shell_eval(script)
    assert [w.text for w in cmds[-1].words] == words


def test_the_flags_of_a_known_variable_in_a_bash_c_string_are_checked(scratch_git):
    scratch_git.write("serve.sh", """\
#!/usr/bin/env bash
RANK="${2:?usage: serve.sh <prefill|decode> <node-rank>}"
MOE_A2A_ARGS="--moe-a2a-backend deepep --enable-linear-replayssm-spec"
docker run -d --name x --entrypoint bash lmsysorg/sglang:v0.5.23 -c "
    python3 -m sglang.launch_server --model-path /models/DeepSeek-R1 --node-rank ${RANK} \\
      ${MOE_A2A_ARGS} \\
      --disaggregation-mode prefill"
""")
    code, report = scratch_git.lint("serve.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL101", 3)]
