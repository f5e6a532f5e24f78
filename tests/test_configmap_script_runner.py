"""A ConfigMap script a container mounts and runs is checked with that container's image and env.

Field test rw29/a P10 (volcano-sh/kthena examples/models/deepseek-v4-flash/modelserving.yaml: `prefill.sh: |` /
`decode.sh: |` in a ConfigMap, mounted by `subPath` at /workspace/prefill.sh into a container of
`quay.io/ascend/vllm-ascend:v0.13.0rc3-a3` that runs `bash -c "cd /workspace && ./prefill.sh"`): the script was
found (context "YAML data.prefill.sh") but judged against the newest table with no env - on
`image: vllm/vllm-openai:v0.10.1` a `--prefill-context-parallel-size` passed, which vLLM 0.10.1 lacks (its parser:
"unrecognized arguments: --prefill-context-parallel-size"; the same argv written in the container got VLLM018), and
a flag of older releases got a misleading VLLM020 "pin the release" although the image pins it."""

import pytest

CONFIGMAP = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: scripts}
    data:
      prefill.sh: |
        #!/bin/bash
        vllm serve /models/m --port ${SERVE_PORT} --prefill-context-parallel-size 1 \\
          --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
    """

DEPLOYMENT = """\
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: NAME}
    spec:
      selector: {matchLabels: {app: NAME}}
      template:
        metadata: {labels: {app: NAME}}
        spec:
          volumes:
            - name: s
              configMap: {name: scripts}
          containers:
            - name: prefill
              image: IMAGE
              command: COMMAND
              env:
                - {name: SERVE_PORT, value: "7100"}
              volumeMounts:
                - name: s
                  mountPath: /workspace/prefill.sh
                  subPath: prefill.sh
    """


def _deployment(image="vllm/vllm-openai:v0.10.1", command='["/bin/bash", "/workspace/prefill.sh"]', name="prefill"):
    return DEPLOYMENT.replace("IMAGE", image).replace("COMMAND", command).replace("NAME", name)


def _write(scratch_git, *deployments):
    import textwrap
    scratch_git.write("prefill.yaml", textwrap.dedent(CONFIGMAP) + "".join(textwrap.dedent(d) for d in deployments))


def _codes(report):
    return sorted((f["code"], f["line"]) for f in report["findings"])


def test_the_script_takes_the_image_and_env_of_the_container_that_runs_it(scratch_git):
    _write(scratch_git, _deployment())
    code, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [("VLLM018", 7)], report["findings"]
    assert "not a flag of vLLM 0.10.1" in report["findings"][0]["message"]
    assert code == 1
    (launch,) = report["launches"]
    assert launch["engine_version"] == "0.10.1"
    assert "run by Deployment/prefill, container 'prefill'" in launch["context"]
    assert launch["argv"][:3] == ["/models/m", "--port", "7100"]  # $SERVE_PORT from the container's env


def test_bash_c_cd_and_a_relative_path(scratch_git):
    """Kthena's shape: `bash -c "cd /workspace && ./prefill.sh"`."""
    _write(scratch_git, _deployment(command='["bash", "-c", "cd /workspace && ./prefill.sh"]'))
    _, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [("VLLM018", 7)], report["findings"]
    assert [launch["engine_version"] for launch in report["launches"]] == ["0.10.1"]


def test_the_release_that_has_the_flag_is_clean(scratch_git):
    _write(scratch_git, _deployment(image="vllm/vllm-openai:v0.13.0"))
    code, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [] and code == 0
    assert [launch["engine_version"] for launch in report["launches"]] == ["0.13.0"]


def test_a_container_that_mounts_the_script_but_does_not_run_it_gives_it_nothing(scratch_git):
    _write(scratch_git, _deployment(command='["sleep", "infinity"]'))
    code, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [] and code == 0
    (launch,) = report["launches"]
    assert launch["engine_version"] == "0.33.0" and "run by" not in launch["context"]


