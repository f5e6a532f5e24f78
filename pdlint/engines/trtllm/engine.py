"""The TensorRT-LLM engine adapter: context (prefill) and generation (decode)
servers.

Launches come in two shapes:

* role-keyed settings (:mod:`pdlint.formats.keyed`): the servers of a
  ``trtllm-serve disaggregated`` config (``context_servers`` /
  ``generation_servers``, top-level keys inherited) and per-role LLM-API option
  files (``ctx_*.yaml``, Dynamo ``prefill.yaml``); ``meta['settings']`` maps
  dotted keys (``cache_transceiver_config.backend``) to traced values;
* command lines (``trtllm-serve MODEL ...``, ``python -m dynamo.trtllm ...``):
  the options are read (``--tp_size``, ``--backend``, Dynamo's
  ``--disaggregation-mode``, ``trtllm-serve --server_role``) and the file named
  by ``--extra_llm_api_options`` / ``--extra-engine-args`` is loaded into the
  settings.

The role is the one the structure names (the settings' key or file name), else
the command's role flag (``context``/``prefill`` = prefill, ``generation`` /
``decode`` = decode), else the name of the options file the command loads
(``--config ctx_config.yaml``), else the list of the disaggregated config its
proxy routes with that names the server's host:port (:func:`deployment_roles`).
A command line whose role only a name gives (a Compose service, a resource or
container, an options file) keeps it only when something else of its
deployment is disaggregated (:func:`_names_alone`).

A ``trtllm-serve disaggregated -c CONFIG`` proxy names the disaggregated config
it routes with: the launch joins that config's deployment (``meta['joins']``),
so the servers its script starts are checked against the config's
``context_servers.urls`` / ``generation_servers.urls`` (TRT007, TRT008) and the
per-server rules judge those servers' own settings, not the config's
(:func:`linked_servers`).  When no ``disaggregated_mpi_worker -c CONFIG``
builds servers from the config, the proxy never applies its server groups'
keys: no rule judges them then, pairs included (:func:`_router_only`,
:func:`settings_unused`); only the config's own errors (TRT016) are reported.

A server launch's unset ``tensor_parallel_size`` is 1 (the LLM API's default)
when pdlint sees everything that could set it (:meth:`TrtInfo.tp`).
"""

from __future__ import annotations

import os
import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.model import Launch
from pdlint.records import dataclass, field
from pdlint.text import TStr

MODES = {"prefill": "prefill", "context": "prefill", "decode": "decode", "generation": "decode",
         "prefill_and_decode": "null", "aggregated": "null", "agg": "null"}
# command-line option -> LLM-API key
CLI_KEYS = {"--tp-size": "tensor_parallel_size", "--tensor-parallel-size": "tensor_parallel_size",
            "--pp-size": "pipeline_parallel_size", "--pipeline-parallel-size": "pipeline_parallel_size",
            "--ep-size": "moe_expert_parallel_size", "--backend": "backend",
            "--kv-cache-free-gpu-memory-fraction": "kv_cache_config.free_gpu_memory_fraction",
            "--free-gpu-memory-fraction": "kv_cache_config.free_gpu_memory_fraction",
            "--max-num-tokens": "max_num_tokens", "--max-batch-size": "max_batch_size",
            "--max-seq-len": "max_seq_len", "--model-path": "model", "--model": "model"}
OPTION_FILES = ("--extra-llm-api-options", "--extra-engine-args", "--config")
INTERPRETS_ROUTERS = True  # extract hands this adapter the proxies too (their -c config joins its deployment)
PROXY_CONFIG = ("-c", "--config-file", "--config")  # trtllm-serve disaggregated -c disagg_config.yaml
# (as written on a proxy's command line: click's own long name `--config_file` too, which the parsed view files
# under `-c`; hostile-input round rw35/h P10)
PROXY_CONFIG_WRITTEN = PROXY_CONFIG + ("--config_file",)
DEFAULT_HOST, DEFAULT_PORT = "localhost", 8000  # trtllm-serve's --host / --port defaults
# a TensorRT-LLM release named by an image tag (nvcr.io/nvidia/tensorrt-llm/release:1.0.0rc4)
_RELEASE = lazyre.compile(r"tensorrt[-_]llm[^:\s]*:v?(\d+\.\d+\.\d+(?:rc\d+)?(?:\.post\d+)?)", re.I)


