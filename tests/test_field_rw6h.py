"""Field test rw6/h (jackyzzy/pd-manager, Soomin-Jung/vllm-production-stack-custom): an args-only router on
SGLang's router image, a workflow's grep assertion naming an engine flag, and a chart's example values file
that sets a section values.yaml leaves out.  (The Helm subset's Sprig functions: tests/test_helm_sprig.py.)"""

import pytest

from pdlint.formats import helm


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


ROUTER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: router
spec:
  template:
    spec:
      containers:
      - name: router
        image: {image}
        args:
        - --pd-disaggregation
        - --prefill
        - http://prefill:8000
        - --decode
        - http://decode:8000
"""


@pytest.mark.parametrize("image", ["lmsysorg/sgl-model-gateway:v0.3.1", "lmsysorg/sglang-router:v0.2.4",
                                   "registry.local/mirror/sgl-model-gateway@sha256:0123"])
def test_args_of_sglangs_router_image_are_a_router_launch(scratch, image):
    # sgl-project/sglang docker/gateway.Dockerfile: ENTRYPOINT ["python3", "-m", "sglang_router.launch_router"]
    scratch.write("r.yaml", ROUTER.format(image=image))
    code, doc = scratch.lint("r.yaml")
    (launch,) = doc["launches"]
    assert (launch["kind"], launch["entrypoint"]) == ("router", "python -m sglang_router.launch_router")
    assert code == 0 and doc["findings"] == []


def test_args_of_an_image_pdlint_does_not_know_stay_unchecked(scratch):
    scratch.write("r.yaml", ROUTER.format(image="example.com/my-gateway:1.0"))
    code, doc = scratch.lint("r.yaml")
    assert doc["launches"] == [] and [f["code"] for f in doc["findings"]] == ["PD020"]


WORKFLOW = """\
name: validate
on: [push]
jobs:
  render:
    runs-on: ubuntu-latest
    steps:
      - name: Check rendered invariants
        run: |
          helm template t ./helm -f lmcache-values.yaml > /tmp/rendered.yaml
          contains() {
            local file="$1" label="$2" needle="$3"
            grep -Fq -- "$needle" "$file" || { echo "Missing: $label ($needle)"; exit 1; }
          }
          contains /tmp/rendered.yaml 'LMCache transfer flag' '--kv-transfer-config'
"""


def test_a_workflow_step_that_greps_for_an_engine_flag_is_no_launch_text(scratch):
    scratch.write(".github/workflows/validate.yml", WORKFLOW)
    code, doc = scratch.lint(".")
    assert code == 0 and doc["findings"] == []


def test_a_workflow_step_that_passes_engine_flags_to_an_unknown_program_is_pd020_at_it(scratch):
    scratch.write(".github/workflows/serve.yml", WORKFLOW.replace(
        "contains /tmp/rendered.yaml 'LMCache transfer flag' '--kv-transfer-config'",
        "./start-server $MODEL --disaggregation-mode prefill --port 3000"))
    code, doc = scratch.lint(".")
    (f,) = doc["findings"]
    assert (f["code"], f["line"]) == ("PD020", 14)
    assert "`./start-server` is not a launcher pdlint knows" in f["message"]


CHART_PD = """\
{{- $pd := .Values.pdCellSpec | default dict -}}
{{- if ($pd.enabled | default false) }}
apiVersion: v1
kind: Pod
metadata:
  name: cell
spec:
  containers:
    - name: prefill-0
      image: vllm/vllm-openai:v0.20.0
      args:
        - "Qwen/Qwen3-8B"
        - "--kv-transfer-config"
        - {{ toJson (dict "kv_connector" $pd.connector "kv_role" "kv_producer") | squote }}
{{- end }}
"""


def _cell_chart(s, example):
    s.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    s.write("chart/values.yaml", "servingEngineSpec:\n  enableEngine: true\n")
    s.write("chart/templates/pd.yaml", CHART_PD)
    s.write("chart/examples/pd-cell-values.yaml", example)


def test_an_example_values_file_setting_a_section_the_templates_name_is_an_overlay(no_helm, scratch_git):
    _cell_chart(scratch_git, "pdCellSpec:\n  enabled: true\n  connector: MooncakeConnecto\n")
    _, out = scratch_git.lint("chart")
    (f,) = out["findings"]
    assert (f["code"], f["path"], f["line"]) == ("VLLM031", "chart/examples/pd-cell-values.yaml", 3)
    (l,) = out["launches"]
    assert l["unit"] == "helm:chart --values examples/pd-cell-values.yaml#Pod/cell"


def test_a_yaml_file_with_keys_no_template_names_is_no_overlay(no_helm, scratch_git):
    _cell_chart(scratch_git, "pdCell:\n  enabled: true\n")  # (pdCell: a key no template reads)
    _, out = scratch_git.lint("chart")
    assert out["launches"] == []
    (f,) = out["findings"]
    assert f["code"] == "PD020" and "keys its templates name" in f["fix"]
