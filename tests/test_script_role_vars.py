"""`roles.<role>.vars` for shell scripts: one run per role, as a template is rendered once per role.

Field test rw19/c: a script `--disaggregation-mode "$ROLE"` got PD021 (role unknown) whose help names
`[tool.pdlint.roles.<role>.vars]`; set as it says, nothing changed (only templates read those tables), and the
role-only flag on the shared line (SGL101) was never judged."""

SCRIPT = ('#!/bin/bash\npython3 -m sglang.launch_server --model-path /m/q --disaggregation-mode "$ROLE" '
          '--port 30000 --enable-linear-replayssm-spec\n')
ROLES = '[tool.pdlint.roles.prefill.vars]\nROLE = "prefill"\n[tool.pdlint.roles.decode.vars]\nROLE = "decode"\n'


def test_the_script_is_run_once_per_role(scratch_git):
    scratch_git.write("a.sh", SCRIPT)
    scratch_git.write("pyproject.toml", ROLES)
    code, report = scratch_git.lint("a.sh")
    assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]
    assert [(f["code"], f["role"]) for f in report["findings"]] == [("SGL101", "prefill")]
    assert code == 1


def test_without_the_tables_the_role_stays_unknown(scratch_git):
    scratch_git.write("a.sh", SCRIPT)
    _, report = scratch_git.lint("a.sh")
    assert "PD021" in [f["code"] for f in report["findings"]]


def test_a_script_that_sets_the_variable_itself_is_run_once(scratch_git):
    scratch_git.write("a.sh", SCRIPT.replace("#!/bin/bash\n", "#!/bin/bash\nROLE=decode\n"))
    scratch_git.write("pyproject.toml", ROLES)
    _, report = scratch_git.lint("a.sh")
    assert [l["role"] for l in report["launches"]] == ["decode"] and report["findings"] == []
