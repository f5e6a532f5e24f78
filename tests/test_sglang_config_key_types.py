"""SGLang: a `--config` key YAML reads as no string (`1: 2`) crashes SGLang's config merger (SGL021, at the key).
Field round rw28/b P10 (fix helper w13).

Ground truth, SGLang 0.5.23's oracle (`sglang_oracle.py --entry launch_server`, CPython 3.11.7): config `1: 2`
REJECT AttributeError: 'int' object has no attribute 'replace' (server_args_config_parser.py:169
_convert_config_to_args); `true: x` 'bool', `~: 2` 'NoneType', `1.5: x` 'float'.  Before: SGL001 "unrecognized
arguments: --1 2".
"""

import pytest

from test_sglang_help import findings, repo  # noqa: F401  (tests/ is on sys.path under pytest)


@pytest.mark.parametrize("key, kind", [("1", "int"), ("true", "bool"), ("~", "NoneType"), ("1.5", "float")])
def test_a_config_key_yaml_reads_as_no_string_crashes_the_merger(repo, capsys, key, kind):
    got = findings(repo, capsys, "python -m sglang.launch_server --config c.yaml --port 30000",
                   {"c.yaml": f"model-path: /m\n{key}: 2\n"})
    assert [(c, p, line, col) for c, p, line, col, _ in got] == [("SGL021", "c.yaml", 2, 1)]
    assert f"SGLang's config merger crashes on it (AttributeError: '{kind}' object has no attribute 'replace')" \
        in got[0][4]


def test_a_quoted_number_key_is_a_string_flag_name(repo, capsys):
    """Neighbour: `"1": 2` is the string key '1': the merger passes `--1 2`, argparse refuses it (SGL001)."""
    got = findings(repo, capsys, "python -m sglang.launch_server --config c.yaml --port 30000",
                   {"c.yaml": 'model-path: /m\n"1": 2\n'})
    assert [c for c, *_ in got] == ["SGL001"]
