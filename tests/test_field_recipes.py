"""Field test rw5/b on richardhuo-nv/srt-slurm-trtllm @ 22d46ba (srtctl recipes) and rebuilt vLLM scripts of
littlemex/disaggregated-inference-with-nixl-over-aws-efa.

* srtctl ``sweep:`` sections: ``examples/example-sweep.yaml`` writes ``chunked-prefill-size:
  "{chunked_prefill_size}"``; pdlint read the placeholder literally (SGL005 "invalid int value"), while srtctl's
  ``expand_template`` (src/srtctl/core/sweep.py) replaces it by each value of the grid before any flag is written.
* a rule firing at one recipe line for several variants (override sections, sweep jobs) with different values
  was one finding per value; it is one per place.
* VLLM030 / VLLM032 help named a fixed release (v0.11.0 / v0.20.0) whatever range the message stated.
"""

import re
import textwrap

import pytest

from pdlint.formats import yamltree as yt
from pdlint.text import SourceFile, TStr

SWEEP = textwrap.dedent("""\
    name: "example-sweep"
    sweep:
      chunked_prefill_size: [4096, 8192]
    model:
      path: "deepseek-r1"
      container: "lmsysorg+sglang+v0.5.5.post2.sqsh"
    resources: {prefill_workers: 1, decode_workers: 1, gpus_per_node: 4}
    backend:
      sglang_config:
        prefill:
          model-path: "/model/"
          tensor-parallel-size: 4
          chunked-prefill-size: "{chunked_prefill_size}"
        decode:
          model-path: "/model/"
          tensor-parallel-size: 4
    """)


def _col(text, line, needle):
    """1-based column of ``needle`` on 1-based ``line`` of ``text``."""
    return text.splitlines()[line - 1].index(needle) + 1


def _codes(report, code):
    return [f for f in report["findings"] if f["code"] == code]


def _value(launch, flag):
    a = launch["argv"]
    return a[a.index(flag) + 1]


def test_sweep_placeholder_is_each_value_of_the_grid(scratch_git):
    scratch_git.write("sweep.yaml", SWEEP)
    code, report = scratch_git.lint("sweep.yaml")
    assert code == 0 and not report["findings"], report["findings"]
    prefill = [l for l in report["launches"] if l["role"] == "prefill"]
    assert sorted(_value(l, "--chunked-prefill-size") for l in prefill) == ["4096", "8192"]
    assert sorted(l["unit"].split("#recipe/")[1] for l in prefill) == [
        "example-sweep_chunked_prefill_size4096", "example-sweep_chunked_prefill_size8192"]  # srtctl's job names
    assert len(report["launches"]) == 4 and len(report["pairs"]) == 2


def test_a_bad_sweep_value_is_reported_at_its_item_via_the_placeholder(scratch_git):
    text = SWEEP.replace("[4096, 8192]", '[4096, "8k"]')
    scratch_git.write("sweep.yaml", text)
    code, report = scratch_git.lint("sweep.yaml")
    (f,) = _codes(report, "SGL005")
    assert (f["line"], f["column"]) == (3, _col(text, 3, "8k")) and "'8k'" in f["message"], f
    via = [r for r in f["related"] if r["note"] == "via sweep placeholder {chunked_prefill_size}"]
    assert [(r["line"], r["column"]) for r in via] == [(13, _col(text, 13, "{"))], f["related"]
    assert code == 1


def test_a_placeholder_the_sweep_has_no_key_for_is_undefined(scratch_git):
    text = SWEEP.replace('      tensor-parallel-size: 4\n      chunked',
                         '      served-model-name: "dsr1-{variant}"\n      tensor-parallel-size: 4\n      chunked')
    scratch_git.write("sweep.yaml", text)
    code, report = scratch_git.lint("sweep.yaml")
    (f,) = _codes(report, "PD005")
    assert (f["line"], f["column"]) == (12, _col(text, 12, "{variant}")) and f["severity"] == "error", f
    assert "'variant'" in f["message"] and "srtctl leaves '{variant}' as written" in f["message"]
    assert code == 1
    # an int flag keeps its SGL005 too (the server gets the text as written)
    scratch_git.write("sweep.yaml", SWEEP.replace('"{chunked_prefill_size}"', '"{chunk}"'))
    code, report = scratch_git.lint("sweep.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD005", 13), ("SGL005", 13)]


