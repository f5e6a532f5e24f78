"""The result cache (pdlint.cache): never a different result with the cache than without.

The suite's scenarios (the demo, the format and structure test data, the
shared corpus, a generated bench repository) are each checked without the
cache, then with it cold, warm, after one file changes, after a file is added
and after one is removed, in text and JSON; every output must be byte for
byte the output of a run without the cache.  Then: what a repeated run
re-analyses, the cache's own files, and what it refuses to trust."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pdlint import cache as C
from pdlint import lint
from pdlint.cli import main

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpus"


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def _bench_repo(root: Path, n: int = 40) -> None:
    spec = importlib.util.spec_from_file_location("pdlint_bench_cache", REPO / "bench" / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pdlint_bench_cache"] = mod
    spec.loader.exec_module(mod)
    mod.generate(root, n=n, seed=3)


def _scenario(name: str, root: Path) -> Path:
    if name == "bench":
        _bench_repo(root)
        return root
    src = {"demo": REPO / "fixtures", "formats": REPO / "tests" / "data" / "formats",
           "structure": REPO / "tests" / "data" / "structure", "corpus": SHARED}[name]
    if not src.is_dir():
        pytest.skip(f"{src} not present")
    shutil.copytree(src, root)
    _git_init(root)
    return root


def _run(capsys, *args) -> tuple:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _same(capsys, *args) -> str:
    """The run with the cache gives exactly what the run without it gives."""
    want = _run(capsys, "check", "--no-cache", *args)
    got = _run(capsys, "check", *args)
    assert got == want, args
    return want[1]


def _launch_files(root: Path) -> list:
    skip = {".git", ".pdlint_cache"}
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for f in sorted(filenames):
            if f.endswith((".yaml", ".yml", ".sh", ".j2", ".tpl")):
                out.append(Path(dirpath) / f)
    return out


def _touch(path: Path, edit: str) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    comment = "{# edited #}\n" if path.name.endswith((".j2", ".tpl")) else "# edited\n"
    if edit == "append":
        text = text + ("" if text.endswith("\n") else "\n") + comment
    else:  # a change of what the file says
        text = text.replace("--disaggregation-mode", "--disaggregation-mode", 1)
        text = text.replace("prefill", "decode", 1) if "prefill" in text else text + comment
    path.write_text(text, encoding="utf-8", errors="surrogateescape")


@pytest.mark.parametrize("name", ["demo", "formats", "structure", "corpus", "bench"])
def test_scenarios_byte_for_byte(name, tmp_path, monkeypatch, capsys):
    root = _scenario(name, tmp_path / name)
    monkeypatch.chdir(root)
    for fmt in ("text", "json"):
        _same(capsys, "--format", fmt, ".")  # cold (text), then docs added (json)
        _same(capsys, "--format", fmt, ".")  # warm
    files = _launch_files(root)
    assert files
    for i, path in enumerate(files[:: max(1, len(files) // 4)][:4]):
        _touch(path, "append" if i % 2 == 0 else "say")
        _same(capsys, ".")
        _same(capsys, "--format", "json", ".")
    copy = files[0].with_name("copied-" + files[0].name)
    shutil.copy(files[0], copy)
    _same(capsys, ".")
    files[-1].unlink()
    _same(capsys, "--format", "json", ".")
    _same(capsys, ".")


def test_named_files_share_the_cache(tmp_path, monkeypatch, capsys):
    """pre-commit names files: those runs reuse what `pdlint .` stored and give its answer for them."""
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    _same(capsys, ".")
    named = [str(p.relative_to(root)) for p in _launch_files(root)[:6]]
    _same(capsys, "--force-exclude", *named)
    _touch(root / named[0], "say")
    _same(capsys, "--force-exclude", *named)
    _same(capsys, ".")


def _counting(monkeypatch) -> list:
    sizes: list = []
    real = lint.analyse

    def analyse(jobs, options, resolver, deps=None):
        sizes.append(sorted(j.display for j in jobs))
        return real(jobs, options, resolver, deps)

    monkeypatch.setattr(lint, "analyse", analyse)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # counted in this process, not in the worker (pdlint.worker)
    return sizes


def test_warm_run_analyses_nothing_and_one_change_only_its_component(tmp_path, monkeypatch, capsys):
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    _run(capsys, "check", ".")
    sizes = _counting(monkeypatch)
    _run(capsys, "check", ".")
    assert sizes == []
    script = next(p for p in _launch_files(root) if p.name.endswith(".sh"))
    _touch(script, "say")
    _run(capsys, "check", ".")
    assert sizes == [[str(script.relative_to(root))]]


def test_shared_partial_rechecks_every_includer(tmp_path, monkeypatch, capsys):
    root = tmp_path / "r"
    (root / "partials").mkdir(parents=True)
    (root / "partials" / "flags.j2").write_text("  --disaggregation-transfer-backend mooncake \\\n")
    for name in ("a", "b"):
        (root / f"{name}.sh.j2").write_text(
            "#!/bin/bash\npython3 -m sglang.launch_server --model-path m \\\n"
            '{% include "partials/flags.j2" %}'
            "  --disaggregation-mode {{ role }}\n")
    (root / "c.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path m --port 1\n")
    _git_init(root)
    monkeypatch.chdir(root)
    _same(capsys, ".")
    sizes = _counting(monkeypatch)
    (root / "partials" / "flags.j2").write_text("  --disaggregation-transfer-backend fake \\\n")
    out = _same(capsys, ".")
    assert "SGL104" in out or "fake" in out
    assert sizes[-1] == ["a.sh.j2", "b.sh.j2", "partials/flags.j2"]


def test_sibling_files_are_one_component(tmp_path, monkeypatch, capsys):
    root = tmp_path / "r"
    root.mkdir()
    (root / "run_prefill.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path m "
                                         "--disaggregation-mode prefill --page-size 16\n")
    (root / "run_decode.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path m "
                                        "--disaggregation-mode decode --page-size 16\n")
    _git_init(root)
    monkeypatch.chdir(root)
    _same(capsys, ".")
    sizes = _counting(monkeypatch)
    (root / "run_decode.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path m "
                                        "--disaggregation-mode decode --page-size 64\n")
    _same(capsys, ".")
    assert sizes[-1] == ["run_decode.sh", "run_prefill.sh"]


def test_config_change_and_options_are_part_of_the_key(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    _same(capsys, ".")
    _same(capsys, "--select", "PD", ".")
    _same(capsys, "--strict", ".")
    _same(capsys, "--var", "tp=8", ".")
    _same(capsys, "--sglang-version", "0.5.9", ".")
    cfg = root / "pyproject.toml"
    cfg.write_text(cfg.read_text() + "\n")
    _same(capsys, ".")
    values = root / "values.yaml"
    values.write_text(values.read_text().replace("2", "4", 1))
    _same(capsys, ".")


def test_cache_directory_files(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR)
    _run(capsys, "check", ".")
    d = root / ".pdlint_cache"
    assert (d / ".gitignore").read_text().endswith("*\n")
    assert (d / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert len(list(d.glob("index-*.json"))) == 1
    assert not list(d.glob(".tmp-*"))
    # git ignores it: the repository's own listing does not change
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True,
                            text=True).stdout
    assert ".pdlint_cache" not in listed
    _same(capsys, ".")


def test_no_cache_fix_and_show_write_nothing(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    cdir = Path(os.environ[C.ENV_DIR])
    _run(capsys, "check", "--no-cache", ".")
    _run(capsys, "show", ".")
    _run(capsys, "check", "--diff", ".")
    assert not list(cdir.glob("index-*"))


def test_corrupt_or_foreign_index_is_ignored_and_rewritten(tmp_path, monkeypatch, capsys):
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    want = _run(capsys, "check", "--no-cache", ".")
    _run(capsys, "check", ".")
    index = next(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))
    good = index.read_bytes()
    head, body = good.split(b"\n", 1)
    # a flipped byte in the body (the digest no longer matches); a claimed result for other content
    forged = body.replace(b'"findings":[', b'"findings":[["x",1,1,"PD001","n","error",null,"m",[],null,null,null],',
                          1)
    for bad in (head + b"\n" + body[:-7] + b"garbage", good[:len(good) // 2], b"not a cache",
                head.replace(b" 1 ", b" 999 ") + b"\n" + body, head + b"\n" + forged):
        index.write_bytes(bad)
        assert _run(capsys, "check", ".") == want
        assert C.Store._load(str(index)) is not None  # rewritten
    docs = Path(os.environ[C.ENV_DIR]) / "docs"
    want_json = _run(capsys, "check", "--no-cache", "--format", "json", ".")
    _run(capsys, "check", "--format", "json", ".")
    for f in docs.iterdir():
        f.write_bytes(b"broken")
    assert _run(capsys, "check", "--format", "json", ".") == want_json


def test_a_cache_git_lists_is_not_trusted(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR)
    (root / ".pdlint_cache").mkdir()
    (root / ".pdlint_cache" / "index-0.json").write_text("committed by someone\n")
    code, out, err = _run(capsys, "check", ".")
    assert "not used" in err and ".pdlint_cache" in err
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2]
    assert not (root / ".pdlint_cache" / ".gitignore").exists()


@pytest.mark.parametrize("target", ["outside", "inside"])
def test_a_symlink_in_the_cache_place_is_not_followed(tmp_path, monkeypatch, capsys, target):
    """A pull request that commits `.pdlint_cache` as a symlink: pdlint writes nothing where it points (outside
    the repository, or into a directory of the repository that holds a forged index) and reads nothing from
    there (field test rw20/h)."""
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR)
    pointed = tmp_path / "elsewhere" if target == "outside" else root / "pc"
    pointed.mkdir()
    (root / ".pdlint_cache").symlink_to(pointed)
    code, out, err = _run(capsys, "check", ".")
    assert "is a symlink or not a directory, so it is not used" in err
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2]
    assert list(pointed.iterdir()) == []


def test_a_cache_place_that_is_a_file_is_not_used(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR)
    (root / ".pdlint_cache").write_text("not a directory\n")
    code, out, err = _run(capsys, "check", ".")
    assert "is a symlink or not a directory" in err
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2]


def test_a_cache_directory_git_lists_under_another_name_is_not_trusted(tmp_path, monkeypatch, capsys):
    """PDLINT_CACHE_DIR set to a link whose target holds files git lists: the listed target is refused."""
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    (root / "pc").mkdir()
    (root / "pc" / "index-0.json").write_text("committed by someone\n")
    (root / "link").symlink_to(root / "pc")
    monkeypatch.setenv(C.ENV_DIR, str(root / "link"))
    code, out, err = _run(capsys, "check", ".")
    assert "is listed by git" in err
    assert sorted(p.name for p in (root / "pc").iterdir()) == ["index-0.json"]


def test_time_dependent_results_are_not_stored(tmp_path, monkeypatch, capsys):
    root = tmp_path / "r"
    root.mkdir()
    # the loop outlasts the timer's 0.1 ms floor on any machine (a bare render of two lines need not)
    (root / "a.sh.j2").write_text("#!/bin/bash\n{% for i in range(100000) %}{% endfor %}"
                                  "python3 -m sglang.launch_server --model-path m --disaggregation-mode {{ role }}\n")
    _git_init(root)
    monkeypatch.chdir(root)
    (root / "pyproject.toml").write_text("[tool.pdlint]\nrender-timeout = 0.000001\n")
    monkeypatch.setattr("pdlint.cache._UNSTABLE_CODES", C._UNSTABLE_CODES + ("PD003", "PD008"))
    _run(capsys, "check", ".")
    index = C.Store._load(str(next(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))))
    stored = {j[1] for c in index["components"] for j in c["jobs"]}
    assert "a.sh.j2" not in stored


def test_indexes_are_bounded(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    for i in range(C.MAX_INDEXES + 3):
        _run(capsys, "check", "--var", f"x={i}", ".")
    assert len(list(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))) == C.MAX_INDEXES


def test_digests_match_what_extract_reads(tmp_path):
    assert C.MAX_FILE_BYTES == __import__("pdlint.extract", fromlist=["x"]).MAX_FILE_BYTES
    p = tmp_path / "f"
    assert C.file_digest(str(p)) == C.ABSENT
    p.write_bytes(b"abc")
    assert C.file_digest(str(p)) == C.digest_bytes(b"abc")
    assert C.file_digest(str(tmp_path)) == C.ABSENT
    with open(p, "wb") as f:
        f.truncate(C.MAX_FILE_BYTES + 1)
    # (searched for launch text: whether it holds any decides its findings, test_field_cov_big_files.py)
    assert C.file_digest(str(p)) == C.digest_bytes(b"\0" * (C.MAX_FILE_BYTES + 1))
    with open(p, "wb") as f:
        f.truncate(C.MAX_SEARCHED_BYTES + 1)
    assert C.file_digest(str(p)) == C.BIG


def test_json_docs_round_trip(tmp_path, monkeypatch, capsys):
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    want = json.loads(_run(capsys, "check", "--no-cache", "--format", "json", ".")[1])
    _run(capsys, "check", "--format", "json", ".")
    got = json.loads(_run(capsys, "check", "--format", "json", ".")[1])
    assert got == want and want["pairs"] and want["launches"]


def test_callers_of_a_script_and_an_ignored_env_file(tmp_path, monkeypatch, capsys):
    """Inputs no launch text comes from: the repository files searched for a script's callers, and a
    .env beside a compose file (git ignores it, so the repository listing does not show it appearing)."""
    root = tmp_path / "r"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "serve.sh").write_text(
        "#!/bin/bash\nROLE=$1\npython3 -m sglang.launch_server --model-path /m --disaggregation-mode $ROLE "
        "--port 30000\n")
    (root / "start.sh").write_text("#!/bin/bash\n./scripts/serve.sh prefill &\n")
    (root / "other.sh").write_text("#!/bin/bash\necho hi\n")
    (root / ".gitignore").write_text(".env\n")
    (root / "compose.yaml").write_text(
        "services:\n  prefill:\n    image: lmsysorg/sglang:v0.5.9\n    command: python3 -m sglang.launch_server "
        "--model-path /m --disaggregation-mode prefill --tp ${TP:-1}\n")
    _git_init(root)
    monkeypatch.chdir(root)
    _same(capsys, ".")
    (root / "other.sh").write_text("#!/bin/bash\n./scripts/serve.sh decode\n")
    _same(capsys, ".")
    _same(capsys, "--format", "json", ".")
    (root / ".env").write_text("TP=abc\n")
    _same(capsys, ".")
    _same(capsys, "--format", "json", ".")


def _reads(monkeypatch) -> list:
    """The paths the cache reads to digest them (in this process)."""
    paths: list = []
    real = C.file_digest

    def file_digest(path, boundary=None):
        paths.append(path)
        return real(path, boundary)

    monkeypatch.setattr(C, "file_digest", file_digest)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    return paths


def test_settled_files_are_vouched_for_by_their_status(tmp_path, monkeypatch, capsys):
    """A file unchanged since it was recorded is not read again; a file rewritten to the same size
    with its old modification time is (its ctime moved), and the run answers as without the cache."""
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    monkeypatch.setattr(C, "_SETTLED_NS", -10**12)  # every file counts as settled
    _same(capsys, ".")
    _same(capsys, ".")
    reads = _reads(monkeypatch)
    _run(capsys, "check", ".")
    assert reads == []
    script = next(p for p in _launch_files(root) if p.name.endswith(".sh") and "prefill" in p.read_text())
    st = os.stat(script)
    text = script.read_text()
    script.write_text(text.replace("prefill", "prefilx", 1))  # the same size, another role name
    os.utime(script, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(script).st_size == st.st_size and os.stat(script).st_mtime_ns == st.st_mtime_ns
    _same(capsys, ".")
    assert str(script) in reads


def test_files_changed_just_before_a_run_are_read_every_time(tmp_path, monkeypatch, capsys):
    """A file whose status changed within the settling time before the run that read it is not
    recorded (a write in the same clock tick would not change it): the next run reads it again."""
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    monkeypatch.setattr(C, "_SETTLED_NS", 10**15)  # nothing settles
    _run(capsys, "check", ".")
    reads = _reads(monkeypatch)
    _run(capsys, "check", ".")
    assert len(reads) >= len(_launch_files(root)) - len(list(root.glob("**/partials/*")))
    index = C.Store._load(str(next(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))))
    assert index["components"] and index["stats"] == {}


def test_sglang_rule_sets_are_stored_and_reused(tmp_path, monkeypatch, capsys):
    """Which SGLang rules apply to a release depends on pdlint's code and tables only, which the index's
    key covers: the index keeps the sets a run decided (equal to deciding them afresh), and a later run
    with a changed file takes them from there instead of reading the release's message corpus."""
    from pdlint import engines
    from pdlint.engines.sglang import engine, versions
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    _same(capsys, ".")
    index = C.Store._load(str(next(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))))
    sets = index["known"]["sglang rule sets"]
    assert sets
    fresh = {engine._set_key(v, r): [x.code for x in engine.engine_rules("sglang").values()
                                     if x.check is not None and x.engine == "sglang" and versions.rule_applies(x, v)
                                     and (not x.roles or r in x.roles)]
             for v, r in engine._RULES_FOR}
    assert sets == fresh
    monkeypatch.setattr(engine, "_RULES_FOR", {})
    monkeypatch.setattr(engines, "KNOWN", {})
    engine._codes_for.cache_clear()
    engine._applicable.cache_clear()
    calls: list = []
    real = engine.rule_applies
    monkeypatch.setattr(engine, "rule_applies", lambda r, v: calls.append(r.code) or real(r, v))
    _touch(next(p for p in _launch_files(root) if p.name.endswith(".sh")), "say")
    got = _run(capsys, "check", ".")
    assert calls == [] and engine._RULES_FOR
    monkeypatch.setattr(engine, "_RULES_FOR", {})
    monkeypatch.setattr(engines, "KNOWN", {})
    engine._codes_for.cache_clear()
    engine._applicable.cache_clear()
    assert got == _run(capsys, "check", "--no-cache", ".")
    assert calls  # without the cache the sets are decided afresh


