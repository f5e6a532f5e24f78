"""A shell evaluation limit in a text that holds no launch text and launched nothing cost no launch: no PD008.
production-stack's OCI bootstrap script (deployment_on_cloud/oci/entry_point.sh: retry loops with `$((...))`
in functions, none of which starts a server) exceeded the expansion limit: a PD008 error and exit 1 on a
file that holds no launch text.  The same limit in a text with launch text, or in one that sources a file
with launch text, stays reported."""

# doubles a word until the expansions exceed 1,000,000 characters (evaluation stops)
EXPAND = "A=xxxxxxxxxxxxxxxx\n" + 'A="$A$A"\n' * 17 + 'echo "$A"\n'
# a flag line cut off its command (what a reduction of entry_point.sh left of a command continued over lines):
# the evaluation cannot end early before it (pdlint/formats/shell/tails.py), so the doubling is evaluated
CUT = '                    --exec-arg="${OCI_REGION}"\n'
LAUNCH = "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\n"


def _limits(report):
    return [f["message"] for f in report["findings"]
            if f["code"] == "PD015" and "expansions produced more than" in f["message"]]


def test_expansion_limit_without_launch_text_is_no_error(scratch_git):
    scratch_git.write("entry_point.sh", "#!/bin/bash\nretry() {\n" + EXPAND + CUT + "}\n")
    code, report = scratch_git.lint("entry_point.sh")
    assert code == 0 and report["findings"] == []
    assert report["coverage"]["files"]["entry_point.sh"]["status"] == "none"


def test_the_same_limit_with_launch_text_is_reported(scratch_git):
    # the function also starts a server: the evaluation stopped before it
    scratch_git.write("entry_point.sh", "#!/bin/bash\nretry() {\n" + EXPAND + CUT + LAUNCH + "}\n")
    code, report = scratch_git.lint("entry_point.sh")
    assert code == 0 and _limits(report)


def test_a_limit_in_a_script_whose_sourced_file_has_launch_text_is_reported(scratch_git):
    # the function that launches is defined in the sourced file; the limit stopped the script before its call
    scratch_git.write("lib.sh", "start() {\n  " + LAUNCH + "}\n")
    scratch_git.write("run.sh", "#!/bin/bash\nsource ./lib.sh\n" + EXPAND + "start\n")
    code, report = scratch_git.lint("run.sh")
    assert code == 0 and _limits(report)
