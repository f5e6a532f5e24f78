"""Field round rw35/b, P2 and P3: vLLM's ``--kv-transfer-config=$(KV_TRANSFER_CONFIG)`` read from a ConfigMap.

P2 (wrong silence): with the ConfigMap in another file (``kubectl apply -f dir/``), the value was opaque and the
launches passed clean, ``undecided: 0``, although ``kv_role`` was misspelt: ``VllmInfo.undecided()`` listed only
``text()`` reads and coverage dropped ``kv_transfer_config`` as PD021's even when the launch's role came from its
structure.  The SGLang contrast's hint said "write the values into the file" although the values are in a
repository ConfigMap; now it says to keep the ConfigMap in the same stream or kustomization, or to give ``--var``
(which now fills such a variable).

P3 (wrong warning): with the ConfigMap in the same YAML stream pdlint used its value (VLLM029 fired) and also
warned PD020 "not checked" on the data key line it read.
"""

import json
import textwrap

from pdlint.cli import main
from tests.test_json_schema import SCHEMA, errors as schema_errors

CONFIGMAP = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: pd-config
data:
  kv-transfer-config: |-
    {{"kv_connector": "NixlConnector", "kv_role": "{role}"}}
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.11.0
          command: ["vllm", "serve"]
          args:
            - Qwen/Qwen3-8B
            - --kv-transfer-config=$(KV_TRANSFER_CONFIG)
          env:
            - name: KV_TRANSFER_CONFIG
              valueFrom:
                configMapKeyRef:
                  name: pd-config
                  key: kv-transfer-config
"""

SGLANG = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
spec:
  template:
    spec:
      containers:
        - name: main
          image: lmsysorg/sglang:v0.5.9
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path=Qwen/Qwen3-8B
            - --disaggregation-mode=prefill
            - --disaggregation-transfer-backend=$(BACKEND)
            - --tp-size=$(TP)
          env:
            - name: TP
              valueFrom:
                configMapKeyRef: {name: pd-config, key: tp}
            - name: BACKEND
              valueFrom:
                configMapKeyRef: {name: pd-config, key: backend}
"""


def write(root, name, text):
    p = root / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def deployments():
    return (DEPLOYMENT.format(name="prefill").lstrip("\n") + "---\n" + DEPLOYMENT.format(name="decode").lstrip("\n"))


