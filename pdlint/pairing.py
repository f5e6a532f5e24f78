"""Pairing stage: group launches into deployments and prefill/decode pairs.

A *deployment* (:class:`Deployment`) is the set of launches that serve one
disaggregated model together:

* the deployment key a format adapter put on the launch (``meta['unit']``:
  one CRD object, one Kustomize build, one chart render (with values.yaml, or
  with one values overlay: the renders of a chart are alternative deployments),
  one srt-slurm recipe, one TRT-LLM disaggregated config), else the file;
* the units of one file when none of them holds both roles on its own (a
  YAML stream with a ``Deployment/prefill`` and a ``Deployment/decode``), and
  those of one render of a Helm chart (:func:`_join_chart_renders`);
* sibling files named by convention: the same path up to one role word
  (``run_prefill.sh`` / ``run_decode.sh`` / ``run_lb.sh``, ``p.yaml`` /
  ``d.yaml``, ``ctx_*.yaml`` / ``gen_*.yaml``, ``*-prefiller-*`` /
  ``*-decoder-*``, ``prefill/x.yaml`` / ``decode/x.yaml``), where a router,
  load-balancer or proxy file of the same name joins them; a one-letter role
  prefix (``pnode.sh`` / ``dnode.sh``) only when the flags give those roles;
* Compose files of one directory that declare the same project ``name:``
  and do not each hold both roles (one file per node);
* a router and the servers of its directory whose literal ``--host`` and
  port its ``--prefill`` / ``--decode`` URLs name (not servers of another
  render of its chart, :func:`alternative_renders`); for a URL whose port no
  server of its role listens on, the servers of that role its host writes
  (one deployment's), when the router's own deployment has none of that role.

Prefill and decode servers left with no partner (:func:`unpaired`) are counted
in the coverage summary: no pair rule checked them.

Inside a deployment every prefill server is paired with every decode server of
the same engine (:class:`Pair`) - except two that a ``kill`` keeps apart
(:func:`sequential`) and two on different arms of a script's ``if`` / ``case``
when each arm starts both roles (:func:`other_configuration`: a choice of
configuration) - each as the role :func:`pair_role` gives: the
role its structure names where the structure and the flags disagree (a
``decode.sh`` beside ``prefill.sh`` whose ``kv_role`` is ``kv_producer``,
:func:`sibling_structure`; a CRD role whose flags name the other role), else
the role its flags give.  Launches of one command that the template or
script produced more than once (shell branches that only change the
environment, one line rendered per node) are one *instance* with variants;
worker ranks of a multi-node instance (``meta['group_role'] == 'worker'``,
``--node-rank`` > 0) are not paired when their leader is there.  Routers are
linked to the servers their ``--prefill`` / ``--decode`` URLs (or selectors,
or service discovery) reach (:class:`RouterLink`).

Engine adapters may describe a launch's resources with ``facts(launch)``
(:class:`Facts`: listening ports, GPUs, memory fraction, node rank), which the
engine-independent rules of :mod:`pdlint.pair_rules` compare between launches
that run on one host (:func:`colocated`).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Optional

from pdlint import lazyre
from pdlint.model import Launch
from pdlint.records import dataclass, field
from pdlint.text import TStr

MAX_PAIRS_PER_ENGINE = 64
#: (prefill, decode) instances of one engine in a deployment compared for :data:`MAX_PAIRS_PER_ENGINE` at most:
#: past either bound each instance is paired with the other role's first only.  The whole cross product was
#: judged first: 500 prefills and 500 decodes of one script (250,000 combinations) spent over 10 s (rw32/h P5)
MAX_COMBOS_EXAMINED = 4 * MAX_PAIRS_PER_ENGINE * 4 * MAX_PAIRS_PER_ENGINE  # (256 x 64, 128 x 128)
MAX_VARIANT_COMBOS = 16

# (prefill word, decode word, whole-token only); longest first
ROLE_WORDS = (
    ("prefiller", "decoder", False),
    ("prefill", "decode", False),
    ("context", "generation", True),
    ("ctx", "gen", True),
    ("sender", "receiver", True),
    ("producer", "consumer", True),
    ("p", "d", True),
)
#: the family of a one-letter role prefix of a file name (``pnode.sh`` / ``dnode.sh``, hhhh1252023/pass):
#: paired only with a sibling whose name has the other letter, and only as the roles their flags give
PREFIX_FAMILY = len(ROLE_WORDS)
ROUTER_WORDS = ("mini_lb", "minilb", "router", "lb", "proxy", "frontend", "ingress")
URL_FLAGS = {"--prefill": "prefill", "--decode": "decode", "--prefill-urls": "prefill", "--decode-urls": "decode",
             "--prefill-url": "prefill", "--decode-url": "decode"}
SELECTOR_FLAGS = {"--prefill-selector": "prefill", "--decode-selector": "decode"}
BOOTSTRAP_LIST_FLAGS = {"--prefill-bootstrap-ports": "prefill"}
#: URL lists in one comma-separated value (vLLM's disagg_epd_proxy.py; "disable"/"none": no prefill servers)
COMMA_URL_FLAGS = {"--prefill-servers-urls": "prefill", "--decode-servers-urls": "decode"}
#: vLLM's toy proxy names its servers by host and port lists (launchers.SCRIPT_ROUTERS): flag -> (role, part)
HOST_PORT_FLAGS = {"--prefiller-hosts": ("prefill", "host"), "--prefiller-host": ("prefill", "host"),
                   "--prefiller-ports": ("prefill", "port"), "--prefiller-port": ("prefill", "port"),
                   "--decoder-hosts": ("decode", "host"), "--decoder-host": ("decode", "host"),
                   "--decoder-ports": ("decode", "port"), "--decoder-port": ("decode", "port")}
DISCOVERY_FLAGS = ("--service-discovery",)
_URL = lazyre.compile(r"^(?:(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://)?(?P<host>\[[^\]]*\]|[^:/?#]*)(?::(?P<port>[^/?#]*))?")
_REMOTE_WRAPPERS = lazyre.compile(r"(^|[\s;&|(])(ssh|srun|salloc|sbatch|mpirun|mpiexec|pdsh|kubectl|oc)(\s|$)")
_DOCKER = lazyre.compile(r"(^|[\s;&|(])(docker|podman|nerdctl)\s+(run|create)\b")
_DOCKER_EXEC = lazyre.compile(r"(^|[\s;&|(])(docker|podman|nerdctl)\s+exec\b")
_GPUS = lazyre.compile(r"--gpus(?:=|\s+)(['\"]*)([^\s'\"]+)")


# ---------------------------------------------------------------------------
# Facts: what an engine adapter says about a launch's resources
# ---------------------------------------------------------------------------

@dataclass
class Port:
    port: int
    what: str  # e.g. "--port", "--disaggregation-bootstrap-port", "VLLM_NIXL_SIDE_CHANNEL_PORT"
    token: Optional[TStr] = None  # what a human edits (None: a default)
    span: int = 1  # ports port .. port+span-1


@dataclass
class Facts:
    """Resources of one launch, as its engine adapter reads them (None: unknown)."""

    http_port: Optional[int] = None  # the port routers send requests to
    http_token: Optional[TStr] = None
    ports: list = field(default_factory=list)  # [Port] the launch listens on
    gpus_needed: Optional[int] = None  # GPUs per node
    gpus_token: Optional[TStr] = None  # the flag that sizes it (first written one)
    gpus_note: str = ""  # e.g. "--tp 2 x --pp 1"
    base_gpu: int = 0
    base_gpu_token: Optional[TStr] = None
    gpu_step: int = 1
    uses_gpus: bool = True  # False for CPU/NPU launches or when the device is not known to be CUDA
    mem_fraction: Optional[float] = None  # explicit per-GPU memory fraction (None: default or unknown)
    mem_token: Optional[TStr] = None
    mem_explicit: bool = False  # the fraction is written (its value may be unknown)
    node_rank: Optional[int] = None  # known node rank of a multi-node launch
    rank_written: bool = False  # a node rank is on the command line (its value may be unknown)
    multi_node: bool = False  # part of a multi-node instance (--nnodes > 1, --node-rank set)
    visible_only: bool = False  # only PD153 (too few visible GPUs) judges its GPUs, not the placement rules
    model: Optional[TStr] = None


def facts(launch: Launch) -> Facts:
    cached = launch.meta.get("_facts")
    if isinstance(cached, Facts):
        return cached
    from pdlint.engines import adapter
    eng = adapter(launch.engine)
    f = None
    if eng is not None and hasattr(eng, "facts") and launch.parsed is not None:
        try:
            f = eng.facts(launch)
        except Exception:  # facts are best effort: a bug here must not stop the scan
            f = None
    f = f or Facts(uses_gpus=False)
    launch.meta["_facts"] = f
    return f


# ---------------------------------------------------------------------------
# Deployments, pairs, router links
# ---------------------------------------------------------------------------

@dataclass
class RouterLink:
    router: Launch
    role: str  # prefill | decode
    how: str  # "url" | "selector" | "discovery"
    token: Optional[TStr] = None  # the URL or selector token
    bootstrap: Optional[TStr] = None  # the bootstrap port given with a --prefill URL
    servers: list = field(default_factory=list)  # [Launch] it reaches
    port_mismatch: bool = False  # a URL whose port no server of its role listens on
    url_port: Optional[int] = None
    exact: bool = False  # a URL whose port (and written host) the ``servers`` listen on: only they are reached


@dataclass
class Instance:
    """One server instance: a launch and the variants of the same command."""

    launch: Launch
    variants: list = field(default_factory=list)  # all launches of this instance, launch first


@dataclass
class Pair:
    prefill: Launch
    decode: Launch
    engine: str
    unit: str
    prefill_variants: list = field(default_factory=list)
    decode_variants: list = field(default_factory=list)

    def combos(self) -> list:
        """The (prefill, decode) variants that one invocation may start together.  A variant made by a run of
        a script with another value for an environment-defaulted variable that only changes its flags
        (``meta['env_run']``, ``run with USE_FP8=1``: the base run has the same command) is another
        configuration of it: it goes with the other role's variant of the same run, or, where that run left the
        other role as it was, with its base variants; never with another run's configuration."""
        ps = self.prefill_variants or [self.prefill]
        ds = self.decode_variants or [self.decode]
        p_runs = {p.meta.get("env_run") for p in ps}
        d_runs = {d.meta.get("env_run") for d in ds}
        models = model_roles(list(ps) + list(ds)) if len(ps) > 1 or len(ds) > 1 else {}
        runs = matrix_runs(list(ps) + list(ds))
        out = []
        for p in ps:
            for d in ds:
                if not _one_run(p.meta.get("env_run"), d.meta.get("env_run"), p_runs, d_runs):
                    continue
                if runs and _other_runner(runs.get(id(p)), runs.get(id(d))):  # (two runners of a job matrix)
                    continue
                if sequential(p, d):  # one loop iteration's servers, ended (`pkill -f "vllm serve"`) before the next
                    continue
                if models and other_model(p, d, models):  # (the variants of one template line, one per model)
                    continue
                out.append((p, d))
                if len(out) >= MAX_VARIANT_COMBOS:
                    return out
        return out


