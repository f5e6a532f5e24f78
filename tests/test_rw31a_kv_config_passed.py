"""Field round rw31/a problem 5: the ``kv_transfer_config`` of a Ray Serve LLM config (``engine_kwargs``) and
the ``kv-transfer-config`` of an srt-slurm recipe's ``vllm_config`` section reach vLLM as written, so they are
judged as on a ``vllm serve`` line (VLLM029); they had been skipped as if an operator wrote them.

Ground truth:
- Ray passes ``engine_kwargs`` to vLLM's engine arguments; its connector backends only add ``engine_id`` (NIXL)
  or make ``kv_connector_extra_config.lmcache_rpc_port`` unique (ray-project/ray
  python/ray/llm/_internal/serve/engines/vllm/kv_transfer/nixl.py ``NixlConnectorBackend.setup``, lmcache.py).
  vLLM 0.33.0 ``VllmConfig(kv_transfer_config={..., "backends": ["UCX"]})`` refuses:
  ``kv_transfer_config.backends: Unexpected keyword argument``; ``kv_role: kv_bogusrole``: ``literal_error``
  (rw31/a repro/5, with the vLLM oracle).
- srtctl writes ``--kv-transfer-config <its connector preset>`` first and the section's flags last
  (NVIDIA/srt-slurm src/srtctl/backends/vllm.py build_worker_command: ``cmd.extend(_config_to_cli_args(config))``),
  so the section's value is the one vLLM's argparse keeps.
"""

import pytest

RAY = """\
applications:
  - name: pd
    route_prefix: /
    import_path: ray.serve.llm:build_pd_openai_app
    args:
      prefill_config:
        model_loading_config:
          model_id: qwen
          model_source: Qwen/Qwen3-8B
        engine_kwargs:
          kv_transfer_config:
            kv_connector: NixlConnector
            kv_role: {prefill_role}
            {prefill_extra}
      decode_config:
        model_loading_config:
          model_id: qwen
          model_source: Qwen/Qwen3-8B
        engine_kwargs:
          kv_transfer_config:
            kv_connector: NixlConnector
            kv_role: kv_both
            {decode_extra}
"""


def _ray(prefill_role="kv_both", prefill_extra="", decode_extra=""):
    return RAY.format(prefill_role=prefill_role, prefill_extra=prefill_extra or "engine_id: p",
                      decode_extra=decode_extra or "engine_id: d")


def test_ray_serve_kv_transfer_config_is_judged_as_vllm_reads_it(scratch):
    scratch.write("serve_pd.yaml", _ray("kv_bogusrole", 'backends: ["UCX"]', "kv_bogus_key: 1"))
    code, report = scratch.lint("serve_pd.yaml")
    got = sorted((f["code"], f["line"], f["role"]) for f in report["findings"])
    assert got == [("VLLM029", 13, "prefill"), ("VLLM029", 14, "prefill"), ("VLLM029", 23, "decode")]
    assert code == 1
    messages = " ".join(f["message"] for f in report["findings"])
    assert "backends is not a field" in messages and "kv_bogus_key is not a field" in messages
    assert "'kv_bogusrole' is not one of" in messages


def test_ray_serve_valid_kv_transfer_config_stays_quiet(scratch):
    scratch.write("serve_pd.yaml", _ray(
        "kv_both", 'kv_connector_extra_config: {backends: ["UCX"]}', "kv_buffer_device: cuda"))
    code, report = scratch.lint("serve_pd.yaml")
    assert report["findings"] == [] and code == 0
    assert report["coverage"]["prefill"] == 1 and report["coverage"]["decode"] == 1


SRT = """\
name: "qwen3-32b-vllm-disagg"
model:
  path: "qwen3-32b-fp8"
  container: "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0"
resources:
  gpu_type: "h100"
  gpus_per_node: 8
  prefill_nodes: 1
  decode_nodes: 1
  prefill_workers: 1
  decode_workers: 1
backend:
  type: vllm
  connector: nixl
  vllm_config:
    prefill:
      tensor-parallel-size: 2
      kv-transfer-config: '{{"kv_connector": "NixlConnector", "kv_role": "{role}"}}'
    decode:
      tensor-parallel-size: 2
      kv-transfer-config: '{{"kv_connector": "NixlConnector", "kv_role": "kv_both"}}'
"""


