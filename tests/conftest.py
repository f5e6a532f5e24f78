"""Fixtures shared by test directories."""

import importlib.util
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script(name: str):
    """``scripts/<name>.py`` loaded as a module (a maintainer script, not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def conformance_harness():
    """``scripts/sglang_conformance.py`` loaded as a module."""
    return _script("sglang_conformance")


@pytest.fixture(scope="session")
def incident_harness():
    """``scripts/replay_incidents.py`` loaded as a module."""
    return _script("replay_incidents")


@pytest.fixture(autouse=True)
def _fresh_result_cache(tmp_path_factory, monkeypatch):
    """Every test starts with an empty result cache of its own (pdlint.cache): results never
    leak from one test into another (tests monkeypatch pdlint), nothing is written into the
    checkout, and every run still goes through the cache's cold path."""
    monkeypatch.setenv("PDLINT_CACHE_DIR", str(tmp_path_factory.mktemp("pdlint-cache")))