def test_no_sweep_section_no_undefined_placeholder(scratch_git):
    """Without ``sweep:`` srtctl sweeps nothing: a ``{name}`` is text (an environment's ``{node}`` is srtctl's
    own runtime placeholder), judged as written."""
    scratch_git.write("r.yaml", SWEEP.replace('sweep:\n  chunked_prefill_size: [4096, 8192]\n', '')
                      .replace('"{chunked_prefill_size}"', '8192\n      served-model-name: "dsr1-{node}"'))
    code, report = scratch_git.lint("r.yaml")
    assert code == 0 and not report["findings"], report["findings"]


def test_environment_placeholders_are_not_undefined(scratch_git):
    """``backend.prefill_environment`` values get srtctl's ``{node}`` / ``{node_id}`` at run time."""
    scratch_git.write("sweep.yaml", SWEEP.replace("  sglang_config:", "  prefill_environment:\n"
                                                  "    NODE_NAME: \"{node}\"\n  sglang_config:"))
    code, report = scratch_git.lint("sweep.yaml")
    assert code == 0 and not _codes(report, "PD005"), report["findings"]


GRID = textwrap.dedent("""\
    name: "grid"
    sweep:
      tp: [1, 2, 4, 8]
      cps: [1024, 2048, 4096, 8192, "x"]
      mrr: [8, 16]
    model: {container: "lmsysorg+sglang+v0.5.5.post2.sqsh"}
    backend:
      sglang_config:
        prefill:
          tensor-parallel-size: "{tp}"
          chunked-prefill-size: "{cps}"
          max-running-requests: "{mrr}"
        decode:
          tensor-parallel-size: "{tp}"
    """)


def test_a_large_grid_is_cut_to_the_cap_and_says_so(scratch_git):
    from pdlint.formats import srt_sweep as sw
    scratch_git.write("grid.yaml", GRID)
    code, report = scratch_git.lint("grid.yaml")
    assert sw.MAX_SWEEP_VARIANTS == 16
    prefill = [l for l in report["launches"] if l["role"] == "prefill"]
    assert len(prefill) == 16 and len({l["unit"] for l in prefill}) == 16
    # every value of every key is in a checked job, so the bad one is found
    for flag, values in (("--tensor-parallel-size", {"1", "2", "4", "8"}),
                         ("--chunked-prefill-size", {"1024", "2048", "4096", "8192", "x"}),
                         ("--max-running-requests", {"8", "16"})):
        assert {_value(l, flag) for l in prefill} == values
    (cut,) = _codes(report, "PD008")
    assert cut["line"] == 2 and cut["message"].startswith("the sweep makes 40 jobs (4 x 5 x 2 values); only 16 "
                                                          "were checked (every value of each key"), cut
    (bad,) = _codes(report, "SGL005")
    assert (bad["line"], bad["column"]) == (4, _col(GRID, 4, "x")), bad
    assert code == 1


def test_a_grid_within_the_cap_is_every_job_in_srtctls_order():
    from pdlint.formats import srt_sweep as sw
    root = yt.Ref(yt.compose("sweep:\n  a: [1, 2, 3]\n  b: [x, y]\nv: '{a}-{b}'\n")[0].root)
    g, errors = sw.grid(root)
    jobs = sw.pick(g)
    assert not errors and sw.total(g) == 6
    assert [(j.index, sw.job_label(j)) for j in jobs][:3] == [
        (1, "sweep job 1 (a=1, b=x)"), (2, "sweep job 2 (a=1, b=y)"), (3, "sweep job 3 (a=2, b=x)")]


def _expanded(text: str, job: int = 0):
    from pdlint.formats import srt_sweep as sw
    src = SourceFile("r.yaml", text)
    doc = TStr.from_source(src)
    root = yt.Ref(yt.compose(text)[0].root)
    g, _ = sw.grid(root)
    out = sw.expand(doc, root, sw.pick(g)[job], [])
    return yt.to_python(yt.Ref(out)), yt.Ref(out), doc


def test_expand_template_semantics():
    """srtctl's expand_template: str(value) in strings only; a list replaces a string that is only its placeholder
    and is comma-joined inside a longer one; numbers and keys stay; the sweep section is dropped."""
    value, _, _ = _expanded("sweep:\n  l: [[1, 2]]\n  f: [true]\n"
                            "a: '{l}'\nb: 'x{l}'\nc: '{f}'\nd: 5\n'{f}': k\ne: ['{f}', {g: '{f}/{none}'}]\n")
    assert value == {"a": [1, 2], "b": "x1,2", "c": "True", "d": 5, "{f}": "k", "e": ["True", {"g": "True/{none}"}]}


