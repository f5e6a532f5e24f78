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
CTX = "disable_overlap_scheduler: true\nattn_backend: FLASHINFER\ncache_transceiver_config:\n  backend: UCX\n"
GEN = "attn_backend: FLASHINFER\ncache_transceiver_config:\n  backend: UCX\n"  # (TRT003 judges TP with FlashInfer)


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


def _gen():
    from importlib import util
    import pathlib
    spec = util.spec_from_file_location("gen", pathlib.Path(__file__).parents[1] / "scripts" /
                                        "gen_trtllm_options.py")
    gen = util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def test_a_pinned_release_is_judged_with_its_own_table(tmp_path, capsys, monkeypatch):
    # `--backend` came after the December 2024 table (0.17.0.dev2024121700): a launch pinned to that release is
    # refused it, an unpinned one is judged against every table (some release defines it)
    run = "trtllm-serve Qwen/Qwen3-4B --backend pytorch --tp_size 2\n"
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": run})
    assert not [f for f in trt(doc) if f["code"] == "TRT011"]
    (tmp_path / "old").mkdir()
    doc = check(tmp_path / "old", capsys, monkeypatch,
                {"run.sh": run, "requirements.txt": "tensorrt_llm==0.17.0.dev2024121700\n"})
    (f,) = [f for f in trt(doc) if f["code"] == "TRT011"]
    assert f["message"].startswith("No such option: --backend (not an option of trtllm-serve in TensorRT-LLM "
                                   "0.17.0.dev2024121700")
    assert options.table_for("0.17.0.dev2024121700").label == "0.17.0.dev2024121700"


def test_an_image_release_with_a_table_is_judged_with_it(tmp_path, capsys, monkeypatch):
    # 1.3.0rc3's serve.py has no `--disable_kv_cache_reuse` (a fork's option, in the union of the tables)
    def k8s(image):
        return {"gen.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: gen\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: gen\n        image: " + image + "\n"
            "        command: [\"trtllm-serve\", \"M\", \"--port\", \"8002\", \"--disable_kv_cache_reuse\"]\n")}
    (tmp_path / "a").mkdir()
    doc = check(tmp_path / "a", capsys, monkeypatch, k8s("nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc3"))
    (f,) = [f for f in trt(doc) if f["code"] == "TRT011"]
    assert "in TensorRT-LLM 1.3.0rc3" in f["message"]
    (tmp_path / "b").mkdir()
    doc = check(tmp_path / "b", capsys, monkeypatch, k8s("nvcr.io/nvidia/tensorrt-llm/release"))
    assert not [f for f in trt(doc) if f["code"] == "TRT011"]


def test_identical_sources_collapse_into_one_table_of_their_releases():
    gen = _gen()
    src = '@click.command("serve")\n@click.option("--tp_size", type=int)\ndef serve(): pass\n'
    newer = src.replace('type=int)', 'type=int)\n@click.option("--backend")')
    one = lambda text, label: {"label": label, "source": label, "version": gen.release_of_label(label),  # noqa
                               "commands": gen.commands_of(text, lines=False)}
    out = gen.dedupe([one(src, "1.0.0"), one(src, "fork@a/TensorRT-LLM@1234567"), one(src, "1.0.0rc4"),
                      one(newer, "1.1.0")])
    assert [t["label"] for t in out] == ["1.0.0rc4..fork@a/TensorRT-LLM@1234567", "1.1.0"]
    assert out[0]["versions"] == ["1.0.0rc4", "1.0.0"] and out[0]["version"] is None
    assert out[1]["versions"] == ["1.1.0"] and out[1]["version"] == "1.1.0"
    assert gen.version_key("1.0.0rc4") < gen.version_key("1.0.0") < gen.version_key("1.0.0.post1")
    assert gen.release_of_label("main@00209af") is None


def test_every_table_is_generated_from_a_source_the_readme_names():
    import pathlib
    readme = (pathlib.Path(options.__file__).parent / "data" / "README.md").read_text()
    for t in options.tables():
        assert f"`{t.label}`" in readme
