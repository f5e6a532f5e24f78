"""Per-model flag tables and per-node switches in multi-node launch scripts (sabreshao/sglang_disagg's
sglang_disagg_server.sh, field tests rw23/a and rw23/b): one value pdlint cannot see inside an associative array's
item no longer hides the item's other flags (nor makes `[[ -n "${A[k]}" ]]` undecided), and a switch the
per-node run reaches is tried together with that run's value."""


TABLE = """\
    #!/bin/bash
    source $WS/env.sh
    cps=$((MAX_TOK * 8))
    declare -A DECODE_CFGS=(
        ["m"]="--port 30001 --chunked-prefill-size ${cps} --cuda-graph-bs 1 2 3"
    )
    DCFG=""
    if [[ -n "${DECODE_CFGS[m]}" ]]; then DCFG="${DECODE_CFGS[m]}"; fi
    CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30000 &
    CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode $DCFG &
    """


def test_an_array_item_with_one_unseen_value_keeps_its_other_flags(scratch_git):
    """rw23/a repro 4 and 9: the whole item was one opaque word (`--cuda-graph-bs` unchecked), and the `-n` test of
    it was tried false too: a decode without `--port 30001`, a false PD150 (port 30000 twice)."""
    scratch_git.write("run.sh", TABLE)
    code, doc = scratch_git.lint("run.sh")
    (decode,) = [l for l in doc["launches"] if l["role"] == "decode"]
    assert decode["argv"][-8:] == ["--port", "30001", "--chunked-prefill-size", "$((MAX_TOK * 8))", "--cuda-graph-bs",
                                   "1", "2", "3"]
    codes = sorted({f["code"] for f in doc["findings"]})
    assert "PD150" not in codes and "SGL012" in codes


def test_a_fully_known_item_and_an_unknown_key_are_as_before(scratch_git):
    scratch_git.write("run.sh", TABLE.replace("${cps}", "8192").replace('["m"]', '["$KEY"]'))
    code, doc = scratch_git.lint("run.sh")
    assert "--cuda-graph-bs" not in [w for l in doc["launches"] for w in l["argv"]]  # (a key pdlint cannot see)


NODES = """\
    #!/bin/bash
    MODEL_NAME="${MODEL_NAME:-}"
    NODE_RANK="${NODE_RANK:-0}"
    declare -A PCFG=(["DeepSeek-R1"]="--disable-radix-cache")
    declare -A DCFG=(["DeepSeek-R1"]="--disaggregation-transfer-backend fake --disaggregation-decode-enable-radix-cache")
    cfg() {
        local specific=""
        if [[ -n "$2" ]]; then
            if [[ "$1" == "prefill" ]]; then specific="${PCFG[$2]}"; else specific="${DCFG[$2]}"; fi
        fi
        echo "--tp-size 8 $specific"
    }
    P=$(cfg prefill "$MODEL_NAME")
    D=$(cfg decode "$MODEL_NAME")
    if [ "$NODE_RANK" -eq 0 ]; then
        python3 -m sglang.launch_server --model-path /m/$MODEL_NAME --disaggregation-mode prefill $P
    else
        python3 -m sglang.launch_server --model-path /m/$MODEL_NAME --disaggregation-mode decode $D
    fi
    """


def test_the_per_node_run_is_tried_with_the_models_the_first_run_tried(scratch_git):
    """rw23/b repro 3: the decode was built with no model only (NODE_RANK=1 alone), its per-model flags never
    checked; SGLang 0.5.23 refuses the decode radix cache with the fake backend (pd_disaggregation_hook.py:106)."""
    scratch_git.write("launch.sh", NODES)
    code, doc = scratch_git.lint("launch.sh")
    runs = sorted(l["context"].rsplit(", ", 1)[-1] for l in doc["launches"] if l["role"] == "decode")
    assert runs == ["run with NODE_RANK=1", "run with NODE_RANK=1 and MODEL_NAME=DeepSeek-R1"]
    assert [f["code"] for f in doc["findings"]] == ["SGL137"] and code == 1


