"""VLLM042: an `-O<x>` / `--optimization-level` value that is no OptimizationLevel (0-3).

Field test rw23/b (differential test against vLLM 0.33.0, repro/2; base launch: a Nixl consumer as in
vllm-project/vllm-ascend's PD examples): `-O.cudagraph_mode=FULL_DECODE_ONLY` was reported as "unrecognized
arguments: -O.cudagraph_mode" (VLLM018).  vLLM 0.33.0's parser ACCEPTs it (scripts/vllm_oracle.py --batch), as
`--optimization-level .cudagraph_mode=FULL_DECODE_ONLY` (vllm/utils/argparse_utils.py:395), and so `-O5`; the
engine then refuses both: `TypeAdapter(OptimizationLevel).validate_python('5')` -> "Input should be 0, 1, 2 or 3"
(vllm/config/vllm.py:132, an IntEnum; '3', ' 2' and '3.0' validate).  `-O 1` is `--optimization-level 1`
(argparse_utils.py:400-406), ACCEPT.
"""


def _found(scratch_git, line: str) -> list:
    scratch_git.write("serve.sh", line + "\n")
    _, report = scratch_git.lint("serve.sh")
    return [(f["code"], f["column"], f["message"]) for f in report["findings"] if f["code"] in ("VLLM042", "VLLM018")]


def test_a_compilation_config_key_after_dash_o_is_an_optimization_level(scratch_git):
    found = _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O.cudagraph_mode=FULL_DECODE_ONLY")
    assert [(c, col) for c, col, _ in found] == [("VLLM042", 26)]
    assert found[0][2].startswith("vLLM 0.33.0 reads -O.cudagraph_mode=FULL_DECODE_ONLY as --optimization-level "
                                  "'.cudagraph_mode=FULL_DECODE_ONLY': \"Input should be 0, 1, 2 or 3\"")
    assert "write -cc.cudagraph_mode=FULL_DECODE_ONLY" in found[0][2]


def test_a_level_out_of_range(scratch_git):
    assert [(c, m) for c, _, m in _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O5\nvllm serve Qwen/Qwen3-8B --optimization-level x")] == [
        ("VLLM042", "vLLM 0.33.0 reads -O5 as --optimization-level '5': \"Input should be 0, 1, 2 or 3\" "
                    "(OptimizationLevel) when vLLM builds its config"),
        ("VLLM042", "--optimization-level 'x': \"Input should be 0, 1, 2 or 3\" (OptimizationLevel) when vLLM "
                    "builds its config"),
    ]


def test_levels_vllm_takes_are_quiet(scratch_git):
    assert _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O3") == []
    assert _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O=0\nvllm serve Qwen/Qwen3-8B --optimization-level 2") == []
    assert _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O 1 -cc.cudagraph_mode=FULL_DECODE_ONLY") == []


def test_dash_o_dotted_is_the_compilation_config_in_an_older_release(scratch_git):
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nvllm-version = "0.11.0"\n')
    assert _found(scratch_git, "vllm serve Qwen/Qwen3-8B -O.cudagraph_mode=FULL_DECODE_ONLY") == []


def test_a_json_value_after_dash_o_names_what_the_newest_release_reads(scratch_git):
    """Differential test rw25/b P3: `-O '{"level":3}'` said "-O is valid only for vLLM 0.9.2-0.11.0", wrong for
    0.33.0, which takes `-O3`; 0.33.0 refuses the JSON form (its parser: "unrecognized arguments")."""
    scratch_git.write("serve.sh", "vllm serve Qwen/Qwen3-8B -O '{\"level\":3}'\n")
    _, report = scratch_git.lint("serve.sh")
    [f] = [f for f in report["findings"] if f["code"] == "VLLM020"]
    assert f["message"].startswith("-O takes a JSON compilation config only in vLLM 0.9.2-0.11.0: vLLM 0.33.0")
    assert "(`-O3`)" in f["message"] and "--compilation-config" in f["message"]


def test_a_refused_value_is_quoted_short(scratch_git):
    """Hostile-input test rw25/h (notes): VLLM043 quoted the whole refused value, a 120 KB message line."""
    scratch_git.write("serve.sh", "vllm serve Qwen/Qwen3-8B --override-generation-config '{\"image\": " + "x" * 5000 + "}'\n")
    _, report = scratch_git.lint("serve.sh")
    [f] = [f for f in report["findings"] if f["code"] == "VLLM043"]
    assert len(f["message"]) < 400 and "(5011 characters)" in f["message"]
