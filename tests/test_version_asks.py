"""`--version` as a launcher's only argument starts nothing (field test rw19/a: yeqcharlotte/router's
`vllm-router --version` in a CI step and a test script was counted as a router and linked to the servers by
service discovery)."""

import pytest

SERVERS = """\
    #!/bin/bash
    CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B --port 8100 \\
      --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
    CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5601 vllm serve Qwen/Qwen3-8B --port 8200 \\
      --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' &
    """


@pytest.mark.parametrize("line", ["vllm-router --version", "vllm-router -V",
                                  "python3 -m sglang_router.launch_router --version"])
def test_a_version_query_is_no_router(scratch_git, line):
    scratch_git.write("run.sh", SERVERS + line + "\n")
    _, report = scratch_git.lint("run.sh")
    assert sorted(l["kind"] for l in report["launches"]) == ["server", "server"]


def test_a_router_with_arguments_is_one(scratch_git):
    scratch_git.write("run.sh", SERVERS + "vllm-router --vllm-pd-disaggregation --prefill http://localhost:8100 "
                      "--decode http://localhost:8200 --port 8000\n")
    _, report = scratch_git.lint("run.sh")
    assert sorted(l["kind"] for l in report["launches"]) == ["router", "server", "server"]
