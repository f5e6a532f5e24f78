"""Helm branches of flags behind a value no values file sets (``helm.Renderer`` guards, ``Extractor.report_unset_guards``).

Stop 42 left it open: ``{{- if .Values.spec }} - --enable-linear-replayssm-spec{{- end }}`` in a template both roles
render, with ``spec`` in no values file, rendered as off without a word - the shared refused flag passed ``--strict``
(the Jinja twin, ``{% if spec is defined %}``, has been a PD020 since stop 42).  Now such a branch is a PD020, once per
template file; a branch of engine words and PD flags, which coverage already names line by line, says there which
value kept it out."""

import pytest

from pdlint.formats import helm

CHART = "apiVersion: v2\nname: pd\nversion: 0.1.0\n"

TEMPLATE = """\
{{- range $role := list "prefill" "decode" }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sgl-{{ $role }}
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.23
        command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - {{ $.Values.model }}
        - --disaggregation-mode
        - {{ $role }}
        {{- if $.Values.GUARD }}
        - --enable-linear-replayssm-spec
        {{- end }}
{{- end }}
"""


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def _chart(scratch_git, values="model: Qwen/Qwen3-8B\n", guard="spec", template=TEMPLATE):
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", values)
    scratch_git.write("chart/templates/pd.yaml", template.replace("GUARD", guard))


def _found(report):
    return sorted((f["code"], f["path"], f["line"]) for f in report["findings"])


def test_flags_behind_a_value_nothing_sets_are_said(scratch_git, no_helm):
    _chart(scratch_git)
    code, report = scratch_git.lint(".", "--strict")
    assert _found(report) == [("PD020", "chart/templates/pd.yaml", 21)]
    (f,) = report["findings"]
    assert "`.Values.spec`" in f["message"] and "(values.yaml)" in f["message"]
    assert code == 1  # --strict: a launch text not checked fails


def test_a_nested_path_is_named_whole(scratch_git, no_helm):
    _chart(scratch_git, values="model: m\nopt:\n  other: 1\n", guard="opt.spec")
    _, report = scratch_git.lint(".")
    (f,) = report["findings"]
    assert f["code"] == "PD020" and "`.Values.opt.spec`" in f["message"] and "`opt.spec`" in f["fix"]


def test_a_value_set_to_false_is_a_default_and_quiet(scratch_git, no_helm):
    _chart(scratch_git, values="model: m\nspec: false\n")
    code, report = scratch_git.lint(".", "--strict")
    assert _found(report) == [] and code == 0


def test_an_overlay_that_sets_it_renders_the_branch_and_checks_it(scratch_git, no_helm):
    _chart(scratch_git)
    scratch_git.write("chart/values-lab.yaml", "model: m\nspec: true\n")
    _, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["SGL101"]


def test_a_branch_without_flags_is_quiet(scratch_git, no_helm):
    _chart(scratch_git, template=TEMPLATE.replace("- --enable-linear-replayssm-spec", "- {{ $.Values.model }}"))
    _, report = scratch_git.lint(".", "--strict")
    assert _found(report) == []


def test_one_finding_per_template_file(scratch_git, no_helm):
    twice = TEMPLATE.replace("        {{- end }}\n{{- end }}",
                             "        {{- end }}\n        {{- if $.Values.other }}\n"
                             "        - --enable-foo\n        {{- end }}\n{{- end }}")
    _chart(scratch_git, template=twice)
    _, report = scratch_git.lint(".")
    (f,) = report["findings"]
    assert f["line"] == 21 and "`.Values.spec`, `.Values.other` on lines 21, 24" in f["message"]


def test_a_flag_in_an_included_define_counts(scratch_git, no_helm):
    _chart(scratch_git, template=TEMPLATE.replace("        - --enable-linear-replayssm-spec",
                                                  '        {{- include "pd.spec" . | nindent 8 }}'))
    scratch_git.write("chart/templates/_helpers.tpl",
                      '{{- define "pd.spec" -}}\n- --enable-linear-replayssm-spec\n{{- end }}\n')
    _, report = scratch_git.lint(".")
    assert _found(report) == [("PD020", "chart/templates/pd.yaml", 21)]


def test_a_go_comment_suppresses_it(scratch_git, no_helm):
    _chart(scratch_git, template=TEMPLATE.replace(
        "        {{- if $.Values.GUARD }}",
        "        {{- /* pdlint: ignore[PD020] a lab switch */}}\n        {{- if $.Values.GUARD }}"))
    code, report = scratch_git.lint(".", "--strict")
    assert _found(report) == [] and code == 0


def test_a_branch_of_engine_words_says_which_value_kept_it_out(scratch_git, no_helm):
    _chart(scratch_git)
    scratch_git.write("chart/templates/router.yaml", """\
{{- if .Values.router.enabled }}
apiVersion: v1
kind: Pod
metadata: {name: router}
spec:
  containers:
    - name: s
      command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill]
{{- end }}
""")
    _, report = scratch_git.lint(".")
    router = [f for f in report["findings"] if f["path"] == "chart/templates/router.yaml"]
    assert router and all(f["code"] == "PD020" and f["line"] == 8 for f in router)
    assert all("guarded by `.Values.router.enabled`" in f["message"] for f in router)


def test_flags_of_a_container_that_is_no_launch_are_quiet(scratch_git, no_helm):
    # vllm-project/production-stack's router template: `args` of an image pdlint does not start, each flag behind
    # an optional value (field compare: a PD020 for flags pdlint would not check if rendered either)
    _chart(scratch_git, values="model: m\nspec: false\n")
    scratch_git.write("chart/templates/router.yaml", """\
apiVersion: v1
kind: Pod
metadata: {name: router}
spec:
  containers:
    - name: router
      image: lmcache/lmstack-router:latest
      args:
        - --port
        - "8000"
        {{- if .Values.routerSpec.replyPort }}
        - --lmcache-controller-reply-port
        - "{{ .Values.routerSpec.replyPort }}"
        {{- end }}
""")
    code, report = scratch_git.lint(".", "--strict")
    assert _found(report) == [] and code == 0


def test_an_ignore_on_one_guard_does_not_hide_the_others(scratch_git, no_helm):
    twice = TEMPLATE.replace("        {{- end }}\n{{- end }}",
                             "        {{- end }}\n        {{- if $.Values.other }}\n"
                             "        - --enable-foo\n        {{- end }}\n{{- end }}").replace(
        "        {{- if $.Values.GUARD }}",
        "        {{- /* pdlint: ignore[PD020] a lab switch */}}\n        {{- if $.Values.GUARD }}")
    _chart(scratch_git, template=twice)
    _, report = scratch_git.lint(".")
    (f,) = report["findings"]
    assert f["line"] == 25 and "`.Values.other`" in f["message"] and "spec" not in f["message"]
