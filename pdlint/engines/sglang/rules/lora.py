"""Role-independent LoRA checks (SGL701-SGL799): adapter initialisation, batch and
loaded-adapter limits, ``--lora-paths`` JSON items, the triton_v2 LoRA backend
and the LoRA MoE runners (``research/sglang-rules.md`` section 4.6).

SGLang runs these in ``check_server_args`` (``arg_groups/lora_hook.py``), after
resolution; ``--lora-paths`` alone turns LoRA on when ``--enable-lora`` is not
given, and ``--dllm-algorithm`` turns it off.
"""

import json
from typing import Optional

from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import Hit, ex, sgl_rule
from pdlint.engines.sglang.rules.parallel import attn_dp, dllm_off, moe_a2a, num

CAT = "lora"
LH = "arg_groups/lora_hook.py"
LORA = "--lora-paths a=/adapters/a"


def _rule(code, name, upstream, line, upstream_id, why, fix, fire, quiet, notes="", env=(), source=""):
    return sgl_rule(code, name, category=CAT, upstream=upstream, source=source or f"{LH}:{line}",
                    upstream_id=upstream_id, why=why, fix=fix, fire=fire, quiet=quiet, notes=notes, env=env)


def _paths(a) -> Optional[list]:
    """--lora-paths items ([] when unset); None when unknown."""
    v = a.get("lora_paths")
    if v is OPAQUE or (isinstance(v, list) and any(x is OPAQUE for x in v)):
        return None
    return list(v or [])


def lora_on(a) -> Optional[bool]:
    """LoRA serving: --enable-lora, or --lora-paths without it; --dllm-algorithm turns it off."""
    if not dllm_off(a):
        return False if a.is_set("dllm_algorithm") else None
    enable, paths = a.get("enable_lora"), _paths(a)
    if enable is OPAQUE:
        return None
    if enable is True:
        return True
    return None if paths is None else bool(paths)


def _modules(a) -> Optional[list]:
    v = a.get("lora_target_modules")
    return None if v is OPAQUE else list(v or [])


@_rule("SGL701", "lora-without-paths-rank-or-modules",
       "When no initial --lora-paths is provided, you need to specify both --max-lora-rank and --lora-target-modules "
       "for LoRA initialization.", 152, "lora-init-needs-rank-and-modules",
       "Without initial adapters SGLang cannot size the LoRA buffers: it needs the largest rank and the target "
       "modules of the adapters that will be loaded later.",
       "Pass `--lora-paths`, or both `--max-lora-rank` and `--lora-target-modules` (e.g. `all`).",
       ["--enable-lora", "--enable-lora --max-lora-rank 8", "--enable-lora --max-lora-rank 0 --lora-target-modules q_proj"],
       ["--enable-lora --max-lora-rank 8 --lora-target-modules q_proj", LORA + " --enable-lora"])
def _init(a):
    paths, mods = _paths(a), _modules(a)
    if lora_on(a) is not True or paths is None or mods is None or paths:
        return None
    rank = a.get("max_lora_rank")
    if rank is OPAQUE:
        return None
    if not (rank and mods):
        return Hit("enable_lora", "max_lora_rank", "lora_target_modules")


@_rule("SGL702", "lora-target-all-not-alone",
       "If 'all' is specified in --lora-target-modules, it should be the only module specified.", 147,
       "lora-target-all-exclusive", "`all` already selects every supported module.",
       "Use `--lora-target-modules all` alone, or list the modules explicitly.",
       ["--enable-lora --max-lora-rank 8 --lora-target-modules all q_proj"],
       ["--enable-lora --max-lora-rank 8 --lora-target-modules all",
        "--enable-lora --max-lora-rank 8 --lora-target-modules all all"],
       notes="Repeated names are merged first (`all all` passes).")
def _all_alone(a):
    mods = _modules(a)
    if lora_on(a) is True and mods and "all" in mods and len(set(mods)) != 1:
        return Hit("lora_target_modules")


@_rule("SGL703", "max-loras-per-batch-not-positive", "max_loras_per_batch must be positive", 36,
       "lora-batch-and-loaded-limits",
       "`--max-loras-per-batch` sizes the adapter slots of a batch; SGLang checks it even without LoRA.",
       "Use a positive `--max-loras-per-batch` (default 8).",
       ["--max-loras-per-batch 0"], ["--max-loras-per-batch 1"])
