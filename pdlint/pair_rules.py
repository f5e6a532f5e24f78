"""Engine-independent deployment rules (PD150-PD199): resources that launches
of one deployment share (ports and GPUs of launches on one host) and router
wiring.

They read what each engine adapter says about a launch (``facts(launch)``,
:class:`pdlint.pairing.Facts`) and the environment (``CUDA_VISIBLE_DEVICES`` and the
other accelerators' device masks, :data:`DEVICE_MASKS`),
and only compare launches :func:`pdlint.pairing.colocated` says run on one
host at the same time: launches of one shell script, not on alternative
branches of an ``if``/``case`` (nor variants of one command through a value set on several,
:func:`pdlint.pairing.value_variants`), not one a ``kill``/``pkill`` ended before the
other started (:func:`pdlint.pairing.sequential`), not one started after a server the
script runs in the foreground (:func:`pdlint.pairing.one_after_the_other`), not multi-node, not started
through ``ssh``/``srun``; and the services of one Docker Compose project
(:func:`pdlint.pairing.compose_together`: ports only on the host network).  Kubernetes pods never count as
co-located (each has its own network namespace and GPU allocation).
"""

from __future__ import annotations

from typing import Callable, Optional

from pdlint import lazyre
from pdlint.model import ERROR, WARNING, Candidate, Launch, Related
from pdlint.pairing import (Deployment, alternatives, apart_in_text, arm_roles, colocated_candidate, compose_service,
                            compose_together,
                            distinct_instances, docker_gpus, engine_libraries, facts, one_after_the_other,
                            other_configuration, parse_url, role_word, same_device_space, sequential, shares_network,
                            shell_launch, value_variants, wrapper_text)
from pdlint.rules import Rule, register
from pdlint.text import TStr

_C = "deployment"
_UNIT_CHECKS: list = []
MEM_SHARE_LIMIT = 0.9  # explicit memory fractions of launches sharing a GPU that add up to at most this: deliberate


def unit_check(fn: Callable) -> Callable:
    _UNIT_CHECKS.append(fn)
    return fn


def unit_candidates(dep: Deployment, enabled: Callable[[str], bool]) -> list:
    out: list = []
    for fn in _UNIT_CHECKS:
        out += fn(dep, enabled)
    return out


PORT_COLLISION = register(Rule(
    "PD150", "colocated-port-collision", ERROR,
    "Reports two server launches that run on one host (one shell script starts both, or one Docker Compose "
    "project runs both on the host network) and listen on the same "
    "port: the HTTP `--port`, SGLang's `--disaggregation-bootstrap-port` (every prefill starts the bootstrap "
    "server), the `--dist-init-addr` port block (the port and the next six), `--nccl-port`, vLLM's NIXL side "
    "channel (`VLLM_NIXL_SIDE_CHANNEL_PORT`, default 5600) or P2P-NCCL `kv_port`, Dynamo's `DYN_SYSTEM_PORT`. "
    "Defaults count: two servers without `--port` both want the engine's default port.",
    "The second server to start fails to bind (`address already in use`) or, worse, a peer connects to the "
    "wrong process: two prefills with one bootstrap port on one host register each other's KV, and a decode "
    "dialling the NIXL side channel reaches the other instance's handshake.",
    "Give every launch on the host its own ports (and keep `--dist-init-addr` bases at least seven apart).",
    example="python -m sglang.launch_server --disaggregation-mode prefill ... &\n"
            "python -m sglang.launch_server --disaggregation-mode prefill --port 30001 ... &",
    example_fixed="python -m sglang.launch_server --disaggregation-mode prefill ... &\n"
                  "python -m sglang.launch_server --disaggregation-mode prefill --port 30001 "
                  "--disaggregation-bootstrap-port 8999 ... &",
    category=_C, roles=("prefill", "decode"),
    notes="Only launches one script starts on one host are compared, and only while both run (a background job "
          "a `kill $PID` / `pkill` ended before the other started is not, nor a server started after one the script "
          "runs in the foreground: the script goes on only when that one has ended), nor the variants of one "
          "command that took different arms' values of a variable (`VLLM_BIN` set in an `if`/`else`, then `eval "
          "\"$CMD &\"`: one of them runs); containers started with `docker run` without `--network host` have their "
          "own ports. The services of one Docker Compose project start together: those with `network_mode: host` "
          "are compared (a bridge network gives each container its own ports; services of different `profiles` "
          "are alternatives)."))

GPU_OVERLAP = register(Rule(
    "PD151", "colocated-gpu-overlap", ERROR,
    "Reports two server launches on one host whose GPUs overlap: the GPUs each uses are its first "
    "tensor x pipeline (x data) parallel size devices from `--base-gpu-id`, counted in its "
    "`CUDA_VISIBLE_DEVICES` list (or the device mask of another accelerator: `HIP_VISIBLE_DEVICES`, "
    "`ROCR_VISIBLE_DEVICES`, `HABANA_VISIBLE_DEVICES`, `HABANA_VISIBLE_MODULES`, `ZE_AFFINITY_MASK`, "
    "`ASCEND_RT_VISIBLE_DEVICES`; or the container's `docker run --gpus` / `-e NVIDIA_VISIBLE_DEVICES`, a "
    "Compose service's `deploy.resources.reservations.devices` / `gpus:` / `NVIDIA_VISIBLE_DEVICES`) when it "
    "sets one, else from GPU 0. Launches of one script and the services of one Docker Compose project are "
    "compared. Launches on TPUs, and launches in containers whose devices the script does not "
    "say (a `docker run` or Compose service without a GPU request, a `docker exec` into a container it did not "
    "start), are not compared.",
    "Both engines size their KV cache pools as a fraction of the whole GPU memory (SGLang `--mem-fraction-static`, "
    "vLLM `--gpu-memory-utilization`, about 0.9 by default): two of them on one GPU run out of memory at start-up "
    "or under load, and each one's CUDA graphs and activations come on top.",
    "Pin each launch to its own GPUs (`CUDA_VISIBLE_DEVICES`, `--base-gpu-id`), or - for a deliberate single-GPU "
    "test - give both explicit memory fractions that add up to at most 0.9.",
    example="python -m sglang.launch_server --disaggregation-mode prefill ... &\n"
            "python -m sglang.launch_server --disaggregation-mode decode --port 30001 ...",
    example_fixed="python -m sglang.launch_server --disaggregation-mode prefill ... &\n"
                  "CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --disaggregation-mode decode --port 30001 ...",
    category=_C, roles=("prefill", "decode"),
    notes=f"Quiet when both launches set their memory fraction explicitly and the fractions add up to at most "
          f"{MEM_SHARE_LIMIT} (the sharing is then deliberate), or are set from values pdlint cannot see, or size "
          f"their KV cache themselves (SGLang `--max-total-tokens`, vLLM `--kv-cache-memory-bytes`); when "
          f"a device mask is not a list of device numbers (a UUID, a `ZE_AFFINITY_MASK` sub-device such as "
          f"`0.1`) or is a variable pdlint cannot see; and when the two launches are pinned with different "
          f"masks (which one the host honours is not known)."))

