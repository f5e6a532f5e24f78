"""srt-slurm override files (base + override_* / zip_override_*), TRT-LLM and vLLM
srt-slurm recipes (pdlint.formats.srt_overrides, pdlint.formats.keyed), PD051."""

import json
import os
import textwrap

from pdlint.cli import main
from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import srt_overrides as so
from pdlint.formats import yamltree as yt
from pdlint.lint import ConfigResolver

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "formats")
SRT = "srt-slurm/NVIDIA__srt-slurm__"


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def argv(launch):
    return [t.text for t in launch.argv]


def value(launch, flag):
    a = argv(launch)
    return launch.argv[len(a) - 1 - a[::-1].index(flag) + 1]  # the last occurrence wins


def test_example_override_expands_every_variant_base_excluded():
    out = extract(SRT + "examples__example-override.yaml")
    variants = sorted({(l.meta["variant"], l.unit.split("#recipe/")[1]) for l in out.launches})
    assert variants == [("override_small", "disagg-fp8-benchmark_small"), ("override_tp64", "disagg-fp8-benchmark_tp64"),
                        ("zip_override_tp_sweep[0]", "disagg-fp8-benchmark-tp16"),
                        ("zip_override_tp_sweep[1]", "disagg-fp8-benchmark-tp32"),
                        ("zip_override_tp_sweep[2]", "disagg-fp8-benchmark-tp64")]
    assert len(out.launches) == 10
    by = {(l.meta["variant"], l.role): l for l in out.launches}
    # override_tp64 replaces tp-size; override_small keeps base's; the zip sweep slices [16, 32, 64]
    assert value(by["override_tp64", "prefill"], "--tp-size").text == "64"
    assert value(by["override_small", "prefill"], "--tp-size").text == "8"
    assert value(by["override_small", "prefill"], "--tp-size").origin.line == 42  # written once in base
    tps = [value(by[f"zip_override_tp_sweep[{i}]", "decode"], "--tp-size") for i in range(3)]
    assert [t.text for t in tps] == ["16", "32", "64"] and len({t.origin.column for t in tps}) == 3
    # srtctl writes --disaggregation-mode from the key; the image names the release
    p = by["override_tp64", "prefill"]
    # (after the --served-model-name srtctl passes before it, from the recipe's first section that names one)
    assert argv(p)[:2] == ["--served-model-name", "deepseek-ai/DeepSeek-R1"]
    assert argv(p)[2:4] == ["--disaggregation-mode", "prefill"] and p.argv[2].origin.line == 39
    assert p.parsed.version == "0.5.5.post2"  # lmsysorg+sglang+v0.5.5.post2.sqsh


