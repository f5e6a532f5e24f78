"""vLLM short option strings (`-ep`, `-dpl`, `-dpa`, `-dpr`, `-n`, `-cc`, ...) keyed by their long name.

Field round rw28/b P9's follow-up (fix helper w13): argparse stores a short option under its dest, the long name's;
pdlint kept `-dpl 2` under `-dpl`, so every check that reads `--data-parallel-size-local` (the GPUs a launch uses,
PD153) missed it.  Only `-tp`, `-pp`, `-dp`, `-q` were read (a hand list).  Ground truth, vLLM 0.33.0 (`vllm serve`
sub-command path, CPython 3.11.7):

* `M -ep -dpl 2 -dpa 10.0.0.1 -dpr 3`  ACCEPT, enable_expert_parallel=True, data_parallel_size_local=2,
  data_parallel_address='10.0.0.1', data_parallel_start_rank=3
* `M -asc 4 -cc '{"mode":3}' -ac '{}'`  ACCEPT, api_server_count=4, compilation_config.mode=3
* `M -n 2 -r 1`  ACCEPT (nnodes 2, node_rank 1); `M -ep -ep`  ACCEPT
"""

from pdlint.engines.vllm import flags
from pdlint.engines.vllm.engine import parse_argv
from pdlint.text import TStr


from test_vllm_end_of_options import _codes, _run  # (tests/ is on sys.path under pytest)


def _info(words):
    return parse_argv([TStr.synthetic(w, "<t>") for w in words], "vllm serve", flags.load("0.33.0"))


def test_every_short_option_is_read_under_its_long_name():
    info = _info(["M", "-ep", "-dpl", "2", "-dpa", "10.0.0.1", "-dpr", "3", "-asc", "4", "-n", "2", "-r", "1",
                  "-cc", '{"mode": 3}', "-dph"])
    assert info.has("--enable-expert-parallel") and info.has("--data-parallel-hybrid-lb")
    assert info.int("--data-parallel-size-local") == 2 and info.int("--data-parallel-start-rank") == 3
    assert info.text("--data-parallel-address") == "10.0.0.1" and info.int("--api-server-count") == 4
    assert info.int("--nnodes") == 2 and info.int("--node-rank") == 1
    assert info.text("--compilation-config") == '{"mode": 3}'
    assert not any(name.startswith("-") and not name.startswith("--") for name in info.opts)
    # the name token is still the word written (findings point at `-dpl`)
    assert info.opts["--data-parallel-size-local"].name_tok.text == "-dpl"


def test_a_rule_reading_the_long_name_sees_the_short_spelling(scratch_git):
    """`-dpl 2` is the launch's local DP size: two replicas of TP 2 need 4 GPUs on this node, it has 2 (PD153).
    Before, `-dpl` was unseen: with --nnodes 2 and no local size the GPUs per node were unknown, nothing said."""
    report = _run(scratch_git, "CUDA_VISIBLE_DEVICES=0,1 vllm serve /models/llama --port 8100 -tp 2 -dp 4 -dpl 2 "
                               "--nnodes 2 -dpa 10.0.0.1\n")
    [(line, _, msg)] = _codes(report, "PD153")
    assert line == 1 and "uses 4" in msg
    assert [f for f in report["findings"] if f["code"].startswith("VLLM")] == []


def test_the_long_and_short_spellings_give_the_same_findings(scratch_git):
    """Quiet neighbour: the short spellings of a launch that fits its GPUs add nothing."""
    short = _run(scratch_git, "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /models/llama --port 8100 -tp 2 -dp 4 -dpl 2 "
                              "-n 2 -dpa 10.0.0.1 -ep -dpr 0\n")
    assert [f["code"] for f in short["findings"] if f["severity"] == "error"] == []
    long_ = _run(scratch_git, "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve /models/llama --port 8100 "
                              "--tensor-parallel-size 2 --data-parallel-size 4 --data-parallel-size-local 2 "
                              "--nnodes 2 --data-parallel-address 10.0.0.1 --enable-expert-parallel "
                              "--data-parallel-start-rank 0\n")
    assert [f["code"] for f in short["findings"]] == [f["code"] for f in long_["findings"]]


def test_findings_on_a_short_option_name_what_was_written(scratch_git):
    report = _run(scratch_git, """vllm serve /models/llama --port 8200 -cc '{"mode": 3}' -cc.cudagraph_mode FULL """
                               """-dpl 2 -dpl 4 -dpr\n""")
    [(_, col, msg)] = _codes(report, "VLLM041")
    assert col == 43 and msg.startswith("this -cc value is replaced by the -cc.cudagraph_mode... argument: vLLM "
                                        "passes dotted keys as one more -cc after all others")
    [(_, col, msg)] = _codes(report, "VLLM038")  # (the dead value, `2`)
    assert col == 85 and "--data-parallel-size-local is given 2 times" in msg
    [(_, col, msg)] = _codes(report, "VLLM048")
    assert col == 94 and msg.startswith("argument --data-parallel-start-rank/-dpr: expected one argument")


