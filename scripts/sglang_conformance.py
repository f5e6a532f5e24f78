#!/usr/bin/env python3
"""Judge pdlint against SGLang's own argument resolution.

Runs SGLang's real ``prepare_server_args`` + resolution + ``check_server_args``
through the oracle in ``../shared/tools/sglang-oracle`` (CPU-only, fake GPU,
tiny config-only models) on

* every rule's firing and quiet examples (pdlint must agree on each), and
* a few hundred random combinations of PD flags and roles (pdlint must never
  report an error where SGLang accepts, and must report one on at least 98 %
  of the combinations SGLang rejects for a reason decidable from flags),

then prints the agreement figures and every disagreement.  ``--write`` records
the cases and SGLang's verdicts in ``tests/conformance/recorded-<version>.jsonl``,
which the always-on test suite replays without the oracle; run it again after a
new SGLang release (with a new oracle venv) to refresh them.

Usage::

    python scripts/sglang_conformance.py --oracle-python /path/to/oracle-venv/bin/python \\
        [--combos 300] [--seed 23] [--codes SGL1] [--write]
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

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

DEFAULT_ORACLE_SCRIPT = os.path.join(REPO, "..", "shared", "tools", "sglang-oracle", "sglang_oracle.py")
RESEARCH = os.path.join(REPO, "..", "shared", "research", "sglang-rules.md")
VERSION = "0.5.23"

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


def rule_cases(codes_prefix: str = "") -> list:
    from pdlint.engines.sglang.judge import example_argv
    from pdlint.rules import all_rules
    cases = []
    for rule in sorted(all_rules().values(), key=lambda r: r.code):
        if not rule.code.startswith(codes_prefix or ""):
            continue
        for i, e in enumerate(rule.examples):
            cases.append({"id": f"{rule.code}-{'fire' if e.fires else 'quiet'}-{i}",
                          "argv": shlex.split(example_argv(e.argv)), "env": dict(e.env),
                          "kind": "rule", "rule": rule.code, "fires": e.fires,
                          "warning": rule.severity != "error", "startup": startup_check(rule)})
    return cases


def startup_check(rule) -> bool:
    """A check SGLang runs after argument resolution, while the scheduler starts
    (``disaggregation/``, ``mem_cache/``, ``managers/``): the oracle cannot
    reach it, so SGLang's argument resolution accepts its firing examples."""
    return rule.engine == "sglang" and rule.check is not None and not rule.source.startswith(
        "sglang/srt/arg_groups/")


def combo_cases(n: int, seed: int) -> list:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        role = rng.choice(["prefill", "decode", "null", "prefill", "decode"])
        argv = ["--model-path", "@TINY@"]
        if role != "null":
            argv += ["--disaggregation-mode", role]
        for flag, values in rng.sample(POOL, rng.randint(1, 4)):
            argv.append(flag)
            if values:
                argv.append(rng.choice(values))
        cases.append({"id": f"combo-{seed}-{i}", "argv": argv, "env": {}, "kind": "combo"})
    return cases


def run_oracle(cases: list, python: str, script: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(inp, "w") as f:
            for c in cases:
                f.write(json.dumps({"id": c["id"], "argv": c["argv"], "env": c.get("env") or {}}) + "\n")
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


def pdlint_verdict(case: dict):
    from pdlint.engines.sglang.judge import judge
    return judge(case["argv"], case.get("env") or {}, VERSION)


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
    # the draft can be bundled with the target checkpoint
    "DSpark dense speculative decoding requires setting --speculative-draft-model-path",
)
# rejections that depend on the GPU when no attention backend is written
# (the backend default comes from the platform: H200 resolves fa3, Ampere flashinfer)
PLATFORM_UNLESS_BACKEND = (
    "> 1 with page_size(",
)


def decidable(oracle: dict, classes: list) -> tuple:
    """Is an oracle REJECT decidable from flags?  (bool, reason)"""
    msg = oracle.get("message") or ""
    if any(m in msg for m in MODEL_MESSAGES):
        return False, "MODEL"
    if any(m in msg for m in PLATFORM_UNLESS_BACKEND) and not any(
            a.startswith("--attention-backend") for a in oracle.get("argv", [])):
        return False, "PLATFORM"
    if oracle.get("phase") == "parse" or oracle.get("error_type") == "SystemExit":
        return True, "argparse"
    for prefix, klass in classes:
        if msg.startswith(prefix) or prefix in msg:
            return klass in ("STATIC", "ENV", "STATIC*"), klass
    return True, "uncatalogued"


