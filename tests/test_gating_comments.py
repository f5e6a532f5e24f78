"""A file named in a comment is not read by the file the comment is in (discover._references).

SemiAnalysisAI/InferenceX's benchmark_lib.sh says "(from job.slurm)" in a comment; "from" is one of the words
that make a mention a reference, so a pre-commit run of a file job.slurm names pulled in benchmark_lib.sh and
then the 224 scripts that source it: 250 files and 44 s for one changed script.
"""

import os
import subprocess

import pytest

from pdlint.discover import discover, expand_units


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def unit_of(repo, named: str, files: dict) -> list:
    for rel, text in files.items():
        (repo / rel).write_text(text)
    jobs, _ = discover([named], os.getcwd(), lambda p: False)
    return [j.display for j in expand_units(jobs, os.getcwd())]


LIB = "# Export the metadata (from job.slurm) for the summary.\nsummary() { echo done; }\n"
BENCH = "source lib.sh\npython3 -m sglang.launch_server --tp 2 &\nsummary\n"


def test_a_name_in_a_comment_brings_in_nothing(repo):
    got = unit_of(repo, "job.slurm", {"job.slurm": "bash bench.sh\n", "lib.sh": LIB, "bench.sh": BENCH,
                                      "other.sh": BENCH})
    assert got == ["job.slurm"]


def test_a_name_before_a_comment_still_counts(repo):
    got = unit_of(repo, "lib.sh", {"lib.sh": LIB, "bench.sh": "source lib.sh  # from the library\n"
                                   "python3 -m sglang.launch_server --tp 2 &\n"})
    assert got == ["bench.sh", "lib.sh"]


def test_a_jinja_comment_brings_in_nothing_and_an_include_does(repo):
    files = {"flags.j2": "--tp 2\n", "a.sh.j2": "{# flags come from flags.j2 #}\npython3 -m sglang.launch_server\n",
             "b.sh.j2": "python3 -m sglang.launch_server {% include 'flags.j2' %}\n"}
    assert unit_of(repo, "flags.j2", files) == ["b.sh.j2", "flags.j2"]
