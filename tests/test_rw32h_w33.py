"""rw32/h P2 (hostile-input review of 7f4f467): GitLab `variables:` expansion kept per job environment.

``Expansions.of(env)`` memoised a variable's expansion per environment, keyed by the identity of every value of
it, so each of 1,200 jobs with one own variable (`J: "$V0 {j}"`) made again - and kept - the partial expansions of
the file's 21 doubling global variables (V14..V19: thousands of traced pieces each, ~0.45 MB a job): a 150 KB
.gitlab-ci.yml went past the 512 MB budget, "PD008 error: not checked: exceeded 512 MB in yaml", and the launch
typo `--tp-sizee 2` (SGLang's parser: `unrecognized arguments: --tp-sizee 2`) was never shown.  A variable's
expansion is now found by its signature (its value and those of the variables it reaches), shared by the jobs
that do not set what it reads, and the expansions a file makes are bounded in size (MAX_FILE_EXPAND_SIZE): a
pathological file degrades to opaque values, said in the undecided summary.
"""
import textwrap
import tracemalloc

import pytest


def _t(s):
    from pdlint.text import TStr
    return TStr.synthetic(s, "<test>")


def _globals():
    g = {f"V{i}": _t(f"${{V{i + 1}}}" * 4) for i in range(20)}
    g["V20"] = _t("x")
    g["ARGS"] = _t("--tp-sizee 2")
    return g


def _gen(jobs: int, ref: str = "V0") -> str:
    lines = ["variables:"]
    for i in range(20):
        lines.append(f'  V{i}: "' + f"${{V{i + 1}}}" * 4 + '"')
    lines += ['  V20: "x"', '  ARGS: "--tp-sizee 2"']
    for j in range(jobs):
        lines += [f"junk{j}:", "  variables:", f'    J: "${ref} {j}"', "  script:",
                  '    - python -m sglang.launch_server --model-path /m --served-model-name "$J"']
    lines += ["prefill:", "  script:",
              "    - python -m sglang.launch_server --model-path /m --disaggregation-mode prefill $ARGS",
              "decode:", "  script:",
              "    - python -m sglang.launch_server --model-path /m --disaggregation-mode decode"]
    return "\n".join(lines) + "\n"


def test_the_globals_expansions_are_made_once_for_the_jobs_that_do_not_set_them():
    """Each job's environment (the globals and its own `J`, as the walker makes it) expanded with one file's
    Expansions: the memory kept grows by a small constant a job (it was ~450 KB a job: 100 jobs ~45 MB)."""
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    g = _globals()
    ex = Expansions()
    kept = []
    tracemalloc.start()
    try:
        for j in range(100):
            kept.append(expanded_env({**g, "J": _t(f"$V0 {j}")}, ex))
            if j == 9:
                at10 = tracemalloc.get_traced_memory()[0]
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, peak
    assert (now - at10) / 90 < 20_000, (now - at10) / 90  # (bytes kept a job)
    assert MAX_STEPS_A_JOB * 100 > (Expansions().steps_left - ex.steps_left)
    # the same values in every job: V14 (4,096 x) expanded, V13 (16,384) and V0 opaque, J opaque ($V0 too big)
    for out in (kept[0], kept[-1]):
        assert out["V14"].text == "x" * 4096 and not out["V14"].opaque
        assert out["V13"].opaque and out["V0"].opaque and out["J"].opaque
    assert kept[0]["V14"] is kept[-1]["V14"]  # (one expansion, shared)
    # a global reading a job's variable is made for that job; one reading none of them is shared
    jobs = [expanded_env({**g, "X": _t("$TP-$V19"), "TP": _t(tp)}, ex) for tp in ("1", "2")]
    again = expanded_env({**g, "X": _t("$TP-$V19"), "TP": _t("1")}, ex)
    assert [o["X"].text for o in jobs + [again]] == ["1-xxxx", "2-xxxx", "1-xxxx"]
    assert jobs[0]["V19"] is jobs[1]["V19"] is kept[0]["V19"]


MAX_STEPS_A_JOB = 200


def test_a_job_that_sets_what_a_global_reads_gets_its_own_value():
    """The quiet neighbour (passes on the starting code too): GitLab expands a global variable with the job's
    variables (docs, ci/variables: job variables override global ones); a global shared by some jobs is still
    the job's own where the job sets a variable it reaches, deep or not, and cycles stay as written in each job."""
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    g = {"TP": _t("1"), "ARGS": _t("--tp-size $TP $DEEP"), "DEEP": _t("${MID}"), "MID": _t("m-$LEAF"),
         "LEAF": _t("l"), "A": _t("$B"), "B": _t("$A"), "C": _t("c$A")}
    ex = Expansions()
    first = expanded_env(dict(g), ex)
    own_tp = expanded_env({**g, "TP": _t("2")}, ex)
    own_leaf = expanded_env({**g, "LEAF": _t("L2")}, ex)
    own_b = expanded_env({**g, "B": _t("b")}, ex)
    again = expanded_env({**g, "J": _t("$ARGS")}, ex)
    assert first["ARGS"].text == "--tp-size 1 m-l"
    assert own_tp["ARGS"].text == "--tp-size 2 m-l"
    assert own_leaf["ARGS"].text == "--tp-size 1 m-L2" and own_leaf["DEEP"].text == "m-L2"
    assert again["ARGS"].text == "--tp-size 1 m-l" and again["J"].text == "--tp-size 1 m-l"
    assert first["A"].text == "$A" and first["C"].text == "c$A"  # (the cycle: kept as written)
    assert own_b["A"].text == "b" and own_b["C"].text == "cb" and own_b["B"].text == "b"
    # each alone (a fresh Expansions) gives the same
    for env, out in ((dict(g), first), ({**g, "TP": _t("2")}, own_tp), ({**g, "B": _t("b")}, own_b)):
        assert {k: v.text for k, v in expanded_env(env, Expansions()).items()} == {k: v.text for k, v in out.items()}


