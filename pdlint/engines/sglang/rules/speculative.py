"""Role-independent speculative-decoding checks (``research/sglang-rules.md``
section 4.3, SGL401-SGL499): the EAGLE family's draft parameters, rejection
sampling and block verification, NGRAM, DFLASH, DSPARK and UNO constraints,
auxiliary hidden-state capture, and LoRA with speculation.

SGLang resolves the algorithm before these checks: it is upper-cased, NEXTN
runs as EAGLE, and ``--enable-return-aux-hidden-states`` turns it into a
capture convention (speculation stays off).  When ``--speculative-num-steps``
is unset the EAGLE family picks steps/top-k/draft tokens per architecture
(the dense Llama gets (5, 4, 8), DeepSeek-like models (3, 1, 4), STANDALONE
always (3, 1, 4)); pdlint does not know the architecture, so rules that need
those values only fire when the command line fixes them.
"""

from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import (WARNING, Hit, at_least, attention_backend, attention_backends, ex, given,
                                            sgl_rule)

SP = "arg_groups/speculative_hook.py"
VH = "arg_groups/validation_hook.py"
LH = "arg_groups/lora_hook.py"

DRAFT = "--speculative-draft-model-path @TINY@"
EAGLE = "--speculative-algorithm EAGLE " + DRAFT
PARAMS = "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
TREE = "--speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 4"


def rule(code, name, *, source, uid, **kw):
    return sgl_rule(code, name, source=source, upstream_id=uid, category="speculative", **kw)


# -- helpers: the values SGLang's speculative hook works with ---------------------------------------

def _written(a):
    """--speculative-algorithm as the early hooks see it: the raw text, None when unset or when
    --enable-return-aux-hidden-states turns it into a capture convention, OPAQUE when unknown."""
    aux, algo = a.get("enable_return_aux_hidden_states"), a.raw("speculative_algorithm")
    if aux is OPAQUE or algo is OPAQUE:
        return OPAQUE
    return None if aux else algo


def _algo(a):
    """The algorithm after the speculative hook: upper-cased, NEXTN runs as EAGLE."""
    w = _written(a)
    return w if w is None or w is OPAQUE else a.get("speculative_algorithm")


def _gemma_draft(a) -> bool:
    """EAGLE/NEXTN with a Gemma-4 assistant draft runs as FROZEN_KV_MTP (decided by the draft's
    config); pdlint only sees the path, so a path naming Gemma is treated as that case."""
    path = a.get("speculative_draft_model_path")
    return isinstance(path, str) and "gemma" in path.lower()


def _eagle_family(a) -> bool:
    """The launch goes through _handle_eagle_family (EAGLE, EAGLE3, NEXTN, STANDALONE)."""
    algo = _algo(a)
    if algo == "STANDALONE":
        return True
    return algo in ("EAGLE", "EAGLE3") and not _gemma_draft(a)


def _lora(a) -> bool:
    """LoRA serving is on (check_lora_server_args: --lora-paths enables it when --enable-lora is unset)."""
    return a.is_true("enable_lora") or (a.is_unset("enable_lora") and a.is_set("lora_paths"))


def _main_backend(a):
    """--attention-backend as resolved from the command line (equal prefill/decode backends set it)."""
    base = attention_backend(a, "attention_backend")
    if base is not None:
        return base
    pre, dec = attention_backend(a, "prefill_attention_backend"), attention_backend(a, "decode_attention_backend")
    return pre if pre is not None and pre == dec else None


def _page_size(a):
    """The page size after the backends' page constraints, when the command line decides it (an
    explicit --page-size or a backend that forces one); None for SGLang's default."""
    page = given(a, "page_size")
    base, pre, dec, draft = (attention_backend(a, d) for d in ("attention_backend", "prefill_attention_backend",
                                                      "decode_attention_backend",
                                                      "speculative_draft_attention_backend"))
    if "flashmla" in (base, dec):
        page = 64
    if "trtllm_mla" in (base, dec) and page not in (32, 64):
        page = 64
    if "cutedsl_mla" in (base, dec, pre) and page not in (32, 64):
        page = 64
    if "trtllm_mha" in (base, dec, pre, draft) and page not in (16, 32, 64, 128):
        page = 64
    if "hpc_ops" in (base, dec, pre) and page != 64:
        page = 64
    return page


def _device_cuda(a) -> bool:
    """The device is CUDA (explicit, or unset: auto-detected, CUDA on the GPU nodes pdlint targets)."""
    d = a.get("device")
    return d is None or (isinstance(d, str) and d.startswith("cuda"))


def _moe_a2a(a):
    """--moe-a2a-backend after the MoE hooks' rewrites (None when unknown)."""
    if a.gt("dwdp_size", 1) or not a.known("moe_a2a_backend"):
        return None
    if a.eq("moe_runner_backend", "megamoe"):
        return "megamoe"
    v = a.get("moe_a2a_backend")
    if a.is_true("enable_waterfill") and v not in ("deepep", "megamoe"):
        return "deepep"
    return "none" if v == "ascend_tp" else v


def _rejection_sampling(a) -> bool:
    """Rejection sampling is on (explicit, or implied by block verification for EAGLE/EAGLE3)."""
    return a.is_true("speculative_use_rejection_sampling") or (
        a.is_true("speculative_use_block_verification") and _algo(a) in ("EAGLE", "EAGLE3"))


def _fixed_params(a) -> bool:
    """--speculative-num-steps is given, so the EAGLE family keeps the written top-k/draft tokens."""
    return given(a, "speculative_num_steps") is not None


# -- EAGLE family draft parameters ---------------------------------------------------------------

@rule("SGL401", "spec-eagle-params-all-or-none", source=SP + ":1160", uid="spec-eagle-params-all-or-none",
      upstream="",
      summary="Reports an EAGLE-family launch that sets --speculative-eagle-topk or --speculative-num-draft-tokens "
              "without --speculative-num-steps (SGLang fails a bare assertion).",
      why="Without `--speculative-num-steps` SGLang chooses steps, top-k and draft tokens together per "
          "architecture, and asserts that the other two are unset; the failure is an AssertionError without a "
          "message.",
      fix="Set all three (`--speculative-num-steps`, `--speculative-eagle-topk`, `--speculative-num-draft-tokens`) "
          "or none of them (or use `--speculative-adaptive`).",
      fire=[EAGLE + " --speculative-eagle-topk 1", EAGLE + " --speculative-num-draft-tokens 4",
            "--speculative-algorithm NEXTN " + DRAFT + " --speculative-eagle-topk 1",
            "--speculative-algorithm STANDALONE " + DRAFT + " --speculative-eagle-topk 1"],
      quiet=[EAGLE, EAGLE + " " + PARAMS, EAGLE + " --speculative-eagle-topk 1 --speculative-adaptive",
             "--speculative-algorithm NGRAM --speculative-eagle-topk 1"],
      notes="IQuest-Q1 targets take their draft steps from the MTP checkpoint and are not affected; pdlint "
            "cannot see the architecture.")
def _all_or_none(a):
    if not _eagle_family(a) or not a.is_false("speculative_adaptive") or not a.is_unset("speculative_num_steps"):
        return None
    given = [d for d in ("speculative_eagle_topk", "speculative_num_draft_tokens") if a.is_set(d)]
    if given:
        return Hit(*given, "speculative_algorithm", lead=True, note=(
            "without --speculative-num-steps SGLang chooses --speculative-num-steps, --speculative-eagle-topk and "
            "--speculative-num-draft-tokens together and asserts the other two are unset: set all three or none "
            "(SGLang fails with an empty AssertionError)"))


@rule("SGL402", "spec-topk1-draft-tokens-adjusted", source=SP + ":1259", uid="spec-topk1-draft-tokens-adjusted",
      severity=WARNING,
      upstream="speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1",
      why="A linear draft chain (top-k 1) verifies exactly steps + 1 tokens; SGLang silently replaces any other "
          "`--speculative-num-draft-tokens` (or an unset one).",
      fix="Set `--speculative-num-draft-tokens` to `--speculative-num-steps` + 1.",
      fire=[EAGLE + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8",
            EAGLE + " --speculative-num-steps 3 --speculative-eagle-topk 1"],
      quiet=[EAGLE + " " + PARAMS])
def _topk1_draft(a):
    steps, draft = given(a, "speculative_num_steps"), given(a, "speculative_num_draft_tokens")
    if (_eagle_family(a) and a.is_false("speculative_adaptive") and steps is not None
            and given(a, "speculative_eagle_topk") == 1 and a.known("speculative_num_draft_tokens")
            and draft != steps + 1):
        return Hit("speculative_num_draft_tokens", "speculative_num_steps", "speculative_eagle_topk",
                   note=f"it becomes {steps + 1}")


# -- draft window / sink (every algorithm) ----------------------------------------------------------

@rule("SGL403", "spec-draft-window-not-positive", source=SP + ":205", uid="spec-draft-window-positive",
      upstream="--speculative-draft-window-size must be positive, got {window_size}.",
      why="The draft attention window counts tokens; it is validated even without a speculative algorithm.",
      fix="Use a positive `--speculative-draft-window-size`, or leave it unset.",
      fire=["--speculative-draft-window-size 0"], quiet=["--speculative-draft-window-size 8"])
