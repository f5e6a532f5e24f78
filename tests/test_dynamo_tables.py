"""Tests for the Dynamo-SGLang wrapper flag tables
(pdlint/engines/sglang/data/dynamo-sglang-*.json).

They read the JSON files (and the SGLang flag tables next to them) only: no
network, no Dynamo or SGLang import.  The regeneration test rebuilds each table
from its ai-dynamo wheel when the wheel is available locally
(``PDLINT_DYNAMO_WHEELS`` or /work/wheels/dyn) and is skipped otherwise.
"""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "pdlint" / "engines" / "sglang" / "data"
GENERATOR = ROOT / "scripts" / "gen_dynamo_flags.py"
VERSIONS = ["1.6.1", "1.0.2", "0.8.1", "0.4.1"]
SGLANG_VERSIONS = ["0.5.23", "0.5.20", "0.5.15", "0.5.9", "0.4.8.post1"]
SUPPRESS = "==SUPPRESS=="

HEADER_KEYS = {
    "schema", "tool", "version", "wheel", "wheel_sha256", "generator", "entrypoint",
    "entrypoint_aliases", "parsers", "flags", "sglang_overrides",
    "disaggregation_mode_values", "sglang_config_merge", "sglang_namespace_assignments", "sglang_pin",
}
FLAG_KEYS = {
    "dest", "option_strings", "action", "nargs", "type", "choices", "default", "const",
    "required", "deprecated", "hidden", "help", "env_var", "parser", "source",
}
OPTIONAL_FLAG_KEYS = {"choices_note", "default_note", "env_var_note", "help_note", "condition"}
ACTIONS = {"store", "store_true", "store_false", "store_const", "append", "append_const",
           "count", "boolean_optional", "version", "help"}
ZERO_ARG_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count",
                    "boolean_optional", "version", "help"}

_CACHE: dict = {}


def table(version: str) -> dict:
    key = ("dynamo", version)
    if key not in _CACHE:
        with open(DATA / f"dynamo-sglang-{version}.json", encoding="utf-8") as fh:
            _CACHE[key] = json.load(fh)
    return _CACHE[key]


def sglang_options(version: str) -> set:
    key = ("sglang", version)
    if key not in _CACHE:
        from pdlint.engines.sglang.packed import flag_store
        _CACHE[key] = {o for f in flag_store().flags(version) for o in f["option_strings"]}
    return _CACHE[key]


def flags(version: str, parser: str | None = None) -> list:
    return [f for f in table(version)["flags"] if parser is None or f["parser"] == parser]


def flag(version: str, option: str) -> dict:
    found = [f for f in flags(version) if option in f["option_strings"]]
    assert len(found) == 1, f"{option}: {len(found)} registrations in Dynamo {version}"
    return found[0]


def options(version: str, parser: str | None = None) -> list:
    return [o for f in flags(version, parser) for o in f["option_strings"]]


# ---------------------------------------------------------------------------
# Structure, for every version
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_header(version):
    doc = table(version)
    assert set(doc) == HEADER_KEYS
    assert doc["schema"] == 1
    assert doc["tool"] == "ai-dynamo"
    assert doc["version"] == version
    assert doc["wheel"] == f"ai_dynamo-{version}-py3-none-any.whl"
    assert re.fullmatch(r"[0-9a-f]{64}", doc["wheel_sha256"])
    assert doc["generator"] == "scripts/gen_dynamo_flags.py"
    assert doc["entrypoint"] == "python -m dynamo.sglang"


@pytest.mark.parametrize("version,pin", [("1.6.1", "0.5.21"), ("1.0.2", "0.5.9"), ("0.8.1", "0.5.6.post2"),
                                         ("0.4.1", "0.5.0rc2")])
def test_sglang_pin_from_wheel_metadata(version, pin):
    assert table(version)["sglang_pin"] == pin


