"""vLLM prefill/decode parallelism rules whose truth depends on the connector and
the release, and Dynamo's vLLM worker modes.

Release ranges were read in each release's source (wheels from PyPI, see the
rule's ``source``); the launch's vLLM release is the pinned one (``vllm-version``,
image tag), else unknown.
"""

from __future__ import annotations

from typing import Optional

from pdlint.engines.vllm.engine import VllmInfo
from pdlint.engines.vllm.flags import version_key
from pdlint.engines.vllm.rulebase import WARNING, VHit, related_at, vllm_rule
from pdlint.model import Related

NIXL_P_GT_D_FIXED = "0.14.0"  # first release whose NIXL connector reads from a larger prefill TP
DYNAMO_MODE_ENUM = "1.0.0"  # first ai-dynamo release with vLLM's --disaggregation-mode


def _info(launch) -> Optional[VllmInfo]:
    return launch.parsed if isinstance(launch.parsed, VllmInfo) else None


def _conns(info: VllmInfo) -> list:
    return info.kv.connectors if info.kv is not None and info.kv.error is None else []


def _tp(info: VllmInfo) -> Optional[int]:
    t = info.token("--tensor-parallel-size")
    if t is not None and t.opaque:
        return None
    return info.int("--tensor-parallel-size", 1)


def _tp_tok(info: VllmInfo, launch):
    return info.token("--tensor-parallel-size")


def _tp_pair(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _tp(pi), _tp(di)
    if a is None or b is None:
        return None
    return a, b


def _edit_tp(p, d, pi, di, a, b, msg):
    """The hit on the decode's TP (or the launch when it does not write one) with the prefill's TP related."""
    tok = di.token("--tensor-parallel-size")
    rel = [related_at(pi.token("--tensor-parallel-size"), p, f"the prefill runs tensor parallel size {a}")]
    return VHit(msg, tok, rel, "decode")


def _release(info: VllmInfo) -> Optional[str]:
    """The release pinned (not the table judged, when pdlint has none for it: vllm/vllm-openai:v0.25.0 is
    judged against 0.20.0, field test rw13/f), None when none is."""
    return (info.release or info.version) if info.pinned else None


# ---------------------------------------------------------------------------
# NIXL: prefill TP larger than decode TP
# ---------------------------------------------------------------------------

def _nixl_pair(p, d, pi, di):
    if pi is None or di is None or "NixlConnector" not in _conns(pi) or "NixlConnector" not in _conns(di):
        return None
    tp = _tp_pair(p, d, pi, di)
    if tp is None:
        return None
    a, b = tp
    if a <= b and b % a == 0:
        return None
    return a, b


_NIXL_MSG = ("Decode TP cannot be smaller than prefill TP")


@vllm_rule(
    "VLLM021", "nixl-prefill-tp-exceeds-decode-tp", kind="pair",
    summary="Reports a NixlConnector prefill/decode pair whose prefill tensor-parallel size is larger than the "
            "decode's (or does not divide it), on a vLLM release up to 0.13 (the release pinned by the image tag "
            "or `vllm-version`).",
    why="Up to vLLM 0.13 the NIXL connector's decode side computes `tp_ratio = divide(decode_tp, prefill_tp)` "
        "when it first meets the prefill and asserts: `Decode TP cannot be smaller than prefill TP` (or `2 is "
        "not divisible by 4`). Both servers start, and every disaggregated request then fails at the handshake.",
    fix="Give the decode a tensor-parallel size that is a multiple of the prefill's (e.g. prefill TP 2, decode "
        "TP 4), or run vLLM 0.14 or later, whose NIXL connector also reads from a larger prefill TP.",
    example="# vllm/vllm-openai:v0.11.0\n# prefill\nvllm serve M -tp 4 --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n# decode\nvllm serve M -tp 2 "
            "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    example_fixed="# prefill -tp 2, decode -tp 4",
    upstream=_NIXL_MSG,
    source="vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py:743 (0.9.2), :910 (0.10.2), :968 "
           "(0.11.0), :1577 (0.13.0): assert tp_ratio > 0; no such assertion from 0.14.0 (tp_ratio < 0 reads)",
    notes="Only for a pinned release up to 0.13.x; with no release pinned, or a newer one, VLLM022 warns.")
def _nixl_p_gt_d(p, d, pi, di):
    tp = _nixl_pair(p, d, pi, di)
    rel_p, rel_d = _release(pi), _release(di)
    rel = rel_d or rel_p
    if tp is None or rel is None or version_key(rel) >= version_key(NIXL_P_GT_D_FIXED):
        return None
    a, b = tp
    why = "is smaller than" if a > b else "is not a multiple of"
    return _edit_tp(p, d, pi, di, a, b,
                    f"the decode's tensor parallel size {b} {why} the prefill's {a}: vLLM {rel}'s NIXL connector "
                    f"asserts \"{_NIXL_MSG}\" (or \"{b} is not divisible by {a}\") when the decode first meets the "
                    f"prefill, and every disaggregated request fails")


@vllm_rule(
    "VLLM022", "nixl-prefill-tp-exceeds-decode-tp-unpinned", kind="pair", severity=WARNING,
    summary="Reports a NixlConnector prefill/decode pair whose prefill tensor-parallel size is larger than the "
            "decode's (or does not divide it) when the vLLM release is not pinned or is 0.14 or later.",
    why="vLLM up to 0.13 refuses the layout at the first request (VLLM021). From 0.14 the NIXL connector reads "
        "a decode rank's heads from several prefill ranks, but not for every layout (replicated KV heads, "
        "different block sizes are still refused) and llm-d's guide warns that prefill TP > decode TP is "
        "unsupported for most model architectures (llm-d/llm-d#2187).",
    fix="Prefer a decode TP that is a multiple of the prefill TP; pin the vLLM release (image tag or "
        "`vllm-version`) so pdlint can judge it.",
    example="# prefill\nvllm serve M -tp 4 --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",...}'\n"
            "# decode\nvllm serve M -tp 2 --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",...}'",
    example_fixed="# prefill -tp 2, decode -tp 4",
    source="vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py (0.14.0: assert not (tp_ratio < 0 "
           "and is_kv_replicated))")
