"""Go template actions pdlint reads as written (``{{ .Spec.Model.Name }}``, ``{{- if .X -}}--flag{{- end }}``):
a controller renders them later (kserve fills its LLMInferenceServiceConfig templates), so each is one value
pdlint cannot see, never flag text.  Found on kserve's config/llmisvcconfig, which reached the shell of a
container through a kustomize build: the words of ``{{- if .Spec.Parallelism.Expert -}}--enable-expert-parallel``
were split at the action's blanks and ``-}}--enable-expert-parallel{{-`` judged as an unknown vLLM option."""

from __future__ import annotations

import textwrap

import pytest

from pdlint.cli import main
from pdlint.formats import yamltree as yt
from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr


def opaque_runs(t: TStr) -> list:
    return [t.text[p.start:p.end] for p in t.pieces if p.opaque]


# -- YAML: the actions inside string scalars -----------------------------------------------------------

def test_actions_in_scalars_become_opaque_and_the_text_stays():
    text = 'kind: X\nspec:\n  args: ["--served-model-name", "{{ .Spec.Model.Name }}"]\n  script: |\n' \
           '    exec vllm serve m {{- if .Spec.X -}}--enable-expert-parallel{{- end }}\n'
    doc = TStr.from_source(SourceFile("c.yaml", text))
    out = yt.go_actions_opaque(doc, yt.compose(text))
    assert out.text == text
    assert opaque_runs(out) == ["{{ .Spec.Model.Name }}", "{{- if .Spec.X -}}", "{{- end }}"]


def test_no_action_and_jinja_like_text_are_left_alone():
    for text in ("kind: X\nargs: [--port, '8000']\n", "kind: X\nargs: ['{{ model }}']\n"):
        doc = TStr.from_source(SourceFile("c.yaml", text))
        assert yt.go_actions_opaque(doc, yt.compose(text)) is doc


def test_strict_wants_every_action_in_a_string():
    good = "uri: 'hf://{{ .Values.model }}'\n"
    doc = TStr.from_source(SourceFile("v.yaml", good))
    assert opaque_runs(yt.go_actions_opaque(doc, yt.compose(good), strict=True)) == ["{{ .Values.model }}"]
    commented = "# {{ .Values.z }}\nuri: hf://m\n"  # an action only in a comment: nothing to mark
    doc = TStr.from_source(SourceFile("v.yaml", commented))
    assert yt.go_actions_opaque(doc, yt.compose(commented), strict=True) is None
    assert yt.go_actions_opaque(doc, yt.compose(commented)) is doc
    key = "{{ .Values.k }}: 1\n"  # a flow mapping as a key: the action stands in the structure
    doc = TStr.from_source(SourceFile("v.yaml", key))
    assert yt.go_actions_opaque(doc, yt.compose(key), strict=True) is None


# -- shell: an opaque action is one placeholder ----------------------------------------------------------

def words_of(script: TStr) -> list:
    reports = []
    cmds = shell_commands(script, ShellContext(lambda p, c: None, lambda *a: reports.append(a[1])))
    return [[w.text for w in c.words] for c in cmds], reports


def script_with_opaque_actions(text: str) -> TStr:
    doc = TStr.from_source(SourceFile("s.yaml", "s: |\n" + textwrap.indent(text, "  ")))
    marked = yt.go_actions_opaque(doc, yt.compose(doc.text))
    return marked[len("s: |\n  "):]


def test_an_opaque_action_is_not_split_at_its_blanks():
    text = "exec vllm serve m {{- if .Spec.X -}}--enable-expert-parallel{{- end }} --port 8000\n"
    got, _ = words_of(script_with_opaque_actions(text))
    assert got == [["exec", "vllm", "serve", "m", "{{- if .Spec.X -}}--enable-expert-parallel{{- end }}",
                    "--port", "8000"]]
    plain, _ = words_of(TStr.from_source(SourceFile("s.sh", text)))  # written in a script: literal text
    assert plain[0][4:7] == ["{{-", "if", ".Spec.X"]


def test_an_opaque_action_in_arithmetic_is_no_syntax_error():
    text = 'START=$(( ${I:-0} * {{ or .Spec.N 1 }} ))\nexec vllm serve m --data-parallel-start-rank "$START"\n'
    got, reports = words_of(script_with_opaque_actions(text))
    assert reports == []
    assert got[0][-1] == "$(( ${I:-0} * {{ or .Spec.N 1 }} ))"
    _, plain = words_of(TStr.from_source(SourceFile("s.sh", text)))
    assert any("syntax error" in r for r in plain)  # as written in a script, bash cannot parse it either


# -- end to end: a kustomize build and a here-document ---------------------------------------------------

DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: vllm}}
    spec:
      template:
        spec:
          containers:
          - name: main
            image: vllm/vllm-openai:v0.11.0
            command: [/bin/bash, -c]
            args:
            - |
              exec vllm serve /mnt/models --served-model-name "{{{{ .Spec.Model.Name }}}}" \\
                {{{{- if .Spec.Parallelism.Expert -}}}}--enable-expert-parallel{{{{- end }}}} \\
                {extra}--port 8000
    """


def test_kustomize_member_action_is_one_unknown_not_a_flag(scratch_git, capsys):
    scratch_git.write("k/kustomization.yaml", "resources: [d.yaml]\n")
    scratch_git.write("k/d.yaml", DEPLOYMENT.format(extra=""))
    code, out = scratch_git.lint(".")
    found = [(f["code"], f["line"]) for f in out["findings"]]
    assert found == [("PD023", 14)], out["findings"]
    (f,) = out["findings"]
    assert f["message"].startswith("`{{- if .Spec.Parallelism.Expert -}}--enable-expert-parallel{{- end }}` stands")
    assert main(["check", "--no-cache", "."]) == 0  # a warning
    assert "help: a template action some other tool renders" in capsys.readouterr().out


def test_kustomize_member_still_gets_its_real_typo(scratch_git, capsys):
    scratch_git.write("k/kustomization.yaml", "resources: [d.yaml]\n")
    scratch_git.write("k/d.yaml", DEPLOYMENT.format(extra="--enable-expert-paralel "))
    code, out = scratch_git.lint(".")
    assert code == 1
    assert ("VLLM018", 15) in [(f["code"], f["line"]) for f in out["findings"]]
    assert not any("}}" in f["message"] and f["code"] == "VLLM018" for f in out["findings"])


def test_heredoc_manifest_actions_are_opaque(scratch_git, capsys):
    manifest = textwrap.indent(textwrap.dedent(DEPLOYMENT.format(extra="")), "")
    scratch_git.write("install.sh", "cat <<'EOF' | kubectl apply -f -\n" + manifest + "EOF\n")
    code, out = scratch_git.lint("install.sh")
    assert [(f["code"], f["line"]) for f in out["findings"]] == [("PD023", 15)]
    assert out["coverage"]["launches"] == 1


# -- a Jinja file that is no launch template ---------------------------------------------------------

CHAT_TEMPLATE = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']}}"
                 "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}\n")


def test_chat_template_is_not_judged_as_a_launch_template(scratch_git, capsys):
    # vllm-project/production-stack tests/assets/template-chatml.jinja: a model's chat template (the server
    # renders it with `messages`): its "undefined" variables were two PD005 errors
    scratch_git.write("tests/assets/template-chatml.jinja", CHAT_TEMPLATE)
    # srt-slurm's nginx.conf.j2: a proxy's config, no launch in it
    scratch_git.write("nginx.conf.j2", "upstream backend {\n  server {{ host }}:{{ port }};\n}\n")
    # SemiAnalysisAI/InferenceX deepseek_v4_thinking.jinja: its render is no shell script (PD009 on '>')
    scratch_git.write("chat_templates/thinking.jinja", "{{- '<\uff5cbegin\u2581of\u2581sentence\uff5c>' -}}\n"
                                                       "{%- for m in messages -%}{{- m['content'] -}}{%- endfor -%}\n")
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])


@pytest.mark.parametrize("name,text", [
    ("launch.j2", "python3 -m sglang.launch_server --model-path {{ model }} --disaggregation-mode prefill\n"),
    ("chat.yaml.j2", "args: [{{ messages }}]\n"),  # a YAML template by its name
    ("with-include.j2", "{% include 'flags.j2' %} {{ messages }}\n"),
    # llm-d-benchmark's 14_standalone-deployment_yaml.j2: a Deployment whose command comes from variables
    # (a manifest key: a YAML template of data alone, without launch text, gets no PD005, test_field_unread.py)
    ("14_standalone-deployment_yaml.j2", "kind: Deployment\nreplicas: {{ standalone.replicas }}\n"),
    ("deploy.j2", "apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: {{ replicas }}}\n"),  # renders YAML
    ("job_script.j2", "#!/bin/bash\n#SBATCH --nodes={{ total_nodes }}\nsrun python /scripts/worker_setup.py\n"),
])
def test_launch_templates_keep_their_undefined_variables(scratch_git, capsys, name, text):
    scratch_git.write(name, text)
    scratch_git.write("flags.j2", "--tp-size 2\n")
    code, out = scratch_git.lint(name)
    assert "PD005" in [f["code"] for f in out["findings"]]
