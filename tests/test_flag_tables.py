"""Tests for the generated SGLang flag tables (pdlint/engines/sglang/data/flags-*.json).

They read the JSON files only: no network, no SGLang import.  The
regeneration test rebuilds each table from its wheel when the wheel is
available locally (``PDLINT_SGLANG_WHEELS`` or /work/wheels) and is skipped
otherwise.
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
GENERATOR = ROOT / "scripts" / "gen_sglang_flags.py"
VERSIONS = ["0.5.23", "0.5.20", "0.5.15", "0.5.9", "0.4.8.post1"]
SUPPRESS = "==SUPPRESS=="

FLAG_KEYS = {
    "dest", "option_strings", "action", "type", "nargs", "choices", "default",
    "const", "required", "deprecated", "hidden", "help", "source",
}
OPTIONAL_FLAG_KEYS = {"choices_note", "default_note"}
ACTIONS = {
    "store", "store_true", "store_false", "store_const", "append", "count",
    "boolean_optional", "deprecated_store_true", "deprecated_store_const",
    "deprecated", "deprecated_alias_store", "lora_path",
}
ZERO_ARG_ACTIONS = {"store_true", "store_false", "store_const", "count",
                    "boolean_optional", "deprecated_store_true"}


_CACHE: dict = {}


def table(version: str) -> dict:
    """The release's table as the generator wrote it (unpacked from data/sglang-flags.jsonl)."""
    if version not in _CACHE:
        from pdlint.engines.sglang.packed import flag_store
        _CACHE[version] = flag_store().table(version)
    return _CACHE[version]


def flags(version: str) -> list:
    return table(version)["flags"]


def by_option(version: str) -> dict:
    return {opt: f for f in flags(version) for opt in f["option_strings"]}


def flag(version: str, option: str) -> dict:
    found = by_option(version).get(option)
    assert found is not None, f"{option} is not registered in SGLang {version}"
    return found


def option_strings(version: str) -> list:
    return [opt for f in flags(version) for opt in f["option_strings"]]


def hand_registered(version: str) -> list:
    return [f for f in flags(version) if f["source"].startswith("sglang/srt/server_args.py:")]


# ---------------------------------------------------------------------------
# Structure, for every version
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_header(version):
    doc = table(version)
    assert set(doc) == {"schema", "engine", "version", "wheel", "wheel_sha256",
                        "generator", "prog", "flags"}
    assert doc["schema"] == 1
    assert doc["engine"] == "sglang"
    assert doc["version"] == version
    assert doc["wheel"].startswith(f"sglang-{version}-") and doc["wheel"].endswith(".whl")
    assert re.fullmatch(r"[0-9a-f]{64}", doc["wheel_sha256"])
    assert doc["generator"] == "scripts/gen_sglang_flags.py"


@pytest.mark.parametrize("version,prog", [
    ("0.5.23", "sglang serve"), ("0.5.20", "sglang serve"), ("0.5.15", "sglang serve"),
    # prepare_server_args builds ArgumentParser() without prog before 0.5.15.
    ("0.5.9", None), ("0.4.8.post1", None),
])
def test_prog(version, prog):
    assert table(version)["prog"] == prog


@pytest.mark.parametrize("version", VERSIONS)
def test_flag_entries_well_formed(version):
    for f in flags(version):
        name = f["option_strings"][0]
        assert FLAG_KEYS <= set(f) <= FLAG_KEYS | OPTIONAL_FLAG_KEYS, name
        assert f["action"] in ACTIONS or f["action"].startswith("custom:"), name
        assert f["type"] is None or isinstance(f["type"], str), name
        assert f["nargs"] in (None, "+", "*", "?") or isinstance(f["nargs"], int), name
        assert f["choices"] is None or (isinstance(f["choices"], list) and f["choices"]), name
        assert isinstance(f["required"], bool) and isinstance(f["hidden"], bool), name
        assert f["hidden"] == (f["help"] == SUPPRESS), name
        assert re.fullmatch(r"sglang/[\w/]+\.py:\d+", f["source"]), name
        assert re.fullmatch(r"[A-Za-z_]\w*", f["dest"]), name
        if f["action"] in ZERO_ARG_ACTIONS:
            assert f["nargs"] == 0 and f["type"] is None, name
        if f["deprecated"] is not None:
            assert set(f["deprecated"]) == {"message", "replacement"}, name
            assert f["deprecated"]["message"], name
        for note in OPTIONAL_FLAG_KEYS & set(f):
            assert isinstance(f[note], str) and f[note], name