def _nixl_p_gt_d_unpinned(p, d, pi, di):
    tp = _nixl_pair(p, d, pi, di)
    rel = _release(di) or _release(pi)
    if tp is None or (rel is not None and version_key(rel) < version_key(NIXL_P_GT_D_FIXED)):
        return None
    a, b = tp
    where = f"vLLM {rel}" if rel else "an unpinned vLLM release"
    advice = f"use a decode TP that is a multiple of {a}" if rel else \
        f"pin the release or use a decode TP that is a multiple of {a}"
    return _edit_tp(p, d, pi, di, a, b,
                    f"the prefill's tensor parallel size {a} is larger than (or does not divide) the decode's {b}: "
                    f"vLLM up to 0.13 refuses it at the first request, and on {where} the NIXL connector supports "
                    f"it only for some KV layouts; {advice}")


# ---------------------------------------------------------------------------
# PyNccl (v0 SimpleConnector): one pipe per rank
# ---------------------------------------------------------------------------

def _v0_conns(info: VllmInfo) -> list:
    """The launch's connectors that are the v0 SimpleConnector: `PyNcclConnector`, and `MooncakeConnector` on the
    releases before 0.10.0 (from 0.10 the name is v1's Mooncake connector, which pairs different TP sizes:
    vllm 0.20.0 kv_connector/v1/mooncake/mooncake_connector.py:84-167; field test rw16/l)."""
    release = info.release or info.version
    v0 = release is not None and version_key(release) < version_key("0.10.0")
    return [c for c in _conns(info) if c == "PyNcclConnector" or (c == "MooncakeConnector" and v0)]


@vllm_rule(
    "VLLM023", "pynccl-connector-tp-mismatch", kind="pair",
    summary="Reports a `PyNcclConnector` (or, before vLLM 0.10, `MooncakeConnector`) prefill/decode pair whose "
            "tensor-parallel sizes differ.",
    why="The v0 `SimpleConnector` behind these names opens two pipes per rank (`port_offset_base = 2 * rank`) and "
        "pairs prefill rank i with decode rank i: with different TP sizes ranks are left without a peer and the "
        "KV send/receive blocks, or heads are exchanged between ranks that hold different slices. vLLM's v0 "
        "disaggregated prefill required the same parallel configuration on both instances.",
    fix="Use the same `--tensor-parallel-size` on both roles (or move to a v1 connector such as NixlConnector, "
        "which supports heterogeneous TP).",
    example="# prefill\nvllm serve M -tp 2 --kv-transfer-config '{\"kv_connector\":\"PyNcclConnector\","
            "\"kv_role\":\"kv_producer\",\"kv_rank\":0,\"kv_parallel_size\":2}'\n# decode\nvllm serve M -tp 1 "
            "--kv-transfer-config '{\"kv_connector\":\"PyNcclConnector\",\"kv_role\":\"kv_consumer\",\"kv_rank\":1,"
            "\"kv_parallel_size\":2}'",
    example_fixed="# both -tp 2",
    source="vllm/distributed/kv_transfer/kv_connector/simple_connector.py:76 (0.9.2: 2 pipes for every rank in the "
           "world); registered in kv_connector/factory.py:90 up to 0.9.2, gone from 0.10.0")
