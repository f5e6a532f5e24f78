"""Shell correctness met in real scripts (issue 8 item 3): empty arrays,
``printf -v CMD '%q '`` + ``bash -lc "exec $CMD"``, a role taken from ``$1``,
and the line a launch is reported at.

Real scripts: ``tests/data/shell-real/`` (origin in its ORIGIN.md files) and
the corpus copies under ``tests/data/corpus``; the small inline scripts
reproduce one shape each."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from pdlint.cli import main
from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr

DATA = Path(__file__).parent / "data"
FLIP = DATA / "shell-real" / "sglang-pd-flip-docker"
CORPUS = DATA / "corpus"


def commands(text: str, path: str = "launch.sh", **kw):
    ctx = ShellContext(lambda p, c: None, lambda *a: None)
    return shell_commands(TStr.from_source(SourceFile(path, text)), ctx, **kw), ctx


def argvs(cmds) -> list:
    return [[w.text for w in c.words] for c in cmds]


def show_json(capsys, *args) -> dict:
    import json
    assert main(["show", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def check(capsys, *args):
    code = main(list(args))
    return code, capsys.readouterr().out


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


# -- "${EMPTY[@]}" is zero words -------------------------------------------------------------

def test_quoted_empty_array_is_no_word():
    cmds, _ = commands('A=()\nB=(x "y z")\n'
                       'run "${A[@]}" "x${A[@]}" "${A[*]}" "$@" "${A[@]:0}" ""${A[@]} "${B[@]}" end\n',
                       positional=[])
    assert argvs(cmds) == [["run", "x", "", "", "x", "y z", "end"]]


def test_quoted_empty_array_agrees_with_bash():
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = 'A=()\nB=(x "y z")\nprintf "<%s>" "${A[@]}" "x${A[@]}" "${A[*]}" "$@" ""${A[@]} "${B[@]}"\n'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True).stdout
    cmds, _ = commands(script.replace('printf "<%s>"', "run"), positional=[])
    assert "".join(f"<{w}>" for w in argvs(cmds)[0][1:]) == out


def test_empty_extra_args_array_is_no_false_sgl(repo, capsys):
    """Today's false SGL006/SGL011: an empty `"${EXTRA[@]}"` was an empty argument."""
    write(repo, "prefill.sh", """\
        #!/bin/bash
        EXTRA=()
        if [ -n "$DEBUG" ]; then EXTRA+=(--log-level debug); fi
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "${EXTRA[@]}" --port 30000
        """)
    data = show_json(capsys, "prefill.sh")
    assert sorted(l["argv"] for l in data["launches"]) == sorted([
        ["--model-path", "/m", "--disaggregation-mode", "prefill", "--port", "30000"],
        ["--model-path", "/m", "--disaggregation-mode", "prefill", "--log-level", "debug", "--port", "30000"]])
    code, out = check(capsys, "prefill.sh")
    assert code == 0 and "SGL0" not in out, out


# -- printf %q and bash -lc "exec $cmd": one launch ------------------------------------------

def test_printf_q_quotes_like_bash_and_reads_back_as_the_same_words():
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = ("ARGS=(python3 -m x --a 'two words' --b \"it's\" --c '' --d 'a|b;c' --e '$HOME' --f 'x*')\n"
              "printf -v cmd '%q ' \"${ARGS[@]}\"\n")
    out = subprocess.run(["bash", "-c", script + 'printf "%s" "$cmd"'], capture_output=True, text=True).stdout
    cmds, _ = commands(script + 'echo "$cmd"\nbash -lc "exec $cmd"\n')
    quoted = [c for c in cmds if c.words[0].text == "echo"][0].words[1].text
    assert quoted == out  # the quoting bash's printf %q produces
    inner = [c for c in cmds if c.words[0].text == "exec"]
    assert argvs(inner) == [["exec", "python3", "-m", "x", "--a", "two words", "--b", "it's", "--c", "",
                             "--d", "a|b;c", "--e", "$HOME", "--f", "x*"]]
    # every character of the re-read words comes from where it is written
    word = inner[0].words[5]
    assert (word.origin.line, word.origin.column) == (1, 25)


def test_printf_q_keeps_an_unknown_value_one_opaque_word():
    cmds, _ = commands('ROLE="${1:?usage: $0 prefill|decode}"\n'
                       'A=(python3 -m sglang.launch_server --disaggregation-mode "$ROLE" --port 1)\n'
                       "printf -v cmd '%q ' \"${A[@]}\"\n"
                       'bash -lc "exec $cmd"\n')
    inner = [c for c in cmds if c.words[0].text == "exec"]
    assert len(inner) == 1
    words = inner[0].words
    assert [w.text for w in words][5:] == ["${1:?usage: $0 prefill|decode}", "--port", "1"]
    assert words[5].opaque


def test_bash_c_in_a_script_is_one_launch(repo, capsys):
    write(repo, "serve.sh", """\
        #!/bin/bash
        docker run --rm -e SGLANG_X=1 img bash -lc "python3 -m sglang.launch_server --model-path /m --tp 2"
        srun -N1 bash -l -c "python3 -m sglang.launch_server --model-path /m --tp 4"
        """)
    data = show_json(capsys, "serve.sh")
    assert [(l["line"], l["argv"][-1]) for l in data["launches"]] == [(2, "2"), (3, "4")]


