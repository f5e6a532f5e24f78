"""Role-independent MoE and expert-parallel checks (SGL240-SGL299): DWDP, EPLB and
dispatch, elastic EP (flags and runtime scale-up), shared-expert TP, two-batch
overlap and the MoE all-to-all backends (MegaMoE, PPLX, FlashInfer)
(``research/sglang-rules.md`` section 4.1).  The resolution helpers (resolved
a2a backend and EP size, attention-DP width, ...) live in ``parallel.py``.
"""

import re
from typing import Optional

from pdlint import lazyre
from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import WARNING, Hit, ex, given, sgl_rule
from pdlint.engines.sglang.rules.parallel import (
    BARE, BARE_ASSERT, attn_cp, attn_dp, attn_dp_enabled, dp_lm_head, dwdp, ep_size, moe_a2a, num, pipeline,
    prefill_cp_off, scale_joiner,
)

CAT = "moe"
PH = "arg_groups/parallel_hook.py"


def _rule(code, name, upstream, source, upstream_id, why, fix, fire, quiet, notes="", summary="", since="", doc_fix=0):
    return sgl_rule(code, name, doc_fix=doc_fix, category=CAT, upstream=upstream, source=source, upstream_id=upstream_id, why=why,
                    fix=fix, fire=fire, quiet=quiet, notes=notes, summary=summary, since=since)


# -- DWDP (handle_dwdp) ---------------------------------------------------------------------------------

def _dwdp_on(a) -> bool:
    d = dwdp(a)
    return pipeline(a) and d is not None and d > 1


DWDP_OK = "--dwdp-size 2 --tp-size 2"


@_rule("SGL240", "dwdp-size-not-tp", "dwdp_size ({dwdp_size}) must equal tp_size ({tp_size})", f"{PH}:441",
       "dwdp-size-equals-tp",
       "Distributed weight data parallelism prefetches MoE weights across the whole TP group, one shard per rank.",
       "Set `--dwdp-size` equal to `--tp-size`.",
       ["--dwdp-size 2 --tp-size 4"], [DWDP_OK, "--tp-size 4"])
def _dwdp_tp(a):
    if _dwdp_on(a) and a.ne("tp_size", dwdp(a)) and a.known("tp_size"):
        return Hit("dwdp_size", "tp_size")


@_rule("SGL241", "dwdp-with-eplb", "EPLB dynamic migration conflicts with static DWDP partitioning", f"{PH}:448",
       "dwdp-size-equals-tp", "DWDP partitions the experts statically; EPLB would migrate them at run time.",
       "Drop `--enable-eplb` (or `--dwdp-size`).",
       [DWDP_OK + " --enable-eplb"], [DWDP_OK])
def _dwdp_eplb(a):
    if _dwdp_on(a) and a.is_true("enable_eplb"):
        return Hit("enable_eplb", "dwdp_size")


@_rule("SGL242", "dwdp-with-speculation", "DWDP does not support speculative decoding (MTP/draft workers)",
       f"{PH}:451", "dwdp-size-equals-tp", "DWDP has no weight-prefetch path for draft/MTP workers.",
       "Drop `--speculative-algorithm` (or `--dwdp-size`).",
       [DWDP_OK + " --speculative-algorithm NGRAM"], [DWDP_OK],
       notes="`--enable-return-aux-hidden-states` resets the algorithm before this check; pdlint is quiet then.")
def _dwdp_spec(a):
    if _dwdp_on(a) and a.is_set("speculative_algorithm") and a.is_false("enable_return_aux_hidden_states"):
        return Hit("speculative_algorithm", "dwdp_size")


@_rule("SGL243", "dwdp-with-pp", "DWDP requires pp_size == 1", f"{PH}:454", "dwdp-size-equals-tp",
       "DWDP's weight prefetch spans one pipeline stage.", "Use `--pp-size 1` with `--dwdp-size`.",
       [DWDP_OK + " --pp-size 2"], [DWDP_OK + " --pp-size 1"])
def _dwdp_pp(a):
    if _dwdp_on(a) and a.ne("pp_size", 1):
        return Hit("pp_size", "dwdp_size")


@_rule("SGL244", "dwdp-with-two-batch-overlap", "DWDP's prefetch event protocol does not support two-batch overlap",
       f"{PH}:455", "dwdp-size-equals-tp", "DWDP's prefetch events are not split into two micro-batches.",
       "Drop `--enable-two-batch-overlap` (or `--dwdp-size`).",
       [DWDP_OK + " --enable-two-batch-overlap"], [DWDP_OK])
def _dwdp_tbo(a):
    if _dwdp_on(a) and a.is_true("enable_two_batch_overlap"):
        return Hit("enable_two_batch_overlap", "dwdp_size")


# -- EPLB and dispatch (handle_eplb_and_dispatch) --------------------------------------------------------

A2A_NOTE = ("The a2a backend is taken as SGLang resolves it (`--moe-runner-backend megamoe` selects megamoe, "
            "`--enable-waterfill` deepep, DWDP none); quiet under --enable-prefill-cp, where DeepSeek-family models "
            "select deepep themselves. A MiniMax-M3.1 NVFP4 checkpoint also selects megamoe by itself (not visible "
            "from flags).")


@_rule("SGL245", "ep-dispatch-static-without-a2a",
       "--ep-dispatch-algorithm {ep_dispatch_algorithm} picks a different physical replica per rank, which only "
       "holds up when an a2a backend routes each token to a single rank. Use --ep-dispatch-algorithm dynamic with "
       "--moe-a2a-backend none.", f"{PH}:783", "ep-dispatch-static-needs-a2a",
       "Without an a2a backend every EP rank runs the MoE over the same tokens and sums partial outputs, so all "
       "ranks must pick the same expert replica; static/lp dispatch picks per rank.",
       "Use `--ep-dispatch-algorithm dynamic` (or leave it unset), or add an a2a backend (`--moe-a2a-backend "
       "deepep`, ...).",
       ["--ep-dispatch-algorithm static", "--ep-dispatch-algorithm lp --tp-size 2 --ep-size 2"],
       ["--ep-dispatch-algorithm static --moe-a2a-backend deepep --tp-size 2", "--ep-dispatch-algorithm dynamic"],
       notes=A2A_NOTE)
def _ep_dispatch(a):
    if moe_a2a(a) == "none" and a.among("ep_dispatch_algorithm", ("static", "lp")):
        return Hit("ep_dispatch_algorithm", "moe_a2a_backend")


@_rule("SGL246", "eplb-without-ep", BARE_ASSERT, f"{PH}:791", "eplb-needs-ep",
       "The expert-parallel load balancer moves experts between EP ranks; with an EP size of 1 there is nothing to "
       "balance. SGLang's check is a bare `assert`, so the launch dies with an empty AssertionError.",
       "Add `--ep-size` > 1 (or an a2a backend such as `--moe-a2a-backend deepep`, which sets EP = TP), or drop "
       "`--enable-eplb`.",
       ["--enable-eplb", "--enable-eplb --tp-size 2"],
       ["--enable-eplb --tp-size 2 --ep-size 2", "--enable-eplb --tp-size 2 --moe-a2a-backend deepep"],
       notes="SGLang: `assert resolved_view(server_args).ep_size > 1` in handle_eplb_and_dispatch, message-less. "
             "Elastic EP scale joiners are exempt. " + A2A_NOTE + " The assert came with 0.5.0rc2 (0.4.x accepts "
             "EPLB without EP).",
       summary="Reports --enable-eplb with an expert-parallel size of 1 (SGLang fails with a bare AssertionError).",
       since="0.5.0rc2")
def _eplb_ep(a):
    if not a.is_true("enable_eplb") or scale_joiner(a) is not False:
        return None
    ep = ep_size(a)
    if ep is not None and ep <= 1:
        return Hit("enable_eplb", "ep_size", "moe_a2a_backend", fmt=BARE, lead=True,
                   note=f"--enable-eplb needs expert parallelism, but the resolved EP size is {ep} (set --ep-size or "
                        f"an a2a backend that spans the TP group)")


# -- elastic EP flags (handle_elastic_ep) ------------------------------------------------------------------

def _backend(a):
    """--elastic-ep-backend (the string 'none' counts as a configured backend); OPAQUE when unknown."""
    return a.get("elastic_ep_backend")


def _has_backend(a) -> Optional[bool]:
    v = _backend(a)
    return None if v is OPAQUE else v is not None


ELASTIC = "--elastic-ep-backend nixl"


