"""The Compose override file (``compose.DEFAULT_FILES`` / ``compose.OVERRIDE_FILES``).

``docker compose up`` without ``-f`` reads the project file of its directory and merges the first override file
beside it (``docker-compose.override.yml``) over it.  Stop 42 left it open: pdlint read the override file as a
Compose file of its own - a service it only changes was a launch without the project file's image, flags or
environment, and never paired with the project's other role (a prefill page size the override sets, against the
project's decode, was silent).  Now the project file is checked as written and merged with its override file, each
its own deployment, and the override file has no launch of its own."""

import subprocess

BASE = """\
services:
  prefill:
    image: lmsysorg/sglang:v0.5.23
    environment:
      EXTRA: ""
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30001
  decode:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30002 --base-gpu-id 1
"""

PAGE_SIZE = """\
services:
  prefill:
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30001 --page-size 64
"""


def _found(report):
    return sorted((f["code"], f["path"], f["line"], f.get("role")) for f in report["findings"])


def test_the_override_is_paired_with_the_project_it_merges_over(scratch):
    scratch.write("docker-compose.yml", BASE)
    scratch.write("docker-compose.override.yml", PAGE_SIZE)
    code, report = scratch.lint(".")
    sgl802 = [f for f in report["findings"] if f["code"] == "SGL802"]
    assert [(f["path"], f["line"]) for f in sgl802] == [("docker-compose.yml", 9)]
    assert [(r["path"], r["line"]) for r in sgl802[0]["related"]] == [("docker-compose.override.yml", 3)]
    # the project as written, and merged: two deployments of two launches, none of the override file's own
    assert sorted((l["path"], l["role"], l["unit"]) for l in report["launches"]) == [
        ("docker-compose.yml", "decode", "docker-compose.yml#compose"),
        ("docker-compose.yml", "decode", "docker-compose.yml#compose+docker-compose.override.yml"),
        ("docker-compose.yml", "prefill", "docker-compose.yml#compose"),
        ("docker-compose.yml", "prefill", "docker-compose.yml#compose+docker-compose.override.yml")]
    merged = [l for l in report["launches"] if l["unit"].endswith("override.yml") and l["role"] == "prefill"][0]
    assert merged["line"] == 2  # the service's name: its command is written in the override file
    assert "merged with docker-compose.override.yml" in merged["context"]


def test_without_an_override_the_project_pairs_quietly(scratch):
    scratch.write("docker-compose.yml", BASE)
    scratch.write("docker-compose.prod.yml", PAGE_SIZE)  # not an override file Compose reads on its own
    _, report = scratch.lint("docker-compose.yml")
    assert _found(report) == []
    assert len(report["launches"]) == 2


def test_the_override_keeps_the_project_files_fields_it_does_not_set(scratch):
    # an override that sets only the environment: the project file's command runs with it
    scratch.write("docker-compose.yml", BASE.replace(
        "command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30001",
        "command: sh -c 'python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill $$EXTRA'"))
    scratch.write("docker-compose.override.yml", """\
services:
  prefill:
    environment:
      EXTRA: --enable-linear-replayssm-spec
""")
    code, report = scratch.lint(".")
    assert ("SGL101", "docker-compose.override.yml", 4, "prefill") in _found(report)
    assert code == 1


def test_a_service_only_the_override_has_is_the_projects(scratch):
    scratch.write("compose.yaml", BASE)
    scratch.write("compose.override.yaml", """\
services:
  prefill-2:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --enable-linear-replayssm-spec
""")
    code, report = scratch.lint(".")
    assert ("SGL101", "compose.override.yaml", 4, "prefill") in _found(report)
    assert {l["path"] for l in report["launches"]} == {"compose.yaml"}


def test_only_the_project_file_compose_picks_gets_the_override(scratch):
    # compose.yaml wins over docker-compose.yml; the override is merged over compose.yaml only
    scratch.write("compose.yaml", BASE)
    scratch.write("docker-compose.yml", BASE)
    scratch.write("docker-compose.override.yml", PAGE_SIZE)
    _, report = scratch.lint(".")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("SGL802", "compose.yaml")]


def test_an_override_file_with_no_project_file_is_a_compose_file_of_its_own(scratch):
    scratch.write("docker-compose.override.yml", BASE.replace("--port 30001", "--port 30001 --page-size 64"))
    _, report = scratch.lint(".")
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"]] == [
        ("SGL802", "docker-compose.override.yml", 9)]
    assert {l["unit"] for l in report["launches"]} == {"docker-compose.override.yml#compose"}


def test_an_unreadable_override_leaves_the_project_checked_as_written(scratch):
    scratch.write("docker-compose.yml", BASE)
    scratch.write("docker-compose.override.yml", "services: [\n")
    code, report = scratch.lint(".")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("PD003", "docker-compose.override.yml")]
    assert {l["unit"] for l in report["launches"]} == {"docker-compose.yml#compose"}


def test_the_hook_naming_the_override_checks_the_project(scratch_git):
    scratch_git.write("docker-compose.yml", BASE)
    scratch_git.write("docker-compose.override.yml", PAGE_SIZE)
    subprocess.run(["git", "add", "-A"], cwd=scratch_git.root, check=True)
    _, report = scratch_git.lint("--", "docker-compose.override.yml")
    assert [(f["code"], f["path"], f["line"]) for f in report["findings"]] == [("SGL802", "docker-compose.yml", 9)]
