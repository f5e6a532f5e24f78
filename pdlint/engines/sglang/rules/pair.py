"""SGLang prefill/decode pair rules (SGL801-SGL899): the cross-role items of
``research/sglang-rules.md`` section 5 that are decidable from the two command
lines, plus the cross-role problems the corpus and bug reports justify
(``launch-templates.md`` section 9).

None of these is checked when one server starts: the decode learns the
prefill's topology from the prefill's bootstrap server at the first request
and fails (or silently misbehaves) then.  ``p`` and ``d`` are the resolved
:class:`~pdlint.engines.sglang.resolve.Args` of the prefill and the decode
(role-driven defaults applied: ``mooncake_tcp`` is ``mooncake``, ``NEXTN`` is
``EAGLE``, the deprecated ``--enable-dp-attention`` is folded into
``--attn-dp-size``).  Defaults that SGLang derives from the GPU, the model or
the attention backend (``--page-size``, ``--context-length``, ``auto`` KV
dtype) are only compared when written on both sides; one-sided settings are
warnings.
"""

import re

from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.pairbase import WARNING, PairHit, px, sgl_pair_rule, show_value
from pdlint.model import ERROR as _E
from pdlint.rules import Rule, register

#: what shapes the draft state a prefill hands over (SGL812); DSpark adds speculative_num_draft_tokens
_SPEC_KEYS = ("speculative_eagle_topk", "speculative_draft_model_path")


def _val(a, dest):
    v = a.get(dest)
    return None if v is OPAQUE else v


def _int(a, dest):
    v = a.get(dest)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _page(a):
    """An explicit page size (a positive int); 0 is no page size but a crash on prefill (SGL194, field test
    rw22/b: SGL802 described `--page-size 0` as a size set on one role)."""
    v = _int(a, "page_size")
    return v if v is not None and v > 0 else None


def _known_both(p, d, dest) -> bool:
    return p.known(dest) and d.known(dest)


# ---------------------------------------------------------------------------
# KV layout: page size, KV dtype
# ---------------------------------------------------------------------------

PAGE_MSG = ("Page size mismatch: prefill server has page_size={p}, but decode server has page_size={d}. Both servers "
            "must use the same --page-size value.")


@sgl_pair_rule(
    "SGL801", "page-size-mismatch", upstream=PAGE_MSG,
    source="disaggregation/common/conn.py:1321", upstream_id="xr-page-size",
    summary="Reports a prefill and a decode server of one deployment whose `--page-size` values differ.",
    why="The decode writes the prefill's KV pages into its own pool page by page; with different page sizes the "
        "page tables do not line up. SGLang only notices when the decode fetches the prefill's parallel info for "
        "the first request (sgl-project/sglang#14439): that request fails and the decode scheduler goes down.",
    fix="Use the same `--page-size` on both roles (share one value in the template).",
    fire=[px("--page-size 32", "--page-size 64"), px("--page-size 16", "--page-size 1", version="0.4.8.post1"),
          px("", "--page-size 16", version="0.4.8.post1")],
    quiet=[px("--page-size 64", "--page-size 64"), px("", ""), px("--page-size 64", "")],
    notes="SGLang 0.5.x derives an unset page size from the attention backend and model, so a value written on one "
          "side only is SGL802 (warning); 0.4.x defaults it to 1, which is compared.")
def _page_size(p, d):
    pv, dv = _page(p), _page(d)
    if pv is None or dv is None or pv == dv:
        return None
    return PairHit("decode", "page_size", other=("page_size",), fmt={"p": pv, "d": dv})


@sgl_pair_rule(
    "SGL802", "page-size-on-one-side", severity=WARNING,
    message="--page-size {v} is set on the {side} server only; the {other} server's page size is its attention "
            "backend's default (1 unless the backend or the model forces 16/32/64/128), and SGLang fails the first "
            "request when the two differ (\"Page size mismatch: ...\")",
    upstream=PAGE_MSG, source="disaggregation/common/conn.py:1321", upstream_id="xr-page-size",
    summary="Reports a deployment where `--page-size` is written on one role only (SGLang 0.5.x, where an unset "
            "page size is the attention backend's default).",
    why="The other role then runs with whatever page size its attention backend and model pick, which matches "
        "only by luck: a backend or model change on one side turns it into a page size mismatch that fails the "
        "first request.",
    fix="Write the same `--page-size` on both roles.",
    fire=[px("--page-size 64", ""), px("", "--page-size 32")],
    quiet=[px("--page-size 64", "--page-size 64"), px("", ""), px("--page-size 1", "", version="0.4.8.post1"),
           px("--page-size 0", ""), px("", "--page-size 0")])
def _page_size_one_side(p, d):
    if _page(p) is not None and _page(d) is not None:
        return None
    if p.explicit("page_size") and d.is_unset("page_size") and _page(p) is not None:
        return PairHit("decode", other=("page_size",), fmt={"v": _page(p), "side": "prefill",
                                                            "other": "decode"})
    if d.explicit("page_size") and p.is_unset("page_size") and _page(d) is not None:
        return PairHit("prefill", other=("page_size",), fmt={"v": _page(d), "side": "decode",
                                                             "other": "prefill"})
    return None


KV_DTYPE_MSG = ("KV cache dtype mismatch: prefill server has kv_cache_dtype={p}, but decode server has "
                "kv_cache_dtype={d}. Both servers must use the same --kv-cache-dtype value.")
_DTYPE_ALIAS = {"bfloat16": "bf16"}
#: model families whose KV cache dtype SGLang sets while resolving the arguments, so the strings it compares are
#: not the ones written: DSA models (`auto` -> fp8_e4m3 or bfloat16, `bf16` -> bfloat16: arg_groups/overrides.py
#: _dsa_kv_cache_dtype_default; DeepSeek-V3.2, GLM-5, LongCat-Flash, Mistral-Large-3) and DeepSeek-V4 (`auto` ->
#: fp8_e4m3: _deepseek_v4_kv_cache_dtype), 0.5.23
_KV_DTYPE_SET_BY_MODEL = ("GLM-5", "DeepSeek-V4", "LongCat-Flash", "Mistral-Large-3")


def _dtype(a):
    v = _val(a, "kv_cache_dtype")
    return _DTYPE_ALIAS.get(v, v) if isinstance(v, str) else None


def _strings_compared(p, d) -> str:
    """How the release compares the two servers' KV dtypes, for a model whose dtype it does not set itself:
    "raw" - the `--kv-cache-dtype` strings as resolved (0.5.10-0.5.16: `server_args.kv_cache_dtype`, so `auto`
    stays `auto`), "resolved" - the same, but `auto` of a checkpoint that quantizes its KV cache to FP8 is
    `fp8_e4m3` (0.5.17+: the model runner's `kv_cache_dtype_str`); "" - not by the strings, or not known: a release
    before the check (0.5.9 and older), a model SGLang sets the dtype of (a DSA model renames `bf16` to
    `bfloat16`), or a model pdlint cannot name."""
    from pdlint.engines.sglang.flags import version_key
    from pdlint.models import component
    v = p.version or d.version
    if v is not None and version_key(v) < version_key("0.5.10"):
        return ""
    fams = [model_family(a) for a in (p, d)]
    if any(f is None or f.name in _KV_DTYPE_SET_BY_MODEL for f in fams):
        return ""
    for a, f in zip((p, d), fams):
        if f.name == "DeepSeek-V3" and re.search(r"v3[.-]?2", component(str(a.get("model_path") or ""))):
            return ""  # (DeepSeek-V3.2: a DSA model of the DeepSeek-V3 family)
    return "raw" if v is not None and version_key(v) < version_key("0.5.17") else "resolved"