def _one_run(rp: Optional[str], rd: Optional[str], p_runs: set, d_runs: set) -> bool:
    """May a prefill variant of run ``rp`` start beside a decode variant of run ``rd`` (None: the base run;
    ``p_runs`` / ``d_runs``: the runs of each role's variants)?  A variant is a configuration of its command
    when the base run has the command too (None in its role's runs)."""
    if rp == rd:
        return True
    if rp is not None and rp in d_runs or rd is not None and rd in p_runs:
        return False  # that run has its own variant of the other role
    if rp is not None and rd is not None and (None in p_runs or None in d_runs) and _run_var(rp) != _run_var(rd):
        # `run with MODEL_NAME=DeepSeek-R1` (a prefill's flags) beside `run with NODE_RANK=1` (the only decode):
        # no run set both, and the base run's prefill is the one that starts with that decode
        return False
    # two runs' configurations
    return not (rp is not None and None in p_runs and rd is not None and None in d_runs)


_RUN_VAR = lazyre.compile(r"run with ([A-Za-z_][A-Za-z0-9_]*)=")


def _run_var(run: str) -> str:
    """The variable a run of a script sets (``NODE_RANK`` of ``..., run with NODE_RANK=1``), else ``run``."""
    m = _RUN_VAR.search(run)
    return m.group(1) if m else run


@dataclass
class Deployment:
    key: str
    how: str
    launches: list = field(default_factory=list)
    pairs: list = field(default_factory=list)
    links: list = field(default_factory=list)
    instances: dict = field(default_factory=dict)  # role -> [Instance]

    @property
    def servers(self) -> list:
        return [l for l in self.launches if l.kind == "server"]

    @property
    def routers(self) -> list:
        return [l for l in self.launches if l.kind == "router"]

    def role_servers(self, role: str) -> list:
        return [l for l in self.servers if pair_role(l) == role]


def unit_key(launch: Launch) -> str:
    return launch.meta.get("unit") or launch.unit or launch.path


def _file_scoped(launch: Launch, key: str) -> bool:
    return key == launch.path or key.startswith(launch.path + "#")


def pair_role(launch: Launch) -> Optional[str]:
    """The role a launch is paired as: its structure's role where the structure (a CRD field, a values key, a
    sibling file name) names one role and the flags the other (PD101 reports the contradiction; pairing by the
    structure keeps the pair rules running), else the role its flags give."""
    sr = launch.structural_role
    if sr in ("prefill", "decode") and sr != launch.role and launch.kind == "server":
        return sr  # flags name the other role, or none (PD101 / PD105 report it)
    return launch.role


def role_word(launch: Launch, default: str) -> str:
    """The role a message names a launch by: a server of no role (vLLM ``kv_both``) that a router's URL or its
    file's name gives a role is named by that role (:func:`router_structure`, :func:`sibling_structure`)."""
    paired = pair_role(launch)
    if launch.role in (None, "null") and paired in ("prefill", "decode"):
        return paired
    return launch.role_word(default)


def _roles(launches: list) -> set:
    return {pair_role(l) for l in launches if l.kind == "server" and pair_role(l) in ("prefill", "decode")}


def sibling_structure(launches: list) -> None:
    """Give the launches of a sibling file whose name names one role (``decode.sh``) while its flags name the
    other (``kv_role: kv_producer``) or no role (vLLM ``kv_both``, a server without a role flag) the file
    name's role as their structural role, when a sibling file named for the other role exists
    (``prefill.sh``): the file name is the structure that pairs them.  Runs once
    after the engine adapters set the flag roles, before the structure rules (PD101) and pairing."""
    files: dict = {}  # path -> (flag roles of its file-scoped servers, the launches)
    for l in launches:
        if l.kind != "server" or not _file_scoped(l, unit_key(l)) or l.structural_role is not None:
            continue
        roles, ls = files.setdefault(l.path, (set(), []))
        ls.append(l)
        if l.role in ("prefill", "decode"):
            roles.add(l.role)
    named: dict = {}  # (template key, family) -> {name role: [paths]}
    for path, (roles, _) in files.items():
        for key, fam, role in role_word_keys(path):
            if fam is not None and fam != PREFIX_FAMILY:  # (one letter names no role its flags do not give)
                named.setdefault((key, fam), {}).setdefault(role, []).append(path)
    for (key, fam), by_role in named.items():
        if not ("prefill" in by_role and "decode" in by_role):
            continue
        if all(_vllm_without_kv(l) for ps in by_role.values() for p in ps for l in files[p][1]):
            # no server of the files has a KV connector: vLLM starts each as an ordinary server, which no KV
            # hand-off pairs; counted "other", not a checked prefill/decode pair (field round rw35/a P1:
            # zhtang83/Dockerfiles launch_prefill.sh / launch_decode.sh, `vllm serve m` alone)
            continue
        for role, paths in by_role.items():
            other = "decode" if role == "prefill" else "prefill"
            for path in paths:
                roles, ls = files[path]
                if roles and roles != {other}:
                    continue  # agrees with its name (or holds both roles)
                if not roles and (len({facts(l).http_port for l in ls} - {None}) > 1 or
                                  len({l.role for l in ls}) > 1):
                    # servers of no role on several ports, or aggregated beside kv_both ones: the name says what
                    # the file studies, not which server it is (ealbalas/disaggregated-prefill-decode-research
                    # prefill_test_1000.sh: an aggregated baseline, then a prefill and a decode of one experiment)
                    continue
                sibling = next((p for p in by_role[other] if p != path), None)
                if sibling is None:
                    continue
                word = ROLE_WORDS[fam][0 if role == "prefill" else 1]
                for l in ls:
                    if l.role is None and _names_a_mode(l):
                        continue  # its flags name a mode that is no PD role (`--disaggregation-mode encode`)
                    if l.role == other or (not roles and l.role in (None, "null") and not l.incomplete):
                        l.structural_role = role
                        l.meta["role_how"] = f"the file name ({word!r} in {path}, beside {sibling})"
                        l.meta["role_from_sibling"] = sibling


def _vllm_without_kv(launch) -> bool:
    """A vLLM server (not a Dynamo worker) with no KV transfer config, every word of it seen: vLLM's own role
    for it is none (``"null"``)."""
    info = launch.parsed
    return launch.engine == "vllm" and launch.role == "null" and info is not None and \
        getattr(info, "kv", True) is None and not getattr(info, "dynamo", False)


def router_structure(launches: list) -> None:
    """vLLM's NixlConnector examples start both servers with ``kv_role: kv_both`` and let the proxy decide
    which is the prefiller (``toy_proxy_server.py --prefiller-ports 8100 --decoder-ports 8200``): a vLLM
    server of no role that a router of its script names by exact address (its port; its IP where both
    write one) gets that role as its structural role, so the two are paired and the pair rules run.  Runs
    with :func:`sibling_structure`."""
    hidden: list = []  # (router, token) of URLs pdlint cannot read: the role of a server they name is unknown
    # (router, [(role, token)] of loopback URLs whose port no server of no role listens on, [servers its URLs name])
    missed: list = []
    named: set = set()  # (path, port) a router URL names
    for r in launches:
        if r.kind != "router" or r.engine != "vllm":
            continue
        urls: list = []
        reached: list = []
        for role, how, tok, _ in router_args(r)[0]:
            if how == "url" and tok.opaque:
                hidden.append((r, tok))
            if how != "url" or tok.opaque:
                continue
            host, port, _ = parse_url(tok)
            if port is None:
                continue
            named.add((r.path, port))
            hit = False
            for s in launches:
                if s.kind != "server" or s.engine != r.engine or s.path != r.path or s.structural_role is not None \
                        or s.role not in (None, "null") or facts(s).http_port != port or not same_side(r, s) \
                        or unit_key(s) != unit_key(r):
                    continue
                written = _written_host(s)
                if _ip_literal(host) and written is not None and _ip_literal(written) and written != host:
                    continue
                hit = True
                reached.append(s)
                s.structural_role = role
                s.meta["role_how"] = f"the router's {tok.text} ({r.path}:{r.line}, {r.entrypoint})"
            if not hit and host.strip("[]").lower() in _LOOPBACK:
                urls.append((role, tok))
        if urls:
            missed.append((r, urls, reached))
    for r, urls, reached in missed:
        # a port typo (`--decode http://localhost:8002` beside kv_both servers on 8000 and 8001): the one server of
        # no role on this host that no URL names, of the model the router's other servers serve, is the one it
        # meant; with its role PD154 reports the port
        left = [s for s in launches if s.kind == "server" and s.engine == r.engine and s.path == r.path and
                unit_key(s) == unit_key(r) and
                s.structural_role is None and s.role in (None, "null") and same_side(r, s) and
                facts(s).http_port is not None and (s.path, facts(s).http_port) not in named]
        if len(urls) == 1 and len(left) == 1 and not _other_model(left[0], reached):
            role, tok = urls[0]
            left[0].structural_role = role
            left[0].meta["role_how"] = (f"the router's {tok.text} ({r.path}:{r.line}, {r.entrypoint}): the only "
                                        f"server of no role here that no router URL names")
    if not hidden:
        return
    from pdlint.coverage_rules import UNRESOLVED_ROLE
    from pdlint.model import Gap
    for r, tok in hidden:
        # (ealbalas/disaggregated-prefill-decode-research: ports from arrays a config file sets)
        for s in launches:
            if s.kind == "server" and s.engine == r.engine and s.path == r.path and s.structural_role is None \
                    and s.role is None and not any(g.code == UNRESOLVED_ROLE.code for g in s.gaps):
                # (at the server's port, which a URL would have to name: one place per server, vllm-gaudi's
                # PORT=$((8300+i)) loops)
                at = facts(s).http_token or (s.argv[0] if s.argv else tok)
                s.gaps.append(Gap(UNRESOLVED_ROLE.code, at,
                                  f"the role of this {s.entrypoint} server (kv_both, or no kv_role) is the one "
                                  f"{r.entrypoint}'s prefiller / decoder addresses give it, and pdlint cannot see "
                                  f"them ({tok.text}): its role-specific checks did not run and it was not paired",
                                  "give the variables the router's addresses come from their deploy-time values "
                                  "(`[tool.pdlint.vars]`, `--var`, a `values` file)"))


