"""Kustomize JSON 6902 patches (``patches`` / ``patchesJson6902`` entries holding ``op:`` lists) applied to the
built resources (pdlint.formats.json6902, pdlint.formats.kustomize).

Field test rw16/l (repro 10): an overlay's 6902 patches put an invalid ``--disaggregation-transfer-backend
mooncak`` (``replace .../args/7``, inline) and an unknown ``--tp-sizee 8`` (``add .../args/-``, a patch file) into
the built Deployments; ``kubectl kustomize`` (v5.5.0) renders both, and pdlint said "0 errors" because only
``/metadata/name`` operations were applied.  Now every operation is applied with the patch's values traced to the
patch, and one pdlint cannot apply that may change a launch is a PD020 at the operation, never a silent pass.
"""


import pytest

from pdlint.extract import Options
from pdlint.formats import json6902 as jp
from pdlint.lint import run
from test_kustomize_targets import write  # (tests/ is on sys.path under pytest)


def check(tmp, files, *paths):
    cwd = write(tmp, files)
    return run(list(paths) or ["."], Options(cwd=cwd))


def found(res, code=None):
    return sorted((f.path, f.line, f.code) for f in res.findings if code is None or f.code == code)


def outside_base(res):
    """Findings not in base/ (a patch that replaces the whole args list leaves the base's args text unchecked:
    PD020 there, as for a strategic-merge patch that replaces them)."""
    return [x for x in found(res) if not x[0].startswith("base/")]


def deployment(name, mode, port):
    return f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {name}
        spec:
          replicas: 1
          template:
            spec:
              containers:
              - name: sglang
                image: lmsysorg/sglang:v0.5.4
                command: ["python3", "-m", "sglang.launch_server"]
                args:
                - --model-path
                - Qwen/Qwen3-8B
                - --disaggregation-mode
                - {mode}
                - --port
                - "{port}"
                - --disaggregation-transfer-backend
                - mooncake
                - --disaggregation-ib-device
                - mlx5_0
        """


BASE = {
    "base/prefill.yaml": deployment("sglang-prefill", "prefill", 30000),
    "base/decode.yaml": deployment("sglang-decode", "decode", 30001),
    "base/kustomization.yaml": "resources:\n  - prefill.yaml\n  - decode.yaml\n",
}


def overlay(decode_value, prefill_patch, index=7):
    return {**BASE, "overlays/prod/prefill-patch.yaml": prefill_patch, "overlays/prod/kustomization.yaml": f"""\
        resources:
          - ../../base
        patches:
          - target:
              kind: Deployment
              name: sglang-decode
            patch: |-
              - op: replace
                path: /spec/template/spec/containers/0/args/{index}
                value: {decode_value}
          - target:
              kind: Deployment
              name: sglang-prefill
            path: prefill-patch.yaml
        """}


BAD_PREFILL = """\
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --tp-sizee
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: "8"
    """
GOOD_PREFILL = BAD_PREFILL.replace("--tp-sizee", "--log-level").replace('"8"', "debug")


def test_repro_invalid_values_are_found_at_the_patch_lines(tmp_path):
    # field test rw16/l repro 10: SGL004 at the inline patch's `value: mooncak`, SGL001 at the patch file's line
    res = check(tmp_path, overlay("mooncak", BAD_PREFILL))
    assert found(res) == [("overlays/prod/kustomization.yaml", 10, "SGL004"),
                          ("overlays/prod/prefill-patch.yaml", 3, "SGL001")]
    assert not res.coverage.spots


def test_correct_json6902_overlay_is_quiet_and_traced(tmp_path):
    res = check(tmp_path, overlay("mlx5_1", GOOD_PREFILL, 9))
    assert found(res) == [] and not res.coverage.spots
    by = {l.role: l for l in res.launches}
    d, p = [t for t in by["decode"].argv], [t for t in by["prefill"].argv]
    assert d[-1].text == "mlx5_1" and (d[-1].origin.path, d[-1].origin.line) == ("overlays/prod/kustomization.yaml", 10)
    assert d[-3].origin.path == "base/decode.yaml"  # untouched arguments stay at the base's lines
    assert [t.text for t in p[-2:]] == ["--log-level", "debug"]
    assert [(t.origin.path, t.origin.line) for t in p[-2:]] == [("overlays/prod/prefill-patch.yaml", 3),
                                                               ("overlays/prod/prefill-patch.yaml", 6)]


def test_a_whole_args_list_replaced_by_patchesJson6902(tmp_path):
    # the older `patchesJson6902:` field, and a list value: each item traced to its line in the patch file
    files = {**BASE, "o/args.yaml": """\
        - op: replace
          path: /spec/template/spec/containers/0/args
          value:
            - --model-path
            - Qwen/Qwen3-8B
            - --disaggregation-mode
            - decode
            - --disaggregation-transfer-backend
            - mooncak
        """, "o/kustomization.yaml": """\
        resources: [../base]
        patchesJson6902:
          - target: {group: apps, version: v1, kind: Deployment, name: sglang-decode}
            path: args.yaml
        """}
    res = check(tmp_path, files)
    assert outside_base(res) == [("o/args.yaml", 9, "SGL004")]


def test_map_value_adds_a_container_field(tmp_path):
    files = {**BASE, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: sglang-decode}
            patch: |-
              - op: add
                path: /spec/template/spec/containers/0/env
                value:
                  - {name: SGLANG_X, value: "1"}
              - op: replace
                path: /spec/template/spec/containers/0
                value:
                  name: sglang
                  image: lmsysorg/sglang:v0.5.4
                  command: [python3, -m, sglang.launch_server]
                  args: [--model-path, Qwen/Qwen3-8B, --disaggregation-mode, decode, --tp-sizee, "2"]
        """}
    res = check(tmp_path, files)
    assert outside_base(res) == [("o/kustomization.yaml", 15, "SGL001")]


