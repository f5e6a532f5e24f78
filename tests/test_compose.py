"""Docker Compose files (pdlint.formats.compose) and exec-form list items that
hold a whole command line (PD050)."""

import os
import textwrap

from pdlint.cli import main
from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import compose
from pdlint.formats import yamltree as yt
from pdlint.lint import ConfigResolver
from pdlint.text import SourceFile, TStr

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "formats")


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def argv(launch):
    return [t.text for t in launch.argv]


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


# -- real files ------------------------------------------------------------------

def test_sglang_docker_compose_entrypoint_string_plus_multiline_command():
    out = extract("compose/sgl-project__sglang__docker__compose.yaml")
    (l,) = out.launches
    assert (l.entrypoint, l.role, l.line) == ("python -m sglang.launch_server", "null", 14)
    assert argv(l) == ["--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--host", "0.0.0.0", "--port", "30000"]
    assert (l.argv[2].origin.line, l.argv[2].origin.column) == (17, 7)
    assert l.env["HF_TOKEN"].text == "<secret>"
    assert l.meta["image"] == "lmsysorg/sglang:latest" and not l.incomplete
    assert out.findings == []


def test_harbor_compose_folded_command_with_host_variables_is_incomplete_not_clean():
    out = extract("compose/av__harbor__services__compose.sglang.yml")
    (l,) = out.launches
    assert argv(l) == ["--model-path", "${HARBOR_SGLANG_MODEL}", "--host", "0.0.0.0", "--port", "30000",
                       "${HARBOR_SGLANG_EXTRA_ARGS}"]
    assert l.argv[1].opaque and l.argv[-1].opaque and l.incomplete
    assert l.env["HF_TOKEN"].opaque  # ${HARBOR_HF_TOKEN}: the shell running compose supplies it


# -- the PD fixture ----------------------------------------------------------------

def test_compose_pd_services_roles_argv_env_and_interpolation():
    out = extract("compose/pd/docker-compose.yaml")
    by = {l.meta["resource_name"]: l for l in out.launches}
    assert set(by) == {"prefill", "decode", "decode-shell", "router"}
    p, d, ds, r = by["prefill"], by["decode"], by["decode-shell"], by["router"]
    assert (p.role, d.role, ds.role, r.kind) == ("prefill", "decode", "decode", "router")
    assert (p.structural_role, p.meta["role_how"], p.structural_origin.line) == ("prefill", "compose service name", 10)
    # string command: go-shellwords splitting, quotes removed, .env and default interpolation
    assert argv(p) == ["--model-path", "/models/qwen3-8b", "--tp-size", "2", "--disaggregation-mode", "prefill",
                       "--port", "30000", "--host", "0.0.0.0"]
    assert p.argv[1].origin.path.endswith(".env") and p.argv[1].origin.line == 2
    assert p.argv[1].origin.chain[0].note == "${MODEL_PATH}"
    assert (p.argv[7].origin.line, p.argv[7].origin.column) == (18, 30)  # ${PREFILL_PORT:-30000}: the default
    # the service's own environment list replaces the merged x- template's mapping (YAML merge key)
    assert set(p.env) == {"CUDA_VISIBLE_DEVICES", "MC_TE_METRIC"}
    # entrypoint list + command list
    assert d.command[0].text == "python3" and argv(d)[:4] == ["--model-path", "/models/qwen3-8b", "--tp-size", "2"]
    assert d.env["HF_TOKEN"].opaque and d.env["SGLANG_HOST_IP"].text == "10.0.0.1"
    # bash -c with $$MODEL: the container's shell reads the service environment (extends merges it key by key)
    assert argv(ds)[:2] == ["--model-path", "/models/qwen3-8b"]
    assert [h.note for h in ds.argv[1].origin.chain] == ["$MODEL", "${MODEL_PATH}"]
    assert set(ds.env) >= {"MODEL", "HF_TOKEN", "SGLANG_HOST_IP"}
    # a string command stops at `2>&1 | tee ...` (Compose drops the rest and the descriptor number)
    assert argv(r)[-1] == "http://decode-shell:30002"
    assert len({l.unit for l in out.launches}) == 1
    assert not [f for f in out.findings if f.severity == "error"]


def test_x_extension_fields_are_templates_not_services(tmp_path):
    write(tmp_path, "compose.yaml", """\
        x-base: &base
          image: lmsysorg/sglang:v0.5.9
          command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill
        services:
          prefill:
            <<: *base
        """)
    out = extract("compose.yaml", cwd=str(tmp_path))
    assert [l.meta["resource_name"] for l in out.launches] == ["prefill"]
    assert out.launches[0].argv[0].origin.chain[-1].note == "anchor &base"


def test_compose_interpolation_and_word_splitting():
    src = SourceFile("c.yaml", "a ${X:-d} ${Y-e} ${Z:+z} $$W ${U} ${X:-${Y:-n}}")
    env = {"Y": TStr.synthetic("", "<env>"), "Z": TStr.synthetic("zz", "<env>")}
    t = compose.interpolate(TStr.from_source(src), env)
    assert t.text == "a d  z $W ${U} n"
    assert [w.text for w in compose.shellwords(t)] == ["a", "d", "z", "$W", "${U}", "n"]
    words = compose.shellwords(TStr.from_source(SourceFile("c", "x 'a b' \"c\\\"d\" e\\ f; g")))
    assert [w.text for w in words] == ["x", "a b", 'c"d', "e f"]


