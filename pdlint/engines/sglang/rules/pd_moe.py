"""Role-dependent MoE all-to-all token budgets (``arg_groups/moe_hook.py``):
SGL163-SGL166, SGL195-SGL199 and SGL291 (the DeepEP v2 budgets).

The dispatch buffers of the MoRI, pplx and FlashInfer all-to-all backends are
sized per rank; prefill (and non-PD) servers must fit a whole prefill chunk,
decode servers are exempt from the prefill bound.  The budgets are read from
environment variables: pdlint compares only when the variable is visibly set
(an unseen variable may be set elsewhere) and only with an explicit
``--chunked-prefill-size`` (SGLang derives the default from GPU memory).
"""

from pdlint.engines.sglang.rulebase import WARNING, Hit, at_least, ex, sgl_rule

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


# -- DeepEP v2 dispatch budgets (moe_hook.validate_deepep_v2_dispatch_token_budget) ----------------------------

V2_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
V2_DEFAULT = 128  # environ.py: EnvInt(128)
# memory_hook.handle_gpu_memory_settings: the smallest chunked_prefill_size SGLang derives from GPU memory (under
# 20 GB); any GPU, and the no-GPU-memory fallback (4096), gives at least this much
V2_MIN_DEFAULT_CHUNK = 2048
V2 = MOE + "--moe-a2a-backend deepep_v2 --tp-size 2"
SGL197_MSG = ("DeepEP v2 per-rank prefill budget exceeds SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK: "
              "required={required}, capacity={capacity}. Raise the environment value or lower "
              "--chunked-prefill-size/--max-prefill-tokens.")
SGL199_MSG = ("DeepEP v2 per-rank decode CUDA graph exceeds SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK: "
              "required={required}, capacity={capacity} (requests={requests}, tokens/request={per_request}). Raise "
              "the environment value or lower --cuda-graph-max-bs-decode.")
# 0.5.23 memory_hook: the decode CUDA graph max batch size SGLang derives on a GPU of 60 GB or more (H100, H200,
# A100-80GB: 256 below --tp-size 4, else 512; B200 / MI300: 512)
V2_DEFAULT_GRAPH_BS = ((4, 256), (None, 512))


def _v2_capacity(a):
    """(capacity, written): the launch's SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK, else the default 128;
    None when the variable is in the environment but pdlint cannot read it as a number."""
    if V2_ENV not in a.env:
        return V2_DEFAULT, False
    cap = a.env_int(V2_ENV)
    return (None, True) if cap is None else (cap, True)


