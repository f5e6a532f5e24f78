"""Ansible tasks that start a server: a playbook's (or a role's task list's) ``command:`` / ``shell:`` / ``raw:``
in any spelling (``ansible.builtin.shell``), a module's ``cmd:`` and ``argv:``, with the play's ``vars:`` in
their ``{{ }}`` as Ansible renders them before the module runs (field test rw20/f: ``--model-path {{ model }}``
was split into three words, two false SGL011 errors; ``shell:`` and FQCN tasks were PD020)."""

import pytest

PLAY = """\
    - hosts: decode
      vars:
        model: Qwen/Qwen3-8B
      tasks:
        - name: start decode
          TASK
"""


def _run(scratch_git, task, name="pd.yml"):
    scratch_git.write(name, PLAY.replace("TASK", task))
    code, report = scratch_git.lint(name)
    return code, report


def _argv(report):
    (launch,) = report["launches"]
    return launch["argv"]


def test_a_play_variable_is_rendered_into_the_command(scratch_git):
    code, report = _run(scratch_git, "command: python3 -m sglang.launch_server --model-path {{ model }} "
                                     "--disaggregation-mode decode --port 30002")
    assert code == 0 and [f["code"] for f in report["findings"]] == []
    assert _argv(report)[:2] == ["--model-path", "Qwen/Qwen3-8B"]


def test_a_variable_the_play_does_not_set_is_one_opaque_word(scratch_git):
    code, report = _run(scratch_git, "command: python3 -m sglang.launch_server --model-path {{ model_path }} "
                                     "--disaggregation-mode decode --port 30002")
    assert code == 0 and [f["code"] for f in report["findings"]] == []
    assert len(_argv(report)) == 6  # --model-path <one word> --disaggregation-mode decode --port 30002


@pytest.mark.parametrize("task", [
    'shell: "nohup python3 -m sglang.launch_server --model-path m --disaggregation-mode decod --port 1 &"',
    'ansible.builtin.shell: "python3 -m sglang.launch_server --model-path m --disaggregation-mode decod"',
    "ansible.builtin.command:\n            cmd: python3 -m sglang.launch_server --model-path m --disaggregation-mode decod",
    "ansible.builtin.command:\n            argv: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, "
    "decod]",
    'ansible.legacy.raw: "python3 -m sglang.launch_server --model-path m --disaggregation-mode decod"',
])
def test_every_module_spelling_is_read(scratch_git, task):
    code, report = _run(scratch_git, task)
    assert code == 1 and [f["code"] for f in report["findings"]] == ["SGL004"], report["findings"]


def test_a_role_task_list_is_read(scratch_git):
    scratch_git.write("roles/sglang/tasks/main.yml", """\
        - name: start the decode server
          ansible.builtin.shell: python3 -m sglang.launch_server --model-path m --disaggregation-mode decod
          become: true
    """)
    code, report = scratch_git.lint("roles/sglang/tasks/main.yml")
    assert code == 1 and [f["code"] for f in report["findings"]] == ["SGL004"]


def test_a_list_that_is_no_playbook_keeps_its_braces(scratch_git):
    # a harness's own list of commands (no play, no task keyword): `{{ }}` is not Ansible's there
    scratch_git.write("cases.yml", """\
        - id: one
          command: python3 -m sglang.launch_server --model-path {{model}} --disaggregation-mode decode
    """)
    code, report = scratch_git.lint("cases.yml")
    assert "{{model}}" in _argv(report)


# -- variables from the repository's other files (stop 38's Left: play `vars:` only) -------------------------

ROLE_TASK = """\
    - name: start the server
      ansible.builtin.command: python3 -m sglang.launch_server --model-path m --disaggregation-mode {{ mode }}
"""


def _codes(report):
    return [f["code"] for f in report["findings"]]


def test_a_role_task_takes_the_role_defaults(scratch_git):
    scratch_git.write("roles/sglang/tasks/main.yml", ROLE_TASK)
    scratch_git.write("roles/sglang/defaults/main.yml", "mode: decod\n")
    code, report = scratch_git.lint("roles/sglang/tasks/main.yml")
    assert code == 1 and _codes(report) == ["SGL004"]
    assert _argv(report)[-1] == "decod"


def test_the_role_vars_override_its_defaults(scratch_git):
    scratch_git.write("roles/sglang/tasks/main.yml", ROLE_TASK)
    scratch_git.write("roles/sglang/defaults/main.yml", "mode: decod\n")
    scratch_git.write("roles/sglang/vars/main.yml", "mode: decode\n")
    code, report = scratch_git.lint("roles/sglang/tasks/main.yml")
    assert code == 0 and _codes(report) == [] and _argv(report)[-1] == "decode"


def test_a_play_applying_the_role_gives_its_parameters(scratch_git):
    scratch_git.write("roles/sglang/tasks/main.yml", ROLE_TASK)
    scratch_git.write("roles/sglang/defaults/main.yml", "mode: decode\n")
    scratch_git.write("site.yml", """\
        - hosts: gpu
          roles:
            - role: sglang
              mode: prefil
    """)
    code, report = scratch_git.lint("roles/sglang/tasks/main.yml")
    assert code == 1 and _codes(report) == ["SGL004"] and _argv(report)[-1] == "prefil"


