"""Role-independent KV-cache checks: radix and hierarchical cache, LMCache, the
unified-cache external linker, prefill-only KV-less serving, the unified memory
pool, offload and Mamba state caches (``research/sglang-rules.md`` section 4.2,
SGL301-SGL399).

The rules have no role restriction, but the radix cache is decided by the role
on a decode server (off unless ``--disaggregation-decode-enable-radix-cache``),
so predicates ask :func:`_radix_off` / :func:`_radix_on` instead of reading
``--disable-radix-cache``.  Where a role-dependent rule already reports the
launch (SGL102 decode HiCache, SGL129 LMCache on PD servers) these rules stay
quiet.
"""


from pdlint import lazyre
from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import WARNING, Hit, at_least, attention_backends, given, sgl_rule

KV = "arg_groups/kv_cache_hook.py"
HC = "arg_groups/hicache_hook.py"
MB = "arg_groups/mamba_hook.py"
MEM = "arg_groups/memory_hook.py"

RADIX_OFF_BY_DECODE = ("a decode server turns its radix cache off unless --disaggregation-decode-enable-radix-cache "
                       "is given")


def rule(code, name, *, source, uid, **kw):
    return sgl_rule(code, name, source=source, upstream_id=uid, category="kv-cache", **kw)


# -- helpers: resolved values SGLang's hooks see --------------------------------------------------

def _decode_role_radix_off(a) -> bool:
    return a.role == "decode" and a.is_false("disaggregation_decode_enable_radix_cache")


def _radix_on(a) -> bool:
    """The radix cache is known to be on when the PD hook has run (before the MIS and
    deterministic-inference hooks)."""
    return a.role is not None and a.is_false("disable_radix_cache")


def _radix_off(a, *, role: bool = False):
    """Why the radix cache is off once the attention hooks have run, as (blame, note); None when it
    is on or unknown.  ``role``: also report a decode server without the decode radix cache."""
    if a.role is None:
        return None
    if _decode_role_radix_off(a):
        return (("disaggregation_mode",), RADIX_OFF_BY_DECODE) if role else None
    if a.is_true("disable_radix_cache"):
        return ("disable_radix_cache",), ""
    pre, dec = attention_backends(a)
    if a.is_true("enable_mis") and pre == dec == "flashinfer":
        return ("enable_mis",), "--enable-mis turns the radix cache off"
    # up to 0.5.11 the cache-compatibility check ran before deterministic inference turned the radix cache off
    if (a.is_true("enable_deterministic_inference") and given(a, "attention_backend") == "flashinfer"
            and at_least(a, "0.5.12")):
        return (("enable_deterministic_inference", "attention_backend"),
                "deterministic inference turns the radix cache off on the flashinfer attention backend")
    return None


def _hicache_active(a) -> bool:
    """handle_hicache validates the HiCache knobs (hicache_hook.py:63)."""
    if a.is_true("enable_unified_cache_external_linker"):
        return False
    return (a.is_true("enable_hierarchical_cache") or a.is_true("disaggregation_decode_enable_offload_kvcache")
            or (a.role == "decode" and a.among("disaggregation_decode_retraction_backup", (None, "host_pool"))))


def _spec_written(a):
    """--speculative-algorithm as the early hooks see it (the raw text; None when unset or when
    --enable-return-aux-hidden-states turns it into a capture convention); OPAQUE when unknown."""
    aux, algo = a.get("enable_return_aux_hidden_states"), a.raw("speculative_algorithm")
    if aux is OPAQUE or algo is OPAQUE:
        return OPAQUE
    return None if aux else algo


def _spec_resolved(a):
    """--speculative-algorithm after the speculative hook (upper-cased, NEXTN runs as EAGLE)."""
    written = _spec_written(a)
    if written is None or written is OPAQUE:
        return written
    return a.get("speculative_algorithm")


# -- radix cache vs HiCache -----------------------------------------------------------------------

@rule("SGL301", "hicache-with-radix-disabled", source=KV + ":394", uid="hicache-vs-disable-radix",
      upstream="The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive and cannot "
               "be used at the same time. Please use only one of them.",
      why="The hierarchical cache (HiCache) extends the radix cache to host memory and storage; without a radix "
          "tree there is nothing to offload. Besides `--disable-radix-cache`, `--enable-mis` and deterministic "
          "inference on the flashinfer attention backend turn the radix cache off.",
      fix="Drop `--enable-hierarchical-cache`, or keep the radix cache on (drop `--disable-radix-cache`, or the "
          "option that turns it off).",
      fire=["--enable-hierarchical-cache --disable-radix-cache",
            "--disaggregation-mode prefill --enable-hicache --disable-radix-cache",
            "--enable-hierarchical-cache --enable-mis --attention-backend flashinfer",
            "--enable-hierarchical-cache --enable-deterministic-inference --attention-backend flashinfer"],
      quiet=["--enable-hierarchical-cache",
             "--disaggregation-mode decode --enable-hierarchical-cache --disable-radix-cache "
             "--disaggregation-decode-enable-radix-cache",
             "--enable-mis --attention-backend flashinfer"],
      notes="A decode server without --disaggregation-decode-enable-radix-cache is SGL102. Models that turn the "
            "radix cache off themselves (embedding, Whisper, HRM-Text) and deterministic inference on a "
            "platform-chosen backend are not decidable from flags.")
def _hicache_radix(a):
    if not a.is_true("enable_hierarchical_cache"):
        return None
    off = _radix_off(a)
    if off:
        blame, note = off
        return Hit(*blame, "enable_hierarchical_cache", note=note)


# -- LMCache (non-PD servers: SGL129 reports LMCache on prefill/decode) ---------------------------

def _lmcache(a) -> bool:
    return a.role == "null" and a.is_true("enable_lmcache")


LMCACHE_NOTES = "Reported on non-PD servers only: on a prefill or decode server SGL129 reports --enable-lmcache."


@rule("SGL302", "lmcache-with-hicache", source=KV + ":435", uid="lmcache-vs-hicache",
      upstream="--enable-lmcache and --enable-hierarchical-cache are mutually exclusive",
      why="LMCache and HiCache are two alternative KV offload layers under the radix cache; only one can own it.",
      fix="Choose one: `--enable-lmcache` or `--enable-hierarchical-cache`.",
      fire=["--enable-lmcache --enable-hierarchical-cache"], quiet=["--enable-lmcache", "--enable-hicache"],
      notes=LMCACHE_NOTES)
def _lmcache_hicache(a):
    if _lmcache(a) and a.is_true("enable_hierarchical_cache"):
        return Hit("enable_hierarchical_cache", "enable_lmcache")


@rule("SGL303", "lmcache-with-unified-linker", source=KV + ":440", uid="lmcache-vs-hicache",
      upstream="--enable-lmcache and --enable-unified-cache-external-linker are mutually exclusive",
      why="LMCache and the unified-cache external linker both attach an external KV store to the radix cache.",
      fix="Choose one: `--enable-lmcache` or `--enable-unified-cache-external-linker`.",
      fire=["--enable-lmcache --enable-unified-cache-external-linker"],
      quiet=["--enable-unified-cache-external-linker"], notes=LMCACHE_NOTES)
def _lmcache_linker(a):
    if _lmcache(a) and a.is_true("enable_unified_cache_external_linker"):
        return Hit("enable_unified_cache_external_linker", "enable_lmcache")


@rule("SGL304", "lmcache-needs-radix", source=KV + ":445", uid="lmcache-needs-radix",
      upstream="--enable-lmcache requires radix cache to be enabled",
      why="LMCache stores and retrieves KV through the radix cache (LMCacheUnifiedRadixCache).",
      fix="Keep the radix cache on (drop `--disable-radix-cache`, or the option that turns it off), or drop "
          "`--enable-lmcache`.",
      fire=["--enable-lmcache --disable-radix-cache",
            "--enable-lmcache --enable-mis --attention-backend flashinfer"],
      quiet=["--enable-lmcache"],
      notes=LMCACHE_NOTES + " A decode server turns its radix cache off by default, which is why SGLang reports "
                            "this message there.")
def _lmcache_radix(a):
    if _lmcache(a):
        off = _radix_off(a)
        if off:
            blame, note = off
            return Hit(*blame, "enable_lmcache", note=note)


