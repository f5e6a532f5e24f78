"""pdlint's Helm template subset: ``toYaml`` traced item by item, values nested deep, digests that cannot be made,
and chart walks that stay inside the repository.

Field test rw22/h (hostile-input charts, no public repository; the shapes are Helm's own idioms):
- item 12: ``args: {{- toYaml .Values.prefill.args | nindent 12 }}`` placed every list item at the list's first
  item: an ignore comment on the innocent ``- --model-path`` line hid the SGL101 of a flag four lines below, and a
  false PD020 was reported on an item the launch did check.
- item 14: ``checksum/values: {{ toYaml .Values | sha256sum }}`` (Helm's documented checksum idiom) over a list
  nested 400 deep in values.yaml hit Python's recursion limit; the whole template was left unrendered and its
  launch unchecked (warnings only, exit 0).
- item 4 (second trigger): a library sub-chart whose ``templates`` is a committed symlink to ``/`` made pdlint
  walk the machine (10 s, 478 MB, the chart's own SGL101 lost to PD008).
"""

import os

import pytest
import yaml

from pdlint.formats import helm
from pdlint.formats import yamltree as yt
from pdlint.text import SourceFile, TStr


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def _read(p):
    try:
        with open(p, encoding="utf-8") as fh:
            return SourceFile(p, fh.read())
    except OSError:
        return None


def _render(tmp_path, template, values):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    (chart / "templates" / "pd.yaml").write_text(template)
    return helm.render_subset(str(chart), _read)


def _one(res):
    assert res.failed is None and res.unrendered == [], res.failed or res.unrendered
    (r,) = res.rendered
    return r.text


def _where(values: str, word: str) -> tuple:
    """(line, column) where ``word`` is written in values.yaml (once)."""
    assert values.count(word) == 1, word
    i = values.index(word)
    return values.count("\n", 0, i) + 1, i - values.rfind("\n", 0, i)


def _traced(text: TStr, word: str) -> tuple:
    i = text.text.index(word)
    o = text.origin_at(i)
    assert o.path.endswith("values.yaml"), (word, o.path)
    return o.line, o.column


# -- item 12: toYaml LIST | nindent N --------------------------------------------------------------------------

ARGS = """\
image: lmsysorg/sglang:v0.5.23
prefill:
  args:
    - --model-path
    - m
    - --disaggregation-mode
    - prefill
    - --enable-linear-replayssm-spec
"""

