"""Real PD failures users reported publicly (tests/data/incidents/incidents.yaml), replayed through pdlint
by scripts/replay_incidents.py: each is caught by the rule that names its failure, with no false error."""

import pytest


@pytest.fixture(scope="module")
def harness(incident_harness):
    return incident_harness


@pytest.fixture(scope="module")
def incidents(harness):
    return harness.load()


def test_the_set_is_well_formed(incidents):
    assert len(incidents) >= 20
    ids = [i["id"] for i in incidents]
    assert len(ids) == len(set(ids))
    for i in incidents:
        assert i["thread"] and i["release"] and i["failure"] and i["files"], i["id"]
        assert i.get("expect") or i.get("miss"), i["id"]


def test_each_incident_is_caught_without_false_errors(harness, incidents, tmp_path):
    results = []
    for n, inc in enumerate(incidents):
        root = tmp_path / str(n)
        root.mkdir()
        results.append(harness.run_one(inc, str(root)))
    missed = [r["id"] for r, i in zip(results, incidents) if i.get("expect") and not r["caught"]]
    false = [(r["id"], [(f["code"], f["message"][:120]) for f in r["false_errors"]]) for r in results
             if r["false_errors"]]
    assert not missed and not false, (missed, false)
    assert sum(r["caught"] for r in results) >= 0.8 * len(results)