def _pynccl(p, d, pi, di):
    if pi is None or di is None:
        return None
    pc, dc = _v0_conns(pi), _v0_conns(di)
    if not pc or not dc:
        return None
    tp = _tp_pair(p, d, pi, di)
    if tp is None or tp[0] == tp[1]:
        return None
    a, b = tp
    return _edit_tp(p, d, pi, di, a, b,
                    f"{'/'.join(dc)} pairs each prefill rank with the decode "
                    f"rank of the same index, but the prefill runs tensor parallel size {a} and the decode {b}: "
                    f"the KV hand-off blocks")


# ---------------------------------------------------------------------------
# LMCache over NIXL
# ---------------------------------------------------------------------------

def lmcache_nixl(launch, info: VllmInfo) -> Optional[str]:
    """How the launch's LMCache is told to move KV over NIXL (its config file or environment), or None."""
    cfg = info.lmcache or {}
    env = launch.env

    def truthy(v) -> bool:
        return str(v).strip().lower() in ("true", "1", "yes")

    for key in ("enable_nixl", "enable_pd"):
        if truthy(cfg.get(key)):
            return f"{key}: true in {info.lmcache_path}"
        tok = env.get("LMCACHE_" + key.upper())
        if tok is not None and not tok.opaque and truthy(tok.text):
            return f"LMCACHE_{key.upper()}={tok.text}"
    if str(cfg.get("transfer_channel", "")).lower() == "nixl":
        return f"transfer_channel: nixl in {info.lmcache_path}"
    return None


@vllm_rule(
    "VLLM024", "lmcache-nixl-tp-differs", kind="pair",
    summary="Reports an `LMCacheConnectorV1` prefill/decode pair that moves KV over LMCache's NIXL channel "
            "(`enable_nixl` / `enable_pd` in the LMCache config file named by `LMCACHE_CONFIG_FILE`, or the "
            "`LMCACHE_ENABLE_NIXL` / `LMCACHE_ENABLE_PD` variables) with different tensor-parallel sizes.",
    why="LMCache's PD sender on prefill rank i pushes its KV chunks to receiver rank i (one NIXL channel per TP "
        "worker, chunk keys carry the world size and worker id): with different TP sizes the ranks without a "
        "peer wait forever and requests hang (LMCache/LMCache#1142, #1342).",
    fix="Run prefill and decode with the same `--tensor-parallel-size` when LMCache transfers the KV.",
    example="# prefill (LMCACHE_CONFIG_FILE=prefiller.yaml: enable_nixl: true)\nvllm serve M -tp 2 "
            "--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_producer\"}'\n"
            "# decode\nvllm serve M -tp 1 --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\","
            "\"kv_role\":\"kv_consumer\"}'",
    example_fixed="# both -tp 2", env=("LMCACHE_CONFIG_FILE", "LMCACHE_ENABLE_NIXL", "LMCACHE_ENABLE_PD"),
    source="LMCache lmcache/v1/storage_backend/pd_backend.py / nixl connector (one channel per TP rank); "
           "LMCache/LMCache#1142")
def _lmcache_tp(p, d, pi, di):
    if pi is None or di is None:
        return None
    if not any("LMCache" in c for c in _conns(pi)) or not any("LMCache" in c for c in _conns(di)):
        return None
    how = lmcache_nixl(p, pi) or lmcache_nixl(d, di)
    tp = _tp_pair(p, d, pi, di)
    if how is None or tp is None or tp[0] == tp[1]:
        return None
    a, b = tp
    # (the channel its config names: `transfer_channel: "hccl"` on Ascend, field test rw23/a; NIXL by default)
    channel = next((str(c) for c in ((pi.lmcache or {}).get("transfer_channel"),
                                     (di.lmcache or {}).get("transfer_channel")) if c), "nixl")
    return _edit_tp(p, d, pi, di, a, b,
                    f"LMCache moves the KV over {channel.upper()} ({how}) rank by rank, but the prefill runs tensor "
                    f"parallel size {a} and the decode {b}: the ranks without a peer wait and requests hang")


