"""VLLM033: ``--disaggregation-mode`` on a Dynamo vLLM worker whose image pins a release before 1.0.

ai-dynamo 0.5.0 and 0.9.1 ``dynamo/vllm/args.py`` define only ``--is-prefill-worker`` and parse with
``parser.parse_args()``: the option stops the worker ("unrecognized arguments"), and VLLM004's advice for the
two together ("Use only --disaggregation-mode") would keep the one option that release does not have.
"""

import pytest


def _pod(image: str, flags: str) -> str:
    args = ", ".join(f'"{w}"' for w in flags.split())
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: w\nspec:\n  containers:\n  - name: prefill\n"
            f"    image: {image}\n    command: [\"python3\", \"-m\", \"dynamo.vllm\", \"--model\", \"m\", {args}]\n")


def _codes(scratch_git, image: str, flags: str) -> list:
    scratch_git.write("w.yaml", _pod(image, flags))
    _, doc = scratch_git.lint("w.yaml")
    return sorted(f["code"] for f in doc["findings"])


@pytest.mark.parametrize("tag", ["0.5.0", "0.9.1"])
def test_the_mode_option_on_a_release_before_1_0_is_unrecognized(scratch_git, tag):
    scratch_git.write("w.yaml", _pod(f"nvcr.io/nvidia/ai-dynamo/vllm-runtime:{tag}", "--disaggregation-mode prefill"))
    code, doc = scratch_git.lint("w.yaml")
    (f,) = doc["findings"]
    assert (f["code"], f["line"], f["column"], code) == ("VLLM033", 9, 64, 1)
    assert f"Dynamo {tag}'s vLLM worker has no --disaggregation-mode" in f["message"]


@pytest.mark.parametrize("image", ["nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
                                   "nvcr.io/nvidia/ai-dynamo/vllm-runtime"])
def test_the_mode_option_on_1_0_or_an_unpinned_image_is_quiet(scratch_git, image):
    # (a 1.x prefill worker without --kv-transfer-config is VLLM026: true, and not this rule's)
    assert _codes(scratch_git, image, "--disaggregation-mode prefill") == ["VLLM026"]


def test_with_a_legacy_flag_before_1_0_the_unknown_option_is_reported_not_the_combination(scratch_git):
    got = _codes(scratch_git, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0",
                 "--is-prefill-worker --disaggregation-mode prefill")
    assert got == ["VLLM033"]


def test_with_a_legacy_flag_on_1_0_the_combination_is_still_reported(scratch_git):
    got = _codes(scratch_git, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
                 "--is-prefill-worker --disaggregation-mode prefill")
    assert "VLLM004" in got and "VLLM033" not in got


def test_both_legacy_flags_before_1_0_are_still_a_conflict(scratch_git):
    assert _codes(scratch_git, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0",
                  "--is-prefill-worker --is-decode-worker") == ["VLLM004"]
