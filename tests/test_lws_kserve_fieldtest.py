"""Kubernetes / LeaderWorkerSet / YAML-shell fixes from field test rw26/a.

* Go template actions (``{{ .Spec.Model.Name }}``) of a controller inside a "double-quoted" YAML scalar: KServe
  LLMInferenceServiceConfig templates as aireilly/rhaii-on-xks ships them (charts/kserve/files/resources.yaml, the
  scripts as JSON-style "..." scalars with `\\n` escapes).  The same script as a `|` block scalar had opaque
  actions; as a "..." scalar every position collapsed to the scalar start and `{{`, `or`, `.Spec...`, `1`, `}}`
  were argv words (4 false VLLM018 errors).
"""

import json

import pytest

LLMISC = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceServiceConfig
metadata:
  name: prefill-dp
spec:
  prefill:
    template:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/bash", "-c"]
          args:
            - {script}
"""

SCRIPT = ('eval "vllm serve /mnt/models \\\\\n  --served-model-name "{{ .Spec.Model.Name }}" \\\\\n'
          '  --data-parallel-size {{ or .Spec.Prefill.Parallelism.Data 1 }} \\\\\n'
          '  --kv-transfer-config \'{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_both\\"}\'"\n')


def _block(script: str) -> str:
    return "|\n" + "".join("              " + line + "\n" for line in script.splitlines())


def _double_quoted(script: str) -> str:
    return json.dumps(script)  # the JSON-style scalar rhaii-on-xks writes: `\n`, `\"`, `\\` escapes


def _single_quoted(script: str) -> str:
    return "'" + script.replace("'", "''").replace("\n", "\n\n              ") + "'"


def _launch(scratch, style):
    scratch.write("cfg.yaml", LLMISC.format(script=style(SCRIPT)))
    code, report = scratch.lint("cfg.yaml")
    [launch] = report["launches"]
    return code, report, launch


def test_actions_in_a_double_quoted_scalar_stay_one_opaque_word(scratch):
    """Before: VLLM018 "unrecognized arguments: .Spec.Prefill.Parallelism.Data" / "1" / "or" / "}}", every origin
    13:15."""
    code, report, launch = _launch(scratch, _double_quoted)
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == [] and code == 0
    assert "{{ .Spec.Model.Name }}" in launch["argv"]
    assert "{{ or .Spec.Prefill.Parallelism.Data 1 }}" in launch["argv"]
    assert "}}" not in launch["argv"] and "or" not in launch["argv"]
    [undecided] = report["coverage"]["files"]["cfg.yaml"]["undecided"]
    line = LLMISC.splitlines()[12]
    raw = _double_quoted(SCRIPT)
    # the action's column is where it is written in the "..." scalar, not the scalar's start
    assert (undecided["line"], undecided["column"]) == (13, line.index("{script}") + raw.index("{{ or") + 1)


def test_the_same_result_for_block_double_and_single_quoted_scalars(scratch):
    got = []
    for style in (_block, _double_quoted, _single_quoted):
        code, report, launch = _launch(scratch, style)
        got.append((code, [f["code"] for f in report["findings"]], launch["argv"]))
    assert got[0] == got[1] == got[2]
    assert got[0][0] == 0


def test_a_plain_scalar_action_stays_one_word(scratch):
    scratch.write("cfg.yaml", LLMISC.format(
        script="vllm serve /mnt/models --data-parallel-size {{ or .Spec.Prefill.Parallelism.Data 1 }} --port 8000"))
    code, report = scratch.lint("cfg.yaml")
    [launch] = report["launches"]
    assert launch["argv"][-3:] == ["{{ or .Spec.Prefill.Parallelism.Data 1 }}", "--port", "8000"] and code == 0


def test_an_action_in_arithmetic_of_a_double_quoted_script_parses(scratch):
    """rhaii-on-xks's data-parallel worker: `START_RANK=$(( ${LWS_WORKER_INDEX:-0} * {{ or
    .Spec.Parallelism.DataLocal 1 }} ))` in a "..." scalar was PD009 "shell syntax error: cannot parse
    '$(( ${LWS_WORKER_INDEX:-0} *'"."""
    script = ('START_RANK=$(( ${LWS_WORKER_INDEX:-0} * {{ or .Spec.Parallelism.DataLocal 1 }} ))\n'
              'vllm serve /mnt/models --data-parallel-start-rank $START_RANK --data-parallel-size 2\n')
    scratch.write("cfg.yaml", LLMISC.format(script=_double_quoted(script)))
    _, report = scratch.lint("cfg.yaml")
    assert "PD009" not in [f["code"] for f in report["findings"]]
    assert len(report["launches"]) == 1


def test_pd009_names_a_template_action_that_breaks_the_parse(scratch):
    """Where an action does reach the shell parser (a script file with the controller's text), PD009 says it is
    a template action, not only "cannot parse"."""
    scratch.write("start.sh", "#!/bin/bash\nSTART_RANK=$(( ${LWS_WORKER_INDEX:-0} * {{ or .Spec.Parallelism.DataLocal"
                              " 1 }} ))\nvllm serve /m --data-parallel-start-rank $START_RANK\n")
    _, report = scratch.lint("start.sh")
    msgs = [f["message"] for f in report["findings"] if f["code"] == "PD009"]
    assert any("template action '{{ or .Spec.Parallelism.DataLocal 1 }}'" in m for m in msgs)


def test_pd009_without_a_template_action_keeps_its_message(scratch):
    scratch.write("start.sh", "#!/bin/bash\nSTART_RANK=$(( 2 * ))\nvllm serve /m --data-parallel-start-rank 0\n")
    _, report = scratch.lint("start.sh")
    msgs = [f["message"] for f in report["findings"] if f["code"] == "PD009"]
    assert msgs and not any("template action" in m for m in msgs)


def test_double_quoted_escapes_are_placed():
    """Each character of a "..." scalar maps to where it is written, escapes (`\\n`, `\\"`, `\\x41`, `\\u00e9`, an
    escaped line break) included."""
    from pdlint.formats import yamltree as yt
    from pdlint.text import SourceFile, TStr
    src = 'a: "x\\ny \\"q\\" \\x41\\u00e9 \\\n   z\\\\w"\n'
    doc = TStr.from_source(SourceFile("a.yaml", src))
    [d] = yt.compose(src)
    value = yt.scalar_tstr(doc, yt.get(yt.Ref(d.root), "a"))
    assert value.text == 'x\ny "q" A\xe9 z\\w'
    for ch, col in (("y", 8), ("q", 12), ("A", 16), ("z", 4), ("w", 7)):
        i = value.text.index(ch)
        o = value[i:i + 1].origin
        assert (o.line, o.column) == ((1, col) if ch not in "zw" else (2, col)), (ch, o)


# ---------------------------------------------------------------------------------------------------------------
# LeaderWorkerSet's injected variables (AI-Hypercomputer/gpu-recipes src/helm-charts/a4x/inference-templates/
# lws-deployment/templates/lws-launcher.yaml: `RANK="${LWS_WORKER_INDEX:-0}"`, `SIZE="${LWS_GROUP_SIZE:-4}"`,
# `--nnodes ${SIZE} --node-rank ${RANK}`).  LWS adds LWS_LEADER_ADDRESS, LWS_GROUP_SIZE and LWS_WORKER_INDEX to
# every container (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go), listed in `env` or not.
# ---------------------------------------------------------------------------------------------------------------

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: sgl
spec:
  replicas: 1
  leaderWorkerTemplate:
    @SIZE@
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: lmsysorg/sglang:v0.5.23
            @ENV@
            command: ["/bin/bash", "-c"]
            args:
              - |
                SIZE="${LWS_GROUP_SIZE:-4}"
                python3 -m sglang.launch_server --model-path /data/model --tp-size 16 \\
                  --nnodes ${SIZE} --node-rank ${LWS_WORKER_INDEX:-0} --dist-init-addr ${LWS_LEADER_ADDRESS}:20000 \\
                  --disaggregation-mode prefill
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: lmsysorg/sglang:v0.5.23
            @ENV@
            command: ["/bin/bash", "-c"]
            args:
              - |
                SIZE="${LWS_GROUP_SIZE:-4}"
                python3 -m sglang.launch_server --model-path /data/model --tp-size 16 \\
                  --nnodes ${SIZE} --node-rank ${LWS_WORKER_INDEX:-0} --dist-init-addr ${LWS_LEADER_ADDRESS}:20000 \\
                  --disaggregation-mode prefill
"""