def test_the_size_of_a_files_expansions_is_bounded():
    """A job variable naming a 4,096-character expansion of 4,096 pieces, in each of many jobs: what the jobs
    keep is bounded by the file's size budget; past it the values are opaque (not expanded), never dropped."""
    from pdlint.formats.yaml_shell import EXPAND_PIECE_SIZE, NOT_EXPANDED_BUDGET, Expansions, expanded_env
    g = _globals()
    ex = Expansions(size=40 * 4097 * (EXPAND_PIECE_SIZE + 1))
    outs = [expanded_env({**g, "J": _t(f"$V14 {j}")}, ex) for j in range(100)]
    made = [o for o in outs if not o["J"].text.startswith("$V14")]
    assert 20 <= len(made) < 40 and ex.size_left < 0
    assert made[0]["J"].text == "x" * 4096 + " 0"
    late = outs[-1]
    # (the reference not expanded, the value's own text kept: rw32/h P11; the file's budget stopped it, not the
    # value's own bounds, and it says so: rw33/h P5)
    assert [p.opaque for p in late["J"][:4].pieces] == [NOT_EXPANDED_BUDGET] and not late["J"][4:].opaque
    assert late["J"].text == "$V14 99" and set(late) == set(g) | {"J"}


def test_many_jobs_and_doubling_globals_are_checked_and_the_typo_found(scratch):
    """The report's shape (rw32/h repro/2), 250 jobs, within 64 MB for the file (the starting code: ~110 MB more
    than without the V chain, "PD008 error: not checked: exceeded 64 MB in yaml"; this code: within 24 MB): the
    file is checked, the prefill job's `--tp-sizee 2` (through the global ARGS) is SGL001 at ARGS's value, each
    junk job's `$V0` (4**20 characters) undecided."""
    scratch.write(".gitlab-ci.yml", _gen(250))
    code, report = scratch.lint("--memory-per-file", "64", ".")
    assert not [f for f in report["findings"] if f["code"] == "PD008"]
    assert len(report["launches"]) == 252
    (typo,) = [f for f in report["findings"] if f["code"] == "SGL001"]
    assert "--tp-sizee" in typo["message"] and typo["line"] == 23
    undecided = report["coverage"]["files"][".gitlab-ci.yml"]["undecided"]
    assert len(undecided) == 250 and all(u["text"].startswith("$V0 ") for u in undecided)


def test_a_job_variable_naming_a_large_expansion_in_many_jobs(scratch):
    """`J: "$V14 {j}"` (4,096 pieces each) in 80 jobs: checked, the typo found; the jobs' J expanded while the
    file's size budget lasts (within it here), their launches decided."""
    scratch.write(".gitlab-ci.yml", _gen(80, "V14"))
    code, report = scratch.lint(".")
    assert not [f for f in report["findings"] if f["code"] == "PD008"]
    assert [f["code"] for f in report["findings"] if f["code"] == "SGL001"] == ["SGL001"]
    undecided = report["coverage"]["files"][".gitlab-ci.yml"].get("undecided", [])
    assert len(undecided) < 40 and all(u["text"].startswith("$V14 ") for u in undecided)


@pytest.mark.parametrize("variables, args", [
    # a reference whose expansion is over the size bound (14 doublings of 10 characters)
    ("".join(f'  V{i}: "${{V{i + 1}}}${{V{i + 1}}}"\n' for i in range(14)) + '  V14: "xxxxxxxxxx"\n',
     "--tp-sizee 2 --served-model-name $V0"),
    # 1,001 references: over the substitutions a value may take
    ('  X: "a"\n', "--tp-sizee 2 --served-model-name " + " ".join(["$X"] * 1001)),
])
def test_a_value_over_the_bounds_keeps_its_own_words(scratch, variables, args):
    """Hostile-input round rw32/h P11 (a regression of 27fe453): a value whose expansion went past the bounds was
    made opaque whole, its literal `--tp-sizee 2` hidden - one PD023 warning, exit 0 (e19f1dc: SGL001, exit 1).
    Only the references are not expanded; the words written beside them are checked."""
    scratch.write(".gitlab-ci.yml", "variables:\n" + variables + f'  ARGS: "{args}"\n' + textwrap.dedent("""\
        prefill:
          script:
            - python -m sglang.launch_server --model-path /m --disaggregation-mode prefill $ARGS
        """))
    code, report = scratch.lint(".gitlab-ci.yml")
    (typo,) = [f for f in report["findings"] if f["code"] == "SGL001"]
    assert "--tp-sizee" in typo["message"] and code == 1
    undecided = report["coverage"]["files"][".gitlab-ci.yml"]["undecided"]
    assert [u["flag"] for u in undecided] == ["--served-model-name"]
