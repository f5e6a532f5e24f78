"""YAML manifests whose Go template actions all sit inside string scalars (outside a Helm chart) are read as YAML.

Found on kserve/kserve (aaac4e29): its installer bundles (install/v0.17.0/kserve-cluster-resources.yaml,
charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml) are many documents, one of whose scripts holds a
`{{ ... }}` action the kserve controller fills in. That made the whole file "a Go template outside a Helm chart",
read as the literal `- item` lines of one script on one host: a false PD150 between the launches of two
LLMInferenceServiceConfig objects (two pods), the prefill role lost, and a double-quoted script read line by line,
undecoded (a false PD009). Each document now keeps its structure, as when the documents are one per file.
"""

import textwrap

# kserve install/v0.17.0/kserve-cluster-resources.yaml, shortened to three of its LLMInferenceServiceConfigs
BUNDLE = textwrap.dedent("""\
    apiVersion: serving.kserve.io/v1alpha2
    kind: LLMInferenceServiceConfig
    metadata:
      name: kserve-config-llm-prefill-template
    spec:
      prefill:
        template:
          containers:
          - name: main
            command:
            - vllm
            - serve
            - /mnt/models
            - --served-model-name
            - '{{ .Spec.Model.Name }}'
            - --port
            - "8000"
    ---
    apiVersion: serving.kserve.io/v1alpha2
    kind: LLMInferenceServiceConfig
    metadata:
      name: kserve-config-llm-template
    spec:
      template:
        containers:
        - name: main
          command:
          - vllm
          - serve
          - /mnt/models
          - --served-model-name
          - '{{ .Spec.Model.Name }}'
          - --port
          - "8000"
    ---
    apiVersion: serving.kserve.io/v1alpha2
    kind: LLMInferenceServiceConfig
    metadata:
      name: kserve-config-llm-tokenizer
    spec:
      router:
        scheduler:
          tokenizer:
            template:
              containers:
              - name: main
                command:
                - /bin/bash
                - -c
                - |-
                  exec vllm launch render /mnt/models/base \\
                    --port=8000 {{ if .GlobalConfig.EnableTLS }}--enable-ssl-refresh{{ end }}
    """)


def launches(doc) -> list:
    return [(l["role"], l["argv"]) for l in doc["launches"]]


def codes(doc) -> list:
    return sorted(f["code"] for f in doc["findings"])


def test_each_document_of_a_bundle_keeps_its_own_pod_and_role(scratch_git):
    scratch_git.write("bundle.yaml", BUNDLE)
    code, doc = scratch_git.lint("bundle.yaml")
    assert [(l["line"], l["role"]) for l in doc["launches"]] == [(11, "prefill"), (28, "null")]
    assert code == 0 and "PD150" not in codes(doc)
    assert not any("literal flag lines" in l["context"] for l in doc["launches"])


def test_a_bundle_reads_as_its_documents_one_per_file(scratch_git):
    parts = BUNDLE.split("---\n")
    for i, part in enumerate(parts):
        scratch_git.write(f"split/d{i}.yaml", part)
    scratch_git.write("bundle/bundle.yaml", BUNDLE)
    _, split = scratch_git.lint("split")
    _, bundle = scratch_git.lint("bundle")
    assert launches(bundle) == launches(split) and len(launches(bundle)) == 2
    assert codes(bundle) == codes(split)


# kserve install/v0.20.0/kserve-cluster-resources.yaml:106, shortened: a double-quoted script folded over lines
POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: x
    spec:
      containers:
      - name: a
        command:
        - bash
        - -c
        - "export A=\\"\\"\\nif
          [[ -z ${B} ]]\\nthen\\n  export A=\\"--x=1\\"\\nfi\\n"
      - name: b
        command:
        - /bin/bash
        - -c
        - |-
          exec vllm serve /mnt/models {{ if .TLS }}--ssl-certfile /x{{ end }}
    """)


def test_a_double_quoted_script_is_decoded_not_a_syntax_error(scratch_git):
    scratch_git.write("pod.yaml", POD)
    code, doc = scratch_git.lint("pod.yaml")
    assert "PD009" not in codes(doc)
    # the launch in the block scalar is read; the flags its action adds are opaque (PD023 there)
    assert [(l["line"], l["argv"][0]) for l in doc["launches"]] == [(18, "/mnt/models")]
    assert [(f["code"], f["line"], f["column"]) for f in doc["findings"]] == [("PD023", 18, 35)]


def test_actions_in_the_yaml_structure_keep_the_file_a_go_template(scratch_git):
    # `{{- if }}` lines between the documents are no YAML: the file is still a template to render, whose
    # literal `- item` lines pdlint reads (the launches' context says so)
    scratch_git.write("bundle.yaml", "{{- if .Values.prefill }}\n" + BUNDLE.replace("---\n", "{{- end }}\n---\n", 1))
    code, doc = scratch_git.lint("bundle.yaml")
    assert doc["launches"] and all("literal flag lines" in l["context"] and "Go template outside a Helm chart"
                                   in l["context"] for l in doc["launches"])