#: gpu-recipes declares the size by a fieldRef to an annotation LWS does not set (its own is
#: leaderworkerset.sigs.k8s.io/size); LWS writes its LWS_GROUP_SIZE over the container's entry
#: (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go addEnvVarsIfNotExists)
GROUP_SIZE_ENV = ("env: [{name: LWS_GROUP_SIZE, valueFrom: {fieldRef: {fieldPath: "
                  "\"metadata.annotations['leaderworkerset.sigs.k8s.io/group-size']\"}}}]")


def _lws(size="size: 4", env=""):
    return LWS.replace("@SIZE@", size).replace("@ENV@", env)


def _argv(launch):
    return dict(zip(launch["argv"], launch["argv"][1:]))


def _codes(report):
    return [f["code"] for f in report["findings"]]


def test_a_defaulted_worker_index_is_not_rank_0_on_a_worker(scratch):
    """Before: PD113 "this worker is given --node-rank 0, the rank its leader has" (the `:-0` default taken, as
    if LWS_WORKER_INDEX were unset)."""
    scratch.write("lws.yaml", _lws(env=GROUP_SIZE_ENV))
    code, report = scratch.lint("lws.yaml")
    assert "PD113" not in _codes(report) and code == 0
    leader, worker = sorted(report["launches"], key=lambda l: l["line"])
    assert _argv(leader)["--node-rank"] == "0"  # the leader's index is always 0
    assert _argv(worker)["--node-rank"] == "$(LWS_WORKER_INDEX)"  # 1..size-1: one per worker pod
    assert _argv(worker)["--dist-init-addr"].startswith("$(LWS_LEADER_ADDRESS)")  # not the empty default


