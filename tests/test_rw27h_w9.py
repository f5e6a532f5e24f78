"""Hostile-input round rw27/h, worktree w9: configs, suppressions, Helm numbers and budgets.

* P15 / P16: a ``--config`` YAML that ``yaml.safe_load`` refuses although it composes (a tag SafeConstructor has no
  constructor for, a second document, an unhashable key) passed clean.  SGLang 0.5.23 (oracle) REJECTs each with
  ConstructorError / ComposerError before it starts; vLLM 0.33.0's loader raises ConstructorError.  Now SGL028 at
  the tag, the second ``---`` or the key (SGLang), PD022 (vLLM: its flags not read).
"""

import pytest

SGL_RUN = "python3 -m sglang.launch_server --config cfg.yaml --disaggregation-mode prefill\n"


def _codes(report, code):
    return [f for f in report["findings"] if f["code"] == code]


# --- P15: SGLang --config refused by yaml.safe_load -------------------------------------------------------------

@pytest.mark.parametrize("cfg, line, column", [
    ("model-path: /m\ntp-size: !!python/int 1\n", 2, 10),
    ("model-path: /m\ntp-size: !custom 1\n", 2, 10),
    ("model-path: /m\n---\ntp-size: 1\n", 2, 1),
    ("model-path: /m\ntp-size: 1\n...\n---\n", 4, 1),
    ("model-path: /m\n? [a]\n: 1\n", 2, 3),
    ("model-path: /m\ntp-size: !!int two\n", 2, 10),
])
def test_sglang_config_safe_load_refuses_is_sgl028(scratch_git, cfg, line, column):
    scratch_git.write("run.sh", SGL_RUN)
    scratch_git.write("cfg.yaml", cfg)
    code, report = scratch_git.lint("--strict", ".")
    hits = _codes(report, "SGL028")
    assert [(f["path"], f["line"], f["column"]) for f in hits] == [("cfg.yaml", line, column)]
    assert code == 1


def test_sglang_config_with_safe_tags_stays_quiet(scratch_git):
    scratch_git.write("run.sh", SGL_RUN)
    scratch_git.write("cfg.yaml", "---\nmodel-path: !!str /m\ntp-size: !!int 2\nenable-metrics: !!bool true\n...\n")
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "SGL028")
    assert code == 0, report["findings"]


# --- P16: vLLM --config refused by yaml.safe_load ---------------------------------------------------------------

VLLM_RUN = ("vllm serve /m --config c.yaml --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n")


@pytest.mark.parametrize("cfg", ["tensor-parallel-size: !!python/int 2\n", "? [a]\n: 1\ntensor-parallel-size: 2\n"])
def test_vllm_config_safe_load_refuses_is_not_read(scratch_git, cfg):
    scratch_git.write("run.sh", VLLM_RUN)
    scratch_git.write("c.yaml", cfg)
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["path"], f["line"]) for f in _codes(report, "PD022")] == [("run.sh", 1)]
    assert code == 1


def test_vllm_config_plain_is_read(scratch_git):
    scratch_git.write("run.sh", VLLM_RUN)
    scratch_git.write("c.yaml", "tensor-parallel-size: !!int 2\n")
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "PD022")
    assert code == 0, report["findings"]


# --- P17: `# pdlint: skip-file` is text inside a Helm block scalar and a Makefile define ---------------------------

CHART = {"chart/Chart.yaml": "apiVersion: v2\nname: pd\nversion: 0.1.0\n", "chart/values.yaml": "tp: x\n"}

HELM_DEP = """\
{{- range $role := list "prefill" "decode" }}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ $role }}}
spec:
  template:
    spec:
      containers:
      - name: {{ $role }}
        image: lmsysorg/sglang:v0.5.23
        command: ["bash", "-c"]
        args:
        - |
          cat > /tmp/usage.txt <<'EOT'
          # pdlint: skip-file
          EOT
          python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ $role }} --tp-size x
{{- end }}
"""

#: the same with an `if` / `else` whose branches leave the YAML without structure even with the actions blanked
HELM_IF = HELM_DEP.replace("{{- range $role := list \"prefill\" \"decode\" }}\n",
                           "{{- range $role := list \"prefill\" \"decode\" }}\n{{ if true }}\nx: 1\n{{ end }}\n")


@pytest.mark.parametrize("template", [HELM_DEP, HELM_IF])
def test_skip_file_in_a_helm_block_scalar_is_text(scratch_git, template):
    for k, v in CHART.items():
        scratch_git.write(k, v)
    scratch_git.write("chart/templates/dep.yaml", template)
    code, report = scratch_git.lint("--strict", ".")
    assert {f["path"] for f in _codes(report, "SGL005")} == {"chart/templates/dep.yaml"}
    assert code == 1