def _fresh_prefilter(monkeypatch):
    from pdlint import engines
    from pdlint.engines.sglang import engine, prefilter
    monkeypatch.setattr(engine, "_RULES_FOR", {})
    monkeypatch.setattr(engines, "KNOWN", {})
    monkeypatch.setattr(prefilter, "_DECIDED", {})
    engine._codes_for.cache_clear()
    prefilter.index.cache_clear()


def test_sglang_prefilter_indexes_are_stored_and_reused(tmp_path, monkeypatch, capsys):
    """The prefilter's index (what every rule reads on the minimal launch of a role) is a function of
    pdlint's code and tables too: the index keeps it (equal to building it afresh), a later run with a
    changed file takes it from there instead of running every rule, with the same output."""
    from pdlint.engines.sglang import engine, prefilter
    root = _scenario("bench", tmp_path / "b")
    monkeypatch.chdir(root)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    _fresh_prefilter(monkeypatch)
    _same(capsys, ".")
    index = C.Store._load(str(next(Path(os.environ[C.ENV_DIR]).glob("index-*.json"))))
    stored = index["known"]["sglang prefilter"]
    assert {"0.5.23\tprefill", "0.5.23\tdecode"} <= set(stored)
    for key, doc in stored.items():
        version, role = key.split("\t")
        codes = engine._codes_for(version, role)
        assert doc["codes"] == list(codes)
        profs = prefilter.profiles(version, role, codes)
        assert doc["always"] == [i for i, c in enumerate(codes) if profs[c].always]
        assert doc["by_dest"] == {d: [i for i, c in enumerate(codes) if d in profs[c].reads]
                                  for d in sorted(set().union(*(p.reads for p in profs.values())))}
    _fresh_prefilter(monkeypatch)
    calls: list = []
    real = prefilter.profiles
    monkeypatch.setattr(prefilter, "profiles", lambda *a: calls.append(a) or real(*a))
    _touch(next(p for p in _launch_files(root) if p.name.endswith(".sh")), "say")
    got = _run(capsys, "check", ".")
    assert calls == [] and prefilter._DECIDED
    _fresh_prefilter(monkeypatch)
    assert got == _run(capsys, "check", "--no-cache", ".")
    assert calls  # without the cache the indexes are built afresh


