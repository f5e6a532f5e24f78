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
#: an engine's argument parser is tens of kilobytes: the padding makes a file its size (pdlint.discover
#: MIN_ENGINE_SOURCE_BYTES), ``defines`` what the fork adds
PADDING = "".join(f"    parser.add_argument('--upstream-flag-{i}', type=int, default=None)\n" for i in range(80))


def fork_file(path, defines: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# the fork's own source\n" + PADDING + defines)


@pytest.mark.parametrize("fork", [True, False])
def test_a_field_the_fork_may_define_is_a_warning_in_the_engines_own_repository(scratch_dir, capsys, fork):
    (scratch_dir / "run_p.sh").write_text(f"vllm serve Qwen/Qwen3-8B --kv-transfer-config '{KV}'\n")
    if fork:
        fork_file(scratch_dir / "vllm" / "engine" / "arg_utils.py")
        fork_file(scratch_dir / "vllm" / "config" / "kv_transfer.py", "    kv_producers_size: int = 1\n")
    code, doc, _ = run(capsys)
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM029"]
    assert f["severity"] == ("warning" if fork else "error")
    assert ("this repository holds a vLLM source tree of its own, vllm/engine/arg_utils.py: a launch that runs it "
            "may accept this" in f["message"]) is fork
    assert code == (0 if fork else 1)


def test_another_engines_unknown_flag_stays_an_error(scratch_dir, capsys):
    fork_file(scratch_dir / "vllm" / "engine" / "arg_utils.py", "    my_fork_flag: int = 3\n")
    (scratch_dir / "s.sh").write_text("python3 -m sglang.launch_server --model-path m --my-fork-flag 3\n")
    code, doc, _ = run(capsys)
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("SGL001", "error")]


def test_the_engines_own_python_tests_are_not_walked(scratch_dir, capsys):
    fork_file(scratch_dir / "python" / "sglang" / "srt" / "server_args.py")
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


SGL101_PAIR = ("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --bogus-sh 1\n"
               "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode\n")


def _sgl001(capsys):
    code, doc, _ = run(capsys)
    return code, [f["severity"] for f in doc["findings"] if f["code"] == "SGL001"]


def test_a_flag_the_forks_parser_defines_is_a_warning(scratch_dir, capsys):
    (scratch_dir / "pd.sh").write_text(SGL101_PAIR)
    fork_file(scratch_dir / "python" / "sglang" / "srt" / "server_args.py",
              '    parser.add_argument("--bogus-sh", type=int)\n')
    assert _sgl001(capsys) == (0, ["warning"])


@pytest.mark.parametrize("marker", ["empty", "small", "symlink", "symlinked-dir", "undefined"])
def test_a_file_at_the_markers_path_does_not_downgrade_what_it_does_not_define(scratch_dir, capsys, marker):
    """Field test rw23/h: a pull request committing an empty `sglang/srt/server_args.py` (or a link to any file,
    even outside the repository) turned every SGL001 error of the repository into a warning: exit 0."""
    import os
    (scratch_dir / "pd.sh").write_text(SGL101_PAIR)
    target = scratch_dir / "sglang" / "srt" / "server_args.py"
    target.parent.mkdir(parents=True)
    elsewhere = scratch_dir.parent / f"outside-{marker}.py"
    elsewhere.write_text(PADDING + '    parser.add_argument("--bogus-sh")\n')
    if marker == "empty":
        target.write_text("")
    elif marker == "small":
        target.write_text('parser.add_argument("--bogus-sh")\n')
    elif marker == "symlink":
        os.symlink(elsewhere, target)
    elif marker == "symlinked-dir":
        target.parent.rmdir()
        real = scratch_dir.parent / f"outside-srt-{marker}"
        real.mkdir()
        (real / "server_args.py").write_text(elsewhere.read_text())
        os.symlink(real, target.parent)
    else:
        fork_file(target, '    parser.add_argument("--other-flag")\n')
    assert _sgl001(capsys) == (1, ["error"])


def test_a_launch_that_runs_a_released_image_is_judged_as_the_release(scratch_dir, capsys):
    fork_file(scratch_dir / "sglang" / "srt" / "server_args.py", '    parser.add_argument("--bogus-sh")\n')
    (scratch_dir / "pd.yaml").write_text("""\
apiVersion: v1
kind: Pod
metadata: {name: pd}
spec:
  containers:
    - name: prefill
      image: lmsysorg/sglang:v0.5.2
      command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill, --bogus-sh, "1"]
    - name: decode
      image: lmsysorg/sglang:v0.5.2
      command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, decode]
""")
    assert _sgl001(capsys) == (1, ["error"])
