"""VLLM010 (kv-connector-mismatch) and a connector class of the user's own module.

Field test: ddps-lab/vllm-disaggregation ``disagg-exp/launch_configs.sh``: the prefill runs
``{"kv_connector":"InstrumentedLMCacheConnector","kv_connector_module_path":"instrumented_connector",...}``, a
timing wrapper defined as ``class InstrumentedLMCacheConnector(LMCacheConnectorV1)``, and the decode runs
``LMCacheConnectorV1``: one protocol, but pdlint reported three VLLM010 errors."""

SCRIPT = """\
    #!/bin/bash
    case "$1" in
      prefill)
        vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8100 \\
          --kv-transfer-config '{"kv_connector":"%s",%s"kv_role":"kv_producer"}' ;;
      decode)
        vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8200 \\
          --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}' ;;
    esac
    """


def test_a_connector_from_the_users_module_is_not_judged_by_its_name(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % ("InstrumentedLMCacheConnector",
                                            '"kv_connector_module_path":"instrumented_connector",'))
    code, report = scratch_git.lint("launch.sh")
    assert len(report["pairs"]) == 1
    assert "VLLM010" not in [f["code"] for f in report["findings"]]


def test_two_builtin_connectors_still_mismatch(scratch_git):
    scratch_git.write("launch.sh", SCRIPT % ("NixlConnector", ""))
    code, report = scratch_git.lint("launch.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM010", 8)]
    assert code == 1
