"""Checks only older SGLang releases have (SGL901-SGL999).

Rules elsewhere are written against the reference release (0.5.23) and apply to older releases whose
source still has their message.  These are the checks that 0.5.23 no longer has, found by running each
older release's own argument checks (``scripts/sglang_oracle_legacy.py``) on random command lines: their
messages date them, so each applies exactly to the releases whose ``server_args.py`` still raises it, and
their examples are judged against the newest of those.
"""

import functools
from typing import Optional

from pdlint import lazyre
from pdlint.engines.sglang.rulebase import Hit, ex, sgl_rule
from pdlint.engines.sglang.rules.lora import LORA, _paths
from pdlint.engines.sglang.rules.parallel import num

SA = "server_args.py"


def _rule(code, name, upstream, line, why, fix, fire, quiet, roles=(), notes="", category="legacy", env=()):
    return sgl_rule(code, name, category=category, roles=roles, upstream=upstream, source=f"{SA}:{line}",
                    why=why, fix=fix, fire=fire, quiet=quiet, notes=notes, env=env)


@_rule("SGL901", "dp-attention-without-dp-size", "Please set a dp-size > 1. You can use 1 < dp-size <= tp-size ",
       419, "Up to 0.4.10.post2 `--enable-dp-attention` takes its width from `--dp-size`, and `__post_init__` "
            "asserts that it is above 1. Later releases fold `--dp-size N --enable-dp-attention` into "
            "`--attn-dp-size N` and accept DP attention of width 1.",
       "Add `--dp-size N` (1 < N <= `--tp-size`) to the `--enable-dp-attention` launch, or drop the flag.",
       ["--enable-dp-attention", "--enable-dp-attention --dp-size 1 --tp-size 2"],
       ["--enable-dp-attention --dp-size 2 --tp-size 2", "--dp-size 2"])
def _dp_attention_width(a):
    dp = num(a, "dp_size") if "enable_dp_attention" not in a.overrides else a.raw("dp_size")
    if a.raw("enable_dp_attention") is True and isinstance(dp, int) and dp <= 1:
        return Hit("enable_dp_attention", "dp_size")


@_rule("SGL902", "moe-dense-tp-size-not-one", "moe_dense_tp_size only support 1 and None currently", 5153,
       "Up to 0.5.9 the dense layers of a MoE model run either with the full TP group (`None`) or unsharded "
       "(`1`); `check_server_args` (0.4.x: `__post_init__`) refuses any other `--moe-dense-tp-size`. 0.5.10 "
       "also allows `--tp-size`.",
       "Use `--moe-dense-tp-size 1`, or leave it unset.",
       ["--moe-dense-tp-size 2", "--moe-dense-tp-size 4 --tp-size 4"], ["--moe-dense-tp-size 1", "--tp-size 2"])
def _moe_dense_tp(a):
    v = num(a, "moe_dense_tp_size")
    if a.explicit("moe_dense_tp_size") and v is not None and v != 1:
        return Hit("moe_dense_tp_size")


def _decode_side_flag(code, name, dest, option, line):
    @_rule(code, name, f"Cannot set {option} for the decode engine.", line,
           f"`{option}` tells a prefill server how the decode side is laid out; up to 0.5.9 a decode server "
           "refuses it outright (`assert ... is None` in the PD handler), so a flag list shared by both roles "
           "fails on decode.",
           f"Pass `{option}` on prefill servers only.",
           [f"--disaggregation-mode decode {option} 2"],
           [f"--disaggregation-mode prefill {option} 2", "--disaggregation-mode decode"], roles=("decode",),
           category="pd")
    def check(a):
        if a.role == "decode" and a.explicit(dest) and a.is_set(dest):
            return Hit(dest)
    return check


_decode_side_flag("SGL903", "decode-tp-on-decode", "disaggregation_decode_tp", "--disaggregation-decode-tp", 2550)
_decode_side_flag("SGL904", "decode-dp-on-decode", "disaggregation_decode_dp", "--disaggregation-decode-dp", 2553)


