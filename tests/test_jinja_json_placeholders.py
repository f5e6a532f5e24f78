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
