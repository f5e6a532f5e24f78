"""VLLM052 and the help option's abbreviations (hostile-input round rw33/h P8).

vLLM 0.33.0 oracle (scripts/vllm_oracle.py, `vllm serve`'s parser):
- `Qwen/Qwen3-8B --port 8000 --hel`: REJECT with no message - argparse's help action printed the help and exited;
- `... --hel=port`: "argument -h/--help: ignored explicit argument 'port'";
- `... --he`: "ambiguous option: --he could match --help, --headless".
pdlint said "unrecognized arguments: --hel (not a vLLM 0.33.0 flag)" for the first two, nothing for the third, and a
server line with `--help` among its options was no launch at all (a silent pass of a server that never starts).
"""

import pytest


def _vllm(scratch, extra):
    scratch.write("run.sh", f"#!/bin/bash\nvllm serve Qwen/Qwen3-8B --port 8000 {extra}\n")
    code, report = scratch.lint("run.sh")
    return code, [(f["code"], f["message"]) for f in report["findings"]], report


@pytest.mark.parametrize("flag", ["--help", "-h", "--hel"])
def test_help_on_a_server_line_stops_the_server(scratch, flag):
    code, found, report = _vllm(scratch, flag)
    assert [c for c, _ in found] == ["VLLM052"] and code == 1
    assert found[0][1].startswith(f"{flag}: vLLM 0.33.0 prints its help here and exits with status 0")
    assert report["coverage"]["launches"] == 1


@pytest.mark.parametrize("flag", ["--help", "-h", "--hel", "--help=all", "--help=ModelConfig"])
def test_a_command_line_that_only_asks_for_help_is_no_launch(scratch, flag):
    # (`--help=KEYWORD` alone: vLLM's help search prints and exits - hostile-input round rw35/h P7 had VLLM018)
    # `vllm serve --hel` prints the help as `--help` does (stop 50 left it a VLLM052 launch)
    scratch.write("run.sh", f"#!/bin/bash\nvllm serve {flag}\n")
    code, report = scratch.lint("run.sh")
    assert report["findings"] == [] and report["launches"] == [] and code == 0
    assert report["coverage"]["files"].get("run.sh", {}).get("unchecked", []) == []


def test_an_ambiguous_prefix_of_help_alone_is_a_launch_with_an_error(scratch):
    scratch.write("run.sh", "#!/bin/bash\nvllm serve --he\n")
    code, report = scratch.lint("run.sh")
    assert [f["code"] for f in report["findings"]] == ["VLLM018"] and code == 1


@pytest.mark.parametrize("flag, message", [
    ("--hel=port", "argument -h/--help: ignored explicit argument 'port'"),
    ("--he", "ambiguous option: --he could match --help, --headless"),
])
def test_abbreviations_of_help_are_read_as_argparse_reads_them(scratch, flag, message):
    code, found, _ = _vllm(scratch, flag)
    assert [c for c, _ in found] == ["VLLM018"] and found[0][1].startswith(message) and code == 1


def test_an_option_whose_prefix_is_not_help_resolves_quietly(scratch):
    code, found, _ = _vllm(scratch, "--headl")  # --headless
    assert found == [] and code == 0


def test_a_help_search_in_a_usage_function_beside_the_launch_is_no_launch(scratch):
    scratch.write("run.sh", "#!/bin/bash\nusage() {\n  echo \"usage: $0 MODEL\"\n  vllm serve --help=ModelConfig | head\n}"
                  "\n[ $# -lt 1 ] && { usage; exit 1; }\nvllm serve Qwen/Qwen3-8B --port 8000\n")
    code, report = scratch.lint("run.sh")
    assert report["findings"] == [] and code == 0 and len(report["launches"]) == 1


def test_a_help_search_on_a_server_line_is_still_vllm018(scratch):
    code, found, _ = _vllm(scratch, "--help=all")
    assert [c for c, _ in found] == ["VLLM018"] and code == 1
