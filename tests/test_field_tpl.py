"""Template files of a language or kind pdlint did not tell from their name (field tests on AWS and GKE
repositories): Handlebars/Mustache YAML (aws-samples/sample-genai-on-eks-starter-kit), Terraform templatefile
`*.yaml.tpl` / `*.tftpl` (GoogleCloudPlatform/ai-on-gke), Helm templates named `*.yaml.j2` in a chart's
`templates/` and a Jinja values template with no launch text (AI-Hypercomputer/gpu-recipes).  Their launch text
is said unchecked (PD020, naming the language); a file pdlint does not render gets no parse error."""

import pytest

from pdlint.formats import helm


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def found(doc) -> list:
    return [(f["path"], f["code"], f["line"]) for f in doc["findings"]]


# -- Helm templates named *.yaml.j2 -------------------------------------------------------------------------

CHART_YAML = "apiVersion: v2\nname: ray-cluster\nversion: 1.1.1\n"

# gpu-recipes RL/a4/recipes/*/nemoRL/templates/raycluster-cluster.yaml.j2 (installed by `helm install`)
RAY_CLUSTER_J2 = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  labels:
    {{- include "ray-cluster.labels" . | nindent 4 }}
  name: {{ .Release.Name }}
spec:
  {{- if .Values.head.rayVersion }}
  rayVersion: {{ .Values.head.rayVersion }}
  {{- end }}
"""

HELPERS = """\
{{/* vim: set filetype=mustache: */}}
{{- define "ray-cluster.labels" -}}
app: {{ .Chart.Name }}
{{- end -}}
"""

LAUNCH_J2 = """\
apiVersion: v1
kind: Pod
metadata: {name: {{ .Release.Name }}-prefill}
spec:
  containers:
    - name: s
      command:
        - python3
        - -m
        - sglang.launch_server
        - --disaggregation-mode
        - {{ .Values.mode }}
        - --enable-linear-replayssm-spec
"""


def test_a_yaml_j2_in_a_chart_s_templates_is_a_helm_template(no_helm, scratch_git):
    # it was `PD004 error: expected token 'end of print statement'` (read as Jinja)
    scratch_git.write("nemoRL/Chart.yaml", CHART_YAML)
    scratch_git.write("nemoRL/values.yaml", "head:\n  rayVersion: 2.43.0\n")
    scratch_git.write("nemoRL/templates/_helpers.tpl", HELPERS)
    scratch_git.write("nemoRL/templates/raycluster-cluster.yaml.j2", RAY_CLUSTER_J2)
    for args in (["."], ["nemoRL/templates/raycluster-cluster.yaml.j2"]):
        code, doc = scratch_git.lint(*args)
        assert (code, doc["findings"]) == (0, []), args


def test_a_launch_in_a_chart_s_yaml_j2_is_rendered_with_the_chart(no_helm, scratch_git):
    scratch_git.write("c/Chart.yaml", CHART_YAML)
    scratch_git.write("c/values.yaml", "mode: prefill\n")
    scratch_git.write("c/templates/pod.yaml.j2", LAUNCH_J2)
    code, doc = scratch_git.lint("c/templates/pod.yaml.j2")
    (launch,) = doc["launches"]
    assert launch["role"] == "prefill" and "rendered by pdlint's Helm template subset" in launch["context"]
    assert ("c/templates/pod.yaml.j2", "SGL101", 13) in found(doc)


def test_a_yaml_j2_outside_a_chart_s_templates_is_still_jinja(no_helm, scratch_git):
    # beside Chart.yaml (gpu-recipes' ray_cluster_values_a4_template.yaml.j2), and in a `templates/` folder of no
    # chart: rendered per role as Jinja
    jinja = ("containers:\n  - name: s\n    command: [python3, -m, sglang.launch_server]\n"
             "    args: [--model-path, /m, --disaggregation-mode, '{{ role }}']\n")
    scratch_git.write("c/Chart.yaml", CHART_YAML)
    scratch_git.write("c/values_template.yaml.j2", jinja)
    scratch_git.write("deploy/templates/pod.yaml.j2", jinja)
    scratch_git.write("deploy/templates/go.yaml.j2", "name: {{ .Release.Name }}\n")
    code, doc = scratch_git.lint(".")
    roles = sorted((l["path"], l["role"]) for l in doc["launches"])
    assert roles == [("c/values_template.yaml.j2", "decode"), ("c/values_template.yaml.j2", "prefill"),
                     ("deploy/templates/pod.yaml.j2", "decode"), ("deploy/templates/pod.yaml.j2", "prefill")]
    assert ("deploy/templates/go.yaml.j2", "PD004", 1) in found(doc)