@_rule("SGL247", "elastic-ep-eplb-algorithm",
       "Elastic EP requires eplb_algorithm to be set to 'auto' or 'elasticity_aware(_hierarchical)'.", f"{PH}:531",
       "elastic-ep-flags-need-backend",
       "Elastic EP rebalances experts with its elasticity-aware EPLB algorithms only.",
       "Use `--eplb-algorithm auto` (default) or `elasticity_aware`/`elasticity_aware_hierarchical`.",
       [ELASTIC + " --enable-eplb --eplb-algorithm deepseek --tp-size 2 --ep-size 2"],
       [ELASTIC + " --enable-eplb --tp-size 2 --ep-size 2"])
def _elastic_eplb(a):
    if (pipeline(a) and _has_backend(a) and a.is_true("enable_eplb")
            and a.not_among("eplb_algorithm", ("auto", "elasticity_aware", "elasticity_aware_hierarchical"))):
        return Hit("eplb_algorithm", "elastic_ep_backend")


@_rule("SGL248", "elastic-ep-with-pp", "PP size should be set to 1 under elastic EP", f"{PH}:538",
       "elastic-ep-flags-need-backend", "Elastic EP rebuilds the expert-parallel world, which must not span pipeline "
       "stages. `--elastic-ep-backend none` is the string 'none' and counts as configured.",
       "Use `--pp-size 1` with `--elastic-ep-backend`.",
       [ELASTIC + " --pp-size 2", "--elastic-ep-backend none --pp-size 2"], [ELASTIC, "--pp-size 2"])
def _elastic_pp(a):
    if pipeline(a) and _has_backend(a) and a.ne("pp_size", 1):
        return Hit("pp_size", "elastic_ep_backend")


@_rule("SGL249", "elastic-ep-join-mode-without-backend", "--elastic-ep-join-mode requires --elastic-ep-backend to be set.",
       f"{PH}:547", "elastic-ep-flags-need-backend", "Joining an elastic EP deployment needs its transport backend.",
       "Add `--elastic-ep-backend mooncake` (or nixl), or drop `--elastic-ep-join-mode`.",
       ["--elastic-ep-join-mode recover"], [ELASTIC + " --elastic-ep-join-mode recover"])
def _join_no_backend(a):
    if pipeline(a) and a.is_set("ep_join_mode") and _has_backend(a) is False:
        return Hit("ep_join_mode", "elastic_ep_backend")


@_rule("SGL250", "elastic-ep-scale-joiner-node-rank",
       "Elastic EP scale-up requires one joining TP group at --node-rank 1 (got {node_rank}).", f"{PH}:551",
       "elastic-ep-flags-need-backend", "A scale-up joiner is launched as the second node of the deployment.",
       "Launch the joining group with `--node-rank 1`.",
       [ELASTIC + " --elastic-ep-join-mode scale"],
       [ELASTIC + " --elastic-ep-join-mode recover", ELASTIC])
def _joiner_rank(a):
    if pipeline(a) and scale_joiner(a) and a.ne("node_rank", 1):
        return Hit("node_rank", "ep_join_mode")


@_rule("SGL251", "elastic-ep-scale-joiner-offset",
       "Elastic EP scale joiners require --elastic-ep-join-rank-offset set to the current effective EP size.",
       f"{PH}:555", "elastic-ep-flags-need-backend",
       "A scale joiner's ranks are numbered after the running deployment's EP ranks.",
       "Set `--elastic-ep-join-rank-offset` to the current EP size of the deployment being joined.",
       [ELASTIC + " --elastic-ep-join-mode scale --node-rank 1"], [ELASTIC])
def _joiner_offset(a):
    if pipeline(a) and scale_joiner(a) and a.le("ep_join_rank_offset", 0):
        return Hit("ep_join_rank_offset", "ep_join_mode")


@_rule("SGL252", "elastic-ep-join-offset-without-scale",
       "--elastic-ep-join-rank-offset is only valid with --elastic-ep-join-mode scale.", f"{PH}:561",
       "elastic-ep-flags-need-backend", "The rank offset only numbers the ranks of a scale-up joiner.",
       "Drop `--elastic-ep-join-rank-offset`, or add `--elastic-ep-join-mode scale`.",
       ["--elastic-ep-join-rank-offset 2", ELASTIC + " --elastic-ep-join-mode recover --elastic-ep-join-rank-offset 2"],
       ["--elastic-ep-join-rank-offset 0"],
       notes="The companion check `elastic EP join rank offset must be >= 0.` (:565) is unreachable: a negative "
             "offset fails here or at the scale joiner's offset check first.")
def _offset_no_scale(a):
    if pipeline(a) and a.ne("ep_join_rank_offset", 0) and a.known("ep_join_rank_offset") and scale_joiner(a) is False:
        return Hit("ep_join_rank_offset", "ep_join_mode")


@_rule("SGL253", "max-ep-size-without-backend", "--max-ep-size requires --elastic-ep-backend to be set.", f"{PH}:567",
       "elastic-ep-flags-need-backend", "`--max-ep-size` sizes the elastic EP buffers; without elastic EP it has "
       "no meaning.",
       "Add `--elastic-ep-backend mooncake` (or nixl), or drop `--max-ep-size`.",
       ["--max-ep-size 4"], [ELASTIC + " --max-ep-size 1"])
def _max_ep_backend(a):
    if pipeline(a) and a.is_set("max_ep_size") and _has_backend(a) is False:
        return Hit("max_ep_size", "elastic_ep_backend")


@_rule("SGL254", "max-ep-size-not-positive", "--max-ep-size must be a positive integer.", f"{PH}:570",
       "elastic-ep-flags-need-backend", "`--max-ep-size` is a rank count.",
       "Use a positive `--max-ep-size` (the largest EP size the deployment may scale to).",
       [ELASTIC + " --max-ep-size 0"], [ELASTIC + " --max-ep-size 1"])
def _max_ep_positive(a):
    if pipeline(a) and a.le("max_ep_size", 0):
        return Hit("max_ep_size")


def _scaling(a) -> Optional[bool]:
    """Elastic EP runtime scale-up: a backend and --max-ep-size larger than --tp-size."""
    has, mx, tp = _has_backend(a), a.get("max_ep_size"), num(a, "tp_size")
    if has is None or mx is OPAQUE or tp is None:
        return None
    return bool(has and isinstance(mx, int) and mx > tp)


@_rule("SGL255", "elastic-ep-initial-size-without-scale-up",
       "--elastic-ep-initial-size is only valid for an Elastic EP deployment with --max-ep-size larger than its "
       "local TP size.", f"{PH}:578", "elastic-ep-flags-need-backend",
       "The initial EP size fixes the per-rank expert storage layout of a deployment that scales up at run time.",
       "Drop `--elastic-ep-initial-size`, or add `--elastic-ep-backend mooncake --max-ep-size N` with N > "
       "`--tp-size`.",
       ["--elastic-ep-initial-size 2", ELASTIC + " --max-ep-size 1 --elastic-ep-initial-size 2"], [ELASTIC])
def _initial_no_scale(a):
    if pipeline(a) and a.is_set("elastic_ep_initial_size") and _scaling(a) is False:
        return Hit("elastic_ep_initial_size", "max_ep_size", "elastic_ep_backend")


# -- elastic EP runtime scale-up (handle_elastic_ep, scaling active) ---------------------------------------

SCALE = ("--elastic-ep-backend mooncake --max-ep-size 4 --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head "
         "--moe-a2a-backend nixl --disaggregation-mode decode")
SCALE8 = ("--elastic-ep-backend mooncake --max-ep-size 8 --tp-size 4 --attn-dp-size 2 --enable-dp-lm-head "
          "--moe-a2a-backend nixl --disaggregation-mode decode --moe-dense-tp-size 1")
JOIN = SCALE + " --elastic-ep-join-mode scale --node-rank 1 --elastic-ep-join-rank-offset 2 --elastic-ep-initial-size 2"
SCALE_NOTE = ("Applies when elastic EP scales at run time: `--elastic-ep-backend` set and `--max-ep-size` larger than "
              "`--tp-size`. ")


def _on(a) -> bool:
    """``_scaling(a) is True`` past the model-path step, reading no more than it must: without a
    backend nothing else matters, so the prefilter (which records what a rule reads on the minimal
    launch) skips these rules on launches that differ from it only in sizes."""
    if not pipeline(a) or not _has_backend(a):
        return False
    mx, tp = a.get("max_ep_size"), num(a, "tp_size")
    return isinstance(mx, int) and tp is not None and mx > tp


def _attn_tp(a) -> Optional[int]:
    tp, n, cp = num(a, "tp_size"), attn_dp(a), attn_cp(a)
    if None in (tp, n, cp) or n < 1 or cp < 1:
        return None
    return tp // n // cp


def _moe_dense(a):
    """--moe-dense-tp-size as the elastic hook sees it (DWDP forces 1); OPAQUE when unknown."""
    d = dwdp(a)
    if d is None or not prefill_cp_off(a):
        return OPAQUE
    return 1 if d > 1 else a.get("moe_dense_tp_size")


