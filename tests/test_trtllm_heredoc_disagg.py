"""TensorRT-LLM's README writes the disaggregated config with a here-document (``cat > disagg-config.yml <<EOF
... context_servers: ... EOF``) and starts ``trtllm-serve disaggregated -c disagg-config.yml`` (field report
rw11/b).  The here-document was read only as Kubernetes YAML: its servers were no launches, so the started
servers had no role, no pair rule ran (a ucx / NIXL transceiver mismatch passed), and ``context_servers:`` /
``generation_servers:`` were reported as launch text not checked (PD020)."""

SCRIPT = """\
    #!/bin/bash
    MODEL_PATH=/models/Llama-3.1-8B-Instruct-FP8

    cat > ctx.yml << EOF
    disable_overlap_scheduler: True
    cache_transceiver_config:
      backend: UCX
    EOF

    cat > gen.yml << EOF
    cache_transceiver_config:
      backend: GEN_BACKEND
    EOF

    cat > disagg-config.yml << EOF
    hostname: localhost
    port: 36125
    backend: pytorch
    context_servers:
      num_instances: 1
      urls:
          - "localhost:36123"
    generation_servers:
      num_instances: 1
      urls:
          - "localhost:36124"
    EOF

    CUDA_VISIBLE_DEVICES=0,1 trtllm-serve "$MODEL_PATH" --host localhost --port 36123 \\
      --backend pytorch --tp_size 1 --pp_size 2 --extra_llm_api_options ./ctx.yml &> log_ctx_0 &

    CUDA_VISIBLE_DEVICES=2 trtllm-serve "$MODEL_PATH" --host localhost --port 36124 \\
      --backend pytorch --tp_size 1 --pp_size 1 --extra_llm_api_options ./gen.yml &> log_gen_0 &

    trtllm-serve disaggregated -c disagg-config.yml &> log_disagg &
    """


