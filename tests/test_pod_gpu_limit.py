"""PD153 on Kubernetes: a container's GPU limit is the devices it gets.

Field test rw19/b: a Deployment with `nvidia.com/gpu: "4"` and `--tp-size 8` passed without a word; SGLang places
TP rank r on GPU base + r and asserts `gpu_id < torch.cuda.device_count()` (sglang/srt/utils/common.py), so the
fifth rank's scheduler dies at start-up.  PD153 read only CUDA_VISIBLE_DEVICES and `docker run --gpus`."""

import pytest

POD = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: sglang-decode}
    spec:
      template:
        spec:
          containers:
            - name: decode
              image: lmsysorg/sglang:v0.5.23
              command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B,
                        --disaggregation-mode, decode, FLAGS]
              resources:
                limits:
                  RESOURCE: "LIMIT"
    """


def _pod(flags="--tp-size, '8'", limit="4", resource="nvidia.com/gpu"):
    return POD.replace("FLAGS", flags).replace("LIMIT", limit).replace("RESOURCE", resource)


def test_more_tp_ranks_than_the_pods_gpus(scratch_git):
    scratch_git.write("d.yaml", _pod())
    code, report = scratch_git.lint("d.yaml")
    [f] = report["findings"]
    assert (f["code"], f["line"]) == ("PD153", 14)  # at the limit
    assert "4 GPUs (resources.limits[nvidia.com/gpu]: 4)" in f["message"] and "--tp-size 8" in f["message"]
    assert f["related"][0]["line"] == 11  # the parallel size
    assert code == 1


@pytest.mark.parametrize("flags,limit,resource", [
    ("--tp-size, '8'", "8", "nvidia.com/gpu"),
    ("--tp-size, '4'", "8", "nvidia.com/gpu"),
    ("--tp-size, '16', --nnodes, '2', --node-rank, '0', --dist-init-addr, 'leader:5000'", "8", "nvidia.com/gpu"),
    ("--tp-size, '8'", "1", "example.com/fpga"),  # not a GPU resource: unknown
    ("--tp-size, '8', --nnodes, $(LWS_GROUP_SIZE)", "4", "nvidia.com/gpu"),  # nodes unknown: not judged
])
def test_enough_or_unknown_is_quiet(scratch_git, flags, limit, resource):
    scratch_git.write("d.yaml", _pod(flags, limit, resource))
    _, report = scratch_git.lint("d.yaml")
    assert "PD153" not in [f["code"] for f in report["findings"]], report["findings"]


def test_amd_gpus_and_a_vllm_server(scratch_git):
    scratch_git.write("d.yaml", _pod(limit="2", resource="amd.com/gpu"))
    _, report = scratch_git.lint("d.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD153"]
    vllm = POD.replace("lmsysorg/sglang:v0.5.23", "vllm/vllm-openai:v0.11.0").replace(
        "[python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B,", "[vllm, serve, Qwen/Qwen3-8B,").replace(
        "--disaggregation-mode, decode, FLAGS]", "--tensor-parallel-size, '2']")
    scratch_git.write("v.yaml", vllm.replace("RESOURCE", "nvidia.com/gpu").replace("LIMIT", "1"))
    _, report = scratch_git.lint("v.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD153"]


def test_two_containers_of_one_pod_do_not_share_devices(scratch_git):
    # each container's devices are its own (numbered from 0 in each): no overlap finding between them
    two = _pod("--tp-size, '4'", "4") + """\
            - name: prefill
              image: lmsysorg/sglang:v0.5.23
              command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B,
                        --disaggregation-mode, prefill, --tp-size, '4', --port, '30001']
              resources:
                limits:
                  nvidia.com/gpu: "4"
    """
    scratch_git.write("d.yaml", two)
    _, report = scratch_git.lint("d.yaml")
    assert not {"PD151", "PD152", "PD153"} & {f["code"] for f in report["findings"]}, report["findings"]


LWS = """\
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata: {name: vllm}
    spec:
      leaderWorkerTemplate:
        size: 2
        leaderTemplate:
          spec:
            containers:
              - name: vllm-leader
                image: vllm/vllm-openai:v0.11.0
                command: [sh, -c, "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);
                  python3 -m vllm.entrypoints.openai.api_server --model M --tensor-parallel-size 8
                  --pipeline_parallel_size 2"]
                resources:
                  limits:
                    nvidia.com/gpu: "8"
        workerTemplate:
          spec:
            containers:
              - name: vllm-worker
                image: vllm/vllm-openai:v0.11.0
                command: [sh, -c, "bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
                resources:
                  limits:
                    nvidia.com/gpu: "8"
    """


def test_a_group_over_several_pods_is_not_one_pods_devices(scratch_git):
    # found by the field compare on kubernetes-sigs/lws's own vLLM example: tensor 8 x pipeline 2 over the two
    # 8-GPU pods of the group through Ray, not 16 GPUs in the leader's pod
    scratch_git.write("lws.yaml", LWS)
    _, report = scratch_git.lint("lws.yaml")
    assert "PD153" not in [f["code"] for f in report["findings"]]

