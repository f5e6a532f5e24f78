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


TWO_NAMESPACES = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: cfg, namespace: team-a}
    data: {TP: "2"}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: cfg, namespace: NS}
    data: {TP: "two"}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: prefill, namespace: team-b}
    spec:
      template:
        spec:
          containers:
          - name: p
            image: lmsysorg/sglang:v0.5.2
            command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill, --tp, $(TP)]
            env:
            - name: TP
              valueFrom: {configMapKeyRef: {name: cfg, key: TP}}
"""


def test_a_configmap_name_in_two_namespaces_is_not_guessed(scratch_git):
    """Which of two ConfigMaps named `cfg` a container reads is its namespace's: the first of the stream was taken
    (team-a's 2 for a team-b workload whose value is 'two'; field test rw20/h)."""
    scratch_git.write("pd.yaml", TWO_NAMESPACES.replace("NS", "team-b"))
    code, report = scratch_git.lint("pd.yaml")
    assert code == 0 and report["findings"] == []
    (launch,) = report["launches"]
    assert launch["argv"][-2] == "--tp" and launch["argv"][-1] != "2"
    # one namespace (the same ConfigMap written twice): its value
    scratch_git.write("pd.yaml", TWO_NAMESPACES.replace("NS", "team-a"))
    code, report = scratch_git.lint("pd.yaml")
    (launch,) = report["launches"]
    assert launch["argv"][-2:] == ["--tp", "2"]
