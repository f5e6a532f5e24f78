#!/usr/bin/env python3
"""Record vLLM's own verdicts for the vLLM conformance suite.

    python scripts/vllm_conformance.py --oracle-python VENV/bin/python [--version 0.33.0] [-n 400]

Writes ``tests/conformance/vllm-<version>-options.json`` (every option string
the live parser accepts, with nargs and choices: what the generated flag table
must equal) and ``tests/conformance/vllm-recorded-<version>.jsonl`` (command
lines with vLLM's verdict: the vLLM rules' examples and ``-n`` random lines
built from the live options: valid values, values outside the choices,
misspelt and truncated option names, options of other releases).  The default
test run replays these records (``tests/conformance/test_vllm_conformance.py``);
with ``PDLINT_VLLM_ORACLE_PYTHON`` set, ``pytest -m conformance`` re-runs them
against the live parser.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORACLE = os.path.join(HERE, "vllm_oracle.py")
OUT = os.path.join(ROOT, "tests", "conformance")
MODEL = "Qwen/Qwen3-8B"


def run_oracle(python: str, cases: list) -> list:
    data = "".join(json.dumps(c) + "\n" for c in cases)
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu")
    out = subprocess.run([python, ORACLE, "--batch"], input=data, capture_output=True, text=True, env=env,
                         check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def dump(python: str) -> dict:
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu")
    return json.loads(subprocess.run([python, ORACLE, "--dump"], capture_output=True, text=True, env=env,
                                     check=True).stdout)


def typo(rng: random.Random, name: str) -> str:
    body = list(name[2:])
    i = rng.randrange(len(body))
    kind = rng.choice(["swap", "drop", "double", "sub"])
    if kind == "swap" and i + 1 < len(body):
        body[i], body[i + 1] = body[i + 1], body[i]
    elif kind == "drop":
        del body[i]
    elif kind == "double":
        body.insert(i, body[i])
    else:
        body[i] = rng.choice("aeiouxz")
    return "--" + "".join(body)


def random_cases(rng: random.Random, options: list, others: list, n: int) -> list:
    value_opts = [o for o in options if o["nargs"] not in (0, "?") and not o["option_strings"][0].startswith("--no-")]
    choice_opts = [o for o in value_opts if o["choices"] and o["nargs"] is None]
    switch_opts = [o for o in options if o["nargs"] == 0]
    names = {s for o in options for s in o["option_strings"]}
    cases = []
    for k in range(n):
        argv = [MODEL]
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            if r < 0.25 and choice_opts:
                o = rng.choice(choice_opts)
                good = [c for c in o["choices"] if c != "None"]
                v = rng.choice(good) if rng.random() < 0.5 else rng.choice(["fp16", "auto2", "nccl", "none", "x"])
                argv += [rng.choice([s for s in o["option_strings"] if s.startswith("--")]), v]
            elif r < 0.45 and switch_opts:
                argv.append(rng.choice(rng.choice(switch_opts)["option_strings"]))
            elif r < 0.7:
                o = rng.choice(switch_opts)
                t = typo(rng, rng.choice([s for s in o["option_strings"] if s.startswith("--")]))
                argv.append(t)
            elif r < 0.8 and others:
                argv.append(rng.choice(others))
            elif r < 0.9:
                o = rng.choice(switch_opts)
                s = rng.choice([s for s in o["option_strings"] if s.startswith("--")])
                argv.append(s[:max(4, len(s) - rng.randint(1, 8))])
            else:
                o = rng.choice(switch_opts)
                s = rng.choice([s for s in o["option_strings"] if s.startswith("--")])
                argv.append("--" + s[2:].replace("-", "_") if rng.random() < 0.5 else s)
        cases.append({"id": f"random-{k}", "argv": argv})
    del names
    return cases


#: values for options vLLM converts to a number: what its converters accept (int(), float(), human_readable_int's
#: `32k`, `auto` / `-1`, optional_type's `None`) and what a template may put there instead
NUMBER_VALUES = ("2", "8", " 16 ", "-1", "1_000", "2.0", "0.9", "0,9", "1e-1", "32k", "1.5M", "16K", "auto", "None",
                 "abc", "8GB", "true", "0x10", "nan")


def number_cases(rng: random.Random, options: list, table, n: int) -> list:
    """``-n`` command lines giving one value to an option the flag table reads as an int or a float (which vLLM
    may convert with a function of its own: optional_type, human_readable_int)."""
    def number(o):
        flag = table.lookup(o["option_strings"][0]) if table is not None else None
        return flag is not None and flag.type in ("int", "float") and flag.nargs is None and not o["choices"]
    typed = [o for o in options if o["nargs"] is None and number(o)]
    cases = []
    for k in range(n):
        o = rng.choice(typed)
        name = rng.choice([s for s in o["option_strings"] if s.startswith("--")])
        v = rng.choice(NUMBER_VALUES)
        argv = [MODEL, f"{name}={v}"] if rng.random() < 0.3 else [MODEL, name, v]
        cases.append({"id": f"number-{k}", "argv": argv})
    return cases


def example_cases() -> list:
    sys.path.insert(0, ROOT)
    from pdlint.rules import all_rules
    import shlex
    out = []
    for r in sorted(all_rules().values(), key=lambda r: r.code):
        if r.engine != "vllm" or r.code not in ("VLLM018", "VLLM019", "VLLM037"):
            continue
        for tag, text in (("fire", r.example), ("quiet", r.example_fixed)):
            words = shlex.split(text, comments=True)
            out.append({"id": f"{r.code}-{tag}", "argv": words[2:]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle-python", required=True)
    ap.add_argument("--version", default="0.33.0")
    ap.add_argument("-n", type=int, default=400)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    live = dump(args.oracle_python)
    if live["vllm"] != args.version:
        raise SystemExit(f"the oracle runs vLLM {live['vllm']}, not {args.version}")
    with open(os.path.join(OUT, f"vllm-{args.version}-options.json"), "w") as fh:
        json.dump(live, fh, indent=1, sort_keys=True)
        fh.write("\n")
    sys.path.insert(0, ROOT)
    from pdlint.engines.vllm import flags
    mine = set(flags.load(args.version).options) if args.version in flags.available_versions() else set()
    others = sorted({o for v in flags.available_versions() for o in flags.load(v).options} - mine)
    rng = random.Random(args.seed)
    cases = example_cases() + random_cases(rng, live["options"], others, args.n) + \
        number_cases(random.Random(args.seed + 1), live["options"],
                     flags.load(args.version) if mine else None, args.n // 2)
    recorded = run_oracle(args.oracle_python, cases)
    with open(os.path.join(OUT, f"vllm-recorded-{args.version}.jsonl"), "w") as fh:
        for rec in recorded:
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
    rej = sum(1 for r in recorded if r["verdict"] == "REJECT")
    print(f"{len(recorded)} cases recorded ({rej} rejected) for vLLM {args.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
