"""Helm chart values overlays (pdlint.formats.helm ``overlay_values``, ``Extractor.chart_render_overlays``).

Found on vllm-project/aibrix: test/regression/v0.4.0 is a chart of four templates, each guarded by
``{{- if and (eq .Values.engine.type "sglang") (eq .Values.deployment.type "disaggregated") }}``, that its
README installs with ``--values configs/<engine>-<disagg|non-disagg>-base.yaml``.  pdlint rendered it with
values.yaml alone, so three of the four templates' launches were never built (PD020 "no render of chart ...
with its values.yaml produced it").  A chart is now also rendered once per values overlay: a YAML file of its
tree whose top-level keys are all values.yaml keys, or one ``helm-values`` names."""

import os
import stat
import textwrap

import pytest

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import helm
from pdlint.formats import yamltree as yt
from pdlint.lint import ConfigResolver
from pdlint.text import SourceFile, TStr


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


VALUES = """\
    mode: agg
    prefill:
      pageSize: 64
    decode:
      pageSize: 64
    """

AGG = """\
    {{- if eq .Values.mode "agg" }}
    apiVersion: v1
    kind: Pod
    metadata: {name: agg}
    spec:
      containers:
        - name: s
          command:
            - python3
            - -m
            - sglang.launch_server
            - --model-path
            - /models/m
    {{- end }}
    """

PD = """\
    {{- if eq .Values.mode "pd" }}
    apiVersion: v1
    kind: Pod
    metadata: {name: pd}
    spec:
      containers:
        - name: prefill
          command:
            - python3
            - -m
            - sglang.launch_server
            - --model-path
            - /models/m
            - --disaggregation-mode
            - prefill
            - --page-size
            - "{{ .Values.prefill.pageSize }}"
        - name: decode
          command:
            - python3
            - -m
            - sglang.launch_server
            - --model-path
            - /models/m
            - --disaggregation-mode
            - decode
            - --page-size
            - "{{ .Values.decode.pageSize }}"
    {{- end }}
    """


def _chart(s, values=VALUES):
    s.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    s.write("chart/values.yaml", values)
    s.write("chart/templates/agg.yaml", AGG)
    s.write("chart/templates/pd.yaml", PD)


def _codes(out):
    return sorted((f["code"], f["path"], f["line"]) for f in out["findings"])


