"""Config files a script writes from a here-document and then passes with --config (TensorRT-LLM's
examples/disaggregated/slurm/service_discovery_example/launch.slurm: `cat >${work_path}/ctx_config.yaml << EOL`,
then `trtllm-serve ... --config ${work_path}/ctx_config.yaml --server_role context`): read from the text the
script writes, each key at its line there."""

TRT = """#!/bin/bash
work_path="${work_path:-/tmp/w}"
cat >${work_path}/ctx_config.yaml << EOL
cache_transceiver_config:
  backend: UCX
%s
EOL
srun -N 1 bash -c "trtllm-serve TinyLlama/TinyLlama-1.1B-Chat-v1.0 --port 8001 --config ${work_path}/ctx_config.yaml --server_role context" &
"""


def _codes(report):
    return sorted(f["code"] for f in report["findings"])


def test_a_written_trtllm_config_is_read(scratch_git):
    scratch_git.write("launch.slurm", TRT % "disable_overlap_scheduler: true")
    code, report = scratch_git.lint("launch.slurm")
    assert _codes(report) == [] and code == 0
    assert report["coverage"]["files"]["launch.slurm"]["status"] == "checked"


def test_what_the_written_config_lacks_is_reported(scratch_git):
    scratch_git.write("launch.slurm", TRT % "")
    _, report = scratch_git.lint("launch.slurm")
    assert _codes(report) == ["TRT005"]  # read: the file has no disable_overlap_scheduler


def test_a_written_sglang_config_reports_at_its_line(scratch_git):
    scratch_git.write("run.sh", "cat > cfg.yaml <<'EOF'\ndisaggregation-mode: prefill\n"
                                "enable-linear-replayssm-spec: true\nEOF\n"
                                "python3 -m sglang.launch_server --model-path m --config cfg.yaml\n")
    code, report = scratch_git.lint("run.sh")
    (f,) = report["findings"]
    assert (f["code"], f["line"], f["role"]) == ("SGL101", 3, "prefill") and code == 1


def test_a_config_the_script_does_not_write_stays_unresolved(scratch_git):
    for target in ("other.yaml", "$UNKNOWN_DIR/cfg.yaml"):
        scratch_git.write("run.sh", f"cat > {target} <<'EOF'\ndisaggregation-mode: prefill\nEOF\n"
                                    "python3 -m sglang.launch_server --model-path m --config cfg.yaml\n")
        _, report = scratch_git.lint("run.sh")
        assert _codes(report) == ["PD020", "PD022"], target  # its text is launch text nothing reads
