"""The nodes of one multi-node SGLang instance written as one script per node: PD113 (two nodes, one rank) and
PD102 (flags that differ between the ranks).

Field test rw21/b: hhhh1252023/pass's cp/pnode60.sh and cp/pnode234.sh are nodes 0 and 1 of one prefill
instance (`--dist-init-addr 192.168.0.60:10000 --nnodes 2`); the rank-1 node alone had `--quantization
modelsliim` and another `--mem-fraction-static`, and a copy with both nodes at `--node-rank 0` passed."""

NODE = ("#!/bin/bash\npython -m sglang.launch_server --model-path /models/DeepSeek-R1 --trust-remote-code "
        "--disaggregation-mode prefill --tp-size {tp} --nnodes 2 --node-rank {rank} --dist-init-addr {addr} "
        "--host 10.0.0.{host} --port 30000\n")


def _lint(scratch_git, nodes):
    names = []
    for name, kw in nodes.items():
        scratch_git.write(name, NODE.format(**{"tp": 16, "addr": "10.0.0.1:5000", **kw}))
        names.append(name)
    _, report = scratch_git.lint(*names)
    return [(f["path"], f["code"]) for f in report["findings"] if f["code"] in ("PD102", "PD113")], report


def test_two_nodes_given_one_rank(scratch_git):
    found, report = _lint(scratch_git, {"p0.sh": {"rank": 0, "host": 1}, "p1.sh": {"rank": 0, "host": 2}})
    assert found == [("p1.sh", "PD113")]
    (f,) = [f for f in report["findings"] if f["code"] == "PD113"]
    assert "as is p0.sh:2" in f["message"] and f["related"][0]["path"] == "p0.sh"


def test_flags_that_differ_between_the_ranks(scratch_git):
    found, report = _lint(scratch_git, {"p0.sh": {"rank": 0, "host": 1}, "p1.sh": {"rank": 1, "host": 2, "tp": 32}})
    assert found == [("p0.sh", "PD102")]
    assert "--tp-size is '16' on the prefill leader but '32' on its worker" in \
        next(f["message"] for f in report["findings"] if f["code"] == "PD102")


def test_nodes_that_agree_are_quiet(scratch_git):
    found, _ = _lint(scratch_git, {"p0.sh": {"rank": 0, "host": 1}, "p1.sh": {"rank": 1, "host": 2}})
    assert found == []


def test_other_instances_are_not_grouped(scratch_git):
    # another rendezvous address, or another directory (another deployment reusing an example's address)
    found, _ = _lint(scratch_git, {"p0.sh": {"rank": 0, "host": 1}, "p1.sh": {"rank": 0, "host": 2,
                                                                            "addr": "10.0.0.9:5000"}})
    assert found == []
    found, _ = _lint(scratch_git, {"a/p0.sh": {"rank": 0, "host": 1}, "b/p0.sh": {"rank": 0, "host": 2}})
    assert found == []


def test_one_script_run_per_rank_is_one_place(scratch_git):
    scratch_git.write("node.sh", "#!/bin/bash\nRANK=${NODE_RANK:-0}\npython -m sglang.launch_server --model-path m "
                                 "--disaggregation-mode prefill --tp-size 16 --nnodes 2 --node-rank 0 "
                                 "--dist-init-addr 10.0.0.1:5000\n")
    _, report = scratch_git.lint("node.sh")
    assert "PD113" not in [f["code"] for f in report["findings"]]


def test_alternatives_are_not_one_instance(scratch_git):
    # devopsrustem/slurmv4 (the field compare): numbered attempts of one deployment in one directory, each a node
    # script or a script of both nodes; more files than nodes, or a file of several ranks, are no instance
    found, _ = _lint(scratch_git, {"p0.sh": {"rank": 0, "host": 1}, "p0b.sh": {"rank": 0, "host": 1},
                                   "p1.sh": {"rank": 1, "host": 2, "tp": 32}})
    assert found == []
    scratch_git.write("both.sh", NODE.format(tp=16, rank=0, addr="10.0.0.1:5000", host=1)
                      + NODE.format(tp=16, rank=1, addr="10.0.0.1:5000", host=2).split("\n", 1)[1])
    scratch_git.write("other.sh", NODE.format(tp=32, rank=0, addr="10.0.0.1:5000", host=3))
    _, report = scratch_git.lint("both.sh", "other.sh")
    assert [f["code"] for f in report["findings"] if f["code"] in ("PD102", "PD113")] == []
