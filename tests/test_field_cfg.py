"""Fixes from the round-3 field tests (GKE gpu-recipes problems 3 and 7, AWS problems 7 and 8): a refused
``--config`` key no longer empties its file, Dynamo vLLM's role flag is judged against the pinned Dynamo
release, an aggregated Dynamo vLLM worker is not decode by its name, and Sprig arithmetic renders."""


def _codes(doc) -> list:
    return sorted((f["code"], f["path"].rsplit("/", 1)[-1], f["line"]) for f in doc["findings"])


def _roles(doc) -> dict:
    return {l["path"].rsplit("/", 1)[-1]: l["role"] for l in doc["launches"]}


# --- 1. one key SGLang's --config merger refuses (SGL021) -------------------------------------------------
# gpu-recipes src/frameworks/a4x/dynamo-configs/deepseekr1-fp8-*-{prefill,decode}.yaml, reduced

PREFILL = "disaggregation-mode: prefill\ntp-size: 4\nkv-cache-dtype: fp8_e4m3\n"


def test_a_refused_config_key_leaves_the_other_keys_read(scratch_git):
    scratch_git.write("m-prefill.yaml", PREFILL)
    scratch_git.write("m-decode.yaml", "# Copyright\n\ndisaggregation-mode: decode\ntp-size: 4\n"
                                       "kv-cache-dtype: fp8_e4m3\nenable-dp-attention: true\n")
    code, doc = scratch_git.lint(".")
    # not PD105 at the copyright line, PD020 on disaggregation-mode, SGL804/SGL815 against an empty decode
    assert _codes(doc) == [("SGL021", "m-decode.yaml", 6)]
    # a warning: no launch pdlint read gives the file to --config, and the chart these files come from turns their
    # keys into command-line flags with a bash loop, which SGLang accepts (field test rw26/a; an error for a file a
    # launch names with --config: test_a_file_a_launch_gives_to_config_keeps_the_error)
    (f,) = doc["findings"]
    assert f["severity"] == "warning" and f["message"].startswith(
        "Unsupported config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction' (if this file is "
        "given to --config: no launch pdlint read names it")
    assert _roles(doc) == {"m-prefill.yaml": "prefill", "m-decode.yaml": "decode"}
    assert code == 0


def test_a_file_a_launch_gives_to_config_keeps_the_error(scratch_git):
    scratch_git.write("m-decode.yaml", "disaggregation-mode: decode\ntp-size: 4\nenable-dp-attention: true\n")
    scratch_git.write("run.sh", "python3 -m sglang.launch_server --model-path /m --config m-decode.yaml\n")
    code, doc = scratch_git.lint(".")
    assert [(c, p, line) for c, p, line in _codes(doc) if c == "SGL021"] == [("SGL021", "m-decode.yaml", 3)]
    assert [f["severity"] for f in doc["findings"] if f["code"] == "SGL021"] == ["error"] and code == 1


def test_the_refused_key_is_read_as_the_command_line_would_take_it(scratch_git):
    """SGL021 says to move the key to the command line: the launch is judged as it runs then (attention
    DP on), not without the key (attention TP 8 against the decode's 1)."""
    scratch_git.write("x-prefill.yaml", "model-path: /m\ndisaggregation-mode: prefill\ntp-size: 8\ndp-size: 8\n"
                                        "enable-dp-attention: true\n")
    scratch_git.write("x-decode.yaml", "model-path: /m\ndisaggregation-mode: decode\ntp-size: 8\n"
                                       "attn-dp-size: 8\n")
    _, doc = scratch_git.lint(".")
    # one finding on the refused line: not its deprecation (SGL008) besides
    assert _codes(doc) == [("SGL021", "x-prefill.yaml", 5)]


def test_every_refused_key_is_reported_and_a_true_pair_mismatch_stays(scratch_git):
    scratch_git.write("m-prefill.yaml", PREFILL)
    scratch_git.write("m-decode.yaml", "disaggregation-mode: decode\ntp-size: 4\nenable-dp-attention: true\n"
                                       "disable-cuda-graph: true\n")
    _, doc = scratch_git.lint(".")
    got = _codes(doc)
    assert ("SGL021", "m-decode.yaml", 3) in got and ("SGL021", "m-decode.yaml", 4) in got
    # the decode really has no kv-cache-dtype: that is still found, on the decode's role
    sgl804 = [f for f in doc["findings"] if f["code"] == "SGL804"]
    assert len(sgl804) == 1 and sgl804[0]["role"] == "decode"
    assert not any(c in ("PD105", "PD020", "SGL815") for c, _, _ in got)


