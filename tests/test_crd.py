"""CRD role adapters (pdlint.formats.crd) and the structure rules PD101, PD102,
PD103, PD105 and PD107, on real manifests (tests/data/structure/crd, origins in
tests/data/structure/SOURCES.md) and small synthetic ones."""

import json
import os
import textwrap

import pytest

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import crd
from pdlint.lint import ConfigResolver

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "structure")


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def codes(out):
    return [f.code for f in out.findings]


def roles(out):
    return [(l.line, l.kind, l.structural_role, l.role) for l in out.launches]


# -- roles per corpus manifest (MANIFEST.yaml roles_identified_by) -------------------

CORPUS = [
    ("examples__inference__pd-disagg-standalone.yaml", "RoleBasedGroup role name",
     [(57, "router", None), (121, "server", "prefill"), (184, "server", "decode")]),
    ("examples__inference__pd-disagg-leader-worker.yaml", "RoleBasedGroup role name",
     [(51, "router", None), (95, "server", "prefill"), (160, "server", "decode")]),
    ("examples__inference__ecosystem__dynamo__pd-disagg.yaml", "RoleBasedGroup role name",
     [(85, "router", None), (142, "server", "prefill"), (194, "server", "decode")]),
    ("examples__inference__ecosystem__mooncake__mooncake-transfer-engine__vllm-pd-disagg-with-mooncake-te.yaml",
     "RoleBasedGroup role name", [(80, "router", None), (130, "server", "prefill"), (188, "server", "decode")]),
    ("examples__deprecated__v1alpha1__pd-disagg__sglang__sglang-pd.yaml", "RoleBasedGroup role name",
     [(24, "router", None), (70, "server", "prefill"), (135, "server", "decode")]),
    ("components__backends__sglang__deploy__disagg.yaml", "service name",
     [(45, "router", None), (96, "server", "decode"), (163, "server", "prefill")]),
    ("examples__backends__vllm__deploy__disagg.yaml", "subComponentType",
     [(29, "server", "decode"), (49, "server", "prefill")]),
    ("examples__backends__sglang__deploy__v1beta1__disagg.yaml", "component type",
     [(42, "server", "decode"), (80, "server", "prefill")]),
    ("docs__samples__llmisvc__single-node-gpu__llm-inference-service-pd-qwen2-7b-gpu.yaml",
     "LLMInferenceService", [(34, "server", "decode"), (91, "server", "prefill")]),
    ("samples__disaggregation__vllm__1p1d.yaml", "StormService role name",
     [(44, "server", "prefill"), (121, "server", "decode")]),
    ("samples__disaggregation__sglang__tp-1p1d.yaml", "StormService role name",
     [(30, "router", None), (66, "server", "prefill"), (142, "server", "decode")]),
    ("config__runtimes__srt__deepseek-rdma-pd-rt.yaml", "OME",
     [(65, "server", "prefill"), (140, "server", "prefill"), (216, "server", "decode"), (286, "server", "decode"),
      (344, "router", None)]),
    ("guides__pd-disaggregation__modelserver__gpu__sglang__base__disaggregatedset.yaml",
     "DisaggregatedSet role name", [(43, "server", "prefill"), (166, "server", "decode")]),
    ("docs__references__multi_node_deployment__lws_pd__lws-examples__p.yaml", "resource name",
     [(14, "server", "prefill"), (160, "server", "prefill")]),
]


@pytest.mark.parametrize("name,how,expected", CORPUS, ids=[c[0][:50] for c in CORPUS])
def test_structural_roles_of_corpus_manifests(name, how, expected):
    out = extract("crd/" + name)
    assert [(l.line, l.kind, l.structural_role) for l in out.launches] == expected
    for l in out.launches:
        assert l.meta["unit"] == l.unit and l.unit.startswith("crd/" + name + "#")
        if l.structural_role:
            assert how in l.meta["role_how"]
            assert l.structural_origin is not None and l.structural_origin.path == "crd/" + name
        if l.engine == "sglang" and l.kind == "server":
            assert l.role == l.structural_role  # the flag agrees with the structure
    assert not [f for f in out.findings if f.severity == "error"]