def proxy_config_words(argv: list) -> list:
    """The config paths (tokens) a ``trtllm-serve disaggregated`` argv names as written, before it is parsed:
    ``-c P``, ``--config_file P``, ``--config_file=P`` (not click's ``-cP``, which the parsed view does not read
    either)."""
    out = []
    for i, t in enumerate(argv):
        name, eq, _ = t.text.partition("=")
        if not eq and name in PROXY_CONFIG_WRITTEN and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif eq and name.startswith("--") and name in PROXY_CONFIG_WRITTEN:
            out.append(t[len(name) + 1:])
    return out


@dataclass
class TrtInfo:
    settings: dict = field(default_factory=dict)  # dotted key -> TStr
    inherited: list = field(default_factory=list)  # top-level keys a server group inherits
    role_from: str = ""
    options_file: Optional[str] = None
    cli: Optional[object] = None  # VllmInfo-like option view of a command line
    complete: bool = False  # every setting of the server is visible (unset keys take the LLM API defaults)
    proxy_config: Optional[str] = None  # trtllm-serve disaggregated: the config it routes with
    release: Optional[str] = None  # TensorRT-LLM release named by the launch's image
    options_problem: Optional[tuple] = None  # (token, why): the options file trtllm-serve cannot load (TRT013)
    options_unread: str = ""  # why pdlint did not read the options file (over its limits: PD022)
    keys: dict = field(default_factory=dict)  # dotted key -> TStr of the key as an options file writes it (TRT014)

    def tp(self) -> Optional[int]:
        """``tensor_parallel_size``: the written value, 1 when unset and nothing unseen could set it, else None."""
        if "tensor_parallel_size" in self.settings:
            return self.int("tensor_parallel_size")
        return 1 if self.complete else None

    def listen(self) -> Optional[tuple]:
        """``(host, port, port token)`` a ``trtllm-serve`` command line listens on; None when not known."""
        if self.cli is None:
            return None
        host_tok, port_tok = self.cli.value("--host"), self.cli.value("--port")
        if (host_tok is not None and host_tok.opaque) or (port_tok is not None and port_tok.opaque):
            return None
        try:
            port = int(port_tok.text) if port_tok is not None else DEFAULT_PORT
        except ValueError:
            return None
        return (host_tok.text if host_tok is not None else DEFAULT_HOST), port, port_tok

    def text(self, key: str) -> Optional[str]:
        v = self.settings.get(key)
        if v is None or v.opaque:
            return None
        return v.text.strip()

    def token(self, key: str) -> Optional[TStr]:
        return self.settings.get(key)

    def int(self, key: str) -> Optional[int]:
        t = self.text(key)
        try:
            return int(t) if t is not None else None
        except ValueError:
            return None

    def truthy(self, key: str) -> Optional[bool]:
        t = self.text(key)
        if t is None:
            return None
        return t.lower() in ("true", "1", "yes", "on")


