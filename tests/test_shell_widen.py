"""Paths over the limit that differ in nothing a launch reads are joined, not dropped (Joins.widen).

Found on SemiAnalysisAI/InferenceX: its benchmark scripts pick launch flags in two branches, then call
``start_gpu_monitor`` (benchmark_lib.sh), which starts ``nvidia-smi``, ``amd-smi`` or nothing in the
background and records the vendor for ``stop_gpu_monitor``: 18 paths, and a PD008 error ("more than 16
branch paths") on 76 scripts whose every launch pdlint had in fact seen.
"""

from pdlint.coverage import has_launch_text

MONITOR = """\
start_gpu_monitor() {
    if command -v nvidia-smi &>/dev/null; then
        GPU_MONITOR_VENDOR="nvidia"
        nvidia-smi -l 1 > gpu.csv &
        GPU_MONITOR_PID=$!
    elif command -v amd-smi &>/dev/null; then
        GPU_MONITOR_VENDOR="amd"
        amd-smi metric -w 1 > gpu.csv &
        GPU_MONITOR_PID=$!
    else
        GPU_MONITOR_VENDOR=""
        return 0
    fi
}
stop_gpu_monitor() {
    if [[ -n "$GPU_MONITOR_PID" ]]; then
        if [[ "$GPU_MONITOR_VENDOR" == "amd" ]]; then sleep 2; fi
        kill "$GPU_MONITOR_PID"
    fi
}
"""

FLAGS = """\
if [[ $TP -eq 8 ]]; then
  if [[ $CONC -ge 16 ]]; then RECV=30; else RECV=10; fi
  MAX_RUNNING=128
elif [[ $TP -eq 4 ]]; then
  MAX_RUNNING=32; RECV=10
else
  exit 1
fi
EXTRA=""
if [ "${EVAL_ONLY}" = "true" ]; then EXTRA="--context-length 4096"; fi
"""

LAUNCH = ("python3 -m sglang.launch_server --model-path m --max-running-requests $MAX_RUNNING"
          " --scheduler-recv-interval $RECV $EXTRA > server.log 2>&1 &\n")


def launches(cmds):
    return [c for c in cmds if c.words and c.words[0].text == "python3"]


def argv(cmd):
    return " ".join(w.text for w in cmd.words[3:])


def test_a_gpu_monitor_after_the_flag_branches_costs_no_path(scratch_git):
    scratch_git.write("bench.sh", "#!/usr/bin/env bash\n" + MONITOR + FLAGS + "start_gpu_monitor\n" + LAUNCH
                      + "stop_gpu_monitor\n")
    code, doc = scratch_git.lint("bench.sh")
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == []
    assert len(doc["launches"]) == 6


def test_every_launch_keeps_its_own_values(shell_eval):
    cmds, ctx = shell_eval(MONITOR + FLAGS + "start_gpu_monitor\n" + LAUNCH + "stop_gpu_monitor\n",
                           launch_text=has_launch_text)
    assert ctx.limit_serials == []
    assert sorted(argv(c) for c in launches(cmds)) == sorted(
        f"--model-path m --max-running-requests {n} --scheduler-recv-interval {r}{extra}"
        for n, r in (("128", "30"), ("128", "10"), ("32", "10"))
        for extra in ("", " --context-length 4096"))


def test_without_the_launch_test_the_paths_are_dropped_as_before(shell_eval):
    cmds, ctx = shell_eval(MONITOR + FLAGS + "start_gpu_monitor\n" + LAUNCH + "stop_gpu_monitor\n")
    assert len(ctx.limit_serials) == 1


def _explode(read: str) -> str:
    """Six independent branches, 64 paths, each setting V<i>; ``read`` reads them."""
    return "".join(f'if [ "$A{i}" = x ]; then V{i}=1; else V{i}=2; fi\n' for i in range(6)) + read


