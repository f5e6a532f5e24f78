"""`--reasoning-parser` choices in vLLM 0.9.2-0.11.0 (differential test rw26/b item 7: `--reasoning-parser glm45`
pinned 0.9.2 passed pdlint silently; the release's parser refuses it).

In those releases `--reasoning-parser` has `choices=list(ReasoningParserManager.reasoning_parsers)` (vllm/engine/
arg_utils.py), the parsers the modules vllm/reasoning/__init__.py imports register; scripts/gen_vllm_flags.py now
records them in registration order.  From 0.12 the option takes any name.

Verdicts of each release's own parser (old-release oracle: make_arg_parser of the release's wheel, `parse_args`):
* 0.9.2  `--model m --reasoning-parser glm45`  REJECT argument --reasoning-parser: invalid choice: 'glm45' (choose
  from 'deepseek_r1', 'granite', 'qwen3')
* 0.10.1 `m --reasoning-parser glm45x` REJECT invalid choice: 'glm45x' (choose from 'deepseek_r1', 'glm45', 'GptOss',
  'granite', 'hunyuan_a13b', 'mistral', 'qwen3', 'step3'); `glm45`, `qwen3` ACCEPT
* 0.11.0 `m --reasoning-parser glm45x` REJECT invalid choice: 'glm45x' (choose from 'deepseek_r1', 'glm45',
  'openai_gptoss', 'granite', 'hunyuan_a13b', 'mistral', 'qwen3', 'seed_oss', 'step3'); `glm45` ACCEPT
* 0.12.0 and 0.14.0 `m --reasoning-parser glm45x` ACCEPT
"""

import pytest

from pdlint.engines.vllm import flags


def _found(scratch, release: str, args: str) -> list:
    scratch.write("serve.sh", f"vllm serve Qwen/Qwen3-8B {args}\n")
    _, report = scratch.lint("--vllm-version", release, "serve.sh")
    return [(f["code"], f["message"]) for f in report["findings"]]


def test_the_tables_record_the_registered_parsers_in_argparse_order():
    choices = {v: flags.load(v).lookup("--reasoning-parser").choices for v in ("0.9.2", "0.10.1", "0.11.0", "0.13.0")}
    assert choices["0.9.2"] == ("deepseek_r1", "granite", "qwen3")
    assert choices["0.10.1"] == ("deepseek_r1", "glm45", "GptOss", "granite", "hunyuan_a13b", "mistral", "qwen3",
                                 "step3")
    assert choices["0.11.0"][-2:] == ("seed_oss", "step3") and choices["0.13.0"] is None


def test_a_parser_the_release_does_not_register_is_refused(scratch):
    assert _found(scratch, "0.9.2", "--reasoning-parser glm45") == [
        ("VLLM019", "argument --reasoning-parser: invalid choice: 'glm45' (choose from 'deepseek_r1', 'granite', "
                    "'qwen3') [vLLM 0.9.2; a choice in vLLM 0.10.1-0.11.0]")]
    assert _found(scratch, "0.11.0", "--reasoning-parser glm45x") == [
        ("VLLM019", "argument --reasoning-parser: invalid choice: 'glm45x' (choose from 'deepseek_r1', 'glm45', "
                    "'openai_gptoss', 'granite', 'hunyuan_a13b', 'mistral', 'qwen3', 'seed_oss', 'step3') "
                    "[vLLM 0.11.0]")]


@pytest.mark.parametrize("release,name", [("0.9.2", "qwen3"), ("0.10.1", "GptOss"), ("0.11.0", "glm45"),
                                          ("0.11.0", "seed_oss")])
def test_a_registered_parser_is_quiet(scratch, release, name):
    assert _found(scratch, release, f"--reasoning-parser {name}") == []


@pytest.mark.parametrize("release", ["0.12.0", "0.14.0", "0.15.0", "0.33.0"])
def test_releases_that_take_any_name_stay_quiet(scratch, release):
    # 0.12.0 lies between 0.11.0 (choices) and 0.13.0 (any name): glm45x is no near miss to report there
    assert _found(scratch, release, "--reasoning-parser glm45x") == []


def test_a_plugin_file_may_register_the_parser(scratch):
    # the plugin option came in 0.13.0: on 0.11.0 it is itself refused (VLLM018), the parser name is not judged
    assert [c for c, _ in _found(scratch, "0.11.0", "--reasoning-parser my_parser --reasoning-parser-plugin p.py")] \
        == ["VLLM018"]