PARTIAL_PINNING = register(Rule(
    "PD152", "partial-gpu-pinning", WARNING,
    "Reports a server launch that sets no `CUDA_VISIBLE_DEVICES` while another launch the same script (or "
    "Compose project) starts on the same host is pinned with it, or placed at a GPU offset with SGLang's "
    "`--base-gpu-id` (Dynamo's `disagg.sh`: the decode is pinned to GPU 1, the prefill is not).",
    "The unpinned launch sees every GPU and takes the first ones from GPU 0, as many as its parallel sizes ask "
    "for. The pinning only works for the sizes written today: raise the unpinned launch's `--tp`/`--pp` (often "
    "a script option) and it grows onto the pinned launch's GPUs.",
    "Pin every co-located launch (`CUDA_VISIBLE_DEVICES=0 ...` for the prefill as well), ideally computed from "
    "the same parallel-size variables.",
    example="python3 -m dynamo.sglang --tp $PREFILL_TP --disaggregation-mode prefill ... &\n"
            "CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.sglang --tp $DECODE_TP --disaggregation-mode decode ...",
    example_fixed="CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.sglang --tp $PREFILL_TP --disaggregation-mode prefill "
                  "... &\nCUDA_VISIBLE_DEVICES=1 python3 -m dynamo.sglang --tp $DECODE_TP --disaggregation-mode "
                  "decode ...",
    category=_C, roles=("prefill", "decode")))

FEW_GPUS = register(Rule(
    "PD153", "fewer-visible-gpus-than-parallel-size", ERROR,
    "Reports a server launch whose `CUDA_VISIBLE_DEVICES` list (or `docker run --gpus`, or a Kubernetes "
    "container's `nvidia.com/gpu` / `amd.com/gpu` limit) makes fewer GPUs visible than its parallel sizes use "
    "(tensor x pipeline x data parallel, per node, from `--base-gpu-id`).",
    "The engine starts one worker per GPU and indexes the visible devices: with too few of them the launch fails "
    "with an invalid device ordinal (or NCCL/topology) error; SGLang asserts `gpu_id < "
    "torch.cuda.device_count()` as each TP rank starts (sglang/srt/utils/common.py); a `trtllm-serve` started on "
    "its own stops with \"Only N GPUs are available, but M are required\" (tensorrt_llm/llmapi/llm.py). A "
    "Kubernetes container gets "
    "as many devices as its GPU limit, numbered from 0.",
    "List as many devices in `CUDA_VISIBLE_DEVICES` (or the container's GPU limit) as the launch's parallel "
    "sizes need, or lower the sizes.",
    example="CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --tp 2 ...",
    example_fixed="CUDA_VISIBLE_DEVICES=1,2 python -m sglang.launch_server --tp 2 ...",
    category=_C, roles=("prefill", "decode")))

ROUTER_PORT = register(Rule(
    "PD154", "router-url-port-mismatch", ERROR,
    "Reports a router `--prefill`/`--decode` URL whose port no server of that role in the deployment listens on "
    "(the servers' `--port`, or the engine default), for routers and servers started by shell scripts and for "
    "URLs that name a Kubernetes pod directly.",
    "The router sends every request of that role to a port nothing serves (or to the other role's server, "
    "which then runs the wrong phase): requests fail or hang at the KV hand-off.",
    "Make the URL's port the server's `--port` (or start the server on the URL's port).",
    example="python -m sglang.launch_server --disaggregation-mode prefill --port 30000 ...\n"
            "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30002 --decode ...",
    example_fixed="python -m sglang.launch_server --disaggregation-mode prefill --port 30002 ...\n"
                  "python -m sglang_router.launch_router --pd-disaggregation --prefill http://h:30002 --decode ...",
    category=_C, roles=("prefill", "decode"),
    notes="In Kubernetes a URL is compared only when it names one pod through its headless Service "
          "(`sglang-pd-prefill-0.sglang-pd-prefill:8000`, as RoleBasedGroup, LeaderWorkerSet and StatefulSet pods are "
          "reached): a Service name may map its port to another container port. In Docker Compose a URL that names "
          "a service of the router's project - by its name, `container_name`, `hostname` or a network alias - is compared "
          "(each reaches the container at its own port).",))

ROUTER_ROLE = register(Rule(
    "PD155", "router-url-names-other-role", ERROR,
    "Reports a router `--prefill` URL whose host names the decode role (or a `--decode` URL naming the prefill "
    "role), e.g. `--prefill http://g-decode-0.s-g-decode:8000`.",
    "The router asks the decode server to prefill (and the prefill server to decode): the KV hand-off between "
    "them never matches and requests fail or hang.",
    "Swap the URLs so each flag points at the servers of its role.",
    example="--prefill http://g-decode-0.s-g-decode:8000 --decode http://g-prefill-0.s-g-prefill:8000",
    example_fixed="--prefill http://g-prefill-0.s-g-prefill:8000 --decode http://g-decode-0.s-g-decode:8000",
    category=_C, roles=("prefill", "decode")))

