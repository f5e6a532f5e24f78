"""Template files of a language or kind pdlint did not tell from their name (field tests on AWS and GKE
repositories): Handlebars/Mustache YAML (aws-samples/sample-genai-on-eks-starter-kit), Terraform templatefile
`*.yaml.tpl` / `*.tftpl` (GoogleCloudPlatform/ai-on-gke), Helm templates named `*.yaml.j2` in a chart's
`templates/` and a Jinja values template with no launch text (AI-Hypercomputer/gpu-recipes).  Their launch text
is said unchecked (PD020, naming the language); a file pdlint does not render gets no parse error."""

import pytest

from pdlint.formats import helm


@pytest.fixture
def no_helm(monkeypatch):
    monkeypatch.setattr(helm, "helm_binary", lambda: None)


def found(doc) -> list:
    return [(f["path"], f["code"], f["line"]) for f in doc["findings"]]


# -- Handlebars / Mustache YAML -----------------------------------------------------------------------------

# sample-genai-on-eks-starter-kit components/nvidia-platform/dynamo-vllm/deploy.template.yaml (filled by its
# index.mjs), shortened: both role flags sit in `{{#if IS_DISAGG}}` branches
DYNAMO_HBS = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: {{{NAME}}}
spec:
  services:
    VllmWorker:
      envs:
        - name: DYN_LOG
          value: "info"
{{#if ENABLE_STRUCTURED_LOGGING}}
        - name: DYN_LOGGING_JSONL
          value: "true"
{{/if}}
      extraPodSpec:
        mainContainer:
          command: ["/bin/sh", "-c"]
          args:
            - >-
              python3 -m dynamo.vllm
              --model $MODEL_PATH
{{#if IS_DISAGG}}
              --is-decode-worker
              --connector nixl
{{/if}}
"""

# components/ai-gateway/litellm/values.template.yaml: Helm values, no launch text
LITELLM_HBS = """\
image:
  tag: main-v1.81.3-stable
{{#if @root.integration.o11y.mlflow}}
image:
  repository: public.ecr.aws/agentic-ai-platforms-on-k8s/litellm
{{/if}}
resources:
  limits: {memory: 2Gi}
"""


def test_launch_text_in_a_handlebars_yaml_template_is_unchecked_not_a_yaml_error(scratch_git):
    # 42 PD003 "invalid YAML" errors on the starter kit's Handlebars templates
    scratch_git.write("deploy.template.yaml", DYNAMO_HBS)
    code, doc = scratch_git.lint("deploy.template.yaml")
    assert code == 0 and found(doc) == [("deploy.template.yaml", "PD020", 20)]
    (f,) = doc["findings"]
    assert "Handlebars/Mustache template (`{{{NAME}}}` on line 4), which pdlint does not render" in f["message"]
    assert "render it with the values it is deployed with and run pdlint on the output" in f["fix"]
    assert doc["coverage"]["files"]["deploy.template.yaml"]["status"] == "unchecked"


def test_a_handlebars_yaml_template_without_launch_text_gives_nothing(scratch_git):
    scratch_git.write("values.template.yaml", LITELLM_HBS)
    scratch_git.write("m.template.yaml", "spec:\n  nodeSelector:\n    {{{KARPENTER_PREFIX}}}/family: g6e\n"
                                         "  containers: [{name: vllm, image: vllm/vllm-openai}]\n")
    code, doc = scratch_git.lint(".")
    assert (code, doc["findings"]) == (0, [])


def test_a_handlebars_template_that_parses_as_yaml_is_not_read_as_yaml(scratch_git):
    # `{{#if}}` keeps both branches in the text: read as YAML this was a launch with both role flags, which no
    # deployment runs; a clean parse does not make the text the deployed one
    scratch_git.write("w.template.yaml", """\
        command: [python3, -m, sglang.launch_server]
        args:
          - --model-path
          - "{{{MODEL}}}"
          - "{{#if PREFILL}}--disaggregation-mode{{/if}}"
        """)
    code, doc = scratch_git.lint("w.template.yaml")
    assert doc["launches"] == [] and found(doc) == [("w.template.yaml", "PD020", 1)]
    assert "Handlebars/Mustache" in doc["findings"][0]["message"]


def test_a_plain_template_file_with_handlebars_tags_names_them(scratch_git):
    # a `*.template` was already PD020 ("a file kind pdlint does not read"): it now says which language
    scratch_git.write("run.template", "{{#if GPU}}\nvllm serve {{{MODEL}}} --kv-transfer-config '{}'\n{{/if}}\n")
    code, doc = scratch_git.lint(".")
    assert found(doc) == [("run.template", "PD020", 2)]
    assert "Handlebars/Mustache template (`{{#if GPU}}` on line 1)" in doc["findings"][0]["message"]


def test_broken_yaml_without_handlebars_tags_is_still_invalid_yaml(scratch_git):
    # double braces are no Handlebars section or triple-stash (Jinja, Argo and Go share them)
    scratch_git.write("d.yaml", "spec:\n  nodeSelector:\n    {{PREFIX}}/family: g6e\n"
                                "  containers: [{name: s, command: [python3, -m, sglang.launch_server]}]\n")
    code, doc = scratch_git.lint("d.yaml")
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["PD003"]


def test_a_go_template_comment_is_no_handlebars_close(scratch_git):
    # `{{/* ... */}}` (gpu-recipes' _helpers.tpl: `{{/* vim: set filetype=mustache: */}}`) is a Go template
    # comment: the file stays a Go template outside a chart, whose literal flag lines are read
    scratch_git.write("pod.yaml", """\
        {{/* a comment */}}
        apiVersion: v1
        kind: Pod
        metadata: {name: {{ .Release.Name }}}
        spec:
          containers:
            - name: s
              command:
                - python3
                - -m
                - sglang.launch_server
                - --disaggregation-mode
                - prefill
        """)
    code, doc = scratch_git.lint("pod.yaml")
    assert len(doc["launches"]) == 1
    assert not any("Handlebars" in f["message"] for f in doc["findings"])


# -- Terraform templatefile ---------------------------------------------------------------------------------

# ai-on-gke benchmarks/benchmark/tools/locust-load-inference/runner-manifest-template/locust-runner-service.yaml.tpl
TF_SERVICE = """\
kind: Service
apiVersion: v1
metadata:
  namespace: ${namespace}
spec:
%{ for ip in ips ~}
  loadBalancerIP: ${ip}
%{ endfor ~}
  type: LoadBalancer
"""

# ai-on-gke benchmarks/inference-server/vllm/manifest-templates/vllm.tftpl, shortened
TF_VLLM = """\
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: vllm
          env:
%{ for secret in secrets ~}
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: ${secret}, key: token}}
%{ endfor ~}
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: ["--model=${model_id}", "--tensor-parallel-size=${gpu_count}"]
"""


def test_a_terraform_yaml_tpl_without_launch_text_gives_nothing(scratch_git):
    # it was `PD003 invalid rendered YAML: while scanning a directive` at `%{ for ip in ips ~}`
    scratch_git.write("svc.yaml.tpl", TF_SERVICE)
    for args in (["."], ["svc.yaml.tpl"]):
        code, doc = scratch_git.lint(*args)
        assert (code, doc["findings"]) == (0, []), args


def test_launch_text_in_a_terraform_yaml_tpl_is_unchecked(scratch_git):
    scratch_git.write("vllm.yaml.tpl", TF_VLLM)
    code, doc = scratch_git.lint("vllm.yaml.tpl")
    assert code == 0 and found(doc) == [("vllm.yaml.tpl", "PD020", 13)]
    message = doc["findings"][0]["message"]
    assert "Terraform templatefile template (`%{ for secret in secrets ~}` on line 9)" in message
    assert "`templatefile(...)`" in doc["findings"][0]["fix"]


def test_launch_text_in_a_tftpl_file_is_reported(scratch_git):
    # `.tftpl` files were not scanned at all: their launch text passed unseen
    scratch_git.write("m/vllm.tftpl", TF_VLLM.replace("%{ for secret in secrets ~}", "").replace(
        "%{ endfor ~}", ""))
    scratch_git.write("m/svc.tftpl", TF_SERVICE)
    for args in (["."], ["m/vllm.tftpl", "m/svc.tftpl"]):
        code, doc = scratch_git.lint(*args)
        assert found(doc) == [("m/vllm.tftpl", "PD020", 13)], args
        assert "Terraform templatefile template (a `.tftpl` file)" in doc["findings"][0]["message"]


def test_a_jinja_tpl_with_shell_variables_is_still_rendered(scratch_git):
    # `${VAR}` alone is no Terraform: a Jinja `.sh.tpl` holds shell's
    scratch_git.write("run.sh.tpl", "#!/bin/sh\npython3 -m sglang.launch_server --model-path ${MODEL} "
                                    "--disaggregation-mode {{ role }}\n")
    code, doc = scratch_git.lint("run.sh.tpl")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]


# -- Helm templates named *.yaml.j2 -------------------------------------------------------------------------

CHART_YAML = "apiVersion: v2\nname: ray-cluster\nversion: 1.1.1\n"

# gpu-recipes RL/a4/recipes/*/nemoRL/templates/raycluster-cluster.yaml.j2 (installed by `helm install`)
RAY_CLUSTER_J2 = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  labels:
    {{- include "ray-cluster.labels" . | nindent 4 }}
  name: {{ .Release.Name }}
spec:
  {{- if .Values.head.rayVersion }}
  rayVersion: {{ .Values.head.rayVersion }}
  {{- end }}
"""

HELPERS = """\
{{/* vim: set filetype=mustache: */}}
{{- define "ray-cluster.labels" -}}
app: {{ .Chart.Name }}
{{- end -}}
"""

LAUNCH_J2 = """\
apiVersion: v1
kind: Pod
metadata: {name: {{ .Release.Name }}-prefill}
spec:
  containers:
    - name: s
      command:
        - python3
        - -m
        - sglang.launch_server
        - --disaggregation-mode
        - {{ .Values.mode }}
        - --enable-linear-replayssm-spec
"""


def test_a_yaml_j2_in_a_chart_s_templates_is_a_helm_template(no_helm, scratch_git):
    # it was `PD004 error: expected token 'end of print statement'` (read as Jinja)
    scratch_git.write("nemoRL/Chart.yaml", CHART_YAML)
    scratch_git.write("nemoRL/values.yaml", "head:\n  rayVersion: 2.43.0\n")
    scratch_git.write("nemoRL/templates/_helpers.tpl", HELPERS)
    scratch_git.write("nemoRL/templates/raycluster-cluster.yaml.j2", RAY_CLUSTER_J2)
    for args in (["."], ["nemoRL/templates/raycluster-cluster.yaml.j2"]):
        code, doc = scratch_git.lint(*args)
        assert (code, doc["findings"]) == (0, []), args


def test_a_launch_in_a_chart_s_yaml_j2_is_rendered_with_the_chart(no_helm, scratch_git):
    scratch_git.write("c/Chart.yaml", CHART_YAML)
    scratch_git.write("c/values.yaml", "mode: prefill\n")
    scratch_git.write("c/templates/pod.yaml.j2", LAUNCH_J2)
    code, doc = scratch_git.lint("c/templates/pod.yaml.j2")
    (launch,) = doc["launches"]
    assert launch["role"] == "prefill" and "rendered by pdlint's Helm template subset" in launch["context"]
    assert ("c/templates/pod.yaml.j2", "SGL101", 13) in found(doc)


def test_a_yaml_j2_outside_a_chart_s_templates_is_still_jinja(no_helm, scratch_git):
    # beside Chart.yaml (gpu-recipes' ray_cluster_values_a4_template.yaml.j2), and in a `templates/` folder of no
    # chart: rendered per role as Jinja
    jinja = ("containers:\n  - name: s\n    command: [python3, -m, sglang.launch_server]\n"
             "    args: [--model-path, /m, --disaggregation-mode, '{{ role }}']\n")
    scratch_git.write("c/Chart.yaml", CHART_YAML)
    scratch_git.write("c/values_template.yaml.j2", jinja)
    scratch_git.write("deploy/templates/pod.yaml.j2", jinja)
    scratch_git.write("deploy/templates/go.yaml.j2", "name: {{ .Release.Name }}\n")
    code, doc = scratch_git.lint(".")
    roles = sorted((l["path"], l["role"]) for l in doc["launches"])
    assert roles == [("c/values_template.yaml.j2", "decode"), ("c/values_template.yaml.j2", "prefill"),
                     ("deploy/templates/pod.yaml.j2", "decode"), ("deploy/templates/pod.yaml.j2", "prefill")]
    assert ("deploy/templates/go.yaml.j2", "PD004", 1) in found(doc)


# -- render errors of a Jinja template with no launch text --------------------------------------------------

# gpu-recipes RL/a4/recipes/*/nemoRL/ray_cluster_values_a4_template.yaml.j2:30 (its deploy script supplies the
# value): Jinja's `indent` raises on an undefined value
RAY_VALUES_J2 = """\
configMap:
  fluentbit:
    data:
      fluent-bit.conf: |
        {{ fluent_bit_conf | indent(8)}}
{% if schedule_using_kueue %}
labels: {kueue.x-k8s.io/queue-name: q}
{% endif %}
"""


def test_a_template_without_launch_text_gets_no_render_error(scratch_git):
    # it was `PD006 error: UndefinedError: 'fluent_bit_conf' is undefined`
    scratch_git.write("ray_cluster_values_a4_template.yaml.j2", RAY_VALUES_J2)
    code, doc = scratch_git.lint(".")
    assert (code, doc["findings"]) == (0, [])


def test_a_template_with_launch_text_keeps_its_render_error(scratch_git):
    scratch_git.write("values.yaml.j2", RAY_VALUES_J2 + "command: [python3, -m, sglang.launch_server]\n")
    code, doc = scratch_git.lint(".")
    assert code == 1 and found(doc) == [("values.yaml.j2", "PD006", 5)]
    assert "'fluent_bit_conf' is undefined" in doc["findings"][0]["message"]


def test_a_render_error_stays_where_a_launch_may_come_from_elsewhere(scratch_git):
    # a template it includes, or a variable it renders with, may hold the launch that the failed render hides
    scratch_git.write("inc.yaml.j2", "{% include 'flags.j2' %}\n" + RAY_VALUES_J2)
    scratch_git.write("flags.j2", "# flags\n")
    scratch_git.write("var.yaml.j2", "cmd: {{ cmd }}\n" + RAY_VALUES_J2)
    code, doc = scratch_git.lint("--var", "cmd=python3 -m sglang.launch_server", "inc.yaml.j2", "var.yaml.j2")
    assert [(p, c) for p, c, _ in found(doc)] == [("inc.yaml.j2", "PD006"), ("var.yaml.j2", "PD006")]


def test_the_pre_commit_hook_passes_tftpl_files():
    import os
    import re

    import yaml
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, ".pre-commit-hooks.yaml")) as f:
        (hook,) = yaml.safe_load(f)
    with open(os.path.join(root, "hooks", "pre-commit")) as f:
        pattern = re.search(r"^PATTERN='([^']+)'$", f.read(), re.M).group(1)
    for p in (hook["files"], "(?i)" + pattern):
        assert re.search(p, "benchmarks/manifest-templates/vllm.tftpl")
