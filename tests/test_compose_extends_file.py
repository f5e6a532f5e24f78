"""Compose ``extends: {file: PATH, service: NAME}`` (``compose._layers``).

Stop 42 left it open: only ``extends`` within one file was read, so a service inheriting its entry point from a
base Compose file (``extends: {file: base/common.yml, service: sglang}``, ``command: [--disaggregation-mode, prefill]``)
lost the launcher - its role flag was PD020 "not a launcher pdlint knows" and the shared refused flag in the base was
never checked per role; a base file outside the repository said nothing.  Now the other file is read (inside the
repository; its own relative paths relative to its directory), and one outside is PD014."""

BASE = """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    env_file: sgl.env
    entrypoint: [python3, -m, sglang.launch_server, --model-path, m, --enable-linear-replayssm-spec]
"""

COMPOSE = """\
services:
  prefill:
    extends:
      file: FILE
      service: sglang
    command: [--disaggregation-mode, prefill]
  decode:
    extends: {file: FILE, service: sglang}
    command: [--disaggregation-mode, decode]
"""


def _found(report):
    return sorted((f["code"], f["path"], f["line"], f.get("role")) for f in report["findings"])


def test_a_service_inherits_from_another_compose_file(scratch):
    scratch.write("base/common.yml", BASE)
    scratch.write("base/sgl.env", "SGLANG_ENABLE_JIT_DEEPGEMM=1\n")
    scratch.write("docker-compose.yml", COMPOSE.replace("FILE", "base/common.yml"))
    code, report = scratch.lint("docker-compose.yml")
    assert ("SGL101", "base/common.yml", 5, "prefill") in _found(report)
    launches = [l for l in report["launches"] if l["path"] == "docker-compose.yml"]
    assert sorted(l["role"] for l in launches) == ["decode", "prefill"]
    assert all(l["entrypoint"] == "python -m sglang.launch_server" for l in launches)
    assert code == 1


def test_the_base_files_env_file_is_read_beside_it(scratch):
    # the env_file of the base is relative to the base's directory: read there (not beside docker-compose.yml)
    scratch.write("base/sgl.env", "SGL_FLAG=--enable-linear-replayssm-spec\n")
    scratch.write("docker-compose.yml", COMPOSE.replace("FILE", "base/common.yml").replace(
        "command: [--disaggregation-mode, prefill]", "environment: {ROLE: prefill}").replace(
        "command: [--disaggregation-mode, decode]", "environment: {ROLE: decode}"))
    scratch.write("base/common.yml", """\
services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    env_file: sgl.env
    command: [sh, -c, 'python3 -m sglang.launch_server --model-path m --disaggregation-mode $$ROLE $$SGL_FLAG']
""")
    _, report = scratch.lint("docker-compose.yml")
    assert ("SGL101", "base/sgl.env", 1, "prefill") in _found(report)


def test_a_base_outside_the_repository_is_said(scratch):
    scratch.write("docker-compose.yml", COMPOSE.replace("FILE", "../outside.yml"))
    _, report = scratch.lint("docker-compose.yml")
    pd014 = [f for f in report["findings"] if f["code"] == "PD014"]
    assert [(f["line"], f["column"]) for f in pd014] == [(4, 13)]
    assert "extends file ../outside.yml" in pd014[0]["message"] and "service fields" in pd014[0]["message"]


def test_an_extends_cycle_across_files_ends(scratch):
    scratch.write("a.yml", "services:\n  x:\n    extends: {file: b.yml, service: y}\n")
    scratch.write("b.yml", "services:\n  y:\n    extends: {file: a.yml, service: x}\n"
                           "    command: [python3, -m, sglang.launch_server, --model-path, m]\n")
    code, report = scratch.lint("a.yml", "b.yml")
    assert code == 0 and report["findings"] == []


def test_an_aggregated_server_sharing_the_line_is_named_other(scratch):
    # the base file's own service is an aggregated server: "other", not "null", in the shared-line message
    scratch.write("base/common.yml", BASE)
    scratch.write("base/sgl.env", "")
    scratch.write("docker-compose.yml", COMPOSE.replace("FILE", "base/common.yml"))
    _, report = scratch.lint(".")
    (f,) = [f for f in report["findings"] if f["code"] == "SGL101"]
    assert "(decode and other and prefill)" in f["message"] and "null" not in f["message"]