DEP = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
spec:
  template:
    spec:
      containers:
        - name: s
          image: {{ .Values.image }}
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            {{- toYaml .Values.prefill.args | nindent 12 }}
"""


def test_every_item_of_a_to_yaml_block_list_is_traced_to_its_own_values_line(tmp_path):
    text = _one(_render(tmp_path, DEP, ARGS))
    items = ["--model-path", "m", "--disaggregation-mode", "prefill", "--enable-linear-replayssm-spec"]
    assert text.text.endswith("          args:" + "".join(f"\n            - {w}" for w in items) + "\n")
    pos = text.text.index("args:")
    for n, w in enumerate(items):
        i = text.text.index("- " + w, pos) + 2
        pos = i
        o = text.origin_at(i)
        assert (o.path, o.line, o.column) == (str(tmp_path / "chart" / "values.yaml"), 4 + n, 7), w


def test_every_scalar_and_key_of_a_to_yaml_nested_mapping_is_traced_to_its_own_line(tmp_path):
    values = ("prefill:\n  env:\n    SGLANG_X: one\n    NCCL_Y: two\n  args:\n    - --tp\n    - 2\n"
              "  extra:\n    - name: spec\n      flag: --speculative-algorithm\n    - [--dp, 4]\n")
    text = _one(_render(tmp_path, "spec:\n  {{- toYaml .Values.prefill | nindent 2 }}\n", values))
    assert yaml.safe_load(text.text)["spec"] == yaml.safe_load(values)["prefill"]
    for word in ("SGLANG_X", "one", "NCCL_Y", "two", "--tp", "--speculative-algorithm", "spec\n", "--dp", "flag",
                 "extra"):
        w = word.strip()
        i = text.text.index(word if word.endswith("\n") else w)
        o = text.origin_at(i)
        j = values.index(word if word.endswith("\n") else w)
        assert (o.path.endswith("values.yaml"), o.line) == (True, values.count("\n", 0, j) + 1), w
        assert o.column == j - values.rfind("\n", 0, j), w


def test_to_yaml_writes_go_yaml_block_style_that_reads_back_as_the_same_value(tmp_path):
    values = ('v:\n  a: [x, "y z", "", "-", "--f=1", "a: b", "#c", null, 1.5, "1.5", "0x1f", "@x", "x:", '
              '"tab\\there", "nl\\nx", "\\u2028", "---", "-1", "yes"]\n  b: {"": e, "1": one, "k l": m, n: {}}\n'
              '  c: |\n    multi\n    line\n  d: [[1, [2, 3]], {h: i, j: []}]\n')
    text = _one(_render(tmp_path, "{{ toYaml .Values.v }}\n", values))
    assert yaml.safe_load(text.text) == yaml.safe_load(values)["v"]
    assert text.text.startswith("a:\n- x\n- y z\n")  # a list under a key is not indented (go-yaml, PyYAML)
    assert "d:\n- - 1\n  - - 2\n    - 3\n- h: i\n  j: []\n" in text.text


def test_the_suppression_on_the_first_item_does_not_hide_a_later_items_finding(no_helm, scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", ARGS.replace(
        "- --model-path", "- --model-path  # pdlint: ignore[SGL101] model path is mounted by the operator"))
    scratch_git.write("chart/templates/dep.yaml", DEP)
    code, out = scratch_git.lint(".")
    got = sorted((f["code"], f["path"], f["line"], f["column"]) for f in out["findings"])
    assert ("SGL101", "chart/values.yaml", 8, 7) in got
    assert not [g for g in got if g[0] == "PD020"]
    assert code == 1


def test_the_same_chart_without_the_bad_flag_is_clean(no_helm, scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", ARGS.replace("    - --enable-linear-replayssm-spec\n", ""))
    scratch_git.write("chart/templates/dep.yaml", DEP)
    code, out = scratch_git.lint(".")
    assert (code, out["findings"], len(out["launches"])) == (0, [], 1)


# -- item 14: toYaml / toJson of a value nested deep -----------------------------------------------------------

CHECKSUM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
  annotations:
    checksum/values: {{ FUNC .Values | sha256sum }}
spec:
  template:
    spec:
      containers:
        - name: p
          image: lmsysorg/sglang:v0.5.23
          command: ["python", "-m", "sglang.launch_server", "--model-path", "m", "--disaggregation-mode", "prefill", "--tp", "{{ .Values.tp }}", "--enable-linear-replayssm-spec"]
"""


def _deep(n: int) -> str:
    return "tp: 2\nextra: " + "[" * n + "1" + "]" * n + "\n"


def test_to_yaml_of_values_nested_400_deep_is_written(tmp_path):
    import hashlib
    text = _one(_render(tmp_path, CHECKSUM.replace("FUNC", "toYaml"), _deep(400)))
    want = "extra:\n" + "".join("  " * i + "- " for i in range(1)) + "- " * 399 + "1\ntp: 2"
    assert yaml.safe_load(want) == {"extra": yaml.safe_load(_deep(400))["extra"], "tp": 2}
    assert "checksum/values: " + hashlib.sha256(want.encode()).hexdigest() in text.text


def test_values_nested_deep_still_convert_to_python():
    # (PyYAML's parser bounds nesting below 1000; the old recursive conversion failed near 400)
    doc = yt.compose("a:\n" + "".join(" " * (2 * i) + "-\n" for i in range(990)) + " " * 1980 + "1\n"
                     "b: {x: 1, x: 2}\n")
    v = yt.to_python(yt.Ref(doc[0].root))
    assert v["b"] == {"x": 2}  # a key written twice: the last value, as before
    depth, cur = 0, v["a"]
    while isinstance(cur, list):
        depth, cur = depth + 1, cur[0]
    assert (depth, cur) == (990, 1)


