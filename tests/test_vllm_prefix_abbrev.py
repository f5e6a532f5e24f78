"""vLLM prefix abbreviations: a dotted option's base (`--kv-transfer.kv_role`) and single-dash prefixes (`-t 2`).

Field round rw28/b (differential test against vLLM 0.33.0's parser), P1 and P9.  vLLM's FlexibleArgumentParser
passes every `--BASE.KEY VALUE` as one trailing `--BASE JSON`, and argparse (CPython 3.11, allow_abbrev) resolves
`--BASE` as any prefix; its single-dash branch (`_get_option_tuples`) also takes any short option string that starts
with the word (`-t` -> `-tp`).  Oracle verdicts (scripts/vllm_oracle.py --batch, vLLM 0.33.0, CPython 3.11.7;
gen/vllm_show.py for the parsed values):

* `--kv-transfer.kv_connector NixlConnector --kv-transfer.kv_role kv_producer`  ACCEPT,
  KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_producer')
* `--compilation.mode 0`, `-c.mode 0`, `--kv-transfer-conf.kv_role kv_both`      ACCEPT
* `--kv.kv_role kv_producer`  REJECT "ambiguous option: --kv could match --kv-cache-memory-bytes, ..."
* `-t 2` (= -tp 2), `-as 2` (= -asc), `-e` (= -ep), `-pc 1` (= -pcp), `-qfp8` (= -q fp8)  ACCEPT
* `-a 2`  REJECT "ambiguous option: -a could match -asc, -ac"; `-d 3` REJECT (ambiguous, -dcp, -dp, ...)
* `-t=2`  REJECT "unrecognized arguments: -t=2"
"""

NIXL = '{"kv_connector":"NixlConnector","kv_role":"%s"}'


def _run(scratch_git, script: str) -> tuple:
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint("--vllm-version", "0.33.0", "serve.sh")
    return report


def _codes(report, code: str) -> list:
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == code]


def test_abbreviated_dotted_kv_transfer_config_keeps_the_role(scratch_git):
    report = _run(scratch_git, """\
        CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5600 vllm serve /models/llama --port 8100 \\
          --kv-transfer.kv_connector NixlConnector --kv-transfer.kv_role kv_producer &
        CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5700 vllm serve /models/llama --port 8200 \\
          --kv-transfer-conf.kv_connector NixlConnector --kv_transfer_conf.kv_role kv_consumer --compilation.mode 0 -c.mode 0 &
        wait
        """)
    assert _codes(report, "VLLM018") == []
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == []
    assert sorted(la["role"] for la in report["launches"]) == ["decode", "prefill"]
    assert len(report["pairs"]) == 1


def test_an_ambiguous_dotted_base_is_vllms_ambiguous_option(scratch_git):
    report = _run(scratch_git, "vllm serve /models/llama --kv.kv_role kv_producer\n")
    [(line, col, msg)] = _codes(report, "VLLM018")
    assert (line, col) == (1, 26)
    assert msg.startswith("ambiguous option: --kv could match --kv-cache-memory-bytes, --kv-cache-dtype, ")
    assert "--kv-transfer-config" in msg


def test_single_dash_prefixes_resolve_and_the_tp_is_read(scratch_git):
    report = _run(scratch_git, """\
        CUDA_VISIBLE_DEVICES=0,1 vllm serve /models/llama --port 8100 -t 2 --kv-transfer-config '%s' &
        CUDA_VISIBLE_DEVICES=2 vllm serve /models/llama --port 8200 -as 2 -e -pc 1 -qfp8 --kv-transfer-config '%s' &
        wait
        """ % (NIXL % "kv_producer", NIXL % "kv_consumer"))
    assert _codes(report, "VLLM018") == []
    # the prefill's `-t 2` is its TP: the decode's TP 1 does not divide it (VLLM022 reads both)
    [(line, _, msg)] = _codes(report, "VLLM022")
    assert line == 2 and "the prefill's tensor parallel size 2" in msg


def test_ambiguous_or_joined_single_dash_prefixes_stay_errors(scratch_git):
    report = _run(scratch_git, "vllm serve /models/llama -a 2 -d 3 -t=2\n")
    assert [m for _, _, m in _codes(report, "VLLM018")] == [
        "ambiguous option: -a could match -asc, -ac (vLLM 0.33.0)",
        "ambiguous option: -d could match -dcp, -dp, -dpn, -dpr, -dpl, -dpa, -dpp, -dpb, -dph, -dpe, -dpm, -dc "
        "(vLLM 0.33.0)",
        "unrecognized arguments: -t=2 (not a vLLM 0.33.0 flag)",
    ]


def test_a_dynamo_option_is_not_read_as_a_prefix_of_a_vllm_option():
    """`python -m dynamo.vllm --kv-events ...`: Dynamo's parser takes its own `--kv-events` first."""
    from pdlint.engines.vllm import flags
    from pdlint.engines.vllm.engine import parse_argv
    from pdlint.text import TStr
    argv = [TStr.synthetic(w, "<t>") for w in ["--model", "m", "--kv-events", "x", "--tensor-parallel", "2"]]
    info = parse_argv(argv, "python -m dynamo.vllm", flags.load("0.33.0"))
    assert "--kv-events" in info.opts and "--kv-events-config" not in info.opts
    assert info.text("--tensor-parallel-size") == "2"