@rule("SGL305", "lmcache-with-speculation", source=KV + ":450", uid="lmcache-unsupported-features",
      upstream="LMCacheUnifiedRadixCache does not yet support speculative decoding",
      why="The LMCache radix cache does not handle draft-token KV.",
      fix="Drop `--enable-lmcache` or the speculative algorithm.",
      fire=["--enable-lmcache --speculative-algorithm NGRAM"],
      quiet=["--enable-lmcache --enable-return-aux-hidden-states --speculative-algorithm EAGLE3"],
      notes=LMCACHE_NOTES + " With --enable-return-aux-hidden-states the algorithm only names a capture "
                            "convention and speculation stays off.")
def _lmcache_spec(a):
    algo = _spec_written(a)
    if _lmcache(a) and isinstance(algo, str):
        return Hit("speculative_algorithm", "enable_lmcache")


@rule("SGL306", "lmcache-with-dp-attention", source=KV + ":454", uid="lmcache-unsupported-features",
      upstream="LMCacheUnifiedRadixCache does not yet support DP attention",
      why="The LMCache radix cache is not shared across attention data-parallel ranks.",
      fix="Drop `--enable-lmcache` or attention DP (`--attn-dp-size`).",
      fire=["--enable-lmcache --tp-size 2 --attn-dp-size 2", "--enable-lmcache --tp-size 2 --dp-size 2 "
                                                             "--enable-dp-attention"],
      quiet=["--enable-lmcache --tp-size 2"], notes=LMCACHE_NOTES)
def _lmcache_dp(a):
    if _lmcache(a) and a.attn_dp_enabled:
        return Hit("attn_dp_size", "dp_size", "enable_lmcache")


@rule("SGL307", "lmcache-with-dcp", source=KV + ":458", uid="lmcache-unsupported-features",
      upstream="--enable-lmcache with --dcp-size > 1 is not supported: LMCache has no DCP-aware index translation",
      why="Decode context parallelism shards each page across ranks; LMCache cannot translate the indices.",
      fix="Drop `--enable-lmcache` or use `--dcp-size 1`.",
      fire=["--enable-lmcache --dcp-size 2"], quiet=["--enable-lmcache --dcp-size 1"], notes=LMCACHE_NOTES)
def _lmcache_dcp(a):
    if _lmcache(a) and a.gt("dcp_size", 1):
        return Hit("dcp_size", "enable_lmcache")


@rule("SGL308", "lmcache-with-streaming-session", source=KV + ":463", uid="lmcache-unsupported-features",
      upstream="LMCacheUnifiedRadixCache does not yet support streaming sessions",
      why="Streaming sessions keep KV across requests outside the LMCache radix cache.",
      fix="Drop `--enable-lmcache` or `--enable-streaming-session`.",
      fire=["--enable-lmcache --enable-streaming-session"], quiet=["--enable-streaming-session"],
      notes=LMCACHE_NOTES)
def _lmcache_streaming(a):
    if _lmcache(a) and a.is_true("enable_streaming_session"):
        return Hit("enable_streaming_session", "enable_lmcache")


@rule("SGL309", "lmcache-with-buffer-only-host-memory", source=KV + ":467", uid="lmcache-unsupported-features",
      upstream="--hicache-host-memory-mode=buffer_only is a HiCache-only mode",
      why="`--hicache-host-memory-mode buffer_only` configures HiCache's host tier; LMCache has none.",
      fix="Drop `--hicache-host-memory-mode buffer_only` when using `--enable-lmcache`.",
      fire=["--enable-lmcache --hicache-host-memory-mode buffer_only"],
      quiet=["--enable-lmcache --hicache-host-memory-mode cache"], notes=LMCACHE_NOTES)
def _lmcache_buffer_only(a):
    if _lmcache(a) and a.eq("hicache_host_memory_mode", "buffer_only"):
        return Hit("hicache_host_memory_mode", "enable_lmcache")


# -- radix eviction policy and SWA pool --------------------------------------------------------------

def _tlru(a):
    """(threshold, next_prompt_estimate) of a tlru eviction policy, or None."""
    if not a.eq("radix_eviction_policy", "tlru"):
        return None
    conf = a.get("radix_eviction_policy_config")
    if conf is OPAQUE or not (conf is None or isinstance(conf, dict)):
        return None
    conf = conf or {}
    t, n = conf.get("threshold", 0), conf.get("next_prompt_estimate", 0)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (t, n)):
        return None
    return t, n


@rule("SGL310", "tlru-config-negative", source=KV + ":380", uid="tlru-config-valid",
      upstream="--radix-eviction-policy tlru requires non-negative 'threshold' and 'next_prompt_estimate' in "
               "--radix-eviction-policy-config, got {threshold} and {next_prompt_estimate}.",
      why="T-LRU eviction compares token counts; negative values are meaningless.",
      fix="Use non-negative `threshold` and `next_prompt_estimate` in `--radix-eviction-policy-config`.",
      fire=["--radix-eviction-policy tlru --radix-eviction-policy-config '{\"threshold\": -1}'"],
      quiet=["--radix-eviction-policy tlru --radix-eviction-policy-config "
             "'{\"threshold\": 10, \"next_prompt_estimate\": 5}'",
             "--radix-eviction-policy lru --radix-eviction-policy-config '{\"threshold\": -1}'"])
def _tlru_negative(a):
    tn = _tlru(a)
    if tn and (tn[0] < 0 or tn[1] < 0):
        return Hit("radix_eviction_policy_config", "radix_eviction_policy",
                   fmt={"threshold": tn[0], "next_prompt_estimate": tn[1]})


@rule("SGL311", "tlru-threshold-not-above-estimate", source=KV + ":386", uid="tlru-config-valid",
      upstream="--radix-eviction-policy tlru needs 'threshold' greater than 'next_prompt_estimate' in "
               "--radix-eviction-policy-config, got {threshold} <= {next_prompt_estimate}; otherwise no tokens "
               "are ever TEL-safe and T-LRU is exactly LRU.",
      why="Both values default to 0, so `--radix-eviction-policy tlru` without a config always fails.",
      fix="Pass `--radix-eviction-policy-config '{\"threshold\": T, \"next_prompt_estimate\": N}'` with T > N, "
          "or use `--radix-eviction-policy lru`.",
      fire=["--radix-eviction-policy tlru",
            "--radix-eviction-policy tlru --radix-eviction-policy-config "
            "'{\"threshold\": 5, \"next_prompt_estimate\": 5}'"],
      quiet=["--radix-eviction-policy tlru --radix-eviction-policy-config "
             "'{\"threshold\": 10, \"next_prompt_estimate\": 5}'"])
def _tlru_threshold(a):
    tn = _tlru(a)
    if tn and tn[0] >= 0 and tn[1] >= 0 and tn[0] <= tn[1]:
        return Hit("radix_eviction_policy_config", "radix_eviction_policy",
                   fmt={"threshold": tn[0], "next_prompt_estimate": tn[1]})


@rule("SGL312", "swa-full-tokens-ratio-range", source=KV + ":428", uid="swa-full-tokens-ratio-range",
      upstream="--swa-full-tokens-ratio should be in range (0, 1.0].",
      why="The ratio sizes the sliding-window KV pool relative to the full-attention pool.",
      fix="Use a `--swa-full-tokens-ratio` above 0 and at most 1.",
      fire=["--swa-full-tokens-ratio 0", "--swa-full-tokens-ratio 1.5"], quiet=["--swa-full-tokens-ratio 1.0"],
      notes="Not reported with --enable-hierarchical-cache: Step-3.5 models reset the ratio to 1.0 then.")
def _swa_ratio(a):
    r = a.num("swa_full_tokens_ratio")
    if (a.explicit("swa_full_tokens_ratio") and r is not None and not 0 < r <= 1.0
            and a.is_false("enable_hierarchical_cache")):
        return Hit("swa_full_tokens_ratio")


@rule("SGL313", "swa-prefix-tails-negative", source=KV + ":431", uid="swa-full-tokens-ratio-range",
      upstream="--swa-prefix-tails should be a non-negative integer.",
      why="The value counts radix-cached prefix tails the SWA pool keeps room for.",
      fix="Use `--swa-prefix-tails 0` or more, or leave it unset.",
      fire=["--swa-prefix-tails -1"], quiet=["--swa-prefix-tails 0"])
