"""A container's env value that names a variable defined earlier in its env list is expanded, as the kubelet does
(`B: "$(A)"` after `A: "2"` is `2`); one defined later, or not at all, stays as written (field test rw20/h: a false
SGL005 "invalid int value: '$(A)'")."""

POD = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: prefill}
    spec:
      template:
        spec:
          containers:
          - name: p
            image: lmsysorg/sglang:v0.5.2
            command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill, --tp, $(B)]
            env:
            ENV
"""


def _lint(scratch_git, env):
    scratch_git.write("pd.yaml", POD.replace("ENV", env))
    return scratch_git.lint("pd.yaml")


def test_a_value_naming_an_earlier_variable_is_expanded(scratch_git):
    code, report = _lint(scratch_git, '- {name: A, value: "2"}\n            - {name: B, value: "$(A)"}')
    assert code == 0 and report["findings"] == []
    (launch,) = report["launches"]
    assert launch["argv"][-2:] == ["--tp", "2"]


def test_a_value_naming_a_later_variable_stays_as_written(scratch_git):
    code, report = _lint(scratch_git, '- {name: B, value: "$(A)"}\n            - {name: A, value: "2"}')
    assert code == 1 and [(f["code"], f["line"]) for f in report["findings"]] == [("SGL005", 12)]
    assert "'$(A)'" in report["findings"][0]["message"]


def test_a_value_naming_a_secret_is_unknown(scratch_git):
    code, report = _lint(scratch_git, "- {name: A, valueFrom: {secretKeyRef: {name: s, key: tp}}}\n"
                                      '            - {name: B, value: "$(A)"}')
    assert code == 0 and report["findings"] == []
