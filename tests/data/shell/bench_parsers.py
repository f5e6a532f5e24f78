"""Compare tree-sitter-bash and bashlex on the shell scripts of the corpus.

The harness behind docs/shell-parser.md.  Usage:

    python tests/data/shell/bench_parsers.py [CORPUS_DIR]

CORPUS_DIR defaults to /work/shared/corpus (the full corpus: 18 scripts plus
the ``sh -c`` strings embedded in its YAML files); tests/data/corpus works too.
bashlex (GPL-3.0) is only imported here, for the comparison; pdlint does not
depend on it.
"""

from __future__ import annotations

import glob
import os
import statistics
import sys
import time

import yaml

SHELLS = ("sh", "bash", "/bin/sh", "/bin/bash")

CONSTRUCTS = {
    "continuation + quoting": "python -m x \\\n  --a 'b c' \"d $E\" $'f\\tg'",
    "quote-spliced JSON": "vllm serve m --kv '{\"ip\":\"'\"$IP\"'\"}'",
    "${X:-d} / ${X%s} / ${#X}": "echo ${X:-d} ${X%.sh} ${#X}",
    "$((arith))": "echo $((A * 2))",
    "$(cmd) / backticks": "X=$(hostname -i); Y=`date`",
    "env prefix + &": "CUDA_VISIBLE_DEVICES=1 python3 -m x &",
    "export / local / declare -a": "export A=1; f() { local b=2; declare -a c=(1 2); }",
    "arrays": "A=(--a \"$B\"); A+=(--c); run \"${A[@]}\" ${A[0]}",
    "[[ ]] test": "if [[ $# -gt 0 && $1 == p* ]]; then :; fi",
    "[ ] test + elif/else": "if [ \"$m\" = prefill ]; then a; elif [ \"$m\" = decode ]; then b; else c; fi",
    "case with | and globs": "case \"$1\" in prefill|p) a;; d*) b;; *) c;; esac",
    "functions": "f() { echo \"$1\"; }; function g { f \"$@\"; }; g x",
    "for / while": "for i in 1 2; do echo $i; done; while [[ $# -gt 0 ]]; do shift; done",
    "subshell / group / pipeline": "( cd x && a ) | tee log; { b; c; } 2>&1",
    "heredoc": "cat <<EOF > f\nport: $P\nEOF\necho done",
    "eval / source": "eval \"$CMD\"; source \"$(dirname \"$0\")/c.sh\"; . ./d.sh",
    "process substitution": "diff <(a) <(b)",
}

BROKEN = {
    "unterminated double quote": "python -m x --a \"b\n--c d\n",
    "if without fi": "if [ \"$m\" = p ]; then\n  python -m x --a b\n",
    "stray esac": "esac\npython -m x --a b\n",
    "garbage line, then a command": "%%% ))) ((\npython -m x --a b\n",
}


