"""Ray Serve LLM prefill/decode applications (ray-project/ray doc/source/serve/doc_code/pd_dissagregation):
`applications[].args.prefill_config` / `decode_config`, whose `engine_kwargs` Ray passes to vLLM's engine
arguments. They had been PD020 ("a structure pdlint does not recognise")."""

import os

DATA = os.path.join(os.path.dirname(__file__), "data", "ray")


def _copy(scratch, name, edit=lambda t: t):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        scratch.write(name, edit(f.read()))


def test_the_examples_are_pairs_and_clean(scratch_git):
    _copy(scratch_git, "nixl_example.yaml")
    _copy(scratch_git, "lmcache_nixl_example.yaml")
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert report["coverage"]["prefill"] == 2 and report["coverage"]["decode"] == 2
    assert report["coverage"]["unchecked"] == 0
    assert sum(len(d["pairs"]) for d in report["pairs"]) == 2
    prefill = next(l for l in report["launches"] if l["path"] == "nixl_example.yaml" and l["role"] == "prefill")
    assert prefill["argv"][0] == "meta-llama/Llama-3.1-8B-Instruct"
    i = prefill["argv"].index("--kv_transfer_config")
    assert '"kv_role": "kv_producer"' in prefill["argv"][i + 1]


def test_a_role_key_whose_kv_role_says_otherwise(scratch_git):
    _copy(scratch_git, "nixl_example.yaml", lambda t: t.replace("kv_producer", "kv_consumer", 1))
    _, report = scratch_git.lint("nixl_example.yaml")
    codes = {(f["code"], f["line"]) for f in report["findings"]}
    assert ("PD101", 12) in codes  # at the prefill's kv_role


def test_an_engine_kwarg_typo_is_reported_at_its_key(scratch_git):
    _copy(scratch_git, "nixl_example.yaml",
          lambda t: t.replace("engine_id: engine1", "engine_id: engine1\n          gpu_memory_utilisation: 0.9", 1))
    code, report = scratch_git.lint("nixl_example.yaml")
    (f,) = report["findings"]
    assert (f["code"], f["line"], f["role"]) == ("VLLM018", 14, "prefill") and code == 1
    assert "did you mean --gpu-memory-utilization" in f["message"]


def test_different_connectors_on_the_two_roles(scratch_git):
    _copy(scratch_git, "nixl_example.yaml", lambda t: t.replace("NixlConnector", "LMCacheConnectorV1", 1))
    _, report = scratch_git.lint("nixl_example.yaml")
    assert [f["code"] for f in report["findings"]] == ["VLLM010"]


def test_other_ray_serve_applications_are_not_launches(scratch_git):
    scratch_git.write("serve.yaml", "applications:\n  - name: app\n    import_path: my.module:app\n"
                                    "    args:\n      llm_configs:\n        - model_loading_config:\n"
                                    "            model_id: m\n")
    code, report = scratch_git.lint("serve.yaml")
    assert report["launches"] == [] and code == 0


# reduced from anyscale/ray-serve-llm-perf-examples pd+kv_offloading/collocated_lmcache.yaml (a builder's own
# `llm_config`) and horizontal_scaling configs; `build_openai_app` takes the same configs as `llm_configs`
OPENAI_APP = """\
    applications:
      - name: gptoss
        import_path: builder:collocated_builder
        runtime_env:
          env_vars:
            LMCACHE_LOCAL_CPU: "True"
        args:
          KEY:
            model_loading_config:
              model_id: openai/gpt-oss-120b
            engine_kwargs:
              max_model_len: 16000
              tensor_parallel_size: 4
              kv_transfer_config:
                kv_connector: LMCacheConnectorV1
                kv_role: kv_both
    """


def test_an_openai_app_config_with_engine_arguments_is_a_server(scratch_git):
    scratch_git.write("serve.yaml", OPENAI_APP.replace("KEY", "llm_config"))
    code, report = scratch_git.lint("serve.yaml")
    assert report["findings"] == [] and code == 0 and report["coverage"]["unchecked"] == 0
    (launch,) = report["launches"]
    assert (launch["line"], launch["role"], launch["entrypoint"]) == (8, None, "vllm serve")
    assert launch["argv"][:3] == ["openai/gpt-oss-120b", "--max_model_len", "16000"]
    from pdlint.extract import Options
    from pdlint.lint import run
    (l,) = run([str(scratch_git.root / "serve.yaml")], Options(cwd=str(scratch_git.root))).launches
    assert l.env["LMCACHE_LOCAL_CPU"].text == "True"  # the application's runtime_env


