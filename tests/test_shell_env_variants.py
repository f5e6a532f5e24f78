"""A script that picks its launches from a variable the environment may set, with a default
(``NODE_RANK="${NODE_RANK:-0}"``, ``case "${ROLE:-prefill}"``), is run again once per other value its
tests compare that variable with (pdlint.formats.shell.envruns, extract._env_runs), so that one run
pdlint sees holds both roles and the pair rules run.

Field test: sabreshao/sglang_disagg scripts/pd_server.sh (a multi-node script whose rank selects prefill
or decode): pdlint built only the prefill, reported the decode as PD020 and never paired them."""

import pytest

from pdlint.coverage import has_launch_text

SERVER = "python3 -m sglang.launch_server --model-path /m"

# reduced from sabreshao/sglang_disagg scripts/pd_server.sh
PD_SERVER = """\
    #!/bin/bash
    NODE_RANK="${NODE_RANK:-0}"
    build_cfg() {
        case "$1" in
            prefill) echo "--tp-size 8 --disaggregation-transfer-backend mori" ;;
            decode)  echo "--tp-size 8 --disaggregation-transfer-backend mooncake" ;;
        esac
    }
    PREFILL_CFG=$(build_cfg prefill)
    DECODE_CFG=$(build_cfg decode)
    if [[ "${NODE_RANK}" -eq 0 ]]; then
        CMD="python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill ${PREFILL_CFG}"
        eval "${CMD}" &
    else
        CMD="python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode ${DECODE_CFG}"
        eval "${CMD}" &
    fi
    """


def codes(report) -> list:
    return sorted(f["code"] for f in report["findings"])


def test_rank_script_builds_both_roles_and_pairs_them(scratch_git):
    scratch_git.write("pd_server.sh", PD_SERVER)
    code, report = scratch_git.lint("pd_server.sh")
    launches = report["launches"]
    assert [l["role"] for l in launches] == ["prefill", "decode"]
    assert "run with" not in launches[0]["context"]
    assert "run with NODE_RANK=1" in launches[1]["context"]
    assert len(report["pairs"]) == 1
    assert codes(report) == ["SGL805"]  # mori vs mooncake; no PD020: every launch text is checked
    f = report["findings"][0]
    assert (f["line"], f["severity"]) == (6, "error")
    assert code == 1


def test_a_value_given_by_the_user_wins_no_extra_run(scratch_git):
    scratch_git.write("pd_server.sh", PD_SERVER)
    _, report = scratch_git.lint("--var", "NODE_RANK=1", "pd_server.sh")
    assert [l["role"] for l in report["launches"]] == ["decode"]
    assert not any("run with" in l["context"] for l in report["launches"])
    assert "PD020" in codes(report) and "SGL805" not in codes(report)


def test_case_on_a_defaulted_role(scratch_git):
    scratch_git.write("role.sh", f"""\
        #!/bin/bash
        case "${{ROLE:-prefill}}" in
            prefill) {SERVER} --port 30000 --disaggregation-mode prefill --disaggregation-transfer-backend nixl ;;
            decode) {SERVER} --port 30001 --disaggregation-mode decode --disaggregation-transfer-backend mooncake ;;
        esac
        """)
    _, report = scratch_git.lint("role.sh")
    launches = report["launches"]
    assert [l["role"] for l in launches] == ["prefill", "decode"]
    assert "run with ROLE=decode" in launches[1]["context"]
    assert len(report["pairs"]) == 1
    assert "SGL805" in codes(report) and "PD020" not in codes(report)


ROLE_CHAIN = f"""\
    #!/bin/bash
    ROLE=${{ROLE:-prefill}}
    if [ "$ROLE" = "prefill" ]; then
      EXTRA="--disaggregation-mode prefill --disaggregation-transfer-backend nixl"
    elif [ "$ROLE" = "decode" ]; then
      EXTRA="--disaggregation-mode decode --disaggregation-transfer-backend mooncake"
    else
      echo "ROLE must be prefill or decode"; exit 1
    fi
    {SERVER} $EXTRA --port 30000
    """


def test_an_elif_the_default_never_reaches_is_run_with_its_value(scratch_git):
    # the default decides the first test, so the elif's condition never ran: its value was not seen
    scratch_git.write("role.sh", ROLE_CHAIN)
    _, report = scratch_git.lint("role.sh")
    launches = report["launches"]
    assert [l["role"] for l in launches] == ["prefill", "decode"]
    assert "run with ROLE=decode" in launches[1]["context"]
    assert len(report["pairs"]) == 1
    assert codes(report) == ["SGL805"]  # nixl vs mooncake; no PD020


