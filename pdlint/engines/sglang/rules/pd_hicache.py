"""Role-dependent checks of SGLang's HiCache hook (``arg_groups/hicache_hook.py``):
SGL160-SGL161.

``handle_hicache`` normalises and validates the HiCache flags whenever HiCache
is on, decode KV offload is on, or - on every decode server by default - the
retraction backup is unset or host_pool (:meth:`Args.hicache_path_active`).
"""

from pdlint.engines.sglang.rulebase import Hit, sgl_rule
from pdlint.engines.sglang.rules.pd_disagg import THR, host_receive_on

BUFFER_ONLY = "--hicache-host-memory-mode buffer_only --hicache-storage-backend file"
HOST_RECEIVE = "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5"


@sgl_rule(
    "SGL160", "decode-hicache-buffer-only", roles=("decode",),
    upstream="--hicache-host-memory-mode buffer_only is not supported on decode instances: the decode-side prefetch "
             "and offload paths bypass the buffer-mode pipeline, fetching without its prefix context and never "
             "consuming its staged holds. Prefill instances share the standard scheduler path and are supported.",
    source="arg_groups/hicache_hook.py:290", upstream_id="pd-decode-buffer-only-rejected",
    why="buffer_only host memory is a prefill-side staging mode. A decode server validates the HiCache flags even "
        "without `--enable-hierarchical-cache` (its default retraction backup goes through HiCache), so a flag "
        "list shared with the prefill fails on decode.",
    fix="Drop `--hicache-host-memory-mode buffer_only` on decode servers (keep it on prefill).",
    fire=["--disaggregation-mode decode " + BUFFER_ONLY,
          "--disaggregation-mode decode --enable-hierarchical-cache --disaggregation-decode-enable-radix-cache "
          "--disaggregation-decode-retraction-backup cpu_tensor " + BUFFER_ONLY],
    quiet=["--disaggregation-mode prefill --enable-hierarchical-cache " + BUFFER_ONLY,
           "--disaggregation-mode decode --disaggregation-decode-retraction-backup cpu_tensor " + BUFFER_ONLY])
def _decode_buffer_only(a):
    if (a.role == "decode" and a.hicache_path_active() and a.eq("hicache_host_memory_mode", "buffer_only")
            and a.is_set("hicache_storage_backend")):
        note = "" if a.is_true("enable_hierarchical_cache") else (
            "a decode server validates HiCache flags even without --enable-hierarchical-cache")
        return Hit("hicache_host_memory_mode", note=note)


def host_receive_layout(a):
    """``--hicache-mem-layout`` after handle_hicache normalised it for decode host receive: forced to
    layer_first (:81), then rewritten for Mooncake/NPU-memcache storage (:192) and the unified pool
    (:225).  None when unknown."""
    storage, io = a.get("hicache_storage_backend"), a.get("hicache_io_backend")
    if not (a.known("hicache_storage_backend") and isinstance(io, str) and a.known("dcp_size")
            and a.known("enable_unified_memory")):
        return None
    layout = "layer_first"
    if storage in ("mooncake", "npu_memcache") and not (storage == "mooncake" and a.gt("dcp_size", 1)):
        layout = {"direct": "page_first_direct", "kernel": "page_first"}.get(io, layout)
    if a.is_true("enable_unified_memory") and layout == "page_first_direct":
        layout = "page_first"
    return layout


@sgl_rule(
    "SGL161", "host-receive-storage-layout", roles=(),
    upstream="The resolved HiCache storage layout {hicache_mem_layout!r} cannot share the layer_first decode host "
             "pool used by KV transfer",
    source="arg_groups/hicache_hook.py:91", upstream_id="pd-host-receive-layer-first",
    why="Decode host receive (a host-receive threshold below 1) lands incoming KV in the HiCache host pool with "
        "the KV transfer's per-layer layout. A Mooncake or NPU-memcache storage backend rewrites that layout to "
        "page_first(_direct), which the transfer cannot use.",
    fix="Use a storage backend that keeps layer_first (e.g. `file`), or keep the host-receive threshold at 1.",
    fire=[HOST_RECEIVE + " --hicache-storage-backend mooncake",
          HOST_RECEIVE + " --hicache-storage-backend mooncake --hicache-io-backend direct",
          "--disaggregation-mode prefill --disaggregation-decode-host-receive-threshold 0.5 "
          "--enable-hierarchical-cache --hicache-storage-backend npu_memcache"],
    quiet=["--disaggregation-mode decode --hicache-storage-backend mooncake",
           "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1 --hicache-storage-backend "
           "npu_memcache"],
    notes="With `file` storage (or the kernel_ascend I/O backend) the layout stays layer_first and SGLang's "
          "argument resolution passes, but a decode server with a threshold below 1 still fails at start-up: no "
          "built-in transfer backend supports host destinations (SGL187).")
def _host_receive_layout(a):
    if not (host_receive_on(a) and a.hicache_path_active()):
        return None
    layout = host_receive_layout(a)
    if layout is not None and layout != "layer_first":
        return Hit("hicache_storage_backend", THR, fmt={"hicache_mem_layout": layout})
