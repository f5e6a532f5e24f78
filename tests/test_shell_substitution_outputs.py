"""A command substitution that prints one of a few texts (kvcache-ai/Mooncake's tone_tests ``common.sh``):

    hf_offline_prefix() {
        if ${docker_exec} "ls /root/.cache/.../config.json >/dev/null 2>&1"; then
            echo "HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "
        fi
    }
    local offline_prefix=$(hf_offline_prefix "$model_path")
    local sglang_cmd="${docker_exec} \\"${offline_prefix}python -m sglang.launch_server ..."

Three things made the whole launch one opaque word glued to ``python`` (PD020, nothing checked):

* the ``docker exec ... bash -c "ls ... >/dev/null 2>&1"`` in the condition was taken to print something
  unknown (its child shell sends everything to /dev/null);
* a command whose standard output is redirected (``ls x >/dev/null``) inside ``$(...)`` was too;
* the function prints either the prefix or nothing, by a condition pdlint cannot decide: the assignment now
  runs once per output (Interpreter.per_output), as an ``if`` with an unknown condition does.
"""

SCRIPT = """\
    #!/bin/bash
    docker_exec="docker exec sglang_test bash -c"

    hf_offline_prefix() {
        local model_name=$1
        [ -z "$model_name" ] && return 0
        if ${docker_exec} "ls /root/.cache/huggingface/hub/${model_name}/config.json >/dev/null 2>&1"; then
            echo "HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "
        fi
    }

    launch() {
        local mode=$1 port=$2 gpu=$3
        local offline_prefix=$(hf_offline_prefix "Qwen/Qwen3-8B")
        local cmd="${docker_exec} \\"${offline_prefix}python -m sglang.launch_server --model-path Qwen/Qwen3-8B \\
            --disaggregation-mode ${mode} --enable-linear-replayssm-spec --port ${port} --base-gpu-id ${gpu}\\""
        eval "$cmd" &
    }

    launch prefill 30000 0
    launch decode 30001 1
    """


def test_each_output_of_a_substitution_is_followed(scratch_git):
    scratch_git.write("run.sh", SCRIPT)
    code, report = scratch_git.lint("run.sh")
    assert sorted((f["code"], f["line"], f["role"]) for f in report["findings"]) == [("SGL101", 16, "prefill")]
    assert code == 1
    said = sorted((l["role"], l["context"].split(" printing ")[1].split(" > ")[0]) for l in report["launches"])
    assert said == [("decode", "'HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1'"), ("decode", "nothing"),
                    ("prefill", "'HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1'"), ("prefill", "nothing")]


def test_the_launch_context_names_the_output(scratch_git, capsys):
    from pdlint.cli import main
    scratch_git.write("run.sh", SCRIPT)
    capsys.readouterr()
    assert main(["show", "run.sh"]) == 0
    out = capsys.readouterr().out
    assert "after $(hf_offline_prefix \"Qwen/Qwen3-8B\") printing 'HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1'" in out
    assert "after $(hf_offline_prefix \"Qwen/Qwen3-8B\") printing nothing" in out


def test_one_output_is_one_path(scratch_git):
    scratch_git.write("run.sh", SCRIPT.replace("--enable-linear-replayssm-spec ", "").replace(
        '        if ${docker_exec} "ls /root/.cache/huggingface/hub/${model_name}/config.json >/dev/null 2>&1"; then\n'
        '            echo "HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "\n        fi\n',
        '        echo "HF_HUB_OFFLINE=1 "\n'))
    code, report = scratch_git.lint("run.sh")
    assert report["findings"] == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


def test_statement_picks(shell_eval):
    """Two substitutions with two outputs each make four paths; the assignment's own value follows each."""
    cmds, _ = shell_eval('f() { if grep x /etc/a >/dev/null; then echo "--a"; else echo "--b"; fi; }\n'
                         'g() { if grep y /etc/b >/dev/null; then echo "--c"; fi; }\n'
                         'X="$(f) $(g)"\nrun $X\n')
    runs = sorted(tuple(w.text for w in c.words) for c in cmds if c.words[0].text == "run")
    assert runs == [("run", "--a"), ("run", "--a", "--c"), ("run", "--b"), ("run", "--b", "--c")]


def test_too_many_outputs_stay_a_placeholder(shell_eval):
    cmds, _ = shell_eval('f() { case "$(hostname)" in a) echo 1;; b) echo 2;; c) echo 3;; d) echo 4;;'
                         ' *) echo 5;; esac; }\nX=$(f)\nrun --n $X\n')
    run = [c for c in cmds if c.words[0].text == "run"]
    assert len(run) == 1 and run[0].words[-1].opaque


