"""A finding about a whole launch (a pair rule, VLLM015's environment) points at the launch's line, and was at
column 1: on an indented line (an `if` body, a command in a YAML block scalar) the caret stood under blanks (field
test rw27/a, LMCache's 1p1d-lws.yaml:75:1).  It is the line's first character now, for the related places too."""

SCRIPT = """\
#!/bin/bash
if [[ $1 == "prefiller" ]]; then
    UCX_TLS=cuda_ipc,cuda_copy,tcp \\
        vllm serve Qwen/Qwen2.5-0.5B --port 8100 \\
        --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer"}'
else
    UCX_TLS=cuda_ipc,cuda_copy,tcp \\
        vllm serve Qwen/Qwen2.5-0.5B --port 8200 \\
        --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}'
fi
"""


def test_a_launch_finding_points_at_the_lines_text(scratch):
    scratch.write("pd.sh", SCRIPT)
    _, report = scratch.lint("pd.sh")
    f = [f for f in report["findings"] if f["code"] == "VLLM015"][0]
    assert (f["line"], f["column"]) == (7, 5)
    assert [(r["line"], r["column"]) for r in f["related"]] == [(3, 5)]


def test_an_unindented_launch_keeps_column_1(scratch):
    scratch.write("pd.sh", "\n".join(line.strip() for line in SCRIPT.splitlines()) + "\n")
    _, report = scratch.lint("pd.sh")
    f = [f for f in report["findings"] if f["code"] == "VLLM015"][0]
    assert (f["line"], f["column"]) == (7, 1)
    assert [(r["line"], r["column"]) for r in f["related"]] == [(3, 1)]
