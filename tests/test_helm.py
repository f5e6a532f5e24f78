"""Helm charts (pdlint.formats.helm): pdlint's traced Go-template subset on the
sglang-leaderworkerset chart, `helm template` output mapping (with a stand-in
helm, and with the real one where it is installed), PD104."""

import os
import shutil
import stat
import textwrap

import pytest

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import helm
from pdlint.lint import ConfigResolver

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "structure")
CHART = "helm/sglang-leaderworkerset"


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def flags(l):
    a = [t.text for t in l.argv]
    return {a[i]: (a[i + 1] if i + 1 < len(a) and not a[i + 1].startswith("--") else True)
            for i in range(len(a)) if a[i].startswith("--")}


def test_subset_renders_the_chart_with_traced_tokens(no_helm):
    out = extract(CHART)
    leader, worker = out.launches
    assert (leader.meta["group_role"], worker.meta["group_role"]) == ("leader", "worker")
    assert leader.structural_role == worker.structural_role == "prefill" == leader.role
    assert "rendered by pdlint's Helm template subset (helm not on PATH)" in leader.context
    assert leader.unit == worker.unit and leader.unit.startswith("helm:" + CHART)
    f = flags(leader)
    assert f["--disaggregation-mode"] == "prefill" and f["--tp"] == "16" and f["--enable-dp-attention"] is True
    toks = {t.text: t for t in leader.argv}
    o = toks["--chunked-prefill-size"].origin
    assert (o.path, o.line) == (CHART + "/templates/_helpers.tpl", 68)
    assert o.chain and o.chain[0].note.startswith("include") and o.chain[0].line == 26
    v = leader.argv[[t.text for t in leader.argv].index("--chunked-prefill-size") + 1].origin
    assert (v.path, v.line, v.column) == (CHART + "/values.yaml", 60, 26)
    assert leader.env["MC_TE_METRIC"].text == "false" and worker.env["MC_TE_METRIC"].text == "true"
    assert leader.meta["image"] == "lmsysorg/sglang:latest"
    assert not [x for x in out.findings if x.code.startswith("PD")]  # PD104 quiet: the subset rendered it


def test_values_override_swapping_the_role_is_pd101(no_helm, tmp_path):
    dst = tmp_path / "chart"
    shutil.copytree(os.path.join(DATA, CHART), dst)
    vals = (dst / "values.yaml").read_text().replace('disaggregationMode: "prefill"', 'disaggregationMode: "decode"')
    (dst / "values.yaml").write_text(vals)
    out = extract("chart", cwd=str(tmp_path))
    found = [f for f in out.findings if f.code == "PD101"]
    assert found and {(f.path, f.line) for f in found} == {("chart/values.yaml", 70)}
    assert "resource name" in found[0].message


def test_pd104_when_nothing_renders(no_helm, tmp_path):
    dst = tmp_path / "chart"
    shutil.copytree(os.path.join(DATA, CHART), dst)
    p = dst / "templates" / "prefill-leaderworkerset.yaml"
    p.write_text(p.read_text().replace("{{ .Values.global.namePrefix }}-prefill",
                                       '{{ semverCompare ">=1.2" "1.3" }}-prefill'))
    out = extract("chart", cwd=str(tmp_path))
    (f,) = [f for f in out.findings if f.code == "PD104"]
    assert f.severity == "warning" and "semverCompare" in f.message and f.path == "chart/templates/prefill-leaderworkerset.yaml"
    # still checked: values role sections and the literal flag lines of the named templates
    kinds = sorted({l.meta.get("literal_lines", False) for l in out.launches})
    assert kinds == [False, True]
    lit = [l for l in out.launches if l.meta.get("literal_lines")]
    assert {l.structural_role for l in lit} == {"prefill", "decode"} and all(l.incomplete for l in lit)
    vals = [l for l in out.launches if not l.meta.get("literal_lines")]
    assert {l.structural_role for l in vals} == {"prefill", "decode"}
    assert sum(1 for f in out.findings if f.code == "PD104") == 1  # once per chart


