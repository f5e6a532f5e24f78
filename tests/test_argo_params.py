"""Argo Workflows: `{{workflow.parameters.X}}` and `{{inputs.parameters.X}}` in a container's args take the values
Argo fills them with (the workflow's `spec.arguments.parameters`, the template's `inputs.parameters` defaults); one
with no value in the file is a value pdlint cannot see.  Field test rw25/a: they were passed to SGLang as written, a
false SGL004 "invalid choice: '{{workflow.parameters.backend}}'" and SGL005 (the oracle ACCEPTs the defaults)."""

import pytest

WORKFLOW = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: pd-
spec:
  entrypoint: main
  arguments:
    parameters:
      - name: backend
        value: BACKEND
  templates:
    - name: main
      steps:
        - - name: prefill
            template: prefill
          - name: decode
            template: decode
    - name: prefill
      inputs:
        parameters:
          - name: tp
            default: "2"
      container:
        image: lmsysorg/sglang:v0.5.23
        command: [python3, -m, sglang.launch_server]
        args: ["--model-path", "Qwen/Qwen3-8B", "--disaggregation-mode", "prefill", "--tp", "{{inputs.parameters.tp}}",
               "--disaggregation-transfer-backend", "{{workflow.parameters.backend}}"]
    - name: decode
      container:
        image: lmsysorg/sglang:v0.5.23
        command: [python3, -m, sglang.launch_server]
        args: ["--model-path", "Qwen/Qwen3-8B", "--disaggregation-mode", "decode", "--tp", "2",
               "--disaggregation-transfer-backend", "mooncake", "--port", "{{workflow.parameters.port}}"]
"""


@pytest.mark.parametrize("backend, found", [("nixl", [("SGL805", 33)]), ("mooncake", [])])
def test_workflow_and_input_parameters_take_their_values(scratch, backend, found):
    scratch.write("wf.yaml", WORKFLOW.replace("BACKEND", backend))
    code, doc = scratch.lint(".")
    errors = [(f["code"], f["line"]) for f in doc["findings"] if f["severity"] == "error"]
    assert errors == found and code == int(bool(found))
    argv = {l["role"]: l["argv"] for l in doc["launches"]}
    assert argv["prefill"][argv["prefill"].index("--tp") + 1] == "2"
    assert argv["prefill"][-1] == backend


def test_a_parameter_with_no_value_in_the_file_is_a_value_pdlint_cannot_see(scratch):
    scratch.write("wf.yaml", WORKFLOW.replace("BACKEND", "mooncake"))
    code, doc = scratch.lint(".")
    assert not [f for f in doc["findings"] if f["code"] in ("SGL004", "SGL005")]
    assert [(u["flag"], u["text"]) for u in doc["coverage"]["files"]["wf.yaml"]["undecided"]] == [
        ("--port", "{{workflow.parameters.port}}")]
    [decode] = [l for l in doc["launches"] if l["role"] == "decode"]
    assert decode["argv"][-1] == "{{workflow.parameters.port}}"
