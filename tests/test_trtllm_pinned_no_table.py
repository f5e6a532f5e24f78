"""TRT011 on a launch pinned to a TensorRT-LLM release pdlint has no option table of (field test rw17/n, P1:
`nvcr.io/nvidia/tensorrt-llm/release:1.0.0` with `--kv_cache_fraction` / `--bogus_opt`, options no table defines,
passed, while the same line unpinned got TRT011): such a release is judged against the union of the tables, as an
unpinned launch is, and the message says pdlint has no table of it."""

import json

from pdlint.cli import main
from pdlint.engines.trtllm import options

IMAGE = "nvcr.io/nvidia/tensorrt-llm/release:1.0.0"


def check(root, capsys, monkeypatch, files):
    for rel, text in files.items():
        (root / rel).write_text(text)
    monkeypatch.chdir(root)
    main(["check", "--format", "json", "--exit-zero", "--no-cache", *files])
    return json.loads(capsys.readouterr().out)


def trt011(doc):
    return [(f["path"], f["line"], f["column"], f["message"]) for f in doc["findings"] if f["code"] == "TRT011"]


def compose(opts: str) -> str:
    return f"services:\n  llm:\n    image: {IMAGE}\n    command: trtllm-serve Qwen/Qwen3-8B --port 8001 {opts}\n"


def docker_run(opts: str) -> str:
    return f"#!/bin/bash\ndocker run -d --gpus all --network host {IMAGE} trtllm-serve Qwen/Qwen3-8B --port 8001 {opts}\n"


def test_the_release_has_no_table():
    assert options.table_for("1.0.0") is None


def test_an_option_no_table_defines_is_refused_under_a_release_without_a_table(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"docker-compose.yml": compose("--bogus_opt 1"),
                                                "run.sh": docker_run("--tp_size 1 --kv_cache_fraction 0.8")})
    found = trt011(doc)
    assert [(p, line, col) for p, line, col, _ in found] == [("docker-compose.yml", 4, 53), ("run.sh", 2, 134)]
    for _, _, _, message in found:
        assert message.startswith("No such option: --")
        assert message.endswith("; pdlint has no table of 1.0.0)")


def test_options_some_table_defines_pass_under_a_release_without_a_table(tmp_path, capsys, monkeypatch):
    ok = "--tp_size 1 --kv_cache_free_gpu_memory_fraction 0.8 --backend pytorch"
    doc = check(tmp_path, capsys, monkeypatch, {"docker-compose.yml": compose(ok), "run.sh": docker_run(ok)})
    assert trt011(doc) == []
