"""VLLM034: a value only older vLLM releases allow for an option, on a launch whose release is not pinned; and
llm-d images, whose tag is llm-d's version and names no vLLM release.

Field test cnuland/hello-chris-llm-d assets/llm-d/decode-deployment.yaml: image `ghcr.io/llm-d/llm-d:v0.2.0`
(vLLM 0.10.0 inside) with `--prefix-caching-hash-algo builtin` got "VLLM019 error: invalid choice 'builtin'
[vLLM 0.33.0]", though `builtin` is a choice in 0.9.2's table, while `--enable-reasoning` in the same file got
the hedged VLLM020 warning.
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


def test_a_value_only_an_older_release_allows_is_a_warning_on_an_llm_d_image(scratch_git):
    code, found = _findings(scratch_git, "ghcr.io/llm-d/llm-d:v0.2.0")
    assert sorted(found) == ["VLLM020", "VLLM034"] and code == 0
    f = found["VLLM034"]
    assert (f["severity"], f["line"], f["column"]) == ("warning", 14, 11)
    assert f["message"] == (
        "'builtin' is a choice of --prefix-caching-hash-algo only in vLLM 0.9.2-0.10.1 (not 0.33.0, the newest release "
        "pdlint knows, which stops with \"argument --prefix-caching-hash-algo: invalid choice: 'builtin' (choose "
        "from 'sha256', 'sha256_cbor', 'xxhash', 'xxhash_cbor')\"); pin the release: an image tag "
        "(vllm/vllm-openai:vX.Y.Z) or `vllm-version` in [tool.pdlint]")


def test_the_same_with_no_image_at_all(scratch_git):
    scratch_git.write("serve.sh", "vllm serve m --prefix-caching-hash-algo builtin --convert reward\n")
    code, report = scratch_git.lint("serve.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM034", "VLLM034"] and code == 0
    assert report["findings"][1]["message"].startswith("'reward' is a choice of --convert only in vLLM 0.10.1-0.15.0 ")


def test_a_pinned_release_keeps_the_error_and_names_where_the_value_is_a_choice(scratch_git):
    code, found = _findings(scratch_git, "vllm/vllm-openai:v0.10.2")
    f = found["VLLM019"]
    assert "VLLM034" not in found and code == 1
    assert f["message"] == ("argument --prefix-caching-hash-algo: invalid choice: 'builtin' (choose from 'sha256', "
                            "'sha256_cbor') [vLLM 0.10.2; a choice in vLLM 0.9.2-0.10.1]")


def test_the_release_that_allows_it_is_quiet(scratch_git):
    _, found = _findings(scratch_git, "vllm/vllm-openai:v0.9.2")
    assert found == {}


@pytest.mark.parametrize("image", ["ghcr.io/llm-d/llm-d:v0.2.0", "vllm/vllm-openai:latest"])
def test_a_value_no_release_allows_is_still_an_error(scratch_git, image):
    code, found = _findings(scratch_git, image, "sha265")  # a near-miss of sha256
    assert found["VLLM019"]["severity"] == "error" and "VLLM034" not in found and code == 1


def test_a_current_choice_is_quiet(scratch_git):
    _, found = _findings(scratch_git, "ghcr.io/llm-d/llm-d-cuda:v0.8.0", "sha256")
    assert sorted(found) == ["VLLM020"]


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
