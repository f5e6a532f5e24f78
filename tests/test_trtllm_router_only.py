"""A ``trtllm-serve disaggregated -c CONFIG`` proxy only routes: the per-server keys of its config are not what the
servers at its URLs run when those are started elsewhere (field report rw29/a problem 2); TRT016 (the config's own
errors) still fires there.

Ground truth (NVIDIA/TensorRT-LLM, read through the code index: tensorrt_llm/commands/serve.py at 00209af,
tensorrt_llm/llmapi/disagg_utils.py at 0228a71):

* ``disaggregated()``: ``disagg_cfg = parse_disagg_config_file(config_file)`` then
  ``OpenAIDisaggServer(config=disagg_cfg, ...)`` - routing only; ``disaggregated_mpi_worker()`` alone builds servers
  from the groups: ``llm_args, llm_args_extra_dict = get_llm_args(**server_cfg.other_args)``.
* TRT016's ground truth: tests/test_trtllm_disagg_config_errors.py.
"""

from tests.test_trtllm import check, findings

# field report rw29/a repro 2: the router config carries stale per-server keys (UCX / NIXL, top-level
# disable_overlap_scheduler); start.sh starts both servers with their own options files (UCX / UCX)
ROUTER_CONFIG = ("hostname: localhost\nport: 8000\nbackend: pytorch\ndisable_overlap_scheduler: True\n"
                 "context_servers:\n  num_instances: 1\n  cache_transceiver_config:\n    backend: UCX\n"
                 "  urls:\n    - \"localhost:8001\"\n"
                 "generation_servers:\n  num_instances: 1\n  cache_transceiver_config:\n    backend: NIXL\n"
                 "  urls:\n    - \"localhost:8002\"\n")
SERVERS = ("trtllm-serve M --host localhost --port 8001 --backend pytorch --extra_llm_api_options ./ctx_extra.yaml &\n"
           "trtllm-serve M --host localhost --port 8002 --backend pytorch --extra_llm_api_options ./gen_extra.yaml &\n")


def router_files(gen_backend="UCX", config=ROUTER_CONFIG, servers=SERVERS, mpi=""):
    return {
        "disagg_config.yaml": config,
        "ctx_extra.yaml": "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n",
        "gen_extra.yaml": f"cache_transceiver_config:\n  backend: {gen_backend}\n",
        "start.sh": f"#!/bin/bash\n{servers}{mpi}trtllm-serve disaggregated -c disagg_config.yaml\n",
    }


def on(doc, path):
    return sorted(f["code"] for f in doc["findings"] if f["path"] == path)


def test_router_only_config_keys_are_not_the_servers_settings(tmp_path, capsys, monkeypatch):
    # was: TRT001 error (UCX vs NIXL, both from the router config) and TRT006 at a line the router ignores
    doc = check(tmp_path, capsys, monkeypatch, router_files())
    assert on(doc, "disagg_config.yaml") == [], [f["message"] for f in doc["findings"]]
    assert [f for f in doc["findings"] if f["severity"] == "error"] == []


def test_router_only_servers_are_still_judged_by_their_own_files(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, router_files(gen_backend="NIXL"))
    (f,) = findings(doc, "TRT001")
    assert f["path"] == "gen_extra.yaml", f
    assert on(doc, "disagg_config.yaml") == []


def test_a_config_the_mpi_workers_build_servers_from_is_judged_as_before(tmp_path, capsys, monkeypatch):
    # `disaggregated_mpi_worker -c` turns the groups into the servers' LLM arguments: today's behaviour
    files = router_files(servers="", mpi="mpirun -n 2 trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml &\n")
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert "TRT001" in on(doc, "disagg_config.yaml") and "TRT006" in on(doc, "disagg_config.yaml")


B_CONFIG = ("hostname: localhost\nport: 8000\nbackend: pytorch\n{top}context_servers:\n  num_instances: 1\n"
            "  urls: [\"localhost:8001\"]\ngeneration_servers:\n  num_instances: 1\n  urls: [\"localhost:8003\"]\n")


def test_router_only_config_whose_servers_are_not_found_is_not_checked(tmp_path, capsys, monkeypatch):
    # rw29/a repro 2/b: a top-level key the router ignores turned PD022 into TRT010 x2 + TRT006
    files = {"disagg_config.yaml": B_CONFIG.format(top="disable_overlap_scheduler: True\n"),
             "start.sh": "#!/bin/bash\ntrtllm-serve disaggregated -c disagg_config.yaml\n"}
    doc = check(tmp_path / "a", capsys, monkeypatch, files)
    assert sorted((f["code"], f["line"]) for f in doc["findings"]) == [("PD022", 7), ("PD022", 10)]
    # the same config without the key: unchanged
    files["disagg_config.yaml"] = B_CONFIG.format(top="")
    doc = check(tmp_path / "b", capsys, monkeypatch, files)
    assert sorted((f["code"], f["line"]) for f in doc["findings"]) == [("PD022", 6), ("PD022", 9)]


def test_config_of_mpi_workers_with_inherited_keys_only_is_judged(tmp_path, capsys, monkeypatch):
    files = {"disagg_config.yaml": B_CONFIG.format(top="disable_overlap_scheduler: True\n"),
             "start.sh": "#!/bin/bash\nmpirun -n 2 trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml &\n"
                         "trtllm-serve disaggregated -c disagg_config.yaml\n"}
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert "TRT006" in on(doc, "disagg_config.yaml") and not findings(doc, "PD022")


def test_config_errors_are_reported_for_a_router_only_start_too(tmp_path, capsys, monkeypatch):
    config = ROUTER_CONFIG.replace("  num_instances: 1\n  cache_transceiver_config:\n    backend: NIXL\n",
                                   "  num_instances: 1\n  disable_overlap_scheduler: False\n")
    doc = check(tmp_path, capsys, monkeypatch, router_files(config=config))
    assert on(doc, "disagg_config.yaml") == ["TRT016"], [f["message"] for f in doc["findings"]]


def test_router_only_config_written_by_a_heredoc(tmp_path, capsys, monkeypatch):
    # the field shape (TensorRT-LLM examples/disaggregated ray launcher): the script writes the router config with
    # per-server keys and starts both servers with one shared options file
    script = ("#!/bin/bash\ncat > disagg_config.yaml <<EOT\n" + ROUTER_CONFIG + "EOT\n"
              "trtllm-serve M --host localhost --port 8001 --server_role context --extra_llm_api_options x.yaml &\n"
              "trtllm-serve M --host localhost --port 8002 --server_role generation --extra_llm_api_options x.yaml &\n"
              "trtllm-serve disaggregated -c disagg_config.yaml\n")
    doc = check(tmp_path, capsys, monkeypatch, {"launch.sh": script,
                                                "x.yaml": "cache_transceiver_config:\n  backend: UCX\n"})
    assert [f for f in doc["findings"] if f["code"] in ("TRT001", "TRT006")] == [], doc["findings"]


def test_a_group_without_its_server_in_a_script_that_starts_the_others(tmp_path, capsys, monkeypatch):
    # the script starts the context server itself, the generation URL has none: TRT007 there, and the config's
    # generation keys (NIXL, the inherited disable_overlap_scheduler) are still no server's settings
    servers = SERVERS.splitlines(keepends=True)[0]
    doc = check(tmp_path, capsys, monkeypatch, router_files(servers=servers))
    assert on(doc, "disagg_config.yaml") == ["TRT007"], [f["message"] for f in doc["findings"]]
