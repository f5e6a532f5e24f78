"""The Example / Fix commands `pdlint rule SGLxxx` shows are real commands.

Field test rw22/b (differential test against SGLang 0.5.23's oracle, problem P6): the docs of 49 SGLang rules
showed the oracle's private model placeholders (``@TINY@``, ``@TINY_MOE@``, ``@TINY_HYBRID@``), several a second
``--model-path`` after ``--model-path MODEL``, and SGL163's Fix moved the launch to decode instead of fixing the
MoRI budget.  The rule examples keep the placeholders (the conformance suite runs them through the oracle);
the docs show a real model (Qwen/Qwen3-30B-A3B for MoE, Qwen/Qwen3-Next-80B-A3B-Instruct for hybrid, DRAFT for
a speculative draft) and the quiet example that fixes the shown launch."""

import re
import shlex

import pytest

from pdlint.engines.sglang.judge import judge
from pdlint.engines.sglang.rulebase import doc_argv
from pdlint.rules import all_rules

LAUNCH = "python -m sglang.launch_server "
RULES = sorted((r for r in all_rules().values() if r.engine == "sglang" and r.examples), key=lambda r: r.code)


def _parse(text):
    """(version, env, argv words) of a one-launch doc command."""
    version = None
    lines = text.splitlines()
    if lines[0].startswith("# SGLang "):
        version = lines[0][len("# SGLang "):]
        lines = lines[1:]
    assert len(lines) == 1, text
    pre, _, argv = lines[0].partition(LAUNCH)
    env = dict(w.split("=", 1) for w in shlex.split(pre))
    return version, env, shlex.split(argv)


def _role(words):
    roles = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--disaggregation-mode"]
    return roles[-1] if roles else None


def test_no_oracle_placeholder_and_one_model_path_in_any_sglang_rule_doc():
    bad = []
    for r in all_rules().values():
        if r.engine != "sglang":
            continue
        for text in r.doc_commands():
            if "@TINY" in (text or ""):
                bad.append((r.code, "placeholder", text))
            for launch in (text or "").split(" &\n"):
                if len(re.findall(r"(^|\s)--model(-path)?[\s=]", launch)) > 1:
                    bad.append((r.code, "two --model-path", launch))
    assert not bad, bad[:5]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_doc_example_fires_and_doc_fix_is_quiet(rule):
    versions = rule.version_list()
    example, example_fixed = rule.doc_commands()
    v, env, words = _parse(example)
    j = judge(words, env, v or (versions[0] if versions else None))
    assert rule.code in j.codes, (example, j.codes)
    v, env, words = _parse(example_fixed)
    j = judge(words, env, v or (versions[0] if versions else None))
    assert rule.code not in j.codes, (example_fixed, j.messages)


def test_sgl163_fix_keeps_the_role_and_raises_the_budget():
    """SGL163's Fix used to be the same launch on decode; now it is the prefill launch with an 8192 budget
    (oracle, SGLang 0.5.23: ACCEPT)."""
    r = all_rules()["SGL163"]
    example, example_fixed = r.doc_commands()
    _, env_ex, ex_words = _parse(example)
    _, env_fix, fix_words = _parse(example_fixed)
    assert _role(ex_words) == _role(fix_words) == "prefill"
    assert env_fix["SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK"] == "8192"
    assert "Qwen/Qwen3-30B-A3B" in fix_words


def test_doc_argv_renders_placeholders_and_adds_model_only_when_missing():
    assert doc_argv("--model-path @TINY_MOE@ --tp-size 2") == "--model-path Qwen/Qwen3-30B-A3B --tp-size 2"
    assert doc_argv("--model-path @TINY_HYBRID@") == "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct"
    assert doc_argv("--speculative-algorithm EAGLE --speculative-draft-model-path @TINY@") == \
        "--model-path MODEL --speculative-algorithm EAGLE --speculative-draft-model-path DRAFT"
    # the tiny model as the served model is the dense Llama it is
    assert doc_argv("--model-path @TINY@ --tp-size 2") == "--model-path meta-llama/Llama-3.1-8B-Instruct --tp-size 2"
