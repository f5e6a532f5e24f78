"""Field test rw19/b (SGLang PD on Kubernetes).

* `--disaggregation-ib-device ""` (a Helm `{{ .Values.ibDevice | quote }}` of an unset value), `,` or `none` on a
  Mooncake PD server: SGLang 0.5.23 refuses all three before the server starts (the oracle: "No valid IB devices
  specified", "Invalid IB devices specified"); pdlint reported only the YAML-null spelling `None`.
* OME's DeepSeek/Kimi PD runtimes pass `--enable-deepep-moe`: SGL009 said it was removed and named no replacement,
  although SGLang's own deprecation note (0.5.3-0.5.4) names `--moe-a2a-backend deepep`."""

import pytest


def _codes(report):
    return [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("value,code", [("''", "SGL049"), ("','", "SGL049"), ("' , '", "SGL049"),
                                        ("none", "SGL048"), ("None", "SGL048")])
def test_unusable_ib_device_values(scratch_git, value, code):
    scratch_git.write("d.sh", "python -m sglang.launch_server --model-path m --disaggregation-mode decode "
                              f"--disaggregation-ib-device {value}\n")
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "d.sh")
    assert _codes(report) == [code]


@pytest.mark.parametrize("extra", ["--disaggregation-ib-device mlx5_0,mlx5_1",
                                   "--disaggregation-ib-device '' --disaggregation-transfer-backend nixl",
                                   "--disaggregation-ib-device '' --disaggregation-transfer-backend mooncake_tcp"])
def test_usable_or_unvalidated_ib_devices_are_quiet(scratch_git, extra):
    scratch_git.write("d.sh", f"python -m sglang.launch_server --model-path m --disaggregation-mode decode {extra}\n")
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "d.sh")
    assert "SGL048" not in _codes(report) and "SGL049" not in _codes(report)


def test_a_removed_flag_names_the_replacement_its_deprecation_gave(scratch_git):
    scratch_git.write("d.sh", "python -m sglang.launch_server --model-path m --enable-deepep-moe\n")
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "d.sh")
    [f] = report["findings"]
    assert f["code"] == "SGL009" and "use --moe-a2a-backend deepep" in f["message"]
    # a note that names no single replacement ("set --ep-size to the same value as --tp-size") adds none
    scratch_git.write("d.sh", "python -m sglang.launch_server --model-path m --enable-ep-moe\n")
    _, report = scratch_git.lint("--sglang-version", "0.5.23", "d.sh")
    [f] = report["findings"]
    assert f["code"] == "SGL009" and "; use" not in f["message"]
