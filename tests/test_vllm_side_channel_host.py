"""VLLM005 (NIXL side channel host 0.0.0.0) only where the value is handed out: the prefill's (field test rw34/a
P4, vllm-project/router scripts/llama3.1/start_{prefill,decode,router}.sh).

Ground truth, vLLM vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py: the prefill's
`request_finished` returns `kv_transfer_params` with `remote_host=self.side_channel_host` (its
VLLM_NIXL_SIDE_CHANNEL_HOST); the decode dials that host for the handshake.  A decode's own value is only where its
listener binds, handed to no one; and on one host (the router reaches both at 127.0.0.1) a decode dialing 0.0.0.0
reaches the local prefill's listener - the rule's own fix says "or leave it at its default when both roles share a
host".  pdlint 5939e48 warned on both launches of the repro, the decode's with "the address this server hands to
the decode".
"""

KV = """'{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"""


def _server(port: int, side: int, gpu: int) -> str:
    return (f"#!/bin/bash\nexport VLLM_NIXL_SIDE_CHANNEL_HOST=0.0.0.0\nexport VLLM_NIXL_SIDE_CHANNEL_PORT={side}\n"
            f"CUDA_VISIBLE_DEVICES={gpu} vllm serve meta-llama/Llama-3.1-8B-Instruct --port {port} \\\n"
            f"  --kv-transfer-config {KV}\n")


def _router(p: str, d: str) -> str:
    return (f"#!/bin/bash\nvllm-router --vllm-pd-disaggregation --prefill {p} --decode {d} --host 127.0.0.1 "
            f"--port 8090\n")


def _vllm005(report) -> list:
    return [(f["path"], f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == "VLLM005"]


def _write(scratch, p_url: str, d_url: str, names=("start_prefill.sh", "start_decode.sh", "start_router.sh")):
    scratch.write(names[0], _server(8081, 8083, 0))
    scratch.write(names[1], _server(8082, 8093, 1))
    scratch.write(names[2], _router(p_url, d_url))


def test_repro_loopback_router_and_decode_launch_are_quiet(scratch):
    _write(scratch, "http://127.0.0.1:8081", "http://127.0.0.1:8082")
    code, report = scratch.lint(".")
    assert (code, _vllm005(report)) == (0, [])
    assert sorted(l["structural_role"] or "-" for l in report["launches"]) == ["-", "decode", "prefill"]


def test_other_hosts_warn_on_the_prefill_only(scratch):
    """The router reaches the roles at two addresses: the prefill's 0.0.0.0 is what the decode dials (warned, on
    the value to edit); the decode's value is handed to no one (quiet)."""
    _write(scratch, "http://10.0.0.1:8081", "http://10.0.0.2:8082")
    _, report = scratch.lint(".")
    found = _vllm005(report)
    assert [(p, l, c) for p, l, c, _ in found] == [("start_prefill.sh", 2, 36)]
    assert found[0][3].startswith("VLLM_NIXL_SIDE_CHANNEL_HOST=0.0.0.0 is the address this server hands to the "
                                  "decode as remote_host for the NIXL handshake: a decode on other hosts dials")


def test_one_loopback_url_is_not_one_host(scratch):
    """Only the prefill at 127.0.0.1, the decode elsewhere: the decode is on another host, still warned."""
    _write(scratch, "http://127.0.0.1:8081", "http://10.0.0.2:8082")
    _, report = scratch.lint(".")
    assert [p for p, _, _, _ in _vllm005(report)] == ["start_prefill.sh"]


def test_a_kv_both_server_of_no_known_role_says_when(scratch):
    """A lone kv_both server (no structure, no router names its role): it hands the value out only as a
    prefill, and the message says so."""
    scratch.write("serve.sh", _server(8081, 8083, 0))
    _, report = scratch.lint("serve.sh")
    (found,) = _vllm005(report)
    assert "remote_host for the NIXL handshake when it serves as the prefill: a decode on other hosts" in found[3]


def test_a_producer_in_a_pod_still_warns(scratch):
    scratch.write("deploy.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm-prefill}
        spec:
          template:
            spec:
              containers:
                - name: prefill
                  image: vllm/vllm-openai:v0.10.0
                  command: ["vllm", "serve", "/models/Qwen3-8B", "--kv-transfer-config",
                            '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}']
                  env:
                    - name: VLLM_NIXL_SIDE_CHANNEL_HOST
                      value: "0.0.0.0"
        """)
    _, report = scratch.lint("deploy.yaml")
    assert [(p, l) for p, l, _, m in _vllm005(report) if "other pods" in m] == [("deploy.yaml", 14)]