ROUTER_ENGINE = register(Rule(
    "PD156", "router-engine-mismatch", WARNING,
    "Reports an SGLang PD router (`sglang_router --pd-disaggregation`, `mini_lb`) whose prefill/decode URLs reach "
    "servers of another engine (vLLM, TRT-LLM).",
    "SGLang's PD router hands each request to both servers with SGLang's own bootstrap fields (`bootstrap_host`, "
    "`bootstrap_port`, `bootstrap_room`); vLLM's connectors expect `kv_transfer_params` from a proxy that runs "
    "the prefill first. Unless that router build has a mode for the other engine, the KV hand-off never happens "
    "and decode recomputes or fails.",
    "Front the servers with a router built for their engine (vLLM: the connector's proxy, llm-d/production-stack "
    "router, Dynamo frontend), or check that the router release supports that engine's PD protocol.",
    category=_C, roles=("prefill", "decode")))

#: `python -m sglang.srt.disaggregation.mini_lb`: SGLang's Python PD load balancer up to 0.5.1; from 0.5.2 the
#: module only raises (relocated to the sglang-router package, `--mini-lb`), from 0.5.6 it is gone (the wheels)
MINI_LB = "python -m sglang.srt.disaggregation.mini_lb"
#: and its launcher module (`launch_lb`, in the 0.4.8-0.5.1 wheels, gone from 0.5.2: field test rw17/n)
MINI_LB_MODULES = (MINI_LB, "python -m sglang.srt.disaggregation.launch_lb")
MINI_LB_LAST = "0.5.1"
_MINI_LB_WHY = ("SGLang moved its Python PD load balancer into the sglang-router package: from 0.5.2 `python -m "
                "sglang.srt.disaggregation.mini_lb` only raises `RuntimeError: The 'mini_lb' module has been relocated "
                "to the 'sglang_router' package` (sglang 0.5.2-0.5.5 srt/disaggregation/mini_lb.py), and from 0.5.6 "
                "the module is gone (`No module named sglang.srt.disaggregation.mini_lb`): the router never starts "
                "and no request reaches the servers.")
_MINI_LB_FIX = ("Start the router from the sglang-router package: `python -m sglang_router.launch_router "
                "--pd-disaggregation --mini-lb --prefill URL [BOOTSTRAP_PORT] --decode URL` (`--mini-lb` keeps the "
                "Python load balancer; without it the Rust router runs).")
MINI_LB_REMOVED = register(Rule(
    "PD157", "sglang-mini-lb-removed", ERROR,
    "Reports `python -m sglang.srt.disaggregation.mini_lb` (or its launcher `...disaggregation.launch_lb`) in a "
    "deployment whose SGLang release (an image tag or pin of the router or of its servers) is 0.5.2 or newer.",
    _MINI_LB_WHY, _MINI_LB_FIX,
    example="python -m sglang.srt.disaggregation.mini_lb --prefill http://p:30000 --decode http://d:30001",
    example_fixed="python -m sglang_router.launch_router --pd-disaggregation --mini-lb --prefill http://p:30000 "
                  "--decode http://d:30001",
    category=_C, roles=("prefill", "decode")))
MINI_LB_UNPINNED = register(Rule(
    "PD158", "sglang-mini-lb-unpinned", WARNING,
    "Reports `python -m sglang.srt.disaggregation.mini_lb` (or `...disaggregation.launch_lb`) in a deployment that "
    "pins no SGLang release: it starts only on SGLang 0.5.1 or older.",
    _MINI_LB_WHY, "Pin the SGLang release the script was written for (an image tag such as "
    "`lmsysorg/sglang:v0.5.1`), or - for a current SGLang - " + _MINI_LB_FIX[0].lower() + _MINI_LB_FIX[1:],
    example="python -m sglang.srt.disaggregation.mini_lb --prefill http://p:30000 --decode http://d:30001",
    example_fixed="python -m sglang_router.launch_router --pd-disaggregation --mini-lb --prefill http://p:30000 "
                  "--decode http://d:30001",
    category=_C, roles=("prefill", "decode")))


@unit_check
def _mini_lb(dep: Deployment, enabled) -> list:
    routers = [r for r in dep.routers if r.entrypoint in MINI_LB_MODULES]
    if not routers:
        return []
    from pdlint.engines.sglang.engine import version_hint
    from pdlint.engines.sglang.flags import LATEST, version_key
    out = []
    servers = [s for s in dep.servers if s.engine == "sglang"]
    for r in routers:
        pins = [(v, l) for l in [r] + servers for v in [version_hint(l)] if v]
        if not pins:
            if enabled(MINI_LB_UNPINNED.code):
                out.append(cand(MINI_LB_UNPINNED, r, r.command[-1] if r.command else None,
                                f"{r.entrypoint} starts only on SGLang {MINI_LB_LAST} or older, and no release is "
                                f"pinned here: on a current SGLang the module is gone (relocated to sglang-router "
                                f"in 0.5.2) and the router never starts"))
            continue
        version, where = pins[0]
        if enabled(MINI_LB_REMOVED.code) and (version == LATEST or
                                               version_key(version) > version_key(MINI_LB_LAST)):
            shown = "the latest SGLang" if version == LATEST else f"SGLang {version}"
            rel = [] if where is r else [Related(where.path, where.line, 1, f"the {who(where)} runs {shown}")]
            out.append(cand(MINI_LB_REMOVED, r, r.command[-1] if r.command else None,
                            f"{shown} has no working {r.entrypoint}: SGLang moved its PD load balancer to the "
                            f"sglang-router package in 0.5.2 (mini_lb only raises there, launch_lb is gone; mini_lb "
                            f"is gone from 0.5.6); the router never starts", rel))
    return out


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def rel_token(tok: Optional[TStr], launch: Launch, note: str) -> Related:
    if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
        o = tok.origin
        return Related(o.path, o.line, o.column, note)
    return Related(launch.path, launch.line, 1, note)


