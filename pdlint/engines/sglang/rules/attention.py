"""Role-independent SGLang checks on attention, linear-attention kernels and
CUDA graphs (SGL501-SGL599, ``research/sglang-rules.md`` section 4.4).

Each predicate mirrors the condition in SGLang 0.5.23's hook named in
``source``.  Backends SGLang picks itself (the attention backend from the
model and GPU, the linear-attention decode backend on SM100 with bf16 SSM
state) are never guessed: a rule fires only when the values it needs are
written on the command line, or when the check does not depend on them.
"""

from pdlint.engines.sglang.rulebase import WARNING, Hit, attention_backend, ex, given, sgl_rule

CAT = "attention"
DETERMINISTIC_BACKENDS = ("ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton")
CUDA_GRAPH_BACKENDS = ("full", "breakable", "disabled")


def _pipeline(a) -> bool:
    """SGLang runs its resolution hooks past the platform checks (``--model-path dummy``/``none`` returns
    before them; ``check_server_args`` still runs)."""
    path = a.get("model_path")
    return isinstance(path, str) and path.lower() not in ("none", "dummy")


def _linear_decode(a):
    """The linear-attention decode backend ``handle_linear_attn_backend`` settles on, or None when pdlint
    cannot know it: SM100 GPUs default an unset ``--linear-attn-decode-backend`` to flashinfer when
    ``--mamba-ssm-dtype bfloat16`` (unless the base backend is helion), and an explicit flashkda is
    rejected before any other linear-attention check (SGL501)."""
    if not (a.known("linear_attn_decode_backend") and a.known("linear_attn_backend")):
        return None
    dec, base = a.get("linear_attn_decode_backend"), a.get("linear_attn_backend")
    if dec is not None:
        return None if dec == "flashkda" else dec
    if base != "helion" and (a.eq("mamba_ssm_dtype", "bfloat16") or not a.known("mamba_ssm_dtype")):
        return None
    return "triton" if base == "flashkda" else base  # FlashKDA is prefill-only: decode falls back to triton


def _linear_decode_blame(a) -> str:
    return "linear_attn_decode_backend" if a.explicit("linear_attn_decode_backend") else "linear_attn_backend"


# -- linear attention (attention_hook.handle_linear_attn_backend) -------------------------------------

@sgl_rule(
    "SGL501", "linear-decode-backend-flashkda", category=CAT,
    upstream="--linear-attn-decode-backend flashkda is not supported: FlashKDA is prefill-only. Use "
             "--linear-attn-prefill-backend flashkda (decode stays on triton).",
    source="arg_groups/attention_hook.py:319", upstream_id="linear-decode-not-flashkda",
    why="FlashKDA has no decode kernel. SGLang checks this for every model, linear-attention or not; "
        "`--linear-attn-backend flashkda` is fine (decode falls back to triton), an explicit decode backend "
        "is not.",
    fix="Use `--linear-attn-prefill-backend flashkda` (or `--linear-attn-backend flashkda`) and leave the decode "
        "backend on triton.",
    fire=["--linear-attn-decode-backend flashkda"],
    quiet=["--linear-attn-backend flashkda", "--linear-attn-prefill-backend flashkda"])
def _flashkda_decode(a):
    if _pipeline(a) and a.eq("linear_attn_decode_backend", "flashkda"):
        return Hit("linear_attn_decode_backend")


@sgl_rule(
    "SGL502", "linear-replayssm-decode-backend", category=CAT,
    upstream="--enable-linear-replayssm requires Triton, or Helion for KDA, as the linear-attn decode backend; "
             "got --linear-attn-decode-backend={decode!r}.",
    source="arg_groups/attention_hook.py:411", upstream_id="linear-replayssm-exclusive",
    why="The ReplaySSM buffered decode ring is implemented in the Triton (and, for KDA, Helion) decode kernels "
        "only. The decode backend is `--linear-attn-decode-backend`, else `--linear-attn-backend`.",
    fix="Use `--linear-attn-decode-backend triton` (or helion for KDA models) with `--enable-linear-replayssm`, "
        "or drop the flag.",
    fire=["--enable-linear-replayssm --linear-attn-backend cutedsl",
          "--enable-linear-replayssm --linear-attn-decode-backend flashinfer"],
    quiet=["--enable-linear-replayssm", "--enable-linear-replayssm --linear-attn-backend helion"],
    notes="Not reported when the decode backend is unset and `--mamba-ssm-dtype bfloat16` is given: on SM100 "
          "GPUs SGLang then picks flashinfer itself.")