def _su(code, name, upstream, line, why, fix, fire, quiet, notes=""):
    return _rule(code, name, upstream, f"{PH}:{line}", "elastic-ep-scale-up-constraints", why, fix, fire,
                 quiet + [SCALE], notes=SCALE_NOTE + notes)


@_su("SGL256", "elastic-scale-up-moe-dense-tp",
     "Elastic EP scale-up with attention TP greater than one requires --moe-dense-tp-size 1 (got "
     "moe_dense_tp_size={moe_dense_tp_size}).", 615,
     "Joining groups may have a different TP width; dense MLP layers must then run replicated.",
     "Add `--moe-dense-tp-size 1`.",
     [SCALE8.replace(" --moe-dense-tp-size 1", "")], [SCALE8])
def _su_dense(a):
    if not _on(a):  # first: the prefilter then sees these rules read no size without a backend (_on)
        return None
    at, md = _attn_tp(a), _moe_dense(a)
    if at is not None and at > 1 and md is not OPAQUE and md != 1:
        return Hit("moe_dense_tp_size", "attn_dp_size", fmt={"moe_dense_tp_size": md})


@_su("SGL257", "elastic-scale-up-timeout", "--elastic-ep-scale-timeout must be greater than zero.", 621,
     "The scale-up handshake needs a positive timeout.", "Use a positive `--elastic-ep-scale-timeout` (default 600).",
     [SCALE + " --elastic-ep-scale-timeout 0"], [])
def _su_timeout(a):
    if _on(a) and a.le("elastic_ep_scale_timeout", 0):
        return Hit("elastic_ep_scale_timeout")


@_su("SGL258", "elastic-scale-up-tokenizer-workers",
     "Elastic EP runtime scale-up currently requires --tokenizer-worker-num 1.", 624,
     "Runtime scale-up re-registers ranks with a single tokenizer manager.", "Use `--tokenizer-worker-num 1`.",
     [SCALE + " --tokenizer-worker-num 2"], [])
def _su_tok(a):
    if _on(a) and a.ne("tokenizer_worker_num", 1) and a.known("tokenizer_worker_num"):
        return Hit("tokenizer_worker_num")


@_su("SGL259", "elastic-scale-up-ray", "Elastic EP runtime scale-up does not support --use-ray.", 627,
     "Runtime scale-up spawns joining ranks outside Ray.", "Drop `--use-ray`.", [SCALE + " --use-ray"], [])
def _su_ray(a):
    if _on(a) and a.is_true("use_ray"):
        return Hit("use_ray")


@_su("SGL260", "elastic-scale-up-expert-backup",
     "Elastic EP runtime scale-up does not support --enable-elastic-expert-backup.", 630,
     "Expert backup replicas are not re-laid out when the EP world grows.", "Drop `--enable-elastic-expert-backup`.",
     [SCALE + " --enable-elastic-expert-backup"], [])
def _su_backup(a):
    if _on(a) and a.is_true("enable_elastic_expert_backup"):
        return Hit("enable_elastic_expert_backup")


@_su("SGL261", "elastic-scale-joiner-without-initial-size",
     "Elastic EP scale joiners require --elastic-ep-initial-size set to the primary deployment's launch-time EP "
     "size.", 640, "A joiner must lay out its expert storage like the running deployment.",
     "Add `--elastic-ep-initial-size` equal to the primary deployment's launch-time EP size.",
     [SCALE + " --elastic-ep-join-mode scale --node-rank 1 --elastic-ep-join-rank-offset 2"], [JOIN])
def _su_join_initial(a):
    if _on(a) and scale_joiner(a) and a.is_unset("elastic_ep_initial_size"):
        return Hit("ep_join_mode", "elastic_ep_initial_size")


@_su("SGL262", "elastic-scale-joiner-initial-exceeds-current",
     "--elastic-ep-initial-size cannot exceed the current EP size (initial={initial}, current={current}).", 644,
     "The deployment's launch-time EP size cannot be larger than its current size.",
     "Set `--elastic-ep-initial-size` to the primary's launch-time EP size and `--elastic-ep-join-rank-offset` to "
     "its current EP size.",
     [JOIN.replace("--elastic-ep-initial-size 2", "--elastic-ep-initial-size 4")], [JOIN])
def _su_join_le(a):
    ini, off = num(a, "elastic_ep_initial_size"), num(a, "ep_join_rank_offset")
    if _on(a) and scale_joiner(a) and ini is not None and off is not None and ini > off:
        return Hit("elastic_ep_initial_size", "ep_join_rank_offset", fmt={"initial": ini, "current": off})


@_su("SGL263", "elastic-scale-joiner-exceeds-max-ep",
     "Elastic EP joining group exceeds --max-ep-size (join_target={join_target}, max_ep_size={max_ep_size}).", 650,
     "The joining group's ranks (offset + TP size) must fit into the pre-allocated `--max-ep-size`.",
     "Raise `--max-ep-size` on the deployment, or join with a smaller group.",
     [JOIN.replace("--elastic-ep-join-rank-offset 2", "--elastic-ep-join-rank-offset 4")], [JOIN])
def _su_join_max(a):
    if not _on(a):
        return None
    off, tp, mx = num(a, "ep_join_rank_offset"), num(a, "tp_size"), num(a, "max_ep_size")
    if scale_joiner(a) and None not in (off, tp, mx) and off + tp > mx:
        return Hit("ep_join_rank_offset", "max_ep_size", fmt={"join_target": off + tp})


@_su("SGL264", "elastic-scale-joiner-single-rank-dense-tp",
     "A single-rank Elastic EP joining group requires --moe-dense-tp-size 1.", 655,
     "A one-rank joiner cannot run dense MLP layers with the deployment's TP width.",
     "Add `--moe-dense-tp-size 1` to the joiner.",
     ["--elastic-ep-backend mooncake --max-ep-size 4 --tp-size 1 --moe-a2a-backend nixl --disaggregation-mode "
      "decode --elastic-ep-join-mode scale --node-rank 1 --elastic-ep-join-rank-offset 2 "
      "--elastic-ep-initial-size 2 --moe-dense-tp-size 2"], [JOIN])
def _su_join_dense(a):
    md = _moe_dense(a)
    if _on(a) and scale_joiner(a) and a.eq("tp_size", 1) and md is not OPAQUE and md != 1:
        return Hit("moe_dense_tp_size", "tp_size")


@_su("SGL265", "elastic-scale-up-initial-not-tp",
     "The primary --elastic-ep-initial-size must equal its launch-time TP size ({tp_size}).", 666,
     "The primary deployment starts with EP = TP ranks.", "Drop `--elastic-ep-initial-size` or set it to `--tp-size`.",
     [SCALE + " --elastic-ep-initial-size 4"], [SCALE + " --elastic-ep-initial-size 2"])
def _su_initial(a):
    if (_on(a) and scale_joiner(a) is False and a.is_set("elastic_ep_initial_size")
            and a.ne("elastic_ep_initial_size", num(a, "tp_size"))):
        return Hit("elastic_ep_initial_size", "tp_size")


@_su("SGL266", "elastic-scale-up-load-balance",
     "Elastic EP scale-up requires --load-balance-method round_robin; load-aware methods require global-rank load "
     "snapshots after scale (got {load_balance_method}).", 671,
     "Load-aware DP balancing needs load snapshots of ranks that join later. `--load-balance-method auto` is "
     "follow_bootstrap_room on a prefill server.",
     "Use `--load-balance-method round_robin` (on prefill servers it must be explicit).",
     [SCALE + " --load-balance-method total_requests", SCALE.replace("decode", "prefill")],
     [SCALE.replace("decode", "prefill") + " --load-balance-method round_robin"])
def _su_lbm(a):
    lbm = a.get("load_balance_method")
    if _on(a) and isinstance(lbm, str) and lbm not in ("auto", "round_robin"):
        return Hit("load_balance_method", "disaggregation_mode")


@_su("SGL267", "elastic-scale-up-not-mooncake",
     "Elastic EP runtime scale-up requires --elastic-ep-backend mooncake (got elastic_ep_backend={elastic_ep_backend}).",
     677, "Runtime scale-up is implemented on the Mooncake elastic backend only.",
     "Use `--elastic-ep-backend mooncake`.", [SCALE.replace("backend mooncake", "backend nixl")], [])
def _su_mooncake(a):
    if _on(a) and a.ne("elastic_ep_backend", "mooncake"):
        return Hit("elastic_ep_backend")


