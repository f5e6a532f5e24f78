"""A `while` loop whose paths keep splitting on a probe (LMCache/LMBench's find_free_ports, field test rw13/f:
`while [ "${#free_ports[@]}" -lt "$count" ]; do if ! lsof -iTCP:$port ...; then free_ports+=($port); fi;
((port++)); done`) took each script to its 10 s time limit (PD008, launches unchecked). After a few iterations
whose paths still differ it is read as a loop pdlint does not count: what it sets is unknown."""

FREE_PORTS = """\
#!/bin/bash
find_free_ports() {
    local start=$1
    local count=$2
    local port=$start
    local free_ports=()
    while [ "${#free_ports[@]}" -lt "$count" ]; do
        if ! lsof -iTCP:$port -sTCP:LISTEN &>/dev/null; then
            free_ports+=($port)
        fi
        ((port++))
    done
    echo "${free_ports[@]}"
}
free_ports=($(find_free_ports 8000 4))
vllm serve M --port "${free_ports[0]}" --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
"""

COUNTER = """\
#!/bin/bash
n=0
port=8000
while [ "$n" -lt 4 ]; do
    if ! lsof -iTCP:$port; then
        n=$((n+1))
    fi
    port=$((port+1))
done
vllm serve M --port "$port"
"""


def test_a_probing_loop_ends_quickly_with_its_values_unknown(scratch_git):
    scratch_git.write("a.sh", FREE_PORTS)
    scratch_git.write("e.sh", COUNTER)
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0  # (not PD008: the file's time limit)
    by_file = {l["path"]: l for l in report["launches"]}
    assert sorted(by_file) == ["a.sh", "e.sh"] and len(report["launches"]) == 2
    port = by_file["e.sh"]["argv"][by_file["e.sh"]["argv"].index("--port") + 1]
    assert port == "<what the loop at line 4 leaves in port>"


def test_a_loop_of_known_count_still_runs_each_iteration(shell_eval):
    cmds, _ = shell_eval('i=0\nwhile [ $i -lt 6 ]; do\n  if [ -n "$X" ]; then echo x; fi\n  run --n $i\n'
                         '  i=$((i+1))\ndone\n')
    assert sorted(c.words[-1].text for c in cmds if c.words[0].text == "run") == ["0", "1", "2", "3", "4", "5"]


FREE_GPUS = """\
#!/bin/bash
find_free_gpus() {
    local count=$1
    local free_gpus=()
    local total_gpus
    total_gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
    for ((i=0; i<total_gpus; i++)); do
        if [[ "$(nvidia-smi --query-compute-apps=gpu_uuid -i $i)" == "" ]]; then
            free_gpus+=("$i")
        fi
    done
    if [[ "${#free_gpus[@]}" -lt "$count" ]]; then
        echo "ERROR: only ${#free_gpus[@]} free GPUs" >&2
        exit 1
    fi
    echo "${free_gpus[@]}"
}
free_gpus=($(find_free_gpus 2))
if [ "${#free_gpus[@]}" -ne 2 ]; then exit 1; fi
for i in 0 1; do
    CUDA_VISIBLE_DEVICES="${free_gpus[$i]}" vllm serve M --port "800$i" &
done
"""


def test_a_loop_of_unknown_count_appends_an_unknown_number_of_items(scratch_git):
    """LMCache/LMBench's find_free_gpus (field test rw13/f): one iteration of `for ((i=0; i<total_gpus; i++))`
    left one GPU in the array, `${#free_gpus[@]} -lt $count` exited before every launch, and then
    "${free_gpus[$i]}" past the known items was empty (a false PD153 "0 GPUs visible")."""
    scratch_git.write("run.sh", FREE_GPUS)
    code, report = scratch_git.lint("run.sh")
    assert len(report["launches"]) == 2 and report["findings"] == [] and code == 0