def _replayssm_decode(a):
    if not (_pipeline(a) and a.is_true("enable_linear_replayssm")):
        return None
    dec = _linear_decode(a)
    if dec is not None and dec not in ("triton", "helion"):
        return Hit(_linear_decode_blame(a), "enable_linear_replayssm", fmt={"decode": dec})


@sgl_rule(
    "SGL503", "linear-replayssm-cache-len", category=CAT,
    upstream="--linear-replayssm-cache-len must be >= 1, got {linear_replayssm_cache_len}.",
    source="arg_groups/attention_hook.py:435", upstream_id="linear-replayssm-exclusive",
    why="The ReplaySSM ring needs at least one slot.",
    fix="Give `--linear-replayssm-cache-len` a positive value (default 16).",
    fire=["--enable-linear-replayssm --linear-replayssm-cache-len 0"],
    quiet=["--enable-linear-replayssm --linear-replayssm-cache-len 8", "--linear-replayssm-cache-len 0"])
def _replayssm_cache_len(a):
    if _pipeline(a) and a.is_true("enable_linear_replayssm") and a.lt("linear_replayssm_cache_len", 1):
        return Hit("linear_replayssm_cache_len", "enable_linear_replayssm")


@sgl_rule(
    "SGL504", "linear-replayssm-spec-tree-topk", category=CAT,
    upstream="--enable-linear-replayssm-spec requires a linear draft chain (--speculative-eagle-topk in {None, 1}); "
             "the chunked verify kernel uses a strictly-lower causal mask and is invalid for EAGLE tree verify. "
             "Got --speculative-eagle-topk={speculative_eagle_topk!r}.",
    source="arg_groups/attention_hook.py:452", upstream_id="linear-replayssm-exclusive",
    why="ReplaySSM spec-verify replays a linear draft chain (NEXTN/MTP); EAGLE tree verification "
        "(`--speculative-eagle-topk` > 1) needs the recurrent verify path.",
    fix="Use `--speculative-eagle-topk 1` with `--enable-linear-replayssm-spec`, or drop the flag.",
    fire=["--enable-linear-replayssm-spec --speculative-eagle-topk 4"],
    quiet=["--enable-linear-replayssm-spec --speculative-eagle-topk 1", "--speculative-eagle-topk 4"],
    notes="Only an explicit `--speculative-eagle-topk` is checked: SGLang picks the default later.")
def _replayssm_spec_topk(a):
    if (_pipeline(a) and a.is_true("enable_linear_replayssm_spec") and a.explicit("speculative_eagle_topk")
            and a.is_set("speculative_eagle_topk") and a.ne("speculative_eagle_topk", 1)):
        return Hit("speculative_eagle_topk", "enable_linear_replayssm_spec")


@sgl_rule(
    "SGL505", "linear-replayssm-spec-decode-backend", category=CAT,
    upstream="--enable-linear-replayssm-spec requires the triton or flashinfer linear-attn decode backend, got "
             "--linear-attn-decode-backend={decode!r}.",
    source="arg_groups/attention_hook.py:460", upstream_id="linear-replayssm-exclusive",
    why="ReplaySSM spec-verify writes its ring from the triton and flashinfer linear-attention decode kernels "
        "only. The decode backend is `--linear-attn-decode-backend`, else `--linear-attn-backend`.",
    fix="Use `--linear-attn-decode-backend triton` or `flashinfer` with `--enable-linear-replayssm-spec`.",
    fire=["--enable-linear-replayssm-spec --linear-attn-decode-backend cutedsl",
          "--enable-linear-replayssm-spec --linear-attn-backend helion"],
    quiet=["--enable-linear-replayssm-spec --linear-attn-decode-backend flashinfer",
           "--enable-linear-replayssm-spec --linear-attn-backend cutedsl --linear-attn-decode-backend triton"],
    notes="Not reported when the decode backend is unset and `--mamba-ssm-dtype bfloat16` is given: on SM100 "
          "GPUs SGLang then picks flashinfer itself.")
def _replayssm_spec_decode(a):
    if not (_pipeline(a) and a.is_true("enable_linear_replayssm_spec")):
        return None
    dec = _linear_decode(a)
    if dec is not None and dec not in ("triton", "flashinfer"):
        return Hit(_linear_decode_blame(a), "enable_linear_replayssm_spec", fmt={"decode": dec})


