"""A worker script that takes its role as a later argument (Dynamo's TensorRT-LLM performance sweeps:
``start_disagg_worker.sh`` reads ``disaggregation_mode=$6``, and ``benchmark_disagg.slurm`` calls it with
``... ${ctx_gpus} ${nsys_on} ${served_model_name} ${model_path} 'prefill'``, ``nsys_on=""``).  Only ``$1`` was
taken from callers, so the role stayed unknown (PD021) and the pair was never checked.  The calling scripts are
now evaluated and the role names they pass at a position the launch reads are run one by one: the empty
unquoted ``${nsys_on}`` drops out as in bash, so ``'prefill'`` is ``$6``, not ``$7``."""

WORKER = """\
    #!/bin/bash
    config_file=$1
    enable_pdl=$2
    model_name=$3
    model_path=$4
    disaggregation_mode=$5
    python3 -m sglang.launch_server --model-path ${model_path} --served-model-name ${model_name} \\
        --disaggregation-mode ${disaggregation_mode} --enable-linear-replayssm-spec --port 30000
    """

CALLER = """\
    #!/bin/bash
    #SBATCH --nodes=2
    nsys_on=""
    model_path=/models/m
    srun --nodes 1 bash ${SCRIPTS_DIR}/scripts/worker.sh ${LOGDIR}/prefill.yaml true ${nsys_on} m ${model_path} 'prefill' &
    srun --nodes 1 bash ${SCRIPTS_DIR}/scripts/worker.sh ${LOGDIR}/decode.yaml true ${nsys_on} m ${model_path} 'decode' &
    wait
    """


def test_a_role_the_callers_pass_later(scratch_git):
    scratch_git.write("scripts/worker.sh", WORKER)
    scratch_git.write("bench.slurm", CALLER)
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["path"], f["line"], f["role"]) for f in report["findings"]] == [
        ("SGL101", "scripts/worker.sh", 8, "prefill")]
    assert code == 1
    runs = sorted((l["role"], l["context"]) for l in report["launches"] if l["path"] == "scripts/worker.sh")
    assert runs == [("decode", "run with `decode` as $5"), ("prefill", "run with `prefill` as $5")]


def test_the_arguments_are_counted_as_bash_does(scratch_git):
    """With ``nsys_on`` set, the role is the sixth argument and the script's ``$5`` is the model path."""
    scratch_git.write("scripts/worker.sh", WORKER)
    scratch_git.write("bench.slurm", CALLER.replace('nsys_on=""', "nsys_on=/logs"))
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["PD021"]
    assert all(l["role"] is None for l in report["launches"] if l["path"] == "scripts/worker.sh")


def test_no_caller_leaves_the_role_unknown(scratch_git):
    scratch_git.write("scripts/worker.sh", WORKER)
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["PD021"]


def test_a_short_word_is_no_role_here(scratch_git):
    """``d`` or ``p`` at a later position is too loose to take for a role (a size, a flag's value)."""
    scratch_git.write("scripts/worker.sh", WORKER)
    scratch_git.write("bench.slurm", CALLER.replace("'prefill'", "p").replace("'decode'", "d"))
    code, report = scratch_git.lint(".")
    assert [f["code"] for f in report["findings"]] == ["PD021"]


def test_a_clean_pair_from_its_callers_is_quiet(scratch_git):
    scratch_git.write("scripts/worker.sh", WORKER.replace("--enable-linear-replayssm-spec ", ""))
    scratch_git.write("bench.slurm", CALLER)
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert len(report["pairs"]) == 1
