"""TRT014 unknown-options-key: a key of a TensorRT-LLM LLM-API options file that TorchLlmArgs (and its
StrictBaseModel sub-configs, extra="forbid") does not define stops trtllm-serve at start-up.

Field test rw21/a (problem 1, repro 1): the TensorRT-LLM disaggregated example of NVIDIA/TensorRT-LLM
(examples/disaggregated/README.md: ctx/gen `--extra_llm_api_options` files and a `trtllm-serve disaggregated`
config) with the typos `enable_atention_dp`, `kv_cache_config.free_gpu_memory_fractoin` and the renamed
`cache_transceiver_config.max_num_tokens` passed without a word."""

import glob
import json
import os

import pytest

from pdlint.cli import main
from pdlint.engines.trtllm.rules import keys as K

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

RUN_SH = ("#!/bin/bash\n"
          "CUDA_VISIBLE_DEVICES=0 trtllm-serve Qwen/Qwen3-8B --host localhost --port 8001 --backend pytorch "
          "--extra_llm_api_options ./ctx_config.yaml &> log_ctx &\n"
          "CUDA_VISIBLE_DEVICES=1 trtllm-serve Qwen/Qwen3-8B --host localhost --port 8002 --backend pytorch "
          "--extra_llm_api_options ./gen_config.yaml &> log_gen &\n"
          "trtllm-serve disaggregated -c disagg_config.yaml\n")
DISAGG = ("hostname: localhost\nport: 8000\nbackend: pytorch\n"
          "context_servers:\n  num_instances: 1\n  urls:\n    - \"localhost:8001\"\n"
          "generation_servers:\n  num_instances: 1\n  urls:\n    - \"localhost:8002\"\n")
CTX_BAD = ("disable_overlap_scheduler: true\nenable_atention_dp: true\n"
           "cache_transceiver_config:\n  backend: UCX\n  max_num_tokens: 2048\n")
GEN_BAD = ("cache_transceiver_config:\n  backend: UCX\n  max_num_tokens: 2048\n"
           "kv_cache_config:\n  free_gpu_memory_fractoin: 0.8\n")
CTX_OK = ("disable_overlap_scheduler: true\nenable_attention_dp: true\n"
          "cache_transceiver_config:\n  backend: UCX\n  max_tokens_in_buffer: 2048\n")
GEN_OK = ("cache_transceiver_config:\n  backend: UCX\n  max_tokens_in_buffer: 2048\n"
          "kv_cache_config:\n  free_gpu_memory_fraction: 0.8\n")


def check(root, capsys, monkeypatch, files, *paths):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.chdir(root)
    main(["check", "--no-cache", "--format", "json", "--exit-zero", *(paths or files)])
    return json.loads(capsys.readouterr().out)


def trt014(doc):
    return sorted((os.path.basename(f["path"]), f["line"], f["column"], f["message"])
                  for f in doc["findings"] if f["code"] == "TRT014")


def test_repro_typos_fire_at_the_key_with_did_you_mean(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": RUN_SH, "disagg_config.yaml": DISAGG,
                                                 "ctx_config.yaml": CTX_BAD, "gen_config.yaml": GEN_BAD})
    got = trt014(doc)
    assert [(f, l, c) for f, l, c, _ in got] == [("ctx_config.yaml", 2, 1), ("ctx_config.yaml", 5, 3),
                                                 ("gen_config.yaml", 3, 3), ("gen_config.yaml", 5, 3)]
    msgs = {(f, l): m for f, l, _, m in got}
    assert "`enable_atention_dp` is no field of TorchLlmArgs" in msgs[("ctx_config.yaml", 2)]
    assert "did you mean `enable_attention_dp`?" in msgs[("ctx_config.yaml", 2)]
    assert "`cache_transceiver_config.max_num_tokens` is no field of CacheTransceiverConfig" in \
        msgs[("ctx_config.yaml", 5)]
    assert "renamed `max_tokens_in_buffer`" in msgs[("ctx_config.yaml", 5)]
    assert "did you mean `free_gpu_memory_fraction`?" in msgs[("gen_config.yaml", 5)]
    for m in msgs.values():
        assert m.startswith("Extra inputs are not permitted: ")
        assert K.label() in m and K.label().startswith("main@0004396")
    assert all(f["severity"] == "warning" for f in doc["findings"] if f["code"] == "TRT014")


