"""The evaluation ends where nothing after it can start a launch (pdlint.formats.shell.tails).

Found on SemiAnalysisAI/InferenceX: each benchmark script starts its server, then calls benchmark_lib.sh's
benchmark, eval and result helpers once per path; 0.9 s of a script's 1.1 s went there, and nothing those
helpers do can change a launch.
"""

from pdlint.coverage import has_launch_text

# a helper whose unknown tests fan the paths out until the path limit (PD008): 2^6 paths
FANOUT = "".join(f'  if [ -f "/tmp/r{i}" ]; then R{i}=1; else R{i}=0; fi\n' for i in range(6))
COLLECT = "collect() {\n" + FANOUT + '  echo "$R0 $R1 $R2 $R3 $R4 $R5" > results.txt\n}\n'
LAUNCH = "python3 -m sglang.launch_server --model-path m --tp 2 > server.log 2>&1 &\nPID=$!\n"


def run(shell_eval, script: str):
    return shell_eval(script, launch_text=has_launch_text)


def names(cmds) -> list:
    return [c.words[0].text for c in cmds if c.words]


def servers(cmds) -> list:
    return [" ".join(w.text for w in c.words[3:]) for c in cmds if c.words and c.words[0].text == "python3"]


def test_what_runs_after_the_last_launch_is_not_evaluated(shell_eval):
    script = COLLECT + LAUNCH + "collect\ncurl -s localhost:30000/health\nkill $PID\n"
    cmds, ctx = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2"]
    assert ctx.limit_serials == []  # the helper's 64 paths were never made
    assert "curl" not in names(cmds) and "kill" not in names(cmds)


def test_without_the_launch_test_the_rest_is_evaluated_as_before(shell_eval):
    cmds, ctx = shell_eval(COLLECT + LAUNCH + "collect\ncurl -s localhost:30000/health\n")
    assert len(ctx.limit_serials) == 1 and "curl" in names(cmds)


def test_a_later_launch_is_still_reached(shell_eval):
    script = COLLECT + LAUNCH + "collect\npython3 -m sglang_router.launch_router --port 8000\n"
    cmds, ctx = run(shell_eval, script)
    assert [c.words[2].text for c in cmds if c.words and c.words[0].text == "python3"] == [
        "sglang.launch_server", "sglang_router.launch_router"]


def test_a_command_in_a_variable_is_run(shell_eval):
    script = ('CMD="python3 -m sglang.launch_server --tp 4"\n' + LAUNCH
              + "echo started\n$CMD &\n")
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2", "--tp 4"]


def test_a_module_name_made_of_a_value_and_text_is_run(shell_eval):
    script = 'A="python3 -m sglang"\n' + LAUNCH + "sleep 1\n$A.launch_server --tp 4 &\n"
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2", "--tp 4"]


def test_a_module_name_made_of_two_values_is_run(shell_eval):
    script = 'E=sglang\nM=launch_server\n' + LAUNCH + 'sleep 1\npython3 -m "$E.$M" --tp 4 &\n'
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2", "--tp 4"]


def test_a_function_named_by_a_variable_is_run(shell_eval):
    script = ("start_big() { python3 -m sglang.launch_server --tp 8; }\nH=start_big\n" + LAUNCH
              + 'echo started\n"$H"\n')
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2", "--tp 8"]
    assert not any(c.uncalled for c in cmds)  # called here, not run as a function nobody calls


def test_a_helper_that_starts_a_launch_is_run(shell_eval):
    script = ("start_router() {\n  echo routing\n  python3 -m sglang_router.launch_router --port 8000 &\n}\n"
              + LAUNCH + "sleep 5\nstart_router\n")
    cmds, _ = run(shell_eval, script)
    assert any(c.words[2].text == "sglang_router.launch_router" for c in cmds if c.words[0].text == "python3")


def test_a_shell_string_is_run(shell_eval):
    script = "X='python3 -m sglang.launch_server --tp 4'\n" + LAUNCH + "sleep 5\ntimeout 60 bash -c \"$X\"\n"
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--model-path m --tp 2", "--tp 4"]