@pytest.mark.parametrize("version", VERSIONS)
def test_option_strings_are_long_and_unique(version):
    opts = option_strings(version)
    assert all(opt.startswith("--") and len(opt) > 2 for opt in opts)
    duplicates = [o for o, n in collections.Counter(opts).items() if n > 1]
    assert duplicates == []
    assert "--help" not in opts and "-h" not in opts


@pytest.mark.parametrize("version", VERSIONS)
def test_boolean_optional_pairs(version):
    for f in flags(version):
        if f["action"] != "boolean_optional":
            continue
        opts = f["option_strings"]
        assert len(opts) % 2 == 0
        for positive, negative in zip(opts[::2], opts[1::2]):
            assert negative == "--no-" + positive[2:]


@pytest.mark.parametrize("version", VERSIONS)
def test_dests_consistent(version):
    """Flags sharing a dest are deprecated spellings of (at most) one current flag,
    which registers first."""
    groups = collections.defaultdict(list)
    for f in flags(version):
        groups[f["dest"]].append(f)
    for dest, members in groups.items():
        if len(members) == 1:
            continue
        current = [m for m in members if m["deprecated"] is None]
        assert len(current) <= 1, dest
        if current:
            assert members[0] is current[0], dest


@pytest.mark.parametrize("version", VERSIONS)
def test_default_among_choices(version):
    """SGLang's own default is one of the choices, except where SGLang itself violates it."""
    exceptions = {"0.5.23": {"--monokernel-backend"}}  # default False, choices ["amd"]
    for f in flags(version):
        default = f["default"]
        if f["choices"] is None or default is None or default == SUPPRESS:
            continue
        values = default if isinstance(default, list) else [default]
        inside = all(v in f["choices"] for v in values)
        if f["option_strings"][0] in exceptions.get(version, ()):
            assert not inside
        else:
            assert inside, (f["option_strings"][0], default)


@pytest.mark.parametrize("version", VERSIONS)
def test_only_model_path_required(version):
    required = [f["option_strings"] for f in flags(version) if f["required"]]
    assert required == [["--model-path", "--model"]]


def test_packed_file_is_canonical():
    """data/sglang-flags.jsonl is exactly what the packer writes for the tables it holds (so a hand edit
    or a stale pool entry fails), and every release of it has a table."""
    from pdlint.engines.sglang import packed
    text = (DATA / packed.FLAGS_FILE).read_text(encoding="utf-8")
    store = packed.FlagStore(text)
    tables = [store.table(v) for v in store.versions]
    assert packed.pack_flags(tables) == text
    assert len(store.versions) == len(set(store.versions)) >= 90


def test_packed_messages_are_canonical():
    from pdlint.engines.sglang import packed
    text = (DATA / packed.MESSAGES_FILE).read_text(encoding="utf-8")
    store = packed.MessageStore(text)
    assert packed.pack_messages([store.doc(v) for v in store.versions]) == text
    assert set(store.versions) == set(packed.flag_store().versions)


# ---------------------------------------------------------------------------
# Pinned counts
# ---------------------------------------------------------------------------