def test_an_elif_chain_whose_default_reaches_every_launch_runs_once(scratch_git):
    # (the elif's body holds no launch text: another run would reach nothing new)
    scratch_git.write("role.sh", ROLE_CHAIN.replace(
        'EXTRA="--disaggregation-mode decode --disaggregation-transfer-backend mooncake"', 'echo "decode node"'))
    _, report = scratch_git.lint("role.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill"]
    assert not any("run with" in l["context"] for l in report["launches"])


def test_an_empty_default_leaves_the_role_to_the_environment(scratch_git):
    # `ROLE=${ROLE:-}`: empty only because ROLE has no known value; the usage branch must not end the run
    scratch_git.write("role.sh", ROLE_CHAIN.replace("${ROLE:-prefill}", "${ROLE:-}"))
    _, report = scratch_git.lint("role.sh")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert codes(report) == ["SGL805"]
    # a value the script gives decides the test as written: only the else (usage) runs
    scratch_git.write("role.sh", ROLE_CHAIN.replace("${ROLE:-prefill}", '""'))
    _, report = scratch_git.lint("role.sh")
    assert report["launches"] == [] and codes(report) == ["PD020", "PD020"]


def env_values(shell_eval, script: str) -> dict:
    _, ctx = shell_eval(script, launch_text=has_launch_text)
    return {name: list(values) for name, values in ctx.env_values.items()}


@pytest.mark.parametrize("test, default, expected", [
    ('[ "$R" -eq 0 ]', "0", ["1"]),
    ('[ "$R" -eq 0 ]', "3", ["0"]),
    ('[ "$R" -ne 0 ]', "0", ["1"]),
    ('[ "$R" -gt 0 ]', "0", ["1"]),
    ('[ "$R" -ge 1 ]', "0", ["1"]),
    ('[ "$R" -lt 1 ]', "0", ["1"]),
    ('[ "$R" -le 0 ]', "0", ["1"]),
    ('[ "$R" -gt 2 ]', "8", ["2"]),
    ('[[ 0 -eq $R ]]', "0", ["1"]),  # the variable on the right
    ('[ 2 -lt "$R" ]', "0", ["3"]),
    ('[[ $R == head ]]', "worker", ["head"]),
    ('[ "$R" != worker ]', "worker", ["<not worker>"]),  # only the default compared: any other value (rw22/h)
    # arithmetic conditions: a name, $R or ${R} against a number written in the condition
    ("(( R == 0 ))", "0", ["1"]),
    ("(( $R > 0 ))", "0", ["1"]),
    ("(( 0 == R ))", "0", ["1"]),
    ("(( ${R} != 2 ))", "2", ["3"]),
    ("(( R * 2 == 0 ))", "0", []),  # not one comparison of a name with a number
    ("(( R == N ))", "0", []),  # no number written
])
def test_numeric_and_string_tests_give_the_value_on_the_other_side(shell_eval, test, default, expected):
    script = (f'R="${{R:-{default}}}"\n'
              f'if {test}; then\n  {SERVER} --disaggregation-mode prefill\n'
              f'else\n  {SERVER} --disaggregation-mode decode\nfi\n')
    assert env_values(shell_eval, script) == ({"R": expected} if expected else {})


def test_an_arithmetic_rank_test_builds_both_roles(scratch_git):
    scratch_git.write("rank.sh", PD_SERVER.replace('[[ "${NODE_RANK}" -eq 0 ]]', "(( NODE_RANK == 0 ))"))
    _, report = scratch_git.lint("rank.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill", "decode"]
    assert "run with NODE_RANK=1" in report["launches"][1]["context"]
    assert codes(report) == ["SGL805"]


