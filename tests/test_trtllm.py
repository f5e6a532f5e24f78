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
                            gen="  cache_transceiver_config:\n    backend: UCX\n")}),
    ("TRT001",  # case only: no release takes both spellings (field test rw20/f)
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: ucx\n",
                            gen="  cache_transceiver_config:\n    backend: UCX\n")},
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: ucx\n",
                            gen="  cache_transceiver_config:\n    backend: ucx\n")}),
    ("TRT012",
     {"disagg.yaml": disagg(top="cache_transceiver_config:\n  backend: BOGUS\n")},
     {"disagg.yaml": disagg(top="cache_transceiver_config:\n  backend: MOONCAKE\n")}),
    ("TRT012",
     {"gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: nccl\n"},
     {"gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: nixl\n"}),
    ("TRT001",
     {"ctx_extra-llm-api-config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
      "gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: NIXL\n"},
     {"ctx_extra-llm-api-config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
      "gen_extra-llm-api-config.yaml": "cache_transceiver_config:\n  backend: UCX\n"}),
    ("TRT002",
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: NIXL\n",
                            gen="  cache_transceiver_config:\n    max_tokens_in_buffer: 2048\n")},
     {"disagg.yaml": disagg(top="cache_transceiver_config:\n  backend: NIXL\n")}),
    ("TRT002",   # DEFAULT written on one side (field test rw7/e: Dynamo's default configs beside a UCX one)
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: DEFAULT\n",
                            gen="  cache_transceiver_config:\n    backend: UCX\n")},
     {"disagg.yaml": disagg(ctx="  cache_transceiver_config:\n    backend: DEFAULT\n",
                            gen="  cache_transceiver_config:\n    backend: DEFAULT\n")}),
    ("TRT003",
     {"disagg.yaml": disagg(top="attn_backend: FLASHINFER\n", ctx="  tensor_parallel_size: 1\n",
                            gen="  tensor_parallel_size: 4\n")},
     {"disagg.yaml": disagg(top="attn_backend: FLASHINFER\n", ctx="  tensor_parallel_size: 2\n",
                            gen="  tensor_parallel_size: 2\n")}),
    ("TRT003",  # the default TRTLLM backend handles both layouts (NVIDIA/TensorRT-LLM#6507, field test rw21/a)
     {"disagg.yaml": disagg(gen="  tensor_parallel_size: 4\n  attn_backend: flashinfer\n",
                            ctx="  tensor_parallel_size: 1\n")},
     {"disagg.yaml": disagg(ctx="  tensor_parallel_size: 1\n", gen="  tensor_parallel_size: 4\n")}),
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
    assert [r.code for r in sorted(trt, key=lambda r: r.code)] == [f"TRT{i:03d}" for i in range(1, 18)]
    for r in trt:
        assert r.summary and r.why and r.fix and r.example and r.example_fixed, r.code


def corpus(capsys, monkeypatch, *paths):
    monkeypatch.chdir(DATA)
    main(["check", "--format", "json", "--exit-zero", *paths])
    return json.loads(capsys.readouterr().out)


def test_corpus_disagg_config_top_level_overlap_flag(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch, "NVIDIA__TensorRT-LLM/examples__disaggregated__disagg_config.yaml")
    # enable_cache_transceiver without a backend: no transceiver from TensorRT-LLM 1.0.0rc4 on (release unknown)
    assert codes(doc) == ["TRT006", "TRT010", "TRT010"]
    (f,) = [f for f in doc["findings"] if f["code"] == "TRT006"]
    assert f["line"] == 6 and f["severity"] == "warning"
    # at each block's enable_cache_transceiver
    assert sorted(f["line"] for f in doc["findings"] if f["code"] == "TRT010") == [14, 22]


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


# NVIDIA/TensorRT-LLM tests/integration/defs/disaggregated/test_configs/disagg_config_gen_only.yaml (069b06f7):
# a generation-only config whose context_servers section has num_instances: 0
GEN_ONLY = ("hostname: localhost\nmodel: TinyLlama/TinyLlama-1.1B-Chat-v1.0\nbackend: pytorch\n"
            "context_servers:\n  num_instances: {n}\n  router:\n    type: round_robin\n"
            "generation_servers:\n  num_instances: 2\n  tensor_parallel_size: 1\n  cache_transceiver_config:\n"
            "    backend: DEFAULT\n")


