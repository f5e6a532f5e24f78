"""VLLM018 on images whose options pdlint's tables do not describe exactly (vllm-project/aibrix).

* ``vllm/vllm-omni:v0.20.0`` runs ``vllm serve M --omni``: vLLM-Omni's plugin adds the option.
* ``.../vllm-openai:v0.7.0`` runs ``vllm serve M --enable-chunked-prefill false``: 0.7.0 declared the option
  ``action=StoreBoolean, nargs="?"`` (vllm/engine/arg_utils.py), so ``false`` is its value; judged against
  the oldest table (0.9.2), where it takes none, pdlint called ``false`` a second positional argument.
"""

import pytest


def _pod(image: str, args: str) -> str:
    words = ", ".join(f'"{w}"' for w in args.split())
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  containers:\n  - name: vllm\n"
            f"    image: {image}\n    command: [\"vllm\", \"serve\", \"/models/m\", {words}]\n")


def _codes(scratch_git, image: str, args: str) -> list:
    scratch_git.write("p.yaml", _pod(image, args))
    _, doc = scratch_git.lint("p.yaml")
    return [f["code"] for f in doc["findings"]]


def test_a_plugin_s_own_option_is_not_unknown(scratch_git):
    # vLLM-Omni's server: its own options (`--usp`, `--vae-patch-parallel-size`, ...) are in no table of
    # pdlint's, so the launch is reported as not checked (vllm-project/recipes' vllm-omni guides, field test
    # rw13/f: every such option was VLLM018), not judged
    assert _codes(scratch_git, "vllm/vllm-omni:v0.20.0", "--omni") == ["PD020"]
    assert _codes(scratch_git, "vllm/vllm-omni:v0.20.0", "--omni --usp 2 --ring 2") == ["PD020"]


def test_a_typo_on_a_plugin_image_is_still_reported(scratch_git):
    assert _codes(scratch_git, "vllm/vllm-omni:v0.20.0", "--gpu-memory-utilisation 0.9") == ["VLLM018"]


def test_the_option_is_unknown_on_plain_vllm(scratch_git):
    assert _codes(scratch_git, "vllm/vllm-openai:v0.20.0", "--omni") == ["VLLM018"]


def test_a_value_of_an_older_release_s_option_is_no_stray_argument(scratch_git):
    assert _codes(scratch_git, "registry.example.com/aibrix/vllm-openai:v0.7.0",
                  "--enable-chunked-prefill false") == []


@pytest.mark.parametrize("image", ["vllm/vllm-openai:v0.9.2", "vllm/vllm-openai:v0.20.0"])
def test_a_stray_word_is_still_reported_when_the_release_has_its_table(scratch_git, image):
    assert _codes(scratch_git, image, "--enable-chunked-prefill false") == ["VLLM018"]


def test_the_values_of_another_release_s_list_option_are_its_own(scratch_git):
    """Duyi-Wang/rllm's MI300X scripts (field test rw15/j), unpinned: `--cuda-graph-sizes 1 2 4 8` (nargs "+" in
    0.9.2-0.11.0, gone since) gave VLLM020 and a VLLM018 'stray positional' per value."""
    assert _codes(scratch_git, "vllm/vllm-openai", "--cuda-graph-sizes 1 2 4 8 --max-model-len 4096") == ["VLLM020"]
    # a stray word after it on a release that takes one value is still one
    assert _codes(scratch_git, "vllm/vllm-openai", "--max-model-len 4096 8192") == ["VLLM018"]
