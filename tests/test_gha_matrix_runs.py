"""GitHub Actions job matrices: which runs pdlint builds past its bound, which of them it pairs, and include /
exclude entries whose values are mappings (field test rw26/h, items 8 and 12, hostile-input workflows).

* Item 8: `role: [prefill, decode]` x 16 models (32 jobs) kept 15 prefill runs and 1 decode, and paired that decode
  with every other model's prefill: 15 false SGL821.  Each combination of a matrix is a runner of its own.
* Item 12: an `include:` entry `{cfg: {role: prefill, ...}, extra: FLAG}` was read without its mapping `cfg`: its
  `extra` landed on the decode combination and the prefill job with the refused flag was never built."""

import pytest

ROLE_X_MODEL = """\
name: t
on: push
jobs:
  serve:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        role: [prefill, decode]
        model: [MODELS]
INCLUDE
    steps:
      - run: python -m sglang.launch_server --model-path ${{ matrix.model }}${{ matrix.suffix }} --disaggregation-mode ${{ matrix.role }} --port 30000
"""


def _workflow(n: int, include: str = "") -> str:
    models = ", ".join(f"org/model-{i}" for i in range(n))
    return ROLE_X_MODEL.replace("MODELS", models).replace("INCLUDE\n", include)


@pytest.mark.parametrize("n", [8, 16])
def test_role_x_model_matrix_runs_each_kept_model_with_both_roles_and_pairs_them_only(scratch_git, n):
    scratch_git.write(".github/workflows/m.yml", _workflow(n))
    code, doc = scratch_git.lint(".")
    roles = [l["role"] for l in doc["launches"]]
    assert roles.count("prefill") == roles.count("decode") == 8
    codes = [f["code"] for f in doc["findings"]]
    assert "SGL821" not in codes and code == 0
    assert codes == (["PD020"] if n > 8 else [])  # (32 jobs, 16 run: said at the matrix)


@pytest.mark.parametrize("n", [2, 16])
def test_a_model_mismatch_inside_one_combination_still_fires(scratch_git, n):
    # the include gives the decode of model-1's combination another model: that job pair is wrong, no other
    include = "        include:\n          - {role: decode, model: org/model-1, suffix: -v2}\n"
    scratch_git.write(".github/workflows/m.yml", _workflow(n, include))
    code, doc = scratch_git.lint(".")
    found = [f["message"] for f in doc["findings"] if f["code"] == "SGL821"]
    assert len(found) == 1 and "org/model-1 " in found[0] and "org/model-1-v2" in found[0] and code == 1


def test_a_run_with_no_partner_of_its_own_combination_is_not_paired(scratch_git):
    # an include that fits no combination: a prefill job of a model no decode job serves - not paired with the
    # decodes of the other models (it was: SGL821 against each)
    include = "        include:\n          - {role: prefill, model: org/lonely}\n"
    scratch_git.write(".github/workflows/m.yml", _workflow(2, include))
    code, doc = scratch_git.lint(".")
    assert [f["code"] for f in doc["findings"]] == [] and code == 0
    assert doc["coverage"]["unpaired_prefill"] == 1 and doc["coverage"]["unpaired_decode"] == 0


def test_a_matrix_over_githubs_256_jobs_is_said_to_be_refused(scratch_git):
    text = ROLE_X_MODEL.replace("        model: [MODELS]", "\n".join(
        f"        {k}: [{', '.join(f'{k}{i}' for i in range(20))}]" for k in ("model", "a", "b"))).replace("INCLUDE\n", "")
    scratch_git.write(".github/workflows/m.yml", text)
    code, doc = scratch_git.lint(".")
    (cut,) = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert "16000 combinations" in cut["message"] and "exceeds the maximum of 256 configurations" in cut["message"]
    assert "Strategy for job 'serve'" in cut["message"]
    roles = [l["role"] for l in doc["launches"]]
    assert roles.count("prefill") == roles.count("decode") == 8  # (the role key computed last: both roles)


def test_a_matrix_within_256_jobs_keeps_the_run_bound_wording(scratch_git):
    scratch_git.write(".github/workflows/m.yml", _workflow(16))
    code, doc = scratch_git.lint(".")
    (cut,) = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert "32 combinations" in cut["message"] and "256" not in cut["message"]


MAPPINGS = """\
name: t
on: push
jobs:
  serve:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        cfg:
          - {role: decode, port: 30002}
MORE
    steps:
      - run: python -m sglang.launch_server --model-path m --disaggregation-mode ${{ matrix.cfg.role }} --port ${{ matrix.cfg.port }} ${{ matrix.extra }}
"""
FLAG = "--enable-linear-replayssm-spec"


