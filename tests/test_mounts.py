"""SGLang ``--config`` and Dynamo ``--disagg-config`` paths inside the container, resolved through
the container's ``volumeMounts`` -> the pod's ``volumes`` -> a ConfigMap's ``data`` key (issue 8
item 2), in the same manifest, kustomization or scan; what cannot be resolved is a PD022 saying why."""

import os
import subprocess
import textwrap

import pytest

from pdlint.cli import main
from pdlint.formats import mounts
from pdlint.formats import yamltree as yt
from pdlint.text import SourceFile, TStr

DATA = os.path.join(os.path.dirname(__file__), "data", "mounts")


def found(doc, prefix=""):
    return sorted((f["path"], f["line"], f["code"]) for f in doc["findings"] if f["code"].startswith(prefix))


CM = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: sglang-config
data:
  prefill.yaml: |
    model-path: /models/qwen
    disaggregation-mode: prefill
    tp_size: 2
"""


def deployment(volume: str, path: str = "/etc/cfg/prefill.yaml", mount: str = "/etc/cfg", sub: str = "") -> str:
    sub_line = f"\n            subPath: {sub}" if sub else ""
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen-prefill
spec:
  template:
    spec:
      volumes:
      - name: cfg
        {volume}
      containers:
      - name: prefill
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server, --config, {path}]
        volumeMounts:
          - name: cfg
            mountPath: {mount}{sub_line}
"""


CM_VOLUME = "configMap: {name: sglang-config}"


# -- the real-shaped fixtures ----------------------------------------------------------------------------

def test_configmap_keys_are_merged_and_reported_at_their_line_in_the_block_scalar(lint):
    code, doc = lint(os.path.join(DATA, "pd.yaml"))
    assert code == 1
    path = os.path.relpath(os.path.join(DATA, "pd.yaml")).replace(os.sep, "/")
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert [(f["path"], f["line"], f["column"], f["code"]) for f in errors] == [(path, 10, 5, "SGL020")]
    assert not found(doc, "PD02")  # both mounts resolved: items (key -> other name) and a subPath file mount
    assert doc["coverage"]["files"][path]["status"] == "checked"


def test_show_places_config_tokens_in_the_configmap(capsys):
    assert main(["show", os.path.join(DATA, "pd.yaml")]) == 0
    out = capsys.readouterr().out
    assert "ConfigMap sglang-pd-config key prefill.yaml mounted at /etc/sglang" in out
    assert "ConfigMap sglang-pd-config key decode.yaml mounted at /config.yaml" in out
    assert "pd.yaml:15:5" in out  # decode's tp-size, from the subPath mount


def test_dynamo_disagg_config_sections_from_a_configmap_are_clean(lint):
    code, doc = lint(os.path.join(DATA, "dynamo-disagg.yaml"))
    assert code == 0, doc["findings"]
    assert not found(doc, "PD0")
    assert doc["coverage"]["prefill"] == 1 and doc["coverage"]["decode"] == 1


def test_dynamo_disagg_config_section_key_is_reported(scratch_git):
    text = open(os.path.join(DATA, "dynamo-disagg.yaml")).read()
    scratch_git.write("dgd.yaml", text.replace("page-size: 16\n    decode:", "page_size: 16\n    decode:")
          .replace("--disagg-config-key, decode]", "--disagg-config-key, decoder]"))
    code, doc = scratch_git.lint("dgd.yaml")
    assert code == 1
    assert [x for x in found(doc) if x[2].startswith("SGL")] == [("dgd.yaml", 11, "SGL020"), ("dgd.yaml", 50, "SGL029")]
    msg = next(f["message"] for f in doc["findings"] if f["code"] == "SGL029")
    assert "Disagg config key 'decoder' not found in /config/disagg.yaml" in msg and "'prefill', 'decode'" in msg
    # the decode section was not read: its launch text is not checked (and no pair check ran on a guess)
    assert ("dgd.yaml", 14, "PD020") in found(doc)


