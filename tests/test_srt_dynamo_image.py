"""srtctl recipes run in a Dynamo runtime image: its tag is Dynamo's release, the SGLang version is Dynamo's pin.

Field test: NVIDIA/srt-slurm ``recipes/sglang/nemotron-super-120b/b200-fp4/*/agg-tp1.yaml`` with
``container: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-...``: pdlint read 1.2.0 as an SGLang release (no
table; judged against 0.5.23) and reported ``cuda-graph-max-bs`` as removed (SGL009), while Dynamo 1.2 pins
SGLang 0.5.11, where the flag exists."""

import pytest

RECIPE = """\
    name: "dynamo-image-agg"
    model:
      path: "hf:nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
      container: "{image}"
      precision: "fp4"
    resources:
      gpu_type: "b200"
      gpus_per_node: 1
      agg_nodes: 1
      agg_workers: 1
    backend:
      type: sglang
      sglang_config:
        aggregated:
          tensor-parallel-size: 1
          cuda-graph-max-bs: 1024
    """


@pytest.mark.parametrize("image", ["nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1",
                                   "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.1"])
def test_a_dynamo_runtime_image_is_judged_against_its_sglang_pin(scratch_git, image):
    scratch_git.write("recipe.yaml", RECIPE.format(image=image))
    code, report = scratch_git.lint("recipe.yaml")
    (launch,) = report["launches"]
    assert launch["engine_version"] == "0.5.11"
    assert report["findings"] == [] and code == 0


def test_an_sglang_image_is_judged_against_its_own_tag(scratch_git):
    scratch_git.write("recipe.yaml", RECIPE.format(image="lmsysorg/sglang:v0.5.23"))
    _, report = scratch_git.lint("recipe.yaml")
    assert [f["code"] for f in report["findings"]] == ["SGL009"]
