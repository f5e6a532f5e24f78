"""Which resources a kustomize patch is for (pdlint.formats.kustomize), and PD106 only when ``kustomize build``
fails.  Found on vllm-project/production-stack, vllm-project/aibrix and sgl-project/rbg, where all 9 PD106 errors
were false (``kubectl kustomize`` built each of them):

* a ``target:`` selector picks resources by kind, group/version, name (a regular expression), namespace, label
  and annotation selectors, and the name written in the patch is ignored (production-stack
  ``operator/config/default``: ``target: {kind: Deployment}``, patch named ``controller-manager``);
* a JSON 6902 ``replace /metadata/name`` renames a resource for the patches after it (aibrix
  ``development/app/config/heterogeneous/simulator_a40``);
* a remote resource may hold the target (aibrix ``config/dependency/envoy-gateway``);
* a ``kind: Component`` patches the resources of the kustomization that includes it (aibrix
  ``config/test/gateway``).

Each case has its counterpart where PD106 still fires: a patch without ``target`` whose resource is not there.
``kubectl kustomize`` (v5.5) was the ground truth for every expectation here.
"""

import os
import textwrap

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import kustomize
from pdlint.lint import ConfigResolver


def extract(cwd, *paths):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths) or ["."], cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def write(tmp, files):
    for name, text in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(tmp)


def pd106(out):
    return sorted((f.path, f.line, f.message) for f in out.findings if f.code == "PD106")


DEPLOY = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: NAME
      labels: {app: engine, tier: serve}
    spec:
      template:
        spec:
          containers:
            - name: s
              image: lmsysorg/sglang:v0.5.9
"""
PATCH = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: NAME
    spec:
      template:
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --model-path, m]
"""


def deploy(name):
    return DEPLOY.replace("NAME", name)


def patch(name):
    return PATCH.replace("NAME", name)


def patched(out):
    """The resources of the build whose container got the patch's command (a launch; a patch not applied is read
    on its own, as before)."""
    return sorted(l.meta["resource_name"] for l in out.launches if "kustomization" in l.meta)


# -- (a) a target selector ---------------------------------------------------------------------------------

def test_kind_only_target_patches_the_resource_whatever_the_patch_is_named(tmp_path):
    # production-stack operator/config/default/manager_image_patch.yaml
    cwd = write(tmp_path, {
        "base/d.yaml": deploy("production-stack-controller-manager"),
        "base/kustomization.yaml": "resources: [d.yaml]\n",
        "default/p.yaml": patch("controller-manager"),
        "default/kustomization.yaml": "resources: [../base]\npatches:\n  - path: p.yaml\n    target:\n"
                                      "      kind: Deployment\n"})
    out = extract(cwd)
    assert pd106(out) == []
    assert patched(out) == ["production-stack-controller-manager"]
    assert out.launches[0].path == "default/p.yaml"


def test_target_selectors_as_kustomize_reads_them(tmp_path):
    files = {"d.yaml": deploy("decode"), "p.yaml": patch("ignored"),
             "q.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: decode}\n"}
    # (target, whether kubectl kustomize applies the patch to Deployment/decode)
    cases = [("{kind: Deployment, name: dec.*}", True), ("{kind: Deployment, name: dec}", False),
             ("{kind: 'Deploy.*'}", True), ("{kind: Deploy}", False), ("{kind: Deployment, name: decode}", True),
             ("{group: apps, version: v1, kind: Deployment}", True), ("{version: v2, kind: Deployment}", False),
             ("{kind: Deployment, namespace: default}", True), ("{kind: Deployment, namespace: foo}", False),
             ("{kind: Deployment, labelSelector: app=engine}", True),
             ("{kind: Deployment, labelSelector: 'app in (x, engine),tier!=batch,!canary'}", True),
             ("{kind: Deployment, labelSelector: 'app notin (engine)'}", False),
             ("{kind: Deployment, labelSelector: app=other}", False),
             ("{kind: Deployment, annotationSelector: a=b}", False), ("{kind: StatefulSet}", False)]
    for target, applied in cases:
        files["kustomization.yaml"] = f"resources: [d.yaml, q.yaml]\npatches:\n  - path: p.yaml\n    target: {target}\n"
        out = extract(write(tmp_path, files))
        # a target that selects nothing is no build error: kustomize builds without the patch
        assert pd106(out) == [], target
        assert patched(out) == (["decode"] if applied else []), target
    # a name alone selects every kind: kubectl patches the Service as well (pdlint reads no launch from a Service)
    files["kustomization.yaml"] = ("resources: [d.yaml, q.yaml]\npatches:\n  - path: p.yaml\n"
                                   "    target: {name: decode}\n")
    b = kustomize.Builder(_read, write(tmp_path, files)).build(str(tmp_path / "kustomization.yaml"))
    assert sorted(r.kind for r in b.resources if r.patches) == ["Deployment", "Service"]


