"""Values SGLang checks after argparse (SGL040-SGL049).

argparse takes these flags as plain strings; SGLang looks the value up later
(an algorithm or parser registry, Python's logging level names, ``json.loads``)
and an unknown value stops the server.  The sets are not written here: each
release's values, check and source line are generated from its wheel
(``scripts/gen_sglang_values.py`` -> ``data/sglang-values.jsonl``), and a rule
applies to the releases whose data has its set (``valueset=``).

Also the PD-multiplexing asserts of ``check_server_args`` that read other
flags' values (``arg_groups/validation_hook.py:250-259``).
"""

import functools
import json

from pdlint.engines.sglang.rulebase import Hit, given, sgl_rule
from pdlint.engines.sglang.versions import value_set

CAT = "values"


def _lookup(a, name: str):
    """``(written value, set)`` when ``name``'s flag is written with a value the release's set does not hold,
    else None.  A value argparse already refuses (a release whose parser has ``choices``) is SGL004's."""
    vs = value_set(a.version, name)
    if vs is None:
        return None
    v = given(a, vs["dest"])
    if not isinstance(v, str):
        return None
    flag = a.parsed.table.by_dest.get(vs["dest"])
    if flag is not None and flag.choices and v not in flag.choices:
        return None
    key = v.upper() if vs.get("case") == "upper" else v
    if key in vs["values"] or v in vs.get("resolved_first", ()):
        return None
    return v, vs


def _names(values) -> str:
    return ", ".join(values)


@functools.lru_cache(maxsize=1)
def _other_release_names() -> frozenset:
    """Every name some release's SpeculativeAlgorithm knows (a name only other releases know is SGL916's)."""
    from pdlint.engines.sglang.flags import available_versions
    out: set = set()
    for version in available_versions():
        vs = value_set(version, "speculative_algorithm")
        if vs is not None:
            out |= set(vs["values"])
    return frozenset(out)


@sgl_rule(
    "SGL040", "unknown-speculative-algorithm", category=CAT, valueset="speculative_algorithm",
    upstream="Unknown speculative algorithm name: {name}",
    source="speculative/spec_info.py:65",
    why="`--speculative-algorithm` is a free string to argparse; SGLang upper-cases it and looks it up among its "
        "`SpeculativeAlgorithm` members (and the reserved alias NEXTN). `auto`, `default` or a misspelt name stop "
        "the server before it loads the model.",
    fix="Use one of the release's algorithms (the message lists them), or drop the flag to serve without "
        "speculative decoding.",
    fire=["--speculative-algorithm auto", "--speculative-algorithm default", "--speculative-algorithm eagle-3"],
    quiet=["--speculative-algorithm eagle", "--speculative-algorithm NEXTN", "--speculative-algorithm none"],
    notes="The names are generated per release from `SpeculativeAlgorithm` in `speculative/spec_info.py` "
          "(`data/sglang-values.jsonl`); releases whose parser lists `choices` for the flag are argparse's "
          "(SGL004). A name that another release has built in (UNO before 0.5.20, DSPARK before 0.5.16) is "
          "SGL916's, which says to pin a release that has it. A plugin can register further algorithms "
          "(`SpeculativeAlgorithm.register`); pdlint does not see plugins, so a plugin's own name is reported "
          "here.")
def _speculative(a):
    found = _lookup(a, "speculative_algorithm")
    if found and found[0].upper() not in _other_release_names():
        v, vs = found
        note = f"SGLang {a.version} knows {_names(vs['values'])}"
        if vs.get("plugins"):
            note += " (and algorithms a loaded plugin registers)"
        return Hit("speculative_algorithm", fmt={"name": v}, note=note)


@sgl_rule(
    "SGL041", "unknown-dllm-algorithm", category=CAT, valueset="dllm_algorithm",
    upstream="Unknown diffusion LLM algorithm: {name}",
    source="dllm/algorithm/__init__.py:35",
    why="SGLang maps `--dllm-algorithm` to the class name of an `Algorithm` in `sglang/srt/dllm/algorithm/` "
        "(case-sensitive: `LowConfidence`, not `low_confidence`); any other name stops the server.",
    fix="Use one of the release's diffusion-LLM algorithms (the message lists them).",
    fire=["--dllm-algorithm low_confidence", "--dllm-algorithm lowconfidence"],
    quiet=["--tp-size 1"],
    notes="The names are generated per release from the modules of `sglang/srt/dllm/algorithm/`. A valid name "
          "still needs a diffusion LLM checkpoint (SGLang then checks the model: not decided by pdlint), so the "
          "quiet example is a launch without the flag; tests/test_values.py checks that valid names stay quiet.")
