"""Makefiles: each rule's recipe is a shell script, with make's own expansion done first.

Field test rw18/o (repro 6): a Makefile whose `prefill:` recipe runs `python3 -m sglang.launch_server --model-path
$(MODEL) ... --no-such-flag` was only PD020 "a file kind pdlint does not read"."""

import pytest

MAKEFILE = """\
MODEL ?= Qwen/Qwen3-8B
TP := 2
COMMON = --model-path $(MODEL) --tp-size $(TP)
COMMON += --disaggregation-transfer-backend mooncake  # a comment make drops
NODES = $(shell nproc)

prefill:
\t@python3 -m sglang.launch_server $(COMMON) --disaggregation-mode prefill \\
\t    --port 30000 --enable-linear-replayssm-spec

decode: prefill
\t-python3 -m sglang.launch_server $(COMMON) --disaggregation-mode decode --port $${DECODE_PORT:-30001}

help:
\techo "make prefill / make decode"
"""


def _lint(scratch_git, text, name="Makefile"):
    scratch_git.write(name, text)
    return scratch_git.lint(name)


def test_recipes_are_launches_with_make_variables_traced_to_their_assignment(scratch_git):
    code, report = _lint(scratch_git, MAKEFILE)
    assert sorted((l["role"], l["line"]) for l in report["launches"]) == [("decode", 12), ("prefill", 8)]
    assert [(f["code"], f["line"], f["role"]) for f in report["findings"]] == [("SGL101", 9, "prefill")]
    assert code == 1
    decode = next(l for l in report["launches"] if l["role"] == "decode")
    argv = decode["argv"]
    assert argv[argv.index("--tp-size") + 1] == "2" and argv[argv.index("--port") + 1] == "30001"
    assert argv[argv.index("--disaggregation-transfer-backend") + 1] == "mooncake"


def test_a_flag_from_a_variable_is_reported_where_the_variable_is_assigned(scratch_git):
    code, report = _lint(scratch_git, "ARGS = --model-path m --tp-sizee 2\n"
                                      "serve:\n\tpython3 -m sglang.launch_server $(ARGS)\n", "serve.mk")
    assert [(f["code"], f["line"], f["column"]) for f in report["findings"]] == [("SGL001", 1, 23)]


@pytest.mark.parametrize("recipe", [
    "python3 -m sglang.launch_server --model-path $(MODEL_FROM_ENV) --tp-size $(shell nproc)",
    "python3 -m sglang.launch_server --model-path $@ --tp-size 2",
])
def test_values_make_computes_or_the_environment_gives_are_not_guessed(scratch_git, recipe):
    code, report = _lint(scratch_git, f"serve:\n\t{recipe}\n")
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == []
    assert len(report["launches"]) == 1


def test_a_makefile_without_launches_is_quiet(scratch_git):
    code, report = _lint(scratch_git, "all:\n\tpip install sglang==0.5.9\n\techo done\n")
    assert report["findings"] == [] and report["launches"] == [] and code == 0


def test_nested_functions_are_one_value_pdlint_cannot_see(scratch_git):
    # jedmund/homelab's Makefile: `$(if $(wildcard $(VAULT_PASS)),--vault-password-file $(VAULT_PASS),...)`
    # (a false PD009 when only the innermost reference was expanded)
    code, report = _lint(scratch_git, "FLAG := $(if $(wildcard $(PASS)),--file $(PASS),--ask)\n"
                                      "serve:\n\tpython3 -m sglang.launch_server --model-path m $(if $(X),--tp-size 2)\n")
    # the function's flags are a value pdlint cannot see: PD023 says so, at the reference
    assert [(f["code"], f["line"], f["column"]) for f in report["findings"]] == [("PD023", 3, 49)]
    # (named as the Makefile writes it, not as pdlint's placeholder word `make-if`: rw31/a item 2)
    assert report["findings"][0]["message"].startswith("`$(if $(X),--tp-size 2)` stands where flags could be")
    assert "`--var X=VALUE`" in report["findings"][0]["fix"] and "make-if" not in report["findings"][0]["fix"]
    assert len(report["launches"]) == 1


