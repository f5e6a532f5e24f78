#!/usr/bin/env python3
"""pdlint benchmark: a synthetic repository of N launch files, timed against
the YAML checkers a pre-commit configuration already runs.

    python bench/bench.py [-n 1000] [--repeat 3] [--json] [--out DIR] [--keep]
    python bench/bench.py --generate-only --out DIR [-n N]

The repository mixes the kinds of files pdlint reads (see bench/README.md):
Kubernetes YAML with prefill and decode containers (some sharing one flag list
through a YAML anchor, some building containers from a merge-key base), SGLang
``--config`` YAML pairs, Jinja templates (``*.yaml.j2``, ``*.sh.j2``) that
render both roles from a role variable (some through an included partial),
and shell launchers that start both roles.  About 10% are broken in a way
SGLang rejects (SGL101, SGL102, SGL104); the benchmark checks that pdlint
finds exactly those.

Timed on the same machine, the same files and in ONE run (each tool is run
``--repeat`` times after one warm-up run; the median wall time and the median
CPU time of the process are reported):
  * ``pdlint --version`` (start-up);
  * the work floor (``bench/floor.py``): PyYAML's C loader composing every YAML
    file, plain Jinja2 rendering every template for both roles (composing or
    parsing its output), tree-sitter-bash parsing every script, one process;
  * ``pdlint --no-cache .`` in the repository (cold: discovers every file,
    renders every template for both roles, checks every launch);
  * ``pdlint .`` warm (the result cache filled, nothing changed) and with one
    launch file changed before each run (a comment appended);
  * ``pdlint --no-cache FILE...`` with every launch file named, as ``pre-commit
    run --all-files`` calls it (adds launch-unit expansion);
  * ``pdlint --no-cache YAML-FILE...``: only the plain YAML files, what the
    peers read;
  * ``check-yaml --allow-multiple-documents YAML-FILE...`` (pre-commit-hooks),
    with libyaml (when ruamel.yaml.clib is installed next to it) and with
    ruamel.yaml's pure-Python parser (the C extension hidden);
  * ``yamllint -d relaxed YAML-FILE...``.
The peers are looked up next to ``sys.executable``, then on PATH; a missing
one is skipped with a message.  No timing is asserted anywhere: this script is
where performance figures come from.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# --------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------

MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "Qwen/Qwen3-8B",
          "Qwen/Qwen3-32B", "Qwen/Qwen2.5-72B-Instruct", "deepseek-ai/DeepSeek-V3", "/models/Qwen3-8B",
          "mistralai/Mistral-Small-24B-Instruct-2501", "google/gemma-3-27b-it", "/mnt/models/llama-70b"]
IMAGES = ["lmsysorg/sglang:v0.5.23", "lmsysorg/sglang:v0.5.23-cu126", "lmsysorg/sglang:latest",
          "registry.example.internal/inference/sglang:2026.11"]
TEAMS = ["search", "ads", "assistant", "code", "research", "platform", "eval", "batch", "chat", "infra"]
# Flags SGLang accepts on either role (checked against pdlint's SGLang 0.5.23 model).
SAFE_FLAGS = [
    ["--mem-fraction-static", "0.85"], ["--mem-fraction-static", "0.8"], ["--chunked-prefill-size", "8192"],
    ["--max-running-requests", "256"], ["--enable-metrics"], ["--log-level", "info"], ["--trust-remote-code"],
    ["--context-length", "32768"], ["--page-size", "64"], ["--host", "0.0.0.0"],
    ["--disaggregation-ib-device", "mlx5_0"], ["--kv-cache-dtype", "fp8_e5m2"], ["--watchdog-timeout", "600"],
    ["--schedule-policy", "lpm"], ["--decode-log-interval", "40"], ["--load-balance-method", "round_robin"],
]
BACKENDS = ["mooncake", "nixl"]
# Broken variants: (rule, flags added to the list shared by both roles).
BREAKS = [
    ("SGL101", ["--enable-linear-replayssm-spec"]),  # rejected on prefill
    ("SGL104", ["--disaggregation-transfer-backend", "fake"]),  # 'fake' is decode-only
    ("SGL102", ["--enable-hierarchical-cache"]),  # decode needs --disaggregation-decode-enable-radix-cache
]

# How often each kind is drawn.  A --config pair writes two files, so its
# weight is half its intended share of files (about 14%).
MIX = [("k8s", 0.24), ("k8s-anchor", 0.10), ("k8s-merge", 0.06), ("config-pair", 0.07),
       ("yaml-j2", 0.18), ("yaml-j2-include", 0.06), ("sh-j2", 0.10), ("shell", 0.14)]


@dataclass
class Generated:
    root: Path
    files: list = field(default_factory=list)  # repository-relative paths of launch files
    kinds: dict = field(default_factory=dict)  # kind -> number of files
    yaml_files: list = field(default_factory=list)  # plain YAML files (what check-yaml/yamllint read)
    broken: dict = field(default_factory=dict)  # path -> expected rule code
    partials: list = field(default_factory=list)  # included partials (not launch files themselves)


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Gen:
    def __init__(self, root: Path, n: int, seed: int, broken_ratio: float):
        self.root = root
        self.n = n
        self.rng = random.Random(seed)
        self.broken_ratio = broken_ratio
        self.out = Generated(root)
        self.counter = 0

    # -- helpers -----------------------------------------------------------------
    def write(self, rel: str, text: str, launch: bool = True, kind: str = "", yaml_file: bool = False,
              broken: str = "", mode: int = 0o644) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        os.chmod(p, mode)
        if launch:
            self.out.files.append(rel)
            self.out.kinds[kind] = self.out.kinds.get(kind, 0) + 1
        if yaml_file:
            self.out.yaml_files.append(rel)
        if broken:
            self.out.broken[rel] = broken

    def name(self) -> tuple:
        self.counter += 1
        team = self.rng.choice(TEAMS)
        model = self.rng.choice(MODELS)
        short = model.rsplit("/", 1)[-1].lower().replace(".", "-")
        return team, f"{short}-{self.counter:05d}", model

    def params(self) -> dict:
        r = self.rng
        extra, seen = [], set()
        for f in r.sample(SAFE_FLAGS, r.randint(2, 6)):
            if f[0] not in seen:  # a flag given twice with different values is a warning (SGL007)
                seen.add(f[0])
                extra.append(f)
        tp = r.choice([1, 2, 4, 8])
        groups = [["--tp-size", str(tp)],
                  ["--disaggregation-transfer-backend", r.choice(BACKENDS)]] + extra
        brk = ""
        if r.random() < self.broken_ratio:
            brk, flags = r.choice(BREAKS)
            if flags[0] == "--disaggregation-transfer-backend":  # replace the backend
                groups[1] = list(flags)
            else:  # insert the flag between two others
                groups.insert(r.randrange(0, len(groups) + 1), list(flags))
        shared = [w for g in groups for w in g]
        return {"shared": shared, "broken": brk, "image": r.choice(IMAGES), "port": r.choice([30000, 8000, 30010]),
                "bootstrap": r.choice([8998, 9000]), "replicas": r.randint(1, 4), "gpus": tp}

    # -- kinds ---------------------------------------------------------------------
    def k8s_container(self, name: str, role: str, model: str, p: dict, indent: str, args: list = None,
                      args_text: str = None) -> str:
        lines = [f"{indent}- name: {name}-{role}",
                 f"{indent}  image: {p['image']}",
                 f"{indent}  imagePullPolicy: IfNotPresent",
                 f"{indent}  command: [python3, -m, sglang.launch_server]"]
        if args_text is not None:
            lines.append(f"{indent}  args: {args_text}")
        else:
            lines.append(f"{indent}  args:")
            lines += [f"{indent}    - {_q(a)}" for a in args]
        lines += [f"{indent}  env:",
                  f"{indent}    - name: SGLANG_ROLE",
                  f"{indent}      value: {role}",
                  f"{indent}    - name: NCCL_DEBUG",
                  f"{indent}      value: WARN",
                  f"{indent}    - name: POD_IP",
                  f"{indent}      valueFrom:",
                  f"{indent}        fieldRef:",
                  f"{indent}          fieldPath: status.podIP",
                  f"{indent}  ports:",
                  f"{indent}    - containerPort: {p['port']}",
                  f"{indent}      name: http",
                  f"{indent}  resources:",
                  f"{indent}    limits:",
                  f"{indent}      nvidia.com/gpu: {p['gpus']}",
                  f"{indent}  readinessProbe:",
                  f"{indent}    httpGet: {{path: /health, port: {p['port']}}}",
                  f"{indent}    periodSeconds: 10",
                  f"{indent}  volumeMounts:",
                  f"{indent}    - name: shm",
                  f"{indent}      mountPath: /dev/shm"]
        return "\n".join(lines)

    def deployment(self, name: str, role: str, body: str, p: dict) -> str:
        return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}-{role}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/component: {role}
spec:
  replicas: {p['replicas']}
  selector:
    matchLabels: {{app: {name}, role: {role}}}
  template:
    metadata:
      labels: {{app: {name}, role: {role}}}
    spec:
      containers:
{body}
      volumes:
        - name: shm
          emptyDir: {{medium: Memory, sizeLimit: 16Gi}}
"""

    def role_args(self, model: str, role: str, p: dict) -> list:
        a = ["--model-path", model, "--disaggregation-mode", role, "--port", str(p["port"])]
        if role == "prefill":
            a += ["--disaggregation-bootstrap-port", str(p["bootstrap"])]
        return a

    def k8s(self) -> None:
        team, name, model = self.name()
        p = self.params()
        docs = []
        for role in ("prefill", "decode"):
            args = self.role_args(model, role, p) + p["shared"]
            docs.append(self.deployment(name, role, self.k8s_container(name, role, model, p, "        ", args), p))
        text = f"# {name}: prefill/decode deployments\n" + "---\n".join(docs)
        self.write(f"deploy/{team}/k8s/{name}.yaml", text, kind="k8s", yaml_file=True, broken=p["broken"])

    def k8s_anchor(self) -> None:
        """Both roles share one flag list: an anchor on the prefill container's
        args, an alias on the decode container's; the role flags are in each
        container's command."""
        team, name, model = self.name()
        p = self.params()
        shared = "\n".join(f"                - {_q(a)}" for a in ["--model-path", model] + p["shared"])
        items = []
        for role in ("prefill", "decode"):
            extra = ["--disaggregation-mode", role, "--port", str(p["port"])]
            if role == "prefill":
                extra += ["--disaggregation-bootstrap-port", str(p["bootstrap"])]
            cmd = "[python3, -m, sglang.launch_server, " + ", ".join(_q(a) for a in extra) + "]"
            args = f"args: &shared_args\n{shared}" if role == "prefill" else "args: *shared_args"
            items.append(f"""  - apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: {name}-{role}, labels: {{app: {name}, role: {role}}}}}
    spec:
      replicas: {p['replicas']}
      template:
        spec:
          containers:
            - name: sglang
              image: {p['image']}
              command: {cmd}
              {args}
              resources:
                limits: {{nvidia.com/gpu: {p['gpus']}}}
""")
        text = (f"# {name}: both roles share one flag list through a YAML anchor\n"
                f"apiVersion: v1\nkind: List\nitems:\n" + "".join(items))
        self.write(f"deploy/{team}/k8s/{name}-anchored.yaml", text, kind="k8s-anchor", yaml_file=True,
                   broken=p["broken"])

    def k8s_merge(self) -> None:
        """One pod, two containers: the decode container is the prefill one
        (an anchored mapping) merged in with ``<<:`` and its own name and args."""
        team, name, model = self.name()
        p = self.params()
        blocks = []
        for role in ("prefill", "decode"):
            args = "\n".join(f"            - {_q(a)}" for a in self.role_args(model, role, p) + p["shared"])
            if role == "prefill":
                blocks.append(f"""        - &sglang_base
          name: prefill
          image: {p['image']}
          command: [python3, -m, sglang.launch_server]
          resources:
            limits: {{nvidia.com/gpu: {p['gpus']}}}
          args:
{args}""")
            else:
                blocks.append(f"""        - <<: *sglang_base
          name: decode
          args:
{args}""")
        text = f"# {name}: prefill and decode containers of one pod, the second merged from the first\n" + \
            self.deployment(name, "pd", "\n".join(blocks), p)
        self.write(f"deploy/{team}/k8s/{name}-merged.yaml", text, kind="k8s-merge", yaml_file=True,
                   broken=p["broken"])

    def config_pair(self) -> None:
        team, name, model = self.name()
        p = self.params()
        # The break, if any, goes into the role it breaks (config files are per role).
        brk = p["broken"]
        for role in ("prefill", "decode"):
            lines = [f"# SGLang --config file: python -m sglang.launch_server --config {name}-{role}.yaml",
                     f"model-path: {model}", f"disaggregation-mode: {role}", f"port: {p['port']}"]
            shared = list(p["shared"])
            i = 0
            while i < len(shared):
                key = shared[i][2:]
                if i + 1 < len(shared) and not shared[i + 1].startswith("--"):
                    val = shared[i + 1]
                    lines.append(f"{key}: {_q(val) if not val.replace('.', '').isdigit() else val}")
                    i += 2
                else:
                    lines.append(f"{key}: true")
                    i += 1
            if role == "prefill":
                lines.append(f"disaggregation-bootstrap-port: {p['bootstrap']}")
            breaks_here = brk and ((brk in ("SGL101", "SGL104") and role == "prefill") or
                                   (brk == "SGL102" and role == "decode"))
            self.write(f"deploy/{team}/sglang/{name}-{role}.yaml", "\n".join(lines) + "\n", kind="config-pair",
                       yaml_file=True, broken=brk if breaks_here else "")

    def yaml_j2(self, include: bool = False) -> None:
        team, name, model = self.name()
        p = self.params()
        shared = ", ".join(_q(a) for a in ["--model-path", model] + p["shared"])
        if include:
            partial = f"deploy/{team}/templates/partials/{name}-flags.j2"
            self.write(partial, "".join(f"            - {_q(a)}\n" for a in ["--model-path", model] + p["shared"]),
                       launch=False)
            self.out.partials.append(partial)
            flags_block = f'{{% include "partials/{name}-flags.j2" %}}\n'
            head = ""
        else:
            head = f"{{% set shared_flags = [{shared}] %}}\n"
            flags_block = '{% for flag in shared_flags %}\n            - "{{ flag }}"\n{% endfor %}\n'
        text = f"""{{#- {name}: one template rendered per role (role=prefill, role=decode). -#}}
{head}apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}-{{{{ role }}}}
  labels: {{app: {name}, role: "{{{{ role }}}}"}}
spec:
  replicas: {p['replicas']}
  template:
    spec:
      containers:
        - name: {{{{ role }}}}
          image: {p['image']}
          command: ["python3", "-m", "sglang.launch_server"]
          args:
{flags_block}            - "--disaggregation-mode"
            - "{{{{ role }}}}"
            - "--port"
            - "{p['port']}"
{{% if role == "prefill" %}}
            - "--disaggregation-bootstrap-port"
            - "{p['bootstrap']}"
{{% endif %}}
          resources:
            limits:
              nvidia.com/gpu: {p['gpus']}
"""
        kind = "yaml-j2-include" if include else "yaml-j2"
        self.write(f"deploy/{team}/templates/{name}.yaml.j2", text, kind=kind,
                   broken="" if include else p["broken"])
        if include and p["broken"]:
            self.out.broken[partial] = p["broken"]  # the finding points into the partial

    def sh_j2(self) -> None:
        team, name, model = self.name()
        p = self.params()
        shared = " ".join(p["shared"])
        text = f"""#!/usr/bin/env bash
{{# {name}: launcher template rendered per role. #}}
set -euo pipefail
export NCCL_DEBUG=WARN
exec python3 -m sglang.launch_server --model-path {model} {shared} \\
  --disaggregation-mode {{{{ role }}}} \\
{{%- if role == "prefill" %}}
  --disaggregation-bootstrap-port {p['bootstrap']} \\
{{%- endif %}}
  --port {p['port']}
"""
        self.write(f"deploy/{team}/launch/{name}.sh.j2", text, kind="sh-j2", broken=p["broken"])

    def shell(self) -> None:
        team, name, model = self.name()
        p = self.params()
        tp = p["gpus"]
        prefill_gpus = ",".join(str(i) for i in range(tp))
        decode_gpus = ",".join(str(i) for i in range(tp, 2 * tp))
        text = f"""#!/usr/bin/env bash
# {name}: starts a prefill and a decode server on one node.
set -euo pipefail
MODEL={model}
COMMON_ARGS="--model-path $MODEL {' '.join(p['shared'])}"

CUDA_VISIBLE_DEVICES={prefill_gpus} python3 -m sglang.launch_server $COMMON_ARGS \\
  --disaggregation-mode prefill --port {p['port']} --disaggregation-bootstrap-port {p['bootstrap']} &
CUDA_VISIBLE_DEVICES={decode_gpus} python3 -m sglang.launch_server $COMMON_ARGS \\
  --disaggregation-mode decode --port {p['port'] + 1} &
wait
"""
        self.write(f"deploy/{team}/scripts/{name}.sh", text, kind="shell", broken=p["broken"], mode=0o755)

    def run(self) -> Generated:
        self.root.mkdir(parents=True, exist_ok=True)
        makers = {"k8s": self.k8s, "k8s-anchor": self.k8s_anchor, "k8s-merge": self.k8s_merge,
                  "config-pair": self.config_pair, "yaml-j2": self.yaml_j2,
                  "yaml-j2-include": lambda: self.yaml_j2(include=True), "sh-j2": self.sh_j2, "shell": self.shell}
        kinds = [k for k, _ in MIX]
        weights = [w for _, w in MIX]
        while len(self.out.files) < self.n:
            kind = self.rng.choices(kinds, weights)[0]
            if kind == "config-pair" and self.n - len(self.out.files) < 2:
                kind = "k8s"
            makers[kind]()
        (self.root / "README.md").write_text(f"Synthetic pdlint benchmark repository: {self.n} launch files.\n")
        return self.out