def test_only_a_services_mapping_of_services_is_compose():
    assert not compose.is_compose([])
    assert not compose.is_compose(yt.compose("services: [a, b]\n"))
    assert not compose.is_compose(yt.compose("apiVersion: v1\nkind: List\nservices: {a: {image: x}}\n"))
    assert compose.is_compose(yt.compose("services:\n  a:\n    image: x\n"))


# -- PD050 ---------------------------------------------------------------------

K8S_PACKED = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: sglang-prefill
    spec:
      template:
        spec:
          containers:
            - name: server
              image: lmsysorg/sglang:v0.5.9
              command:
                - python3 -m sglang.launch_server --model-path /models/m --disaggregation-mode prefill
              args:
                - --tp-size 2
                - --chat-template
                - my template
    """


def test_pd050_whole_command_line_in_one_kubernetes_item_is_an_error_and_still_checked(tmp_path):
    write(tmp_path, "deploy.yaml", K8S_PACKED)
    out = extract("deploy.yaml", cwd=str(tmp_path))
    (l,) = out.launches
    assert argv(l) == ["--model-path", "/models/m", "--disaggregation-mode", "prefill", "--tp-size", "2",
                       "--chat-template", "my template"]
    assert l.role == "prefill" and l.argv[1].origin.column == 60
    found = sorted((f.line, f.column, f.code, f.severity) for f in out.findings if f.code == "PD050")
    assert found == [(12, 15, "PD050", "error"), (14, 15, "PD050", "error")]
    msgs = [f.message for f in sorted(out.findings, key=lambda f: f.line) if f.code == "PD050"]
    assert "kubelet runs a program literally named" in msgs[0] and "ONE argument '--tp-size 2'" in msgs[1]
    assert not [f for f in out.findings if f.code.startswith("SGL")]  # the split flags are what SGLang checks


def test_pd050_folded_scalar_item_and_compose_list(tmp_path):
    write(tmp_path, "k.yaml", """\
        kind: Pod
        apiVersion: v1
        metadata: {name: decode}
        spec:
          containers:
            - name: s
              image: lmsysorg/sglang:v0.5.9
              command:
                - >
                  python3 -m sglang.launch_server
                  --model-path /m --disaggregation-mode decode
        """)
    write(tmp_path, "compose.yaml", """\
        services:
          decode:
            image: lmsysorg/sglang:v0.5.9
            entrypoint: ["python3 -m sglang.launch_server"]
            command: ["--model-path", "/m"]
        """)
    out = extract("k.yaml", "compose.yaml", cwd=str(tmp_path))
    assert sorted((f.path, f.line) for f in out.findings if f.code == "PD050") == [("compose.yaml", 4), ("k.yaml", 10)]
    assert "Docker runs a program" in next(f.message for f in out.findings if f.path == "compose.yaml")
    assert [argv(l)[:2] for l in out.launches] == [["--model-path", "/m"]] * 2


def test_pd050_item_with_kubernetes_references(tmp_path):
    # sgl-project/rbg examples/pd-disagg/sglang/deepseek-r1/deepseek-r1.yaml (471531d0), shortened: the folded
    # item holds $(LWS_...) references; it was left unsplit (four PD020 "the command's program is <the whole
    # line> whose value pdlint cannot see"), so neither PD050 nor any check ran
    write(tmp_path, "k.yaml", """\
        kind: LeaderWorkerSet
        apiVersion: leaderworkerset.x-k8s.io/v1
        metadata: {name: prefill}
        spec:
          leaderWorkerTemplate:
            leaderTemplate:
              spec:
                containers:
                  - name: sglang
                    image: lmsysorg/sglang:v0.5.9
                    command:
                      - >
                        python3 -m sglang.launch_server --model-path /work/models
                        --dist-init-addr $(LWS_LEADER_ADDRESS):20102
                        --disaggregation-mode prefill
        """)
    out = extract("k.yaml", cwd=str(tmp_path))
    assert [(f.line, f.code) for f in out.findings if f.code in ("PD050", "PD020")] == [(13, "PD050")]
    (l,) = out.launches
    assert argv(l) == ["--model-path", "/work/models", "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20102",
                       "--disaggregation-mode", "prefill"]
    assert l.role == "prefill" and l.argv[3].opaque and not l.argv[1].opaque


def test_pd050_quiet_on_sh_c_scripts_json_values_and_compose_strings(tmp_path):
    write(tmp_path, "k.yaml", """\
        kind: Pod
        apiVersion: v1
        metadata: {name: decode}
        spec:
          containers:
            - name: s
              image: lmsysorg/sglang:v0.5.9
              command: [sh, -c]
              args: ["python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode"]
            - name: v
              image: vllm/vllm-openai:v0.9.0
              command: [vllm, serve, /m]
              args: ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}',
                     "--served-model-name", "my model"]
        """)
    write(tmp_path, "compose.yaml", """\
        services:
          decode:
            image: lmsysorg/sglang:v0.5.9
            command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode
        """)
    out = extract("k.yaml", "compose.yaml", cwd=str(tmp_path))
    assert len(out.launches) == 3
    assert not [f for f in out.findings if f.code == "PD050"]


def test_pd050_reported_by_the_cli(tmp_path, capsys, monkeypatch):
    write(tmp_path, "deploy.yaml", K8S_PACKED)
    monkeypatch.chdir(tmp_path)
    assert main(["deploy.yaml"]) == 1
    out = capsys.readouterr().out
    assert "deploy.yaml:12:15: PD050 error" in out and "help: Write one list item per argument" in out


# av/harbor services/compose.vllm.yml and services/vllm/Dockerfile (field test rw14/h), cut down: the service's
# image is built from a Dockerfile whose FROM names vLLM's image through build arguments
HARBOR_COMPOSE = """\
    services:
      vllm:
        build:
          context: ./vllm
          dockerfile: Dockerfile
          args:
            HARBOR_VLLM_VERSION: v0.11.0
        command: >
          --model Qwen/Qwen3-8B
          --no-such-flag
    """
HARBOR_DOCKERFILE = """\
    ARG HARBOR_VLLM_VERSION=latest
    ARG HARBOR_VLLM_IMAGE=vllm/vllm-openai

    FROM ${HARBOR_VLLM_IMAGE}:${HARBOR_VLLM_VERSION}
    RUN pip install bitsandbytes
    """


def _findings(tmp_path, monkeypatch, capsys):
    import json
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--no-cache", "--exit-zero", "compose.yaml"])
    return [(f["code"], f["path"], f["line"]) for f in json.loads(capsys.readouterr().out)["findings"]]


def test_a_service_built_from_a_dockerfile_runs_its_base_images_entry_point(tmp_path, monkeypatch, capsys):
    """Its command passed as 'No launch text found': the service had no image pdlint knew."""
    write(tmp_path, "compose.yaml", HARBOR_COMPOSE)
    write(tmp_path, "vllm/Dockerfile", HARBOR_DOCKERFILE)
    out = extract("compose.yaml", cwd=str(tmp_path))
    [launch] = out.launches
    assert (launch.entrypoint, launch.meta["image"]) == ("python -m vllm.entrypoints.openai.api_server",
                                                         "vllm/vllm-openai:v0.11.0")
    assert _findings(tmp_path, monkeypatch, capsys) == [("VLLM018", "compose.yaml", 10)]


def test_a_dockerfile_with_its_own_entry_point(tmp_path, monkeypatch, capsys):
    write(tmp_path, "compose.yaml", HARBOR_COMPOSE.replace("--model Qwen/Qwen3-8B", "Qwen/Qwen3-8B"))
    # an exec-form ENTRYPOINT of the last stage is the program; a stage named in FROM gives its base image
    write(tmp_path, "vllm/Dockerfile", HARBOR_DOCKERFILE.replace("RUN pip", "FROM base AS final\n    RUN pip")
          .replace("FROM ${", "FROM ${", 1).replace("}:${HARBOR_VLLM_VERSION}", "}:${HARBOR_VLLM_VERSION} AS base")
          + '    ENTRYPOINT ["vllm", "serve"]\n')
    out = extract("compose.yaml", cwd=str(tmp_path))
    [launch] = out.launches
    assert launch.entrypoint == "vllm serve" and launch.meta["image"] == "vllm/vllm-openai:v0.11.0"
    assert launch.argv[0].origin.path.endswith("compose.yaml")
    assert [c for c, _, _ in _findings(tmp_path, monkeypatch, capsys)] == ["VLLM018"]
    # a shell-form ENTRYPOINT pdlint does not read: the base image's entry point is not the program
    write(tmp_path, "vllm/Dockerfile", HARBOR_DOCKERFILE + "    ENTRYPOINT /start.sh\n")
    out = extract("compose.yaml", cwd=str(tmp_path))
    assert out.launches == [] and _findings(tmp_path, monkeypatch, capsys) == []


def test_a_dockerfile_outside_the_repository_is_named_as_a_dockerfile_at_its_build(tmp_path, monkeypatch, capsys):
    # field test rw21/h: "compose env file lnk/Dockerfile ..." at line 1
    import json
    import os
    repo = tmp_path / "repo"
    write(repo, "compose.yaml", HARBOR_COMPOSE)
    write(tmp_path, "outside/Dockerfile", HARBOR_DOCKERFILE)
    os.symlink(tmp_path / "outside", repo / "vllm")
    monkeypatch.chdir(repo)
    main(["check", "--format", "json", "--no-cache", "--exit-zero", "compose.yaml"])
    (f,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "PD014"]
    assert f["message"].startswith("compose Dockerfile vllm/Dockerfile is a symlink") and f["line"] > 1
    assert "the image and entry point it builds were not checked" in f["message"]
