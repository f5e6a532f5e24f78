"""A Justfile recipe another recipe calls with literal arguments (`just serve prefill nixl &`) is checked with those
arguments (field test rw22/a, tlrmchlsmth/vllm's Justfile shape: `serve role backend:` was one launch whose role
pdlint could not see, PD021, and the two servers' backend mismatch went unchecked)."""


import pytest

JUST = """\
    serve role backend:
        python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode {{role}} --disaggregation-transfer-backend {{backend}}

    pd:
        just serve prefill nixl &
        just serve decode DECODE &
    """


@pytest.mark.parametrize("decode, fires", [("mooncake", True), ("nixl", False)])
def test_a_called_recipe_runs_with_its_callers_arguments(scratch_git, decode, fires):
    scratch_git.write("Justfile", JUST.replace("DECODE", decode))
    code, doc = scratch_git.lint("Justfile")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    found = [(f["code"], f["line"], f["column"]) for f in doc["findings"]]
    assert found == ([("SGL805", 6, 23)] if fires else []) and code == int(fires)


def test_a_recipe_nobody_calls_keeps_its_parameters_unseen(scratch_git):
    scratch_git.write("Justfile", JUST.split("\n\n")[0] + "\n")
    code, doc = scratch_git.lint("Justfile")
    assert [f["code"] for f in doc["findings"]] == ["PD021"]


def test_a_call_with_another_number_of_arguments_is_not_bound(scratch_git):
    scratch_git.write("Justfile", JUST.replace("just serve decode DECODE &", "just serve decode &"))
    code, doc = scratch_git.lint("Justfile")
    # (the one call with both arguments is bound; the other is a call pdlint does not follow)
    assert [l["role"] for l in doc["launches"]] == ["prefill"]
