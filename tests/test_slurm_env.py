"""A batch script's `#SBATCH --nodes=N` header sets SLURM_JOB_NUM_NODES / SLURM_NNODES for its commands.

Field test rw21/b (pbelevich/awsome-ai-research kimi-k2/sgl/kimi-k2-sgl.sbatch): `--nnodes $SLURM_JOB_NUM_NODES`
beside `#SBATCH --nodes=2` was a value pdlint could not see; `--tp 15` over two nodes (SGLang: "tp_size must be
divisible by number of nodes") passed."""

import pytest

SCRIPT = """\
#!/bin/bash
#SBATCH --job-name=k2-sgl
HEADER
#SBATCH --ntasks-per-node=1

set -x
srun -l bash -c 'python -m sglang.launch_server --model-path m --tp TP --dist-init-addr 10.0.0.1:50000 \\
    --nnodes $SLURM_JOB_NUM_NODES --node-rank $SLURM_NODEID'
"""


def _lint(scratch_git, header, tp):
    scratch_git.write("k2.sbatch", SCRIPT.replace("HEADER", header).replace("TP", str(tp)))
    code, report = scratch_git.lint("--sglang-version", "0.5.23", "k2.sbatch")
    return code, report


@pytest.mark.parametrize("header", ["#SBATCH --nodes=2", "#SBATCH -N 2", "#SBATCH -N2", "#SBATCH --nodes 2"])
def test_the_node_count_of_the_header_is_the_value_checked(scratch_git, header):
    code, report = _lint(scratch_git, header, 15)
    (launch,) = report["launches"]
    assert launch["argv"][launch["argv"].index("--nnodes") + 1] == "2"
    assert code == 1 and [f["code"] for f in report["findings"]] == ["SGL201"]


def test_a_tp_size_the_nodes_divide_passes(scratch_git):
    code, report = _lint(scratch_git, "#SBATCH --nodes=2", 16)
    assert code == 0 and report["findings"] == []


def test_a_range_of_nodes_or_a_directive_after_the_first_command_is_not_read(scratch_git):
    # `--nodes=2-4`: Slurm picks the count; an #SBATCH line after a command is a comment to sbatch
    for header in ("#SBATCH --nodes=2-4", "echo start\n#SBATCH --nodes=2"):
        code, report = _lint(scratch_git, header, 15)
        (launch,) = report["launches"]
        assert launch["argv"][launch["argv"].index("--nnodes") + 1] == "$SLURM_JOB_NUM_NODES"
        assert "SGL201" not in [f["code"] for f in report["findings"]]
