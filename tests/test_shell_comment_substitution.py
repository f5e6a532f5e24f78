"""A comment between flags written as a backquoted substitution (`` `# why` \\ ``, an AWS DeepSeek-R1 PD-over-EFA
``serve-pd.sh``): bash runs the comment and the empty output is no word.  tree-sitter-bash read the closing
backquote as part of the comment, so every later flag fell into one opaque word (PD023) and their errors were
hidden (syntax._comment_substitutions_blanked)."""

SCRIPT = """\
    #!/usr/bin/env bash
    ROLE=${1:?need ROLE}
    case "$ROLE" in
        prefill) PORT=30000 ;;
        decode)  PORT=30001 ;;
    esac
    python3 -m sglang.launch_server \\
        --model-path deepseek-ai/DeepSeek-R1 --tp-size 16 \\
        --disaggregation-mode ${ROLE} --port ${PORT} \\
        `# Unconditional, and not a tuning choice -- see recipe/serve.sh.` \\
        --disable-radix-cache \\
        --page-size 3 --chunked-prefill-size 16384
    """


def test_flags_after_a_comment_substitution_are_checked(scratch_git):
    scratch_git.write("serve.sh", SCRIPT)
    code, report = scratch_git.lint("serve.sh")
    assert sorted((f["code"], f["line"]) for f in report["findings"]) == [("SGL103", 12)]
    assert code == 1


def test_the_comment_gives_no_word(shell_eval):
    cmds, _ = shell_eval("run --a `# why` --b \\\n  `#another` --c\necho '`# q`' x`# w`\n# `# c` --d\n")
    assert [[w.text for w in c.words] for c in cmds] == [["run", "--a", "--b", "--c"], ["echo", "`# q`", "x"]]


def test_comments_inside_a_dash_c_script_string(shell_eval):
    """The same recipe's flags are in `docker run --entrypoint bash IMAGE -c "..."`, three comment lines in a
    row: the flags after them were dropped without a word (a launch with fewer flags, no PD023)."""
    cmds, _ = shell_eval('bash -c "\n  python3 -m sglang.launch_server --port 1 \\\n'
                         '    `# one. The` \\\n    `# two` \\\n    --disable-radix-cache \\\n'
                         '    --mem-fraction-static 0.8\n"\necho "a `# c` b"\n')
    assert [[w.text for w in c.words] for c in cmds][1:] == [
        ["python3", "-m", "sglang.launch_server", "--port", "1", "--disable-radix-cache", "--mem-fraction-static",
         "0.8"], ["echo", "a  b"]]
    assert not any(w.opaque for c in cmds[1:] for w in c.words)


def test_a_clean_list_with_a_comment_is_quiet(scratch_git):
    scratch_git.write("serve.sh", SCRIPT.replace("--page-size 3", "--page-size 64"))
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
