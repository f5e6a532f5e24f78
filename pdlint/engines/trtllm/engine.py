"""The TensorRT-LLM engine adapter: context (prefill) and generation (decode)
servers.

Launches come in two shapes:

* role-keyed settings (:mod:`pdlint.formats.keyed`): the servers of a
  ``trtllm-serve disaggregated`` config (``context_servers`` /
  ``generation_servers``, top-level keys inherited) and per-role LLM-API option
  files (``ctx_*.yaml``, Dynamo ``prefill.yaml``); ``meta['settings']`` maps
  dotted keys (``cache_transceiver_config.backend``) to traced values;
* command lines (``trtllm-serve MODEL ...``, ``python -m dynamo.trtllm ...``):
  the options are read (``--tp_size``, ``--backend``, Dynamo's
  ``--disaggregation-mode``, ``trtllm-serve --server_role``) and the file named
  by ``--extra_llm_api_options`` / ``--extra-engine-args`` is loaded into the
  settings.

The role is the one the structure names (the settings' key or file name), else
the command's role flag (``context``/``prefill`` = prefill, ``generation`` /
``decode`` = decode).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from pdlint.model import Launch
from pdlint.text import TStr

MODES = {"prefill": "prefill", "context": "prefill", "decode": "decode", "generation": "decode",
         "prefill_and_decode": "null", "aggregated": "null", "agg": "null"}
# command-line option -> LLM-API key
CLI_KEYS = {"--tp-size": "tensor_parallel_size", "--tensor-parallel-size": "tensor_parallel_size",
            "--pp-size": "pipeline_parallel_size", "--pipeline-parallel-size": "pipeline_parallel_size",
            "--ep-size": "moe_expert_parallel_size", "--backend": "backend",
            "--kv-cache-free-gpu-memory-fraction": "kv_cache_config.free_gpu_memory_fraction",
            "--free-gpu-memory-fraction": "kv_cache_config.free_gpu_memory_fraction",
            "--max-num-tokens": "max_num_tokens", "--max-batch-size": "max_batch_size",
            "--max-seq-len": "max_seq_len", "--model-path": "model", "--model": "model"}
OPTION_FILES = ("--extra-llm-api-options", "--extra-engine-args", "--config")


@dataclass
class TrtInfo:
    settings: dict = field(default_factory=dict)  # dotted key -> TStr
    inherited: list = field(default_factory=list)  # top-level keys a server group inherits
    role_from: str = ""
    options_file: Optional[str] = None
    cli: Optional[object] = None  # VllmInfo-like option view of a command line

    def text(self, key: str) -> Optional[str]:
        v = self.settings.get(key)
        if v is None or v.opaque:
            return None
        return v.text.strip()

    def token(self, key: str) -> Optional[TStr]:
        return self.settings.get(key)

    def int(self, key: str) -> Optional[int]:
        t = self.text(key)
        try:
            return int(t) if t is not None else None
        except ValueError:
            return None

    def truthy(self, key: str) -> Optional[bool]:
        t = self.text(key)
        if t is None:
            return None
        return t.lower() in ("true", "1", "yes", "on")


def interpret(launch: Launch, ctx) -> None:
    info = TrtInfo()
    settings = launch.meta.get("settings")
    if isinstance(settings, dict):
        info.settings = dict(settings)
        info.inherited = list(launch.meta.get("inherited") or [])
    if launch.argv:
        _read_command(launch, info, ctx)
    launch.parsed = info
    role, how = None, ""
    if launch.structural_role in ("prefill", "decode"):
        role, how = launch.structural_role, launch.meta.get("role_how") or "structure"
    elif launch.role in ("prefill", "decode"):
        role, how = launch.role, launch.meta.get("role_how") or "structure"
    if info.cli is not None:
        for opt in ("--disaggregation-mode", "--server-role"):
            v = info.cli.text(opt)
            if v is not None and v.lower() in MODES:
                if role is None:
                    role, how = MODES[v.lower()], opt
                break
    launch.role = role
    info.role_from = how


def _read_command(launch: Launch, info: TrtInfo, ctx) -> None:
    from pdlint.engines.vllm.engine import parse_argv
    cli = parse_argv(list(launch.argv), "vllm serve" if launch.entrypoint == "trtllm-serve" else launch.entrypoint)
    info.cli = cli
    if cli.incomplete:
        launch.incomplete = True
    for opt in OPTION_FILES:
        tok = cli.value(opt)
        if tok is None or tok.opaque or ctx is None:
            continue
        src = ctx.resolve_config(tok, launch)
        if src is None:
            continue
        info.options_file = src.path
        loaded = _load_settings(src)
        for k, v in loaded.items():
            info.settings.setdefault(k, v)
        break
    for opt, key in CLI_KEYS.items():
        v = cli.value(opt)
        if v is not None:
            info.settings[key] = v  # the command line wins over the options file
    if cli.model is not None and "model" not in info.settings:
        info.settings["model"] = cli.model


def _load_settings(src) -> dict:
    from pdlint.formats import keyed
    from pdlint.formats import yamltree as yt
    try:
        docs = yt.compose(src.text)
        if len(docs) != 1 or docs[0].root is None or not isinstance(docs[0].root, yt.YMap):
            return {}
        return keyed.flatten(TStr.from_source(src), yt.Ref(docs[0].root))
    except (yt.YamlError, RecursionError):  # invalid, or over a limit (alias/merge bombs): no settings
        return {}


def candidates(launch: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import launch_candidates
    return launch_candidates(launch, enabled, engine="trtllm")


def pair_candidates(prefill: Launch, decode: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import pair_hits
    return pair_hits(prefill, decode, enabled, engine="trtllm")


def unit_candidates(dep, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import unit_hits
    return unit_hits(dep, enabled, engine="trtllm")


def facts(launch: Launch):
    from pdlint.pairing import Facts
    info = launch.parsed
    if not isinstance(info, TrtInfo):
        return None
    f = Facts(uses_gpus=False)  # GPU placement of TRT-LLM servers is decided by MPI/Slurm, not pinned here
    tok = info.settings.get("model")
    f.model = tok
    return f
