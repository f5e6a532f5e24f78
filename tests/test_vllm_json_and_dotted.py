"""A JSON value and dotted keys for one vLLM option: vLLM validates the JSON on its own and then replaces it.

Field test rw23/b (differential test against vLLM 0.33.0's parser, repro/10; base launch: a Nixl producer as in
vllm-project/vllm-ascend's PD examples): pdlint merged `--kv-transfer-config '{"kv_connector":"NixlConnector"}'
--kv-transfer-config.kv_role kv_producer` into one complete config.  vLLM 0.33.0 (scripts/vllm_oracle.py; source
vllm/utils/argparse_utils.py: the dotted keys are appended as one more `--kv-transfer-config JSON`):

* that command line: REJECT "Please specify kv_role when kv_connector is set" (the JSON validated by itself)
* `--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' --kv-transfer-config.kv_port
  1234`: ACCEPT, parsed as KVTransferConfig(kv_connector=None, kv_role=None, kv_port=1234), in either order
* `--compilation-config '{"mode":0}' -cc.max_cudagraph_capture_size 64`: ACCEPT, compilation_config.mode None
"""


def _codes(scratch_git, line: str) -> list:
    scratch_git.write("serve.sh", line + "\n")
    _, report = scratch_git.lint("serve.sh")
    return [(f["code"], f["column"], f["message"]) for f in report["findings"] if f["code"] in ("VLLM029", "VLLM041")]


def test_the_json_is_validated_alone_and_replaced(scratch_git):
    found = _codes(scratch_git, "vllm serve Qwen/Qwen3-8B --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}' "
                                "--kv-transfer-config.kv_role kv_producer")
    assert [(c, col) for c, col, _ in found] == [("VLLM041", 48), ("VLLM029", 65)]
    assert found[0][2].endswith("its kv_connector never reaches vLLM")
    assert found[1][2].startswith("Please specify kv_role when kv_connector is set")


def test_a_complete_json_loses_its_keys_to_a_dotted_one(scratch_git):
    found = _codes(scratch_git, "vllm serve Qwen/Qwen3-8B --kv-transfer-config.kv_port 1234 --kv-transfer-config "
                                "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}'")
    assert [(c, m.split(": vLLM passes")[0]) for c, _, m in found] == [
        ("VLLM041", "this --kv-transfer-config value is replaced by the --kv-transfer-config.kv_port... argument")]
    assert found[0][2].endswith("its kv_connector, kv_role never reach vLLM")


def test_a_short_alias_replaces_the_long_options_json(scratch_git):
    found = _codes(scratch_git, "vllm serve Qwen/Qwen3-8B --compilation-config '{\"mode\":0}' "
                                "-cc.max_cudagraph_capture_size 64")
    assert [c for c, _, _ in found] == ["VLLM041"]


def test_one_form_alone_is_quiet(scratch_git):
    assert _codes(scratch_git, "vllm serve Qwen/Qwen3-8B --kv-transfer-config.kv_connector NixlConnector "
                               "--kv-transfer-config.kv_role kv_producer -cc.max_cudagraph_capture_size 64") == []
    assert _codes(scratch_git, "vllm serve Qwen/Qwen3-8B --kv-transfer-config "
                               "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}' "
                               "--compilation-config '{\"mode\":0}'") == []