# -- conditionals (field test rw18/p, P7: `ifeq ($(ROLE),prefill) ... else ... endif` had both branches merged, the last
# assignment winning: one decode launch with the prefill's flags, a combination make never runs, and no pair) ------------

ROLE_BRANCHES = """\
MODEL := Qwen/Qwen3-8B
ifeq ($(ROLE),prefill)
MODE := prefill
BACKEND := {prefill_backend}
else
MODE := decode
BACKEND := mooncake
endif
ifeq ($(ROLE),prefill)
EXTRA := --disaggregation-bootstrap-port 8998
endif
server:
\tpython3 -m sglang.launch_server --model-path $(MODEL) --disaggregation-mode $(MODE) \\
\t  --disaggregation-transfer-backend $(BACKEND) $(EXTRA)
"""


def test_a_conditional_on_a_command_line_variable_builds_one_launch_per_branch(scratch_git):
    code, report = _lint(scratch_git, ROLE_BRANCHES.format(prefill_backend="fake"))
    launches = sorted(report["launches"], key=lambda l: l["role"])
    assert [(l["role"], l["context"]) for l in launches] == [
        ("decode", "make target 'server' with ROLE unset"), ("prefill", "make target 'server' with ROLE=prefill")]
    decode, prefill = launches
    assert "--disaggregation-bootstrap-port" not in decode["argv"]  # EXTRA is assigned only in the prefill branch
    assert prefill["argv"][prefill["argv"].index("--disaggregation-bootstrap-port") + 1] == "8998"
    # the prefill's fake backend (SGLang rejects it on a prefill), at the assignment of its branch; the two are
    # paired (the pair rule compares the backends)
    assert sorted((f["code"], f["line"], f["role"]) for f in report["findings"]) == [
        ("SGL104", 4, "prefill"), ("SGL805", 7, "decode")]


def test_both_branches_are_quiet_when_correct_and_paired(scratch_git):
    code, report = _lint(scratch_git, ROLE_BRANCHES.format(prefill_backend="mooncake"))
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("head", ["ROLE := decode\n", "ROLE = $(SIDE)\nSIDE := decode\n"])
def test_a_conditional_on_a_variable_the_file_assigns_is_evaluated(scratch_git, head):
    code, report = _lint(scratch_git, head + ROLE_BRANCHES.format(prefill_backend="fake"))
    assert [(l["role"], l["context"]) for l in report["launches"]] == [("decode", "make target 'server'")]
    # the prefill branch is not a launch pdlint built: its flags are launch text not checked (PD020), not merged
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", head.count("\n") + 10)]


def test_ifdef_and_else_ifeq_chains(scratch_git):
    text = ("ifdef PREFILL\nMODE := prefill\nelse ifeq ($(X),1)\nMODE := decode\nelse\nMODE := decode\nendif\n"
            "serve:\n\tpython3 -m sglang.launch_server --model-path m --disaggregation-mode $(MODE)\n")
    code, report = _lint(scratch_git, text)
    # the `else ifeq` branch and the `else` one assign MODE on different lines: two decode variants
    assert sorted((l["role"], l["context"]) for l in report["launches"]) == [
        ("decode", "make target 'serve' with PREFILL unset, X unset"),
        ("decode", "make target 'serve' with PREFILL unset, X=1"),
        ("prefill", "make target 'serve' with PREFILL defined, X=1")]


def test_hostile_conditionals_are_bounded(scratch_git):
    deep = "".join(f"ifeq ($(V{i}),{i})\nA{i} := {i}\n" for i in range(300)) + "else\nelse\nendif\n" * 3
    many = "".join(f"ifeq ($(R),v{i})\nMODE := prefill\nendif\n" for i in range(50))
    text = deep + many + "endif\n" * 400 + ("serve:\n\tpython3 -m sglang.launch_server --model-path m "
                                            "--disaggregation-mode decode\n")
    code, report = _lint(scratch_git, text)
    assert len(report["launches"]) <= 4 and not [f for f in report["findings"] if f["severity"] == "error"]


