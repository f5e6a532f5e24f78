"""The baseline (pdlint.baseline) through ``main``: --write-baseline then
--baseline gives exit 0; a new finding fails; moved lines and re-ordered
launches stay quiet; a fixed finding is a stale entry; duplicates count;
paths are relative to the repository root; a bad baseline is a usage error."""

import json
import os
import subprocess
import textwrap

import pytest

from pdlint.baseline import normalise_message
from pdlint.cli import main

PREFILL = ("CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "
           "--port 30002 --enable-linear-replayssm-spec\n")
DECODE = ("CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode "
          "--port 30001\n")
# a prefill launch given a decode-only flag (SGL101) and a clean decode launch
SCRIPT = "#!/bin/bash\n" + PREFILL + DECODE
BASELINE = ".pdlint-baseline.json"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.sh").write_text(SCRIPT)
    return tmp_path


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def entries(path=BASELINE):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["findings"]


def test_write_then_rerun_is_clean(repo, capsys):
    assert run(capsys, "run.sh")[0] == 1
    code, out, err = run(capsys, "--write-baseline", BASELINE, "run.sh")
    assert code == 0 and out == ""
    assert "Wrote 1 finding to .pdlint-baseline.json (1 entry)." in err
    assert entries() == [{"path": "run.sh", "code": "SGL101", "role": "prefill",
                          "token": "--enable-linear-replayssm-spec", "count": 1}]
    code, out, err = run(capsys, "--baseline", BASELINE, "run.sh")
    assert code == 0
    assert "Found 0 errors and 0 warnings in 1 file." in out
    assert "1 finding in the baseline (.pdlint-baseline.json) not reported." in out
    assert "stale" not in err


def test_the_file_is_deterministic_sorted_and_line_per_entry(repo, capsys):
    (repo / "b.sh").write_text(SCRIPT)
    (repo / "a.sh").write_text("#!/bin/bash\n" + PREFILL.replace("--enable-linear-replayssm-spec",
                                                                 "--enable-linear-replayssm-spec --tp-size 2 "
                                                                 "--tp-size 4"))
    run(capsys, "--write-baseline", BASELINE, ".")
    text = open(BASELINE, encoding="utf-8").read()
    lines = text.splitlines()
    assert lines[:3] == ["{", '  "pdlint-baseline": 1,', '  "findings": [']
    assert lines[-2:] == ["  ]", "}"] and text.endswith("}\n")
    rows = [json.loads(line.strip().rstrip(",")) for line in lines[3:-2]]
    assert rows == entries()
    keys = [(r["path"], r["code"], r["role"] or "", r.get("token", r.get("message"))) for r in rows]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert {r["path"] for r in rows} == {"a.sh", "b.sh", "run.sh"}
    run(capsys, "--write-baseline", BASELINE, ".")
    assert open(BASELINE, encoding="utf-8").read() == text  # byte for byte the same again


def test_a_new_finding_fails(repo, capsys):
    run(capsys, "--write-baseline", BASELINE, ".")
    (repo / "new.sh").write_text(SCRIPT)
    code, out, _ = run(capsys, "--baseline", BASELINE, "--format", "json", ".")
    doc = json.loads(out)
    assert code == 1
    assert [(f["path"], f["code"]) for f in doc["findings"]] == [("new.sh", "SGL101")]
    assert doc["baseline"] == {"file": BASELINE, "baselined": 1, "stale": []}
    code, out, _ = run(capsys, "--baseline", BASELINE, ".")
    assert code == 1 and "new.sh:2:" in out and "run.sh:2:" not in out


def test_a_second_identical_finding_is_new_and_duplicates_count(repo, capsys):
    run(capsys, "--write-baseline", BASELINE, ".")
    (repo / "run.sh").write_text(SCRIPT + PREFILL.replace("30002", "30004 --disaggregation-bootstrap-port 9001")
                                 .replace("DEVICES=1", "DEVICES=2"))
    code, out, _ = run(capsys, "--baseline", BASELINE, "--format", "json", ".")
    doc = json.loads(out)
    assert code == 1
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("SGL101", 4)]  # the extra one, last in order
    run(capsys, "--write-baseline", BASELINE, ".")
    assert [e["count"] for e in entries()] == [2]
    assert run(capsys, "--baseline", BASELINE, ".")[0] == 0
    # two identical entries in the file are two findings baselined
    e = {"path": "run.sh", "code": "SGL101", "role": "prefill", "token": "--enable-linear-replayssm-spec"}
    with open(BASELINE, "w", encoding="utf-8") as f:
        json.dump({"pdlint-baseline": 1, "findings": [e, e]}, f)
    assert run(capsys, "--baseline", BASELINE, ".")[0] == 0
    with open(BASELINE, "w", encoding="utf-8") as f:
        json.dump({"pdlint-baseline": 1, "findings": [e]}, f)
    assert run(capsys, "--baseline", BASELINE, ".")[0] == 1


