"""Role-dependent checks of SGLang's KV-cache hook: the decode host_pool
retraction backup and the unified memory pool under PD disaggregation
(``arg_groups/kv_cache_hook.py``): SGL146-SGL153, SGL353.

The unified-memory checks run late (after the speculative hook) and only after
the page-major layout gate, whose attention-backend allow-list is model and
GPU dependent; when that gate fails SGLang rejects the launch all the same.
"""

from pdlint.engines.sglang.rulebase import Hit, ex, sgl_rule
from pdlint.engines.sglang.rules.pd_disagg import blame_backup

HOST_POOL = "--disaggregation-mode decode --disaggregation-decode-retraction-backup host_pool"
UM_DECODE = "--disaggregation-mode decode --enable-unified-memory"
UM_PREFILL = "--disaggregation-mode prefill --enable-unified-memory"
UM_NOTE = ("Only the allowed transfer backends come from SGLang itself "
           "(ServerArgs._unified_memory_pd_transfer_backends, {mooncake} in 0.5.23); a plugin can widen them.")


def _host_pool(a) -> bool:
    return a.eq("disaggregation_decode_retraction_backup", "host_pool")


@sgl_rule(
    "SGL146", "host-pool-backup-with-dcp", roles=("decode",),
    upstream="--disaggregation-decode-retraction-backup=host_pool does not support --dcp-size > 1.",
    source="arg_groups/kv_cache_hook.py:362", upstream_id="pd-host-pool-no-dcp",
    why="The host_pool retraction backup has no decode-context-parallel index translation. A host-receive "
        "threshold below 1 selects host_pool implicitly.",
    fix="Use `--dcp-size 1`, or another retraction backup (`cpu_tensor`) and a host-receive threshold of 1.",
    fire=[HOST_POOL + " --dcp-size 2 --tp-size 2",
          "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 --dcp-size 2 --tp-size 2"],
    quiet=["--disaggregation-mode decode --dcp-size 2 --tp-size 2", HOST_POOL + " --tp-size 2"])
def _host_pool_dcp(a):
    if a.role == "decode" and _host_pool(a) and a.gt("dcp_size", 1):
        return Hit("dcp_size", blame_backup(a))


@sgl_rule(
    "SGL147", "host-pool-backup-with-priority-preemption", roles=("decode",),
    upstream="--disaggregation-decode-retraction-backup=host_pool requires --disable-priority-preemption when "
             "priority scheduling is enabled.",
    source="arg_groups/kv_cache_hook.py:371", upstream_id="pd-host-pool-priority-preemption",
    why="Priority preemption retracts running requests at any time; the host_pool backup cannot back those "
        "retractions up. A host-receive threshold below 1 selects host_pool implicitly.",
    fix="Add `--disable-priority-preemption`, or drop priority scheduling or the host_pool backup.",
    fire=[HOST_POOL + " --enable-priority-scheduling",
          "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5 "
          "--enable-priority-scheduling"],
    quiet=[HOST_POOL + " --enable-priority-scheduling --disable-priority-preemption",
           "--disaggregation-mode decode --enable-priority-scheduling"])
def _host_pool_priority(a):
    if (a.role == "decode" and _host_pool(a) and a.is_true("enable_priority_scheduling")
            and a.is_false("disable_priority_preemption")):
        return Hit("enable_priority_scheduling", blame_backup(a))


def _um_pd(a) -> bool:
    return a.pd and a.is_true("enable_unified_memory")


@sgl_rule(
    "SGL148", "unified-memory-pd-transfer-backend", roles=("prefill", "decode"),
    upstream="--enable-unified-memory with PD disaggregation supports only these transfer backends: {allowed}; got "
             "{disaggregation_transfer_backend!r}.",
    source="arg_groups/kv_cache_hook.py:537", upstream_id="pd-unified-memory-mooncake-only",
    why="The unified memory pool ships whole page envelopes between prefill and decode; only the Mooncake "
        "backend (also as mooncake_tcp) implements that transfer.",
    fix="Use `--disaggregation-transfer-backend mooncake` with `--enable-unified-memory`, or drop the unified pool.",
    fire=[UM_DECODE + " --disaggregation-transfer-backend nixl", UM_DECODE + " --disaggregation-transfer-backend fake"],
    quiet=[UM_DECODE, UM_DECODE + " --disaggregation-transfer-backend mooncake_tcp",
           "--enable-unified-memory --disaggregation-transfer-backend nixl"],
    notes=UM_NOTE)
