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
