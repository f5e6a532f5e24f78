"""Corpus proof: pdlint on every file of ../shared/corpus, read in place.

No crash and no internal error; every launch extracted with its role; a finding
for each confirmed/likely manifest problem decidable from the files; and no
error finding on files whose manifest says ``none`` (and lists no confirmed or
likely problem), except the reviewed ones SGLang rejects too (tests/data/corpus-proof/expectations.yaml).
"""

import collections
import json
import os

import pytest
import yaml

from pdlint.cli import main

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(REPO), "shared", "corpus")
EXPECT = os.path.join(REPO, "tests", "data", "corpus-proof", "expectations.yaml")

pytestmark = pytest.mark.skipif(not os.path.isfile(os.path.join(CORPUS, "MANIFEST.yaml")),
                                reason=f"the shared corpus is not beside this checkout ({CORPUS})")


@pytest.fixture(scope="module")
def scan():
    cwd = os.getcwd()
    os.chdir(CORPUS)
    try:
        import io
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            # --no-cache: a module fixture runs before conftest's per-test cache directory is set, and the
            # corpus is read-only input (a cache written there would be scanned by the next run)
            code = main(["--format", "json", "--no-cache", "--config", os.path.join(REPO, "tests", "data", "corpus-proof",
                                                                       "pdlint.yaml"), "."])
    finally:
        os.chdir(cwd)
    with open(os.path.join(CORPUS, "MANIFEST.yaml"), encoding="utf-8") as f:
        manifest = yaml.safe_load(f)
    with open(EXPECT, encoding="utf-8") as f:
        expect = yaml.safe_load(f)
    return code, json.loads(out.getvalue()), manifest, expect


def test_whole_corpus_scans_without_crash(scan):
    code, doc, manifest, _ = scan
    assert code in (0, 1)
    assert doc["files"] == len(manifest["files"]) + 1  # and MANIFEST.yaml itself
    internal = [f for f in doc["findings"] if f["code"] in ("PD001", "PD002", "PD003", "PD004", "PD006", "PD008")]
    assert internal == []


def test_every_launch_extracted_with_its_role(scan):
    _, doc, manifest, expect = scan
    got = collections.defaultdict(collections.Counter)
    for l in doc["launches"]:
        got[l["path"]]["router" if l["kind"] == "router" else f"{l['engine']}:{l['role']}"] += 1
    holding = 0
    for entry in manifest["files"]:
        f = entry["file"]
        assert dict(got[f]) == expect["files"][f]["launches"], f
        holding += bool(got[f])
    assert holding >= 46  # every file that holds a launch (the rest: configs halves, env overlays, variables)


def test_manifest_problems_are_found(scan):
    _, doc, manifest, expect = scan
    found = collections.defaultdict(set)
    for f in doc["findings"]:
        found[f["path"]].add(f["code"])
    for entry in manifest["files"]:
        for code in expect["files"][entry["file"]].get("findings", []):
            code, _, where = code.partition("@")
            assert code in found[where or entry["file"]], (entry["file"], code)
        severities = {p["severity"] for p in entry["problems"]}
        if severities & {"confirmed", "likely"}:
            exp = expect["files"][entry["file"]]
            assert exp.get("findings") or exp.get("undecidable"), entry["file"]


def test_no_error_on_files_the_manifest_calls_clean(scan):
    _, doc, manifest, expect = scan
    errors = collections.defaultdict(set)
    for f in doc["findings"]:
        if f["severity"] == "error":
            errors[f["path"]].add(f["code"])
    for entry in manifest["files"]:
        severities = {p["severity"] for p in entry["problems"]}
        if "none" not in severities or severities & {"confirmed", "likely"}:
            continue
        allowed = set(expect["files"][entry["file"]].get("allowed_errors", {}))
        assert errors[entry["file"]] <= allowed, (entry["file"], errors[entry["file"]])