# -- several targets, target-specific variables, include (rw18/p, P8: `prefill decode:` with `--disaggregation-mode $@`
# and `prefill: PORT := 30000` was one launch whose role pdlint could not see, PD021; `include common.mk` was not
# read) ------------------------------------------------------------------------------------------------------------------

TARGETS = """\
MODEL := Qwen/Qwen3-8B
BACKEND := mooncake
prefill: PORT := 30000
prefill: override BACKEND := {backend}
decode: export PORT := 30001
prefill decode:
\tpython3 -m sglang.launch_server --model-path $(MODEL) --disaggregation-mode $@ --port $(PORT) \\
\t  --disaggregation-transfer-backend $(BACKEND)
"""


def test_a_rule_with_several_targets_runs_once_per_target_with_its_own_variables(scratch_git):
    code, report = _lint(scratch_git, TARGETS.format(backend="fake"))
    by_role = {l["role"]: l for l in report["launches"]}
    assert sorted(by_role) == ["decode", "prefill"]
    assert by_role["prefill"]["argv"][by_role["prefill"]["argv"].index("--port") + 1] == "30000"
    assert by_role["decode"]["argv"][by_role["decode"]["argv"].index("--port") + 1] == "30001"
    assert sorted((f["code"], f["line"], f["role"]) for f in report["findings"]) == [
        ("SGL104", 4, "prefill"), ("SGL805", 2, "decode")]


def test_several_targets_quiet_when_correct(scratch_git):
    code, report = _lint(scratch_git, TARGETS.format(backend="mooncake"))
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert report["findings"] == [] and code == 0


def test_dollar_at_is_traced_to_the_target_in_the_rule_line(scratch_git):
    # a finding about the role's value is reported where the target is named
    code, report = _lint(scratch_git, "prefill decodee:\n\tpython3 -m sglang.launch_server --model-path m "
                                      "--disaggregation-mode $@\n")
    bad = [f for f in report["findings"] if f["severity"] == "error"]
    assert bad and all((f["line"], f["column"]) == (1, 9) for f in bad)


def test_an_included_file_in_the_repository_gives_its_variables(scratch_git):
    scratch_git.write("deploy/common.mk", "ARGS := --model-path m --tp-sizee 2\n-include missing.mk\n")
    code, report = _lint(scratch_git, "include common.mk\nserve:\n\tpython3 -m sglang.launch_server $(ARGS)\n",
                         "deploy/Makefile")
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"]] == [("SGL001", "deploy/common.mk", 1)]


def test_includes_outside_the_repository_or_cyclic_are_not_followed(scratch_git):
    scratch_git.write("a.mk", "include b.mk\nTP := 2\n")
    scratch_git.write("b.mk", "include a.mk\n")
    code, report = _lint(scratch_git, "include a.mk ../outside.mk /etc/x.mk $(shell ls)\nserve:\n"
                                      "\tpython3 -m sglang.launch_server --model-path m --tp-size $(TP)\n")
    argv = report["launches"][0]["argv"]
    assert argv[argv.index("--tp-size") + 1] == "2" and report["findings"] == []


def test_values_referencing_each_other_many_times_are_bounded(scratch_git):
    text = "".join(f"V{i} = " + f"$(V{i + 1}) " * 60 + "\n" for i in range(8)) + "V8 = x\n"
    text += "ifeq ($(V0),x)\nA := 1\nendif\nserve:\n\tpython3 -m sglang.launch_server --model-path m $(V0)\n"
    code, report = _lint(scratch_git, text)
    assert len(report["launches"]) == 1


