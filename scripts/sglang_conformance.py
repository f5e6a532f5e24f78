#!/usr/bin/env python3
"""Judge pdlint against SGLang's own argument resolution.

Runs SGLang's real ``prepare_server_args`` + resolution + ``check_server_args``
through the oracle in ``../shared/tools/sglang-oracle`` (CPU-only, fake GPU,
tiny config-only models) on

* every rule's firing and quiet examples (pdlint must agree on each), and
* a few hundred random combinations of PD flags and roles (pdlint must never
  report an error where SGLang accepts, and must report one on at least 99 %
  of the combinations SGLang rejects for a reason decidable from flags),

then prints the agreement figures and every disagreement.  ``--write`` records
the cases and SGLang's verdicts in ``tests/conformance/recorded-<version>.jsonl``,
which the always-on test suite replays without the oracle; run it again after a
new SGLang release (with a new oracle venv) to refresh them.

Older releases (``--release 0.5.9``): the oracle is ``scripts/sglang_oracle_legacy.py`` in a
venv with that release (``scripts/make_sglang_oracle_venv.sh RELEASE DIR``), which runs the
release's own checks (``ServerArgs.__post_init__`` + ``check_server_args`` up to 0.5.19,
the resolution pipeline from 0.5.20).  pdlint judges against that release's table; the rule
examples run are those of the rules whose release range includes it, and the random lines
draw their flags from the release's own table (:func:`release_pool`).  The thresholds are
the issue's for every release: no error where SGLang accepts, >= 99 % of the flag-decidable
rejections caught.

Usage::

    python scripts/sglang_conformance.py --oracle-python /path/to/oracle-venv/bin/python \\
        [--release 0.5.23] [--combos 300] [--seed 23] [--codes SGL1] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

DEFAULT_ORACLE_SCRIPT = os.path.join(REPO, "..", "shared", "tools", "sglang-oracle", "sglang_oracle.py")
LEGACY_ORACLE_SCRIPT = os.path.join(HERE, "sglang_oracle_legacy.py")
RESEARCH = os.path.join(REPO, "..", "shared", "research", "sglang-rules.md")
VERSION = "0.5.23"  # the release the shared oracle runs; older ones run through LEGACY_ORACLE_SCRIPT
# the recorded older releases (tests/conformance/recorded-<release>.jsonl), each judged by its own oracle
OLDER_RELEASES = ("0.5.21", "0.5.15", "0.5.9", "0.4.8.post1")


def threshold(version: str) -> float:
    """The share of flag-decidable rejections pdlint must catch."""
    return 0.99

# (flag, values) pool for random combinations: PD-relevant flags whose checks
# are decidable from the command line, plus a few harmless neighbours.
POOL = [
    ("--disaggregation-transfer-backend", ["mooncake", "nixl", "fake", "mooncake_tcp", "mori"]),
    ("--disaggregation-decode-enable-radix-cache", None),
    ("--enable-hierarchical-cache", None),
    ("--disaggregation-decode-retraction-backup", ["cpu_tensor", "host_pool", "none"]),
    ("--disaggregation-decode-host-receive-threshold", ["0.5", "1.0", "2"]),
    ("--disaggregation-decode-enable-offload-kvcache", None),
    ("--hicache-storage-backend", ["file"]),
    ("--hicache-write-policy", ["write_back", "write_through"]),
    ("--disaggregation-decode-allocation-policy", ["early", "prefill_complete"]),
    ("--tp-size", ["1", "2"]),
    ("--pp-size", ["1", "2"]),
    ("--dcp-size", ["1", "2"]),
    ("--enable-pd-role-switch", None),
    ("--speculative-algorithm", ["NGRAM", "DSPARK", "STANDALONE"]),
    ("--enable-linear-replayssm-spec", None),
    ("--enable-linear-replayssm", None),
    ("--enable-kv-cache-sharding", None),
    ("--enable-lmcache", None),
    ("--enable-response-store", None),
    ("--encoder-only", None),
    ("--language-only", None),
    ("--chunked-prefill-size", ["100", "128", "4096"]),
    ("--page-size", ["1", "16", "64"]),
    ("--disable-radix-cache", None),
    ("--enable-priority-scheduling", None),
    ("--disable-priority-preemption", None),
    ("--load-balance-method", ["round_robin", "auto", "total_requests"]),
    ("--attn-dp-size", ["1", "2"]),
    ("--dwdp-size", ["2"]),
    ("--enable-metrics", None),
    ("--mem-fraction-static", ["0.8"]),
    ("--disaggregation-bootstrap-port", ["8998", "9001"]),
    ("--kv-cache-dtype", ["auto", "fp8_e4m3"]),
]


def rule_cases(codes_prefix: str = "", version: str = VERSION) -> list:
    """The examples of every rule whose release range includes ``version`` (for a release other than
    :data:`VERSION`, SGLang rules only, and examples written with options the release has). An example that
    names its release (``ex(..., version=)``: a check some releases only make) runs in that release only."""
    from pdlint.engines.sglang.judge import example_argv
    from pdlint.engines.sglang.versions import rule_applies
    from pdlint.rules import all_rules
    cases = []
    for rule in sorted(all_rules().values(), key=lambda r: r.code):
        if not rule.code.startswith(codes_prefix or ""):
            continue
        if rule.engine == "sglang" and not rule_applies(rule, version) or version != VERSION and rule.engine != "sglang":
            continue
        for i, e in enumerate(rule.examples):
            pinned = getattr(e, "version", "")
            if pinned and pinned != version or not pinned and version != VERSION and \
                    missing_flags(shlex.split(example_argv(e.argv)), version):
                continue  # another release's example, or one that cannot be written here (see skipped_examples)
            cases.append({"id": f"{rule.code}-{'fire' if e.fires else 'quiet'}-{i}",
                          "argv": shlex.split(example_argv(e.argv)), "env": dict(e.env),
                          "kind": "rule", "rule": rule.code, "fires": e.fires,
                          "warning": rule.severity != "error", "startup": startup_check(rule, version)})
    return cases


def missing_flags(argv: list, version: str) -> list:
    """The options of ``argv`` that ``version``'s parser does not accept (nor as an abbreviation)."""
    from pdlint.engines.sglang.flags import releases_accepting
    return [w for w in argv if w.startswith("--") and version not in releases_accepting(w)]


