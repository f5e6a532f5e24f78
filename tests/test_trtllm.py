"""The TensorRT-LLM adapter: context/generation roles from role-keyed settings
and command lines, and every TRT rule firing and quiet (small configs, and the
corpus copies in tests/data/corpus)."""

import json
import os

import pytest

from pdlint.cli import main
from pdlint.extract import Options
from pdlint.lint import run
from pdlint.rules import all_rules

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "corpus")


def check(root, capsys, monkeypatch, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.chdir(root)
    main(["check", "--format", "json", "--exit-zero", *files])
    return json.loads(capsys.readouterr().out)


def codes(doc):
    return sorted(f["code"] for f in doc["findings"] if f["code"].startswith("TRT"))


def disagg(top="", ctx="", gen=""):
    return (f"hostname: localhost\nport: 8000\nmodel: M\nbackend: pytorch\n{top}"
            f"context_servers:\n  num_instances: 1\n  disable_overlap_scheduler: true\n{ctx}  urls: [\"localhost:8001\"]\n"
            f"generation_servers:\n  num_instances: 1\n{gen}  urls: [\"localhost:8002\"]\n")


CASES = [
    ("TRT001",
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: UCX\n",
                            gen="  cache_transceiver_config:\n    backend: NIXL\n")},
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: UCX\n",
                            gen="  cache_transceiver_config:\n    backend: ucx\n")}),
    ("TRT001",
     {"ctx_extra-llm-api-config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
      "gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: NIXL\n"},
     {"ctx_extra-llm-api-config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
      "gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: UCX\n"}),
    ("TRT002",
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: NIXL\n",
                            gen="  cache_transceiver_config:\n    max_tokens_in_buffer: 2048\n")},
     {"disagg.yaml": disagg(top="cache_transceiver_config:\n  backend: NIXL\n")}),
    ("TRT003",
     {"disagg.yaml": disagg(ctx="  tensor_parallel_size: 1\n", gen="  tensor_parallel_size: 4\n")},
     {"disagg.yaml": disagg(ctx="  tensor_parallel_size: 2\n", gen="  tensor_parallel_size: 2\n")}),
    ("TRT004",
     {"disagg.yaml": disagg(ctx="  kv_cache_config:\n    dtype: fp8\n", gen="  kv_cache_config:\n    dtype: auto\n")},
     {"disagg.yaml": disagg(top="kv_cache_config:\n  dtype: fp8\n")}),
    ("TRT005",
     {"engine/prefill.yaml": "tensor_parallel_size: 1\nenable_chunked_prefill: true\ncache_transceiver_config:\n"
                             "  backend: ucx\n"},
     {"engine/prefill.yaml": "tensor_parallel_size: 1\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n"
                             "  backend: ucx\n"}),
    ("TRT006",
     {"disagg.yaml": disagg(top="disable_overlap_scheduler: true\n")},
     {"disagg.yaml": disagg()}),
]


@pytest.mark.parametrize("code,fire,quiet", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_trtllm_rule(code, fire, quiet, tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "fire", capsys, monkeypatch, fire)
    assert code in codes(doc), [f["message"] for f in doc["findings"]]
    doc = check(tmp_path / "quiet", capsys, monkeypatch, quiet)
    assert code not in codes(doc), [f["message"] for f in doc["findings"] if f["code"] == code]
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == []


def test_mismatch_points_at_the_generation_value(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"disagg.yaml": disagg(
        ctx="  cache_transceiver_config:\n    backend: UCX\n", gen="  cache_transceiver_config:\n    backend: NIXL\n")})
    (f,) = [f for f in doc["findings"] if f["code"] == "TRT001"]
    assert (f["line"], f["role"], f["severity"]) == (14, "decode", "error")
    assert any(r["line"] == 9 and "UCX" in r["note"] for r in f["related"])


def test_command_line_launch_reads_its_options_file(tmp_path):
    (tmp_path / "ctx.yaml").write_text("cache_transceiver_config:\n  backend: UCX\n")
    (tmp_path / "run.sh").write_text("python3 -m dynamo.trtllm --model-path M --disaggregation-mode prefill "
                                     "--extra-engine-args ctx.yaml --tensor-parallel-size 2\n")
    res = run([str(tmp_path / "run.sh")], Options(cwd=str(tmp_path)))
    (l,) = [l for l in res.launches if l.engine == "trtllm"]
    assert l.role == "prefill" and l.parsed.text("cache_transceiver_config.backend") == "UCX"
    assert l.parsed.int("tensor_parallel_size") == 2 and l.parsed.options_file == "ctx.yaml"


def test_rules_are_registered_with_docs():
    trt = [r for r in all_rules().values() if r.engine == "trtllm"]
    assert [r.code for r in sorted(trt, key=lambda r: r.code)] == [f"TRT00{i}" for i in range(1, 7)]
    for r in trt:
        assert r.summary and r.why and r.fix and r.example and r.example_fixed, r.code


def corpus(capsys, monkeypatch, *paths):
    monkeypatch.chdir(DATA)
    main(["check", "--format", "json", "--exit-zero", *paths])
    return json.loads(capsys.readouterr().out)


def test_corpus_disagg_config_top_level_overlap_flag(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch, "NVIDIA__TensorRT-LLM/examples__disaggregated__disagg_config.yaml")
    assert codes(doc) == ["TRT006"]
    (f,) = doc["findings"]
    assert f["line"] == 6 and f["severity"] == "warning"


def test_corpus_ctx_gen_pair_is_clean(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch,
                 "NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__ctx_extra-llm-api-config.yaml",
                 "NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__gen_extra-llm-api-config.yaml")
    assert codes(doc) == [] and len(doc["pairs"]) == 1


def test_corpus_dynamo_prefill_without_overlap_flag(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch,
                 "ai-dynamo__dynamo/components__backends__trtllm__engine_configs__gpt_oss__prefill.yaml",
                 "ai-dynamo__dynamo/components__backends__trtllm__engine_configs__gpt_oss__decode.yaml")
    assert codes(doc) == ["TRT005"]  # tp only set on decode (stored versions differ): not compared