COUNTS = {
    # flags, distinct option strings, distinct dests, flags with choices, action kinds, nargs
    "0.5.23": (531, 559, 530, 96,
               {"store": 356, "store_true": 159, "boolean_optional": 12,
                "deprecated_store_true": 2, "deprecated_store_const": 1, "lora_path": 1},
               {"+": 19, "*": 4, "?": 1}),
    "0.5.20": (494, 513, 494, 91,
               {"store": 336, "store_true": 150, "boolean_optional": 6,
                "deprecated_store_true": 1, "lora_path": 1},
               {"+": 18, "*": 4, "?": 1}),
    "0.5.15": (437, 451, 422, 75,
               {"store": 280, "store_true": 132, "boolean_optional": 2,
                "deprecated_store_true": 5, "deprecated_store_const": 3,
                "deprecated_alias_store": 12, "custom:DeprecatedAction": 2, "lora_path": 1},
               {"+": 18, "*": 4, "?": 1}),
    "0.5.9": (331, 341, 331, 54,
              {"store": 235, "store_true": 93, "custom:DeprecatedAction": 2, "lora_path": 1},
              {"+": 14, "*": 4, "?": 1}),
    "0.4.8.post1": (161, 167, 161, 19,
                    {"store": 111, "store_true": 49, "lora_path": 1},
                    {"+": 4, "*": 2}),
}


@pytest.mark.parametrize("version", VERSIONS)
def test_counts(version):
    n_flags, n_opts, n_dests, n_choices, actions, nargs = COUNTS[version]
    fl = flags(version)
    assert len(fl) == n_flags
    assert len(set(option_strings(version))) == n_opts
    assert len({f["dest"] for f in fl}) == n_dests
    assert sum(f["choices"] is not None for f in fl) == n_choices
    assert dict(collections.Counter(f["action"] for f in fl)) == actions
    counted = collections.Counter(f["nargs"] for f in fl if f["nargs"] not in (None, 0))
    assert dict(counted) == nargs


def test_0_5_23_option_string_breakdown():
    """559 = 522 primary + 16 aliases + 12 --no-* forms + 9 hand-registered."""
    derived = [f for f in flags("0.5.23") if f not in hand_registered("0.5.23")]
    hand = hand_registered("0.5.23")
    assert len(derived) == 522 and len(hand) == 9
    no_forms = [o for f in derived if f["action"] == "boolean_optional"
                for o in f["option_strings"][1::2]]
    aliases = [o for f in derived
               for o in (f["option_strings"][2::2] if f["action"] == "boolean_optional"
                         else f["option_strings"][1:])]
    assert len(no_forms) == 12
    assert len(aliases) == 16
    assert sum(len(f["option_strings"]) for f in hand) == 9
    assert [f["option_strings"][0] for f in hand] == [
        "--sampling-backend", "--reasoning-parser", "--tool-call-parser",
        "--kv-canary-real-data", "--config", "--disable-cuda-graph",
        "--enable-dp-attention", "--monokernel-backend",
        "--enable-flashinfer-allreduce-fusion",
    ]
    assert sum(f["choices"] is not None for f in hand) == 5
    assert {f["option_strings"][0] for f in flags("0.5.23") if f["hidden"]} == {
        "--forward-pass-metrics-worker-id", "--forward-pass-metrics-ipc-name"}


def test_0_5_23_shared_dest():
    shared = [f["option_strings"][0] for f in flags("0.5.23") if f["dest"] == "enable_amd_monokernel"]
    assert shared == ["--enable-amd-monokernel", "--monokernel-backend"]


def test_0_5_23_aliases():
    expected = {
        "--model-path": ["--model"],
        "--tp-size": ["--tensor-parallel-size"],
        "--pp-size": ["--pipeline-parallel-size"],
        "--dp-size": ["--data-parallel-size"],
        "--attn-dp-size": ["--attention-data-parallel-size"],
        "--dist-init-addr": ["--nccl-init-addr"],
        "--enable-hierarchical-cache": ["--enable-hicache"],
        "--cuda-graph-prefill-max-context": ["--context-bucket"],
    }
    for primary, aliases in expected.items():
        assert flag("0.5.23", primary)["option_strings"] == [primary] + aliases
    ep = flag("0.5.23", "--ep")
    assert ep["dest"] == "ep_size" and "--expert-parallel-size" in ep["option_strings"]


