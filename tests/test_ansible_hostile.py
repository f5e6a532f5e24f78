"""Ansible inputs a hostile-input tester built (field test rw22/h, items 7, 8, 9 and 15; no public repository:
synthetic repositories shaped as its reproductions): a role template rendered by more plays than pdlint renders,
the play that applies the role hidden behind many other playbooks, group variables kept in inventory *files*,
and a shell task whose `{% if %}` / inline `if` is decided by the play's variables.  Each was a silent pass."""

LAUNCH = """\
    #!/bin/bash
    python -m sglang.launch_server --model-path m --disaggregation-mode {{ sgl_role }} {% if spec %}--enable-linear-replayssm-spec{% endif %} --port {{ port }}
    """
TASKS = "- name: write launch\n  template:\n    src: launch.sh.j2\n    dest: /opt/launch.sh\n"
BAD = "- hosts: prefill\n  roles:\n    - role: sgl\n      vars: {sgl_role: prefill, spec: true}\n"


def _role(repo, defaults="spec: false\nport: 30000\n"):
    repo.write("roles/sgl/templates/launch.sh.j2", LAUNCH)
    repo.write("roles/sgl/tasks/main.yml", TASKS)
    repo.write("roles/sgl/defaults/main.yml", defaults)


def _decoys(n, port=True):
    return "".join(f"- hosts: h{i}\n  roles:\n    - role: sgl\n      vars: {{sgl_role: decode, spec: false"
                   f"{f', port: 3000{i}' if port else ''}}}\n" for i in range(1, n + 1))


def _found(report, code):
    return [(f["path"], f["line"]) for f in report["findings"] if f["code"] == code]


# -- item 7: more plays than pdlint renders a template for ---------------------------------------------------

def test_plays_past_the_render_cap_are_reported_at_the_first_dropped_play(scratch_git):
    _role(scratch_git)
    scratch_git.write("site.yml", _decoys(8) + BAD)
    code, report = scratch_git.lint(".")
    pd020 = [f for f in report["findings"] if f["code"] == "PD020"]
    assert [(f["path"], f["line"]) for f in pd020] == [("site.yml", 33)]  # the ninth play
    assert "at most 8 plays" in pd020[0]["message"] and "not checked" in pd020[0]["message"]


def test_plays_giving_the_same_variables_take_one_render(scratch_git):
    # nine plays, but the eight decoys give the template the same variables: two renders, the bad one checked
    _role(scratch_git)
    scratch_git.write("site.yml", _decoys(8, port=False) + BAD)
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/templates/launch.sh.j2", 2)]
    assert _found(report, "PD020") == []


def test_plays_within_the_cap_say_nothing_of_a_cap(scratch_git):
    _role(scratch_git)
    scratch_git.write("site.yml", _decoys(7) + BAD)
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") and _found(report, "PD020") == []


# -- item 8: the play that applies the role behind many other YAML files -----------------------------------

def test_playbooks_are_picked_by_what_they_name_not_by_name_order(scratch_git):
    _role(scratch_git)
    scratch_git.write("site.yml", BAD)
    for i in range(1, 80):  # (sorting before site.yml, none naming the role)
        scratch_git.write(f"a{i:02d}.yml", "- hosts: x\n  tasks: []\n")
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/templates/launch.sh.j2", 2)]
    assert _found(report, "PD020") == []


def test_playbooks_naming_the_role_past_the_parse_cap_are_reported(scratch_git):
    _role(scratch_git)
    scratch_git.write("site.yml", BAD)
    for i in range(1, 70):  # each names the role (in a comment) and has a play: parsed, up to the cap
        scratch_git.write(f"a{i:02d}.yml", "# not sgl\n- hosts: x\n  tasks: []\n")
    code, report = scratch_git.lint(".")
    pd020 = [f for f in report["findings"] if f["code"] == "PD020"]
    assert [(f["path"], f["line"]) for f in pd020] == [("roles/sgl/templates/launch.sh.j2", 1)]
    assert "6 playbooks naming the role past the first 64 were not read" in pd020[0]["message"]


# -- item 9: group variables in inventory files ------------------------------------------------------------

