"""VLLM035: a Dynamo vLLM worker its deployment names prefill, with no role flag (NVIDIA/nim-deploy's AKS
workshop: disagg_planner.yaml's VllmPrefillWorker without `--is-prefill-worker` on vllm-runtime:0.8.0, field test
rw12/d). Dynamo's worker takes its role from its flags only: it ran as a second decode worker."""

import pytest

DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
spec:
  services:
    VllmDecodeWorker:
      componentType: worker
      subComponentType: decode
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:TAG
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B DECODE]
    VllmPrefillWorker:
      componentType: worker
      subComponentType: prefill
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:TAG
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B PREFILL, --kv-transfer-config,
                 '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
"""


@pytest.mark.parametrize("tag, decode, flag", [
    ("0.8.0", "", "--is-prefill-worker"),
    ("1.6.1", ", --disaggregation-mode, decode", "--disaggregation-mode prefill"),
])
def test_a_prefill_service_without_its_role_flag(scratch_git, tag, decode, flag):
    scratch_git.write("d.yaml", DGD.replace("TAG", tag).replace(" DECODE", decode).replace(" PREFILL", ""))
    code, report = scratch_git.lint("d.yaml")
    (f,) = [f for f in report["findings"] if f["code"] == "VLLM035"]
    assert f["role"] == "prefill" and f["severity"] == "warning" and f"its command has no {flag}" in f["message"]
    scratch_git.write("d.yaml", DGD.replace("TAG", tag).replace(" DECODE", decode)
                      .replace(" PREFILL", ", " + flag.replace(" ", ", ")))
    code, report = scratch_git.lint("d.yaml")
    assert not [f for f in report["findings"] if f["code"] == "VLLM035"], report["findings"]
