"""The vLLM adapter: argv reading, the traced --kv-transfer-config JSON, roles,
and every VLLM rule firing and quiet (small scripts and manifests, and the
corpus copies in tests/data/corpus)."""

import json
import os

import pytest

from pdlint.cli import main
from pdlint.engines.vllm import tjson
from pdlint.engines.vllm.engine import parse_argv
from pdlint.extract import Options
from pdlint.lint import run
from pdlint.rules import all_rules, get
from pdlint.text import SourceFile, TStr

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "corpus")


def toks(*words):
    return [TStr.synthetic(w, "<t>") for w in words]


def kv(connector="NixlConnector", role="kv_both", **extra):
    return "'" + json.dumps({"kv_connector": connector, "kv_role": role, **extra}, separators=(",", ":")) + "'"


PROXY = {"kv_connector_extra_config": {"proxy_ip": "127.0.0.1", "proxy_port": "30001"}}


def write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def check(tmp_path, capsys, monkeypatch, files):
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", *files])
    return json.loads(capsys.readouterr().out)


def codes(doc, prefix=("VLLM", "PD15")):
    return sorted(f["code"] for f in doc["findings"] if f["code"].startswith(prefix))


# ---------------------------------------------------------------------------
# reading the command line
# ---------------------------------------------------------------------------

def test_options_underscores_equals_and_model():
    info = parse_argv(toks("Qwen/Qwen3-8B", "--trust-remote-code", "--kv_transfer_config={\"kv_role\":\"kv_producer\"}",
                           "-tp", "2", "--port", "8100"), "vllm serve")
    assert info.model.text == "Qwen/Qwen3-8B"
    assert info.kv_role == "kv_producer" and info.int("--tensor-parallel-size") == 2 and info.int("--port") == 8100
    assert info.has("--trust-remote-code") and info.value("--trust-remote-code") is None
    assert parse_argv(toks("--model", "M", "--enforce-eager"), "python -m vllm.entrypoints.openai.api_server"
                      ).model.text == "M"


def test_json_values_keep_their_position():
    src = SourceFile("s.sh", 'vllm serve M --kv-transfer-config \'{"kv_connector": "P2pNcclConnector", '
                             '"kv_role":"kv_producer","kv_connector_extra_config":{"proxy_port":"30001"}}\'\n')
    start = src.text.index("{")
    tok = TStr.from_source(src, start, src.text.index("}}") + 2)
    node = tjson.parse(tok)
    role = node.get("kv_role")
    assert role.value == "kv_producer" and role.tok.text == "kv_producer"
    assert role.tok.origin.column == src.text.index("kv_producer") + 1
    assert node.get("kv_connector_extra_config", "proxy_port").value == "30001"
    with pytest.raises(tjson.JSONError) as e:
        tjson.parse(TStr.synthetic('{"a":1,}', "<t>"))
    assert e.value.pos == 7


def test_json_spliced_by_shell_quoting_is_traced():
    res = run(["vllm-project__vllm/examples__online_serving__disaggregated_prefill.sh"], Options(cwd=DATA))
    p, d = res.launches
    assert (p.role, d.role) == ("prefill", "decode") and p.parsed.role_from == "kv_role kv_producer"
    ip = p.parsed.kv.get("kv_connector_extra_config", "proxy_ip")
    assert ip.value == "127.0.0.1" and ip.tok.origin.line == 29  # export VLLM_HOST_IP=127.0.0.1
    assert [h.note for h in ip.tok.origin.chain] == ["$VLLM_HOST_IP"] and ip.tok.origin.chain[0].line == 64
    assert p.parsed.kv.get("kv_role").tok.origin.line == 64