RAGGED_MODES = ("static", "cap-accept", "compact")


@sgl_rule(
    "SGL506", "linear-replayssm-spec-ragged-verify", category=CAT,
    upstream="--enable-linear-replayssm-spec with SGLANG_RAGGED_VERIFY_MODE={mode} requires the KDA "
             "fold-every-commit family (DSPARK/DFLASH) and a ring-writing verify kernel "
             "(--linear-attn-verify-backend triton or nv_cutedsl); got algorithm={algorithm!r}, verify={verify!r}. "
             "Use SGLANG_RAGGED_VERIFY_MODE=static.",
    source="arg_groups/attention_hook.py:484", upstream_id="linear-replayssm-exclusive",
    why="Ragged verify layouts (env `SGLANG_RAGGED_VERIFY_MODE` other than static) are only ring-written by the "
        "KDA DSPARK/DFLASH verify kernels; with any other speculative algorithm or verify backend ReplaySSM would "
        "fold a stale ring.",
    fix="Unset `SGLANG_RAGGED_VERIFY_MODE` (static), or use DSPARK/DFLASH with `--linear-attn-verify-backend "
        "triton` or `nv_cutedsl`.",
    fire=[ex("--enable-linear-replayssm-spec", {"SGLANG_RAGGED_VERIFY_MODE": "compact"})],
    quiet=[ex("--enable-linear-replayssm-spec", {"SGLANG_RAGGED_VERIFY_MODE": "static"}),
           ex("--linear-attn-backend triton", {"SGLANG_RAGGED_VERIFY_MODE": "compact"})],
    env=("SGLANG_RAGGED_VERIFY_MODE",),
    notes="With DSPARK/DFLASH and no explicit `--linear-attn-verify-backend`, some models (GLM-5 Next, Kimi K3) "
          "choose nv_cutedsl themselves, so that case is not reported.")
def _replayssm_spec_ragged(a):
    mode = a.env_value("SGLANG_RAGGED_VERIFY_MODE")
    if not (_pipeline(a) and a.is_true("enable_linear_replayssm_spec") and mode in RAGGED_MODES[1:]):
        return None
    if not (a.known("speculative_algorithm") and a.known("linear_attn_verify_backend")
            and a.known("enable_return_aux_hidden_states")):
        return None
    # SGLang reads the algorithm as written (not yet upper-cased); aux hidden-state capture resets it to None
    algo = None if a.is_true("enable_return_aux_hidden_states") else a.raw("speculative_algorithm")
    verify = a.get("linear_attn_verify_backend")
    if (algo or "").upper() not in ("DSPARK", "DFLASH"):
        return Hit("enable_linear_replayssm_spec", fmt={"mode": mode, "algorithm": algo, "verify": verify},
                   note=f"SGLANG_RAGGED_VERIFY_MODE={mode} is set in this launch's environment")
    if verify is not None and verify not in ("triton", "nv_cutedsl"):
        return Hit("linear_attn_verify_backend", "enable_linear_replayssm_spec",
                   fmt={"mode": mode, "algorithm": algo, "verify": verify},
                   note=f"SGLANG_RAGGED_VERIFY_MODE={mode} is set in this launch's environment")


@sgl_rule(
    "SGL507", "linear-replayssm-spec-and-replayssm", category=CAT,
    upstream="--enable-linear-replayssm-spec and --enable-linear-replayssm are mutually exclusive: they share the "
             "ring storage but drive it with incompatible cursor protocols (per-decode-forward vs "
             "per-verify-commit advance).",
    source="arg_groups/attention_hook.py:500", upstream_id="linear-replayssm-exclusive",
    why="Both features use the same ReplaySSM ring, advanced per decode forward by one and per verify commit by "
        "the other.",
    fix="Keep one: `--enable-linear-replayssm-spec` for speculative decoding, `--enable-linear-replayssm` "
        "otherwise.",
    fire=["--enable-linear-replayssm --enable-linear-replayssm-spec"],
    quiet=["--enable-linear-replayssm-spec", "--enable-linear-replayssm"])
def _replayssm_both(a):
    if _pipeline(a) and a.is_true("enable_linear_replayssm_spec") and a.is_true("enable_linear_replayssm"):
        return Hit("enable_linear_replayssm_spec", "enable_linear_replayssm")


# -- attention backends ---------------------------------------------------------------------------------

