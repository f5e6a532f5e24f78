"""Field test ai-dynamo/dynamo: config files a launch mounts from a ConfigMap value (``prefill.yaml: |``).

An engine that read such a file as a file of its own (``TStr.from_source`` of the ``EmbeddedFile``) made tokens
that no finding could place: TRT003 on the recipes' ConfigMap engine configs failed with PD013
(``'EmbeddedFile' object has no attribute 'position'``), and a vLLM ``--config`` from a ConfigMap stopped the
whole run."""

CONFIGMAP = """\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: llm-config
    data:
      prefill.yaml: |
        cache_transceiver_config:
          backend: UCX
        disable_overlap_scheduler: true
        tensor_parallel_size: 1
      decode.yaml: |
        cache_transceiver_config:
          backend: UCX
        tensor_parallel_size: {decode_tp}
        attn_backend: FLASHINFER
    ---
    apiVersion: nvidia.com/v1alpha1
    kind: DynamoGraphDeployment
    metadata:
      name: d
    spec:
      backendFramework: trtllm
      services:
    """

WORKER = """
        Trtllm{Role}Worker:
          componentType: main
          extraPodSpec:
            mainContainer:
              command: [/bin/sh, -c]
              args:
              - python3 -m dynamo.trtllm --model-path m --extra-engine-args "${{ENGINE_ARGS}}" --disaggregation-mode {role}
              env:
              - name: ENGINE_ARGS
                value: /opt/dynamo/configs/{role}.yaml
              volumeMounts:
              - mountPath: /opt/dynamo/configs
                name: llm-config
          volumes:
          - configMap:
              name: llm-config
            name: llm-config
    """


def _dgd(decode_tp: int) -> str:
    return CONFIGMAP.format(decode_tp=decode_tp).rstrip(" ") + "".join(
        WORKER.format(Role=r.capitalize(), role=r).lstrip("\n").rstrip(" ") for r in ("prefill", "decode"))


def test_trt003_on_configmap_engine_configs_points_into_the_configmap(scratch_git):
    scratch_git.write("deploy.yaml", _dgd(4))
    code, out = scratch_git.lint("deploy.yaml")
    codes = [f["code"] for f in out["findings"]]
    assert "PD013" not in codes, out["findings"]
    [f] = [f for f in out["findings"] if f["code"] == "TRT003"]
    assert (f["path"], f["line"], f["column"]) == ("deploy.yaml", 14, 27)  # `tensor_parallel_size: 4` in decode.yaml
    assert f["related"][0]["line"] == 10 and f["related"][0]["column"] == 27  # the prefill.yaml key
    assert out["coverage"]["files"]["deploy.yaml"]["status"] == "checked"
    assert out["coverage"]["launches"] == 2


def test_configmap_engine_configs_of_equal_tp_give_no_trt003(scratch_git):
    scratch_git.write("deploy.yaml", _dgd(1))
    code, out = scratch_git.lint("deploy.yaml")
    assert [f["code"] for f in out["findings"]] == []
    assert code == 0 and out["coverage"]["launches"] == 2 and out["coverage"]["unchecked"] == 0


VLLM = """\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: vcfg
    data:
      prefill.yaml: |
        tensor-parallel-size: 1
        {key}: true
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: prefill
    spec:
      template:
        spec:
          containers:
          - name: p
            image: vllm/vllm-openai:v0.11.0
            command: [vllm, serve, m, --config, /etc/vcfg/prefill.yaml]
            volumeMounts:
            - mountPath: /etc/vcfg
              name: vcfg
          volumes:
          - name: vcfg
            configMap:
              name: vcfg
    """


def test_vllm_config_from_a_configmap_reports_at_the_key(scratch_git):
    scratch_git.write("deploy.yaml", VLLM.format(key="no-such-flag-here"))
    code, out = scratch_git.lint("deploy.yaml")
    assert code == 1
    [f] = [f for f in out["findings"] if f["code"] == "VLLM018"]
    assert (f["path"], f["line"], f["column"]) == ("deploy.yaml", 8, 5)
    assert "--no-such-flag-here" in f["message"]


def test_vllm_config_from_a_configmap_with_known_keys_is_clean(scratch_git):
    scratch_git.write("deploy.yaml", VLLM.format(key="enforce-eager"))
    code, out = scratch_git.lint("deploy.yaml")
    assert code == 0, out["findings"]
    assert out["coverage"]["launches"] == 1 and out["coverage"]["unchecked"] == 0


def test_embedded_file_text_is_traced_into_the_file_that_holds_it():
    from pdlint.engines.sglang.config_merge import EmbeddedFile
    from pdlint.model import Hop
    from pdlint.text import SourceFile, TStr
    src = SourceFile("cm.yaml", "data:\n  a.yaml: |\n    key: 1\n")
    at = src.text.index("key")
    emb = EmbeddedFile("cm.yaml", None, TStr.from_source(src, at, len(src.text)))
    t = TStr.from_source(emb)
    assert t.text == "key: 1\n" and (t.origin.line, t.origin.column) == (3, 5)
    assert (t[5:6].origin.line, t[5:6].origin.column) == (3, 10)
    hop = Hop("x.yaml", 1, 1, "mounted")
    part = TStr.from_source(emb, 5, 6, chain=(hop,))
    assert part.text == "1" and part.origin.chain == (hop,)