def test_each_config_of_an_llm_configs_list_is_checked(scratch_git):
    text = OPENAI_APP.replace("KEY:", "llm_configs:").replace("            model_loading_config:",
                                                               "          - model_loading_config:")
    text = text.replace("max_model_len: 16000", "max_model_length: 16000")
    scratch_git.write("serve.yaml", text)
    code, report = scratch_git.lint("serve.yaml")
    (f,) = report["findings"]
    assert (f["code"], f["line"], f["column"]) == ("VLLM018", 12, 11) and code == 1
    assert "did you mean --max-model-len" in f["message"]


# Ray's SGLang integration (docs.ray.io serve/llm/user-guides/sglang): `server_cls` names SGLangServer and the
# engine_kwargs are SGLang's server arguments; they had been checked as vLLM's (three false VLLM018)
SGLANG_APP = """\
    applications:
      - name: sglang-app
        import_path: ray.serve.llm:build_openai_app
        args:
          llm_configs:
            - model_loading_config:
                model_id: qwen
                model_source: Qwen/Qwen3-8B
              server_cls: ray.llm._internal.serve.engines.sglang:SGLangServer
              engine_kwargs:
                tp_size: 2
                mem_fraction_static: 0.8
    """


def test_an_sglang_server_class_takes_sglang_arguments(scratch_git):
    scratch_git.write("serve.yaml", SGLANG_APP)
    code, report = scratch_git.lint("serve.yaml")
    assert report["findings"] == [] and code == 0
    (launch,) = report["launches"]
    assert (launch["engine"], launch["line"]) == ("sglang", 6)
    assert launch["argv"] == ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2", "--mem-fraction-static", "0.8"]


def test_an_sglang_engine_argument_typo_is_sglangs(scratch_git):
    scratch_git.write("serve.yaml", SGLANG_APP.replace("mem_fraction_static", "mem_fraction_statik"))
    code, report = scratch_git.lint("serve.yaml")
    (f,) = report["findings"]
    assert f["code"].startswith("SGL") and (f["line"], f["column"]) == (12, 13) and code == 1
    assert "--mem-fraction-static" in f["message"]


SGLANG_PD = """\
    applications:
      - name: sglang-pd
        import_path: ray.serve.llm:build_pd_openai_app
        args:
          prefill_config:
            model_loading_config: {model_source: Qwen/Qwen3-8B}
            server_cls: ray.llm._internal.serve.engines.sglang:SGLangServer
            engine_kwargs:
              disaggregation_transfer_backend: nixl
              enable_linear_replayssm_spec: true
          decode_config:
            model_loading_config: {model_source: Qwen/Qwen3-8B}
            server_cls: ray.llm._internal.serve.engines.sglang:SGLangServer
            engine_kwargs:
              disaggregation_transfer_backend: nixl
    """


def test_sglang_prefill_and_decode_configs_get_their_mode(scratch_git):
    scratch_git.write("serve.yaml", SGLANG_PD)
    code, report = scratch_git.lint("serve.yaml")
    roles = {l["role"]: l["argv"] for l in report["launches"]}
    assert roles["prefill"][2:4] == ["--disaggregation-mode", "prefill"]
    assert roles["decode"][2:4] == ["--disaggregation-mode", "decode"]
    assert [(f["code"], f["role"], f["line"]) for f in report["findings"]] == [("SGL101", "prefill", 10)]
    assert sum(len(d["pairs"]) for d in report["pairs"]) == 1 and code == 1


def test_another_server_class_is_no_vllm_launch(scratch_git):
    scratch_git.write("serve.yaml", SGLANG_APP.replace("ray.llm._internal.serve.engines.sglang:SGLangServer",
                                                       "my_pkg.server:CustomServer"))
    code, report = scratch_git.lint("serve.yaml")
    assert report["launches"] == [] and report["findings"] == [] and code == 0


