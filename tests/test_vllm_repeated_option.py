"""VLLM038: an option given twice with different values (vLLM keeps the last, logs "Found duplicate keys").

Field test rw19/a (yeqcharlotte/router `scripts/k8s/llama3.1/values.yaml`): llm-d-modelservice writes
`--tensor-parallel-size 8` from `parallelism.tensor: 8` and the container's args add `--tensor-parallel-size 1`:
the server runs tensor parallel 1 on an 8-GPU pod.  vLLM 0.33.0's parser gives tensor_parallel_size 1."""

import pytest


def _codes(report):
    return [(f["code"], f["line"]) for f in report["findings"]]


@pytest.mark.parametrize("flags,expected", [
    ("--tensor-parallel-size 8 --tensor-parallel-size 1", [("VLLM038", 1)]),
    ("-tp 2 --max-model-len 4096 --tensor-parallel-size 4", [("VLLM038", 1)]),
    ("--tensor-parallel-size 2 --tensor-parallel-size 2", []),  # equal copies: noise, not a dead value
    ("--tensor-parallel-size 2 --max-model-len 4096", []),
])
def test_repeated_options_on_a_command_line(scratch_git, flags, expected):
    scratch_git.write("serve.sh", f"vllm serve Qwen/Qwen3-8B {flags}\n")
    _, report = scratch_git.lint("serve.sh")
    assert _codes(report) == expected


def test_the_dead_value_is_reported_and_the_live_one_related(scratch_git):
    scratch_git.write("serve.sh", "vllm serve Qwen/Qwen3-8B \\\n  --port 8100 \\\n  --port 8200\n")
    _, report = scratch_git.lint("serve.sh")
    [f] = report["findings"]
    assert (f["code"], f["line"], f["severity"]) == ("VLLM038", 2, "warning")
    assert "'8200'" in f["message"] and f["related"][0]["line"] == 3


VALUES = """\
    modelArtifacts:
      name: meta-llama/Llama-3.1-8B-Instruct
    decode:
      parallelism:
        tensor: 8
      containers:
      - name: vllm
        image: ghcr.io/llm-d/llm-d-cuda:v0.3.0
        modelCommand: vllmServe
        args:
          - --tensor-parallel-size
          - "1"
          - --kv-transfer-config
          - '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    """


def test_a_chart_written_size_and_an_args_copy(scratch_git):
    scratch_git.write("values.yaml", VALUES)
    _, report = scratch_git.lint("values.yaml")
    assert _codes(report) == [("VLLM038", 5)]  # at parallelism.tensor, the value the chart writes and vLLM drops


def test_the_chart_passes_the_kv_transfer_config_as_written(scratch_git):
    # rw19/a: an invalid kv_role on llm-d-modelservice values passed (its launches counted as controller-written)
    scratch_git.write("values.yaml", VALUES.replace('          - --tensor-parallel-size\n          - "1"\n', "")
                      .replace("kv_both", "kv_bogus"))
    _, report = scratch_git.lint("values.yaml")
    assert [c for c, _ in _codes(report)] == ["VLLM029"]
    scratch_git.write("values.yaml", VALUES.replace('          - --tensor-parallel-size\n          - "1"\n', ""))
    _, report = scratch_git.lint("values.yaml")
    assert _codes(report) == []
