"""vLLM's MooncakeConnector proxy and encoder-disaggregation proxy are routers (field test rw12/c:
Wzhogqag/vllm's start_pd.sh runs mooncake_connector_proxy.py, xiefan46/epd-benchmark runs disagg_epd_proxy.py).
They were neither built nor reported, so the router checks (PD154: a URL no server listens at) never ran."""

import pytest

SERVERS = """\
#!/bin/bash
CUDA_VISIBLE_DEVICES=0 vllm serve M --port 8100 \\
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}' &
CUDA_VISIBLE_DEVICES=1 vllm serve M --port 8200 \\
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}' &
"""

PROXIES = {
    "mooncake": 'python "$VLLM/examples/online_serving/disaggregated_serving/mooncake_connector/'
                'mooncake_connector_proxy.py" --port 8000 --prefill http://127.0.0.1:PPORT 8998 '
                '--decode http://127.0.0.1:DPORT &\n',
    "epd": 'python3 disagg_epd_proxy.py --port 8000 --encode-servers-urls http://localhost:8300 '
           '--prefill-servers-urls "http://localhost:PPORT" '
           '--decode-servers-urls http://localhost:DPORT,http://localhost:8200 &\n',
}


@pytest.mark.parametrize("proxy", sorted(PROXIES))
def test_vllm_example_proxies_are_routers(scratch_git, proxy):
    scratch_git.write("run.sh", SERVERS + PROXIES[proxy].replace("PPORT", "8100").replace("DPORT", "8200"))
    code, report = scratch_git.lint("run.sh")
    assert (code, report["findings"]) == (0, [])
    assert sorted(l["role"] or l["kind"] for l in report["launches"]) == ["decode", "prefill", "router"]
    scratch_git.write("run.sh", SERVERS + PROXIES[proxy].replace("PPORT", "8101").replace("DPORT", "8200"))
    code, report = scratch_git.lint("run.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD154", 6)]


def test_an_epd_proxy_without_prefill_servers_names_none(scratch_git):
    scratch_git.write("run.sh", SERVERS + PROXIES["epd"].replace('"http://localhost:PPORT"', "disable")
                      .replace("DPORT", "8200"))
    code, report = scratch_git.lint("run.sh")
    assert not [f for f in report["findings"] if f["code"] == "PD154"]


@pytest.mark.parametrize("script", ["./nixl_proxy_server.py", "tools/disagg_proxy_server.py"])
def test_a_renamed_copy_of_the_toy_proxy_is_a_router(scratch_git, script):
    """novitalabs/pegaflow runs vLLM's toy proxy as nixl_proxy_server.py (field test rw13/f): told by its flags."""
    proxy = (f'python "{script}" --port 8000 --prefiller-host localhost --prefiller-port PPORT '
             f'--decoder-host localhost --decoder-port 8200\n')
    scratch_git.write("run.sh", SERVERS + proxy.replace("PPORT", "8100"))
    code, report = scratch_git.lint("run.sh")
    assert (code, report["findings"]) == (0, [])
    assert sorted(l["role"] or l["kind"] for l in report["launches"]) == ["decode", "prefill", "router"]
    scratch_git.write("run.sh", SERVERS + proxy.replace("PPORT", "8101"))
    code, report = scratch_git.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == ["PD154"]


def test_a_script_with_other_flags_is_no_router(scratch_git):
    scratch_git.write("run.sh", SERVERS + "python bench.py --prefiller-host localhost --num-prompts 10\n")
    code, report = scratch_git.lint("run.sh")
    assert [l["kind"] for l in report["launches"]] == ["server", "server"]
