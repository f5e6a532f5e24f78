"""Hostile-input round rw29/h, worktree w14: item P3 (kustomize graph blow-up).

Since 67ae55c a kustomization of a cycle is built as a top.  N kustomizations that all include each other made
every build walk up to 500 kustomizations along every path, re-adding the Deployments it passed (100 Deployments
became 1738 checked launches and 1933 PD106, 58 s for a 117 KB tree), and a diamond lattice (L layers of two
kustomizations, each including both of the next layer) reached its base 2^L times (L=8: one Deployment, 256
launches).  kustomize refuses both shapes: a cycle, and a base reached twice adds the same resource twice -
``resWrangler.Append`` in kustomize's api/resmap/reswrangler.go::

    return fmt.Errorf("may not add resource with an already registered id: %s", id)

Now one build reads each kustomization once (a second arrival is the cycle PD106 or that error, a few listed and
the rest counted), only the tops are built (which kustomization includes which is read first), and all the builds
of a run share one budget of kustomizations read, said (PD008) when it is spent.  A base reached twice under
different names (an overlay per environment with its own ``namePrefix``, all of them together: kustomize's
multibases example) is legitimate and still built once per path.
"""

from __future__ import annotations

DEP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d{i}}}
spec:
  template:
    spec:
      containers:
      - name: c
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill, --bogus]
"""


def _complete(scratch, n):
    for i in range(n):
        scratch.write(f"k{i}/kustomization.yaml",
                      "resources:\n" + "".join(f"- ../k{j}\n" for j in range(n) if j != i) + "- dep.yaml\n")
        scratch.write(f"k{i}/dep.yaml", DEP.format(i=i))


def _lattice(scratch, layers, prefix=False):
    scratch.write("base/kustomization.yaml", "resources:\n- dep.yaml\n")
    scratch.write("base/dep.yaml", DEP.format(i=0))
    scratch.write("top/kustomization.yaml", "resources:\n- ../l0a\n- ../l0b\n")
    for level in range(layers):
        for side in "ab":
            nxt = [f"../l{level + 1}{s}" for s in "ab"] if level + 1 < layers else ["../base"]
            scratch.write(f"l{level}{side}/kustomization.yaml",
                          (f"namePrefix: {side}-\n" if prefix else "") + "resources:\n"
                          + "".join(f"- {n}\n" for n in nxt))


def _pd106(report):
    return [f for f in report["findings"] if f["code"] == "PD106"]


def test_kustomizations_that_all_include_each_other_are_read_once(scratch):
    """Before: 12 Deployments were 500-odd launches (every build at its 500-kustomization cap), hundreds of
    PD106 and a "more than 500 kustomizations" each."""
    _complete(scratch, 12)
    code, report = scratch.lint()
    assert code == 1
    assert report["coverage"]["launches"] == 12
    assert sorted(f["path"] for f in report["findings"] if f["code"] == "SGL001") == \
        sorted(f"k{i}/dep.yaml" for i in range(12))
    cycles = _pd106(report)
    assert 1 <= len(cycles) <= 5 and all("kustomization cycle through" in f["message"] for f in cycles)
    assert any("more entries of this build close a cycle, not listed" in f["message"] for f in cycles)
    assert not any("more than 500" in f["message"] for f in report["findings"])


def test_diamond_lattice_reaches_its_base_once_and_says_kustomize_refuses_it(scratch):
    """Before: the base's one Deployment was 2^8 = 256 launches and no PD106 (kustomize refuses the build)."""
    _lattice(scratch, 8)
    code, report = scratch.lint()
    assert code == 1 and report["coverage"]["launches"] == 1
    twice = _pd106(report)
    assert 1 <= len(twice) <= 5
    assert all("may not add resource with an already registered id" in f["message"] for f in twice)
    first = twice[0]
    assert first["path"].endswith("kustomization.yaml") and "is already in this build along another path" in \
        first["message"]


def test_one_base_under_a_prefix_per_overlay_is_built_once_per_overlay(scratch):
    """The legitimate neighbour (kustomize's multibases example): dev and prod each prefix the base's names, the
    top includes both - two different resources, no PD106, one launch each."""
    scratch.write("base/kustomization.yaml", "resources:\n- dep.yaml\n")
    scratch.write("base/dep.yaml", DEP.format(i=0))
    scratch.write("dev/kustomization.yaml", "namePrefix: dev-\nresources:\n- ../base\n")
    scratch.write("prod/kustomization.yaml", "namePrefix: prod-\nresources:\n- ../base\n")
    scratch.write("all/kustomization.yaml", "resources:\n- ../dev\n- ../prod\n")
    code, report = scratch.lint()
    assert _pd106(report) == [] and report["coverage"]["launches"] == 2


