"""Kubernetes manifests applied through `envsubst` (llm-d/llm-d-inference-scheduler's
deploy/components/vllm-{prefill,decode}/deployment.yaml, `kustomize build ... | envsubst '${VLLM_IMAGE} ...
${VLLM_EXTRA_ARGS_P}' | kubectl apply`; field test rw25/a): an argument that is one `${NAME}` is a value pdlint cannot
see (it was read as no flag at all: a false PD105 "no --kv-transfer-config"), said as PD023, and `--var` /
`[tool.pdlint.vars]` give it (and an `image: ${NAME}`) the value the deployment does."""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-p
spec:
  template:
    metadata:
      labels:
        llm-d.ai/role: prefill
    spec:
      containers:
      - name: vllm
        image: IMAGE
        args:
        - "--model=Qwen/Qwen3-0.6B"
        - "--port=8000"
        - "${VLLM_EXTRA_ARGS_P}"
"""

KV = '--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"KV_ROLE"}'


def _codes(doc):
    return sorted((f["code"], f["line"]) for f in doc["findings"])


def test_a_placeholder_argument_is_a_value_pdlint_cannot_see(scratch):
    scratch.write("prefill.yaml", DEPLOYMENT.replace("IMAGE", "vllm/vllm-openai:v0.11.0"))
    code, doc = scratch.lint(".")
    assert _codes(doc) == [("PD023", 17)] and code == 0  # (not PD105: the placeholder may hold the config)
    f = doc["findings"][0]
    assert f["message"].startswith("${VLLM_EXTRA_ARGS_P} stands where flags could be")
    assert "--var" in f["fix"]


def test_var_gives_the_placeholder_its_value(scratch):
    scratch.write("prefill.yaml", DEPLOYMENT.replace("IMAGE", "vllm/vllm-openai:v0.11.0"))
    code, doc = scratch.lint(".", "--var", "VLLM_EXTRA_ARGS_P=" + KV.replace("KV_ROLE", "kv_consumer"))
    assert ("PD101", 13) in _codes(doc) and code == 1  # (a decode's config on the prefill)
    code, doc = scratch.lint(".", "--var", "VLLM_EXTRA_ARGS_P=" + KV.replace("KV_ROLE", "kv_producer"))
    assert _codes(doc) == [] and code == 0
    [launch] = doc["launches"]
    assert launch["argv"][-1].startswith("--kv-transfer-config=")


def test_an_image_placeholder_is_given_by_var(scratch):
    scratch.write("prefill.yaml", DEPLOYMENT.replace("IMAGE", "${VLLM_IMAGE}"))
    code, doc = scratch.lint(".")
    [f] = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert "image ${VLLM_IMAGE}" in f["message"] and "`--var VLLM_IMAGE=" in f["fix"]
    assert doc["launches"] == []
    code, doc = scratch.lint(".", "--var", "VLLM_IMAGE=vllm/vllm-openai:v0.11.0", "--var", "VLLM_EXTRA_ARGS_P=")
    assert [l["entrypoint"] for l in doc["launches"]] == ["python -m vllm.entrypoints.openai.api_server"]
    assert not [f for f in doc["findings"] if f["code"] == "PD020"]


def test_a_placeholder_inside_a_shell_script_stays_the_shells(scratch):
    """`bash -c "... ${TP} ..."`: the container's shell reads its environment there; no argument is one
    placeholder, so the manifest is no envsubst template for that reason."""
    text = DEPLOYMENT.replace("IMAGE", "vllm/vllm-openai:v0.11.0").replace(
        '''        args:
        - "--model=Qwen/Qwen3-0.6B"
        - "--port=8000"
        - "${VLLM_EXTRA_ARGS_P}"
''', '''        env:
        - {name: TP, value: "2"}
        command:
        - bash
        - -c
        - |
          vllm serve m --tensor-parallel-size ${TP} --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
''')
    scratch.write("prefill.yaml", text)
    code, doc = scratch.lint(".")
    [launch] = doc["launches"]
    assert "2" in launch["argv"] and _codes(doc) == []