@pytest.mark.parametrize("version,aliases", [
    ("1.6.1", []), ("1.0.2", []), ("0.8.1", []),
    # 0.4.x still shipped the deprecated module spellings, running the same main().
    ("0.4.1", ["python -m dynamo.sglang.decode_worker", "python -m dynamo.sglang.worker"]),
])
def test_entrypoint_aliases(version, aliases):
    assert table(version)["entrypoint_aliases"] == aliases


@pytest.mark.parametrize("version", VERSIONS)
def test_flag_entries_well_formed(version):
    parser_names = {p["name"] for p in table(version)["parsers"]}
    for f in flags(version):
        name = f["option_strings"][0]
        assert FLAG_KEYS <= set(f) <= FLAG_KEYS | OPTIONAL_FLAG_KEYS, name
        assert f["action"] in ACTIONS, name
        assert f["parser"] in parser_names, name
        assert f["type"] is None or isinstance(f["type"], str), name
        assert f["nargs"] in (None, "+", "*", "?") or isinstance(f["nargs"], int), name
        assert f["choices"] is None or (isinstance(f["choices"], list) and f["choices"]), name
        assert isinstance(f["required"], bool) and f["required"] is False, name
        assert f["hidden"] == (f["help"] == SUPPRESS), name
        assert re.fullmatch(r"[A-Za-z_]\w*", f["dest"]), name
        assert f["env_var"] is None or re.fullmatch(r"[A-Z][A-Z0-9_]*", f["env_var"]), name
        assert re.fullmatch(r"dynamo/[\w/]+\.py:\d+", f["source"]) or \
            f["source"] == "argparse: ArgumentParser(add_help=True)", name
        if f["action"] in ZERO_ARG_ACTIONS:
            assert f["nargs"] == 0 and f["type"] is None, name
        if f["deprecated"] is not None:
            assert set(f["deprecated"]) == {"message", "replacement", "remove_in"}, name
            assert "{option_string}" in f["deprecated"]["message"], name
        for key in OPTIONAL_FLAG_KEYS - {"condition"}:
            if key in f:
                assert isinstance(f[key], str) and f[key], name
        if "condition" in f:
            assert set(f["condition"]) == {"requires_absent", "requires_present"}, name


@pytest.mark.parametrize("version", VERSIONS)
def test_option_strings_unique_per_parser(version):
    for parser in {p["name"] for p in table(version)["parsers"]}:
        opts = options(version, parser)
        assert [o for o, n in collections.Counter(opts).items() if n > 1] == []
        assert all(o.startswith("--") or o == "-h" for o in opts)


@pytest.mark.parametrize("version", VERSIONS)
def test_boolean_optional_pairs(version):
    for f in flags(version):
        if f["action"] != "boolean_optional":
            continue
        opts = f["option_strings"]
        assert len(opts) % 2 == 0
        for positive, negative in zip(opts[::2], opts[1::2]):
            assert negative == "--no-" + positive[2:]


# Counts: flags, option strings, flags per parser, action kinds.
COUNTS = {
    "1.6.1": (98, 134, {"dynamo": 57, "router": 40, "sglang": 1},
              {"store": 69, "boolean_optional": 25, "append": 1, "store_const": 1,
               "help": 1, "version": 1}),
    "1.0.2": (27, 37, {"dynamo": 27},
              {"store": 17, "boolean_optional": 8, "help": 1, "version": 1}),
    "0.8.1": (18, 19, {"dynamo": 18},
              {"store": 11, "store_true": 5, "help": 1, "version": 1}),
    "0.4.1": (4, 5, {"dynamo": 4}, {"store": 2, "help": 1, "version": 1}),
}


@pytest.mark.parametrize("version", VERSIONS)
def test_counts(version):
    n_flags, n_options, per_parser, kinds = COUNTS[version]
    assert len(flags(version)) == n_flags
    assert len(options(version)) == n_options
    assert dict(collections.Counter(f["parser"] for f in flags(version))) == per_parser
    assert dict(collections.Counter(f["action"] for f in flags(version))) == kinds


