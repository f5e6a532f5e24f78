"""Bare engine argv lists in values and values-like YAML (issue 8 item 2): a list (or string) under
``args`` / ``extraArgs`` / ``extra_args`` / ``server_args`` / ``sglang_args`` / ``engineArgs`` ... holding
``--model-path`` or ``--disaggregation-mode``, outside any container spec, is checked as an SGLang
server's argv; its role comes from ``--disaggregation-mode`` or the enclosing key."""

import os

import pytest

from pdlint.cli import main

DATA = os.path.join(os.path.dirname(__file__), "data", "argv-lists")


def found(doc, prefix=""):
    return sorted((os.path.basename(f["path"]), f["line"], f["code"]) for f in doc["findings"]
                  if f["code"].startswith(prefix))


def launches(doc):
    return sorted((os.path.basename(l["path"]), l["line"], l["role"]) for l in doc["launches"])


def test_nested_lists_are_checked_and_paired_within_the_file(lint):
    code, doc = lint(os.path.join(DATA, "pd-values.yaml"))
    assert code == 1
    assert found(doc) == [("pd-values.yaml", 19, "SGL805"), ("pd-values.yaml", 22, "SGL001")]
    assert launches(doc) == [("pd-values.yaml", 9, "prefill"), ("pd-values.yaml", 16, "decode")]
    msgs = {f["code"]: f["message"] for f in doc["findings"]}
    assert "not an SGLang 0.5.9 flag" in msgs["SGL001"]  # the release of the values' image tag


def test_consistent_lists_are_quiet(lint):
    code, doc = lint(os.path.join(DATA, "clean-values.yaml"))
    assert code == 0 and doc["findings"] == []
    assert launches(doc) == [("clean-values.yaml", 6, "prefill"), ("clean-values.yaml", 8, "decode")]


def test_show_marks_the_mode_taken_from_the_key(capsys):
    main(["show", os.path.join(DATA, "pd-values.yaml")])
    out = capsys.readouterr().out
    assert "engine argv list workers.decodeWorker.sglang_args" in out
    assert "--disaggregation-mode decode taken from the key decodeWorker:" in out


@pytest.mark.parametrize("key", ["args", "extraArgs", "extra_args", "server_args", "sglang_args", "engineArgs",
                                 "serverArgs", "extra_server_args"])
def test_argv_like_keys(scratch, key):
    scratch.write("values.yaml", f"""
        decode:
          {key}: [--model-path, /m, --disaggregation-mode, decode, --tp_size, "2"]
        """)
    code, doc = scratch.lint("values.yaml")
    assert found(doc, "SGL") == [("values.yaml", 2, "SGL001")], doc["findings"]


def test_a_string_of_flags_beside_a_full_command_another_reader_found(scratch):
    scratch.write("values.yaml", """
        servers:
          prefill:
            server_args: "--model-path /m --disaggregation-mode prefill --disaggregation-transfer-backend nixl"
          decode:
            args: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, decode]
        """)
    code, doc = scratch.lint("values.yaml")
    assert launches(doc) == [("values.yaml", 3, "prefill"), ("values.yaml", 5, "decode")]
    assert found(doc, "SGL") == [("values.yaml", 5, "SGL805")]  # nixl vs the decode's default mooncake
    assert len(doc["launches"]) == 2  # the full command is read once (as a YAML exec-form command)


@pytest.mark.parametrize("text", [
    # no SGLang server flag in the list
    "metrics:\n  args: [--port, '9090', --log-level, info]\n",
    # a container spec: the Kubernetes adapter reads it (command + args), not the list walker
    "prefill:\n  image: lmsysorg/sglang:v0.5.9\n  command: [python3, -m, sglang.launch_server]\n"
    "  args: [--model-path, /m, --disaggregation-mode, prefill]\n",
    # vLLM flags (Dynamo vLLM has --disaggregation-mode too)
    "prefill:\n  image: vllm/vllm-openai:v0.10.2\n  worker:\n    args: [--model, m, --disaggregation-mode, prefill]\n",
    # another program's argv
    "bench:\n  args: [genai-bench, --model-path, /m]\n",
    # Dynamo's TensorRT-LLM worker takes --model-path and --disaggregation-mode too
    "workers:\n  prefill:\n    args: [--model-path, m, --disaggregation-mode, prefill, --extra-engine-args, p.yaml]\n",
    # a vLLM flag SGLang does not have
    "workers:\n  decode:\n    args: [--model-path, m, --disaggregation-mode, decode, --max-num-batched-tokens, '8']\n",
    # not an argv-like key (test expectations, metadata)
    "cases:\n  - argv: [--model-path, m, --disaggregation-mode, prefill, --tp_size, '2']\n",
])
def test_lists_that_are_no_sglang_server_argv_stay_quiet(scratch, text):
    scratch.write("values.yaml", text)
    code, doc = scratch.lint("values.yaml")
    assert not any(l["context"].startswith("engine argv list") for l in doc["launches"]), doc["launches"]


def test_a_launcher_split_over_a_list_is_left_to_coverage(scratch):
    scratch.write("job.yaml", """
        steps:
          - exec:
              argv: ["-m", "sglang.launch_server", "--disaggregation-mode", "prefill"]
        """)
    code, doc = scratch.lint("job.yaml")
    assert doc["launches"] == [] and found(doc) == [("job.yaml", 3, "PD020")]


def test_top_level_role_section_lists_are_read_once(scratch):
    scratch.write("values.yaml", """
        prefill:
          extraArgs: [--model-path, /m, --disaggregation-mode, prefill]
        decode:
          extraArgs: [--model-path, /m, --disaggregation-mode, decode]
        """)
    code, doc = scratch.lint("values.yaml")
    assert launches(doc) == [("values.yaml", 2, "prefill"), ("values.yaml", 4, "decode")]


def test_a_rendered_chart_list_is_not_checked_twice(scratch):
    scratch.write("chart/Chart.yaml", "apiVersion: v2\nname: pd\nversion: 0.1.0\n")
    scratch.write("chart/values.yaml", """
        image: lmsysorg/sglang:v0.5.9
        prefill:
          server_args: [--model-path, /m, --disaggregation-mode, prefill, --tp_size, "2"]
        """)
    scratch.write("chart/templates/prefill.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: prefill}
        spec:
          template:
            spec:
              containers:
              - name: prefill
                image: {{ .Values.image }}
                command: [python3, -m, sglang.launch_server]
                args: {{ toJson .Values.prefill.server_args }}
        """)
    code, doc = scratch.lint("chart")
    assert len(doc["launches"]) == 1 and "argv list" not in doc["launches"][0]["context"]
    assert [f["code"] for f in doc["findings"] if f["code"].startswith("SGL")] == ["SGL001"]


def test_a_list_shared_through_an_alias_is_checked_where_it_has_a_role(scratch):
    scratch.write("values.yaml", """
        x-args: &args [--model-path, /m, --tp_size, "2"]
        prefill:
          server_args: *args
        """)
    code, doc = scratch.lint("values.yaml")
    assert launches(doc) == [("values.yaml", 1, "prefill")]
    assert found(doc, "SGL") == [("values.yaml", 1, "SGL001")]
