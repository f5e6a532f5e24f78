"""``docker run -d --name NAME IMAGE sleep infinity`` then ``docker exec NAME <launch>``: the launch runs in
NAME's image, whose tag pins the release (field test rw6/c, ZhaiFeiyue/amd-tools spike/run_best_config.sh:
a 0.5.9 container judged against the newest release, with SGL012 "no release is pinned")."""

import pytest

from pdlint import launchers

SCRIPT = """\
#!/bin/bash
IMAGE="rocm/pytorch-private:sglang-0.5.9-rocm720-mi35x-mori-0327"
docker run -d {name} --network host --device /dev/kfd -v /data:/data ${{IMAGE}} sleep infinity
docker exec -e NCCL_DEBUG=INFO -it {target} python3 -m sglang.launch_server --model-path /data/m \\
  --disaggregation-mode decode {flag}
"""


def _lint(scratch, name="--name pd_decode", target="pd_decode", flag="--enable-linear-replayssm-spec"):
    scratch.write("run.sh", SCRIPT.format(name=name, target=target, flag=flag))
    return scratch.lint("run.sh")


@pytest.mark.parametrize("name", ["--name pd_decode", "--name=pd_decode"])
def test_a_launch_in_a_named_container_is_judged_against_its_images_release(scratch, name):
    _, doc = _lint(scratch, name=name)
    (launch,) = doc["launches"]
    assert launch["engine_version"] == "0.5.9"
    (f,) = doc["findings"]
    assert f["code"] == "SGL009" and "not a flag of SGLang 0.5.9" in f["message"]


def test_a_flag_of_that_release_is_clean(scratch):
    code, doc = _lint(scratch, flag="--cuda-graph-bs 1 2 4")  # (removed in 0.5.20: fine in the 0.5.9 container)
    assert code == 0 and doc["findings"] == []


def test_exec_into_a_container_the_script_did_not_start_pins_nothing(scratch):
    _, doc = _lint(scratch, target="other_container", flag="--cuda-graph-bs 1 2 4")
    assert [f["code"] for f in doc["findings"]] == ["SGL012"]  # no release pinned: judged against the newest


def test_named_containers_and_exec_targets():
    runs = [["docker", "run", "-d", "--rm", "--name", "a", "-e", "X=1", "img/a:1", "sleep", "inf"],
            ["podman", "create", "--name=b", "img/b:2"], ["echo", "docker", "run"]]
    got = launchers.named_containers(runs)
    assert got == {"a": "img/a:1", "b": "img/b:2"}
    assert launchers.exec_container_image(["docker", "exec", "-it", "-w", "/x", "a", "python3"], got) == "img/a:1"
    assert launchers.exec_container_image(["docker", "exec", "--user=u", "b", "sh"], got) == "img/b:2"
    assert launchers.exec_container_image(["docker", "exec", "c", "sh"], got) is None
    assert launchers.exec_container_image(["docker", "run", "a", "sh"], got) is None


# -- the devices of the container a launch runs in (PD151) ------------------------------------------------------

SG = "python3 -m sglang.launch_server --model-path /m"


def _pd151(scratch, text):
    scratch.write("pd.sh", "#!/bin/bash\n" + text)
    _, doc = scratch.lint("pd.sh")
    assert len(doc["launches"]) == 2, doc["launches"]
    return [f for f in doc["findings"] if f["code"] == "PD151"]


@pytest.mark.parametrize("gpus,overlap", [(("0", "1"), False), (("0", "0"), True)])
def test_gpus_of_a_docker_run_bash_c_string(scratch, gpus, overlap):
    runs = "".join(f"docker run -d --network host --gpus '\"device={g}\"' img:1 bash -c "
                   f"\"{SG} --disaggregation-mode {role} --port {port}\"\n"
                   for g, role, port in zip(gpus, ("prefill", "decode"), (30000, 30001)))
    assert bool(_pd151(scratch, runs)) == overlap


@pytest.mark.parametrize("targets,overlap", [
    (("pd-0", "pd-1"), False),   # tpu-inference run_disagg_multi_host.sh's shape: one container per role
    (("pd-0", "pd-0"), True),    # both servers in one container: one device space
])
def test_exec_into_containers_the_script_starts(scratch, targets, overlap):
    text = ("docker run -d --name pd-0 --network host --gpus '\"device=0\"' img:1 sleep infinity\n"
            "docker run -d --name pd-1 --network host --gpus '\"device=1\"' img:1 sleep infinity\n")
    text += "".join(f"docker exec -d {t} bash -c \"{SG} --disaggregation-mode {role} --port {port}\"\n"
                    for t, role, port in zip(targets, ("prefill", "decode"), (30000, 30001)))
    assert bool(_pd151(scratch, text)) == overlap


@pytest.mark.parametrize("targets,overlap", [(("a", "b"), False), (("a", "a"), True)])
def test_exec_into_containers_the_script_does_not_start(scratch, targets, overlap):
    text = "".join(f"docker exec {t} {SG} --disaggregation-mode {role} --port {port} &\n"
                   for t, role, port in zip(targets, ("prefill", "decode"), (30000, 30001)))
    assert bool(_pd151(scratch, text)) == overlap


def test_container_run_words():
    runs = {"a": "docker run --name a --gpus all img:1"}
    assert launchers.container_run(["docker", "run", "-d", "--gpus", "all", "img:1", "bash", "-c"], {}) == \
        "docker run -d --gpus all img:1"
    assert launchers.container_run(["docker", "exec", "-d", "a", "bash", "-c"], runs) == runs["a"]
    assert launchers.container_run(["docker", "exec", "b", "sh"], runs) == "docker exec b"
    assert launchers.container_run(["srun", "-N1", "bash", "-c"], runs) == ""


def test_sudo_docker_is_linked_too(scratch):
    # `sudo docker run --name` / `sudo docker exec NAME`: the container's image and GPUs as without sudo
    text = ("sudo docker run -d --name pd-0 --network host --gpus '\"device=0\"' lmsysorg/sglang:v0.5.9 sleep inf\n"
            "sudo docker run -d --name pd-1 --network host --gpus '\"device=1\"' lmsysorg/sglang:v0.5.9 sleep inf\n"
            f"sudo docker exec -d pd-0 {SG} --disaggregation-mode prefill --port 30000\n"
            f"sudo docker exec -d pd-1 {SG} --disaggregation-mode decode --port 30001\n")
    scratch.write("pd.sh", "#!/bin/bash\n" + text)
    _, doc = scratch.lint("pd.sh")
    assert [l["engine_version"] for l in doc["launches"]] == ["0.5.9", "0.5.9"]
    assert not [f for f in doc["findings"] if f["code"] == "PD151"]
