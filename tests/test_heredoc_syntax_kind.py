"""A syntax error in a script a here-document writes names that script (field test rw19/a, yeqcharlotte/router's
installer: `cat > /tmp/router_deploy.sh << EOF` wrote a script bash cannot parse; PD009 said "missing ';'
(script)" at the installer's line, as if the installer were broken: `bash -n` accepts it)."""

SCRIPT = (
    "#!/bin/bash\n"
    "cat > /tmp/d.sh << END\n"
    "python3 -m sglang.launch_server --model-path m \\\\\n"
    "  \\\\\\$(if true; then echo x; fi) (\n"
    "END\n"
    "bash /tmp/d.sh\n")


def test_the_error_is_the_written_scripts(scratch_git):
    scratch_git.write("hd.sh", SCRIPT)
    _, report = scratch_git.lint("hd.sh")
    [f] = [f for f in report["findings"] if f["code"] == "PD009"]
    assert f["line"] == 4 and "(script the here-document at line 2 writes or runs)" in f["message"]


def test_the_outer_scripts_own_error_says_script(scratch_git):
    scratch_git.write("bad.sh", "#!/bin/bash\nif true; then\n  python3 -m sglang.launch_server --model-path m\n")
    _, report = scratch_git.lint("bad.sh")
    assert [f["message"].endswith("(script)") for f in report["findings"] if f["code"] == "PD009"] == [True]