@pytest.mark.parametrize("bad", [
    {"codes": ["SGL101"], "always": [1], "by_dest": {}, "by_env": {}},  # a position past the codes
    {"codes": ["SGL101"], "always": [0], "by_dest": {"tp_size": [True]}, "by_env": {}},
    {"codes": "SGL101", "always": [], "by_dest": {}, "by_env": {}},
    {"codes": ["SGL101"], "always": [], "by_dest": [], "by_env": {}},
    ["SGL101"],
])
def test_a_malformed_stored_prefilter_index_is_not_used(bad):
    assert not C._prefilter_index(bad)
    assert C._prefilter_index({"codes": ["SGL101", "SGL102"], "always": [1], "by_dest": {"tp_size": [0, 1]},
                               "by_env": {"SGLANG_X": [0]}})


def test_stored_facts_of_the_wrong_shape_are_ignored(monkeypatch):
    from pdlint import engines
    monkeypatch.setattr(engines, "KNOWN", {})
    C._use_known({"known": {"sglang rule sets": {"0.5.23\t'prefill'": ["SGL101", 7]},
                            "sglang prefilter": {"0.5.23\tprefill": {"codes": []}}}})
    assert engines.KNOWN == {}
    C._use_known({"known": {"sglang rule sets": {"0.5.23\t'prefill'": ["SGL101"]}}})
    assert engines.KNOWN == {"sglang rule sets": {"0.5.23\t'prefill'": ["SGL101"]}}


