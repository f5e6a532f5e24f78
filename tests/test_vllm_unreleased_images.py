"""vLLM images whose tag names no release, or names one pdlint has no table for (SemiAnalysisAI/InferenceX:
`--moe-backend deep_gemm_amxf4_mega_moe` on `...:dsv4-megamoe-mxfp4-...-4ba0a72` and
`...:vllm-x86_64-cu13-0.25.1-7a33ba9` builds: 32 VLLM019 errors judged against 0.33.0)."""

import pytest

from pdlint.engines.vllm import flags

POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
    - name: vllm
      image: {image}
      command: [vllm, serve, m]
      args: [{args}]
"""


@pytest.mark.parametrize("image,version", [
    ("vllm/vllm-openai:v0.10.2", "0.10.2"),
    ("semianalysis/vllm:vllm-x86_64-cu13-0.25.1-7a33ba9", "0.25.1"),
    ("rocm/vllm:rocm6.4_vllm_0.9.1_20250702", "0.9.1"),
    ("x/vllm:dsv4-megamoe-mxfp4-b200-4ba0a72", None),
    ("vllm/vllm-openai:nightly", None),
    # a CUDA version in a build's tag is no vLLM release (InferenceX: "no vLLM 13.0.1 table")
    ("vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223", None),
    ("vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-426e59f", None),
])
def test_release_named_in_a_tag(image, version):
    assert flags.image_version(image) == version


@pytest.mark.parametrize("image,unreleased", [
    ("vllm/vllm-openai:nightly", True), ("x/vllm:dsv4-megamoe-4ba0a72", True), ("vllm/vllm-openai@sha256:ab12", True),
    ("vllm/vllm-openai:latest", False), ("vllm/vllm-openai", False), ("vllm/vllm-openai:v0.11.0", False),
])
def test_unreleased_images(image, unreleased):
    assert flags.unreleased_image(image) is unreleased


@pytest.mark.parametrize("image", ["x/vllm:dsv4-megamoe-mxfp4-b200-4ba0a72",
                                   "semianalysis/vllm:vllm-x86_64-cu13-0.25.1-7a33ba9"])
def test_a_value_or_option_such_a_build_may_have_is_not_reported(scratch_git, image):
    scratch_git.write("p.yaml", POD.format(image=image, args="--dtype, fp8_e4m3_custom"))
    code, report = scratch_git.lint("p.yaml")
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("image", ["x/vllm:dsv4-megamoe-mxfp4-b200-4ba0a72",
                                   "semianalysis/vllm:vllm-x86_64-cu13-0.25.1-7a33ba9"])
def test_a_near_miss_is_still_reported(scratch_git, image):
    scratch_git.write("p.yaml", POD.format(image=image, args="--dtype, bfloat61"))
    _, report = scratch_git.lint("p.yaml")
    assert [f["code"] for f in report["findings"]] == ["VLLM019"]
    scratch_git.write("p.yaml", POD.format(image=image, args="--gpu-memory-utilisation, '0.9'"))
    _, report = scratch_git.lint("p.yaml")
    assert [f["code"] for f in report["findings"]] == ["VLLM018"]


def test_a_released_image_keeps_every_finding(scratch_git):
    scratch_git.write("p.yaml", POD.format(image="vllm/vllm-openai:v0.33.0", args="--dtype, fp8_e4m3_custom"))
    _, report = scratch_git.lint("p.yaml")
    assert [f["code"] for f in report["findings"]] == ["VLLM019"]
