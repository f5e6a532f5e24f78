"""YAML templates with whole-line `${NAME}` placeholders (ai-dynamo/dynamo benchmarks/frontend/dgd/templates:
`${FRONTEND_IMAGE_PULL_SECRETS_BLOCK}` at column 1, substituted by the sweep runner): read with those lines
left out instead of failing as invalid YAML; a placeholder among a launch's arguments is flags pdlint cannot
see."""

TEMPLATE = """apiVersion: v1
kind: Pod
metadata:
  name: ${NAME}
spec:
${PULL_SECRETS_BLOCK}
  containers:
    - name: prefill
      image: ${IMAGE}
      command: [python3, -m, sglang.launch_server]
      args:
        - --model-path
        - ${MODEL}
        - --disaggregation-mode
        - prefill
        - --enable-linear-replayssm-spec
{extra}"""


def test_placeholder_lines_are_read_as_empty(scratch_git):
    scratch_git.write("t.yaml", TEMPLATE.replace("{extra}", ""))
    code, report = scratch_git.lint("t.yaml")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1
    (launch,) = report["launches"]
    assert "${PULL_SECRETS_BLOCK} (line 6) read as empty" in launch["context"]


def test_a_placeholder_among_the_arguments_is_flags_pdlint_cannot_see(scratch_git):
    scratch_git.write("t.yaml", TEMPLATE.replace("{extra}", "${EXTRA_ARGS}\n"))
    _, report = scratch_git.lint("t.yaml")
    gaps = [(f["code"], f["line"], f["column"]) for f in report["findings"] if f["code"] == "PD023"]
    assert gaps == [("PD023", 17, 1)]
    assert "SGL101" in [f["code"] for f in report["findings"]]  # what is written is still checked


def test_still_invalid_yaml_is_reported(scratch_git):
    scratch_git.write("t.yaml", TEMPLATE.replace("{extra}", "") + "  bad: [\n")
    code, report = scratch_git.lint("t.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD003"] and code == 1


def test_a_placeholder_inside_a_line_is_not_a_placeholder_line(scratch_git):
    scratch_git.write("t.yaml", "a: b: c\n  ${B} x\n")
    _, report = scratch_git.lint("t.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD003"]