@_su("SGL268", "elastic-scale-up-dcp",
     "Elastic EP scale-up requires --dcp-size to divide the fixed attention TP width (got dcp_size={dcp_size}, "
     "attn_tp_size={attn_tp_size}).", 685,
     "Decode context parallelism must fit inside the fixed attention-TP group.",
     "Use a `--dcp-size` that divides `--tp-size` / `--attn-dp-size`.",
     [SCALE + " --dcp-size 2", SCALE8 + " --dcp-size 4"], [SCALE8 + " --dcp-size 2"])
def _su_dcp(a):
    if not _on(a):
        return None
    at, dcp = _attn_tp(a), num(a, "dcp_size")
    if at is not None and dcp is not None and dcp >= 1 and at % dcp:
        return Hit("dcp_size", fmt={"attn_tp_size": at})


@_su("SGL269", "elastic-scale-up-without-attn-dp",
     "Elastic EP scale-up requires attention DP (--attn-dp-size); without it the TP group is not equivalent to "
     "WORLD and the post-scale collective path is invalid.", 722,
     "Joining ranks are added as new attention-DP groups.", "Add `--attn-dp-size` (e.g. equal to `--tp-size`).",
     [SCALE.replace("--attn-dp-size 2 ", "") + " --moe-dense-tp-size 1"], [])
def _su_attn_dp(a):
    if _on(a) and attn_dp_enabled(a) is False:
        return Hit("attn_dp_size", "max_ep_size")


@_su("SGL270", "elastic-scale-up-without-dp-lm-head",
     "Elastic EP scale-up requires --enable-dp-lm-head so output projection does not depend on the joining group's "
     "TP size.", 727, "A TP-sharded LM head would change shape when groups join.", "Add `--enable-dp-lm-head`.",
     [SCALE.replace(" --enable-dp-lm-head", "")], [])
def _su_lm_head(a):
    if _on(a) and dp_lm_head(a) is False:
        return Hit("enable_dp_lm_head", "max_ep_size")


@_su("SGL271", "elastic-scale-up-attn-cp",
     "Elastic EP scale-up requires --attn-cp-size 1 (got attn_cp_size={attn_cp_size}).", 731,
     "Runtime scale-up does not support attention context parallelism.", "Use `--attn-cp-size 1`.",
     [SCALE8 + " --attn-cp-size 2"], [],
     notes="The next check, `Elastic EP scale-up requires --moe-dp-size 1 (got moe_dp_size=...)` (:735), is "
           "unreachable: --moe-dp-size > 1 needs --attn-cp-size equal to it (parallel_hook.py:190), which fails "
           "here first.")
def _su_cp(a):
    cp = attn_cp(a)
    if _on(a) and cp is not None and cp != 1:
        return Hit("attn_cp_size", fmt={"attn_cp_size": cp})


@_su("SGL273", "elastic-scale-up-ep-not-tp",
     "Elastic EP scale-up requires ep_size == tp_size (got ep_size={ep_size}, tp_size={tp_size}); physical EP "
     "membership must coincide with the launch-time TP span.", 739,
     "Joining ranks extend the EP world one TP group at a time. `--moe-a2a-backend nixl` sets EP = TP.",
     "Use `--moe-a2a-backend nixl` (which sets EP to the TP size) or `--ep-size` = `--tp-size`.",
     [SCALE.replace(" --moe-a2a-backend nixl", "")], [])
def _su_ep(a):
    if not _on(a):
        return None
    ep, tp = ep_size(a), num(a, "tp_size")
    if ep is not None and tp is not None and ep != tp:
        return Hit("ep_size", "moe_a2a_backend", "tp_size", fmt={"ep_size": ep})


@_su("SGL274", "elastic-scale-up-not-nixl-a2a",
     "Elastic EP scale-up requires --moe-a2a-backend nixl (got moe_a2a_backend={moe_a2a_backend}).", 744,
     "Runtime scale-up dispatches MoE tokens with the NIXL all-to-all only.", "Use `--moe-a2a-backend nixl`.",
     [SCALE.replace("--moe-a2a-backend nixl", "--moe-a2a-backend deepep")], [], notes=A2A_NOTE)
def _su_nixl(a):
    b = moe_a2a(a)
    if _on(a) and b is not None and b != "nixl":
        return Hit("moe_a2a_backend", fmt={"moe_a2a_backend": b})


# -- shared experts, two-batch overlap --------------------------------------------------------------------

@_rule("SGL275", "shared-experts-tp-not-divisor",
       "--shared-experts-tp-size ({size}) must be a positive divisor of attention TP size ({attn_tp_size}).",
       f"{PH}:216", "shared-experts-tp-divisor",
       "Shared-expert weights are sharded inside the attention-TP group (`--tp-size` / `--attn-dp-size` / "
       "`--attn-cp-size`).",
       "Use a divisor of the attention-TP size (1 replicates the shared experts).",
       ["--shared-experts-tp-size 0", "--shared-experts-tp-size 3 --tp-size 4"],
       ["--tp-size 4"],
       notes="Quiet under --enable-prefill-cp (DeepSeek layouts rewrite attention DP/CP).")
def _shared_div(a):
    size = num(a, "shared_experts_tp_size")
    if size is None:  # unset (the default): the attention TP size is not read (see _su_dense)
        return None
    at = _attn_tp(a)
    if pipeline(a) and at is not None and (size < 1 or at % size):
        return Hit("shared_experts_tp_size", fmt={"size": size, "attn_tp_size": at})


@_rule("SGL276", "shared-experts-tp-without-ep-a2a",
       "--shared-experts-tp-size requires an expert-parallel all-to-all backend (deepep, megamoe, mooncake, "
       "ascend_fuseep or mori).", f"{PH}:234", "shared-experts-tp-divisor",
       "Shared-expert TP is a Kimi-K3 option for expert-parallel all-to-all deployments.",
       "Add `--moe-a2a-backend deepep` (or megamoe, mooncake, ascend_fuseep, mori), or drop "
       "`--shared-experts-tp-size`.",
       ["--shared-experts-tp-size 2 --tp-size 4"], ["--tp-size 4 --moe-a2a-backend deepep"],
       notes="SGLang checks the model first: on any model but Kimi-K3 it fails with \"--shared-experts-tp-size is "
             "only supported for Kimi-K3.\" instead, so the launch fails either way. " + A2A_NOTE)
def _shared_a2a(a):
    b = moe_a2a(a)
    if a.is_set("shared_experts_tp_size") and b is not None and b not in (
            "deepep", "megamoe", "mooncake", "ascend_fuseep", "mori"):
        return Hit("shared_experts_tp_size", "moe_a2a_backend", lead=True,
                   note=f"--shared-experts-tp-size is a Kimi-K3 option for expert-parallel all-to-all backends; with "
                        f"--moe-a2a-backend {b} SGLang rejects it (on other models it first reports "
                        f"\"--shared-experts-tp-size is only supported for Kimi-K3.\")")


@_rule("SGL277", "two-batch-overlap-without-a2a-or-attn-dp",
       "When enabling two batch overlap without an EP a2a backend (moe_a2a_backend='none'), attention DP "
       "(--attn-dp-size) is required (DeepSeek-V4 non-EP DP TBO path).", "arg_groups/validation_hook.py:768",
       "tbo-needs-attn-dp-without-a2a",
       "Two-batch overlap hides either the EP all-to-all or, without one, the DP all-gather/reduce-scatter of "
       "attention DP; with neither there is nothing to overlap.",
       "Add an a2a backend (`--moe-a2a-backend deepep`, ...) or attention DP (`--attn-dp-size`), or drop "
       "`--enable-two-batch-overlap`.",
       ["--enable-two-batch-overlap"],
       ["--enable-two-batch-overlap --tp-size 2 --attn-dp-size 2",
        "--enable-two-batch-overlap --tp-size 2 --moe-a2a-backend deepep"],
       notes=A2A_NOTE)
def _tbo(a):
    if a.is_true("enable_two_batch_overlap") and moe_a2a(a) == "none" and attn_dp_enabled(a) is False:
        return Hit("enable_two_batch_overlap", "moe_a2a_backend", "attn_dp_size")


# -- MoE all-to-all backends ------------------------------------------------------------------------------

@_rule("SGL278", "megamoe-with-batch-overlap",
       "--moe-a2a-backend megamoe has no two-batch / single-batch overlap decomposition; disable "
       "--enable-two-batch-overlap and --enable-single-batch-overlap.", "arg_groups/mega_moe_hook.py:33",
       "megamoe-no-tbo-sbo", "The fused MegaMoE kernel has no dispatch/combine split to overlap.",
       "Drop `--enable-two-batch-overlap`/`--enable-single-batch-overlap` with MegaMoE.",
       ["--moe-a2a-backend megamoe --enable-two-batch-overlap", "--moe-runner-backend megamoe "
                                                                "--enable-single-batch-overlap"],
       ["--moe-a2a-backend megamoe", "--enable-single-batch-overlap"],
       notes="`--moe-runner-backend megamoe` is an alias for `--moe-a2a-backend megamoe`. The next check "
             "(SM90/SM100 or ROCm only) is a platform check.")