def test_expanded_value_is_traced_to_the_sweep_item():
    _, root, doc = _expanded("sweep:\n  n: [4096, 8192]\nbackend:\n  v: 'pre-{n}'\n", job=1)
    tok = yt.scalar_tstr(doc, yt.get(root, "backend") and yt.get(yt.get(root, "backend"), "v"))
    assert tok.text == "pre-8192"
    assert (tok.origin.line, tok.origin.column) == (4, 7)  # "pre-" is the recipe's
    o = tok.origin_at(4)
    assert (o.line, o.column) == (2, 13) and [h.note for h in o.chain] == ["sweep placeholder {n}"]


@pytest.mark.parametrize("sweep,message", [
    ("sweep:\n  chunked_prefill_size: []\n", "sweep.chunked_prefill_size is an empty list"),
    ("sweep:\n  chunked_prefill_size: 4096\n", "sweep.chunked_prefill_size is not a list"),
])
def test_a_sweep_srtctl_cannot_expand_is_pd051(scratch_git, sweep, message):
    scratch_git.write("sweep.yaml", SWEEP.replace("sweep:\n  chunked_prefill_size: [4096, 8192]\n", sweep))
    code, report = scratch_git.lint("sweep.yaml")
    (f,) = _codes(report, "PD051")
    assert (f["line"], f["column"]) == (3, 3) and message in f["message"], f  # at the key
    assert not _codes(report, "SGL005")  # no job: nothing judged as written


OVERRIDE_SWEEP = """\
    base:
      name: "ov"
      model: {container: "lmsysorg+sglang+v0.5.5.post2.sqsh"}
      sweep:
        cps: [4096, 8192]
      backend:
        sglang_config:
          prefill: {tensor-parallel-size: 4, chunked-prefill-size: "{cps}"}
          decode: {tensor-parallel-size: 4}
    override_a:
      backend: {sglang_config: {decode: {max-running-requests: 64}}}
    override_b:
      backend: {sglang_config: {decode: {max-running-requests: 128}}}
    """


def test_override_variants_with_a_sweep_are_each_swept(scratch_git):
    """srtctl submit_override: a resolved variant with a ``sweep`` section goes to submit_sweep."""
    scratch_git.write("ov.yaml", OVERRIDE_SWEEP)
    code, report = scratch_git.lint("ov.yaml")
    assert code == 0 and not report["findings"], report["findings"]
    units = sorted({l["unit"].split("#recipe/")[1] for l in report["launches"]})
    assert units == ["ov_a_cps4096", "ov_a_cps8192", "ov_b_cps4096", "ov_b_cps8192"]


TRT_ZIP = textwrap.dedent("""\
    base:
      name: "trt"
      backend:
        trtllm_config:
          prefill:
            tensor_parallel_size: 4
            cache_transceiver_config: {backend: UCX}
            disable_overlap_scheduler: true
          decode:
            tensor_parallel_size: 8
            cache_transceiver_config: {backend: UCX}
            attn_backend: FLASHINFER
    zip_override_ctx:
      backend:
        trtllm_config:
          prefill:
            tensor_parallel_size: [2, 4, 4]
    """)


def test_trt003_once_per_recipe_line_over_variants(scratch_git):
    """Three variants, two context TP sizes, one generation line: one TRT003 there, both sizes related."""
    scratch_git.write("r.yaml", TRT_ZIP)
    _, report = scratch_git.lint("r.yaml")
    (f,) = _codes(report, "TRT003")
    assert (f["line"], f["column"]) == (10, _col(TRT_ZIP, 10, "8")), f
    assert "(and 1 other finding of this rule here, in other variants of the recipe" in f["message"]
    notes = {(r["line"], r["note"]) for r in f["related"]}
    assert {(17, "the context server's tensor_parallel_size 2"),
            (17, "the context server's tensor_parallel_size 4")} <= notes, f["related"]