def test_containers_with_different_images_check_it_once_per_image(scratch_git):
    """The script runs in each container: checked with each image, each launch saying which containers run it."""
    _write(scratch_git, _deployment(name="old"), _deployment(image="vllm/vllm-openai:v0.13.0", name="new"))
    _, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [("VLLM018", 7)], report["findings"]
    got = sorted((launch["engine_version"], "Deployment/old" in launch["context"],
                  "Deployment/new" in launch["context"]) for launch in report["launches"])
    assert got == [("0.10.1", True, False), ("0.13.0", False, True)]


def _split(scratch_git, cm_name: str, deploy_name: str, configmap: str = "scripts"):
    """The ConfigMap and the Deployment that runs its script in two files."""
    import textwrap
    scratch_git.write(cm_name, textwrap.dedent(CONFIGMAP).replace("{name: scripts}", "{name: %s}" % configmap))
    scratch_git.write(deploy_name, textwrap.dedent(_deployment()).replace("{name: scripts}", "{name: %s}" % configmap)
                      .lstrip("-\n"))


def test_a_configmap_in_a_file_extracted_before_the_one_that_runs_it(scratch_git):
    """The run's files in name order put `a-cm.yaml` before `b-deploy.yaml`: the script was judged against the
    newest vLLM (no VLLM018: a silent pass on image v0.10.1) while the same two files named `z-cm.yaml` /
    `y-deploy.yaml` got it (the files that define a ConfigMap are extracted after the others now), in one process
    and in two."""
    _split(scratch_git, "a-cm.yaml", "b-deploy.yaml")
    _split(scratch_git, "z-cm.yaml", "y-deploy.yaml", configmap="scripts2")
    for jobs in ("1", "2"):
        code, report = scratch_git.lint("--jobs", jobs, ".")
        assert sorted((f["code"], f["path"]) for f in report["findings"]) == \
            [("VLLM018", "a-cm.yaml"), ("VLLM018", "z-cm.yaml")], (jobs, report["findings"])
        assert sorted((launch["path"], launch["engine_version"]) for launch in report["launches"]) == \
            [("a-cm.yaml", "0.10.1"), ("z-cm.yaml", "0.10.1")]
        assert code == 1


def test_a_search_for_one_configmap_does_not_hide_another_in_the_same_files(scratch_git):
    """`b-deploy.yaml` mounts ConfigMap `missing` (defined nowhere) before `c-deploy.yaml` mounts `scripts`
    of `z-cm.yaml`: the search for `missing` read every file and marked them searched, so `scripts` was never
    found (its script judged against the newest vLLM)."""
    import textwrap
    scratch_git.write("z-cm.yaml", textwrap.dedent(CONFIGMAP))
    scratch_git.write("b-deploy.yaml", textwrap.dedent(_deployment(name="other")).replace("{name: scripts}",
                                                                                            "{name: missing}")
                      .lstrip("-\n"))
    scratch_git.write("c-deploy.yaml", textwrap.dedent(_deployment()).lstrip("-\n"))
    _, report = scratch_git.lint(".")
    assert [(f["code"], f["path"]) for f in report["findings"]] == [("VLLM018", "z-cm.yaml")], report["findings"]


def test_split_files_on_the_release_that_has_the_flag_are_clean(scratch_git):
    import textwrap
    scratch_git.write("a-cm.yaml", textwrap.dedent(CONFIGMAP))
    scratch_git.write("b-deploy.yaml", textwrap.dedent(_deployment(image="vllm/vllm-openai:v0.13.0")).lstrip("-\n"))
    code, report = scratch_git.lint(".")
    assert code == 0 and report["findings"] == []
    assert [launch["engine_version"] for launch in report["launches"]] == ["0.13.0"]