def test_dynamo_disagg_config_from_the_environment(scratch_git):
    text = open(os.path.join(DATA, "dynamo-disagg.yaml")).read()
    text = text.replace("args: [--disagg-config, /config/disagg.yaml, --disagg-config-key, prefill]",
                        "env:\n          - {name: DYN_SGL_DISAGG_CONFIG, value: /config/disagg.yaml}\n"
                        "          - {name: DYN_SGL_DISAGG_CONFIG_KEY, value: prefill}\n"
                        "          args: [--page-size, '16']")
    text = text.replace("disaggregation-transfer-backend: nixl\n      page-size: 16\n    decode",
                        "disaggregation-transfer-backend: nixl\n      tp_size: 1\n    decode")
    scratch_git.write("dgd.yaml", text)
    code, doc = scratch_git.lint("dgd.yaml")
    assert ("dgd.yaml", 11, "SGL020") in found(doc)
    assert not found(doc, "PD02")


def test_disagg_config_in_the_repository_and_unresolved(scratch_git):
    scratch_git.write("disagg.yaml", "prefill:\n  model-path: /m\n  disaggregation-mode: prefill\n  tp_size: 1\n")
    scratch_git.write("run.sh", "python3 -m dynamo.sglang --disagg-config disagg.yaml --disagg-config-key prefill\n"
                          "python3 -m dynamo.sglang --disagg-config $CFG --disagg-config-key decode\n")
    code, doc = scratch_git.lint("run.sh", "disagg.yaml")
    got = found(doc)
    assert ("disagg.yaml", 4, "SGL020") in got
    assert ("run.sh", 2, "PD022") in got
    msg = next(f["message"] for f in doc["findings"] if f["code"] == "PD022")
    assert msg.startswith("--disagg-config $CFG is a value pdlint cannot see")


# -- unresolved mounts say why -----------------------------------------------------------------------------

@pytest.mark.parametrize("volume,path,mount,sub,why", [
    ("secret: {secretName: sglang-secret}", "/etc/cfg/prefill.yaml", "/etc/cfg", "",
     "is mounted from the Secret sglang-secret (volume 'cfg')"),
    ("persistentVolumeClaim: {claimName: models}", "/etc/cfg/prefill.yaml", "/etc/cfg", "",
     "is mounted from the PersistentVolumeClaim models"),
    ("configMap: {name: other-config}", "/etc/cfg/prefill.yaml", "/etc/cfg", "",
     "is mounted from ConfigMap other-config (key prefill.yaml), which no scanned file defines"),
    (CM_VOLUME, "/etc/cfg/decode.yaml", "/etc/cfg", "", "is mounted from ConfigMap sglang-config, which has no key "
                                                         "decode.yaml"),
    ("configMap: {name: sglang-config, items: [{key: prefill.yaml, path: p.yaml}]}", "/etc/cfg/prefill.yaml",
     "/etc/cfg", "", "puts no file prefill.yaml there (its `items` do not list it)"),
    ("projected: {sources: [{secret: {name: s}}]}", "/etc/cfg/prefill.yaml", "/etc/cfg", "",
     "is mounted from the projected volume of secret"),
])
def test_unresolved_mount_is_a_coverage_finding_saying_why(scratch_git, volume, path, mount, sub, why):
    scratch_git.write("k8s/pd.yaml", CM + "---" + deployment(volume, path, mount, sub))
    code, doc = scratch_git.lint("k8s")
    pd022 = [f for f in doc["findings"] if f["code"] == "PD022"]
    assert len(pd022) == 1 and pd022[0]["line"] == 24, doc["findings"]
    assert why in pd022[0]["message"], pd022[0]["message"]
    assert "SGL020" not in {f["code"] for f in doc["findings"]}


def test_a_volume_the_pod_does_not_define(scratch_git):
    text = deployment(CM_VOLUME).replace("- name: cfg\n        configMap", "- name: other\n        configMap")
    scratch_git.write("k8s/pd.yaml", CM + "---" + text)
    code, doc = scratch_git.lint("k8s")
    msg = next(f["message"] for f in doc["findings"] if f["code"] == "PD022")
    assert "whose volume 'cfg' the pod spec does not define" in msg