def interpret(launch: Launch, ctx) -> None:
    info = TrtInfo()
    settings = launch.meta.get("settings")
    if isinstance(settings, dict):
        info.settings = dict(settings)
        info.inherited = list(launch.meta.get("inherited") or [])
        info.keys = dict(launch.meta.get("setting_keys") or {})
    info.release = release_of(launch)  # (before the command line: the release's own option table judges it)
    if launch.argv or launch.kind == "router":
        _read_command(launch, info, ctx)
    elif "urls" in launch.meta:
        # a disaggregated config's server: its block and the inherited keys are all it sets, unless the config
        # only routes to servers started elsewhere (keyed.trtllm_disagg: routes_only)
        info.complete = not launch.meta.get("routes_only")
    launch.parsed = info
    role, how = None, ""
    if launch.structural_role in ("prefill", "decode"):
        role, how = launch.structural_role, launch.meta.get("role_how") or "structure"
    elif launch.role in ("prefill", "decode"):
        role, how = launch.role, launch.meta.get("role_how") or "structure"
    if info.cli is not None:
        for opt in ("--disaggregation-mode", "--server-role"):
            v = info.cli.text(opt)
            if v is not None and v.lower() in MODES:
                if role is None:
                    role, how = MODES[v.lower()], opt
                break
    if role is None and info.options_file and launch.kind == "server":
        from pdlint.formats import crd
        named = crd.role_of_name(os.path.splitext(os.path.basename(info.options_file))[0])
        if named:
            role, how = named, f"options file name {os.path.basename(info.options_file)}"
    launch.role = role
    info.role_from = how


def release_of(launch: Launch) -> Optional[str]:
    m = _RELEASE.search(launch.meta.get("image", "") or "")
    return m.group(1) if m else (launch.meta.get("pins") or {}).get("trtllm")


def _read_command(launch: Launch, info: TrtInfo, ctx) -> None:
    from pdlint.engines.trtllm import options
    from pdlint.engines.vllm.engine import parse_argv
    command = options.COMMAND_OF.get(launch.entrypoint)  # trtllm-serve's click command (its own options)
    cli = parse_argv(list(launch.argv), "vllm serve" if launch.entrypoint.startswith("trtllm-serve")
                     else launch.entrypoint, options.resolver(command) if command else None)
    info.cli = cli
    if cli.incomplete:
        launch.incomplete = True
    if launch.kind == "router":
        _read_proxy(launch, info, cli, ctx)
        return
    loaded_all = not cli.incomplete and not launch.incomplete
    from pdlint.formats.shell.builtins import script_relative_token
    for opt in OPTION_FILES:
        tok = cli.value(opt)
        tok = script_relative_token(tok) if tok is not None else None  # ($SCRIPT_DIR/ctx.yaml: beside the script)
        if tok is None or tok.opaque or ctx is None:
            continue
        src = ctx.resolve_config(tok, launch)
        if src is None:
            loaded_all = False
            continue
        # (the name the launch gives it: a file the script writes, `echo -e ... > ctx.yml`, is held by the script)
        from pdlint.engines.sglang.config_merge import EmbeddedFile
        info.options_file = tok.text if isinstance(src, EmbeddedFile) else src.path
        file_keys: dict = {}
        loaded = _load_settings(src, file_keys)
        if isinstance(loaded, tuple):  # not one mapping: the server does not start (TRT013)
            at, why = loaded
            info.options_problem = (at if at.pieces else tok, why)  # (an empty file: at the option naming it)
            loaded = None
        elif isinstance(loaded, Unread):
            info.options_unread = loaded.why
            loaded = None
        if loaded is None:
            loaded_all = False
            loaded = {}
        for k, v in loaded.items():
            info.settings.setdefault(k, v)
        for k, v in file_keys.items():
            info.keys.setdefault(k, v)
        break
    overridden = _engine_overrides(launch, cli, info)
    loaded_all = loaded_all and overridden
    for opt, key in CLI_KEYS.items():
        v = cli.value(opt)
        if v is None:
            continue
        if command == "serve" and not options.defined("serve", cli.opts[opt].name_tok.text.partition("=")[0],
                                                       info.release):
            # an option trtllm-serve refuses (`--tensor-parallel-size 2`: "No such option", TRT011) sets nothing:
            # the server never starts (field test rw16/m).  Dynamo's `python -m dynamo.trtllm` has its own
            # parser, whose dashed options these are
            continue
        # the options file wins over the command line: trtllm-serve (and Dynamo's worker) build the LLM arguments
        # from the options first, then merge the file over them (`llm_args | llm_args_dict`,
        # update_llm_args_with_extra_dict); field test rw21/a: `--tp_size 2` with `tensor_parallel_size: 4` in the
        # context server's file runs TP 4, and the TP mismatch with the generation server went unseen
        info.settings.setdefault(key, v)
    if cli.model is not None and "model" not in info.settings:
        info.settings["model"] = cli.model
    unresolved = any(cli.value(opt) is not None and cli.value(opt).opaque for opt in OPTION_FILES)
    info.complete = loaded_all and not unresolved


