"""PD005 on a Jinja manifest with no launch text (field report rw28/a P3, vllm-project/vllm-ascend's
tests/e2e/nightly/multi_node/scripts/lws_560t.yaml.jinja2: `value: "{{ aop_multi_enabled }}"`, rendered by the
`jinja2` command line, whose default undefined writes ""): an undefined name used only where no launch is built
from it (an env value, a ConfigMap value, a name, a label) is a warning, not an error; one that may reach
launch text (command, args, an image, a script, an env variable the command refers to, an expression that
writes keys) stays an error, as does any undefined name of a shell template."""

LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: {{ lws_name | default("vllm") }}
  labels:
    team: {{ team }}
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      spec:
        containers:
          - name: vllm-leader
            image: IMAGE
            env:
              - name: AOP_MULTI_ENABLED
                value: "{{ aop_multi_enabled }}"
            command:
              - sh
              - -c
              - |
                bash /root/.cache/tests/run.sh SCRIPT
            args: ARGS
"""

CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
data:
  flag: "{{ some_flag }}"
"""


def _lws(image="quay.io/ascend/vllm-ascend:nightly", script="", args="[]"):
    return LWS.replace("IMAGE", image).replace("SCRIPT", script).replace("ARGS", args)


def _pd005(report):
    return sorted((f["path"], f["line"], f["severity"]) for f in report["findings"] if f["code"] == "PD005")


def test_env_configmap_and_label_values_are_warnings(scratch_git):
    scratch_git.write("lws.yaml.jinja2", _lws())
    scratch_git.write("cm.yaml.jinja2", CM)
    code, report = scratch_git.lint(".")
    assert _pd005(report) == [("cm.yaml.jinja2", 6, "warning"), ("lws.yaml.jinja2", 6, "warning"),
                              ("lws.yaml.jinja2", 16, "warning")]
    assert [f["code"] for f in report["findings"]] == ["PD005"] * 3 and code == 0
    assert "only in values no launch is built from" in report["findings"][0]["message"]


def test_a_name_in_the_command_args_or_image_stays_an_error(scratch_git):
    for text, line in ((_lws(script="{{ extra_args }}"), 21), (_lws(args="[{{ server_flags }}]"), 22),
                       (_lws(args="\n              - {{ server_flags }}"), 23),
                       (_lws(image="{{ image }}"), 13)):
        scratch_git.write("lws.yaml.jinja2", text)
        code, report = scratch_git.lint("lws.yaml.jinja2")
        assert ("lws.yaml.jinja2", line, "error") in _pd005(report) and code == 1, (text, report["findings"])


def test_an_env_value_the_command_refers_to_stays_an_error(scratch_git):
    scratch_git.write("lws.yaml.jinja2", _lws(script="$(AOP_MULTI_ENABLED)"))
    code, report = scratch_git.lint("lws.yaml.jinja2")
    assert ("lws.yaml.jinja2", 16, "error") in _pd005(report) and code == 1
    scratch_git.write("lws.yaml.jinja2", _lws().replace("AOP_MULTI_ENABLED", "SERVER_ARGS"))
    code, report = scratch_git.lint("lws.yaml.jinja2")  # (named like arguments: run.sh may read it)
    assert ("lws.yaml.jinja2", 16, "error") in _pd005(report) and code == 1


def test_a_script_in_a_configmap_or_keys_written_by_an_expression_stay_errors(scratch_git):
    scratch_git.write("cm.yaml.jinja2", CM + "  run.sh: |\n    bash run {{ launch }}\n")
    code, report = scratch_git.lint("cm.yaml.jinja2")
    assert _pd005(report) == [("cm.yaml.jinja2", 6, "warning"), ("cm.yaml.jinja2", 8, "error")] and code == 1
    scratch_git.write("cm.yaml.jinja2", _lws().replace("            env:", "            {{ container_extra }}\n"
                                                                          "            env:"))
    code, report = scratch_git.lint("cm.yaml.jinja2")
    assert ("cm.yaml.jinja2", 14, "error") in _pd005(report) and code == 1


def test_a_shell_template_keeps_its_errors(scratch_git):
    scratch_git.write("run.sh.j2", "#!/bin/bash\nexport FLAG={{ some_flag }}\nbash /opt/run.sh\n")
    code, report = scratch_git.lint("run.sh.j2")
    assert _pd005(report) == [("run.sh.j2", 2, "error")] and code == 1
