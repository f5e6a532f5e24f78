"""Role-dependent MoE all-to-all token budgets (``arg_groups/moe_hook.py``):
SGL163-SGL166.

The dispatch buffers of the MoRI, pplx and FlashInfer all-to-all backends are
sized per rank; prefill (and non-PD) servers must fit a whole prefill chunk,
decode servers are exempt from the prefill bound.  The budgets are read from
environment variables: pdlint compares only when the variable is visibly set
(an unseen variable may be set elsewhere) and only with an explicit
``--chunked-prefill-size`` (SGLang derives the default from GPU memory).
"""

from pdlint.engines.sglang.rulebase import WARNING, Hit, ex, sgl_rule

MOE = "--model-path @TINY_MOE@ "
MORI = MOE + "--moe-a2a-backend mori --tp-size 2 --ep-size 2 --chunked-prefill-size 8192"
PPLX = MOE + "--moe-a2a-backend pplx --tp-size 2 --attn-dp-size 2 --chunked-prefill-size 4096"
FI = MOE + "--moe-a2a-backend flashinfer --tp-size 2 --attn-dp-size 2 --moe-runner-backend flashinfer_cutlass"


SGL163_MSG = ("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 4096) must be >= the per-rank MoRI dispatch "
              "tokens (chunked_prefill_size by default)")
SGL164_MSG = ("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 128) must be >= the per-rank pplx dispatch "
              "tokens (chunked_prefill_size, or the decode cuda-graph batch size)")


def _a2a(a, backend: str) -> bool:
    # Waterfill overrides the all-to-all backend to deepep (overrides._a2a_backend_overrides).
    return a.eq("moe_a2a_backend", backend) and a.is_false("enable_waterfill")


def _env_note(name: str, value: int) -> str:
    return f"{name}={value} in this launch's environment"


@sgl_rule(
    "SGL163", "mori-dispatch-budget", doc_fix=1, roles=("prefill", "null"),
    upstream=SGL163_MSG,
    source="arg_groups/moe_hook.py:567", upstream_id="pd-mori-dispatch-budget",
    env=("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK",),
    why="A prefill (or non-PD) server dispatches a whole prefill chunk per attention-DP rank through MoRI's "
        "fixed buffer. Decode servers are not checked.",
    fix="Raise `SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the per-rank chunk, or lower "
        "`--chunked-prefill-size`.",
    fire=[ex("--disaggregation-mode prefill " + MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}),
          ex(MOE + "--moe-a2a-backend mori --tp-size 2 --chunked-prefill-size 4096",
             {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "2048"})],
    quiet=[ex("--disaggregation-mode decode " + MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}),
           ex("--disaggregation-mode prefill " + MORI, {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "8192"}),
           ex(MOE + "--disaggregation-mode prefill --moe-a2a-backend mori --tp-size 2 --dwdp-size 2 "
                    "--chunked-prefill-size 8192", {"SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"})],
    notes="With the variable unset the budget is 4096: SGLang then rejects chunks above 4096 per rank, which "
          "SGL195 reports as a warning (the variable may be set outside the launch pdlint sees).")
