"""vLLM's dotted arguments on options whose converter reads JSON text but is no plain JSON type
(SemiAnalysisAI/InferenceX's serve_glm5_sbatch.sh: `--speculative-config.method mtp`, whose type in vLLM
0.33.0 is `optional_type(json.loads)`): FlexibleArgumentParser merges them into the option's JSON value."""

import pytest

SERVE = "#!/bin/bash\nvllm serve zai-org/GLM-5-FP8 --tensor-parallel-size 8 {args}\n"


@pytest.mark.parametrize("args", [
    "--speculative-config.method mtp --speculative-config.num_speculative_tokens 1",
    "--default-chat-template-kwargs.enable_thinking false",  # json.loads
    "--kv-transfer-config.kv_connector NixlConnector --kv-transfer-config.kv_role kv_both",
])
def test_dotted_arguments_of_json_reading_options_are_accepted(scratch_git, args):
    scratch_git.write("serve.sh", SERVE.format(args=args))
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("args", [
    "--max-model-len.x 1",  # an int option: the JSON text is no int
    "--enable-prefix-caching.x 1",  # a switch
    "--no-such-config.method mtp",
])
def test_dotted_arguments_of_other_options_are_still_unknown(scratch_git, args):
    scratch_git.write("serve.sh", SERVE.format(args=args))
    code, report = scratch_git.lint("serve.sh")
    assert {f["code"] for f in report["findings"]} == {"VLLM018"} and code == 1