def skipped_examples(version: str) -> list:
    """``(example id, options)`` of the examples of rules that apply to ``version`` whose command line
    uses options the release does not have: SGLang and pdlint both reject those at argparse, so they
    test nothing about the rule there."""
    from pdlint.engines.sglang.judge import example_argv
    from pdlint.engines.sglang.versions import rule_applies
    from pdlint.rules import all_rules
    out = []
    for rule in sorted(all_rules().values(), key=lambda r: r.code):
        if version == VERSION or not (rule.engine == "sglang" and rule_applies(rule, version)):
            continue
        for i, e in enumerate(rule.examples):
            missing = missing_flags(shlex.split(example_argv(e.argv)), version)
            if missing:
                out.append((f"{rule.code}-{'fire' if e.fires else 'quiet'}-{i}", missing))
    return out


# the modules whose checks the oracles reach: the shared oracle (0.5.23) resolves the arguments through the
# pipeline, which also builds the model config and looks up the registries; the legacy oracle (older releases)
# runs ServerArgs.__post_init__ and check_server_args
LAUNCH_MODULES = ("sglang/srt/arg_groups/", "sglang/srt/server_args.py", "sglang/srt/speculative/spec_info.py")
RESOLUTION_MODULES = LAUNCH_MODULES + ("sglang/srt/dllm/", "sglang/srt/configs/")


def startup_check(rule, version: str = VERSION) -> bool:
    """A check SGLang runs after argument resolution, while the scheduler starts
    (``disaggregation/``, ``mem_cache/``, ``managers/``): the oracle cannot
    reach it, so SGLang's argument resolution accepts its firing examples.  A value-set rule (``valueset=``)
    is placed by the release's own check (data/sglang-values.jsonl): a registry look-up, a logging level or
    ``json.loads`` where that release makes it, and a PD feature the release cannot run (``unsupported``)
    at the first batch."""
    from pdlint.engines.sglang.versions import VALUE_SETS, value_set
    if rule.engine != "sglang" or rule.check is None:
        return False
    if rule.code in VALUE_SETS:
        vs = value_set(version, VALUE_SETS[rule.code])
        if vs is None or vs.get("kind") == "unsupported":
            return True
        return not vs["source"].startswith(RESOLUTION_MODULES if version == VERSION else LAUNCH_MODULES)
    return not rule.source.startswith(LAUNCH_MODULES)


# the topics of the flags an older release's random lines draw from its own table (beside POOL):
# PD disaggregation and what its checks read
RELEASE_TOPICS = re.compile(
    r"disaggregation|speculative|hicache|hierarchical|radix|chunked_prefill|page_size|pp_size|"
    r"pipeline|tp_size|tensor_parallel|dp_size|data_parallel|ep_size|expert_parallel|dp_attention|"
    r"deepep|moe_a2a|attention_backend|kv_cache_dtype|cuda_graph|overlap|mixed_chunk|lmcache|"
    r"load_balance|priority|encoder|language_only|dcp|attn_cp|context_parallel|mamba|num_reserved")
