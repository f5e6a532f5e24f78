"""``docker run ... --entrypoint PROG ... IMAGE ARGS`` runs ``PROG ARGS`` in the container (launchers
._entrypoint_match).

Field test: whn09/kimi-k3-sglang ``22_launch_router.sh`` starts ``sglang_router.launch_router --pd-disaggregation``
as ``docker run --entrypoint python3 IMAGE -m ...``: pdlint said "`docker` is not a launcher pdlint knows" (PD020)
and checked nothing; the same file with ``python3`` after the image gave three errors."""

LAUNCH = """\
    #!/bin/bash
    docker run -d --name prefill --net=host --entrypoint python3 lmsysorg/sglang:v0.5.9 \\
        -m sglang.launch_server --model-path Qwen/Qwen3-8B \\
        --disaggregation-mode prefill --disaggregation-transfer-backend mooncake
    docker run -d --name decode --net=host --entrypoint python3 lmsysorg/sglang:v0.5.9 \\
        -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 \\
        --disaggregation-mode decode --disaggregation-transfer-backend nixl
    docker run -d --name router --net=host --entrypoint python3 lmsysorg/sglang:v0.5.9 \\
        -m sglang_router.launch_router --pd-disaggregation \\
        --prefill http://127.0.0.1:30000 8998 --decode http://127.0.0.1:30001
    """


def test_servers_behind_an_entrypoint_python_are_checked(scratch_git):
    scratch_git.write("launch.sh", LAUNCH)
    code, report = scratch_git.lint("launch.sh")
    assert sorted((l["role"], l["line"]) for l in report["launches"] if l["role"]) == [("decode", 5), ("prefill", 2)]
    assert [l["kind"] for l in report["launches"]].count("router") == 1
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL805", 7)]
    assert code == 1


def test_an_entrypoint_vllm_serve(scratch_git):
    scratch_git.write("v.sh", """\
        docker run --gpus all --entrypoint vllm vllm/vllm-openai:v0.11.0 serve Qwen/Qwen3-8B \\
            --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        """)
    _, report = scratch_git.lint("v.sh")
    assert [(l["engine"], l["role"]) for l in report["launches"]] == [("vllm", "prefill")]


def test_an_entrypoint_shell_or_an_unknown_program_is_no_server(scratch_git):
    scratch_git.write("s.sh", """\
        docker run --entrypoint bash lmsysorg/sglang:v0.5.9 -c "echo --disaggregation-mode prefill"
        docker run --entrypoint /opt/start lmsysorg/sglang:v0.5.9 -m sglang.launch_server --disaggregation-mode decode
        """)
    _, report = scratch_git.lint("s.sh")
    assert [l for l in report["launches"] if l["kind"] == "server"] == []


ENTRY_SHELL = """\
    #!/usr/bin/env bash
    ROLE=${1:?need ROLE}
    case "$ROLE" in
        prefill) PORT=30000 ;;
        decode)  PORT=30001 ;;
    esac
    docker run -d --name "r1-pd-$ROLE" --gpus all --network host \\
        --entrypoint bash lmsysorg/sglang:v0.5.9 -c "
            python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \\
                --disaggregation-mode ${ROLE} --port ${PORT} --page-size 64 --chunked-prefill-size 8192
        "
    """


def test_an_entrypoint_shell_runs_its_dash_c_script(scratch_git):
    """`docker run --entrypoint bash IMAGE -c "<launch>"` (an AWS DeepSeek-R1 PD-over-EFA serve-pd.sh): the
    container's bash runs the string, as with `IMAGE bash -c`.  It was PD020 "`docker` is not a launcher"."""
    scratch_git.write("serve.sh", ENTRY_SHELL)
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0
    assert sorted((l["role"], l["context"].split(",")[0]) for l in report["launches"]) == [
        ("decode", "bash -c at line 8"), ("prefill", "bash -c at line 8")]


def test_an_entrypoint_shell_launch_is_judged_against_the_image(scratch_git):
    scratch_git.write("serve.sh", ENTRY_SHELL.replace("--page-size 64", "--page-size 3").replace(
        "--entrypoint bash", "--entrypoint=/bin/sh"))
    _, report = scratch_git.lint("serve.sh")
    assert [(f["code"], f["role"], f["line"], "SGLang 0.5.9" in f["message"]) for f in report["findings"]] == [
        ("SGL103", "prefill", 10, True)]