def who(launch: Launch) -> str:
    role = role_word(launch, "router" if launch.kind == "router" else "unknown-role")
    return f"{role} launch ({launch.entrypoint}, {launch.path}:{launch.line})"


def cand(rule: Rule, launch: Launch, token: Optional[TStr], message: str, related=(), fix: Optional[str] = None) \
        -> Candidate:
    tok = token if token is not None and token.pieces and not token.origin.path.startswith("<") else None
    return Candidate(rule.code, launch, tok, message, True, None, list(related), fix or rule.fix)


def _servers(dep: Deployment) -> list:
    return [l for l in dep.servers if l.parsed is not None]


#: pairs a launch is compared in with the launches of one group of identical launches (the same command
#: written on several lines of a script): enough for every finding to name its partners, linear in the
#: number of launches however many identical lines a script repeats
MAX_PARTNERS = 16
#: earlier launches holding one key (a port, a GPU: what a pair rule compares) a launch is compared with at all:
#: the first and the last MAX_EXAMINED / 2 of them.  Identical launches that never share the host (run in the
#: foreground one after the other, ended by a ``pkill``) give no pair, so the partners bound alone left every
#: launch compared with every earlier one: an include fan-out rendering one foreground command 2000 times spent
#: over 10 s here (rw31/h P5); and 1000 distinct background launches (each its own `--port`) were each compared
#: with every earlier one, each pair's ports and GPUs (rw32/h P5)
MAX_EXAMINED = 2 * MAX_PARTNERS
#: keys (ports of a port block, GPUs) one launch is indexed under one by one; a launch with more (a NIXL side
#: channel block of a data parallel size in the hundreds, a tensor parallel size in the thousands: no host has
#: them) is compared with the first and last launches of all (:data:`_WIDE`, :data:`_ANY`)
MAX_KEYS = 64
_WIDE, _ANY = ("wide",), ("any",)
#: comparisons :func:`_colocated_pairs` made (pairs of launches it examined), for the tests of its bounds
STATS = {"examined": 0}


def index_keys(keys) -> tuple:
    """(keys a launch is indexed under, keys it looks its earlier partners up by) for the values ``keys`` it
    holds (its ports, its GPUs): two launches are compared when they share one.  More than :data:`MAX_KEYS` of
    them: the launch is compared with the first and last launches of all (a launch's earlier partners) and with
    every launch that has that many (its later ones)."""
    keys = set(keys)
    if len(keys) > MAX_KEYS:
        return WIDE_KEYS
    return keys | {_ANY}, keys | {_WIDE}


WIDE_KEYS = ({_WIDE, _ANY}, {_ANY, _WIDE})


def _colocated_pairs(dep: Deployment, index: Optional[Callable] = None, name: str = "") -> list:
    """(a, b) pairs of launches on one host (:func:`pdlint.pairing.colocated`), a before b, in the script's
    order, that share a key: ``index(launch)`` -> (keys it holds, keys it looks partners up by)
    (:func:`index_keys`; None: every launch holds one key); a launch with no key is in no pair.  Each launch is
    compared, for each of its keys, with the first and the last :data:`MAX_EXAMINED` / 2 earlier launches that
    hold it, and paired with at most :data:`MAX_PARTNERS` earlier launches of each group of identical launches:
    linear in the number of launches (the pair rules compare a launch only with those it may collide with)."""
    cache = dep.__dict__.setdefault("_colocated", {})
    if name and name in cache:
        return cache[name]
    capped = False  # a launch's earlier partners were not all compared (searched_all)
    ss = [l for l in _servers(dep) if shell_launch(l)]
    one_host = [l for l in ss if colocated_candidate(l)] + [l for l in _servers(dep) if compose_service(l)]
    arms = arm_roles(ss)  # two configurations a script chooses between never share the host at one time
    group: list = []  # index in one_host -> its group of identical launches
    sigs: dict = {}
    for l in one_host:
        group.append(sigs.setdefault(_signature(l), len(sigs)))
    holders: dict = {}  # key -> indices (in one_host) of the earlier launches holding it, in order
    half = MAX_EXAMINED // 2
    out = []
    for j, b in enumerate(one_host):
        own, probe = index(b) if index is not None else (((),), ((),))
        found: set = set()
        for k in probe:
            h = holders.get(k)
            if h:
                capped = capped or len(h) > MAX_EXAMINED
                found.update(h if len(h) <= MAX_EXAMINED else h[:half] + h[-half:])
        taken: dict = {}
        STATS["examined"] += len(found)
        for i in sorted(found):
            a = one_host[i]
            g = group[i]
            if taken.get(g, 0) >= MAX_PARTNERS:
                capped = True
                continue
            if compose_service(a) or compose_service(b):
                if compose_together(a, b):  # (services `docker compose up` starts together, rw30/a P8)
                    taken[g] = taken.get(g, 0) + 1
                    out.append((a, b))
                continue
            if a.path == b.path and a.render_role == b.render_role \
                    and (a.line != b.line or distinct_instances(a, b) or apart_in_text(a, b)) \
                    and not alternatives(a, b) and not sequential(a, b) and not other_configuration(a, b, arms) \
                    and not engine_libraries(a, b) and not one_after_the_other(a, b) and not value_variants(a, b):
                taken[g] = taken.get(g, 0) + 1
                out.append((a, b))
        for k in own:
            holders.setdefault(k, []).append(j)
    if name:
        cache[name] = out
        if capped:
            dep.__dict__.setdefault("_colocated_capped", set()).add(name)
    return out


def searched_all(dep: Deployment, name: str) -> bool:
    """Were the launches of ``dep`` compared with all their earlier partners for :func:`_colocated_pairs`
    ``name`` (no key held by more than :data:`MAX_EXAMINED` launches, no group past :data:`MAX_PARTNERS`)?
    When not, a count of a launch's partners is a lower bound."""
    return name not in dep.__dict__.get("_colocated_capped", ())


