"""Where a launch is (field test rw12/c).

* A program named by a variable (`$PYTHON -m sglang.launch_server`, `"$VLLM_BIN" serve`: MindLab-Research/sglang,
  Wzhogqag/vllm) put every launch at the variable's assignment: findings and "related" lines pointed there, and
  launches on different lines were one site, so the same-host rules (PD150-PD152) never compared them.
"""


def _found(report):
    return sorted((f["code"], f["line"]) for f in report["findings"])


VAR = """\
#!/bin/bash
PYTHON=python3
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 BOOT0 &
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 --base-gpu-id 1 BOOT1 &
$PYTHON -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30002 --base-gpu-id 2 &
"""


def test_a_launch_whose_program_is_a_variable_is_where_its_command_is(scratch_git):
    scratch_git.write("b.sh", VAR.replace(" BOOT0", "").replace(" BOOT1", ""))
    code, report = scratch_git.lint("b.sh")
    assert sorted(l["line"] for l in report["launches"]) == [3, 4, 5]
    assert ("PD150", 4) in _found(report)  # both prefills on the default bootstrap port 8998
    scratch_git.write("b.sh", VAR.replace("BOOT0", "--disaggregation-bootstrap-port 8998 --base-gpu-id 0")
                      .replace("BOOT1", "--disaggregation-bootstrap-port 8999"))
    code, report = scratch_git.lint("b.sh")
    assert (code, _found(report)) == (0, [])