def _other_model(server: Launch, others: list) -> bool:
    """Does ``server`` serve another model than the servers ``others`` (where both names are known)?"""
    mine = facts(server).model
    if mine is None or mine.opaque:
        return False
    return any(facts(o).model is not None and not facts(o).model.opaque and facts(o).model.text != mine.text
               for o in others)


def _names_a_mode(launch: Launch) -> bool:
    """The launch's own flags set its disaggregation mode (whatever the value)."""
    return any(t.text == "--disaggregation-mode" or t.text.startswith("--disaggregation-mode=") for t in launch.argv)


class _UF:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


@functools.lru_cache(maxsize=4096)
def role_word_keys(path: str) -> tuple:
    """(key, family, role) for each role or router word in ``path``: the key is
    the path with that word replaced by a placeholder.  (Asked per launch by the pairing, the result cache
    and the parallel split: computed once per path.)"""
    low = path.lower()
    taken: list = []
    out = []

    def free(a, b):
        return all(b <= s or a >= e for s, e in taken)

    def bounded(a, b):
        return (a == 0 or not low[a - 1].isalnum()) and (b == len(low) or not low[b].isalnum())

    for fam, (pw, dw, whole) in enumerate(ROLE_WORDS):
        for word, role in ((pw, "prefill"), (dw, "decode")):
            spans = []
            for a, b in _occurrences(low, word):
                if not free(a, b) or (whole and not bounded(a, b)):
                    continue
                taken.append((a, b))
                spans.append((a, b))
                out.append((low[:a] + "\0" + low[b:], fam, role))
            if len(spans) > 1:  # prefill/run_prefill.sh: every occurrence at once
                key, last = "", 0
                for a, b in spans:
                    key += low[last:a] + "\0"
                    last = b
                out.append((key + low[last:], fam, role))
    prefix = _role_prefix(low, free)
    if prefix is not None:
        out.append(prefix)
    for word in ROUTER_WORDS:
        for a, b in _occurrences(low, word):
            if free(a, b) and bounded(a, b):
                taken.append((a, b))
                out.append((low[:a] + "\0" + low[b:], None, "router"))
    return tuple(out)


def _role_prefix(low: str, free) -> Optional[tuple]:
    """(key, :data:`PREFIX_FAMILY`, role) when the file name starts with ``p`` or ``d`` and a letter that no
    role word took (``pnode.sh``: the key is ``\0node.sh``).  A name such as ``deploy.sh`` gets a key too,
    which only a ``peploy.sh`` beside it shares; and the pairing asks that their flags give those roles."""
    a = low.rfind("/") + 1
    if len(low) - a < 3 or low[a] not in "pd" or not low[a + 1].isalpha() or not free(a, a + 1):
        return None
    return low[:a] + "\0" + low[a + 1:], PREFIX_FAMILY, "prefill" if low[a] == "p" else "decode"


def _occurrences(text: str, word: str) -> list:
    """(start, end) of each non-overlapping occurrence of ``word`` in ``text``, left to right."""
    out = []
    i = text.find(word)
    while i >= 0:
        out.append((i, i + len(word)))
        i = text.find(word, i + len(word))
    return out


def group(launches: list) -> list:
    """Deployments of ``launches`` (see the module docstring), in input order."""
    uf = _UF()
    by_unit: dict = {}
    for l in launches:
        k = unit_key(l)
        uf.find(k)
        by_unit.setdefault(k, []).append(l)
    how: dict = {}
    # a launch that names the unit it serves (a TRT-LLM proxy's -c config): its unit joins that one
    for l in launches:
        for k in l.meta.get("joins") or ():
            if k in by_unit and uf.find(k) != uf.find(unit_key(l)):
                uf.union(k, unit_key(l))
                how[uf.find(k)] = f"{l.path}:{l.line} {l.meta.get('joins_how') or 'names'} joins {k}"
    _join_compose_projects(by_unit, uf, how)
    # units of one file that are each incomplete
    by_file: dict = {}
    for k, ls in by_unit.items():
        if all(_file_scoped(l, k) for l in ls):
            by_file.setdefault(ls[0].path, []).append(k)
    for path, keys in by_file.items():
        if len(keys) < 2:
            continue
        incomplete = [k for k in keys if len(_roles(by_unit[k])) < 2]
        if len(incomplete) == len(keys):
            for k in keys[1:]:
                uf.union(keys[0], k)
            how[uf.find(keys[0])] = "one file"
    _join_chart_renders(by_unit, uf, how)
    # sibling files
    files: dict = {}  # path -> merged roles of its file-scoped units
    for k, ls in by_unit.items():
        for l in ls:
            if _file_scoped(l, k):
                files.setdefault(l.path, set()).update(_roles([l]))
                if l.kind == "router":
                    files[l.path].add("router")
    scoped_units: dict = {}  # path -> keys (in by_unit order) of the file-scoped units it holds
    for i, (k, ls) in enumerate(by_unit.items()):
        for l in ls:
            if _file_scoped(l, k):
                keys = scoped_units.setdefault(l.path, [])
                if not keys or keys[-1][1] != k:
                    keys.append((i, k))
    templates: dict = {}
    for path, roles in files.items():
        if {"prefill", "decode"} <= roles:
            continue  # a complete file is its own deployment
        for key, fam, role in role_word_keys(path):
            if role == "router" or role in roles or (not roles and role in ("prefill", "decode")
                                                     and fam != PREFIX_FAMILY):
                templates.setdefault(key, []).append((path, fam, role))
    for key, members in templates.items():
        fams = {}
        for path, fam, role in members:
            if fam is not None:
                fams.setdefault(fam, {}).setdefault(role, []).append(path)
        paired = [ps for ps in fams.values() if "prefill" in ps and "decode" in ps]
        if not paired:
            continue
        paths = sorted({p for ps in paired for r in ps.values() for p in r} |
                       {p for p, fam, role in members if role == "router"})
        ukeys = [k for _, k in sorted({ik for p in paths for ik in scoped_units.get(p, ())})]
        for k in ukeys[1:]:
            uf.union(ukeys[0], k)
        if ukeys:
            how[uf.find(ukeys[0])] = "sibling files " + ", ".join(paths)
    _join_model_siblings(by_unit, scoped_units, files, uf, how)
    _join_routed_servers(launches, uf, how)
    out: dict = {}
    for l in launches:
        root = uf.find(unit_key(l))
        d = out.get(root)
        if d is None:
            d = out[root] = Deployment(root, how.get(root, "one deployment unit" if root != l.path else "one file"))
        d.launches.append(l)
    for root, d in out.items():
        if root in how:
            d.how = how[root]
    return list(out.values())


def compose_project_key(launch: Launch) -> Optional[str]:
    """The Compose project a launch's service belongs to: its directory and the project ``name:`` its file
    declares (:func:`pdlint.formats.compose.project_name`), or None."""
    name = launch.meta.get("compose_project")
    if not name:
        return None
    return f"{posixpath.dirname(launch.path)}\0{name}"


def _join_compose_projects(by_unit: dict, uf: _UF, how: dict) -> None:
    """Compose files of one directory that declare the same project ``name:`` are one deployment when none
    of them holds both roles on its own: a project split into one file per node (``node-a.yaml`` holds the
    prefill service, ``node-b.yaml`` the decode, bhajian/disaggregated-serving).  Complete files of one
    project are alternatives (``compose.nixl.yaml``, ``compose.mooncake.yaml``), each its own deployment."""
    projects: dict = {}  # project key -> {unit key: (its file, its name)}
    for k, ls in by_unit.items():
        for l in ls:
            key = compose_project_key(l)
            if key is not None and _file_scoped(l, k):
                projects.setdefault(key, {}).setdefault(k, (l.path, l.meta["compose_project"]))
    for units in projects.values():
        keys = [k for k in units if len(_roles(by_unit[k])) < 2]
        paths = list(dict.fromkeys(units[k][0] for k in keys))
        if len(paths) < 2:
            continue
        for k in keys[1:]:
            uf.union(keys[0], k)
        how[uf.find(keys[0])] = f"compose project {units[keys[0]][1]!r} in files {', '.join(paths)}"


