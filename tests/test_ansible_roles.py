"""An Ansible role's variables (``roles/<role>/defaults/main.yml``, ``defaults/main/*.yml``, ``vars/main.yml``)
are the variables of its templates (``roles/<role>/templates/*.j2``).

Field test rw6/e (openshift-psap/topsail): pdlint read none of them, so every role template had PD005 errors
(21 on templates that launch nothing), and a role template that starts an SGLang prefill with the ``fake``
transfer backend set in the role defaults gave PD005 instead of SGL104."""

TEMPLATE = """\
    #!/bin/bash
    exec python3 -m sglang.launch_server \\
      --model-path {{ sglang_model_path }} \\
      --port {{ sglang_prefill_port }} \\
      --disaggregation-mode prefill \\
      --disaggregation-transfer-backend {{ sglang_transfer_backend }}
    """


def _codes(report):
    return sorted((f["path"], f["code"]) for f in report["findings"])


def test_role_defaults_are_the_templates_variables(scratch_git):
    scratch_git.write("roles/sglang_pd/templates/prefill.sh.j2", TEMPLATE)
    scratch_git.write("roles/sglang_pd/defaults/main.yml",
                      "sglang_model_path: /models/Qwen3-8B\nsglang_prefill_port: 30000\nsglang_transfer_backend: fake\n")
    code, report = scratch_git.lint(".")
    # the error is reported where the value is written: the role's defaults
    assert code == 1 and _codes(report) == [("roles/sglang_pd/defaults/main.yml", "SGL104")]
    assert report["findings"][0]["line"] == 3


def test_role_vars_override_defaults_and_a_split_defaults_directory_is_read(scratch_git):
    scratch_git.write("roles/r/templates/prefill.sh.j2", TEMPLATE)
    scratch_git.write("roles/r/defaults/main/model.yml", "sglang_model_path: /models/m\nsglang_prefill_port: 1\n")
    scratch_git.write("roles/r/defaults/main/pd.yml", "sglang_transfer_backend: fake\n")
    scratch_git.write("roles/r/vars/main.yml", "sglang_transfer_backend: mooncake\n")
    code, report = scratch_git.lint(".")
    assert (code, _codes(report)) == (0, [])
    # the config's vars are above a role's vars, as Ansible's extra vars are
    code, report = scratch_git.lint("--var", "sglang_transfer_backend=fake", ".")
    assert [c for _, c in _codes(report)] == ["SGL104"]


def test_a_templated_default_is_a_value_pdlint_cannot_see(scratch_git):
    scratch_git.write("roles/r/templates/prefill.sh.j2", TEMPLATE)
    scratch_git.write("roles/r/defaults/main.yml", "base: /models\nsglang_model_path: '{{ base }}/m'\n"
                      "sglang_prefill_port: 30000\nsglang_transfer_backend: \"{{ backend | default('fake') }}\"\n")
    code, report = scratch_git.lint(".")
    assert "PD005" not in [c for _, c in _codes(report)] and "SGL104" not in [c for _, c in _codes(report)]


def test_a_template_outside_a_role_reads_no_role_files(scratch_git):
    scratch_git.write("templates/prefill.sh.j2", TEMPLATE)
    scratch_git.write("roles/sglang_pd/defaults/main.yml", "sglang_transfer_backend: fake\n")
    code, report = scratch_git.lint(".")
    assert "PD005" in [c for _, c in _codes(report)] and "SGL104" not in [c for _, c in _codes(report)]


def test_a_role_outside_a_roles_directory_is_found_by_its_tasks(scratch_git):
    # topsail keeps its roles in projects/<p>/toolbox/<role>/ (a roles_path): tasks/ beside templates/
    scratch_git.write("projects/llm-d/toolbox/sglang_pd/templates/prefill.sh.j2", TEMPLATE)
    scratch_git.write("projects/llm-d/toolbox/sglang_pd/tasks/main.yml", "- name: x\n  debug: {}\n")
    scratch_git.write("projects/llm-d/toolbox/sglang_pd/defaults/main/config.yml",
                      "sglang_model_path: /m\nsglang_prefill_port: 1\nsglang_transfer_backend: fake\n")
    code, report = scratch_git.lint(".")
    assert [c for _, c in _codes(report)] == ["SGL104"]