def test_a_server_section_with_no_instances_is_no_server(tmp_path, capsys, monkeypatch):
    """It was a context server said to keep the overlap scheduler on and to lack a transceiver backend
    (TRT005, TRT010), and coverage must not call its key unchecked launch text either."""
    doc = check(tmp_path, capsys, monkeypatch, {"disagg_config_gen_only.yaml": GEN_ONLY.format(n=0)})
    assert doc["findings"] == [], [f["message"] for f in doc["findings"]]
    assert [(l["role"], l["line"]) for l in doc["launches"]] == [("decode", 8)]


def test_a_server_section_with_instances_is_still_a_server(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"disagg_config.yaml": GEN_ONLY.format(n=1)})
    assert [(l["role"], l["line"]) for l in doc["launches"]] == [("prefill", 4), ("decode", 8)]
    assert codes(doc) == ["TRT005", "TRT010"]


# ai-dynamo/dynamo examples/backends/trtllm/launch/gpt_oss_disagg.sh (15bb5238): `python3 -m dynamo.trtllm
# --extra-engine-args "$PREFILL_ENGINE_ARGS"` whose file (under $DYNAMO_HOME=/workspace) pdlint cannot read
DYNAMO_TRT = ("CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.trtllm --model-path /model --extra-engine-args {p} "
              "--disaggregation-mode prefill &\n"
              "CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.trtllm --model-path /model --extra-engine-args {d} "
              "--disaggregation-mode decode\n")


def test_a_dynamo_worker_whose_engine_file_is_unread_is_not_said_to_lack_its_settings(tmp_path, capsys,
                                                                                        monkeypatch):
    """The file may set cache_transceiver_config.backend and disable_overlap_scheduler: no TRT005/TRT010
    (they said 'sets no cache_transceiver_config.backend'), only PD022 for the file."""
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": DYNAMO_TRT.format(
        p="/workspace/engine_configs/prefill.yaml", d="/workspace/engine_configs/decode.yaml")})
    assert codes(doc) == [], [f["message"] for f in doc["findings"]]
    assert any(f["code"] == "PD022" for f in doc["findings"])


def test_a_dynamo_worker_whose_engine_file_is_read_is_judged_by_it(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "run.sh": DYNAMO_TRT.format(p="engine_configs/prefill.yaml", d="engine_configs/decode.yaml"),
        "engine_configs/prefill.yaml": "tensor_parallel_size: 1\n",
        "engine_configs/decode.yaml": "tensor_parallel_size: 1\ncache_transceiver_config:\n  backend: UCX\n"})
    assert codes(doc) == ["TRT002", "TRT005", "TRT010"], [f["message"] for f in doc["findings"]]
    assert {f["code"]: f["role"] for f in doc["findings"] if f["code"] in ("TRT005", "TRT010")} == {
        "TRT005": "prefill", "TRT010": "prefill"}


# -- the servers a disaggregated proxy's script starts, linked to the config's URLs ---------------------

def proxy_files(ctx_port=8001, gen_port=8002, gen_file="gen_config.yaml", extra=""):
    return {
        "disagg_config.yaml": "hostname: localhost\nport: 8000\nbackend: pytorch\ncontext_servers:\n"
                              "  num_instances: 1\n  urls:\n    - \"localhost:8001\"\ngeneration_servers:\n"
                              "  num_instances: 1\n  urls:\n    - \"localhost:8002\"\n",
        "ctx_config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
        "gen_config.yaml": "cache_transceiver_config:\n  backend: UCX\n",
        "run.sh": (f"trtllm-serve Qwen/Qwen3-8B --host localhost --port {ctx_port} --config ./ctx_config.yaml &\n"
                   f"trtllm-serve Qwen/Qwen3-8B --host localhost --port {gen_port} --config ./{gen_file} &\n"
                   f"{extra}trtllm-serve disaggregated -c ./disagg_config.yaml\n"),
    }


