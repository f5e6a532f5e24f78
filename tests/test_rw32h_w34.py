"""rw32/h P5 (hostile-input review of 7f4f467): the pair stage was quadratic for distinct co-located launches.

A script starting N distinct background servers (`python -m sglang.launch_server ... --port 10000+i &`) had every
launch compared with every earlier one (:func:`pdlint.pair_rules._colocated_pairs` capped only groups of identical
launches, and re-sorted the candidate list over all groups for each launch), each pair's ports and GPUs; and
:func:`pdlint.pairing.pair_launches` judged every (prefill, decode) combination before falling back to pairing
each with the other role's first.  N=1000 spent over 10 s: the whole file was a PD008 error ("not checked:
exceeded 10 s in pair stage").  The pair rules now look a launch's partners up by what they compare (its ports,
its GPUs, pinned or not), and the combinations are judged up to the bound.
"""

import pytest

LAUNCH = "python -m sglang.launch_server --model-path /m --disaggregation-mode {role} --port {port}{extra} &"


def _script(n: int, port=lambda i: 10000 + i, extra=lambda i: "", env=lambda i: "") -> str:
    lines = ["#!/bin/bash"]
    for i in range(n):  # launch i on line i + 2
        lines.append(env(i) + LAUNCH.format(role="prefill" if i % 2 else "decode", port=port(i), extra=extra(i)))
    return "\n".join(lines + ["wait"]) + "\n"


