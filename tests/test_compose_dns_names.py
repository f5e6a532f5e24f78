"""A Compose router URL that names a service by its ``container_name``, ``hostname`` or a network alias reaches that
service's container at its own port, as the service name does (Docker Engine API 1.44+ EndpointSettings.DNSNames:
"based on the container name, network aliases, container short ID, and hostname").  Field test rw17/n, P7: with
``container_name: sgl-decode`` and the router at ``http://sgl-decode:30001`` while the decode listens on 30000,
pdlint said nothing (PD154 fired only for ``http://decode:30001``)."""

import pytest

SERVER = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {mode} "
          "--host 0.0.0.0 --port 30000")


def compose(decode_extra, decode_url, router_extra=""):
    return f"""\
services:
  prefill:
    image: lmsysorg/sglang:v0.5.9-cu129
    ports: ["31000:30000"]
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, device_ids: ["0"], capabilities: [gpu]}}]}}}}}}
    command: {SERVER.format(mode="prefill")}
  decode:
{decode_extra}    image: lmsysorg/sglang:v0.5.9-cu129
    ports: ["31001:30000"]
    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, device_ids: ["1"], capabilities: [gpu]}}]}}}}}}
    command: {SERVER.format(mode="decode")}
  router:
{router_extra}    image: lmsysorg/sglang:v0.5.9-cu129
    ports: ["8000:8000"]
    command: python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://prefill:30000 --decode {decode_url} --host 0.0.0.0 --port 8000
"""


NAMES = {
    "container_name": ("    container_name: sgl-decode\n", "sgl-decode"),
    "hostname": ("    hostname: decode-host\n", "decode-host"),
    "alias": ("    networks:\n      default:\n        aliases: [pd-d, pd-decode-0]\n", "pd-decode-0"),
    "interpolated": ("    container_name: ${DECODE_NAME:-sgl-d}\n", "sgl-d"),
}


def findings(scratch, text):
    scratch.write("docker-compose.yml", text)
    code, out = scratch.lint(".")
    return code, [(f["line"], f["code"]) for f in out["findings"]]


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_a_router_url_naming_the_container_by_another_name_is_checked(scratch, kind):
    extra, host = NAMES[kind]
    code, found = findings(scratch, compose(extra, f"http://{host}:30001"))
    assert (code, found) == (1, [(15 + extra.count("\n"), "PD154")])


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_quiet_at_the_port_the_server_listens_on(scratch, kind):
    extra, host = NAMES[kind]
    assert findings(scratch, compose(extra, f"http://{host}:30000")) == (0, [])


def test_a_name_of_no_service_or_of_unknown_value_is_not_taken_for_the_decode(scratch):
    # a host outside the project, and a container name pdlint cannot resolve: nothing to compare the port with
    assert findings(scratch, compose("    container_name: sgl-decode\n", "http://gpu-node-7:30001")) == (0, [])
    assert findings(scratch, compose("    container_name: ${DECODE_NAME}\n", "http://sgl-decode:30001")) == (0, [])
    # the router's own container name is not the decode's
    assert findings(scratch, compose("", "http://rt:30001", "    container_name: rt\n")) == (0, [])
