"""srtctl recipes: ``model.path: "hf:ID"`` is the model the servers load, so rules that know model families see it.

Field test: NVIDIA/srt-slurm DeepSeek-R1 recipes (``attention-backend: trtllm_mla``, attention TP 1 on the prefill
with DP attention, 8 on the decode): SGL815 warned about "non-MLA models" because the launch had no model path."""

import pytest

RECIPE = """\
    name: "pd"
    model:
      path: "{path}"
      container: "lmsysorg/sglang:v0.5.8-cu130"
      precision: "fp8"
    resources:
      gpu_type: "b200"
      prefill_nodes: 1
      prefill_workers: 1
      decode_nodes: 1
      decode_workers: 1
      gpus_per_node: 8
    backend:
      type: sglang
      sglang_config:
        prefill:
          tensor-parallel-size: 8
          data-parallel-size: 8
          enable-dp-attention: true
        decode:
          tensor-parallel-size: 8
    """


def codes(scratch_git, path: str) -> list:
    scratch_git.write("recipe.yaml", RECIPE.format(path=path))
    _, report = scratch_git.lint("recipe.yaml")
    return [f["code"] for f in report["findings"]]


def test_an_mla_model_by_its_hugging_face_id_is_quiet(scratch_git):
    assert "SGL815" not in codes(scratch_git, "hf:deepseek-ai/DeepSeek-R1")


@pytest.mark.parametrize("path", ["hf:Qwen/Qwen3-8B", "dsr1"])  # a non-MLA model; an alias pdlint cannot resolve
def test_other_models_and_aliases_still_warn(scratch_git, path):
    assert "SGL815" in codes(scratch_git, path)


def test_the_model_path_traces_to_the_recipe_line(scratch_git):
    scratch_git.write("recipe.yaml", RECIPE.format(path="hf:deepseek-ai/DeepSeek-R1"))
    _, report = scratch_git.lint("recipe.yaml")
    for launch in report["launches"]:
        i = launch["argv"].index("--model-path")
        o = launch["origins"][i + 1]
        assert (launch["argv"][i + 1], o["line"], o["column"]) == ("deepseek-ai/DeepSeek-R1", 3, 13)