def _signature(l: Launch) -> tuple:
    """What makes two launches of one script identical for the pair rules (all but their line)."""
    return (l.path, l.render_role, l.context, l.entrypoint, tuple(t.text for t in l.argv),
            tuple(sorted((k, v.text) for k, v in l.env.items())), wrapper_text(l))


def _gpus_of(l: Launch) -> "_Gpus":
    g = l.meta.get("_gpus")
    if not isinstance(g, _Gpus):
        g = l.meta["_gpus"] = _Gpus(l)
    return g


# ---------------------------------------------------------------------------
# PD150 ports
# ---------------------------------------------------------------------------

@unit_check
def _ports(dep: Deployment, enabled) -> list:
    if not enabled(PORT_COLLISION.code):
        return []
    out = []
    for a, b in _colocated_pairs(dep, _port_keys, "ports"):
        fa, fb = facts(a), facts(b)
        for pa in fa.ports:
            for pb in fb.ports:
                lo, hi = max(pa.port, pb.port), min(pa.port + pa.span, pb.port + pb.span) - 1
                if lo > hi:
                    continue
                # edit the later launch; prefer a side whose port is written
                edit, keep, pe, pk = (b, a, pb, pa) if (pb.token is not None or pa.token is None) else (a, b, pa, pb)
                port_txt = str(lo) if lo == hi else f"{lo}-{hi}"
                message = (f"port {port_txt} is used twice on this host: this {edit.role_word('server')} launch's "
                           f"{_port_what(pe)} and the {keep.role_word()} launch's {_port_what(pk)} "
                           f"({_together(a)})")
                out.append(cand(PORT_COLLISION, edit, pe.token, message,
                                [rel_token(pk.token, keep, f"the {who(keep)} uses port {port_txt} here"
                                           + ("" if pk.token is not None else " (default)"))]))
    return out


def _port_keys(launch: Launch) -> tuple:
    """:func:`index_keys` of the ports a launch listens on (every port of a port block), on the host's network
    only."""
    if not shares_network(launch):
        return (), ()
    nums: set = set()
    for p in facts(launch).ports:
        if p.span > MAX_KEYS:
            return WIDE_KEYS
        nums.update(range(p.port, p.port + max(p.span, 1)))
    return index_keys(nums)


def _together(launch: Launch) -> str:
    if compose_service(launch):
        return "two services `docker compose up` starts together, both on the host network"
    return "both started by this script"


def _port_what(p) -> str:
    base = p.what + ("" if p.token is not None else " (default)")
    if p.span > 1:
        base += f" (ports {p.port}-{p.port + p.span - 1})"
    else:
        base += f" ({p.port})"
    return base


# ---------------------------------------------------------------------------
# PD151-PD153 GPUs
# ---------------------------------------------------------------------------

#: GPUs one host can have (a parallel size, a `docker run --gpus N` or a GPU index beyond it is a typo or an
#: attack): launches beyond it are not compared, and no GPU list is ever built larger than this
MAX_GPUS = 4096


#: environment variables that restrict which devices a server process sees, each a comma-separated list of
#: device numbers: NVIDIA CUDA; AMD ROCm (HIP, and the ROCr runtime below it); Intel Gaudi (the Habana runtime's
#: device and module masks); Intel GPUs (Level Zero: ``0.1`` names a sub-device, which is not compared); Huawei
#: Ascend.  vLLM's and SGLang's platform back-ends honour them (Dynamo's Gaudi and XPU launch scripts pin each
#: worker with HABANA_VISIBLE_DEVICES / ZE_AFFINITY_MASK)
DEVICE_MASKS = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HABANA_VISIBLE_DEVICES",
                "HABANA_VISIBLE_MODULES", "ZE_AFFINITY_MASK", "ASCEND_RT_VISIBLE_DEVICES")


_DEVICE_NUMBER = lazyre.compile(r"[0-9]+")


def device_mask(launch: Launch) -> Optional[tuple]:
    """``(names, token)``: the device-mask variables (:data:`DEVICE_MASKS`) the launch sets and the value
    they give; None when it sets none.  Several with different values: ``((), None)`` (which list the
    devices are counted in depends on the platform and the runtime's nesting, so it is not known)."""
    found = [(name, launch.env[name]) for name in DEVICE_MASKS if name in launch.env]
    if not found:
        return None
    if len({tok.text for _, tok in found}) > 1 or any(tok.opaque for _, tok in found):
        return (), None
    return tuple(name for name, _ in found), found[0][1]


