#!/usr/bin/env python3
"""Seeded fuzzer for pdlint: mutate real launch files, run pdlint on each mutant
in a forked child under a memory limit and a deadline, and count crashes, hangs
and peak memory.

    python scripts/fuzz.py [--mutants 100000] [--seed 1] [--timeout 30] [--jobs 2]
                           [--memory-mb 2048] [--out DIR] [--seeds DIR ...]

Seeds: every launch file under ``fixtures/``, ``tests/data/`` and, when present,
``../shared/corpus`` (or the ``--seeds`` folders).  Each mutant is a small
repository in a temporary folder: the mutated file under the seed's own name,
sometimes with a second (mutated) file beside it that the first one may include,
source or reference, and sometimes a ``pyproject.toml`` / ``.pdlint.yaml`` with
a mutated config.  Mutations:

* bytes: bit flips, inserted or deleted bytes (NUL, invalid UTF-8, CR, tabs),
  duplicated or truncated ranges;
* lines: deleted, duplicated (up to a few hundred times), swapped, moved,
  re-indented, spliced in from another seed;
* structure-aware, by file kind: YAML (anchors, aliases, merge keys, deep
  nesting, tags, multi-documents, huge scalars), Jinja (expressions the sandbox
  must bound: powers, repetition, ranges, recursion, escapes through dunder
  attributes, includes, unclosed tags), shell (arithmetic, expansions, patterns,
  recursion, eval/source, here-documents), and launch flags (SGLang / vLLM flags
  with huge, negative, empty or odd values inserted into command lines).

Each child runs ``pdlint.cli.main(["check", "--no-cache", "--format", F, "."])``
in the mutant's folder, with ``RLIMIT_AS`` set to ``--memory-mb``; the parent
waits on a pidfd with ``--timeout``.  Outcomes:

* ok: exit 0 or 1 (2 with a usage/config message is also ok: the input, not
  pdlint, is at fault), and for ``json`` / ``sarif`` the output parses;
* crash: an exception escaped ``main``, exit 2 with ``internal error``, a
  traceback on stderr, output that does not parse, or a signal (segfault,
  abort; SIGKILL by the kernel);
* hang: not finished within ``--timeout`` seconds (the child is killed).

Crashes and hangs are written to ``--out`` (the mutant's files, stderr and a
``repro.sh``), and a summary is printed: mutants run, crashes, hangs, peak
memory (the largest ``ru_maxrss`` of a child), time per mutant and counts per
mutator.  The test suite runs a short bounded pass (tests/test_fuzz.py); this
script is the long pass.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

LAUNCH_SUFFIXES = (".yaml", ".yml", ".j2", ".jinja", ".jinja2", ".tpl", ".sh", ".bash", ".toml", ".env")
MAX_SEED_BYTES = 64_000
FORMATS = ("text", "json", "sarif", "github")


# --------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------

@dataclass
class Seed:
    name: str  # file name inside the mutant repository (keeps the kind: suffix, Justfile, ...)
    data: bytes
    kind: str  # yaml | jinja | shell | toml | other


def kind_of(name: str) -> str:
    low = name.lower()
    if low.endswith((".j2", ".jinja", ".jinja2")) or (low.endswith(".tpl")):
        return "jinja"
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.endswith((".sh", ".bash")):
        return "shell"
    if low.endswith(".toml"):
        return "toml"
    return "other"


def default_seed_dirs() -> list:
    dirs = [os.path.join(REPO, "fixtures"), os.path.join(REPO, "tests", "data")]
    corpus = os.path.join(REPO, "..", "shared", "corpus")
    if os.path.isdir(corpus):
        dirs.append(os.path.normpath(corpus))
    return dirs


def load_seeds(dirs: list) -> list:
    seeds = []
    for d in dirs:
        for base, subdirs, files in os.walk(d):
            subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
            for f in sorted(files):
                if not (f.endswith(LAUNCH_SUFFIXES) or f == "Justfile"):
                    continue
                path = os.path.join(base, f)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                try:
                    with open(path, "rb") as fh:
                        data = fh.read(MAX_SEED_BYTES + 1)
                except OSError:
                    continue
                if len(data) > MAX_SEED_BYTES:
                    continue
                seeds.append(Seed(f, data, kind_of(f)))
    return seeds


# --------------------------------------------------------------------------------------
# Mutators: each takes (rng, data, seed, seeds) and returns new bytes
# --------------------------------------------------------------------------------------

INTERESTING_BYTES = [b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\r", b"\r\n", b"\t", b"\x1b[31m", "\u2028".encode(), b"\xe2\x80\xae", b"\\", b"'", b'"', b"`", b"$", b"{", b"}", b"[", b"]", b"&", b"*",
    b"|", b">", b"#", b":", b"-", b"%",
    # the private-use characters pdlint's Jinja tracer marks segments with, alone and as a fake segment header
    "\ue000".encode(), "\ue001".encode(), "\ue002".encode(), "\ue0000\ue001".encode(), "\ue00099\ue001".encode()]

HUGE_NUMBERS = ["1000000000", "99999999999999999999", "-1", "-2147483649", "0", "1e308", "nan", "inf", "0x7fffffff",
                "9" * 400, "1" + "0" * 30, "-0", "2147483648", "4294967296"]
ODD_VALUES = ["", "''", '""', "\u00e9\u00e8", "\U0001f600", "a" * 5000, "$(id)", "`id`", "${HOME}", "{{ x }}",
              "%(x)s", "\\n::error file=x::forged", "--", "-", "prefill", "decode", "null", "~", "[]", "{}", "true",
              "/dev/zero", "../../../../etc/passwd", "/proc/self/environ"]
FLAGS = ["--tp-size", "--dp-size", "--pp-size", "--ep-size", "--port", "--disaggregation-mode",
         "--disaggregation-transfer-backend", "--disaggregation-bootstrap-port", "--mem-fraction-static",
         "--chunked-prefill-size", "--max-running-requests", "--page-size", "--kv-cache-dtype", "--config",
         "--speculative-algorithm", "--speculative-num-steps", "--cuda-graph-max-bs", "--base-gpu-id",
         "--enable-dp-attention", "--enable-linear-replayssm-spec", "--json-model-override-args", "--log-level",
         "--kv-transfer-config", "--tensor-parallel-size", "--model-path", "--model", "--host", "--nnodes",
         "--node-rank", "--dist-init-addr", "--enable-hierarchical-cache", "--load-balance-method",
         "--disaggregation-ib-device", "--attention-backend", "--quantization", "--lora-paths", "--max-loras-per-batch"]

YAML_SNIPPETS = [
    "a: &a [1, 2]\nb: *a\n", "<<: *missing\n", "x: !!python/object/apply:os.system ['id']\n", "k: !!binary AAAA\n",
    "---\n", "...\n", "? complex\n: key\n", "x: " + "[" * 200 + "]" * 200 + "\n", "x: " + "{a: " * 150 + "1" + "}" * 150 + "\n",
    "m0: &m0 {a: 1}\nm1: &m1 {<<: [*m0, *m0]}\nm2: &m2 {<<: [*m1, *m1]}\nm3: {<<: [*m2, *m2]}\n",
    "l0: &l0 [x, x, x, x, x, x, x, x]\nl1: &l1 [*l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0]\n"
    "l2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\nl3: [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\n",
    "args: [\"--tp-size\", \"1000000000\"]\n", "command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n",
    "command:\n- sh\n- -c\n- |\n  python -m sglang.launch_server --model-path m --disaggregation-mode $ROLE\n",
    "key: \"unterminated\n", "key: 'a''b'\n", "\t- tab\n", "key: |\n  block\n    more\n", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n",
    "x: &a y\nx: *a\n", "anchors: &" + "a" * 300 + " v\n",
]
JINJA_SNIPPETS = [
    "{{ 9**(9**9) }}", "{{ 10**100000 }}", "{{ 2**64 * 2**64 }}", "{{ ('x'*10**9)|length }}", "{{ ([0]*10**9)|length }}",
    "{{ 'a' * 100000 }}", "{{ range(10**9)|list|length }}", "{% for i in range(100000) %}{{ i }}{% endfor %}",
    "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}", "{{ cycler.__init__.__globals__ }}", "{{ lipsum.__globals__ }}",
    "{{ self._TemplateReference__context }}", "{{ joiner.__init__.__globals__.os }}", "{{ namespace.__init__ }}",
    "{% include '/etc/passwd' %}", "{% include '../../../etc/passwd' %}", "{% include 'partner.j2' %}",
    "{% import 'partner.j2' as p %}{{ p.x }}", "{% extends 'partner.j2' %}", "{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}",
    "{% set c %}" + "x {{ 1 }} " * 300 + "{% endset %}{{ c|trim }}", "{{ x", "{% if %}", "{% for %}", "{# unclosed",
    "{{ role }}", "{% if role == 'prefill' %}--enable-linear-replayssm-spec{% endif %}", "{{ undefined_var.attr }}",
    "{{ '%999999999s' % 'x' }}", "{{ 'x'|center(1000000000) }}", "{{ 'x'|indent(1000000000) }}",
    "{{ 'x ' * 10000 | wordwrap(1) }}", "{{ [1,2]|batch(1000000000)|list }}", "{{ 'abc'|replace('', 'x' * 1000) }}",
    "{{ '{0:>999999999}'.format(1) }}", "{{ (1,2)|sum(start=[]) }}", "{{ {}.update({'a': 1}) }}",
    "{% raw %}{{ not rendered }}{% endraw %}", "{{ x|tojson }}", "{{ 1/0 }}", "{{ [].pop() }}",
    "{% set ns = namespace(a=1) %}{% set ns.a = 2 %}{{ ns.a }}", "{{ 'x'|format(*range(100000)) }}",
    "{{ dict(a=1)|dictsort(by='x') }}", "{%- filter upper %}x{% endfilter %}", "{{ loop }}",
]
SHELL_SNIPPETS = [
    "x=$((9**9**9))", "x=$((2**62*2**62))", "x=$((1/0))", "echo ${x:0:999999999}", "y=${x//a/bbbbbbbbbb}",
    "y=${x#*a*a*a*a*a*a*b}", "case $x in *a*a*a*a*a*b) ;; esac", "[[ $x =~ ^(a+)+$ ]]", "[[ $x =~ (a|aa)*c ]]",
    "f() { f; }; f", "f() { f; f; }; f", "eval \"$x\"", "eval 'eval \"eval x\"'", "source \"$0\"", ". ./partner.sh",
    "source /etc/passwd", "source ../../outside.sh", "cat <<EOF\nunclosed", "x=`echo \\`echo \\\\\\`id\\\\\\`\\``",
    "a=(); cmd=(\"${a[@]}\")", "arr=(1 2 3); echo \"${arr[@]:1:99999999}\"", "printf -v cmd '%q ' a b; bash -lc \"exec $cmd\"",
    "while true; do :; done", "for i in $(seq 1 100000000); do :; done", "for ((i=0;i<100000000;i++)); do :; done",
    "x=\"$x$x$x$x\"; x=\"$x$x$x$x\"; x=\"$x$x$x$x\"; x=\"$x$x$x$x\"; x=\"$x$x$x$x\"",
    "exec python -m sglang.launch_server --model-path m --disaggregation-mode \"${1:?role}\"",
    "bash -c 'python -m sglang.launch_server --model-path m --disaggregation-mode prefill'",
    "docker run --gpus all img python3 -m sglang.launch_server --model-path m",
    "srun --nodes 1 python3 -m sglang.launch_server --tp-size 1000000000 --model-path m", "${x:?}", "$((", "${",
    "\\", "'unterminated", "\"unterminated", "case $1 in prefill) ;; decode) ;; esac", "export ROLE=decode; exec $CMD",
    "declare -A m=([a]=1); echo ${m[a]}", "read -r x <<< 'y'", "trap 'x' EXIT", "set -- prefill; echo $1",
]
FLAG_LINE = ("python3 -m sglang.launch_server --model-path /models/m --disaggregation-mode {role} {flags}",
             "vllm serve /models/m --kv-transfer-config '{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}}' {flags}",
             "python -m dynamo.sglang --model-path m --disaggregation-mode {role} {flags}",
             "trtllm-serve /models/m --host 0.0.0.0 --port 8000 {flags}")


def _split(data: bytes) -> list:
    return data.split(b"\n")


def m_bitflip(rng, data, seed, seeds):
    if not data:
        return b"\xff"
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def m_insert_bytes(rng, data, seed, seeds):
    i = rng.randint(0, len(data))
    return data[:i] + rng.choice(INTERESTING_BYTES) * rng.choice((1, 1, 2, 8, 100)) + data[i:]


def m_delete_range(rng, data, seed, seeds):
    if len(data) < 2:
        return data
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.choice((1, 2, 8, 64, 512)))
    return data[:i] + data[j:]


def m_duplicate_range(rng, data, seed, seeds):
    if not data:
        return data
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.choice((1, 8, 64, 512)))
    return data[:j] + data[i:j] * rng.choice((1, 2, 16, 128)) + data[j:]


def m_truncate(rng, data, seed, seeds):
    return data[:rng.randint(0, len(data))]


def m_line_delete(rng, data, seed, seeds):
    lines = _split(data)
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def m_line_duplicate(rng, data, seed, seeds):
    lines = _split(data)
    i = rng.randrange(len(lines))
    lines[i:i + 1] = [lines[i]] * rng.choice((2, 3, 10, 50, 300))
    return b"\n".join(lines)


def m_line_swap(rng, data, seed, seeds):
    lines = _split(data)
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def m_line_indent(rng, data, seed, seeds):
    lines = _split(data)
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines[i] = b" " * rng.choice((1, 2, 4, 7)) + lines[i]
    else:
        lines[i] = lines[i].lstrip()
    return b"\n".join(lines)


def m_splice(rng, data, seed, seeds):
    other = rng.choice(seeds).data
    lines, olines = _split(data), _split(other)
    i = rng.randint(0, len(lines))
    a = rng.randrange(len(olines))
    b = min(len(olines), a + rng.choice((1, 3, 10, 40)))
    lines[i:i] = olines[a:b]
    return b"\n".join(lines)


def _insert_line(rng, data, snippet: str) -> bytes:
    lines = _split(data)
    i = rng.randint(0, len(lines))
    indent = b""
    if lines and i < len(lines) and rng.random() < 0.6:
        cur = lines[i]
        indent = cur[:len(cur) - len(cur.lstrip())]
    lines[i:i] = [indent + line for line in snippet.encode("utf-8", "surrogatepass").split(b"\n")]
    return b"\n".join(lines)


def m_yaml(rng, data, seed, seeds):
    return _insert_line(rng, data, rng.choice(YAML_SNIPPETS))


def m_jinja(rng, data, seed, seeds):
    snippet = rng.choice(JINJA_SNIPPETS)
    if rng.random() < 0.5:
        i = rng.randint(0, len(data))
        return data[:i] + snippet.encode() + data[i:]
    return _insert_line(rng, data, snippet)


def m_shell(rng, data, seed, seeds):
    return _insert_line(rng, data, rng.choice(SHELL_SNIPPETS))


def _flags(rng) -> str:
    out = []
    for _ in range(rng.randint(1, 4)):
        f = rng.choice(FLAGS)
        v = rng.choice(HUGE_NUMBERS + ODD_VALUES) if rng.random() < 0.7 else ""
        if " " in v or not v:
            v = "'" + v.replace("'", "") + "'" if v else ""
        out.append(f"{f} {v}".rstrip())
    return " ".join(out)


def m_flags(rng, data, seed, seeds):
    """A launch line with odd flag values, or flags inserted after an existing flag."""
    text = data.decode("utf-8", "replace")
    pos = [i for i in range(len(text)) if text.startswith("--", i) and (i == 0 or text[i - 1] in " \t\"'[,\n")]
    if pos and rng.random() < 0.6:
        i = rng.choice(pos)
        return (text[:i] + _flags(rng) + " " + text[i:]).encode("utf-8", "surrogatepass")
    line = rng.choice(FLAG_LINE).format(role=rng.choice(("prefill", "decode", "$ROLE", "{{ role }}", "x")),
                                        flags=_flags(rng))
    if seed.kind == "yaml":
        line = "command: [\"sh\", \"-c\", " + json.dumps(line) + "]"
    return _insert_line(rng, data, line)


def m_number(rng, data, seed, seeds):
    """Replace a number with a huge / negative / odd one."""
    text = data.decode("utf-8", "replace")
    nums = [i for i in range(len(text)) if text[i].isdigit() and (i == 0 or not text[i - 1].isalnum())]
    if not nums:
        return m_flags(rng, data, seed, seeds)
    i = rng.choice(nums)
    j = i
    while j < len(text) and text[j].isdigit():
        j += 1
    return (text[:i] + rng.choice(HUGE_NUMBERS) + text[j:]).encode("utf-8", "surrogatepass")


MUTATORS = {
    "bitflip": (m_bitflip, None), "insert-bytes": (m_insert_bytes, None), "delete-range": (m_delete_range, None),
    "duplicate-range": (m_duplicate_range, None), "truncate": (m_truncate, None),
    "line-delete": (m_line_delete, None), "line-duplicate": (m_line_duplicate, None),
    "line-swap": (m_line_swap, None), "line-indent": (m_line_indent, None), "splice": (m_splice, None),
    "yaml": (m_yaml, {"yaml", "jinja", "other"}), "jinja": (m_jinja, {"jinja", "yaml", "shell"}),
    "shell": (m_shell, {"shell", "jinja", "yaml"}), "flags": (m_flags, None), "number": (m_number, None),
}

CONFIGS = [
    '[tool.pdlint]\nvalues = ["partner.yaml"]\n', '[tool.pdlint]\nvalues = ["/proc/self/status"]\n',
    '[tool.pdlint]\nvalues = ["../../outside.yaml"]\n', '[tool.pdlint]\nexclude = 5\n',
    '[tool.pdlint]\nper-file-ignores = {"x" = 5}\n', '[tool.pdlint]\nextend-ignore = "SGL"\n',
    '[tool.pdlint]\nrender-timeout = nan\n', '[tool.pdlint]\nrender-timeout = inf\n', '[tool.pdlint]\nrender-timeout = 1e9\n',
    '[tool.pdlint]\nrole-var = "role"\n[tool.pdlint.vars]\nrole = "prefill"\n', '[tool.pdlint\n', '\xff\xfe[tool.pdlint]\n',
    '[tool.pdlint]\nengine-version = "banana"\n', '[tool.pdlint]\nselect = ["ALL"]\n', '[tool.pdlint.jinja]\npreset = "ansible"\n',
    '[tool.pdlint.jinja]\nextensions = ["os.system"]\n', '[tool.pdlint]\nroles = 7\n', '[tool.pdlint]\nvars = []\n',
]


@dataclass
class Mutant:
    files: dict  # name -> bytes
    mutators: list
    fmt: str


def make_mutant(rng: random.Random, seeds: list) -> Mutant:
    seed = rng.choice(seeds)
    data = seed.data
    used = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
        names = [n for n, (fn, kinds) in MUTATORS.items() if kinds is None or seed.kind in kinds]
        name = rng.choice(names)
        data = MUTATORS[name][0](rng, data, seed, seeds)
        used.append(name)
    files = {seed.name: data}
    r = rng.random()
    if r < 0.15:  # a partner file the first may include / source / read as values
        other = rng.choice(seeds)
        partner = {"jinja": "partner.j2", "shell": "partner.sh", "yaml": "partner.yaml"}.get(other.kind, "partner.yaml")
        pdata = other.data
        if rng.random() < 0.5:
            pdata = MUTATORS[rng.choice(list(MUTATORS))][0](rng, pdata, other, seeds)
        if partner != seed.name:
            files[partner] = pdata
    elif r < 0.25:
        cfg = rng.choice(CONFIGS).encode("utf-8", "surrogateescape")
        if rng.random() < 0.3:
            cfg = m_bitflip(rng, cfg, None, seeds)
        files["pyproject.toml"] = cfg
        used.append("config")
    return Mutant(files, used, rng.choice(FORMATS))


# --------------------------------------------------------------------------------------
# Running one mutant in a forked child
# --------------------------------------------------------------------------------------

@dataclass
class Outcome:
    status: str  # ok | crash | hang
    rc: object  # exit code, or "signal N", or "timeout"
    seconds: float
    maxrss_kb: int
    detail: str = ""


def _child(workdir: str, fmt: str, memory_mb: int, err_fd: int, out_fd: int) -> None:
    try:
        if memory_mb:
            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.chdir(workdir)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8", errors="surrogateescape",
                                      write_through=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace",
                                      write_through=True)
        from pdlint.cli import main
        try:
            rc = main(["check", "--no-cache", "--format", fmt, "."])
        except BaseException:  # noqa: BLE001 - everything that escapes main is a crash
            sys.stderr.write("FUZZ: exception escaped main\n" + traceback.format_exc())
            sys.stderr.flush()
            os._exit(3)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc if isinstance(rc, int) and 0 <= rc < 256 else 4)
    except BaseException:  # noqa: BLE001
        try:
            os.write(err_fd, ("FUZZ: child failed\n" + traceback.format_exc()).encode("utf-8", "replace"))
        finally:
            os._exit(5)


def run_mutant(m: Mutant, timeout: float, memory_mb: int, tmp_root: str) -> Outcome:
    workdir = tempfile.mkdtemp(prefix="m", dir=tmp_root)
    try:
        for name, data in m.files.items():
            with open(os.path.join(workdir, name), "wb") as f:
                f.write(data)
        out_path, err_path = os.path.join(tmp_root, ".stdout"), os.path.join(tmp_root, ".stderr")
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(workdir, m.fmt, memory_mb, err_fd, out_fd)
        os.close(out_fd)
        os.close(err_fd)
        status, rusage = _wait(pid, timeout)
        dt = time.perf_counter() - t0
        maxrss = rusage.ru_maxrss if rusage is not None else 0
        err = _read_tail(err_path)
        if status is None:
            return Outcome("hang", "timeout", dt, maxrss, err[-2000:])
        if os.WIFSIGNALED(status):
            return Outcome("crash", f"signal {os.WTERMSIG(status)}", dt, maxrss, err[-2000:])
        rc = os.WEXITSTATUS(status)
        if rc in (3, 4, 5) or "Traceback (most recent call last)" in err or "internal error" in err:
            return Outcome("crash", rc, dt, maxrss, err[-4000:])
        if rc not in (0, 1, 2):
            return Outcome("crash", rc, dt, maxrss, err[-2000:])
        if rc in (0, 1) and m.fmt in ("json", "sarif"):
            try:
                with open(out_path, "rb") as f:
                    json.loads(f.read().decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                return Outcome("crash", rc, dt, maxrss, f"{m.fmt} output does not parse: {e}")
        return Outcome("ok", rc, dt, maxrss)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _wait(pid: int, timeout: float):
    """(wait status, rusage), or (None, rusage) after killing a child that overran."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                _, status, rusage = os.wait4(pid, 0)
                return None, rusage
            if fd is not None:
                ready, _, _ = select.select([fd], [], [], left)
                if not ready:
                    continue
                _, status, rusage = os.wait4(pid, 0)
                return status, rusage
            got, status, rusage = os.wait4(pid, os.WNOHANG)
            if got:
                return status, rusage
            time.sleep(0.002)
    finally:
        if fd is not None:
            os.close(fd)


