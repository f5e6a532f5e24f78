"""Role-keyed configuration files: a mapping whose keys name the roles.

Each reader returns launches (not yet interpreted by an engine adapter) whose
``structural_role`` is the role the key names, with the key's origin:

* srt-slurm (srtctl) recipes: ``backend.sglang_config.prefill`` / ``decode``
  (SGLang flag dicts: srtctl writes ``--disaggregation-mode <key>`` and then
  the dict's flags as its ``_config_to_cli_args`` does: true is the bare flag,
  false and null write nothing) plus ``backend.prefill_environment`` /
  ``decode_environment``: SGLang virtual launches whose argv tokens are traced
  to the YAML keys and values; ``trtllm_config`` (TRT-LLM settings) and
  ``vllm_config`` (``python -m dynamo.vllm`` flags) likewise; override files
  (``base`` + ``override_*`` / ``zip_override_*``) are expanded into their
  variants first (:mod:`pdlint.formats.srt_overrides`), and a recipe's
  ``sweep:`` into its jobs (:mod:`pdlint.formats.srt_sweep`).
* TRT-LLM ``trtllm-serve disaggregated`` configs: ``context_servers`` /
  ``generation_servers``, each inheriting the top-level keys it does not set
  (TRT-LLM fills missing keys of each server group from the top level; nested
  mappings are not merged).  Launches have ``engine='trtllm'``, ``argv=[]``
  and ``meta['settings']`` = {dotted key: TStr of the value}.  A group with
  ``urls`` and no settings but ``backend`` / ``model`` only routes to servers
  started elsewhere with their own settings: ``meta['routes_only']``, and the
  launch is incomplete.
* TRT-LLM's slurm benchmark config (``worker_config.ctx`` / ``gen``: the per-role
  LLM-API option files its submit.py writes).
* TRT-LLM per-role LLM-API option files (``ctx_*.yaml`` / ``gen_*.yaml``,
  ``--extra_llm_api_options``; Dynamo ``engine_configs/**/prefill.yaml`` /
  ``decode.yaml``): the role comes from the file name.
* LMCache per-role configs (``pd_role: sender`` / ``receiver``):
  ``engine='lmcache'`` launches with ``meta['settings']``.
* Helm values role sections (:func:`values_launches`): llm-d modelservice
  (``prefill.containers[]`` with ``modelCommand: vllmServe``,
  ``parallelism.tensor``), vllm-stack ``servingEngineSpec.modelSpec[]``
  (``lmcacheConfig.kvRole``), and charts whose ``prefill:``/``decode:``
  sections hold flag-like keys (``config: {chunkedPrefillSize: ...}``) or
  ``args``/``extraArgs`` lists.  Keys map to flags by name only; the chart's
  templates decide for real (``pdlint.formats.helm`` renders them when it can).
  Outside a chart, a role section whose name or image says vLLM, or whose args
  hold ``--kv-transfer-config``, is ``vllm serve MODEL ARGS`` (LMCache's CI
  configs: ``vllm-prefiller: {model, args}``); its keys are read as SGLang
  flags only when the file names SGLang (:func:`_sglang_signal`).
"""

from __future__ import annotations

import json
import os
import re
from typing import Optional

from pdlint import lazyre
from pdlint.formats import crd, kube
from pdlint.formats import yamltree as yt
from pdlint.model import Launch, Origin
from pdlint.text import TStr

TRTLLM_KEYS = {
    "tensor_parallel_size", "pipeline_parallel_size", "moe_expert_parallel_size", "moe_tensor_parallel_size",
    "enable_attention_dp", "disable_overlap_scheduler", "cache_transceiver_config", "kv_cache_config",
    "cuda_graph_config", "moe_config", "max_num_tokens", "max_batch_size", "max_seq_len", "enable_chunked_prefill",
    "print_iter_log", "stream_interval", "enable_min_latency", "speculative_config", "scheduler_config",
    "use_cuda_graph", "cuda_graph_batch_sizes", "cuda_graph_padding_enabled", "attn_backend", "kv_cache_dtype",
    "enable_iter_perf_stats", "context_parallel_size", "gpus_per_node", "free_gpu_memory_fraction",
    "trust_remote_code", "backend", "build_config", "enable_layerwise_nvtx_marker", "num_postprocess_workers",
}
DISAGG_SERVER_KEYS = {"num_instances", "urls", "router", "hostname", "port", "max_retries"}
DISAGG_TOP_ONLY = {"hostname", "port", "context_servers", "generation_servers", "conditional_disagg_config",
                   "max_retries", "perf_metrics_max_requests", "disagg_cluster", "otlp_config"}
# keys that name what a disaggregated config's servers run, not how: a server group whose settings are only
# these (and the routing keys) holds none of the servers' settings
DISAGG_NAMING_KEYS = {"backend", "model"}
LMCACHE_KEYS = {"pd_role", "enable_pd", "transfer_channel", "pd_buffer_size", "pd_proxy_host", "pd_peer_host",
                "local_cpu", "max_local_cpu_size", "chunk_size", "remote_url", "pd_buffer_device"}
_CAMEL = lazyre.compile(r"(?<=[a-z0-9])([A-Z])")


