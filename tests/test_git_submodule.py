"""A git submodule in a walked repository (field report rw29/h P6): `git ls-files` lists it as one path (a
gitlink), a directory, and the walk skipped it without a word - `pdlint check .` passed ("0 errors", exit 0) while
`pdlint check sub` reported the launch in it (SGL001). A pull request controls the submodule pointer, and CI
checks out with `submodules: true`. The walk stays in its repository and says which submodule it did not scan."""

import subprocess

from pdlint.cli import main

BAD = "#!/bin/bash\npython -m sglang.launch_server --model-path m --disaggregation-mode prefill --bogus\n"
OK = "#!/bin/bash\npython -m sglang.launch_server --model-path m --disaggregation-mode prefill\n"


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=n", "-c", "protocol.file.allow=always", *args],
                   cwd=cwd, check=True, capture_output=True)


def _repo_with_submodule(tmp_path, monkeypatch):
    src = tmp_path / "subsrc"
    src.mkdir()
    _git(src, "init", "-q", ".")
    (src / "s.sh").write_text(BAD)
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "x")
    main_repo = tmp_path / "main"
    main_repo.mkdir()
    _git(main_repo, "init", "-q", ".")
    _git(main_repo, "submodule", "add", "-q", "../subsrc", "sub")
    (main_repo / "ok.sh").write_text(OK)
    _git(main_repo, "add", "-A")
    monkeypatch.chdir(main_repo)
    monkeypatch.setenv("NO_COLOR", "1")
    return main_repo


def test_a_walk_names_the_submodule_it_did_not_scan(tmp_path, monkeypatch, capsys):
    _repo_with_submodule(tmp_path, monkeypatch)
    assert main(["check", "--no-cache", "."]) == 0
    err = capsys.readouterr().err
    assert ("sub is a git submodule (a repository of its own): the walk did not enter it, its files were not "
            "scanned; to check them, `pdlint check sub`") in err
    assert main(["check", "--no-cache", "sub"]) == 1  # named, it is checked
    assert "SGL001" in capsys.readouterr().out


def test_a_submodule_not_checked_out_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    repo = _repo_with_submodule(tmp_path, monkeypatch)
    _git(repo, "submodule", "deinit", "-q", "-f", "sub")
    assert main(["check", "--no-cache", "."]) == 0
    assert ("sub is a git submodule that is not checked out (a repository of its own): the walk did not enter it, "
            "its files were not scanned; to check them, `git submodule update --init -- sub`, then `pdlint check sub`"
            ) in capsys.readouterr().err


def test_a_repository_without_submodules_says_nothing_of_them(tmp_path, monkeypatch, capsys):
    repo = _repo_with_submodule(tmp_path, monkeypatch)
    (repo / "sub2").mkdir()
    (repo / "sub2" / "t.sh").write_text(OK)
    assert main(["check", "--no-cache", "sub2", "ok.sh"]) == 0
    assert "submodule" not in capsys.readouterr().err


def test_the_commands_quote_a_submodule_path_the_pull_request_names(tmp_path, monkeypatch, capsys):
    """rw30/h P7: a gitlink named `vendor/x;touch PWNED` made the hint's commands run `touch PWNED` when pasted
    into a shell; a name starting with `-` would be an option of the command."""
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q", ".")
    (repo / "ok.sh").write_text(OK)
    _git(repo, "add", "ok.sh")
    for name in ("vendor/x;touch PWNED", "-rf x"):
        _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},{name}")
        (repo / name).mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["check", "--no-cache", "."]) == 0
    err = capsys.readouterr().err
    assert ("to check them, `git submodule update --init -- 'vendor/x;touch PWNED'`, then "
            "`pdlint check 'vendor/x;touch PWNED'`") in err
    assert "`git submodule update --init -- './-rf x'`, then `pdlint check './-rf x'`" in err
