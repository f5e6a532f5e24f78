"""PD112: a `$(NAME)` reference Kubernetes cannot resolve reaches the server as written.

Field test rw19/b (a LeaderWorkerSet): `--node-rank "$(LWS_WORKER_IDX)"` (LWS injects LWS_WORKER_INDEX) was
treated as a value pdlint cannot see; Kubernetes passes `$(LWS_WORKER_IDX)` unchanged and SGLang 0.5.23 stops:
"argument --node-rank: invalid int value: '$(LWS_WORKER_IDX)'"."""

import pytest

LWS = """\
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata: {name: sglang-decode}
    spec:
      leaderWorkerTemplate:
        size: 2
        leaderTemplate:
          spec:
            containers:
              - name: leader
                image: lmsysorg/sglang:v0.5.23
                command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, decode,
                          --tp, "16", --nnodes, $(LWS_GROUP_SIZE), --node-rank, $(RANK),
                          --dist-init-addr, "$(LWS_LEADER_ADDRESS):5000"]
                ENV
    """


def _found(report):
    return [(f["code"], f["severity"], f["line"]) for f in report["findings"] if f["code"] == "PD112"]


def test_a_name_lws_does_not_inject_is_an_error(scratch_git):
    scratch_git.write("lws.yaml", LWS.replace("$(RANK)", "$(LWS_WORKER_IDX)").replace("ENV\n", ""))
    _, report = scratch_git.lint("lws.yaml")
    [f] = [f for f in report["findings"] if f["code"] == "PD112"]
    assert (f["severity"], f["line"]) == ("error", 13) and "did you mean LWS_WORKER_INDEX" in f["message"]


def test_an_undefined_name_is_a_warning(scratch_git):
    scratch_git.write("lws.yaml", LWS.replace("ENV\n", ""))
    _, report = scratch_git.lint("lws.yaml")
    assert _found(report) == [("PD112", "warning", 13)]


@pytest.mark.parametrize("env", [
    "env: [{name: RANK, value: '0'}]",
    "env: [{name: RANK, valueFrom: {fieldRef: {fieldPath: metadata.labels['rank']}}}]",
    "envFrom: [{configMapRef: {name: ranks}}]",
])
def test_defined_or_possibly_defined_names_are_quiet(scratch_git, env):
    scratch_git.write("lws.yaml", LWS.replace("ENV", env))
    _, report = scratch_git.lint("lws.yaml")
    assert _found(report) == []


def test_other_controllers_resources_are_not_judged(scratch_git):
    # a RoleBasedGroup injects RBG_* variables of its own
    scratch_git.write("rbg.yaml", LWS.replace("leaderworkerset.x-k8s.io/v1", "workloads.x-k8s.io/v1alpha1")
                      .replace("LeaderWorkerSet", "RoleBasedGroup").replace("ENV\n", ""))
    _, report = scratch_git.lint("rbg.yaml")
    assert _found(report) == []


def test_service_variables_and_escapes_are_quiet(scratch_git):
    scratch_git.write("lws.yaml", LWS.replace("$(RANK)", "$(ROUTER_SERVICE_PORT)").replace(
        '"$(LWS_LEADER_ADDRESS):5000"', '"$$(HOST):5000"').replace("ENV\n", ""))
    _, report = scratch_git.lint("lws.yaml")
    assert _found(report) == []