def address_keys(launch: Launch) -> list:
    """Keys that join a router to the servers it names by address (:func:`_join_routed_servers`): for a
    router, one per ``--prefill`` / ``--decode`` URL with a written host and port; for a server, its own
    ``--host`` and port.  A key is the directory, the host and the port: a loopback or wildcard host names
    every server of a host, so it names none here."""
    d = posixpath.dirname(launch.path)
    if launch.kind == "router":
        out = []
        for role, how_, tok, _ in router_args(launch)[0]:
            if how_ != "url" or tok.opaque:
                continue
            host, port, _ = parse_url(tok)
            if port is not None and _named_host(host):
                out.append((role, f"{d}\0{host.lower()}:{port}"))
        return out
    host, port = _written_host(launch), facts(launch).http_port
    if host is None or port is None or pair_role(launch) not in ("prefill", "decode"):
        return []
    return [(pair_role(launch), f"{d}\0{host.lower()}:{port}")]


def _named_host(host: str) -> bool:
    return bool(host) and host.strip("[]").lower() not in _LOOPBACK and host != "::"


def _written_host(launch: Launch) -> Optional[str]:
    """The host a server's ``--host`` writes literally (the last one), or None."""
    host = None
    argv = launch.argv
    for i, t in enumerate(argv):
        if t.text == "--host" and i + 1 < len(argv):
            v = argv[i + 1]
        elif t.text.startswith("--host="):
            v = t[len("--host="):]
        else:
            continue
        host = None if v.opaque or not _named_host(v.text) else v.text
    return host


def model_sibling_key(launch: Launch) -> Optional[str]:
    """The key :func:`_join_model_siblings` joins a server by (its directory, engine and model), when its file
    name holds a word of its role; else None (the result cache re-checks a stored file that shares it)."""
    role = pair_role(launch)
    if launch.kind != "server" or role not in ("prefill", "decode"):
        return None
    if not any(r == role and fam is not None and fam != PREFIX_FAMILY for _, fam, r in role_word_keys(launch.path)):
        return None
    model = facts(launch).model
    if model is None or model.opaque:
        return None
    return f"{posixpath.dirname(launch.path)}\0{launch.engine}\0{model.text}"


def _join_model_siblings(by_unit: dict, scoped_units: dict, files: dict, uf: "_UF", how: dict) -> None:
    """Files of one directory named for a role (a role word in the name, as its flags give), of one engine
    and one model, that the names alone did not pair because the rest of the names differ
    (``prefill-dep4.sh`` beside ``decode-dep8.sh`` and ``decode-wideep.sh``, yangwhale/gpu-tpu-pedia): one
    deployment, when every server of each file loads that model."""
    groups: dict = {}  # (directory, engine, model) -> {role: [path]}
    root_roles: Optional[dict] = None  # deployment root -> the roles of its servers (computed when needed)
    for path, roles in files.items():
        if len(roles) != 1 or not roles <= {"prefill", "decode"}:
            continue
        role = next(iter(roles))
        if not any(r == role and fam is not None and fam != PREFIX_FAMILY for _, fam, r in role_word_keys(path)):
            continue
        units = [k for _, k in scoped_units.get(path, ())]
        root = {uf.find(k) for k in units}
        if root_roles is None:
            root_roles = {}
            for k, ls in by_unit.items():
                root_roles.setdefault(uf.find(k), set()).update(_roles(ls))
        if len(root) != 1 or len(root_roles.get(next(iter(root)), ())) > 1:
            continue  # already in a deployment with the other role
        servers = [l for k in units for l in by_unit[k] if l.kind == "server"]
        models = {(l.engine, facts(l).model.text) for l in servers
                  if facts(l).model is not None and not facts(l).model.opaque}
        if len(models) != 1 or any(facts(l).model is None or facts(l).model.opaque for l in servers):
            continue
        (engine, model), = models
        groups.setdefault((posixpath.dirname(path), engine, model), {}).setdefault(role, []).append(path)
    for (_, _, model), by_role in groups.items():
        if "prefill" not in by_role or "decode" not in by_role:
            continue
        paths = sorted(p for ps in by_role.values() for p in ps)
        keys = [k for p in paths for _, k in scoped_units.get(p, ())]
        for k in keys[1:]:
            uf.union(keys[0], k)
        how[uf.find(keys[0])] = f"sibling files of one model ({model}): " + ", ".join(paths)


def _join_routed_servers(launches: list, uf: _UF, how: dict) -> None:
    """A router whose ``--prefill`` / ``--decode`` URL names the literal ``--host`` and port of a server of
    that role in its directory joins that server's deployment (``router.sh`` with ``--prefill
    http://192.168.0.60:30000`` beside ``pnode60.sh`` with ``--host 192.168.0.60 --port 30000``,
    hhhh1252023/pass): the prefill and the decode it names are then paired."""
    routers = [(l, keys) for l in launches if l.kind == "router" for keys in [address_keys(l)] if keys]
    if not routers:
        return
    servers: dict = {}  # (role, address key) -> servers
    on_host: dict = {}  # (role, directory and host) -> servers of that role there, any port
    for l in launches:
        if l.kind == "server":
            for k in address_keys(l):
                servers.setdefault(k, []).append(l)
                on_host.setdefault((k[0], k[1].rsplit(":", 1)[0]), []).append(l)
    root_roles: Optional[dict] = None  # deployment root -> the roles of its servers (built when first needed)

    def join(a: str, b: str) -> None:
        ra, rb = uf.find(a), uf.find(b)
        uf.union(a, b)
        if root_roles is not None and ra != rb:
            root_roles[uf.find(a)] = root_roles.get(ra, set()) | root_roles.get(rb, set())

    for r, keys in routers:
        named = []
        missed = []  # URLs no server of their role listens at
        for k in keys:
            at = [s for s in servers.get(k, ()) if not alternative_renders(r, s)]
            # a server of the router's own deployment at that address is the one it names: experiments kept
            # in sibling scripts reuse the same hosts and ports (devopsrustem/slurmv4, field test rw16/k: a NIXL
            # pair's router joined the Mooncake pairs of four other scripts, SGL805 on each)
            own = [s for s in at if uf.find(unit_key(s)) == uf.find(unit_key(r))]
            named += [] if own else at
            if not at:
                missed.append(k)
        for s in named:
            join(unit_key(r), unit_key(s))
        # a URL whose port no server of its role listens on names the servers of that role its host writes in
        # other files, when the router's own deployment has no server of that role and the host's are one
        # deployment's: a node's script that starts a decode and the router, the prefill in the prefill node's
        # script on another port (field test rw17/n: the router's PD154 was missed)
        for role, k in missed:
            host = (role, k.rsplit(":", 1)[0])
            if host not in on_host:
                continue
            if root_roles is None:
                root_roles = {}
                for l in launches:
                    if l.kind == "server" and pair_role(l) in ("prefill", "decode"):
                        root_roles.setdefault(uf.find(unit_key(l)), set()).add(pair_role(l))
            if role in root_roles.get(uf.find(unit_key(r)), ()):
                continue
            at = [s for s in on_host[host] if not alternative_renders(r, s)]
            if not at or len({uf.find(unit_key(s)) for s in at}) != 1:
                continue
            named += at
            for s in at:
                join(unit_key(r), unit_key(s))
        if named:
            where = ", ".join(dict.fromkeys(f"{s.path}:{s.line}" for s in named))
            how[uf.find(unit_key(r))] = f"router {r.path}:{r.line} names the addresses of {where}"


def _join_chart_renders(by_unit: dict, uf: "_UF", how: dict) -> None:
    """The objects of one render of a Helm chart (one release: values.yaml, or one values overlay) when none
    of them holds both roles on its own: a chart's prefill and decode Deployments, from one template's
    ``range`` or from two templates (lightseekorg/smg's ``workers`` list), are one deployment, as two
    documents of one manifest are."""
    renders: dict = {}
    for k, ls in by_unit.items():
        chart = ls[0].meta.get("chart")
        if chart is not None and all(l.meta.get("chart") == chart for l in ls) and \
                len({l.meta.get("values_overlay") for l in ls}) == 1:
            renders.setdefault((chart, ls[0].meta.get("values_overlay")), []).append(k)
    for (chart, overlay), keys in renders.items():
        if len(keys) < 2 or any(len(_roles(by_unit[k])) >= 2 for k in keys):
            continue
        for k in keys[1:]:
            uf.union(keys[0], k)
        how[uf.find(keys[0])] = f"one render of chart {chart}" + (f" with {overlay}" if overlay else "")


def alternative_renders(a: Launch, b: Launch) -> bool:
    """Are two launches from renders of one Helm chart with different values overlays
    (``meta['values_overlay']``): alternative deployments of the chart, never one deployment."""
    chart = a.meta.get("chart")
    return chart is not None and chart == b.meta.get("chart") and \
        a.meta.get("values_overlay") != b.meta.get("values_overlay")


def _instances(servers: list) -> list:
    """Servers of one role and engine, as instances (variants collapsed, workers dropped)."""
    groups: dict = {}
    order = []
    for l in servers:
        k = (l.path, l.line, l.entrypoint, l.context if l.meta.get("replica_of") else "")
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(l)
    inst = [Instance(groups[k][0], groups[k]) for k in order]
    leaders = {i.launch.meta.get("replica_of") for i in inst if i.launch.meta.get("group_role") == "leader"}
    keep = [i for i in inst
            if not (i.launch.meta.get("group_role") == "worker" and i.launch.meta.get("replica_of") in leaders)]
    fs = [facts(i.launch) for i in keep]
    if any(f.rank_written and f.node_rank == 0 for f in fs):
        # rank 0 is the instance's leader; other written ranks (also unknown ones such as
        # $(LWS_WORKER_INDEX)) are its workers
        keep = [i for i, f in zip(keep, fs) if not (f.rank_written and f.node_rank != 0)]
    elif any(f.node_rank is None for f in fs) and any(isinstance(f.node_rank, int) and f.node_rank > 0 for f in fs):
        keep = [i for i, f in zip(keep, fs) if not (isinstance(f.node_rank, int) and f.node_rank > 0)]
    return keep