COPIER = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: prefill}
    spec:
      selector: {matchLabels: {app: p}}
      template:
        metadata: {labels: {app: p}}
        spec:
          initContainers:
            - name: prep
              image: vllm/vllm-openai:v0.10.1
              command: ["sh", "-c", "cp /scripts/prefill.sh /work/prefill.sh && chmod +x /work/prefill.sh"]
              volumeMounts:
                - {name: s, mountPath: /scripts}
                - {name: work, mountPath: /work}
          containers:
            - name: server
              image: vllm/vllm-openai:v0.13.0
              command: ["bash", "/work/prefill.sh"]
              volumeMounts:
                - {name: work, mountPath: /work}
          volumes:
            - name: s
              configMap: {name: scripts}
            - {name: work, emptyDir: {}}
    """


def test_a_container_that_copies_the_script_does_not_run_it(scratch_git):
    """rw30/h P9: an init container's `cp /scripts/prefill.sh /work/...` named the mounted script, so the launch was
    "run by" the copier and judged with its image (here vLLM 0.10.1: a false VLLM018); the server that runs the copy
    from an emptyDir cannot be traced, so the script is judged as written."""
    import textwrap
    scratch_git.write("app.yaml", textwrap.dedent(CONFIGMAP) + "---\n" + textwrap.dedent(COPIER))
    code, report = scratch_git.lint("app.yaml")
    assert report["findings"] == [] and code == 0
    (launch,) = report["launches"]
    assert "run by" not in launch["context"] and launch["engine_version"] == "0.33.0"


@pytest.mark.parametrize("command", ['["sh", "-c", "chmod +x /scripts/prefill.sh && /scripts/prefill.sh"]',
                                     '["sh", "-c", "set -e; exec bash -x /scripts/prefill.sh"]',
                                     '["/bin/sh", "-c", "cp /scripts/prefill.sh /tmp/ && source /scripts/prefill.sh"]'])
def test_the_script_run_after_other_commands_still_takes_the_container(scratch_git, command):
    import textwrap
    scratch_git.write("app.yaml", textwrap.dedent(CONFIGMAP) + "---\n"
                      + textwrap.dedent(COPIER).replace('["sh", "-c", "cp /scripts/prefill.sh /work/prefill.sh && '
                                                        'chmod +x /work/prefill.sh"]', command))
    _, report = scratch_git.lint("app.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM018", 7)], report["findings"]
    assert "run by Deployment/prefill, container 'prep'" in report["launches"][0]["context"]


# rw31/h P3: the container init / exec wrappers a Kubernetes command puts before the script. Each runs its program
# with the rest of the words (tini and dumb-init fork and wait, the others exec), after options of its own: tini's
# usage `tini [-s] [-p SIGNAL] [-e EXIT_CODE] [--] PROGRAM [ARGS]`, dumb-init's `dumb-init [option...] command
# [[arg] ...]` (-r s:r takes a value), GNU timeout's `timeout [OPTION] DURATION COMMAND [ARG]...` (getopt
# "+k:s:v"), gosu's `gosu user-spec command [args]`, su-exec's `su-exec user-spec command [args]`, numactl(8)
# `numactl [--cpunodebind nodes | --cpunodebind=nodes] [--membind nodes] command {arguments ...}`, taskset(1)
# `taskset [options] mask command` / `taskset -c list command`. The same script under `command: ["bash",
# "/scripts/decode.sh"]` was judged with the image (pdlint's verdict on e19f1dc: SGL009 "SGLang 0.4.6.post5 stops
# with "unrecognized arguments: --disable-mla"", here VLLM018); under these it was judged with no image (the newest
# table: SGL012 "no release is pinned", exit 0).
@pytest.mark.parametrize("command", [
    '["tini", "--", "/workspace/prefill.sh"]',
    '["tini", "-s", "--", "/workspace/prefill.sh"]',
    '["/usr/bin/tini", "-p", "SIGTERM", "--", "/workspace/prefill.sh"]',
    '["dumb-init", "/workspace/prefill.sh"]',
    '["dumb-init", "--", "/workspace/prefill.sh"]',
    '["dumb-init", "-r", "15:2", "/workspace/prefill.sh"]',
    '["timeout", "86400", "/workspace/prefill.sh"]',
    '["timeout", "-s", "KILL", "1h", "/workspace/prefill.sh"]',
    '["timeout", "--kill-after=30", "24h", "/workspace/prefill.sh"]',
    '["gosu", "vllm", "/workspace/prefill.sh"]',
    '["su-exec", "1000:1000", "/workspace/prefill.sh"]',
    '["numactl", "--cpunodebind=0", "--membind=0", "/workspace/prefill.sh"]',
    '["numactl", "--cpunodebind", "0", "-m", "0", "/workspace/prefill.sh"]',
    '["taskset", "-c", "0-7", "/workspace/prefill.sh"]',
    '["tini", "--", "gosu", "vllm", "numactl", "-N", "0", "/workspace/prefill.sh"]',
    '["sh", "-c", "timeout -k 5 1h /workspace/prefill.sh"]',
    '["tini", "--", "bash", "-c", "su-exec vllm /workspace/prefill.sh"]',
])
def test_a_script_run_through_an_init_or_exec_wrapper_takes_the_container(scratch_git, command):
    _write(scratch_git, _deployment(command=command))
    code, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [("VLLM018", 7)], (command, report["findings"])
    assert "not a flag of vLLM 0.10.1" in report["findings"][0]["message"] and code == 1
    (launch,) = report["launches"]
    assert launch["engine_version"] == "0.10.1" and "run by Deployment/prefill" in launch["context"]


@pytest.mark.parametrize("command", [
    '["timeout", "5", "cat", "/workspace/prefill.sh"]',  # cat runs, the script is its file
    '["sh", "-c", "cp /workspace/prefill.sh /work/ && sleep infinity"]',  # a copier
    '["gosu", "/workspace/prefill.sh"]',  # gosu's user, no program: runs nothing
    '["timeout", "/workspace/prefill.sh"]',  # timeout's duration
    '["taskset", "-p", "0x3", "/workspace/prefill.sh"]',  # taskset -p MASK PID: sets a process's affinity
    '["numactl", "--show", "/workspace/prefill.sh"]',  # prints the policy
    '["tini", "--", "sleep", "/workspace/prefill.sh"]',  # tini runs sleep
])
def test_a_wrapper_that_does_not_run_the_script_gives_it_nothing(scratch_git, command):
    _write(scratch_git, _deployment(command=command))
    code, report = scratch_git.lint("prefill.yaml")
    assert _codes(report) == [] and code == 0, (command, report["findings"])
    (launch,) = report["launches"]
    assert launch["engine_version"] == "0.33.0" and "run by" not in launch["context"]


def test_wrapper_arities():
    """launchers.wrapped_program / program_at: where each wrapper's program starts (the table rw31/h P3 added; the
    old program_at skipped only words starting with '-' and numbers, so `taskset -c 0-7 X` ran `0-7`, `timeout -s
    KILL 1h X` ran `KILL`, `sudo -u u X` ran `u`)."""
    from pdlint.launchers import program_at, wrapped_program
    cases = {
        "tini -- X": 2, "tini -s -p SIGTERM -- X": 5, "dumb-init X": 1, "dumb-init -c --rewrite 15:2 X": 4,
        "dumb-init --rewrite=15:2 X": 2, "timeout 86400 X": 2, "timeout -s KILL 1h X": 4, "timeout -sKILL 1h X": 3,
        "gosu u X": 2, "su-exec u:g X": 2, "numactl --cpunodebind=0 --membind=0 X": 3, "numactl -N 0 -l X": 4,
        "taskset -c 0-7 X": 3, "taskset 0x3 X": 2, "nice -n 5 X": 3, "nice -5 X": 2, "sudo -E -u u X": 4,
        "env -u A B=1 X": 4, "stdbuf -oL X": 2, "exec -a name X": 3, "chrt -f 50 X": 3,
    }
    for line, want in cases.items():
        texts = line.split()
        assert wrapped_program(texts, 0) == want, line
        assert texts[program_at(texts, 0)] == "X", line
    for line in ("taskset -p 0x3 1234", "gosu u", "timeout 5", "numactl --hardware", "command -v X", "env -S 'a b'"):
        assert wrapped_program(line.split(), 0) is None, line
    assert wrapped_program(["cat", "X"], 0) is None