def _found(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


@pytest.fixture
def in_process(monkeypatch):
    """The check runs in this process (the counter of compared pairs is this process's)."""
    from pdlint import pair_rules
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    monkeypatch.setitem(pair_rules.STATS, "examined", 0)
    return pair_rules


def test_thousand_distinct_background_launches_are_checked_and_a_planted_port_collision_found(scratch, in_process):
    """rw32/h P5 (repro/5, N=1000): `run.sh:1:1: PD008 error: not checked: exceeded 10 s in pair stage` before.
    Launch 900 is planted on launch 100's --port 10100 (SGLang binds it with uvicorn: the second server fails
    with `[Errno 98] address already in use`): PD150 at launch 900's --port, naming launch 100's line."""
    n = 1000
    scratch.write("run.sh", _script(n, port=lambda i: 10100 if i == 900 else 10000 + i))
    code, doc = scratch.lint("run.sh")
    assert not _found(doc, "PD008")
    assert code == 1
    ports = [f for f in _found(doc, "PD150") if "10100" in f["message"]]
    assert [(f["line"], f["column"]) for f in ports] == [(902, 84)]
    assert ports[0]["message"].startswith("port 10100 is used twice on this host: this decode launch's --port "
                                          "(10100) and the decode launch's --port (10100)")
    assert [r["line"] for r in ports[0]["related"]] == [102]
    # the prefills' default bootstrap port 8998 and GPU 0 (none is pinned) are still shared by all of them
    assert len({f["line"] for f in _found(doc, "PD150") if "8998" in f["message"]}) == n // 2 - 1
    assert len({f["line"] for f in _found(doc, "PD151")}) == n - 1
    # each launch is compared with a bounded number of earlier ones per key it holds (ports, GPUs): linear, not
    # the 2 x 499,500 pairs (ports, GPUs) of before
    assert in_process.STATS["examined"] <= 2 * n * 2 * in_process.MAX_EXAMINED


def test_distinct_pinned_launches_are_quiet_but_for_the_planted_shared_gpu(scratch, in_process):
    """The quiet neighbour: 300 launches, each on its own --port, bootstrap port and GPU (CUDA_VISIBLE_DEVICES=i)
    give no PD150/PD151/PD152; launch 250 planted on launch 7's GPU 7 is PD151 (both size their KV pool as a
    fraction of the whole GPU: the second one's `torch.OutOfMemoryError` at start-up)."""
    n = 300
    scratch.write("run.sh", _script(n, extra=lambda i: f" --disaggregation-bootstrap-port {20000 + i}",
                                    env=lambda i: f"CUDA_VISIBLE_DEVICES={7 if i == 250 else i} "))
    code, doc = scratch.lint("run.sh")
    assert not _found(doc, "PD008") and not _found(doc, "PD150") and not _found(doc, "PD152")
    gpus = _found(doc, "PD151")
    assert [(f["line"], f["column"]) for f in gpus] == [(252, 22)]
    assert "both use GPU 7" in gpus[0]["message"] and [r["line"] for r in gpus[0]["related"]] == [9]
    assert in_process.STATS["examined"] <= 2 * n * 2 * in_process.MAX_EXAMINED


def test_an_unpinned_launch_among_many_pinned_ones_is_still_named(scratch, in_process):
    """PD152 pairs a pinned and an unpinned launch that share no GPU: the index looks them up by pinned / not.
    Launch 0 sets no CUDA_VISIBLE_DEVICES (GPU 0 from --tp-size 1); launches 1..199 are pinned to GPUs 1..199."""
    scratch.write("run.sh", _script(200, extra=lambda i: f" --disaggregation-bootstrap-port {20000 + i}",
                                    env=lambda i: f"CUDA_VISIBLE_DEVICES={i} " if i else ""))
    code, doc = scratch.lint("run.sh")
    pin = _found(doc, "PD152")
    assert [f["line"] for f in pin] == [2] and not _found(doc, "PD151")
    assert "this decode launch sets no CUDA_VISIBLE_DEVICES" in pin[0]["message"]
    assert "(and 198 other pinned launches of this script)" in pin[0]["message"]


def test_a_count_of_pinned_peers_past_the_search_bound_says_at_least(scratch, in_process):
    """An unpinned launch after 100 pinned ones is compared with the first and last MAX_EXAMINED / 2 of them
    only: PD152's count of the others is then a lower bound, and says so (stop 49 left it as an exact-looking
    "and 31 other pinned launches")."""
    n = 101
    scratch.write("run.sh", _script(n, extra=lambda i: f" --disaggregation-bootstrap-port {20000 + i}",
                                    env=lambda i: f"CUDA_VISIBLE_DEVICES={i + 1} " if i < n - 1 else ""))
    code, doc = scratch.lint("run.sh")
    pin = _found(doc, "PD152")
    assert [f["line"] for f in pin] == [n + 1]
    examined = in_process.MAX_EXAMINED
    assert f"(and at least {examined - 1} other pinned launches of this script)" in pin[0]["message"]


@pytest.mark.parametrize("wide_first", [True, False])
def test_a_port_block_wider_than_the_index_keys_is_compared_with_every_launch(scratch, wide_first):
    """A NIXL side channel block of data parallel 100 (ports 5600-5699: vLLM's NixlConnector listens on
    VLLM_NIXL_SIDE_CHANNEL_PORT + the dp rank) is more ports than a launch is indexed under one by one
    (pair_rules.MAX_KEYS): it still meets a launch on 5650, whichever starts first."""
    kv = "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' &"
    wide = ("CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5600 vllm serve Qwen/Qwen3-8B --port 8100 "
            "--data-parallel-size 100 " + kv)
    narrow = "CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5650 vllm serve Qwen/Qwen3-8B --port 8200 " + kv
    lines = [wide, narrow] if wide_first else [narrow, wide]
    scratch.write("run.sh", "#!/bin/bash\n" + "\n".join(lines) + "\nwait\n")
    code, doc = scratch.lint("run.sh")
    ports = _found(doc, "PD150")
    assert len(ports) == 1 and "port 5650 is used twice on this host" in ports[0]["message"]


def test_index_keys_bound():
    from pdlint import pair_rules
    own, probe = pair_rules.index_keys({1, 2})
    assert own == {1, 2, pair_rules._ANY} and probe == {1, 2, pair_rules._WIDE}
    assert pair_rules.index_keys(range(pair_rules.MAX_KEYS + 1)) == pair_rules.WIDE_KEYS


def test_prefill_decode_combinations_are_judged_up_to_the_bound():
    """pairing._combos: 500 x 500 instances were each judged (250,000 `apart` calls, ~8 s of the repro's pair
    stage); past MAX_PAIRS_PER_ENGINE pairs or MAX_COMBOS_EXAMINED combinations it stops (the caller pairs each
    with the other role's first, as it did past MAX_PAIRS_PER_ENGINE)."""
    from pdlint import pairing
    calls = []

    def together(p, q):
        calls.append((p, q))
        return True

    assert pairing._combos(list(range(500)), list(range(500)), together) is None and calls == []
    assert pairing._combos(list(range(60)), list(range(60)), together) is None
    assert len(calls) == pairing.MAX_PAIRS_PER_ENGINE + 1
    # the neighbour: a few instances, two configurations a branch chooses between - every combination judged
    calls.clear()
    assert pairing._combos([0, 1, 2], [0, 1, 2], lambda p, q: calls.append(1) or p == q) == [(0, 0), (1, 1), (2, 2)]
    assert len(calls) == 9


def test_launches_sharing_thousands_of_gpus_name_them_as_a_range(scratch):
    """A hostile neighbour of P5: 1000 launches of --tp-size 2048 each built a 2048-GPU set intersection and a
    2048-number list per pair ("both use GPUs 0,1,2,...,2047", 10 KB a message).  GPUs that follow each other
    are shared as a range: "both use GPUs 0-2047"; a host's few GPUs are still listed one by one."""
    launch = "python -m sglang.launch_server --model-path /m --disaggregation-mode {r} --port {p} --tp-size {tp} &"
    scratch.write("run.sh", "#!/bin/bash\n" + launch.format(r="decode", p=30000, tp=2048) + "\n"
                  + launch.format(r="prefill", p=30001, tp=2048) + "\n" + launch.format(r="decode", p=30002, tp=2)
                  + "\n" + launch.format(r="prefill", p=30003, tp=2) + "\nwait\n")
    code, doc = scratch.lint("run.sh")
    msgs = sorted(f["message"].split(":")[0] for f in _found(doc, "PD151"))
    assert "the prefill and decode launches both use GPUs 0-2047" in msgs
    assert "the prefill and decode launches both use GPUs 0,1" in msgs
    from pdlint import pair_rules
    assert pair_rules._gpu_list(list(range(0, 200, 2))) == ",".join(map(str, range(0, 128, 2))) + " and 36 more"
