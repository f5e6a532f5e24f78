"""A `trtllm-serve disaggregated` config that lists only URLs (field test: TensorRT-LLM
examples/disaggregated/simple_example/disagg_config.yaml gave TRT005 and TRT010 on settings it does not hold).

Such a file routes the proxy to servers started elsewhere with options files of their own; judging its
`context_servers` / `generation_servers` as if they were those servers' settings is wrong. Its servers are
reported as not checked (PD022) unless pdlint found them (the proxy's script starts them at the URLs); a
config that does hold server settings (its own or inherited from the top level) is still judged.
"""

URLS_ONLY = """\
    hostname: localhost
    port: 8000
    backend: pytorch
    context_servers:
      num_instances: 1
      urls:
          - "ctx_hostname:8001"
    generation_servers:
      num_instances: 1
      urls:
          - "gen_hostname:8002"
    """

WITH_SETTINGS = """\
    hostname: localhost
    port: 8000
    model: TinyLlama/TinyLlama-1.1B-Chat-v1.0
    backend: pytorch
    context_servers:
      num_instances: 1
      tensor_parallel_size: 1
      urls:
          - "localhost:8001"
    generation_servers:
      num_instances: 1
      tensor_parallel_size: 1
      urls:
          - "localhost:8002"
    """


def _found(report):
    return sorted((f["code"], f["role"], f["line"]) for f in report["findings"])


def test_a_urls_only_config_is_not_judged_as_the_servers_settings(scratch_git):
    scratch_git.write("disagg_config.yaml", URLS_ONLY)
    code, report = scratch_git.lint("disagg_config.yaml")
    assert code == 0 and _found(report) == [("PD022", None, 7), ("PD022", None, 11)], report["findings"]
    ctx = next(f for f in report["findings"] if f["line"] == 7)
    assert ctx["message"].startswith("context_servers lists only URLs (ctx_hostname:8001): the context servers "
                                     "there run with settings of their own"), ctx["message"]
    assert ctx["column"] == 10
    assert report["coverage"]["files"]["disagg_config.yaml"]["status"] == "partial"


def test_a_config_that_holds_the_server_settings_is_still_judged(scratch_git):
    scratch_git.write("disagg_config.yaml", WITH_SETTINGS)
    _, report = scratch_git.lint("disagg_config.yaml")
    assert _found(report) == [("TRT005", "prefill", 5), ("TRT010", "decode", 10), ("TRT010", "prefill", 5)], \
        report["findings"]
    # a setting written only at the top level reaches both groups: they hold settings too
    scratch_git.write("top.yaml", URLS_ONLY.replace("backend: pytorch\n", "backend: pytorch\n    max_batch_size: 8\n"))
    _, report = scratch_git.lint("top.yaml")
    assert [c for c, _, _ in _found(report)] == ["TRT005", "TRT010", "TRT010"], report["findings"]


def test_one_group_with_settings_and_one_with_urls_only(scratch_git):
    scratch_git.write("disagg_config.yaml", URLS_ONLY.replace(
        "context_servers:\n      num_instances: 1\n",
        "context_servers:\n      num_instances: 1\n      cache_transceiver_config:\n        backend: UCX\n"))
    _, report = scratch_git.lint("disagg_config.yaml")
    # the context group is judged (overlap scheduler on); the generation group only routes: no TRT002 for it
    assert _found(report) == [("PD022", None, 13), ("TRT005", "prefill", 4)], report["findings"]


def test_the_servers_a_proxy_script_starts_are_judged_and_no_gap_is_left(scratch_git):
    scratch_git.write("disagg_config.yaml", URLS_ONLY.replace("ctx_hostname", "localhost")
                      .replace("gen_hostname", "localhost"))
    scratch_git.write("ctx_config.yaml", "cache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("gen_config.yaml", "cache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("run.sh", """\
        trtllm-serve M --host localhost --port 8001 --config ./ctx_config.yaml &
        trtllm-serve M --host localhost --port 8002 --config ./gen_config.yaml &
        trtllm-serve disaggregated -c ./disagg_config.yaml
        """)
    _, report = scratch_git.lint(".")
    # the context server's own options file keeps the overlap scheduler on (reported at the server and at the
    # lone options file); the config is no server's settings and leaves nothing unchecked
    assert sorted((f["code"], f["path"]) for f in report["findings"]) == [
        ("TRT005", "ctx_config.yaml"), ("TRT005", "run.sh")], report["findings"]
    assert report["coverage"]["files"]["disagg_config.yaml"]["status"] == "checked"


SEPARATE_RUN = """\
#!/bin/bash
CUDA_VISIBLE_DEVICES=0 trtllm-serve serve Qwen/Qwen3-8B --host localhost --port 8001 --config ctx.yaml &> log_ctx &
CUDA_VISIBLE_DEVICES=1 trtllm-serve serve Qwen/Qwen3-8B --host localhost --port 8002 --config gen.yaml &> log_gen &
"""
LOCAL_URLS = """\
hostname: localhost
port: 8000
context_servers:
  num_instances: 1
  urls:
    - "localhost:8001"
generation_servers:
  num_instances: 1
  urls:
    - "localhost:8002"
"""


def _separate(scratch_git, where: str) -> dict:
    scratch_git.write(f"{where}run.sh", SEPARATE_RUN)
    scratch_git.write(f"{where}ctx.yaml", "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write(f"{where}gen.yaml", "cache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("disagg.yaml", LOCAL_URLS)
    code, report = scratch_git.lint(".")
    return report


def test_servers_a_script_beside_the_config_starts_are_found(scratch_git):
    """The servers are started by run.sh beside the config, the proxy by hand (field report rw11/b): their
    options files are read and checked, so 'settings ... which pdlint did not find' (PD022) was wrong."""
    report = _separate(scratch_git, "")
    assert report["findings"] == []


def test_servers_elsewhere_leave_the_config_unchecked(scratch_git):
    report = _separate(scratch_git, "other/")
    assert sorted((f["code"], f["line"]) for f in report["findings"]) == [("PD022", 6), ("PD022", 10)]