def test_skip_file_comment_of_a_helm_template_still_skips(scratch_git):
    for k, v in CHART.items():
        scratch_git.write(k, v)
    scratch_git.write("chart/templates/dep.yaml", "# pdlint: skip-file\n" + HELM_DEP.replace("          # pdlint: skip-file\n", "          usage\n"))
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "SGL005")
    assert code == 0, report["findings"]


MAKE_SERVE = "serve:\n\tpython3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --tp-size x\n"


def test_skip_file_in_a_makefile_define_is_text(scratch_git):
    scratch_git.write("Makefile", "define USAGE\n# pdlint: skip-file\nendef\n" + MAKE_SERVE)
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["path"], f["line"]) for f in _codes(report, "SGL005")] == [("Makefile", 5)]
    assert code == 1


def test_skip_file_comment_of_a_makefile_still_skips(scratch_git):
    scratch_git.write("Makefile", "# pdlint: skip-file\ndefine USAGE\nusage\nendef\n" + MAKE_SERVE)
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "SGL005")
    assert code == 0, report["findings"]


# --- P26: the Dockerfile `# escape=` parser directive --------------------------------------------------------------

def test_dockerfile_escape_directive_backtick_continues_a_line(scratch_git):
    scratch_git.write("Dockerfile", "# escape=`\nFROM lmsysorg/sglang:v0.5.23\n"
                                    "CMD python3 -m sglang.launch_server --model-path C:\\m `\n"
                                    "    --disaggregation-mode prefill --tp-size x\n")
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["path"], f["line"], f["column"]) for f in _codes(report, "SGL005")] == [("Dockerfile", 4, 45)]
    assert not _codes(report, "PD009") and not _codes(report, "PD020")
    assert code == 1


@pytest.mark.parametrize("top", ["# escape=`\n", "# syntax=docker/dockerfile:1\n# escape=`\n"])
def test_dockerfile_escape_directive_correct_launch_is_clean(scratch_git, top):
    scratch_git.write("Dockerfile", top + "FROM lmsysorg/sglang:v0.5.23\n"
                                          "CMD python3 -m sglang.launch_server --model-path /m `\n"
                                          "    --disaggregation-mode prefill --tp-size 2\n")
    code, report = scratch_git.lint("--strict", ".")
    assert code == 0, report["findings"]


def test_dockerfile_backslash_continuation_unchanged(scratch_git):
    scratch_git.write("Dockerfile", "# a comment first: no directive after it\n# escape=`\nFROM lmsysorg/sglang:v0.5.23\n"
                                    "CMD python3 -m sglang.launch_server --model-path /m \\\n"
                                    "    --disaggregation-mode prefill --tp-size x\n")
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["line"], f["column"]) for f in _codes(report, "SGL005")] == [(5, 45)]


# --- P20: a template's own catastrophic regular expression is refused before it runs -------------------------------

ANSIBLE = {"site.yml": "- hosts: all\n  roles: [sgl]\n",
           "roles/sgl/tasks/main.yml": "- name: write\n  template: {src: run.sh.j2, dest: /run.sh}\n",
           "roles/sgl/defaults/main.yml": "s: \"" + "a" * 46 + "b\"\nrole: prefill\nv: \"0.5.23\"\n"}


@pytest.mark.parametrize("rx", ["^(a|a)*$", "^(a|aa)*$", "^(?:a|a){1,50}$", "^" + "a*" * 20 + "$", "^(.*a){25}$",
                                "^(a?){40}a{40}$"])
def test_ansible_catastrophic_regex_is_refused_at_once(scratch_git, rx):
    import time
    for k, v in ANSIBLE.items():
        scratch_git.write(k, v)
    scratch_git.write("roles/sgl/templates/run.sh.j2",
                      "python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} "
                      "--tp-size {{ 'x' ~ (s | regex_search('%s') or '') }}\n" % rx)
    t0 = time.monotonic()
    code, report = scratch_git.lint("--strict", ".")
    assert time.monotonic() - t0 < 8
    assert [f["path"] for f in _codes(report, "PD006")] == ["roles/sgl/templates/run.sh.j2"]
    assert not _codes(report, "PD008")
    assert code == 1