INT_VALUES = ("1", "2", "4")
FLOAT_VALUES = ("0.5", "1.0", "2")


def release_pool(version: str) -> list:
    """``(flag, values)`` for random lines of ``version``, from that release's own table: the
    :data:`POOL` flags it has (values it does not offer as choices replaced by its own), then its
    other flags on :data:`RELEASE_TOPICS` (choices, or small numbers for int/float options).
    0.5.23 keeps :data:`POOL` exactly (its recorded lines were drawn from it)."""
    if version == VERSION:
        return list(POOL)
    from pdlint.engines.sglang.flags import load
    table = load(version)
    pool, seen = [], set()

    def values_of(flag, given):
        if flag.nargs_zero:
            return None
        if flag.choices:
            keep = [v for v in (given or ()) if v in flag.choices]
            extra = [str(c) for c in flag.choices if str(c) not in keep and c is not None]
            return (keep + extra)[:5] or None
        if given:
            return list(given)
        if flag.type == "int":
            return list(INT_VALUES)
        if flag.type == "float":
            return list(FLOAT_VALUES)
        return False  # a free-form value (path, JSON, name): not drawn

    for option, given in POOL:
        flag = table.lookup(option)
        if flag is None or flag.deprecated or flag.dest in seen:
            continue
        vals = values_of(flag, given)
        if vals is not False:
            pool.append((flag.primary if option not in flag.option_strings else option, vals))
            seen.add(flag.dest)
    for flag in table.flags:
        if flag.dest in seen or flag.deprecated or flag.hidden or flag.dest in ("model_path", "disaggregation_mode"):
            continue
        if not RELEASE_TOPICS.search(flag.dest) or not flag.primary.startswith("--"):
            continue
        vals = values_of(flag, None)
        if vals is False:
            continue
        pool.append((flag.primary, vals))
        seen.add(flag.dest)
    return pool


# value-set flags SGLang checks after argparse (some values outside the set)
VALUE_POOL = [
    ("--speculative-algorithm", ["auto", "nextn", "eagle", "default"]),
    ("--log-level", ["warning", "debug", "none", "trace"]),
    ("--json-model-override-args", ['{"rope_theta": 1000000}', "{'rope_theta': 1}", "[1]"]),
    ("--model-config-parser", ["auto", "hf", "HF"]),
    ("--dllm-algorithm", ["low_confidence"]),
    ("--enable-pdmux", None),
]


def combo_cases(n: int, seed: int, version: str = VERSION) -> list:
    """``n`` random PD command lines; about one in five moves some of its flags into a ``--config`` YAML file
    (``case['files']``: name -> text, the name written in the argv), sometimes with what SGLang's config merger
    refuses or reads differently (underscore keys, a refused action, null, a list root, a .json name, two files,
    ``--config=``). Older releases keep the lines their recorded verdicts were drawn with (their own pool, flags on
    the command line)."""
    rng = random.Random(seed)
    pool = release_pool(version)
    cases = []
    for i in range(n):
        role = rng.choice(["prefill", "decode", "null", "prefill", "decode"])
        argv = ["--model-path", "@TINY@"]
        if version != VERSION:
            if role != "null":
                argv += ["--disaggregation-mode", role]
            for flag, values in rng.sample(pool, rng.randint(1, 4)):
                argv.append(flag)
                if values:
                    argv.append(rng.choice(values))
            cases.append({"id": f"combo-{seed}-{i}", "argv": argv, "env": {}, "kind": "combo"})
            continue
        picks = rng.sample(pool, rng.randint(1, 4))
        if rng.random() < 0.25:
            picks.append(rng.choice(VALUE_POOL))
        flags = [] if role == "null" else [("--disaggregation-mode", role)]
        for flag, values in picks:
            flags.append((flag, rng.choice(values) if values else None))
        case = {"id": f"combo-{seed}-{i}", "env": {}, "kind": "combo"}
        if rng.random() < 0.2:
            argv = _with_config(rng, case, argv, flags, f"combo-{seed}-{i}")
        else:
            for flag, value in flags:
                argv.append(flag)
                if value is not None:
                    argv.append(value)
        case["argv"] = argv
        cases.append(case)
    return cases


