"""JSON files in a directory walk (field test rw22/a): an engine config keyed by role is read as when it is named,
pdlint's own JSON report is never read as launches, and config keys in JSON's quoted form are launch text."""

import json
import textwrap

import pytest

from pdlint.cli import main


def run(capsys, *args):
    code = main(["check", "--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


def role_config(decode_backend):
    return json.dumps({
        "prefill": {"disaggregation_mode": "prefill", "model_path": "Qwen/Qwen2.5-7B-Instruct",
                    "disaggregation_transfer_backend": "nixl"},
        "decode": {"disaggregation_mode": "decode", "model_path": "Qwen/Qwen2.5-7B-Instruct",
                   "disaggregation_transfer_backend": decode_backend}})


@pytest.mark.parametrize("backend, fires", [("mooncake", True), ("nixl", False)])
def test_a_walk_reads_a_role_keyed_json_config_as_a_named_run_does(scratch_dir, capsys, backend, fires):
    (scratch_dir / "pd.json").write_text(role_config(backend))
    (scratch_dir / "x.sh").write_text("echo hi\n")
    code, walked = run(capsys)
    code2, named = run(capsys, "--", "pd.json")
    assert sorted(l["role"] for l in walked["launches"]) == ["decode", "prefill"]
    assert [f["code"] for f in walked["findings"]] == [f["code"] for f in named["findings"]]
    assert ("SGL805" in [f["code"] for f in walked["findings"]]) is fires and code == int(fires)


def test_a_benchmark_record_quoting_a_command_stays_unread_launch_text(scratch_dir, capsys):
    (scratch_dir / "results.json").write_text(json.dumps({"server_cmd": "python -m sglang.launch_server --model-path m "
                                                                 "--disaggregation-mode prefill", "tput": 1.5}))
    code, doc = run(capsys)
    assert doc["launches"] == [] and [f["code"] for f in doc["findings"]] == ["PD020"]


def test_pdlints_own_report_is_not_launch_text(scratch_dir, capsys):
    (scratch_dir / "run.sh").write_text(
        "python -m sglang.launch_server --model-path m --disaggregation-mode prefill &\n"
        "python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 &\n")
    code, doc = run(capsys)
    (scratch_dir / "report.json").write_text(json.dumps(doc, indent=2))
    code, again = run(capsys)
    assert again["findings"] == doc["findings"] and list(again["coverage"]["files"]) == ["run.sh"]
    # named (a commit that adds it): not read as YAML, whose argv lists were launches missing --model-path
    code, named = run(capsys, "--", "report.json")
    assert code == 0 and named["findings"] == [] and named["launches"] == []
    # a file with the report's first keys and others is no report
    doc["apiVersion"] = "v1"
    (scratch_dir / "report.json").write_text(json.dumps(doc, indent=2))
    code, other = run(capsys)
    assert "report.json" in other["coverage"]["files"]


def test_a_quoted_yaml_config_key_is_launch_text(scratch_dir, capsys):
    (scratch_dir / "cfg.yaml").write_text(textwrap.dedent("""\
        servers:
          "disaggregation_mode": prefill
        """))
    code, doc = run(capsys)
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("PD020", 2)]


def test_a_key_written_with_a_json_escape_is_launch_text_in_a_walk(scratch_dir, capsys):
    """Field test rw23/h: `"disaggregation\\u005fmode"` is `disaggregation_mode` to every JSON reader, but the walk
    searched the raw text: the file was skipped without a word (named, it was checked)."""
    text = role_config("mooncake").replace("disaggregation_mode", "disaggregation\\u005fmode")
    assert "\\u005f" in text
    (scratch_dir / "pd.json").write_text(text)
    code, walked = run(capsys)
    assert sorted(l["role"] for l in walked["launches"]) == ["decode", "prefill"]
    assert "SGL805" in [f["code"] for f in walked["findings"]] and code == 1


def test_escaped_launch_text_in_a_json_file_pdlint_cannot_read_is_reported(scratch_dir, capsys):
    """Field test rw24/h: a lone surrogate (`"\\ud800"`, which Python's json reads) made the YAML reader refuse the
    file, and its launch text was written with `\\u` escapes: no finding at all (exit 0 with --strict)."""
    text = role_config("nixl").replace("disaggregation_mode", "disaggregation\\u005fmode")[:-1] + ', "note": "\\ud800"}'
    (scratch_dir / "pd.json").write_text(text)
    code, walked = run(capsys, "--strict")
    assert [(f["code"], f["line"]) for f in walked["findings"]] == [("PD020", 1)] and code == 1


@pytest.mark.parametrize("shape", ["comment", "deep"])
def test_escaped_launch_text_in_json_python_cannot_read_whole_is_reported(scratch_dir, capsys, shape):
    """Hostile-input test rw25/h item 7: a `//` comment line (JSONC), or one value nested past Python's recursion
    limit, kept json.loads from decoding the escapes, and the escaped keys were no launch text: "No launch text
    found", exit 0 with --strict (the same file without escapes was a PD020)."""
    text = role_config("nixl").replace("disaggregation_mode", "disaggregation\\u005fmode")
    if shape == "comment":
        text = "// deploy config (read with json5)\n" + text
    else:
        text = text[:-1] + ', "x": ' + "[" * 1500 + "]" * 1500 + "}"
    (scratch_dir / "pd.json").write_text(text)
    code, walked = run(capsys, "--strict")
    assert [f["code"] for f in walked["findings"]] == ["PD020"] and code == 1
