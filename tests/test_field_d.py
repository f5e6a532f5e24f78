"""Fixes from the stop-23 field tests on small personal repositories (coco-alen/wyze, dcotroneCLT/llm-serving-bench,
TonyLi15/sglang-benchmark, ZhaiFeiyue/amd-tools, devopsrustem/slurmv4)."""

POLL = """\
#!/bin/bash
READY=0
for ((i=1; i<=100; i++)); do
    if curl -s localhost:30000/health >/dev/null; then
        READY=1
        break
    fi
    sleep 5
done
bash -c '
while kill -0 $PID; do
    if ! nc -z localhost 30000; then
        exit 100
    fi
    sleep 1
done
'
"""


def test_a_readiness_poll_in_a_script_that_starts_no_server_is_no_error(scratch_git):
    # the `bash -c` watchdog after it is a shell hand-off, not a launch: no launch could have been cut
    scratch_git.write("wait.sh", POLL)
    code, doc = scratch_git.lint("wait.sh")
    assert code == 0 and doc["findings"] == []


def test_the_same_poll_before_a_launch_is_still_reported(scratch_git):
    # (the launch reads what the poll sets: its paths cannot be joined, see test_shell_widen.py)
    scratch_git.write("wait.sh", POLL + "bash -c 'python -m sglang.launch_server --model-path m --port 1$READY$i'\n")
    code, doc = scratch_git.lint("wait.sh")
    assert [f["code"] for f in doc["findings"]] == ["PD015"]


ROUTER = """\
#!/usr/bin/env bash
n="$1"
decode_args=""
for ((i=0; i<n; i++)); do
    decode_args="${decode_args} --decode http://127.0.0.1:$((30000 + i))"
done
python3 -m sglang_router.launch_router --pd-disaggregation \\
    --prefill http://10.0.0.1:30000 ${decode_args} --port 8000
"""


def test_a_counting_loop_with_an_unknown_bound_runs_once(shell_eval):
    # TonyLi15/sglang-benchmark run_extended_sweep.sh: the router's --decode list is built in such a loop;
    # zero iterations gave a router with no --decode at all
    cmds, _ = shell_eval(ROUTER)
    (router,) = [c for c in cmds if c.words[0].text == "python3"]
    assert [w.text for w in router.words[3:]] == [
        "--pd-disaggregation", "--prefill", "http://10.0.0.1:30000", "--decode", "http://127.0.0.1:30000",
        "--port", "8000"]


def test_a_counting_loop_with_a_known_bound_runs_that_often(shell_eval):
    cmds, _ = shell_eval(ROUTER.replace('n="$1"', "n=2"))
    (router,) = [c for c in cmds if c.words[0].text == "python3"]
    assert [w.text for w in router.words if w.text.startswith("http://127")] == [
        "http://127.0.0.1:30000", "http://127.0.0.1:30001"]


def test_a_retry_loop_with_an_unknown_bound_goes_on_after_a_break_and_after_the_body(shell_eval):
    cmds, _ = shell_eval('for ((i=0; i<$RETRIES; i++)); do if curl -s x; then OK=1; break; fi; OK=0; done\n'
                         'python3 -m sglang.launch_server --port "1$OK"\n')
    assert sorted(c.words[-1].text for c in cmds if c.words[0].text == "python3") == ["10", "11"]


def test_a_limit_after_some_launches_makes_the_file_partial(scratch_git):
    # TonyLi15/sglang-benchmark: a PD008 after two routers, and the file's status said "checked"
    script = ("python -m sglang.launch_server --model-path m --port 1 &\n"
              + "".join(f'if [ "$A{i}" = x ]; then V{i}=1; else V{i}=2; fi\n' for i in range(6))
              + "python -m sglang.launch_server --model-path m --port 2 $V0 $V1 $V2 $V3 $V4 $V5\n")
    scratch_git.write("run.sh", script)
    code, doc = scratch_git.lint("run.sh")
    assert [f["code"] for f in doc["findings"] if f["code"] == "PD015"] == ["PD015"]
    fc = doc["coverage"]["files"]["run.sh"]
    assert fc["status"] == "partial" and fc["launches"] >= 1 and fc["error"].startswith("PD015")


def test_a_file_without_limits_stays_checked(scratch_git):
    scratch_git.write("run.sh", "python -m sglang.launch_server --model-path m --port 1\n")
    code, doc = scratch_git.lint("run.sh")
    assert doc["coverage"]["files"]["run.sh"] == {"status": "checked", "launches": 1, "unchecked": []}
