"""Deploy formats pdlint does not read - Jupyter notebooks, Terraform / Nomad HCL, Jsonnet, CUE, Nix, PowerShell
and batch files, Jenkins and Tilt files - are listed by a directory scan when they hold launch text, which is
reported as unchecked (PD020): before, a notebook's `!python -m sglang.launch_server` cell and a Nomad job's args
passed with "0 errors", not even counted among the files.  (systemd units are read since: tests/test_systemd.py.)"""

import json

import pytest

LAUNCH = ("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
          "--disaggregation-transfer-backend fake")

FILES = {
    "nb.ipynb": json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                       "source": ["!" + LAUNCH + " &\n"]}],
                            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
    "job.nomad.hcl": 'job "pd" {\n  task "prefill" {\n    config {\n      args = ["-c", "' + LAUNCH + '"]\n    }\n  }\n}\n',
    "main.tf": 'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      args = ["' + LAUNCH + '"]\n    }\n  }\n}\n',
    "pd.jsonnet": "{ args: ['" + LAUNCH + "'] }\n",
    "pd.nix": "{ serviceConfig.ExecStart = \"" + LAUNCH + "\"; }\n",
    "run.ps1": LAUNCH + "\n",
    "Jenkinsfile": "pipeline { stages { stage('x') { steps { sh '" + LAUNCH + "' } } } }\n",
    "Tiltfile": "local_resource('prefill', serve_cmd='" + LAUNCH + "')\n",
    "values.yaml.gotmpl": "prefill:\n  args: {{ .Values.prefillArgs | default \"" + LAUNCH + "\" }}\n",
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_launch_text_in_a_deploy_format_pdlint_does_not_read_is_pd020(scratch_git, name):
    scratch_git.write(name, FILES[name])
    _, out = scratch_git.lint(".")
    (f,) = out["findings"]
    assert (f["code"], f["path"]) == ("PD020", name)
    assert "in a file kind pdlint does not read" in f["message"]


def test_those_kinds_without_launch_text_are_not_reported(scratch_git):
    scratch_git.write("main.tf", 'resource "null_resource" "x" {}\n')
    scratch_git.write("nb.ipynb", json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    code, out = scratch_git.lint(".")
    assert code == 0 and out["findings"] == []


def test_a_copy_to_fill_in_is_read_as_the_file_it_copies(scratch_git):
    """tobrun/vllm-server's start_model.sh.example and a docker-compose.yml.example (field test rw14/h): a
    directory scan skipped them ('No files to check'); named, the compose file was an SGL101 error."""
    scratch_git.write("start_prefill.sh.example", "#!/bin/bash\n" + LAUNCH + "\n")
    scratch_git.write("docker-compose.yml.example", "services:\n  prefill:\n    image: lmsysorg/sglang:v0.5.23\n"
                      "    command: " + LAUNCH.replace("fake", "mooncake") + " --enable-linear-replayssm-spec\n")
    scratch_git.write("notes.txt.example", LAUNCH + "\n")  # a kind pdlint does not scan, copied or not
    code, out = scratch_git.lint(".")
    assert sorted((f["path"], f["code"]) for f in out["findings"]) == [
        ("docker-compose.yml.example", "SGL101"), ("start_prefill.sh.example", "SGL104")]
    assert code == 1


@pytest.mark.parametrize("name", ["serve.pbs", "serve.qsub", "serve.lsf", "serve.bsub", "serve.zsh", "serve.ksh"])
def test_batch_job_and_other_shell_scripts_are_read_as_scripts(scratch_git, name):
    """PBS (ALCF's Polaris, NCAR's Derecho) and LSF job scripts start servers as Slurm's do, and zsh / ksh scripts
    run the same command lines: a directory scan passed them by, not even counted among the files."""
    scratch_git.write(name, "#!/bin/bash\n#PBS -l select=1\n" + LAUNCH + " &\n")
    code, out = scratch_git.lint(".")
    assert [(f["path"], f["line"], f["code"]) for f in out["findings"]] == [(name, 3, "SGL104")]
    assert code == 1
    scratch_git.write(name, "#!/bin/bash\n#PBS -l select=1\n" + LAUNCH.replace("fake", "mooncake") + " &\n")
    code, out = scratch_git.lint(".")
    assert (code, out["findings"], [la["role"] for la in out["launches"]]) == (0, [], ["prefill"])
