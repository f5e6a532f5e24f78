"""Shell-script noise found by field tests (round 5):

* PD020 on text that is no launch (littlemex/disaggregated-inference-with-nixl-over-aws-efa): a checker's
  shell variable named ``kv_role`` (``kv_role=$(python3 -c ...)``, ``[ "$kv_role" = "kv_producer" ]``) was
  "engine flag `kv_role`", and a JSON task template's ``"skip_if": "pgrep -f
  'vllm.entrypoints.openai.api_server.*kv_producer...'"`` was a launch pdlint built nothing from;
* PD008 error "more than 16 branch paths" on the same checker (verify-s3-deployment.sh, reduced): nested
  ``if``s in a ``for`` loop of a function the script never calls, whose only launch text is ``kv_role=...`` in
  ``echo`` messages.  A branch-path or expansion-size limit hit in a function the script never calls that can
  start no launch (launch text only in what ``echo`` / ``grep`` print or search) costs no launch;
* ``trim_spaces() { echo "$*" | xargs; }`` (sabreshao/sglang_disagg's pd_server.sh, a ROCm/AMD idiom) made the
  servers' flags built through it a value pdlint cannot see (PD023): ``xargs`` / ``xargs echo`` is a known
  text filter now.
"""

import pytest

from pdlint.coverage import find_markers, has_launch_text


def _pd020(report):
    return [(f["path"], f["line"]) for f in report["findings"] if f["code"] == "PD020"]


# -- PD020: a shell variable named kv_role, a search pattern ----------------------------------------------

@pytest.mark.parametrize("line", [
    'kv_role=$(python3 -c "import json; print(1)" 2>/dev/null || echo "PARSE_ERROR")',
    "local kv_role",
    'local kv_role="$1"',
    "kv_role=`jq -r .kv_role task.json`",
    'if [ "$kv_role" = "kv_producer" ]; then',
    '[[ ${kv_role:-none} == kv_consumer ]] && echo consumer',
    # search patterns: what a readiness check or a cleanup looks for
    "\"skip_if\": \"pgrep -f 'vllm.entrypoints.openai.api_server.*kv_producer' > /dev/null && echo ok\",",
    "grep -q '\"kv_role\":\"kv_producer\"\\|kv_role.*kv_producer' \"$json_file\"",
    "ps aux | grep -v grep | grep sglang.launch_server",
    'pkill -f "python3 -m sglang.launch_server --disaggregation-mode prefill" || true',
    '"cmd": "pgrep -f \\"vllm serve\\" || true"',
])
def test_no_launch_text(line):
    assert find_markers(line + "\n") == [] and not has_launch_text(line), line


@pytest.mark.parametrize("line,found", [
    # config keys stay launch text: Python keywords, INI, JSON, a shell variable given a literal value
    ("KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_producer')", ["kv_role"]),
    ("kv_role = 'kv_producer'", ["kv_role"]),
    ("kv_role=kv_producer", ["kv_role"]),
    ('"kv_role": "$ROLE"', ['"kv_role']),
    ('cfg="{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"$KV_ROLE\\"}"', ['\\"kv_role']),
    # launch text outside a search pattern, a pattern whose quote does not close on the line
    ("pgrep -f sglang.launch_server || python3 -m sglang.launch_server --disaggregation-mode prefill",
     ["sglang.launch_server", "--disaggregation-mode"]),
    ("grep -q '^ready' /tmp/p.log && vllm serve Qwen/Qwen3-0.6B --kv-transfer-config '{\"kv_role\":\"kv_producer\"}'",
     ["vllm serve", "--kv-transfer-config", '"kv_role']),
    ("grep -m 1 'sglang.launch_server' log", ["sglang.launch_server"]),  # (an option's value: not followed)
    ('pgrep -f "sglang.launch_server', ["sglang.launch_server"]),
    ("mygrep sglang.launch_server", ["sglang.launch_server"]),
])
def test_launch_text_beside_them_stays(line, found):
    assert [m.text for m in find_markers(line + "\n")] == found and has_launch_text(line), line


CHECKER = """\
#!/bin/bash
# checks the kv_role of every generated task file
check() {
    local json_file="$1"
    if grep -q 'kv_role' "$json_file"; then
        local kv_role
        kv_role=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kv_role'])" "$json_file" \\
            2>/dev/null || echo "PARSE_ERROR")
        if [ "$kv_role" = "kv_producer" ]; then
            echo "$json_file: ok"
        elif [ "${kv_role:-}" = "PARSE_ERROR" ]; then
            grep -q '"kv_role":"kv_producer"' "$json_file" && echo "$json_file: ok (grep)"
        fi
    fi
}
for f in tasks/*.json; do
    check "$f"
done
"""