def test_a_literal_rank_0_on_the_worker_is_still_pd113(scratch):
    scratch.write("lws.yaml", _lws().replace("--node-rank ${LWS_WORKER_INDEX:-0}", "--node-rank 0"))
    _, report = scratch.lint("lws.yaml")
    assert "PD113" in _codes(report)


def test_another_kind_takes_the_default(scratch):
    """Only a LeaderWorkerSet's pods get the variables: in a Deployment `${LWS_WORKER_INDEX:-0}` is 0."""
    text = _lws().replace("kind: LeaderWorkerSet", "kind: Deployment")
    scratch.write("dep.yaml", text)
    _, report = scratch.lint("dep.yaml")
    assert all(_argv(l).get("--node-rank") == "0" for l in report["launches"])


def test_lws_group_size_is_the_size_of_the_same_object(scratch):
    """size 3 and --tp-size 16: SGL201.  SGLang 0.5.23 oracle: `--tp-size 16 --nnodes 3 --node-rank 1
    --dist-init-addr 10.0.0.1:20000 --disaggregation-mode prefill` -> REJECT: AssertionError: tp_size must be
    divisible by number of nodes.  Before: no error, and "--nnodes $(LWS_GROUP_SIZE) (lws.yaml:15:17) ... write
    the values into the file" (the text and place of the env entry)."""
    scratch.write("lws.yaml", _lws("size: 3", GROUP_SIZE_ENV))
    code, report = scratch.lint("lws.yaml")
    sgl201 = [f for f in report["findings"] if f["code"] == "SGL201"]
    assert code == 1 and len(sgl201) == 2  # the leader and the worker
    assert "tp_size must be divisible by number of nodes" in sgl201[0]["message"]
    assert report["coverage"]["undecided"] == 0


