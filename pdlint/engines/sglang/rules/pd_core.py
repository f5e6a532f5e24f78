"""Role-dependent SGLang checks: the motivating rule and the ten highest-value
families of ``research/sglang-rules.md`` (SGL101-SGL131).

Each predicate mirrors the condition in SGLang 0.5.23's resolution hook named
in ``source``; ``a`` is the resolved :class:`~pdlint.engines.sglang.resolve.Args`
(role-driven defaults already applied).
"""

from pdlint.engines.sglang.rulebase import MOVE, MOVE_UNSAFE, WARNING, Hit, attention_backend, ex, sgl_rule
from pdlint.engines.sglang.rules.pd_kv_shard import (PAGE_FORCING_BACKENDS, PAGE_SETTING_BACKENDS, page_kept_by_model,
                                                   page_keeping_backends)
from pdlint.engines.sglang.versions import value_set

PC = "--disaggregation-decode-allocation-policy prefill_complete does not yet support "
PC_FIRE_BASE = "--disaggregation-decode-allocation-policy prefill_complete"


@sgl_rule(
    "SGL101", "linear-replayssm-spec-on-prefill", roles=("prefill",), autofix=MOVE,
    upstream="--enable-linear-replayssm-spec is not supported on a PD prefill server: the ring is "
             "spec-verify-only scratch and the prefill server never runs spec verify.",
    source="arg_groups/attention_hook.py:494", upstream_id="pd-linear-replayssm-spec-not-prefill",
    why="The replay-SSM ring is scratch space for speculative verification, which only a decode (or non-PD) "
        "server runs. SGLang refuses to start a prefill server that carries the flag - typically because one flag "
        "list is shared by both roles, or the flag was enabled globally for a disaggregated cluster.",
    fix="Remove `--enable-linear-replayssm-spec` from the prefill server's arguments and keep it on the decode "
        "server; if both roles share one flag list, scope the flag per role in the launcher or template.",
    fire=["--disaggregation-mode prefill --enable-linear-replayssm-spec"],
    quiet=["--disaggregation-mode decode --enable-linear-replayssm-spec", "--enable-linear-replayssm-spec",
           "--disaggregation-mode prefill"])
def _linear_replayssm_spec_prefill(a):
    if a.role == "prefill" and a.is_true("enable_linear_replayssm_spec"):
        return Hit("enable_linear_replayssm_spec")


@sgl_rule(
    "SGL102", "decode-hicache-without-decode-radix", roles=("decode",), autofix=MOVE_UNSAFE,
    upstream="The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive and cannot "
             "be used at the same time. Please use only one of them.",
    source="arg_groups/kv_cache_hook.py:394", upstream_id="pd-decode-hicache-needs-decode-radix",
    why="A decode server turns its radix cache off unless `--disaggregation-decode-enable-radix-cache` is given, "
        "and hierarchical cache needs the radix cache. SGLang's message blames `--disable-radix-cache`, a flag "
        "the user usually never passed.",
    fix="On the decode server add `--disaggregation-decode-enable-radix-cache` (keeps HiCache), or drop "
        "`--enable-hierarchical-cache` there.",
    fire=["--disaggregation-mode decode --enable-hierarchical-cache",
          "--disaggregation-mode decode --enable-hicache --disable-radix-cache"],
    quiet=["--disaggregation-mode decode --enable-hierarchical-cache --disaggregation-decode-enable-radix-cache",
           "--disaggregation-mode prefill --enable-hierarchical-cache"])
def _decode_hicache(a):
    if (a.role == "decode" and a.is_true("enable_hierarchical_cache")
            and a.is_false("disaggregation_decode_enable_radix_cache")):
        return Hit("enable_hierarchical_cache", lead=True, note=(
            "--enable-hierarchical-cache on a decode server needs --disaggregation-decode-enable-radix-cache: a "
            "decode server turns its radix cache off unless that flag is given (you did not pass "
            "--disable-radix-cache; SGLang's message names it anyway)"))


# memory_hook.handle_gpu_memory_settings (0.5.20+; before, ServerArgs._handle_gpu_memory_settings): the chunked
# prefill sizes SGLang derives from the GPU's memory when --chunked-prefill-size is not given - 2048 (under 20 GB;
# 0.4.x: under 35 GB), 4096 (under 60 GB, and when it cannot read the memory), 8192 (under 160 GB: H100, H200,
# A100), 16384 (B200, MI300) - then divided by the attention-DP size (parallel_hook.handle_data_parallelism)
DEFAULT_CHUNKS = (2048, 4096, 8192, 16384)


def _per_rank(a):
    """What SGLang divides a prefill chunk by before it checks it (the DWDP size, else the attention-DP size);
    None when unknown."""
    dwdp = a.num("dwdp_size")
    if dwdp is not None and dwdp > 1:
        return int(dwdp)
    if a.attn_dp_enabled:
        return int(a.num("attn_dp_size"))
    return 1 if a.known("attn_dp_size") else None


