"""Ray Serve LLM prefill/decode applications (ray-project/ray doc/source/serve/doc_code/pd_dissagregation):
`applications[].args.prefill_config` / `decode_config`, whose `engine_kwargs` Ray passes to vLLM's engine
arguments. They had been PD020 ("a structure pdlint does not recognise")."""

import os
import shutil

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
