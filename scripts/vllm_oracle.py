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

    python vllm_oracle.py --pull < cases.jsonl   # {"entry", "argv", "files"} per line -> {"pulled"} or {"error"}

``--pull`` writes a case's ``files`` into an empty directory and runs vLLM's own
``--config`` expansion (``FlexibleArgumentParser._pull_args_from_config``) on its
argv there, with the parser that does it for that entry point: for ``vllm serve``
the top-level ``vllm`` parser (``serve`` a sub-command of it, as
``vllm/entrypoints/cli/main.py`` builds them), for the api_server its own parser.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
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
        conv = None if a.type is None else getattr(a.type, "__name__", type(a.type).__name__)
        out.append({"option_strings": sorted(strings.get(id(a), a.option_strings)),
                    "nargs": a.nargs if a.nargs is not None else None, "choices": choices, "type": conv})
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
        # (a converter's repr carries its address: `<function human_readable_int at 0x7f..>`)
        return {"verdict": "REJECT", "message": re.sub(r" at 0x[0-9a-f]+>", ">", lines[-1]) if lines else ""}
    except Exception as e:  # vLLM's own checks inside parse_args (ValueError ...)
        return {"verdict": "REJECT", "message": f"{type(e).__name__}: {e}"}


def pull(case: dict) -> dict:
    import tempfile
    from vllm.utils.argparse_utils import FlexibleArgumentParser
    try:
        from vllm.entrypoints.common.cli_args import make_arg_parser
    except ImportError:
        from vllm.entrypoints.openai.cli_args import make_arg_parser
    serve = case["entry"] == "vllm serve"
    if serve:
        parser = FlexibleArgumentParser(description="vLLM CLI")
        make_arg_parser(parser.add_subparsers(required=False, dest="subparser").add_parser("serve"))
        argv = ["serve", *case["argv"]]
    else:
        parser, argv = build(), list(case["argv"])
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        for name, text in case.get("files", {}).items():
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        os.chdir(d)
        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                out = parser._pull_args_from_config(argv)
        except Exception as e:
            return {"error": f"{type(e).__name__}: {e}"}
        finally:
            os.chdir(here)
    return {"pulled": out[1:] if serve else out}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--pull", action="store_true")
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
        res = pull(case) if args.pull else judge(build(), case["argv"])
        sys.stdout.write(json.dumps({**case, **res}, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