def _swa_tails(a):
    if a.lt("swa_prefix_tails", 0):
        return Hit("swa_prefix_tails")


# -- unified-cache external linker (hicache_hook.handle_hicache) ------------------------------------

@rule("SGL314", "unified-linker-config-not-object", source=HC + ":28", uid="unified-linker-constraints",
      upstream="--unified-cache-external-linker-config must be a JSON object.",
      why="The linker configuration is a mapping of options.",
      fix="Pass a JSON object, e.g. `--unified-cache-external-linker-config '{}'`.",
      fire=["--unified-cache-external-linker-config '[1]'"], quiet=["--unified-cache-external-linker-config '{}'"])
def _linker_config(a):
    conf = given(a, "unified_cache_external_linker_config")
    if conf is not None and not isinstance(conf, dict):
        return Hit("unified_cache_external_linker_config")


@rule("SGL315", "linker-mla-dedup-needs-mooncake-linker", source=HC + ":43", uid="unified-linker-constraints",
      upstream="--enable-linker-mla-dedup requires the Mooncake linker.",
      why="MLA deduplication is implemented by the Mooncake unified-cache linker only.",
      fix="Add `--enable-unified-cache-external-linker` (backend `mooncake`, the default), or drop "
          "`--enable-linker-mla-dedup`.",
      fire=["--enable-linker-mla-dedup",
            "--enable-linker-mla-dedup --enable-unified-cache-external-linker "
            "--unified-cache-external-linker-backend mori"],
      quiet=["--enable-linker-mla-dedup --enable-unified-cache-external-linker"])
def _mla_dedup(a):
    if a.is_true("enable_linker_mla_dedup") and (
            a.is_false("enable_unified_cache_external_linker")
            or a.ne("unified_cache_external_linker_backend", "mooncake")):
        return Hit("enable_linker_mla_dedup", "unified_cache_external_linker_backend",
                   "enable_unified_cache_external_linker")


@rule("SGL316", "unified-linker-needs-radix", source=HC + ":46", uid="unified-linker-constraints",
      upstream="--enable-unified-cache-external-linker requires the default UnifiedRadixCache with radix caching "
               "enabled.",
      why="The external linker attaches to SGLang's built-in radix cache; a custom `--radix-cache-backend` or a "
          "disabled radix cache (explicitly, by `--enable-mis`, or on a decode server without "
          "`--disaggregation-decode-enable-radix-cache`) leaves it nothing to attach to.",
      fix="Keep the built-in radix cache on (on a decode server add `--disaggregation-decode-enable-radix-cache`), "
          "or drop `--enable-unified-cache-external-linker`.",
      fire=["--enable-unified-cache-external-linker --disable-radix-cache",
            "--enable-unified-cache-external-linker --radix-cache-backend foo",
            "--disaggregation-mode decode --enable-unified-cache-external-linker"],
      quiet=["--enable-unified-cache-external-linker",
             "--disaggregation-mode decode --enable-unified-cache-external-linker "
             "--disaggregation-decode-enable-radix-cache"])
def _linker_radix(a):
    if not a.is_true("enable_unified_cache_external_linker"):
        return None
    off = _radix_off(a, role=True)
    if off:
        blame, note = off
        return Hit(*blame, "enable_unified_cache_external_linker", note=note,
                   lead=blame == ("disaggregation_mode",))
    if a.is_set("radix_cache_backend"):
        return Hit("radix_cache_backend", "enable_unified_cache_external_linker")


@rule("SGL317", "unified-linker-with-hicache", source=HC + ":51", uid="unified-linker-constraints",
      upstream="--enable-unified-cache-external-linker and --enable-hierarchical-cache are mutually exclusive.",
      why="The linker moves KV to external storage directly; HiCache is the alternative path.",
      fix="Choose one: `--enable-unified-cache-external-linker` or `--enable-hierarchical-cache`.",
      fire=["--enable-unified-cache-external-linker --enable-hierarchical-cache"],
      quiet=["--enable-unified-cache-external-linker"])
def _linker_hicache(a):
    if (a.is_true("enable_unified_cache_external_linker") and a.is_true("enable_hierarchical_cache")
            and not _radix_off(a, role=True)):
        return Hit("enable_hierarchical_cache", "enable_unified_cache_external_linker")


@rule("SGL318", "unified-linker-with-hicache-storage", source=HC + ":56", uid="unified-linker-constraints",
      upstream="--enable-unified-cache-external-linker does not use --hicache-storage-backend.",
      why="The linker has its own storage connection; `--hicache-storage-backend` configures HiCache's.",
      fix="Drop `--hicache-storage-backend`.",
      fire=["--enable-unified-cache-external-linker --hicache-storage-backend file"],
      quiet=["--enable-unified-cache-external-linker"])
def _linker_storage(a):
    if (a.is_true("enable_unified_cache_external_linker") and a.is_set("hicache_storage_backend")
            and a.is_false("enable_hierarchical_cache") and not _radix_off(a, role=True)):
        return Hit("hicache_storage_backend", "enable_unified_cache_external_linker")


# -- HiCache knobs ----------------------------------------------------------------------------------

@rule("SGL319", "hicache-host-memory-fraction-range", source=HC + ":117", uid="hicache-host-memory-fraction-range",
      upstream="--hicache-host-memory-fraction must be in (0, 1].",
      why="The fraction of free host memory HiCache may use; checked on every server, even without HiCache.",
      fix="Use a value above 0 and at most 1.",
      fire=["--hicache-host-memory-fraction 0", "--hicache-host-memory-fraction 1.5"],
      quiet=["--hicache-host-memory-fraction 1", "--disaggregation-mode decode --hicache-host-memory-fraction 0.5"])
def _host_fraction(a):
    f = a.num("hicache_host_memory_fraction")
    if f is not None and not 0 < f <= 1:
        return Hit("hicache_host_memory_fraction")


@rule("SGL320", "hicache-buffer-only-needs-storage", source=HC + ":273", uid="hicache-buffer-only-needs-storage",
      upstream="--hicache-host-memory-mode buffer_only requires a storage backend (--hicache-storage-backend): host "
               "memory is only a staging buffer and all cached data lives in storage.",
      why="In buffer_only mode host memory only stages pages on their way to storage. The check runs whenever "
          "HiCache is active - which includes every decode server whose retraction backup is unset or host_pool, "
          "even without `--enable-hierarchical-cache`.",
      fix="Add `--hicache-storage-backend`, or use `--hicache-host-memory-mode cache`.",
      fire=["--enable-hierarchical-cache --hicache-host-memory-mode buffer_only",
            "--disaggregation-mode decode --hicache-host-memory-mode buffer_only"],
      quiet=["--hicache-host-memory-mode buffer_only",
             "--enable-hierarchical-cache --hicache-host-memory-mode buffer_only --hicache-storage-backend file",
             "--disaggregation-mode decode --hicache-host-memory-mode buffer_only "
             "--disaggregation-decode-retraction-backup cpu_tensor"])
def _buffer_only(a):
    if a.eq("hicache_host_memory_mode", "buffer_only") and a.is_unset("hicache_storage_backend") and _hicache_active(a):
        note = ""
        if a.is_false("enable_hierarchical_cache") and a.is_false("disaggregation_decode_enable_offload_kvcache"):
            note = ("a decode server validates the HiCache options even without --enable-hierarchical-cache while "
                    "--disaggregation-decode-retraction-backup is unset or host_pool")
        return Hit("hicache_host_memory_mode", note=note)


def _hicache_dcp(a) -> bool:
    return a.is_true("enable_hierarchical_cache") and a.gt("dcp_size", 1) and _hicache_active(a)


DCP_NOTES = "A dense (non-MLA) model is then rejected anyway: HiCache with DCP needs an MLA model."


@rule("SGL321", "hicache-dcp-with-buffer-only", source=HC + ":138", uid="hicache-dcp-constraints",
      upstream="HiCache L3 with DCP does not support buffer_only host memory.",
      why="The DCP host pool translates indices per rank, which the buffer_only staging path does not do.",
      fix="Use `--hicache-host-memory-mode cache`, or `--dcp-size 1`.",
      fire=["--enable-hierarchical-cache --dcp-size 2 --hicache-storage-backend file "
            "--hicache-host-memory-mode buffer_only"],
      quiet=["--enable-hierarchical-cache --hicache-storage-backend file --hicache-host-memory-mode buffer_only"],
      notes=DCP_NOTES)
