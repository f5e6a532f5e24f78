"""The role of a container from the key it is under (``prefill:`` / ``decode:`` sections of a values file).

Field test: ai-dynamo/aiconfigurator ``vllm/llm-d-values.yaml.j2`` (llm-d-modelservice values): top-level
``decode:`` and ``prefill:`` sections, each with ``containers[].args`` holding a ``--kv-transfer-config`` with
``kv_role: kv_both``.  Neither the container name (``vllm``) nor a resource or label named a role, so pdlint built
two launches of no role, paired nothing and passed clean a NixlConnector prefill with an LMCacheConnectorV1
decode."""

VALUES = """\
    modelArtifacts:
      uri: hf://Qwen/Qwen3-0.6B
    decode:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          modelCommand: vllmServe
          args:
            - --kv-transfer-config
            - '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
    prefill:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          modelCommand: vllmServe
          args:
            - --kv-transfer-config
            - '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    """


def test_values_sections_give_the_roles_and_the_pair_is_checked(scratch_git):
    scratch_git.write("values.yaml", VALUES)
    code, report = scratch_git.lint("values.yaml")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert len(report["pairs"]) == 1
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM010", 10)]
    assert code == 1


def test_the_same_connector_on_both_sections_is_clean(scratch_git):
    scratch_git.write("values.yaml", VALUES.replace("LMCacheConnectorV1", "NixlConnector"))
    code, report = scratch_git.lint("values.yaml")
    assert len(report["pairs"]) == 1 and report["findings"] == [] and code == 0


def test_a_key_naming_no_role_or_both_gives_none(scratch_git):
    for key in ("serving", "prefill-decode", "speculative-decoding"):
        scratch_git.write("values.yaml", VALUES.replace("decode:\n", f"{key}:\n", 1).replace("prefill:\n", "other:\n"))
        _, report = scratch_git.lint("values.yaml")
        assert [l["role"] for l in report["launches"]] == [None, None], key


def test_a_resource_name_still_wins_over_a_key(scratch_git):
    scratch_git.write("pd.yaml", """\
        apiVersion: example.com/v1
        kind: Server
        metadata:
          name: my-prefill
        spec:
          decode:
            containers:
              - name: vllm
                image: vllm/vllm-openai:v0.11.0
                args: ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
        """)
    _, report = scratch_git.lint("pd.yaml")
    assert [l["role"] for l in report["launches"]] == ["prefill"]
