"""GitLab CI (field round rw29/a P11): `image: $VAR` is expanded from the pipeline's and the job's `variables:` (the
release was "not pinned", SGL012), and a job's `parallel: matrix:` runs it once per combination with the values as
variables (`ROLE: [prefill, decode]` with `--disaggregation-mode $ROLE` was PD021, the roles never paired)."""

import pytest

JOB = """\
variables:
  SGL_IMAGE: lmsysorg/sglang:v0.5.9-cu129
pd-smoke:
  image: {image}
{parallel}  script:
    - python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {mode} --port 30000{extra}
"""
MATRIX = "  parallel:\n    matrix:\n      - ROLE: [prefill, decode]\n"


def _lint(scratch, **kw):
    values = {"image": "$SGL_IMAGE", "parallel": "", "mode": "prefill", "extra": ""}
    values.update(kw)
    scratch.write(".gitlab-ci.yml", JOB.format(**values))
    return scratch.lint(".")


@pytest.mark.parametrize("image", ["$SGL_IMAGE", "${SGL_IMAGE}"])
def test_image_variable_pins_the_release(scratch, image):
    code, report = _lint(scratch, image=image)
    assert [l["engine_version"] for l in report["launches"]] == ["0.5.9"]
    assert not [f for f in report["findings"] if f["code"] == "SGL012"]


def test_an_unknown_image_variable_stays_unpinned(scratch):
    _, report = _lint(scratch, image="$OTHER_IMAGE", extra=" --cuda-graph-max-bs 8")
    assert {l["engine_version"] for l in report["launches"]} != {"0.5.9"}


def test_a_role_matrix_runs_the_job_per_role_and_pairs_them(scratch):
    code, report = _lint(scratch, parallel=MATRIX, mode="$ROLE")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert not [f for f in report["findings"] if f["code"] in ("PD021", "PD150")]  # (two runners: no port clash)
    (unit,) = report["pairs"]
    assert len(unit["pairs"]) == 1
    # a role-only flag in the shared script fails on its role only
    code, report = _lint(scratch, parallel=MATRIX, mode="$ROLE", extra=" --enable-linear-replayssm-spec")
    # (SGL101: rejected on a PD prefill server - and 0.5.9 may not know the flag at all: either way the prefill's)
    assert code == 1 and {f["role"] for f in report["findings"] if f["severity"] == "error"} <= {"prefill", None}


def test_a_job_without_a_matrix_keeps_its_variable_unseen(scratch):
    _, report = _lint(scratch, mode="$ROLE")
    assert [f["code"] for f in report["findings"] if f["code"] == "PD021"] == ["PD021"]