def test_docker_env_reaches_the_nested_shell():
    cmds, _ = commands('docker run -e ROLE=decode img bash -c \'python3 -m sglang.launch_server '
                       '--disaggregation-mode "$ROLE"\'\n')
    inner = [c for c in cmds if c.words[0].text == "python3"]
    assert argvs(inner)[0][-1] == "decode"


# -- a role taken from $1 ----------------------------------------------------------------------

def test_run_worker_role_values_compared_by_the_script(tmp_path, monkeypatch, capsys):
    """sgl-project/sglang pd_flip_docker/run_worker.sh: ROLE=${1:?...} checked with
    [[ $ROLE != prefill && $ROLE != decode ]] -> one launch per role, through
    printf %q and `docker run ... bash -lc`, not five launches of unknown role."""
    for f in FLIP.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.chdir(tmp_path)
    data = show_json(capsys, "run_worker.sh")
    launches = data["launches"]
    assert [l["role"] for l in launches] == ["prefill", "decode"]
    for launch, role in zip(launches, ("prefill", "decode")):
        assert launch["argv"] == [
            "--model-path", "/models/your-model", "--host", "${2:?usage: run_worker.sh prefill|decode "
            "<local-bind-ip-or-0.0.0.0>}", "--port", "30000", "--tp", "8", "--dp", "1", "--enable-dp-attention",
            "--disaggregation-mode", role, "--disaggregation-transfer-backend", "mooncake",
            "--disaggregation-bootstrap-port", "8998", "--disaggregation-ib-device", "mlx5_0",
            "--mem-fraction-static", "0.9", "--enable-pd-flip-state-machine", "--enable-pd-runtime-role-switch",
            "--enable-pd-flip-hicache-stitch", "--disaggregation-decode-enable-radix-cache",
            "--enable-hierarchical-cache", "--hicache-storage-backend", "mooncake"]
        assert f"run as `run_worker.sh {role}`" in launch["context"]
        mode = launch["origins"][launch["argv"].index(role)]
        assert (mode["path"], mode["line"]) == ("run_worker.sh", 10)  # the literal the script compares
        assert [h["note"] for h in mode["via"]][-1] == "$1"
    assert len(data["pairs"]) == 1
    code, out = check(capsys, "--sglang-version", "0.5.23", "run_worker.sh")
    assert "PD021" not in out and "PD020" not in out and "SGL011" not in out, out


def test_case_values_of_the_first_argument_each_render():
    cmds, ctx = commands('case "$1" in\n  "prefill"|p) X=1 ;;\n  decode) X=2 ;;\n  *prefill*) ;;\nesac\n'
                         'python3 -m sglang.launch_server --disaggregation-mode "$1"\n')
    assert list(ctx.arg_values) == ["prefill", "p", "decode"]  # globs are no values
    assert (ctx.arg_values["p"].origin.line, ctx.arg_values["p"].origin.column) == (2, 13)
    bound, _ = commands('ROLE=${1:-prefill}\npython3 -m sglang.launch_server --disaggregation-mode "$ROLE"\n',
                        bound={1: TStr.synthetic("decode", "<test>")})
    assert argvs(bound)[0][-1] == "decode"


def test_role_from_first_argument_passed_by_callers(repo, capsys):
    """No comparison in the script: the callers in the repository (a script and
    a Pod's command list) give the values, located at the caller's word."""
    write(repo, "scripts/serve.sh", """\
        #!/bin/bash
        ROLE=$1
        CUDA_VISIBLE_DEVICES=0 \\
          python3 -m sglang.launch_server --model-path /m \\
          --disaggregation-mode $ROLE --port 30000
        """)
    write(repo, "start.sh", """\
        #!/bin/bash
        echo "usage: serve.sh prefill|decode"
        ./scripts/serve.sh prefill &
        """)
    write(repo, "k8s/pod.yaml", """\
        apiVersion: v1
        kind: Pod
        spec:
          containers:
          - name: d
            command: ["bash", "/app/serve.sh", "decode"]
        """)
    data = show_json(capsys, "scripts/serve.sh")
    got = [(l["role"], l["line"], l["origins"][l["argv"].index(l["role"])]) for l in data["launches"]]
    assert [(r, line, (o["path"], o["line"])) for r, line, o in got] == [
        ("prefill", 3, ("start.sh", 3)), ("decode", 3, ("k8s/pod.yaml", 6))]
    code, out = check(capsys, "scripts/serve.sh")
    assert "PD021" not in out, out


def test_role_from_first_argument_without_values_is_a_coverage_gap(repo, capsys):
    write(repo, "serve.sh", """\
        #!/bin/bash
        echo "usage: $0 prefill|decode"
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode "${1:?role}"
        """)
    code, out = check(capsys, "--strict", "serve.sh")
    assert code == 1
    assert "serve.sh:3:" in out and "PD021" in out and "the script's first argument" in out, out
    assert "case \"$1\" in prefill|decode" in out