@_rule("SGL905", "lora-with-radix-cache", "compatibility of lora and radix attention is in progress", 1653,
       "Up to 0.4.10.post2 SGLang could not serve LoRA adapters with the radix cache on: `check_server_args` "
       "asserts that `--lora-paths` comes with `--disable-radix-cache` (and a positive `--max-loras-per-batch`). "
       "0.5.0rc2 dropped the restriction, so a LoRA launch that works on a new image fails on an old one.",
       "Add `--disable-radix-cache` to the LoRA launch (decode servers disable it themselves), or run SGLang "
       "0.5.0rc2 or newer.",
       [LORA, LORA + " --disaggregation-mode prefill", "--max-loras-per-batch 0"],
       [LORA + " --disable-radix-cache", LORA + " --disaggregation-mode decode"],
       notes="Decode servers force the radix cache off in `__post_init__`, before the check runs.", category="lora")
def _lora_radix(a):
    paths = _paths(a)
    if a.le("max_loras_per_batch", 0):
        return Hit("max_loras_per_batch")
    if paths and a.is_false("disable_radix_cache"):
        return Hit("lora_paths", "disable_radix_cache")


@_rule("SGL906", "pp-with-speculative-or-mixed-chunk",
       "Pipeline parallelism is not compatible with overlap schedule, speculative decoding, mixed chunked prefill.",
       5141, "Up to 0.5.14 `check_server_args` refuses pipeline parallelism together with speculative decoding or "
             "`--enable-mixed-chunk` (the overlap schedule is turned off for PP by SGLang itself). 0.5.15 still "
             "refuses speculative decoding with PP, under a shorter message.",
       "Use `--pp-size 1` with speculative decoding or mixed chunked prefill, or drop them.",
       ["--pp-size 2 --enable-mixed-chunk", "--pp-size 2 --speculative-algorithm EAGLE --speculative-draft-model-path "
        "@TINY@"], ["--pp-size 2", "--enable-mixed-chunk"])
def _pp_spec_mixed(a):
    pp = num(a, "pp_size")
    if pp is not None and pp > 1 and (a.is_set("speculative_algorithm") or a.is_true("enable_mixed_chunk")):
        return Hit("pp_size", "speculative_algorithm" if a.is_set("speculative_algorithm") else "enable_mixed_chunk")


@_rule("SGL907", "two-batch-overlap-without-a2a", "When enabling two batch overlap, moe_a2a_backend cannot be 'none'.",
       5259, "Two-batch overlap splits a batch so that one half's MoE all-to-all overlaps the other half's compute; "
             "with no all-to-all backend there is nothing to overlap, and the releases that have this check "
             "refuse it in `check_server_args`.",
       "Add `--moe-a2a-backend deepep` (or another a2a backend), or drop `--enable-two-batch-overlap`.",
       ["--enable-two-batch-overlap", "--disaggregation-mode decode --enable-two-batch-overlap --ep-size 2"],
       ["--enable-two-batch-overlap --moe-a2a-backend deepep", "--moe-a2a-backend deepep"], category="moe")
def _tbo_a2a(a):
    if a.is_true("enable_two_batch_overlap") and a.eq("moe_a2a_backend", "none"):
        return Hit("enable_two_batch_overlap", "moe_a2a_backend")


@_rule("SGL908", "language-only-without-encoder-urls", "requires at least one encoder urls to be set via --encoder-urls",
       2586, "A `--language-only` server (encoder disaggregation) receives the vision embeddings from separate "
             "encoder servers; without `--encoder-urls` it has none to ask, and these releases refuse it in "
             "`__post_init__`.",
       "Add `--encoder-urls` naming the encoder servers, or drop `--language-only`.",
       ["--language-only", "--disaggregation-mode prefill --language-only"],
       ["--language-only --encoder-urls http://encoder:30000", "--disaggregation-mode prefill"])
