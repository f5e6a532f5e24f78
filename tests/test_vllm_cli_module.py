"""``python -m vllm.entrypoints.cli.main serve MODEL ...``: vLLM's own CLI module, what the ``vllm`` console
script runs (vllm/entrypoints/cli/main.py), so it is ``vllm serve``.

Field test taco-project/FlexKV examples/vllm_adaption/launch.sh:13 and scripts/launch_vllm_server.sh:144: PD020
"`python -m vllm.entrypoints.cli.main` is not a launcher pdlint knows", the launch unchecked.
"""

import pytest

from pdlint import launchers
from pdlint.coverage import MARKER
from pdlint.text import TStr

NIXL = """'{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'"""


def _words(line: str) -> list:
    return [TStr.synthetic(w, "<t>") for w in line.split()]


def test_the_module_with_serve_is_checked_as_vllm_serve(scratch_git):
    scratch_git.write("launch.sh", f"""\
        #!/bin/bash
        python -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B \\
            --port 8100 --dtype fp16 \\
            --kv-transfer-config {NIXL}
        """)
    code, report = scratch_git.lint("launch.sh")
    (f,) = report["findings"]
    assert (f["code"], f["line"], f["column"], f["role"], code) == ("VLLM019", 3, 25, "prefill", 1)
    (launch,) = report["launches"]
    assert launch["entrypoint"] == "vllm serve"


def test_a_second_positional_is_refused_as_by_vllm_serve(scratch_git):
    scratch_git.write("launch.sh", "python3 -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B extra --port 8100\n")
    _, report = scratch_git.lint("launch.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM018"]
    assert "vllm serve takes one positional argument" in report["findings"][0]["message"]


def test_an_exec_form_container_command_and_a_workflow_step(scratch_git):
    scratch_git.write("pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            command: ["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m", "--dtype", "fp16"]
        """)
    scratch_git.write(".github/workflows/ci.yaml", """\
        on: push
        jobs:
          serve:
            runs-on: ubuntu-latest
            steps:
            - run: python -m vllm.entrypoints.cli.main serve m --dtype fp16
        """)
    _, report = scratch_git.lint("pod.yaml", ".github/workflows/ci.yaml")
    got = sorted((f["path"], f["line"], f["code"]) for f in report["findings"])
    assert got == [(".github/workflows/ci.yaml", 6, "VLLM019"), ("pod.yaml", 8, "VLLM019")]


@pytest.mark.parametrize("line", [
    "python -m vllm.entrypoints.cli.main --help",
    "python -m vllm.entrypoints.cli.main bench serve --model m --port 8000",
    "python -m vllm.entrypoints.cli.main",
    "python -m vllm.entrypoints.cli.main chat --url http://localhost:8000/v1",
])
def test_other_sub_commands_start_no_server(line):
    assert launchers.find(_words(line)) is None


def test_the_module_forms_that_start_a_server():
    m = launchers.find(_words("env A=1 python3 -u -mvllm.entrypoints.cli.main serve m --port 8000"))
    assert (m.engine, m.kind, m.entrypoint, m.argv_start) == ("vllm", "server", "vllm serve", 6)


def test_a_bench_run_is_quiet(scratch_git):
    scratch_git.write("bench.sh", "python -m vllm.entrypoints.cli.main bench serve --model m --dtype fp16\n")
    code, report = scratch_git.lint("bench.sh")
    assert report["findings"] == [] and report["launches"] == [] and code == 0


@pytest.mark.parametrize("text,marked", [
    ("python -m vllm.entrypoints.cli.main serve m", True),
    ('command: ["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m"]', True),
    ("python -m vllm.entrypoints.cli.main bench serve --model m", False),
    ("from vllm.entrypoints.cli.main import main", False),
])
def test_the_module_with_serve_is_launch_text(text, marked):
    assert any(m.group("launcher") for m in MARKER.finditer(text)) is marked