def pair_launches(launches: list) -> list:
    """Deployments with their pairs and router links."""
    deps = group(launches)
    for d in deps:
        for r in d.routers:
            d.links += router_links(r, d)
        routed = _routed_pairs(d.links)
        engines = []
        for l in d.servers:
            if pair_role(l) in ("prefill", "decode") and l.engine not in engines:
                engines.append(l.engine)
        for eng in engines:
            ps = _instances([l for l in d.servers if l.engine == eng and pair_role(l) == "prefill"])
            ds = _instances([l for l in d.servers if l.engine == eng and pair_role(l) == "decode"])
            d.instances.setdefault("prefill", []).extend(ps)
            d.instances.setdefault("decode", []).extend(ds)
            # not a prefill and a decode of one script that a kill keeps apart (`pkill -f sglang`, then the
            # next layout): they never serve together
            # nor of two configurations a branch chooses between (each arm starts both roles)
            arms = arm_roles([l for l in d.servers if l.engine == eng])
            objects = object_roles([l for l in d.servers if l.engine == eng])
            models = model_roles([l for l in d.servers if l.engine == eng])
            named = _named_together(d.links)  # (a router that names both pairs them, whatever they serve)
            runs = matrix_runs([l for l in d.servers if l.engine == eng])
            apart = lambda p, q: refused_build(p.launch) or refused_build(q.launch) or \
                matrix_apart(p, q, runs) or sequential(p.launch, q.launch) or \
                other_configuration(p.launch, q.launch, arms) or other_object(p.launch, q.launch, objects) or \
                (other_model(p.launch, q.launch, models) and (id(p.launch), id(q.launch)) not in named)  # noqa: E731
            combos = _combos(ps, ds, lambda p, q: not apart(p, q) and routed(p.launch, q.launch))
            if combos is None:  # (too many to pair each with each: each with the other role's first)
                combos = [(p, ds[0]) for p in ps] + [(ps[0], q) for q in ds[1:]]
                combos = [(p, q) for p, q in combos if not apart(p, q)]
            for p, q in combos:
                d.pairs.append(Pair(p.launch, q.launch, eng, d.key, p.variants, q.variants))
    return deps


def _combos(ps: list, ds: list, together) -> Optional[list]:
    """The (p, q) of ``ps`` x ``ds`` that ``together(p, q)``; None when there are more than
    :data:`MAX_PAIRS_PER_ENGINE` of them or more than :data:`MAX_COMBOS_EXAMINED` combinations to judge."""
    if len(ps) * len(ds) > MAX_COMBOS_EXAMINED:
        return None
    out = []
    for p in ps:
        for q in ds:
            if together(p, q):
                out.append((p, q))
                if len(out) > MAX_PAIRS_PER_ENGINE:
                    return None
    return out


def _model_of(launch: Launch) -> Optional[str]:
    m = facts(launch).model
    return m.text.rstrip("/").rsplit("/", 1)[-1].lower() if m is not None and not m.opaque and m.text else None


def _roles_by(servers: list, key) -> dict:
    """``key(server)`` -> the pair roles of the servers with that key (a None key counts for none)."""
    out: dict = {}
    for l in servers:
        k = key(l)
        if k is not None:
            out.setdefault(k, set()).add(pair_role(l))
    return out


def model_roles(servers: list) -> dict:
    """model (its name's last part) -> the pair roles of the servers that serve it."""
    return _roles_by(servers, _model_of)


def other_model(a: Launch, b: Launch, models: dict) -> bool:
    """A prefill and a decode of two models in a deployment that runs a prefill and a decode of each: one
    deployment serving several models, each by its own pair (vllm-project/semantic-router's multi-model Dynamo
    values: TinyLlama, Llama-2 and Mistral workers behind one model-aware frontend, field test rw12/d)."""
    ma, mb = _model_of(a), _model_of(b)
    if ma is None or mb is None or ma == mb:
        return False
    both = {"prefill", "decode"}
    return both <= models.get(ma, set()) and both <= models.get(mb, set())


def _exact_names(links: list) -> dict:
    """router id -> {role: ids of the servers it names by exact address (URL port, and ``--host``)}."""
    named: dict = {}
    for link in links:
        if link.exact and link.how == "url":
            named.setdefault(id(link.router), {}).setdefault(link.role, set()).update(map(id, link.servers))
    return named


def _named_together(links: list) -> set:
    """(id of a prefill, id of a decode) that one router names, each by its exact address."""
    return {(a, b) for roles in _exact_names(links).values() for a in roles.get("prefill", ())
            for b in roles.get("decode", ())}


def _routed_pairs(links: list):
    """Which prefill and decode of a deployment can serve together, by its routers: a request goes to a
    prefill and a decode one router names.  Where routers name servers by exact address (URL port, and
    ``--host`` where written), a prefill and a decode both so named are a pair only when one router names
    both (three routers over four servers, two experiments bridged by one of them: YZY00Raiser/mysglang);
    a server no router names exactly pairs as before."""
    named = _exact_names(links)
    if not named:
        return lambda p, q: True
    covered = {sid for roles in named.values() for ids in roles.values() for sid in ids}
    together = _named_together(links)
    return lambda p, q: id(p) not in covered or id(q) not in covered or (id(p), id(q)) in together


# ---------------------------------------------------------------------------
# Routers
# ---------------------------------------------------------------------------

def parse_url(tok: TStr) -> tuple:
    """(host, port or None, port token or None) of a URL token; port None when
    absent or not a number (opaque)."""
    m = _URL.match(tok.text)
    if not m:
        return tok.text, None, None
    host = m.group("host") or ""
    port_txt = m.group("port")
    port = None
    ptok = None
    if port_txt:
        a = m.start("port")
        ptok = tok[a:a + len(port_txt)]
        if port_txt.isdigit() and not ptok.opaque:
            port = int(port_txt)
    elif m.group("scheme") in ("http", "https") and not tok.opaque:
        port = 80 if m.group("scheme") == "http" else 443
    return host, port, ptok


def _host_port_values(argv: list, i: int, name: str, eq: str, parts: dict, written: Optional[dict]) -> int:
    """Read the values of the host / port list flag ``argv[i]`` (``name``) into ``parts`` ((role, "host" | "port") ->
    [TStr]); ``written``: (role, "host" | "port") -> [(the flag word, its words, comma-separated?)].  The index
    after them."""
    vals = [argv[i][len(name) + 1:]] if eq else []
    j = i + 1
    while not eq and j < len(argv) and not argv[j].text.startswith("--"):
        vals.append(argv[j])
        j += 1
    key = HOST_PORT_FLAGS[name]
    if written is not None:
        written.setdefault(key, []).append((argv[i], vals, any("," in v.text for v in vals)))
    for v in vals:  # (LMCache's proxy takes them comma-separated: `--prefiller-port 7100,7200`)
        at = 0
        for part in v.text.split(","):
            if part.strip():
                lead = len(part) - len(part.lstrip())
                parts.setdefault(key, []).append(v[at + lead:at + lead + len(part.strip())])
            at += len(part) + 1
    return j if not eq else i + 1


def host_port_lists(router: Launch) -> dict:
    """(role, "host" | "port") -> [(the flag word, its value words, comma-separated?)] of a proxy's
    ``--prefiller-hosts`` / ``--prefiller-ports`` / ``--decoder-hosts`` / ``--decoder-ports`` (and the singular
    spellings), as written."""
    written: dict = {}
    argv = router.argv
    i = 0
    while i < len(argv):
        name, eq, _ = argv[i].text.partition("=")
        if name in HOST_PORT_FLAGS:
            i = _host_port_values(argv, i, name, eq, {}, written)
        else:
            i += 1
    return written


