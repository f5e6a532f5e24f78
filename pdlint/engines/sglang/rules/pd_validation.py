"""Role-dependent checks of SGLang's validation hook and ``check_server_args``
(``arg_groups/validation_hook.py``), plus the DWDP and linear-attention hooks
(``arg_groups/parallel_hook.py``, ``arg_groups/attention_hook.py``):
SGL154-SGL159 and SGL162.
"""

from pdlint.engines.sglang.rulebase import WARNING, Hit, ex, sgl_rule

EAGLE_PP = "--pp-size 2 --speculative-algorithm EAGLE --speculative-draft-model-path @TINY@"
DSPARK_PP = "--pp-size 2 --speculative-algorithm DSPARK --speculative-draft-model-path @TINY@"


@sgl_rule(
    "SGL154", "mooncake-ib-device-unset", severity=WARNING, default=False,
    upstream="No IB devices specified for Mooncake backend, falling back to auto discovery.",
    source="arg_groups/validation_hook.py:501", upstream_id="pd-mooncake-ib-device-unset",
    why="Without `--disaggregation-ib-device` Mooncake picks the RDMA NICs itself; on multi-NIC nodes that can "
        "pick a NIC far from the GPU (or the wrong fabric), which slows or breaks the KV transfer. Mooncake is "
        "the default transfer backend of every PD server.",
    fix="Pass `--disaggregation-ib-device` (e.g. `mlx5_0,mlx5_1`, or a per-GPU JSON mapping) on PD servers that "
        "use Mooncake over RDMA.",
    fire=["--disaggregation-mode prefill", "--disaggregation-mode decode --disaggregation-transfer-backend mooncake",
          "--encoder-transfer-backend mooncake"],
    quiet=["--disaggregation-mode prefill --disaggregation-transfer-backend nixl", "--tp-size 1"],
    notes="Informational (off by default): SGLang logs this on every PD server that uses Mooncake without an IB "
          "device, including `mooncake_tcp` (which drops an explicit device). Validating named devices needs the "
          "host's /sys/class/infiniband and is not checked.")
def _ib_unset(a):
    if not a.is_unset("disaggregation_ib_device"):
        return None
    if a.pd and a.eq("disaggregation_transfer_backend", "mooncake"):
        if a.raw("disaggregation_transfer_backend") == "mooncake_tcp":
            return Hit("disaggregation_transfer_backend", note=(
                "mooncake_tcp runs over TCP, so no IB device is needed; an explicit --disaggregation-ib-device is "
                "dropped"))
        return Hit("disaggregation_transfer_backend", "disaggregation_mode")
    if a.eq("encoder_transfer_backend", "mooncake"):
        return Hit("encoder_transfer_backend")


@sgl_rule(
    "SGL155", "watermark-with-pd", roles=("prefill", "decode"),
    upstream="--enable-watermark is not supported with PD disaggregation",
    source="arg_groups/validation_hook.py:89", upstream_id="pd-no-watermark",
    why="Output watermarking is applied by the sampler of a single (non-disaggregated) server.",
    fix="Drop `--enable-watermark` from PD servers, or serve without disaggregation.",
    fire=["--disaggregation-mode decode --enable-watermark", "--disaggregation-mode prefill --enable-watermark"],
    quiet=["--enable-watermark", "--disaggregation-mode decode"])
def _watermark(a):
    if a.pd and a.is_true("enable_watermark"):
        return Hit("enable_watermark", "disaggregation_mode")


@sgl_rule(
    "SGL156", "pp-spec-env-with-pd", doc_fix=1, roles=("prefill", "decode"),
    upstream="SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode",
    source="arg_groups/validation_hook.py:145", upstream_id="pd-pp-spec-env-no-pd",
    env=("SGLANG_ENABLE_PP_SPEC",),
    why="`SGLANG_ENABLE_PP_SPEC` selects the aggregated pipeline-parallel speculative relay, which only "
        "non-PD servers run; a PD prefill uses its own relay and needs the variable unset.",
    fix="Unset `SGLANG_ENABLE_PP_SPEC` on PD servers (PP + EAGLE then works on prefill servers only).",
    fire=[ex("--disaggregation-mode prefill " + EAGLE_PP, {"SGLANG_ENABLE_PP_SPEC": "1"}),
          ex("--disaggregation-mode decode --pp-size 2 --speculative-algorithm nextn "
             "--speculative-draft-model-path @TINY@", {"SGLANG_ENABLE_PP_SPEC": "true"})],
    quiet=[ex(EAGLE_PP, {"SGLANG_ENABLE_PP_SPEC": "1"}),
           ex("--disaggregation-mode prefill " + EAGLE_PP, {"SGLANG_ENABLE_PP_SPEC": "0"})])