def test_a_path_no_mount_covers_is_looked_up_in_the_repository(scratch_git):
    scratch_git.write("k8s/pd.yaml", CM + "---" + deployment(CM_VOLUME, path="/opt/prefill.yaml"))
    code, doc = scratch_git.lint("k8s")
    msg = next(f["message"] for f in doc["findings"] if f["code"] == "PD022")
    assert "was not found in the repository" in msg
    scratch_git.write("opt/prefill.yaml", "model-path: /m\ndisaggregation-mode: prefill\ntp-size: 1\n")
    code, doc = scratch_git.lint("k8s")
    assert not found(doc, "SGL") and not found(doc, "PD022")
    assert found(doc, "PD02") == [("k8s/pd.yaml", 8, "PD020")]  # the ConfigMap no launch reads: not checked


# -- where the ConfigMap is ----------------------------------------------------------------------------------

def test_configmap_in_another_file_of_the_scan(scratch_git):
    scratch_git.write("k8s/cm.yaml", CM)
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    code, doc = scratch_git.lint("k8s")
    assert found(doc) == [("k8s/cm.yaml", 9, "SGL020")]
    assert doc["coverage"]["files"]["k8s/cm.yaml"]["status"] == "checked"


def test_configmap_of_the_same_stream_wins_over_another_file(scratch_git):
    scratch_git.write("k8s/pd.yaml", CM.replace("tp_size: 2", "tp-size: 2") + "---" + deployment(CM_VOLUME))
    scratch_git.write("k8s/other.yaml", CM)  # the same name, a bad key: not what pd.yaml mounts
    code, doc = scratch_git.lint("k8s/pd.yaml")
    assert not found(doc, "SGL") and not found(doc, "PD022")
    assert ("k8s/pd.yaml", 8, "PD020") not in found(doc)


