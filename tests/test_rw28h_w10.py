"""Hostile-input round rw28/h, worktree w10: items 3, 4, 6, 8 and 9 of the round's report.

Each item has a test that failed before its fix and one showing the legitimate case stays as it was:

* 3: kustomizations that include each other (a cycle) were each a member of another build: a directory scan built
  none of them (no PD106 for the cycle, the patched launches not checked), where naming one reports both.
* 4: a selection that leaves no rule judging launches enabled for a file (every prefix ignored in a sub-directory
  config, ``ALL`` in per-file-ignores) still had its launches "checked" in the summary and JSON coverage, silently:
  now the file's status is ``disabled`` (``disabled_by`` names the config or the command line) and the summary
  says so.
* 6: a path git lists that is not in the work tree (a sparse checkout's skip-worktree file, a file removed with
  ``rm`` but not ``git rm``) was a PD001 "not read" error each (exit 1 on a clean checkout).
* 8: a kustomize patch whose target may be in a remote base pdlint does not fetch (a JSON 6902 operation on a
  container's ``args``, a strategic-merge patch of its ``args``) was silent unless its value held a flag coverage
  knows: now PD020 at the operation, naming the remote resource.
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
BROKEN = CLEAN.replace("--disaggregation-mode, prefill,",
                       "--disaggregation-mode, prefill, --enable-linear-replayssm-spec,")


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


# --- item 3: kustomizations in a cycle -----------------------------------------------------------------------------

BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen-prefill}
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill, --port, "30000"]
          args: [--model-path, /models/Qwen3-8B]
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
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, --port, "30001"]
          args: [--model-path, /models/Qwen3-8B]
"""

OVERLAY = """\
resources:
- ../base
{extra}patches:
- target: {{kind: Deployment, name: qwen-prefill}}
  patch: |-
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --enable-linear-replayssm-spec
"""


def _kustomize_tree(scratch, cycle: bool):
    scratch.write("base/kustomization.yaml", "resources:\n- pd.yaml\n")
    scratch.write("base/pd.yaml", BASE)
    scratch.write("overlay/kustomization.yaml", OVERLAY.format(extra="- ../other\n" if cycle else ""))
    scratch.write("other/kustomization.yaml", "resources:\n- ../overlay\n")


def test_kustomization_cycle_is_reported_by_a_directory_scan(scratch):
    _kustomize_tree(scratch, cycle=True)
    code, report = scratch.lint()
    cycles = [f for f in report["findings"] if f["code"] == "PD106"]
    assert len(cycles) == 1 and "kustomization cycle through" in cycles[0]["message"]
    assert (cycles[0]["path"], cycles[0]["line"]) in (("overlay/kustomization.yaml", 3),
                                                      ("other/kustomization.yaml", 2))
    patched = [f for f in report["findings"] if f["code"] == "SGL101"]
    assert [(f["path"], f["line"], f["column"]) for f in patched] == [("overlay/kustomization.yaml", 9, 14)]
    assert report["coverage"]["launches"] == 2 and code == 1
    # the same as naming one of them
    code2, named = scratch.lint("overlay")
    assert sorted(f["code"] for f in named["findings"]) == sorted(f["code"] for f in report["findings"])


def test_kustomization_cycle_through_itself_and_outside_paths(scratch):
    scratch.write("k/kustomization.yaml", "resources:\n- .\n- ../k2\n- /etc\n- pd.yaml\n")
    scratch.write("k/pd.yaml", BASE)
    scratch.write("k2/kustomization.yaml", "resources:\n- ../k\n")
    code, report = scratch.lint()
    messages = sorted(f["message"] for f in report["findings"] if f["code"] == "PD106")
    assert any("cycle through '.'" in m for m in messages)
    assert any("'/etc' is outside the repository" in m for m in messages)
    assert any("cycle through '../k" in m for m in messages)
    assert code == 1


def test_kustomization_without_cycle_builds_the_overlay_once(scratch):
    _kustomize_tree(scratch, cycle=False)
    code, report = scratch.lint()
    assert _codes(report, "PD106") == []
    # other includes overlay, which includes base: other is the only build kept, the launch is checked once
    assert [(f["path"], f["line"]) for f in report["findings"] if f["code"] == "SGL101"] == \
        [("overlay/kustomization.yaml", 8)]
    assert report["coverage"]["launches"] == 2


# --- item 8: a patch of a remote base ------------------------------------------------------------------------------

REMOTE = "https://github.com/example/sglang-pd//deploy/base?ref=v1.2"
JSON_PATCH = """\
resources:
- {remote}
patches:
- target: {{kind: Deployment, name: qwen-prefill}}
  patch: |-
    - op: {op}
      path: {path}
      value: {value}
"""


def test_json6902_op_on_a_remote_base_container_args_is_pd020(scratch):
    scratch.write("ov/kustomization.yaml", JSON_PATCH.format(
        remote=REMOTE, op="add", path="/spec/template/spec/containers/0/args/-",
        value="--enable-linear-replayssm-spec"))
    code, report = scratch.lint("--strict")
    (f,) = report["findings"]
    assert (f["code"], f["path"], f["line"]) == ("PD020", "ov/kustomization.yaml", 6)
    assert "`add /spec/template/spec/containers/0/args/-` not applied" in f["message"]
    assert REMOTE in f["message"] and code == 1