@pytest.mark.parametrize("version,deprecated,hidden,with_env", [
    ("1.6.1", 12, 5, 95), ("1.0.2", 0, 0, 25), ("0.8.1", 0, 0, 3), ("0.4.1", 0, 0, 0),
])
def test_secondary_counts(version, deprecated, hidden, with_env):
    assert sum(1 for f in flags(version) if f["deprecated"]) == deprecated
    assert sum(1 for f in flags(version) if f["hidden"]) == hidden
    assert sum(1 for f in flags(version) if f["env_var"]) == with_env


# ---------------------------------------------------------------------------
# How the parsers are chained
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version,pipeline", [
    ("1.6.1", [("dynamo", "parse_known_args", True, False),
               ("router", "parse_known_args", False, False),
               ("sglang", "parse_args", False, True)]),
    ("1.0.2", [("dynamo", "parse_known_args", True, False),
               ("sglang", "parse_args", False, True)]),
    # One parser holds Dynamo's and SGLang's options: abbreviations run over the union.
    ("0.8.1", [("dynamo", "parse_args", True, True)]),
    ("0.4.1", [("dynamo", "parse_args", True, True)]),
])
def test_parser_pipeline(version, pipeline):
    got = [(p["name"], p["method"], p["add_help"], p["sglang_flags"])
           for p in table(version)["parsers"]]
    assert got == pipeline
    assert all(p["allow_abbrev"] for p in table(version)["parsers"])


def test_sglang_options_are_not_on_the_dynamo_parser_in_split_layouts():
    """1.x copies SGLang's actions into a help group only (``_group_actions``):
    the Dynamo parser neither parses nor abbreviates them."""
    for version in ("1.6.1", "1.0.2"):
        dynamo = set(options(version, "dynamo"))
        assert "--model-path" not in dynamo and "--tp-size" not in dynamo
        assert dynamo & sglang_options("0.5.23") <= {"--enable-multimodal"}


@pytest.mark.parametrize("sglang_version", SGLANG_VERSIONS)
def test_shared_and_shadowing_options(sglang_version):
    """Exact SGLang options the Dynamo/router parsers consume, and SGLang options
    that are a strict prefix of a wrapper option (argparse would abbreviate them
    to the wrapper's option before SGLang sees them): none in these releases."""
    sg = sglang_options(sglang_version)
    for version in ("1.6.1", "1.0.2"):
        for parser in ("dynamo", "router"):
            mine = set(options(version, parser))
            shared = mine & sg
            expected = {"--enable-multimodal"} if (version, parser) == ("1.6.1", "dynamo") else set()
            assert shared == expected
            stolen = {s for s in sg - mine for o in mine if o.startswith(s)}
            assert stolen == set()
    # One parser for both: a shared option string would be an argparse conflict.
    for version in ("0.8.1", "0.4.1"):
        assert set(options(version)) & sg == set()


def test_router_parser_abbreviation_hazard():
    """--kv-events (an alias of --router-kv-events) is a prefix-match target for
    abbreviations of SGLang's --kv-events-config such as --kv-event."""
    assert "--kv-events" in options("1.6.1", "router")
    assert "--kv-events-config" in sglang_options("0.5.23")
    matches = [o for o in options("1.6.1", "router") if o.startswith("--kv-event")]
    assert matches == ["--kv-events"]


# ---------------------------------------------------------------------------
# Spot checks, Dynamo 1.6.1
# ---------------------------------------------------------------------------


def test_161_help_and_version():
    h = flag("1.6.1", "--help")
    assert (h["option_strings"], h["action"], h["parser"]) == (["-h", "--help"], "help", "dynamo")
    v = flag("1.6.1", "--version")
    assert (v["action"], v["nargs"], v["default"], v["source"]) == (
        "version", 0, SUPPRESS, "dynamo/sglang/backend_args.py:51")


