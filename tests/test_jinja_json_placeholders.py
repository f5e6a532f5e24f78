"""A multi-line JSON (flow YAML) Jinja template whose values are undefined variables (field report rw28/a P1,
linux-kdevops/kdevops milvus_config.json.j2): pdlint renders each one as `${name}`, which is no YAML inside a
flow mapping.  Only the error's line was respelled per try (4 tries), so a fifth such line was PD003 and a
JSON manifest's launch went unchecked; every placeholder inside a flow collection is now respelled at once."""

DATA = "{\n  \"a\": {\n" + ",\n".join(f"    \"k{i}\": {{{{ v{i} }}}}" for i in range(6)) + "\n  }\n}\n"

PREFILL = """{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "prefill"},
  "spec": {
    "replicas": {{ replicas }},
    "minReadySeconds": {{ a1 }},
    "revisionHistoryLimit": {{ a2 }},
    "progressDeadlineSeconds": {{ a3 }},
    "paused": {{ a4 }},
    "template": {
      "spec": {
        "containers": [{
          "name": "sglang",
          "image": "lmsysorg/sglang:v0.5.9",
          "command": ["python3", "-m", "sglang.launch_server", "--model-path", "/models/qwen",
                      "--disaggregation-mode", "prefill", "--port", "30000", "--bogus-flag"],
          "ports": [{"containerPort": 30000}]
        }]
      }
    }
  }
}
"""


def test_a_json_data_template_with_many_undefined_values_is_quiet(scratch_git):
    scratch_git.write("bench_config.json.j2", DATA)
    code, report = scratch_git.lint("bench_config.json.j2")
    assert report["findings"] == [] and code == 0


def test_the_launch_of_a_json_manifest_template_is_checked(scratch_git):
    scratch_git.write("prefill.json.j2", PREFILL)
    code, report = scratch_git.lint("prefill.json.j2")
    found = [(f["code"], f["line"]) for f in report["findings"]]
    assert found == [("PD005", 6), ("PD005", 7), ("PD005", 8), ("PD005", 9), ("PD005", 10), ("SGL001", 17)]
    assert code == 1 and len(report["launches"]) == 1


def test_a_really_broken_json_template_is_still_pd003(scratch_git):
    # a missing comma after a placeholder line: broken whatever the values are
    scratch_git.write("bench_config.json.j2", DATA.replace("{{ v2 }},", "{{ v2 }}"))
    code, report = scratch_git.lint("bench_config.json.j2")
    assert [f["code"] for f in report["findings"]] == ["PD003"] and code == 1
    scratch_git.write("bench_config.json.j2", DATA.replace("\"k4\"", "\"k4\" 1"))
    code, report = scratch_git.lint("bench_config.json.j2")
    assert [f["code"] for f in report["findings"]] == ["PD003"] and code == 1


def test_placeholders_in_quoted_values_and_block_scalars_are_left_alone():
    from pdlint.extract import _flow_placeholders
    text = ("a: ${x}\nb: {c: ${y}, d: \"${z}\", e: '${s}'}\nc: |\n  {\n  \"k\": ${w}\n  }\n"
            "d: [\n  ${q}, # ${r}\n  ]\n")
    assert [text[i:j] for i, j in _flow_placeholders(text)] == ["${y}", "${q}"]


FLOW_CMD = """apiVersion: apps/v1
kind: Deployment
metadata: {name: p}
spec:
  template:
    spec:
      containers:
      - name: prefill
        image: lmsysorg/sglang:v0.5.9
        command: ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--disaggregation-mode", "prefill", \
"--tp-size", TP, "--port", PORT]
"""


def test_an_unquoted_placeholder_in_a_flow_command_stays_undecided(scratch_git):
    """Field report rw29/h P7: `[..., "--tp-size", {{ tp }}]` with `tp` unset renders `${tp}`, respelled `$_tp_`
    for YAML's sake; that respelling was then type-checked as the value: SGL005 "invalid int value: '$_tp_'".
    The value is the placeholder: undecided, as `- {{ tp }}` in a block list is (and so for envsubst's `${TP}`)."""
    scratch_git.write("dep.yaml.j2", FLOW_CMD.replace("TP", "{{ tp }}").replace("PORT", "{{ port }}"))
    code, report = scratch_git.lint("dep.yaml.j2")
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        ("PD005", "undefined variable 'tp'"), ("PD005", "undefined variable 'port'")]
    (launch,) = report["launches"]
    assert launch["argv"][-4:] == ["--tp-size", "${tp}", "--port", "${port}"]
    assert [u["flag"] for u in report["coverage"]["files"]["dep.yaml.j2"]["undecided"]] == ["--tp-size", "--port"]
    scratch_git.write("dep.yaml", FLOW_CMD.replace("TP", "${TP}").replace("PORT", "${PORT}"))
    code, report = scratch_git.lint("dep.yaml")
    assert (code, report["findings"]) == (0, [])
    assert [u["flag"] for u in report["coverage"]["files"]["dep.yaml"]["undecided"]] == ["--tp-size", "--port"]


def test_a_wrong_value_beside_a_flow_placeholder_is_still_reported(scratch_git):
    scratch_git.write("dep.yaml", FLOW_CMD.replace("TP", '"two"').replace("PORT", "${PORT}"))
    code, report = scratch_git.lint("dep.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL005", 10)] and code == 1
    assert "'two'" in report["findings"][0]["message"]
    # a placeholder inside a word of a flow mapping is written back too (`x-${N}-y`, not `x-$_N_-y`)
    from pdlint.extract import _inline_placeholders_respelled
    from pdlint.formats import yamltree as yt
    text = "a: {b: x-${N}-y, c: ${M}}\n"
    try:
        yt.compose(text)
    except yt.YamlError as e:
        docs, _, _ = _inline_placeholders_respelled(text, e)
    assert yt.to_python(yt.Ref(docs[0].root)) == {"a": {"b": "x-${N}-y", "c": "${M}"}}


