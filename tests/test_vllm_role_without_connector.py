"""PD105 for vLLM: a server its structure names prefill or decode (a Compose service, a Deployment) with no
`--kv-transfer-config` is an ordinary server: no KV cache is handed over.  Field test:
wodubayo/disaggregeted_inference_and_kv-caching_offloading's docker-compose.yml runs a service `prefill` as a
plain `vllm/vllm-openai` server; pdlint passed it as "1 prefill checked"."""

import pytest

COMPOSE = """\
    services:
      prefill:
        image: vllm/vllm-openai:v0.11.0
        command: >
          --model Qwen/Qwen2.5-1.5B-Instruct --port 8010 EXTRA
    """


def test_a_named_prefill_without_a_connector(scratch_git):
    scratch_git.write("docker-compose.yml", COMPOSE.replace(" EXTRA", ""))
    code, report = scratch_git.lint("docker-compose.yml")
    assert [(f["code"], f["role"], f["line"]) for f in report["findings"]] == [("PD105", "prefill", 3)]
    assert "no --kv-transfer-config" in report["findings"][0]["message"]
    assert code == 0  # a warning


@pytest.mark.parametrize("extra", [
    """--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'""",
    "${EXTRA_ARGS}",  # a value pdlint cannot see (set where Compose runs) may hold it
])
def test_a_connector_or_an_unknown_word_is_quiet(scratch_git, extra):
    scratch_git.write("docker-compose.yml", COMPOSE.replace("EXTRA", extra))
    _, report = scratch_git.lint("docker-compose.yml")
    assert "PD105" not in [f["code"] for f in report["findings"]]


def test_a_named_decode_alone_is_aggregated_serving(scratch_git):
    """llm-d's modelservice names the pods of aggregated serving `decode` (examples/output-dra.yaml)."""
    scratch_git.write("docker-compose.yml", COMPOSE.replace("prefill:", "decode:").replace(" EXTRA", ""))
    _, report = scratch_git.lint("docker-compose.yml")
    assert report["findings"] == []


def test_a_role_from_a_file_name_is_not_enough(scratch_git):
    """ZhaiFeiyue/amd-tools: server_prefill_profile.sh / server_decode_profile.sh profile plain servers."""
    for role, port in (("prefill", 8100), ("decode", 8200)):
        scratch_git.write(f"server_{role}_profile.sh", f"vllm serve /m --port {port}\n")
    _, report = scratch_git.lint(".")
    assert report["findings"] == []
