"""PD052 duplicate-mapping-key: a key written twice in a mapping on the way to a launch.

Field tests: ai-dynamo/aiconfigurator ``vllm/llm-d-values.yaml.j2``, rendered without the ``trim_blocks`` /
``lstrip_blocks`` its generator uses: an indented ``{% endif -%}`` glues ``prefill:`` under ``decode:``, so the
decode mapping holds ``containers`` (and four more keys) twice and both launches read as decode; and
vllm-project/aibrix ``samples/adapter/adapter-s3-example.yaml``, whose pod spec has two ``volumes:`` keys."""

TEMPLATE = """\
    decode:
      replicas: 1
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
      {% if monitoring | default(false) -%}
      monitoring: {enabled: true}
      {% endif -%}

    prefill:
      replicas: 1
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
    """


def test_a_section_glued_under_another_by_the_render_is_reported(scratch_git):
    scratch_git.write("values.yaml.j2", TEMPLATE)
    _, report = scratch_git.lint("values.yaml.j2")
    (f,) = [f for f in report["findings"] if f["code"] == "PD052"]
    assert (f["path"], f["line"]) == ("values.yaml.j2", 12)
    assert "'replicas', 'containers' appear twice" in f["message"] and "rendered template" in f["message"]


def test_the_same_template_rendered_as_its_renderer_does_is_quiet(scratch_git):
    scratch_git.write("values.yaml.j2", TEMPLATE)
    scratch_git.write(".pdlint.yaml", "jinja:\n  trim-blocks: true\n  lstrip-blocks: true\n")
    _, report = scratch_git.lint("values.yaml.j2")
    assert [f["code"] for f in report["findings"]] == []
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: decode}
    spec:
      volumes:
        - name: cache
          emptyDir: {}
      containers:
        - name: s
          image: lmsysorg/sglang:v0.5.5
          command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, decode]
      volumes:
        - name: shm
          emptyDir: {medium: Memory}
    """


def test_a_pod_spec_with_two_volumes_keys(scratch_git):
    scratch_git.write("pod.yaml", POD)
    code, report = scratch_git.lint("pod.yaml")
    assert [(f["code"], f["line"], f["severity"]) for f in report["findings"]] == [("PD052", 12, "warning")]
    assert "key 'volumes' appears twice in this mapping (first at line 5)" in report["findings"][0]["message"]
    assert "rendered" not in report["findings"][0]["message"]


def test_keys_repeated_off_the_launchs_path_or_by_merge_are_quiet(scratch_git):
    one_volumes = POD.split("      volumes:\n        - name: shm")[0]
    scratch_git.write("pod.yaml", one_volumes + """\
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: other}
    data:
      a: "1"
      a: "2"
    """)
    scratch_git.write("merge.yaml", """\
        base: &b {image: x}
        decode:
          <<: *b
          containers:
            - name: s
              image: lmsysorg/sglang:v0.5.5
              command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, decode]
        """)
    _, report = scratch_git.lint("pod.yaml", "merge.yaml")
    assert [(f["code"], f["path"], f["message"]) for f in report["findings"]] == []


# AI-Hypercomputer/gpu-recipes (field test rw6/a): a chart that ships no values.yaml (each recipe passes its own
# with `helm install -f`) renders with empty values; its `if`/`else if` on `framework` then writes no worker
# key, and the frontend's keys "repeat" in a mapping the real install never writes

CHART_TEMPLATE = """\
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: {{ .Release.Name }}
    spec:
      services:
        Frontend:
          componentType: frontend
          replicas: 1
          extraPodSpec:
            mainContainer:
              image: img
              command: ["/bin/sh", "-c"]
              args:
              - python3 -m dynamo.frontend --http-port 8000
    {{- if eq .Values.framework "vllm" }}
        VllmDecodeWorker:
    {{- else if eq .Values.framework "sglang" }}
        SglangDecodeWorker:
    {{- end }}
          componentType: worker
          replicas: 1
          extraPodSpec:
            mainContainer:
              image: img
              command: ["/bin/sh", "-c"]
              args:
              - python3 -m dynamo.vllm --model m --disaggregation-mode decode
    """


def test_a_chart_rendered_without_the_values_it_ships_without_is_quiet(scratch_git):
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: d\nversion: 0.1.0\n")
    scratch_git.write("chart/templates/dgd.yaml", CHART_TEMPLATE)
    _, report = scratch_git.lint("chart")
    assert "PD052" not in [f["code"] for f in report["findings"]]
    # with the values the chart ships, the same repetition is the chart's own
    scratch_git.write("chart/values.yaml", "framework: trtllm\n")
    _, report = scratch_git.lint("chart")
    assert "PD052" in [f["code"] for f in report["findings"]]