def lmcache_pd(launch, info: VllmInfo) -> Optional[str]:
    """How the launch's LMCache turns its PD backend on (``enable_pd`` / the older ``enable_xpyd`` in its config
    file, ``LMCACHE_ENABLE_PD`` over it), or None."""
    tok = launch.env.get("LMCACHE_ENABLE_PD")
    if tok is not None:
        on = not tok.opaque and tok.text.strip().lower() in ("true", "1", "yes")
        return f"LMCACHE_ENABLE_PD={tok.text}" if on else None
    cfg = info.lmcache or {}
    for key in ("enable_pd", "enable_xpyd"):
        if str(cfg.get(key, "")).strip().lower() in ("true", "1", "yes"):
            return f"{key}: true in {info.lmcache_path}"
    return None


@vllm_rule(
    "VLLM050", "lmcache-pd-port-list-short", kind="launch",
    summary="Reports an `LMCacheConnectorV1` launch whose LMCache PD backend is on (`enable_pd: true`) and whose "
            "`pd_peer_init_port` / `pd_peer_alloc_port` / `pd_peer_query_port` list (in the config file "
            "`LMCACHE_CONFIG_FILE` names, or the `LMCACHE_PD_PEER_*` variables) has fewer ports than the server "
            "has workers (tensor parallel size x pipeline parallel size).",
    why="LMCache gives each vLLM worker the port at its rank in the list (`config.pd_peer_init_port[tp_rank]`, "
        "the rank vLLM's parallel config gives the worker): a worker whose rank is past the end of the list stops "
        "with `IndexError: list index out of range` while the server starts, and the server with it.",
    fix="List one port per worker (as many as tensor parallel size x pipeline parallel size), in the config "
        "file and in the peer's matching list.",
    example="# LMCACHE_CONFIG_FILE=decoder.yaml: enable_pd: true, pd_peer_init_port: [7300, 7301]\n"
            "vllm serve M --tensor-parallel-size 4 --kv-transfer-config "
            "'{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_consumer\"}'",
    example_fixed="# decoder.yaml: pd_peer_init_port: [7300, 7301, 7302, 7303]",
    upstream="IndexError: list index out of range",
    env=("LMCACHE_CONFIG_FILE", "LMCACHE_ENABLE_PD", "LMCACHE_PD_PEER_INIT_PORT", "LMCACHE_PD_PEER_ALLOC_PORT",
         "LMCACHE_PD_PEER_QUERY_PORT"),
    source="LMCache 0.5.6 lmcache/v1/storage_backend/pd_backend.py:145-158 (PDConfig.from_cache_engine_config: "
           "the port lists indexed by tp_rank), lmcache/integration/vllm/utils.py:433 (worker_id = the parallel "
           "config's rank), lmcache/v1/config.py:245-259 (the lists, `_to_int_list`: a number is a list of one; "
           "`nixl_peer_*_port` the older names)",
    notes="Found in shengyan-chen/lmcache-ascend-deploy (GLM-5.1 1p1d: eight ports for tensor parallel size 16, "
          "field test rw23/a). Not reported when the PD backend is off (the lists are read by it only), nor when "
          "a size or a list is a value pdlint cannot see. In a config file of more than 20,000 YAML nodes the "
          "list is reported at its key's line.")
def _lmcache_ports_short(launch, info):
    if not isinstance(info, VllmInfo) or not info.lmcache_ports or not any("LMCache" in c for c in _conns(info)):
        return None
    how = lmcache_pd(launch, info)
    tp = _tp(info)
    pp_tok = info.token("--pipeline-parallel-size")
    if how is None or tp is None or (pp_tok is not None and pp_tok.opaque):
        return None
    pp = info.int("--pipeline-parallel-size", 1) or 1
    workers = tp * pp
    out = []
    for key, (count, tok, name) in sorted(info.lmcache_ports.items()):
        if count >= workers:
            continue
        size = f"tensor parallel size {tp}" + (f" x pipeline parallel size {pp}" if pp != 1 else "")
        rel = [related_at(info.token("--tensor-parallel-size"), launch, f"the server runs {size}")] \
            if info.token("--tensor-parallel-size") is not None else []
        out.append(VHit(f"LMCache's PD backend ({how}) gives each of the server's {workers} workers ({size}) the "
                        f"port at its rank in {name}, which lists {count}: the workers of rank {count} and up stop "
                        f"with IndexError and the server does not start", tok, rel))
    return out