# ---------------------------------------------------------------------------
# Spot checks
# ---------------------------------------------------------------------------

# (version, option, expected subset of the flag entry)
SPOT_CHECKS = [
    # --- 0.5.23: PD disaggregation -------------------------------------------
    ("0.5.23", "--disaggregation-mode",
     dict(dest="disaggregation_mode", action="store", type="str",
          choices=["null", "prefill", "decode"], default="null", required=False)),
    ("0.5.23", "--disaggregation-transfer-backend",
     dict(type="str", default="mooncake",
          choices=["mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"])),
    ("0.5.23", "--disaggregation-bootstrap-port", dict(type="int", default=8998, nargs=None)),
    ("0.5.23", "--disaggregation-ib-device", dict(type="str", default=None, choices=None)),
    ("0.5.23", "--disaggregation-decode-enable-radix-cache",
     dict(action="store_true", default=False, const=True, nargs=0, type=None)),
    ("0.5.23", "--disaggregation-decode-retraction-backup",
     dict(type="str", default=None, choices=["cpu_tensor", "host_pool", "none"])),
    ("0.5.23", "--disaggregation-decode-allocation-policy",
     dict(default="early", choices=["early", "prefill_complete"])),
    ("0.5.23", "--disaggregation-decode-host-receive-threshold", dict(type="float", default=1.0)),
    ("0.5.23", "--disaggregation-decode-extra-slots", dict(type="int", default=None)),
    ("0.5.23", "--disaggregation-decode-polling-interval", dict(type="int", default=1)),
    ("0.5.23", "--num-reserved-decode-tokens", dict(type="int", default=512)),
    ("0.5.23", "--encoder-urls", dict(type="str", nargs="+", default=[])),
    ("0.5.23", "--encoder-register-urls", dict(type="str", nargs="+", default=[])),
    ("0.5.23", "--encoder-transfer-backend",
     dict(default="auto", choices=["auto", "zmq_to_scheduler", "zmq_to_tokenizer", "mooncake"])),
    ("0.5.23", "--encoder-bootstrap-port", dict(type="int", default=8997)),
    ("0.5.23", "--sm-group-num", dict(type="int", default=8)),
    ("0.5.23", "--decoupled-spec-role", dict(default="null", choices=["null", "verifier", "drafter"])),
    ("0.5.23", "--decoupled-spec-connect-endpoints",
     dict(type="json_list_type", nargs=None, default=None)),
    # --- 0.5.23: parallelism, memory, scheduling -------------------------------
    ("0.5.23", "--tp-size",
     dict(dest="tp_size", option_strings=["--tp-size", "--tensor-parallel-size"],
          type="int", default=1, action="store")),
    ("0.5.23", "--tensor-parallel-size", dict(dest="tp_size")),
    ("0.5.23", "--attn-dp-size", dict(type="int", default=1)),
    ("0.5.23", "--pp-size", dict(type="int", default=1)),
    ("0.5.23", "--dp-size", dict(type="int", default=1)),
    ("0.5.23", "--cp-strategy", dict(default=None, choices=["zigzag", "interleave"])),
    ("0.5.23", "--page-size", dict(type="int", default=None)),
    ("0.5.23", "--mem-fraction-static", dict(type="float", default=None)),
    ("0.5.23", "--max-prefill-tokens", dict(type="human_readable_int", default=16384)),
    ("0.5.23", "--context-length", dict(type="human_readable_int", default=None)),
    ("0.5.23", "--sampling-mask-max-tokens", dict(type="int", default=4096)),
    ("0.5.23", "--kv-cache-dtype",
     dict(default="auto", choices=["auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16",
                                   "bfloat16", "nvfp4", "fp4_mx_block16"])),
    ("0.5.23", "--load-balance-method",
     dict(default="auto", choices=["auto", "round_robin", "follow_bootstrap_room",
                                   "total_requests", "total_tokens"])),
    ("0.5.23", "--enable-hierarchical-cache",
     dict(option_strings=["--enable-hierarchical-cache", "--enable-hicache"],
          action="store_true", default=False)),
    ("0.5.23", "--enable-hicache", dict(dest="enable_hierarchical_cache")),
    ("0.5.23", "--hicache-write-policy",
     dict(default="write_through",
          choices=["write_back", "write_through", "write_through_selective"])),
    ("0.5.23", "--host", dict(type="str", default="127.0.0.1")),
    ("0.5.23", "--port", dict(type="int", default=30000)),
    ("0.5.23", "--nnodes", dict(type="int", default=1)),
    ("0.5.23", "--node-rank", dict(type="int", default=0)),
    ("0.5.23", "--dist-init-addr",
     dict(option_strings=["--dist-init-addr", "--nccl-init-addr"], default=None)),
    ("0.5.23", "--speculative-algorithm", dict(type="str", choices=None, default=None)),
    ("0.5.23", "--cuda-graph-bs-decode", dict(type="int", nargs="+", default=None)),
    ("0.5.23", "--cuda-graph-bs-prefill", dict(type="int", nargs="+", default=None)),
    ("0.5.23", "--cuda-graph-config", dict(type="parse_cuda_graph_config_arg")),
    ("0.5.23", "--cuda-graph-backend-decode",
     dict(type="parse_cuda_graph_backend_arg", choices=["full", "breakable", "disabled"])),
    ("0.5.23", "--json-model-override-args", dict(type="str", default="{}")),
    ("0.5.23", "--radix-eviction-policy-config", dict(type="json.loads", default=None)),
    ("0.5.23", "--quantization-param-path", dict(type="nullable_str")),
    ("0.5.23", "--fp8-gemm-backend", dict(dest="fp8_gemm_runner_backend", default="auto")),
    ("0.5.23", "--elastic-ep-join-mode", dict(dest="ep_join_mode", choices=["scale", "recover"])),
    ("0.5.23", "--elastic-ep-backend",
     dict(type="str", default=None, choices=["none", "mooncake", "nixl"])),
    ("0.5.23", "--model-checksum", dict(type="str", nargs="?", const="", default=None)),
    ("0.5.23", "--model-path",
     dict(option_strings=["--model-path", "--model"], type="str", required=True, default=None)),
    ("0.5.23", "--lora-paths", dict(action="lora_path", type="str", nargs="*", default=None)),
    ("0.5.23", "--lora-strict-loading",
     dict(action="boolean_optional", default=False, nargs=0, type=None,
          option_strings=["--lora-strict-loading", "--no-lora-strict-loading"])),
    ("0.5.23", "--dllm-fdfo",
     dict(action="boolean_optional", default=True,
          option_strings=["--dllm-fdfo", "--no-dllm-fdfo"])),
    ("0.5.23", "--enable-tf32-matmul", dict(action="boolean_optional", default=None)),
    ("0.5.23", "--forward-pass-metrics-worker-id", dict(hidden=True, help=SUPPRESS, default="")),
    # --- 0.5.23: hand-registered -----------------------------------------------
    ("0.5.23", "--config", dict(type="str", default=None, action="store", choices=None)),
    ("0.5.23", "--sampling-backend",
     dict(type="str", default=None, choices=["ascend", "flashinfer", "intel_xpu", "pytorch"])),
    ("0.5.23", "--kv-canary-real-data",
     dict(type="str", default="none", choices=["none", "partial", "all"])),
    ("0.5.23", "--disable-cuda-graph",
     dict(action="deprecated_store_true", dest="disable_cuda_graph", nargs=0, const=True,
          default=False,
          deprecated={"message": "'{option_string}' is deprecated and will be removed in a "
                                 "future release. Use '--cuda-graph-backend-{decode,prefill}"
                                 "=disabled' instead.",
                      "replacement": "--cuda-graph-backend-{decode,prefill}=disabled"})),
    ("0.5.23", "--enable-dp-attention",
     dict(action="deprecated_store_true", default=False)),
    ("0.5.23", "--monokernel-backend",
     dict(action="deprecated_store_const", dest="enable_amd_monokernel", nargs=None,
          choices=["amd"], const=True, default=False, type=None)),
    ("0.5.23", "--enable-flashinfer-allreduce-fusion",
     dict(action="store_true", deprecated=None, default=False)),
    # --- 0.5.20 -----------------------------------------------------------------
    ("0.5.20", "--disaggregation-mode", dict(choices=["null", "prefill", "decode"], default="null")),
    ("0.5.20", "--disaggregation-transfer-backend",
     dict(default="mooncake",
          choices=["mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"])),
    ("0.5.20", "--disaggregation-bootstrap-port", dict(type="int", default=8998)),
    ("0.5.20", "--tp-size", dict(option_strings=["--tp-size", "--tensor-parallel-size"], default=1)),
    ("0.5.20", "--enable-dp-attention", dict(action="store_true", deprecated=None)),
    ("0.5.20", "--enable-hierarchical-cache",
     dict(option_strings=["--enable-hierarchical-cache"], action="store_true")),
    ("0.5.20", "--disable-cuda-graph", dict(action="deprecated_store_true")),
    ("0.5.20", "--lora-strict-loading", dict(action="boolean_optional", default=False)),
    ("0.5.20", "--kv-cache-dtype",
     dict(default="auto", choices=["auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16",
                                   "bfloat16", "nvfp4", "fp4_mx_block16", "fp4_e2m1"])),
    ("0.5.20", "--elastic-ep-backend", dict(choices=["none", "mooncake", "nixl"], type="str")),
    ("0.5.20", "--model-checksum", dict(nargs="?", const="")),
    ("0.5.20", "--encoder-urls", dict(nargs="+", default=[])),
    ("0.5.20", "--sampling-backend", dict(choices=["ascend", "flashinfer", "pytorch"])),
    ("0.5.20", "--load-balance-method", dict(default="auto")),
    # --- 0.5.15 -----------------------------------------------------------------
    ("0.5.15", "--disaggregation-mode", dict(choices=["null", "prefill", "decode"], default="null")),
    ("0.5.15", "--disaggregation-transfer-backend",
     dict(default="mooncake",
          choices=["mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"])),
    ("0.5.15", "--disaggregation-bootstrap-port", dict(type="int", default=8998)),
    # dcp_size is declared twice in the ServerArgs dataclass; it registers once.
    ("0.5.15", "--dcp-size",
     dict(option_strings=["--dcp-size", "--decode-context-parallel-size"], default=1,
          source="sglang/srt/server_args.py:877")),
    ("0.5.15", "--prefill-round-robin-balance",
     dict(action="custom:DeprecatedAction", nargs=0,
          deprecated={"message": "The command line argument '{option_string}' is deprecated "
                                 "and will be removed in future versions.",
                      "replacement": None})),
    ("0.5.15", "--stream-output",
     dict(action="deprecated_store_true", dest="incremental_streaming_output")),
    ("0.5.15", "--nsa-prefill-backend",
     dict(action="deprecated_alias_store", dest="dsa_prefill_backend", default=SUPPRESS,
          type="str")),
    ("0.5.15", "--enable-breakable-cuda-graph",
     dict(action="deprecated_store_const", dest="cuda_graph_backend_prefill", nargs=0,
          const="breakable")),
    ("0.5.15", "--cuda-graph-bs",
     dict(action="deprecated_alias_store", dest="cuda_graph_bs_decode", type="int", nargs="+")),
    ("0.5.15", "--speculative-dflash-draft-window-size", dict(hidden=True, type="int")),
    ("0.5.15", "--enable-dp-attention", dict(action="store_true")),
    ("0.5.15", "--speculative-algorithm", dict(choices=None)),
    ("0.5.15", "--kv-cache-dtype",
     dict(choices=["auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16", "fp4_e2m1"])),
    ("0.5.15", "--encoder-transfer-backend", dict(default="zmq_to_scheduler")),
    # --- 0.5.9 ------------------------------------------------------------------
    ("0.5.9", "--disaggregation-mode", dict(choices=["null", "prefill", "decode"], default="null")),
    ("0.5.9", "--disaggregation-transfer-backend",
     dict(default="mooncake", choices=["mooncake", "nixl", "ascend", "fake", "mori"])),
    ("0.5.9", "--disaggregation-decode-tp", dict(type="int", default=None)),
    ("0.5.9", "--disaggregation-decode-dp", dict(type="int", default=None)),
    ("0.5.9", "--disaggregation-prefill-pp", dict(type="int", default=1)),
    ("0.5.9", "--prefill-round-robin-balance", dict(action="custom:DeprecatedAction", nargs=0)),
    ("0.5.9", "--hybrid-kvcache-ratio", dict(action="custom:DeprecatedAction")),
    # argparse's dest comes from the first long option; from_cli_args renames it.
    ("0.5.9", "--tp-size",
     dict(option_strings=["--tensor-parallel-size", "--tp-size"],
          dest="tensor_parallel_size", default=1)),
    ("0.5.9", "--ep",
     dict(option_strings=["--expert-parallel-size", "--ep-size", "--ep"],
          dest="expert_parallel_size")),
    ("0.5.9", "--speculative-algorithm",
     dict(choices=["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM"])),
    ("0.5.9", "--cuda-graph-bs", dict(action="store", type="int", nargs="+", default=None)),
    ("0.5.9", "--load-balance-method", dict(default="auto")),
    ("0.5.9", "--elastic-ep-backend", dict(choices=["none", "mooncake"])),
    ("0.5.9", "--enable-dp-attention", dict(action="store_true")),
    ("0.5.9", "--model-checksum", dict(nargs="?", const="")),
    ("0.5.9", "--json-model-override-args", dict(type="str", default="{}")),
    # --- 0.4.8.post1 ------------------------------------------------------------
    ("0.4.8.post1", "--disaggregation-mode",
     dict(choices=["null", "prefill", "decode"], default="null")),
    ("0.4.8.post1", "--disaggregation-transfer-backend",
     dict(default="mooncake", choices=["mooncake", "nixl"])),
    ("0.4.8.post1", "--disaggregation-bootstrap-port", dict(type="int", default=8998)),
    ("0.4.8.post1", "--disaggregation-decode-tp", dict(type="int", default=None)),
    ("0.4.8.post1", "--disaggregation-decode-dp", dict(type="int", default=None)),
    ("0.4.8.post1", "--disaggregation-prefill-pp", dict(type="int", default=1)),
    ("0.4.8.post1", "--load-balance-method",
     dict(default="round_robin", choices=["round_robin", "shortest_queue"])),
    ("0.4.8.post1", "--kv-cache-dtype", dict(choices=["auto", "fp8_e5m2", "fp8_e4m3"])),
    ("0.4.8.post1", "--tp-size", dict(dest="tensor_parallel_size", default=1)),
    ("0.4.8.post1", "--ep-size",
     dict(option_strings=["--expert-parallel-size", "--ep-size"], dest="expert_parallel_size")),
    ("0.4.8.post1", "--cuda-graph-bs", dict(type="int", nargs="+")),
    ("0.4.8.post1", "--lora-paths", dict(action="lora_path", nargs="*")),
    ("0.4.8.post1", "--speculative-algorithm", dict(choices=["EAGLE", "EAGLE3", "NEXTN"])),
    ("0.4.8.post1", "--page-size", dict(type="int", default=1)),
    ("0.4.8.post1", "--hicache-write-policy", dict(default="write_through_selective")),
]