# a `case "${1:-all}" in prefill) start_prefill ;; decode) start_decode ;;` dispatcher (the shape of a
# public run_disagg_test.sh for 2x B200: search index id 42867829453, repository not named by the index)
DISPATCH = """\
    #!/bin/bash
    start_prefill() {
        python -m sglang.launch_server --model-path /m --port 30000 --disaggregation-mode prefill &
    }
    start_decode() {
        python -m sglang.launch_server --model-path /m --port 30001 --disaggregation-mode decode &
    }
    start_router() {
        python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 \\
            --decode http://127.0.0.1:30001 &
    }
    case "${1:-all}" in
        prefill) start_prefill ;;
        decode) start_decode ;;
        router) start_router ;;
        all) start_prefill; start_decode; start_router ;;
    esac
    """


def test_a_function_the_run_does_not_call_takes_no_role_from_the_run(repo, capsys):
    """Run as `run.sh decode`, start_prefill is never called: its launch, found only by
    evaluating the uncalled function, is not the decode server (it was PD101 'run as
    `run.sh decode` makes this the decode server'), and is not counted twice."""
    write(repo, "run.sh", DISPATCH)
    data = show_json(capsys, "run.sh")
    assert [(l["role"], l["line"]) for l in data["launches"]] == [("prefill", 3), ("decode", 6), (None, 9)]
    assert "run as `run.sh prefill`" in data["launches"][0]["context"]
    code, out = check(capsys, "run.sh")
    assert code == 0 and "PD101" not in out, out


# whn09/LongCat-2.0-SGLang-EFA setup/skills/www/scripts/launch-2p2d.sh, cut down: one script per node,
# `launch-2p2d.sh prefill|decode|router`, the router's arm reached only with `router` as $1
CASE_ROUTER = """\
    #!/bin/bash
    set -e
    ROLE=${1:?usage: $0 <prefill|decode|router> <node_rank> <master_ip>}
    MODEL_PATH="${MODEL_PATH:-/models/DeepSeek-R1}"
    case "$ROLE" in
      prefill)
        exec python3 -m sglang.launch_server --model-path "$MODEL_PATH" --disaggregation-mode prefill --port 30000
        ;;
      decode)
        exec python3 -m sglang.launch_server --model-path "$MODEL_PATH" --disaggregation-mode decode --port 30001
        ;;
      router)
        : "${PREFILL_ADDR:?router needs PREFILL_ADDR}"
        exec python3 -m sglang_router.launch_router --pd-disaggregation \\
          --prefill "http://${PREFILL_ADDR}:30000" --decode "http://${DECODE_ADDR}:DECODE_PORT"
        ;;
    esac
    """


def test_a_case_arm_that_starts_the_router_is_run_too(repo, capsys):
    """The router's arm was never run (the script was run only as `prefill` and `decode`): PD020 on a
    router pdlint could check.  Its literal is a value to run the script with, as the role names are."""
    write(repo, "launch-2p2d.sh", CASE_ROUTER.replace("DECODE_PORT", "30001"))
    data = show_json(capsys, "launch-2p2d.sh")
    assert [(l["role"], l["line"]) for l in data["launches"]] == [("prefill", 7), ("decode", 10), (None, 14)]
    assert "run as `launch-2p2d.sh router`" in data["launches"][2]["context"]
    code, out = check(capsys, "launch-2p2d.sh")
    assert code == 0 and "PD020" not in out and "0 places with launch text not checked" in out, out


def test_the_router_arm_is_checked_against_the_role_arms(repo, capsys):
    """Checked, the router's decode URL names a port no decode listens on (PD154)."""
    write(repo, "launch-2p2d.sh", CASE_ROUTER.replace("DECODE_PORT", "30002"))
    code, out = check(capsys, "launch-2p2d.sh")
    assert code == 1 and "launch-2p2d.sh:15:" in out and "PD154" in out, out


def test_a_function_each_run_calls_still_takes_the_run_role(repo, capsys):
    write(repo, "run.sh", """\
        #!/bin/bash
        start() {
            python -m sglang.launch_server --model-path /m --disaggregation-mode prefill &
        }
        case "$1" in
            prefill) start ;;
            decode) start ;;
        esac
        """)
    code, out = check(capsys, "run.sh")
    assert code == 1 and out.count("PD101") == 1 and "makes this the decode server" in out, out


# the option-parsing shape of sgl-project/sglang benchmark/hicache/run_pd_disagg_bench_dp8ep8.sh (40c73cab):
# `--role prefill|decode` read by a `while [[ $# -gt 0 ]]` loop, the script stops without it
ROLE_OPTION = """\
    #!/bin/bash
    PD_ROLE=""
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --role) PD_ROLE="$2"; shift 2 ;;
            *) echo "Unknown option: $1"; exit 1 ;;
        esac
    done
    if [[ -z "$PD_ROLE" ]]; then
        echo "ERROR: --role is required (prefill or decode)"; exit 1
    fi
    launch() {
        python -m sglang.launch_server --model-path /m --port "$2" --disaggregation-mode "$1"
    }
    if [[ "$PD_ROLE" == "prefill" ]]; then
        launch prefill 30000 &
    fi
    if [[ "$PD_ROLE" == "decode" ]]; then
        launch decode 30001 &
    fi
    """


