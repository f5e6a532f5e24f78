"""A value the user gives for a variable the script computes where pdlint cannot see (field test rw19/c, on
ai-dynamo/dynamo's disagg_dp_attn.sh): `GPU_MEM_ARGS=$(build_sglang_gpu_mem_args)`, a function of a file outside
the repository.  PD023's help said to give "(build_sglang_gpu_mem_args)" a value, and neither `--var
GPU_MEM_ARGS=` nor `--var build_sglang_gpu_mem_args=` changed anything."""

SCRIPT = """\
#!/bin/bash
source /opt/common/gpu_utils.sh
GPU_MEM_ARGS=$(build_sglang_gpu_mem_args)
python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill $GPU_MEM_ARGS
"""


def _codes(report):
    return [f["code"] for f in report["findings"]]


def test_the_help_names_the_variable(scratch_git):
    scratch_git.write("run.sh", SCRIPT)
    _, report = scratch_git.lint("run.sh")
    [gap] = [f for f in report["findings"] if f["code"] == "PD023"]
    assert gap["fix"].startswith("give GPU_MEM_ARGS (set here from $(build_sglang_gpu_mem_args))")


def test_a_given_value_stands_for_the_computed_one(scratch_git):
    scratch_git.write("run.sh", SCRIPT)
    _, report = scratch_git.lint("--var", "GPU_MEM_ARGS=", "run.sh")
    assert "PD023" not in _codes(report)
    _, report = scratch_git.lint("--var", "GPU_MEM_ARGS=--enable-linear-replayssm-spec", "run.sh")
    assert "SGL101" in _codes(report)
    scratch_git.write("pyproject.toml", '[tool.pdlint.vars]\nGPU_MEM_ARGS = "--mem-fraction-static 0.8"\n')
    _, report = scratch_git.lint("run.sh")
    assert "PD023" not in _codes(report)
    assert "--mem-fraction-static" in report["launches"][0]["argv"]


def test_a_value_the_script_computes_itself_wins(scratch_git):
    # a known assignment is the script's: a given value does not replace it
    scratch_git.write("run.sh", SCRIPT.replace("$(build_sglang_gpu_mem_args)", '"--mem-fraction-static 0.7"'))
    _, report = scratch_git.lint("--var", "GPU_MEM_ARGS=--enable-linear-replayssm-spec", "run.sh")
    assert "SGL101" not in _codes(report)
    assert report["launches"][0]["argv"][-1] == "0.7"
