"""The evaluator follows eval / source / function calls / sh -c eight levels deep.

kvcache-ai/Mooncake's tone tests start every server five calls and an eval down (run_test > run_single_model >
start_server > launch_sglang_server > launch_and_track_process > eval "$full_cmd"): at four levels pdlint left
all four prefill/decode servers unchecked with a PD008 error.
"""

from pdlint.coverage import has_launch_text

CHAIN = """\
track() { eval "$1"; }
launch() { local cmd="python3 -m sglang.launch_server --model-path m --disaggregation-mode $1 &"; track "$cmd"; }
start() { launch "$1"; }
single() { start prefill; start decode; }
run() { single; }
main() { run; }
main
"""


def test_a_launch_six_levels_down_is_checked(shell_eval):
    cmds, ctx = shell_eval(CHAIN, launch_text=has_launch_text)
    assert ctx.limit_serials == []
    assert [c.words[-1].text for c in cmds if c.words[0].text == "python3"] == ["prefill", "decode"]


def test_nine_levels_still_hit_the_limit(shell_eval):
    deeper = CHAIN.replace("main() { run; }\nmain\n", "main() { run; }\nx() { main; }\ny() { x; }\nz() { y; }\nz\n")
    cmds, ctx = shell_eval(deeper, launch_text=has_launch_text)
    assert len(ctx.limit_serials) == 1
    assert not [c for c in cmds if c.words[0].text == "python3"]