def test_a_script_that_needs_an_option_is_run_with_one(repo, capsys):
    """Run without options it stops (`--role is required`): it was 'No launch checked' (two PD020)."""
    write(repo, "run.sh", ROLE_OPTION)
    data = show_json(capsys, "run.sh")
    assert [(l["role"], l["argv"][3]) for l in data["launches"]] == [("prefill", "30000"), ("decode", "30001")]
    code, out = check(capsys, "run.sh")
    assert code == 0 and "PD020" not in out, out


def test_a_script_that_launches_without_options_keeps_its_defaults(repo, capsys):
    # the usual case (ai-dynamo/dynamo launch scripts: `--tp) TP=$2`): still one launch, with the default
    write(repo, "run.sh", ROLE_OPTION.replace('PD_ROLE=""', 'PD_ROLE="prefill"').replace("--role)", "--tp)"))
    data = show_json(capsys, "run.sh")
    assert [(l["role"], l["argv"][3]) for l in data["launches"]] == [("prefill", "30000")]


# -- the launch line is where its command starts -----------------------------------------------

def test_launch_line_includes_the_environment_prefix(capsys):
    """vllm-project/vllm lmcache disagg_vllm_launcher.sh: `UCX_TLS=... \\` then
    eight continuation lines before `vllm serve`; the Justfile recipe of
    tlrmchlsmth/pd_examples likewise."""
    launcher = CORPUS / "vllm-project__vllm" / \
        "examples__others__lmcache__disagg_prefill_lmcache_v1__disagg_vllm_launcher.sh"
    lines = launcher.read_text().splitlines()
    data = show_json(capsys, str(launcher))
    for launch in data["launches"]:
        assert lines[launch["line"] - 1].strip().startswith("UCX_TLS="), launch["line"]
    just = DATA / "shell-real" / "tlrmchlsmth-pd_examples" / "Justfile"
    jl = just.read_text().splitlines()
    for launch in show_json(capsys, str(just))["launches"]:
        assert jl[launch["line"] - 1].strip().startswith("UCX_LOG_LEVEL="), launch


def test_launch_line_of_a_command_built_elsewhere_stays_at_its_entry_point(repo, capsys):
    write(repo, "p.sh", """\
        #!/bin/bash
        CMD="python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill"
        FOO=1 \\
          eval $CMD
        """)
    data = show_json(capsys, "p.sh")
    assert [l["line"] for l in data["launches"]] == [2]


# -- a placeholder carried into eval'd text is not expanded again -------------------------------

MOONCAKE_RUN_CMD = """\
    #!/bin/bash
    run_cmd() {
        local full_cmd="$1"
        eval "$full_cmd"
    }

    start_server() {
        local model_path=$1
        local cmd="python -m sglang.launch_server --model-path ${model_path} --disaggregation-mode prefill --port 30000"
        run_cmd "$cmd"
    }
    """


def test_positional_of_an_uncalled_function_is_not_read_in_the_callee(repo, capsys):
    """kvcache-ai/Mooncake scripts/tone_tests/scripts/common.sh:1087-1115: the
    unknown `$1` of start_server went into `cmd` as the placeholder text `$1`,
    and run_cmd's `eval` expanded that text again in run_cmd's frame -- the
    whole command became the --model-path value (false SGL001/SGL007)."""
    write(repo, "common.sh", MOONCAKE_RUN_CMD)
    data = show_json(capsys, "common.sh")
    [launch] = data["launches"]
    assert launch["argv"] == ["--model-path", "$1", "--disaggregation-mode", "prefill",
                              "--port", "30000"], launch["argv"]
    assert launch["origins"][1]["line"] == 8  # the opaque value is start_server's own `$1`
    code, out = check(capsys, "common.sh")
    assert "SGL001" not in out and "SGL007" not in out, out


def test_positional_of_a_called_function_is_its_own_argument():
    cmds, _ = commands(textwrap.dedent(MOONCAKE_RUN_CMD) + "start_server /models/q\n")
    assert argvs(cmds) == [
        ["python", "-m", "sglang.launch_server", "--model-path", "/models/q",
         "--disaggregation-mode", "prefill", "--port", "30000"]]
    # unknown script arguments read at the top level and eval'd inside a function
    cmds, ctx = commands('run() { eval "$1"; }\nrun "serve --a $1 --b ${2} --c $@"\n')
    assert argvs(cmds) == [["serve", "--a", "$1", "--b", "${2}", "--c", "$@"]]
    # the same through `bash -c "$cmd"` and with `$@` forwarded
    cmds, _ = commands('f() { local m=$1; g "serve --model $m"; }\n'
                       'g() { bash -c "$@"; eval "$*"; }\n')
    assert [w for w in argvs(cmds) if w[0] == "serve"] == [["serve", "--model", "$1"]] * 2


# -- a `\\` continuing the last line into the end of the file ------------------------------------

