"""VLLM039: `--switch=VALUE` for a vLLM option that takes no value.

Field test rw23/b (differential test against vLLM 0.33.0's parser, repro/1; base launches from
vllm-project/vllm-ascend's Nixl PD examples): `--enable-prefix-caching=True` passed without a word.  Oracle
verdicts (scripts/vllm_oracle.py --batch, vLLM 0.33.0):

* `--enable-prefix-caching=True`   REJECT "argument --enable-prefix-caching/--disable-prefix-caching: ignored
  explicit argument 'True'"
* `--no-enable-prefix-caching=1`   REJECT (same name, '1')
* `--enforce-eager=1`              REJECT "argument --enforce-eager/--no-enforce-eager: ignored explicit argument '1'"
* `--headless=1`                   REJECT "argument --headless: ignored explicit argument '1'"
* `--enable-prefix-caching`, `--no-enable-prefix-caching`, `--enforce-eager` ACCEPT
"""


def _found(scratch_git, line: str) -> list:
    scratch_git.write("serve.sh", line + "\n")
    _, report = scratch_git.lint("serve.sh")
    return [(f["column"], f["message"], f["help"] if "help" in f else None) for f in report["findings"]
            if f["code"] == "VLLM039"]


def test_a_value_given_to_a_switch_is_an_error_with_argparses_message(scratch_git):
    found = _found(scratch_git, "vllm serve Qwen/Qwen3-8B --enable-prefix-caching=True --enforce-eager=false "
                                "--headless=1")
    assert [(c, m) for c, m, _ in found] == [
        (26, "argument --enable-prefix-caching/--disable-prefix-caching: ignored explicit argument 'True' "
             "(vLLM 0.33.0: --enable-prefix-caching takes no value)"),
        (55, "argument --enforce-eager/--no-enforce-eager: ignored explicit argument 'false' "
             "(vLLM 0.33.0: --enforce-eager takes no value)"),
        (77, "argument --headless: ignored explicit argument '1' (vLLM 0.33.0: --headless takes no value)"),
    ]


def test_switches_written_alone_and_options_taking_values_are_quiet(scratch_git):
    assert _found(scratch_git, "vllm serve Qwen/Qwen3-8B --enable-prefix-caching --no-enable-prefix-caching "
                               "--enforce-eager --max-num-seqs=8 --kv-transfer-config.kv_role=kv_both") == []