def test_a_release_pin_beside_a_script_is_an_input(tmp_path, monkeypatch, capsys):
    """A requirements.txt or Dockerfile written later beside a script changes the release its launches are
    judged against (pdlint.formats.pins): the cached result of the script is not reused."""
    root = tmp_path / "r"
    (root / "docker").mkdir(parents=True)
    kv = '{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}'
    (root / "docker" / "start.sh").write_text(f"#!/bin/bash\nvllm serve m --port 8100 --kv-transfer-config '{kv}'\n")
    (root / ".gitignore").write_text("requirements.txt\nDockerfile\n")  # (the repository listing does not change)
    _git_init(root)
    monkeypatch.chdir(root)
    before = _same(capsys, ".")
    assert "VLLM032" in before
    (root / "requirements.txt").write_text("vllm==0.9.2\n")
    assert "VLLM032" not in _same(capsys, ".")
    (root / "requirements.txt").unlink()
    assert _same(capsys, ".") == before
    (root / "docker" / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.9.2\nCOPY start.sh /\n")
    assert "VLLM032" not in _same(capsys, ".")


def test_a_cache_dir_set_inside_the_repository_through_a_committed_symlink_is_not_used(tmp_path, monkeypatch,
                                                                                          capsys):
    """PDLINT_CACHE_DIR=$CI_PROJECT_DIR/.cache/pdlint (GitLab's in-project caches) and a pull request that
    commits `.cache` as a symlink out of the repository: pdlint wrote its cache where the link points (field
    test rw21/h)."""
    root = _scenario("demo", tmp_path / "d")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".cache").symlink_to(outside)
    _git_init(root)
    monkeypatch.chdir(root)
    monkeypatch.setenv(C.ENV_DIR, str(root / ".cache" / "pdlint"))
    code, out, err = _run(capsys, "check", ".")
    assert "on its way is a symlink" in err
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2]
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("through_link", [False, True])
def test_a_cache_dir_set_through_a_linked_workspace_is_checked_as_the_real_one(tmp_path, monkeypatch, capsys,
                                                                                through_link):
    """Field test rw22/h: the CI workspace reached through a symlink (`ws -> real`, a symlinked build directory)
    and PDLINT_CACHE_DIR=$PWD/.cache/pdlint: the cache's path was compared with the repository's real path as
    text, no tree held it, and the link `.cache -> ../outside` the pull request committed was followed (files
    written outside the repository)."""
    root = _scenario("demo", tmp_path / "real" / "d")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".cache").symlink_to(outside)
    _git_init(root)
    (tmp_path / "ws").symlink_to(tmp_path / "real")
    here = tmp_path / "ws" / "d" if through_link else root
    monkeypatch.chdir(here)
    monkeypatch.setenv(C.ENV_DIR, str(here / ".cache" / "pdlint"))
    code, out, err = _run(capsys, "check", ".")
    assert "on its way is a symlink" in err
    assert list(outside.iterdir()) == []


