"""A vLLM Ascend image's tag is the plugin's release, which runs the vLLM release of its number.

Field test rw29/a P9 (volcano-sh/kthena examples/models/deepseek-v4-flash: `quay.io/ascend/vllm-ascend:v0.13.0rc3-a3`;
its NPU Helm templates: `vllm-ascend:v0.12.0rc1`): the tag was read as a vLLM pre-release 0.13.0rc3, older than
0.13.0, and judged against 0.11.0 ("no vLLM 0.13.0rc3 table"): `--num-lookahead-slots` passed where vLLM 0.13.0
stops with "unrecognized arguments: --num-lookahead-slots 0" (vLLM 0.13.0 oracle: REJECT).  vLLM Ascend's
versioning policy (docs.vllm.ai/projects/ascend .../community/versioning_policy): releases are
`v[major].[minor].[micro][rcN][.postN]` matching vLLM's, and its compatibility matrix maps every plugin release
candidate and post release to the final vLLM release (v0.9.1rc1..rc3 -> vLLM v0.9.1, v0.18.0rc1 -> v0.18.0,
v0.23.0rc1 -> v0.23.0, v0.7.3.post1 -> v0.7.3)."""

import pytest

from pdlint.engines.vllm import flags

POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: ds-decode}
    spec:
      containers:
      - name: decode
        image: IMAGE
        command: ["vllm", "serve", "/models/deepseek"]
        args:
          - --tensor-parallel-size
          - "8"
          - --num-lookahead-slots
          - "0"
    """


@pytest.mark.parametrize("image,version", [
    ("quay.io/ascend/vllm-ascend:v0.13.0rc3-a3", "0.13.0"),
    ("quay.io/ascend/vllm-ascend:v0.12.0rc1", "0.12.0"),
    ("ascendai/vllm-ascend:v0.7.3.post1", "0.7.3"),
    ("quay.io/ascend/vllm-ascend:v0.9.1", "0.9.1"),
    ("quay.io/ascend/vllm-ascend:v0.11.0rc0-310p", "0.11.0"),
    ("quay.io/ascend/vllm-ascend:latest", None),
    # vLLM's own images keep their tag's release
    ("vllm/vllm-openai:v0.10.1", "0.10.1"),
    ("vllm/vllm-openai:v0.9.1rc1", "0.9.1rc1"),
])
def test_image_version(image, version):
    assert flags.image_version(image) == version
    assert not flags.build_tag(image)


def test_an_ascend_rc_image_runs_the_final_vllm_release(scratch_git):
    scratch_git.write("decode.yaml", POD.replace("IMAGE", "quay.io/ascend/vllm-ascend:v0.13.0rc3-a3"))
    _, report = scratch_git.lint("decode.yaml")
    hits = [f for f in report["findings"] if f["code"] == "VLLM018"]
    assert len(hits) == 1 and "not a flag of vLLM 0.13.0" in hits[0]["message"], report["findings"]
    assert hits[0]["line"] == 12
    assert [launch["engine_version"] for launch in report["launches"]] == ["0.13.0"]


def test_an_ascend_image_of_a_release_between_tables_keeps_the_warning(scratch_git, capsys):
    """vllm-ascend v0.12.0rc1 runs vLLM 0.12.0, which has no table: judged against 0.11.0 with the warning, which
    says what the image runs; --num-lookahead-slots is 0.11.0's flag, so no finding."""
    scratch_git.write("decode.yaml", POD.replace("IMAGE", "quay.io/ascend/vllm-ascend:v0.12.0rc1"))
    from pdlint.cli import main
    code = main(["--no-cache", "decode.yaml"])
    out = capsys.readouterr()
    assert code == 0, out.out
    assert "no vLLM 0.12.0 table; judged against 0.11.0" in out.err
    assert "vllm-ascend:v0.12.0rc1 is vLLM Ascend's release for vLLM 0.12.0" in out.err
    assert "0.12.0rc1 table" not in out.err
