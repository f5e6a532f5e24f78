"""``from vllm.entrypoints.openai.api_server import (...)`` in a Python module (triton-inference-server's
triton_distributed, field report rw11/b) was reported as launch text pdlint does not read (PD020): an import runs
no server.  A command line in the same file still is."""

import pytest

from pdlint.coverage import find_markers


@pytest.mark.parametrize("line", [
    "from vllm.entrypoints.openai.api_server import (",
    "    from sglang.launch_server import launch_server",
    "import sglang.launch_server",
    "import sglang.launch_server as ls",
    "import os, sglang.launch_server",
])
def test_an_import_is_no_launch_text(line):
    assert find_markers(line + "\n") == []


@pytest.mark.parametrize("line", [
    'cmd = "python -m sglang.launch_server --disaggregation-mode prefill"',
    "subprocess.run(['python3', '-m', 'vllm.entrypoints.openai.api_server', '--port', '8000'])",
    "python -m sglang.launch_server --model-path m  # from x import y",
])
def test_a_command_line_still_is(line):
    assert find_markers(line + "\n")


def test_a_module_that_only_imports_the_server_is_quiet(scratch_git):
    scratch_git.write("engine.py", "import logging\nfrom vllm.engine.arg_utils import AsyncEngineArgs\n"
                                   "from vllm.entrypoints.openai.api_server import (\n    build_app,\n)\n")
    code, report = scratch_git.lint("engine.py")
    assert report["findings"] == [] and code == 0


def test_a_module_that_starts_the_server_is_reported(scratch_git):
    scratch_git.write("run.py", "import subprocess\nsubprocess.run(['vllm', 'serve', 'm', '--kv-transfer-config',"
                                " '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'])\n")
    code, report = scratch_git.lint("run.py")
    assert [f["code"] for f in report["findings"]] == ["PD020"]


@pytest.mark.parametrize("line, python, markers", [
    ("    disaggregation_mode: str", True, 0),  # ishandhanani/infbench's log parser (field test rw12/c)
    ("    kv_role: Optional[str] = None", True, 0),
    ('    disaggregation_mode: str = "prefill"', True, 0),
    ("    disaggregation_mode: str", False, 1),  # in YAML or a script it is still a key with a value
    ('    disaggregation_mode = "prefill"', True, 1),  # an assignment: still
    # an SGLang fork's own source (meituan-longcat/SGLang-FluentLLM, field test rw13/e)
    ("        disaggregation_mode: DisaggregationMode,", True, 0),
    ('    parser.add_argument("--disaggregation-mode", type=str, default="null")', True, 0),
])
def test_a_python_field_annotation_is_no_launch_text(line, python, markers):
    assert len(find_markers(line + "\n", "python" if python else "")) == markers


def test_a_python_dataclass_with_pd_fields_is_quiet(scratch_git):
    scratch_git.write("models.py", "class Server(TypedDict, total=False):\n    tp_size: int\n"
                                   "    disaggregation_mode: str\n    kv_role: Optional[str]\n")
    code, report = scratch_git.lint("models.py")
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("line, markers", [
    ("RUN pip install sglang-router --force-reinstall", 0),  # a Dockerfile's package (field test rw13/e)
    ("RUN uv pip install --system sglang-router --no-deps", 0),
    ("RUN pip install sglang-router && sglang-router launch --pd-disaggregation", 2),  # the launch after it
])
def test_a_package_install_is_no_launch_text(line, markers):
    assert len(find_markers(line + "\n")) == markers


@pytest.mark.parametrize("line, markers", [
    # llumnix vllm_llumlet_proxy.py (field test rw14/h): an f-string log message naming the config attribute
    ('    f"Failed to initialize migration frontend. kv_transfer_config:{vllm_config.kv_transfer_config}"', []),
    ('    msg = f"kv_role: {cfg.kv_role}"', []),
    # a dict of engine arguments is still launch text
    ('engine_args = {"kv_transfer_config": {"kv_connector": "NixlConnector"}}', ['"kv_transfer_config']),
    ('cmd = "vllm serve m --kv-transfer-config \'{\\"kv_role\\":\\"kv_producer\\"}\'"', ["vllm serve", "--kv-transfer-config", '\\"kv_role']),
])
def test_an_f_string_field_after_a_config_key_is_no_launch_text(line, markers):
    assert [m.text for m in find_markers(line + "\n", "python")] == markers


@pytest.mark.parametrize("text, markers", [
    # a docstring's usage example: documentation (vLLM's benchmark_serving.py, copied into many benchmark
    # repositories; field test rw20/f)
    ('"""Benchmark online serving.\n\nOn the server side, run:\n    vllm serve <your_model> \\\\\n'
     '        --swap-space 16 --kv-transfer-config x\n"""\nimport argparse\n', []),
    ('def serve():\n    """Starts `python -m sglang.launch_server --disaggregation-mode prefill`."""\n    pass\n', []),
    # a parameter's annotation in a signature (rebel-daekyeong's disagg_deployment.py)
    ("    def __init__(self, kv_transfer_config: KVTransferConfig):\n", []),
    # a string a program runs is still launch text, docstring-like or not
    ('CMD = """python -m sglang.launch_server --disaggregation-mode prefill"""\nos.system(CMD)\n',
     ["sglang.launch_server", "--disaggregation-mode"]),
    ('def f():\n    x = 1\n    """python -m sglang.launch_server --disaggregation-mode decode"""\n',
     ["sglang.launch_server", "--disaggregation-mode"]),  # not the body's first statement: no docstring
])
def test_python_docstrings_and_signatures_are_no_launch_text(text, markers):
    assert [m.text for m in find_markers(text, "python")] == markers