def test_hook_naming_only_the_configmap_reports_its_bad_key(scratch_git, capsys):
    scratch_git.write("k8s/cm.yaml", CM)
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    subprocess.run(["git", "add", "-A"], cwd=scratch_git.root, check=True)
    code = main(["check", "--force-exclude", "--no-cache", "k8s/cm.yaml"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("k8s/cm.yaml:9:5: SGL020 error: config key 'tp_size'"), out


def test_hook_naming_only_the_deployment_finds_the_configmap_in_the_repository(scratch_git, capsys):
    scratch_git.write("k8s/config/cm.yaml", CM)
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    scratch_git.write("other/cm.yaml", CM.replace("tp_size: 2", "tp-size: 2"))  # farther away: not used
    subprocess.run(["git", "add", "-A"], cwd=scratch_git.root, check=True)
    code = main(["check", "--force-exclude", "--no-cache", "k8s/deploy.yaml"])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("k8s/config/cm.yaml:9:5: SGL020 error"), out


def test_configmap_of_a_kustomize_build(scratch_git):
    scratch_git.write("k8s/kustomization.yaml", "resources: [cm.yaml, deploy.yaml]\n")
    scratch_git.write("k8s/cm.yaml", CM)
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    code, doc = scratch_git.lint("k8s")
    assert found(doc) == [("k8s/cm.yaml", 9, "SGL020")]


def test_fix_rewrites_the_key_inside_the_configmap(scratch_git, capsys):
    scratch_git.write("k8s/pd.yaml", CM + "---" + deployment(CM_VOLUME))
    assert main(["--fix", "--no-cache", "k8s/pd.yaml"]) == 0
    capsys.readouterr()
    text = (scratch_git.root / "k8s/pd.yaml").read_text()
    assert "    tensor-parallel-size: 2\n" in text and "tp_size" not in text


def test_result_cache_follows_the_configmap_file(scratch_git, capsys):
    scratch_git.write("k8s/cm.yaml", CM)
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    assert main(["k8s"]) == 1
    first = capsys.readouterr().out
    assert main(["k8s"]) == 1
    assert capsys.readouterr().out == first
    scratch_git.write("k8s/cm.yaml", CM.replace("tp_size", "tp-size"))
    assert main(["k8s"]) == 0
    capsys.readouterr()


# -- the resolution itself ---------------------------------------------------------------------------------------

def _scope(text: str):
    src = SourceFile("m.yaml", textwrap.dedent(text))
    docs = yt.compose(src.text)
    doc = TStr.from_source(src)
    root = yt.Ref(docs[-1].root)
    container = yt.seq_items(yt.get(yt.get(root, "spec"), "containers"))[0]
    vols = mounts.volume_table([mounts.volumes_of(root, ("spec", "containers", 0))])
    cms = mounts.configmaps(docs, doc, "m.yaml")
    return mounts.mounts_of([(doc, container)]), vols, cms.get


POD = """
kind: ConfigMap
metadata: {name: c}
data: {a.yaml: "tp-size: 1", b.yaml: "tp-size: 2"}
---
kind: Pod
spec:
  volumes:
  - {name: v, configMap: {name: c}}
  - {name: p, projected: {sources: [{secret: {name: s}}, {configMap: {name: c, items: [{key: b.yaml, path: x/b.yaml}]}}]}}
  containers:
  - name: x
    volumeMounts:
    - {name: v, mountPath: /etc/c/}
    - {name: v, mountPath: /one.yaml, subPath: a.yaml}
    - {name: p, mountPath: /etc/p}
"""


@pytest.mark.parametrize("path,text", [
    ("/etc/c/a.yaml", "tp-size: 1"), ("/etc/c/./b.yaml", "tp-size: 2"), ("/one.yaml", "tp-size: 1"),
    ("/etc/p/x/b.yaml", "tp-size: 2"),
])
def test_resolve_follows_mount_paths_subpaths_and_projected_items(path, text):
    ms, vols, find = _scope(POD)
    r = mounts.resolve(path, ms, vols, find)
    assert isinstance(r, mounts.Resolved) and r.text.text == text
    assert r.text.origin.line == 4  # traced into the ConfigMap's data value


@pytest.mark.parametrize("path", ["relative.yaml", "/elsewhere/a.yaml", "/etc/cfg2/a.yaml"])
def test_resolve_leaves_paths_no_mount_covers(path):
    ms, vols, find = _scope(POD)
    assert mounts.resolve(path, ms, vols, find) is None


def test_resolve_a_directory_mount_point_itself():
    ms, vols, find = _scope(POD)
    why, _ = mounts.resolve("/etc/c", ms, vols, find)
    assert "the mount point /etc/c of volume 'v' itself" in why


KUSTOMIZATION = """
resources: [deploy.yaml]
configMapGenerator:
- name: sglang-config
  files:
  - prefill.yaml=configs/prefill-server.yaml
  literals:
  - decode.yaml=tp-size
"""


def test_configmap_generator_file_of_a_kustomization(scratch_git, capsys):
    scratch_git.write("k8s/kustomization.yaml", KUSTOMIZATION)
    scratch_git.write("k8s/configs/prefill-server.yaml", "model-path: /m\ndisaggregation-mode: prefill\ntp_size: 2\n")
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    code, doc = scratch_git.lint("k8s")
    # reported once, as the launch's --config file (not again as a standalone config file), at its own line
    assert found(doc) == [("k8s/configs/prefill-server.yaml", 3, "SGL020")]
    assert doc["launches"][0]["role"] == "prefill"
    subprocess.run(["git", "add", "-A"], cwd=scratch_git.root, check=True)
    code = main(["check", "--force-exclude", "--no-cache", "k8s/configs/prefill-server.yaml"])
    out = capsys.readouterr().out
    assert out.startswith("k8s/configs/prefill-server.yaml:3:1: SGL020"), out
    assert "via --config /etc/cfg/prefill.yaml (ConfigMap sglang-config key prefill.yaml" in out


def test_configmap_generator_without_the_key(scratch_git):
    scratch_git.write("k8s/kustomization.yaml", KUSTOMIZATION.replace("prefill.yaml=", "other.yaml="))
    scratch_git.write("k8s/configs/prefill-server.yaml", "model-path: /m\ndisaggregation-mode: prefill\n")
    scratch_git.write("k8s/deploy.yaml", deployment(CM_VOLUME))
    code, doc = scratch_git.lint("k8s")
    msg = next(f["message"] for f in doc["findings"] if f["code"] == "PD022")
    assert "is mounted from ConfigMap sglang-config, which has no key prefill.yaml" in msg


def test_disagg_sections_sharing_an_anchor(scratch_git):
    scratch_git.write("disagg.yaml", """
        common: &common
          model-path: /m
          tp_size: 2
        prefill:
          <<: *common
          disaggregation-mode: prefill
        decode:
          <<: *common
          disaggregation-mode: decode
        """)
    scratch_git.write("run.sh", "python3 -m dynamo.sglang --disagg-config disagg.yaml --disagg-config-key prefill\n"
                                "python3 -m dynamo.sglang --disagg-config disagg.yaml --disagg-config-key decode\n")
    code, doc = scratch_git.lint("run.sh", "disagg.yaml")
    # the shared key is reported once, at the anchor's line, for both workers (merge keys resolved as
    # yaml.safe_load does; no `--<<` flag)
    assert [x for x in found(doc) if x[2].startswith("SGL")] == [("disagg.yaml", 3, "SGL020")]
    f = next(f for f in doc["findings"] if f["code"] == "SGL020")
    assert f["role"] is None and sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]


def test_config_file_merge_keys_are_resolved(scratch_git):
    scratch_git.write("prefill.yaml", """
        base: &base {model-path: /m, disaggregation-transfer-backend: nixl}
        <<: *base
        disaggregation-mode: prefill
        """.replace("base: &base", "x-base: &base"))
    scratch_git.write("run.sh", "python3 -m sglang.launch_server --config prefill.yaml\n")
    code, doc = scratch_git.lint("run.sh", "prefill.yaml")
    launch = doc["launches"][0]
    assert "--<<" not in launch["argv"]
    assert launch["argv"][-4:] == ["--model-path", "/m", "--disaggregation-transfer-backend", "nixl"]
    assert [f["code"] for f in doc["findings"] if f["code"].startswith("SGL")] == ["SGL001"]  # --x-base


def test_configmap_rendered_by_a_helm_chart(scratch_git, monkeypatch):
    from pdlint.formats import helm
    monkeypatch.setattr(helm, "helm_binary", lambda: None)  # pdlint's own renderer, wherever the test runs
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: pd\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", "image: lmsysorg/sglang:v0.5.9\nbackend: nixll\n")
    scratch_git.write("chart/templates/configmap.yaml", """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Release.Name }}-config
        data:
          prefill.yaml: |
            model-path: /m
            disaggregation-mode: prefill
            disaggregation-transfer-backend: {{ .Values.backend }}
        """)
    scratch_git.write("chart/templates/prefill.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}-prefill
        spec:
          template:
            spec:
              volumes:
              - name: cfg
                configMap:
                  name: {{ .Release.Name }}-config
              containers:
              - name: prefill
                image: {{ .Values.image }}
                command: [python3, -m, sglang.launch_server, --config, /etc/cfg/prefill.yaml]
                volumeMounts:
                - {name: cfg, mountPath: /etc/cfg}
        """)
    code, doc = scratch_git.lint("chart")
    # the value comes from values.yaml through the rendered ConfigMap: reported at its line there
    assert found(doc) == [("chart/values.yaml", 2, "SGL004")]


def test_malformed_mounts_and_configmaps_are_findings_not_crashes(lint):
    code, doc = lint(os.path.join(DATA, "hostile.yaml"))
    codes = {f["code"] for f in doc["findings"]}
    assert "PD013" not in codes  # no internal error
    assert {"SGL028", "SGL026", "SGL023", "PD022"} <= codes
    assert len(doc["launches"]) == 8
