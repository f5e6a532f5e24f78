"""The SGLang release an image built on it names in its tag (``lightseekorg/smg:1.3.3-sglang-v0.5.9``).

Field test: lightseekorg/smg's chart runs ``python3 -m sglang.launch_server`` in ``lightseekorg/smg:<smg
version>-sglang-v0.5.9``; pdlint judged it against the newest table (0.5.23) instead of 0.5.9."""

import pytest

POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: prefill}
    spec:
      containers:
        - name: s
          image: %s
          command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill]
    """


@pytest.mark.parametrize("image, version", [
    ("lightseekorg/smg:1.3.3-sglang-v0.5.9", "0.5.9"),
    ("lmsysorg/sglang:v0.5.9", "0.5.9"),
    ("registry.local/server:sglang-v0.5.8-cu129", "0.5.8"),
])
def test_the_sglang_release_in_an_image_tag(scratch_git, image, version):
    scratch_git.write("pod.yaml", POD % image)
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == version


def test_a_tag_naming_no_sglang_release_is_judged_against_the_newest(scratch_git):
    scratch_git.write("pod.yaml", POD % "lightseekorg/smg:1.3.3")
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.23"
