"""PD021 on a launch whose role flag is a value pdlint cannot see, when the file name beside a sibling file gives the
role (field test rw31/a item 1, krishrveera/amlicPrefillDecodeDisaggregation's infra/start_{prefill,decode}_lmcache.sh:
`vllm serve ... --kv-transfer-config "$KV_TRANSFER_CONFIG"`).  pdlint paired the two by their file names (VLLM013
fired on them, the JSON `pairs` listed them, the summary counted "1 prefill, 1 decode") while PD021 said "its
role-specific checks did not run and it was not paired"."""

from pdlint.cli import main

PREFILL = "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --port $PORT --kv-transfer-config \"$KV_TRANSFER_CONFIG\"\n"
DECODE = "#!/bin/bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --port $PORT --kv-transfer-config \"$KV_TRANSFER_CONFIG\"\n"


def test_pd021_says_the_role_came_from_the_file_name_and_the_pair_was_checked(scratch_git):
    scratch_git.write("start_prefill.sh", PREFILL)
    scratch_git.write("start_decode.sh", DECODE)
    code, report = scratch_git.lint("start_prefill.sh", "start_decode.sh")
    pd021 = sorted((f["path"], f["message"]) for f in report["findings"] if f["code"] == "PD021")
    assert [p for p, _ in pd021] == ["start_decode.sh", "start_prefill.sh"]
    for path, message in pd021:
        role = "decode" if "decode" in path else "prefill"
        assert "not paired" not in message
        assert f"pdlint took its role, {role}, from the file name ('{role}' in {path}, beside " in message
        assert message.endswith("the pair rules read that role, but the checks of the role its own flags set did "
                                "not run")
    # the pair was checked: the model mismatch (vLLM: the KV cache handed over only fits the same model)
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["VLLM013"]
    assert len(report["pairs"]) == 1


def test_pd021_without_a_sibling_still_says_it_was_not_paired(scratch_git):
    """The neighbour: one script of no role-named sibling - no role, no pair, as PD021 says."""
    scratch_git.write("serve.sh", PREFILL)
    code, report = scratch_git.lint("serve.sh")
    (f,) = [f for f in report["findings"] if f["code"] == "PD021"]
    assert f["message"].endswith("its role-specific checks did not run and it was not paired")
    assert report["pairs"] == []


def test_naming_one_sibling_lists_only_its_own_undecided_values(scratch_git, capsys):
    """`pdlint check start_prefill.sh` (a pre-commit run) brings in start_decode.sh to check the pair; the
    undecided summary listed `--port $PORT (start_decode.sh:2:...)`, a file the user did not name.  It lists the
    named file's values and counts the sibling's."""
    scratch_git.write("start_prefill.sh", PREFILL)
    scratch_git.write("start_decode.sh", DECODE)
    main(["--no-cache", "start_prefill.sh"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "undecided" in ln and ln[:1].isdigit())
    assert "start_prefill.sh:2:" in line and "start_decode.sh:2:" not in line
    assert line.endswith("1 flag value pdlint cannot see in a file checked with the named file (their launches "
                         "pair with or read it: start_decode.sh) left checks undecided: check that file to see it.")
    assert "1 prefill, 1 decode" in out
    # all named: every value listed, as before
    main(["--no-cache", "start_prefill.sh", "start_decode.sh"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "undecided" in ln and ln[:1].isdigit())
    assert "start_prefill.sh:2:" in line and "start_decode.sh:2:" in line and "checked with" not in line
