"""Coverage accounting (pdlint.coverage): launch text pdlint did not check is never a clean pass."""

import json
import textwrap

import pytest

from pdlint.cli import main
from pdlint.coverage import find_markers


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / ".git").mkdir()
    return tmp_path


def write(repo, name, text):
    p = repo / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def run(capsys, *args):
    code = main(["--format", "json", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


def codes(doc, prefix="PD02"):
    return sorted((f["path"], f["line"], f["code"]) for f in doc["findings"] if f["code"].startswith(prefix))


GOOD = """
#!/bin/sh
CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill &
CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30001 &
"""


# -- markers -------------------------------------------------------------------------------------------

def test_markers_find_launchers_flags_and_config_keys():
    text = ("python3 -m sglang.launch_server --disaggregation-mode prefill\n"
            "vllm serve m --kv-transfer-config '{\"kv_role\":\"kv_producer\"}'\n"
            "disaggregation-mode: decode\n"
            "trtllm-serve m\n")
    found = [(m.line, m.text, m.kind) for m in find_markers(text)]
    assert found == [(1, "sglang.launch_server", "launcher"), (1, "--disaggregation-mode", "flag"),
                     (2, "vllm serve", "launcher"), (2, "--kv-transfer-config", "flag"), (2, "\"kv_role", "key"),
                     (3, "disaggregation-mode", "key"), (4, "trtllm-serve", "launcher")]


@pytest.mark.parametrize("text, found", [
    # llm-d-benchmark writes blanks in per-role env values as runs of underscores
    ("PREFILL_EXTRA_ARGS=--kv-transfer-config____'{x}'____--enforce-eager", ["--kv-transfer-config"]),
    ("SGL_ARGS=--disaggregation-mode____prefill", ["--disaggregation-mode"]),
    ("x=--disaggregation-mode_suffix", []),  # one underscore continues a name
    # sglang-router's PD mode behind an image whose entry point pdlint does not know
    ("args: [--pd-disaggregation, --prefill, http://p:30000, --decode, http://d:30001]", ["--pd-disaggregation"]),
])
def test_markers_of_flags_in_env_values_and_router_args(text, found):
    assert [m.text for m in find_markers(text + "\n") if m.kind == "flag"] == found


@pytest.mark.parametrize("text, found", [
    # field test rw14/h: systemd units and Ansible templates name the console script by its installed path
    ("ExecStart=/opt/venv/bin/vllm serve M --max-model-len 8192", ["vllm serve"]),
    ("ExecStart={{ vllm_venv_directory }}/bin/vllm serve {{ vllm_model }}", ["vllm serve"]),
    ("command: [\"/usr/local/bin/trtllm-serve\", \"M\"]", ["trtllm-serve"]),
    ("image: lmsysorg/sglang serve", []),  # a path that is no bin directory: an image or a package name
    ("ExecStart=/opt/venv/bin/vllm-serve-helper M", []),
])
def test_markers_of_console_scripts_by_their_installed_path(text, found):
    assert [m.text for m in find_markers(text + "\n") if m.kind == "launcher"] == found


def test_markers_skip_comments_image_names_submodules_and_prose():
    text = ("# python3 -m sglang.launch_server --disaggregation-mode prefill\n"
            "image: lmsysorg/sglang-router:v0.2.4   # sglang-router image\n"
            "python3 -m dynamo.sglang.utils.clear_namespace --namespace dynamo\n"
            "note: 'the decode server must agree with --disaggregation-mode on the prefill side of the pair'\n"
            "{# {{ launcher }} --disaggregation-mode decode #}\n"
            "echo '#' && python -m sglang.launch_server   # trailing comment --disaggregation-mode\n")
    assert [(m.line, m.text) for m in find_markers(text)] == [(6, "sglang.launch_server")]


# -- PD020 unchecked launch text -------------------------------------------------------------------------

def test_fully_checked_files_are_quiet_and_summarised(repo, capsys):
    write(repo, "run.sh", GOOD)
    code, doc = run(capsys, "--strict", ".")
    assert code == 0 and codes(doc) == []
    cov = doc["coverage"]
    assert (cov["launches"], cov["prefill"], cov["decode"], cov["unchecked"]) == (2, 1, 1, 0)
    assert cov["files"]["run.sh"] == {"status": "checked", "launches": 2, "unchecked": []}
    assert main(["."]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-2:] == [
        "2 launches checked (1 prefill, 1 decode, 0 routers) in 1 file; 0 places with launch text not checked.",
        "Found 0 errors and 0 warnings in 1 file."]


def test_a_scripts_own_options_and_variables_named_for_engine_flags_are_no_launch_text(repo, capsys):
    """NVIDIA/cloudai dynamo_mocker.sh (field test rw14/g): its option parser's `--disaggregation-mode)` item and
    its `disaggregation_mode="none"` variable were PD020 'launch text not checked'."""
    write(repo, "run.sh", """
        #!/bin/bash
        disaggregation_mode="none"
        while [[ $# -gt 0 ]]; do
          case "$1" in
            --disaggregation-mode|-m)   disaggregation_mode="$2"; shift 2 ;;
            *) shift ;;
          esac
        done
        echo "mode=$disaggregation_mode"
        """)
    code, doc = run(capsys, ".")
    assert code == 0 and codes(doc) == []
    # the same words where a launch would read them are still launch text
    write(repo, "run.sh", """
        #!/bin/bash
        disaggregation_mode="none"
        ./mocker --disaggregation-mode "$disaggregation_mode"
        cat > cfg.yaml <<EOF
        disaggregation_mode: prefill
        EOF
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("run.sh", 3, "PD020"), ("run.sh", 5, "PD020")]


def test_a_kill_command_line_a_function_prints_is_no_launch_text(repo, capsys):
    """MLPerf v6.0 benchmark_llama2_70b.sh (field test rw14/g): `log_command "pkill -9 trtllm-serve"` (a clean-up
    hint its sourced common.sh prints) was PD020."""
    write(repo, "run.sh", """
        #!/bin/bash
        source "$REPO/common.sh"
        log_command "pkill -9 trtllm-serve"
        """)
    code, doc = run(capsys, ".")
    assert code == 0 and codes(doc) == []
    write(repo, "run.sh", """
        #!/bin/bash
        source "$REPO/common.sh"
        log_command "trtllm-serve disaggregated -c cfg.yaml"
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("run.sh", 3, "PD020")]


def test_unknown_program_with_engine_flags_is_reported_with_the_reason(repo, capsys):
    write(repo, "run.sh", """
        #!/bin/sh
        ./run_worker.sh --model-path /m --disaggregation-mode decode
        $LAUNCHER --model-path /m \\
            --disaggregation-mode prefill
        echo "usage: python3 -m sglang.launch_server --disaggregation-mode prefill|decode"
        pkill -f sglang.launch_server
        """)
    code, doc = run(capsys, ".")
    assert code == 0 and codes(doc) == [("run.sh", 2, "PD020"), ("run.sh", 3, "PD020")]  # where each command starts
    by = {f["line"]: f for f in doc["findings"]}
    assert "`./run_worker.sh` is not a launcher pdlint knows" in by[2]["message"]
    assert "program is $LAUNCHER" in by[3]["message"] and "lines 3-4" not in by[3]["message"]
    assert "LAUNCHER its value" in by[3]["fix"]
    spots = doc["coverage"]["files"]["run.sh"]["unchecked"]
    assert [(s["line"], s["code"]) for s in spots] == [(2, "PD020"), (3, "PD020")] and spots[1]["end_line"] == 4
    assert doc["coverage"]["files"]["run.sh"]["status"] == "unchecked"


def test_sglang_load_balancer_module_paths_are_launch_text(repo, capsys):
    """`python3 -m sglang.srt.disaggregation.mini_lb` (SGLang's module path; ai-dynamo/dynamo wideep
    run_sgl_servers.sh) in a branch not taken was silent: the marker did not match after `sglang.srt.`."""
    write(repo, "run_lb.sh", """
        #!/bin/bash
        SERVER_TYPE=""
        case $SERVER_TYPE in
          mini_lb)
            python3 -m sglang.srt.disaggregation.mini_lb \\
              --prefill "http://HEAD_PREFILL_NODE_IP:30000" --decode "http://HEAD_DECODE_NODE_IP:30000" ;;
          launch_lb) python3 -m sglang.srt.disaggregation.launch_lb --prefill http://p:30000 --decode http://d:30000 ;;
          gateway) python3 -m sglang_router launch --pd-disaggregation --prefill http://p:30000 ;;
        esac
        python3 -c "from sglang.srt.disaggregation.mini_lb import MiniLoadBalancer"
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("run_lb.sh", 5, "PD020")]  # one spot: nearby lines no command explains
    assert "`sglang.srt.disaggregation.launch_lb` and `sglang.srt.disaggregation.mini_lb` and `sglang_router` " \
           "with engine flag `--pd-disaggregation` on lines 5-8" in doc["findings"][0]["message"]
    write(repo, "run_lb.sh", "#!/bin/sh\npython3 -m sglang.srt.disaggregation.mini_lb --prefill http://p:30000 "
                             "--decode http://d:30000\n")
    code, doc = run(capsys, ".")  # taken: a checked router
    assert codes(doc) == [] and doc["coverage"]["routers"] == 1


# a vLLM Deployment whose image pdlint does not know (its args go to an unknown entry point)
UNKNOWN_IMAGE = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm-prefill}
        spec:
          template:
            spec:
              containers:
                - name: prefill
                  image: registry.example.com/team/inference-server:1.4
                  args:
                    - --model
                    - Qwen/Qwen3-8B
"""


def test_vllm_underscore_flag_and_escaped_kv_role_are_launch_text(repo, capsys):
    """vLLM reads `--kv_transfer_config` as `--kv-transfer-config` (KServe's samples use it); with an image
    pdlint does not know, neither it nor the escaped `\\"kv_role\\":` was launch text: "No launch text found"."""
    write(repo, "prefill.yaml", UNKNOWN_IMAGE + """\
                    - "--kv_transfer_config={\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_producer\\"}"
        """)
    write(repo, "other.yaml", """
        kind: ConfigMap
        data:
          KV: "{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_consumer\\"}"
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("other.yaml", 3, "PD020"), ("prefill.yaml", 11, "PD020")]
    by = {f["path"]: f for f in doc["findings"]}
    assert "`--kv_transfer_config`" in by["prefill.yaml"]["message"]
    assert "engine flag `kv_role` on line 3" in by["other.yaml"]["message"]  # named without its quote
    write(repo, "run.sh", """
        #!/bin/sh
        vllm serve m --port 8100 --kv_transfer_config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
        vllm serve m --port 8200 --kv_transfer_config "{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_consumer\\"}"
        """)
    code, doc = run(capsys, "run.sh")  # checked launches cover both spellings
    assert codes(doc) == [] and (doc["coverage"]["prefill"], doc["coverage"]["decode"]) == (1, 1)


def test_one_unchecked_command_is_one_spot(repo, capsys):
    """An unrecognised command whose engine flags are lines apart got one PD020 per flag line, all at the
    command's start: one spot for the command, its lines in the message."""
    write(repo, "prefill.yaml", UNKNOWN_IMAGE + """\
                    - '--kv-transfer-config={"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
                    - --port
                    - "8000"
                    - --tensor-parallel-size
                    - "2"
                    - --disaggregation-mode
                    - prefill
        """)
    write(repo, "run.sh", """
        #!/bin/sh
        ./run_worker.sh --disaggregation-mode decode \\
            --port 30001 \\
            --tp 2 \\
            --kv-transfer-config '{}'
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("prefill.yaml", 11, "PD020"), ("run.sh", 2, "PD020")]
    assert "on lines 13-18" in doc["findings"][0]["message"] and "on lines 2-5" in doc["findings"][1]["message"]
    assert doc["coverage"]["files"]["prefill.yaml"]["unchecked"][0]["end_line"] == 18


TORCHRUN = ("torchrun --nproc-per-node 1 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "
            "--disaggregation-transfer-backend fake")


def test_an_unchecked_command_on_the_line_of_a_checked_one_is_reported(repo, capsys):
    """Coverage went by line: a torchrun-started prefill on the line of a checked decode (`a & b`, in a script
    and in Compose's `sh -c "..."`) counted as covered.  A launch's first and last line cover only its own
    text there."""
    decode = "python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30001"
    write(repo, "one.sh", f"#!/bin/bash\n{decode} & {TORCHRUN}\n")
    write(repo, "before.sh", f"#!/bin/bash\n{TORCHRUN} & {decode}\n")
    write(repo, "vars.sh", f"#!/bin/bash\nARGS='--model-path /m --disaggregation-mode decode'\n"
                           f"python3 -m sglang.launch_server $ARGS --port 30001 & {TORCHRUN}\n")
    write(repo, "docker-compose.yml", f"""
        services:
          pd:
            image: lmsysorg/sglang:v0.5.9
            command: sh -c "{decode} & {TORCHRUN}"
        """)
    code, doc = run(capsys, ".")
    col = len(decode) + 4
    assert sorted((f["path"], f["line"], f["column"], f["code"]) for f in doc["findings"] if f["code"] == "PD020") \
        == [("before.sh", 2, 1, "PD020"), ("docker-compose.yml", 4, len('    command: sh -c "') + col, "PD020"),
            ("one.sh", 2, col, "PD020"), ("vars.sh", 3, len("python3 -m sglang.launch_server $ARGS --port 30001 & ") + 1,
                                          "PD020")]
    assert all("`torchrun` is not a launcher" in f["message"] for f in doc["findings"] if f["code"] == "PD020")
    assert doc["coverage"]["decode"] == 4


def test_a_command_that_runs_nothing_does_not_hide_launch_text_beside_it(repo, capsys):
    # `echo` / `pkill` name a launcher without running it; an unchecked launch on the same line still counts
    write(repo, "run.sh", f'#!/bin/bash\necho "starting sglang.launch_server"; {TORCHRUN}\n'
                          f'pkill -f sglang.launch_server || {TORCHRUN}\n'
                          'echo "python3 -m sglang.launch_server --disaggregation-mode prefill"; pkill -f vllm\n')
    code, doc = run(capsys, ".")
    assert [(f["line"], f["column"], f["code"]) for f in doc["findings"]] == [
        (2, len('echo "starting sglang.launch_server"; ') + 1, "PD020"),
        (3, len("pkill -f sglang.launch_server || ") + 1, "PD020")]  # line 4: nothing runs a launcher


def test_a_program_that_runs_none_of_its_words_is_no_launch(repo, capsys):
    """devopsrustem/slurmv4 3/4.sh (3e72c525), a terminal transcript kept as a script: a quote left open made
    `ss -tlnpn | grep 8998` swallow the next launch's words; pdlint found `python3 -m sglang.launch_server`
    among grep's words and reported a decode launch at the grep line (with 264 'unrecognized arguments').
    Unquoted `echo` / `curl` words are no launch either."""
    write(repo, "run.sh", "grep 8998 python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode\n"
                          "echo starting python3 -m sglang.launch_server --model-path /m\n"
                          "curl -d x http://h python3 -m sglang.launch_server --model-path /m\n")
    code, doc = run(capsys, "run.sh")
    assert code == 0 and doc["launches"] == [] and doc["findings"] == [], doc["findings"]


def test_the_message_names_a_json_key_without_its_quote(repo, capsys):
    # a bash array of flags sourced by another script (search index id 70833234810: VLLM_PREFILL_ARGS=(...)):
    # the message said engine flags `"kv_role`; the underline still starts at the quote
    write(repo, "flags.sh", "ARGS=(\n    --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
                            "\"kv_role\":\"kv_producer\"}'\n)\n")
    code, doc = run(capsys, "flags.sh")
    (f,) = doc["findings"]
    assert f["code"] == "PD020" and "engine flags `--kv-transfer-config`, `kv_role` on line 2" in f["message"], f
    assert "`\"kv_role`" not in f["message"]


def test_a_wrapper_pdlint_does_not_know_still_runs_the_launcher(repo, capsys):
    # the same file's real launches: `/opt/mooncake-libs/run-with-new-libstdc.sh /app/.../python3 -m ...`
    write(repo, "run.sh", "NCCL_DEBUG=WARN /opt/mooncake-libs/run-with-new-libstdc.sh /app/venv/bin/python3 "
                          "-m sglang.launch_server --model-path /m --disaggregation-mode decode\n"
                          "A=1 timeout 60 python3 -m sglang.launch_server --model-path /m --disaggregation-mode "
                          "prefill --port 30001\n")
    code, doc = run(capsys, "run.sh")
    assert [(l["line"], l["role"]) for l in doc["launches"]] == [(1, "decode"), (2, "prefill")]


def test_launches_sharing_lines_and_spanning_lines_stay_covered(repo, capsys):
    write(repo, "run.sh", """
        #!/bin/bash
        ARGS="--model-path /m \\
          --disaggregation-mode prefill"
        python3 -m sglang.launch_server $ARGS \\
           --port 30000 & python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode \\
           --port 30001 --disaggregation-transfer-backend nixl
        """)
    write(repo, "docker-compose.yml", """
        services:
          pd:
            image: lmsysorg/sglang:v0.5.9
            command:
              - sh
              - -c
              - |
                python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill & python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --port 30001
        """)
    write(repo, "escaped/docker-compose.yml", """
        services:
          pd:
            image: lmsysorg/sglang:v0.5.9
            command: "python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode --json-model-override-args \\"{\\\\\\"a\\\\\\": 1}\\"\\t--tp 1"
        """)  # a decoded scalar: its words are placed at the scalar's start only, their line stays whole
    code, doc = run(capsys, ".")
    assert codes(doc) == [] and doc["coverage"]["prefill"] == 2 and doc["coverage"]["decode"] == 3


def test_trtllm_slurm_benchmark_config_is_checked(repo, capsys):
    """TensorRT-LLM's examples/disaggregated/slurm/benchmark/config.yaml (worker_config.ctx / gen, which
    submit.py writes as the ctx/gen servers' --extra_llm_api_options files) passed silently: "No launch text
    found".  Its ctx/gen sections are checked as those files are."""
    write(repo, "config.yaml", """
        slurm:
          script_file: "disaggr_torch.slurm"
        benchmark:
          mode: "e2e"
        hardware:
          gpus_per_node: 4
          num_ctx_servers: 2
          num_gen_servers: 1
        environment:
          worker_env_var: "TLLM_LOG_LEVEL=INFO"
        worker_config:
          gen:
            tensor_parallel_size: 4
            max_batch_size: 256
            cache_transceiver_config:
              max_tokens_in_buffer: 4608
              backend: NIXL
          ctx:
            tensor_parallel_size: 4
            disable_overlap_scheduler: true
            cache_transceiver_config:
              max_tokens_in_buffer: 4608
              backend: UCX
        """)
    code, doc = run(capsys, "config.yaml")
    assert code == 1 and [(f["line"], f["code"]) for f in doc["findings"]] == [(17, "TRT001")]  # the gen backend
    cov = doc["coverage"]
    assert (cov["prefill"], cov["decode"], cov["unchecked"]) == (1, 1, 0)
    assert cov["files"]["config.yaml"]["status"] == "checked"


def test_trtllm_slurm_benchmark_config_with_no_context_servers(repo, capsys):
    # a generation-only benchmark (`num_ctx_servers: 0`): its ctx section starts no server, so it is not
    # judged as one (it was TRT001 against a context server that never runs)
    write(repo, "config.yaml", """
        hardware:
          num_ctx_servers: 0
          num_gen_servers: 1
        worker_config:
          gen:
            tensor_parallel_size: 4
            cache_transceiver_config:
              backend: NIXL
          ctx:
            tensor_parallel_size: 4
            cache_transceiver_config:
              backend: UCX
        """)
    code, doc = run(capsys, "config.yaml")
    assert code == 0 and doc["findings"] == [], doc["findings"]
    assert [l["role"] for l in doc["launches"]] == ["decode"]
    assert doc["coverage"]["files"]["config.yaml"]["status"] == "checked"


def test_strict_makes_coverage_findings_errors(repo, capsys):
    write(repo, "run.sh", "#!/bin/sh\n$LAUNCHER --disaggregation-mode decode\n")
    code, doc = run(capsys, "--strict", ".")
    assert code == 1 and [f["severity"] for f in doc["findings"]] == ["error"]
    code, doc = run(capsys, ".")
    assert code == 0 and [f["severity"] for f in doc["findings"]] == ["warning"]


def test_a_run_with_launch_text_and_no_checked_launch_never_prints_a_bare_zero(repo, capsys):
    write(repo, "run.sh", "#!/bin/sh\n$LAUNCHER --disaggregation-mode decode\n")
    write(repo, "pyproject.toml", "[tool.pdlint]\nignore = [\"PD020\"]\n")
    assert main(["."]) == 0
    out = capsys.readouterr().out
    assert "No launch checked: 1 place with launch text not checked" in out
    assert out.splitlines()[-1] == "Found 0 errors and 0 warnings in 1 file."


def test_a_run_without_launch_text_says_so(repo, capsys):
    write(repo, "app.yaml", "kind: ConfigMap\ndata: {a: sglang}\n")
    assert main(["."]) == 0
    assert "No launch text found in 1 file." in capsys.readouterr().out


def test_template_branch_no_role_renders_is_reported(repo, capsys):
    write(repo, "launch.sh.j2", """
        #!/bin/sh
        {% if role == 'prefill' %}
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill
        {% elif role == 'decode' %}
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode
        {% elif role == 'router' %}
        python3 -m sglang_router.launch_router --pd-disaggregation
        {% endif %}
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("launch.sh.j2", 7, "PD020")]
    assert "no role's render of this template produced it" in doc["findings"][0]["message"]
    assert doc["coverage"]["files"]["launch.sh.j2"]["status"] == "partial"


def test_launch_text_in_a_yaml_structure_pdlint_does_not_know(repo, capsys):
    write(repo, "job.yaml", """
        steps:
          - name: serve
            exec:
              binary: python3
              argv: ["-m", "sglang.launch_server", "--disaggregation-mode", "prefill"]
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("job.yaml", 5, "PD020")]
    assert "a structure pdlint does not recognise" in doc["findings"][0]["message"]


def test_sglang_router_console_scripts_are_launch_text(repo, capsys):
    """`smg launch` / `amg server` (sglang-router's console scripts, beside `sglang-router`) are launchers:
    with no engine flag on the line they were not launch text, and such a line passed silently."""
    write(repo, "job.yaml", """
        steps:
          - name: gateway
            exec:
              argv: ["smg", "launch", "--policy", "round_robin"]
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("job.yaml", 4, "PD020")], doc["findings"]
    assert "`smg`" in doc["findings"][0]["message"], doc["findings"][0]["message"]
    # the words alone, or as part of another name, are not
    write(repo, "job.yaml", """
        steps:
          - name: gateway
            exec:
              argv: ["smg", "--policy", "round_robin", "xsmg launch", "amg-server launch"]
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [], doc["findings"]


def test_kv_transfer_config_as_a_config_key_is_launch_text(repo, capsys):
    """A Dynamo SDK graph config (`dynamo serve graphs.disagg:Frontend -f disagg.yaml`) or a vLLM `--config`
    file sets `kv-transfer-config:` as a key: 'No launch text found' before."""
    write(repo, "disagg.yaml", """
        Common:
          model: deepseek-ai/DeepSeek-R1-Distill-Llama-8B
          kv-transfer-config: '{"kv_connector":"DynamoNixlConnector"}'
        VllmWorker:
          remote-prefill: true
        PrefillWorker:
          max-num-batched-tokens: 16384
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("disagg.yaml", 3, "PD020")], doc["findings"]
    # a longer key that only starts the same is not it
    write(repo, "disagg.yaml", "Common:\n  kv-transfer-config-name: nixl\n  my_kv_transfer_config: x\n")
    code, doc = run(capsys, ".")
    assert codes(doc) == [], doc["findings"]


def test_a_program_pdlint_cannot_see_is_named_with_what_makes_it_checkable(repo, capsys):
    """A launch whose program word is a variable, or partly a command substitution, is PD020 with a hint that
    fits: the hint used to strip `$` and braces off any word ('give (offline_prefix "$m")python its value')."""
    write(repo, "a.sh", """
        #!/bin/bash
        $PY -m sglang.launch_server --model-path /m --disaggregation-mode prefill
        $(offline_prefix "$model_path")python -m sglang.launch_server --model-path /m --disaggregation-mode decode
        ${BIN}python -m sglang.launch_server --model-path /m --disaggregation-mode decode
        """)
    code, doc = run(capsys, ".")
    by_line = {f["line"]: f for f in doc["findings"] if f["code"] == "PD020"}
    assert sorted(by_line) == [2, 3, 4], doc["findings"]
    assert "the command's program is $PY whose value" in by_line[2]["message"]
    assert by_line[2]["fix"].startswith("give PY its value in `[tool.pdlint.vars]`"), by_line[2]["fix"]
    assert "is partly a value pdlint cannot see" in by_line[3]["message"], by_line[3]["message"]
    assert by_line[3]["fix"].endswith("pdlint does not run command substitutions"), by_line[3]["fix"]
    assert by_line[4]["fix"].startswith("give the variables it reads their values"), by_line[4]["fix"]


def test_files_with_errors_are_not_reported_twice(repo, capsys):
    write(repo, "bad.yaml", "args: [--disaggregation-mode, prefill\n")
    code, doc = run(capsys, ".")
    assert [f["code"] for f in doc["findings"]] == ["PD003"]
    assert doc["coverage"]["files"]["bad.yaml"]["status"] == "error"


# -- gaps: PD021 role, PD022 config, PD023 opaque words -----------------------------------------------

def test_unresolved_role_config_and_opaque_words(repo, capsys):
    write(repo, "run.sh", """
        #!/bin/sh
        ROLE=$1
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode $ROLE $EXTRA_ARGS --tp $TP \\
            --config "$CONFIG_DIR/server.yaml"
        """)
    code, doc = run(capsys, ".")
    assert code == 0
    assert codes(doc) == [("run.sh", 2, "PD021"), ("run.sh", 3, "PD023"), ("run.sh", 4, "PD022")]
    by = {f["code"]: f for f in doc["findings"]}
    assert "role-specific checks did not run" in by["PD021"]["message"]
    assert by["PD023"]["message"].startswith("$EXTRA_ARGS stands where flags could be")
    assert by["PD022"]["message"].startswith("--config $CONFIG_DIR/server.yaml is a value pdlint cannot see")
    assert doc["coverage"]["files"]["run.sh"]["status"] == "partial"


def test_gaps_are_quiet_when_the_values_are_known(repo, capsys):
    write(repo, "run.sh", """
        #!/bin/sh
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode $ROLE $EXTRA_ARGS --tp $TP \\
            --config configs/server.yaml
        """)
    write(repo, "configs/server.yaml", "mem-fraction-static: 0.8\n")
    write(repo, "pyproject.toml", """
        [tool.pdlint.vars]
        ROLE = "decode"
        EXTRA_ARGS = "--enable-metrics"
        TP = "2"
        """)
    code, doc = run(capsys, "--strict", ".")
    assert code == 0, doc["findings"]
    (launch,) = doc["launches"]
    assert launch["role"] == "decode" and "--enable-metrics" in launch["argv"] and "0.8" in launch["argv"]
    i = launch["argv"].index("--enable-metrics")
    assert launch["origins"][i]["path"] == "pyproject.toml" and launch["origins"][i]["line"] == 3


def test_var_on_the_command_line_reaches_shell_scripts(repo, capsys):
    write(repo, "run.sh", "#!/bin/sh\npython3 -m sglang.launch_server --model-path /m $EXTRA\n")
    code, doc = run(capsys, ".")
    assert codes(doc) == [("run.sh", 2, "PD023")]
    code, doc = run(capsys, "--var", "EXTRA=--disaggregation-mode prefill --enable-linear-replayssm-spec", ".")
    assert codes(doc) == [] and {f["code"] for f in doc["findings"]} == {"SGL101"}


def test_value_of_a_refused_flag_is_not_an_opaque_gap(repo, capsys):
    write(repo, "run.sh", "#!/bin/sh\npython3 -m sglang.launch_server --model-path /m --no-such-flag $X\n")
    code, doc = run(capsys, ".")
    assert codes(doc) == [] and [f["code"] for f in doc["findings"]] == ["SGL001"]


def test_vllm_serve_model_positional_is_not_an_opaque_gap(repo, capsys):
    write(repo, "run.sh", """
        #!/bin/sh
        vllm serve $MODEL --port 8100 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
        vllm serve $MODEL --port 8200 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == []
    assert doc["coverage"]["prefill"] == 1 and doc["coverage"]["decode"] == 1


@pytest.mark.parametrize("before, gap", [
    ("--trust-remote-code", True),  # store_true: the word after it is no value of it
    ("--no-enable-prefix-caching", True),  # BooleanOptionalAction's negative
    ("--enforce-eager", True),
    ("--max-model-len", False),  # takes a value: $X is that value
    ("--gpu-memory-utilization", False),
])
def test_vllm_opaque_words_after_a_switch_are_places_for_flags(repo, capsys, before, gap):
    """ROCm/cvs vllm_serve_mi300x.sh (field test rw6/c): `--no-enable-prefix-caching "$@"` was read as the
    switch and its value, and the flags "$@" adds went unreported."""
    write(repo, "run.sh", f"""
        #!/bin/sh
        exec vllm serve /m --port 8100 \\
          --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_producer"}}' {before} "$@"
        """)
    code, doc = run(capsys, ".")
    assert codes(doc) == ([("run.sh", 3, "PD023")] if gap else [])


@pytest.mark.parametrize("role, gap", [("kv_both", False), ("kv_producer", False), ("${ROLE}", True)])
def test_a_literal_kv_role_beside_a_variable_in_the_json_is_no_unresolved_role(repo, capsys, role, gap):
    """LMCache examples/serde/fp8/run_serde_fp8_example.sh (field test rw6/b): `"kv_role":"kv_both"` with
    `${HOST_IP}` elsewhere in the JSON was PD021 "the role ... comes from a value pdlint cannot see"."""
    write(repo, "run.sh", """
        #!/bin/bash
        vllm serve Qwen/Qwen3-0.6B --port 8000 --kv-transfer-config \\
          "{\\"kv_connector\\":\\"LMCacheMPConnector\\",\\"kv_role\\":\\"ROLE\\",\\"kv_connector_extra_config\\":{\\"lmcache.mp.host\\":\\"tcp://${HOST_IP}\\"}}"
        """.replace("ROLE", role))
    code, doc = run(capsys, ".")
    assert [c for _, _, c in codes(doc)] == (["PD021"] if gap else [])


def test_trtllm_serve_model_positional_is_not_an_opaque_gap(repo, capsys):
    # NVIDIA/nv-sflow's recipes (field test rw6/f): `trtllm-serve ${{ artifacts.MODEL.path }}` is the model
    write(repo, "run.sh", """
        #!/bin/sh
        trtllm-serve $MODEL --port 8001 --server_role context
        trtllm-serve /m --port 8002 --server_role generation $EXTRA
        """)
    code, doc = run(capsys, ".")
    assert [(line, c) for _, line, c in codes(doc)] == [(3, "PD023")]  # the $EXTRA after the flags only


def test_show_lists_the_unchecked_spots(repo, capsys):
    write(repo, "run.sh", "#!/bin/sh\n./worker.sh --disaggregation-mode decode\n")
    assert main(["show", "run.sh"]) == 0
    out = capsys.readouterr().out
    assert "Launch text not checked:\n  run.sh:2:1: PD020 launch text (engine flag `--disaggregation-mode` on " \
           "line 2) not checked: `./worker.sh` is not a launcher pdlint knows" in out
    assert out.rstrip().endswith("0 launches in 1 file, 0 prefill/decode pairs, 1 place with launch text not checked.")
    assert main(["show", "--format", "json", "run.sh"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["coverage"]["files"]["run.sh"]["unchecked"][0]["code"] == "PD020"


def test_explicit_launch_gaps_from_adapters(repo, capsys, monkeypatch):
    """Format adapters can put a Gap on a launch; it is reported at its token."""
    from pdlint import extract
    from pdlint.model import Gap
    write(repo, "run.sh", GOOD)
    real = extract.Extractor.add_launch

    def add(self, launch):
        launch.gaps.append(Gap("PD022", launch.command[0], "a mounted config file was not found", "hint"))
        real(self, launch)

    monkeypatch.setattr(extract.Extractor, "add_launch", add)
    code, doc = run(capsys, ".")
    assert codes(doc) == [("run.sh", 2, "PD022"), ("run.sh", 3, "PD022")]


def _markers_line_by_line(text: str) -> list:
    """find_markers as it was written first: every line searched (the reference for the literal prefilter)."""
    from pdlint import coverage as cov
    if "{#" in text:
        text = cov._sub_before(cov._JINJA_COMMENT, text, text.rfind("#}") + 2)
    if "/*" in text and "{{" in text:
        last = -1
        for m in cov._GO_CLOSE.finditer(text):
            last = m.end()
        text = cov._sub_before(cov._GO_COMMENT, text, last)
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if not cov.MARKER.search(line):
            continue
        code = cov._strip_line_comment(line)
        if cov._prose(code):
            continue
        for m in cov.MARKER.finditer(code):
            out.append(cov.Marker(n, m.start() + 1, m.group(0).rstrip(":= \t\"'\\"), m.lastgroup or "flag"))
    # (a CLI as block-list items spans two lines: its own search over the whole text)
    return sorted(out + cov._block_list_markers(text, frozenset()), key=lambda mk: (mk.line, mk.column))


def test_marker_prefilter_finds_what_every_line_search_finds():
    """find_markers searches only the lines holding one of its literals: the same markers as searching
    every line, for each form of marker and for every file of the test data."""
    from pathlib import Path
    forms = ["python3 -m sglang.launch_server --port 1", "sglang   serve m", "python -m dynamo.sglang",
             "python -m dynamo.frontend", "vllm serve m", "python -m vllm.entrypoints.openai.api_server",
             "trtllm-serve m", "python -m sglang_router.launch_router", "sglang-router --x",
             "disaggregation.mini_lb --x", "disaggregation.launch_lb", "python3 -m sglang.srt.disaggregation.mini_lb",
             "python3 -m sgl_pdlb.launch_lb --prefill http://p:1",
             "python -m sglang_router launch --pd-disaggregation", "x --disaggregation-mode prefill",
             "--kv_transfer_config '{}'", "\"--kv-transfer-config={\\\"kv_role\\\":\\\"kv_producer\\\"}\"",
             "--kv-transfer-config '{}'", "--is-prefill-worker", "--is-decode-worker", "--disagg-config c.yaml",
             "disaggregation_mode: prefill", "disaggregation-mode = decode", "'kv_role': 'kv_producer'",
             "\"kv_role\" : x", "context_servers:", "generation_servers :"]
    for f in forms:
        text = f"a: 1\n{f}\n# {f}\n  - {f}   # {f}\n"
        assert find_markers(text) == _markers_line_by_line(text), f
        assert find_markers(text), f
    text = "kv_role\n: on the next line\ndisaggregation-mode\n=x\n"  # a key's ":" on the next line: no marker
    assert find_markers(text) == _markers_line_by_line(text) == []
    root = Path(__file__).resolve().parents[1]
    n = 0
    for p in sorted(list((root / "tests" / "data").rglob("*")) + list((root / "fixtures").rglob("*"))):
        if p.is_file() and p.stat().st_size < 1_000_000:
            text = p.read_bytes().decode("utf-8", "replace")
            assert find_markers(text) == _markers_line_by_line(text), p
            n += bool(find_markers(text))
    assert n > 50


@pytest.mark.parametrize("text", [
    "python -m sglang.launch_server", "sglang serve", "python -m dynamo.frontend", "vllm serve M",
    "python -m vllm.entrypoints.openai.api_server", "trtllm-serve M", "sglang-router launch", "smg launch",
    "amg server", "python -m sglang.srt.disaggregation.mini_lb", "--disaggregation-mode prefill",
    "--kv-transfer-config x", "--kv_transfer_config x", "--is-prefill-worker", "--is-decode-worker",
    "--disagg-config c.yaml", "--pd-disaggregation", "disaggregation_mode: prefill",
    "kv-transfer-config: x", 'x = {"kv_role": "kv_producer"}', "context_servers:\n  a: b",
    "generation_servers:\n  a: b"])
def test_every_kind_of_launch_text_passes_the_read_prefilter(text):
    """discover.worth_parsing decides which files are read at all: a file whose launch text coverage finds
    but which is never read got PD020 'a structure pdlint does not recognise' and lost its own errors (an
    invalid vLLM --config file had no PD003)."""
    from pdlint.coverage import find_markers
    from pdlint.discover import worth_parsing
    assert find_markers(text), text  # it is launch text
    assert worth_parsing("yaml", text.encode()) and worth_parsing("shell", text.encode()), text


def test_an_invalid_config_file_of_launch_text_is_reported_as_such(repo, capsys):
    write(repo, "run.sh", "vllm serve M --config bad.yaml --port 8005\n")
    write(repo, "bad.yaml", "kv-transfer-config: {a: [1, 2\n")
    code, doc = run(capsys, ".")
    assert {(f["path"], f["code"]) for f in doc["findings"]} == {("bad.yaml", "PD003"), ("run.sh", "PD022")}, \
        doc["findings"]


def test_one_unrecognised_command_over_many_lines_is_one_finding(scratch_git):
    """A launcher on line 5 and its flags on lines 7-8, all inside the `-c` script of one command pdlint does not
    know (rw10/c: an AWS recipe's `docker run --entrypoint bash IMAGE -c "..."` before pdlint followed it): two
    PD020s, the launcher's with the generic reason, because only the lines where a piece of a word starts were
    the command's."""
    scratch_git.write("serve.sh", """\
        #!/usr/bin/env bash
        ROLE=${1:?need ROLE: prefill | decode}
        mystery run -d --name "r1-pd-$ROLE" \\
            --entry /opt/start img:v0.5.9 -c "
                python3 -m sglang.launch_server \\
                    --model-path deepseek-ai/DeepSeek-R1 --tp-size 16 \\
                    --disaggregation-mode ${ROLE} \\
                    --disaggregation-transfer-backend mooncake
            "
        """)
    _, report = scratch_git.lint("serve.sh")
    (f,) = report["findings"]
    assert (f["code"], f["line"]) == ("PD020", 3)
    assert "`sglang.launch_server` with engine flags" in f["message"] and "lines 5-8" in f["message"]
    assert "`mystery` is not a launcher pdlint knows" in f["message"]


BRANCH_NOT_TAKEN = """\
    #!/bin/bash
    NODE_PREFILL=${{NODE_PREFILL:-a100-04}}
    NODE_DECODE=${{NODE_DECODE:-a100-02}}
    if [ "$NODE_PREFILL" = "$NODE_DECODE" ]; then
      nohup vllm serve Qwen/Qwen3-8B{join}
        --host 0.0.0.0 \\
        --tensor-parallel-size 2 \\
        --port 8100 \\
        --gpu-memory-utilization 0.85 \\
        --kv-transfer-config '{{"kv_connector": "NixlConnector", "kv_role": "kv_producer"}}' &
    fi
    """


def test_a_backslash_continued_command_not_taken_is_one_finding(scratch_git):
    """Field round rw32/a item 2 (bandham-manikanta/vllm-pd-disaggregation-study's launch_disagg_2p2d.sh): the
    `vllm serve` of a branch not taken and its `--kv-transfer-config` five continued lines below were two PD020s
    (markers more than two lines apart were two places); one command, one finding."""
    scratch_git.write("launch.sh", BRANCH_NOT_TAKEN.format(join=" \\"))
    _, report = scratch_git.lint("launch.sh")
    got = [(f["code"], f["line"]) for f in report["findings"]]
    assert got == [("PD020", 5)]
    assert "`vllm serve` with engine flags `--kv-transfer-config`, `kv_role` on lines 5-10" in \
        report["findings"][0]["message"]


def test_lines_no_backslash_joins_stay_two_places(scratch_git):
    """Without the continuation the flags are another command's line: two places, as before."""
    scratch_git.write("launch.sh", BRANCH_NOT_TAKEN.format(join=""))
    _, report = scratch_git.lint("launch.sh")
    assert [(f["code"], f["line"]) for f in report["findings"] if f["code"] == "PD020"] == [("PD020", 5),
                                                                                          ("PD020", 10)]
