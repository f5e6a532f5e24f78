"""An SGLang image tagged `latest` is the newest release (sgl-project/sglang's docs LWS example
decode.yaml: `lmsysorg/sglang:latest` with `--cuda-graph-max-bs`, which SGLang 0.5.23 rejects)."""

import pytest

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: decode
spec:
  containers:
    - name: sglang
      image: {image}
      command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - /models/m
        - --disaggregation-mode
        - decode
        - --cuda-graph-max-bs
        - "64"
"""


@pytest.mark.parametrize("image", ["lmsysorg/sglang:latest", "lmsysorg/sglang:latest-cu130",
                                   "docker.io/lmsysorg/sglang-rocm:latest"])
def test_latest_is_judged_as_the_newest_release(scratch_git, image):
    scratch_git.write("d.yaml", POD.format(image=image))
    code, report = scratch_git.lint("d.yaml")
    (f,) = report["findings"]
    assert f["code"] == "SGL009" and f["severity"] == "error" and "removed in SGLang 0.5.20" in f["message"]
    assert f["engine_version"] == report["launches"][0]["engine_version"] and code == 1


@pytest.mark.parametrize("image", ["lmsysorg/sglang", "lmsysorg/sglang:dev", "lmsysorg/sglang:latestfoo",
                                   # another project's image built on some SGLang release (ai-dynamo/modelexpress:
                                   # FROM lmsysorg/sglang:v0.5.13.post1, field test rw12/d): its tag is its own
                                   "registry.example.com/modelexpress-sglang:latest",
                                   "registry.example.com/modelexpress-sglang:0.5.9"])
def test_an_unpinned_image_is_still_judged_by_its_flags(scratch_git, image):
    scratch_git.write("d.yaml", POD.format(image=image))
    code, report = scratch_git.lint("d.yaml")
    codes = sorted(f["code"] for f in report["findings"])
    assert "SGL012" in codes and "SGL009" not in codes and code == 0


def test_a_pinned_release_wins(scratch_git):
    scratch_git.write("d.yaml", POD.format(image="lmsysorg/sglang:v0.5.9"))
    _, report = scratch_git.lint("d.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.9"
    assert not [f for f in report["findings"] if f["severity"] == "error"]
