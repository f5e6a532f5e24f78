"""Polling loops and launcher libraries (kvcache-ai/Mooncake scripts/tone_tests, stop-32 "Left").

``launch_and_track_process`` polls ``for i in {1..15}`` for a pid it cannot know (``return 0`` when found), and
``wait_for_server_ready`` ``for i in $(seq 1 60)`` for a health code: every iteration split every path, and
one ``${!name}`` read elsewhere in the library turned the joining of paths off, so the script reached the
path limit (PD015) after its first server and its prefill was never checked. A ``for`` loop that can start
nothing now stops once an iteration leaves the paths as the one before did but for its variable.
The library's ``launch_sglang_server`` and ``launch_vllm_server``, each evaluated as a function the script
never calls, are not one host's two servers (no PD151 between two engines' library functions).
"""

POLLING = """\
#!/bin/bash
track() {
    eval "$1"
    for i in {1..15}; do
        pid=$(docker inspect --format '{{.State.Pid}}' "$CONTAINER" 2>/dev/null)
        if [ -n "$pid" ]; then
            echo "$pid" > "$2"
            return 0
        fi
        echo "  Attempt $i/15..."
        sleep 1
    done
    return 1
}
wait_ready() {
    for i in $(seq 1 60); do
        code=$(curl -s -o /dev/null -w "%{http_code}" "http://localhost:$1/health")
        if [ "$code" = "200" ]; then
            return 0
        fi
        sleep 2
    done
    return 1
}
start() {
    local args="--disaggregation-mode $1 --port $2 --base-gpu-id $3"
    track "python -m sglang.launch_server --model-path m $args &" "/tmp/$2.pid" || return 1
    wait_ready "$2" || return 1
}
report() {
    local name=$1[@]
    local items=("${!name}")
    echo "${items[@]}"
}
start prefill 30001 0 && start prefill 30002 1 && start decode 30003 2 && report MODELS
"""


def _summary(doc):
    return sorted((l["role"], l["argv"][l["argv"].index("--port") + 1]) for l in doc["launches"]), \
        [f["code"] for f in doc["findings"]]


def test_polling_loops_do_not_multiply_paths(scratch_git):
    scratch_git.write("run.sh", POLLING)
    code, doc = scratch_git.lint("run.sh")
    assert _summary(doc) == ([("decode", "30003"), ("prefill", "30001"), ("prefill", "30002")], [])


def test_a_loop_that_starts_servers_runs_every_iteration(scratch_git):
    # the loop names a function that launches: not idle, all five run though each leaves the state as before
    scratch_git.write("run.sh", POLLING.replace(
        "start prefill 30001 0 && start prefill 30002 1 && start decode 30003 2 && report MODELS",
        "for p in 30001 30002 30003 30004; do start prefill $p 0; done\nstart decode 30009 1"))
    code, doc = scratch_git.lint("run.sh")
    ports, _ = _summary(doc)
    assert ports == [("decode", "30009")] + [("prefill", str(p)) for p in range(30001, 30005)]


def test_an_idle_loop_that_changes_a_variable_runs_every_iteration(scratch_git):
    # no launch text in the loop, but each iteration extends FLAGS: the state differs, so it keeps going
    scratch_git.write("run.sh", """\
FLAGS=""
for f in --enable-metrics --trust-remote-code --skip-server-warmup; do
    if [ -n "$(command -v nvidia-smi)" ]; then sleep 0; fi
    FLAGS="$FLAGS $f"
done
python -m sglang.launch_server --model-path m --disaggregation-mode prefill $FLAGS
""")
    code, doc = scratch_git.lint("run.sh")
    (launch,) = doc["launches"]
    assert launch["argv"][-3:] == ["--enable-metrics", "--trust-remote-code", "--skip-server-warmup"]


LIBRARY = """\
launch_sglang_server() {
    python -m sglang.launch_server --model-path m --port 30000 &
}
launch_vllm_server() {
    python3 -m vllm.entrypoints.openai.api_server --model m --port 30001 &
}
"""


def test_two_engines_library_functions_share_no_host(scratch_git):
    scratch_git.write("common.sh", LIBRARY)
    code, doc = scratch_git.lint("common.sh")
    assert [f["code"] for f in doc["findings"] if f["code"].startswith("PD15")] == []
    # two servers of one engine in two such functions still do (a caller may start both)
    scratch_git.write("common.sh", LIBRARY.replace(
        "python3 -m vllm.entrypoints.openai.api_server --model m --port 30001",
        "python -m sglang.launch_server --model-path m --port 30001"))
    code, doc = scratch_git.lint("common.sh")
    assert "PD151" in [f["code"] for f in doc["findings"]]
