"""Fixes from the field test on small personal repositories (report problems 2 and 5): ``ssh HOST "COMMAND"``
is a shell hand-off to the remote login shell (TonyLi15/sglang-benchmark, ZhaiFeiyue/amd-tools), and a command
recovered from a shell parse error ends at its line's end (devopsrustem/slurmv4 terminal transcripts)."""

import pytest

from pdlint.extract import Options
from pdlint.lint import run
from pdlint.text import TStr

# -- ssh HOST COMMAND ---------------------------------------------------------------------------------------

# ZhaiFeiyue/amd-tools spike/run_best_config.sh:97,100 (flags shortened): `docker exec -d CTR bash -c '...'`
# inside the double-quoted ssh command; ENV_COMMON is single-quoted locally, expanded inside the double quotes
SPIKE = """\
#!/bin/bash
MODEL=/models/DeepSeek-R1
ENV_COMMON='PYTHONPATH=/sgl-workspace/aiter:${PYTHONPATH} SGLANG_USE_AITER=1'
ssh ${PREFILL_NODE} "docker exec -d pd_spike_prefill bash -c '${ENV_COMMON} python3 -m sglang.launch_server --model-path ${MODEL} --disaggregation-mode prefill --port 8000 --tp-size 4 2>&1 | tee /tmp/prefill.log'"
ssh ${DECODE_NODE} "docker exec -d pd_spike_decode bash -c '${ENV_COMMON} python3 -m sglang.launch_server --model-path ${MODEL} --disaggregation-mode decode --port 8000 --tp-size 8 --prefill-round-robin-balance 2>&1 | tee /tmp/decode.log'"
"""


def _origin(launch: dict, token: str) -> tuple:
    o = launch["origins"][launch["argv"].index(token)]
    return o["line"], o["column"]


def test_an_ssh_command_string_is_a_shell_hand_off(scratch_git):
    scratch_git.write("run.sh", SPIKE)
    code, doc = scratch_git.lint("run.sh")
    assert [f["code"] for f in doc["findings"] if f["code"] == "PD020"] == []
    by_role = {l["role"]: l for l in doc["launches"]}
    assert sorted(by_role) == ["decode", "prefill"]
    prefill, decode = by_role["prefill"], by_role["decode"]
    assert prefill["argv"] == ["--model-path", "/models/DeepSeek-R1", "--disaggregation-mode", "prefill",
                               "--port", "8000", "--tp-size", "4"]
    assert prefill["context"] == "ssh at line 4 > bash -c at line 4"
    # every token where it is written: the role word in the ssh string, the model at its assignment
    line4 = SPIKE.splitlines()[3]
    assert _origin(prefill, "prefill") == (4, line4.index("prefill --port") + 1)
    assert _origin(prefill, "/models/DeepSeek-R1") == (2, len("MODEL=") + 1)
    # the flag only the decode carries is checked as the decode's (the report's true finding)
    flagged = [f for f in doc["findings"] if "--prefill-round-robin-balance" in f["message"]]
    assert flagged and all(f["line"] == 5 for f in flagged)
    assert "--prefill-round-robin-balance" in decode["argv"]


def test_the_remote_shell_sees_the_local_expansions_and_the_prefix_assignments(tmp_path):
    (tmp_path / "run.sh").write_text(SPIKE)
    launches = run([str(tmp_path / "run.sh")], Options(cwd=str(tmp_path))).launches
    (prefill,) = [l for l in launches if l.role == "prefill"]
    assert prefill.env["SGLANG_USE_AITER"].text == "1"
    # `${PYTHONPATH}` was single-quoted locally: the remote shell expands it, to a value pdlint cannot see
    assert prefill.env["PYTHONPATH"].text.startswith("/sgl-workspace/aiter:")
    assert prefill.env["PYTHONPATH"].opaque