def findings(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


def test_linked_servers_are_judged_by_their_own_settings(tmp_path, capsys, monkeypatch):
    # the config's context_servers block neither disables the overlap scheduler nor sets a backend, but the
    # servers the proxy's script starts at its URLs do: nothing to report
    doc = check(tmp_path, capsys, monkeypatch, proxy_files())
    assert codes(doc) == [], [f["message"] for f in doc["findings"]]
    roles = sorted((l["path"], l["role"]) for l in doc["launches"] if l["path"] == "run.sh" and l["role"])
    assert roles == [("run.sh", "decode"), ("run.sh", "prefill")]  # from the options files' names


def test_url_without_server_and_server_not_in_config(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, proxy_files(gen_port=8003))
    (f,) = findings(doc, "TRT007")
    assert (f["path"], f["line"], f["severity"]) == ("disagg_config.yaml", 11, "error")
    assert "localhost:8002" in f["message"] and "localhost:8003" in f["message"]
    (g,) = findings(doc, "TRT008")
    assert (g["path"], g["line"]) == ("run.sh", 2) and "8003" in g["message"]


def test_server_listed_under_the_other_role(tmp_path, capsys, monkeypatch):
    files = proxy_files(ctx_port=8002, gen_port=8001)  # ctx_config server at the generation URL and back
    doc = check(tmp_path, capsys, monkeypatch, files)
    got = sorted((f["line"], "generation_servers" in f["message"]) for f in findings(doc, "TRT008"))
    assert got == [(1, True), (2, False)]
    assert findings(doc, "TRT007") == []


def renamed_proxy_files(ctx_backend="UCX", gen_backend="NIXL", gen_urls='"localhost:8002"'):
    # NVIDIA/TensorRT-LLM examples/disaggregated/simpler_example/run.sh with option files whose names name no role
    files = proxy_files()
    files["disagg_config.yaml"] = files["disagg_config.yaml"].replace('- "localhost:8002"', f"- {gen_urls}")
    del files["ctx_config.yaml"], files["gen_config.yaml"]
    files["server_a.yaml"] = f"disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: {ctx_backend}\n"
    files["server_b.yaml"] = f"cache_transceiver_config:\n  backend: {gen_backend}\n"
    files["run.sh"] = files["run.sh"].replace("ctx_config", "server_a").replace("gen_config", "server_b")
    return files


def test_roles_from_the_disaggregated_config_urls(tmp_path, capsys, monkeypatch):
    # found by a real-file round: NVIDIA/TensorRT-LLM examples/disaggregated/simpler_example/run.sh with renamed
    # option files: both servers were "unknown role", never paired, and the UCX/NIXL mismatch passed silently
    doc = check(tmp_path / "a", capsys, monkeypatch, renamed_proxy_files())
    roles = sorted((l["line"], l["role"]) for l in doc["launches"] if l["path"] == "run.sh" and l["kind"] == "server")
    assert roles == [(1, "prefill"), (2, "decode")]
    (f,) = findings(doc, "TRT001")
    assert f["path"] == "server_b.yaml" and "UCX" in f["message"] and "NIXL" in f["message"]
    assert codes(doc) == ["TRT001"]
    doc = check(tmp_path / "b", capsys, monkeypatch, renamed_proxy_files(gen_backend="UCX"))
    assert codes(doc) == [], [f["message"] for f in doc["findings"]]


def test_no_role_from_a_url_listed_under_both_roles(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, renamed_proxy_files(gen_urls='"localhost:8001"'))
    roles = sorted((l["line"], l["role"]) for l in doc["launches"] if l["path"] == "run.sh" and l["kind"] == "server")
    assert roles == [(1, None), (2, None)]
    assert findings(doc, "TRT001") == []


def test_server_of_unknown_address_and_role_is_reported(tmp_path, capsys, monkeypatch):
    # the role would come from the URL its port is at, but the port is a variable: a warning, never a silent pass
    files = renamed_proxy_files()
    files["run.sh"] = files["run.sh"].replace("--port 8001", "--port $CTX_PORT")
    doc = check(tmp_path, capsys, monkeypatch, files)
    roles = sorted((l["line"], l["role"]) for l in doc["launches"] if l["path"] == "run.sh" and l["kind"] == "server")
    assert roles == [(1, None), (2, "decode")]
    (f,) = findings(doc, "TRT008")
    assert (f["path"], f["line"], f["severity"]) == ("run.sh", 1, "warning")
    assert "--port $CTX_PORT" in f["message"] and "role is unknown" in f["message"]


def test_no_link_without_the_proxy_or_with_unknown_ports(tmp_path, capsys, monkeypatch):
    files = proxy_files(gen_port=8003)
    files["run.sh"] = files["run.sh"].replace("trtllm-serve disaggregated -c ./disagg_config.yaml\n", "")
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    assert findings(doc, "TRT007") == findings(doc, "TRT008") == []
    files = proxy_files(gen_port="$GEN_PORT")
    doc = check(tmp_path / "b", capsys, monkeypatch, files)
    assert findings(doc, "TRT007") == findings(doc, "TRT008") == []


def test_unset_tensor_parallel_size_is_one(tmp_path, capsys, monkeypatch):
    files = proxy_files()
    files["gen_config.yaml"] += "tensor_parallel_size: 4\nattn_backend: FLASHINFER\n"
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    msgs = [f["message"] for f in findings(doc, "TRT003")]
    assert msgs and all("1 (unset: the LLM API's default) on the context server but 4" in m for m in msgs)
    # two options files alone: the command lines that load them may pass --tp_size: not assumed
    doc = check(tmp_path / "b", capsys, monkeypatch, {
        "ctx_config.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
        "gen_config.yaml": "tensor_parallel_size: 4\nattn_backend: FLASHINFER\ncache_transceiver_config:\n"
                           "  backend: UCX\n"})
    assert findings(doc, "TRT003") == []
    # a disaggregated config's server without tensor_parallel_size runs TP 1
    doc = check(tmp_path / "c", capsys, monkeypatch,
                {"disagg.yaml": disagg(top="attn_backend: FLASHINFER\n", gen="  tensor_parallel_size: 2\n")})
    assert len(findings(doc, "TRT003")) == 1


def test_cache_transceiver_backend_by_release(tmp_path, capsys, monkeypatch):
    files = proxy_files()
    files["gen_config.yaml"] = "cache_transceiver_config:\n  max_tokens_in_buffer: 8192\n"
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    assert {f["line"] for f in findings(doc, "TRT010")} >= {2}  # the generation server of run.sh
    assert findings(doc, "TRT009") == []

    def k8s(tag):
        return {"gen.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: gen\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: gen\n        image: nvcr.io/nvidia/tensorrt-llm/release:" + tag + "\n"
            "        command: [\"trtllm-serve\", \"M\", \"--port\", \"8002\", \"--server_role\", \"generation\"]\n")}
    doc = check(tmp_path / "b", capsys, monkeypatch, k8s("1.0.0rc4"))
    (f,) = findings(doc, "TRT009")
    assert f["severity"] == "error" and "TensorRT-LLM 1.0.0rc4" in f["message"]
    doc = check(tmp_path / "c", capsys, monkeypatch, k8s("0.21.0"))
    assert findings(doc, "TRT009") == findings(doc, "TRT010") == []