@pytest.mark.parametrize("argv,entry,structural,role,how", [
    (["M", "--kv-transfer-config", '{"kv_connector":"X","kv_role":"kv_consumer"}'], "vllm serve", None, "decode",
     "kv_role kv_consumer"),
    (["M", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'], "vllm serve", "prefill",
     "prefill", "structure"),
    (["M", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'], "vllm serve", None, None,
     ""),
    (["M"], "vllm serve", None, "null", "no KV connector"),
    (["--model", "M", "--is-decode-worker"], "python -m dynamo.vllm", None, "decode", "--is-decode-worker"),
    (["--model", "M", "--disaggregation-mode", "prefill"], "python -m dynamo.vllm", None, "prefill",
     "--disaggregation-mode"),
    (["--model", "M"], "python -m dynamo.vllm", None, "null", "Dynamo's default (aggregated)"),
])
def test_roles(argv, entry, structural, role, how):
    from pdlint.engines.vllm.engine import interpret
    from pdlint.model import Launch
    l = Launch(path="x", line=1, engine="vllm", entrypoint=entry, kind="server", argv=toks(*argv),
               structural_role=structural)
    interpret(l, None)
    assert (l.role, l.parsed.role_from) == (role, how)


# ---------------------------------------------------------------------------
# the rules
# ---------------------------------------------------------------------------

VS = "vllm serve Qwen/Qwen3-8B"
CASES = [
    ("VLLM001", {"a.sh": f"{VS} --kv-transfer-config '{{\"kv_connector\":\"NixlConnector\",\"kv_role\":kv_both}}'\n"},
     {"a.sh": f"{VS} --kv-transfer-config {kv()}\n"}),
    ("VLLM002", {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config "
                         f"{kv(role='kv_producer')}\n"},
     {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config {kv()}\n"}),
    ("VLLM003", {"a.sh": "python3 -m dynamo.vllm --model M --is-prefill-worker\n"},
     {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config {kv()}\n"}),
    ("VLLM004", {"a.sh": "python3 -m dynamo.vllm --model M --is-prefill-worker --disaggregation-mode prefill\n"},
     {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config {kv()}\n"}),
    ("VLLM004", {"a.sh": "python3 -m dynamo.vllm --model M --is-prefill-worker --is-decode-worker\n"},
     {"a.sh": "python3 -m dynamo.vllm --model M --is-decode-worker\n"}),
    ("VLLM005", {"a.sh": f"VLLM_NIXL_SIDE_CHANNEL_HOST=0.0.0.0 {VS} --kv-transfer-config {kv(role='kv_producer')}\n"},
     {"a.sh": f"VLLM_NIXL_SIDE_CHANNEL_HOST=10.0.0.5 {VS} --kv-transfer-config {kv(role='kv_producer')}\n"}),
    ("VLLM010", {"run_prefill.sh": f"{VS} --kv-transfer-config {kv(role='kv_producer')}\n",
                 "run_decode.sh": f"{VS} --kv-transfer-config {kv('MooncakeConnector', 'kv_consumer')}\n"},
     {"run_prefill.sh": f"{VS} --kv-transfer-config {kv(role='kv_producer')}\n",
      "run_decode.sh": f"{VS} --kv-transfer-config {kv(role='kv_consumer')}\n"}),
    ("VLLM012", {"run_prefill.sh": f"{VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', kv_parallel_size=2)}\n",
                 "run_decode.sh": f"{VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_consumer', kv_parallel_size=3)}\n"},
     {"run_prefill.sh": f"{VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', kv_parallel_size=2)}\n",
      "run_decode.sh": f"{VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_consumer', kv_parallel_size=2)}\n"}),
    ("VLLM013", {"run_prefill.sh": f"{VS} --kv-transfer-config {kv(role='kv_producer')}\n",
                 "run_decode.sh": f"vllm serve Qwen/Qwen3-0.6B --kv-transfer-config {kv(role='kv_consumer')}\n"},
     {"run_prefill.sh": f"vllm serve /models/Qwen3-8B --kv-transfer-config {kv(role='kv_producer')}\n",
      "run_decode.sh": f"vllm serve /mnt/Qwen3-8B --kv-transfer-config {kv(role='kv_consumer')}\n"}),
    ("VLLM014", {"run_prefill.sh": f"{VS} --block-size 16 --kv-transfer-config {kv(role='kv_producer')}\n",
                 "run_decode.sh": f"{VS} --block-size 128 --kv-transfer-config {kv(role='kv_consumer')}\n"},
     {"run_prefill.sh": f"{VS} --block-size 128 --kv-transfer-config {kv(role='kv_producer')}\n",
      "run_decode.sh": f"{VS} --block-size 128 --kv-transfer-config {kv(role='kv_consumer')}\n"}),
    ("VLLM015", {"run_prefill.sh": f"PYTHONHASHSEED=1 {VS} --kv-transfer-config {kv('LMCacheConnectorV1', 'kv_producer')}\n",
                 "run_decode.sh": f"PYTHONHASHSEED=2 {VS} --kv-transfer-config {kv('LMCacheConnectorV1', 'kv_consumer')}\n"},
     {"run_prefill.sh": f"PYTHONHASHSEED=1 {VS} --kv-transfer-config {kv('LMCacheConnectorV1', 'kv_producer')}\n",
      "run_decode.sh": f"PYTHONHASHSEED=1 {VS} --kv-transfer-config {kv('LMCacheConnectorV1', 'kv_consumer')}\n"}),
    ("VLLM016", {"pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', **PROXY)} &\n"
                           f"CUDA_VISIBLE_DEVICES=1 {VS} --port 8200 --kv-transfer-config {kv('P2pNcclConnector', 'kv_consumer', kv_port='14600', **PROXY)} &\n"
                           "python3 disagg_prefill_proxy_server.py &\n")},
     {"pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', **PROXY)} &\n"
                f"CUDA_VISIBLE_DEVICES=1 {VS} --port 8200 --kv-transfer-config {kv('P2pNcclConnector', 'kv_consumer', kv_port='14600', **PROXY)} &\n"
                "python3 disagg_proxy_p2p_nccl_xpyd.py &\n")}),
    ("VLLM017", {"pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer')} &\n"
                           f"CUDA_VISIBLE_DEVICES=1 {VS} --port 8200 --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', kv_port='14600')} &\n")},
     {"pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer')} &\n"
                f"CUDA_VISIBLE_DEVICES=1 {VS} --port 8200 --kv-transfer-config {kv('P2pNcclConnector', 'kv_consumer', kv_port='14600')} &\n")}),
]


CASES += [
    ("VLLM018", {"a.sh": f"{VS} --gpu-memory-utilisation 0.9\n"}, {"a.sh": f"{VS} --gpu-memory-utilization 0.9\n"}),
    ("VLLM018", {"a.sh": f"{VS} --enable-p\n"}, {"a.sh": f"{VS} --enable-prefix-caching --gpu-memory 0.8\n"}),
    ("VLLM018", {"a.sh": f"{VS} --tensor-parallel-size 2 4\n"},
     {"a.sh": f"{VS} --max_model_len 4096 --served-model-name a b --kv-transfer-config.kv_connector NixlConnector "
              "--kv-transfer-config.kv_role kv_both\n"}),
    ("VLLM019", {"a.sh": f"{VS} --dtype fp16\n"}, {"a.sh": f"{VS} --dtype float16 --moe-backend Triton\n"}),
    ("VLLM019", {"a.sh": f"{VS} --moe-backend tritonx\n"}, {"a.sh": f"{VS} --moe-backend TRITON\n"}),
    ("VLLM037", {"a.sh": f"{VS} --tensor-parallel-size 2.0\n"}, {"a.sh": f"{VS} --tensor-parallel-size 2\n"}),
    ("VLLM020", {"a.sh": f"{VS} --guided-decoding-backend xgrammar\n"}, {"a.sh": f"{VS} --enforce-eager\n"}),
]


@pytest.mark.parametrize("code,fire,quiet", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_vllm_rule(code, fire, quiet, tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "fire", capsys, monkeypatch, fire)
    assert code in codes(doc), [f["message"] for f in doc["findings"]]
    doc = check(tmp_path / "quiet", capsys, monkeypatch, quiet)
    assert code not in codes(doc), [f["message"] for f in doc["findings"] if f["code"] == code]
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == []


def test_vllm011_missing_connector(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "run_prefill.sh": f"{VS} --kv-transfer-config {kv(role='kv_producer')}\n",
        "decode/run.sh": "true\n",
        "run_decode.sh": f"{VS} --port 8200\n"})
    # the decode has no connector (role "null" from its flags): the file names pair it as the decode
    assert "VLLM011" in codes(doc)
    doc = check(tmp_path, capsys, monkeypatch, {
        "pd.yaml": """apiVersion: apps/v1
kind: Deployment
metadata: {name: prefill}
spec: {template: {spec: {containers: [{name: v, command: [vllm, serve, M, --kv-transfer-config,
  '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: decode}
spec: {template: {spec: {containers: [{name: v, command: [vllm, serve, M]}]}}}
"""})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM011"]
    assert f["role"] == "decode" and "no --kv-transfer-config" in f["message"]


def test_vllm011_names_the_roles_of_the_pair_not_none(tmp_path, capsys, monkeypatch):
    # a prefill paired by its file name has no role of its own: the message said "the None server"
    doc = check(tmp_path, capsys, monkeypatch, {
        "run_prefill.sh": f"{VS} --kv-transfer-config {kv(role='kv_both')}\n",
        "run_decode.sh": f"{VS} --port 8200\n"})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM011"]
    assert f["message"].startswith("the prefill server has a KV connector (NixlConnector) but this decode server")
    assert "None" not in f["message"] and "None" not in str(f["related"])


def test_experiment_scripts_named_for_a_role_are_not_paired_by_their_names(tmp_path, capsys, monkeypatch):
    """ealbalas/disaggregated-prefill-decode-research experiments/{prefill,decode}_test_1000.sh (field test rw6/c):
    each runs an aggregated baseline and a kv_both pair on other ports; the names paired the baseline of one
    with the NIXL servers of the other (VLLM011 errors)."""
    script = (f"CUDA_VISIBLE_DEVICES=0 {VS} --port 8000 &\nwait\n"
              f"CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5601 {VS} --port 8100 "
              f"--kv-transfer-config {kv(role='kv_both')} &\n"
              f"CUDA_VISIBLE_DEVICES=2 VLLM_NIXL_SIDE_CHANNEL_PORT=5602 {VS} --port 8200 "
              f"--kv-transfer-config {kv(role='kv_both')} &\n")
    doc = check(tmp_path, capsys, monkeypatch, {"prefill_test_1000.sh": script, "decode_test_1000.sh": script})
    assert codes(doc) == [] and all(l["structural_role"] is None for l in doc["launches"])
    # the ports from variables pdlint cannot see: the aggregated baseline beside the kv_both servers tells
    script = script.replace("--port 8000", '--port "$BASE_PORT"').replace("--port 8100", '--port "$P_PORT"') \
        .replace("--port 8200", '--port "$D_PORT"')
    doc = check(tmp_path / "vars", capsys, monkeypatch,
                {"prefill_test_1000.sh": script, "decode_test_1000.sh": script})
    assert codes(doc) == [] and all(l["structural_role"] is None for l in doc["launches"])


NIXL_BOTH = "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"


def _nixl_doc_script(decode_model="Qwen/Qwen3-0.6B", decode_port=8200, proxy_first=False):
    proxy = ("python3 ${GIT_ROOT}/tests/v1/kv_connector/nixl_integration/toy_proxy_server.py --port 8192 "
             f"--prefiller-hosts localhost --prefiller-ports 8100 --decoder-hosts localhost --decoder-ports {decode_port} &\n")
    servers = (f"CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5600 vllm serve Qwen/Qwen3-0.6B --port 8100 "
               f"--kv-transfer-config {NIXL_BOTH} &\n"
               f"CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5601 vllm serve {decode_model} --port 8200 "
               f"--kv-transfer-config {NIXL_BOTH} &\n")
    return "#!/bin/bash\n" + (proxy + servers if proxy_first else servers + proxy)


@pytest.mark.parametrize("proxy_first", [False, True])
def test_kv_both_servers_take_their_roles_from_the_toy_proxy(tmp_path, capsys, monkeypatch, proxy_first):
    """vLLM's NixlConnector docs (field test rw6/b, ealbalas/disaggregated-prefill-decode-research): kv_both on both
    servers, toy_proxy_server.py naming the prefiller and the decoder by port; the two were never paired (no
    router seen) and a prefill and a decode of different models passed clean."""
    doc = check(tmp_path / "ok", capsys, monkeypatch, {"run.sh": _nixl_doc_script(proxy_first=proxy_first)})
    assert codes(doc) == []
    [dep] = doc["pairs"]
    want = [(3, 4)] if proxy_first else [(2, 3)]
    assert [(p["prefill"]["line"], p["decode"]["line"]) for p in dep["pairs"]] == want
    assert sorted(r["role"] for r in dep["routers"]) == ["decode", "prefill"]
    assert all(len(r["servers"]) == 1 for r in dep["routers"])
    doc = check(tmp_path / "bad", capsys, monkeypatch,
                {"run.sh": _nixl_doc_script("Qwen/Qwen3-8B", proxy_first=proxy_first)})
    assert codes(doc) == ["VLLM013"]


def test_a_toy_proxy_naming_no_server_gives_no_role(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": _nixl_doc_script("Qwen/Qwen3-8B", decode_port=8300)})
    assert "VLLM013" not in codes(doc)
    assert {l["structural_role"] for l in doc["launches"] if l["kind"] == "server"} == {"prefill", None}


def test_vllm015_not_for_the_multiprocess_lmcache_connector(tmp_path, capsys, monkeypatch):
    """LMCache examples/dynamo_integration/local/serve.sh (field test rw6/b): with LMCacheMPConnector one `lmcache
    server` hashes the token ids the workers send, so the workers' PYTHONHASHSEED does not matter."""
    files = {"run_prefill.sh": f"PYTHONHASHSEED=1 {VS} --kv-transfer-config {kv('LMCacheMPConnector', 'kv_producer')}\n",
             "run_decode.sh": f"{VS} --kv-transfer-config {kv('LMCacheMPConnector', 'kv_consumer')}\n"}
    assert "VLLM015" not in codes(check(tmp_path / "mp", capsys, monkeypatch, files))
    files = {k: v.replace("LMCacheMPConnector", "LMCacheConnectorV1") for k, v in files.items()}
    assert "VLLM015" in codes(check(tmp_path / "v1", capsys, monkeypatch, files))


def test_vllm026_for_the_legacy_prefill_flag(tmp_path, capsys, monkeypatch):
    """dcotroneCLT/llm-serving-bench on vllm-runtime:1.0.1 (field test rw6/f): `--is-prefill-worker` without
    --kv-transfer-config; Dynamo 1.0 reads the legacy flag as the prefill mode (backend_args.py) and then stops
    (args.py). The author later wrote that the prefill worker "exits 1"."""
    img = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:{}"
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: w\n"
           "    image: {}\n    command: [python3, -m, dynamo.vllm, --model, M, --is-prefill-worker]\n")
    doc = check(tmp_path / "new", capsys, monkeypatch, {"p.yaml": pod.format(img.format("1.0.1"))})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM026"]
    assert f["message"].endswith("(Dynamo reads --is-prefill-worker as --disaggregation-mode prefill)")
    # before 1.0 the legacy flag was the role flag and NIXL the default connector
    doc = check(tmp_path / "old", capsys, monkeypatch, {"p.yaml": pod.format(img.format("0.8.1"))})
    assert "VLLM026" not in codes(doc)
    # nor with no release pinned: the legacy flag says the file was written for one before 1.0
    doc = check(tmp_path / "unpinned", capsys, monkeypatch, {"p.yaml": pod.format(img.format("${VERSION}"))})
    assert "VLLM026" not in codes(doc)


def test_a_vllm_port_is_unknown_when_words_pdlint_cannot_see_may_set_it(tmp_path, capsys, monkeypatch):
    # minosfuture/vllm (field test rw6/f): servers whose flags come from a variable pdlint cannot see, behind a
    # toy proxy on port 8087, were said to listen on the default 8000 (PD154)
    script = ("vllm serve /m $PREFILL_ARGS --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
              "\"kv_role\":\"kv_producer\"}' &\n"
              "CUDA_VISIBLE_DEVICES=1 vllm serve /m $DECODE_ARGS --kv-transfer-config '{\"kv_connector\":"
              "\"NixlConnector\",\"kv_role\":\"kv_consumer\"}' &\n"
              "python3 toy_proxy_server.py --prefiller-ports 8087 --decoder-ports 8088\n")
    doc = check(tmp_path / "unknown", capsys, monkeypatch, {"run.sh": script})
    assert "PD154" not in codes(doc)
    # with every word seen, the default port is the port
    doc = check(tmp_path / "known", capsys, monkeypatch,
                {"run.sh": script.replace(" $PREFILL_ARGS", "").replace(" $DECODE_ARGS", " --port 8088")})
    assert [f["line"] for f in doc["findings"] if f["code"] == "PD154"] == [3]


def test_rules_are_registered_with_docs():
    rules = all_rules()
    vl = [r for r in rules.values() if r.engine == "vllm"]
    # (VLLM048: an option missing its value; VLLM049: vllm serve's model twice or missing, rw28/b P4, P7; VLLM051: a
    # --config file vLLM crashes reading, rw28/b P10)
    assert len(vl) == 48  # (VLLM052: --help on a server line, rw33/h P8)
    for r in vl:
        assert r.code.startswith("VLLM") and r.summary and r.why and r.fix and r.example and r.example_fixed, r.code
    assert "remote_host" in get("VLLM005").why


# ---------------------------------------------------------------------------
# the corpus
# ---------------------------------------------------------------------------

def corpus(capsys, monkeypatch, *paths):
    monkeypatch.chdir(DATA)
    main(["check", "--format", "json", "--exit-zero", *paths])
    return json.loads(capsys.readouterr().out)


def test_disaggregated_prefill_proxy_port(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch, "vllm-project__vllm/examples__online_serving__disaggregated_prefill.sh")
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM016"]
    assert f["line"] == 64 and f["severity"] == "warning"
    assert "disagg_prefill_proxy_server.py instead" in f["message"]
    assert any(r["line"] == 74 for r in f["related"])
    # GPUs 2/3, ports 8100/8200 and kv_ports differ; its PyNcclConnector keys (kv_rank, kv_parallel_size,
    # kv_buffer_size) are 0.9.2-0.20.0 only: a current vLLM refuses them (the release is not pinned)
    # and P2pNcclConnector is registered by 0.9.2-0.20.0 only
    assert codes(doc) == ["VLLM016", "VLLM030", "VLLM030", "VLLM032", "VLLM032"]


def test_aibrix_side_channel_host(capsys, monkeypatch):
    # AIBrix's gateway routes a StormService's PD traffic and sets remote_host to the prefill pod's IP
    # (vllm-project/aibrix pkg/plugins/gateway/algorithms/pd/transfer/shfs.go): the wildcard is harmless there
    doc = corpus(capsys, monkeypatch, "vllm-project__aibrix/samples__disaggregation__vllm__1p1d.yaml")
    assert "VLLM005" not in codes(doc)


_NIXL_POD = """\
      containers:
        - name: prefill
          image: vllm/vllm-openai:v0.10.0
          command: ["sh", "-c"]
          args:
            - vllm serve /models/Qwen3-8B --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
          env:
            - name: VLLM_NIXL_SIDE_CHANNEL_HOST
              value: "0.0.0.0"
"""


def test_side_channel_wildcard_outside_aibrix(tmp_path, capsys, monkeypatch):
    # the pod of vllm-project/aibrix samples/disaggregation/vllm/pool.yaml (e3e10f9e), in a plain Deployment:
    # nothing rewrites remote_host, the decode dials 0.0.0.0
    deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm-prefill}\nspec:\n  template:\n"
              "    spec:\n" + _NIXL_POD)
    storm = ("apiVersion: orchestration.aibrix.ai/v1alpha1\nkind: StormService\nmetadata: {name: pool}\nspec:\n"
             "  template:\n    spec:\n      roles:\n        - name: prefill\n          template:\n            spec:\n"
             + "\n".join("      " + line if line else line for line in _NIXL_POD.splitlines()) + "\n")
    doc = check(tmp_path, capsys, monkeypatch, {"deploy.yaml": deploy})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM005"]
    assert f["role"] == "prefill" and f["line"] == 15  # the value to edit
    doc = check(tmp_path, capsys, monkeypatch, {"storm.yaml": storm})
    assert [l["role"] for l in doc["launches"]] == ["prefill"] and "VLLM005" not in codes(doc)


def test_dynamo_legacy_role_flags(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch, "ai-dynamo__dynamo/examples__backends__vllm__deploy__disagg.yaml")
    assert codes(doc) == ["VLLM003", "VLLM003"]
    assert {f["role"] for f in doc["findings"] if f["code"] == "VLLM003"} == {"prefill", "decode"}


def test_sglang_router_in_front_of_vllm(capsys, monkeypatch):
    doc = corpus(capsys, monkeypatch, "sgl-project__rbg/examples__inference__ecosystem__mooncake__mooncake-transfer-"
                                      "engine__vllm-pd-disagg-with-mooncake-te.yaml")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD156"]
    assert f["severity"] == "warning" and "vllm servers" in f["message"]


# ---------------------------------------------------------------------------
# the flag tables: release selection and messages
# ---------------------------------------------------------------------------

def test_flag_tables_and_release_pinning(tmp_path, capsys, monkeypatch):
    from pdlint.engines.vllm import flags
    assert {"0.9.2", "0.10.2", "0.11.0", "0.20.0", "0.33.0"} <= set(flags.available_versions())
    assert flags.pick(None)[:2] == (flags.available_versions()[0], False)
    assert flags.pick("0.10.1.1") == ("0.10.1", True, "no vLLM 0.10.1.1 table; judged against 0.10.1, the nearest "
                                                      "older release")
    assert flags.pick("0.9.3") == ("0.9.2", True, "no vLLM 0.9.3 table; judged against 0.9.2, the nearest older "
                                                  "release")
    assert flags.image_version("docker.io/vllm/vllm-openai:v0.10.2") == "0.10.2"
    assert flags.image_version("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1") is None
    t = flags.load("0.33.0")
    assert t.resolve("--max_model_len")[1] == "exact" and t.resolve("--kv-transfer-config.kv_role")[1] == "dotted"
    assert t.resolve("--enable-p") == (None, "ambiguous")
    # a flag removed from the newest table: a warning naming the releases while nothing is pinned ...
    doc = check(tmp_path / "a", capsys, monkeypatch, {"a.sh": f"{VS} --guided-decoding-backend xgrammar\n"})
    (f,) = [f for f in doc["findings"] if f["code"].startswith("VLLM")]
    assert f["code"] == "VLLM020" and "valid only for vLLM 0.9.2-0.11.0" in f["message"]
    # ... an error once the image pins a release without it, and nothing on the release that has it
    pod = """apiVersion: v1
kind: Pod
metadata: {name: decode}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v%s
      command: [vllm, serve, M, --guided-decoding-backend, xgrammar]
"""
    doc = check(tmp_path / "b", capsys, monkeypatch, {"p.yaml": pod % "0.20.0"})
    (f,) = [f for f in doc["findings"] if f["code"].startswith("VLLM")]
    assert f["code"] == "VLLM018" and "not a flag of vLLM 0.20.0 (it exists in 0.9.2-0.11.0)" in f["message"]
    doc = check(tmp_path / "c", capsys, monkeypatch, {"p.yaml": pod % "0.10.2"})
    assert [f for f in doc["findings"] if f["code"].startswith("VLLM")] == []


def test_unknown_flag_hint_is_only_for_close_matches(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"a.sh": f"{VS} --gpu-memory-utilisation 0.9 --model-name x\n"})
    msgs = sorted(f["message"] for f in doc["findings"] if f["code"] == "VLLM018")
    assert "did you mean --gpu-memory-utilization?" in msgs[0]
    assert "--model-name" in msgs[1] and "did you mean" not in msgs[1]


def test_dynamo_workers_are_not_judged_for_unknown_flags(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"a.sh": "python3 -m dynamo.vllm --model M --disaggregation-mode "
                                                        "prefill --kv-transfer-config '{\"kv_connector\":"
                                                        "\"NixlConnector\",\"kv_role\":\"kv_both\"}' "
                                                        "--endpoint dyn://a.b.c --dtype fp16\n"})
    assert codes(doc) == ["VLLM019"]


