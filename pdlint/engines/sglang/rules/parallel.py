"""Role-independent parallelism and topology checks (SGL201-SGL239): TP/PP/DP
sizes against nodes, attention DP/CP, MoE-DP, decode context parallelism, the
LM-head layouts, pipeline parallelism, GPU ids and communication quantization
(``research/sglang-rules.md`` section 4.1).  MoE/EP checks are in ``moe.py``.

The helpers below model the SGLang 0.5.23 resolutions these checks read (the
deprecated ``--dp-size N --enable-dp-attention`` fold is already applied by
:class:`~pdlint.engines.sglang.resolve.Args`); ``moe.py`` and ``lora.py`` use
them too.  Each helper answers None when pdlint cannot know the value, and
every rule then stays quiet.
"""

from typing import Optional

from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import Hit, sgl_rule

CAT = "parallelism"
# SGLang's bare ``assert`` checks raise an AssertionError without a message.
BARE_ASSERT = "{exception}"
BARE = {"exception": "AssertionError (no message)"}


# -- resolution helpers ----------------------------------------------------------------------------

def num(a, dest) -> Optional[int]:
    """A known numeric value (None when unknown or unset)."""
    return a.num(dest)


def pipeline(a) -> bool:
    """The resolution pipeline runs past its model-path step: ``--model-path dummy``/``none``
    returns early (every hook after the platform checks is skipped; check_server_args still runs)."""
    v = a.get("model_path")
    return not (isinstance(v, str) and v.lower() in ("none", "dummy"))


def prefill_cp_off(a) -> bool:
    """No ``--enable-prefill-cp``: DeepSeek-family models rewrite attn-dp/attn-cp/ep/a2a/moe-dense-tp
    under prefill CP (model overrides), so checks on those values are only decidable without it."""
    return a.is_false("enable_prefill_cp")


def dwdp(a) -> Optional[int]:
    """--dwdp-size when known (> 1 forces attn-dp = ep = dwdp, dp = moe-dp = moe-dense-tp = 1)."""
    return num(a, "dwdp_size")


def dllm_off(a) -> bool:
    """No --dllm-algorithm (its hook forces pp 1, LoRA off and a null role before check_server_args)."""
    return a.is_unset("dllm_algorithm")


def pp_final(a) -> Optional[int]:
    """The pipeline size check_server_args sees."""
    if not dllm_off(a):
        return 1 if a.is_set("dllm_algorithm") else None
    return num(a, "pp_size")


def attn_dp(a) -> Optional[int]:
    """Resolved attention-DP width (after handle_dwdp; None under prefill CP, see prefill_cp_off)."""
    d = dwdp(a)
    if d is None or not prefill_cp_off(a):
        return None
    return d if d > 1 else num(a, "attn_dp_size")


def dp_replicas(a) -> Optional[int]:
    d = dwdp(a)
    if d is None or not prefill_cp_off(a):
        return None
    return 1 if d > 1 else num(a, "dp_size")


def attn_cp(a) -> Optional[int]:
    return num(a, "attn_cp_size") if prefill_cp_off(a) else None


def scale_joiner(a) -> Optional[bool]:
    v = a.get("ep_join_mode")
    return None if v is OPAQUE else v == "scale"


def attn_dp_enabled(a) -> Optional[bool]:
    """SGLang's attn_dp_enabled_of: attention DP wider than one, or an elastic EP scale joiner."""
    n, joiner = attn_dp(a), scale_joiner(a)
    if n is None or joiner is None:
        return None
    return n > 1 or joiner


def dp_lm_head(a) -> Optional[bool]:
    """--enable-dp-lm-head after handle_dwdp (forces it on) and _data_parallelism_defaults (turns it off
    when the deployment has a single DP rank, unless it is a scale joiner)."""
    d = dwdp(a)
    if d is None:
        return None
    if d > 1:
        return True
    v = a.get("enable_dp_lm_head")
    if v is OPAQUE:
        return None
    if not v:
        return False
    n, reps, joiner = attn_dp(a), dp_replicas(a), scale_joiner(a)
    if n is None or reps is None or joiner is None:
        return None
    return n * reps > 1 or joiner


def moe_a2a(a) -> Optional[str]:
    """--moe-a2a-backend as resolved after handle_a2a_moe: the ``--moe-runner-backend megamoe`` alias,
    DWDP (none), Waterfill (deepep unless deepep/megamoe) and ``ascend_tp`` (none)."""
    if not pipeline(a) or not prefill_cp_off(a):
        return None
    v, runner, wf, d = a.get("moe_a2a_backend"), a.get("moe_runner_backend"), a.get("enable_waterfill"), dwdp(a)
    old = a.get("enable_deepep_moe")  # (until 0.5.2 a flag of its own: __post_init__ sets the backend to deepep)
    if OPAQUE in (v, runner, wf, old) or d is None:
        return None
    if old is True:
        v = "deepep"
    if runner == "megamoe":
        v = "megamoe"
    if d > 1:
        v = "none"
    if wf and v not in ("deepep", "megamoe"):
        v = "deepep"
    return "none" if v == "ascend_tp" else v


# Every a2a backend that makes the expert-parallel size span the TP group (overrides._a2a_ep_size).
A2A_EP_SPANNING = frozenset({"megamoe", "deepep", "deepep_v2", "mooncake", "nixl", "ascend_fuseep", "flashinfer",
                             "flashinfer_megamoe", "mori", "pplx"})