def default_chunk_page(a):
    """A prefill (or non-PD) server that writes ``--page-size`` and leaves ``--chunked-prefill-size`` to SGLang,
    whose page size divides none of the chunk sizes SGLang may derive (:data:`DEFAULT_CHUNKS` per rank): (page,
    per-rank sizes); None otherwise (a size it divides passes on the GPUs that get it)."""
    if a.role not in ("prefill", "null") or not a.explicit("page_size") or a.explicit("chunked_prefill_size"):
        return None
    page = a.num("page_size")
    if not a.is_unset("chunked_prefill_size") or page is None or isinstance(page, float) or page <= 0:
        return None  # (page size 0: SGL194)
    if a.is_true("enable_mis") or a.is_true("enable_kv_cache_sharding"):
        return None  # (MIS turns chunked prefill off; KV sharding rounds the chunk up to a page multiple)
    div = _per_rank(a)
    if div is None or div < 1:
        return None
    chunks = tuple(c // div for c in DEFAULT_CHUNKS)
    if any(c <= 0 or c % int(page) == 0 for c in chunks):
        return None  # (a chunk of 0 tokens per rank skips the check)
    return int(page), chunks


def _sizes(chunks) -> str:
    return ", ".join(str(c) for c in chunks[:-1]) + f" or {chunks[-1]}"


@sgl_rule(
    "SGL103", "chunked-prefill-not-page-multiple", doc_fix=1, roles=("prefill", "null"),
    upstream="chunked_prefill_size must be divisible by page_size",
    source="arg_groups/validation_hook.py:244", upstream_id="pd-chunked-prefill-page-multiple",
    why="Prefill (and non-PD) servers split prompts into chunks of `--chunked-prefill-size` tokens, divided by "
        "`--attn-dp-size` when attention DP is on; each chunk must fill whole KV pages. Decode servers are exempt, "
        "so a flag list that works on decode can fail on prefill.",
    fix="Make the chunked prefill size (per attention-DP rank) a multiple of `--page-size` on prefill servers.",
    fire=["--disaggregation-mode prefill --chunked-prefill-size 100 --page-size 64",
          "--chunked-prefill-size 192 --page-size 64 --tp-size 2 --attn-dp-size 2",
          "--disaggregation-mode prefill --page-size 48 --attention-backend flashinfer",
          "--page-size 3 --attention-backend fa3",
          "--disaggregation-mode prefill --tp-size 2 --attn-dp-size 2 --page-size 16384 --attention-backend fa3"],
    quiet=["--disaggregation-mode decode --chunked-prefill-size 100 --page-size 64",
           "--disaggregation-mode prefill --chunked-prefill-size 128 --page-size 64",
           "--disaggregation-mode prefill --page-size 1024 --attention-backend flashinfer",
           "--disaggregation-mode prefill --page-size 48 --attention-backend flashinfer --chunked-prefill-size 4800",
           "--disaggregation-mode prefill --tp-size 2 --attn-dp-size 2 --page-size 4096 --attention-backend fa3",
           "--disaggregation-mode decode --page-size 48 --attention-backend flashinfer"],
    notes="With both sizes on the command line the check is exact. With `--chunked-prefill-size` left to SGLang "
          "(it derives 2048, 4096, 8192 or 16384 tokens from the GPU's memory, then divides them by the "
          "attention-DP size) pdlint reports a page size that divides none of those, when the written attention "
          "backends keep the page size (`--attention-backend` fa3, flashinfer, triton, flex_attention or "
          "torch_native, or those for both the prefill and the decode side, on a CUDA server) and the model is "
          "not named as one that sets its own page size (DeepSeek-V3.2 / GLM-5 DSA, DeepSeek-V4, MiniMax-M3): "
          "that launch is refused on every GPU. Without a written backend SGL351 warns instead (on Blackwell "
          "SGLang's default TensorRT-LLM backend replaces such a page size with 64). Field test rw27/b "
          "(differential test against SGLang 0.5.23): `--disaggregation-mode prefill --page-size 48` (or 3) got "
          "no finding while the oracle refused it (chunked prefill size 8192 on the emulated H200); the oracle "
          "refuses the firing examples and accepts the quiet ones.")
def _chunked_prefill_page(a):
    if a.role not in ("prefill", "null") or not a.explicit("page_size"):
        return None
    chunk, page = a.resolved_chunked_prefill_size(), a.num("page_size")
    if chunk is None:
        got = default_chunk_page(a)
        backend = page_keeping_backends(a) if got is not None else None
        if backend is None:
            return None
        page, chunks = got
        blame = "attention_backend" if a.explicit("attention_backend") else "prefill_attention_backend"
        per = " per attention-DP rank" if chunks[0] != DEFAULT_CHUNKS[0] else ""
        return Hit("page_size", blame, note=(
            f"--chunked-prefill-size is left to SGLang, which derives {_sizes(chunks)} tokens{per} from the GPU's "
            f"memory; page size {page} divides none of them, and the written attention backend {backend} keeps "
            "it, so every GPU refuses the launch"))
    if page is None or chunk <= 0 or page <= 0:
        return None
    if chunk % int(page) != 0:
        return Hit("chunked_prefill_size", "page_size",
                   note=f"the prefill chunk is {chunk} tokens per attention-DP rank, page size {int(page)}")


@sgl_rule(
    "SGL351", "chunked-prefill-default-not-page-multiple", roles=("prefill", "null"), severity=WARNING,
    unseen="the GPU: its memory picks the default chunked prefill size, and on Blackwell SGLang's default "
           "attention backend (TensorRT-LLM MHA/MLA) replaces the page size with 64",
    upstream="chunked_prefill_size must be divisible by page_size",
    source="arg_groups/validation_hook.py:244", upstream_id="pd-chunked-prefill-page-multiple",
    summary="Reports a prefill (or non-PD) server that writes `--page-size` and leaves `--chunked-prefill-size` "
            "to SGLang when the page size divides none of the chunk sizes SGLang derives from the GPU's memory "
            "(2048, 4096, 8192, 16384, divided by the attention-DP size): SGLang refuses it unless the attention "
            "backend it picks for the GPU replaces the page size.",
    why="Without `--chunked-prefill-size` SGLang sizes the prefill chunk from the GPU's memory (8192 tokens on "
        "H100/H200/A100-80GB, 16384 on B200, 4096 or 2048 on smaller GPUs; per attention-DP rank with attention "
        "DP) and checks that it is a multiple of the page size. A page size that divides none of these fails on "
        "Hopper and older GPUs, whose default attention backends (fa3, flashinfer, triton) keep it; on Blackwell "
        "the default TensorRT-LLM backend only takes page sizes 16/32/64/128 and replaces any other with 64, so "
        "the same launch starts there. Decode servers skip the check.",
    fix="Use a power-of-two `--page-size` such as 64 (the same on both roles), or write a "
        "`--chunked-prefill-size` that is a multiple of it.",
    fire=["--disaggregation-mode prefill --page-size 48", "--page-size 3",
          "--disaggregation-mode prefill --tp-size 2 --attn-dp-size 2 --page-size 12288"],
    quiet=["--disaggregation-mode prefill --page-size 64", "--disaggregation-mode decode --page-size 48",
           "--disaggregation-mode prefill --page-size 1024",
           "--disaggregation-mode prefill --page-size 48 --chunked-prefill-size 4800",
           "--disaggregation-mode prefill --page-size 48 --chunked-prefill-size -1"],
    notes="A warning: pdlint does not know the GPU. A page size that divides some of the derived sizes (1024: "
          "8192 and 16384, not 2048 or 4096) is not reported - it fails only on GPUs under 60 GB. With written "
          "attention backends that keep the page size SGL103 reports the launch as an error; with one that sets "
          "its own page size (trtllm_mha, trtllm_mla, flashmla, cutedsl_mla, hpc_ops, fa4, intel_xpu), "
          "`--enable-mis` (chunked prefill off), `--enable-kv-cache-sharding` (which rounds the chunk up to a "
          "page multiple), `--dllm-algorithm`, or a model named as one that sets its own page size (DeepSeek-V3.2 "
          "/ GLM-5 DSA, DeepSeek-V4, MiniMax-M3) pdlint is quiet. Field test rw27/b (differential test against "
          "SGLang 0.5.23): `--disaggregation-mode prefill --page-size 48` (or 3) got no finding while the oracle "
          "(emulated H200) refused it; emulating a B200 the oracle accepts it with page size 64 (trtllm_mha). The "
          "oracle refuses the firing examples and accepts the quiet ones.")
def _chunked_prefill_default_page(a):
    got = default_chunk_page(a)
    if got is None or page_keeping_backends(a) is not None:
        return None  # (SGL103)
    dests = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
             "speculative_draft_attention_backend")
    if not all(a.not_among(d, PAGE_SETTING_BACKENDS) for d in dests) or not a.is_unset("dllm_algorithm"):
        return None
    if not page_kept_by_model(a) and a.known("model_path"):
        return None
    page, chunks = got
    per = " per attention-DP rank" if chunks[0] != DEFAULT_CHUNKS[0] else ""
    return Hit("page_size", lead=True, note=(
        f"--chunked-prefill-size is left to SGLang, which derives {_sizes(chunks)} tokens{per} from the GPU's "
        f"memory, and page size {page} divides none of them: SGLang refuses the launch unless the attention "
        "backend it picks for the GPU replaces the page size (TensorRT-LLM MHA/MLA on Blackwell: 64)"))