class _Gpus:
    def __init__(self, launch: Launch):
        f = facts(launch)
        self.launch = launch
        self.ok = f.uses_gpus and f.gpus_needed is not None and 0 < f.gpus_needed <= MAX_GPUS \
            and 0 <= f.base_gpu <= MAX_GPUS and abs(f.gpu_step) <= MAX_GPUS
        self.needed = f.gpus_needed or 0
        self.pinned = False
        self.token: Optional[TStr] = None
        self.short = False
        self.visible: Optional[list] = None
        self.physical: set = set()
        self.mask: tuple = ()  # the device-mask variables that pin it (DEVICE_MASKS), () when none does
        if not self.ok:
            return
        mask = device_mask(launch)
        cvd = mask[1] if mask is not None else None
        visible = None
        if mask is not None:
            if cvd is None:
                self.ok = False
                return
            ids = [x.strip() for x in cvd.text.split(",") if x.strip()]
            if not all(_DEVICE_NUMBER.fullmatch(x) for x in ids):
                self.ok = False  # UUIDs / MIG names / Level Zero sub-devices (0.1): not compared
                return
            if not ids and mask[0] != ("CUDA_VISIBLE_DEVICES",):
                self.ok = False  # CUDA documents an empty list as no device; the others do not say
                return
            if len(ids) > MAX_GPUS or any(len(x) > 6 for x in ids):
                self.ok = False
                return
            visible = [int(x) for x in ids]
            self.pinned, self.token, self.mask = True, cvd, mask[0]
        if f.base_gpu_token is not None and f.base_gpu_token.text:
            self.pinned = True  # an explicit --base-gpu-id places the launch deliberately
        dg = docker_gpus(launch)
        if dg is not None:
            if dg in ("unknown", "none"):
                self.ok = False
                return
            if self.token is None and isinstance(launch.meta.get("container_gpus_at"), TStr):
                self.token = launch.meta["container_gpus_at"]  # (a Compose service's device_ids: what to edit)
            if dg != "all":
                if (dg if isinstance(dg, int) else len(dg)) > MAX_GPUS:
                    self.ok = False
                    return
                dev = list(range(dg)) if isinstance(dg, int) else dg
                visible = [dev[i] for i in visible if i < len(dev)] if visible is not None else dev
                self.pinned = True
        idx = [f.base_gpu + i * f.gpu_step for i in range(self.needed)]
        if visible is None:
            self.physical = set(idx)
        else:
            self.short = any(i >= len(visible) for i in idx)
            self.physical = {visible[i] for i in idx if i < len(visible)}
        self.visible = visible
        self.facts = f
        if self.physical:  # (GPUs that follow each other: what two launches share is a range, not a set to build)
            lo, hi = min(self.physical), max(self.physical)
            self.span = range(lo, hi + 1) if hi - lo + 1 == len(self.physical) else None

    span: Optional[range] = None

    def shared(self, other: "_Gpus"):
        """The GPUs this launch and ``other`` both use, in order (a range or a list)."""
        if self.span is not None and other.span is not None:
            return range(max(self.span.start, other.span.start), min(self.span.stop, other.span.stop))
        return sorted(self.physical & other.physical)

    def describe(self) -> str:
        """``GPU 3``, ``GPUs 0-3``, ``GPUs 0,2`` (once: every pair the launch is in names it)."""
        span = getattr(self, "_described", None)
        if span is None:
            gs = sorted(self.physical)
            span = self._described = "no GPU" if not gs else f"GPU {gs[0]}" if len(gs) == 1 else (
                f"GPUs {gs[0]}-{gs[-1]}" if gs[-1] - gs[0] + 1 == len(gs) else "GPUs " + _gpu_list(gs))
        return span

    @property
    def mask_text(self) -> str:
        """``CUDA_VISIBLE_DEVICES=0,1`` (the first variable of the mask), "" when no variable pins it."""
        return f"{self.mask[0]}={self.token.text}" if self.mask and self.token is not None else ""


def _one_pod_server(launch: Launch, g) -> bool:
    """A launch whose container's GPU limit is all the devices it has: a core workload's (not a LeaderWorkerSet
    group, whose leader's vLLM spreads its ranks over the group's pods through Ray: LWS's own vLLM example, tensor
    8 x pipeline 2 on two 8-GPU pods), one node's.  (A vLLM launch over a Ray cluster has no per-node size: its
    facts say nothing for PD153 to compare.)"""
    from pdlint.formats.crd import CORE_WORKLOAD_KINDS
    return launch.meta.get("resource_kind") in CORE_WORKLOAD_KINDS and not launch.meta.get("group_role") and \
        not g.facts.multi_node


