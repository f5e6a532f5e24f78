"""A repository that holds an SGLang source tree of its own (a fork) runs that tree: an option or choice SGLang's
releases lack may be the fork's own, so SGL001 / SGL004 there are warnings that say so (field test rw20/f:
deepgrove-ai/sglang's `--quantization ternary`, its fork's quantization method, two errors)."""

import pytest

RUN = ("#!/bin/bash\nPYTHONPATH=$(dirname \"$0\")/python python3 -m sglang.launch_server --model-path m "
       "--disaggregation-mode prefill --quantization ternary --fork-only-flag 1\n")


def _found(report):
    return sorted((f["code"], f["severity"]) for f in report["findings"])


@pytest.mark.parametrize("tree", ["python/sglang/srt/server_args.py", "sglang/srt/server_args.py"])
def test_in_a_fork_unknown_options_and_choices_are_warnings_that_say_so(scratch_git, tree):
    # (a real parser's size, defining what the fork adds: tests/test_engine_forks.py for files that do not)
    scratch_git.write(tree, "# the fork's own server arguments\n" + "".join(
        f"    parser.add_argument('--upstream-flag-{i}', type=int)\n" for i in range(80)) +
        '    parser.add_argument("--fork-only-flag", type=int)\n    QUANTIZATION_CHOICES = ["fp8", "ternary"]\n')
    scratch_git.write("run.sh", RUN)
    code, report = scratch_git.lint(".")
    assert _found(report) == [("SGL001", "warning"), ("SGL004", "warning")] and code == 0
    assert all(f"holds an SGLang source tree of its own, {tree}" in f["message"] for f in report["findings"])
    code, report = scratch_git.lint("--strict", ".")
    assert code == 1


def test_elsewhere_they_stay_errors(scratch_git):
    scratch_git.write("run.sh", RUN)
    code, report = scratch_git.lint(".")
    assert _found(report) == [("SGL001", "error"), ("SGL004", "error")] and code == 1