@sgl_rule(
    "SGL194", "page-size-zero", roles=("prefill", "null"), since="0.5.20",
    upstream="",  # a crash: Python's "integer modulo by zero" (ZeroDivisionError), no SGLang message
    source="arg_groups/validation_hook.py:244", upstream_id="pd-chunked-prefill-page-multiple",
    summary="Reports `--page-size 0` on a prefill (or non-PD) server with chunked prefill: SGLang crashes at "
            "start with ZeroDivisionError (\"integer modulo by zero\").",
    why="check_server_args checks `chunked_prefill_size % page_size == 0` on every server but a decode one, with "
        "the chunked prefill size SGLang derives from GPU memory when none is given; a page size of 0 makes that "
        "a ZeroDivisionError instead of a readable message. A decode server skips the check, so a flag list that "
        "starts on decode crashes the prefill.",
    fix="Use a positive `--page-size` (the same on both roles), or drop it to take the attention backend's default.",
    fire=["--disaggregation-mode prefill --page-size 0 --attention-backend fa3",
          "--page-size 0 --chunked-prefill-size 8192 --attention-backend flashinfer"],
    quiet=["--disaggregation-mode decode --page-size 0 --attention-backend fa3",
           "--disaggregation-mode prefill --page-size 64 --attention-backend fa3",
           "--disaggregation-mode prefill --page-size 0 --chunked-prefill-size -1 --attention-backend fa3",
           "--disaggregation-mode prefill --page-size 0 --attention-backend trtllm_mha"],
    doc_fix=1,
    notes="Field test rw22/b (differential test against SGLang 0.5.23): the oracle rejects `--page-size 0` on "
          "prefill and non-PD servers with this ZeroDivisionError and accepts it on decode. An error where the "
          "written attention backends keep the page size (fa3, flashinfer, triton...: as SGL103); without one "
          "SGL357 warns instead (on Blackwell SGLang's default TensorRT-LLM backend replaces the page size: the "
          "oracle accepts `--page-size 0` on an emulated B200, stop 44's w7). Quiet when chunked prefill is off "
          "(`--chunked-prefill-size` <= 0, `--enable-mis`) or an attention backend that forces its own page size "
          "is given. Checked from 0.5.20 (the argument pipeline, verified on 0.5.21 and 0.5.23); older releases "
          "make the same division in `check_server_args` but are not verified.")
def _page_size_zero(a):
    if not _page_zero_checked(a) or page_keeping_backends(a) is None:
        return None  # (no written backend that keeps the page size: SGL357)
    return Hit("page_size", note=f"--page-size 0 on a {'prefill' if a.role == 'prefill' else 'non-PD'} server: "
                                 "SGLang checks `chunked_prefill_size % page_size` and crashes at start with "
                                 "ZeroDivisionError (\"integer modulo by zero\"); decode servers skip that check")


@sgl_rule(
    "SGL357", "page-size-zero-default-backend", roles=("prefill", "null"), since="0.5.20", severity=WARNING,
    unseen="the GPU: on Blackwell SGLang's default attention backend (TensorRT-LLM) replaces the page size before "
           "the check",
    upstream="",  # a crash: Python's "integer modulo by zero" (ZeroDivisionError), no SGLang message
    source="arg_groups/validation_hook.py:244", upstream_id="pd-chunked-prefill-page-multiple",
    summary="Reports `--page-size 0` on a prefill (or non-PD) server with chunked prefill and no attention backend "
            "written: SGLang crashes at start with ZeroDivisionError unless the backend it picks for the GPU "
            "replaces the page size.",
    why="check_server_args checks `chunked_prefill_size % page_size == 0` on every server but a decode one. With "
        "page size 0 that is a ZeroDivisionError on Hopper and older GPUs, whose default attention backends (fa3, "
        "flashinfer, triton) keep the page size; on Blackwell the default TensorRT-LLM backend replaces it with 64 "
        "first, so the same command line starts there and crashes on an H100/H200 node.",
    fix="Use a positive `--page-size` (the same on both roles), or drop it to take the attention backend's default.",
    fire=["--disaggregation-mode prefill --page-size 0",
          "--page-size 0 --chunked-prefill-size 8192"],
    quiet=["--disaggregation-mode decode --page-size 0",
           "--disaggregation-mode prefill --page-size 64",
           "--disaggregation-mode prefill --page-size 0 --chunked-prefill-size -1",
           "--disaggregation-mode prefill --page-size 0 --attention-backend trtllm_mha"],
    notes="A warning: pdlint does not know the GPU. With a written attention backend that keeps the page size "
          "SGL194 reports the launch as an error. Stop 44 (helper w7): emulating a B200 the oracle accepts "
          "`--page-size 0` on a prefill; on the emulated H200 it crashes as above (the oracle refuses the firing "
          "examples and accepts the quiet ones).")
