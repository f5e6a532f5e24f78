"""Base text that an applied Kustomize JSON 6902 ``replace`` or ``remove`` took out is covered by the overlay, not
"launch text pdlint did not check" (field test rw17/n, P5: a vLLM base Deployment's ``--kv-transfer-config`` JSON
replaced by ``op: replace path: .../args/3`` got PD020 "a structure pdlint does not recognise" at the base line,
although the built launch carries the overlay's value and the base alone is clean).  An operation pdlint cannot apply
keeps its PD020 (tests/test_kustomize_json6902.py)."""

import textwrap

import pytest

from pdlint.extract import Options
from pdlint.lint import run
from test_kustomize_targets import write  # (tests/ is on sys.path under pytest)

KV = '\'{"kv_connector":"NixlConnector","kv_role":"%s"}\''


def deployment(name, port, role="kv_both"):
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: {name}}}
        spec:
          template:
            spec:
              containers:
              - name: vllm
                image: vllm/vllm-openai:v0.11.0
                command: ["vllm", "serve"]
                args:
                - Qwen/Qwen3-8B
                - --port={port}
                - --kv-transfer-config
                - {KV % role}
        """)


BASE = {
    "base/deploy.yaml": deployment("vllm-decode", 8200) + "---\n" + deployment("vllm-prefill", 8100),
    "base/kustomization.yaml": "resources: [deploy.yaml]\n",
}


def overlay(ops, extra=None):
    return {**BASE, **(extra or {}), "overlays/a/kustomization.yaml":
            "resources: [../../base]\npatches:\n- target: {kind: Deployment, name: vllm-decode}\n  patch: |-\n"
            + "".join("    " + line + "\n" for line in ops)}


def check(tmp_path, files):
    res = run(["."], Options(cwd=write(tmp_path, files)))
    return sorted((f.path, f.line, f.code) for f in res.findings), res


def test_repro_a_replaced_argument_is_not_pd020_at_the_base(tmp_path):
    found, res = check(tmp_path, overlay(["- op: replace", "  path: /spec/template/spec/containers/0/args/3",
                                          "  value: " + KV % "kv_consumer"]))
    assert found == [] and not res.coverage.spots
    decode = next(la for la in res.launches if "8200" in " ".join(t.text for t in la.argv))
    assert "kv_consumer" in decode.argv[-1].text
    assert (decode.argv[-1].origin.path, decode.argv[-1].origin.line) == ("overlays/a/kustomization.yaml", 7)


def test_a_bad_replacement_is_still_found_at_the_overlay(tmp_path):
    found, _ = check(tmp_path, overlay(["- op: replace", "  path: /spec/template/spec/containers/0/args/3",
                                        "  value: " + KV % "kv_consumr"]))
    assert found == [("overlays/a/kustomization.yaml", 7, "VLLM029")]


@pytest.mark.parametrize("ops", [
    ["- op: remove", "  path: /spec/template/spec/containers/0/args/3",
     "- op: remove", "  path: /spec/template/spec/containers/0/args/2"],
    ["- op: replace", "  path: /spec/template/spec/containers/0/args",
     "  value: [Qwen/Qwen3-8B, --port=8200, --kv-transfer-config, " + KV % "kv_consumer" + "]"],
])
def test_removed_and_wholly_replaced_text_is_covered_by_the_overlay(tmp_path, ops):
    found, res = check(tmp_path, overlay(ops))
    assert [x for x in found if x[2].startswith("PD02")] == [] and not res.coverage.spots


def test_only_the_replaced_text_is_covered(tmp_path):
    # launch text in a structure pdlint does not read, elsewhere in the same base file, stays PD020
    cm = ("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata:\n"
          "  launch: 'vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}'\n")
    files = overlay(["- op: replace", "  path: /spec/template/spec/containers/0/args/3",
                     "  value: " + KV % "kv_consumer"])
    files["base/deploy.yaml"] = BASE["base/deploy.yaml"] + cm
    found, _ = check(tmp_path, files)
    assert found == [("base/deploy.yaml", 37, "PD020")]


def test_an_operation_pdlint_cannot_apply_keeps_its_pd020(tmp_path):
    found, res = check(tmp_path, overlay(["- op: replace", "  path: /spec/template/spec/containers/0/args/9",
                                          "  value: " + KV % "kv_consumer"]))
    # (at the operation; and the value it would have written is launch text left unchecked)
    assert found == [("overlays/a/kustomization.yaml", 5, "PD020"), ("overlays/a/kustomization.yaml", 7, "PD020")]
    assert "past the end of the list there (4 items)" in res.findings[0].message