def _per_batch(a):
    if a.le("max_loras_per_batch", 0):
        return Hit("max_loras_per_batch")


@_rule("SGL704", "max-loaded-loras-below-per-batch",
       "max_loaded_loras should be greater than or equal to max_loras_per_batch. max_loaded_loras={max_loaded_loras}, "
       "max_loras_per_batch={max_loras_per_batch}", 158, "lora-batch-and-loaded-limits",
       "Every adapter of a batch must be loaded, so the loaded-adapter limit cannot be below the per-batch limit "
       "(default 8).",
       "Raise `--max-loaded-loras` to at least `--max-loras-per-batch`, or lower the latter.",
       [LORA + " --max-loaded-loras 4", LORA + " --max-loaded-loras 1 --max-loras-per-batch 2"],
       [LORA + " --max-loaded-loras 8", LORA + " --max-loaded-loras 2 --max-loras-per-batch 2"])
def _loaded_vs_batch(a):
    loaded, batch = num(a, "max_loaded_loras"), num(a, "max_loras_per_batch")
    if lora_on(a) is True and loaded is not None and batch is not None and loaded < batch:
        return Hit("max_loaded_loras", "max_loras_per_batch")


@_rule("SGL705", "lora-paths-exceed-max-loaded",
       "The number of LoRA paths should not exceed max_loaded_loras. max_loaded_loras={max_loaded_loras}, "
       "lora_paths={count}", 162, "lora-batch-and-loaded-limits",
       "Every adapter given with `--lora-paths` is loaded at start-up.",
       "Raise `--max-loaded-loras`, or pass fewer `--lora-paths` (load the rest on demand).",
       ["--lora-paths a=/x b=/y c=/z --max-loaded-loras 2 --max-loras-per-batch 1"],
       ["--lora-paths a=/x b=/y --max-loaded-loras 2 --max-loras-per-batch 1"])
def _paths_vs_loaded(a):
    loaded, paths = num(a, "max_loaded_loras"), _paths(a)
    if lora_on(a) is True and loaded is not None and paths is not None and len(paths) > loaded:
        return Hit("max_loaded_loras", "lora_paths", fmt={"count": len(paths)})


@_rule("SGL706", "lora-overlap-loading-limit",
       "Enabling LoRA overlap loading requires pinning LoRA adapter weights in CPU memory, so --max-loaded-loras must "
       "be less than or equal to double --max-loras-per-batch: {limit}", 64, "lora-batch-and-loaded-limits",
       "Overlap loading pins every loaded adapter in CPU memory, so their number must be bounded explicitly.",
       "Set `--max-loaded-loras` to at most twice `--max-loras-per-batch` (it must be given).",
       [LORA + " --enable-lora-overlap-loading", LORA + " --enable-lora-overlap-loading --max-loaded-loras 17"],
       [LORA + " --enable-lora-overlap-loading --max-loaded-loras 16"])
def _overlap(a):
    batch, loaded = num(a, "max_loras_per_batch"), a.get("max_loaded_loras")
    if lora_on(a) is not True or not a.is_true("enable_lora_overlap_loading") or batch is None or loaded is OPAQUE:
        return None
    if loaded is None or loaded > 2 * batch:
        return Hit("max_loaded_loras", "enable_lora_overlap_loading", "max_loras_per_batch",
                   fmt={"limit": 2 * batch})


@_rule("SGL707", "lora-drain-wait-threshold-negative", "--lora-drain-wait-threshold must be non-negative.", 176,
       "lora-misc-values", "The drain wait threshold is a duration.",
       "Use `--lora-drain-wait-threshold 0` (default) or a positive value.",
       [LORA + " --lora-drain-wait-threshold -1"],
       [LORA + " --lora-drain-wait-threshold 0.5", "--lora-drain-wait-threshold -1"],
       notes="Checked only when LoRA is enabled.")
def _drain(a):
    if lora_on(a) is True and a.lt("lora_drain_wait_threshold", 0):
        return Hit("lora_drain_wait_threshold")


def _json_items(a):
    """(index, text) of every --lora-paths item that SGLang parses as JSON ('{...}')."""
    paths = _paths(a) or []
    for i, p in enumerate(paths):
        if isinstance(p, str) and p.strip().startswith("{") and p.strip().endswith("}"):
            yield i, p.strip()