def _page_size_zero_default_backend(a):
    if not _page_zero_checked(a) or page_keeping_backends(a) is not None:
        return None
    dests = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
             "speculative_draft_attention_backend")
    if not all(a.not_among(d, PAGE_SETTING_BACKENDS) for d in dests) or not a.is_unset("dllm_algorithm"):
        return None  # (a written backend or a diffusion LLM sets the page size)
    if not page_kept_by_model(a) and a.known("model_path"):
        return None  # (a model whose override sets the page size: DeepSeek-V3.2 / GLM-5, DeepSeek-V4, MiniMax-M3)
    return Hit("page_size", lead=True, note=(
        f"--page-size 0 on a {'prefill' if a.role == 'prefill' else 'non-PD'} server and no attention backend "
        "written: on Hopper and older GPUs SGLang's default backend keeps the page size and the chunked prefill "
        "check crashes at start with ZeroDivisionError (\"integer modulo by zero\"); on Blackwell the default "
        "TensorRT-LLM backend replaces it with 64"))


def _page_zero_checked(a) -> bool:
    """``--page-size 0`` on a prefill or non-PD server whose chunked prefill check runs (SGL194, SGL357): chunked
    prefill on, no written backend that forces its own page size (or one pdlint cannot read)."""
    if a.role not in ("prefill", "null") or not a.explicit("page_size") or a.num("page_size") != 0:
        return False
    if a.explicit("chunked_prefill_size"):
        chunk = a.num("chunked_prefill_size")
        if chunk is None or chunk <= 0:
            return False
    if a.is_true("enable_mis"):
        return False
    for dest in ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
                 "speculative_draft_attention_backend"):
        # overrides._mla_backend_page_constraints rewrites the page size of these backends (0 included) before
        # check_server_args divides by it; a backend pdlint cannot read may be one of them
        if a.explicit(dest) and (attention_backend(a, dest) in PAGE_FORCING_BACKENDS or not a.known(dest)):
            return False
    return True


@sgl_rule(
    "SGL104", "fake-transfer-backend-on-prefill", doc_fix=1, roles=("prefill",),
    upstream="Prefill server does not support 'fake' as the transfer backend",
    source="arg_groups/pd_disaggregation_hook.py:146", upstream_id="pd-prefill-no-fake-backend",
    why="The `fake` transfer backend moves no KV; it exists for synthetic decode benchmarks only.",
    fix="Use a real transfer backend (mooncake, nixl, ...) on the prefill server; keep `fake` for decode-only "
        "benchmarks.",
    fire=["--disaggregation-mode prefill --disaggregation-transfer-backend fake"],
    quiet=["--disaggregation-mode decode --disaggregation-transfer-backend fake",
           "--disaggregation-mode prefill --disaggregation-transfer-backend nixl"])
def _fake_on_prefill(a):
    if a.role == "prefill" and a.eq("disaggregation_transfer_backend", "fake"):
        return Hit("disaggregation_transfer_backend")


@sgl_rule(
    "SGL105", "host-pool-backup-not-on-decode", roles=("prefill", "null"), autofix=MOVE,
    upstream="--disaggregation-decode-retraction-backup=host_pool is only supported on a PD decode server.",
    source="arg_groups/kv_cache_hook.py:357", upstream_id="pd-host-pool-decode-only",
    why="The host_pool retraction backup keeps retracted decode requests in a host KV pool; only decode servers "
        "have one.",
    fix="Set `--disaggregation-decode-retraction-backup host_pool` on decode servers only.",
    fire=["--disaggregation-mode prefill --disaggregation-decode-retraction-backup host_pool",
          "--disaggregation-decode-retraction-backup host_pool"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-retraction-backup host_pool",
           "--disaggregation-mode prefill --disaggregation-decode-retraction-backup cpu_tensor"])
def _host_pool_not_decode(a):
    if (a.role in ("prefill", "null") and a.raw("disaggregation_decode_retraction_backup") == "host_pool"):
        return Hit("disaggregation_decode_retraction_backup")


@sgl_rule(
    "SGL106", "host-receive-threshold-not-on-decode", roles=("prefill", "null"), autofix=MOVE,
    upstream="--disaggregation-decode-retraction-backup=host_pool is only supported on a PD decode server.",
    source="arg_groups/kv_cache_hook.py:357", upstream_id="pd-host-receive-decode-only",
    why="A `--disaggregation-decode-host-receive-threshold` below 1 silently switches the retraction backup to "
        "host_pool, which only a decode server supports; SGLang's message names the backup flag, not the "
        "threshold the user wrote.",
    fix="Set `--disaggregation-decode-host-receive-threshold` below 1 on decode servers only.",
    fire=["--disaggregation-mode prefill --disaggregation-decode-host-receive-threshold 0.5"],
    quiet=["--disaggregation-mode prefill --disaggregation-decode-host-receive-threshold 1.0",
           "--disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1"])
def _host_receive_not_decode(a):
    if (a.role in ("prefill", "null") and a.host_receive_active()
            and a.raw("disaggregation_decode_retraction_backup") != "host_pool"
            and a.eq("disaggregation_decode_retraction_backup", "host_pool")):
        return Hit("disaggregation_decode_host_receive_threshold", lead=True, note=(
            "--disaggregation-decode-host-receive-threshold below 1 is decode-only: it silently switches "
            "--disaggregation-decode-retraction-backup to host_pool, which non-decode servers reject"))


