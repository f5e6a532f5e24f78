"""``kill $(pgrep ...)``: process ids handed to ``kill`` by a command substitution end the jobs they list,
as ``pgrep ... | xargs kill`` does; and a prefill and a decode a kill keeps apart are no pair.

Found in stop 24's list of what pdlint did not follow; the script below is the shape of a benchmark that
stops one PD layout and starts the next on the same ports and GPUs.  Before, pdlint reported the second
layout's ports and GPUs as taken by the first (PD150, PD151) and compared the first layout's prefill with
the second layout's decode (SGL802)."""

import pytest

SCRIPT = """#!/bin/bash
python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30000 &
python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
sleep 60
%s
python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30000 --page-size 16 &
python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30001 --base-gpu-id 1 --page-size 16 &
wait
"""


def _codes(report):
    return sorted({f["code"] for f in report["findings"]})


def _pairs(report):
    return sorted((p["prefill"]["line"], p["decode"]["line"]) for d in report["pairs"] for p in d["pairs"])


@pytest.mark.parametrize("stop", [
    "kill $(pgrep -f sglang.launch_server)",
    "kill -9 $(pgrep -f 'sglang.launch_server')",
    'kill -9 "$(pgrep -f sglang.launch_server)"',
    "kill `pgrep -f sglang.launch_server`",
    "sudo kill -9 $(pgrep -f sglang)",
    "kill $(lsof -t -i:30000) $(lsof -t -i:30001)",
    "kill -9 $(ps aux | grep sglang.launch_server | grep -v grep | awk '{print $2}')",
])
def test_a_kill_given_listed_pids_ends_the_jobs_it_lists(scratch_git, stop):
    scratch_git.write("bench.sh", SCRIPT % stop)
    code, report = scratch_git.lint("bench.sh")
    assert len(report["launches"]) == 4
    assert _codes(report) == ["PD152"] and code == 0  # (the unpinned prefills: true, per layout)
    assert _pairs(report) == [(2, 3), (6, 7)]


@pytest.mark.parametrize("stop", [
    "echo next",
    "kill -0 $(pgrep -f sglang.launch_server)",  # "still running?"
    "kill $(pgrep -f vllm)",  # lists none of them
    "kill $(cat server.pid)",  # pids pdlint does not know
    "kill $(pgrep -n -f sglang)",  # the newest one only
])
def test_a_kill_pdlint_cannot_follow_ends_nothing(scratch_git, stop):
    scratch_git.write("bench.sh", SCRIPT % stop)
    code, report = scratch_git.lint("bench.sh")
    assert {"PD150", "PD151", "SGL802"} <= set(_codes(report)) and code == 1
    assert _pairs(report) == [(2, 3), (2, 7), (6, 3), (6, 7)]


def test_a_kill_behind_a_wrapper_runs_none_of_its_words():
    from pdlint import launchers
    from pdlint.text import TStr

    def find(line):
        return launchers.find([TStr.synthetic(w, "<t>") for w in line.split()])

    assert find("sudo -E pkill -f python3 -m sglang.launch_server") is None
    assert find("timeout 5 kill python3 -m sglang.launch_server") is None
    assert find("sudo -E python3 -m sglang.launch_server --port 1") is not None