IF_SPEC = """\
    #!/bin/bash
    python -m sglang.launch_server --model-path m --disaggregation-mode prefill {% if spec %}--enable-linear-replayssm-spec{% endif %} --port 1
    """


def _inventory_repo(repo, template=IF_SPEC):
    repo.write("roles/sgl/templates/launch.sh.j2", template)
    repo.write("roles/sgl/tasks/main.yml", "- name: w\n  template:\n    src: launch.sh.j2\n    dest: /opt/l.sh\n")
    repo.write("roles/sgl/defaults/main.yml", "spec: false\n")
    repo.write("site.yml", "- hosts: prefill\n  roles: [sgl]\n")


def test_an_ini_inventory_files_group_vars_reach_the_template(scratch_git):
    _inventory_repo(scratch_git)
    scratch_git.write("inventory.ini", "[prefill]\nnode1\n\n[prefill:vars]\nspec=true\n")
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/templates/launch.sh.j2", 2)]


def test_a_yaml_inventorys_child_group_vars_reach_the_template(scratch_git):
    _inventory_repo(scratch_git)
    scratch_git.write("hosts.yml", "all:\n  children:\n    pd:\n      children:\n        prefill:\n"
                                   "          vars:\n            spec: true\n          hosts:\n            node1:\n")
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/templates/launch.sh.j2", 2)]


def test_an_inventory_ansible_cfg_names_is_read(scratch_git):
    _inventory_repo(scratch_git)
    scratch_git.write("ansible.cfg", "[defaults]\ninventory = envs/prod\n")
    scratch_git.write("envs/prod", "[pd:children]\nprefill\n\n[pd:vars]\nspec=True\n")
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/templates/launch.sh.j2", 2)]


def test_inventory_files_are_below_group_vars_and_other_groups_stay_out(scratch_git):
    _inventory_repo(scratch_git)
    # (group_vars/prefill.yml wins over the inventory file's value; the decode group's is not the play's)
    scratch_git.write("inventory.ini", "[prefill:vars]\nspec=true\n[decode:vars]\nspec=true\n")
    scratch_git.write("group_vars/prefill.yml", "spec: false\n")
    code, report = scratch_git.lint(".")
    assert (code, _found(report, "SGL101")) == (0, [])
    (scratch_git.root / "group_vars/prefill.yml").unlink()
    scratch_git.write("inventory.ini", "[decode:vars]\nspec=true\n")
    code, report = scratch_git.lint(".")
    assert (code, _found(report, "SGL101")) == (0, [])


def test_an_ini_vars_value_is_a_string_as_ansible_reads_it(scratch_git):
    # `spec=false` in a `:vars` section is the string 'false' (true in `{% if %}`); `| bool` makes it false
    _inventory_repo(scratch_git, IF_SPEC.replace("if spec", "if spec | bool"))
    scratch_git.write("inventory", "[prefill:vars]\nspec=false\n")
    code, report = scratch_git.lint(".")
    assert (code, _found(report, "SGL101")) == (0, [])
    _inventory_repo(scratch_git)
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101")


def test_inventory_files_outside_the_repository_are_never_read(scratch_git, tmp_path_factory):
    import os
    outside = tmp_path_factory.mktemp("outside") / "inv.ini"
    outside.write_text("[prefill:vars]\nspec=true\n")
    _inventory_repo(scratch_git)
    scratch_git.write("ansible.cfg", f"[defaults]\ninventory = {outside},../{outside.parent.name}/inv.ini\n")
    os.symlink(outside, scratch_git.root / "inventory.ini")
    scratch_git.write("hosts", "[prefill:vars\n" + "x" * 5000 + "\n[:vars]\n=\n[a:children]\na\n")  # (hostile)
    code, report = scratch_git.lint(".")
    assert _found(report, "SGL101") == []
    assert str(outside) not in str(report)


# -- item 15: a shell task's `{% if %}` / inline `if` with the play's variables ----------------------------

def _task(repo, expr, spec="true", extra=""):
    repo.write("play.yml", f"""\
        - hosts: prefill
          vars:
            spec: {spec}
          tasks:
            - name: launch
              shell: "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp 2 {expr}"{extra}
        """)


IF_BLOCK = "{% if spec %}--enable-linear-replayssm-spec{% endif %}"
IF_EXPR = "{{ '--enable-linear-replayssm-spec' if spec else '' }}"


