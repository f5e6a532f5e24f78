"""PD110: SGLang disaggregation flags on a server with no --disaggregation-mode and no role around it.

Field test rw18/o: skypilot-org/skypilot examples/serve/nvidia-dynamo/nvidia-dynamo-multinode.sky.yaml ("serving ...
in disaggregation mode") runs `python -m dynamo.sglang ... --disaggregation-transfer-backend nixl
--disaggregation-bootstrap-port 30001` with no --disaggregation-mode; SGLang 0.5.23's argument resolution accepts it
with disaggregation_mode 'null': an aggregated server, the flags dead."""

import pytest

SERVER = "python -m sglang.launch_server --model-path m"

SKY = """\
resources:
  accelerators: H100:8
  image_id: docker:nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.1
num_nodes: 2
run: |
  python -m dynamo.sglang --model-path Qwen/Qwen3-8B --tp 8 \\
    --disaggregation-transfer-backend nixl --disaggregation-bootstrap-port 30001 --page-size 16
"""


def _found(scratch_git, name, text):
    scratch_git.write(name, text)
    code, report = scratch_git.lint(name)
    return code, [f for f in report["findings"] if f["code"] == "PD110"]


def test_the_skypilot_task_without_a_mode_is_reported_at_the_first_flag(scratch_git):
    code, found = _found(scratch_git, "task.sky.yaml", SKY)
    assert code == 0 and len(found) == 1
    f = found[0]
    assert (f["line"], f["column"], f["severity"]) == (7, 5, "warning")
    assert f["message"] == ("--disaggregation-transfer-backend and --disaggregation-bootstrap-port are set, but there "
                            "is no --disaggregation-mode: SGLang starts an ordinary (aggregated) server and no "
                            "prefill/decode transfer happens")
    assert [(r["line"], r["column"]) for r in f["related"]] == [(7, 44)]


@pytest.mark.parametrize("flags", [
    "--disaggregation-mode prefill --disaggregation-transfer-backend nixl",  # a role
    "--disaggregation-ib-device mlx5_0",  # Mooncake HiCache storage reads it too
    "--encoder-only --disaggregation-transfer-backend mooncake",  # encoder disaggregation
    "--disaggregation-transfer-backend nixl $EXTRA",  # a word pdlint cannot see may hold the mode
    "--tp-size 2",  # nothing of PD
])
def test_quiet(scratch_git, flags):
    code, found = _found(scratch_git, "run.sh", f"{SERVER} {flags}\n")
    assert found == []


def test_a_structural_role_is_pd105_not_pd110(scratch_git):
    scratch_git.write("prefill.yaml", """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-prefill
spec:
  template:
    spec:
      containers:
      - name: prefill
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-transfer-backend, nixl]
""")
    code, report = scratch_git.lint("prefill.yaml")
    assert [f["code"] for f in report["findings"]] == ["PD105"]