def _dllm(a):
    found = _lookup(a, "dllm_algorithm")
    if found:
        v, vs = found
        return Hit("dllm_algorithm", fmt={"name": v}, note=f"SGLang {a.version} has {_names(vs['values'])}")


@sgl_rule(
    "SGL042", "unknown-model-config-parser", category=CAT, valueset="model_config_parser",
    upstream="Unknown model-config parser {name!r}. Registered: {registered}",
    source="configs/model_config_parser_registry.py:58",
    why="`--model-config-parser` names a parser registered with `@register_model_config_parser` (`auto` picks "
        "one); names are case-sensitive, and an unknown one stops the server while it reads the model config.",
    fix="Use `auto` or one of the registered parsers.",
    fire=["--model-config-parser HF", "--model-config-parser transformers"],
    quiet=["--model-config-parser hf", "--model-config-parser auto"],
    notes="The registered names are generated per release from the `@register_model_config_parser(...)` "
          "decorators of the wheel; a plugin can register more.")
def _model_config_parser(a):
    found = _lookup(a, "model_config_parser")
    if found:
        v, vs = found
        return Hit("model_config_parser", fmt={"name": v, "registered": repr(sorted(vs["values"]))})


@sgl_rule(
    "SGL043", "unknown-log-level", category=CAT, valueset="log_level",
    upstream="module 'logging' has no attribute '{level}'",
    source="server_args.py:704",
    why="SGLang sets up logging with `getattr(logging, log_level.upper())`: a name that is not one of Python's "
        "level names (`none`, `trace`, `verbose`) is an AttributeError that stops the server at start-up.",
    fix="Use one of Python's logging levels: debug, info, warning, error, critical.",
    fire=["--log-level none", "--log-level trace", "--log-level basic_format"],
    quiet=["--log-level warning", "--log-level WARN", "--log-level debug"],
    notes="Releases up to 0.5.10 run the same lookup in `configure_logger` at launch (data/sglang-values.jsonl "
          "records each release's line). `--log-level-http` goes to uvicorn at HTTP start-up and is not checked.")
def _log_level(a):
    found = _lookup(a, "log_level")
    if found:
        v, vs = found
        up = v.upper()
        if up == "BASIC_FORMAT":  # an attribute, but a format string: logging.basicConfig refuses it
            return Hit("log_level", fmt={"level": up}, lead=True, note=(
                "logging.BASIC_FORMAT is a format string, not a level: SGLang stops with ValueError: Unknown "
                "level: '%(levelname)s:%(name)s:%(message)s'"))
        return Hit("log_level", fmt={"level": up},
                   note=f"Python's levels are {', '.join(n.lower() for n in vs['values'])}")


