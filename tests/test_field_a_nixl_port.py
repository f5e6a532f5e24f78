"""Field test ai-dynamo/dynamo: PD150 counted vLLM's NIXL side-channel port (5600) for Dynamo workers that name
no KV connector (tests/lmcache/deploy-*-dynamo-disag.sh): Dynamo 1.x runs no connector then, so no side channel
opens.  Only a ``--kv-transfer-config`` that names NixlConnector (also as a MultiConnector/PdConnector member)
opens it."""

import pytest

NIXL = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
PD = ('{"kv_connector":"PdConnector","kv_role":"kv_both","kv_connector_extra_config":{"connectors":'
      '[{"kv_connector":"DynamoConnector"},{"kv_connector":"NixlConnector"}]}}')
LMCACHE = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'


def _script(kv_decode: str, kv_prefill: str, env_decode: str = "", env_prefill: str = "") -> str:
    def flag(kv):
        return f" --kv-transfer-config '{kv}'" if kv else ""
    return ("#!/bin/bash\n"
            f"{env_decode}CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B "
            f"--disaggregation-mode decode{flag(kv_decode)} &\n"
            f"{env_prefill}CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B "
            f"--disaggregation-mode prefill{flag(kv_prefill)}\n")


def _pd150(out) -> list:
    return [f for f in out["findings"] if f["code"] == "PD150"]


def test_workers_without_a_connector_open_no_side_channel(scratch_git):
    scratch_git.write("disagg.sh", _script("", ""))
    code, out = scratch_git.lint("disagg.sh")
    assert _pd150(out) == []
    assert [f["code"] for f in out["findings"]] == ["VLLM026"]  # the prefill's missing config is still said


@pytest.mark.parametrize("kv", [NIXL, PD])
def test_nixl_workers_on_the_default_side_channel_port_clash(scratch_git, kv):
    scratch_git.write("disagg.sh", _script(kv, kv))
    code, out = scratch_git.lint("disagg.sh")
    [f] = _pd150(out)
    assert "port 5600 is used twice" in f["message"] and "VLLM_NIXL_SIDE_CHANNEL_PORT (default)" in f["message"]


def test_nixl_workers_on_their_own_side_channel_ports_do_not_clash(scratch_git):
    scratch_git.write("disagg.sh", _script(NIXL, NIXL, "VLLM_NIXL_SIDE_CHANNEL_PORT=20096 ",
                                           "VLLM_NIXL_SIDE_CHANNEL_PORT=20097 "))
    code, out = scratch_git.lint("disagg.sh")
    assert _pd150(out) == []


def test_a_nixl_worker_beside_one_without_a_connector_does_not_clash(scratch_git):
    scratch_git.write("disagg.sh", _script("", NIXL))
    code, out = scratch_git.lint("disagg.sh")
    assert _pd150(out) == []


def test_another_connector_opens_no_nixl_side_channel(scratch_git):
    scratch_git.write("disagg.sh", _script(LMCACHE, LMCACHE))
    code, out = scratch_git.lint("disagg.sh")
    assert _pd150(out) == []