def test_a_conditional_that_does_not_change_a_recipe_does_not_duplicate_its_launch(scratch_git):
    text = ("ifeq ($(DEBUG),1)\nLOG := debug\nendif\nserve:\nifeq ($(GPU),h100)\n"
            "\tpython3 -m sglang.launch_server --model-path m --tp-size 4\nelse\n"
            "\tpython3 -m sglang.launch_server --model-path m --tp-size 2\nendif\n"
            "other:\n\tpython3 -m sglang.launch_server --model-path m --tp-size 8\n")
    code, report = _lint(scratch_git, text)
    assert sorted((l["line"], l["context"]) for l in report["launches"]) == [
        (6, "make target 'serve' with DEBUG=1, GPU=h100"), (8, "make target 'serve' with DEBUG=1, GPU unset"),
        (11, "make target 'other'")]
    assert report["findings"] == []


def test_a_semicolon_in_a_help_comment_of_a_target_line_is_no_recipe(scratch_git):
    # jedmund/homelab's Makefile: `deploy-vllm: ## Deploy ... (compose rendered; bring ... up)`: a false PD009
    code, report = _lint(scratch_git, "deploy-vllm: ## Deploy vLLM (compose rendered; bring it up)\n"
                                      "\tvllm serve m --port 8000\n")
    assert report["findings"] == [] and len(report["launches"]) == 1


def test_a_variable_that_references_itself_is_named_once(scratch_git):
    """`A = $(A)$(A)`: make stops ("Recursive variable 'A' references itself"); pdlint followed it eight levels
    deep and named 256 placeholder words in one 2 KB message (field test rw20/h)."""
    scratch_git.write("Makefile", "A = $(A)$(A)\nrun:\n\tpython -m sglang.launch_server --model-path m "
                                  "--disaggregation-mode prefill --port 30000 $(A)\n")
    _, report = scratch_git.lint("Makefile")
    (f,) = [f for f in report["findings"] if f["code"] == "PD023"]
    assert "`$(A)$(A)`" in f["message"] and len(f["message"]) < 200
    assert "make-var" not in f["message"] + f["fix"]  # (pdlint's placeholder word: rw31/a item 2)


@pytest.mark.parametrize("text, where, quoted", [
    # rw30/a repro 1 (cnuland/hello-chris-llm-d's `assets`): a `# comment` recipe line after `&& \` ends make's
    # logical line, so /bin/sh gets `echo one && # c1` (make: "/bin/sh: Syntax error: end of file unexpected")
    ("assets:\n\techo one && \\\n\t# c1\n\techo two && \\\n\t# c2\n\techo three\n", (2, 11), "'&& \\ # c1'"),
    # an unterminated quote on the second of three logical lines (bash: "unexpected EOF while looking for
    # matching `''"): named as the unterminated quote it is, as in a .sh (stop 49 left it "cannot parse")
    ("serve:\n\tcd /tmp\n\tvllm serve m --port 8100 --kv-transfer-config '{\"kv_role\":\"kv_both\"}\n\techo done\n",
     (3, 48), None),
])
def test_a_shell_syntax_error_in_a_recipe_of_several_lines_is_filed_at_the_makefile_line(scratch_git, text, where,
                                                                                          quoted):
    """rw30/a problem 1: each logical line of a recipe of several runs in a shell of its own, given to the shell
    reader as a subshell `( ... )` pdlint adds; the PD009 landed on that added `(`, filed under
    `<make: the line's own shell>:1:1` and quoting `( echo one &&`.  It is filed at the Makefile line that is
    broken, as for a recipe of one line, and quotes the Makefile's text."""
    code, report = _lint(scratch_git, text)
    pd009 = [f for f in report["findings"] if f["code"] == "PD009"]
    assert [(f["path"], f["line"], f["column"]) for f in pd009] == [("Makefile", *where)]
    # (quoted as the Makefile writes it, rw31/a item 4: `\\` was doubled by Python's repr)
    if quoted is not None:
        assert pd009[0]["message"] == f"shell syntax error: cannot parse {quoted} (script)"
    else:
        assert pd009[0]["message"].startswith("shell syntax error: unterminated quote: this ' is never closed")
        assert "from the command at line 3 on" in pd009[0]["message"] and pd009[0]["severity"] == "error"
    assert all(not f["path"].startswith("<") for f in report["findings"])