def _refused_strings(p, d):
    """(prefill's, decode's) KV dtype strings SGLang compares and refuses whatever the checkpoint, or None: `bf16`
    against `bfloat16`, and `auto` against an explicit dtype (but `fp8_e4m3` from 0.5.17, which `auto` becomes
    for a checkpoint with an FP8 KV cache)."""
    pv, dv = _val(p, "kv_cache_dtype"), _val(d, "kv_cache_dtype")
    if not isinstance(pv, str) or not isinstance(dv, str) or pv == dv:
        return None
    if _dtype(p) == _dtype(d) or "auto" in (pv, dv):
        how = _strings_compared(p, d)
        if not how or how == "resolved" and "fp8_e4m3" in (pv, dv):
            return None
        return pv, dv
    return None


@sgl_pair_rule(
    "SGL803", "kv-cache-dtype-mismatch", upstream=KV_DTYPE_MSG,
    source="disaggregation/common/conn.py:1331", upstream_id="xr-kv-cache-dtype",
    summary="Reports a prefill and a decode server whose explicit `--kv-cache-dtype` values differ; on SGLang "
            "0.5.10 and later, for a model pdlint can name whose KV dtype SGLang does not set itself, also `bf16` "
            "against `bfloat16` and `auto` (unset) against an explicit dtype.",
    why="The decode copies the prefill's KV bytes as they are: a different element type means a different page "
        "size in bytes and reinterpreted values. SGLang 0.5.10+ sends the prefill's KV dtype string to the decode, "
        "which compares it with its own as a string and fails the first request: `bf16` and `bfloat16` are the "
        "same bytes and still differ there, and `auto` stays `auto` (0.5.17+: `fp8_e4m3` for a checkpoint that "
        "quantizes its KV cache to FP8). Older releases decode from corrupted KV.",
    fix="Write the same `--kv-cache-dtype` value, spelled the same way, on both roles.",
    fire=[px("--kv-cache-dtype fp8_e4m3", "--kv-cache-dtype fp8_e5m2"), px("--kv-cache-dtype bf16",
                                                                           "--kv-cache-dtype fp8_e4m3"),
          px("--model-path meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype bf16",
             "--model-path meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype bfloat16"),
          px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B --kv-cache-dtype bf16"),
          px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3",
             version="0.5.15")],
    quiet=[px("--kv-cache-dtype fp8_e4m3", "--kv-cache-dtype fp8_e4m3"), px("--kv-cache-dtype bf16",
                                                                             "--kv-cache-dtype bfloat16"), px("", ""),
           px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3"),
           px("--model-path zai-org/GLM-5 --kv-cache-dtype bf16", "--model-path zai-org/GLM-5 --kv-cache-dtype "
              "bfloat16"),
           px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B --kv-cache-dtype bf16", version="0.5.9")],
    notes="`bf16` against `bfloat16`, and `auto` against an explicit dtype, are compared only where the model path "
          "(or `--served-model-name`) names a family pdlint knows (docs/models.md) whose KV dtype SGLang does not "
          "set: for DSA models (DeepSeek-V3.2, GLM-5, ...) and DeepSeek-V4 SGLang replaces `auto` and renames "
          "`bf16`; for a model pdlint cannot name, `auto` against an explicit dtype is SGL804's warning. Field test "
          "rw27/b, from SGLang 0.5.23's source (common/conn.py compares the strings; the 0.5.10-0.5.16 sources "
          "compare `server_args.kv_cache_dtype`).")
def _kv_dtype(p, d):
    pv, dv = _dtype(p), _dtype(d)
    if pv is None or dv is None:
        return None
    if "auto" in (pv, dv) or pv == dv:
        if _refused_strings(p, d) is None:
            return None
    return PairHit("decode", "kv_cache_dtype", other=("kv_cache_dtype",),
                   fmt={"p": _val(p, "kv_cache_dtype"), "d": _val(d, "kv_cache_dtype")})


