"""Field round rw5: launch text a directory scan passed by without a word, and template findings on templates
that launch nothing.

* hhhh1252023/pass ``tong/102sh``: a shell script with neither an extension nor a shebang holding a decode
  server launch was left out of a directory scan (no coverage entry, no PD020), while the same file named on the
  command line got PD020 and with a shebang was read as a script (pdlint.discover._unnamed_kind).
* littlemex/disaggregated-inference-with-nixl-over-aws-efa ``experiments/templates/*.json.jinja2``: JSON task
  templates for iperf3 & co. with no launch text got 291 PD005 errors in 17 files; a template that may not
  launch now gets neither PD005 nor PD006 (pdlint.extract._may_launch).
"""

import pytest

# tong/102sh, reduced: environment set-up, then the launch; its `--attention -backend` typo is a real error,
# and the flag value `1` broken onto the next line leaves `--moe-dense-tp-size` without one
NO_SHEBANG = """\
echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor
sysctl -w vm.swappiness=0
export SGLANG_SET_CPU_AFFINITY=1
source /usr/local/Ascend/ascend-toolkit/set_env.sh
export ASCEND_MF_STORE_URL="tcp://192.168.0.124:24666"

USE_VLLM_CUSTOM_ALLREDUCE=1 python -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 8001 --attention -backend ascend --moe-dense-tp-size
1 --disaggregation-transfer-backend ascend
"""


def found(doc) -> list:
    return sorted((f["path"], f["line"], f["code"]) for f in doc["findings"])


@pytest.mark.parametrize("args", [["."], ["tong/102sh"]])
def test_a_script_without_extension_or_shebang_is_read_as_a_script(scratch_git, args):
    # walked it was not listed at all; named it was a PD020 "file kind pdlint does not read"
    scratch_git.write("tong/102sh", NO_SHEBANG)
    code, doc = scratch_git.lint(*args)
    assert code == 1
    assert found(doc) == [("tong/102sh", 7, "SGL001"), ("tong/102sh", 7, "SGL002"), ("tong/102sh", 7, "SGL003"),
                          ("tong/102sh", 8, "PD020")]
    assert doc["coverage"]["files"]["tong/102sh"]["status"] == "partial"


def test_it_is_read_as_the_same_script_with_a_shebang(scratch_git):
    scratch_git.write("a/102sh", NO_SHEBANG)
    scratch_git.write("b/102sh", "#!/bin/bash\n" + NO_SHEBANG)
    code, doc = scratch_git.lint(".")
    by = {}
    for path, line, rule in found(doc):
        by.setdefault(path, []).append((line, rule))
    assert by["b/102sh"] == [(line + 1, rule) for line, rule in by["a/102sh"]]


# text with launch text that is no clean shell script: pdlint does not guess; PD020, as when it is named
NOT_SHELL = {
    # a JSON line in it (YAML and JSON parse as shell commands too)
    "run/serve": "python3 -m sglang.launch_server --disaggregation-mode prefill --kv-transfer-config '{\n"
                 "  \"kv_connector\": \"x\"}'\n",
    # no clean parse: a parenthesis in a note
    "notes/cmds": "prefill (node 1):\npython3 -m sglang.launch_server --disaggregation-mode prefill\n",
    # another tool's file
    "Jenkinsfile": "sh 'python3 -m sglang.launch_server --disaggregation-mode prefill'\n",
}


@pytest.mark.parametrize("name", sorted(NOT_SHELL))
def test_launch_text_in_an_extensionless_file_that_is_no_script_is_pd020_walked_as_named(scratch_git, name):
    scratch_git.write(name, NOT_SHELL[name])
    for args in (["."], [name]):
        code, doc = scratch_git.lint(*args)
        assert (code, [(p, c) for p, _, c in found(doc)]) == (0, [(name, "PD020")]), args
        assert "in a file kind pdlint does not read" in doc["findings"][0]["message"]
        assert doc["coverage"]["files"][name]["status"] == "unchecked"


def test_the_pd020_of_an_extensionless_file_says_a_shebang_makes_it_read(scratch_git):
    scratch_git.write("notes/cmds", NOT_SHELL["notes/cmds"])
    scratch_git.write("Makefile", "serve:\n\t" + NOT_SHELL["notes/cmds"].splitlines()[1] + "\n")
    code, doc = scratch_git.lint(".")
    hints = {f["path"]: f["fix"] for f in doc["findings"]}
    assert hints["notes/cmds"].startswith("if it is a shell script, make `#!/bin/bash` its first line")
    assert "#!/bin/bash" not in hints["Makefile"]  # a kind the name tells


def test_an_extensionless_yaml_file_is_read_as_yaml_walked_as_named(scratch_git):
    # as a named file of a kind its name does not tell always was
    scratch_git.write("deploy/serve", "command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill, "
                                      "--tp, x]\n")
    for args in (["."], ["deploy/serve"]):
        code, doc = scratch_git.lint(*args)
        assert doc["coverage"]["files"]["deploy/serve"]["status"] == "checked", args
        assert "SGL005" in {f["code"] for f in doc["findings"]}, args


