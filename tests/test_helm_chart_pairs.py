"""A Helm chart's prefill and decode objects pair when no one object holds both roles (pairing
._join_chart_renders).

Field test: lightseekorg/smg's chart makes one Deployment per ``workers`` entry (``range $i, $worker :=
.Values.workers``); each rendered Deployment was a deployment unit of its own, so a mooncake prefill and a nixl
decode of one release were never compared and the run exited 0 (the same manifests as plain files gave SGL805)."""

import pytest

from pdlint.formats import helm


@pytest.fixture(autouse=True)
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


CHART = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

WORKERS = """\
    {{- range $i, $worker := .Values.workers }}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: {{ $.Release.Name }}-worker-{{ $worker.name }}
    spec:
      template:
        spec:
          containers:
            - name: worker
              command: ["python3", "-m", "sglang.launch_server"]
              args:
                - "--model-path"
                - "meta-llama/Llama-3.1-8B-Instruct"
                {{- range $worker.extraArgs }}
                - {{ . | quote }}
                {{- end }}
    {{- end }}
    """


def _values(prefill_backend: str, decode_backend: str) -> str:
    return ("workers:\n"
            f"  - name: prefill\n    extraArgs: [\"--disaggregation-mode\", \"prefill\", "
            f"\"--disaggregation-transfer-backend\", \"{prefill_backend}\"]\n"
            f"  - name: decode\n    extraArgs: [\"--disaggregation-mode\", \"decode\", "
            f"\"--disaggregation-transfer-backend\", \"{decode_backend}\"]\n")


def test_workers_of_one_release_pair_and_a_backend_mismatch_is_reported(scratch_git):
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", _values("mooncake", "nixl"))
    scratch_git.write("chart/templates/workers.yaml", WORKERS)
    code, report = scratch_git.lint("chart")
    (dep,) = report["pairs"]
    assert dep["how"] == "one render of chart chart" and len(dep["pairs"]) == 1
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"]] == [("SGL805", "chart/values.yaml", 5)]
    assert report["coverage"]["unpaired_prefill"] == 0 and code == 1


def test_workers_that_agree_are_clean(scratch_git):
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", _values("nixl", "nixl"))
    scratch_git.write("chart/templates/workers.yaml", WORKERS)
    code, report = scratch_git.lint("chart")
    assert len(report["pairs"]) == 1 and report["findings"] == [] and code == 0


def test_two_templates_of_one_chart_pair(scratch_git):
    scratch_git.write("chart/Chart.yaml", CHART)
    scratch_git.write("chart/values.yaml", "model: m\n")
    for role, backend in (("prefill", "mooncake"), ("decode", "nixl")):
        scratch_git.write(f"chart/templates/{role}.yaml", f"""\
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: {{{{ .Release.Name }}}}-{role}
            spec:
              template:
                spec:
                  containers:
                    - name: worker
                      command: ["python3", "-m", "sglang.launch_server"]
                      args: ["--model-path", {{{{ .Values.model | quote }}}}, "--disaggregation-mode", "{role}", "--disaggregation-transfer-backend", "{backend}"]
            """)
    _, report = scratch_git.lint("chart")
    assert [f["code"] for f in report["findings"]] == ["SGL805"]
