"""A container or Compose service that sets only the arguments of a known server image (Kubernetes
``args`` without ``command``, Compose ``command`` without ``entrypoint``) runs the image's ENTRYPOINT
with them: ``vllm/vllm-openai`` runs vLLM's OpenAI server, so its arguments are checked as that
launcher's argv (issue 8 item 2)."""

import textwrap

import pytest

from pdlint import launchers
from pdlint.text import TStr


POD = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-{role}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: {image}
{fields}
"""

PRODUCER = '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'


def pod(role, image, fields):
    return POD.format(role=role, image=image, fields=textwrap.indent(textwrap.dedent(fields), " " * 8))


def test_args_of_the_vllm_image_are_checked_as_vllm_serve(scratch):
    scratch.write("k.yaml", pod("prefill", "vllm/vllm-openai:v0.10.2", f"""
        args:
        - Qwen/Qwen3-8B
        - --kv-transfer-config
        - '{PRODUCER}'
        - --tensor-parallel-sise
        - "2"
        """))
    code, doc = scratch.lint("k.yaml")
    (launch,) = doc["launches"]
    assert launch["entrypoint"] == "vllm serve" and launch["role"] == "prefill"
    assert [(f["line"], f["code"]) for f in doc["findings"]] == [(16, "VLLM018")]
    assert "args of the image's ENTRYPOINT (vllm serve)" in launch["context"]
    assert launch["engine_version"] == "0.10.2"


def test_flag_arguments_use_the_api_server_entrypoint(scratch):
    scratch.write("k.yaml", pod("decode", "docker.io/vllm/vllm-openai:latest", """
        args: [--model, Qwen/Qwen3-8B, --port, "8000"]
        """))
    code, doc = scratch.lint("k.yaml")
    (launch,) = doc["launches"]
    assert launch["entrypoint"] == "python -m vllm.entrypoints.openai.api_server"
    assert code == 0 and doc["findings"] == []


def test_compose_command_without_entrypoint(scratch):
    scratch.write("docker-compose.yaml", """
        services:
          decode:
            image: vllm/vllm-openai:v0.10.2
            command: --model Qwen/Qwen3-8B --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' --max-num-seqz 8
        """)
    code, doc = scratch.lint("docker-compose.yaml")
    (launch,) = doc["launches"]
    assert launch["role"] == "decode" and "command of the image's ENTRYPOINT" in launch["context"]
    assert [f["code"] for f in doc["findings"]] == ["VLLM018"]  # the typo --max-num-seqz


@pytest.mark.parametrize("image,fields", [
    # a command of its own replaces the ENTRYPOINT (read as written, as before)
    ("vllm/vllm-openai:v0.10.2", "command: [sleep, infinity]\nargs: [--model, m]\n"),
    # an image pdlint does not know runs whatever its ENTRYPOINT is
    ("lmsysorg/sglang:v0.5.9", "args: [--model-path, m, --disaggregation-mode, prefill]\n"),
    ("myorg/vllm-openai-fork:1", "args: [--model, m]\n"),
])
def test_other_containers_are_not_given_an_entrypoint(scratch, image, fields):
    scratch.write("k.yaml", pod("prefill", image, fields))
    code, doc = scratch.lint("k.yaml")
    assert doc["launches"] == []


def test_compose_entrypoint_given(scratch):
    scratch.write("docker-compose.yaml", """
        services:
          decode:
            image: vllm/vllm-openai:v0.10.2
            entrypoint: [/bin/run.sh]
            command: [--model, m]
        """)
    code, doc = scratch.lint("docker-compose.yaml")
    assert doc["launches"] == []


@pytest.mark.parametrize("image,first,entry", [
    ("vllm/vllm-openai", "--model", ("python3", "-m", "vllm.entrypoints.openai.api_server")),
    ("vllm/vllm-openai:v0.10.2", "Qwen/Qwen3-8B", ("vllm", "serve")),
    ("registry.local:5000/vllm/vllm-openai@sha256:abc", "--model", ("python3", "-m",
                                                                    "vllm.entrypoints.openai.api_server")),
    ("lmcache/vllm-openai:latest", "--model", ("vllm", "serve")),
    ("vllm/vllm-openai-rocm:1", "--model", None),
    ("", "--model", None),
])
def test_image_entrypoint_table(image, first, entry):
    assert launchers.image_entrypoint(image, [TStr.synthetic(first, "x")]) == entry