def test_an_include_entry_with_a_mapping_value_is_a_combination_of_its_own(scratch_git):
    more = f"""        include:
          - cfg: {{role: prefill, port: 30001}}
            extra: "{FLAG}"
"""
    scratch_git.write(".github/workflows/a.yml", MAPPINGS.replace("MORE\n", more))
    code, doc = scratch_git.lint("--strict", ".github/workflows/a.yml")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert [(f["code"], f["role"]) for f in doc["findings"]] == [("SGL101", "prefill")] and code == 1


def test_an_include_entry_equal_to_a_mapping_value_extends_that_combination(scratch_git):
    # the same object (all sub-keys equal): GitHub adds the entry's other keys to it - one job, decode, no error
    more = """        include:
          - cfg: {role: decode, port: 30002}
            extra: "--log-level debug"
"""
    scratch_git.write(".github/workflows/a.yml", MAPPINGS.replace("MORE\n", more))
    code, doc = scratch_git.lint("--strict", ".github/workflows/a.yml")
    assert [l["role"] for l in doc["launches"]] == ["decode"]
    assert doc["launches"][0]["argv"][-2:] == ["--log-level", "debug"]
    assert doc["findings"] == [] and code == 0


@pytest.mark.parametrize("excluded, fires", [("{role: prefill, port: 30001}", False),
                                             ("{role: prefill, port: 39999}", True)])
def test_an_exclude_entry_with_a_mapping_value_excludes_that_combination(scratch_git, excluded, fires):
    more = f"""          - {{role: prefill, port: 30001}}
        extra: ["{FLAG}"]
        exclude:
          - cfg: {excluded}
"""
    scratch_git.write(".github/workflows/a.yml", MAPPINGS.replace("MORE\n", more))
    code, doc = scratch_git.lint("--strict", ".github/workflows/a.yml")
    roles = sorted(l["role"] for l in doc["launches"])
    assert roles == (["decode", "prefill"] if fires else ["decode"])
    assert [f["code"] for f in doc["findings"]] == (["SGL101"] if fires else []) and code == int(fires)


def test_an_include_entry_pdlint_cannot_flatten_is_a_combination_with_opaque_keys(scratch_git):
    # a list in the mapping: not merged into the decode combination; its own job, `matrix.cfg.args` unknown
    more = """        include:
          - cfg: {role: prefill, port: 30001, args: [--a, --b]}
            extra: "${{ matrix.cfg.args }}"
"""
    text = MAPPINGS.replace("MORE\n", more).replace("${{ matrix.extra }}", "${{ matrix.cfg.args }}")
    scratch_git.write(".github/workflows/a.yml", text)
    code, doc = scratch_git.lint("--strict", ".github/workflows/a.yml")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    (opaque,) = doc["findings"]
    assert opaque["code"] == "PD023" and "matrix.cfg.args" in opaque["message"] and code == 1


def test_an_other_key_pdlint_cannot_flatten_is_added_opaque_to_the_combination_it_fits(scratch_git):
    # the matrix key's object is equal: GitHub adds `extra` (a list) to that job - no second decode combination
    more = """        include:
          - cfg: {role: decode, port: 30002}
            extra: [--a, --b]
"""
    scratch_git.write(".github/workflows/a.yml", MAPPINGS.replace("MORE\n", more))
    code, doc = scratch_git.lint("--strict", ".github/workflows/a.yml")
    assert [l["role"] for l in doc["launches"]] == ["decode"]
    (opaque,) = doc["findings"]
    assert opaque["code"] == "PD023" and "matrix.extra" in opaque["message"]


def test_most_varied_keeps_a_group_together():
    from pdlint.formats.choose import most_varied
    items = [{("role", r), ("model", m)} for r in ("prefill", "decode") for m in range(16)]
    groups = [m for _ in range(2) for m in range(16)]
    keep = most_varied(items, 16, groups)
    assert len(keep) == 16 and sorted({groups[i] for i in keep}) == sorted(groups[i] for i in keep[:8])
    assert sum(1 for i in keep if ("role", "decode") in items[i]) == 8
    ungrouped = most_varied(items, 16)
    assert sum(1 for i in ungrouped if ("role", "decode") in items[i]) != 8  # (the failure the groups fix)
    assert most_varied([{1}, {2}, {3}], 2, [0, 0, 0]) == [0, 1]  # (no group fits: one by one)
