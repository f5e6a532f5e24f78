"""A script's command that starts with a flag is no container args.

Field test rw19/a (volcano-sh/kthena ModelBooster, `tests/data/field/kthena-multiline/booster.yaml`): Kthena's
controller joins a worker's words into `bash -c "pip install -U nixl && python3 -m vllm... --kv-transfer-config
{"kv_connector": ...,\\n "kv_role": ...\\n} --served-model-name m ..."`; bash stops at the `}` line.  pdlint read
that line's flags as the image's entry point's arguments: a phantom server per worker, and false PD105 / VLLM011
("no --kv-transfer-config") on it."""

import os
import shutil

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "field", "kthena-multiline")


def test_no_phantom_server_from_a_flag_line_of_the_controllers_script(scratch_git):
    shutil.copy(os.path.join(DATA, "booster.yaml"), scratch_git.root / "booster.yaml")
    _, report = scratch_git.lint("booster.yaml")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    codes = [f["code"] for f in report["findings"]]
    assert codes.count("VLLM001") == 2 and not {"PD105", "VLLM011"} & set(codes)


def test_a_containers_args_still_run_the_images_entry_point(scratch_git):
    scratch_git.write("pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.11.0
              args: [--model, m, --no-such-flag]
        """)
    _, report = scratch_git.lint("pod.yaml")
    assert len(report["launches"]) == 1 and [f["code"] for f in report["findings"]] == ["VLLM018"]


def test_a_script_line_of_flags_after_a_launch_is_no_server(scratch_git):
    scratch_git.write("job.yaml", """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  command: [bash, -c]
                  args:
                    - |
                      vllm serve m --port 8000
                      --tensor-parallel-size 2
        """)
    _, report = scratch_git.lint("job.yaml")
    assert len(report["launches"]) == 1
    assert "PD060" in [f["code"] for f in report["findings"]]  # the flags never reach the launch