def _v2_prefill_tokens(a):
    """(tokens one rank dispatches in a prefill, exact, blame): SGLang's required_deepep_v2_prefill_tokens_per_rank
    - the prefill-buffer ceiling (the per-attention-DP chunk, or --max-prefill-tokens with chunked prefill off)
    split (from 0.5.22) over the tp_size // attn_dp_size ranks a chunk is scattered across.  With --chunked-prefill-size left
    to SGLang the smallest chunk it derives (2048) gives a lower bound (exact False).  None when unknown."""
    tp, dp = a.num("tp_size"), a.num("attn_dp_size")
    if tp is None or dp is None or dp < 1 or a.gt("dwdp_size", 1) or not a.known("chunked_prefill_size"):
        return None
    tp, dp = int(tp), int(dp)
    if a.explicit("chunked_prefill_size"):
        chunk = a.resolved_chunked_prefill_size()
        if chunk is None:
            return None
        if chunk > 0:
            ceiling, exact, blame = chunk, True, ["chunked_prefill_size"]
        else:
            mpt = a.num("max_prefill_tokens")
            if mpt is None or isinstance(mpt, float):
                return None
            ceiling, exact, blame = int(mpt), True, ["max_prefill_tokens", "chunked_prefill_size"]
    else:
        ceiling, exact, blame = V2_MIN_DEFAULT_CHUNK // dp, False, ["moe_a2a_backend"]
    if ceiling <= 0:
        return None
    # 0.5.22+: a per-DP chunk is scattered across tp_size // attn_dp_size ranks before dispatch (0.5.19-0.5.21
    # compared the whole per-DP chunk)
    scatter = max(1, tp // dp) if at_least(a, "0.5.22") else 1
    return -(-ceiling // scatter), exact, blame


def _v2_on(a) -> bool:
    from pdlint.engines.sglang.rules.parallel import moe_a2a
    return moe_a2a(a) == "deepep_v2"  # (as resolved: DWDP and Waterfill replace it)


def _v2_prefill(a, written: bool):
    if a.role not in ("prefill", "null") or not _v2_on(a):
        return None
    cap, cap_written = _v2_capacity(a)
    got = _v2_prefill_tokens(a)
    if cap is None or cap_written != written or got is None:
        return None
    required, exact, blame = got
    if required <= cap:
        return None
    shown = str(required) if exact else f"at least {required}"
    if exact:
        how = f"the per-rank prefill dispatch is {required} tokens"
    else:
        how = (f"--chunked-prefill-size is left to SGLang, whose smallest derived chunk ({V2_MIN_DEFAULT_CHUNK}) "
               f"already makes at least {required} tokens per rank")
    src = (_env_note(V2_ENV, cap) if written else
           f"{V2_ENV} is not set in this launch's environment, so unless it is set elsewhere the capacity is "
           f"{V2_DEFAULT} tokens per rank")
    return Hit(*blame, "moe_a2a_backend", lead=not written, fmt={"required": shown, "capacity": cap},
               note=f"{src}; {how}")


@sgl_rule(
    "SGL197", "deepep-v2-prefill-budget", roles=("prefill", "null"),
    upstream=SGL197_MSG, source="arg_groups/moe_hook.py:689", upstream_id="pd-deepep-v2-prefill-budget",
    env=(V2_ENV,),
    summary="Reports a prefill (or non-PD) server with `--moe-a2a-backend deepep_v2` whose per-rank prefill dispatch "
            "is larger than the `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` the launch sets.",
    why="DeepEP v2's ElasticBuffer holds a fixed number of tokens per rank. A prefill (or non-PD) server dispatches "
        "a whole prefill chunk per attention-DP rank, split over the tp_size / attn_dp_size ranks it is scattered "
        "across, and SGLang refuses the launch when that is more than the buffer holds.",
    fix="Raise `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the per-rank dispatch, or lower "
        "`--chunked-prefill-size` (`--max-prefill-tokens` with chunked prefill off).",
    fire=[ex("--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 4096", {V2_ENV: "1024"}),
          ex(V2 + " --chunked-prefill-size 4096 --cuda-graph-max-bs-decode 64", {V2_ENV: "1024"}),
          ex("--disaggregation-mode prefill " + V2 + " --attn-dp-size 2", {V2_ENV: "16"})],
    quiet=[ex("--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 4096", {V2_ENV: "2048"}),
           ex("--disaggregation-mode prefill " + V2 + " --attn-dp-size 2 --chunked-prefill-size 4096",
              {V2_ENV: "2048"}),
           ex("--disaggregation-mode decode " + V2 + " --chunked-prefill-size 4096 --cuda-graph-max-bs-decode 64",
              {V2_ENV: "1024"}),
           ex("--disaggregation-mode prefill " + V2, {V2_ENV: "100000"})],
    notes="SGLang's required count is the per-attention-DP prefill chunk (`--chunked-prefill-size` divided by "
          "`--attn-dp-size`; `--max-prefill-tokens` when chunked prefill is off), from 0.5.22 divided, rounded up, "
          "by `--tp-size` / `--attn-dp-size`. With `--chunked-prefill-size` left to SGLang (derived from GPU memory) "
          "pdlint uses the smallest chunk SGLang derives, 2048, so the reported `required` is a lower bound. "
          "With the variable unset SGL198 warns instead. Field test rw25/b (differential test against SGLang "
          "0.5.23, michael-amd/sglang-ci's PD launch with DeepEP v2 and the variable at 16): the oracle refused "
          "it (\"required=2048, capacity=16\") and pdlint said nothing; the oracle refuses the firing examples "
          "and accepts the quiet ones.")
def _v2_prefill_budget(a):
    return _v2_prefill(a, True)


@sgl_rule(
    "SGL198", "deepep-v2-prefill-budget-default", roles=("prefill", "null"), severity=WARNING,
    unseen=V2_ENV + " set outside the launch pdlint reads (a Dockerfile ENV, the pod spec, the shell profile)",
    upstream=SGL197_MSG, source="arg_groups/moe_hook.py:689", upstream_id="pd-deepep-v2-prefill-budget",
    env=(V2_ENV,),
    summary="Reports a prefill (or non-PD) server with `--moe-a2a-backend deepep_v2` whose per-rank prefill dispatch "
            "is above DeepEP v2's default buffer (128 tokens) while the launch sets no "
            "`SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK`: SGLang refuses it unless the variable is set "
            "elsewhere.",
    why="Unset, the DeepEP v2 buffer holds 128 tokens per rank, far below any prefill chunk SGLang derives "
        "(2048 or more), so a DeepEP v2 prefill needs the variable. It may come from the image or the pod "
        "environment, which pdlint does not always see, hence a warning (SGL197 compares a value the launch "
        "sets).",
    fix="Set `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the per-rank prefill dispatch (the "
        "per-attention-DP chunk divided by `--tp-size` / `--attn-dp-size`) in the launch's environment.",
    fire=["--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 4096",
          "--disaggregation-mode prefill " + V2 + " --attn-dp-size 2"],
    quiet=[ex("--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 4096", {V2_ENV: "2048"}),
           "--disaggregation-mode decode " + V2 + " --chunked-prefill-size 4096 --cuda-graph-max-bs-decode 64",
           "--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 128"],
    notes="With `--chunked-prefill-size` left to SGLang pdlint counts the smallest chunk SGLang derives (2048). "
          "Field test rw25/b (differential test against SGLang 0.5.23): the oracle refuses the firing examples "
          "(\"capacity=128\") and accepts the quiet ones; with the variable set in the launch SGL197 compares it "
          "and this rule stays quiet.")
def _v2_prefill_budget_default(a):
    return _v2_prefill(a, False)


def _v2_decode_graph(a):
    """(requests, tokens per request, graph batch size written): the largest decode CUDA graph one DP rank
    captures (moe_hook._decode_graph_dispatch_tokens_per_rank); the batch size left to SGLang is the one it
    derives on a GPU of 60 GB or more.  None when unknown or no decode graph is captured."""
    if a.is_true("disable_cuda_graph") or not a.known("disable_cuda_graph"):
        return None
    bs_list = a.get("cuda_graph_bs_decode") if a.explicit("cuda_graph_bs_decode") else None
    if bs_list is not None:
        nums = [int(x) for x in bs_list if isinstance(x, int) and not isinstance(x, bool)] \
            if isinstance(bs_list, list) else []
        if not nums or len(nums) != len(bs_list):
            return None
        graph, written = max(nums), True
    elif a.explicit("cuda_graph_max_bs_decode"):
        graph = a.num("cuda_graph_max_bs_decode")
        if graph is None or isinstance(graph, float):
            return None
        graph, written = int(graph), True
    else:
        tp = a.num("tp_size")
        if tp is None:
            return None
        graph, written = next(bs for limit, bs in V2_DEFAULT_GRAPH_BS if limit is None or tp < limit), False
    dp = a.num("attn_dp_size")
    mrr = a.num("max_running_requests") if a.explicit("max_running_requests") else None
    if mrr is not None:
        if dp is None or dp < 1 or isinstance(mrr, float):
            return None
        graph = min(graph, max(1, int(mrr) // int(dp)))
    per_request = 1
    if a.is_set("speculative_algorithm"):
        drafts = a.num("speculative_num_draft_tokens")
        if drafts is not None and not isinstance(drafts, float) and drafts > 1:
            per_request = int(drafts)  # (unset, SGLang derives it: 1 is a lower bound)
    return graph, per_request, written


def _v2_decode(a, error: bool):
    if a.role not in ("decode", "null") or not _v2_on(a):
        return None
    cap, cap_written = _v2_capacity(a)
    got = _v2_decode_graph(a)
    if cap is None or got is None:
        return None
    graph, per_request, graph_written = got
    if error != (cap_written and graph_written) or graph * per_request <= cap:
        return None
    parts = [_env_note(V2_ENV, cap) if cap_written else
             f"{V2_ENV} is not set in this launch's environment, so unless it is set elsewhere the capacity is "
             f"{V2_DEFAULT} tokens per rank"]
    if not graph_written:
        parts.append(f"the decode CUDA graph batch size is left to SGLang, which derives {graph} on a GPU of 60 GB "
                     "or more at this --tp-size")
    blame = ([d for d in ("cuda_graph_bs_decode", "cuda_graph_max_bs_decode") if a.explicit(d)][:1]
             or ["moe_a2a_backend"])
    return Hit(*blame, "moe_a2a_backend", lead=not error, note="; ".join(parts), fmt={
        "required": graph * per_request, "capacity": cap, "requests": graph, "per_request": per_request})


@sgl_rule(
    "SGL199", "deepep-v2-decode-graph-budget", roles=("decode", "null"),
    upstream=SGL199_MSG, source="arg_groups/moe_hook.py:700", upstream_id="pd-deepep-v2-decode-graph-budget",
    env=(V2_ENV,),
    summary="Reports a decode (or non-PD) server with `--moe-a2a-backend deepep_v2` whose decode CUDA graph batch "
            "(`--cuda-graph-max-bs-decode`, times the draft tokens per request with speculative decoding) is "
            "larger than the `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` the launch sets.",
    why="DeepEP v2 runs the decode CUDA graph on its masked path, so the largest captured decode batch must fit the "
        "per-rank ElasticBuffer. SGLang refuses a launch whose graph batch is larger.",
    fix="Raise `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the decode graph batch, or lower "
        "`--cuda-graph-max-bs-decode`.",
    fire=[ex("--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 256", {V2_ENV: "128"}),
          ex(V2 + " --chunked-prefill-size 128 --cuda-graph-max-bs-decode 256", {V2_ENV: "128"})],
    quiet=[ex("--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 128", {V2_ENV: "128"}),
           ex("--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 256 --disable-cuda-graph",
              {V2_ENV: "128"}),
           ex("--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 256 --max-running-requests 64",
              {V2_ENV: "128"}),
           ex("--disaggregation-mode prefill " + V2 + " --chunked-prefill-size 128 --cuda-graph-max-bs-decode 256",
              {V2_ENV: "128"})],
    notes="pdlint compares a written `--cuda-graph-max-bs-decode` (or the largest `--cuda-graph-bs-decode`), capped "
          "by `--max-running-requests` per attention-DP rank as SGLang caps it; with speculative decoding it counts "
          "a written `--speculative-num-draft-tokens` per request (else 1, a lower bound). A batch size left to "
          "SGLang depends on GPU memory: SGL291 warns about it. Field test rw25/b (differential test against "
          "SGLang 0.5.23): the oracle refuses the firing examples and accepts the quiet ones.")
def _v2_decode_budget(a):
    return _v2_decode(a, True)


@sgl_rule(
    "SGL291", "deepep-v2-decode-graph-budget-default", roles=("decode", "null"), severity=WARNING,
    unseen=(V2_ENV + " set outside the launch pdlint reads, or a GPU with less memory (SGLang derives the decode "
            "CUDA graph batch size from it)"),
    upstream=SGL199_MSG, source="arg_groups/moe_hook.py:700", upstream_id="pd-deepep-v2-decode-graph-budget",
    env=(V2_ENV,),
    summary="Reports a decode (or non-PD) server with `--moe-a2a-backend deepep_v2` whose decode CUDA graph batch is "
            "larger than DeepEP v2's buffer when the launch leaves the buffer (default 128 tokens) or the graph "
            "batch size (256 or 512 on a GPU of 60 GB or more) to SGLang.",
    why="The decode CUDA graph's largest batch must fit DeepEP v2's per-rank buffer. Unset, the buffer holds 128 "
        "tokens, and on an H100/H200/B200 SGLang captures decode graphs up to 256 (`--tp-size` below 4) or 512 "
        "requests, so a DeepEP v2 decode with both left to SGLang is refused. The variable may be set where "
        "pdlint cannot see it, and the default batch size depends on the GPU, hence a warning.",
    fix="Set `SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK` to at least the decode graph batch, or write a "
        "`--cuda-graph-max-bs-decode` it holds.",
    fire=["--disaggregation-mode decode " + V2,
          "--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 256",
          ex("--disaggregation-mode decode " + V2, {V2_ENV: "16"})],
    quiet=[ex("--disaggregation-mode decode " + V2, {V2_ENV: "512"}),
           "--disaggregation-mode decode " + V2 + " --cuda-graph-max-bs-decode 128",
           "--disaggregation-mode decode " + V2 + " --disable-cuda-graph",
           "--disaggregation-mode decode " + V2 + " --max-running-requests 128"],
    notes="With the graph batch size written and the variable set in the launch SGL199 compares them. Field test "
          "rw25/b (differential test against SGLang 0.5.23, michael-amd/sglang-ci's PD decode with DeepEP v2 and "
          "the variable at 16): the oracle (emulated H200) refused it (\"required=512, capacity=16\") and pdlint "
          "said nothing; the oracle refuses the firing examples and accepts the quiet ones.")
def _v2_decode_budget_default(a):
    return _v2_decode(a, False)