# TonyLi15/sglang-benchmark experiment/run_full_sweep.sh:99-148 (shortened): a local prefill, a decode started on
# another host by ssh (a multi-line double-quoted string), a router there; and a local router of another mode
SWEEP = """\
#!/bin/bash
A100_HOST=172.16.40.99
SGLANG_IMAGE_X86=lmsysorg/sglang:latest
docker run -d --name sglang-prefill --gpus all --network=host lmsysorg/sglang:latest \\
    python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-3B-Instruct --port 30000 \\
        --disaggregation-mode prefill --disaggregation-transfer-backend nixl
ssh "${A100_HOST}" "docker run -d \\
    --name sglang-decode \\
    --gpus 'device=0' \\
    --network=host \\
    ${SGLANG_IMAGE_X86} \\
    python3 -m sglang.launch_server \\
        --model-path Qwen/Qwen2.5-3B-Instruct \\
        --port 30000 \\
        --disaggregation-mode decode \\
        --disaggregation-transfer-backend nixl"
ssh -f "${A100_HOST}" "nohup python3 -m sglang_router.launch_router \\
        --pd-disaggregation \\
        --prefill http://172.16.40.79:30000 \\
        --decode http://127.0.0.1:30000 \\
        --host 0.0.0.0 --port 8000 \\
        > /tmp/router_inter.log 2>&1 &"
nohup python3 -m sglang_router.launch_router --mini-lb --pd-disaggregation \\
    --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --port 8000 &
"""


def test_a_multi_line_ssh_docker_run_string_is_checked(scratch_git):
    scratch_git.write("sweep.sh", SWEEP)
    code, doc = scratch_git.lint("sweep.sh")
    assert sorted((l["kind"], l["role"] or "") for l in doc["launches"]) == [
        ("router", ""), ("router", ""), ("server", "decode"), ("server", "prefill")]
    (decode,) = [l for l in doc["launches"] if l["role"] == "decode"]
    assert decode["argv"][-4:] == ["--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl"]
    assert _origin(decode, "decode") == (15, len("        --disaggregation-mode ") + 1)
    # the local router's loopback --decode URL cannot reach the decode ssh starts on the A100 host, so its
    # port is no mismatch with that decode (PD154); the remote router's loopback URL does reach it
    assert code == 0 and doc["findings"] == []
    decode_links = {r["router"]["line"]: [s["line"] for s in r["servers"]]
                    for d in doc["pairs"] for r in d["routers"] if r["role"] == "decode"}
    assert decode_links == {17: [7], 23: []}


def test_launches_ssh_starts_on_other_hosts_share_no_port(scratch_git):
    scratch_git.write("two.sh", """\
        #!/bin/bash
        ssh node-p "
        python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 8000 &
        "
        ssh node-d <<EOF
        python3 -m sglang.launch_server --model-path m --disaggregation-mode decode --port 8000 &
        EOF
        """)
    code, doc = scratch_git.lint("two.sh")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert [f["code"] for f in doc["findings"]] == []


def test_single_quoted_words_are_expanded_by_the_remote_shell(scratch_git):
    scratch_git.write("remote.sh", """\
        #!/bin/bash
        MODEL=/local/model
        ssh -p 2222 -o StrictHostKeyChecking=no node 'python3 -m sglang.launch_server --model-path $MODEL --disaggregation-mode ${ROLE:-decode}'
        """)
    code, doc = scratch_git.lint("remote.sh")
    (launch,) = doc["launches"]
    # the local MODEL is not the remote shell's; an unset remote ROLE takes its default
    assert launch["argv"] == ["--model-path", "$MODEL", "--disaggregation-mode", "decode"]
    code, doc = scratch_git.lint("--var", "MODEL=/deploy/model", "remote.sh")
    (launch,) = doc["launches"]
    assert launch["argv"][:2] == ["--model-path", "/deploy/model"]  # the configured deploy-time value


def test_ssh_words_after_the_host_are_joined_as_the_remote_shell_reads_them(scratch_git):
    # `ssh HOST bash -c "..."`: ssh joins its words, so the remote shell runs `bash -c python3 -m ...`
    scratch_git.write("bc.sh", 'ssh node bash -c "python3 -m sglang.launch_server --model-path m '
                               '--disaggregation-mode prefill"\n')
    code, doc = scratch_git.lint("bc.sh")
    assert [f["code"] for f in doc["findings"]] == ["PD011"]
    assert "runs only 'python3'" in doc["findings"][0]["message"]
    scratch_git.write("words.sh", "ssh -tt -p2222 node -A python3 -m sglang.launch_server --model-path m "
                                  "--disaggregation-mode prefill\n")
    code, doc = scratch_git.lint("words.sh")
    (launch,) = doc["launches"]
    assert launch["role"] == "prefill" and doc["findings"] == []
    assert _origin(launch, "prefill") == (1, len("ssh -tt -p2222 node -A python3 -m sglang.launch_server "
                                                 "--model-path m --disaggregation-mode ") + 1)


