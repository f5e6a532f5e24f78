"""A loop over models that starts a prefill, a decode and a proxy for each, and ends them (`pkill -f "vllm serve"`)
before the next model (vllm-project/vllm-gaudi tests/unit_tests/run_accuracy_test.sh): the servers of one line are
one instance with a variant per iteration, and every prefill variant was paired with every decode variant, two
models apart (a false VLLM013).  A variant pair a kill keeps apart is not checked together
(pairing.Pair.combos, pairing.sequential)."""

LOOP = """\
    #!/bin/bash
    MODELS=("Qwen/Qwen3-0.6B" "deepseek-ai/DeepSeek-V2-Lite-Chat")
    for m in "${MODELS[@]}"; do
      CUDA_VISIBLE_DEVICES=0 vllm serve $m --port 8700 \\
        --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
      CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5700 vllm serve $m --port 8800 \\
        --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}' &
      python toy_proxy_server.py --port 9195 --prefiller-hosts localhost --prefiller-ports 8700 \\
        --decoder-hosts localhost --decoder-ports 8800 &
      sleep 20
      pkill -f "vllm serve" || true
    done
    """


def test_servers_a_kill_ends_before_the_next_model_are_not_paired_across_models(scratch_git):
    scratch_git.write("run.sh", LOOP)
    code, report = scratch_git.lint("run.sh")
    assert report["findings"] == [] and code == 0
    assert [(p["prefill_variants"], p["decode_variants"]) for d in report["pairs"] for p in d["pairs"]] == [(2, 2)]


def test_servers_left_running_collide_but_pair_by_model(scratch_git):
    scratch_git.write("run.sh", LOOP.replace('      pkill -f "vllm serve" || true\n', ""))
    _, report = scratch_git.lint("run.sh")
    # the two models' servers, left running on one host, share their ports and GPUs (pairing.distinct_instances);
    # each model has its prefill and decode, so each is its own pair, not two models apart (pairing.other_model)
    assert sorted(f["code"] for f in report["findings"]) == ["PD150"] * 4 + ["PD151"] * 2