def _language_only_urls(a):
    if a.is_true("language_only") and a.is_unset("encoder_urls"):
        return Hit("language_only", "encoder_urls")


@_rule("SGL909", "mori-chunked-prefill-above-dispatch-limit",
       "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be larger or equal to chunked_prefill_size",
       2226, "The MoRI all-to-all dispatch buffer holds `SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK` tokens (4096 "
             "unless set); a prefill chunk larger than that cannot be dispatched.",
       "Lower `--chunked-prefill-size` to at most the dispatch limit, or raise "
       "`SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK`.",
       ["--moe-a2a-backend mori --chunked-prefill-size 8192",
        ex("--moe-a2a-backend mori --chunked-prefill-size 4096", {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "2048"})],
       ["--moe-a2a-backend mori --chunked-prefill-size 4096", "--chunked-prefill-size 8192"], category="moe",
       env=("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK",),
       notes="Only decidable with an explicit --chunked-prefill-size: SGLang derives the default from GPU memory "
             "(8192 on an H100/H200, which this check then refuses). With DP attention the size checked is "
             "--chunked-prefill-size divided by --dp-size (SGLang divides it before this check). From 0.5.10 "
             "not checked on a decode server or with chunked prefill disabled.")
def _mori_chunk(a):
    chunk = num(a, "chunked_prefill_size")
    if not (a.eq("moe_a2a_backend", "mori") and a.explicit("chunked_prefill_size") and chunk is not None):
        return None
    from pdlint.engines.sglang.flags import version_key
    if version_key(a.version) >= version_key("0.5.10") and (chunk <= 0 or a.eq("disaggregation_mode", "decode")):
        return None  # (0.5.10-0.5.14 skip the check for a disabled chunked prefill and on a decode server)
    # _handle_data_parallelism runs before _handle_a2a_moe: with DP attention the size checked is per DP rank
    # (`--dp-size N --enable-dp-attention` is folded into attn_dp_size N by the resolution, pdlint.engines.sglang
    # .resolve, for these releases too)
    dp = num(a, "attn_dp_size") or 1
    per_rank = int(chunk) // int(dp) if dp > 1 else int(chunk)
    limit = a.env_int("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK") or 4096
    if per_rank > limit:
        shown = f"{int(chunk)} / dp-size {int(dp)} = {per_rank}" if per_rank != int(chunk) else f"{per_rank}"
        return Hit("chunked_prefill_size", "moe_a2a_backend", note=f"{shown} > the dispatch limit {limit}")


@_rule("SGL910", "speculative-moe-runner-flashinfer-trtllm",
       "Currently speculative MoE runner backend cannot be flashinfer_trtllm for risk in some draft models.", 2348,
       "These releases refuse the flashinfer_trtllm MoE runner for the draft model outright (an accuracy risk "
       "with some draft models), with or without a speculative algorithm.",
       "Leave `--speculative-moe-runner-backend` unset (SGLang picks one), or choose another runner.",
       ["--speculative-moe-runner-backend flashinfer_trtllm"],
       ["--speculative-moe-runner-backend triton", "--moe-runner-backend triton"], category="moe")
def _spec_moe_runner(a):
    if a.explicit("speculative_moe_runner_backend") and a.eq("speculative_moe_runner_backend", "flashinfer_trtllm"):
        return Hit("speculative_moe_runner_backend")


@sgl_rule("SGL911", "hicache-buffer-only-write-back", category="kv-cache",
          upstream="--hicache-host-memory-mode buffer_only does not support --hicache-write-policy write_back; use "
                   "write_through or write_through_selective.",
          source="arg_groups/hicache_hook.py:238",
          why="In buffer_only mode host memory is only a staging buffer and every cached page lives in storage; a "
              "write-back policy would keep pages only in host memory until eviction. 0.5.21 refuses the "
              "combination.",
          fix="Use `--hicache-write-policy write_through` (or `write_through_selective`) with buffer_only.",
          fire=["--enable-hierarchical-cache --hicache-storage-backend file --hicache-host-memory-mode buffer_only "
                "--hicache-write-policy write_back"],
          quiet=["--enable-hierarchical-cache --hicache-storage-backend file --hicache-host-memory-mode buffer_only "
                 "--hicache-write-policy write_through",
                 "--enable-hierarchical-cache --hicache-storage-backend file --hicache-write-policy write_back"])
