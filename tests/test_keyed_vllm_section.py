"""A role section outside a Helm chart whose args are vLLM's is read as ``vllm serve``, not as SGLang flags.

LMCache .buildkite/configs/pd.yaml: ``vllm-prefiller: {model: M, args: [--kv-transfer-config, ...]}``; pdlint
mapped it to ``python -m sglang.launch_server`` and reported SGL001 on vLLM's --kv-transfer-config, with no
role.
"""

CONFIG = """\
vllm-prefiller:
  model: "meta-llama/Llama-3.2-1B-Instruct"
  args: ["--no-enable-prefix-caching", "--kv-transfer-config", "{{\\"kv_connector\\":\\"LMCacheConnectorV1\\",\\"kv_role\\":\\"kv_producer\\"}}"]
vllm-decoder:
  model: "meta-llama/Llama-3.2-1B-Instruct"
  args: ["--no-enable-prefix-caching", "--kv-transfer-config", "{{\\"kv_connector\\":\\"{connector}\\",\\"kv_role\\":\\"kv_consumer\\"}}"]
"""


def _lint(scratch_git, connector: str):
    scratch_git.write(".buildkite/configs/pd.yaml", CONFIG.format(connector=connector))
    return scratch_git.lint(".buildkite/configs/pd.yaml")


def test_the_sections_are_a_vllm_prefill_and_decode(scratch_git):
    code, doc = _lint(scratch_git, "LMCacheConnectorV1")
    assert sorted((l["engine"], l["role"]) for l in doc["launches"]) == [("vllm", "decode"), ("vllm", "prefill")]
    # (VLLM015: LMCache on both roles without one PYTHONHASHSEED - a warning, as on LMCache's own manifests)
    assert [f["code"] for f in doc["findings"]] == ["VLLM015"]


def test_a_pair_rule_reads_them(scratch_git):
    code, doc = _lint(scratch_git, "NixlConnector")
    assert [f["code"] for f in doc["findings"]] == ["VLLM010"] and code == 1


def test_a_section_of_sglang_flags_stays_sglang(scratch_git):
    scratch_git.write("pd.yaml", "prefill:\n  args: [--tp-size, '2', --disaggregation-mode, prefill]\n"
                                 "decode:\n  args: [--tp-size, '2', --disaggregation-mode, decode]\n")
    _, doc = scratch_git.lint("pd.yaml")
    assert {l["engine"] for l in doc["launches"]} == {"sglang"}
