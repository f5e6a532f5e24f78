"""A pre-commit run that names one file of a pair judges it with the other role's file.

Field test rw19/c (a new user's pre-commit setup): `pdlint check .` paired `prefill.sh` and `decode.sh` and
reported the decode's changed connector (VLLM010), but a commit that staged only `decode.sh` ran `pdlint
decode.sh`, which saw one launch with no partner and passed (exit 0): the broken pair was committed."""

PREFILL = """\
    #!/bin/bash
    vllm serve Qwen/Qwen2.5-7B-Instruct --port 8100 \\
      --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
    """
DECODE = PREFILL.replace("8100", "8200").replace("kv_producer", "kv_consumer")


def _codes(report):
    return sorted((f["path"], f["code"]) for f in report["findings"])


def test_naming_the_decode_checks_it_against_its_prefill(scratch_git):
    scratch_git.write("deploy/run_prefill.sh", PREFILL)
    scratch_git.write("deploy/run_decode.sh", DECODE.replace("NixlConnector", "LMCacheConnectorV1"))
    code, report = scratch_git.lint("deploy/run_decode.sh")
    assert _codes(report) == [("deploy/run_decode.sh", "VLLM010")]
    assert len(report["pairs"]) == 1
    assert code == 1


def test_a_matching_pair_named_alone_is_clean_and_paired(scratch_git):
    scratch_git.write("deploy/run_prefill.sh", PREFILL)
    scratch_git.write("deploy/run_decode.sh", DECODE)
    code, report = scratch_git.lint("deploy/run_decode.sh")
    assert report["findings"] == [] and code == 0
    assert len(report["pairs"]) == 1


def test_role_folders_and_the_router_come_along(scratch_git):
    scratch_git.write("prefill/serve.sh", PREFILL)
    scratch_git.write("decode/serve.sh", DECODE)
    scratch_git.write("other/serve.sh", DECODE.replace("8200", "8300"))  # no role word: not a sibling
    _, report = scratch_git.lint("prefill/serve.sh")
    assert sorted({l["path"] for l in report["launches"]}) == ["decode/serve.sh", "prefill/serve.sh"]


def test_the_siblings_own_findings_are_left_out(scratch_git, capsys):
    # the prefill has an old finding of its own (an unknown flag): not the commit's doing
    scratch_git.write("run_prefill.sh", PREFILL.replace("--port 8100", "--port 8100 --no-such-flag"))
    scratch_git.write("run_decode.sh", DECODE)
    code, report = scratch_git.lint("run_decode.sh")
    assert report["findings"] == [] and code == 0
    _, report = scratch_git.lint("run_prefill.sh", "run_decode.sh")
    assert ("run_prefill.sh", "VLLM018") in _codes(report)


def test_a_named_file_brings_in_a_bounded_number_of_siblings(scratch_git):
    """Names are matched in any case: 64 case variants of `run_decode.sh` were all pulled into a commit's run,
    each with its own time budget (field test rw20/h: 1,920 of them); at most 16 per named file now."""
    import itertools
    from pdlint.discover import MAX_SIBLINGS
    scratch_git.write("run_prefill.sh", "python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                        "--port 1\n")
    for combo in itertools.product(*[(c, c.upper()) for c in "decode"]):
        scratch_git.write(f"run_{''.join(combo)}.sh", "python -m sglang.launch_server --model-path m "
                                                      "--disaggregation-mode decode --port 2\n")
    _, report = scratch_git.lint("run_prefill.sh")
    assert len(report["launches"]) == 1 + MAX_SIBLINGS
    assert "run_decode.sh" in {l["path"] for l in report["launches"]}  # the named file's own spelling first
