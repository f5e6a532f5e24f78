"""The SGLang release an image built on it names in its tag (``lightseekorg/smg:1.3.3-sglang-v0.5.9``).

Field test: lightseekorg/smg's chart runs ``python3 -m sglang.launch_server`` in ``lightseekorg/smg:<smg
version>-sglang-v0.5.9``; pdlint judged it against the newest table (0.5.23) instead of 0.5.9."""

import pytest

POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: prefill}
    spec:
      containers:
        - name: s
          image: %s
          command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill]
    """


@pytest.mark.parametrize("image, version", [
    ("lightseekorg/smg:1.3.3-sglang-v0.5.9", "0.5.9"),
    ("lmsysorg/sglang:v0.5.9", "0.5.9"),
    ("registry.local/server:sglang-v0.5.8-cu129", "0.5.8"),
])
def test_the_sglang_release_in_an_image_tag(scratch_git, image, version):
    scratch_git.write("pod.yaml", POD % image)
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == version


def test_a_tag_naming_no_sglang_release_is_judged_against_the_newest(scratch_git):
    scratch_git.write("pod.yaml", POD % "lightseekorg/smg:1.3.3")
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.23"


# Field test rw6/c (ZhaiFeiyue/amd-tools, goodfire-ai/sglang-deployment-poc): a shell script that starts the
# server inside a container names the image on the wrapper's command line; pdlint judged it against the
# newest release and told the user to pin the image tag they had written

SERVER = "python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --cuda-graph-bs-decode 1 2"


@pytest.mark.parametrize("wrapper", [
    "docker run -d --network=host --name dec lmsysorg/sglang:v0.5.9",
    "docker run --gpus all -v /m:/m -e HF_TOKEN=x --rm lmsysorg/sglang:v0.5.9",
    "podman run -it lmsysorg/sglang:v0.5.9",
    "srun --container-image=lmsysorg/sglang:v0.5.9 --container-mounts=/m:/m",
    "srun -N1 --container-image lmsysorg/sglang:v0.5.9",
    "apptainer exec --nv docker://lmsysorg/sglang:v0.5.9",
    "singularity run docker://lmsysorg/sglang:v0.5.9",
])
def test_the_image_a_shell_wrapper_runs_the_server_in_pins_the_release(scratch_git, wrapper):
    scratch_git.write("run.sh", f"IMAGE=lmsysorg/sglang:v0.5.9\n{wrapper} {SERVER}\n")
    _, report = scratch_git.lint("run.sh")
    [launch] = report["launches"]
    assert launch["engine_version"] == "0.5.9"
    # the flag 0.5.9 does not have: an error at the flag, not a "pin the release" warning
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("SGL009", "error")]


@pytest.mark.parametrize("wrapper", [
    "docker run -d --network=host lmsysorg/sglang-router:latest-base",  # no release in the tag
    "srun -N1 --mpi=pmix",  # no container
    "docker exec -it sglang_v0.5.9",  # a container's name, not an image
])
def test_no_release_without_an_image_tag_naming_one(scratch_git, wrapper):
    scratch_git.write("run.sh", f"{wrapper} {SERVER}\n")
    _, report = scratch_git.lint("run.sh")
    assert report["launches"][0]["engine_version"] == "0.5.23"
    assert [f["code"] for f in report["findings"]] == []


def test_wrapper_image():
    from pdlint.launchers import wrapper_image
    assert wrapper_image(["docker", "run", "--gpus", "all", "img:1", "python3"]) == "img:1"
    assert wrapper_image(["sudo", "docker", "run", "-it", "img:2"]) == "img:2"
    assert wrapper_image(["srun", "--container-image=img:3"]) == "img:3"
    assert wrapper_image(["apptainer", "exec", "--nv", "docker://img:4"]) == "img:4"
    assert wrapper_image(["docker", "exec", "ctr"]) is None
    assert wrapper_image(["srun", "-N1"]) is None
    assert wrapper_image(["docker", "run"]) is None


@pytest.mark.parametrize("quote", ['"', "'"])
def test_the_image_a_docker_run_sh_c_string_runs_in_pins_the_release(scratch_git, quote):
    scratch_git.write("run.sh", f"docker run -d --gpus all lmsysorg/sglang:v0.5.9 bash -c {quote}{SERVER}{quote}\n")
    _, report = scratch_git.lint("run.sh")
    [launch] = report["launches"]
    assert launch["engine_version"] == "0.5.9"
    assert [f["code"] for f in report["findings"]] == ["SGL009"]


def test_amds_rocm_sglang_image_names_its_release(scratch_git):
    # rocm/sgl-dev, AMD's SGLang builds for MI300/MI355 (field test rw6/g: judged as unpinned, SGL012)
    scratch_git.write("pod.yaml", POD % "rocm/sgl-dev:v0.5.10.post1-rocm720-mi35x-20260301")
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.10.post1"
    scratch_git.write("pod.yaml", POD % "rocm/sgl-dev:20260301")  # a date only: no release
    _, report = scratch_git.lint("pod.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.23"


def test_amds_development_build_named_for_a_release_pins_none(scratch_git):
    """Field test rw23/a (sabreshao/sglang_disagg): `rocm/sgl-dev:sglang-0.5.8-rocm700-mi35x-mori-0210` runs the MoRI
    transfer backend (its committed server log shows `disaggregation_transfer_backend='mori'`), which the 0.5.8 release
    does not have (server_args.py: 0.5.9 added it): judged as that release, a false SGL004 error."""
    pod = POD.replace("--disaggregation-mode,", "--disaggregation-transfer-backend, mori, --disaggregation-mode,")
    scratch_git.write("pod.yaml", pod % "rocm/sgl-dev:sglang-0.5.8-rocm700-mi35x-mori-0210")
    _, report = scratch_git.lint("pod.yaml")
    assert "SGL004" not in [f["code"] for f in report["findings"]]
    scratch_git.write("pod.yaml", pod % "lmsysorg/sglang:v0.5.8")  # (the release itself: refused)
    _, report = scratch_git.lint("pod.yaml")
    assert "SGL004" in [f["code"] for f in report["findings"]]