def test_an_overlay_that_flips_the_switch_gets_its_launches_checked(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("chart/configs/pd.yaml", """\
        # the PD deployment (helm install x . --values configs/pd.yaml)
        mode: pd
        decode:
          pageSize: 32
        """)
    scratch_git.write("chart/configs/pd-small.yaml", """\
        mode: pd
        prefill:
          pageSize: 32
        decode:
          pageSize: 32
        """)
    _, out = scratch_git.lint("chart")
    # the agg template with values.yaml, the pd template with each overlay: every launch line checked
    assert not [f for f in out["findings"] if f["code"] == "PD020"]
    units = sorted((l["path"], l["line"], l["unit"]) for l in out["launches"])
    assert units == [("chart/templates/agg.yaml", 9, "helm:chart#Pod/agg"),
                     ("chart/templates/pd.yaml", 9, "helm:chart --values configs/pd-small.yaml#Pod/pd"),
                     ("chart/templates/pd.yaml", 9, "helm:chart --values configs/pd.yaml#Pod/pd"),
                     ("chart/templates/pd.yaml", 20, "helm:chart --values configs/pd-small.yaml#Pod/pd"),
                     ("chart/templates/pd.yaml", 20, "helm:chart --values configs/pd.yaml#Pod/pd")]
    # the decode's page size the overlay sets: reported at the overlay's line, the prefill's at values.yaml
    (f,) = out["findings"]
    assert (f["code"], f["path"], f["line"]) == ("SGL801", "chart/configs/pd.yaml", 4)
    assert ("chart/values.yaml", 3) in [(r["path"], r["line"]) for r in f["related"]]
    assert "rendered with values overlay configs/pd.yaml" in " ".join(r["note"] for r in f["related"])
    # each overlay is its own deployment: pd-small's decode (32) never meets pd's prefill (64)
    assert sorted(p["unit"] for p in out["pairs"]) == ["helm:chart --values configs/pd-small.yaml#Pod/pd",
                                                       "helm:chart --values configs/pd.yaml#Pod/pd"]
    assert out["coverage"]["unpaired_prefill"] == 0 and out["coverage"]["unpaired_decode"] == 0


def test_without_overlays_the_switched_off_template_stays_pd020_and_says_how(no_helm, scratch_git):
    _chart(scratch_git)
    _, out = scratch_git.lint("chart")
    assert {(c, p) for c, p, _ in _codes(out)} == {("PD020", "chart/templates/pd.yaml")}
    f = out["findings"][0]
    assert "no render of chart chart with its values.yaml produced it" in f["message"]
    assert "values overlay pdlint renders it with" in f["fix"] and "`helm-values`" in f["fix"]


def test_yaml_beside_the_chart_that_is_no_values_file_is_no_overlay(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("chart/configs/client.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                                                   "data: {mode: pd}\n")
    scratch_git.write("chart/configs/mixed.yaml", "mode: pd\nreplicas: 2\n")  # `replicas` is no values key
    scratch_git.write("chart/templates/extra.yaml", "mode: pd\n")  # templates/ is the chart's own
    scratch_git.write("chart/ci/empty.yaml", "{}\n")
    _, out = scratch_git.lint("chart")
    assert not [l for l in out["launches"] if "--values" in l["unit"]]
    assert {(c, p) for c, p, _ in _codes(out)} == {("PD020", "chart/templates/pd.yaml")}
    keys = {"mode", "prefill", "decode"}
    assert helm.is_overlay(keys, "mode: pd\n") and helm.is_overlay(keys, "decode: {pageSize: 1}\n")
    assert not helm.is_overlay(keys, "mode: pd\nreplicas: 2\n") and not helm.is_overlay(keys, "{}\n")
    assert not helm.is_overlay(keys, "- mode\n") and not helm.is_overlay(keys, "mode: [\n")
    assert not helm.is_overlay(set(), "mode: pd\n")
    assert not helm.overlay_location("/c", "/c/values.yaml") and not helm.overlay_location("/c", "/c/Chart.yaml")
    assert not helm.overlay_location("/c", "/c/charts/sub/values-x.yaml")
    assert not helm.overlay_location("/c", "/c/crds/x.yaml") and not helm.overlay_location("/c", "/c/x.json")
    assert helm.overlay_location("/c", "/c/values-pd.yaml") and helm.overlay_location("/c", "/c/ci/values.yml")


def test_values_merge_as_helm_merges_them_and_keep_their_lines():
    base = SourceFile("c/values.yaml", textwrap.dedent("""\
        engine:
          type: sglang
          image: img:1
        args: [--a, --b]
        gone: 1
        keep: {x: 1}
        """))
    ov = SourceFile("c/configs/o.yaml", textwrap.dedent("""\
        engine:
          type: vllm
        args: [--c]
        gone: null
        """))
    bdoc = TStr.from_source(base)
    doc, root = helm.overlay_values(bdoc, yt.Ref(yt.compose(base.text)[0].root), ov)
    assert yt.to_python(root) == {"engine": {"type": "vllm", "image": "img:1"}, "args": ["--c"],
                                  "keep": {"x": 1}}
    where = {}
    for path in (("engine", "type"), ("engine", "image"), ("args",), ("keep", "x")):
        ref = root
        for k in path:
            ref = yt.get(ref, k)
        node = yt.deref(ref).node
        t = yt.scalar_tstr(doc, ref) if isinstance(node, yt.YScalar) else yt.node_tstr(doc, ref)
        where[path] = (t.origin.path, t.origin.line)
    assert where == {("engine", "type"): ("c/configs/o.yaml", 2), ("engine", "image"): ("c/values.yaml", 3),
                     ("args",): ("c/configs/o.yaml", 3), ("keep", "x"): ("c/values.yaml", 6)}
    with pytest.raises(helm.Unsupported, match="is not a mapping"):
        helm.overlay_values(bdoc, None, SourceFile("o.yaml", "- a\n"))


def test_an_overlay_the_defaults_render_alike_adds_no_duplicate(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("chart/values.yaml", "mode: pd\nprefill:\n  pageSize: 64\ndecode:\n  pageSize: 32\n"
                                           "replicas: 1\n")
    scratch_git.write("chart/values-scale.yaml", "replicas: 3\n")  # a value no template reads
    _, out = scratch_git.lint("chart")
    assert [l["unit"] for l in out["launches"]] == ["helm:chart#Pod/pd"] * 2
    assert len(out["pairs"]) == 1
    assert [(c, p) for c, p, _ in _codes(out)] == [("PD020", "chart/templates/agg.yaml"),
                                                   ("SGL801", "chart/values.yaml")]
    pd020 = next(f for f in out["findings"] if f["code"] == "PD020")
    assert ("no render of chart chart with its values.yaml or its 1 values overlay (values-scale.yaml) produced "
            "it") in pd020["message"]


def test_overlays_past_the_bound_are_named_where_text_stays_unchecked(no_helm, scratch_git):
    _chart(scratch_git, VALUES.replace("mode: agg", "mode: none"))
    for i in range(helm.MAX_OVERLAYS):
        scratch_git.write(f"chart/configs/o{i:02d}.yaml", "mode: pd\n")
    scratch_git.write(f"chart/configs/o{helm.MAX_OVERLAYS:02d}.yaml", "mode: agg\n")  # sorted last: cut
    _, out = scratch_git.lint("chart")
    assert not [l for l in out["launches"] if l["path"] == "chart/templates/agg.yaml"]
    (f,) = [f for f in out["findings"] if f["code"] == "PD020"]
    assert f["path"] == "chart/templates/agg.yaml"
    assert f"its {helm.MAX_OVERLAYS} values overlays (configs/o00.yaml" in f["message"]
    assert (f"1 more values overlay not rendered (at most {helm.MAX_OVERLAYS} per chart): "
            f"configs/o{helm.MAX_OVERLAYS:02d}.yaml") in f["message"]
    # 16 renders of the pd template, each as the first one (`mode` is read, not rendered): one deployment
    assert [p["unit"] for p in out["pairs"]] == ["helm:chart --values configs/o00.yaml#Pod/pd"]


def test_an_overlay_that_does_not_render_is_named(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("pyproject.toml", """\
        [tool.pdlint.helm-values]
        "chart" = ["envs/*.yaml"]
        """)
    scratch_git.write("envs/bad.yaml", "mode: [\n")  # named: rendered with, and it does not parse
    scratch_git.write("chart/ci/bad.yaml", "mode: [\n")  # in the tree: no mapping, so no overlay
    _, out = scratch_git.lint("chart", "envs")
    f = next(f for f in out["findings"] if f["code"] == "PD020" and f["path"] == "chart/templates/pd.yaml")
    assert "no render of chart chart with its values.yaml produced it" in f["message"]
    assert "; values overlay ../envs/bad.yaml was not rendered (values overlay envs/bad.yaml does not parse" \
        in f["message"]
    assert "ci/bad.yaml" not in f["message"]


def test_helm_values_names_overlays_that_live_elsewhere(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("pyproject.toml", """\
        [tool.pdlint.helm-values]
        "chart" = ["envs/*.yaml"]
        """)
    scratch_git.write("envs/pd.yaml", "mode: pd\ndecode:\n  pageSize: 16\n")
    scratch_git.write("envs/other.yml", "mode: pd\n")  # not matched by the glob
    _, out = scratch_git.lint("chart", "envs")  # envs/pd.yaml: rendered with the chart, not read on its own
    assert sorted({l["unit"] for l in out["launches"]}) == ["helm:chart --values ../envs/pd.yaml#Pod/pd",
                                                            "helm:chart#Pod/agg"]
    assert _codes(out) == [("SGL801", "envs/pd.yaml", 3)]


def test_helm_values_outside_the_repository_is_a_config_error(no_helm, scratch_git):
    _chart(scratch_git)
    scratch_git.write("pyproject.toml", """\
        [tool.pdlint.helm-values]
        "chart" = ["../elsewhere/*.yaml"]
        """)
    code, out = scratch_git.lint("chart")
    (f,) = [f for f in out["findings"] if f["code"] == "PD012"]
    assert "helm-values: ../elsewhere/*.yaml is outside the repository" in f["message"] and code == 1
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nhelm-values = {"chart" = "envs/*.yaml"}\n')
    _, out = scratch_git.lint("chart")
    (f,) = [f for f in out["findings"] if f["code"] == "PD012"]
    assert "helm-values must be a table mapping chart directories to lists of globs" in f["message"]


def _extract(*paths, cwd):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def test_helm_template_gets_the_overlay_with_values(tmp_path, monkeypatch):
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "configs").mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(textwrap.dedent(VALUES))
    (chart / "templates" / "pd.yaml").write_text(textwrap.dedent(PD))
    (chart / "configs" / "pd.yaml").write_text("mode: pd\ndecode:\n  pageSize: 32\n")
    body = textwrap.dedent(PD).split("\n", 1)[1].replace("{{- end }}\n", "").replace(
        '"{{ .Values.prefill.pageSize }}"', '"64"')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "base.txt").write_text("---\n# Source: c/templates/pd.yaml\n")
    (tmp_path / "pd.txt").write_text("---\n# Source: c/templates/pd.yaml\n" +
                                     body.replace('"{{ .Values.decode.pageSize }}"', '"32"'))
    script = bin_dir / "helm"
    script.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        echo "$@" >> '{tmp_path / 'args.txt'}'
        case "$*" in
          *--values*) cat '{tmp_path / 'pd.txt'}' ;;
          *) cat '{tmp_path / 'base.txt'}' ;;
        esac
        """))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    (tmp_path / ".git").mkdir()
    out = _extract("c", cwd=str(tmp_path))
    calls = (tmp_path / "args.txt").read_text().splitlines()
    real = os.path.realpath(str(chart))
    assert calls == [f"template release-name {real} --skip-tests",
                     f"template release-name {real} --skip-tests --values {os.path.join(real, 'configs', 'pd.yaml')}"]
    assert sorted(l.meta.get("values_overlay") or "" for l in out.launches) == ["configs/pd.yaml"] * 2
    (d,) = [l for l in out.launches if l.role == "decode"]
    assert "rendered with values overlay configs/pd.yaml by helm template" in d.context
    toks = {t.text: t.origin for t in d.argv}
    assert (toks["32"].path, toks["32"].line) == ("c/configs/pd.yaml", 3)


ROUTER = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: router}
    spec:
      containers:
        - name: r
          command:
            - python3
            - -m
            - sglang_router.launch_router
            - --pd-disaggregation
            - --prefill
            - http://10.0.0.1:30000
            - --decode
            - http://10.0.0.2:30001
    """

SERVERS = """\
    {{- if eq .Values.mode "pd" }}
    apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
        - name: p
          command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill,
                    --host, 10.0.0.1, --port, "30000", --page-size, "{{ .Values.prefill.pageSize }}"]
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: d}
    spec:
      containers:
        - name: d
          command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, decode,
                    --host, 10.0.0.2, --port, "30001", --page-size, "{{ .Values.decode.pageSize }}"]
    {{- end }}
    """


def test_a_router_joins_the_servers_of_its_own_render_only(no_helm, scratch_git):
    # the router names the servers' addresses: in every render, so without the overlay boundary it would join
    # the prefill of configs/a.yaml with the decode of configs/b.yaml (and report their page sizes at b's line)
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", VALUES)
    scratch_git.write("chart/templates/router.yaml", ROUTER)
    scratch_git.write("chart/templates/servers.yaml", SERVERS)
    scratch_git.write("chart/configs/a.yaml", "mode: pd\n")
    scratch_git.write("chart/configs/b.yaml", "mode: pd\nprefill:\n  pageSize: 32\ndecode:\n  pageSize: 32\n")
    _, out = scratch_git.lint("chart")
    assert _codes(out) == []
    units = sorted(d["unit"].split("#")[0] for d in out["pairs"] if d["pairs"])
    assert units == ["helm:chart --values configs/a.yaml", "helm:chart --values configs/b.yaml"]
    launches = out["launches"]
    for dep in out["pairs"]:
        for pair in dep["pairs"]:
            assert launches[pair["prefill"]["launch"]]["unit"].split("#")[0] == \
                launches[pair["decode"]["launch"]]["unit"].split("#")[0]


def test_overlays_the_time_budget_cannot_afford_are_named(no_helm, tmp_path, monkeypatch):
    from pdlint import budget
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(textwrap.dedent(VALUES))
    (chart / "templates" / "pd.yaml").write_text(textwrap.dedent(PD))
    (chart / "values-pd.yaml").write_text("mode: pd\n")
    (tmp_path / ".git").mkdir()
    out = _extract("chart", cwd=str(tmp_path))
    assert len(out.launches) == 2
    monkeypatch.setattr(budget, "time_left", lambda: -1.0)  # the file's budget is spent: no more renders
    out = _extract("chart", cwd=str(tmp_path))
    assert out.launches == []
    (note,) = {n[0] for n in out.notes["chart/templates/pd.yaml"].values()}
    assert "; values overlay values-pd.yaml was not rendered (too little of the file's time budget left)" in note


def test_a_values_glob_does_not_follow_symlinked_directories(tmp_path):
    """Field test rw21/h: `envs/**/*.yaml` with two committed links `envs/a -> .`, `envs/b -> .` made glob.glob walk
    2^depth paths: a run that never ended, outside any file's budget."""
    import glob
    import os
    from pdlint.extract import safe_glob
    (tmp_path / "envs" / "prod" / ".hidden").mkdir(parents=True)
    for rel in ("envs/a.yaml", "envs/prod/b.yaml", "envs/prod/c.yml", "envs/.h.yaml", "envs/prod/.hidden/d.yaml"):
        (tmp_path / rel).write_text("x: 1\n")
    for pattern in ("envs/**/*.yaml", "envs/*.yaml", "envs/prod/[bc].y*ml", "envs/prod/b.yaml", "envs/**/*.y?ml",
                    "envs/[]a].yaml", "envs/*[", "envs/[]", "envs/prod/[!c]*"):
        want = sorted(p for p in glob.glob(str(tmp_path / pattern), recursive=True) if os.path.isfile(p))
        assert safe_glob(str(tmp_path / pattern)) == want, pattern
    os.symlink(".", tmp_path / "envs" / "l1")
    os.symlink(".", tmp_path / "envs" / "l2")
    assert [os.path.relpath(p, tmp_path) for p in safe_glob(str(tmp_path / "envs/**/*.yaml"))] == \
        ["envs/a.yaml", "envs/prod/b.yaml"]


def test_a_values_glob_through_a_link_out_of_the_repository_matches_nothing(no_helm, scratch_git, tmp_path_factory):
    """Field test rw22/h: `envs -> ../OUTSIDE` and `sys -> /etc` committed, globs `envs/**/*.yaml` and
    `sys/*release`: the names of the files there (secrets' names, the machine's /etc) reached the PD020 message
    ("values overlay ../envs/db-password.yaml was not rendered (it cannot be read)")."""
    outside = tmp_path_factory.mktemp("outside")
    (outside / "private").mkdir()
    (outside / "private" / "customer-secrets.yaml").write_text("mode: pd\n")
    (outside / "db-password.yaml").write_text("mode: pd\n")
    _chart(scratch_git)
    os.symlink(str(outside), os.path.join(str(scratch_git.root), "envs"))
    scratch_git.write("pyproject.toml", """\
        [tool.pdlint.helm-values]
        "chart" = ["envs/**/*.yaml", "envs/*.yaml"]
        """)
    _, out = scratch_git.lint("chart")
    text = repr(out)
    assert "db-password" not in text and "customer-secrets" not in text
    assert sorted({l["unit"] for l in out["launches"]}) == ["helm:chart#Pod/agg"]
    # the same files inside the repository are overlays
    os.remove(os.path.join(str(scratch_git.root), "envs"))
    scratch_git.write("envs/db-password.yaml", "mode: pd\n")
    _, out = scratch_git.lint("chart")
    assert "helm:chart --values ../envs/db-password.yaml#Pod/pd" in {l["unit"] for l in out["launches"]}


def test_values_globs_share_one_walk_budget(tmp_path):
    """Field test rw22/h: 300 globs over a tree of 50,000 files walked it 300 times (three times per chart,
    not memoised): 107 s outside any file's budget.  One run's globs walk MAX_GLOB_RUN entries in all."""
    from pdlint.extract import safe_glob
    (tmp_path / "big" / "d").mkdir(parents=True)
    for i in range(30):
        (tmp_path / "big" / "d" / f"f{i}.yaml").write_text("x: 1\n")
    budget = [40]
    first = safe_glob(str(tmp_path / "big/**/*.yaml"), budget=budget)
    assert len(first) == 30 and budget[0] == 40 - 31  # 30 files and a directory
    assert len(safe_glob(str(tmp_path / "big/**/f1*.yaml"), budget=budget)) == 11  # (a directory is walked whole)
    assert budget[0] < 0 and safe_glob(str(tmp_path / "big/**/*.yaml"), budget=budget) == []
    # a walk that may not start where the glob's fixed directories are
    assert safe_glob(str(tmp_path / "big/**/*.yaml"), contains=lambda d: False) == []
