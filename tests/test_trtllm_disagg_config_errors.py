"""TRT016: a ``trtllm-serve disaggregated`` config that TensorRT-LLM refuses to read at start-up (field report rw29/a
problem 7: both were a clean pass, exit 0).

Ground truth (NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py at 0228a71, read through the code index;
``parse_disagg_config_file`` runs for ``trtllm-serve disaggregated`` and ``disaggregated_mpi_worker`` alike,
tensorrt_llm/commands/serve.py at 00209af):

* ``extract_disagg_cfg``: ``raise ValueError(f"Parameter {key} is specified both in the top-level and in the
  {server_type} section, but with different values")`` for a top-level ``**kwargs`` key a section sets otherwise
  (``servers[key] != value``: whole values);
* ``extract_ctx_gen_cfgs``: ``raise ValueError(f"Number of hostnames ({len(hostnames)}) should be equal to the
  number of instances ({num_instances})")`` when ``urls`` is given (``num_instances`` defaults to 1; not called
  with ``disagg_cluster``).
"""

from tests.test_trtllm import check, findings


CONFIG_A = ("hostname: localhost\nport: 8000\nbackend: pytorch\ndisable_overlap_scheduler: {top}\n"
            "context_servers:\n  num_instances: 1\n  cache_transceiver_config:\n    backend: UCX\n"
            "  urls:\n    - \"localhost:8001\"\n"
            "generation_servers:\n  num_instances: 1\n  disable_overlap_scheduler: {gen}\n"
            "  cache_transceiver_config:\n    backend: UCX\n  urls:\n    - \"localhost:8002\"\n")
PROXY = "#!/bin/bash\ntrtllm-serve disaggregated -c disagg_config.yaml\n"


def test_top_level_key_and_section_key_with_different_values(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "a", capsys, monkeypatch,
                {"disagg_config.yaml": CONFIG_A.format(top="True", gen="False"), "start.sh": PROXY})
    (f,) = findings(doc, "TRT016")
    assert (f["path"], f["line"], f["column"], f["severity"]) == ("disagg_config.yaml", 13, 30, "error")
    assert "Parameter disable_overlap_scheduler is specified both in the top-level and in the generation_servers " \
           "section, but with different values" in f["message"]
    assert [(r["line"], r["column"]) for r in f["related"]][:1] == [(4, 28)]
    # the same value, as yaml.safe_load reads it (True == true): no error
    doc = check(tmp_path / "b", capsys, monkeypatch,
                {"disagg_config.yaml": CONFIG_A.format(top="True", gen="true"), "start.sh": PROXY})
    assert findings(doc, "TRT016") == []


def test_mappings_compare_as_a_whole_and_config_parameters_are_not_inherited(tmp_path, capsys, monkeypatch):
    top = "cache_transceiver_config:\n  backend: UCX\n"
    config = ("hostname: localhost\nport: 8000\n" + top + "context_servers:\n  num_instances: 1\n"
              "  hostname: node1\n  urls: [\"localhost:8001\"]\ngeneration_servers:\n  num_instances: 1\n"
              "  cache_transceiver_config:\n    backend: UCX\n    max_tokens_in_buffer: 4096\n"
              "  urls: [\"localhost:8002\"]\n")
    doc = check(tmp_path / "a", capsys, monkeypatch, {"disagg_config.yaml": config})
    (f,) = findings(doc, "TRT016")  # (`hostname` is extract_disagg_cfg's own parameter: not compared)
    assert (f["line"], f["column"]) == (11, 3) and "cache_transceiver_config" in f["message"]
    assert [(r["line"], r["column"]) for r in f["related"]][:1] == [(3, 1)]
    same = config.replace("    max_tokens_in_buffer: 4096\n", "")
    doc = check(tmp_path / "b", capsys, monkeypatch, {"disagg_config.yaml": same})
    assert findings(doc, "TRT016") == []


CONFIG_B = ("hostname: localhost\nport: 8000\nbackend: pytorch\n{top}cache_transceiver_config:\n  backend: UCX\n"
            "context_servers:\n{n}  disable_overlap_scheduler: True\n  urls:\n"
            "    - \"localhost:8001\"\n    - \"localhost:8003\"\n"
            "generation_servers:\n  num_instances: 1\n  urls:\n    - \"localhost:8002\"\n")


def test_num_instances_is_not_the_number_of_urls(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "a", capsys, monkeypatch,
                {"disagg_config.yaml": CONFIG_B.format(top="", n="  num_instances: 1\n"), "start.sh": PROXY})
    (f,) = findings(doc, "TRT016")
    assert (f["line"], f["column"], f["severity"], f["role"]) == (7, 18, "error", "prefill")
    assert "Number of hostnames (2) should be equal to the number of instances (1)" in f["message"]
    # num_instances unset is 1: at the urls key
    doc = check(tmp_path / "b", capsys, monkeypatch, {"disagg_config.yaml": CONFIG_B.format(top="", n="")})
    (f,) = findings(doc, "TRT016")
    assert f["line"] == 8 and "instances (1)" in f["message"]
    for i, (top, n) in enumerate((("", "  num_instances: 2\n"),
                                  ("disagg_cluster:\n  cluster_uri: etcd://localhost:2379\n", "  num_instances: 1\n"))):
        doc = check(tmp_path / f"q{i}", capsys, monkeypatch, {"disagg_config.yaml": CONFIG_B.format(top=top, n=n)})
        assert findings(doc, "TRT016") == [], top


