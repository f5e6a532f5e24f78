"""llmaz BackendRuntime (InftyAI/llmaz): the server container runs ``spec.command`` with the ``args`` of a
recommended config. Found scanning llmaz: its SGLang runtime was judged from ``spec.command`` alone
("the following arguments are required: --model-path", SGL010), the args being one level down.

Also from that scan: a release pinned by an image tag that pdlint has no table for (vllm/vllm-openai:v0.6.0,
judged against 0.9.2) made the options of that older release unknown-flag errors."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from pdlint.formats.crd import role_of_name

DATA = Path(__file__).parent / "data" / "llmaz"


def test_backend_runtime_command_and_recommended_args(scratch_git, capsys):
    shutil.copy(DATA / "sglang.yaml", scratch_git.root / "sglang.yaml")
    code, out = scratch_git.lint("sglang.yaml")
    assert (code, out["findings"]) == (0, [])
    (launch,) = out["launches"]
    assert launch["argv"][:2] == ["--model-path", "{{ .ModelPath }}"]
    assert launch["argv"][-4:] == ["--host", "0.0.0.0", "--port", "8080"]
    assert launch["engine_version"] == "0.4.5"  # lmsysorg/sglang:v0.4.5-cu121
    assert "recommended config 'default'" in launch["context"]


def test_each_recommended_config_is_a_launch_and_speculative_decoding_is_no_role(scratch_git, capsys):
    shutil.copy(DATA / "vllm.yaml", scratch_git.root / "vllm.yaml")
    code, out = scratch_git.lint("vllm.yaml")
    assert [(l["line"], l["role"]) for l in out["launches"]] == [(11, "null"), (11, "null")]
    assert [l["context"].split(",")[0] for l in out["launches"]] == [
        "BackendRuntime/vllm recommended config 'default'",
        "BackendRuntime/vllm recommended config 'speculative-decoding'"]
    # vllm/vllm-openai:v0.6.0 has no table: judged against 0.9.2, its own --speculative_model is no error
    assert out["findings"] == []


def test_a_typo_in_the_recommended_args_fires_at_its_line(scratch_git, capsys):
    text = (DATA / "sglang.yaml").read_text().replace("        - --served-model-name\n",
                                                        "        - --served-modle-name\n")
    (scratch_git.root / "sglang.yaml").write_text(text)
    code, out = scratch_git.lint("sglang.yaml")
    assert code == 1
    assert [(f["code"], f["line"]) for f in out["findings"]] == [("SGL001", 23)]


@pytest.mark.parametrize("name,role", [("speculative-decoding", None), ("decode-worker", "decode"),
                                        ("prefill", "prefill"), ("eagle-decoder-draft", None),
                                        # Dynamo's TRT-LLM recipes (field test rw7/e): a decode worker with MTP
                                        ("mtp_decode.yaml", "decode"), ("eagle_decode.yaml", "decode"),
                                        ("mtp_prefill.yaml", "prefill"), ("eagle-decoding", None),
                                        ("spec_decode", None)])
def test_speculative_decoding_names_no_role(name, role):
    assert role_of_name(name) == role


VLLM = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: v}}
    spec:
      template:
        spec:
          containers:
          - name: vllm
            image: vllm/vllm-openai:{tag}
            command: [vllm, serve, m, {flag}, "5"]
    """


@pytest.mark.parametrize("tag,flag,reported", [
    ("v0.6.0", "--speculative_model", False),   # older than every table: may be that release's own option
    ("v0.6.0", "--maxModelLen", True),          # camelCase: no release spells an option so
    ("v0.11.0", "--speculative_model", True),   # its own table: not an option of 0.11.0
    ("v0.10.1.1", "--max-num-seqs-typo", True),  # between tables (judged against 0.10.1, the nearest older)
])
def test_unknown_flags_with_an_approximate_table(scratch_git, capsys, tag, flag, reported):
    (scratch_git.root / "d.yaml").write_text(textwrap.dedent(VLLM.format(tag=tag, flag=flag)))
    code, out = scratch_git.lint("d.yaml")
    assert ("VLLM018" in [f["code"] for f in out["findings"]]) is reported
