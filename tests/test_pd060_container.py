"""PD060's message names where the script is written: a shell script's lines are its commands; only a YAML
`|` block can also be folded with `>`.

Field test (vllm-ascend examples/disaggregated_prefill_v1/run_producer.sh, before its fix): a `vllm serve`
written over lines with no `\\`, in a plain `.sh`, was told "in a YAML `|` block every line is a line of the
script: fold it with `>`".
"""

import pytest

SCRIPT = """\
#!/bin/bash
vllm serve /models/Qwen2.5-7B-Instruct
--port 8100
"""


@pytest.mark.parametrize("name", ["run_producer.sh", "serve.sh.j2"])
def test_a_shell_script_is_named_as_one(scratch_git, name):
    scratch_git.write(name, SCRIPT)
    _, report = scratch_git.lint(name)
    (f,) = [f for f in report["findings"] if f["code"] == "PD060"]
    assert f["message"] == ("these flags never reach the launch: the line above does not end with `\\`, so the "
                            "command ends there (in a shell script every line is a command of its own: end the "
                            "lines with `\\`), so `--port 8100` runs as a command of its own")
    assert f["fix"] == "End every line of the command but the last with `\\`."
    assert "YAML" not in f["message"] + f["fix"]


def test_a_yaml_block_keeps_its_advice(scratch_git):
    scratch_git.write("pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            command: ["bash", "-c"]
            args:
            - |
              vllm serve /models/Qwen2.5-7B-Instruct
              --port 8100
        """)
    _, report = scratch_git.lint("pod.yaml")
    (f,) = [f for f in report["findings"] if f["code"] == "PD060"]
    assert "(in a YAML `|` block every line is a line of the script: fold it with `>`" in f["message"]
    assert "write the YAML block with `>`" in f["fix"]