def test_lws_group_size_fits(scratch):
    """size 4 and --tp-size 16: oracle `--tp-size 16 --nnodes 4 --node-rank 1 ...` -> ACCEPT."""
    scratch.write("lws.yaml", _lws("size: 4", GROUP_SIZE_ENV))
    code, report = scratch.lint("lws.yaml")
    assert "SGL201" not in _codes(report) and code == 0
    assert all(_argv(l)["--nnodes"] == "4" for l in report["launches"])


def test_a_fieldref_to_the_size_annotation_is_the_size(scratch):
    env = ("env: [{name: NN, valueFrom: {fieldRef: {fieldPath: "
           "\"metadata.annotations['leaderworkerset.sigs.k8s.io/size']\"}}}]")
    scratch.write("lws.yaml", _lws("size: 3", env).replace('SIZE="${LWS_GROUP_SIZE:-4}"', 'SIZE="${NN:-4}"'))
    _, report = scratch.lint("lws.yaml")
    assert all(_argv(l)["--nnodes"] == "3" for l in report["launches"])
    assert "SGL201" in _codes(report)


def test_no_size_is_the_api_default_1(scratch):
    scratch.write("lws.yaml", _lws("restartPolicy: None"))
    _, report = scratch.lint("lws.yaml")
    assert all(_argv(l)["--nnodes"] == "1" for l in report["launches"])


