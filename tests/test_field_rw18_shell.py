"""Field test rw18/o (SemiAnalysisAI/InferenceX at 843c6254): shell the interpreter read wrongly, each with the
repository and file it came from."""

import textwrap

_SGL = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill"


def _argv(out, line=None):
    return [la["argv"] for la in out["launches"] if line is None or la["line"] == line]


def test_arithmetic_in_a_parameter_default_is_evaluated_not_empty(scratch_git):
    """InferenceX benchmarks/single_node/fixed_seq_len/dsv4_fp4_b300_sglang.sh:161
    `--max-running-requests "${MAX_RUNNING_REQUESTS:-$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8 ))}"`: tree-sitter-bash
    reads the `$(( ))` inside `${..:-..}` as a subshell, so the value was '' and SGL005 a false error."""
    scratch_git.write("launch.sh", textwrap.dedent(f"""\
        #!/bin/bash
        CONC=16
        {_SGL} --max-running-requests "${{MAX_RUNNING_REQUESTS:-$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8 ))}}" \\
          --max-prefill-tokens "${{X:-$(( 4 * 2 ))}}" --chunked-prefill-size ${{Y:-$(( $CONC * 2 ))}}
        """))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert _argv(out)[0][-6:] == ["--max-running-requests", "24", "--max-prefill-tokens", "8",
                                  "--chunked-prefill-size", "32"]


def test_arithmetic_in_a_parameter_default_of_an_unknown_value_is_opaque_and_a_set_variable_wins(scratch_git):
    """The same shape when a name in the expression has no known value: an opaque value, never ''; and the
    variable's own value when the script sets it."""
    scratch_git.write("launch.sh", textwrap.dedent(f"""\
        #!/bin/bash
        {_SGL} --max-running-requests "${{MAXR:-$(( CONC > 8 ? CONC : 8 ))}}"
        {_SGL} --max-running-requests "${{MAXR:-$(( ( 3 + 1 ) * 2 ))}}"
        MAXR=5
        {_SGL} --max-running-requests "${{MAXR:-$(( 4 > 2 ? 4 : 2 ))}}"
        """))
    code, out = scratch_git.lint(".")
    assert (code, [f["code"] for f in out["findings"] if f["severity"] == "error"]) == (0, [])
    assert [a[-1] for a in _argv(out)] == ["$(( CONC > 8 ? CONC : 8 ))", "8", "5"]


def test_a_subshell_in_a_command_substitution_in_a_parameter_default_is_still_run(scratch_git):
    """`$( (echo 7) )` (a blank after `$(`) is a command substitution of a subshell, not arithmetic."""
    scratch_git.write("launch.sh", f'#!/bin/bash\n{_SGL} --max-running-requests "${{MAXR:-$( (echo 7) )}}"\n')
    code, out = scratch_git.lint(".")
    assert code == 0
    assert _argv(out)[0][-1] == "7"


_RANK = """\
#!/usr/bin/env bash
# every node of a Slurm job runs this script; the rank picks the role
NODE_RANK="${NODE_RANK:-${SLURM_PROCID:-0}}"
PREFILL_NODES="${PREFILL_NODES:-1}"
if [[ "$NODE_RANK" -lt "$PREFILL_NODES" ]]; then
    KV_ROLE=kv_producer
else
    KV_ROLE=kv_consumer
fi
vllm serve Qwen/Qwen3-8B --port 8200 \\
  --kv-transfer-config "{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"$KV_ROLE\\"}"
"""


def _roles(out):
    return sorted((la["line"], la["role"]) for la in out["launches"])


def test_a_role_chosen_from_a_rank_the_environment_sets_builds_both_roles(scratch_git):
    """InferenceX benchmarks/multi_node/llm-d/server.sh: `NODE_RANK="${NODE_RANK:-${SLURM_PROCID:-0}}"`, compared
    with `PREFILL_NODES="${PREFILL_NODES:-1}"`, picks the kv_role a launch after the `if` reads; only the default
    (prefill) was built, so no decode-side or pair rule ran."""
    scratch_git.write("server.sh", _RANK)
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert _roles(out) == [(10, "decode"), (10, "prefill")]
    assert len(out["pairs"]) == 1


def test_a_rank_default_deciding_a_launch_in_the_branch_against_another_default_builds_both_roles(scratch_git):
    """amd_utils/server_sglang.sh's shape: the launches in the branches, the rank compared with another
    environment default (was PD020 "a branch not taken" for the decode)."""
    scratch_git.write("server.sh", textwrap.dedent("""\
        #!/usr/bin/env bash
        NODE_RANK="${NODE_RANK:-0}"
        PREFILL_NODES="${PREFILL_NODES:-1}"
        if [[ "$NODE_RANK" -lt "$PREFILL_NODES" ]]; then
          vllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        else
          vllm serve Qwen/Qwen3-8B --port 8200 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
        fi
        """))
    code, out = scratch_git.lint(".")
    assert (code, [f["code"] for f in out["findings"]]) == (0, [])
    assert _roles(out) == [(5, "prefill"), (7, "decode")]