def ep_size(a) -> Optional[int]:
    """The expert-parallel size after handle_a2a_moe: DWDP sets it to --dwdp-size, an EP-spanning a2a
    backend (deepep, mooncake, nixl, mori, flashinfer, megamoe, ...) to --tp-size."""
    backend = moe_a2a(a)
    if backend is None:
        return None
    if backend in A2A_EP_SPANNING or a.is_true("enable_ep_moe"):  # (--enable-ep-moe until 0.5.2: EP = TP)
        return num(a, "tp_size")
    d = dwdp(a)
    return d if d > 1 else num(a, "ep_size")


def tp_pp(a):
    return num(a, "tp_size"), pp_final(a)


# -- nodes, DP replicas ------------------------------------------------------------------------------

@sgl_rule(
    "SGL201", "tp-pp-not-divisible-by-nnodes", category=CAT,
    upstream="tp_size must be divisible by number of nodes",
    source="arg_groups/validation_hook.py:179", upstream_id="tp-divisible-by-nnodes",
    why="SGLang places `--tp-size` x `--pp-size` ranks evenly on `--nnodes` nodes; a remainder cannot be placed.",
    fix="Make `--tp-size` x `--pp-size` a multiple of `--nnodes` (e.g. TP 16 on 2 nodes of 8 GPUs).",
    fire=["--tp-size 3 --nnodes 2", "--tp-size 2 --pp-size 3 --nnodes 4"],
    quiet=["--tp-size 2 --nnodes 2", "--tp-size 1 --pp-size 2 --nnodes 2"],
    notes="Elastic EP scale joiners (`--elastic-ep-join-mode scale`) are exempt. A --dllm-algorithm launch runs "
          "with pp 1.")
def _tp_nnodes(a):
    tp, pp = tp_pp(a)
    nodes = num(a, "nnodes")
    if tp is None or pp is None or not nodes or nodes < 1 or scale_joiner(a) is not False:
        return None
    if (tp * pp) % nodes:
        return Hit("tp_size", "nnodes", "pp_size",
                   note=f"--tp-size {tp} x --pp-size {pp} = {tp * pp} ranks on {nodes} nodes")


@sgl_rule(
    "SGL202", "multi-node-dp-replicas", category=CAT,
    upstream="multi-node data-parallel replicas are not supported; use attention DP (--attn-dp-size) across nodes",
    source="arg_groups/validation_hook.py:199", upstream_id="no-multinode-dp-replicas",
    why="`--dp-size` replicas are launched by one controller on one node; a multi-node server can only use "
        "attention data parallelism inside its TP group.",
    fix="Use `--attn-dp-size N` (attention DP across the nodes' TP group) instead of `--dp-size N`, or run one "
        "server per node behind a router.",
    fire=["--tp-size 2 --dp-size 2 --nnodes 2"],
    quiet=["--tp-size 2 --attn-dp-size 2 --nnodes 2", "--tp-size 2 --dp-size 2 --enable-dp-attention --nnodes 2",
           "--dp-size 2"],
    notes="The deprecated `--dp-size N --enable-dp-attention` is attention DP (not replicas) and passes. Quiet "
          "under --enable-prefill-cp: DeepSeek-family models then rewrite --dp-size.")
def _multinode_dp(a):
    reps, nodes = dp_replicas(a), num(a, "nnodes")
    if reps is not None and nodes is not None and reps > 1 and nodes != 1:
        return Hit("dp_size", "nnodes")


@sgl_rule(
    "SGL203", "dp-replicas-with-attn-dp", category=CAT,
    upstream="--dp-size {dp_size} with --attn-dp-size {attn_dp_size}: data-parallel replicas combined with "
             "attention data parallelism are not supported.",
    source="arg_groups/parallel_hook.py:288", upstream_id="dp-replicas-with-attn-dp",
    why="`--dp-size` counts whole-model replicas and `--attn-dp-size` attention-DP groups inside one TP group; "
        "SGLang runs one or the other. Before 0.5.21 `--dp-size N --enable-dp-attention` meant attention DP, so "
        "mixing old and new spellings produces this.",
    fix="Drop `--dp-size` (keep `--attn-dp-size`), or drop `--attn-dp-size` for plain replicas.",
    fire=["--tp-size 2 --dp-size 2 --attn-dp-size 2"],
    quiet=["--tp-size 2 --dp-size 2 --enable-dp-attention", "--tp-size 2 --attn-dp-size 2", "--dp-size 2"],
    notes="`--dp-size N --enable-dp-attention` alone is folded into `--attn-dp-size N --dp-size 1` first. "
          "DeepSeek prefill-CP layouts raise the same message from their model override.")
def _dp_with_attn_dp(a):
    if not pipeline(a) or dwdp(a) is None or dwdp(a) > 1:
        return None
    n, reps = num(a, "attn_dp_size"), num(a, "dp_size")
    if n is not None and reps is not None and n > 1 and reps > 1:
        return Hit("dp_size", "attn_dp_size", fmt={"dp_size": reps, "attn_dp_size": n})


@sgl_rule(
    "SGL204", "attn-dp-size-not-positive", category=CAT,
    upstream="--attn-dp-size must be positive (got {attn_dp_size}).",
    source="arg_groups/parallel_hook.py:286", upstream_id="attn-dp-size-positive",
    why="The attention-DP width is a group count; 0 or a negative number is meaningless (often an unset "
        "template variable rendered as 0).",
    fix="Use `--attn-dp-size 1` (no attention DP) or a positive divisor of `--tp-size`.",
    fire=["--attn-dp-size 0", "--dp-size 0 --enable-dp-attention"],
    quiet=["--attn-dp-size 1"])
