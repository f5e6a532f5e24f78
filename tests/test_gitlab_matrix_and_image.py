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


# -- rw30/h P15: GitLab's bound on `parallel: matrix`, and a sample made without the whole product -------------
# gitlab-org/gitlab lib/gitlab/ci/config/entry/product/matrix.rb: `if number_of_generated_jobs > limit` (limit =
# Entry::Product::Parallel::PARALLEL_LIMIT, 200; its spec: "matrix config generates too many jobs (maximum is 200)"),
# number_of_generated_jobs = the sum over entries of the product of the values' counts.

def _matrix_job(n):
    vals = ", ".join(f"v{i}" for i in range(n))
    return ("serve:\n  image: lmsysorg/sglang:v0.5.9-cu129\n  parallel:\n    matrix:\n"
            f"      - A: [{vals}]\n        B: [{vals}]\n  script:\n"
            "    - python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --served-model-name $A-$B\n")


def test_more_than_200_jobs_is_gitlabs_refusal(scratch):
    scratch.write(".gitlab-ci.yml", _matrix_job(15))  # 225 jobs: GitLab refuses (GitHub's 256 would not)
    _, report = scratch.lint(".")
    (f,) = [f for f in report["findings"] if f["code"] == "PD020"]
    assert "generates 225 jobs, more than the 200 GitLab allows" in f["message"]
    assert "jobs:serve:parallel:matrix config generates too many jobs (maximum is 200)" in f["message"]
    assert "GitHub" not in f["message"] and "GitHub" not in f.get("help", "")


def test_up_to_200_jobs_is_a_cut_in_gitlabs_words(scratch):
    scratch.write(".gitlab-ci.yml", _matrix_job(14))  # 196 jobs: GitLab starts them all
    _, report = scratch.lint(".")
    (f,) = [f for f in report["findings"] if f["code"] == "PD020"]
    assert "generates 196 jobs; pdlint ran its script for 16 of them" in f["message"]
    assert "GitHub" not in f["message"] and "maximum" not in f["message"]
    assert len(report["launches"]) == 16


def test_the_sample_is_made_without_the_product():
    """256 entries of ten two-valued keys (262,144 jobs): the whole product took the 10 s budget (PD008)."""
    import time

    from pdlint.formats import yamltree as yt
    from pdlint.formats.yaml_shell import MAX_MATRIX, gitlab_matrix
    from pdlint.text import TStr
    text = "m:\n" + "".join(("  - " if i == 0 else "    ") + f"K{i}: [a{e}, b{e}]\n"
                            for e in range(256) for i in range(10))
    doc = TStr(text, ())
    root = yt.Ref(yt.compose(text)[0].root)
    start = time.process_time()  # (this process's CPU time: the machine's load does not count - a wall-clock 1 s
    combos, total, runs = gitlab_matrix(doc, yt.get(root, "m"))  # failed at 1.23 s under load; the product: > 10 s)
    assert time.process_time() - start < 2.0
    assert total == 256 * 1024 and len(combos) == len(runs) == MAX_MATRIX
    # each value of each key of the first entries at least once
    assert {c["K3"].text for c in combos} >= {"a0", "b0", "a1", "b1"}


def _roles_by_run(text: str) -> tuple:
    """``(jobs GitLab starts, jobs sampled, run -> the ROLE values sampled in it)`` of the matrix ``m`` of ``text``."""
    from pdlint.formats import yamltree as yt
    from pdlint.formats.yaml_shell import gitlab_matrix
    from pdlint.text import TStr
    root = yt.Ref(yt.compose(text)[0].root)
    combos, total, runs = gitlab_matrix(TStr(text, ()), yt.get(root, "m"))
    by_run: dict = {}
    for c, r in zip(combos, runs):
        by_run.setdefault(r, set()).add(c["ROLE"].text)
    return total, len(combos), by_run


def test_a_role_key_keeps_both_roles_in_each_sampled_run():
    text = "m:\n  - ROLE: [prefill, decode]\n    A: [" + ", ".join(f"x{i}" for i in range(20)) + "]\n"
    total, n, by_run = _roles_by_run(text)
    assert total == 40 and n == 16
    assert all(roles == {"prefill", "decode"} for roles in by_run.values()) and len(by_run) == 8


# -- rw31/h P2: the cost of nested expansion is bounded per file, not per value and per job ----------------------
# 300 doubling global variables (`V0: "$V1$V1"`, ...) and 50 jobs: every job re-expanded every variable, each giving
# up after 1,000 substitutions (15 million in all): the file took the 10 s budget, PD008, nothing checked.

