"""PD107 for StatefulSets (field test rw19/b): a router given `http://prefill-group-1-0.prefill-group-1:30001`, the
stable name of pod 0 of a StatefulSet with `replicas: 3`, never sends work to pods 1 and 2; only routers inside a
RoleBasedGroup were checked."""

STS = """\
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: smg}
    spec:
      replicas: 1
      template:
        spec:
          containers:
            - name: smg
              image: lmsysorg/sgl-model-gateway:v0.3.2
              command: [python3, -m, sglang_router.launch_router, --pd-disaggregation,
                        --prefill, PREFILL, "9001",
                        --decode, "http://decode:30011"]
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: prefill}
    spec:
      replicas: 3
      template:
        spec:
          containers:
            - name: sglang
              image: lmsysorg/sglang:v0.5.23
              command: [python3, -m, sglang.launch_server, --model-path, /m, --port, "30001",
                        --disaggregation-mode, prefill, --disaggregation-bootstrap-port, "9001"]
    """


def _pd107(report):
    return [f["message"] for f in report["findings"] if f["code"] == "PD107"]


def test_a_router_that_names_one_pod_of_three(scratch_git):
    scratch_git.write("sts.yaml", STS.replace("PREFILL", "http://prefill-0.prefill:30001"))
    _, report = scratch_git.lint("sts.yaml")
    assert _pd107(report) == ["the router is given 1 static URL(s) for StatefulSet 'prefill', which runs 3 replicas: "
                              "prefill-1, prefill-2 never receive traffic"]


def test_every_pod_or_the_service_is_quiet(scratch_git):
    every = ", ".join(f'"http://prefill-{k}.prefill:30001", "9001"' for k in range(3))
    scratch_git.write("sts.yaml", STS.replace('PREFILL, "9001"', every))
    _, report = scratch_git.lint("sts.yaml")
    assert _pd107(report) == []
    scratch_git.write("sts.yaml", STS.replace("PREFILL", "http://prefill:30001"))  # the Service: kube-proxy spreads
    _, report = scratch_git.lint("sts.yaml")
    assert _pd107(report) == []
