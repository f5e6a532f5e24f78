"""A proxy on one host fronting several prefill and decode servers at localhost ports of the scripts beside it
(shengyan-chen/lmcache-ascend-deploy's 2P2D deployment, field test rw23/a): the four servers are one deployment,
every prefill x decode pair is checked, not two 1P1D pairs by file name (a TP 4 prefill sending to a TP 2 decode
was missed)."""

import pytest


def _vllm(role: str, port: int, tp: int) -> str:
    kv = "kv_producer" if role == "prefill" else "kv_consumer"
    return (f"vllm serve Qwen/Qwen3-8B --port {port} --tensor-parallel-size {tp} "
            f"--kv-transfer-config '{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"{kv}\"}}'\n")


@pytest.mark.parametrize("ports", ["--prefiller-ports 7100 7200 --decoder-ports 7600 7700",
                                   "--prefiller-port 7100,7200 --decoder-port 7600,7700"])
def test_a_proxy_at_local_ports_joins_the_servers_beside_it(scratch_git, ports):
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


def test_one_port_for_both_roles_names_no_script_beside_it():
    # (each node's own servers: the router's localhost is not the scripts' host; tests/test_field_pairs.py)
    from pdlint.model import Launch
    from pdlint.pairing import LOCAL, address_keys
    from pdlint.text import SourceFile, TStr

    def router(args: str) -> Launch:
        doc = TStr.from_source(SourceFile("pd/proxy.sh", args))
        words, at = [], 0
        for w in args.split(" "):
            words.append(doc[at:at + len(w)])
            at += len(w) + 1
        return Launch(path="pd/proxy.sh", line=1, engine="vllm", entrypoint="toy_proxy_server.py", kind="router",
                      argv=words)

    assert [k for _, k in address_keys(router("--prefiller-ports 7100 --decoder-ports 7100"))] == []
    assert [k for _, k in address_keys(router("--prefiller-ports 7100 --decoder-ports 7600"))] == [
        f"pd\0{LOCAL}:7100", f"pd\0{LOCAL}:7600"]
