"""Where a launch is, and which launches of one line are two processes (field test rw12/c).

* A program named by a variable (`$PYTHON -m sglang.launch_server`, `"$VLLM_BIN" serve`: MindLab-Research/sglang,
  Wzhogqag/vllm) put every launch at the variable's assignment: findings and "related" lines pointed there, and
  launches on different lines were one site, so the same-host rules (PD150-PD152) never compared them.
* Launches of one line started by two iterations of a `for` loop (haNa-meister/sglang's
  `for (( i=0; i<NUM_PREFILL; i++ ))`) or by two calls of a function are two processes on the host.
"""

import pytest


def _found(report):
    return sorted((f["code"], f["line"]) for f in report["findings"])


VAR = """\
#!/bin/bash
PYTHON=python3
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 BOOT0 &
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 --base-gpu-id 1 BOOT1 &
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30002 --base-gpu-id 2 &
"""


def test_a_launch_whose_program_is_a_variable_is_where_its_command_is(scratch_git):
    scratch_git.write("b.sh", VAR.replace(" BOOT0", "").replace(" BOOT1", ""))
    code, report = scratch_git.lint("b.sh")
    assert sorted(l["line"] for l in report["launches"]) == [3, 4, 5]
    assert ("PD150", 4) in _found(report)  # both prefills on the default bootstrap port 8998
    scratch_git.write("b.sh", VAR.replace("BOOT0", "--disaggregation-bootstrap-port 8998 --base-gpu-id 0")
                      .replace("BOOT1", "--disaggregation-bootstrap-port 8999"))
    code, report = scratch_git.lint("b.sh")
    assert (code, _found(report)) == (0, [])


LOOP = """\
#!/bin/bash
for (( i=0; i<2; i++ )); do
    python -m sglang.launch_server --model-path m --disaggregation-mode prefill --base-gpu-id $i \\
        --port $((30000 + i)) EXTRA &
done
python -m sglang.launch_server --model-path m --disaggregation-mode decode --base-gpu-id 2 --port 30010 &
"""


@pytest.mark.parametrize("loop", [LOOP, LOOP.replace("for (( i=0; i<2; i++ ))", "for i in 0 1")])
def test_two_iterations_of_a_loop_are_two_processes(scratch_git, loop):
    scratch_git.write("run.sh", loop.replace(" EXTRA", ""))
    code, report = scratch_git.lint("run.sh")
    assert _found(report) == [("PD150", 3)]  # the default bootstrap port 8998, twice
    scratch_git.write("run.sh", loop.replace("EXTRA", "--disaggregation-bootstrap-port $((8998 + i))"))
    code, report = scratch_git.lint("run.sh")
    assert (code, _found(report)) == (0, [])


CALLS = """\
#!/bin/bash
start() {
    python -m sglang.launch_server --model-path m --disaggregation-mode $1 --port $2 --base-gpu-id $3 &
}
start prefill 30000 0
start decode 30000 1
"""


def test_two_calls_of_a_function_are_two_processes(scratch_git):
    scratch_git.write("run.sh", CALLS)
    code, report = scratch_git.lint("run.sh")
    assert _found(report) == [("PD150", 6)]  # port 30000 twice: at the call that gives it
    scratch_git.write("run.sh", CALLS.replace("decode 30000 1", "decode 30001 1"))
    code, report = scratch_git.lint("run.sh")
    assert (code, _found(report)) == (0, [])
    # one call's variants (an `if` pdlint cannot decide) are one process: never compared with each other
    scratch_git.write("run.sh", CALLS.replace("start decode 30000 1\n", "").replace(
        "    python -m", '    X=""; if [ -n "$FAST" ]; then X=--enable-metrics; fi\n    python -m').replace(
        "--base-gpu-id $3 &", "--base-gpu-id $3 $X &"))
    code, report = scratch_git.lint("run.sh")
    assert len(report["launches"]) == 2 and _found(report) == []


def test_a_loop_that_measures_and_ends_its_server_runs_one_at_a_time(scratch_git):
    """vllm-project/tpu-inference's benchmark loops start a server per model, run a client and call a clean-up
    pdlint cannot read (a file sourced by a computed path): the iterations run one after another."""
    scratch_git.write("bench.sh", """\
#!/bin/bash
source "$(dirname "$0")/utils.sh"
for m in Qwen/Qwen3-8B meta-llama/Llama-3.1-8B; do
    (vllm serve "$m" --port 8000 2>&1 | tee -a log) &
    waitForServerReady
    python benchmark_serving.py --model "$m" --port 8000
    cleanUp "$m"
done
""")
    code, report = scratch_git.lint("bench.sh")
    assert len(report["launches"]) == 2 and _found(report) == []
