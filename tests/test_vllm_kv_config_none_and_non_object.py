"""`--kv-transfer-config` values vLLM reads as None, and JSON that is no object.

Field round rw28/b (differential test against vLLM 0.33.0's parser), P2 and P5.  The option's converter is
`optional_type(parse_dataclass)` in every release pdlint has a table for (vllm/engine/arg_utils.py: `if val == "" or
val == "None": return None`).  Oracle verdicts (scripts/vllm_oracle.py --batch, vLLM 0.33.0; gen/vllm_show.py for
the parsed value):

* `--kv-transfer-config ''`, `--kv-transfer-config None`, `--kv-transfer-config=`  ACCEPT, kv_transfer_config=None
* `--kv-transfer-config none`  REJECT (json_invalid)
* `--kv-transfer-config null` / `[]` / `[1]` / `1` / `'"x"'` / `true`  REJECT "argument --kv-transfer-config: 1
  validation error for KVTransferConfig / Input should be an object [type=dataclass_type, input_value=None,
  input_type=NoneType]" (input_value=[], input_type=list; ...)
"""

import pytest

NIXL = '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'


def _findings(scratch_git, script: str, *args) -> list:
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint("--vllm-version", "0.33.0", *args, "serve.sh")
    return [(f["code"], f["line"], f["column"], f["message"]) for f in report["findings"]]


@pytest.mark.parametrize("value", ["''", "None", '""'])
def test_an_empty_or_none_kv_transfer_config_is_no_kv_transfer_not_invalid_json(scratch_git, value):
    assert _findings(scratch_git, f"vllm serve /models/llama --port 8100 --kv-transfer-config {value}\n") == []


def test_the_equals_form_with_nothing_after_it_is_none_too(scratch_git):
    assert _findings(scratch_git, "vllm serve /models/llama --port 8100 --kv-transfer-config=\n") == []


def test_other_invalid_json_stays_vllm001(scratch_git):
    found = _findings(scratch_git, "vllm serve /models/llama --port 8100 --kv-transfer-config none\n"
                                   "vllm serve /models/llama --port 8200 --kv-transfer-config '{bad'\n")
    assert [(c, line) for c, line, _, _ in found] == [("VLLM001", 1), ("VLLM001", 2)]


def test_a_named_prefill_whose_config_is_none_has_no_connector(scratch_git):
    scratch_git.write("docker-compose.yml", """\
        services:
          prefill:
            image: vllm/vllm-openai:v0.33.0
            command: >
              --model Qwen/Qwen3-8B --port 8010 --kv-transfer-config ""
        """)
    _, report = scratch_git.lint("docker-compose.yml")
    [(code, msg, fix)] = [(f["code"], f["message"], f["fix"]) for f in report["findings"]]
    assert code == "PD105"
    assert "its --kv-transfer-config '' reads as None: vLLM starts it as an ordinary server" in msg
    # (the help names vLLM's fix, not SGLang's --disaggregation-mode first: field round rw29/a)
    assert fix.startswith("Add a `--kv-transfer-config`") and "--disaggregation-mode" not in fix


@pytest.mark.parametrize("value, shown", [
    ("null", "input_value=None, input_type=NoneType"),
    ("'[]'", "input_value=[], input_type=list"),
    ("1", "input_value=1, input_type=int"),
    ("'\"x\"'", "input_value='x', input_type=str"),
    ("true", "input_value=True, input_type=bool"),
])
def test_json_that_is_no_object_is_refused(scratch_git, value, shown):
    found = _findings(scratch_git, f"vllm serve /models/llama --port 8100 --kv-transfer-config {value}\n")
    column = 60 if value.startswith("'") else 59  # (the value, inside its quotes)
    assert found == [("VLLM029", 1, column, "argument --kv-transfer-config: 1 validation error for KVTransferConfig: "
                                        f"Input should be an object [type=dataclass_type, {shown}] (vLLM 0.33.0 "
                                        "refuses to start)")]


def test_an_earlier_occurrence_that_is_no_object_is_refused_too(scratch_git):
    """argparse converts every occurrence; the last one (an object) is the one kept."""
    found = _findings(scratch_git, f"vllm serve /models/llama --kv-transfer-config null --kv-transfer-config '{NIXL}'\n")
    assert [(c, col) for c, _, col, _ in found if c == "VLLM029"] == [("VLLM029", 47)]


def test_an_object_is_quiet(scratch_git):
    assert _findings(scratch_git, f"vllm serve /models/llama --port 8100 --kv-transfer-config '{NIXL}'\n") == []
