"""An LLMInferenceService container with no ``command`` and one ``args`` item holding a whole command line
(johnahull/llm-d-xks-gke, field report rw11/a).  The controller supplies the command: Open Data Hub / RHOAI's
template is ``command: [/bin/bash, -c]``, so the item is a script.  pdlint said PD050 ("the kubelet runs a
program literally named 'python3 -m vllm...'"), which is wrong for this resource; it now reads the item as the
script it is.  The RHAIIS image tag (``3.2.5``) is the product's version, not vLLM's."""

import pytest

SERVICE = """\
    apiVersion: serving.kserve.io/v1alpha1
    kind: LLMInferenceService
    metadata:
      name: qwen2-3b
    spec:
      model:
        uri: hf://Qwen/Qwen2.5-3B-Instruct
      template:
        containers:
        - name: main
          image: registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.5
          args:
          - |
            python3 -m vllm.entrypoints.openai.api_server \\
              --model=/mnt/models \\
              --max-model-len=2048 \\
              --tensor-parallel-size=4 BAD
    """


def test_the_args_line_is_a_script_here(scratch_git):
    scratch_git.write("svc.yaml", SERVICE.replace(" BAD", " \\\n              --no-such-flag"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM018", 18)]
    (launch,) = report["launches"]
    assert launch["argv"] == ["--model=/mnt/models", "--max-model-len=2048", "--tensor-parallel-size=4",
                              "--no-such-flag"]
    assert "bash -c by the controller" in launch["context"]


def test_a_clean_args_line_is_quiet(scratch_git):
    scratch_git.write("svc.yaml", SERVICE.replace(" BAD", ""))
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert len(report["launches"]) == 1


def test_a_deployment_with_the_same_item_is_still_pd050(scratch_git):
    scratch_git.write("d.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec:
          template:
            spec:
              containers:
              - name: main
                image: vllm/vllm-openai:v0.10.2
                command:
                - |
                  python3 -m vllm.entrypoints.openai.api_server \\
                    --model=/mnt/models
        """)
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["PD050"]
    assert report["launches"][0]["argv"] == ["--model=/mnt/models"]  # (the line continuation is no word)


@pytest.mark.parametrize("image, release", [
    ("registry.redhat.io/rhaiis/vllm-tpu-rhel9:3.2.5", None),
    ("lmcache/vllm-openai:v0.3.5", None),  # LMCache 0.3.5, not vLLM 0.3.5 (field test rw12/d)
    ("vllm/vllm-openai:v0.10.2", "0.10.2"),
])
def test_a_product_tag_names_no_vllm_release(image, release):
    from pdlint.engines.vllm import flags
    assert flags.image_version(image) == release
    assert not flags.unreleased_image(image)  # (RHAIIS: judged as an image pinning no release, not a custom build)


def test_shell_split_removes_line_continuations():
    from pdlint.formats.crd import shell_split
    from pdlint.text import TStr
    words = shell_split(TStr.synthetic('a \\\n  b\\\nc "d\\\ne" \\\n', "<t>"))
    assert [w.text for w in words] == ["a", "bc", "de"]


HEAD = """\
    apiVersion: serving.kserve.io/v1alpha1
    kind: LLMInferenceService
    metadata:
      name: NAME
    spec:
      model:
        uri: hf://Qwen/Qwen3-0.6B
"""

PD_SERVICE = HEAD.replace("NAME", "pd-rdma") + """\
      template:
        containers:
          - name: main
            env:
              - name: VLLM_ADDITIONAL_ARGS
                value: "--kv_transfer_config '{\\"kv_connector\\":\\"CONN\\",\\"kv_role\\":\\"kv_both\\"}'"
      prefill:
        replicas: 2
        template:
          containers:
            - name: main
              env:
                - name: VLLM_ADDITIONAL_ARGS
                  value: "--kv_transfer_config '{\\"kv_connector\\":\\"CONN\\",\\"kv_role\\":\\"kv_both\\"}'"
    """


def test_the_connector_the_manifest_writes_is_judged(scratch_git):
    """aneeshkp/llm-d-conformance-manifests' pd-rdma.yaml with `NixlConector` (field test rw11/a): the
    KServe controller passes VLLM_ADDITIONAL_ARGS as written (its templates add a config only when none is
    given), so the misspelt connector stops both pools as in a plain Pod.  VLLM031 was off for every
    controller-owned launch but a DynamoGraphDeployment's."""
    scratch_git.write("pd.yaml", PD_SERVICE.replace("CONN", "NixlConector"))
    code, report = scratch_git.lint(".")
    assert sorted((f["code"], f["line"], f["role"]) for f in report["findings"]) == [
        ("VLLM031", 13, "decode"), ("VLLM031", 21, "prefill")]


def test_a_registered_connector_is_quiet(scratch_git):
    scratch_git.write("pd.yaml", PD_SERVICE.replace("CONN", "NixlConnector"))
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


FLAGS_ONLY = HEAD.replace("NAME", "qwen") + """\
      template:
        containers:
          - name: main
            args:
              - --max-model-len
              - "8192"
              - --kv-transfer-config
              - '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    """


def test_flag_args_are_the_controllers_server_flags(scratch_git):
    """Flags-only `args` (field report rw11/a): PD020 said "'--max-model-len' is not a launcher pdlint knows".
    The controller appends them to its `vllm serve`; they are checked as that server's flags."""
    scratch_git.write("isvc.yaml", FLAGS_ONLY.replace("--max-model-len", "--max-modle-len"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM018", 12)]
    assert "did you mean --max-model-len" in report["findings"][0]["message"]


def test_clean_flag_args_are_quiet(scratch_git):
    scratch_git.write("isvc.yaml", FLAGS_ONLY)
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    (launch,) = report["launches"]
    assert launch["argv"][:2] == ["--max-model-len", "8192"]
