"""Every engine rule fires on its firing examples and stays quiet on its quiet
ones.  Quiet examples are launches SGLang accepts (the conformance suite checks
that against SGLang itself), so on them pdlint must report no error at all."""

import pytest

from pdlint.engines.sglang.judge import example_argv, judge
from pdlint.rules import all_rules

CASES = []
for rule in sorted(all_rules().values(), key=lambda r: r.code):
    for i, e in enumerate(rule.examples):
        CASES.append(pytest.param(rule.code, e, id=f"{rule.code}-{'fire' if e.fires else 'quiet'}-{i}"))


def test_every_engine_rule_has_both_kinds_of_example():
    for rule in all_rules().values():
        if rule.check is None:
            continue
        assert any(e.fires for e in rule.examples), rule.code
        assert any(not e.fires for e in rule.examples), rule.code


@pytest.mark.parametrize("code,example", CASES)
def test_rule_example(code, example):
    # judged against the release the example names, else the newest the rule applies to (a check older
    # releases only had: theirs)
    versions = all_rules()[code].version_list()
    release = getattr(example, "version", "") or (versions[0] if versions else None)
    j = judge(example_argv(example.argv), dict(example.env), release)
    if example.fires:
        assert code in j.codes, (example.argv, j.codes, j.messages)
        if all_rules()[code].severity == "error":
            assert j.reject
    else:
        assert code not in j.codes, (example.argv, j.messages)
        assert not j.reject, (example.argv, j.errors, j.messages)