def test_the_written_disaggregated_config_gives_the_servers_their_roles(scratch_git):
    scratch_git.write("launch.sh", SCRIPT.replace("GEN_BACKEND", "NIXL"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"], f["role"]) for f in report["findings"]] == [("TRT001", 12, "decode")]
    assert code == 1
    assert report["coverage"]["unchecked"] == 0


def test_matching_backends_are_quiet(scratch_git):
    scratch_git.write("launch.sh", SCRIPT.replace("GEN_BACKEND", "UCX"))
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0
    started = sorted((l["kind"], l["role"] or "") for l in report["launches"] if l["argv"])
    assert started == [("router", ""), ("server", "decode"), ("server", "prefill")]


ECHOED = """\
    #!/bin/bash
    echo -e "disable_overlap_scheduler: True\\ncache_transceiver_config:\\n  backend: UCX\\n  max_tokens_in_buffer: 2048" > context_extra-llm-api-config.yml
    WRITE "cache_transceiver_config:\\n  backend: GEN_BACKEND\\n  max_tokens_in_buffer: 2048\\n" > gen_extra-llm-api-config.yml

    CUDA_VISIBLE_DEVICES=0 trtllm-serve TinyLlama/TinyLlama-1.1B-Chat-v1.0 --port 8001 --backend pytorch --extra_llm_api_options ./context_extra-llm-api-config.yml &> log_ctx_0 &
    CUDA_VISIBLE_DEVICES=1 trtllm-serve TinyLlama/TinyLlama-1.1B-Chat-v1.0 --port 8002 --backend pytorch --extra_llm_api_options ./gen_extra-llm-api-config.yml &> log_gen_0 &
    """


def test_option_files_written_by_echo(scratch_git):
    """The README's other form: ``echo -e "...\\n..." > ctx.yml`` (field report rw11/b).  The files were
    "not found in the repository" (PD022) and the mismatch passed."""
    for write in ("echo -e", "printf"):
        scratch_git.write("run.sh", ECHOED.replace("WRITE", write).replace("GEN_BACKEND", "NIXL"))
        code, report = scratch_git.lint(".")
        assert [(f["code"], f["line"], f["role"]) for f in report["findings"]] == [("TRT001", 3, "decode")], write
        assert sorted(l["role"] for l in report["launches"]) == ["decode", "prefill"]


def test_option_files_written_by_echo_that_agree_are_quiet(scratch_git):
    scratch_git.write("run.sh", ECHOED.replace("WRITE", "echo -e").replace("GEN_BACKEND", "UCX"))
    code, report = scratch_git.lint(".")
    assert report["findings"] == [] and code == 0


def test_echo_without_e_writes_the_backslashes(shell_eval):
    """Without ``-e`` bash's echo keeps ``\\n`` as two characters: the file is one line, not this YAML."""
    from pdlint.formats.shell import ShellContext, shell_commands
    from pdlint.text import SourceFile, TStr
    ctx = ShellContext(lambda p, c: None, lambda *a: None, heredoc_filter=lambda t: False)
    shell_commands(TStr.from_source(SourceFile("s.sh", 'echo "a: 1\\nb: 2" > x.yaml\necho -e "a: 1\\nb: 2" > y.yml\n'
                                               'echo "x" > notes.txt\n')), ctx)
    assert [(h.path.text, h.text.text) for h in ctx.heredocs] == [("x.yaml", "a: 1\\nb: 2\n"), ("y.yml", "a: 1\nb: 2\n")]


WRITTEN_BESIDE = """\
    #!/usr/bin/env bash
    SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    LOG_DIR="$SCRIPT_DIR/results"
    mkdir -p "$LOG_DIR"
    cfg="$LOG_DIR/disagg.yaml"
    {
      echo "hostname: 0.0.0.0"
      echo "port: 8000"
      echo "context_servers:"
      echo "  num_instances: 1"
      echo "  urls: [localhost:8001]"
      echo "generation_servers:"
      echo "  num_instances: 1"
      echo "  urls: [localhost:8011]"
    EXTRA} > "$cfg"
    trtllm-serve disaggregated -c "$cfg" -t 1800 -r 1800
    """


def test_a_config_the_script_writes_beside_itself_is_read_or_said_to_be_written_at_run_time(scratch_git):
    """rw34/a P9 (ddps-lab/disaggregation-TensorRT-LLM ``disagg-exp/launch_trtllm.sh``): the script writes the
    ``trtllm-serve disaggregated -c`` config with a ``{ echo ...; } > "$cfg"`` group, cfg below
    ``$(dirname "${BASH_SOURCE[0]}")``; PD022 pointed at line 2 ("a value pdlint cannot see") and suggested
    ``--var BASH_SOURCE=PATH``, which changed nothing.  The echoed text is the config (bash runs the group with its
    output in the file); when pdlint cannot know the text, PD022 says the script writes it at run time."""
    scratch_git.write("run.sh", WRITTEN_BESIDE.replace("EXTRA", ""))
    code, report = scratch_git.lint(".")
    # the config is read: its servers are the ones to check (none of them started here)
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("PD022", 11), ("PD022", 14)]
    assert all("BASH_SOURCE" not in f["message"] + f["fix"] for f in report["findings"])
    scratch_git.write("run.sh", WRITTEN_BESIDE.replace("EXTRA", "  cat extra.yaml\n    "))
    code, report = scratch_git.lint(".")
    (f,) = report["findings"]
    assert (f["code"], f["line"], f["column"]) == ("PD022", 17, 28)  # the -c of the launch
    assert "(results/disagg.yaml beside the script) is written by this script at run time (line 6), with text " \
           "pdlint cannot know" in f["message"]
    assert "--var" not in f["fix"]


def test_a_config_named_beside_the_script_and_not_in_the_repository_names_its_path(scratch_git):
    """Not written by the script: the path below the script's directory is named, and no `--var BASH_SOURCE`
    is offered (BASH_SOURCE is the script's own path); a config path of a variable none sets still gets its
    `--var` hint."""
    scratch_git.write("b.sh", '#!/bin/bash\nSCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                              'trtllm-serve disaggregated -c "$SCRIPT_DIR/results/d.yaml"\n')
    code, report = scratch_git.lint("b.sh")
    (f,) = report["findings"]
    assert "(results/d.yaml beside the script) was not found in the repository" in f["message"]
    assert "BASH_SOURCE=" not in f["fix"] and f["line"] == 3
    scratch_git.write("b.sh", '#!/bin/bash\ntrtllm-serve disaggregated -c "$CFG_PATH"\n')
    code, report = scratch_git.lint("b.sh")
    (f,) = report["findings"]
    assert "is a value pdlint cannot see" in f["message"] and "--var CFG_PATH=PATH" in f["fix"]