def test_a_final_continuation_ends_the_script_without_a_syntax_error(repo, capsys):
    """shun8686/sglang test/manual/ascend/deepseekr1_router.sh (106427bf) ends in
    `> $logfile 2>&1 & \\`: bash runs it (`bash -n` passes); tree-sitter-bash
    reported PD009 'cannot parse'."""
    write(repo, "router.sh", """\
        nohup \\
        python -u -m sglang_router.launch_router \\
            --pd-disaggregation \\
            --prefill http://192.168.0.184:8000 8995\\
            --decode http://192.168.0.60:8000 \\
        > $logfile 2>&1 & \\
        """)
    code, out = check(capsys, "router.sh")
    assert code == 0 and "PD009" not in out and "1 router" in out, out
    cmds, _ = commands("echo a \\\n\n  \n")
    assert argvs(cmds) == [["echo", "a"]]


def test_a_final_escaped_backslash_or_a_broken_line_is_still_reported(repo, capsys):
    cmds, _ = commands("echo a \\\\\n")  # `echo a \\`: an escaped backslash, one argument
    assert argvs(cmds) == [["echo", "a", "\\"]]
    write(repo, "bad.sh", "python -m sglang.launch_server --model-path /m ) \\\n")
    code, out = check(capsys, "bad.sh")
    assert "PD009" in out, out


# -- a here-string after a file redirection (tree-sitter-bash 0.25 reads `<<` + `<"$x"`) -----------

def test_a_herestring_after_a_redirection_is_not_a_syntax_error(repo, capsys):
    """highopes/pd-disaggregation-demo phase2/scripts/validate-kvbm.sh: `jq -e '...' >/dev/null <<<"$spec"`
    (valid bash, `bash -n` passes) was PD009 "cannot parse '<<'" (field test rw6/c)."""
    write(repo, "validate.sh", """\
        #!/bin/bash
        spec=$(kubectl get dgd x -o json)
        jq -e '.spec.services.prefill' >/dev/null <<<"$spec" || echo "no prefill"
        cat 2>/dev/null <<< "$spec"
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill \\
          --disaggregation-transfer-backend fake
        """)
    code, out = check(capsys, "validate.sh")
    assert "PD009" not in out and "SGL104" in out, out
    # a stray `<<` elsewhere is still reported
    write(repo, "bad.sh", "cat << <\n")
    code, out = check(capsys, "bad.sh")
    assert "PD009" in out, out


def test_a_semicolon_in_a_default_is_not_a_syntax_error(repo, capsys):
    """LMCache .github/scripts/build_rocm_wheel.sh: `"${PYTORCH_ROCM_ARCH:-gfx942;gfx950}"` (valid bash) was
    PD009 (field test rw6/b); the default is the whole word."""
    cmds, _ = commands('A="${ARCH:-gfx942;gfx950}"\necho "$A" "${B:-x;y}z" "${C:-a|b}"\n')
    assert argvs(cmds) == [["echo", "gfx942;gfx950", "x;yz", "a|b"]]
    write(repo, "build.sh", 'A="${ARCH:-gfx942;gfx950}"\nB="${GREP:-FATAL|Traceback}"\n'
                            'vllm serve m --served-model-name "$A"\n')
    code, out = check(capsys, "build.sh")
    assert "PD009" not in out, out
    write(repo, "bad.sh", 'echo "${A:-x;y"\nvllm serve m\n')  # unclosed: still an error
    code, out = check(capsys, "bad.sh")
    assert "PD009" in out, out


# -- `${a.b}` template placeholders: a bad substitution keeps the words after it ---------------

def test_bad_substitution_keeps_the_following_flag(repo, capsys):
    """llm-d/llm-d-benchmark config/scenarios/guides/pd-disaggregation.yaml:332-334,
    :423-425: after `${accelerator.extraArgs} \\` tree-sitter's error recovery
    swallowed the `--` of the next flag (`port 30001`: false SGL011/VLLM018)."""
    write(repo, "sglang_run.sh", """\
        #!/bin/bash
        python3 -m sglang.launch_server --model-path /models/qwen \\
          --disaggregation-mode decode \\
          ${accelerator.extraArgs} \\
          --port 30001
        """)
    write(repo, "vllm_run.sh", """\
        #!/bin/bash
        vllm serve /models/qwen \\
          --port 8000 \\
          ${accelerator.dtypeArgs} \\
          ${accelerator.executionArgs} \\
          --no-disable-hybrid-kv-cache-manager
        """)
    data = show_json(capsys, "sglang_run.sh", "vllm_run.sh")
    argv = {l["path"]: l["argv"] for l in data["launches"]}
    assert argv["sglang_run.sh"][-3:] == ["${accelerator.extraArgs}", "--port", "30001"], argv
    assert argv["vllm_run.sh"][-3:] == ["${accelerator.dtypeArgs}", "${accelerator.executionArgs}",
                                        "--no-disable-hybrid-kv-cache-manager"], argv
    code, out = check(capsys, "sglang_run.sh", "vllm_run.sh")
    assert "SGL011" not in out and "VLLM018" not in out, out
    assert out.count("PD009") == 3 and "bad substitution '${accelerator.extraArgs}'" in out, out
    assert out.count("PD023") == 3, out  # each placeholder is an opaque-arguments gap


