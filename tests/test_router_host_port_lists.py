"""A proxy fronting several prefill and decode servers by comma-separated host and port lists (LMCache's proxy:
`--prefiller-host A,B --prefiller-port 7100,7200`, shengyan-chen/lmcache-ascend-deploy, field test rw23/a): each
entry names a server, so a 2P2D deployment behind it is four pairs, not two 1P1D pairs by file name (a TP 4 prefill
sending to a TP 2 decode was missed).  (A proxy's localhost URLs join nothing: a directory's scripts may run on
other nodes, and joining by port made the result cache's components a directory wide: bench/ "1 changed" +28%.)"""

import pytest


def _vllm(role: str, port: int, tp: int) -> str:
    kv = "kv_producer" if role == "prefill" else "kv_consumer"
    return (f"vllm serve Qwen/Qwen3-8B --host 10.0.0.5 --port {port} --tensor-parallel-size {tp} "
            f"--kv-transfer-config '{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"{kv}\"}}'\n")


@pytest.mark.parametrize("ports", [
    "--prefiller-hosts 10.0.0.5 10.0.0.5 --prefiller-ports 7100 7200 --decoder-hosts 10.0.0.5 10.0.0.5 "
    "--decoder-ports 7600 7700",
    "--prefiller-host 10.0.0.5,10.0.0.5 --prefiller-port 7100,7200 --decoder-host 10.0.0.5 --decoder-port 7600,7700"])
def test_a_proxys_host_and_port_lists_join_the_servers_it_names(scratch_git, ports):
    scratch_git.write("pd/start_prefiller_1.sh", _vllm("prefill", 7100, 4))
    scratch_git.write("pd/start_decoder_1.sh", _vllm("decode", 7600, 4))
    scratch_git.write("pd/start_prefiller_2.sh", _vllm("prefill", 7200, 2))
    scratch_git.write("pd/start_decoder_2.sh", _vllm("decode", 7700, 2))
    scratch_git.write("pd/start_proxy.sh", f"python3 toy_proxy_server.py --port 8100 {ports}\n")
    code, doc = scratch_git.lint(".")
    pairs = sorted((p["prefill"]["path"], p["decode"]["path"]) for d in doc["pairs"] for p in d["pairs"])
    assert len(pairs) == 4
    # (TP 4 prefill -> TP 2 decode, through the proxy: refused by NIXL up to vLLM 0.13, no release pinned)
    assert sorted((f["code"], f["path"]) for f in doc["findings"]) == [("VLLM022", "pd/start_decoder_2.sh")]


def test_a_proxy_names_at_most_256_servers():
    from pdlint.model import Launch
    from pdlint.pairing import MAX_ROUTER_ITEMS, router_args
    from pdlint.text import SourceFile, TStr
    args = "--prefiller-port " + ",".join(str(7000 + i) for i in range(3000))
    doc = TStr.from_source(SourceFile("pd/proxy.sh", args))
    words = [doc[:len("--prefiller-port")], doc[len("--prefiller-port") + 1:]]
    router = Launch(path="pd/proxy.sh", line=1, engine="vllm", entrypoint="toy_proxy_server.py", kind="router",
                    argv=words)
    assert len(router_args(router)[0]) == MAX_ROUTER_ITEMS


def _padded_router(scratch_git, prefill_urls: list) -> tuple:
    lines = ["#!/bin/bash",
             "CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
             "--port 30001 &",
             "CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --model-path m --disaggregation-mode decode "
             "--port 30002 &",
             "python -m sglang_router.launch_router --pd-disaggregation "
             + " ".join(f"--prefill {u}" for u in prefill_urls) + " --decode http://127.0.0.1:30001", ""]
    scratch_git.write("run.sh", "\n".join(lines))
    return scratch_git.lint("--strict", "run.sh")


def test_padding_one_role_does_not_push_the_others_servers_out(scratch_git):
    """Hostile-input test rw25/h item 6: 256 copies of a --prefill URL filled the bound in argv order and the --decode
    URL after them (the prefill's port: PD154) was dropped with no word (exit 0 with --strict)."""
    from pdlint.pairing import MAX_ROUTER_ITEMS
    code, doc = _padded_router(scratch_git, ["http://127.0.0.1:30001"] * MAX_ROUTER_ITEMS)
    assert [f["code"] for f in doc["findings"]] == ["PD154"] and code == 1


def test_servers_past_the_bound_are_said(scratch_git):
    from pdlint.pairing import MAX_ROUTER_ITEMS
    urls = ["http://127.0.0.1:30001"] + [f"http://10.0.{i // 250}.{i % 250 + 1}:30001" for i in range(MAX_ROUTER_ITEMS)]
    code, doc = _padded_router(scratch_git, urls)
    cut = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert len(cut) == 1 and f"more than {MAX_ROUTER_ITEMS} distinct prefill servers" in cut[0]["message"]
    assert "PD154" in [f["code"] for f in doc["findings"]] and code == 1


def test_a_comma_list_of_hosts_shares_the_one_port(scratch_git):
    """Field test rw27/a (LMCache's examples/disagg_prefill/k8s/xp1d.yaml, reduced): the proxy is given both pods of
    a two-replica prefill StatefulSet as `--prefiller-host p-0.svc,p-1.svc --prefiller-port 8100` - LMCache's proxy
    gives every host the one port - and PD107 said p-1 never receives traffic."""
    import pathlib
    here = pathlib.Path(__file__).parent / "data" / "rw27a" / "lmcache_xp1d.yaml"
    scratch_git.write("pd.yaml", here.read_text())
    code, doc = scratch_git.lint("--strict", "pd.yaml")
    assert [f["code"] for f in doc["findings"]] == []
    assert code == 0
    # one of the two hosts only: PD107 names the replica left out
    scratch_git.write("pd.yaml", here.read_text().replace(",vllm-prefiller-1.vllm-prefiller-svc", ""))
    _, doc = scratch_git.lint("--strict", "pd.yaml")
    assert [f["code"] for f in doc["findings"]] == ["PD107"]


TOY = ("python3 {script} --port 8192 --prefiller-hosts {ph} --prefiller-ports {pp} --decoder-hosts localhost "
       "--decoder-ports 8200\n")


@pytest.mark.parametrize("ph,pp,script,found", [
    ("localhost", "8100 8101", "toy_proxy_server.py", [("PD114", "error", 1, 69)]),
    ("localhost localhost", "8100 8101", "toy_proxy_server.py", []),
    ("a b c", "8100", "toy_proxy_server.py", [("PD114", "error", 1, 65)]),
    ("localhost", "8100 8101", "my_proxy.py", [("PD114", "warning", 1, 61)]),
    ("a,b", "8100", "toy_proxy_server.py", []),  # comma-separated: LMCache's spelling, the one port for each host
    ("$HOSTS", "8100 8101", "toy_proxy_server.py", []),  # the shell may split it
])
def test_a_toy_proxys_hosts_and_ports_pair_one_by_one(scratch_git, ph, pp, script, found):
    scratch_git.write("proxy.sh", TOY.format(script=script, ph=ph, pp=pp))
    _, doc = scratch_git.lint("proxy.sh")
    assert [(f["code"], f["severity"], f["line"], f["column"]) for f in doc["findings"]] == found


def test_a_toy_proxy_without_its_host_list_has_one_default_host(scratch_git):
    scratch_git.write("proxy.sh", "python3 toy_proxy_server.py --prefiller-ports 8100 8101 --decoder-ports 8200\n")
    _, doc = scratch_git.lint("proxy.sh")
    assert [(f["code"], "(one default)" in f["message"]) for f in doc["findings"]] == [("PD114", True)]
