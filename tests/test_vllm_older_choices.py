"""llm-d images (`ghcr.io/llm-d/llm-d:v0.2.0`, `llm-d-cuda:v0.8.0`): their tag is llm-d's version and names no
vLLM release, so they are judged like a nightly build's (only near-misses are errors).

Field test cnuland/hello-chris-llm-d assets/llm-d/decode-deployment.yaml: image `ghcr.io/llm-d/llm-d:v0.2.0`
(vLLM 0.10.0 inside) was judged as vLLM 0.33.0 as if nothing said which release runs, without the note a nightly
image gets.
"""

import pytest

from pdlint.engines.vllm import flags

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ms-decode
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: {image}
        command: ["vllm", "serve", "meta-llama/Llama-3.2-3B-Instruct"]
        args:
        - --prefix-caching-hash-algo
        - {value}
        - --enable-reasoning
"""


def _findings(scratch_git, image: str, value: str = "builtin") -> tuple:
    scratch_git.write("decode.yaml", DEPLOYMENT.format(image=image, value=value))
    code, report = scratch_git.lint("decode.yaml")
    return code, {f["code"]: f for f in report["findings"]}


def test_an_unknown_value_on_an_llm_d_image_is_left_to_its_build(scratch_git):
    # like a nightly's: not a near-miss, in no release's table: the build inside may have it
    _, found = _findings(scratch_git, "ghcr.io/llm-d/llm-d-cuda:v0.8.0", "blake3")
    assert sorted(found) == ["VLLM020"]


@pytest.mark.parametrize("image,unreleased", [
    ("ghcr.io/llm-d/llm-d:v0.2.0", True), ("ghcr.io/llm-d/llm-d-cuda:v0.8.0", True),
    ("ghcr.io/llm-d/llm-d-cuda-dev:latest", True), ("llm-d/llm-d-cuda", True), ("ghcr.io/llm-d/llm-d@sha256:ab12", True),
    ("ghcr.io/llm-d/llm-dx:v1", False), ("ghcr.io/acme/llm-d:v0.2.0", False),
])
def test_llm_d_images_name_no_vllm_release(image, unreleased):
    assert flags.image_version(image) is None
    assert flags.unreleased_image(image) is unreleased
