"""Recipe-shaped files srtctl would not run (sgl-project/sglang's scripts/ci/slurm/mi355x recipes): a
top-level key srtctl lacks that holds server settings is reported as flags pdlint cannot see; a
``sglang_config.common`` section gives its flags to both roles."""

RECIPE = """
resources:
  prefill_workers: 1
  decode_workers: 1
backend:
  sglang_config:
    prefill:
      tensor-parallel-size: 8
    decode:
      tensor-parallel-size: 16
      data-parallel-size: 16
{extra}"""

RUNTIME = """runtime:
  image: lmsysorg/sglang-rocm:v0.5.18-rocm724-mi35x-20260826
  mem_fraction_static: 0.85
  wide_ep:
    prefill_extra_flags: "--enable-hierarchical-cache --no-such-flag"
"""


def _codes(report):
    return sorted((f["code"], f["line"]) for f in report["findings"])


def test_foreign_section_with_server_settings_is_unchecked_and_quiets_default_rules(scratch_git):
    scratch_git.write("r.yaml", RECIPE.format(extra=RUNTIME))
    code, report = scratch_git.lint("r.yaml")
    (gap,) = [f for f in report["findings"] if f["code"] == "PD023"]
    assert (gap["line"], gap["column"]) == (11, 1)
    assert "`runtime` is not a key of an srtctl recipe" in gap["message"]
    assert "`mem_fraction_static`" in gap["message"] and "`--enable-hierarchical-cache`" in gap["message"]
    assert report["coverage"]["files"]["r.yaml"]["status"] == "partial"
    # the launcher may add --enable-dp-attention: attention TP 8 vs 16 is not concluded from defaults
    assert not [f for f in report["findings"] if f["code"].startswith("SGL")]
    assert code == 0


def test_without_the_foreign_section_the_recipe_is_checked_whole(scratch_git):
    scratch_git.write("r.yaml", RECIPE.format(extra=""))
    code, report = scratch_git.lint("r.yaml")
    assert report["coverage"]["files"]["r.yaml"]["status"] == "checked"
    assert "SGL815" in [f["code"] for f in report["findings"]]  # what the section above quiets


def test_foreign_section_without_server_settings_stays_quiet(scratch_git):
    scratch_git.write("r.yaml", RECIPE.format(extra="notes:\n  owner: ci-team\n  ticket: 1234\n"))
    _, report = scratch_git.lint("r.yaml")
    assert not [f for f in report["findings"] if f["code"] == "PD023"]
    assert report["coverage"]["files"]["r.yaml"]["status"] == "checked"


COMMON = """
name: 1p1d
backend:
  sglang_config:
    common:
      disaggregation-transfer-backend: mooncake
      enable-linear-replayssm-spec: true
    prefill:
      tensor-parallel-size: 8
    decode:
      tensor-parallel-size: 8
      disaggregation-transfer-backend: nixl
"""


def test_common_section_goes_to_both_roles_and_the_role_wins(scratch_git):
    scratch_git.write("r.yaml", COMMON)
    code, report = scratch_git.lint("r.yaml")
    roles = sorted(l["role"] for l in report["launches"])
    assert roles == ["decode", "prefill"]  # no role-less launch of `common`
    by_role = {l["role"]: l["argv"] for l in report["launches"]}
    assert "--enable-linear-replayssm-spec" in by_role["prefill"] and "--enable-linear-replayssm-spec" in by_role["decode"]
    assert by_role["decode"].count("--disaggregation-transfer-backend") == 1  # the decode's own value only
    assert "nixl" in by_role["decode"] and "mooncake" not in by_role["decode"]
    found = _codes(report)
    assert ("SGL101", 6) in found  # the seed case, at the shared line
    assert ("SGL805", 11) in found  # mooncake (common) on the prefill, nixl on the decode
    assert not [c for c, _ in found if c == "SGL007"]
    assert code == 1


def test_without_common_each_role_has_only_its_own_flags(scratch_git):
    scratch_git.write("r.yaml", COMMON.replace("    common:\n", "    unused:\n"))
    _, report = scratch_git.lint("r.yaml")
    prefill = [l for l in report["launches"] if l["role"] == "prefill"]
    assert prefill and "--enable-linear-replayssm-spec" not in prefill[0]["argv"]


NIGHTLY = """
name: disagg-gb200-1p1d
identity:
  container:
    image: lmsysorg/sglang:nightly-dev-cu13-20260805-211ee642
  frameworks:
    sglang: nightly-dev-cu13-20260805-211ee642
backend:
  sglang_config:
    prefill:
      disaggregation-mode: prefill
      tensor-parallel-size: 8
    decode:
      disaggregation-mode: decode
      tensor-parallel-size: 8
      cuda-graph-max-bs: 64
"""


def test_a_nightly_framework_name_pins_no_release(scratch_git):
    # SemiAnalysisAI/InferenceX's srt-slurm recipes: `identity.frameworks.sglang: nightly-dev-...` had made
    # the recipe unreadable (no launch, PD020 at each role)
    scratch_git.write("r.yaml", NIGHTLY)
    _, report = scratch_git.lint("r.yaml")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    # judged by its flags (an unpinned launch): one finding on the flag a newer release removed, not also
    # its deprecation in the release judged
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL012", 15)]