def test_a_recipe_of_several_correct_lines_is_quiet(scratch_git):
    """The neighbour: lines continued by `\\` and a comment line of their own parse (make drops nothing, the
    shell reads `# ...` as a comment)."""
    code, report = _lint(scratch_git, "assets:\n\techo one && \\\n\t  echo two\n\t# a note\n\techo three\n"
                                      "\tpython3 -m sglang.launch_server --model-path m --port 30000\n")
    assert [f["code"] for f in report["findings"]] == []
    assert len(report["launches"]) == 1


def test_a_recipe_line_of_comments_continued_by_backslashes_is_quiet(scratch_git):
    """llm-d/llm-d-inference-scheduler's Makefile.cluster.mk: a commented-out `# @if ...; then \\` block whose `\\`
    continues make's line onto the next comment lines; the shell gets comments only (bash -n: fine) - as a
    subshell `( ... )` of nothing it was a false PD009 (at `<make: the line's own shell>`, rw30/a).  A comment
    line continued onto a command still runs the command (bash: `# a \\<newline>echo hi` prints hi)."""
    code, report = _lint(scratch_git, "down:\n\t@echo removing\n\t# @if true; then \\\n\t#   kubectl delete x; \\\n"
                                      "\t# fi\n\t# a note \\\n\tpython3 -m sglang.launch_server --model-path m "
                                      "--port 30000\n")
    assert [f["code"] for f in report["findings"]] == []
    assert len(report["launches"]) == 1


# -- rw31/a item 4: a make reference continued over recipe lines ---------------------------------------------------

_CONTINUED_SHELL = ("unit-test:\n\tgo test -v $(shell echo ./pkg/... ./api/... | \\\n\tgrep -v -e /vendor) \\\n"
                    "\t-race -coverprofile=coverage.txt -covermode=atomic\n")


def test_a_shell_function_continued_over_recipe_lines_is_one_reference(scratch_git):
    """kaito-project/kaito's `unit-test` (field test rw31/a item 4): `$(shell go list ./pkg/... | \\` + `grep -v
    ...) \\` + `-race ...`.  GNU make expands the logical line as one text (`make -n unit-test` prints
    `go test -v ./pkg/... ./api/... \\` / `-race ...`: the recipe is valid); pdlint expanded each physical line on
    its own, so the `)` on the continuation line was shell text: PD009 "cannot parse ') \\\\ -'"."""
    code, report = _lint(scratch_git, _CONTINUED_SHELL)
    assert report["findings"] == [] and code == 0


def test_a_launch_with_a_continued_shell_function_is_checked_whole(scratch_git):
    """The same inside a launch: `vllm serve $(shell echo Qwen/Qwen3-8B | \\` + `tr -d x) \\` + `--port 8100
    --no-such-flag ...`.  make runs `vllm serve Qwen/Qwen3-8B --port 8100 --no-such-flag --kv-transfer-config ...`
    and vLLM refuses the flag (`vllm serve: error: unrecognized arguments: --no-such-flag`); pdlint split the
    launch at the `|` inside the function (PD020 "`tr` is not a launcher pdlint knows" + PD009) and never
    reported it."""
    code, report = _lint(scratch_git, "prefill:\n\tvllm serve $(shell echo Qwen/Qwen3-8B | \\\n\ttr -d x) \\\n"
                                      "\t--port 8100 --no-such-flag \\\n"
                                      "\t--kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
                                      "\"kv_role\":\"kv_producer\"}'\n")
    assert [(f["code"], f["line"], f["column"]) for f in report["findings"]] == [("VLLM018", 4, 14)]
    (launch,) = report["launches"]
    assert launch["role"] == "prefill" and "--kv-transfer-config" in launch["argv"]


