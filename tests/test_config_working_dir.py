"""A relative config path a launch names is also looked for relative to the directories between the referring
file and the repository root: the working directory the launch assumes.  ai-dynamo's TRT-LLM examples
(components/backends/trtllm, as yuekaizhang/dynamo has them) run `./launch/disagg.sh` from that directory and
their DynamoGraphDeployments set `workingDir: /workspace/components/backends/trtllm`; both name
`engine_configs/prefill.yaml`, which was PD022 "not found" (17 of them in that repository)."""

import pytest

SCRIPT = """\
#!/bin/bash
python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args engine_configs/prefill.yaml \\
  --disaggregation-mode prefill &
python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args engine_configs/decode.yaml \\
  --disaggregation-mode decode
"""

DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
spec:
  services:
    TRTLLMPrefillWorker:
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.4.0
          workingDir: /workspace/components/backends/trtllm
          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args engine_configs/prefill.yaml --disaggregation-mode prefill"
    TRTLLMDecodeWorker:
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.4.0
          workingDir: /workspace/components/backends/trtllm
          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args engine_configs/decode.yaml --disaggregation-mode decode"
"""

BASE = "components/backends/trtllm"


def _tree(s, decode_backend="UCX"):
    s.write(f"{BASE}/launch/disagg.sh", SCRIPT)
    s.write(f"{BASE}/deploy/disagg.yaml", DGD)
    s.write(f"{BASE}/engine_configs/prefill.yaml", "disable_overlap_scheduler: true\n"
                                                   "cache_transceiver_config:\n  backend: UCX\n")
    s.write(f"{BASE}/engine_configs/decode.yaml", f"cache_transceiver_config:\n  backend: {decode_backend}\n")


@pytest.mark.parametrize("path", [f"{BASE}/launch/disagg.sh", f"{BASE}/deploy/disagg.yaml"])
def test_configs_beside_the_launch_directory_are_read(scratch, path):
    _tree(scratch, decode_backend="NIXL")
    _, doc = scratch.lint(path)
    assert not [f for f in doc["findings"] if f["code"] == "PD022"], doc["findings"]
    (f,) = [f for f in doc["findings"] if f["code"] == "TRT001"]
    assert f["path"] == f"{BASE}/engine_configs/decode.yaml"


def test_matching_configs_are_clean(scratch):
    _tree(scratch)
    code, doc = scratch.lint(f"{BASE}/launch/disagg.sh")
    assert code == 0 and doc["findings"] == []


def test_a_config_in_no_directory_between_stays_pd022(scratch):
    scratch.write(f"{BASE}/launch/disagg.sh", SCRIPT)
    scratch.write("elsewhere/engine_configs/prefill.yaml", "cache_transceiver_config:\n  backend: UCX\n")
    _, doc = scratch.lint(f"{BASE}/launch/disagg.sh")
    assert sorted(f["code"] for f in doc["findings"]) == ["PD022", "PD022"]