def test_zip_override_recipe_with_many_variants_shares_base_lines(capsys, monkeypatch):
    out = extract(SRT + "recipes__b200-fp4__1k1k.yaml")
    assert len(out.launches) == 16 and {l.role for l in out.launches} == {"prefill", "decode"}
    assert len({l.unit for l in out.launches}) == 8  # one recipe per variant
    monkeypatch.chdir(DATA)
    main(["--format", "json", SRT + "recipes__b200-fp4__1k1k.yaml"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    dep = [f for f in findings if f["code"] == "SGL008" and f["line"] == 98]
    assert len(dep) == 1 and len(dep[0]["related"]) == 8  # a base line all 8 decode variants reach: one finding


def test_override_deep_merge_null_deletes_and_lists_replace():
    root = yt.Ref(yt.compose(textwrap.dedent("""\
        base:
          name: j
          a: {x: 1, y: [1, 2], z: 3}
        override_o:
          a: {y: [9], z: null, w: 4}
        zip_override_s:
          name: [n0, n1]
          a: {x: [5, 6], y: [[7, 8]]}
        """))[0].root)
    variants, errors = so.variants(root)
    assert not errors
    got = {v.label: (v.name, yt.to_python(v.root)) for v in variants}
    assert got["override_o"] == ("j_o", {"name": "j", "a": {"x": 1, "y": [9], "w": 4}})
    assert got["zip_override_s[0]"] == ("n0", {"name": "n0", "a": {"x": 5, "y": [7, 8], "z": 3}})
    assert got["zip_override_s[1]"][1]["a"]["x"] == 6


def test_pd051_zip_lengths_srtctl_refuses(tmp_path):
    (tmp_path / "r.yaml").write_text(textwrap.dedent("""\
        base:
          name: j
          backend:
            sglang_config:
              prefill: {disaggregation-mode: prefill, tp-size: 4}
              decode: {disaggregation-mode: decode, tp-size: 4}
        zip_override_bad:
          backend:
            sglang_config:
              prefill: {tp-size: [4, 8], max-running-requests: [64, 128, 256]}
        zip_override_none:
          name: x
        override_ok:
          backend: {sglang_config: {decode: {tp-size: 8}}}
        """))
    out = extract("r.yaml", cwd=str(tmp_path))
    found = sorted((f.line, f.code, f.severity) for f in out.findings if f.code == "PD051")
    assert found == [(7, "PD051", "error"), (11, "PD051", "error")]
    msgs = " ".join(f.message for f in out.findings if f.code == "PD051")
    assert "Incompatible zip lengths [2, 3]" in msgs and "no list values" in msgs
    assert [l.meta["variant"] for l in out.launches] == ["override_ok", "override_ok"]  # the rest still checked


def test_pd051_quiet_on_valid_override_files():
    out = extract(SRT + "examples__example-override.yaml", SRT + "recipes__gb200-fp8__8k1k__low-latency.yaml")
    assert not [f for f in out.findings if f.code == "PD051"]


def test_srt_slurm_trtllm_and_vllm_recipes():
    out = extract(SRT + "recipes__trtllm__gb300-fp8__1k1k__mtp__ctx1_gen4_tep8_batch4_eplb0_mtp3_24.yaml")
    p, d = sorted(out.launches, key=lambda l: l.line)
    assert (p.engine, p.role, d.role, p.entrypoint) == ("trtllm", "prefill", "decode", "python -m dynamo.trtllm")
    assert p.meta["settings"]["cache_transceiver_config.backend"].text == "UCX"
    assert p.env["TLLM_LOG_LEVEL"].text == "INFO" and p.meta["replicas"] == 1
    out = extract(SRT + "recipes__vllm__qwen3-32b__disagg-kv-router.yaml")
    p, d = sorted(out.launches, key=lambda l: l.line)
    assert (p.engine, p.role, d.role, p.entrypoint) == ("vllm", "prefill", "decode", "python -m dynamo.vllm")
    assert argv(p)[:4] == ["--served-model-name", "Qwen/Qwen3-32B", "--tensor-parallel-size", "2"]
    assert "--async-scheduling" in argv(p) and "true" not in argv(p)  # a true switch is a bare flag
    assert not [f for f in out.findings if f.severity == "error"]


def test_recipe_setting_its_own_mode_gets_no_duplicate_at_srtctl_token():
    # b200-fp4/1k1k.yaml writes `disaggregation-mode: "prefill"` under sglang_config.prefill (line 83): srtctl's
    # own --disaggregation-mode comes first and the recipe's wins, so nothing changes and nothing is reported at
    # the key srtctl reads (line 76); the mode is the recipe's own token
    out = extract(SRT + "recipes__b200-fp4__1k1k.yaml")
    assert not [f for f in out.findings if f.code == "SGL007"]
    p = next(l for l in out.launches if l.role == "prefill")
    assert argv(p).count("--disaggregation-mode") == 1
    i = argv(p).index("--disaggregation-mode")
    assert (p.argv[i].origin.line, p.argv[i + 1].text) == (83, "prefill")


def test_recipe_mode_naming_the_other_role_is_reported_at_the_recipe_key(tmp_path):
    (tmp_path / "r.yaml").write_text(textwrap.dedent("""\
        name: j
        model: {container: "lmsysorg/sglang:v0.5.9"}
        backend:
          sglang_config:
            prefill: {disaggregation-mode: decode, tp-size: 4}
            decode: {tp-size: 4}
        """))
    out = extract("r.yaml", cwd=str(tmp_path))
    (f,) = [f for f in out.findings if f.code == "PD101"]
    assert f.line == 5 and not [f for f in out.findings if f.code == "SGL007"]
    d = next(l for l in out.launches if l.structural_role == "decode")
    assert argv(d)[:2] == ["--disaggregation-mode", "decode"] and d.argv[0].origin.line == 6  # srtctl's, at the key


def test_sglang_config_becomes_flags_as_srtctl_writes_them(tmp_path, capsys, monkeypatch):
    """srtctl's _config_to_cli_args (NVIDIA/srt-slurm src/srtctl/backends/sglang.py): true is the bare flag
    whatever the flag is, false and null write nothing.  pdlint wrote `--prefill-round-robin-balance true`
    (the flag is not in the newest table), a false SGL011 'unrecognized arguments: true' against 0.5.19, whose
    own parser accepts the bare flag (its DeprecatedAction only warns; scripts/sglang_oracle_legacy.py)."""
    (tmp_path / "recipe.yaml").write_text(textwrap.dedent("""\
        name: r
        model: {path: /m, container: "lmsysorg+sglang+v0.5.19.sqsh"}
        resources: {prefill_workers: 1, decode_workers: 1}
        backend:
          type: sglang
          sglang_config:
            prefill:
              tp-size: 4
            decode:
              tp-size: 4
              prefill-round-robin-balance: true
              enable-metrics: false
              chunked-prefill-size: null
              mem-fraction-static: true
        """))
    monkeypatch.chdir(tmp_path)
    main(["check", "--format", "json", "--exit-zero", "recipe.yaml"])
    doc = json.loads(capsys.readouterr().out)
    decode = next(l for l in doc["launches"] if l["role"] == "decode")
    assert decode["argv"][-4:] == ["--tp-size", "4", "--prefill-round-robin-balance", "--mem-fraction-static"], \
        decode["argv"]
    codes = {f["code"] for f in doc["findings"] if f["severity"] == "error"}
    assert "SGL011" not in codes, doc["findings"]  # no stray 'true'
    # a value flag set to true is written bare too, and SGLang refuses it: expected one argument
    bad = [f for f in doc["findings"] if f["severity"] == "error" and "mem-fraction-static" in f["message"]]
    assert bad, doc["findings"]