def test_an_operation_on_a_missing_path_is_pd020_at_the_operation(tmp_path):
    files = overlay("nixl", GOOD_PREFILL, 99)
    res = check(tmp_path, files)
    assert found(res) == [("overlays/prod/kustomization.yaml", 8, "PD020")]
    (f,) = [f for f in res.findings if f.code == "PD020"]
    assert "`replace /spec/template/spec/containers/0/args/99` not applied to Deployment/sglang-decode" in f.message
    assert "past the end of the list there (10 items)" in f.message and "strategic-merge patch" in f.fix


@pytest.mark.parametrize("op, why", [
    ("{op: frobnicate, path: /spec/template/spec/containers/0/args/0, value: x}", "no JSON patch operation"),
    ("{op: replace, path: spec/template/spec/containers/0/args/0, value: x}", "is no JSON pointer"),
    ("{op: add, path: /spec/template/spec/containers/0/args/01, value: x}", "is no index"),
    ("{op: add, path: /spec/template/spec/containers/0/args/99999999999999999999999, value: x}", "is no index"),
    ("{op: add, path: /spec/template/spec/containers/0/args/999999999999, value: x}", "past the end"),
    ("{op: add, path: /spec/template/spec/containers/0/args/0/x, value: x}", "no list or mapping"),
    ("{op: add, path: /spec/template/spec/containers/0/args" + "/a" * 200 + ", value: x}", "deeper than 64"),
    ("{op: copy, from: /spec/template/spec/nothing, path: /spec/template/spec/containers/0/args/0}",
     "not in the resource"),
    ("{op: test, path: /spec/template/spec/containers/0/args/7, value: nixl}", "test of"),
    ("{op: replace, path: /spec/template/spec/containers/0/args/0}", "has no value"),
])
def test_unapplicable_and_hostile_operations_are_reported_never_a_traceback(tmp_path, op, why):
    files = {**BASE, "o/kustomization.yaml": f"""\
        resources: [../base]
        patches:
          - target: {{kind: Deployment, name: sglang-decode}}
            patch: |-
              - {op}
        """}
    res = check(tmp_path, files)
    assert found(res) == [("o/kustomization.yaml", 5, "PD020")]
    assert why in res.findings[0].message


