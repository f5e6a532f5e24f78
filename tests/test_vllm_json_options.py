"""VLLM043: a value the converter of a vLLM JSON option refuses (not `--kv-transfer-config`: VLLM001).

Field test rw23/b (differential test against vLLM 0.33.0's parser, repro/1 and repro/9; base launches from
vllm-project/vllm-ascend's PD examples, whose `--additional-config` values are JSON).  Oracle verdicts
(scripts/vllm_oracle.py --batch, vLLM 0.33.0):

* `--compilation-config '{cudagraph_mode:FULL}'`     REJECT json_invalid
* `--compilation-config 3`                           REJECT dataclass_type
* `--speculative-config '{method: ngram}'`           REJECT "Value {method: ngram} cannot be converted to <function
  loads>."
* `--additional-config '{enable_graph_mode: True}'`  REJECT "Value {enable_graph_mode: True} cannot be converted to
  <function loads>."
* `--compilation-config '{"cudagraph_mode":"FULL","max_cudagraph_capture_size":1k}' --speculative-config
  '{"method":"ngram"}' --additional-config '{"a":1}' --hf-overrides plain`   ACCEPT
"""


def _found(scratch_git, text: str) -> list:
    scratch_git.write("serve.sh", text)
    _, report = scratch_git.lint("serve.sh")
    return [(f["line"], f["message"]) for f in report["findings"] if f["code"] == "VLLM043"]


def test_text_that_is_no_json_and_a_non_object_are_errors(scratch_git):
    found = _found(scratch_git, "vllm serve M --compilation-config '{cudagraph_mode:FULL}'\n"
                                "docker run vllm/vllm-openai:v0.33.0 --model M --compilation-config 3\n"
                                "vllm serve M --speculative-config '{method: ngram}'\n"
                                "vllm serve M --additional-config '{enable_graph_mode: True}'\n")
    assert [(line, m.split(" [type=")[0].split(" (vLLM")[0]) for line, m in found] == [
        (1, "argument --compilation-config/-cc: invalid JSON (Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1))"),
        (2, "argument --compilation-config/-cc: '3' is not a JSON object"),
        (3, "argument --speculative-config/-sc: Value {method: ngram} cannot be converted to <function loads>."),
        (4, "argument --additional-config: Value {enable_graph_mode: True} cannot be converted to <function loads>."),
    ]


def test_json_vllm_reads_is_quiet(scratch_git):
    assert _found(scratch_git, "vllm serve M --compilation-config "
                               "'{\"cudagraph_mode\":\"FULL\",\"max_cudagraph_capture_size\":1k}' --speculative-config "
                               "'{\"method\":\"ngram\"}' --additional-config '{\"a\":1}' --hf-overrides plain\n") == []
    assert _found(scratch_git, "vllm serve M --speculative-config None --compilation-config \"$CC\"\n") == []


def test_key_value_pairs_are_a_dict_up_to_vllm_0_9(scratch_git):
    """vLLM 0.9.2's parse_type(json.loads) reads a value not written as `{...}` as KEY=INT pairs (nullable_kvs,
    arg_utils.py:61, removed in 0.10.0): XinyueZhang369/ome's runtimes (`--limit-mm-per-prompt image=1` on 0.9.2)
    got a false VLLM043 (field compare, stop 41)."""
    pin = "vllm/vllm-openai:v0.9.2"
    assert _found(scratch_git, f"docker run {pin} --model M --limit-mm-per-prompt image=1,video=2\n") == []
    [(line, message)] = _found(scratch_git, f"docker run {pin} --model M --limit-mm-per-prompt image=one\n")
    assert message.startswith("argument --limit-mm-per-prompt: Failed to parse value of item image=one")


def test_a_level_for_the_compilation_config_is_judged_for_a_pinned_release_only(scratch_git):
    """vllm-project/production-stack's `lmcache/vllm-openai:2025-05-05-v1` (a build of a release that took
    `--compilation-config 3` as a level) got a false VLLM043 error, judged as 0.33.0 (field compare, stop 41)."""
    assert _found(scratch_git, "docker run lmcache/vllm-openai:2025-05-05-v1 --model M --compilation-config 3\n") == []
