"""vLLM PD rules: KV connector configuration, roles, and the pair's agreement.

``info`` is the launch's :class:`~pdlint.engines.vllm.engine.VllmInfo`
(options, traced ``--kv-transfer-config`` JSON, model).
"""

from __future__ import annotations

import re

from pdlint import lazyre
from pdlint.engines.vllm.engine import KV_ROLES, VllmInfo
from pdlint.engines.vllm.flags import kv_releases_with
from pdlint.engines.vllm.flags import release_span as _span
from pdlint.engines.vllm.rulebase import WARNING, VHit, related_at, same_model, vllm_rule
from pdlint.engines.vllm.rules.parallel import DYNAMO_MODE_ENUM, dynamo_release, mode_enum
from pdlint.model import Launch

_ROLE_OF_KV = {"prefill": "kv_producer", "decode": "kv_consumer"}
_WILDCARD_HOSTS = {"0.0.0.0", "::", "[::]", "*"}


def _info(launch: Launch):
    info = launch.parsed
    return info if isinstance(info, VllmInfo) else None


def _shell_launch(launch: Launch) -> bool:
    from pdlint.pairing import shell_launch
    return shell_launch(launch)


def _controller_owned(launch: Launch) -> bool:
    m = launch.meta
    return bool(m.get("controller_generated") or m.get("injects_role") or m.get("keyed"))


#: controllers that pass a ``--kv-transfer-config`` the manifest writes as written
_PASSES_CONFIG = frozenset({
    # the Dynamo operator: a DynamoGraphDeployment worker's args (DO-Solutions/gtc-2026-doks, field test rw6/d:
    # `kv_role: kv_bogus` passed in a DGD, an error on the same shell line)
    "DynamoGraphDeployment",
    # KServe: its prefill/decode templates add their own config only when neither VLLM_ADDITIONAL_ARGS nor the
    # args hold one (kserve config-llm-prefill-template.yaml); Open Data Hub's passes VLLM_ADDITIONAL_ARGS verbatim
    # (aneeshkp/llm-d-conformance-manifests, field test rw11/a: `NixlConector` there fails as in a plain Pod)
    "LLMInferenceService", "LLMInferenceServiceConfig"})
# (a launch whose adapter knows its chart passes the args as written says so: ``meta['config_as_written']``,
# llm-d-modelservice's vllmServe containers, field test rw19/a: `kv_role: kv_bogus` passed there)


def _config_rewritten(launch: Launch) -> bool:
    """May an operator write the ``--kv-transfer-config`` this launch's engine reads?  Not one that passes
    the manifest's as written (:data:`_PASSES_CONFIG`), nor a launch whose adapter knows its tool passes the
    config as written (``meta['config_as_written']``: llm-d-modelservice's vllmServe containers, Ray Serve LLM
    ``engine_kwargs``, srt-slurm ``vllm_config`` sections)."""
    return _controller_owned(launch) and launch.meta.get("resource_kind") not in _PASSES_CONFIG and \
        not launch.meta.get("config_as_written")


# ---------------------------------------------------------------------------
# one launch
# ---------------------------------------------------------------------------

@vllm_rule(
    "VLLM001", "kv-transfer-config-invalid-json", kind="launch",
    summary="Reports a `--kv-transfer-config` (or `--kv_transfer_config`) value that is not valid JSON after shell "
            "expansion and quoting.",
    why="vLLM parses the value with `json.loads` while reading its arguments and refuses to start. Quote splicing "
        "(`'{\"kv_ip\":\"'\"$IP\"'\"}'`) and YAML folding make this easy to get wrong, and the broken spot is hard to "
        "see in the rendered command.",
    fix="Fix the JSON at the reported character (quotes, commas, braces), or build it in a single-quoted string.",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":kv_both}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    source="vllm/engine/arg_utils.py (json.loads of config arguments)",
    notes="An srt-slurm recipe's `kv-transfer-config` written as a YAML mapping is reported too: srtctl passes a "
          "mapping as Python's `str()` of it, single-quoted, not JSON (NVIDIA/srt-slurm "
          "src/srtctl/backends/vllm.py `_config_to_cli_args`).")
def _invalid_json(launch, info):
    if info is None or info.kv is None or info.kv.error is None or info.kv.tok.opaque:
        return None
    e = info.kv.error
    tok = info.kv.tok
    at = tok[e.pos:e.pos + 1] if 0 <= e.pos < len(tok) else tok
    why = ""
    if launch.meta.get("srtctl_str") and tok.text.startswith("{'"):
        # srtctl's _config_to_cli_args writes a mapping value as `str(value)` (NVIDIA/srt-slurm backends/vllm.py)
        why = "; srtctl passes a YAML mapping as Python's str() of it, which is not JSON: write the value as a " \
              "JSON string (kv-transfer-config: '{\"kv_connector\": ...}')"
        opt = info.opts.get("--kv-transfer-config")
        at = opt.name_tok if opt is not None and opt.value is tok else tok  # the key to rewrite
    return VHit(f"--kv-transfer-config is not valid JSON ({e.message}){why}; vLLM refuses to start", at)


