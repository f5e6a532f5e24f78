"""Field test rw30/a P8: the services of one Compose file start together on one host (``docker compose up``), yet
their ports and GPUs were never compared: two vLLM services with ``network_mode: host`` both on ``--port 8000``
(and the default NIXL side channel 5600) passed, while the same two servers as ``docker run -d --network host``
in a script get PD150; two services reserving ``device_ids: ["0"]`` passed where two ``docker run --gpus
'"device=0"'`` get PD151.  Now compared as one script's launches (pairing.compose_together): ports only on the host
network, GPUs from ``deploy.resources.reservations.devices`` / ``gpus:`` / ``NVIDIA_VISIBLE_DEVICES``.

Ground truth: under ``network_mode: host`` the container binds the host's ports, so the second vLLM fails with
``OSError: [Errno 98] Address already in use`` (vLLM's NIXL connector: each worker needs its own
VLLM_NIXL_SIDE_CHANNEL_PORT per host); Compose spec (deploy.resources.reservations.devices): ``device_ids`` names
the host's GPUs, and without ``count`` / ``device_ids`` all GPUs are reserved; both engines size their KV cache as
~0.9 of the GPU's memory."""

import pytest

_P = '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
_D = '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'


def _svc(name, cfg, port, extra="", gpu=None, env=""):
    text = (f"  {name}:\n    image: vllm/vllm-openai:v0.20.0\n"
            f"    command: [\"Qwen/Qwen3-0.6B\", \"--port\", \"{port}\", \"--kv-transfer-config\", '{cfg}']\n" + extra)
    if env:
        text += "    environment:\n" + env
    if gpu is not None:
        text += ("    deploy:\n      resources:\n        reservations:\n"
                 f"          devices: [{{driver: nvidia, device_ids: [\"{gpu}\"], capabilities: [gpu]}}]\n")
    return text


def _messages(report):
    return sorted((f["code"], f["line"], f["message"].split(":")[0]) for f in report["findings"])


def test_host_network_services_on_one_port_collide(scratch):
    # the report's repro/8/docker-compose.yml: 0 findings before
    host = "    network_mode: host\n"
    scratch.write("docker-compose.yml", "services:\n" + _svc("prefill", _P, 8000, host, gpu=0)
                  + _svc("decode", _D, 8000, host, gpu=1))
    code, report = scratch.lint(".")
    assert code == 1
    assert _messages(report) == [("PD150", 11, "port 5600 is used twice on this host"),
                                 ("PD150", 12, "port 8000 is used twice on this host")]
    assert all("`docker compose up` starts together" in f["message"] for f in report["findings"])


def test_bridge_network_services_with_their_own_ports_are_quiet(scratch):
    scratch.write("docker-compose.yml", "services:\n" + _svc("prefill", _P, 8000, '    ports: ["8100:8000"]\n', gpu=0)
                  + _svc("decode", _D, 8000, '    ports: ["8200:8000"]\n', gpu=1))
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0


def test_host_network_services_on_their_own_ports_and_gpus_are_quiet(scratch):
    host = "    network_mode: host\n"
    scratch.write("docker-compose.yml", "services:\n" + _svc("prefill", _P, 8100, host, gpu=0)
                  + _svc("decode", _D, 8200, host, gpu=1, env='      VLLM_NIXL_SIDE_CHANNEL_PORT: "5601"\n'))
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0


def test_services_reserving_one_gpu_overlap(scratch):
    # the report's repro/8/compose-same-gpu.yml (bridge network: the ports are the containers' own)
    scratch.write("compose.yaml", "services:\n" + _svc("prefill", _P, 8000, '    ports: ["8100:8000"]\n', gpu=0)
                  + _svc("decode", _D, 8000, '    ports: ["8200:8000"]\n', gpu=0))
    code, report = scratch.lint(".")
    assert code == 1 and [f["code"] for f in report["findings"]] == ["PD151"]
    f = report["findings"][0]
    assert f["line"] == 17 and "both use GPU 0" in f["message"]  # (at the decode's device_ids)
    assert "device_ids: 0" in f["message"]


@pytest.mark.parametrize("env_a,env_b,extra", [
    ('      NVIDIA_VISIBLE_DEVICES: "1"\n', '      NVIDIA_VISIBLE_DEVICES: "1"\n', ""),
    ('      CUDA_VISIBLE_DEVICES: "0"\n', '      CUDA_VISIBLE_DEVICES: "0"\n', "    runtime: nvidia\n"),
])
def test_services_pinned_to_one_gpu_by_their_environment_overlap(scratch, env_a, env_b, extra):
    scratch.write("compose.yaml", "services:\n"
                  + _svc("prefill", _P, 8000, '    ports: ["8100:8000"]\n' + extra, env=env_a)
                  + _svc("decode", _D, 8000, '    ports: ["8200:8000"]\n' + extra, env=env_b))
    code, report = scratch.lint(".")
    assert code == 1 and [f["code"] for f in report["findings"]] == ["PD151"]


def test_services_without_gpus_or_of_other_profiles_are_not_compared(scratch):
    host = "    network_mode: host\n"
    # no GPU request, no device mask: the containers see no GPU (nothing to compare)
    scratch.write("a/compose.yaml", "services:\n" + _svc("prefill", _P, 8100, host)
                  + _svc("decode", _D, 8200, host, env='      VLLM_NIXL_SIDE_CHANNEL_PORT: "5601"\n'))
    # two profiles: `docker compose --profile nixl up` or `--profile other up`, one at a time
    scratch.write("b/compose.yaml", "services:\n" + _svc("prefill", _P, 8000, host + "    profiles: [nixl]\n", gpu=0)
                  + _svc("decode", _D, 8000, host + "    profiles: [other]\n", gpu=0))
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
