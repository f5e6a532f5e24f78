"""PD020 on text that is not a launch (field report P6, 8 of 32 PD020s):

* a Python attribute `config.kv_transfer_config.kv_role == ...` (aibrix's KV connectors) matched the
  `kv_role` config-key marker: a key after a `.` is an attribute;
* a CRD schema's `description: Extra arguments for vllm serve` (production-stack's VLLMRuntime CRD): a YAML
  `description:` value is documentation;
* `ghcr.io/vllm-project/semantic-router/extproc` with `args: [--secure=false]` (aibrix's semantic-router
  sample) was "an image pdlint does not know" whose arguments go to an engine: an image is an engine's by its
  own name, not its organisation's."""

import pytest

from pdlint.coverage import find_markers


def _pd020(report):
    return [(f["path"], f["line"], f["message"]) for f in report["findings"] if f["code"] == "PD020"]


# -- attributes --------------------------------------------------------------------------------------

CONNECTOR = """\
class Scheduler:
    def __init__(self, config):
        self.kv_role = config.kv_transfer_config.kv_role
        if config.kv_transfer_config.kv_role == "kv_producer":
            self.producer = True
"""


def test_a_python_attribute_is_no_config_key(scratch_git):
    scratch_git.write("connector.py", CONNECTOR)
    code, report = scratch_git.lint("connector.py")
    assert code == 0 and _pd020(report) == []


@pytest.mark.parametrize("text,found", [
    ("self.kv_role = config.kv_transfer_config.kv_role\n", []),
    ("if args.disaggregation_mode == 'prefill':\n", []),
    ("kv_role = 'kv_producer'\n", ["kv_role"]),
    ('cfg = {"kv_role": "kv_producer"}\n', ['"kv_role']),
    ("disaggregation_mode: prefill\n", ["disaggregation_mode"]),
])
def test_key_markers_after_a_dot(text, found):
    assert [m.text for m in find_markers(text)] == found


def test_a_config_key_in_a_python_file_is_still_launch_text(scratch_git):
    scratch_git.write("launch.py", 'KV = {"kv_connector": "NixlConnector", "kv_role": "kv_producer"}\n')
    code, report = scratch_git.lint("launch.py")
    assert [(p, line) for p, line, _ in _pd020(report)] == [("launch.py", 1)]


# -- YAML descriptions -----------------------------------------------------------------------------------

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: vllmruntimes.production-stack.vllm.ai
spec:
  group: production-stack.vllm.ai
  names: {kind: VLLMRuntime, plural: vllmruntimes}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          extraArgs:
            description: Extra arguments for vllm serve
            items:
              type: string
            type: array
          kvArgs:
            description: >-
              Arguments added to vllm serve
              for the --kv-transfer-config of this runtime
            type: string
          modes:
            items:
            - description: |
                vllm serve MODEL --kv-transfer-config {...}
              type: string
"""


def test_a_crd_description_is_no_launch_text(scratch_git):
    scratch_git.write("crd.yaml", CRD)
    code, report = scratch_git.lint("crd.yaml")
    assert code == 0 and _pd020(report) == []


@pytest.mark.parametrize("text,found", [
    ("description: Extra arguments for vllm serve\n", []),
    ("  description: >-\n    Extra arguments for\n    vllm serve\n", []),
    ("- description: |\n    vllm serve m\n  command: vllm serve m\n", [(3, "vllm serve")]),
    ("x:\n  description: the server\n  command: [vllm, serve, m, --kv-transfer-config, '{}']\n",
     [(3, "vllm"), (3, "--kv-transfer-config")]),
    ("description:\n  command: vllm serve m\n", [(2, "vllm serve")]),  # no value on its line: not read as one
    # a word a template's condition compares (the Gateway API Inference Extension charts, field test rw6/e)
    ('{{- if eq .Values.inferencePool.modelServerType "trtllm-serve" }}\n', []),
    ('{{ else if eq $t "vllm serve" }}\n{% elif kind == "trtllm-serve" %}\n', []),
    ('{{- if .Values.enabled }}\n  command: [trtllm-serve, m]\n{{- end }}\n', [(2, "trtllm-serve")]),
    ('  args: ["{{ .Values.x }}", "vllm serve"]\n', [(1, "vllm serve")]),  # an action that is no condition
    # `kubectl get -o yaml`: the copy of the object as last applied (highopes/pd-disaggregation-demo)
    ("  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"args\":[\"vllm serve m\"]}'\n"
     "spec:\n  command: vllm serve m\n", [(4, "vllm serve")]),
    ("  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {\"args\": [\"vllm serve m\"]}\n"
     "  other: vllm serve m\n", [(4, "vllm serve")]),
])
def test_description_values_are_left_out(text, found):
    assert [(m.line, m.text) for m in find_markers(text)] == found


def test_a_command_beside_a_description_is_still_read(scratch_git):
    # vllm serve in `command:` is a launch; the description above it is not launch text
    scratch_git.write("pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: prefill
          annotations:
            description: runs vllm serve as the prefill server
        spec:
          containers:
          - name: vllm
            image: vllm/vllm-openai:v0.10.2
            command: [vllm, serve, m, --unknown-flag-xyz]
        """)
    code, report = scratch_git.lint("pod.yaml")
    assert len(report["launches"]) == 1 and _pd020(report) == []