@vllm_rule(
    "VLLM002", "kv-role-contradicts-role-flag", kind="launch",
    summary="Reports a Dynamo vLLM worker whose role flag (`--disaggregation-mode`, `--is-prefill-worker`, "
            "`--is-decode-worker`) names one role while its `--kv-transfer-config` `kv_role` names the other "
            "(a decode worker with `kv_producer`, a prefill worker with `kv_consumer`).",
    why="Dynamo routes the worker as its role flag says, while the KV connector behaves as `kv_role` says: a "
        "decode worker that is a KV producer never receives the prefill's KV (vllm-project/vllm#11490: a decode "
        "container launched with the prefill's `kv_producer` config failed).",
    fix="Make `kv_role` agree with the worker's role (`kv_producer` on prefill, `kv_consumer` on decode), or use "
        "`kv_both`.",
    example="python3 -m dynamo.vllm --disaggregation-mode decode --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}'",
    example_fixed="python3 -m dynamo.vllm --disaggregation-mode decode --kv-transfer-config "
                  "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    upstream_id="launch-templates.md 7.7", notes="A kv_role that contradicts the structure (a CRD role, a values "
                                                 "section) is PD101.")
def _kv_role_vs_flag(launch, info):
    if info is None or not info.dynamo or launch.role not in ("prefill", "decode"):
        return None
    kr = info.kv_role
    if kr not in KV_ROLES or KV_ROLES[kr] == launch.role:
        return None
    node = info.kv.get("kv_role")
    flag = info.opts.get("--disaggregation-mode") or info.opts.get("--is-prefill-worker") or \
        info.opts.get("--is-decode-worker")
    rel = [related_at(flag.value or flag.name_tok, launch, f"{info.role_from} makes this the {launch.role} worker")] \
        if flag is not None else []
    return VHit(f"this {launch.role} worker's --kv-transfer-config says kv_role {kr!r} (the {KV_ROLES[kr]} side); "
                f"a {launch.role} worker needs {_ROLE_OF_KV[launch.role]!r} or 'kv_both'", node.tok, rel)


@vllm_rule(
    "VLLM003", "dynamo-legacy-role-flag", kind="launch", severity=WARNING,
    summary="Reports `--is-prefill-worker` / `--is-decode-worker` on `python -m dynamo.vllm`, in Dynamo releases "
            "with `--disaggregation-mode` (1.0 and later, or no release pinned).",
    why="Dynamo deprecated the boolean role flags for `--disaggregation-mode` (\"--is-prefill-worker is "
        "deprecated, use --disaggregation-mode=prefill\") and later releases no longer accept them (Dynamo's own "
        "tooling strips them: \"AIC may still emit the removed vLLM role flags\"): a manifest written for an old "
        "release fails to start, or starts as an aggregated worker, on a new image.",
    fix="Use `--disaggregation-mode prefill` / `--disaggregation-mode decode`.",
    example="python3 -m dynamo.vllm --model M --is-prefill-worker",
    example_fixed="python3 -m dynamo.vllm --model M --disaggregation-mode prefill --kv-transfer-config '...'",
    upstream="--is-prefill-worker is deprecated, use --disaggregation-mode=prefill",
    source="ai-dynamo/dynamo components/src/dynamo/vllm/args.py",
    notes="Not reported on an image of a Dynamo release before 1.0 (`vllm-runtime:0.5.0`): there the legacy flags "
          "are the only role flags, and `--disaggregation-mode` is an unrecognized argument (ai-dynamo 0.5.0 and "
          "0.9.1 dynamo/vllm/args.py).")
def _legacy_flag(launch, info):
    if info is None or not info.dynamo:
        return None
    if not mode_enum(launch):
        return None  # the pinned release has no --disaggregation-mode to write instead
    out = []
    for flag, mode in (("--is-prefill-worker", "prefill"), ("--is-decode-worker", "decode")):
        o = info.opts.get(flag)
        if o is not None:
            out.append(VHit(f"{flag} is deprecated in Dynamo (\"{flag} is deprecated, use "
                            f"--disaggregation-mode={mode}\") and removed in later releases; write "
                            f"--disaggregation-mode {mode}", o.name_tok))
    return out


@vllm_rule(
    "VLLM004", "dynamo-role-flags-conflict", kind="launch",
    summary="Reports a Dynamo vLLM worker with both legacy role flags, or a legacy role flag together with "
            "`--disaggregation-mode`.",
    why="Dynamo refuses to start: \"Cannot set both --is-prefill-worker and --is-decode-worker\" / \"Cannot "
        "combine --is-prefill-worker/--is-decode-worker with --disaggregation-mode. Use only "
        "--disaggregation-mode.\"",
    fix="Keep only `--disaggregation-mode`.",
    example="python3 -m dynamo.vllm --is-prefill-worker --disaggregation-mode prefill",
    example_fixed="python3 -m dynamo.vllm --disaggregation-mode prefill",
    upstream="Cannot combine --is-prefill-worker/--is-decode-worker with --disaggregation-mode. Use only "
             "--disaggregation-mode.",
    source="ai-dynamo/dynamo components/src/dynamo/vllm/args.py")
def _flags_conflict(launch, info):
    if info is None or not info.dynamo:
        return None
    p, d = info.opts.get("--is-prefill-worker"), info.opts.get("--is-decode-worker")
    mode = info.opts.get("--disaggregation-mode")
    if (p or d) and mode is not None and mode_enum(launch):  # (before 1.0 the mode is unknown: VLLM033)
        return VHit("Cannot combine --is-prefill-worker/--is-decode-worker with --disaggregation-mode. Use only "
                    "--disaggregation-mode.", (p or d).name_tok,
                    [related_at(mode.name_tok, launch, "--disaggregation-mode is set here")])
    if p and d:
        return VHit("Cannot set both --is-prefill-worker and --is-decode-worker", d.name_tok,
                    [related_at(p.name_tok, launch, "--is-prefill-worker is set here")])
    return None


@vllm_rule(
    "VLLM033", "dynamo-mode-flag-before-1-0", kind="launch",
    summary="Reports `--disaggregation-mode` on `python -m dynamo.vllm` when the image pins a Dynamo release "
            "before 1.0, whose vLLM worker does not define it.",
    why="Dynamo's vLLM worker parses its command line with vLLM's argparse-based parser and stops at an option it "
        "does not define: `dynamo.vllm: error: unrecognized arguments: --disaggregation-mode prefill`. The option "
        "came in Dynamo 1.0; before it the role flags are `--is-prefill-worker` and `--is-decode-worker`. A "
        "manifest written for a 1.x image and run on an older tag (or the other way round) fails at start-up.",
    fix="On that release use `--is-prefill-worker` (prefill) or `--is-decode-worker` (decode), or pin a Dynamo "
        "1.0 or later image.",
    example="image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0\ncommand: [python3, -m, dynamo.vllm, --model, M, "
            "--disaggregation-mode, prefill]",
    example_fixed="image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0\ncommand: [python3, -m, dynamo.vllm, "
                  "--model, M, --is-prefill-worker]",
    upstream="unrecognized arguments: --disaggregation-mode",
    source="ai-dynamo 0.5.0 and 0.9.1 dynamo/vllm/args.py (parse_args: --is-prefill-worker only; "
           "parser.parse_args()); 1.0.0 dynamo/vllm/backend_args.py (--disaggregation-mode)",
    notes="Only with an image tag that names a Dynamo release: with none, pdlint assumes a release that has the "
          "option.")
def _mode_before_1_0(launch, info):
    if info is None or not info.dynamo or mode_enum(launch):
        return None
    mode = info.opts.get("--disaggregation-mode")
    if mode is None:
        return None
    return VHit(f"Dynamo {dynamo_release(launch)}'s vLLM worker has no --disaggregation-mode (it came in Dynamo "
                f"{DYNAMO_MODE_ENUM}): it stops with \"unrecognized arguments: --disaggregation-mode\"; "
                f"its role flags are --is-prefill-worker and --is-decode-worker", mode.name_tok)


@vllm_rule(
    "VLLM005", "nixl-side-channel-host-wildcard", kind="unit", severity=WARNING, roles=("prefill",),
    summary="Reports `VLLM_NIXL_SIDE_CHANNEL_HOST=0.0.0.0` (or `::`) on a vLLM server that can act as the prefill "
            "side of a NixlConnector transfer (`kv_producer` or `kv_both`) and is not its deployment's decode.",
    why="The variable is not a bind address only: the prefill returns it to the decode as `remote_host` in the "
        "request's `kv_transfer_params`, and the decode dials it for the NIXL handshake. A decode on another host "
        "or pod then connects to `0.0.0.0` - itself - and the KV transfer fails, unless a proxy rewrites "
        "`remote_host`.",
    notes="Only the prefill's value is handed out (`request_finished` returns `remote_host=self.side_channel_host` "
          "for the request the prefill computed): on a server its deployment makes the decode (its flags or "
          "structure name decode, or a router names it with `--decode`) the variable is only where its own NIXL "
          "listener binds, and nothing is reported (field test rw34/a P4, vllm-project/router "
          "scripts/llama3.1/start_decode.sh). Nor when the deployment's router reaches the prefill and every "
          "decode at a loopback URL (`http://127.0.0.1:8081`): the roles share the router's host (or pod), where "
          "dialing 0.0.0.0 reaches the local listener, the case the fix's default is for. "
          "An AIBrix StormService is left alone: AIBrix's gateway, which routes its prefill/decode traffic, sets "
          "`remote_host` to the prefill pod's IP before it calls the decode (its default `shfs` KV transfer agent, "
          "vllm-project/aibrix pkg/plugins/gateway/algorithms/pd/transfer/shfs.go, since PR #1429).",
    fix="Set `VLLM_NIXL_SIDE_CHANNEL_HOST` to an address the decode can reach (the pod IP, e.g. from "
        "`status.podIP`), or leave it at its default when both roles share a host.",
    example="env:\n  - name: VLLM_NIXL_SIDE_CHANNEL_HOST\n    value: \"0.0.0.0\"",
    example_fixed="env:\n  - name: VLLM_NIXL_SIDE_CHANNEL_HOST\n    valueFrom:\n      fieldRef:\n        "
                  "fieldPath: status.podIP",
    env=("VLLM_NIXL_SIDE_CHANNEL_HOST",),
    source="vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py (request_finished: "
           "remote_host=self.side_channel_host)")
def _side_channel_wildcard(dep):
    from pdlint.pairing import pair_role
    out = []
    for launch in dep.servers:
        info = _info(launch)
        if info is None or info.kv is None or "NixlConnector" not in info.kv.connectors:
            continue
        if info.kv_role not in (None, "kv_producer", "kv_both") or launch.role == "decode":
            continue
        if launch.meta.get("resource_kind") == "StormService":
            continue  # AIBrix's gateway rewrites remote_host to the prefill pod's IP (notes)
        v = launch.env.get("VLLM_NIXL_SIDE_CHANNEL_HOST")
        if v is None or v.opaque or v.text.strip() not in _WILDCARD_HOSTS:
            continue
        role = pair_role(launch)
        if role == "decode" or _linked_as(dep, launch) == {"decode"}:
            continue  # the decode's value is only its listener's bind address: it is handed to no one
        if _one_loopback_host(dep, launch):
            continue  # the router reaches both roles on its own host: 0.0.0.0 reaches the local prefill
        where = "pods" if not _shell_launch(launch) else "hosts"
        as_prefill = "" if role == "prefill" or "prefill" in _linked_as(dep, launch) else \
            " when it serves as the prefill"
        out.append(VHit(f"VLLM_NIXL_SIDE_CHANNEL_HOST={v.text} is the address this server hands to the decode as "
                        f"remote_host for the NIXL handshake{as_prefill}: a decode on other {where} dials "
                        f"{v.text}, i.e. itself", v, launch=launch))
    return out


def _linked_as(dep, launch: Launch) -> set:
    """The roles the deployment's routers name ``launch`` with (a URL that reaches it exactly)."""
    return {k.role for k in dep.links if k.how == "url" and k.exact and any(s is launch for s in k.servers)}


def _one_loopback_host(dep, prefill: Launch) -> bool:
    """Does a router of the deployment reach ``prefill`` and every decode it names at loopback URLs (so both roles
    run on the router's host, or in its pod)?"""
    from pdlint.pairing import _LOOPBACK, parse_url
    for router in {id(k.router): k.router for k in dep.links}.values():
        links = [k for k in dep.links if k.router is router and k.how == "url"]
        pre = [k for k in links if k.role == "prefill" and k.exact and any(s is prefill for s in k.servers)]
        dec = [k for k in links if k.role == "decode"]
        if not pre or not dec:
            continue
        if all(k.token is not None and not k.token.opaque and k.servers and
               parse_url(k.token)[0].strip("[]").lower() in _LOOPBACK - {"0.0.0.0"} for k in pre + dec):
            return True
    return False


# ---------------------------------------------------------------------------
# prefill/decode pairs
# ---------------------------------------------------------------------------

def _conns(info: VllmInfo) -> list:
    return info.kv.connectors if info.kv is not None and info.kv.error is None else []


@vllm_rule(
    "VLLM010", "kv-connector-mismatch", kind="pair",
    summary="Reports a vLLM prefill and decode whose `--kv-transfer-config` name different `kv_connector`s "
            "(MultiConnector / Dynamo's PdConnector: no member in common).",
    why="Each connector has its own transfer protocol and metadata (`kv_transfer_params`): the decode cannot read "
        "what another connector's prefill produced, so it recomputes the prompt or the transfer fails.",
    fix="Use the same `kv_connector` on both roles.",
    example="# prefill\nvllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"
            "\n# decode\nvllm serve M --kv-transfer-config '{\"kv_connector\":\"MooncakeConnector\","
            "\"kv_role\":\"kv_consumer\"}'",
    example_fixed="# both\nvllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
                  "\"kv_role\":\"kv_both\"}'",
    notes="A MultiConnector (or Dynamo KVBM's PdConnector) on one side that lists the other side's connector "
          "is compatible: that member carries the KV (ai-dynamo/dynamo's disagg_kvbm examples pair a "
          "PdConnector[kvbm, NixlConnector] prefill with a NixlConnector decode).  Not reported when a side "
          "loads its connector class from the user's own module (`kv_connector_module_path`, a class that lists "
          "no member connectors): that class may subclass "
          "the other side's connector and speak its protocol (a timing wrapper `InstrumentedLMCacheConnector("
          "LMCacheConnectorV1)`, ddps-lab/vllm-disaggregation).")
def _connector_mismatch(p, d, pi, di):
    if pi is None or di is None:
        return None
    pc, dc = _conns(pi), _conns(di)
    if not pc or not dc or set(pc) & set(dc):
        return None  # a connector in common carries the KV (Dynamo KVBM: PdConnector[kvbm, NIXL] -> NixlConnector)
    if any(i.kv.get("kv_connector_module_path") is not None and i.kv.text("kv_connector") in _conns(i)
           for i in (pi, di)):
        return None  # a connector class of the user's module (not a list of members): its protocol is unknown
    ptok = pi.kv.get("kv_connector").tok
    return VHit(f"the prefill uses kv_connector {'+'.join(pc)} but the decode {'+'.join(dc)}: the decode cannot "
                f"receive KV from a different connector", di.kv.get("kv_connector").tok,
                [related_at(ptok, p, f"the prefill launch sets kv_connector {'+'.join(pc)} here")], "decode")


@vllm_rule(
    "VLLM011", "kv-connector-missing-on-one-side", kind="pair",
    summary="Reports a vLLM prefill/decode pair where one side has a `--kv-transfer-config` and the other has "
            "none (kserve/kserve#6027).",
    why="A server without a KV connector ignores the request's `kv_transfer_params` (\"Got kv_transfer_params, "
        "but no KVConnector found. Disabling KVTransfer for this request.\"): the decode recomputes every prompt "
        "and the prefill tier does nothing useful.",
    fix="Give both roles the same `--kv-transfer-config`.",
    example="# prefill\nvllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":"
            "\"kv_both\"}'\n# decode\nvllm serve M",
    example_fixed="# both\nvllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\","
                  "\"kv_role\":\"kv_both\"}'",
    upstream="Got kv_transfer_params, but no KVConnector found. Disabling KVTransfer for this request.",
    source="vllm/v1/engine/core.py (EngineCore.add_request)",
    notes="Not reported for launches whose command a controller or chart writes (KServe, Dynamo, llm-d "
          "modelservice, vllm-stack), which may inject the connector.")
def _connector_missing(p, d, pi, di):
    if pi is None or di is None:
        return None
    for launch, info in ((p, pi), (d, di)):
        if info.dynamo or _controller_owned(launch) or launch.incomplete:
            return None
    if (pi.kv is None) == (di.kv is None):
        return None
    # (the roles of the pair's places: a launch paired by its structure may have no role of its own)
    has, hi, edit, has_role = (p, pi, "decode", "prefill") if di.kv is None else (d, di, "prefill", "decode")
    return VHit(f"the {has_role} server has a KV connector ({'+'.join(_conns(hi)) or 'see its config'}) but this "
                f"{edit} server {_no_config(di if di.kv is None else pi)}: it ignores the KV hand-off (\"Got "
                f"kv_transfer_params, but no KVConnector found. Disabling KVTransfer for this request.\")", None,
                [related_at(hi.kv.tok, has, f"the {has_role} launch's --kv-transfer-config")], edit)


@vllm_rule(
    "VLLM012", "kv-parallel-size-mismatch", kind="pair",
    summary="Reports a vLLM prefill/decode pair whose `kv_parallel_size` values differ.",
    why="P2P-NCCL and PyNccl connectors build one KV group of `kv_parallel_size` members: peers that disagree on "
        "its size never complete the group rendezvous.",
    fix="Use the same `kv_parallel_size` on both roles (the number of KV peers).",
    example="... \"kv_parallel_size\":2 ...   /   ... \"kv_parallel_size\":3 ...",
    example_fixed="... \"kv_parallel_size\":2 ...   /   ... \"kv_parallel_size\":2 ...")
def _kv_parallel(p, d, pi, di):
    if pi is None or di is None or pi.kv is None or di.kv is None:
        return None
    a, b = pi.kv.get("kv_parallel_size"), di.kv.get("kv_parallel_size")
    if a is None or b is None or a.value == b.value or a.tok.opaque or b.tok.opaque:
        return None
    return VHit(f"kv_parallel_size is {a.value} on the prefill but {b.value} on the decode", b.tok,
                [related_at(a.tok, p, f"the prefill launch sets kv_parallel_size {a.value} here")], "decode")


def _model(info: VllmInfo):
    m = info.model
    if m is None or m.opaque or not m.text:
        return None
    return m.text.rstrip("/")


@vllm_rule(
    "VLLM013", "model-mismatch", kind="pair",
    summary="Reports a vLLM prefill/decode pair serving different models (the last path component differs).",
    why="The decode continues from the prefill's KV cache, which only fits the same model; vLLM does not check "
        "it (NIXL compares block geometry, other connectors nothing).",
    fix="Serve the same model on both roles.",
    example="# prefill\nvllm serve Qwen/Qwen3-8B ...\n# decode\nvllm serve Qwen/Qwen3-0.6B ...",
    example_fixed="# both\nvllm serve Qwen/Qwen3-8B ...")
def _model_mismatch(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _model(pi), _model(di)
    if a is None or b is None or same_model(a, b):
        return None
    return VHit(f"the prefill serves {a} but the decode {b}: the KV cache handed over only fits the same model",
                di.model, [related_at(pi.model, p, f"the prefill launch serves {a}")], "decode")


@vllm_rule(
    "VLLM014", "block-size-mismatch", kind="pair", severity=WARNING,
    summary="Reports a vLLM prefill/decode pair with different explicit `--block-size` values.",
    why="KV is transferred in blocks: connectors that copy block by block (P2P-NCCL, Mooncake, LMCache, older "
        "NIXL releases) need the same block size on both sides, and newer NIXL releases convert at a cost.",
    fix="Use the same `--block-size` on both roles.",
    example="# prefill\nvllm serve M --block-size 16 ...\n# decode\nvllm serve M --block-size 128 ...",
    example_fixed="# both\nvllm serve M --block-size 128 ...")
def _block_size(p, d, pi, di):
    if pi is None or di is None or not (pi.has("--block-size") and di.has("--block-size")):
        return None
    a, b = pi.text("--block-size"), di.text("--block-size")
    if a is None or b is None or a == b:
        return None
    return VHit(f"--block-size is {a} on the prefill but {b} on the decode", di.token("--block-size"),
                [related_at(pi.token("--block-size"), p, f"the prefill launch sets --block-size {a} here")], "decode")


def _lmcache_hashing(info: VllmInfo) -> bool:
    """An LMCache connector that hashes token chunks in the vLLM process; not LMCacheMPConnector, which
    sends the token ids to one ``lmcache server`` that hashes them (LMCache 0.5.6
    lmcache/integration/vllm/lmcache_mp_connector.py, lmcache/v1/multiprocess/token_hasher.py)."""
    return any("LMCache" in c and c != "LMCacheMPConnector" for c in _conns(info))


def _lmcache_shares(launch, info: VllmInfo) -> bool:
    """May the launch's LMCache share KV with another server (so that the hash seed matters)?  Yes where it is
    the only KV connector (the PD transfer), or its config or environment turns on a PD / NIXL / P2P channel or a
    remote backend, or names a config file pdlint did not read.  No for LMCache next to another transfer connector
    (a MultiConnector of NIXL and LMCache) with its defaults: a private CPU offload (LMCache 0.5.6
    lmcache/v1/config.py: local_cpu True, remote_url None, enable_p2p / enable_pd False; llm-d-routing-sidecar's
    test pods, field test rw25/a)."""
    if not any("LMCache" not in c for c in _conns(info)):
        return True
    env = launch.env
    if "LMCACHE_CONFIG_FILE" in env and info.lmcache is None:
        return True
    cfg = info.lmcache or {}

    def on(v) -> bool:
        return str(v).strip().lower() in ("true", "1", "yes")

    for key in ("enable_pd", "enable_nixl", "enable_xpyd", "enable_p2p"):
        tok = env.get("LMCACHE_" + key.upper())
        if on(cfg.get(key)) or (tok is not None and (tok.opaque or on(tok.text))):
            return True
    return bool(cfg.get("remote_url")) or "LMCACHE_REMOTE_URL" in env


@vllm_rule(
    "VLLM015", "lmcache-pythonhashseed-differs", kind="pair", severity=WARNING,
    summary="Reports an LMCache prefill/decode pair (`LMCacheConnectorV1`) whose `PYTHONHASHSEED` differs, or is "
            "set on one side only.",
    why="LMCache keys KV chunks by a hash of their tokens; with Python's built-in hash the key depends on "
        "`PYTHONHASHSEED`, so a decode with another seed never finds the chunks the prefill stored and recomputes "
        "every prompt (vLLM's LMCache disaggregated example: PYTHONHASHSEED must be identical on prefiller and "
        "decoder).",
    fix="Export the same `PYTHONHASHSEED` for both roles.",
    example="PYTHONHASHSEED=123 vllm serve M --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",...}'\n"
            "vllm serve M --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",...}'",
    example_fixed="export PYTHONHASHSEED=123  # before both launches", env=("PYTHONHASHSEED",),
    source="vllm examples/others/lmcache/disagg_prefill_lmcache_v1/disagg_vllm_launcher.sh",
    notes="Not reported for `LMCacheMPConnector`: its workers send token ids to one `lmcache server` process, "
          "which hashes them; nor for LMCache next to another KV connector (a MultiConnector of NixlConnector and "
          "LMCacheConnectorV1) with no config that shares its cache (a PD, NIXL or P2P channel, a remote backend): "
          "there each server's LMCache is a private offload.")
