"""Options vLLM adds in a loop over a literal list (0.11.0's deprecated `--guided-decoding-*`: `for arg, type in
[("--guided-decoding-backend", str), ...]: group.add_argument(arg, type=type, deprecated=True)`,
vllm/engine/arg_utils.py:630-641) are in the release's table: the differential test rw25/b found pdlint's 0.11.0 table
without them, a false VLLM018 error ("is not a flag of vLLM 0.11.0") where 0.11.0's own parser ACCEPTs them."""

import pytest

SCRIPT = "vllm serve Qwen/Qwen3-8B --guided-decoding-backend xgrammar --guided-decoding-disable-fallback true\n"


@pytest.mark.parametrize("version, refused", [("0.11.0", False), ("0.33.0", True)])
def test_the_deprecated_guided_decoding_options_of_0_11_0(scratch, version, refused):
    scratch.write("serve.sh", SCRIPT)
    code, doc = scratch.lint("--vllm-version", version, ".")
    errors = [f["code"] for f in doc["findings"] if f["severity"] == "error"]
    assert bool(errors) == refused, errors


def test_the_generator_expands_a_loop_of_add_argument_calls():
    import ast
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "gen_vllm_flags.py")
    spec = importlib.util.spec_from_file_location("gen_vllm_flags", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    fn = ast.parse("def f(g):\n    for arg, t in [('--a', str), ('--b', bool)]:\n        g.add_argument(arg, type=t)\n")
    [copies] = gen._loop_calls(fn).values()
    assert [(c.args[0].value, c.keywords[0].value.id) for c in copies] == [("--a", "str"), ("--b", "bool")]


@pytest.mark.parametrize("version, argv, refused", [
    ("0.9.2", "--load-format foo", True), ("0.9.2", "--load-format fastsafetensors", False),
    ("0.9.2", "--model-impl foo", True), ("0.9.2", "--config-format foo", True),
    ("0.10.0", "--model-impl terratorch", True), ("0.10.1", "--load-format foo", False),
    ("0.10.2", "--model-impl terratorch", False), ("0.10.2", "--logprobs-mode foo", True),
    ("0.10.2", "--config-format foo", False),
])
def test_choices_from_an_enum_comprehension(scratch, version, argv, refused):
    """Differential test rw25/b P12: `choices=[f.value for f in LoadFormat]` (vLLM 0.9.2 arg_utils.py:575-589) was
    left open, so `--load-format foo` passed; each verdict here is the release's own parser's (its wheel on the
    vLLM oracle venv's path, /tmp/rw25/b/harness/vllm_old_oracle.py: "invalid choice: 'foo' (choose from ...)")."""
    scratch.write("serve.sh", f"vllm serve Qwen/Qwen3-8B {argv}\n")
    code, doc = scratch.lint("--vllm-version", version, ".")
    errors = [f["code"] for f in doc["findings"] if f["severity"] == "error"]
    assert bool(errors) == refused, errors
