"""Repositories that are an engine's own source (a fork of vLLM or SGLang): field tests rw22/a (ggaaooppeenngg/vllm,
jikunshang/vllm: scripts using KVTransferConfig fields and flags the fork adds were errors "vLLM refuses to start") and
rw22/b (benenzhu/sglang_P: 48 PD020 warnings on the engine's own Python tests and notebooks)."""

import json

import pytest

from pdlint.cli import main


def run(capsys, *args):
    code = main(["check", "--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out), out.err


KV = '{"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_producers_size":2}'


@pytest.mark.parametrize("fork", [True, False])
def test_a_field_the_fork_may_define_is_a_warning_in_the_engines_own_repository(scratch_dir, capsys, fork):
    (scratch_dir / "run_p.sh").write_text(f"vllm serve Qwen/Qwen3-8B --kv-transfer-config '{KV}'\n")
    if fork:
        (scratch_dir / "vllm" / "engine").mkdir(parents=True)
        (scratch_dir / "vllm" / "engine" / "arg_utils.py").write_text("# the fork's argument parser\n")
    code, doc, _ = run(capsys)
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM029"]
    assert f["severity"] == ("warning" if fork else "error")
    assert ("this repository holds a vLLM source tree of its own, vllm/engine/arg_utils.py: a launch that runs it "
            "may accept this" in f["message"]) is fork
    assert code == (0 if fork else 1)


def test_another_engines_unknown_flag_stays_an_error(scratch_dir, capsys):
    (scratch_dir / "vllm" / "engine").mkdir(parents=True)
    (scratch_dir / "vllm" / "engine" / "arg_utils.py").write_text("\n")
    (scratch_dir / "s.sh").write_text("python3 -m sglang.launch_server --model-path m --my-fork-flag 3\n")
    code, doc, _ = run(capsys)
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("SGL001", "error")]


def test_the_engines_own_python_tests_are_not_walked(scratch_dir, capsys):
    (scratch_dir / "python" / "sglang" / "srt").mkdir(parents=True)
    (scratch_dir / "python" / "sglang" / "srt" / "server_args.py").write_text("# --disaggregation-mode is defined here\n")
    (scratch_dir / "test").mkdir()
    (scratch_dir / "test" / "test_pd.py").write_text(
        'popen(["python3", "-m", "sglang.launch_server", "--disaggregation-mode", "prefill"])\n')
    code, doc, err = run(capsys)
    assert doc["findings"] == [] and code == 0
    assert "holds SGLang's own source (python/sglang/srt/server_args.py): 1 of its Python files and notebooks" in err
    # named, it is scanned as always
    code, doc, err = run(capsys, "test/test_pd.py")
    assert [f["code"] for f in doc["findings"]] == ["PD020"]


def test_a_deployment_repository_walks_its_python_files(scratch_dir, capsys):
    (scratch_dir / "test_pd.py").write_text('popen(["python3", "-m", "sglang.launch_server", "--disaggregation-mode", "p"])\n')
    code, doc, err = run(capsys)
    assert [f["code"] for f in doc["findings"]] == ["PD020"] and "own source" not in err