@unit_check
def _gpus(dep: Deployment, enabled) -> list:
    out = []
    if enabled(FEW_GPUS.code):
        for l in _servers(dep):
            g = _gpus_of(l)
            if g.ok and g.short and g.visible is not None:
                f = g.facts
                n = len(g.visible)
                msg = (f"this launch makes {n} GPU{'s' if n != 1 else ''} visible "
                       f"({g.mask_text or _compose_gpus_text(l) or 'docker run --gpus'})"
                       f" but uses {g.needed}{' from --base-gpu-id ' + str(f.base_gpu) if f.base_gpu else ''}"
                       f" ({f.gpus_note or 'its parallel sizes'})")
                rel = [rel_token(f.gpus_token, l, "the parallel size is set here")] if f.gpus_token is not None \
                    else []
                # (the variable the launch's mask is: `ASCEND_RT_VISIBLE_DEVICES` on Ascend, field test rw23/a)
                fix = FEW_GPUS.fix.replace("CUDA_VISIBLE_DEVICES", g.mask[0]) if g.mask else None
                out.append(cand(FEW_GPUS, l, g.token, msg, rel, fix))
            elif g.ok and g.visible is None and isinstance(l.meta.get("gpu_limit"), tuple) and _one_pod_server(l, g):
                # a Kubernetes container: its GPU limit is the devices it gets, numbered from 0 (SGLang asserts
                # gpu_id < torch.cuda.device_count() as each TP rank starts: utils/common.py; vLLM's workers
                # find no device; field test rw19/b: a Deployment with nvidia.com/gpu 4 and --tp-size 8 passed)
                count, tok, what = l.meta["gpu_limit"]
                f = g.facts
                last = f.base_gpu + (g.needed - 1) * f.gpu_step
                if 0 < count <= MAX_GPUS and (last >= count or f.base_gpu >= count):
                    msg = (f"this container gets {count} GPU{'s' if count != 1 else ''} ({what}: {count}) but the "
                           f"launch uses {g.needed}{' from --base-gpu-id ' + str(f.base_gpu) if f.base_gpu else ''}"
                           f" ({f.gpus_note or 'its parallel sizes'})")
                    rel = [rel_token(f.gpus_token, l, "the parallel size is set here")] \
                        if f.gpus_token is not None else []
                    out.append(cand(FEW_GPUS, l, tok, msg, rel))
    if not (enabled(GPU_OVERLAP.code) or enabled(PARTIAL_PINNING.code)):
        return out
    pinning = enabled(PARTIAL_PINNING.code)

    def keys(l: Launch) -> tuple:  # its GPUs; and pinned or not, for PD152 (a pinned and an unpinned launch)
        g = _gpus_of(l)
        if not g.ok or g.facts.visible_only:
            return (), ()
        own, probe = index_keys(g.physical)
        if pinning:
            own, probe = own | {("pinned", g.pinned)}, probe | {("pinned", not g.pinned)}
        return own, probe

    unpinned: dict = {}  # id(unpinned launch) -> (launch, its GPUs, [(pinned peer, its GPUs)])
    for a, b in _colocated_pairs(dep, keys, f"gpus{pinning}"):
        ga, gb = _gpus_of(a), _gpus_of(b)
        if not (ga.ok and gb.ok) or (ga.mask and gb.mask and ga.mask != gb.mask) or not same_device_space(a, b):
            continue  # unknown devices, or masks of two accelerators: which one this host honours is not known
        if ga.facts.visible_only or gb.facts.visible_only:
            continue  # (a launch whose GPU placement another process decides: only its visible count is judged)
        common = ga.shared(gb)
        if common:
            if not enabled(GPU_OVERLAP.code):
                continue
            fa, fb = ga.facts, gb.facts
            if fa.mem_explicit and fb.mem_explicit and (
                    fa.mem_fraction is None or fb.mem_fraction is None
                    or fa.mem_fraction + fb.mem_fraction <= MEM_SHARE_LIMIT + 1e-9):
                continue  # deliberate sharing (or fractions pdlint cannot see)
            # edit the unpinned one (or the later one)
            edit, keep = (a, b) if (not ga.pinned and gb.pinned) else (b, a)
            ge, gk = (ga, gb) if edit is a else (gb, ga)
            shared = common
            msg = (f"the {edit.role_word('server')} and {keep.role_word()} launches both use GPU"
                   f"{'s' if len(shared) > 1 else ''} {_gpu_list(shared)}: this one uses "
                   f"{ge.describe()} ({_why_gpus(ge)}), the {keep.role_word()} launch {gk.describe()} "
                   f"({_why_gpus(gk)}); {_mem_note(ge.facts, gk.facts)}")
            rel = [rel_token(gk.token or gk.facts.gpus_token, keep, f"the {who(keep)} uses {gk.describe()}")]
            out.append(cand(GPU_OVERLAP, edit, ge.token or ge.facts.gpus_token, msg, rel))
        elif ga.pinned != gb.pinned and enabled(PARTIAL_PINNING.code):
            free, pinned = (a, b) if gb.pinned else (b, a)
            gf, gp = (ga, gb) if free is a else (gb, ga)
            unpinned.setdefault(id(free), (free, gf, []))[2].append((pinned, gp))
    for free, gf, peers in unpinned.values():  # one finding per unpinned launch, naming every pinned peer
        pinned, gp = min(peers, key=lambda x: min(x[1].physical) if x[1].physical else 1 << 30)
        first = min(gp.physical) if gp.physical else None
        grow = ""
        if first is not None and first >= gf.facts.base_gpu:
            need = (first - gf.facts.base_gpu) // max(gf.facts.gpu_step, 1) + 1
            grow = (f"; as soon as it needs {need} GPU{'s' if need != 1 else ''} it runs on GPU {first} too")
        via = _via_variable(gf.facts.gpus_token)
        others = ""
        if len(peers) > 1:
            least = "" if searched_all(dep, f"gpus{pinning}") else "at least "
            others = (f" (and {least}{len(peers) - 1} other pinned launch{'es' if len(peers) > 2 else ''} of this "
                      f"{'Compose project' if compose_service(free) else 'script'})")
        msg = (f"this {free.role_word('server')} launch sets no {gp.mask[0] if gp.mask else 'CUDA_VISIBLE_DEVICES'}, "
               f"so it counts GPUs from 0 and "
               f"uses {gf.describe()} ({_why_gpus(gf)}{via}), while the {pinned.role_word()} launch is "
               f"pinned to {gp.describe()} ({_why_gpus(gp)}){others}{grow}")
        rel = [rel_token(g.token, l, f"the {who(l)} is pinned here") for l, g in peers]
        out.append(cand(PARTIAL_PINNING, free, None, msg, rel))
    return out


def _gpu_list(gs: list) -> str:
    """``0,1,2``: sorted GPU numbers; more than :data:`MAX_KEYS` (no host has them: a parallel size in the
    thousands) shortened, ``0-2047`` when they follow each other, else the first ones and how many more."""
    if len(gs) <= MAX_KEYS:
        return ",".join(map(str, gs))
    if gs[-1] - gs[0] + 1 == len(gs):
        return f"{gs[0]}-{gs[-1]}"
    return ",".join(map(str, gs[:MAX_KEYS])) + f" and {len(gs) - MAX_KEYS} more"


def _why_gpus(g: _Gpus) -> str:
    parts = []
    if g.mask_text:
        parts.append(g.mask_text)
    elif _compose_gpus_text(g.launch):
        parts.append(_compose_gpus_text(g.launch))
    parts.append(g.facts.gpus_note or f"{g.needed} GPU{'s' if g.needed != 1 else ''}")
    if g.facts.base_gpu:
        parts.append(f"--base-gpu-id {g.facts.base_gpu}")
    return ", ".join(parts)


def _compose_gpus_text(launch: Launch) -> str:
    """``deploy.resources.reservations.devices device_ids: 0,1``: how a Compose service asks for its GPUs."""
    what, dg = launch.meta.get("container_gpus_what"), launch.meta.get("container_gpus")
    if not what or dg is None or dg in ("none", "unknown"):
        return ""
    return f"{what}: {','.join(map(str, dg)) if isinstance(dg, list) else dg}"


def _via_variable(tok: Optional[TStr]) -> str:
    if tok is None or not tok.pieces:
        return ""
    notes = [h.note for h in tok.origin.chain if h.note.startswith("$")]
    return f", sized by {notes[0]}" if notes else ""


def _mem_note(fa, fb) -> str:
    if fa.mem_fraction is None or fb.mem_fraction is None:
        return "each sizes its memory pool as a fraction of the whole GPU"
    return (f"their memory fractions add up to {fa.mem_fraction + fb.mem_fraction:g} of each shared GPU "
            f"(more than {MEM_SHARE_LIMIT})")