def test_go_template_subset_basics():
    from pdlint.text import SourceFile, TStr
    src = SourceFile("t.yaml", textwrap.dedent("""\
        {{- define "x" -}}
        - {{ .a | quote }}
        {{- end }}
        args:
        {{- include "x" .Values | nindent 2 }}
        {{- range $k, $v := .Values.m }}
          - {{ $k }}={{ $v }}
        {{- end }}
        {{- if and .Values.on (eq (int .Values.n) 2) }}
          - on
        {{- else }}
          - off
        {{- end }}
        """))
    vsrc = SourceFile("values.yaml", "a: hi\nm: {z: 1, b: 2}\non: true\nn: 2\n")
    from pdlint.formats import yamltree as yt
    defines = {}
    nodes = helm.parse(TStr.from_source(src), defines)
    r = helm.Renderer(TStr.from_source(vsrc), yt.Ref(yt.compose(vsrc.text)[0].root), {"Name": "c"}, defines)
    out = TStr.join(r.render(nodes, r.root_val(), {}))
    assert out.text.lstrip("\n") == 'args:\n  - "hi"\n  - b=2\n  - z=1\n  - on\n'
    i = out.text.index("hi")
    assert (out.origin_at(i).path, out.origin_at(i).line) == ("values.yaml", 1)


def test_go_template_index_function():
    """``index`` as Helm has it (met in a real chart: ``index .Values.resources.requests
    "nvidia.com/gpu"``): map keys that are not identifiers, list items, a missing
    key rendering as nothing; an index past the end stops the subset."""
    from pdlint.text import SourceFile, TStr
    from pdlint.formats import yamltree as yt
    src = SourceFile("t.yaml", textwrap.dedent("""\
        gpu: {{ index .Values.r "nvidia.com/gpu" | quote }}
        first: {{ index .Values.l 1 }}
        none: [{{ index .Values.r "missing" }}]
        """))
    vsrc = SourceFile("values.yaml", 'r:\n  nvidia.com/gpu: "8"\nl: [a, b]\n')
    defines = {}
    r = helm.Renderer(TStr.from_source(vsrc), yt.Ref(yt.compose(vsrc.text)[0].root), {"Name": "c"}, defines)
    out = TStr.join(r.render(helm.parse(TStr.from_source(src), defines), r.root_val(), {}))
    assert out.text == 'gpu: "8"\nfirst: b\nnone: []\n'
    i = out.text.index("8")
    assert (out.origin_at(i).path, out.origin_at(i).line) == ("values.yaml", 2)
    bad = SourceFile("u.yaml", "x: {{ index .Values.l 5 }}\n")
    with pytest.raises(helm.Unsupported, match="out of range"):
        TStr.join(r.render(helm.parse(TStr.from_source(bad), {}), r.root_val(), {}))


