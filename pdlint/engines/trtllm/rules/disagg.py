"""TensorRT-LLM disaggregated-serving rules (TRT001-TRT099): context
(prefill) and generation (decode) servers.

``info`` is the launch's :class:`~pdlint.engines.trtllm.engine.TrtInfo`
(``settings``: dotted LLM-API keys to traced values, inherited top-level keys
included).
"""

from __future__ import annotations

from typing import Optional

from pdlint.engines.trtllm.engine import TrtInfo, described, linked_servers, split_url, started, url_matches
from pdlint.engines.vllm.rulebase import WARNING, VHit, related_at, same_model, vllm_rule

BACKEND = "cache_transceiver_config.backend"
_C = "trtllm"


def _info(launch):
    return launch.parsed if isinstance(launch.parsed, TrtInfo) else None


def _backend(info: TrtInfo):
    t = info.text(BACKEND)
    return t.upper() if t is not None else None


#: `cache_transceiver_config.backend` as TensorRT-LLM's releases take it (tensorrt_llm/llmapi/llm_args.py,
#: CacheTransceiverConfig, a StrictBaseModel: `Literal["default", "ucx", "nixl", "mpi"]`, later
#: `Literal["DEFAULT", "UCX", "NIXL", "MPI"]`, then with "MOONCAKE"; the first releases had no backend field)
BACKENDS_UPPER = ("DEFAULT", "UCX", "NIXL", "MPI", "MOONCAKE")
BACKENDS_LOWER = ("default", "ucx", "nixl", "mpi")


@vllm_rule(
    "TRT012", "cache-transceiver-backend-invalid", kind="launch", engine="trtllm", category=_C,
    summary="Reports a `cache_transceiver_config.backend` that no TensorRT-LLM release accepts (those with the "
            "setting take `DEFAULT`, `UCX`, `NIXL`, `MPI`, `MOONCAKE`; earlier ones `default`, `ucx`, `nixl`, "
            "`mpi`).",
    why="The LLM-API options are a strict pydantic model: a backend outside the release's `Literal` fails "
        "validation and the server does not start.",
    fix="Write one of the backends the release takes, in its case (`UCX` since the upper-case names came in).",
    example="cache_transceiver_config:\n  backend: nccl",
    example_fixed="cache_transceiver_config:\n  backend: UCX",
    source="tensorrt_llm/llmapi/llm_args.py (CacheTransceiverConfig.backend)")
def _backend_invalid(launch, info):
    if info is None:
        return None
    value = info.text(BACKEND)
    if value is None or value in BACKENDS_UPPER or value in BACKENDS_LOWER:
        return None
    return VHit(f"cache_transceiver_config.backend {value!r} is no backend of any TensorRT-LLM release: releases "
                f"with the setting take {', '.join(BACKENDS_UPPER)} (earlier ones {', '.join(BACKENDS_LOWER)}), and "
                f"the options fail validation at start-up", info.token(BACKEND))


@vllm_rule(
    "TRT013", "options-file-not-a-mapping", kind="launch", engine="trtllm", category=_C,
    summary="Reports an LLM-API options file (`--extra_llm_api_options`, `--config`, Dynamo's `--extra-engine-args`) "
            "that is not one YAML mapping of options: several documents (`---`), an empty file, a list or a "
            "scalar, or text that does not parse as YAML (whatever the file's name).",
    why="trtllm-serve reads the file with `yaml.safe_load`, which refuses a stream of several documents "
        "(`expected a single document in the stream`), and merges the result key by key into the LLM arguments, "
        "which fails for anything but a mapping: the server does not start. pdlint cannot read the server's "
        "settings from such a file either, so no rule compared them.",
    fix="Keep one YAML mapping in the file (delete the stray `---` and what follows it, or move it to a file of "
        "its own).",
    example="cache_transceiver_config:\n  backend: UCX\n---\n",
    example_fixed="cache_transceiver_config:\n  backend: UCX\n",
    source="tensorrt_llm/commands/serve.py (yaml.safe_load of the options file)")
def _options_file(launch, info):
    if info is None or info.options_problem is None:
        return None
    tok, why = info.options_problem
    return VHit(f"the options file {info.options_file} {why}: the server does not start, and none of its settings "
                f"were checked", tok)


@vllm_rule(
    "TRT001", "cache-transceiver-backend-mismatch", kind="pair", engine="trtllm", category=_C,
    summary="Reports a context (prefill) and a generation (decode) server whose "
            "`cache_transceiver_config.backend` values differ, also in case only (`ucx` and `UCX`: no release "
            "takes both).",
    why="The cache transceiver is the KV transfer path between the two servers: UCX, NIXL, MPI and Mooncake "
        "speak different protocols, so a mismatched pair never exchanges KV and generation requests fail or hang.",
    fix="Set the same `cache_transceiver_config.backend` for context and generation servers (e.g. at the top level "
        "of the disaggregated config, or in both option files).",
    example="# ctx_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: UCX\n"
            "# gen_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: NIXL",
    example_fixed="# both files\ncache_transceiver_config:\n  backend: UCX",
    notes="Pin both files to one commit when comparing stored versions: the NVIDIA example pair only looks "
          "mismatched across commits (UCX at one, NIXL at another).")
