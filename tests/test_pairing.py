"""Pairing: deployments, prefill/decode pairs, variants, router links, co-location,
and how `pdlint show` / the JSON report print them.  Real files are copies of
../shared/corpus in tests/data/corpus (origins in tests/data/corpus/SOURCES.md)."""

import json
import os

import pytest

from pdlint.cli import main
from pdlint.extract import Options
from pdlint.lint import run
from pdlint.pairing import colocated, group, pair_launches, parse_url, role_word_keys
from pdlint.text import TStr

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "corpus")
SG = "python -m sglang.launch_server --model-path M"


def launches_of(root, paths):
    res = run([str(p) for p in paths], Options(cwd=str(root)))
    return res.launches


def write(root, files: dict):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return [root / rel for rel in files]


def short(l):
    return (l.path, l.line, l.role)


# ---------------------------------------------------------------------------
# sibling names
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", [
    ("run_prefill.sh", "run_decode.sh"),
    ("deploy/p.yaml", "deploy/d.yaml"),
    ("x/ctx_extra-llm-api-config.yaml", "x/gen_extra-llm-api-config.yaml"),
    ("cfg/lmcache-prefiller-config.yaml", "cfg/lmcache-decoder-config.yaml"),
    ("q-prefilltp2.yaml", "q-decodetp2.yaml"),
    ("prefill/launch.sh", "decode/launch.sh"),
    ("start-context.sh", "start-generation.sh"),
    ("prefill/run_prefill.sh", "decode/run_decode.sh"),
])
def test_role_words_give_one_template(a, b):
    ka = {(k, f) for k, f, r in role_word_keys(a) if r == "prefill"}
    kb = {(k, f) for k, f, r in role_word_keys(b) if r == "decode"}
    assert ka & kb


@pytest.mark.parametrize("a,b", [
    ("run_prefill.sh", "other_decode.sh"),
    ("generate.sh", "prepare.sh"),  # "gen"/"p" only count as whole words
    ("gpd.yaml", "gpp.yaml"),
])
def test_unrelated_names_do_not_match(a, b):
    ka = {(k, f) for k, f, r in role_word_keys(a) if r == "prefill"}
    kb = {(k, f) for k, f, r in role_word_keys(b) if r == "decode"}
    assert not (ka & kb)


def test_router_file_joins_its_siblings(tmp_path):
    files = write(tmp_path, {
        "run_prefill.sh": f"{SG} --disaggregation-mode prefill\n",
        "run_decode.sh": f"{SG} --disaggregation-mode decode\n",
        "run_lb.sh": "python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 "
                     "--decode http://d:30000\n",
        "other.sh": f"{SG} --disaggregation-mode decode\n",
    })
    deps = pair_launches(launches_of(tmp_path, files))
    joined = [d for d in deps if d.pairs]
    assert len(joined) == 1 and "sibling files" in joined[0].how
    d = joined[0]
    assert sorted({l.path for l in d.launches}) == ["run_decode.sh", "run_lb.sh", "run_prefill.sh"]
    assert [(short(p.prefill), short(p.decode)) for p in d.pairs] == [(("run_prefill.sh", 1, "prefill"),
                                                                       ("run_decode.sh", 1, "decode"))]
    assert {(k.role, k.how, tuple(s.path for s in k.servers)) for k in d.links} == {
        ("prefill", "url", ("run_prefill.sh",)), ("decode", "url", ("run_decode.sh",))}


def test_complete_files_are_not_joined(tmp_path):
    files = write(tmp_path, {
        "a/prefill.sh": f"{SG} --disaggregation-mode prefill\n{SG} --disaggregation-mode decode --port 1\n",
        "a/decode.sh": f"{SG} --disaggregation-mode decode\n",
    })
    deps = group(launches_of(tmp_path, files))
    assert sorted(len(d.launches) for d in deps) == [1, 2]


