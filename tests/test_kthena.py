"""Volcano Kthena: a ModelBooster's workers are started by its controller with a command pdlint rebuilds
from the worker's ``config`` (volcano-sh/kthena model_serving.go buildCommands); the kthena-engine image
runs ``vllm serve`` with a ModelServing container's ``args``.

The controller's own test data is the ground truth: ``tests/data/kthena`` holds a ModelBooster and the
ModelServing the controller writes for it (ORIGIN.md)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

from pdlint.cli import main

DATA = Path(__file__).parent / "data" / "kthena"


def show(capsys, *paths) -> dict:
    assert main(["show", "--format", "json", *paths]) == 0
    return json.loads(capsys.readouterr().out)


def argv_by_role(out: dict, path: str) -> dict:
    return {l["role"]: l["argv"] for l in out["launches"] if l["path"] == path}


def test_model_booster_argv_is_what_the_controller_writes(scratch_git, capsys):
    for name in ("pd-disaggregated-model-mooncake.yaml", "disaggregated-model-serving-mooncake.yaml"):
        shutil.copy(DATA / name, scratch_git.root / name)
    out = show(capsys, ".")
    mine = argv_by_role(out, "pd-disaggregated-model-mooncake.yaml")
    # (the controller's output has no role pdlint can read: bash broke the JSON that names it; prefill first)
    theirs = [l["argv"] for l in out["launches"] if l["path"] == "disaggregated-model-serving-mooncake.yaml"]
    assert set(mine) == {"prefill", "decode"}
    assert [mine["prefill"], mine["decode"]] == theirs
    assert mine["prefill"][:2] == ["--model", "/cache/568a486051fd302c338d84946c4f3d48"]
    pairs = [p for p in out["pairs"] if "ModelBooster" in p.get("unit", "") or
             "pd-disaggregated-model-mooncake" in json.dumps(p)]
    assert len(pairs) == 1


def test_unquoted_bash_c_breaks_the_json_at_the_config_line(scratch_git, capsys):
    # the controller joins the words into `bash -c "pip install mooncake-transfer-engine && python3 ..."`
    # without quoting them: bash removes the JSON's double quotes (its own expected output shows it)
    shutil.copy(DATA / "pd-disaggregated-model-mooncake.yaml", scratch_git.root / "m.yaml")
    code, out = scratch_git.lint("m.yaml")
    assert code == 1
    assert sorted((f["code"], f["line"], f.get("role")) for f in out["findings"] if f["code"] == "VLLM001") == \
        [("VLLM001", 36, "prefill"), ("VLLM001", 52, "decode")]


def test_skipping_the_install_runs_it_directly_and_the_json_holds(scratch_git, capsys):
    text = (DATA / "pd-disaggregated-model-mooncake.yaml").read_text()
    text = text.replace('        value: "https://obs.test.com"\n',
                        '        value: "https://obs.test.com"\n'
                        '      - name: KTHENA_SKIP_ENGINE_DEPENDENCY_INSTALL\n        value: "true"\n')
    (scratch_git.root / "m.yaml").write_text(text)
    code, out = scratch_git.lint("m.yaml")
    assert not [f for f in out["findings"] if f["code"] == "VLLM001"]
    assert out["coverage"]["prefill"] == 1 and out["coverage"]["decode"] == 1 and out["coverage"]["unchecked"] == 0
    argv = argv_by_role(out, "m.yaml")
    assert argv["prefill"][argv["prefill"].index("--kv-transfer-config") + 1] == \
        '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}'


def test_ascend_example_pairs_and_is_checked(scratch_git, capsys):
    shutil.copy(DATA / "model-booster-pd.yaml", scratch_git.root / "mb.yaml")
    code, out = scratch_git.lint("mb.yaml")
    cov = out["coverage"]
    assert (cov["prefill"], cov["decode"], cov["unchecked"]) == (1, 1, 0)
    assert len(out["pairs"]) == 1
    argv = argv_by_role(out, "mb.yaml")["decode"]
    assert argv[:2] == ["--model", "/mnt/cache/" + __import__("hashlib").md5(
        b"hf://deepseek-ai/DeepSeek-V2-Lite").hexdigest()]
    # config keys in sorted order; "" is a switch, numbers as written
    flags = [a for a in argv if a.startswith("--")]
    assert flags == ["--model", "--enforce-eager", "--gpu-memory-utilization", "--kv-transfer-config",
                     "--max-model-len", "--max-num-batched-tokens", "--served-model-name",
                     "--tensor-parallel-size", "--trust-remote-code"]


def test_kthena_engine_image_runs_vllm_serve(scratch_git, capsys):
    shutil.copy(DATA / "model-serving-pd.yaml", scratch_git.root / "ms.yaml")
    code, out = scratch_git.lint("ms.yaml")
    cov = out["coverage"]
    assert (cov["prefill"], cov["decode"], cov["unchecked"]) == (1, 1, 0)
    assert {l["entrypoint"] for l in out["launches"] if l["role"] in ("prefill", "decode")} == {"vllm serve"}


BOOSTER = """\
    apiVersion: workload.serving.volcano.sh/v1alpha1
    kind: ModelBooster
    metadata: {{name: m}}
    spec:
      backend:
        type: {type}
        modelURI: hf://Qwen/Qwen3-8B
        cacheURI: pvc://models
        workers:
          - type: server
            pods: {pods}
            image: vllm/vllm-openai:v0.11.0
            resources: {{limits: {{nvidia.com/gpu: "4"}}}}
            config:
              max_model_len: 4096
              enable-prefix-caching: true
              gpu-memory-utilisation: 0.9
    """


def test_config_typo_is_reported_at_its_key(scratch_git, capsys):
    (scratch_git.root / "m.yaml").write_text(textwrap.dedent(BOOSTER.format(type="vLLM", pods=1)))
    code, out = scratch_git.lint("m.yaml")
    assert code == 1
    assert [(f["code"], f["line"], f["column"]) for f in out["findings"]] == [("VLLM018", 17, 11)]
    argv = argv_by_role(out, "m.yaml")["null"]  # a `server` worker: no role
    assert argv == ["--model", "/models/" + __import__("hashlib").md5(b"hf://Qwen/Qwen3-8B").hexdigest(),
                    "--enable-prefix-caching", "true", "--gpu-memory-utilisation", "0.9", "--max-model-len", "4096"]


def test_multi_pod_server_runs_behind_the_ray_leader(scratch_git, capsys):
    (scratch_git.root / "m.yaml").write_text(textwrap.dedent(BOOSTER.format(type="vLLM", pods=2))
                                 .replace("gpu-memory-utilisation", "gpu-memory-utilization"))
    code, out = scratch_git.lint("m.yaml")
    (launch,) = [l for l in out["launches"] if l["path"] == "m.yaml"]
    assert launch["argv"][-2:] == ["--distributed_executor_backend", "ray"]
    assert "bash -c by the controller" in launch["context"]
    assert code == 0, out["findings"]


def test_other_backends_are_not_guessed(scratch_git, capsys):
    # an SGLang or MindIE backend: pdlint does not know the command the controller writes; its launch
    # text stays reported as not checked
    (scratch_git.root / "m.yaml").write_text(textwrap.dedent(BOOSTER.format(type="SGLang", pods=1))
                                 .replace("max_model_len: 4096", "disaggregation-mode: prefill"))
    code, out = scratch_git.lint("m.yaml")
    assert out["launches"] == []
    assert [f["code"] for f in out["findings"]] == ["PD020"]