# ---------------------------------------------------------------------------
# Dynamo vLLM worker modes
# ---------------------------------------------------------------------------

def dynamo_release(launch) -> Optional[str]:
    from pdlint.engines import dynamo_image_release
    return dynamo_image_release(launch.meta.get("image"))


def mode_enum(launch) -> bool:
    """Does the launch's Dynamo release have vLLM's ``--disaggregation-mode`` (1.0 and later; assumed when
    no image tag pins a release)?  Before it, ``--is-prefill-worker`` is the only role flag."""
    rel = dynamo_release(launch)
    return rel is None or version_key(rel) >= version_key(DYNAMO_MODE_ENUM)


@vllm_rule(
    "VLLM025", "dynamo-decode-worker-without-mode", kind="unit", roles=("decode",),
    summary="Reports a `python -m dynamo.vllm` worker that its deployment makes the decode worker (a CRD "
            "component, a values section, a file named for decode beside the prefill's) but that has no "
            "`--disaggregation-mode` (nor the legacy `--is-decode-worker`), when the same deployment (one "
            "manifest, one script, sibling files) also runs a prefill worker, in Dynamo releases with that "
            "option (1.0 and later).",
    why="Dynamo's `--disaggregation-mode` defaults to `agg`: the worker registers as an aggregated `backend` "
        "worker that needs no prefill peer, publishes KV events and serves whole requests itself, so the "
        "deployment's prefill tier is bypassed or requests are routed to a worker that does not expect "
        "transferred KV.",
    fix="Add `--disaggregation-mode decode` to the decode worker's command.",
    example="# decode worker (beside a --disaggregation-mode prefill worker)\npython3 -m dynamo.vllm --model M "
            "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    example_fixed="python3 -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config "
                  "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    source="ai-dynamo 1.0.0 dynamo/vllm/backend_args.py:32 (--disaggregation-mode, default agg), "
           "dynamo/vllm/args.py:150-170 (anything but prefill registers as 'backend'); 1.6.1 "
           "dynamo/vllm/worker_factory.py:1527-1537 (AGGREGATED registers as an aggregated worker that needs no "
           "prefill peer)",
    notes="Not reported for a deployment without a prefill worker: Dynamo's aggregated examples name their only "
          "worker `VllmDecodeWorker` (examples/backends/vllm/deploy/agg.yaml), and that worker is meant to run "
          "aggregated (the default). Not reported where an operator injects the role flag itself (KServe), nor "
          "for images of Dynamo releases before 1.0 (`vllm-runtime:0.x`), which used `--is-prefill-worker` "
          "alone, nor, with no Dynamo release pinned, when the deployment's prefill worker uses "
          "`--is-prefill-worker` (written for those releases; VLLM003 names the migration). A DynamoGraphDeployment's `subComponentType: decode` only labels the service: the operator "
          "passes the args as written, and a decode worker without the mode registers as aggregated "
          "(ai-dynamo/dynamo#13037 on release 1.4.0: the model never became ready; #11467).")
def _decode_without_mode(dep):
    prefill = next((l for l in dep.servers if _is_prefill(l)), None)
    if prefill is None:
        return None  # an aggregated deployment: its worker's name alone makes it no decode worker
    if dynamo_release(prefill) is None and isinstance(prefill.parsed, VllmInfo) and \
            prefill.parsed.has("--is-prefill-worker"):
        # no Dynamo release pinned and the prefill worker written with the legacy flag (Dynamo before 1.0,
        # where a worker without one is the decode worker): the deployment targets those releases; its
        # VLLM003 names the migration
        return None
    out = []
    for l in dep.servers:
        hit = _decode_without_mode_at(l, l.parsed)
        if hit is not None:
            hit.related.append(related_at(prefill.command[-1] if prefill.command else None, prefill,
                                          "the deployment's prefill worker"))
            out.append(hit)
    return out


