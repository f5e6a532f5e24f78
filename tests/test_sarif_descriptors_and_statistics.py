"""Field test rw19/c: SARIF rule descriptors (PD020's shortDescription was longer than its fullDescription,
VLLM rules carried the tags ["vllm", "vllm"]) and `--statistics` with a format it cannot honour (it printed text
into what a SARIF upload step then read)."""

import json

from pdlint.report.sarif import _descriptor
from pdlint.rules import all_rules


def test_descriptors_are_well_formed():
    for rule in all_rules().values():
        d = _descriptor(rule)
        assert len(d["shortDescription"]["text"]) <= len(d["fullDescription"]["text"]), rule.code
        tags = d["properties"]["tags"]
        assert len(tags) == len(set(tags)), rule.code
    assert _descriptor(all_rules()["VLLM001"])["properties"]["tags"] == ["vllm"]
    short = _descriptor(all_rules()["SGL101"])["shortDescription"]["text"]
    assert short.endswith(".") and ". " not in short


def test_statistics_with_sarif_or_github_is_a_usage_error(scratch_git, capsys):
    from pdlint.cli import main
    scratch_git.write("s.sh", "python3 -m sglang.launch_server --model-path m --no-such-flag\n")
    for fmt in ("sarif", "github"):
        assert main(["--no-cache", "--statistics", "--format", fmt, "s.sh"]) == 2
        assert "--statistics prints text or JSON" in capsys.readouterr().err
    assert main(["--no-cache", "--statistics", "--format", "json", "s.sh"]) == 1
    assert json.loads(capsys.readouterr().out)