def launches(job, src, doc: TStr, docs: list) -> list:
    """Launches of a role-keyed file (empty when it is none of the known shapes)."""
    if len(docs) != 1 or docs[0].root is None:
        return []
    root = yt.Ref(docs[0].root)
    if not isinstance(yt.deref(root).node, yt.YMap):
        return []
    keys = {k for k, _ in yt.map_items(root)}
    if "kind" in keys and "apiVersion" in keys:
        return []
    backend = yt.get(root, "backend")
    if any(yt.get(backend, k) is not None for k in ("sglang_config", "trtllm_config", "vllm_config")):
        return srt_slurm(job, src, doc, root)
    if "context_servers" in keys or "generation_servers" in keys:
        return trtllm_disagg(job, src, doc, root)
    workers = yt.get(root, "worker_config") if "worker_config" in keys else None
    if workers is not None and any(r is not None and isinstance(yt.deref(r).node, yt.YMap)
                                   for r in (yt.get(workers, "ctx"), yt.get(workers, "gen"))):
        return trtllm_slurm_benchmark(job, src, doc, root)
    if "pd_role" in keys or (len(keys & LMCACHE_KEYS) >= 3 and "enable_pd" in keys):
        return lmcache(job, src, doc, root)
    if "applications" in keys:
        found = ray_serve_llm(job, src, doc, root)
        if found:
            return found
    if "cache_transceiver_config" in keys or (len(keys & TRTLLM_KEYS) >= 3 and
                                              len(keys - TRTLLM_KEYS) <= len(keys & TRTLLM_KEYS) // 2):
        return trtllm_options(job, src, doc, root)
    if _chart_dir(job.abspath) is not None:
        return []  # a chart's values.yaml: the Helm adapter renders the chart
    return values_launches(job, src, doc, root, unit=job.display)


def _chart_dir(abspath: str) -> Optional[str]:
    d = os.path.dirname(abspath)
    if os.path.basename(abspath).startswith("values") and os.path.isfile(os.path.join(d, "Chart.yaml")):
        return d
    return None


def _first(doc: TStr, ref) -> TStr:
    return crd.at_node(doc, ref, "") if ref is not None else TStr("", ())


def _key_origin(doc: TStr, parent, key: str) -> Optional[Origin]:
    t = crd.key_tstr(doc, parent, key)
    return t.origin if t is not None and t.pieces else None


def _launch(src, line: int, engine: str, entry: str, role: Optional[str], origin: Optional[Origin], how: str,
            unit: str, context: str, argv=None, env=None, command=None, **meta) -> Launch:
    l = Launch(path=src.path, line=line, engine=engine, entrypoint=entry, kind="server", command=list(command or []),
               argv=list(argv or []), env=dict(env or {}), context=context)
    if role in ("prefill", "decode"):
        l.structural_role = role
        l.structural_origin = origin
        l.meta["role_how"] = how
    l.unit = unit
    l.meta["unit"] = unit
    l.meta["keyed"] = True
    l.meta.update(meta)
    return l


def _env_map(doc: TStr, ref) -> dict:
    env = {}
    for k, v in yt.map_items(ref) if ref is not None else []:
        if isinstance(yt.deref(v).node, yt.YScalar):
            env[k] = yt.scalar_tstr(doc, v)
    return env


def is_srt_sweep(root: yt.Ref) -> bool:
    """A plain srt-slurm recipe with a ``sweep:`` section (an override file's sweep is expanded with it)."""
    from pdlint.formats import srt_sweep
    if not srt_sweep.is_sweep_recipe(root) or yt.get(root, "kind") is not None:
        return False
    backend = yt.get(root, "backend")
    return any(yt.get(backend, k) is not None for k in srt_sweep.CONFIG_KEYS)


def srt_recipes(job, src, doc: TStr, root: yt.Ref) -> tuple:
    """An srt-slurm override file (``base`` + ``override_*`` / ``zip_override_*``) or a recipe with a
    ``sweep:``: (launches of every job srtctl submits, [(rule, token, message)] of what srtctl refuses and what
    pdlint could not check).  As ``srtctl apply`` does, an override file's variants are resolved first and each
    one with a ``sweep`` section is then swept (:mod:`pdlint.formats.srt_sweep`)."""
    from pdlint import format_rules as F
    from pdlint.formats import srt_overrides as so
    problems: dict = {}  # (code, place) -> (rule, token, message): a base line is one problem for every variant
    if so.is_override_file(root):
        variants, errors = so.variants(root)
        for e in errors:
            _problem(problems, doc, F.SRT_OVERRIDE, so.section_key(root, e.key), f"srtctl refuses this section: "
                                                                                  f"{e.message}")
    else:
        variants = [None]
    out: list = []
    for v in variants:
        out += _swept(job, src, doc, v.root if v is not None else root, v, problems)
    return out, list(problems.values())


def _problem(problems: dict, doc: TStr, rule, where, message: str) -> None:
    if isinstance(where, TStr):
        tok = where
    else:
        tok = doc[where.start:where.end] if where is not None else None
    key = (rule.code, tok.origin_key() if tok is not None and tok.pieces else None, message)
    problems.setdefault(key, (rule, tok, message))


def _swept(job, src, doc: TStr, root: yt.Ref, variant, problems: dict) -> list:
    """The launches of one recipe: of every job of its sweep (at most ``MAX_SWEEP_VARIANTS``), else its own."""
    from pdlint import core_rules as C
    from pdlint import format_rules as F
    from pdlint.formats import srt_overrides as so
    from pdlint.formats import srt_sweep as sw
    grid, errors = sw.grid(root)
    for node, message in errors:
        _problem(problems, doc, F.SRT_OVERRIDE, node, message)
    if errors:
        return []
    if grid is None:
        return srt_slurm(job, src, doc, root, variant=variant)
    jobs = sw.pick(grid)
    n = sw.total(grid)
    if n > len(jobs):
        sizes = [len(v) for v in grid.values]
        which = "every value of each key in one of them at least, then the first ones in srtctl's order" \
            if max(sizes) <= len(jobs) else f"the first {len(jobs)} values of each key, one job each"
        _problem(problems, doc, C.LIMIT, grid.section,
                 f"the sweep makes {n} jobs ({' x '.join(map(str, sizes))} values); only {len(jobs)} were checked "
                 f"({which})")
    name = variant.name if variant is not None else (crd.text_at(root, "name") or "unnamed")
    unresolved: list = []
    out: list = []
    for one in jobs:
        swept = yt.Ref(sw.expand(doc, root, one, unresolved))
        label = f"{variant.label} {sw.job_label(one)}" if variant is not None else sw.job_label(one)
        v = so.Variant(variant.key if variant is not None else "sweep", label, sw.job_name(name, one), swept)
        out += srt_slurm(job, src, doc, swept, variant=v)
    for u in unresolved:
        _problem(problems, doc, C.UNDEFINED, u.at,
                 f"undefined variable '{u.name}': the sweep has no key {u.name}, so srtctl leaves "
                 f"'{{{u.name}}}' as written and the server gets it literally")
    return out


#: an srt-slurm container alias that reads like a release (`0.5.7`, `v0.5.6.post2`)
_ALIAS_RELEASE = lazyre.compile(r"v?\d+\.\d+\.\d+(?:\.post\d+)?")


def srt_slurm(job, src, doc: TStr, root: yt.Ref, variant=None) -> list:
    backend = yt.get(root, "backend")
    if yt.get(backend, "sglang_config") is None and yt.get(backend, "trtllm_config") is not None:
        return srt_slurm_trtllm(job, src, doc, root, variant)
    if yt.get(backend, "sglang_config") is None and yt.get(backend, "vllm_config") is not None:
        return srt_slurm_vllm(job, src, doc, root, variant)
    cfg = yt.get(backend, "sglang_config")
    image = crd.text_at(root, "model", "container") or crd.text_at(root, "identity", "container", "image") or ""
    from pdlint.engines.sglang import flags
    fw = (crd.text_at(root, "identity", "frameworks", "sglang") or "").strip().lstrip("vV")
    if not flags.is_release_name(fw):
        fw = ""  # a nightly build's name (`nightly-dev-cu13-20260805-211ee642`): no release pinned
    from pdlint.engines.sglang import dynamo
    if dynamo.image_version(image):  # a Dynamo runtime's tag is Dynamo's release: the SGLang it pins
        version = fw or dynamo.sglang_pin(image)
    else:
        m = re.search(r"sglang[^:+\s]*[:+]v?(\d+\.\d+\.\d+(?:\.post\d+)?)", image)  # lmsysorg+sglang+v0.5.5.sqsh too
        version = fw or (m.group(1) if m else None)
    picked, why = flags.pick(version)
    note = f"; {why}" if why else ""
    if version:
        image = f"sglang:v{version}"  # the engine judges against the same table
    name = variant.name if variant is not None else (crd.text_at(root, "name") or os.path.basename(job.display))
    of = f" variant {variant.label}" if variant is not None else ""
    out = []
    common = yt.get(cfg, COMMON_KEY) if cfg is not None else None
    if common is not None and not isinstance(yt.deref(common).node, yt.YMap):
        common = None
    for key, ref in yt.map_items(cfg) if cfg is not None else ():
        role = crd.role_of_value(key) or crd.role_of_name(key)
        if not isinstance(yt.deref(ref).node, yt.YMap) or (common is not None and key == COMMON_KEY):
            continue
        # srtctl's _config_to_cli_args (backends/sglang.py build_worker_command); a `common` section (no srtctl
        # key: the launchers that write one give its flags to every server, the server's own win) first
        own = {_flag_key(k) for k, _ in yt.map_items(ref)}
        covers: list = []
        argv = (cli_tokens(doc, common, skip=own | SRTCTL_POPPED, covers=covers) if common is not None else []) \
            + cli_tokens(doc, ref, skip=SRTCTL_POPPED, covers=covers)
        knode = yt.key_node(cfg, key)
        own_mode = any(k.replace("_", "-") == "disaggregation-mode" for k, _ in yt.map_items(ref))
        if role in ("prefill", "decode") and knode is not None and not own_mode:
            # srtctl writes `--disaggregation-mode <mode>` before the recipe's flags.  A recipe that sets the mode
            # itself comes later and wins (argparse keeps the last), so srtctl's pair changes nothing: it is left
            # out rather than reported as a duplicate at a token nobody wrote (a recipe mode naming the other
            # role is PD101 at the recipe's key)
            argv = [crd.at_node(doc, yt.Ref(knode), "--disaggregation-mode"), crd.at_node(doc, yt.Ref(knode), role)] \
                + argv
        argv = _srt_model_path(doc, root) + _srt_served_name(doc, cfg) + argv
        env = _env_map(doc, yt.get(backend, f"{key}_environment"))
        line = _key_origin(doc, cfg, key)
        l = _launch(src, line.line if line else 1, "sglang", "python -m sglang.launch_server", role, line,
                    f"srt-slurm recipe key sglang_config.{key}", f"{job.display}#recipe/{name}",
                    f"srt-slurm recipe {name!r}{of} sglang_config.{key} (srtctl turns it into server flags and "
                    f"adds --disaggregation-mode, the model path, ports and node addresses{note})", argv=argv, env=env, image=image,
                    replicas=_int(crd.at(root, "resources", f"{key}_workers")), covers=covers, srtctl_str=True)
        l.incomplete = True
        if not version and _ALIAS_RELEASE.fullmatch(image.strip()):
            # `container: "v0.5.7"`: an alias the site's srtslurm.yaml maps to an image; what release it is is not in
            # the repository (field test rw21/b, NVIDIA/srt-slurm): said in SGL012, with the key that pins it
            l.meta["unpinned_why"] = (f"the recipe's `model.container: {image.strip()}` is an alias of the site's "
                                      f"srtslurm.yaml, whose image pdlint cannot see; `identity.frameworks.sglang` "
                                      f"pins the release")
        if common is not None:
            l.context += " with sglang_config.common before it"
        if variant is not None:
            l.meta["variant"] = variant.label
        out.append(l)
    table = flags.load(picked)
    _foreign_sections(doc, root, out, lambda k: table.lookup("--" + k.replace("_", "-")) is not None)
    return out


# The keys srtctl's ``build_worker_command`` pops from each ``sglang_config`` section before it turns the rest
# into flags, passing its own ``--model-path`` (the Hugging Face id of an ``hf:`` model, else ``/model``, the
# mount point), ``--served-model-name``, ``--nccl-port`` (SGLANG_NCCL_PORT_BASE + the worker's offset) and, for
# its sidecar frontend only, ``--grpc-port``: NVIDIA/srt-slurm src/srtctl/backends/sglang.py:309-318 (commit
# c88ef731: model-path, served-model-name, nccl-port, with `_` spellings) and build_worker_command's
# `config.pop("grpc-port")` / `("grpc_port")` of commit 00660c91 (sidecar frontend).  A recipe's own value never
# reaches the server (field test rw18/o, repro 8: InferenceX's `model-path: /model/` beside `model.path: hf:...`
# was a false SGL007 naming /model/ as the path SGLang uses).
SRTCTL_POPPED = frozenset({"model-path", "served-model-name", "nccl-port", "grpc-port"})


def _srt_served_name(doc: TStr, cfg) -> list:
    """``--served-model-name NAME`` as srtctl passes it to every worker (``get_served_model_name``,
    backends/sglang.py): the first of the ``prefill``, ``aggregated``, ``decode`` sections that names one
    (``served-model-name`` or ``served_model_name``); none: the model directory's name, which pdlint cannot
    see (nothing)."""
    for section in ("prefill", "aggregated", "decode"):
        ref = yt.get(cfg, section) if cfg is not None else None
        if ref is None or not isinstance(yt.deref(ref).node, yt.YMap):
            continue
        for key in ("served-model-name", "served_model_name"):
            v = yt.get(ref, key)
            text = yt.scalar_text(v) if v is not None else None
            if isinstance(text, str) and text:
                knode = yt.key_node(ref, key)
                flag = yt.scalar_tstr(doc, yt.Ref(knode)) if knode is not None else None
                ftok = config_merge_as(flag, "--served-model-name") if flag is not None and flag.pieces \
                    else TStr.synthetic("--served-model-name", "<srtctl>")
                return [ftok, config_merge_as(yt.scalar_tstr(doc, v), text)]
    return []


def _srt_model_path(doc: TStr, root: yt.Ref) -> list:
    """``--model-path ID`` for a recipe's ``model.path: "hf:ID"``: srtctl gives the server the model it names
    (a Hugging Face id; an alias of ``srtslurm.yaml``'s ``model_paths`` is a path pdlint cannot see: nothing).
    Rules that know a model family read it (SGL815 is quiet for MLA models: NVIDIA/srt-slurm's DeepSeek-R1
    recipes got 24 false warnings without it)."""
    ref = crd.at(root, "model", "path")
    text = yt.scalar_text(ref)
    if not isinstance(text, str) or not text.startswith("hf:") or len(text) <= 3:
        return []
    tok = yt.scalar_tstr(doc, ref)
    if tok.text != text:
        return []
    return [crd.at_node(doc, ref, "--model-path"), tok[3:]]


# What an srtctl recipe may hold at its top level: srtctl's ``SrtConfig`` fields (srtctl/core/schema.py), the
# keys its ``load_config`` takes off first (``lock``, ``sweep``) and override files' sections.  srtctl refuses
# any other key (its schemas raise on unknown fields), so a recipe-shaped file with one is read by another
# launcher, which may make server flags of it.
SRTCTL_TOP = frozenset({
    "name", "model", "resources", "slurm", "backend", "frontend", "dynamo", "benchmark", "profiling", "output",
    "health_check", "infra", "observability", "telemetry", "environment", "container_mounts", "extra_mount",
    "srun_options", "sbatch_directives", "enable_config_dump", "setup_script", "identity", "reporting", "lock",
    "sweep", "base"})
COMMON_KEY = "common"
_FLAG_WORD = lazyre.compile(r"(?:^|\s)(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def _foreign_sections(doc: TStr, root: yt.Ref, launches: list, is_flag) -> None:
    """A top-level key srtctl does not have whose value holds server-flag-like text (``--flag`` words, keys
    named like a server flag, ``is_flag(key)``): every launch of the recipe gets an opaque word there (flags
    pdlint cannot see: rules that read an unset flag's default stay quiet) and a PD023 gap naming it."""
    from pdlint import coverage_rules as CR
    from pdlint.model import Gap
    if not launches:
        return
    for key, ref in yt.map_items(root):
        if key in SRTCTL_TOP or key.startswith(("override_", "zip_override_")):
            continue
        seen = _flag_like(ref, is_flag, [], 0)
        knode = yt.key_node(root, key)
        if not seen or knode is None:
            continue
        tok = yt.scalar_tstr(doc, yt.Ref(knode))
        if not tok.pieces:
            continue
        shown = ", ".join(f"`{s}`" for s in seen[:3]) + (", ..." if len(seen) > 3 else "")
        gap = Gap(CR.OPAQUE_ARGS.code, tok,
                  f"`{key}` is not a key of an srtctl recipe (srtctl refuses such a file), so another launcher reads "
                  f"this recipe, and it holds server settings ({shown}): pdlint cannot tell which flags that "
                  f"launcher makes of them, and those were not checked",
                  "write the server flags into the role sections pdlint reads (`backend.sglang_config.prefill` / "
                  "`decode`), or check the launcher's own command (a script pdlint reads)")
        for l in launches:
            l.argv.append(tok.as_opaque())
            l.gaps.append(gap)


def _flag_like(ref, is_flag, out: list, depth: int) -> list:
    node = yt.deref(ref).node
    if depth > 8 or len(out) > 3:
        return out
    if isinstance(node, yt.YMap):
        for k, v in yt.map_items(ref):
            if isinstance(k, str) and is_flag(k) and k not in out:
                out.append(k)
            _flag_like(v, is_flag, out, depth + 1)
    elif isinstance(node, yt.YSeq):
        for it in yt.seq_items(ref):
            _flag_like(it, is_flag, out, depth + 1)
    elif isinstance(node, yt.YScalar):
        value = yt.scalar_value(node)
        if isinstance(value, str):
            out += [m.group(1) for m in _FLAG_WORD.finditer(value)][:4 - len(out)]
    return out


def _flag_key(key) -> str:
    return str(key).replace("_", "-")


def cli_tokens(doc: TStr, ref: yt.Ref, skip=frozenset(), covers: Optional[list] = None, as_str=True) -> list:
    """srtctl's ``_config_to_cli_args`` of one mapping, traced: ``key`` -> ``--key`` (``_`` -> ``-``); true
    -> the bare flag, false and null -> nothing; a list -> the flag and its items; a mapping (a list's mapping
    item too) -> Python's ``str()`` of it, as srtctl writes it (``str(value)``: single quotes, not JSON, so a
    JSON-valued flag written as a YAML mapping is refused; NVIDIA/srt-slurm src/srtctl/backends/vllm.py and
    sglang.py ``_config_to_cli_args``), or its JSON with ``as_str=False`` (Ray's SGLang engine_kwargs, passed as
    Python values).  Keys whose flag is in ``skip`` are left out.  ``covers`` gets each non-scalar value's
    whole text (its lines are what the launch was built from)."""
    dump = str if as_str else json.dumps
    out: list = []
    for key, vref in yt.map_items(ref):
        if skip and _flag_key(key) in skip:
            continue
        knode = yt.key_node(ref, key)
        ktok = yt.scalar_tstr(doc, yt.Ref(knode)) if knode is not None else None
        flag = "--" + key.replace("_", "-")
        ftok = config_merge_as(ktok, flag) if ktok is not None and ktok.pieces else TStr.synthetic(flag, "<config>")
        node = yt.deref(vref).node
        if isinstance(node, yt.YScalar):
            value = yt.scalar_value(node)
            if isinstance(value, bool):
                if value:
                    out.append(ftok)
            elif value is not None:
                out += [ftok, config_merge_as(yt.scalar_tstr(doc, vref), str(value))]
        elif isinstance(node, yt.YSeq):
            out.append(ftok)
            for it in yt.seq_items(vref):
                inode = yt.deref(it).node
                text = str(yt.scalar_value(inode)) if isinstance(inode, yt.YScalar) else dump(yt.to_python(it))
                out.append(config_merge_as(crd.tstr(doc, it), text))
            if covers is not None:
                covers.append(yt.node_tstr(doc, vref))
        elif isinstance(node, yt.YMap):
            whole = yt.node_tstr(doc, vref)
            out += [ftok, config_merge_as(whole, dump(yt.to_python(vref)))]
            if covers is not None:
                covers.append(whole)
    return out


def config_merge_as(tok: TStr, text: str) -> TStr:
    from pdlint.engines.sglang import config_merge
    return config_merge.placed(tok, text)


def srt_slurm_vllm(job, src, doc: TStr, root: yt.Ref, variant=None) -> list:
    """``backend.vllm_config.prefill`` / ``decode``: srtctl turns each mapping into ``python -m dynamo.vllm``
    flags (and adds the model, ports and ``--disaggregation-mode`` itself)."""
    backend = yt.get(root, "backend")
    cfg = yt.get(backend, "vllm_config")
    name = variant.name if variant is not None else (crd.text_at(root, "name") or os.path.basename(job.display))
    of = f" variant {variant.label}" if variant is not None else ""
    image = crd.text_at(root, "model", "container") or ""
    out = []
    for key, ref in yt.map_items(cfg):
        role = crd.role_of_value(key) or crd.role_of_name(key)
        if not isinstance(yt.deref(ref).node, yt.YMap):
            continue
        origin = _key_origin(doc, cfg, key)
        cmd = [crd.at_node(doc, ref, w) for w in ("python3", "-m", "dynamo.vllm")]
        covers: list = []
        argv = cli_tokens(doc, ref, covers=covers)
        l = _launch(src, origin.line if origin else 1, "vllm", "python -m dynamo.vllm", role, origin,
                    f"srt-slurm recipe key vllm_config.{key}", f"{job.display}#recipe/{name}",
                    f"srt-slurm recipe {name!r}{of} vllm_config.{key} (srtctl adds the model, ports and "
                    f"--disaggregation-mode)", argv=argv, command=cmd, covers=covers, srtctl_str=True,
                    env=_env_map(doc, yt.get(backend, f"{key}_environment")), image=image,
                    replicas=_int(crd.at(root, "resources", f"{key}_workers")), injects_role=True,
                    # srtctl adds --disaggregation-mode and its `connector`'s --kv-transfer-config before the
                    # section's flags, whose own --kv-transfer-config comes last and wins (vLLM's argparse keeps
                    # the last); dynamo.vllm hands it to vLLM as a DynamoGraphDeployment's is (NVIDIA/srt-slurm
                    # src/srtctl/backends/vllm.py, build_worker_command: `cmd.extend(_config_to_cli_args(config))`
                    # after `--kv-transfer-config <connector preset>`; field round rw31/a)
                    config_as_written=True)
        l.incomplete = True
        if variant is not None:
            l.meta["variant"] = variant.label
        out.append(l)
    return out


def srt_slurm_trtllm(job, src, doc: TStr, root: yt.Ref, variant=None) -> list:
    """``backend.trtllm_config.prefill`` / ``decode``: TRT-LLM LLM-API settings srtctl writes to each
    worker's ``--extra-engine-args`` file (workers run ``python -m dynamo.trtllm``)."""
    backend = yt.get(root, "backend")
    cfg = yt.get(backend, "trtllm_config")
    name = variant.name if variant is not None else (crd.text_at(root, "name") or os.path.basename(job.display))
    of = f" variant {variant.label}" if variant is not None else ""
    out = []
    for key, ref in yt.map_items(cfg):
        role = crd.role_of_value(key) or crd.role_of_name(key)
        if not isinstance(yt.deref(ref).node, yt.YMap):
            continue
        origin = _key_origin(doc, cfg, key)
        file_keys: dict = {}
        l = _launch(src, origin.line if origin else 1, "trtllm", "python -m dynamo.trtllm", role, origin,
                    f"srt-slurm recipe key trtllm_config.{key}", f"{job.display}#recipe/{name}",
                    f"srt-slurm recipe {name!r}{of} trtllm_config.{key} (srtctl writes it to the worker's "
                    f"--extra-engine-args file)", env=_env_map(doc, yt.get(backend, f"{key}_environment")),
                    settings=flatten(doc, ref, keys=file_keys), options_file=True, setting_keys=file_keys,
                    replicas=_int(crd.at(root, "resources", f"{key}_workers")))
        l.role = role
        l.incomplete = True
        if variant is not None:
            l.meta["variant"] = variant.label
        out.append(l)
    return out


def ray_serve_llm(job, src, doc: TStr, root: yt.Ref) -> list:
    """Ray Serve LLM prefill/decode applications: ``applications[].args.prefill_config`` / ``decode_config``
    (``import_path: ray.serve.llm:build_pd_openai_app``), each an ``LLMConfig`` whose ``engine_kwargs`` Ray
    passes to vLLM's engine arguments with ``model_loading_config.model_id`` as the model.  Checked as
    ``vllm serve MODEL --key VALUE ...`` as a vLLM ``--config`` file's keys are (``_`` -> ``-``, true the bare
    flag, false ``--no-key``, a list's items, a mapping as JSON traced key by key), the role the key names;
    Ray adds settings of its own, so the launch may hold flags pdlint does not see.  An application with
    neither key (``build_openai_app``'s ``args.llm_configs`` list, or a builder's own ``args.llm_config``,
    anyscale/ray-serve-llm-perf-examples): each such config with ``engine_kwargs`` is a server of no
    structural role.  The environment: the application's ``runtime_env.env_vars``, then the config's.  A config
    whose ``server_cls`` is Ray's SGLangServer (or ``llm_engine: SGLang``) is an SGLang server
    (:func:`_ray_sglang`); one with another ``server_cls`` or engine is no launch."""
    out = []
    for i, app in enumerate(yt.seq_items(yt.get(root, "applications"))):
        args = yt.get(app, "args")
        if args is None or not isinstance(yt.deref(args).node, yt.YMap):
            continue
        name = yt.scalar_text(yt.get(app, "name")) or f"applications[{i}]"
        configs = [(yt.get(args, key), key, role, _key_origin(doc, args, key))
                   for key, role in (("prefill_config", "prefill"), ("decode_config", "decode"))]
        if not any(c[0] is not None for c in configs):
            # an OpenAI app (`build_openai_app`'s `llm_configs`, or a builder's own `llm_config`): a server
            # of no structural role (its kv_role may give one), when it has engine arguments
            configs = [(yt.get(args, "llm_config"), "llm_config", None, _key_origin(doc, args, "llm_config"))]
            for j, cfg in enumerate(yt.seq_items(yt.get(args, "llm_configs"))):
                first = next(iter(yt.map_items(cfg)), (None,))[0] if _is_map(cfg) else None
                configs.append((cfg, f"llm_configs[{j}]", None, _key_origin(doc, cfg, first) if first else None))
            configs = [c for c in configs if c[0] is not None and _is_map(yt.get(c[0], "engine_kwargs"))]
        app_env = _env_map(doc, crd.at(app, "runtime_env", "env_vars"))
        for cfg, key, role, origin in configs:
            if cfg is None or not isinstance(yt.deref(cfg).node, yt.YMap):
                continue
            kwargs = yt.get(cfg, "engine_kwargs")
            server = (yt.scalar_text(yt.get(cfg, "server_cls")) or "").lower()
            engine = (yt.scalar_text(yt.get(cfg, "llm_engine")) or "vllm").lower()
            mid = crd.at(cfg, "model_loading_config", "model_id")
            ray_meta = {"ray_app": (job.display, name)}
            if mid is not None and isinstance(yt.deref(mid).node, yt.YScalar):
                ray_meta["ray_model_id"] = yt.scalar_tstr(doc, mid)  # (PD109: Ray checks both roles name one id)
            if "sglang" in server or engine == "sglang":
                out.append(_ray_sglang(job, src, doc, cfg, kwargs, key, role, origin, name, app_env))
                out[-1].meta.update(ray_meta)
                continue
            if server or engine != "vllm":
                continue  # another engine's server class: its engine_kwargs are no vLLM arguments
            # the weights vLLM loads: model_source (model_id is the name clients ask for; Ray's VLLMEngineConfig
            # .actual_hf_model_id), as for SGLang below (anyscale/ray-serve-llm-perf-examples, field test rw15/i)
            source = crd.at(cfg, "model_loading_config", "model_source")
            model = source if source is not None and isinstance(yt.deref(source).node, yt.YScalar) else \
                crd.at(cfg, "model_loading_config", "model_id")
            argv = [yt.scalar_tstr(doc, model)] if model is not None else []
            if kwargs is not None and isinstance(yt.deref(kwargs).node, yt.YMap):
                from pdlint.engines.vllm import flags as vflags
                from pdlint.engines.vllm.engine import mapping_args
                argv += mapping_args(doc, kwargs, vflags.load(vflags.pick(None)[0]), path=src.path)
            l = _launch(src, origin.line if origin else 1, "vllm", "vllm serve", role, origin,
                        f"Ray Serve LLM args.{key}", f"{job.display}#ray/{name}",
                        f"Ray Serve LLM application {name!r} args.{key} (engine_kwargs as vLLM engine arguments)",
                        argv=argv, command=[crd.at_node(doc, cfg, "vllm"), crd.at_node(doc, cfg, "serve")],
                        env={**app_env, **_env_map(doc, crd.at(cfg, "runtime_env", "env_vars"))},
                        replicas=_int(crd.at(cfg, "deployment_config", "num_replicas")),
                        env_partial=True,  # the Ray cluster's and the job's environment come on top
                        # Ray passes engine_kwargs' kv_transfer_config to vLLM as written: its connector backends
                        # only add an `engine_id` (NIXL) or make kv_connector_extra_config.lmcache_rpc_port unique
                        # per replica (ray-project/ray python/ray/llm/_internal/serve/engines/vllm/kv_transfer/
                        # nixl.py, lmcache.py; field round rw31/a problem 5: `backends` at the top level passed)
                        config_as_written=True)
            l.incomplete = True
            l.meta.update(ray_meta)
            out.append(l)
    return out


def _ray_sglang(job, src, doc: TStr, cfg, kwargs, key: str, role: Optional[str], origin, name: str,
               app_env: dict) -> Launch:
    """A Ray Serve LLM config served by SGLang (``server_cls: ...engines.sglang:SGLangServer``, Ray's SGLang
    integration; ``llm_engine: SGLang``): ``engine_kwargs`` are SGLang's server arguments (``tp_size`` ->
    ``--tp-size``, as an srt-slurm recipe's keys), the model ``model_loading_config.model_source`` (else its
    ``model_id``); a prefill/decode config gets the ``--disaggregation-mode`` Ray's PD builder sets, unless it
    sets its own."""
    model = crd.at(cfg, "model_loading_config", "model_source") or crd.at(cfg, "model_loading_config", "model_id")
    argv = [crd.at_node(doc, model, "--model-path"), yt.scalar_tstr(doc, model)] if model is not None else []
    own_mode = _is_map(kwargs) and any(_flag_key(k) == "disaggregation-mode" for k, _ in yt.map_items(kwargs))
    knode = yt.get(cfg, "engine_kwargs") if role in ("prefill", "decode") and not own_mode else None
    if knode is not None:
        argv += [crd.at_node(doc, knode, "--disaggregation-mode"), crd.at_node(doc, knode, role)]
    covers: list = []
    argv += cli_tokens(doc, kwargs, covers=covers, as_str=False) if _is_map(kwargs) else []
    l = _launch(src, origin.line if origin else 1, "sglang", "python -m sglang.launch_server", role, origin,
                f"Ray Serve LLM args.{key}", f"{job.display}#ray/{name}",
                f"Ray Serve LLM application {name!r} args.{key} (engine_kwargs as SGLang server arguments, "
                f"served by Ray's SGLangServer)", argv=argv, env={**app_env, **_env_map(doc, crd.at(
                    cfg, "runtime_env", "env_vars"))}, env_partial=True, covers=covers)
    l.incomplete = True
    return l


def _is_map(ref) -> bool:
    return ref is not None and isinstance(yt.deref(ref).node, yt.YMap)


#: the largest size or count read as a number (a larger one is no parallel size: products of two such values
#: stay far from Python's 4300-digit conversion limit, field test rw20/h)
MAX_INT = 1 << 31


def _int(ref) -> Optional[int]:
    t = yt.scalar_text(ref)
    try:
        v = int(t) if t is not None and len(t) < 20 else None
    except ValueError:
        return None
    return v if v is not None and abs(v) < MAX_INT else None


# ---------------------------------------------------------------------------
# TRT-LLM
# ---------------------------------------------------------------------------

def flatten(doc: TStr, ref: yt.Ref, prefix: str = "", out: Optional[dict] = None, skip=(),
            keys: Optional[dict] = None) -> dict:
    """{dotted.key: TStr of the value} (lists and empty mappings as one value).  ``keys``, when given, gets
    {dotted.key: TStr of the key as written} of every key, mappings' too (TRT014 reports there)."""
    out = {} if out is None else out
    written: dict = {}  # key text -> its node, the mapping's own keys (one pass: a key is not looked up per key)
    if keys is not None and isinstance(yt.deref(ref).node, yt.YMap):
        for kn, _ in yt.deref(ref).node.pairs:
            if isinstance(kn, yt.YScalar) and isinstance(kn.value, str):
                written.setdefault(kn.value, kn)
    for k, v in yt.map_items(ref):
        if not prefix and k in skip:
            continue
        key = f"{prefix}{k}"
        if k in written:
            kt = doc[written[k].start:written[k].end]
            if kt.pieces:
                keys.setdefault(key, kt)
        node = yt.deref(v).node
        if isinstance(node, yt.YMap) and node.pairs:
            flatten(doc, v, key + ".", out, keys=keys)
        elif isinstance(node, yt.YScalar):
            out[key] = yt.scalar_tstr(doc, v)
        else:
            out[key] = yt.node_tstr(doc, v)
    return out


def trtllm_disagg(job, src, doc: TStr, root: yt.Ref) -> list:
    out = []
    top_keys = [k for k, _ in yt.map_items(root) if k not in DISAGG_TOP_ONLY]
    for key, role in (("context_servers", "prefill"), ("generation_servers", "decode")):
        block = yt.get(root, key)
        if block is None or not isinstance(yt.deref(block).node, yt.YMap):
            continue
        own = {k for k, _ in yt.map_items(block)}
        settings: dict = {}
        file_keys: dict = {}
        inherited = []
        for k in top_keys:
            if k in own:
                continue
            inherited.append(k)
            sub = yt.YMap(0, 0, None, None, [(yt.key_node(root, k), yt.deref(yt.get(root, k)).node)])
            flatten(doc, yt.Ref(sub, yt.deref(root).hops), "", settings, keys=file_keys)
        flatten(doc, block, "", settings, skip=DISAGG_SERVER_KEYS, keys=file_keys)
        origin = _key_origin(doc, root, key)
        url_nodes = list(yt.seq_items(yt.get(block, "urls")))
        urls = [yt.scalar_text(u) for u in url_nodes]
        l = _launch(src, origin.line if origin else 1, "trtllm", "trtllm-serve", role, origin,
                    f"TRT-LLM disaggregated config key {key}", job.display,
                    f"trtllm-serve disaggregated config {key}" + (f" (inherits top-level {', '.join(inherited)})"
                                                                  if inherited else ""),
                    settings=settings, inherited=inherited, urls=[u for u in urls if u], setting_keys=file_keys,
                    url_tokens=[yt.scalar_tstr(doc, n) for n, u in zip(url_nodes, urls) if u],
                    replicas=_int(yt.get(block, "num_instances")))
        l.meta["own_settings"] = any(k not in DISAGG_SERVER_KEYS for k in own)
        l.meta["config_errors"] = _disagg_errors(doc, root, key, block)
        l.meta["mpi_errors"] = _ctx_gen_errors(doc, root, key, block)[1] \
            if not l.meta["config_errors"] and yt.get(root, "disagg_cluster") is None else []
        if l.meta["replicas"] == 0 and not l.meta["urls"]:
            l.meta["no_servers"] = True  # `context_servers: {num_instances: 0}`: a generation-only config
        elif l.meta["urls"] and all(k in DISAGG_NAMING_KEYS for k in settings):
            # `urls` and no settings (TensorRT-LLM's simple_example): the proxy routes to servers started
            # elsewhere with settings of their own, which are not in this file (coverage: PD022)
            l.meta["routes_only"] = True
            l.incomplete = True
        l.role = role
        out.append(l)
    return out


#: extract_disagg_cfg's own parameters (TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py, of any release pdlint
#: knows): every other top-level key is one of its ``**kwargs``, inherited by both server sections
DISAGG_PARAMETERS = DISAGG_TOP_ONLY | {
    "perf_metrics_max_requests", "return_perf_metrics", "perf_metrics_output_dir", "node_id", "schedule_style",
    "allow_request_chat_template", "gen_strip_message_history", "gen_tokids_ctxbytes", "num_workers",
    "disagg_coordinator_url"}


def _plain(doc: TStr, ref) -> tuple:
    """``(known, value)``: the Python value ``yaml.safe_load`` gives the node; known False when some of its text
    is not known (a template value pdlint could not render)."""
    try:
        if yt.node_tstr(doc, ref).opaque:
            return False, None
        return True, yt.to_python(ref)
    except (yt.YamlError, RecursionError):
        return False, None


def _values(top, mine, top_tok: TStr, tok: TStr) -> str:
    """`` (top level X, here Y)`` for two short scalars, else nothing (mappings compare as a whole)."""
    scalars = all(isinstance(yt.deref(r).node, yt.YScalar) for r in (top, mine))
    a, b = top_tok.text.strip(), tok.text.strip()
    if not scalars or len(a) > 40 or len(b) > 40 or "\n" in a + b:
        return ""
    return f" (top level {a!r}, here {b!r})"


def _disagg_errors(doc: TStr, root, key: str, block) -> list:
    """The errors of a ``trtllm-serve disaggregated`` config's server section ``key`` that stop
    ``parse_disagg_config_file`` (run by ``trtllm-serve disaggregated`` and ``disaggregated_mpi_worker`` alike) at
    start-up: ``[(token, message, [(related token, note)], fix)]``.  TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py
    (main at 0228a71, and the releases since the file came in): ``extract_disagg_cfg`` raises on a top-level key
    the section also sets with another value (``servers[key] != value``: whole values, mappings included);
    ``extract_ctx_gen_cfgs`` on ``urls`` whose count is not ``num_instances`` (default 1; not run with
    ``disagg_cluster``)."""
    out = []
    for k, top in yt.map_items(root):
        if k in DISAGG_PARAMETERS:
            continue
        mine = yt.get(block, k)
        if mine is None:
            continue
        (ka, a), (kb, b) = _plain(doc, top), _plain(doc, mine)
        if not (ka and kb) or a == b:
            continue
        # (a scalar at its value, a mapping or list at its key)
        tok = yt.scalar_tstr(doc, mine) if isinstance(yt.deref(mine).node, yt.YScalar) else crd.key_tstr(doc, block, k)
        top_tok = yt.scalar_tstr(doc, top) if isinstance(yt.deref(top).node, yt.YScalar) else crd.key_tstr(doc, root, k)
        out.append((tok, f"ValueError: Parameter {k} is specified both in the top-level and in the {key} section, "
                         f"but with different values: trtllm-serve disaggregated (and disaggregated_mpi_worker) "
                         f"stops reading this config at start-up{_values(top, mine, top_tok, tok)}",
                    [(top_tok, f"the top-level {k}")],
                    f"Remove `{k}` from the top level (set it in each server section that needs it) or from "
                    f"`{key}`, or give both the same value."))
    if yt.get(root, "disagg_cluster") is None:
        out += _ctx_gen_errors(doc, root, key, block)[0]
    return out


_SIZES = ("tensor_parallel_size", "pipeline_parallel_size", "context_parallel_size")
_STOPS = "trtllm-serve disaggregated (and disaggregated_mpi_worker) stops reading this config at start-up"


def _stand_in(v):
    """A small value of ``v``'s type: what ``*`` and ``+=`` raise depends on the types alone (a string times a
    count is a string; the real values could be a 10**9-fold repetition)."""
    if isinstance(v, bool) or v is None or isinstance(v, float):
        return v
    return 1 if isinstance(v, int) else "x" if isinstance(v, str) else [] if isinstance(v, list) else \
        {} if isinstance(v, dict) else v


def _section_value(doc: TStr, root, block, k: str) -> tuple:
    """``(known, present, value, token)`` of key ``k`` as ``extract_ctx_gen_cfgs`` gets it: the section's own, else
    the top level's (``extract_disagg_cfg`` copies each of its ``**kwargs`` into both sections)."""
    owner = block if yt.get(block, k) is not None else root if k not in DISAGG_PARAMETERS else None
    ref = yt.get(owner, k) if owner is not None else None
    if ref is None:
        return True, False, None, None
    known, value = _plain(doc, ref)
    tok = yt.scalar_tstr(doc, ref) if isinstance(yt.deref(ref).node, yt.YScalar) else crd.key_tstr(doc, owner, k)
    return known, True, value, tok


def _ctx_gen_errors(doc: TStr, root, key: str, block) -> tuple:
    """``(errors of extract_ctx_gen_cfgs, errors of get_server_configs_dict)`` for server section ``key`` (each
    ``[(token, message, [(related token, note)], fix)]``), as TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py (main
    at 0228a71) runs on the values ``yaml.safe_load`` gives: ``extract_ctx_gen_cfgs`` splits each URL with
    ``hostname, port_str = url.split(':')`` and ``int(port_str)`` (a scheme, ``http://h:8001``, is one colon too
    many; a string ``urls`` is iterated per character), compares ``len(hostnames) != num_instances`` (a string
    ``"2"`` is never equal), makes ``[None] * num_instances`` without URLs and multiplies the three parallel sizes;
    ``get_server_configs_dict`` (``disaggregated_mpi_worker``'s ``split_world_comm`` only) raises ``Duplicated ctx
    server config for (host, port)`` on a URL a section lists twice and adds each instance's ranks to an int (a
    string product: TypeError).  Nothing is reported for a value pdlint cannot see."""
    parse: list = []
    short = "ctx" if key == "context_servers" else "gen"
    kn, has_n, n, n_tok = _section_value(doc, root, block, "num_instances")
    ku, has_u, urls, u_tok = _section_value(doc, root, block, "urls")
    if not (kn and ku):
        return [], []
    n = n if has_n else 1
    where = f"{key}.urls"
    addresses: list = []  # ((host, port), token) of each URL
    if urls:
        if isinstance(urls, (str, dict)):
            entries = [(u, u_tok) for u in urls]  # (a string: its characters; a mapping: its keys)
            what = "a string, which TensorRT-LLM iterates character by character" if isinstance(urls, str) else \
                "a mapping, whose keys TensorRT-LLM takes for the URLs"
        elif isinstance(urls, list):
            ref = yt.get(block, "urls") if yt.get(block, "urls") is not None else yt.get(root, "urls")
            entries = [(u, yt.scalar_tstr(doc, r) if isinstance(yt.deref(r).node, yt.YScalar) else yt.node_tstr(doc, r))
                       for u, r in zip(urls, yt.seq_items(ref))]
            what = ""
        else:
            parse.append((u_tok, f"TypeError: '{type(urls).__name__}' object is not iterable: {where} is "
                                  f"{u_tok.text.strip()[:40]!r}, not a list of host:port URLs, and {_STOPS}", [],
                          f"Write `urls` as a list of host:port URLs, e.g. `urls: [\"localhost:8001\"]`."))
            return parse, []
        for u, tok in entries:
            error = None
            if isinstance(u, str) and ("$" in u or "{" in u):
                continue  # (a placeholder some tool may substitute before TensorRT-LLM reads the file)
            if not isinstance(u, str):
                error = f"AttributeError: '{type(u).__name__}' object has no attribute 'split'"
            else:
                parts = u.split(":")
                if len(parts) != 2:
                    error = "ValueError: " + ("too many values to unpack (expected 2)" if len(parts) > 2 else
                                              "not enough values to unpack (expected 2, got 1)")
                else:
                    try:
                        addresses.append(((parts[0], int(parts[1])), tok))
                    except ValueError:
                        error = f"ValueError: invalid literal for int() with base 10: {parts[1][:40]!r}"
            if error is not None:
                shown = tok.text.strip()
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                because = f"{where} is {what}" if what else \
                    f"TensorRT-LLM splits each URL of {where} at ':' into exactly host and port (`hostname, port_str " \
                    f"= url.split(':')`, then `int(port_str)`), and {shown!r} is not host:port"
                parse.append((tok, f"{error}: {because}; {_STOPS}", [],
                              f"Write each URL as host:port, without a scheme (`localhost:8001`, not "
                              f"`http://localhost:8001`), in a YAML list."))
                return parse, []
        if len(urls) != n:
            if isinstance(n, int) and not isinstance(n, bool):
                tok, unset = (n_tok, "") if has_n else (crd.key_tstr(doc, block, "urls") or u_tok,
                                                        " (unset: its default)")
                parse.append((tok, f"ValueError: Number of hostnames ({len(urls)}) should be equal to the number of "
                                   f"instances ({n}): {key} lists {len(urls)} urls but num_instances is {n}{unset}, "
                                   f"and {_STOPS}", [(u_tok, f"{where} ({len(urls)})")],
                              f"Set `num_instances: {len(urls)}` in `{key}` (or list {n} URL"
                              f"{'' if n == 1 else 's'})."))
            else:
                parse.append((n_tok, f"ValueError: Number of hostnames ({len(urls)}) should be equal to the number "
                                     f"of instances ({n}): num_instances is {n_tok.text.strip()[:40]!r}, a "
                                     f"{type(n).__name__}, which TensorRT-LLM compares with the number of URLs as it "
                                     f"is (`len(hostnames) != num_instances`: never equal), and {_STOPS}",
                              [(u_tok, f"{where} ({len(urls)})")],
                              f"Write num_instances as a number: `num_instances: {len(urls)}`."))
            return parse, []
    elif not isinstance(n, int):
        parse.append((n_tok, f"TypeError: can't multiply sequence by non-int of type '{type(n).__name__}': "
                             f"without urls TensorRT-LLM makes `[None] * num_instances`, and num_instances is "
                             f"{n_tok.text.strip()[:40]!r}, not a number; {_STOPS}", [],
                      "Write num_instances as a number (`num_instances: 2`)."))
        return parse, []
    sizes = [_section_value(doc, root, block, k) for k in _SIZES]
    if not all(s[0] for s in sizes):
        return parse, []
    values = [_stand_in(s[2]) if s[1] else 1 for s in sizes]
    odd = next((s for s in sizes if s[1] and not isinstance(s[2], int)), None)
    try:
        ranks = values[0] * values[1] * values[2]
    except TypeError as e:
        parse.append((odd[3] if odd else None, f"TypeError: {e}: TensorRT-LLM multiplies tensor_parallel_size x "
                                              f"pipeline_parallel_size x context_parallel_size of {key} as written, "
                                              f"and {odd[3].text.strip()[:40]!r} is no number; {_STOPS}"
                      if odd else f"TypeError: {e}; {_STOPS}", [], "Write the parallel sizes as numbers."))
        return parse, []
    worker: list = []
    instances = len(urls) if urls else max(n, 0)
    if instances and odd is not None:
        try:
            total = 0
            total += ranks
        except TypeError as e:
            worker.append((odd[3], f"TypeError: {e}: TensorRT-LLM multiplies the parallel sizes of {key} as written "
                                   f"(a string times a number is a string, {odd[3].text.strip()[:40]!r} repeated) and "
                                   f"adds the product to its count of ranks", [],
                           "Write the parallel sizes as numbers."))
    first: dict = {}
    for address, tok in addresses:
        if address in first:
            worker.append((tok, f"ValueError: Duplicated {short} server config for {address}: {key} lists "
                                f"{address[0]}:{address[1]} twice", [(first[address], "listed first here")],
                           f"List each server once in `{where}` (and lower `num_instances`), or give the second its "
                           f"own port."))
        else:
            first[address] = tok
    return parse, worker


def trtllm_slurm_benchmark(job, src, doc: TStr, root: yt.Ref) -> list:
    """TensorRT-LLM's slurm benchmark config (examples/disaggregated/slurm/benchmark/config.yaml):
    submit.py writes ``worker_config.ctx`` / ``worker_config.gen`` as they are to ``ctx_config.yaml`` /
    ``gen_config.yaml``, the context / generation servers' ``--extra_llm_api_options`` files
    (start_worker.sh runs ``trtllm-serve``); ``hardware.num_ctx_servers`` / ``num_gen_servers`` count them."""
    cfg = yt.get(root, "worker_config")
    out = []
    for key, count in (("ctx", "num_ctx_servers"), ("gen", "num_gen_servers")):
        ref = yt.get(cfg, key)
        if ref is None or not isinstance(yt.deref(ref).node, yt.YMap):
            continue
        role = crd.role_of_value(key)
        origin = _key_origin(doc, cfg, key)
        file_keys: dict = {}
        l = _launch(src, origin.line if origin else 1, "trtllm", "trtllm-serve", role, origin,
                    f"TRT-LLM slurm benchmark config key worker_config.{key}", job.display,
                    f"TRT-LLM slurm benchmark config worker_config.{key} (submit.py writes it to the {key} "
                    f"servers' --extra_llm_api_options file {key}_config.yaml)",
                    settings=flatten(doc, ref, keys=file_keys), setting_keys=file_keys,
                    options_file=True, replicas=_int(crd.at(root, "hardware", count)))
        if l.meta["replicas"] == 0:
            l.meta["no_servers"] = True  # `num_ctx_servers: 0`: the benchmark starts none
        l.role = role
        l.incomplete = True
        out.append(l)
    return out


def trtllm_options(job, src, doc: TStr, root: yt.Ref) -> list:
    base = os.path.splitext(os.path.basename(job.abspath))[0]
    role = crd.role_of_name(base)
    how = "file name"
    if role is None:
        # MLPerf Inference v6.0's configs/<system>/<scenario>/disagg_prefill/llama3_1-405b.yaml and
        # disagg_decode/...: the folder names the role (field test rw14/g: no role, no pair, TRT005 never ran)
        role = crd.role_of_name(os.path.basename(os.path.dirname(job.abspath)))
        how = "directory name"
    dynamo = "dynamo" in job.rel.lower() or "engine_configs" in job.rel.lower()
    entry = "python -m dynamo.trtllm" if dynamo else "trtllm-serve"
    file_keys: dict = {}
    settings = flatten(doc, root, keys=file_keys)
    origin = Origin(src.path, 1, 1)
    opt = "--extra-engine-args" if dynamo else "--extra_llm_api_options"
    l = _launch(src, 1, "trtllm", entry, role, origin, how, job.display,
                f"TRT-LLM LLM-API options file ({opt} {os.path.basename(job.abspath)})"
                + (f"; role from the {how}" if role else ""), settings=settings, options_file=True,
                setting_keys=file_keys)
    l.role = role
    l.incomplete = True
    return [l]


# ---------------------------------------------------------------------------
# LMCache
# ---------------------------------------------------------------------------

PD_ROLES = {"sender": "prefill", "receiver": "decode", "producer": "prefill", "consumer": "decode"}


def lmcache(job, src, doc: TStr, root: yt.Ref) -> list:
    settings = flatten(doc, root)
    pr = yt.get(root, "pd_role")
    role = PD_ROLES.get((yt.scalar_text(pr) or "").lower())
    origin = yt.scalar_tstr(doc, pr).origin if pr is not None else None
    base = os.path.splitext(os.path.basename(job.abspath))[0]
    claims = []
    by_name = crd.role_of_name(base)
    if by_name:
        claims.append((by_name, TStr.synthetic(os.path.basename(job.abspath), src.path), "file name"))
    l = _launch(src, origin.line if origin else 1, "lmcache", "LMCACHE_CONFIG_FILE", role or by_name,
                origin if role else Origin(src.path, 1, 1), "pd_role" if role else "file name", job.display,
                "LMCache config" + (f" (pd_role {yt.scalar_text(pr)})" if pr is not None else ""),
                settings=settings, role_claims=claims if role else [])
    l.role = role or by_name
    l.incomplete = True
    return [l]


# ---------------------------------------------------------------------------
# Helm values role sections
# ---------------------------------------------------------------------------

def camel_to_flag(key: str) -> str:
    return "--" + _CAMEL.sub(r"-\1", key).lower().replace("_", "-")


def values_launches(job, src, doc: TStr, root: yt.Ref, unit: str, chart: Optional[str] = None,
                    chart_engines: Optional[set] = None) -> list:
    """``chart_engines``: the engines the templates of the (unrendered) chart ``chart`` start, by their text."""
    out = []
    spec = yt.get(root, "servingEngineSpec")
    if spec is not None:
        return _vllm_stack(job, src, doc, root, spec, unit)
    out += _role_sections(job, src, doc, root, unit, chart, chart_engines)
    return out + argv_lists(src, doc, root, unit)


#: the engine a chart's template text starts (its launcher or image)
CHART_ENGINE_TEXT = {"sglang": re.compile(r"sglang"),
                     "vllm": re.compile(r"\bvllm\b[\"',\s-]*serve\b|vllm\.entrypoints|vllm/vllm-openai|dynamo\.vllm"
                                        r"|vllm-ascend"),
                     "trtllm": re.compile(r"trtllm-serve|tensorrt_llm|dynamo\.trtllm")}


def chart_engines(texts) -> set:
    """The engines (:data:`CHART_ENGINE_TEXT`) template texts start."""
    return {e for t in texts for e, rx in CHART_ENGINE_TEXT.items() if rx.search(t)}


def _role_sections(job, src, doc: TStr, root: yt.Ref, unit: str, chart: Optional[str] = None,
                   engines: Optional[set] = None) -> list:
    out = []
    sglang_ok = True if chart is not None else None  # (looked for once, when a section needs it)
    for key, ref in yt.map_items(root):
        role = crd.role_of_value(key) or (crd.role_of_name(key) if key not in ("global",) else None)
        if not isinstance(yt.deref(ref).node, yt.YMap):
            continue
        containers = [c for c in yt.seq_items(yt.get(ref, "containers")) if isinstance(yt.deref(c).node, yt.YMap)]
        if role is None:
            written = [c for c in containers
                       if yt.scalar_text(yt.get(c, "modelCommand")) in kube.CHART_WRITTEN_COMMANDS]
            if written:  # (not read as Kubernetes containers: the chart writes their command)
                out += _modelservice(job, src, doc, root, ref, key, None, None, "", written, unit)
            continue
        origin = _key_origin(doc, root, key)
        how = f"Helm values section {key}:"
        if containers:
            out += _modelservice(job, src, doc, root, ref, key, role, origin, how, containers, unit)
            continue
        if chart is None and _vllm_section(key, ref, doc):
            out.append(_vllm_section_launch(src, doc, root, ref, key, role, origin, unit))
            continue
        if chart is not None and engines and "sglang" not in engines:
            # an unrendered chart whose templates start another engine (bytedance-iaas/vllm's deepseek-v4-flash-pd
            # chart, `exec vllm serve`: its prefill.extraArgs were 8 false SGL001 errors, field test rw16/l): its
            # keys are not SGLang's flags; PD104 says the chart was not rendered
            continue
        if sglang_ok is None:
            sglang_ok = _sglang_signal(job, root)
        if not sglang_ok:
            # outside a chart, a `prefill:` / `decode:` mapping with nothing SGLang in the file (InferenceX's
            # llm-d recipes: `prefill: {tp: 1, extra-args: "<vLLM flags>"}`, read by a harness script) is no
            # SGLang values section: reading `tp` as --tp-size made two invented servers and a false SGL815
            # (field test rw18/o, repro 9); its launch text, if any, stays PD020 (not checked)
            continue
        out += _flag_section(job, src, doc, root, ref, key, role, origin, how, unit)
    return out


#: SGLang server flags (as keys, camelCase -> dashes) that a harness's own per-role settings do not use: one of
#: them anywhere in the file says its role sections are SGLang's flags
_SGLANG_KEYS = frozenset({"disaggregation-mode", "model-path", "disaggregation-transfer-backend",
                          "disaggregation-bootstrap-port", "mem-fraction-static", "chunked-prefill-size",
                          "enable-dp-attention"})
_CHART_UP = 4  # folders above a values file searched for the Chart.yaml that renders it
_SIGNAL_NODES = 4000  # nodes of a file looked at for an SGLang word


def _sglang_signal(job, root: yt.Ref) -> bool:
    """Does a role-keyed file outside a rendered chart say its role sections are SGLang's: a ``Chart.yaml`` in
    its folder or one of the :data:`_CHART_UP` above it (a chart's values overlay), an SGLang-only key in
    any mapping (``disaggregation-mode``, ``model-path``, ``modelPath`` ...) or as a flag in a value
    (``args: [--model-path, /m]``), or ``sglang`` in a key or a value (an image ``lmsysorg/sglang``,
    ``engine: sglang``; not a comment)?"""
    d = os.path.dirname(job.abspath)
    top = os.path.abspath(getattr(job, "root", "") or d)
    for _ in range(_CHART_UP + 1):
        if os.path.isfile(os.path.join(d, "Chart.yaml")):
            return True
        up = os.path.dirname(d)
        if up == d or d == top or not up.startswith(top):  # (never above the repository)
            break
        d = up
    stack, n = [root], 0
    while stack and n < _SIGNAL_NODES:
        ref = stack.pop()
        n += 1
        node = yt.deref(ref).node
        if isinstance(node, yt.YMap):
            for k, v in yt.map_items(ref):
                if isinstance(k, str) and ("sglang" in k.lower() or camel_to_flag(k)[2:] in _SGLANG_KEYS):
                    return True
                stack.append(v)
        elif isinstance(node, yt.YSeq):
            stack.extend(yt.seq_items(ref))
        elif isinstance(node, yt.YScalar):
            value = yt.scalar_value(node)
            if isinstance(value, str) and ("sglang" in value.lower() or any(
                    m.group(1)[2:].replace("_", "-") in _SGLANG_KEYS for m in _FLAG_WORD_ANY.finditer(value))):
                return True
    return False


_FLAG_WORD_ANY = lazyre.compile(r"(?:^|[\s\[,'\"=])(--[A-Za-z][A-Za-z0-9_-]*)")


def _section_args(doc: TStr, ref) -> list:
    """The scalar items of a role section's ``args`` / ``extraArgs`` / ``extra_args`` lists, in that order."""
    return [yt.scalar_tstr(doc, it) for lkey in ("args", "extraArgs", "extra_args")
            for it in yt.seq_items(yt.get(ref, lkey)) if isinstance(yt.deref(it).node, yt.YScalar)]


def _vllm_section(key: str, ref, doc: TStr) -> bool:
    """Is a role section outside a Helm chart a vLLM server's ``model`` and ``args`` (LMCache's CI configs:
    ``vllm-prefiller: {model: M, args: [--kv-transfer-config, ...]}``), by its name, image or flags?"""
    texts = [t.text.split("=", 1)[0] for t in _section_args(doc, ref)]
    if not texts:
        return False
    named = f"{key} {_image_of(ref)}".lower()
    if "sglang" in named:
        return False
    return "vllm" in named or "--kv-transfer-config" in texts or "--kv_transfer_config" in texts


def _vllm_section_launch(src, doc: TStr, root, ref, key: str, role, origin, unit: str) -> Launch:
    at = yt.Ref(yt.key_node(root, key))
    model = yt.get(ref, "model")
    argv = ([yt.scalar_tstr(doc, model)] if model is not None and isinstance(yt.deref(model).node, yt.YScalar)
            else []) + _section_args(doc, ref)
    l = _launch(src, argv[0].origin.line, "vllm", "vllm serve", role, origin, f"section {key}:", unit,
                f"section {key}: (its model and args as `vllm serve`'s)", argv=argv,
                command=[crd.at_node(doc, at, "vllm"), crd.at_node(doc, at, "serve")], image=_image_of(ref))
    l.incomplete = True
    return l


# ---------------------------------------------------------------------------
# Bare engine argv lists anywhere in a values(-like) file
# ---------------------------------------------------------------------------

_ARGV_KEY = lazyre.compile(r"(?i)^(?:[a-z0-9]+[_-])*(?:extra[_-]?)?args$|Args$")
_SGLANG_MARKS = ("--model-path", "--disaggregation-mode")
_LIST_KEYS = ("args", "extraArgs", "extra_args")  # what a top-level role section's launch already reads
MAX_DEPTH = 12


def argv_lists(src, doc: TStr, root: yt.Ref, unit: str) -> list:
    """SGLang server argv written as a bare list (or one string) under an argv-like key -
    ``args``, ``extraArgs``, ``extra_args``, ``server_args``, ``sglang_args``, ``engineArgs`` ... -
    anywhere outside a container spec, holding ``--model-path`` or ``--disaggregation-mode``:
    each is checked as the server's own argv (items split into words as a shell would; a list
    that starts with a launcher is that command).  The role comes from ``--disaggregation-mode``,
    else from the nearest enclosing key that names one (``prefill:``, ``decodeWorker:`` ...);
    every launch of the file is one unit, so prefill and decode lists of the file are paired."""
    out: list = []
    _walk_lists(src, doc, root, (), [], unit, out, [0])
    # one list reached through aliases from several keys (`x-args: &a [...]`, `prefill: {args: *a}`): the
    # places that give it a role, else its first
    by_node: dict = {}
    for launch in out:
        by_node.setdefault(launch.meta.pop("argv_node"), []).append(launch)
    keep = set()
    for group in by_node.values():
        roled = [l for l in group if l.structural_role]
        keep |= {id(l) for l in (roled or group[:1])}
    return [l for l in out if id(l) in keep]


def _walk_lists(src, doc, ref, path: tuple, keys: list, unit: str, out: list, seen: list) -> None:
    from pdlint.formats import kube
    if len(path) > MAX_DEPTH or seen[0] > 20_000:
        return
    seen[0] += 1
    node = yt.deref(ref).node
    if isinstance(node, yt.YSeq):
        for i, it in enumerate(yt.seq_items(ref)):
            _walk_lists(src, doc, it, path + (i,), keys, unit, out, seen)
        return
    if not isinstance(node, yt.YMap):
        return
    items = yt.map_items(ref)
    names = {k for k, _ in items}
    if path and kube._is_container(path, names):
        return  # a container: read by the Kubernetes adapter (command + args)
    image = _image_of(ref)
    for k, v in items:
        if not isinstance(k, str):
            continue
        here = keys + [(k, ref, image)]
        if _ARGV_KEY.search(k) and not (len(path) == 1 and k in _LIST_KEYS and _role_key(path[0])):
            launch = _argv_launch(src, doc, ref, k, v, path + (k,), here, unit)
            if launch is not None:
                out.append(launch)
                continue
        _walk_lists(src, doc, v, path + (k,), here, unit, out, seen)


_OTHER_ENGINE_FLAGS = ("--extra-engine-args", "--extra-llm-api-options", "--extra_llm_api_options",
                       "--kv-transfer-config", "--is-prefill-worker", "--server_role", "--server-role")


def _other_engine(texts: list) -> bool:
    """Does a flag list belong to another engine (Dynamo's TensorRT-LLM or vLLM worker: they take
    ``--model-path`` / ``--disaggregation-mode`` too)?  A flag SGLang does not know that such an engine
    defines says so; a plain typo (known to none) does not."""
    from pdlint.engines.sglang import flags as sflags
    from pdlint.engines.vllm import flags as vflags
    if any(t in _OTHER_ENGINE_FLAGS for t in texts):
        return True
    stable = sflags.load(sflags.newest())
    versions = vflags.available_versions()
    vtable = vflags.load(versions[0]) if versions else None
    for t in texts:
        if not t.startswith("--") or stable.lookup(t) is not None or stable.prefix_matches(t):
            continue
        if vtable is not None and vflags.normalise(t) in vtable.by_option:
            return True
    return False


def _image_of(ref) -> str:
    """``image: repo:tag`` or ``image: {repository, tag}`` of a values mapping ('' when none)."""
    img = yt.get(ref, "image")
    if img is None:
        return ""
    if isinstance(yt.deref(img).node, yt.YScalar):
        return yt.scalar_text(img) or ""
    repo, tag = crd.text_at(img, "repository"), crd.text_at(img, "tag")
    return f"{repo}:{tag}" if repo and tag else (repo or "")


def _launcher_word(text: str) -> bool:
    from pdlint.coverage import MARKER
    m = MARKER.fullmatch(text)
    return text == "-m" or (m is not None and m.lastgroup == "launcher")


def _role_key(key) -> Optional[str]:
    if not isinstance(key, str) or key == "global":
        return None
    return crd.role_of_value(key) or crd.role_of_name(key)


def _argv_launch(src, doc, parent, key: str, ref, path: tuple, keys: list, unit: str):
    from pdlint import launchers
    node = yt.deref(ref).node
    if isinstance(node, yt.YSeq):
        items = [it for it in yt.seq_items(ref) if isinstance(yt.deref(it).node, yt.YScalar)]
        if not items or len(items) != len(yt.seq_items(ref)):
            return None
        words = []
        for it in items:
            words += crd.shell_split(yt.scalar_tstr(doc, it))
    elif isinstance(node, yt.YScalar) and isinstance(yt.scalar_value(node), str):
        words = crd.shell_split(yt.scalar_tstr(doc, ref))
    else:
        return None
    texts = [w.text.split("=", 1)[0] for w in words]
    if not any(t in _SGLANG_MARKS for t in texts) or _other_engine(texts):
        return None
    if any("vllm" in img.lower() and "sglang" not in img.lower() for _, _, img in keys if img):
        return None  # a vLLM (Dynamo vLLM) worker's flags: not SGLang server argv
    entry, command, argv = "python -m sglang.launch_server", [], words
    m = launchers.find(words)
    if isinstance(m, launchers.Match):
        if m.engine != "sglang" or m.kind != "server":
            return None
        entry, command, argv = m.entrypoint, words[m.start:m.argv_start], words[m.argv_start:]
    elif (words and not words[0].text.startswith("-")) or any(_launcher_word(w.text) for w in words):
        return None  # some other program's argv (or a launcher pdlint cannot see whole: `argv: [-m, ...]`)
    role, origin, how = None, None, ""
    for k, mapping, _ in reversed(keys):
        r = _role_key(k)
        if r:
            t = crd.narrow(crd.key_tstr(doc, mapping, k), r)
            role, origin, how = r, (t.origin if t is not None and t.pieces else None), f"values key {k}:"
            knode = yt.key_node(mapping, k)
            break
    dotted = ".".join(str(p) for p in path)
    note = ""
    if role and "--disaggregation-mode" not in texts:
        # the role the key names reaches the server as --disaggregation-mode (as srtctl writes it from
        # its section key); without it the server would run unified, and no PD check would apply
        argv = [crd.at_node(doc, yt.Ref(knode), "--disaggregation-mode"), crd.at_node(doc, yt.Ref(knode), role)] \
            + list(argv)
        note = f"; --disaggregation-mode {role} taken from the key {k}:"
    first = words[0] if words else None
    l = _launch(src, first.origin.line if first is not None and first.pieces else 1, "sglang", entry, role, origin,
                how, unit, f"engine argv list {dotted} (checked as the SGLang server's own arguments{note})",
                argv=argv, command=command, argv_list=dotted, argv_node=id(node),
                image=next((img for _, _, img in reversed(keys) if img), ""))
    l.incomplete = True  # the chart or tool that consumes the list may add flags of its own
    return l


def _modelservice(job, src, doc, root, ref, key, role, origin, how, containers, unit) -> list:
    """llm-d-modelservice: the chart builds ``vllm serve`` from ``modelCommand`` and injects
    ``--tensor-parallel-size`` from ``parallelism.tensor``."""
    out = []
    for i, c in enumerate(containers):
        mc = yt.scalar_text(yt.get(c, "modelCommand"))
        env = crd.effective_env(crd.Workload(layers=[(doc, c)], path=(key, "containers", i), doc_index=0))
        words = crd.effective_words(crd.Workload(layers=[(doc, c)], path=(key, "containers", i), doc_index=0), env)
        injected, gpus_known = [], False
        if (mc is None or mc in kube.CHART_WRITTEN_COMMANDS) and not (words and words[0].text in ("vllm", "python", "python3")):
            if mc is None and yt.get(c, "command") is not None:
                pass
            else:
                cmd = [crd.at_node(doc, yt.get(c, "modelCommand") or c, "vllm"),
                       crd.at_node(doc, yt.get(c, "modelCommand") or c, "serve")]
                model = crd.at(root, "modelArtifacts", "name")
                if model is not None:
                    injected.append(yt.scalar_tstr(doc, model))
                injected += _modelservice_port(doc, root, key)
                injected += _modelservice_parallelism(doc, crd.at(ref, "parallelism"))
                words = cmd + injected + words
                # one pod per replica writes every size (not so for a LeaderWorkerSet's workers: the ranks each
                # worker runs are the chart's and the launcher's business)
                gpus_known = yt.scalar_text(yt.get(root, "multinode")) not in ("true", "True") and \
                    (_int(crd.at(ref, "parallelism", "workers")) or 1) <= 1
        if not words or words[0].text not in ("vllm", "python", "python3", "sglang"):
            continue
        from pdlint import launchers
        m = launchers.find(words)
        if not isinstance(m, launchers.Match):
            continue
        l = _launch(src, words[m.start].origin.line, m.engine, m.entrypoint, role, origin, how, unit,
                    f"Helm values {key}.containers[{i}] (llm-d-modelservice: the chart writes the command"
                    f"{' from modelCommand ' + mc if mc else ''})", argv=words[m.argv_start:], env=env,
                    command=words[m.start:m.argv_start], image=yt.scalar_text(yt.get(c, "image")) or "",
                    replicas=_int(yt.get(ref, "replicas")))
        l.incomplete = True  # the chart adds --port, --served-model-name and tracing flags from values elsewhere
        l.meta["config_as_written"] = True  # ... and passes the container's args, --kv-transfer-config too, as written
        if gpus_known:
            l.meta["gpus_known"] = True  # ... but every parallel size it writes is here (GPU checks apply)
        out.append(l)
    return out


def _modelservice_port(doc: TStr, root: yt.Ref, key: str) -> list:
    """``--port`` as llm-d-modelservice's ``vllmPort`` helper writes it: ``routing.servicePort`` for the prefill
    (and for a decode when ``routing.proxy.enabled`` is false), else ``routing.proxy.targetPort`` (the decode
    behind the routing sidecar); nothing when the values file does not set the one that applies (the chart's
    default is the chart's business).  Field test rw19/a: the ports rules ran on vLLM's default 8000."""
    proxy_off = yt.scalar_text(crd.at(root, "routing", "proxy", "enabled")) in ("false", "False")
    ref = crd.at(root, "routing", "servicePort") if key == "prefill" or proxy_off else \
        crd.at(root, "routing", "proxy", "targetPort")
    if ref is None or _int(ref) is None:
        return []
    return [crd.at_node(doc, ref, "--port"), yt.scalar_tstr(doc, ref)]


def _modelservice_parallelism(doc: TStr, par: Optional[yt.Ref]) -> list:
    """The parallel-size flags llm-d-modelservice's ``vllmServeModelCommand`` writes from ``parallelism``
    (its ``_helpers.tpl``: tensor; data, else dataLocal x workers, else dataLocal; dataLocal, else data / workers,
    else data; each only when above 1), positioned at the value they come from."""
    if par is None:
        return []
    def num(key):
        r = crd.at(par, key)
        v = _int(r)
        return (v, r) if v is not None and v > 0 else (None, r)
    (tp, tref), (dp, dref), (dpl, lref), (w, _) = num("tensor"), num("data"), num("dataLocal"), num("workers")
    out = []

    def put(flag, value, ref):
        if value is not None and ref is not None:
            out.extend([crd.at_node(doc, ref, flag), yt.scalar_tstr(doc, ref) if _int(ref) == value
                        else crd.at_node(doc, ref, str(value))])
    put("--tensor-parallel-size", tp, tref)
    data = (dp, dref) if dp else ((dpl * w, lref) if dpl and w else ((dpl, lref) if dpl else (None, None)))
    if data[0] is not None and data[0] > 1:
        put("--data-parallel-size", *data)
    local = (dpl, lref) if dpl else ((dp // w, dref) if dp and w and dp % w == 0 else ((dp, dref) if dp else
                                                                                         (None, None)))
    if local[0] is not None and local[0] > 1:
        put("--data-parallel-size-local", *local)
    return out


def _vllm_only_keys(sources: list, sglang_table) -> list:
    """Keys of a section that are flags of vLLM's newest release and neither flags nor abbreviations of
    SGLang's (``kv-transfer-config``, ``gpu-memory-utilization``, ``max-num-seqs``)."""
    from pdlint.engines.vllm import flags as vflags
    vtable = vflags.load(vflags.available_versions()[0])
    out = []
    for _, m in sources:
        for k, _ in yt.map_items(m):
            opt = camel_to_flag(k)
            if sglang_table.lookup(opt) is None and not sglang_table.prefix_matches(opt) and \
                    vtable.resolve(opt)[1] == "exact":
                out.append(k)
    return out


def _flag_section(job, src, doc, root, ref, key, role, origin, how, unit) -> list:
    """A role section of flag-like keys (``config:`` mapping or the section itself) or args lists."""
    from pdlint.engines.sglang import flags
    table = flags.load(flags.newest())
    argv = _section_args(doc, ref)
    sources = [(key, ref)]
    if yt.get(ref, "config") is not None:
        sources.insert(0, (key + ".config", yt.get(ref, "config")))
    mapped = []
    for where, m in sources:
        for k, v in yt.map_items(m):
            node = yt.deref(v).node
            if not isinstance(node, yt.YScalar):
                continue
            opt = camel_to_flag(k)
            flag = table.lookup(opt)
            if flag is None:  # an argparse abbreviation (--tp) names one flag
                dests = {table.lookup(o).dest for o in table.prefix_matches(opt) if table.lookup(o)}
                if len(dests) == 1:
                    flag = table.lookup(table.prefix_matches(opt)[0])
            if flag is None:
                continue
            knode = yt.key_node(m, k)
            ftok = crd.at_node(doc, yt.Ref(knode), opt)
            value = yt.scalar_value(node)
            vtok = yt.scalar_tstr(doc, v)
            if isinstance(value, bool) or flag.nargs_zero:
                if value is True or (isinstance(value, str) and value.lower() == "true"):
                    argv.append(ftok)
                continue
            if value is None or vtok.text == "":
                continue
            argv += [ftok, vtok]
            mapped.append(k)
    engine_hint = " ".join(filter(None, [crd.text_at(root, "global", "image", "repository"),
                                         crd.text_at(ref, "image", "repository"), crd.text_at(ref, "image"),
                                         crd.text_at(root, "container_image"), crd.text_at(root, "image")]))
    if not mapped and not argv:
        return []
    if mapped == ["config"] and not _section_args(doc, ref) and "sglang" not in engine_hint.lower():
        # `config: <file>` alone is no SGLang flag list: MLPerf's Dynamo + TensorRT-LLM deployment files
        # (`prefill: {system, gpus_per_worker, config: .../ctx.yaml}`) became `sglang.launch_server --config`
        # pairs, and their TensorRT-LLM option files SGLang configs (field test rw14/g: 16 SGL001/SGL020)
        return []
    if "vllm" in engine_hint.lower() and "sglang" not in engine_hint.lower():
        return []  # vLLM values sections: left to the chart (no name-based mapping for vLLM)
    if _vllm_only_keys(sources, table):
        # a section of vLLM engine args (the Dynamo SDK's `dynamo serve -f` graph configs: PrefillWorker:
        # {kv-transfer-config: ..., gpu-memory-utilization: ...}, raihan0824/dynamo-helm, field test rw6/d):
        # not SGLang's flags; its launch text stays reported as not checked (PD020)
        return []
    image = ""
    repo, tag = crd.text_at(root, "global", "image", "repository"), crd.text_at(root, "global", "image", "tag")
    if repo:
        image = f"{repo}:{tag}" if tag else repo
    first = argv[0] if argv else None
    l = _launch(src, first.origin.line if first is not None else (origin.line if origin else 1), "sglang",
                "python -m sglang.launch_server", role, origin, how, unit,
                f"Helm values section {key}: (keys mapped to SGLang flags by name; the chart's templates decide "
                f"what is rendered)", argv=argv, image=image, values_section=key)
    l.incomplete = True
    return [l]


# vllm-stack (vllm-project/production-stack) helm/templates/deployment-vllm-multi.yaml: the
# flags the chart writes after ``vllm serve MODEL``, in its order: (vllmConfig key, flag, kind);
# kind "bool" writes the flag when true, "value" writes flag and value.
_VLLM_STACK_CONFIG = (("maxModelLen", "--max-model-len", "value"), ("dtype", "--dtype", "value"),
                      ("tensorParallelSize", "--tensor-parallel-size", "value"),
                      ("maxNumSeqs", "--max-num-seqs", "value"),
                      ("gpuMemoryUtilization", "--gpu_memory_utilization", "value"),
                      ("maxLoras", "--max_loras", "value"), ("runner", "--runner", "value"),
                      ("convert", "--convert", "value"))


def _vllm_stack_args(doc, spec, m, kv_role: str) -> list:
    """The argv the vllm-stack chart renders for one ``modelSpec`` entry (after the model),
    each token traced to the values key it comes from."""
    def val(ref):
        return yt.scalar_tstr(doc, ref)

    def truthy(ref):
        t = (yt.scalar_text(ref) or "").strip().lower()
        return ref is not None and t not in ("", "false", "0", "null", "~")

    port = yt.get(spec, "containerPort")
    out = [crd.at_node(doc, m, "--host"), crd.at_node(doc, m, "0.0.0.0"), crd.at_node(doc, m, "--port"),
           val(port) if port is not None else crd.at_node(doc, m, "8000")]
    for key, flag in (("enableLoRA", "--enable-lora"), ("enableTool", "--enable-auto-tool-choice")):
        if truthy(yt.get(m, key)):
            out.append(crd.at_node(doc, yt.get(m, key), flag))
    if yt.get(m, "toolCallParser") is not None:
        out += [crd.at_node(doc, yt.get(m, "toolCallParser"), "--tool-call-parser"), val(yt.get(m, "toolCallParser"))]
    vc = yt.get(m, "vllmConfig")
    if vc is not None and isinstance(yt.deref(vc).node, yt.YMap):
        ecp = yt.get(vc, "enableChunkedPrefill")
        if ecp is not None:
            out.append(crd.at_node(doc, ecp, "--enable-chunked-prefill" if truthy(ecp) else "--no-enable-chunked-prefill"))
        epc = yt.get(vc, "enablePrefixCaching")
        out.append(crd.at_node(doc, epc if epc is not None else vc,
                               "--enable-prefix-caching" if truthy(epc) else "--no-enable-prefix-caching"))
        for key, flag, _kind in _VLLM_STACK_CONFIG:
            ref = yt.get(vc, key)
            if ref is not None:
                out += [crd.at_node(doc, ref, flag), val(ref)]
        for it in yt.seq_items(yt.get(vc, "extraArgs")):
            if isinstance(yt.deref(it).node, yt.YScalar):
                out.append(val(it))
    if yt.get(m, "modelRevision") is not None:
        out += [crd.at_node(doc, yt.get(m, "modelRevision"), "--revision"), val(yt.get(m, "modelRevision"))]
    lc = yt.get(m, "lmcacheConfig")
    if lc is not None and truthy(yt.get(lc, "enabled")):
        at = yt.get(lc, "kvRole") or lc
        if yt.get(lc, "enablePD") is not None:
            rpc = json.dumps(yt.scalar_text(yt.get(lc, "nixlRole")) or "")
            cfg = ('{"kv_connector":"LMCacheConnectorV1","kv_role":"%s","kv_connector_extra_config":'
                   '{"discard_partial_chunks": false, "lmcache_rpc_port": %s}}' % (kv_role, rpc))
        elif vc is not None and (yt.scalar_text(yt.get(vc, "v0")) or "") == "1":
            cfg = '{"kv_connector":"LMCacheConnector","kv_role":"%s"}' % kv_role
        else:
            cfg = '{"kv_connector":"LMCacheConnectorV1","kv_role":"%s"}' % kv_role
        out += [crd.at_node(doc, at, "--kv-transfer-config"), crd.at_node(doc, at, cfg)]
    if yt.get(m, "chatTemplate") is not None:
        out += [crd.at_node(doc, yt.get(m, "chatTemplate"), "--chat-template"),
                crd.at_node(doc, yt.get(m, "chatTemplate"), "/templates/" + (yt.scalar_text(yt.get(m, "chatTemplate")) or ""))]
    return out


def _vllm_stack(job, src, doc, root, spec, unit) -> list:
    out = []
    for i, m in enumerate(yt.seq_items(yt.get(spec, "modelSpec"))):
        name = yt.scalar_text(yt.get(m, "name")) or f"modelSpec[{i}]"
        kv = crd.at(m, "lmcacheConfig", "kvRole")
        role = {"kv_producer": "prefill", "kv_consumer": "decode"}.get(yt.scalar_text(kv) or "")
        origin = yt.scalar_tstr(doc, kv).origin if role else None
        claims = []
        nr = crd.at(m, "lmcacheConfig", "nixlRole")
        if nr is not None and PD_ROLES.get((yt.scalar_text(nr) or "").lower()):
            claims.append((PD_ROLES[yt.scalar_text(nr).lower()], yt.scalar_tstr(doc, nr), "lmcacheConfig.nixlRole"))
        if role is None:
            role = crd.role_of_name(name)
            origin = yt.scalar_tstr(doc, yt.get(m, "name")).origin if role else None
        url = yt.get(m, "modelURL")
        cmd = [crd.at_node(doc, m, "vllm"), crd.at_node(doc, m, "serve")]
        argv = [yt.scalar_tstr(doc, url)] if url is not None else []
        argv += _vllm_stack_args(doc, spec, m, yt.scalar_text(kv) or "kv_both")
        repo, tag = yt.scalar_text(yt.get(m, "repository")), yt.scalar_text(yt.get(m, "tag"))
        l = _launch(src, (yt.scalar_tstr(doc, yt.get(m, "name")).origin.line if yt.get(m, "name") is not None
                          else 1), "vllm", "vllm serve", role, origin,
                    "vllm-stack lmcacheConfig.kvRole" if kv is not None and role else "modelSpec name", unit,
                    f"vllm-stack values modelSpec {name!r} (the chart writes the command and --kv-transfer-config "
                    f"from lmcacheConfig)", argv=argv, command=cmd,
                    env={"PYTHONHASHSEED": crd.at_node(doc, m, "123")},  # the chart sets it on every engine
                    image=f"{repo}:{tag}" if repo and tag else (repo or ""), role_claims=claims,
                    replicas=_int(yt.get(m, "replicaCount")), injects_role=True)
        l.incomplete = True
        out.append(l)
    return out