def _mori_budget(a):
    cap = a.env_int("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    chunk = a.resolved_chunked_prefill_size()
    if (a.role in ("prefill", "null") and _a2a(a, "mori") and cap is not None and chunk is not None
            and 0 < chunk and chunk > cap):
        return Hit("chunked_prefill_size", note=_env_note("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", cap)
                   + f"; the per-rank chunk is {chunk}")


@sgl_rule(
    "SGL164", "pplx-dispatch-budget", roles=("prefill", "null"),
    upstream=SGL164_MSG,
    source="arg_groups/moe_hook.py:615", upstream_id="pd-pplx-dispatch-budget",
    env=("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK",),
    why="A prefill (or non-PD) server dispatches a whole prefill chunk per attention-DP rank (or a decode CUDA "
        "graph batch, if larger) through pplx's fixed buffer. Decode servers are not checked.",
    fix="Raise `SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK`, or lower `--chunked-prefill-size` / "
        "`--cuda-graph-max-bs-decode`.",
    fire=[ex("--disaggregation-mode prefill " + PPLX, {"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"}),
          ex("--disaggregation-mode prefill " + PPLX + " --cuda-graph-max-bs-decode 8192",
             {"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"})],
    quiet=[ex("--disaggregation-mode prefill " + PPLX, {"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}),
           ex("--disaggregation-mode decode " + PPLX, {"SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"})],
    notes="With the variable unset the budget is 128: SGL196 warns about a larger chunk (the variable may be set "
          "outside the launch pdlint sees).")
def _pplx_budget(a):
    cap = a.env_int("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    chunk = a.resolved_chunked_prefill_size()
    if not (a.role in ("prefill", "null") and _a2a(a, "pplx") and cap is not None and chunk is not None and chunk > 0):
        return None
    required, blame = chunk, ["chunked_prefill_size"]
    graph = a.num("cuda_graph_max_bs_decode")
    if graph is not None and graph > required:
        required, blame = int(graph), ["cuda_graph_max_bs_decode", "chunked_prefill_size"]
    if required > cap:
        return Hit(*blame, note=_env_note("SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK", cap)
                   + f"; {required} tokens are needed per rank")


MORI_ENV, PPLX_ENV = "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def _unset_budget(a, backend: str, label: str, name: str, default: int):
    """SGL195 / SGL196: the per-rank prefill chunk is above SGLang's default dispatch budget and ``name`` is not
    in the launch's environment: SGLang refuses the launch unless the variable is set where pdlint cannot see."""
    if a.role not in ("prefill", "null") or not _a2a(a, backend) or name in a.env:
        return None
    chunk = a.resolved_chunked_prefill_size()
    if chunk is None or chunk <= default:
        return None
    return Hit("chunked_prefill_size", "moe_a2a_backend", lead=True, note=(
        f"{name} is not set in this launch's environment, so unless it is set elsewhere the {label} budget is "
        f"{default} tokens per rank; the per-rank chunk is {chunk}"))


@sgl_rule(
    "SGL195", "mori-dispatch-budget-default", roles=("prefill", "null"), severity=WARNING,
    unseen=MORI_ENV + " set outside the launch pdlint reads (a Dockerfile ENV, the pod spec, the shell profile)",
    upstream=SGL163_MSG, source="arg_groups/moe_hook.py:567", upstream_id="pd-mori-dispatch-budget",
    env=(MORI_ENV,),
    summary="Reports a prefill (or non-PD) server with `--moe-a2a-backend mori` whose per-rank prefill chunk is "
            "above MoRI's default dispatch budget (4096) while the launch sets no "
            "`SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK`: SGLang refuses it unless the variable is set elsewhere.",
    why="Unset, the budget is 4096 tokens per rank and SGLang refuses a larger chunk (SGL163 reports the variable "
        "when the launch sets it). The variable may come from the image or the pod environment, which pdlint "
        "does not always see, hence a warning.",
    fix="Set `SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the per-rank chunk in the launch's "
        "environment, or lower `--chunked-prefill-size` to 4096 per attention-DP rank.",
    fire=["--disaggregation-mode prefill " + MORI, MOE + "--moe-a2a-backend mori --tp-size 2 --chunked-prefill-size 8192"],
    quiet=[ex("--disaggregation-mode prefill " + MORI, {MORI_ENV: "8192"}),
           "--disaggregation-mode decode " + MORI,
           MOE + "--disaggregation-mode prefill --moe-a2a-backend mori --tp-size 2 --ep-size 2 "
                 "--chunked-prefill-size 4096"],
    notes="Field test rw22/b (differential test against SGLang 0.5.23): 10 launches the oracle refused with the "
          "variable unset and accepted with 8192 passed without a word. With the variable set in the launch "
          "SGL163 compares it (and this rule stays quiet).")
def _mori_budget_default(a):
    return _unset_budget(a, "mori", "MoRI", MORI_ENV, 4096)


@sgl_rule(
    "SGL196", "pplx-dispatch-budget-default", roles=("prefill", "null"), severity=WARNING,
    unseen=PPLX_ENV + " set outside the launch pdlint reads (a Dockerfile ENV, the pod spec, the shell profile)",
    upstream=SGL164_MSG, source="arg_groups/moe_hook.py:615", upstream_id="pd-pplx-dispatch-budget",
    env=(PPLX_ENV,),
    summary="Reports a prefill (or non-PD) server with `--moe-a2a-backend pplx` whose per-rank prefill chunk is "
            "above pplx's default dispatch budget (128) while the launch sets no "
            "`SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK`: SGLang refuses it unless the variable is set elsewhere.",
    why="Unset, the budget is 128 tokens per rank and SGLang refuses a larger chunk (SGL164 reports the variable "
        "when the launch sets it). The variable may come from the image or the pod environment, which pdlint "
        "does not always see, hence a warning.",
    fix="Set `SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the per-rank chunk in the launch's "
        "environment.",
    fire=["--disaggregation-mode prefill " + PPLX],
    quiet=[ex("--disaggregation-mode prefill " + PPLX, {PPLX_ENV: "4096"}),
           "--disaggregation-mode decode " + PPLX],
    notes="pdlint compares the explicit prefill chunk only (SGLang also counts the decode CUDA graph batch size). "
          "Quiet with the variable set in the launch: SGL164 compares it.")
def _pplx_budget_default(a):
    return _unset_budget(a, "pplx", "pplx", PPLX_ENV, 128)


@sgl_rule(
    "SGL165", "flashinfer-a2a-without-chunked-prefill", doc_fix=1, roles=("prefill", "null"),
    upstream="FlashInfer MoE A2A requires chunked prefill: eager prefill dispatches the whole per-rank extend batch "
             "through a fixed-size workspace, so --chunked-prefill-size must be > 0.",
    source="arg_groups/moe_hook.py:756", upstream_id="pd-flashinfer-a2a-needs-chunked-prefill",
    why="Without chunked prefill a prefill batch has no bound, but the FlashInfer all-to-all workspace has a "
        "fixed size. Decode servers do not prefill and are exempt.",
    fix="Set a positive `--chunked-prefill-size` on prefill and non-PD servers that use "
        "`--moe-a2a-backend flashinfer`.",
    fire=["--disaggregation-mode prefill " + FI + " --chunked-prefill-size -1", FI + " --chunked-prefill-size 0"],
    quiet=["--disaggregation-mode decode " + FI + " --chunked-prefill-size -1", "--disaggregation-mode prefill " + FI],
    notes="SGLang first checks the FlashInfer A2A topology (`--attn-dp-size` equal to `--tp-size`) and MoE "
          "runner; a launch failing those is rejected all the same.")
def _fi_chunk(a):
    chunk = a.resolved_chunked_prefill_size()
    if a.role in ("prefill", "null") and _a2a(a, "flashinfer") and chunk is not None and chunk <= 0:
        return Hit("chunked_prefill_size", "moe_a2a_backend")


@sgl_rule(
    "SGL166", "flashinfer-a2a-token-budget", roles=("prefill", "null"),
    upstream="FlashInfer MoE A2A per-rank token budget exceeds its workspace: required={required} tokens per rank "
             "(prefill chunk, prefill graph, or decode/verify graph), capacity={capacity}. Set "
             "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK>={required}, or unset it to size from "
             "--chunked-prefill-size, or lower --chunked-prefill-size / the CUDA graph max batch sizes.",
    source="arg_groups/moe_hook.py:767", upstream_id="pd-flashinfer-a2a-token-budget",
    env=("SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK",),
    why="An explicit `SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK` fixes the all-to-all workspace; a "
        "prefill (or non-PD) server must fit a whole prefill chunk per attention-DP rank in it. Unset, the "
        "workspace is sized from the chunk.",
    fix="Unset `SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK` or raise it to the per-rank chunk, or lower "
        "`--chunked-prefill-size`.",
    fire=[ex("--disaggregation-mode prefill " + FI + " --chunked-prefill-size 4096",
             {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"})],
    quiet=[ex("--disaggregation-mode prefill " + FI + " --chunked-prefill-size 4096",
              {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "4096"}),
           ex("--disaggregation-mode decode " + FI + " --chunked-prefill-size 4096",
              {"SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "1024"}),
           "--disaggregation-mode prefill " + FI + " --chunked-prefill-size 4096"],
    notes="pdlint checks the prefill chunk only (a lower bound of SGLang's requirement, which also counts the "
          "prefill and decode/verify CUDA graph sizes, whose defaults depend on the GPU); the message reports "
          "that chunk as `required`.")
def _fi_budget(a):
    cap = a.env_int("SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    chunk = a.resolved_chunked_prefill_size()
    if (a.role in ("prefill", "null") and _a2a(a, "flashinfer") and cap is not None and chunk is not None
            and chunk > cap):
        return Hit("chunked_prefill_size", fmt={"required": chunk, "capacity": cap},
                   note=_env_note("SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK", cap))