@pytest.mark.parametrize(
    "version,option,expected", SPOT_CHECKS,
    ids=[f"{v}:{o}" for v, o, _ in SPOT_CHECKS],
)
def test_spot_check(version, option, expected):
    entry = flag(version, option)
    for key, value in expected.items():
        assert entry[key] == value, (key, entry[key])


def test_spot_check_coverage():
    per_version = collections.Counter(v for v, _, _ in SPOT_CHECKS)
    assert per_version["0.5.23"] >= 30
    assert all(per_version[v] >= 10 for v in VERSIONS)


@pytest.mark.parametrize("version,present", [
    ("0.5.23", False), ("0.5.20", False), ("0.5.15", False), ("0.5.9", True),
    ("0.4.8.post1", True),
])
def test_pd_parallel_overrides_presence(version, present):
    opts = by_option(version)
    for option in ("--disaggregation-decode-tp", "--disaggregation-decode-dp",
                   "--disaggregation-prefill-pp"):
        assert (option in opts) == present, option


@pytest.mark.parametrize("version,present", [
    ("0.5.23", False), ("0.5.20", False), ("0.5.15", True), ("0.5.9", True),
    ("0.4.8.post1", False),
])
def test_prefill_round_robin_balance_presence(version, present):
    assert ("--prefill-round-robin-balance" in by_option(version)) == present


