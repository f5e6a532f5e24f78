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


def _picked_codes(words: list) -> set:
    from pdlint.engines.sglang.engine import _codes_for, interpret, EngineContext
    from pdlint.model import Launch
    from pdlint.text import TStr
    launch = Launch("<t>", 1, "sglang", "python -m sglang.launch_server", "server",
                    argv=[TStr.synthetic(w, "<t>") for w in words])
    interpret(launch, EngineContext(lambda t, l: None))
    args = launch.parsed.args
    codes = _codes_for(launch.parsed.version, args.role)
    picked = prefilter.selected(args, launch.parsed.version, args.role, codes)
    assert picked is not None
    return {codes[i] for i in picked}


# the elastic EP scale-up rules (SGL256, SGL263, SGL268, SGL273) and the shared-experts divisor (SGL275)
# read a size only once a backend (or --shared-experts-tp-size) is set: a launch that sets only sizes
# does not evaluate them; with the backend it does
SIZE_ONLY_SKIPPED = {"SGL256", "SGL263", "SGL268", "SGL273", "SGL275"}


def test_rules_that_need_a_backend_first_are_skipped_on_size_only_launches():
    words = "--model-path /m --tp-size 4 --disaggregation-mode decode".split()
    assert not SIZE_ONLY_SKIPPED & _picked_codes(words)
    elastic = words + "--elastic-ep-backend mooncake --max-ep-size 8 --shared-experts-tp-size 2".split()
    assert SIZE_ONLY_SKIPPED <= _picked_codes(elastic)
