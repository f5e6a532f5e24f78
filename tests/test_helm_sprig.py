"""pdlint's Helm template subset: the Sprig and Go template behaviour charts build engine arguments with.

Field test rw6/h (jackyzzy/pd-manager, a production-stack fork's "P/D Cell" chart): ``set`` / ``append`` were
outside the subset, ``quote`` did not escape (``toJson $kv | quote`` rendered invalid YAML), ``printf`` went
through Python's ``str.format`` (a literal ``{`` stopped it), and ``$l = append $l x`` inside a ``range`` did
not reach the ``$l`` declared before it.  Each made the whole chart unrendered (PD104), its launches unchecked.
"""

import pytest

from pdlint.formats import helm
from pdlint.text import SourceFile, TStr


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def _render(tmp_path, template, values="pd:\n  connector: MooncakeConnector\n  prefillPorts: [8101, 8102]\n"):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text(values)
    (chart / "templates" / "pd.yaml").write_text(template)

    def read(p):
        try:
            with open(p, encoding="utf-8") as fh:
                return SourceFile(p, fh.read())
        except OSError:
            return None
    return helm.render_subset(str(chart), read)


def _text(res):
    assert res.failed is None, res.failed and res.failed.message
    (r,) = res.rendered
    return r.text.text.lstrip("\n")  # (the newline after a `{{- $x := ... }}` line stays, as in Go)


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cell
spec:
  containers:
    - name: prefill-0
      image: vllm/vllm-openai:v0.20.0
      args:
        - "Qwen/Qwen3-8B"
        - "--kv-transfer-config"
        - {arg}
