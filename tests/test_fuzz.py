"""A short, bounded pass of the seeded fuzzer (scripts/fuzz.py; the long pass is
run from the script): mutants of the demo, the test data and the corpus never
crash pdlint, never hang it, and its JSON / SARIF output always parses."""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("pdlint_fuzz", REPO / "scripts" / "fuzz.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pdlint_fuzz"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the fuzzer forks a child per mutant")
def test_short_fuzz_pass_has_no_crash_and_no_hang(fuzz, tmp_path, monkeypatch):
    monkeypatch.delenv("PDLINT_NO_WORKER", raising=False)
    s = fuzz.campaign(80, seed=20261201, timeout=90.0, memory_mb=2048, out_dir=str(tmp_path / "found"))
    assert s.mutants == 80
    assert not s.crashes, s.crashes[:3]
    assert not s.hangs, s.hangs[:3]
    assert s.peak_rss_kb < 1024 * 1024  # each child stays well under the 1 GB the whole run may use


def test_mutators_are_deterministic_and_keep_the_seed_kind(fuzz):
    seeds = fuzz.load_seeds([str(REPO / "fixtures")])
    assert seeds and {s.kind for s in seeds} >= {"yaml", "jinja", "shell"}
    a = [fuzz.make_mutant(random.Random(7), seeds) for _ in range(1)]
    b = [fuzz.make_mutant(random.Random(7), seeds) for _ in range(1)]
    assert a[0].files == b[0].files and a[0].mutators == b[0].mutators
    rng = random.Random(1)
    for name, (fn, kinds) in fuzz.MUTATORS.items():
        for seed in seeds[:6]:
            out = fn(rng, seed.data, seed, seeds)
            assert isinstance(out, bytes), name


def test_a_crashing_mutant_is_caught_and_saved(fuzz, tmp_path, monkeypatch):
    """The harness itself: an exception escaping main is a crash, saved with a repro."""
    import pdlint.cli

    def boom(argv=None):
        raise RuntimeError("planted")
    monkeypatch.setattr(pdlint.cli, "main", boom)
    m = fuzz.Mutant({"a.sh": b"echo\n"}, ["planted"], "json")
    o = fuzz.run_mutant(m, 30.0, 0, str(tmp_path))
    assert o.status == "crash" and "planted" in o.detail
    s = fuzz.Summary()
    fuzz._record(s, 0, m, o, str(tmp_path / "out"), None)
    assert s.crashes and (tmp_path / "out" / "crash-000000" / "repro.sh").exists()