def _engine_overrides(launch: Launch, cli, info: TrtInfo) -> bool:
    """Dynamo's ``dynamo.trtllm`` overrides of the engine options file: ``--override-engine-args JSON`` (or
    ``DYN_TRTLLM_OVERRIDE_ENGINE_ARGS``), merged over the file key by key, and the ``--trtllm.<dotted.key>
    VALUE`` flags of newer releases (Dynamo backend_args.py / args.py parse_dynamic_flags).  DO-Solutions/
    gtc-2026-doks (field test rw6/d): a DGD whose workers set ``disable_overlap_scheduler`` and the
    transceiver backend there got TRT005 and two TRT010, and a NIXL/UCX mismatch written there was missed.
    False when an override pdlint cannot read may set more."""
    from pdlint.engines.vllm import tjson
    complete = True
    tok = cli.value("--override-engine-args")
    if tok is None and launch.entrypoint.startswith("python -m dynamo."):
        tok = launch.env.get("DYN_TRTLLM_OVERRIDE_ENGINE_ARGS")
    if tok is not None:
        try:
            node = tjson.parse(tok) if not tok.opaque or "{" in tok.text else None
        except (tjson.JSONError, tjson.TooDeep):
            node = None
        if node is None or not isinstance(node.value, dict):
            complete = False
        else:
            stack = [("", node)]
            while stack:
                prefix, n = stack.pop()
                for k, v in n.value.items():
                    key = prefix + k
                    if isinstance(v.value, dict):
                        stack.append((key + ".", v))
                    elif v.tok.opaque:
                        complete = False
                        info.settings.pop(key, None)
                    else:
                        info.settings[key] = v.tok
    for opt in cli.occurrences:
        if opt.name.startswith("--trtllm.") and len(opt.name) > len("--trtllm."):
            if opt.value is None or opt.value.opaque:
                complete = False
                continue
            info.settings[opt.name[len("--trtllm."):].replace("-", "_")] = opt.value
    return complete


def _read_proxy(launch: Launch, info: TrtInfo, cli, ctx) -> None:
    """``trtllm-serve disaggregated -c CONFIG``: the deployment of that config is this proxy's."""
    from pdlint.formats.shell.builtins import script_relative_token
    for opt in PROXY_CONFIG:
        tok = cli.value(opt)
        tok = script_relative_token(tok) if tok is not None else None
        if tok is None or tok.opaque or ctx is None:
            continue
        src = ctx.resolve_config(tok, launch)
        if src is not None:
            info.proxy_config = src.path
            launch.meta["joins"] = [src.path]
            launch.meta["joins_how"] = f"{opt} {tok.text}"
        return


