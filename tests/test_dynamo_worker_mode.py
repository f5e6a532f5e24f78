"""PD101 for Dynamo's TensorRT-LLM and vLLM workers: their own `--disaggregation-mode` against the role the
deployment gives them.  Field test rw21/a: a DynamoGraphDeployment's TRTLLMDecodeWorker (subComponentType: decode)
started with `--disaggregation-mode prefill` passed; the same file with `dynamo.sglang` was PD101."""

import pytest

DGD = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
spec:
  services:
    PrefillWorker:
      subComponentType: prefill
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.4.0
          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.MODULE --model-path Qwen/Qwen3-0.6B --disaggregation-mode prefill"
    DecodeWorker:
      subComponentType: decode
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.4.0
          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.MODULE --model-path Qwen/Qwen3-0.6B MODE"
"""


@pytest.mark.parametrize("mode", ["--disaggregation-mode prefill", "--disaggregation-mode=prefill"])
def test_a_trtllm_decode_worker_started_as_prefill(scratch_git, mode):
    scratch_git.write("dgd.yaml", DGD.replace("MODULE", "trtllm").replace("MODE", mode))
    code, report = scratch_git.lint("dgd.yaml")
    (f,) = [f for f in report["findings"] if f["code"] == "PD101"]
    assert f["line"] == 22 and "subComponentType makes this the decode server, but --disaggregation-mode is " \
        "'prefill'" in f["message"]
    assert code == 1


def test_workers_whose_mode_matches_are_quiet(scratch_git):
    scratch_git.write("dgd.yaml", DGD.replace("MODULE", "trtllm").replace("MODE", "--disaggregation-mode decode"))
    _, report = scratch_git.lint("dgd.yaml")
    assert "PD101" not in [f["code"] for f in report["findings"]]