TOJSON = """{"containers": [{"name": "prefill", "image": "lmsysorg/sglang:v0.5.9",
  "command": ["python3", "-m", "sglang.launch_server", "--model-path", {{ model | tojson }},
              "--disaggregation-mode", "prefill", "--tp-size", {{ tp | tojson }}, "--port", {{ 30000 | tojson }}],
  "env": [{"name": "CFG", "value": {{ {"model": model, "n": 1} | tojson | tojson }}}]}]}
"""


def test_an_unset_variable_through_tojson_is_an_undefined_variable(scratch_git):
    """Field report rw29/h P8: `{{ model | tojson }}` (the JSON template's filter) with `model` unset stopped
    the render with "PD006 error: TypeError: Object of type Recording is not JSON serializable" (pdlint's own
    class) and no launch was checked. It is what `{{ model }}` is: PD005, the value undecided, the launch checked."""
    scratch_git.write("t.sh.j2", "python3 -m sglang.launch_server --model-path {{ model | tojson }} "
                                 "--disaggregation-mode prefill --bogus\n")
    code, report = scratch_git.lint("t.sh.j2")
    assert [(f["code"], f["message"].split(" (")[0]) for f in report["findings"]] == [
        ("PD005", "undefined variable 'model'"), ("SGL001", "unrecognized arguments: --bogus")]
    (launch,) = report["launches"]
    assert launch["argv"][:2] == ["--model-path", "${model}"]
    scratch_git.write("p.json.j2", TOJSON)
    code, report = scratch_git.lint("p.json.j2")
    assert [(f["code"], f["line"], f["message"]) for f in report["findings"]] == [
        ("PD005", 2, "undefined variable 'model' (also used on line 4)"), ("PD005", 3, "undefined variable 'tp'")]
    assert not any("Recording" in f["message"] for f in report["findings"])
    (launch,) = report["launches"]
    assert launch["argv"] == ["--model-path", "${model}", "--disaggregation-mode", "prefill", "--tp-size", "${tp}",
                              "--port", "30000"]


def test_tojson_of_known_values_renders_as_jinja_does(scratch_git):
    scratch_git.write("p.json.j2", TOJSON.replace("{{ tp | tojson }}", '{{ "x" | tojson }}'))
    code, report = scratch_git.lint("--var", "model=Qwen/Qwen3-8B", "p.json.j2")
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        ("SGL005", "argument --tensor-parallel-size/--tp-size: invalid int value: 'x' [SGLang 0.5.9]")]
    (launch,) = report["launches"]
    assert launch["argv"][:2] == ["--model-path", "Qwen/Qwen3-8B"]


def test_an_unset_variable_as_a_tojson_key_is_an_undefined_variable(scratch_git):
    """Hostile-input round rw30/h P6: `{{ {override_key: 1} | tojson }}` with `override_key` unset stopped the
    render with "PD006 error: TypeError: keys must be str, int, float, bool or None, not Recording" (json.dumps
    checks a key's type before its `default=` is asked) and every launch of the template went unchecked. As a key
    it is what it is as a value: PD005 at the name, its placeholder text, the launches checked."""
    scratch_git.write("launch.sh.j2", "#!/bin/bash\npython3 -m sglang.launch_server --model-path m "
                                      "--disaggregation-mode {{ role }} --json-model-override-args "
                                      "'{{ {override_key: 1, \"a\": {inner: 2}} | tojson }}'\n")
    code, report = scratch_git.lint("launch.sh.j2")
    assert [(f["code"], f["line"], f["message"]) for f in report["findings"]] == [
        ("PD005", 2, "undefined variable 'override_key'"), ("PD005", 2, "undefined variable 'inner'")]
    assert not any("Recording" in f["message"] for f in report["findings"])
    assert sorted(launch["role"] for launch in report["launches"]) == ["decode", "prefill"]
    for launch in report["launches"]:
        assert launch["argv"][-1] == '{"${override_key}": 1, "a": {"${inner}": 2}}'


def test_tojson_keys_that_json_takes_or_refuses_stay_as_jinja_has_them(scratch_git):
    # ints and None are keys json.dumps writes as strings; a tuple key is Jinja's own TypeError at deploy time
    scratch_git.write("t.sh.j2", "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                 "--json-model-override-args '{{ {1: \"a\", 2: {None: 3}} | tojson }}'\n")
    code, report = scratch_git.lint("t.sh.j2")
    assert (code, report["findings"]) == (0, [])
    (launch,) = report["launches"]
    assert launch["argv"][-1] == '{"1": "a", "2": {"null": 3}}'
    scratch_git.write("t.sh.j2", "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                 "--json-model-override-args '{{ {(1, 2): \"a\"} | tojson }}'\n")
    code, report = scratch_git.lint("t.sh.j2")
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        ("PD006", "TypeError: keys must be str, int, float, bool or None, not tuple")]


def test_ansible_json_filters_keep_a_tuple_key_a_tuple():
    """rw30/h P6 (the Ansible preset's `to_json` / `to_nice_json`): a tuple key made a list stopped the render
    with "TypeError: unhashable type: 'list'"; json.dumps's own refusal is what Ansible prints."""
    import pytest
    from pdlint.render import ansible
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        ansible.FILTERS["to_nice_json"]({(1, "a"): 1})
    assert ansible.FILTERS["to_json"]({None: 1, 2: [3]}) == '{"null": 1, "2": [3]}'
