"""Field bug: guards whose outcome no later command can tell apart multiplied the evaluation's paths.

``[ -d X ] && export PATH=...`` five times (ai-dynamo/dynamo container/dev/50-framework-paths.sh) made 32
paths and a PD008 error on a file that launches nothing; five ``if``s that only export switches before one
``trtllm-serve`` (NVIDIA/TensorRT-LLM examples/disaggregated/slurm/benchmark/start_worker.sh) gave a PD008
error and 16 copies of the launch.  Copies that differ only in variables the script never reads again are
now joined (pdlint.formats.shell.joins); a branch that decides what a later command sees still forks.
"""

from __future__ import annotations

from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr

GUARDS = "".join(f'[ -d /opt/{c} ] && export PATH="/opt/{c}:${{PATH}}"\n' for c in "abcde")

START_WORKER = """\
#!/bin/bash
role=${1}
a=${2}; b=${3}; c=${4}; d=${5}
if [ "$a" = "true" ]; then export A=1; fi
if [ "$b" = "true" ]; then export B=1; fi
if [ "$c" = "true" ]; then export C=1; fi
if [ "$d" = "true" ]; then export D=1; fi
if [ "${role}" = "GEN" ]; then export R=gen; fi
trtllm-serve /model --host 0.0.0.0 --port 8336 --extra_llm_api_options ${6}
"""


def run(text: str, **kw):
    reports: list = []
    ctx = ShellContext(lambda p, f: None, lambda code, msg, *a: reports.append((code, msg)), **kw)
    cmds = shell_commands(TStr.from_source(SourceFile("t.sh", text)), ctx)
    return cmds, reports


def argv(cmd) -> list:
    return [w.text for w in cmd.words]


def launches(cmds, program="python") -> list:
    return [c for c in cmds if c.words[0].text == program]


# -- the evaluator ----------------------------------------------------------------------------------

def test_path_guards_are_joined_and_path_is_unknown_after_them():
    cmds, reports = run(GUARDS + "python -m sglang.launch_server --port 30000\n")
    assert reports == []
    (cmd,) = launches(cmds)
    path = cmd.env["PATH"]
    assert path.opaque and path.origin.line == 5  # unknown, made by the last guard
    assert cmd.unset_vars == []  # the launch does not read PATH


def test_exported_switches_before_one_launch_give_one_launch_per_role():
    cmds, reports = run(START_WORKER)
    assert reports == []
    got = launches(cmds, "trtllm-serve")
    assert sorted(str(c.role_hint) for c in got) == ["None", "decode"]
    for cmd in got:
        assert all(cmd.env[n].opaque for n in "ABCD")  # set on one branch only: not known
    decode = next(c for c in got if c.role_hint == "decode")
    other = next(c for c in got if c.role_hint is None)
    assert decode.env["R"].text == "gen" and not decode.env["R"].opaque
    assert "R" not in other.env


def test_a_value_both_branches_agree_on_is_kept():
    cmds, reports = run('A=1\nif [ "$x" = y ]; then B=2; fi\npython $A\n')
    (cmd,) = launches(cmds)
    assert argv(cmd) == ["python", "1"] and cmd.unset_vars == [] and reports == []


def test_role_deciding_if_still_forks():
    text = ('if [ "$ROLE" = prefill ]; then FLAGS="--disaggregation-mode prefill"; '
            'else FLAGS="--disaggregation-mode decode"; fi\n' + GUARDS + "python -m sglang.launch_server $FLAGS\n")
    cmds, reports = run(text)
    got = {(argv(c)[-1], c.role_hint) for c in launches(cmds)}
    assert got == {("prefill", "prefill"), ("decode", None)} and reports == []


def test_case_on_role_still_forks():
    text = ('case "$1" in\n  prefill) MODE=prefill ;;\n  decode) MODE=decode ;;\nesac\n' + GUARDS
            + "python -m sglang.launch_server --disaggregation-mode $MODE\n")
    cmds, reports = run(text)
    assert {(argv(c)[-1], c.role_hint) for c in launches(cmds)} >= {("prefill", "prefill"), ("decode", "decode")}
    assert reports == []