def compare(cases: list, oracle: dict) -> dict:
    classes = research_classes()
    report = {"rule_total": 0, "rule_agree": 0, "rule_disagree": [], "combo_total": 0, "accepts": 0,
              "startup_examples": 0, "startup_rejects": [],
              "false_errors": [], "rejects_decidable": 0, "rejects_caught": 0, "missed": [],
              "rejects_not_decidable": [], "oracle_errors": []}
    for c in cases:
        o = oracle.get(c["id"])
        if o is None or o.get("verdict") == "ORACLE_ERROR":
            report["oracle_errors"].append((c["id"], (o or {}).get("message")))
            continue
        sg_reject = o["verdict"] == "REJECT"
        j = pdlint_verdict(c)
        if c["kind"] == "rule":
            # an error rule's firing example must be rejected by both; a warning
            # rule's firing example is accepted by SGLang, which logs the warning
            # pdlint quotes; a quiet example is accepted by both
            report["rule_total"] += 1
            expect_reject = c["fires"] and not c.get("warning")
            if c.get("startup") and c["fires"]:
                # SGLang's resolution accepts; the check runs at start-up
                if not sg_reject and j.reject == (not c.get("warning")):
                    report["rule_agree"] += 1
                    report["startup_examples"] += 1
                else:
                    report["rule_disagree"].append((c["id"], shlex.join(c["argv"]), o["verdict"], o.get("message"),
                                                    j.errors))
                continue
            logged = True
            if c["fires"] and c.get("warning"):
                from pdlint.rules import get
                frag = re.split(r"\{", get(c["rule"]).upstream, 1)[0][:60]
                logged = any(frag in w for w in (o.get("warnings") or []))
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
            beyond = [code for code in j.errors if startup_check(all_rules()[code])]
            if j.reject and len(beyond) == len(j.errors):
                report["startup_rejects"].append((c["id"], shlex.join(c["argv"]), j.errors))
            elif j.reject:
                report["false_errors"].append((c["id"], shlex.join(c["argv"]), j.errors, j.messages))
        else:
            ok, why = decidable(o, classes)
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


def recorded_path() -> str:
    return os.path.join(REPO, "tests", "conformance", f"recorded-{VERSION}.jsonl")


def write_recorded(cases: list, oracle: dict, codes: str = "", rules_only: bool = False) -> None:
    """Record the verdicts of this run.  A partial run (``--codes``, ``--rules-only``) keeps the recorded
    verdicts of the cases it did not run; the file stays in rule-example order, then combination order."""
    records = {}
    if codes or rules_only:
        try:
            with open(recorded_path(), encoding="utf-8") as f:
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
               "verdict": o["verdict"], "message": o.get("message"), "where": o.get("where"),
               "phase": o.get("phase"), "error_type": o.get("error_type"),
               "warnings": o.get("warnings") or []}
        if c["kind"] == "rule":
            rec["rule"] = c["rule"]
            rec["fires"] = c["fires"]
        records[c["id"]] = rec
    order = {c["id"]: i for i, c in enumerate(rule_cases())}

    def position(rec):
        if rec["kind"] == "rule":
            return (0, order.get(rec["id"], len(order)), rec["id"])
        return (1, int(rec["id"].rsplit("-", 1)[-1]), rec["id"])

    with open(recorded_path(), "w", encoding="utf-8") as f:
        for rec in sorted(records.values(), key=position):
            f.write(json.dumps(rec, sort_keys=True) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--oracle-python", default=os.environ.get("PDLINT_ORACLE_PYTHON"),
                   help="python of the oracle venv (env PDLINT_ORACLE_PYTHON)")
    p.add_argument("--oracle-script", default=os.environ.get("PDLINT_ORACLE_SCRIPT", DEFAULT_ORACLE_SCRIPT))
    p.add_argument("--combos", type=int, default=300)
    p.add_argument("--seed", type=int, default=23)
    p.add_argument("--codes", default="", help="only rules whose code starts with this")
    p.add_argument("--rules-only", action="store_true")
    p.add_argument("--write", action="store_true", help=f"record verdicts in {os.path.relpath(recorded_path())}")
    a = p.parse_args(argv)
    if not a.oracle_python:
        p.error("--oracle-python (or PDLINT_ORACLE_PYTHON) is required")
    cases = rule_cases(a.codes)
    if not a.rules_only:
        cases += combo_cases(a.combos, a.seed)
    oracle = run_oracle(cases, a.oracle_python, a.oracle_script)
    report = compare(cases, oracle)
    print_report(report)
    if a.write:
        write_recorded(cases, oracle, a.codes, a.rules_only)
        print(f"wrote {recorded_path()}")
    bad = report["rule_disagree"] or report["false_errors"] or (
        report["rejects_decidable"] and report["rejects_caught"] < 0.98 * report["rejects_decidable"])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
