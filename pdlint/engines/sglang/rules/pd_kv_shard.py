"""KV cache sharding on PD prefill servers (``arg_groups/kv_shard_hook.py``):
SGL167-SGL186 and SGL350.

``--enable-kv-cache-sharding`` is prefill-only (SGL126); on a prefill server
SGLang then refuses, in this order, a list of features the sharded pool does
not support, the attention-backend and topology gates (model dependent: GQA
models need ``--enable-prefill-cp`` with attn-cp > 1, MLA models plain TP > 1),
the transfer backend, the staging buffer, a page size of 1 and disabled chunked
prefill.  Every refusal fails the launch, so a rule may fire even when an
earlier (model-dependent) gate would fail first.
"""

from typing import Optional

from pdlint import lazyre
from pdlint.engines.sglang.rulebase import WARNING, Hit, ex, sgl_rule

KS = "--disaggregation-mode prefill --enable-kv-cache-sharding"
# A sharded prefill SGLang accepts on the tiny (GQA) Llama: prefill CP over two ranks, real pages.
KS_OK = KS + " --enable-prefill-cp --attn-cp-size 2 --tp-size 2 --cp-strategy interleave --page-size 64"
SRC = "arg_groups/kv_shard_hook.py:"
# Attention backends that rewrite --page-size (overrides._mla_backend_page_constraints).
PAGE_FORCING_BACKENDS = ("flashmla", "trtllm_mla", "cutedsl_mla", "trtllm_mha", "hpc_ops")


def sharding(a) -> bool:
    return a.role == "prefill" and a.is_true("enable_kv_cache_sharding")


def _ks_rule(code, name, dests, message, line, why, fix, fire=None, quiet=None,
             upstream_id="pd-kv-sharding-flag-conflicts", env=(), notes=""):
    """Register a sharded-prefill rule.  Used as a decorator it takes the predicate; called directly
    (``_ks_rule(...)(None)``) the predicate is "every flag in ``dests`` is on"."""
    dests = (dests,) if isinstance(dests, str) else tuple(dests)
    flags = " ".join("--" + d.replace("_", "-") for d in dests)

    def flags_on(a):
        if sharding(a) and all(a.is_true(d) for d in dests):
            return Hit(*dests, "enable_kv_cache_sharding")

    def deco(fn):
        sgl_rule(code, name, roles=("prefill",), upstream=message, source=SRC + str(line), upstream_id=upstream_id,
                 why=why, fix=fix, env=env, notes=notes, fire=fire or [KS + " " + flags],
                 quiet=quiet or [KS_OK, "--disaggregation-mode prefill " + flags])(fn or flags_on)
        return fn
    return deco


@sgl_rule(
    "SGL167", "kv-sharding-with-speculation", roles=("prefill",),
    upstream="KV sharding supports speculative decoding only for GLM DSA single-layer NextN MTP with EAGLE and topk=1.",
    source=SRC + "115", upstream_id="pd-kv-sharding-spec",
    why="A sharded prefill can run only the GLM DSA single-layer NextN draft, with the algorithm spelled `EAGLE` "
        "and `--speculative-eagle-topk 1`. The check runs before SGLang normalises the algorithm name, so "
        "`NEXTN` or a lower-case `eagle` is refused too.",
    fix="Drop `--speculative-algorithm` on the sharded prefill, or use `--speculative-algorithm EAGLE "
        "--speculative-eagle-topk 1` with a GLM DSA model.",
    fire=[KS + " --speculative-algorithm NGRAM",
          KS + " --speculative-algorithm NEXTN --speculative-draft-model-path @TINY@",
          KS + " --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@ --speculative-eagle-topk 2"],
    quiet=[KS_OK, "--disaggregation-mode prefill --speculative-algorithm NEXTN --speculative-draft-model-path @TINY@"],
    notes="With `EAGLE` the rest depends on the model (GlmMoeDsaForCausalLM with one NextN layer) and is not "
          "checked; pdlint reports other spellings/algorithms, an explicit top-k other than 1 and multi-layer "
          "EAGLE.")