def _read_tail(path: str, n: int = 20000) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


# --------------------------------------------------------------------------------------
# The campaign
# --------------------------------------------------------------------------------------

@dataclass
class Summary:
    mutants: int = 0
    ok: int = 0
    crashes: list = field(default_factory=list)
    hangs: list = field(default_factory=list)
    peak_rss_kb: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    by_mutator: dict = field(default_factory=dict)
    exit_codes: dict = field(default_factory=dict)
    times: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"mutants": self.mutants, "ok": self.ok, "crashes": len(self.crashes), "hangs": len(self.hangs),
                "peak_rss_mb": round(self.peak_rss_kb / 1024, 1), "seconds": round(self.seconds, 1),
                "ms_per_mutant": round(1000 * self.seconds / max(self.mutants, 1), 1),
                "slowest_s": round(self.slowest, 2), "median_ms": round(1000 * _quantile(self.times, 0.5), 1),
                "p99_ms": round(1000 * _quantile(self.times, 0.99), 1),
                "over_5s": sum(1 for t in self.times if t > 5), "exit_codes": dict(sorted(self.exit_codes.items())),
                "by_mutator": dict(sorted(self.by_mutator.items()))}


def _quantile(values: list, q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def warm_up() -> None:
    """Import what a scan imports (and load the tables) once in the parent, so every
    forked child starts warm: a mutant then costs its own work, not pdlint's start-up."""
    from pdlint.cli import main
    tmp = tempfile.mkdtemp(prefix="pdlint-fuzz-warm-")
    try:
        with open(os.path.join(tmp, "a.sh"), "w") as f:
            f.write("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size 2\n")
        with open(os.path.join(tmp, "b.yaml.j2"), "w") as f:
            f.write("command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, "
                    "'{{ role }}']\n")
        with open(os.path.join(tmp, "c.yaml"), "w") as f:
            f.write("containers:\n- name: decode\n  command: [vllm, serve, m]\n")
        old = os.getcwd()
        os.chdir(tmp)
        # in-process (no scan worker): the imports and tables must land in THIS process,
        # the one every mutant's child is forked from
        had = os.environ.get("PDLINT_NO_WORKER")
        os.environ["PDLINT_NO_WORKER"] = "1"
        try:
            for fmt in FORMATS:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    main(["check", "--no-cache", "--format", fmt, "."])
        finally:
            os.chdir(old)
            if had is None:
                os.environ.pop("PDLINT_NO_WORKER", None)
            else:
                os.environ["PDLINT_NO_WORKER"] = had
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def campaign(n: int, seed: int = 0, timeout: float = 30.0, memory_mb: int = 2048, out_dir=None, seed_dirs=None,
             log=None, jobs: int = 1) -> Summary:
    seeds = load_seeds(seed_dirs or default_seed_dirs())
    if not seeds:
        raise SystemExit("fuzz: no seed files found")
    rng = random.Random(seed)
    warm_up()
    s = Summary()
    tmp_root = tempfile.mkdtemp(prefix="pdlint-fuzz-")
    t0 = time.perf_counter()
    try:
        if jobs > 1:
            return _campaign_parallel(n, rng, seeds, timeout, memory_mb, out_dir, log, jobs, s, t0, tmp_root)
        for i in range(n):
            m = make_mutant(rng, seeds)
            o = run_mutant(m, timeout, memory_mb, tmp_root)
            _record(s, i, m, o, out_dir, log)
            if log and (i + 1) % 1000 == 0:
                log(f"{i + 1} mutants, {len(s.crashes)} crashes, {len(s.hangs)} hangs, "
                    f"peak {s.peak_rss_kb // 1024} MB, {1000 * (time.perf_counter() - t0) / (i + 1):.1f} ms each")
    finally:
        s.seconds = time.perf_counter() - t0
        shutil.rmtree(tmp_root, ignore_errors=True)
    return s


def _campaign_parallel(n, rng, seeds, timeout, memory_mb, out_dir, log, jobs, s, t0, tmp_root) -> Summary:
    """``jobs`` forked workers, each running its share of the mutants (generated here,
    in order, so a seed gives the same mutants whatever ``jobs`` is)."""
    mutants = [make_mutant(rng, seeds) for _ in range(n)]
    results_dir = tempfile.mkdtemp(prefix="res", dir=tmp_root)
    pids = []
    for w in range(jobs):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - a worker
            code = 0
            try:
                wtmp = tempfile.mkdtemp(prefix=f"w{w}", dir=tmp_root)
                with open(os.path.join(results_dir, f"{w}.jsonl"), "w") as res:
                    for i in range(w, n, jobs):
                        o = run_mutant(mutants[i], timeout, memory_mb, wtmp)
                        res.write(json.dumps([i, o.status, o.rc, o.seconds, o.maxrss_kb, o.detail]) + "\n")
                        res.flush()
            except BaseException:  # noqa: BLE001
                code = 1
            os._exit(code)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    rows = []
    for w in range(jobs):
        path = os.path.join(results_dir, f"{w}.jsonl")
        if os.path.exists(path):
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.strip()]
    for i, status, rc, secs, rss, detail in sorted(rows, key=lambda r: r[0]):
        _record(s, i, mutants[i], Outcome(status, rc, secs, rss, detail), out_dir, log)
    missing = n - len(rows)
    if missing:
        s.crashes.append({"index": -1, "detail": f"{missing} mutants without a result (a worker died)"})
    return s


