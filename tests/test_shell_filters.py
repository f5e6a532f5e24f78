"""Text filters in a pipeline inside $(...) (vLLM's tests/v1/kv_connector/nixl_integration/
run_multi_connector_accuracy_test.sh: `KV_CONFIG=$(echo "$KV_CONFIG" | tr -d '[:space:]')`): their output
is known, each character keeping its origin."""

import pytest


JSON = "K='{\n  \"kv_connector\": \"NixlConnector\",\n  \"kv_role\": \"kv_both\"\n}'\n"


@pytest.fixture
def last_arg(shell_eval):
    return lambda script: shell_eval(script)[0][-1].words[-1]


@pytest.mark.parametrize("filt,expect", [
    ("tr -d '[:space:]'", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
    ("tr -d '\\n'", '{  "kv_connector": "NixlConnector",  "kv_role": "kv_both"}'),
    ("jq -c .", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
    ("/usr/bin/jq -c", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
])
def test_known_filters(last_arg, filt, expect):
    w = last_arg(JSON + f'K=$(echo "$K" | {filt})\nrun "$K"\n')
    assert w.text == expect and not w.opaque
    i = w.text.index("NixlConnector")
    assert w.origin_at(i).line == 2  # where the JSON is written


@pytest.mark.parametrize("filt", ["tr -d 'a-z'", "tr -d '[:alpha:]'", "tr a b", "sort", "jq .kv_role",
                                  "tr -d \"$SET\"", "grep x"])
def test_other_filters_stay_unknown(last_arg, filt):
    w = last_arg(JSON + f'K=$(echo "$K" | {filt})\nrun "$K"\n')
    assert w.opaque


def test_jq_keeps_blanks_inside_strings_and_refuses_non_json(last_arg):
    w = last_arg("K='{ \"a\": \"x y\" }'\nK=$(echo \"$K\" | jq -c .)\nrun \"$K\"\n")
    assert w.text == '{"a":"x y"}'
    assert last_arg("K='not json'\nK=$(echo \"$K\" | jq -c .)\nrun \"$K\"\n").opaque


def test_a_kv_transfer_config_compacted_with_tr_is_checked(scratch_git):
    scratch_git.write("run.sh", JSON.replace("NixlConnector", "NixlConnectr") +
                      'K=$(echo "$K" | tr -d \'[:space:]\')\n'
                      'CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-0.6B --port 8100 --kv-transfer-config "$K" &\n')
    code, report = scratch_git.lint("run.sh")
    assert not [f for f in report["findings"] if f["code"].startswith("PD02")]
    (typo,) = [f for f in report["findings"] if f["code"] == "VLLM031"]
    assert typo["line"] == 2  # at the connector name in the JSON
