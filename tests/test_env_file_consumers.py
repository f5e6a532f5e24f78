"""A commit that changes only an environment file re-checks the Compose launches that read it (field test rw22/a,
repro 8: SGL805 was reported at `.env:2`, the backend written there, but `pdlint -- .env` - what the pre-commit hook
runs when only `.env` changed - said "No launch text found" and exited 0)."""

import pytest

COMPOSE = """\
    services:
      prefill:
        image: lmsysorg/sglang:v0.5.3
        env_file: pd.env
        command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode prefill --disaggregation-transfer-backend ${PREFILL_BACKEND}
      decode:
        image: lmsysorg/sglang:v0.5.3
        env_file: pd.env
        command: python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode decode --disaggregation-transfer-backend ${DECODE_BACKEND} --port 30001
    """


def _repo(scratch_git, decode):
    scratch_git.write("deploy/docker-compose.yml", COMPOSE)
    scratch_git.write("deploy/.env", f"PREFILL_BACKEND=nixl\nDECODE_BACKEND={decode}\n")
    scratch_git.write("deploy/pd.env", "NCCL_DEBUG=INFO\n")
    scratch_git.write("other/docker-compose.yml", COMPOSE.replace("${DECODE_BACKEND}", "mooncake"))


@pytest.mark.parametrize("decode, fires", [("mooncake", True), ("nixl", False)])
def test_a_named_dot_env_checks_the_compose_files_beside_it(scratch_git, decode, fires):
    _repo(scratch_git, decode)
    code, doc = scratch_git.lint("deploy/.env")
    assert [(f["code"], f["path"], f["line"]) for f in doc["findings"]] == \
        ([("SGL805", "deploy/.env", 2)] if fires else [])
    assert code == int(fires)
    # only the Compose files of its own directory: other/'s mismatch is not this commit's
    assert sorted({l["path"] for l in doc["launches"]}) == ["deploy/docker-compose.yml"]


def test_an_env_file_named_by_env_file_checks_them_too(scratch_git):
    _repo(scratch_git, "mooncake")
    code, doc = scratch_git.lint("deploy/pd.env")
    assert sorted({l["path"] for l in doc["launches"]}) == ["deploy/docker-compose.yml"]


def test_an_unrelated_file_brings_no_compose_file(scratch_git):
    _repo(scratch_git, "mooncake")
    scratch_git.write("deploy/notes.txt", "hello\n")
    code, doc = scratch_git.lint("deploy/notes.txt")
    assert doc["launches"] == [] and code == 0