def test_ansible_ordinary_regex_still_renders(scratch_git):
    for k, v in ANSIBLE.items():
        scratch_git.write(k, v)
    scratch_git.write("roles/sgl/templates/run.sh.j2",
                      "python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} "
                      "--tp-size {{ (v | regex_search('^(\\\\d+)\\\\.(\\\\d+)', '\\\\2'))[0] }}"
                      "{{ '' if ('a,b,' | regex_search('^(\\\\w+,)*$')) else 'x' }}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "PD006") and not _codes(report, "PD008")
    assert code == 0, report["findings"]


def test_helm_catastrophic_regex_is_refused(scratch_git):
    scratch_git.write("chart/Chart.yaml", CHART["chart/Chart.yaml"])
    scratch_git.write("chart/values.yaml", "s: \"" + "a" * 46 + "b\"\n")
    scratch_git.write("chart/templates/pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: prefill}
        spec:
          containers:
          - name: prefill
            image: lmsysorg/sglang:v0.5.23
            command: [python3, -m, sglang.launch_server]
            args: [--model-path, /m, --disaggregation-mode, prefill, --tp-size, "{{ if regexMatch "^(a|a)*$" .Values.s }}2{{ else }}4{{ end }}"]
        """)
    code, report = scratch_git.lint("--strict", ".")
    assert any("exponential" in f["message"] for f in report["findings"]), report["findings"]
    assert code == 1


# --- P20b: the "did you mean" search per unknown flag ----------------------------------------------------------------

def _reference_close_matches(name, options, n=3):
    """close_matches as it was: every option aligned."""
    from pdlint.suggest import _limit, _norm, distance
    want = _norm(name)
    if not want:
        return []
    limit = min(_limit(len(want)), max(0, (len(want) - 1) // 3))
    scored, seen = [], set()
    for i, opt in enumerate(options):
        if opt in seen:
            continue
        seen.add(opt)
        d = distance(want, _norm(opt), limit)
        if d <= limit:
            scored.append((d, i, opt))
    scored.sort()
    if scored and scored[0][0] == 0:
        scored = [s for s in scored if s[0] == 0]
    return [opt for _, _, opt in scored[:n]]


def test_close_matches_same_as_aligning_every_option():
    import random
    from pdlint.suggest import close_matches
    options = ["--tp-size", "--tensor-parallel-size", "--dp-size", "--pp-size", "--model-path", "--mem-fraction-static",
               "--chunked-prefill-size", "--max-total-tokens", "--disaggregation-mode", "--disaggregation-ib-device",
               "--enable-metrics", "--port", "--host", "--ep-size", "--tp", "--trust-remote-code", "--tp-size"]
    rng = random.Random(27)
    names = [o for o in options] + ["--tp_size", "--TP-SIZE", "--tp-szie", "--model-pth", "--disagregation-mode",
                                    "--mem-fraction", "--chunked-prefil-size", "--bogus-flag-12", "--pt", "--x", "-"]
    for _ in range(400):
        o = list(rng.choice(options))
        for _ in range(rng.randint(0, 3)):
            if len(o) < 4:
                break
            k = rng.randrange(2, len(o))
            op = rng.randrange(4)
            if op == 0:
                del o[k]
            elif op == 1:
                o.insert(k, rng.choice("abcdefgz-_"))
            elif op == 2:
                o[k] = rng.choice("abcdefgz-_")
            elif k + 1 < len(o):
                o[k], o[k + 1] = o[k + 1], o[k]
        names.append("".join(o))
    for name in names:
        for n in (2, 3):
            assert close_matches(name, options, n) == _reference_close_matches(name, options, n), name
            assert close_matches(name, iter(options), n) == _reference_close_matches(name, options, n), name


def test_unknown_flags_align_few_options(scratch_git, monkeypatch):
    import pdlint.suggest as suggest
    calls = [0]
    real = suggest.distance

    def counting(a, b, limit):
        calls[0] += 1
        return real(a, b, limit)
    monkeypatch.setattr(suggest, "distance", counting)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # (counted in this process)
    if hasattr(suggest, "_scored"):
        suggest._scored.cache_clear()
    flags = " ".join(f"--bogus-flag-{i} {i}" for i in range(300))
    scratch_git.write("run.sh", f"python3 -m sglang.launch_server --model-path /m --tp-szie 2 {flags}\n")
    code, report = scratch_git.lint("--strict", ".")
    sgl001 = _codes(report, "SGL001")
    # (32 one by one, then one that counts the rest: rw30/h P10)
    assert len(sgl001) == 33 and "and 269 more such errors in this launch" in sgl001[-1]["message"]
    assert any("--tp-size" in f["message"] for f in sgl001)  # the typo still gets its suggestion
    assert 0 < calls[0] < 20_000  # (each of the 300 against every option: about 340,000)


# --- P29: Compose interpolates ${VAR:?message with blanks} before it splits the command ------------------------------

COMPOSE = """\
services:
  prefill:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --tp-size %s --port 30000
"""


@pytest.mark.parametrize("expr", ["${TP:?need tp}", "${TP?set TP please}", "${TP:+2 }"])
def test_compose_unknown_variable_with_blanks_is_one_word(scratch_git, expr):
    scratch_git.write("compose.yaml", COMPOSE % expr)
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "PD023"), report["findings"]
    assert code == 0, report["findings"]


def test_compose_known_variable_with_message_is_checked(scratch_git):
    scratch_git.write("compose.yaml", COMPOSE % "${TP:?need tp}")
    scratch_git.write(".env", "TP=x\n")
    code, report = scratch_git.lint("--strict", ".")
    assert len(_codes(report, "SGL005")) == 1
    assert code == 1


# --- P22: a strategic-merge patch replacing a container's args covers the base's args --------------------------------

KUST_BASE = {
    "base/dep.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: prefill}
        spec:
          template:
            spec:
              containers:
              - name: prefill
                image: lmsysorg/sglang:v0.5.23
                command: [python3, -m, sglang.launch_server]
                args: [--model-path, /m, --disaggregation-mode, prefill, --tp-size, "2"]
        """,
    "base/kustomization.yaml": "resources: [dep.yaml]\n",
    "overlay/kustomization.yaml": "resources: [../base]\npatches:\n- path: patch.yaml\n",
}


def _smp(container, args):
    return f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: prefill}}
        spec:
          template:
            spec:
              containers:
              - name: {container}
                args: {args}
        """


def _kust(scratch_git, patch):
    for k, v in KUST_BASE.items():
        scratch_git.write(k, v)
    scratch_git.write("overlay/patch.yaml", patch)
    return scratch_git.lint("--strict", ".")


def test_smp_replaced_args_are_not_pd020_at_the_base(scratch_git):
    code, report = _kust(scratch_git, _smp("prefill", '[--model-path, /m, --disaggregation-mode, prefill, --tp-size, "4"]'))
    assert [f for f in report["findings"] if f["code"].startswith("PD02")] == []
    assert code == 0, report["findings"]


def test_smp_replaced_args_are_checked_at_the_overlay(scratch_git):
    code, report = _kust(scratch_git, _smp("prefill", '[--model-path, /m, --disaggregation-mode, prefill, --tp-size, x]'))
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("overlay/patch.yaml", "SGL005")]
    assert code == 1


def test_smp_of_another_container_leaves_the_base_args_checked(scratch_git):
    scratch_git.write("base/dep.yaml", KUST_BASE["base/dep.yaml"].replace('"2"]', 'x]'))
    for k, v in KUST_BASE.items():
        if k != "base/dep.yaml":
            scratch_git.write(k, v)
    scratch_git.write("overlay/patch.yaml", _smp("sidecar", "[--verbose]").replace("name: sidecar",
                                                                                   "name: sidecar\n                image: busybox"))
    code, report = scratch_git.lint("--strict", ".")
    assert ("base/dep.yaml", "SGL005") in [(f["path"], f["code"]) for f in report["findings"]]


# --- P24: the role variable used only in an included / parent template ----------------------------------------------

BASE_J2 = "python3 -m sglang.launch_server --model-path /m --tp-size 2 --disaggregation-mode {{ role }}\n"


@pytest.mark.parametrize("top, partial", [
    ('{% include "_base.j2" %}\n', BASE_J2),
    ('{% extends "_base.j2" %}\n{% block tp %}4{% endblock %}\n',
     BASE_J2.replace("--tp-size 2", "--tp-size {% block tp %}2{% endblock %}")),
])
def test_role_variable_of_an_included_template_renders_per_role(scratch_git, top, partial):
    scratch_git.write("_base.j2", partial)
    scratch_git.write("run.sh.j2", top)
    code, report = scratch_git.lint("--strict", "run.sh.j2")
    assert not _codes(report, "PD005") and not _codes(report, "PD021"), report["findings"]
    assert code == 0, report["findings"]


def test_role_variable_of_an_included_template_is_checked_per_role(scratch_git):
    scratch_git.write("_base.j2", BASE_J2.replace("--tp-size 2", "--tp-size {{ 'x' if role == 'decode' else 2 }}"))
    scratch_git.write("run.sh.j2", '{% include "_base.j2" %}\n')
    code, report = scratch_git.lint("--strict", "run.sh.j2")
    assert [f["code"] for f in report["findings"]] == ["SGL005"]
    assert code == 1


def test_include_without_a_role_variable_is_one_render(scratch_git):
    scratch_git.write("_base.j2", BASE_J2.replace("{{ role }}", "prefill --port {{ port }}"))
    scratch_git.write("run.sh.j2", '{% set port = 30000 %}{% include "_base.j2" %}\n')
    code, report = scratch_git.lint("--strict", "run.sh.j2")
    assert report["findings"] == []
    assert len(report["launches"]) == 1
    assert code == 0


# --- P30: a values-file number is a float64 in Helm ------------------------------------------------------------------

@pytest.fixture
def no_helm(monkeypatch):
    from pdlint.formats import helm
    monkeypatch.setattr(helm, "helm_binary", lambda: None, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: prefill}
spec:
  containers:
  - name: prefill
    image: lmsysorg/sglang:v0.5.23
    command: [python3, -m, sglang.launch_server]
    args:
    - --model-path
    - /m
    - --disaggregation-mode
    - prefill
    - --max-total-tokens
    - %s
"""