def test_trt003_once_per_sweep_line(scratch_git):
    scratch_git.write("t.yaml", """\
        name: "trt"
        sweep: {ctx_tp: [2, 4]}
        backend:
          trtllm_config:
            prefill: {tensor_parallel_size: "{ctx_tp}", disable_overlap_scheduler: true}
            decode: {tensor_parallel_size: 8, attn_backend: FLASHINFER}
        """)
    _, report = scratch_git.lint("t.yaml")
    (f,) = _codes(report, "TRT003")
    assert f["line"] == 6 and {(r["line"], r["column"]) for r in f["related"]} >= {(2, 18), (2, 21)}, f


def test_trt003_stays_one_per_recipe_file(scratch_git):
    """srt-slurm-trtllm's 210 TRT003 were 210 recipe files (one each): separate recipes stay separate findings."""
    one = textwrap.dedent(TRT_ZIP.split("zip_override_ctx")[0].replace("base:\n", ""))
    scratch_git.write("a.yaml", one)
    scratch_git.write("b.yaml", one.replace('"trt"', '"trt2"'))
    _, report = scratch_git.lint("a.yaml", "b.yaml")
    assert sorted((f["path"], f["line"]) for f in _codes(report, "TRT003")) == [("a.yaml", 9), ("b.yaml", 9)]
    assert not any("other finding" in f["message"] for f in report["findings"])


def test_same_message_variants_keep_the_plain_message(scratch_git):
    scratch_git.write("r.yaml", TRT_ZIP.replace("[2, 4, 4]", "[2, 2]"))
    _, report = scratch_git.lint("r.yaml")
    (f,) = _codes(report, "TRT003")
    assert f["message"] == ("tensor_parallel_size is 2 on the context server but 8 on the generation server, with "
                            "the FlashInfer attention backend")


def _span_releases(message):
    m = re.search(r"(?:in|by) vLLM (\d+\.\d+\.\d+)(?:-(\d+\.\d+\.\d+))? of the releases pdlint has tables for", message)
    return m.group(1), m.group(2) or m.group(1)


def _key(v):
    return tuple(int(x) for x in v.split("."))


@pytest.mark.parametrize("kv,code", [
    ('{"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_rank":0,"kv_buffer_size":5000000000}', "VLLM030"),
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}', "VLLM032"),
    ('{"kv_connector":"PyNcclConnector","kv_role":"kv_producer"}', "VLLM032"),  # 0.9.2 only
])
def test_pin_help_names_a_release_in_the_stated_range(scratch_git, kv, code):
    scratch_git.write("run.sh", f"vllm serve M --kv-transfer-config '{kv}'\n")
    _, report = scratch_git.lint("run.sh")
    (f,) = _codes(report, code)
    low, high = _span_releases(f["message"])
    (named,) = re.findall(r"vllm/vllm-openai:v(\d+\.\d+\.\d+)", f["fix"])
    assert _key(low) <= _key(named) <= _key(high), (f["message"], f["fix"])
    assert named == high and f'vllm-version = "{high}"' in f["fix"]  # the newest release of the range


def test_pin_help_static_text_is_in_the_range_too():
    from pdlint.rules import rule
    for code in ("VLLM030", "VLLM032"):
        assert "vllm/vllm-openai:v0.20.0" in rule(code).fix  # 0.9.2-0.20.0 for the keys and connectors named


ALIAS_RECIPE = textwrap.dedent("""\
    name: "alias"
    model:
      path: "deepseek-r1"
      container: "CONTAINER"
    resources: {prefill_workers: 1, decode_workers: 1, gpus_per_node: 4}
    backend:
      sglang_config:
        prefill:
          tensor-parallel-size: 4
          cuda-graph-max-bs: 256
        decode:
          tensor-parallel-size: 4
    """)


def test_a_container_alias_that_reads_like_a_release_is_named_in_the_unpinned_warning(scratch_git):
    # field test rw21/b (NVIDIA/srt-slurm): `container: "v0.5.7"` is an alias of the site's srtslurm.yaml
    scratch_git.write("r.yaml", ALIAS_RECIPE.replace("CONTAINER", "v0.5.7"))
    _, report = scratch_git.lint("r.yaml")
    (f,) = _codes(report, "SGL012")
    assert "(the recipe's `model.container: v0.5.7` is an alias of the site's srtslurm.yaml" in f["message"]
    assert "`identity.frameworks.sglang` pins the release" in f["message"]
    scratch_git.write("r.yaml", ALIAS_RECIPE.replace("CONTAINER", "dynamo-sglang"))
    _, report = scratch_git.lint("r.yaml")
    assert all("srtslurm.yaml" not in f["message"] for f in _codes(report, "SGL012"))
