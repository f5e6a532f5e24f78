"""Which values of environment-defaulted switches a script is run again with, and what is said of those not run
(extract._env_runs, ShellContext.env_reach).

Field test rw22/h item 13: four one-line switches ``A="${A:-0}"; if [[ $A -eq 1 ]]; then <prefill>; fi`` before
``if [[ $NODE_RANK -eq 0 ]]; then <decode>; else <prefill with a decode-only flag>; fi`` used up the four extra runs
(MAX_ENV_RUNS) in script order: the NODE_RANK=1 launch was never built and only a generic PD020 said so (exit 0)."""

import pytest

SERVER = "python -m sglang.launch_server --model-path m"


def decoys(names, bad="--enable-linear-replayssm-spec") -> str:
    lines = ["#!/bin/bash", 'NODE_RANK="${NODE_RANK:-0}"']
    lines += [f'{v}="${{{v}:-0}}"; if [[ ${v} -eq 1 ]]; then {SERVER} --disaggregation-mode prefill; fi'
              for v in names]
    lines += ["if [[ $NODE_RANK -eq 0 ]]; then", f"  {SERVER} --disaggregation-mode decode --port 5", "else",
              f"  {SERVER} --disaggregation-mode prefill {bad} --port 6", "fi", ""]
    return "\n".join(lines)


def codes(report) -> list:
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("names", [["A", "B", "C", "D"], ["A", "B", "C", "D", "E", "F"]])
def test_switches_that_reach_the_same_launch_text_do_not_use_up_the_runs(scratch_git, names):
    scratch_git.write("pd.sh", decoys(names))
    code, report = scratch_git.lint("pd.sh")
    assert "SGL101" in codes(report) and code == 1
    assert any("run with NODE_RANK=1" in l["context"] for l in report["launches"])


def test_the_launch_past_the_bound_says_why_and_how_to_check_it(scratch_git):
    scratch_git.write("pd.sh", decoys(["A", "B", "C", "D"], bad=""))
    code, report = scratch_git.lint("pd.sh")
    unchecked = [f for f in report["findings"] if f["code"] == "PD020"]
    assert [f["line"] for f in unchecked] == [6]  # D: the fifth value, its launch the same text as A's
    f = unchecked[0]
    assert "only when the environment sets D=1" in f["message"] and "at most 4" in f["message"]
    assert "--var D=1" in f["fix"]
    assert codes(report) == ["PD020"] and code == 0


def test_three_switches_fit_and_nothing_is_unchecked(scratch_git):
    scratch_git.write("pd.sh", decoys(["A", "B", "C"], bad=""))
    code, report = scratch_git.lint("pd.sh")
    assert codes(report) == [] and code == 0
    assert len(report["launches"]) == 5


def test_a_run_skipped_for_time_says_so_at_the_launch(scratch_git, monkeypatch):
    import pdlint.budget
    monkeypatch.setattr(pdlint.budget, "time_left", lambda: 0.0)
    scratch_git.write("pd.sh", decoys([], bad=""))
    _, report = scratch_git.lint("pd.sh")
    unchecked = [f for f in report["findings"] if f["code"] == "PD020"]
    assert [f["line"] for f in unchecked] == [6]
    assert "time budget" in unchecked[0]["message"] and "--time-per-file" in unchecked[0]["fix"]


def test_a_value_whose_launch_an_earlier_run_built_is_not_run(scratch_git):
    # RANK=1 and RANK=2 reach the same else arm: one run, not two
    scratch_git.write("pd.sh", f"""\
        #!/bin/bash
        R="${{R:-0}}"
        if [[ $R -eq 2 ]]; then echo two; fi
        if [[ $R -eq 0 ]]; then {SERVER} --disaggregation-mode prefill; else {SERVER} --disaggregation-mode decode; fi
        """)
    _, report = scratch_git.lint("pd.sh")
    runs = sorted(l["context"] for l in report["launches"])
    assert len(report["launches"]) == 2 and sum("run with" in c for c in runs) == 1
