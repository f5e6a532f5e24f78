"""VLLM036: a Dynamo (before 1.0) vLLM prefill worker with `--connector null` (vllm-project/semantic-router's
Dynamo resources and chart default, field test rw12/d): no KV connector, so every prompt is prefilled twice."""

import pytest

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: w}}
spec:
  containers:
  - name: prefill
    image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:{tag}
    command: [python3, -m, dynamo.vllm, --model, Qwen/Qwen3-0.6B, {flags}]
"""


def _codes(scratch_git, tag, flags):
    scratch_git.write("p.yaml", POD.format(tag=tag, flags=flags))
    _, report = scratch_git.lint("p.yaml")
    return [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("connector", ["null", "none"])
def test_a_prefill_worker_without_a_connector(scratch_git, connector):
    assert "VLLM036" in _codes(scratch_git, "0.6.1", f"--is-prefill-worker, --connector, {connector}")


@pytest.mark.parametrize("tag, flags", [
    ("0.6.1", "--is-prefill-worker, --connector, nixl"),
    ("0.6.1", "--is-prefill-worker"),  # nixl, the default
    ("0.6.1", "--connector, 'null'"),  # an aggregated worker needs none
])
def test_with_a_connector_or_no_prefill_role(scratch_git, tag, flags):
    assert "VLLM036" not in _codes(scratch_git, tag, flags)


def test_a_release_from_1_0_is_vllm026_instead(scratch_git):
    codes = _codes(scratch_git, "1.6.1", "--disaggregation-mode, prefill, --connector, 'null'")
    assert "VLLM036" not in codes and "VLLM026" in codes
