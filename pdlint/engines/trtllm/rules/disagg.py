"""TensorRT-LLM disaggregated-serving rules (TRT001-TRT099): context
(prefill) and generation (decode) servers.

``info`` is the launch's :class:`~pdlint.engines.trtllm.engine.TrtInfo`
(``settings``: dotted LLM-API keys to traced values, inherited top-level keys
included).
"""

from __future__ import annotations

from pdlint.engines.trtllm.engine import TrtInfo
from pdlint.engines.vllm.rulebase import WARNING, VHit, related_at, vllm_rule

BACKEND = "cache_transceiver_config.backend"
_C = "trtllm"


def _info(launch):
    return launch.parsed if isinstance(launch.parsed, TrtInfo) else None


def _backend(info: TrtInfo):
    t = info.text(BACKEND)
    return t.upper() if t is not None else None


@vllm_rule(
    "TRT001", "cache-transceiver-backend-mismatch", kind="pair", engine="trtllm", category=_C,
    summary="Reports a context (prefill) and a generation (decode) server whose "
            "`cache_transceiver_config.backend` values differ (`ucx` and `UCX` are the same).",
    why="The cache transceiver is the KV transfer path between the two servers: UCX, NIXL, MPI and Mooncake "
        "speak different protocols, so a mismatched pair never exchanges KV and generation requests fail or hang.",
    fix="Set the same `cache_transceiver_config.backend` for context and generation servers (e.g. at the top level "
        "of the disaggregated config, or in both option files).",
    example="# ctx_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: UCX\n"
            "# gen_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: NIXL",
    example_fixed="# both files\ncache_transceiver_config:\n  backend: UCX",
    notes="Pin both files to one commit when comparing stored versions: the NVIDIA example pair only looks "
          "mismatched across commits (UCX at one, NIXL at another).")