def _record(s: Summary, i: int, m: Mutant, o: Outcome, out_dir, log) -> None:
    s.mutants += 1
    s.peak_rss_kb = max(s.peak_rss_kb, o.maxrss_kb)
    s.slowest = max(s.slowest, o.seconds)
    s.times.append(o.seconds)
    key = str(o.rc)
    s.exit_codes[key] = s.exit_codes.get(key, 0) + 1
    for name in m.mutators:
        s.by_mutator[name] = s.by_mutator.get(name, 0) + 1
    if o.status == "ok":
        s.ok += 1
        return
    entry = {"index": i, "status": o.status, "rc": o.rc, "seconds": round(o.seconds, 2), "format": m.fmt,
             "mutators": m.mutators, "files": sorted(m.files), "detail": o.detail[-1500:]}
    (s.crashes if o.status == "crash" else s.hangs).append(entry)
    if log:
        log(f"mutant {i}: {o.status} ({o.rc}, {o.seconds:.1f} s) {m.mutators} {sorted(m.files)}: "
            f"{o.detail.strip().splitlines()[-1] if o.detail.strip() else ''}")
    if out_dir:
        d = os.path.join(out_dir, f"{o.status}-{i:06d}")
        os.makedirs(d, exist_ok=True)
        for name, data in m.files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        with open(os.path.join(d, "stderr.txt"), "w", encoding="utf-8", errors="replace") as f:
            f.write(o.detail)
        with open(os.path.join(d, "repro.sh"), "w") as f:
            f.write(f"#!/bin/sh\n# {o.status}: exit {o.rc} after {o.seconds:.1f} s; mutators {m.mutators}\n"
                    f"cd \"$(dirname \"$0\")\" && exec pdlint check --no-cache --format {m.fmt} .\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a mutant counts as a hang")
    ap.add_argument("--memory-mb", type=int, default=2048, help="RLIMIT_AS of each child (0: none)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="write crashing and hanging mutants here")
    ap.add_argument("--seeds", nargs="*", help="seed folders (default: fixtures/, tests/data/, ../shared/corpus)")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        sys.stderr.write(f"fuzz: {msg}\n")
        sys.stderr.flush()

    s = campaign(a.mutants, a.seed, a.timeout, a.memory_mb, a.out, a.seeds, log, a.jobs)
    d = s.as_dict()
    if a.json:
        print(json.dumps(d, indent=2))
    else:
        print(f"mutants {d['mutants']}, ok {d['ok']}, crashes {d['crashes']}, hangs {d['hangs']}, "
              f"peak memory {d['peak_rss_mb']} MB (largest child), {d['ms_per_mutant']} ms per mutant "
              f"(median {d['median_ms']} ms, p99 {d['p99_ms']} ms, {d['over_5s']} over 5 s), "
              f"slowest {d['slowest_s']} s, {d['seconds']} s in all")
        print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in d["exit_codes"].items()))
        print("mutators: " + ", ".join(f"{k} {v}" for k, v in d["by_mutator"].items()))
    return 1 if (s.crashes or s.hangs) else 0


if __name__ == "__main__":
    raise SystemExit(main())