def _is_prefill(launch) -> bool:
    """A prefill worker of the deployment: its flags or its structure (service, file name) say prefill."""
    return launch.role == "prefill" or launch.structural_role == "prefill"


def _decode_without_mode_at(launch, info) -> Optional[VHit]:
    if info is None or not isinstance(info, VllmInfo) or not info.dynamo or launch.incomplete:
        return None
    if launch.structural_role != "decode":
        return None
    if launch.meta.get("injects_role") and launch.meta.get("resource_kind") != "DynamoGraphDeployment":
        return None  # the Dynamo operator does not add the mode to vLLM workers (ai-dynamo/dynamo#13037, #11467)
    if info.has("--disaggregation-mode") or info.has("--is-decode-worker") or info.has("--is-prefill-worker"):
        return None
    if not mode_enum(launch):
        return None
    how = launch.meta.get("role_how") or "its structure"
    return VHit(f"{how} makes this the decode worker, but it has no --disaggregation-mode: Dynamo "
                f"{dynamo_release(launch) or '1.x'} starts it as an aggregated worker (--disaggregation-mode "
                f"defaults to agg)", launch.command[-1] if launch.command else None,
                [Related(o.path, o.line, o.column, f"{how} names the decode role")
                 for o in [launch.structural_origin] if o is not None], launch=launch)


@vllm_rule(
    "VLLM035", "dynamo-prefill-worker-without-mode", kind="launch", severity=WARNING, roles=("prefill",),
    summary="Reports a `python -m dynamo.vllm` worker that its deployment makes the prefill worker (a "
            "DynamoGraphDeployment service's `subComponentType: prefill` or name, a values section, a file named "
            "for prefill) but whose command has neither `--disaggregation-mode prefill` (Dynamo 1.0 and later) "
            "nor `--is-prefill-worker` (before 1.0).",
    why="Dynamo's vLLM worker takes its role from its command line only, and the Dynamo operator passes a "
        "service's args as written. Without the flag the worker registers as a decode worker (before 1.0) or "
        "an aggregated one (`--disaggregation-mode` defaults to `agg`): the deployment has no prefill tier, "
        "every request is prefilled where it is decoded, and a planner that scales the prefill service scales "
        "decode capacity instead.",
    fix="Add `--disaggregation-mode prefill` (Dynamo 1.0 and later) or `--is-prefill-worker` (earlier releases) "
        "to the prefill worker's command.",
    example="# VllmPrefillWorker (subComponentType: prefill), image vllm-runtime:0.8.0\n"
            "python3 -m dynamo.vllm --model M --migration-limit=3",
    example_fixed="python3 -m dynamo.vllm --model M --migration-limit=3 --is-prefill-worker",
    source="ai-dynamo 0.8 components/backends/vllm/src/dynamo/vllm/main.py (the role from --is-prefill-worker); "
           "1.0.0 dynamo/vllm/backend_args.py:32 (--disaggregation-mode, default agg)",
    notes="NVIDIA/nim-deploy's AKS workshop copied Dynamo's disagg_planner.yaml without the prefill service's "
          "`--is-prefill-worker` (field test rw12/d). Not reported where an operator other than Dynamo's injects "
          "the role flag (KServe), nor for a worker whose role pdlint read from its flags.")
def _prefill_without_mode(launch, info):
    if not isinstance(info, VllmInfo) or not info.dynamo or launch.incomplete or launch.structural_role != "prefill":
        return None
    if launch.meta.get("injects_role") and launch.meta.get("resource_kind") != "DynamoGraphDeployment":
        return None
    if info.has("--disaggregation-mode") or info.has("--is-prefill-worker") or info.has("--is-decode-worker"):
        return None
    how = launch.meta.get("role_how") or "its structure"
    rel = dynamo_release(launch)
    flag = "--disaggregation-mode prefill" if mode_enum(launch) else "--is-prefill-worker"
    starts = ("an aggregated worker (--disaggregation-mode defaults to agg)" if mode_enum(launch)
              else "a decode worker")
    return VHit(f"{how} makes this the prefill worker, but its command has no {flag}: Dynamo {rel or '1.x'} starts "
                f"it as {starts}, and the deployment has no prefill tier", launch.command[-1] if launch.command
                else None, [Related(o.path, o.line, o.column, f"{how} names the prefill role")
                            for o in [launch.structural_origin] if o is not None], launch=launch)