def test_a_dollar_too_many_is_a_bad_substitution_not_a_made_up_argv(repo, capsys):
    """billishyahao/sglang_disagg's sglang_disagg_server.sh (field round rw28/a P4): `--nnodes ${$NODES} --node-rank
    0` - bash stops that command with "bad substitution"; tree-sitter's error recovery swallowed the `--` of
    `--node-rank` (argv `--nnodes node-rank 0`: a false SGL005 and SGL011)."""
    write(repo, "run.sh", """\
        #!/bin/bash
        NODES=2
        CMD="python3 -m sglang.launch_server --model-path /models/x --disaggregation-mode prefill --port 8000"
        if [ "$NODES" -gt 1 ]; then
            CMD="$CMD --dist-init-addr 10.0.0.1:5000 --nnodes ${$NODES} --node-rank 0"
        fi
        eval "$CMD"
        """)
    data = show_json(capsys, "run.sh")
    assert data["launches"][0]["argv"][-4:] == ["--nnodes", "${$NODES}", "--node-rank", "0"]
    code, out = check(capsys, "run.sh")
    assert "SGL005" not in out and "SGL011" not in out, out
    assert "run.sh:5:55: PD009" in out and "bad substitution '${$NODES}'" in out and "did you mean '${NODES}'" in out
    # `${$}` (the shell's PID) and `$$` are good bash
    write(repo, "ok.sh", 'echo "${$}" $$ "${#}"\npython3 -m sglang.launch_server --model-path /m --port 30000\n')
    assert "PD009" not in check(capsys, "ok.sh")[1]


#: `${$...}` words bash refuses ("bad substitution", the command not run; `bash file.sh` with PATH emptied, bash
#: 5.2) -> what the did-you-mean says
DOLLAR_BAD = {"${$NAME:-2}": "${NAME:-2}", "${$1}": "${1}", "${$$}": "${$}", "${$@}": "${@}", "${$!}": "${!}",
              "${!$}": "${!}", "${$@X}": "${@X}", "${$*}": "${*}", "${$[0]}": "${[0]}", "${$:}": "${:}",
              "${!$:-x}": "${!:-x}"}
#: `${$...}` words bash reads as `$$` (the shell's pid, an int) with an operator: it runs the command
DOLLAR_GOOD = ["${$}", "${$-}", "${$#}", "${$?}", "${$:-2}", "${$-2}", "${$%x}", "${$##}", "${$@Q}", "${$?x}"]


@pytest.mark.parametrize("word", sorted(DOLLAR_BAD))
def test_every_dollar_too_many_bash_refuses_is_a_bad_substitution(repo, capsys, word):
    """Field report rw29/h P9: 2834ac7 covered `${$NAME}` only: `--tp-size ${$NAME:-2} --port 3000` (and `${$1}`,
    `${$$}`, `${$@}`) kept tree-sitter's made-up argv (SGL005 "invalid int value: 'port'" + SGL011 "unrecognized
    arguments: 3000"), and `${$!}` / `${!$}` (which tree-sitter reads without an error) passed. bash: "line 2:
    ${$NAME:-2}: bad substitution"."""
    write(repo, "run.sh", f"#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --disaggregation-mode "
                          f"prefill --tp-size {word} --port 3000\n")
    code, out = check(capsys, "run.sh")
    assert "SGL" not in out, out
    assert "run.sh:2:89: PD009" in out and f"bad substitution {word!r}" in out, out
    assert f"did you mean {DOLLAR_BAD[word]!r}" in out, out
    assert "--var NAME" not in out  # (no variable gives `${$NAME:-2}` a value)
    assert show_json(capsys, "run.sh")["launches"][0]["argv"][-3:] == [word, "--port", "3000"]


@pytest.mark.parametrize("word", DOLLAR_GOOD)
def test_what_bash_reads_as_the_pid_is_no_bad_substitution(repo, capsys, word):
    """`${$-}` is `$$` with an empty default (`bash -c 'echo ${$-}'` prints the pid): it was read as empty (a
    variable pdlint cannot see counts as unset), --tp-size lost its value: a false SGL003 (rw29/h P9)."""
    write(repo, "run.sh", f"#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --disaggregation-mode "
                          f"prefill --tp-size {word} --port 3000\n")
    code, out = check(capsys, "run.sh")
    assert code == 0 and "PD009" not in out and "SGL" not in out, out
    assert show_json(capsys, "run.sh")["launches"][0]["argv"][-3:] == [word, "--port", "3000"]
    # `${$+w}` is w: $$ is always set
    write(repo, "run.sh", "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --tp-size ${$+two}\n")
    assert "invalid int value: 'two'" in check(capsys, "run.sh")[1]


