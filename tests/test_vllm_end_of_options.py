"""vLLM: `--` ends the options (field round rw28/b P3, vLLM half; fix helper w13).

argparse (CPython 3.11.7, the oracle's) reads every word after the first `--` as a positional argument, and vLLM's
parser has one, the model (``model_tag``, nargs ``?``): what it does not take is "unrecognized arguments".  pdlint
read the options after `--` as live ones (a VLLM038 and a PD150 on the dead `--port 1`) and said nothing of the
leftover.  Ground truth, vLLM 0.33.0's `vllm serve` sub-command parser (rw28/b gen/vllm_serve_show.py's path):

* `M --port 8100 --`            REJECT "unrecognized arguments: --"
* `M --port 8100 -- --port 1`   REJECT "unrecognized arguments: -- --port 1"
* `M --port 8100 -- x`          REJECT "unrecognized arguments: -- x"
* `-- M --port 8100`            REJECT "unrecognized arguments: --port 8100"
* `M -- --port 1`               REJECT "unrecognized arguments: --port 1"
* `-- -- M`                     REJECT "unrecognized arguments: M"
* `M --`, `-- M`, `--port 8100 -- M`, `--port 8100 M --`   ACCEPT, model_tag 'M'
* `--`, `--port 8100 --`        ACCEPT, model_tag None
"""

import pytest

from pdlint.engines.vllm import flags
from pdlint.engines.vllm.engine import parse_argv
from pdlint.text import TStr


def _run(scratch_git, script: str) -> dict:
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint("--vllm-version", "0.33.0", "serve.sh")
    return report


def _codes(report, code: str) -> list:
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == code]


@pytest.mark.parametrize("words, model, leftover", [
    ("M --port 8100 --", "M", "--"),
    ("M --port 8100 -- --port 1", "M", "-- --port 1"),
    ("M --port 8100 -- x", "M", "-- x"),
    ("-- M --port 8100", "M", "--port 8100"),
    ("M -- --port 1", "M", "--port 1"),
    ("-- -- M", "--", "M"),
    ("M --", "M", ""),
    ("-- M", "M", ""),
    ("--port 8100 -- M", "M", ""),
    ("--port 8100 M --", "M", ""),
    ("--", None, ""),
    ("--port 8100 --", None, ""),
])
def test_argparse_leftover_after_end_of_options(words, model, leftover):
    info = parse_argv([TStr.synthetic(w, "<t>") for w in words.split()], "vllm serve", flags.load("0.33.0"))
    assert (info.model.text if info.model is not None else None) == model
    assert " ".join(t.text for t in info.leftover) == leftover
    before = words.split()[:words.split().index("--")]
    assert info.int("--port") == (8100 if "--port" in before else None)  # (only an option before the `--`)


def test_options_after_end_of_options_are_not_read(scratch_git):
    report = _run(scratch_git, """\
        vllm serve /models/a --port 8100 --
        vllm serve /models/b --port 8101 -- --port 1
        vllm serve -- /models/c --port 8102
        """)
    assert [(line, col, msg.partition(" (")[0]) for line, col, msg in _codes(report, "VLLM018")] == [
        (1, 34, "unrecognized arguments: --"),
        (2, 34, "unrecognized arguments: -- --port 1"),
        (3, 25, "unrecognized arguments: --port 8102"),
    ]
    assert "`--` ends vLLM's options" in _codes(report, "VLLM018")[0][2]
    # the `--port 1` after `--` is no option: no "given twice", no port 1
    assert _codes(report, "VLLM038") == [] and _codes(report, "PD150") == []


def test_a_dashdash_the_model_takes_is_quiet(scratch_git):
    report = _run(scratch_git, """\
        vllm serve /models/a --
        vllm serve -- /models/b
        vllm serve --port 8102 -- /models/c
        """)
    assert [f for f in report["findings"] if f["severity"] == "error"] == []


def test_an_option_missing_its_value_before_dashdash_is_vllm048_only(scratch_git):
    """`M --served-model-name --`: REJECT "argument --served-model-name: expected at least one argument" (argparse
    stops there; the `--` is not reported again)."""
    report = _run(scratch_git, "vllm serve /models/a --served-model-name -- x\n")
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["VLLM048"]