def _megamoe_overlap(a):
    if not (a.eq("moe_a2a_backend", "megamoe") or a.eq("moe_runner_backend", "megamoe")):
        return None
    for dest in ("enable_two_batch_overlap", "enable_single_batch_overlap"):
        if a.is_true(dest):
            blame = "moe_a2a_backend" if a.eq("moe_a2a_backend", "megamoe") else "moe_runner_backend"
            return Hit(dest, blame)


MH = "arg_groups/moe_hook.py"
PPLX_OK = "--moe-a2a-backend pplx --tp-size 2 --attn-dp-size 2 --disaggregation-mode decode"


@_rule("SGL279", "pplx-normal-mode",
       "moe_a2a_backend='pplx' only supports low-latency mode; set --deepep-mode to 'low_latency' or 'auto'.",
       f"{MH}:577", "pplx-constraints", "The PPLX all-to-all kernels implement the low-latency dispatch only.",
       "Use `--deepep-mode low_latency` or `auto` with `--moe-a2a-backend pplx`.",
       ["--moe-a2a-backend pplx --deepep-mode normal"], [PPLX_OK, PPLX_OK + " --deepep-mode low_latency"],
       doc_fix=1)
def _pplx_mode(a):
    if moe_a2a(a) == "pplx" and a.eq("deepep_mode", "normal"):
        return Hit("deepep_mode", "moe_a2a_backend")


@_rule("SGL280", "pplx-without-attn-dp",
       "moe_a2a_backend='pplx' requires attention DP with at least 2 groups (--attn-dp-size >= 2).", f"{MH}:591",
       "pplx-constraints", "PPLX's all-to-all needs more than one DP group (attention DP).",
       "Add `--attn-dp-size` >= 2 with `--moe-a2a-backend pplx`.",
       ["--moe-a2a-backend pplx --tp-size 2"], [PPLX_OK])
def _pplx_dp(a):
    n = attn_dp(a)
    if moe_a2a(a) == "pplx" and n is not None and n < 2:
        return Hit("moe_a2a_backend", "attn_dp_size")


@_rule("SGL281", "pplx-runner-not-deep-gemm",
       "moe_a2a_backend='pplx' is only supported with --moe-runner-backend deep_gemm (or auto).", f"{MH}:599",
       "pplx-constraints", "PPLX runs the masked DeepGEMM expert path.",
       "Use `--moe-runner-backend deep_gemm` or `auto` with `--moe-a2a-backend pplx`.",
       ["--moe-a2a-backend pplx --tp-size 2 --attn-dp-size 2 --moe-runner-backend triton"],
       [PPLX_OK, PPLX_OK + " --moe-runner-backend deep_gemm"],
       notes="Only an explicit runner is decidable (model overrides and --quantization mxfp8/nvfp4_online resolve "
             "`auto` or replace the runner), so pdlint is quiet with those quantizations.")
def _pplx_runner(a):
    if (moe_a2a(a) == "pplx" and a.not_among("moe_runner_backend", ("deep_gemm", "auto"))
            and a.not_among("quantization", ("mxfp8", "nvfp4_online"))):
        return Hit("moe_runner_backend", "moe_a2a_backend")


@_rule("SGL282", "flashinfer-a2a-dispatch-type-without-flashinfer",
       "--flashinfer-a2a-dispatch-type requires --moe-a2a-backend flashinfer.", f"{MH}:311",
       "flashinfer-a2a-dispatch-type-needs-a2a",
       "The dispatch data type only configures the FlashInfer MoE all-to-all.",
       "Drop `--flashinfer-a2a-dispatch-type`, or use `--moe-a2a-backend flashinfer`.",
       ["--flashinfer-a2a-dispatch-type bf16"], ["--flashinfer-a2a-dispatch-type auto"], notes=A2A_NOTE)
def _fi_dispatch(a):
    b = moe_a2a(a)
    if b is not None and b != "flashinfer" and a.not_among("flashinfer_a2a_dispatch_type", (None, "auto")):
        return Hit("flashinfer_a2a_dispatch_type", "moe_a2a_backend")


def _attn_dp_equals_tp(a) -> Optional[bool]:
    n, en, tp = attn_dp(a), attn_dp_enabled(a), num(a, "tp_size")
    if None in (n, en, tp):
        return None
    return bool(en and n == tp)


@_rule("SGL283", "flashinfer-a2a-attn-dp-not-tp",
       "Flashinfer MoE A2A requires --attn-dp-size equal to --tp-size, except for Muse Spark TP4/EP4 or TP8/EP8 "
       "prefill sequence parallelism.", f"{MH}:475", "flashinfer-a2a-topology",
       "The FlashInfer all-to-all needs a rank-uniform source layout, which pure attention DP provides.",
       "Use `--attn-dp-size` equal to `--tp-size` with `--moe-a2a-backend flashinfer`.",
       ["--moe-a2a-backend flashinfer --tp-size 2", "--moe-a2a-backend flashinfer --tp-size 4 --attn-dp-size 2"],
       ["--tp-size 2 --attn-dp-size 2"],
       notes="The Muse Spark exception (--enable-layernorm-sp, TP4/EP4 or TP8/EP8) depends on the model, so pdlint "
             "is quiet when it could apply.")
def _fi_topology(a):
    if moe_a2a(a) != "flashinfer" or _attn_dp_equals_tp(a) is not False:
        return None
    tp = num(a, "tp_size")
    if not a.is_false("enable_layernorm_sp") and tp in (4, 8) and attn_dp(a) == 1:
        return None  # possibly Muse Spark prefill sequence parallelism
    return Hit("attn_dp_size", "moe_a2a_backend", "tp_size")


@_rule("SGL284", "flashinfer-megamoe-attn-dp-not-tp",
       "FlashInfer MegaMOE is only supported with --attn-dp-size equal to --tp-size", f"{MH}:325",
       "flashinfer-megamoe-attn-dp",
       "The FlashInfer MegaMoE all-to-all runs with pure attention DP only.",
       "Use `--attn-dp-size` equal to `--tp-size` with `--moe-a2a-backend flashinfer_megamoe`.",
       ["--moe-a2a-backend flashinfer_megamoe --tp-size 2"], ["--tp-size 2 --attn-dp-size 2"],
       notes="SGLang first validates the model architecture and quantization (MegaMoE needs a validated MoE "
             "architecture with MXFP8/NVFP4 experts); a launch that breaks this condition fails either way.")
def _fi_megamoe(a):
    if moe_a2a(a) == "flashinfer_megamoe" and _attn_dp_equals_tp(a) is False:
        return Hit("attn_dp_size", "moe_a2a_backend", "tp_size",
                   note="SGLang validates the model and quantization for MegaMoE first and may report those instead")


FI_RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm", "flashinfer_trtllm_routed", "deep_gemm")


@_rule("SGL285", "flashinfer-a2a-runner-unsupported",
       "FlashInfer MoE A2A is supported with flashinfer_cutlass, flashinfer_cutedsl, flashinfer_trtllm, "
       "flashinfer_trtllm_routed, or deep_gemm.", f"{MH}:531", "flashinfer-a2a-topology",
       "The FlashInfer all-to-all hands routed tokens to FlashInfer or DeepGEMM expert kernels only.",
       "Use `--moe-runner-backend flashinfer_cutlass` (or flashinfer_cutedsl, flashinfer_trtllm, "
       "flashinfer_trtllm_routed, deep_gemm) with `--moe-a2a-backend flashinfer`.",
       ["--moe-a2a-backend flashinfer --tp-size 2 --attn-dp-size 2 --moe-runner-backend triton"],
       ["--moe-a2a-backend flashinfer --tp-size 2 --attn-dp-size 2 --moe-runner-backend flashinfer_cutlass"],
       notes="Only an explicit runner is decidable: `auto` is resolved by model overrides (and by --quantization "
             "mxfp8/nvfp4_online, with which pdlint is quiet).")
def _fi_runner(a):
    if (moe_a2a(a) == "flashinfer" and a.explicit("moe_runner_backend")
            and a.not_among("moe_runner_backend", FI_RUNNERS + ("auto",))
            and a.not_among("quantization", ("mxfp8", "nvfp4_online"))):
        return Hit("moe_runner_backend", "moe_a2a_backend")


# -- FlashInfer Cutlass MoE runner (moe_hook.handle_moe_kernel_config) -------------------------------------

