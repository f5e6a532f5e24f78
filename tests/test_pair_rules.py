"""Pair rules: every SGLang pair rule fires on its firing examples and stays
quiet on its quiet ones; pair findings sit on the launch to edit with the other
launch in ``related``; the deployment rules (PD150-PD156) and the router
bootstrap rule (SGL824) on small scripts; and the corpus's cross-role problems
(tests/data/corpus, origins in tests/data/corpus/SOURCES.md)."""

import json
import os

import pytest

from pdlint.cli import main
from pdlint.engines.sglang.pairbase import PAIR_RULES, pair_judge
from pdlint.rules import all_rules, get

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "corpus")
SG = "python -m sglang.launch_server --model-path M"

all_rules()
CASES = [pytest.param(code, e, id=f"{code}-{'fire' if e.fires else 'quiet'}-{i}")
         for code, pr in sorted(PAIR_RULES.items()) for i, e in enumerate(pr.examples)]


@pytest.mark.parametrize("code,example", CASES)
def test_pair_rule_example(code, example):
    j = pair_judge(example.prefill, example.decode, dict(example.env_prefill), dict(example.env_decode),
                   example.version)
    if example.fires:
        assert code in j.codes, (example, j.messages)
    else:
        assert code not in j.codes, (example, j.messages)
        assert not j.errors, (example, j.messages)  # quiet examples are pairs SGLang serves


def test_pair_rules_are_documented():
    for code, pr in PAIR_RULES.items():
        r = pr.rule
        assert r.check is None and not r.examples  # never run by the single-launch stage
        example, example_fixed = r.doc_commands()
        assert r.summary and r.why and r.fix and example and example_fixed, code
        assert "# prefill" in example and "# decode" in example
        assert r.upstream or pr.message
        doc = r.docs()
        assert "## Example" in doc and "## Fix" in doc
    for code in ("PD150", "PD151", "PD152", "PD153", "PD154", "PD155", "PD156", "SGL824"):
        r = get(code)
        assert r is not None and r.summary and r.why and r.fix, code


def test_page_size_message_quotes_sglang():
    j = pair_judge("--page-size 32", "--page-size 64")
    assert j.messages == ["Page size mismatch: prefill server has page_size=32, but decode server has page_size=64. "
                          "Both servers must use the same --page-size value."]


def test_rule_docs_print(capsys):
    assert main(["rule", "SGL801"]) == 0
    out = capsys.readouterr().out
    assert "Page size mismatch" in out and "# prefill" in out and "xr-page-size" in out


# ---------------------------------------------------------------------------
# placement through the whole pipeline
# ---------------------------------------------------------------------------

def check(tmp_path, capsys, monkeypatch, files: dict, args=()):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", *args, *files])
    return json.loads(capsys.readouterr().out)["findings"]


def codes(findings, prefix=("SGL8", "PD15", "VLLM", "TRT")):
    return sorted(f["code"] for f in findings if f["code"].startswith(prefix))


def test_pair_finding_sits_on_the_decode_token_with_the_prefill_related(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {
        "run_prefill.sh": f"CUDA_VISIBLE_DEVICES=0 {SG} \\\n  --disaggregation-mode prefill --page-size 32\n",
        "run_decode.sh": f"CUDA_VISIBLE_DEVICES=1 {SG} \\\n  --disaggregation-mode decode --page-size 64\n"})
    (f,) = [f for f in fs if f["code"] == "SGL801"]
    assert (f["path"], f["line"], f["column"], f["role"], f["severity"]) == ("run_decode.sh", 2, 44, "decode", "error")
    assert f["message"].startswith("Page size mismatch: prefill server has page_size=32, but decode server has "
                                   "page_size=64.")
    assert {"path": "run_prefill.sh", "line": 2, "column": 45,
            "note": "the prefill launch sets --page-size 32 here"} in f["related"]


def test_missing_flag_points_at_the_launch(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {
        "pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
                  f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 "
                  f"--speculative-algorithm EAGLE --speculative-draft-model-path D\n")})
    (f,) = [f for f in fs if f["code"] == "SGL809"]
    assert (f["line"], f["column"], f["role"], f["severity"]) == (1, 1, "prefill", "warning")
    assert any(r["line"] == 2 and "--speculative-algorithm EAGLE" in r["note"] for r in f["related"])


