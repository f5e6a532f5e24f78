"""SGL012 names every flag the newest SGLang release refuses, not only the first.

Field test rw16/k, liyuanzhe1991/sgl_pd_bench launch_decode.sh (unpinned): `--cuda-graph-bs` and
`--prefill-round-robin-balance`, both gone from SGLang 0.5.20. SGL012 named `--cuda-graph-bs` alone and the
other was an SGL008 "deprecated in 0.5.19" warning, so a user who followed SGL012's hint still got SGLang
0.5.23's "unrecognized arguments: --prefill-round-robin-balance"."""

import pytest

SERVER = "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode"


def _lint(scratch_git, flags):
    scratch_git.write("run.sh", f"{SERVER} \\\n  {flags}\n")
    code, report = scratch_git.lint("run.sh")
    return code, report["findings"]


def test_every_flag_the_newest_release_refuses_is_named_once(scratch_git):
    code, found = _lint(scratch_git, "--cuda-graph-bs 13 --prefill-round-robin-balance")
    assert [f["code"] for f in found] == ["SGL012"] and code == 0
    f = found[0]
    assert (f["line"], f["column"]) == (2, 3)
    assert f["message"] == (
        "--cuda-graph-bs: this launch's flags are valid together only for SGLang 0.5.2–0.5.19: no release is pinned "
        "and --cuda-graph-bs was removed in SGLang 0.5.20 (it exists in 0.4.1.post5–0.5.19); use "
        "--cuda-graph-bs-decode (SGLang 0.5.23 stops at it: \"ambiguous option: --cuda-graph-bs could match "
        "--cuda-graph-bs-decode, --cuda-graph-bs-prefill\"); and --prefill-round-robin-balance was removed in "
        "SGLang 0.5.20 (it exists in "
        "0.5.2–0.5.19); pin the release (image tag or `engine-version`); judged against 0.5.19 [SGLang 0.5.19]")
    assert [(r["line"], r["column"], r["note"]) for r in f["related"]] == [
        (2, 22, "--prefill-round-robin-balance: not a flag of SGLang 0.5.23 either"),
        (1, 1, "decode launch: python -m sglang.launch_server")]


def test_one_such_flag_is_named_alone(scratch_git):
    code, found = _lint(scratch_git, "--cuda-graph-bs 13")
    assert [f["code"] for f in found] == ["SGL012"]
    assert "; and " not in found[0]["message"]



@pytest.mark.parametrize("flag", ["--cuda-graph-bs=13", "--cuda-graph-max-bs=512", "--cuda-graph-bs 13"])
def test_the_deprecation_is_not_said_again_beside_the_removal(scratch_git, flag):
    """Field test rw22/b (benenzhu/sglang_P run_server.sh, `--cuda-graph-max-bs=512`): the `=` form got SGL008
    "deprecated in 0.5.19" and SGL012 "removed in 0.5.20" on one token, two stories of one fix."""
    code, found = _lint(scratch_git, flag)
    assert [f["code"] for f in found] == ["SGL012"]


def test_a_deprecated_flag_the_newest_release_keeps_is_still_sgl008(scratch_git):
    code, found = _lint(scratch_git, "--enable-dp-attention --dp-size 2 --tp-size 2")
    assert "SGL008" in [f["code"] for f in found] and "SGL012" not in [f["code"] for f in found]