def test_units_of_one_file_join_when_each_is_incomplete(tmp_path):
    def deployment(name, mode):
        return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n"
                f"      containers:\n        - name: s\n          command: [python3, -m, sglang.launch_server]\n"
                f"          args: [--model-path, M, --disaggregation-mode, {mode}]\n")
    files = write(tmp_path, {"pd.yaml": deployment("prefill", "prefill") + "---\n" + deployment("decode", "decode")})
    deps = pair_launches(launches_of(tmp_path, files))
    assert [len(d.pairs) for d in deps] == [1]


def test_one_pair_per_instance_with_variants():
    """GeneratedRandomly: the `if hostname` branches make four variants of each command."""
    res = run(["GeneratedRandomly__SGLang-reproduce"], Options(cwd=DATA))
    (dep,) = [d for d in pair_launches(res.launches) if d.pairs]
    (pair,) = dep.pairs
    assert pair.prefill.path.endswith("run_prefill.sh") and pair.decode.path.endswith("run_decode.sh")
    assert len(pair.prefill_variants) == 4 and len(pair.decode_variants) == 4
    assert len(pair.combos()) == 16


def test_worker_ranks_are_not_paired():
    res = run(["sgl-project__sglang/docs__advanced_features__pd_disaggregation.md__mooncake-deepseek-multi-node.sh"],
              Options(cwd=DATA))
    (dep,) = pair_launches(res.launches)
    assert [(p.prefill.line, p.decode.line) for p in dep.pairs] == [(2, 34)]  # node rank 0 of each role


# ---------------------------------------------------------------------------
# routers
# ---------------------------------------------------------------------------

def test_parse_url():
    tok = TStr.synthetic("http://10.0.0.1:30002", "<t>")
    host, port, ptok = parse_url(tok)
    assert (host, port, ptok.text) == ("10.0.0.1", 30002, "30002")
    assert parse_url(TStr.synthetic("http://h", "<t>"))[1] == 80


def test_router_links_bootstrap_ports_and_selectors(tmp_path):
    files = write(tmp_path, {"pd.sh": (
        f"{SG} --disaggregation-mode prefill --port 30001 &\n"
        f"{SG} --disaggregation-mode decode --port 30002 &\n"
        "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30001 8999 "
        "--decode http://h:30002\n"
        "python -m sglang.srt.disaggregation.mini_lb --prefill http://h:30001 --decode http://h:30002 "
        "--prefill-bootstrap-ports 9000\n"
        "python -m sglang_router.launch_router --pd-disaggregation --service-discovery "
        "--prefill-selector app=p --decode-selector app=d\n")})
    (dep,) = pair_launches(launches_of(tmp_path, files))
    got = [(k.router.line, k.role, k.how, k.bootstrap.text if k.bootstrap else None, [s.line for s in k.servers])
           for k in dep.links]
    assert got == [(3, "prefill", "url", "8999", [1]), (3, "decode", "url", None, [2]),
                   (4, "prefill", "url", "9000", [1]), (4, "decode", "url", None, [2]),
                   (5, "prefill", "selector", None, [1]), (5, "decode", "selector", None, [2])]


# ---------------------------------------------------------------------------
# co-location
# ---------------------------------------------------------------------------

def test_renderings_of_one_template_are_not_colocated(tmp_path):
    (tmp_path / "pd.sh.j2").write_text(
        "{% if role == 'prefill' %}\n" + SG + " --disaggregation-mode prefill\n{% else %}\n"
        + SG + " --disaggregation-mode decode\n{% endif %}\n")
    (tmp_path / ".pdlint.yaml").write_text("role_var: role\n")
    ls = launches_of(tmp_path, [tmp_path / "pd.sh.j2"])
    assert sorted(l.role for l in ls) == ["decode", "prefill"]
    assert not colocated(*ls)
    (dep,) = pair_launches(ls)
    assert len(dep.pairs) == 1


