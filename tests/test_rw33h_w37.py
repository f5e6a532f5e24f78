"""rw33/h P5 (hostile-input review of e2742fa): GitLab `variables:` - padding jobs spent the file's expansion budget.

A `.gitlab-ci.yml` of 200 chained globals (`V{i}: "$V{i-1}"`), 1,100 jobs each with its own `J` and a launch reading
`$V199`, then `serve:` with `TPV: "banana"`, `TP: "$TPV"`, `--tp-size $TP`: pdlint said "Found 0 errors", exit 0,
`--tp-size $TPV` undecided "write a value whose GitLab `variables:` expand within pdlint's bounds".  SGLang refuses
the value: `argument --tp-size/--tensor-parallel-size: invalid int value: 'banana'` (argparse, `type=int`); without
the padding jobs pdlint said so (SGL005, exit 1).  Instrumented: `_Memo.sig` walked the 200-variable chain again in
each job environment - 219,100 of the file's 200,000 steps (the expansions themselves, shared, took 199).

Now a job environment takes the signatures of the variables that reach nothing it sets from an earlier environment
(the globals), made and charged once; past the file's budget each job environment still has a small allowance of
its own (JOB_EXPAND_STEPS, JOB_EXPAND_SIZE; together at most MAX_FILE_JOB_STEPS / MAX_FILE_JOB_SIZE), and a value the
file's budget - not its own bounds - left unexpanded is said to be so in the undecided summary.
"""
import functools
import random

import pytest


def _t(s):
    from pdlint.text import TStr
    return TStr.synthetic(s, "<test>")


SERVE = ["serve:", "  variables:", '    TPV: "banana"', '    TP: "$TPV"', "  script:",
         "    - python3 -m sglang.launch_server --model-path /m --tp-size $TP --disaggregation-mode prefill"]


def _padded(chain: int, jobs: int) -> str:
    """The report's shape (repro/5: chain 200, 1,100 jobs) at another size."""
    lines = ["variables:", '  V0: "a"'] + [f'  V{i}: "$V{i - 1}"' for i in range(1, chain)]
    for j in range(jobs):
        lines += [f"job{j}:", "  variables:", f'    J: "{j}"', "  script:",
                  f"    - python3 -m sglang.launch_server --model-path /m$V{chain - 1} --disaggregation-mode prefill"]
    return "\n".join(lines + SERVE) + "\n"


def _small_budget(monkeypatch, steps):
    """The walker's Expansions with a smaller file budget (the report's 200,000 steps needed a 150 KB file)."""
    from pdlint.formats import yaml_shell
    monkeypatch.setattr(yaml_shell, "Expansions", functools.partial(yaml_shell.Expansions, steps=steps))


def test_padding_jobs_do_not_leave_a_later_jobs_two_step_value_unexpanded(scratch, monkeypatch):
    """repro/5 at a tenth of the budget: 100 chained globals, 220 padding jobs (22,000 signature steps on the
    starting code, over its 20,000): the serve job's `--tp-size $TP` (TP -> TPV -> banana) is SGL005, exit 1."""
    _small_budget(monkeypatch, 20_000)
    scratch.write(".gitlab-ci.yml", _padded(100, 220))
    code, report = scratch.lint(".")
    (bad,) = [f for f in report["findings"] if f["code"] == "SGL005"]
    assert "invalid int value: 'banana'" in bad["message"] and code == 1
    assert len(report["launches"]) == 221
    # every padding job's --model-path /maaa... decided too (the starting code: those after the budget were not)
    assert not report["coverage"]["files"][".gitlab-ci.yml"].get("undecided")


def test_the_signature_walk_is_charged_once_for_the_jobs_that_share_it():
    """The walker's order (the globals first, then each job's environment): 1,100 jobs with an own `J` cost what
    one does, a few steps a variable of the chain (it was 199 steps a job)."""
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    g = {"V0": _t("a"), **{f"V{i}": _t(f"$V{i - 1}") for i in range(1, 200)}}
    ex = Expansions()
    ex.of(g)
    outs = [expanded_env({**g, "J": _t(str(j))}, ex) for j in range(1100)]
    assert Expansions().steps_left - ex.steps_left < 1_000
    assert outs[0]["V199"].text == outs[-1]["V199"].text == "a" and outs[0]["V199"] is outs[-1]["V199"]
    last = expanded_env({**g, "TPV": _t("banana"), "TP": _t("$TPV")}, ex)
    assert last["TP"].text == "banana" and not last["TP"].opaque


