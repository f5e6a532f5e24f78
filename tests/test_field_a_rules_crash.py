"""Field test ai-dynamo/dynamo: a file the rules failed on (PD013) was still counted as checked ("2 launches
checked ... 0 places with launch text not checked"): its launches are not checked, and coverage says so."""

import pytest

from test_field_a_embedded import _dgd


@pytest.mark.parametrize("crash", [AttributeError, KeyError])
def test_a_file_the_rules_fail_on_is_not_counted_as_checked(scratch_git, monkeypatch, crash):
    from pdlint.engines.trtllm.rules import disagg  # noqa: F401  (registers TRT003)
    from pdlint.engines.vllm import rulebase

    def boom(*a):
        raise crash("kaboom")

    monkeypatch.setattr(rulebase.V_RULES["TRT003"], "fn", boom)
    scratch_git.write("deploy.yaml", _dgd(4))
    code, out = scratch_git.lint("deploy.yaml")
    assert code == 1 and [f["code"] for f in out["findings"]] == ["PD013"]
    fc = out["coverage"]["files"]["deploy.yaml"]
    assert fc["status"] == "error" and fc["launches"] == 0
    assert out["coverage"]["launches"] == 0 and out["coverage"]["unchecked"] == 2
    assert all("pdlint failed on this file (PD013" in s["reason"] for s in fc["unchecked"])
