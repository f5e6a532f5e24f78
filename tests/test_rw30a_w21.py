"""Review round rw30/a, worktree w21: kustomize builds that kustomize refuses (Problems 5 and 6).

Ground truth: ``kubectl kustomize`` (kubectl v1.32.4, kustomize v5.5.0) on each layout; the tests never run it.

P5 - kustomize's default load restrictor (``LoadRestrictionsRootOnly``) loads files only in or below the
kustomization's directory; a directory with a kustomization of its own (a base, a component) may be elsewhere::

    accumulating resources from '../shared-config.yaml': security; file '/r/shared-config.yaml' is not in or
    below '/r/app'
    (patches: path: ../p.yaml)  failed to get the patch file from path(../p.yaml): security; file '/r/p.yaml' ...
    (configMapGenerator files: [../f.txt])  loading KV pairs: file sources: [../f.txt]: security; file ...
    (configMapGenerator / secretGenerator envs: [../f.env])  loading KV pairs: env source files: [../f.env]:
    security; file ...

pdlint built such a kustomization (field: cnuland/hello-chris-llm-d ``assets/llm-d``), checked and paired its
launches, exit 0.

P6 - two resources with one id (group, version, kind, name, namespace - ``default`` is none) in one
kustomization's resources (two files, two documents of one file, a base and a file, two bases)::

    accumulating resources: accumulation err='merging resources from 'decode-v2.yaml': may not add resource with
    an already registered id: Deployment.v1.apps/vllm-decode.[noNs]'

and a kustomization ``namespace`` that makes two resources of other namespaces one id::

    namespace transformation produces ID conflict: [...]

(kubectl builds: the same name under another kind, another apiVersion (apps/v1beta1), another namespace, or a
base's own ``namePrefix`` / ``nameSuffix`` / ``namespace``; an overlay's ``namePrefix`` does not separate two of
its own resources.)  pdlint checked both Deployments and paired them (a VLLM013 between resources kustomize never
builds together).  Now both are PD106, and the launches of a refused build are checked as written but paired with
nothing (the summary and ``pdlint show`` say why).
"""

from __future__ import annotations

from pdlint.cli import main


def _dep(name, role, model="Qwen/Qwen3-0.6B", ns=None, api="apps/v1"):
    kv = "kv_producer" if role == "prefill" else "kv_consumer"
    return f"""\
apiVersion: {api}
kind: Deployment
metadata:
  name: {name}
{f"  namespace: {ns}" if ns else ""}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.0
          args:
            - {model}
            - --kv-transfer-config
            - '{{"kv_connector":"NixlConnector","kv_role":"{kv}"}}'
"""


def _pd106(report):
    return [f for f in report["findings"] if f["code"] == "PD106"]


def _codes(report):
    return sorted({f["code"] for f in report["findings"]})


# -- P5: a file outside the kustomization's directory ---------------------------------------------------------

def test_resource_file_above_the_kustomization_is_pd106_and_not_paired(scratch):
    """kubectl kustomize app: accumulating resources from '../shared-config.yaml': security; file
    '.../shared-config.yaml' is not in or below '.../app'.  Before: 0 findings, exit 0, the pair checked."""
    scratch.write("shared-config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\n")
    scratch.write("app/prefill.yaml", _dep("p", "prefill"))
    scratch.write("app/decode.yaml", _dep("d", "decode", model="Qwen/Qwen3-8B"))
    scratch.write("app/kustomization.yaml", "resources:\n  - prefill.yaml\n  - decode.yaml\n"
                                            "  - ../shared-config.yaml\n")
    code, report = scratch.lint()
    assert code == 1
    [f] = _pd106(report)
    assert (f["path"], f["line"]) == ("app/kustomization.yaml", 4)
    assert "security; file 'shared-config.yaml' is not in or below 'app'" in f["message"]
    assert "LoadRestrictionsRootOnly" in f["message"]
    assert report["coverage"]["launches"] == 2
    assert "VLLM013" not in _codes(report)  # (the model mismatch of a pair kustomize never builds)
    assert report["coverage"]["unpaired_prefill"] == 1 and report["coverage"]["unpaired_decode"] == 1


