"""Field round rw31/a problem 3: an unterminated quote in a launch script (a stray `"` after the model path,
tkestack/tke-ai-playbook helm-charts/llm-inference/values.yaml) swallowed the launch's later flags into one word:
the launch was counted checked ("0 places with launch text not checked"), PD009 was a warning at the script's
last line, exit 0.

Ground truth (bash 5.2): ``bash -n start_decode.sh`` -> ``start_decode.sh: line 5: unexpected EOF while looking
for matching `"'`` (the quote bash sees open is the last one; deleting the stray one on line 3 makes the script
parse).  bash reads a script statement by statement: the commands before the statement holding the quote run,
nothing from there on does (``echo one; echo two "x`` prints ``one``, exit 2), so the server never starts.
"""

import pytest

from pdlint.formats.shell import bashparse

SCRIPT = """\
#!/bin/bash
set -e
vllm serve /data/Qwen2.5-7B-Instruct{stray} \\
  --no-such-flag 3 \\
  --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}}' \\
  --port 30000
echo done
"""

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-decode
spec:
  template:
    spec:
      containers:
      - name: decode
        image: vllm/vllm-openai:v0.11.0
        command:
          - /bin/bash
          - -c
          - |
            set -e
            vllm serve /data/Qwen2.5-7B-Instruct{stray} \\
              --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}}' \\
              --port 30000