@pytest.mark.parametrize("options, pd022", [
    ('--extra_llm_api_options "$CONFIG_DIR/ctx.yaml"', "is a value pdlint cannot see"),
    ("--config ./missing.yaml", "was not found in the repository"),
    ("--config ./ctx_config.yaml", None),
])
def test_an_options_file_pdlint_cannot_read_is_reported(options, pd022, tmp_path, capsys, monkeypatch):
    # the server's settings live in that file: a launch whose file pdlint did not read is not a checked one
    files = {"ctx_config.yaml": "cache_transceiver_config:\n  backend: UCX\n",
             "run.sh": f"trtllm-serve Qwen/Qwen3-8B --host localhost --port 8001 --server_role context {options}\n"}
    found = findings(check(tmp_path, capsys, monkeypatch, files), "PD022")
    assert [f["message"].split(": ")[0].endswith(pd022) for f in found] == ([True] if pd022 else [])


@pytest.mark.parametrize("script_dir", [
    'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"', 'SCRIPT_DIR=$(dirname "$0")',
    'SCRIPT_DIR="${BASH_SOURCE%/*}"'])
def test_options_files_named_from_the_script_directory_are_read(script_dir, tmp_path, capsys, monkeypatch):
    """ddps-lab/disaggregation-TensorRT-LLM disagg-exp/launch_trtllm.sh (field test rw6/b): `--extra_llm_api_options
    "$SCRIPT_DIR/ctx.yaml"` was PD022 "a value pdlint cannot see", the file beside the script unread, and the two
    servers had no role and no pair."""
    files = {"exp/ctx.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
             "exp/gen.yaml": "cache_transceiver_config:\n  backend: NIXL\n",
             "exp/launch.sh": f"#!/bin/bash\n{script_dir}\n"
             'CUDA_VISIBLE_DEVICES=0 trtllm-serve M --port 8001 --extra_llm_api_options "$SCRIPT_DIR/ctx.yaml" &\n'
             'CUDA_VISIBLE_DEVICES=1 trtllm-serve M --port 8011 --extra_llm_api_options "$SCRIPT_DIR/gen.yaml" &\n'}
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert findings(doc, "PD022") == []
    launches = [l for l in doc["launches"] if l["path"] == "exp/launch.sh"]
    assert sorted(l["role"] for l in launches) == ["decode", "prefill"]
    assert [f["path"] for f in findings(doc, "TRT001")] == ["exp/gen.yaml"]