# -- rw30/h P5: odd types in the YAML that extract_ctx_gen_cfgs (0228a71) stops on -----------------------------
# ``hostname, port_str = url.split(':')`` / ``port = int(port_str)`` for each URL (a string ``urls`` is iterated per
# character); ``len(hostnames) != num_instances`` (a str num_instances is never equal: "Number of hostnames (2)
# should be equal to the number of instances (2)"); ``kwargs.get('tensor_parallel_size', 1) *
# kwargs.get('pipeline_parallel_size', 1) * ...`` (str * str: "can't multiply sequence by non-int of type 'str'").

CONFIG_C = ("hostname: localhost\nport: 8000\nbackend: pytorch\ncache_transceiver_config:\n  backend: UCX\n"
            "context_servers:\n  num_instances: {n}\n  tensor_parallel_size: {tp}\n  urls: {urls}\n"
            "generation_servers:\n  num_instances: 1\n  urls: [\"localhost:8003\"]\n")


def _c(tmp_path, capsys, monkeypatch, n="2", tp="2", urls='["localhost:8001", "localhost:8002"]'):
    return check(tmp_path, capsys, monkeypatch,
                 {"disagg_config.yaml": CONFIG_C.format(n=n, tp=tp, urls=urls), "start.sh": PROXY})


def test_num_instances_written_as_a_string(tmp_path, capsys, monkeypatch):
    (f,) = findings(_c(tmp_path, capsys, monkeypatch, n='"2"'), "TRT016")
    assert (f["line"], f["column"], f["severity"], f["role"]) == (7, 19, "error", "prefill")
    assert "ValueError: Number of hostnames (2) should be equal to the number of instances (2)" in f["message"]
    assert "a str" in f["message"]


def test_urls_with_a_scheme_a_string_or_a_bad_port(tmp_path, capsys, monkeypatch):
    (f,) = findings(_c(tmp_path / "a", capsys, monkeypatch, urls='["http://localhost:8001", "localhost:8002"]'),
                    "TRT016")
    assert (f["line"], f["column"]) == (9, 11)
    assert f["message"].startswith("ValueError: too many values to unpack (expected 2)")
    (f,) = findings(_c(tmp_path / "b", capsys, monkeypatch, n="1", urls='"localhost:8001"'), "TRT016")
    assert f["line"] == 9 and "not enough values to unpack (expected 2, got 1)" in f["message"]
    assert "iterates character by character" in f["message"]
    (f,) = findings(_c(tmp_path / "c", capsys, monkeypatch, urls='["localhost:8001", "localhost:80a"]'), "TRT016")
    assert "invalid literal for int() with base 10: '80a'" in f["message"]
    (f,) = findings(_c(tmp_path / "d", capsys, monkeypatch, n="1", urls="[8001]"), "TRT016")
    assert "AttributeError: 'int' object has no attribute 'split'" in f["message"]


def test_parallel_sizes_that_cannot_be_multiplied(tmp_path, capsys, monkeypatch):
    config = CONFIG_C.format(n="2", tp='"2"', urls='["localhost:8001", "localhost:8002"]').replace(
        "  urls: [\"localhost:8001\"", "  pipeline_parallel_size: \"1\"\n  urls: [\"localhost:8001\"")
    doc = check(tmp_path, capsys, monkeypatch, {"disagg_config.yaml": config, "start.sh": PROXY})
    (f,) = findings(doc, "TRT016")
    assert f["line"] == 8 and "TypeError: can't multiply sequence by non-int of type 'str'" in f["message"]


def test_quiet_on_what_tensorrt_llm_reads(tmp_path, capsys, monkeypatch):
    # (ints, `num_instances: true` with one URL - True == 1 -, a float equal to the count, IPs, URLs behind a
    # placeholder pdlint cannot see, `urls: []` with an int count)
    for i, (n, tp, urls) in enumerate((("2", "2", '["localhost:8001", "10.0.0.2:8002"]'),
                                       ("true", "1", '["localhost:8001"]'), ("2.0", "1", '["a:1", "b:2"]'),
                                       ("2", "2", '["localhost:8001", "${CTX_URL}"]'), ("1", "1", "[]"))):
        doc = _c(tmp_path / f"q{i}", capsys, monkeypatch, n=n, tp=tp, urls=urls)
        assert findings(doc, "TRT016") == [], (n, urls)