def _hicache_dcp_buffer(a):
    if _hicache_dcp(a) and a.is_set("hicache_storage_backend") and a.eq("hicache_host_memory_mode", "buffer_only"):
        return Hit("hicache_host_memory_mode", "dcp_size")


@rule("SGL322", "hicache-dcp-with-speculation", source=HC + ":142", uid="hicache-dcp-constraints",
      upstream="HiCache with --dcp-size > 1 only supports DSPARK speculative decoding; other draft-model host pools "
               "have no DCP index translation.",
      why="Only the DSPARK draft host pool translates DCP indices. The check compares the algorithm as written, "
          "before SGLang upper-cases it, so even a lower-case `dspark` is rejected.",
      fix="Use `--speculative-algorithm DSPARK` (upper case), drop speculation, or use `--dcp-size 1`.",
      fire=["--enable-hierarchical-cache --dcp-size 2 --speculative-algorithm EAGLE "
            "--speculative-draft-model-path @TINY@",
            "--enable-hierarchical-cache --dcp-size 2 --speculative-algorithm dspark "
            "--speculative-draft-model-path @TINY@"],
      quiet=["--enable-hierarchical-cache --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@"],
      notes=DCP_NOTES)
def _hicache_dcp_spec(a):
    algo = _spec_written(a)
    if _hicache_dcp(a) and isinstance(algo, str) and algo != "DSPARK":
        note = "the check compares the algorithm as written: write DSPARK in upper case" if algo.upper() == "DSPARK" \
            else ""
        return Hit("speculative_algorithm", "dcp_size", note=note)


@rule("SGL323", "hicache-dcp-with-lmcache", source=HC + ":148", uid="hicache-dcp-constraints",
      upstream="--enable-lmcache with --dcp-size > 1 is not supported: LMCache has no DCP-aware index translation.",
      why="LMCache cannot translate decode-context-parallel page shards.",
      fix="Drop `--enable-lmcache` (it also excludes `--enable-hierarchical-cache`), or use `--dcp-size 1`.",
      fire=["--enable-hierarchical-cache --dcp-size 2 --enable-lmcache"],
      quiet=["--enable-hierarchical-cache --dcp-size 1"], notes=DCP_NOTES)
def _hicache_dcp_lmcache(a):
    if _hicache_dcp(a) and a.is_true("enable_lmcache"):
        return Hit("enable_lmcache", "dcp_size")


@rule("SGL324", "hicache-dcp-with-hisparse", source=HC + ":153", uid="hicache-dcp-constraints",
      upstream="--enable-hisparse with --dcp-size > 1 is not supported: the HiSparse host pool is constructed "
               "without DCP translation.",
      why="The HiSparse host pool has no decode-context-parallel index translation.",
      fix="Drop `--enable-hisparse`, or use `--dcp-size 1`.",
      fire=["--enable-hierarchical-cache --dcp-size 2 --enable-hisparse"],
      quiet=["--enable-hierarchical-cache --dcp-size 1"], notes=DCP_NOTES)
def _hicache_dcp_hisparse(a):
    if _hicache_dcp(a) and a.is_true("enable_hisparse"):
        return Hit("enable_hisparse", "dcp_size")


# -- --prefill-only-disable-kv-cache --------------------------------------------------------------

PO = "--prefill-only-disable-kv-cache --is-embedding --chunked-prefill-size -1 --disable-radix-cache"


def _po(a) -> bool:
    return a.is_true("prefill_only_disable_kv_cache")


def _po_rule(code, name, line, upstream, why, fix, fire, quiet, notes=""):
    return rule(code, name, source=f"{KV}:{line}", uid="prefill-only-disable-kv-cache-preconditions",
                upstream=upstream, why=why, fix=fix, fire=fire, quiet=quiet, notes=notes)


@_po_rule("SGL325", "prefill-only-kv-cache-needs-embedding", 880,
          "--prefill-only-disable-kv-cache currently requires --is-embedding. Other prefill-only workloads may be "
          "supported in a future change once their attention paths stop reading or writing the paged KV cache.",
          "Serving without a KV cache is implemented for embedding models only.",
          "Add `--is-embedding`, or drop `--prefill-only-disable-kv-cache`.",
          ["--prefill-only-disable-kv-cache"], [PO])
def _po_embedding(a):
    if _po(a) and a.is_false("is_embedding"):
        return Hit("prefill_only_disable_kv_cache")


@_po_rule("SGL326", "prefill-only-kv-cache-with-fp4", 886,
          "--prefill-only-disable-kv-cache does not currently support --kv-cache-dtype=nvfp4 or "
          "--kv-cache-dtype=fp4_mx_block16 because the FP4 pool uses a separate allocation path.",
          "The FP4 KV pools cannot be replaced by the no-op pool.",
          "Drop the FP4 `--kv-cache-dtype`.",
          ["--prefill-only-disable-kv-cache --is-embedding --kv-cache-dtype nvfp4"], [PO + " --kv-cache-dtype auto"])
def _po_fp4(a):
    if _po(a) and a.is_true("is_embedding") and a.among("kv_cache_dtype", ("nvfp4", "fp4_mx_block16")):
        return Hit("kv_cache_dtype", "prefill_only_disable_kv_cache")


@_po_rule("SGL327", "prefill-only-kv-cache-with-mxfp8", 892,
          "--prefill-only-disable-kv-cache does not currently support --kv-cache-dtype=mxfp8 because the MXFP8 pool "
          "stores separate scale-factor buffers.",
          "The MXFP8 KV pool cannot be replaced by the no-op pool.",
          "Drop `--kv-cache-dtype mxfp8`.",
          ["--prefill-only-disable-kv-cache --is-embedding --kv-cache-dtype mxfp8"], [PO])
def _po_mxfp8(a):
    if _po(a) and a.is_true("is_embedding") and a.eq("kv_cache_dtype", "mxfp8"):
        return Hit("kv_cache_dtype", "prefill_only_disable_kv_cache")


def _po_dtype_ok(a) -> bool:
    return a.is_true("is_embedding") and a.not_among("kv_cache_dtype", ("nvfp4", "fp4_mx_block16", "mxfp8"))


@_po_rule("SGL328", "prefill-only-kv-cache-needs-unchunked-prefill", 905,
          "--prefill-only-disable-kv-cache requires --chunked-prefill-size=-1 so the FA backend takes the "
          "fa_skip_kv_cache path; otherwise the pool would be touched between prefill chunks.",
          "Each request must be prefilled in one forward pass, so chunked prefill must be off. The default "
          "(unset) chunk size is not -1.",
          "Add `--chunked-prefill-size -1`.",
          ["--prefill-only-disable-kv-cache --is-embedding",
           "--prefill-only-disable-kv-cache --is-embedding --chunked-prefill-size 4096"], [PO])
def _po_chunked(a):
    if _po(a) and _po_dtype_ok(a) and a.ne("chunked_prefill_size", -1):
        return Hit("chunked_prefill_size", "prefill_only_disable_kv_cache")


@_po_rule("SGL329", "prefill-only-kv-cache-needs-radix-off", 911,
          "--prefill-only-disable-kv-cache requires --disable-radix-cache because the radix cache indexes KV pool "
          "slots that no longer hold real data.",
          "Without a KV pool there is nothing for the radix cache to index. A decode server with "
          "`--disaggregation-decode-enable-radix-cache` turns the radix cache on even with `--disable-radix-cache`.",
          "Add `--disable-radix-cache` (on a decode server: drop `--disaggregation-decode-enable-radix-cache`).",
          ["--prefill-only-disable-kv-cache --is-embedding --chunked-prefill-size -1",
           PO + " --disaggregation-mode decode --disaggregation-decode-enable-radix-cache"],
          [PO, "--prefill-only-disable-kv-cache --is-embedding --chunked-prefill-size -1 --disaggregation-mode decode"])
def _po_radix(a):
    if _po(a) and _po_dtype_ok(a) and a.eq("chunked_prefill_size", -1) and _radix_on(a):
        if a.role == "decode":
            return Hit("disaggregation_decode_enable_radix_cache", "prefill_only_disable_kv_cache",
                       note="--disaggregation-decode-enable-radix-cache turns the radix cache on, whatever "
                            "--disable-radix-cache says")
        return Hit("prefill_only_disable_kv_cache")


