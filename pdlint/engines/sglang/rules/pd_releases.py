"""PD features some SGLang releases accept on the command line but cannot run
(SGL191-SGL199).

These releases raise no message at start-up: the server comes up and dies on
its first batch.  Which releases are affected is read from each release's
source by ``scripts/gen_sglang_values.py`` (``data/sglang-values.jsonl``), so
each rule applies exactly there (``valueset=``); the upstream message is the
crash users reported.
"""

from pdlint.engines.sglang.rulebase import Hit, ex, sgl_rule
from pdlint.engines.sglang.versions import value_set

CAT = "pd"


@sgl_rule(
    "SGL191", "pipeline-parallel-pd-prefill-unsupported", roles=("prefill",),
    valueset="pd_prefill_pipeline_parallel",
    upstream="'NoneType' object has no attribute 'tolist'",
    source="managers/scheduler.py:2581",
    why="These releases have pipeline parallelism (`--pp-size`), but the PD prefill server always runs the "
        "non-pipelined disaggregated prefill loop (`event_loop_normal_disagg_prefill`). A PP rank other than the "
        "last has no sampled tokens, so `process_batch_result_disagg_prefill` calls `.tolist()` on None and the "
        "prefill dies on its first batch (sgl-project/sglang#8424). SGLang 0.5.1 added "
        "`event_loop_pp_disagg_prefill`.",
    fix="Use `--pp-size 1` on the prefill server (scale it with `--tp-size`), or run SGLang 0.5.1 or newer.",
    fire=[ex("--disaggregation-mode prefill --pp-size 2", version="0.4.9.post6"),
          ex("--disaggregation-mode prefill --pp-size 4 --tp-size 2", version="0.5.0rc2")],
    quiet=[ex("--disaggregation-mode prefill --pp-size 2", version="0.5.1"),
           ex("--disaggregation-mode prefill --tp-size 2", version="0.4.9.post6"),
           ex("--pp-size 2", version="0.4.9.post6"),
           ex("--disaggregation-mode prefill --pp-size 2", version="0.5.23")],
    notes="The releases come from each wheel's `run_scheduler_process`: pipeline parallelism exists "
          "(`event_loop_pp`) and the PD prefill branch runs no pipeline-parallel loop (0.4.6.post2-0.5.0rc2). "
          "The crash is at the first request, after the model has loaded.")
def _pp_prefill(a):
    vs = value_set(a.version, "pd_prefill_pipeline_parallel")
    if vs is None or a.role != "prefill" or not a.gt("pp_size", 1):
        return None
    where = vs.get("crash") or vs["source"]
    return Hit("pp_size", "disaggregation_mode", lead=True, note=(
        f"SGLang {a.version} runs a PD prefill without its pipeline-parallel loop ({vs['source']}): a prefill "
        f"with --pp-size {a.get('pp_size')} dies on its first batch at {where}"))


@sgl_rule(
    "SGL192", "dflash-pd-decode-unsupported", roles=("decode",),
    valueset="pd_decode_dflash",
    upstream="'NoneType' object has no attribute 'prepare_for_decode'",
    source="speculative/spec_info.py:187",
    why="A PD decode server receives each request's KV from the prefill and must build the draft input of its "
        "speculative algorithm itself. In these releases the decode path builds one for EAGLE (and DSPARK) only; "
        "with DFLASH the batch has no draft input and the decode dies on its first batch "
        "(sgl-project/sglang#36140). SGLang 0.5.20 added the DFLASH branch.",
    fix="Use EAGLE/EAGLE3 (or DSPARK where supported) on the PD decode server, serve DFLASH without "
        "disaggregation, or run SGLang 0.5.20 or newer.",
    fire=[ex("--disaggregation-mode decode --speculative-algorithm DFLASH --speculative-draft-model-path /draft",
             version="0.5.16"),
          ex("--disaggregation-mode decode --speculative-algorithm dflash --speculative-draft-model-path /draft",
             version="0.5.19")],
    quiet=[ex("--disaggregation-mode decode --speculative-algorithm DFLASH --speculative-draft-model-path /draft",
              version="0.5.20"),
           ex("--disaggregation-mode decode --speculative-algorithm EAGLE", version="0.5.16"),
           ex("--disaggregation-mode prefill --speculative-algorithm DFLASH --speculative-draft-model-path /draft",
              version="0.5.16"),
           ex("--disaggregation-mode decode --speculative-algorithm EAGLE", version="0.5.23")],
    notes="The releases come from each wheel: `SpeculativeAlgorithm` has DFLASH and the PD decode's draft-input "
          "builder (`SpeculativeAlgorithm.build_disagg_draft_input`, earlier the decode schedule-batch mixin) has no "
          "DFLASH branch (0.5.11-0.5.19). The crash is at the first request, after the model has loaded.")