def test_colocated_needs_one_script_and_no_alternative_branches(tmp_path):
    files = write(tmp_path, {
        "both.sh": f"{SG} --disaggregation-mode prefill &\n{SG} --disaggregation-mode decode --port 1 &\n",
        "branch.sh": (f'if [ "$1" = p ]; then\n  {SG} --disaggregation-mode prefill\n'
                      f'else\n  {SG} --disaggregation-mode decode\nfi\n'),
        "remote.sh": f"ssh node1 {SG} --disaggregation-mode prefill &\n{SG} --disaggregation-mode decode &\n",
        "multi.sh": (f"{SG} --disaggregation-mode prefill --nnodes 2 --node-rank 0 &\n"
                     f"{SG} --disaggregation-mode decode &\n"),
    })
    ls = launches_of(tmp_path, files)
    by = {}
    for l in ls:
        by.setdefault(l.path, []).append(l)
    assert colocated(*by["both.sh"])
    assert not colocated(*by["branch.sh"])
    assert not colocated(*by["remote.sh"])
    assert not colocated(*by["multi.sh"])
    assert not colocated(by["both.sh"][0], by["branch.sh"][0])


# ---------------------------------------------------------------------------
# show / JSON
# ---------------------------------------------------------------------------

def test_show_prints_the_pairs(capsys, monkeypatch):
    monkeypatch.chdir(DATA)
    assert main(["show", "alexsun07__recipe"]) == 0
    out = capsys.readouterr().out
    assert "Pairs:" in out
    assert ("pair [sglang] prefill alexsun07__recipe/sglang_pd_disagg_mooncake__start_prefill.sh:10 <-> decode "
            "alexsun07__recipe/sglang_pd_disagg_mooncake__start_decode.sh:10") in out
    assert ("router alexsun07__recipe/sglang_pd_disagg_mooncake__start_router.sh:6 --prefill "
            "http://10.2.224.31:30002 [url] -> alexsun07__recipe/sglang_pd_disagg_mooncake__start_prefill.sh:10") in out
    assert out.rstrip().endswith("3 launches in 3 files, 1 prefill/decode pair.")


