"""Hostile round rw32/h problem 1: the unterminated-quote search (syntax.unclosed_quote, rw31/a P3) tried the
quotes of the statement before the one holding the open quote, earliest first, and took the first whose deletion
made the text parse - deleting any quote before the real one re-pairs the quotes after it, so a well-formed line
(``echo "starting server"``) was blamed and the PD020 cut moved onto a command bash runs.

Ground truth (bash 5.2): ``bash -n`` on SCRIPT -> ``line 4: unexpected EOF while looking for matching `"'``;
``bash SCRIPT`` prints ``starting server`` (line 2 runs) before the error.  bash reads a script statement by
statement and completes every statement before the one holding the quote, so the stray quote is in that statement,
on a line whose quotes do not balance (line 3 column 45, the quote before /models/llama).
"""

SCRIPT = """\
#!/bin/bash
echo "starting server"
python -m sglang.launch_server --model-path "/models/llama --disaggregation-mode prefill --port 30000
echo "done" 'ok'
"""


def _codes(report):
    return sorted((f["code"], f["line"], f["column"], f["severity"]) for f in report["findings"])


def test_a_well_formed_line_before_the_open_quote_is_not_blamed(scratch):
    scratch.write("run_prefill.sh", SCRIPT)
    code, report = scratch.lint("run_prefill.sh")
    assert _codes(report) == [("PD009", 3, 45, "error"), ("PD020", 3, 1, "warning")] and code == 1
    pd020 = next(f for f in report["findings"] if f["code"] == "PD020")
    assert "line 3 column 45" in pd020["message"] and "from the command at line 3 on" in pd020["message"]
    pd009 = next(f for f in report["findings"] if f["code"] == "PD009")
    assert "line 4 column 11" in pd009["message"]  # the one bash leaves open (bash -n names line 4)


def test_the_open_quote_itself_when_it_is_the_last_line(scratch):
    """bash -n: ``line 3: unexpected EOF while looking for matching `"'`` (the report's 3-line script)."""
    scratch.write("run_prefill.sh", "\n".join(SCRIPT.splitlines()[:3]) + "\n")
    code, report = scratch.lint("run_prefill.sh")
    assert _codes(report) == [("PD009", 3, 45, "error"), ("PD020", 3, 1, "warning")] and code == 1
    pd009 = next(f for f in report["findings"] if f["code"] == "PD009")
    assert "this \" is never closed" in pd009["message"] and "pair with the wrong one" not in pd009["message"]


def test_many_well_formed_lines_before_it(scratch):
    scratch.write("run.sh", "#!/bin/bash\n" + "echo \"a\" 'b' \"c\"\n" * 300 + SCRIPT.splitlines()[2] + "\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 302, 45, "error"), ("PD020", 302, 1, "warning")] and code == 1


def test_a_balanced_continuation_line_of_the_same_command_is_not_blamed(scratch):
    """bash -n: ``line 4: unexpected EOF while looking for matching `"'``: the quote on line 4 is the open one;
    line 3's pair is well formed."""
    scratch.write("run.sh", "#!/bin/bash\nvllm serve /m \\\n  --served-model-name \"x\" \\\n"
                            "  --port \"30000 \\\n  --max-model-len 4096\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 4, 10, "error"), ("PD020", 2, 1, "warning")] and code == 1


def test_a_stray_quote_before_a_balanced_continuation_line_is_still_the_one(scratch):
    """bash -n: ``line 3: unexpected EOF while looking for matching `"'`` (line 2's stray quote pairs with line
    3's first one, line 3's second is left open): deleting line 2's is the fix."""
    scratch.write("run.sh", "#!/bin/bash\nvllm serve /m\" \\\n  --served-model-name \"x\" \\\n  --port 30000\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 2, 14, "error"), ("PD020", 2, 1, "warning")] and code == 1
    pd009 = next(f for f in report["findings"] if f["code"] == "PD009")
    assert "line 3 column 25 is left open" in pd009["message"]


def test_a_multi_line_string_in_an_earlier_statement_is_not_blamed(scratch):
    """bash -n: ``line 5: unexpected EOF while looking for matching `"'``; lines 2-3 are one well-formed
    assignment whose lines each hold one quote."""
    scratch.write("run.sh", "#!/bin/bash\nX=\"a\nb\"\necho \"$X\"\nvllm serve \"/m --port 30000\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 5, 12, "error"), ("PD020", 5, 1, "warning")] and code == 1


def test_a_correct_script_stays_quiet(scratch):
    scratch.write("run_prefill.sh", SCRIPT.replace('"/models/llama', '"/models/llama"'))
    code, report = scratch.lint("run_prefill.sh")
    assert report["findings"] == [] and code == 0 and report["coverage"]["launches"] == 1