def _json_error(text: str):
    """``(exception, message)`` as SGLang gets them: json.loads, then ``.items()`` on the result."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        return "JSONDecodeError", str(e)
    except (ValueError, RecursionError) as e:
        return type(e).__name__, str(e)
    if not value or isinstance(value, dict):
        return None  # null, 0, [] ... are falsy: SGLang skips the override
    return "AttributeError", f"'{type(value).__name__}' object has no attribute 'items'"


@sgl_rule(
    "SGL044", "json-model-override-args-not-object", category=CAT, valueset="json_model_override_args",
    upstream="{exception}: {error}",
    source="configs/model_config.py:612",
    why="`--json-model-override-args` must be a JSON object: ModelConfig runs `json.loads` on it and later "
        "iterates its items. Shell quoting that eats the double quotes (`{'a': 1}`, `{a: 1}`) or a JSON list "
        "stops the server while it reads the model config.",
    fix="Pass a JSON object in single shell quotes: `--json-model-override-args '{\"max_position_embeddings\": "
        "32768}'`.",
    fire=["--json-model-override-args notjson", "--json-model-override-args \"{'rope_theta': 1}\"",
          "--json-model-override-args '[1]'"],
    quiet=["--json-model-override-args '{\"rope_theta\": 1000000}'", "--json-model-override-args null"],
    notes="The message is Python's own (json's decode error, or the AttributeError of a non-object), computed "
          "with the same json module.")
def _json_override(a):
    if value_set(a.version, "json_model_override_args") is None:
        return None
    v = given(a, "json_model_override_args")
    if not isinstance(v, str):
        return None
    err = _json_error(v)
    if err:
        return Hit("json_model_override_args", fmt={"exception": err[0], "error": err[1]})


# -- PD multiplexing (validation_hook.check_server_args) -------------------------------------------------

def _pdmux(a) -> bool:
    return a.is_true("enable_pdmux")


@sgl_rule(
    "SGL045", "pdmux-with-pipeline-parallel", category=CAT,
    upstream="PD-Multiplexing is only supported with pipeline parallelism disabled (pp_size=1).",
    source="arg_groups/validation_hook.py:250",
    why="PD multiplexing splits one GPU's streams between prefill and decode; it has no pipeline-parallel "
        "scheduler.",
    fix="Use `--pp-size 1` with `--enable-pdmux`, or drop `--enable-pdmux`.",
    fire=["--enable-pdmux --pp-size 2 --chunked-prefill-size -1 --disable-overlap-schedule"],
    quiet=["--enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule"])
def _pdmux_pp(a):
    if _pdmux(a) and a.gt("pp_size", 1):
        return Hit("pp_size", "enable_pdmux")


@sgl_rule(
    "SGL046", "pdmux-with-chunked-prefill", category=CAT,
    upstream="PD-Multiplexing is not compatible with chunked prefill.",
    source="arg_groups/validation_hook.py:253",
    why="PD multiplexing needs whole prefills; SGLang enables chunked prefill by default (its size derived from "
        "GPU memory), so `--enable-pdmux` needs `--chunked-prefill-size -1` written out.",
    fix="Add `--chunked-prefill-size -1`.",
    fire=["--enable-pdmux --disable-overlap-schedule", "--enable-pdmux --chunked-prefill-size 4096"],
    quiet=["--enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule"],
    notes="SGLang turns chunked prefill off by itself for some checkpoints (multimodal models without chunked "
          "prefill support, some embedding models) and with `--enable-mis`; pdlint does not read the "
          "checkpoint, so it reports such a launch unless `--enable-mis` is given.")
def _pdmux_chunked(a):
    if not _pdmux(a) or a.is_true("enable_mis") or not a.known("enable_mis"):
        return None
    if a.explicit("chunked_prefill_size"):
        if a.ne("chunked_prefill_size", -1) and a.known("chunked_prefill_size"):
            return Hit("chunked_prefill_size", "enable_pdmux")
        return None
    if a.is_unset("chunked_prefill_size"):
        return Hit("enable_pdmux", note="SGLang derives a chunked prefill size from GPU memory when "
                                        "--chunked-prefill-size is not given; write --chunked-prefill-size -1")


@sgl_rule(
    "SGL047", "pdmux-with-overlap-schedule", category=CAT,
    upstream="PD-Multiplexing is not compatible with overlap schedule.",
    source="arg_groups/validation_hook.py:259",
    why="PD multiplexing drives the prefill and decode streams itself; the overlap scheduler would run a second "
        "batch on them.",
    fix="Add `--disable-overlap-schedule`.",
    fire=["--enable-pdmux --chunked-prefill-size -1"],
    quiet=["--enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule"],
    notes="SGLang disables the overlap scheduler by itself with `--pp-size` > 1, `--dllm-algorithm`, a CPU or "
          "MPS device, SGLANG_EMBEDDINGS_SPARSE_HEAD and some hybrid (Mamba) checkpoints; pdlint stays quiet in "
          "the cases it can see.")
def _pdmux_overlap(a):
    if not _pdmux(a) or not a.known("disable_overlap_schedule") or a.is_true("disable_overlap_schedule"):
        return None
    if not a.is_unset("dllm_algorithm") or not a.le("pp_size", 1):
        return None
    device = a.get("device")
    if a.explicit("device") and (not isinstance(device, str) or device.split(":")[0] in ("cpu", "mps")):
        return None
    if "SGLANG_EMBEDDINGS_SPARSE_HEAD" in a.env:
        return None
    return Hit("enable_pdmux")


@sgl_rule(
    "SGL048", "ib-device-none", category=CAT, roles=("prefill", "decode", "null"),
    upstream="Invalid IB devices specified for {context}: {invalid}. Available devices: {available}",
    source="arg_groups/validation_hook.py:526",
    why="A `--config` file's `disaggregation-ib-device: null` (or `~`, or an empty value) is written to the command "
        "line as the string `None`, and SGLang validates that name as an InfiniBand device before a Mooncake "
        "server starts: no host has a device called None (a host without InfiniBand fails earlier, \"InfiniBand "
        "sysfs path not found\").",
    fix="Leave the key out of the config file (Mooncake then discovers the devices), or name the devices.",
    fire=["--disaggregation-mode prefill --disaggregation-ib-device None",
          "--encoder-transfer-backend mooncake --disaggregation-ib-device None"],
    quiet=["--disaggregation-mode prefill",
           "--disaggregation-mode prefill --disaggregation-ib-device None --disaggregation-transfer-backend nixl",
           "--disaggregation-ib-device None"],
    notes="The device list of a host is not checked otherwise (it needs the host's /sys/class/infiniband); the "
          "name `None` is refused on every host.")
def _ib_none(a):
    v = given(a, "disaggregation_ib_device")
    if not isinstance(v, str) or v.strip().lower() != "none" or not _ib_validated(a):
        return None
    name = v.strip()
    return Hit("disaggregation_ib_device", fmt={"context": "all GPUs", "invalid": repr([name]), "available": "[...]"},
               note="the name None comes from a null value (a --config file's `disaggregation-ib-device: null` is "
                    "passed as the string None)" if name == "None" else "no host has an InfiniBand device of that "
                                                                      "name")


def _ib_validated(a) -> bool:
    """Does SGLang validate ``--disaggregation-ib-device`` here (validate_ib_devices): a PD server on Mooncake
    (not ``mooncake_tcp``, which clears the device), or Mooncake encoder transfer."""
    pd_mooncake = a.role in ("prefill", "decode") and a.eq("disaggregation_transfer_backend", "mooncake") and \
        a.raw("disaggregation_transfer_backend") != "mooncake_tcp"
    return pd_mooncake or a.eq("encoder_transfer_backend", "mooncake")


@sgl_rule(
    "SGL049", "ib-device-empty", category=CAT, roles=("prefill", "decode", "null"),
    upstream="No valid IB devices specified",
    source="arg_groups/validation_hook.py:533",
    why="An empty `--disaggregation-ib-device` (a Helm `{{ .Values.ibDevice | quote }}` of an unset value gives "
        "`\"\"`) is not the absent flag: SGLang strips it and stops before a Mooncake server starts, on every "
        "host. Auto-discovery happens only when the flag is left out.",
    fix="Leave the flag out when there is no device list (render it only when the value is set), or name the "
        "devices (`mlx5_0,mlx5_1`).",
    fire=["--disaggregation-mode prefill --disaggregation-ib-device ''",
          "--disaggregation-mode decode --disaggregation-ib-device ' '"],
    quiet=["--disaggregation-mode prefill",
           "--disaggregation-mode prefill --disaggregation-ib-device '' --disaggregation-transfer-backend nixl",
           "--disaggregation-ib-device ''"],
    notes="A list of only commas (`,`) is refused too (\"No valid IB devices specified for all GPUs\", after the "
          "host's device directory is read) and reported here. The device names of a host are not checked "
          "(they need its /sys/class/infiniband).")
def _ib_empty(a):
    v = given(a, "disaggregation_ib_device")
    if not isinstance(v, str) or any(d.strip() for d in v.split(",")) or not _ib_validated(a):
        return None
    return Hit("disaggregation_ib_device",
               note="an empty value is not the absent flag: only a launch without it discovers the devices")