def test_json_reports_carry_pairs(capsys, monkeypatch):
    monkeypatch.chdir(DATA)
    assert main(["show", "--format", "json", "GeneratedRandomly__SGLang-reproduce"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (dep,) = doc["pairs"]
    (pair,) = dep["pairs"]
    launches = doc["launches"]
    assert launches[pair["prefill"]["launch"]]["role"] == "prefill" and pair["decode_variants"] == 4
    assert {r["role"] for r in dep["routers"]} == {"prefill", "decode"}
    assert all(len(r["servers"]) == 1 for r in dep["routers"])  # variants of one command shown once
    main(["check", "--format", "json", "--exit-zero", "GeneratedRandomly__SGLang-reproduce"])
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"version", "files", "findings", "launches", "pairs", "coverage"}
    assert report["pairs"][0]["pairs"][0]["engine"] == "sglang"


CORPUS_PAIRS = [
    ("Eightina__sglang", "sglang", "pyscripts__q-prefilltp2.yaml", "pyscripts__q-decodetp2.yaml"),
    ("shun8686__sglang", "sglang", "launch_deepseek_r1_prefill.sh", "launch_deepseek_r1_decode.sh"),
    ("ai-dynamo__dynamo/components__backends__sglang__launch__disagg.sh", "sglang", "disagg.sh", "disagg.sh"),
    ("vllm-project__vllm/examples__online_serving__disaggregated_prefill.sh", "vllm", "prefill.sh", "prefill.sh"),
    ("vllm-project__aibrix/samples__disaggregation__vllm__1p1d.yaml", "vllm", "1p1d.yaml", "1p1d.yaml"),
    ("sgl-project__rbg/examples__inference__pd-disagg-standalone.yaml", "sglang", "standalone.yaml",
     "standalone.yaml"),
    ("NVIDIA__TensorRT-LLM/examples__disaggregated__disagg_config.yaml", "trtllm", "config.yaml", "config.yaml"),
    ("NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__ctx_extra-llm-api-config.yaml "
     "NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__gen_extra-llm-api-config.yaml", "trtllm",
     "ctx_extra-llm-api-config.yaml", "gen_extra-llm-api-config.yaml"),
    ("kserve__kserve/docs__samples__llmisvc__single-node-gpu__llm-inference-service-pd-qwen2-7b-gpu.yaml", "vllm",
     "gpu.yaml", "gpu.yaml"),
]


@pytest.mark.parametrize("paths,engine,p,d", CORPUS_PAIRS)
def test_corpus_pairs(paths, engine, p, d):
    res = run(paths.split(), Options(cwd=DATA))
    pairs = [pr for dep in pair_launches(res.launches) for pr in dep.pairs]
    assert len(pairs) == 1, [(x.prefill.path, x.decode.path) for x in pairs]
    (pr,) = pairs
    assert pr.engine == engine and pr.prefill.path.endswith(p) and pr.decode.path.endswith(d)


# ---------------------------------------------------------------------------
# pairing by structure when the role flags disagree (PD101 + the pair rules)
# ---------------------------------------------------------------------------

def _scan(tmp_path, capsys, monkeypatch, files):
    import json
    from pdlint.cli import main
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", *files])
    return json.loads(capsys.readouterr().out)["findings"]


VKV = "vllm serve Qwen/Qwen3-8B --port {port} --kv-transfer-config '{{\"kv_connector\":\"{c}\",\"kv_role\":\"{r}\"}}'\n"


def test_decode_file_with_producer_role_is_paired_by_its_name(tmp_path, capsys, monkeypatch):
    fs = _scan(tmp_path, capsys, monkeypatch, {
        "prefill.sh": VKV.format(port=8100, c="P2pNcclConnector", r="kv_producer"),
        "decode.sh": VKV.format(port=8200, c="NixlConnector", r="kv_producer")})
    (m,) = [f for f in fs if f["code"] == "PD101"]
    assert m["path"] == "decode.sh" and m["severity"] == "error"
    assert "'decode' in decode.sh" in m["message"] and "its flags make it 'prefill'" in m["message"]
    assert m["column"] == VKV.format(port=8200, c="NixlConnector", r="kv_producer").index("kv_producer") + 1
    # paired as prefill.sh -> decode.sh: the pair rules and the deployment rules run
    codes = sorted(f["code"] for f in fs)
    assert "VLLM010" in codes and "VLLM017" in codes


def test_sglang_decode_file_with_prefill_mode_is_paired(tmp_path, capsys, monkeypatch):
    sg = "python -m sglang.launch_server --model-path M --disaggregation-mode prefill --page-size {n}\n"
    fs = _scan(tmp_path, capsys, monkeypatch, {"run_prefill.sh": sg.format(n=32), "run_decode.sh": sg.format(n=64)})
    (m,) = [f for f in fs if f["code"] == "PD101"]
    assert m["path"] == "run_decode.sh" and "--disaggregation-mode is 'prefill'" in m["message"]
    assert "SGL801" in [f["code"] for f in fs]  # page sizes compared as a pair


def test_agreeing_siblings_and_lone_files_get_no_structural_role(tmp_path, capsys, monkeypatch):
    fs = _scan(tmp_path, capsys, monkeypatch, {
        "prefill.sh": VKV.format(port=8100, c="NixlConnector", r="kv_producer"),
        "decode.sh": VKV.format(port=8200, c="NixlConnector", r="kv_consumer"),
        "other/decode.sh": VKV.format(port=8200, c="NixlConnector", r="kv_producer")})
    assert [f for f in fs if f["code"] in ("PD101", "VLLM017", "VLLM010")] == []


def test_crd_role_contradicting_flags_is_paired_by_the_crd(tmp_path, capsys, monkeypatch):
    doc = """apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata: {name: g}
spec:
  roles:
    - name: prefill
      template:
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --model-path, M, --disaggregation-mode, prefill,
                        --page-size, "32"]
    - name: decode
      template:
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --model-path, M, --disaggregation-mode, prefill,
                        --page-size, "64"]
"""
    fs = _scan(tmp_path, capsys, monkeypatch, {"rbg.yaml": doc})
    assert [f["code"] for f in fs if f["code"] == "PD101"] == ["PD101"]
    assert "SGL801" in [f["code"] for f in fs]
