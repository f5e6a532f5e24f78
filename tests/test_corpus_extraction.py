"""Launches, roles and argv extracted from real launch files (copies of
../shared/corpus in tests/data/corpus, origins in tests/data/corpus/SOURCES.md)."""

import json
import os

import pytest

from pdlint.cli import main

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "corpus")


def launches(capsys, monkeypatch, rel):
    monkeypatch.chdir(DATA)
    assert main(["show", "--format", "json", rel]) == 0
    return json.loads(capsys.readouterr().out)["launches"]


def summary(ls):
    return [(l["line"], l["kind"], l["role"], l["entrypoint"]) for l in ls]


def pairs(launch):
    argv = launch["argv"]
    return {argv[i]: argv[i + 1] if i + 1 < len(argv) else None for i in range(len(argv)) if argv[i].startswith("--")}


def test_rbg_standalone_router_prefill_decode(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch, "sgl-project__rbg/examples__inference__pd-disagg-standalone.yaml")
    assert summary(ls) == [(57, "router", None, "python -m sglang_router.launch_router"),
                           (121, "server", "prefill", "python -m sglang.launch_server"),
                           (184, "server", "decode", "python -m sglang.launch_server")]
    assert ls[1]["engine_version"] == "0.5.9"  # from the image tag lmsysorg/sglang:v0.5.9
    assert pairs(ls[1])["--model-path"] == "Qwen/Qwen3-0.6B" and pairs(ls[2])["--disaggregation-mode"] == "decode"
    i = ls[1]["argv"].index("--disaggregation-mode")
    assert ls[1]["origins"][i + 1]["line"] == ls[1]["origins"][i]["line"] + 1  # one token per list item


def test_rbg_v1alpha1_folded_sh_c(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch,
                  "sgl-project__rbg/examples__deprecated__v1alpha1__pd-disagg__sglang__sglang-pd.yaml")
    assert [l["role"] for l in ls] == [None, "prefill", "decode"]
    prefill = ls[1]
    assert pairs(prefill)["--disaggregation-mode"] == "prefill" and "--enable-torch-compile" in prefill["argv"]
    lines = sorted({o["line"] for o in prefill["origins"]})
    assert lines == [70, 71, 72]  # tokens of a folded `>-` block keep their own source lines
    assert prefill["engine_version"] == "0.5.3.post3"  # image v0.5.3.post3: every PyPI release has a table


def test_lws_leader_and_worker_templates(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch, "sgl-project__sglang/docs__references__multi_node_deployment__lws_pd__lws-examples__p.yaml")
    assert [(l["line"], l["role"]) for l in ls] == [(14, "prefill"), (160, "prefill")]
    assert "$(LWS_LEADER_ADDRESS):20102" in " ".join(ls[0]["argv"])


def test_dynamo_v1beta1_components(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch, "ai-dynamo__dynamo/examples__backends__sglang__deploy__v1beta1__disagg.yaml")
    assert summary(ls) == [(42, "server", "decode", "python -m dynamo.sglang"),
                           (80, "server", "prefill", "python -m dynamo.sglang")]
    assert pairs(ls[0])["--page-size"] == "16"


def test_llm_d_disaggregatedset_equals_form(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch,
                  "llm-d__llm-d/guides__pd-disaggregation__modelserver__gpu__sglang__base__disaggregatedset.yaml")
    assert [(l["line"], l["role"]) for l in ls] == [(43, "prefill"), (166, "decode")]
    assert "--disaggregation-transfer-backend=nixl" in ls[0]["argv"]


def test_aibrix_literal_block_with_continuations(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch, "vllm-project__aibrix/samples__disaggregation__sglang__tp-1p1d.yaml")
    assert [(l["kind"], l["role"]) for l in ls] == [("router", None), ("server", "prefill"), ("server", "decode")]
    p = pairs(ls[1])
    assert p["--disaggregation-mode"] == "prefill" and "--disaggregation-transfer-backend=nixl" in ls[1]["argv"]
    o = ls[1]["origins"][ls[1]["argv"].index("--disaggregation-mode")]
    assert (o["line"], o["column"]) == (71, 25)  # inside the `|` block, after `\` continuations
    assert ls[1]["engine_version"] == "0.4.9.post3"  # image aibrix/sglang:v0.4.9.post3