def test_repro_spelled_right_is_quiet(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": RUN_SH, "disagg_config.yaml": DISAGG,
                                                 "ctx_config.yaml": CTX_OK, "gen_config.yaml": GEN_OK})
    assert trt014(doc) == []


def test_disaggregated_config_blocks_and_inherited_keys(tmp_path, capsys, monkeypatch):
    bad = ("hostname: localhost\nport: 8000\nmodel: M\nbackend: pytorch\nschedule_style: generation_first\n"
           "free_gpu_memory_fractoin: 0.5\n"
           "context_servers:\n  num_instances: 1\n  disable_overlap_schedular: true\n  router:\n    type: round_robin\n"
           "  urls: [\"localhost:8001\"]\n"
           "generation_servers:\n  num_instances: 1\n  urls: [\"localhost:8002\"]\n")
    got = trt014(check(tmp_path, capsys, monkeypatch, {"disagg.yaml": bad}))
    where = sorted({(l, c) for _, l, c, _ in got})
    assert where == [(6, 1), (9, 3)]  # the inherited top-level typo and the block's own; not hostname/router/...
    assert any("did you mean `disable_overlap_scheduler`?" in m for *_, m in got)


def test_srt_slurm_recipe_trtllm_config(tmp_path, capsys, monkeypatch):
    # richardhuo-nv/srt-slurm-trtllm recipes (recipes/trtllm/...): backend.trtllm_config.prefill / decode
    recipe = ("name: r\nmodel:\n  path: m\nresources:\n  prefill_workers: 1\n  decode_workers: 1\n"
              "backend:\n  type: trtllm\n  trtllm_config:\n    prefill:\n      disable_overlap_scheduler: true\n"
              "      speculative_config:\n        decoding_type: MTP\n        num_nextn_predict_layer: 3\n"
              "    decode:\n      moe_config:\n        backend: DEEPGEMM\n        load_balancer:\n"
              "          num_slot: 288\n      print_iter_log: true\n")
    got = trt014(check(tmp_path, capsys, monkeypatch, {"recipe.yaml": recipe}))
    assert [(l, c) for _, l, c, _ in got] == [(14, 9)]
    assert "did you mean `num_nextn_predict_layers`?" in got[0][3]  # a key of MTPDecodingConfig (a union member)
    # moe_config.load_balancer is Union[object, str] (a dict or a file name): any key below it is not judged


@pytest.mark.parametrize("text", [
    "model_kwargs:\n  num_hidden_layerz: 2\n",  # Dict[str, Any]
    "env_overrides:\n  ANYTHING: '1'\n",  # Dict[str, str]
    "lora_config:\n  whatever_lora_key: 1\n",  # LoraConfig lives in another module: any key
    "telemetry_config:\n  disabled: true\n  some_future_key: 1\n",  # TelemetryConfig: another module
    "moe_config:\n  load_balancer:\n    num_slotz: 1\n",  # Union[object, str]
    "pytorch_backend_config:\n  enable_overlap_scheduler: false\n",  # 0.19's key the TRT005 rule reads
    "use_cuda_graph: true\ncuda_graph_batch_sizes: [1, 2]\nkv_cache_dtype: fp8\n",  # pdlint's older-release keys
    "hf_revision: main\nsampler_type: auto\nquant_config:\n  quant_algo: FP8\n",  # consumed before the LLM args
    "speculative_config:\n  decoding_type: Eagle3\n  speculative_model_dir: /d\n  max_draft_len: 3\n",  # alias
    "cuda_graph_config:\n  enable_padding: true\n  max_batch_size: 8\n",
    "kv_cache_config:\n  block_reuse_config:\n    policy: per_request\n  mamba_state_config:\n"
    "    periodic_snapshot_interval: 2\n",
])
def test_quiet_on_any_key_fields_aliases_and_other_release_keys(tmp_path, capsys, monkeypatch, text):
    assert trt014(check(tmp_path, capsys, monkeypatch, {"gen_extra-llm-api-config.yaml": text})) == []


def test_command_line_options_are_not_this_rule(tmp_path, capsys, monkeypatch):
    files = {"run.sh": "trtllm-serve M --tp_sizee 2 --extra_llm_api_options ctx.yaml\n",
             "ctx.yaml": "disable_overlap_scheduler: true\n"}
    doc = check(tmp_path, capsys, monkeypatch, files, "run.sh")
    assert trt014(doc) == []
    assert any(f["code"] == "TRT011" for f in doc["findings"])


