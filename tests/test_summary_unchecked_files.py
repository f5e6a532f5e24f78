"""The summary of a run whose config is invalid (field test rw19/c: `ignore = "SGL107"` gave PD012 and then
"No launch text found in 3 files" over a script with three launches: the files were not read at all)."""

SCRIPT = "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\n"


def _text(capsys, *args):
    from pdlint.cli import main
    code = main(["--no-cache", *args])
    return code, capsys.readouterr().out


def test_files_a_broken_config_governs_are_said_not_checked(scratch_git, capsys):
    scratch_git.write("s.sh", SCRIPT)
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nignore = "SGL107"\n')
    code, out = _text(capsys, ".")
    assert "No launch text found" not in out
    assert "1 of 1 file not checked (see above); no launch checked." in out and code == 1


def test_a_clean_run_keeps_its_summary(scratch_git, capsys):
    scratch_git.write("s.sh", SCRIPT)
    code, out = _text(capsys, ".")
    assert "1 launch checked (1 prefill" in out and "not checked (see above)" not in out
