"""vLLM engine robustness on hostile input (hostile-input test rw26/h; the launch shapes are vllm-project/vllm's
PD examples and LMCache's disagg_prefill_lmcache_v1 configs, made large):

* VLLM050: an LMCACHE_CONFIG_FILE over the YAML node bound pdlint traces (one long unrelated list of 21,000 items,
  42 KB) kept its port lists unknown and VLLM050 went silent, exit 0 with --strict; PyYAML (LMCache's reader)
  reads `pd_peer_init_port: [7300]` from it.  Now the lists come from what PyYAML read, at the key's line.
* VLLM043: a dotted option of 1,000 keys (`--compilation-config.x0.x1...x999 1`) overflowed pdlint's recursion
  (PD013, the launch not checked: its `--max-num-seqs 1k` lost).
* VLLM044 / VLLM045: every unknown key of a config option's JSON was one finding (20,000 keys: 20,000 warnings,
  12 MB of output); now the first five of one value and nesting level, then one finding naming the rest.

Oracle verdicts (scripts/vllm_oracle.py --batch and its parser with the whole stderr, vLLM 0.33.0's parser):

* `--compilation-config '{"k0": 0, ..., "k6": 6}'`  REJECT "7 validation errors for CompilationConfig" (each
  "Unexpected keyword argument")
* `--compilation-config '{"k0": 0, ..., "k299": 299}'`  REJECT unexpected_keyword_argument
* `-cc.a1 1 ... -cc.a7 7`  REJECT "7 validation errors for CompilationConfig" (the dotted arguments are one value)
* `--compilation-config.x0...x999 1 --max-num-seqs 1k`  RecursionError: maximum recursion depth exceeded while
  encoding a JSON object (vllm/utils/argparse_utils.py:500, json.dumps of the nested dict; from 994 keys for
  --compilation-config, 988 for --speculative-config, on Python 3.11; 993 keys: REJECT unexpected_keyword_argument)
* `--compilation-config.x0...x499 1 --max-num-seqs 1k`  REJECT "argument --max-num-seqs: invalid int value: '1k'"
* `--compilation-config.pass_config.x0...x149 1`  REJECT "1 validation error for CompilationConfig pass_config.x0"
  (150 keys are read: no RecursionError)
"""

import json

PIN = "docker run vllm/vllm-openai:v0.33.0 --model M"


def _codes(report, code):
    return [f for f in report["findings"] if f["code"] == code]


# --- VLLM050: an LMCache config over the node bound -------------------------------------------------------------

DECODE = ("LMCACHE_CONFIG_FILE=cfg/lm.yaml vllm serve M --port 8100 --tensor-parallel-size 4 --kv-transfer-config "
          "'{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_consumer\"}'\n")


def _lmcache(scratch_git, ports: str, items: int = 21_000):
    scratch_git.write("decode.sh", DECODE)
    scratch_git.write("cfg/lm.yaml", f"enable_pd: true\npd_peer_init_port: {ports}\nextra_config:\n  blocklist: ["
                      + ",".join(["0"] * items) + "]\n")
    return scratch_git.lint("--strict", "decode.sh")


def test_lmcache_port_list_of_a_config_over_the_node_bound_is_read(scratch_git):
    code, report = _lmcache(scratch_git, "[7300]")
    hits = _codes(report, "VLLM050")
    assert [(f["path"], f["line"], f["column"]) for f in hits] == [("cfg/lm.yaml", 2, 1)]  # at the key's line
    assert "4 workers" in hits[0]["message"] and "pd_peer_init_port, which lists 1" in hits[0]["message"]
    assert code == 1


def test_lmcache_number_of_a_large_config_is_a_list_of_one(scratch_git):
    _, report = _lmcache(scratch_git, "7300")
    assert [(f["line"], f["column"]) for f in _codes(report, "VLLM050")] == [(2, 1)]


def test_lmcache_large_config_with_enough_ports_is_quiet(scratch_git):
    code, report = _lmcache(scratch_git, "[7300, 7301, 7302, 7303]")
    assert _codes(report, "VLLM050") == [] and _codes(report, "PD013") == [] and code == 0


def test_lmcache_small_config_is_still_located_at_the_value(scratch_git):
    _, report = _lmcache(scratch_git, "[7300]", items=10)
    assert [(f["line"], f["column"]) for f in _codes(report, "VLLM050")] == [(2, 20)]


# --- VLLM043: a dotted option nested too deeply -----------------------------------------------------------------

def _dotted(scratch_git, keys: int, prefix: str = ""):
    dots = prefix + ".".join(f"x{i}" for i in range(keys))
    scratch_git.write("c.sh", f"vllm serve M --port 8100 --compilation-config.{dots}=1 --max-num-seqs 1k\n")
    return scratch_git.lint("--vllm-version", "0.33.0", "c.sh")