def test_bad_substitution_in_double_quotes_is_opaque_not_literal_json(repo, capsys):
    """Inside double quotes bash would attempt the `${a.b}` expansion: the value
    there is unknown, so the JSON rule does not judge the text."""
    write(repo, "run.sh", """\
        #!/bin/bash
        vllm serve /models/qwen --port 8000 \\
          --kv-transfer-config "{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_both\\"${accelerator.kv}}"
        """)
    code, out = check(capsys, "run.sh")
    assert "VLLM001" not in out and "PD009" in out, out
    cmds, _ = commands("run '${a.b}' \"x${a.b}y\" ${a.b}\n")
    [cmd] = cmds
    assert [(w.text, w.opaque) for w in cmd.words] == [
        ("run", False), ("${a.b}", True), ("x${a.b}y", True), ("${a.b}", True)]
    # with no `${a.b}` that bash would reject, single-quoted text is bash's literal text
    cmds, _ = commands("run '${a.b}' 'x${a.b}y'\n")
    [cmd] = cmds
    assert [(w.text, w.opaque) for w in cmd.words] == [("run", False), ("${a.b}", False), ("x${a.b}y", False)]


def test_template_placeholder_in_single_quotes_is_opaque(repo, capsys):
    """llm-d-benchmark-style launch text: `${accelerator.dtypeArgs}` outside quotes
    shows a template engine fills `${a.b}` in before bash runs, so the same
    placeholder inside single quotes is a value pdlint cannot see, not literal
    JSON text (a false VLLM001 before)."""
    write(repo, "run.sh", """\
        #!/bin/bash
        vllm serve /models/qwen --port 8000 \\
          ${accelerator.dtypeArgs} \\
          --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_port":${vllm.port}}'
        """)
    code, out = check(capsys, "run.sh")
    assert "VLLM001" not in out and "PD009" in out, out
    # the JSON's literal kv_role is read, only kv_port's value is unknown (before field test rw16/m the whole JSON
    # was, and PD021 said the role came from a value pdlint cannot see)
    assert "PD021" not in out, out
    [launch] = show_json(capsys, "run.sh")["launches"]
    assert launch["argv"][-1] == '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_port":${vllm.port}}'


def test_single_quoted_placeholder_alone_is_literal_text(repo, capsys):
    """Quiet counterpart: a plain script whose only `${a.b}` is single-quoted hands
    vLLM that text as written, which is not JSON: VLLM001 stays."""
    write(repo, "run.sh", """\
        #!/bin/bash
        vllm serve /models/qwen --port 8000 \\
          --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_port":${vllm.port}}'
        """)
    code, out = check(capsys, "run.sh")
    assert "VLLM001" in out and "PD009" not in out, out


def test_source_from_the_script_directorys_parent_in_a_repository(scratch_git):
    # kvcache-ai/Mooncake scripts/tone_tests/scripts/run_test.sh: `source $RUN_DIR/.shrc`, RUN_DIR the parent's
    # run/ (a file the harness writes at run time): missing, not "outside the repository"
    scratch_git.write("t/lib/env.sh", "MODEL=/models/qwen\n")
    scratch_git.write("t/scripts/run.sh", """\
        BASE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && cd .. && pwd)
        source $BASE/run/.shrc
        . $BASE/lib/env.sh
        python3 -m sglang.launch_server --model-path $MODEL --disaggregation-mode prefill
        """)
    code, out = scratch_git.lint("t/scripts/run.sh")
    assert [f["code"] for f in out["findings"]] == []
    (launch,) = out["launches"]
    assert launch["argv"][:2] == ["--model-path", "/models/qwen"]
    assert launch["origins"][1]["path"] == "t/lib/env.sh"


# -- bash's own parser confirms a tree-sitter parse error (pdlint.formats.shell.bashparse) ----------------------

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")

VALID_BASH = [
    # vllm-project/tpu-inference tests/e2e/benchmarking/inferencex/qwen3.5/sweep.sh (field test rw7/a)
    'declare -A T\nT[1024,1024,4]=x\nsharding="${T[$ISL,$OSL,$CONC]:-}"\n',
    # vllm-project/tpu-inference .buildkite/scripts/run_multihost.sh
    'ssh "u@${ip}" > "/tmp/w_${ip}.log" 2>&1 << EOF &\necho hi\nEOF\nwait\n',
    # weyl-ai/trtllm-serve scripts/demo.sh, a Nix substituteAll template (field test rw7/e)
    'PORT="$PORT" \\\n@toolServer@/bin/tool-server &\nwait\n',
    "if cmd <<EOF | tee log; then\nx\nEOF\n  echo ok\nfi\n",
]
LAUNCH = ("python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "
          "--disaggregation-transfer-backend fake\n")


@needs_bash
@pytest.mark.parametrize("text", VALID_BASH)
def test_valid_bash_tree_sitter_rejects_is_no_syntax_error(repo, capsys, text):
    write(repo, "run.sh", "#!/bin/bash\n" + text + LAUNCH)
    code, out = check(capsys, "run.sh")
    assert "PD009" not in out and "SGL104" in out, out


@needs_bash
@pytest.mark.parametrize("text", [
    "echo $$(seq 1 3)\n",          # (a Buildkite `$$` outside Buildkite)
    # bash parses arithmetic only when it evaluates it: `bash -n` passes this, which fails when it runs
    "START=$(( ${I:-0} * {{ or .Spec.N 1 }} ))\n",
])
def test_what_bash_rejects_is_still_a_syntax_error(repo, capsys, text):
    write(repo, "run.sh", "#!/bin/bash\n" + text + LAUNCH)
    code, out = check(capsys, "run.sh")
    assert "PD009" in out and "SGL104" in out, out