def test_vllm_version_config_key_pins_the_release(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "pyproject.toml": '[tool.pdlint]\nvllm-version = "0.10.2"\n',
        "a.sh": f"{VS} --guided-decoding-backend xgrammar --enable-log-requests\n"})
    assert codes(doc) == []  # both are 0.10.2 flags
    (tmp_path / "pyproject.toml").write_text('[tool.pdlint]\nvllm-version = "0.33.0"\n')
    main(["check", "--format", "json", "--exit-zero", "a.sh"])
    doc = json.loads(capsys.readouterr().out)
    assert codes(doc) == ["VLLM018"]


# ---------------------------------------------------------------------------
# parallelism across the pair (release- and connector-dependent) and Dynamo worker modes
# ---------------------------------------------------------------------------

def _pair(tp_p, tp_d, connector="NixlConnector", roles=("kv_both", "kv_both"), env_p="", env_d=""):
    return {"run_prefill.sh": f"{env_p}{VS} -tp {tp_p} --kv-transfer-config {kv(connector, roles[0])}\n",
            "run_decode.sh": f"{env_d}{VS} -tp {tp_d} --port 8200 --kv-transfer-config {kv(connector, roles[1])}\n"}


PIN = {"pyproject.toml": '[tool.pdlint]\nvllm-version = "%s"\n'}