def _pp_spec_env(a):
    if (a.pd and a.gt("pp_size", 1) and a.eq("speculative_algorithm", "EAGLE")
            and a.is_false("enable_multi_layer_eagle") and a.env_truthy("SGLANG_ENABLE_PP_SPEC")):
        return Hit("pp_size", "speculative_algorithm", note="SGLANG_ENABLE_PP_SPEC is set in this launch's environment")


@sgl_rule(
    "SGL157", "pp-spec-env-with-dspark-prefill", roles=("prefill",),
    upstream="SGLANG_ENABLE_PP_SPEC does not support DSPARK PD prefill",
    source="arg_groups/validation_hook.py:128", upstream_id="pd-pp-spec-dspark-env",
    env=("SGLANG_ENABLE_PP_SPEC",),
    why="DSPARK with pipeline parallelism runs only on PD prefill servers, through their own relay; the "
        "aggregated relay selected by `SGLANG_ENABLE_PP_SPEC` does not support it.",
    fix="Unset `SGLANG_ENABLE_PP_SPEC` on DSPARK prefill servers with `--pp-size` > 1.",
    fire=[ex("--disaggregation-mode prefill " + DSPARK_PP, {"SGLANG_ENABLE_PP_SPEC": "1"})],
    quiet=["--disaggregation-mode prefill " + DSPARK_PP,
           ex("--disaggregation-mode prefill --pp-size 1 --speculative-algorithm DSPARK "
              "--speculative-draft-model-path @TINY@", {"SGLANG_ENABLE_PP_SPEC": "1"})])
def _pp_spec_dspark_env(a):
    if (a.role == "prefill" and a.gt("pp_size", 1) and a.eq("speculative_algorithm", "DSPARK")
            and a.env_truthy("SGLANG_ENABLE_PP_SPEC")):
        return Hit("pp_size", "speculative_algorithm", note="SGLANG_ENABLE_PP_SPEC is set in this launch's environment")


@sgl_rule(
    "SGL158", "pdmux-with-pd", roles=("prefill", "decode"),
    upstream="PD-Multiplexing is not compatible with disaggregation mode.",
    source="arg_groups/validation_hook.py:256", upstream_id="pd-pdmux-not-with-pd",
    why="PD multiplexing runs prefill and decode on one server on split GPU resources; it is an alternative to "
        "disaggregation, not a mode of it.",
    fix="Drop `--enable-pdmux` from PD servers.",
    fire=["--disaggregation-mode prefill --enable-pdmux --chunked-prefill-size -1",
          "--disaggregation-mode decode --enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule",
          "--disaggregation-mode prefill --enable-pdmux"],
    quiet=["--enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule", "--disaggregation-mode decode"],
    notes="SGLang first requires `--pp-size 1` and `--chunked-prefill-size -1` for PD multiplexing; a PD server "
          "with `--enable-pdmux` fails one way or the other.")
def _pdmux(a):
    if a.pd and a.is_true("enable_pdmux"):
        return Hit("enable_pdmux", "disaggregation_mode")


@sgl_rule(
    "SGL159", "dwdp-without-pd", roles=("null",), severity=WARNING,
    upstream="DWDP with --disaggregation-mode null: decode steps re-fetch all remote expert weights every step, "
             "which is slow. DWDP is recommended only with --disaggregation-mode prefill.",
    source="arg_groups/parallel_hook.py:460", upstream_id="pd-dwdp-null-slow",
    why="Distributed weight data parallelism prefetches remote expert weights for each forward; fine for long "
        "prefills, slow for every decode step of a non-PD server.",
    fix="Use `--dwdp-size` on PD prefill servers only.",
    fire=["--dwdp-size 2 --tp-size 2"],
    quiet=["--disaggregation-mode prefill --dwdp-size 2 --tp-size 2", "--tp-size 2"])
def _dwdp_null(a):
    if a.role == "null" and a.gt("dwdp_size", 1):
        return Hit("dwdp_size")


@sgl_rule(
    "SGL162", "linear-replayssm-with-pd", roles=("prefill", "decode"),
    upstream="--enable-linear-replayssm is not supported under PD disaggregation yet (follow-up). Got "
             "--disaggregation-mode={disaggregation_mode!r}.",
    source="arg_groups/attention_hook.py:429", upstream_id="pd-linear-replayssm-no-pd",
    why="The disaggregated decode pool is not wired for the ReplaySSM ring (the flag would silently do nothing), "
        "and PD runs a cache flow not yet validated for it. SGLang checks it for every model.",
    fix="Drop `--enable-linear-replayssm` from PD servers.",
    fire=["--disaggregation-mode prefill --enable-linear-replayssm",
          "--disaggregation-mode decode --enable-linear-replayssm --model-path @TINY_HYBRID@"],
    quiet=["--enable-linear-replayssm", "--disaggregation-mode decode"])
def _replayssm(a):
    if a.pd and a.is_true("enable_linear_replayssm"):
        return Hit("enable_linear_replayssm", "disaggregation_mode")
