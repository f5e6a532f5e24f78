"""VLLM025 on an aggregated DynamoGraphDeployment (field test on ai-dynamo/dynamo: 14 of 26 hits false).

Dynamo's aggregated examples (examples/backends/vllm/deploy/agg.yaml and a dozen more) name their only worker
`VllmDecodeWorker` and run `python3 -m dynamo.vllm --model ...` without `--disaggregation-mode`: that worker
is meant to run aggregated (Dynamo's default). Only a deployment that also runs a prefill worker makes the
name say "decode worker"; there the missing mode bypasses the prefill tier, and VLLM025 stays an error.
"""

AGG = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: vllm-agg
    spec:
      services:
        Frontend:
          componentType: frontend
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0
        VllmDecodeWorker:
          componentType: worker
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-0.6B]
    """

PREFILL = """\
        VllmPrefillWorker:
          componentType: worker
          extraPodSpec:
            mainContainer:
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0
              command: [python3, -m, dynamo.vllm]
              args: [--model, Qwen/Qwen3-0.6B, --disaggregation-mode, prefill, --kv-transfer-config,
                     '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
    """


def _codes(report):
    return [f["code"] for f in report["findings"]]


def test_aggregated_dgd_whose_only_worker_is_named_decode_is_not_a_decode_worker(scratch_git):
    scratch_git.write("agg.yaml", AGG)
    code, report = scratch_git.lint("agg.yaml")
    assert "VLLM025" not in _codes(report), report["findings"]
    assert code == 0 and report["coverage"]["launches"] == 1


def test_decode_named_worker_beside_a_prefill_worker_still_needs_the_mode(scratch_git):
    scratch_git.write("disagg.yaml", AGG + PREFILL)
    code, report = scratch_git.lint("disagg.yaml")
    (f,) = [f for f in report["findings"] if f["code"] == "VLLM025"]
    assert code == 1 and f["severity"] == "error" and f["line"] == 17, f
    assert "service name makes this the decode worker" in f["message"]
    assert any(r["line"] == 24 and "prefill worker" in r["note"] for r in f["related"]), f["related"]


def test_decode_named_worker_with_the_mode_beside_a_prefill_worker_is_quiet(scratch_git):
    scratch_git.write("disagg.yaml", (AGG + PREFILL).replace(
        "args: [--model, Qwen/Qwen3-0.6B]", "args: [--model, Qwen/Qwen3-0.6B, --disaggregation-mode, decode, "
        "--kv-transfer-config, '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}']"))
    code, report = scratch_git.lint("disagg.yaml")
    assert "VLLM025" not in _codes(report), report["findings"]


def test_decode_script_beside_a_prefill_script_still_needs_the_mode(scratch_git):
    kv = "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"
    scratch_git.write("prefill.sh", f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill "
                                    f"--kv-transfer-config {kv}\n")
    scratch_git.write("decode.sh", f"python3 -m dynamo.vllm --model M --kv-transfer-config {kv}\n")
    _, report = scratch_git.lint("prefill.sh", "decode.sh")
    assert [f["path"] for f in report["findings"] if f["code"] == "VLLM025"] == ["decode.sh"], report["findings"]
    _, report = scratch_git.lint("decode.sh")  # named alone, its sibling prefill.sh is judged with it
    assert [f["path"] for f in report["findings"] if f["code"] == "VLLM025"] == ["decode.sh"], report["findings"]
    (scratch_git.root / "prefill.sh").unlink()
    _, report = scratch_git.lint("decode.sh")  # alone: nothing says a prefill tier exists
    assert "VLLM025" not in _codes(report), report["findings"]


# Field test rw6/d (DO-Solutions/gtc-2026-doks): the Dynamo operator passes a worker's args as written, so its
# --kv-transfer-config is what vLLM validates; VLLM029-VLLM032 were skipped on every DGD worker as if an
# operator wrote the config
def test_a_dgd_workers_kv_transfer_config_is_validated(scratch_git):
    bad = AGG.replace("args: [--model, Qwen/Qwen3-0.6B]",
                      "args: [--model, Qwen/Qwen3-0.6B, --kv-transfer-config, "
                      "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_bogus\"}']")
    scratch_git.write("agg.yaml", bad)
    code, report = scratch_git.lint("agg.yaml")
    assert code == 1 and [f["code"] for f in report["findings"]] == ["VLLM029"]
    scratch_git.write("agg.yaml", bad.replace("kv_bogus", "kv_both"))
    code, report = scratch_git.lint("agg.yaml")
    assert (code, report["findings"]) == (0, [])


LEGACY = (AGG + PREFILL).replace("--disaggregation-mode, prefill", "--is-prefill-worker")


def test_unpinned_deployment_written_with_the_legacy_prefill_flag_targets_dynamo_0x(scratch_git):
    # (yuekaizhang/dynamo, a fork of August 2025: components/backends/vllm/deploy/disagg.yaml on an internal
    # image whose tag names no Dynamo release; before Dynamo 1.0 a worker without a role flag is the decode worker)
    scratch_git.write("disagg.yaml", LEGACY.replace("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
                                                    "nvcr.io/nvidian/nim-llm-dev/vllm-runtime:dep-233.17"))
    _, report = scratch_git.lint("disagg.yaml")
    assert "VLLM025" not in _codes(report) and "VLLM003" in _codes(report), report["findings"]


def test_legacy_prefill_flag_on_a_pinned_dynamo_1x_image_still_gets_vllm025(scratch_git):
    scratch_git.write("disagg.yaml", LEGACY)
    _, report = scratch_git.lint("disagg.yaml")
    assert "VLLM025" in _codes(report), report["findings"]