def test_values_only_where_the_default_skips_launch_text(shell_eval):
    # the default reaches every launch: the rank test only echoes
    script = (f'NODE_RANK="${{NODE_RANK:-0}}"\nif [ "$NODE_RANK" -eq 0 ]; then echo head; else echo worker; fi\n'
              f'{SERVER} --node-rank "$NODE_RANK" --disaggregation-mode prefill\n')
    assert env_values(shell_eval, script) == {}
    # a variable the script assigns before reading it with a default is not the environment's
    script = (f'NODE_RANK=0\nif [ "${{NODE_RANK:-0}}" -eq 0 ]; then {SERVER} --disaggregation-mode prefill\n'
              f'else {SERVER} --disaggregation-mode decode; fi\n')
    assert env_values(shell_eval, script) == {}
    # a function that launches, in the arm the default skips
    script = (f'start_decode() {{ {SERVER} --disaggregation-mode decode; }}\n'
              f'[ "${{ROLE:-prefill}}" = decode ] && start_decode\n')
    assert env_values(shell_eval, script) == {"ROLE": ["decode"]}


def test_a_script_whose_defaults_reach_everything_runs_once(scratch_git):
    scratch_git.write("one.sh", f"""\
        #!/bin/bash
        NODE_RANK="${{NODE_RANK:-0}}"
        MODE="${{MODE:-serve}}"
        if [[ "$NODE_RANK" -eq 0 ]]; then echo "head node"; fi
        if [ "$MODE" = debug ]; then set -x; fi
        {SERVER} --port 30000 --disaggregation-mode prefill --node-rank "$NODE_RANK" &
        {SERVER} --port 30001 --base-gpu-id 4 --disaggregation-mode decode &
        """)
    _, report = scratch_git.lint("one.sh")
    assert len(report["launches"]) == 2
    assert not any("run with" in l["context"] for l in report["launches"])


def test_extra_runs_are_bounded(scratch_git):
    arms = "\n".join(f"    m{i}) {SERVER} --port {30000 + i} --disaggregation-mode decode ;;" for i in range(6))
    scratch_git.write("modes.sh", f'#!/bin/bash\ncase "${{MODE:-m0}}" in\n{arms}\nesac\n')
    _, report = scratch_git.lint("modes.sh")
    ports = [l["argv"][l["argv"].index("--port") + 1] for l in report["launches"]]
    assert ports == ["30000", "30001", "30002", "30003", "30004"]  # the default, then 4 more runs
    assert "run with MODE=m4" in report["launches"][-1]["context"]
    unchecked = [f for f in report["findings"] if f["code"] == "PD020"]
    assert [f["line"] for f in unchecked] == [8]  # m5: the value past the bound stays not checked


def test_no_port_or_gpu_collision_between_runs(scratch_git):
    """The decode only rank 1 starts and the prefill of the run with the defaults are different
    invocations (nodes): PD150/PD151 do not compare them."""
    scratch_git.write("ranks.sh", f"""\
        #!/bin/bash
        if [ "${{NODE_RANK:-0}}" -ne 0 ]; then
            {SERVER} --port 30000 --tp 8 --disaggregation-mode decode &
        fi
        {SERVER} --port 30000 --tp 8 --disaggregation-mode prefill &
        wait
        """)
    _, report = scratch_git.lint("ranks.sh")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert not {"PD150", "PD151"} & set(codes(report))


@pytest.mark.parametrize("read", [': "${ROLE:=prefill}"', 'ROLE="${ROLE-prefill}"', 'R=${ROLE:-prefill}; ROLE=$R'])
def test_each_way_of_writing_the_default(shell_eval, read):
    script = f'{read}\nif [ "$ROLE" = decode ]; then\n  {SERVER} --disaggregation-mode decode\nfi\n'
    assert env_values(shell_eval, script) == {"ROLE": ["decode"]}


def test_no_extra_run_the_file_budget_cannot_take(scratch_git, monkeypatch):
    """Another run that could put the file over its time budget is not made: the file is checked with
    the defaults (the other role stays PD020), not reported as not checked at all."""
    import pdlint.budget
    monkeypatch.setattr(pdlint.budget, "time_left", lambda: 0.0)
    scratch_git.write("pd_server.sh", PD_SERVER)
    _, report = scratch_git.lint("pd_server.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill"]
    assert "PD020" in codes(report) and "PD008" not in codes(report)


# -- flags an environment-defaulted switch adds (field test: littlemex/pd-disaggregated-inference-on-aws
# 01-tutorial/docker/vllm-nixl/docker-entrypoint.sh: `ENABLE_LMCACHE="${ENABLE_LMCACHE:-false}"`, then
# `VLLM_ARGS+=(--lmcache-config ...)` when it is "true"; `--lmcache-config` is no vLLM flag)

