"""Command-line parity with ruff: --select / --extend-select / --ignore (and
the same config keys), --output-file, --statistics, --quiet, rule pages whose
advice works, `pdlint rules` headers, and broken pipes that end quietly."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from pdlint.cli import main
from pdlint.config import Selection

# A decode launch with the (off by default) experimental decode radix cache
# (SGL139, warning) and a prefill launch with a decode-only flag (SGL101).
SCRIPT = textwrap.dedent("""\
    #!/bin/bash
    CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode \\
        --port 30001 --disaggregation-decode-enable-radix-cache
    CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill \\
        --port 30002 --enable-linear-replayssm-spec
    """)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.sh").write_text(SCRIPT)
    return tmp_path


def codes(capsys, *args):
    code = main(["--format", "json", *args])
    out = capsys.readouterr().out
    return code, sorted(f["code"] for f in json.loads(out)["findings"])


def test_default_set_leaves_off_by_default_rules_off(repo, capsys):
    assert codes(capsys, "run.sh") == (1, ["SGL101"])


def test_extend_select_adds_to_the_default_set(repo, capsys):
    assert codes(capsys, "--extend-select", "SGL139", "run.sh") == (1, ["SGL101", "SGL139"])


def test_select_replaces_the_default_set(repo, capsys):
    assert codes(capsys, "--select", "SGL139", "run.sh") == (0, ["SGL139"])
    assert codes(capsys, "--select", "SGL139,SGL101", "run.sh") == (1, ["SGL101", "SGL139"])
    assert codes(capsys, "--select", "SGL139", "--select", "SGL101", "run.sh") == (1, ["SGL101", "SGL139"])


def test_ignore_and_specificity(repo, capsys):
    assert codes(capsys, "--ignore", "SGL101", "run.sh") == (0, [])
    assert codes(capsys, "--ignore", "sgl1", "run.sh") == (0, [])  # case-insensitive, prefixes
    # the most specific selector wins; a tie goes to ignore
    assert codes(capsys, "--extend-select", "SGL139", "--ignore", "SGL1", "run.sh") == (0, ["SGL139"])
    assert codes(capsys, "--extend-select", "SGL139", "--ignore", "SGL139", "run.sh") == (1, ["SGL101"])
    found = codes(capsys, "--select", "ALL", "--ignore", "PD", "run.sh")[1]
    assert {"SGL101", "SGL139", "SGL154"} <= set(found) and not any(c.startswith("PD") for c in found)


def test_unknown_selector_is_a_usage_error(repo, capsys):
    assert main(["--select", "XYZ1", "run.sh"]) == 2
    assert "unknown rule selector 'XYZ1'" in capsys.readouterr().err


@pytest.mark.parametrize("config, expected", [
    ('extend-select = ["SGL139"]\n', (1, ["SGL101", "SGL139"])),
    ('select = ["SGL139"]\n', (0, ["SGL139"])),
    ('ignore = ["SGL101"]\n', (0, [])),
    ('extend-ignore = ["SGL101"]\nextend-select = ["SGL139"]\n', (0, ["SGL139"])),
    ('select = ["SGL101"]\nignore = ["SGL"]\n', (1, ["SGL101"])),
])
def test_config_keys_select_as_ruff_does(repo, capsys, config, expected):
    (repo / "pyproject.toml").write_text("[tool.pdlint]\n" + config)
    assert codes(capsys, "run.sh") == expected


def test_command_line_selection_applies_after_the_config(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nextend-select = ["SGL139"]\n')
    assert codes(capsys, "--ignore", "SGL139", "run.sh") == (1, ["SGL101"])
    assert codes(capsys, "--select", "SGL101", "run.sh") == (1, ["SGL101"])
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nignore = ["SGL101"]\n')
    assert codes(capsys, "--extend-select", "SGL101", "run.sh") == (1, ["SGL101"])


def _two_files(repo):
    os.makedirs(repo / "legacy", exist_ok=True)
    (repo / "legacy" / "old.sh").write_text(SCRIPT)


@pytest.mark.parametrize("args, config, expected", [
    # --per-file-ignores replaces the config's table, --extend-per-file-ignores adds to it
    (["--per-file-ignores", "legacy/*:SGL101"], "", (1, ["SGL101"])),
    (["--per-file-ignores", "legacy/*:SGL1", "--per-file-ignores", "run.sh:SGL101"], "", (0, [])),
    (["--per-file-ignores", "nothing/*:SGL101"], '"legacy/*" = ["SGL101"]', (1, ["SGL101", "SGL101"])),
    (["--extend-per-file-ignores", "run.sh:SGL"], '"legacy/*" = ["SGL101"]', (0, [])),
    ([], '"legacy/*" = ["SGL101"]', (1, ["SGL101"])),
])
def test_per_file_ignores_on_the_command_line(repo, capsys, args, config, expected):
    _two_files(repo)
    if config:
        (repo / "pyproject.toml").write_text("[tool.pdlint.per-file-ignores]\n" + config + "\n")
    assert codes(capsys, "--no-cache", *args, ".") == expected


@pytest.mark.parametrize("args, config, expected", [
    # --exclude replaces the config's exclude, --extend-exclude adds to it; globs from the current directory
    (["--exclude", "legacy"], "", (1, ["SGL101"])),
    (["--exclude", "legacy/*,run.sh"], "", (0, [])),
    (["--exclude", "nothing"], 'exclude = ["legacy"]', (1, ["SGL101", "SGL101"])),
    (["--extend-exclude", "run.sh"], 'exclude = ["legacy"]', (0, [])),
    ([], 'exclude = ["legacy"]', (1, ["SGL101"])),
])
def test_exclude_on_the_command_line(repo, capsys, args, config, expected):
    _two_files(repo)
    if config:
        (repo / "pyproject.toml").write_text("[tool.pdlint]\n" + config + "\n")
    assert codes(capsys, "--no-cache", *args, ".") == expected


def test_command_line_exclude_is_relative_to_the_current_directory(repo, capsys, monkeypatch):
    _two_files(repo)
    monkeypatch.chdir(repo / "legacy")
    assert codes(capsys, "--no-cache", "--exclude", "old.sh", "..") == (1, ["SGL101"])
    # a file named on the command line is excluded only with --force-exclude, as for the config's exclude
    assert codes(capsys, "--no-cache", "--exclude", "old.sh", "old.sh") == (1, ["SGL101"])
    assert main(["--no-cache", "--force-exclude", "--exclude", "old.sh", "old.sh"]) == 0


@pytest.mark.parametrize("value, message", [
    ("legacy/*", "expected GLOB:CODES"),
    (":SGL101", "expected GLOB:CODES"),
    ("legacy/*:", "expected GLOB:CODES"),
    ("legacy/*:NOPE1", "unknown rule selector 'NOPE1'"),
])
def test_bad_per_file_ignores_is_a_usage_error(repo, capsys, value, message):
    assert main(["--per-file-ignores", value, "run.sh"]) == 2
    assert message in capsys.readouterr().err


def test_unknown_selector_in_config_is_a_warning(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nignore = ["SGL101", "NOPE"]\n')
    assert main(["run.sh"]) == 0
    assert "rule selector 'NOPE' matches no rule" in capsys.readouterr().err


def test_selection_layer_unit():
    layer = Selection(extend_select=["SGL139"], ignore=["SGL1"])
    assert layer.apply("SGL139", False) and not layer.apply("SGL101", True) and layer.apply("PD001", True)
    assert not Selection(select=["PD"]).apply("SGL101", True)
    assert Selection(select=["ALL"]).apply("SGL139", False)
    assert not Selection() and Selection(ignore=["X"])


def test_rule_page_advice_works(repo, capsys):
    """What `pdlint rule SGL139` tells a user to write turns SGL139 on and
    leaves every default rule on."""
    assert main(["rule", "SGL139"]) == 0
    page = capsys.readouterr().out
    assert 'select = ["SGL139"]`' not in page.replace('extend-select = ["SGL139"]`', "")
    key = 'extend-select = ["SGL139"]'
    assert key in page and "--extend-select SGL139" in page
    (repo / "pyproject.toml").write_text("[tool.pdlint]\n" + key + "\n")
    assert codes(capsys, "run.sh") == (1, ["SGL101", "SGL139"])


def test_rules_listing_has_headers_and_default_column(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "DEFAULT", "ROLES", "VERSIONS"]
    row = {l.split()[0]: l.split() for l in lines[1:]}
    assert row["SGL139"][3] == "off" and row["SGL101"][3] == "on"
    assert main(["rules", "--format", "json"]) == 0
    rules = {r["code"]: r for r in json.loads(capsys.readouterr().out)}
    assert rules["SGL139"]["default"] is False and rules["SGL101"]["default"] is True


def test_output_file(repo, capsys):
    assert main(["--output-file", "out/report.json", "--format", "json", "run.sh"]) == 2  # no such directory
    assert "cannot write out/report.json" in capsys.readouterr().err
    assert main(["-o", "report.json", "--format", "json", "run.sh"]) == 1
    assert capsys.readouterr().out == ""
    assert [f["code"] for f in json.loads((repo / "report.json").read_text())["findings"]] == ["SGL101"]
    assert main(["-o", "report.txt", "run.sh"]) == 1
    text = (repo / "report.txt").read_text()
    assert "SGL101" in text and "\033[" not in text and text.endswith("in 1 file.\n")
    assert main(["show", "-o", "launches.txt", "run.sh"]) == 0
    assert "decode sglang server" in (repo / "launches.txt").read_text()


def test_statistics(repo, capsys):
    code = main(["--statistics", "--extend-select", "SGL139,SGL140", "run.sh"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines() == ["1\tSGL101\terror  \tlinear-replayssm-spec-on-prefill",
                                "1\tSGL139\twarning\tdecode-radix-experimental"]
    code = main(["--statistics", "--format", "json", "run.sh"])
    assert code == 1 and json.loads(capsys.readouterr().out) == [
        {"code": "SGL101", "name": "linear-replayssm-spec-on-prefill", "severity": "error", "count": 1}]
    (repo / "run.sh").write_text("#!/bin/bash\necho hi\n")
    assert main(["--statistics", "run.sh"]) == 0 and capsys.readouterr().out == ""


def test_quiet_prints_findings_only(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nbogus-key = 1\n')
    assert main(["--quiet", "run.sh"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("run.sh:5:") and "Found" not in out and err == ""
    assert main(["run.sh"]) == 1
    out, err = capsys.readouterr()
    assert "Found 1 error" in out and "unknown pdlint config key 'bogus-key'" in err
    (repo / "run.sh").write_text("#!/bin/bash\necho hi\n")
    assert main(["-q", "run.sh"]) == 0 and capsys.readouterr().out == ""


@pytest.mark.parametrize("args", [["rules"], ["rules", "--format", "markdown"], ["rule", "SGL101"],
                                  ["check", "run.sh"], ["run.sh", "--format", "json"], ["show", "run.sh"],
                                  ["--help"], ["--version"]])
def test_broken_pipe_ends_quietly(repo, args):
    """A reader that is gone before pdlint writes (`pdlint rules | head -1`):
    no traceback, no "internal error", the command's own exit code."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        r = subprocess.run([sys.executable, "-m", "pdlint", *args], stdout=write_end, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    finally:
        os.close(write_end)
    assert r.stderr == "", r.stderr
    assert r.returncode == (1 if "run.sh" in args and args[0] != "show" else 0)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("worker", ["", "1"])
