"""vLLM 0.10.0 and 0.10.1 have flag tables of their own (many published images: `vllm/vllm-openai:v0.10.1`,
wodubayo's Compose file).  They were judged against 0.9.2, the nearest older table, which lacks 46 of 0.10.1's
option strings: `--async-scheduling` was a false VLLM018 error."""

import pytest

COMPOSE = """\
    services:
      prefill:
        image: vllm/vllm-openai:TAG
        command: >
          --model Qwen/Qwen2.5-1.5B-Instruct --port 8010 FLAG
          --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
    """


@pytest.mark.parametrize("tag", ["v0.10.1", "v0.10.1.1"])
def test_an_option_new_in_0_10_1_is_accepted(scratch_git, tag):
    scratch_git.write("docker-compose.yml", COMPOSE.replace("TAG", tag).replace("FLAG", "--async-scheduling"))
    code, report = scratch_git.lint("docker-compose.yml")
    assert report["findings"] == [] and code == 0
    assert report["launches"][0]["engine_version"] == "0.10.1"


def test_an_option_0_10_1_does_not_have_is_still_reported(scratch_git):
    """`--num-scheduler-steps` (0.9.2) was removed before 0.10.1."""
    scratch_git.write("docker-compose.yml", COMPOSE.replace("TAG", "v0.10.1").replace("FLAG", "--num-scheduler-steps 4"))
    code, report = scratch_git.lint("docker-compose.yml")
    assert [f["code"] for f in report["findings"]] == ["VLLM018"] and code == 1
