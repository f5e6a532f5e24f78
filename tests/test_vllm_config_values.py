"""VLLM046: a value a vLLM config option's field does not take, where the field's names are fixed (differential
test rw26/b item 4: `-cc.cudagraph_mode FULLY` and `--compilation-config '{"cudagraph_mode":"FULLY"}'` pinned
0.33.0 passed pdlint silently; vLLM 0.33.0 stops with `KeyError: 'FULLY'`).

scripts/gen_vllm_config_fields.py records each config class's fields whose string value is checked against fixed
names (`values`): a Literal of strings (pydantic's literal_error), or an Enum that the field's own before-validator
looks the upper-cased name up in (`CUDAGraphMode[value.upper()]`: KeyError; `CompilationConfig.mode`: the
validator's ValueError).

Verdicts of vLLM 0.33.0's parser (scripts/vllm_oracle.py --batch, full messages from parse_args' stderr):
* `m -cc.cudagraph_mode FULLY` / `m --compilation-config '{"cudagraph_mode":"FULLY"}'`   REJECT KeyError: 'FULLY'
* `m -cc.cudagraph_mode fully`                                   REJECT KeyError: 'FULLY'
* `m -cc.cudagraph_mode full_and_piecewise`                      ACCEPT
* `m --compilation-config '{"cudagraph_mode":2}'`, `... null`      ACCEPT
* `m --compilation-config '{"mode":"VLLM_COMPILEX"}'`             REJECT argument --compilation-config/-cc: 1 validation
  error for CompilationConfig / mode / Value error, Invalid compilation mode: VLLM_COMPILEX. Valid modes are: NONE,
  STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE [type=value_error, input_value='VLLM_COMPILEX', input_type=str]
* `m --compilation-config '{"mode":"vllm_compile"}'`              ACCEPT
* `m --eplb-config '{"policy":"greedy"}'`                         REJECT argument --eplb-config: 1 validation error for
  EPLBConfig / policy / Input should be 'default' [type=literal_error, input_value='greedy', input_type=str]
* `m --eplb-config '{"communicator":"ncclx"}'`                    REJECT ... Input should be 'torch_nccl', 'torch_gloo',
  'torch_xccl', 'nixl' or 'pynccl' [type=literal_error, ...]
* `m --eplb-config '{"communicator":null}'`                       ACCEPT
* `m --compilation-config '{"compile_cache_save_format":"zip"}'`  REJECT Input should be 'binary' or 'unpacked'
Over every field the table gives names for (32 cases on 0.33.0, 22 on 0.15.0, 4 on 0.11.0: a bad name and a good
one each), VLLM046 fires exactly on the rejected bad names; the good names vLLM refused were refused for another
reason (a value_error of the profiler's or EPLB's own checks).
Older releases (old-release oracle): 0.11.0 `--compilation-config '{"cudagraph_mode":"FULLY"}'` REJECT KeyError:
'FULLY', `--eplb-config '{"policy":"greedy"}'` ACCEPT (no policy field: VLLM045); 0.12.0 and 0.14.0
`-cc.cudagraph_mode FULLY` REJECT KeyError: 'FULLY'; 0.14.0 `{"mode":"VLLM_COMPILEX"}`, `{"policy":"greedy"}`,
`--eplb-config.policy greedy` REJECT.
"""

import pytest


def _found(scratch, release, args: str) -> list:
    scratch.write("serve.sh", f"vllm serve Qwen/Qwen3-8B {args}\n")
    _, report = scratch.lint(*(("--vllm-version", release) if release else ()), "serve.sh")
    return [(f["column"], f["message"]) for f in report["findings"] if f["code"] == "VLLM046"]


def test_cudagraph_mode_outside_the_enum_is_the_keyerror(scratch):
    enum = "NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE"
    assert _found(scratch, "0.33.0", "-cc.cudagraph_mode FULLY") == [
        (45, f"KeyError: 'FULLY' (a traceback while -cc is read: CompilationConfig.cudagraph_mode is one of {enum}, "
             f"in any case; vLLM 0.33.0)")]
    [(col, msg)] = _found(scratch, "0.33.0", "--compilation-config '{\"cudagraph_mode\": \"fully\"}'")
    assert col == 68 and msg.startswith("KeyError: 'FULLY' (a traceback while --compilation-config is read")