def test_a_variable_read_later_keeps_its_fork():
    text = ('if [ "$NIC" = ib ]; then BACKEND=mooncake; else BACKEND=nixl; fi\n' + GUARDS
            + "python -m sglang.launch_server --disaggregation-transfer-backend $BACKEND\n")
    cmds, _ = run(text)
    assert sorted(argv(c)[-1] for c in launches(cmds)) == ["mooncake", "nixl"]


def test_an_env_variable_a_check_reads_keeps_its_fork():
    from pdlint.extract import env_checked
    name = "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS"
    assert env_checked(name) and not env_checked("PATH")
    text = f'if [ "$mask" = on ]; then export {name}=4096; fi\npython -m sglang.launch_server\n'
    cmds, _ = run(text, env_checked=env_checked)
    assert sorted(c.env[name].text if name in c.env else "-" for c in launches(cmds)) == ["-", "4096"]
    cmds, _ = run(text)  # no check reads it: one launch, the value not known
    (cmd,) = launches(cmds)
    assert cmd.env[name].opaque


def test_indirection_reads_any_variable_so_nothing_is_joined():
    text = ('if [ "$x" = y ]; then export A=1; fi\nv=A\necho "${!v}"\npython -m sglang.launch_server\n')
    cmds, _ = run(text)
    assert sorted(c.env["A"].text if "A" in c.env else "-" for c in launches(cmds)) == ["-", "1"]


def test_the_exit_status_a_caller_tests_is_not_joined():
    text = 'f() { [ -d /x ] && export P=1; }\nif f; then python a; else python b; fi\n'
    cmds, _ = run(text)
    assert sorted(argv(c)[1] for c in launches(cmds)) == ["a", "b"]


def test_a_script_that_really_explodes_still_stops_at_the_limit():
    text = "".join(f'if [ "$A{i}" = x ]; then V{i}=1; else V{i}=2; fi\n' for i in range(6))
    cmds, reports = run(text + "python -m sglang.launch_server $V0 $V1 $V2 $V3 $V4 $V5\n")
    assert [r[0] for r in reports] == ["PD-SHELL-LIMIT"] and "more than 16 branch paths" in reports[0][1]
    assert len(launches(cmds)) == 16


# -- the command line -------------------------------------------------------------------------------

def test_framework_paths_file_is_no_error(scratch_git):
    scratch_git.write("env.sh", "#!/bin/bash\n# sets up paths; starts no server\n" + GUARDS)
    code, doc = scratch_git.lint("env.sh")
    assert code == 0 and doc["findings"] == []


def test_start_worker_is_checked_once_per_role(scratch_git):
    scratch_git.write("start_worker.sh", START_WORKER)
    code, doc = scratch_git.lint("start_worker.sh")
    assert code == 0
    assert not [f for f in doc["findings"] if f["code"] == "PD015"]
    assert sorted(str(l["role"]) for l in doc["launches"]) in (["None", "decode"], ["decode", "other"])


def test_branch_limit_without_launch_text_is_no_error(scratch_git):
    text = "".join(f'if [ "$A{i}" = x ]; then V{i}=1; else V{i}=2; fi\n' for i in range(6))
    scratch_git.write("setup.sh", text + 'echo "$V0 $V1 $V2 $V3 $V4 $V5"\n')
    code, doc = scratch_git.lint("setup.sh")
    assert code == 0 and doc["findings"] == []


def test_branch_limit_before_a_launch_is_still_reported(scratch_git):
    text = "".join(f'if [ "$A{i}" = x ]; then V{i}=1; else V{i}=2; fi\n' for i in range(6))
    scratch_git.write("launch.sh", text + "python -m sglang.launch_server --model-path $V0$V1$V2$V3$V4$V5\n")
    code, doc = scratch_git.lint("launch.sh")
    assert code == 0  # a warning: the script is valid, pdlint followed only some paths
    assert [(f["code"], f["severity"]) for f in doc["findings"] if f["code"] == "PD015"] == [("PD015", "warning")]