def test_a_cache_dir_inside_a_path_git_lists_is_not_used(tmp_path, monkeypatch, capsys):
    """The same place committed as a submodule (a gitlink holding a forged index): git lists only `.cache`, none
    of the files under it (field test rw21/h)."""
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    sub = root / ".cache"
    (sub / "pdlint").mkdir(parents=True)
    (sub / "pdlint" / "index-0.json").write_text("committed by someone\n")
    subprocess.run(["git", "-C", str(sub), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(sub), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(sub), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   check=True)
    subprocess.run(["git", "-C", str(root), "add", ".cache"], check=True, capture_output=True)
    monkeypatch.setenv(C.ENV_DIR, str(sub / "pdlint"))
    code, out, err = _run(capsys, "check", ".")
    assert "is a path git lists" in err or "a git work tree of its own" in err
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2]
    assert sorted(p.name for p in (sub / "pdlint").iterdir()) == ["index-0.json"]


def test_a_cache_dir_in_an_ignored_directory_of_the_repository_is_used(tmp_path, monkeypatch, capsys):
    root = _scenario("demo", tmp_path / "d")
    (root / ".gitignore").write_text(".cache/\n")
    _git_init(root)
    monkeypatch.chdir(root)
    monkeypatch.setenv(C.ENV_DIR, str(root / ".cache" / "pdlint"))
    code, out, err = _run(capsys, "check", ".")
    assert "not used" not in err
    assert list((root / ".cache" / "pdlint").glob("index-*.json"))