def _window(a):
    w = a.num("speculative_draft_window_size")
    if a.explicit("speculative_draft_window_size") and w is not None and w <= 0:
        return Hit("speculative_draft_window_size", fmt={"window_size": int(w)})


@rule("SGL404", "spec-draft-sink-negative", source=SP + ":224", uid="spec-draft-window-positive",
      upstream="--speculative-draft-sink-size must be non-negative, got {sink_size}.",
      why="The draft attention sink counts tokens kept at the start of the sequence.",
      fix="Use `--speculative-draft-sink-size 0` or more.",
      fire=["--speculative-draft-sink-size -1"],
      quiet=["--speculative-draft-window-size 8 --speculative-draft-sink-size 2"])
def _sink(a):
    s = a.num("speculative_draft_sink_size")
    if a.explicit("speculative_draft_sink_size") and s is not None and s < 0:
        return Hit("speculative_draft_sink_size", fmt={"sink_size": int(s)})


@rule("SGL405", "spec-draft-sink-without-window", source=SP + ":228", uid="spec-draft-window-positive",
      upstream="--speculative-draft-sink-size requires --speculative-draft-window-size.",
      why="The sink is the kept prefix of a sliding draft window; without a window there is nothing to keep.",
      fix="Add `--speculative-draft-window-size`, or drop `--speculative-draft-sink-size`.",
      fire=["--speculative-draft-sink-size 2"],
      quiet=["--speculative-draft-window-size 8 --speculative-draft-sink-size 2"])
def _sink_window(a):
    if a.ge("speculative_draft_sink_size", 0) and a.is_unset("speculative_draft_window_size"):
        return Hit("speculative_draft_sink_size")


# -- block verification and rejection sampling -------------------------------------------------------

@rule("SGL406", "spec-block-verification-algorithm", source=SP + ":177", uid="spec-block-verification-algos",
      upstream="--speculative-use-block-verification only supports EAGLE / EAGLE3 / NEXTN / DFLASH / DSPARK.",
      why="Block verification needs sampled draft proposals with their full distributions, which only these "
          "draft workers produce (also rejected without any speculative algorithm).",
      fix="Use EAGLE, EAGLE3, NEXTN, DFLASH or DSPARK, or drop `--speculative-use-block-verification`.",
      fire=["--speculative-use-block-verification",
            "--speculative-use-block-verification --speculative-algorithm NGRAM"],
      quiet=["--speculative-use-block-verification " + EAGLE + " " + PARAMS],
      notes="SGLang also requires a CUDA (or ROCm) device, a platform check pdlint does not make.")