"""


def _chart(scratch_git, head, arg):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "pd:\n  connector: MooncakeConnector\n")
    scratch_git.write("chart/templates/pd.yaml", head + POD.replace("{arg}", arg))


# -- set / dict / toJson | quote: the kv-transfer-config a chart builds from a dict -------------------------

SET = '{{- $kv := dict "kv_connector" .Values.pd.connector }}\n{{- $_ := set $kv "kv_role" "ROLE" }}\n'


def test_a_dict_built_with_set_and_quoted_json_is_checked_and_traced_to_the_set(no_helm, scratch_git):
    _chart(scratch_git, SET.replace("ROLE", "kv_produce"), "{{ toJson $kv | quote }}")
    _, out = scratch_git.lint("chart")
    (f,) = out["findings"]
    # the misspelt role is reported where it is written, not at the action that prints the JSON
    assert (f["code"], f["path"], f["line"]) == ("VLLM029", "chart/templates/pd.yaml", 2)
    assert "kv_produce" in f["message"]


def test_the_same_chart_with_a_valid_role_is_clean(no_helm, scratch_git):
    _chart(scratch_git, SET.replace("ROLE", "kv_producer"), "{{ toJson $kv | quote }}")
    code, out = scratch_git.lint("chart")
    assert code == 0 and out["findings"] == [] and len(out["launches"]) == 1
    (l,) = out["launches"]
    assert l["role"] == "prefill"


def test_a_values_yaml_value_inside_the_json_points_at_values_yaml(no_helm, scratch_git):
    _chart(scratch_git, SET.replace("ROLE", "kv_producer"), "{{ toJson $kv | quote }}")
    scratch_git.write("chart/values.yaml", "pd:\n  connector: MooncakeConnecto\n")
    _, out = scratch_git.lint("chart")
    (f,) = out["findings"]
    assert (f["code"], f["path"], f["line"]) == ("VLLM031", "chart/values.yaml", 2)


def test_quote_escapes_as_go_percent_q(tmp_path):
    out = _text(_render(tmp_path, '{{- $kv := dict "a" "x\\"y" "b" 1 }}\nv: {{ toJson $kv | quote }}\n'
                                  'w: {{ quote "p" "q" }}\n'))
    assert out == 'v: "{\\"a\\":\\"x\\\\\\"y\\",\\"b\\":1}"\nw: "p" "q"\n'
    assert helm.go_quote('a"b\\c\n\x01\u00e9\u200b') == '"a\\"b\\\\c\\n\\x01\u00e9\\u200b"'


def test_tojson_is_gos_compact_sorted_html_escaped_json(tmp_path):
    out = _text(_render(tmp_path, '{{- $d := dict "z" "<a&b>" "a" (list 1 "x") }}\n'
                                  'j: {{ toJson $d | squote }}\nr: {{ toRawJson $d | squote }}\n'))
    assert out == ("j: '{\"a\":[1,\"x\"],\"z\":\"\\u003ca\\u0026b\\u003e\"}'\n"
                   "r: '{\"a\":[1,\"x\"],\"z\":\"<a&b>\"}'\n")


# -- printf: Go's fmt, not Python's str.format ---------------------------------------------------------------

def test_printf_with_literal_braces_builds_the_json_and_is_checked(no_helm, scratch_git):
    _chart(scratch_git, "", '{{ printf "{\\"kv_connector\\":\\"%s\\",\\"kv_role\\":\\"kv_producer\\"}" '
                            '.Values.pd.connector | squote }}')
    code, out = scratch_git.lint("chart")
    assert code == 0 and len(out["launches"]) == 1 and out["findings"] == []
    scratch_git.write("chart/values.yaml", "pd:\n  connector: NixlConector\n")
    _, out = scratch_git.lint("chart")
    assert [(f["code"], f["path"], f["line"]) for f in out["findings"]] == [("VLLM031", "chart/values.yaml", 2)]


@pytest.mark.parametrize("fmt,args,want", [
    ('"%s:%d"', '"h" 8000', "h:8000"),
    ('"%05d|%-4s|%x|%%"', '42 "ab" 255', "00042|ab  |ff|%"),
    ('"%q"', '"a\\"b"', '"a\\"b"'),
    ('"%v %v"', '(list 1 2) true', "[1 2] true"),
    ('"%d"', '"x"', "%!d(string=x)"),
    ('"%s %s"', '"a"', "a %!s(MISSING)"),
    ('"%s"', '"a" "b"', "a%!(EXTRA string=b)"),
    ('"%.2f"', '1.5', "1.50"),
    ('"/data/model/%s"', '.Values.missing', "/data/model/"),  # (a value values.yaml leaves out: empty)
])
def test_printf_formats_as_go(tmp_path, fmt, args, want):
    assert _text(_render(tmp_path, f"v: {{{{ printf {fmt} {args} | squote }}}}\n")) == f"v: '{want}'\n"


def test_go_string_escapes_in_literals(tmp_path):
    assert _text(_render(tmp_path, 'v: {{ "\\x41\\101\\u00e9\\t" | squote }}\n')) == "v: 'AA\u00e9\t'\n"
    res = _render(tmp_path / "b", 'v: {{ "\\q" }}\n')
    assert res.failed is not None and "unknown escape sequence" in res.failed.message


# -- variables: an assignment in a block reaches the declared variable -------------------------------------

def test_append_in_a_range_reaches_the_list_declared_before_it(tmp_path):
    out = _text(_render(tmp_path, '{{- $b := list }}\n{{- range $p := .Values.pd.prefillPorts }}\n'
                                  '{{- $b = append $b (printf "http://127.0.0.1:%d" (int $p)) }}\n{{- end }}\n'
                                  'v: {{ join "," $b | quote }}\n'))
    assert out == 'v: "http://127.0.0.1:8101,http://127.0.0.1:8102"\n'


def test_a_declaration_in_a_block_stays_in_the_block(tmp_path):
    out = _text(_render(tmp_path, '{{- $x := "outer" }}\n{{- if true }}{{- $x := "inner" }}{{- end }}\n'
                                  'v: {{ $x }}\n{{- range until 2 }}{{- $x = "loop" }}{{- end }}\nw: {{ $x }}\n'))
    assert out == "v: outer\nw: loop\n"


def test_assigning_an_undeclared_variable_stops_the_render(tmp_path):
    res = _render(tmp_path, "{{- $y = 1 }}\nv: 1\n")
    assert res.failed is not None and "undefined variable $y" in res.failed.message


@pytest.mark.parametrize("expr,want", [
    ('$d := dict "a" 1 "b" 2 }}{{- $_ := unset $d "a" }}{{ keys $d | join ","', "b"),
    ('$d := dict "a" 1 }}{{ get $d "a" }}-{{ get $d "zz"', "1-"),
    ('$d := dict "a" (dict "b" "deep") }}{{ dig "a" "b" "none" $d }}-{{ dig "a" "x" "none" $d', "deep-none"),
    ('$d := dict "a" 1 "b" 2 "c" 3 }}{{ pick $d "a" "c" | keys | join ","', "a,c"),
    ('$d := dict "a" 1 "b" 2 }}{{ omit $d "a" | keys | join ","', "b"),
    ('$l := list 1 2 }}{{ prepend $l 0 | concat (list 3) | join ","', "3,0,1,2"),
    ('$l := list "a" "" "a" "b" }}{{ compact $l | uniq | join ","', "a,b"),
    ('$l := list 1 2 3 }}{{ without $l 2 | join "," }}/{{ rest $l | join "," }}/{{ initial $l | join ","', "1,3/2,3/1,2"),
    ('$x := coalesce nil "" "first" }}{{ $x }}{{ cat "a" nil 1', "firsta 1"),
    ('$x := "  a b " }}{{ nospace $x }}|{{ trimAll "-" "--x--" }}|{{ substr 1 3 "abcd" }}|{{ repeat 2 "ab"', "ab|x|bc|abab"),
    ('$x := lookup "v1" "Secret" "ns" "n" }}{{ len $x', "0"),
    ('$x := atoi "42" }}{{ add $x 1 }}{{ typeOf "s" }}{{ kindOf (list)', "43stringslice"),
])
def test_sprig_functions(tmp_path, expr, want):
    assert _text(_render(tmp_path, "v: {{- " + expr + " }}\n")) == f"v:{want}\n"


def test_tpl_renders_a_value_as_a_template_traced_to_values_yaml(tmp_path):
    res = _render(tmp_path, "v: {{ tpl .Values.cmd $ }}\n",
                  values='pd:\n  connector: MooncakeConnector\ncmd: "{{ .Values.pd.connector }}-x"\n')
    assert _text(res) == "v: MooncakeConnector-x\n"
    (r,) = res.rendered
    o = r.text[3:4].origin
    assert (o.path.endswith("values.yaml"), o.line) == (True, 2)


def test_append_on_a_value_that_is_no_list_stops_the_render(tmp_path):
    res = _render(tmp_path, "{{- $b := append .Values.pd.connector 1 }}\nv: 1\n")
    assert res.failed is not None and "append on a string, not a list" in res.failed.message


# -- bounds: a template that doubles a value in a loop is refused, not evaluated ---------------------------

@pytest.mark.parametrize("grow", ["print $s $s", "list $s $s", "printf \"%s%s\" $s $s", "cat $s $s",
                                  'replace "a" "aa" $s', "concat (list $s) (list $s)"])
def test_values_that_double_in_a_loop_are_refused(tmp_path, grow):
    res = _render(tmp_path, '{{- $s := "ab" }}\n{{- range until 64 }}{{- $s = ' + grow + ' }}{{- end }}\n'
                            'v: {{ toJson $s | len }}\n')
    assert res.failed is not None and "more than" in res.failed.message and res.failed.where is not None


def test_a_refused_value_is_a_pd104_at_the_action(no_helm, scratch_git):
    _chart(scratch_git, '{{- $s := "ab" }}\n{{- range until 64 }}{{- $s = print $s $s }}{{- end }}\n', '"{}"')
    _, out = scratch_git.lint("chart")
    (f,) = [f for f in out["findings"] if f["code"] == "PD104"]
    assert f["line"] == 2 and "more than 4000000 characters or items" in f["message"]


def test_go_unquote_and_tokens_keep_plain_strings(tmp_path):
    t = TStr.synthetic("x", "<t>")
    assert helm._go_unquote("plain", t) == "plain" and helm._go_unquote('a\\"b', t) == 'a"b'


# -- actions as Go's lexer reads them ---------------------------------------------------------------------

def test_a_closing_brace_pair_inside_a_string_or_comment_does_not_end_the_action(tmp_path):
    out = _text(_render(tmp_path, '{{- /* a comment with }} in it */ -}}\n'
                                  'v: {{ tpl (cat "{{- with $.Values.pd -}}" "{{ .connector }}" "{{- end }}") $ }}\n'
                                  "w: {{ `}}` }}-{{ \"x}}y\" }}\n"))
    assert out == "v: MooncakeConnector\nw: }}-x}}y\n"


def test_an_unterminated_string_ends_the_action_at_the_next_braces(tmp_path):
    res = _render(tmp_path, 'v: {{ "abc }}\nw: 1\n')
    assert res.failed is not None  # (Go: "unterminated quoted string"; never a hang or a traceback)


# -- the chart's dependencies: helper templates of charts/ (unpacked or the .tgz helm dependency build leaves) --

COMMON_TPL = """\
{{/* Bitnami common's tplvalues, cut down */}}
{{- define "common.tplvalues.render" -}}
{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) }}
{{- if contains "{{" (toJson .value) }}
  {{- if .scope }}
      {{- tpl (cat "{{- with $.RelativeScope -}}" $value "{{- end }}") (merge (dict "RelativeScope" .scope) .context) }}
  {{- else }}
    {{- tpl $value .context }}
  {{- end }}
{{- else }}
    {{- $value }}
{{- end }}
{{- end -}}
"""

USES_COMMON = """\
apiVersion: v1
kind: Pod
metadata:
  name: cell
