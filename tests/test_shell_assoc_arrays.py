"""Associative arrays (``declare -A``) in the shell front-end.

Found in the field: AMD's "SGLang Disaggregated Server Launcher with Model-Specific Configurations" scripts
(``server.sh``, a dozen copies in public benchmark repositories) keep each model's prefill and decode flags in
``declare -A MODEL_PREFILL_CONFIGS=(["DeepSeek-R1"]="--moe-a2a-backend mori ...")`` and read them with
``${MODEL_PREFILL_CONFIGS[$model_name]}`` inside a function.  pdlint read the array as an indexed one: the
lookup gave the first item's text, ``["DeepSeek-R1"]=...`` and all, as server arguments (a wrong argv), or,
with the model named, nothing it could see (PD023)."""

from __future__ import annotations

from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr


def argv(script: str, env: dict = None) -> list:
    ctx = ShellContext(lambda p, c: None, lambda *a: None)
    if env is not None:
        env = {k: TStr.synthetic(v, "<env>") for k, v in env.items()}
    cmds = shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx, env=env)
    return [[w.text for w in c.words] for c in cmds]


def opaque(script: str) -> list:
    ctx = ShellContext(lambda p, c: None, lambda *a: None)
    cmds = shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx)
    return [[w.opaque for w in c.words] for c in cmds]


# reduced from the launcher's model tables and its get_model_config
LAUNCHER = """\
MODEL_NAME="${MODEL_NAME:-}"
declare -A PREFILL=(
    ["DeepSeek-R1"]="--chunked-prefill-size 8192 --disable-radix-cache"
    [Qwen3]='--page-size 64'
)
get_model_config() {
    local model_name="$1"
    if [[ -n "${PREFILL[$model_name]}" ]]; then
        echo "${PREFILL[$model_name]}"
    else
        echo "--tp-size 4"
    fi
}
CFG=$(get_model_config "$MODEL_NAME")
run $CFG
"""


def test_a_model_table_lookup_gives_that_models_flags():
    assert argv(LAUNCHER, {"MODEL_NAME": "DeepSeek-R1"}) == [
        ["run", "--chunked-prefill-size", "8192", "--disable-radix-cache"]]
    assert argv(LAUNCHER, {"MODEL_NAME": "Qwen3"}) == [["run", "--page-size", "64"]]


def test_a_key_not_in_the_table_is_unset_never_another_items_text():
    assert argv(LAUNCHER) == [["run", "--tp-size", "4"]]  # MODEL_NAME empty: no item
    assert argv(LAUNCHER, {"MODEL_NAME": "Llama"}) == [["run", "--tp-size", "4"]]


def test_origins_are_the_table_lines():
    ctx = ShellContext(lambda p, c: None, lambda *a: None)
    (cmd,) = shell_commands(TStr.from_source(SourceFile("s.sh", LAUNCHER)), ctx,
                            env={"MODEL_NAME": TStr.synthetic("Qwen3", "<env>")})
    o = cmd.words[1].origin_at(0)
    assert (o.path, o.line, o.column) == ("s.sh", 4, 14)


def test_keys_values_element_assignment_and_append():
    script = ('declare -A M\nM[b]=2\nM[a]=1\nM[b]+=0\nk=a\n'
              'run "${!M[@]}"\nrun "${M[@]}"\nrun ${M[$k]} ${M["b"]} ${M[${k}]} ${#M[@]}\n')
    assert argv(script) == [["run", "b", "a"], ["run", "20", "1"], ["run", "1", "20", "1", "2"]]


def test_a_compound_reassignment_and_plus_equals():
    script = ('declare -A M=([x]=1 [y]=2)\nM+=([y]=3 [z]=4)\nrun "${M[@]}"\n'
              'M=([w]=9)\nrun "${!M[@]}" "${M[@]}"\n')
    assert argv(script) == [["run", "1", "3", "4"], ["run", "w", "9"]]


def test_indexed_arrays_keep_their_meaning():
    assert argv('A=(p q r)\ni=1\nrun ${A[$i]} ${A[i+1]} "${!A[@]}"\n') == [["run", "q", "r", "0", "1", "2"]]


def test_a_key_pdlint_cannot_see_gives_a_placeholder_not_a_wrong_value():
    # $(...) key, an unknown variable as key: the value is opaque (PD023 at the launch), never an item's text
    assert opaque('declare -A M=([a]=--x)\nrun ${M[$(hostname)]}\n') == [[False, True]]
    assert opaque('declare -A M=([a]=--x)\nrun ${M[$NODE]}\n') == [[False, True]]
    # an item written in a way pdlint does not read: the whole table is opaque
    assert opaque('declare -A M=($(cat table))\nrun ${M[a]}\n')[-1] == [False, True]


def test_a_role_only_flag_in_a_model_table_is_reported_at_the_table_line(scratch_git):
    scratch_git.write("server.sh", """\
        #!/bin/bash
        MODEL_NAME="${MODEL_NAME:-DeepSeek-R1}"
        declare -A MODEL_PREFILL_CONFIGS=(
            ["DeepSeek-R1"]="--chunked-prefill-size 8192 --enable-linear-replayssm-spec"
            ["DeepSeek-V3"]="--chunked-prefill-size 8192"
        )
        PREFILL_MODEL_CONFIG="${MODEL_PREFILL_CONFIGS[$MODEL_NAME]}"
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill $PREFILL_MODEL_CONFIG
        """)
    code, report = scratch_git.lint("server.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL101", 4)]
    assert code == 1
    _, report = scratch_git.lint("--var", "MODEL_NAME=DeepSeek-V3", "server.sh")
    assert report["findings"] == []


def test_a_positional_parameter_names_the_key():
    """``echo "${MODEL_CONFIGS[$1]}"`` in a function given the model: it was an opaque word (PD023)."""
    script = 'declare -A M=(["R1"]="--page-size 64")\npick() { echo "${M[$1]}" "${M[${1}]}"; }\nrun $(pick R1)\n'
    assert argv(script) == [["run", "--page-size", "64", "--page-size", "64"]]
    assert argv(script.replace("pick R1", "pick Qwen")) == [["run"]]


def test_seq_output_fills_an_array():
    """``prefill_cuda_graph_bs=($(seq 1 128))`` then ``--cuda-graph-bs ${prefill_cuda_graph_bs[*]}`` (the same
    launcher): ``seq`` was no command pdlint evaluated, and the whole model configuration was opaque."""
    script = 'bs=($(seq 1 3))\nrun --cuda-graph-bs ${bs[*]} $(seq 2) $(seq 5 -2 1) $(seq 3 1)\n'
    assert argv(script) == [["run", "--cuda-graph-bs", "1", "2", "3", "1", "2", "5", "3", "1"]]
    assert opaque("run $(seq 1 100000) $(seq -w 1 3) $(seq 1 0 3) $(seq 1.5 3)\n")[-1] == [False, True, True, True, True]