def _hashseed(p, d, pi, di):
    if pi is None or di is None or not (_lmcache_hashing(pi) and _lmcache_hashing(di)):
        return None
    if not (_lmcache_shares(p, pi) or _lmcache_shares(d, di)):
        return None
    a, b = p.env.get("PYTHONHASHSEED"), d.env.get("PYTHONHASHSEED")
    if (a is not None and a.opaque) or (b is not None and b.opaque):
        return None
    if (a is None and p.meta.get("env_partial")) or (b is None and d.meta.get("env_partial")):
        return None  # the process environment comes from elsewhere too (a Ray cluster's, its job's runtime_env)
    at, bt = (a.text if a is not None else None), (b.text if b is not None else None)
    if at == bt and at is not None:
        return None
    if at is None and bt is None:
        return VHit("neither LMCache server sets PYTHONHASHSEED: each process hashes KV chunk keys with its own "
                    "random seed, so the decode never finds what the prefill stored", None,
                    [related_at(None, p, "the prefill launch")], "decode")
    edit, tok, other, otok = ("decode", b, p, a) if b is None or a is not None else ("prefill", a, d, b)
    return VHit(f"PYTHONHASHSEED is {at or 'unset'} on the prefill but {bt or 'unset'} on the decode: LMCache "
                f"chunk keys differ and the decode never finds the prefill's KV", tok,
                [related_at(otok, other, f"the {'prefill' if other is p else 'decode'} launch's PYTHONHASHSEED")],
                edit)