def test_a_literal_field_is_pydantics_literal_error(scratch):
    found = _found(scratch, "0.33.0", "--eplb-config '{\"policy\": \"greedy\", \"communicator\": \"ncclx\"}' "
                                      "--compilation-config '{\"compile_cache_save_format\": \"zip\"}'")
    assert [m for _, m in found] == [
        "argument --eplb-config: 1 validation error for EPLBConfig: policy: Input should be 'default' "
        "[type=literal_error, input_value='greedy', input_type=str] (vLLM 0.33.0)",
        "argument --eplb-config: 1 validation error for EPLBConfig: communicator: Input should be 'torch_nccl', "
        "'torch_gloo', 'torch_xccl', 'nixl' or 'pynccl' [type=literal_error, input_value='ncclx', input_type=str] "
        "(vLLM 0.33.0)",
        "argument --compilation-config: 1 validation error for CompilationConfig: compile_cache_save_format: Input "
        "should be 'binary' or 'unpacked' [type=literal_error, input_value='zip', input_type=str] (vLLM 0.33.0)"]


def test_the_mode_validator_message(scratch):
    [(_, msg)] = _found(scratch, "0.33.0", "--compilation-config '{\"mode\": \"VLLM_COMPILEX\"}'")
    assert msg == ("argument --compilation-config: 1 validation error for CompilationConfig: mode: Value error, "
                   "Invalid compilation mode: VLLM_COMPILEX. Valid modes are: NONE, STOCK_TORCH_COMPILE, "
                   "DYNAMO_TRACE_ONCE, VLLM_COMPILE [type=value_error, input_value='VLLM_COMPILEX', input_type=str] "
                   "(vLLM 0.33.0)")


@pytest.mark.parametrize("args", [
    "-cc.cudagraph_mode full_and_piecewise",
    "-cc.cudagraph_mode FULL_DECODE_ONLY --compilation-config.mode 3",
    "--compilation-config '{\"cudagraph_mode\": 2, \"mode\": \"vllm_compile\"}'",
    "--compilation-config '{\"cudagraph_mode\": null, \"compile_cache_save_format\": \"unpacked\"}'",
    "--eplb-config '{\"policy\": \"default\", \"communicator\": null}'",
    "--eplb-config.policy default",
    # a value pdlint cannot see, a placeholder another tool fills in
    "--compilation-config \"{\\\"cudagraph_mode\\\": \\\"$MODE\\\"}\"",
    "-cc.cudagraph_mode '{{ cg_mode }}'",
])
def test_a_name_the_field_takes_is_quiet(scratch, args):
    assert _found(scratch, "0.33.0", args) == []


def test_a_release_whose_field_has_other_names_judges_by_its_own(scratch):
    # 0.11.0 has no EPLB policy (VLLM045 for the key); its cudagraph_mode is the same enum
    assert _found(scratch, "0.11.0", "--eplb-config '{\"policy\": \"greedy\"}'") == []
    [(_, msg)] = _found(scratch, "0.11.0", "--compilation-config '{\"cudagraph_mode\": \"FULLY\"}'")
    assert msg.startswith("KeyError: 'FULLY'") and msg.endswith("; vLLM 0.11.0)")


def test_between_two_tables_both_decide(scratch):
    [(_, msg)] = _found(scratch, "0.14.0", "-cc.cudagraph_mode FULLY")
    assert msg.endswith("in any case; vLLM 0.14.0, judged by 0.13.0 and 0.15.0)")
    # EPLB's communicator came in 0.20.0 (0.15.0's EPLBConfig lacks it: VLLM045 on 0.17.0); its names are not judged
    # by 0.15.0's table, which has none for it
    assert _found(scratch, "0.17.0", "--eplb-config '{\"communicator\": \"torch_xccl\"}'") == []


def test_with_no_release_pinned_a_name_another_release_takes_is_not_reported(scratch):
    # `policy: greedy` no release takes: an error on the newest table
    assert len(_found(scratch, None, "--eplb-config '{\"policy\": \"greedy\"}'")) == 1


def test_a_hostile_value_is_bounded(scratch):
    body = ", ".join(f"\"k{i}\": {{\"x\": 1}}" for i in range(5000))
    found = _found(scratch, "0.33.0", f"--compilation-config '{{{body}, \"cudagraph_mode\": \"FULLY\"}}'")
    assert len(found) <= 1