def _buffer_only_write_back(a):
    if (a.hicache_path_active() and a.eq("hicache_host_memory_mode", "buffer_only")
            and a.is_set("hicache_storage_backend") and a.eq("hicache_write_policy", "write_back")):
        return Hit("hicache_write_policy", "hicache_host_memory_mode")


@sgl_rule("SGL912", "spec-skip-dp-mlp-sync-without-eagle", category="speculative",
          upstream="--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == EAGLE, got "
                   "{speculative_algorithm}.",
          source="arg_groups/speculative_hook.py:217",
          why="Skipping the DP MLP sync on draft steps relies on EAGLE's draft schedule; 0.5.21 asserts the "
              "algorithm, also when no algorithm is set.",
          fix="Drop `--speculative-skip-dp-mlp-sync`, or use `--speculative-algorithm EAGLE`.",
          fire=["--speculative-skip-dp-mlp-sync",
                "--speculative-skip-dp-mlp-sync --speculative-algorithm NGRAM"],
          quiet=["--speculative-skip-dp-mlp-sync --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@",
                 "--speculative-algorithm EAGLE --speculative-draft-model-path @TINY@"])
def _skip_dp_mlp_sync(a):
    if a.is_true("speculative_skip_dp_mlp_sync") and a.known("speculative_algorithm") \
            and a.get("speculative_algorithm") != "EAGLE":
        return Hit("speculative_skip_dp_mlp_sync", "speculative_algorithm")


@sgl_rule("SGL913", "two-batch-overlap-without-a2a-or-dp-attention", category="moe",
          upstream="When enabling two batch overlap without an EP a2a backend (moe_a2a_backend='none'), "
                   "--enable-dp-attention is required (DeepSeek-V4 non-EP DP TBO path).",
          source="arg_groups/validation_hook.py:533",
          why="Without an EP all-to-all, two-batch overlap only has the DP all-gather / reduce-scatter of DP "
              "attention to overlap; 0.5.21 requires `--enable-dp-attention` (0.5.23: SGL277, the attention-DP "
              "form of the same check).",
          fix="Add `--moe-a2a-backend deepep` (or another a2a backend) or DP attention, or drop "
              "`--enable-two-batch-overlap`.",
          fire=["--enable-two-batch-overlap", "--enable-two-batch-overlap --tp-size 2"],
          quiet=["--enable-two-batch-overlap --moe-a2a-backend deepep",
                 "--enable-two-batch-overlap --enable-dp-attention --dp-size 2 --tp-size 2"])
def _tbo_dp_attention(a):
    if not (a.is_true("enable_two_batch_overlap") and a.eq("moe_a2a_backend", "none")):
        return None
    if a.raw("enable_dp_attention") is False and a.le("attn_dp_size", 1):
        return Hit("enable_two_batch_overlap", "moe_a2a_backend")


@_rule("SGL914", "session-radix-cache-without-priority-eviction",
       "--enable-session-radix-cache requires --radix-eviction-policy priority", 5768,
       "The session radix cache pins a session's prefix by priority; these releases refuse it with any other "
       "eviction policy (the default is lru).",
       "Add `--radix-eviction-policy priority`, or drop `--enable-session-radix-cache`.",
       ["--enable-session-radix-cache", "--enable-session-radix-cache --radix-eviction-policy lru"],
       ["--enable-session-radix-cache --radix-eviction-policy priority", "--radix-eviction-policy lru"],
       category="kv-cache")