# ---------------------------------------------------------------------------
# deployments
# ---------------------------------------------------------------------------

_P2P_PROXY = lazyre.compile(r"p2p_nccl[\w.-]*proxy|proxy[\w.-]*p2p_nccl|disagg_proxy_p2p", re.I)
_ANY_PROXY = lazyre.compile(r"[\w./-]*proxy[\w.-]*\.py")


#: addresses that name the host a script runs on
_THIS_HOST = frozenset({"127.0.0.1", "localhost", "0.0.0.0", "::1"})


@vllm_rule(
    "VLLM016", "p2p-nccl-proxy-not-started", kind="unit", severity=WARNING,
    summary="Reports a script that starts vLLM servers with `P2pNcclConnector` pointing at a proxy "
            "(`kv_connector_extra_config.proxy_ip`/`proxy_port`) but starts no P2P-NCCL proxy and mentions that "
            "port nowhere else.",
    why="P2P-NCCL instances register with the proxy's ZMQ service on `proxy_port` and rely on it to mint request "
        "ids carrying the peers' addresses (`disagg_proxy_p2p_nccl_xpyd.py`). A generic proxy (such as "
        "`disagg_prefill_proxy_server.py` on port 8000) does neither, so the prefill never learns where to send "
        "the KV (vllm-project/vllm `examples/online_serving/disaggregated_prefill.sh`, cf. #22093).",
    fix="Start the P2P-NCCL proxy (`disagg_proxy_p2p_nccl_xpyd.py`, which listens on the configured proxy port), "
        "or switch the servers to a connector the started proxy supports.",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",...,"
            "\"kv_connector_extra_config\":{\"proxy_ip\":\"127.0.0.1\",\"proxy_port\":\"30001\"}}' &\n"
            "python3 disagg_prefill_proxy_server.py &",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",...}' &\n"
                  "python3 disagg_proxy_p2p_nccl_xpyd.py &",
    notes="Scripts only: the proxy may be started elsewhere for Kubernetes manifests; and only for a proxy on this "
          "host (`proxy_ip` 127.0.0.1, localhost, 0.0.0.0): one at another address is that host's to start.")
