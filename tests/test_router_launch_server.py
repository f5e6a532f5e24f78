"""`python -m sglang_router.launch_server` (and sglang-router's CLI `server` sub-command, which runs its main):
SGLang servers and a router started from ONE argparse parser (field test rw34/a P5, NVIDIA nv-sflow's sample
`slurm_sglang_server_client`).

Ground truth, sglang-router 0.3.2 `sglang_router/launch_server.py` main::

    ServerArgs.add_cli_args(parser)
    RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)
    parser.add_argument("--router-dp-worker-base-port", type=int, default=31000, ...)
    args = parser.parse_args()

(`router_args.py:159` `prefix = "router-" if use_router_prefix else ""`; `--worker-urls` is registered without the
prefix; `cli.py` `server`: `sys.argv = [f"{prog_name} server"] + unknown; launch_server_module.main()`).
The SGLang 0.5.23 oracle refuses the server half of the repro: "unrecognized arguments: --tensor-paralel-size 4".
pdlint 5939e48 counted the launch as a router "its options not checked: pdlint has no table of them", exit 0.
"""

import pytest

from pdlint.text import TStr

REPRO = """\
#!/bin/bash
python -m sglang_router.launch_server --model-path Qwen/Qwen3-0.6B-FP8 \\
  --host 0.0.0.0 --port 8000 \\
  --tensor-paralel-size 4 \\
  --dp-size 2 --router-policy round_robin
"""


def _codes(report) -> list:
    return [(f["code"], f["line"], f["column"], f["message"].split(" (")[0]) for f in report["findings"]]


def test_repro_a_typo_in_the_server_half_is_sgl001(scratch):
    scratch.write("run.sh", REPRO)
    code, report = scratch.lint("run.sh")
    assert code == 1
    assert _codes(report) == [("SGL001", 4, 3, "unrecognized arguments: --tensor-paralel-size 4")]
    assert [(l["kind"], l["engine"], l["entrypoint"]) for l in report["launches"]] == [
        ("server", "sglang", "python -m sglang_router.launch_server")]


@pytest.mark.parametrize("entry", ["sglang-router server", "python -m sglang_router server",
                                   "python3 -m sglang_router.launch_server"])
def test_the_cli_server_forms_are_checked_too(scratch, entry):
    scratch.write("run.sh", f"{entry} --model-path m --tp-sz 2 --router-policy random\n")
    code, report = scratch.lint("run.sh")
    assert code == 1
    assert [c[0] for c in _codes(report)] == ["SGL001"]
    assert [l["kind"] for l in report["launches"]] == ["server"]


def test_the_router_words_are_not_server_flags(scratch):
    """The nv-sflow sample's shape plus every kind of router word: prefixed options with one value, a flag, a list
    (`--router-prometheus-duration-buckets`), the unprefixed `--worker-urls` list and launch_server's own
    `--router-dp-worker-base-port`: SGLang's server parser never sees them, nothing is reported."""
    scratch.write("run.sh", """\
        pip install sglang-router==0.3.2
        python -m sglang_router.launch_server --model-path Qwen/Qwen3-8B --fp8-gemm-backend auto \\
          --tensor-parallel-size 4 --dp-size 2 --host 0.0.0.0 --port 8000 \\
          --router-policy cache_aware --router-dp-aware --router-prometheus-duration-buckets 0.1 1 10 \\
          --worker-urls http://a:1 http://b:2 --router-dp-worker-base-port 31000 --router-log-level info
        """)
    code, report = scratch.lint("run.sh")
    assert (code, _codes(report)) == (0, [])


def test_a_bad_router_word_is_pd111_with_the_prefixed_name(scratch):
    """launch_server's parser knows `--router-policy` (choices random, round_robin, cache_aware, power_of_two,
    manual) and no `--router-polcy`: argparse's "invalid choice" / "unrecognized arguments" (PD111, an error beside
    a pinned sglang-router release)."""
    scratch.write("run.sh", """\
        pip install sglang-router==0.3.2
        python -m sglang_router.launch_server --model-path m --router-policy cache_awar --router-polcy random
        """)
    code, report = scratch.lint("run.sh")
    found = [(f["code"], f["severity"], f["column"], f["message"]) for f in report["findings"]]
    assert [(c, s, col) for c, s, col, _ in found] == [("PD111", "error", 70), ("PD111", "error", 81)]
    assert found[0][3].startswith("argument --router-policy: invalid choice: 'cache_awar'")
    assert "did you mean cache_aware?" in found[0][3]
    assert found[1][3].startswith("unrecognized arguments: --router-polcy")
    assert "did you mean --router-policy?" in found[1][3]


def test_launch_router_keeps_its_unprefixed_table(scratch):
    """`sglang_router.launch_router` is unchanged: a router, judged with parse_router_args' own option names."""
    scratch.write("run.sh", "pip install sglang-router==0.3.2\n"
                            "python -m sglang_router.launch_router --worker-urls http://a:1 --policy random\n"
                            "python -m sglang_router.launch_router --worker-urls http://a:1 --router-policy random\n")
    code, report = scratch.lint("run.sh")
    assert [(c, l) for c, l, _, _ in _codes(report)] == [("PD111", 3)]
    assert [l["kind"] for l in report["launches"]] == ["router", "router"]


def _words(line: str) -> list:
    return [TStr.synthetic(w, "test") for w in line.split()]


def test_split_server_argv():
    from pdlint.engines.sglang import router_flags
    argv = _words("--model-path m --router-policy random --tp 2 --worker-urls http://a:1 http://b:2 --dp 2 "
                  "--router-dp-aware --router-prefill http://p:1 8998 --router-decode http://d:2 --port 1 "
                  "--router-polcy x y --mem-fraction-static 0.8 -- --router-policy")
    server, router = router_flags.split_server_argv(argv)
    assert [t.text for t in server] == ["--model-path", "m", "--tp", "2", "--dp", "2", "--port", "1",
                                        "--mem-fraction-static", "0.8", "--", "--router-policy"]
    assert [t.text for t in router] == ["--router-policy", "random", "--worker-urls", "http://a:1", "http://b:2",
                                        "--router-dp-aware", "--router-prefill", "http://p:1", "8998",
                                        "--router-decode", "http://d:2", "--router-polcy", "x", "y"]
