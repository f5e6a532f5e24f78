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

def _col(text, line, needle):
    """1-based column of ``needle`` on 1-based ``line`` of ``text``."""
    return text.splitlines()[line - 1].index(needle) + 1


def _codes(report, code):
    return [f for f in report["findings"] if f["code"] == code]


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
    assert {(16, "the context server's tensor_parallel_size 2"),
            (16, "the context server's tensor_parallel_size 4")} <= notes, f["related"]


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
    assert f["message"] == "tensor_parallel_size is 2 on the context server but 8 on the generation server"


def _span_releases(message):
    m = re.search(r"only (?:in|by) vLLM (\d+\.\d+\.\d+)(?:-(\d+\.\d+\.\d+))?", message)
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