def _block_verification(a):
    algo = _algo(a)
    if a.is_true("speculative_use_block_verification") and algo is not OPAQUE and (
            algo not in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK") or (algo == "EAGLE" and _gemma_draft(a))):
        return Hit("speculative_use_block_verification", "speculative_algorithm")


@rule("SGL407", "spec-rejection-sampling-algorithm", source=SP + ":1216", uid="spec-rejection-sampling-constraints",
      upstream="--speculative-use-rejection-sampling is only supported for EAGLE / EAGLE3 / NEXTN, not "
               "speculative_algorithm={speculative_algorithm}.",
      why="Only the EAGLE/EAGLE3 draft workers emit the target-vocabulary proposals the rejection sampler needs.",
      fix="Use EAGLE, EAGLE3 or NEXTN, or drop `--speculative-use-rejection-sampling`.",
      fire=["--speculative-use-rejection-sampling --speculative-algorithm STANDALONE " + DRAFT],
      quiet=["--speculative-use-rejection-sampling " + EAGLE + " " + PARAMS,
             "--speculative-use-rejection-sampling --speculative-algorithm NGRAM"],
      notes="Only the EAGLE-family handler checks the flag: with NGRAM, DFLASH or DSPARK SGLang accepts it (and "
            "ignores it).")
def _rs_algo(a):
    if a.is_true("speculative_use_rejection_sampling") and _algo(a) == "STANDALONE":
        return Hit("speculative_use_rejection_sampling", "speculative_algorithm")


@rule("SGL408", "spec-rejection-sampling-topk", source=SP + ":1222", uid="spec-rejection-sampling-constraints",
      upstream="--speculative-use-rejection-sampling requires --speculative-eagle-topk=1.",
      why="Rejection sampling is implemented for the linear (top-k 1) draft chain only. Block verification turns "
          "rejection sampling on for EAGLE/EAGLE3.",
      fix="Use `--speculative-eagle-topk 1` (with `--speculative-num-steps` and `--speculative-num-draft-tokens`).",
      fire=["--speculative-use-rejection-sampling " + EAGLE + " " + TREE,
            "--speculative-use-block-verification " + EAGLE + " " + TREE,
            "--speculative-use-rejection-sampling " + EAGLE + " --speculative-num-steps 3"],
      quiet=["--speculative-use-rejection-sampling " + EAGLE + " " + PARAMS],
      notes="With all three draft parameters unset the top-k is chosen per architecture (4 for Llama, 1 for "
            "DeepSeek-like models): not decidable from flags.")
def _rs_topk(a):
    if not (_rejection_sampling(a) and _algo(a) in ("EAGLE", "EAGLE3") and _eagle_family(a) and _fixed_params(a)):
        return None
    topk = a.get("speculative_eagle_topk")
    if topk is OPAQUE or topk == 1:
        return None
    blame = ("speculative_eagle_topk",) if topk is not None else ("speculative_num_steps",)
    note = "" if topk is not None else "--speculative-eagle-topk is unset, and stays unset when --speculative-num-steps " \
                                       "is given"
    return Hit(*blame, "speculative_use_rejection_sampling", "speculative_use_block_verification", note=note)


@rule("SGL409", "spec-rejection-sampling-thresholds", source=SP + ":1236", uid="spec-rejection-sampling-constraints",
      upstream="--speculative-use-rejection-sampling is incompatible with --speculative-accept-threshold-single / "
               "--speculative-accept-threshold-acc; rejection sampling ignores the accept thresholds.",
      why="Rejection sampling decides acceptance itself; the accept thresholds would be silently ignored.",
      fix="Drop `--speculative-accept-threshold-single` / `--speculative-accept-threshold-acc` (keep 1.0).",
      fire=["--speculative-use-rejection-sampling " + EAGLE + " " + PARAMS + " --speculative-accept-threshold-single 0.5"],
      quiet=["--speculative-use-rejection-sampling " + EAGLE + " " + PARAMS + " --speculative-accept-threshold-single 1.0"])
def _rs_thresholds(a):
    if not (_rejection_sampling(a) and _algo(a) in ("EAGLE", "EAGLE3") and _eagle_family(a)):
        return None
    for dest in ("speculative_accept_threshold_single", "speculative_accept_threshold_acc"):
        v = a.num(dest)
        if v is not None and v != 1.0:
            return Hit(dest, "speculative_use_rejection_sampling", "speculative_use_block_verification")


# -- attention DP ----------------------------------------------------------------------------------

@rule("SGL410", "spec-standalone-with-dp-attention", source=SP + ":1082", uid="spec-standalone-no-dp-attention",
      upstream="Currently standalone speculative decoding does not support dp attention.",
      why="The STANDALONE draft model is not sharded across attention data-parallel ranks.",
      fix="Drop attention DP (`--attn-dp-size`), or use another algorithm.",
      fire=["--speculative-algorithm STANDALONE " + DRAFT + " --tp-size 2 --attn-dp-size 2"],
      quiet=["--speculative-algorithm STANDALONE " + DRAFT])
def _standalone_dp(a):
    if _algo(a) == "STANDALONE" and a.attn_dp_enabled:
        return Hit("attn_dp_size", "dp_size", "speculative_algorithm")


@rule("SGL411", "spec-ngram-with-dp-attention", source=SP + ":1369", uid="spec-ngram-no-dp-attention",
      upstream="Currently ngram speculative decoding does not support dp attention.",
      why="The NGRAM drafter is not coordinated across attention data-parallel ranks.",
      fix="Drop attention DP (`--attn-dp-size`), or use another algorithm.",
      fire=["--speculative-algorithm NGRAM --tp-size 2 --attn-dp-size 2"], quiet=["--speculative-algorithm NGRAM"])
def _ngram_dp(a):
    if _algo(a) == "NGRAM" and a.attn_dp_enabled:
        return Hit("attn_dp_size", "dp_size", "speculative_algorithm")


# -- trees on paged attention -------------------------------------------------------------------------

@rule("SGL412", "spec-ngram-tree-on-paged-backend", source=SP + ":1361", uid="spec-ngram-tree-paged",
      upstream="speculative_eagle_topk({speculative_eagle_topk}) > 1 with page_size({page_size}) > 1 is unstable "
               "and produces incorrect results for paged attention backends. This combination is only supported "
               "for the 'flashinfer' backend.",
      why="NGRAM drafts a tree `--speculative-ngram-max-bfs-breadth` wide (default 10, used as the top-k); tree "
          "verification with pages larger than one token is only correct on the flashinfer backend.",
      fix="Use `--attention-backend flashinfer`, `--page-size 1`, or `--speculative-ngram-max-bfs-breadth 1`.",
      fire=["--speculative-algorithm NGRAM --page-size 16 --attention-backend triton",
            "--speculative-algorithm NGRAM --attention-backend trtllm_mha"],
      quiet=["--speculative-algorithm NGRAM --page-size 16 --attention-backend flashinfer",
             "--speculative-algorithm NGRAM --page-size 16 --attention-backend triton "
             "--speculative-ngram-max-bfs-breadth 1"],
      notes="Decidable only when the attention backend is on the command line (the default depends on the model "
            "and GPU).")
def _ngram_tree(a):
    breadth, page, backend = a.num("speculative_ngram_max_bfs_breadth"), _page_size(a), _main_backend(a)
    if (_algo(a) == "NGRAM" and breadth is not None and breadth > 1 and page is not None and page > 1
            and backend is not None and backend != "flashinfer"):
        blame = "page_size" if given(a, "page_size") is not None and given(a, "page_size") > 1 else "attention_backend"
        return Hit(blame, "attention_backend", "speculative_ngram_max_bfs_breadth", "speculative_algorithm",
                   fmt={"speculative_eagle_topk": int(breadth), "page_size": page})


@rule("SGL467", "spec-ngram-tree-default-backend", source=SP + ":1361", uid="spec-ngram-tree-paged",
      severity=WARNING,
      unseen="the GPU, which picks SGLang's default attention backend (fa3 on Hopper refuses the launch)",
      upstream="speculative_eagle_topk({speculative_eagle_topk}) > 1 with page_size({page_size}) > 1 is unstable "
               "and produces incorrect results for paged attention backends. This combination is only supported "
               "for the 'flashinfer' backend.",
      summary="Reports NGRAM speculation with a tree (`--speculative-ngram-max-bfs-breadth` > 1, default 10) and "
              "`--page-size` > 1 but no `--attention-backend`: SGLang refuses it unless the GPU's default backend "
              "is flashinfer (on Hopper the default, fa3, refuses it).",
      why="Tree verification on pages larger than one token is only correct on flashinfer, and SGLang checks the "
          "backend it resolved. With no `--attention-backend` that backend is the platform's default: fa3 on "
          "Hopper (H100/H200), where the launch fails at start; A100 and B200 defaults accept it. The same "
          "command line therefore starts or fails depending on the node it lands on.",
      fix="Add `--attention-backend flashinfer` (or use `--page-size 1`, or `--speculative-ngram-max-bfs-breadth 1`).",
      fire=["--speculative-algorithm NGRAM --page-size 16",
            "--disaggregation-mode prefill --speculative-algorithm NGRAM --page-size 64"],
      quiet=["--speculative-algorithm NGRAM --page-size 16 --attention-backend flashinfer",
             "--speculative-algorithm NGRAM --page-size 16 --speculative-ngram-max-bfs-breadth 1",
             "--speculative-algorithm NGRAM --page-size 1"],
      notes="A warning: pdlint does not know the GPU. Field test rw22/b (differential test against SGLang 0.5.23): "
            "21 corpus launches with `--page-size 16/64` and NGRAM, refused by the oracle on an emulated H200 "
            "(SM90) and accepted on SM80 and SM100. With an explicit backend SGL412 decides.")
def _ngram_tree_default_backend(a):
    breadth, page = a.num("speculative_ngram_max_bfs_breadth"), _page_size(a)
    if not (_algo(a) == "NGRAM" and breadth is not None and breadth > 1 and page is not None and page > 1):
        return None
    if not all(a.is_unset(d) for d in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")):
        return None  # a backend on the command line (or one pdlint cannot read): SGL412's case
    return Hit("page_size", "speculative_algorithm", fmt={"speculative_eagle_topk": int(breadth), "page_size": page},
               lead=True, note="no --attention-backend: SGLang uses the GPU's default, which on Hopper (fa3) refuses "
                               "this; add --attention-backend flashinfer")


@rule("SGL413", "spec-eagle-tree-on-paged-backend", source=SP + ":1278", uid="spec-eagle-tree-paged-backends",
      upstream="speculative_eagle_topk > 1 with page_size > 1 is only supported on {backends}; got "
               "attention_backend={attention_backend!r}. Use page_size == 1 or one of those backends.",
      why="A draft tree (top-k > 1) on pages larger than one token needs the two-pass cascade draft decode, which "
          "only flashinfer, fa3 and triton implement.",
      fix="Use `--page-size 1`, `--attention-backend flashinfer|fa3|triton`, or `--speculative-eagle-topk 1`.",
      fire=[EAGLE + " " + TREE + " --page-size 16 --attention-backend fa4",
            EAGLE + " " + TREE + " --attention-backend flashmla"],
      quiet=[EAGLE + " " + TREE + " --page-size 16 --attention-backend triton",
             EAGLE + " " + TREE + " --attention-backend fa4"],
      notes="Decidable when --speculative-eagle-topk and the attention backend are on the command line; with "
            "auto-chosen draft parameters the top-k depends on the architecture.")
def _eagle_tree(a):
    topk, page, backend = given(a, "speculative_eagle_topk"), _page_size(a), _main_backend(a)
    if not (_eagle_family(a) and _fixed_params(a) and topk is not None and topk > 1):
        return None
    if "trtllm_mha" in attention_backends(a) or _rejection_sampling(a):
        return None  # SGL414 / SGL408 fail first
    if page is not None and page > 1 and backend is not None and backend not in (
            "flashinfer", "fa3", "triton", "intel_xpu", "trtllm_mha"):
        blame = "page_size" if given(a, "page_size") is not None and given(a, "page_size") > 1 else "attention_backend"
        return Hit(blame, "attention_backend", "speculative_eagle_topk",
                   fmt={"backends": "('flashinfer', 'fa3', 'triton')", "attention_backend": backend})


@rule("SGL414", "spec-trtllm-mha-tree", source=SP + ":1178", uid="spec-eagle-tree-paged-backends",
      upstream="trtllm_mha backend only supports topk = 1 for speculative decoding.",
      why="The TensorRT-LLM MHA attention backend verifies linear draft chains only.",
      fix="Use `--speculative-eagle-topk 1`, or another attention backend.",
      fire=[EAGLE + " " + TREE + " --attention-backend trtllm_mha",
            EAGLE + " " + TREE + " --decode-attention-backend trtllm_mha"],
      quiet=[EAGLE + " " + PARAMS + " --attention-backend trtllm_mha"],
      notes="The default attention backend (trtllm_mha on some Blackwell setups) is platform-dependent: only an "
            "explicit backend is checked.")
def _trtllm_tree(a):
    topk = given(a, "speculative_eagle_topk")
    if _eagle_family(a) and _fixed_params(a) and topk is not None and topk > 1 and "trtllm_mha" in attention_backends(a):
        blame = [d for d in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")
                 if given(a, d) == "trtllm_mha"]
        return Hit("speculative_eagle_topk", *blame)


# -- NGRAM external corpus ---------------------------------------------------------------------------

def _ngram_corpus(a) -> bool:
    return _algo(a) == "NGRAM" and a.is_set("speculative_ngram_external_corpus_path")


@rule("SGL415", "spec-ngram-corpus-sam-budget", source=SP + ":1333", uid="spec-ngram-device",
      upstream="--speculative-ngram-external-sam-budget must be positive when --speculative-ngram-external-corpus-path "
               "is set.",
      why="The SAM budget is how many draft tokens the external corpus may propose; its default is 0.",
      fix="Add `--speculative-ngram-external-sam-budget N` (N >= 1, at most draft tokens - 1).",
      fire=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt"],
      quiet=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
             "--speculative-ngram-external-sam-budget 4"])
def _sam_budget(a):
    if _ngram_corpus(a) and a.le("speculative_ngram_external_sam_budget", 0):
        return Hit("speculative_ngram_external_sam_budget", "speculative_ngram_external_corpus_path")


@rule("SGL416", "spec-ngram-corpus-max-tokens", source=SP + ":1338", uid="spec-ngram-device",
      upstream="--speculative-ngram-external-corpus-max-tokens must be positive when "
               "--speculative-ngram-external-corpus-path is set.",
      why="The corpus token limit bounds how much of the external corpus is loaded.",
      fix="Use a positive `--speculative-ngram-external-corpus-max-tokens`.",
      fire=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
            "--speculative-ngram-external-sam-budget 4 --speculative-ngram-external-corpus-max-tokens 0"],
      quiet=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
             "--speculative-ngram-external-sam-budget 4"])
def _corpus_tokens(a):
    if _ngram_corpus(a) and a.le("speculative_ngram_external_corpus_max_tokens", 0):
        return Hit("speculative_ngram_external_corpus_max_tokens", "speculative_ngram_external_corpus_path")


