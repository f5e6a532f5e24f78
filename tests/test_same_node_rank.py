"""PD113: the leader and a worker of one multi-node instance given the same literal `--node-rank`.

Field test rw19/b (a RoleBasedGroup `leaderWorkerPattern`, `tests/data/field/rbg-node-rank/lwp.yaml`): the
template the worker pods use and the leader's patch both say `--nnodes 2 --node-rank 0`; both nodes claim TP
ranks 0-7 and the rendezvous on --dist-init-addr never completes.  Nothing was reported."""

import os
import shutil

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "field", "rbg-node-rank", "lwp.yaml")


def _codes(report):
    return [(f["code"], f["line"]) for f in report["findings"]]


def test_the_same_literal_rank_on_leader_and_worker(scratch_git):
    shutil.copy(DATA, scratch_git.root / "lwp.yaml")
    code, report = scratch_git.lint("lwp.yaml")
    assert ("PD113", 18) in _codes(report) and code == 1  # the worker template's rank


def test_a_rank_from_the_controller_is_quiet(scratch_git):
    text = open(DATA).read()
    worker, leader = text.split("leaderTemplatePatch:")
    worker = worker.replace('--node-rank, "0"', '--node-rank, "$(RBG_LWP_WORKER_INDEX)"')
    scratch_git.write("lwp.yaml", worker + "leaderTemplatePatch:" + leader)
    _, report = scratch_git.lint("lwp.yaml")
    assert "PD113" not in [c for c, _ in _codes(report)]
    scratch_git.write("lwp.yaml", worker.replace("$(RBG_LWP_WORKER_INDEX)", "1") + "leaderTemplatePatch:" + leader)
    _, report = scratch_git.lint("lwp.yaml")
    assert "PD113" not in [c for c, _ in _codes(report)]