def test_extensionless_files_without_launch_text_binaries_and_documentation_are_not_listed(scratch_git):
    scratch_git.write("LICENSE", "Apache License\n")
    scratch_git.write("tools/notes", "decode the prefill numbers by hand\n")  # engine words, no launch text
    scratch_git.write("README", "Run python3 -m sglang.launch_server --disaggregation-mode prefill\n")
    (scratch_git.root / "bin").mkdir()
    (scratch_git.root / "bin" / "serve").write_bytes(
        b"\x7fELF\x02\x01\x01\x00\x00python -m sglang.launch_server --disaggregation-mode prefill\n")
    scratch_git.write("launch.sh", "#!/bin/sh\necho hi\n")
    code, doc = scratch_git.lint(".")
    assert (code, doc["findings"], sorted(doc["coverage"]["files"])) == (0, [], ["launch.sh"])


# -- PD005 on a template that may not launch -------------------------------------------------------------------

# littlemex/disaggregated-inference-with-nixl-over-aws-efa experiments/templates/*.json.jinja2, reduced
IPERF = """\
{
  "name": "Phase {{ phase }}: iperf3 baseline",
  "variables": {"PORT": "5201", "OUT": "/tmp/results/{{ pattern_id }}.json"},
  "tasks": [{"id": "01", "commands": ["iperf3 -c $NODE2_PRIVATE -p 5201 -J > /tmp/results/{{ pattern_id }}.json"]}]
}
"""


def test_a_template_without_launch_text_gets_no_undefined_variable(scratch_git):
    # it was 3 `PD005 error: undefined variable` and exit 1, under "No launch text found in 1 file."
    scratch_git.write("templates/iperf.json.jinja2", IPERF)
    for args in (["."], ["templates/iperf.json.jinja2"]):
        code, doc = scratch_git.lint(*args)
        assert (code, doc["findings"]) == (0, []), args


LAUNCH_TASK = IPERF.replace("iperf3 -c $NODE2_PRIVATE -p 5201 -J > /tmp/results/{{ pattern_id }}.json",
                            "vllm serve /m --port 8100 --kv-transfer-config {{ kv_config }}")


def test_a_template_with_launch_text_keeps_its_undefined_variables(scratch_git):
    scratch_git.write("templates/vllm.json.jinja2", LAUNCH_TASK)
    code, doc = scratch_git.lint(".")
    assert code == 1
    assert [(line, c) for _, line, c in found(doc) if c == "PD005"] == [(2, "PD005"), (3, "PD005"), (4, "PD005")]


def test_undefined_variables_stay_where_a_launch_may_come_from_elsewhere(scratch_git):
    # an include may hold the launch; a value given for one variable may put launch text in the render
    scratch_git.write("inc.json.jinja2", "{% include 'part.j2' %}\n" + IPERF)
    scratch_git.write("part.j2", "\n")
    scratch_git.write("var.json.jinja2", '{"cmd": "{{ cmd }}", "name": "{{ phase }}"}\n')
    code, doc = scratch_git.lint("--var", "cmd=python3 -m sglang.launch_server", "inc.json.jinja2",
                                 "var.json.jinja2")
    assert {p for p, _, c in found(doc) if c == "PD005"} == {"inc.json.jinja2", "var.json.jinja2"}


def test_a_syntax_error_in_a_template_without_launch_text_is_still_reported(scratch_git):
    scratch_git.write("templates/iperf.json.jinja2", IPERF + "{% for x in y %}\n")
    code, doc = scratch_git.lint(".")
    assert (code, found(doc)) == (1, [("templates/iperf.json.jinja2", 6, "PD004")])


@pytest.mark.parametrize("name,text", [
    ("run.sh.j2", "{{ launcher }} --port 8000\n"),  # a script by its name: its command is a variable
    ("job.j2", "#!/bin/bash\nsrun {{ cmd }}\n"),  # a script by its shebang
    ("pod.json.jinja2", '{\n  "containers": [{\n    "command": ["{{ cmd }}"]}]}\n'),  # a manifest in JSON
])
def test_undefined_variables_stay_where_a_command_may_come_from_one(scratch_git, name, text):
    scratch_git.write(name, text)
    code, doc = scratch_git.lint(".")
    assert "PD005" in {c for _, _, c in found(doc)}


def test_a_template_for_other_delimiters_gets_no_syntax_error(scratch_git):
    """THUDM/slime renders its workflow templates with `<% %>` / `<< >>` and keeps GitHub's `${{ a || b }}`
    (field test rw13/e): Jinja's parser stopped at `||`, a PD004 error on a file without launch text."""
    scratch_git.write(".github/workflows/pr-test.yml.j2", "name: PR Test\nconcurrency:\n"
                      "  group: ${{ github.workflow }}-${{ github.event.pull_request.number || github.ref }}\n"
                      "jobs:\n<% for job in jobs %>\n  << job.name >>:\n    runs-on: ubuntu-latest\n<% endfor %>\n")
    code, doc = scratch_git.lint(".")
    assert (code, found(doc)) == (0, [])