def _attn_dp_positive(a):
    if not pipeline(a) or dwdp(a) is None or dwdp(a) > 1:
        return None
    n = num(a, "attn_dp_size")
    if n is not None and n < 1 and not _decode_zero_dp_ranks(a):  # (SGL294: SGLang crashes before this check)
        return Hit("attn_dp_size", "dp_size", fmt={"attn_dp_size": n})


def _decode_zero_dp_ranks(a) -> bool:
    """A decode server whose PD hook divides --max-running-requests by dp_size * attn_dp_size = 0 (0.5.22+,
    pd_disaggregation_hook.py:136; 0.5.21 divided by max(1, dp_size)): the default for
    --disaggregation-decode-extra-slots, computed before the parallel sizes are checked."""
    from pdlint.engines.sglang.rulebase import at_least
    if a.role != "decode" or not pipeline(a) or not at_least(a, "0.5.22"):
        return False
    if a.explicit("disaggregation_decode_extra_slots") or not a.explicit("max_running_requests"):
        return False
    mrr, d = num(a, "max_running_requests"), dwdp(a)
    if mrr is None or d is None or d > 1:
        return False
    reps, n = num(a, "dp_size"), num(a, "attn_dp_size")
    return reps is not None and n is not None and reps * n == 0


@sgl_rule(
    "SGL294", "decode-zero-dp-ranks-with-max-running-requests", category=CAT, roles=("decode",), since="0.5.22",
    upstream="",  # a crash: Python's "integer division or modulo by zero" (ZeroDivisionError), no SGLang message
    source="arg_groups/pd_disaggregation_hook.py:136", upstream_id="pd-decode-extra-slots-default",
    summary="Reports a decode server with `--max-running-requests` whose `--dp-size` or `--attn-dp-size` is 0: "
            "SGLang 0.5.22+ crashes at start with ZeroDivisionError (\"integer division or modulo by zero\") "
            "before it checks the parallel sizes.",
    why="When `--disaggregation-decode-extra-slots` is not given, the PD hook sizes the decode's extra "
        "req_to_token slots from `--max-running-requests` divided by the number of DP ranks (`--dp-size` times "
        "`--attn-dp-size`). It runs before the parallel sizes are checked, so a size of 0 (often an unset "
        "template variable rendered as 0) crashes the decode server with a traceback instead of SGLang's "
        "\"--attn-dp-size must be positive\" (SGL204), and `--dp-size 0`, which SGLang otherwise starts with, "
        "crashes too.",
    fix="Use positive `--dp-size` / `--attn-dp-size` values (1: no data parallelism).",
    fire=["--disaggregation-mode decode --tp-size 2 --attn-dp-size 0 --max-running-requests 64",
          "--disaggregation-mode decode --dp-size 0 --max-running-requests 64",
          "--disaggregation-mode decode --dp-size 0 --enable-dp-attention --max-running-requests 64"],
    quiet=["--disaggregation-mode decode --dp-size 0",
           "--disaggregation-mode decode --tp-size 2 --attn-dp-size 2 --max-running-requests 64",
           "--disaggregation-mode prefill --dp-size 0 --max-running-requests 64"],
    doc_fix=1,
    notes="Field test rw27/b (differential test against SGLang 0.5.23): a decode with `--attn-dp-size 0 "
          "--max-running-requests 64` got SGL204, whose quoted message SGLang never prints there (the oracle "
          "stops with ZeroDivisionError at pd_disaggregation_hook.py:136); SGL204 now leaves that case to this "
          "rule. A written `--disaggregation-decode-extra-slots` skips the division (SGL204 then applies). "
          "0.5.21 divided by max(1, --dp-size) and did not crash. The oracle refuses the firing examples with "
          "ZeroDivisionError and accepts the quiet ones.")
def _decode_zero_dp(a):
    if not _decode_zero_dp_ranks(a):
        return None
    blame = "attn_dp_size" if num(a, "attn_dp_size") == 0 and a.explicit("attn_dp_size") else "dp_size"
    return Hit(blame, "max_running_requests", note=(
        f"on a decode server SGLang divides --max-running-requests by the number of DP ranks (--dp-size times "
        f"--attn-dp-size, here 0) to size --disaggregation-decode-extra-slots, which is not given, and crashes "
        f"at start with ZeroDivisionError (\"integer division or modulo by zero\") before it checks the "
        f"parallel sizes"))


@sgl_rule(
    "SGL205", "tp-not-divisible-by-attn-dp", category=CAT,
    upstream=BARE_ASSERT, summary="Reports a TP size that is not a multiple of the attention-DP size (SGLang "
                                  "fails with a bare AssertionError).",
    source="arg_groups/parallel_hook.py:326", upstream_id="tp-divisible-by-attn-dp",
    why="Attention DP splits the TP group into `--attn-dp-size` equal attention-TP groups. SGLang's check is a "
        "bare `assert` without a message, so the launch dies with an empty AssertionError.",
    fix="Make `--tp-size` a multiple of `--attn-dp-size` (e.g. TP 8 with attention DP 2, 4 or 8).",
    fire=["--tp-size 3 --attn-dp-size 2", "--tp-size 3 --dp-size 2 --enable-dp-attention"],
    quiet=["--tp-size 4 --attn-dp-size 2", "--tp-size 2 --dp-size 2 --enable-dp-attention"],
    notes="SGLang: `assert cfg.tp_size % cfg.attn_dp_size == 0` in handle_data_parallelism, message-less.")