def test_cuda_graph_bs_history():
    """Plain list flag up to 0.5.9, deprecated alias in 0.5.15, gone afterwards."""
    assert flag("0.4.8.post1", "--cuda-graph-bs")["action"] == "store"
    assert flag("0.5.9", "--cuda-graph-bs")["action"] == "store"
    assert flag("0.5.15", "--cuda-graph-bs")["action"] == "deprecated_alias_store"
    assert "--cuda-graph-bs" not in by_option("0.5.20")
    assert "--cuda-graph-bs" not in by_option("0.5.23")


def test_plugin_and_env_dependent_choices_are_noted():
    assert "token_oracle" in flag("0.5.23", "--sampling-backend")["choices_note"]
    for option in ("--reasoning-parser", "--tool-call-parser"):
        entry = flag("0.5.23", option)
        assert entry["choices"][0] == "auto" and "choices_note" in entry
    note = flag("0.5.23", "--disaggregation-transfer-backend")["choices_note"]
    assert "add_disagg_transfer_backend_choices" in note
    assert "choices_note" not in flag("0.5.23", "--disaggregation-mode")
    assert not any("default_note" in f for v in VERSIONS for f in flags(v))


# ---------------------------------------------------------------------------
# Regeneration from the wheels (skipped when the wheels are not available)
# ---------------------------------------------------------------------------