def run_json(capsys, *args):
    code = main(["check", "--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


def run_text(capsys, *args):
    code = main(["check", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out


def codes(doc):
    return [f["code"] for f in doc["findings"]]


# -- P2 ---------------------------------------------------------------------------------------------------------

def test_kv_transfer_config_from_a_configmap_of_another_file_is_undecided(scratch_dir, capsys):
    write(scratch_dir, "configmap.yaml", CONFIGMAP.format(role="kv_bothh"))
    write(scratch_dir, "deploy.yaml", deployments())
    code, doc = run_json(capsys, "deploy.yaml")
    assert doc["coverage"]["undecided"] == 2
    und = doc["coverage"]["files"]["deploy.yaml"]["undecided"]
    assert [(u["line"], u["flag"], u["text"], u["cause"]) for u in und] == [
        (14, "--kv-transfer-config", "$(KV_TRANSFER_CONFIG)", "configmap-not-joined"),
        (35, "--kv-transfer-config", "$(KV_TRANSFER_CONFIG)", "configmap-not-joined")]
    assert schema_errors(doc, SCHEMA) == []  # (the new cause is in the JSON contract)
    code, out = run_text(capsys, "deploy.yaml")
    assert "2 flag values pdlint cannot see left the checks that read them undecided: --kv-transfer-config " \
           "$(KV_TRANSFER_CONFIG) (deploy.yaml:14:36)" in out
    assert "keep the ConfigMap their configMapKeyRef names in the same YAML stream" in out
    assert "--var KV_TRANSFER_CONFIG=VALUE" in out
    assert "write the values into the file" not in out


def test_var_gives_the_value_of_a_configmap_of_another_file(scratch_dir, capsys):
    write(scratch_dir, "configmap.yaml", CONFIGMAP.format(role="kv_bothh"))
    write(scratch_dir, "deploy.yaml", deployments())
    code, doc = run_json(capsys, "deploy.yaml", "--var",
                         'KV_TRANSFER_CONFIG={"kv_connector": "NixlConnector", "kv_role": "kv_bothh"}')
    assert code == 1 and "VLLM029" in codes(doc)
    assert doc["coverage"]["undecided"] == 0


def test_sglang_values_from_a_configmap_of_another_file_hint(scratch_dir, capsys):
    """The contrast: the hint names the ConfigMap and --var, not "write the values into the file"."""
    write(scratch_dir, "configmap.yaml", 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pd-config\n'
                                         'data:\n  tp: "two"\n  backend: "mooncakee"\n')
    write(scratch_dir, "deploy.yaml", SGLANG)
    code, out = run_text(capsys, "deploy.yaml")
    assert "--tp-size $(TP) (deploy.yaml:16:25)" in out
    assert "or give the values as --var BACKEND=VALUE --var TP=VALUE or in [tool.pdlint.vars]" in out
    assert "write the values into the file" not in out
    code, doc = run_json(capsys, "deploy.yaml", "--var", "TP=two", "--var", "BACKEND=mooncake")
    assert code == 1 and "SGL005" in codes(doc) and doc["coverage"]["undecided"] == 0


def test_other_config_json_from_a_secret_is_undecided(scratch_dir, capsys):
    """Another option vLLM parses as a config JSON: listed too; a Secret's value keeps its own hint."""
    write(scratch_dir, "deploy.yaml", DEPLOYMENT.format(name="prefill").replace(
        "            - --kv-transfer-config=$(KV_TRANSFER_CONFIG)\n",
        "            - --kv-transfer-config={\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}\n"
        "            - --compilation-config=$(CC)\n").replace(
        "                configMapKeyRef:\n                  name: pd-config\n                  key: kv-transfer-config\n",
        "                configMapKeyRef: {name: pd-config, key: kv}\n"
        "            - name: CC\n              valueFrom:\n                secretKeyRef: {name: s, key: cc}\n"))
    code, doc = run_json(capsys, "deploy.yaml")
    und = doc["coverage"]["files"]["deploy.yaml"]["undecided"]
    assert [(u["flag"], u["text"], u["cause"]) for u in und] == [("--compilation-config", "$(CC)", "not-in-file")]
    code, out = run_text(capsys, "deploy.yaml")
    assert "to check it, write the value into the file." in out


def test_role_from_the_unseen_kv_config_stays_pd021_only(scratch_dir, capsys):
    """Neighbour: a launch with no role from its structure: the unseen config is PD021's, not listed twice."""
    write(scratch_dir, "deploy.yaml", DEPLOYMENT.format(name="server"))
    code, doc = run_json(capsys, "deploy.yaml")
    assert "PD021" in codes(doc)
    assert doc["coverage"]["undecided"] == 0


def test_written_kv_config_with_an_unseen_member_is_not_undecided(scratch_dir, capsys):
    """Neighbour: a JSON whose object is written (one member a variable) is checked: not listed as undecided."""
    text = deployments().replace("--kv-transfer-config=$(KV_TRANSFER_CONFIG)",
                                 "--kv-transfer-config={\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
                                 "\"kv_ip\":\"$(KV_TRANSFER_CONFIG)\"}")
    write(scratch_dir, "deploy.yaml", text)
    code, doc = run_json(capsys, "deploy.yaml")
    assert doc["coverage"]["undecided"] == 0


# -- P3 ---------------------------------------------------------------------------------------------------------

def test_configmap_key_an_env_read_is_no_pd020(scratch_dir, capsys):
    write(scratch_dir, "deploy.yaml", CONFIGMAP.format(role="kv_both").lstrip("\n") + "---\n" + deployments())
    code, doc = run_json(capsys)
    assert code == 0 and "PD020" not in codes(doc)
    assert doc["coverage"]["files"]["deploy.yaml"]["status"] == "checked"
    write(scratch_dir, "deploy.yaml", CONFIGMAP.format(role="kv_bothh").lstrip("\n") + "---\n" + deployments())
    code, doc = run_json(capsys, "--strict")
    assert codes(doc) == ["VLLM029"]


def test_configmap_key_no_env_reads_keeps_pd020(scratch_dir, capsys):
    """Neighbour: launch text under a key of the same ConfigMap no env reads is still not checked."""
    cm = CONFIGMAP.format(role="kv_both").lstrip("\n") + \
        "  spare: |-\n    --kv-transfer-config '{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}'\n"
    write(scratch_dir, "deploy.yaml", cm + "---\n" + deployments())
    code, doc = run_json(capsys)
    pd020 = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert [f["line"] for f in pd020] == [9]