@sgl_rule(
    "SGL508", "multi-item-scoring-needs-flashinfer", category=CAT,
    upstream="Multi-item scoring requires flashinfer attention backend for custom attention mask support. Please "
             "set --attention-backend flashinfer when using --enable-mis. Current backends: "
             "prefill={prefill_backend}, decode={decode_backend}",
    source="arg_groups/attention_hook.py:573", upstream_id="mis-needs-flashinfer",
    why="Multi-item scoring builds a custom attention mask that only the flashinfer kernels accept, for both "
        "the prefill and the decode backend (`--prefill-attention-backend`/`--decode-attention-backend` fall "
        "back to `--attention-backend`).",
    fix="Add `--attention-backend flashinfer` (and no other prefill/decode backend) to servers with "
        "`--enable-mis`.",
    fire=["--enable-mis --attention-backend triton",
          "--enable-mis --attention-backend flashinfer --prefill-attention-backend triton"],
    quiet=["--enable-mis --attention-backend flashinfer",
           "--enable-mis --prefill-attention-backend flashinfer --decode-attention-backend flashinfer"],
    notes="Without an explicit backend SGLang picks one from the model and GPU (fa3 on Hopper, trtllm_mha on "
          "Blackwell, flashinfer on some others); pdlint only judges backends written on the command line.")
def _mis_flashinfer(a):
    if not (_pipeline(a) and a.is_true("enable_mis")):
        return None
    base = attention_backend(a, "attention_backend")
    prefill = attention_backend(a, "prefill_attention_backend") or base
    decode = attention_backend(a, "decode_attention_backend") or base
    bad = [(d, v) for d, v in (("prefill_attention_backend", prefill), ("decode_attention_backend", decode))
           if v is not None and v != "flashinfer"]
    if not bad:
        return None
    blame = [d if attention_backend(a, d) else "attention_backend" for d, _ in bad]
    note = "" if prefill and decode else "the other backend is the one SGLang picks for the model and GPU"
    return Hit(*blame, "enable_mis", fmt={"prefill_backend": prefill or "<auto>", "decode_backend": decode or "<auto>"},
               note=note)


@sgl_rule(
    "SGL509", "deterministic-inference-attention-backend", category=CAT,
    upstream="Currently only {choices} attention backends are supported for deterministic inference, but you "
             "explicitly specified '{attention_backend}'.",
    source="arg_groups/overrides.py:1119", upstream_id="deterministic-backend",
    why="Deterministic inference (`--enable-deterministic-inference`, also turned on by `--rl-on-policy-target`) "
        "needs batch-invariant attention kernels, which only a few backends provide.",
    fix="Use `--attention-backend` fa3, fa4, flashinfer or triton (or leave it unset) with deterministic "
        "inference.",
    fire=["--enable-deterministic-inference --attention-backend torch_native",
          "--rl-on-policy-target fsdp --attention-backend flex_attention"],
    quiet=["--enable-deterministic-inference --attention-backend triton", "--enable-deterministic-inference",
           "--attention-backend torch_native"])
def _deterministic_backend(a):
    if not _pipeline(a):
        return None
    if not (a.is_true("enable_deterministic_inference") or a.is_set("rl_on_policy_target")):
        return None
    backend = attention_backend(a, "attention_backend")
    if backend is not None and backend not in DETERMINISTIC_BACKENDS:
        trigger = "enable_deterministic_inference" if a.is_true("enable_deterministic_inference") \
            else "rl_on_policy_target"
        return Hit("attention_backend", trigger,
                   fmt={"choices": str(list(DETERMINISTIC_BACKENDS)), "attention_backend": backend})


# -- CUDA graphs ------------------------------------------------------------------------------------------

def _graph_json(a) -> dict:
    v = a.get("cuda_graph_config")
    return v if isinstance(v, dict) else {}


@sgl_rule(
    "SGL510", "cuda-graph-phase-backend", category=CAT,
    upstream="--cuda-graph-config[{phase}].backend={backend!r} not allowed; allowed: {allowed}",
    source="arg_groups/cuda_graph_hook.py:417", upstream_id="cuda-graph-phase-backend",
    why="Each phase of `--cuda-graph-config` takes a capture backend of full, breakable or disabled; the JSON is "
        "not checked against that list until resolution.",
    fix="Use \"full\", \"breakable\" or \"disabled\" as the phase's backend (or the "
        "`--cuda-graph-backend-decode`/`--cuda-graph-backend-prefill` flags, which argparse checks).",
    fire=["--cuda-graph-config '{\"decode\": {\"backend\": \"piecewise\"}}'"],
    quiet=["--cuda-graph-config '{\"prefill\": {\"backend\": \"full\"}}'"])