def test_selector_sees_the_namespace_and_labels_a_base_kustomization_sets(tmp_path):
    cwd = write(tmp_path, {
        "base/d.yaml": deploy("decode"),
        "base/kustomization.yaml": "namespace: serving\ncommonLabels: {stage: prod}\n"
                                   "labels:\n  - pairs: {team: llm}\nresources: [d.yaml]\n",
        "o/p.yaml": patch("x"),
        "o/kustomization.yaml": "resources: [../base]\npatches:\n  - path: p.yaml\n"
                                "    target: {namespace: serving, labelSelector: 'stage=prod,team=llm'}\n"})
    assert patched(extract(cwd)) == ["decode"]


def test_label_selector_parsing():
    assert kustomize._requirements("app=x, tier in (a,b),!canary,gpu") == [
        ("app", "=", ("x",)), ("tier", "in", ("a", "b")), ("canary", "!", ()), ("gpu", "exists", ())]
    assert kustomize._requirements("") == []
    assert kustomize._requirements("app=(x") is None  # not a selector pdlint reads: it may select anything


def test_unreadable_selector_is_unknown_not_missing(tmp_path):
    # kubectl reads `rev>1` (and patches the Deployment, labelled rev: "3"); pdlint does not: it cannot tell
    cwd = write(tmp_path, {"d.yaml": deploy("decode").replace("tier: serve}", 'tier: serve, rev: "3"}'),
                           "p.yaml": patch("decode"),
                           "kustomization.yaml": "resources: [d.yaml]\npatches:\n  - path: p.yaml\n"
                                                 "    target: {labelSelector: 'rev>1'}\n"})
    out = extract(cwd)
    assert pd106(out) == [] and patched(out) == []
    b = kustomize.Builder(_read, cwd).build(os.path.join(cwd, "kustomization.yaml"))
    assert b.skipped == ["patch target {labelSelector=rev>1} not checked: pdlint does not read this selector"]


def test_pd106_still_fires_for_an_untargeted_patch_of_a_missing_resource(tmp_path):
    # kubectl: no resource matches strategic merge patch "Deployment.v1.apps/prefil.[noNs]"
    cwd = write(tmp_path, {"d.yaml": deploy("decode"), "p.yaml": patch("decode"), "typo.yaml": patch("prefil"),
                           "kustomization.yaml": "resources: [d.yaml]\npatches:\n"
                                                 "  - path: p.yaml\n    target: {kind: Deployment}\n"
                                                 "  - path: typo.yaml\n"})
    out = extract(cwd)
    assert [(p, line) for p, line, _ in pd106(out)] == [("typo.yaml", 4)]
    assert "Deployment/prefil" in pd106(out)[0][2]
    assert patched(out) == ["decode"]


# -- (b) a rename by an earlier JSON 6902 patch ----------------------------------------------------------------

RENAME = '[{"op": "replace", "path": "/metadata/name", "value": "decode-a40"}]\n'


def test_a_json6902_rename_is_followed_by_later_patches(tmp_path):
    # aibrix development/app/config/heterogeneous/simulator_a40/patch_podautoscaler_a40.yaml
    cwd = write(tmp_path, {
        "base/d.yaml": deploy("decode-mock"), "base/kustomization.yaml": "resources: [d.yaml]\n",
        "o/rename.json": RENAME, "o/p.yaml": patch("decode-a40"),
        "o/kustomization.yaml": "resources: [../base]\npatches:\n"
                                "  - path: rename.json\n    target: {kind: Deployment, name: decode-mock}\n"
                                "  - path: p.yaml\n    target: {kind: Deployment, name: decode-a40}\n"})
    out = extract(cwd)
    assert pd106(out) == [] and patched(out) == ["decode-mock"]


def test_untargeted_patch_by_the_new_name_and_pd106_for_another(tmp_path):
    files = {"d.yaml": deploy("decode-mock"), "rename.json": RENAME, "p.yaml": patch("NEW"),
             "kustomization.yaml": "resources: [d.yaml]\npatches:\n"
                                   "  - path: rename.json\n    target: {kind: Deployment, name: decode-mock}\n"
                                   "  - path: p.yaml\n"}
    files["p.yaml"] = patch("decode-a40")
    out = extract(write(tmp_path, files))
    assert pd106(out) == [] and patched(out) == ["decode-mock"]
    files["p.yaml"] = patch("decode-a100")  # kubectl: no matches for Id Deployment.v1.apps/decode-a100
    out = extract(write(tmp_path, files))
    assert [(p, line) for p, line, _ in pd106(out)] == [("p.yaml", 4)]


