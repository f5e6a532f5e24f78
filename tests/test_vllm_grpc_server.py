"""``python -m vllm.entrypoints.grpc_server``: vLLM's gRPC server (AsyncEngineArgs' flags plus --host/--port) is
a vLLM server launch.

Field test: lightseekorg/smg ``scripts/launch-pd-workers.sh`` starts its vLLM prefill and decode this way with a
``--kv-transfer-config``: six PD020 "not a launcher pdlint knows", nothing checked."""

SCRIPT = """\
    #!/usr/bin/env bash
    MODEL=meta-llama/Llama-3.1-8B-Instruct
    prefill_kv='{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}'
    decode_kv='{"kv_connector":"%s","kv_role":"kv_consumer"}'
    CUDA_VISIBLE_DEVICES=0 python3 -m vllm.entrypoints.grpc_server --model "$MODEL" --port 50051 \\
        --kv-transfer-config "$prefill_kv" &
    CUDA_VISIBLE_DEVICES=1 python3 -m vllm.entrypoints.grpc_server --model "$MODEL" --port 50052 \\
        --kv-transfer-config "$decode_kv" &
    wait
    """


def test_grpc_servers_are_launches_and_pair(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % "MooncakeConnector")
    code, report = scratch_git.lint("launch.sh")
    assert [(l["engine"], l["role"]) for l in report["launches"]] == [("vllm", "prefill"), ("vllm", "decode")]
    assert len(report["pairs"]) == 1 and report["findings"] == [] and code == 0


def test_a_connector_mismatch_between_grpc_servers_is_reported(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % "NixlConnector")
    _, report = scratch_git.lint("launch.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM010"]
