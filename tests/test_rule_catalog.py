"""The rule registry itself: identity, documentation, upstream messages, generated docs."""

import json
import os
import re

import pytest

from pdlint.cli import main
from pdlint.engines.sglang.versions import VALUE_SETS, applies, value_set, versions_of
from pdlint.rules import all_rules, get, rules_markdown

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_codes_and_names_are_unique_and_well_formed():
    rules = all_rules()
    names = [r.name for r in rules.values()]
    assert len(names) == len(set(names))
    for r in rules.values():
        assert re.fullmatch(r"(PD|SGL|VLLM|TRT)\d{3}", r.code), r.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name
        assert r.summary and r.why and r.fix, r.code


def test_docs_have_the_four_sections():
    for r in all_rules().values():
        doc = r.docs()
        for heading in ("## What it does", "## Why is this bad?", "## Fix"):
            assert heading in doc, (r.code, heading)
        if r.engine == "sglang" and r.check is not None:
            assert "## Example" in doc and r.upstream in doc and r.source in doc


def test_every_sglang_rule_quotes_a_message_of_sglang_0_5_23():
    """... or, for a check only older releases had (rules/legacy.py), of the newest release in its range."""
    older_only = []
    for r in all_rules().values():
        if r.engine == "sglang" and r.check is not None:
            assert r.source.startswith("sglang/"), r.code
            if r.code in VALUE_SETS:  # the release's value data holds the check and its message
                # (a check gone by 0.5.23 quotes the newest release that has it)
                vs = next(value_set(v, VALUE_SETS[r.code]) for v in versions_of(r))
                assert vs["source"] == r.source, r.code
                if vs.get("message"):
                    assert re.sub(r"\{[^}]*\}", "{}", r.upstream) == vs["message"], r.code
                continue
            if applies(r.upstream, "0.5.23"):
                continue
            versions = versions_of(r)
            assert versions and applies(r.upstream, versions[0]), f"{r.code}: upstream message in no SGLang release"
            older_only.append(r.code)
    assert sorted(older_only) == ["SGL193"] + [f"SGL9{n:02d}" for n in range(1, 16)]


def test_rule_versions_come_from_each_release_source():
    seed = get("SGL101")
    assert versions_of(seed)[:1] == ("0.5.23",)
    assert "0.4.8.post1" not in versions_of(seed)  # replay-SSM spec did not exist yet


def test_rule_lookup_by_code_or_name(capsys):
    assert get("sgl101") is get("linear-replayssm-spec-on-prefill") is get("SGL101")
    assert main(["rule", "SGL101"]) == 0
    out = capsys.readouterr().out
    assert "not supported on a PD prefill server" in out and "## Fix" in out
    assert main(["rule", "SGL999"]) == 2


def test_docs_rules_md_is_generated_and_fresh():
    with open(os.path.join(REPO, "docs", "rules.md"), encoding="utf-8") as f:
        assert f.read() == rules_markdown(), "docs/rules.md is stale: run `python -m pdlint rules --format markdown > docs/rules.md`"


def test_docs_list_the_model_and_platform_checks_not_decided():
    from pdlint.engines.sglang import unchecked
    checks = unchecked.load()
    ids = [c["id"] for c in checks]
    assert len(ids) == len(set(ids))
    # research/sglang-rules.md: 25 MODEL + 6 PLATFORM validations, 7 MODEL cross-role requirements
    assert sum(c["class"] == "MODEL" for c in checks) == 32
    assert sum(c["class"] == "PLATFORM" for c in checks) == 6
    assert all(c["source"] and c["message"] and c["condition"] for c in checks)
    doc = rules_markdown()
    section = doc[doc.index("## SGLang checks pdlint does not decide"):]
    assert all(f"`{i}`" in section for i in ids)
    # a check whose flag-decidable part pdlint reports names that rule
    row = next(line for line in section.splitlines() if line.startswith("| `pd-kv-sharding-spec`"))
    assert "[SGL167]" in row
    row = next(line for line in section.splitlines() if line.startswith("| `pd-dsa-dcp-no-pd`"))
    assert row.endswith("| - |")


def test_unchecked_list_is_generated_from_the_catalog():
    import importlib.util
    import json
    catalog = os.path.join(os.path.dirname(REPO), "shared", "research", "sglang-rules.md")
    if not os.path.exists(catalog):
        pytest.skip(f"the research catalog is not beside this checkout ({catalog})")
    spec = importlib.util.spec_from_file_location("gen", os.path.join(REPO, "scripts", "gen_sglang_unchecked.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(catalog, encoding="utf-8") as f:
        fresh = gen.unchecked(f.read())
    with open(os.path.join(REPO, "pdlint", "engines", "sglang", "data", "unchecked-0.5.23.json"), encoding="utf-8") as f:
        assert json.load(f)["checks"] == fresh, "run scripts/gen_sglang_unchecked.py"


def test_a_scan_loads_only_its_engines_rules_and_the_catalogue_stays_complete(tmp_path):
    """A scan of SGLang launches imports the rules of pdlint and SGLang only; `pdlint rules` and
    `pdlint rule CODE` after it still see every rule (the catalogue sorts them by code)."""
    import subprocess
    import sys
    (tmp_path / "run.sh").write_text("python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                     "--disaggregation-transfer-backend fake\n")
    probe = (
        "import io, json, sys, contextlib\n"
        "from pdlint.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    code = main(['check', '--no-cache', '.'])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('pdlint.engines.vllm', 'pdlint.engines.trtllm')))\n"
        "from pdlint.rules import all_rules\n"
        "with contextlib.redirect_stdout(io.StringIO()) as one:\n"
        "    main(['rule', 'VLLM001'])\n"
        "print(json.dumps([code, 'SGL104' in out.getvalue(), loaded, list(all_rules()), one.getvalue()]))\n")
    fresh = "import json; from pdlint.rules import all_rules; print(json.dumps(list(all_rules())))"
    env = dict(os.environ, PDLINT_NO_WORKER="1")
    got = json.loads(subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, check=True,
                                    capture_output=True, text=True).stdout)
    want = json.loads(subprocess.run([sys.executable, "-c", fresh], cwd=tmp_path, env=env, check=True,
                                     capture_output=True, text=True).stdout)
    code, fired, loaded, codes, vllm001 = got
    assert code == 1 and fired
    assert loaded == []
    assert sorted(codes) == sorted(want) and len(codes) == len(set(codes)) and any(c.startswith("VLLM") for c in codes) and any(c.startswith("TRT") for c in codes)
    assert vllm001.startswith("# VLLM001 ")