def _session_radix(a):
    if a.is_true("enable_session_radix_cache") and a.ne("radix_eviction_policy", "priority"):
        return Hit("enable_session_radix_cache", "radix_eviction_policy")


@_rule("SGL915", "int8-mamba-checkpoint-with-hicache-himamba",
       "--enable-int8-mamba-checkpoint is not supported together with --enable-hierarchical-cache: the host-offload "
       "path (HiMambaRadixCache) is not int8-aware. Disable one of them.", 4646,
       "The check SGL344 makes, in the wording of the releases before 0.5.16 (which name HiMambaRadixCache): "
       "HiCache's host offload would read int8 checkpoint slots as bf16 state.",
       "Drop `--enable-int8-mamba-checkpoint` or `--enable-hierarchical-cache`.",
       ["--enable-int8-mamba-checkpoint --enable-hierarchical-cache"], ["--enable-int8-mamba-checkpoint"],
       category="kv-cache")
def _int8_himamba(a):
    if a.is_true("enable_int8_mamba_checkpoint") and a.is_true("enable_hierarchical_cache"):
        return Hit("enable_int8_mamba_checkpoint", "enable_hierarchical_cache")


_BUILTINS = lazyre.compile(r"Builtins: ([A-Za-z0-9_, ]+)\.")


def _builtin_algorithms(table) -> Optional[frozenset]:
    """The speculative algorithms a release documents as built in (its --speculative-algorithm help, from
    0.5.12 on, when the flag lost its choices); None when the release has choices (argparse checks them)."""
    flag = table.by_dest.get("speculative_algorithm")
    if flag is None or flag.choices:
        return None
    m = _BUILTINS.search(flag.help)
    return frozenset(x.strip().upper() for x in m.group(1).split(",")) if m else None


@functools.lru_cache(maxsize=1)
def _every_builtin_algorithm() -> frozenset:
    from pdlint.engines.sglang.flags import available_versions, load
    out: set = set()
    for v in available_versions():
        table = load(v)
        flag = table.by_dest.get("speculative_algorithm")
        if flag is not None:
            out |= set(_builtin_algorithms(table) or ()) | {str(c).upper() for c in flag.choices or ()}
    return frozenset(out)


@sgl_rule("SGL916", "spec-algorithm-of-another-release", category="speculative",
          upstream="",
          summary="Reports a --speculative-algorithm that other SGLang releases have built in and this release "
                  "does not (0.5.12-0.5.19: DSPARK before 0.5.16, UNO before 0.5.20).",
          source="speculative/spec_info.py:57",
          why="From 0.5.12 the flag has no argparse choices: `SpeculativeAlgorithm.from_string` refuses an "
              "unregistered name after parsing (`Unknown speculative algorithm name: DSPARK`). A launch template "
              "written for a newer image that picks a newer algorithm fails on an older one.",
          fix="Pin an SGLang release that has the algorithm, or pick one of this release's builtins.",
          fire=["--speculative-algorithm UNO --speculative-draft-model-path @TINY@"],
          quiet=["--speculative-algorithm EAGLE --speculative-draft-model-path @TINY@",
                 "--speculative-algorithm ngram"],
          notes="Names no release has built in (a plugin's `SpeculativeAlgorithm.register`) are not judged. Its "
                "message lives in speculative/spec_info.py, outside the message corpus the ranges come from, so "
                "the range is the releases whose documented builtins lack another release's (since / until).",
          since="0.5.12", until="0.5.19")
def _other_release_algorithm(a):
    builtins = _builtin_algorithms(a.parsed.table)
    name = a.raw("speculative_algorithm")
    if builtins is None or not isinstance(name, str) or name.upper() in builtins | {"NONE"}:
        return None
    if name.upper() in _every_builtin_algorithm():
        return Hit("speculative_algorithm", lead=True, note=(
            f"Unknown speculative algorithm name: {name.upper()}: SGLang {a.version} has built in only "
            f"{', '.join(sorted(builtins))}; other releases have {name.upper()}"))