# ---------------------------------------------------------------------------
# PD154-PD156 routers
# ---------------------------------------------------------------------------

@unit_check
def _routers(dep: Deployment, enabled) -> list:
    out = []
    from pdlint.pairing import host_role
    for link in dep.links:
        r = link.router
        if link.how != "url" or link.token is None:
            continue
        host, _, _ = parse_url(link.token)
        named = host_role(host)
        if named in ("prefill", "decode") and named != link.role:
            if enabled(ROUTER_ROLE.code):
                other = next((s for s in dep.servers if s.role == named), None)
                rel = [Related(other.path, other.line, 1, f"the {who(other)}")] if other is not None else []
                out.append(cand(ROUTER_ROLE, r, link.token,
                                f"--{link.role} {link.token.text} names the {named} role: the router sends "
                                f"{link.role} work to {named} servers", rel))
            continue
        if link.port_mismatch and enabled(ROUTER_PORT.code) and (
                _pod_address(host) or _compose_service(host, r, dep.role_servers(link.role)) or
                _on_a_host(r) and all(_on_a_host(s) for s in dep.role_servers(link.role))):
            servers = dep.role_servers(link.role)
            ports = sorted({facts(s).http_port for s in servers if facts(s).http_port is not None})
            msg = (f"the router sends {link.role} requests to port {link.url_port}, but the {link.role} "
                   f"server{'s' if len(servers) > 1 else ''} of this deployment listen"
                   f"{'' if len(servers) > 1 else 's'} on {', '.join(map(str, ports))}")
            # (another role's server on that port only when the URL's host reaches it: `http://sgl-decode:30000`
            # names the decode container, not the prefill one listening on 30000; field test rw18/p P11)
            one = _pod_address(host) or _compose_service(host, r, dep.servers)  # (the host names one server)
            named = [s for s in dep.servers if _names_server(host, r, s)] if one else []
            wrong = [s for s in dep.servers if s.role not in (link.role, None) and facts(s).http_port == link.url_port
                     and (not one or s in named)]
            if wrong:
                msg += f" - port {link.url_port} is the {wrong[0].role_word()} server's"
            elif named and host:
                msg += f" - {host} is the {named[0].role_word()} server's address: nothing listens on port " \
                       f"{link.url_port} there"
            rel = [rel_token(facts(s).http_token, s, f"the {who(s)} listens on port {facts(s).http_port}"
                             + ("" if facts(s).http_token is not None else " (default)")) for s in servers]
            out.append(cand(ROUTER_PORT, r, _port_token(link.token), msg, rel))
    if enabled(ROUTER_ENGINE.code):
        for r in dep.routers:
            if r.engine != "sglang" or not any(t.text == "--pd-disaggregation" for t in r.argv) and \
                    "mini_lb" not in r.entrypoint and "launch_lb" not in r.entrypoint:
                continue
            reached = [s for k in dep.links if k.router is r for s in k.servers]
            engines = {s.engine for s in reached}
            if reached and "sglang" not in engines:
                eng = ", ".join(sorted(engines))
                tok = next((k.token for k in dep.links if k.router is r and k.token is not None), None)
                out.append(cand(ROUTER_ENGINE, r, tok,
                                f"this SGLang PD router routes to {eng} servers: it speaks SGLang's PD protocol "
                                f"(bootstrap host/port/room), not {eng}'s KV connector hand-off",
                                [Related(s.path, s.line, 1, f"the {who(s)}") for s in reached[:4]]))
    return out


def _on_a_host(launch) -> bool:
    """Started on a host, where a URL's port is the server's own: a script's launch, or one of a guide's shell
    code blocks kept in YAML (vllm-project/recipes; each block its own command, so not co-located)."""
    return shell_launch(launch) or bool(launch.meta.get("markdown_block"))


#: a pod's own DNS name through its headless Service (StatefulSet, LeaderWorkerSet, RoleBasedGroup):
#: `POD-N.SERVICE[.NAMESPACE...]`, where the pod is named after its Service (`sglang-pd-prefill-0.sglang-pd-prefill`)
_POD_DNS = lazyre.compile(r"^(?P<svc>[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)-\d+\.(?P=svc)(?:\.|$)")


def _pod_address(host: str) -> bool:
    """The URL names one pod directly, not a Service: no port mapping, the pod's container port is the port
    (field test rw8/a: an RBG router's `--prefill http://sglang-pd-prefill-0.sglang-pd-prefill:9999` to a
    server on 8000)."""
    return bool(host) and bool(_POD_DNS.match(host.lower()))


def _compose_service(host: str, router: Launch, servers: list) -> bool:
    """The URL of a Compose service's router names a service of its project that runs a server of that role (its
    service name, or its ``container_name``, ``hostname`` or a network alias: field test rw17/n):
    on the project's network the service name reaches the container itself, at its own port (a `ports:` mapping
    is only for the host's clients; field test rw16/m: a toy proxy's `--decoder-port 8201` to a decode service
    listening on 8200 passed)."""
    if not host or router.meta.get("resource_kind") != "compose service":
        return False
    return any(s.meta.get("resource_kind") == "compose service" and s.path == router.path
               and (s.meta.get("resource_name") == host or host in s.meta.get("compose_names", ()))
               for s in servers)


def _names_server(host: str, router: Launch, server: Launch) -> bool:
    """Does the URL host ``host`` name this one server: a Compose service of the router's project by its name,
    ``container_name``, ``hostname`` or a network alias (:func:`_compose_service`), or a pod through its headless
    Service (`sglang-pd-decode-0.sglang-pd-decode`, :func:`_pod_address`) of the resource it runs in?"""
    if not host:
        return False
    if _compose_service(host, router, [server]):
        return True
    m = _POD_DNS.match(host.lower())
    return m is not None and server.meta.get("resource_name") == m.group("svc")


def _port_token(tok: TStr) -> TStr:
    _, _, ptok = parse_url(tok)
    return ptok if ptok is not None and ptok.pieces else tok