def _chart(scratch_git, arg, values):
    scratch_git.write("chart/Chart.yaml", CHART["chart/Chart.yaml"])
    scratch_git.write("chart/values.yaml", values)
    scratch_git.write("chart/templates/pod.yaml", POD % arg)
    return scratch_git.lint("--strict", ".")


@pytest.mark.parametrize("arg", ["{{ .Values.n | quote }}", "{{ .Values.n }}", '{{ printf "%v" .Values.n | quote }}',
                                 "{{ toString .Values.n | quote }}"])
def test_helm_values_number_of_a_million_prints_in_exponent_form(scratch_git, no_helm, arg):
    code, report = _chart(scratch_git, arg, "n: 1000000\n")
    hits = _codes(report, "SGL005")
    assert [(f["path"], f["line"]) for f in hits] == [("chart/values.yaml", 1)], report["findings"]
    assert "1e+06" in hits[0]["message"]
    assert code == 1


@pytest.mark.parametrize("arg, values", [
    ("{{ .Values.n | quote }}", "n: 999999\n"),
    ("{{ .Values.n | int | quote }}", "n: 1000000\n"),
    ("{{ .Values.n | int64 | quote }}", "n: 1048576\n"),
    ('{{ printf "%d" (int .Values.n) | quote }}', "n: 1000000\n"),
    ("{{ .Values.n | quote }}", 'n: "1000000"\n'),
    ("{{ if eq (int .Values.n) 16384 }}16384{{ else }}x{{ end }}", "n: 16384\n"),
    ("{{ if eq .Values.n 16384.0 }}16384{{ else }}x{{ end }}", "n: 16384\n"),
])
def test_helm_values_numbers_written_as_helm_writes_them_stay_quiet(scratch_git, no_helm, arg, values):
    code, report = _chart(scratch_git, arg, values)
    assert report["findings"] == []
    assert code == 0


