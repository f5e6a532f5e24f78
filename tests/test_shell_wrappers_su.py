"""`su -c CMD USER` / `su - USER -c CMD` / `runuser -u USER -c CMD`: the command string is a script the user's shell
runs (field test rw22/h: 28 other wrappers were unwrapped, `su -c` was only a PD020 "`su` is not a launcher")."""

import pytest

FLAG = "--enable-linear-replayssm-spec"


@pytest.mark.parametrize("wrap", [
    'su -c "{cmd}" svc',
    'su - svc -c "{cmd}"',
    'runuser -u svc --command "{cmd}"',
    # getopt's other spellings (field test rw23/h: each was only a PD020)
    'su svc --command="{cmd}"', 'su -c"{cmd}" svc', 'su -lc "{cmd}" svc', 'su -pc "{cmd}" svc',
    'su --session-command "{cmd}" svc', 'su --session-command="{cmd}" svc', 'runuser svc --command="{cmd}"',
    'su -s /bin/bash svc -c "{cmd}"', 'su --shell /bin/bash -lc "{cmd}" svc',
])
def test_su_command_strings_are_scripts(scratch, wrap):
    cmd = f"python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill {FLAG}"
    scratch.write("run.sh", "#!/bin/bash\n" + wrap.format(cmd=cmd) + "\n")
    code, doc = scratch.lint("run.sh")
    assert [f["code"] for f in doc["findings"]] == ["SGL101"] and code == 1


def test_su_without_a_command_starts_nothing(scratch):
    scratch.write("run.sh", "#!/bin/bash\nsu - svc\npython3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\n")
    code, doc = scratch.lint("run.sh")
    assert [l["role"] for l in doc["launches"]] == ["prefill"] and doc["findings"] == []