def test_no_pair_run_when_the_per_node_branch_reads_no_table(scratch_git):
    scratch_git.write("launch.sh", NODES.replace(" $D\n", "\n").replace("/m/$MODEL_NAME", "/m"))
    code, doc = scratch_git.lint("launch.sh")
    assert not any(" and " in (l["context"] or "") for l in doc["launches"])


RANKED = """\
    #!/bin/bash
    NODE_RANK="${NODE_RANK:-0}"
    MODEL_NAME="${MODEL_NAME:-}"
    LOAD_DUMMY="${LOAD_DUMMY:-0}"
    declare -A BASE=(
        ["A"]="--watchdog-timeout 3600"
        ["B"]="--watchdog-timeout 3600 --kv-cache-dtype fp8_e4m3"
        ["C"]="--watchdog-timeout 1800"
        ["D"]="--watchdog-timeout 900"
    )
    EXTRA=""
    if [[ "$LOAD_DUMMY" == "1" ]]; then EXTRA="--load-format dummy"; fi
    CFG=""
    if [[ -n "$MODEL_NAME" ]] && [[ -n "${BASE[$MODEL_NAME]}" ]]; then CFG="${BASE[$MODEL_NAME]}"; fi
    if [ "$NODE_RANK" -eq 0 ]; then
        python3 -m sglang.launch_server --model-path /models/$MODEL_NAME $EXTRA --disaggregation-mode prefill --port 8000 --tp-size 8 $CFG &
    else
        python3 -m sglang.launch_server --model-path /models/$MODEL_NAME $EXTRA --disaggregation-mode decode --port 8000 --tp-size 8 $CFG &
    fi
    """


def test_the_switch_to_other_launch_text_runs_before_flag_values(scratch_git):
    """rw23/a repro 6: four per-model flag values used up the runs (at most 4) before NODE_RANK=1, whose decode was
    never built (no pair checked); the flag values past the bound were dropped without a word."""
    scratch_git.write("server.sh", RANKED)
    code, doc = scratch_git.lint("server.sh")
    assert "decode" in {l["role"] for l in doc["launches"]}
    left = [(f["line"], f["message"]) for f in doc["findings"] if f["code"] == "PD020"]
    # (MODEL_NAME=C and =D once, at the first one's flags; the decode's runs with each model, and with LOAD_DUMMY)
    assert [line for line, _ in left] == [6, 8, 12]
    assert left[1][1].startswith("the script runs its launch with other flags when the environment sets MODEL_NAME=C "
                                 "(or D), and pdlint runs a script again for at most 4 such values")
    assert "sets NODE_RANK=1 and MODEL_NAME=A (or B, C, D)" in left[0][1]


def test_a_sourced_path_through_an_unseen_directory_names_the_repository_file(scratch_git):
    """rw23/a repro 7 (sabreshao/sglang_disagg's `source $SGL_WS_PATH/set_env_vars.sh`, the file beside the
    script): PD014 said the file "is not in the repository"; it names the variable and the file that may be it."""
    scratch_git.write("env.sh", "export IBDEVICES=mlx5_0\n")
    scratch_git.write("server.sh", "source $WS_PATH/env.sh\npython3 -m sglang.launch_server --model-path m "
                                   "--disaggregation-mode prefill --disaggregation-ib-device $IBDEVICES\n")
    code, doc = scratch_git.lint("server.sh")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD014"]
    assert "pdlint cannot see $WS_PATH" in f["message"] and "env.sh in the repository may be it" in f["message"]
    assert "is not in the repository" not in f["message"]
    scratch_git.write("server.sh", "source /opt/host.sh\npython3 -m sglang.launch_server --model-path m "
                                   "--disaggregation-mode prefill --disaggregation-ib-device $IBDEVICES\n")
    code, doc = scratch_git.lint("server.sh")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD014"]
    assert "is not in the repository (a file of the deploy host)" in f["message"]


DECOYS = """\
    #!/bin/bash
    MODEL=${MODEL:-small}
    NODE_RANK=${NODE_RANK:-0}
    EXTRA=""
    case "$MODEL" in big) EXTRA="--enable-linear-replayssm-spec" ;; esac
    LOG=""
    if [ "${D1:-0}" = 1 ]; then LOG="--log-level debug"; fi
    if [ "${D2:-0}" = 1 ]; then LOG="--log-level debug"; fi
    if [ "$NODE_RANK" = 1 ]; then
      python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 $EXTRA $LOG
    else
      python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30002 $EXTRA $LOG
    fi
    """


