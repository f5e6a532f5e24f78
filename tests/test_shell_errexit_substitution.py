"""`X=$(f)` under `set -e`: a path on which f fails ends the script, so what it printed there is no value of X.

Found by the field compare on libertywing/FlashMemory-Deepseek-V4 (`sglang/scripts/ci/cuda/
ci_start_disaggregation_servers.sh`): `DEVICE=$(find_active_ib_device)`, whose function prints a device or
fails (`echo ... >&2; return 1`), gave an empty `--disaggregation-ib-device` variant and a false SGL049; without
`set -e` the script goes on with an empty DEVICE, and SGLang refuses it (SGL049 is true there)."""

import pytest

SCRIPT = """\
#!/bin/bash
SETE
find_device() {
    for d in mlx5_0 mlx5_1; do
        if ibv_devinfo $d >/dev/null 2>&1; then
            echo "$d"
            return 0
        fi
    done
    echo "no active IB device" >&2
    return 1
}
ASSIGN
python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --disaggregation-ib-device "$DEVICE"
"""


def _run(scratch_git, sete, assign="DEVICE=$(find_device)"):
    scratch_git.write("run.sh", SCRIPT.replace("SETE", sete).replace("ASSIGN", assign))
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "run.sh")
    return sorted({l["argv"][-1] for l in report["launches"]}), [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("sete", ["set -e", "set -euo pipefail", "set -o errexit"])
def test_the_failing_path_ends_the_script(scratch_git, sete):
    assert _run(scratch_git, sete) == (["mlx5_0", "mlx5_1"], [])


def test_without_errexit_the_empty_value_is_used(scratch_git):
    values, codes = _run(scratch_git, "")
    assert values == ["", "mlx5_0", "mlx5_1"] and codes == ["SGL049"]


def test_local_masks_the_status(scratch_git):
    # `local X=$(f)`: local's own status (0) is the statement's, the script goes on with an empty X
    script = SCRIPT.replace("SETE", "set -e").replace("ASSIGN\n", "").replace(
        "python3 -m", "start() {\n    local DEVICE=$(find_device)\n    python3 -m").rstrip("\n") + "\n}\nstart\n"
    scratch_git.write("run.sh", script)
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "run.sh")
    assert sorted({l["argv"][-1] for l in report["launches"]}) == ["", "mlx5_0", "mlx5_1"]


@pytest.mark.parametrize("sete, assign", [
    # field test rw20/h: the text held `set -e`, but bash goes on at this assignment
    ("set -euo pipefail", "DEVICE=$(find_device) || true"),  # a `||` list: only its last command exits
    ("set -e\nset +e", "DEVICE=$(find_device)"),  # errexit turned off again before it
    ("set -o errexit\nset +o errexit", "DEVICE=$(find_device)"),
    ("cat > /tmp/helper.sh <<'H'\nset -e\nH", "DEVICE=$(find_device)"),  # a here-document's text is not the script's
    ("set -e", "if DEVICE=$(find_device); then :; fi"),  # a condition
])
def test_where_bash_goes_on_the_empty_value_is_used(scratch_git, sete, assign):
    values, codes = _run(scratch_git, sete, assign)
    assert values == ["", "mlx5_0", "mlx5_1"] and codes == ["SGL049"]


def test_errexit_turned_on_after_an_off_still_counts(scratch_git):
    assert _run(scratch_git, "set +e\nset -e") == (["mlx5_0", "mlx5_1"], [])
