"""PD022 for `--config "$CFG_PATH"` says how to give the variable a value (field test rw19/c: `--var
CFG_PATH=cfg/p.yaml` made the launch checkable, the help only said to reference a file of the repository)."""

SCRIPT = ('#!/bin/bash\npython3 -m sglang.launch_server --model-path m --disaggregation-mode prefill '
          '--config "$CFG_PATH"\n')


def test_the_help_names_the_variable(scratch_git):
    scratch_git.write("a.sh", SCRIPT)
    _, report = scratch_git.lint("a.sh")
    [f] = [f for f in report["findings"] if f["code"] == "PD022"]
    assert "`--var CFG_PATH=PATH`" in f["fix"]


def test_a_literal_missing_path_keeps_the_plain_help(scratch_git):
    scratch_git.write("a.sh", SCRIPT.replace('"$CFG_PATH"', "cfg/missing.yaml"))
    _, report = scratch_git.lint("a.sh")
    [f] = [f for f in report["findings"] if f["code"] == "PD022"]
    assert "--var" not in f["fix"]


def test_the_given_path_is_read(scratch_git):
    scratch_git.write("a.sh", SCRIPT)
    scratch_git.write("cfg/p.yaml", "tp_size: 2\n")
    _, report = scratch_git.lint("--var", "CFG_PATH=cfg/p.yaml", "a.sh")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("SGL020", "cfg/p.yaml")]