def _tp_attn_dp(a):
    if not pipeline(a):
        return None
    n, tp = attn_dp(a), num(a, "tp_size")
    if n is not None and tp is not None and n > 1 and tp % n:
        return Hit("tp_size", "attn_dp_size", "dp_size", fmt=BARE, lead=True,
                   note=f"--tp-size {tp} is not a multiple of the attention-DP size {n}: attention DP splits the "
                        f"TP group into {n} equal groups")


# -- attention context parallelism and MoE data parallelism -----------------------------------------

def _cp_rule(code, name, upstream, line, upstream_id, why, fix, fire, quiet, notes=""):
    return sgl_rule(code, name, category=CAT, upstream=upstream, source=f"arg_groups/parallel_hook.py:{line}",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet,
                    notes=(notes + " " if notes else "") + "Quiet under --enable-prefill-cp: DeepSeek-family models "
                          "then rewrite the attention-CP/DP layout (and EP) themselves.")


@_cp_rule("SGL206", "tp-not-divisible-by-attn-cp", "tp_size must be divisible by attn_cp_size", 159,
          "tp-divisible-by-attn-cp",
          "Attention context parallelism splits each attention group of the TP world into `--attn-cp-size` ranks.",
          "Make `--tp-size` a multiple of `--attn-cp-size`.",
          ["--tp-size 4 --attn-cp-size 3"], ["--tp-size 4 --attn-cp-size 2"])
def _tp_attn_cp(a):
    cp, tp = attn_cp(a), num(a, "tp_size")
    if pipeline(a) and cp is not None and tp is not None and cp > 1 and tp % cp:
        return Hit("attn_cp_size", "tp_size")


@_cp_rule("SGL207", "tp-not-divisible-by-attn-dp-times-cp", "tp_size must be divisible by attn_dp_size * attn_cp_size",
          162, "tp-divisible-by-attn-cp",
          "With attention CP the TP world holds `--attn-dp-size` x `--attn-cp-size` x attention-TP ranks.",
          "Make `--tp-size` a multiple of `--attn-dp-size` x `--attn-cp-size`.",
          ["--tp-size 4 --attn-cp-size 2 --attn-dp-size 4"], ["--tp-size 8 --attn-cp-size 2 --attn-dp-size 4"])
def _tp_attn_dp_cp(a):
    cp, n, tp = attn_cp(a), attn_dp(a), num(a, "tp_size")
    if not pipeline(a) or None in (cp, n, tp) or cp <= 1 or tp % cp:
        return None
    if n >= 1 and tp % (n * cp):
        return Hit("tp_size", "attn_dp_size", "attn_cp_size",
                   note=f"--attn-dp-size {n} x --attn-cp-size {cp} = {n * cp} does not divide --tp-size {tp}")


@_cp_rule("SGL208", "aiter-allreduce-fusion-with-cp", "Aiter allreduce fusion is not supported with context parallelism",
          166, "cp-no-aiter-allreduce-fusion",
          "The AITER all-reduce fusion (ROCm) assumes the whole TP group reduces one sequence; attention CP and "
          "MoE-DP split it.",
          "Drop `--enable-aiter-allreduce-fusion`, or run without `--attn-cp-size`/`--moe-dp-size` > 1.",
          ["--tp-size 4 --attn-cp-size 2 --enable-aiter-allreduce-fusion",
           "--tp-size 4 --attn-cp-size 2 --moe-dp-size 2 --enable-aiter-allreduce-fusion"],
          ["--tp-size 4 --attn-cp-size 2", "--enable-aiter-allreduce-fusion"],
          notes="The same message is raised at :185 for --moe-dp-size > 1. Deterministic inference "
                "(--enable-deterministic-inference, --rl-on-policy-target) turns the fusion off first, so pdlint is "
                "quiet then.")
def _aiter_cp(a):
    if not (pipeline(a) and a.is_true("enable_aiter_allreduce_fusion")
            and a.is_false("enable_deterministic_inference") and a.is_unset("rl_on_policy_target")):
        return None
    cp, mdp, d = attn_cp(a), num(a, "moe_dp_size"), dwdp(a)
    if cp is not None and cp > 1:
        return Hit("enable_aiter_allreduce_fusion", "attn_cp_size")
    if mdp is not None and d is not None and d <= 1 and mdp > 1:
        return Hit("enable_aiter_allreduce_fusion", "moe_dp_size")


def _moe_dp(a) -> Optional[int]:
    """--moe-dp-size as handle_context_parallelism sees it (DWDP forces 1)."""
    d = dwdp(a)
    if d is None or not pipeline(a):
        return None
    return 1 if d > 1 else num(a, "moe_dp_size")


def _cp_ep(a) -> Optional[int]:
    """The EP size handle_context_parallelism sees: before the a2a backend widens it."""
    return num(a, "ep_size") if prefill_cp_off(a) else None


@_cp_rule("SGL209", "tp-not-divisible-by-moe-dp", "tp_size must be divisible by moe_dp_size", 172,
          "moe-dp-size-constraints", "MoE data parallelism splits the TP world into `--moe-dp-size` MoE groups.",
          "Make `--tp-size` a multiple of `--moe-dp-size`.",
          ["--tp-size 3 --moe-dp-size 2"], ["--tp-size 4 --moe-dp-size 2 --attn-cp-size 2"])
def _tp_moe_dp(a):
    m, tp = _moe_dp(a), num(a, "tp_size")
    if m is not None and tp is not None and m > 1 and tp % m:
        return Hit("moe_dp_size", "tp_size")


