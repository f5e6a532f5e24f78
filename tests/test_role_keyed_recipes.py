"""A YAML file outside a Helm chart whose top-level ``prefill:`` / ``decode:`` mappings hold nothing SGLang is no
SGLang values file: no launch is invented from its keys.  Field test rw18/o, repro 9 (SemiAnalysisAI/InferenceX
``benchmarks/multi_node/llm-d-recipes/*.yaml``, reduced): ``prefill: {tp: 1, extra-args: "<vLLM flags>"}`` and
``decode: {tp: 8, ...}`` became two "non-PD" ``sglang.launch_server --tp N`` servers, paired, and ``SGL815 [non-PD]
warning: Performance is NOT guaranteed when using different TP sizes`` fired.  With an SGLang signal (a Chart.yaml
above the file, an SGLang key, an image naming SGLang) the sections are read as before, and a pair finding names
the roles the launches are paired and counted as."""

import pytest

RECIPE = """\
# per-role settings read by a shell script with python+yaml
{head}prefill:
  tp: 1
  extra-args: "{pflags}"
decode:
  tp: 8
  extra-args: "{dflags}"
"""


def run(scratch, text, rel="recipe.yaml"):
    scratch.write(rel, text)
    code, out = scratch.lint(rel)
    cov = out["coverage"]
    return code, [(f["line"], f["code"], f["role"]) for f in out["findings"]], \
        (cov["launches"], cov["prefill"], cov["decode"], cov["other"])


def test_a_plain_role_keyed_recipe_makes_no_launch(scratch):
    text = RECIPE.format(head="", pflags="--kv-cache-dtype fp8 --max-num-seqs 16",
                         dflags="--kv-cache-dtype fp8 --max-num-seqs 256")
    assert run(scratch, text) == (0, [], (0, 0, 0, 0))  # (before: two launches and SGL815 [non-PD])


def test_launch_text_in_such_a_recipe_is_reported_not_checked(scratch):
    flags = "--kv-transfer-config '{{}}' --max-num-seqs 16".replace("{{}}", "{}")
    code, found, counts = run(scratch, RECIPE.format(head="", pflags=flags, dflags=flags))
    assert found == [(4, "PD020", None), (7, "PD020", None)]
    assert counts == (0, 0, 0, 0)


@pytest.mark.parametrize("head", [
    "image: lmsysorg/sglang:v0.5.9\n",          # an image naming SGLang
    "engine: sglang\n",                          # a value naming it
    "common:\n  model-path: Qwen/Qwen3-8B\n",    # an SGLang-only key
    "common:\n  disaggregationMode: prefill\n",  # the same, camelCase
])
def test_with_an_sglang_signal_the_sections_are_sglang_flags(scratch, head):
    code, found, counts = run(scratch, RECIPE.format(head=head, pflags="", dflags=""))
    line = 6 + head.count("\n")
    # the pair rule names the roles the launches are paired as; the summary counts them the same way
    assert (code, found, counts) == (0, [(line, "SGL815", "decode")], (2, 1, 1, 0))


def test_a_values_overlay_under_a_chart_is_read_as_before(scratch):
    scratch.write("chart/Chart.yaml", "apiVersion: v2\nname: pd\nversion: 0.1.0\n")
    code, found, counts = run(scratch, RECIPE.format(head="", pflags="", dflags=""), rel="chart/configs/pd.yaml")
    assert (found, counts) == ([(6, "SGL815", "decode")], (2, 1, 1, 0))


def test_hostile_nesting_is_bounded(scratch):
    deep = "x: " + "[" * 3000 + "]" * 3000 + "\n"
    code, found, counts = run(scratch, deep + RECIPE.format(head="", pflags="", dflags=""))
    assert counts == (0, 0, 0, 0)
