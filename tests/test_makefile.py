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
    assert report["findings"][0]["message"].startswith("`make-if` stands where flags could be")
    assert len(report["launches"]) == 1