def test_an_unexported_assignment_in_an_ssh_string_is_named_as_such(scratch_git):
    scratch_git.write("unexp.sh", 'ssh node2 "SGLANG_Y=1; python3 -m sglang.launch_server --model-path m '
                                  '--disaggregation-mode decode"\n')
    code, doc = scratch_git.lint("unexp.sh")
    (f,) = doc["findings"]
    assert (f["code"], f["line"], f["column"]) == ("PD103", 1, 12)
    assert "the command run by this `ssh` command string never sees it" in f["message"]


# reduced from anyscale/ray-serve-llm-perf-examples prefill_decode/debug/deploy_nixl_all_nodes.sh: a helper
# runs its argument with `bash -c` or `ssh`, and the argument is a Python here-document
HEREDOC_STRING = """\
    #!/bin/bash
    exec_cmd() {
        if [ "$IS_LOCAL" = "true" ]; then bash -c "$1"; else ssh -p 22 node "$1"; fi
    }
    OUT=$(exec_cmd "
        python3 << 'VERIFY_EOF'
    import subprocess
    result = subprocess.run(['ldd', 'x.so'],
        capture_output=True, text=True)
    VERIFY_EOF
        AFTER
    " 2>&1)
    ssh node "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode"
    """


def test_a_here_document_in_a_command_string_sets_no_variable(scratch_git):
    scratch_git.write("verify.sh", HEREDOC_STRING.replace("AFTER", "echo done"))
    code, doc = scratch_git.lint("verify.sh")
    assert doc["findings"] == [] and len(doc["launches"]) == 1


def test_an_assignment_after_a_here_document_in_a_command_string_still_fires(scratch_git):
    # (PD103 is about the server the string starts: one follows the assignment)
    scratch_git.write("verify.sh", HEREDOC_STRING.replace(
        "AFTER", "SGLANG_Y=1\n        python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill"))
    code, doc = scratch_git.lint("verify.sh")
    assert sorted({(f["code"], f["line"], f["column"]) for f in doc["findings"]}) == [("PD103", 11, 5)]
    # a string that starts no server: what it sets harms none
    scratch_git.write("verify.sh", HEREDOC_STRING.replace("AFTER", "SGLANG_Y=1"))
    code, doc = scratch_git.lint("verify.sh")
    assert doc["findings"] == []


@pytest.mark.parametrize("script, names", [
    ("cat <<EOF\nA=1\nEOF\nB=2\n", ["B"]),
    ("cat <<-'E'\n\tA=1\n\tE\nB=2\n", ["B"]),
    ('cat <<"X" <<Y\nA=1\nX\nC=3\nY\nB=2\n', ["B"]),
    ("cat <<< A=1\nB=2\n", ["B"]),
    ('echo "<<EOF"\nB=2\n', ["B"]),
    ("cat <<EOF\nA=1\n", []),  # a body with no terminator runs to the end
])
def test_statements_skip_here_document_bodies(script, names):
    from pdlint.structure_rules import unexported_assignments
    from pdlint.text import TStr
    assert [name for _, name in unexported_assignments(TStr.synthetic(script, "<test>"))] == names


def test_docker_exec_is_followed_in_an_ssh_string(scratch_git):
    scratch_git.write("exec.sh", """\
        #!/bin/bash
        ssh node "docker exec -d -e SGLANG_X=1 -w /work -u root pd_p bash -c 'python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 8000'"
        ssh node2 "docker exec pd_d python3 -m sglang.launch_server --model-path m --disaggregation-mode decode --port 8001"
        """)
    code, doc = scratch_git.lint("exec.sh")
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    assert doc["findings"] == []


