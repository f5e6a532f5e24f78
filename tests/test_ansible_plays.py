"""A Jinja template that an Ansible playbook kept in the repository renders (an ``ansible.builtin.template`` /
``template`` task with a literal ``src``, or a play that applies the role the template belongs to) renders
once per play, with the variables Ansible gives it there: the inventory's ``group_vars`` / ``host_vars``, the
play's ``vars:`` and ``vars_files:``, the role's defaults and vars, the task's ``vars:``, literal ``set_fact``
/ ``include_vars`` tasks and role parameters.  A variable none of them sets is given at deploy time (extra
vars, an inventory outside the repository): a value pdlint cannot see, not a PD005 error.

Field test rw18/o (repro 7, a systemd unit ``.j2`` rendered by two plays with ``vars: {sglang_role,
sglang_port, model_path}`` and ``group_vars/all.yml``): PD005 errors "undefined variable 'model_path'" /
"'sglang_port'" and exit 1 on a template Ansible renders fine."""

UNIT = """\
    [Unit]
    Description=SGLang {{ sglang_role }}
    [Service]
    ExecStart=/opt/venv/bin/python -m sglang.launch_server --model-path {{ model_path }} --disaggregation-mode {{ sglang_role }} --port {{ sglang_port }} --disaggregation-transfer-backend {{ backend | default('mooncake') }}
    [Install]
    WantedBy=multi-user.target
    """

PLAYBOOK = """\
    - hosts: prefill
      vars: {sglang_role: prefill, sglang_port: 30000, model_path: Qwen/Qwen3-8B}
      tasks:
        - ansible.builtin.template: {src: templates/sglang.service.j2, dest: /etc/systemd/system/sglang.service}
    - hosts: decode
      vars: {sglang_role: decode, sglang_port: 30001, model_path: Qwen/Qwen3-8B}
      tasks:
        - ansible.builtin.template: {src: templates/sglang.service.j2, dest: /etc/systemd/system/sglang.service}
    """


def _codes(report):
    return sorted((f["path"], f["code"]) for f in report["findings"])


def _repro(scratch_git, playbook=PLAYBOOK):
    scratch_git.write("templates/sglang.service.j2", UNIT)
    scratch_git.write("group_vars/all.yml", "model_path: Qwen/Qwen3-8B\n")
    scratch_git.write("playbook.yml", playbook)


def test_the_plays_variables_render_the_template_once_per_play(scratch_git):
    _repro(scratch_git)
    code, report = scratch_git.lint(".")
    assert (code, _codes(report)) == (0, [])
    launches = sorted((l["role"], l["argv"][l["argv"].index("--port") + 1]) for l in report["launches"])
    assert launches == [("decode", "30001"), ("prefill", "30000")]  # one launch per play, its role its own


def test_a_plays_value_is_checked_and_reported_where_the_play_writes_it(scratch_git):
    _repro(scratch_git, PLAYBOOK.replace("sglang_port: 30000,", "sglang_port: 30000, backend: fake,"))
    code, report = scratch_git.lint(".")
    # (and the two plays' backends differ: SGL805 for the pair)
    assert code == 1 and {c for _, c in _codes(report)} == {"SGL104", "SGL805"}
    assert [(f["path"], f["line"]) for f in report["findings"] if f["code"] == "SGL104"] == [("playbook.yml", 2)]


def test_a_template_no_play_renders_keeps_its_undefined_variables(scratch_git):
    # (a template no task of a playbook in the repository names: the variables are pdlint's to be given)
    _repro(scratch_git, PLAYBOOK.replace("templates/sglang.service.j2", "templates/other.service.j2"))
    code, report = scratch_git.lint(".")
    assert code == 1 and {c for _, c in _codes(report)} == {"PD005"}
    assert {f["message"].split("'")[1] for f in report["findings"]} == {"model_path", "sglang_port"}


def test_a_variable_no_play_sets_is_a_value_pdlint_cannot_see(scratch_git):
    scratch_git.write("templates/sglang.service.j2", UNIT.replace("{{ sglang_port }}",
                                                                  "{{ sglang_port }} {{ sglang_extra_args }}"))
    scratch_git.write("playbook.yml", PLAYBOOK)
    code, report = scratch_git.lint(".")
    # model_path (no group_vars now) and sglang_extra_args: set at deploy time (extra vars); the launch is checked
    # with them opaque, and the one that stands where flags could be is said unchecked (PD023), not PD005
    assert code == 0 and {c for _, c in _codes(report)} == {"PD023"}
    assert all("sglang_extra_args" in f["message"] for f in report["findings"])
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