def test_moving_lines_and_reordering_launches_stays_quiet(repo, capsys):
    run(capsys, "--write-baseline", BASELINE, ".")
    (repo / "run.sh").write_text("#!/bin/bash\n# a comment\n\n" + DECODE + "\n\n" + PREFILL)
    code, out, err = run(capsys, "--baseline", BASELINE, ".")
    assert code == 0, out
    assert "stale" not in err


def test_a_fixed_finding_is_a_stale_entry(repo, capsys):
    run(capsys, "--write-baseline", BASELINE, ".")
    (repo / "run.sh").write_text("#!/bin/bash\n" + PREFILL.replace(" --enable-linear-replayssm-spec", "") + DECODE)
    code, out, err = run(capsys, "--baseline", BASELINE, ".")
    assert code == 0  # stale entries never fail the run
    assert "1 stale entry" in out
    assert ("pdlint: warning: .pdlint-baseline.json: 1 baseline entry no longer found (fixed or renamed); "
            "`pdlint --write-baseline .pdlint-baseline.json` drops it") in err
    assert "stale: run.sh: SGL101 [prefill] --enable-linear-replayssm-spec" in err
    code, out, err = run(capsys, "--baseline", BASELINE, "--format", "json", ".")
    assert json.loads(out)["baseline"] == {
        "file": BASELINE, "baselined": 0,
        "stale": [{"path": "run.sh", "code": "SGL101", "role": "prefill",
                   "token": "--enable-linear-replayssm-spec", "count": 1}]}
    code, out, err = run(capsys, "--baseline", BASELINE, "--quiet", ".")
    assert err == "" and out == ""
    run(capsys, "--write-baseline", BASELINE, ".")
    assert entries() == []


def test_stale_only_for_files_the_run_judged(repo, capsys):
    (repo / "other.sh").write_text(SCRIPT)
    run(capsys, "--write-baseline", BASELINE, ".")
    assert len(entries()) == 2
    (repo / "other.sh").write_text("#!/bin/bash\n" + DECODE)  # fixed, but not checked by the next run
    code, _, err = run(capsys, "--baseline", BASELINE, "run.sh")  # a pre-commit run on one staged file
    assert code == 0 and "stale" not in err
    # --write-baseline on some files keeps the entries of the others
    _, _, err = run(capsys, "--write-baseline", BASELINE, "run.sh")
    assert "(2 entries; 1 kept for files this run did not check)" in err
    assert [e["path"] for e in entries()] == ["other.sh", "run.sh"]
    # a file removed from a directory the run walked: its entries are stale
    (repo / "other.sh").unlink()
    code, _, err = run(capsys, "--baseline", BASELINE, ".")
    assert code == 0 and "stale: other.sh: SGL101" in err


def test_paths_are_relative_to_the_repository_root_from_any_cwd(repo, capsys, monkeypatch):
    (repo / "deploy").mkdir()
    (repo / "deploy" / "run.sh").write_text(SCRIPT)
    monkeypatch.chdir(repo / "deploy")
    run(capsys, "--write-baseline", "../" + BASELINE, ".")
    assert {e["path"] for e in entries("../" + BASELINE)} == {"deploy/run.sh"}
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "--baseline", BASELINE, "deploy")
    assert code == 0 and "stale" not in err
    assert run(capsys, "--baseline", BASELINE, ".")[0] == 1  # run.sh at the root was never baselined


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "text"])
def test_formats_and_statistics_report_only_new_findings(repo, capsys, fmt):
    run(capsys, "--write-baseline", BASELINE, ".")
    code, out, _ = run(capsys, "--baseline", BASELINE, "--format", fmt, ".")
    assert code == 0 and "SGL101" not in out
    if fmt in ("sarif", "github"):  # statistics are text or JSON (a usage error with these)
        return
    code, out, _ = run(capsys, "--baseline", BASELINE, "--statistics", "--format", fmt, ".")
    assert code == 0 and "SGL101" not in out


