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
