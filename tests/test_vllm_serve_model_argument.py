"""VLLM049: `vllm serve`'s model given twice (positional and `--model`), or missing with `--served-model-name`.

Field round rw28/b (differential test against vLLM 0.33.0), P7.  FlexibleArgumentParser.parse_args's `serve` branch
(vllm/utils/argparse_utils.py) moves the first `--model X` / `--model=X` to the front as the positional model, and
refuses `--served-model-name` when the first word is an option and there is no `--config`.  Verdicts from the `vllm
serve` parser (gen/vllm_serve_show.py: make_arg_parser on the `serve` sub-parser, parse_args(["serve", ...])):

* `/m --port 8100 --model /m`                  REJECT "unrecognized arguments: /m"
* `--port 8100 --model=/m /x`                  REJECT "unrecognized arguments: /x"
* `--port 8100 --served_model_name=a`          REJECT ValueError "`model` should be provided as the first positional
  argument when using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`."
* `--model /m --port 8100 --served-model-name a`, `/m --port 8100 --served-model-name a`, `/m --model=`  ACCEPT
"""

import pytest


def _found(scratch_git, script: str, *args) -> list:
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint(*args, "serve.sh")
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == "VLLM049"]


def test_a_positional_model_and_model_option_is_a_second_positional(scratch_git):
    found = _found(scratch_git, "vllm serve /models/llama --port 8100 --model /models/llama\n"
                                "vllm serve --port 8200 --model=/models/llama /models/other\n", "--vllm-version", "0.33.0")
    assert found == [
        (1, 12, "unrecognized arguments: /models/llama (vllm serve moves --model's value to the front as the model, "
                "so this positional model is a second one; give the model once)"),
        (2, 46, "unrecognized arguments: /models/other (vllm serve moves --model's value to the front as the model, "
                "so this positional model is a second one; give the model once)"),
    ]


def test_a_served_model_name_without_a_model_is_vllms_value_error(scratch_git):
    """(No release pinned: judged against the newest table, 0.33.0.)"""
    assert _found(scratch_git, "vllm serve --port 8200 --served_model_name=llama\n") == [
        (1, 24, "`model` should be provided as the first positional argument when using `vllm serve`. i.e. `vllm "
                "serve <model> --<arg> <value>`. (ValueError: vLLM stops before it starts; --served-model-name only "
                "names the model the server loads)"),
    ]


@pytest.mark.parametrize("args", [
    "--model /m --port 8100 --served-model-name a",
    "/m --port 8100 --served-model-name a",
    "/m --model=",
    "--port 8100 --served-model-name a --config c.yaml",
])
def test_one_model_is_quiet(scratch_git, args):
    scratch_git.write("c.yaml", "model: /m\n")
    assert _found(scratch_git, f"vllm serve {args}\n", "--vllm-version", "0.33.0") == []


def test_older_releases_are_not_judged(scratch_git):
    """Releases before 0.33.0 treated `--model` otherwise (not verified against their parsers)."""
    assert _found(scratch_git, "vllm serve /m --port 8100 --model /m\n", "--vllm-version", "0.20.0") == []


def test_the_api_server_module_takes_model_as_an_option(scratch_git):
    assert _found(scratch_git, "python -m vllm.entrypoints.openai.api_server --port 8100 --served-model-name a\n",
                  "--vllm-version", "0.33.0") == []