def test_variables_a_launch_reads_are_never_widened(shell_eval):
    cmds, ctx = shell_eval(_explode("python3 -m sglang.launch_server $V0 $V1 $V2 $V3 $V4 $V5\n"),
                           launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1 and len(launches(cmds)) == 16
    assert all(not w.opaque for c in launches(cmds) for w in c.words)


def test_variables_only_a_log_line_reads_are_widened(shell_eval):
    cmds, ctx = shell_eval(_explode('echo "$V0 $V1 $V2 $V3 $V4 $V5"\npython3 -m sglang.launch_server --tp 2\n'),
                           launch_text=has_launch_text)
    assert ctx.limit_serials == []
    assert [argv(c) for c in launches(cmds)] == ["--tp 2"]


def test_a_variable_that_feeds_another_the_launch_reads_is_kept(shell_eval):
    cmds, ctx = shell_eval(_explode('ARGS="--a $V0 --b $V1 --c $V2 --d $V3 --e $V4 --f $V5"\n'
                                    'python3 -m sglang.launch_server $ARGS\n'), launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


def test_a_variable_given_to_a_launching_function_is_kept(shell_eval):
    script = _explode('serve() { python3 -m sglang.launch_server --tp "$1"; }\n'
                      'for v in "$V0" "$V1" "$V2" "$V3" "$V4" "$V5"; do echo "$v"; done\n'
                      'serve "$V0$V1$V2$V3$V4$V5"\n')
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


def test_a_variable_a_launch_condition_reads_is_kept(shell_eval):
    script = _explode("".join(f'if [ "$V{i}" = 1 ]; then python3 -m sglang.launch_server --tp {i}; fi\n'
                              for i in range(6)))
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


def test_a_background_launch_keeps_its_path(shell_eval):
    script = "".join(f'if [ "$A{i}" = x ]; then python3 -m sglang.launch_server --port 3{i} & fi\n'
                     for i in range(5))
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


def test_a_background_job_that_starts_no_launch_is_widened(shell_eval):
    script = "".join(f'if [ "$A{i}" = x ]; then nvidia-smi -l {i} > m{i}.csv & P{i}=$!; fi\n' for i in range(5))
    cmds, ctx = shell_eval(script + 'echo "$P0 $P1 $P2 $P3 $P4"\npython3 -m sglang.launch_server --tp 2\n',
                           launch_text=has_launch_text)
    assert ctx.limit_serials == []
    assert [argv(c) for c in launches(cmds)] == ["--tp 2"]


def test_reads_pdlint_cannot_follow_keep_the_variable(shell_eval):
    cmds, ctx = shell_eval(_explode('read -r X <<< "$V0 $V1 $V2 $V3 $V4 $V5"\n'
                                    'python3 -m sglang.launch_server --tp 2\n'), launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


CLEANUP = """\
SERVER_PID=""
_descendants() {
    local pid="$1" child
    for child in $(pgrep -P "$pid" 2>/dev/null || true); do
        echo "$child"
        _descendants "$child"
    done
}
cleanup_server() {
    if [[ -n "$SERVER_PID" ]]; then
        local descendants
        descendants=$(_descendants "$SERVER_PID")
        kill "$SERVER_PID" 2>/dev/null || true
        for pid in $descendants; do kill -9 "$pid" 2>/dev/null || true; done
        local waited=0
        while [[ $waited -lt 120 ]]; do
            local used
            used=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | sort -rn | head -1)
            if [[ -z "$used" || "$used" -lt 2000 ]]; then break; fi
            sleep 3; waited=$((waited + 3))
        done
        SERVER_PID=""
    fi
}
trap 'cleanup_server' EXIT
"""


def test_a_sweep_with_a_gpu_memory_wait_and_a_process_tree_walker_is_no_error(scratch_git):
    # InferenceX benchmarks/single_node/speedbench/*.sh: the recursive _descendants hit the depth limit and
    # the 40-iteration wait, run after every cell, the path and expansion limits (3 PD008 errors per script)
    sweep = ("for mode in a b c d; do for mtp in 1 2 3; do\n"
             "  vllm serve m --port 8000 --max-model-len 16384 > log 2>&1 &\n"
             "  SERVER_PID=$!\n  sleep 1\n  cleanup_server\ndone; done\n")
    scratch_git.write("sweep.sh", "#!/bin/bash\n" + CLEANUP + sweep)
    code, doc = scratch_git.lint("sweep.sh")
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == []
    assert len(doc["launches"]) == 1


def test_a_recursive_function_that_starts_a_server_still_reports_the_depth(shell_eval):
    reports = []
    script = 'f() { python3 -m sglang.launch_server --port "$1"; f "$(($1 + 1))"; }\nf 1\n'
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1


def test_a_loop_that_builds_launch_flags_runs_its_iterations(shell_eval):
    script = ('i=0; FLAGS=""\nwhile [[ $i -lt 3 ]]; do FLAGS="$FLAGS --x$i"; i=$((i + 1)); done\n'
              'python3 -m sglang.launch_server $FLAGS\n')
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert [argv(c) for c in launches(cmds)] == ["--x0 --x1 --x2"]


def test_a_counter_no_launch_reads_is_not_run_out(shell_eval):
    script = ('n=0\nwhile [[ $n -lt 200 ]]; do curl -s "localhost:$n" && break; n=$((n + 1)); done\n'
              'python3 -m sglang.launch_server --port 1\n')
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert ctx.limit_serials == [] and len([c for c in cmds if c.words[0].text == "curl"]) <= 3


def test_paths_that_ended_different_launches_are_not_widened(shell_eval):
    # which servers still run decides the GPU and port checks: a path that killed the first server and one
    # that did not stay apart, so the second server counts as running next to the first
    script = ("python3 -m sglang.launch_server --port 1 &\nP=$!\n"
              + "".join(f'if [ "$A{i}" = x ]; then V{i}=1; fi\n' for i in range(4))
              + 'if [ "$K" = y ]; then kill $P; fi\necho "$V0 $V1 $V2 $V3"\n'
              + "python3 -m sglang.launch_server --port 2 &\n")
    cmds, ctx = shell_eval(script, launch_text=has_launch_text)
    assert ctx.limit_serials == []
    (second,) = [c for c in launches(cmds) if c.words[-1].text == "2"]
    assert second.ended_before == frozenset()


LIBRARY = """\
_background_process_descendants() {
    local parent_pid="$1"
    local child_pid
    while read -r child_pid; do
        [[ -n "$child_pid" ]] || continue
        echo "$child_pid"
        _background_process_descendants "$child_pid"
    done < <(pgrep -P "$parent_pid" 2>/dev/null || true)
}
# (a chain eleven calls deep: deeper than the evaluator's depth limit, 8)
a() { b; }
b() { c; }
c() { d; }
d() { e; }
e() { f; }
f() { g; }
g() { h; }
h() { i; }
i() { j; }
j() { k; }
k() { pip install -q x; }
start_server() { python3 -m sglang.launch_server --model-path m & }
"""


def test_a_library_s_recursive_walker_and_deep_helpers_are_no_error(scratch_git):
    # InferenceX benchmarks/benchmark_lib.sh checked on its own: its functions are evaluated uncalled, and the
    # recursion and a chain five calls deep hit the depth limit (PD008) in code that starts nothing
    scratch_git.write("lib.sh", LIBRARY)
    code, doc = scratch_git.lint("lib.sh")
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == []


def test_a_deep_chain_that_starts_a_server_still_reports_the_depth(scratch_git):
    launch = "python3 -m sglang.launch_server --model-path m --port 2"
    scratch_git.write("lib.sh", LIBRARY.replace("pip install -q x", launch))
    code, doc = scratch_git.lint("lib.sh")
    assert "PD015" in [f["code"] for f in doc["findings"] if f["severity"] == "warning"]