def test_a_checker_with_a_kv_role_variable_is_no_launch_text(scratch_git):
    scratch_git.write("verify.sh", CHECKER)
    code, report = scratch_git.lint("verify.sh")
    assert code == 0 and _pd020(report) == [] and report["coverage"]["files"]["verify.sh"]["status"] == "none"


TASK = """\
{
  "name": "Phase {{ phase }} producer",
  "tasks": [
    {
      "id": "start-producer",
      "skip_if": "pgrep -f 'vllm.entrypoints.openai.api_server.*kv_producer.*--port 8100' > /dev/null && curl -s http://localhost:8100/health | grep -q ok",
      "commands": [
        "nohup python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-0.6B --port 8100 --kv-transfer-config '{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_producer\\"}' > /tmp/p.log 2>&1 &"
      ]
    }
  ]
}
"""


def test_a_task_templates_pgrep_readiness_check_is_no_launch_text(scratch_git):
    scratch_git.write("producer.json.jinja2", TASK)
    code, report = scratch_git.lint("--var", "phase=1", "producer.json.jinja2")
    assert _pd020(report) == []
    assert report["coverage"]["files"]["producer.json.jinja2"]["status"] == "checked"


def test_the_launch_of_an_unreadable_command_beside_a_pgrep_is_still_reported(scratch_git):
    # the same task, its command run through a wrapper pdlint does not know: the kv_role JSON is unchecked
    scratch_git.write("producer.json.jinja2", TASK.replace("nohup python3 -m vllm.entrypoints.openai.api_server",
                                                           "nohup ./start-server"))
    code, report = scratch_git.lint("--var", "phase=1", "producer.json.jinja2")
    assert _pd020(report) == [("producer.json.jinja2", 8)]


def test_a_json_file_with_only_a_pgrep_pattern_is_no_launch_text(scratch_git):
    scratch_git.write("task.json", '{"skip_if": "pgrep -f \'sglang.launch_server.*--disaggregation-mode prefill\'"}\n')
    scratch_git.write("run.json", '{"command": "./serve --kv-transfer-config \'{\\"kv_role\\":\\"kv_producer\\"}\'"}\n')
    code, report = scratch_git.lint("task.json", "run.json")
    assert _pd020(report) == [("run.json", 1)]


# -- xargs as a whitespace trim ---------------------------------------------------------------------------

TRIM = """\
#!/bin/bash
trim_spaces() { echo "$*" | xargs; }
X=$(trim_spaces "--disaggregation-mode prefill  --tp-size 1" "  --port 30000 ")
python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B $X
"""


@pytest.fixture
def last_arg(shell_eval):
    return lambda script: shell_eval(script)[0][-1].words[-1]


@pytest.mark.parametrize("filt", ["xargs", "xargs echo", "/usr/bin/xargs"])
def test_xargs_joins_the_words_on_one_line(last_arg, filt):
    w = last_arg('K=$(printf \'%s\\n\' " --a  1" "--b\t2 " | ' + filt + ')\nrun "$K"\n')
    assert w.text == "--a 1 --b 2" and not w.opaque
    assert w.origin_at(w.text.index("--b")).line == 1  # where the word is written


@pytest.mark.parametrize("script", [
    'K=$(echo "--a \'x y\'" | xargs)\nrun "$K"\n',  # xargs' own quoting
    'K=$(echo "--a x\\\\y" | xargs)\nrun "$K"\n',
    'K=$(echo "-n 5" | xargs)\nrun "$K"\n',  # echo's option
    'K=$(echo "--a 1 --b 2" | xargs -n 2)\nrun "$K"\n',  # other xargs commands: not known
    'K=$(echo "--a 1 --b 2" | xargs printf "%s,")\nrun "$K"\n',
    'K=$(echo "--a $(helper x y)" | xargs)\nrun "$K"\n',  # an unknown value may hold blanks
])
def test_what_xargs_does_otherwise_stays_unknown(last_arg, script):
    assert last_arg(script).opaque, script


def test_xargs_of_nothing_is_an_empty_line(last_arg):
    assert last_arg('K=$(echo "  " | xargs)\nrun "x$K"\n').text == "x"


def test_flags_trimmed_through_xargs_are_checked(scratch_git):
    scratch_git.write("run.sh", TRIM)
    code, report = scratch_git.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == []
    (launch,) = report["launches"]
    assert launch["role"] == "prefill"


def test_a_bad_flag_trimmed_through_xargs_is_found_where_it_is_written(scratch_git):
    scratch_git.write("run.sh", TRIM.replace("--tp-size 1", "--tp-sise 1"))
    code, report = scratch_git.lint("run.sh")
    assert code == 1 and [(f["code"], f["line"]) for f in report["findings"]] == [("SGL001", 3)]


# -- PD008: a limit in a function the script never calls that cannot start a launch -------------------------