def _with_config(rng, case: dict, argv: list, flags: list, stem: str) -> list:
    """Put a random part of ``flags`` into a config file (SGLang's ``--config``: ``flag-name: value``, ``true`` for
    a switch); the rest stays on the command line."""
    import yaml
    moved = [f for f in flags if rng.random() < 0.7] or flags[:1]
    kept = [f for f in flags if f not in moved]
    doc = {}
    for flag, value in moved:
        key = flag[2:]
        if rng.random() < 0.08:
            key = key.replace("-", "_")  # SGL020
        doc[key] = True if value is None else (int(value) if value.lstrip("-").isdigit() else value)
    if rng.random() < 0.05:
        doc["enable-tf32-matmul"] = True  # a BooleanOptionalAction flag: the merger refuses it (SGL021)
    if rng.random() < 0.05:
        doc["disaggregation-ib-device"] = None  # null: the string 'None' (SGL022)
    text = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    if rng.random() < 0.03:
        text = yaml.safe_dump([doc], sort_keys=False)  # a list root (SGL026)
    name = stem + (".json" if rng.random() < 0.03 else ".yaml")  # SGL025
    case["files"] = {name: text}
    out = list(argv)
    form = rng.random()
    if form < 0.04:
        out.append(f"--config={name}")  # read by argparse, never merged (SGL024)
    else:
        out += ["--config", name]
        if form < 0.07:
            second = stem + "-b.yaml"
            case["files"][second] = "tp-size: 1\n"
            out += ["--config", second]  # SGL023
    for flag, value in kept:
        out.append(flag)
        if value is not None:
            out.append(value)
    return out


def oracle_release(python: str) -> str:
    """The SGLang release installed in an oracle venv."""
    proc = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('sglang'))"],
                          capture_output=True, text=True)
    return proc.stdout.strip()


def run_oracle(cases: list, python: str, script: str, version: str = VERSION) -> dict:
    have = oracle_release(python)
    if have != version:
        raise RuntimeError(f"the oracle venv {python} has SGLang {have or '(none)'}, not {version}")
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(inp, "w") as f:
            for c in cases:
                f.write(json.dumps({"id": c["id"], "argv": _oracle_argv(c, tmp), "env": c.get("env") or {}}) + "\n")
        proc = subprocess.run([python, script, "--stage", "launch", "--batch", inp, "--out", out],
                              capture_output=True, text=True)
        if proc.returncode not in (0,) or not os.path.exists(out):
            raise RuntimeError(f"oracle failed ({proc.returncode}): {proc.stderr[-2000:]}")
        results = {}
        with open(out) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    r = json.loads(line)
                    results[r["id"]] = r
        return results


def _oracle_argv(case: dict, tmp: str) -> list:
    """The case's argv for the oracle: its ``--config`` files written under ``tmp`` and named by path."""
    files = case.get("files") or {}
    if not files:
        return case["argv"]
    paths = {}
    for name, text in files.items():
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], "w", encoding="utf-8") as f:
            f.write(text)
    out = []
    for w in case["argv"]:
        if w in paths:
            w = paths[w]
        elif w.startswith("--config=") and w[len("--config="):] in paths:
            w = "--config=" + paths[w[len("--config="):]]
        out.append(w)
    return out


def pdlint_verdict(case: dict, version: str = VERSION):
    from pdlint.engines.sglang.judge import judge
    return judge(case["argv"], case.get("env") or {}, version, files=case.get("files"))


def research_classes() -> list:
    """(message prefix, class) for every catalogued SGLang check."""
    out = []
    try:
        text = open(RESEARCH, encoding="utf-8").read()
    except OSError:
        return out
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        msgs = re.findall(r"`([^`]{12,})`", " ".join(cells[2:4]))
        klass = next((c for c in cells if c in ("STATIC", "ENV", "MODEL", "PLATFORM", "STATIC*")), None)
        for m in msgs:
            prefix = re.split(r"\{", m, 1)[0][:60]
            if len(prefix) >= 12 and klass:
                out.append((prefix, klass))
    return out


