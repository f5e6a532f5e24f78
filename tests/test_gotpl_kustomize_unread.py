"""PD106: a patch target is not "missing" when a resource it may be in was not read.

Found on kserve/kserve (aaac4e29): config/crd/full/llmisvc/llmisvc_conversion_webhook_patch.yaml patches a 2.6 MB
CustomResourceDefinition listed in `resources:`, which pdlint skips as too large (PD008). pdlint then said the
kustomize build fails because the patch target is not among the resources (a false PD106, 14 in kserve).
"""

from pdlint.safeio import MAX_FILE_BYTES

CRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n" \
      "  name: llminferenceservices.serving.kserve.io\nspec:\n  group: serving.kserve.io\n"
# (with launch text: a big file without any is nothing to check, and no PD008 - but still not read)
BIG_CRD = CRD + '  x-pad: "--disaggregation-mode ' + "a" * MAX_FILE_BYTES + '"\n'
PATCH = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n" \
        "  name: llminferenceservices.serving.kserve.io\nspec:\n  conversion:\n    strategy: Webhook\n"
KUST = "resources:\n  - crd.yaml\npatches:\n  - path: conversion_patch.yaml\n"
DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  template:
    spec:
      containers:
        - name: s
          image: lmsysorg/sglang:v0.5.9
          command: [python3, -m, sglang.launch_server]
          args: [--model-path, m, --disaggregation-mode, decode]
"""


def codes(report) -> list:
    return sorted((f["path"], f["code"]) for f in report["findings"])


def test_a_patch_of_a_resource_too_large_to_read_is_no_pd106(scratch_git):
    scratch_git.write("crd.yaml", BIG_CRD)
    scratch_git.write("conversion_patch.yaml", PATCH)
    scratch_git.write("kustomization.yaml", KUST)
    _, report = scratch_git.lint(".")
    assert codes(report) == [("crd.yaml", "PD008")]


def test_a_patch_of_a_missing_target_beside_a_read_resource_is_still_pd106(scratch_git):
    scratch_git.write("crd.yaml", CRD.replace("llminferenceservices", "inferenceservices"))
    scratch_git.write("conversion_patch.yaml", PATCH)
    scratch_git.write("kustomization.yaml", KUST)
    _, report = scratch_git.lint(".")
    assert codes(report) == []  # (a build of no server: not judged, field round rw34/a P3)
    scratch_git.write("d.yaml", DEPLOY)
    scratch_git.write("kustomization.yaml", KUST.replace("  - crd.yaml\n", "  - crd.yaml\n  - d.yaml\n"))
    _, report = scratch_git.lint(".")
    assert [c for c in codes(report) if c[1] == "PD106"] == [("conversion_patch.yaml", "PD106")]


def test_an_unread_resource_of_another_kustomization_leaves_pd106(scratch_git):
    # b/'s patch can only target b/'s resources: a/'s unread CRD does not hide that its target is missing
    scratch_git.write("a/crd.yaml", BIG_CRD)
    scratch_git.write("a/kustomization.yaml", "resources:\n  - crd.yaml\n")
    scratch_git.write("b/d.yaml", DEPLOY)
    scratch_git.write("b/conversion_patch.yaml", PATCH)
    scratch_git.write("b/kustomization.yaml", "resources:\n  - d.yaml\npatches:\n  - path: conversion_patch.yaml\n")
    scratch_git.write("kustomization.yaml", "resources:\n  - a\n  - b\n")
    _, report = scratch_git.lint(".")
    assert codes(report) == [("a/crd.yaml", "PD008"), ("b/conversion_patch.yaml", "PD106")]


def test_a_patch_of_a_remote_base_is_no_pd106_and_its_launch_says_so(scratch_git):
    # the target may be in the remote base pdlint does not fetch; the launch is checked without the patch
    scratch_git.write("d.yaml", DEPLOY)
    scratch_git.write("p.yaml", DEPLOY.replace("name: decode", "name: prefill").replace("decode]", "prefill]"))
    scratch_git.write("kustomization.yaml", "resources:\n  - d.yaml\n  - https://github.com/o/r//base?ref=v1\n"
                                            "patches:\n  - path: p.yaml\n")
    _, report = scratch_git.lint(".")
    assert "PD106" not in [f["code"] for f in report["findings"]]
    (launch,) = [l for l in report["launches"] if l["path"] == "d.yaml"]
    assert "patch target Deployment/prefill not checked: it may be in the remote resource " \
           "'https://github.com/o/r//base?ref=v1'" in launch["context"]


def test_a_resource_too_large_to_read_without_launch_text_is_neither_pd008_nor_pd106(scratch_git):
    # sgl-project/rbg's generated CRDs (2.9 and 3.2 MB) and their webhook patches: nothing to check, still not read
    scratch_git.write("crd.yaml", CRD + '  x-pad: "' + "a" * MAX_FILE_BYTES + '"\n')
    scratch_git.write("conversion_patch.yaml", PATCH)
    scratch_git.write("kustomization.yaml", KUST)
    _, report = scratch_git.lint(".")
    assert codes(report) == []
