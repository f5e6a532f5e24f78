"""PD050 and a list item with a blank that is an option's value: argparse reads a word holding a blank that names no
option as a positional (CPython `_parse_optional`: `if ' ' in arg_string: return None`), so after an option that
takes a value it is that value. Differential round rw28/b P8: `- --served-model-name` then `- "-llama 8b"` got
SGL003 + PD050 + SGL001; the oracle ACCEPTs it with served_model_name='-llama 8b'."""

import pytest

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-server
spec:
  template:
    spec:
      containers:
      - name: server
        image: {image}
        command: [{command}]
        args:
        - --model-path
        - /models/llama
        - {before}
        - "{item}"
"""
SGL = ("lmsysorg/sglang:v0.5.23", "python3, -m, sglang.launch_server")
VLLM = ("vllm/vllm-openai:v0.33.0", "vllm, serve")


def _codes(scratch_git, engine, before, item):
    image, command = engine
    text = DEPLOY.format(image=image, command=command, before=before, item=item)
    if engine is VLLM:
        text = text.replace("- --model-path\n        - /models/llama\n", "- /models/llama\n")
    scratch_git.write("d.yaml", text)
    _, report = scratch_git.lint("d.yaml")
    return sorted(f["code"] for f in report["findings"])


@pytest.mark.parametrize("engine,before,item", [
    (SGL, "--served-model-name", "-llama 8b"),
    (SGL, "--served-model-name", "--tp 2"),
    (SGL, "--served-model", "-x y"),  # (a unique prefix of --served-model-name)
    (VLLM, "--served-model-name", "-llama 8b"),  # (vLLM's oracle: ACCEPT, served_model_name=['-llama 8b'])
])
def test_an_item_with_a_blank_after_an_option_that_takes_a_value_is_its_value(scratch_git, engine, before, item):
    assert _codes(scratch_git, engine, before, item) == []


@pytest.mark.parametrize("engine,before,item", [
    (SGL, "--enable-metrics", "--tp-size 2"),  # a switch takes no value: the item is one unrecognized argument
    (SGL, "--port=30000", "--tp-size 2"),
    (VLLM, "--enable-log-requests", "--tensor-parallel-size 2"),
])
def test_a_packed_flag_item_after_a_switch_is_still_reported(scratch_git, engine, before, item):
    assert "PD050" in _codes(scratch_git, engine, before, item)