def _dflash_decode(a):
    vs = value_set(a.version, "pd_decode_dflash")
    if vs is None or a.role != "decode" or not a.eq("speculative_algorithm", "DFLASH"):
        return None
    return Hit("speculative_algorithm", "disaggregation_mode", lead=True, note=(
        f"SGLang {a.version}'s PD decode builds no DFLASH draft input ({vs['source']} handles "
        f"{', '.join(b[3:].upper() for b in vs.get('branches', ())) or 'no algorithm'} only): the decode dies on "
        "its first batch"))


@sgl_rule(
    "SGL193", "deepseek-v4-pd-with-pipeline-parallel", roles=("prefill", "decode"),
    upstream="V4 PD disaggregation requires pp_size=1, got pp_size={pp_size}.",
    source="arg_groups/deepseek_v4_hook.py:57",
    why="SGLang 0.5.12 lays DeepSeek-V4's KV out by buffer type, and `get_mla_kv_ptrs_with_pp` cannot slice those "
        "flat KV pointers by a pipeline stage's layer range, so the DeepSeek-V4 defaults hook refuses pipeline "
        "parallelism on any PD server (sgl-project/sglang#25765). Later releases transfer it per stage.",
    fix="Use `--pp-size 1` on PD servers of DeepSeek-V4 (scale with `--tp-size`), or upgrade SGLang.",
    fire=[ex("--disaggregation-mode prefill --model-path deepseek-ai/DeepSeek-V4-Flash --pp-size 2 --tp-size 4",
             version="0.5.12"),
          ex("--disaggregation-mode decode --model-path /models/DeepSeek-V4 --pp-size 2", version="0.5.12")],
    quiet=[ex("--disaggregation-mode prefill --model-path deepseek-ai/DeepSeek-V4-Flash --pp-size 2 --tp-size 4",
              version="0.5.13"),
           ex("--disaggregation-mode prefill --model-path deepseek-ai/DeepSeek-V3 --pp-size 2", version="0.5.12"),
           ex("--model-path deepseek-ai/DeepSeek-V4-Flash --pp-size 2", version="0.5.12"),
           ex("--disaggregation-mode prefill --pp-size 2", version="0.5.23")],
    notes="Model-dependent: SGLang checks the checkpoint's architecture (DeepseekV4ForCausalLM). pdlint infers it "
          "from the last component of `--model-path` (docs/models.md) and stays quiet for names it cannot place. "
          "The releases come from the message corpus (only 0.5.12 has the check).")
def _dsv4_pp(a):
    if a.role not in ("prefill", "decode") or not a.gt("pp_size", 1):
        return None
    from pdlint.engines.sglang.rules.pair import named_family
    fam, flag = named_family(a)
    if fam is None or "DeepseekV4ForCausalLM" not in fam.architectures:
        return None
    return Hit("pp_size", "disaggregation_mode",
               note=f"{flag} names {fam.name}, whose architecture SGLang checks here")
