"""Field test ai-dynamo/dynamo: PD153 counted a vLLM launch's whole TP group on its node, ignoring ``--nnodes``
(tests/serve/launch/multi_node_tp_headless.sh: TP 2 over 2 nodes, one GPU each, got "uses 2").  vLLM
(config/parallel.py) runs ``local_world_size = world_size // nnodes_within_dp`` ranks per node."""

import pytest

HEAD = "--nnodes {n} --node-rank 0 --master-addr 127.0.0.1"


def _vllm(cvd: str, flags: str) -> str:
    return f"#!/bin/bash\nCUDA_VISIBLE_DEVICES={cvd} python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B {flags}\n"


def _pd153(out) -> list:
    return [f["message"] for f in out["findings"] if f["code"] == "PD153"]


def test_multi_node_tp_needs_its_share_of_the_group_per_node(scratch_git):
    scratch_git.write("tp.sh", """\
        #!/bin/bash
        CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 127.0.0.1 &
        CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --headless
        """)
    code, out = scratch_git.lint("tp.sh")
    assert _pd153(out) == [] and code == 0, out["findings"]
    assert out["coverage"]["launches"] == 2


def test_multi_node_tp_with_too_few_gpus_per_node_is_reported(scratch_git):
    scratch_git.write("tp.sh", _vllm("0", "--tensor-parallel-size 4 " + HEAD.format(n=2)))
    code, out = scratch_git.lint("tp.sh")
    assert _pd153(out) == ["this launch makes 1 GPU visible (CUDA_VISIBLE_DEVICES=0) but uses 2 "
                           "(--tensor-parallel-size 4 / --nnodes 2)"]


def test_single_node_tp_still_needs_the_whole_group(scratch_git):
    scratch_git.write("tp.sh", _vllm("0", "--tensor-parallel-size 2"))
    code, out = scratch_git.lint("tp.sh")
    assert _pd153(out) == ["this launch makes 1 GPU visible (CUDA_VISIBLE_DEVICES=0) but uses 2 "
                           "(--tensor-parallel-size 2)"]


def test_multi_node_dp_with_a_local_size_counts_the_node_s_replicas(scratch_git):
    flags = "--tensor-parallel-size 2 --data-parallel-size 4 --data-parallel-size-local 2 " + HEAD.format(n=2)
    scratch_git.write("dp.sh", _vllm("0,1", flags))
    code, out = scratch_git.lint("dp.sh")
    assert [m.split(" but ")[1] for m in _pd153(out)] == [
        "uses 4 (--tensor-parallel-size 2 x --data-parallel-size 2 / --nnodes 2)"]
    scratch_git.write("dp.sh", _vllm("0,1,2,3", flags))
    code, out = scratch_git.lint("dp.sh")
    assert _pd153(out) == []


def test_multi_node_dp_without_a_local_size_is_not_counted(scratch_git):
    scratch_git.write("dp.sh", _vllm("0", "--tensor-parallel-size 2 --data-parallel-size 2 " + HEAD.format(n=2)))
    code, out = scratch_git.lint("dp.sh")
    assert _pd153(out) == []


@pytest.mark.parametrize("tp,reported", [(2, False), (4, True)])
def test_sglang_divides_tp_by_nnodes_too(scratch_git, tp, reported):
    scratch_git.write("sg.sh", f"""\
        #!/bin/bash
        CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path m --tp {tp} --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
        """)
    code, out = scratch_git.lint("sg.sh")
    assert bool(_pd153(out)) is reported, out["findings"]


@pytest.mark.parametrize("backend", ["--distributed-executor-backend ray", "--distributed-executor-backend=ray"])
def test_a_ray_cluster_places_the_tp_group_on_its_nodes(scratch_git, backend):
    # vLLM docs/serving/distributed_serving.md: one `vllm serve` on the head node, TP = the GPUs of the whole
    # cluster (omni-ai-npu/omni-infer, field test rw6/e: three false PD153 errors)
    scratch_git.write("tp.sh", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 vllm serve /m --tensor-parallel-size 16 "
                               f"{backend} --port 8999\n")
    code, out = scratch_git.lint("tp.sh")
    assert _pd153(out) == [] and code == 0
    # the multiprocessing backend runs every rank on this node
    scratch_git.write("tp.sh", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 vllm serve /m --tensor-parallel-size 16 "
                               "--distributed-executor-backend mp --port 8999\n")
    code, out = scratch_git.lint("tp.sh")
    assert len(_pd153(out)) == 1


def test_an_external_dp_rank_is_one_replica(scratch_git):
    """wjc129/vllm-ascend's xPyD scripts (field test rw15/j): one `vllm serve` per DP rank, each given one device;
    with --data-parallel-rank vLLM runs one replica in the process (arg_utils.py: data_parallel_size_local = 1),
    and PD153 counted all 16 (24 false errors)."""
    flags = "--tensor-parallel-size 1 --data-parallel-size 16 --data-parallel-rank 3 --data-parallel-address 10.0.0.2"
    scratch_git.write("dp.sh", _vllm("3", flags))
    code, out = scratch_git.lint("dp.sh")
    assert _pd153(out) == [] and code == 0, out["findings"]
    # its own TP group still has to fit
    scratch_git.write("dp.sh", _vllm("3", flags.replace("--tensor-parallel-size 1", "--tensor-parallel-size 2")))
    code, out = scratch_git.lint("dp.sh")
    assert [m.split(" but ")[1] for m in _pd153(out)] == ["uses 2 (--tensor-parallel-size 2)"]