def test_a_whole_metadata_replace_is_followed_as_a_rename(tmp_path):
    # (JSON 6902 operations are applied to the resource's tree: the name the new /metadata gives it is its name)
    cwd = write(tmp_path, {
        "d.yaml": deploy("decode-mock"), "p.yaml": patch("decode-a40"),
        "meta.yaml": "- op: replace\n  path: /metadata\n  value: {name: decode-a40}\n",
        "kustomization.yaml": "resources: [d.yaml]\npatches:\n"
                              "  - path: meta.yaml\n    target: {kind: Deployment}\n  - path: p.yaml\n"})
    out = extract(cwd)
    assert pd106(out) == [] and patched(out) == ["decode-mock"]


def test_a_rename_pdlint_does_not_follow_makes_the_name_unknown_not_missing(tmp_path):
    cwd = write(tmp_path, {
        "d.yaml": deploy("decode-mock"), "p.yaml": patch("decode-a40"),
        "meta.yaml": "- op: remove\n  path: /metadata/name\n",
        "kustomization.yaml": "resources: [d.yaml]\npatches:\n"
                              "  - path: meta.yaml\n    target: {kind: Deployment}\n  - path: p.yaml\n"})
    out = extract(cwd)
    assert pd106(out) == [] and patched(out) == []
    b = kustomize.Builder(_read, cwd).build(os.path.join(cwd, "kustomization.yaml"))
    assert any("patch target Deployment/decode-a40 not checked" in s for s in b.skipped)


def _read(path):
    from pdlint.text import SourceFile
    with open(path) as f:
        return SourceFile(path, f.read(), abspath=path)


# -- (c) a remote resource ---------------------------------------------------------------------------------------

def test_a_patch_that_may_be_for_a_remote_resource_is_unchecked_not_missing(tmp_path):
    # aibrix config/dependency/envoy-gateway: the ConfigMap is in the release's install.yaml
    url = "https://github.com/envoyproxy/gateway/releases/download/v1.2.8/install.yaml"
    cwd = write(tmp_path, {
        "d.yaml": deploy("decode"), "p.yaml": patch("decode"),
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: envoy-gateway-config\ndata: {k: v}\n",
        "kustomization.yaml": f"resources:\n  - {url}\n  - d.yaml\npatches:\n  - path: cm.yaml\n  - path: p.yaml\n"})
    out = extract(cwd)
    assert pd106(out) == []
    # the local resource is still built and patched; the build's notes say what was not checked
    (launch,) = [l for l in out.launches if "kustomization" in l.meta]
    assert launch.meta["resource_name"] == "decode"
    assert "patch target ConfigMap/envoy-gateway-config not checked: it may be in the remote resource" \
        in launch.context


def test_go_getter_address_is_remote_and_local_targets_still_checked(tmp_path):
    cwd = write(tmp_path, {
        "d.yaml": deploy("decode"), "p.yaml": patch("prefil"),
        "kustomization.yaml": "resources:\n  - github.com/org/repo//config?ref=v1\n  - d.yaml\n"
                              "patches:\n  - path: p.yaml\n"})
    assert pd106(extract(cwd)) == []  # the remote kustomization may hold Deployment/prefil
    cwd = write(tmp_path, {"kustomization.yaml": "resources:\n  - d.yaml\npatches:\n  - path: p.yaml\n"})
    assert [(p, line) for p, line, _ in pd106(extract(cwd))] == [("p.yaml", 4)]


# -- (d) a Component ------------------------------------------------------------------------------------------------

COMPONENT = """\
    apiVersion: kustomize.config.k8s.io/v1alpha1
    kind: Component
    patches:
      - path: p.yaml
"""


def test_a_component_on_its_own_patches_resources_pdlint_cannot_see(tmp_path):
    # aibrix config/test/gateway/vtc-test-env-patch.yaml
    cwd = write(tmp_path, {"c/kustomization.yaml": COMPONENT, "c/p.yaml": patch("gateway-plugins")})
    assert pd106(extract(cwd)) == []


def test_a_component_is_matched_against_the_kustomization_that_includes_it(tmp_path):
    files = {"c/kustomization.yaml": COMPONENT, "c/p.yaml": patch("gateway-plugins"),
             "d.yaml": deploy("gateway-plugins"),
             "kustomization.yaml": "resources: [d.yaml]\ncomponents: [c]\n"}
    out = extract(write(tmp_path, files))
    assert pd106(out) == [] and patched(out) == ["gateway-plugins"]
    files["d.yaml"] = deploy("other")  # kubectl: no matches for Id Deployment.v1.apps/gateway-plugins
    out = extract(write(tmp_path, files))
    assert [(p, line) for p, line, _ in pd106(out)] == [("c/p.yaml", 4)]