LMCACHE_ENTRY = """\
    #!/bin/bash
    ENABLE_LMCACHE="${ENABLE_LMCACHE:-false}"
    VLLM_ARGS=(--model Qwen/Qwen3-8B --port 8000)
    if [ "$ENABLE_LMCACHE" = "true" ]; then
        VLLM_ARGS+=(FLAG)
    fi
    exec vllm serve "${VLLM_ARGS[@]}"
    """


def test_a_flag_an_environment_switch_adds_is_checked(scratch_git):
    scratch_git.write("entry.sh", LMCACHE_ENTRY.replace("FLAG", "--lmcache-config /config/lmcache.yaml"))
    code, report = scratch_git.lint("entry.sh")
    assert codes(report) == ["VLLM018"]
    f = report["findings"][0]
    assert (f["line"], f["column"]) == (5, 17)
    assert any("run with ENABLE_LMCACHE=true" in r["note"] for r in f["related"])
    assert [l["context"] for l in report["launches"]] == ["", "run with ENABLE_LMCACHE=true"]
    assert code == 1


def test_a_valid_flag_an_environment_switch_adds_is_quiet(scratch_git):
    scratch_git.write("entry.sh", LMCACHE_ENTRY.replace("FLAG", "--enable-prefix-caching"))
    code, report = scratch_git.lint("entry.sh")
    assert codes(report) == [] and code == 0
    assert len(report["launches"]) == 2


def test_values_where_the_default_skips_flags(shell_eval):
    # an assignment that adds a long option, in the arm the default skips
    for arm in ('EXTRA="$EXTRA --enable-metrics"', "ARGS+=(--enable-metrics)", "export EXTRA='--enable-metrics'"):
        script = f'if [ "${{METRICS:-0}}" = 1 ]; then {arm}; fi\n{SERVER} $EXTRA "${{ARGS[@]}}"\n'
        assert env_values(shell_eval, script) == {"METRICS": ["1"]}, arm
    # not an option: a value, or a command in the arm
    for arm in ('LOG=/tmp/--x.log', 'echo "--enable-metrics"', 'MODEL=/models/llama'):
        script = f'if [ "${{METRICS:-0}}" = 1 ]; then {arm}; fi\n{SERVER}\n'
        assert env_values(shell_eval, script) == {}, arm


SHARED_SWITCH = f"""\
    #!/bin/bash
    USE_FP8="${{USE_FP8:-0}}"
    ARGS="--page-size 16"
    PARGS="$ARGS"
    if [ "$USE_FP8" = "1" ]; then
        TARGET="$TARGET --kv-cache-dtype fp8_e4m3"
    fi
    CUDA_VISIBLE_DEVICES=0 {SERVER} $PARGS --disaggregation-mode prefill --port 30000 &
    CUDA_VISIBLE_DEVICES=1 {SERVER} $ARGS --disaggregation-mode decode --port 30001 &
    wait
    """


def test_a_switch_both_roles_share_is_one_configuration(scratch_git):
    """The run with USE_FP8=1 changes both launches: its prefill goes with its decode, not with the decode
    of the run with the defaults (which has no --kv-cache-dtype): no SGL804 either way."""
    scratch_git.write("pd.sh", SHARED_SWITCH.replace("TARGET", "ARGS").replace('PARGS="$ARGS"', ""
                                                                                ).replace("$PARGS", "$ARGS"))
    _, report = scratch_git.lint("pd.sh")
    assert sorted(l["context"] for l in report["launches"]) == ["", "", "run with USE_FP8=1", "run with USE_FP8=1"]
    assert "SGL804" not in codes(report)
    assert sorted((p["prefill_variants"], p["decode_variants"]) for d in report["pairs"] for p in d["pairs"]) \
        == [(2, 2)]


def test_a_switch_on_one_role_is_paired_with_the_other_role_as_it_is(scratch_git):
    """The run with USE_FP8=1 changes the prefill only: that prefill goes with the decode every run starts."""
    scratch_git.write("pd.sh", SHARED_SWITCH.replace("TARGET", "PARGS"))
    _, report = scratch_git.lint("pd.sh")
    assert codes(report) == ["SGL804"]
    f = report["findings"][0]
    assert f["role"] == "decode" and f["line"] == 9
    assert [r["note"] for r in f["related"]][-1] == "prefill launch: python -m sglang.launch_server (run with USE_FP8=1)"