FI_CUTLASS_QUANT = ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None)
# --quantization values for which _moe_runner_backend_quant_constraints (overrides.py:1449) replaces or refuses
# an explicit runner before this check: mxfp8 (off Ascend) picks flashinfer_trtllm, nvfp4_online raises its own
_FI_QUANT_RESOLVED = ("mxfp8", "nvfp4_online")


def _fi_cutlass(a) -> bool:
    """An explicit `--moe-runner-backend flashinfer_cutlass` the quantization pass keeps."""
    return (pipeline(a) and a.explicit("moe_runner_backend") and a.eq("moe_runner_backend", "flashinfer_cutlass")
            and a.not_among("quantization", _FI_QUANT_RESOLVED))


@_rule("SGL286", "flashinfer-cutlass-moe-quantization",
       "Invalid quantization '{quantization}'. FlashInfer Cutlass MOE supports only: 'modelopt_fp4', "
       "'modelopt_fp8', 'modelopt_mixed', or bfloat16 (None).", f"{MH}:81", "flashinfer-cutlass-moe-compat",
       "The FlashInfer Cutlass MoE kernels take bf16 experts or ModelOpt FP8/FP4 checkpoints only; SGLang asserts "
       "the quantization before the server starts.",
       "Use a ModelOpt checkpoint (`--quantization modelopt_fp8` / `modelopt_fp4`) or bf16 weights with "
       "`--moe-runner-backend flashinfer_cutlass`, or pick another runner (`auto`, `triton`, `deep_gemm`) for this "
       "quantization.",
       ["--moe-runner-backend flashinfer_cutlass --quantization fp8",
        "--disaggregation-mode prefill --moe-runner-backend flashinfer_cutlass --quantization awq"],
       ["--moe-runner-backend flashinfer_cutlass --quantization modelopt_fp8",
        "--moe-runner-backend flashinfer_cutlass", "--quantization fp8",
        "--moe-runner-backend flashinfer_cutlass --quantization mxfp8"],
       summary="Reports `--moe-runner-backend flashinfer_cutlass` with a `--quantization` other than modelopt_fp4, "
               "modelopt_fp8, modelopt_mixed or none.",
       notes="Only an explicit `--quantization` is judged: without one, SGLang on Blackwell (SM100) takes the "
             "checkpoint's quantization method, which pdlint cannot read. `--quantization mxfp8` replaces the "
             "runner (with a warning) and `nvfp4_online` has its own check, so pdlint is quiet for both. "
             "Field test rw23/b (differential test against SGLang 0.5.23): unclaimed until then; the oracle "
             "refuses the firing examples and accepts the quiet ones.")
def _fi_cutlass_quant(a):
    if _fi_cutlass(a) and a.explicit("quantization") and a.not_among("quantization", FI_CUTLASS_QUANT):
        return Hit("quantization", "moe_runner_backend")


@_rule("SGL287", "flashinfer-cutlass-moe-ep-size",
       "The expert parallel size must be 1 or the same as the tensor parallel size", f"{MH}:89",
       "flashinfer-cutlass-moe-compat",
       "The FlashInfer Cutlass MoE kernels shard experts either not at all or across the whole TP group. SGLang "
       "asserts this on the EP size as written (or as DWDP sets it), before the MoE all-to-all backend would "
       "widen EP to the TP size, so `--ep-size 2 --tp-size 4` fails even with `--moe-a2a-backend deepep`.",
       "Set `--ep-size` to 1 or to `--tp-size`, or use another `--moe-runner-backend`.",
       ["--tp-size 4 --ep-size 8 --moe-runner-backend flashinfer_cutlass",
        "--disaggregation-mode decode --tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutlass",
        "--tp-size 4 --ep-size 2 --moe-runner-backend flashinfer_cutlass --moe-a2a-backend deepep"],
       ["--tp-size 4 --ep-size 4 --moe-runner-backend flashinfer_cutlass",
        "--tp-size 4 --moe-runner-backend flashinfer_cutlass",
        "--tp-size 4 --ep-size 8",
        "--tp-size 4 --moe-runner-backend flashinfer_cutlass --moe-a2a-backend deepep"],
       summary="Reports `--moe-runner-backend flashinfer_cutlass` with an expert-parallel size other than 1 or "
               "`--tp-size`.",
       notes="Only the FlashInfer Cutlass (and CuteDSL) runners assert this: plain `--ep-size 8 --tp-size 4` "
             "starts. Field test rw23/b (differential test against SGLang 0.5.23): `--tp 4 --ep 8 "
             "--moe-runner-backend flashinfer_cutlass` refused by the oracle (moe_hook.py:89) with no pdlint "
             "finding; the oracle refuses the firing examples and accepts the quiet ones. `--quantization mxfp8` "
             "(0.5.23: the runner is replaced first; 0.5.9: a check of its own, \"FP8/MXFP8 Cutlass MoE is only "
             "supported with ep_size == 1\") is left quiet.")
def _fi_cutlass_ep(a):
    if not _fi_cutlass(a) or not a.among("quantization", FI_CUTLASS_QUANT):
        return None  # (a quantization the assert above refuses first: SGL286; or one pdlint cannot read)
    tp, d = num(a, "tp_size"), dwdp(a)
    ep = d if d is not None and d > 1 else num(a, "ep_size")
    if tp is None or ep is None or ep in (1, tp):
        return None
    return Hit("dwdp_size" if d is not None and d > 1 else "ep_size", "moe_runner_backend", "tp_size",
               note=f"--ep-size {ep} with --tp-size {tp}")


# -- DeepEP v2 model allow-list (moe_hook.validate_deepep_v2_model_architecture) ----------------------------

# SGLang 0.5.23 configs/moe_model_registry.py _DEEPEP_V2_MODELS: the architectures DeepEP v2 is validated for
DEEPEP_V2_ARCHITECTURES = frozenset((
    "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM", "Glm5NextForConditionalGeneration",
    "GlmMoeDsaForCausalLM", "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM",
))
_LLAMA_NAMED = "--model-path @TINY@ --served-model-name meta-llama/Llama-3.1-8B-Instruct"
# names pdlint's family table (docs/models.md) does not place but whose architecture is known and off the list
# (SGLang 0.5.23 models/glm4_moe.py, glm4_moe_lite.py, glm4v_moe.py, minimax_m2.py): GLM-4.5/4.6/4.7 (the
# list holds GLM-5 only) and MiniMax-M2 / M2.x; matched like the table, from the start of the last component
_DEEPEP_V2_EXTRA = tuple((re.compile(r"^(?:[a-z0-9]+-)?" + p), label, archs) for p, label, archs in (
    (r"glm-4\.[5-7]v(?=[-.]|$)", "GLM-4.xV", ("Glm4vMoeForConditionalGeneration",)),
    (r"glm-4\.7-flash(?=[-.]|$)", "GLM-4.7-Flash", ("Glm4MoeLiteForCausalLM",)),
    (r"glm-4\.[5-7](?=[-.]|$)", "GLM-4.x", ("Glm4MoeForCausalLM",)),
    (r"minimax-m2(?:\.[0-9]+)?(?=[-.]|$)", "MiniMax-M2", ("MiniMaxM2ForCausalLM",)),
))
_MOE_WORD = lazyre.compile(r"(?:^|[-.])moe(?=[-.]|$)")


def deepep_v2_architectures(a) -> Optional[tuple]:
    """(architectures, label, the flag that names the model) SGLang's DeepEP v2 check would read, from the name
    the launch serves; None when the name does not place the model.  The Qwen3 family row also holds
    Qwen3-MoE (on the list) and Qwen3-VL: a text-only "Qwen3-<size>B" name is dense Qwen3ForCausalLM,
    "Qwen3-<size>B-A<active>B" Qwen3MoeForCausalLM, any other Qwen3 name is not placed."""
    from pdlint.engines.sglang.rules.pair import named_family
    from pdlint.engines.sglang.rules.serving import _MM_NAME, _QWEN3_TEXT
    from pdlint.models import component
    fam, named_by = named_family(a)
    if fam is not None:
        if not fam.architectures:
            return None
        if fam.name != "Qwen3":
            return fam.architectures, fam.name, named_by
        name = component(a.get("model_path" if named_by == "--model-path" else "served_model_name"))
        text = _QWEN3_TEXT.match(name)
        if text is None or _MM_NAME.search(name) or _MOE_WORD.search(name):
            return None  # (Qwen3-VL / -Omni / -Next / a MoE build named otherwise: not placed)
        if text.group(1):
            return ("Qwen3MoeForCausalLM",), "Qwen3-MoE", named_by
        return ("Qwen3ForCausalLM",), "Qwen3 (dense)", named_by
    if named_by is not None:
        return None
    for dest, flag in (("model_path", "--model-path"), ("served_model_name", "--served-model-name")):
        name = a.get(dest)
        if not a.known(dest) or not isinstance(name, str):
            continue
        comp = component(name)
        for pat, label, archs in _DEEPEP_V2_EXTRA:
            if pat.match(comp):
                return archs, label, flag
    return None