def test_plays_that_disagree_leave_the_value_unseen(scratch_git):
    scratch_git.write("roles/sglang/tasks/main.yml", ROLE_TASK)
    scratch_git.write("site.yml", """\
        - hosts: a
          roles: [{role: sglang, mode: prefill}]
        - hosts: b
          roles: [{role: sglang, mode: decod}]
    """)
    code, report = scratch_git.lint("roles/sglang/tasks/main.yml")
    assert code == 0 and _codes(report) == ["PD021"]  # (the role is a value pdlint cannot see: said so)
    assert _argv(report)[-1].startswith("{{")


def test_a_play_takes_its_vars_files_over_its_vars_and_the_inventory_below(scratch_git):
    scratch_git.write("group_vars/all.yml", "model: from-inventory\nport: '30002'\n")
    scratch_git.write("vars/serve.yml", "mode: decod\n")
    scratch_git.write("pd.yml", """\
        - hosts: decode
          vars:
            mode: decode
          vars_files: [vars/serve.yml]
          tasks:
            - command: python3 -m sglang.launch_server --model-path {{ model }} --port {{ port }} --disaggregation-mode {{ mode }}
    """)
    code, report = scratch_git.lint("pd.yml")
    assert code == 1 and _codes(report) == ["SGL004"]
    assert _argv(report) == ["--model-path", "from-inventory", "--port", "30002", "--disaggregation-mode", "decod"]


def test_a_task_vars_override_the_play(scratch_git):
    scratch_git.write("pd.yml", """\
        - hosts: decode
          vars:
            mode: decod
          tasks:
            - command: python3 -m sglang.launch_server --model-path m --disaggregation-mode {{ mode }}
              vars:
                mode: decode
    """)
    code, report = scratch_git.lint("pd.yml")
    assert code == 0 and _codes(report) == []


def test_a_vars_file_outside_the_repository_is_not_read(scratch_git, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "serve.yml"
    outside.write_text("mode: decod\n")
    scratch_git.write("pd.yml", f"""\
        - hosts: decode
          vars_files: [{outside}, ../{outside.parent.name}/serve.yml]
          tasks:
            - command: python3 -m sglang.launch_server --model-path m --disaggregation-mode {{{{ mode }}}}
    """)
    code, report = scratch_git.lint("pd.yml")
    assert code == 0 and _codes(report) == ["PD021"] and _argv(report)[-1].startswith("{{")


def test_a_play_after_many_imports_is_read(scratch_git):
    # field test rw21/h: only the first 50 items were looked at; a play after 50 `import_playbook` lines was PD020
    imports = "".join(f"- import_playbook: p{i}.yml\n" for i in range(60))
    scratch_git.write("site.yml", imports + "- hosts: decode\n  tasks:\n    - name: start\n      shell: python3 -m "
                                            "sglang.launch_server --model-path m --disaggregation-mode decod\n")
    code, report = scratch_git.lint("site.yml")
    assert code == 1 and _codes(report) == ["SGL004"]


# -- Ansible's Jinja in a task's command (field test rw21/h) ----------------------------------------------------

def test_a_default_filter_and_a_literal_are_rendered(scratch_git):
    code, report = _run(scratch_git, "shell: \"python3 -m sglang.launch_server --model-path {{ model | default('x') }} "
                                     "{{ extra | default('--bogus-default') }} {{ '--disaggregation-mode' }} decode\"")
    assert _argv(report) == ["--model-path", "Qwen/Qwen3-8B", "--bogus-default", "--disaggregation-mode", "decode"]
    assert code == 1 and _codes(report) == ["SGL001"]  # the default's flag, at the default's text


def test_default_omit_leaves_nothing(scratch_git):
    code, report = _run(scratch_git, "shell: \"python3 -m sglang.launch_server --model-path m {{ extra | "
                                     "default(omit) }} --disaggregation-mode decode\"")
    assert code == 0 and _codes(report) == [] and _argv(report) == ["--model-path", "m", "--disaggregation-mode",
                                                                       "decode"]


def test_a_statement_block_is_one_value_pdlint_cannot_see(scratch_git):
    code, report = _run(scratch_git, "shell: \"python3 -m sglang.launch_server --model-path m --disaggregation-mode "
                                     "decode {% if nixl %}--disaggregation-transfer-backend nixl{% endif %}\"")
    assert code == 0 and _codes(report) == ["PD023"]  # not seven SGL011 for `{%`, `if`, `nixl` ...
    assert "{%if_nixl%}" in report["findings"][0]["message"]


def test_an_unclosed_statement_block_stays_opaque_to_the_end(scratch_git):
    code, report = _run(scratch_git, "shell: \"python3 -m sglang.launch_server --model-path m --disaggregation-mode "
                                     "decode {% for f in flags %}{{ f }} --bogus\"")
    assert code == 0 and "SGL001" not in _codes(report) and "SGL011" not in _codes(report)
