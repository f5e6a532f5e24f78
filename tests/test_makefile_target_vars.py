"""Make target-specific variables and recursive make calls (pdlint.formats.makefile ``bound_runs``).

``decode: ROLE=decode`` / ``decode: TP=4`` / ``decode: serve`` makes ``make decode`` run ``serve``'s recipe with
ROLE=decode and TP=4 (GNU make: a target's target-specific variables are in effect for its prerequisites); a recipe
line ``$(MAKE) serve ROLE=prefill BACKEND=nixl`` runs it with those command-line variables.  Before, both were
ignored: one launch (the ``ROLE ?=`` default) and no word of the decode (exit 0).

Field test rw22/a P3 (a Makefile shaped as those of the PD-serving repositories it scanned: one ``serve``
recipe, a target per role binding its variables)."""

import pytest

SERVER = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct"

TARGET_VARS = f"""\
ROLE ?= prefill
EXTRA =
serve:
\t{SERVER} --disaggregation-mode $(ROLE) --tp $(TP) $(EXTRA)
prefill: ROLE=prefill
prefill: TP=4
prefill: EXTRA=PREFILL_EXTRA
prefill: serve
decode: ROLE=decode
decode: TP=4
decode: serve
"""


def lint(scratch_git, text, name="Makefile"):
    scratch_git.write(name, text)
    return scratch_git.lint(name)


def codes(report) -> list:
    return sorted(f["code"] for f in report["findings"])


def test_each_target_that_reaches_the_recipe_is_a_launch_with_its_variables(scratch_git):
    code, report = lint(scratch_git, TARGET_VARS.replace("PREFILL_EXTRA", "--enable-linear-replayssm-spec"))
    launches = report["launches"]
    assert sorted((l["role"], "make prefill" in l["context"] or "make decode" in l["context"]) for l in launches) \
        == [("decode", True), ("prefill", True)]  # the plain `make serve` (TP unset: a helper) is not built
    decode = next(l for l in launches if l["role"] == "decode")
    assert decode["argv"][decode["argv"].index("--tp") + 1] == "4"
    assert len(report["pairs"]) == 1
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL101", 7)]  # at `prefill: EXTRA=...`
    assert code == 1


def test_valid_target_variables_are_quiet(scratch_git):
    code, report = lint(scratch_git, TARGET_VARS.replace("PREFILL_EXTRA", "--chunked-prefill-size 4096"))
    assert len(report["launches"]) == 2 and len(report["pairs"]) == 1
    assert codes(report) == [] and code == 0


@pytest.mark.parametrize("line", ["decode: export ROLE=decode", "decode: override ROLE := decode",
                                  "decode: ROLE := decode", "decode: ROLE ::= decode"])
def test_each_way_of_writing_a_target_variable(scratch_git, line):
    text = f"serve:\n\t{SERVER} --disaggregation-mode $(ROLE) --disaggregation-transfer-backend $(B)\n" \
           f"prefill: ROLE=prefill\nprefill: B=nixl\nprefill: serve\n{line}\ndecode: B=mooncake\ndecode: serve\n"
    _, report = lint(scratch_git, text)
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert codes(report) == ["SGL805"]  # nixl vs mooncake


def test_an_appended_target_variable_and_a_chain_of_prerequisites(scratch_git):
    # `all-decode: decode`, `decode: serve`: the variables of every target on the way, the nearest winning
    text = (f"ARGS = --model-path m\nROLE = prefill\nserve:\n\tpython -m sglang.launch_server $(ARGS) "
            f"--disaggregation-mode $(ROLE)\n"
            f"decode: ROLE=decode\ndecode: ARGS += --enable-linear-replayssm-spec\ndecode: serve\n"
            f"all-decode: ROLE=prefill\nall-decode: decode\n")
    _, report = lint(scratch_git, text)
    roles = sorted(l["role"] for l in report["launches"])
    # make serve (plain: every variable in the file), make decode; make all-decode runs the same (decode's own
    # ROLE wins over all-decode's): one launch
    assert roles == ["decode", "prefill"]
    assert codes(report) == []  # the flag is decode-only and reaches only decodes


def test_a_recursive_make_call_with_variables_is_a_launch(scratch_git):
    text = (f"serve:\n\t{SERVER} --disaggregation-mode $(ROLE) --disaggregation-transfer-backend $(BACKEND)\n"
            f"pd:\n\t$(MAKE) serve ROLE=prefill BACKEND=nixl &\n\t$(MAKE) serve ROLE=decode BACKEND=mooncake &\n")
    code, report = lint(scratch_git, text)
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert codes(report) == ["SGL805"] and code == 1  # no PD021: the role is each call's
    assert report["findings"][0]["line"] == 5
    _, report = lint(scratch_git, text.replace("mooncake", "nixl"))
    assert codes(report) == [] and len(report["pairs"]) == 1


@pytest.mark.parametrize("call", ["$(MAKE) -C sub serve ROLE=decode", "$(MAKE) -f other.mk serve ROLE=decode",
                                  'echo "make serve ROLE=decode"', "$(MAKE) serve ROLE=$(R)"])
def test_calls_of_another_makefile_or_in_text_are_not_followed(scratch_git, call):
    text = f"ROLE = prefill\nserve:\n\t{SERVER} --disaggregation-mode $(ROLE)\nd:\n\t{call}\n"
    _, report = lint(scratch_git, text)
    assert [l["role"] for l in report["launches"]] in (["prefill"], ["prefill", None])
    assert not any(l["role"] == "decode" for l in report["launches"])


def test_cyclic_prerequisites_and_many_targets_are_bounded(scratch_git):
    many = "".join(f"t{i}: ROLE=decode\nt{i}: TP={i}\nt{i}: serve t{(i + 1) % 200}\n" for i in range(200))
    text = f"ROLE = prefill\nTP = 1\nserve:\n\t{SERVER} --disaggregation-mode $(ROLE) --tp $(TP)\n{many}"
    code, report = lint(scratch_git, text)
    assert 1 < len(report["launches"]) <= 1 + 32  # the plain run and at most MAX_BOUND more