def _load_settings(src, keys: Optional[dict] = None):
    """The options file's settings (dotted key -> TStr); ``(token, why)`` when it is valid YAML but not the one
    mapping trtllm-serve loads (``yaml.safe_load`` takes exactly one document, and its result is merged key by
    key into the LLM arguments); None when it is no YAML pdlint can read (PD003 / PD008 say so where the file
    is checked)."""
    from pdlint.formats import keyed
    from pdlint.formats import yamltree as yt
    text = TStr.from_source(src)
    try:
        docs = yt.compose(src.text)
    except (yt.LimitError, RecursionError):  # over a limit (alias/merge bombs, size): not read
        return Unread("is over pdlint's YAML limits (too deep or too many nodes)")
    except yt.YamlError as e:
        # (whatever the file's name: trtllm-serve loads it with yaml.safe_load, which fails; field test rw22/h, a
        # `gen.opts` that does not parse lost its UCX/NIXL mismatch and passed with exit 0)
        at = min(max(e.index, 0), max(len(text.text) - 1, 0))
        return (text[at:at + 1] if text.text else text, f"does not parse as YAML ({e.message_in(text)})")
    if len(docs) > 1:
        at = docs[1].start
        return (text[at:at + 3] if text.text[at:at + 3] == "---" else text[at:at + 1],
                f"holds {len(docs)} YAML documents, and yaml.safe_load takes exactly one (\"expected a single "
                f"document in the stream\")")
    if not docs or docs[0].root is None:
        return (text[:1] if text.text else text, "is empty: yaml.safe_load gives None, not a mapping of options")
    if not isinstance(docs[0].root, yt.YMap):
        at = docs[0].root.start
        return (text[at:at + 1], "is not a mapping of options")
    try:
        return keyed.flatten(text, yt.Ref(docs[0].root), keys=keys)
    except (yt.YamlError, RecursionError):
        return Unread("is over pdlint's YAML limits (too deep or too many nodes)")


class Unread:
    """An options file pdlint did not read (over its limits): its settings were not checked (PD022)."""

    def __init__(self, why: str):
        self.why = why


