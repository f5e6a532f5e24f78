"""A TensorRT-LLM server whose role only a name gives (field test rw17/n, side observation: a lone aggregated
`trtllm-serve` Compose service named `ctx`, image `nvcr.io/nvidia/tensorrt-llm/release:1.0.0`, no disaggregated
config, no proxy, no other role, was taken for a context server and got TRT009 as an error): with nothing else of
its deployment disaggregated the name is not enough; with a server of the other role, a proxy, a role flag or
transceiver settings it still is."""

import json

from pdlint.cli import main

IMAGE = "nvcr.io/nvidia/tensorrt-llm/release:1.0.0"


def check(root, capsys, monkeypatch, files):
    for rel, text in files.items():
        (root / rel).write_text(text)
    monkeypatch.chdir(root)
    main(["check", "--format", "json", "--exit-zero", "--no-cache", *files])
    return json.loads(capsys.readouterr().out)


def service(name: str, extra: str = "", port: int = 8001) -> str:
    return (f"  {name}:\n    image: {IMAGE}\n"
            f"    command: trtllm-serve Qwen/Qwen3-8B --port {port}{extra}\n")


def codes(doc):
    return sorted((f["line"], f["code"]) for f in doc["findings"])


def roles(doc):
    return sorted(str(l["role"]) for l in doc["launches"])


def test_a_lone_aggregated_service_named_ctx_is_no_context_server(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {"docker-compose.yml": "services:\n" + service("ctx")})
    assert codes(doc) == []
    assert roles(doc) == ["None"]


def test_services_named_ctx_and_gen_are_still_a_pair(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "docker-compose.yml": "services:\n" + service("ctx") + service("gen", port=8002)})
    assert roles(doc) == ["decode", "prefill"]
    assert (4, "TRT009") in codes(doc) and (7, "TRT009") in codes(doc)


def test_a_lone_ctx_service_with_transceiver_settings_keeps_its_role(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, {
        "docker-compose.yml": "services:\n" + service("ctx", " --extra_llm_api_options ctx-opts.yaml"),
        "ctx-opts.yaml": "cache_transceiver_config:\n  max_tokens_in_buffer: 2048\n"})
    assert "prefill" in roles(doc)
    found = {(f["path"], f["line"], f["code"]) for f in doc["findings"]}
    assert {("docker-compose.yml", 4, "TRT005"), ("ctx-opts.yaml", 2, "TRT009")} <= found


def test_a_lone_kubernetes_deployment_named_ctx_is_no_context_server(tmp_path, capsys, monkeypatch):
    deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: trtllm-{name}\nspec:\n  template:\n"
              "    spec:\n      containers:\n      - name: server\n        image: " + IMAGE + "\n"
              "        command: [\"trtllm-serve\", \"M\", \"--port\", \"8001\"{extra}]\n")
    doc = check(tmp_path, capsys, monkeypatch, {"d.yaml": deploy.format(name="ctx", extra="")})
    assert (codes(doc), roles(doc)) == ([], ["None"])
    role_flag = ', "--server_role", "context"'
    doc = check(tmp_path, capsys, monkeypatch, {"d.yaml": deploy.format(name="ctx", extra=role_flag)})
    assert roles(doc) == ["prefill"] and (11, "TRT009") in codes(doc)
