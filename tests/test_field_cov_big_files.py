"""A file over the size limit (2,000,000 bytes) that holds no launch text is nothing to check: no PD008.
rbg's generated CRDs (config/crd/bases/workloads.x-k8s.io_rolebasedgroups{,sets}.yaml, 2.9 and 3.2 MB) were
PD008 errors ("file is larger than 2000000 bytes; not scanned") that failed the run.  pdlint never passes
launch text it did not check: a big file with launch text, one that is not text, or one over the search
cap (MAX_SEARCHED_BYTES) stays a PD008."""

import json

from pdlint import safeio

HEAD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: rolebasedgroups.workloads.x-k8s.io
spec:
  group: workloads.x-k8s.io
  names: {kind: RoleBasedGroup, plural: rolebasedgroups}
  scope: Namespaced
  versions:
  - name: v1alpha2
    schema:
      openAPIV3Schema:
        properties:
"""
# a field of a generated schema: 2,100,000 bytes need about 13,000 of them
FIELD = "          f{0}:\n            description: the role's {0}th field, as the controller reads it\n" \
        "            type: string\n"


def _crd(size: int = 2_100_000) -> str:
    parts, n, i = [HEAD], len(HEAD), 0
    while n <= size:
        parts.append(FIELD.format(i))
        n += len(parts[-1])
        i += 1
    return "".join(parts)


def _pd008(report, path):
    return [f["message"] for f in report["findings"] if f["code"] == "PD008" and f["path"] == path]


def test_a_big_generated_crd_without_launch_text_is_no_error(scratch_git):
    scratch_git.write("crd/bases/big_crd.yaml", _crd())
    code, report = scratch_git.lint(".")
    assert code == 0 and report["findings"] == []
    assert report["coverage"]["files"]["crd/bases/big_crd.yaml"]["status"] == "none"


def test_a_big_file_with_launch_text_is_still_not_scanned(scratch_git):
    # launch text in a comment counts: pdlint cannot say it checked it
    scratch_git.write("crd/bases/big_crd.yaml", "# vllm serve m --kv-transfer-config {}\n" + _crd())
    code, report = scratch_git.lint(".")
    assert code == 1 and _pd008(report, "crd/bases/big_crd.yaml") == [
        "file is larger than 2000000 bytes; not scanned"]


def test_a_big_file_that_is_not_text_is_still_not_scanned(scratch_git):
    (scratch_git.root / "big.yaml").write_bytes(_crd().encode() + b"\xff\n")
    code, report = scratch_git.lint(".")
    assert code == 1 and _pd008(report, "big.yaml") == ["file is larger than 2000000 bytes; not scanned"]


def test_a_file_over_the_search_cap_is_still_not_scanned(scratch_git, monkeypatch):
    monkeypatch.setattr(safeio, "MAX_SEARCHED_BYTES", 2_050_000)
    scratch_git.write("crd/bases/big_crd.yaml", _crd())
    code, report = scratch_git.lint(".")
    assert code == 1 and _pd008(report, "crd/bases/big_crd.yaml") == [
        "file is larger than 2000000 bytes; not scanned"]


def test_the_result_cache_sees_launch_text_added_to_a_big_file(scratch_git, capsys):
    # (a big file's digest is its content's: whether it holds launch text decides its findings)
    from pdlint.cli import main
    p = scratch_git.write("big.yaml", _crd())
    assert main(["--format", "json", "."]) == 0
    capsys.readouterr()
    p.write_text(_crd() + "# python3 -m sglang.launch_server --disaggregation-mode prefill\n")
    assert main(["--format", "json", "."]) == 1
    assert _pd008(json.loads(capsys.readouterr().out), "big.yaml")
