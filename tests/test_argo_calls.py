"""Argo Workflows: a template runs once per step / DAG task that calls it, with the `arguments.parameters` that call
passes over the template's input defaults (`pdlint.formats.argo`).  Field test rw26/h item 13 (a hostile-input
tester's workflow, written for pdlint, no upstream repository): a `server` template whose defaults make a decode,
called by a `prefill` step that passes role=prefill and a flag SGLang refuses on a prefill, was checked once, as the
decode its defaults make: 0 errors, exit 0 with --strict."""

import pytest

SERVER = """\
    - name: server
      inputs:
        parameters:
          - {name: role, default: decode}
          - {name: port, default: "30002"}
          - {name: extra, default: "--log-level=info"}
      container:
        image: lmsysorg/sglang:v0.5.23
        command: [python3, -m, sglang.launch_server]
        args: [--model-path, m, --disaggregation-mode, "{{inputs.parameters.role}}", --port, "{{inputs.parameters.port}}",
               "{{inputs.parameters.extra}}"]
"""

STEPS = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: pd-}
spec:
  entrypoint: main
  templates:
    - name: main
      steps:
        - - name: prefill
            template: server
            arguments:
              parameters:
                - {name: role, value: prefill}
                - {name: port, value: "30001"}
                - {name: extra, value: "EXTRA"}
          - name: decode
            template: server
""" + SERVER

DAG = STEPS.replace("""      steps:
        - - name: prefill""", """      dag:
        tasks:
          - name: prefill""")


def _lint(scratch, text, name="wf.yaml"):
    scratch.write(name, text)
    code, doc = scratch.lint(".")
    errors = [(f["code"], f["line"]) for f in doc["findings"] if f["severity"] == "error"]
    return code, doc, errors


@pytest.mark.parametrize("text", [STEPS, DAG], ids=["steps", "dag"])
def test_each_call_is_a_launch_with_the_arguments_it_passes(scratch, text):
    code, doc, errors = _lint(scratch, text.replace("EXTRA", "--enable-linear-replayssm-spec"))
    # the refused flag, reported at the argument the prefill call passes
    assert errors == [("SGL101", 15 if text is STEPS else 16)] and code == 1
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert len({l["unit"] for l in doc["launches"]}) == 1  # one workflow: one deployment, the two pair


@pytest.mark.parametrize("text", [STEPS, DAG], ids=["steps", "dag"])
def test_calls_with_good_arguments_are_quiet(scratch, text):
    code, doc, errors = _lint(scratch, text.replace("EXTRA", "--log-level=debug"))
    assert errors == [] and code == 0
    argv = {l["role"]: l["argv"] for l in doc["launches"]}
    assert argv["prefill"][-3:] == ["--port", "30001", "--log-level=debug"]
    assert argv["decode"][-3:] == ["--port", "30002", "--log-level=info"]  # the defaults: the call passes none
    assert [l["context"].split("run by ")[1] for l in doc["launches"]] == [
        f"{'step' if text is STEPS else 'task'} 'prefill' of template 'main'",
        f"{'step' if text is STEPS else 'task'} 'decode' of template 'main'"]


def test_a_template_nothing_calls_runs_with_its_defaults_and_the_entry_point_with_the_workflows_arguments(scratch):
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: pd-}
spec:
  entrypoint: server
  arguments:
    parameters:
      - {name: role, value: prefill}
  templates:
""" + SERVER + SERVER.replace("name: server", "name: spare")
    code, doc, errors = _lint(scratch, text)
    assert errors == [] and code == 0
    assert sorted((l["role"], l["argv"][-1]) for l in doc["launches"]) == [
        ("decode", "--log-level=info"), ("prefill", "--log-level=info")]


def test_an_input_value_wins_over_what_a_call_passes(scratch):
    text = STEPS.replace("EXTRA", "--enable-linear-replayssm-spec").replace(
        '{name: extra, default: "--log-level=info"}', '{name: extra, value: "--log-level=info"}')
    code, doc, errors = _lint(scratch, text)
    assert errors == [] and code == 0
    assert {l["argv"][-1] for l in doc["launches"]} == {"--log-level=info"}


LOOP = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: pd-}
spec:
  entrypoint: main
  templates:
    - name: main
      steps:
        - - name: servers
            template: server
LOOP
            arguments:
              parameters:
                - {name: role, value: "{{item.role}}"}
                - {name: port, value: "{{item.port}}"}