def test_with_the_cache_warm_and_cold_agree(repo, capsys, monkeypatch, tmp_path_factory):
    monkeypatch.setenv("PDLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    run(capsys, "--write-baseline", BASELINE, ".")
    first = run(capsys, "--baseline", BASELINE, "--format", "json", ".")
    second = run(capsys, "--baseline", BASELINE, "--format", "json", ".")  # from the cache
    assert first == second and first[0] == 0
    assert json.loads(first[1])["baseline"]["baselined"] == 1
    assert run(capsys, "--format", "json", ".")[0] == 1  # the cache holds the findings, not the baseline's view


def test_fix_and_diff_leave_baselined_findings_alone(repo, capsys):
    anchor = os.path.join(os.path.dirname(__file__), "..", "fixtures", "k8s", "shared-anchor.yaml")
    (repo / "run.sh").unlink()
    (repo / "app.yaml").write_text(open(anchor, encoding="utf-8").read())
    code, out, _ = run(capsys, "--diff", ".")
    assert code == 1 and "-  - --enable-linear-replayssm-spec" in out  # the seed case has a fix
    run(capsys, "--write-baseline", BASELINE, ".")
    code, out, err = run(capsys, "--baseline", BASELINE, "--diff", ".")
    assert code == 0 and out == "" and "No fixes available (0 findings)." in err
    code, _, err = run(capsys, "--write-baseline", BASELINE, "--fix", ".")
    assert code == 2 and "--write-baseline cannot be combined with --fix or --diff" in err


@pytest.mark.parametrize("content, message", [
    ("{", "not a pdlint baseline: invalid JSON at line 1 column 2"),
    ("[]", 'not a pdlint baseline (no "pdlint-baseline" key'),
    ('{"pdlint-baseline": 2, "findings": []}', "baseline format version 2 is not supported (this pdlint reads "
                                                "version 1); regenerate it with `pdlint --write-baseline"),
    ('{"pdlint-baseline": "1", "findings": []}', 'baseline format version "1" is not supported'),
    ('{"pdlint-baseline": 1, "findings": {}}', '"findings" must be a list'),
    ('{"pdlint-baseline": 1, "findings": [{"path": "a", "code": "X", "token": "t", "count": 0}]}',
     'findings[0]: "count" must be a positive integer'),
    ('{"pdlint-baseline": 1, "findings": [{"path": "a", "code": "X"}]}',
     'findings[0]: an entry needs a string "token" or a string "message"'),
    ('{"pdlint-baseline": 1, "findings": [{"path": "a", "code": "X", "token": "t", "line": 3}]}',
     "findings[0]: unknown key 'line'"),
    ("[" * 100000 + "]" * 100000, "not a pdlint baseline"),
    # (Python refuses to convert an integer of more than 4300 digits: an internal error before; rw20/h)
    ('{"pdlint-baseline": 1, "findings": [{"path": "a", "code": "X", "token": "t", "count": ' + "9" * 5000 + "}]}",
     "not a pdlint baseline: an integer with too many digits (more than 4300)"),
    (b"\xff\xfe".decode("latin-1"), "not a pdlint baseline"),
])
def test_a_corrupt_or_wrong_version_baseline_is_a_usage_error(repo, capsys, content, message):
    (repo / BASELINE).write_text(content, encoding="latin-1" if content.startswith("\xff") else "utf-8")
    code, out, err = run(capsys, "--baseline", BASELINE, ".")
    assert code == 2 and out == ""
    assert err.startswith(f"pdlint: error: {BASELINE}: ") and message in err, err
    assert "Traceback" not in err


def test_a_missing_baseline_is_a_usage_error(repo, capsys):
    code, _, err = run(capsys, "--baseline", "nope.json", ".")
    assert code == 2
    assert "nope.json: baseline file not found (write one with `pdlint --write-baseline nope.json`)" in err


def test_write_baseline_replaces_a_corrupt_file(repo, capsys):
    (repo / BASELINE).write_text("{")
    assert run(capsys, "--write-baseline", BASELINE, ".")[0] == 0
    assert len(entries()) == 1


def test_findings_without_a_token_are_keyed_by_the_message_without_numbers(repo, capsys):
    (repo / "bad.yaml").write_text("a: [1, 2\nb: 3\n")
    run(capsys, "--write-baseline", BASELINE, "bad.yaml")
    (row,) = entries()
    assert "message" in row and "token" not in row
    (repo / "bad.yaml").write_text("# moved\n\n\na: [1, 2\nb: 3\n")
    code, out, err = run(capsys, "--baseline", BASELINE, "bad.yaml")
    assert code == 0 and "stale" not in err, (out, err, row)


def test_normalise_message():
    assert normalise_message("x at k8s/a.yaml:12:5, see b.sh:3 (line 4, column 7) [SGLang 0.5.23]") == \
        "x at k8s/a.yaml, see b.sh (line N, column N)"
    assert normalise_message("given 2 times") == "given 2 times"


def test_the_baseline_is_not_written_over_a_device_or_a_fifo(scratch, capsys, tmp_path):
    """Hostile-input round rw27/h P27: `--write-baseline /dev/full` renamed the new file over the device node and said
    "Wrote 1 finding"; a baseline path that exists must be a regular file (or a link, replaced)."""
    import os
    scratch.write("run.sh", "python -m sglang.launch_server --model-path /m --tp-size x\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    from pdlint.cli import main
    assert main(["check", "--write-baseline", str(fifo), "run.sh"]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert not fifo.is_file() and fifo.exists()
    assert main(["check", "--write-baseline", "b.json", "run.sh"]) == 0  # a regular file: written
    assert (scratch.root / "b.json").is_file()