def test_structural_origin_points_at_the_field_that_names_the_role():
    (p,) = [l for l in extract("crd/examples__backends__vllm__deploy__disagg.yaml").launches
            if l.structural_role == "prefill"]
    assert (p.structural_origin.line, p.structural_origin.column) == (39, 25)  # subComponentType: prefill
    lws = extract("crd/docs__references__multi_node_deployment__lws_pd__lws-examples__p.yaml").launches
    o = lws[0].structural_origin
    assert o.line == 4 and lws[0].meta["group_role"] == "leader" and lws[1].meta["group_role"] == "worker"
    assert lws[0].meta["replica_of"] == lws[1].meta["replica_of"]


def test_rbg_role_templates_are_merged_strategically():
    out = extract("crd/examples__inference__ecosystem__dynamo__pd-disagg.yaml")
    prefill = out.launches[1]
    assert prefill.meta["image"] == "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.1"  # from roleTemplates
    assert prefill.env["NATS_SERVER"].text == "nats://nats:4222"
    assert prefill.env["NATS_SERVER"].origin.line == 63  # the base template's line
    assert prefill.argv[0].origin.line == 146  # the patch's line
    assert "role 'prefill'" in prefill.context and "merged over 1 base layer" in prefill.context


def test_kserve_controller_generated_vllm_command():
    out = extract("crd/docs__samples__llmisvc__single-node-gpu__llm-inference-service-pd-qwen2-7b-gpu.yaml")
    decode, prefill = out.launches
    assert prefill.entrypoint == "vllm serve" and prefill.incomplete
    assert [t.text for t in prefill.argv] == ["--kv_transfer_config",
                                              '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
    assert prefill.argv[1].origin.line == 100 and prefill.meta["controller_generated"] == "kserve"


# kserve/kserve docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_pd_disagg.yaml (aaac4e29), shortened: a config
# a service names in baseRefs has the service's spec; its flags were one PD020 per pool
KSERVE_CONFIG = textwrap.dedent("""\
    apiVersion: serving.kserve.io/v1alpha2
    kind: KIND
    metadata:
      name: llmisvc-config-pd-disagg
    spec:
      template:
        containers:
          - name: main
            image: ghcr.io/llm-d/llm-d-cuda:v0.9.0
            env:
              - name: VLLM_ADDITIONAL_ARGS
                value: "--kv_transfer_config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_consumer\\"}'"
      prefill:
        replicas: 2
        template:
          containers:
            - name: main
              image: ghcr.io/llm-d/llm-d-cuda:v0.9.0
              env:
                - name: VLLM_ADDITIONAL_ARGS
                  value: "--kv_transfer_config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_producer\\"}'"
    """)


@pytest.mark.parametrize("kind", ["LLMInferenceServiceConfig", "LLMInferenceService"])
def test_kserve_config_pools_are_launches(tmp_path, kind):
    (tmp_path / "c.yaml").write_text(KSERVE_CONFIG.replace("KIND", kind))
    out = extract("c.yaml", cwd=str(tmp_path))
    assert [(l.line, l.entrypoint, l.structural_role, l.role) for l in out.launches] == [
        (8, "vllm serve", "decode", "decode"), (17, "vllm serve", "prefill", "prefill")]
    assert out.launches[1].argv[1].origin.line == 21 and out.launches[1].meta["controller_generated"] == "kserve"
    assert not [f for f in out.findings if f.code == "PD020"]


def test_dgd_service_envs_reach_the_launch():
    out = extract("crd/components__backends__sglang__deploy__disagg.yaml")
    assert out.launches[1].env["DYN_SYSTEM_PORT"].text == "9090"
    assert out.launches[1].meta["injects_role"]


def test_role_name_words():
    assert crd.role_of_name("SGLangPrefillWorker") == "prefill"
    assert crd.role_of_name("deepseekr10528-prefill-main") == "prefill"
    assert crd.role_of_name("VllmDecodeWorker") == "decode"
    assert crd.role_of_name("prefill-decode") is None and crd.role_of_name("router") is None


@pytest.mark.parametrize("name, role", [
    # names Helm's `title` filter writes (vllm-project/semantic-router's Dynamo chart, field test rw12/d)
    ("Decodeworker1", "decode"), ("Tinyllamadecode", "decode"), ("Prefillworker0", "prefill"),
    ("Mistraldecode", "decode"),
    # words that only contain the letters: no role
    ("unicode", None), ("encoder", None), ("general", None), ("contextual", None), ("Prefilldecode", None),
])
def test_role_words_inside_one_word(name, role):
    assert crd.role_of_name(name) == role


# -- PD101 ---------------------------------------------------------------------------

RBG = textwrap.dedent("""\
    apiVersion: workloads.x-k8s.io/v1alpha2
    kind: RoleBasedGroup
    metadata:
      name: g
    spec:
      roles:
        - name: prefill
          replicas: 1
          standalonePattern:
            template:
              spec:
                containers:
                  - name: s
                    image: lmsysorg/sglang:v0.5.9
                    command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, MODE]
    """)


def test_pd101_rbg_role_name_vs_flag(tmp_path):
    (tmp_path / "g.yaml").write_text(RBG.replace("MODE", "decode"))
    out = extract("g.yaml", cwd=str(tmp_path))
    (f,) = [f for f in out.findings if f.code == "PD101"]
    assert (f.line, f.severity, f.role) == (15, "error", "decode")
    assert "prefill" in f.message and any(r.line == 7 for r in f.related)
    (tmp_path / "g.yaml").write_text(RBG.replace("MODE", "prefill"))
    assert "PD101" not in codes(extract("g.yaml", cwd=str(tmp_path)))


def test_pd101_dgd_v1beta1_type(tmp_path):
    name = "examples__backends__sglang__deploy__v1beta1__disagg.yaml"
    src = open(os.path.join(DATA, "crd", name)).read()
    assert "PD101" not in codes(extract("crd/" + name))
    (tmp_path / "d.yaml").write_text(_swap_mode(src, "prefill", "decode"))
    (f,) = [f for f in extract("d.yaml", cwd=str(tmp_path)).findings if f.code == "PD101"]
    assert "component type" in f.message and f.role == "decode"


def _swap_mode(text, old, new):
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "--disaggregation-mode" in line:
            if line.rstrip().endswith(old):
                lines[i] = line.replace(old, new)
                return "\n".join(lines)
            if i + 1 < len(lines) and lines[i + 1].strip().strip("-").strip().strip('"') == old:
                lines[i + 1] = lines[i + 1].replace(old, new)
                return "\n".join(lines)
    raise AssertionError("no role flag")


def test_pd101_runtime_sidecar_worker_type(tmp_path):
    name = "examples__deprecated__v1alpha1__pd-disagg__sglang__sglang-pd.yaml"
    src = open(os.path.join(DATA, "crd", name)).read()
    assert "PD101" not in codes(extract("crd/" + name))
    (tmp_path / "r.yaml").write_text(src.replace('"worker_type":"decode"', '"worker_type":"prefill"'))
    (f,) = [f for f in extract("r.yaml", cwd=str(tmp_path)).findings if f.code == "PD101"]
    assert "worker_type" in f.message and f.line == 105


# -- PD105 ---------------------------------------------------------------------------

def test_pd105_structural_role_without_role_flag(tmp_path):
    (tmp_path / "g.yaml").write_text(RBG.replace(", --disaggregation-mode, MODE", ""))
    (f,) = [f for f in extract("g.yaml", cwd=str(tmp_path)).findings if f.code == "PD105"]
    assert f.severity == "warning" and f.line == 15
    (tmp_path / "g.yaml").write_text(RBG.replace("MODE", "prefill"))
    assert "PD105" not in codes(extract("g.yaml", cwd=str(tmp_path)))


def test_pd105_quiet_where_the_operator_injects_the_role():
    out = extract("crd/examples__backends__vllm__deploy__disagg.yaml")
    assert "PD105" not in codes(out)


# -- PD102 ---------------------------------------------------------------------------

def test_pd102_ome_leader_worker_drift():
    out = extract("crd/config__runtimes__srt__deepseek-rdma-pd-rt.yaml")
    (f,) = [f for f in out.findings if f.code == "PD102"]
    assert (f.line, f.column, f.role) == (94, 13, "prefill")
    assert "--max-total-tokens 131072" in f.message and "leader" in f.message


def test_pd102_quiet_when_only_rank_flags_differ():
    out = extract("crd/docs__references__multi_node_deployment__lws_pd__lws-examples__p.yaml")
    assert "PD102" not in codes(out)  # the worker omits --port/--host only


LWS = textwrap.dedent("""\
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata:
      name: m-decode
    spec:
      leaderWorkerTemplate:
        leaderTemplate:
          spec:
            containers:
              - name: l
                command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, decode,
                          --node-rank, "0", --tp-size, "8", --page-size, "64"]
        workerTemplate:
          spec:
            containers:
              - name: w
                command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, decode,
                          --node-rank, "1", --tp-size, "8", --page-size, "PAGE"]
    """)


def test_pd102_lws_value_differs(tmp_path):
    (tmp_path / "l.yaml").write_text(LWS.replace("PAGE", "32"))
    (f,) = [f for f in extract("l.yaml", cwd=str(tmp_path)).findings if f.code == "PD102"]
    assert "--page-size" in f.message and "'64'" in f.message and "'32'" in f.message
    (tmp_path / "l.yaml").write_text(LWS.replace("PAGE", "64"))
    assert "PD102" not in codes(extract("l.yaml", cwd=str(tmp_path)))


@pytest.mark.parametrize("extra,fires", [
    # veophi/rbg examples/multi-nodes/sglang.yaml (field test rw8/a): metrics and front-end options on the
    # leader only; the worker node starts schedulers only
    (', --enable-metrics, --api-key, k, --chat-template, t.jinja', False),
    (', --max-total-tokens, "131072"', True),
    (', --reasoning-parser, deepseek-r1', True),    # the scheduler reads it (think-end tokens)
])
def test_pd102_leader_only_front_end_flags(tmp_path, extra, fires):
    text = LWS.replace("PAGE", "64").replace('--page-size, "64"]', '--page-size, "64"' + extra + "]", 1)
    (tmp_path / "l.yaml").write_text(text)
    assert ("PD102" in codes(extract("l.yaml", cwd=str(tmp_path)))) is fires


# -- PD103 ---------------------------------------------------------------------------

def test_pd103_ome_unexported_assignments():
    out = extract("crd/config__runtimes__srt__deepseek-rdma-pd-rt.yaml")
    found = [(f.line, f.column) for f in out.findings if f.code == "PD103"]
    assert found == [(63, 13), (64, 13)]


SH = textwrap.dedent("""\
    containers:
      - name: p
        image: lmsysorg/sglang:v0.5.9
        command: [sh, -c]
        args:
          - SCRIPT
    """)


@pytest.mark.parametrize("script,fires", [
    ("X=1; python3 -m sglang.launch_server --model-path m", True),
    ("export X=1; python3 -m sglang.launch_server --model-path m", False),
    ("X=1 python3 -m sglang.launch_server --model-path m", False),
    ("X=1; export X; python3 -m sglang.launch_server --model-path m", False),
    ("P=8000; python3 -m sglang.launch_server --model-path m --port $P", False),
    ("set -a; X=1; python3 -m sglang.launch_server --model-path m", False),
    # a script that starts no server (llumnix's mooncake_master container, field test rw14/h)
    ("PORTS=\"$A $B\"; mooncake_master --rpc_port 50051", False),
])
def test_pd103_cases(tmp_path, script, fires):
    (tmp_path / "s.yaml").write_text(SH.replace("SCRIPT", repr(script)))
    assert ("PD103" in codes(extract("s.yaml", cwd=str(tmp_path)))) is fires


# -- PD107 ---------------------------------------------------------------------------

def test_pd107_router_wired_to_replica_zero_only():
    out = extract("crd/examples__inference__pd-disagg-leader-worker.yaml")
    found = sorted((f.line, f.message.split(":")[0]) for f in out.findings if f.code == "PD107")
    assert [x[0] for x in found] == [56, 58]
    assert "runs 4 replicas" in [f for f in out.findings if f.line == 58][0].message


def test_pd107_quiet_when_every_replica_is_listed():
    assert "PD107" not in codes(extract("crd/examples__inference__pd-disagg-standalone.yaml"))


RBG_MINI_LB = textwrap.dedent("""\
    apiVersion: workloads.x-k8s.io/v1alpha1
    kind: RoleBasedGroup
    metadata:
      name: sglang-pd
    spec:
      roles:
      - name: scheduler
        replicas: 1
        template:
          spec:
            containers:
            - name: scheduler
              command: [sh, -c, "python3 -m sglang.srt.disaggregation.mini_lb --prefill PREFILL --decode DECODE --port 8000"]
      - name: prefill
        replicas: 2
        template:
          spec:
            containers:
            - name: p
              command: [sh, -c, "python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 8000"]
      - name: decode
        replicas: 1
        template:
          spec:
            containers:
            - name: d
              command: [sh, -c, "python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 8000"]
    """)


@pytest.mark.parametrize("prefill,fires", [
    # veophi/rbg examples/pd-disagg/sglang/sglang-pd.yaml (field test rw8/a): `--prefill` takes several URLs
    ("http://sglang-pd-prefill-0.sglang-pd-prefill:8000 http://sglang-pd-prefill-1.sglang-pd-prefill:8000", False),
    ("http://sglang-pd-prefill-0.sglang-pd-prefill:8000 34000 http://sglang-pd-prefill-1.sglang-pd-prefill:8000",
     False),
    ("http://sglang-pd-prefill-0.sglang-pd-prefill:8000", True),
    ("http://sglang-pd-prefill-0:8000", True),    # the short pod name
])
def test_pd107_reads_every_url_of_a_router_flag(tmp_path, prefill, fires):
    text = RBG_MINI_LB.replace("PREFILL", prefill).replace("DECODE", "http://sglang-pd-decode-0:8000")
    (tmp_path / "rbg.yaml").write_text(text)
    out = extract("rbg.yaml", cwd=str(tmp_path))
    found = [f for f in out.findings if f.code == "PD107"]
    assert bool(found) is fires, [f.message for f in found]
    if fires:
        assert found[0].message.endswith("sglang-pd-prefill-1 never receives traffic")


@pytest.mark.parametrize("prefill,fires", [
    # field test rw8/a: a RoleBasedGroup router's URL names the pod through its headless Service, so the port is
    # the container's own
    ("http://sglang-pd-prefill-0.sglang-pd-prefill:9999 http://sglang-pd-prefill-1.sglang-pd-prefill:9999", True),
    ("http://sglang-pd-prefill-0.sglang-pd-prefill:8000 http://sglang-pd-prefill-1.sglang-pd-prefill:8000", False),
    ("http://sglang-pd-prefill:9999", False),    # a Service: it may map 9999 to the container's 8000
])
def test_pd154_router_port_of_a_pod_address(tmp_path, capsys, monkeypatch, prefill, fires):
    from pdlint.cli import main
    text = RBG_MINI_LB.replace("PREFILL", prefill).replace("DECODE", "http://sglang-pd-decode-0.sglang-pd-decode:8000")
    (tmp_path / "rbg.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "--format", "json", "--exit-zero", "rbg.yaml"])
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "PD154"]
    assert bool(found) is fires, found