def _forge_clean_result_for(root: Path, rel: str) -> None:
    """What a tree's author can do: make the stored result of a clean version claim the current (broken) file."""
    import hashlib
    (p,) = (root / ".pdlint_cache").glob("index-*.json")
    head, _, body = p.read_bytes().partition(b"\n")
    items = json.loads(body)  # [head, component, ...] (cache.Store.load_index)
    dig = C.digest_bytes((root / rel).read_bytes())
    for c in items[1:]:
        for k in c["deps"]:
            if k.endswith(rel):
                c["deps"][k] = dig
    items[0]["stats"] = {}
    body = b"[" + b",\n".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode() for x in items) + b"]"
    p.write_bytes(f"{head.split()[0].decode()} {C.FORMAT} {C.digest_bytes(body)}\n".encode() + body)
    assert C.Store(str(p.parent), items[0]["env"]).load_index() is not None  # (a forgery pdlint would read)


BROKEN_SH = ("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "
             "--enable-linear-replayssm-spec\n")


def test_a_tree_no_git_repository_holds_brings_no_cache_pdlint_trusts(tmp_path, monkeypatch, capsys):
    """A tarball / `docker build` context without .git that carries a `.pdlint_cache` forged for its broken files:
    nothing tells it from pdlint's own there, so the default place is not used (rw28/h item 2: 0 errors, exit 0)."""
    root = tmp_path / "tree"
    root.mkdir()
    monkeypatch.chdir(root)
    # the author makes a valid cache of a clean version at the path CI will use (here: naming the place)
    monkeypatch.setenv(C.ENV_DIR, str(root / ".pdlint_cache"))
    (root / "pd.sh").write_text(BROKEN_SH.replace(" --enable-linear-replayssm-spec", ""))
    assert _run(capsys, "check", ".")[0] == 0 and (root / ".pdlint_cache").is_dir()
    (root / "pd.sh").write_text(BROKEN_SH)
    _forge_clean_result_for(root, "pd.sh")
    assert _run(capsys, "check", ".")[0] == 0  # (what a forged cache does where git cannot vouch for it)
    monkeypatch.delenv(C.ENV_DIR)  # CI's default command
    code, out, _ = _run(capsys, "check", ".")
    assert code == 1 and "SGL101" in out
    # and a tree without a repository gets no cache written into it
    shutil.rmtree(root / ".pdlint_cache")
    assert _run(capsys, "check", ".")[0] == 1 and not (root / ".pdlint_cache").exists()