spec:
  containers:
    - name: prefill
      image: lmsysorg/sglang:v0.5.23
      command: ["python3", "-m", "sglang.launch_server"]
      args:
        - --model-path
        - {{ include "common.tplvalues.render" (dict "value" .Values.model "context" $) }}
        - --disaggregation-mode
        - prefill
        - --disaggregation-transfer-backend
        - {{ include "common.tplvalues.render" (dict "value" .Values.backend "context" $) }}
"""


def _dep_chart(s, how, backend="mooncake"):
    import io
    import tarfile
    s.write("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n"
                                "dependencies:\n  - name: common\n    version: 2.27.0\n")
    s.write("chart/values.yaml", f"model: /models/m\nbackend: \"{{{{ .Values.b }}}}\"\nb: {backend}\n")
    s.write("chart/templates/pod.yaml", USES_COMMON)
    if how == "dir":
        s.write("chart/charts/common/Chart.yaml", "apiVersion: v2\nname: common\ntype: library\nversion: 2.27.0\n")
        s.write("chart/charts/common/templates/_tplvalues.tpl", COMMON_TPL)
        return
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in (("common/Chart.yaml", "name: common\n"), ("common/templates/_tplvalues.tpl", COMMON_TPL)):
            data = (text * (1 if how == "tgz" else 40_000)).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    s.root.joinpath("chart/charts").mkdir(parents=True, exist_ok=True)
    s.root.joinpath("chart/charts/common-2.27.0.tgz").write_bytes(buf.getvalue())


@pytest.mark.parametrize("how", ["tgz", "dir"])
def test_helpers_of_a_dependency_chart_render_the_chart(no_helm, scratch_git, how):
    _dep_chart(scratch_git, how, backend="fake")
    _, out = scratch_git.lint("chart")
    assert [l["role"] for l in out["launches"]] == ["prefill"]
    # the value tpl renders (a values.yaml template string) is traced to values.yaml
    assert [(f["code"], f["path"], f["line"]) for f in out["findings"]] == [("SGL104", "chart/values.yaml", 3)]


def test_the_same_chart_with_a_real_backend_is_clean(no_helm, scratch_git):
    _dep_chart(scratch_git, "tgz")
    code, out = scratch_git.lint("chart")
    assert code == 0 and out["findings"] == [] and len(out["launches"]) == 1


def test_a_dependency_archive_past_the_bound_is_not_read(no_helm, scratch_git):
    _dep_chart(scratch_git, "big")  # a helper of 40,000 copies: over MAX_HELPER_BYTES, never decoded
    _, out = scratch_git.lint("chart")
    (f,) = [f for f in out["findings"] if f["code"] == "PD104"]
    assert "no template named 'common.tplvalues.render'" in f["message"]


def test_archive_helpers_refuse_a_decompression_bomb():
    import gzip
    bomb = gzip.compress(b"\0" * (helm.MAX_ARCHIVE_BYTES + 1))
    assert helm._archive_helpers("c.tgz", bomb) == []
    assert helm._archive_helpers("c.tgz", b"not a gzip file") == []


def test_to_yaml_of_the_values_and_the_checksum_idiom_render(tmp_path, no_helm):
    """Field test rw21/h: `toYaml .Values` failed on pdlint's lazy values object, whose address then made the
    PD104 message differ on every run (baseline keys and GitLab fingerprints with it); Helm's checksum idiom
    (`include (print $.Template.BasePath "/cm.yaml") . | sha256sum`) named no template pdlint knew."""
    import hashlib
    _render(tmp_path, "a: {{ toYaml .Values | sha256sum }}\nb: {{ toYaml .Values.pd | nindent 2 }}\n"
                            "c: {{ toJson .Values.pd }}\n"
                            "d: {{ include (print $.Template.BasePath \"/cm.yaml\") . | sha256sum }}\n",
                  values="pd:\n  connector: X\n")
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    res = helm.render_subset(str(tmp_path / "chart"), lambda p: SourceFile(p, open(p, encoding="utf-8").read()))
    assert res.unrendered == [] and res.failed is None
    out = {r.template.path.rsplit("/", 1)[-1]: r.text.text for r in res.rendered}["pd.yaml"]
    lines = out.splitlines()
    assert lines[0] == "a: " + hashlib.sha256(b"pd:\n  connector: X").hexdigest()
    assert lines[1:3] == ["b: ", "  connector: X"]
    assert lines[3] == 'c: {"connector":"X"}'
    assert lines[4] == "d: " + hashlib.sha256(b"kind: ConfigMap\n").hexdigest()


def test_a_failure_message_holds_no_object_address():
    assert helm._why(ValueError("cannot represent <pdlint.formats.helm._Lazy object at 0x7fe3ce2b8750>")) == \
        "cannot represent <pdlint.formats.helm._Lazy>"
