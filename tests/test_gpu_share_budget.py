"""Two launches on one GPU that size their KV cache themselves share it on purpose (ai-dynamo/dynamo's
examples/backends/sglang/launch/disagg_same_gpu.sh: prefill and decode on GPU 0 with --max-total-tokens)."""

import pytest

SGL = ("CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path m --disaggregation-mode {role} "
       "--port {port} --disaggregation-bootstrap-port 9000 {extra} &\n")
VLLM = ("CUDA_VISIBLE_DEVICES=0 vllm serve m --port {port} --kv-transfer-config "
        "'{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}}' {extra} &\n")


def _codes(report):
    return [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("extra_p,extra_d,fires", [
    ("--max-total-tokens 20000", "--max-total-tokens 20000", False),
    ("--max-total-tokens 20000", "", True),  # one of them takes the default share
    ("", "", True),
    ("--mem-fraction-static 0.4", "--max-total-tokens 20000", False),
])
def test_sglang(scratch_git, extra_p, extra_d, fires):
    scratch_git.write("run.sh", "#!/bin/bash\n" + SGL.format(role="prefill", port=30000, extra=extra_p)
                      + SGL.format(role="decode", port=30001, extra=extra_d))
    _, report = scratch_git.lint("run.sh")
    assert ("PD151" in _codes(report)) is fires


@pytest.mark.parametrize("extra,fires", [("--kv-cache-memory-bytes 8000000000", False), ("", True)])
def test_vllm(scratch_git, extra, fires):
    scratch_git.write("run.sh", "#!/bin/bash\nexport VLLM_NIXL_SIDE_CHANNEL_PORT=5600\n"
                      + VLLM.format(port=8100, extra=extra)
                      + VLLM.format(port=8200, extra=extra).replace("vllm serve", "VLLM_NIXL_SIDE_CHANNEL_PORT=5700 vllm serve"))
    _, report = scratch_git.lint("run.sh")
    assert ("PD151" in _codes(report)) is fires
