"""JSON values nested past Python's recursion limit (field test rw24/h, repro 5): `json.loads` raises RecursionError,
which the checks caught as a pdlint bug (a PD013 that lost the launch's other findings) since they caught ValueError
only; each is now the value the engine cannot read either, and the launch's other checks run."""

import pytest

DEEP = "{\"a\":" * 5000 + "1" + "}" * 5000


@pytest.mark.parametrize("line, code", [
    (f"vllm serve m --speculative-config '{DEEP}' --max-num-seqs 1k\n", "VLLM037"),
    (f"python -m sglang.launch_server --model-path m --kv-events-config '{DEEP}' --bogus-flag\n", "SGL001"),
    (f"python -m sglang.launch_server --model-path m --enable-lora --lora-paths '{DEEP}' --bogus-flag\n", "SGL001"),
])
def test_a_deeply_nested_json_value_is_no_pdlint_failure(scratch, line, code):
    scratch.write("p.sh", line)
    _, doc = scratch.lint("p.sh")
    codes = {f["code"] for f in doc["findings"]}
    assert "PD013" not in codes and code in codes


def test_a_dockerfile_exec_form_nested_too_deep_is_read_as_the_shell_form(scratch):
    scratch.write("Dockerfile", "FROM lmsysorg/sglang:v0.5.23\nCMD [\"python3\", \"-m\", \"sglang.launch_server\", "
                                "\"--bogus-flag\", " + "[" * 5000 + "]" * 5000 + "]\n")
    _, doc = scratch.lint("Dockerfile")
    assert "PD013" not in {f["code"] for f in doc["findings"]}


def test_a_long_line_is_quoted_as_a_window_around_each_finding(scratch):
    """Field test rw24/h: the text report quoted the whole line under each finding; 6,000 unknown flags on one
    53 KB line ran out of memory (internal error, exit 2, no output); 2,000 gave 51 MB of text."""
    from pdlint.cli import main
    flags = " ".join(f"--zz{i}" for i in range(2000))
    scratch.write("p.sh", f"python -m sglang.launch_server --model-path m {flags}\n")
    scratch._capsys.readouterr()
    assert main(["--no-cache", "p.sh"]) == 1
    out = scratch._capsys.readouterr().out
    # (was 51 MB; since rw30/h P10 a launch gets 32 findings of one rule one by one, then one counting the rest)
    assert out.count("SGL001") == 33 and "and 1968 more such errors in this launch, not reported one by one" in out
    assert len(out) < 100 * 1000
    quoted = [l for l in out.splitlines() if l.startswith("     1 | ")]
    assert quoted and all(len(l) <= 9 + 3 + 160 + 3 for l in quoted)
