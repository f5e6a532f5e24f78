"""VLLM044 / VLLM045: a key a vLLM config option's class does not have (`--compilation-config
'{"cudagraph_mod": ...}'`, `--compilation-config.bogus_key 1`, nested `pass_config` keys).

Cases written for pdlint's own test (the launch shape of vllm-project/vllm's PD examples).  Oracle verdicts
(scripts/vllm_oracle.py --batch, vLLM 0.33.0's parser):

* `--compilation-config '{"bogus_key": 1}'`                 REJECT unexpected_keyword_argument
* `--compilation-config '{"cudagraph_mod": "FULL"}'`        REJECT unexpected_keyword_argument
* `--compilation-config '{"level": 3}'`                     REJECT unexpected_keyword_argument (a 0.9.2-0.15.0 key)
* `--compilation-config '{"enabled_custom_ops": 1}'`        REJECT unexpected_keyword_argument (a field(init=False))
* `--compilation-config.bogus_key 1`                        REJECT unexpected_keyword_argument
* `-cc.cudagraph_mod FULL`                                  REJECT unexpected_keyword_argument
* `--compilation-config '{"pass_config": {"bogus": true}}'` REJECT unexpected_keyword_argument
* `--compilation-config.pass_config.bogus true`             REJECT unexpected_keyword_argument
* `--eplb-config '{"window_sze": 10}'`                      REJECT unexpected_keyword_argument
* `--compilation-config '{"cudagraph_mode": "FULL"}'`, `--compilation-config.cudagraph_mode FULL`,
  `--compilation-config '{"pass_config": {"fuse_norm_quant": true}}'`, `--eplb-config '{"window_size": 10}'`,
  `--attention-config '{"backend": "FLASH_ATTN"}'`                                         ACCEPT
* `--speculative-config '{"method": "ngram", "bogus": 2}'`  ACCEPT at parse; `SpeculativeConfig(method="ngram",
  bogus=2)` (what create_speculative_config builds) raises "1 validation error for SpeculativeConfig ... Unexpected
  keyword argument"
"""

PIN = "docker run vllm/vllm-openai:v0.33.0 --model M"


def _found(scratch_git, text: str, code: str) -> list:
    scratch_git.write("serve.sh", text)
    _, report = scratch_git.lint("serve.sh")
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == code]


def test_unknown_keys_are_errors_where_the_release_is_pinned(scratch_git):
    found = _found(scratch_git, f"{PIN} --compilation-config '{{\"cudagraph_mod\": \"FULL\"}}'\n"
                                f"{PIN} --compilation-config '{{\"level\": 3, \"enabled_custom_ops\": 1}}'\n"
                                f"{PIN} --compilation-config '{{\"pass_config\": {{\"bogus\": true}}}}'\n"
                                f"{PIN} --eplb-config '{{\"window_sze\": 10}}'\n", "VLLM044")
    assert [(line, m) for line, _, m in found] == [
        (1, "argument --compilation-config: 1 validation error for CompilationConfig: cudagraph_mod: Unexpected "
            "keyword argument [type=unexpected_keyword_argument] (vLLM 0.33.0 refuses to start; did you mean "
            "cudagraph_mode?)"),
        (2, "argument --compilation-config: 1 validation error for CompilationConfig: level: Unexpected keyword "
            "argument [type=unexpected_keyword_argument] (vLLM 0.33.0 refuses to start; it is a key in vLLM "
            "0.9.2-0.15.0)"),
        (2, "argument --compilation-config: 1 validation error for CompilationConfig: enabled_custom_ops: "
            "Unexpected keyword argument [type=unexpected_keyword_argument] (vLLM 0.33.0 refuses to start)"),
        (3, "argument --compilation-config: 1 validation error for PassConfig: pass_config.bogus: Unexpected "
            "keyword argument [type=unexpected_keyword_argument] (vLLM 0.33.0 refuses to start)"),
        (4, "argument --eplb-config: 1 validation error for EPLBConfig: window_sze: Unexpected keyword argument "
            "[type=unexpected_keyword_argument] (vLLM 0.33.0 refuses to start; did you mean window_size?)"),
    ]
    # at the key itself
    assert found[0][1] == len(f"{PIN} --compilation-config '{{\"") + 1


def test_dotted_keys_are_judged_at_their_name(scratch_git):
    text = f"{PIN} --compilation-config.bogus_key 1 -cc.cudagraph_mod FULL --compilation-config.pass_config.bogus true\n"
    found = _found(scratch_git, text, "VLLM044")
    assert [m.split(": Unexpected")[0] for _, _, m in found] == [
        "argument --compilation-config: 1 validation error for CompilationConfig: bogus_key",
        "argument -cc: 1 validation error for CompilationConfig: cudagraph_mod",
        "argument --compilation-config: 1 validation error for PassConfig: pass_config.bogus",
    ]
    assert [c for _, c, _ in found] == [text.index(w) + 1 for w in (
        "--compilation-config.bogus_key", "-cc.", "--compilation-config.pass_config")]


def test_keys_the_release_has_are_quiet(scratch_git):
    text = (f"{PIN} --compilation-config '{{\"cudagraph_mode\": \"FULL\", \"pass_config\": {{\"fuse_norm_quant\": "
            f"true}}}}' --eplb-config '{{\"window_size\": 10}}' --attention-config '{{\"backend\": \"FLASH_ATTN\"}}'\n"
            f"{PIN} --compilation-config.cudagraph_mode FULL -cc.pass_config.fuse_norm_quant true "
            f"--speculative-config '{{\"method\": \"ngram\", \"num-speculative-tokens\": 3}}'\n"
            f"{PIN} --compilation-config \"$CC\" --kv-transfer-config '{{\"kv_connector\": \"NixlConnector\", "
            f"\"kv_role\": \"kv_both\"}}'\n")
    assert _found(scratch_git, text, "VLLM044") == []
    assert _found(scratch_git, text, "VLLM045") == []


def test_no_release_pinned_is_a_warning(scratch_git):
    text = "vllm serve M --compilation-config '{\"cudagraph_mod\": \"FULL\"}' --compilation-config.bogus_key 1\n"
    assert _found(scratch_git, text, "VLLM044") == []
    found = _found(scratch_git, text, "VLLM045")
    assert [m.split(" is not a key")[0] for _, _, m in found] == [
        "argument --compilation-config: cudagraph_mod", "argument --compilation-config: bogus_key"]
    assert "did you mean cudagraph_mode?" in found[0][2] and "pin the release" in found[0][2]


def test_a_release_that_drops_unknown_keys_is_a_warning(scratch_git):
    """vLLM 0.9.2-0.11.0's config classes are pydantic dataclasses without extra="forbid": the key is dropped."""
    text = "docker run vllm/vllm-openai:v0.10.1 --model M --compilation-config '{\"cudagraph_mod\": \"FULL\"}'\n"
    assert _found(scratch_git, text, "VLLM044") == []
    [(_, _, m)] = _found(scratch_git, text, "VLLM045")
    assert m.startswith("cudagraph_mod is not a key of vLLM 0.10.1's CompilationConfig: pydantic drops it")


def test_speculative_config_is_refused_only_when_the_engine_config_is_built(scratch_git):
    text = f"{PIN} --speculative-config '{{\"method\": \"ngram\", \"bogus\": 2}}'\n"
    assert _found(scratch_git, text, "VLLM044") == []
    [(_, _, m)] = _found(scratch_git, text, "VLLM045")
    assert "bogus is not a key of vLLM 0.33.0's SpeculativeConfig: the server stops when vLLM builds its engine " \
           "config" in m
