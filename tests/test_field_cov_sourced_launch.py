"""A launch function defined in a sourced library and called after the `source` is a launch.  The
evaluation's early end (pdlint/formats/shell/tails.py) decided, before the library was sourced, that the
call `start` names no function, and kept that answer after the `source` defined it: the script ended
before the call and its launch was lost (found while testing the PD008 of a script that sources its launch
function, see test_field_cov_limits.py)."""

LIB = "start() {\n  python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\n}\n"


def test_a_function_from_a_sourced_file_called_later_launches(scratch_git):
    scratch_git.write("lib.sh", LIB)
    scratch_git.write("run.sh", "#!/bin/bash\nsource ./lib.sh\necho starting\nstart\n")
    code, report = scratch_git.lint("run.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill"]


def test_a_sourced_function_never_called_is_no_launch_of_the_script(scratch_git):
    # (the library's function is not called: the script launches nothing)
    scratch_git.write("lib.sh", LIB)
    scratch_git.write("run.sh", "#!/bin/bash\nsource ./lib.sh\necho done\n")
    code, report = scratch_git.lint("run.sh")
    assert report["launches"] == [] and code == 0
