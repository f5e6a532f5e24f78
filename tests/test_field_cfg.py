"""Fixes from the round-3 field tests (GKE gpu-recipes problems 3 and 7, AWS problems 7 and 8): a refused
``--config`` key no longer empties its file, Dynamo vLLM's role flag is judged against the pinned Dynamo
release, an aggregated Dynamo vLLM worker is not decode by its name, and Sprig arithmetic renders."""


def _codes(doc) -> list:
    return sorted((f["code"], f["path"].rsplit("/", 1)[-1], f["line"]) for f in doc["findings"])


def _roles(doc) -> dict:
    return {l["path"].rsplit("/", 1)[-1]: l["role"] for l in doc["launches"]}


# --- 1. one key SGLang's --config merger refuses (SGL021) -------------------------------------------------
# gpu-recipes src/frameworks/a4x/dynamo-configs/deepseekr1-fp8-*-{prefill,decode}.yaml, reduced

PREFILL = "disaggregation-mode: prefill\ntp-size: 4\nkv-cache-dtype: fp8_e4m3\n"


def test_a_refused_config_key_leaves_the_other_keys_read(scratch_git):
    scratch_git.write("m-prefill.yaml", PREFILL)
    scratch_git.write("m-decode.yaml", "# Copyright\n\ndisaggregation-mode: decode\ntp-size: 4\n"
                                       "kv-cache-dtype: fp8_e4m3\nenable-dp-attention: true\n")
    code, doc = scratch_git.lint(".")
    # not PD105 at the copyright line, PD020 on disaggregation-mode, SGL804/SGL815 against an empty decode
    assert _codes(doc) == [("SGL021", "m-decode.yaml", 6)]
    assert doc["findings"][0]["message"] == ("Unsupported config option 'enable_dp_attention' with action "
                                             "'DeprecatedStoreTrueAction' [SGLang 0.5.23]")
    assert _roles(doc) == {"m-prefill.yaml": "prefill", "m-decode.yaml": "decode"}
    assert code == 1


def test_the_refused_key_is_read_as_the_command_line_would_take_it(scratch_git):
    """SGL021 says to move the key to the command line: the launch is judged as it runs then (attention
    DP on), not without the key (attention TP 8 against the decode's 1)."""
    scratch_git.write("x-prefill.yaml", "model-path: /m\ndisaggregation-mode: prefill\ntp-size: 8\ndp-size: 8\n"
                                        "enable-dp-attention: true\n")
    scratch_git.write("x-decode.yaml", "model-path: /m\ndisaggregation-mode: decode\ntp-size: 8\n"
                                       "attn-dp-size: 8\n")
    _, doc = scratch_git.lint(".")
    # one finding on the refused line: not its deprecation (SGL008) besides
    assert _codes(doc) == [("SGL021", "x-prefill.yaml", 5)]


def test_every_refused_key_is_reported_and_a_true_pair_mismatch_stays(scratch_git):
    scratch_git.write("m-prefill.yaml", PREFILL)
    scratch_git.write("m-decode.yaml", "disaggregation-mode: decode\ntp-size: 4\nenable-dp-attention: true\n"
                                       "disable-cuda-graph: true\n")
    _, doc = scratch_git.lint(".")
    got = _codes(doc)
    assert ("SGL021", "m-decode.yaml", 3) in got and ("SGL021", "m-decode.yaml", 4) in got
    # the decode really has no kv-cache-dtype: that is still found, on the decode's role
    sgl804 = [f for f in doc["findings"] if f["code"] == "SGL804"]
    assert len(sgl804) == 1 and sgl804[0]["role"] == "decode"
    assert not any(c in ("PD105", "PD020", "SGL815") for c, _, _ in got)
