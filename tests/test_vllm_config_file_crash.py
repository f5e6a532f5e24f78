"""VLLM051: a vLLM `--config` file that is empty, not a mapping, or has a key YAML reads as no string.

Field round rw28/b P10 (fix helper w13).  vLLM 0.33.0's FlexibleArgumentParser._pull_args_from_config
(scripts/vllm_oracle.py --pull, `vllm serve` and the api_server alike):

* empty file, a file of comments only, `~`   AttributeError: 'NoneType' object has no attribute 'items'
* `- a\\n- b`                                  AttributeError: 'list' object has no attribute 'items'
* `just a string`                             AttributeError: 'str' object has no attribute 'items'
* `1: 2`                                      TypeError: can only concatenate str (not "int") to str
* `port: 8100`                                pulled ['M', '--port', '8100']

Before: PD022 "could not be read as vLLM reads it ... not checked" (a warning) for the first ones, and nothing
for `1: 2` (read as `--1 2`).
"""

import pytest


def _run(scratch_git, files: dict, script: str) -> dict:
    for name, text in files.items():
        scratch_git.write(name, text)
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint("--vllm-version", "0.33.0", "serve.sh")
    return report


def _errors(report) -> list:
    return [(f["code"], f["path"], f["line"], f["column"], f["message"]) for f in report["findings"]
            if f["severity"] == "error" or f["code"] == "PD022"]


@pytest.mark.parametrize("text", ["", "# nothing here\n", "~\n"])
def test_an_empty_config_file_is_vllm051_at_the_path(scratch_git, text):
    report = _run(scratch_git, {"serve.yaml": text}, "vllm serve /models/a --port 8100 --config serve.yaml\n")
    [(code, path, line, col, msg)] = _errors(report)
    assert (code, path, line, col) == ("VLLM051", "serve.sh", 1, 43)
    assert msg == ("serve.yaml holds no YAML mapping (empty: yaml.safe_load reads None), and vLLM crashes reading it: "
                   "AttributeError: 'NoneType' object has no attribute 'items'; vLLM stops before it starts")


@pytest.mark.parametrize("text, kind, what", [("- a\n- b\n", "list", "list"), ("just a string\n", "str", "scalar")])
def test_a_list_or_scalar_config_file_is_vllm051_in_the_file(scratch_git, text, kind, what):
    report = _run(scratch_git, {"serve.yaml": text}, "vllm serve /models/a --port 8100 --config serve.yaml\n")
    [(code, path, line, col, msg)] = _errors(report)
    assert (code, path, line, col) == ("VLLM051", "serve.yaml", 1, 1)
    assert msg.startswith(f"the top level of serve.yaml is a {what}, not a mapping of flags, and vLLM crashes reading "
                          f"it: AttributeError: '{kind}' object has no attribute 'items'")


def test_an_integer_key_is_vllm051_at_the_key(scratch_git):
    report = _run(scratch_git, {"serve.yaml": "port: 8100\n1: 2\n"}, "vllm serve /models/a --config serve.yaml\n")
    [(code, path, line, col, msg)] = _errors(report)
    assert (code, path, line, col) == ("VLLM051", "serve.yaml", 2, 1)
    assert 'TypeError: can only concatenate str (not "int") to str' in msg


def test_a_mapping_config_file_is_quiet(scratch_git):
    report = _run(scratch_git, {"serve.yaml": "port: 8100\n"}, "vllm serve /models/a --config serve.yaml\n")
    assert _errors(report) == []


def test_invalid_yaml_stays_pd022(scratch_git):
    report = _run(scratch_git, {"serve.yaml": "port: [8100\n"}, "vllm serve /models/a --config serve.yaml\n")
    assert [c for c, *_ in _errors(report)] == ["PD022"]