"""


def _codes(report):
    return sorted((f["code"], f["line"], f["column"], f["severity"]) for f in report["findings"])


def test_a_stray_quote_is_an_error_at_the_quote_and_the_launch_is_not_checked(scratch):
    scratch.write("start_decode.sh", SCRIPT.format(stray='"'))
    code, report = scratch.lint("start_decode.sh")
    assert _codes(report) == [("PD009", 3, 37, "error"), ("PD020", 3, 1, "warning")]
    assert code == 1
    pd009 = next(f for f in report["findings"] if f["code"] == "PD009")
    assert "unterminated quote" in pd009["message"] and "line 5 column 79" in pd009["message"]
    assert "unexpected EOF while looking for matching" in pd009["message"]
    pd020 = next(f for f in report["findings"] if f["code"] == "PD020")
    assert "bash never runs it" in pd020["message"] and "line 3 column 37" in pd020["message"]
    assert report["coverage"]["launches"] == 0 and report["coverage"]["unchecked"] == 1


def test_a_closed_quote_stays_quiet(scratch):
    scratch.write("start_decode.sh", SCRIPT.format(stray=""))
    _, report = scratch.lint("start_decode.sh")
    assert {f["code"] for f in report["findings"]} == {"VLLM018"}  # --no-such-flag, now read
    assert report["coverage"]["launches"] == 1 and report["coverage"]["decode"] == 1
    assert report["coverage"]["unchecked"] == 0


def test_a_multi_line_quoted_string_is_no_unterminated_quote(scratch):
    scratch.write("run.sh", "#!/bin/bash\nX=\"a\nb\"; echo \"$X\"\nvllm serve /m --port 1 --kv-transfer-config "
                            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n")
    code, report = scratch.lint("run.sh")
    assert report["findings"] == [] and code == 0 and report["coverage"]["launches"] == 1


def test_in_a_bash_c_script_of_a_deployment(scratch):
    scratch.write("deploy.yaml", DEPLOY.format(stray='"'))
    code, report = scratch.lint("deploy.yaml")
    assert _codes(report) == [("PD009", 16, 49, "error"), ("PD020", 16, 13, "warning")] and code == 1
    assert report["coverage"]["launches"] == 0


def test_in_a_bash_c_script_closed_stays_quiet(scratch):
    scratch.write("deploy.yaml", DEPLOY.format(stray=""))
    code, report = scratch.lint("deploy.yaml")
    assert report["findings"] == [] and code == 0 and report["coverage"]["launches"] == 1


def test_the_launches_before_the_quote_run_and_are_checked(scratch):
    scratch.write("run.sh", "#!/bin/bash\nvllm serve /m --port 1 --kv-transfer-config "
                            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\necho \"unterminated\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 3, 6, "error")] and code == 1
    assert report["coverage"]["launches"] == 1 and report["coverage"]["unchecked"] == 0


def test_an_unclosed_single_quote_before_the_flags(scratch):
    scratch.write("run.sh", "#!/bin/bash\nvllm serve '/m \\\n  --kv-transfer-config "
                            "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}\n")
    code, report = scratch.lint("run.sh")
    assert _codes(report) == [("PD009", 2, 12, "error"), ("PD020", 2, 1, "warning")] and code == 1


def test_without_bash_to_confirm_it_is_a_warning(scratch, monkeypatch):
    """pdlint is unsure where bash's parser could not be asked: the PD009 stays a warning (the launch text is
    still reported as not checked)."""
    monkeypatch.setattr(bashparse, "bash_verdict", lambda text: (None, ""))
    scratch.write("start_decode.sh", SCRIPT.format(stray='"'))
    code, report = scratch.lint("start_decode.sh")
    assert _codes(report) == [("PD009", 3, 37, "warning"), ("PD020", 3, 1, "warning")] and code == 0


UNCLOSED = 'python -m sglang.launch_server --model-path "/m --disaggregation-mode prefill --tp-sizee 2'


@pytest.mark.parametrize("name, text", [
    (".gitlab-ci.yml", f"prefill:\n  script:\n    - echo start\n    - {UNCLOSED}\n"),
    (".gitlab-ci.yml", f"prefill:\n  script:\n    - |\n      echo start\n      {UNCLOSED}\n"),
    ("Makefile", f"serve:\n\t{UNCLOSED}\n"),
    ("justfile", f"serve:\n    echo start\n    {UNCLOSED}\n"),
])
def test_an_unterminated_quote_in_a_job_script_or_recipe_is_an_error(scratch_git, name, text):
    """Hostile-input round rw32/h P9: in a GitLab job's script, a Makefile or a justfile recipe the same line as in
    a .sh was only a PD009 warning, exit 0 - the separators pdlint adds (line breaks between script items, a recipe
    line's own subshell) made the text "not written". The runner's script (bash -n: "unexpected EOF while looking
    for matching"), `make serve` ("Unterminated quoted string", "make: *** Error 2") and `just serve` fail."""
    scratch_git.write(name, text)
    code, report = scratch_git.lint(name)
    got = [(f["code"], f["severity"], f["line"]) for f in report["findings"] if f["code"] == "PD009"]
    assert got == [("PD009", "error", text.count("\n"))] and code == 1


ROUTER = "python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 --decode http://d:30001"


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_unterminated_quote_on_a_later_recipe_line_is_an_error_and_the_lines_before_run(scratch_git, quote):
    """Stop 49 left it: a recipe of several lines (no .ONESHELL: each line its own shell, given as `( ... )`)
    whose quote is on a later line was a PD009 warning `cannot parse`, exit 0 - tree-sitter's error node starts
    at the first line's `(`, not at the quote. `make serve` runs line 2 and stops at line 3 ("Unterminated quoted
    string", "make: *** Error 2"): line 2's router is checked, line 3's launch is not (PD020)."""
    unclosed = UNCLOSED.replace('"', quote)
    scratch_git.write("Makefile", f"serve:\n\t{ROUTER}\n\t{unclosed}\n\techo done\n")
    code, report = scratch_git.lint("Makefile")
    got = [(f["code"], f["severity"], f["line"]) for f in report["findings"]]
    assert sorted(got) == [("PD009", "error", 3), ("PD020", "warning", 3)] and code == 1
    assert any("runs nothing from the command at line 3 on" in f["message"] for f in report["findings"])
    assert report["coverage"]["routers"] == 1


def test_a_quote_in_an_unfinished_compound_statement_cuts_the_whole_statement(scratch):
    """The quote inside an `if` bash cannot complete: nothing of the `if` runs, the launch before it does."""
    scratch.write("run.sh", f"#!/bin/bash\n{ROUTER} &\nif true; then\n  echo start\n  {UNCLOSED}\nfi\n")
    code, report = scratch.lint("run.sh")
    got = [(f["code"], f["severity"], f["line"]) for f in report["findings"]]
    assert sorted(got) == [("PD009", "error", 5), ("PD020", "warning", 3)] and code == 1
    assert any("runs nothing from the command at line 3 on" in f["message"] for f in report["findings"])
    assert report["coverage"]["routers"] == 1


def test_a_quote_a_make_value_may_close_stays_a_warning(scratch_git):
    """A value pdlint cannot see after the quote may hold its closing one (`Q != ...` is a shell command's output):
    not certain."""
    scratch_git.write("Makefile", 'Q != printf \'"\'\nserve:\n\tpython -m sglang.launch_server --model-path "/m$(Q) '
                                  '--disaggregation-mode prefill\n')
    code, report = scratch_git.lint("Makefile")
    assert [f["severity"] for f in report["findings"] if f["code"] == "PD009"] in ([], ["warning"])
    assert not [f for f in report["findings"] if f["severity"] == "error"]


def test_a_line_of_thousands_of_quotes_is_counted_once(scratch, monkeypatch):
    """Hostile-input round rw33/h P6: every quote of the statement was tested with a scan of its whole line
    before the last 32 were kept - a 20 KB line of `"a"` words ran into the 10 s budget (PD008 instead of the
    PD009). Each line's parity is now counted once per quote character, from the last quote back."""
    from pdlint.formats.shell import syntax
    calls = []
    real = syntax._odd_on_line
    monkeypatch.setattr(syntax, "_odd_on_line", lambda data, at: calls.append(at) or real(data, at))
    words = " ".join(['"a"'] * 5000)
    scratch.write("run.sh", f"#!/bin/bash\npython3 -m sglang.launch_server --model-path m {words} --port 1 '\n")
    code, report = scratch.lint("run.sh")
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PD009", "error")] and code == 1
    assert len(calls) <= 2
