"""A value pdlint cannot see, spliced into a ``bash -c`` string, is the value at run time, not its source text.
ROCm/MAD's MiniMax-M3 PD script (field report rw11/b) builds ``--kv-transfer-config '{...,"proxy_ip":"$HOST_IP"}'``
in ``docker run ... bash -c "..."`` with ``HOST_IP=$(ip route ... | awk '/src/{print $7}')``: the quotes of that
source ended the inner single-quoted JSON, the JSON fell apart, and both launches lost their role (PD021, no pair
rule: a connector mismatch passed).  A placeholder with a quote in it is now read as one word there."""

SCRIPT = """\
    #!/bin/bash
    HOST_IP=$(ip route get 1.1.1.1 2>/dev/null | awk '/src/{print $7}')
    MODEL=/models/MiniMax-M3-MXFP4

    serve(){ local name=$1 gpus=$2 role=$3 port=$4 conn=${5:-NixlConnector}
      docker run -d --name "$name" --entrypoint bash --network host \\
        -e CUDA_VISIBLE_DEVICES=$gpus -e VLLM_NIXL_SIDE_CHANNEL_PORT=$((5600+port)) \\
        rocm/vllm-dev:latest -c "vllm serve $MODEL --port $port \\
          --kv-transfer-config '{\\"kv_connector\\":\\"$conn\\",\\"kv_role\\":\\"$role\\",\\"kv_connector_extra_config\\":{\\"proxy_ip\\":\\"$HOST_IP\\"}}'"; }

    serve vm_prefill 0,1,2,3 kv_producer 2584
    serve vm_decode  4,5,6,7 kv_consumer 2585 DECODE_CONNECTOR
    """


def test_the_roles_survive_a_quoted_placeholder(scratch_git):
    scratch_git.write("run_pd.sh", SCRIPT.replace("DECODE_CONNECTOR", "MooncakeConnector"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"], f["role"]) for f in report["findings"]] == [("VLLM010", 12, "decode")]
    kv = [l for l in report["launches"] if l["role"] == "prefill"][0]["argv"]
    assert kv[-1].startswith('{"kv_connector":"NixlConnector","kv_role":"kv_producer"') and kv[-1].endswith('"}}')


def test_one_connector_is_quiet(scratch_git):
    scratch_git.write("run_pd.sh", SCRIPT.replace("DECODE_CONNECTOR", "NixlConnector"))
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