def test_a_proxy_config_pdlint_cannot_read_is_reported(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": 'trtllm-serve disaggregated -c "$CONFIG_DIR/d.yaml"\n'})
    (f,) = findings(doc, "PD022")
    assert "the servers it routes to and their settings were not checked" in f["message"]


def test_a_server_role_from_a_variable_is_reported(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": "trtllm-serve Qwen/Qwen3-8B --server_role $ROLE\n"})
    (f,) = findings(doc, "PD021")
    assert "--server-role $ROLE" in f["message"] or "--server_role $ROLE" in f["message"]


OVERRIDE = ("python3 -m dynamo.trtllm --model-path M --disaggregation-mode {mode} {extra}"
            "--override-engine-args '{{\"disable_overlap_scheduler\":{dos},\"cache_transceiver_config\":"
            "{{\"backend\":\"{backend}\",\"max_tokens_in_buffer\":8192}}}}'")


def test_dynamo_engine_overrides_are_the_servers_settings(tmp_path, capsys, monkeypatch):
    """DO-Solutions/gtc-2026-doks k8s/dynamo/dev-disagg.yaml (field test rw6/d): --override-engine-args set the
    overlap scheduler and the transceiver backend; pdlint read none of it (TRT005, two TRT010)."""
    script = (OVERRIDE.format(mode="prefill", extra="", dos="true", backend="NIXL") + " &\n" +
              "CUDA_VISIBLE_DEVICES=1 " + OVERRIDE.format(mode="decode", extra="", dos="false", backend="NIXL") + "\n")
    doc = check(tmp_path / "ok", capsys, monkeypatch, {"disagg.sh": script})
    assert [f["code"] for f in doc["findings"]] == []
    doc = check(tmp_path / "bad", capsys, monkeypatch, {"disagg.sh": script.replace('"UCX"', '"x"').replace(
        'false,"cache_transceiver_config":{"backend":"NIXL"', 'false,"cache_transceiver_config":{"backend":"UCX"')})
    assert [f["code"] for f in doc["findings"]] == ["TRT001"]


def test_dynamo_dotted_trtllm_flags_are_settings(tmp_path, capsys, monkeypatch):
    script = ("python3 -m dynamo.trtllm --model-path M --disaggregation-mode prefill "
              "--trtllm.disable_overlap_scheduler true --trtllm.cache_transceiver_config.backend NIXL &\n"
              "CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.trtllm --model-path M --disaggregation-mode decode "
              "--trtllm.cache_transceiver_config.backend UCX\n")
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": script})
    assert [f["code"] for f in doc["findings"]] == ["TRT001"]


def test_an_override_pdlint_cannot_read_leaves_the_settings_incomplete(tmp_path, capsys, monkeypatch):
    script = ('python3 -m dynamo.trtllm --model-path M --disaggregation-mode prefill --override-engine-args "$OV" &\n'
              'CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.trtllm --model-path M --disaggregation-mode decode '
              '--override-engine-args "$OV"\n')
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": script})
    assert not [f for f in doc["findings"] if f["code"] in ("TRT005", "TRT010")]


@pytest.mark.parametrize("method", ["mtp", "eagle"])
def test_speculative_recipe_option_files_have_roles(method, tmp_path, capsys, monkeypatch):
    # Dynamo's TRT-LLM recipes engine_configs/deepseek_r1/mtp/mtp_{prefill,decode}.yaml (field test rw7/e): the
    # decode file named no role, so the pair was never formed
    spec = "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 1\n"
    doc = check(tmp_path, capsys, monkeypatch, {
        f"engine_configs/{method}/{method}_prefill.yaml":
            "backend: pytorch\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n" + spec,
        f"engine_configs/{method}/{method}_decode.yaml":
            "backend: pytorch\ncache_transceiver_config:\n  backend: NIXL\n" + spec})
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert codes(doc) == ["TRT001"]


@pytest.mark.parametrize("ctx, expect", [
    ("tensor_parallel_size: 1\n", "keeps the overlap scheduler on"),
    ("enable_overlap_scheduler: false\n", None),
    ("pytorch_backend_config:\n  enable_overlap_scheduler: false\n", None),
    ("pytorch_backend_config:\n  enable_overlap_scheduler: true\n",
     "pytorch_backend_config.enable_overlap_scheduler: true turns the overlap scheduler on"),
    ("pytorch_backend_config:\n  disable_overlap_scheduler: true\n", None),
])
def test_overlap_scheduler_spelt_before_the_rename(ctx, expect, tmp_path, capsys, monkeypatch):
    """triton-inference-server/triton_distributed (field test rw11/b) targets TensorRT-LLM 0.17/0.18, whose
    `enable_overlap_scheduler` was off unless set (PR #4174 renamed it and turned it on): a config that writes the
    old key is judged by its value, not as "keeps the overlap scheduler on"."""
    doc = check(tmp_path, capsys, monkeypatch, {"disagg.yaml": (
        "hostname: localhost\nport: 8000\nmodel: M\nbackend: pytorch\ncontext_servers:\n  num_instances: 1\n"
        + "".join("  " + line + "\n" for line in ctx.splitlines())
        + "  urls: [\"localhost:8001\"]\ngeneration_servers:\n  num_instances: 1\n  urls: [\"localhost:8002\"]\n")})
    msgs = [f["message"] for f in findings(doc, "TRT005")]
    assert [expect in m for m in msgs] == ([True] if expect else []), msgs


@pytest.mark.parametrize("tag, fires", [("0.18.2", False), ("0.19.0", False), ("0.20.0", True), ("1.0.0rc4", True)])
def test_overlap_scheduler_by_the_release_an_image_names(tag, fires, tmp_path, capsys, monkeypatch):
    # before 0.20 the overlap scheduler is off unless enabled: a context server without the key keeps it off
    doc = check(tmp_path, capsys, monkeypatch, {
        "engine.yaml": "cache_transceiver_config:\n  backend: UCX\n",
        "ctx.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ctx\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: ctx\n        image: nvcr.io/nvidia/tensorrt-llm/release:" + tag + "\n"
            "        command: [\"trtllm-serve\", \"M\", \"--port\", \"8001\", \"--server_role\", \"context\", "
            "\"--extra_llm_api_options\", \"engine.yaml\"]\n")})
    assert len(findings(doc, "TRT005")) == (1 if fires else 0), [f["message"] for f in doc["findings"]]


# MLPerf Inference v5.1 closed/NVIDIA/code/llama3_1-405b/tensorrt/run_disagg_405B/start_worker.sh (field test
# rw14/g): one MPI job starts every context and generation server of its -c config
MPI_WORKER = """\
#! /bin/bash
config_file=CONFIG
if [ -z "${work_dir}" ]; then
    python -m tensorrt_llm.commands.serve disaggregated_mpi_worker -c ${config_file} --disable_gc
else
    trtllm-serve disaggregated_mpi_worker -c ${config_file}
fi
"""


def test_disaggregated_mpi_worker_reads_its_config(tmp_path, capsys, monkeypatch):
    """It was an unknown-role server serving the model `disaggregated_mpi_worker`, and its unseen -c config
    passed as checked; `python -m tensorrt_llm.commands.serve` was no launch at all."""
    doc = check(tmp_path / "opaque", capsys, monkeypatch, {"start_worker.sh": MPI_WORKER.replace("CONFIG", "$1")})
    assert [(l["entrypoint"], l["kind"]) for l in doc["launches"]] == [
        ("trtllm-serve disaggregated_mpi_worker", "router")] * 2
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("PD022", 2)]
    assert "the servers it starts and their settings were not checked" in doc["findings"][0]["message"]
    # the config in the repository: its servers are checked (a TP mismatch), nothing unseen
    doc = check(tmp_path / "seen", capsys, monkeypatch,
                {"start_worker.sh": MPI_WORKER.replace("CONFIG", "disagg.yaml"),
                 "disagg.yaml": disagg(top="attn_backend: FLASHINFER\n", ctx="  tensor_parallel_size: 4\n",
                                       gen="  tensor_parallel_size: 8\n")})
    assert sorted(f["code"] for f in doc["findings"]) == ["TRT003", "TRT010", "TRT010"]