def _p2p_proxy(dep):
    users = []
    for l in dep.servers:
        info = _info(l)
        if info is None or "P2pNcclConnector" not in _conns(info) or not _shell_launch(l):
            continue
        port = info.kv.get("kv_connector_extra_config", "proxy_port")
        if port is None or port.tok.opaque:
            continue
        ip = info.kv.get("kv_connector_extra_config", "proxy_ip")
        if ip is None or ip.tok.opaque or str(ip.value).strip("[]").lower() not in _THIS_HOST:
            # a proxy at another host's address (or one pdlint cannot see) is started there (Duyi-Wang/rllm's
            # per-node p2pp.sh / p2pd.sh, the proxy in p2ppro.sh; field test rw15/j)
            continue
        users.append((l, info, port))
    if not users:
        return None
    l0, info0, port0 = users[0]
    src = next((p.src for p in info0.kv.tok.pieces if p.src is not None), None)
    if src is None:
        return None
    text = src.text
    if _P2P_PROXY.search(text):
        return None
    port_txt = str(port0.value)
    spans = []
    for l, info, port in users:
        for p in info.kv.tok.pieces:
            if p.src is src and p.exact:
                spans.append((p.offset, p.offset + (p.end - p.start)))
    for m in re.finditer(r"(?<!\d)" + re.escape(port_txt) + r"(?!\d)", text):
        if not any(a <= m.start() < b for a, b in spans):
            return None  # the port is used elsewhere in the script (a proxy started with it)
    started = [m.group(0) for run in re.finditer(r"[\w./-]+", text)  # per word, short ones: never quadratic
               if "proxy" in run.group(0) and len(run.group(0)) <= 256
               for m in _ANY_PROXY.finditer(run.group(0)) if "p2p" not in m.group(0).lower()]
    instead = f"; it starts {started[0]} instead" if started else ""
    rel = [related_at(port.tok, l, f"the {l.role_word()} launch also registers with port {port.value}")
           for l, info, port in users[1:]]
    return VHit(f"the P2pNcclConnector servers register with a P2P-NCCL proxy on port {port_txt}, but this script "
                f"starts no P2P-NCCL proxy (disagg_proxy_p2p_nccl_xpyd.py) and nothing else uses port {port_txt}"
                f"{instead}", port0.tok, rel, launch=l0)


@vllm_rule(
    "VLLM017", "kv-roles-one-sided", kind="unit", severity=WARNING,
    summary="Reports a deployment whose vLLM servers all declare the same one-sided `kv_role` (all `kv_producer` "
            "or all `kv_consumer`) - typically a decode launched with the prefill's copied config.",
    why="A KV producer needs a consumer: with two producers nothing receives the KV (vllm-project/vllm#11490: "
        "the decode container was launched with `\"kv_role\":\"kv_producer\",\"kv_rank\":0` copied from the "
        "prefill).",
    fix="Give the decode server `kv_consumer` (and its own `kv_rank`), or use `kv_both` with a connector that "
        "supports it.",
    example="vllm serve M --kv-transfer-config '{...\"kv_role\":\"kv_producer\",\"kv_rank\":0...}' &\n"
            "vllm serve M --port 8200 --kv-transfer-config '{...\"kv_role\":\"kv_producer\",\"kv_rank\":0...}'",
    example_fixed="vllm serve M --kv-transfer-config '{...\"kv_role\":\"kv_producer\",\"kv_rank\":0...}' &\n"
                  "vllm serve M --port 8200 --kv-transfer-config '{...\"kv_role\":\"kv_consumer\",\"kv_rank\":1...}'")
def _one_sided(dep):
    servers = []
    for l in dep.servers:
        info = _info(l)
        if info is not None and info.kv is not None and info.kv.error is None:
            servers.append((l, info))
    if len(servers) < 2:
        return None
    roles = {info.kv_role for _, info in servers}
    if len(roles) != 1 or next(iter(roles)) not in KV_ROLES:
        return None
    role = next(iter(roles))
    # one command rendered per branch/node is one server: require two distinct commands
    if len({(l.path, l.line) for l, _ in servers}) < 2:
        return None
    l, info = servers[-1]
    others = [related_at(i.kv.get("kv_role").tok, o, f"the {o.role} launch is {role} too") for o, i in servers[:-1]]
    want = "kv_consumer" if role == "kv_producer" else "kv_producer"
    return VHit(f"every vLLM server of this deployment is {role}: none is the {want} side, so no KV hand-off can "
                f"happen (a copied config?)", info.kv.get("kv_role").tok, others, launch=l)


# ---------------------------------------------------------------------------
# the KVTransferConfig vLLM builds of --kv-transfer-config
# ---------------------------------------------------------------------------

def _kv_members(info, kv=None):
    """(key, JNode) of the --kv-transfer-config object (``kv``, else the value vLLM keeps), and the release's
    KVTransferConfig description; None when there is nothing to judge (no object, no description, text pdlint
    cannot see)."""
    from pdlint.engines.vllm import flags
    kv = kv if kv is not None else (info.kv if info is not None else None)
    if kv is None or kv.node is None or not isinstance(kv.node.value, dict) or info.version is None:
        return None
    spec = flags.kv_transfer_config(info.version)
    return (list(kv.node.value.items()), spec) if spec is not None else None


def _seen(node) -> bool:
    return node.tok is not None and not node.tok.opaque


