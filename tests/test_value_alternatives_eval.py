"""Field test rw30/a P2: a program chosen by a multi-line ``if``/``elif``/``else`` (``VLLM_BIN=...`` in each arm), then a
command built as a string and run through ``eval "$CMD &"`` or ``bash -c "$CMD" &``: pdlint builds one launch per
arm, and the launch of each took its line from the arm's assignment, so PD150 / PD151 compared the arms'
variants of one server with one another as if all ran (ddps-lab/vllm-disaggregation
tests/v1/kv_offload/tiering/p2p/run_accuracy_test.sh: "port 8100 is used twice on this host").  Only one arm runs:
the variants are never compared (pairing.value_variants); two real servers of one script still are, through
``eval`` as written literally (pairing.apart_in_text).

Ground truth: bash runs one arm of an ``if``; ``eval`` / ``bash -c`` run the text once per statement executed."""

import pytest

_IF = ("if [[ -x /opt/venv/bin/python ]]; then\n"
       "    PY=/opt/venv/bin/python\n"
       "elif [[ -x /ws/venv/bin/python ]]; then\n"
       "    PY=/ws/venv/bin/python\n"
       "else\n"
       "    PY=$(command -v python3)\n"
       "fi\n")
_SGL = "$PY -m sglang.launch_server --model-path Qwen/Qwen3-0.6B"


def _codes(report):
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("run", ['eval "$CMD &"', 'bash -c "$CMD" &'])
def test_arms_of_one_value_are_not_two_servers(scratch, run):
    # before: 3 prefill + 3 decode variants, PD150 on 30000 / 30001 / 8998 and PD151 on GPUs 0 and 1 between arms
    scratch.write("run.sh", "#!/bin/bash\n" + _IF +
                  f'CMD="CUDA_VISIBLE_DEVICES=0 {_SGL} --port 30000 --disaggregation-mode prefill"\n{run}\n'
                  f'CMD="CUDA_VISIBLE_DEVICES=1 {_SGL} --port 30001 --disaggregation-bootstrap-port 8999 '
                  f'--disaggregation-mode decode"\n{run}\nwait\n')
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]).count("prefill") == 3  # (the arms are still all checked)


def test_vllm_bin_from_an_if_else_through_eval_is_quiet(scratch):
    # the report's repro/2/run.sh: 4 x PD150 (8100, 8200, 5600, 5700) + 2 x PD151 before
    scratch.write("run.sh", '#!/bin/bash\nif [[ -x "/opt/venv/bin/vllm" ]]; then\n    VLLM_BIN="/opt/venv/bin/vllm"\n'
                  'else\n    VLLM_BIN="$(command -v vllm)"\nfi\n'
                  'CMD="CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5600 ${VLLM_BIN} serve Qwen/Qwen3-0.6B '
                  '--port 8100 --kv-transfer-config \'{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":'
                  '\\"kv_producer\\"}\'"\neval "$CMD &"\n'
                  'CMD="CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5700 ${VLLM_BIN} serve Qwen/Qwen3-0.6B '
                  '--port 8200 --kv-transfer-config \'{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":'
                  '\\"kv_consumer\\"}\'"\neval "$CMD &"\nwait\n')
    code, report = scratch.lint(".")
    assert len(report["launches"]) == 4
    assert report["findings"] == [] and code == 0


def test_two_real_servers_on_one_port_through_eval_still_collide(scratch):
    scratch.write("run.sh", "#!/bin/bash\n" + _IF +
                  f'CMD="CUDA_VISIBLE_DEVICES=0 {_SGL} --port 30000 --disaggregation-mode prefill"\neval "$CMD &"\n'
                  f'CMD="CUDA_VISIBLE_DEVICES=1 {_SGL} --port 30000 --disaggregation-bootstrap-port 8999 '
                  f'--disaggregation-mode decode"\neval "$CMD &"\nwait\n')
    code, report = scratch.lint(".")
    assert code == 1 and _codes(report) == ["PD150"]
    assert "port 30000 is used twice" in report["findings"][0]["message"]


def test_a_loop_of_servers_through_eval_still_collides(scratch):
    # two prefills on the default bootstrap port 8998 and one --port: two processes of every arm's variant
    scratch.write("run.sh", "#!/bin/bash\n" + _IF +
                  f'for i in 0 1; do\n  CMD="CUDA_VISIBLE_DEVICES=$i {_SGL} --port 30000 --disaggregation-mode '
                  f'prefill"\n  eval "$CMD &"\ndone\nwait\n')
    code, report = scratch.lint(".")
    assert code == 1 and set(_codes(report)) == {"PD150"}
    messages = " ".join(f["message"] for f in report["findings"])
    assert "port 30000 is used twice" in messages and "port 8998 is used twice" in messages


@pytest.mark.parametrize("text", [
    # two commands in one evaluated string, written in place
    'eval "CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --port 30000 '
    '--disaggregation-mode prefill & CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path '
    'Qwen/Qwen3-0.6B --port 30000 --disaggregation-bootstrap-port 8999 --disaggregation-mode decode &"\n',
    # two commands in one variable's text, the program from an if/else
    _IF + f'CMD="CUDA_VISIBLE_DEVICES=0 {_SGL} --port 30000 --disaggregation-mode prefill & '
          f'CUDA_VISIBLE_DEVICES=1 {_SGL} --port 30000 --disaggregation-bootstrap-port 8999 '
          f'--disaggregation-mode decode"\neval "$CMD &"\n',
])
def test_two_commands_of_one_evaluated_text_still_collide(scratch, text):
    # (the first was a miss before: both launches had the eval's line and statement)
    scratch.write("run.sh", "#!/bin/bash\n" + text + "wait\n")
    code, report = scratch.lint(".")
    assert code == 1 and set(_codes(report)) == {"PD150"}
    assert all("port 30000 is used twice" in f["message"] for f in report["findings"])
