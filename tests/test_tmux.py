"""``tmux send-keys "COMMAND" C-m`` and ``tmux new-window 'COMMAND'``: a tutorial pattern that starts each server
in a pane (triton-inference-server/triton_distributed examples/python_rs/llm/vllm/scripts/disaggregated.sh, field
test rw11/b). The typed line runs in the pane's shell; it was PD020 ("launch text not checked")."""

import pytest

from pdlint.launchers import tmux_script
from pdlint.text import TStr

SCRIPT = """\
#!/bin/bash
SESSION=pd
COMMON="--model-path Qwen/Qwen3-8B --enable-linear-replayssm-spec"
tmux new-session -d -s $SESSION
tmux split-window -h -t $SESSION
tmux send-keys -t $SESSION:0.0 "CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server $COMMON --disaggregation-mode prefill --port 30000" C-m
tmux send-keys -t $SESSION:0.1 "CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server $COMMON --disaggregation-mode decode --port 30001" Enter
tmux new-window -t $SESSION "python -m sglang_router.launch_router --pd-disaggregation --prefill http://localhost:30000 --decode http://localhost:30001"
tmux attach -t $SESSION
"""


def test_commands_typed_into_tmux_panes_are_checked(scratch_git):
    scratch_git.write("run.sh", SCRIPT)
    code, doc = scratch_git.lint("run.sh")
    assert [(f["code"], f["role"], f["line"]) for f in doc["findings"]] == [("SGL101", "prefill", 3)]
    assert sorted((l["role"] or l["kind"], l["context"]) for l in doc["launches"]) == [
        ("decode", "tmux at line 7"), ("prefill", "tmux at line 6"), ("router", "tmux at line 8")]


def test_text_typed_without_enter_is_not_run(scratch_git):
    # `-l` types key names literally, and a line with no Enter is never run: still launch text not checked
    scratch_git.write("run.sh", "tmux send-keys -l -t pd 'python -m sglang.launch_server --model-path m' C-m\n"
                                "tmux send-keys -t pd 'vllm serve m --port 8000'\n")
    code, doc = scratch_git.lint("run.sh")
    assert doc["launches"] == []
    assert [f["code"] for f in doc["findings"]] == ["PD020", "PD020"]


def _words(*texts):
    return [TStr.synthetic(t, "<t>") for t in texts]


@pytest.mark.parametrize("words, typed", [
    (("tmux", "send-keys", "-t", "s:0", "vllm serve m", "C-m"), "vllm serve m"),
    (("tmux", "-L", "sock", "send", "C-c", "cd /w", "Enter", "vllm", "Space", "serve m", "KPEnter"),
     "cd /w\nvllm serve m"),
    (("tmux", "send-keys", "-N", "2", "-t", "s", "x", "y", "Enter"), "xy"),  # words typed with no space between
    (("tmux", "send-keys", "-t", "s", "vllm serve m"), None),  # never entered
    (("tmux", "send-keys", "-lt", "s", "vllm serve m", "Enter"), None),
    (("tmux", "new-session", "-d", "-s", "pd", "-c", "/w", "vllm serve m"), "vllm serve m"),
    (("tmux", "new-window", "vllm", "serve", "m"), None),  # several words: run as argv, not typed (not read)
    (("tmux", "select-pane", "-t", "2"), None),
])
def test_tmux_script(words, typed):
    got = tmux_script(_words(*words), 0)
    assert (got.text if got is not None else None) == typed