def test_json6902_op_with_a_marker_value_on_a_remote_base_is_one_finding(scratch):
    # its value (a flag coverage knows) was a PD020 of its own; now the operation's note covers it
    scratch.write("ov/kustomization.yaml", JSON_PATCH.format(
        remote=REMOTE, op="add", path="/spec/template/spec/containers/0/args/-", value="--disaggregation-mode"))
    code, report = scratch.lint()
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", 6)]


def test_strategic_merge_patch_of_remote_base_args_is_pd020(scratch):
    scratch.write("ov/kustomization.yaml", f"resources:\n- {REMOTE}\npatches:\n- path: args.yaml\n")
    scratch.write("ov/args.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: qwen-prefill}
        spec:
          template:
            spec:
              containers:
                - name: sglang
                  args: [--model-path, /models/Qwen3-8B, --enable-linear-replayssm-spec]
        """)
    code, report = scratch.lint()
    (f,) = report["findings"]
    assert (f["code"], f["path"], f["line"]) == ("PD020", "ov/args.yaml", 9)
    assert "container 'sglang'" in f["message"] and REMOTE in f["message"]


def test_remote_base_patches_that_change_no_command_line_stay_quiet(scratch):
    scratch.write("ov/kustomization.yaml", JSON_PATCH.format(remote=REMOTE, op="replace", path="/spec/replicas",
                                                             value="3"))
    scratch.write("im/kustomization.yaml", JSON_PATCH.format(
        remote=REMOTE, op="replace", path="/spec/template/spec/containers/0/image",
        value="lmsysorg/sglang:v0.5.23"))
    code, report = scratch.lint("--strict")
    assert report["findings"] == [] and code == 0


def test_json6902_op_on_a_local_resource_beside_a_remote_base_is_applied(scratch):
    scratch.write("ov/kustomization.yaml", JSON_PATCH.format(
        remote=REMOTE + "\n- pd.yaml", op="add", path="/spec/template/spec/containers/0/args/-",
        value="--enable-linear-replayssm-spec"))
    scratch.write("ov/pd.yaml", BASE)
    code, report = scratch.lint()
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL101", 9)]


# --- item 4: every rule that judges launches disabled for a file ---------------------------------------------------

DISABLED_LINE = "Every rule that judges launches is disabled for 1 file, so nothing was reported about its 2 launches"


def _text(capsys, *args):
    from pdlint.cli import main
    code = main(["--no-cache", *args])
    return code, capsys.readouterr().out


def test_subdirectory_config_ignoring_every_prefix_is_no_silent_checked(scratch, capsys):
    scratch.write("deploy/prod/pd.yaml", BROKEN)
    scratch.write("deploy/prod/pyproject.toml", '[tool.pdlint]\nextend-ignore = ["SGL", "PD", "VLLM", "TRT"]\n')
    scratch.write("deploy/dev/pd.yaml", CLEAN)
    code, report = scratch.lint()
    files = report["coverage"]["files"]
    assert files["deploy/prod/pd.yaml"]["status"] == "disabled"
    assert files["deploy/prod/pd.yaml"]["disabled_by"] == "deploy/prod/pyproject.toml"
    assert files["deploy/dev/pd.yaml"]["status"] == "checked" and "disabled_by" not in files["deploy/dev/pd.yaml"]
    code, out = _text(capsys, "--strict")
    assert f"{DISABLED_LINE}: deploy/prod/pd.yaml (by deploy/prod/pyproject.toml)." in out


def test_ignore_all_and_per_file_all_on_the_command_line_are_named(scratch, capsys):
    scratch.write("pd.yaml", BROKEN)
    code, report = scratch.lint("--per-file-ignores", "pd.yaml:ALL")
    assert report["coverage"]["files"]["pd.yaml"]["status"] == "disabled"
    assert report["coverage"]["files"]["pd.yaml"]["disabled_by"] == "the command line's rule selection"
    scratch.write("pyproject.toml", '[tool.pdlint]\nignore = ["SGL"]\n')
    code, out = _text(capsys, "--ignore", "PD,VLLM,TRT")
    assert f"{DISABLED_LINE}: pd.yaml (by pyproject.toml with the command line's rule selection)." in out


def test_disabled_status_survives_the_result_cache(scratch_git, capsys):
    import json
    from pdlint.cli import main
    scratch_git.write("pd.yaml", BROKEN)
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nignore = ["ALL"]\n')
    for _ in range(2):  # cold, then from the cache
        assert main(["--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["coverage"]["files"]["pd.yaml"]["status"] == "disabled"


def test_partial_selections_keep_the_file_checked(scratch, capsys):
    scratch.write("pd.yaml", BROKEN)
    for args in ((), ("--ignore", "SGL1"), ("--ignore", "PD02"), ("--per-file-ignores", "pd.yaml:SGL,VLLM,TRT")):
        code, report = scratch.lint(*args)
        assert report["coverage"]["files"]["pd.yaml"]["status"] == "checked", args
        code, out = _text(capsys, *args)
        assert "Every rule that judges launches" not in out and "2 launches checked" in out