@sgl_rule(
    "SGL107", "decode-offload-not-on-decode", roles=("prefill", "null"), autofix=MOVE,
    upstream="The argument disaggregation-decode-enable-offload-kvcache is only supported for decode side.",
    source="arg_groups/kv_cache_hook.py:401", upstream_id="pd-decode-offload-decode-only",
    why="Decode KV offload writes finished decode KV to HiCache storage; prefill and non-PD servers have no "
        "such path.",
    fix="Keep `--disaggregation-decode-enable-offload-kvcache` on decode servers only.",
    fire=["--disaggregation-mode prefill --disaggregation-decode-enable-offload-kvcache"],
    quiet=["--disaggregation-mode prefill"])
def _offload_not_decode(a):
    if a.role in ("prefill", "null") and a.is_true("disaggregation_decode_enable_offload_kvcache"):
        return Hit("disaggregation_decode_enable_offload_kvcache")


@sgl_rule(
    "SGL108", "decode-offload-needs-storage", roles=("decode",),
    upstream="The argument disaggregation-decode-enable-offload-kvcache is only supported when "
             "hicache-storage-backend is provided.",
    source="arg_groups/kv_cache_hook.py:405", upstream_id="pd-decode-offload-needs-storage",
    why="Decode KV offload has nowhere to write without a HiCache storage backend.",
    fix="Add `--hicache-storage-backend` (e.g. `file`) to the decode server, or drop the offload flag.",
    fire=["--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache "
           "--hicache-storage-backend file"])
def _offload_needs_storage(a):
    if (a.role == "decode" and a.is_true("disaggregation_decode_enable_offload_kvcache")
            and a.is_unset("hicache_storage_backend")):
        return Hit("disaggregation_decode_enable_offload_kvcache")


@sgl_rule(
    "SGL109", "decode-offload-with-host-pool", roles=("decode",),
    upstream="The arguments disaggregation-decode-enable-offload-kvcache and "
             "disaggregation-decode-retraction-backup=host_pool are mutually exclusive: both build a decode host "
             "pool.",
    source="arg_groups/kv_cache_hook.py:409", upstream_id="pd-decode-offload-vs-host-pool",
    why="Both features build their own decode host pool. A host-receive threshold below 1 selects host_pool "
        "implicitly.",
    fix="Choose one: decode KV offload, or the host_pool retraction backup (and a threshold of 1).",
    fire=["--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache "
          "--hicache-storage-backend file --disaggregation-decode-retraction-backup host_pool"],
    quiet=["--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache "
           "--hicache-storage-backend file --disaggregation-decode-retraction-backup cpu_tensor"])
def _offload_vs_host_pool(a):
    if (a.role == "decode" and a.is_true("disaggregation_decode_enable_offload_kvcache")
            and a.is_set("hicache_storage_backend")
            and a.eq("disaggregation_decode_retraction_backup", "host_pool")):
        blame = ("disaggregation_decode_retraction_backup" if a.explicit("disaggregation_decode_retraction_backup")
                 else "disaggregation_decode_host_receive_threshold")
        return Hit(blame, "disaggregation_decode_enable_offload_kvcache")


@sgl_rule(
    "SGL110", "decode-radix-with-unsupported-speculation", roles=("decode",),
    valueset="decode_radix_cache_speculation",
    upstream="--disaggregation-decode-enable-radix-cache is incompatible with speculative decoding "
             "(--speculative-algorithm {speculative_algorithm})",
    source="arg_groups/speculative_hook.py:169", upstream_id="pd-decode-radix-spec-algorithms",
    why="The decode radix cache works only with the speculative algorithms the release allows: none in SGLang "
        "0.5.11-0.5.20, DSPARK in 0.5.21-0.5.22, DSPARK/EAGLE/EAGLE3 (NEXTN runs as EAGLE) in 0.5.23.",
    fix="On the decode server, use an algorithm the release allows with the decode radix cache, drop "
        "`--disaggregation-decode-enable-radix-cache`, or upgrade SGLang.",
    fire=["--disaggregation-mode decode --disaggregation-decode-enable-radix-cache "
          "--speculative-algorithm NGRAM",
          ex("--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm EAGLE",
             version="0.5.20"),
          ex("--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm EAGLE",
             version="0.5.22")],
    quiet=["--disaggregation-mode decode --disaggregation-decode-enable-radix-cache",
           "--disaggregation-mode prefill --speculative-algorithm NGRAM",
           "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm EAGLE",
           ex("--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm DSPARK "
              "--speculative-draft-model-path /draft", version="0.5.22")],
    notes="The algorithms each release allows are read from its source (`data/sglang-values.jsonl`, "
          "`decode_radix_cache_speculation`). Up to 0.5.22 the check runs in the PD hook, before the speculative "
          "hook upper-cases the name and turns NEXTN into EAGLE, so it compares the name as written.")
def _decode_radix_spec(a):
    if a.role != "decode" or not a.is_true("disaggregation_decode_enable_radix_cache"):
        return None
    vs = value_set(a.version, "decode_radix_cache_speculation")
    if vs is None:
        return None
    algo = a.raw("speculative_algorithm") if vs.get("raw") else a.get("speculative_algorithm")
    if isinstance(algo, str) and algo not in vs["values"]:
        return Hit("speculative_algorithm", "disaggregation_decode_enable_radix_cache",
                   fmt={"speculative_algorithm": algo},
                   note=f"SGLang {a.version} allows {', '.join(vs['values']) or 'no speculative algorithm'} here")


# -- --disaggregation-decode-allocation-policy prefill_complete -------------------------------------

def _pc(a) -> bool:
    return a.eq("disaggregation_decode_allocation_policy", "prefill_complete")


def _pc_rule(code, name, reason, upstream_id, roles, why, fix, fire, quiet, env=()):
    return sgl_rule(code, name, roles=roles, upstream=PC + reason, source="arg_groups/pd_disaggregation_hook.py:239",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet, env=env,
                    notes="SGLang joins every unsupported feature into one message; pdlint reports each separately.")


@_pc_rule("SGL111", "prefill-complete-without-pd", "aggregated serving", "pd-prefill-complete-needs-pd",
          ("null",), "The prefill_complete allocation policy coordinates a prefill and a decode server.",
          "Use prefill_complete only on `--disaggregation-mode prefill|decode` servers.",
          [PC_FIRE_BASE], [PC_FIRE_BASE + " --disaggregation-mode prefill"])
