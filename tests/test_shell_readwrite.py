"""`exec 9<>"$lock_path"` (read-write redirection; SemiAnalysisAI/InferenceX's tilert_utils/run_node.sh and
CollectiveX/runtime/prepare_backend.sh) is valid bash that tree-sitter-bash does not parse."""


def test_read_write_redirection_is_no_syntax_error(scratch_git):
    scratch_git.write("run.sh", '#!/bin/bash\nlock_path=/tmp/l\nexec 9<>"$lock_path"\nflock 9\n'
                                "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\n")
    code, report = scratch_git.lint("run.sh")
    assert report["findings"] == [] and code == 0 and len(report["launches"]) == 1


def test_words_keep_their_text(shell_eval):
    cmds, _ = shell_eval("echo '<>' \"a<>b\"\nrun x 3<>f --flag\n")
    assert [[w.text for w in c.words] for c in cmds] == [["echo", "<>", "a<>b"], ["run", "x", "--flag"]]


def test_a_real_syntax_error_is_still_reported(scratch_git):
    scratch_git.write("run.sh", "#!/bin/bash\nif [ x ]; then\npython3 -m sglang.launch_server --model-path m\n")
    _, report = scratch_git.lint("run.sh")
    assert "PD009" in [f["code"] for f in report["findings"]]
