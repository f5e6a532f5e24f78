#!/usr/bin/env python3
"""vLLM's own argument parsing on CPU: the ground truth for pdlint's vLLM flag
tables and command-line rules (VLLM018-VLLM020).

Run with the Python of a venv built by ``scripts/make_vllm_oracle_venv.sh``
(torch CPU + ``vllm --no-deps`` + what vLLM's argument modules import).  It
builds the parser ``vllm serve`` uses (``make_arg_parser(FlexibleArgumentParser())``)
and never starts an engine, loads a model or touches a GPU.

    python vllm_oracle.py --dump                 # every option: strings, nargs, choices (JSON)
    python vllm_oracle.py --batch < cases.jsonl  # {"argv": [...]} per line -> {"verdict", "message"}

``--batch`` runs ``parser.parse_args(argv)``: ACCEPT, or REJECT with argparse's
message (``unrecognized arguments``, ``invalid choice``, ``ambiguous option``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")


def build():
    from vllm.utils.argparse_utils import FlexibleArgumentParser
    try:
        from vllm.entrypoints.common.cli_args import make_arg_parser
    except ImportError:  # releases before the common module
        from vllm.entrypoints.openai.cli_args import make_arg_parser
    return make_arg_parser(FlexibleArgumentParser())


def dump(parser) -> dict:
    import vllm
    out = []
    strings: dict = {}  # every option string the parser matches (hidden aliases included) by action
    for s, a in parser._option_string_actions.items():
        strings.setdefault(id(a), set()).add(s)
    for a in parser._actions:
        if not a.option_strings or isinstance(a, argparse._HelpAction):
            continue
        choices = None
        if a.choices is not None:
            choices = sorted(str(c) for c in a.choices)
        out.append({"option_strings": sorted(strings.get(id(a), a.option_strings)),
                    "nargs": a.nargs if a.nargs is not None else None, "choices": choices})
    out.sort(key=lambda d: d["option_strings"])
    return {"vllm": vllm.__version__, "options": out}


def judge(parser, argv: list) -> dict:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(list(argv))
        return {"verdict": "ACCEPT", "message": ""}
    except SystemExit:
        lines = [l for l in err.getvalue().splitlines() if l.strip()]
        return {"verdict": "REJECT", "message": lines[-1] if lines else ""}
    except Exception as e:  # vLLM's own checks inside parse_args (ValueError ...)
        return {"verdict": "REJECT", "message": f"{type(e).__name__}: {e}"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--batch", action="store_true")
    args = ap.parse_args()
    parser = build()
    if args.dump:
        json.dump(dump(parser), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        res = judge(build(), case["argv"])
        sys.stdout.write(json.dumps({**case, **res}, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