def _doubling(variables=300, jobs=50, flags="--tp-size $V0"):
    lines = ["variables:"] + [f'  V{i}: "$V{i + 1}$V{i + 1}"' for i in range(variables)] + [f"  V{variables}: x"]
    for j in range(jobs):
        lines += [f"job{j}:", "  image: lmsysorg/sglang:v0.5.5", "  script:",
                  f"    - python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 3{j:04d}"
                  + (f" {flags}" if j == 0 else "")]
    return "\n".join(lines) + "\n"


def test_doubling_variables_are_checked_and_the_unexpanded_value_is_said(scratch, capsys):
    scratch.write(".gitlab-ci.yml", _doubling())
    code, report = scratch.lint(".")
    assert not [f for f in report["findings"] if f["code"] == "PD008"]  # (the 10 s budget before; the expansions
    # now take some 600 steps in all: test_each_expansion_is_made_once_per_environment)
    assert len(report["launches"]) == 50
    # `--tp-size $V0`: V0 is 2**300 characters - not expanded, an undecided value (not "$V1$V1" taken as written)
    (u,) = report["coverage"]["files"][".gitlab-ci.yml"]["undecided"]
    assert (u["flag"], u["text"], u["line"]) == ("--tp-size", "$V1$V1", 2) and "name" not in u
    assert not [f for f in report["findings"] if f["code"] == "SGL005"]
    from pdlint.cli import main
    main(["--no-cache", "."])
    out = capsys.readouterr().out
    assert "--tp-size $V1$V1 (.gitlab-ci.yml:2:8)" in out and "expand within pdlint's bounds" in out
    assert "--var V1" not in out


def test_each_expansion_is_made_once_per_environment():
    from pdlint.formats.yaml_shell import NOT_EXPANDED, Expansions, expanded_env
    from pdlint.text import TStr

    def t(s):
        return TStr.synthetic(s, "<test>")
    env = {f"V{i}": t(f"$V{i + 1}$V{i + 1}") for i in range(2000)}
    env["V2000"] = t("x")
    ex = Expansions()
    out = expanded_env(env, ex)
    used = ex.steps_left
    assert Expansions().steps_left - used < 10_000  # (about two steps a variable; it was a thousand a variable)
    assert out["V1999"].text == "xx" and out["V1990"].text == "x" * 1024
    assert out["V0"].text == "$V1$V1" and out["V0"].opaque  # (too big: opaque, kept as written)
    assert all(p.opaque == NOT_EXPANDED for p in out["V0"].pieces)
    assert expanded_env(env, ex) is out and ex.steps_left == used  # (the jobs sharing the variables share it)
    # a chain 2,000 deep without doubling is expanded to its end, as GitLab does (no recursion 2,000 deep)
    chain = {f"C{i}": t(f"$C{i + 1}") for i in range(2000)}
    chain["C2000"] = t("c")
    assert expanded_env(chain, Expansions())["C0"].text == "c"


def test_one_step_budget_for_the_file():
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    from pdlint.text import TStr

    def t(s):
        return TStr.synthetic(s, "<test>")
    ex = Expansions(steps=40)
    first = expanded_env({"A": t("a"), "B": t("$A-$A"), "P": t("p")}, ex)
    assert first["B"].text == "a-a" and not first["B"].opaque
    many = {f"K{i}": t(f"$K{i + 1}") for i in range(100)}
    many["K100"] = t("k")
    out = expanded_env(many, ex)  # (the budget runs out: the values left are opaque, never dropped)
    assert ex.steps_left < 0 and set(out) == set(many)
    assert [k for k, v in out.items() if v.opaque] and all(v.text in ("k", f"${k[:1]}{int(k[1:]) + 1}")
                                                           for k, v in out.items() if v.opaque)


def test_job_variables_override_the_globals_a_global_value_names(scratch):
    """A global `ARGS: "--tp-size $TP"` takes each job's own `TP` (GitLab docs, ci/variables: job variables
    override global ones, and a variable's value is expanded with the job's variables) - the expansion made for
    one job is not another's.  SGLang's parser: `invalid int value: 'two'`."""
    scratch.write(".gitlab-ci.yml", "variables:\n  TP: two\n  ARGS: \"--tp-size $TP\"\n"
                  + "".join(f"job{j}:\n  image: lmsysorg/sglang:v0.5.9-cu129\n{own}  script:\n"
                            f"    - python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 3000{j} $ARGS\n"
                            for j, own in enumerate(["  variables:\n    TP: \"2\"\n", "",
                                                     "  variables:\n    TP: \"4\"\n"])))
    code, report = scratch.lint(".")
    errors = [f for f in report["findings"] if f["code"] == "SGL005"]
    assert len(report["launches"]) == 3 and len(errors) == 1 and "'two'" in errors[0]["message"]


