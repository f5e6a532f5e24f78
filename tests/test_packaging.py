"""The wheel carries every data file pdlint reads at run time."""

import fnmatch
import os
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_package_data_covers_every_data_file():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    missing = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "pdlint")):
        if os.path.basename(dirpath) != "data":
            continue
        package = os.path.relpath(os.path.dirname(dirpath), ROOT).replace(os.sep, ".")
        for name in filenames:
            if name.endswith(".md"):
                continue  # notes on how the tables were made, not read at run time
            rel = "data/" + name
            if not any(fnmatch.fnmatch(rel, p) for p in patterns.get(package, ())):
                missing.append(f"{package}: {rel}")
    assert missing == []