def test_helm_values_list_through_toyaml_keeps_plain_integers(scratch_git, no_helm):
    scratch_git.write("chart/Chart.yaml", CHART["chart/Chart.yaml"])
    scratch_git.write("chart/values.yaml", "args: [--model-path, /m, --disaggregation-mode, prefill, "
                                           "--max-total-tokens, 1000000]\n")
    scratch_git.write("chart/templates/pod.yaml", POD.split("    args:\n")[0] + "    args:\n"
                      "    {{- toYaml .Values.args | nindent 4 }}\n")
    code, report = scratch_git.lint("--strict", ".")
    assert report["findings"] == []
    assert code == 0


def test_helm_printf_d_of_a_values_number_is_go_wrong_verb_form(scratch_git, no_helm):
    code, report = _chart(scratch_git, '{{ printf "%d" .Values.n | quote }}', "n: 2\n")
    hits = _codes(report, "SGL005")
    assert len(hits) == 1 and "%!d(float64=2)" in hits[0]["message"]
    assert code == 1


def test_helm_eq_of_a_values_number_and_an_integer_stops_the_render(scratch_git, no_helm):
    code, report = _chart(scratch_git, "{{ if eq .Values.n 2 }}16384{{ else }}32768{{ end }}", "n: 2\n")
    hits = _codes(report, "PD104")
    assert len(hits) == 1 and "incompatible types for comparison" in hits[0]["message"]
    assert code == 1


def test_dockerfile_unknown_directive_ends_the_directives(scratch_git):
    scratch_git.write("Dockerfile", "# foo=bar\n# escape=`\nFROM lmsysorg/sglang:v0.5.23\n"
                                    "CMD python3 -m sglang.launch_server --model-path /m \\\n"
                                    "    --disaggregation-mode prefill --tp-size x\n")
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["line"], f["column"]) for f in _codes(report, "SGL005")] == [(5, 45)]
