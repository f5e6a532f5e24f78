"""ZhaiFeiyue/amd-tools spike/run_best_config.sh (field test rw6/c), cut down: containers started by name inside
`ssh NODE "docker run -d --name ${NODE_CONTAINER##*:} IMAGE ..."` in a loop, and the servers started with
`ssh NODE "docker exec -d NAME bash -c '...launch_server...'"`.  The launches were judged against the newest
release (SGL012 "no release is pinned", SGL008 for a flag of 0.5.9) because the exec was not linked to the
image: the container name came from `${NODE_CONTAINER##*:}` of a value with an unknown part (`$1:pd_spike_decode`),
and the launch ran in a nested `bash -c` of the exec.  Judged against 0.5.9, SGL909 then had to divide the
chunked-prefill size by the DP size as SGLang does before its MoRI check (a false error otherwise)."""
import pytest


SCRIPT = """\
#!/bin/bash
PREFILL_NODE="${1:?Usage: $0 <PREFILL_NODE> <DECODE_NODE>}"
DECODE_NODE="${2:?Usage: $0 <PREFILL_NODE> <DECODE_NODE>}"
IMAGE="rocm/pytorch-private:sglang-0.5.9-rocm720-mi35x-mori-0327"
for NODE_CONTAINER in "${PREFILL_NODE}:pd_spike_prefill" "${DECODE_NODE}:pd_spike_decode"; do
    NODE="${NODE_CONTAINER%%:*}"
    CONTAINER="${NODE_CONTAINER##*:}"
    ssh ${NODE} "docker rm -f ${CONTAINER} 2>/dev/null; \\
        docker run -d --name ${CONTAINER} --network=host --ipc=host \\
        ${IMAGE} bash -c 'sleep infinity'"
done
ssh ${PREFILL_NODE} "docker exec -d pd_spike_prefill bash -c 'SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK=12288 \\
python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --disaggregation-transfer-backend mori \\
--tp-size 4 --ep-size 4 --dp-size 4 --moe-a2a-backend mori --enable-dp-attention --chunked-prefill-size CHUNK'"
ssh ${DECODE_NODE} "docker exec -d pd_spike_decode bash -c 'python3 -m sglang.launch_server --model-path /m \\
--disaggregation-mode decode --disaggregation-transfer-backend mori --tp-size 8 --dp-size 8 --enable-dp-attention \\
--cuda-graph-bs 1 2 4'"
"""


def test_servers_exec_d_into_named_containers_are_judged_against_the_image(scratch):
    scratch.write("run.sh", SCRIPT.replace("CHUNK", "49152"))
    code, doc = scratch.lint("run.sh")
    assert sorted(l["engine_version"] for l in doc["launches"]) == ["0.5.9", "0.5.9"]
    # 49152 / dp-size 4 = 12288, the limit: SGLang 0.5.9 accepts it; --cuda-graph-bs and
    # --enable-dp-attention are plain 0.5.9 flags
    assert code == 0 and doc["findings"] == [], doc["findings"]


def test_a_chunk_over_the_limit_per_dp_rank_is_sgl909(scratch):
    scratch.write("run.sh", SCRIPT.replace("CHUNK", "65536"))
    _, doc = scratch.lint("run.sh")
    (f,) = doc["findings"]
    assert f["code"] == "SGL909" and "65536 / dp-size 4 = 16384 > the dispatch limit 12288" in f["message"]


@pytest.mark.parametrize("release,codes", [("0.5.9", ["SGL909"]), ("0.5.12", [])])
def test_sgl909_on_a_decode_server_only_before_0_5_10(scratch, release, codes):
    scratch.write("d.sh", "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode "
                          "--moe-a2a-backend mori --chunked-prefill-size 8192\n")
    _, doc = scratch.lint("--sglang-version", release, "d.sh")
    assert [f["code"] for f in doc["findings"]] == codes


@pytest.mark.parametrize("expr,want", [
    ('"${V##*:}"', "pd_b"),        # the last ':' is in the known tail
    ('"${V%%:*}"', None),          # the first ':' may be in the unknown head: unknown
    ('"${W%%:*}"', "node"),        # the first ':' is in the known head
    ('"${W##*:}"', None),          # the last ':' may be in the unknown tail
])
def test_trimming_a_partly_unknown_value_at_a_separator_in_its_known_end(shell_eval, expr, want):
    cmds, _ = shell_eval('V="$1:pd_b"\nW="node:$2"\necho ' + expr + "\n")
    (cmd,) = cmds
    word = cmd.words[1]
    assert (None if word.opaque else word.text) == want
