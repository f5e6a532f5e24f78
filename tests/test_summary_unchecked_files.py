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


def test_a_pulled_in_file_whose_finding_was_left_out_is_named(scratch_git, capsys, tmp_path):
    """A commit names run_prefill.sh; its sibling run_decode.sh, a symlink out of the repository, is refused (PD001),
    a finding the run leaves out (it involves no named file): the summary named no file and said "see above" over
    nothing (field test rw20/h)."""
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "run_decode.sh").write_text(SCRIPT.replace("prefill", "decode"))
    scratch_git.write("run_prefill.sh", SCRIPT)
    (scratch_git.root / "run_decode.sh").symlink_to(outside / "run_decode.sh")
    code, out = _text(capsys, "run_prefill.sh")
    assert "1 file not checked (run_decode.sh: check it to see why)." in out and "see above" not in out
    code, out = _text(capsys, ".")
    assert "1 file not checked (see above)." in out and code == 1
