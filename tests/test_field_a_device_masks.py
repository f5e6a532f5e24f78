"""Field test ai-dynamo/dynamo: the GPU rules (PD151-PD153) read only CUDA_VISIBLE_DEVICES, so the Gaudi and
XPU launch scripts, which pin each worker with HABANA_VISIBLE_DEVICES / ZE_AFFINITY_MASK, got "both use GPU 0"
(11 false PD151 errors)."""

import pytest

KV = """KV='{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"""


def _script(prefill_env: str, decode_env: str, decode_tp: int = 1) -> str:
    return (f"#!/bin/bash\n{KV}\n"
            f"VLLM_NIXL_SIDE_CHANNEL_PORT=20096 {decode_env} python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B "
            f"--kv-transfer-config \"$KV\" --disaggregation-mode decode --tensor-parallel-size {decode_tp} &\n"
            f"VLLM_NIXL_SIDE_CHANNEL_PORT=20097 {prefill_env} python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B "
            f"--kv-transfer-config \"$KV\" --disaggregation-mode prefill\n")


def _codes(out) -> list:
    return sorted(f["code"] for f in out["findings"])


@pytest.mark.parametrize("var", ["HABANA_VISIBLE_DEVICES", "HABANA_VISIBLE_MODULES", "ZE_AFFINITY_MASK",
                                 "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"])
def test_launches_pinned_apart_with_another_accelerators_mask_share_no_gpu(scratch_git, var):
    scratch_git.write("disagg.sh", _script(f"{var}=1", f"{var}=0"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == [] and code == 0
    assert out["coverage"]["launches"] == 2


@pytest.mark.parametrize("var", ["HABANA_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"])
def test_launches_pinned_to_one_device_with_another_mask_still_clash(scratch_git, var):
    scratch_git.write("disagg.sh", _script(f"{var}=0", f"{var}=0,1", decode_tp=2))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == ["PD151"]
    [f] = out["findings"]
    assert "both use GPU 0" in f["message"] and f"{var}=0" in f["message"]
    assert (f["line"], f["column"]) == (4, 36 + len(var))  # at the mask's value


def test_a_level_zero_sub_device_mask_is_unknown_never_a_clash(scratch_git):
    scratch_git.write("disagg.sh", _script("ZE_AFFINITY_MASK=0.1", "ZE_AFFINITY_MASK=0.1"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == []
    scratch_git.write("disagg.sh", _script("ZE_AFFINITY_MASK=0.1", "ZE_AFFINITY_MASK=0.0"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == []


def test_masks_of_two_accelerators_are_not_compared(scratch_git):
    scratch_git.write("disagg.sh", _script("HABANA_VISIBLE_DEVICES=0", "CUDA_VISIBLE_DEVICES=0"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == []


def test_two_masks_that_disagree_on_one_launch_are_unknown(scratch_git):
    scratch_git.write("disagg.sh", _script("HIP_VISIBLE_DEVICES=0 ROCR_VISIBLE_DEVICES=1", "HIP_VISIBLE_DEVICES=0"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == []


def test_an_unpinned_launch_beside_a_gaudi_pinned_one_names_the_mask(scratch_git):
    scratch_git.write("disagg.sh", _script("", "HABANA_VISIBLE_DEVICES=1"))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == ["PD152"]
    assert "sets no HABANA_VISIBLE_DEVICES" in out["findings"][0]["message"]


def test_too_few_devices_in_a_rocm_mask(scratch_git):
    scratch_git.write("disagg.sh", _script("HIP_VISIBLE_DEVICES=1", "HIP_VISIBLE_DEVICES=0", decode_tp=2))
    code, out = scratch_git.lint("disagg.sh")
    assert _codes(out) == ["PD153"]
    assert "makes 1 GPU visible (HIP_VISIBLE_DEVICES=0) but uses 2" in out["findings"][0]["message"]


def test_a_mask_of_non_ascii_digits_is_not_a_device_number(scratch_git):
    scratch_git.write("disagg.sh", _script("CUDA_VISIBLE_DEVICES=\u00b2", "CUDA_VISIBLE_DEVICES=\u00b2"))
    code, out = scratch_git.lint("disagg.sh")
    assert "PD013" not in _codes(out) and "PD151" not in _codes(out)


@pytest.mark.parametrize("var", ["ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"])
def test_too_few_visible_devices_names_the_mask_the_launch_uses(scratch_git, var):
    # (shengyan-chen/lmcache-ascend-deploy, field test rw23/a: the help said CUDA_VISIBLE_DEVICES on an Ascend launch)
    scratch_git.write("disagg.sh", _script(f"{var}=0", f"{var}=1,2", decode_tp=4))
    code, out = scratch_git.lint("disagg.sh")
    [f] = [f for f in out["findings"] if f["code"] == "PD153"]
    assert f["fix"].startswith(f"List as many devices in `{var}`")