@vllm_rule(
    "VLLM029", "kv-transfer-config-rejected", kind="launch",
    summary="Reports a `--kv-transfer-config` that vLLM's `KVTransferConfig` refuses while it reads its arguments: "
            "a `kv_connector` without a `kv_role`, a `kv_role` (or another field with fixed values) outside its "
            "values, a value of the wrong type (`\"engine_id\": 0`, `\"kv_port\": \"abc\"`, "
            "`\"kv_connector_extra_config\": \"x\"`), JSON that is no object (`null`, `[]`: \"Input should be an "
            "object [type=dataclass_type]\"), or - in releases whose config classes forbid extra fields "
            "(0.20.0 on) - a key the class does not have.",
    why="vLLM validates the JSON into `KVTransferConfig` with pydantic before anything starts (`argument "
        "--kv-transfer-config: 1 validation error for KVTransferConfig`): \"Please specify kv_role when "
        "kv_connector is set\", \"Input should be 'kv_producer', 'kv_both' or 'kv_consumer'\", \"Unexpected "
        "keyword argument\". A key copied from an older example (`kv_buffer_size`, `kv_rank`, "
        "`kv_parallel_size`, `kv_ip`: removed after 0.20.0) stops a current server.",
    fix="Give every `kv_connector` a `kv_role` (`kv_producer` / `kv_consumer` / `kv_both`, lower case), and keep "
        "only the keys the release's KVTransferConfig has (connector settings go in `kv_connector_extra_config`).",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    upstream="Please specify kv_role when kv_connector is set, supported roles are ('kv_producer', 'kv_both', "
             "'kv_consumer')",
    source="vllm/config/kv_transfer.py (KVTransferConfig, __post_init__), vllm/config/utils.py (config: "
           "extra='forbid'), vllm/engine/arg_utils.py (parse_dataclass); table generated by "
           "scripts/gen_vllm_kv_config.py; verdicts recorded from vLLM 0.33.0 "
           "(tests/conformance/vllm-kv-config-recorded-0.33.0.jsonl)",
    notes="Unknown keys are judged only for a release that rejects them (0.20.0 and later; 0.9.2-0.15.0 drop "
          "them); with no release pinned, a key only older releases have is VLLM030 (a warning) instead. Types "
          "are judged as pydantic's lax mode reads JSON (`\"30000\"` and `30000.0` are an int, `\"yes\"` a "
          "bool, `0` no string), for the fields whose type is one of str, int, float, bool, dict (the table's "
          "`type`); with no release pinned, a value only another release's type takes is VLLM040 (a warning). Not "
          "reported where an operator writes the config (AIBrix, llm-d controllers); a DynamoGraphDeployment's or "
          "a KServe LLMInferenceService's config as the manifest writes it is judged, and so are a Ray Serve LLM "
          "config's `engine_kwargs.kv_transfer_config` (Ray passes it to vLLM, adding only NIXL's `engine_id`) and "
          "an srt-slurm recipe's `vllm_config` `kv-transfer-config` (srtctl writes it after its `connector`'s, so "
          "vLLM keeps it).")
def _kv_rejected(launch, info):
    if info is None or _config_rewritten(launch):
        return None
    out = []
    # every value written is converted (validated) by argparse, the one vLLM keeps last (field test rw23/b: a
    # JSON value without kv_role before a --kv-transfer-config.kv_role)
    for kv in info.written_kv() + [info.kv]:
        if kv is not None and kv.node is not None and not isinstance(kv.node.value, dict) and _seen(kv.node) and \
                info.version is not None:
            # `null`, `[]`, `1`: valid JSON, no object (field round rw28/b P5; VLLM043 says it for the other config
            # options)
            out.append(VHit(f"argument --kv-transfer-config: 1 validation error for KVTransferConfig: Input should be "
                            f"an object [type=dataclass_type, input_value={_py_repr(kv.node.value)}, input_type="
                            f"{type(kv.node.value).__name__}] (vLLM {info.version} refuses to start)", kv.tok))
            continue
        members = _kv_members(info, kv) if kv is not None else None
        if members is not None:
            out += _kv_refusals(info, *members)
    return out


def _no_config(info) -> str:
    """How a launch has no KV transfer config: none written, or one vLLM reads as None (``''``, ``None``)."""
    if info.kv_none is not None:
        return f"has --kv-transfer-config {info.kv_none.text!r}, which vLLM reads as None (no KV transfer)"
    return "has no --kv-transfer-config"


def _py_repr(value) -> str:
    """A JSON scalar or list as pydantic's ``input_value`` shows it (Python's repr, at most 100 characters)."""
    text = repr(value)
    return text if len(text) <= 100 else text[:100] + "..."


def _kv_refusals(info, items, spec) -> list:
    fields = spec["fields"]
    out = []
    by_key = dict(items)
    connector, role = by_key.get("kv_connector"), by_key.get("kv_role")
    if connector is not None and connector.value is not None and _seen(connector) and \
            (role is None or (role.value is None and _seen(role))):
        msg = spec["missing_role"] or "Please specify kv_role when kv_connector is set"
        msg = re.sub(r"\{get_args\(KVRole\)\}", repr(tuple(_role_values(fields))), msg)
        out.append(VHit(f"{msg} (vLLM {info.version} refuses to start)", (role or connector).tok))
    for key, node in items:
        if node.key_tok is not None and node.key_tok.opaque:
            continue
        if key in fields:
            choices = fields[key]["choices"]
            if choices and node.value is not None and _seen(node) and \
                    not any(type(c) is type(node.value) and c == node.value for c in choices):
                # (a Literal field takes none but its words: `"kv_role": true` is pydantic's literal_error too,
                # vLLM 0.33.0 oracle, hostile-input round rw32/h P6)
                shown = ", ".join(f"'{c}'" for c in choices)
                out.append(VHit(f"{key} {node.value!r} is not one of {shown}: vLLM {info.version} refuses to start "
                                f"(KVTransferConfig validation)", node.tok))
            wrong = _wrong_type(key, node, fields[key])
            if wrong is not None and (info.pinned or not _kv_type_elsewhere(key, node, info.version)):
                out.append(VHit(f"{wrong} (vLLM {info.version}'s KVTransferConfig.{key} is "
                                f"{_shown_type(fields[key])}): vLLM refuses to start", node.tok))
            continue
        if spec["extra"] != "forbid":
            continue
        older = kv_releases_with("fields", key, info.version)
        if older and not info.pinned:
            continue  # VLLM030
        if _between_tables(info, older):
            continue  # a newer table has the key: the pinned release may have it too
        from pdlint.suggest import hint
        where = f" (it exists in vLLM {_span(older)})" if older else hint(key, list(fields))
        out.append(VHit(f"{key} is not a field of vLLM {info.version}'s KVTransferConfig{where}: vLLM refuses to "
                        f"start (\"Unexpected keyword argument\")", node.key_tok or node.tok))
    return out


@vllm_rule(
    "VLLM030", "kv-transfer-config-key-only-in-older-releases", kind="launch", severity=WARNING,
    summary="Reports a `--kv-transfer-config` key that the newest vLLM release pdlint knows no longer has but older "
            "releases did (`kv_buffer_size`, `kv_rank`, `kv_parallel_size`, `kv_ip`), on a launch whose release is "
            "not pinned.",
    why="Whether the server starts depends on the release: the release the example was written for accepts the "
        "key, a current one stops with \"Unexpected keyword argument\" while reading its arguments. pdlint cannot "
        "tell which you deploy.",
    fix="Pin a release that has the key, the newest of those the message names (an image tag such as "
        "`vllm/vllm-openai:v0.20.0`, or `vllm-version` in `[tool.pdlint]`), or drop the key for a current vLLM.",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",\"kv_role\":\"kv_producer\","
            "\"kv_buffer_size\":\"1e9\"}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",\"kv_role\":"
                  "\"kv_producer\"}'",
    source="vllm/config/kv_transfer.py per release (scripts/gen_vllm_kv_config.py)")