def test_patch_and_generator_files_above_the_kustomization_are_pd106(scratch):
    """kubectl kustomize: PatchTransformer ... failed to get the patch file from path(../p.yaml): security; ...;
    PatchStrategicMergeTransformer / PatchJson6902Transformer: security; ...; configMapGenerator files and envs,
    secretGenerator files and envs: loading KV pairs: ... security; file ... is not in or below ..."""
    scratch.write("p.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2}\n")
    scratch.write("j.yaml", "- op: add\n  path: /spec/replicas\n  value: 3\n")
    scratch.write("f.txt", "hi\n")
    scratch.write("f.env", "k=v\n")
    scratch.write("app/decode.yaml", _dep("d", "decode"))
    scratch.write("app/kustomization.yaml", """\
        resources: [decode.yaml]
        patches:
          - path: ../p.yaml
          - path: ../j.yaml
            target: {kind: Deployment}
        patchesStrategicMerge: [../p.yaml]
        configMapGenerator:
          - name: a
            files: [../f.txt, k=../f.txt]
          - name: b
            envs: [../f.env]
        secretGenerator:
          - name: s
            files: [../f.txt]
            env: ../f.env
        """)
    code, report = scratch.lint()
    assert code == 1
    lines = sorted(f["line"] for f in _pd106(report))
    assert lines == [3, 4, 6, 9, 9, 11, 14, 15], _pd106(report)
    assert all("is not in or below 'app'" in f["message"] for f in _pd106(report))