def _backend_mismatch(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _backend(pi), _backend(di)
    if a is not None and a == b and pi.text(BACKEND) != di.text(BACKEND):
        # (field test rw20/f: `ucx` on the context server, `UCX` on the generation one: the releases with
        # lower-case names refuse `UCX`, the later ones `ucx`; whichever runs both, one side stops)
        return VHit(f"cache_transceiver_config.backend is written {pi.text(BACKEND)} on the context server but "
                    f"{di.text(BACKEND)} on the generation server: no TensorRT-LLM release takes both spellings "
                    f"(the first releases with the setting take lower case, the later ones upper case), so one of "
                    f"the two servers fails validation at start-up",
                    di.token(BACKEND), [related_at(pi.token(BACKEND), p, f"the context server's backend "
                                                                         f"{pi.text(BACKEND)}")], "decode")
    if a is None or b is None or a == b or "DEFAULT" in (a, b):
        return None
    return VHit(f"cache_transceiver_config.backend is {pi.text(BACKEND)} on the context server but "
                f"{di.text(BACKEND)} on the generation server: the KV cache transceivers cannot talk to each other",
                di.token(BACKEND), [related_at(pi.token(BACKEND), p, f"the context server's backend "
                                                                     f"{pi.text(BACKEND)}")], "decode")


@vllm_rule(
    "TRT002", "cache-transceiver-backend-on-one-side", kind="pair", engine="trtllm", category=_C, severity=WARNING,
    summary="Reports a context/generation pair where only one side sets `cache_transceiver_config.backend` to a "
            "transceiver (the other leaves it unset or writes `DEFAULT`).",
    why="`DEFAULT` picks the transceiver from environment variables and the TensorRT-LLM release (UCX in some, NIXL "
        "in others); it matches the explicit side only by luck.",
    fix="Set the same explicit backend on both sides.",
    example="# ctx\ncache_transceiver_config:\n  backend: NIXL\n# gen\ncache_transceiver_config:\n  "
            "max_tokens_in_buffer: 2048",
    example_fixed="# ctx and gen\ncache_transceiver_config:\n  backend: NIXL")
def _backend_one_side(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = _backend(pi), _backend(di)
    if "DEFAULT" in (a, b) and None not in (a, b) and a != b:
        # `backend: DEFAULT` written on one side, a transceiver on the other (alisachen-google/gcp-dynamo-cuj's
        # Dynamo defaults beside hand-written UCX configs, field test rw7/e): DEFAULT is resolved at start-up
        has, lacks, hi, li, edit = (p, d, pi, di, "decode") if b == "DEFAULT" else (d, p, di, pi, "prefill")
        return VHit(f"cache_transceiver_config.backend is {hi.text(BACKEND)} on the {_name(has.role)} server but "
                    f"DEFAULT on the {_name(lacks.role)} server, which TensorRT-LLM resolves from environment "
                    f"variables and its release: the two match only by luck",
                    li.token(BACKEND), [related_at(hi.token(BACKEND), has, f"the {_name(has.role)} server's backend")],
                    edit)
    if (a is None) == (b is None) or (a or b) == "DEFAULT":
        return None
    has, lacks, hi, edit = (p, d, pi, "decode") if b is None else (d, p, di, "prefill")
    if (lacks.meta.get("options_file") and not lacks.parsed.settings) or lacks.parsed.options_problem is not None \
            or lacks.parsed.options_unread:
        return None  # (an options file pdlint could not read: TRT013 there, not "uses DEFAULT")
    return VHit(f"cache_transceiver_config.backend is {hi.text(BACKEND)} on the {_name(has.role)} "
                f"server only; the {_name(lacks.role)} server uses DEFAULT (chosen by environment and release) "
                f"before TensorRT-LLM {FIRST_RELEASE}, and no transceiver at all from {FIRST_RELEASE} on",
                None, [related_at(hi.token(BACKEND), has, f"the {_name(has.role)} server's backend")], edit)


def _name(role):
    return {"prefill": "context", "decode": "generation"}.get(role, role or "other")


@vllm_rule(
    "TRT003", "tensor-parallel-size-differs", kind="pair", engine="trtllm", category=_C, severity=WARNING,
    summary="Reports a context/generation pair whose `tensor_parallel_size` values differ while one side runs the "
            "FlashInfer attention backend (`attn_backend: FLASHINFER`); an unset `tensor_parallel_size` is the "
            "LLM API's default, 1, when pdlint sees every setting of the server.",
    why="The cache transceiver splits and concatenates KV heads between the two TP layouts. With the FlashInfer "
        "attention backend its kernels index the KV cache in another layout than the one FlashInfer's cache "
        "manager exposes, and the generation server decodes from wrongly placed KV: NVIDIA/TensorRT-LLM#6507 "
        "(wrong outputs with prefill and decode on different `tp_size`; the maintainers confirmed the default "
        "TRTLLM backend is correct in both cases). A server that does not set `tensor_parallel_size` runs TP 1, so "
        "a generation config written for TP 4 beside a context config that leaves it out is such a pair.",
    fix="Use the same `tensor_parallel_size` on both sides (write it on both), or the default TRTLLM attention "
        "backend.",
    example="context_servers:\n  tensor_parallel_size: 1\n  attn_backend: FLASHINFER\ngeneration_servers:\n"
            "  tensor_parallel_size: 4\n  attn_backend: FLASHINFER",
    example_fixed="context_servers:\n  tensor_parallel_size: 2\n  attn_backend: FLASHINFER\ngeneration_servers:\n"
                  "  tensor_parallel_size: 2\n  attn_backend: FLASHINFER",
    notes="An options file on its own (`ctx_*.yaml` without the command line that loads it) is not complete: the "
          "command line may pass `--tp_size`, so an unset value there is not assumed to be 1. Not reported when "
          "neither side sets `attn_backend: FLASHINFER` (field test rw21/a: 73 warnings on NVIDIA's srt-slurm "
          "recipes, a DEP4 context beside a TEP8 generation on the default backend), nor when both sides run "
          "`enable_attention_dp: true` (each rank keeps whole KV heads, nothing is split).")
def _tp(p, d, pi, di):
    if pi is None or di is None:
        return None
    if not (_flashinfer(pi) or _flashinfer(di)):
        return None  # the split/concat layout bug of #6507 is FlashInfer's; the TRTLLM backend handles both
    a, b = pi.tp(), di.tp()
    if a is None or b is None or a == b:
        return None
    if pi.truthy("enable_attention_dp") and di.truthy("enable_attention_dp"):
        return None  # attention data-parallel on both: every rank holds whole KV heads, attention TP is 1 on both
    return VHit(f"tensor_parallel_size is {_tp_text(pi, a)} on the context server but {_tp_text(di, b)} on the "
                f"generation server, with the FlashInfer attention backend",
                di.token("tensor_parallel_size"),
                [related_at(pi.token("tensor_parallel_size"), p, f"the context server's tensor_parallel_size {a}")],
                "decode" if "tensor_parallel_size" in di.settings or "tensor_parallel_size" not in pi.settings
                else "prefill")


def _flashinfer(info) -> bool:
    return (info.text("attn_backend") or "").strip().lower() == "flashinfer"


def _tp_text(info, n) -> str:
    return str(n) if "tensor_parallel_size" in info.settings else f"{n} (unset: the LLM API's default)"


@vllm_rule(
    "TRT004", "trtllm-kv-cache-dtype-mismatch", kind="pair", engine="trtllm", category=_C,
    summary="Reports a context/generation pair whose explicit `kv_cache_config.dtype` values differ.",
    why="The generation server receives the context server's KV blocks as bytes: a different element type "
        "reinterprets them (or fails the transfer's size check).",
    fix="Use the same `kv_cache_config.dtype` on both sides.",
    example="# ctx\nkv_cache_config:\n  dtype: fp8\n# gen\nkv_cache_config:\n  dtype: auto",
    example_fixed="# ctx and gen\nkv_cache_config:\n  dtype: fp8")
def _kv_dtype(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = pi.text("kv_cache_config.dtype"), di.text("kv_cache_config.dtype")
    if a is None or b is None or a.lower() == b.lower():
        return None
    return VHit(f"kv_cache_config.dtype is {a} on the context server but {b} on the generation server",
                di.token("kv_cache_config.dtype"),
                [related_at(pi.token("kv_cache_config.dtype"), p, f"the context server's KV dtype {a}")], "decode")


@vllm_rule(
    "TRT015", "trtllm-model-mismatch", kind="pair", engine="trtllm", category=_C,
    summary="Reports a context/generation pair serving different models (the last path component of the model "
            "differs: `trtllm-serve MODEL`, `model:` of an options file or a disaggregated config).",
    why="The generation server continues from the context server's KV cache and first token, which only fit the "
        "same model (layers, KV heads, head size, tokenizer); TensorRT-LLM checks nothing of it: the transfer "
        "fails at the first request or decodes garbage.",
    fix="Serve the same model on both sides (paths that differ only in their directory, different mount points, "
        "are the same model).",
    example="# ctx\ntrtllm-serve meta-llama/Llama-3.1-8B-Instruct ...\n# gen\ntrtllm-serve Qwen/Qwen3-8B ...",
    example_fixed="# ctx and gen\ntrtllm-serve Qwen/Qwen3-8B ...",
    notes="Field test rw21/a: a public script starts its context and generation servers from separate `CTX_MODEL` "
          "and `GEN_MODEL` variables; vLLM's pairs had this check (VLLM013), TensorRT-LLM's none.")
def _model_mismatch(p, d, pi, di):
    if pi is None or di is None:
        return None
    a, b = pi.text("model"), di.text("model")
    if not a or not b or same_model(a, b):
        return None
    a, b = a.rstrip("/"), b.rstrip("/")
    return VHit(f"the context server serves {a} but the generation server {b}: the KV cache handed over only fits "
                f"the same model", di.token("model"),
                [related_at(pi.token("model"), p, f"the context server serves {a}")], "decode")


def judged_servers(dep) -> list:
    """The TRT-LLM servers whose own settings the per-server rules judge: every one of the deployment, except a
    server a disaggregated config describes when its proxy's script starts the servers at its URLs (those run
    their own settings; the config's are not theirs), and a server group of a config that lists only its URLs
    (``routes_only``: the servers' settings are elsewhere)."""
    linked = linked_servers(dep)
    return [l for l in dep.launches if l.engine == "trtllm" and l.kind == "server" and isinstance(l.parsed, TrtInfo)
            and not linked.get(id(l)) and not l.meta.get("routes_only") and not l.meta.get("served_by")
            and not l.meta.get("router_only")]


def _pytorch(info: TrtInfo) -> bool:
    backend = info.text("backend")
    return backend is None or backend.lower() in ("pytorch", "_autodeploy")


# TensorRT-LLM PR #4174 (May 2025) renamed PyTorchConfig's enable_overlap_scheduler (default off) to
# disable_overlap_scheduler (default on); 0.19.0 (branched as 0.19.0rc0 in April) still has the old key
OVERLAP_ON_BY_DEFAULT = "0.20.0"
_ENABLE_OVERLAP = ("enable_overlap_scheduler", "pytorch_backend_config.enable_overlap_scheduler")
_DISABLE_OVERLAP = ("disable_overlap_scheduler", "pytorch_backend_config.disable_overlap_scheduler")


@vllm_rule(
    "TRT005", "context-server-overlap-scheduler", kind="unit", engine="trtllm", category=_C, severity=WARNING,
    roles=("prefill",),
    summary="Reports a context (prefill) server of the PyTorch backend whose settings do not disable the overlap "
            "scheduler (`disable_overlap_scheduler: true`).",
    why="TensorRT-LLM releases before PR #10755 (2026-01) reject context-only requests with the overlap scheduler "
        "on: \"Context only requests are not supported in pytorch backend when overlap is enabled.\" "
        "(NVIDIA/TensorRT-LLM PR #3323: \"context serve should disable overlap_scheduler\").",
    fix="Set `disable_overlap_scheduler: true` in the context server's settings (not at the top level of a "
        "disaggregated config, where generation servers inherit it), or run a release with PR #10755.",
    example="# ctx_extra-llm-api-config.yaml\ncache_transceiver_config:\n  backend: UCX",
    example_fixed="# ctx_extra-llm-api-config.yaml\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n  "
                  "backend: UCX",
    upstream="Context only requests are not supported in pytorch backend when overlap is enabled.",
    source="tensorrt_llm/_torch/pyexecutor/py_executor.py",
    notes="Version-dependent (a warning). Releases before 0.20 spelt the setting `enable_overlap_scheduler` and kept "
          "the scheduler off unless it was true (PR #4174): a context server that writes that key is reported only "
          "when it is true, and one whose image names a release before 0.20 only then. Not reported for the "
          "TensorRT (non-PyTorch) backend, which rejects the key itself (NVIDIA/TensorRT-LLM#7752). When the "
          "script that runs `trtllm-serve disaggregated -c CONFIG` also starts the servers at the config's URLs, "
          "those servers' own settings (their `--config` / `--extra_llm_api_options` file) are judged, not the "
          "config's `context_servers` block; so too for a config no proxy of the repository names (a script makes "
          "the one it passes) when a script of its directory starts the servers at its URLs. A `context_servers` "
          "block with only `num_instances` and `urls` (and "
          "no settings but `backend` / `model` at the top level) holds no server settings and is not judged "
          "(PD022 says its servers were not checked).")
def _overlap(dep):
    from pdlint.engines.sglang.flags import version_key
    out = []
    for launch in judged_servers(dep):
        info = launch.parsed
        if launch.role != "prefill" or not _pytorch(info):
            continue
        old_key = next((k for k in _ENABLE_OVERLAP if k in info.settings), None)
        if old_key is not None:  # a config for a release before the rename, where the scheduler is off unless enabled
            if info.truthy(old_key) is not True:
                continue
            out.append(VHit(f"{old_key}: true turns the overlap scheduler on for this context server; TensorRT-LLM "
                            f"rejects its requests: \"Context only requests are not supported in pytorch backend when "
                            f"overlap is enabled.\" (remove it or set it to false)", info.token(old_key),
                            launch=launch))
            continue
        key = next((k for k in _DISABLE_OVERLAP if k in info.settings), _DISABLE_OVERLAP[0])
        v = info.truthy(key)
        if v is True or (v is None and key in info.settings):
            continue
        if launch.argv and not info.complete:
            continue  # an options file pdlint could not read may disable it
        if info.release is not None and version_key(info.release) < version_key(OVERLAP_ON_BY_DEFAULT):
            continue  # the release the image names keeps the overlap scheduler off unless enabled
        tok = info.token(key)
        out.append(VHit("this context server keeps the overlap scheduler on; TensorRT-LLM releases before PR #10755 "
                        "reject its requests: \"Context only requests are not supported in pytorch backend when "
                        "overlap is enabled.\" (set disable_overlap_scheduler: true)", tok, launch=launch))
    return out


@vllm_rule(
    "TRT006", "generation-inherits-disable-overlap-scheduler", kind="launch", engine="trtllm", category=_C,
    severity=WARNING, roles=("decode",),
    summary="Reports `disable_overlap_scheduler: true` at the top level of a `trtllm-serve disaggregated` config, "
            "which generation servers inherit.",
    why="Only context servers need the overlap scheduler off; generation servers that inherit the top-level key "
        "silently lose it, and with it a large part of their decode throughput.",
    fix="Move `disable_overlap_scheduler: true` into `context_servers:`.",
    example="disable_overlap_scheduler: True\ncontext_servers:\n  ...\ngeneration_servers:\n  ...",
    example_fixed="context_servers:\n  disable_overlap_scheduler: True\n  ...\ngeneration_servers:\n  ...",
    notes="Not reported for a config that only `trtllm-serve disaggregated -c` reads when no "
          "`disaggregated_mpi_worker -c` builds servers from it and the servers at its URLs are started elsewhere "
          "(or not found): the proxy only routes and never applies the key (field report rw29/a).")
def _inherited_overlap(launch, info):
    if info is None or launch.role != "decode" or "disable_overlap_scheduler" not in info.inherited:
        return None
    if info.truthy("disable_overlap_scheduler") is not True:
        return None
    return VHit("generation servers inherit disable_overlap_scheduler: true from the top level of this config and "
                "lose the overlap scheduler; only context servers need it off", info.token("disable_overlap_scheduler"))


@vllm_rule(
    "TRT016", "disaggregated-config-invalid", kind="launch", engine="trtllm", category=_C,
    summary="Reports a `trtllm-serve disaggregated` config that TensorRT-LLM refuses to read at start-up: a key set "
            "both at the top level and in `context_servers` / `generation_servers` with different values, a "
            "server section whose `urls` count differs from its `num_instances` (1 when unset), a URL that is not "
            "`host:port` (a scheme, `http://host:8001`, a port that is no number, a number), `urls` written as a "
            "string, a `num_instances` written as a string, or parallel sizes TensorRT-LLM cannot multiply.",
    why="`trtllm-serve disaggregated -c` and `trtllm-serve disaggregated_mpi_worker -c` both read the config with "
        "`parse_disagg_config_file`: `extract_disagg_cfg` copies each top-level key into both server sections and "
        "raises `ValueError: Parameter KEY is specified both in the top-level and in the SECTION section, but with "
        "different values` when a section already sets it otherwise; `extract_ctx_gen_cfgs` raises `ValueError: "
        "Number of hostnames (N) should be equal to the number of instances (M)` - also for `num_instances: \"2\"`, "
        "a string never equal to a count - and splits each URL with `hostname, port_str = url.split(':')` (`ValueError: "
        "too many values to unpack` for `http://host:8001`; a string `urls` is split character by character). The "
        "proxy (or the workers) never "
        "start. Keeping a top-level `disable_overlap_scheduler: True` and switching it off under "
        "`generation_servers` is such a conflict.",
    fix="Set the key in one place only (the server sections, when context and generation servers need different "
        "values), make `num_instances` the number of `urls`, and write `urls` as a list of `host:port` (no scheme) "
        "and the counts and sizes as numbers.",
    example="disable_overlap_scheduler: True\ncontext_servers:\n  num_instances: 1\n  urls: [\"localhost:8001\", "
            "\"localhost:8003\"]\ngeneration_servers:\n  disable_overlap_scheduler: False\n  urls: "
            "[\"localhost:8002\"]",
    example_fixed="context_servers:\n  num_instances: 2\n  disable_overlap_scheduler: True\n  urls: "
                  "[\"localhost:8001\", \"localhost:8003\"]\ngeneration_servers:\n  disable_overlap_scheduler: "
                  "False\n  urls: [\"localhost:8002\"]",
    upstream="Parameter {key} is specified both in the top-level and in the {server_type} section, but with "
             "different values",
    source="tensorrt_llm/llmapi/disagg_utils.py (extract_disagg_cfg, extract_ctx_gen_cfgs)",
    notes="Values are compared as `yaml.safe_load` reads them (`True` and `true` are equal; mappings as a whole, so "
          "a section's `cache_transceiver_config` with one more key than the top-level one conflicts). The "
          "config's own parameters (`hostname`, `port`, `schedule_style`, ...) are not inherited and not compared. "
          "The `urls` count is not checked with `disagg_cluster` (the servers register themselves). Reported "
          "whether the config's servers are built from it or started elsewhere: the proxy reads it either way.")
def _config_invalid(launch, info):
    out = []
    for tok, message, related, fix in launch.meta.get("config_errors") or ():
        out.append(VHit(message, tok, [related_at(t, launch, note) for t, note in related], fix=fix))
    return out or None


#: the rules that judge a disaggregated config itself (what the proxy reads), not its servers' settings
CONFIG_RULES = frozenset({"TRT016"})


#: MPI launchers and the options that give the number of ranks (the world size ``disaggregated_mpi_worker`` splits)
_RANK_OPTIONS = {"mpirun": ("-n", "-np", "--n", "--np"), "mpiexec": ("-n", "-np", "--n", "--np"),
                 "orterun": ("-n", "-np", "--n", "--np"), "srun": ("-n", "--ntasks")}


#: options of those launchers that take a value as the next word (Open MPI, MPICH / Intel MPI, Slurm), by how many
#: words: the launcher's options end at the first other word that is not an option (its program: `mpirun
#: --oversubscribe nice -n 5 trtllm-serve ...` starts one rank per slot, the 5 is nice's, rw30/h P14)
_LAUNCHER_VALUES = {
    **dict.fromkeys(("-x", "-H", "--host", "-host", "-hosts", "-hostfile", "--hostfile", "-machinefile",
                     "--machinefile", "-f", "--map-by", "-map-by", "--bind-to", "-bind-to", "--rank-by", "-npernode",
                     "--npernode", "-N", "-ppn", "-wdir", "--wdir", "-wd", "--prefix", "--output-filename", "--tmpdir",
                     "--app", "-am", "--am", "--launch-agent", "--cpus-per-proc", "--cpus-per-rank", "-genvlist",
                     "-envlist", "-iface", "--timeout", "--nodes", "-c", "--cpus-per-task", "--gres", "--gpus", "-G",
                     "--gpus-per-node", "--gpus-per-task", "-p", "--partition", "-w", "--nodelist", "-t", "--time",
                     "--mpi", "--export", "-o", "--output", "-e", "--error", "-J", "--job-name", "--container-image",
                     "--container-mounts", "--container-workdir", "--container-name", "--container-env", "-A",
                     "--account", "--qos", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--exclude",
                     "--ntasks-per-node", "--ntasks-per-gpu", "--cpu-bind", "--distribution", "-m", "-D", "--chdir",
                     "-C", "--constraint", "--reservation", "--jobid", "--het-group"), 1),
    **dict.fromkeys(("-mca", "--mca", "-gmca", "--gmca", "-env", "-genv"), 2)}


def _world_size(launch) -> Optional[tuple]:
    """``(ranks, token)`` an MPI launcher in front of the launch starts (``mpirun -n 4``, ``srun --ntasks=4``), or
    None when none is written with a literal count among the launcher's own options."""
    words = launch.meta.get("wrapper_words") or ()
    for k, w in enumerate(words):
        opts = _RANK_OPTIONS.get(w.text.rsplit("/", 1)[-1])
        if opts is None:
            continue
        j = k + 1
        while j < len(words):
            text = words[j].text
            if not text.startswith("-") or words[j].opaque:
                break  # the launcher's program (or a word pdlint cannot read): its options end here
            name, eq, value = text.partition("=")
            if name in opts:
                tok = words[j][len(name) + 1:] if eq else (words[j + 1] if j + 1 < len(words) else None)
                if tok is None or tok.opaque or not tok.text.isdigit():
                    return None
                return int(tok.text), tok
            j += 1 + (0 if eq else _LAUNCHER_VALUES.get(name, 0))
        return None
    return None


@vllm_rule(
    "TRT017", "mpi-world-size-not-the-workers", kind="unit", engine="trtllm", category=_C,
    summary="Reports `mpirun -n N trtllm-serve disaggregated_mpi_worker -c CONFIG` (also `mpiexec`, `srun -n`) whose "
            "N is not the number of ranks the config's servers need: for each distinct URL of `context_servers` and "
            "`generation_servers`, `tensor_parallel_size` x `pipeline_parallel_size` x `context_parallel_size`; and "
            "a config read by `disaggregated_mpi_worker` whose servers it cannot count: a URL one section lists "
            "twice, or a parallel size written as a string.",
    why="`disaggregated_mpi_worker` splits MPI_COMM_WORLD into one communicator per server instance "
        "(`split_world_comm`) and first asserts `global_size (N) should be equal to the number of distinct workers "
        "(M)`: every rank stops at start-up, and the proxy waits for servers that never come.",
    fix="Start as many ranks as the config's servers need (the sum over its URLs of TP x PP x CP), or change the "
        "config's `num_instances` / `urls` / parallel sizes to the ranks you start.",
    example="# disagg_config.yaml: context_servers {num_instances: 2, tensor_parallel_size: 2, urls: [..8001, ..8002]}"
            ", generation_servers {tensor_parallel_size: 2, urls: [..8003]}\n"
            "mpirun -n 4 trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml",
    example_fixed="mpirun -n 6 trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml",
    upstream="global_size ({global_size}) should be equal to the number of distinct workers ({num_workers})",
    source="tensorrt_llm/llmapi/disagg_utils.py (split_world_comm, get_server_configs_dict, extract_ctx_gen_cfgs)",
    notes="`get_server_configs_dict` raises `ValueError: Duplicated ctx server config for ('localhost', 8001)` on "
          "a URL one section lists twice, and `TypeError: unsupported operand type(s) for +=: 'int' and 'str'` "
          "when a section's ranks are a string (`pipeline_parallel_size: \"1\"` times 2 is `\"11\"`): reported at "
          "the config's line, whatever N (field report rw30/h problems 4, 5); the rank count is then not compared. "
          "A URL listed by both sections is one worker (a mixed server). Not reported when a count or a parallel size "
          "is a value pdlint cannot see, for a config with `disagg_cluster` (no URLs) or without URLs, or when "
          "the rank count is not written on the launcher (a scheduler's allocation). Field report rw29/a problem 8.")
def _world_size_mismatch(dep):
    out, reported = [], set()
    for l in dep.launches:
        info = l.parsed
        if l.engine != "trtllm" or not l.entrypoint.endswith("disaggregated_mpi_worker") or \
                not isinstance(info, TrtInfo) or not info.proxy_config:
            continue
        groups = [d for d in dep.launches if described(d) and d.path == info.proxy_config]
        stops = False
        for g in groups:
            # what get_server_configs_dict raises before the count (a URL listed twice, a string of ranks), or a
            # config parse_disagg_config_file refuses (TRT016): the count is not what stops the workers
            stops = stops or bool(g.meta.get("config_errors") or g.meta.get("mpi_errors"))
            for tok, message, related, fix in g.meta.get("mpi_errors") or ():
                if (id(g), message) in reported:
                    continue
                reported.add((id(g), message))
                out.append(VHit(f"{message}; disaggregated_mpi_worker -c {info.proxy_config} stops at start-up "
                                f"(split_world_comm -> get_server_configs_dict), every rank with it", tok,
                                [related_at(t, g, note) for t, note in related] +
                                [related_at(None, l, "disaggregated_mpi_worker reads this config")],
                                launch=g, fix=fix))
        world = _world_size(l)
        if world is None or not groups or stops:
            continue
        workers, parts, seen = 0, [], set()
        for g in groups:
            gi = g.parsed
            urls = [u for u in dict.fromkeys(g.meta.get("urls") or ()) if u not in seen]
            sizes = [gi.tp() if isinstance(gi, TrtInfo) else None] + [
                (gi.int(k) if k in gi.settings else 1) if isinstance(gi, TrtInfo) else None
                for k in ("pipeline_parallel_size", "context_parallel_size")]
            if not g.meta.get("urls") or any(x is None or x < 1 for x in sizes) or \
                    any(split_url(u) is None for u in urls):
                break
            seen.update(urls)
            ranks = sizes[0] * sizes[1] * sizes[2]
            workers += ranks * len(urls)
            parts.append(f"{_section(g)}: {len(urls)} URL{'s' if len(urls) != 1 else ''} x {ranks} rank"
                         f"{'s' if ranks != 1 else ''}")
        else:
            n, tok = world
            if n != workers:
                out.append(VHit(f"the launcher starts {n} MPI rank{'s' if n != 1 else ''}, but {info.proxy_config}'s "
                                f"servers need {workers} ({'; '.join(parts)}): disaggregated_mpi_worker stops at "
                                f"start-up with \"global_size ({n}) should be equal to the number of distinct workers "
                                f"({workers})\"", tok,
                                [related_at(g.meta["url_tokens"][0], g, f"{_section(g)} of the config")
                                 for g in groups if g.meta.get("url_tokens")], launch=l))
    return out


# -- trtllm-serve launches vs the disaggregated config's URLs ------------------------------------------

def _linked(dep):
    """(described servers with their URL tokens, started servers) of a deployment whose proxy links them; None
    when there is no such link or some started server's address is not known."""
    linked = linked_servers(dep)
    if not linked:
        return None
    servers = [l for l in dep.launches if started(l)]
    if not servers or any(s.parsed.listen() is None for s in servers):
        return None
    described_here = [l for l in dep.launches if id(l) in linked]
    return described_here, servers


def _section(launch) -> str:
    return "context_servers" if launch.role == "prefill" else "generation_servers"


@vllm_rule(
    "TRT007", "disaggregated-url-without-server", kind="unit", engine="trtllm", category=_C,
    summary="Reports a `context_servers.urls` / `generation_servers.urls` entry of a disaggregated config at which "
            "no `trtllm-serve` of the script that starts the proxy (`trtllm-serve disaggregated -c CONFIG`) "
            "listens.",
    why="The disaggregated proxy routes each request's context and generation phases to the URLs of its config; "
        "it waits for every listed server to answer `/health`, and a URL where nothing listens keeps it from "
        "serving (or fails the requests sent there). A port typed twice differently (config `8002`, server "
        "`--port 8003`) is the usual cause.",
    fix="Make the URL and the server's `--host`/`--port` agree, or remove the URL (and lower `num_instances`).",
    example="# disagg_config.yaml\ngeneration_servers:\n  urls: [\"localhost:8002\"]\n"
            "# run.sh\ntrtllm-serve M --port 8003 --config gen_config.yaml &\n"
            "trtllm-serve disaggregated -c disagg_config.yaml",
    example_fixed="# run.sh\ntrtllm-serve M --port 8002 --config gen_config.yaml &",
    notes="Checked only when the proxy's `-c` file is found and every `trtllm-serve` server of its script has a "
          "literal `--host`/`--port` (defaults localhost:8000); `localhost`, `127.0.0.1` and `0.0.0.0` match any "
          "host.")
def _url_without_server(dep):
    got = _linked(dep)
    if got is None:
        return None
    described_here, servers = got
    out = []
    for l in described_here:
        for url, tok in zip(l.meta.get("urls") or (), l.meta.get("url_tokens") or ()):
            if split_url(url) is None or any(url_matches(url, s) for s in servers):
                continue
            ports = ", ".join(f"{h}:{p}" for h, p, _ in (s.parsed.listen() for s in servers))
            out.append(VHit(f"{_section(l)} lists {url}, but no trtllm-serve the proxy's script starts listens "
                            f"there (they listen on {ports}): the disaggregated proxy cannot reach it", tok,
                            [related_at(s.parsed.listen()[2], s, "a server of the script") for s in servers],
                            launch=l))
    return out


@vllm_rule(
    "TRT008", "server-not-in-disaggregated-config", kind="unit", engine="trtllm", category=_C, severity=WARNING,
    summary="Reports a `trtllm-serve` started by the script that runs the disaggregated proxy whose host:port is "
            "in none of the config's `urls`, or in the list of the other role, or whose role pdlint cannot tell "
            "because its `--host`/`--port` is a value it cannot see.",
    why="The proxy sends requests only to the URLs of its config: a server missing there holds GPUs and is never "
        "used. A server listed under `generation_servers` that loads a context options file (or the reverse) "
        "runs the other role's settings (overlap scheduler, batch sizes, cache transceiver buffers).",
    fix="Add the server's host:port to the `urls` of its role (and raise `num_instances`), or stop starting it; "
        "list a server under the role its options file is written for.",
    example="# disagg_config.yaml\ncontext_servers:\n  urls: [\"localhost:8001\"]\n"
            "# run.sh\ntrtllm-serve M --port 8001 --config ctx_config.yaml &\n"
            "trtllm-serve M --port 8004 --config ctx_config.yaml &\ntrtllm-serve disaggregated -c disagg_config.yaml",
    example_fixed="# disagg_config.yaml\ncontext_servers:\n  urls: [\"localhost:8001\", \"localhost:8004\"]",
    notes="A server of the proxy's script whose role nothing of its own names (`--server_role`, an options file "
          "named for a role) takes the role of the `urls` list its host:port is in; when that address is a value "
          "pdlint cannot see (`--port $CTX_PORT`), the server's role is unknown: it is reported here, as its "
          "role-specific checks did not run and it was not paired.")
def _server_not_in_config(dep):
    out = _unplaced(dep)
    got = _linked(dep)
    if got is None:
        return out
    described_here, servers = got
    config = described_here[0].path if described_here else "the config"
    for s in servers:
        listed = [l for l in described_here if any(url_matches(u, s) for u in l.meta.get("urls") or ())]
        host, port, tok = s.parsed.listen()
        if not listed:
            out.append(VHit(f"this trtllm-serve listens on {host}:{port}, which is in neither context_servers.urls "
                            f"nor generation_servers.urls of {config}: the disaggregated proxy never sends it "
                            f"requests", tok, launch=s))
            continue
        roles = {l.role for l in listed}
        if s.role in ("prefill", "decode") and s.role not in roles and len(roles) == 1:
            (l,) = listed[:1]
            out.append(VHit(f"this trtllm-serve loads {s.parsed.options_file} ({_name(s.role)} settings) but "
                            f"{config} lists {host}:{port} under {_section(l)}", tok,
                            [related_at(next(t for u, t in zip(l.meta.get('urls') or (), l.meta.get('url_tokens')
                                                                or ()) if url_matches(u, s)), l,
                                        f"listed under {_section(l)}")], launch=s))
    return out


def _unplaced(dep) -> list:
    """A server of a proxy's script with no role whose host or port pdlint cannot see: which URL of the config
    it serves, and so its role, is unknown (never a silent pass)."""
    linked = linked_servers(dep)
    if not linked:
        return []
    config = next((l.path for l in dep.launches if id(l) in linked), "the config")
    out = []
    for s in dep.launches:
        if not started(s) or s.role is not None or s.parsed.listen() is not None:
            continue
        cli = s.parsed.cli
        at = next(((opt, t) for opt, t in (("--port", cli.value("--port")), ("--host", cli.value("--host")))
                   if t is not None and (t.opaque or opt == "--port")), (None, None))
        opt, tok = at
        what = f"{opt} {tok.text}" if tok is not None else "its address"
        out.append(VHit(f"this trtllm-serve names no role of its own and pdlint cannot see the address it listens "
                        f"on ({what}), so it cannot tell which of the urls of {config} it serves: its role is "
                        f"unknown, its role-specific checks did not run and it was not paired (write the port "
                        f"literally, or load an options file named for its role, e.g. ctx_config.yaml)", tok,
                        launch=s))
    return out


# -- cache_transceiver_config.backend (TensorRT-LLM >= 1.0.0rc4) ---------------------------------------

TRANSCEIVER = ("kv_cache_transceiver is disabled, please set 'cache_transceiver_config: backend:<backend_type>` "
               "in config file for disaggregated serving")
FIRST_RELEASE = "1.0.0rc4"


def _transceiver_unset(dep, pinned: bool):
    from pdlint.engines.sglang.flags import version_key
    out = []
    for launch in judged_servers(dep):
        info = launch.parsed
        if launch.role not in ("prefill", "decode") or not _pytorch(info) or BACKEND in info.settings:
            continue
        if launch.argv and not info.complete:
            continue  # an options file pdlint could not read may set it
        if (info.release is not None) != pinned:
            continue
        if pinned and version_key(info.release) < version_key(FIRST_RELEASE):
            continue
        tok = next((v for k, v in info.settings.items() if k.startswith("cache_transceiver_config.")), None)
        where = f"TensorRT-LLM {info.release}" if pinned else f"TensorRT-LLM {FIRST_RELEASE} and later"
        out.append(VHit(f"this {_name(launch.role)} server sets no cache_transceiver_config.backend: {where} then "
                        f"creates no KV cache transceiver and fails its first disaggregated request: "
                        f"\"{TRANSCEIVER}\"", tok, launch=launch))
    return out


_TRANSCEIVER_WHY = ("Since 1.0.0rc4 the KV cache transceiver exists only when `cache_transceiver_config.backend` is "
                    "set (`DEFAULT`, `UCX`, `NIXL`, `MPI`, `MOONCAKE`); `enable_cache_transceiver: true` or a "
                    "`cache_transceiver_config` with only `max_tokens_in_buffer` no longer enables it, and the "
                    "server's first context-only or generation-only request fails the assertion "
                    "(ai-dynamo/dynamo PR #2278, ai-dynamo/aiconfigurator PR #585).")


@vllm_rule(
    "TRT009", "cache-transceiver-backend-unset", kind="unit", engine="trtllm", category=_C,
    summary="Reports a context or generation server of TensorRT-LLM 1.0.0rc4 or later (a release named by its image "
            "tag) without `cache_transceiver_config.backend`.",
    why=_TRANSCEIVER_WHY, upstream=TRANSCEIVER, source="tensorrt_llm/executor/worker.py (base_worker.py later)",
    fix="Add `cache_transceiver_config: {backend: DEFAULT}` (or the backend you use) to the server's settings.",
    example="# image nvcr.io/nvidia/tensorrt-llm/release:1.0.0rc4\ncache_transceiver_config:\n  "
            "max_tokens_in_buffer: 8192",
    example_fixed="cache_transceiver_config:\n  backend: DEFAULT\n  max_tokens_in_buffer: 8192",
    notes="Checked on the PyTorch backend (the default of trtllm-serve), where the assertion applies.")
def _transceiver_pinned(dep):
    return _transceiver_unset(dep, True)


@vllm_rule(
    "TRT010", "cache-transceiver-backend-unset-unpinned", kind="unit", engine="trtllm", category=_C,
    severity=WARNING,
    summary="Reports a context or generation server without `cache_transceiver_config.backend` when no "
            "TensorRT-LLM release is named (TensorRT-LLM 1.0.0rc4 and later fail its first request).",
    why=_TRANSCEIVER_WHY + " Earlier releases enabled the transceiver from `enable_cache_transceiver` or "
                           "`TRTLLM_USE_UCX_KVCACHE`, so this is a warning when the release is not known.",
    upstream=TRANSCEIVER, source="tensorrt_llm/executor/worker.py (base_worker.py later)",
    fix="Add `cache_transceiver_config: {backend: DEFAULT}` (or the backend you use), or name the release in the "
        "image tag.",
    example="context_servers:\n  cache_transceiver_config:\n    enable_cache_transceiver: true",
    example_fixed="context_servers:\n  cache_transceiver_config:\n    backend: DEFAULT")
def _transceiver_unpinned(dep):
    return _transceiver_unset(dep, False)
