"""Field round rw35/a (10 public sources no earlier round used, on 0043bf2).

P1: zhtang83/Dockerfiles `launch_prefill.sh` / `launch_decode.sh` run `vllm serve` with no `--kv-transfer-config`:
vLLM starts two ordinary servers (pdlint's own role for each: "null"), yet the file names paired them and the
summary said "2 launches checked (1 prefill, 1 decode ...)" - a checked prefill/decode pair that never exchanges KV.
"""

KV = "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"


def _pair(scratch_git, prefill, decode):
    scratch_git.write("launch_prefill.sh", f"#!/bin/bash\nvllm serve m --port 8100 {prefill}\n")
    scratch_git.write("launch_decode.sh", f"#!/bin/bash\nvllm serve m --port 8200 {decode}\n")
    return scratch_git.lint(".")


def test_vllm_servers_without_a_connector_are_not_a_pair_by_their_file_names(scratch_git):
    code, report = _pair(scratch_git, "", "")
    assert [l["structural_role"] for l in report["launches"]] == [None, None]
    assert report["pairs"] == [] and report["findings"] == [] and code == 0
    cov = report["coverage"]
    assert (cov["prefill"], cov["decode"], cov["other"]) == (0, 0, 2)


def test_a_connector_on_one_side_still_pairs_them_and_vllm011_fires(scratch_git):
    code, report = _pair(scratch_git, KV, "")
    assert [f["code"] for f in report["findings"]] == ["VLLM011"] and code == 1
    assert len(report["pairs"]) == 1


def test_kv_both_servers_are_still_paired_by_their_file_names(scratch_git):
    code, report = _pair(scratch_git, KV, KV)
    assert sorted(l["structural_role"] for l in report["launches"]) == ["decode", "prefill"]
    assert len(report["pairs"]) == 1 and code == 0


def test_sglang_servers_without_a_mode_keep_pd105(scratch_git):
    scratch_git.write("launch_prefill.sh", "python -m sglang.launch_server --model-path m --port 8000\n")
    scratch_git.write("launch_decode.sh", "python -m sglang.launch_server --model-path m --port 8001\n")
    code, report = scratch_git.lint(".")
    assert sorted(f["code"] for f in report["findings"]) == ["PD105", "PD105"]


WORKER = """role=${1}
config_file=${2}
if [ "${role}" = "GEN" ]; then
    export TLLM_BENCHMARK_REQ_QUEUES_SIZE=8
fi
trtllm-serve m --port 8000 --config ${config_file}
"""


def test_an_unpaired_server_beside_one_of_no_decided_role_is_said_so(scratch_git, capsys):
    """P2: TRT-LLM's slurm start_worker.sh (brb-nv/TensorRT-LLM): the line after `if [ "${role}" = "GEN" ]` is
    the decode; its other variant (role CTX: the context server) has no role pdlint can decide.  The summary said
    "no server of the other role in its deployment" - false: the other role is that variant.  The same words come
    back from the result cache."""
    from pdlint.cli import main
    scratch_git.write("start_worker.sh", WORKER)
    outs = []
    for args in (["--no-cache"], [], []):
        main(["check", *args, "."])
        outs.append(capsys.readouterr().out)
    line = next(ln for ln in outs[0].splitlines() if "not paired" in ln)
    assert line == ("1 launch not paired (0 prefill, 1 decode): no server of the other role pdlint could decide in "
                    "its deployment: a server there has no role pdlint could read (set by a value it cannot see, or "
                    "by a branch of a role test it cannot follow) and may be the other role, so the prefill/decode "
                    "pair rules did not check it."), line
    assert outs[1] == outs[0] and outs[2] == outs[0]


def test_an_unpaired_server_alone_keeps_the_no_other_role_wording(scratch_git, capsys):
    from pdlint.cli import main
    # (beside it a server of another engine with no role: not a candidate for its other role)
    scratch_git.write("start_worker.sh", "python -m sglang.launch_server --model-path m --disaggregation-mode decode"
                      "\nvllm serve m --port 9000 --kv-transfer-config \"$KV\"\n")
    main(["check", "--no-cache", "."])
    out = capsys.readouterr().out
    assert "1 launch not paired (0 prefill, 1 decode): no server of the other role in its deployment, so" in out, out