def candidates(launch: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import launch_candidates
    out = launch_candidates(launch, enabled, engine="trtllm")
    if settings_unused(launch):
        # the servers at the config's URLs do not run its server settings: only what the proxy itself reads
        from pdlint.engines.trtllm.rules.disagg import CONFIG_RULES
        out = [c for c in out if c.code in CONFIG_RULES]
    return out


def pair_candidates(prefill: Launch, decode: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import pair_hits
    if described(prefill) != described(decode):
        # a server described by a disaggregated config and a server its proxy's script starts: the script's
        # server runs its own settings, not the config's (those are compared with the script's other servers)
        return []
    if settings_unused(prefill) or settings_unused(decode):
        return []  # a config that only routes holds no settings of those servers to compare
    return pair_hits(prefill, decode, enabled, engine="trtllm")


def described(launch: Launch) -> bool:
    """A server of a ``trtllm-serve disaggregated`` config (``context_servers`` / ``generation_servers``)."""
    return launch.engine == "trtllm" and "urls" in launch.meta and not launch.argv


def settings_unused(launch: Launch) -> bool:
    """A server group of a disaggregated config whose settings no server runs: it lists only URLs
    (``routes_only``), or its servers are ``trtllm-serve`` launches found at its URLs with settings of their own
    (``served_by``, :func:`_router_only` and :func:`_served_beside`), or a config whose other group's are
    (``router_only``)."""
    return described(launch) and bool(launch.meta.get("routes_only") or launch.meta.get("served_by")
                                      or launch.meta.get("router_only"))


def started(launch: Launch) -> bool:
    """A ``trtllm-serve MODEL ...`` command line."""
    return (launch.engine == "trtllm" and launch.kind == "server" and launch.entrypoint == "trtllm-serve"
            and bool(launch.argv) and isinstance(launch.parsed, TrtInfo))


def proxies(dep) -> list:
    """``trtllm-serve disaggregated -c CONFIG`` launches of the deployment whose config is in it."""
    paths = {l.path for l in dep.launches if described(l)}
    return [l for l in dep.launches if l.engine == "trtllm" and l.kind == "router"
            and isinstance(l.parsed, TrtInfo) and l.parsed.proxy_config in paths]


def linked_servers(dep) -> dict:
    """For a deployment whose proxy starts with a config it holds: ``{id(described server): [started servers at
    its URLs]}`` (the lists may be empty); {} when no proxy links a config to the servers of its script."""
    pxs = proxies(dep)
    if not pxs:
        return {}
    configs = {l.parsed.proxy_config for l in pxs}
    started_here = [l for l in dep.launches if started(l)]
    out = {}
    for l in dep.launches:
        if described(l) and l.path in configs:
            out[id(l)] = [s for s in started_here if any(url_matches(u, s) for u in l.meta.get("urls") or ())]
    return out


def _served_beside(launches: list) -> None:
    """A disaggregated config no proxy of the repository names (a script generates the one it passes to ``-c``;
    ddps-lab/disaggregation-TensorRT-LLM, field test rw16/m) whose URLs are those of ``trtllm-serve`` servers a
    script of its directory starts: those servers run their own settings, so the config's groups are not judged
    as theirs (``meta['served_by']``: the servers, read by ``judged_servers``)."""
    named = {l.parsed.proxy_config for l in launches if l.engine == "trtllm" and l.kind == "router"
             and isinstance(l.parsed, TrtInfo) and l.parsed.proxy_config}
    starters = [l for l in launches if started(l)]
    if not starters:
        return
    for l in launches:
        if not described(l) or l.path in named:
            continue
        here = os.path.dirname(l.path)
        by = [s for s in starters if os.path.dirname(s.path) == here
              and any(url_matches(u, s) for u in l.meta.get("urls") or ())]
        if by:
            l.meta["served_by"] = by


def _router_only(launches: list) -> None:
    """The server groups of a disaggregated config that only ``trtllm-serve disaggregated -c CONFIG`` reads (no
    ``disaggregated_mpi_worker -c CONFIG`` of the repository builds servers from it).  TensorRT-LLM
    tensorrt_llm/commands/serve.py: ``disaggregated()`` parses the config and starts ``OpenAIDisaggServer``, which
    routes to the URLs; only ``disaggregated_mpi_worker()`` turns a group's keys into LLM arguments
    (``get_llm_args(**server_cfg.other_args)``).  A group whose URLs are served by ``trtllm-serve`` launches of the
    proxy's deployment gets ``meta['served_by']`` (those servers run their own options files; field report rw29/a
    problem 2: the router config's stale UCX/NIXL keys gave a false TRT001); a group that sets nothing of its own
    (only top-level keys it would inherit) while its servers are not found only routes (``routes_only``: PD022,
    as for a group without those keys)."""
    named: dict = {}
    for l in launches:
        if l.engine == "trtllm" and l.kind == "router" and isinstance(l.parsed, TrtInfo) and l.parsed.proxy_config:
            named.setdefault(l.parsed.proxy_config, []).append(l)
    routed = {p for p, ls in named.items() if not any(x.entrypoint.endswith("disaggregated_mpi_worker") for x in ls)}
    if not any(described(l) and l.path in routed for l in launches):
        return
    from pdlint.pairing import group
    for dep in group(launches):
        linked = linked_servers(dep)
        served = {l.path for l in dep.launches if described(l) and linked.get(id(l))}
        for l in dep.launches:
            if not described(l) or l.path not in routed or l.meta.get("routes_only"):
                continue
            by = linked.get(id(l))
            if by:
                l.meta["served_by"] = by
            elif l.path in served:
                # the other group of a config whose servers the proxy's script starts itself: its URL without a
                # server is TRT007's; its keys are no server's either
                l.meta["router_only"] = True
            elif l.meta.get("urls") and not l.meta.get("own_settings"):
                l.meta["routes_only"] = True
                l.incomplete = True
                if isinstance(l.parsed, TrtInfo):
                    l.parsed.complete = False


def served_keys(launch: Launch) -> set:
    """``directory:port`` of the URLs of a disaggregated config's server group, and of the port a ``trtllm-serve``
    server listens on: what :func:`_served_beside` links (so that the result cache re-checks them together)."""
    here = os.path.dirname(launch.path)
    if described(launch):
        return {f"{here}:{w[1]}" for u in launch.meta.get("urls") or () for w in [split_url(u)] if w is not None}
    listen = launch.parsed.listen() if started(launch) else None
    return {f"{here}:{listen[1]}"} if listen is not None else set()


def deployment_roles(launches: list) -> list:
    """Give a ``trtllm-serve`` server of a proxy's script whose own words name no role the role of the
    disaggregated config's list its ``--host``/``--port`` is in (``context_servers.urls`` = prefill,
    ``generation_servers.urls`` = decode): the proxy sends it that phase. Run after every launch is interpreted,
    before the structure rules and pairing; a server listed under both roles keeps no role.  A config group that
    only routes (``routes_only``) and whose servers the deployment does not start gets its coverage gap."""
    _served_beside(launches)
    _router_only(launches)
    _names_alone(launches)
    unroled = any(started(l) and l.role is None for l in launches)
    if not unroled and not any(l.meta.get("routes_only") and described(l) for l in launches):
        return []
    from pdlint.pairing import group
    for dep in group(launches):
        _routes_only_gaps(dep, launches)
        if not unroled:
            continue
        linked = linked_servers(dep)
        if not linked:
            continue
        listed: dict = {}  # id(started server) -> {role: described server}
        for l in dep.launches:
            for s in linked.get(id(l)) or ():
                if l.role in ("prefill", "decode"):
                    listed.setdefault(id(s), {}).setdefault(l.role, l)
        for s in dep.launches:
            roles = listed.get(id(s))
            if s.role is not None or not roles or len(roles) != 1 or not started(s):
                continue
            ((role, l),) = roles.items()
            host, port, _ = s.parsed.listen()
            section = "context_servers" if role == "prefill" else "generation_servers"
            s.role = role
            s.parsed.role_from = s.meta["role_how"] = f"{host}:{port} is listed under {section}.urls of {l.path}"
    return []


#: how a role was read from a name (a Compose service, a Kubernetes resource or container, a template, an options
#: file): the name of an aggregated server may hold a role word too (`ctx`, `llm-prefill-cache`)
_NAME_HOWS = ("compose service name", "resource name", "container name", "template file name", "named template")


def _name_alone(launch: Launch) -> bool:
    """A ``trtllm-serve`` command line whose role only a name gives: no role flag, no transceiver settings."""
    if not started(launch) or launch.role not in ("prefill", "decode"):
        return False
    info = launch.parsed
    how = info.role_from or ""
    if not (how in _NAME_HOWS or how.startswith(("label ", "options file name "))):
        return False
    if info.cli is None or not info.complete or launch.incomplete:
        return False  # what pdlint did not read may name the role
    if any(info.cli.text(o) is not None for o in ("--server_role", "--server-role", "--disaggregation-mode",
                                                   "--disagg_cluster_uri", "--disagg-cluster-uri")):
        return False
    return not any(k.startswith("cache_transceiver_config") for k in info.settings)


def _names_alone(launches: list) -> None:
    """Take the role off a ``trtllm-serve`` server whose role only a name gives (a Compose service ``ctx``) when
    nothing else of its deployment is disaggregated: no server of the other role, no server whose role its flags
    or settings give, no proxy and no disaggregated config (field test rw17/n: a lone aggregated service named
    ``ctx`` got TRT009 as a context server)."""
    if not any(_name_alone(l) for l in launches):
        return
    from pdlint.pairing import group
    for dep in group(launches):
        alone = [l for l in dep.launches if _name_alone(l)]
        if not alone:
            continue
        others = [l for l in dep.launches if l not in alone]
        roles = {l.role for l in alone}
        if len(roles) > 1 or any(l.kind == "router" or described(l) or
                                 (l.kind == "server" and l.role in ("prefill", "decode")) for l in others):
            continue
        for l in alone:
            l.meta["role_name_only"] = l.parsed.role_from
            l.role = None
            l.structural_role = None
            l.structural_origin = None
            l.parsed.role_from = ""


_ROUTES_ONLY_HINT = ("check the script or manifest that starts those servers together with this config (pdlint "
                     "links `trtllm-serve disaggregated -c CONFIG` to the servers its script starts at the config's "
                     "URLs), or keep the servers' options files in the repository beside their launch")


def _routes_only_gaps(dep, launches: list) -> None:
    """PD022 on each server group of a disaggregated config that lists only URLs when the deployment starts none
    of the servers at them: their settings live in options files pdlint has not found.  Not when a script beside
    the config starts a server at each of them (a ``run.sh`` for the servers, the proxy started by hand: field
    report rw11/b): those servers and their options files are checked."""
    from pdlint import coverage_rules as CR
    from pdlint.model import Gap
    linked = linked_servers(dep)
    for l in dep.launches:
        if not (described(l) and l.meta.get("routes_only")) or linked.get(id(l)):
            continue
        here = os.path.dirname(l.path)
        beside = [s for s in launches if started(s) and os.path.dirname(s.path) == here]
        if beside and all(any(url_matches(u, s) for s in beside) for u in l.meta.get("urls") or ()):
            continue
        if any(g.code == CR.UNRESOLVED_CONFIG.code for g in l.gaps):
            continue
        section = "context_servers" if l.role == "prefill" else "generation_servers"
        urls = ", ".join(l.meta.get("urls") or ())
        tok = (l.meta.get("url_tokens") or [None])[0]
        l.gaps.append(Gap(CR.UNRESOLVED_CONFIG.code, tok,
                          f"{section} lists only URLs ({urls}): the {_ROLE_NAMES[l.role]} servers there run with "
                          f"settings of their own (their --extra_llm_api_options / --config file), which pdlint did "
                          f"not find; those settings were not checked", _ROUTES_ONLY_HINT))


_ROLE_NAMES = {"prefill": "context", "decode": "generation"}
_LOCAL = ("localhost", "127.0.0.1", "0.0.0.0", "::", "[::]", "")


def split_url(url: str) -> Optional[tuple]:
    """``(host, port)`` of a disaggregated config URL (``localhost:8001``, ``http://node1:8001``); None when
    it has no literal port."""
    m = re.match(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(\[[^\]]*\]|[^:/]*)(?::(\d+))?", url.strip())
    if m is None or m.group(2) is None or len(m.group(2)) > 5:
        return None  # (no port of a TCP socket: a 5000-digit one stopped int(), field test rw21/h)
    return m.group(1), int(m.group(2))


def url_matches(url: str, server: Launch) -> bool:
    where = split_url(url)
    listen = server.parsed.listen() if isinstance(server.parsed, TrtInfo) else None
    if where is None or listen is None:
        return False
    (host, port), (shost, sport, _) = where, listen
    if port != sport:
        return False
    return host == shost or host in _LOCAL or shost in _LOCAL


def unit_candidates(dep, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import unit_hits
    return unit_hits(dep, enabled, engine="trtllm")


def facts(launch: Launch):
    from pdlint.pairing import Facts
    info = launch.parsed
    if not isinstance(info, TrtInfo):
        return None
    f = Facts(uses_gpus=False)  # GPU placement of TRT-LLM servers is decided by MPI/Slurm, not pinned here
    tok = info.settings.get("model")
    f.model = tok
    if launch.entrypoint == "trtllm-serve" and launch.kind == "server" and launch.argv and \
            not any(w.text.rsplit("/", 1)[-1] in _RANK_LAUNCHERS for w in launch.meta.get("wrapper_words") or ()):
        # a trtllm-serve started on its own spawns its tensor x pipeline parallel workers on this node's visible
        # GPUs: "Only N GPUs are available, but M are required" (llmapi/llm.py) when it sees fewer (PD153; field
        # test rw21/a). Under mpirun / srun / trtllm-llmapi-launch each rank is a process of its own
        tp, pp = info.tp(), info.int("pipeline_parallel_size") or 1
        if tp is not None and tp > 0 and pp > 0:
            f.uses_gpus, f.visible_only = True, True
            f.gpus_needed = tp * pp
            f.gpus_token = info.token("tensor_parallel_size")
            f.gpus_note = f"tensor_parallel_size {tp} x pipeline_parallel_size {pp}"
    return f


#: programs that start each rank of a TensorRT-LLM server as a process of its own
_RANK_LAUNCHERS = {"mpirun", "mpiexec", "srun", "trtllm-llmapi-launch", "orterun", "jsrun", "flux"}