def test_inventory_group_vars_vars_files_and_the_task_form_key_value(scratch_git):
    scratch_git.write("deploy/templates/sglang.service.j2", UNIT)
    scratch_git.write("deploy/group_vars/all.yml", "model_path: Qwen/Qwen3-8B\nbackend: fake\n")
    scratch_git.write("deploy/group_vars/prefill.yml", "sglang_role: prefill\nsglang_port: 30000\n")
    scratch_git.write("deploy/vars/decode.yml", "sglang_role: decode\nsglang_port: 30001\n")
    scratch_git.write("deploy/site.yml", """\
        - hosts: prefill
          tasks:
            - block:
                - name: unit
                  template: src=sglang.service.j2 dest=/etc/systemd/system/sglang.service
        - hosts: decode
          vars_files: [vars/decode.yml]
          tasks:
            - ansible.builtin.set_fact: {backend: mooncake}
            - ansible.builtin.template:
                src: sglang.service.j2
                dest: /etc/systemd/system/sglang.service
        """)
    code, report = scratch_git.lint(".")
    # group_vars/all's `backend: fake` reaches the prefill play (SGL104 at its line); the decode play's set_fact
    # overrides it (the pair's backends differ: SGL805)
    assert code == 1 and {c for _, c in _codes(report)} == {"SGL104", "SGL805"}
    assert [(f["path"], f["line"]) for f in report["findings"] if f["code"] == "SGL104"] == \
        [("deploy/group_vars/all.yml", 2)]
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    # the play's group's group_vars win over group_vars/all
    scratch_git.write("deploy/group_vars/prefill.yml", "sglang_role: prefill\nsglang_port: 30000\nbackend: mooncake\n")
    code, report = scratch_git.lint(".")
    assert (code, _codes(report)) == (0, [])


ROLE_TEMPLATE = """\
    #!/bin/bash
    exec python3 -m sglang.launch_server --model-path {{ model_path }} --port {{ sglang_port }} \\
      --disaggregation-mode {{ sglang_role }} --disaggregation-transfer-backend {{ backend }}
    """


def test_a_role_template_renders_once_per_play_that_applies_the_role(scratch_git):
    scratch_git.write("roles/sglang/templates/run.sh.j2", ROLE_TEMPLATE)
    scratch_git.write("roles/sglang/tasks/main.yml", "- template: {src: run.sh.j2, dest: /opt/run.sh}\n")
    scratch_git.write("roles/sglang/defaults/main.yml", "backend: mooncake\nmodel_path: /models/m\n")
    scratch_git.write("site.yml", """\
        - hosts: prefill
          roles:
            - {role: sglang, sglang_role: prefill, sglang_port: 30000}
        - hosts: decode
          vars: {sglang_port: 30001}
          tasks:
            - ansible.builtin.include_role:
                name: sglang
              vars: {sglang_role: decode}
        """)
    code, report = scratch_git.lint(".")
    assert (code, _codes(report)) == (0, [])
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    # a role parameter wins over the role's defaults (Ansible's precedence), and is reported at its line
    scratch_git.write("site.yml", """\
        - hosts: prefill
          roles:
            - {role: sglang, sglang_role: prefill, sglang_port: 30000, backend: fake}
        """)
    code, report = scratch_git.lint(".")
    assert code == 1 and _codes(report) == [("site.yml", "SGL104")]


def test_hostile_playbooks_are_bounded_and_never_read_outside_the_repository(scratch_git, tmp_path):
    outside = tmp_path.parent / "outside-vars.yml"
    outside.write_text("backend: fake\n")
    scratch_git.write("templates/sglang.service.j2", UNIT)
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi"))
    scratch_git.write("group_vars/all.yml", laughs)
    deep = "[" * 5000 + "]" * 5000
    scratch_git.write("deep.yml",
                      f"- hosts: x\n  vars: {{v: {deep}}}\n  tasks: [{{template: {{src: sglang.service.j2}}}}]\n")
    scratch_git.write("playbook.yml", f"""\
        - hosts: prefill
          vars: {{sglang_role: prefill, sglang_port: 30000, model_path: m}}
          tasks:
            - include_vars: ../{outside.name}
            - include_vars: /etc/passwd
            - template: {{src: "{{{{ tpl }}}}", dest: /x}}
            - template: {{src: templates/sglang.service.j2, dest: /x}}
        """)
    code, report = scratch_git.lint(".")
    assert "SGL104" not in [c for _, c in _codes(report)]  # (the file outside the repository is never read)
    assert [l["role"] for l in report["launches"]] == ["prefill"]


def test_a_galaxy_role_that_is_the_repository(scratch_git):
    # field test rw18/p (CyVerse-Ansible/ansible-vllm): a role at the repository root (`ansible-galaxy init`
    # layout) was no role: `| bool` an unknown filter (PD006) or an undefined variable (PD005), and its
    # `---`-only vars/main.yml "not a mapping" (PD010), depending on the working directory
    scratch_git.write("defaults/main.yml", "---\nPORT: 8000\nLOCAL_ONLY: false\n")
    scratch_git.write("vars/main.yml", "---\n# vars file for the role\n")
    scratch_git.write("tasks/main.yml", "- ansible.builtin.template: {src: launch.sh.j2, dest: /opt/launch.sh}\n")
    scratch_git.write("templates/launch.sh.j2", """\
        #!/bin/bash
        python3 -m vllm.entrypoints.openai.api_server --model {{ VLLM_MODEL }} \\
        {% if LOCAL_ONLY | bool %}    --host 127.0.0.1 \\
        {% endif %}    --port {{ PORT }}
        """)
    scratch_git.write("tests/test.yml", f"- hosts: localhost\n  roles:\n    - {scratch_git.root.name}\n")
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    assert len(report["launches"]) == 1
    scratch_git.write("defaults/main.yml", "---\nPORT: http\nLOCAL_ONLY: false\n")
    code, report = scratch_git.lint(".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [("defaults/main.yml", "VLLM037")]