# --- 2. VLLM003 against the Dynamo release the image pins ------------------------------------------------
# awslabs/ai-on-eks blueprints/inference/nvidia-dynamo/vllm/vllm-disaggregated-default.yaml, reduced

def _dgd(image: str, decode_args: str, prefill: str = "") -> str:
    """A DynamoGraphDeployment: a ``VllmDecodeWorker`` (as Dynamo's examples name it) and, with ``prefill``
    (its role flags), a worker ``Worker2`` whose name names no role."""
    def service(name: str, args: str) -> str:
        return (f"    {name}:\n      componentType: worker\n      extraPodSpec:\n        mainContainer:\n"
                f"          image: {image}\n          command: [\"/bin/sh\", \"-c\"]\n          args:\n"
                f"            - \"python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B{args}\"\n")
    out = ("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n"
           "  services:\n" + service("VllmDecodeWorker", decode_args))
    return out + (service("Worker2", " " + prefill) if prefill else "")


def test_legacy_prefill_flag_on_a_dynamo_0_5_image_is_not_deprecated(scratch_git):
    """ai-dynamo 0.5.0 dynamo/vllm/args.py defines only --is-prefill-worker: the advised
    --disaggregation-mode would be an unrecognized argument there."""
    scratch_git.write("g.yaml", _dgd("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0", "", "--is-prefill-worker"))
    code, doc = scratch_git.lint("g.yaml")
    assert [f["code"] for f in doc["findings"]] == [] and code == 0
    assert sorted(_roles_list(doc)) == ["decode", "prefill"]


def test_legacy_prefill_flag_on_a_dynamo_1_0_image_or_unpinned_is_still_deprecated(scratch_git):
    for image, more in (("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0", [("VLLM026", "prefill")]),
                        ("nvcr.io/nvidia/ai-dynamo/vllm-runtime", [])):
        scratch_git.write("g.yaml", _dgd(image, " --is-decode-worker", "--is-prefill-worker"))
        _, doc = scratch_git.lint("g.yaml")
        got = sorted((f["code"], f["role"]) for f in doc["findings"])
        # (1.0.0 reads the legacy flag as the prefill mode and stops without --kv-transfer-config: VLLM026)
        assert got == sorted([("VLLM003", "decode"), ("VLLM003", "prefill")] + more), (image, got)


def _roles_list(doc) -> list:
    return [l["role"] for l in doc["launches"]]


# --- 3. an aggregated Dynamo graph whose only worker is named for decode ----------------------------------
# awslabs/ai-on-eks infra/nvidia-dynamo/examples/vllm/agg.yaml (as Dynamo's examples/backends/vllm/deploy/agg.yaml)

KV_IN_YAML = r"""'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"""  # in a "..." YAML scalar


def test_a_decode_named_worker_without_a_prefill_worker_is_aggregated(scratch_git):
    scratch_git.write("agg.yaml", _dgd("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0", ""))
    code, doc = scratch_git.lint("agg.yaml")
    (launch,) = doc["launches"]
    assert launch["role"] == "null" and launch["structural_role"] is None, launch
    assert doc["findings"] == [] and code == 0


def test_a_decode_named_worker_beside_a_prefill_named_only_by_its_flag_stays_decode(scratch_git):
    scratch_git.write("g.yaml", _dgd("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0", "",
                                     "--disaggregation-mode prefill --kv-transfer-config " + KV_IN_YAML))
    code, doc = scratch_git.lint("g.yaml")
    decode = [l for l in doc["launches"] if l["structural_role"] == "decode"]
    assert len(decode) == 1 and decode[0]["role"] == "decode"
    # the decode worker without the mode runs aggregated there: VLLM025 still reports it
    assert [f["code"] for f in doc["findings"]] == ["VLLM025"] and code == 1


# --- 4. Sprig's integer math in the Helm template subset ---------------------------------------------------
# gpu-recipes src/helm-charts/a3mega/{sglang,vllm}-inference and a3ultra/.../dynamo-deployment, reduced

