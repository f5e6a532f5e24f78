"""Background jobs a script ends before it starts the next ones (vLLM's benchmarks/disagg_benchmarks:
benchmark one layout, stop its servers, start the next on the same ports and GPUs): the pair rules
compare only launches that run at the same time."""

import pytest

from pdlint.formats.shell.jobs import killed
from pdlint.text import TStr

SERVE = "CUDA_VISIBLE_DEVICES=0 vllm serve m --port 8100 --gpu-memory-utilization 0.8 &"


def _codes(report):
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("stop", [
    'PID=$!\nkill $PID\nwait $PID',
    'kill "$!"',
    'kill -9 %1',
    'kill -s TERM %%',
    'PIDS="$PIDS $!"\nkill $PIDS',
    'stop_all() {\n  pkill -f "vllm serve"\n}\nstop_all',
    'pkill -9 vllm',
    'killall vllm',
    'kill $(lsof -t -i:8100)',  # the pids listening on its port (test_shell_kill_substitution.py)
    'sudo pkill -f "vllm serve"',
    'timeout 5 pkill -f vllm',
    # a stop helper that kills only when it has a pid (LMCache run-correctness.sh, field test rw6/b): `$!` is set
    'VLLM_PID=$!\nstop() {\n  if [[ -n "${VLLM_PID:-}" ]]; then\n    kill "$VLLM_PID"\n    VLLM_PID=""\n  fi\n}\nstop',
    'PID=$!\n[ -n "$PID" ] && kill $PID',
])
def test_a_job_ended_before_the_next_launch_is_not_compared_with_it(scratch_git, stop):
    scratch_git.write("run.sh", f"#!/bin/bash\n{SERVE}\n{stop}\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert len(report["launches"]) == 2
    assert _codes(report) == [] and code == 0


@pytest.mark.parametrize("stop", [
    '',  # both run until the script ends
    'kill $(cat vllm.pid)',  # a pid pdlint does not know
    'python3 proxy.py &\nkill $!',  # another job
    'pkill -f sglang',  # matches neither
    'killall vll',  # killall takes whole names
    'if [ -n "$X" ]; then kill %1; fi',  # on one path only
    '(kill %1)',  # a subshell's kill of the parent's job spec ends nothing pdlint can tell
    'if [ -n "$PID" ]; then kill $PID; fi',  # a pid the script never set
])
def test_launches_that_may_run_together_are_still_compared(scratch_git, stop):
    scratch_git.write("run.sh", f"#!/bin/bash\n{SERVE}\n{stop}\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert _codes(report) == ["PD150", "PD151"] and code == 1


def test_killed_matches_process_names_and_command_lines(shell_eval):
    cmds = {c.words[0].text: c for c in shell_eval("nohup python3 -m sglang.launch_server --port 1 &\nvllm serve m &\n")[0]}
    py, vl = cmds["nohup"], cmds["vllm"]
    jobs = ((py,), (vl,))

    def k(*words):
        return killed(words[0], [TStr.synthetic(w, "<t>") for w in words[1:]], jobs)

    assert k("pkill", "python3") == {py.serial}  # the process is python3 (nohup execs it)
    assert k("pkill", "-f", "sglang.launch_server") == {py.serial}
    assert k("pkill", "sglang") == frozenset()  # without -f: the process name only
    assert k("pkill", "-f", "vllm serve") == {vl.serial} and k("pkill", "-f", "serve") == {py.serial, vl.serial}
    assert k("pkill", "-x", "vll") == frozenset() and k("pkill", "vll") == {vl.serial}
    assert k("pkill", "-f", "[") == frozenset()  # not a regex: a plain substring, found nowhere
    assert k("kill", "%2") == {vl.serial} and k("kill", "%-") == {py.serial} and k("kill", "%3") == frozenset()
    assert k("kill", "-l") == frozenset() and k("kill", "1234") == frozenset()


@pytest.mark.parametrize("guard, overlap", [
    ("if [[ -f /tmp/kernels.so ]]; then\n    return 0\n  fi\n", False),  # the other path never starts it
    ("if [[ -f /tmp/kernels.so ]]; then\n    SKIP=1\n  fi\n", False),
])
def test_a_job_one_path_kills_and_another_never_starts_does_not_overlap(scratch_git, guard, overlap):
    """Field test rw25/b (michael-amd/sglang-ci's grok_perf_online_csv.sh): a warm-up server a function starts and
    kills after an early `return` guard was compared with the server started after the call (PD151): the ended jobs
    of the paths were intersected, and the path that returned early had ended none."""
    scratch_git.write("run.sh", f"#!/bin/bash\nwarmup() {{\n  {guard}  {SERVE}\n  pid=$!\n  kill $pid\n"
                                f"  wait $pid\n}}\nwarmup\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert (_codes(report) == ["PD150", "PD151"]) == overlap


def test_a_job_one_path_leaves_running_still_overlaps(scratch_git):
    scratch_git.write("run.sh", f"#!/bin/bash\nwarmup() {{\n  {SERVE}\n  pid=$!\n  if [ -n \"$X\" ]; then\n"
                                f"    kill $pid\n  fi\n}}\nwarmup\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert _codes(report) == ["PD150", "PD151"] and code == 1


def test_process_names_behind_wrappers_with_operands(shell_eval):
    """`pkill NAME` matches the process a wrapper execs, read with the wrapper table the ConfigMap runners use
    (launchers.WRAPPERS, rw31/h P3): `gosu USER prog` runs prog (USER was taken for the process name), `timeout -s
    KILL 1h prog` and `taskset -c 0-7 prog` run prog (`KILL`, `0-7`); a wrapper with nothing after it names none."""
    script = ("gosu svc vllm serve m --port 1 &\ntimeout -s KILL 1h python3 -m sglang.launch_server --port 2 &\n"
              "taskset -c 0-7 vllm serve m --port 3 &\nnohup &\n")
    cmds = shell_eval(script)[0]
    jobs = tuple((c,) for c in cmds)

    def k(*words):
        return killed(words[0], [TStr.synthetic(w, "<t>") for w in words[1:]], jobs)

    gosu, timeout, taskset = cmds[0], cmds[1], cmds[2]
    assert k("pkill", "vllm") == {gosu.serial, taskset.serial}
    assert k("pkill", "python3") == {timeout.serial}
    for name in ("svc", "KILL", "0-7", "gosu", "timeout", "taskset", "nohup"):
        assert k("pkill", "-x", name) == frozenset(), name