@rule("SGL417", "spec-ngram-sam-budget-too-large", source=SP + ":1346", uid="spec-ngram-device",
      upstream="speculative_ngram_external_sam_budget must be less than or equal to speculative_num_draft_tokens - 1 "
               "({limit}).",
      why="The corpus proposes at most draft tokens - 1 tokens; `--speculative-num-draft-tokens` defaults to 12 "
          "for NGRAM.",
      fix="Lower `--speculative-ngram-external-sam-budget` or raise `--speculative-num-draft-tokens`.",
      fire=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
            "--speculative-ngram-external-sam-budget 12",
            "--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
            "--speculative-ngram-external-sam-budget 4 --speculative-num-draft-tokens 4"],
      quiet=["--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.txt "
             "--speculative-ngram-external-sam-budget 11"])
def _sam_limit(a):
    budget = a.num("speculative_ngram_external_sam_budget")
    draft = 12 if a.is_unset("speculative_num_draft_tokens") else a.num("speculative_num_draft_tokens")
    if _ngram_corpus(a) and budget is not None and draft is not None and budget > draft - 1:
        return Hit("speculative_ngram_external_sam_budget", "speculative_num_draft_tokens",
                   fmt={"limit": int(draft) - 1})


# -- DFLASH ----------------------------------------------------------------------------------------

DF = "--speculative-algorithm DFLASH " + DRAFT


def _dflash(a) -> bool:
    return _algo(a) == "DFLASH"


def _dflash_dp(a) -> bool:
    return _dflash(a) and a.attn_dp_enabled and _device_cuda(a)


