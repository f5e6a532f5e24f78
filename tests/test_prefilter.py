"""The rule prefilter (pdlint/engines/sglang/prefilter.py) never changes a verdict:
every rule example, with several model paths, judged with and without it."""

import shlex

import pytest

from pdlint.engines.sglang import prefilter
from pdlint.engines.sglang.judge import example_argv, judge
from pdlint.rules import all_rules

MODELS = ["@TINY@", "/models/Qwen3-8B", "deepseek-ai/DeepSeek-R1", "s3://bucket/model", "dummy", "a:b"]


def cases():
    for rule in sorted(all_rules().values(), key=lambda r: r.code):
        for e in rule.examples:
            words = shlex.split(example_argv(e.argv))
            yield rule.code, words, dict(e.env), getattr(e, "version", "") or None


@pytest.mark.parametrize("model", MODELS)
def test_prefilter_changes_no_verdict(model, monkeypatch):
    seen = 0
    for code, words, env, version in cases():
        if "--model-path" in words:
            words = list(words)
            words[words.index("--model-path") + 1] = model
        fast = judge(words, env, version)
        with monkeypatch.context() as m:
            m.setattr(prefilter, "selected", lambda *a, **k: None)
            full = judge(words, env, version)
        assert sorted(fast.codes) == sorted(full.codes), (code, words)
        seen += 1
    assert seen > 1000


def test_prefilter_selects_few_rules_for_a_plain_launch():
    from pdlint.engines.sglang.engine import _codes_for, interpret, EngineContext
    from pdlint.model import Launch
    from pdlint.text import TStr
    words = "--model-path /m --tp-size 2 --disaggregation-mode decode --port 30001".split()
    launch = Launch("<t>", 1, "sglang", "python -m sglang.launch_server", "server",
                    argv=[TStr.synthetic(w, "<t>") for w in words])
    interpret(launch, EngineContext(lambda t, l: None))
    args = launch.parsed.args
    picked = prefilter.selected(args, launch.parsed.version, args.role, _codes_for(launch.parsed.version, args.role))
    assert picked is not None and len(picked) < len(_codes_for(launch.parsed.version, args.role)) / 3