def test_161_endpoint():
    f = flag("1.6.1", "--endpoint")
    assert (f["dest"], f["action"], f["type"], f["default"], f["env_var"], f["parser"]) == (
        "endpoint", "store", "str", None, "DYN_ENDPOINT", "dynamo")
    assert f["help"].endswith("\nenv var: DYN_ENDPOINT | default: None")
    assert f["source"] == "dynamo/common/configuration/groups/runtime_args.py:224"


def test_161_namespace_and_planes():
    assert flag("1.6.1", "--namespace")["default"] == "dynamo"
    assert flag("1.6.1", "--discovery-backend")["choices"] == ["kubernetes", "etcd", "file", "mem"]
    assert flag("1.6.1", "--request-plane")["choices"] == ["tcp", "nats"]
    f = flag("1.6.1", "--event-plane")
    assert (f["choices"], f["default"], f["env_var"]) == (["nats", "zmq"], None, "DYN_EVENT_PLANE")


def test_161_migration_limit_is_frontend_only():
    """The worker accepted --migration-limit up to 0.8.x; since 1.0 it is a
    frontend flag and the SGLang parser rejects it on a worker."""
    assert "--migration-limit" not in options("1.6.1")
    assert "--migration-limit" not in options("1.0.2")
    f = flag("0.8.1", "--migration-limit")
    assert (f["type"], f["default"], f["parser"]) == ("int", 0, "dynamo")
    assert flag("0.4.1", "--migration-limit")["default"] == 0


def test_161_use_sglang_tokenizer():
    f = flag("1.6.1", "--no-use-sglang-tokenizer")
    assert f["option_strings"] == ["--use-sglang-tokenizer", "--no-use-sglang-tokenizer"]
    assert (f["dest"], f["action"], f["nargs"], f["default"], f["env_var"]) == (
        "use_sglang_tokenizer", "boolean_optional", 0, False, "DYN_SGL_USE_TOKENIZER")
    assert f["help"].startswith("[Deprecated] Use SGLang's tokenizer")
    # 0.8.1 registered it as a plain store_true.
    assert flag("0.8.1", "--use-sglang-tokenizer")["action"] == "store_true"


def test_161_gateway_workers():
    f = flag("1.6.1", "--gateway-workers")
    assert (f["type"], f["default"], f["env_var"], f["nargs"]) == (
        "int", None, "DYN_SGL_GATEWAY_WORKERS", None)


def test_161_enable_multimodal_shadows_sglang():
    f = flag("1.6.1", "--enable-multimodal")
    assert f["parser"] == "dynamo"
    assert f["option_strings"] == ["--enable-multimodal", "--no-enable-multimodal"]
    assert "--enable-multimodal" in sglang_options("0.5.23")
    forwarded = [a for a in table("1.6.1")["sglang_namespace_assignments"]
                 if a["dest"] == "enable_multimodal"]
    assert forwarded and forwarded[0]["when"] == ["dynamo_config.enable_multimodal"]


def test_161_endpoint_types_obsolete_alias():
    f = flag("1.6.1", "--dyn-endpoint-types")
    assert f["option_strings"] == ["--endpoint-types", "--dyn-endpoint-types"]
    assert f["dest"] == "endpoint_types" and f["default"] == "chat,completions"
    assert f["help"].endswith("\ndeprecating flag: --dyn-endpoint-types")


def test_161_parser_choices_are_runtime():
    for option in ("--dyn-tool-call-parser", "--dyn-reasoning-parser"):
        f = flag("1.6.1", option)
        assert f["choices"] is None
        assert "cannot be evaluated statically" in f["choices_note"]


def test_161_structural_tag():
    f = flag("1.6.1", "--dyn-structural-tag")
    assert (f["nargs"], f["const"], f["type"], f["default"]) == (
        "?", "true", "_parse_structural_tag", None)
    legacy = flag("1.6.1", "--no-dyn-enable-structural-tag")
    assert legacy["hidden"] and legacy["action"] == "boolean_optional"
    assert legacy["env_var"] == "DYN_ENABLE_STRUCTURAL_TAG" and legacy["default"] is None