def _ks_spec(a):
    if not sharding(a):
        return None
    algo = a.raw("speculative_algorithm")  # checked before the speculative hook normalises it
    if not isinstance(algo, str):
        return None
    if algo != "EAGLE":
        return Hit("speculative_algorithm", "enable_kv_cache_sharding")
    topk = a.num("speculative_eagle_topk")
    if topk is not None and topk != 1:
        return Hit("speculative_eagle_topk", "enable_kv_cache_sharding")
    if a.is_true("enable_multi_layer_eagle"):
        return Hit("enable_multi_layer_eagle", "enable_kv_cache_sharding")


@_ks_rule("SGL168", "kv-sharding-with-dllm", "dllm_algorithm",
          "--enable-kv-cache-sharding does not support diffusion language models: DLLM admission bypasses the "
          "shard-scratch budget and resolves out of PD-prefill mode.", 120,
          "Diffusion LLM admission bypasses the sharded scratch budget, and dLLM serving drops the PD role.",
          "Drop `--dllm-algorithm` or `--enable-kv-cache-sharding`.",
          fire=[KS + " --dllm-algorithm LowConfidence"], quiet=[KS_OK])
def _ks_dllm(a):
    if sharding(a) and a.is_set("dllm_algorithm"):
        return Hit("dllm_algorithm", "enable_kv_cache_sharding")


@_ks_rule("SGL169", "kv-sharding-with-radix-cache-backend", "radix_cache_backend",
          "--enable-kv-cache-sharding requires the built-in UnifiedRadixCache with a rotation-aware UnifiedTreeCore "
          "and does not support --radix-cache-backend={radix_cache_backend!r}.", 126,
          "The sharded pool needs the built-in radix cache, whose tree core tracks the shard rotation.",
          "Drop `--radix-cache-backend` on the sharded prefill.",
          fire=[KS + " --radix-cache-backend foo"], quiet=[KS_OK])
def _ks_radix_backend(a):
    if sharding(a) and a.is_set("radix_cache_backend"):
        return Hit("radix_cache_backend", "enable_kv_cache_sharding")