# -- image names -------------------------------------------------------------------------------------

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
      - name: {name}
        image: {image}
        args:
          - --secure=false
"""


def test_an_image_under_an_engine_organisation_is_not_an_engine(scratch_git):
    scratch_git.write("semantic-router.yaml",
                      POD.format(name="semantic-router", image="ghcr.io/vllm-project/semantic-router/extproc:latest"))
    code, report = scratch_git.lint("semantic-router.yaml")
    assert code == 0 and _pd020(report) == []


@pytest.mark.parametrize("image", ["lmsysorg/sglang:v0.5.9", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0",
                                   "nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3"])
def test_args_of_an_engine_image_pdlint_does_not_know_are_still_reported(scratch_git, image):
    scratch_git.write("k.yaml", POD.format(name="server", image=image))
    code, report = scratch_git.lint("k.yaml")
    assert [(line, m.split(",")[0]) for _, line, m in _pd020(report)] == [
        (12, f"these arguments go to the entry point of image {image}")]


def test_args_of_the_vllm_image_are_still_its_entry_point_s(scratch_git):
    scratch_git.write("k.yaml", POD.format(name="server", image="vllm/vllm-openai:v0.10.2")
                      .replace("--secure=false", "--model\n          - m"))
    code, report = scratch_git.lint("k.yaml")
    assert [l["entrypoint"] for l in report["launches"]] == ["python -m vllm.entrypoints.openai.api_server"]
    assert _pd020(report) == []


def test_a_chart_whose_only_launch_words_are_a_comment_and_a_condition_is_no_unrendered_launch(scratch_git):
    """kubernetes-sigs/gateway-api-inference-extension's inferencepool chart, as llm-d installs it (field test
    rw6/e): a values.yaml comment listing `trtllm-serve` and an `eq ... "trtllm-serve"` made an unrendered chart
    (a library helper pdlint does not have) a PD104 and a PD020."""
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: epp\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "inferencePool:\n  modelServerType: vllm # vllm, sglang, trtllm-serve\n")
    scratch_git.write("chart/templates/epp.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: epp
          labels: {{ include "gke.labels" . | nindent 4 }}
        spec:
          template:
            spec:
              containers:
              - name: epp
                args:
                {{- if eq .Values.inferencePool.modelServerType "trtllm-serve" }}
                - --total-queued-requests-metric
                {{- end }}
        """)
    code, report = scratch_git.lint(".")
    assert (code, report["findings"]) == (0, [])
    # a launch in the same unrendered chart is still said unchecked
    scratch_git.write("chart/templates/server.yaml", "command: [trtllm-serve, '{{ .Values.model }}']\n")
    code, report = scratch_git.lint(".")
    assert "PD104" in [f["code"] for f in report["findings"]]


# -- a CLI as an unquoted flow sequence ----------------------------------------------------------------

@pytest.mark.parametrize("line, found", [
    ("cmd: [vllm, serve, Qwen/Qwen3-8B]", ["vllm"]),
    ("cmd: [sglang , serve ]", ["sglang"]),
    ('cmd: ["vllm", "serve"]', ["vllm"]),
    ("we support vllm, serve it", []),  # prose
    ("image: vllm, served", []),
])
def test_an_unquoted_flow_sequence_names_the_cli(line, found):
    assert [m.text for m in find_markers(line + "\n")] == found


def test_an_unknown_structure_with_an_unquoted_cli_is_not_a_clean_pass(scratch_git):
    scratch_git.write("foo.yaml", 'kind: Foo\nspec:\n  runtime:\n    cmd: [vllm, serve, Qwen/Qwen3-8B, --port, "8000"]\n')
    code, report = scratch_git.lint("foo.yaml")
    assert [(path, line) for path, line, _ in _pd020(report)] == [("foo.yaml", 4)] and code == 0
