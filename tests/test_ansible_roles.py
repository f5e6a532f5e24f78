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