@pytest.mark.parametrize("rp, rd, p_runs, d_runs, together", [
    (None, None, {None, "a"}, {None, "a"}, True),
    ("a", "a", {None, "a"}, {None, "a"}, True),
    ("a", None, {None, "a"}, {None, "a"}, False),  # run a has its own decode
    (None, "a", {None, "a"}, {None, "a"}, False),
    ("a", None, {None, "a"}, {None}, True),  # run a left the decode as it was
    ("a", "b", {None, "a"}, {None, "b"}, False),  # two runs' configurations
    ("a", "b", {"a"}, {"b"}, True),  # launches only those runs start (NODE_RANK=1, =2): two nodes
    ("a", None, {"a"}, {None, "a"}, False),  # only run a starts the prefill, beside its own decode
    # a model's flags (run M) and the only decode (run N, another node): no run set both variables
    ("run with M=x", "run with N=1", {None, "run with M=x"}, {"run with N=1"}, False),
    ("run with N=1", "run with N=2", {None, "run with N=1"}, {"run with N=2"}, True),  # one variable: nodes
])
def test_which_variants_start_together(rp, rd, p_runs, d_runs, together):
    from pdlint.pairing import _one_run
    assert _one_run(rp, rd, p_runs, d_runs) is together


# reduced from billishyahao/sglang_disagg sglang_disagg_server.sh: every model flag is an item of an associative
# array keyed by MODEL_NAME, whose default is empty; a `[[ -n "$model_name" ]]` guards the lookup
MODEL_TABLE = """\
    #!/bin/bash
    MODEL_NAME="${MODEL_NAME:-}"
    declare -A MODEL_BASE_CONFIGS=(
        ["DeepSeek-R1"]="--chunked-prefill-size 262144 --page-size 64 --attention-backend aiter"
        ["Qwen3"]="--chunked-prefill-size 8192"
    )
    build_server_config() {
        local model_name="$1"
        local base_config=""
        if [[ -n "$model_name" ]]; then
            if [[ -n "${MODEL_BASE_CONFIGS[$model_name]}" ]]; then
                base_config="${MODEL_BASE_CONFIGS[$model_name]}"
            fi
        fi
        echo "--tp-size 8 $base_config"
    }
    PREFILL_SERVER_CONFIG=$(build_server_config "$MODEL_NAME")
    PREFILL_CMD="python3 -m sglang.launch_server --model-path /models/$MODEL_NAME --disaggregation-mode prefill \\
        ${PREFILL_SERVER_CONFIG}"
    eval "$PREFILL_CMD" &
    """


def test_flags_an_empty_default_keys_are_checked(scratch_git):
    """The lookup was skipped with MODEL_NAME empty: one launch with `--tp-size 8` only, a clean pass on flags
    pdlint never read.  Each key of the array is now a value to run the script with."""
    scratch_git.write("server.sh", MODEL_TABLE.replace("--page-size 64", "--page-size 3"))
    code, report = scratch_git.lint("server.sh")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL103", 4)]
    assert sorted(l["context"] for l in report["launches"]) == [
        "eval at line 20", "eval at line 20, run with MODEL_NAME=DeepSeek-R1", "eval at line 20, run with MODEL_NAME=Qwen3"]
    assert code == 1


def test_valid_keyed_flags_are_quiet(scratch_git):
    scratch_git.write("server.sh", MODEL_TABLE)
    code, report = scratch_git.lint("server.sh")
    assert report["findings"] == [] and code == 0 and len(report["launches"]) == 3


def test_a_table_the_skipped_part_does_not_read_gives_no_run(scratch_git):
    scratch_git.write("server.sh", MODEL_TABLE.replace("${MODEL_BASE_CONFIGS[$model_name]}", "--enable-metrics"))
    _, report = scratch_git.lint("server.sh")
    assert [l["context"] for l in report["launches"]] == ["eval at line 20"]


NODES = """\
    #!/bin/bash
    NODE_RANK="${NODE_RANK:-0}"
    MODEL_NAME="${MODEL_NAME:-}"
    declare -A MODEL_CONFIGS=(["DeepSeek-R1"]="--chunked-prefill-size 8192")
    pick() {
        if [[ -n "$1" ]]; then
            echo "${MODEL_CONFIGS[$1]}"
        fi
    }
    CFG=$(pick "$MODEL_NAME")
    if [ "$NODE_RANK" -eq 0 ]; then
        python3 -m sglang.launch_server --model-path /models/$MODEL_NAME --disaggregation-mode prefill $CFG &
    else
        python3 -m sglang.launch_server --model-path /models/$MODEL_NAME --disaggregation-mode decode $CFG &
    fi
    """