def _pc_null(a):
    if _pc(a) and a.role == "null":
        return Hit("disaggregation_decode_allocation_policy")


@_pc_rule("SGL112", "prefill-complete-needs-mooncake", "transfer backends other than Mooncake",
          "pd-prefill-complete-mooncake-only", ("prefill", "decode"),
          "prefill_complete is implemented for the Mooncake transfer backend only (mooncake_tcp counts: it is "
          "mooncake over TCP).",
          "Use `--disaggregation-transfer-backend mooncake` with prefill_complete, or the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --disaggregation-transfer-backend nixl"],
          [PC_FIRE_BASE + " --disaggregation-mode decode --disaggregation-transfer-backend mooncake_tcp"])
def _pc_mooncake(a):
    if _pc(a) and a.pd and a.ne("disaggregation_transfer_backend", "mooncake"):
        return Hit("disaggregation_transfer_backend", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL113", "prefill-complete-with-pp-or-cp", "pipeline or attention context parallelism",
          "pd-prefill-complete-no-pp-cp", ("prefill", "decode"),
          "prefill_complete assumes one pipeline stage and no context parallelism.",
          "Drop `--pp-size`/`--attn-cp-size`/`--dcp-size` > 1, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode prefill --pp-size 2"],
          [PC_FIRE_BASE + " --disaggregation-mode prefill --pp-size 1"])
def _pc_pp_cp(a):
    if _pc(a) and a.pd:
        for dest in ("pp_size", "attn_cp_size", "dcp_size"):
            if a.ne(dest, 1):
                return Hit(dest, "disaggregation_decode_allocation_policy")


@_pc_rule("SGL114", "prefill-complete-with-attention-tp", "attention tensor parallelism greater than one",
          "pd-prefill-complete-tp1", ("prefill", "decode"),
          "prefill_complete needs `--tp-size 1`; deprecated `--enable-dp-attention` is folded into "
          "`--attn-dp-size` before the check, so even attention DP equal to TP does not help.",
          "Use `--tp-size 1` with prefill_complete, or the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --tp-size 2"],
          [PC_FIRE_BASE + " --disaggregation-mode decode --tp-size 1"])
def _pc_tp(a):
    # SGLang compares --tp-size with (dp_size if enable_dp_attention else 1), but the deprecated flag is
    # folded into --attn-dp-size (and reset) before this check runs, so the bound is always 1.
    if _pc(a) and a.pd and a.ne("tp_size", 1):
        return Hit("tp_size", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL115", "prefill-complete-with-pdmux", "PD multiplexing or decoupled speculation",
          "pd-prefill-complete-no-pdmux", ("prefill", "decode"),
          "prefill_complete does not support PD multiplexing or decoupled speculation.",
          "Drop `--enable-pdmux` / `--decoupled-spec-role`, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode prefill --decoupled-spec-role verifier"],
          [PC_FIRE_BASE + " --disaggregation-mode prefill --decoupled-spec-role null"])
def _pc_pdmux(a):
    if _pc(a) and a.pd:
        if a.is_true("enable_pdmux"):
            return Hit("enable_pdmux", "disaggregation_decode_allocation_policy")
        if a.ne("decoupled_spec_role", "null"):
            return Hit("decoupled_spec_role", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL116", "prefill-complete-with-role-switch", "runtime PD role switching",
          "pd-prefill-complete-no-role-switch", ("prefill", "decode"),
          "prefill_complete state is not rebuilt when a server switches role at run time.",
          "Drop `--enable-pd-role-switch`, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --enable-pd-role-switch"],
          [PC_FIRE_BASE + " --disaggregation-mode decode"])
def _pc_role_switch(a):
    if _pc(a) and a.pd and a.is_true("enable_pd_role_switch"):
        return Hit("enable_pd_role_switch", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL117", "prefill-complete-with-encoder-disaggregation", "encoder disaggregation",
          "pd-prefill-complete-no-encoder-disagg", ("prefill", "decode"),
          "prefill_complete does not support encoder disaggregation (`--encoder-only`, `--language-only`).",
          "Drop the encoder-disaggregation flag, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --language-only"],
          [PC_FIRE_BASE + " --disaggregation-mode decode"])
def _pc_encoder(a):
    if _pc(a) and a.pd:
        for dest in ("encoder_only", "language_only"):
            if a.is_true(dest):
                return Hit(dest, "disaggregation_decode_allocation_policy")


@_pc_rule("SGL118", "prefill-complete-with-hisparse", "HiSparse", "pd-prefill-complete-no-hisparse",
          ("prefill", "decode"), "prefill_complete does not support HiSparse.",
          "Drop `--enable-hisparse`, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --enable-hisparse"],
          [PC_FIRE_BASE + " --disaggregation-mode decode"])
def _pc_hisparse(a):
    if _pc(a) and a.pd and a.is_true("enable_hisparse"):
        return Hit("enable_hisparse", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL119", "prefill-complete-with-host-receive", "decode host KV buffering",
          "pd-prefill-complete-no-host-receive", ("prefill", "decode"),
          "prefill_complete does not support decode host KV buffering "
          "(`--disaggregation-decode-host-receive-threshold` below 1).",
          "Keep the host-receive threshold at 1, or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 0.5"],
          [PC_FIRE_BASE + " --disaggregation-mode decode --disaggregation-decode-host-receive-threshold 1"])
def _pc_host_receive(a):
    if _pc(a) and a.pd and a.host_receive_active():
        return Hit("disaggregation_decode_host_receive_threshold", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL120", "prefill-complete-with-decode-radix-or-hicache", "decode radix cache or decode HiCache",
          "pd-prefill-complete-decode-no-radix-hicache", ("decode",),
          "On a decode server prefill_complete supports neither the decode radix cache nor HiCache.",
          "Drop `--disaggregation-decode-enable-radix-cache` / `--enable-hierarchical-cache` on the decode server, "
          "or use the `early` policy.",
          [PC_FIRE_BASE + " --disaggregation-mode decode --disaggregation-decode-enable-radix-cache"],
          [PC_FIRE_BASE + " --disaggregation-mode prefill --disaggregation-decode-enable-radix-cache"])
def _pc_decode_radix(a):
    if _pc(a) and a.role == "decode":
        for dest in ("disaggregation_decode_enable_radix_cache", "enable_hierarchical_cache"):
            if a.is_true(dest):
                return Hit(dest, "disaggregation_decode_allocation_policy")