def test_161_engine_route_and_trace_level():
    f = flag("1.6.1", "--engine-route")
    assert (f["dest"], f["action"], f["default"], f["env_var"]) == (
        "engine_routes", "append", [], "DYN_SGLANG_ENGINE_ROUTES")
    t = flag("1.6.1", "--sglang-trace-level")
    assert (t["type"], t["choices"], t["default"], t["env_var"]) == (
        "int", [1, 2, 3, 4], 2, "SGLANG_TRACE_LEVEL")


def test_161_embedding_transfer_mode_and_frontend_decoding():
    f = flag("1.6.1", "--embedding-transfer-mode")
    assert f["choices"] == ["local", "nixl-write", "nixl-read"] and f["default"] == "nixl-write"
    d = flag("1.6.1", "--frontend-decoding")
    assert d["env_var"] == "DYN_SGL_FRONTEND_DECODING"
    assert d["source"] == "dynamo/common/configuration/groups/frontend_decoding_args.py:31"


def test_161_router_mode():
    f = flag("1.6.1", "--router-mode")
    assert f["parser"] == "router"
    assert f["default"] is None  # a worker that omits it inherits the frontend's mode
    assert f["choices"] == ["round-robin", "random", "power-of-two", "kv", "direct",
                            "least-loaded", "device-aware-weighted"]
    assert "--router-min-initial-workers" not in options("1.6.1")  # frontend only
    assert "--enforce-disagg" not in options("1.6.1")


def test_161_router_kv_events_aliases():
    f = flag("1.6.1", "--no-kv-events")
    assert f["option_strings"] == ["--router-kv-events", "--no-router-kv-events",
                                   "--kv-events", "--no-kv-events"]
    assert (f["dest"], f["default"], f["env_var"], f["parser"]) == (
        "use_kv_events", True, "DYN_ROUTER_USE_KV_EVENTS", "router")


def test_161_router_deprecations():
    f = flag("1.6.1", "--load-aware")
    assert f["action"] == "boolean_optional"
    assert f["deprecated"]["remove_in"] == "v1.7"
    assert f["help"].startswith("--load-aware is deprecated and will be removed in v1.7; ")
    w = flag("1.6.1", "--kv-overlap-score-weight")
    assert w["option_strings"] == ["--router-kv-overlap-score-weight", "--kv-overlap-score-weight"]
    assert w["hidden"] and w["env_var"] == "DYN_OVERLAP_SCORE_WEIGHT"
    assert "DYN_ROUTER_KV_OVERLAP_SCORE_WEIGHT" in w["env_var_note"]
    q = flag("1.6.1", "--router-queue-threshold")
    assert q["type"] == "nullable_float" and q["deprecated"] is not None


def test_161_router_type_converters():
    f = flag("1.6.1", "--router-prefill-load-model")
    assert f["choices"] == ["none", "ais"]
    assert f["type"] == "lambda value: 'ais' if value == 'aic' else value"
    c = flag("1.6.1", "--router-conditional-disagg-config")
    assert c["type"] == "_conditional_disagg_config_arg"
    assert flag("1.6.1", "--active-prefill-tokens-threshold")["type"] == "nullable_int"


def test_161_sglang_compat_flag():
    f = flag("1.6.1", "--disable-piecewise-cuda-graph")
    assert f["parser"] == "sglang"
    assert (f["dest"], f["action"], f["const"], f["default"], f["hidden"]) == (
        "cuda_graph_backend_prefill", "store_const", "disabled", SUPPRESS, True)
    assert f["condition"] == {"requires_absent": ["--disable-piecewise-cuda-graph"],
                              "requires_present": ["--cuda-graph-backend-prefill"]}
    # Added for SGLang 0.5.20+ (0.5.15 still has its own flag, 0.5.9 neither).
    for version, added in (("0.5.23", True), ("0.5.20", True), ("0.5.15", False),
                           ("0.5.9", False)):
        sg = sglang_options(version)
        holds = all(o not in sg for o in f["condition"]["requires_absent"]) and \
            all(o in sg for o in f["condition"]["requires_present"])
        assert holds is added, version