def corpus_scripts(root: str) -> list:
    """(name, text): every *.sh file, plus every `sh -c` string of the YAML files."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "*", "*.sh"))):
        with open(path, encoding="utf-8") as fh:
            out.append((os.path.relpath(path, root), fh.read()))
    for path in sorted(glob.glob(os.path.join(root, "*", "*.yaml"))):
        try:
            with open(path, encoding="utf-8") as fh:
                docs = list(yaml.safe_load_all(fh))
        except yaml.YAMLError:
            continue
        found: list = []
        for doc in docs:
            _sh_c(doc, found)
        for n, script in enumerate(found, 1):
            out.append((f"{os.path.relpath(path, root)}#sh-c-{n}", script))
    return out


def _sh_c(node, found: list) -> None:
    if isinstance(node, dict):
        cmd, args = node.get("command"), node.get("args")
        if isinstance(cmd, list) and len(cmd) >= 2 and cmd[0] in SHELLS and cmd[1] == "-c":
            script = cmd[2] if len(cmd) > 2 else (args[0] if isinstance(args, list) and args else None)
            if isinstance(script, str):
                found.append(script)
        for value in node.values():
            _sh_c(value, found)
    elif isinstance(node, list):
        for value in node:
            _sh_c(value, found)


def ts_parser():
    import tree_sitter
    import tree_sitter_bash
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def ts_errors(parser, text: str) -> list:
    tree = parser.parse(text.encode("utf-8"))
    errs, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            errs.append(f"{node.type}@{node.start_point[0] + 1}:{node.start_point[1] + 1}")
        elif node.has_error:
            stack.extend(node.children)
    return errs


def bl_errors(text: str) -> list:
    import bashlex
    try:
        bashlex.parse(text)
        return []
    except Exception as exc:  # bashlex raises on anything it does not support
        return [f"{type(exc).__name__}: {str(exc)[:70]}"]


def median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(root: str) -> None:
    t = time.perf_counter()
    parser = ts_parser()
    ts_import = time.perf_counter() - t
    t = time.perf_counter()
    import bashlex  # noqa: F401
    bl_import = time.perf_counter() - t
    print(f"import + parser creation: tree-sitter-bash {ts_import * 1000:.1f} ms, bashlex {bl_import * 1000:.1f} ms\n")

    scripts = corpus_scripts(root)
    print("| Script | lines | tree-sitter-bash | bashlex | tree-sitter ms | bashlex ms |\n|---|---|---|---|---|---|")
    ok_ts = ok_bl = 0
    tot_ts = tot_bl = 0.0
    for name, text in scripts:
        e1, e2 = ts_errors(parser, text), bl_errors(text)
        data = text.encode("utf-8")
        t1 = median_time(lambda: parser.parse(data), 50)
        t2 = median_time(lambda: bl_errors(text), 5)
        ok_ts += not e1
        ok_bl += not e2
        tot_ts += t1
        tot_bl += t2
        print(f"| `{name}` | {len(text.splitlines())} | {'ok' if not e1 else 'error ' + ', '.join(e1[:2])} "
              f"| {'ok' if not e2 else e2[0]} | {t1 * 1000:.3f} | {t2 * 1000:.2f} |")
    print(f"\n{len(scripts)} texts: tree-sitter-bash parses {ok_ts} without error nodes, bashlex parses {ok_bl};"
          f" total parse time {tot_ts * 1000:.2f} ms vs {tot_bl * 1000:.1f} ms\n")

    print("| Construct | tree-sitter-bash | bashlex |\n|---|---|---|")
    for name, text in CONSTRUCTS.items():
        e1, e2 = ts_errors(parser, text), bl_errors(text)
        print(f"| {name} | {'ok' if not e1 else 'error node'} | {'ok' if not e2 else e2[0]} |")

    print("\n| Broken input | tree-sitter-bash: errors, commands still found | bashlex |\n|---|---|---|")
    for name, text in BROKEN.items():
        tree = parser.parse(text.encode("utf-8"))
        commands: list = []
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "command":
                commands.append(node.text.decode().split()[0])
            stack.extend(node.children)
        e2 = bl_errors(text)
        print(f"| {name} | {ts_errors(parser, text)[:2]} {sorted(commands)} | {'ok' if not e2 else e2[0]} |")

    print()
    for label, pool in (("all scripts", scripts), ("scripts bashlex parses", [s for s in scripts if not bl_errors(s[1])])):
        lines: list = []
        while len(lines) < 2000:
            for _, text in pool:
                lines.extend(text.splitlines())
        big = "\n".join(lines[:2000]) + "\n"
        data = big.encode("utf-8")
        err = bl_errors(big)
        print(f"2000-line concatenation of {label}: tree-sitter-bash {median_time(lambda: parser.parse(data), 20) * 1000:.2f} ms,"
              f" bashlex {median_time(lambda: bl_errors(big), 3) * 1000:.1f} ms{' (' + err[0] + ')' if err else ''}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus")
