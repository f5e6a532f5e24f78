"""VLLM048: a vLLM option that takes a value, written without one.

Field round rw28/b (differential test against vLLM 0.33.0's parser), P4: `--kv-transfer-config` at the end of the
line and `--served-model-name` before `&` passed with "0 errors".  Oracle verdicts (scripts/vllm_oracle.py --batch,
vLLM 0.33.0, CPython 3.11.7):

* `--kv-transfer-config` (last word)        REJECT "argument --kv-transfer-config: expected one argument"
* `--served-model-name --port 8100`         REJECT "argument --served-model-name: expected at least one argument"
* `--api-key -secret`                       REJECT "argument --api-key: expected at least one argument"
* `--max-model-len -1e3`                    REJECT "argument --max-model-len: expected one argument"
* `-tp` / `--tensor-parallel` (last word)   REJECT "argument --tensor-parallel-size/-tp: expected one argument"
* `--seed -1`                               ACCEPT (a negative number is a value)
* `--served-model-name '-llama 8b'`         ACCEPT (a word with a space is a value)
* `--api-key=-secret`                       ACCEPT
"""

import pytest


def _found(scratch_git, script: str, code: str = "VLLM048", *args) -> list:
    scratch_git.write("serve.sh", script)
    _, report = scratch_git.lint("--vllm-version", "0.33.0", *args, "serve.sh")
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == code]


def test_an_option_at_the_end_or_before_another_option_is_missing_its_value(scratch_git):
    found = _found(scratch_git, """\
        vllm serve /models/llama --port 8100 --kv-transfer-config &
        vllm serve /models/llama --port 8200 --served-model-name --enforce-eager &
        vllm serve /models/llama --port 8300 -tp
        """)
    assert found == [
        (1, 38, "argument --kv-transfer-config: expected one argument (nothing follows it; vLLM 0.33.0 stops before "
                "it starts)"),
        (2, 38, "argument --served-model-name: expected at least one argument (the next word, --enforce-eager, is "
                "an option; vLLM 0.33.0 stops before it starts)"),
        (3, 38, "argument --tensor-parallel-size/-tp: expected one argument (nothing follows it; vLLM 0.33.0 stops "
                "before it starts)"),
    ]


def test_a_value_starting_with_a_dash_is_named_not_reported_unknown(scratch_git):
    script = "vllm serve /models/llama --api-key -secret --max-model-len -1e3\n"
    assert _found(scratch_git, script) == [
        (1, 26, "argument --api-key: expected at least one argument (the next word, -secret, starts with '-', so "
                "argparse reads it as an option; if it is the value, write --api-key=-secret; vLLM 0.33.0 stops "
                "before it starts)"),
        (1, 44, "argument --max-model-len: expected one argument (the next word, -1e3, starts with '-', so argparse "
                "reads it as an option; if it is the value, write --max-model-len=-1e3; vLLM 0.33.0 stops before it "
                "starts)"),
    ]
    assert _found(scratch_git, script, "VLLM018") == []


@pytest.mark.parametrize("args", [
    "--seed -1", "--api-key=-secret", "--served-model-name a b --enforce-eager", "--enforce-eager --port 8100",
    "--kv-transfer-config=",
])
def test_values_and_switches_are_quiet(scratch_git, args):
    assert _found(scratch_git, f"vllm serve /models/llama {args}\n") == []


def test_a_word_with_a_space_is_a_value(scratch_git):
    """(A Kubernetes `args:` item "-llama 8b" is split by pdlint's list reader, PD050: field round rw28/b P8, left to
    that item.)"""
    assert _found(scratch_git, "vllm serve /models/llama --served-model-name '-llama 8b' --port 8100\n") == []
    assert _found(scratch_git, "vllm serve /models/llama --served-model-name '-llama 8b' --port 8100\n", "VLLM018") == []


def test_an_ambiguous_next_word_is_the_ambiguous_option_only(scratch_git):
    """`--served-model-name -a`: vLLM 0.33.0 "ambiguous option: -a could match -asc, -ac" (argparse classifies every
    word before it consumes values)."""
    script = "vllm serve /models/llama --served-model-name -a\n"
    assert _found(scratch_git, script) == []
    assert [m for _, _, m in _found(scratch_git, script, "VLLM018")] == [
        "ambiguous option: -a could match -asc, -ac (vLLM 0.33.0)"]


def test_a_word_with_a_space_that_starts_with_a_short_option_is_that_option(scratch_git):
    """Field report rw29/h P10: CPython 3.11's `_parse_optional` matches a single-dash word's first two characters
    against the short options (`_get_option_tuples`) before its "a word with a space is a value" rule, so `"-q fp8"`
    is -q with " fp8". vLLM 0.33.0 oracle: `m --served-model-name "-q fp8"` (and "-qfp8 x", "-q=fp8 x") REJECT
    "argument --served-model-name: expected at least one argument"; "-tp 2", "-e x", "-pp 2", "-tpx 2" ACCEPT (no
    short option is their first two characters); `--served-model-name a "-q fp8"` ACCEPT (a name, then -q).
    SGLang 0.5.23 has no short option but -h: `--served-model-name "-q fp8"` ACCEPT there (its oracle)."""
    for word in ("-q fp8", "-qfp8 x", "-q=fp8 x"):
        assert _found(scratch_git, f"vllm serve /models/llama --served-model-name '{word}'\n") == [
            (1, 26, f"argument --served-model-name: expected at least one argument (the next word, {word!r}, starts "
                    f"with a short option, so argparse reads it as that option; if it is the value, write "
                    f"--served-model-name={word!r}; vLLM 0.33.0 stops before it starts)")]
    scratch_git.write("dep.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: v}
        spec:
          template:
            spec:
              containers:
              - name: vllm
                image: vllm/vllm-openai:v0.33.0
                command: [vllm, serve, m]
                args:
                - --served-model-name
                - "-q fp8"
        """)
    _, report = scratch_git.lint("dep.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM048", 12)]


@pytest.mark.parametrize("word", ["-tp 2", "-e x", "-pp 2", "-tpx 2"])
def test_a_word_with_a_space_that_no_short_option_starts_is_a_value(scratch_git, word):
    assert _found(scratch_git, f"vllm serve /models/llama --served-model-name '{word}'\n") == []
    assert _found(scratch_git, "vllm serve /models/llama --served-model-name a '-q fp8'\n") == []
    scratch_git.write("serve.sh", f"python -m sglang.launch_server --model-path m --served-model-name '-q fp8'\n")
    _, report = scratch_git.lint("serve.sh")
    assert report["findings"] == []
