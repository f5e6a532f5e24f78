"""VLLM029 / VLLM040: a `--kv-transfer-config` field of the wrong type (the kv-config table's per-release `type`).

Field test rw23/b (differential test against vLLM 0.33.0's parser, repro/9; `"engine_id": 0` is what
vllm-project/vllm-ascend's historical examples/disaggregated_prefill_v1/run_producer.sh ships): the keys were
checked, the types not.  Oracle verdicts (scripts/vllm_oracle.py --batch, vLLM 0.33.0; recorded in
tests/conformance/vllm-kv-config-recorded-0.33.0.jsonl):

* `"engine_id": 0`                     REJECT string_type      `"engine_id": null`  ACCEPT
* `"kv_port": "abc"` / `30000.5` / null REJECT int_parsing / int_from_float / int_type
* `"kv_port": "30000"` / `30000.0` / true ACCEPT (pydantic's lax mode)
* `"kv_connector_extra_config": "x"`   REJECT dict_type
* `"enable_permute_local_kv": "maybe"` REJECT bool_parsing;  `"yes"`, `1` ACCEPT
* `"kv_buffer_device": null`           REJECT string_type (0.33.0: `str`; 0.9.2-0.11.0: `Optional[str]`, from the
  releases' vllm/config.py)
"""

NIXL = '"kv_connector":"NixlConnector","kv_role":"kv_producer"'


def _found(scratch_git, extra: str, pin: str = "") -> list:
    if pin:
        scratch_git.write("pyproject.toml", f'[tool.pdlint]\nvllm-version = "{pin}"\n')
    scratch_git.write("serve.sh", f"vllm serve Qwen/Qwen3-8B --kv-transfer-config '{{{NIXL},{extra}}}'\n")
    _, report = scratch_git.lint("serve.sh")
    return [(f["code"], f["severity"], f["message"]) for f in report["findings"] if f["code"] in ("VLLM029", "VLLM040")]


def test_a_value_of_the_wrong_type_is_an_error_with_pydantics_message(scratch_git):
    assert _found(scratch_git, '"engine_id":0,"kv_port":"abc"') == [
        ("VLLM029", "error", "engine_id: Input should be a valid string [type=string_type, input_value=0] (vLLM "
                             "0.33.0's KVTransferConfig.engine_id is str | None): vLLM refuses to start"),
        ("VLLM029", "error", "kv_port: Input should be a valid integer, unable to parse string as an integer "
                             "[type=int_parsing, input_value=\"abc\"] (vLLM 0.33.0's KVTransferConfig.kv_port is "
                             "int): vLLM refuses to start"),
    ]
    found = _found(scratch_git, '"kv_port":30000.5,"kv_connector_extra_config":"x","enable_permute_local_kv":"maybe"')
    assert [m.split(" [type=")[1].split(",")[0] for _, _, m in found] == ["int_from_float", "dict_type",
                                                                          "bool_parsing"]


def test_values_pydantic_converts_are_quiet(scratch_git):
    assert _found(scratch_git, '"engine_id":null,"kv_port":"30000","enable_permute_local_kv":"yes",'
                               '"kv_connector_extra_config":{}') == []
    assert _found(scratch_git, '"kv_port":30000.0,"enable_permute_local_kv":1') == []


def test_a_type_only_an_older_release_takes_warns_unpinned_and_follows_the_pin(scratch_git):
    found = _found(scratch_git, '"kv_buffer_device":null')
    assert [(c, s) for c, s, _ in found] == [("VLLM040", "warning")]
    assert "vLLM 0.9.2-0.11.0 take it" in found[0][2]
    assert _found(scratch_git, '"kv_buffer_device":null', pin="0.10.2") == []
    assert [(c, s) for c, s, _ in _found(scratch_git, '"kv_buffer_device":null', pin="0.33.0")] == \
        [("VLLM029", "error")]


def test_a_wrong_type_in_a_config_file_is_reported_at_its_line(scratch_git):
    scratch_git.write("prefill.yaml", "kv-transfer-config:\n  kv_connector: NixlConnector\n  kv_role: kv_producer\n"
                                      "  engine_id: 0\n")
    scratch_git.write("serve.sh", "vllm serve Qwen/Qwen3-8B --config prefill.yaml\n")
    _, report = scratch_git.lint("serve.sh")
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"] if f["code"] == "VLLM029"] == \
        [("VLLM029", "prefill.yaml", 4)]


def test_a_value_pdlint_cannot_see_is_not_judged(scratch_git):
    scratch_git.write("serve.sh", "vllm serve Qwen/Qwen3-8B --kv-transfer-config "
                                  f"'{{{NIXL},\"kv_port\":'\"$KV_PORT\"'}}'\n")
    _, report = scratch_git.lint("serve.sh")
    assert [f["code"] for f in report["findings"] if f["code"] in ("VLLM029", "VLLM040")] == []
