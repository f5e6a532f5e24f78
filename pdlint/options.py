"""The options of one run (what the command line asks for), in a module of
their own so that reading them imports none of the pipeline's stages."""

from __future__ import annotations

from typing import Any, Optional

from pdlint.records import dataclass, field


@dataclass
class Options:
    cwd: str
    variables: dict = field(default_factory=dict)  # --var
    role_var: Optional[str] = None  # --role-var
    engine_version: Optional[str] = None  # --sglang-version
    vllm_version: Optional[str] = None  # --vllm-version
    force_exclude: Optional[bool] = None  # --force-exclude / --no-force-exclude (None: config, else off)
    render_seconds: float = 5.0
    selection: Any = None  # the command line's rule selection (config.Selection)
    exclude: Optional[tuple] = None  # --exclude: globs (relative to cwd) instead of the configs' `exclude`
    extend_exclude: tuple = ()  # --extend-exclude: globs in addition to them
    per_file_ignores: Optional[dict] = None  # --per-file-ignores: {glob: codes} instead of the configs' own
    extend_per_file_ignores: dict = field(default_factory=dict)  # --extend-per-file-ignores: in addition
    strict: bool = False  # --strict: coverage findings are errors
    ignore_noqa: bool = False  # --ignore-noqa: inline suppressions off
    cache: bool = False  # consult and update the result cache (pdlint.cache); off for --fix, show, --no-cache
    cache_docs: bool = False  # the report needs every launch (--format json): the cache and parallel parts keep them
    # processes that analyse a cold run (pdlint.parallel): 1, this one (a run's Result then holds every launch);
    # 0: one per CPU for a large run (the check command's default, --jobs)
    jobs: int = 1
    overlay: dict = field(default_factory=dict)  # abspath -> text to read instead of the file (pdlint --fix)
    baseline: Any = None  # --baseline: the loaded pdlint.baseline.Baseline (findings it holds are not reported)
    debug: bool = False  # --debug: an internal error raises (traceback) instead of becoming a PD013 finding
    boundary: Any = None  # pdlint.safeio.Boundary: the run's roots (set by pdlint.lint.run)
    # one resource budget per file (pdlint.budget; --time-per-file / --memory-per-file; a config may lower them)
    time_per_file: float = 10.0
    memory_per_file: float = 512.0
    progress: Any = None  # pdlint.worker: told when each file's budgeted work starts and ends
    skip: dict = field(default_factory=dict)  # display path -> (what happened, stage): not checked again
