"""Slurm / PBS / LSF / SGE job files named `*.job`, `*.run` or `*.sub` (field test rw17/n, P2: a PBS script
`run.job` with `#!/bin/bash`, `#PBS` lines and a `trtllm-serve` launch was passed by without a word in a directory
scan - not even counted - while the same file named alone was PD020).  Those suffixes are generic (`.sub` subtitles,
`.run` self-extracting installers), so a file of them is read as a shell script only when its first 4 KB say so,
and a directory scan and a named file (pre-commit) agree."""

import pytest

LAUNCH = ("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
          "--disaggregation-transfer-backend fake")

HEADS = {
    "shebang": "#!/bin/bash\n#PBS -l select=1\n",
    "sbatch": "#SBATCH --nodes=1\n#SBATCH --gres=gpu:8\n",
    "pbs": "#PBS -l select=2:ngpus=4\n",
    "bsub": "#BSUB -n 8\n",
    "sge": "#$ -l gpu=1\n",
    "env-shebang": "#!/usr/bin/env bash\n",
}


@pytest.mark.parametrize("head,name", list(zip(sorted(HEADS), ["run.job", "serve.run", "train.sub", "RUN.JOB",
                                                                  "pd.job", "pd.sub"])))
def test_a_batch_script_with_a_generic_suffix_is_read_as_a_script(scratch_git, name, head):
    scratch_git.write(name, HEADS[head] + LAUNCH + " &\n")
    line = HEADS[head].count("\n") + 1
    for args in ((".",), ("--", name)):  # a directory scan, and the file named (pre-commit)
        code, out = scratch_git.lint(*args)
        assert [(f["path"], f["line"], f["code"]) for f in out["findings"]] == [(name, line, "SGL104")], args
        assert (code, out["files"]) == (1, 1)
    scratch_git.write(name, HEADS[head] + LAUNCH.replace("fake", "mooncake") + " &\n")
    for args in ((".",), ("--", name)):
        code, out = scratch_git.lint(*args)
        assert (code, out["findings"], [la["role"] for la in out["launches"]]) == (0, [], ["prefill"]), args


def test_the_header_is_found_after_a_comment_block_but_only_in_the_first_4_kb(scratch_git):
    scratch_git.write("a.job", "# " + "x" * 60 + "\n" + "# notes\n" * 50 + "#SBATCH -N 1\n" + LAUNCH + " &\n")
    scratch_git.write("b.job", "# notes\n" * 600 + "#SBATCH -N 1\n" + LAUNCH + " &\n")
    code, out = scratch_git.lint(".")
    assert sorted((f["path"], f["code"]) for f in out["findings"]) == [("a.job", "SGL104"), ("b.job", "PD020")]


@pytest.mark.parametrize("name", ["run.job", "train.sub"])
def test_other_text_of_those_suffixes_with_launch_text_is_pd020_in_both_modes(scratch_git, name):
    # a Python batch script (Slurm runs any interpreter): not read as shell, its launch text not passed by
    scratch_git.write(name, "#!/usr/bin/env python3\n#SBATCH -N 1\nimport os\nos.system('" + LAUNCH + "')\n")
    for args in ((".",), ("--", name)):
        code, out = scratch_git.lint(*args)
        assert [(f["path"], f["code"]) for f in out["findings"]] == [(name, "PD020")], args
        assert "in a file kind pdlint does not read" in out["findings"][0]["message"]


def test_subtitles_installers_binary_and_large_files_are_not_read(scratch_git, tmp_path):
    scratch_git.write("movie.sub", "{1}{100}Hello, vllm and sglang\n{101}{200}prefill, decode\n")
    scratch_git.write("setup.run", "#!/bin/sh\n# This script was generated using Makeself 2.4.5\n"
                      "# vllm sglang prefill\n" + LAUNCH + "\nexit 0\n")
    (tmp_path / "blob.run").write_bytes(b"#!/bin/sh\n" + LAUNCH.encode() + b"\nexit 0\n\0\x89PNG\xff\xfe" * 10)
    scratch_git.write("big.job", "#!/bin/bash\n" + LAUNCH + " &\n" + "# pad\n" * 50_000)  # > 256 KB
    scratch_git.write("empty.sub", "")
    code, out = scratch_git.lint(".")
    assert (code, out["files"], out["findings"]) == (0, 0, [])
    for name in ("movie.sub", "setup.run", "blob.run", "big.job", "empty.sub"):
        code, out = scratch_git.lint("--", name)
        assert (code, out["findings"]) == (0, []), name


def test_a_non_script_without_launch_text_is_not_listed(scratch_git):
    scratch_git.write("notes.job", "queue: gpu\nnodes: 2\n")
    scratch_git.write("serve.sh", "#!/bin/bash\n" + LAUNCH.replace("fake", "mooncake") + " &\n")
    code, out = scratch_git.lint(".")
    assert (code, out["files"], out["findings"]) == (0, 1, [])