def _backend_mismatch(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _backend(pi), _backend(di)
    if a is None or b is None or a == b or "DEFAULT" in (a, b):
        return None
    return VHit(f"cache_transceiver_config.backend is {pi.text(BACKEND)} on the context server but "
                f"{di.text(BACKEND)} on the generation server: the KV cache transceivers cannot talk to each other",
                di.token(BACKEND), [related_at(pi.token(BACKEND), p, f"the context server's backend "
                                                                     f"{pi.text(BACKEND)}")], "decode")


@vllm_rule(
    "TRT002", "cache-transceiver-backend-on-one-side", kind="pair", engine="trtllm", category=_C, severity=WARNING,
    summary="Reports a context/generation pair where only one side sets `cache_transceiver_config.backend` (the "
            "other uses `DEFAULT`).",
    why="`DEFAULT` picks the transceiver from environment variables and the TensorRT-LLM release (UCX in some, NIXL "
        "in others); it matches the explicit side only by luck.",
    fix="Set the same explicit backend on both sides.",
    example="# ctx\ncache_transceiver_config:\n  backend: NIXL\n# gen\ncache_transceiver_config:\n  "
            "max_tokens_in_buffer: 2048",
    example_fixed="# ctx and gen\ncache_transceiver_config:\n  backend: NIXL")
def _backend_one_side(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _backend(pi), _backend(di)
    if (a is None) == (b is None) or (a or b) == "DEFAULT":
        return None
    has, lacks, hi, edit = (p, d, pi, "decode") if b is None else (d, p, di, "prefill")
    if lacks.meta.get("options_file") and not lacks.parsed.settings:
        return None
    return VHit(f"cache_transceiver_config.backend is {hi.text(BACKEND)} on the {_name(has.role)} "
                f"server only; the {_name(lacks.role)} server uses DEFAULT (chosen by environment and release)",
                None, [related_at(hi.token(BACKEND), has, f"the {_name(has.role)} server's backend")], edit)


def _name(role):
    return {"prefill": "context", "decode": "generation"}.get(role, role or "other")


@vllm_rule(
    "TRT003", "tensor-parallel-size-differs", kind="pair", engine="trtllm", category=_C, severity=WARNING,
    summary="Reports a context/generation pair whose `tensor_parallel_size` values differ (both written).",
    why="The cache transceiver has to split and concatenate KV heads between different TP layouts; "
        "NVIDIA/TensorRT-LLM#6507 reports wrong outputs for prefill and decode with different `tp_size` (KV layout "
        "mismatch in the split/concat kernels). Supported in newer releases, but worth a deliberate choice.",
    fix="Use the same `tensor_parallel_size` on both sides, or verify outputs on the release you deploy.",
    example="context_servers:\n  tensor_parallel_size: 1\ngeneration_servers:\n  tensor_parallel_size: 4",
    example_fixed="context_servers:\n  tensor_parallel_size: 2\ngeneration_servers:\n  tensor_parallel_size: 2")
def _tp(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = pi.int("tensor_parallel_size"), di.int("tensor_parallel_size")
    if a is None or b is None or a == b:
        return None
    return VHit(f"tensor_parallel_size is {a} on the context server but {b} on the generation server",
                di.token("tensor_parallel_size"),
                [related_at(pi.token("tensor_parallel_size"), p, f"the context server's tensor_parallel_size {a}")],
                "decode")


@vllm_rule(
    "TRT004", "trtllm-kv-cache-dtype-mismatch", kind="pair", engine="trtllm", category=_C,
    summary="Reports a context/generation pair whose explicit `kv_cache_config.dtype` values differ.",
    why="The generation server receives the context server's KV blocks as bytes: a different element type "
        "reinterprets them (or fails the transfer's size check).",
    fix="Use the same `kv_cache_config.dtype` on both sides.",
    example="# ctx\nkv_cache_config:\n  dtype: fp8\n# gen\nkv_cache_config:\n  dtype: auto",
    example_fixed="# ctx and gen\nkv_cache_config:\n  dtype: fp8")
def _kv_dtype(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = pi.text("kv_cache_config.dtype"), di.text("kv_cache_config.dtype")
    if a is None or b is None or a.lower() == b.lower():
        return None
    return VHit(f"kv_cache_config.dtype is {a} on the context server but {b} on the generation server",
                di.token("kv_cache_config.dtype"),
                [related_at(pi.token("kv_cache_config.dtype"), p, f"the context server's KV dtype {a}")], "decode")


@vllm_rule(
    "TRT005", "context-server-overlap-scheduler", kind="launch", engine="trtllm", category=_C, severity=WARNING,
    roles=("prefill",),
    summary="Reports a context (prefill) server of the PyTorch backend whose settings do not disable the overlap "
            "scheduler (`disable_overlap_scheduler: true`).",
    why="TensorRT-LLM releases before PR #10755 (2026-01) reject context-only requests with the overlap scheduler "
        "on: \"Context only requests are not supported in pytorch backend when overlap is enabled.\" "
        "(NVIDIA/TensorRT-LLM PR #3323: \"context serve should disable overlap_scheduler\").",
    fix="Set `disable_overlap_scheduler: true` in the context server's settings (not at the top level of a "
        "disaggregated config, where generation servers inherit it), or run a release with PR #10755.",
    example="# ctx_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: UCX",
    example_fixed="# ctx_extra-llm-api-config.yaml\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n  "
                  "backend: UCX",
    upstream="Context only requests are not supported in pytorch backend when overlap is enabled.",
    source="tensorrt_llm/_torch/pyexecutor/py_executor.py",
    notes="Version-dependent (a warning): pdlint does not know the TensorRT-LLM release. Not reported for the "
          "TensorRT (non-PyTorch) backend, which rejects the key itself (NVIDIA/TensorRT-LLM#7752).")
def _overlap(launch, info):
    if info is None or launch.role != "prefill":
        return None
    backend = info.text("backend")
    if backend is not None and backend.lower() not in ("pytorch", "_autodeploy"):
        return None
    v = info.truthy("disable_overlap_scheduler")
    if v is True or (v is None and "disable_overlap_scheduler" in info.settings):
        return None
    tok = info.token("disable_overlap_scheduler")
    return VHit("this context server keeps the overlap scheduler on; TensorRT-LLM releases before PR #10755 reject "
                "its requests: \"Context only requests are not supported in pytorch backend when overlap is "
                "enabled.\" (set disable_overlap_scheduler: true)", tok)


@vllm_rule(
    "TRT006", "generation-inherits-disable-overlap-scheduler", kind="launch", engine="trtllm", category=_C,
    severity=WARNING, roles=("decode",),
    summary="Reports `disable_overlap_scheduler: true` at the top level of a `trtllm-serve disaggregated` config, "
            "which generation servers inherit.",
    why="Only context servers need the overlap scheduler off; generation servers that inherit the top-level key "
        "silently lose it, and with it a large part of their decode throughput.",
    fix="Move `disable_overlap_scheduler: true` into `context_servers:`.",
    example="disable_overlap_scheduler: True\ncontext_servers:\n  ...\ngeneration_servers:\n  ...",
    example_fixed="context_servers:\n  disable_overlap_scheduler: True\n  ...\ngeneration_servers:\n  ...")
def _inherited_overlap(launch, info):
    if info is None or launch.role != "decode" or "disable_overlap_scheduler" not in info.inherited:
        return None
    if info.truthy("disable_overlap_scheduler") is not True:
        return None
    return VHit("generation servers inherit disable_overlap_scheduler: true from the top level of this config and "
                "lose the overlap scheduler; only context servers need it off", info.token("disable_overlap_scheduler"))