@pytest.mark.parametrize("text", [
    # the neighbours: a `$(shell ...)` on one line, an ordinary continued recipe
    "unit-test:\n\tgo test -v $(shell go list ./pkg/... | grep -v /vendor) \\\n\t-race -covermode=atomic\n",
    "serve:\n\tvllm serve Qwen/Qwen3-8B \\\n\t--port 8000 | \\\n\ttee log.txt\n",
])
def test_one_line_functions_and_ordinary_continued_recipes_stay_quiet(scratch_git, text):
    code, report = _lint(scratch_git, text)
    assert report["findings"] == [] and code == 0


def test_a_real_syntax_error_after_a_continued_function_is_still_pd009(scratch_git):
    """bash -n: `syntax error near unexpected token `)'` - the stray `)` after the function's own is the shell's."""
    code, report = _lint(scratch_git, "t:\n\techo $(shell echo a | \\\n\ttr a b) ) \\\n\t-x\n")
    pd009 = [f for f in report["findings"] if f["code"] == "PD009"]
    assert [(f["line"], f["column"]) for f in pd009] == [(3, 10)]
    assert pd009[0]["message"] == "shell syntax error: cannot parse ') \\ -' (script)"


# -- rw31/a item 2: `$(if ...)` / `$(or ...)` / `$(and ...)` ----------------------------------------------------------

_FUNCTIONS = ("serve:\n\tpython -m sglang.launch_server \\\n"
              "\t\t--model-path $(or $(MODEL_PATH),meta-llama/Llama-3.2-1B-Instruct) \\\n"
              "\t\t$(if $(TP),--tp $(TP),) \\\n\t\t--port 30000\n")


def _argv(report):
    (launch,) = report["launches"]
    return launch["argv"]


@pytest.mark.parametrize("given, model, tp", [
    # GNU make (`make -n serve TP=2 MODEL_PATH=Qwen/Qwen3-8B`): `... --model-path Qwen/Qwen3-8B --tp 2 --port 30000`
    (("TP=2", "MODEL_PATH=Qwen/Qwen3-8B"), "Qwen/Qwen3-8B", "2"),
    # `make -n serve TP= MODEL_PATH=`: the `$(or ...)` default the file writes, no `--tp`
    (("TP=", "MODEL_PATH="), "meta-llama/Llama-3.2-1B-Instruct", None),
])
def test_conditional_functions_are_evaluated_when_their_values_are_given(scratch_git, given, model, tp):
    """goodfire-ai/sglang-deployment-poc's `start-server` (field test rw31/a item 2): `$(if $(TP),--tp $(TP),)` and
    `$(or $(MODEL_PATH),default)` were the placeholder words `make-if` / `make-or` whatever `--var` gave."""
    scratch_git.write("Makefile", _FUNCTIONS)
    code, report = scratch_git.lint("Makefile", *[a for g in given for a in ("--var", g)])
    argv = _argv(report)
    assert argv[argv.index("--model-path") + 1] == model
    assert (argv[argv.index("--tp") + 1] if "--tp" in argv else None) == tp
    assert report["findings"] == [] and code == 0
    assert not any(w.startswith("make-") for w in argv)


def test_conditional_functions_of_values_in_the_file(scratch_git):
    """Values the Makefile writes: `$(if ...)` tests the expansion of its stripped condition (GNU make's func_if),
    `$(or ...)` returns the first argument not empty, `$(and ...)` the last when none is empty (`make -n serve`:
    `vllm serve m --tensor-parallel-size 2 --port 8100 --no-such-flag`)."""
    code, report = _lint(scratch_git, "TP := 2\nEMPTY :=\nM = m\n"
                                      "serve:\n\tvllm serve $(or $(EMPTY), $(M) ,x) $(if  $(EMPTY) ,--bad-a,) "
                                      "$(if $(TP),--tensor-parallel-size $(TP),--bad-b) $(and $(TP),--port 8100) "
                                      "$(and $(EMPTY),--bad-c) $(if $(or $(EMPTY),$(TP)),--no-such-flag)\n")
    assert _argv(report) == ["m", "--tensor-parallel-size", "2", "--port", "8100", "--no-such-flag"]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM018", 5)]