def _graph_phase_backend(a):
    if not _pipeline(a):
        return None
    for phase in ("decode", "prefill"):
        settings = _graph_json(a).get(phase)
        if not isinstance(settings, dict) or "backend" not in settings:
            continue
        backend = settings["backend"]
        if backend not in CUDA_GRAPH_BACKENDS and backend != "tc_piecewise":  # tc_piecewise: argparse rejects it
            return Hit("cuda_graph_config", fmt={"phase": phase, "backend": backend,
                                                 "allowed": str(CUDA_GRAPH_BACKENDS)})


@sgl_rule(
    "SGL511", "cuda-graph-prefill-max-context-not-positive", category=CAT,
    upstream="--cuda-graph-prefill-max-context must be a positive integer",
    source="arg_groups/cuda_graph_hook.py:427", upstream_id="cuda-graph-prefill-max-context-positive",
    why="The prefill CUDA graph's fixed context size (`--cuda-graph-prefill-max-context`, alias "
        "`--context-bucket`, or `max_context_size` in the prefill phase of `--cuda-graph-config`) must be "
        "positive.",
    fix="Give a positive size, or leave it unset.",
    fire=["--cuda-graph-prefill-max-context 0",
          "--cuda-graph-config '{\"prefill\": {\"max_context_size\": -1}}'"],
    quiet=["--cuda-graph-prefill-max-context 1024"],
    notes="The companion check (the page-aligned size must not exceed the model's context length) needs the "
          "model config and is not reported.")
def _graph_max_context(a):
    if not _pipeline(a):
        return None
    prefill = _graph_json(a).get("prefill")
    if isinstance(prefill, dict) and "max_context_size" in prefill:
        size, blame = prefill["max_context_size"], "cuda_graph_config"
    elif a.explicit("cuda_graph_prefill_max_context"):
        size, blame = a.num("cuda_graph_prefill_max_context"), "cuda_graph_prefill_max_context"
    else:
        return None
    if isinstance(size, (int, float)) and not isinstance(size, bool) and size <= 0:
        return Hit(blame)


@sgl_rule(
    "SGL512", "cuda-graph-padding-with-torch-compile", category=CAT,
    upstream="--disable-cuda-graph-padding is incompatible with --enable-torch-compile. With padding disabled, "
             "every distinct batch size gets its own torch.compile + Triton autotune cycle (O(max_batch_size) "
             "compilations) instead of the small fixed set of padded bucket sizes, causing engine initialisation "
             "to stall for many minutes. Remove --disable-cuda-graph-padding or --enable-torch-compile.",
    source="arg_groups/validation_hook.py:188", upstream_id="cuda-graph-padding-vs-torch-compile",
    why="Without CUDA-graph padding every batch size is compiled separately by torch.compile.",
    fix="Drop `--disable-cuda-graph-padding` or `--enable-torch-compile`.",
    fire=["--disable-cuda-graph-padding --enable-torch-compile"],
    quiet=["--disable-cuda-graph-padding", "--enable-torch-compile"])
def _padding_torch_compile(a):
    if a.is_true("disable_cuda_graph_padding") and a.is_true("enable_torch_compile"):
        return Hit("disable_cuda_graph_padding", "enable_torch_compile")


@sgl_rule(
    "SGL513", "megamoe-layernorm-sp-without-layernorm-sp", category=CAT,
    upstream="--enable-megamoe-for-layernorm-sp requires --enable-layernorm-sp.",
    source="arg_groups/layernorm_sp_hook.py:25", upstream_id="layernorm-sp-megamoe-needs-sp",
    why="MegaMoE for LayerNorm sequence parallelism is an option of LayerNorm SP itself.",
    fix="Add `--enable-layernorm-sp` (supported models only) or drop `--enable-megamoe-for-layernorm-sp`.",
    fire=["--enable-megamoe-for-layernorm-sp"],
    quiet=["--tp-size 2"],
    notes="`--enable-layernorm-sp` itself is accepted only for a few architectures (checked against the model "
          "config, not reported).")