# field test rw14/h (jedmund/homelab roles/vllm/templates/compose.yaml.j2, cut down): Ansible's own filters and
# facts, the inventory's variables (group_vars/), a default whose list items are templates
COMPOSE = """\
{{ ansible_managed | comment }}
services:
  prefill:
    image: lmsysorg/sglang:v0.5.23
    restart: {{ restart_policy }}
    volumes:
{% for v in extra_volumes %}
      - {{ v }}
{% endfor %}
    command:
{% for arg in sglang_args %}
      - {{ arg | to_json }}
{% endfor %}
"""
DEFAULTS = """\
extra_volumes:
  - "{{ config_base }}/cache:/cache"
sglang_args: [python3, -m, sglang.launch_server, --model-path, /m, --disaggregation-mode, prefill,
              --disaggregation-transfer-backend, BACKEND]
"""


def test_a_role_template_renders_with_ansible_filters_facts_and_inventory_variables(scratch_git):
    """Before: `comment` and `to_json` were no filters (PD004 stopped the render: the launch was never built),
    `restart_policy` (group_vars) and `ansible_managed` were undefined (494 PD005 errors in homelab)."""
    scratch_git.write("roles/sglang/templates/compose.yaml.j2", COMPOSE)
    scratch_git.write("roles/sglang/defaults/main.yml", DEFAULTS.replace("BACKEND", "mooncake"))
    scratch_git.write("group_vars/compute_servers/common.yml", "restart_policy: unless-stopped\n")
    code, report = scratch_git.lint(".")
    assert (code, _codes(report)) == (0, [])
    assert [l["role"] for l in report["launches"]] == ["prefill", "prefill"]  # (the defaults file read alone too)
    scratch_git.write("roles/sglang/defaults/main.yml", DEFAULTS.replace("BACKEND", "fake"))
    code, report = scratch_git.lint(".")
    assert {c for _, c in _codes(report)} == {"SGL104"}
    # a variable no inventory file, default or fact sets is still undefined
    scratch_git.write("roles/sglang/defaults/main.yml", DEFAULTS.replace("BACKEND", "mooncake"))
    scratch_git.write("group_vars/compute_servers/common.yml", "restart: always\n")
    code, report = scratch_git.lint(".")
    assert _codes(report) == [("roles/sglang/templates/compose.yaml.j2", "PD005")]
    assert "restart_policy" in report["findings"][0]["message"]


OPENCODE = """\
{
  "mcp": {
    "agents": {
      "url": "http://127.0.0.1:6767/mcp/agents",
      // TEMPORARILY DISABLED 2026-06-18
      "enabled": false
    },
    "edra": {
      "command": ["node", "{{ home | default('/h') }}/dist/index.js"],
      "enabled": true
    }
  },
  "models": {
    // Q4_K_XL runs at 64K per slot (not 80K like iq3/iq4) because
    "qwen": {"name": "qwen"}
  }
}
"""


def test_a_template_rendering_json_with_comments_is_not_a_script(scratch_git):
    # jedmund/homelab roles/agents_linux/templates/opencode.jsonc.j2 (cut down): three PD009 on a file with no launch
    scratch_git.write("templates/opencode.jsonc.j2", OPENCODE)
    code, report = scratch_git.lint(".")
    assert (code, report["findings"]) == (0, [])
    scratch_git.write("templates/opencode.jsonc.j2", OPENCODE.replace('"qwen": {"name": "qwen"}',
                      '"cmd": "python3 -m sglang.launch_server --disaggregation-mode prefill"'))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", 15)]


CROSSTOOL = """\
#!/usr/bin/env python
\"\"\"Crosstool wrapper (a Bazel template).\"\"\"
import os
GCC_HOST_COMPILER_PATH = '%{gcc_host_compiler_path}'
PREFIX_DIR = os.path.dirname(GCC_HOST_COMPILER_PATH)
print(PREFIX_DIR)
"""


def test_a_template_of_another_interpreters_script_is_not_a_shell_script(scratch_git):
    # field test rw27/a: alibaba/rtp-llm's Bazel templates of Python wrappers (crosstool_wrapper_driver_is_not_gcc.tpl,
    # `#!/opt/conda310/bin/python`) were parsed as shell: four PD009 and an exit 1 with --strict, no launch text
    scratch_git.write("bin/crosstool_wrapper.tpl", CROSSTOOL)
    scratch_git.write("bin/run.tpl", "#!/usr/bin/env -S bash -e\necho $((1 +\n")  # a shell template: still parsed
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("bin/run.tpl", "PD009")]
    scratch_git.write("bin/crosstool_wrapper.tpl", CROSSTOOL + "os.system('python3 -m sglang.launch_server "
                                                               "--disaggregation-mode prefill')\n")
    code, report = scratch_git.lint("bin/crosstool_wrapper.tpl")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD020", 7)]
