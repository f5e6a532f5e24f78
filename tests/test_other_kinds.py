"""Text files of kinds pdlint does not read (Python that builds an argv, JSON/TOML
configs, envsubst templates): a directory scan reports their launch text as unchecked (PD020), as a run that
names the file does, instead of passing them unseen."""

import pytest

PYTHON = '''
import subprocess

def start(role):
    cmd = ("python3 -m sglang.launch_server "
           "--model-path /m "
           f"--disaggregation-mode {role}")
    subprocess.Popen(cmd, shell=True)
'''

OTHERS = {
    "scripts/worker_setup.py": PYTHON,
    "deploy/pd.yaml.tmpl": "args: [--model-path, '${MODEL}', --disaggregation-mode, prefill]\n",
    "configs/kv.json": '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}\n',
}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_launch_text_in_another_text_kind_is_reported_by_a_directory_scan(scratch, name):
    scratch.write(name, OTHERS[name])
    for args in (["."], [name]):  # walked, and named (as the pre-commit hook names it)
        code, doc = scratch.lint(*args)
        found = [(f["path"], f["code"]) for f in doc["findings"]]
        assert found and set(found) == {(name, "PD020")}, args
        assert all("in a file kind pdlint does not read" in f["message"] for f in doc["findings"])
        assert doc["coverage"]["files"][name]["status"] == "unchecked"


def test_files_of_those_kinds_without_launch_text_are_not_scanned(scratch):
    scratch.write("setup.py", "from setuptools import setup\nsetup(name='x')\n")
    scratch.write("pyproject.toml", "[project]\nname = 'x'\n")
    scratch.write("package.json", '{"name": "x"}\n')
    scratch.write("launch.sh", "#!/bin/sh\necho hi\n")
    code, doc = scratch.lint(".")
    assert (code, doc["findings"], sorted(doc["coverage"]["files"])) == (0, [], ["launch.sh"])


def test_documentation_is_not_among_them(scratch):
    scratch.write("README.md", "Run `python3 -m sglang.launch_server --disaggregation-mode prefill`.\n")
    code, doc = scratch.lint(".")
    assert (code, doc["findings"]) == (0, [])


def test_a_walk_outside_git_skips_pdlints_own_cache(scratch):
    # the cache holds launch text (stored findings) in JSON: a second run must not scan it
    scratch.write(".pdlint_cache/docs/x.json", '{"message": "python -m sglang.launch_server --disaggregation-mode"}\n')
    scratch.write("launch.sh", "#!/bin/sh\necho hi\n")
    code, doc = scratch.lint(".")
    assert (code, doc["findings"], sorted(doc["coverage"]["files"])) == (0, [], ["launch.sh"])


def test_one_finding_for_a_file_of_another_kind_however_much_launch_text_it_holds(scratch):
    scratch.write("serve.py", PYTHON + "\n\n\n" + PYTHON.replace("start", "start_again"))
    code, doc = scratch.lint(".")
    assert [(f["line"], f["code"]) for f in doc["findings"]] == [(4, "PD020")]
    assert "on lines 4-17" in doc["findings"][0]["message"]
