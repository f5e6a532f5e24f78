"""PD108: sglang-router's CLI needs its sub-command (haNa-meister/sglang's start_pd.sh, field test rw12/c:
`nohup python -m sglang_router --pd-disaggregation --prefill-urls ... &` prints the help and exits 1; 0.3.2's
sglang_router/cli.py main() accepts only `launch`, `server`, `-h`/`--help` or a version flag first, and 0.1.4 /
0.2.1 have no sglang_router/__main__.py)."""

import pytest

SERVERS = ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 "
           "--base-gpu-id 0 &\n"
           "python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 "
           "--base-gpu-id 1 &\n")
ROUTER = "--pd-disaggregation --prefill http://localhost:30000 --decode http://localhost:30001 --port 8000 &\n"


@pytest.mark.parametrize("cli", ["python -m sglang_router", "python3 -m sglang_router", "sglang-router"])
def test_the_router_cli_without_its_sub_command(scratch_git, cli):
    scratch_git.write("run.sh", SERVERS + f"{cli} {ROUTER}")
    code, report = scratch_git.lint("run.sh")
    assert [(f["code"], f["line"], f["column"]) for f in report["findings"]] == [("PD108", 3, len(cli) + 2)]
    assert code == 1


@pytest.mark.parametrize("cli", ["python -m sglang_router launch", "sglang-router launch",
                                 "python -m sglang_router.launch_router", "python -m sglang_router --version"])
def test_with_its_sub_command_or_the_module(scratch_git, cli):
    scratch_git.write("run.sh", SERVERS + f"{cli} {ROUTER}")
    code, report = scratch_git.lint("run.sh")
    assert not [f for f in report["findings"] if f["code"] == "PD108"]


def test_a_container_or_service_named_sglang_router_is_no_router(scratch_git):
    """dstackai/dstack and others name the router's container `sglang-router` (field test rw13/e): `docker rm`,
    `docker logs`, `systemctl`, `helm install` on it were PD108, and `docker run --name sglang-router IMAGE python3
    -m sglang_router.launch_router ...` made the name the program and the real router its arguments."""
    scratch_git.write("run.sh", SERVERS + """\
docker rm -f sglang-router
docker logs --tail 15 sglang-router
docker run -d --name sglang-router --network host lmsysorg/sglang:v0.5.9 python3 -m sglang_router.launch_router \\
  --pd-disaggregation --prefill http://localhost:30000 --decode http://localhost:30001
kubectl logs sglang-router
systemctl restart sglang-router
journalctl -u sglang-router -f
helm install sglang-router ./charts/router
kubectl rollout restart deployment/sglang-router
""")
    code, report = scratch_git.lint("run.sh")
    assert report["findings"] == [] and code == 0
    (router,) = [l for l in report["launches"] if l["kind"] == "router"]
    assert router["entrypoint"] == "python -m sglang_router.launch_router" and router["line"] == 5


ROUTED = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 &
python3 -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 &
ROUTER
"""


def _coverage(scratch_git, router):
    scratch_git.write("run.sh", ROUTED.replace("ROUTER", router))
    code, report = scratch_git.lint("run.sh")
    return report["coverage"]


def test_a_router_whose_options_no_table_judges_is_said_so(scratch_git, capsys):
    """vllm-router's options (a clap binary: an unknown one stops it) have no table: the router was counted as
    checked with nothing said (field test rw20/f: `--bogus-router-flag` passed)."""
    cov = _coverage(scratch_git, "vllm-router --port 8000 --prefill http://127.0.0.1:30000 "
                                 "--decode http://127.0.0.1:30001 --bogus-router-flag 1")
    assert (cov["routers"], cov["routers_options_unchecked"]) == (1, 1)
    from pdlint.cli import main
    main(["--no-cache", "run.sh"])
    assert "1 router; its options not checked: pdlint has no table of them" in capsys.readouterr().out


def test_sglang_routers_options_are_judged(scratch_git):
    cov = _coverage(scratch_git, "python3 -m sglang_router.launch_router --pd-disaggregation "
                                 "--prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001")
    assert (cov["routers"], cov["routers_options_unchecked"]) == (1, 0)
