"""Role-keyed files (pdlint.formats.keyed): srt-slurm recipes, TRT-LLM disagg
and LLM-API option files, LMCache configs, Helm values role sections."""

import os
import textwrap

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.lint import ConfigResolver

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "structure")


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def argv(l):
    return [t.text for t in l.argv]


SRT = "keyed/recipes__multi-node__DeepSeek-R1__GB200__1k1k__sglang__1k1k-low-latency.yaml"


def test_srt_slurm_recipe_roles_argv_env_and_origins():
    out = extract(SRT)
    p, d = out.launches
    assert (p.structural_role, p.role, d.structural_role, d.role) == ("prefill", "prefill", "decode", "decode")
    assert (p.structural_origin.line, d.structural_origin.line) == (73, 100)
    assert p.unit == d.unit == p.meta["unit"]
    a = argv(p)
    assert a[a.index("--disaggregation-mode") + 1] == "prefill"
    assert a[a.index("--tensor-parallel-size") + 1] == "4"
    assert "--trust-remote-code" in a and "true" not in a  # a true switch is a bare flag
    i = a.index("--load-balance-method")
    assert (p.argv[i].origin.line, p.argv[i].origin.column, p.argv[i + 1].origin.line) == (92, 7, 92)
    assert "--prefill-round-robin-balance" in argv(d) and "true" not in argv(d)
    assert p.env["SGLANG_DISAGGREGATION_WAITING_TIMEOUT"].origin.line == 48
    assert p.parsed.version == "0.5.8.post1"  # the image's own release
    assert not [f for f in out.findings if f.severity == "error"]


def test_srt_slurm_role_key_vs_flag_pd101(tmp_path):
    src = open(os.path.join(DATA, SRT)).read()
    (tmp_path / "r.yaml").write_text(src.replace('disaggregation-mode: "prefill"', 'disaggregation-mode: "decode"'))
    (f,) = [f for f in extract("r.yaml", cwd=str(tmp_path)).findings if f.code == "PD101"]
    assert f.line == 74 and "sglang_config.prefill" in f.message


def test_trtllm_disagg_config_inherits_top_level_keys():
    out = extract("keyed/examples__disaggregated__disagg_config.yaml")
    ctx, gen = out.launches
    assert (ctx.engine, ctx.role, ctx.structural_role, gen.role) == ("trtllm", "prefill", "prefill", "decode")
    assert ctx.entrypoint == "trtllm-serve" and ctx.argv == []
    s = ctx.meta["settings"]
    assert s["disable_overlap_scheduler"].text == "True" and s["disable_overlap_scheduler"].origin.line == 6
    assert gen.meta["settings"]["disable_overlap_scheduler"].origin.line == 6  # inherited by generation too
    assert s["kv_cache_config.free_gpu_memory_fraction"].text == "0.2"
    assert gen.meta["settings"]["free_gpu_memory_fraction"].origin.line == 4
    assert s["cache_transceiver_config.enable_cache_transceiver"].origin.line == 14
    assert "urls" not in s and ctx.meta["urls"] == ["localhost:8001"]
    assert "model" in ctx.meta["inherited"]


def test_trtllm_option_files_roles_from_file_names():
    for name, role, entry in [
            ("examples__disaggregated__slurm__simple_example__ctx_extra-llm-api-config.yaml", "prefill", "trtllm-serve"),
            ("examples__disaggregated__slurm__simple_example__gen_extra-llm-api-config.yaml", "decode", "trtllm-serve"),
            ("components__backends__trtllm__engine_configs__gpt_oss__prefill.yaml", "prefill",
             "python -m dynamo.trtllm"),
            ("components__backends__trtllm__engine_configs__gpt_oss__decode.yaml", "decode",
             "python -m dynamo.trtllm")]:
        # (named alone, a sibling of the other role is extracted with it: pdlint.discover.expand_units)
        (l,) = [x for x in extract("keyed/" + name).launches if x.path.endswith(name)]
        assert (l.engine, l.role, l.structural_role, l.entrypoint) == ("trtllm", role, role, entry), name
        assert l.meta["settings"]["cache_transceiver_config.backend"].text.lower() == "ucx"


def test_lmcache_configs():
    (p,) = [x for x in extract(
        "keyed/examples__others__lmcache__disagg_prefill_lmcache_v1__configs__lmcache-prefiller-config.yaml").launches
        if x.path.endswith("prefiller-config.yaml")]
    assert (p.engine, p.role, p.structural_origin.line) == ("lmcache", "prefill", 8)
    assert p.meta["settings"]["transfer_channel"].text == "nixl"
    (d,) = [x for x in extract(
        "keyed/examples__others__lmcache__disagg_prefill_lmcache_v1__configs__lmcache-decoder-config.yaml").launches
        if x.path.endswith("decoder-config.yaml")]
    assert d.role == "decode" and d.meta["settings"]["pd_buffer_size"].text == "2147483648"


def test_lmcache_file_name_vs_pd_role(tmp_path):
    (tmp_path / "lmcache-prefiller-config.yaml").write_text("enable_pd: True\npd_role: receiver\n")
    (f,) = [f for f in extract("lmcache-prefiller-config.yaml", cwd=str(tmp_path)).findings if f.code == "PD101"]
    assert "file name" in f.message
    (tmp_path / "lmcache-prefiller-config.yaml").write_text("enable_pd: True\npd_role: sender\n")
    assert not extract("lmcache-prefiller-config.yaml", cwd=str(tmp_path)).findings