@_cp_rule("SGL210", "ep-times-moe-dp-exceeds-tp", "ep_size * moe_dp_size must be less than or equal to tp_size", 175,
          "moe-dp-size-constraints", "Expert parallelism and MoE-DP share the TP world: EP x MoE-DP ranks must fit.",
          "Lower `--ep-size` or `--moe-dp-size` so that their product is at most `--tp-size`.",
          ["--tp-size 4 --moe-dp-size 2 --ep-size 4 --attn-cp-size 2"],
          ["--tp-size 4 --moe-dp-size 2 --ep-size 2 --attn-cp-size 2"],
          notes="Uses --ep-size as written: the a2a backend widens EP only later in the pipeline.")
def _ep_moe_dp(a):
    m, ep, tp = _moe_dp(a), _cp_ep(a), num(a, "tp_size")
    if None not in (m, ep, tp) and m > 1 and ep * m > tp:
        return Hit("ep_size", "moe_dp_size", "tp_size", note=f"{ep} x {m} = {ep * m} > --tp-size {tp}")


@_cp_rule("SGL211", "moe-dp-with-pp", "PP is not supported with context parallelism", 178, "moe-dp-size-constraints",
          "MoE data parallelism (`--moe-dp-size` > 1) cannot be combined with pipeline parallelism.",
          "Use `--pp-size 1` with `--moe-dp-size` > 1, or drop MoE-DP.",
          ["--tp-size 4 --moe-dp-size 2 --attn-cp-size 2 --pp-size 2"],
          ["--tp-size 4 --moe-dp-size 2 --attn-cp-size 2"])
def _moe_dp_pp(a):
    m, pp = _moe_dp(a), num(a, "pp_size")
    if m is not None and pp is not None and m > 1 and pp != 1:
        return Hit("pp_size", "moe_dp_size")


@_cp_rule("SGL212", "ep-times-moe-dp-not-tp", "ep_size * moe_dp_size must be equal to tp_size", 181,
          "moe-dp-size-constraints",
          "With expert parallelism and MoE-DP, every TP rank must belong to exactly one EP x MoE-DP cell.",
          "Choose `--ep-size` = `--tp-size` / `--moe-dp-size` (or `--ep-size 1`).",
          ["--tp-size 8 --moe-dp-size 2 --ep-size 2 --attn-cp-size 2"],
          ["--tp-size 8 --moe-dp-size 2 --ep-size 4 --attn-cp-size 2"])
def _ep_moe_dp_eq(a):
    m, ep, tp = _moe_dp(a), _cp_ep(a), num(a, "tp_size")
    if None not in (m, ep, tp) and m > 1 and ep > 1 and ep * m < tp:
        return Hit("ep_size", "moe_dp_size", "tp_size", note=f"{ep} x {m} = {ep * m} != --tp-size {tp}")


@_cp_rule("SGL213", "moe-dp-not-attn-cp", "attn_cp_size != moe_dp_size is only supported when moe_dp_size == 1", 190,
          "moe-dp-size-constraints",
          "MoE data parallelism reuses the attention context-parallel groups: `--moe-dp-size` must equal "
          "`--attn-cp-size` (or be 1).",
          "Set `--moe-dp-size` to `--attn-cp-size`, or to 1.",
          ["--tp-size 4 --moe-dp-size 2", "--tp-size 4 --moe-dp-size 4 --attn-cp-size 2"],
          ["--tp-size 4 --moe-dp-size 2 --attn-cp-size 2", "--tp-size 4 --attn-cp-size 2"])
def _moe_dp_cp(a):
    m, cp = _moe_dp(a), attn_cp(a)
    if m is not None and cp is not None and m != cp and m != 1:
        return Hit("moe_dp_size", "attn_cp_size")


@sgl_rule(
    "SGL214", "prefill-cp-without-strategy", category=CAT,
    upstream="--cp-strategy must be set when --enable-prefill-cp is enabled.",
    source="arg_groups/parallel_hook.py:152", upstream_id="prefill-cp-needs-strategy",
    why="Prefill context parallelism has no default sharding layout.",
    fix="Add `--cp-strategy zigzag` or `--cp-strategy interleave`.",
    fire=["--enable-prefill-cp"], quiet=["--enable-prefill-cp --cp-strategy zigzag"],
    notes="Some models reject prefill CP earlier with their own message.")
def _prefill_cp_strategy(a):
    if pipeline(a) and a.is_true("enable_prefill_cp") and a.is_unset("cp_strategy"):
        return Hit("enable_prefill_cp")


# -- decode context parallelism -------------------------------------------------------------------------

def _dcp_rule(code, name, upstream, line, upstream_id, why, fix, fire, quiet, notes=""):
    return sgl_rule(code, name, category=CAT, upstream=upstream, source=f"arg_groups/parallel_hook.py:{line}",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet, notes=notes)


@_dcp_rule("SGL215", "dcp-size-not-positive",
           "Decode context parallel size (--dcp-size / --decode-context-parallel-size) must be >= 1, but got "
           "dcp_size={dcp_size}.", 244, "dcp-size-positive",
           "The decode context-parallel size is a group width; 0 or negative is meaningless.",
           "Use `--dcp-size 1` (off) or a positive divisor of the attention TP size.",
           ["--dcp-size 0"], ["--dcp-size 1"])
def _dcp_positive(a):
    if pipeline(a) and a.lt("dcp_size", 1):
        return Hit("dcp_size")