def _pinned(files, version):
    return {**files, "pyproject.toml": PIN["pyproject.toml"] % version}


LMC = {"prefiller.yaml": "chunk_size: 256\nenable_nixl: true\nnixl_role: sender\n",
       "decoder.yaml": "chunk_size: 256\nenable_nixl: true\nnixl_role: receiver\n"}

PAR_CASES = [
    ("VLLM021", _pinned(_pair(4, 2), "0.11.0"), _pinned(_pair(2, 4), "0.11.0")),
    ("VLLM021", _pinned(_pair(2, 3), "0.9.2"), _pinned(_pair(4, 2), "0.20.0")),
    ("VLLM022", _pair(4, 2), _pinned(_pair(4, 2), "0.11.0")),
    ("VLLM022", _pinned(_pair(4, 2), "0.33.0"), _pair(2, 2)),
    ("VLLM023", _pair(2, 1, "PyNcclConnector", ("kv_producer", "kv_consumer")),
     _pair(2, 2, "PyNcclConnector", ("kv_producer", "kv_consumer"))),
    # MooncakeConnector is v0's SimpleConnector up to 0.9.2, v1's Mooncake connector (different TP sizes paired)
    # from 0.10 (bytedance-iaas/vllm's chart on vllm/vllm-openai:v0.20.0, field test rw16/l)
    ("VLLM023", _pinned(_pair(2, 1, "MooncakeConnector", ("kv_producer", "kv_consumer")), "0.9.2"),
     _pinned(_pair(2, 1, "MooncakeConnector", ("kv_producer", "kv_consumer")), "0.20.0")),
    ("VLLM023", _pinned(_pair(2, 1, "MooncakeConnector", ("kv_producer", "kv_consumer")), "0.9.2"),
     _pair(2, 1, "MooncakeConnector", ("kv_producer", "kv_consumer"))),
    ("VLLM024", {**LMC, **_pair(2, 1, "LMCacheConnectorV1", ("kv_producer", "kv_consumer"),
                                 "LMCACHE_CONFIG_FILE=prefiller.yaml PYTHONHASHSEED=0 ",
                                 "LMCACHE_CONFIG_FILE=decoder.yaml PYTHONHASHSEED=0 ")},
     {**LMC, **_pair(2, 2, "LMCacheConnectorV1", ("kv_producer", "kv_consumer"),
                     "LMCACHE_CONFIG_FILE=prefiller.yaml PYTHONHASHSEED=0 ",
                     "LMCACHE_CONFIG_FILE=decoder.yaml PYTHONHASHSEED=0 ")}),
    ("VLLM024", _pair(2, 1, "LMCacheConnectorV1", ("kv_producer", "kv_consumer"),
                      "LMCACHE_ENABLE_NIXL=True PYTHONHASHSEED=0 ", "PYTHONHASHSEED=0 "),
     _pair(2, 1, "LMCacheConnectorV1", ("kv_producer", "kv_consumer"), "PYTHONHASHSEED=0 ", "PYTHONHASHSEED=0 ")),
    ("VLLM025", {"prefill.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config {kv()}\n",
                 "decode.sh": f"python3 -m dynamo.vllm --model M --kv-transfer-config {kv()}\n"},
     {"prefill.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config {kv()}\n",
      "decode.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config {kv()}\n"}),
    ("VLLM026", {"a.sh": "python3 -m dynamo.vllm --model M --disaggregation-mode prefill\n"},
     {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config {kv()}\n"}),
    ("VLLM027", {"a.sh": f"python3 -m dynamo.vllm --model M --kv-transfer-config {kv()} &\n"
                         f"VLLM_NIXL_SIDE_CHANNEL_PORT=20097 python3 -m dynamo.vllm --model M --disaggregation-mode prefill "
                         f"--kv-transfer-config {kv()}\n"},
     {"a.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config {kv()} &\n"
              f"VLLM_NIXL_SIDE_CHANNEL_PORT=20097 python3 -m dynamo.vllm --model M --disaggregation-mode prefill "
              f"--kv-transfer-config {kv()}\n"}),
]

KVJ = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
PD_CONNECTOR = ('\'{"kv_connector":"PdConnector","kv_role":"kv_both","kv_connector_extra_config":{"connectors":'
                '[{"kv_connector":"DynamoConnector","kv_role":"kv_both"},{"kv_connector":"NixlConnector",'
                '"kv_role":"kv_both"}]},"kv_connector_module_path":"kvbm.vllm_integration.connector"}\'')


def test_kvbm_pd_connector_prefill_pairs_with_a_nixl_decode(tmp_path, capsys, monkeypatch):
    # ai-dynamo/dynamo's disagg_kvbm examples: KVBM offload on the prefill, the KV itself over NIXL
    doc = check(tmp_path, capsys, monkeypatch, {
        "prefill.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config "
                      f"{PD_CONNECTOR}\n",
        "decode.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config {kv()}\n"})
    assert "VLLM010" not in codes(doc)
    doc = check(tmp_path / "b", capsys, monkeypatch, {
        "prefill.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config "
                      f"{PD_CONNECTOR}\n",
        "decode.sh": f"python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config "
                     f"{kv('MooncakeConnector')}\n"})
    assert "VLLM010" in codes(doc)


def test_dynamo_graph_deployment_decode_worker_without_mode(tmp_path, capsys, monkeypatch):
    dgd = """apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: d}
spec:
  services:
    VllmPrefillWorker:
      subComponentType: prefill
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
          command: [python3, -m, dynamo.vllm]
          args: [--model, M, --disaggregation-mode, prefill, --kv-transfer-config, '%s']
    VllmDecodeWorker:
      subComponentType: decode
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0
          command: [python3, -m, dynamo.vllm]
          args: [--model, M%s, --kv-transfer-config, '%s']
""" % (KVJ, "%s", KVJ)
    doc = check(tmp_path / "a", capsys, monkeypatch, {"d.yaml": dgd % ""})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM025"]
    assert "Dynamo 1.4.0" in f["message"]
    doc = check(tmp_path / "b", capsys, monkeypatch, {"d.yaml": dgd % ", --disaggregation-mode, decode"})
    assert "VLLM025" not in codes(doc)


def test_lmcache_config_under_the_script_directory(tmp_path, capsys, monkeypatch):
    script = ('SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
              'LMCACHE_CONFIG_FILE=$SCRIPT_DIR/configs/prefiller.yaml PYTHONHASHSEED=0 ' + VS +
              f' --tensor-parallel-size 2 --kv-transfer-config {kv("LMCacheConnectorV1", "kv_producer")} &\n'
              'LMCACHE_CONFIG_FILE=$SCRIPT_DIR/configs/decoder.yaml PYTHONHASHSEED=0 ' + VS +
              f' --port 8200 --kv-transfer-config {kv("LMCacheConnectorV1", "kv_consumer")}\n')
    files = {"run.sh": script, "configs/prefiller.yaml": LMC["prefiller.yaml"],
             "configs/decoder.yaml": LMC["decoder.yaml"]}
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert "VLLM024" in codes(doc)


@pytest.mark.parametrize("code,fire,quiet", PAR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(PAR_CASES)])
def test_parallel_rule(code, fire, quiet, tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "fire", capsys, monkeypatch, fire)
    assert code in codes(doc), [f["message"] for f in doc["findings"]]
    doc = check(tmp_path / "quiet", capsys, monkeypatch, quiet)
    assert code not in codes(doc), [f["message"] for f in doc["findings"] if f["code"] == code]


def test_nixl_tp_message_names_release_and_sits_on_decode_tp(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, _pinned(_pair(4, 2), "0.11.0"))
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM021"]
    assert f["path"] == "run_decode.sh" and f["severity"] == "error" and "vLLM 0.11.0" in f["message"]
    assert f["column"] == len(VS) + 6 and any(r["path"] == "run_prefill.sh" for r in f["related"])


def test_dynamo_decode_worker_in_a_runtime_image_before_1_0_is_quiet(tmp_path, capsys, monkeypatch):
    # (a prefill worker beside it: VLLM025 judges only a disaggregated deployment)
    dep = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-decode}