def _item_token(a, i):
    occ = a.parsed.occurrence("lora_paths")
    if occ is not None and i < len(occ.values):
        return occ.values[i]
    return "lora_paths"


@_rule("SGL708", "lora-paths-json-missing-keys",
       "{lora_path!r} looks like a JSON str, but it does not contain 'lora_name' and 'lora_path' keys.", 17,
       "lora-misc-values",
       "A `--lora-paths` item written as `{...}` is read as a JSON adapter spec with `lora_name`, `lora_path` (and "
       "optional `pinned`); the argument parser stops on anything else.",
       "Write `{\"lora_name\": \"NAME\", \"lora_path\": \"PATH\"}`, or the plain `NAME=PATH` form.",
       ['--lora-paths \'{"lora_name": "a"}\'', '--lora-paths \'{"name": "a", "path": "/x"}\''],
       ['--lora-paths \'{"lora_name": "a", "lora_path": "/x"}\''],
       source="arg_groups/argparse_actions.py:17",
       notes="Raised while parsing the command line, whether or not LoRA is enabled. The same requirement at "
             "lora_hook.py:96 is unreachable from the command line.")
def _json_keys(a):
    hits = []
    for i, text in _json_items(a):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not ("lora_path" in obj and "lora_name" in obj):
            hits.append(Hit(_item_token(a, i), fmt={"lora_path": text}))
    return hits


@_rule("SGL709", "lora-paths-json-invalid", "{error}", 16, "lora-misc-values",
       "A `--lora-paths` item that starts with `{` and ends with `}` is parsed as JSON; invalid JSON (often quotes "
       "lost to shell or YAML quoting) stops the argument parser with Python's JSONDecodeError.",
       "Quote the item so the JSON reaches SGLang intact (`'{\"lora_name\": \"a\", \"lora_path\": \"/x\"}'`), or use "
       "`NAME=PATH`.",
       ["--lora-paths '{lora_name: a, lora_path: /x}'"], ['--lora-paths \'{"lora_name": "a", "lora_path": "/x"}\''],
       source="arg_groups/argparse_actions.py:16",
       notes="The message is Python's json.JSONDecodeError text, e.g. \"Expecting property name enclosed in double "
             "quotes: line 1 column 2 (char 1)\".")
def _json_invalid(a):
    hits = []
    for i, text in _json_items(a):
        try:
            json.loads(text)
        except (ValueError, RecursionError) as e:
            hits.append(Hit(_item_token(a, i), fmt={"error": str(e)},
                            note=f"--lora-paths item {text!r} is not valid JSON"))
    return hits


# -- triton_v2 LoRA backend and LoRA MoE runners ------------------------------------------------------------

def _runner(a):
    """--moe-runner-backend as check_server_args sees it (--quantization mxfp8 replaces a lora_* runner)."""
    r = a.get("moe_runner_backend")
    if r is OPAQUE or not isinstance(r, str) or not a.not_among("quantization", ("mxfp8",)):
        return None
    return r


def _lora_runner(a) -> Optional[str]:
    r = _runner(a)
    return r if r is not None and r.startswith("lora") else None


V2 = "--lora-backend triton_v2"
RUNNER = "--moe-runner-backend lora_triton " + LORA + " " + V2


@_rule("SGL710", "lora-v2-unsupported-mode", "{option} does not yet support {mode}", 30, "lora-triton-v2-modes",
       "The triton_v2 LoRA backend (and the LoRA MoE runners built on it) do not support attention DP, "
       "PD-multiplexing, two-batch overlap or the SGLANG_EXPERIMENTAL_LORA_OPTI kernels yet.",
       "Use another `--lora-backend` (csgmv, triton), or drop the listed feature.",
       [LORA + " " + V2 + " --tp-size 2 --attn-dp-size 2", LORA + " " + V2 + " --enable-pdmux",
        LORA + " " + V2 + " --enable-two-batch-overlap --tp-size 2 --moe-a2a-backend deepep",
        ex(LORA + " " + V2, {"SGLANG_EXPERIMENTAL_LORA_OPTI": "1"}),
        RUNNER + " --tp-size 2 --attn-dp-size 2"],
       [LORA + " " + V2, LORA + " --tp-size 2 --attn-dp-size 2", RUNNER,
        ex(LORA + " " + V2, {"SGLANG_EXPERIMENTAL_LORA_OPTI": "0"})],
       env=("SGLANG_EXPERIMENTAL_LORA_OPTI",),
       notes="The ROCm arm of the same check is a platform check and is not reported.")
