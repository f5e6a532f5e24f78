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