spec:
  template:
    spec:
      containers:
        - name: worker
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:%s
          command: [python3, -m, dynamo.vllm, --model, M]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-prefill}
spec:
  template:
    spec:
      containers:
        - name: worker
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:%s
          command: [python3, -m, dynamo.vllm, --model, M, --is-prefill-worker]
"""
    old = check(tmp_path / "a", capsys, monkeypatch, {"d.yaml": dep % ("0.9.1", "0.9.1")})
    new = check(tmp_path / "b", capsys, monkeypatch, {"d.yaml": dep % ("1.0.2", "1.0.2")})
    assert "VLLM025" not in codes(old)
    (f,) = [f for f in new["findings"] if f["code"] == "VLLM025"]
    assert "Dynamo 1.0.2 starts it as an aggregated worker" in f["message"]


def test_config_file_flags_are_read_where_they_are_written(tmp_path, capsys, monkeypatch):
    """`vllm serve MODEL --config FILE` (vLLM's YAML of flags, FlexibleArgumentParser.load_config_file): the
    file's flags go after the positional model and before the command line's own (which win); a mapping value
    is passed as JSON.  Before, the file was not read: both launches were aggregated servers with nothing
    said, and the connector mismatch and the typo below passed."""
    doc = check(tmp_path, capsys, monkeypatch, {
        "run.sh": "CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B --config prefill.yaml --port 8100 &\n"
                  "CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-8B --config decode.yaml --port 8200 &\n",
        "prefill.yaml": "kv-transfer-config:\n  kv_connector: NixlConnector\n  kv_role: kv_producer\n"
                        "port: 8000\nenforce-eager: false\nheadless: false\ntrust-remote-code: true\n",
        "decode.yaml": "kv-transfer-config: '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_consumer\"}'\n"
                       "max-modle-len: 8192\n"})
    found = {(f["code"], f["path"], f["line"]) for f in doc["findings"]}
    assert found == {("VLLM010", "decode.yaml", 1), ("VLLM018", "decode.yaml", 2)}, doc["findings"]
    (mismatch,) = [f for f in doc["findings"] if f["code"] == "VLLM010"]
    assert any((r["path"], r["line"], r["column"]) == ("prefill.yaml", 2, 17) for r in mismatch["related"]), \
        mismatch["related"]  # the connector's own line in the mapping, not the key above it
    prefill = next(l for l in doc["launches"] if l["role"] == "prefill")
    # (false adds nothing for `vllm serve`: the top-level `vllm` parser reads the file and knows no --no-FLAG)
    assert prefill["argv"] == [
        "Qwen/Qwen3-8B", "--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_producer"}',
        "--port", "8000", "--trust-remote-code", "--port", "8100"], prefill["argv"]
    assert prefill["origins"][1]["path"] == "prefill.yaml" and prefill["origins"][-1]["path"] == "run.sh"
    assert {l["role"] for l in doc["launches"]} == {"prefill", "decode"}
    assert doc["coverage"]["files"]["prefill.yaml"]["status"] == "checked", doc["coverage"]["files"]
    # no model on the command line: the file's flags come first (the positional model may be in it)
    # (the api_server's own parser reads it: false is --no-FLAG where the release has one)
    doc = check(tmp_path, capsys, monkeypatch, {
        "api.sh": "python3 -m vllm.entrypoints.openai.api_server --config decode.yaml --port 8300\n",
        "decode.yaml": "kv-transfer-config: '{\"kv_connector\":\"P2pNcclConnector\",\"kv_role\":\"kv_consumer\"}'\n"
                       "enforce-eager: false\nheadless: false\n"})
    (launch,) = doc["launches"]
    assert launch["argv"] == ["--kv-transfer-config", '{"kv_connector":"P2pNcclConnector","kv_role":"kv_consumer"}',
                              "--no-enforce-eager", "--port", "8300"], launch["argv"]
    assert launch["role"] == "decode"


def test_config_file_pdlint_cannot_read_is_said(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "run.sh": "vllm serve Qwen/Qwen3-8B --config missing.yaml --port 8100\n"
                  "vllm serve Qwen/Qwen3-8B --config $CFG --port 8300\n"})
    gaps = sorted((f["line"], f["message"].split(":")[0]) for f in doc["findings"] if f["code"] == "PD022")
    assert gaps == [(1, "--config missing.yaml was not found in the repository"),
                    (2, "--config $CFG is a value pdlint cannot see")], gaps
    assert [l["role"] for l in doc["launches"]] == [None] * 2  # not "null" (aggregated): the file may name the role
    # a Dynamo prefill worker whose --kv-transfer-config may be in the unread file: no VLLM026
    doc = check(tmp_path, capsys, monkeypatch, {
        "w.sh": "python3 -m dynamo.vllm --model M --disaggregation-mode prefill --config $CFG\n"})
    assert codes(doc) == [] and [f["code"] for f in doc["findings"]] == ["PD022"], doc["findings"]
    # the same worker with its file read: VLLM026 when the file lacks it too
    doc = check(tmp_path, capsys, monkeypatch, {
        "w.sh": "python3 -m dynamo.vllm --model M --disaggregation-mode prefill --config w.yaml\n",
        "w.yaml": "max-model-len: 8192\n"})
    assert codes(doc) == ["VLLM026"], doc["findings"]
def test_no_config_file_no_unread_config_gap(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": "vllm serve Qwen/Qwen3-8B --port 8100\n"})
    assert doc["findings"] == [] and doc["launches"][0]["role"] == "null", doc


def test_config_equals_path_is_not_loaded(tmp_path, capsys, monkeypatch):
    """VLLM028: vLLM pulls a config file in only for the argument `--config` itself; `--config=PATH` is stored
    and never read (vLLM 0.33.0: every flag of the file stays at its default), so pdlint checks the launch as
    written, without the file."""
    files = {"run.sh": "vllm serve Qwen/Qwen3-8B --config=p.yaml --port 8200\n",
             "p.yaml": "kv-transfer-config: '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}'\n"}
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM028"]
    assert (f["path"], f["line"], f["column"], f["severity"]) == ("run.sh", 1, 26, "error"), f
    assert "PD022" not in {x["code"] for x in doc["findings"]}
    # the file never reaches the server: an aggregated one (the file, alone, is a vLLM config of its own)
    assert next(l for l in doc["launches"] if l["path"] == "run.sh")["role"] == "null"
    files["run.sh"] = "vllm serve Qwen/Qwen3-8B --config p.yaml --port 8200\n"
    doc = check(tmp_path, capsys, monkeypatch, files)
    assert "VLLM028" not in {x["code"] for x in doc["findings"]} and doc["launches"][0]["role"] == "prefill"
    assert [l["path"] for l in doc["launches"]] == ["run.sh"]  # read by it: no launch of its own


def test_dotted_json_arguments_make_the_kv_transfer_config():
    """`--kv-transfer-config.kv_role kv_producer` (vLLM's dotted JSON arguments: FlexibleArgumentParser merges
    them into one object; vLLM 0.33.0 gives KVTransferConfig(kv_connector='NixlConnector', kv_role=
    'kv_producer', ...) for the first line below).  Before, such a launch had no KV config: an aggregated
    server, and a PD pair written this way passed with nothing said."""
    info = parse_argv(toks("M", "--kv-transfer-config.kv_connector", "NixlConnector", "--kv_transfer_config.kv_role",
                           "kv_producer", "--kv-transfer-config.kv_port=14580",
                           "--kv-transfer-config.kv_connector_extra_config.backends+", "UCX,GDS"), "vllm serve")
    assert info.kv_role == "kv_producer" and info.kv.text("kv_connector") == "NixlConnector"
    assert info.kv.get("kv_port").value == 14580
    assert [n.value for n in info.kv.get("kv_connector_extra_config", "backends").value] == ["UCX", "GDS"]
    assert info.kv.get("kv_role").tok.text == "kv_producer"  # the written word, so findings point at it
    # no dotted argument: the JSON as written
    info = parse_argv(toks("M", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'),
                      "vllm serve")
    assert info.kv_role == "kv_both"


def test_dotted_kv_transfer_config_pair_is_checked(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": (
        "CUDA_VISIBLE_DEVICES=0 vllm serve M --port 8100 --kv-transfer-config.kv_connector NixlConnector "
        "--kv-transfer-config.kv_role kv_producer &\n"
        "CUDA_VISIBLE_DEVICES=1 vllm serve M --port 8200 --kv-transfer-config.kv_connector=P2pNcclConnector "
        "--kv-transfer-config.kv_role=kv_consumer &\n")})
    assert [l["role"] for l in doc["launches"]] == ["prefill", "decode"]
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM010"]
    assert (f["line"], f["column"]) == (2, 83), f  # the decode's written connector


# ---------------------------------------------------------------------------
# VLLM029 / VLLM030: what KVTransferConfig refuses (verdicts: tests/conformance/vllm-kv-config-recorded-0.33.0)
# ---------------------------------------------------------------------------

def _kv_run(json_text, version=None):
    files = {"run.sh": f"vllm serve M --kv-transfer-config '{json_text}'\n"}
    return _pinned(files, version) if version else files


def _kv_codes(doc):
    return sorted(f["code"] for f in doc["findings"] if f["code"] in ("VLLM029", "VLLM030"))


@pytest.mark.parametrize("text,version,expect", [
    ('{"kv_connector":"NixlConnector"}', None, ["VLLM029"]),  # no kv_role: every release
    ('{"kv_connector":"NixlConnector"}', "0.9.2", ["VLLM029"]),
    ('{"kv_connector":"NixlConnector","kv_role":null}', None, ["VLLM029"]),
    ('{"kv_connector":"NixlConnector","kv_role":"kv_prefill"}', "0.11.0", ["VLLM029"]),
    ('{"kv_connector":"NixlConnector","kv_role":"KV_BOTH"}', None, ["VLLM029"]),
    ('{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_load_failure_policy":"retry"}', None, ["VLLM029"]),
    ('{"kv_conector":"NixlConnector","kv_role":"kv_both"}', "0.33.0", ["VLLM029"]),  # a typo: no release has it
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_buffer_size":"1e9"}', "0.33.0", ["VLLM029"]),
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_buffer_size":"1e9"}', None, ["VLLM030"]),
])
def test_kv_transfer_config_refused(text, version, expect, tmp_path, capsys, monkeypatch):
    assert _kv_codes(check(tmp_path, capsys, monkeypatch, _kv_run(text, version))) == expect


@pytest.mark.parametrize("text,version", [
    ('{"kv_role":"kv_producer"}', None),  # a role without a connector: accepted
    ('{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_port":"14580","kv_connector_extra_config":{"x":1}}',
     None),
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_buffer_size":"1e9"}', "0.20.0"),
    ('{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}', "0.9.2"),
    ('{"kv_conector":"NixlConnector","kv_role":"kv_both"}', "0.11.0"),  # 0.11.0 drops unknown keys
])
def test_kv_transfer_config_accepted(text, version, tmp_path, capsys, monkeypatch):
    assert _kv_codes(check(tmp_path, capsys, monkeypatch, _kv_run(text, version))) == []


def test_kv_transfer_config_refusal_points_at_the_key_and_names_the_releases(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path / "pinned", capsys, monkeypatch, _kv_run(
        '{"kv_conector":"NixlConnector","kv_role":"kv_both","kv_rank":0}', "0.33.0"))
    typo, old = sorted((f for f in doc["findings"] if f["code"] == "VLLM029"), key=lambda f: f["column"])
    assert typo["column"] == 38 and "did you mean kv_connector" in typo["message"], typo
    assert "(it exists in vLLM 0.9.2-0.20.0)" in old["message"], old
    # unpinned: one warning for the launch, every older-only key named
    doc = check(tmp_path / "unpinned", capsys, monkeypatch, _kv_run(
        '{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}'))
    (w,) = [f for f in doc["findings"] if f["code"] == "VLLM030"]
    assert w["message"].startswith("kv_rank, kv_parallel_size are KVTransferConfig fields in vLLM 0.9.2-0.20.0 of "
                                    "the releases pdlint has tables for")
    # a value pdlint cannot see is not judged
    doc = check(tmp_path / "opaque", capsys, monkeypatch, {
        "run.sh": 'vllm serve M --kv-transfer-config "{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"$ROLE\\"}"\n'})
    assert _kv_codes(doc) == []


def _connector_codes(doc):
    return sorted(f["code"] for f in doc["findings"] if f["code"] in ("VLLM031", "VLLM032"))


MULTI = ('{"kv_connector":"MultiConnector","kv_role":"kv_both","kv_connector_extra_config":{"connectors":['
         '{"kv_connector":"%s","kv_role":"kv_both"},{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}]}}')


@pytest.mark.parametrize("text,version,expect", [
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}', "0.33.0", ["VLLM031"]),  # gone in 0.33.0
    ('{"kv_connector":"NixlConector","kv_role":"kv_both"}', None, ["VLLM031"]),  # a typo: no release has it
    ('{"kv_connector":"nixlconnector","kv_role":"kv_both"}', "0.11.0", ["VLLM031"]),  # case-sensitive
    (MULTI % "NixlConector", None, ["VLLM031"]),  # a MultiConnector member
    ('{"kv_connector":"MooncakeConectorV1","kv_role":"kv_both"}', "0.33.0", ["VLLM031"]),  # no plugin's name either
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}', None, ["VLLM032"]),
    ('{"kv_connector":"SharedStorageConnector","kv_role":"kv_both"}', None, ["VLLM032"]),
    # quiet
    ('{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}', "0.20.0", []),
    ('{"kv_connector":"NixlPushConnector","kv_role":"kv_both"}', "0.33.0", []),
    ('{"kv_connector":"LLMDataDistCMgrConnector","kv_role":"kv_producer"}', None, []),  # vllm-ascend's plugin
    # vllm-ascend registers MooncakeConnectorV1 (its nightly PD configs use it), close as it is to MooncakeConnector
    ('{"kv_connector":"MooncakeConnectorV1","kv_role":"kv_producer"}', "0.33.0", []),
    ('{"kv_connector":"MooncakeLayerwiseConnector","kv_role":"kv_consumer"}', "0.33.0", []),
    ('{"kv_connector":"NixlConector","kv_role":"kv_both","kv_connector_module_path":"my.mod"}', None, []),
    (MULTI % "NixlConnector", "0.33.0", []),
])
def test_kv_connector_registered(text, version, expect, tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, _kv_run(text, version))
    assert _connector_codes(doc) == expect, [f["message"] for f in doc["findings"]]
    if expect == ["VLLM031"]:
        (f,) = [f for f in doc["findings"] if f["code"] == "VLLM031"]
        assert f["message"].startswith("Unsupported connector type: ") and (
            "registered in vLLM 0.9.2-0.20.0" in f["message"] or "did you mean NixlConnector" in f["message"]
            or "did you mean MooncakeConnector?" in f["message"]), f


def test_release_spans_name_only_the_releases_that_have_it(tmp_path, capsys, monkeypatch):
    from pdlint.engines.vllm.flags import release_span
    assert release_span(["0.9.2", "0.10.0", "0.10.1", "0.10.2", "0.11.0"]) == "0.9.2-0.11.0"
    assert release_span(["0.9.2", "0.10.2", "0.11.0"]) == "0.9.2, 0.10.2-0.11.0"
    assert release_span(["0.9.2", "0.20.0", "0.33.0"]) == "0.9.2, 0.20.0-0.33.0"
    # MooncakeConnector: registered by 0.9.2 and 0.10.0 (v0) and again from 0.20.0, not by 0.10.1-0.11.0
    doc = check(tmp_path, capsys, monkeypatch, _kv_run('{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}',
                                                       "0.11.0"))
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM031"]
    assert "(registered in vLLM 0.9.2-0.10.0, 0.13.0-0.33.0)" in f["message"], f["message"]


@pytest.mark.parametrize("version,args,expect", [
    # load_config_file / _pull_args_from_config per release (their source archives); the api_server's own
    # parser reads the file.  0.33.0: false is --no-FLAG
    ("0.33.0", "--config c.yaml --model M",
     ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}', "--no-enforce-eager",
      "--served-model-name", "a", "b", "--model", "M"]),
    # 0.20.0: the same, but false adds nothing
    ("0.20.0", "--config c.yaml --model M",
     ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}', "--served-model-name",
      "a", "b", "--model", "M"]),
    # 0.10.2 / 0.11.0: a mapping is passed as its Python repr, which the JSON option refuses (VLLM001)
    ("0.11.0", "--config c.yaml --model M",
     ["--kv-transfer-config", "{'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}", "--served-model-name",
      "a", "b", "--model", "M"]),
    # 0.9.2: a list is its repr too, and with no sub-command the file's flags go after the first word
    ("0.9.2", "--model M --config c.yaml",
     ["--model", "--kv-transfer-config", "{'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}",
      "--served-model-name", "['a', 'b']", "M"]),
])
def test_config_file_as_each_release_reads_it(version, args, expect, tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, _pinned({
        "run.sh": f"python -m vllm.entrypoints.openai.api_server {args}\n",
        "c.yaml": "kv-transfer-config: {kv_connector: NixlConnector, kv_role: kv_both}\nenforce-eager: false\n"
                  "served-model-name: [a, b]\n"}, version))
    (launch,) = doc["launches"]
    assert launch["argv"] == expect, launch["argv"]
    assert ("VLLM001" in {f["code"] for f in doc["findings"]}) == (version in ("0.11.0", "0.9.2")), doc["findings"]


def test_kv_both_servers_behind_a_proxy_whose_ports_pdlint_cannot_see_are_an_unresolved_role(
        tmp_path, capsys, monkeypatch):
    # (ealbalas/disaggregated-prefill-decode-research archive/run_experiment.sh: the ports come from arrays a
    # config file sets; the servers were left unpaired with nothing said)
    script = _nixl_doc_script().replace("--prefiller-ports 8100", "--prefiller-ports $P_PORTS")
    doc = check(tmp_path, capsys, monkeypatch, {"run.sh": script})
    (f,) = [f for f in doc["findings"] if f["code"] == "PD021"]
    assert f["line"] == 2 and "toy_proxy_server.py's prefiller / decoder addresses" in f["message"]  # its --port
    assert "VLLM013" not in codes(doc)
    # both sides' ports hidden (vllm-gaudi's PORT=$((8300+i)) loops, field test rw6/g): one place per server
    script = script.replace("--decoder-ports 8200", "--decoder-ports $D_PORTS")
    doc = check(tmp_path / "both", capsys, monkeypatch, {"run.sh": script})
    assert sorted(f["line"] for f in doc["findings"] if f["code"] == "PD021") == [2, 3]


@pytest.mark.parametrize("version, advice", [
    ("0.25.0", "; use a decode TP that is a multiple of 4"),  # no table: judged against 0.20.0, but pinned
    (None, "; pin the release or use a decode TP that is a multiple of 4"),
])
def test_vllm022_tells_to_pin_only_an_unpinned_release(tmp_path, capsys, monkeypatch, version, advice):
    """A release pinned without a table of its own (vllm/vllm-openai:v0.25.0, judged against 0.20.0) was told to
    pin the release, and named the table's release (field test rw13/f)."""
    files = _pinned(_pair(4, 2), version) if version else _pair(4, 2)
    doc = check(tmp_path, capsys, monkeypatch, files)
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM022"]
    assert f["message"].endswith(advice) and (version is None or f"on vLLM {version} the NIXL" in f["message"])


def test_vllm016_not_for_a_proxy_at_another_hosts_address(tmp_path, capsys, monkeypatch):
    """Duyi-Wang/rllm's per-node p2pp.sh / p2pd.sh (field test rw15/j): `proxy_ip` is the proxy host's address,
    and a sibling script starts the proxy there."""
    remote = {"kv_connector_extra_config": {"proxy_ip": "10.194.132.29", "proxy_port": "30001"}}
    doc = check(tmp_path / "remote", capsys, monkeypatch, {
        "p2pp.sh": f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', **remote)} &\n"})
    assert "VLLM016" not in codes(doc)
    doc = check(tmp_path / "local", capsys, monkeypatch, {
        "p2pp.sh": f"CUDA_VISIBLE_DEVICES=0 {VS} --kv-transfer-config {kv('P2pNcclConnector', 'kv_producer', **PROXY)} &\n"})
    assert "VLLM016" in codes(doc)


def test_lmcache_tp_message_names_the_configured_channel(tmp_path, capsys, monkeypatch):
    # (shengyan-chen/lmcache-ascend-deploy, field test rw23/a: `transfer_channel: "hccl"` was called NIXL)
    hccl = {k: v.replace("enable_nixl: true", "enable_pd: true\ntransfer_channel: hccl") for k, v in LMC.items()}
    doc = check(tmp_path, capsys, monkeypatch, {**hccl, **_pair(2, 1, "LMCacheConnectorV1", ("kv_producer", "kv_consumer"),
                                                                "LMCACHE_CONFIG_FILE=prefiller.yaml PYTHONHASHSEED=0 ",
                                                                "LMCACHE_CONFIG_FILE=decoder.yaml PYTHONHASHSEED=0 ")})
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM024"]
    assert f["message"].startswith("LMCache moves the KV over HCCL (enable_pd: true in prefiller.yaml)")


def _multi(role):
    return ("'{\"kv_connector\":\"MultiConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":"
            "{\"connectors\":[{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"},"
            "{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}]}}'")


@pytest.mark.parametrize("env, fires", [
    ("", False),  # LMCache's defaults: a private CPU offload next to NIXL, no chunk is looked up across servers
    ("LMCACHE_REMOTE_URL=lm://cache:65432 ", True),  # a shared backend: the seed decides the keys
    ("LMCACHE_ENABLE_PD=True ", True),
])
def test_vllm015_for_lmcache_next_to_nixl_only_when_it_shares(tmp_path, capsys, monkeypatch, env, fires):
    """Field test rw25/a: llm-d/llm-d-routing-sidecar's test pods run a MultiConnector of NixlConnector (the KV
    transfer) and LMCacheConnectorV1 with no LMCache config: each pod's LMCache is a private offload (LMCache 0.5.6
    config defaults), and VLLM015 warned that the decode never finds what the prefill stored."""
    files = {"run_prefill.sh": f"{env}{VS} --kv-transfer-config {_multi('p')}\n",
             "run_decode.sh": f"{env}{VS} --kv-transfer-config {_multi('d')}\n"}
    assert ("VLLM015" in codes(check(tmp_path, capsys, monkeypatch, files))) == fires