def test_dotted_option_of_1000_keys_is_reported_and_the_launch_checked(scratch_git):
    _, report = _dotted(scratch_git, 1000)
    assert _codes(report, "PD013") == []
    deep = _codes(report, "VLLM043")
    assert [(f["line"], f["column"]) for f in deep] == [(1, 26)]  # at the dotted name
    assert deep[0]["message"].startswith("--compilation-config.KEY...: 1000 nested keys: vLLM builds one JSON value")
    assert "RecursionError: maximum recursion depth exceeded while encoding a JSON object" in deep[0]["message"]
    assert len(_codes(report, "VLLM037")) == 1  # --max-num-seqs 1k: still checked


def test_dotted_option_vllm_reads_is_not_reported_too_deep(scratch_git):
    for keys, prefix in ((500, ""), (150, "pass_config.")):
        _, report = _dotted(scratch_git, keys, prefix)
        assert _codes(report, "PD013") == [] and _codes(report, "VLLM043") == [], keys
        assert len(_codes(report, "VLLM037")) == 1


def test_a_recursion_error_building_dotted_values_does_not_lose_the_launch(scratch_git, monkeypatch):
    from pdlint.engines.vllm import engine
    monkeypatch.setattr(engine, "_DOTTED_TRACED", 10 ** 6, raising=False)  # (no bound: dump overflows)
    _, report = _dotted(scratch_git, 3000)
    assert _codes(report, "PD013") == []
    assert len(_codes(report, "VLLM037")) == 1


# --- VLLM044 / VLLM045: unknown keys of one value ----------------------------------------------------------------

def _config(scratch_git, line: str):
    scratch_git.write("a.sh", line)
    return scratch_git.lint("a.sh")


def test_many_unknown_keys_are_five_findings_and_one_more(scratch_git):
    value = json.dumps({f"k{i}": i for i in range(300)})
    line = f"vllm serve M --port 8100 --compilation-config '{value}'\n"
    _, report = _config(scratch_git, line)
    hits = _codes(report, "VLLM045")
    assert len(hits) == 6
    assert [f["message"].split(" is not")[0] for f in hits[:5]] == [
        f"argument --compilation-config: k{i}" for i in range(5)]
    assert hits[5]["message"] == (
        "--compilation-config: 295 more keys vLLM 0.33.0's CompilationConfig does not have besides the 5 reported by "
        "themselves: k5, k6, k7, k8, k9 and 290 more (300 unknown keys of CompilationConfig in this value; vLLM "
        "0.33.0, the newest release pdlint knows, refuses to start with them; pin the release: an image tag "
        "(vllm/vllm-openai:vX.Y.Z) or `vllm-version` in [tool.pdlint])")
    assert hits[5]["column"] == line.index('"k5"') + 2  # at k5


def test_pinned_release_many_unknown_keys(scratch_git):
    value = json.dumps({f"k{i}": i for i in range(7)})
    _, report = _config(scratch_git, f"{PIN} --compilation-config '{value}'\n")
    hits = _codes(report, "VLLM044")
    assert len(hits) == 6 and _codes(report, "VLLM045") == []
    assert hits[5]["message"] == (
        "--compilation-config: 2 more keys vLLM 0.33.0's CompilationConfig does not have besides the 5 reported by "
        "themselves: k5, k6 (7 unknown keys of CompilationConfig in this value; vLLM 0.33.0 refuses to start)")


def test_dotted_arguments_of_one_option_are_one_value(scratch_git):
    args = " ".join(f"-cc.a{i} {i}" for i in range(1, 8))
    _, report = _config(scratch_git, f"{PIN} {args}\n")
    hits = _codes(report, "VLLM044")
    assert len(hits) == 6
    assert hits[5]["message"].startswith("-cc: 2 more keys vLLM 0.33.0's CompilationConfig does not have besides "
                                         "the 5 reported by themselves: a6, a7 (7 unknown keys")


def test_five_unknown_keys_are_five_findings(scratch_git):
    value = json.dumps({"cudagraph_mode": "FULL", **{f"k{i}": i for i in range(5)}, "pass_config": {"zz": 1}})
    _, report = _config(scratch_git, f"{PIN} --compilation-config '{value}'\n")
    msgs = [f["message"] for f in _codes(report, "VLLM044")]
    assert len(msgs) == 6 and not any("more key" in m for m in msgs)  # five at the top, one in pass_config
    assert msgs[5].startswith("argument --compilation-config: 1 validation error for PassConfig: pass_config.zz")


def test_a_large_value_is_read_at_once(scratch_git):
    value = json.dumps({f"k{i}": i for i in range(6000)})  # (84 KB: keys found at the value, not traced)
    assert len(value) > 65536
    _, report = _config(scratch_git, f"vllm serve M --port 8100 --compilation-config '{value}'\n")
    hits = _codes(report, "VLLM045")
    assert len(hits) == 6
    assert {f["column"] for f in hits} == {len("vllm serve M --port 8100 --compilation-config '") + 1}
    assert "5995 more keys" in hits[0]["message"] + hits[5]["message"]
    value = json.dumps({"cudagraph_mode": "FULL", "compile_sizes": list(range(12000))})
    _, report = _config(scratch_git, f"vllm serve M --port 8100 --compilation-config '{value}'\n")
    assert _codes(report, "VLLM045") == [] and _codes(report, "VLLM043") == []
