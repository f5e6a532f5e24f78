"""A KServe LLMInferenceServiceConfig is read the same through a kustomization as alone.

Found on kserve/kserve (aaac4e29): docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_pd_disagg.yaml gives no command;
its controller runs `vllm serve` with $VLLM_ADDITIONAL_ARGS, whose kv_role names the pool's role. Alone it was one
prefill and one decode launch, a pair; listed in a kustomization.yaml the build dropped both containers (no command,
no args), and their launch text was two PD020 "a structure pdlint does not recognise".
"""

CONFIG = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceServiceConfig
metadata:
  name: llmisvc-config-pd-disagg
spec:
  template:
    containers:
      - name: main
        image: ghcr.io/llm-d/llm-d-cuda:v0.9.0
        env:
          - name: VLLM_ADDITIONAL_ARGS
            value: "--kv_transfer_config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_consumer\\"}'"
  prefill:
    template:
      containers:
        - name: main
          image: ghcr.io/llm-d/llm-d-cuda:v0.9.0
          env:
            - name: VLLM_ADDITIONAL_ARGS
              value: "--kv_transfer_config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_producer\\"}'"
"""


def launches(report) -> list:
    return [(l["path"], l["line"], l["role"], l["argv"]) for l in report["launches"]]


def test_a_kserve_config_in_a_kustomization_is_read_as_alone(scratch_git):
    scratch_git.write("alone/config-pd.yaml", CONFIG)
    scratch_git.write("kust/config-pd.yaml", CONFIG)
    scratch_git.write("kust/kustomization.yaml", "resources:\n  - config-pd.yaml\n")
    _, alone = scratch_git.lint("alone")
    _, built = scratch_git.lint("kust")
    assert [(role, argv) for _, _, role, argv in launches(built)] == \
           [(role, argv) for _, _, role, argv in launches(alone)]
    assert [(p, line, role) for p, line, role, _ in launches(built)] == [("kust/config-pd.yaml", 8, "decode"),
                                                                         ("kust/config-pd.yaml", 16, "prefill")]
    assert len(built["pairs"]) == 1 and not [f for f in built["findings"] if f["code"] == "PD020"]
    assert all("kustomize build of kust/kustomization.yaml" in l["context"] for l in built["launches"])


def test_a_patch_that_gives_a_kserve_pool_its_command_is_what_runs(scratch_git):
    # the controller's `vllm serve $VLLM_ADDITIONAL_ARGS` is only for a pool without a command of its own
    scratch_git.write("config-pd.yaml", CONFIG)
    scratch_git.write("p.yaml", """\
        apiVersion: serving.kserve.io/v1alpha2
        kind: LLMInferenceServiceConfig
        metadata:
          name: llmisvc-config-pd-disagg
        spec:
          prefill:
            template:
              containers:
                - name: main
                  command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill]
        """)
    scratch_git.write("kustomization.yaml", "resources:\n  - config-pd.yaml\npatches:\n  - path: p.yaml\n")
    _, report = scratch_git.lint(".")
    by_role = {role: (path, argv) for path, _, role, argv in launches(report)}
    assert by_role["prefill"] == ("p.yaml", ["--model-path", "m", "--disaggregation-mode", "prefill"])
    assert by_role["decode"][1][0] == "--kv_transfer_config"


def test_a_container_without_a_command_outside_a_controller_is_still_no_launch(scratch_git):
    # a plain Deployment's image-only container stays out of the build's launches (its image runs it)
    scratch_git.write("d.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n"
                                "    spec:\n      containers:\n        - name: s\n          image: busybox\n")
    scratch_git.write("kustomization.yaml", "resources:\n  - d.yaml\n")
    _, report = scratch_git.lint(".")
    assert report["launches"] == []