def test_a_model_run_and_a_node_run_are_not_paired(scratch_git):
    """billishyahao/sglang_disagg: the run with MODEL_NAME=DeepSeek-R1 starts a prefill (rank 0) of that model,
    the run with NODE_RANK=1 the only decode, of no model: paired, they gave a false SGL821 (two models)."""
    scratch_git.write("server.sh", NODES)
    code, report = scratch_git.lint("server.sh")
    # (and the decode run again with the model the rank-0 run tried: the decode's per-model flags, field test
    # rw23/b, sabreshao/sglang_disagg)
    assert sorted((l["role"], l["context"].rsplit(", ", 1)[-1]) for l in report["launches"]) == [
        ("decode", "run with NODE_RANK=1"), ("decode", "run with NODE_RANK=1 and MODEL_NAME=DeepSeek-R1"),
        ("prefill", "if [ \"$NODE_RANK\" -eq 0 ] (then)"), ("prefill", "run with MODEL_NAME=DeepSeek-R1")]
    assert report["findings"] == [] and code == 0
    assert [(p["prefill_variants"], p["decode_variants"]) for d in report["pairs"] for p in d["pairs"]] == [(2, 2)]


# -- the script's own arguments with a number for default (field test rw21/b, uccl-project/uccl's
#    ep/bench/sglang/*_uep_*.sh: `NNODES=${2:-2}`, `--tp-size $((NNODES * GPUS_PER_NODE))` stayed text) --------

NODE = """\
    #!/bin/bash
    NODE_RANK=${1:?Usage: $0 <node_rank> [nnodes] [gpus_per_node]}
    NNODES=${2:-2}
    GPUS_PER_NODE=${3:-8}
    python -m sglang.launch_server --model-path /m --tp-size $((NNODES * GPUS_PER_NODE)) --dp-size DP \\
      --enable-dp-attention --nnodes $NNODES --node-rank $NODE_RANK --disaggregation-mode decode
    """


def test_a_number_an_argument_defaults_to_is_the_value_checked(scratch_git):
    scratch_git.write("node.sh", NODE.replace("DP", "3"))
    code, report = scratch_git.lint("--sglang-version", "0.5.23", "node.sh")
    (launch,) = report["launches"]
    assert launch["argv"][launch["argv"].index("--tp-size") + 1] == "16"
    assert launch["argv"][launch["argv"].index("--nnodes") + 1] == "2"
    assert "SGL205" in codes(report) and code == 1  # TP 16 is no multiple of attention DP 3


def test_a_valid_default_passes_and_a_required_argument_stays_unseen(scratch_git):
    scratch_git.write("node.sh", NODE.replace("DP", "4"))
    code, report = scratch_git.lint("--sglang-version", "0.5.23", "node.sh")
    (launch,) = report["launches"]
    assert launch["argv"][launch["argv"].index("--node-rank") + 1].startswith("${1:?")  # (`?`: no default)
    assert "SGL205" not in codes(report) and code == 0


def test_a_rank_argument_with_a_default_runs_the_script_for_the_other_rank(scratch_git):
    scratch_git.write("pd_node.sh", f"""\
        #!/bin/bash
        RANK=${{1:-0}}
        if [ "$RANK" -eq 0 ]; then
            {SERVER} --disaggregation-mode prefill --disaggregation-transfer-backend mooncake &
        else
            {SERVER} --disaggregation-mode decode --disaggregation-transfer-backend nixl &
        fi
        """)
    code, report = scratch_git.lint("pd_node.sh")
    launches = report["launches"]
    assert [l["role"] for l in launches] == ["prefill", "decode"]
    assert "run with $1=1" in launches[1]["context"]
    assert codes(report) == ["SGL805"] and code == 1  # the pair was judged: mooncake against nixl


def test_a_word_an_argument_defaults_to_stays_the_callers(scratch_git):
    # `${1:-all}` in a dispatching script: every arm stays reachable, as before
    scratch_git.write("pd.sh", f"""\
        #!/bin/bash
        case "${{1:-prefill}}" in
            prefill) {SERVER} --disaggregation-mode prefill & ;;
            decode) {SERVER} --disaggregation-mode decode & ;;
        esac
        """)
    code, report = scratch_git.lint("pd.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill", "decode"]
    assert all("run as `pd.sh" in l["context"] for l in report["launches"])
