"""`$(VAR)` from a `configMapKeyRef` into a ConfigMap of the same YAML stream is that key's value.

Field test rw19/a (yeqcharlotte/router `scripts/deepseek/vllm-deepseek-deployment.yaml`: MODEL, TP_SIZE, DP_SIZE and
both ports from its ConfigMap): the values stayed `$(TP_SIZE)`, a value pdlint cannot see, and the size and port
rules ran on nothing without a word.  The repro below (rw19/a repro 6) puts a wrong tensor size and kv_role there."""

CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pd-config}\ndata:\n  TP_SIZE: "eight"\n  KV_ROLE_CFG: \'{"kv_connector":"NixlConnector","kv_role":"kv_bogus"}\'\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm-prefill}\nspec:\n  template:\n    metadata: {labels: {role: prefill}}\n    spec:\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.11.0\n        command: ["vllm", "serve", "Qwen/Qwen3-8B"]\n        env:\n        - name: TP_SIZE\n          valueFrom: {configMapKeyRef: {name: pd-config, key: TP_SIZE}}\n        - name: KV_CFG\n          valueFrom: {configMapKeyRef: {name: pd-config, key: KV_ROLE_CFG}}\n        args: ["--tensor-parallel-size", "$(TP_SIZE)", "--kv-transfer-config", "$(KV_CFG)"]\n'


def _found(report):
    return [(f["code"], f["line"]) for f in report["findings"]]


def test_the_configmaps_values_reach_the_launch(scratch_git):
    scratch_git.write("cm.yaml", CM)
    code, report = scratch_git.lint("cm.yaml")
    assert _found(report) == [("VLLM037", 5), ("VLLM029", 6)] and code == 1  # at the ConfigMap's lines


def test_a_configmap_of_another_stream_or_a_missing_key_stays_unknown(scratch_git):
    scratch_git.write("cm.yaml", CM.replace("metadata: {name: pd-config}", "metadata: {name: other-cfg}", 1))
    _, report = scratch_git.lint("cm.yaml")
    assert not {"VLLM037", "VLLM029"} & {c for c, _ in _found(report)}
    scratch_git.write("cm.yaml", CM.replace("key: TP_SIZE}", "key: NO_SUCH_KEY}").replace("key: KV_ROLE_CFG}", "key: X}"))
    _, report = scratch_git.lint("cm.yaml")
    assert not {"VLLM037", "VLLM029"} & {c for c, _ in _found(report)}