def test_ssh_without_a_command_or_with_another_command_is_no_launch(scratch_git):
    scratch_git.write("plain.sh", """\
        #!/bin/bash
        ssh node1
        ssh -p 22 node2 'ls'
        ssh -s node3 sftp
        ssh node4 "tail -f /tmp/prefill.log"
        echo ssh node5 "python3 -m sglang.launch_server --disaggregation-mode prefill"
        """)
    code, doc = scratch_git.lint("plain.sh")
    assert code == 0 and doc["launches"] == [] and doc["findings"] == []


def _words(text: str) -> list:
    return [TStr.synthetic(w, "<t>") for w in text.split()]


def test_ssh_options_are_read_as_openssh_reads_them():
    from pdlint.launchers import ShellHandoff, find, ssh_command_index
    cases = {
        "ssh host": None,  # an interactive login
        "ssh -p 22 host": None,
        "ssh -s host sftp": None,  # a subsystem, not a shell command
        "ssh -p 22 host ls": 4,
        "ssh -tt -p22 -i key host -t ls -l": 7,  # grouped flags, a value attached or apart, options after the host
        "ssh -J jump -l me -o A=b host ls": 8,
        "ssh -- host -x": 3,  # after `--` no more options: the command starts right after the host
        "timeout 5 ssh -q host ls": 5,
    }
    for text, want in cases.items():
        texts = text.split()
        assert ssh_command_index(texts, texts.index("ssh")) == want, text
    found = find(_words("ssh -p 22 host python3 -m sglang.launch_server --port 1"))
    assert isinstance(found, ShellHandoff) and found.remote
    assert found.script.text == "python3 -m sglang.launch_server --port 1"
    assert find(_words("ssh host")) is None


# -- commands recovered from a parse error end at their line ----------------------------------------------

# devopsrustem/slurmv4 3/11.sh (reduced): a terminal transcript saved as .sh, lines led by the shell prompt
TRANSCRIPT = """\
((venv) ) [me@node1 ~]$ python3 -m sglang.launch_server --model-path /m --tp-size 8 --disaggregation-mode prefill

((venv) ) [me@node3 ~]$ python3 -m sglang.launch_server --model-path /m --tp-size 8 --disaggregation-mode decode
echo done
"""


def test_a_command_recovered_from_a_parse_error_ends_at_its_newline(scratch_git):
    scratch_git.write("transcript.sh", TRANSCRIPT)
    code, doc = scratch_git.lint("transcript.sh")
    codes = [f["code"] for f in doc["findings"]]
    assert "PD009" in codes  # the parse error stays reported
    assert not {"SGL004", "SGL011"} & set(codes)
    by_role = {l["role"]: l for l in doc["launches"]}
    assert sorted(by_role) == ["decode", "prefill"]
    assert by_role["prefill"]["argv"][-2:] == ["--disaggregation-mode", "prefill"]
    assert by_role["decode"]["argv"][-2:] == ["--disaggregation-mode", "decode"]
    assert _origin(by_role["decode"], "decode") == (3, TRANSCRIPT.splitlines()[2].index("decode") + 1)


def test_a_continued_or_quoted_line_in_a_parse_error_region_stays_one_command(scratch_git):
    text = (
        "((venv) ) [me@node1 ~]$ python3 -m sglang.launch_server --model-path /m \\\n"
        "    --json-model-override-args '{\n"
        "      \"x\": 1}' \\\n"
        "    --disaggregation-mode prefill\n"
        "echo done\n")
    scratch_git.write("continued.sh", text)
    code, doc = scratch_git.lint("continued.sh")
    (launch,) = doc["launches"]
    assert launch["argv"] == ["--model-path", "/m", "--json-model-override-args", '{\n      "x": 1}',
                              "--disaggregation-mode", "prefill"]
    assert [f["code"] for f in doc["findings"]] == ["PD009"]


def test_a_script_that_parses_keeps_its_continued_launch(scratch_git):
    scratch_git.write("ok.sh", """\
        #!/bin/bash
        python3 -m sglang.launch_server --model-path /m \\
            --tp-size 8 \\
            --disaggregation-mode prefill
        echo done
        """)
    code, doc = scratch_git.lint("ok.sh")
    (launch,) = doc["launches"]
    assert launch["argv"] == ["--model-path", "/m", "--tp-size", "8", "--disaggregation-mode", "prefill"]
    assert doc["findings"] == []
