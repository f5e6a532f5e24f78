"""Messages name an aggregated or unknown-role server (role ``null``) "other", as the summary line counts it:
the field report on vLLM's disagg_performance_benchmark.sh read "the prefill and null launches both use GPU 0"
and "the null launch (python -m ...)"."""

#: an aggregated baseline and a prefill server on the same port and GPU, both running
SCRIPT = """#!/bin/bash
CUDA_VISIBLE_DEVICES=0 python3 -m vllm.entrypoints.openai.api_server \\
  --model m --port 8100 --gpu-memory-utilization 0.6 &
CUDA_VISIBLE_DEVICES=0 python3 -m vllm.entrypoints.openai.api_server \\
  --model m --port 8100 --gpu-memory-utilization 0.6 \\
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
"""


def test_an_aggregated_launch_is_named_other_in_the_pair_messages(scratch_git):
    scratch_git.write("bench.sh", SCRIPT)
    code, report = scratch_git.lint("bench.sh")
    assert sorted(l["role"] for l in report["launches"]) == ["null", "prefill"]  # the data keeps the role
    by_code = {f["code"]: f for f in report["findings"]}
    assert sorted(by_code) == ["PD150", "PD151"] and code == 1
    gpu, port = by_code["PD151"], by_code["PD150"]
    assert gpu["message"].startswith("the prefill and other launches both use GPU 0: ")
    assert ", the other launch GPU 0 (" in gpu["message"]
    assert "this prefill launch's --port (8100) and the other launch's --port (8100)" in port["message"]
    notes = [r["note"] for f in report["findings"] for r in f["related"]]
    assert any(n.startswith("the other launch (python -m vllm.entrypoints.openai.api_server, ") for n in notes)
    assert not any("null" in f["message"] for f in report["findings"]) and not any("null" in n for n in notes)