def test_ome_folded_strings_leader_worker_and_router(capsys, monkeypatch):
    ls = launches(capsys, monkeypatch, "sgl-project__ome/config__runtimes__srt__deepseek-rdma-pd-rt.yaml")
    assert [(l["kind"], l["role"]) for l in ls] == [("server", "prefill"), ("server", "prefill"),
                                                    ("server", "decode"), ("server", "decode"), ("router", None)]
    assert "--max-total-tokens" in ls[0]["argv"] and "--max-total-tokens" not in ls[1]["argv"]


@pytest.mark.parametrize("name,role,tp", [("pyscripts__q-prefilltp2.yaml", "prefill", "2"),
                                          ("pyscripts__q-decodetp2.yaml", "decode", "2")])
def test_sglang_config_files(capsys, monkeypatch, name, role, tp):
    # (named alone, its sibling of the other role is judged with it: pdlint.discover.expand_units)
    (l,) = [x for x in launches(capsys, monkeypatch, "Eightina__sglang/" + name)
            if x["path"] == "Eightina__sglang/" + name]
    assert l["role"] == role and l["line"] == 1
    assert pairs(l)["--tensor-parallel-size"] == tp
    o = l["origins"][l["argv"].index("--tensor-parallel-size")]
    assert (o["path"], o["line"], o["column"]) == ("Eightina__sglang/" + name, 4, 1)


def test_whole_copy_scans_without_errors(capsys, monkeypatch):
    monkeypatch.chdir(DATA)
    assert main(["--format", "json", "."]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    assert doc["files"] >= 9 and len(doc["launches"]) >= 20
    # no input errors; the coverage findings are the launch text these files really leave unchecked
    coverage = {"PD020", "PD021", "PD022", "PD023"}
    allowed = coverage | {"PD011", "PD014"}
    assert not [f for f in doc["findings"] if f["code"].startswith("PD0") and f["code"] not in allowed]
    # the copies' sourced helpers (`$SCRIPT_DIR/../../../common/launch_utils.sh`) are not in the copy: looked for
    # beside the script, where they are missing, and skipped; not "outside the repository" (the root-relative
    # reading of ../../../ said so, wrongly: in dynamo they are examples/common/); reported only where a launch
    # after the `source` reads variables no file of the copy sets (TonyLi15's 00_common.sh: $IB_DEVICE, ...)
    assert [(f["path"], f["line"]) for f in doc["findings"] if f["code"] == "PD014"] == [
        ("TonyLi15__sglang-benchmark/scripts__30_run_intra_node_pd.sh", 3)]
    assert "00_common.sh is not in the repository" in [f for f in doc["findings"] if f["code"] == "PD014"][0]["message"]
    assert sorted((f["path"], f["line"], f["code"]) for f in doc["findings"] if f["code"] in coverage) == [
        ("ai-dynamo__dynamo/examples__backends__sglang__launch__disagg_dp_attn.sh", 54, "PD023")]  # $(gpu mem args)
    assert doc["coverage"]["unchecked"] == 1 and doc["coverage"]["launches"] == len(doc["launches"])


def test_merge_keys_and_extension_fields(tmp_path, monkeypatch, capsys):
    (tmp_path / "merge.yaml").write_text(
        "spec:\n  containers:\n    - &base\n      name: prefill\n      command: [python3, -m, sglang.launch_server]\n"
        "      args: [--model-path, /m, --disaggregation-mode, prefill]\n    - <<: *base\n      name: decode\n"
        "      args: [--model-path, /m, --disaggregation-mode, decode]\n")
    (tmp_path / "compose.yaml").write_text(
        "x-sglang: &sglang\n  image: lmsysorg/sglang:v0.5.23\n  command: [python3, -m, sglang.launch_server]\n"
        "services:\n  prefill:\n    <<: *sglang\n    command: [python3, -m, sglang.launch_server, --model-path, /m,"
        " --disaggregation-mode, prefill]\n")
    monkeypatch.chdir(tmp_path)
    assert main(["show", "--format", "json", "."]) == 0
    ls = json.loads(capsys.readouterr().out)["launches"]
    assert [(l["path"], l["role"]) for l in ls] == [("compose.yaml", "prefill"), ("merge.yaml", "prefill"),
                                                     ("merge.yaml", "decode")]
    decode = ls[2]
    i = decode["argv"].index("--disaggregation-mode")
    assert decode["origins"][i]["line"] == 9  # args of the merging container; its command comes from *base