def test_the_trtllm_serve_module_is_launch_text():
    from pdlint.coverage import has_launch_text
    assert has_launch_text("python -m tensorrt_llm.commands.serve disaggregated -c disagg.yaml")
    assert not has_launch_text("from tensorrt_llm.commands.serve import main")


OPTIONS = ("tensor_parallel_size: {tp}\nenable_attention_dp: false\nmax_num_tokens: 8192\nattn_backend: FLASHINFER\n"
           "cache_transceiver_config:\n  backend: UCX\n{extra}")


def test_an_options_file_takes_its_role_from_its_folder(tmp_path, capsys, monkeypatch):
    """MLPerf Inference v6.0 configs/<system>/Interactive/disagg_prefill/llama3_1-405b.yaml and disagg_decode/
    (field test rw14/g): roles unknown, no pair, so TRT003 and TRT005 never ran."""
    files = {"c/disagg_prefill/llama3_1-405b.yaml": OPTIONS.format(tp=4, extra="disable_overlap_scheduler: true\n"),
             "c/disagg_decode/llama3_1-405b.yaml": OPTIONS.format(tp=8, extra="")}
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert codes(doc) == ["TRT003"]
    files["c/disagg_decode/llama3_1-405b.yaml"] = OPTIONS.format(tp=4, extra="")
    doc = check(tmp_path / "b", capsys, monkeypatch, files)
    assert codes(doc) == []
    # the file name still wins over its folder
    doc = check(tmp_path / "c", capsys, monkeypatch, {"c/disagg_decode/ctx_config.yaml": OPTIONS.format(tp=4, extra="")})
    assert [l["role"] for l in doc["launches"]] == ["prefill"]