def test_past_the_files_budget_a_job_still_expands_a_few_steps():
    """The file's budget spent by one environment (a 100-variable chain of its own); a later job's `TP: "$TPV"` is
    expanded from its own allowance; a value longer than the allowance is not, and says the budget stopped it."""
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    ex = Expansions(steps=50)
    chain = {"K0": _t("k"), **{f"K{i}": _t(f"$K{i - 1}") for i in range(1, 100)}}
    first = expanded_env(chain, ex)
    assert ex.steps_left < 0 and first["K99"].opaque
    job = expanded_env({"TPV": _t("banana"), "TP": _t("$TPV"), "ARGS": _t("--tp-size $TP")}, ex)
    assert job["TP"].text == "banana" and job["ARGS"].text == "--tp-size banana" and not job["ARGS"].opaque
    from pdlint.formats.yaml_shell import JOB_EXPAND_STEPS, NOT_EXPANDED_BUDGET
    long = {"L0": _t("l"), **{f"L{i}": _t(f"$L{i - 1}") for i in range(1, 2 * JOB_EXPAND_STEPS)}}
    out = expanded_env(long, ex)
    assert [p.opaque for p in out[f"L{2 * JOB_EXPAND_STEPS - 1}"].pieces] == [NOT_EXPANDED_BUDGET]


def test_the_allowances_together_are_bounded():
    """Each of 400 jobs sets the leaf of a 200-variable chain (its expansions its own): the file's budget and the
    allowances are spent, no more (the work stays bounded: rw31/h P2, rw32/h P2)."""
    from pdlint.formats.yaml_shell import JOB_EXPAND_STEPS, MAX_FILE_JOB_STEPS, Expansions, expanded_env
    g = {"V200": _t("a"), **{f"V{i}": _t(f"${{V{i + 1}}}x") for i in range(200)}}
    ex = Expansions(steps=5_000)
    ex.of(g)
    for j in range(400):
        expanded_env({**g, "V200": _t(str(j))}, ex)
    assert ex.steps_left < 0 and 0 < MAX_FILE_JOB_STEPS - ex.jobs_left[0] <= 400 * JOB_EXPAND_STEPS


def test_a_shared_signature_is_the_jobs_own_where_it_must_be():
    """The quiet neighbour: a job environment taking the globals' signatures expands every variable as it does
    alone (a fresh Expansions) - the jobs setting what a global reaches (deep, through a cycle, a new variable a
    global names, a variable removed) and the jobs setting most of them alike."""
    from pdlint.formats.yaml_shell import Expansions, expanded_env
    rnd = random.Random(37)
    names = [f"N{i}" for i in range(30)]

    def value():
        return _t("".join(rnd.choice(["x", "-", f"${rnd.choice(names + ['NEW'])}", f"${{{rnd.choice(names)}}}"])
                          for _ in range(rnd.randint(0, 4))))
    g = {n: value() for n in names}
    ex = Expansions()
    ex.of(g)
    for _ in range(300):
        env = dict(g)
        for n in rnd.sample(names + ["NEW"], rnd.choice([0, 1, 2, 3, 20])):
            env[n] = value()
        for n in rnd.sample(names, rnd.choice([0, 0, 1])):
            env.pop(n, None)
        shared = expanded_env(env, ex)
        alone = expanded_env(dict(env), Expansions())
        assert {k: (v.text, v.opaque) for k, v in shared.items()} == {k: (v.text, v.opaque) for k, v in alone.items()}


