"""An include / import in a template Ansible renders resolves on Ansible's template search path: the role's
templates/ and directory, the playbook's templates/ and directory, the template's own templates/ and directory
(field report rw28/a P2, linux-kdevops/kdevops playbooks/roles/gen_nodes/templates/gen_drives.j2:
`{% import './templates/drives.j2' as drives %}` is the role's templates/drives.j2; it was a PD007 error,
"template not found: .../templates/templates/drives.j2").  A template no Ansible play or role renders keeps
pdlint's own rule (relative to the including template, the config directory, the repository root)."""

SITE = "---\n- hosts: all\n  roles:\n    - role: gen\n"
TASKS = "---\n- name: Generate\n  template:\n    src: gen_drives.j2\n    dest: /tmp/drives.xml\n"
MACROS = '{% macro drive(n) -%}\n<disk id="{{ n }}"/>\n{%- endmacro %}\n'
GEN = "{% import './templates/drives.j2' as drives %}\n{{ drives.drive(1) }}\n"


def _role(scratch_git, gen=GEN):
    scratch_git.write("playbooks/site.yml", SITE)
    scratch_git.write("playbooks/roles/gen/tasks/main.yml", TASKS)
    scratch_git.write("playbooks/roles/gen/templates/drives.j2", MACROS)
    scratch_git.write("playbooks/roles/gen/templates/gen_drives.j2", gen)


def test_a_role_template_imports_from_the_role_directory(scratch_git):
    _role(scratch_git)
    for args in ((".",), ("playbooks/roles/gen/templates/gen_drives.j2",)):
        code, report = scratch_git.lint(*args)
        assert report["findings"] == [] and code == 0, report["findings"]


def test_a_launch_built_from_an_imported_macro_is_checked(scratch_git):
    _role(scratch_git, "{% import './templates/flags.j2' as f %}\n"
                       "python3 -m sglang.launch_server --model-path /m {{ f.role() }} --port 30000 --bogus-flag\n")
    scratch_git.write("playbooks/roles/gen/templates/flags.j2",
                      "{% macro role() -%}--disaggregation-mode prefill{%- endmacro %}\n")
    _, report = scratch_git.lint("playbooks/roles/gen/templates/gen_drives.j2")
    assert [f["code"] for f in report["findings"]] == ["SGL001"], report["findings"]


def test_a_playbook_template_includes_from_the_playbook_directory(scratch_git):
    scratch_git.write("deploy/site.yml", "- hosts: all\n  tasks:\n"
                                         "    - template: {src: templates/run.sh.j2, dest: /opt/run.sh}\n")
    scratch_git.write("deploy/common/args.j2", "--port 30000 --bogus-flag")
    scratch_git.write("deploy/templates/run.sh.j2", "python3 -m sglang.launch_server --model-path /m "
                                                    "--disaggregation-mode prefill {% include 'common/args.j2' %}\n")
    _, report = scratch_git.lint("deploy/templates/run.sh.j2")
    assert [f["code"] for f in report["findings"]] == ["SGL001"], report["findings"]


def test_a_missing_import_of_a_role_template_is_still_pd007(scratch_git):
    _role(scratch_git, GEN.replace("drives.j2", "disks.j2"))
    code, report = scratch_git.lint("playbooks/roles/gen/templates/gen_drives.j2")
    (f,) = report["findings"]
    assert f["code"] == "PD007" and code == 1
    assert "then to playbooks/roles/gen/templates, playbooks/roles/gen, playbooks/templates, playbooks" \
        in f["message"], f["message"]


def test_a_template_ansible_does_not_render_keeps_its_rule(scratch_git):
    scratch_git.write("tpl/templates/drives.j2", MACROS)
    # (Ansible would find it in the template's own templates/ directory; a plain render does not)
    scratch_git.write("tpl/gen.sh.j2", "{% import 'drives.j2' as d %}\n"
                                       "python3 -m sglang.launch_server --model-path /m {{ d.drive(1) }}\n")
    code, report = scratch_git.lint("tpl/gen.sh.j2")
    assert [f["code"] for f in report["findings"]] == ["PD007"] and code == 1
