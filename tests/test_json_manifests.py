"""Kubernetes manifests written as JSON are read in a directory scan, as they are when named.

A walk listed every ``.json`` file with launch text as a kind pdlint does not read (PD020) while ``pdlint check
deploy.json`` read the same file as the YAML it is: `kubectl apply -f deploy.json` manifests were checked only when
a pre-commit run named them.  Other JSON files (benchmark results, tool settings) stay unread in a walk, and the
PD020 hint for a file that cannot hold a `#` comment (JSON, a notebook) no longer tells to put one there."""

import json

CMD = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--disaggregation-mode", "prefill",
       "--enable-linear-replayssm-spec", "--port", "30000"]


def _deployment(cmd) -> str:
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sglang-prefill"},
                       "spec": {"template": {"spec": {"containers": [
                           {"name": "prefill", "image": "lmsysorg/sglang:v0.5.23", "command": cmd}]}}}}, indent=2)


def test_a_walk_reads_a_json_manifest(scratch_git):
    scratch_git.write("deploy/prefill.json", _deployment(CMD))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("SGL101", "deploy/prefill.json")]
    assert [l["role"] for l in report["launches"]] == ["prefill"]
    assert code == 1


def test_a_correct_json_manifest_is_clean(scratch_git):
    scratch_git.write("deploy/prefill.json", _deployment([w for w in CMD if w != "--enable-linear-replayssm-spec"]))
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == [] and code == 0
    assert len(report["launches"]) == 1


def test_a_list_of_objects_is_a_manifest_too(scratch_git):
    items = json.loads(_deployment(CMD))
    scratch_git.write("all.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": [items]}))
    _, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["SGL101"]


def test_other_json_with_launch_text_stays_unread_and_the_hint_fits_json(scratch_git):
    scratch_git.write("results/run1.json", json.dumps({"command": " ".join(CMD), "throughput": 12.5}, indent=1))
    code, report = scratch_git.lint(".")
    assert report["launches"] == []
    [f] = report["findings"]
    assert (f["code"], f["path"]) == ("PD020", "results/run1.json")
    assert "per-file-ignores" in f["fix"] and "# pdlint" not in f["fix"]
    assert code == 0  # (a warning)


def test_a_script_keeps_the_comment_hint(scratch_git):
    scratch_git.write("serve.py", "import os\nos.system(%r)\n" % " ".join(CMD))
    _, report = scratch_git.lint(".")
    [f] = report["findings"]
    assert f["code"] == "PD020" and "# pdlint: ignore[PD020]" in f["fix"]


def test_pdlint_baseline_is_no_launch_text(scratch_git):
    # field test rw19/c: the baseline the README says to commit quoted flags and was a PD020 (an error with
    # --strict) in a scan and when a commit named it
    scratch_git.write("run.sh", "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                "--enable-linear-replayssm-spec\n")
    from pdlint.cli import main
    assert main(["--no-cache", "--write-baseline", ".pdlint-baseline.json", "."]) == 0
    assert "enable-linear-replayssm-spec" in (scratch_git.root / ".pdlint-baseline.json").read_text()
    code, report = scratch_git.lint("--strict", "--baseline", ".pdlint-baseline.json", ".")
    assert report["findings"] == [] and code == 0
    code, report = scratch_git.lint("--strict", ".pdlint-baseline.json")
    assert report["findings"] == [] and code == 0


def test_a_manifest_whose_keys_come_late_is_read(scratch_git):
    """JSON keys come in any order: `apiVersion` after a long `metadata` (past the head pdlint sniffs) kept the
    manifest out of a walk while naming it read it (field test rw20/h)."""
    doc = json.loads(_deployment(CMD))
    late = {"metadata": {"name": "p", "annotations": {"note": "x" * 5000}}, "spec": doc["spec"],
            "kind": "Deployment", "apiVersion": "apps/v1"}
    scratch_git.write("prefill.json", json.dumps(late, indent=2))
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1


def test_a_manifest_that_starts_like_a_baseline_is_read(scratch_git):
    doc = {"pdlint-baseline": 1, **json.loads(_deployment(CMD))}
    scratch_git.write("prefill.json", json.dumps(doc, indent=2))
    for args in (["."], ["prefill.json"]):
        code, report = scratch_git.lint(*args)
        assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1, args