@_ks_rule("SGL170", "kv-sharding-tree-core-backend", (),
          "--enable-kv-cache-sharding requires the Python UnifiedTreeCore: "
          "SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND={tree_core_backend!r} is not supported for sharded KV.", 140,
          "KV sharding uses the Python tree core of the unified radix cache (SGLang selects it when the variable is "
          "unset); an explicit other core does not track the shard rotation.",
          "Unset `SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND` (or set it to `python`) on the sharded prefill.",
          fire=[ex(KS, {"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "rust"})],
          quiet=[ex(KS_OK, {"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "python"}),
                 ex(KS_OK + " --disable-radix-cache", {"SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND": "rust"})],
          upstream_id="pd-kv-sharding-tree-core-env", env=("SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND",))
def _ks_tree_core(a):
    core = a.env_value("SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND")
    if sharding(a) and core is not None and core != "python" and a.is_false("disable_radix_cache"):
        return Hit("enable_kv_cache_sharding", fmt={"tree_core_backend": core},
                   note="SGLANG_UNIFIED_RADIX_TREE_CORE_BACKEND is set in this launch's environment")


_ks_rule("SGL171", "kv-sharding-with-external-linker", "enable_unified_cache_external_linker",
          "--enable-kv-cache-sharding does not support --enable-unified-cache-external-linker: load-back allocates "
          "through the flat allocator API.", 146,
          "The external cache linker loads KV back through the flat (unsharded) allocator.",
          "Drop `--enable-unified-cache-external-linker` on the sharded prefill.")(None)


_ks_rule("SGL172", "kv-sharding-with-streaming-session", "enable_streaming_session",
          "--enable-kv-cache-sharding does not support streaming sessions: their virtual nodes do not carry "
          "KV-shard rotation metadata.", 152,
          "Streaming-session radix nodes carry no shard rotation.",
          "Drop `--enable-streaming-session` on the sharded prefill.")(None)


_ks_rule("SGL173", "kv-sharding-with-session-radix-cache", "enable_session_radix_cache",
          "--enable-kv-cache-sharding does not support session radix cache yet.", 157,
          "The session radix cache does not support the sharded pool yet.",
          "Drop `--enable-session-radix-cache` on the sharded prefill.")(None)


_ks_rule("SGL174", "kv-sharding-with-flexkv", "enable_flexkv",
          "--enable-kv-cache-sharding does not support --enable-flexkv: FlexKV load-back allocates through the "
          "stock flat allocator API.", 161,
          "FlexKV loads KV back through the flat (unsharded) allocator.",
          "Drop `--enable-flexkv` on the sharded prefill.")(None)


_ks_rule("SGL175", "kv-sharding-with-unified-memory", "enable_unified_memory",
          "--enable-kv-cache-sharding does not support --enable-unified-memory: the unified pool uses a different "
          "virtual-id allocator and layout.", 166,
          "The unified memory pool has its own virtual-id allocator and layout.",
          "Drop `--enable-unified-memory` on the sharded prefill.")(None)


@_ks_rule("SGL176", "kv-sharding-with-dcp", "dcp_size",
          "--enable-kv-cache-sharding and decode context parallelism (--dcp-size) are mutually exclusive users of "
          "the widened allocator index space.", 171,
          "KV sharding and decode context parallelism both widen the allocator's index space.",
          "Use `--dcp-size 1` on the sharded prefill.",
          fire=[KS + " --dcp-size 2 --tp-size 2"],
          quiet=[KS_OK, "--disaggregation-mode prefill --dcp-size 2 --tp-size 2"])
def _ks_dcp(a):
    if sharding(a) and a.gt("dcp_size", 1):
        return Hit("dcp_size", "enable_kv_cache_sharding")


@_ks_rule("SGL177", "kv-sharding-with-hicache-storage", ("enable_hierarchical_cache", "hicache_storage_backend"),
          "--enable-kv-cache-sharding supports HiCache host offload but not --hicache-storage-backend yet: the "
          "storage path reads and writes whole pages per rank, not each rank's own stripe.", 177,
          "HiCache storage (L3) reads and writes whole pages per rank, but a sharded rank holds only its stripe.",
          "Drop `--hicache-storage-backend` on the sharded prefill (host-memory HiCache is supported).",
          fire=[KS + " --enable-hierarchical-cache --hicache-storage-backend file"],
          quiet=[KS_OK, KS_OK + " --enable-hierarchical-cache"])
def _ks_hicache_storage(a):
    if sharding(a) and a.is_true("enable_hierarchical_cache") and a.is_set("hicache_storage_backend"):
        return Hit("hicache_storage_backend", "enable_kv_cache_sharding")


_ks_rule("SGL178", "kv-sharding-with-lmcache", "enable_lmcache",
          "--enable-kv-cache-sharding does not support --enable-lmcache.", 195,
          "LMCache works on whole, unsharded pages.", "Drop `--enable-lmcache` on the sharded prefill.",
          quiet=[KS_OK])(None)


_ks_rule("SGL179", "kv-sharding-with-hisparse", "enable_hisparse",
          "--enable-kv-cache-sharding does not support --enable-hisparse: HiSparse selects a non-sharded allocator "
          "and assumes each rank owns complete KV pages.", 199,
          "HiSparse uses a non-sharded allocator that assumes complete pages per rank.",
          "Drop `--enable-hisparse` on the sharded prefill.", quiet=[KS_OK])(None)


@_ks_rule("SGL180", "kv-sharding-with-dynamic-chunking", ("enable_dynamic_chunking", "pp_size"),
          "--enable-kv-cache-sharding does not support dynamic chunk sizing with pipeline parallelism: profiling "
          "and predicted chunks can exceed the fixed sharded scratch capacity. Disable --enable-dynamic-chunking.",
          207,
          "With pipeline parallelism dynamic chunking can grow chunks beyond the fixed sharded scratch space.",
          "Drop `--enable-dynamic-chunking` on the sharded prefill.",
          fire=[KS + " --enable-dynamic-chunking --pp-size 2"],
          quiet=[KS_OK, KS_OK + " --enable-dynamic-chunking"])
def _ks_dyn_chunk(a):
    if sharding(a) and a.is_true("enable_dynamic_chunking") and a.gt("pp_size", 1):
        return Hit("enable_dynamic_chunking", "pp_size", "enable_kv_cache_sharding")


_ks_rule("SGL181", "kv-sharding-with-two-batch-overlap", "enable_two_batch_overlap",
          "--enable-kv-cache-sharding does not support --enable-two-batch-overlap: the sharded pool's per-batch "
          "gather plan is a process-wide singleton, but TBO rebuilds attention metadata multiple times per extend "
          "forward and clobbers the plan.", 214,
          "Two-batch overlap rebuilds attention metadata several times per forward and clobbers the sharded "
          "pool's gather plan.",
          "Drop `--enable-two-batch-overlap` on the sharded prefill.", quiet=[KS_OK])(None)


@_ks_rule("SGL182", "kv-sharding-transfer-backend", (),
          "--enable-kv-cache-sharding currently only supports the mooncake and nixl transfer backends: both route "
          "sends through CommonKVSender._prepare_send_indices and pair destinations by fancy index. Got "
          "--disaggregation-transfer-backend {disaggregation_transfer_backend!r}.", 237,
          "Only the Mooncake and NIXL senders pair the sharded pages with their destinations.",
          "Use `--disaggregation-transfer-backend mooncake` or `nixl` on the sharded prefill.",
          fire=[KS_OK + " --disaggregation-transfer-backend ascend", KS + " --disaggregation-transfer-backend mori"],
          quiet=[KS_OK, KS_OK + " --disaggregation-transfer-backend nixl"],
          upstream_id="pd-kv-sharding-transfer-backend")
def _ks_backend(a):
    if sharding(a) and a.not_among("disaggregation_transfer_backend", ("mooncake", "nixl")):
        return Hit("disaggregation_transfer_backend", "enable_kv_cache_sharding")


@_ks_rule("SGL183", "kv-sharding-with-staging-buffer", (),
          "--enable-kv-cache-sharding is incompatible with SGLANG_DISAGG_STAGING_BUFFER (the staging path assumes "
          "contiguous send slices).", 245,
          "The staging-buffer transfer path assumes contiguous send slices; a sharded rank's pages are striped.",
          "Unset `SGLANG_DISAGG_STAGING_BUFFER` on the sharded prefill.",
          fire=[ex(KS_OK, {"SGLANG_DISAGG_STAGING_BUFFER": "1"}), ex(KS, {"SGLANG_DISAGG_STAGING_BUFFER": "true"})],
          quiet=[ex(KS_OK, {"SGLANG_DISAGG_STAGING_BUFFER": "0"})],
          upstream_id="pd-kv-sharding-staging-env", env=("SGLANG_DISAGG_STAGING_BUFFER",))
def _ks_staging(a):
    if sharding(a) and a.env_truthy("SGLANG_DISAGG_STAGING_BUFFER"):
        return Hit("enable_kv_cache_sharding", note="SGLANG_DISAGG_STAGING_BUFFER is set in this launch's environment")


@_ks_rule("SGL184", "kv-sharding-without-shard-topology", (),
          "--enable-kv-cache-sharding for GQA models shards across attention-CP ranks and requires "
          "--enable-prefill-cp with attn_cp_size > 1.", 266,
          "The sharded pool stripes every page across ranks: attention-CP ranks (`--enable-prefill-cp` with "
          "`--attn-cp-size` > 1) for GQA/MHA models, attention-TP ranks (`--tp-size` > 1, no attention DP) for MLA "
          "models. With neither there is nothing to shard across.",
          "Add `--enable-prefill-cp --attn-cp-size N --cp-strategy interleave` (GQA/MHA models), or use plain "
          "`--tp-size N` without attention DP (MLA models).",
          fire=[KS, KS + " --tp-size 2 --attn-dp-size 2",
                # a model pdlint knows is not MLA (the served name; the oracle's tiny model is that Llama
                # architecture): oracle 0.5.23 REJECTs with this message (field test rw22/b, P2)
                KS + " --model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --tp-size 2",
                KS + " --model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct --tp-size 2 "
                     "--attn-cp-size 2"],
          quiet=[KS_OK, KS_OK.replace("interleave", "zigzag"),
                 KS_OK + " --model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct"],
          upstream_id="pd-kv-sharding-topology",
          notes="Which topology applies depends on the model (MLA or not: SGLang's ModelConfig attention "
                "architecture). For a model path (or served name) of a family pdlint knows (docs/models.md) that "
                "is not MLA, pdlint reports any sharded prefill without `--enable-prefill-cp` and "
                "`--attn-cp-size` > 1, whatever `--tp-size`; for any other model only launches that fail both: "
                "no `--enable-prefill-cp`, and `--tp-size` 1 or attention DP. For an MLA model SGLang's "
                "message says instead that plain TP with tp_size > 1 (and `--attn-dp-size` 1) is needed.")
def _ks_topology(a):
    if not sharding(a):
        return None
    from pdlint.engines.sglang.rules.pair import named_family
    fam, flag = named_family(a)
    if (fam is not None and not fam.mla and a.known("enable_prefill_cp") and a.known("attn_cp_size")
            and not (a.is_true("enable_prefill_cp") and a.gt("attn_cp_size", 1))):
        # SGLang takes the GQA branch for every non-MLA model: tensor parallelism does not shard its pool
        blame = "attn_cp_size" if a.is_true("enable_prefill_cp") else "enable_kv_cache_sharding"
        return Hit(blame, note=(
            f"{fam.name} ({flag}) is not an MLA model: its sharded pool needs --enable-prefill-cp with "
            "--attn-cp-size > 1; --tp-size does not shard it"))
    if (a.is_false("enable_prefill_cp") and a.le("attn_cp_size", 1)
            and (a.le("tp_size", 1) or a.attn_dp_enabled)):
        blame = "attn_dp_size" if a.attn_dp_enabled else "tp_size"
        return Hit("enable_kv_cache_sharding", blame, note=(
            "the sharded pool needs prefill CP (--enable-prefill-cp, --attn-cp-size > 1) or, for MLA models, "
            "plain TP > 1 without attention DP"))


def _page_size_kept(a) -> bool:
    """An explicit --page-size survives resolution: an explicit attention backend and no backend that rewrites
    the page size (the defaults depend on the model and GPU)."""
    dests = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
             "speculative_draft_attention_backend")
    return (a.explicit("page_size") and (a.is_set("attention_backend") or a.is_set("prefill_attention_backend")
                                         and a.is_set("decode_attention_backend"))
            and all(a.not_among(d, PAGE_FORCING_BACKENDS) for d in dests))


# the sharded prefill of KS_OK with the page size left to SGLang
KS_NO_PAGE = KS + " --enable-prefill-cp --attn-cp-size 2 --tp-size 2 --cp-strategy interleave"
# backends that set a page size of their own where SGLang's default is 1 (overrides.py: FA4 on Blackwell for
# non-MLA models, Intel XPU)
PAGE_SETTING_BACKENDS = PAGE_FORCING_BACKENDS + ("fa4", "intel_xpu")
# CUDA attention backends that leave SGLang's default page size (1) as it is (overrides.py
# _mla_backend_page_constraints, _fa4_page_constraint, _intel_xpu_page_constraint, _page_size_default)
_PAGE_KEEPING_BACKENDS = ("fa3", "flashinfer", "triton", "flex_attention", "torch_native")
# models whose own override (arg_groups/model_overrides) writes the page size whatever the attention backend:
# DeepSeek-V4 (deepseek_v4.py: 256), MiniMax-M3 NVFP4 (minimax_m3.py: 128), DSA models (deepseek_v2.py; they
# need the dsa backend for sharding first)
_PAGE_SETTING_MODELS = lazyre.compile(r"^(?:[a-z0-9]+-)?(?:deepseek-v4|deepseek-v3\.2|minimax-m3|glm-5)")


def _default_page_one(a) -> Optional[str]:
    """--page-size is not written and the written attention backends keep SGLang's default page size 1 on a
    CUDA server: the backend of each side (prefill, decode; the draft's when written) is one that sets no page
    size, no diffusion-LLM block size applies, and the model is not named as one whose override sets a page
    size.  Returns the backend to quote, else None (the GPU or the model may decide the page size)."""
    if a.explicit("page_size") or not a.is_unset("page_size"):
        return None
    return page_keeping_backends(a)


def page_kept_by_model(a) -> bool:
    """The model is known and not named as one whose own override writes the page size whatever the attention
    backend (:data:`_PAGE_SETTING_MODELS`, DeepSeek-V4)."""
    from pdlint.engines.sglang.rules.pair import named_family
    from pdlint.models import component
    for dest in ("model_path", "served_model_name"):
        name = a.get(dest)
        if not a.known(dest):
            return False
        if isinstance(name, str) and _PAGE_SETTING_MODELS.match(component(name)):
            return False
    fam, _ = named_family(a)
    return fam is None or fam.name != "DeepSeek-V4"


def page_keeping_backends(a) -> Optional[str]:
    """The page size SGLang has before its attention-backend passes (written, or its default 1) is the one it
    checks, on a CUDA server: the written backend of each side (prefill, decode; the draft's when written) is
    one that sets no page size, no diffusion-LLM block size applies, and the model is not named as one whose
    override sets a page size.  Returns the backend to quote, else None (the GPU or the model may decide the
    page size)."""
    from pdlint.engines.sglang.rulebase import attention_backend, attention_backends
    if not a.is_unset("dllm_algorithm"):
        return None
    device = a.get("device")
    if not (device is None or isinstance(device, str) and device.startswith("cuda")):
        return None
    pre, dec = attention_backends(a)
    if pre not in _PAGE_KEEPING_BACKENDS or dec not in _PAGE_KEEPING_BACKENDS:
        return None
    draft = attention_backend(a, "speculative_draft_attention_backend")
    if draft is not None and draft not in _PAGE_KEEPING_BACKENDS or a.is_set("speculative_draft_attention_backend") \
            and draft is None:
        return None
    if not page_kept_by_model(a):
        return None
    return pre if pre == dec else f"{pre} (prefill) and {dec} (decode)"


@_ks_rule("SGL185", "kv-sharding-page-size-one", (),
          "--enable-kv-cache-sharding requires a real page size (--page-size 64 recommended): the physical page is "
          "the P/D transfer descriptor and gather-copy unit; page_size=1 degenerates both into per-token "
          "operations.", 274,
          "The physical page is both the P/D transfer descriptor and the gather-copy unit of the sharded pool.",
          "Use `--page-size 64` on the sharded prefill.",
          fire=[KS_OK + " --page-size 1 --attention-backend fa3", KS_NO_PAGE + " --attention-backend fa3",
                KS_NO_PAGE + " --prefill-attention-backend fa3 --decode-attention-backend fa3"],
          quiet=[KS_OK + " --attention-backend fa3",
                 "--disaggregation-mode prefill --page-size 1 --attention-backend fa3",
                 KS_NO_PAGE + " --attention-backend fa3 --decode-attention-backend trtllm_mha"],
          notes="SGLang's default page size is 1 for most attention backends, but several backends raise the "
                "page size themselves, so pdlint reports a written `--page-size 1`, or no `--page-size`, only "
                "together with written attention backends (`--attention-backend`, or both "
                "`--prefill-attention-backend` and `--decode-attention-backend`) that keep it: fa3, flashinfer, "
                "triton, flex_attention, torch_native on a CUDA server. It is quiet for a model whose own "
                "override sets a page size (DeepSeek-V4, DeepSeek-V3.2 / GLM-5 DSA, MiniMax-M3, by name) and "
                "with `--dllm-algorithm`. SGL350 warns when `--page-size` is not written and the backend is left "
                "to SGLang. Field test rw26/b (differential test against SGLang 0.5.23): "
                "`--enable-kv-cache-sharding --attention-backend fa3` without `--page-size` got only SGL350's "
                "warning although the written backend sets no page size; the oracle refuses the firing "
                "examples and accepts the quiet ones.")
def _ks_page(a):
    if not sharding(a):
        return None
    page = a.num("page_size")
    if page is not None and page <= 1 and _page_size_kept(a):
        return Hit("page_size", "enable_kv_cache_sharding")
    backend = _default_page_one(a)
    if backend is not None:
        blame = "attention_backend" if a.explicit("attention_backend") else "prefill_attention_backend"
        return Hit("enable_kv_cache_sharding", blame, lead=True, note=(
            f"--page-size is not written and the written attention backend {backend} sets no page size of its "
            "own, so SGLang's default page size 1 applies"))


@sgl_rule(
    "SGL350", "kv-sharding-default-page-size", roles=("prefill",), severity=WARNING,
    unseen="the GPU: the attention backend SGLang picks for it may set a page size of its own (TensorRT-LLM MLA/MHA "
           "on Blackwell: 64)",
    upstream="--enable-kv-cache-sharding requires a real page size (--page-size 64 recommended): the physical page "
             "is the P/D transfer descriptor and gather-copy unit; page_size=1 degenerates both into per-token "
             "operations.",
    source=SRC + "274", upstream_id="pd-kv-sharding-flag-conflicts",
    summary="Reports a sharded prefill (`--enable-kv-cache-sharding`) that leaves `--page-size` to SGLang: its "
            "default page size is 1, which the sharded pool refuses, unless the attention backend SGLang picks "
            "for the GPU sets one of its own.",
    why="SGLang's default page size is 1 (`_page_size_default`); only some attention backends replace it "
        "(TensorRT-LLM MLA/MHA, FlashMLA, CuteDSL MLA: 64). The sharded pool uses the physical page as the P/D "
        "transfer descriptor and gather-copy unit, so with the default page size (fa3, flashinfer or triton "
        "attention: Hopper and older GPUs) SGLang refuses the launch. Which backend SGLang picks depends on the "
        "GPU, hence a warning (SGL185 reports a written `--page-size 1`).",
    fix="Write `--page-size 64` on the sharded prefill.",
    fire=[KS_NO_PAGE, KS_NO_PAGE + " --prefill-attention-backend fa3"],
    quiet=[KS_OK, KS_NO_PAGE + " --page-size 32",
           "--disaggregation-mode prefill --enable-prefill-cp --attn-cp-size 2 --tp-size 2 --cp-strategy interleave",
           KS_NO_PAGE + " --attention-backend fa3 --decode-attention-backend trtllm_mha"],
    notes="Quiet when an attention backend that sets its own page size (trtllm_mla, trtllm_mha, flashmla, "
          "cutedsl_mla, hpc_ops, fa4, intel_xpu) is written. When the written backends decide the page size "
          "(`--attention-backend fa3`, or fa3 for both the prefill and the decode side) SGL185 reports the launch "
          "as an error instead (field test rw26/b). Field test rw25/b (differential test against SGLang "
          "0.5.23, emulated H200): a DeepSeek-V3 prefill with `--enable-kv-cache-sharding` and no `--page-size` "
          "was refused (\"requires a real page size\") and pdlint said nothing; the oracle refuses the firing "
          "examples and accepts the quiet ones.")
def _ks_page_default(a):
    if not sharding(a) or a.explicit("page_size") or not a.is_unset("page_size"):
        return None
    dests = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
             "speculative_draft_attention_backend")
    if not all(a.not_among(d, PAGE_SETTING_BACKENDS) for d in dests):
        return None  # (a backend that sets a page size, or one pdlint cannot read)
    if _default_page_one(a) is not None:
        return None  # (the written backends keep page size 1: SGL185's error)
    return Hit("enable_kv_cache_sharding", lead=True, note=(
        "--page-size is not written, so SGLang's default page size 1 applies unless the attention backend it "
        "picks for the GPU sets its own (TensorRT-LLM MLA/MHA on Blackwell: 64)"))


@_ks_rule("SGL186", "kv-sharding-without-chunked-prefill", (),
          "--enable-kv-cache-sharding requires chunked prefill (--chunked-prefill-size > 0).", 282,
          "The sharded pool's scratch space is sized from the prefill chunk.",
          "Set a positive `--chunked-prefill-size` on the sharded prefill.",
          fire=[KS_OK + " --chunked-prefill-size -1", KS_OK + " --chunked-prefill-size 0"],
          quiet=[KS_OK + " --chunked-prefill-size 4096", "--disaggregation-mode prefill --chunked-prefill-size -1"])
def _ks_chunk(a):
    chunk = a.resolved_chunked_prefill_size()
    if sharding(a) and chunk is not None and chunk <= 0:
        return Hit("chunked_prefill_size", "enable_kv_cache_sharding")