@_pc_rule("SGL121", "prefill-complete-prefill-hicache-not-write-back", "prefill HiCache other than L2 write_back",
          "pd-prefill-complete-prefill-hicache-writeback", ("prefill",),
          "With prefill_complete a prefill server's HiCache must be L2-only with write_back; the default write "
          "policy is write_through, so HiCache needs an explicit `--hicache-write-policy write_back`.",
          "Add `--hicache-write-policy write_back` and no `--hicache-storage-backend` on the prefill server.",
          [PC_FIRE_BASE + " --disaggregation-mode prefill --enable-hierarchical-cache"],
          [PC_FIRE_BASE + " --disaggregation-mode prefill --enable-hierarchical-cache "
                          "--hicache-write-policy write_back"])
def _pc_prefill_hicache(a):
    if _pc(a) and a.role == "prefill" and a.is_true("enable_hierarchical_cache"):
        if a.is_set("hicache_storage_backend"):
            return Hit("hicache_storage_backend", "disaggregation_decode_allocation_policy")
        if a.ne("hicache_write_policy", "write_back"):
            return Hit("hicache_write_policy", "enable_hierarchical_cache", "disaggregation_decode_allocation_policy")


@_pc_rule("SGL122", "prefill-complete-with-staging-buffer", "staging buffers", "pd-prefill-complete-no-staging-buffer",
          (), "prefill_complete does not support the staging-buffer transfer path (env "
              "`SGLANG_DISAGG_STAGING_BUFFER`).",
          "Unset `SGLANG_DISAGG_STAGING_BUFFER` for this server, or use the `early` policy.",
          [ex(PC_FIRE_BASE + " --disaggregation-mode decode", {"SGLANG_DISAGG_STAGING_BUFFER": "1"})],
          [ex(PC_FIRE_BASE + " --disaggregation-mode decode", {"SGLANG_DISAGG_STAGING_BUFFER": "0"})],
          env=("SGLANG_DISAGG_STAGING_BUFFER",))
def _pc_staging(a):
    if _pc(a) and a.env_truthy("SGLANG_DISAGG_STAGING_BUFFER"):
        return Hit("disaggregation_decode_allocation_policy",
                   note="SGLANG_DISAGG_STAGING_BUFFER is set in this launch's environment")


@_pc_rule("SGL123", "prefill-complete-with-rust-server", "the Rust bootstrap registry",
          "pd-prefill-complete-no-rust-server", (),
          "prefill_complete does not support the Rust bootstrap registry (env `SGLANG_RUST_SERVER`).",
          "Unset `SGLANG_RUST_SERVER` for this server, or use the `early` policy.",
          [ex(PC_FIRE_BASE + " --disaggregation-mode decode", {"SGLANG_RUST_SERVER": "1"})],
          [ex(PC_FIRE_BASE + " --disaggregation-mode decode", {"SGLANG_RUST_SERVER": "false"})],
          env=("SGLANG_RUST_SERVER",))
def _pc_rust(a):
    if _pc(a) and a.env_truthy("SGLANG_RUST_SERVER"):
        return Hit("disaggregation_decode_allocation_policy",
                   note="SGLANG_RUST_SERVER is set in this launch's environment")


# -- pipeline parallelism with speculative decoding -----------------------------------------------

@sgl_rule(
    "SGL124", "pp-speculation-not-on-prefill", doc_fix=1, roles=("decode", "null"),
    upstream="PP + speculative decoding (MTP) is only supported on prefill nodes (disaggregation-mode=prefill)",
    source="arg_groups/validation_hook.py:161", upstream_id="pd-pp-spec-prefill-only",
    why="Pipeline parallelism with EAGLE/NEXTN speculation relays draft state between stages only on PD prefill "
        "servers (unless SGLANG_ENABLE_PP_SPEC selects the aggregated relay, which itself refuses PD roles).",
    fix="Use `--pp-size 1` on decode and non-PD servers that speculate, or drop speculation there.",
    fire=["--disaggregation-mode decode --pp-size 2 --speculative-algorithm EAGLE "
          "--speculative-draft-model-path @TINY@"],
    quiet=["--disaggregation-mode prefill --pp-size 2 --speculative-algorithm EAGLE "
           "--speculative-draft-model-path @TINY@",
           "--disaggregation-mode decode --pp-size 1 --speculative-algorithm EAGLE "
           "--speculative-draft-model-path @TINY@"],
    env=("SGLANG_ENABLE_PP_SPEC",))
def _pp_spec(a):
    algo = a.get("speculative_algorithm")
    if (a.role in ("decode", "null") and a.gt("pp_size", 1) and algo == "EAGLE"
            and not a.is_true("enable_multi_layer_eagle") and not a.env_truthy("SGLANG_ENABLE_PP_SPEC")):
        return Hit("pp_size", "speculative_algorithm")


@sgl_rule(
    "SGL125", "dspark-pp-not-on-prefill", roles=("decode", "null"),
    upstream="DSpark pipeline parallelism requires PD prefill; decode and non-disaggregated serving require "
             "pp_size == 1.",
    source="arg_groups/speculative_hook.py:715", upstream_id="pd-dspark-pp-prefill-only",
    why="DSPARK speculation supports pipeline parallelism only on PD prefill servers.",
    fix="Use `--pp-size 1` on decode and non-PD DSPARK servers.",
    fire=["--disaggregation-mode decode --speculative-algorithm DSPARK --pp-size 2 "
          "--speculative-draft-model-path @TINY@"],
    quiet=["--disaggregation-mode decode --speculative-algorithm DSPARK --pp-size 1 "
           "--speculative-draft-model-path @TINY@",
           "--disaggregation-mode prefill --speculative-algorithm DSPARK --pp-size 2 "
           "--speculative-draft-model-path @TINY@"])
def _dspark_pp(a):
    if a.role in ("decode", "null") and a.eq("speculative_algorithm", "DSPARK") and a.ne("pp_size", 1):
        return Hit("pp_size", "speculative_algorithm")


# -- prefill-only / decode-only features ------------------------------------------------------------