@vllm_rule(
    "VLLM026", "dynamo-prefill-without-kv-transfer-config", kind="launch", roles=("prefill",),
    summary="Reports a `python -m dynamo.vllm --disaggregation-mode prefill` (or legacy `--is-prefill-worker`) "
            "worker without `--kv-transfer-config`, in Dynamo 1.0 and later.",
    why="Dynamo stops the worker at start-up: \"--connector is deprecated and the default is no longer nixl. When "
        "using --disaggregation-mode prefill, you must explicitly provide --kv-transfer-config.\" (older releases "
        "defaulted to NIXL).",
    fix="Add `--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'` (or the "
        "connector you use) to the prefill worker.",
    example="python3 -m dynamo.vllm --model M --disaggregation-mode prefill",
    example_fixed="python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config "
                  "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    upstream="--connector is deprecated and the default is no longer nixl. When using --disaggregation-mode "
             "prefill, you must explicitly provide --kv-transfer-config.",
    source="ai-dynamo 1.0.0 dynamo/vllm/args.py:203, 1.6.1 dynamo/vllm/args.py:296")
def _prefill_without_kv(launch, info):
    if info is None or not isinstance(info, VllmInfo) or not info.dynamo or launch.incomplete:
        return None
    mode = info.text("--disaggregation-mode")
    # the legacy --is-prefill-worker is the prefill mode in Dynamo 1.0 (backend_args.py:420-426: it sets
    # disaggregation_mode = PREFILL before the check): dcotroneCLT/llm-serving-bench's worker "exits 1"
    # (only with a release pinned: the legacy flag itself says the file was written for a release before 1.0,
    # where it was the role flag and NIXL the default connector - VLLM003 says it is deprecated)
    legacy = mode is None and info.has("--is-prefill-worker") and not info.has("--is-decode-worker") and \
        dynamo_release(launch) is not None
    if not (legacy or (mode is not None and mode.lower() == "prefill")) or info.kv is not None or \
            info.has("--kv-transfer-config"):
        return None
    if not mode_enum(launch):
        return None
    opt = info.opts.get("--is-prefill-worker" if legacy else "--disaggregation-mode")
    return VHit("--connector is deprecated and the default is no longer nixl. When using --disaggregation-mode "
                "prefill, you must explicitly provide --kv-transfer-config." +
                (" (Dynamo reads --is-prefill-worker as --disaggregation-mode prefill)" if legacy else ""),
                opt.value or opt.name_tok)


@vllm_rule(
    "VLLM036", "dynamo-prefill-with-connector-null", kind="launch", severity=WARNING, roles=("prefill",),
    summary="Reports a `python -m dynamo.vllm` prefill worker (`--is-prefill-worker`, or "
            "`--disaggregation-mode prefill`) of a Dynamo release before 1.0 started with `--connector null` (or "
            "`none`): no KV connector.",
    why="Dynamo before 1.0 builds no `kv_transfer_config` for `--connector null` (dynamo/vllm/args.py: an empty "
        "connector list), but its frontend still routes every request to the prefill worker first and hands the "
        "decode worker the prefill's `kv_transfer_params`, which a worker without a connector ignores: the decode "
        "worker computes the whole prompt again. Every prompt is prefilled twice and the prefill tier only adds "
        "latency.",
    fix="Start the prefill and decode workers with a KV connector (`--connector nixl`, the default), or run "
        "one aggregated worker without `--is-prefill-worker`.",
    example="python3 -m dynamo.vllm --model M --is-prefill-worker --connector null",
    example_fixed="python3 -m dynamo.vllm --model M --is-prefill-worker --connector nixl",
    source="ai-dynamo 0.6.1 dynamo/vllm/args.py:202-218 (none/null: connector_list = []), :334-336 (no "
           "kv_transfer_config), handlers.py:175-186 (decode: kv_transfer_params from the prefill router)",
    notes="vllm-project/semantic-router's Dynamo resources and Helm chart default (`connector: \"null\"`, "
          "\"null for disaggregated mode\", field test rw12/d). From 1.0 `--connector` is deprecated and a prefill "
          "worker without `--kv-transfer-config` stops at start-up (VLLM026). Reported for a release before 1.0 "
          "(an image tag), or, with none pinned, for a worker written with `--is-prefill-worker`.")