def _po_ready(a) -> bool:
    return _po(a) and _po_dtype_ok(a) and a.eq("chunked_prefill_size", -1) and a.is_true("disable_radix_cache")


@_po_rule("SGL330", "prefill-only-kv-cache-with-attn-cp", 920,
          "--prefill-only-disable-kv-cache is incompatible with --attn-cp-size > 1: the context-parallel attention "
          "path writes K/V to the pool via set_kv_buffer, which the no-op pool intentionally rejects.",
          "Context-parallel attention writes K/V into the KV pool.",
          "Use `--attn-cp-size 1`.",
          [PO + " --attn-cp-size 2 --tp-size 2"], [PO + " --tp-size 2"])
def _po_cp(a):
    if _po_ready(a) and a.gt("attn_cp_size", 1):
        return Hit("attn_cp_size", "prefill_only_disable_kv_cache")


@_po_rule("SGL331", "prefill-only-kv-cache-with-prefill-cp", 926,
          "--prefill-only-disable-kv-cache is incompatible with --enable-prefill-cp: the prefill-CP path stages "
          "K/V through the paged cache, which the no-op pool does not support.",
          "Prefill context parallelism stages K/V in the paged cache.",
          "Drop `--enable-prefill-cp`.",
          [PO + " --enable-prefill-cp"], [PO])
def _po_prefill_cp(a):
    if _po_ready(a) and a.le("attn_cp_size", 1) and a.is_true("enable_prefill_cp"):
        return Hit("enable_prefill_cp", "prefill_only_disable_kv_cache")


@_po_rule("SGL332", "prefill-only-kv-cache-with-hisparse", 935,
          "--prefill-only-disable-kv-cache is incompatible with --enable-hisparse: HiSparse uses a dedicated pool "
          "family that is not the no-op MHA pool.",
          "HiSparse brings its own KV pool.",
          "Drop `--enable-hisparse`.",
          [PO + " --enable-hisparse"], [PO])
def _po_hisparse(a):
    if _po_ready(a) and a.le("attn_cp_size", 1) and a.is_false("enable_prefill_cp") and a.is_true("enable_hisparse"):
        return Hit("enable_hisparse", "prefill_only_disable_kv_cache")


@_po_rule("SGL333", "prefill-only-kv-cache-needs-fa-backend", 344,
          "--prefill-only-disable-kv-cache currently requires the FA prefill backend (fa3/fa4), but got prefill "
          "backend {backend!r}. Other prefill-only workloads and backends may be supported in a future change.",
          "Only the FlashAttention prefill backends (fa3/fa4) can run without the paged KV cache.",
          "Use `--attention-backend fa3` (Hopper) or `fa4` (Blackwell), or leave the backend to SGLang.",
          [PO + " --attention-backend triton", PO + " --prefill-attention-backend flashinfer",
           PO + " --prefill-attention-backend tokenspeed_mla"],
          [PO + " --attention-backend fa3"],
          notes="Decidable only when the prefill backend is on the command line; `fa3` with "
                "`--kv-cache-dtype fp8_e5m2` falls back to triton and is not reported.")
def _po_backend(a):
    pre, _ = attention_backends(a)
    if (_po_ready(a) and a.le("attn_cp_size", 1) and a.is_false("enable_prefill_cp") and a.is_false("enable_hisparse")
            and pre is not None and pre not in ("fa3", "fa4")):
        blame = "prefill_attention_backend" if given(a, "prefill_attention_backend") else "attention_backend"
        return Hit(blame, "prefill_only_disable_kv_cache", fmt={"backend": pre})


# -- page-major layout and the unified memory pool ----------------------------------------------------

@rule("SGL334", "page-major-kv-layout-needs-unified-memory", source=KV + ":783",
      uid="page-major-needs-unified-memory",
      upstream="--enable-page-major-kv-layout without --enable-unified-memory is temporarily unsupported: the "
               "strided MHA K/V views were removed and the static-pool page-major layout awaits its per-layer-view "
               "reimplementation. Run with --enable-unified-memory, or drop --enable-page-major-kv-layout.",
      why="The page-major KV layout currently exists only inside the unified memory pool.",
      fix="Add `--enable-unified-memory` (which implies the page-major layout), or drop "
          "`--enable-page-major-kv-layout`.",
      fire=["--enable-page-major-kv-layout"], quiet=["--enable-page-major-kv-layout --enable-unified-memory"])
def _page_major(a):
    if a.is_true("enable_page_major_kv_layout") and a.is_false("enable_unified_memory"):
        return Hit("enable_page_major_kv_layout")


UM_NOTES = ("The unified memory pool checks run after the page-major layout's attention-backend allow-list, which "
            "depends on the model and GPU; pdlint reports the flag conflicts.")


@rule("SGL335", "unified-memory-speculative-algorithm", source=KV + ":588", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory only supports --speculative-algorithm DSPARK, DFLASH, EAGLE and EAGLE3; other "
               "speculative algorithms are not yet audited for the unified pool's virtual-to-physical loc "
               "translation. Got --speculative-algorithm={speculative_algorithm!r}.",
      why="The unified pool translates virtual KV locations; only these algorithms' draft paths are audited for it.",
      fix="Use DSPARK, DFLASH, EAGLE/NEXTN or EAGLE3, or drop `--enable-unified-memory`.",
      fire=["--enable-unified-memory --speculative-algorithm NGRAM",
            "--enable-unified-memory --speculative-algorithm STANDALONE --speculative-draft-model-path @TINY@"],
      quiet=["--enable-unified-memory", "--enable-unified-memory --speculative-algorithm DSPARK "
                                        "--speculative-draft-model-path @TINY@"],
      notes=UM_NOTES)
def _um_spec(a):
    algo = _spec_resolved(a)
    if a.is_true("enable_unified_memory") and isinstance(algo, str) and algo not in ("DSPARK", "EAGLE", "EAGLE3",
                                                                                      "DFLASH"):
        return Hit("speculative_algorithm", "enable_unified_memory", fmt={"speculative_algorithm": algo})


@rule("SGL336", "unified-memory-tree-draft", source=KV + ":601", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory supports a linear draft chain only (--speculative-eagle-topk in {None, 1}); "
               "tree verify relocates accepted tokens one at a time inside the target pool, which the unified "
               "pool's page-granular move_kv_cache cannot express. Got "
               "--speculative-eagle-topk={speculative_eagle_topk!r}.",
      why="Tree drafts (`--speculative-eagle-topk` > 1) move accepted tokens one by one, which the page-granular "
          "unified pool cannot do.",
      fix="Use `--speculative-eagle-topk 1`, or drop `--enable-unified-memory`.",
      fire=["--enable-unified-memory --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@ "
            "--speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 4",
            "--enable-unified-memory --speculative-eagle-topk 2"],
      quiet=["--enable-unified-memory --speculative-algorithm DSPARK --speculative-eagle-topk 2 "
             "--speculative-draft-model-path @TINY@"],
      notes=UM_NOTES + " With EAGLE and no explicit --speculative-eagle-topk the top-k is chosen per architecture "
                       "(4 for Llama), which pdlint cannot know.")
def _um_topk(a):
    algo = _spec_resolved(a)
    topk = given(a, "speculative_eagle_topk")
    if (a.is_true("enable_unified_memory") and algo in (None, "EAGLE", "EAGLE3") and topk is not None
            and topk != 1):
        return Hit("speculative_eagle_topk", "enable_unified_memory", fmt={"speculative_eagle_topk": topk})


@rule("SGL337", "unified-memory-with-two-batch-overlap", source=KV + ":653", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory does not support --enable-two-batch-overlap: the iteration's read tables are "
               "indexed by the whole batch's rows, and a TBO child's readers do not offset into them.",
      why="Two-batch overlap splits the batch in a way the unified pool's read tables do not support.",
      fix="Drop `--enable-two-batch-overlap` or `--enable-unified-memory`.",
      fire=["--enable-unified-memory --enable-two-batch-overlap"], quiet=["--enable-unified-memory"], notes=UM_NOTES)