@_dcp_rule("SGL216", "dcp-with-prefill-cp", "--dcp-size > 1 does not support --enable-prefill-cp.", 250,
           "dcp-not-with-prefill-cp",
           "Decode context parallelism and prefill context parallelism shard the KV cache differently.",
           "Use either `--dcp-size` > 1 or `--enable-prefill-cp`, not both.",
           ["--dcp-size 2 --tp-size 2 --enable-prefill-cp --cp-strategy zigzag"],
           ["--dcp-size 2 --tp-size 2", "--enable-prefill-cp --cp-strategy zigzag"])
def _dcp_prefill_cp(a):
    if pipeline(a) and a.gt("dcp_size", 1) and a.is_true("enable_prefill_cp"):
        return Hit("dcp_size", "enable_prefill_cp")


@_dcp_rule("SGL217", "dcp-comm-backend-without-dcp",
           "--dcp-comm-backend {dcp_comm_backend} only affects the decode context-parallel attention reduction and "
           "therefore requires --dcp-size / --decode-context-parallel-size > 1, but got dcp_size={dcp_size}.", 252,
           "dcp-comm-backend-needs-dcp",
           "`--dcp-comm-backend a2a|fi_a2a` only selects how DCP ranks combine attention; without DCP SGLang "
           "treats it as a mistake.",
           "Drop `--dcp-comm-backend`, or add `--dcp-size` > 1.",
           ["--dcp-comm-backend a2a", "--dcp-comm-backend fi_a2a"],
           ["--dcp-comm-backend ag_rs", "--dcp-comm-backend a2a --dcp-size 2 --tp-size 2"])
def _dcp_backend(a):
    if pipeline(a) and a.among("dcp_comm_backend", ("a2a", "fi_a2a")) and a.le("dcp_size", 1):
        return Hit("dcp_comm_backend", "dcp_size")


@_dcp_rule("SGL218", "dcp-replicate-q-proj-without-dcp", "--dcp-replicate-q-proj requires --dcp-size > 1.", 267,
           "dcp-replicate-q-proj-needs-dcp",
           "Replicating the Q projection only removes a DCP all-gather; without decode context parallelism there "
           "is nothing to remove.",
           "Drop `--dcp-replicate-q-proj`, or add `--dcp-size` > 1.",
           ["--dcp-replicate-q-proj"], ["--dcp-replicate-q-proj --dcp-size 2 --tp-size 2", "--no-dcp-replicate-q-proj"],
           notes="Only the explicit flag: model defaults (DeepSeek, Kimi-K3) set it after this check.")
def _dcp_replicate(a):
    if pipeline(a) and a.is_true("dcp_replicate_q_proj") and a.le("dcp_size", 1):
        return Hit("dcp_replicate_q_proj", "dcp_size")


@_dcp_rule("SGL219", "dcp-replicate-q-proj-with-ag-rs",
           "--dcp-replicate-q-proj only applies to the a2a/fi_a2a DCP communication backend (it removes the "
           "head-dim Q all-gather); got --dcp-comm-backend={dcp_comm_backend}.", 269,
           "dcp-replicate-q-proj-needs-a2a",
           "The replicated Q projection removes the Q all-gather of the a2a/fi_a2a DCP backends; the ag_rs "
           "backend has none.",
           "Use `--dcp-comm-backend a2a` (or leave it unset on GPUs), or drop `--dcp-replicate-q-proj`.",
           ["--dcp-replicate-q-proj --dcp-size 2 --tp-size 2 --dcp-comm-backend ag_rs"],
           ["--dcp-replicate-q-proj --dcp-size 2 --tp-size 2", "--dcp-size 2 --tp-size 2 --dcp-comm-backend ag_rs"],
           notes="Only an explicit `--dcp-comm-backend ag_rs` is decidable: unset resolves to fi_a2a/a2a on "
                 "CUDA/ROCm/XPU but to ag_rs on other platforms.")
def _dcp_replicate_backend(a):
    if (pipeline(a) and a.is_true("dcp_replicate_q_proj") and a.gt("dcp_size", 1)
            and a.eq("dcp_comm_backend", "ag_rs")):
        return Hit("dcp_comm_backend", "dcp_replicate_q_proj")


# -- LM-head layouts ------------------------------------------------------------------------------------

def _lm_rule(code, name, upstream, line, upstream_id, why, fix, fire, quiet, notes=""):
    return sgl_rule(code, name, category=CAT, upstream=upstream, source=f"arg_groups/overrides.py:{line}",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet,
                    notes=(notes + " " if notes else "") + "Quiet under --enable-prefill-cp (DeepSeek-family models "
                          "rewrite the attention-DP layout).")


@_lm_rule("SGL220", "dp-lm-head-without-attn-dp", "--enable-dp-lm-head requires attention DP (--attn-dp-size).", 1425,
          "dp-lm-head-needs-attn-dp",
          "The DP LM head shards the vocabulary across an attention-TP group; with `--dp-size` replicas there is "
          "no attention DP to shard across.",
          "Use `--attn-dp-size N` instead of `--dp-size N`, or drop `--enable-dp-lm-head`.",
          ["--enable-dp-lm-head --dp-size 2"],
          ["--enable-dp-lm-head --tp-size 2 --attn-dp-size 2", "--enable-dp-lm-head"],
          notes="With a single DP rank SGLang silently turns the flag off instead.")
def _dp_lm_head(a):
    if not pipeline(a) or dp_lm_head(a) is not True:
        return None
    if attn_dp_enabled(a) is False:
        return Hit("enable_dp_lm_head", "dp_size")