def _wheel_candidates() -> list:
    spec = os.environ.get("PDLINT_SGLANG_WHEELS", "/work/wheels")
    found = []
    for item in filter(None, spec.split(os.pathsep)):
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(path.glob("*.whl")))
        elif path.is_file():
            found.append(path)
    return found


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_sglang_flags", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


def _regenerate(version: str) -> None:
    doc = table(version)
    wheels = [w for w in _wheel_candidates() if w.name == doc["wheel"]]
    if not wheels:
        pytest.skip(f"{doc['wheel']} not available (set PDLINT_SGLANG_WHEELS)")
    wheel = wheels[0]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == doc["wheel_sha256"]
    generator = _load_generator()
    assert generator.render(generator.build_table(str(wheel))) == generator.render(doc), version


@pytest.mark.parametrize("version", VERSIONS)
def test_regenerates_identical(version):
    """The packed table is what the generator makes of the release's wheel."""
    _regenerate(version)


def test_regenerates_every_release():
    """Every packed release (about 4 s each: opt in with PDLINT_REGEN_ALL=1)."""
    if not os.environ.get("PDLINT_REGEN_ALL"):
        pytest.skip("set PDLINT_REGEN_ALL=1 to regenerate every release from its wheel")
    from pdlint.engines.sglang.packed import flag_store
    for version in flag_store().versions:
        _regenerate(version)