def _v2_modes(a):
    if lora_on(a) is not True or not a.eq("lora_backend", "triton_v2"):
        return None
    r = _runner(a)
    if r is None:
        return None
    option = f"--moe-runner-backend {r}" if r.startswith("lora") else "--lora-backend triton_v2"
    n = attn_dp(a)
    for bad, mode, blame in (
            (n is not None and n > 1, "DP-attention with --attn-dp-size > 1", "attn_dp_size"),
            (a.is_true("enable_pdmux"), "PD-multiplexing", "enable_pdmux"),
            (a.is_true("enable_two_batch_overlap"), "two-batch overlap", "enable_two_batch_overlap"),
            (a.env_truthy("SGLANG_EXPERIMENTAL_LORA_OPTI"), "SGLANG_EXPERIMENTAL_LORA_OPTI", None)):
        if bad:
            return Hit(*[b for b in (blame, "lora_backend", "moe_runner_backend") if b],
                       fmt={"option": option, "mode": mode},
                       note="SGLANG_EXPERIMENTAL_LORA_OPTI is set in this launch's environment" if blame is None
                       else "")


@_rule("SGL711", "lora-moe-runner-without-lora", "--moe-runner-backend {backend} requires --enable-lora (or --lora-paths)",
       201, "lora-moe-runner-constraints", "The LoRA MoE runners exist to apply adapters to MoE experts.",
       "Add `--enable-lora`/`--lora-paths`, or use a regular MoE runner.",
       ["--moe-runner-backend lora_triton", "--moe-runner-backend lora_marlin --max-lora-rank 8"],
       [RUNNER, "--moe-runner-backend lora_triton --quantization mxfp8"],
       notes="`--quantization mxfp8` replaces the runner (with a warning) before this check; a --dllm-algorithm "
             "launch has LoRA turned off.")
def _runner_no_lora(a):
    r = _lora_runner(a)
    if r is not None and lora_on(a) is False:
        return Hit("moe_runner_backend", fmt={"backend": r})


@_rule("SGL712", "lora-moe-runner-not-triton-v2", "--moe-runner-backend {backend} requires --lora-backend triton_v2",
       205, "lora-moe-runner-constraints", "The LoRA MoE runners use the triton_v2 LoRA batch layout.",
       "Add `--lora-backend triton_v2`.",
       ["--moe-runner-backend lora_triton " + LORA], [RUNNER])
def _runner_v2(a):
    r = _lora_runner(a)
    if r is not None and lora_on(a) is True and a.ne("lora_backend", "triton_v2"):
        return Hit("lora_backend", "moe_runner_backend", fmt={"backend": r})


@_rule("SGL713", "lora-moe-runner-quantization",
       "--moe-runner-backend {backend} supports unquantized BF16, 128-block FP8 and ModelOpt NVFP4 MoE, got "
       "--quantization {quantization}", 211, "lora-moe-runner-constraints",
       "The LoRA MoE runners attach adapters to BF16, block-FP8 or ModelOpt NVFP4 expert weights only.",
       "Use an unquantized, FP8 or ModelOpt NVFP4 checkpoint, or a regular MoE runner.",
       [RUNNER + " --quantization awq"], [RUNNER + " --quantization fp8", RUNNER + " --quantization unquant"],
       notes="Only --quantization as written matters here (`unquant` counts as none).")
def _runner_quant(a):
    r, q = _lora_runner(a), a.get("quantization")
    if r is not None and isinstance(q, str) and q not in ("fp8", "modelopt_fp4", "unquant"):
        return Hit("quantization", "moe_runner_backend", fmt={"backend": r})


@_rule("SGL714", "lora-moe-runner-nvfp4-not-marlin",
       "--moe-runner-backend {backend} cannot run ModelOpt NVFP4 MoE; use --moe-runner-backend lora_marlin", 216,
       "lora-moe-runner-constraints", "Only the Marlin LoRA MoE runner has NVFP4 expert kernels.",
       "Use `--moe-runner-backend lora_marlin` with `--quantization modelopt_fp4`.",
       [RUNNER + " --quantization modelopt_fp4"],
       [RUNNER.replace("lora_triton", "lora_marlin") + " --quantization modelopt_fp4"])
