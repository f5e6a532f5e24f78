"""A mapping-valued key in an srt-slurm recipe's ``vllm_config`` / ``sglang_config`` section (stop 48's left item,
from fix helper w31): srtctl turns it into ``--key str(value)`` - Python's ``str()`` of the dict, single quotes -
so a ``kv-transfer-config`` written as a YAML mapping reaches vLLM as ``{'kv_connector': 'NixlConnector', ...}``,
which vLLM refuses; pdlint passed the mapping's JSON instead (no error) and called the mapping's lines launch
text it had not checked (PD020).

Ground truth:
- NVIDIA/srt-slurm c88ef73 src/srtctl/backends/vllm.py and sglang.py ``_config_to_cli_args``:
  ``elif value is not None: args.extend([f"--{flag_name}", str(value)])`` (a list: ``str(v)`` per item); the
  sections are ``dict[str, Any]`` (``VLLMServerConfig``), loaded with ``yaml.safe_load``.
- vLLM 0.33.0 oracle (scripts/vllm_oracle.py --batch): ``--kv-transfer-config "{'kv_connector': 'NixlConnector',
  'kv_role': 'kv_both'}"`` REJECT (pydantic ``json_invalid``); the same as JSON ACCEPT.
"""

RECIPE = """\
name: vllm-disagg
model:
  path: deepseek-ai/DeepSeek-R1
  container: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0
resources:
  prefill_workers: 1
  decode_workers: 1
backend:
  type: vllm
  vllm_config:
    prefill:
      tensor-parallel-size: 8
{prefill}
    decode:
      tensor-parallel-size: 8
      compilation-config: {{}}
"""

MAPPING = """\
      kv-transfer-config:
        kv_connector: NixlConnector
        kv_role: kv_both"""

JSON_STRING = """\
      kv-transfer-config: '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'"""


def test_a_mapping_kv_transfer_config_is_refused_as_srtctl_passes_it(scratch):
    scratch.write("recipe.yaml", RECIPE.format(prefill=MAPPING))
    code, report = scratch.lint("recipe.yaml")
    got = [(f["code"], f["line"], f["column"], f["role"]) for f in report["findings"]]
    assert got == [("VLLM001", 13, 7, "prefill")] and code == 1
    message = report["findings"][0]["message"]
    assert "srtctl passes a YAML mapping as Python's str() of it" in message
    assert "write the value as a JSON string" in message
    # the mapping's lines are what the launch was built from: no "launch text not checked" at `kv_role`
    assert report["coverage"]["unchecked"] == 0


def test_a_json_string_and_an_empty_mapping_stay_quiet(scratch):
    """`compilation-config: {}` is `str({})` = `{}`, valid JSON."""
    scratch.write("recipe.yaml", RECIPE.format(prefill=JSON_STRING))
    code, report = scratch.lint("recipe.yaml")
    assert report["findings"] == [] and code == 0
    assert report["coverage"]["unchecked"] == 0


def test_the_same_mapping_in_a_ray_sglang_config_is_passed_as_a_value(scratch):
    """Ray's SGLangServer hands ``engine_kwargs`` to SGLang as Python values (no command line): a mapping there
    is not turned into a string, and its lines count as checked."""
    scratch.write("serve.yaml", """\
        applications:
          - name: pd
            import_path: ray.serve.llm:build_pd_openai_app
            args:
              prefill_config:
                server_cls: ray.llm._internal.serve.engines.sglang:SGLangServer
                model_loading_config:
                  model_id: qwen
                  model_source: Qwen/Qwen3-8B
                engine_kwargs:
                  tp_size: 1
                  json_model_override_args:
                    rope_scaling: null
        """)
    code, report = scratch.lint("serve.yaml")
    assert [f for f in report["findings"] if f["severity"] == "error"] == [] and code == 0
    assert report["coverage"]["unchecked"] == 0
