"""GitHub Actions: a job's `strategy.matrix` is expanded as the runner starts it (field test rw22/a, repro 4:
`role: [prefill, decode]` with `--disaggregation-mode ${{ matrix.role }}` was one launch whose role pdlint could not
see, PD021, although the values are written in the file)."""

import pytest

WORKFLOW = """\
    name: pd
    on: push
    jobs:
      serve:
        strategy:
          matrix:
            role: [prefill, decode]
            include:
              - role: prefill
                backend: nixl
              - role: decode
                backend: DECODE
            EXCLUDE
        runs-on: [gpu]
        steps:
          - run: python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode ${{ matrix.role }} --disaggregation-transfer-backend ${{ matrix.backend }}
    """


@pytest.mark.parametrize("decode, fires", [("mooncake", True), ("nixl", False)])
def test_each_matrix_combination_is_a_run_of_the_job(scratch_git, decode, fires):
    scratch_git.write(".github/workflows/pd.yml", WORKFLOW.replace("DECODE", decode).replace("EXCLUDE", ""))
    code, doc = scratch_git.lint(".")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    found = [(f["code"], f["line"]) for f in doc["findings"]]
    assert found == ([("SGL805", 12)] if fires else []) and code == int(fires)  # (at the include's value)


def test_an_excluded_combination_does_not_run_unless_an_include_adds_it_back(scratch_git):
    plain = WORKFLOW.replace("DECODE", "mooncake").replace("EXCLUDE", "exclude:\n              - role: decode")
    scratch_git.write(".github/workflows/pd.yml", plain)
    code, doc = scratch_git.lint(".")
    # (includes are applied after excludes: the decode include is a combination of its own again, as GitHub's)
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    lines = plain.splitlines()
    del lines[7:12]  # the include entries
    scratch_git.write(".github/workflows/pd.yml", "\n".join(lines) + "\n")
    code, doc = scratch_git.lint(".")
    assert [l["role"] for l in doc["launches"]] == ["prefill"]


def test_matrix_combinations_are_bounded():
    from pdlint.formats import yaml_shell, yamltree as yt
    from pdlint.text import SourceFile, TStr
    text = "a: [" + ", ".join(map(str, range(10))) + "]\nb: [" + ", ".join(map(str, range(10))) + "]\n"
    doc = TStr.from_source(SourceFile("m.yml", text))
    (d,) = yt.compose(text)
    combos = yaml_shell.matrix_combinations(doc, yt.Ref(d.root))
    assert len(combos) == yaml_shell.MAX_MATRIX
    assert [(c["matrix.a"].text, c["matrix.b"].text) for c in combos[:2]] == [("0", "0"), ("0", "1")]


INCLUDE_ONLY = """\
    on: push
    jobs:
      serve:
        strategy:
          matrix:
            include:
              - role: prefill
                extra: --enable-linear-replayssm-spec
              - role: decode
                extra: --log-level=info
        runs-on: [gpu]
        steps:
          - run: python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode ${{ matrix.role }} ${{ matrix.extra }}
    """


def test_include_entries_that_fit_no_combination_are_each_a_run(scratch_git):
    """Field test rw23/h: the second entry of an include-only matrix was merged into the first one's run (GitHub
    starts two jobs): one decode launch, the prefill's SGL101 unseen, exit 0."""
    scratch_git.write(".github/workflows/pd.yml", INCLUDE_ONLY)
    code, doc = scratch_git.lint(".")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert [f["code"] for f in doc["findings"]] == ["SGL101"] and code == 1


SHARDED = """\
    on: push
    jobs:
      serve:
        strategy:
          matrix:
            role: [decode, prefill]
            shard: [SHARDS]
            include:
              - role: prefill
                extra: --enable-linear-replayssm-spec
        runs-on: [gpu]
        steps:
          - run: python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode ${{ matrix.role }} --base-gpu-id ${{ matrix.shard }} ${{ matrix.extra }}
    """


@pytest.mark.parametrize("shards", [8, 16])
def test_a_matrix_past_the_bound_runs_every_value_and_says_what_it_left(scratch_git, shards):
    """Field test rw23/h: with 16 shards the product's first 16 combinations were all decode; the prefill runs
    (and their SGL101) were dropped without a word."""
    scratch_git.write(".github/workflows/pd.yml", SHARDED.replace("SHARDS", ", ".join(map(str, range(shards)))))
    code, doc = scratch_git.lint(".")
    assert {l["role"] for l in doc["launches"]} == {"decode", "prefill"}
    codes = sorted({f["code"] for f in doc["findings"]})
    cut = [f for f in doc["findings"] if f["code"] == "PD020"]
    if shards == 8:
        assert codes == ["SGL101"] and cut == []
    else:
        assert codes == ["PD020", "SGL101"] and code == 1
        (f,) = cut
        assert f["line"] == 6 and "starts 32 combinations; pdlint ran its steps for 16 of them" in f["message"]


OBJECTS = """\
    name: pd
    on: push
    jobs:
      serve:
        runs-on: gpu
        strategy:
          matrix:
            cfg:
              - role: prefill
                port: 30001
                extra: EXTRA
              - role: decode
                port: 30002
            tp: [1]
        steps:
          - run: python -m sglang.launch_server --model-path m --disaggregation-mode ${{ matrix.cfg.role }} --port ${{ matrix.cfg.port }} --tp-size ${{ matrix.tp }} ${{ matrix.cfg.extra }}
    """


@pytest.mark.parametrize("extra, fires", [("--enable-linear-replayssm-spec", True), ("--log-level info", False)])
def test_a_matrix_list_of_mappings_gives_each_mapping_s_keys(scratch_git, extra, fires):
    """Hostile-input test rw24/h (notes): `cfg: [{role: prefill, ...}, ...]` with `${{ matrix.cfg.role }}` was a
    launch whose role and flags pdlint could not see (PD021, PD023; exit 0)."""
    scratch_git.write(".github/workflows/pd.yml", OBJECTS.replace("EXTRA", extra))
    code, doc = scratch_git.lint("--strict", ".")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    found = [(f["code"], f["line"]) for f in doc["findings"]]
    assert found == ([("SGL101", 11)] if fires else []) and code == int(fires)  # (at the mapping's value)


def test_past_the_bound_each_role_meets_each_value(scratch_git):
    """Hostile-input test rw25/h item 10: `role` x `extra` x eight shards (48 combinations): the 16 kept covered every
    value once, but the one prefill run carried a harmless extra, and the prefill with the refused flag was never
    built (a PD020 warning only)."""
    scratch_git.write(".github/workflows/serve.yml", """\
        name: pd
        on: push
        jobs:
          serve:
            runs-on: gpu
            strategy:
              matrix:
                role: [decode, prefill]
                extra: ["", "--log-level info", "--enable-linear-replayssm-spec"]
                a: [1, 2, 3, 4, 5, 6, 7, 8]
            steps:
              - run: python -m sglang.launch_server --model-path m --disaggregation-mode ${{ matrix.role }} --port 3000${{ matrix.a }} ${{ matrix.extra }}
        """)
    code, doc = scratch_git.lint(".")
    assert [f["code"] for f in doc["findings"]] == ["PD020", "SGL101"] and code == 1