def test_llm_d_modelservice_values():
    out = extract("keyed/guides__pd-disaggregation__ms-pd__values.yaml")
    d, p = out.launches
    assert (d.structural_role, p.structural_role, d.entrypoint) == ("decode", "prefill", "vllm serve")
    a = argv(p)
    # chart-injected, traced to values: the prefill's --port from routing.servicePort (the chart's vllmPort), the
    # tensor size from parallelism.tensor
    assert a[:5] == ["openai/gpt-oss-120b", "--port", "8000", "--tensor-parallel-size", "1"], a
    assert p.argv[4].origin.line == 140 and argv(d)[argv(d).index("--tensor-parallel-size") + 1] == "4"
    assert "--kv-transfer-config" in a and p.incomplete


def test_vllm_stack_values():
    out = extract("keyed/tutorials__assets__values-16-disagg-prefill.yaml")
    p, d = out.launches
    assert (p.structural_role, d.structural_role) == ("prefill", "decode")
    # the argv the vllm-stack chart (production-stack helm/templates/deployment-vllm-multi.yaml) writes
    assert p.structural_origin.line == 26 and argv(p) == [
        "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0", "--port", "8000", "--no-enable-prefix-caching",
        "--enforce-eager", "--disable-log-requests", "--kv-transfer-config",
        '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer","kv_connector_extra_config":'
        '{"discard_partial_chunks": false, "lmcache_rpc_port": "sender"}}']
    assert p.argv[5].origin.line == 18 and p.argv[4].origin.line == 5  # enablePrefixCaching, containerPort
    assert '"kv_role":"kv_consumer"' in argv(d)[-1] and p.env["PYTHONHASHSEED"].text == "123"
    assert not [f for f in out.findings if f.code == "VLLM015"]  # the chart sets PYTHONHASHSEED
    assert not [f for f in out.findings if f.code == "PD101"]  # nixlRole agrees


def test_values_flag_sections_without_a_chart(tmp_path):
    (tmp_path / "values.yaml").write_text(textwrap.dedent("""\
        global:
          image:
            repository: lmsysorg/sglang
            tag: v0.5.9
        prefill:
          config:
            disaggregationMode: decode
            tp: "2"
            enableDpAttention: false
        decode:
          extraArgs: [--disaggregation-mode, decode, --page-size, "64"]
        """))
    out = extract("values.yaml", cwd=str(tmp_path))
    p, d = out.launches
    assert argv(p) == ["--disaggregation-mode", "decode", "--tp", "2"]
    assert argv(d) == ["--disaggregation-mode", "decode", "--page-size", "64"]
    assert [f.line for f in out.findings if f.code == "PD101"] == [7]


MLPERF_DEPLOY = """\
    container_image: /lustre/images/mlperf-inference+dynamo-v0.8.0-tensorrt_llm_release.sqsh
    prefill:
      system: GB200-NVL72_GB200-186GB_aarch64x4
      gpus_per_worker: 4
      config: config/dsr1_gb200_ctx_DEP4.yaml
    decode:
      system: GB200-NVL72_GB200-186GB_aarch64x8
      gpus_per_worker: 8
      config: config/dsr1_gb200_gen_DEP8.yaml
    """


def test_a_section_whose_only_flag_is_config_is_no_sglang_launch(tmp_path):
    """MLPerf Inference v6.0's Dynamo + TensorRT-LLM deployment files (field test rw14/g): `config: <file>` was
    read as SGLang's --config, two `sglang.launch_server` launches were built, and their TensorRT-LLM option
    files judged as SGLang configs."""
    (tmp_path / "deploy.yaml").write_text(textwrap.dedent(MLPERF_DEPLOY))
    assert extract("deploy.yaml", cwd=str(tmp_path)).launches == []
    # with an SGLang image it is one
    (tmp_path / "deploy.yaml").write_text(textwrap.dedent(MLPERF_DEPLOY).replace(
        "mlperf-inference+dynamo-v0.8.0-tensorrt_llm_release.sqsh", "lmsysorg/sglang:v0.5.9"))
    out = extract("deploy.yaml", cwd=str(tmp_path))
    assert [(l.role, argv(l)) for l in out.launches] == [("prefill", ["--config", "config/dsr1_gb200_ctx_DEP4.yaml"]),
                                                         ("decode", ["--config", "config/dsr1_gb200_gen_DEP8.yaml"])]


def test_a_section_of_vllm_engine_args_is_not_read_as_sglang_flags(tmp_path):
    """raihan0824/dynamo-helm configs/multinode-405b.yaml, a Dynamo SDK graph config of vLLM workers (field test
    rw6/d): its PrefillWorker section became `python -m sglang.launch_server`, and `kv-cache-dtype: fp8` (valid
    for vLLM) an SGL004 error."""
    (tmp_path / "graph.yaml").write_text(textwrap.dedent("""\
        PrefillWorker:
          model: nvidia/Llama-3.1-405B-Instruct-FP8
          kv-transfer-config: '{"kv_connector":"DynamoNixlConnector"}'
          max-num-seqs: 16
          gpu-memory-utilization: 0.95
          tensor-parallel-size: 8
          kv-cache-dtype: fp8
        """))
    out = extract("graph.yaml", cwd=str(tmp_path))
    assert out.launches == []
    # a section of SGLang flags still is one
    (tmp_path / "graph.yaml").write_text("prefill:\n  tensor-parallel-size: 8\n  kv-cache-dtype: fp8_e5m2\n"
                                        "  disaggregation-mode: prefill\n")
    out = extract("graph.yaml", cwd=str(tmp_path))
    assert [l.entrypoint for l in out.launches] == ["python -m sglang.launch_server"]