def _um_tbo(a):
    if a.is_true("enable_unified_memory") and a.is_true("enable_two_batch_overlap"):
        return Hit("enable_two_batch_overlap", "enable_unified_memory")


@rule("SGL338", "unified-memory-with-lmcache", source=KV + ":658", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory is not yet compatible with --enable-lmcache: the LMCache offload path indexes "
               "the device buffers with the ids it is handed, and under the unified pool those are VIRTUAL.",
      why="LMCache would index device buffers with the unified pool's virtual ids.",
      fix="Drop `--enable-lmcache` or `--enable-unified-memory`.",
      fire=["--enable-unified-memory --enable-lmcache"], quiet=["--enable-unified-memory"], notes=UM_NOTES)
def _um_lmcache(a):
    if a.is_true("enable_unified_memory") and a.is_true("enable_lmcache"):
        return Hit("enable_lmcache", "enable_unified_memory")


@rule("SGL339", "unified-memory-with-unified-linker", source=KV + ":663", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory does not support --enable-unified-cache-external-linker: direct L3 transfers "
               "do not preserve unified page-envelope indices and compaction lifetimes. Use "
               "--enable-hierarchical-cache for supported L2/L3 transfers.",
      why="The external linker's direct transfers do not understand the unified pool's page envelopes.",
      fix="Use `--enable-hierarchical-cache` instead of the linker, or drop `--enable-unified-memory`.",
      fire=["--enable-unified-memory --enable-unified-cache-external-linker"], quiet=["--enable-unified-memory"],
      notes=UM_NOTES)
def _um_linker(a):
    if a.is_true("enable_unified_memory") and a.is_true("enable_unified_cache_external_linker"):
        return Hit("enable_unified_cache_external_linker", "enable_unified_memory")


@rule("SGL340", "unified-memory-eagle-with-hicache", source=KV + ":678", uid="unified-memory-feature-conflicts",
      upstream="--enable-unified-memory + EAGLE/EAGLE3 does not support --enable-hierarchical-cache: HiCache keeps "
               "the draft on a private pool, and would pack an MTP head's KV into the target's page-envelope host "
               "pool, which refuses per-layer draft loads.",
      why="With EAGLE the draft KV lives fused in the target's unified pool; HiCache cannot offload it.",
      fix="Drop `--enable-hierarchical-cache` or `--enable-unified-memory`.",
      fire=["--model-path @TINY_HYBRID@ --enable-unified-memory --speculative-algorithm EAGLE "
            "--enable-hierarchical-cache --speculative-num-steps 1 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 2"],
      quiet=["--model-path @TINY_HYBRID@ --enable-unified-memory --speculative-algorithm NEXTN "
             "--speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2"],
      notes=UM_NOTES + " On a dense (non-hybrid) model SGLang rejects EAGLE with the unified pool earlier "
                       "(\"requires a unified target\").")
def _um_eagle_hicache(a):
    if (a.is_true("enable_unified_memory") and _spec_resolved(a) in ("EAGLE", "EAGLE3")
            and a.is_true("enable_hierarchical_cache")):
        return Hit("enable_hierarchical_cache", "speculative_algorithm", "enable_unified_memory")



# --enable-unified-memory with --dcp-size > 1 (kv_cache_hook._validate_unified_memory_dcp): an MLA model only, not a
# hybrid sliding-window one, no PD role, a flashinfer / trtllm_mla / cutedsl_mla backend - in that order
UM_DCP_MLA_ONLY = ("--enable-unified-memory with decode context parallelism (--dcp-size > 1) supports MLA models "
                   "only (e.g. kimi-linear): the MHA unified pool has no DCP-aware masked write path "
                   "(UnifiedMHATokenToKVPool.set_kv_buffer asserts dcp_kv_mask is None).")
_LLAMA_NAMED = "--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct"


def unified_memory_dcp(a) -> bool:
    """--enable-unified-memory with --dcp-size > 1: SGLang's DCP checks of the unified pool run."""
    return a.is_true("enable_unified_memory") and a.gt("dcp_size", 1)


@rule("SGL352", "unified-memory-dcp-non-mla-model", source=KV + ":727", uid="unified-memory-dcp-mla-only",
      upstream=UM_DCP_MLA_ONLY,
      summary="Reports `--enable-unified-memory` with `--dcp-size` > 1 for a model pdlint knows is not an MLA "
              "model (Llama 3, Qwen2/3, Qwen3-Next, gpt-oss, DeepSeek-V4, inferred from `--model-path` or "
              "`--served-model-name`).",
      why="Under decode context parallelism the unified pool widens its virtual page ids, and only the MLA pool "
          "has the DCP-aware masked write path; SGLang refuses the unified pool with DCP for any other attention "
          "architecture, on every role.",
      fix="Drop `--dcp-size` (or `--enable-unified-memory`) for this model; DCP with the unified pool needs an MLA "
          "model.",
      fire=[_LLAMA_NAMED + " --enable-unified-memory --dcp-size 2 --tp-size 2",
            _LLAMA_NAMED + " --disaggregation-mode decode --enable-unified-memory --dcp-size 2 --tp-size 2",
            "--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-30B-A3B --disaggregation-mode prefill "
            "--enable-unified-memory --dcp-size 2 --tp-size 2"],
      quiet=[_LLAMA_NAMED + " --enable-unified-memory --tp-size 2",
             _LLAMA_NAMED + " --dcp-size 2 --tp-size 2"],
      notes="Model-dependent: SGLang reads the attention architecture from the checkpoint's config.json; pdlint "
            "infers it from the model's name (docs/models.md) and is quiet for a model it cannot place and for "
            "MLA families (DeepSeek-V2/V3/R1, Kimi, GLM-5, ...). On a PD server SGLang refuses the combination "
            "for those too (SGL353). Field test rw27/b (differential test against SGLang 0.5.23): `--tp-size 2 "
            "--enable-unified-memory --dcp-size 2` on a Llama-3.1-8B pair got only SGL132's warning while the "
            "oracle refused both roles; the oracle refuses the firing examples and accepts the quiet ones (its "
            "tiny Llama / Qwen3-MoE stand in for the named models).")
def _um_dcp_non_mla(a):
    if not unified_memory_dcp(a):
        return None
    from pdlint.engines.sglang.rules.pair import named_family
    fam, flag = named_family(a)
    if fam is None or fam.mla:
        return None
    return Hit("dcp_size", "enable_unified_memory", "model_path",
               note=f"{flag} names {fam.name}, which is not an MLA model")



# -- HiSparse (hisparse_hook.validate_hisparse) ------------------------------------------------------------------

# the architectures --enable-hisparse accepts (configs/model_config.py, 0.5.23): is_deepseek_dsa (those with an
# index_topk in their config), is_deepseek_v4, is_minimax_sparse
HISPARSE_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
    "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"})


@rule("SGL354", "hisparse-unsupported-model", source="arg_groups/hisparse_hook.py:104",
      uid="hisparse-model-class",
      upstream="--enable-hisparse is only supported for DSA (DeepSeek Sparse Attention) models (e.g., DeepSeek V3.2, "
               "GLM-5), DeepSeek V4, and MiniMax M3 now.",
      summary="Reports `--enable-hisparse` for a model pdlint knows is not a DSA (DeepSeek-V3.2, GLM-5), "
              "DeepSeek-V4 or MiniMax-M3 model: Llama 3, Qwen2/3, Qwen3-Next, gpt-oss, DeepSeek-V2, Kimi-Linear, "
              "GLM-4.x, MiniMax-M2, ... (inferred from `--model-path` or `--served-model-name`).",
      why="Hierarchical sparse attention keeps the full KV cache in host memory and brings back the top-k pages a "
          "sparse-attention indexer selects; only the DSA indexer models, DeepSeek-V4 and MiniMax-M3 have one. "
          "SGLang refuses the flag for any other architecture, on every role - typically a flag list copied from a "
          "DeepSeek-V3.2 recipe onto another model.",
      fix="Drop `--enable-hisparse` for this model (keep it for DeepSeek-V3.2 / GLM-5 / DeepSeek-V4 / MiniMax-M3).",
      fire=[_LLAMA_NAMED + " --enable-hisparse",
            _LLAMA_NAMED + " --disaggregation-mode decode --enable-hisparse",
            "--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-30B-A3B --disaggregation-mode prefill "
            "--enable-hisparse"],
      quiet=[_LLAMA_NAMED + " --disaggregation-mode decode",
             "--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-30B-A3B --disaggregation-mode prefill"],
      notes="Model-dependent: SGLang reads the architecture from the checkpoint's config.json (and, for a DSA "
            "architecture, its `index_topk`); pdlint infers it from the model's name (docs/models.md) and is quiet "
            "for a model it cannot place and for families with an architecture on the list (GLM-5, LongCat-Flash, "
            "Mistral-Large-3, DeepSeek-V4, DeepSeek-V3.2). DeepSeek-V3 / V3.1 / R1 / Prover-V2 and Kimi-K2 share "
            "DeepseekV3ForCausalLM with DeepSeek-V3.2, which SGLang counts as DSA only with `index_topk` in the "
            "config (configs/model_config.py `is_deepseek_dsa`): their names are reported, a DeepSeek-V3.2 name or "
            "a path that names no release is not. Checked on the releases with this message (0.5.21-0.5.23; 0.5.10-0.5.20 refuse other "
            "models with earlier wordings). Field test rw27/b (differential test against SGLang 0.5.23): the oracle "
            "refused `--enable-hisparse` on Llama and Qwen3-MoE bases in 25 role cases and pdlint said nothing; it "
            "refuses the firing examples and accepts the quiet ones (its tiny Llama / Qwen3-MoE stand in for the "
            "named models).")
