"""The depth limit on function calls reports only a function that could change a launch: FlexKV's
benchmarks/nvcomp_benchmarks/benchmark.sh calls ``main > run_variant > start_server > cleanup_gpu > log_step``,
where ``log_step`` only echoes, and the run failed with a PD008 error although its launch was checked (kserve's
install scripts: ``log_info``, 23 times)."""

import pytest

from pdlint.formats.shell import ShellContext

#: how many calls the evaluator follows
DEPTH = ShellContext(lambda p, c: None, lambda *a: None).max_eval_depth
#: the field script's chain, with callers above ``main`` so that ``log_step`` (the test's) is one call too deep
SCRIPT = """#!/bin/bash
%s
cleanup_gpu() { log_step "cleanup"; }
start_server() {
  cleanup_gpu
  python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port ${PORT:-30000} &
}
run_variant() { start_server; }
""" + "".join(f"main{i}() {{ {f'main{i + 1}' if i < DEPTH - 4 else 'run_variant'}; }}\n"
              for i in range(DEPTH - 3)) + 'main0 "$@"\n'


def _codes(report):
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("deep", [
    'log_step() { echo "[bench] >>> $*"; }',
    'GREEN="\\033[0;32m"; NC="\\033[0m"; LOG=/tmp/x.log\n'
    'log_step() { echo -e "${GREEN}[INFO]${NC} $(date +%T) $*" | tee -a "$LOG" >&2; }',
    'log_step() { local msg="$1"; echo "$msg"; }',
    'say() { echo "$@"; }\nlog_step() { say "step: $1"; }',  # a deeper helper that only echoes too
])
def test_a_function_that_cannot_reach_a_launch_is_skipped_quietly(scratch_git, deep):
    scratch_git.write("bench.sh", SCRIPT % deep)
    code, report = scratch_git.lint("bench.sh")
    assert len(report["launches"]) == 1
    assert _codes(report) == [] and code == 0


@pytest.mark.parametrize("deep", [
    "log_step() { PORT=30001; }",  # sets the port the launch reads
    "log_step() { export PORT=30001; }",
    "log_step() { read -r PORT < port.txt; }",  # a write pdlint does not follow
    "log_step() { source ./env.sh; }",
    'log_step() { cd "$1"; }',
    "set_port() { PORT=30001; }\nlog_step() { set_port; }",  # through a function that does
    'CMD="python -m sglang.launch_server --model-path m --port 30002"\nlog_step() { $CMD & }',  # a command in a variable
    'log_step() { nohup "$@" & }',
    'log_step() { for PORT in 1 2; do :; done; }',
])
def test_a_function_that_may_change_a_launch_still_reports_the_limit(scratch_git, deep):
    scratch_git.write("bench.sh", SCRIPT % deep)
    code, report = scratch_git.lint("bench.sh")
    assert "PD015" in _codes(report)
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] in ([], ["PD151"])  # (two on GPU 0)
    assert any(f"function log_step nested deeper than {DEPTH} levels" in f["message"] for f in report["findings"])