@rule("SGL418", "dflash-dp-needs-dp-lm-head", source=SP + ":308", uid="spec-dflash-constraints",
      upstream="DFLASH with dp attention requires --enable-dp-lm-head.",
      why="DFLASH's greedy projection and selector borrow the target's LM head, which must be DP-sharded with "
          "attention DP.",
      fix="Add `--enable-dp-lm-head`.",
      fire=[DF + " --tp-size 2 --attn-dp-size 2"], quiet=[DF + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"],
      notes="Not checked on NPU devices; pdlint assumes CUDA when --device is unset.")
def _dflash_lm_head(a):
    if _dflash_dp(a) and a.is_false("enable_dp_lm_head"):
        return Hit("attn_dp_size", "dp_size", "speculative_algorithm")


@rule("SGL419", "dflash-dp-with-context-parallel", source=SP + ":310", uid="spec-dflash-constraints",
      upstream="DFLASH with dp attention does not support context parallel.",
      why="DFLASH with attention DP does not handle attention context parallelism.",
      fix="Use `--attn-cp-size 1`.",
      fire=[DF + " --tp-size 4 --attn-dp-size 2 --enable-dp-lm-head --attn-cp-size 2"],
      quiet=[DF + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"])
def _dflash_cp(a):
    if _dflash_dp(a) and a.ne("attn_cp_size", 1):
        return Hit("attn_cp_size", "speculative_algorithm")


@rule("SGL420", "dflash-pp", source=SP + ":320", uid="spec-dflash-constraints",
      upstream="Currently DFLASH speculative decoding only supports pp_size == 1.",
      why="DFLASH does not run across pipeline stages.",
      fix="Use `--pp-size 1`.",
      fire=[DF + " --pp-size 2"], quiet=[DF])
def _dflash_pp(a):
    if _dflash(a) and a.ne("pp_size", 1):
        return Hit("pp_size", "speculative_algorithm")


@rule("SGL421", "dflash-needs-draft-model", source=SP + ":325", uid="spec-dflash-constraints",
      upstream="DFLASH speculative decoding requires setting --speculative-draft-model-path.",
      why="DFLASH runs a separate block-diffusion draft model.",
      fix="Add `--speculative-draft-model-path`.",
      fire=["--speculative-algorithm DFLASH"], quiet=[DF])
def _dflash_draft(a):
    if _dflash(a) and a.is_unset("speculative_draft_model_path"):
        return Hit("speculative_algorithm")


@rule("SGL422", "dflash-block-size-not-positive", source=SP + ":370", uid="spec-dflash-constraints",
      upstream="DFLASH requires --speculative-dflash-block-size to be positive, got {speculative_dflash_block_size}.",
      why="The DFLASH block size is the verify window length.",
      fix="Use a positive `--speculative-dflash-block-size`, or leave it to the draft's config.",
      fire=[DF + " --speculative-dflash-block-size 0"], quiet=[DF + " --speculative-dflash-block-size 8"])
def _dflash_block(a):
    if _dflash(a) and a.explicit("speculative_dflash_block_size") and a.le("speculative_dflash_block_size", 0):
        return Hit("speculative_dflash_block_size")


@rule("SGL423", "dflash-block-size-vs-draft-tokens", source=SP + ":377", uid="spec-dflash-constraints",
      upstream="Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they differ. For "
               "DFLASH they must match. speculative_num_draft_tokens={speculative_num_draft_tokens}, "
               "speculative_dflash_block_size={speculative_dflash_block_size}.",
      why="For DFLASH the number of draft tokens is the block size.",
      fix="Set only one of them, or make them equal.",
      fire=[DF + " --speculative-dflash-block-size 8 --speculative-num-draft-tokens 4"],
      quiet=[DF + " --speculative-dflash-block-size 8 --speculative-num-draft-tokens 8"])
def _dflash_block_tokens(a):
    block, draft = given(a, "speculative_dflash_block_size"), given(a, "speculative_num_draft_tokens")
    if _dflash(a) and block is not None and block > 0 and draft is not None and draft != block:
        return Hit("speculative_num_draft_tokens", "speculative_dflash_block_size")


@rule("SGL424", "dflash-window-smaller-than-block", source=SP + ":430", uid="spec-dflash-constraints",
      upstream="--speculative-draft-window-size must be >= --speculative-num-draft-tokens (block_size). "
               "window_size={window_size}, block_size={block_size}.",
      why="The DFLASH draft window must hold at least one verify block.",
      fix="Raise `--speculative-draft-window-size` to at least the block size.",
      fire=[DF + " --speculative-dflash-block-size 8 --speculative-draft-window-size 4",
            DF + " --speculative-num-draft-tokens 4 --speculative-draft-window-size 3"],
      quiet=[DF + " --speculative-dflash-block-size 8 --speculative-draft-window-size 8"],
      notes="With neither --speculative-dflash-block-size nor --speculative-num-draft-tokens the block size comes "
            "from the draft model's config (16 when absent): not decidable from flags.")
def _dflash_window(a):
    block, draft = given(a, "speculative_dflash_block_size"), given(a, "speculative_num_draft_tokens")
    size = block if block is not None else draft
    window = given(a, "speculative_draft_window_size")
    if (_dflash(a) and size is not None and size > 0 and (block is None or draft is None or block == draft)
            and window is not None and 0 < window < size):
        return Hit("speculative_draft_window_size",
                   "speculative_dflash_block_size" if block is not None else "speculative_num_draft_tokens",
                   fmt={"window_size": window, "block_size": size})


# -- DSPARK ----------------------------------------------------------------------------------------

DS = "--speculative-algorithm DSPARK " + DRAFT


def _dspark_dp(a) -> bool:
    return _algo(a) == "DSPARK" and a.gt("attn_dp_size", 1) and _device_cuda(a)


@rule("SGL425", "dspark-dp-needs-dp-lm-head", source=SP + ":676", uid="spec-dspark-constraints",
      upstream="DSpark with dp attention requires --enable-dp-lm-head.",
      why="DSpark's draft head shares the target's LM head, which must be DP-sharded with attention DP.",
      fix="Add `--enable-dp-lm-head`.",
      fire=[DS + " --tp-size 2 --attn-dp-size 2"], quiet=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"],
      notes="pdlint assumes a CUDA device when --device is unset.")
def _dspark_lm_head(a):
    if _dspark_dp(a) and a.is_false("enable_dp_lm_head"):
        return Hit("attn_dp_size", "dp_size", "speculative_algorithm")


@rule("SGL426", "dspark-dp-moe-a2a-backend", source=SP + ":678", uid="spec-dspark-constraints",
      upstream="DSpark with dp attention supports moe_a2a_backend 'none' (built-in TP MoE), 'megamoe', or 'mori', "
               "got {moe_a2a_backend!r}.",
      why="DSpark with attention DP is implemented for the built-in TP MoE, MegaMoE and MORI all-to-all only.",
      fix="Use `--moe-a2a-backend none|megamoe|mori`.",
      fire=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head --moe-a2a-backend deepep"],
      quiet=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head --moe-a2a-backend mori"])
def _dspark_a2a(a):
    a2a = _moe_a2a(a)
    if _dspark_dp(a) and a.is_true("enable_dp_lm_head") and a2a is not None and a2a not in ("none", "megamoe",
                                                                                            "mori"):
        return Hit("moe_a2a_backend", "speculative_algorithm", fmt={"moe_a2a_backend": a2a})


@rule("SGL427", "dspark-dp-with-context-parallel", source=SP + ":698", uid="spec-dspark-constraints",
      upstream="DSpark with dp attention does not support context parallel (attn_cp_size={attn_cp_size}).",
      why="DSpark with attention DP does not handle attention context parallelism.",
      fix="Use `--attn-cp-size 1`.",
      fire=[DS + " --tp-size 4 --attn-dp-size 2 --enable-dp-lm-head --attn-cp-size 2"],
      quiet=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head"])
def _dspark_cp(a):
    if _dspark_dp(a) and a.gt("attn_cp_size", 1):
        return Hit("attn_cp_size", "speculative_algorithm")


@rule("SGL428", "dspark-dp-speculative-a2a-mismatch", source=SP + ":707", uid="spec-dspark-constraints",
      upstream="DSpark ignores --speculative-moe-a2a-backend; with dp attention it must match the target "
               "moe_a2a_backend={moe_a2a_backend!r} (got {speculative_moe_a2a_backend!r}).",
      why="DSpark's draft runs on the target's MoE all-to-all; a different draft backend would be ignored.",
      fix="Drop `--speculative-moe-a2a-backend` (or make it equal to `--moe-a2a-backend`).",
      fire=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head --speculative-moe-a2a-backend deepep"],
      quiet=[DS + " --tp-size 2 --attn-dp-size 2 --enable-dp-lm-head --speculative-moe-a2a-backend none"])
def _dspark_spec_a2a(a):
    a2a, spec = _moe_a2a(a), given(a, "speculative_moe_a2a_backend")
    if _dspark_dp(a) and a2a is not None and spec is not None and spec != a2a:
        return Hit("speculative_moe_a2a_backend", fmt={"moe_a2a_backend": a2a})


@rule("SGL429", "dspark-block-size-not-positive", source=SP + ":809", uid="spec-dspark-constraints",
      upstream="DSpark requires --speculative-dspark-block-size to be positive, got {speculative_dspark_block_size}.",
      why="The DSpark block size is gamma, the number of drafted tokens per step.",
      fix="Use a positive `--speculative-dspark-block-size`.",
      fire=[DS + " --speculative-dspark-block-size 0"], quiet=[DS + " --speculative-dspark-block-size 4"])
def _dspark_block(a):
    if _algo(a) == "DSPARK" and a.explicit("speculative_dspark_block_size") and a.le("speculative_dspark_block_size", 0):
        return Hit("speculative_dspark_block_size")


@rule("SGL430", "dspark-draft-tokens-not-gamma-plus-one", source=SP + ":830", uid="spec-dspark-constraints",
      upstream="DSpark speculative_num_draft_tokens must equal gamma + 1 (= {verify_window} for gamma={gamma}), but "
               "got speculative_num_draft_tokens={speculative_num_draft_tokens}.",
      why="DSpark verifies gamma drafted tokens plus one.",
      fix="Set `--speculative-num-draft-tokens` to `--speculative-dspark-block-size` + 1, or drop it.",
      fire=[DS + " --speculative-dspark-block-size 4 --speculative-num-draft-tokens 4"],
      quiet=[DS + " --speculative-dspark-block-size 4 --speculative-num-draft-tokens 5"],
      notes="Without --speculative-dspark-block-size gamma comes from the draft model's config: not decidable.")
def _dspark_window(a):
    gamma, draft = given(a, "speculative_dspark_block_size"), given(a, "speculative_num_draft_tokens")
    if _algo(a) == "DSPARK" and gamma is not None and gamma > 0 and draft is not None and draft != gamma + 1:
        return Hit("speculative_num_draft_tokens", "speculative_dspark_block_size",
                   fmt={"verify_window": gamma + 1, "gamma": gamma})


@rule("SGL431", "dspark-draft-tokens-below-two", source=SP + ":847", uid="spec-dspark-constraints",
      upstream="DSpark speculative_num_draft_tokens must be >= 2 (= gamma + 1), got {speculative_num_draft_tokens}.",
      why="DSpark drafts at least one token and verifies it plus one.",
      fix="Use `--speculative-num-draft-tokens` 2 or more (gamma + 1).",
      fire=[DS + " --speculative-num-draft-tokens 1"], quiet=[DS + " --speculative-num-draft-tokens 5"],
      notes="If the draft model's config names a gamma, SGLang reports the gamma + 1 mismatch instead.")
def _dspark_min(a):
    draft = given(a, "speculative_num_draft_tokens")
    if (_algo(a) == "DSPARK" and a.is_unset("speculative_dspark_block_size") and draft is not None
            and draft < 2):
        return Hit("speculative_num_draft_tokens")


# -- UNO ----------------------------------------------------------------------------------------------

UNO = "--speculative-algorithm UNO --uno-lora-path /models/uno-lora"
UNO_OK = UNO + " --speculative-num-draft-tokens 4"


def _uno(a) -> bool:
    return _algo(a) == "UNO"


def _uno_rule(code, name, line, upstream, why, fix, fire, quiet, notes=""):
    return rule(code, name, source=f"{SP}:{line}", uid="spec-uno-constraints", upstream=upstream, why=why, fix=fix,
                fire=fire, quiet=quiet, notes=notes)


@_uno_rule("SGL432", "uno-with-draft-model", 455,
           "UNO reuses the target model and does not accept --speculative-draft-model-path.",
           "UNO drafts with a LoRA adapter on the target model itself.",
           "Drop `--speculative-draft-model-path`.",
           [UNO_OK + " " + DRAFT], [UNO_OK])
def _uno_draft(a):
    if _uno(a) and a.is_set("speculative_draft_model_path"):
        return Hit("speculative_draft_model_path", "speculative_algorithm")


@_uno_rule("SGL433", "uno-needs-lora-path", 460, "UNO requires --uno-lora-path.",
           "UNO's drafter is a LoRA adapter on the target model.",
           "Add `--uno-lora-path`.",
           ["--speculative-algorithm UNO --speculative-num-draft-tokens 4"], [UNO_OK])
def _uno_lora_path(a):
    if _uno(a) and a.is_unset("uno_lora_path"):
        return Hit("speculative_algorithm")


@_uno_rule("SGL434", "uno-with-deterministic-inference", 461,
           "UNO does not support --enable-deterministic-inference because its sampling path does not use "
           "per-request seeds.",
           "UNO's sampling is not seeded per request.",
           "Drop `--enable-deterministic-inference`.",
           [UNO_OK + " --enable-deterministic-inference"], [UNO_OK])
def _uno_det(a):
    if _uno(a) and a.is_true("enable_deterministic_inference"):
        return Hit("enable_deterministic_inference", "speculative_algorithm")


@_uno_rule("SGL435", "uno-with-strict-thinking", 466,
           "UNO does not support --enable-strict-thinking because it requires grammar decoding.",
           "Strict thinking needs grammar-constrained decoding, which UNO does not run.",
           "Drop `--enable-strict-thinking`.",
           [UNO_OK + " --enable-strict-thinking"], [UNO_OK])
def _uno_strict(a):
    if _uno(a) and a.is_true("enable_strict_thinking"):
        return Hit("enable_strict_thinking", "speculative_algorithm")


@_uno_rule("SGL436", "uno-needs-draft-tokens", 474,
           "UNO requires --speculative-num-draft-tokens to be a positive integer denoting the linear width or "
           "tree verify width Q.",
           "UNO has no default verify width.",
           "Add `--speculative-num-draft-tokens Q` (Q >= 1).",
           [UNO, UNO + " --speculative-num-draft-tokens 0"], [UNO_OK])
def _uno_q(a):
    if _uno(a) and a.known("speculative_num_draft_tokens") and (
            a.is_unset("speculative_num_draft_tokens") or a.lt("speculative_num_draft_tokens", 1)):
        return Hit("speculative_num_draft_tokens", "speculative_algorithm")


def _uno_topk(a):
    """UNO's candidate top-k K (None unset -> 1); None when unknown."""
    if not a.known("speculative_eagle_topk"):
        return None
    v = a.get("speculative_eagle_topk")
    return 1 if v is None else v


@_uno_rule("SGL437", "uno-topk-below-one", 488,
           "UNO requires --speculative-eagle-topk to be at least 1, got {candidate_top_k}.",
           "UNO's candidate top-k K must be at least one.",
           "Use `--speculative-eagle-topk 1` (linear) or more (tree mode).",
           [UNO_OK + " --speculative-eagle-topk 0"], [UNO_OK + " --speculative-eagle-topk 1"])
def _uno_topk_min(a):
    k = _uno_topk(a)
    if _uno(a) and k is not None and k < 1:
        return Hit("speculative_eagle_topk", fmt={"candidate_top_k": k})


def _uno_tree(a):
    """(Q, F, K, steps) of a UNO tree-mode launch with valid Q and K; steps may be None."""
    q, k = given(a, "speculative_num_draft_tokens"), _uno_topk(a)
    if not (_uno(a) and q is not None and q >= 1 and k is not None and k > 1):
        return None
    if not a.known("speculative_num_steps"):
        return None
    steps = a.get("speculative_num_steps")
    return q, (steps + 1 if steps is not None else None), k, steps


UNO_TREE = UNO + " --speculative-eagle-topk 2"


@_uno_rule("SGL438", "uno-tree-needs-num-steps", 495,
           "UNO tree mode requires --speculative-num-steps so its draft width F can be derived as "
           "speculative_num_steps + 1.",
           "In tree mode (`--speculative-eagle-topk` > 1) UNO derives its draft width from the step count.",
           "Add `--speculative-num-steps`.",
           [UNO_TREE + " --speculative-num-draft-tokens 4"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_tree_steps(a):
    t = _uno_tree(a)
    if t and t[3] is None:
        return Hit("speculative_eagle_topk", "speculative_algorithm")


def _uno_tree_steps_ok(a):
    t = _uno_tree(a)
    return t if t and t[3] is not None and t[3] >= 1 else None


@_uno_rule("SGL439", "uno-tree-num-steps-not-positive", 501,
           "UNO tree mode requires --speculative-num-steps to be positive, got {speculative_num_steps}.",
           "The draft width F is steps + 1 and must exceed one.",
           "Use a positive `--speculative-num-steps`.",
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 0"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_tree_steps_pos(a):
    t = _uno_tree(a)
    if t and t[3] is not None and t[3] < 1:
        return Hit("speculative_num_steps")


@_uno_rule("SGL440", "uno-tree-q-below-f", 508,
           "UNO tree mode requires Q >= F; got Q={q}, F={f}.",
           "The verify width Q (`--speculative-num-draft-tokens`) must cover the draft width F "
           "(`--speculative-num-steps` + 1).",
           "Raise `--speculative-num-draft-tokens` or lower `--speculative-num-steps`.",
           [UNO_TREE + " --speculative-num-draft-tokens 3 --speculative-num-steps 3"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_q_f(a):
    t = _uno_tree_steps_ok(a)
    if t and t[0] < t[1]:
        return Hit("speculative_num_draft_tokens", "speculative_num_steps", fmt={"q": t[0], "f": t[1]})


@_uno_rule("SGL441", "uno-tree-q-too-large", 512,
           "UNO tree mode currently supports at most Q=128 verify nodes, got Q={q}.",
           "UNO's tree verify kernel handles at most 128 nodes.",
           "Use `--speculative-num-draft-tokens` 128 or less.",
           [UNO_TREE + " --speculative-num-draft-tokens 129 --speculative-num-steps 3"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_q_max(a):
    t = _uno_tree_steps_ok(a)
    if t and t[0] >= t[1] and t[0] > 128:
        return Hit("speculative_num_draft_tokens", fmt={"q": t[0]})


@_uno_rule("SGL442", "uno-tree-frontier-too-large", 518,
           "UNO tree mode currently supports Q*K <= 2048; got Q*K={q}*{k}={slots}.",
           "The candidate frontier Q x K is bounded by 2048 slots.",
           "Lower `--speculative-num-draft-tokens` or `--speculative-eagle-topk`.",
           ["--speculative-algorithm UNO --uno-lora-path /models/uno-lora --speculative-eagle-topk 32 "
            "--speculative-num-draft-tokens 128 --speculative-num-steps 3"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_frontier(a):
    t = _uno_tree_steps_ok(a)
    if t and t[1] <= t[0] <= 128 and t[0] * t[2] > 2048:
        return Hit("speculative_num_draft_tokens", "speculative_eagle_topk",
                   fmt={"q": t[0], "k": t[2], "slots": t[0] * t[2]})


def _uno_capacity(q, k, steps) -> int:
    if steps <= 0:
        return 1
    # no growth (|k| <= 1): a closed form, never a loop as long as a flag's value
    if k == 0:
        return 1
    if k == 1:
        return 1 + min(steps, max(q - 1, 1))
    if k == -1:
        return 0 if q <= 0 else 1 if q <= 1 and steps >= 2 else (0 if steps % 2 else 1)
    capacity, nodes = 1, 1
    for _ in range(steps):
        nodes *= k
        capacity += nodes
        if capacity >= q:
            break
    return capacity


def _uno_tree_sized(a):
    t = _uno_tree_steps_ok(a)
    return t if t and t[1] <= t[0] <= 128 and t[0] * t[2] <= 2048 else None


@_uno_rule("SGL443", "uno-tree-capacity", 531,
           "UNO tree mode cannot build the requested Q from F and K: Q={q} exceeds capacity={capacity} for F={f}, "
           "K={k}.",
           "A tree of F - 1 levels with branching K holds fewer than Q nodes.",
           "Raise `--speculative-num-steps` or `--speculative-eagle-topk`, or lower `--speculative-num-draft-tokens`.",
           [UNO_TREE + " --speculative-num-draft-tokens 8 --speculative-num-steps 2"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_cap(a):
    t = _uno_tree_sized(a)
    if t:
        q, f, k, steps = t
        cap = _uno_capacity(q, k, steps)
        if q > cap:
            return Hit("speculative_num_draft_tokens", "speculative_num_steps", "speculative_eagle_topk",
                       fmt={"q": q, "capacity": cap, "f": f, "k": k})


@_uno_rule("SGL444", "uno-tree-parent-list", 539,
           "UNO tree mode cannot represent the requested Q in EAGLE's parent-list ABI: Q-1={q1} exceeds "
           "K*(F-2)+1={parent} for F={f}, K={k}.",
           "EAGLE's parent list holds K x (F - 2) + 1 parents; Q - 1 must fit.",
           "Raise `--speculative-num-steps` or `--speculative-eagle-topk`, or lower `--speculative-num-draft-tokens`.",
           ["--speculative-algorithm UNO --uno-lora-path /models/uno-lora --speculative-eagle-topk 4 "
            "--speculative-num-draft-tokens 4 --speculative-num-steps 1"],
           [UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3 --attention-backend fa3"])
def _uno_parent(a):
    t = _uno_tree_sized(a)
    if t:
        q, f, k, steps = t
        parent = k * max(steps - 1, 0) + 1
        if q <= _uno_capacity(q, k, steps) and q - 1 > parent:
            return Hit("speculative_num_draft_tokens", "speculative_num_steps", "speculative_eagle_topk",
                       fmt={"q1": q - 1, "parent": parent, "f": f, "k": k})


def _uno_tree_valid(a) -> bool:
    t = _uno_tree_sized(a)
    if not t:
        return False
    q, f, k, steps = t
    return q <= _uno_capacity(q, k, steps) and q - 1 <= k * max(steps - 1, 0) + 1


UNO_TREE_OK = UNO_TREE + " --speculative-num-draft-tokens 4 --speculative-num-steps 3"


@_uno_rule("SGL445", "uno-tree-with-pdmux", 548, "UNO tree mode does not yet support PDMux.",
           "PD multiplexing is not implemented for UNO's tree mode.",
           "Drop `--enable-pdmux`, or use `--speculative-eagle-topk 1`.",
           [UNO_TREE_OK + " --enable-pdmux"], [UNO_TREE_OK + " --attention-backend fa3"])
def _uno_pdmux(a):
    if _uno_tree_valid(a) and a.is_true("enable_pdmux"):
        return Hit("enable_pdmux", "speculative_eagle_topk")


@_uno_rule("SGL446", "uno-tree-with-two-batch-overlap", 550, "UNO tree mode does not yet support two-batch overlap.",
           "Two-batch overlap is not implemented for UNO's tree mode.",
           "Drop `--enable-two-batch-overlap`, or use `--speculative-eagle-topk 1`.",
           [UNO_TREE_OK + " --enable-two-batch-overlap"], [UNO_TREE_OK + " --attention-backend fa3"])
def _uno_tbo(a):
    if _uno_tree_valid(a) and a.is_false("enable_pdmux") and a.is_true("enable_two_batch_overlap"):
        return Hit("enable_two_batch_overlap", "speculative_eagle_topk")


@_uno_rule("SGL447", "uno-tree-accept-thresholds", 556,
           "UNO tree mode reuses EAGLE target-only sampling and requires both speculative accept thresholds to be "
           "1.0.",
           "UNO's tree mode samples like EAGLE's target-only path, which ignores accept thresholds.",
           "Drop `--speculative-accept-threshold-single` / `--speculative-accept-threshold-acc` (keep 1.0).",
           [UNO_TREE_OK + " --speculative-accept-threshold-acc 0.5"], [UNO_TREE_OK + " --attention-backend fa3"])
def _uno_thresholds(a):
    if _uno_tree_valid(a) and a.is_false("enable_pdmux") and a.is_false("enable_two_batch_overlap"):
        for dest in ("speculative_accept_threshold_single", "speculative_accept_threshold_acc"):
            v = a.num(dest)
            if v is not None and v != 1.0:
                return Hit(dest, "speculative_eagle_topk")


@_uno_rule("SGL448", "uno-tp-pp", 579, "UNO requires TP=PP=1.",
           "UNO runs on a single GPU.",
           "Use `--tp-size 1 --pp-size 1`.",
           [UNO_OK + " --tp-size 2", UNO_OK + " --pp-size 2"], [UNO_OK])
def _uno_tp(a):
    if _uno(a) and (a.ne("tp_size", 1) or a.ne("pp_size", 1)):
        return Hit("tp_size" if a.ne("tp_size", 1) else "pp_size", "speculative_algorithm")


@_uno_rule("SGL449", "uno-with-lora-serving", 583, "UNO does not support public Multi-LoRA serving.",
           "UNO's own LoRA adapter is the drafter; serving other LoRA adapters is not supported with it.",
           "Drop `--enable-lora` / `--lora-paths`.",
           [UNO_OK + " --enable-lora"], [UNO_OK])
def _uno_lora(a):
    if _uno(a) and (a.is_true("enable_lora") or a.is_set("lora_paths")):
        return Hit("enable_lora", "lora_paths", "speculative_algorithm")


@_uno_rule("SGL450", "uno-with-rejection-sampling", 592,
           "UNO manages its own stochastic verification and does not use --speculative-use-rejection-sampling.",
           "UNO verifies drafts with its own stochastic procedure.",
           "Drop `--speculative-use-rejection-sampling`.",
           [UNO_OK + " --speculative-use-rejection-sampling"], [UNO_OK])
def _uno_rs(a):
    if _uno(a) and a.is_true("speculative_use_rejection_sampling"):
        return Hit("speculative_use_rejection_sampling", "speculative_algorithm")


@_uno_rule("SGL451", "uno-needs-fa3", 608,
           "UNO requires FA3 for both prefill and decode attention; got prefill={prefill!r}, decode={decode!r}.",
           "UNO's kernels are written against FlashAttention 3.",
           "Use `--attention-backend fa3` (or leave the backend to SGLang on Hopper).",
           [UNO_OK + " --attention-backend triton",
            UNO_OK + " --attention-backend fa3 --decode-attention-backend flashinfer"],
           [UNO_OK + " --attention-backend fa3"],
           notes="Only explicit backends are checked: the default backend depends on the GPU (and differs in UNO's "
                 "tree mode). An explicit fa3 with --kv-cache-dtype fp8_e5m2 falls back to triton.")
def _uno_fa3(a):
    if not _uno(a):
        return None
    pre, dec = attention_backends(a)
    if given(a, "attention_backend") == "fa3" and a.eq("kv_cache_dtype", "fp8_e5m2"):
        return None  # falls back to triton; not modelled
    if (pre is not None and pre != "fa3") or (dec is not None and dec != "fa3"):
        if pre is None or dec is None:
            return Hit("attention_backend", "prefill_attention_backend", "decode_attention_backend",
                       fmt={"prefill": pre or "<default>", "decode": dec or "<default>"},
                       note="<default> is the platform's default backend")
        return Hit("attention_backend", "prefill_attention_backend", "decode_attention_backend",
                   fmt={"prefill": pre, "decode": dec})


# -- auxiliary hidden-state capture (validation_hook.handle_aux_hidden_state_capture) ----------------

AUX = "--enable-return-aux-hidden-states"


def _aux(a) -> bool:
    return a.is_true("enable_return_aux_hidden_states")


def _aux_rule(code, name, line, upstream, why, fix, fire, quiet):
    return rule(code, name, source=f"{VH}:{line}", uid="spec-aux-hidden-states", upstream=upstream, why=why,
                fix=fix, fire=fire, quiet=quiet)


@_aux_rule("SGL452", "aux-layer-ids-without-capture", 707,
           "--return-aux-hidden-state-layer-ids requires --enable-return-aux-hidden-states.",
           "The layer ids select which hidden states the capture returns.",
           "Add `--enable-return-aux-hidden-states`, or drop `--return-aux-hidden-state-layer-ids`.",
           ["--return-aux-hidden-state-layer-ids 1 2"],
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids 1 2"])
def _aux_ids_alone(a):
    if a.is_false("enable_return_aux_hidden_states") and a.is_set("return_aux_hidden_state_layer_ids"):
        return Hit("return_aux_hidden_state_layer_ids")


@_aux_rule("SGL453", "aux-capture-convention", 714,
           "--enable-return-aux-hidden-states needs --speculative-algorithm EAGLE3, DFLASH or DSPARK to name the "
           "capture convention, got {speculative_algorithm!r}.",
           "With `--enable-return-aux-hidden-states` the speculative algorithm only names which hidden states to "
           "capture (speculation stays off); only EAGLE3, DFLASH and DSPARK define one.",
           "Add `--speculative-algorithm EAGLE3` (or DFLASH / DSPARK with layer ids).",
           [AUX, AUX + " --speculative-algorithm EAGLE"],
           [AUX + " --speculative-algorithm EAGLE3", AUX + " --speculative-algorithm eagle3"])
def _aux_method(a):
    raw = a.raw("speculative_algorithm")
    if _aux(a) and raw is not OPAQUE and (raw or "").upper() not in ("EAGLE3", "DFLASH", "DSPARK"):
        return Hit("speculative_algorithm", "enable_return_aux_hidden_states", fmt={"speculative_algorithm": raw})


@_aux_rule("SGL454", "aux-capture-with-draft-model", 720,
           "--enable-return-aux-hidden-states captures without a draft; drop --speculative-draft-model-path.",
           "Hidden-state capture runs the target alone; no draft model is loaded.",
           "Drop `--speculative-draft-model-path`.",
           [AUX + " --speculative-algorithm EAGLE3 " + DRAFT], [AUX + " --speculative-algorithm EAGLE3"])
def _aux_draft(a):
    if _aux(a) and a.is_set("speculative_draft_model_path"):
        return Hit("speculative_draft_model_path", "enable_return_aux_hidden_states")


@_aux_rule("SGL455", "aux-capture-pp", 725,
           "--enable-return-aux-hidden-states only supports pp_size == 1: the capture hooks only see the layers on "
           "the last pipeline rank.",
           "The capture hooks see only the last pipeline stage's layers.",
           "Use `--pp-size 1`.",
           [AUX + " --speculative-algorithm EAGLE3 --pp-size 2"], [AUX + " --speculative-algorithm EAGLE3"])
def _aux_pp(a):
    if _aux(a) and a.ne("pp_size", 1):
        return Hit("pp_size", "enable_return_aux_hidden_states")


@_aux_rule("SGL456", "aux-capture-needs-layer-ids", 731,
           "--enable-return-aux-hidden-states with {method} requires --return-aux-hidden-state-layer-ids.",
           "Only EAGLE3 has a default set of capture layers; DFLASH and DSPARK need them listed.",
           "Add `--return-aux-hidden-state-layer-ids`.",
           [AUX + " --speculative-algorithm DFLASH"],
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids 1 2"])
def _aux_ids(a):
    raw = a.raw("speculative_algorithm")
    method = raw.upper() if isinstance(raw, str) else None
    if _aux(a) and method in ("DFLASH", "DSPARK") and a.is_unset("return_aux_hidden_state_layer_ids"):
        return Hit("speculative_algorithm", "enable_return_aux_hidden_states", fmt={"method": method})


def _aux_layer_ids(a):
    ids = a.get("return_aux_hidden_state_layer_ids")
    if not _aux(a) or not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        return None
    return ids


@_aux_rule("SGL457", "aux-layer-ids-negative", 739,
           "--return-aux-hidden-state-layer-ids must be non-negative, got {layer_ids}.",
           "Layer ids index the target's layers from 0.",
           "Use non-negative layer ids.",
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids -1"],
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids 1 2"])
def _aux_negative(a):
    ids = _aux_layer_ids(a)
    if ids and any(i < 0 for i in ids):
        return Hit("return_aux_hidden_state_layer_ids", fmt={"layer_ids": list(ids)})


@_aux_rule("SGL458", "aux-layer-ids-repeated", 744,
           "--return-aux-hidden-state-layer-ids must not repeat a layer, got {layer_ids}.",
           "Each layer is captured once.",
           "List every layer id once.",
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids 1 1"],
           [AUX + " --speculative-algorithm DFLASH --return-aux-hidden-state-layer-ids 1 2"])
def _aux_repeat(a):
    ids = _aux_layer_ids(a)
    if ids and all(i >= 0 for i in ids) and len(set(ids)) != len(ids):
        return Hit("return_aux_hidden_state_layer_ids", fmt={"layer_ids": list(ids)})


# -- attention backend, LoRA, mixed chunk ----------------------------------------------------------------

@rule("SGL459", "spec-with-flex-attention", source="arg_groups/attention_hook.py:161", uid="spec-flex-attention",
      upstream="Speculative decoding is currently not supported with Flex Attention backend",
      why="The torch Flex Attention backend has no speculative verify path.",
      fix="Use another attention backend, or drop speculative decoding.",
      fire=["--attention-backend flex_attention --speculative-algorithm NGRAM"],
      quiet=["--attention-backend flex_attention",
             "--attention-backend flex_attention " + AUX + " --speculative-algorithm EAGLE3"])
def _flex(a):
    if _main_backend(a) == "flex_attention" and isinstance(_written(a), str):
        return Hit("attention_backend", "speculative_algorithm")


LORA_ALGOS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
LORA = "--enable-lora --max-lora-rank 8 --lora-target-modules q_proj"


@rule("SGL460", "lora-with-unsupported-speculation", source=LH + ":260", uid="lora-spec-algorithms",
      upstream="LoRA is only compatible with NGRAM, EAGLE, NEXTN, EAGLE3, DFLASH, or DSPARK speculative decoding, not "
               "{speculative_algorithm}{promoted}.",
      why="LoRA's segment layout assumes a uniform per-request token width during verification.",
      fix="Use NGRAM, EAGLE/NEXTN, EAGLE3, DFLASH or DSPARK, or drop LoRA.",
      fire=["--enable-lora --speculative-algorithm STANDALONE " + DRAFT,
            "--lora-paths a=/models/lora-a --speculative-algorithm STANDALONE " + DRAFT],
      quiet=[LORA + " " + EAGLE, LORA + " --speculative-algorithm NGRAM"],
      notes="EAGLE/NEXTN with a Gemma-4 assistant draft runs as FROZEN_KV_MTP, which SGLang rejects here too; "
            "pdlint cannot see the draft's architecture.")
def _lora_algo(a):
    algo = _algo(a)
    if _lora(a) and isinstance(algo, str) and algo not in ("NGRAM",) + LORA_ALGOS and algo != "UNO":
        return Hit("speculative_algorithm", "enable_lora", "lora_paths", fmt={"promoted": ""})


def _lora_spec(a) -> bool:
    algo = _algo(a)
    return _lora(a) and algo in LORA_ALGOS and not (algo == "EAGLE" and _gemma_draft(a))


def _adaptive_stays(a) -> bool:
    """--speculative-adaptive survives _maybe_disable_adaptive (CUDA's built-in worker assumed)."""
    return (a.is_true("speculative_adaptive") and _algo(a) in ("EAGLE", "EAGLE3")
            and a.among("speculative_eagle_topk", (None, 1)) and not a.attn_dp_enabled
            and a.is_false("enable_multi_layer_eagle") and a.is_false("enable_two_batch_overlap")
            and a.is_false("enable_pdmux"))


def _lora_spec_rule(code, name, reason, why, fix, fire, quiet, env=(), notes=""):
    return rule(code, name, source=LH + ":299", uid="lora-spec-algorithms",
                upstream="LoRA with EAGLE/NEXTN/EAGLE3 speculative decoding " + reason + ".",
                why=why, fix=fix, fire=fire, quiet=quiet, env=env, notes=notes)


@_lora_spec_rule("SGL461", "lora-spec-with-ragged-verify",
                 "does not support SGLANG_RAGGED_VERIFY_MODE={ragged_mode!r}: the per-request verify lengths it "
                 "schedules break the uniform-width LoRA segment layout",
                 "DSPARK's ragged verify modes give requests different verify lengths, which LoRA's segment layout "
                 "cannot express.",
                 "Unset `SGLANG_RAGGED_VERIFY_MODE` (or set it to `static`) on LoRA servers.",
                 [ex(LORA + " " + DS, {"SGLANG_RAGGED_VERIFY_MODE": "compact"})],
                 [ex(LORA + " " + DS, {"SGLANG_RAGGED_VERIFY_MODE": "static"})],
                 env=("SGLANG_RAGGED_VERIFY_MODE",))
def _lora_ragged(a):
    mode = a.env_value("SGLANG_RAGGED_VERIFY_MODE")
    if _lora_spec(a) and _algo(a) == "DSPARK" and mode is not None and mode != "static":
        return Hit("speculative_algorithm", "enable_lora", "lora_paths", fmt={"ragged_mode": mode},
                   note="SGLANG_RAGGED_VERIFY_MODE is set in this launch's environment")


@_lora_spec_rule("SGL462", "lora-spec-with-adaptive",
                 "does not support --speculative-adaptive: the draft is built from a static ServerArgs snapshot, "
                 "and the runtime-state swap does not rebuild LoRA cuda-graph metadata",
                 "Adaptive speculation swaps draft state at run time without rebuilding LoRA's CUDA-graph metadata.",
                 "Drop `--speculative-adaptive` on LoRA servers.",
                 ["--enable-lora " + EAGLE + " --speculative-adaptive"],
                 [LORA + " " + EAGLE + " " + PARAMS])
def _lora_adaptive(a):
    if _lora_spec(a) and _adaptive_stays(a):
        return Hit("speculative_adaptive", "enable_lora", "lora_paths")


@_lora_spec_rule("SGL463", "lora-spec-with-experimental-trtllm-runner",
                 "does not support the experimental_sgl_trtllm MoE runner: its TopK reads the LoRA config per "
                 "forward, which the draft resolves against the target's after its own publish ended",
                 "The experimental_sgl_trtllm MoE runner reads the LoRA config per forward, which breaks for the "
                 "draft.",
                 "Use another `--moe-runner-backend` on LoRA servers with speculation.",
                 ["--enable-lora " + EAGLE + " --moe-runner-backend experimental_sgl_trtllm"],
                 [LORA + " " + EAGLE])
def _lora_trtllm(a):
    if _lora_spec(a):
        for dest in ("moe_runner_backend", "speculative_moe_runner_backend"):
            if given(a, dest) == "experimental_sgl_trtllm":
                return Hit(dest, "enable_lora", "lora_paths")


@_lora_spec_rule("SGL464", "lora-spec-with-overlap-plan-stream",
                 "does not support SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1: LoRA batch preparation would run on the plan "
                 "stream, unordered against in-flight forwards",
                 "With the overlap plan stream, LoRA batch preparation would race in-flight forward passes.",
                 "Unset `SGLANG_ENABLE_OVERLAP_PLAN_STREAM` on LoRA servers with speculation.",
                 [ex(LORA + " " + EAGLE, {"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "1"})],
                 [ex(LORA + " " + EAGLE, {"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "0"})],
                 env=("SGLANG_ENABLE_OVERLAP_PLAN_STREAM",))
def _lora_plan_stream(a):
    if _lora_spec(a) and a.env_truthy("SGLANG_ENABLE_OVERLAP_PLAN_STREAM"):
        return Hit("speculative_algorithm", "enable_lora", "lora_paths",
                   note="SGLANG_ENABLE_OVERLAP_PLAN_STREAM is set in this launch's environment")


@rule("SGL465", "mixed-chunk-disabled-by-standalone", source=SP + ":1114", uid="mixed-chunk-disabled-by-spec",
      severity=WARNING,
      upstream="Mixed chunked prefill is disabled: {speculative_algorithm} speculative decoding does not support it.",
      why="STANDALONE speculation cannot resume mixed prefill/decode steps, so SGLang silently turns "
          "`--enable-mixed-chunk` off.",
      fix="Drop `--enable-mixed-chunk`, or use EAGLE/EAGLE3/DFLASH/DSPARK (which keep it).",
      fire=["--enable-mixed-chunk --speculative-algorithm STANDALONE " + DRAFT],
      quiet=["--enable-mixed-chunk " + EAGLE])
def _mixed_chunk(a):
    if a.is_true("enable_mixed_chunk") and _algo(a) == "STANDALONE":
        return Hit("enable_mixed_chunk", "speculative_algorithm", fmt={"speculative_algorithm": "STANDALONE"})


@rule("SGL466", "spec-num-steps-without-topk", source=SP + ":1274", uid="",
      upstream="",
      summary="Reports an EAGLE-family launch with --speculative-num-steps but no --speculative-eagle-topk, which "
              "SGLang's argument resolution crashes on with a TypeError.",
      why="With `--speculative-num-steps` set SGLang keeps the written top-k, and an unset top-k stays None; the "
          "later `speculative_eagle_topk > 1` comparison then raises `TypeError: '>' not supported between "
          "instances of 'NoneType' and 'int'` instead of a validation message. Not in the research catalogue: "
          "found while verifying the EAGLE parameter rules.",
      fix="Add `--speculative-eagle-topk` (and `--speculative-num-draft-tokens`), or drop `--speculative-num-steps` "
          "to let SGLang choose all three.",
      fire=[EAGLE + " --speculative-num-steps 3",
            EAGLE + " --speculative-num-steps 3 --speculative-num-draft-tokens 4"],
      quiet=[EAGLE + " " + PARAMS, EAGLE],
      notes="With rejection sampling SGLang fails earlier with SGL408's message. The unguarded comparison came with "
            "0.5.1; 0.4.9-0.5.0rc2 compare nothing, and 0.4.8.post1 (and older) compare only with --page-size > 1.")
def _steps_without_topk(a):
    if not at_least(a, "0.5.1") and (at_least(a, "0.4.9") or not a.gt("page_size", 1)):
        return None
    if (_eagle_family(a) and a.is_false("speculative_adaptive") and _fixed_params(a)
            and a.is_unset("speculative_eagle_topk") and not _rejection_sampling(a)):
        return Hit("speculative_num_steps", "speculative_algorithm", lead=True, note=(
            "--speculative-num-steps without --speculative-eagle-topk leaves the top-k unset, and SGLang crashes on "
            "it (TypeError: '>' not supported between instances of 'NoneType' and 'int'); set "
            "--speculative-eagle-topk too"))