@_rule("SGL288", "deepep-v2-unvalidated-model",
       "DeepEP v2 MoE is not validated for {model_arch}. The model package must register its architecture with "
       "register_deepep_v2_model, because its combine and post-expert reduction semantics must be validated first.",
       f"{MH}:726", "deepep-v2-model-architecture",
       "DeepEP v2's combine and post-expert reduction are validated per model architecture (DeepSeek-V3/V4, "
       "Qwen3-MoE, GLM-5, MiMo-V2); SGLang refuses `--moe-a2a-backend deepep_v2` for any other architecture "
       "before anything else about DeepEP v2 is checked.",
       "Use `--moe-a2a-backend deepep` (DeepEP v1) for this model, or serve a model DeepEP v2 supports.",
       [_LLAMA_NAMED + " --moe-a2a-backend deepep_v2 --tp-size 2",
        _LLAMA_NAMED + " --disaggregation-mode decode --moe-a2a-backend deepep_v2 --tp-size 2",
        "--model-path @TINY@ --served-model-name Qwen/Qwen3-8B --moe-a2a-backend deepep_v2 --tp-size 2",
        ex("--model-path @TINY@ --served-model-name zai-org/GLM-4.6 --disaggregation-mode prefill "
           "--moe-a2a-backend deepep_v2 --tp-size 2",
           {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "65536"})],
       [_LLAMA_NAMED + " --moe-a2a-backend deepep --tp-size 2",
        ex("--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-30B-A3B --moe-a2a-backend deepep_v2 --tp-size 2",
           {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "100000"}),
        ex("--model-path @TINY_MOE@ --served-model-name Qwen/Qwen3-235B-A22B-Instruct-2507 --moe-a2a-backend "
           "deepep_v2 --tp-size 2", {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "100000"})],
       summary="Reports `--moe-a2a-backend deepep_v2` for a model whose architecture pdlint knows from "
               "`--model-path` (or `--served-model-name`) and which is not on SGLang's DeepEP v2 list "
               "(DeepseekV3/V4, Qwen3Moe, GlmMoeDsa, Glm5Next, MiMoV2, MiMoV2Flash): Llama 3, Qwen2, dense Qwen3, "
               "Qwen3-Next, gpt-oss, DeepSeek-V2, GLM-4.5/4.6/4.7, MiniMax-M2, ...",
       notes="Model-dependent: SGLang reads the architecture from the checkpoint's config.json (the first entry "
             "of `architectures`); pdlint infers it from the last component of `--model-path` (else "
             "`--served-model-name`; docs/models.md) and stays quiet for a model it cannot place or a family "
             "with an architecture on the list. A Qwen3 name is placed by its form: `Qwen3-<size>B[-...]` is "
             "dense Qwen3ForCausalLM (reported), `Qwen3-<size>B-A<active>B` (also `Qwen3-Coder-...-A<n>B`) "
             "Qwen3MoeForCausalLM (on the list); Qwen3-VL, -Omni and other Qwen3 names are not placed. Beyond the "
             "family table, GLM-4.5/4.6/4.7 (Glm4MoeForCausalLM; -Flash: Glm4MoeLiteForCausalLM; -V: "
             "Glm4vMoeForConditionalGeneration) and MiniMax-M2 (MiniMaxM2ForCausalLM) are placed for this rule "
             "(the list holds GLM-5 only). Field test rw25/b (differential test against SGLang 0.5.23): a Llama "
             "launch with DeepEP v2 was refused by the oracle (\"DeepEP v2 MoE is not validated for "
             "'LlamaForCausalLM'\") and pdlint said nothing; field test rw26/b: `Qwen/Qwen3-8B` (\"not validated "
             "for 'Qwen3ForCausalLM'\", 18 variants), `zai-org/GLM-4.6` and `MiniMaxAI/MiniMax-M2` were silent. "
             "The oracle refuses the firing examples and accepts the quiet ones (its tiny models stand in for the "
             "named checkpoints: the Llama for the dense names, the Qwen3-MoE for the MoE ones).")
def _deepep_v2_model(a):
    if moe_a2a(a) != "deepep_v2":
        return None
    placed = deepep_v2_architectures(a)
    if placed is None or any(x in DEEPEP_V2_ARCHITECTURES for x in placed[0]):
        return None
    archs, label, named_by = placed
    return Hit("moe_a2a_backend", "model_path",
               fmt={"model_arch": " or ".join(repr(x) for x in archs)},
               note=f"{named_by} names {label} ({', '.join(archs)})")


# -- DeepEP v2 as the speculative draft's a2a backend (moe_hook.validate_deepep_v2_speculative_draft) ----------