@sgl_rule(
    "SGL126", "kv-cache-sharding-not-on-prefill", roles=("decode", "null"), autofix=MOVE,
    upstream="--enable-kv-cache-sharding is only supported on PD prefill workers: a rank's pool holds only its "
             "stripe of every cached page, which is incompatible with local decode.",
    source="arg_groups/kv_shard_hook.py:100", upstream_id="pd-kv-sharding-prefill-only",
    why="A sharded KV pool holds only a stripe of every page, so the server cannot decode locally.",
    fix="Keep `--enable-kv-cache-sharding` on prefill servers only.",
    fire=["--disaggregation-mode decode --enable-kv-cache-sharding", "--enable-kv-cache-sharding"],
    quiet=["--disaggregation-mode decode"])
def _kv_sharding(a):
    if a.role in ("decode", "null") and a.is_true("enable_kv_cache_sharding"):
        return Hit("enable_kv_cache_sharding")


@sgl_rule(
    "SGL127", "dwdp-on-decode", roles=("decode",), autofix=MOVE,
    upstream="DWDP requires --disaggregation-mode null or prefill",
    source="arg_groups/parallel_hook.py:444", upstream_id="pd-dwdp-not-on-decode",
    why="Decode-wide data parallelism (DWDP) re-fetches remote expert weights every decode step.",
    fix="Drop `--dwdp-size` on decode servers (it is meant for prefill).",
    fire=["--disaggregation-mode decode --dwdp-size 2 --tp-size 2"],
    quiet=["--disaggregation-mode prefill --dwdp-size 2 --tp-size 2", "--disaggregation-mode decode --tp-size 2"])
def _dwdp_decode(a):
    if a.role == "decode" and a.gt("dwdp_size", 1):
        return Hit("dwdp_size")


@sgl_rule(
    "SGL128", "role-switch-unsupported-features", roles=("prefill", "decode"),
    upstream="--enable-pd-role-switch does not rebuild role-specific state for the following features: {items}. "
             "Remove these options or drop --enable-pd-role-switch.",
    source="arg_groups/pd_disaggregation_hook.py:191", upstream_id="pd-role-switch-unsupported-features",
    why="A server that switches between prefill and decode at run time cannot rebuild expert-parallel, "
        "pipeline, DCP or speculative-decoding state.",
    fix="Drop the listed features, or drop `--enable-pd-role-switch`.",
    fire=["--disaggregation-mode prefill --enable-pd-role-switch --pp-size 2",
          "--disaggregation-mode decode --enable-pd-role-switch --speculative-algorithm NGRAM"],
    quiet=["--disaggregation-mode decode --enable-pd-role-switch", "--enable-pd-role-switch --pp-size 2"])
def _role_switch(a):
    if not (a.pd and a.is_true("enable_pd_role_switch")):
        return None
    items, blame = [], []
    if a.gt("ep_size", 1):
        items.append(f"expert parallelism (--ep-size {a.get('ep_size')})")
        blame.append("ep_size")
    if a.ne("moe_a2a_backend", "none"):
        items.append(f"MoE all-to-all (--moe-a2a-backend {a.get('moe_a2a_backend')})")
        blame.append("moe_a2a_backend")
    if a.gt("pp_size", 1):
        items.append(f"pipeline parallelism (--pp-size {a.get('pp_size')})")
        blame.append("pp_size")
    if a.attn_dp_enabled and a.is_true("enable_dp_attention_local_control_broadcast"):
        items.append("DP attention local control broadcast")
        blame.append("enable_dp_attention_local_control_broadcast")
    if a.gt("dcp_size", 1):
        items.append(f"decode context parallelism (--dcp-size {a.get('dcp_size')})")
        blame.append("dcp_size")
    if isinstance(a.get("speculative_algorithm"), str):
        items.append(f"speculative decoding (--speculative-algorithm {a.get('speculative_algorithm')})")
        blame.append("speculative_algorithm")
    if items:
        return Hit(*blame, "enable_pd_role_switch", fmt={"items": ", ".join(items)})


@sgl_rule(
    "SGL129", "lmcache-with-pd", roles=("prefill", "decode"),
    upstream="LMCacheUnifiedRadixCache currently supports colocated prefill/decode scheduling only",
    source="arg_groups/kv_cache_hook.py:471", upstream_id="pd-lmcache-colocated-only",
    why="The LMCache radix cache works only when prefill and decode run in one server. On a decode server "
        "without the decode radix cache SGLang fails earlier with \"--enable-lmcache requires radix cache to be "
        "enabled\".",
    fix="Drop `--enable-lmcache` from PD servers.",
    fire=["--disaggregation-mode prefill --enable-lmcache", "--disaggregation-mode decode --enable-lmcache"],
    quiet=["--enable-lmcache"])
def _lmcache_pd(a):
    if a.pd and a.is_true("enable_lmcache"):
        return Hit("enable_lmcache")


@sgl_rule(
    "SGL130", "response-store-with-pd", roles=("prefill", "decode"),
    upstream="--enable-response-store is not supported with --disaggregation-mode=prefill or decode; response "
             "storage must remain disabled in PD mode.",
    source="arg_groups/validation_hook.py:112", upstream_id="pd-no-response-store",
    why="The response store is not available on disaggregated servers.",
    fix="Drop `--enable-response-store` from PD servers.",
    fire=["--disaggregation-mode decode --enable-response-store"],
    quiet=["--enable-response-store", "--disaggregation-mode decode"])
def _response_store(a):
    if a.pd and a.is_true("enable_response_store"):
        return Hit("enable_response_store")


@sgl_rule(
    "SGL131", "encoder-only-with-pd", roles=("prefill", "decode"),
    upstream="Cannot set --encoder-only and --disaggregation-mode prefill/decode together",
    source="arg_groups/pd_disaggregation_hook.py:312", upstream_id="pd-encoder-only-not-with-pd",
    why="An encoder-only server (encoder disaggregation) is a third kind of server, not a PD role.",
    fix="Run the encoder as its own server without `--disaggregation-mode`.",
    fire=["--disaggregation-mode prefill --encoder-only"],
    quiet=["--disaggregation-mode prefill"])
def _encoder_only(a):
    if a.pd and a.is_true("encoder_only"):
        return Hit("encoder_only", "disaggregation_mode")

