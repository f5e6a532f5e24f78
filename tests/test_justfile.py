"""Justfile recipes are shell scripts; recipe names hint the role."""

import json

from pdlint.cli import main

JUST = """model := "meta-llama/Llama-3.1-8B"

prefill:
    CUDA_VISIBLE_DEVICES=0 vllm serve {{model}} \\
    --port 8100 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'

decode port="8200": prefill
    python -m sglang.launch_server --model-path /m --disaggregation-mode decode --port {{port}}

# a comment
help:
    @echo usage
"""


def test_recipes_become_launches(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Justfile").write_text(JUST)
    assert main(["show", "--format", "json", "Justfile"]) == 0
    ls = json.loads(capsys.readouterr().out)["launches"]
    assert [(l["line"], l["engine"], l["role"]) for l in ls] == [(4, "vllm", "prefill"), (9, "sglang", "decode")]
    assert ls[0]["context"] == "just recipe 'prefill'"
    assert ls[1]["argv"][-1] == "{{port}}"  # just's own interpolation: opaque