def router_args(router: Launch) -> tuple:
    """([(role, how, token, bootstrap token)], discovery?) from a router's argv."""
    argv = list(router.argv)
    items = []
    boot_lists: dict = {}
    parts: dict = {}  # (role, "host" | "port") -> [TStr]
    discovery = False
    i = 0
    while i < len(argv):
        t = argv[i].text
        name, eq, val = t.partition("=")
        if name in DISCOVERY_FLAGS:
            discovery = True
        if name in HOST_PORT_FLAGS:
            i = _host_port_values(argv, i, name, eq, parts, None)
            continue
        if name in COMMA_URL_FLAGS:
            val = argv[i][len(name) + 1:] if eq else (argv[i + 1] if i + 1 < len(argv) else None)
            if val is not None and val.text.strip().lower() not in ("disable", "none", ""):
                at = 0
                for part in val.text.split(","):
                    lead = len(part) - len(part.lstrip())
                    if part.strip():
                        items.append((COMMA_URL_FLAGS[name], "url", val[at + lead:at + lead + len(part.strip())], None))
                    at += len(part) + 1
            i += 1 if eq else 2
            continue
        if name in URL_FLAGS or name in SELECTOR_FLAGS or name in BOOTSTRAP_LIST_FLAGS:
            vals = [argv[i][len(name) + 1:]] if eq else []
            j = i + 1
            if not eq:
                while j < len(argv) and not argv[j].text.startswith("--"):
                    vals.append(argv[j])
                    j += 1
            if name in BOOTSTRAP_LIST_FLAGS:
                boot_lists.setdefault(BOOTSTRAP_LIST_FLAGS[name], []).extend(vals)
            elif name in SELECTOR_FLAGS:
                if vals:
                    items.append((SELECTOR_FLAGS[name], "selector", vals[0], None))
            else:
                role = URL_FLAGS[name]
                k = 0
                while k < len(vals):
                    v = vals[k]
                    boot = None
                    if k + 1 < len(vals) and (vals[k + 1].text.isdigit() or vals[k + 1].text.lower() == "none"):
                        boot = vals[k + 1]
                        k += 1
                    items.append((role, "url", v, boot))
                    k += 1
            i = j if not eq else i + 1
            continue
        i += 1
    for role in ("prefill", "decode"):
        ports, hosts = parts.get((role, "port"), []), parts.get((role, "host"), [])
        if len(ports) == 1 and len(hosts) > 1:
            # (LMCache's k8s proxy: `--prefiller-host p-0.svc,p-1.svc --prefiller-port 8100`, the port of every
            # host: field test rw27/a, LMCache's xp1d.yaml was a false PD107)
            ports = ports * len(hosts)
        for n, port in enumerate(ports):  # the proxy's hosts default to localhost; one host serves every port
            host = hosts[n] if n < len(hosts) else (hosts[0] if len(hosts) == 1 else None)
            host = host if host is not None else TStr.synthetic("localhost", "<proxy default>")
            items.append((role, "url", host + TStr.synthetic(":", "<host:port>") + port, None))
    for role, boots in boot_lists.items():
        urls = [n for n, it in enumerate(items) if it[0] == role and it[1] == "url"]
        for n, b in zip(urls, boots):
            r, how, tok, old = items[n]
            items[n] = (r, how, tok, old or b)
    if len(items) > MAX_ROUTER_ITEMS:
        # the same server written again adds nothing; then at most MAX_ROUTER_ITEMS per role, so that one role's
        # padding does not push the other's out, and the first left out is said (rw25/h item 6: 256 copies of a
        # --prefill URL hid a --decode URL at the prefill's port, PD154, with no word)
        seen: set = set()
        unique = []
        for it in items:
            k = (it[0], it[1], it[2].text, it[3].text if it[3] is not None else None)
            if k not in seen:
                seen.add(k)
                unique.append(it)
        kept, count = [], {}
        for it in unique:
            count[it[0]] = count.get(it[0], 0) + 1
            if count[it[0]] <= MAX_ROUTER_ITEMS:
                kept.append(it)
            elif "router_items_cut" not in router.meta:
                router.meta["router_items_cut"] = (it[2], it[0])
        items = kept
    return items, discovery


#: a router's servers of one role read from its argv at most (field test rw24/h: 3,000 `--prefiller-port` entries,
#: a PD154 each)
MAX_ROUTER_ITEMS = 256


def host_role(host: str) -> Optional[str]:
    from pdlint.formats.crd import role_of_name
    return role_of_name(host)


def router_links(router: Launch, dep: Deployment) -> list:
    items, discovery = router_args(router)
    out = []
    servers = dep.servers
    if not items:
        if discovery or router.engine == "dynamo" or router.kind == "router":
            for role in ("prefill", "decode"):
                reach = [s for s in servers if pair_role(s) == role]
                if reach:
                    out.append(RouterLink(router, role, "discovery", servers=reach))
        return out
    for role, how, tok, boot in items:
        of_role = [s for s in servers if pair_role(s) == role]
        if how == "selector":
            out.append(RouterLink(router, role, how, tok, servers=of_role))
            continue
        host, port, _ = parse_url(tok)
        if host.strip("[]").lower() in _LOOPBACK:
            of_role = [s for s in of_role if same_side(router, s)]
        elif _ip_literal(host) and not tok.opaque:
            # a server whose --host writes another IP address does not listen where the URL points; when
            # every server of the role writes one, the URL names a server outside this deployment
            others = [s for s in of_role if _ip_literal(_written_host(s) or "") and
                      _written_host(s).strip("[]").lower() != host.strip("[]").lower()]
            if others and len(others) == len(of_role):
                out.append(RouterLink(router, role, how, tok, boot, url_port=port))
                continue
            of_role = [s for s in of_role if s not in others]
        link = RouterLink(router, role, how, tok, boot, url_port=port)
        if port is not None:
            hits = [s for s in of_role if facts(s).http_port == port]
            if hits:
                link.servers = hits
                link.exact = not tok.opaque
            else:
                known = [s for s in of_role if facts(s).http_port is not None]
                if of_role and len(known) == len(of_role):
                    link.port_mismatch = True
                link.servers = _by_host(of_role, host) if len(of_role) > 1 else of_role
        else:
            link.servers = _by_host(of_role, host) if len(of_role) > 1 else of_role
        out.append(link)
    return out


#: hosts of a URL that name the router's own host
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def _ip_literal(host: str) -> bool:
    """A literal IP address that names one host (not loopback, not a wildcard): two different ones are two
    interfaces; a host name may be another name of the same address, so it is never compared."""
    import ipaddress
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified)


def same_side(router: Launch, server: Launch) -> bool:
    """Could a router reach a server at its own host's address (``http://127.0.0.1:PORT``)?  Not when one
    of them is started on another host by ``ssh`` and the other is not (a local router's loopback URL
    never reaches the decode a script starts with ``ssh A100_HOST "docker run ..."``)."""
    return bool(router.meta.get("remote")) == bool(server.meta.get("remote"))


def host_role_matches(server: Launch, host: str) -> bool:
    if host and host in server.meta.get("compose_names", ()):  # a Compose container name, hostname or alias
        return True
    name = server.meta.get("role_name") or server.meta.get("resource_name") or ""
    return bool(name) and name.lower() in host.lower()


def _by_host(servers: list, host: str) -> list:
    hits = [s for s in servers if host_role_matches(s, host)]
    return hits or servers


# ---------------------------------------------------------------------------
# Co-location (one host)
# ---------------------------------------------------------------------------

def _branchy(item: str) -> bool:
    item = item[6:] if item.startswith("after ") else item
    return "(then)" in item or "(else)" in item or item.startswith(("case ", "elif "))


def _entry_functions(x: str, y: str) -> bool:
    """Two context items that are two functions the script never calls, each evaluated as an entry point
    (``function launch_sglang_pd (not called in this script)``): whoever calls them picks one per invocation
    (lightseekorg/smg's launch-pd-workers.sh dispatches from ``main`` on an argument pdlint cannot see)."""
    mark = "(not called in this script)"
    return x.endswith(mark) and y.endswith(mark)


def alternatives(a: Launch, b: Launch) -> bool:
    """Launches on different arms of one ``if``/``case``, or of different runs of one script with other
    values for a variable the environment may set (``run with NODE_RANK=1``: another node): never run
    together by one invocation.  (Two functions the script never calls are alternatives only when each
    starts both roles: :func:`other_configuration`.)"""
    if a.meta.get("shell_run") != b.meta.get("shell_run"):
        return True
    if a.context == b.context:
        return False
    ca, cb = _contexts(a), _contexts(b)
    for x, y in zip(ca, cb):
        if x != y:
            return _branchy(x) or _branchy(y)
    return False


def distinct_instances(a: Launch, b: Launch) -> bool:
    """Two launches of one command line that are two processes: started by two iterations of a ``for`` loop
    or by two calls of a function whose launches keep running beside the next one's (their contexts first
    differ there: shell.state.Ctx.instance).  haNa-meister/sglang's start_pd.sh
    starts ``NUM_PREFILL`` prefills in ``for (( i=0; i<NUM_PREFILL; i++ ))``, each on the default bootstrap
    port 8998 (field test rw12/c): launches of one line were never compared for the host's ports and GPUs."""
    if a.path != b.path or a.line != b.line or a.context == b.context:
        return False
    for x, y in zip(_contexts(a), _contexts(b)):
        if x != y:
            return x in a.meta.get("instances", ()) and y in b.meta.get("instances", ())
    return False


def apart_in_text(a: Launch, b: Launch) -> bool:
    """Two launches of one source line that are two commands of the script text: a Jinja loop or macro whose
    line renders to two command lines (``{% for r in ["prefill", "decode"] %}python3 -m sglang.launch_server ...
    &{% endfor %}``), two commands on one line (``a & b &``).  Two processes, as two lines are (hostile-input round
    rw29/h P12: no PD150 / PD151 for the default port and GPU both took)."""
    x, y = a.meta.get("command_at"), b.meta.get("command_at")
    if x is None or y is None or x[0] != y[0] or a.path != b.path:
        return False
    if x[1] != y[1]:
        return True
    # one statement: two commands of the text it evaluates (`eval "vllm serve ... & vllm serve ... &"`) when their
    # programs are written in two places reached through no shared reference (rw30/a P2; the variants of one
    # command through a value set in two branches share the reference: :func:`value_variants`)
    if a.context != b.context or not (a.command and b.command):
        return False
    oa, ob = a.command[0].origin, b.command[0].origin
    if (oa.path, oa.line, oa.column) == (ob.path, ob.line, ob.column):
        return False
    return (oa.chain[:1] != ob.chain[:1] or not oa.chain) and not value_variants(a, b)


