"""Kubernetes / LeaderWorkerSet / YAML-shell fixes from field test rw26/a.

* Go template actions (``{{ .Spec.Model.Name }}``) of a controller inside a "double-quoted" YAML scalar: KServe
  LLMInferenceServiceConfig templates as aireilly/rhaii-on-xks ships them (charts/kserve/files/resources.yaml, the
  scripts as JSON-style "..." scalars with `\\n` escapes).  The same script as a `|` block scalar had opaque
  actions; as a "..." scalar every position collapsed to the scalar start and `{{`, `or`, `.Spec...`, `1`, `}}`
  were argv words (4 false VLLM018 errors).
"""

import json

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
