"""Field round rw33/a: router arguments built in a counted `for (( ))` loop.

NVIDIA's Nemotron-Gym sbatch script (`scripts/03_run_single.sh`) builds `router_args=(--vllm-pd-disaggregation
...)`, appends `--prefill URL` in one `for (( i = 0; i < N; i++ ))` loop and `--decode URL` in another, then runs
`vllm-router "${router_args[@]}"`. The loop's counter is read by no launch, so after the first iteration pdlint
made it a value it cannot see (``joins.widen_loop``, meant for loops that only wait or probe): the loop then ran
once more, with a stand-in for "what the loop adds". With `sglang_router.launch_router` that stand-in was read as a
`--prefill` URL with no bootstrap port - SGL824 error on a correct 1P1D launch (`bash` runs the body once: the
router gets `--prefill http://127.0.0.1:30000 9000`, the prefill's bootstrap port). And `vllm-router
"${router_args[@]}"` was no launch text, so the array's first words were dropped as a loop-only variable.
"""

import pytest

SERVERS = """\
#!/bin/bash
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000 --disaggregation-mode prefill --disaggregation-bootstrap-port 9000 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 --base-gpu-id 1 --disaggregation-mode decode &
ROUTER_ARGS=(--pd-disaggregation --host 0.0.0.0 --port 8000)
for (( i = 0; i < BOUND; i++ )); do
    ROUTER_ARGS+=(--prefill "http://127.0.0.1:30000" PORT)
done
ROUTER_ARGS+=(--decode "http://127.0.0.1:30001")
python -m sglang_router.launch_router "${ROUTER_ARGS[@]}"
"""


def _router(report):
    (r,) = [l for l in report["launches"] if l["kind"] == "router"]
    return r["argv"]


def _errors(report):
    return [(f["code"], f["line"]) for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize("bound", ["1", "2"])
def test_a_counted_loop_adds_its_router_urls_as_many_times_as_it_runs(scratch, bound):
    scratch.write("pd.sh", SERVERS.replace("BOUND", bound).replace("PORT", "9000"))
    code, report = scratch.lint("pd.sh")
    assert _errors(report) == [] and code in (0, 1)
    assert _router(report) == ["--pd-disaggregation", "--host", "0.0.0.0", "--port", "8000"] + \
        ["--prefill", "http://127.0.0.1:30000", "9000"] * int(bound) + ["--decode", "http://127.0.0.1:30001"]


def test_a_wrong_bootstrap_port_added_in_the_loop_is_still_found(scratch):
    scratch.write("pd.sh", SERVERS.replace("BOUND", "1").replace("PORT", "9001"))
    code, report = scratch.lint("pd.sh")
    assert _errors(report) == [("SGL824", 6)] and code == 1


def test_a_loop_of_a_count_pdlint_cannot_see_leaves_the_router_check_undecided(scratch):
    """`i < NUM_PREFILL` with NUM_PREFILL from outside: what the other iterations add is a stand-in word, which
    may hold its bootstrap port - no SGL824 on it."""
    scratch.write("pd.sh", SERVERS.replace("BOUND", "NUM_PREFILL").replace("PORT", "9000"))
    code, report = scratch.lint("pd.sh")
    assert _errors(report) == []
    assert any(a.startswith("<what the loop at line 5 adds") for a in _router(report))


def test_vllm_router_run_with_its_argument_array_keeps_the_array(scratch):
    scratch.write("router.sh", """\
#!/bin/bash
router_args=(--vllm-pd-disaggregation --port 8000)
for (( i = 0; i < 1; i++ )); do
    router_args+=(--prefill "http://p$i:8001")
done
for (( i = 0; i < 1; i++ )); do
    router_args+=(--decode "http://d$i:8001")
done
vllm-router "${router_args[@]}"
""")
    code, report = scratch.lint("router.sh")
    assert _router(report) == ["--vllm-pd-disaggregation", "--port", "8000", "--prefill", "http://p0:8001",
                               "--decode", "http://d0:8001"]
    assert report["findings"] == [] and code == 0