def generate(root, n: int = 1000, seed: int = 0, broken_ratio: float = 0.10, git_init: bool = True) -> Generated:
    """Write a synthetic repository of ``n`` launch files into ``root``.

    The repository is made a git work tree of its own (``git init``, nothing
    committed) so that pdlint, which lists files with ``git ls-files`` inside a
    work tree, treats it as its own repository even when ``root`` lies inside
    another one whose .gitignore would hide it."""
    root = Path(root)
    out = _Gen(root, n, seed, broken_ratio).run()
    if git_init and shutil.which("git") and not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return out


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


def find_tool(name: str):
    here = os.path.dirname(sys.executable)
    return shutil.which(name, path=here) or shutil.which(name)


def python_of(script: str) -> str:
    """The interpreter of a console script (its ``#!`` line), else this one."""
    try:
        with open(script, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
    except OSError:
        return sys.executable
    if first.startswith("#!"):
        exe = first[2:].strip().split()[0]
        if os.path.basename(exe) != "env" and os.path.exists(exe):
            return exe
    return sys.executable


# check-yaml with ruamel.yaml's pure-Python parser even where ruamel.yaml.clib is
# installed: the C extension's module is hidden before ruamel.yaml is imported.
PURE_CHECK_YAML = ("import sys; sys.modules['_ruamel_yaml'] = None; "
                   "sys.modules['ruamel.yaml.clib._ruamel_yaml'] = None; "
                   "from pre_commit_hooks.check_yaml import main; raise SystemExit(main())")


class Editor:
    """Changes one launch file before each run (a different file each time, a comment
    appended in the file's own syntax, so its launches stay the same) and puts every
    file back afterwards: the one-file-changed row of the result cache."""

    def __init__(self, root: Path, files: list):
        self.root = root
        self.files = [f for f in files if f.endswith((".yaml", ".yml", ".sh", ".j2"))]
        self.saved: dict = {}

    def change(self, i: int) -> None:
        rel = self.files[(i * 37) % len(self.files)]
        path = self.root / rel
        if rel not in self.saved:
            self.saved[rel] = path.read_bytes()
        comment = f"{{# bench edit {i} #}}\n" if rel.endswith(".j2") else f"# bench edit {i}\n"
        path.write_bytes(self.saved[rel] + comment.encode())

    def restore(self) -> None:
        for rel, data in self.saved.items():
            (self.root / rel).write_bytes(data)
        self.saved.clear()


# Every tool runs as installed tools run: with byte-code caching.  Where the
# environment sets PYTHONDONTWRITEBYTECODE (some CI images and sandboxes do), an
# editable install would otherwise compile every module from source on every run
# (about 0.9 s for pdlint), which no user of an installed pdlint pays; the warm-up
# run writes the .pyc files.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(cmd: list, cwd: Path) -> tuple:
    """(wall seconds, CPU seconds of the child, exit code, stdout, stderr).  The CPU time
    (user + system, from getrusage of the waited-for child) moves less than the wall time
    on a machine shared with other jobs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=CHILD_ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.returncode, r.stdout, r.stderr


def time_cmd(cmd: list, cwd: Path, repeat: int, warmup: int, ok_codes=(0, 1), before=None) -> dict:
    """Run ``cmd`` ``warmup`` times untimed, then ``repeat`` times timed; ``before(i)``,
    if given, runs untimed before each run (e.g. to change one file)."""
    runs, cpus = [], []
    rc = None
    for i in range(warmup + repeat):
        if before is not None:
            before(i)
        dt, cpu, rc, out, err = run_once(cmd, cwd)
        if rc not in ok_codes:
            raise RuntimeError(f"{' '.join(cmd[:3])}... exited {rc}:\n{err.decode(errors='replace')[-2000:]}")
        if i >= warmup:
            runs.append(dt)
            cpus.append(cpu)
    return {"median_s": statistics.median(runs), "min_s": min(runs), "max_s": max(runs), "runs": runs,
            "cpu_median_s": statistics.median(cpus), "cpu_runs": cpus, "rc": rc}


def tool_version(cmd: list) -> str:
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        return r.stdout.decode(errors="replace").strip().splitlines()[0] if r.stdout else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def check_yaml_parser(check_yaml: str) -> str:
    """Which YAML parser the installed check-yaml uses: ruamel.yaml's pure-Python
    one (ruamel.yaml >= 0.19.1 alone, what pre-commit installs today) or the
    libyaml-based C parser (with ruamel.yaml.clib installed, about 4x faster).
    The ratios to check-yaml mean little without it."""
    try:
        with open(check_yaml, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
    except OSError:
        return ""
    python = first[2:].strip().split()[0] if first.startswith("#!") else sys.executable
    probe = ("import ruamel.yaml as r; p = r.YAML(typ='safe').Parser; "
             "print('ruamel.yaml', r.__version__ + ',', 'C parser (libyaml, ruamel.yaml.clib)' "
             "if 'CParser' in getattr(p, '__name__', '') else 'pure-Python parser')")
    try:
        r = subprocess.run([python, "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout.decode(errors="replace").strip()


def _has_jobs(pdlint: str) -> bool:
    """Does this pdlint have ``--jobs``?"""
    r = subprocess.run([pdlint, "check", "--help"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return b"--jobs" in r.stdout


def bench(gen: Generated, repeat: int, warmup: int, log, pdlint: str = None) -> dict:
    root = gen.root
    pdlint = pdlint or find_tool("pdlint")
    if pdlint is None:
        raise SystemExit("bench: pdlint is not installed (next to sys.executable or on PATH)")
    check_yaml = find_tool("check-yaml")
    yamllint = find_tool("yamllint")
    yaml_files = sorted(gen.yaml_files)
    launch_files = sorted(gen.files)

    rows = {}
    skipped = {}
    log(f"timing pdlint --version ({repeat} runs + {warmup} warm-up)")
    rows["pdlint --version"] = time_cmd([pdlint, "--version"], root, repeat, warmup, ok_codes=(0,))
    floor_files = sorted(gen.files)
    log("timing the work floor (PyYAML C loader, plain Jinja2 per role, tree-sitter-bash; bench/floor.py)")
    rows["work floor <repo>"] = time_cmd([python_of(pdlint), str(Path(__file__).with_name("floor.py")), str(root),
                                          *floor_files], root, repeat, warmup, ok_codes=(0,))
    log("timing pdlint . cold (--no-cache: every file, both roles)")
    rows["pdlint <repo>"] = time_cmd([pdlint, "check", "--no-cache", "."], root, repeat, warmup)
    if _has_jobs(pdlint):  # a pdlint that analyses a large run in one process per CPU (pdlint.parallel)
        log("timing pdlint . cold in one process (--no-cache --jobs 1)")
        rows["pdlint <repo> 1 process"] = time_cmd([pdlint, "check", "--no-cache", "--jobs", "1", "."], root,
                                                   repeat, warmup)
    log("timing pdlint . warm (result cache, nothing changed)")
    rows["pdlint <repo> warm"] = time_cmd([pdlint, "check", "."], root, repeat, warmup)
    edits = Editor(root, sorted(gen.files))
    log("timing pdlint . with one launch file changed before each run (result cache)")
    try:
        rows["pdlint <repo> 1 changed"] = time_cmd([pdlint, "check", "."], root, repeat, warmup,
                                                   before=edits.change)
    finally:
        edits.restore()
    log("timing pdlint FILE... (pre-commit --all-files style, --no-cache)")
    rows["pdlint <all launch files>"] = time_cmd([pdlint, "check", "--no-cache", "--", *launch_files], root,
                                                 repeat, warmup)
    log("timing pdlint YAML-FILE... (--no-cache)")
    rows["pdlint <yaml files>"] = time_cmd([pdlint, "check", "--no-cache", "--", *yaml_files], root, repeat,
                                           warmup)
    if check_yaml:
        py = python_of(check_yaml)
        parser = check_yaml_parser(check_yaml)
        if "C parser" in parser:
            log("timing check-yaml (libyaml C parser)")
            rows["check-yaml/libyaml <yaml files>"] = time_cmd(
                [check_yaml, "--allow-multiple-documents", *yaml_files], root, repeat, warmup)
        else:
            skipped["check-yaml/libyaml"] = "ruamel.yaml.clib is not installed next to check-yaml " \
                                            "(pip install ruamel.yaml.clib)"
        log("timing check-yaml (pure-Python parser)")
        rows["check-yaml <yaml files>"] = time_cmd([py, "-c", PURE_CHECK_YAML, "--allow-multiple-documents",
                                                    *yaml_files], root, repeat, warmup)
    else:
        skipped["check-yaml"] = "not installed (pip install pre-commit-hooks)"
        log("skipping check-yaml: not installed (pip install pre-commit-hooks)")
    if yamllint:
        log("timing yamllint")
        rows["yamllint <yaml files>"] = time_cmd([yamllint, "-d", "relaxed", *yaml_files], root, repeat, warmup)
    else:
        skipped["yamllint"] = "not installed (pip install yamllint)"
        log("skipping yamllint: not installed (pip install yamllint)")

    # What pdlint found (one more, untimed run).
    r = subprocess.run([pdlint, "check", "--format", "json", "."], cwd=root, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    report = json.loads(r.stdout.decode() or "{}")
    errors = [f for f in report.get("findings", []) if f.get("severity") == "error"]
    by_code: dict = {}
    for f in errors:
        by_code[f["code"]] = by_code.get(f["code"], 0) + 1
    found = {(f["path"], f["code"]) for f in errors}
    planted = set(gen.broken.items())
    findings = {
        "launches": len(report.get("launches", [])),
        "files_scanned": report.get("files"),
        "planted_broken": len(planted),
        "error_findings": len(errors),
        "by_code": dict(sorted(by_code.items())),
        "planted_found": len(planted & found),
        "planted_missed": sorted(f"{p} {c}" for p, c in planted - found),
        "unexpected": sorted(f"{p} {c}" for p, c in found - planted),
    }

    def ratio(a: str, b: str, key: str):
        if a in rows and b in rows and rows[b][key] > 0:
            return round(rows[a][key] / rows[b][key], 2)
        return None

    pairs = [("pdlint <repo>", "work floor <repo>"), ("pdlint <repo> 1 process", "work floor <repo>"),
             ("pdlint <repo>", "check-yaml <yaml files>"), ("pdlint <repo>", "check-yaml/libyaml <yaml files>"),
             ("pdlint <repo>", "yamllint <yaml files>"),
             ("pdlint <repo> warm", "check-yaml/libyaml <yaml files>"),
             ("pdlint <repo> warm", "check-yaml <yaml files>"),
             ("pdlint <repo> 1 changed", "check-yaml/libyaml <yaml files>"),
             ("pdlint <all launch files>", "check-yaml <yaml files>"),
             ("pdlint <all launch files>", "yamllint <yaml files>"),
             ("pdlint <yaml files>", "check-yaml <yaml files>"), ("pdlint <yaml files>", "yamllint <yaml files>")]
    ratios = {f"{a} / {b.rsplit(' <', 1)[0]}": ratio(a, b, "median_s") for a, b in pairs}
    ratios_min = {f"{a} / {b.rsplit(' <', 1)[0]}": ratio(a, b, "min_s") for a, b in pairs}
    ratios_cpu = {f"{a} / {b.rsplit(' <', 1)[0]}": ratio(a, b, "cpu_median_s") for a, b in pairs}
    return {
        "n": len(launch_files),
        "kinds": dict(sorted(gen.kinds.items())),
        "yaml_files": len(yaml_files),
        "partials": len(gen.partials),
        "repeat": repeat,
        "warmup": warmup,
        "machine": {"python": platform.python_version(), "implementation": platform.python_implementation(),
                    "platform": platform.platform(), "cpus": os.cpu_count(),
                    "loadavg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None},
        "tools": {"pdlint": {"path": pdlint, "version": tool_version([pdlint, "--version"])},
                  "check-yaml": {"path": check_yaml, "parser": check_yaml_parser(check_yaml)} if check_yaml
                  else None,
                  "yamllint": {"path": yamllint, "version": tool_version([yamllint, "--version"])} if yamllint else None},
        "skipped": skipped,
        "timings": rows,
        "ratios": ratios,
        "ratios_min": ratios_min,
        "ratios_cpu": ratios_cpu,
        "findings": findings,
    }


def table(s: dict) -> str:
    n_yaml = s["yaml_files"]
    files_of = {"pdlint --version": "-", "work floor <repo>": str(s["n"]),
                "pdlint <repo>": f"{s['n']} (+{s['partials']} partials)",
                "pdlint <repo> 1 process": f"{s['n']} (+{s['partials']} partials)",
                "pdlint <repo> warm": str(s["n"]), "pdlint <repo> 1 changed": str(s["n"]),
                "pdlint <all launch files>": str(s["n"]), "pdlint <yaml files>": str(n_yaml),
                "check-yaml <yaml files>": str(n_yaml), "check-yaml/libyaml <yaml files>": str(n_yaml),
                "yamllint <yaml files>": str(n_yaml)}
    out = [f"pdlint benchmark: {s['n']} launch files ({', '.join(f'{k} {v}' for k, v in s['kinds'].items())}); "
           f"{n_yaml} plain YAML files",
           f"machine: {s['machine']['cpus']} CPUs, Python {s['machine']['python']}, "
           f"load {s['machine']['loadavg_1m']}; median of {s['repeat']} runs after {s['warmup']} warm-up",
           *([f"check-yaml: {s['tools']['check-yaml']['parser']}"]
             if (s["tools"].get("check-yaml") or {}).get("parser") else []),
           "",
           f"{'command':<32} {'files':>20} {'median':>9} {'min':>9} {'cpu':>9} {'per file':>10} {'rc':>3}",
           "-" * 98]
    for name, r in s["timings"].items():
        nf = files_of.get(name, "")
        try:
            per = f"{r['median_s'] / int(nf.split()[0]) * 1000:.2f} ms"
        except (ValueError, ZeroDivisionError):
            per = ""
        out.append(f"{name:<32} {nf:>20} {r['median_s'] * 1000:>7.0f}ms {r['min_s'] * 1000:>7.0f}ms "
                   f"{r.get('cpu_median_s', 0) * 1000:>7.0f}ms {per:>10} {r['rc']:>3}")
    for name, why in s["skipped"].items():
        out.append(f"{name:<32} skipped: {why}")
    out += ["", f"{'ratio (>1: pdlint is slower)':<58} {'median':>7} {'min':>7} {'cpu':>7}"]
    for k, v in s["ratios"].items():
        if v is not None:
            cpu = (s.get("ratios_cpu") or {}).get(k)
            out.append(f"  {k:<56} {v:>6.2f}x {s['ratios_min'][k]:>6.2f}x "
                       + (f"{cpu:>6.2f}x" if cpu is not None else ""))
    f = s["findings"]
    out += ["", f"pdlint found {f['error_findings']} errors ({', '.join(f'{k} {v}' for k, v in f['by_code'].items())}) "
                f"in {f['launches']} launches; planted {f['planted_broken']}, found {f['planted_found']}, "
                f"missed {len(f['planted_missed'])}, unexpected {len(f['unexpected'])}"]
    for m in f["planted_missed"][:10]:
        out.append(f"  missed: {m}")
    for m in f["unexpected"][:10]:
        out.append(f"  unexpected: {m}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="number of launch files (default 1000)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per command (median; default 3)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs per command (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--broken-ratio", type=float, default=0.10)
    ap.add_argument("--out", help="generate into this directory (default: a temporary one, removed afterwards)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary repository")
    ap.add_argument("--generate-only", action="store_true", help="only write the repository (needs --out)")
    ap.add_argument("--json", action="store_true", help="print the JSON summary instead of the table")
    ap.add_argument("--save", metavar="FILE", help="also write the JSON summary to FILE")
    ap.add_argument("--pdlint", metavar="PATH", help="the pdlint executable (default: next to this Python, or on PATH)")
    a = ap.parse_args(argv)
    if a.repeat < 1 or a.n < 1:
        ap.error("-n and --repeat must be at least 1")
    if a.generate_only and not a.out:
        ap.error("--generate-only needs --out")

    def log(msg: str) -> None:
        sys.stderr.write(f"bench: {msg}\n")

    tmp = None
    if a.out:
        root = Path(a.out).resolve()
        if root.exists() and any(root.iterdir()):
            ap.error(f"--out {root} exists and is not empty")
    else:
        tmp = tempfile.mkdtemp(prefix="pdlint-bench-")
        root = Path(tmp) / "repo"
    try:
        log(f"generating {a.n} launch files in {root}")
        gen = generate(root, a.n, a.seed, a.broken_ratio)
        if a.generate_only:
            log(f"wrote {len(gen.files)} launch files ({len(gen.broken)} broken) to {root}")
            return 0
        summary = bench(gen, a.repeat, a.warmup, log, a.pdlint)
        summary["repository"] = str(root) if (a.out or a.keep) else None
        if a.save:
            Path(a.save).write_text(json.dumps(summary, indent=2) + "\n")
        if a.json:
            sys.stdout.write(json.dumps(summary, indent=2) + "\n")
        else:
            sys.stdout.write(table(summary) + "\n")
        return 0
    finally:
        if tmp and not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp:
            log(f"kept {root}")


if __name__ == "__main__":
    raise SystemExit(main())
