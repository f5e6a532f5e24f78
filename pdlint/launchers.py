"""Recognise server and router entry points inside a command's words.

Format adapters hand over whole commands (``srun … docker run IMG python3 -u
-m sglang.launch_server --tp 2``); this module finds the entry point
wherever it sits behind wrappers, splits the words into the entry-point part
and the argv the server's own parser sees, and collects environment variables
the wrappers set (``VAR=x cmd``, ``env VAR=x``, ``docker run -e VAR=x``).
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass, field
from pdlint.text import TStr

# module -> (engine, kind, canonical entry point)
MODULES = {
    "sglang.launch_server": ("sglang", "server", "python -m sglang.launch_server"),
    "dynamo.sglang": ("sglang", "server", "python -m dynamo.sglang"),
    "dynamo.sglang.worker": ("sglang", "server", "python -m dynamo.sglang.worker"),
    "dynamo.sglang.decode_worker": ("sglang", "server", "python -m dynamo.sglang.decode_worker"),
    "sglang_router.launch_router": ("sglang", "router", "python -m sglang_router.launch_router"),
    # sgl-router's server + router launcher: one parser of SGLang's ServerArgs and the `--router-*` options; it
    # starts SGLang servers with the former (sglang_router/launch_server.py main), so it is a server launch whose
    # router words are taken out first (ROUTER_SERVERS)
    "sglang_router.launch_server": ("sglang", "server", "python -m sglang_router.launch_server"),
    # the sglang-router package's CLI (sglang_router/__main__.py -> cli.main: `launch` / `server` sub-commands)
    "sglang_router": ("sglang", "router", "python -m sglang_router"),
    "sglang.srt.disaggregation.mini_lb": ("sglang", "router", "python -m sglang.srt.disaggregation.mini_lb"),
    "sglang.srt.disaggregation.launch_lb": ("sglang", "router", "python -m sglang.srt.disaggregation.launch_lb"),
    # SGLang's Rust PD load balancer package of 0.4.6-0.4.7 (sgl-pdlb/py_src/sgl_pdlb/launch_lb.py: mini_lb's
    # --prefill URL... [--prefill-bootstrap-ports] --decode URL... --host --port)
    "sgl_pdlb.launch_lb": ("sglang", "router", "python -m sgl_pdlb.launch_lb"),
    "vllm.entrypoints.openai.api_server": ("vllm", "server", "python -m vllm.entrypoints.openai.api_server"),
    # vLLM's gRPC server (vllm/entrypoints/grpc_server.py: AsyncEngineArgs' flags plus --host/--port; used by
    # lightseekorg/smg's PD workers): judged with the api_server's table, so only its engine flags matter
    "vllm.entrypoints.grpc_server": ("vllm", "server", "python -m vllm.entrypoints.grpc_server"),
    "dynamo.vllm": ("vllm", "server", "python -m dynamo.vllm"),
    "dynamo.vllm.unified_main": ("vllm", "server", "python -m dynamo.vllm.unified_main"),
    "dynamo.trtllm": ("trtllm", "server", "python -m dynamo.trtllm"),
    "dynamo.frontend": ("dynamo", "router", "python -m dynamo.frontend"),
    # vLLM's router (vllm-project/router, PyPI vllm-router 0.1.17: vllm_router/launch_router.py, behind the
    # `vllm-router` console script): sglang-router's CLI, `--vllm-pd-disaggregation --prefill URL [BOOTSTRAP]
    # --decode URL`, each repeated
    "vllm_router.launch_router": ("vllm", "router", "python -m vllm_router.launch_router"),
}
# (module, sub-command) -> (engine, kind, canonical entry point): a CLI module that starts a server only with
# its sub-command word (vllm/entrypoints/cli/main.py, what the `vllm` console script runs: `python -m
# vllm.entrypoints.cli.main serve M` is `vllm serve M`; its `bench`, `chat`, `--help` start no server)
MODULE_COMMANDS = {
    # sglang-router's CLI `server` sub-command runs launch_server's main on the words after it (sglang_router/cli.py)
    ("sglang_router", "server"): ("sglang", "server", "python -m sglang_router server"),
    ("vllm.entrypoints.cli.main", "serve"): ("vllm", "server", "vllm serve"),
    # the module behind the `trtllm-serve` console script (tensorrt_llm/commands/serve.py, a click group)
    ("tensorrt_llm.commands.serve", "disaggregated"): ("trtllm", "router", "trtllm-serve disaggregated"),
    ("tensorrt_llm.commands.serve", "disaggregated_mpi_worker"):
        ("trtllm", "router", "trtllm-serve disaggregated_mpi_worker"),
}
# program (+ subcommand) -> (engine, kind, entry point, number of words it spans)
PROGRAMS = {
    ("sglang", "serve"): ("sglang", "server", "sglang serve"),
    ("vllm", "serve"): ("vllm", "server", "vllm serve"),
    ("trtllm-serve", "disaggregated"): ("trtllm", "router", "trtllm-serve disaggregated"),
    # one MPI job that starts every context and generation server of its -c config (TensorRT-LLM
    # tensorrt_llm/commands/serve.py `disaggregated_mpi_worker`; MLPerf Inference v5.1/v6.0 Llama3.1-405B
    # disaggregated submissions): read like the proxy's -c config, whose servers pdlint checks
    ("trtllm-serve", "disaggregated_mpi_worker"): ("trtllm", "router", "trtllm-serve disaggregated_mpi_worker"),
    ("trtllm-serve", None): ("trtllm", "server", "trtllm-serve"),
    ("sglang-router", "server"): ("sglang", "server", "sglang-router server"),
    ("sglang-router", None): ("sglang", "router", "sglang-router"),
    ("vllm-router", None): ("vllm", "router", "vllm-router"),
    # the same CLI's other console scripts (sglang-router 0.3.2 entry_points.txt: amg, smg = sglang_router.cli:main)
    ("smg", "launch"): ("sglang", "router", "smg launch"),
    ("smg", "server"): ("sglang", "router", "smg server"),
    ("amg", "launch"): ("sglang", "router", "amg launch"),
    ("amg", "server"): ("sglang", "router", "amg server"),
}
#: entry points that run sglang_router.launch_server's parser: SGLang's server flags plus the router's
#: `--router-*` options (and `--worker-urls`), split by pdlint.engines.sglang.router_flags.split_server_argv.
#: Not `smg server` / `amg server`: lightseekorg/smg's CLI has those names too
ROUTER_SERVERS = ("python -m sglang_router.launch_server", "python -m sglang_router server", "sglang-router server")
SCRIPTS = {
    "sglang/launch_server.py": "sglang.launch_server",
    "sglang_router/launch_router.py": "sglang_router.launch_router",
    "vllm/entrypoints/openai/api_server.py": "vllm.entrypoints.openai.api_server",
}
#: example proxies a deployment copies and runs as ``python [PATH/]NAME.py``: vLLM's NixlConnector proxy
#: (tests/v1/kv_connector/nixl_integration/toy_proxy_server.py: ``--prefiller-hosts/--prefiller-ports``,
#: ``--decoder-hosts/--decoder-ports``; the form vLLM's NixlConnector docs use), its disaggregated-serving
#: demo (examples/online_serving/disaggregated_serving/disagg_proxy_demo.py: ``--prefill/--decode HOST:PORT``),
#: its MooncakeConnector proxy (.../mooncake_connector/mooncake_connector_proxy.py: ``--prefill URL [BOOTSTRAP]``,
#: ``--decode URL``, each repeated) and its encoder-disaggregation proxy
#: (examples/online_serving/disaggregated_encoder/disagg_epd_proxy.py: ``--prefill-servers-urls`` /
#: ``--decode-servers-urls``, comma-separated)
SCRIPT_ROUTERS = {
    "toy_proxy_server.py": ("vllm", "router", "python toy_proxy_server.py"),
    "disagg_proxy_demo.py": ("vllm", "router", "python disagg_proxy_demo.py"),
    "mooncake_connector_proxy.py": ("vllm", "router", "python mooncake_connector_proxy.py"),
    "disagg_epd_proxy.py": ("vllm", "router", "python disagg_epd_proxy.py"),
}
#: vLLM's NixlConnector proxy copied under another name (novitalabs/pegaflow's nixl_proxy_server.py, a
#: disagg_proxy_server.py: field test rw13/f), told by its flags: prefiller and decoder hosts or ports
_TOY_PROXY = SCRIPT_ROUTERS["toy_proxy_server.py"]
PREFILLER_FLAGS = ("--prefiller-host", "--prefiller-hosts", "--prefiller-port", "--prefiller-ports")
_DECODER = ("--decoder-host", "--decoder-hosts", "--decoder-port", "--decoder-ports")


def _toy_proxy_flags(texts: list) -> bool:
    names = {t.partition("=")[0] for t in texts if t.startswith("--")}
    return any(f in names for f in PREFILLER_FLAGS) and any(f in names for f in _DECODER)


SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash"}


@dataclass(frozen=True)
class Wrapper:
    """How a program that runs a command reads its own words before that command (:data:`WRAPPERS`)."""
    values: frozenset = frozenset()  # options taking a value (`-s KILL`, `-sKILL`, `--signal=KILL`)
    operands: int = 0  # words it reads after its options, before the program (timeout's DURATION, gosu's USER)
    no_run: frozenset = frozenset()  # options after which it runs no program (`taskset -p MASK PID`)
    assignments: bool = False  # NAME=value words among its options set the command's environment (env, sudo)


#: programs that run the rest of their words as a command, after options of their own (each with the options that
#: take a value, and what it reads before the program): the process a command becomes, the program a PD020 reason
#: names, and the script a container runs (`command: ["tini", "--", "/scripts/decode.sh"]`, rw31/h P3) come after
#: them.  From each program's usage / getopt string: GNU coreutils (env, nice, nohup, stdbuf, timeout), util-linux
#: (setsid, taskset, ionice, chrt), numactl(8), sudo(8), GNU time, bash's exec / command builtins, and the container
#: init wrappers tini (`tini [-s] [-p SIGNAL] [-e CODE] [--] PROGRAM`), dumb-init (`dumb-init [-c] [-r s:r]
#: PROGRAM`), gosu and su-exec (`gosu USER PROGRAM`)
WRAPPERS = {
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir"}), assignments=True,
                   no_run=frozenset({"-S", "--split-string"})),  # (-S: the program is inside its string)
    "nohup": Wrapper(), "setsid": Wrapper(),
    "exec": Wrapper(frozenset({"-a"})),
    "numactl": Wrapper(frozenset({"-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-i",
                                  "--interleave", "-p", "--preferred", "-P", "--preferred-many", "-w",
                                  "--weighted-interleave", "-b", "--balancing"}),
                       no_run=frozenset({"-s", "--show", "-H", "--hardware"})),
    "taskset": Wrapper(operands=1, no_run=frozenset({"-p", "--pid"})),  # (`-c LIST`: the list is the operand)
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), operands=1),
    "stdbuf": Wrapper(frozenset({"-i", "--input", "-o", "--output", "-e", "--error"})),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": Wrapper(frozenset({"-c", "--class", "-n", "--classdata"}),
                      no_run=frozenset({"-p", "--pid", "-P", "--pgid", "-u", "--uid"})),
    "time": Wrapper(frozenset({"-f", "--format", "-o", "--output"})),
    "command": Wrapper(no_run=frozenset({"-v", "-V"})),
    "chrt": Wrapper(frozenset({"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"}),
                    operands=1, no_run=frozenset({"-p", "--pid", "-m", "--max"})),
    "sudo": Wrapper(frozenset({"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host",
                               "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T",
                               "--command-timeout", "-R", "--chroot"}), assignments=True,
                    no_run=frozenset({"-l", "--list", "-v", "--validate", "-k", "-K", "-e", "--edit"})),
    "tini": Wrapper(frozenset({"-p", "-e"}), no_run=frozenset({"-h", "--version"})),
    "dumb-init": Wrapper(frozenset({"-r", "--rewrite"}), no_run=frozenset({"-h", "--help", "-V", "--version"})),
    "gosu": Wrapper(operands=1), "su-exec": Wrapper(operands=1),
}
PASS_THROUGH = frozenset(WRAPPERS)


def wrapped_program(texts: list, i: int) -> Optional[int]:
    """The index of the program the wrapper ``texts[i]`` (one of :data:`WRAPPERS`) runs: past its options (a value in
    the next word for those that take one: ``timeout -s KILL 1h``, ``numactl --cpunodebind 0``), a ``--``, and the
    words it reads before the program (``timeout 86400``, ``gosu USER``, ``taskset -c 0-7``); None for another word,
    for a wrapper that runs nothing here (``taskset -p 0x3 1234``), or when its words end first."""
    w = WRAPPERS.get(basename(texts[i]))
    if w is None:
        return None
    j, n = i + 1, len(texts)
    while j < n:
        t = texts[j]
        if t == "--":
            j += 1
            break
        if w.assignments and is_assignment(t):
            j += 1
            continue
        if len(t) < 2 or t[0] != "-" or (t[1].isdigit() and basename(texts[i]) != "nice"):
            break
        opt = t.partition("=")[0] if t.startswith("--") else t[:2]
        if opt in w.no_run:
            return None
        j += 2 if opt in w.values and t == opt else 1
    j += w.operands
    return j if j < n else None
# images whose ENTRYPOINT starts a server: a container or Compose service that sets only the arguments
# (Kubernetes `args` without `command`, Compose `command` without `entrypoint`) runs that server with them.
# repository (any registry in front) -> (ENTRYPOINT for flag arguments, ENTRYPOINT for a leading model name)
IMAGE_ENTRYPOINTS = {
    # vllm-project/vllm Dockerfile, target vllm-openai: ENTRYPOINT ["python3", "-m",
    # "vllm.entrypoints.openai.api_server"]; recent releases ENTRYPOINT ["vllm", "serve"], which parses the
    # same flags and also a leading positional model: arguments that start with a model are read as that
    "vllm/vllm-openai": (("python3", "-m", "vllm.entrypoints.openai.api_server"), ("vllm", "serve")),
    # LMCache's image built on it (docker/Dockerfile: ENTRYPOINT ["vllm", "serve"])
    "lmcache/vllm-openai": (("vllm", "serve"), ("vllm", "serve")),
    # Volcano Kthena's vLLM-Ascend engine (volcano-sh/kthena docker/Dockerfile.mooncake-npu-a3: ENTRYPOINT
    # ["/bin/bash", "/app/entrypoint.sh"], whose last line is `exec vllm serve "$@"`)
    "volcano-sh/kthena-engine": (("vllm", "serve"), ("vllm", "serve")),
    # llm-d's vLLM image (llm-d/llm-d Dockerfile: ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"];
    # the routing sidecar's README runs `ghcr.io/llm-d/llm-d:0.0.8 --model ... --kv-transfer-config ...`): args-only
    # containers of ModelService and llm-d-benchmark manifests (field test rw16/m: PD020 "`--model=...` is not a
    # launcher pdlint knows")
    "llm-d/llm-d": (("python3", "-m", "vllm.entrypoints.openai.api_server"), ("vllm", "serve")),
    # SGLang's router images (sgl-project/sglang docker/gateway.Dockerfile, docker/Dockerfile.router: ENTRYPOINT
    # ["python3", "-m", "sglang_router.launch_router"]), the image renamed sgl-model-gateway in December 2025
    "lmsysorg/sgl-model-gateway": (("python3", "-m", "sglang_router.launch_router"),) * 2,
    "lmsysorg/sglang-router": (("python3", "-m", "sglang_router.launch_router"),) * 2,
}


def image_entrypoint(image: str, args: list) -> Optional[tuple]:
    """The ENTRYPOINT words of a known server image (:data:`IMAGE_ENTRYPOINTS`) for these arguments, or None."""
    if not image or not args:
        return None
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    for repo, (flags_entry, model_entry) in IMAGE_ENTRYPOINTS.items():
        if name == repo or name.endswith("/" + repo):
            return model_entry if not args[0].text.startswith("-") else flags_entry
    return None


_PYTHON = lazyre.compile(r"^python(\d+(\.\d+)*)?$")
_ASSIGN = lazyre.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PY_VALUE_OPTS = {"-X", "-W", "-Q"}


@dataclass
class Match:
    engine: str
    kind: str
    entrypoint: str
    start: int  # index of the first entry-point word
    argv_start: int  # index of the first argument the server parses
    env: dict = field(default_factory=dict)  # name -> TStr, set by wrappers
    module_word: Optional[int] = None  # index of the word naming the module/program
    line_word: Optional[int] = None  # the word whose line is the launch's, when not ``start`` (docker run IMG)


@dataclass
class ShellHandoff:
    """A wrapper runs ``sh -c SCRIPT [ARG0 ARGS…]``: the caller parses SCRIPT."""

    script: TStr
    positional: list
    env: dict
    start: int
    remote: bool = False  # ``ssh HOST COMMAND``: a remote login shell runs it, without the local environment


def is_assignment(word: str) -> bool:
    """``NAME=value`` (an environment prefix of a command)."""
    return _ASSIGN.match(word) is not None


def basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


# package managers -> the words that install, remove or fetch packages: the words after them name packages
# (``pip install sglang-router``, ``apt-get install -y trtllm-serve``), never a program that runs
_INSTALL = {"install", "uninstall", "download", "wheel", "add", "remove", "reinstall", "upgrade", "update",
            "i", "in", "rm", "un", "erase", "purge", "del", "show", "info", "search", "create", "index"}
_PACKAGE_VERBS = {
    "pip": _INSTALL, "pipx": {"install", "uninstall", "reinstall", "upgrade", "inject"},
    "uv": {"add", "remove"}, "poetry": {"add", "remove"}, "pdm": {"add", "remove"}, "rye": {"add", "remove"},
    "conda": _INSTALL, "mamba": _INSTALL, "micromamba": _INSTALL,
    "apt": _INSTALL, "apt-get": _INSTALL | {"source", "build-dep"}, "aptitude": _INSTALL, "yum": _INSTALL,
    "dnf": _INSTALL, "microdnf": _INSTALL, "zypper": _INSTALL, "apk": _INSTALL, "brew": _INSTALL,
    "npm": _INSTALL | {"ci"}, "pnpm": _INSTALL, "yarn": _INSTALL, "gem": _INSTALL,
    # (a build names the binary it builds: `cargo build --release --bin sglang-router`, sgl-project/sglang's
    # docker/Dockerfile, field compare of Dockerfile RUN lines; `cargo run --bin X` runs it)
    "cargo": {"install", "build", "check", "test", "fetch", "clippy", "doc", "bench", "b", "c", "t"},
    "snap": _INSTALL, "spack": _INSTALL, "easy_install": None,
}
# sub-command namespaces between a manager and its verb (``uv pip install``, ``uv tool install``, ``conda env
# create``)
_PACKAGE_NAMESPACES = {"uv": {"pip", "tool"}, "conda": {"env"}, "mamba": {"env"}, "micromamba": {"env"}}
_PIP = lazyre.compile(r"^pip(\d+(\.\d+)*)?$")


def _package_manager(word: str) -> Optional[str]:
    b = basename(word)
    if _PIP.match(b):
        return "pip"
    return b if b in _PACKAGE_VERBS else None


def package_command(texts: list, i: int) -> bool:
    """``texts[i]`` starts a package manager's install / uninstall / download (``pip install X``, ``python -m pip
    install X`` from its ``pip``, ``uv pip install X``, ``conda install X``, ``apt-get install -y X``,
    ``npm i X``): the words after it are package names, not a command that runs."""
    mgr = _package_manager(texts[i])
    if mgr is None:
        return False
    verbs = _PACKAGE_VERBS[mgr]
    if verbs is None:  # the program installs whatever follows it
        return True
    spaces = _PACKAGE_NAMESPACES.get(mgr, set())
    after_option = False
    for t in texts[i + 1:i + 8]:
        if t.startswith("-"):
            after_option = "=" not in t
            continue
        if t in verbs:
            return True
        if t in spaces:
            spaces = set()
            verbs = _INSTALL
            after_option = False
            continue
        if not after_option:  # another sub-command (`uv run`, `conda run`, `pipx run`): it runs things
            return False
        after_option = False  # the option's value (`pip --index-url URL install`)
    return False


#: Programs that print, search, count or signal the words they are given and run none of them
#: (``echo python3 -m sglang.launch_server ...``, ``grep 8998 ... python3 -m sglang.launch_server``)
NOT_RUNNERS = frozenset({"echo", "printf", "cat", "grep", "egrep", "fgrep", "pgrep", "pkill", "killall", "kill",
                         "ps", "sed", "awk", "tee", "logger", "read", "test", "[", "[[", "which", "type", "hash",
                         "true", ":", "wc", "head", "tail", "curl", "wget",
                         # file operations on a program's file (`cp target/release/sglang-router /usr/local/bin/`)
                         "cp", "mv", "ln", "install", "chmod", "chown", "rm", "ls", "mkdir", "touch", "stat", "file",
                         "strip"})


_LOOKUP = lazyre.compile(r"-[pvV]*[vV][pvV]*")


def _looks_up(texts: list) -> bool:
    """``command -v NAME`` / ``command -V NAME``: prints where NAME is, runs nothing (bytedance-iaas/vllm's
    start-router.sh `command -v vllm-router >/dev/null`, field test rw16/l: a router launch without arguments,
    paired with every server)."""
    for j, t in enumerate(texts[:-1]):
        if basename(t) == "command":
            return bool(_LOOKUP.fullmatch(texts[j + 1]))
        if not (basename(t) in PASS_THROUGH or is_assignment(t)):
            return False
    return False


def program_at(texts: list, i: int) -> int:
    """The index of the program a command from ``texts[i]`` runs: past assignments and the wrappers pdlint
    follows (``sudo -E``, ``env X=1``, ``nohup``, ``timeout 10``) with their options; the last word at most."""
    j = i
    while j < len(texts) - 1:
        t = texts[j]
        if is_assignment(t):
            j += 1
            continue
        if basename(t) in WRAPPERS:
            k = wrapped_program(texts, j)
            if k is None:  # it runs nothing here, or its words end first: past its options and numbers
                k = j + 1
                while k < len(texts) - 1 and (texts[k].startswith("-") or texts[k].isdigit()):
                    k += 1
            j = k
            continue
        break
    return j


def _help_word(t: str, engine: Optional[str]) -> bool:
    """``-h`` / ``--help``, or for vLLM a prefix of ``--help`` its newest table resolves to nothing else
    (``--hel``: argparse's ``allow_abbrev``; VLLM052's reading of a launch, :func:`help_option`) or its help
    search ``--help=KEYWORD`` (VLLM018's reading)."""
    if t in ("--help", "-h"):
        return True
    if engine == "vllm" and t.startswith("--help="):
        return True  # (vLLM's help search, `--help=all` / `--help=ModelConfig`: it prints and exits; rw35/h P7)
    if engine != "vllm" or len(t) < 4 or not "--help".startswith(t):
        return False
    from .engines.vllm import flags as vflags
    version = vflags.pick(None)[0]
    if version is None:
        return False
    table = vflags.load(version)
    return table.allow_abbrev and table.prefix_options(t) == ["--help"]


def asks_help(argv: list, engine: Optional[str] = None) -> bool:
    """``--help`` / ``-h`` among a server's arguments: argparse (SGLang, vLLM) and click (trtllm-serve) print the
    options and exit 0 at it, so nothing starts (an image's default ``CMD [..., "--help"]``: field test rw18/p).
    So does ``--version`` / ``-V`` as the only argument (``vllm-router --version`` in a CI step: rw19/a).
    For vLLM (``engine``), an unambiguous prefix of ``--help`` too (``vllm serve --hel``)."""
    return any(_help_word(t, engine) for t in argv) or (len(argv) == 1 and argv[0] in ("--version", "-V"))


def only_help(texts: list) -> bool:
    """A command (``texts``) whose server, where one starts, asks only for help (``vllm serve --hel``): the
    entry point's arguments hold a help option (for its engine) and nothing else that makes it a launch."""
    for i in range(len(texts)):
        m = _match_at(texts, i)
        if m is not None:
            argv = texts[m.argv_start:]
            return asks_help(argv, m.engine) and not server_line_with_help(m, argv)
    return asks_help(texts)


def server_line_with_help(m, argv: list) -> bool:
    """An SGLang or vLLM server command line that sets options besides ``-h`` / ``--help``
    (``--model-path M --disaggregation-mode prefill -h``): a launch that prints the help and exits 0, which SGL013 /
    VLLM052 report (field round rw28/b P10, hostile-input round rw33/h P8); a line that only asks for help is
    none (``vllm serve --hel`` too: it prints the help; stop 50 left it a VLLM052 launch)."""
    return m.engine in ("sglang", "vllm") and m.kind == "server" and \
        any(t.startswith("-") and not _help_word(t, m.engine) for t in argv)


def find(words: list) -> Optional[object]:
    """The first entry point (:class:`Match`) or shell hand-off in ``words``; None for a package manager's
    install (:func:`package_command`), whose words name packages (``pip install sglang-router``), and for a
    program that runs none of its words (:data:`NOT_RUNNERS`)."""
    texts = [w.text for w in words]
    n = len(texts)
    if n and (basename(texts[program_at(texts, 0)]) in NOT_RUNNERS or  # (`sudo pkill -f "vllm serve"` too)
              runs_no_words(texts) or _looks_up(texts)):
        return None
    for i in range(n):
        if package_command(texts, i):
            return None
        m = _match_at(texts, i)
        if m is not None:
            if asks_help(texts[m.argv_start:], m.engine) and not server_line_with_help(m, texts[m.argv_start:]):
                return None  # prints its options and exits 0: starts no server
            m.env = wrapper_env(words, i)
            return m
        b = basename(texts[i])
        if b == "ssh":
            at = ssh_command_index(texts, i)
            if at is not None:
                return ShellHandoff(ssh_script(words, at), [], {}, i, remote=True)
        if b == "tmux":
            typed = tmux_script(words, i)
            if typed is not None:
                return ShellHandoff(typed, [], wrapper_env(words, i), i)
        if b in SHELLS:
            script_at = _shell_script_index(texts, i)
            if script_at is not None and script_at < n:
                return ShellHandoff(words[script_at], list(words[script_at + 1:]), wrapper_env(words, i), i)
    m = _docker_image_entrypoint(texts)
    if m is not None:
        m.env = wrapper_env(words, m.start)
    return m


# Images whose ENTRYPOINT is a server pdlint knows, so that the words after the image
# (``docker run IMG ARGS``), or a container's args with no command of its own, are the
# server's argv: vLLM's OpenAI images (``vllm/vllm-openai``, ``lmcache/vllm-openai``,
# mirrors) run ``vllm serve`` (vLLM's Dockerfile: ``ENTRYPOINT ["vllm", "serve"]``).
# (the repositories' last path component, from IMAGE_ENTRYPOINTS, so mirrors match too; each group of
# images with the server it runs)
_IMAGE_ENTRYPOINTS = tuple(
    (re.compile(r"(?:^|/)(?:%s)(?:[:@]|$)" % "|".join(sorted({
        re.escape(repo.rsplit("/", 1)[-1]) for repo, (entry, _) in IMAGE_ENTRYPOINTS.items()
        if (entry[-1] == "sglang_router.launch_router") == router}))), hit)
    for router, hit in ((False, ("vllm", "server", "vllm serve")),
                        (True, MODULES["sglang_router.launch_router"])))
_DOCKER_BOOL = {"-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--privileged", "--init", "-P",
                "--publish-all", "--read-only", "--oom-kill-disable", "--no-healthcheck", "--sig-proxy"}


def image_server(image: str) -> Optional[tuple]:
    """``(engine, kind, entry point)`` of an image whose ENTRYPOINT is a known server, else None
    (any ``vllm-openai`` image, mirrors included; :func:`image_entrypoint` gives the entry words)."""
    for pat, hit in _IMAGE_ENTRYPOINTS:
        if image and pat.search(image):
            return hit
    return None


def image_match(image: str, start: int = 0) -> Optional[Match]:
    """A :class:`Match` for argv that starts at ``start`` and goes to ``image``'s entry point."""
    hit = image_server(image)
    return Match(hit[0], hit[1], hit[2], start, start, module_word=None) if hit else None


def wrapper_image(texts: list) -> Optional[str]:
    """The container image the words before a launcher run it in, or None: ``docker run [OPTIONS] IMAGE``
    (podman, nerdctl), Slurm's pyxis ``srun --container-image=IMAGE``, ``apptainer exec [OPTIONS]
    docker://IMAGE`` (singularity).  Its tag pins the engine release as a container's ``image:`` does."""
    for i, t in enumerate(texts):
        b = basename(t)
        if b in ("docker", "podman", "nerdctl") and i + 1 < len(texts) and texts[i + 1] in ("run", "create"):
            j = _docker_image_index(texts, i + 2)[0]
            if j < len(texts):
                return texts[j]
        elif b in ("srun", "salloc", "sbatch"):
            for k in range(i + 1, len(texts)):
                name, eq, value = texts[k].partition("=")
                if name == "--container-image":
                    return value if eq else (texts[k + 1] if k + 1 < len(texts) else None)
        elif b in ("apptainer", "singularity") and i + 1 < len(texts) and texts[i + 1] in ("exec", "run"):
            for k in range(i + 2, len(texts)):
                if texts[k].startswith(("docker://", "oras://", "library://")):
                    return texts[k].split("://", 1)[1]
    return None


_CONTAINER_CLIS = ("docker", "podman", "nerdctl")
_EXEC_BOOL = {"-d", "--detach", "-i", "--interactive", "-t", "--tty", "--privileged"}


def named_containers(commands: list) -> dict:
    """``{container name: image}`` of a script's ``docker run --name NAME [OPTIONS] IMAGE ...`` commands (podman,
    nerdctl; ``create`` too), each command given as its words' texts; a later run of one name wins."""
    out: dict = {}
    for texts in commands:
        for i, t in enumerate(texts[:-2]):
            if basename(t) not in _CONTAINER_CLIS or texts[i + 1] not in ("run", "create"):
                continue
            name = None
            for k in range(i + 2, len(texts)):
                w = texts[k]
                if not w.startswith("-") or w == "-":
                    break
                if w == "--name" and k + 1 < len(texts):
                    name = texts[k + 1]
                elif w.startswith("--name="):
                    name = w.split("=", 1)[1]
            j = _docker_image_index(texts, i + 2)[0]
            if name and j < len(texts):
                out[name] = texts[j]
            break
    return out


def exec_container_image(texts: list, containers: dict) -> Optional[str]:
    """The image of the container ``docker exec [OPTIONS] NAME COMMAND`` runs COMMAND in, when the script
    started that container by name (:func:`named_containers`: ``docker run -d --name pd IMAGE sleep infinity``,
    then ``docker exec pd python3 -m sglang.launch_server ...``, ZhaiFeiyue/amd-tools), else None."""
    name = exec_container(texts)
    return containers.get(name) if name is not None else None


def container_run(texts: list, runs: dict) -> str:
    """The words (joined) of the ``docker run [OPTIONS] IMAGE`` that made the container the command in ``texts``
    runs in: its own wrapper's, or, for ``docker exec NAME``, those of the script's ``docker run --name NAME``
    (``runs``: name -> words, :func:`named_containers`' names); ``docker exec NAME`` itself when the script did
    not start NAME; "" outside a container.  What devices and network the command has depends on them."""
    for i, t in enumerate(texts[:-1]):
        if basename(t) not in _CONTAINER_CLIS:
            continue
        if texts[i + 1] in ("run", "create"):
            j = _docker_image_index(texts, i + 2)[0]
            return " ".join(texts[i:j + 1])
        if texts[i + 1] == "exec":
            name = exec_container(texts[i:])
            return runs.get(name) or " ".join(texts[i:i + 2] + [name or ""])
    return ""


def exec_container(texts: list) -> Optional[str]:
    """NAME of the first ``docker exec [OPTIONS] NAME COMMAND`` in ``texts`` (podman, nerdctl), else None."""
    for i, t in enumerate(texts[:-2]):
        if basename(t) not in _CONTAINER_CLIS or texts[i + 1] != "exec":
            continue
        j = i + 2
        while j < len(texts) and texts[j].startswith("-") and texts[j] != "-":
            w = texts[j]
            j += 1 if ("=" in w or w in _EXEC_BOOL or (not w.startswith("--") and set(w[1:]) <= set("dit"))) else 2
        return texts[j] if j < len(texts) else None
    return None


def _docker_image_index(texts: list, j: int) -> tuple:
    """The index of the image after ``docker run``'s options starting at ``j`` (``len(texts)`` if none), and
    the index of the ``--entrypoint`` value (None if none; -1 when it is inside its option's word)."""
    entry = None
    while j < len(texts) and texts[j].startswith("-") and texts[j] != "-":
        t = texts[j]
        name = t.split("=", 1)[0]
        if name == "--entrypoint":
            entry = -1 if "=" in t else j + 1
        if "=" in t or t in _DOCKER_BOOL or (len(t) > 2 and not t.startswith("--") and set(t[1:]) <= set("dit")):
            j += 1
        else:
            j += 2  # every other docker run option takes a value
    return j, entry


def _container_run(texts: list, clis=None) -> Optional[tuple]:
    """The first ``docker run`` / ``create`` (podman, nerdctl; or the ``clis`` given) in ``texts``:
    ``(index of the CLI, index of the image, index of the --entrypoint value or None, -1 inside its option's
    word)``, the image index ``len(texts)`` when there is none; None when there is no such command."""
    for i in range(len(texts) - 1):
        if basename(texts[i]) in (clis or _CONTAINER_CLIS) and texts[i + 1] in ("run", "create"):
            return (i,) + _docker_image_index(texts, i + 2)
    return None


def entrypoint_shell_image(texts: list, shells) -> Optional[tuple]:
    """``docker run [OPTIONS] --entrypoint bash [OPTIONS] IMAGE -c SCRIPT`` (``--entrypoint=/bin/sh``; podman,
    nerdctl; ``create``): the container's shell runs the words after the image, as ``docker run IMAGE bash -c``
    does.  ``(index of the image, the shell's name)`` when the entry point is one of ``shells``, else None."""
    run = _container_run(texts)
    if run is None or run[2] is None or run[1] >= len(texts):
        return None
    i, j, entry = run
    prog = next((t.split("=", 1)[1] for t in texts[i + 2:j] if t.startswith("--entrypoint=")), "") \
        if entry == -1 else texts[entry]
    shell = basename(prog)
    return (j, shell) if shell in shells else None


def _docker_image_entrypoint(texts: list) -> Optional[Match]:
    """``docker run [OPTIONS] IMAGE ARGS`` (or podman) with an image whose entry point is a
    server and no ``--entrypoint``: the server's argv are the ARGS.  With ``--entrypoint PROG``
    the container runs ``PROG ARGS``: a server when that is one (``--entrypoint python3 IMAGE -m
    sglang_router.launch_router ...``, whn09/kimi-k3-sglang)."""
    run = _container_run(texts, ("docker", "podman"))
    if run is None:
        return None
    i, j, entry = run  # (entry: index of the --entrypoint value)
    if entry == -1:
        return None  # (the program inside one word: no index of its own)
    if j >= len(texts):
        return None
    if entry is not None:
        return _entrypoint_match(texts, entry, j, i)
    hit = image_server(texts[j])
    if hit is None:
        return None
    return Match(hit[0], hit[1], hit[2], j, j + 1, module_word=j, line_word=i)


def _entrypoint_match(texts: list, entry: int, image: int, line_word: int) -> Optional[Match]:
    """``docker run ... --entrypoint PROG ... IMAGE ARGS``: the server ``PROG ARGS`` starts, if it is one
    (``python3 -m MODULE``, ``vllm serve``); its words are ``texts[entry]`` and those after ``image``."""
    prog = basename(texts[entry])
    m = None
    if _PYTHON.match(prog):
        if image + 2 < len(texts) and texts[image + 1] == "-m":
            m = _module_match(texts, entry, texts[image + 2], image + 2)
    else:
        nxt = texts[image + 1] if image + 1 < len(texts) else None
        hit = PROGRAMS.get((prog, nxt))
        if hit:
            m = Match(hit[0], hit[1], hit[2], entry, image + 2, module_word=image + 1)
        elif PROGRAMS.get((prog, None)):
            hit = PROGRAMS[(prog, None)]
            m = Match(hit[0], hit[1], hit[2], entry, image + 1, module_word=entry)
    if m is not None:
        m.line_word = line_word
    return m


def _match_at(texts: list, i: int) -> Optional[Match]:
    word = texts[i]
    b = basename(word)
    if _PYTHON.match(b):
        j = i + 1
        while j < len(texts):
            t = texts[j]
            if t == "-m" and j + 1 < len(texts):
                return _module_match(texts, i, texts[j + 1], j + 1)
            if t.startswith("-m") and len(t) > 2:
                return _module_match(texts, i, t[2:], j)
            if t in _PY_VALUE_OPTS:
                j += 2
                continue
            if t.startswith("-") and t != "-":
                if t == "-c":
                    return None
                j += 1
                continue
            for suffix, mod in SCRIPTS.items():
                if t == suffix or t.endswith("/" + suffix):
                    hit = MODULES[mod]
                    return Match(hit[0], hit[1], hit[2], i, j + 1, module_word=j)
            hit = SCRIPT_ROUTERS.get(basename(t)) or (_TOY_PROXY if t.endswith(".py") and
                                                      _toy_proxy_flags(texts[j + 1:]) else None)
            if hit:
                return Match(hit[0], hit[1], hit[2], i, j + 1, module_word=j)
            return None
        return None
    nxt = texts[i + 1] if i + 1 < len(texts) else None
    hit = PROGRAMS.get((b, nxt))
    if hit:
        return Match(hit[0], hit[1], hit[2], i, i + 2, module_word=i + 1)
    hit = PROGRAMS.get((b, None))
    if hit and not (i and texts[i - 1] in _NAMING_OPTIONS):
        return Match(hit[0], hit[1], hit[2], i, i + 1, module_word=i)
    return None


#: options whose value names a container, host or job (`docker run --name sglang-router IMAGE ...`): a program's
#: name there is no program (field test rw13/e)
_NAMING_OPTIONS = frozenset({"--name", "--hostname", "--container-name", "--network-alias", "--job-name", "-J",
                             "--label", "-l"})
#: sub-commands of container and cluster CLIs that run none of the words after them (`docker logs sglang-router`,
#: `kubectl rollout restart deployment/sglang-router`); `run`, `create`, `exec`, `compose` may
_QUIET_SUBCOMMANDS = {
    "docker": frozenset({"rm", "logs", "stop", "kill", "restart", "inspect", "ps", "pull", "push", "tag", "images",
                         "rmi", "network", "volume", "wait", "top", "port", "stats", "cp", "commit", "save", "load",
                         "login", "logout", "attach", "pause", "unpause", "rename", "start", "update", "version",
                         "info"}),
    "kubectl": frozenset({"logs", "get", "describe", "delete", "rollout", "scale", "apply", "edit", "label",
                          "annotate", "port-forward", "wait", "top", "cp", "expose", "patch", "set", "version"}),
}
_QUIET_SUBCOMMANDS["podman"] = _QUIET_SUBCOMMANDS["nerdctl"] = _QUIET_SUBCOMMANDS["docker"]
_QUIET_SUBCOMMANDS["oc"] = _QUIET_SUBCOMMANDS["kubectl"]
#: programs that run none of their words (service managers, Helm)
_QUIET_PROGRAMS = frozenset({"systemctl", "journalctl", "service", "helm", "supervisorctl"})


def runs_no_words(texts: list) -> bool:
    """Does the command run none of its words as a program: `docker logs sglang-router`, `systemctl restart
    sglang-router`, `helm install sglang-router ./chart` (field test rw13/e: PD108 on each of them)?"""
    p = program_at(texts, 0)
    b = basename(texts[p])
    if b in _QUIET_PROGRAMS:
        return True
    quiet = _QUIET_SUBCOMMANDS.get(b)
    return quiet is not None and p + 1 < len(texts) and texts[p + 1] in quiet


def _module_match(texts: list, i: int, mod: str, word: int) -> Optional[Match]:
    """``python -m MOD`` (``texts[word]`` names MOD): a server module's launch, whose argv follow the module, or
    a CLI module's (:data:`MODULE_COMMANDS`), whose argv follow its sub-command word."""
    sub = texts[word + 1] if word + 1 < len(texts) else None
    hit = MODULE_COMMANDS.get((mod, sub))
    if hit:
        return Match(hit[0], hit[1], hit[2], i, word + 2, module_word=word + 1)
    hit = MODULES.get(mod)
    if hit:
        return Match(hit[0], hit[1], hit[2], i, word + 1, module_word=word)
    return None


def _shell_script_index(texts: list, i: int) -> Optional[int]:
    """Index of SCRIPT in ``sh [-opts] -c [-opts] [--] SCRIPT`` (``-lc``, ``-ec`` … included): the shell reads
    its options first, so SCRIPT is the first word after them (``bash -c -- SCRIPT``, ``sh -c -e SCRIPT``)."""
    j = i + 1
    while j < len(texts):
        t = texts[j]
        if t.startswith("-") and not t.startswith("--") and len(t) > 1:
            if "c" in t[1:]:
                k = j + 1
                while k < len(texts):
                    a = texts[k]
                    if a == "--":
                        return k + 1
                    if a in ("-o", "+o", "-O", "+O"):  # an option with a value (`-o pipefail`)
                        k += 2
                    elif len(a) > 1 and a[0] in "-+" and a[1:].isalpha() and "c" not in a[1:]:
                        k += 1
                    else:
                        break
                return k
            j += 1
            continue
        if t.startswith("--"):
            j += 1
            continue
        return None
    return None


# OpenSSH's options (ssh.c's getopt string): those that take a value, and the flags
_SSH_VALUE_OPTS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
_SSH_FLAGS = frozenset("46AaCfGgKkMNnqTtVvXxYy")


def _ssh_options(texts: list, j: int) -> Optional[int]:
    """Index of the first word after the ssh options that start at ``j`` (getopt: grouped flags ``-tt``, a
    value attached ``-p22`` or in the next word ``-p 22``, ``--`` ends them); None for ``-s`` (the command is a
    subsystem's name, not a shell command) or an option ssh does not have."""
    while j < len(texts):
        t = texts[j]
        if t == "--":
            return j + 1
        if not t.startswith("-") or t == "-":
            return j
        for k, c in enumerate(t[1:], 1):
            if c in _SSH_VALUE_OPTS:
                j += 1 if k + 1 < len(t) else 2
                break
            if c not in _SSH_FLAGS:
                return None
        else:
            j += 1
    return j


def ssh_command_index(texts: list, i: int) -> Optional[int]:
    """Index of the remote command's first word in ``ssh [OPTIONS] HOST [OPTIONS] [--] COMMAND...`` when
    ``texts[i]`` is ssh (ssh reads options again after the host, as OpenSSH does); None without a command
    (an interactive login, or a script fed on standard input: ``ssh HOST <<EOF``)."""
    j = _ssh_options(texts, i + 1)
    if j is None or j >= len(texts):
        return None  # no host
    terminated = j > i + 1 and texts[j - 1] == "--"
    j += 1  # the host
    if not terminated:
        j = _ssh_options(texts, j)
    return j if j is not None and j < len(texts) else None


def ssh_script(words: list, at: int) -> TStr:
    """The command ssh sends: its words from ``at`` on joined by one space (ssh does not quote them; the
    remote login shell parses the result), each character still traced to where it is written."""
    parts: list = []
    for w in words[at:]:
        if parts:
            p = w.pieces[0] if w.pieces else None
            parts.append(TStr.at(" ", p.src, p.offset, p.chain, label=p.label) if p is not None
                         else TStr.synthetic(" ", "<ssh>"))
        parts.append(w)
    return TStr.join(parts)


# tmux: `send-keys` types its keys into a pane's shell (a key name is a key, any other word its characters, with
# no space between words; Enter runs the line); `new-session`/`new-window`/`split-window`/`respawn-pane` run one
# shell-command argument with the default shell (tmux(1)); each command's options that take a value
_TMUX_OPTIONS = {"send-keys": frozenset("ctN"), "send": frozenset("ctN"),
                 "new-session": frozenset("cefnstxyFX"), "new": frozenset("cefnstxyFX"),
                 "new-window": frozenset("censtF"), "neww": frozenset("censtF"),
                 "split-window": frozenset("celstF"), "splitw": frozenset("celstF"),
                 "respawn-pane": frozenset("cet"), "respawnp": frozenset("cet")}
_TMUX_ENTER = frozenset({"Enter", "C-m", "KPEnter", "C-j", "^M", "^J"})
_TMUX_TYPED = {"Space": " ", "Tab": "\t"}
_TMUX_KEY = lazyre.compile(r"(?:[CMS]-)+\S|\^\S|[A-Z][A-Za-z]*\d*|F\d+")  # C-c, M-x, ^C, Escape, BSpace, F5


def tmux_script(words: list, i: int) -> Optional[TStr]:
    """The shell command ``tmux`` at ``words[i]`` has a shell run: ``send-keys [-t PANE] KEYS... Enter`` (the
    words typed before the last Enter, each run of them a line), or ``new-session|new-window|split-window
    [OPTIONS] 'COMMAND'`` (one argument: tmux runs it with ``sh -c``); None otherwise (``-l`` types even
    key names literally: no line is entered)."""
    texts = [w.text for w in words]
    j = i + 1
    while j < len(texts) and texts[j].startswith("-"):  # tmux's own options (-L socket, -S path, -f file)
        j += 2 if texts[j] in ("-L", "-S", "-f", "-T") else 1
    if j >= len(texts) or texts[j] not in _TMUX_OPTIONS:
        return None
    command, takes = texts[j], _TMUX_OPTIONS[texts[j]]
    j += 1
    while j < len(texts) and texts[j].startswith("-") and len(texts[j]) > 1:
        if texts[j] == "--":
            j += 1
            break
        if command.startswith("send") and "l" in texts[j][1:]:
            return None
        flags = texts[j][1:]
        j += 2 if flags[-1] in takes and len(flags) == 1 else 1
    rest = words[j:]
    if not command.startswith("send"):
        return rest[0] if len(rest) == 1 else None
    lines, line = [], []
    for w in rest:
        if w.text in _TMUX_ENTER:
            if line:
                lines.append(TStr.join(line))
            line = []
        elif w.text in _TMUX_TYPED:
            p = w.pieces[0] if w.pieces else None
            line.append(TStr.at(_TMUX_TYPED[w.text], p.src, p.offset, p.chain, label=p.label) if p is not None
                        else TStr.synthetic(_TMUX_TYPED[w.text], "<tmux>"))
        elif not _TMUX_KEY.fullmatch(w.text):
            line.append(w)
    if not lines:
        return None
    out: list = []
    for t in lines:
        if out:
            out.append(TStr.synthetic("\n", "<tmux>"))
        out.append(t)
    return TStr.join(out)


def wrapper_env(words: list, upto: int) -> dict:
    """Variables set for the command by what precedes the entry point."""
    env: dict = {}
    texts = [w.text for w in words[:upto]]
    k = 0
    for k, t in enumerate(texts):  # leading VAR=x assignments / `env VAR=x`
        if _ASSIGN.match(t):
            _put(env, words[k])
        elif basename(t) == "env" or t.startswith("-"):
            continue
        else:
            break
    for k, t in enumerate(texts):  # docker run -e VAR=x / --env VAR=x / --env=VAR=x
        if t in ("-e", "--env") and k + 1 < len(texts) and _ASSIGN.match(texts[k + 1]):
            _put(env, words[k + 1])
        elif t.startswith("--env=") and _ASSIGN.match(t[6:]):
            _put(env, words[k][6:])
        elif basename(t) == "env":
            for w in words[k + 1:upto]:
                if _ASSIGN.match(w.text):
                    _put(env, w)
                elif not w.text.startswith("-"):
                    break
    return env


def _put(env: dict, word: TStr) -> None:
    name, _, value = word.partition("=")
    env[name.text] = value


_OPTION_WORD = lazyre.compile(r"^--?[A-Za-z][A-Za-z0-9_.-]*$")


@dataclass
class Packed:
    """An exec-form list item that holds several words (see :func:`unpack`)."""

    item: TStr
    program: bool  # True: the item names the program (a whole command line); False: several flags


def _all_opaque(w) -> bool:
    """Every character of the word is a placeholder (``$(CMD)``): nothing of it can be read."""
    return bool(w.pieces) and all(p.opaque for p in w.pieces)


def unpack(words: list, split) -> tuple:
    """Exec-form argv (one argument per list item) whose items hold several
    words: ``(words split as a shell would, [Packed])``.

    An item is split when it is the program position of a command line
    (``python3 -m sglang.launch_server --tp 2`` as one item: no entry point is
    found without splitting, one is with it), or when it follows the entry
    point and reads like flags (``--tp-size 2``: an option word, a blank, more
    words, no ``=`` before the blank).  The script of ``sh -c`` is never
    split: it is a command line by design.  ``split`` is the word splitter
    (TStr -> list of TStr)."""
    found = find(words)
    packed: list = []
    if found is None:
        for i, w in enumerate(words):
            if len(w.text.split()) < 2 or _all_opaque(w):
                continue  # (a `$(VAR)` inside the command line stays an opaque part of its word)
            trial = list(words[:i]) + split(w) + list(words[i + 1:])
            hit = find(trial)
            if hit is None:
                continue
            packed.append(Packed(w, True))
            words, found = trial, hit
            break
        if found is None:
            return words, packed
    if isinstance(found, ShellHandoff):
        return words, packed
    out = list(words[:found.argv_start])
    for w in words[found.argv_start:]:
        parts = w.text.split(None, 1)
        if len(parts) == 2 and _OPTION_WORD.match(parts[0]) and not _all_opaque(w) \
                and not parts[1].lstrip().startswith(("{", "[")) \
                and not (len(out) > found.argv_start and _takes_value(found, out[-1].text)):
            packed.append(Packed(w, False))
            out += split(w)
        else:
            out.append(w)
    return out, packed


def _takes_value(found, option: str) -> bool:
    """Does the option before an item take it as its value?  argparse reads a word holding a blank that names no
    option as a positional (`_parse_optional`: `if ' ' in arg_string: return None`), so `--served-model-name` then
    `"-llama 8b"` is the name, not a packed flag (differential round rw28/b P8); known for SGLang and vLLM servers
    (their newest tables), else False (the item is split, as before)."""
    if found.kind != "server" or not option.startswith("-") or "=" in option:
        return False
    try:
        if found.engine == "sglang" and not found.entrypoint.startswith("python -m dynamo"):
            from pdlint.engines.sglang import flags as sf
            table = sf.load(sf.newest())
            flag = table.lookup(option)
            if flag is None and option.startswith("--"):
                hits = table.prefix_matches(option)
                flag = table.lookup(hits[0]) if len(hits) == 1 else None
        elif found.engine == "vllm" and not found.entrypoint.startswith("python -m dynamo"):
            from pdlint.engines.vllm import flags as vf
            flag = vf.load(vf.pick(None)[0]).resolve(option)[0]
        else:
            return False
    except Exception:  # (no table: split as before)
        return False
    return flag is not None and flag.takes_value