VERIFY = """\
verify_critical_configs() {
    if [ -d "$producer_dir" ]; then
        for json_file in $producer_files; do
            if grep -q 'VLLM_NIXL_SIDE_CHANNEL_HOST' "$json_file"; then
                local side_channel_value
                if [ -n "$side_channel_value" ]; then
                    if echo "$side_channel_value" | grep -q 'NODE1_PRIVATE'; then
                        echo "Producer $filename: VLLM_NIXL_SIDE_CHANNEL_HOST=\\$NODE1_PRIVATE"
                    fi
                fi
            fi
            if grep -q 'kv_role' "$json_file"; then
                local kv_role
                kv_role=$(python3 -c "
" 2>/dev/null || echo "PARSE_ERROR")
                if [ "$kv_role" = "kv_producer" ]; then
                    if grep -q '"kv_role":"kv_producer"\\|kv_role.*kv_producer' "$json_file"; then
                        echo "Producer $filename: kv_role=kv_producer (grep)"
                    fi
                fi
            fi
            if [ -n "$buffer_size" ]; then
                if [ "$buffer_size" -gt 0 ] 2>/dev/null; then
                    echo "Producer $filename: kv_buffer_size=$buffer_size"
                fi
            fi
            if grep -q 'kv_buffer_device' "$json_file"; then
                local buffer_device
                if echo "$buffer_device" | grep -q '"cpu"'; then
                    echo "Producer $filename: kv_buffer_device MUST be cpu, found: $buffer_device"
                fi
            fi
        done
    fi
    if [ -d "$consumer_dir" ]; then
        for json_file in $consumer_files; do
            if grep -q 'VLLM_NIXL_SIDE_CHANNEL_HOST' "$json_file"; then
                if [ -n "$side_channel_value" ]; then
                    if echo "$side_channel_value" | grep -q 'NODE2_PRIVATE'; then
                        echo "Consumer $filename: VLLM_NIXL_SIDE_CHANNEL_HOST should be \\$NODE2_PRIVATE"
                    fi
                fi
            fi
            if grep -q 'kv_buffer_device' "$json_file"; then
                if echo "$buffer_device" | grep -q '"cpu"'; then
                    echo "Consumer $filename: kv_buffer_device=cpu"
                fi
            fi
        done
    fi
    __TAIL__
}
"""
SERVER = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --disaggregation-mode prefill"


def _pd015(report):
    return [f["message"] for f in report["findings"] if f["code"] == "PD015"]


def test_the_branch_path_limit_in_an_uncalled_checker_is_no_error(scratch_git):
    scratch_git.write("verify.sh", VERIFY.replace("__TAIL__", 'echo "done: kv_role=checked"'))
    code, report = scratch_git.lint("verify.sh")
    assert code == 0 and report["findings"] == []


def test_the_same_checker_beside_a_launch_is_no_error_and_the_launch_is_checked(scratch_git):
    scratch_git.write("verify.sh", VERIFY.replace("__TAIL__", ":") + SERVER + " --tp-sise 1\n")
    code, report = scratch_git.lint("verify.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL001"]


@pytest.mark.parametrize("tail", [
    SERVER,  # a launch after the paths cut
    'CMD=$(echo "' + SERVER + '")\n    $CMD',  # printed text that runs
    'echo "$(' + SERVER + ')"',  # a launch inside what echo prints
    "bash ./start.sh prefill",  # a script pdlint may follow
])
def test_the_limit_where_a_launch_may_follow_stays_reported(scratch_git, tail):
    scratch_git.write("verify.sh", VERIFY.replace("__TAIL__", tail))
    code, report = scratch_git.lint("verify.sh")
    assert code == 0 and _pd015(report) == ["more than 16 branch paths; only the first 16 were followed"], tail


# doubles a word until the expansions exceed 1,000,000 characters (tests/test_field_cov_limits.py)
EXPAND = "    mkdir -p /tmp/banner\n    A=xxxxxxxxxxxxxxxx\n" + '    A="$A$A"\n' * 17 + '    echo "$A"\n'


def test_the_expansion_limit_in_an_uncalled_printer_is_no_error(scratch_git):
    # (the launch text after it is the server's, which the evaluation of the script reached)
    scratch_git.write("run.sh", "banner() {\n" + EXPAND + "}\n" + SERVER + " --tp-sise 1\n")
    code, report = scratch_git.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL001"]


def test_the_expansion_limit_before_an_uncalled_launcher_stays_reported(scratch_git):
    # the budget the printer spent stops the launcher's evaluation: reported there
    scratch_git.write("run.sh", "banner() {\n" + EXPAND + "}\nstart() {\n    " + SERVER + ' "$@"\n}\n')
    code, report = scratch_git.lint("run.sh")
    assert code == 0 and [m.split(";")[0] for m in _pd015(report)] == \
        ["expansions produced more than 1000000 characters"]