def _tp_lm_a2a(a) -> bool:
    return pipeline(a) and a.is_true("enable_tp_lm_head_all_to_all")


@_lm_rule("SGL221", "tp-lm-head-a2a-without-attn-dp",
          "--enable-tp-lm-head-all-to-all requires attention DP (--attn-dp-size).", 1429,
          "tp-lm-head-a2a-needs-attn-dp",
          "The TP LM-head all-to-all exchanges logits between attention-DP ranks; without attention DP there are "
          "none.",
          "Drop `--enable-tp-lm-head-all-to-all`, or use `--attn-dp-size` equal to `--tp-size`.",
          ["--enable-tp-lm-head-all-to-all"],
          ["--enable-tp-lm-head-all-to-all --tp-size 2 --attn-dp-size 2", "--no-enable-tp-lm-head-all-to-all"],
          notes="Unset, SGLang enables it by itself only where it is valid (decode with tp == attn-dp).")
def _tp_lm_no_dp(a):
    if _tp_lm_a2a(a) and attn_dp_enabled(a) is False:
        return Hit("enable_tp_lm_head_all_to_all")


@_lm_rule("SGL222", "tp-lm-head-a2a-with-dp-lm-head",
          "--enable-tp-lm-head-all-to-all uses a TP-sharded LM head and is incompatible with --enable-dp-lm-head.",
          1432, "tp-lm-head-a2a-needs-attn-dp",
          "The two flags choose opposite LM-head layouts (TP-sharded vs. vocabulary-parallel per DP group).",
          "Keep one of `--enable-tp-lm-head-all-to-all` and `--enable-dp-lm-head`.",
          ["--enable-tp-lm-head-all-to-all --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"],
          ["--enable-tp-lm-head-all-to-all --tp-size 2 --attn-dp-size 2",
           "--enable-dp-lm-head --tp-size 2 --attn-dp-size 2"],
          notes="DWDP (`--dwdp-size` > 1) turns --enable-dp-lm-head on by itself.")
def _tp_lm_dp_lm(a):
    if _tp_lm_a2a(a) and attn_dp_enabled(a) and dp_lm_head(a):
        return Hit("enable_tp_lm_head_all_to_all", "enable_dp_lm_head", "dwdp_size")


@_lm_rule("SGL223", "tp-lm-head-a2a-tp-not-attn-dp",
          "--enable-tp-lm-head-all-to-all currently requires tp_size == attn_dp_size, got tp_size={tp_size}, "
          "attn_dp_size={attn_dp_size}.", 1436, "tp-lm-head-a2a-needs-attn-dp",
          "The all-to-all path is implemented for pure attention DP only (attention-TP width 1).",
          "Use `--attn-dp-size` equal to `--tp-size`, or drop `--enable-tp-lm-head-all-to-all`.",
          ["--enable-tp-lm-head-all-to-all --tp-size 4 --attn-dp-size 2"],
          ["--enable-tp-lm-head-all-to-all --tp-size 4 --attn-dp-size 4"])
def _tp_lm_tp(a):
    n, tp = attn_dp(a), num(a, "tp_size")
    if _tp_lm_a2a(a) and attn_dp_enabled(a) and tp is not None and n is not None and tp != n:
        return Hit("attn_dp_size", "tp_size", "enable_tp_lm_head_all_to_all", fmt={"tp_size": tp, "attn_dp_size": n})


@_lm_rule("SGL224", "tp-lm-head-a2a-with-attn-cp",
          "--enable-tp-lm-head-all-to-all currently requires attn_cp_size == 1, got {attn_cp_size}.", 1441,
          "tp-lm-head-a2a-needs-attn-dp",
          "The all-to-all path does not handle attention context parallelism.",
          "Use `--attn-cp-size 1`, or drop `--enable-tp-lm-head-all-to-all`.",
          ["--enable-tp-lm-head-all-to-all --tp-size 4 --attn-dp-size 4 --attn-cp-size 2"],
          ["--enable-tp-lm-head-all-to-all --tp-size 4 --attn-dp-size 4"])
def _tp_lm_cp(a):
    cp = attn_cp(a)
    if _tp_lm_a2a(a) and attn_dp_enabled(a) and cp is not None and cp != 1:
        return Hit("attn_cp_size", "enable_tp_lm_head_all_to_all")


# -- check_server_args: dense TP, pipeline parallelism, GPU ids ---------------------------------------------

def _check_rule(code, name, upstream, line, upstream_id, why, fix, fire, quiet, notes="", summary="", doc_fix=0):
    return sgl_rule(code, name, doc_fix=doc_fix, category=CAT, upstream=upstream, source=f"arg_groups/validation_hook.py:{line}",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet, notes=notes, summary=summary)


@_check_rule("SGL225", "moe-dense-tp-size-invalid", "moe_dense_tp_size only supports None, 1, or tp_size currently",
             207, "moe-dense-tp-size-values",
             "The dense MLP layers of an MoE model run either replicated per rank (1) or with the full TP size.",
             "Use `--moe-dense-tp-size 1`, or leave it unset (= `--tp-size`).",
             ["--moe-dense-tp-size 2", "--moe-dense-tp-size 2 --tp-size 4"],
             ["--moe-dense-tp-size 2 --tp-size 2", "--moe-dense-tp-size 1 --tp-size 4"],
             notes="DWDP forces it to 1; quiet under --enable-prefill-cp (DeepSeek layouts force 1).")