def test_a_docs_link_in_the_cache_is_never_written_through(tmp_path, monkeypatch, capsys):
    """`.pdlint_cache/docs` as a link out of the tree: pdlint wrote its launch files where it pointed, and pruned
    every file there it did not write (rw28/h item 5: 100,001 files outside became 1)."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "pd.sh").write_text(BROKEN_SH)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("keep\n")
    cache = root / "cache"
    cache.mkdir()
    (cache / "docs").symlink_to(outside)
    monkeypatch.setenv(C.ENV_DIR, str(cache))
    monkeypatch.chdir(root)
    _git_init(root)
    code, out, err = _run(capsys, "check", "--format", "json", ".")
    assert code == 1 and "is a symlink or not a directory" in err
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]


def test_a_finding_at_no_file_of_the_run_is_replayed(tmp_path, monkeypatch, capsys):
    """rw30/a problem 3: a finding whose path is no file of the run (pdlint filed a Makefile recipe's PD009 under
    the synthetic ``<make: the line's own shell>``) was stored in a component of no job, which no cached run
    replays: the warning was printed by the first run and by ``--no-cache`` only.  Every such finding is stored with
    the component of the jobs that produced it (here stood in by a finding added to every fresh analysis)."""
    from pdlint.model import Finding
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")
    real = lint.analyse

    def analyse(jobs, options, resolver, deps=None):
        res = real(jobs, options, resolver, deps)
        res.findings.append(Finding("<not a file>", 1, 1, "PD009", "shell-parse-error", "warning", None,
                                    "shell syntax error: cannot parse 'x' (script)"))
        res.findings.sort(key=lambda f: f.sort_key())  # (as analyse gives them)
        return res

    monkeypatch.setattr(lint, "analyse", analyse)
    for fmt in ("text", "json"):
        first = _same(capsys, "--format", fmt, ".")
        assert "<not a file>" in first
        assert _run(capsys, "check", "--format", fmt, ".")[1] == first  # warm: from the cache
    # the warm run analyses nothing and prints the finding once (the one component that holds it is replayed once;
    # runs whose findings all sit at files keep a component per file group: the test above for the bench repository)
    sizes: list = []

    def counted(jobs, options, resolver, deps=None):
        sizes.append(len(jobs))
        return analyse(jobs, options, resolver, deps)

    monkeypatch.setattr(lint, "analyse", counted)
    assert _run(capsys, "check", ".")[1].count("<not a file>") == 1 and sizes == []


def test_a_recipe_syntax_error_is_reported_by_every_cached_run(tmp_path, monkeypatch, capsys):
    """rw30/a repro 3: make stops at the first logical line (`echo start && # c1`: "Syntax error: end of file
    unexpected"), so the prefill launch after it never starts; the PD009 that says so was printed by the first
    run only, the cached runs said 0 warnings."""
    root = tmp_path / "r"
    root.mkdir()
    (root / "Makefile").write_text(
        "serve:\n\techo start && \\\n\t# c1\n\tpython -m sglang.launch_server --model-path Qwen/Qwen3-0.6B "
        "--disaggregation-mode prefill --port 30000 && \\\n\t# c2\n\techo done\n")
    _git_init(root)
    monkeypatch.chdir(root)
    for args in (("Makefile",), ("Makefile",), ("--format", "json", "Makefile"), ("--format", "json", "."), (".",)):
        out = _same(capsys, *args)
        if "json" in args:
            places = [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)["findings"]]
            assert places == [("Makefile", 2, 13, "PD009")]
        else:
            assert out.startswith("Makefile:2:13: PD009 warning: ") and "<make" not in out


def _index_lines(root: Path) -> list:
    (p,) = (root / ".pdlint_cache").glob("index-*.json")
    body = p.read_bytes().partition(b"\n")[2]
    assert body.startswith(b"[") and body.endswith(b"]")
    return body[1:-1].split(b",\n")


def test_index_writes_the_components_it_did_not_change_as_it_read_them(tmp_path, monkeypatch, capsys):
    """The index is ``[head, component, ...]``, one a line: a run that re-checks one changed file writes the other
    components back byte for byte (it encoded the whole index again: 10 ms of a one-changed-file run of the 1,000-file
    bench), and the result stays the one a run without the cache gives - also for a file name JSON must escape (a
    line break and a `,` in it: the lines are still the elements)."""
    root = _scenario("bench", tmp_path / "b")
    odd = root / "deploy" / "odd\n,name.sh"
    odd.parent.mkdir(parents=True, exist_ok=True)
    odd.write_text("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size 3x\n")
    _git_init(root)
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR, raising=False)
    _same(capsys, ".")
    before = _index_lines(root)
    assert len(before) > 30 and json.loads(before[0])["format"] == C.FORMAT
    assert any(b"odd\\n,name.sh" in line for line in before)
    (p,) = (root / ".pdlint_cache").glob("index-*.json")
    store = C.Store(str(p.parent), json.loads(before[0])["env"])
    assert len(store.load_index()["components"]) == len(store._raw) == len(before) - 1  # (each line kept)
    target = sorted(p for p in root.rglob("*.yaml") if ".pdlint_cache" not in p.parts)[0]
    target.write_text(target.read_text() + "# changed\n")
    os.utime(target, ns=(1, 1))  # (settled: its status is stored)
    _same(capsys, ".")
    after = _index_lines(root)
    changed = [line for line in after[1:] if line not in before[1:]]
    assert len(after) == len(before) and len(changed) == 1, len(changed)
    assert str(target).encode() in changed[0]
    # a run that reads the index and changes nothing leaves it as it is; a third run after it, the same result
    _same(capsys, ".")
    assert _index_lines(root)[1:] == after[1:]


def test_index_written_otherwise_is_read_and_encoded_again(tmp_path, monkeypatch, capsys):
    """An index whose elements are not one a line (written by hand, another writer) is still a valid JSON list with
    a valid digest: read, used, and written again one a line (quiet: no warning, the same result)."""
    root = _scenario("demo", tmp_path / "d")
    monkeypatch.chdir(root)
    monkeypatch.delenv(C.ENV_DIR, raising=False)
    _same(capsys, ".")
    (p,) = (root / ".pdlint_cache").glob("index-*.json")
    head, _, body = p.read_bytes().partition(b"\n")
    items = json.loads(body)
    body = json.dumps(items, indent=1).encode()  # valid, but not one element a line
    p.write_bytes(f"{head.split()[0].decode()} {C.FORMAT} {C.digest_bytes(body)}\n".encode() + body)
    store = C.Store(str(p.parent), items[0]["env"])
    assert store.load_index()["components"] == items[1:] and store._raw == {}
    code, out, err = _run(capsys, "check", ".")
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2] and "cache" not in err
    assert p.read_bytes().partition(b"\n")[2] == body  # (nothing changed: nothing written)
    target = root / "k8s" / "clean.yaml"
    target.write_text(target.read_text() + "# changed\n")
    code, out, err = _run(capsys, "check", ".")
    assert (code, out) == _run(capsys, "check", "--no-cache", ".")[:2] and "cache" not in err
    assert len(_index_lines(root)) == len(items)


def test_which_and_temp_files_as_the_standard_library_makes_them(tmp_path, monkeypatch):
    """The cache key's helm path and the index's temporary file without importing shutil and tempfile (with pickle
    and decimal, 30M instructions of a one-changed-file run's imports): the same answers as shutil.which, and a new
    file of mode 0600 that an existing name or a symlink never becomes."""
    import shutil
    bins = tmp_path / "bin"
    bins.mkdir()
    (bins / "helm").write_text("#!/bin/sh\n")
    (bins / "helm").chmod(0o755)
    (bins / "noexec").write_text("x")
    (bins / "adir").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.setenv("PATH", f"{tmp_path / 'other'}{os.pathsep}{bins}")
    from pdlint.safeio import program  # (the cache key's lookup: absolute PATH entries only, rw32/h P8)
    for name in ("helm", "noexec", "adir", "missing"):
        assert program(name) == shutil.which(name), name
    assert program("helm") == str(bins / "helm")
    fd, p = C._new_temp(str(tmp_path))
    os.close(fd)
    assert os.path.basename(p).startswith(".tmp-") and (os.stat(p).st_mode & 0o777) == 0o600
    target = tmp_path / "target"
    monkeypatch.setattr(os, "urandom", lambda n: b"\x01" * n)  # the same name twice, then a symlink there
    fd, p2 = C._new_temp(str(tmp_path))
    os.close(fd)
    os.unlink(p2)
    os.symlink(target, p2)
    with pytest.raises(FileExistsError):
        C._new_temp(str(tmp_path))
    assert not target.exists()