def test_a_single_dash_word_after_h_is_reported_with_vllms_own_message(scratch_git):
    """rw30/a note (llm-d/llm-d-benchmark wide-ep-lws.yaml: `vllm serve ... -host 0.0.0.0`): argparse reads `-host`
    as the help option `-h` with `ost` attached, and since `-o` is no option of the parser stops with that (CPython
    3.11 argparse ``consume_optional``).  Ground truth, vLLM 0.33.0 oracle (CPython 3.11.7):

    * `M -host 0.0.0.0`  REJECT "argument -h/--help: ignored explicit argument 'ost'"
    * `M -hostt 1`  REJECT "argument -h/--help: ignored explicit argument 'ostt'"
    * `M -hx`  REJECT "argument -h/--help: ignored explicit argument 'x'"
    * `M -hq fp8`  exit 0 with the help printed (`-q` takes the value; help runs first)
    * `M -port 1`  REJECT "unrecognized arguments: -port 1" (`-p` is no option: no `-h` rule)

    pdlint said "unrecognized arguments: -host", a message vLLM does not print; the did-you-mean stays."""
    report = _run(scratch_git, "vllm serve M --port 8100 -host 0.0.0.0\nvllm serve M --port 8200 -hx\n"
                               "vllm serve M --port 8300 -hq fp8\n")
    got = _codes(report, "VLLM018")
    assert [(line, col) for line, col, _ in got] == [(1, 26), (2, 26), (3, 26)]
    assert got[0][2] == ("argument -h/--help: ignored explicit argument 'ost' (vLLM 0.33.0 reads -host, no flag of it, "
                         "as its help option -h with 'ost' attached, and stops; did you mean --host?)")
    assert got[1][2].startswith("argument -h/--help: ignored explicit argument 'x' (")
    assert got[2][2].startswith("-hq is no flag of vLLM 0.33.0: it reads it as its help option -h followed by -q, "
                                "prints its help and exits")


def test_other_single_dash_typos_keep_unrecognized_arguments(scratch_git):
    """The neighbours: `-port` (no `-p` option) is "unrecognized arguments" as vLLM says; `-tp 2` and `-qfp8` (a
    one-letter option with its value joined) are accepted (oracle: ACCEPT)."""
    report = _run(scratch_git, "vllm serve M --port 8100 -port 1\nvllm serve M --port 8200 -tp 2 -qfp8\n")
    got = _codes(report, "VLLM018")
    assert [(line, msg.split(" (")[0]) for line, _, msg in got] == [(1, "unrecognized arguments: -port")]


def test_h_with_an_equals_value_is_vllms_ignored_explicit_argument(scratch_git):
    """rw31/h minor note: `vllm serve M -h=x` - vLLM 0.33.0 (oracle) says "argument -h/--help: ignored explicit
    argument 'x'"; pdlint said "unrecognized arguments: -h=x (not a vLLM 0.33.0 flag)" (`_short_cluster` returns None
    for `-h=`).  `--help=x` is not this: vLLM's CLI reads `--help=KEYWORD` itself (the help of a group or option)."""
    report = _run(scratch_git, "vllm serve M --port 8100 -h=x\nvllm serve M --port 8200 -host 0.0.0.0\n")
    got = _codes(report, "VLLM018")
    assert [(line, col) for line, col, _ in got] == [(1, 26), (2, 26)]
    assert got[0][2] == ("argument -h/--help: ignored explicit argument 'x' (vLLM 0.33.0: its help option takes no "
                         "value, and written bare it prints the help and exits: the server never starts)")
    assert got[1][2].startswith("argument -h/--help: ignored explicit argument 'ost' (vLLM 0.33.0 reads -host")


def test_help_with_a_keyword_is_a_help_search_not_an_unknown_option(scratch_git):
    """Stop 48's left item (w27): `vllm serve M --help=port` - vLLM's CLI searches its help for the keyword, prints
    it and exits (vllm/utils/argparse_utils.py 0.33.0: `if arg.startswith("--help="): ... _search_keyword`; `vllm
    serve` since vllm-project/vllm#18643, show_filtered_argument_or_group_from_help; vLLM 0.33.0 oracle: exits, no
    server).  pdlint said "unrecognized arguments: --help (not a vLLM 0.33.0 flag)".  Bare `--help` stays a help
    command, not a launch."""
    report = _run(scratch_git, "vllm serve M --port 8100 --help=port\nvllm serve M --port 8200 --help\n")
    got = _codes(report, "VLLM018")
    assert got == [(1, 26, "--help=port asks vLLM 0.33.0 for its help (the options matching 'port'): it prints "
                           "them and exits, the server never starts")]