# ---------------------------------------------------------------------------
# Value rewriting between the parsers
# ---------------------------------------------------------------------------


def test_load_format_gms():
    assert table("1.6.1")["sglang_overrides"] == {
        "load_format": {"extra_choices": ["gms"], "source": "dynamo/sglang/args.py:586"}}
    assert table("1.0.2")["sglang_overrides"]["load_format"]["extra_choices"] == ["gms"]
    assert table("0.8.1")["sglang_overrides"] == {}


def test_disaggregation_mode_values():
    values = {v["value"]: v for v in table("1.6.1")["disaggregation_mode_values"]}
    assert set(values) == {"agg", "pd", "encode"}
    assert values["pd"]["sglang_receives"] == "null" and not values["pd"]["removed"]
    assert values["agg"]["sglang_receives"] == "null"
    assert values["encode"]["removed"] and values["encode"]["sglang_receives"] is None
    assert "multimodal_encode_worker = True" in values["encode"]["dynamo_sets"]
    for version in ("1.0.2", "0.8.1", "0.4.1"):
        assert table(version)["disaggregation_mode_values"] == []


@pytest.mark.parametrize("version,tested_on", [
    ("1.6.1", "unknown"), ("1.0.2", "unknown"), ("0.8.1", "args")])
def test_config_merge(version, tested_on):
    merge = table(version)["sglang_config_merge"]
    assert merge["trigger"] == "the exact token --config"
    assert merge["tested_on"] == tested_on
    assert table("0.4.1")["sglang_config_merge"] is None


@pytest.mark.parametrize("version", VERSIONS)
def test_bootstrap_port_is_replaced_unless_given(version):
    first = table(version)["sglang_namespace_assignments"][0]
    assert first["dest"] == "disaggregation_bootstrap_port"
    assert first["value"] == "bootstrap_port"
    assert len(first["when"]) == 1
    assert "startswith('--disaggregation-bootstrap-port')" in first["when"][0]


def test_161_namespace_assignments():
    got = [(a["dest"], a["value"]) for a in table("1.6.1")["sglang_namespace_assignments"]]
    assert ("incremental_streaming_output", "True") in got
    assert ("tokenizer_worker_num", "gateway_count") in got
    assert ("is_embedding", "True") in got
    assert len(got) == 16
    skip = [a for a in table("0.8.1")["sglang_namespace_assignments"]
            if a["dest"] == "skip_tokenizer_init"]
    assert [(a["value"], a["target"]) for a in skip] == [("False", "server_args"),
                                                          ("True", "server_args")]


# ---------------------------------------------------------------------------
# Regeneration from the wheels
# ---------------------------------------------------------------------------


def _wheel_candidates() -> list:
    spec = os.environ.get("PDLINT_DYNAMO_WHEELS", "/work/wheels/dyn")
    found = []
    for item in filter(None, spec.split(os.pathsep)):
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(path.glob("*.whl")))
        elif path.is_file():
            found.append(path)
    return found


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_dynamo_flags", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", VERSIONS)
def test_regenerates_byte_identical(version):
    doc = table(version)
    wheels = [w for w in _wheel_candidates() if w.name == doc["wheel"]]
    if not wheels:
        pytest.skip(f"{doc['wheel']} not available (set PDLINT_DYNAMO_WHEELS)")
    wheel = wheels[0]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == doc["wheel_sha256"]
    generator = _load_generator()
    rendered = generator.render(generator.build_table(str(wheel)))
    assert rendered == (DATA / f"dynamo-sglang-{version}.json").read_text(encoding="utf-8")