@sgl_pair_rule(
    "SGL804", "kv-cache-dtype-on-one-side", severity=WARNING,
    message="--kv-cache-dtype {v} is set on the {side} server only; the {other} server's is `auto`, which SGLang "
            "compares as the string `auto` (an FP8-KV checkpoint's `fp8_e4m3` from 0.5.17, or the dtype SGLang "
            "sets for models such as DeepSeek-V3.2 and V4){why}",
    upstream=KV_DTYPE_MSG, source="disaggregation/common/conn.py:1331", upstream_id="xr-kv-cache-dtype",
    summary="Reports a deployment where an explicit `--kv-cache-dtype` is set on one role only (the other is "
            "`auto`) and whether the two match depends on the model: its checkpoint, or a model pdlint cannot "
            "name (SGL803 reports the pairs that fail for every checkpoint of a model it names).",
    why="`auto` is compared as the string `auto`, except for a checkpoint that quantizes its KV cache to FP8 "
        "(`fp8_e4m3`, 0.5.17+) and the models SGLang sets the dtype of (DSA models, DeepSeek-V4); an explicit "
        "dtype on the other side matches only in those cases. A mismatch fails the first request (0.5.10+) or "
        "corrupts the decode's KV (older releases).",
    fix="Write the same `--kv-cache-dtype` on both roles.",
    fire=[px("", "--kv-cache-dtype fp8_e4m3"), px("--kv-cache-dtype fp8_e5m2", ""),
          px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B --kv-cache-dtype fp8_e4m3")],
    quiet=[px("--kv-cache-dtype fp8_e4m3", "--kv-cache-dtype fp8_e4m3"), px("--kv-cache-dtype auto", ""),
           px("", "")])
def _kv_dtype_one_side(p, d):
    pv, dv = _dtype(p), _dtype(d)
    if pv is None or dv is None or pv == dv or "auto" not in (pv, dv) or _refused_strings(p, d) is not None:
        return None
    why = ("; for this model only an FP8-KV checkpoint matches" if _strings_compared(p, d) else
           "; whether it matches depends on the model, which pdlint cannot tell from the flags")
    if pv == "auto":
        return PairHit("prefill", other=("kv_cache_dtype",), fmt={"v": dv, "side": "decode", "other": "prefill",
                                                                  "why": why})
    return PairHit("decode", other=("kv_cache_dtype",), fmt={"v": pv, "side": "prefill", "other": "decode",
                                                             "why": why})


# ---------------------------------------------------------------------------
# Transfer: backend, allocation policy, metadata buffers
# ---------------------------------------------------------------------------

@sgl_pair_rule(
    "SGL805", "transfer-backend-mismatch",
    message="the prefill server uses --disaggregation-transfer-backend {p} but the decode server uses {d}{dflt}: "
            "each backend has its own bootstrap handshake and KV transfer protocol, so no KV reaches the decode",
    source="disaggregation/common/conn.py", upstream_id="xr-transfer-backend",
    summary="Reports a prefill and a decode server with different `--disaggregation-transfer-backend` values "
            "(after SGLang's resolution: unset is `mooncake`, `mooncake_tcp` is `mooncake`).",
    why="Mooncake, NIXL, Mori and Ascend each bring their own KV manager, bootstrap protocol and transfer engine; "
        "SGLang never compares them, so a mismatch surfaces as bootstrap, handshake or transfer failures (or "
        "timeouts) at the first request.",
    fix="Use the same transfer backend on both roles (remember that an unset backend is `mooncake`).",
    fire=[px("--disaggregation-transfer-backend nixl", ""), px("--disaggregation-transfer-backend nixl",
                                                               "--disaggregation-transfer-backend mooncake")],
    quiet=[px("--disaggregation-transfer-backend nixl", "--disaggregation-transfer-backend nixl"),
           px("--disaggregation-transfer-backend mooncake_tcp", ""),
           px("--disaggregation-transfer-backend nixl", "--disaggregation-transfer-backend fake")],
    notes="A decode with the `fake` backend (synthetic benchmarks, no KV from any prefill) is not compared.")
def _backend(p, d):
    pv, dv = _val(p, "disaggregation_transfer_backend"), _val(d, "disaggregation_transfer_backend")
    if not isinstance(pv, str) or not isinstance(dv, str) or pv == dv or dv == "fake":
        return None
    dflt = ""
    if not d.explicit("disaggregation_transfer_backend"):
        dflt = " (the default: the decode does not set it)"
    elif not p.explicit("disaggregation_transfer_backend"):
        dflt = " (the prefill does not set it: mooncake is the default)"
    return PairHit("decode", "disaggregation_transfer_backend", other=("disaggregation_transfer_backend",),
                   fmt={"p": pv, "d": dv, "dflt": dflt})


@sgl_pair_rule(
    "SGL806", "allocation-policy-mismatch",
    upstream="Disaggregation decode allocation policy mismatch: prefill={p}, decode={d}. Set "
             "--disaggregation-decode-allocation-policy identically on both roles.",
    source="disaggregation/common/conn.py:2530", upstream_id="xr-allocation-policy",
    summary="Reports a prefill and a decode server with different `--disaggregation-decode-allocation-policy` "
            "values (unset is `early`).",
    why="The prefill publishes its allocation policy through the bootstrap server and the decode checks it per "
        "request: with a mismatch every request is aborted.",
    fix="Set `--disaggregation-decode-allocation-policy` identically on both roles.",
    fire=[px("--disaggregation-decode-allocation-policy prefill_complete", ""),
          px("", "--disaggregation-decode-allocation-policy prefill_complete")],
    quiet=[px("--disaggregation-decode-allocation-policy prefill_complete",
              "--disaggregation-decode-allocation-policy prefill_complete"), px("", "")])
def _allocation(p, d):
    pv, dv = _val(p, "disaggregation_decode_allocation_policy"), _val(d, "disaggregation_decode_allocation_policy")
    if not isinstance(pv, str) or not isinstance(dv, str) or pv == dv:
        return None
    edit = "decode" if d.explicit("disaggregation_decode_allocation_policy") else "prefill"
    return PairHit(edit, "disaggregation_decode_allocation_policy",
                   other=("disaggregation_decode_allocation_policy",), fmt={"p": pv, "d": dv})


AUX_MSG = ("Decode %s registered %d metadata buffers but this prefill has %d; only the first %d are transferred, and "
           "misaligned if the extra buffer is not the last. An optional metadata buffer is enabled on one engine "
           "only: --disaggregation-enable-kv-checksum, SGLANG_ENABLE_DISAGG_SAMPLING_MASK, or the DSA top-k buffer.")


@sgl_pair_rule(
    "SGL807", "kv-checksum-on-one-side", severity=WARNING,
    message="--disaggregation-enable-kv-checksum is set on the {side} server only: the checksum is an extra "
            "metadata buffer, so the two roles register different numbers of metadata buffers and SGLang logs "
            "\"Decode ... registered {nd} metadata buffers but this prefill has {np} ...\"; add it to the {other} "
            "server too (or drop it)",
    upstream=AUX_MSG, source="disaggregation/common/conn.py:624", upstream_id="xr-aux-buffers",
    summary="Reports `--disaggregation-enable-kv-checksum` on one role of a pair only.",
    why="Metadata buffers pair up by position: with the checksum buffer on one side only, the peers register "
        "different numbers of buffers, only the leading ones are transferred, and a buffer that is not the last "
        "is misaligned. No KV is verified either: the digest is only compared when both sides compute it.",
    fix="Set `--disaggregation-enable-kv-checksum` on both roles, or on neither.",
    fire=[px("--disaggregation-enable-kv-checksum", ""), px("", "--disaggregation-enable-kv-checksum")],
    quiet=[px("--disaggregation-enable-kv-checksum", "--disaggregation-enable-kv-checksum"), px("", "")])
def _checksum(p, d):
    pv, dv = p.is_true("disaggregation_enable_kv_checksum"), d.is_true("disaggregation_enable_kv_checksum")
    if pv == dv or not (p.known("disaggregation_enable_kv_checksum") and d.known("disaggregation_enable_kv_checksum")):
        return None
    side, other = ("prefill", "decode") if pv else ("decode", "prefill")
    return PairHit(other, other=("disaggregation_enable_kv_checksum",),
                   fmt={"side": side, "other": other, "np": "N+1" if pv else "N", "nd": "N" if pv else "N+1"})


@sgl_pair_rule(
    "SGL808", "sampling-mask-env-on-one-side", severity=WARNING,
    message="SGLANG_ENABLE_DISAGG_SAMPLING_MASK is enabled on the {side} server only: the sampling mask is an extra "
            "metadata buffer (the roles register different numbers of them), and requests asking for "
            "return_sampling_mask are rejected: \"return_sampling_mask requires SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1 "
            "on both prefill and decode servers when using disaggregated serving.\"",
    upstream="return_sampling_mask requires SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1 on both prefill and decode servers "
             "when using disaggregated serving.",
    source="managers/scheduler.py:3166", upstream_id="xr-sampling-mask", env=("SGLANG_ENABLE_DISAGG_SAMPLING_MASK",),
    summary="Reports `SGLANG_ENABLE_DISAGG_SAMPLING_MASK` set to a true value in one role's environment only.",
    why="The sampling mask travels as an optional metadata buffer: enabled on one side only, the peers' metadata "
        "buffers no longer pair up (SGLang logs that only the first ones are transferred) and requests that ask "
        "for the mask are rejected.",
    fix="Set `SGLANG_ENABLE_DISAGG_SAMPLING_MASK=1` (and the same `--sampling-mask-max-tokens`) on both roles, or "
        "on neither.",
    fire=[px("", "", env_prefill={"SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "1"})],
    quiet=[px("", "", env_prefill={"SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "1"},
              env_decode={"SGLANG_ENABLE_DISAGG_SAMPLING_MASK": "true"}), px("", "")])
def _sampling_mask(p, d):
    name = "SGLANG_ENABLE_DISAGG_SAMPLING_MASK"
    for a in (p, d):
        v = a.env.get(name)
        if v is not None and getattr(v, "opaque", False):
            return None
    pv, dv = p.env_truthy(name), d.env_truthy(name)
    if pv == dv:
        return None
    side, other = ("prefill", "decode") if pv else ("decode", "prefill")
    return PairHit(other, other=("env:" + name,), fmt={"side": side})


# ---------------------------------------------------------------------------
# Speculative decoding
# ---------------------------------------------------------------------------

def _algo(a):
    v = _val(a, "speculative_algorithm")
    return v if isinstance(v, str) and v.upper() not in ("", "NONE") else None


@sgl_pair_rule(
    "SGL809", "speculative-decoding-on-decode-only", severity=WARNING,
    message="the decode server runs speculative decoding ({algo}) but the prefill server does not: the decode's "
            "first draft step consumes the draft top-k and hidden states the prefill's draft pass hands over with "
            "the KV, and a prefill without one sends none (sgl-project/sglang PR #17212: wrong answers for MHA "
            "models with speculation on decode only)",
    source="disaggregation/decode.py:2727", upstream_id="xr-speculative",
    summary="Reports a pair whose decode runs `--speculative-algorithm` (EAGLE, EAGLE3, NEXTN/MTP, STANDALONE, ...) "
            "while its prefill runs none.",
    why="In PD serving the prefill runs the draft model's first pass and sends its top-k and hidden states with "
        "the KV; the decode continues from them. SGLang does not check that the prefill speculates: with a "
        "non-speculative prefill the decode starts from empty draft state - degraded acceptance at best, wrong "
        "answers for MHA models in releases since v0.5.2 (PR #17212).",
    fix="Run the same `--speculative-algorithm` (and draft model) on the prefill server.",
    fire=[px("", "--speculative-algorithm EAGLE --speculative-draft-model-path D"),
          px("", "--speculative-algorithm NEXTN")],
    quiet=[px("--speculative-algorithm NEXTN", "--speculative-algorithm EAGLE"), px("", ""),
           px("", "--speculative-algorithm NGRAM")],
    notes="NGRAM speculation has no draft model and is not reported.")
def _spec_decode_only(p, d):
    da = _algo(d)
    if da is None or da == "NGRAM" or not p.known("speculative_algorithm") or _algo(p) is not None:
        return None
    return PairHit("prefill", other=("speculative_algorithm",), fmt={"algo": da})


@sgl_pair_rule(
    "SGL810", "speculative-decoding-on-prefill-only-nixl",
    upstream="NIXL PD transfer: decode registered fewer KV regions ({n_dst}) than prefill ({n_src}); unexpected "
             "geometry",
    source="disaggregation/nixl/conn.py:1489", upstream_id="xr-nixl-kv-regions",
    summary="Reports a NIXL pair whose prefill runs speculative decoding (draft KV) while the decode does not.",
    why="With NIXL the prefill sends its draft model's KV regions too, and the decode must have registered at least "
        "as many regions: a decode without speculation has fewer and every transfer fails.",
    fix="Run the same speculative decoding on the decode server, or drop it from the prefill.",
    fire=[px("--disaggregation-transfer-backend nixl --speculative-algorithm EAGLE --speculative-draft-model-path D",
             "--disaggregation-transfer-backend nixl")],
    quiet=[px("--disaggregation-transfer-backend nixl", "--disaggregation-transfer-backend nixl "
              "--speculative-algorithm EAGLE --speculative-draft-model-path D"),
           px("--speculative-algorithm EAGLE --speculative-draft-model-path D", "")],
    notes="Mooncake and the other backends are not reported: they transfer the target KV only.")
def _spec_prefill_only(p, d):
    pa = _algo(p)
    if pa is None or pa == "NGRAM" or not d.known("speculative_algorithm") or _algo(d) is not None:
        return None
    if not (p.eq("disaggregation_transfer_backend", "nixl") and d.eq("disaggregation_transfer_backend", "nixl")):
        return None
    return PairHit("prefill", "speculative_algorithm", other=("disaggregation_transfer_backend",),
                   fmt={"n_dst": "N", "n_src": "N + draft"},
                   note="the prefill registers its draft model's KV regions too, the decode (no speculative "
                        "decoding) does not")


@sgl_pair_rule(
    "SGL811", "speculative-algorithm-mismatch", severity=WARNING,
    message="the prefill server runs --speculative-algorithm {p} but the decode server runs {d}: the decode "
            "continues from the draft state the prefill's draft pass produced, which only fits the same algorithm "
            "and draft model",
    source="disaggregation/decode.py:2727", upstream_id="xr-speculative",
    summary="Reports a pair whose prefill and decode run different speculative algorithms (NEXTN counts as EAGLE).",
    why="The decode consumes the prefill's draft top-k and hidden states; SGLang does not compare the algorithms, "
        "so a mismatch shows up as degraded acceptance or wrong outputs, never as an error.",
    fix="Use the same `--speculative-algorithm` and draft model on both roles.",
    fire=[px("--speculative-algorithm EAGLE3 --speculative-draft-model-path D",
             "--speculative-algorithm EAGLE --speculative-draft-model-path D")],
    quiet=[px("--speculative-algorithm NEXTN", "--speculative-algorithm EAGLE"),
           px("--speculative-algorithm EAGLE3 --speculative-draft-model-path D",
              "--speculative-algorithm EAGLE3 --speculative-draft-model-path D")])
def _spec_algo(p, d):
    pa, da = _algo(p), _algo(d)
    if pa is None or da is None or pa == da:
        return None
    return PairHit("prefill", "speculative_algorithm", other=("speculative_algorithm",), fmt={"p": pa, "d": da})


@sgl_pair_rule(
    "SGL812", "speculative-settings-differ", severity=WARNING,
    message="speculative decoding is configured differently on the two roles: {diffs}; the decode continues from "
            "the draft top-k and hidden states of the prefill's draft pass, which are shaped by these settings",
    source="disaggregation/decode.py:2727", upstream_id="xr-speculative",
    summary="Reports a pair running the same speculative algorithm with a different `--speculative-eagle-topk` or "
            "draft model, or (DSpark) a different `--speculative-num-draft-tokens`.",
    why="SGLang does not check that both roles speculate alike. What the prefill hands over with the KV is its draft "
        "pass's top-k (`output_topk_p` / `output_topk_index`, `--speculative-eagle-topk` of them) and the draft "
        "model's hidden states (disaggregation/prefill.py:1036, decode.py:2727); DeepSeek-V4.1's DSpark also puts "
        "`num_draft_tokens` in its transfer layout (disaggregation/utils.py:1908). Different values there hand the "
        "decode a state shaped for another configuration. The number of draft steps is each role's own: the Ascend "
        "launchers' prefill 1 step / 2 draft tokens against decode 3 / 4 (NEXTN) is not reported.",
    fix="Use the same top-k and draft model on both roles (share them in the template).",
    fire=[px("--speculative-algorithm NEXTN --speculative-num-steps 1 --speculative-eagle-topk 1",
             "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 4"),
          px("--speculative-algorithm DSPARK --speculative-num-draft-tokens 2",
             "--speculative-algorithm DSPARK --speculative-num-draft-tokens 4")],
    quiet=[px("--speculative-algorithm NEXTN --speculative-num-steps 1 --speculative-eagle-topk 1 "
              "--speculative-num-draft-tokens 2",
              "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
              "--speculative-num-draft-tokens 4"),
           px("--speculative-algorithm NEXTN", "--speculative-algorithm NEXTN")],
    notes="Only settings written on at least one side are compared (the per-architecture defaults are the same on "
          "both). Field test rw15/j (chenxu214/ci_sglang's Ascend GLM-5 1P1D): the step counts alone were reported.")
def _spec_settings(p, d):
    pa, da = _algo(p), _algo(d)
    if pa is None or da is None or pa != da:
        return None
    diffs, blame = [], []
    keys = _SPEC_KEYS + (("speculative_num_draft_tokens",) if pa.upper() == "DSPARK" else ())
    for k in keys:
        if not (p.explicit(k) or d.explicit(k)) or not _known_both(p, d, k):
            continue
        pv, dv = p.get(k), d.get(k)
        if pv != dv:
            opt = (p if p.explicit(k) else d).option(k)
            diffs.append(f"{opt} {show_value(p, k)} on the prefill, {show_value(d, k)} on the decode")
            blame.append(k)
    if not diffs:
        return None
    return PairHit("prefill", *blame, other=tuple(blame), fmt={"diffs": "; ".join(diffs)})


# ---------------------------------------------------------------------------
# Parallelism
# ---------------------------------------------------------------------------

@sgl_pair_rule(
    "SGL813", "decode-pp-size-not-prefill-or-one",
    upstream="Decode pp size ({d}) should be equal to prefill pp size ({p}) or 1",
    source="disaggregation/common/conn.py:1516", upstream_id="xr-pp-size",
    summary="Reports a decode `--pp-size` that is neither 1 nor the prefill's `--pp-size`.",
    why="The decode maps its pipeline stages onto the prefill's: it can pull from a pipelined prefill into one "
        "stage, or stage to stage with the same split, nothing else. SGLang asserts this at the first request and "
        "the decode scheduler goes down.",
    fix="Give the decode `--pp-size 1` or the prefill's `--pp-size`.",
    fire=[px("--pp-size 2", "--pp-size 4"), px("", "--pp-size 2")],
    quiet=[px("--pp-size 2", "--pp-size 2"), px("--pp-size 4", ""), px("", "")])
def _pp(p, d):
    pv, dv = _int(p, "pp_size"), _int(d, "pp_size")
    if pv is None or dv is None or dv == 1 or dv == pv:
        return None
    return PairHit("decode", "pp_size", other=("pp_size",), fmt={"p": pv, "d": dv})


@sgl_pair_rule(
    "SGL814", "decode-attn-cp-not-one",
    upstream="Decode cp size ({n}) should be equal to 1",
    source="disaggregation/common/conn.py:1493", upstream_id="xr-decode-attn-cp-1",
    summary="Reports a decode server of a pair with `--attn-cp-size` greater than 1.",
    why="A prefill may split attention over context-parallel ranks; the decode pulls the KV into a single CP "
        "rank. SGLang asserts this when the decode first connects to the prefill, taking the decode down.",
    fix="Run the decode with `--attn-cp-size 1` (use decode DCP, `--dcp-size`, for context parallelism on decode).",
    fire=[px("", "--tp-size 2 --attn-cp-size 2")],
    quiet=[px("--tp-size 2 --attn-cp-size 2", "--tp-size 2"), px("", "")])
def _decode_cp(p, d):
    n = _int(d, "attn_cp_size")
    if n is None or n <= 1:
        return None
    return PairHit("decode", "attn_cp_size", fmt={"n": n})


def attn_tp(a):
    tp, dp, cp = _int(a, "tp_size"), _int(a, "attn_dp_size"), _int(a, "attn_cp_size")
    if tp is None:
        return None
    dp = dp if dp and dp > 0 else 1
    cp = cp if cp and cp > 0 else 1
    if not a.known("attn_dp_size") or not a.known("attn_cp_size"):
        return None
    return max(1, tp // dp // cp)


@sgl_pair_rule(
    "SGL815", "attention-tp-differs", severity=WARNING,
    upstream="Performance is NOT guaranteed when using different TP sizes for non-MLA models.",
    source="disaggregation/common/conn.py:1459", upstream_id="xr-attn-tp-ratio",
    summary="Reports a pair whose attention tensor-parallel sizes differ (`--tp-size` divided by the attention DP "
            "and CP sizes).",
    why="The decode then pulls each KV head slice from one or several prefill ranks. That works for MLA models, is "
        "slow for other models (and sgl-project/sglang#15674 reports crashes under load), and fails outright for "
        "hybrid models with non-MLA state (\"PD Disaggregation does NOT support PD different TP sizes for non-MLA "
        "... hybrid models yet\", llm-d/llm-d#2433), MXFP8 KV caches, unified memory and KV sharding.",
    fix="Prefer equal attention TP on both roles; keep different sizes only for MLA models, and make them divide "
        "each other.",
    fire=[px("--tp-size 4", "--tp-size 2"), px("--tp-size 1", "--tp-size 4"),
          px("--model-path Qwen/Qwen3-8B --tp-size 4", "--model-path Qwen/Qwen3-8B --tp-size 2")],
    quiet=[px("--tp-size 2", "--tp-size 2"), px("--tp-size 8 --dp-size 8 --enable-dp-attention", "--tp-size 1"),
           px("--model-path deepseek-ai/DeepSeek-V3 --tp-size 8", "--model-path deepseek-ai/DeepSeek-V3 --tp-size 4"),
           px("--model-path /models/Kimi-K2-Instruct --tp-size 4", "--model-path /models/Kimi-K2-Instruct --tp-size 8"),
           px("--model-path deepseek-ai/DeepSeek-V4-Pro --tp-size 4", "--model-path deepseek-ai/DeepSeek-V4-Pro --tp-size 8")],
    notes="A warning: whether the model is MLA (or hybrid) is not in the flags. Quiet when the model path (or, "
          "for a path that names no model, `--served-model-name`) names a family known to be MLA (DeepSeek "
          "V2/V3/R1, Kimi K2, ..., and DeepSeek-V4, whose KV pool the PD transfer moves as MLA rows: the inference is "
          "documented in docs/models.md); for a known non-MLA sliding-window hybrid (gpt-oss) SGLang refuses the "
          "transfer on some backends (SGL831) or with pipeline parallelism on the prefill (SGL830).")
def _attn_tp(p, d):
    pt, dt = attn_tp(p), attn_tp(d)
    if pt is None or dt is None or pt == dt:
        return None
    fams = [model_family(a) for a in (p, d)]
    if any(f is not None and f.transfer_mla for f in fams) and not any(f is not None and not f.transfer_mla
                                                                     for f in fams):
        return None  # an MLA model (to the PD transfer): the decode pulls whole latent rows, as SGLang expects
    if any(f is not None and f.hybrid == "swa" and not f.transfer_mla for f in fams) and p.gt("pp_size", 1):
        return None  # SGL830 reports the refusal
    if _swa_tp_refused(p, d):
        return None  # SGL831 reports the refusal
    note = f"attention TP {pt} on the prefill, {dt} on the decode"
    known = next((f for f in fams if f is not None), None)
    if known is not None:
        note += f"; {known.name} is not an MLA model"
    else:  # SGLang's message says "non-MLA" of a model pdlint cannot name: say what is not known (rw19/b)
        note += ("; whether the model is MLA, for which different sizes are expected, is not in the flags "
                 "(pdlint knows no family by this model path)")
    if max(pt, dt) % min(pt, dt):
        note += "; the sizes do not divide each other, which SGLang's KV slicing assumes"
    if _int(p, "tp_size") == _int(d, "tp_size"):
        # equal --tp-size: the attention DP (or CP) size of one side makes the difference, and is what to edit (the
        # decode's DEP4 `--tp-size 4 --dp-size 4 --enable-dp-attention` beside a `--tp-size 4` prefill: the caret was
        # on two equal --tp-size 4; field round rw29/a P4)
        for role, a in (("decode", d), ("prefill", p)):
            for dest, written, what in (("attn_dp_size", ("attn_dp_size", "dp_size", "enable_dp_attention"),
                                         "attention DP"), ("attn_cp_size", ("attn_cp_size",), "attention CP")):
                n = _int(a, dest)
                if n is not None and n > 1:  # (--attn-dp-size, else --dp-size with --enable-dp-attention)
                    return PairHit(role, *written, "tp_size", other=("tp_size",),
                                   note=f"{note}; the {role}'s --tp-size is divided by its {what} size {n}")
    return PairHit("decode", "tp_size", other=("tp_size",), note=note)


def model_family(a):
    """The model family the launch's ``--model-path`` names (:mod:`pdlint.models`), or None."""
    return named_family(a)[0]


def named_family(a) -> tuple:
    """(the model family, the flag that names it): ``--model-path``'s, or, when its last component matches no
    pattern (weights mounted at ``/model``), ``--served-model-name``'s (alisachen-google/gcp-dynamo-cuj's
    DeepSeek-R1 manifests, field test rw7/e); (None, None) when neither names one."""
    from pdlint.models import family, named
    for dest, flag in (("model_path", "--model-path"), ("served_model_name", "--served-model-name")):
        name = a.get(dest)
        if not a.known(dest) or not isinstance(name, str):
            continue
        if named(name):
            return family(name), flag
    return None, None


@sgl_pair_rule(
    "SGL830", "attention-tp-differs-swa-hybrid-with-pp",
    upstream="PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid models with pipeline "
             "parallelism yet.",
    source="disaggregation/common/conn.py:1766 (0.5.23; 0.5.22: common/conn.py:1580), reached from "
           "mooncake/conn.py:2083 when the KV is sliced by heads", upstream_id="xr-attn-tp-ratio",
    summary="Reports a pair serving a known non-MLA sliding-window hybrid model (gpt-oss, inferred from "
            "`--model-path`) whose attention TP sizes differ while the prefill runs pipeline parallelism "
            "(`--pp-size` > 1), on SGLang 0.5.22 or later.",
    why="With different attention TP the prefill slices the sliding-window KV by heads for each decode rank; the "
        "SWA pool has no layer ids and starts every pipeline stage at layer 0, so a prefill stage's entries cannot "
        "be paired with the decode's layers and SGLang raises at the first transfer, after both servers booted "
        "(the warning SGL815 gives for unknown models is an error for this family).",
    fix="Use the same attention TP size on both roles, or run the prefill with `--pp-size 1`.",
    fire=[px("--model-path openai/gpt-oss-120b --tp-size 4 --pp-size 2",
             "--model-path openai/gpt-oss-120b --tp-size 8")],
    quiet=[px("--model-path openai/gpt-oss-120b --tp-size 8 --pp-size 2",
              "--model-path openai/gpt-oss-120b --tp-size 8"),
           px("--model-path deepseek-ai/DeepSeek-V4 --tp-size 4 --pp-size 2",
              "--model-path deepseek-ai/DeepSeek-V4 --tp-size 8"),
           px("--model-path deepseek-ai/DeepSeek-V3 --tp-size 4 --pp-size 2",
              "--model-path deepseek-ai/DeepSeek-V3 --tp-size 8")],
    notes="The model family comes from the last component of `--model-path` (docs/models.md); a model pdlint "
          "cannot name keeps the SGL815 warning. DeepSeek-V4 is not sliced (its KV pool is an MLA backend to the PD "
          "transfer: disaggregation/utils.py is_mla_backend). Before 0.5.22 the backends refuse different attention "
          "TP for these models outright (SGL831).")
def _swa_hybrid_tp_pp(p, d):
    pt, dt = attn_tp(p), attn_tp(d)
    if pt is None or dt is None or pt == dt or not p.gt("pp_size", 1):
        return None
    fams = [model_family(a) for a in (p, d)]
    if not any(f is not None and f.hybrid == "swa" and not f.transfer_mla for f in fams) or \
            any(f is not None and f.transfer_mla for f in fams):
        return None
    from pdlint.engines.sglang.flags import version_key
    if p.version is None or version_key(p.version) < version_key("0.5.22") or _swa_tp_refused(p, d):
        return None  # (older releases refuse the pair whatever the PP size: SGL831)
    return PairHit("prefill", "pp_size", other=("tp_size",),
                   note=f"{next(f.name for f in fams if f is not None)}: attention TP {pt} on the prefill, "
                        f"{dt} on the decode, --pp-size {p.get('pp_size')} on the prefill")


def _swa_tp_refused(p, d):
    """``(family, backend, source)`` when the release's transfer backend refuses different attention TP for this
    non-MLA sliding-window hybrid (data/sglang-values.jsonl ``pd_swa_hybrid_heterogeneous_tp``), else None."""
    from pdlint.engines.sglang.versions import value_set
    fams = [f for f in (model_family(a) for a in (p, d)) if f is not None]
    # (DeepSeek-V4's KV pool is an MLA backend to the transfer: never sliced by heads)
    fam = next((f for f in fams if f.hybrid == "swa" and not f.transfer_mla), None)
    if fam is None or any(f.transfer_mla for f in fams):
        return None
    vs = value_set(p.version, "pd_swa_hybrid_heterogeneous_tp")
    backend = p.get("disaggregation_transfer_backend")
    if vs is None or not p.known("disaggregation_transfer_backend") or backend not in vs["values"]:
        return None
    return fam, backend, vs["sources"][backend]


@sgl_pair_rule(
    "SGL831", "attention-tp-differs-swa-hybrid",
    upstream="PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid models yet.",
    source="disaggregation/nixl/conn.py:3200", upstream_id="xr-attn-tp-ratio",
    summary="Reports a pair serving a known non-MLA sliding-window hybrid model (gpt-oss, inferred from "
            "`--model-path`) whose attention TP sizes differ, on a transfer backend whose release does not slice "
            "the sliding-window state by heads.",
    why="The sender transfers the sliding-window KV pool as whole pages; with different attention TP on the two "
        "sides it would have to split it by heads, which these backends do not do: the prefill's transfer worker "
        "raises at the first request and the client sees a hang (llm-d/llm-d#2433: gpt-oss-120b, prefill TP 1 / "
        "decode TP 4, NIXL, SGLang 0.5.16). The backends that refuse it are read from each release's source "
        "(Mooncake 0.5.9-0.5.21, NIXL 0.5.9-0.5.23).",
    fix="Use the same attention TP size on both roles, or (SGLang 0.5.22+) the Mooncake backend.",
    fire=[px("--model-path openai/gpt-oss-120b --tp-size 1 --disaggregation-transfer-backend nixl",
             "--model-path openai/gpt-oss-120b --tp-size 4 --disaggregation-transfer-backend nixl"),
          px("--model-path openai/gpt-oss-120b --tp-size 2", "--model-path openai/gpt-oss-120b --tp-size 4",
             version="0.5.16")],
    quiet=[px("--model-path openai/gpt-oss-120b --tp-size 2", "--model-path openai/gpt-oss-120b --tp-size 4"),
           px("--model-path openai/gpt-oss-120b --tp-size 4 --disaggregation-transfer-backend nixl",
              "--model-path openai/gpt-oss-120b --tp-size 4 --disaggregation-transfer-backend nixl"),
           px("--model-path Qwen/Qwen3-8B --tp-size 1 --disaggregation-transfer-backend nixl",
              "--model-path Qwen/Qwen3-8B --tp-size 4 --disaggregation-transfer-backend nixl")],
    notes="The model family comes from the last component of `--model-path` (docs/models.md); an unnamed model "
          "keeps the SGL815 warning. SGLang 0.5.22 taught Mooncake to slice the sliding-window state.")
def _swa_hybrid_tp(p, d):
    pt, dt = attn_tp(p), attn_tp(d)
    if pt is None or dt is None or pt == dt:
        return None
    got = _swa_tp_refused(p, d)
    if got is None:
        return None
    fam, backend, where = got
    return PairHit("decode", "tp_size", other=("tp_size",), lead=True,
                   note=f"{fam.name}: attention TP {pt} on the prefill, {dt} on the decode; SGLang {p.version}'s "
                        f"{backend} sender refuses to split its sliding-window state ({where})")


@sgl_pair_rule(
    "SGL816", "decode-dcp-with-prefill-cp",
    upstream="PD decode DCP currently requires prefill attention CP=1, got {n}.",
    source="disaggregation/common/conn.py:1413", upstream_id="xr-decode-dcp-prefill",
    summary="Reports a decode with `--dcp-size` > 1 paired with a prefill whose `--attn-cp-size` is greater than 1.",
    why="Decode context parallelism slices the KV by token across DCP ranks, which only works from a prefill that "
        "holds the whole sequence on one attention CP rank; the decode fails at the first request.",
    fix="Run the prefill with `--attn-cp-size 1`, or the decode without DCP.",
    fire=[px("--tp-size 2 --attn-cp-size 2", "--tp-size 2 --dcp-size 2")],
    quiet=[px("--tp-size 2", "--tp-size 2 --dcp-size 2"), px("--tp-size 2 --attn-cp-size 2", "--tp-size 2")])
def _dcp_cp(p, d):
    if not d.gt("dcp_size", 1):
        return None
    n = _int(p, "attn_cp_size")
    if n is None or n <= 1:
        return None
    return PairHit("decode", "dcp_size", other=("attn_cp_size",), fmt={"n": n})


@sgl_pair_rule(
    "SGL817", "decode-dcp-with-prefill-kv-sharding",
    upstream="PD decode DCP does not support a prefill with --enable-kv-cache-sharding.",
    source="disaggregation/common/conn.py:1413", upstream_id="xr-decode-dcp-prefill",
    summary="Reports a decode with `--dcp-size` > 1 paired with a prefill running `--enable-kv-cache-sharding`.",
    why="A sharded prefill KV cache and a DCP decode slice the cache in incompatible ways; the decode fails at the "
        "first request.",
    fix="Drop `--enable-kv-cache-sharding` on the prefill, or DCP on the decode.",
    fire=[px("--enable-kv-cache-sharding", "--tp-size 2 --dcp-size 2")],
    quiet=[px("", "--tp-size 2 --dcp-size 2"), px("--enable-kv-cache-sharding", "")])
def _dcp_sharding(p, d):
    if d.gt("dcp_size", 1) and p.is_true("enable_kv_cache_sharding"):
        return PairHit("decode", "dcp_size", other=("enable_kv_cache_sharding",))
    return None


@sgl_pair_rule(
    "SGL818", "prefill-dcp-layout-differs",
    message="the prefill server runs --dcp-size {p} but the decode server --dcp-size {d}: the prefill's KV "
            "transfer refuses the pair at the first request (\"Unsupported PD DCP topology: {p} -> {d}\")",
    upstream="Unsupported PD DCP topology: {p} -> {d}",
    source="disaggregation/common/conn.py:531 (requires_dcp_relayout, called from the prefill's bootstrap thread: "
           "mooncake/conn.py:2981, mori/conn.py:1118); arg_groups/pd_disaggregation_hook.py:58 warns at launch",
    upstream_id="xr-prefill-dcp-layout",
    summary="Reports a prefill with `--dcp-size` > 1 whose decode uses a different `--dcp-size`.",
    why="The prefill's DCP layout decides how its KV is split across ranks. SGLang relays a KV layout only from a "
        "prefill without DCP to a DCP decode (of an MLA model); any other pair of different DCP sizes raises "
        "`RuntimeError: Unsupported PD DCP topology` in the prefill's bootstrap thread, so no KV reaches the decode "
        "(at launch SGLang only warns: \"DCP on a PD prefill server is supported when prefill and decode use the "
        "same DCP layout\").",
    fix="Use the same `--dcp-size` on both roles, or drop DCP on the prefill.",
    fire=[px("--tp-size 2 --dcp-size 2", "--tp-size 2"), px("--tp-size 8 --dcp-size 8", "--tp-size 8 --dcp-size 4")],
    quiet=[px("--tp-size 2 --dcp-size 2", "--tp-size 2 --dcp-size 2"), px("", "")])
def _prefill_dcp(p, d):
    pv, dv = _int(p, "dcp_size"), _int(d, "dcp_size")
    if pv is None or dv is None or pv <= 1 or pv == dv:
        return None
    return PairHit("decode", "dcp_size", other=("dcp_size",), fmt={"p": pv, "d": dv})


@sgl_pair_rule(
    "SGL832", "decode-dcp-non-mla-model",
    message="the decode server runs --dcp-size {d} and the prefill none, serving {model}, which is not an MLA "
            "model: the prefill's KV transfer refuses the pair at the first request (\"Unsupported PD DCP "
            "topology: 1 -> {d}\")",
    upstream="Unsupported PD DCP topology: {p} -> {d}",
    source="disaggregation/common/conn.py:531 (requires_dcp_relayout: a prefill without DCP relays its KV to a DCP "
           "decode only for MLA or hybrid-MLA attention)",
    upstream_id="xr-decode-dcp-non-mla",
    summary="Reports a decode with `--dcp-size` > 1 paired with a prefill without DCP when the model (named by "
            "`--model-path`) is known not to be an MLA model.",
    why="Decode context parallelism splits each request's KV over the DCP ranks. SGLang re-lays a prefill's KV out "
        "for such a decode only when the attention is MLA (one latent row per token); for any other model the "
        "prefill's bootstrap thread raises `RuntimeError: Unsupported PD DCP topology: 1 -> N` and the pair never "
        "transfers KV (whn09/kimi-k3-sglang documents hitting it). Each server alone starts.",
    fix="Drop `--dcp-size` on the decode (or give the prefill the same DCP size), or serve an MLA model.",
    fire=[px("--model-path Qwen/Qwen3-32B --tp-size 8", "--model-path Qwen/Qwen3-32B --tp-size 8 --dcp-size 8")],
    quiet=[px("--model-path deepseek-ai/DeepSeek-V3 --tp-size 8",
              "--model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dcp-size 8"),
           px("--model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8",
              "--model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --dcp-size 8"),
           px("--tp-size 8", "--tp-size 8 --dcp-size 8"),
           px("--model-path Qwen/Qwen3-32B --tp-size 8", "--model-path Qwen/Qwen3-32B --tp-size 8")],
    notes="Only for a model pdlint knows (docs/models.md): whether the attention is MLA is not in the flags, so a "
          "model path that names no known family is not judged.")
def _decode_dcp_non_mla(p, d):
    pv, dv = _int(p, "dcp_size"), _int(d, "dcp_size")
    if pv != 1 or dv is None or dv <= 1:
        return None
    fams = [model_family(a) for a in (p, d)]
    if any(f is None or f.transfer_mla for f in fams):  # (DeepSeek-V4's pool is an MLA backend: relaid out)
        return None
    return PairHit("decode", "dcp_size", fmt={"p": pv, "d": dv, "model": fams[1].name})


UM_LAYOUT = ("PD KV layout mismatch on the whole-envelope path: prefill has {} KV region(s) with item_lens={}, decode "
             "has {} with item_len={}. With --enable-unified-memory both sides must enable it and use the same page "
             "size and model spec.")


@sgl_pair_rule(
    "SGL819", "unified-memory-on-one-side",
    message="--enable-unified-memory is set on the {side} server only; SGLang rejects the peer at the first "
            "transfer: \"PD KV layout mismatch on the whole-envelope path: ... With --enable-unified-memory both "
            "sides must enable it and use the same page size and model spec.\"",
    upstream=UM_LAYOUT, source="disaggregation/mooncake/conn.py:1319", upstream_id="xr-unified-memory",
    summary="Reports `--enable-unified-memory` on one role of a pair only.",
    why="Unified memory registers one whole-envelope KV region addressed with its own item length; a peer without "
        "it registers per-layer regions, and the transfer is rejected before the first write.",
    fix="Enable `--enable-unified-memory` on both roles (same page size and model), or on neither.",
    fire=[px("--enable-unified-memory", "")],
    quiet=[px("--enable-unified-memory", "--enable-unified-memory"), px("", "")])
def _um_one_side(p, d):
    if not (p.known("enable_unified_memory") and d.known("enable_unified_memory")):
        return None
    pv, dv = p.is_true("enable_unified_memory"), d.is_true("enable_unified_memory")
    if pv == dv:
        return None
    side, other = ("prefill", "decode") if pv else ("decode", "prefill")
    return PairHit(other, other=("enable_unified_memory",), fmt={"side": side})


@sgl_pair_rule(
    "SGL820", "unified-memory-attention-tp-differs",
    upstream="--enable-unified-memory does not support different prefill / decode attention TP sizes (prefill={p}, "
             "decode={d}): the whole-envelope state cannot be TP-resliced.",
    source="disaggregation/mooncake/conn.py:1306", upstream_id="xr-unified-memory",
    summary="Reports a unified-memory pair whose attention TP sizes differ.",
    why="The unified-memory pool transfers one whole envelope per page, which cannot be resliced across a "
        "different number of attention TP ranks.",
    fix="Use the same attention TP on both roles.",
    fire=[px("--enable-unified-memory --tp-size 2", "--enable-unified-memory --tp-size 4")],
    quiet=[px("--enable-unified-memory --tp-size 2", "--enable-unified-memory --tp-size 2")])
def _um_tp(p, d):
    if not (p.is_true("enable_unified_memory") and d.is_true("enable_unified_memory")):
        return None
    pt, dt = attn_tp(p), attn_tp(d)
    if pt is None or dt is None or pt == dt:
        return None
    return PairHit("decode", "tp_size", other=("tp_size",), fmt={"p": pt, "d": dt})


# ---------------------------------------------------------------------------
# Model and request limits
# ---------------------------------------------------------------------------

def _model_name(a):
    v = _val(a, "model_path")
    tok = a.token("model_path")
    if not isinstance(v, str) or not v or (tok is not None and tok.opaque):
        return None
    return v.rstrip("/")


@sgl_pair_rule(
    "SGL821", "model-path-mismatch",
    message="the prefill server loads {p} but the decode server loads {d}: the decode adopts the prefill's KV "
            "cache and first token, which only fit the same model (layers, KV heads, head size, tokenizer)",
    source="disaggregation/common/conn.py", upstream_id="xr-model",
    summary="Reports a pair whose `--model-path` values name different models (the last path component differs).",
    why="SGLang has no identity check: geometry checks (KV item lengths, page size, dtype) catch most mismatched "
        "pairs at the first request, and the rest decode garbage from a KV cache another model produced.",
    fix="Serve the same model (and revision) on both roles.",
    fire=[px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-0.6B")],
    quiet=[px("--model-path /models/Qwen3-8B", "--model-path /mnt/weights/Qwen3-8B/"),
           px("--model-path Qwen/Qwen3-8B", "--model-path Qwen/Qwen3-8B")],
    notes="Paths that differ only in their directory (different mount points) are not reported.")
def _model(p, d):
    pv, dv = _model_name(p), _model_name(d)
    if pv is None or dv is None or pv == dv:
        return None
    if pv.rsplit("/", 1)[-1].lower() == dv.rsplit("/", 1)[-1].lower():
        return None
    return PairHit("decode", "model_path", other=("model_path",), fmt={"p": pv, "d": dv})


@sgl_pair_rule(
    "SGL822", "quantization-mismatch", severity=WARNING,
    message="the prefill server runs --quantization {p} but the decode server {d}: the decode continues from KV "
            "computed by differently quantized weights",
    source="disaggregation/common/conn.py", upstream_id="xr-model",
    summary="Reports a pair whose `--quantization` values differ (unset counts as the checkpoint's own format: "
            "not reported when the model's name, or the name both sides serve it under, says that format is the "
            "other side's, `Qwen/Qwen3-8B-FP8` with `fp8`).",
    why="Prefill and decode must run the same weights: KV produced by one quantization and continued by another "
        "changes outputs (and some methods change the KV geometry as well). Nothing in SGLang checks it.",
    fix="Use the same `--quantization` on both roles.",
    fire=[px("--quantization fp8", ""), px("--quantization fp8", "--quantization awq"),
          px("--served-model-name Qwen/Qwen3-8B-FP8", "--served-model-name Qwen/Qwen3-8B --quantization fp8")],
    quiet=[px("--quantization fp8", "--quantization fp8"), px("", ""),
           px("--served-model-name Qwen/Qwen3-8B-FP8",
              "--served-model-name Qwen/Qwen3-8B-FP8 --quantization fp8")])
def _quant(p, d):
    if not _known_both(p, d, "quantization"):
        return None
    pv, dv = p.get("quantization"), d.get("quantization")
    if pv == dv:
        return None
    if not (pv and dv) and _checkpoint_format(p, d, pv or dv):
        return None  # unset takes the checkpoint's format, which the model's name says is the other side's
    edit = "decode" if d.explicit("quantization") else "prefill"
    return PairHit(edit, "quantization", other=("quantization",),
                   fmt={"p": pv or "unset", "d": dv or "unset"})


def _checkpoint_format(p, d, method: str) -> bool:
    """Does the (same) model of both sides name ``method`` as its checkpoint's format in its last path part
    (``Qwen/Qwen3.5-397B-A17B-FP8`` and ``fp8``; ``...-AWQ`` and ``awq``; ``...-NVFP4`` and ``modelopt_fp4``)?
    SGLang takes an unset ``--quantization`` from the checkpoint's config (``model_config.py``), so that side
    runs ``method`` too (SGL822 noise on NVIDIA/srt-slurm's Qwen3.5 FP8 recipes)."""
    pm, dm = _model_name(p), _model_name(d)
    if pm != dm or not isinstance(method, str):
        return False  # (both None: a recipe whose tool mounts one model for both, srtctl's `model.path`)
    names = [pm] if pm is not None else []
    ps, ds = _served_name(p), _served_name(d)
    if ps is not None and ps == ds:
        # the checkpoint mounted at a neutral path (`--model-path /model/`) and served under its own name
        # (`--served-model-name Qwen/Qwen3.5-397B-A17B-FP8`: NVIDIA/srt-slurm's recipes, field test rw21/b)
        names.append(ps)
    token = method.lower().replace("modelopt_", "")
    for name in names:
        words = set(re.split(r"[^a-z0-9]+", name.rstrip("/").rsplit("/", 1)[-1].lower()))
        if token in words or (token == "fp4" and "nvfp4" in words):
            return True
    return False


def _served_name(a):
    v = _val(a, "served_model_name")
    tok = a.token("served_model_name")
    if isinstance(v, list):
        v = v[0] if len(v) == 1 else None
    if not isinstance(v, str) or not v or (tok is not None and tok.opaque):
        return None
    return v


@sgl_pair_rule(
    "SGL823", "prefill-context-length-exceeds-decode", severity=WARNING,
    message="the prefill server accepts prompts up to {p} tokens (--context-length) but the decode server only "
            "{d}: requests between {lo} and {p} tokens are prefilled and then fail on the decode",
    source="managers/tokenizer_manager.py", upstream_id="",
    summary="Reports a pair whose prefill `--context-length` is larger than the decode's (both written).",
    why="The router sends each request to both servers; the decode validates the prompt against its own context "
        "length and rejects what the prefill accepted, so long requests fail after their prefill was computed "
        "(the GeneratedRandomly/SGLang-reproduce launchers: 8192 on prefill, 4500 on decode).",
    fix="Give the prefill a `--context-length` no larger than the decode's (or raise the decode's).",
    fire=[px("--context-length 8192", "--context-length 4500")],
    quiet=[px("--context-length 4500", "--context-length 8192"), px("--context-length 8192", ""),
           px("--context-length 8192", "--context-length 8192")],
    notes="Unset context lengths are the model's maximum and are not compared.")
def _context(p, d):
    if not (p.explicit("context_length") and d.explicit("context_length")):
        return None
    pv, dv = _int(p, "context_length"), _int(d, "context_length")
    if pv is None or dv is None or pv <= dv:
        return None
    return PairHit("prefill", "context_length", other=("context_length",), fmt={"p": pv, "d": dv, "lo": dv + 1})


# ---------------------------------------------------------------------------
# Router links (pairbase.link_candidates)
# ---------------------------------------------------------------------------

ROUTER_BOOTSTRAP = register(Rule(
    "SGL824", "router-bootstrap-port-mismatch", _E,
    "Reports an SGLang PD router (`sglang_router --pd-disaggregation`, `mini_lb`) whose `--prefill URL "
    "[BOOTSTRAP_PORT]` leads decode servers to a bootstrap port the prefill does not listen on: the port given "
    "after the URL differs from the prefill's `--disaggregation-bootstrap-port` (default 8998), or no port is given "
    "and the decode's own `--disaggregation-bootstrap-port` differs from the prefill's.",
    "The router passes the bootstrap host and port with every request; without one the decode falls back to its "
    "own `--disaggregation-bootstrap-port` (managers/scheduler.py). Pointed at a port where no bootstrap server "
    "listens, the decode cannot fetch the prefill's KV info: requests hang or fail with connection errors / "
    "\"Bootstrap info not found\".",
    "Give the router the prefill's bootstrap port (`--prefill http://host:port BOOTSTRAP_PORT`), or make the "
    "ports agree.",
    example="python -m sglang.launch_server --disaggregation-mode prefill --disaggregation-bootstrap-port 8995 ...\n"
            "python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 8998 "
            "--decode http://d:30000",
    example_fixed="python -m sglang.launch_server --disaggregation-mode prefill --disaggregation-bootstrap-port "
                  "8995 ...\npython -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 8995 "
                  "--decode http://d:30000",
    engine="sglang", roles=("prefill", "decode"), upstream_id="xr-bootstrap-port",
    source="sglang/srt/managers/scheduler.py:2970", category="pair"))