def _fake_helm(tmp_path, rendered):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "rendered.txt").write_text(rendered)
    script = bin_dir / "helm"
    script.write_text(f"#!/bin/sh\ncat '{tmp_path / 'rendered.txt'}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(bin_dir)


SMALL_TEMPLATE = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: {{ .Release.Name }}-decode
    spec:
      template:
        spec:
          containers:
            - name: s
              command:
                - python3
                - -m
                - sglang.launch_server
                - --disaggregation-mode
                - {{ .Values.decode.mode }}
                - --page-size
                - {{ .Values.decode.pageSize | quote }}
    """)


def test_helm_template_output_is_mapped_back(tmp_path, monkeypatch):
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("decode:\n  mode: prefill\n  pageSize: 64\n")
    (chart / "templates" / "d.yaml").write_text(SMALL_TEMPLATE)
    rendered = "---\n# Source: c/templates/d.yaml\n" + SMALL_TEMPLATE.replace(
        "{{ .Release.Name }}", "release-name").replace("{{ .Values.decode.mode }}", "prefill").replace(
        '{{ .Values.decode.pageSize | quote }}', '"64"')
    monkeypatch.setenv("PATH", _fake_helm(tmp_path, rendered) + os.pathsep + os.environ.get("PATH", ""))
    assert helm.helm_binary() is not None
    out = extract("c", cwd=str(tmp_path))
    (l,) = out.launches
    assert "rendered by helm template" in l.context and l.structural_role == "decode"
    toks = {t.text: t.origin for t in l.argv}
    assert (toks["--page-size"].path, toks["--page-size"].line) == ("c/templates/d.yaml", 16)
    assert (toks["64"].path, toks["64"].line) == ("c/values.yaml", 3)
    assert (toks["prefill"].path, toks["prefill"].line) == ("c/values.yaml", 2)
    assert [f.code for f in out.findings if f.code == "PD101"] == ["PD101"]


def test_failing_helm_falls_back_to_the_subset(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "helm").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    out = extract(CHART)
    assert len(out.launches) == 2 and "helm template failed" in out.launches[0].context


@pytest.mark.skipif(shutil.which("helm") is None, reason="helm is not installed (Debian and PyPI do not ship it)")
def test_real_helm_template():
    out = extract(CHART)
    assert len(out.launches) == 2
    assert all("rendered by helm template" in l.context for l in out.launches)
    assert {l.structural_role for l in out.launches} == {"prefill"}
    o = next(t for t in out.launches[0].argv if t.text == "--chunked-prefill-size").origin
    assert o.path.endswith("_helpers.tpl")


def test_go_template_outside_a_chart_gives_literal_flag_lines(tmp_path):
    shutil.copy(os.path.join(DATA, CHART, "templates", "_helpers.tpl"), tmp_path / "_helpers.tpl")
    out = extract("_helpers.tpl", cwd=str(tmp_path))
    assert [(l.line, l.structural_role) for l in out.launches] == [(57, "prefill"), (120, "decode"), (176, "decode"),
                                                                    (228, "prefill")]
    first = out.launches[0]
    assert first.incomplete and "literal flag lines of sglang-leaderworkerset.prefill.leader.command" in first.context
    nn = [t for t in first.argv if t.text == "$(LWS_GROUP_SIZE)"]
    assert nn and nn[0].opaque  # Kubernetes fills it in at run time
    assert not [f for f in out.findings if f.code.startswith("PD")]


# llm-d-incubation/llm-d-modelservice examples/values-pd.yaml (3051935e), shortened: the chart passes `uri` through
# `tpl`, so a values file holds `{{ .Values... }}` inside a string; it is values, read as YAML (its role sections
# were two PD020 "`--enforce-eager` is not a launcher" when it was taken for a Go template outside a chart)
MS_VALUES = textwrap.dedent("""\
    modelArtifacts:
      name: facebook/opt-125m
      uri: hf://"{{ .Values.modelArtifacts.name }}"
    decode:
      containers:
      - name: "vllm"
        image: "ghcr.io/llm-d/llm-d-cuda:latest"
        modelCommand: vllmServe
        args:
          - "--enforce-eager"
          - "--kv-transfer-config"
          - '{"kv_connector":"NixlConnector", "kv_role":"kv_both"}'
    prefill:
      containers:
      - name: "vllm"
        image: "ghcr.io/llm-d/llm-d-cuda:latest"
        modelCommand: vllmServe
        args:
          - "--enforce-eager"
          - "--kv-transfer-config"
          - '{"kv_connector":"NixlConnector", "kv_role":"kv_both"}'
    """)


def test_values_with_tpl_strings_are_yaml_not_templates(tmp_path):
    (tmp_path / "values-pd.yaml").write_text(MS_VALUES)
    out = extract("values-pd.yaml", cwd=str(tmp_path))
    assert [(l.line, l.structural_role, [t.text for t in l.argv][:2]) for l in out.launches] == [
        (8, "decode", ["facebook/opt-125m", "--enforce-eager"]), (17, "prefill", ["facebook/opt-125m", "--enforce-eager"])]
    assert not [f for f in out.findings if f.code == "PD020"]


@pytest.mark.parametrize("action", [
    "image: {{ .Values.image }}",                 # an action as YAML structure (a flow mapping)
    "image: x\n{{- if .Values.on }}\nextra: 1\n{{- end }}",  # control actions on their own lines
])
def test_template_actions_outside_strings_stay_a_go_template(tmp_path, action):
    (tmp_path / "values-pd.yaml").write_text(MS_VALUES.replace('  uri: hf://"{{ .Values.modelArtifacts.name }}"\n',
                                                               "").replace("modelArtifacts:\n", action + "\nmodelArtifacts:\n", 1))
    out = extract("values-pd.yaml", cwd=str(tmp_path))
    assert not out.launches or all("literal flag lines" in l.context for l in out.launches)


def test_an_action_in_a_values_args_list_is_opaque(tmp_path):
    # the action is no literal value: no flag-value check runs on it, its flag is still read
    (tmp_path / "values-pd.yaml").write_text(MS_VALUES.replace('      - "--enforce-eager"\n',
                                                               '      - "--tensor-parallel-size"\n'
                                                               '      - "{{ .Values.tp }}"\n', 1))
    out = extract("values-pd.yaml", cwd=str(tmp_path))
    decode = out.launches[0]
    tp = [t for t in decode.argv if t.text == "{{ .Values.tp }}"]
    assert tp and tp[0].opaque and "--tensor-parallel-size" in [t.text for t in decode.argv]
    assert not [f for f in out.findings if f.severity == "error"]


# kserve/kserve config/llmisvcconfig/config-llm-decode-template.yaml (aaac4e29), shortened: a controller's Go
# template whose script is a block scalar item (`- |-`); pdlint took `|-` for the script (PD009 "missing 'word'"
# at the block's first line) and said only "a structure pdlint does not recognise" on its launch text
KSERVE_TEMPLATE = textwrap.dedent("""\
    apiVersion: serving.kserve.io/v1alpha2
    kind: LLMInferenceServiceConfig
    metadata:
      name: kserve-config-llm-decode-template
    spec:
      template:
        containers:
        - name: main
          command:
            - "/bin/bash"
            - "-c"
            - |-
              eval "exec vllm serve /mnt/models \\
                --port 8001 \\
                {{- if .Spec.Parallelism }} --tensor-parallel-size {{ .Spec.Parallelism.Tensor }}{{- end }} \\
                $@"
            - "--"
    """)


def test_block_scalar_script_in_a_go_template_is_named_not_parsed(tmp_path, capsys, monkeypatch):
    # (a trailing action in the YAML structure keeps it a template to render: actions only inside strings are
    # read as YAML, tests/test_gotpl_documents.py)
    import json
    from pdlint.cli import main
    (tmp_path / "config-llm-decode-template.yaml").write_text(KSERVE_TEMPLATE + "{{- end }}\n")
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", "--no-cache", "config-llm-decode-template.yaml"])
    doc = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in doc["findings"]] == ["PD020"]
    (f,) = doc["findings"]
    assert f["line"] == 13 and "reads only the literal `- item` lines" in f["message"]


def test_launch_text_a_rendered_chart_does_not_produce_says_why(no_helm, scratch_git):
    # InftyAI/llmaz chart/templates/backends/sglang.yaml: `{{- if .Values.backendRuntime.enabled -}}`, off in
    # the chart's values.yaml (its values.global.yaml turns it on): the chart renders, that template renders
    # nothing, and its launch text was "a structure pdlint does not recognise"
    chart = scratch_git.root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("backendRuntime:\n  enabled: false\nreplicas: 1\n")
    (chart / "templates" / "runtime.yaml").write_text(textwrap.dedent("""\
        {{- if .Values.backendRuntime.enabled -}}
        apiVersion: v1
        kind: Pod
        metadata: {name: s}
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
        """))
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {n: \"{{ .Values.replicas }}\"}\n")
    _, out = scratch_git.lint("chart")
    (f,) = out["findings"]
    assert (f["code"], f["path"], f["line"]) == ("PD020", "chart/templates/runtime.yaml", 11)
    assert "no render of chart chart with its values.yaml produced it" in f["message"]
    assert "helm template chart -f <values>" in f["fix"]
    (chart / "values.yaml").write_text("backendRuntime:\n  enabled: true\nreplicas: 1\n")
    _, out = scratch_git.lint("chart")
    assert out["findings"] == [] and out["coverage"]["launches"] == 1


# llm-d/llm-d-deployer (field test rw6/e): a chart pdlint cannot render (a library chart's helper, Bitnami's
# common.labels.standard, not vendored) is read by its literal `- item` lines; a container's `command:` and
# `args:` lists were two runs (the args dropped, and `--port` taken for a launcher), and two Deployments'
# servers "both started by this script" on one port (PD150)
LITERAL_CHART = """\
{pre}apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    {{{{- include "common.labels.standard" . | nindent 4 }}}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: {{{{ .Values.image }}}}
          command:
            - vllm
            - serve
            - Qwen/Qwen3-0.6B
          args:
            - "--port"
            - "{port}"
            - "--kv-transfer-config"
            - '{{"kv_connector":"NixlConnector","kv_role":"kv_both"}}'
            - "--bogus-flag"
"""


def test_literal_lines_of_an_unrendered_chart_join_command_and_args(scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "image: vllm/vllm-openai:v0.11.0\n")
    text = LITERAL_CHART.format(pre="", name="decode", port=8001) + \
        LITERAL_CHART.format(pre="---\n", name="prefill", port=8000)
    scratch_git.write("chart/templates/pd.yaml", text)
    code, report = scratch_git.lint(".")
    codes = sorted(f["code"] for f in report["findings"])
    # one launch per container, its args included (the unknown flag is found in both); the two pods are not
    # one script's processes: no PD150
    assert codes == ["PD104", "VLLM018", "VLLM018"], report["findings"]
    ports = sorted(t for l in report["launches"] for i, t in enumerate(l["argv"]) if i and l["argv"][i - 1] == "--port")
    assert ports == ["8000", "8001"]


def test_literal_args_after_another_key_are_their_own_run():
    from pdlint.text import SourceFile
    src = SourceFile("t.yaml", "command:\n  - vllm\n  - serve\nenv:\n  - name: X\nargs:\n  - --port\n  - '1'\n", None)
    runs = [[w.text for w in words] for _, words in helm.literal_commands(src)]
    assert runs == [["vllm", "serve"], ["name: X"], ["--port", "1"]]


# DaoCloud/dce-charts-repackage, argo-cd's redis-ha statefulset: a chart pdlint cannot render whose init
# containers run `sh -c` with a double-quoted script continued over lines with `\`; its literal lines were
# read as a script starting `"timeout -t {{ ... }} \`, three PD009s on a chart with no launch text
REDIS_INIT = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: redis
  labels:
    {{- include "common.labels.standard" . | nindent 4 }}
spec:
  template:
    spec:
      initContainers:
      - name: restore-ssh
        image: lgatica/openssh-client:latest
        command:
        - sh
        args:
        - "-c"
        - "rm -f key && echo -e \\"${SSH_KEY}\\" >key \\
           && chmod 400 key \\
           && timeout {{ .Values.restore.timeout }} scp -i key '{{ .Values.restore.ssh.source }}' /data/dump.rdb"
"""


def test_an_unrendered_chart_without_launch_text_is_not_read(scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "restore:\n  timeout: 600\n")
    scratch_git.write("chart/templates/sts.yaml", REDIS_INIT)
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and report["launches"] == [] and code == 0


def test_a_quoted_item_continued_on_the_next_lines_is_opaque():
    from pdlint.text import SourceFile
    src = SourceFile("t.yaml", REDIS_INIT, None)
    (run,) = [words for _, words in helm.literal_commands(src) if words[0].text == "sh"]
    assert [w.text for w in run[:2]] == ["sh", "-c"]
    assert run[2].text.startswith('"rm -f key') and run[2].opaque  # not the script: its first line only
    src = SourceFile("t.yaml", "command:\n  - sh\n  - '-c'\n  - 'echo hi'\n", None)
    ((_, words),) = helm.literal_commands(src)
    assert [(w.text, w.opaque) for w in words] == [("sh", False), ("-c", False), ("echo hi", False)]


def _rendered_charts(root, monkeypatch) -> list:
    from pdlint.extract import Extractor, Options
    from pdlint.lint import run
    seen = []
    real = Extractor.render_chart

    def render_chart(self, chart, *a, **kw):
        seen.append(os.path.basename(chart))
        return real(self, chart, *a, **kw)

    monkeypatch.setattr(Extractor, "render_chart", render_chart)
    run([str(root)], Options(cwd=str(root)))
    return sorted(set(seen))


def test_a_chart_without_launch_text_is_not_rendered(scratch_git, monkeypatch):
    """dce-charts-repackage: 225 charts (argo-cd, redis...), of which one can launch a server; rendering every
    one took 10 of the 14 seconds of the run."""
    for name in ("redis", "vllm", "overlay", "helper", "archive"):
        scratch_git.write(f"{name}/Chart.yaml", f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
        scratch_git.write(f"{name}/values.yaml", "replicas: 1\n")
        scratch_git.write(f"{name}/templates/sts.yaml", REDIS_INIT)
    scratch_git.write("vllm/templates/deploy.yaml", "command: [vllm, serve, {{ .Values.model }}]\n")
    scratch_git.write("overlay/values-pd.yaml", "args: [--disaggregation-mode, prefill]\n")  # a values overlay
    scratch_git.write("helper/charts/common/templates/_cmd.tpl",
                      '{{- define "common.cmd" -}}[python3, -m, sglang.launch_server]{{- end -}}\n')
    (scratch_git.root / "archive/charts").mkdir()
    (scratch_git.root / "archive/charts/common-1.0.0.tgz").write_bytes(b"")  # its helpers are not looked into
    assert _rendered_charts(scratch_git.root, monkeypatch) == ["archive", "helper", "overlay", "vllm"]


def test_literal_lines_without_a_marker_are_still_read(scratch_git):
    """llm-d/llm-d-deployer's presets: `- vllm` / `- serve` items and plain flags, no PD flag on any line; the
    launches come from the literal lines all the same (only a template without any engine word is skipped)."""
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "image: vllm/vllm-openai:v0.11.0\n")
    text = LITERAL_CHART.format(pre="", name="decode", port=8001)
    text = text.replace("""            - "--kv-transfer-config"\n""", "").replace(
        """            - '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'\n""", "")
    assert "kv_role" not in text
    scratch_git.write("chart/templates/pd.yaml", text)
    code, report = scratch_git.lint(".")
    assert [l["argv"][:3] for l in report["launches"]] == [["Qwen/Qwen3-0.6B", "--port", "8001"]]
    assert sorted(f["code"] for f in report["findings"]) == ["VLLM018"]
