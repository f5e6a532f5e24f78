"""Hostile-input round rw28/h, worktree w10: items 3, 4, 6, 8 and 9 of the round's report.

Each item has a test that failed before its fix and one showing the legitimate case stays as it was:

* 6: a path git lists that is not in the work tree (a sparse checkout's skip-worktree file, a file removed with
  ``rm`` but not ``git rm``) was a PD001 "not read" error each (exit 1 on a clean checkout).
* 9: ``ALL`` in ``per-file-ignores`` (command line and config) matched no code: silently a no-op.
"""

from __future__ import annotations

import os
import subprocess

CLEAN = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-prefill}
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --model-path, /models/Qwen3-8B, --tp-size, "2",
                    --disaggregation-mode, prefill, --port, "30000"]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-decode}
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --model-path, /models/Qwen3-8B, --tp-size, "2",
                    --disaggregation-mode, decode, --port, "30001"]
"""

#: the same pair with a decode-only flag in the prefill launch: SGL101
BROKEN = CLEAN.replace("--disaggregation-mode, prefill,", "--disaggregation-mode, prefill, --enable-linear-replayssm-spec,")


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.email=a@b", "-c", "user.name=a", *args], check=True,
                   capture_output=True)


def _codes(report, *codes):
    return [f["code"] for f in report["findings"] if not codes or f["code"] in codes]


# --- item 6: listed by git, not on disk ----------------------------------------------------------------------------

def test_sparse_checkout_skipped_paths_are_not_read_errors(scratch_git):
    scratch_git.write("deploy/pd.yaml", CLEAN)
    scratch_git.write("other/x.yaml", CLEAN)
    scratch_git.write("other/run.sh", "#!/bin/sh\necho hi\n")
    _git(scratch_git.root, "add", "-A")
    _git(scratch_git.root, "commit", "-qm", "x")
    _git(scratch_git.root, "sparse-checkout", "set", "deploy")
    assert not (scratch_git.root / "other").exists()
    code, report = scratch_git.lint()
    assert _codes(report, "PD001") == [] and code == 0
    assert sorted(report["coverage"]["files"]) == ["deploy/pd.yaml"]


def test_file_removed_without_git_rm_is_not_a_read_error(scratch_git):
    scratch_git.write("pd.yaml", CLEAN)
    scratch_git.write("run.sh", "#!/bin/sh\necho hi\n")
    _git(scratch_git.root, "add", "-A")
    os.remove(scratch_git.root / "run.sh")
    code, report = scratch_git.lint()
    assert _codes(report, "PD001") == [] and code == 0


def test_dangling_symlink_git_lists_keeps_its_read_error(scratch_git):
    scratch_git.write("pd.yaml", CLEAN)
    os.symlink("gone.yaml", scratch_git.root / "link.yaml")
    _git(scratch_git.root, "add", "-A")
    code, report = scratch_git.lint()
    assert [f["path"] for f in report["findings"] if f["code"] == "PD001"] == ["link.yaml"]


def test_named_missing_path_stays_a_usage_error(scratch_git, capsys):
    from pdlint.cli import main
    scratch_git.write("pd.yaml", CLEAN)
    _git(scratch_git.root, "add", "-A")
    os.remove(scratch_git.root / "pd.yaml")
    assert main(["--no-cache", "pd.yaml"]) == 2
    assert "pd.yaml" in capsys.readouterr().err


# --- item 9: ALL in per-file-ignores ------------------------------------------------------------------------------

def test_all_in_cli_per_file_ignores_disables_every_rule_there(scratch):
    scratch.write("pd.yaml", BROKEN)
    scratch.write("other.yaml", BROKEN)
    code, report = scratch.lint("--per-file-ignores", "pd.yaml:ALL")
    assert sorted({f["path"] for f in report["findings"]}) == ["other.yaml"]
    code, report = scratch.lint("--extend-per-file-ignores", "pd.yaml:all")
    assert sorted({f["path"] for f in report["findings"]}) == ["other.yaml"]


def test_all_in_config_per_file_ignores_disables_every_rule_there(scratch):
    scratch.write("pd.yaml", BROKEN)
    scratch.write("other.yaml", BROKEN)
    scratch.write("pyproject.toml", '[tool.pdlint]\nper-file-ignores = {"pd.yaml" = ["ALL"]}\n')
    code, report = scratch.lint()
    assert sorted({f["path"] for f in report["findings"]}) == ["other.yaml"]


def test_per_file_ignores_of_a_prefix_still_only_that_prefix(scratch):
    scratch.write("pd.yaml", BROKEN)
    code, report = scratch.lint("--per-file-ignores", "pd.yaml:PD")
    assert "SGL101" in _codes(report)
    code, report = scratch.lint("--per-file-ignores", "other.yaml:ALL")
    assert "SGL101" in _codes(report) and code == 1
