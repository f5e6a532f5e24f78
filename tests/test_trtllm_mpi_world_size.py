"""TRT017: `mpirun -n N trtllm-serve disaggregated_mpi_worker -c CONFIG` with N not the ranks the config's servers
need (field report rw29/a problem 8: a clean pass, exit 0).

Ground truth (NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py, read through the code index):
``split_world_comm`` asserts ``global_size == num_workers`` ("global_size (4) should be equal to the number of distinct
workers (6)"); ``get_server_configs_dict`` sums ``instance_num_ranks`` (``tensor_parallel_size`` x
``pipeline_parallel_size`` x ``context_parallel_size`` of the section, 1 each when unset) over the distinct
``(hostname, port)`` of both sections (a URL both list is one mixed server).
"""

import pytest

from tests.test_trtllm import check, findings

CONFIG = ("hostname: localhost\nport: 8000\nbackend: pytorch\ncache_transceiver_config:\n  backend: UCX\n"
          "context_servers:\n  num_instances: 2\n  tensor_parallel_size: 2\n  urls:\n"
          "    - \"localhost:8001\"\n    - \"localhost:8002\"\n"
          "generation_servers:\n  num_instances: 1\n  tensor_parallel_size: 2\n{gen_more}  urls:\n"
          "    - \"{gen_url}\"\n")
RUN = ("#!/bin/bash\n{launcher} trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml &> log &\n"
       "trtllm-serve disaggregated -c disagg_config.yaml\n")


def _doc(tmp_path, capsys, monkeypatch, launcher, gen_more="", gen_url="localhost:8003"):
    return check(tmp_path, capsys, monkeypatch,
                 {"disagg_config.yaml": CONFIG.format(gen_more=gen_more, gen_url=gen_url),
                  "run.sh": RUN.format(launcher=launcher)})


@pytest.mark.parametrize("launcher, ranks", [("mpirun --allow-run-as-root -n 4", 4), ("mpiexec -np 8", 8),
                                             ("srun --ntasks=5", 5)])
def test_a_rank_count_that_is_not_the_workers(tmp_path, capsys, monkeypatch, launcher, ranks):
    doc = _doc(tmp_path, capsys, monkeypatch, launcher)
    (f,) = findings(doc, "TRT017")
    assert f["path"] == "run.sh" and f["severity"] == "error"
    assert f"starts {ranks} MPI ranks, but disagg_config.yaml's servers need 6" in f["message"]
    assert f"global_size ({ranks}) should be equal to the number of distinct workers (6)" in f["message"]


@pytest.mark.parametrize("launcher, gen_more, gen_url", [
    ("mpirun -n 6", "", "localhost:8003"),
    # (pipeline parallelism counts: 2 x 2 + 1 x 2 x 2)
    ("mpirun -n 8", "  pipeline_parallel_size: 2\n", "localhost:8003"),
    # (a URL both sections list is one mixed server: 2 x 2 ranks)
    ("mpirun -n 4", "", "localhost:8002"),
    # (a rank count pdlint cannot see, or none written)
    ("mpirun -n $NP", "", "localhost:8003"),
    ("mpirun", "", "localhost:8003"),
])
def test_quiet_when_the_ranks_match_or_are_not_known(tmp_path, capsys, monkeypatch, launcher, gen_more, gen_url):
    doc = _doc(tmp_path, capsys, monkeypatch, launcher, gen_more, gen_url)
    assert findings(doc, "TRT017") == []


@pytest.mark.parametrize("launcher", [
    "mpirun --allow-run-as-root --oversubscribe nice -n 5",  # nice's niceness (rw30/h P14)
    "mpirun ionice -c 2 -n 7",
    "srun --mpi=pmix numactl -N 0",
    "mpirun --oversubscribe $WRAP -n 3",  # (a word pdlint cannot read ends the launcher's options)
])
def test_a_count_of_the_program_after_the_launcher_is_not_the_rank_count(tmp_path, capsys, monkeypatch, launcher):
    """`mpirun --allow-run-as-root --oversubscribe nice -n 5 trtllm-serve disaggregated_mpi_worker`: mpirun has no
    -n (one rank per slot); 5 is nice's value - TRT017 said "the launcher starts 5 MPI ranks"."""
    doc = _doc(tmp_path, capsys, monkeypatch, launcher)
    assert findings(doc, "TRT017") == []


@pytest.mark.parametrize("launcher, ranks", [
    ("mpirun -x NCCL_DEBUG=INFO -H node1,node2 --mca btl tcp,self -n 4 nice", 4),
    ("srun --container-image img -N 1 --ntasks 5", 5),
])
def test_the_launchers_options_with_values_before_the_count(tmp_path, capsys, monkeypatch, launcher, ranks):
    doc = _doc(tmp_path, capsys, monkeypatch, launcher)
    (f,) = findings(doc, "TRT017")
    assert f"starts {ranks} MPI ranks, but disagg_config.yaml's servers need 6" in f["message"]


def test_a_url_listed_twice_in_one_section(tmp_path, capsys, monkeypatch):
    """rw30/h P4: get_server_configs_dict (TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py at 0228a71, called by
    split_world_comm) raises ``ValueError(f"Duplicated {cfg.type} server config for {url}")`` - "Duplicated ctx server
    config for ('localhost', 8001)" - before the rank count: reported at the second URL whatever N, and the count
    (which summed the duplicate twice: "servers need 6") is not given."""
    config = CONFIG.format(gen_more="", gen_url="localhost:8003").replace('"localhost:8002"', '"localhost:8001"')
    for n in (6, 4):
        doc = check(tmp_path / str(n), capsys, monkeypatch,
                    {"disagg_config.yaml": config, "run.sh": RUN.format(launcher=f"mpirun -n {n}")})
        (f,) = findings(doc, "TRT017")
        assert (f["path"], f["line"], f["column"], f["severity"]) == ("disagg_config.yaml", 11, 8, "error")
        assert f["message"].startswith("ValueError: Duplicated ctx server config for ('localhost', 8001)")
        assert [(r["path"], r["line"]) for r in f["related"]][:2] == [("disagg_config.yaml", 10), ("run.sh", 2)]
    # the proxy alone (no disaggregated_mpi_worker) routes to the URLs and never builds that table: no error
    doc = check(tmp_path / "proxy", capsys, monkeypatch, {"disagg_config.yaml": config,
                                                          "run.sh": "trtllm-serve disaggregated -c disagg_config.yaml\n"})
    assert findings(doc, "TRT017") == [] and findings(doc, "TRT016") == []


def test_a_parallel_size_written_as_a_string(tmp_path, capsys, monkeypatch):
    """rw30/h P5: ``instance_num_ranks = 2 * "1" * 1`` is the string "11"; ``num_workers += cfg.instance_num_ranks``
    raises "TypeError: unsupported operand type(s) for +=: 'int' and 'str'" in disaggregated_mpi_worker only."""
    doc = _doc(tmp_path, capsys, monkeypatch, "mpirun -n 6", gen_more="  pipeline_parallel_size: \"1\"\n")
    (f,) = findings(doc, "TRT017")
    assert (f["path"], f["line"]) == ("disagg_config.yaml", 15)
    assert f["message"].startswith("TypeError: unsupported operand type(s) for +=: 'int' and 'str'")
    assert findings(doc, "TRT016") == []