def _budget_spent(jobs: int) -> str:
    """Padding jobs each setting the leaf of a chain of 30 globals (their expansions their own), then `serve`,
    whose own `MP` is a chain of 150 (within a value's 1,000 substitutions, over a job's allowance)."""
    lines = ["variables:", '  W30: "w"'] + [f'  W{i}: "${{W{i + 1}}}w"' for i in range(30)]
    for j in range(jobs):
        lines += [f"pad{j}:", "  variables:", f'    W30: "{j}"', "  script:",
                  "    - python3 -m sglang.launch_server --model-path /m$W0 --disaggregation-mode prefill"]
    lines += ["serve:", "  variables:", '    M0: "m"'] + [f'    M{i}: "$M{i - 1}"' for i in range(1, 150)]
    lines += ["  script:", "    - python3 -m sglang.launch_server --model-path /m --served-model-name $M149"
              " --disaggregation-mode prefill"]
    return "\n".join(lines) + "\n"


def test_the_summary_says_the_files_budget_not_the_value_stopped_it(scratch, monkeypatch, capsys):
    """The starting code said "write a value whose GitLab `variables:` expand within pdlint's bounds (8,192
    characters, 1,000 substitutions a value ...)" of a value within those bounds: the file's budget, spent by the
    other jobs, stopped it - the hint now names that cause."""
    _small_budget(monkeypatch, 3_000)
    scratch.write(".gitlab-ci.yml", _budget_spent(60))
    code, report = scratch.lint(".")
    undecided = report["coverage"]["files"][".gitlab-ci.yml"]["undecided"]
    assert "--served-model-name" in [u["flag"] for u in undecided]
    assert {u["cause"] for u in undecided if u["flag"] == "--served-model-name"} == {"file-budget"}
    from pdlint.cli import main
    main(["--no-cache", "."])
    out = capsys.readouterr().out
    assert "the file's expansions together went past pdlint's budget (200,000 substitutions" in out
    assert "not because of" in out and "--served-model-name $M148" in out
    assert "1,000 substitutions a value" not in out  # (not the value's own bounds)


def test_a_value_over_its_own_bounds_keeps_the_value_wording(scratch, capsys):
    """The neighbour: a value over its own bounds (14 doublings of 10 characters: 163,840 > 8,192) is said to be
    over them, not over the file's budget."""
    scratch.write(".gitlab-ci.yml", "variables:\n"
                  + "".join(f'  V{i}: "${{V{i + 1}}}${{V{i + 1}}}"\n' for i in range(14)) + '  V14: "xxxxxxxxxx"\n'
                  + "prefill:\n  script:\n"
                  "    - python -m sglang.launch_server --model-path /m --disaggregation-mode prefill"
                  " --served-model-name $V0\n")
    _, report = scratch.lint(".")
    assert [u["cause"] for u in report["coverage"]["files"][".gitlab-ci.yml"]["undecided"]] == ["expansion-bounds"]
    from pdlint.cli import main
    assert main(["--no-cache", "."]) == 0
    out = capsys.readouterr().out
    assert "expand within pdlint's bounds (8,192 characters, 1,000 substitutions a value" in out
    assert "budget" not in out


@pytest.mark.parametrize("jobs", [1, 40])
def test_a_job_that_sets_a_deep_leaf_gets_its_own_expansion(scratch, jobs):
    """The neighbour in a file: jobs that set the leaf a global chain reaches each get their own value, the
    others the global one (GitLab: a job's variables override the globals a global's value names)."""
    lines = ["variables:", '  LEAF: "1"', '  MID: "$LEAF"', '  TP: "$MID"']
    for j in range(jobs):
        lines += [f"pad{j}:", "  variables:", '    J: "j"', "  script:",
                  "    - python3 -m sglang.launch_server --model-path /m --tp-size $TP --disaggregation-mode decode"]
    lines += ["bad:", "  variables:", '    LEAF: "two"', "  script:",
              "    - python3 -m sglang.launch_server --model-path /m --tp-size $TP --disaggregation-mode prefill"]
    scratch.write(".gitlab-ci.yml", "\n".join(lines) + "\n")
    code, report = scratch.lint(".")
    bad = [f for f in report["findings"] if f["code"] == "SGL005"]
    assert len(bad) == 1 and "invalid int value: 'two'" in bad[0]["message"]
    assert not report["coverage"]["files"][".gitlab-ci.yml"].get("undecided")