def test_srt_slurm_vllm_config_kv_transfer_config_is_judged(scratch):
    scratch.write("recipe.yaml", SRT.format(role="kv_bogus"))
    code, report = scratch.lint("recipe.yaml")
    got = [(f["code"], f["line"], f["role"]) for f in report["findings"] if f["code"].startswith("VLLM")]
    assert got == [("VLLM029", 18, "prefill")] and code == 1
    assert "'kv_bogus' is not one of" in report["findings"][0]["message"]


def test_srt_slurm_valid_kv_transfer_config_stays_quiet(scratch):
    scratch.write("recipe.yaml", SRT.format(role="kv_both"))
    code, report = scratch.lint("recipe.yaml")
    assert [f for f in report["findings"] if f["severity"] == "error"] == [] and code == 0
    assert not any(f["code"] == "VLLM029" for f in report["findings"])


def test_a_config_the_chart_writes_stays_unjudged(scratch):
    """vLLM production-stack: the chart writes --kv-transfer-config from lmcacheConfig after the extraArgs, so a
    config in extraArgs is dead (VLLM038), never judged as the one vLLM reads (as before)."""
    scratch.write("values.yaml", """\
        servingEngineSpec:
          modelSpec:
            - name: "llama-prefill"
              repository: "lmcache/vllm-openai"
              tag: "nightly-2025-08-20"
              modelURL: "meta-llama/Llama-3.1-8B-Instruct"
              vllmConfig:
                extraArgs:
                  - "--kv-transfer-config"
                  - '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_bogus_key":1}'
              lmcacheConfig:
                enabled: true
                kvRole: "kv_producer"
                enableNixl: true
                enablePD: true
            - name: "llama-decode"
              repository: "lmcache/vllm-openai"
              tag: "nightly-2025-08-20"
              modelURL: "meta-llama/Llama-3.1-8B-Instruct"
              lmcacheConfig:
                enabled: true
                kvRole: "kv_consumer"
                enableNixl: true
                enablePD: true
        """)
    _, report = scratch.lint("values.yaml")
    assert report["coverage"]["launches"] == 2
    assert not any(f["code"] == "VLLM029" for f in report["findings"])


@pytest.mark.parametrize("value", ["true", "on", "1"])
def test_a_kv_role_that_is_no_string_is_refused_on_ray_and_vllm_serve(scratch, value):
    """Hostile-input round rw32/h P6: `kv_role: true` (YAML), `"kv_role": true` (JSON) passed - only a string value
    was checked against the Literal's words. vLLM 0.33.0 (oracle venv): `KVTransferConfig(kv_connector=
    "NixlConnector", kv_role=True)` -> `kv_role: Input should be 'kv_producer', 'kv_both' or 'kv_consumer'
    [type=literal_error, input_value=True]`; `kv_role=1` the same (pydantic's Literal takes no other type)."""
    scratch.write("serve_pd.yaml", _ray(value, "", "kv_buffer_device: cuda"))
    json_value = {"true": "true", "on": "true", "1": "1"}[value]
    scratch.write("run.sh", "vllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config "
                            f"'{{\"kv_connector\":\"NixlConnector\",\"kv_role\":{json_value}}}'\n")
    code, report = scratch.lint(".")
    got = sorted((f["path"], f["code"], f["line"]) for f in report["findings"] if f["severity"] == "error")
    assert got == [("run.sh", "VLLM029", 1), ("serve_pd.yaml", "VLLM029", 13)] and code == 1
    assert all(" is not one of 'kv_both', 'kv_consumer', 'kv_producer'" in f["message"] for f in report["findings"]
               if f["code"] == "VLLM029")


def test_a_kv_role_word_or_null_stays_quiet(scratch):
    """`kv_role: null` is vLLM's default (no role): not this rule's (a connector without a role is VLLM's own
    "Please specify kv_role" check, elsewhere)."""
    scratch.write("run.sh", "vllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config "
                            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n")
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