def test_a_base_in_two_overlays_built_apart_is_no_problem(scratch):
    """Two tops that each include the base (not one build reaching it twice): each build has it once."""
    scratch.write("base/kustomization.yaml", "resources:\n- dep.yaml\n")
    scratch.write("base/dep.yaml", DEP.format(i=0))
    scratch.write("dev/kustomization.yaml", "resources:\n- ../base\n")
    scratch.write("prod/kustomization.yaml", "resources:\n- ../base\n")
    code, report = scratch.lint()
    assert _pd106(report) == [] and report["coverage"]["launches"] == 2


def test_a_lattice_renaming_at_every_level_stops_at_the_build_cap(scratch):
    """Legitimately exponential (each level prefixes the names, so kustomize builds 2^L resources): the build stops
    at its cap of kustomizations read, and says so."""
    _lattice(scratch, 12, prefix=True)
    code, report = scratch.lint()
    capped = _pd106(report)
    # the top, and the kustomizations its build did not reach for the cap, each built on its own (also capped)
    assert "top/kustomization.yaml" in [f["path"] for f in capped]
    assert all("reaches more than 500 kustomizations" in f["message"] for f in capped)
    assert not any("already registered id" in f["message"] for f in report["findings"])


def test_the_run_budget_of_kustomizations_read_is_said_when_spent(scratch, monkeypatch):
    """All the builds of a run read at most MAX_RUN_VISITS kustomizations together: one build stopped by it and the
    tops not built each say so (PD008), never a silent pass."""
    from pdlint.formats import kustomize
    monkeypatch.setattr(kustomize, "MAX_RUN_VISITS", 3)
    for name in ("a", "b", "c"):
        scratch.write(f"{name}/kustomization.yaml", "resources:\n- ../base\n")
    scratch.write("base/kustomization.yaml", "resources:\n- dep.yaml\n")
    scratch.write("base/dep.yaml", DEP.format(i=0))
    code, report = scratch.lint()
    limits = sorted((f["path"], f["message"]) for f in report["findings"] if f["code"] == "PD008")
    assert [p for p, _ in limits] == ["b/kustomization.yaml", "c/kustomization.yaml"]
    assert "stopped reading this build there" in limits[0][1]
    assert "kustomization not built" in limits[1][1]
    assert code == 1


def test_a_chain_deeper_than_the_depth_limit_is_said(scratch):
    """Before: a kustomization more than 16 levels down was silently not read."""
    for i in range(20):
        scratch.write(f"c{i}/kustomization.yaml",
                      f"resources:\n- ../c{i + 1}\n" if i < 19 else "resources:\n- dep.yaml\n")
    scratch.write("c19/dep.yaml", DEP.format(i=0))
    code, report = scratch.lint()
    deep = [f for f in report["findings"] if f["code"] == "PD008"]
    assert [f["path"] for f in deep] == ["c0/kustomization.yaml"]
    assert "more than 16 kustomizations deep; pdlint did not read c17/kustomization.yaml" in deep[0]["message"]
    assert report["coverage"]["launches"] == 1


def test_naming_one_kustomization_of_a_cycle_names_the_cycle_and_counts_the_files_it_read(scratch):
    """`pdlint check k1` on a 3-cycle: the PD106 are at the entries that close the cycle (in k0 and k2, none in
    k1) - each now names its cycle; and the summary said "in 2 files" (the scanned ones) for findings printed in
    6 files."""
    _complete(scratch, 3)
    from pdlint.cli import main
    code = main(["--no-cache", "k1"])
    out = scratch._capsys.readouterr().out
    assert "PD106 error: kustomization cycle through '../k1': k1 -> k0 -> k1" in out
    assert out.rstrip().splitlines()[-1] == "Found 6 errors and 0 warnings in 2 files and 4 other files they read."
    assert code == 1


def test_a_run_whose_findings_are_all_in_its_files_says_only_those(scratch):
    _complete(scratch, 1)
    from pdlint.cli import main
    main(["--no-cache", "k0"])
    assert scratch._capsys.readouterr().out.rstrip().splitlines()[-1] == "Found 1 error and 0 warnings in 2 files."


def test_one_base_renamed_by_a_json6902_patch_file_in_one_overlay_is_no_duplicate(scratch):
    """The other legitimate neighbour: one overlay renames the base's Deployment with a JSON 6902 patch file
    (``replace /metadata/name``), the other keeps it; a kustomization including both has two resources."""
    scratch.write("base/kustomization.yaml", "resources:\n- dep.yaml\n")
    scratch.write("base/dep.yaml", DEP.format(i=0))
    scratch.write("a/kustomization.yaml", "resources:\n- ../base\npatches:\n- path: rename.yaml\n"
                                          "  target: {kind: Deployment, name: d0}\n")
    scratch.write("a/rename.yaml", "- op: replace\n  path: /metadata/name\n  value: d0-a\n")
    scratch.write("b/kustomization.yaml", "resources:\n- ../base\n")
    scratch.write("all/kustomization.yaml", "resources:\n- ../b\n- ../a\n")
    code, report = scratch.lint()
    assert _pd106(report) == [] and report["coverage"]["launches"] == 2
