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


# vLLM's own router (vllm-project/router, PyPI vllm-router 0.1.17), as vllm-project/recipes' DeepSeek-V4-Flash
# "H200 Single-Node PD (NIXL)" runs it (field test rw13/f): kv_both on both servers, so the router's URLs are
# the only place the roles are written
BOTH = """\
#!/bin/bash
CUDA_VISIBLE_DEVICES=0,1 VLLM_NIXL_SIDE_CHANNEL_PORT=5557 vllm serve MODEL_P --port 8000 --tensor-parallel-size 2 \\
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
CUDA_VISIBLE_DEVICES=2,3 VLLM_NIXL_SIDE_CHANNEL_PORT=5558 vllm serve MODEL_D --port 8001 --tensor-parallel-size TP \\
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
ROUTER --policy round_robin --vllm-pd-disaggregation \\
  --prefill http://localhost:8000 --decode http://localhost:DPORT --host 127.0.0.1 --port 30000
"""


def _both(router="vllm-router", tp="2", dport="8001", model_d="M"):
    return (BOTH.replace("ROUTER", router).replace("TP", tp).replace("DPORT", dport).replace("MODEL_P", "M")
            .replace("MODEL_D", model_d))


@pytest.mark.parametrize("router", ["vllm-router", "python -m vllm_router.launch_router"])
def test_vllm_router_names_the_roles_of_kv_both_servers(scratch_git, router):
    scratch_git.write("run.sh", _both(router))
    code, report = scratch_git.lint("run.sh")
    assert (code, report["findings"]) == (0, [])
    assert [(l["kind"], l["structural_role"]) for l in report["launches"]] == [
        ("server", "prefill"), ("server", "decode"), ("router", None)]
    # paired, so the pair rules run: the prefill's TP 2 against the decode's 1
    scratch_git.write("run.sh", _both(router, tp="1"))
    code, report = scratch_git.lint("run.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM022", 4)]


def test_a_vllm_router_port_typo_beside_kv_both_servers(scratch_git):
    """The decode URL's port names no server: the one server of no role it can mean takes the decode role, so
    PD154 reports the port (it passed clean: no roles, no pair)."""
    scratch_git.write("run.sh", _both(dport="8002"))
    code, report = scratch_git.lint("run.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD154", 7)]
    assert "listens on 8001" in report["findings"][0]["message"]
    assert "the decode launch (vllm serve, run.sh:4)" in str(report["findings"][0]["related"])


def test_a_server_of_another_model_is_not_the_one_a_wrong_port_meant(scratch_git):
    scratch_git.write("run.sh", _both(dport="8002", model_d="Other"))
    code, report = scratch_git.lint("run.sh")
    assert "PD154" not in [f["code"] for f in report["findings"]]
    assert [l["structural_role"] for l in report["launches"] if l["kind"] == "server"] == ["prefill", None]


def test_vllm_router_is_launch_text():
    from pdlint.coverage import has_launch_text
    assert has_launch_text("vllm-router --vllm-pd-disaggregation --prefill http://p:8000 --decode http://d:8001")
    assert has_launch_text("python3 -m vllm_router.launch_router --worker-urls http://w:8000")
    assert not has_launch_text("docker run --name vllm-router --network host image")
    assert not has_launch_text("pip install vllm-router")
