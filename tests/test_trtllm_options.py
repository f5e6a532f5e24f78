"""trtllm-serve's own options (TRT011): click refuses any spelling its `serve` command does not define, and such
an option sets nothing the other rules read.  The case is field test rw16/m (repro 11): a `trtllm-serve` script
written with vLLM's `--tensor-parallel-size 2` and a `--bogus-flag`, which pdlint passed and even took as the
context server's TP (TRT003)."""

import json

from pdlint.cli import main
from pdlint.engines.trtllm import options

START = ("#!/bin/bash\n"
         "CUDA_VISIBLE_DEVICES=0,1 trtllm-serve Qwen/Qwen3-4B --backend pytorch --port 8001 "
         "--tensor-parallel-size 2 --bogus-flag 1 --extra_llm_api_options ctx.yaml &\n"
         "CUDA_VISIBLE_DEVICES=2 trtllm-serve Qwen/Qwen3-4B --backend pytorch --port 8011 "
         "--extra_llm_api_options gen.yaml &\nwait\n")
CTX = "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n"
GEN = "cache_transceiver_config:\n  backend: UCX\n"


def check(root, capsys, monkeypatch, files):
    for rel, text in files.items():
        (root / rel).write_text(text)
    monkeypatch.chdir(root)
    main(["check", "--format", "json", "--exit-zero", *files])
    return json.loads(capsys.readouterr().out)


def trt(doc):
    return [f for f in doc["findings"] if f["code"].startswith("TRT")]


def test_unknown_options_are_errors_at_the_option_and_set_nothing(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"start.sh": START, "ctx.yaml": CTX, "gen.yaml": GEN})
    found = trt(doc)
    assert [f["code"] for f in found] == ["TRT011", "TRT011"]  # and no TRT003 from the refused option
    tp, bogus = sorted(found, key=lambda f: f["column"])
    assert (tp["line"], tp["column"], tp["severity"]) == (2, 83, "error")
    assert tp["message"].startswith("No such option: --tensor-parallel-size")
    assert "--tp_size" in tp["message"] and "main@00209af" in tp["message"]
    assert (bogus["line"], bogus["column"]) == (2, 108)
    assert bogus["message"].startswith("No such option: --bogus-flag") and "did you mean" not in bogus["message"]


def test_underscore_options_are_quiet(tmp_path, capsys, monkeypatch):
    start = START.replace("--tensor-parallel-size 2 --bogus-flag 1", "--tp_size 2")
    doc = check(tmp_path, capsys, monkeypatch, {"start.sh": start, "ctx.yaml": CTX, "gen.yaml": GEN})
    assert [f["code"] for f in trt(doc)] == ["TRT003"]  # the TP the context server really sets
    one = "trtllm-serve M --tp_size 2 --extra_llm_api_options ctx.yaml --trust_remote_code --config=ctx.yaml\n"
    doc = check(tmp_path, capsys, monkeypatch, {"one.sh": one, "ctx.yaml": CTX})
    assert trt(doc) == []


def test_disaggregated_proxy_options_are_quiet(tmp_path, capsys, monkeypatch):
    cfg = ("hostname: localhost\nport: 8000\nmodel: M\nbackend: pytorch\ncontext_servers:\n  num_instances: 1\n"
           "  urls:\n    - localhost:8001\ngeneration_servers:\n  num_instances: 1\n  urls:\n    - localhost:8002\n")
    good = "trtllm-serve disaggregated -c disagg.yaml -t 600 --metrics-log-interval 5 &\n"
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": good, "disagg.yaml": cfg})
    assert not [f for f in trt(doc) if f["code"] == "TRT011"]


def test_dynamo_trtllm_options_are_not_judged(tmp_path, capsys, monkeypatch):
    run = ("python -m dynamo.trtllm --model-path M --disaggregation-mode prefill --tensor-parallel-size 2 "
           "--extra-engine-args ctx.yaml\n")
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": run, "ctx.yaml": CTX})
    assert not [f for f in trt(doc) if f["code"] == "TRT011"]


def test_tables_are_generated_from_the_click_decorators():
    from importlib import util
    import pathlib
    spec = util.spec_from_file_location("gen", pathlib.Path(__file__).parents[1] / "scripts" /
                                        "gen_trtllm_options.py")
    gen = util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    src = ('@click.command("serve")\n@click.argument("model")\n'
           '@click.option("--tensor_parallel_size", "--tp_size", type=int)\n'
           '@click.option("--trust_remote_code", is_flag=True)\n'
           '@click.option("--backend", type=ChoiceWithAlias(["pytorch", "tensorrt"], {"trt": "tensorrt"}))\n'
           'def serve(): pass\n')
    serve = gen.commands_of(src)["serve"]
    assert [o["options"] for o in serve] == [["--tensor_parallel_size", "--tp_size"], ["--trust_remote_code"],
                                              ["--backend"]]
    assert serve[1]["is_flag"] and serve[2]["choices"] == ["pytorch", "tensorrt"]
    assert options.defined("serve", "--tp_size") and not options.defined("serve", "--tp-size")
