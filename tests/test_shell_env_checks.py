"""Two shell idioms of SemiAnalysisAI/InferenceX's benchmark scripts (150 scripts call its
benchmark_lib.sh `check_env_vars MODEL TP ...`, and its agentic scripts run `"$SGLANG_PYTHON" -m
sglang.launch_server` with `SGLANG_PYTHON="$(command -v python3)"`)."""

import pytest


CHECK = """check_env_vars() {
    local missing_vars=()
    for var_name in "$@"; do
        if [[ -z "${!var_name:-}" ]]; then
            missing_vars+=("$var_name")
        fi
    done
    if [[ ${#missing_vars[@]} -gt 0 ]]; then
        echo "missing: ${missing_vars[*]}"
        exit 1
    fi
}
check_env_vars MODEL TP
"""


def test_a_long_required_variable_check_is_one_path(shell_eval):
    names = " ".join(f"V{i}" for i in range(12))
    cmds, _ = shell_eval(CHECK.replace("check_env_vars MODEL TP", f"check_env_vars {names}") + "run after\n")
    assert [[w.text for w in c.words] for c in cmds if c.words[0].text == "run"] == [["run", "after"]]


def test_a_required_variable_check_does_not_end_every_path(scratch_git):
    scratch_git.write("run.sh", CHECK + 'python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" '
                                        '--disaggregation-mode prefill --enable-linear-replayssm-spec\n')
    code, report = scratch_git.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1


@pytest.mark.parametrize("test,ran", [
    ('v=X; [[ -z "${!v:-}" ]]', ["run", "after"]),  # X unknown: taken as set (to a value pdlint cannot see)
    ('v=X; [ -n "${!v}" ]', ["run", "then"]),
    ('[[ -z "${!v:-}" ]]', ["run", "after"]),  # the name itself unknown
    ('v=X; X=1; [[ -z "${!v:-}" ]]', ["run", "after"]),  # known: decided by its value
    ('v=X; X=; [[ -z "${!v:-}" ]]', ["run", "then"]),
    # a direct read counts X as unset (its default path is checked); that path exits, so the one where the
    # environment sets X goes on too
    ('[[ -z "${X:-}" ]]', ["run", "then", "run", "after"]),
])
def test_emptiness_of_a_variable_named_by_value(shell_eval, test, ran):
    cmds, _ = shell_eval(f"if {test}; then run then; exit 1; fi\nrun after\n")
    assert [w.text for c in cmds for w in c.words] == ran


@pytest.mark.parametrize("locate,found", [
    ('PY="$(command -v python3)"', True),
    ("PY=$(which python3)", True),
    ("PY=$(type -P python3)", True),
    ("PY=$(command -v python3 python)", False),  # several names: not one program
    ("PY=$(which $PYTHON_NAME)", False),
    ("PY=$(pick_python)", False),
])
def test_a_program_located_on_path_is_known_by_its_name(scratch_git, locate, found):
    scratch_git.write("run.sh", f'{locate}\n"$PY" -m sglang.launch_server --model-path m --disaggregation-mode prefill\n')
    _, report = scratch_git.lint("run.sh")
    assert (len(report["launches"]) == 1) is found
    if found:
        assert report["launches"][0]["role"] == "prefill"


@pytest.mark.parametrize("script,ran", [
    ('if [ -z "${MODEL:-}" ]; then echo usage; exit 1; fi\nrun "$MODEL"\n', [["run", "$MODEL"]]),
    ('MODEL=${MODEL:-}\nif [[ -z "$MODEL" ]]; then exit 1; fi\nrun "$MODEL"\n', [["run", "$MODEL"]]),
    ('[ -z "${MODEL:-}" ] && { echo usage; exit 1; }\nrun a\n', [["run", "a"]]),
    ('[ -n "${MODEL:-}" ] || exit 1\nrun b\n', [["run", "b"]]),
    # the assumption takes a path that goes on: the default is what is checked, as before
    ('if [ -z "${IP:-}" ]; then export IP=1.2.3.4; fi\nrun "$IP"\n', [["run", "1.2.3.4"]]),
    ('MODEL=m\nif [ -z "${MODEL:-}" ]; then exit 1; fi\nrun "$MODEL"\n', [["run", "m"]]),  # known: decided
    ('if [ -z "$(get)" ]; then exit 1; fi\nrun c\n', [["run", "c"]]),
])
def test_a_guard_that_exits_on_an_unknown_variable_counted_as_unset(shell_eval, script, ran):
    # ROCm/ATOM's atom_sglang_test.sh: `MODEL=${MODEL:-}` then `[ -z "$MODEL" ] ... exit 1`: every launch
    # after it had been unchecked (PD020 "a branch not taken")
    cmds, _ = shell_eval(script)
    assert [[w.text for w in c.words] for c in cmds if c.words[0].text == "run"] == ran
    launch = [c for c in cmds if c.words[0].text == "run"][0]
    if launch.words[-1].text.startswith("$"):
        assert launch.words[-1].opaque  # the environment's value: unknown, not the empty default


def test_a_required_model_guard_keeps_the_launch_checked(scratch_git):
    scratch_git.write("bench.sh", '#!/bin/bash\nMODEL=${MODEL:-}\nif [ -z "$MODEL" ]; then\n  echo "MODEL is required"\n'
                                  '  exit 1\nfi\npython3 -m sglang.launch_server --model-path "$MODEL" '
                                  '--disaggregation-mode prefill --enable-linear-replayssm-spec\n')
    code, report = scratch_git.lint("bench.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1
