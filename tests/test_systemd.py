"""systemd units: each ``ExecStart=`` of ``[Service]`` is a launch, with the unit's ``Environment=`` (field test
rw14/h: vLLM is often run from a unit, written directly or as an Ansible ``*.service.j2`` template; those passed
as "No launch text found" or as PD020 in a file kind pdlint does not read)."""

from pdlint.formats import systemd
from pdlint.text import SourceFile, TStr

UNIT = """\
[Unit]
Description=vLLM ROLE
# ExecStart=/opt/venv/bin/vllm serve commented-out --no-such-flag

[Service]
Environment="MODEL=meta-llama/Llama-3.1-8B-Instruct" PORT=PORTNUM
Environment=CUDA_VISIBLE_DEVICES=GPU
ExecStart=/opt/venv/bin/vllm serve ${MODEL} --port $PORT \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"KV_R"}'EXTRA
Restart=always

[Install]
WantedBy=multi-user.target
"""


def _unit(role="prefill", extra="", model=None):
    prefill = role == "prefill"
    text = (UNIT.replace("KV_R", "kv_producer" if prefill else "kv_consumer").replace("ROLE", role)
            .replace("PORTNUM", "8100" if prefill else "8200").replace("GPU", "0" if prefill else "1")
            .replace("EXTRA", extra))
    return text.replace("Llama-3.1-8B-Instruct", model) if model else text


def _parse(text):
    return systemd.parse(TStr.from_source(SourceFile("u.service", text)))


def test_parse_reads_exec_start_and_environment():
    unit = _parse(_unit())
    [(cmd, line)] = unit.commands
    assert line == 8 and cmd.text.startswith("/opt/venv/bin/vllm serve ${MODEL} --port $PORT \\\n")
    assert {k: v.text for k, v in unit.env.items()} == {
        "MODEL": "meta-llama/Llama-3.1-8B-Instruct", "PORT": "8100", "CUDA_VISIBLE_DEVICES": "0"}
    assert unit.env["PORT"].origin.line == 6


def test_parse_prefixes_specifiers_and_reset():
    unit = _parse("[Service]\nExecStart=/usr/bin/true\nExecStart=\n"
                  "ExecStart=-@/opt/bin/vllm vllm-%i serve /models/%i --port 80%%\n"
                  "[Install]\nExecStart=/ignored\n")
    [(cmd, line)] = unit.commands
    assert line == 4 and cmd.text == "/opt/bin/vllm serve /models/%i --port 80%"
    at = len("/opt/bin/vllm serve /models/")
    assert cmd[at:at + 2].opaque and not cmd[:at].opaque and not cmd[at + 2:].opaque


def test_units_of_the_two_roles_are_checked_and_paired(scratch_git):
    scratch_git.write("deploy/vllm-prefill.service", _unit("prefill"))
    scratch_git.write("deploy/vllm-decode.service", _unit("decode"))
    code, report = scratch_git.lint(".")
    assert (code, report["findings"]) == (0, [])
    assert sorted((l["path"], l["role"], l["line"]) for l in report["launches"]) == [
        ("deploy/vllm-decode.service", "decode", 8), ("deploy/vllm-prefill.service", "prefill", 8)]
    assert sum(len(d["pairs"]) for d in report["pairs"]) == 1
    # a flag vLLM does not have, and a decode of another model
    scratch_git.write("deploy/vllm-prefill.service", _unit("prefill", extra=" --no-such-flag"))
    scratch_git.write("deploy/vllm-decode.service", _unit("decode", model="Llama-3.1-70B-Instruct"))
    code, report = scratch_git.lint(".")
    assert sorted((f["code"], f["path"], f["line"]) for f in report["findings"]) == [
        ("VLLM013", "deploy/vllm-decode.service", 6), ("VLLM018", "deploy/vllm-prefill.service", 9)]


def test_a_unit_template_is_rendered_then_read(scratch_git):
    """githubixx/ansible-collection-ai roles/vllm/templates/vllm.service.j2, cut down."""
    scratch_git.write("roles/vllm/templates/vllm.service.j2",
                      "[Service]\nExecStart={{ venv }}/bin/vllm serve {{ model }}"
                      "{% for a in args %} {{ a }}{% endfor %}\n")
    scratch_git.write("roles/vllm/defaults/main.yml",
                      "venv: /opt/vllm\nmodel: Qwen/Qwen3-8B\nargs:\n  - --max-model-lenn 8192\n")
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [
        ("VLLM018", "roles/vllm/defaults/main.yml")]
    assert "--max-model-len" in report["findings"][0]["message"]


def test_a_unit_that_starts_no_engine_is_quiet(scratch_git):
    scratch_git.write("mooncake.service", "[Service]\nExecStart=/usr/local/bin/mooncake_master --port 50051\n")
    code, report = scratch_git.lint(".")
    assert (code, report["findings"], report["launches"]) == (0, [], [])
