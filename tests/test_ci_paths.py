"""`--format sarif` and `--format github` give paths relative to the repository root.

Field test rw19/c: run from a sub-directory (`working-directory: deploy` in a workflow), the SARIF results said
`run.sh` with %SRCROOT% the sub-directory and the annotations `file=run.sh`: GitHub resolves both against the
repository root, so code scanning and the annotations pointed at files that do not exist."""

import json

SCRIPT = ("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
          "--enable-linear-replayssm-spec\n")


def _run(capsys, *args):
    from pdlint.cli import main
    main(["--no-cache", *args])
    return capsys.readouterr().out


def test_from_a_sub_directory(scratch_git, capsys, monkeypatch):
    scratch_git.write("deploy/run.sh", SCRIPT)
    monkeypatch.chdir(scratch_git.root / "deploy")
    out = _run(capsys, "--format", "github", ".")
    assert "file=deploy/run.sh,line=1" in out
    doc = json.loads(_run(capsys, "--format", "sarif", "."))
    run = doc["runs"][0]
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "deploy/run.sh", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].rstrip("/").endswith(scratch_git.root.name)
    # the text and JSON outputs keep the paths as given (relative to where pdlint ran)
    assert json.loads(_run(capsys, "--format", "json", "."))["findings"][0]["path"] == "run.sh"


def test_from_the_root_nothing_changes(scratch_git, capsys):
    scratch_git.write("deploy/run.sh", SCRIPT)
    assert "file=deploy/run.sh,line=1" in _run(capsys, "--format", "github", ".")
