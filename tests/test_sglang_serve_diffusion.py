"""`sglang serve` of a diffusion model runs SGLang's diffusion server (SGLang 0.5.23 sglang/cli/serve.py), whose
flags are not the LLM server's: GoogleCloudPlatform/accelerated-platforms' FLUX.2 overlays (`--backend=sglang`,
`--num-gpus`) were SGL001 errors (field test rw12/d). pdlint does not check those flags and says so."""

import pytest


@pytest.mark.parametrize("args", [
    "/gcs/black-forest-labs/flux.2-klein-4b --backend=sglang --num-gpus=2",
    "--model-path Wan-AI/Wan2.2-T2V-A14B-Diffusers --num-gpus 4",
    "--model-type diffusion --model-path /models/my-pipeline --num-gpus 4",
    # a model pdlint does not know by name, with the diffusion server's own options (MiniMax-H3, field test rw13/e)
    "--model-path /models/MiniMax-H3 --model-variant fl2va --ulysses-degree 8 --tp-size 1",
])
def test_a_diffusion_model_is_not_checked_as_an_llm_server(scratch_git, args):
    scratch_git.write("run.sh", f"sglang serve {args} --port 3000\n")
    code, report = scratch_git.lint("run.sh")
    assert report["launches"] == []
    (f,) = report["findings"]
    assert f["code"] == "PD020" and "runs SGLang's diffusion server" in f["message"]


@pytest.mark.parametrize("args", ["Qwen/Qwen3-8B --backend=sglang", "--model-type llm --model-path flux-chat --backend x"])
def test_an_llm_is(scratch_git, args):
    scratch_git.write("run.sh", f"sglang serve {args} --port 3000\n")
    code, report = scratch_git.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL001"] and len(report["launches"]) == 1
