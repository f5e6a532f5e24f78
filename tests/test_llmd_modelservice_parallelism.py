"""llm-d-modelservice values: the chart writes ``vllm serve`` and the parallel sizes from ``parallelism``.

Field test rw18/o (llm-d-incubation/llm-d-modelservice ``examples/values-heterogeneous-pd.yaml``): a decode
container whose image has a known entry point (``ghcr.io/llm-d/llm-d:v0.2.0``) was read as that image's own
command with the container's args, so ``parallelism.tensor: 2`` was lost and the decode's
``CUDA_VISIBLE_DEVICES=0`` with tensor parallel 2 (a true PD153: the second TP worker has no device) was only
reported on the chart's rendered output, never on the values file a human edits."""

VALUES = """\
    modelArtifacts:
      name: facebook/opt-125m
    decode:
      parallelism:
        tensor: 2
      containers:
      - name: vllm
        image: ghcr.io/llm-d/llm-d:v0.2.0
        modelCommand: vllmServe
        args:
          - --kv-transfer-config
          - '{"kv_connector":"NixlConnector", "kv_role":"kv_both"}'
        env:
          - name: CUDA_VISIBLE_DEVICES
            value: "0"
    prefill:
      parallelism:
        tensor: 1
      containers:
      - name: vllm
        image: ghcr.io/llm-d/llm-d:v0.2.0
        modelCommand: vllmServe
        args:
          - --kv-transfer-config
          - '{"kv_connector":"NixlConnector", "kv_role":"kv_both"}'
    """


def _launch(report, role):
    return next(l for l in report["launches"] if l["role"] == role)


def test_the_chart_command_and_its_tensor_size_are_read_whatever_the_image(scratch_git):
    scratch_git.write("values.yaml", VALUES)
    code, report = scratch_git.lint("values.yaml")
    decode = _launch(report, "decode")
    assert "llm-d-modelservice" in decode["context"]
    assert decode["argv"][:3] == ["facebook/opt-125m", "--tensor-parallel-size", "2"]
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD153", 15)]
    assert code == 1


def test_enough_visible_devices_is_quiet(scratch_git):
    scratch_git.write("values.yaml", VALUES.replace('value: "0"', 'value: "0,1"'))
    code, report = scratch_git.lint("values.yaml")
    assert report["findings"] == [] and code == 0
    assert len(report["pairs"]) == 1


def test_data_parallel_sizes_are_written_as_the_chart_writes_them(scratch_git):
    # tensor 1, data 4 of which 2 on this pod: --data-parallel-size 4 --data-parallel-size-local 2
    scratch_git.write("values.yaml", VALUES.replace("tensor: 2", "tensor: 1\n        data: 4\n        dataLocal: 2"))
    code, report = scratch_git.lint("values.yaml")
    argv = _launch(report, "decode")["argv"]
    assert argv[:7] == ["facebook/opt-125m", "--tensor-parallel-size", "1", "--data-parallel-size", "4",
                        "--data-parallel-size-local", "2"]
    assert [f["code"] for f in report["findings"]] == ["PD153"]  # 2 local GPUs, 1 visible
    scratch_git.write("values.yaml", VALUES.replace("tensor: 2", "tensor: 1\n        data: 2").replace('"0"', '"0,1"'))
    code, report = scratch_git.lint("values.yaml")
    argv = _launch(report, "decode")["argv"]
    assert argv[:7] == ["facebook/opt-125m", "--tensor-parallel-size", "1", "--data-parallel-size", "2",
                        "--data-parallel-size-local", "2"]
    assert report["findings"] == [] and code == 0


def test_a_multinode_worker_group_keeps_the_gpu_checks_off(scratch_git):
    # workers > 1: a LeaderWorkerSet whose ranks the chart spreads over pods; the sizes here are not one pod's
    scratch_git.write("values.yaml", VALUES.replace("tensor: 2", "tensor: 2\n        workers: 2"))
    _, report = scratch_git.lint("values.yaml")
    assert report["findings"] == []
    scratch_git.write("values.yaml", "    multinode: true\n" + VALUES)
    _, report = scratch_git.lint("values.yaml")
    assert report["findings"] == []


def test_a_custom_command_is_the_containers_own(scratch_git):
    # modelCommand custom: the chart runs the container's command and args as written (values-xpu-pd.yaml)
    scratch_git.write("values.yaml", VALUES.replace(
        "modelCommand: vllmServe", "modelCommand: custom\n        command: [vllm, serve, m, --tensor-parallel-size, '2']"))
    _, report = scratch_git.lint("values.yaml")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert all(l["argv"][:3] == ["m", "--tensor-parallel-size", "2"] for l in report["launches"])
    assert [f["code"] for f in report["findings"]] == ["PD153"]


def test_the_chart_writes_the_port_from_routing(scratch_git):
    # rw19/a: vllmPort is routing.servicePort for the prefill, routing.proxy.targetPort for the decode behind the
    # routing sidecar (routing.servicePort when the proxy is off); unset here: nothing written
    routing = "routing:\n  servicePort: 8000\n  proxy:\n    targetPort: 8200\n"
    scratch_git.write("values.yaml", VALUES)
    with open(scratch_git.root / "values.yaml", "a") as f:
        f.write(routing)
    _, report = scratch_git.lint("values.yaml")
    argv = {l["role"]: l["argv"] for l in report["launches"]}
    assert argv["prefill"][1:3] == ["--port", "8000"] and argv["decode"][1:3] == ["--port", "8200"]
    scratch_git.write("values.yaml", VALUES)
    with open(scratch_git.root / "values.yaml", "a") as f:
        f.write(routing.replace("    targetPort: 8200\n", "    enabled: false\n"))
    _, report = scratch_git.lint("values.yaml")
    argv = {l["role"]: l["argv"] for l in report["launches"]}
    assert argv["decode"][1:3] == ["--port", "8000"]
    scratch_git.write("values.yaml", VALUES)
    _, report = scratch_git.lint("values.yaml")
    assert all("--port" not in l["argv"] for l in report["launches"])


def test_a_size_too_large_to_be_one_is_not_read_and_the_file_still_is(scratch_git):
    """`dataLocal` and `workers` of 2200 digits: their product (4400 digits) could not be written as a number, the
    exception lost both launches of the file and their findings (field test rw20/h)."""
    huge = "9" * 2200
    scratch_git.write("values.yaml", VALUES.replace("tensor: 1\n", f"tensor: 1\n        dataLocal: {huge}\n"
                                                                   f"        workers: {huge}\n"))
    code, report = scratch_git.lint("values.yaml")
    assert {l["role"] for l in report["launches"]} == {"prefill", "decode"}
    assert ("PD153", 15) in [(f["code"], f["line"]) for f in report["findings"]] and code == 1
