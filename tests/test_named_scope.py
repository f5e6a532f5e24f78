"""A pre-commit run names the changed files; pdlint also checks the files whose launches read them
(`source lib.sh`, a values file, an include). Of those files' findings it reports what involves a named
file (SemiAnalysisAI/InferenceX: `pdlint check benchmarks/benchmark_lib.sh` reported findings in 185 other
scripts, most on lines that do not use the library)."""

import pytest

LIB = "#!/bin/bash\nstart() { python3 -m sglang.launch_server --model-path m \"$@\"; }\n"
USES = "#!/bin/bash\nsource lib.sh\nstart --disaggregation-mode prefill --enable-linear-replayssm-spec\n"
UNRELATED = "#!/bin/bash\nsource lib.sh\npython3 -m sglang.launch_server --model-path m --no-such-flag\n"


@pytest.fixture
def repo(scratch_git):
    scratch_git.write("lib.sh", LIB)
    scratch_git.write("a.sh", USES)
    scratch_git.write("other.sh", UNRELATED)
    return scratch_git


def _found(report):
    return sorted((f["path"], f["code"]) for f in report["findings"])


@pytest.mark.parametrize("extra", [[], ["--jobs", "2"]])
def test_naming_a_library_reports_what_its_launches_do(repo, capsys, extra):
    code, report = repo.lint(*extra, "lib.sh")
    assert ("a.sh", "SGL101") in _found(report)  # a launch through lib.sh's function
    assert ("other.sh", "SGL001") not in _found(report)  # other.sh's own launch
    assert code == 1


def test_the_left_out_count_is_said(repo, capsys):
    from pdlint.cli import main
    assert main(["--no-cache", "lib.sh"]) == 1
    err = capsys.readouterr().err
    assert "1 finding in files checked because their launches read or pair with a named file was left out" in err


def test_with_the_result_cache(repo, capsys):
    from pdlint.cli import main
    for _ in range(2):  # the second run from the cache
        assert main(["lib.sh"]) == 1
        out, err = capsys.readouterr()
        assert "a.sh:3:" in out and "other.sh" not in out and "1 finding" in err


def test_named_files_keep_all_their_findings(repo):
    _, report = repo.lint("lib.sh", "other.sh")
    assert ("other.sh", "SGL001") in _found(report)
    _, report = repo.lint(".")  # a directory: every file's findings
    assert {p for p, _ in _found(report)} >= {"a.sh", "other.sh"}
