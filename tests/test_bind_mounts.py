"""A config file a container reads through a bind mount (`docker run -v $(pwd)/ctx.yaml:/cfg/ctx.yaml`, Compose
`volumes: ["./configs:/cfg"]`) is the repository's file: read, not PD022 "not found".

Field test rw17/n (t8b) and regression hunt rw18/p (P10): a Compose service's `--config /cfg/ctx.yaml` with
`volumes: ["./ctx.yaml:/cfg/ctx.yaml"]` got PD022, the settings in the file unchecked."""

import pytest

CONFIG = "tp-size: 2\ndisaggregation-transfer-backend: mooncak\n"


def _codes(report):
    return sorted((f["path"], f["code"]) for f in report["findings"])


@pytest.mark.parametrize("volume", ['"./configs:/cfg"', '"./configs/prefill.yaml:/cfg/prefill.yaml:ro"',
                                    "{type: bind, source: ./configs, target: /cfg}"])
def test_a_compose_bind_mount_reads_the_repository_file(scratch_git, volume):
    scratch_git.write("configs/prefill.yaml", CONFIG)
    scratch_git.write("docker-compose.yml", f"""\
        services:
          prefill:
            image: lmsysorg/sglang:v0.5.9
            command: python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --config /cfg/prefill.yaml
            volumes: [{volume}]
        """)
    code, report = scratch_git.lint(".")
    assert _codes(report) == [("configs/prefill.yaml", "SGL004")]


@pytest.mark.parametrize("mount", ["-v $(pwd)/configs:/cfg", "--volume=${PWD}/configs/prefill.yaml:/cfg/prefill.yaml",
                                   "--mount type=bind,source=./configs,target=/cfg"])
def test_a_docker_run_bind_mount_reads_the_repository_file(scratch_git, mount):
    scratch_git.write("configs/prefill.yaml", CONFIG)
    scratch_git.write("run.sh", f"docker run --gpus all {mount} lmsysorg/sglang:v0.5.9 python3 -m sglang.launch_server "
                                "--model-path m --disaggregation-mode prefill --config /cfg/prefill.yaml\n")
    code, report = scratch_git.lint(".")
    assert _codes(report) == [("configs/prefill.yaml", "SGL004")]


@pytest.mark.parametrize("mount", ["-v models:/cfg", "-v /srv/configs:/cfg", "-v $HOME/configs:/cfg"])
def test_a_named_volume_or_a_host_path_outside_the_repository_stays_pd022(scratch_git, mount):
    scratch_git.write("configs/prefill.yaml", CONFIG)
    scratch_git.write("run.sh", f"docker run {mount} lmsysorg/sglang:v0.5.9 python3 -m sglang.launch_server "
                                "--model-path m --disaggregation-mode prefill --config /cfg/prefill.yaml\n")
    code, report = scratch_git.lint("run.sh")
    assert _codes(report) == [("run.sh", "PD022")]
