"""A `vllm serve --config` file checked alone is judged as vLLM's, not SGLang's.

Field test rw19/a: `pdlint check -- prefill.yaml` (what pre-commit runs when only the config changed, outside a
repository or with no script in view that reads it) built an SGLang `--config` launch from a vLLM config and
reported a false SGL001 on its `kv-transfer-config` key, exit 1."""

CONFIG = """\
    model: Qwen/Qwen3-8B
    port: 8100
    kv-transfer-config: '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
    """


def test_a_vllm_config_alone_is_a_vllm_launch(scratch_git):
    scratch_git.write("prefill.yaml", CONFIG)
    code, report = scratch_git.lint("prefill.yaml")
    assert report["findings"] == [] and code == 0
    [l] = report["launches"]
    assert (l["engine"], l["role"]) == ("vllm", "prefill")


def test_its_values_are_judged_by_vllm(scratch_git):
    scratch_git.write("prefill.yaml", CONFIG.replace("kv_producer", "kv_bogus"))
    code, report = scratch_git.lint("prefill.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM029", 3)]
    assert code == 1


def test_an_sglang_config_stays_sglang(scratch_git):
    scratch_git.write("prefill.yaml", """\
        model-path: Qwen/Qwen3-8B
        disaggregation-mode: prefill
        mem-fraction-static: 0.8
        """)
    _, report = scratch_git.lint("prefill.yaml")
    assert [l["engine"] for l in report["launches"]] == ["sglang"]


def test_another_tools_settings_with_one_vllm_key_are_no_config(scratch_git):
    # sgl-project/ome's ome-agent.yaml: 41 settings of a model downloader, one of them `hf_token` (a vLLM
    # option too): 35 false VLLM018 when it was read as a vLLM config (found by the field compare)
    scratch_git.write("agent.yaml", "hf_token: ''\ncache_dir: /tmp/hf\nregion: us-ashburn-1\nmax_workers: 8\n"
                                    "enable_dedup: true\n")
    code, report = scratch_git.lint("agent.yaml")
    assert report["launches"] == [] and report["findings"] == [] and code == 0