def _kv_older_key(launch, info):
    members = _kv_members(info)
    if members is None or _config_rewritten(launch) or info.pinned:
        return None
    items, spec = members
    if spec["extra"] != "forbid":
        return None
    old = [(key, node, kv_releases_with("fields", key, info.version)) for key, node in items
           if key not in spec["fields"] and not (node.key_tok is not None and node.key_tok.opaque)]
    old = [(key, node, releases) for key, node, releases in old if releases]
    if not old:
        return None
    names = ", ".join(key for key, _, _ in old)
    spans = sorted({_span(r) for _, _, r in old})
    first = old[0][1]
    # (the releases pdlint has a table for: one between two tables may have it too, vLLM 0.21.0 has kv_rank)
    return VHit(f"{names} {'is a KVTransferConfig field' if len(old) == 1 else 'are KVTransferConfig fields'} "
                f"in vLLM {', '.join(spans)} of the releases pdlint has tables for (not {info.version}, the newest "
                f"release pdlint knows, which refuses to start with {'it' if len(old) == 1 else 'them'}); pin the "
                f"release: an image tag "
                f"(vllm/vllm-openai:vX.Y.Z) or `vllm-version` in [tool.pdlint]", first.key_tok or first.tok,
                [related_at(node.key_tok or node.tok, launch, f"{key} (vLLM {_span(r)})") for key, node, r in old[1:]],
                fix=_pin_help(_newest([r for _, _, r in old]), "drop the key for a current vLLM"))


@vllm_rule(
    "VLLM040", "kv-transfer-config-type-only-in-other-releases", kind="launch", severity=WARNING,
    summary="Reports a `--kv-transfer-config` value of a type the newest vLLM release pdlint knows refuses for "
            "that field but another release accepts (`\"kv_buffer_device\": null`: Optional up to 0.11.0, a "
            "string since 0.20.0), on a launch whose release is not pinned.",
    why="vLLM validates the JSON with pydantic while it reads its arguments; whether this value passes depends "
        "on the release that runs, which pdlint cannot tell.",
    fix="Write the value in the type the newest release takes (a string, an integer, an object), or pin the "
        "release the config was written for (an image tag or `vllm-version` in `[tool.pdlint]`).",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
            "\"kv_buffer_device\":null}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":"
                  "\"kv_both\",\"kv_buffer_device\":\"cuda\"}'",
    upstream="1 validation error for KVTransferConfig",
    source="vllm/config/kv_transfer.py per release (field annotations; scripts/gen_vllm_kv_config.py), "
           "vllm/engine/arg_utils.py (parse_dataclass: TypeAdapter(KVTransferConfig).validate_json)",
    notes="A type no release pdlint knows accepts, or any wrong type with the release pinned, is VLLM029 (an "
          "error).")
def _kv_type_older(launch, info):
    members = _kv_members(info)
    if members is None or _config_rewritten(launch) or info.pinned:
        return None
    items, spec = members
    out = []
    for key, node in items:
        if key not in spec["fields"] or (node.key_tok is not None and node.key_tok.opaque):
            continue
        wrong = _wrong_type(key, node, spec["fields"][key])
        if wrong is None:
            continue
        others = _kv_type_elsewhere(key, node, info.version)
        if others:
            out.append(VHit(f"{wrong} in vLLM {info.version}, the newest release pdlint knows "
                            f"(KVTransferConfig.{key} is {_shown_type(spec['fields'][key])}); vLLM {_span(others)} "
                            f"take{'s' if len(others) == 1 else ''} it", node.tok,
                            fix=_pin_help(others[-1], "write the value as the newest release takes it")))
    return out


#: what pydantic's lax mode takes for a bool from a JSON string (pydantic-core: bool parsing)
_BOOL_STRINGS = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}
#: a JSON string pydantic's lax mode reads as an int (`"30000"`, `" 12 "`, `"1_000"`, `"12.0"`; not `"1e3"`)
_INT_STRING = lazyre.compile(r"\s*[+-]?\d+(?:_\d+)*(?:\.0*)?\s*")

_TYPE_ERRORS = {
    "str": ("string_type", "Input should be a valid string"),
    "int": ("int_type", "Input should be a valid integer"),
    "float": ("float_type", "Input should be a valid number"),
    "bool": ("bool_type", "Input should be a valid boolean"),
    "dict": ("dict_type", "Input should be an object"),
}


def _pydantic_refusal(typ: str, optional: bool, value):
    """``(error type, message)`` pydantic (lax mode, ``validate_json``) gives a JSON ``value`` for a field of type
    ``typ`` (``str`` / ``int`` / ``float`` / ``bool`` / ``dict``), None when it takes it.  Checked against
    pydantic 2.14 (vLLM 0.33.0's): ``0`` for str, ``"abc"`` / ``30000.5`` / null for int, ``"maybe"`` for bool,
    ``"x"`` for dict refused; ``"30000"``, ``30000.0``, ``true`` for int, ``"yes"`` / ``1`` for bool taken."""
    if value is None:
        return None if optional else _TYPE_ERRORS[typ]
    if typ == "str":
        return None if isinstance(value, str) else _TYPE_ERRORS[typ]
    if typ == "dict":
        return None if isinstance(value, dict) else _TYPE_ERRORS[typ]
    if typ == "int":
        if isinstance(value, bool) or isinstance(value, int):
            return None
        if isinstance(value, float):
            return None if value.is_integer() else ("int_from_float", "Input should be a valid integer, got a "
                                                                      "number with a fractional part")
        if isinstance(value, str):
            return None if _INT_STRING.fullmatch(value) else ("int_parsing", "Input should be a valid integer, "
                                                                             "unable to parse string as an integer")
        return _TYPE_ERRORS[typ]
    if typ == "float":
        if isinstance(value, (bool, int, float)):
            return None
        if isinstance(value, str):
            try:
                float(value.strip())
                return None
            except ValueError:
                return "float_parsing", "Input should be a valid number, unable to parse string as a number"
        return _TYPE_ERRORS[typ]
    if typ == "bool":
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return None if value in (0, 1) else ("bool_parsing", "Input should be a valid boolean, unable to "
                                                                 "interpret input")
        if isinstance(value, str):
            return None if value.strip().lower() in _BOOL_STRINGS else (
                "bool_parsing", "Input should be a valid boolean, unable to interpret input")
        return _TYPE_ERRORS[typ]
    return None


def _plain(node):
    """The JSON value of a traced node (None for one pdlint cannot see: a variable's text)."""
    return node.plain()


def _wrong_type(key: str, node, field: dict):
    """pydantic's message for ``node``'s value in a field described by the kv-config table, or None (a type the
    table does not record, text pdlint cannot see)."""
    typ = field.get("type")
    if typ not in _TYPE_ERRORS or not _seen(node) or _opaque_inside(node):
        return None
    value = _plain(node)
    refused = _pydantic_refusal(typ, bool(field.get("optional")), value)
    if refused is None:
        return None
    import json
    shown = json.dumps(value) if not isinstance(value, (dict, list)) else \
        ("{...}" if isinstance(value, dict) else "[...]")
    return f"{key}: {refused[1]} [type={refused[0]}, input_value={shown}]"


def _opaque_inside(node, depth: int = 0) -> bool:
    if node.tok is not None and node.tok.opaque:
        return True
    if depth > 8:
        return True
    if isinstance(node.value, dict):
        return any(_opaque_inside(v, depth + 1) for v in node.value.values())
    if isinstance(node.value, list):
        return any(_opaque_inside(v, depth + 1) for v in node.value)
    return False


def _shown_type(field: dict) -> str:
    return f"{field['type']}{' | None' if field.get('optional') else ''}"


def _kv_type_elsewhere(key: str, node, but: str) -> list:
    """Releases (oldest first) other than ``but`` whose KVTransferConfig has ``key`` and takes ``node``'s value."""
    from pdlint.engines.vllm import flags
    out = []
    for v in reversed(flags.available_versions()):
        field = ((flags.kv_transfer_config(v) or {}).get("fields") or {}).get(key)
        if v != but and field is not None and field.get("type") in _TYPE_ERRORS and \
                _pydantic_refusal(field["type"], bool(field.get("optional")), _plain(node)) is None:
            out.append(v)
    return out