def _moe_dense_tp(a):
    d, v, tp = dwdp(a), num(a, "moe_dense_tp_size"), num(a, "tp_size")
    if d is None or d > 1 or not prefill_cp_off(a) or v is None or tp is None:
        return None
    if v not in (1, tp):
        return Hit("moe_dense_tp_size", "tp_size")


@_check_rule("SGL226", "pp-max-micro-batch-size-not-positive",
             "pp_max_micro_batch_size must be a positive integer or None (for auto-compute). Got: "
             "{pp_max_micro_batch_size}", 183, "pp-max-micro-batch-positive",
             "The pipeline micro-batch size bounds how many requests one micro-batch holds.",
             "Use a positive `--pp-max-micro-batch-size`, or leave it unset (auto).",
             ["--pp-max-micro-batch-size 0"], ["--pp-max-micro-batch-size 1"])
def _pp_micro(a):
    if a.lt("pp_max_micro_batch_size", 1):
        return Hit("pp_max_micro_batch_size")


@_check_rule("SGL227", "pp-with-min-free-slots-delay",
             "--min-free-slots-delay is not supported with pipeline parallelism: allocatable slots per microbatch "
             "are bounded by pp-max-micro-batch-size, so the threshold may never be reached", 165,
             "pp-no-min-free-slots-delay",
             "With pipeline parallelism a micro-batch never has more free slots than its micro-batch size, so the "
             "delay threshold could stall scheduling forever.",
             "Drop `--min-free-slots-delay` when `--pp-size` > 1.",
             ["--pp-size 2 --min-free-slots-delay 3"], ["--min-free-slots-delay 3", "--pp-size 2"])
def _pp_min_free(a):
    pp = pp_final(a)
    if pp is not None and pp > 1 and a.is_set("min_free_slots_delay"):
        return Hit("min_free_slots_delay", "pp_size")


@_check_rule("SGL228", "pp-speculation-not-eagle",
             "Pipeline parallelism currently only supports EAGLE (non-multi-layer) speculative decoding", 132,
             "pp-spec-eagle-only",
             "The pipeline relay of draft state is implemented for single-layer EAGLE (and NEXTN, which runs as "
             "EAGLE) only; DSPARK has its own PD-prefill path.",
             "Use `--speculative-algorithm EAGLE`/`NEXTN` without `--enable-multi-layer-eagle`, or `--pp-size 1`.",
             ["--pp-size 2 --speculative-algorithm NGRAM",
              "--pp-size 2 --disaggregation-mode prefill --speculative-algorithm EAGLE --enable-multi-layer-eagle "
              "--speculative-draft-model-path @TINY@"],
             ["--pp-size 2 --disaggregation-mode prefill --speculative-algorithm NEXTN "
              "--speculative-draft-model-path @TINY@", "--speculative-algorithm NGRAM"],
             notes="EAGLE on a decode or non-PD server fails differently (SGL124).", doc_fix=1)
def _pp_spec(a):
    pp, algo = pp_final(a), a.get("speculative_algorithm")
    if pp is None or pp <= 1 or not isinstance(algo, str) or algo == "DSPARK":
        return None
    if algo != "EAGLE":
        return Hit("speculative_algorithm", "pp_size")
    if a.is_true("enable_multi_layer_eagle"):
        return Hit("enable_multi_layer_eagle", "pp_size")


@_check_rule("SGL229", "base-gpu-id-negative", "base_gpu_id must be non-negative", 204, "base-gpu-id-nonneg",
             "`--base-gpu-id` is the first CUDA device index the server uses.",
             "Use `--base-gpu-id 0` or another existing device index.",
             ["--base-gpu-id -1"], ["--base-gpu-id 0"])
def _base_gpu(a):
    if a.lt("base_gpu_id", 0):
        return Hit("base_gpu_id")


@_check_rule("SGL230", "gpu-id-step-not-positive", "gpu_id_step must be positive", 205, "gpu-id-step-positive",
             "`--gpu-id-step` is the stride between the device indices of consecutive ranks.",
             "Use `--gpu-id-step 1` (consecutive GPUs) or a larger positive stride.",
             ["--gpu-id-step 0"], ["--gpu-id-step 2"])
def _gpu_step(a):
    if a.lt("gpu_id_step", 1):
        return Hit("gpu_id_step")


@_check_rule("SGL231", "quant-communications-with-tp1", "Communications quantization is only used with tp_size != 1",
             350, "quant-comm-needs-tp",
             "Communication quantization compresses tensor-parallel collectives; with TP 1 there are none.",
             "Drop `--enable-quant-communications`, or use `--tp-size` > 1.",
             ["--enable-quant-communications"], ["--tp-size 2"])
def _quant_comm_tp(a):
    if a.is_true("enable_quant_communications") and a.eq("tp_size", 1):
        return Hit("enable_quant_communications", "tp_size")


@_check_rule("SGL232", "quant-communications-not-npu", "Communications quantization is only supported for NPU device",
             353, "quant-comm-needs-tp",
             "Communication quantization is implemented for Ascend NPUs only.",
             "Drop `--enable-quant-communications` on GPU servers.",
             ["--enable-quant-communications --tp-size 2 --device cuda"], ["--tp-size 2 --device cuda"],
             notes="Only decidable with an explicit `--device`: unset, SGLang detects the device (npu on Ascend "
                   "hosts).")
def _quant_comm_npu(a):
    dev = a.get("device")
    if (a.is_true("enable_quant_communications") and a.explicit("device") and isinstance(dev, str)
            and dev.split(":")[0] != "npu"):
        return Hit("device", "enable_quant_communications")