def _um_backend(a):
    if _um_pd(a) and a.ne("disaggregation_transfer_backend", "mooncake"):
        return Hit("disaggregation_transfer_backend", "enable_unified_memory", fmt={"allowed": "mooncake"})


@sgl_rule(
    "SGL149", "unified-memory-pd-pipeline-parallel", roles=("prefill", "decode"),
    upstream="--enable-unified-memory with PD disaggregation does not support pipeline parallelism (whole-envelope "
             "transfer has no per-layer entries to subset).",
    source="arg_groups/kv_cache_hook.py:542", upstream_id="pd-unified-memory-no-pp",
    why="A pipeline stage holds only some layers, but the unified pool's transfer unit is a whole page envelope "
        "across all layers.",
    fix="Use `--pp-size 1` with `--enable-unified-memory` on PD servers.",
    fire=[UM_PREFILL + " --pp-size 2"],
    quiet=[UM_PREFILL, "--enable-unified-memory --pp-size 2"])
def _um_pp(a):
    if _um_pd(a) and a.ne("pp_size", 1):
        return Hit("pp_size", "enable_unified_memory")


@sgl_rule(
    "SGL150", "unified-memory-pd-mooncake-speculation", doc_fix=1, roles=("prefill", "decode"),
    upstream="--enable-unified-memory with PD disaggregation does not support speculative decoding with the "
             "Mooncake transfer backend.",
    source="arg_groups/kv_cache_hook.py:547", upstream_id="pd-unified-memory-mooncake-no-spec",
    why="The Mooncake whole-envelope transfer does not carry the draft model's KV; every speculative algorithm "
        "is refused.",
    fix="Drop `--speculative-algorithm` on PD servers that use `--enable-unified-memory`, or drop the unified pool.",
    fire=[UM_PREFILL + " --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@",
          UM_DECODE + " --speculative-algorithm NGRAM"],
    quiet=[UM_DECODE, UM_PREFILL],
    notes="Every PD backend other than mooncake is already refused by SGL148, so on PD servers the unified pool "
          "and speculative decoding exclude each other.")
def _um_spec(a):
    if _um_pd(a) and a.eq("disaggregation_transfer_backend", "mooncake") and a.is_set("speculative_algorithm"):
        return Hit("speculative_algorithm", "enable_unified_memory")


@sgl_rule(
    "SGL151", "unified-memory-pd-lazy-compaction-disabled", roles=("prefill", "decode"),
    upstream="--enable-unified-memory with PD disaggregation requires lazy compaction; unset "
             "SGLANG_DISABLE_LAZY_COMPACTION.",
    source="arg_groups/kv_cache_hook.py:554", upstream_id="pd-unified-memory-lazy-compaction",
    env=("SGLANG_DISABLE_LAZY_COMPACTION",),
    why="Eager compaction would move pages of the unified pool while a KV transfer reads them.",
    fix="Unset `SGLANG_DISABLE_LAZY_COMPACTION` on PD servers with `--enable-unified-memory`.",
    fire=[ex(UM_DECODE, {"SGLANG_DISABLE_LAZY_COMPACTION": "1"})],
    quiet=[ex("--enable-unified-memory", {"SGLANG_DISABLE_LAZY_COMPACTION": "1"}),
           ex(UM_DECODE, {"SGLANG_DISABLE_LAZY_COMPACTION": "false"})])
def _um_lazy(a):
    if _um_pd(a) and a.env_truthy("SGLANG_DISABLE_LAZY_COMPACTION"):
        return Hit("enable_unified_memory", note="SGLANG_DISABLE_LAZY_COMPACTION is set in this launch's environment")


@sgl_rule(
    "SGL152", "unified-memory-pd-hisparse", roles=("prefill", "decode"),
    upstream="--enable-unified-memory with PD disaggregation is not compatible with --enable-hisparse: the "
             "decode-side HiSparse prealloc path ships host/C4 rows straight from the allocator, bypassing the "
             "virtual->physical translation the unified pool needs.",
    source="arg_groups/kv_cache_hook.py:558", upstream_id="pd-unified-memory-no-hisparse",
    why="HiSparse transfers bypass the unified pool's virtual-to-physical page translation.",
    fix="Drop `--enable-hisparse` or `--enable-unified-memory` on PD servers.",
    fire=[UM_DECODE + " --enable-hisparse"],
    quiet=[UM_DECODE],
    notes="HiSparse itself needs a DSA / DeepSeek-V4 / MiniMax-M3 model, which SGLang checks after this.")