def test_value_alias_bomb_is_reported_not_expanded(tmp_path):
    # a patch file whose value aliases expand to 6 * 8^7 items: refused at the operation, never expanded
    files = {**BASE, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: sglang-decode}
            path: ops.yaml
        """}
    files["o/ops.yaml"] = ("- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: &a [x, x, x, x, x, x]\n"
                           + "".join(f"- op: test\n  path: /spec/template/spec/containers/0/args/-\n"
                                     f"  value: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                                     for p, c in zip("abcdefg", "bcdefgh"))
                           + "- op: replace\n  path: /spec/template/spec/containers/0/args\n  value: *h\n")
    res = check(tmp_path, files)
    assert all(f.code in ("PD020", "SGL001") for f in res.findings)
    assert any(f.code == "PD020" and f.path == "o/ops.yaml" for f in res.findings)


def test_an_operation_that_changes_no_launch_is_not_reported(tmp_path):
    files = {**BASE, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: sglang-decode}
            patch: |-
              - {op: replace, path: /spec/strategy/type, value: Recreate}
              - {op: replace, path: /spec/replicas, value: 2}
              - {op: add, path: /metadata/annotations, value: {example.com/x: y}}
              - {op: test, path: /spec/template/spec/containers/0/args/7, value: mooncake}
        """}
    res = check(tmp_path, files)
    assert found(res) == [] and not res.coverage.spots


def test_unknown_selector_and_missing_target_are_reported(tmp_path):
    files = {**BASE, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: "sglang-(?<x>decode)"}
            patch: |-
              - {op: replace, path: /spec/template/spec/containers/0/args/7, value: nixl}
          - patch: |-
              - {op: replace, path: /spec/template/spec/containers/0/args/7, value: nixl}
        """}
    res = check(tmp_path, files)
    assert found(res) == [("o/kustomization.yaml", 5, "PD020"), ("o/kustomization.yaml", 7, "PD020")]
    msgs = sorted(f.message for f in res.findings)
    assert "cannot evaluate this target selector" in msgs[0] and "has no `target`" in msgs[1]


def test_after_a_strategic_merge_patch_of_the_containers_it_is_reported(tmp_path):
    files = {**BASE, "base/smp.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: sglang-decode}
        spec:
          template:
            spec:
              containers:
              - name: sglang
                args: [--model-path, Qwen/Qwen3-8B, --disaggregation-mode, decode]
        """, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: sglang-decode}
            patch: |-
              - {op: add, path: /spec/template/spec/containers/0/args/-, value: --tp-size}
        """}
    files["base/kustomization.yaml"] += "patches:\n  - path: smp.yaml\n"
    res = check(tmp_path, files)
    assert outside_base(res) == [("o/kustomization.yaml", 5, "PD020")]
    assert any("earlier strategic-merge patch" in f.message for f in res.findings)


def test_move_copy_and_escaped_pointers():
    assert jp.pointer("/a~1b/c~0d/-") == ["a/b", "c~d", "-"]
    assert jp.pointer("") == []
    with pytest.raises(jp.NotApplied):
        jp.pointer("/a~2")


def test_move_and_copy_apply_in_a_build(tmp_path):
    files = {**BASE, "o/kustomization.yaml": """\
        resources: [../base]
        patches:
          - target: {kind: Deployment, name: sglang-decode}
            patch: |-
              - {op: copy, from: /spec/template/spec/containers/0/args/6, path: /spec/template/spec/containers/0/args/-}
              - {op: add, path: /spec/template/spec/containers/0/args/-, value: nixl}
              - {op: move, from: /spec/template/spec/containers/0/args/6, path: /spec/template/spec/containers/0/args/-}
              - {op: move, from: /spec/template/spec/containers/0/args/6, path: /spec/template/spec/containers/0/args/-}
        """}
    res = check(tmp_path, files)
    (d,) = [l for l in res.launches if l.role == "decode"]
    assert [t.text for t in d.argv][-4:] == ["--disaggregation-transfer-backend", "nixl",
                                             "--disaggregation-transfer-backend", "mooncake"]
    # kustomize: the later flag wins; both values are valid, nothing unchecked
    assert not res.coverage.spots