def test_an_unknown_test_stays_a_value_pdlint_cannot_see_with_a_hint_that_works(scratch_git):
    """Without the values (TP, MODEL_PATH from the make command line), the functions are values pdlint cannot see:
    PD023 and the undecided summary say what the Makefile writes and name the variable `--var` gives, never
    pdlint's placeholder word (PD023's help said "give `make-if` its deploy-time value ... --var")."""
    code, report = _lint(scratch_git, _FUNCTIONS)
    (f,) = report["findings"]
    assert f["code"] == "PD023" and f["message"].startswith("`$(if $(TP),--tp $(TP),)` stands where flags")
    assert "`--var TP=VALUE`" in f["fix"] and "make-" not in f["fix"]
    (u,) = report["coverage"]["files"]["Makefile"]["undecided"]
    assert u["text"] == "$(or $(MODEL_PATH),meta-llama/Llama-3.2-1B-Instruct)" and u["name"] == "MODEL_PATH"


def test_a_shell_function_keeps_a_hint_without_var(scratch_git):
    """The neighbour: `$(shell nproc)` is still a value pdlint cannot see (it runs nothing): PD023 says to write the
    flags literally, not to give a variable named `make-shell` a value."""
    code, report = _lint(scratch_git, "serve:\n\tpython -m sglang.launch_server --model-path m $(shell cat flags)\n")
    (f,) = report["findings"]
    assert f["code"] == "PD023" and f["message"].startswith("`$(shell cat flags)` stands where flags could be")
    assert "--var" not in f["fix"] and "make-shell" not in f["fix"] and "literal words" in f["fix"]


# -- make's conditional functions inside a conditional's test (stop 48's left item from w30: `ifeq ($(or ...),x)` was a
# test pdlint could not decide, so what its branch adds was PD023 "not checked"; `make -n` (GNU make 4.3) with ROLE ?=
# prefill prints `... --disaggregation-mode prefill --enable-linear-replayssm-spec`, with ROLE := decode no flag) -------

OR_TEST = """\
{head}MODE := $(or $(ROLE),decode)
ifeq ($(or $(ROLE),decode),prefill)
EXTRA := --enable-linear-replayssm-spec
endif

serve:
\tpython -m sglang.launch_server --model-path m --disaggregation-mode $(MODE) $(EXTRA)
"""


def test_a_conditional_testing_make_or_is_evaluated(scratch_git):
    code, report = _lint(scratch_git, OR_TEST.format(head="ROLE ?= prefill\n"))
    assert [(f["code"], f["line"], f["role"]) for f in report["findings"]] == [("SGL101", 4, "prefill")]
    assert code == 1


def test_a_conditional_testing_make_or_not_taken_is_quiet(scratch_git):
    code, report = _lint(scratch_git, OR_TEST.format(head="ROLE := decode\n"))
    assert report["findings"] == [] and code == 0
    assert [l["role"] for l in report["launches"]] == ["decode"]


def test_a_conditional_testing_make_or_of_an_unknown_value_stays_undecided(scratch_git):
    """ROLE from the make command line: `$(or $(ROLE),decode)` is not a value pdlint can compare."""
    code, report = _lint(scratch_git, OR_TEST.format(head="").replace("$(or $(ROLE),decode),prefill", "$(or $(ROLE),"
                                                                       "$(SIDE)),prefill"))
    assert not [f for f in report["findings"] if f["code"].startswith("SGL")]
    assert any(f["code"] in ("PD020", "PD023") for f in report["findings"])
