"""One chart template whose render is not YAML no longer leaves the whole chart unrendered.

Field test rw19/b (volcano-sh/kthena `cli/kthena/helm`): an over-indented block in a non-PD template made every
render of it invalid YAML, so pdlint fell back to the chart's literal lines (PD104 "helm is not on PATH") and the
four VLLM001 errors of its PD templates went unseen.  Now the others are rendered and checked, and the broken
template is reported: PD003 where no template action is near (every render fails there, `helm template` too),
PD104 where template logic produced the bad text."""

import pytest

from pdlint.formats import helm

PD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-prefill
spec:
  template:
    spec:
      containers:
        - name: prefill
          image: {{ .Values.image }}
          command: [vllm, serve, m, --kv-transfer-config, '{"kv_connector":"NixlConnector","kv_role":"kv_bogus"}']
"""

BROKEN_LITERAL = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
data:
  a: "x"
    b: y
"""


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def _chart(scratch_git, broken):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "image: vllm/vllm-openai:v0.11.0\nb: y\n")
    scratch_git.write("chart/templates/pd.yaml", PD)
    scratch_git.write("chart/templates/other.yaml", broken)


def test_the_other_templates_are_checked_and_the_broken_one_reported(scratch_git, no_helm):
    _chart(scratch_git, BROKEN_LITERAL)
    code, report = scratch_git.lint(".")
    found = sorted((f["code"], f["path"], f["line"]) for f in report["findings"])
    assert found == [("PD003", "chart/templates/other.yaml", 7), ("VLLM029", "chart/templates/pd.yaml", 11)]
    assert code == 1


def test_bad_text_from_a_template_action_is_a_warning(scratch_git, no_helm):
    _chart(scratch_git, BROKEN_LITERAL.replace("    b: y", "    b: {{ .Values.b }}"))
    _, report = scratch_git.lint(".")
    found = sorted((f["code"], f["severity"]) for f in report["findings"])
    assert found == [("PD104", "warning"), ("VLLM029", "error")]


def test_a_chart_whose_every_template_is_broken_falls_back_as_before(scratch_git, no_helm):
    _chart(scratch_git, BROKEN_LITERAL)
    scratch_git.write("chart/templates/pd.yaml", PD + "  extra: x\n    bad: y\n")
    _, report = scratch_git.lint(".")
    assert "PD104" in [f["code"] for f in report["findings"]]


# a template the subset cannot render (a Helm function it lacks): the others are still rendered (field test rw20/h:
# one `sha256sum` (since in the subset) anywhere in a chart left every template unrendered, the errors of its PD
# templates unseen)
UNSUPPORTED_CONFIG = ('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n'
                      '  sum: {{ semverCompare ">=1.2" "1.3" }}\n')
UNSUPPORTED_LAUNCH = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: decode, annotations: {checksum: '{{ semverCompare ">=1.2" "1.3" }}'}}
spec:
  template:
    spec:
      containers:
        - name: decode
          image: lmsysorg/sglang:v0.5.23
          command:
            - python3
            - -m
            - sglang.launch_server
            - --model-path
            - m
            - --disaggregation-mode
            - decod
"""


def test_a_template_the_subset_cannot_render_leaves_the_others_rendered(scratch_git, no_helm):
    _chart(scratch_git, UNSUPPORTED_CONFIG)
    code, report = scratch_git.lint(".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("chart/templates/pd.yaml", "VLLM029")]
    assert code == 1  # the ConfigMap holds no launch text: nothing lost, nothing said


def test_an_unrendered_template_with_launch_text_is_reported_and_its_literal_flags_checked(scratch_git, no_helm):
    _chart(scratch_git, UNSUPPORTED_LAUNCH)
    code, report = scratch_git.lint(".")
    found = sorted((f["path"], f["code"], f["line"]) for f in report["findings"])
    assert found == [("chart/templates/other.yaml", "PD104", 3), ("chart/templates/other.yaml", "SGL004", 17),
                     ("chart/templates/pd.yaml", "VLLM029", 11)]
    pd104 = next(f for f in report["findings"] if f["code"] == "PD104")
    assert "other.yaml of Helm chart chart was not rendered" in pd104["message"]
    assert "function 'semverCompare' is not in pdlint's template subset" in pd104["message"]


def test_a_chart_without_launch_text_says_nothing_of_a_template_it_could_not_render(scratch_git, no_helm):
    # sgl-project/ome's ome-resources chart (the field compare): an agent DaemonSet whose image a `merge` the subset
    # refuses writes; nothing in the chart starts a server, so no coverage was lost
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "image: ghcr.io/sgl-project/ome-agent:v1\n")  # (names sglang)
    scratch_git.write("chart/templates/_h.tpl", '{{- define "c.image" -}}{{ .Values.image }}{{- end -}}\n')
    scratch_git.write("chart/templates/cm.yaml", "kind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    scratch_git.write("chart/templates/ds.yaml", 'kind: DaemonSet\nmetadata: {name: agent}\nspec:\n  template:\n'
                                                 '    spec:\n      containers:\n        - name: agent\n'
                                                 '          image: {{ include "c.image" . }}'
                                                 '{{ semverCompare ">=1.2" "1.3" }}\n'
                                                 '          env: [{name: SGLANG_AGENT, value: "1"}]\n')
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0


def test_values_that_do_not_parse_are_an_error_at_their_line(scratch_git, no_helm):
    # field test rw21/h: only a PD104 warning at Chart.yaml:1:1 and a PD020 (exit 0); helm cannot render the chart
    _chart(scratch_git, UNSUPPORTED_CONFIG)
    scratch_git.write("chart/values.yaml", "image: vllm/vllm-openai:v0.11.0\nb: [\n")
    code, report = scratch_git.lint(".")
    (f,) = [f for f in report["findings"] if f["code"] == "PD003"]
    assert (f["path"], f["line"], f["severity"]) == ("chart/values.yaml", 2, "error") and code == 1
    assert "the values of Helm chart chart" in f["message"]