def _text(capsys, *args):
    from pdlint.cli import main
    main(["check", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return out.out


def test_a_size_pdlint_cannot_see_says_where_to_write_it(scratch, capsys):
    """A size that is a template value: undecided at the `size:` line, and the hint names the chart value, not
    "write the value into the file" (the controller, not the container, sets LWS_GROUP_SIZE)."""
    scratch.write("lws.yaml", _lws("size: ${NNODES}"))
    code, report = scratch.lint("lws.yaml")
    assert "SGL201" not in _codes(report)
    und = report["coverage"]["files"]["lws.yaml"]["undecided"]
    assert [(u["line"], u["flag"], u["text"]) for u in und] == [(8, "--nnodes", "${NNODES}")]
    text = _text(capsys, "lws.yaml")
    assert "give the value you deploy with as --var NNODES=VALUE" in text
    assert "write the value into the file" not in text


def test_a_controller_variable_pdlint_cannot_see_names_the_field(scratch, capsys):
    """Exec-form `--nnodes $(LWS_GROUP_SIZE)` with a size that is no number: the hint is the resource's field."""
    text = _lws("size: $(N)").replace('SIZE="${LWS_GROUP_SIZE:-4}"', "SIZE=$(LWS_GROUP_SIZE)")
    scratch.write("lws.yaml", text)
    out = _text(capsys, "lws.yaml")
    assert "write leaderWorkerTemplate.size as a number (the controller sets the variable from it)" in out
    assert "write the value into the file" not in out and "write the values into the file" not in out


# ---------------------------------------------------------------------------------------------------------------
# PD112 and a shell's command substitution (AI-Hypercomputer/gpu-recipes src/helm-charts/a4xmax/inference-templates/
# tensorrt-llm-deployment/templates/multi-node-aggregated-tensorrt-llm-deployment.yaml:117, `make -j$(nproc)
# install`, a UCX build step before the server): Kubernetes leaves the unresolvable `$(nproc)` as written, bash runs
# it as a command substitution; it is no text a server receives.
# ---------------------------------------------------------------------------------------------------------------

TRT = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: trt
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6
            command: @COMMAND@
            args:
              - |
                cd /tmp/ucx && make -j$(nproc) install && cd /
                trtllm-serve serve /models/llama --host 0.0.0.0 --port 8000 --tp_size 8
"""


def _pd112(report):
    return [f for f in report["findings"] if f["code"] == "PD112"]


@pytest.mark.parametrize("command", ['["/bin/bash", "-c"]', "[sh, -ec]", "[bash, -o, pipefail, -c]",
                                     "[bash, --login, -c]"])
def test_no_pd112_in_a_shell_script(scratch, command):
    """Before: PD112 "$(nproc) is no variable of this container ...: Kubernetes passes the text `$(nproc)` to the
    server unchanged"."""
    scratch.write("lws.yaml", TRT.replace("@COMMAND@", command))
    _, report = scratch.lint("lws.yaml")
    assert _pd112(report) == [] and len(report["launches"]) == 1


def test_pd112_still_for_a_server_argv_word(scratch):
    """Exec form: the server receives `$(LWS_WORKER_IDX)` as written (SGLang 0.5.23: "argument --node-rank:
    invalid int value: '$(LWS_WORKER_IDX)'")."""
    text = TRT.replace("@COMMAND@", "[python3, -m, sglang.launch_server, --model-path, m, --node-rank, "
                                    "$(LWS_WORKER_IDX), --nnodes, \"2\"]").split("            args:")[0]
    scratch.write("lws.yaml", text)
    _, report = scratch.lint("lws.yaml")
    assert [f["severity"] for f in _pd112(report)] == ["error"]


def test_pd112_still_for_the_words_after_a_shell_script(scratch):
    """`sh -c SCRIPT $(NAME)`: the words after the script are its $0, $1... - Kubernetes' text, not the shell's."""
    text = TRT.replace("@COMMAND@", '[sh, -c, "exec trtllm-serve serve /m --tp_size 8 $0", "$(EXTRA)"]')
    scratch.write("lws.yaml", text.split("            args:")[0])
    _, report = scratch.lint("lws.yaml")
    assert [f["message"][:9] for f in _pd112(report)] == ["$(EXTRA) "]


def test_pd022_for_a_relative_file_of_a_container_with_a_working_dir_names_it(scratch):
    # field test rw26/a (sjm446/ai-on-eks trtllm router): `--extra-engine-args engine_configs/agg.yaml` under
    # `workingDir: /workspace/components/backends/trtllm`, a file of the Dynamo image
    manifest = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: prefill}
spec:
  template:
    spec:
      containers:
        - name: w
          image: lmsysorg/sglang:v0.5.23
          WORKDIR
          command: [python3, -m, sglang.launch_server, --model-path, m, --config, cfg/p.yaml]
"""
    scratch.write("d.yaml", manifest.replace("WORKDIR", "workingDir: /workspace/components/backends/trtllm"))
    _, doc = scratch.lint("d.yaml")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD022"]
    assert "relative to the container's workingDir /workspace/components/backends/trtllm" in f["message"]
    scratch.write("d.yaml", manifest.replace("WORKDIR", "env: []"))
    _, doc = scratch.lint("d.yaml")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD022"]
    assert "workingDir" not in f["message"]


def test_pd009_does_not_name_a_template_action_far_from_the_error(scratch):
    # field compare (av/harbor's harbor.sh): an error node that runs to the script's end held a `docker info --format
    # '{{.SecurityOptions}}'` 1,600 lines on, named as the cause
    script = "#!/bin/bash\nf() {\n  local -a d\n  echo $((d[((i - 1) *\n}\n" + "echo x\n" * 200 + \
             "docker info --format '{{.SecurityOptions}}'\npython3 -m sglang.launch_server --model-path m\n"
    scratch.write("run.sh", script)
    _, doc = scratch.lint("run.sh")
    assert all("template action" not in f["message"] for f in doc["findings"] if f["code"] == "PD009")