def _prefill_connector_null(launch, info):
    if not isinstance(info, VllmInfo) or not info.dynamo or launch.incomplete or info.has("--kv-transfer-config"):
        return None
    opt = info.opts.get("--connector")
    if opt is None or opt.value is None:
        return None
    values = [opt.value] + list(opt.extra)
    if any(v.opaque for v in values) or not all(v.text.strip().lower() in ("null", "none") for v in values):
        return None
    mode = info.text("--disaggregation-mode")
    prefill = (mode or "").lower() == "prefill" or (mode is None and info.has("--is-prefill-worker"))
    if not prefill:
        return None
    rel = dynamo_release(launch)
    if rel is not None and mode_enum(launch):
        return None  # 1.0 and later: VLLM026
    if rel is None and not info.has("--is-prefill-worker"):
        return None
    return VHit(f"--connector {opt.value.text} gives this prefill worker no KV connector: Dynamo "
                f"{rel or 'before 1.0'} still sends each request's prefill here first, and the decode worker, "
                f"given no transferable KV cache, computes the whole prompt again", opt.value)


def _dynamo_mode(info) -> Optional[str]:
    """The role a ``python -m dynamo.vllm`` command line names (mode or legacy flag); None when it names none."""
    mode = info.text("--disaggregation-mode")
    if mode is not None:
        return mode.lower()
    if info.has("--is-prefill-worker"):
        return "prefill"
    if info.has("--is-decode-worker"):
        return "decode"
    return None


@vllm_rule(
    "VLLM027", "dynamo-prefill-without-decode-worker", kind="unit", severity=WARNING, roles=("decode",),
    summary="Reports a `python -m dynamo.vllm` worker without `--disaggregation-mode` in a deployment (one script, "
            "one manifest) whose other workers are `--disaggregation-mode prefill` and none `decode`, in Dynamo "
            "releases with that option (1.0 and later).",
    why="Without the mode the worker starts aggregated (the default `agg`), so the deployment has prefill workers "
        "and no decode worker: the prefill workers' requests have nowhere to hand their KV to (in Dynamo 1.4.0 a "
        "prefill worker needs a decode worker and the model is never exposed, ai-dynamo/dynamo#13037). A "
        "migration from `--is-prefill-worker` that updated only the prefill command leaves exactly this "
        "(ai-dynamo/dynamo#12089, `disagg_flexkv.sh`).",
    fix="Add `--disaggregation-mode decode` to the worker that should decode.",
    example="python -m dynamo.vllm --model M --kv-transfer-config '{...}' &\n"
            "python -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config '{...}'",
    example_fixed="python -m dynamo.vllm --model M --disaggregation-mode decode --kv-transfer-config '{...}' &\n"
                  "python -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config '{...}'",
    source="ai-dynamo 1.0.0 dynamo/vllm/backend_args.py:32 (--disaggregation-mode, default agg)",
    notes="A warning: a deployment may mean to run an aggregated worker beside prefill workers of another "
          "deployment. Where the structure names the decode worker (a CRD component, a file named for decode) "
          "VLLM025 reports it instead.")
def _prefill_without_decode(dep):
    workers = [(l, l.parsed) for l in dep.servers
               if isinstance(l.parsed, VllmInfo) and l.parsed.dynamo and not l.incomplete]
    modes = [(l, info, _dynamo_mode(info)) for l, info in workers]
    if not any(m == "prefill" for _, _, m in modes) or any(m == "decode" for _, _, m in modes):
        return None
    if any(l.structural_role == "decode" for l, _, _ in modes):
        return None  # VLLM025's
    out = []
    prefill = next(l for l, _, m in modes if m == "prefill")
    for l, info, m in modes:
        if m is not None or not mode_enum(l) or l.meta.get("injects_role") and \
                l.meta.get("resource_kind") != "DynamoGraphDeployment":
            continue
        out.append(VHit(f"this dynamo.vllm worker has no --disaggregation-mode, so Dynamo "
                        f"{dynamo_release(l) or '1.x'} starts it aggregated, and the deployment's prefill worker "
                        f"has no decode worker to hand its KV to", l.command[-1] if l.command else None,
                        [related_at(prefill.command[-1] if prefill.command else None, prefill,
                                    "the prefill worker")], launch=l))
    return out