def value_variants(a: Launch, b: Launch) -> bool:
    """Two launches that are one command of a script evaluated on two paths that gave a value different
    alternatives: one statement (``command_at``), one context, and word for word either the same text from the
    same place or the expansion of one reference (the same first hop of their chains) that took its value from
    two places (``if [[ -x .venv/bin/vllm ]]; then VLLM_BIN=.venv/bin/vllm; else VLLM_BIN=$(command -v vllm); fi``,
    then ``CMD="... ${VLLM_BIN} serve --port 8100 ..."; eval "$CMD &"``), at least one word the same.  Only one
    of the alternatives runs: never two servers on one host (rw30/a P2: written literally, the two variants share
    the launch's line and were never compared; through ``eval`` / ``bash -c`` they took the lines of the
    alternatives, and PD150 / PD151 reported each port and GPU "used twice").  Two commands of one evaluated
    text (``eval "$A & $B &"``, ``CMD="vllm serve ... & vllm serve ..."``) differ in a reference or in every word's
    place; loop iterations and function calls differ in their context (:func:`distinct_instances`)."""
    at = a.meta.get("command_at")
    if at is None or at != b.meta.get("command_at") or a.path != b.path or a.context != b.context \
            or a.meta.get("shell_run") != b.meta.get("shell_run"):
        return False
    wa, wb = list(a.command) + list(a.argv), list(b.command) + list(b.argv)
    if len(wa) != len(wb):
        return False
    same = False
    for x, y in zip(wa, wb):
        ox, oy = x.origin, y.origin
        if ox == oy:
            same = same or x.text == y.text
            continue
        if not ox.chain or not oy.chain or ox.chain[0] != oy.chain[0]:
            return False  # (one reference reached both values; one may have come through more: `$(command -v vllm)`)
    return same


def engine_libraries(a: Launch, b: Launch) -> bool:
    """Launches of two engines in two functions the script never calls (:func:`_entry_functions`): a library
    of launchers (Mooncake's tone_tests common.sh: ``launch_sglang_server``, ``launch_vllm_server``) whose
    callers start one engine or the other, not both on one host."""
    if a.engine == b.engine:
        return False
    for x, y in zip(_contexts(a), _contexts(b)):
        if x != y:
            return _entry_functions(x, y)
    return False


def _contexts(launch: Launch) -> list:
    return launch.context.split(" > ") if launch.context else []


def arm_roles(servers: list) -> dict:
    """(path, shell run, context prefix) -> the pair roles of the servers under it: every prefix of every
    server's context (built once per deployment and engine, for :func:`other_configuration`)."""
    out: dict = {}
    for l in servers:
        ctx = tuple(_contexts(l))
        for i in range(1, len(ctx) + 1):
            out.setdefault((l.path, l.meta.get("shell_run"), ctx[:i]), set()).add(pair_role(l))
    return out


def other_configuration(a: Launch, b: Launch, arms: dict) -> bool:
    """A prefill and a decode on different arms of one ``if`` / ``case`` of a script (or in two functions it never
    calls, :func:`_entry_functions`) when each of the two arms starts a prefill and a decode of its own (``arms``:
    :func:`arm_roles`): the branch chooses a configuration
    (``launch_configs.sh <small|big> <role>``, ddps-lab/vllm-disaggregation), and only the servers of one arm
    run together.  Arms that start one role each (``case $HOST in node1) <prefill>;; node2) <decode>;;``) are
    the two halves of one deployment and pair as before."""
    run = a.meta.get("shell_run")
    if a.path != b.path or run != b.meta.get("shell_run"):
        return False
    ca, cb = tuple(_contexts(a)), tuple(_contexts(b))
    for i, (x, y) in enumerate(zip(ca, cb)):
        if x == y:
            continue
        if not ((_branchy(x) and _branchy(y)) or _entry_functions(x, y)):
            return False
        both = {"prefill", "decode"}
        return both <= arms.get((a.path, run, ca[:i + 1]), set()) and both <= arms.get((a.path, run, cb[:i + 1]), set())
    return False


def _object(launch: Launch) -> Optional[tuple]:
    """The Kubernetes object a launch is a container of (file, document, kind, name), None for other launches."""
    kind = launch.meta.get("resource_kind")
    if not kind:
        return None
    return (launch.path, launch.meta.get("doc_index"), kind, launch.meta.get("resource_name"))


def object_roles(servers: list) -> dict:
    """Kubernetes object -> the pair roles of its servers (for :func:`other_object`)."""
    return _roles_by(servers, _object)


def other_object(a: Launch, b: Launch, objects: dict) -> bool:
    """A prefill and a decode of two Kubernetes objects of which one starts both roles itself (an OME
    ClusterServingRuntime, a RoleBasedGroup, a DynamoGraphDeployment): that object is a deployment of its own,
    also where a kustomize build or a chart puts several in one unit (sgl-project/ome's
    config/clusterresources build holds every runtime: a Kimi prefill was paired with a DeepSeek decode)."""
    x, y = _object(a), _object(b)
    if x is None or y is None or x == y:
        return False
    both = {"prefill", "decode"}
    return both <= objects.get(x, set()) or both <= objects.get(y, set())


def sequential(a: Launch, b: Launch) -> bool:
    """Launches of one script that never run together: a ``kill`` / ``pkill`` ended one before the other
    started (:mod:`pdlint.formats.shell.jobs`)."""
    ja, jb = a.meta.get("shell_job"), b.meta.get("shell_job")
    return ja is not None and jb is not None and (ja in b.meta.get("ended_before", ()) or
                                                  jb in a.meta.get("ended_before", ()))


def one_after_the_other(a: Launch, b: Launch) -> bool:
    """Launches of one run of a script whose first runs in the foreground (:func:`blocks`): the script goes on
    only when it has ended, so the two never share the host (a "on node A: ... / on node B: ..." script, field
    test rw16/k).  They are still a pair: such a script writes down the commands of two hosts."""
    ja, jb = a.meta.get("shell_job"), b.meta.get("shell_job")
    if ja is None or jb is None or ja[0] != jb[0] or ja[1] == jb[1]:
        return False
    return blocks(a if ja[1] < jb[1] else b)


#: a wrapper that starts its command and returns: a terminal multiplexer's detached session, a new session
#: forked off (`setsid -f`), a service manager, a job runner that runs commands side by side
_RETURNS = lazyre.compile(r"(^|[\s;&|(/])(tmux|screen|setsid|systemd-run|start-stop-daemon|daemonize|pm2|supervisorctl|"
                      r"parallel|xargs|sbatch|kubectl|helm|disown)(\s|$)")
_CONTAINER_RUN = lazyre.compile(r"(^|[\s;&|(/])(docker|podman|nerdctl|apptainer|singularity)(\s|$)")
_DETACHED = lazyre.compile(r"\s(-[a-zA-Z]*d[a-zA-Z]*|--detach)(=\S*)?(\s|$)")


def blocks(launch: Launch) -> bool:
    """Does the script wait for this server to end before its next command?  A shell launch run in the
    foreground (not ``&``, not in a background job, not in a function the script never calls) whose wrapper
    does not return at once (``docker run -d``, ``tmux new -d``, ``systemd-run``)."""
    if not launch.meta.get("foreground"):
        return False
    w = wrapper_text(launch)
    if _RETURNS.search(w):
        return False
    c = container_text(launch) or w
    return not (_CONTAINER_RUN.search(c) and _DETACHED.search(c))


def wrapper_text(launch: Launch) -> str:
    """What runs the entry point: the words of its wrapper (``docker run ... IMAGE``, ``srun ...``), as the
    script evaluates them; else the text written before the entry point on the same (continued) shell
    command line.  (An image's entry point has no text of its own: ``docker run ... ${BASE_IMAGE} --model
    ...``'s first token is the image's value, written where ``BASE_IMAGE`` is assigned.)"""
    words = launch.meta.get("wrapper_words")
    if words:
        return " ".join(w.text for w in words)
    tok = launch.command[0] if launch.command else (launch.argv[0] if launch.argv else None)
    if tok is None or not tok.pieces:
        return ""
    p = tok.pieces[0]
    src = p.src
    if src is None:
        return ""
    text = src.text
    end = p.offset
    start = text.rfind("\n", 0, end) + 1
    while start > 1:
        prev_end = start - 1  # the newline ending the previous line
        prev_start = text.rfind("\n", 0, prev_end) + 1
        if text[prev_start:prev_end].rstrip().endswith("\\"):
            start = prev_start
            continue
        break
    return text[start:end]


def shell_launch(launch: Launch) -> bool:
    """Started by a script (not a container: a resource, a YAML list, an unrendered template's literal
    ``- item`` lines, which are a container's command or args)."""
    m = launch.meta
    return not (m.get("resource_kind") or m.get("yaml_path") or m.get("keyed") or m.get("virtual_config")
                or m.get("settings") is not None or m.get("literal_lines"))


def container_text(launch: Launch) -> str:
    """The words of the ``docker run`` whose container the launch runs in (its own wrapper, the wrapper of the
    ``bash -c`` string it is in, or the run of the container a ``docker exec NAME`` enters), else its
    :func:`wrapper_text`."""
    return launch.meta.get("container_run") or wrapper_text(launch)


_NVIDIA_VISIBLE = lazyre.compile(r"(?:^|\s)(?:-e|--env)(?:=|\s+)NVIDIA_VISIBLE_DEVICES=(\S+)")


def docker_gpus(launch: Launch) -> Optional[object]:
    """For a launch in a container the script starts: None (none), "all", a list of device ids, an int (first N
    GPUs), "none" (no GPU option) or "unknown".  (A ``docker exec`` into a container the script did not start:
    None, see :func:`same_device_space`.)"""
    if "container_gpus" in launch.meta:  # a Compose service (formats.compose.gpu_request)
        return launch.meta["container_gpus"]
    w = container_text(launch)
    if not _DOCKER.search(w):
        return None
    m = _GPUS.search(w)
    if m:
        spec = m.group(2).strip("'\"")
    else:
        # `--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=1`: the NVIDIA container runtime exposes the devices
        # the variable lists, numbered from 0 inside the container, as `--gpus device=1` does
        m = _NVIDIA_VISIBLE.search(w)
        if not m:
            return "none"
        spec = m.group(1).strip("'\"")
        spec = spec if spec == "all" else "device=" + spec
    if spec == "all":
        return "all"
    if spec.isdigit():
        return int(spec)
    if spec.startswith("device="):
        ids = spec[7:].split(",")
        if all(x.isdigit() for x in ids):
            return [int(x) for x in ids]
    return "unknown"


