"""A branch that sets a plain variable the script turns into a flag is an environment switch too
(``EnvVariants._flag_switch``).

Hostile-input test rw26/h item 6: `if [ "$MODEL" = big ]; then SPEC=1; fi` ... `${SPEC:+--enable-linear-replayssm-spec}`
(or `[ -n "$SPEC" ] && ARGS+=(...)`) was never run: the prefill with the refused flag was not built, exit 0 with
--strict, while the same switch writing the flag into the variable was run."""

import pytest

SWITCH = 'MODEL=${MODEL:-small}\nif [ "$MODEL" = big ]; then\n  SPEC=1\nfi\n'
DECODE = ("CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --model-path m --disaggregation-mode decode "
          "--port 30002 &\n")
PREFILL = ("CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
           "--port 30001 {}\n")


@pytest.mark.parametrize("script", [
    "#!/bin/bash\nSPEC=\"\"\n" + SWITCH + DECODE + PREFILL.format("${SPEC:+--enable-linear-replayssm-spec}"),
    "#!/bin/bash\nSPEC=\"\"\nARGS=()\n" + SWITCH + '[ -n "$SPEC" ] && ARGS+=(--enable-linear-replayssm-spec)\n' + DECODE +
    PREFILL.format('"${ARGS[@]}"'),
    "#!/bin/bash\nSPEC=\"\"\nARGS=()\n" + SWITCH + 'if [[ $SPEC ]]; then\n  ARGS+=(--enable-linear-replayssm-spec)\nfi\n' +
    DECODE + PREFILL.format('"${ARGS[@]}"'),
])
def test_a_plain_value_turned_into_a_flag_is_run(scratch, script):
    scratch.write("run.sh", script)
    code, report = scratch.lint("--strict", "run.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1


def test_a_value_that_is_no_flag_switch_is_not_run_again(scratch):
    # MODEL=big sets a value the launches read as a value (a port), not a flag: one run, as before
    scratch.write("run.sh", "#!/bin/bash\nPORT=30001\nMODEL=${MODEL:-small}\nif [ \"$MODEL\" = big ]; then\n"
                            "  PORT=30011\nfi\n" + PREFILL.format("--base-gpu-id $PORT"))
    _, report = scratch.lint("run.sh")
    assert len(report["launches"]) == 1
