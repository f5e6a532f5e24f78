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
BOTH := ARGS + env_var('EXTRA')

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
    assert "{{BOTH}}" in second["argv"]  # a function call in the expression: a value pdlint cannot see
    pd023 = [f for f in doc["findings"] if f["code"] == "PD023"][0]
    assert "`BOTH` is set at line 7 by an expression pdlint does not evaluate (it reads the function call " \
           "`env_var()`)" in pd023["fix"]


PLUS_JUST = """\
MODEL := "Qwen/Qwen3-8B"
KV := '''--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' '''
COMMON_ARGS := '''
--max-model-len 4096 \\
--bogus-flag-that-vllm-rejects \\
'''
PREFILL_ARGS := COMMON_ARGS + ''' \\
--port 8100 \\
'''

prefill:
    CUDA_VISIBLE_DEVICES=0 vllm serve {{MODEL}} \\
        {{PREFILL_ARGS}} \\
        {{KV}}

decode PORT="8200":
    CUDA_VISIBLE_DEVICES=1 vllm serve {{MODEL}} \\
        {{COMMON_ARGS}} \\
        --port {{PORT}} \\
        {{KV}}
"""


def test_plus_concatenation_is_evaluated_and_recipe_parameters_are_named_as_such(tmp_path, monkeypatch, capsys):
    """rw34/a P2 (the "vLLM FP4 & SGLang" justfile of a minosfuture/vllm pd_gb200 checkout): just's `+` joins
    strings, so `PREFILL_ARGS := COMMON_ARGS + '''...'''` is COMMON_ARGS's text then `--port 8100`; the prefill
    launch was PD023 ("set by `just --set`") and its flags unchecked (vLLM 0.33.0 refuses
    `--bogus-flag-that-vllm-rejects`: "unrecognized arguments").  `decode PORT="8200":`'s `{{PORT}}` is a recipe
    parameter, not a sed `{PORT}` placeholder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "justfile").write_text(PLUS_JUST)
    assert main(["--format", "json", "--no-cache", "justfile"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("VLLM018", 5)]
    launches = sorted(doc["launches"], key=lambda l: l["line"])
    assert "--bogus-flag-that-vllm-rejects" in launches[0]["argv"] and "8100" in launches[0]["argv"]
    main(["--no-cache", "justfile"])
    out = capsys.readouterr().out
    assert "sed" not in out and "{PORT}" not in out.replace("{{PORT}}", "")
    assert "give the parameter PORT of just recipe `decode` the value it runs with (its default '8200' when " \
           "`just decode` runs without arguments, the argument given otherwise) as --var PORT=VALUE" in out
    # the value --var gives a parameter is the one checked
    main(["--format", "json", "--no-cache", "--var", "PORT=8200", "justfile"])
    doc = json.loads(capsys.readouterr().out)
    assert not doc["coverage"]["undecided"]
    assert "8200" in [l for l in doc["launches"] if l["line"] == 17][0]["argv"]


def test_just_expressions_path_join_conditionals_and_strings(tmp_path):
    """just's expressions as just evaluates them: `/` joins with a slash, `if A == B { X } else { Y }`, escapes of
    a double-quoted string, an indented string loses its first line break and common indentation; a function
    call, a backtick or a variable no file sets is a value pdlint cannot see (None)."""
    from pdlint.formats.justfile import recipes
    from pdlint.text import SourceFile, TStr
    text = (
        'A := "x" + \'y\'   # a comment\n'
        'B := A / "bin" / \'z\'\n'
        'C := if A == "xy" { "yes" } else { "no" }\n'
        'D := if A != "xy" { "yes" } else if B =~ \'^xy/\' { "re" } else { "no" }\n'
        'E := env_var(\'HOME\')\n'
        'F := E + "x"\n'
        'G := "a\\"b\\\\c\\tq"\n'
        'H := """\n    one\n      two\n    """\n'
        'I := (A +\n  B)\n'
        'J := `date`\n'
        'K := later\n'
        'later := "fw"\n'
        'L := / "abs" / A\n'
        'M := unset + "x"\n'
        'N := "s" "t"\n'
        'O := ""\n'
    )
    _, v = recipes(TStr.from_source(SourceFile("justfile", text)))
    got = {k: (x.text if x is not None else None) for k, x in v.items()}
    assert got == {"A": "xy", "B": "xy/bin/z", "C": "yes", "D": "re", "E": None, "F": None, "G": 'a"b\\c\tq',
                   "H": "one\n  two\n", "I": "xyxy/bin/z", "J": None, "K": "fw", "later": "fw", "L": "/abs/xy",
                   "M": None, "N": None, "O": ""}
    assert (v["B"].origin.line, v["B"].origin_at(3).line, v["L"].origin.line) == (1, 2, 17)  # where written


def test_just_expressions_are_bounded():
    """Untrusted input: nesting and chains past pdlint's bound are values it cannot see, never a RecursionError;
    a file of many variables evaluates every one of them."""
    from pdlint.formats.justfile import recipes, unevaluated
    from pdlint.text import SourceFile, TStr
    text = ("A := " + "/" * 5000 + "'x'\nB := " + "if 'a' == 'a' { " * 3000 + "\nC := " + "(" * 3000 + "\n"
            + "\n".join(f"V{i} := 'v{i}'" for i in range(200)) + "\nW := V1 + V199\nF := G\nG := F\n")
    _, v = recipes(TStr.from_source(SourceFile("justfile", text)))
    assert v["A"] is None and v["B"] is None and v["C"] is None and v["F"] is None
    assert v["W"].text == "v1v199" and v["V150"].text == "v150"
    assert unevaluated(text, "B") == (2, "an expression nested past pdlint's bound")


def test_env_functions_read_the_given_value_or_their_default(tmp_path):
    """just's `env_var_or_default(KEY, DEFAULT)` / `env(KEY, DEFAULT)` read the environment variable KEY, DEFAULT
    when it is unset: pdlint reads the default (as the shell's `${KEY:-DEFAULT}`), or the value `--var KEY=...`
    gives; `env_var(KEY)` / `env(KEY)` without a default is a value only `--var` gives (stop 50 left every call a
    value pdlint cannot see)."""
    from pdlint.formats.justfile import recipes, unevaluated
    from pdlint.text import SourceFile, TStr
    text = ("A := env_var_or_default('TP_SIZE', 'banana')\n"
            "B := env('MODEL_DIR', \"/models\") / 'm'\n"
            "C := env_var('HOME')\n"
            "D := env('HOME') + 'x'\n"
            "E := env_var_or_default('X')\n"          # (one argument: just refuses it)
            "F := env_var_or_default(C, 'd')\n"       # (a key pdlint cannot see)
            "G := env(\n  'K',\n  'multi',\n)\n")     # (line breaks inside the call, a trailing comma)
    doc = TStr.from_source(SourceFile("justfile", text))
    _, v = recipes(doc)
    got = {k: (x.text if x is not None else None) for k, x in v.items()}
    assert got == {"A": "banana", "B": "/models/m", "C": None, "D": None, "E": None, "F": None, "G": "multi"}
    assert (v["A"].origin.line, v["A"].origin.column) == (1, 37)  # the default, where written
    _, v = recipes(doc, given={"TP_SIZE": TStr.synthetic("4", "<var>"), "HOME": TStr.synthetic("/h", "<var>")})
    assert (v["A"].text, v["C"].text, v["D"].text, v["F"].text) == ("4", "/h", "/hx", "d")
    assert unevaluated(text, "C") == (3, "the function call `env_var()`")
    assert unevaluated(text, "A") is None


def test_an_env_default_a_flag_refuses_is_reported_at_the_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "justfile").write_text(
        "TP := env_var_or_default('TP_SIZE', 'banana')\n\nprefill:\n"
        "    python -m sglang.launch_server --model-path m --tp-size {{TP}} --disaggregation-mode prefill\n")
    assert main(["--format", "json", "--no-cache", "justfile"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(f["code"], f["line"], f["column"]) for f in doc["findings"]] == [("SGL005", 1, 38)]
    assert main(["--format", "json", "--no-cache", "--var", "TP_SIZE=2", "justfile"]) == 0