def same_device_space(a: Launch, b: Launch) -> bool:
    """False when one launch is a ``docker exec`` into a container the script did not start and the other
    is not in that container: which devices that container has is not known (vllm-project/tpu-inference's
    multi-host example, field test rw7/a)."""
    ca, cb = container_text(a), container_text(b)
    return ca == cb or not (_DOCKER_EXEC.search(ca) or _DOCKER_EXEC.search(cb))


def shares_network(launch: Launch) -> bool:
    """In the host's network namespace: not in a container, or in one on the host network (``docker run
    --network host``, a Compose service's ``network_mode: host``)."""
    if "container_network" in launch.meta:
        return launch.meta["container_network"] == "host"
    w = container_text(launch)
    if not _DOCKER.search(w):
        return True
    return bool(re.search(r"--(network|net)(=|\s+)host\b", w))


def compose_service(launch: Launch) -> bool:
    return launch.meta.get("resource_kind") == "compose service"


def compose_together(a: Launch, b: Launch) -> bool:
    """Two services of one Compose project, as ``docker compose up`` reads it (one file, or the file with its
    override merged: ``meta['unit']``), that it starts together on one host: two services, neither multi-node,
    and of profiles one invocation enables together (a service without ``profiles`` always starts; two of
    different profiles are alternatives: ``--profile nixl`` or ``--profile mooncake``).  Their host ports and
    GPUs are compared as those of two ``docker run`` of one script (rw30/a P8: two ``network_mode: host``
    services on one port passed)."""
    if a is b or a.path != b.path or not (compose_service(a) and compose_service(b)):
        return False
    if a.meta.get("unit") != b.meta.get("unit") or a.meta.get("resource_name") == b.meta.get("resource_name"):
        return False
    if a.render_role != b.render_role:
        return False
    pa, pb = a.meta.get("compose_profiles") or (), b.meta.get("compose_profiles") or ()
    if pa and pb and not (set(pa) & set(pb) - {"\0"}):
        return False
    return not (facts(a).multi_node or facts(b).multi_node)


def colocated(a: Launch, b: Launch) -> bool:
    """Known to run on one host at the same time: two shell launches of one
    script, not alternatives, not multi-node, not started through ssh/srun; or two services of one Compose
    project (:func:`compose_together`)."""
    if compose_service(a) or compose_service(b):
        return compose_together(a, b)
    if a is b or a.path != b.path or ((a.path, a.line) == (b.path, b.line) and not distinct_instances(a, b)):
        return False
    if a.render_role != b.render_role:
        return False  # two renderings of one template, one per role
    if not (shell_launch(a) and shell_launch(b)):
        return False
    if alternatives(a, b) or value_variants(a, b) or engine_libraries(a, b) or one_after_the_other(a, b):
        return False
    return colocated_candidate(a) and colocated_candidate(b)


def colocated_candidate(launch: Launch) -> bool:
    """A shell launch that could share its host with another: not multi-node, not started remotely."""
    if not shell_launch(launch) or launch.meta.get("remote"):
        return False  # (`remote`: started by `ssh HOST COMMAND` or `ssh HOST <<EOF`, wherever ssh is written)
    return not (facts(launch).multi_node or _REMOTE_WRAPPERS.search(wrapper_text(launch)))


def unique_servers(servers: list) -> list:
    """One launch per command (variants of one line collapsed), in order."""
    seen, out = set(), []
    for s in servers:
        k = (s.path, s.line, s.context if s.meta.get("replica_of") else "")
        if k not in seen:
            seen.add(k)
            out.append(s)
    return out


def unpaired(deps: list) -> list:
    """The prefill and decode servers that have no server of the other role and the same engine in their
    deployment (a run of a job matrix: none but runs of the same job's other combinations, :func:`matrix_runs`):
    no pair rule checked them (the coverage summary counts them; a repository may hold one role's launches only,
    or two halves pdlint did not join)."""
    out = []
    for d in deps:
        runs = matrix_runs(d.servers)
        have: dict = {}  # (role, engine) -> the runs of its servers (None: not of a matrix)
        jobs: dict = {}  # (role, engine) -> the matrix jobs of its servers
        for l in d.servers:
            r = runs.get(id(l))
            have.setdefault((pair_role(l), l.engine), set()).add(r)
            if r is not None:
                jobs.setdefault((pair_role(l), l.engine), set()).add(r[:2])
        for l in d.servers:
            role = pair_role(l)
            if role not in ("prefill", "decode"):
                continue
            others = have.get((_OTHER[role], l.engine), set())
            r = runs.get(id(l))
            if not others or refused_build(l):
                out.append(l)
            elif r is not None and None not in others and r not in others and \
                    jobs.get((_OTHER[role], l.engine), set()) == {r[:2]}:
                out.append(l)  # (only other combinations of its own job)
    return out


def refused_build(launch: Launch) -> bool:
    """A launch of a kustomize build that kustomize refuses (PD106): never deployed, paired with nothing."""
    return bool(launch.meta.get("build_refused"))


def _other_runner(a: Optional[tuple], b: Optional[tuple]) -> bool:
    """Are two runs (:func:`matrix_runs`) two combinations of one job matrix (never one runner)?"""
    return a is not None and b is not None and a[:2] == b[:2] and a != b


def matrix_runs(servers: list) -> dict:
    """``id(server)`` -> its run of a GitHub Actions job matrix (``meta['matrix_run']``: the job and the values
    of its matrix keys that do not name the roles, :func:`pdlint.formats.yaml_shell.matrix_plan`), less the keys
    whose values no prefill run shares with a decode run of the job here (a key that decides the role in the
    script: `node: [0, 1]`).  Each combination of a matrix is a runner of its own: two runs of one job that
    differ elsewhere never serve together (rw26/h item 8: the one decode run kept of `role x 16 models` was
    paired with every other model's prefill, 15 false SGL821)."""
    jobs: dict = {}
    for l in servers:
        run = l.meta.get("matrix_run")
        role = pair_role(l)
        if run is None or role not in ("prefill", "decode"):
            continue
        vals = jobs.setdefault((l.path, run[0]), {}).setdefault(role, {})
        for k, v in run[1]:
            vals.setdefault(k, set()).add(v)
    if not jobs:
        return {}
    out: dict = {}
    for l in servers:
        run = l.meta.get("matrix_run")
        if run is None or pair_role(l) not in ("prefill", "decode"):
            continue
        by_role = jobs[(l.path, run[0])]
        p, d = by_role.get("prefill", {}), by_role.get("decode", {})
        out[id(l)] = (l.path, run[0], tuple((k, v) for k, v in run[1] if p.get(k, set()) & d.get(k, set())))
    return out


def matrix_apart(p: "Instance", q: "Instance", runs: dict) -> bool:
    """Does every launch (each variant) of one instance run on a runner of a job matrix that runs none of the
    other's (:func:`matrix_runs`)?"""
    if not runs:
        return False
    a = {runs.get(id(l)) for l in p.variants or [p.launch]}
    b = {runs.get(id(l)) for l in q.variants or [q.launch]}
    return all(_other_runner(x, y) for x in a for y in b) if len(a) * len(b) <= 4096 else \
        (None not in a and None not in b and len({x[:2] for x in a | b}) == 1 and not a & b)


_OTHER = {"prefill": "decode", "decode": "prefill"}


def as_dicts(deps: list, launches: list) -> list:
    """JSON form of the pairs (see :mod:`pdlint.report.jsonfmt`)."""
    index = {id(l): i for i, l in enumerate(launches)}

    def ref(l: Launch) -> dict:
        return {"launch": index.get(id(l)), "path": l.path, "line": l.line, "role": l.role}

    out = []
    for d in deps:
        if not d.pairs and not d.links:
            continue
        out.append({
            "unit": d.key,
            "how": d.how,
            "pairs": [{"engine": p.engine, "prefill": ref(p.prefill), "decode": ref(p.decode),
                       "prefill_variants": len(p.prefill_variants), "decode_variants": len(p.decode_variants)}
                      for p in d.pairs],
            "routers": [{"router": ref(k.router), "role": k.role, "how": k.how,
                         "target": k.token.text if k.token is not None else None,
                         "bootstrap_port": k.bootstrap.text if k.bootstrap is not None else None,
                         "servers": [ref(s) for s in unique_servers(k.servers)]} for k in d.links],
        })
    return out


class Paired:
    """The deployments one stage paired, for a later stage of the same run that pairs the same launches (the
    check stage's pair rules, then the coverage stage's unpaired servers): one entry, kept with the launch list
    it was made of and given back only for that list (the same launches, in the same order)."""

    __slots__ = ("launches", "deps")

    def __init__(self):
        self.launches: Optional[list] = None
        self.deps: Optional[list] = None

    def put(self, launches: list, deps: list) -> None:
        self.launches = list(launches)
        self.deps = deps

    def get(self, launches: list) -> Optional[list]:
        kept = self.launches
        if kept is None or len(kept) != len(launches) or any(a is not b for a, b in zip(kept, launches)):
            return None
        return self.deps


def pair_launches_isolated(launches: list) -> list:
    """:func:`pair_launches` for the reports: when pairing all launches fails (a bug the check stage
    reported as PD013 at the files it failed on), the launches of each file are paired on their own,
    and a file that fails alone gives no deployments, so the report is still written."""
    try:
        return pair_launches(launches)
    except Exception:
        by_path: dict = {}
        for launch in launches:
            by_path.setdefault(launch.path, []).append(launch)
        out: list = []
        for group_ in by_path.values():
            try:
                out += pair_launches(group_)
            except Exception:
                continue
        return out
