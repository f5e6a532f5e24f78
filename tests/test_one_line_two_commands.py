"""Hostile-input round rw29/h P12: two launches of one source line are two processes when they are two commands
of the script text (a Jinja loop or macro line rendered twice, two commands on one line): the host's ports and GPUs
are compared for them as for launches of two lines (pairing.apart_in_text)."""

import pytest


@pytest.mark.parametrize("name,text", [
    ("loop.sh.j2", '{% for r in ["prefill", "decode"] %}\n'
                   'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {{ r }} &\n'
                   '{% endfor %}\n'),
    ("mac.sh.j2", '{% macro launch(role) %}python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B '
                  '--disaggregation-mode {{ role }} &{% endmacro %}\n{{ launch("prefill") }}\n{{ launch("decode") }}\n'),
    ("one_line.sh", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill & "
                    "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode &\n"),
])
def test_two_commands_of_one_source_line_share_the_host(scratch, name, text):
    # hostile-input round rw29/h P12: a Jinja loop / macro line that renders to two command lines (and two commands
    # on one line) are two processes; launches of one line were never compared: no PD150 / PD151 for the default
    # port 30000 and GPU 0 both take (the same two launches written on two lines got both)
    scratch.write(name, text)
    code, report = scratch.lint(".")
    assert code == 1 and sorted(f["code"] for f in report["findings"]) == ["PD150", "PD151"]


def test_two_commands_of_one_source_line_on_their_own_ports_and_gpus_are_quiet(scratch):
    scratch.write("loop.sh.j2", '{% for r in ["prefill", "decode"] %}\n'
                                'CUDA_VISIBLE_DEVICES={{ loop.index0 }} python3 -m sglang.launch_server --model-path '
                                'Qwen/Qwen3-8B --disaggregation-mode {{ r }} --port 3000{{ loop.index0 }} '
                                '--disaggregation-bootstrap-port 899{{ loop.index0 }} &\n{% endfor %}\n')
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
