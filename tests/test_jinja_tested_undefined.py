"""An undefined variable a template only tests or loops over (`{% if shared_volume_path %}`, `{% for s in steps %}`)
is false / empty under Jinja's default undefined, as the `jinja2` command line renders it (vllm-project/vllm-ascend's
nightly LWS templates, field test rw23/b: a PD005 error on a template with no launch text at all): a warning that
says so.  A value written out, a name close to a defined one, and a role switch stay errors."""

import pytest

LWS = """\
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata:
      name: {{ lws_name | default("vllm") }}
    spec:
      leaderWorkerTemplate:
        leaderTemplate:
          spec:
            containers:
              - name: vllm-leader
                image: vllm/vllm-openai:v0.33.0
                command: ["bash", "-c", "echo start"]
    {% if shared_volume_path %}
                volumeMounts:
                  - name: shared
                    mountPath: "{{ shared_volume_path }}"
    {% endif %}
    """


def _pd005(doc):
    return [(f["severity"], f["message"]) for f in doc["findings"] if f["code"] == "PD005"]


def test_a_variable_only_tested_is_a_warning(scratch):
    scratch.write("lws.yaml.jinja2", LWS)
    code, doc = scratch.lint(".")
    [(severity, message)] = _pd005(doc)
    assert severity == "warning" and message.startswith("undefined variable 'shared_volume_path' (only tested")
    assert code == 0


@pytest.mark.parametrize("text, why", [
    # (written into the container's arguments: a value written only where no launch is built from it, such as
    # a mountPath, is a warning in a file with no launch text, test_jinja_undefined_off_the_launch.py)
    ("      args: [\"{{ shared_volume_path }}\"]\n", "written out"),
    ("{% if shared_volume_pat %}x{% endif %}{% set shared_volume_path = 1 %}\n", "a typo"),
])
def test_a_value_written_out_or_a_typo_stays_an_error(scratch, text, why):
    scratch.write("pod.yaml.j2", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - command: [x]\n" + text)
    code, doc = scratch.lint(".")
    assert [s for s, _ in _pd005(doc)] == ["error"] and code == 1, why


@pytest.mark.parametrize("text", [
    'python -m sglang.launch_server --model-path m --disaggregation-mode {{ "prefill" if is_first else "decode" }}\n',
    "python -m sglang.launch_server --model-path m \\\n{% if is_first %}\n  --enable-linear-replayssm-spec \\\n"
    "{% endif %}\n  --port 30001\n",
])
def test_a_tested_variable_that_picks_a_role_or_flags_stays_an_error(scratch, text):
    """Field test rw24/h: `{{ "prefill" if is_first else "decode" }}` rendered the decode only, and the undefined
    switch had become a warning (exit 0): what it guards is launch text, so it stays PD005's error."""
    scratch.write("launch.sh.j2", text)
    code, doc = scratch.lint(".")
    assert [s for s, _ in _pd005(doc)] == ["error"] and code == 1


@pytest.mark.parametrize("guarded", [
    "{%- if true %}{% endif %}\n  --enable-linear-replayssm-spec \\\n",  # a nested block ends before the flag
    "  {{ spec }} \\\n",  # a value written into the continued command: arguments
])
def test_what_a_test_guards_is_read_past_nested_blocks(scratch, guarded):
    """Hostile-input test rw25/h item 9: the scan stopped at the first `{% endif %}` of any nesting (and saw no
    flag in `{{ spec }} \\`), so the test of launch text became a warning (exit 0)."""
    text = ("{% set spec = '-'*2 ~ 'enable-linear-replayssm-spec' %}\n"
            "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 \\\n"
            "{%- if use_spec %}\n" + guarded + "{%- endif %}\n  --host 0.0.0.0\n")
    scratch.write("launch.sh.j2", text)
    code, doc = scratch.lint(".")
    assert [s for s, _ in _pd005(doc)] == ["error"] and code == 1


def test_a_guard_whose_nested_block_holds_no_launch_text_stays_a_warning(scratch):
    scratch.write("pod.yaml.j2", LWS.replace('{% if shared_volume_path %}',
                                             '{% if shared_volume_path %}\n    {% if true %}{% endif %}'))
    code, doc = scratch.lint(".")
    assert [s for s, _ in _pd005(doc)] == ["warning"] and code == 0


DEPLOYMENT = """\
    {% set spec = '-'*2 ~ 'enable-linear-replayssm-spec' %}
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: prefill}
    spec:
      template:
        spec:
          containers:
            - name: sglang
              command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
              KEY:
                - --model-path
                - m
    {%- if use_spec %}
                BODY
    {%- endif %}
    """


@pytest.mark.parametrize("key, body, severity", [
    ("args", "- {{ spec }}", "error"),  # rw26/h item 14: a flag a variable writes into a container's args
    ("args", "- {% include 'spec.part' %}", "error"),
    ("env", "- {{ spec }}", "warning"),  # (another list: not launch text)
])
def test_a_guarded_list_item_of_a_containers_args_is_launch_text(scratch, key, body, severity):
    import textwrap
    scratch.write("spec.part", "--enable-linear-replayssm-spec")
    scratch.write("prefill.yaml.j2", textwrap.dedent(DEPLOYMENT).replace("KEY", key).replace("BODY", body))
    _, doc = scratch.lint(".")
    assert [s for s, _ in _pd005(doc)] == [severity]