def _megamoe_layernorm_sp(a):
    if _pipeline(a) and a.is_true("enable_megamoe_for_layernorm_sp") and a.is_false("enable_layernorm_sp"):
        return Hit("enable_megamoe_for_layernorm_sp")


@sgl_rule(
    "SGL514", "cutedsl-mla-prefill-backend", category=CAT,
    upstream="CuteDSL MLA only supports decoding for now",
    source="arg_groups/overrides.py:1241", upstream_id="cutedsl-mla-decode-only",
    why="The CuteDSL MLA kernels implement decode attention only; SGLang asserts that the prefill attention "
        "backend is something else. The deprecated alias `tokenspeed_mla` is different: SGLang renames it to "
        "`trtllm_mla` for prefill, so only a literal `cutedsl_mla` fails. In a PD deployment this is the flag "
        "that is easy to copy from the decode server's command line into the prefill server's.",
    fix="Set `--prefill-attention-backend trtllm_mla` (what SGLang picks when CuteDSL MLA decodes) or leave it "
        "unset; keep `cutedsl_mla` for `--decode-attention-backend`.",
    fire=["--prefill-attention-backend cutedsl_mla",
          "--disaggregation-mode prefill --prefill-attention-backend cutedsl_mla"],
    quiet=["--prefill-attention-backend trtllm_mla",
           "--disaggregation-mode prefill --prefill-attention-backend tokenspeed_mla",
           "--prefill-attention-backend flashinfer --decode-attention-backend flashinfer"],
    notes="The remaining CuteDSL MLA checks of the same hook (Blackwell GPUs only, KV-cache dtype) depend on the "
          "GPU and are not reported.")
def _cutedsl_mla_prefill(a):
    if _pipeline(a) and given(a, "prefill_attention_backend") == "cutedsl_mla":
        return Hit("prefill_attention_backend")


@sgl_rule(
    "SGL515", "trtllm-mla-off-blackwell", category=CAT, severity=WARNING,
    unseen="the GPU: SGLang accepts the TRTLLM MLA backend on Blackwell (SM100/SM12x) only",
    upstream="TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different "
             "backend.",
    source="arg_groups/overrides.py:1211", upstream_id="trtllm-mla-blackwell-only",
    summary="Reports `--attention-backend trtllm_mla` or `--decode-attention-backend trtllm_mla`: SGLang refuses "
            "it unless the server runs on a Blackwell GPU (SM100/SM12x), which pdlint cannot see.",
    why="The TensorRT-LLM MLA kernels exist for Blackwell only. SGLang checks the GPU it starts on and stops with "
        "this message on Hopper (H100/H200), Ampere and every other platform, so the same command line starts "
        "on a B200/GB200 node and fails on an H200 one. In a PD deployment it is typically copied from a "
        "Blackwell recipe onto servers scheduled elsewhere.",
    fix="Run the server on Blackwell (SM100/SM12x) nodes only (a node selector), or use an MLA backend of the "
        "target GPU (`flashmla` or `fa3` on Hopper, `triton` anywhere).",
    fire=["--attention-backend trtllm_mla",
          "--disaggregation-mode decode --decode-attention-backend trtllm_mla",
          "--model-path @TINY_MOE@ --disaggregation-mode prefill --attention-backend trtllm_mla"],
    quiet=["--attention-backend fa3", "--attention-backend flashmla",
           "--disaggregation-mode prefill --prefill-attention-backend trtllm_mla"],
    notes="A warning: pdlint does not know the GPU. Only `--attention-backend` and `--decode-attention-backend` "
          "are checked by SGLang (a prefill-only `--prefill-attention-backend trtllm_mla` is not), and a backend "
          "SGLang picks itself (trtllm_mla is the default for DeepSeek models on Blackwell) is never refused. On "
          "Blackwell the same check also requires `--kv-cache-dtype` fp8_e4m3, bf16 or auto. Field test rw23/b "
          "(differential test against SGLang 0.5.23, emulated H200): four `--attention-backend trtllm_mla` "
          "variants refused by the oracle with no pdlint finding.")
def _trtllm_mla_blackwell(a):
    if not _pipeline(a):
        return None
    for dest in ("attention_backend", "decode_attention_backend"):
        if given(a, dest) == "trtllm_mla":
            return Hit(dest, lead=True, note="the server starts only on a Blackwell GPU (SM100/SM12x), which "
                                             "pdlint cannot see: on Hopper (H100/H200) or older GPUs SGLang refuses "
                                             "it")