def test_the_checksum_idiom_over_deep_values_leaves_the_launch_checked(no_helm, scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", _deep(400))
    scratch_git.write("chart/templates/dep.yaml", CHECKSUM.replace("FUNC", "toYaml"))
    code, out = scratch_git.lint(".")
    assert code == 1 and [f["code"] for f in out["findings"]] == ["SGL101"]


def test_a_digest_the_subset_cannot_make_is_opaque_and_the_rest_is_rendered(no_helm, scratch_git):
    # toJson is bounded (64 levels; 900 hit Python's recursion limit): the annotation's digest is opaque, the
    # launch below it still checked
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", _deep(900))
    scratch_git.write("chart/templates/dep.yaml", CHECKSUM.replace("FUNC", "toJson"))
    code, out = scratch_git.lint(".")
    assert code == 1 and [f["code"] for f in out["findings"]] == ["SGL101"]


def test_an_opaque_digest_is_marked_opaque_and_a_made_one_is_not(tmp_path):
    text = _one(_render(tmp_path, "a: {{ toJson .Values | sha256sum }}\nb: {{ toJson .Values.tp | sha256sum }}\n",
                        _deep(400)))
    a, b = text.text.split("\n")[:2]
    assert text[3:len(a)].opaque and a == "a: pdlint-opaque-digest"
    import hashlib
    assert b == "b: " + hashlib.sha256(b"2").hexdigest() and not text[len(a) + 4:].opaque


def test_a_value_nested_too_deep_elsewhere_is_refused_with_a_clear_message(tmp_path):
    res = _render(tmp_path, "a: {{ toJson .Values.extra }}\n", _deep(400))
    assert res.rendered == [] and res.failed is not None
    assert "nested more than 64 levels deep" in res.failed.message


# -- item 4: a library sub-chart's templates folder that links out of the repository ---------------------------

def _lib_chart(tmp_path, target):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    lib = repo / "chart" / "charts" / "lib"
    lib.mkdir(parents=True)
    (lib / "Chart.yaml").write_text("apiVersion: v2\nname: lib\ntype: library\nversion: 0.1.0\n")
    os.symlink(target, lib / "templates")
    return repo, lib / "templates"


def test_a_templates_folder_linking_out_of_the_repository_is_not_walked(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "_helpers.tpl").write_text('{{- define "lib.args" -}}--x{{- end -}}\n')
    repo, link = _lib_chart(tmp_path, str(outside))
    assert helm.chart_files(str(link)) == []
    assert helm.chart_files(str(link), str(repo)) == []
    assert helm.library_helpers(str(repo / "chart"), _read, None) == []


def test_a_templates_folder_linking_inside_the_repository_is_walked(tmp_path):
    repo, link = _lib_chart(tmp_path, "../../../shared")
    (repo / "shared").mkdir()
    (repo / "shared" / "_helpers.tpl").write_text('{{- define "lib.args" -}}--x{{- end -}}\n')
    assert [os.path.basename(f) for f in helm.chart_files(str(link))] == ["_helpers.tpl"]
    assert [os.path.basename(s.path) for s in helm.library_helpers(str(repo / "chart"), _read, None)] == [
        "_helpers.tpl"]


def test_a_chart_walk_reads_at_most_max_chart_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(helm, "MAX_CHART_ENTRIES", 5)
    for i in range(3):
        d = tmp_path / f"d{i}"
        d.mkdir()
        for j in range(4):
            (d / f"f{j}.yaml").write_text("")
    got = helm.chart_files(str(tmp_path))
    assert 0 < len(got) <= 5 and got == sorted(got)  # (folders count as entries too)
    monkeypatch.setattr(helm, "MAX_CHART_ENTRIES", 100)
    assert len(helm.chart_files(str(tmp_path))) == 12
