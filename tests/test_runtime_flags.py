"""Flags a script reads at run time (AI-Hypercomputer/gpu-recipes' Dynamo workers):

    ARGS=(--disaggregation-mode decode)
    while IFS=': ' read -r key value; do ARGS+=("--$key" "$value"); done < "$SERVER_ARGS_FILE"
    exec python3 -m dynamo.sglang "${ARGS[@]}"

The loop was not counted, so the launch passed clean without every flag it really gets (a silent pass),
and a flag name built from a value (``"--$key"``) was an unknown flag (SGL001 / SGL011 errors)."""

import pytest

LOOP = """\
ARGS=(--model-path /m --disaggregation-mode decode)
while IFS=': ' read -r key value; do
  ARGS+=("--$key" "$value")
done < "$SERVER_ARGS_FILE"
exec python3 -m sglang.launch_server "${ARGS[@]}"
"""


def _codes(doc):
    return sorted(f["code"] for f in doc["findings"])


def test_what_a_loop_over_input_adds_is_not_checked(scratch_git):
    scratch_git.write("decode.sh", LOOP)
    code, doc = scratch_git.lint("decode.sh")
    assert _codes(doc) == ["PD023"]
    (f,) = doc["findings"]
    assert f["line"] == 2 and "adds to ARGS" in f["message"] and "how often the loop runs" in f["fix"]
    assert doc["coverage"]["files"]["decode.sh"]["status"] == "partial"
    assert doc["launches"][0]["role"] == "decode"


def test_a_string_the_loop_extends_is_not_checked_either(scratch_git):
    scratch_git.write("decode.sh", LOOP.replace("ARGS=(--model-path /m --disaggregation-mode decode)",
                                                'ARGS="--model-path /m --disaggregation-mode decode"')
                      .replace('ARGS+=("--$key" "$value")', 'ARGS="$ARGS --$key $value"')
                      .replace('"${ARGS[@]}"', "$ARGS"))
    code, doc = scratch_git.lint("decode.sh")
    assert _codes(doc) == ["PD023"]


def test_an_option_parser_keeps_its_defaults(scratch_git):
    # assignments in a loop over the script's options: the defaults (the script run without options)
    scratch_git.write("run.sh", 'TP=8\nwhile [[ $# -gt 0 ]]; do case "$1" in --tp) TP="$2"; shift 2 ;; '
                                '*) shift ;; esac; done\n'
                                'python3 -m sglang.launch_server --model-path /m --tp-size "$TP"\n')
    code, doc = scratch_git.lint("run.sh")
    assert code == 0 and doc["findings"] == []


def test_options_passed_through_by_an_option_parser_are_not_checked(scratch_git):
    scratch_git.write("run.sh", 'EXTRA=()\nwhile [[ $# -gt 0 ]]; do case "$1" in --tp) TP="$2"; shift 2 ;; '
                                '*) EXTRA+=("$1"); shift ;; esac; done\n'
                                'python3 -m sglang.launch_server --model-path /m "${EXTRA[@]}"\n')
    code, doc = scratch_git.lint("run.sh")
    assert _codes(doc) == ["PD023"]


@pytest.mark.parametrize("launch", [
    'python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode "--$FOO" 5',
    'vllm serve m "--$FOO" 5',
    'trtllm-serve m "--${FOO}=5"',
])
def test_a_flag_name_from_a_value_is_not_checked_not_wrong(scratch_git, launch):
    scratch_git.write("run.sh", launch + "\n")
    code, doc = scratch_git.lint("run.sh")
    assert _codes(doc) == ["PD023"]
    (f,) = doc["findings"]
    assert "--$FOO" in f["message"] or "--${FOO}" in f["message"]
    assert "give FOO its deploy-time value" in f["fix"]


def test_a_misspelled_literal_flag_is_still_wrong(scratch_git):
    scratch_git.write("run.sh", "python3 -m sglang.launch_server --model-path /m --disaggregaton-mode decode\n")
    code, doc = scratch_git.lint("run.sh")
    assert "SGL001" in _codes(doc)


def test_a_read_loop_that_also_takes_a_last_line_without_newline(scratch_git):
    # gpu-recipes' real form: `|| [ -n "$key" ]` (a last line without a newline).  The path where `read`
    # succeeded made the condition true on an assumption, and the loop ran on it until the limits: 3-10 s for
    # six lines, a PD008 and SGL011 errors on `--$(echo "$key" | xargs)`
    scratch_git.write("w.sh", 'ARGS=(--model-path /m)\n'
                              'while IFS=": " read -r key value || [ -n "$key" ]; do\n'
                              '  key=$(echo "$key" | xargs)\n'
                              '  if [[ "$value" == "false" ]]; then ARGS+=("--$key" "false"); '
                              'else ARGS+=("--$key" "$value"); fi\n'
                              'done < "$SERVER_ARGS_FILE"\n'
                              'exec python3 -m dynamo.sglang "${ARGS[@]}"\n')
    code, doc = scratch_git.lint("--time-per-file", "5", "w.sh")
    assert _codes(doc) == ["PD023"] and "adds to ARGS" in doc["findings"][0]["message"]


def test_a_loop_on_a_known_condition_still_iterates(scratch_git):
    # (no PD023: the loop was counted, not taken as one of unknown count)
    scratch_git.write("w.sh", 'ARGS=()\n'
                              'i=0\nwhile [ "$i" -lt 1 ] || false; do ARGS+=(--tp-size 2); i=$((i + 1)); done\n'
                              'python3 -m sglang.launch_server --model-path /m "${ARGS[@]}"\n')
    code, doc = scratch_git.lint("w.sh")
    assert _codes(doc) == [] and len(doc["launches"]) == 1


@pytest.mark.parametrize("word, hint", [
    ('${2:-""}', "$2 is an argument of the script or function"),
    ('"$3"', "$3 is an argument of the script or function"),
    ("$EXTRA", "give EXTRA its deploy-time value in `[tool.pdlint.vars]`"),
])
def test_the_hint_of_an_argument_is_not_a_vars_entry(scratch_git, word, hint):
    """`${6:-""}` in Mooncake's uncalled `launch_sglang_server`: the hint said to give `6:-""` a value in
    `[tool.pdlint.vars]`, which no configuration can do."""
    scratch_git.write("lib.sh", "launch() {\n  local extra=" + word + "\n"
                      "  python3 -m sglang.launch_server --model-path /m ${extra}\n}\n")
    code, doc = scratch_git.lint("lib.sh")
    (f,) = doc["findings"]
    assert f["code"] == "PD023" and f["fix"].startswith(hint), f["fix"]