def test_a_task_strings_if_block_renders_with_the_plays_variables(scratch_git):
    _task(scratch_git, IF_BLOCK)
    code, report = scratch_git.lint(".")
    sgl = [f for f in report["findings"] if f["code"] == "SGL101"]
    assert code == 1 and [(f["path"], f["line"], f["column"]) for f in sgl] == [("play.yml", 6, 111)]
    assert _found(report, "PD023") == []


def test_a_task_strings_inline_if_renders_with_the_plays_variables(scratch_git):
    _task(scratch_git, IF_EXPR)
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("play.yml", 6)] and _found(report, "PD023") == []


def test_a_task_string_rendered_false_holds_no_flag(scratch_git):
    for expr in (IF_BLOCK, IF_EXPR):
        _task(scratch_git, expr, spec="false")
        code, report = scratch_git.lint(".")
        assert (code, [f["code"] for f in report["findings"]]) == (0, [])
        assert [l["argv"][-1] for l in report["launches"]] == ["2"]


def test_a_task_var_a_block_var_and_a_role_default_decide_too(scratch_git):
    # the task's own vars win over the play's
    _task(scratch_git, IF_BLOCK, spec="false", extra="\n              vars: {spec: true}")
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("play.yml", 6)]
    # a role's task file: the role's defaults
    scratch_git.root.joinpath("play.yml").unlink()
    scratch_git.write("roles/sgl/defaults/main.yml", "spec: yes\n")
    scratch_git.write("roles/sgl/tasks/main.yml", f"""\
        - name: launch prefill
          shell: "python -m sglang.launch_server --model-path m --disaggregation-mode prefill {IF_BLOCK}"
        """)
    code, report = scratch_git.lint(".")
    assert code == 1 and _found(report, "SGL101") == [("roles/sgl/tasks/main.yml", 2)]


def test_a_name_no_play_gives_stays_opaque(scratch_git):
    # (`other` is given at deploy time: the block stays one value pdlint cannot see, PD023)
    _task(scratch_git, "{% if other %}--enable-linear-replayssm-spec{% endif %}")
    code, report = scratch_git.lint(".")
    assert (code, _found(report, "SGL101"), _found(report, "PD023")) == (0, [], [("play.yml", 6)])
    _task(scratch_git, "{% include 'x' %}{{ lookup('env', 'X') }}")
    code, report = scratch_git.lint(".")
    assert _found(report, "SGL101") == [] and "Traceback" not in str(report)


def test_a_hostile_task_string_is_bounded(scratch_git):
    _task(scratch_git, "{% for i in range(10**9) %}{{ spec * 1000000 }}{% endfor %}")
    code, report = scratch_git.lint(".")
    assert _found(report, "SGL101") == []


# -- item 4: an inventory directory that links out of the repository -----------------------------------------

def test_an_inventory_directory_linking_out_of_the_repository_is_not_walked(scratch_git, tmp_path_factory,
                                                                             monkeypatch):
    """`group_vars -> /` committed made pdlint walk the machine's directories (18,515 of them, 300 MB; field test
    rw22/h); nothing outside was read, but the walk cost the template its findings (PD008)."""
    import os
    from pdlint import extract
    outside = tmp_path_factory.mktemp("outside")
    (outside / "deep" / "er").mkdir(parents=True)
    (outside / "deep" / "er" / "all.yml").write_text("spec: true\n")
    _role(scratch_git)
    scratch_git.write("site.yml", "- hosts: prefill\n  roles:\n    - role: sgl\n      vars: {sgl_role: prefill}\n")
    os.symlink(str(outside), os.path.join(str(scratch_git.root), "group_vars"))
    scratch_git.write("host_vars/h1.yml", "port: 30000\n")  # (inside: walked as always)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # (in this process, where os.walk is watched)
    walked = []
    real_walk = os.walk
    monkeypatch.setattr(extract.os, "walk", lambda top, *a, **k: (walked.append(top), real_walk(top, *a, **k))[1])
    code, report = scratch_git.lint(".")
    assert walked and not any(os.path.realpath(t).startswith(str(outside)) for t in walked)
    assert _found(report, "SGL101") == [] and _found(report, "PD008") == []