def test_bases_components_and_files_below_the_kustomization_are_built(scratch):
    """kubectl kustomize builds all of these: a base and a component above the kustomization (directories), a
    resource file in a subdirectory, a patch file beside it.  The pair is checked (VLLM013 for the two models)."""
    scratch.write("base/kustomization.yaml", "resources: [prefill.yaml]\n")
    scratch.write("base/prefill.yaml", _dep("p", "prefill"))
    scratch.write("comp/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                             "commonLabels: {a: b}\n")
    scratch.write("app/sub/decode.yaml", _dep("d", "decode", model="Qwen/Qwen3-8B"))
    scratch.write("app/f.env", "k=v\n")
    scratch.write("app/kustomization.yaml", """\
        resources: [../base, sub/decode.yaml]
        components: [../comp]
        configMapGenerator:
          - name: b
            envs: [f.env]
        secretGenerator:
          - name: s
            envs: [missing.env]
        """)
    code, report = scratch.lint()
    assert _pd106(report) == []
    assert "VLLM013" in _codes(report)
    assert report["coverage"]["unpaired_prefill"] == 0 and report["coverage"]["unpaired_decode"] == 0


def test_a_symlink_in_the_directory_to_a_file_above_it_is_refused(scratch):
    """kubectl kustomize: failed to get the patch file from path(link.yaml): security; file '.../link.yaml' is
    not in or below '.../app' (the loader follows the link)."""
    import os
    scratch.write("p.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2}\n")
    scratch.write("app/decode.yaml", _dep("d", "decode"))
    scratch.write("app/kustomization.yaml", "resources: [decode.yaml]\npatches:\n  - path: link.yaml\n")
    os.symlink("../p.yaml", scratch.root / "app" / "link.yaml")
    code, report = scratch.lint()
    [f] = _pd106(report)
    assert f["line"] == 3 and "'p.yaml' is not in or below 'app'" in f["message"]


# -- P6: two resources with one id ----------------------------------------------------------------------------

def test_two_files_with_one_deployment_id_are_pd106_and_not_paired(scratch):
    """rw30/a repro 6.  kubectl kustomize .: merging resources from 'decode-v2.yaml': may not add resource with
    an already registered id: Deployment.v1.apps/vllm-decode.[noNs] (the id before the kustomization's own
    namespace).  Before: 3 launches checked and paired, VLLM013 for decode-v2's other model."""
    scratch.write("prefill.yaml", _dep("vllm-prefill", "prefill"))
    scratch.write("decode.yaml", _dep("vllm-decode", "decode"))
    scratch.write("decode-v2.yaml", _dep("vllm-decode", "decode", model="Qwen/Qwen3-8B"))
    scratch.write("kustomization.yaml", "namespace: llm\nresources:\n  - prefill.yaml\n  - decode.yaml\n"
                                        "  - decode-v2.yaml\n")
    code, report = scratch.lint()
    assert code == 1
    [f] = _pd106(report)
    assert (f["path"], f["line"]) == ("kustomization.yaml", 5)
    assert ("may not add resource with an already registered id: Deployment.v1.apps/vllm-decode.[noNs]"
            in f["message"])
    assert "decode-v2.yaml:4" in f["message"] and "decode.yaml:4" in f["message"]
    assert "VLLM013" not in _codes(report)
    assert report["coverage"]["launches"] == 3 and report["coverage"]["unpaired_decode"] == 2


def test_one_file_twice_and_a_base_beside_a_file_and_two_bases(scratch):
    """kubectl kustomize: the same error for two documents of one file ('accumulating resources from
    'x.yaml''), for a base's Deployment and the overlay's own file of that id, and for two bases that hold it
    ('recursed merging from path .../b2')."""
    scratch.write("one/x.yaml", _dep("a", "decode") + "---\n" + _dep("a", "decode"))
    scratch.write("one/kustomization.yaml", "resources: [x.yaml]\n")
    scratch.write("b1/x.yaml", _dep("a", "decode"))
    scratch.write("b1/kustomization.yaml", "resources: [x.yaml]\n")
    scratch.write("b2/x.yaml", _dep("a", "decode"))
    scratch.write("b2/kustomization.yaml", "resources: [x.yaml]\n")
    scratch.write("ov/y.yaml", _dep("a", "decode"))
    scratch.write("ov/kustomization.yaml", "resources: [../b1, y.yaml]\n")
    scratch.write("two/kustomization.yaml", "resources: [../b1, ../b2]\n")
    code, report = scratch.lint()
    got = sorted((f["path"], f["line"]) for f in _pd106(report))
    assert got == [("one/kustomization.yaml", 1), ("ov/kustomization.yaml", 1), ("two/kustomization.yaml", 1)]
    assert all("Deployment.v1.apps/a.[noNs]" in f["message"] for f in _pd106(report))


def test_a_namespace_that_makes_two_ids_one_is_pd106(scratch):
    """kubectl kustomize: namespace transformation produces ID conflict (x.yaml in n1, y.yaml in n2, the
    kustomization's namespace: z; likewise n1 and no namespace under namespace: n1)."""
    scratch.write("x.yaml", _dep("a", "decode", ns="n1"))
    scratch.write("y.yaml", _dep("a", "decode", ns="n2"))
    scratch.write("kustomization.yaml", "namespace: z\nresources: [x.yaml, y.yaml]\n")
    code, report = scratch.lint()
    [f] = _pd106(report)
    assert f["line"] == 1 and "namespace transformation produces ID conflict" in f["message"]
    assert "Deployment.v1.apps/a.z" in f["message"]


def test_ids_kustomize_tells_apart_are_quiet(scratch):
    """kubectl kustomize builds each: two namespaces; another apiVersion; another kind; a namespace ``default``
    beside n1; bases with their own nameSuffix / namespace; a JSON 6902 patch that moves a base's copy to
    another namespace.  (``default`` and no namespace are one id: that one is refused, in the next test.)"""
    scratch.write("ns/x.yaml", _dep("a", "decode", ns="n1"))
    scratch.write("ns/y.yaml", _dep("a", "decode", ns="n2"))
    scratch.write("ns/z.yaml", _dep("a", "decode", ns="default"))
    scratch.write("ns/v.yaml", _dep("a", "decode", ns="n1", api="apps/v1beta1"))
    scratch.write("ns/s.yaml", _dep("a", "decode", ns="n1").replace("kind: Deployment", "kind: StatefulSet"))
    scratch.write("ns/kustomization.yaml", "resources: [x.yaml, y.yaml, z.yaml, v.yaml, s.yaml]\n")
    scratch.write("b1/x.yaml", _dep("a", "decode"))
    scratch.write("b1/kustomization.yaml", "nameSuffix: -s\nresources: [x.yaml]\n")
    scratch.write("b2/x.yaml", _dep("a", "decode"))
    scratch.write("b2/kustomization.yaml", "namespace: n1\nresources: [x.yaml]\n")
    scratch.write("b3/x.yaml", _dep("a", "decode"))
    scratch.write("b3/kustomization.yaml", "resources: [x.yaml]\npatches:\n  - target: {kind: Deployment}\n"
                                           "    patch: |\n      - op: add\n        path: /metadata/namespace\n"
                                           "        value: n9\n")
    scratch.write("top/y.yaml", _dep("a", "decode"))
    scratch.write("top/kustomization.yaml", "resources: [../b1, ../b2, ../b3, y.yaml]\n")
    code, report = scratch.lint()
    assert _pd106(report) == []


def test_default_namespace_and_none_are_one_id(scratch):
    """kubectl kustomize: may not add resource with an already registered id: Deployment.v1.apps/a.[noNs]."""
    scratch.write("x.yaml", _dep("a", "decode", ns="default"))
    scratch.write("y.yaml", _dep("a", "decode"))
    scratch.write("kustomization.yaml", "resources: [x.yaml, y.yaml]\n")
    code, report = scratch.lint()
    [f] = _pd106(report)
    assert "Deployment.v1.apps/a.[noNs]" in f["message"]


def test_show_and_summary_say_why_a_refused_builds_launches_are_not_paired(scratch, capsys):
    scratch.write("shared.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\n")
    scratch.write("app/prefill.yaml", _dep("p", "prefill"))
    scratch.write("app/decode.yaml", _dep("d", "decode"))
    scratch.write("app/decode-v2.yaml", _dep("d2", "decode"))
    scratch.write("app/kustomization.yaml", "resources: [prefill.yaml, decode.yaml, decode-v2.yaml, ../shared.yaml]\n")
    main(["--no-cache", "."])
    cap = capsys.readouterr()
    out = cap.out + cap.err
    assert ("3 launches not paired (1 prefill, 2 decode): kustomize refuses the build that holds them (PD106)"
            in out)
    main(["show", "."])
    cap = capsys.readouterr()
    out = cap.out + cap.err
    assert "prefill app/prefill.yaml:" in out and "kustomize refuses its build (PD106)" in out
