"""Launches in two functions a script never calls (each evaluated as an entry point) that each start both roles
are two configurations: no port or GPU collision between them, and no pair across them.

Field test: lightseekorg/smg ``scripts/launch-pd-workers.sh`` dispatches from ``main`` on its first argument
(``sglang`` / ``vllm``) to ``launch_sglang_pd`` and ``launch_vllm_pd_{nixl,mooncake}``, each starting a prefill on
GPU 0 / port 50051 and a decode on GPU 1 / port 50052: pdlint reported the SGLang and vLLM workers as colliding
on one host (PD150 x2, PD151 x4) and paired the nixl prefill with the mooncake decode (VLLM010 x2)."""

SCRIPT = """\
    #!/usr/bin/env bash
    PREFILL_GPU="${PREFILL_GPU:-0}"
    DECODE_GPU="${DECODE_GPU:-1}"
    launch_a() {
        CUDA_VISIBLE_DEVICES=$PREFILL_GPU VLLM_NIXL_SIDE_CHANNEL_PORT=5600 vllm serve M --port 50051 \\
            --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
        CUDA_VISIBLE_DEVICES=$DECODE_GPU VLLM_NIXL_SIDE_CHANNEL_PORT=5601 vllm serve M --port 50052 \\
            --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' &
    }
    launch_b() {
        CUDA_VISIBLE_DEVICES=$PREFILL_GPU vllm serve M --port 50051 \\
            --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}' &
        CUDA_VISIBLE_DEVICES=$DECODE_GPU vllm serve M --port 50052 \\
            --kv-transfer-config '{"kv_connector":"%s","kv_role":"kv_consumer"}' &
    }
    """


def pairs(report) -> list:
    return sorted((p["prefill"]["line"], p["decode"]["line"]) for d in report["pairs"] for p in d["pairs"])


def test_two_entry_functions_neither_collide_nor_cross_pair(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % "MooncakeConnector")
    code, report = scratch_git.lint("launch.sh")
    assert pairs(report) == [(5, 7), (11, 13)]
    assert report["findings"] == [] and code == 0


def test_a_mismatch_inside_one_entry_function_is_still_reported(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % "NixlConnector")
    _, report = scratch_git.lint("launch.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM010", 14)]


def test_one_role_per_entry_function_still_pairs(scratch_git):
    # start_prefill / start_decode, each called by another script: one deployment
    scratch_git.write("roles.sh", """\
        start_prefill() {
            vllm serve M --port 50051 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        }
        start_decode() {
            vllm serve M --port 50052 --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'
        }
        """)
    _, report = scratch_git.lint("roles.sh")
    assert pairs(report) == [(2, 5)]
    # (and they may share a host: both on GPU 0 is still reported)
    assert sorted(f["code"] for f in report["findings"]) == ["PD151", "VLLM010"]