# -- rw31/h P8: a sampled matrix is whole runs, and a run sampled in part is said so ------------------------------
# GitLab starts every job of `parallel: matrix` (lib/gitlab/ci/config/entry/product/matrix.rb): each run (a
# combination of the keys that do not name the roles) has its prefill and its decode job.  The sample was 4 whole
# runs and then 8 prefill-only jobs, and the summary said "no server of the other role in their deployment".

ROLE_MATRIX = """\
serve:
  image: lmsysorg/sglang:v0.5.5
  parallel:
    matrix:
      - ROLE: [prefill, decode]
        TP: ["1", "2", "4", "8"]
        A: [a1, a2, a3]
        B: [b1, b2, b3]
        C: [c1, c2]
  script:
    - python -m sglang.launch_server --model-path m --disaggregation-mode $ROLE --tp-size $TP --served-model-name $A$B$C --port 30000
"""


def test_a_sampled_role_matrix_is_whole_runs(scratch, capsys):
    scratch.write(".gitlab-ci.yml", ROLE_MATRIX)
    code, report = scratch.lint(".")
    runs: dict = {}
    for l in report["launches"]:
        runs.setdefault((l["argv"][5], l["argv"][7]), []).append(l["role"])
    assert len(report["launches"]) == 16 and len(runs) == 8
    assert all(sorted(roles) == ["decode", "prefill"] for roles in runs.values())
    # each value of each key still among them
    assert {tp for tp, _ in runs} == {"1", "2", "4", "8"}
    assert all(any(v in name for _, name in runs) for v in ("a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2"))
    assert report["coverage"]["unpaired_prefill"] == report["coverage"]["unpaired_decode"] == 0
    assert [f["code"] for f in report["findings"]] == ["PD020"]
    from pdlint.cli import main
    main(["--no-cache", "."])
    assert "not paired" not in capsys.readouterr().out


def test_two_entries_naming_one_role_each_are_sampled_as_runs():
    """`[{ROLE: prefill, X: [...]}, {ROLE: decode, X: [...]}]`: the run X=v has its prefill in the first entry
    and its decode in the second; a sampled run takes both."""
    xs = "[" + ", ".join(f"x{i}" for i in range(12)) + "]"
    text = f"m:\n  - ROLE: prefill\n    X: {xs}\n  - ROLE: decode\n    X: {xs}\n"
    total, n, by_run = _roles_by_run(text)
    assert total == 24 and n == 16
    assert len(by_run) == 8 and all(roles == {"prefill", "decode"} for roles in by_run.values())


def test_a_run_larger_than_the_sample_says_its_partner_was_not_sampled(scratch, capsys):
    # one run (TP=1) has 2 x 17 jobs, more than the 16 pdlint runs: its first 16 are prefill jobs; their decode
    # jobs exist (GitLab starts them), pdlint did not run them
    workers = ", ".join([f"prefill-w{i}" for i in range(16)] + ["decode-w0"])
    scratch.write(".gitlab-ci.yml", ROLE_MATRIX.replace('        TP: ["1", "2", "4", "8"]\n        A: [a1, a2, a3]\n'
                                                        '        B: [b1, b2, b3]\n        C: [c1, c2]\n',
                                                        f'        WORKER: [{workers}]\n        TP: ["1", "2"]\n')
                    .replace("$A$B$C", "$WORKER"))
    from pdlint.cli import main
    main(["--no-cache", "."])
    out = capsys.readouterr().out
    assert "16 launches not paired (16 prefill, 0 decode): the jobs of the other role of their matrix run were not " \
           "among those pdlint ran (the matrix's sample, PD020)" in out
    assert "no server of the other role" not in out


def test_a_one_role_deployment_is_still_said_to_have_no_partner(scratch, capsys):
    scratch.write(".gitlab-ci.yml", ROLE_MATRIX.replace("[prefill, decode]", "[prefill]"))
    from pdlint.cli import main
    main(["--no-cache", "."])
    out = capsys.readouterr().out
    assert "16 launches not paired (16 prefill, 0 decode): no server of the other role in their deployment" in out
