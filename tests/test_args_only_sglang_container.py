"""An SGLang container with `args` and no `command` (field test rw19/c): PD020 said "`--model-path` is not a
launcher pdlint knows"; the cause is that SGLang's images start no server of their own, and the fix is the
command."""

POD = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: x-prefill}
    spec:
      template:
        spec:
          containers:
            - name: p
              image: IMAGE
              args: [--model-path, /m/q, --disaggregation-mode, prefill]
    """


def test_the_gap_names_the_image_and_the_command_to_add(scratch_git):
    scratch_git.write("k.yaml", POD.replace("IMAGE", "lmsysorg/sglang:v0.5.23"))
    _, report = scratch_git.lint("k.yaml")
    [f] = report["findings"]
    assert f["code"] == "PD020" and "SGLang's images start no server of their own" in f["message"]
    assert "command: [python3, -m, sglang.launch_server]" in f["fix"] and "not a launcher" not in f["message"]


def test_with_the_command_it_is_checked(scratch_git):
    scratch_git.write("k.yaml", POD.replace("IMAGE", "lmsysorg/sglang:v0.5.23").replace(
        "args:", "command: [python3, -m, sglang.launch_server]\n              args:"))
    code, report = scratch_git.lint("k.yaml")
    assert report["findings"] == [] and len(report["launches"]) == 1 and code == 0


def test_another_projects_image_named_after_sglang_gets_the_generic_wording(scratch_git):
    """rw29/a P3 (volcano-sh/kthena test/e2e/router/testdata/ModelServing-sglang-pd-disaggregation.yaml):
    ghcr.io/faust-benchou/sglang-inference-sim is an inference simulator whose entry point is its own server (it
    takes --mode=echo, --time-to-first-token): calling it an SGLang image and hinting `command: [python3, -m,
    sglang.launch_server]` would replace the simulator by a real SGLang, which refuses those flags."""
    scratch_git.write("k.yaml", POD.replace("IMAGE", "ghcr.io/faust-benchou/sglang-inference-sim:0.1.1"))
    code, report = scratch_git.lint("k.yaml")
    [f] = report["findings"]
    assert f["code"] == "PD020" and "which pdlint does not know" in f["message"], f
    assert "SGLang's images" not in f["message"] and "command: [python3, -m, sglang.launch_server]" not in f["fix"]
    assert code == 0


def test_sglangs_own_images_keep_the_sglang_wording():
    from pdlint.coverage import sglang_image
    assert all(sglang_image(i) for i in ("lmsysorg/sglang:v0.5.23", "docker.io/lmsysorg/sglang:latest",
                                         "lmsysorg/sglang-rocm:v0.5.9", "rocm/sgl-dev:v0.5.10.post1-rocm720",
                                         "registry.example.com/ai/sglang:v0.5.9"))
    assert not any(sglang_image(i) for i in ("ghcr.io/faust-benchou/sglang-inference-sim:0.1.1",
                                             "myorg/sglang-sim:1", "vllm/vllm-openai:v0.10.2"))