def test_an_unknown_output_stays_a_placeholder(shell_eval):
    """Output pdlint cannot know on one of the paths (``cat``): no guess for the others."""
    cmds, _ = shell_eval('f() { if grep x /etc/a >/dev/null; then echo "--a"; else cat /etc/b; fi; }\n'
                         'X=$(f)\nrun $X\n')
    run = [c for c in cmds if c.words[0].text == "run"]
    assert len(run) == 1 and run[0].words[-1].opaque


def test_a_plain_command_with_a_substitution_is_not_forked(shell_eval):
    """Only assignments run once per output: a command would be recorded once more with a placeholder."""
    cmds, _ = shell_eval('f() { if grep x /etc/a >/dev/null; then echo "--a"; fi; }\nrun $(f)\n')
    run = [c for c in cmds if c.words[0].text == "run"]
    assert len(run) == 1 and run[0].words[-1].opaque


def test_output_sent_elsewhere_is_not_captured(shell_eval):
    cmds, _ = shell_eval('X="$(ls /a >/dev/null 2>&1; echo --a)"\nY="$(ls /b 1>&2; echo --b)"\n'
                         'Z="$(ls /c &>/dev/null; echo --c)"\nW="$(ls /d 2>/dev/null; echo --d)"\n'
                         'V="$(ls /e > >(tee x); echo --e)"\nrun $X $Y $Z $W $V\n')
    run = [c for c in cmds if c.words[0].text == "run"][0]
    assert [w.text for w in run.words[:4]] == ["run", "--a", "--b", "--c"]
    assert [w.opaque for w in run.words[1:]] == [False, False, False, True, True]


def test_what_a_child_shell_prints(shell_eval):
    cmds, _ = shell_eval('A=$(docker exec c bash -c "ls /x >/dev/null 2>&1")\n'
                         'B=$(docker exec c bash -c "echo --b")\n'
                         'C=$(docker exec c bash -c "ls /x")\n'
                         'D=$(docker run -d img bash -c "echo --d")\n'
                         'run --a "$A" $B $C $D\n')
    run = [c for c in cmds if c.words[0].text == "run"][0]
    assert [w.text for w in run.words[:4]] == ["run", "--a", "", "--b"]
    assert [w.opaque for w in run.words[4:]] == [True, True]


def test_commands_that_print_nothing(shell_eval):
    """``mkdir -p``, ``rm -f``, ``sleep``, ``grep -q`` print nothing: the ``echo`` after them is the output."""
    cmds, _ = shell_eval('d() { mkdir -p /tmp/x; rm -f /tmp/x/a; sleep 1; echo --a; }\n'
                         'q() { if grep -q y /etc/b; then echo --c; else echo --d; fi; }\n'
                         'v() { mkdir -pv /tmp/y; echo --b; }\n'
                         'g() { grep y /etc/b; echo --e; }\n'
                         'A=$(d)\nB=$(q)\nrun $A $B $(v) $(g)\n')
    runs = sorted(tuple((w.text, w.opaque) for w in c.words[1:3]) for c in cmds if c.words[0].text == "run")
    assert runs == [(("--a", False), ("--c", False)), (("--a", False), ("--d", False))]
    run = [c for c in cmds if c.words[0].text == "run"][0]
    assert [w.opaque for w in run.words[3:]] == [True, True]


def test_a_nested_child_does_not_speak_for_its_parent(shell_eval):
    """The outer child prints something unknown (``ls``); the inner one's known output is not the outer's."""
    cmds, _ = shell_eval('A=$(ssh h "ls /x; bash -c \'echo --inner\'")\nrun --a "$A"\n')
    run = [c for c in cmds if c.words[0].text == "run"][0]
    assert run.words[-1].opaque


def test_a_path_keeps_its_choice_in_a_loop(shell_eval):
    """Ten iterations of ``X=$(f)`` are two paths (the output taken first, again), not 2**10 cut at the path
    limit: a path that took one output of a substitution takes it again."""
    cmds, ctx = shell_eval('f() { if grep -q x /etc/a; then echo "--a"; else echo "--b"; fi; }\n'
                           'Y=""\nfor i in 1 2 3 4 5 6 7 8 9 10; do\n  X=$(f)\n  Y="$Y $X"\ndone\nrun $Y\n')
    runs = sorted(tuple(w.text for w in c.words) for c in cmds if c.words[0].text == "run")
    assert runs == [("run",) + ("--a",) * 10, ("run",) + ("--b",) * 10]


def test_a_second_call_takes_the_same_output(scratch_git):
    """Both calls of ``launch`` see one answer of ``hf_offline_prefix`` per path: two paths, and each decode
    launch says which output it follows."""
    scratch_git.write("run.sh", SCRIPT)
    code, report = scratch_git.lint("run.sh")
    assert len(report["launches"]) == 4
    assert all(" printing " in l["context"] for l in report["launches"])
