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
    scratch_git.write("wait.sh", POLL + "bash -c 'python -m sglang.launch_server --model-path m --port 1'\n")
    code, doc = scratch_git.lint("wait.sh")
    assert [f["code"] for f in doc["findings"]] == ["PD008"]