# Rejections the research catalogue does not list but that depend on the
# model's architecture (the tiny Llama is not a VLM, not MLA ...).
MODEL_MESSAGES = (
    "is not supported for encoder disaggregation",
    # 0.5.21: --mamba-radix-cache-strategy extra_buffer(_lazy) on a model without mamba state (the tiny Llama)
    "needs mamba state, got",
    # the draft can be bundled with the target checkpoint
    "DSpark dense speculative decoding requires setting --speculative-draft-model-path",
)
# rejections that depend on the GPU unless a flag fixes the value SGLang otherwise derives from it:
# the attention backend (H200 resolves fa3, Ampere flashinfer), the chunked prefill size (from GPU memory:
# 8192 on an H200, 2048 below 35 GB)
PLATFORM_UNLESS = (
    ("> 1 with page_size(", "--attention-backend"),
    ("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "--chunked-prefill-size"),
)
# rejections of older releases that depend on the GPU or on what the host has installed, not on the flags
PLATFORM_MESSAGES = (
    # 0.5.9: --mamba-backend flashinfer imports flashinfer's mamba module (the deployment image has it, the
    # oracle venv does not)
    "FlashInfer mamba module not available",
    # 0.5.9 / 0.5.15: trtllm_mha needs SM100; the oracle emulates an H200 (SM90)
    "TRTLLM MHA backend is only supported on Blackwell GPUs",
    "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs",
    # 0.5.21: the FA4 MXFP8 attention path needs SM100+
    "requires an SM100+ (Blackwell) GPU",
)


# KV-cache sharding needs prefill CP for a GQA/MHA model but plain TP > 1 (no attention DP) for an MLA one:
# with --tp-size > 1 and no attention DP the verdict depends on the checkpoint
KV_SHARD_TOPOLOGY = "--enable-kv-cache-sharding for GQA models shards across attention-CP ranks"


def _plain_tp_over_one(case: dict) -> bool:
    words = list(case.get("argv") or ())
    for text in (case.get("files") or {}).values():
        words += [w for line in text.splitlines() for w in line.replace(":", " ", 1).split()]
    tp, dp = 1, 1
    for i, w in enumerate(words[:-1]):
        if w.lstrip("-") in ("tp-size", "tp", "tensor-parallel-size") and words[i + 1].isdigit():
            tp = int(words[i + 1])
        if w.lstrip("-") in ("attn-dp-size", "dp-size") and words[i + 1].isdigit():
            dp = max(dp, int(words[i + 1]))
    return tp > 1 and dp <= 1


def decidable(oracle: dict, classes: list, case: Optional[dict] = None) -> tuple:
    """Is an oracle REJECT decidable from flags?  (bool, reason)"""
    msg = oracle.get("message") or ""
    if any(m in msg for m in MODEL_MESSAGES):
        return False, "MODEL"
    if KV_SHARD_TOPOLOGY in msg and _plain_tp_over_one(case or oracle):
        return False, "MODEL"
    if any(m in msg for m in PLATFORM_MESSAGES):
        return False, "PLATFORM"
    for fragment, flag in PLATFORM_UNLESS:
        if fragment in msg and not any(a.startswith(flag) for a in oracle.get("argv", [])):
            return False, "PLATFORM"
    if oracle.get("phase") == "parse" or oracle.get("error_type") == "SystemExit":
        return True, "argparse"
    for prefix, klass in classes:
        if msg.startswith(prefix) or prefix in msg:
            return klass in ("STATIC", "ENV", "STATIC*"), klass
    return True, "uncatalogued"


def _logged(case: dict, oracle: dict) -> bool:
    """A warning rule's message is among the warnings SGLang logged for the case."""
    if not case.get("warning"):
        return False
    from pdlint.rules import get
    frag = re.split(r"\{", get(case["rule"]).upstream, 1)[0][:60]
    return any(frag in w for w in (oracle.get("warnings") or []))


# pdlint's argparse-level findings (unknown / ambiguous option, missing value, bad choice or type, a flag of
# other releases)
ARGPARSE_CODES = frozenset({"SGL001", "SGL002", "SGL003", "SGL004", "SGL005", "SGL006", "SGL009", "SGL011"})


def compare(cases: list, oracle: dict, version: str = VERSION) -> dict:
    from pdlint.engines.sglang.rulebase import UNSEEN
    from pdlint.rules import all_rules, get as get_rule
    all_rules()  # registers the rules (and fills UNSEEN)
    classes = research_classes()
    report = {"rule_total": 0, "rule_agree": 0, "rule_disagree": [], "rule_not_applicable": [], "release_accepts": [], "release_refuses": [],
              "combo_total": 0, "accepts": 0,
              "startup_examples": 0, "startup_rejects": [],
              "false_errors": [], "rejects_decidable": 0, "rejects_caught": 0, "missed": [],
              "rejects_not_decidable": [], "oracle_errors": []}
    for c in cases:
        o = oracle.get(c["id"])
        if o is None or o.get("verdict") == "ORACLE_ERROR":
            report["oracle_errors"].append((c["id"], (o or {}).get("message")))
            continue
        sg_reject = o["verdict"] == "REJECT"
        j = pdlint_verdict(c, version)
        if c["kind"] == "rule" and c["fires"] and c.get("warning") and c["rule"] in UNSEEN:
            # a warning about a launch SGLang refuses unless what pdlint cannot see saves it (the GPU picking
            # the default backend, an environment set elsewhere): the oracle, which has neither, refuses it
            report["rule_total"] += 1
            if sg_reject and c["rule"] in j.codes and not j.reject:
                report["rule_agree"] += 1
            else:
                report["rule_disagree"].append((c["id"], shlex.join(c["argv"]), o["verdict"], o.get("message"),
                                                j.errors))
            continue
        if c["kind"] == "rule" and version != VERSION and o.get("phase") == "parse" and j.errors and set(
                j.errors) <= ARGPARSE_CODES and sg_reject:
            # the example cannot be written for this release (a value its parser does not offer): both refuse it
            # at argparse, which tests nothing about the rule
            report["rule_not_applicable"].append((c["id"], shlex.join(c["argv"]), o.get("message")))
            continue
        if (c["kind"] == "rule" and version != VERSION and not c["fires"] and sg_reject and j.reject
                and c["rule"] not in j.codes):
            # a quiet example another check of this release refuses, and pdlint with it
            report["rule_not_applicable"].append((c["id"], shlex.join(c["argv"]),
                                                  f"{o.get('message')} (pdlint: {', '.join(j.errors)})"))
            continue
        if c["kind"] == "rule" and version != VERSION:
            # an example written for the reference release, run on an older one: its intent (fires / quiet)
            # can be wrong there, the verdicts must still agree
            ok, why = decidable(o, classes, c) if sg_reject else (True, "")
            if sg_reject and not ok and not c["fires"] and not j.reject:
                # a quiet example this release refuses for a model / platform reason on the emulated H200
                report["rule_not_applicable"].append((c["id"], shlex.join(c["argv"]), f"[{why}] {o.get('message')}"))
                continue
            fired = c["rule"] in j.codes
            if not c["fires"] and not sg_reject and j.reject and all(startup_check(get_rule(e), version)
                                                                     for e in j.errors):
                # a quiet example on which pdlint reports only start-up checks of this release (beyond the
                # oracle's reach): as for the random lines, counted apart
                report["rule_not_applicable"].append((c["id"], shlex.join(c["argv"]),
                                                      f"start-up checks only (pdlint: {', '.join(j.errors)})"))
                continue
            if c["fires"] and not sg_reject and not j.reject and not fired and not _logged(c, o):
                # a firing example this release accepts (the check is newer, or its condition was narrower),
                # and pdlint's rule knows it: quiet on this release too
                report["rule_total"] += 1
                report["rule_agree"] += 1
                report["release_accepts"].append(c["id"])
                continue
            if not c["fires"] and sg_reject and j.reject and fired:
                # a quiet example this release refuses with the rule's own message (its condition was wider)
                report["rule_total"] += 1
                report["rule_agree"] += 1
                report["release_refuses"].append(c["id"])
                continue
        if c["kind"] == "rule":
            # an error rule's firing example must be rejected by both; a warning
            # rule's firing example is accepted by SGLang, which logs the warning
            # pdlint quotes; a quiet example is accepted by both
            report["rule_total"] += 1
            expect_reject = c["fires"] and not c.get("warning")
            if c.get("startup") and c["fires"]:
                # SGLang's resolution accepts; the check runs at start-up (a value-set check an older release
                # makes while its ServerArgs is built, e.g. 0.5.9's ModelConfig json.loads, is refused there)
                from pdlint.engines.sglang.versions import VALUE_SETS
                early = sg_reject and j.reject and c["rule"] in VALUE_SETS and c["rule"] in j.errors
                if early or not sg_reject and j.reject == (not c.get("warning")):
                    report["rule_agree"] += 1
                    report["startup_examples"] += 1
                else:
                    report["rule_disagree"].append((c["id"], shlex.join(c["argv"]), o["verdict"], o.get("message"),
                                                    j.errors))
                continue
            logged = _logged(c, o) if c["fires"] and c.get("warning") else True
            if sg_reject == expect_reject and j.reject == expect_reject and logged:
                report["rule_agree"] += 1
            else:
                report["rule_disagree"].append((c["id"], shlex.join(c["argv"]), o["verdict"], o.get("message"),
                                                j.errors))
            continue
        report["combo_total"] += 1
        if not sg_reject:
            report["accepts"] += 1
            from pdlint.rules import all_rules
            beyond = [code for code in j.errors if startup_check(all_rules()[code], version)]
            if j.reject and len(beyond) == len(j.errors):
                report["startup_rejects"].append((c["id"], shlex.join(c["argv"]), j.errors))
            elif j.reject:
                report["false_errors"].append((c["id"], shlex.join(c["argv"]), j.errors, j.messages))
        else:
            ok, why = decidable(o, classes, c)
            if not ok:
                report["rejects_not_decidable"].append((c["id"], shlex.join(c["argv"]), why, o.get("message")))
                continue
            report["rejects_decidable"] += 1
            if j.reject:
                report["rejects_caught"] += 1
            else:
                report["missed"].append((c["id"], shlex.join(c["argv"]), why, o.get("message"), o.get("where")))
    return report


def print_report(r: dict) -> None:
    pct = lambda a, b: f"{100.0 * a / b:.1f}%" if b else "n/a"
    print(f"rule examples: {r['rule_agree']}/{r['rule_total']} agree ({pct(r['rule_agree'], r['rule_total'])})")
    for d in r["rule_disagree"]:
        print(f"  DISAGREE {d[0]}: {d[1]}\n    SGLang {d[2]}: {d[3]}\n    pdlint errors: {d[4]}")
    if r["release_accepts"]:
        print(f"  (of which firing examples this release accepts, pdlint quiet on it too: {len(r['release_accepts'])}: "
              f"{' '.join(r['release_accepts'])})")
    if r["release_refuses"]:
        print(f"  (of which quiet examples this release refuses with the rule's own message, pdlint too: "
              f"{len(r['release_refuses'])}: {' '.join(r['release_refuses'])})")
    if r["rule_not_applicable"]:
        print(f"  not applicable to this release (both refuse the example at argparse, or for another check): "
              f"{len(r['rule_not_applicable'])}")
        for d in r["rule_not_applicable"]:
            print(f"    {d[0]}: {d[1]}\n      SGLang: {d[2]}")
    print(f"random combinations: {r['combo_total']} ({r['accepts']} accepted by SGLang)")
    print(f"  ({r['startup_examples']} rule examples are start-up checks: resolution accepts, start-up fails)")
    print(f"  pdlint errors where SGLang accepts: {len(r['false_errors'])}")
    if r["startup_rejects"]:
        print(f"  pdlint errors from start-up checks only (beyond argument resolution): {len(r['startup_rejects'])}")
        for d in r["startup_rejects"]:
            print(f"    {d[0]}: {d[1]} -> {d[2]}")
    for d in r["false_errors"]:
        print(f"    {d[0]}: {d[1]}\n      pdlint: {d[2]} {d[3][:2]}")
    print(f"  SGLang rejects decidable from flags: {r['rejects_decidable']}, pdlint caught "
          f"{r['rejects_caught']} ({pct(r['rejects_caught'], r['rejects_decidable'])})")
    for d in r["missed"]:
        print(f"    MISSED {d[0]}: {d[1]}\n      SGLang ({d[2]}) at {d[4]}: {d[3]}")
    print(f"  SGLang rejects not decidable from flags (model/platform): {len(r['rejects_not_decidable'])}")
    for d in r["rejects_not_decidable"]:
        print(f"    {d[0]} [{d[2]}]: {d[3]}")
    if r["oracle_errors"]:
        print(f"oracle errors: {len(r['oracle_errors'])}")
        for d in r["oracle_errors"]:
            print(f"    {d[0]}: {d[1]}")


def recorded_path(version: str = VERSION) -> str:
    return os.path.join(REPO, "tests", "conformance", f"recorded-{version}.jsonl")


def write_recorded(cases: list, oracle: dict, codes: str = "", rules_only: bool = False,
                   version: str = VERSION) -> None:
    """Record the verdicts of this run.  A partial run (``--codes``, ``--rules-only``) keeps the recorded
    verdicts of the cases it did not run; the file stays in rule-example order, then combination order."""
    records = {}
    if codes or rules_only:
        try:
            with open(recorded_path(version), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        rec = json.loads(line)
                        rerun = (rec["kind"] == "rule" and rec["rule"].startswith(codes)) or (
                            rec["kind"] == "combo" and not rules_only)
                        if not rerun:
                            records[rec["id"]] = rec
        except FileNotFoundError:
            pass
    for c in cases:
        o = oracle.get(c["id"])
        if o is None or o.get("verdict") == "ORACLE_ERROR":
            continue
        rec = {"id": c["id"], "argv": c["argv"], "env": c.get("env") or {}, "kind": c["kind"],
               **({"files": c["files"]} if c.get("files") else {}),
               "verdict": o["verdict"], "message": o.get("message"), "where": o.get("where"),
               "phase": o.get("phase"), "error_type": o.get("error_type"),
               "warnings": o.get("warnings") or []}
        if c["kind"] == "rule":
            rec["rule"] = c["rule"]
            rec["fires"] = c["fires"]
        records[c["id"]] = rec
    order = {c["id"]: i for i, c in enumerate(rule_cases(version=version))}

    def position(rec):
        if rec["kind"] == "rule":
            return (0, order.get(rec["id"], len(order)), rec["id"])
        return (1, int(rec["id"].rsplit("-", 1)[-1]), rec["id"])

    with open(recorded_path(version), "w", encoding="utf-8") as f:
        for rec in sorted(records.values(), key=position):
            f.write(json.dumps(rec, sort_keys=True) + "\n")


def replay(version: str = VERSION) -> tuple:
    """``(cases, oracle)`` from ``recorded-<version>.jsonl``: the recorded random lines, and the recorded rule
    examples that still are current examples (same id and command line) of a rule that applies to ``version``."""
    current = {c["id"]: c for c in rule_cases(version=version)}
    cases, oracle = [], {}
    with open(recorded_path(version), encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r["kind"] == "rule":
                c = current.get(r["id"])
                if c is None or c["argv"] != r["argv"]:
                    continue  # changed or no longer applies since recording
            else:
                c = {"id": r["id"], "argv": r["argv"], "env": r["env"], "kind": "combo", "files": r.get("files")}
            cases.append(c)
            oracle[r["id"]] = r
    return cases, oracle


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--oracle-python", default=os.environ.get("PDLINT_ORACLE_PYTHON"),
                   help="python of the oracle venv (env PDLINT_ORACLE_PYTHON)")
    p.add_argument("--oracle-script", default=None,
                   help="the oracle (default: the shared one for 0.5.23, scripts/sglang_oracle_legacy.py for "
                        "older releases; env PDLINT_ORACLE_SCRIPT for 0.5.23)")
    p.add_argument("--release", "--oracle-version", dest="release", default=VERSION,
                   help="the SGLang release the oracle venv has; pdlint judges against its table")
    p.add_argument("--combos", type=int, default=300)
    p.add_argument("--seed", type=int, default=23)
    p.add_argument("--codes", default="", help="only rules whose code starts with this")
    p.add_argument("--rules-only", action="store_true")
    p.add_argument("--write", action="store_true", help="record verdicts in tests/conformance/recorded-RELEASE.jsonl")
    p.add_argument("--replay", action="store_true",
                   help="no oracle: judge the recorded verdicts of --release (tests/conformance/recorded-RELEASE.jsonl)")
    a = p.parse_args(argv)
    if a.replay:
        cases, oracle = replay(a.release)
        report = compare(cases, oracle, a.release)
        print(f"SGLang {a.release} (recorded verdicts)")
        print_report(report)
        return 1 if report["rule_disagree"] or report["false_errors"] or (
            report["rejects_caught"] < threshold(a.release) * report["rejects_decidable"]) else 0
    if not a.oracle_python:
        p.error("--oracle-python (or PDLINT_ORACLE_PYTHON) is required")
    from pdlint.engines.sglang.flags import available_versions
    if a.release not in available_versions():
        p.error(f"no pdlint flag table for SGLang {a.release}")
    script = a.oracle_script or (os.environ.get("PDLINT_ORACLE_SCRIPT", DEFAULT_ORACLE_SCRIPT)
                                 if a.release == VERSION else LEGACY_ORACLE_SCRIPT)
    cases = rule_cases(a.codes, a.release)
    if not a.rules_only:
        cases += combo_cases(a.combos, a.seed, a.release)
    oracle = run_oracle(cases, a.oracle_python, script, a.release)
    report = compare(cases, oracle, a.release)
    print(f"SGLang {a.release}")
    print_report(report)
    skipped = skipped_examples(a.release)
    if skipped:
        print(f"rule examples not run (they use options SGLang {a.release} does not have): {len(skipped)}")
        for ident, missing in skipped:
            print(f"    {ident}: {' '.join(missing)}")
    if a.write:
        write_recorded(cases, oracle, a.codes, a.rules_only, a.release)
        print(f"wrote {recorded_path(a.release)}")
    bad = report["rule_disagree"] or report["false_errors"] or (
        report["rejects_decidable"] and report["rejects_caught"] < threshold(a.release) * report["rejects_decidable"])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