def _between_tables(info, releases: list) -> bool:
    """Is the pinned release between tables (judged against the nearest older one, ``approximate == "older"``:
    Dynamo 1.0.0's vLLM 0.16.0 against 0.11.0) and does a table newer than the judged one have the name?  Then
    the pinned release may have it too (MooncakeConnector came in vLLM 0.12), and pdlint cannot say it fails."""
    from pdlint.engines.vllm.flags import version_key
    return info.approximate == "older" and any(version_key(r) > version_key(info.version) for r in releases)


def _all_connectors() -> list:
    """Every connector some release pdlint has a table for registers (a misspelling's did-you-mean)."""
    from pdlint.engines.vllm import flags
    return sorted({c for v in flags.available_versions() for c in (flags.kv_transfer_config(v) or {}).get(
        "connectors", ())})


def _newest(spans: list) -> str:
    """The newest release every one of ``spans`` (releases, oldest first) holds, else the newest of the first:
    the release a help names must be inside the range its message states."""
    common = [v for v in spans[0] if all(v in s for s in spans[1:])]
    return (common or spans[0])[-1]


def _pin_help(release: str, other: str) -> str:
    return (f"Pin the release (an image tag such as `vllm/vllm-openai:v{release}`, or `vllm-version = "
            f"\"{release}\"` in `[tool.pdlint]`), or {other}.")


def _role_values(fields: dict) -> list:
    return (fields.get("kv_role") or {}).get("choices") or ["kv_producer", "kv_both", "kv_consumer"]


def _connector_nodes(info):
    """(name JNode, has module path) of the connector and of MultiConnector's members, as vLLM's factory
    creates each."""
    kv = info.kv if info is not None else None
    if kv is None or kv.node is None or not isinstance(kv.node.value, dict):
        return []
    out = []

    def visit(obj, depth=0):
        if depth > 4 or not isinstance(obj.value, dict):
            return
        name = obj.value.get("kv_connector")
        path = obj.value.get("kv_connector_module_path")
        if name is not None and isinstance(name.value, str) and _seen(name):
            out.append((name, path is not None and path.value is not None))
        subs = obj.get("kv_connector_extra_config", "connectors")
        if name is not None and name.value == "MultiConnector" and subs is not None and isinstance(subs.value, list):
            for child in subs.value:
                visit(child, depth + 1)

    visit(kv.node)
    return out


#: connectors a platform plugin registers when it is installed (vllm-project/vllm-ascend
#: vllm_ascend/distributed/kv_transfer/__init__.py register_connector, at 182b75e; LLMDataDistCMgrConnector from its
#: earlier releases): on the plugin's images they start, so a name close to an upstream one is not a misspelling
PLUGIN_CONNECTORS = frozenset({
    "MooncakeConnectorV1", "MooncakeHybridConnector", "MooncakeConnectorStoreV1", "AscendStoreConnector",
    "MooncakeLayerwiseConnector", "UCMConnector", "RecomputeCPUOffloadConnector", "SfaRemoteD2HConnector",
    "LLMDataDistCMgrConnector",
})


@vllm_rule(
    "VLLM031", "kv-connector-not-registered", kind="launch",
    summary="Reports a `kv_connector` (also a MultiConnector member) that the judged vLLM release does not register, "
            "with no `kv_connector_module_path`: a connector of another release (`P2pNcclConnector` and "
            "`SharedStorageConnector` are gone in 0.33.0, `PyNcclConnector` after 0.9.2) or a misspelling of a "
            "registered one.",
    why="vLLM's KVConnectorFactory looks the name up in its registry when the engine starts and stops with "
        "`ValueError: Unsupported connector type: P2pNcclConnector`; the name is case-sensitive.",
    fix="Use a connector the release registers (the message names a close one), pin the release the connector "
        "belongs to, or name its module with `kv_connector_module_path`.",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConector\",\"kv_role\":\"kv_both\"}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    upstream="Unsupported connector type: {kv_connector}",
    source="vllm/distributed/kv_transfer/kv_connector/factory.py (register_connector, get_connector_class); "
           "registries per release generated by scripts/gen_vllm_kv_config.py",
    notes="A name no release registers and no registered name is close to is left alone: plugins (vllm-ascend's "
          "LLMDataDistCMgrConnector, Mooncake's, Dynamo's) register connectors of their own; so are the names "
          "vllm-ascend registers (MooncakeConnectorV1, MooncakeLayerwiseConnector, ...), however close to an "
          "upstream one. With no release pinned, a connector only older releases register is VLLM032 (a warning) "
          "instead.")
def _connector_unregistered(launch, info):
    if _config_rewritten(launch) or info is None or info.version is None:
        return None
    from pdlint.engines.vllm import flags
    from pdlint.suggest import hint
    spec = flags.kv_transfer_config(info.version)
    if spec is None:
        return None
    registered = spec["connectors"]
    out = []
    for name, has_path in _connector_nodes(info):
        if has_path or name.value in registered or name.value in PLUGIN_CONNECTORS:
            continue
        elsewhere = kv_releases_with("connectors", name.value, info.version)
        close = hint(name.value, registered) or (None if elsewhere else hint(name.value, _all_connectors()))
        if elsewhere and not info.pinned:
            continue  # VLLM032
        if _between_tables(info, elsewhere):
            continue  # a newer table registers it: the pinned release, newer than the table judged, may too
        if not elsewhere and not close:
            continue  # a plugin's connector, perhaps
        where = f" (registered in vLLM {_span(elsewhere)})" if elsewhere else close
        out.append(VHit(f"Unsupported connector type: {name.value}: vLLM {info.version} does not register it{where}; "
                        f"the engine stops at start-up", name.tok))
    return out


@vllm_rule(
    "VLLM032", "kv-connector-only-in-older-releases", kind="launch", severity=WARNING,
    summary="Reports a `kv_connector` that only older vLLM releases register (`P2pNcclConnector`, "
            "`SharedStorageConnector`, `PyNcclConnector`, `LMCacheConnector`), on a launch whose release is not "
            "pinned.",
    why="On the release the launch was written for the connector exists; on a current image the engine stops with "
        "\"Unsupported connector type\". pdlint cannot tell which release you deploy.",
    fix="Pin a release that registers the connector, the newest of those the message names (an image tag such as "
        "`vllm/vllm-openai:v0.20.0`, or `vllm-version` in `[tool.pdlint]`), or move to a connector the current "
        "release registers.",
    example="vllm serve M --kv-transfer-config '{\"kv_connector\":\"P2pNcclConnector\",\"kv_role\":\"kv_producer\"}'",
    example_fixed="vllm serve M --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'",
    source="vllm/distributed/kv_transfer/kv_connector/factory.py per release (scripts/gen_vllm_kv_config.py)")
def _connector_older_only(launch, info):
    if _config_rewritten(launch) or info is None or info.version is None or info.pinned:
        return None
    from pdlint.engines.vllm import flags
    spec = flags.kv_transfer_config(info.version)
    if spec is None:
        return None
    out = []
    for name, has_path in _connector_nodes(info):
        if has_path or name.value in spec["connectors"]:
            continue
        elsewhere = kv_releases_with("connectors", name.value, info.version)
        if elsewhere:
            out.append(VHit(f"kv_connector {name.value} is registered by vLLM {_span(elsewhere)} of the releases "
                            f"pdlint has tables for (not {info.version}, the newest release pdlint knows, whose engine "
                            f"stops with \"Unsupported connector type\"); pin the release: an image tag "
                            f"(vllm/vllm-openai:vX.Y.Z) or `vllm-version` in [tool.pdlint]", name.tok,
                            fix=_pin_help(elsewhere[-1], "move to a connector the current release registers")))
    return out