@pytest.mark.parametrize("gen,why,where", [
    ("cache_transceiver_config:\n  backend: NIXL\n---\n", "holds 2 YAML documents", ("gen_config.yaml", 3)),
    ("", "is empty", ("run.sh", 2)),  # (no text to point at: the option that names it)
    ("- cache_transceiver_config\n", "is not a mapping of options", ("gen_config.yaml", 1)),
])
def test_an_options_file_trtllm_serve_cannot_load(gen, why, where, tmp_path, capsys, monkeypatch):
    """Field test rw21/h: a generation options file with a stray `---` was dropped without a word; its NIXL/UCX
    mismatch vanished and TRT002 said the server "uses DEFAULT" (exit 0)."""
    files = proxy_files()
    files["gen_config.yaml"] = gen
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = findings(doc, "TRT013")
    assert (f["path"], f["line"], f["severity"]) == (*where, "error")
    assert why in f["message"] and "none of its settings were checked" in f["message"]
    assert findings(doc, "TRT002") == []


def test_an_options_file_that_does_not_parse_whatever_its_name(tmp_path, capsys, monkeypatch):
    """Field test rw22/h: `--config ./gen.opts` (no YAML extension, so no PD003) whose text does not parse:
    trtllm-serve's yaml.safe_load fails, but pdlint dropped it without a word, lost the UCX/NIXL mismatch and
    said the server "uses DEFAULT" (exit 0)."""
    files = proxy_files(gen_file="gen.opts")
    del files["gen_config.yaml"]
    files["gen.opts"] = "cache_transceiver_config: {backend: NIXL}\nx: [\n"
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = findings(doc, "TRT013")
    assert (f["path"], f["line"], f["severity"]) == ("gen.opts", 2, "error")
    assert "does not parse as YAML (while parsing a flow node" in f["message"]
    assert findings(doc, "TRT002") == []


def test_an_options_file_over_pdlints_limits_is_named_unread(tmp_path, capsys, monkeypatch):
    from pdlint.formats import yamltree as yt
    files = proxy_files(gen_file="gen.opts")
    del files["gen_config.yaml"]
    files["gen.opts"] = "cache_transceiver_config: {backend: UCX}\nk: [" + ", ".join(["1"] * 80) + "]\n"
    compose = yt.compose
    monkeypatch.setattr(yt, "compose", lambda text, max_nodes=0: compose(text, max_nodes=60))  # (200,000 for real)
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = findings(doc, "PD022")
    assert f["message"].startswith("--config ./gen.opts is over pdlint's YAML limits")
    assert findings(doc, "TRT013") == [] and findings(doc, "TRT002") == []


def test_an_options_file_of_one_mapping_is_quiet(tmp_path, capsys, monkeypatch):
    files = proxy_files()
    files["gen_config.yaml"] = "---\ncache_transceiver_config:\n  backend: UCX\n"  # (a leading `---`: one document)
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert findings(doc, "TRT013") == [] and codes(doc) == []


def test_an_options_file_not_found_is_named_with_the_option_as_written(tmp_path, capsys, monkeypatch):
    # field test rw21/a: PD022 wrote trtllm-serve's `--extra_llm_api_options` with dashes, the spelling TRT011 refuses
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": "trtllm-serve M --port 8001 --extra_llm_api_options "
                                                          "/logs/ctx.yaml &\n"})
    (f,) = [f for f in doc["findings"] if f["code"] == "PD022"]
    assert f["message"].startswith("--extra_llm_api_options /logs/ctx.yaml was not found")


