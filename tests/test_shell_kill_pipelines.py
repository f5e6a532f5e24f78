"""Process ids piped into ``xargs kill``, and ``fuser -k``: vLLM's benchmarks/disagg_benchmarks/
disagg_performance_benchmark.sh (copied in banjuede/deepseek-test) stops its first layout with
``pgrep python3 | xargs -r kill -9`` and ``lsof -t -i:$port | xargs -r kill -9`` and starts the second on the
same ports and GPUs; pdlint compared the two layouts (2 PD150 and 2 PD151 false errors)."""

import pytest

from pdlint.formats.shell.jobs import killed, piped_kill
from pdlint.text import TStr

SERVE = "CUDA_VISIBLE_DEVICES=0 vllm serve m --port 8100 --gpu-memory-utilization 0.8 &"

#: the field script, reduced: a baseline on port 8100, the kill, a prefill/decode pair on 8100/8200
BENCH = """#!/bin/bash
kill_gpu_processes() {
%s
}

launch_baseline() {
  CUDA_VISIBLE_DEVICES=0 python3 -m vllm.entrypoints.openai.api_server \\
    --model m --port 8100 --gpu-memory-utilization 0.6 &
}

launch_disagg() {
  CUDA_VISIBLE_DEVICES=0 python3 -m vllm.entrypoints.openai.api_server \\
    --model m --port 8100 --gpu-memory-utilization 0.6 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
  VLLM_NIXL_SIDE_CHANNEL_PORT=5601 CUDA_VISIBLE_DEVICES=1 python3 -m vllm.entrypoints.openai.api_server \\
    --model m --port 8200 --gpu-memory-utilization 0.6 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' &
}

launch_baseline
kill_gpu_processes
launch_disagg
"""


def _codes(report):
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("stop", [
    "  pgrep python3 | xargs -r kill -9",
    "  for port in 8100 8200; do lsof -t -i:$port | xargs -r kill -9; done",
    "  pgrep python3 | xargs -r kill -9\n  for port in 8100 8200; do lsof -t -i:$port | xargs -r kill -9; done",
])
def test_the_benchmark_phases_are_not_compared_after_a_piped_kill(scratch_git, stop):
    scratch_git.write("bench.sh", BENCH % stop)
    code, report = scratch_git.lint("bench.sh")
    assert len(report["launches"]) == 3
    assert _codes(report) == [] and code == 0


def test_the_benchmark_without_the_kill_still_reports_the_shared_port_and_gpu(scratch_git):
    scratch_git.write("bench.sh", BENCH % "  echo done")
    code, report = scratch_git.lint("bench.sh")
    assert _codes(report) == ["PD150", "PD151"] and code == 1


@pytest.mark.parametrize("stop", [
    "pgrep vllm | xargs -r kill -9",
    'pgrep -f "vllm serve" | xargs kill',
    "pgrep -f vllm | xargs -r sudo kill -s KILL",
    "lsof -ti:8100 | xargs kill -9",
    "lsof -t -i tcp:8100 2>/dev/null | xargs -r kill",
    "PORT=8100\nlsof -t -i:$PORT -sTCP:LISTEN | xargs -r kill -9",
    "fuser -k 8100/tcp",
    "fuser -k -9 -n tcp 8100",
    "ps aux | grep 'vllm serve' | grep -v grep | awk '{print $2}' | xargs kill -9",
    "ps -ef | grep [v]llm | awk '{ print $2 }' | xargs -I{} kill -9 {}",
])
def test_a_job_a_piped_kill_matches_is_ended(scratch_git, stop):
    scratch_git.write("run.sh", f"#!/bin/bash\n{SERVE}\n{stop}\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert len(report["launches"]) == 2
    assert _codes(report) == [] and code == 0


@pytest.mark.parametrize("stop", [
    "pgrep sglang | xargs kill",  # matches neither
    "pgrep -n vllm | xargs kill",  # the newest one only
    "pgrep -c vllm | xargs kill",  # a count, not pids
    "pgrep -u nobody vllm | xargs kill",  # another user's only
    "pkill -P 1 vllm",  # children of process 1 only
    "pgrep vllm | xargs kill -0",  # signal 0: a check
    "pgrep vllm | xargs echo",
    "pgrep vllm | head -1 | xargs kill",
    "lsof -t -i:8200 | xargs kill",  # another port
    "lsof -t -i:$PORT | xargs kill",  # a port pdlint does not know
    "lsof -t -u me -i:8100 | xargs kill",  # -u narrows the list
    "fuser 8100/tcp",  # lists, kills nothing
    "fuser -k 8100/udp",
    "ps aux | grep vllm | head -1 | awk '{print $2}' | xargs kill",
    "ps aux | grep vllm | grep -v serve | awk '{print $2}' | xargs kill",
    "ps aux | grep 'vllm\\|sglang' | awk '{print $2}' | xargs kill",  # a GNU basic-regex escape
    'if [ -n "$X" ]; then pgrep vllm | xargs kill; fi',  # on one path only
    "kill -0 %1",  # "still running?": ends nothing
    "pkill -0 vllm",
    "pkill -v vllm",  # every process but those
])
def test_launches_a_piped_kill_does_not_match_are_still_compared(scratch_git, stop):
    scratch_git.write("run.sh", f"#!/bin/bash\n{SERVE}\n{stop}\n{SERVE}\n")
    code, report = scratch_git.lint("run.sh")
    assert _codes(report) == ["PD150", "PD151"] and code == 1


def test_piped_kill_matches_like_pkill_lsof_and_ps_grep(shell_eval):
    cmds = {c.words[0].text: c for c in shell_eval(
        "nohup python3 -m sglang.launch_server --port 30000 &\nvllm serve m --port=8100 &\n")[0]}
    py, vl = cmds["nohup"], cmds["vllm"]
    jobs = ((py,), (vl,))
    kill = ["xargs", "-r", "kill", "-9"]

    def p(*stages):
        return piped_kill([s.split() for s in stages] + [kill], jobs)

    assert p("pgrep python3") == {py.serial} and p("pgrep -f m.--port") == {vl.serial}
    assert p("pgrep -x vll") == frozenset()
    assert p("lsof -t -i:8100") == {vl.serial} and p("lsof -t -i:30000") == {py.serial}
    assert p("lsof -i:8100") == frozenset()  # not -t: the listing's other columns
    assert p("ps aux", "grep -E sglang|vllm", "awk {print$2}") == frozenset()  # awk's program is one word
    assert piped_kill([["ps", "aux"], ["grep", "-E", "sglang|vllm"], ["awk", "{print $2}"], kill],
                      jobs) == {py.serial, vl.serial}
    assert piped_kill([["ps", "aux"], ["grep", "-i", "VLLM"], ["awk", "{print $2}"], kill], jobs) == {vl.serial}
    assert piped_kill([["pgrep", "vllm"], None, kill], jobs) == frozenset()  # a stage pdlint cannot read
    assert piped_kill([["pgrep", "vllm"], ["xargs", "kill", "1234"]], jobs) == frozenset()

    def k(*words):
        return killed(words[0], [TStr.synthetic(w, "<t>") for w in words[1:]], jobs)

    assert k("fuser", "-k", "8100/tcp") == {vl.serial} and k("fuser", "-k", "-n", "tcp", "30000") == {py.serial}
    assert k("fuser", "-ki", "8100/tcp") == frozenset()  # asks first
    assert k("kill", "-s", "0", "%1") == frozenset() and k("kill", "-9", "%1") == {py.serial}