RAY_PD = """\
applications:
  - name: gptoss-pd-nixl
    import_path: builder:pd_builder
    args:
      prefill_config:
        model_loading_config:
          model_id: gptoss
          model_source: openai/gpt-oss-120b
        engine_kwargs:
          kv_transfer_config: {kv_connector: NixlConnector, kv_role: kv_both}
      decode_config:
        model_loading_config:
          model_id: gptoss
          model_source: DECODE
        engine_kwargs:
          kv_transfer_config: {kv_connector: NixlConnector, kv_role: kv_both}
"""


def test_the_model_is_the_weights_model_source_names(scratch_git):
    """anyscale/ray-serve-llm-perf-examples pd+kv_offloading/pd_nixl.yaml (field test rw15/i): `model_id` is the
    name clients ask for, `model_source` the weights vLLM loads; a 120b prefill and a 20b decode under one id
    passed clean."""
    scratch_git.write("pd.yaml", RAY_PD.replace("DECODE", "openai/gpt-oss-20b"))
    code, report = scratch_git.lint("pd.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM013", 14)]  # the decode's model_source
    scratch_git.write("pd.yaml", RAY_PD.replace("DECODE", "openai/gpt-oss-120b"))
    code, report = scratch_git.lint("pd.yaml")
    assert report["findings"] == [] and code == 0
    assert [l["argv"][0] for l in report["launches"]] == ["openai/gpt-oss-120b"] * 2


def test_a_ray_service_s_serve_config_is_read(scratch_git):
    """KubeRay RayService (field test rw15/i: the same config in spec.serveConfigV2 was two PD020)."""
    inner = "\n".join("    " + line for line in RAY_PD.splitlines())
    svc = ("apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: gptoss-pd\nspec:\n  serveConfigV2: |\n"
           + inner + "\n  rayClusterConfig:\n    headGroupSpec: {}\n")
    scratch_git.write("svc.yaml", svc.replace("DECODE", "openai/gpt-oss-20b"))
    code, report = scratch_git.lint("svc.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM013", 20)]  # in the string, at its line
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    scratch_git.write("svc.yaml", svc.replace("DECODE", "openai/gpt-oss-120b"))
    code, report = scratch_git.lint("svc.yaml")
    assert (code, report["findings"]) == (0, []) and report["coverage"]["unchecked"] == 0


def test_pd109_the_two_configs_must_name_one_model_id(scratch_git):
    """Ray 2.52.0 prefill_decode/builder.py:101: `if self.prefill_config.model_id != self.decode_config.model_id:
    raise ValueError("P/D model id mismatch")` (field test rw15/i: the same weights under two ids)."""
    head, _, tail = RAY_PD.replace("DECODE", "openai/gpt-oss-120b").rpartition("model_id: gptoss")
    two_ids = head + "model_id: gptoss-decode" + tail  # (the decode's)
    scratch_git.write("pd.yaml", two_ids)
    code, report = scratch_git.lint("pd.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD109", 13)] and code == 1
    assert "'gptoss' but the decode config's 'gptoss-decode'" in report["findings"][0]["message"]
    scratch_git.write("pd.yaml", RAY_PD.replace("DECODE", "openai/gpt-oss-120b"))
    code, report = scratch_git.lint("pd.yaml")
    assert report["findings"] == [] and code == 0


RAY_PY = """\
from ray import serve
from ray.serve.llm import LLMConfig, build_pd_openai_app

def cfg(role):
    return LLMConfig(model_loading_config={"model_id": "qwen"},
                     engine_kwargs={"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": role}})

serve.run(build_pd_openai_app({"prefill_config": cfg("kv_producer"), "decode_config": cfg("kv_consumer")}))
"""


def test_a_python_ray_serve_application_points_at_the_config_form(scratch_git):
    """The PD020 hint for a Ray Serve LLM application built in Python names the Serve config file pdlint reads
    (it named shell scripts and manifests, which cannot hold the application; field test rw20/f)."""
    scratch_git.write("launch.py", RAY_PY)
    _, report = scratch_git.lint("launch.py")
    (f,) = report["findings"]
    assert f["code"] == "PD020" and "ray.serve.llm:build_pd_openai_app" in f["fix"]
    scratch_git.write("other.py", RAY_PY.replace("from ray import serve\nfrom ray.serve.llm import LLMConfig, "
                                                 "build_pd_openai_app\n", "").replace("build_pd_openai_app", "build"))
    _, report = scratch_git.lint("other.py")
    (f,) = report["findings"]
    assert "ray.serve.llm" not in f["fix"]