def test_a_container_behind_a_wrapper_is_run(shell_eval):
    # vLLM's image starts `vllm serve` with the words after it: a launch without launch text
    script = LAUNCH + "sleep 1\nsudo docker run --gpus all vllm/vllm-openai:v0.9.0 --model m --port 8001\n"
    cmds, _ = run(shell_eval, script)
    assert "sudo" in names(cmds)


def test_a_loop_body_runs_again(shell_eval):
    script = ("for r in prefill decode; do\n"
              "  python3 -m sglang.launch_server --disaggregation-mode $r &\n  sleep 1\n  echo $r\ndone\n")
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--disaggregation-mode prefill", "--disaggregation-mode decode"]


def test_the_rest_of_a_list_runs_after_a_function(shell_eval):
    script = "ready() {\n  echo a\n  echo b\n}\nready && python3 -m sglang.launch_server --tp 2\n"
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--tp 2"]


def test_an_if_runs_its_arm_after_a_function_in_its_condition(shell_eval):
    script = "ready() {\n  echo a\n  return 0\n}\nif ready; then python3 -m sglang.launch_server --tp 2; fi\n"
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--tp 2"]


def test_a_command_substitution_gives_its_output(shell_eval):
    script = "tp() {\n  echo 4\n  true\n}\nTP=$(tp)\npython3 -m sglang.launch_server --tp \"$TP\"\n"
    cmds, _ = run(shell_eval, script)
    assert servers(cmds) == ["--tp 4"]


def test_a_value_from_the_first_argument_is_still_compared(shell_eval):
    # the role names a script compares its $1 with are the roles pdlint runs it with (Extractor.arg_values)
    script = ('ROLE=${1:-}\n' + LAUNCH
              + 'if [ "$ROLE" = prefill ]; then echo p; elif [ "$ROLE" = decode ]; then echo d; fi\n')
    _, ctx = run(shell_eval, script)
    assert set(ctx.arg_values) == {"prefill", "decode"}


def test_a_here_document_with_launch_text_is_read(shell_eval):
    script = LAUNCH + "sleep 1\ncat > worker.sh <<EOF\npython3 -m sglang.launch_server --tp 8\nEOF\n"
    _, ctx = shell_eval(script, launch_text=has_launch_text, heredoc_filter=has_launch_text)
    assert len(ctx.heredocs) == 1


def test_a_flag_cut_off_its_command_is_still_a_command(shell_eval):
    cmds, _ = run(shell_eval, LAUNCH + "sleep 1\n  --mem-fraction-static 0.8\n")
    assert "--mem-fraction-static" in names(cmds)


def test_a_function_the_rest_would_call_is_not_run_as_never_called(shell_eval):
    script = "cleanup() {\n  rm -rf /tmp/x\n  pkill -f worker\n}\n" + LAUNCH + "sleep 1\ncleanup\n"
    cmds, _ = run(shell_eval, script)
    assert "rm" not in names(cmds) and not any(c.uncalled for c in cmds)


def test_an_if_arm_ends_the_run_and_the_statements_after_it(shell_eval):
    script = ("if [ \"$MODE\" = pd ]; then\n  " + LAUNCH.replace("\n", "\n  ") + "collect\nfi\n"
              + "curl -s localhost:30000/health\n")
    cmds, ctx = run(shell_eval, COLLECT + script)
    assert servers(cmds) == ["--model-path m --tp 2"]
    assert ctx.limit_serials == [] and "curl" not in names(cmds)


def test_a_sourced_library_s_helpers_are_not_evaluated_after_the_launch(scratch_git):
    scratch_git.write("lib.sh", COLLECT + "report() {\n  collect\n  echo done\n}\n")
    scratch_git.write("bench.sh", "#!/usr/bin/env bash\nsource \"$(dirname \"$0\")/lib.sh\"\n"
                      "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                      "--disaggregation-transfer-backend fake &\nreport\n")
    code, doc = scratch_git.lint("bench.sh")
    assert [f["code"] for f in doc["findings"]] == ["SGL104"]
    assert len(doc["launches"]) == 1