CHART_TEMPLATE = """\
{{ $nodes := div .Values.gpus 8 | max 1 }}
{{ $gpusPerNode := min .Values.gpus 8 }}
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: s
    command: ["/bin/bash", "-c"]
    args:
    - |
      python3 -m sglang.launch_server --model-path /m --nnodes {{ $nodes }} --tp-size {{ mul $nodes $gpusPerNode }} \\
        --disaggregation-mode prefill
    env:
    {{- range $i := until 2 }}
    - name: GPU_{{ $i }}
      value: "{{ add1 $i }}"
    {{- end }}
"""


def _chart(scratch_git, monkeypatch, gpus):
    from pdlint.formats import helm
    monkeypatch.setattr(helm, "helm_binary", lambda: None)
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", f"gpus: {gpus}\n")
    scratch_git.write("chart/templates/dep.yaml", CHART_TEMPLATE)
    return scratch_git.lint("chart")


def test_a_chart_sizing_nodes_with_div_max_min_until_renders(scratch_git, monkeypatch):
    code, doc = _chart(scratch_git, monkeypatch, 16)
    assert [f["code"] for f in doc["findings"]] == [], doc["findings"]
    (launch,) = doc["launches"]
    assert launch["argv"][:6] == ["--model-path", "/m", "--nnodes", "2", "--tp-size", "16"]
    assert launch["role"] == "prefill" and code == 0


def test_div_by_zero_stops_the_render_as_in_helm(scratch_git, monkeypatch):
    """``gpus: 0`` makes ``div`` divide by zero after ``max``/``min``: Helm fails to render, so pdlint does not
    check a launch of it (PD104 names the error)."""
    CHART = CHART_TEMPLATE.replace("div .Values.gpus 8 | max 1", "div 8 (min .Values.gpus 8)")
    from pdlint.formats import helm
    monkeypatch.setattr(helm, "helm_binary", lambda: None)
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "gpus: 0\n")
    scratch_git.write("chart/templates/dep.yaml", CHART)
    _, doc = scratch_git.lint("chart")
    (pd104,) = [f for f in doc["findings"] if f["code"] == "PD104"]
    assert "div: runtime error: integer divide by zero" in pd104["message"]
    assert doc["launches"] == []


def _render(template: str, values: str = "x: 1\n") -> str:
    from pdlint.formats import helm
    from pdlint.formats import yamltree as yt
    from pdlint.text import SourceFile, TStr
    vsrc = SourceFile("values.yaml", values)
    defines = {}
    r = helm.Renderer(TStr.from_source(vsrc), yt.Ref(yt.compose(vsrc.text)[0].root), {"Name": "c"}, defines)
    nodes = helm.parse(TStr.from_source(SourceFile("t.yaml", template)), defines)
    return TStr.join(r.render(nodes, r.root_val(), {})).text


def test_sprig_int64_math_semantics():
    # Go's integer division truncates toward zero; % keeps the dividend's sign
    assert _render("{{ div -7 2 }} {{ div 7 -2 }} {{ mod -7 2 }} {{ div 7 2 }}") == "-3 -3 -1 3"
    # toInt64: floats truncated, numeric strings parsed (Go base 0: 0x, leading-0 octal), other strings 0
    assert _render('{{ add 1.9 "8" "0x10" "010" "abc" }} {{ mul 2 3 4 }} {{ sub .Values.n 1 }}',
                   "n: 5\n") == "33 24 4"
    assert _render("{{ max 1 7 3 }} {{ min 4 -2 9 }} {{ max 1 .Values.missing }}") == "7 -2 1"
    # int64 wraps around as in Go
    assert _render("{{ add 9223372036854775807 1 }}") == "-9223372036854775808"
    assert _render("{{ range until 3 }}[{{ . }}]{{ end }}{{ range until -2 }}({{ . }}){{ end }}") == \
        "[0][1][2](0)(-1)"
    assert _render("{{ range untilStep 1 8 3 }}{{ . }};{{ end }}{{ range untilStep 0 5 -1 }}x{{ end }}") == "1;4;7;"


def test_until_past_the_range_bound_stops_the_subset():
    import pytest
    from pdlint.formats import helm
    with pytest.raises(helm.Unsupported, match="more than"):
        _render("{{ range until 1000000000 }}x{{ end }}")