def _runner_nvfp4(a):
    r = _lora_runner(a)
    if r is not None and r != "lora_marlin" and a.eq("quantization", "modelopt_fp4"):
        return Hit("moe_runner_backend", "quantization", fmt={"backend": r})


@_rule("SGL715", "lora-moe-runner-with-a2a",
       "--moe-runner-backend {backend} requires Standard dispatch, got --moe-a2a-backend {moe_a2a_backend}", 221,
       "lora-moe-runner-constraints", "The LoRA MoE runners need every token's experts on the local rank "
       "(standard dispatch, no all-to-all).",
       "Use `--moe-a2a-backend none` with a LoRA MoE runner.",
       [RUNNER + " --moe-a2a-backend deepep --tp-size 2"], [RUNNER + " --tp-size 2 --ep-size 2"],
       notes="`--enable-waterfill` selects deepep by itself.")
def _runner_a2a(a):
    r, b = _lora_runner(a), moe_a2a(a)
    if r is not None and b is not None and b != "none":
        return Hit("moe_a2a_backend", "moe_runner_backend", fmt={"backend": r, "moe_a2a_backend": b})


@_rule("SGL716", "lora-moe-runner-with-elastic-ep", "--moe-runner-backend {backend} does not yet support elastic EP",
       226, "lora-moe-runner-constraints", "The LoRA MoE runners do not handle elastic EP rejoin/scale-up.",
       "Drop `--elastic-ep-join-mode` with a LoRA MoE runner.",
       [RUNNER + " --elastic-ep-join-mode recover --elastic-ep-backend nixl"], [RUNNER + " --elastic-ep-backend nixl"])
def _runner_elastic(a):
    r = _lora_runner(a)
    if r is not None and a.is_set("ep_join_mode"):
        return Hit("ep_join_mode", "moe_runner_backend", fmt={"backend": r})


@_rule("SGL717", "lora-moe-runner-nontrivial-placement",
       "--moe-runner-backend {backend} currently requires trivial expert placement without EPLB or redundant experts",
       234, "lora-moe-runner-constraints",
       "Adapter weights are attached per expert in the trivial layout; EPLB and redundant experts move or copy "
       "experts.",
       "Drop `--enable-eplb`, `--init-expert-location` and `--ep-num-redundant-experts` with a LoRA MoE runner.",
       [RUNNER + " --enable-eplb --tp-size 2 --ep-size 2", RUNNER + " --ep-num-redundant-experts 1",
        RUNNER + " --init-expert-location /tmp/loc.json"],
       [RUNNER + " --init-expert-location trivial"])
def _runner_placement(a):
    r = _lora_runner(a)
    if r is None:
        return None
    if a.is_true("enable_eplb"):
        return Hit("enable_eplb", "moe_runner_backend", fmt={"backend": r})
    if a.ne("init_expert_location", "trivial") and a.known("init_expert_location"):
        return Hit("init_expert_location", "moe_runner_backend", fmt={"backend": r})
    if a.gt("ep_num_redundant_experts", 0):
        return Hit("ep_num_redundant_experts", "moe_runner_backend", fmt={"backend": r})


@_rule("SGL718", "lora-moe-runner-for-draft",
       "--speculative-moe-runner-backend {speculative_moe_runner_backend} is not supported: the LoRA MoE runner serves "
       "adapter traffic on the target model", 192, "lora-moe-runner-constraints",
       "Draft models carry no LoRA adapters, so a LoRA MoE runner has nothing to serve there.",
       "Drop `--speculative-moe-runner-backend lora_*` (the draft defaults to a regular runner).",
       ["--speculative-moe-runner-backend lora_triton --speculative-algorithm NGRAM"],
       ["--speculative-moe-runner-backend triton --speculative-algorithm NGRAM",
        "--speculative-moe-runner-backend lora_triton"],
       notes="Only with speculative decoding on; `--enable-return-aux-hidden-states` turns the algorithm off first.")
def _draft_runner(a):
    r = a.get("speculative_moe_runner_backend")
    if (isinstance(r, str) and r.startswith("lora") and a.is_set("speculative_algorithm")
            and a.is_false("enable_return_aux_hidden_states")):
        return Hit("speculative_moe_runner_backend")