def test_the_options_file_wins_over_the_command_line(tmp_path, capsys, monkeypatch):
    """trtllm-serve merges the options file over the arguments its command line gives (`llm_args | llm_args_dict`,
    update_llm_args_with_extra_dict): `--tp_size 2` with `tensor_parallel_size: 4` in the file runs TP 4 (field
    test rw21/a: the context server's TP 4 against the generation server's 2 went unseen)."""
    files = proxy_files()
    files["run.sh"] = files["run.sh"].replace("--config", "--tp_size 2 --config")
    files["ctx_config.yaml"] += "attn_backend: FLASHINFER\ntensor_parallel_size: 4\n"
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    (f,) = findings(doc, "TRT003")
    assert "tensor_parallel_size is 4 on the context server but 2 on the generation server" in f["message"]
    files["ctx_config.yaml"] = files["ctx_config.yaml"].replace("tensor_parallel_size: 4\n", "")
    doc = check(tmp_path / "b", capsys, monkeypatch, files)
    assert findings(doc, "TRT003") == []  # both run the command line's TP 2


def test_a_url_with_a_port_of_thousands_of_digits_is_no_port(tmp_path, capsys, monkeypatch):
    # field test rw21/h: int() of a 5000-digit port stopped the rules of the file (PD013), its TRT001 lost
    script = ("#!/bin/bash\ncat > ctx.yml << EOF\ncache_transceiver_config:\n  backend: UCX\nEOF\n"
              "cat > gen.yml << EOF\ncache_transceiver_config:\n  backend: NIXL\nEOF\n"
              "cat > disagg-config.yml << EOF\nhostname: localhost\nport: 36125\nbackend: pytorch\ncontext_servers:\n"
              "  num_instances: 1\n  urls: [\"localhost:36123\"]\ngeneration_servers:\n  num_instances: 1\n"
              f"  urls: [\"localhost:{'9' * 5000}\"]\nEOF\n"
              "trtllm-serve /m --host localhost --port 36123 --backend pytorch --extra_llm_api_options ./ctx.yml &\n"
              "trtllm-serve /m --host localhost --port 36124 --backend pytorch --extra_llm_api_options ./gen.yml &\n"
              "trtllm-serve disaggregated -c disagg-config.yml &\n")
    doc = check(tmp_path, capsys, monkeypatch, {"launch.sh": script})
    assert "PD013" not in codes(doc) and "TRT001" in codes(doc)


def test_fewer_visible_gpus_than_a_trtllm_serve_needs(tmp_path, capsys, monkeypatch):
    """PD153 for trtllm-serve started on its own: it spawns tensor x pipeline parallel workers on the visible GPUs
    ("Only 2 GPUs are available, but 4 are required", llmapi/llm.py; field test rw21/a). The options file's
    tensor_parallel_size counts (it wins over the command line)."""
    files = {"run.sh": "CUDA_VISIBLE_DEVICES=0,1 trtllm-serve M --tp_size 2 --port 8001 --config ctx.yaml &\n"
                       "CUDA_VISIBLE_DEVICES=2,3 srun -n 4 trtllm-llmapi-launch trtllm-serve M --tp_size 4 --port 8002 &\n"
                       "CUDA_VISIBLE_DEVICES=4,5,6,7 trtllm-serve M --tp_size 2 --pp_size 2 --port 8003 &\n"
                       "CUDA_VISIBLE_DEVICES=0 trtllm-serve M --port 8004\n",
             "ctx.yaml": "tensor_parallel_size: 4\n"}
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = findings(doc, "PD153")
    assert (f["path"], f["line"]) == ("run.sh", 1)
    assert "makes 2 GPUs visible (CUDA_VISIBLE_DEVICES=0,1) but uses 4" in f["message"]
    assert findings(doc, "PD151") == findings(doc, "PD152") == []  # (GPU placement: not judged for trtllm-serve)


def test_a_pair_serving_different_models(tmp_path, capsys, monkeypatch):
    # field test rw21/a (repro 3): the context server on Llama, the generation server on Qwen, behind one proxy
    files = proxy_files()
    files["run.sh"] = files["run.sh"].replace("trtllm-serve Qwen/Qwen3-8B --host localhost --port 8001",
                                              "trtllm-serve meta-llama/Llama-3.1-8B-Instruct --host localhost "
                                              "--port 8001")
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    (f,) = findings(doc, "TRT015")
    assert (f["path"], f["line"], f["severity"]) == ("run.sh", 2, "error")
    assert "serves meta-llama/Llama-3.1-8B-Instruct but the generation server Qwen/Qwen3-8B" in f["message"]
    # the same model under another directory (a mount point) is the same model
    files = proxy_files()
    files["run.sh"] = files["run.sh"].replace("trtllm-serve Qwen/Qwen3-8B --host localhost --port 8001",
                                              "trtllm-serve /models/Qwen3-8B/ --host localhost --port 8001")
    doc = check(tmp_path / "b", capsys, monkeypatch, files)
    assert findings(doc, "TRT015") == []