def test_a_rank_default_whose_branch_sets_no_role_a_launch_reads_is_not_run_again(scratch_git):
    """Quiet: the skipped branch sets a variable no launch reads, or a value of another configuration a launch
    reads (NVIDIA/TensorRT-LLM examples/disaggregated/slurm/service_discovery_example/launch.slurm's
    `enable_etcd="${enable_etcd:-0}"` choosing an etcd or http cluster URI): the default's value stays the only
    run, and the default is still the value used in the argv."""
    scratch_git.write("server.sh", textwrap.dedent("""\
        #!/usr/bin/env bash
        NODE_RANK="${NODE_RANK:-0}"
        if [[ "$NODE_RANK" -lt 1 ]]; then
            BANNER=first; URI=http://head:8000
        else
            BANNER=other; URI=etcd://head:2379
        fi
        echo "$BANNER"
        vllm serve Qwen/Qwen3-8B --port "${PORT:-8200}" --served-model-name "$URI" \\
          --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        """))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert [(la["line"], la["role"], la["context"]) for la in out["launches"]] == [(9, "prefill", "")]
    assert out["launches"][0]["argv"][1:3] == ["--port", "8200"]


_VLLM = ("vllm serve Qwen/Qwen3-8B --port 8100 \\\n"
         "  --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}' $ROLE_EXTRA_ARGS\n")


def _pd023(out):
    return [(f["line"], f["code"]) for f in out["findings"] if f["code"] == "PD023"]


def test_a_variable_an_eval_of_a_command_substitution_sets_has_no_known_value_after_it(scratch_git):
    """InferenceX benchmarks/multi_node/llm-d/server.sh: `ROLE_EXTRA_ARGS=""`, then `eval "$(python3 - <<PY ...
    print(f"ROLE_EXTRA_ARGS={shlex.quote(extra)}") ... PY)"`, then `vllm serve ... $ROLE_EXTRA_ARGS`: the recipe's
    per-role flags were dropped without a word (the pre-eval ""); now PD023 says they were not checked."""
    scratch_git.write("server.sh", textwrap.dedent("""\
        #!/usr/bin/env bash
        ROLE_EXTRA_ARGS=""
        eval "$(python3 - "$RECIPE" <<PY
        import shlex, sys, yaml
        extra = yaml.safe_load(open(sys.argv[1]))["prefill"]["extra-args"]
        print(f"ROLE_EXTRA_ARGS={shlex.quote(extra)}")
        PY
        )"
        """) + _VLLM)
    code, out = scratch_git.lint(".")
    assert (code, _pd023(out)) == (0, [(10, "PD023")])


def test_a_script_file_the_substitution_runs_shows_the_names_source_and_declare_of_it_set(scratch_git):
    """The same through `source <(python3 tools/render.py)` and `declare "$(...)"`: the names the repository's
    render script prints, or the substitution's text shows, have no known value afterwards."""
    scratch_git.write("tools/render.py", 'print(f"ROLE_EXTRA_ARGS={args}")\n')
    scratch_git.write("a.sh", '#!/bin/bash\nROLE_EXTRA_ARGS=""\nsource <(python3 tools/render.py prefill)\n' + _VLLM)
    scratch_git.write("b.sh", '#!/bin/bash\nROLE_EXTRA_ARGS=""\n'
                              'declare "$(python3 -c \'print("ROLE_EXTRA_ARGS=--max-num-seqs 8")\')"\n' + _VLLM)
    scratch_git.write("c.sh", '#!/bin/bash\nROLE_EXTRA_ARGS=""\nread -r ROLE_EXTRA_ARGS < extra.txt\n' + _VLLM)
    code, out = scratch_git.lint(".")
    assert sorted((f["path"], f["line"]) for f in out["findings"] if f["code"] == "PD023") == [
        ("a.sh", 5), ("b.sh", 5), ("c.sh", 5)]


def test_an_eval_that_shows_no_assignment_of_a_launch_variable_keeps_its_value(scratch_git):
    """Quiet: `eval "$(conda shell.bash hook)"` and an eval'd script assigning other names leave the launch's
    variables as they were, and an eval of known text still assigns what it says."""
    scratch_git.write("server.sh", textwrap.dedent("""\
        #!/usr/bin/env bash
        ROLE_EXTRA_ARGS=""
        eval "$(conda shell.bash hook)"
        eval "$(python3 - <<PY
        print(f"OTHER={1}")
        open("x", encoding="utf-8")
        PY
        )"
        """) + _VLLM + textwrap.dedent("""\
        eval "ROLE_EXTRA_ARGS='--max-num-seqs 8'"
        """) + _VLLM.replace("8100", "8101"))
    code, out = scratch_git.lint(".")
    assert (code, [f["code"] for f in out["findings"] if f["code"].startswith("PD")]) == (0, [])
    assert [la["argv"][5:] for la in out["launches"]] == [[], ["--max-num-seqs", "8"]]