def _um_hisparse(a):
    if _um_pd(a) and a.is_true("enable_hisparse"):
        return Hit("enable_hisparse", "enable_unified_memory")


@sgl_rule(
    "SGL353", "unified-memory-dcp-pd", roles=("prefill", "decode"),
    upstream="--enable-unified-memory with decode context parallelism (--dcp-size > 1) does not support PD "
             "disaggregation: the transfer ships whole page envelopes, which under DCP hold only this rank's shard "
             "of each widened page. Rejected here rather than at the first KV transfer, where "
             "translate_kv_indices_for_transfer would abort a server that had already booted.",
    source="arg_groups/kv_cache_hook.py:740", upstream_id="pd-unified-memory-dcp-no-pd",
    summary="Reports `--enable-unified-memory` with `--dcp-size` > 1 on a prefill or decode server, for any "
            "model: SGLang refuses it for an MLA model because of the PD role, and for any other model earlier "
            "(SGL352 when pdlint knows the model is not MLA).",
    why="Under decode context parallelism each rank's page envelope holds only its shard of a widened page, and "
        "the PD transfer ships whole envelopes. SGLang checks, in order, that the model is MLA, that it is not a "
        "hybrid sliding-window model and that the server is not a PD one, so a PD server with the unified pool "
        "and DCP is refused whatever it serves; only the message depends on the model.",
    fix="Drop `--enable-unified-memory` on PD servers that run `--dcp-size` > 1, or run DCP without the unified "
        "pool.",
    fire=[UM_DECODE + " --dcp-size 2 --tp-size 2", UM_PREFILL + " --dcp-size 2 --tp-size 2"],
    quiet=[UM_DECODE + " --tp-size 2", "--disaggregation-mode decode --dcp-size 2 --tp-size 2"],
    notes="For a model pdlint cannot place SGLang's first message may be the MLA-only one (kv_cache_hook.py:727) "
          "or the hybrid sliding-window one (:733) instead; each refuses the launch. Field test rw27/b "
          "(differential test against SGLang 0.5.23): the oracle refused `--enable-unified-memory --dcp-size 2` on "
          "both roles of a pair and pdlint only warned (SGL132); it refuses the firing examples (its tiny Llama: "
          "the MLA-only message) and accepts the quiet ones.")
def _um_dcp_pd(a):
    from pdlint.engines.sglang.rules.kv_cache import unified_memory_dcp
    from pdlint.engines.sglang.rules.pair import named_family
    if not (a.pd and unified_memory_dcp(a)):
        return None
    fam, flag = named_family(a)
    if fam is not None and not fam.mla:
        return None  # (SGL352)
    if fam is None:
        return Hit("enable_unified_memory", "dcp_size", note=(
            "on a PD server SGLang refuses the unified pool with DCP for any model; before this it refuses a "
            "non-MLA or hybrid sliding-window model with its own message"))
    return Hit("enable_unified_memory", "dcp_size", "disaggregation_mode")


@sgl_rule(
    "SGL153", "unified-memory-decode-offload-storage", roles=("decode",),
    upstream="--enable-unified-memory with decode KV offload currently supports --hicache-storage-backend=file only.",
    source="arg_groups/kv_cache_hook.py:565", upstream_id="pd-unified-memory-decode-offload-file",
    why="Decode KV offload from the unified pool is implemented for the `file` storage backend only.",
    fix="Use `--hicache-storage-backend file`, or drop decode KV offload or the unified pool.",
    fire=[UM_DECODE + " --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend mooncake"],
    quiet=[UM_DECODE + " --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend file",
           "--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache --hicache-storage-backend "
           "mooncake"],
    notes="MLA, hybrid-Mamba and hybrid-SWA models are refused here too (kv_cache_hook.py:570-578); those "
          "depend on the model and are not checked.")
def _um_offload_file(a):
    if (a.role == "decode" and a.is_true("enable_unified_memory")
            and a.is_true("disaggregation_decode_enable_offload_kvcache")
            and a.is_set("hicache_storage_backend") and a.ne("hicache_storage_backend", "file")):
        return Hit("hicache_storage_backend", "enable_unified_memory")
