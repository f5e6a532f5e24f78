"""VLLM037: a value vLLM's parser cannot convert for an option that takes a number.

Field test rw17/n (probe repro/6): `vllm serve ... --tensor-parallel-size=abc`, also put into a Deployment by a
Kustomize `add` operation, passed; vLLM 0.33.0's parser stops with "argument --tensor-parallel-size/-tp: invalid
int value: 'abc'" (recorded in tests/conformance/vllm-recorded-0.33.0.jsonl, with the values its own number
converters accept: `32k`, `auto`, `None`).
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: ["vllm", "serve", "Qwen/Qwen3-8B"]
        args:
        - --tensor-parallel-size
        - "{tp}"
        - --gpu-memory-utilization={gmu}
        - --max-model-len
        - "{mml}"
        - --kv-transfer-config
        - '{{"kv_connector":"NixlConnector","kv_role":"kv_both"}}'
"""


def _lint(scratch_git, **values):
    v = {"tp": "2", "gmu": "0.9", "mml": "32k", **values}
    scratch_git.write("decode.yaml", DEPLOYMENT.format(**v))
    return scratch_git.lint("decode.yaml")


def test_a_float_for_an_integer_option_and_a_decimal_comma_are_errors_at_the_value(scratch_git):
    code, report = _lint(scratch_git, tp="2.0", gmu="0,9")
    found = [(f["code"], f["line"], f["column"], f["message"]) for f in report["findings"]]
    assert code == 1
    assert found == [
        ("VLLM037", 14, 12, "argument --tensor-parallel-size/-tp: invalid int value: '2.0' (vLLM 0.10.1)"),
        ("VLLM037", 15, 36, "argument --gpu-memory-utilization: invalid float value: '0,9' (vLLM 0.10.1)"),
    ]


def test_numbers_vllm_reads_are_quiet(scratch_git):
    # human-readable sizes, auto, Python's own int / float spellings
    # (`auto` for --max-model-len only from 0.20.0, human_readable_int_or_auto: vLLM 0.10.1's human_readable_int
    # refuses it, tests/test_vllm_converters.py)
    for tp, gmu, mml in (("2", "0.9", "32k"), (" 8 ", "1e-1", "64K"), ("1_0", ".85", "-1"), ("4", "1", "131072")):
        code, report = _lint(scratch_git, tp=tp, gmu=gmu, mml=mml)
        assert [f["code"] for f in report["findings"]] == [], (tp, gmu, mml)
        assert code == 0


def test_a_word_for_a_port_in_a_script_and_a_value_pdlint_cannot_see(scratch_git):
    scratch_git.write("serve.sh", 'vllm serve m --port http --max-num-seqs "$SEQS" --seed -1\n')
    code, report = scratch_git.lint("serve.sh")
    assert [(f["code"], f["column"], f["message"]) for f in report["findings"]] == [
        ("VLLM037", 21, "argument --port: invalid int value: 'http' (vLLM 0.33.0)")]
    assert code == 1


def test_an_option_some_release_reads_otherwise_is_not_judged(scratch_git):
    # --cuda-graph-sizes takes a list (nargs +) and --max-log-len an int: only the latter is judged
    scratch_git.write("serve.sh", "vllm serve m --cuda-graph-sizes x --max-log-len y\n")
    code, report = scratch_git.lint("serve.sh")
    assert [(f["code"], f["message"]) for f in report["findings"]
            if f["code"] == "VLLM037"] == [("VLLM037", "argument --max-log-len: Value y cannot be converted to <class 'int'>. (vLLM 0.33.0)")]


def test_dynamo_workers_are_not_judged(scratch_git):
    scratch_git.write("worker.sh", "python -m dynamo.vllm --model m --tensor-parallel-size two\n")
    code, report = scratch_git.lint("worker.sh")
    assert "VLLM037" not in [f["code"] for f in report["findings"]]


def test_a_placeholder_another_tool_fills_is_not_judged(scratch_git):
    # littlemex/disaggregated-inference-with-nixl-over-aws-efa: a Jinja template writes JSON command lists whose
    # `{{PORT}}` a second stage fills
    scratch_git.write("serve.sh", "vllm serve m --port {{PORT}} --max-num-seqs {seqs} "
                                  "--tensor-parallel-size @TP@ --gpu-memory-utilization __GMU__\n")
    code, report = scratch_git.lint("serve.sh")
    assert "VLLM037" not in [f["code"] for f in report["findings"]]
