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


# -- rw30/h P8: GitLab expands variables inside variables ------------------------------------------------------
# GitLab docs (ci/variables, "Use CI/CD variables in other variables"; `variables:expand`, default true): a variable
# whose value names another variable is expanded; `{value: ..., expand: false}` passes the value as written.
# Ground truth of the verdict: SGLang 0.4.6.post1 has no --skip-server-warmup (added in 0.4.9).

NESTED = """\
variables:
  SGL_TAG: v0.4.6.post1-cu124
{image_var}
{more}serve:
  image: $SGL_IMAGE
  script:
    - python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size $TP --skip-server-warmup
"""


def _nested(scratch, image_var='  SGL_IMAGE: "lmsysorg/sglang:$SGL_TAG"', more="  TP: \"2\"\n"):
    scratch.write(".gitlab-ci.yml", NESTED.format(image_var=image_var, more=more))
    return scratch.lint(".")


def test_a_nested_image_variable_pins_the_release(scratch):
    code, report = _nested(scratch)
    assert [l["engine_version"] for l in report["launches"]] == ["0.4.6.post1"]
    assert code == 1 and [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["SGL009"]
    # three levels, and `${NAME}`
    code, report = _nested(scratch, image_var='  SGL_IMAGE: "${SGL_REPO}:$SGL_TAG"',
                           more='  SGL_REPO: "$SGL_ORG/sglang"\n  SGL_ORG: lmsysorg\n  TP: "2"\n')
    assert [l["engine_version"] for l in report["launches"]] == ["0.4.6.post1"]


def test_a_nested_script_variable_is_expanded(scratch):
    # `ARGS: "--tp-size $TP"`: the job's shell gets `--tp-size 2` (it was `$TP`, a false SGL005 "invalid int value")
    scratch.write(".gitlab-ci.yml", "variables:\n  TP: \"2\"\n  ARGS: \"--tp-size $TP\"\nserve:\n"
                                    "  image: lmsysorg/sglang:v0.5.9-cu129\n  script:\n"
                                    "    - python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B $ARGS\n")
    code, report = scratch.lint(".")
    assert code == 0 and not [f for f in report["findings"] if f["severity"] == "error"]


def test_expand_false_and_cycles_stay_as_written(scratch):
    # `expand: false`: `$SGL_TAG` reaches the runner as written; no release read from it
    raw = '  SGL_IMAGE:\n    value: "lmsysorg/sglang:$SGL_TAG"\n    expand: false'
    _, report = _nested(scratch, image_var=raw)
    assert [l["engine_version"] for l in report["launches"]] != ["0.4.6.post1"]
    # a cycle (`A: $B`, `B: $A`) and a doubling chain end (bounded), the launch still checked
    more = '  TP: "2"\n  A: $B\n  B: $A\n' + "".join(f'  L{i}: "{f"$L{i + 1}" * 8}"\n' for i in range(8)) + \
        '  L8: "' + "x" * 40 + '"\n'
    code, report = _nested(scratch, image_var='  SGL_IMAGE: "lmsysorg/sglang:$SGL_TAG$A$L0"', more=more)
    assert len(report["launches"]) == 1


def test_expand_variables_bounds():
    from pdlint.formats.yaml_shell import MAX_EXPAND_CHARS, RawTStr, expand_variables
    from pdlint.text import TStr

    def t(s):
        return TStr(s, ())
    env = {"A": t("$B"), "B": t("$A"), "C": t("c-$D"), "D": t("d"), "R": RawTStr("r-$D", ())}
    assert expand_variables(t("x$A"), env).text == "x$A"  # (A -> $B -> $A: kept)
    assert expand_variables(t("$C/${C}"), env).text == "c-d/c-d"
    assert expand_variables(t("$R"), env).text == "r-$D"
    env.update({f"L{i}": t(f"$L{i + 1}" * 8) for i in range(8)})
    env["L8"] = t("x" * 40)
    assert expand_variables(t("$L0"), env).text == "$L0"  # (8**8 x 40 characters: not made)
    assert len(expand_variables(t("$L2"), env).text) <= MAX_EXPAND_CHARS