def test_clean_pair_has_no_pair_findings(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {
        "pd.sh": (f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --page-size 64 "
                  f"--disaggregation-transfer-backend nixl &\n"
                  f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --page-size 64 --port 30001 "
                  f"--disaggregation-transfer-backend nixl &\n"
                  "python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 "
                  "--decode http://127.0.0.1:30001\n")})
    assert codes(fs) == []


# ---------------------------------------------------------------------------
# PD150-PD156, SGL824
# ---------------------------------------------------------------------------

DEPLOYMENT_CASES = [
    # (rule, firing script, quiet script)
    ("PD150",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode &\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"),
    ("PD150",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode prefill --port 30001 &\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode prefill --port 30001 --disaggregation-bootstrap-port 8999 &\n"),
    ("PD151",
     f"{SG} --disaggregation-mode prefill &\n{SG} --disaggregation-mode decode --port 30001 &\n",
     f"{SG} --disaggregation-mode prefill --mem-fraction-static 0.4 &\n"
     f"{SG} --disaggregation-mode decode --port 30001 --mem-fraction-static 0.45 &\n"),
    ("PD152",
     f"{SG} --disaggregation-mode prefill &\nCUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001\n"),
    ("PD153",
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --tp 2\n",
     f"CUDA_VISIBLE_DEVICES=1,2 {SG} --disaggregation-mode decode --tp 2\n"),
    ("PD154",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --port 30000 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30002 --decode http://h:30001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --port 30002 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30002 --decode http://h:30001\n"),
    ("PD155",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://g-decode-0:30000 "
     "--decode http://g-prefill-0:30001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://g-prefill-0:30000 "
     "--decode http://g-decode-0:30001\n"),
    ("PD156",
     "CUDA_VISIBLE_DEVICES=0 vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
     "\"kv_role\":\"kv_producer\"}' &\n"
     "CUDA_VISIBLE_DEVICES=1 vllm serve M --port 8001 --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
     "\"kv_role\":\"kv_consumer\"}' &\n"
     "VLLM_NIXL_SIDE_CHANNEL_PORT=1 true\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:8000 --decode http://h:8001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --port 8000 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 8001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:8000 --decode http://h:8001\n"),
    ("SGL824",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30000 8998 "
     "--decode http://h:30001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30000 8995 "
     "--decode http://h:30001\n"),
    ("SGL824",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
     "python -m sglang.srt.disaggregation.mini_lb --prefill http://h:30000 --decode http://h:30001\n",
     f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
     f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 --disaggregation-bootstrap-port 8995 &\n"
     "python -m sglang.srt.disaggregation.mini_lb --prefill http://h:30000 --decode http://h:30001\n"),
    # sglang-router's other console scripts and `python -m sglang_router` (its cli.main: launch / server)
    *(("SGL824",
       f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
       f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
       f"{router} --pd-disaggregation --prefill http://h:30000 8998 --decode http://h:30001\n",
       f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 &\n"
       f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
       f"{router} --pd-disaggregation --prefill http://h:30000 8995 --decode http://h:30001\n")
      for router in ("smg launch", "amg launch", "python3 -m sglang_router launch")),
]


@pytest.mark.parametrize("code,fire,quiet", DEPLOYMENT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(DEPLOYMENT_CASES)])
def test_deployment_rules(code, fire, quiet, tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {"fire/pd.sh": fire})
    assert code in codes(fs), [f["message"] for f in fs]
    fs = check(tmp_path, capsys, monkeypatch, {"quiet/pd.sh": quiet})
    assert code not in codes(fs), [f["message"] for f in fs if f["code"] == code]
    assert not [f for f in fs if f["severity"] == "error" and f["code"].startswith(("PD15", "SGL8"))], fs


def test_branches_and_pods_are_not_colocated(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {
        "roles.sh": (f'if [ "$1" = prefill ]; then\n  {SG} --disaggregation-mode prefill\n'
                     f'else\n  {SG} --disaggregation-mode decode\nfi\n')})
    assert not [f for f in fs if f["code"] in ("PD150", "PD151")]


def test_docker_without_host_network_has_its_own_ports(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {"pd.sh": (
        f"docker run -d --gpus '\"device=0\"' img {SG} --disaggregation-mode prefill\n"
        f"docker run -d --gpus '\"device=1\"' img {SG} --disaggregation-mode decode\n")})
    assert [f for f in fs if f["code"].startswith("PD15")] == []
    fs = check(tmp_path, capsys, monkeypatch, {"h.sh": (
        f"docker run -d --network=host --gpus all img {SG} --disaggregation-mode prefill\n"
        f"docker run -d --network=host --gpus all img {SG} --disaggregation-mode decode\n")})
    assert {"PD150", "PD151"} <= set(codes(fs))


@pytest.mark.parametrize("pin0,pin1", [
    ("--gpus '\"device=0\"'", "--gpus '\"device=1\"'"),
    ("--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=0", "--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=1"),
])
def test_docker_gpus_of_an_image_in_a_variable(pin0, pin1, tmp_path, capsys, monkeypatch):
    # littlemex/pd-disaggregated-inference-on-aws scripts/singlenode-lmcache (field test rw7/a): the image's
    # entry point is `${BASE_IMAGE}`, whose text is on another line; the wrapper's words say which GPUs
    def script(p, d):
        kv = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_%s"}'
        run = ("docker run -d --name %s %s --network host ${BASE_IMAGE} --model /m --port %d "
               "--gpu-memory-utilization 0.85 --kv-transfer-config '%s'\n")
        return ('BASE_IMAGE="${BASE_IMAGE:-vllm/vllm-openai:v0.11.0}"\n' + run % ("p", p, 8100, kv % "producer")
                + run % ("d", d, 8200, kv % "consumer"))
    fs = check(tmp_path, capsys, monkeypatch, {"apart/pd.sh": script(pin0, pin1)})
    assert "PD151" not in codes(fs), fs
    fs = check(tmp_path, capsys, monkeypatch, {"same/pd.sh": script(pin0, pin0)})
    assert "PD151" in codes(fs)


def test_partial_pinning_is_reported_once_per_unpinned_launch(tmp_path, capsys, monkeypatch):
    # one unpinned prefill, two pinned decodes: one PD152 on the prefill naming both pinned launches
    fs = check(tmp_path, capsys, monkeypatch, {"pd.sh": (
        f"{SG} --disaggregation-mode prefill &\n"
        f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30001 &\n"
        f"CUDA_VISIBLE_DEVICES=2 {SG} --disaggregation-mode decode --port 30002 &\n")})
    (f,) = [f for f in fs if f["code"] == "PD152"]
    assert f["role"] == "prefill" and f["line"] == 1
    assert "pinned to GPU 1" in f["message"] and "1 other pinned launch" in f["message"]
    assert sorted(r["line"] for r in f["related"]) == [2, 3]


def test_port_collision_names_both_launches(tmp_path, capsys, monkeypatch):
    fs = check(tmp_path, capsys, monkeypatch, {"pd.sh": (
        f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --port 30000 &\n"
        f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 30000 &\n")})
    (f,) = [f for f in fs if f["code"] == "PD150"]
    assert (f["line"], f["role"]) == (2, "decode") and "port 30000 is used twice" in f["message"]
    assert any(r["line"] == 1 and "prefill" in r["note"] for r in f["related"])


# ---------------------------------------------------------------------------
# the corpus
# ---------------------------------------------------------------------------

def corpus(capsys, monkeypatch, *paths):
    monkeypatch.chdir(DATA)
    main(["check", "--format", "json", "--exit-zero", *paths])
    return json.loads(capsys.readouterr().out)["findings"]


def test_generated_randomly_context_length(capsys, monkeypatch):
    fs = corpus(capsys, monkeypatch, "GeneratedRandomly__SGLang-reproduce")
    (f,) = [f for f in fs if f["code"] == "SGL823"]
    assert f["path"] == "GeneratedRandomly__SGLang-reproduce/run_prefill.sh" and f["line"] == 56
    assert "8192" in f["message"] and "4500" in f["message"] and f["severity"] == "warning"
    assert any(r["path"].endswith("run_decode.sh") and r["line"] == 56 for r in f["related"])
    assert [x for x in fs if x["code"] == "SGL824"] == []  # no bootstrap port: both default to 8998


def test_dynamo_disagg_sh_gpu_pinning(capsys, monkeypatch):
    fs = corpus(capsys, monkeypatch, "ai-dynamo__dynamo/components__backends__sglang__launch__disagg.sh")
    (f,) = [f for f in fs if f["code"].startswith("PD15")]
    assert (f["code"], f["line"], f["role"]) == ("PD152", 48, "prefill")
    assert "GPU 1" in f["message"] and "$PREFILL_TP" in f["message"]
    assert any(r["line"] == 62 and "pinned" in r["note"] for r in f["related"])


def test_ascend_asymmetric_speculation_steps_are_each_role_s_own(capsys, monkeypatch):
    # prefill NEXTN 1 step / 2 draft tokens, decode 3 / 4: the hand-over is the draft top-k and hidden states
    # (SGLang 0.5.23 disaggregation/prefill.py:1036, decode.py:2727), not the step counts (field test rw15/j)
    fs = corpus(capsys, monkeypatch, "shun8686__sglang")
    assert [f for f in fs if f["code"] == "SGL812"] == []
    assert [x for x in fs if x["code"] == "SGL824"] == []  # router passes the prefill's bootstrap port 8995


@pytest.mark.parametrize("paths", [
    ["alexsun07__recipe"], ["Eightina__sglang"],
    ["sgl-project__rbg/examples__inference__pd-disagg-standalone.yaml"],
    ["vllm-project__vllm/examples__others__lmcache__disagg_prefill_lmcache_v1__disagg_vllm_launcher.sh"],
    ["ai-dynamo__dynamo/examples__backends__vllm__launch__disagg.sh"],
    ["NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__ctx_extra-llm-api-config.yaml",
     "NVIDIA__TensorRT-LLM/examples__disaggregated__slurm__simple_example__gen_extra-llm-api-config.yaml"],
    ["kserve__kserve/docs__samples__llmisvc__single-node-gpu__llm-inference-service-pd-qwen2-7b-gpu.yaml"],
])
def test_clean_corpus_pairs_have_no_pair_findings(paths, capsys, monkeypatch):
    fs = corpus(capsys, monkeypatch, *paths)
    assert [(f["code"], f["message"]) for f in fs if f["code"].startswith(("SGL8", "PD15", "VLLM", "TRT"))] == []


def test_sgl_pdlb_load_balancer_is_a_router(tmp_path, capsys, monkeypatch):
    # SGLang 0.4.6-0.4.7's Rust PD load balancer (sgl-pdlb/py_src/sgl_pdlb/launch_lb.py), as a benchmark script
    # in the code index starts it: linked to its servers, and its URL ports compared (PD154)
    servers = (f"CUDA_VISIBLE_DEVICES=0 {SG} --disaggregation-mode prefill --port 30000 &\n"
               f"CUDA_VISIBLE_DEVICES=1 {SG} --disaggregation-mode decode --port 40000 &\n")
    lb = "python3 -m sgl_pdlb.launch_lb --prefill http://localhost:30000 --decode http://localhost:{} --port 8000 &\n"
    fs = check(tmp_path, capsys, monkeypatch, {"bad/pd.sh": lb.format(40001) + servers})
    assert "PD154" in codes(fs)
    fs = check(tmp_path, capsys, monkeypatch, {"good/pd.sh": lb.format(40000) + servers})
    assert "PD154" not in codes(fs) and "PD020" not in codes(fs)


@pytest.mark.parametrize("tpu,overlap", [
    ("docker run -d --network host vllm/vllm-tpu:nightly", False),   # tpu-inference's examples: chips, not GPUs
    ("TPU_VISIBLE_CHIPS={chip}", False),
    ("", True),
])
def test_tpu_launches_have_no_gpu_placement(tpu, overlap, tmp_path, capsys, monkeypatch):
    kv = '{"kv_connector":"NixlConnector","kv_role":"kv_%s"}'
    text = "".join(f"{tpu.format(chip=chip)} vllm serve m --port {port} --kv-transfer-config '{kv % role}' &\n"
                   for chip, port, role in ((0, 8100, "producer"), (4, 8200, "consumer")))
    fs = check(tmp_path, capsys, monkeypatch, {"pd.sh": text})
    assert ("PD151" in codes(fs)) is overlap, text
