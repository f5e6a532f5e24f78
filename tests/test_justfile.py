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


MY_JUST = """\
# cut down from minosfuture/vllm my.just (field test rw6/f)
MODEL := "nvidia/DeepSeek-R1-0528-FP4-v2"

PD_VLLM_ARGS := '''\\
--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_prodcer"}' '''

prefill-master-pd PMA DPS:
  vllm serve {{MODEL}} \\
    {{PD_VLLM_ARGS}} \\
    --data-parallel-address {{PMA}} \\
    --data-parallel-size {{DPS}}

decode-worker-pd:
  vllm serve {{ MODEL }} --port 8100 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
"""


def test_top_level_variables_are_substituted_and_recipes_are_separate_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "justfile").write_text(MY_JUST)
    assert main(["--format", "json", "--no-cache", "justfile"]) == 1
    doc = json.loads(capsys.readouterr().out)
    # the misspelt kv_role held by a variable is found, at the variable's line; no PD009 on the indented string
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("VLLM029", 5)]
    ls = sorted(doc["launches"], key=lambda l: l["line"])
    assert [(l["line"], l["structural_role"]) for l in ls] == [(8, "prefill"), (14, "decode")]
    assert ls[0]["argv"][0] == "nvidia/DeepSeek-R1-0528-FP4-v2" and "{{PMA}}" in ls[0]["argv"]  # a parameter
    # two recipes are two invocations: no port or GPU collision between them
    (tmp_path / "justfile").write_text(MY_JUST.replace("--port 8100 ", ""))
    main(["--format", "json", "--no-cache", "justfile"])
    assert not [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] in ("PD150", "PD151")]


def test_expressions_are_values_pdlint_cannot_see_and_indented_strings_lose_their_first_line_break(
        tmp_path, monkeypatch, capsys):
    # minosfuture/vllm (field test rw6/f): `A := B + C` was substituted as the text "B + C" (false VLLM018), and
    # an indented string starting with a line break ended the command before its flags (false PD060, SGL010)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "justfile").write_text('''\
M := "/models/m"
HOME_DIR := M
ARGS := \'\'\'
--disaggregation-mode prefill \\
--disaggregation-transfer-backend fake \\
\'\'\'
BOTH := ARGS + ARGS

prefill:
    python -m sglang.launch_server --model-path {{HOME_DIR}} \\
        {{ARGS}} \\
        --port 30000

prefill2:
    python -m sglang.launch_server --model-path {{M}} {{BOTH}} --port 30001
''')
    main(["--format", "json", "--no-cache", "justfile"])
    doc = json.loads(capsys.readouterr().out)
    assert sorted((f["code"], f["line"]) for f in doc["findings"]) == [("PD023", 15), ("SGL104", 5)]
    second = [l for l in doc["launches"] if l["line"] == 15][0]
    assert "{{BOTH}}" in second["argv"]  # an expression: a value pdlint cannot see