def _hisparse_model(a):
    if not a.is_true("enable_hisparse"):
        return None
    from pdlint.engines.sglang.rules.moe import deepep_v2_architectures
    from pdlint.engines.sglang.rules.pair import named_family
    fam, flag = named_family(a)
    if fam is not None:
        archs, label = fam.architectures, fam.name
    else:
        placed = deepep_v2_architectures(a)  # (GLM-4.x, MiniMax-M2: names the family table does not place)
        if placed is None:
            return None
        archs, label, flag = placed
    if not archs or any(x in HISPARSE_ARCHITECTURES for x in archs):
        # (DeepseekV3ForCausalLM counts only with a DSA indexer: `is_deepseek_dsa` also wants `index_topk` in
        # config.json, which DeepSeek-V3 / V3.1 / R1 / Prover-V2 and Kimi-K2 do not have; DeepSeek-V3.2 has)
        from pdlint.models import component
        name = a.get("model_path" if flag == "--model-path" else "served_model_name")
        if fam is None or not isinstance(name, str) or not _NO_DSA_INDEXER.match(component(name)):
            return None
        return Hit("enable_hisparse", "model_path",
                   note=f"{flag} names {label} ({component(name)}), a DeepseekV3ForCausalLM checkpoint without the "
                        f"DSA indexer (no `index_topk` in its config.json)")
    return Hit("enable_hisparse", "model_path", note=f"{flag} names {label} ({', '.join(archs)})")


#: names of checkpoints with an architecture SGLang's ``is_deepseek_dsa`` lists but no ``index_topk``: DeepSeek-V3,
#: V3-0324, V3.1(-Terminus), R1(-0528, -Zero; not the Qwen / Llama R1-Distill students), Prover-V2, Kimi-K2(-Instruct,
#: -Thinking, K2.5: KimiK25ForConditionalGeneration is not on the list either); DeepSeek-V3.2 and releases pdlint
#: does not know (V3.3...) are left alone
_NO_DSA_INDEXER = lazyre.compile(r"^(?:[a-z0-9]+-)?(?:deepseek-(?:v3(?:\.1)?(?![.\d])|r1(?!-distill)|prover-v2)"
                             r"|kimi-k2(?:\.5)?(?![.\d]))")


# -- KV dtype, offload ----------------------------------------------------------------------------------

_KV_OFF_BLACKWELL_NOTES = (
    "A warning: pdlint does not know the GPU (like SGL293 for `--quantization nvfp4_online`). SGLang checks the GPU "
    "it starts on for every model and role. Field test rw27/b (differential test against SGLang 0.5.23, emulated "
    "H200): `--kv-cache-dtype mxfp8` / `nvfp4` were refused by the oracle in 42 role cases and pdlint said nothing; "
    "the oracle refuses the firing examples and accepts the quiet ones.")


@rule("SGL355", "mxfp8-kv-cache-off-blackwell", source=KV + ":106", uid="kv-cache-dtype-platform",
      severity=WARNING,
      unseen="the GPU: SGLang accepts --kv-cache-dtype mxfp8 on Blackwell (SM100 and newer) only",
      upstream="--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands used by the "
               "FA4 MXFP8 attention path.",
      summary="Reports `--kv-cache-dtype mxfp8`: SGLang refuses it unless the server runs on a Blackwell GPU "
              "(SM100+), which pdlint cannot see.",
      why="The MXFP8 KV cache is read by the FA4 attention path with block-scaled operands that only Blackwell "
          "tensor cores have. SGLang checks the GPU it starts on and stops on Hopper (H100/H200) and older GPUs, "
          "so the same command line starts on a B200/GB200 node and fails on an H200 one.",
      fix="Run the server on Blackwell nodes only (a node selector), or use `--kv-cache-dtype fp8_e4m3` (the same "
          "on both roles of a PD pair) on other GPUs.",
      fire=["--disaggregation-mode decode --kv-cache-dtype mxfp8", "--kv-cache-dtype mxfp8"],
      quiet=["--disaggregation-mode decode --kv-cache-dtype fp8_e4m3", "--disaggregation-mode decode"],
      notes=_KV_OFF_BLACKWELL_NOTES)
def _mxfp8_kv(a):
    if given(a, "kv_cache_dtype") == "mxfp8":
        return Hit("kv_cache_dtype", lead=True, note="the server starts only on a Blackwell GPU (SM100+), which "
                                                     "pdlint cannot see: on Hopper (H100/H200) or older GPUs SGLang "
                                                     "refuses it")


@rule("SGL356", "nvfp4-kv-cache-off-blackwell", source=KV + ":128", uid="kv-cache-dtype-platform",
      severity=WARNING,
      unseen="the GPU: SGLang accepts --kv-cache-dtype nvfp4 on Blackwell SM100 or SM120 only",
      upstream="--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. Use --kv-cache-dtype=fp4_mx_block16 for "
               "the block-size-16 FP4 recipe.",
      summary="Reports `--kv-cache-dtype nvfp4`: SGLang refuses it on a CUDA GPU other than Blackwell SM100/SM120, "
              "which pdlint cannot see.",
      why="The NVFP4 KV cache stores FP4 values with FP8 block scales in the layout Blackwell's attention kernels "
          "read. SGLang checks the GPU it starts on and stops on Hopper (H100/H200) and older GPUs, so the same "
          "command line starts on a B200 node and fails on an H200 one.",
      fix="Run the server on Blackwell SM100/SM120 nodes only, or use `--kv-cache-dtype fp8_e4m3` (or "
          "`fp4_mx_block16` with a backend that reads it, such as triton) elsewhere.",
      fire=["--disaggregation-mode decode --kv-cache-dtype nvfp4", "--kv-cache-dtype nvfp4"],
      quiet=["--kv-cache-dtype fp4_mx_block16 --attention-backend triton",
             "--disaggregation-mode decode --kv-cache-dtype bf16"],
      notes=_KV_OFF_BLACKWELL_NOTES + " On a PD server SGLang 0.5.23 also refuses NVFP4 on SM100 with its default "
            "trtllm_mha backend (\"SM100 native NVFP4 with trtllm_mha does not yet support PD disaggregation\", "
            "kv_cache_hook.py:252), which depends on the backend it picks for the GPU.")
def _nvfp4_kv(a):
    if given(a, "kv_cache_dtype") == "nvfp4" and a.get("device") in (None, "cuda"):
        return Hit("kv_cache_dtype", lead=True, note="the server starts only on a Blackwell GPU (SM100 or SM120), "
                                                     "which pdlint cannot see: on Hopper (H100/H200) or older GPUs "
                                                     "SGLang refuses it")


