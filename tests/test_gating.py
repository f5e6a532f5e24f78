"""The hook gates every input of a launch (issue 8 item 4): a file named on
the command line (what pre-commit passes) is expanded to the launches that
read it - values files, the config itself, ``--config`` files, partials (and
partials of partials), sourced scripts, ConfigMaps, Kustomize patches - and
what those launches take from a values file (strings, numbers, booleans) is
reported at the values file's line."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from pdlint.cli import main
from pdlint.discover import discover, expand_units
from pdlint.lint import ConfigResolver


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def unit(*named, config=None) -> list:
    cwd = os.getcwd()
    r = ConfigResolver(cwd, config)
    jobs, _ = discover(list(named), cwd, r.excluded)
    return [j.display for j in expand_units(jobs, cwd, r.excluded, r)]


def run(capsys, *args):
    code = main(list(args))
    return code, capsys.readouterr().out


TEMPLATE = """\
    python3 -m sglang.launch_server --model-path {{ model }} --disaggregation-mode {{ role }} \\
      --tp-size {{ server.tp }} --mem-fraction-static {{ server.mem }} --port {{ port }}{% if metrics %} --enable-metrics{% endif %} --disaggregation-transfer-backend {{ backend }}
    """
VALUES = """\
    model: /models/qwen
    server:
      tp: 2
      mem: 0.8
    port: 30000
    metrics: true
    backend: mooncake
    """


def values_repo(root: Path) -> None:
    write(root, ".pdlint.yaml", "values: [deploy/values.yaml]\nroles: {decode: {vars: {port: 30001}}}\n")
    write(root, "deploy/values.yaml", VALUES)
    write(root, "deploy/pd.sh.j2", TEMPLATE)
    write(root, "other/unrelated.yaml", "kind: ConfigMap\nmetadata: {name: x}\n")
    write(root, "sub/.pdlint.yaml", "vars: {model: /m}\n")
    write(root, "sub/own.sh.j2", "python3 -m sglang.launch_server --model-path {{ model }}\n")


# -- expansion ------------------------------------------------------------------------------------

def test_values_file_expands_to_the_templates_its_config_governs(repo):
    values_repo(repo)
    got = unit("deploy/values.yaml")
    assert "deploy/pd.sh.j2" in got
    assert "sub/own.sh.j2" not in got  # governed by sub/.pdlint.yaml, which has no values files
    assert "other/unrelated.yaml" not in got


def test_the_config_file_itself_expands_to_what_it_governs(repo):
    values_repo(repo)
    assert "deploy/pd.sh.j2" in unit(".pdlint.yaml")
    assert unit("sub/.pdlint.yaml") == ["sub/.pdlint.yaml", "sub/own.sh.j2"]


def test_explicit_config_values(repo):
    values_repo(repo)
    write(repo, "ci/pdlint.yaml", "values: [../deploy/values.yaml]\n")
    got = unit("deploy/values.yaml", config="ci/pdlint.yaml")
    assert "deploy/pd.sh.j2" in got and "sub/own.sh.j2" in got  # --config governs every file


def test_partial_of_a_partial(repo):
    write(repo, "t/pd.yaml.j2", "{% include 'mid.j2' %}\n")
    write(repo, "t/mid.j2", "{% include 'leaf.j2' %}\n")
    write(repo, "t/leaf.j2", "- --tp-size\n")
    assert unit("t/leaf.j2") == ["t/leaf.j2", "t/mid.j2", "t/pd.yaml.j2"]


def test_configmap_expands_to_the_manifests_that_mount_it(repo):
    write(repo, "k8s/cm.yaml", """\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          labels: {app: sglang}
          name: sglang-config
        data:
          prefill.yaml: |
            tp-size: 2
        """)
    write(repo, "k8s/deploy.yaml", """\
        kind: Deployment
        spec:
          template:
            spec:
              volumes: [{name: cfg, configMap: {name: sglang-config}}]
              containers:
              - name: prefill
                command: [python3, -m, sglang.launch_server, --config, /etc/cfg/prefill.yaml]
        """)
    write(repo, "k8s/other.yaml", "kind: Deployment\n# sglang-config-v2 is another one\nconfigMap: {name: x}\n")
    assert unit("k8s/cm.yaml") == ["k8s/cm.yaml", "k8s/deploy.yaml"]


def test_kustomize_patch_is_checked_through_its_build(repo, capsys):
    write(repo, "k8s/base/kustomization.yaml", "resources: [deploy.yaml]\n")
    write(repo, "k8s/base/deploy.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: p}
        spec:
          template:
            spec:
              containers:
              - name: prefill
                command: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill]
        """)
    write(repo, "k8s/overlay/kustomization.yaml", "resources: [../base]\npatches:\n- path: patch.yaml\n")
    write(repo, "k8s/overlay/patch.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: p}
        spec:
          template:
            spec:
              containers:
              - name: prefill
                args: [--enable-linear-replayssm-spec]
        """)
    assert unit("k8s/overlay/patch.yaml") == ["k8s/overlay/kustomization.yaml", "k8s/overlay/patch.yaml"]
    code, out = run(capsys, "k8s/overlay/patch.yaml")
    assert code == 1 and "k8s/overlay/patch.yaml:9:16: SGL101 [prefill]" in out, out


def test_sourced_script_and_config_file(repo, capsys):
    write(repo, "scripts/common.sh", 'COMMON="--model-path /m --enable-linear-replayssm-spec"\n')
    write(repo, "scripts/run.sh", """\
        #!/bin/bash
        source "$(dirname "$0")/common.sh"
        python3 -m sglang.launch_server $COMMON --disaggregation-mode prefill --config cfg/p.yaml
        """)
    write(repo, "scripts/cfg/p.yaml", "tp-size: 2\n")
    assert unit("scripts/common.sh") == ["scripts/common.sh", "scripts/run.sh"]
    assert unit("scripts/cfg/p.yaml") == ["scripts/cfg/p.yaml", "scripts/run.sh"]
    code, out = run(capsys, "scripts/common.sh")
    assert code == 1 and "scripts/common.sh:1:25: SGL101 [prefill]" in out, out


def test_no_expansion_outside_a_git_work_tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    values_repo(tmp_path)
    assert unit("deploy/values.yaml") == ["deploy/values.yaml"]


# -- values files: the line to edit ---------------------------------------------------------------

def test_a_commit_that_breaks_only_a_values_file_is_reported_there(repo, capsys):
    values_repo(repo)
    code, out = run(capsys, "deploy/values.yaml")
    assert code == 0, out
    write(repo, "deploy/values.yaml", VALUES.replace("backend: mooncake", "backend: moonkake"))
    code, out = run(capsys, "deploy/values.yaml")
    assert code == 1 and "deploy/values.yaml:7:10: SGL004" in out and "moonkake" in out, out


def test_numbers_and_booleans_from_values_files_point_at_their_line(repo, capsys):
    values_repo(repo)
    assert main(["show", "--format", "json", "deploy/pd.sh.j2"]) == 0
    launches = json.loads(capsys.readouterr().out)["launches"]
    pre = launches[0]
    origin = dict(zip(pre["argv"], pre["origins"]))
    assert (origin["2"]["path"], origin["2"]["line"], origin["2"]["column"]) == ("deploy/values.yaml", 3, 7)
    assert (origin["0.8"]["path"], origin["0.8"]["line"]) == ("deploy/values.yaml", 4)
    assert (origin["30000"]["path"], origin["30000"]["line"]) == ("deploy/values.yaml", 5)
    dec = dict(zip(launches[1]["argv"], launches[1]["origins"]))
    assert dec["30001"]["path"] == ".pdlint.yaml"  # the role's override, where it is set


def test_a_values_boolean_rendered_is_located_in_the_values_file(repo):
    from pdlint.extract import Options
    from pdlint.lint import run as lint
    write(repo, ".pdlint.yaml", "values: [values.yaml]\n")
    write(repo, "values.yaml", "enable: true\noff: false\n")
    write(repo, "p.sh.j2", "python3 -m sglang.launch_server --model-path /m --x={{ enable | lower }} "
                           "--y={{ off }} --z={{ enable | upper | length }}\n")
    launch = lint(["p.sh.j2"], Options(cwd=str(repo))).launches[0]
    x, y, z = launch.argv[2], launch.argv[3], launch.argv[4]
    assert (x.origin_at(4).path, x.origin_at(4).line) == ("values.yaml", 1)
    assert (y.origin_at(4).path, y.origin_at(4).line) == ("values.yaml", 2)
    assert z.origin_at(4).path == "p.sh.j2"  # computed from it: the template's


def test_a_number_sglang_rejects_is_reported_in_the_values_file(repo, capsys):
    values_repo(repo)
    write(repo, "deploy/values.yaml", VALUES.replace("backend: mooncake", "backend: 3"))
    code, out = run(capsys, "deploy/values.yaml")
    assert code == 1 and "deploy/values.yaml:7:10: SGL004" in out and "invalid choice: '3'" in out, out


def test_numbers_from_a_toml_config_point_at_their_line(repo, capsys):
    write(repo, "pyproject.toml", "[tool.pdlint]\nrole-var = 'role'\n[tool.pdlint.vars]\ntp = 2\n"
                                  "[tool.pdlint.roles.decode.vars]\ntp = 4\n")
    write(repo, "p.sh.j2", "python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} "
                           "--tp-size {{ tp }}\n")
    assert main(["show", "--format", "json", "p.sh.j2"]) == 0
    got = json.loads(capsys.readouterr().out)["launches"]
    assert [(l["argv"][-1], l["origins"][-1]["path"], l["origins"][-1]["line"], l["origins"][-1]["column"])
            for l in got] == [("2", "pyproject.toml", 4, 6), ("4", "pyproject.toml", 6, 6)]


def test_relpath_is_os_relpath():
    """discover.relpath (the prefix cut for paths below the start) answers as os.path.relpath."""
    import os
    from pdlint.discover import relpath
    starts = ["/a/b", "/a/b/", "/", "a/b", "/a/./b", "/a/b/.."]
    paths = ["/a/b/c", "/a/b", "/a/b/", "/a/b/./c", "/a/b//c", "/a/b/../c", "/a/bc", "/x", "/a/b/c/..", "/a/b/ c",
             "/a/b/..c", "/a/b/c/", "/a/b/.", "/a/b/..", "/a/b/c/d.yaml"]
    for s in starts:
        for p in paths:
            assert relpath(p, s) == os.path.relpath(p, s), (p, s)
