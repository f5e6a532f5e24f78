"""A vLLM release pinned between two tables is judged against the nearest older table; a connector (or a
KVTransferConfig key) a newer table has may already be in the pinned release, so it is not reported as
unregistered.  A name no release registers is still a misspelling, with its did-you-mean."""

from types import SimpleNamespace

from pdlint.engines.vllm.rules import connectors

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: prefill
    image: vllm/vllm-openai:{tag}
    command: [vllm, serve, Qwen/Qwen3-8B, --kv-transfer-config, '{{"kv_connector":"{conn}","kv_role":"kv_both"}}']
"""


def _lint(scratch, tag, conn):
    scratch.write("p.yaml", POD.format(tag=tag, conn=conn))
    return scratch.lint("p.yaml")


def test_a_connector_a_newer_table_registers_is_not_reported_between_tables(scratch):
    # vLLM 0.12.0 (no table; judged against 0.11.0) has MooncakeConnector, which came in 0.12
    code, doc = _lint(scratch, "v0.12.0", "MooncakeConnector")
    assert code == 0 and doc["findings"] == []
    assert doc["launches"][0]["engine_version"] == "0.11.0"


def test_on_the_tables_own_release_it_is_reported(scratch):
    _, doc = _lint(scratch, "v0.11.0", "MooncakeConnector")
    assert [f["code"] for f in doc["findings"]] == ["VLLM031"]


def test_a_misspelling_between_tables_gets_the_did_you_mean_of_any_table(scratch):
    _, doc = _lint(scratch, "v0.12.0", "MooncakeConector")
    (f,) = doc["findings"]
    assert f["code"] == "VLLM031" and "did you mean MooncakeConnector?" in f["message"]


def test_between_tables():
    older = SimpleNamespace(approximate="older", version="0.11.0")
    assert connectors._between_tables(older, ["0.9.2", "0.20.0"])
    assert not connectors._between_tables(older, ["0.9.2"])
    assert not connectors._between_tables(SimpleNamespace(approximate=None, version="0.11.0"), ["0.20.0"])