@rule("SGL341", "prefill-kv-dequant-needs-nvfp4", source=KV + ":41", uid="prefill-kv-dequant-needs-nvfp4",
      upstream="--prefill-kv-cache-dequant-dtype applies only with --kv-cache-dtype=nvfp4.",
      why="The prefill dequantization dtype selects how an NVFP4 KV cache is read during prefill.",
      fix="Drop `--prefill-kv-cache-dequant-dtype`, or use `--kv-cache-dtype nvfp4` (Blackwell).",
      fire=["--prefill-kv-cache-dequant-dtype fp8_e4m3"], quiet=["--prefill-kv-cache-dequant-dtype auto"])
def _kv_dequant(a):
    if a.ne("prefill_kv_cache_dequant_dtype", "auto") and a.ne("kv_cache_dtype", "nvfp4"):
        return Hit("prefill_kv_cache_dequant_dtype", "kv_cache_dtype")


@rule("SGL342", "ple-offload-with-layer-offload", source=MEM + ":34", uid="ple-offload-conflicts",
      upstream="--ple-offload-embedding cannot be combined with --cpu-offload-gb or --offload-group-size: generic "
               "layer offload would stage the pinned PLE embedding back to the device.",
      why="Generic layer offload would copy the pinned per-layer-embedding table back to the GPU.",
      fix="Drop `--cpu-offload-gb` / `--offload-group-size`, or `--ple-offload-embedding`.",
      fire=["--ple-offload-embedding --cpu-offload-gb 1", "--ple-offload-embedding --offload-group-size 2"],
      quiet=["--ple-offload-embedding"],
      notes="Models whose PLE offload is on by default (Qwen4-Exp) are rejected with layer offload too; pdlint "
            "only reports an explicit --ple-offload-embedding.")
def _ple_layer(a):
    if a.is_true("ple_offload_embedding") and (a.gt("cpu_offload_gb", 0) or a.gt("offload_group_size", 0)):
        blame = "cpu_offload_gb" if a.gt("cpu_offload_gb", 0) else "offload_group_size"
        return Hit(blame, "ple_offload_embedding")


@rule("SGL343", "ple-file-backend-without-ple-offload", source=MEM + ":41", uid="ple-offload-conflicts",
      upstream="--ple-offload-backend file requires --ple-offload-embedding: the file-backed table is the offloaded "
               "table.",
      why="The file backend stores the offloaded per-layer-embedding table; `--no-ple-offload-embedding` turns "
          "the offload off.",
      fix="Drop `--no-ple-offload-embedding` or `--ple-offload-backend file`.",
      fire=["--ple-offload-backend file --no-ple-offload-embedding"], quiet=["--ple-offload-backend file"])
def _ple_file(a):
    if a.eq("ple_offload_backend", "file") and a.get("ple_offload_embedding") is False:
        return Hit("ple_offload_embedding", "ple_offload_backend")


# -- Mamba state cache ----------------------------------------------------------------------------------

@rule("SGL344", "int8-mamba-checkpoint-with-hicache", source=MB + ":84", uid="int8-mamba-checkpoint-conflicts",
      upstream="--enable-int8-mamba-checkpoint is not supported together with --enable-hierarchical-cache: the "
               "host-offload path is not int8-aware. Disable one of them.",
      why="HiCache's host offload would read int8 checkpoint slots as bf16 state.",
      fix="Drop `--enable-int8-mamba-checkpoint` or `--enable-hierarchical-cache`.",
      fire=["--enable-int8-mamba-checkpoint --enable-hierarchical-cache"],
      quiet=["--enable-int8-mamba-checkpoint"])
def _int8_hicache(a):
    if a.is_true("enable_int8_mamba_checkpoint") and a.is_true("enable_hierarchical_cache"):
        return Hit("enable_int8_mamba_checkpoint", "enable_hierarchical_cache")


@rule("SGL345", "int8-mamba-checkpoint-with-radix-backend", source=MB + ":90",
      uid="int8-mamba-checkpoint-conflicts",
      upstream="--enable-int8-mamba-checkpoint only supports the built-in mamba radix cache; "
               "--radix-cache-backend={radix_cache_backend!r} is not int8-aware. Omit --radix-cache-backend.",
      why="Custom radix-cache backends do not know the int8 Mamba checkpoint slots.",
      fix="Omit `--radix-cache-backend`, or drop `--enable-int8-mamba-checkpoint`.",
      fire=["--enable-int8-mamba-checkpoint --radix-cache-backend foo"],
      quiet=["--enable-int8-mamba-checkpoint"])
def _int8_radix_backend(a):
    if (a.is_true("enable_int8_mamba_checkpoint") and a.is_false("enable_hierarchical_cache")
            and a.is_set("radix_cache_backend")):
        return Hit("radix_cache_backend", "enable_int8_mamba_checkpoint")


@rule("SGL346", "int8-mamba-checkpoint-with-lmcache", source=MB + ":96", uid="int8-mamba-checkpoint-conflicts",
      upstream="--enable-int8-mamba-checkpoint is not supported together with --enable-lmcache: LMCache is not "
               "int8-aware. Disable one of them.",
      why="LMCache would offload int8 checkpoint slots as if they were bf16 state.",
      fix="Drop `--enable-int8-mamba-checkpoint` or `--enable-lmcache`.",
      fire=["--enable-int8-mamba-checkpoint --enable-lmcache"], quiet=["--enable-int8-mamba-checkpoint"])
def _int8_lmcache(a):
    if (a.is_true("enable_int8_mamba_checkpoint") and a.is_false("enable_hierarchical_cache")
            and a.is_unset("radix_cache_backend") and a.is_true("enable_lmcache")):
        return Hit("enable_lmcache", "enable_int8_mamba_checkpoint")


@rule("SGL347", "mamba-philox-rounds-negative", source=MB + ":22", uid="mamba-numeric-flags",
      upstream="--mamba-cache-philox-rounds must be non-negative.",
      why="The value is a count of Philox rounds for the Mamba cache's stochastic rounding.",
      fix="Use `--mamba-cache-philox-rounds 0` or more.",
      fire=["--mamba-cache-philox-rounds -1"], quiet=["--mamba-cache-philox-rounds 0"])
def _philox(a):
    if a.lt("mamba_cache_philox_rounds", 0):
        return Hit("mamba_cache_philox_rounds")


@rule("SGL348", "mamba-max-states-per-path-invalid", source=MB + ":25", uid="mamba-numeric-flags",
      upstream="--mamba-max-states-per-path must be -1 (unlimited) or a positive integer, got "
               "{mamba_max_states_per_path}.",
      why="The value bounds how many Mamba states one radix path keeps; -1 means unlimited.",
      fix="Use -1 or a positive integer.",
      fire=["--mamba-max-states-per-path 0", "--mamba-max-states-per-path -2"],
      quiet=["--mamba-max-states-per-path 3", "--mamba-max-states-per-path -1"])
def _max_states(a):
    v = a.num("mamba_max_states_per_path")
    if v is not None and (v == 0 or v < -1) and a.ge("mamba_cache_philox_rounds", 0):
        return Hit("mamba_max_states_per_path")


@rule("SGL349", "mamba-stochastic-rounding-needs-fp16", source=MB + ":32", uid="mamba-numeric-flags",
      upstream="Stochastic rounding for the Mamba SSM cache requires --mamba-ssm-dtype float16, got "
               "{mamba_ssm_dtype!r}. Run with --mamba-ssm-dtype float16 or disable "
               "--enable-mamba-cache-stochastic-rounding.",
      why="Stochastic rounding rounds the SSM state to float16; it needs an explicit `--mamba-ssm-dtype float16` "
          "(an unset dtype is not float16).",
      fix="Add `--mamba-ssm-dtype float16`, or drop `--enable-mamba-cache-stochastic-rounding`.",
      fire=["--enable-mamba-cache-stochastic-rounding",
            "--enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype bfloat16"],
      quiet=["--mamba-ssm-dtype bfloat16"],
      notes="With float16 SGLang additionally needs a CUDA GPU, and SM100 for the triton Mamba backend "
            "(platform checks pdlint does not make).")
def _stochastic(a):
    v = a.num("mamba_max_states_per_path")
    if (a.is_true("enable_mamba_cache_stochastic_rounding") and a.known("mamba_ssm_dtype")
            and a.get("mamba_ssm_dtype") != "float16" and a.ge("mamba_cache_philox_rounds", 0)
            and v is not None and not (v == 0 or v < -1)):
        return Hit("enable_mamba_cache_stochastic_rounding", "mamba_ssm_dtype")
