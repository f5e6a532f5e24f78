"""`vllm-version` / `--vllm-version` (field test rw19/c: `vllm-version: 'banana'` was accepted and every vLLM
launch silently judged against the oldest table; there was no command-line flag, as `--sglang-version` is)."""

LAUNCH = "vllm serve m --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",\"kv_role\":\"kv_producer\"}'\n"


def test_the_command_line_release(scratch_git):
    scratch_git.write("v.sh", LAUNCH)
    _, report = scratch_git.lint("v.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM032"]  # unpinned: registered by older releases only
    code, report = scratch_git.lint("--vllm-version", "0.10.2", "v.sh")
    assert report["findings"] == [] and code == 0
    code, report = scratch_git.lint("--vllm-version", "0.33.0", "v.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM031"] and code == 1


def test_a_name_that_is_no_release(scratch_git, capsys):
    from pdlint.cli import main
    scratch_git.write("v.sh", LAUNCH)
    assert main(["--no-cache", "--vllm-version", "banana", "v.sh"]) == 2
    assert "unknown vLLM release 'banana'" in capsys.readouterr().err
    scratch_git.write("pyproject.toml", "[tool.pdlint]\nvllm-version = \"banana\"\n")
    code, report = scratch_git.lint("v.sh")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("PD012", "pyproject.toml")] and code == 1
    scratch_git.write("pyproject.toml", "[tool.pdlint]\nvllm-version = \"0.10.2\"\n")
    code, report = scratch_git.lint("v.sh")
    assert report["findings"] == [] and code == 0