_V2_MOE = "--model-path @TINY_MOE@ --moe-a2a-backend deepep_v2 --tp-size 2"
_V2_ENV = {"SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "100000"}


@_rule("SGL292", "deepep-v2-speculative-draft",
       "DeepEP v2 MoE is not validated as a speculative draft backend. Select another "
       "--speculative-moe-a2a-backend.",
       f"{MH}:635", "deepep-v2-speculative-draft",
       "The draft model's MoE layers use `--speculative-moe-a2a-backend`, which defaults to the target's "
       "`--moe-a2a-backend` for every speculative algorithm but NGRAM. DeepEP v2 is not validated for draft "
       "layers, so SGLang refuses a launch whose draft would run on it, written or inherited - the usual "
       "DeepSeek/GLM MTP (NEXTN/EAGLE) decode launch with `--moe-a2a-backend deepep_v2` and nothing else.",
       "Add `--speculative-moe-a2a-backend none` (or `deepep`) so the draft does not inherit DeepEP v2.",
       [ex(_V2_MOE + " --speculative-algorithm NEXTN", _V2_ENV),
        ex(_V2_MOE + " --disaggregation-mode decode --speculative-algorithm EAGLE", _V2_ENV),
        ex(_V2_MOE + " --speculative-algorithm EAGLE --speculative-moe-a2a-backend deepep_v2", _V2_ENV),
        ex("--model-path @TINY_MOE@ --speculative-algorithm EAGLE --speculative-moe-a2a-backend deepep_v2")],
       [ex(_V2_MOE + " --speculative-algorithm NEXTN --speculative-moe-a2a-backend none", _V2_ENV),
        ex(_V2_MOE + " --speculative-algorithm NGRAM", _V2_ENV),
        ex(_V2_MOE, _V2_ENV),
        "--model-path @TINY_MOE@ --moe-a2a-backend deepep --tp-size 2 --speculative-algorithm NEXTN"],
       summary="Reports a speculative launch whose draft MoE would run on DeepEP v2: "
               "`--speculative-moe-a2a-backend deepep_v2`, or `--moe-a2a-backend deepep_v2` with a speculative "
               "algorithm other than NGRAM and no `--speculative-moe-a2a-backend`.",
       notes="SGLang checks this after every other argument check (pipeline.py), for any model and role. "
             "`--enable-return-aux-hidden-states` turns the algorithm off before the check, so pdlint is quiet "
             "then. The check exists from SGLang 0.5.19 (moe_hook.py:362; 0.5.21: :530, 0.5.22: :548). Field "
             "test rw26/b (differential test against SGLang 0.5.23): `--moe-a2a-backend deepep_v2 "
             "--speculative-algorithm NEXTN` was refused by the oracle in 5 variants and pdlint said nothing; "
             "with `--speculative-moe-a2a-backend none` the oracle accepts. The oracle refuses the firing "
             "examples and accepts the quiet ones.")
def _deepep_v2_draft(a):
    if not pipeline(a) or not a.known("speculative_moe_a2a_backend"):
        return None
    if a.eq("speculative_moe_a2a_backend", "deepep_v2"):
        return Hit("speculative_moe_a2a_backend")
    if a.is_set("speculative_moe_a2a_backend") or moe_a2a(a) != "deepep_v2":
        return None
    from pdlint.engines.sglang.rules.speculative import _algo, _written
    algo = _algo(a)
    if algo is None or algo is OPAQUE or not isinstance(algo, str) or algo.upper() == "NGRAM":
        return None
    return Hit("moe_a2a_backend", "speculative_algorithm",
               note=f"--speculative-moe-a2a-backend is not written, so the {_written(a)} draft inherits deepep_v2")


# -- --quantization nvfp4_online (overrides._moe_runner_backend_quant_constraints) --------------------------------

@sgl_rule("SGL293", "nvfp4-online-off-blackwell", category=CAT, severity=WARNING,
          unseen="the GPU: SGLang accepts --quantization nvfp4_online on Blackwell (SM100/SM103) only",
          upstream="--quantization nvfp4_online is supported only on NVIDIA Blackwell SM100/SM103 GPUs.",
          source="arg_groups/overrides.py:1458", upstream_id="nvfp4-online-blackwell-only",
          summary="Reports `--quantization nvfp4_online`: SGLang refuses it unless the server runs on a Blackwell "
                  "GPU (SM100/SM103), which pdlint cannot see.",
          why="Online NVFP4 quantization runs on the Blackwell FP4 MoE kernels (FlashInfer TRT-LLM / CuteDSL) "
              "only. SGLang checks the GPU it starts on and stops with this message on Hopper (H100/H200), "
              "Ampere, SM12x and every other platform, so the same command line starts on a B200/GB200/B300 node "
              "and fails on an H200 one. In a PD deployment it is typically copied from a Blackwell recipe onto "
              "servers scheduled elsewhere.",
          fix="Run the server on Blackwell (SM100/SM103) nodes only (a node selector), or drop "
              "`--quantization nvfp4_online` (serve an FP8 or pre-quantized checkpoint on other GPUs).",
          fire=["--model-path @TINY_MOE@ --quantization nvfp4_online",
                "--model-path @TINY_MOE@ --disaggregation-mode decode --quantization nvfp4_online "
                "--moe-runner-backend flashinfer_trtllm",
                "--disaggregation-mode prefill --quantization nvfp4_online"],
          quiet=["--model-path @TINY_MOE@ --quantization fp8",
                 "--model-path @TINY_MOE@ --disaggregation-mode decode"],
          notes="A warning: pdlint does not know the GPU. SGLang checks this for every model and role, before "
                "it checks the MoE runner (on Blackwell `--quantization nvfp4_online` also needs "
                "`--moe-runner-backend` auto, flashinfer_trtllm, flashinfer_trtllm_routed or flashinfer_cutedsl). "
                "A checkpoint that is NVFP4 already (`--quantization modelopt_fp4`, or none) is not this check. "
                "Field test rw26/b (differential test against SGLang 0.5.23, emulated H200): `--quantization "
                "nvfp4_online` refused by the oracle in 10 variants with no pdlint finding (SGL515 warns about "
                "the same kind of GPU-only choice for TRTLLM MLA); the oracle refuses the firing examples and "
                "accepts the quiet ones.")
def _nvfp4_online(a):
    if pipeline(a) and given(a, "quantization") == "nvfp4_online":
        return Hit("quantization", lead=True, note="the server starts only on a Blackwell GPU (SM100/SM103), "
                                                   "which pdlint cannot see: on Hopper (H100/H200) or older GPUs "
                                                   "SGLang refuses it")


# -- FlashInfer CuteDSL MoE runner (moe_hook.handle_moe_kernel_config) -------------------------------------

FI_CUTEDSL_QUANT = ("modelopt_fp4", "modelopt_mixed", "nvfp4_online")
SGL289_MSG = ("Invalid quantization '{quantization}'. FlashInfer CuteDSL MOE currently supports only: 'modelopt_fp4', "
              "'modelopt_mixed' (with NVFP4 MoE layers), 'nvfp4_online', or hybrid NVFP4 models.")
# a model name that says FP4 (nvidia/DeepSeek-V4-Pro-NVFP4, ...-FP4): a hybrid NVFP4 checkpoint SGLang accepts
# whatever --quantization says, or one whose own quantization config is modelopt_fp4
_FP4_NAME = lazyre.compile(r"(?:^|[-_.])(?:nv)?fp4(?:[-_.]|$)|nvfp4")


def _fi_cutedsl(a) -> bool:
    """An explicit `--moe-runner-backend flashinfer_cutedsl` the quantization pass keeps (mxfp8 replaces it)."""
    return (pipeline(a) and a.explicit("moe_runner_backend") and a.eq("moe_runner_backend", "flashinfer_cutedsl")
            and a.not_among("quantization", ("mxfp8",)))


def _fp4_named(a) -> bool:
    from pdlint.models import component
    for dest in ("model_path", "served_model_name"):
        name = a.get(dest)
        if not isinstance(name, str) or not a.known(dest):
            if dest == "model_path":
                return True  # (a model path pdlint cannot read may be an NVFP4 checkpoint)
            continue
        if _FP4_NAME.search(component(name)):
            return True
    return False


@_rule("SGL289", "flashinfer-cutedsl-moe-quantization", SGL289_MSG, f"{MH}:98", "flashinfer-cutedsl-moe-compat",
       "The FlashInfer CuteDSL MoE kernels run NVFP4 experts only; SGLang asserts the quantization (or a hybrid "
       "NVFP4 checkpoint) before the server starts.",
       "Use an NVFP4 checkpoint (`--quantization modelopt_fp4`, `modelopt_mixed` or `nvfp4_online`) with "
       "`--moe-runner-backend flashinfer_cutedsl`, or pick another runner (`auto`, `flashinfer_cutlass`, "
       "`triton`) for this quantization.",
       ["--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutedsl --quantization fp8",
        "--model-path @TINY_MOE@ --disaggregation-mode prefill --moe-runner-backend flashinfer_cutedsl "
        "--quantization modelopt_fp8"],
       ["--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutedsl --quantization modelopt_fp4",
        "--model-path @TINY_MOE@ --quantization fp8",
        "--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutedsl --quantization mxfp8"],
       summary="Reports `--moe-runner-backend flashinfer_cutedsl` with a `--quantization` other than modelopt_fp4, "
               "modelopt_mixed or nvfp4_online.",
       notes="A hybrid FP8+NVFP4 checkpoint passes whatever `--quantization` says, so pdlint is quiet for a model "
             "whose name says FP4 (`...-NVFP4`, `...-FP4`). `--quantization mxfp8` replaces the runner (with a "
             "warning), so pdlint is quiet for it. Without `--quantization` SGL290 warns. Field test rw25/b "
             "(differential test against SGLang 0.5.23): the oracle refuses the firing examples (\"Invalid "
             "quantization 'fp8'\") and accepts the quiet ones.")
def _fi_cutedsl_quant(a):
    if (_fi_cutedsl(a) and a.explicit("quantization") and a.not_among("quantization", FI_CUTEDSL_QUANT)
            and not _fp4_named(a)):
        return Hit("quantization", "moe_runner_backend")


@sgl_rule(
    "SGL290", "flashinfer-cutedsl-moe-quantization-unset", category=CAT, severity=WARNING, upstream=SGL289_MSG,
    source=f"{MH}:98", upstream_id="flashinfer-cutedsl-moe-compat",
    unseen="the checkpoint's quantization config (an NVFP4 checkpoint passes without --quantization)",
    why="The FlashInfer CuteDSL MoE kernels run NVFP4 experts only. Without `--quantization` SGLang takes the "
        "checkpoint's own quantization: an NVFP4 checkpoint (ModelOpt FP4, or a hybrid FP8+NVFP4 one) passes, any "
        "other model is refused with \"Invalid quantization 'None'\". pdlint cannot read the checkpoint, hence a "
        "warning.",
    fix="Serve an NVFP4 checkpoint with `--moe-runner-backend flashinfer_cutedsl` (say `--quantization "
        "modelopt_fp4` to make it explicit), or drop the runner (`auto`) for a bf16/FP8 model.",
    fire=["--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutedsl",
          "--model-path @TINY_MOE@ --disaggregation-mode decode --moe-runner-backend flashinfer_cutedsl"],
    quiet=["--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutedsl --quantization modelopt_fp4",
           "--model-path @TINY_MOE@ --moe-runner-backend flashinfer_cutlass"],
    summary="Reports `--moe-runner-backend flashinfer_cutedsl` without `--quantization` for a model whose name "
            "does not say FP4: SGLang refuses it unless the checkpoint itself is NVFP4.",
    notes="Quiet for a model whose name says FP4 (`nvidia/DeepSeek-R1-FP4`, `...-NVFP4`) or a model path pdlint "
          "cannot read. Field test rw25/b (differential test against SGLang 0.5.23, DeepSeek-V3, Llama and "
          "Qwen3-MoE configs without a quantization config): the oracle refused all six launches (\"Invalid "
          "quantization 'None'\") and pdlint said nothing; the oracle refuses the firing examples and accepts "
          "the quiet ones.")
def _fi_cutedsl_quant_unset(a):
    if _fi_cutedsl(a) and not a.explicit("quantization") and a.is_unset("quantization") and not _fp4_named(a):
        return Hit("moe_runner_backend", lead=True, note=(
            "no --quantization, so SGLang takes the checkpoint's own, and the model name does not say it is an NVFP4 "
            "checkpoint: unless it is one"))
