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


FLOW = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${PREFILL_NAME}
  labels: {app: vllm-prefill, role: prefill, prefill-set: ${PREFILL_NAME}}
spec:
  selector:
    matchLabels: {app: vllm-prefill, prefill-set: ${PREFILL_NAME}}
  template:
    metadata:
      labels: {app: vllm-prefill, prefill-set: ${PREFILL_NAME}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.0
          args:
            - Qwen/Qwen3.5-4B
            - --enable-prefix-caching
EXTRA            - '--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
"""


def test_placeholders_in_flow_collections_are_read_as_text(scratch_git):
    """teppakorn/design-inference-cluster-for-knowledge-based-agent (field report rw11/a) renders its manifests
    with envsubst: `labels: {..., prefill-set: ${PREFILL_NAME}}` is invalid YAML only before that.  It was
    PD003, and the prefill Deployment went unchecked."""
    scratch_git.write("p.yaml", FLOW.replace("EXTRA", "            - --bogus-flag\n"))
    code, report = scratch_git.lint("p.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM018", 19)]
    (launch,) = report["launches"]
    assert launch["role"] == "prefill"
    assert "placeholder ${PREFILL_NAME} (line 5) read as text" in launch["context"]


def test_a_clean_envsubst_manifest_is_quiet(scratch_git):
    scratch_git.write("p.yaml", FLOW.replace("EXTRA", ""))
    code, report = scratch_git.lint("p.yaml")
    assert report["findings"] == [] and code == 0


def test_invalid_yaml_elsewhere_is_still_pd003(scratch_git):
    scratch_git.write("p.yaml", FLOW.replace("EXTRA", "            - [unclosed\n"))
    code, report = scratch_git.lint("p.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD003"] and code == 1


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: NAME
spec:
  template:
    spec:
      containers:
        - name: worker
          image: IMAGE
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "${MX_CI_MODEL}", "--port", "${WORKER_PORT}", "--tp", "1"]
"""


def test_an_envsubst_manifest_keeps_its_placeholders_opaque(scratch_git):
    """ai-dynamo/modelexpress's CI Jobs (field test rw12/d) are applied with `envsubst < manifest | kubectl
    apply -f -`: `--port "${WORKER_PORT}"` was SGL005 "invalid int value: '${WORKER_PORT}'". A `${NAME}` in the
    object's name, its image or its container's name (where Kubernetes takes no such text) makes the manifest
    an envsubst template: its `${NAME}` and `$NAME` are values pdlint cannot see."""
    scratch_git.write("j.yaml", JOB.replace("NAME", "${JOB_NAME}", 1).replace("IMAGE", "${WORKER_IMAGE}"))
    code, report = scratch_git.lint("j.yaml")
    assert (code, report["findings"]) == (0, [])
    (launch,) = report["launches"]
    assert launch["argv"][:4] == ["--model-path", "${MX_CI_MODEL}", "--port", "${WORKER_PORT}"]
    # an argument that is one placeholder is such a sign too (field test rw25/a, llm-d-inference-scheduler's
    # "${VLLM_EXTRA_ARGS_P}"): a value pdlint cannot see, said as undecided
    scratch_git.write("j.yaml", JOB.replace("NAME", "mx-source", 1).replace("IMAGE", "lmsysorg/sglang:v0.5.9"))
    code, report = scratch_git.lint("j.yaml")
    assert report["findings"] == []
    assert [u["flag"] for u in report["coverage"]["files"]["j.yaml"]["undecided"]] == ["--model-path", "--port"]
    # without any, a placeholder inside a word reaches SGLang as written (Kubernetes expands only $(VAR))
    scratch_git.write("j.yaml", JOB.replace("NAME", "mx-source", 1).replace("IMAGE", "lmsysorg/sglang:v0.5.9")
                      .replace('"${WORKER_PORT}"', '"30${WORKER_PORT}"'))
    code, report = scratch_git.lint("j.yaml")
    assert [f["code"] for f in report["findings"]] == ["SGL005"]
