"""VLLM050: LMCache's PD backend gives each vLLM worker the port at its rank in `pd_peer_init_port` /
`pd_peer_alloc_port` / `pd_peer_query_port` (LMCache 0.5.6 lmcache/v1/storage_backend/pd_backend.py:145-158): a list
shorter than tensor x pipeline parallel size stops the workers past its end with IndexError.  Field test rw23/a,
shengyan-chen/lmcache-ascend-deploy GLM-5.1 1p1d: eight ports for tensor parallel size 16."""

import pytest

DECODER = """\
#!/bin/bash
export LMCACHE_CONFIG_FILE=decoder.yaml
{env}vllm serve Qwen/Qwen3-8B --port 8200 --tensor-parallel-size {tp} {pp}\\
  --kv-transfer-config '{{"kv_connector":"{conn}","kv_role":"kv_consumer"}}'
"""

CONFIG = """\
chunk_size: 256
enable_pd: {pd}
pd_role: "receiver"
pd_peer_host: "localhost"
pd_peer_init_port: {init}
pd_peer_alloc_port: [7400, 7401, 7402, 7403]
pd_buffer_size: 1073741824
pd_buffer_device: "cuda"
"""


def _write(scratch, tp=4, init="[7300, 7301]", pd="true", env="", pp="", conn="LMCacheConnectorV1"):
    scratch.write("decode.sh", DECODER.format(tp=tp, env=env, pp=pp, conn=conn))
    scratch.write("decoder.yaml", CONFIG.format(init=init, pd=pd))


def _hits(doc):
    return [(f["path"], f["line"], f["column"], f["severity"]) for f in doc["findings"] if f["code"] == "VLLM050"]


def test_a_port_list_shorter_than_the_workers_is_reported_at_the_list(scratch):
    _write(scratch)
    code, doc = scratch.lint(".")
    assert _hits(doc) == [("decoder.yaml", 5, 20, "error")]
    f = next(f for f in doc["findings"] if f["code"] == "VLLM050")
    assert "4 workers (tensor parallel size 4)" in f["message"] and "pd_peer_init_port, which lists 2" in f["message"]
    assert "IndexError" in f["message"] and code == 1


@pytest.mark.parametrize("kw, why", [
    (dict(tp=2, init="7300"), "a number is a list of one (LMCache's _to_int_list)"),
    (dict(tp=2, init="[7300, 7301]", pp="--pipeline-parallel-size 2 "), "workers are tensor x pipeline"),
    (dict(tp=2, init="[7300, 7301]", env="export LMCACHE_PD_PEER_INIT_PORT=7300\n"), "the environment's list wins"),
])
def test_other_ways_to_be_short(scratch, kw, why):
    _write(scratch, **kw)
    _, doc = scratch.lint(".")
    assert len(_hits(doc)) == 1, why


@pytest.mark.parametrize("kw, why", [
    (dict(tp=2), "two ports for two workers"),
    (dict(init="[7300, 7301, 7302, 7303]"), "four for four"),
    (dict(pd="false"), "the PD backend is off: the lists are not read"),
    (dict(env="export LMCACHE_ENABLE_PD=False\n"), "turned off by the environment"),
    (dict(tp="$TP "), "a size pdlint cannot see"),
    (dict(env="export LMCACHE_PD_PEER_INIT_PORT=$PORTS\n"), "a list pdlint cannot see"),
    (dict(conn="NixlConnector"), "no LMCache connector"),
])
def test_quiet(scratch, kw, why):
    _write(scratch, **kw)
    _, doc = scratch.lint(".")
    assert _hits(doc) == [], why