def test_a_role_switch_pair_past_the_bound_is_said(scratch_git):
    """Field test rw24/h: two decoy switches used up the runs (at most 4) before the pair NODE_RANK=1 with
    MODEL=big, whose prefill carries the SGL101 flag; the pair was dropped without a word (exit 0, --strict too).
    (Run before the single values it would leave the prefill without the model's run: pairs of other models.)"""
    scratch_git.write("run.sh", DECOYS)
    code, doc = scratch_git.lint("--strict", "run.sh")
    said = [f["message"] for f in doc["findings"] if f["code"] == "PD020"]
    assert any("sets NODE_RANK=1 and MODEL=big" in m for m in said) and code == 1


def test_choosing_among_many_switch_values_is_bounded(scratch_git):
    """Field test rw24/h: a `case` with 8,000 alternatives (39 KB) took the file's whole budget choosing the runs
    (each value re-ranked once per value dropped)."""
    import time
    alts = "|".join(str(i) for i in range(1, 8000))
    scratch_git.write("run.sh", f'#!/bin/bash\nR=${{R:-0}}\ncase "$R" in {alts}) python -m sglang.launch_server '
                                f'--model-path m --disaggregation-mode prefill ;; esac\n'
                                f'python -m sglang.launch_server --model-path m --disaggregation-mode decode\n')
    t = time.monotonic()
    code, doc = scratch_git.lint("run.sh")
    assert time.monotonic() - t < 8 and "PD008" not in {f["code"] for f in doc["findings"]}
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]


def test_a_sourced_path_with_an_unseen_variable_in_its_name_names_the_variable(scratch_git):
    """rw29/a P6 (ealbalas/disaggregated-prefill-decode-research archive/sweep.sh:43): `source
    "$REPO_ROOT/configs/ratios/${ratio}.env"` for each ratio of $RATIOS, which a file outside the repository sets.
    PD014 said the file "is not in the repository ... keep the file in the repository and source it by a path
    relative to the script" - configs/ratios/1p1d.env and 2p1d.env are there at that path; only $RATIOS is
    unknown (`--var RATIOS=1p1d` resolves it)."""
    scratch_git.write("configs/ratios/1p1d.env", "PREFILL_PORTS=(8100)\nDECODE_PORTS=(8200)\n")
    scratch_git.write("configs/ratios/2p1d.env", "PREFILL_PORTS=(8100 8101)\nDECODE_PORTS=(8200)\n")
    scratch_git.write("scripts/run.sh", """\
        #!/usr/bin/env bash
        REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
        for ratio in "${RATIOS[@]}"; do
          source "$REPO_ROOT/configs/ratios/${ratio}.env"
          for i in "${!PREFILL_PORTS[@]}"; do
            vllm serve Qwen/Qwen3-0.6B --port "${PREFILL_PORTS[$i]}" \\
              --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
          done
        done
        """)
    code, doc = scratch_git.lint(".")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD014"]
    assert f["line"] == 4
    assert "is not in the repository" not in f["message"] and "keep the file" not in f["message"]
    assert "its path depends on $RATIOS" in f["message"]
    assert "configs/ratios/1p1d.env, configs/ratios/2p1d.env in the repository match it" in f["message"]
    assert "`--var RATIOS=1p1d`" in f["message"]
    code, doc = scratch_git.lint("--var", "RATIOS=1p1d", ".")
    assert [f for f in doc["findings"] if f["code"] == "PD014"] == []


def test_a_sourced_path_with_a_variable_and_no_file_that_matches(scratch_git):
    scratch_git.write("scripts/run.sh", """\
        #!/usr/bin/env bash
        source "./envs/${SITE}.env"
        vllm serve m --port "$PORT" --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        """)
    code, doc = scratch_git.lint(".")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD014"]
    assert "its path depends on $SITE" in f["message"] and "no file of the repository matches it" in f["message"]
    assert "`--var SITE=VALUE`" in f["message"]