def test_dynamo_override_engine_args_are_not_judged(tmp_path, capsys, monkeypatch):
    files = {"run.sh": "python -m dynamo.trtllm --model-path M --disaggregation-mode prefill "
                       "--extra-engine-args prefill.yaml --override-engine-args '{\"bogus_key\": 1}'\n",
             "prefill.yaml": "disable_overlap_scheduler: true\nenable_chunked_prefil: true\n"}
    got = trt014(check(tmp_path, capsys, monkeypatch, files, "run.sh"))
    assert [(f, l, c) for f, l, c, _ in got] == [("prefill.yaml", 2, 1)]


def test_judge_table_walk():
    assert K.judge("kv_cache_config.free_gpu_memory_fraction") is None
    node, seg = K.judge("kv_cache_config.free_gpu_memory_fractoin")
    assert seg == "free_gpu_memory_fractoin" and node["class"] == "KvCacheConfig"
    assert K.judge("kv_cache_confg.free_gpu_memory_fraction") is None  # the parent is judged, not each child
    assert K.judge("kv_cache_confg")[1] == "kv_cache_confg"
    assert K.judge("hostname", disagg=True) is None and K.judge("hostname") is not None
    assert K.judge("model_kwargs.anything.deeper") is None


def test_table_names_its_source():
    t = K.table()
    assert t["source"]["repository"] == "NVIDIA/TensorRT-LLM"
    assert t["source"]["commit"] == "0004396720054fd8e205cbf616f21f0b57c6b412"
    assert t["tree"]["class"] == "TorchLlmArgs"
    assert "max_tokens_in_buffer" in t["tree"]["keys"]["cache_transceiver_config"]["keys"]


def _options_files():
    """Every TensorRT-LLM options file / disaggregated config among the repository's tests and fixtures."""
    out = []
    for base in ("tests", "fixtures"):
        for p in glob.glob(os.path.join(REPO, base, "**", "*.y*ml"), recursive=True):
            try:
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(200_000)
            except OSError:
                continue
            if any(k in text for k in ("cache_transceiver_config", "context_servers", "trtllm_config",
                                       "kv_cache_config", "disable_overlap_scheduler")):
                out.append(p)
    return sorted(out)


def test_quiet_on_the_repositorys_own_options_files(capsys, monkeypatch):
    files = _options_files()
    assert files
    monkeypatch.chdir(REPO)
    main(["check", "--no-cache", "--format", "json", "--exit-zero", "--select", "TRT014",
          *[os.path.relpath(p, REPO) for p in files]])
    doc = json.loads(capsys.readouterr().out)
    assert trt014(doc) == []


def test_many_keys_stay_linear(tmp_path, capsys, monkeypatch):
    # untrusted input: each key's position is taken in one pass over its mapping, not looked up key by key
    import time
    text = "cache_transceiver_config:\n  backend: UCX\n" + "".join(f"k{i}: {i}\n" for i in range(20000))
    t0 = time.monotonic()
    doc = check(tmp_path, capsys, monkeypatch, {"gen_extra-llm-api-config.yaml": text})
    assert time.monotonic() - t0 < 60
    got = trt014(doc)
    # (one finding per key up to 32, then one that counts the rest: hostile-input round rw30/h P10)
    assert len(got) == 33 and got[0][1:3] == (3, 1) and got[-1][3].startswith("and 19968 more TRT014 findings")


def test_slurm_benchmark_worker_config(tmp_path, capsys, monkeypatch):
    # NVIDIA/TensorRT-LLM examples/disaggregated/slurm/benchmark/config.yaml: submit.py writes worker_config.ctx /
    # gen as the servers' --extra_llm_api_options files
    cfg = ("hardware:\n  num_ctx_servers: 1\n  num_gen_servers: 1\n"
           "worker_config:\n  ctx:\n    tensor_parallel_size: 4\n    cache_transceiver_config:\n      backend: UCX\n"
           "      max_tokens_in_bufer: 8448\n  gen:\n    tensor_parallel_size: 4\n    cache_transceiver_config:\n"
           "      backend: UCX\n      max_tokens_in_buffer: 8448\n")
    got = trt014(check(tmp_path, capsys, monkeypatch, {"config.yaml": cfg}))
    assert [(l, c) for _, l, c, _ in got] == [(9, 7)]
    assert "did you mean `max_tokens_in_buffer`?" in got[0][3]
