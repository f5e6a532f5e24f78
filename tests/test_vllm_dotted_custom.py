"""vLLM's dotted arguments on options whose converter reads JSON text but is no plain JSON type
(SemiAnalysisAI/InferenceX's serve_glm5_sbatch.sh: `--speculative-config.method mtp`, whose type in vLLM
0.33.0 is `optional_type(json.loads)`): FlexibleArgumentParser merges them into the option's JSON value."""

import pytest

SERVE = "#!/bin/bash\nvllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 {args}\n"


@pytest.mark.parametrize("args", [
    "--speculative-config.method mtp --speculative-config.num_speculative_tokens 1",
    "--default-chat-template-kwargs.enable_thinking false",  # json.loads
    "--kv-transfer-config.kv_connector NixlConnector --kv-transfer-config.kv_role kv_both",
    # vllm-project/recipes (field test rw13/f): a str option (argparse passes the merged JSON text as is), a
    # short option's dotted form, and `-O3` (FlexibleArgumentParser: `--optimization-level 3`)
    "--limit-mm-per-prompt.video 0 --limit-mm-per-prompt.image 2",
    "-cc.use_inductor_graph_partition=true -cc.pass_config.fuse_rope_kvcache=true",
    "-O3",
    "-O=2",
])
def test_dotted_arguments_of_json_reading_options_are_accepted(scratch_git, args):
    scratch_git.write("serve.sh", SERVE.format(args=args))
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("args", [
    "--max-model-len.x 1",  # an int option: the JSON text is no int
    "--enable-prefix-caching.x 1",  # a switch
    "--no-such-config.method mtp",
    "-zz.x 1",  # no such short option
])
def test_dotted_arguments_of_other_options_are_still_unknown(scratch_git, args):
    scratch_git.write("serve.sh", SERVE.format(args=args))
    code, report = scratch_git.lint("serve.sh")
    assert {f["code"] for f in report["findings"]} == {"VLLM018"} and code == 1


def test_O_before_vllm_0_12_is_the_compilation_config(scratch_git):
    # vLLM 0.11.0: `-O` is the compilation config's short option; FlexibleArgumentParser reads `-O3` as `-O 3`
    scratch_git.write("serve.sh", "#!/bin/bash\ndocker run vllm/vllm-openai:v0.11.0 --model m -O3\n")
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0
