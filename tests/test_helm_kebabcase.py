"""Sprig's case functions, and a template only a values overlay fails to render (field test rw26/a).

sjm446/ai-on-eks's inference chart builds vLLM flags with `printf "--%s %v" ($key | kebabcase) $value`; pdlint's
template subset had no `kebabcase`, and since the chart's other templates rendered with that overlay, the failure was
said as "no render ... produced it (a branch none of those values reach)" - a reason no value could fix."""

import pytest

from pdlint.formats import helm

CHART = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
POD = """\
{{- if eq .Values.framework "vllm" }}
apiVersion: v1
kind: Pod
metadata: {name: v}
spec:
  containers:
    - name: v
      image: vllm/vllm-openai:v0.11.0
      command: [vllm, serve, m, --kv-transfer-config, '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
                "--{{ .Values.flag | FUNC }}", "4096"]
{{- end }}
"""


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


@pytest.mark.parametrize("text, snake, kebab", [
    ("FirstName", "first_name", "first-name"), ("HTTPServer", "http_server", "http-server"),
    ("NoHTTPS", "no_https", "no-https"), ("GO-PATH", "go_path", "go-path"), ("http2xx", "http_2xx", "http-2xx"),
    ("HTTP20xOK", "http_20x_ok", "http-20x-ok"), ("Duration2m3s", "duration_2m3s", "duration-2m3s"),
    ("Bld4Floor3rd", "bld4_floor_3rd", "bld4-floor-3rd"), ("maxModelLen", "max_model_len", "max-model-len"),
])
def test_case_functions_follow_xstrings(text, snake, kebab):
    """The examples of huandu/xstrings' ToSnakeCase / ToKebabCase documentation (Sprig's snakecase / kebabcase)."""
    assert helm.lower_case_words(text, "_") == snake and helm.lower_case_words(text, "-") == kebab


def _chart(scratch_git, func):
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", "framework: none\nflag: maxModelLen\n")
    scratch_git.write("chart/values-vllm.yaml", "framework: vllm\nflag: maxModelLen\n")
    scratch_git.write("chart/templates/vllm.yaml", POD.replace("FUNC", func))
    scratch_git.write("chart/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")


def test_a_flag_built_with_kebabcase_is_rendered_and_checked(scratch_git, no_helm):
    _chart(scratch_git, "kebabcase")
    _, report = scratch_git.lint("chart")
    (launch,) = report["launches"]
    assert "--max-model-len" in launch["argv"] and report["findings"] == []


def test_a_template_only_an_overlay_fails_to_render_is_said_as_such(scratch_git, no_helm):
    _chart(scratch_git, "nosuchfunc")
    _, report = scratch_git.lint("chart")
    pd104 = [f for f in report["findings"] if f["code"] == "PD104"]
    assert [f["path"] for f in pd104] == ["chart/templates/vllm.yaml"]
    assert "with values overlay values-vllm.yaml" in pd104[0]["message"] and "nosuchfunc" in pd104[0]["message"]
    assert not any("none of those values reach" in f["message"] for f in report["findings"])


def test_a_chart_without_values_that_fails_says_it_needs_its_values(scratch_git, no_helm):
    # AI-Hypercomputer/gpu-recipes' a3mega charts ship no values.yaml: `div ... $gpusPerNode` divides by zero
    # without the recipe's values, in `helm template` too
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/templates/pod.yaml", "{{ $n := div 16 .Values.job.gpus }}\n" + POD.replace(
        "{{- if eq .Values.framework \"vllm\" }}\n", "").replace("{{- end }}\n", "").replace(
        "--{{ .Values.flag | FUNC }}", "--max-num-seqs"))
    _, report = scratch_git.lint("chart")
    (f,) = [f for f in report["findings"] if f["code"] == "PD104"]
    assert "divide by zero" in f["message"] and "ships no values.yaml" in f["message"]
    scratch_git.write("chart/values.yaml", "job: {gpus: 0}\n")  # (a chart that has values: no such note)
    _, report = scratch_git.lint("chart")
    assert all("ships no values.yaml" not in f["message"] for f in report["findings"])


def test_a_module_name_cut_short_by_an_empty_value_says_so(scratch_git, no_helm):
    # gpu-recipes a3ultra: `python3 -m dynamo.{{ .Values.workload.framework }}` rendered with no value
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", "workload: {}\n")
    scratch_git.write("chart/templates/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n"
                      "  containers:\n    - name: w\n      command: [python3, -m, \"dynamo.{{ .Values.workload."
                      "framework }}\", --disaggregation-mode, prefill]\n")
    _, report = scratch_git.lint("chart")
    (f,) = [f for f in report["findings"] if f["code"] == "PD020"]
    assert "`python3 -m dynamo.`" in f["message"] and "written empty" in f["message"]
    scratch_git.write("chart/values.yaml", "workload: {framework: bogus}\n")  # (a whole name: the usual words)
    _, report = scratch_git.lint("chart")
    assert all("written empty" not in f["message"] for f in report["findings"])
