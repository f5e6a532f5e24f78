"""Compose interpolates unquoted and double-quoted `.env` values (docs.docker.com/compose/env-file), from the lines
above and the environment of `docker compose`; single-quoted values are literal.  Hostile-input round rw27/h P19:
`TP=${OTHER:-2}` and `A=2` / `TP=$A` were taken as written, a false SGL005 at the `.env` line."""

import pytest

COMPOSE = """\
services:
  prefill:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --tp-size ${TP}
"""


@pytest.mark.parametrize("env", ["TP=${OTHER:-2}\n", "A=2\nTP=$A\n", 'A=2\nTP="${A}"\n', "TP=2 # two GPUs\n"])
def test_dotenv_values_are_interpolated(scratch, env):
    scratch.write("compose.yaml", COMPOSE)
    scratch.write(".env", env)
    code, report = scratch.lint(".")
    assert (code, report["findings"]) == (0, [])
    assert "2" in report["launches"][0]["argv"]


@pytest.mark.parametrize("env,bad", [("TP='${A}'\n", "${A}"), ("A=x\nTP=$A\n", "x")])
def test_a_literal_or_a_bad_value_is_still_checked(scratch, env, bad):
    scratch.write("compose.yaml", COMPOSE)
    scratch.write(".env", env)
    _, report = scratch.lint(".")
    assert [f["code"] for f in report["findings"]] == ["SGL005"]
    assert repr(bad) in report["findings"][0]["message"]
