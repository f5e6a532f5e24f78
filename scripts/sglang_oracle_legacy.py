#!/usr/bin/env python3
"""SGLang argument oracle for any release: does release X accept this server command line?

The shared oracle (``../shared/tools/sglang-oracle/sglang_oracle.py``) runs SGLang
0.5.23's own argument checks on CPU: ``prepare_server_args`` (argparse), the
resolution pipeline ``ServerArgs.resolve_once()`` (``sglang/srt/arg_groups``, 0.5.20
and later) and, at ``--stage launch``, ``check_server_args()`` and
``resolve_auto_parsers()``.  Older releases validate elsewhere:

* up to 0.5.19, ``prepare_server_args`` builds the ``ServerArgs`` dataclass and its
  ``__post_init__`` does all the resolution and most checks (asserts and
  ``ValueError``\\ s), the same "ordered, first failure wins" semantics;
* ``Engine._launch_subprocesses`` then runs ``server_args.check_server_args()``
  (and, from the releases that have it, ``resolve_auto_parsers`` when a parser is
  ``auto``) before it spawns anything.

This script runs whichever the installed release has, with the shared oracle's
machinery (same placeholders ``@TINY@`` / ``@TINY_HYBRID@`` / ``@TINY_MOE@``, same GPU
emulation, same JSON verdicts, same batch format and exit codes, one forked child
per case): it loads the shared oracle as a module and replaces only ``setup``
(which modules to import before the GPU is emulated, which probes exist in the
release) and, for releases without the pipeline, ``run_case``.  Releases with the
pipeline (0.5.20+) run the shared oracle's own ``run_case``.

"Launch stage" means the same as for the shared oracle: everything SGLang checks
before it spawns a scheduler.  ``_set_envs_and_config`` is skipped there too (it
only sets environment variables and asserts installed kernel-package versions).
Releases without the pipeline always run argv as ``python -m sglang.launch_server``
does (unchanged; ``--entry`` is ignored there), which is what pdlint judges.

Usage (a venv built by ``scripts/make_sglang_oracle_venv.sh RELEASE DIR``)::

    DIR/bin/python scripts/sglang_oracle_legacy.py -- --model-path @TINY@ --disaggregation-mode decode
    DIR/bin/python scripts/sglang_oracle_legacy.py --batch cases.jsonl --out results.jsonl

The shared oracle is found at ``--base-oracle`` (before the other options), else
``$PDLINT_ORACLE_SCRIPT``, else ``../shared/tools/sglang-oracle/sglang_oracle.py``
beside the checkout.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import logging
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_BASE = os.path.join(REPO, "..", "shared", "tools", "sglang-oracle", "sglang_oracle.py")



def cuda_of_release(rel: str) -> str:
    """torch.version.cuda of the default PyPI torch build the release pinned (0.4.x: torch 2.5-2.7,
    CUDA 12.4-12.6; 0.5.0-0.5.9: torch 2.8-2.9, CUDA 12.8; later: CUDA 13.0); SGLang's CUDA-version
    gates read it.  ``--cuda-version`` overrides it."""
    parts = [int(p) for p in rel.split(".")[:3] if p.isdigit()]
    if parts[:2] == [0, 4]:
        return "12.6"
    if parts[:2] == [0, 5] and len(parts) > 2 and parts[2] <= 9:
        return "12.8"
    return "13.0"

_STATE = {"phase": "parse"}


def load_base(path: str):
    spec = importlib.util.spec_from_file_location("sglang_oracle", path)
    if spec is None or not os.path.exists(path):
        raise SystemExit(f"sglang_oracle_legacy: shared oracle not found at {path} (--base-oracle)")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sglang_oracle"] = mod
    spec.loader.exec_module(mod)
    return mod


def srt_dir() -> str:
    """``sglang/srt`` of the installed release (a namespace package in some releases)."""
    return os.path.join(os.path.dirname(importlib.util.find_spec("sglang").origin), "srt")


def has_pipeline() -> bool:
    return os.path.exists(os.path.join(srt_dir(), "arg_groups", "pipeline.py"))


def release() -> str:
    from importlib.metadata import version
    try:
        return version("sglang")
    except Exception:
        import sglang
        return getattr(sglang, "__version__", "?")


def sglang_imports(path: str) -> set:
    """The sglang modules a source file imports, at top level or lazily inside functions."""
    names: set = set()
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError):
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("sglang"):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("sglang"))
    return names


def legacy_module_names() -> list:
    """Every sglang module that ``server_args.py`` (``__post_init__``, ``check_server_args``,
    their helpers), the config merger and the auto-parser resolution import."""
    srt = srt_dir()
    names = {"sglang.srt.server_args"}
    for rel, mod in (("server_args.py", None),
                     ("server_args_config_parser.py", "sglang.srt.server_args_config_parser"),
                     ("utils/server_args_config_parser.py", "sglang.srt.utils.server_args_config_parser"),
                     ("managers/template_detection.py", "sglang.srt.managers.template_detection"),
                     ("parser/template_detection.py", "sglang.srt.parser.template_detection")):
        path = os.path.join(srt, rel)
        if os.path.exists(path):
            if mod:
                names.add(mod)
            names |= sglang_imports(path)
    # 0.5.10-0.5.19 already moved some of __post_init__'s handlers to sglang/srt/arg_groups/*_hook.py
    groups = os.path.join(srt, "arg_groups")
    for dirpath, _dirs, files in os.walk(groups):
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), os.path.dirname(os.path.dirname(srt)))[:-3]
                names.add(rel.replace(os.sep, ".").removesuffix(".__init__"))
                names |= sglang_imports(os.path.join(dirpath, f))
    return sorted(names)


def _utils_module():
    for name in ("sglang.srt.utils.common", "sglang.srt.utils"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "is_flashinfer_available"):
            return mod
    return importlib.import_module("sglang.srt.utils")


def make_setup(base):
    def setup(opts) -> dict:
        if base._SETUP["done"]:
            return base._SETUP["info"]
        t0 = time.perf_counter()
        info = {"removed_env": base._scrub_env(opts.keep_env)}
        import warnings
        warnings.filterwarnings("ignore")
        logging.getLogger().setLevel(logging.ERROR)
        if opts.cuda_version is None:
            opts.cuda_version = cuda_of_release(release())
        sink = io.StringIO()
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            import torch
            import sglang  # noqa: F401
            info["sglang_version"] = release()
            info["torch_version"] = torch.__version__
            info["pipeline"] = has_pipeline()
            names = base._pipeline_module_names() if info["pipeline"] else legacy_module_names()
            failed = {}
            for m in names:
                try:
                    importlib.import_module(m)
                except Exception as e:  # best effort; reported in setup info
                    failed[m] = f"{type(e).__name__}: {e}"
            info["preimported"] = len(names)
            info["preimport_failed"] = failed
            try:
                from sglang.srt.plugins import load_plugins
            except ImportError:
                pass
            else:
                load_plugins()
        if not info["pipeline"]:
            # the phase a failure belongs to: argparse ("parse") or ServerArgs.__post_init__ ("resolve")
            from sglang.srt.server_args import ServerArgs
            original = ServerArgs.from_cli_args.__func__

            def from_cli_args(cls, args):
                _STATE["phase"] = "resolve"
                return original(cls, args)
            ServerArgs.from_cli_args = classmethod(from_cli_args)
        if opts.platform == "cuda":
            info["emulation"] = base._install_cuda_emulation(opts)
            info["lru_caches_cleared"] = base._clear_sglang_lru_caches()
            try:
                from sglang.srt.runtime_context import override_platform
            except ImportError:
                pass
            else:
                override_platform(has_flashinfer=True).install()
            common = _utils_module()

            def is_flashinfer_available():  # the deployment ships flashinfer; same env switch as SGLang's
                return common.get_bool_env_var("SGLANG_IS_FLASHINFER_AVAILABLE", default="true")
            info["rebound_is_flashinfer_available"] = base._rebind(common.is_flashinfer_available,
                                                                   is_flashinfer_available)
            for name, repl in (("is_mnnvl_fabric_device", lambda: False),
                               ("get_nvgpu_memory_capacity",
                                lambda: info["emulation"]["gpu_mem_gib"] * 1024)):
                orig = getattr(common, name, None)
                if orig is not None:
                    info[f"rebound_{name}"] = base._rebind(orig, repl)
        else:
            info["emulation"] = None
        if opts.ib_devices is not None:
            devs = [d for d in opts.ib_devices.split(",") if d]
            base._install_ib_devices(devs)
            info["ib_devices"] = devs
        if info.get("preimport_failed"):
            print("sglang_oracle_legacy: warning: could not pre-import "
                  + ", ".join(sorted(info["preimport_failed"]))
                  + " (a case that needs them may end in ORACLE_ERROR)", file=sys.stderr)
        info["setup_s"] = round(time.perf_counter() - t0, 3)
        base._SETUP["done"] = True
        base._SETUP["info"] = info
        return info
    return setup


def make_run_case(base, pipeline_run_case):
    def run_case(opts, argv: list, env, show: list) -> dict:
        if base._SETUP["info"].get("pipeline"):
            return pipeline_run_case(opts, argv, env, show)
        for k, v in (env or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        cap = base._Capture()
        sg_logger = logging.getLogger("sglang")
        sg_logger.addHandler(cap)
        # __post_init__ logs its adjustments; releases before 0.5.15 configure no logging before it, and
        # setup left the root logger at ERROR
        sg_logger.setLevel(logging.WARNING)
        sink = io.StringIO()
        result = {"verdict": None}
        t0 = time.perf_counter()
        _STATE["phase"] = phase = "parse"
        try:
            with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
                from sglang.srt.server_args import prepare_server_args
                try:
                    sa = prepare_server_args(list(argv))
                except SystemExit as e:
                    text = sink.getvalue().strip().splitlines()
                    err = [ln for ln in text if ": error:" in ln]
                    msg = err[-1] if err else (text[-1] if text else f"exit code {e.code}")
                    if e.code == 0:
                        msg = "argparse exited with status 0 (--help/--version?)"
                    result.update(verdict="REJECT", error_type="SystemExit", message=msg, exit_code=e.code,
                                  phase="parse", where="argparse", kind="validation")
                    return result
                except BaseException:
                    phase = _STATE["phase"]
                    raise
                phase = "check"
                result["resolve_s"] = round(time.perf_counter() - t0, 4)
                logging.getLogger().setLevel(logging.ERROR)
                sg_logger.setLevel(logging.WARNING)
                if opts.stage == "launch":
                    t2 = time.perf_counter()
                    sa.check_server_args()
                    if "auto" in (getattr(sa, "reasoning_parser", None), getattr(sa, "tool_call_parser", None)):
                        for mod in ("sglang.srt.parser.template_detection", "sglang.srt.managers.template_detection"):
                            try:
                                resolve = importlib.import_module(mod).resolve_auto_parsers
                            except (ImportError, AttributeError):
                                continue
                            resolve(sa)
                            break
                    result["check_s"] = round(time.perf_counter() - t2, 4)
                result["verdict"] = "ACCEPT"
                if show:
                    result["resolved"] = {name: _plain(getattr(sa, name, f"<no field {name}>")) for name in show}
        except BaseException as e:  # noqa: BLE001 - everything is reported
            if isinstance(e, KeyboardInterrupt):
                raise
            result.update(base._classify(e, phase))
            if opts.traceback:
                import traceback
                result["traceback"] = "".join(traceback.format_exception(type(e), e, e.__traceback__))[-8000:]
        finally:
            sg_logger.removeHandler(cap)
            result["warnings"] = cap.records[-50:]
            if opts.stderr_tail:
                result["stderr_tail"] = sink.getvalue()[-4000:]
        return result
    return run_case


def _plain(v):
    import json
    try:
        json.dumps(v)
        return v
    except TypeError:
        return repr(v)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    path = os.environ.get("PDLINT_ORACLE_SCRIPT", DEFAULT_BASE)
    if argv[:1] == ["--base-oracle"] and len(argv) > 1:
        path, argv = argv[1], argv[2:]
    base = load_base(os.path.abspath(path))
    setup = make_setup(base)
    base.run_case = make_run_case(base, base.run_case)

    def setup_and_warm(opts):
        info = setup(opts)
        if opts.batch and not info.get("warm") and os.environ.get("PDLINT_ORACLE_WARM", "1") != "0":
            # one accepted case in this process before the per-case children fork: the model config,
            # tokenizer and transformers modules SGLang loads lazily are then loaded once, not once per
            # child (0.5.x's __post_init__ spends most of a case there); os.environ is restored, and what
            # stays cached is keyed by the tiny model's path
            saved, no_fork = dict(os.environ), opts.no_fork
            opts.no_fork = True
            try:
                base.run_case_isolated(opts, base.expand_argv(opts, ["--model-path", "@TINY@"]), {}, [])
            finally:
                opts.no_fork = no_fork
                os.environ.clear()
                os.environ.update(saved)
            info["warm"] = True
        return info
    base.setup = setup_and_warm
    return base.main(argv)


if __name__ == "__main__":
    sys.exit(main())