@pytest.mark.parametrize("args", [["check", "--no-cache", "run.sh"], ["check", "--no-cache", "--format", "json",
                                                                       "run.sh"]])
def test_a_report_that_cannot_be_written_is_an_error(repo, args, worker):
    """Standard output on a full disk (`>/dev/full`): one error line and exit 2, as for `--output-file` (a
    traceback and exit 1 before, field test rw20/h); with the worker process and without it."""
    env = {**os.environ, "PDLINT_NO_WORKER": worker} if worker else {k: v for k, v in os.environ.items()
                                                                      if k != "PDLINT_NO_WORKER"}
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "pdlint", *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=120, env=env)
    assert r.returncode == 2
    assert r.stderr == "pdlint: error: cannot write the report to standard output: No space left on device\n"


@pytest.mark.parametrize("form", ["./legacy/*", "././legacy/*", "ABS/legacy/*"])
def test_command_line_globs_written_from_here_or_absolute(repo, capsys, form):
    # field test rw21/h: `./legacy/*` and `$PWD/legacy/*` matched nothing, without a word (ruff reads them so)
    _two_files(repo)
    glob = form.replace("ABS", os.getcwd())
    assert codes(capsys, "--no-cache", "--exclude", glob, ".") == (1, ["SGL101"])
    assert codes(capsys, "--no-cache", "--per-file-ignores", glob + ":SGL101", ".") == (1, ["SGL101"])