def test_without_bash_tree_sitters_error_stands(repo, capsys, monkeypatch):
    from pdlint.formats.shell import bashparse
    monkeypatch.setattr(bashparse, "bash_binary", lambda: None)
    bashparse.bash_accepts.cache_clear()
    write(repo, "run.sh", "#!/bin/bash\n" + VALID_BASH[1] + LAUNCH)
    code, out = check(capsys, "run.sh")
    bashparse.bash_accepts.cache_clear()
    assert "PD009" in out, out


@needs_bash
def test_bash_parses_only(tmp_path, monkeypatch):
    # nothing runs: no command, no substitution, no BASH_ENV startup file
    from pdlint.formats.shell import bashparse
    marker = tmp_path / "ran"
    env_file = tmp_path / "env.sh"
    env_file.write_text(f"touch {marker}\n")
    monkeypatch.setenv("BASH_ENV", str(env_file))
    bashparse.bash_accepts.cache_clear()
    assert bashparse.bash_accepts(f"touch {marker}\necho $(touch {marker})\n")
    assert not bashparse.bash_accepts("if then fi\n")
    assert not bashparse.bash_accepts("x" * (bashparse.MAX_BYTES + 1))
    assert not marker.exists()


# NVIDIA/cloudai tests/ref_data/sglang-disagg.sbatch (field test rw14/g): start the servers, wait for each one's
# health endpoint in a loop bounded by `$(date +%s)`, then start the router
HEALTH_WAIT = """\
    #!/bin/bash
    wait_for_health() {
        local endpoint="$1"
        local end_time=$(($(date +%s) + 300))
        while [ "$(date +%s)" -lt "$end_time" ]; do
            if curl -sf "$endpoint" > /dev/null 2>&1; then
                RETURN
            fi
            sleep 5
        done
        echo "Timeout waiting for: $endpoint"
        return 1
    }
    wait_for_health "http://localhost:30000/health" || exit 1
    python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://localhost:30000 --decode http://localhost:30001
    """


def test_a_return_inside_a_loop_of_unknown_count_returns(repo, capsys):
    """The loop's condition is unknown: its body was probed once and the `return 0` there dropped, so the
    function only returned 1, `|| exit 1` always exited and the router was a branch not taken (PD020)."""
    write(repo, "run.sh", HEALTH_WAIT.replace("RETURN", "return 0"))
    code, out = check(capsys, "run.sh")
    assert code == 0 and "1 router" in out and "PD020" not in out, out
    # a body that never leaves the function: only the timeout's `return 1`, and the router is not started
    write(repo, "run.sh", HEALTH_WAIT.replace("RETURN", "echo up"))
    code, out = check(capsys, "run.sh")
    assert "PD020" in out and "No launch checked" in out, out


# av/harbor harbor.sh (field test rw14/h), cut down: valid bash arithmetic (an array subscript is an arithmetic
# expression, here with parentheses of its own) that tree-sitter-bash 0.25 does not read; its error recovery
# swallowed the next lines
ARITH_SUBSCRIPT = """\
    #!/bin/bash
    lev() {
        local d=(0 1 2 3)
        local del=$((d[((i - 1) * (t_len + 1) + j)] + 1))
        echo "$del"
    }
    vllm serve Qwen/Qwen3-8B FLAG
    """


def test_a_launch_after_arithmetic_tree_sitter_does_not_read_is_checked(repo, capsys):
    write(repo, "run.sh", ARITH_SUBSCRIPT.replace("FLAG", "--no-such-flag"))
    code, out = check(capsys, "run.sh")
    # the PD009 stays (bash -n cannot tell whether arithmetic is valid), the launch is checked
    assert code == 1 and "VLLM018" in out and "PD020" not in out and "run.sh:4:15: PD009" in out, out
    write(repo, "run.sh", ARITH_SUBSCRIPT.replace("FLAG", "--max-model-len 8192"))
    code, out = check(capsys, "run.sh")
    assert code == 0 and "VLLM018" not in out and "PD020" not in out and "1 launch checked" in out, out


def test_a_shift_in_arithmetic_inside_a_default_is_no_here_document(repo, capsys):
    """AMD-AGI/Infera launch_vllm_kvd_v2_kimi.sh (field test rw15/j): tree-sitter-bash read the `<<` of
    `${KV_CACHE_BYTES:-$((26 << 30))}` as a here-document that swallowed the launch (PD020)."""
    write(repo, "run.sh", """\
        #!/usr/bin/env bash
        KV_CACHE_BYTES=${KV_CACHE_BYTES:-$((26 << 30))}
        exec vllm serve /m --kv-cache-memory-bytes "$KV_CACHE_BYTES" FLAG
        """.replace("FLAG", "--no-such-flag"))
    code, out = check(capsys, "run.sh")
    assert code == 1 and "VLLM018" in out and "PD020" not in out, out
    write(repo, "run.sh", "#!/bin/bash\ncat <<EOF\npython3 -m sglang.launch_server --disaggregation-mode prefill\nEOF\n")
    code, out = check(capsys, "run.sh")  # a real here-document is still one (its text is printed: no launch)
    assert "0 launches" in out or "No launch checked" in out, out