""" + SERVER


@pytest.mark.parametrize("loop", [
    """            withItems:
              - {role: prefill, port: "30001"}
              - {role: decode, port: "30002"}""",
    """            withParam: '[{"role": "prefill", "port": 30001}, {"role": "decode", "port": 30002}]'"""],
    ids=["withItems", "withParam"])
def test_a_literal_loop_is_one_run_per_item(scratch, loop):
    code, doc, errors = _lint(scratch, LOOP.replace("LOOP", loop))
    assert errors == [] and code == 0
    assert sorted((l["role"], l["argv"][l["argv"].index("--port") + 1]) for l in doc["launches"]) == [
        ("decode", "30002"), ("prefill", "30001")]


def test_a_loop_over_a_list_computed_at_run_time_is_a_value_pdlint_cannot_see(scratch):
    code, doc, errors = _lint(scratch, LOOP.replace("LOOP", '            withParam: "{{steps.gen.outputs.result}}"'))
    assert not [f for f in doc["findings"] if f["code"] in ("SGL004", "SGL005")]
    [launch] = doc["launches"]
    assert launch["argv"][launch["argv"].index("--port") + 1] == "{{item.port}}"
    assert [(u["flag"], u["text"], u["line"]) for u in doc["coverage"]["files"]["wf.yaml"]["undecided"]] == [
        ("--port", "{{item.port}}", 15)]


def test_an_argument_pdlint_cannot_read_is_pd023_where_it_is_written(scratch):
    code, doc, errors = _lint(scratch, STEPS.replace('"EXTRA"', '"{{steps.gen.outputs.result}}"'))
    assert errors == []
    gaps = [(u["code"], u["line"], u["text"]) for u in doc["coverage"]["files"]["wf.yaml"]["unchecked"]]
    assert gaps == [("PD023", 15, "{{steps.gen.outputs.result}}")]
    (pd023,) = [f for f in doc["findings"] if f["code"] == "PD023"]
    assert "Argo Workflows expression" in pd023["fix"] and "Go template" not in pd023["fix"]
    decode = [l for l in doc["launches"] if l["role"] == "decode"]
    assert decode[0]["argv"][-1] == "--log-level=info"  # (the call that passes nothing: the default, known)


def test_runs_past_the_bound_are_pd020_and_every_call_runs_once(scratch):
    text = LOOP.replace("LOOP", '            withSequence: {count: "20"}').replace(
        '"{{item.role}}"', "decode").replace('"{{item.port}}"', '"300{{item}}"')
    text = text.replace("""    - name: server
""", """          - name: prefill
            template: server
            arguments:
              parameters:
                - {name: role, value: prefill}
    - name: server
""", 1)
    code, doc, errors = _lint(scratch, text)
    assert errors == []
    roles = [l["role"] for l in doc["launches"]]
    assert len(roles) == 16 and roles.count("prefill") == 1  # (the call after the long loop is not crowded out)
    [gap] = doc["coverage"]["files"]["wf.yaml"]["unchecked"]
    assert gap["code"] == "PD020" and gap["line"] == 9 and "run it 21 times" in gap["reason"]


def test_template_ref_to_a_workflow_template_of_the_same_stream_and_script_templates(scratch):
    text = """\
apiVersion: argoproj.io/v1alpha1
kind: WorkflowTemplate
metadata: {name: sglang-server}
spec:
  templates:
    - name: server
      inputs:
        parameters:
          - {name: role, default: decode}
          - {name: extra, default: "--log-level=info"}
      script:
        image: lmsysorg/sglang:v0.5.23
        command: [bash]
        source: |
          python3 -m sglang.launch_server --model-path m --disaggregation-mode {{inputs.parameters.role}} {{inputs.parameters.extra}}
---
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: pd-}
spec:
  entrypoint: main
  templates:
    - name: main
      dag:
        tasks:
          - name: prefill
            templateRef: {name: sglang-server, template: server}
            arguments:
              parameters:
                - {name: role, value: prefill}
                - {name: extra, value: EXTRA}
          - name: decode
            templateRef: {name: sglang-server, template: server}
"""
    code, doc, errors = _lint(scratch, text.replace("EXTRA", "--enable-linear-replayssm-spec"))
    assert errors == [("SGL101", 31)] and code == 1
    code, doc, errors = _lint(scratch, text.replace("EXTRA", "--log-level=debug"))
    assert errors == [] and code == 0
    assert sorted((l["role"], l["argv"][-1]) for l in doc["launches"]) == [
        ("decode", "--log-level=info"), ("prefill", "--log-level=debug")]


def test_hostile_call_graphs_end(scratch):
    # a template calling itself, steps naming missing templates, a loop of a million items: bounded, no traceback
    text = STEPS.replace("EXTRA", "x").replace("""          - name: decode
            template: server
""", """          - name: self
            template: main
          - name: missing
            template: nowhere
          - name: many
            template: server
            withSequence: {count: "1000000"}
""")
    code, doc, errors = _lint(scratch, text)
    assert len(doc["launches"]) == 16
