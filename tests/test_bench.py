"""The benchmark's repository generator (bench/bench.py) makes the files it
promises, and pdlint finds launches - and exactly the planted errors - in
them.  No timing here: figures come from running bench/bench.py."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def load_bench():
    spec = importlib.util.spec_from_file_location("pdlint_bench", REPO / "bench" / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pdlint_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bench():
    return load_bench()


def test_generate_small_repository(bench, tmp_path):
    gen = bench.generate(tmp_path / "repo", n=10, seed=1)
    assert len(gen.files) == 10
    for rel in gen.files + gen.partials:
        assert (gen.root / rel).is_file(), rel
    assert set(gen.yaml_files) <= set(gen.files)
    assert all(rel.endswith(".yaml") for rel in gen.yaml_files)
    assert sum(gen.kinds.values()) == 10
    # Deterministic for a seed.
    again = bench.generate(tmp_path / "again", n=10, seed=1)
    assert again.files == gen.files and again.broken == gen.broken
    assert [(again.root / f).read_text() for f in again.files] == [(gen.root / f).read_text() for f in gen.files]


def test_generator_covers_every_kind(bench, tmp_path):
    gen = bench.generate(tmp_path / "repo", n=120, seed=3, git_init=False)
    assert set(gen.kinds) == {k for k, _ in bench.MIX}
    names = gen.files
    assert any(f.endswith(".yaml.j2") for f in names) and any(f.endswith(".sh.j2") for f in names)
    assert any(f.endswith(".sh") for f in names) and gen.partials
    assert any("&shared_args" in (gen.root / f).read_text() for f in names)
    assert any("<<: *sglang_base" in (gen.root / f).read_text() for f in names)
    assert gen.broken


def test_pdlint_finds_launches_and_the_planted_errors(bench, tmp_path):
    pdlint = bench.find_tool("pdlint")
    if pdlint is None:
        pytest.skip("pdlint is not installed")
    # Seed 1 plants errors in a shell launcher, a Jinja template and a --config file.
    gen = bench.generate(tmp_path / "repo", n=10, seed=1, broken_ratio=0.3)
    assert gen.broken
    r = subprocess.run([pdlint, "check", "--format", "json", "."], cwd=gen.root, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    assert report["files"] >= 10
    launches = report["launches"]
    assert len(launches) >= 10
    assert {l["role"] for l in launches} >= {"prefill", "decode"}
    assert set(gen.files) <= {l["path"] for l in launches}  # every generated file holds a launch
    errors = {(f["path"], f["code"]) for f in report["findings"] if f["severity"] == "error"}
    assert errors == set(gen.broken.items())


def test_bench_cli_generate_only(tmp_path):
    out = tmp_path / "gen"
    r = subprocess.run([sys.executable, str(REPO / "bench" / "bench.py"), "-n", "10", "--generate-only",
                        "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    files = [p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert len(files) >= 10


def test_the_table_names_the_yaml_parser_check_yaml_uses(bench, tmp_path):
    # check-yaml's speed depends on whether ruamel.yaml.clib is installed: the
    # benchmark says which parser the timed check-yaml had
    import ruamel.yaml

    script = tmp_path / "check-yaml"
    script.write_text(f"#!{sys.executable}\nraise SystemExit(0)\n")
    found = bench.check_yaml_parser(str(script))
    assert found.startswith(f"ruamel.yaml {ruamel.yaml.__version__}, ")
    assert found.endswith(("pure-Python parser", "C parser (libyaml, ruamel.yaml.clib)"))
    assert bench.check_yaml_parser(str(tmp_path / "missing")) == ""


def test_work_floor_reads_every_kind_of_launch_file(bench, tmp_path):
    """bench/floor.py (the work-floor row) parses and renders every generated file,
    templates with their includes, and fails loudly on input it cannot read."""
    gen = bench.generate(tmp_path / "repo", n=40, seed=3)
    floor = [sys.executable, str(REPO / "bench" / "floor.py"), str(gen.root)]
    r = subprocess.run(floor + sorted(gen.files), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, r.stderr.decode()
    bad = gen.root / "broken.yaml"
    bad.write_text("a: [1, 2\n")
    r = subprocess.run(floor + ["broken.yaml"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode != 0 and b"yaml" in r.stderr.lower()


def test_one_file_editor_changes_one_file_and_restores_all(bench, tmp_path):
    gen = bench.generate(tmp_path / "repo", n=12, seed=4)
    before = {rel: (gen.root / rel).read_bytes() for rel in gen.files}
    ed = bench.Editor(gen.root, sorted(gen.files))
    ed.change(0)
    ed.change(1)
    changed = [rel for rel in gen.files if (gen.root / rel).read_bytes() != before[rel]]
    assert 1 <= len(changed) <= 2
    ed.restore()
    assert {rel: (gen.root / rel).read_bytes() for rel in gen.files} == before
