"""Find the files to scan and what kind each one is.

Directories are walked (``.git`` skipped; inside a git work tree the
``.gitignore`` rules apply, through ``git ls-files``); files named on the
command line are scanned unless ``force_exclude`` is on and an ``exclude``
pattern matches them (ruff's ``--force-exclude``: what the pre-commit hook
does, since pre-commit names every staged file).  A file passed explicitly (as pre-commit does
with the staged files) is expanded to its launch unit: the repository files
that include, source or ``--config``-reference it are scanned too, so a change
to a shared partial re-checks every launch that uses it.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import subprocess
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass

JINJA_EXT = (".j2", ".jinja", ".jinja2")
YAML_EXT = (".yaml", ".yml")
# Slurm, PBS and LSF batch scripts are shell scripts (ALCF / NCAR clusters start vLLM from `*.pbs` job scripts), and
# zsh / ksh scripts are read as bash reads them (what bash cannot parse is PD009, never a silent pass)
SHELL_EXT = (".sh", ".bash", ".slurm", ".sbatch", ".pbs", ".qsub", ".lsf", ".bsub", ".zsh", ".ksh")
# Text files that hold launches in real repositories but in a form pdlint does not read (Python that builds the
# argv, JSON/TOML configs, envsubst and Terraform templates; Makefiles and Dockerfiles are read: kind_of): a directory scan (when they
# hold launch text) and a file named on the command line list them as kind "unsupported", so that launch text in
# them is reported (PD020) instead of passing unseen.  (A JSON file named on the command line is sniffed as YAML by the
# extract stage, as any other file of a kind the name does not tell; a walk does not sniff: pdlint's own JSON
# reports would read as launches.)  Documentation (.md, .rst) is not among them: its commands are examples,
# not launch configurations.
# (and the deploy formats of other tools: Jupyter notebooks' `!python -m sglang.launch_server` cells, Terraform /
# Nomad HCL, systemd units' ExecStart, Jsonnet / CUE / Nix that generate manifests, PowerShell and batch files,
# Jenkins and Tilt files, helmfile's Go-templated values `*.yaml.gotmpl`)
OTHER_TEXT_EXT = (".py", ".json", ".toml", ".ini", ".cfg", ".conf", ".env", ".tmpl", ".template",
                  ".tftpl", ".ipynb", ".hcl", ".nomad", ".tf", ".tfvars",
                  ".jsonnet", ".libsonnet", ".cue", ".nix", ".ps1", ".bat", ".cmd", ".groovy", ".gotmpl",
                  # deployment programs (Pulumi / CDK in TypeScript, a Node launcher: field test rw23/a, `vllm serve
                  # ... kv_role` in index.ts passed a walk without a word); not Go / Rust, mostly an operator's or a
                  # router's own source (volcano-sh/kthena, sgl-model-gateway: their CLI definitions)
                  ".ts", ".mts", ".js", ".mjs", ".cjs",
                  # other shells and script languages, and configure / CMake templates of scripts (`run.sh.in`):
                  # hostile-input round rw27/h P13, a launch in `start.fish` or `run_server.sh.in` passed a walk
                  # without a word while the same file named alone was PD020
                  ".fish", ".csh", ".tcsh", ".xsh", ".command", ".in", ".pl", ".rb", ".lua", ".exp", ".awk",
                  # a C / C++ program that builds the command line and `system()`s it (field round rw28/a P6,
                  # coco-alen/sglang_assistance's eigen_serve.c: PD020 named alone, nothing in a walk), its headers
                  # and CUDA sources (hostile-input round rw29/h P5: the same for `.h` / `.hpp` / `.cu`)
                  ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh")
OTHER_TEXT_NAMES = lazyre.compile(r"(?:Procfile|Jenkinsfile|Tiltfile|\.envrc)")
#: a `#!` line naming a shell (`#!/bin/bash`, `#!/usr/bin/env bash`, `#!/usr/bin/env -S bash -e`)
SHELL_SHEBANG = lazyre.compile(rb"^#!\s*\S*?(?:/|env\s+(?:-\S+\s+)*)(?:ba|z|k|da|a)?sh\b")
# Generic suffixes that Slurm / PBS / LSF / SGE job files use too (`run.job`, `train.sub`, `serve.run`), but that other
# files use as well (`.sub` subtitles, `.run` self-extracting installers): such a file is a shell script when its first
# SNIFF_BYTES say so (a shell shebang; without a shebang, a `#SBATCH` / `#PBS` / `#BSUB` / `#$` header line), a text
# file of a kind pdlint does not read otherwise (its launch text is PD020), and never read when its head is binary,
# it is larger than SNIFF_MAX_SIZE or it is a makeself installer (field test rw17/n: a directory scan passed `*.job`
# PBS scripts by without a word, while the same file named alone was PD020)
SNIFF_SHELL_EXT = (".job", ".run", ".sub")
SNIFF_BYTES = 4096
SNIFF_MAX_SIZE = 256 * 1024
_BATCH_HEADER = lazyre.compile(rb"^#(?:SBATCH|PBS|BSUB|\$)[ \t]", re.M)
KEYWORDS = (b"sglang", b"vllm", b"trtllm", b"dynamo", b"disaggregation", b"launch_server", b"tensorrt",
            b"kv_role", b"kv-role", b"prefill", b"decode", b"context_servers", b"generation_servers",
            b"cache_transceiver", b"pd_role", b"kv-transfer-config", b"kv_transfer_config", b"disagg-config",
            b"smg launch", b"amg launch", b"smg server", b"amg server", b"mindie_infer_mode", b"infermode")
# (a file holding launch text coverage.MARKER finds holds one of them, so that it is read and reported: the
# exec-form list items "smg", "launch" are the exception, PD020 without a launch either way)
# Documentation named without an extension: its commands are examples, as in a .md file (a walk does not list it)
_DOC_NAMES = lazyre.compile(r"(?i)(?:README|READ_?ME|LICEN[CS]E|COPYING|NOTICE|AUTHORS|CONTRIBUTORS|CHANGELOG|CHANGES|"
                        r"HISTORY|NEWS|TODO|INSTALL|PATENTS|SECURITY|CODEOWNERS|OWNERS|MAINTAINERS)(?:[_-]\w+)?")
# another tool's file named without an extension (Jenkinsfile, Snakefile, Vagrantfile, Tiltfile): not shell
_TOOL_FILE = lazyre.compile(r"(?i)\w*file")
# a line of YAML or JSON (a `key:` or a `- ` item), never the start of a shell command
_DATA_LINE = lazyre.compile(r"^[ \t]*(?:-[ \t]|(?:\"[^\"\n]*\"|'[^'\n]*'|[\w.-]+):(?:[ \t]|$))", re.M)


@dataclass
class FileJob:
    abspath: str
    display: str  # relative to the working directory, '/'-separated
    root: str  # repository root (git work tree, else the working directory)
    kind: str  # jinja | yaml | shell | tpl
    explicit: bool = False

    @property
    def rel(self) -> str:
        """Path relative to the repository root, '/'-separated."""
        return os.path.relpath(self.abspath, self.root).replace(os.sep, "/")


@functools.lru_cache(maxsize=64)
def _plain_dir(d: str) -> bool:
    return os.path.isabs(d) and os.path.normpath(d) == d and d != os.sep and not d.endswith(os.sep)


def relpath(path: str, start: str) -> str:
    """``os.path.relpath(path, start)``: for a normalised path below a normalised absolute
    ``start`` (every file a scan lists), the rest of the path, without the two ``abspath`` calls."""
    n = len(start)
    if len(path) > n + 1 and path[n] == os.sep and path.startswith(start) and _plain_dir(start):
        rel = path[n + 1:]
        if rel[0] != os.sep and os.path.normpath(rel) == rel:
            return rel
    return os.path.relpath(path, start)


def display_path(abspath: str, cwd: str) -> str:
    try:
        rel = relpath(abspath, cwd)
    except ValueError:  # other drive on Windows
        return abspath.replace(os.sep, "/")
    if rel.startswith(".." + os.sep) or rel == "..":
        return abspath.replace(os.sep, "/")
    return rel.replace(os.sep, "/")


#: files that only an engine's own source tree holds, by engine: a repository with one at its root is that engine
#: (a fork, or its upstream), whose own flags and fields pdlint's tables of the released engine do not know
ENGINE_SOURCES = {
    "sglang": ("python/sglang/srt/server_args.py", "sglang/srt/server_args.py"),
    "vllm": ("vllm/engine/arg_utils.py",),
    "trtllm": ("tensorrt_llm/commands/serve.py",),
}


#: the files whose words are what an engine's own source tree may define beyond the released engine (its argument
#: parser, and vLLM's and TensorRT-LLM's config classes: KVTransferConfig's fields, the LLM API's options)
ENGINE_DEFINITIONS = {
    "sglang": ("python/sglang/srt/server_args.py", "sglang/srt/server_args.py"),
    "vllm": ("vllm/engine/arg_utils.py", "vllm/config/kv_transfer.py", "vllm/config/__init__.py", "vllm/config.py"),
    "trtllm": ("tensorrt_llm/commands/serve.py", "tensorrt_llm/llmapi/llm_args.py"),
}
#: an engine's argument parser is tens of kilobytes (SGLang's server_args.py 0.5.23: 280 KB; vLLM's arg_utils.py and
#: TensorRT-LLM's serve.py: over 20 KB): a smaller file at that path is no engine source tree (field test rw23/h: an
#: empty `sglang/srt/server_args.py` committed by a pull request turned every SGL001 error of the repository into a
#: warning)
MIN_ENGINE_SOURCE_BYTES = 4096
MAX_ENGINE_DEFINITION_BYTES = 8 * 1024 * 1024


def engine_source(root: str, engine: str) -> Optional[str]:
    """The file that shows the repository at ``root`` is ``engine``'s own source (``vllm/engine/arg_utils.py``),
    relative to it, or None: a regular file of :data:`MIN_ENGINE_SOURCE_BYTES` or more, reached through no
    symbolic link below ``root``.  Field test rw22/a: vLLM forks that add KVTransferConfig fields or flags
    (ggaaooppeenngg/vllm's `kv_producers_size`, jikunshang/vllm's HPU flags) were told vLLM refuses them."""
    return next((rel for rel in ENGINE_SOURCES.get(engine, ())
                 if _plain_file(root, rel, MIN_ENGINE_SOURCE_BYTES) is not None), None)


def _plain_file(root: str, rel: str, min_size: int = 0) -> Optional[int]:
    """The size of ``root/rel`` when it is a regular file of ``min_size`` bytes or more and no component of
    ``rel`` is a symbolic link, else None."""
    import stat
    path = root
    parts = rel.split("/")
    for i, part in enumerate(parts):
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode) or (i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode)):
            return None
    return st.st_size if stat.S_ISREG(st.st_mode) and st.st_size >= min_size else None


def engine_words(root: str, engine: str, boundary) -> frozenset:
    """The words (``[A-Za-z0-9_-]`` runs, dashes trimmed) of the definition files of ``engine``'s source tree at
    ``root`` (:data:`ENGINE_DEFINITIONS`: plain files, read through ``boundary`` within
    :data:`MAX_ENGINE_DEFINITION_BYTES`): what a fork may define that the released engine does not (a flag, a
    choice, a config field)."""
    import re
    from pdlint.safeio import Refused
    words: set = set()
    for rel in ENGINE_DEFINITIONS.get(engine, ()):
        if _plain_file(root, rel) is None:
            continue
        try:
            data = boundary.read(os.path.join(root, rel), root, limit=MAX_ENGINE_DEFINITION_BYTES)
        except Refused:
            continue
        words.update(w.strip("-") for w in re.findall(r"[A-Za-z0-9_-]+", data.decode("utf-8", "replace")))
    return frozenset(words)


def repo_root(path: str, cache: dict) -> Optional[str]:
    d = path if os.path.isdir(path) else os.path.dirname(path)
    d = os.path.abspath(d)
    seen = []
    while True:
        if d in cache:
            root = cache[d]
            break
        if os.path.exists(os.path.join(d, ".git")):
            root = d
            break
        parent = os.path.dirname(d)
        seen.append(d)
        if parent == d:
            root = None
            break
        d = parent
    for s in seen:
        cache[s] = root
    return root


#: a copy to fill in (`docker-compose.yml.example`, `start_model.sh.example`, `values.yaml.sample`, `.dist`): read as
#: the file it is a copy of, as the users who copy it will run it (field test rw14/h: tobrun/vllm-server's
#: start_model.sh.example and 3,000+ indexed `docker-compose.yml.example` files passed unseen)
COPY_SUFFIXES = (".example", ".sample", ".dist")


def kind_of(name: str, head: bytes = b"") -> Optional[str]:
    lower = name.lower()
    base = lower.replace("\\", "/").rsplit("/", 1)[-1]
    # (each adapter's name test is asked only of a name that could pass it: discovery asks every file of the
    # repository on every run, warm ones too)
    if "just" in base:
        from pdlint.formats.justfile import is_justfile
        if is_justfile(name):
            return "justfile"
    if lower.endswith(COPY_SUFFIXES):
        from pdlint.formats.justfile import is_justfile
        inner = name[:name.rfind(".")]
        return kind_of(inner, head) if "." in os.path.basename(inner) or is_justfile(inner) else None
    if lower.endswith(".service"):  # a systemd unit (pdlint.formats.systemd)
        return "systemd"
    if "dockerfile" in base or "containerfile" in base:
        from pdlint.formats.dockerfile import is_dockerfile
        if is_dockerfile(name):  # what its stages run (pdlint.formats.dockerfile)
            return "dockerfile"
    if "makefile" in base or base.endswith(".mk"):
        from pdlint.formats.makefile import is_makefile
        if is_makefile(name):  # its rules' recipes (pdlint.formats.makefile)
            return "makefile"
    if lower.endswith(JINJA_EXT):
        return "jinja"
    if lower.endswith(".tpl"):
        return "tpl"
    if lower.endswith(YAML_EXT):
        return "yaml"
    if lower.endswith(SHELL_EXT):
        return "shell"
    if "." not in os.path.basename(name) and SHELL_SHEBANG.match(head):
        return "shell"
    return None


def sniffed_kind(path: str, boundary) -> Optional[str]:
    """The kind of a file with a generic suffix (SNIFF_SHELL_EXT) by its head: "shell" (a shell shebang, or no
    shebang and a batch scheduler header line), "unknown" (text of another kind), None (empty, binary, larger than
    SNIFF_MAX_SIZE, a makeself installer, or a file the boundary refuses).  Reads at most SNIFF_BYTES."""
    ident = boundary.identity(path)
    if ident is None or not 0 < ident[0] <= SNIFF_MAX_SIZE:
        return None
    head = boundary.head(path, SNIFF_BYTES)
    if not head or b"\0" in head or b"Makeself" in head or b"makeself" in head:
        return None
    if head.startswith(b"#!"):
        return "shell" if SHELL_SHEBANG.match(head) else "unknown"
    return "shell" if _BATCH_HEADER.search(head) else "unknown"


def chart_root(path: str, repo_root: str, memo: Optional[dict] = None) -> Optional[str]:
    """The chart directory a file belongs to (the nearest Chart.yaml above it, inside the repository).  Here,
    not in :mod:`pdlint.formats.helm`: discovery asks it of files below a ``templates/`` folder on every run,
    warm ones too, which must not import the Helm adapter (and YAML) for it.  ``memo`` ((directory, root) ->
    answer) keeps the answers of one run: the files of one folder ask the same directories."""
    d = os.path.dirname(os.path.abspath(path))
    root = os.path.abspath(repo_root)
    asked = []
    found = None
    for _ in range(32):
        if memo is not None and (d, root) in memo:
            found = memo[d, root]
            break
        asked.append(d)
        if os.path.isfile(os.path.join(d, "Chart.yaml")):
            found = d
            break
        if d == root or os.path.dirname(d) == d or not d.startswith(root):
            break
        d = os.path.dirname(d)
    if memo is not None:
        for a in asked:
            memo[a, root] = found
    return found


def chart_template(path: str, root: str, charts: Optional[dict] = None) -> bool:
    """Is ``path`` a file of a Helm chart's ``templates/`` folder (below the nearest ``Chart.yaml`` above it,
    inside the repository ``root``)?  Helm renders every such file as a Go template whatever its extension, so
    its name does not decide its kind: gpu-recipes' ``nemoRL/templates/raycluster-cluster.yaml.j2`` is a Helm
    template (``{{- include "ray-cluster.fullname" . }}``), not Jinja."""
    if os.sep + "templates" + os.sep not in os.path.abspath(path):
        return False  # (the common case: no file system look-up)
    chart = chart_root(path, root, charts)
    return chart is not None and os.path.relpath(path, chart).replace(os.sep, "/").startswith("templates/")


def file_kind(path: str, root: str, head: bytes = b"", charts: Optional[dict] = None) -> Optional[str]:
    """:func:`kind_of` for a file of the repository at ``root``: a Jinja-named file of a Helm chart's templates
    is YAML, rendered with its chart (:func:`chart_template`; ``charts``: :func:`chart_root`'s memo)."""
    kind = kind_of(path, head)
    if kind == "jinja" and chart_template(path, root, charts):
        return "yaml"
    return kind


def _other_text(name: str, named: bool = False) -> Optional[str]:
    """"unsupported" for a text file kind that may hold launch text pdlint does not read (OTHER_TEXT_EXT);
    ``named``: the file was named on the command line (JSON is then sniffed, not "unsupported")."""
    base = os.path.basename(name)
    if named and base.lower().endswith(".json"):
        return None
    if base.lower().endswith(OTHER_TEXT_EXT) or OTHER_TEXT_NAMES.fullmatch(base):
        return "unsupported"
    return None


_BASELINE_HEAD = lazyre.compile(rb'\s*\{\s*"pdlint-baseline"\s*:')
#: the top-level keys of a Kubernetes object in JSON (`kubectl apply -f deploy.json`): ``"apiVersion"`` within
#: the first JSON_MANIFEST_HEAD bytes, and a ``"kind"`` key
_JSON_API = lazyre.compile(rb'^\s*[\[{][^"]*"apiVersion"\s*:|[{,]\s*"apiVersion"\s*:\s*"[^"]+/?[^"]*"')
_JSON_KIND = lazyre.compile(rb'"kind"\s*:\s*"[A-Z]')
JSON_MANIFEST_HEAD = 4096


def _json_manifest(path: str, boundary) -> bool:
    """Is a walked ``.json`` file a Kubernetes manifest (an object, or a list of objects, with ``apiVersion``
    and ``kind``)?  Such a file is YAML to pdlint, read as a named JSON file is; other JSON files (benchmark
    results, tool settings) holding launch text are not read in a walk (their launch text is PD020).  The keys
    are looked for in the file's head, else in the whole file parsed (JSON keys come in any order: a manifest
    whose long `metadata` came first passed a CI walk unread, field test rw20/h)."""
    if not path.lower().endswith(".json"):
        return False
    head = boundary.head(path, JSON_MANIFEST_HEAD)
    if not head:
        return False
    if _JSON_API.search(head) and _JSON_KIND.search(head):
        return True
    doc = _json_of(path, boundary)

    def k8s(o) -> bool:
        return isinstance(o, dict) and isinstance(o.get("apiVersion"), str) and isinstance(o.get("kind"), str)
    return k8s(doc) or (isinstance(doc, list) and any(k8s(o) for o in doc[:1000]))


def _json_config(path: str, boundary) -> bool:
    """Is a walked ``.json`` file an engine's configuration: launch text in it as config keys
    (``"disaggregation_mode":``, ``"kv_transfer_config":``, ``"context_servers":``), read as YAML as when it is
    named?  A role-keyed config (`{"prefill": {"disaggregation_mode": "prefill", ...}, "decode": {...}}`) was
    skipped by a walk without a word and checked when named (field test rw22/a).  Benchmark records that quote
    a server's command line (launcher and flags in strings, no keys) stay PD020, not read as launches."""
    from pdlint.coverage import find_markers
    from pdlint.safeio import Refused
    if not path.lower().endswith(".json"):
        return False
    try:
        data = boundary.read(path)
    except Refused:
        return False
    return any(m.kind == "key" for m in find_markers(_searched_text(path, data)))


def _searched_text(path: str, data: bytes) -> str:
    """The text of a walked file that launch text is searched in: a JSON file with ``\\u`` escapes as its
    parser reads it (``"disaggregation\\u005fmode"`` is ``disaggregation_mode``: field test rw23/h, a role-keyed
    config written so was skipped by a walk and checked when named), its keys and values written out unescaped."""
    text = data.decode("utf-8", "replace")
    if b"\\u" in data and path.lower().endswith(".json"):
        import json
        try:
            text += "\n" + json.dumps(json.loads(text), ensure_ascii=False, indent=0)
        except (ValueError, RecursionError):
            # a file Python's parser does not read whole (a `//` comment, nesting past its recursion limit) is
            # searched with its escapes decoded one by one (rw25/h item 7: "No launch text found", exit 0)
            text += "\n" + _JSON_ESCAPE.sub(_unescape, text)
    return text


_JSON_ESCAPE = lazyre.compile(r"\\u([0-9a-fA-F]{4})")


def _unescape(m) -> str:
    c = int(m.group(1), 16)
    return "\ufffd" if 0xD800 <= c <= 0xDFFF else chr(c)


def _json_of(path: str, boundary):
    """The parsed JSON of a file inside the boundary (at most MAX_FILE_BYTES), or None."""
    import json
    from pdlint.safeio import Refused
    try:
        return json.loads(boundary.read(path).decode("utf-8"))
    except (Refused, ValueError, RecursionError, UnicodeDecodeError):
        return None


#: pdlint's own ``--format json`` report (docs/json.md): its findings and launches quote flags, but it starts nothing
_REPORT_HEAD = lazyre.compile(rb'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"files"\s*:')
_REPORT_KEYS = {"version", "files", "findings", "launches", "pairs", "coverage", "baseline"}


def is_report(path: str, boundary) -> bool:
    """Is a ``.json`` file a report pdlint wrote (``--format json -o report.json``): an object of the report's
    keys only, with its ``version`` and ``findings``?  Read as YAML its launches' argv lists were launches of
    their own (false SGL010 errors), walked it was a PD020."""
    if not path.lower().endswith(".json") or not _REPORT_HEAD.match(boundary.head(path, 200)):
        return False
    doc = _json_of(path, boundary)
    return isinstance(doc, dict) and {"version", "findings"} <= set(doc) <= _REPORT_KEYS


def is_baseline(path: str, boundary) -> bool:
    """Is a ``.json`` file pdlint's own baseline: ``{"pdlint-baseline": N, "findings": [...]}`` and nothing else
    (a manifest whose first key is ``"pdlint-baseline"`` is no baseline, field test rw20/h)?"""
    if not path.lower().endswith(".json") or not _BASELINE_HEAD.match(boundary.head(path, 200)):
        return False
    doc = _json_of(path, boundary)
    return isinstance(doc, dict) and set(doc) <= {"pdlint-baseline", "findings"}


def _has_launch_text(path: str, boundary) -> bool:
    """Does a file of another text kind hold launch text (as coverage finds it)?  A file that cannot be read
    here is kept: the extract stage reports why.  pdlint's own baseline (``{"pdlint-baseline": N, ...}``)
    quotes flags in its entries but starts nothing (field test rw19/c: the baseline the README says to commit
    was a PD020 of its own)."""
    from pdlint.coverage import comment_kind, find_markers
    from pdlint.safeio import Refused
    try:
        data = boundary.read(path)
    except Refused:
        return True
    if not worth_parsing("unsupported", data) or (_BASELINE_HEAD.match(data[:200]) and is_baseline(path, boundary)) \
            or (_REPORT_HEAD.match(data[:200]) and is_report(path, boundary)):
        return False
    return bool(find_markers(_searched_text(path, data), comment_kind(path)))


def _unnamed_kind(path: str, boundary, head: bytes, walked: bool = True) -> Optional[str]:
    """The kind of a text file whose name tells none and that has no shebang (hhhh1252023/pass ``tong/102sh``:
    ``export`` lines and a ``python -m sglang.launch_server`` line), when it holds launch text: "shell" when it
    reads as a shell script (:func:`_reads_as_shell`), else "unknown" (its launch text is PD020, as when it is
    named on the command line).  A walk passed such files by without a word.  None for a file without launch
    text, a binary one (a NUL in its head), and documentation (named, it is "unknown" as before: PD020 for its
    launch text, never read as a script); nothing is read beyond what
    :func:`_has_launch_text` reads (a regular file of at most MAX_FILE_BYTES, searched only when it names an
    engine).  A larger one a walk finds is kept: the extract stage searches it for launch text (PD008 only with
    some)."""
    from pdlint.coverage import find_markers
    from pdlint.safeio import BIG, Refused, decode
    base = os.path.basename(path)
    if b"\0" in head or _DOC_NAMES.fullmatch(base):
        return None
    try:
        data = boundary.read(path)
    except Refused as r:
        return "unknown" if r.kind == BIG and walked else None
    if not worth_parsing("unsupported", data):
        return None
    if b"\0" in data:
        return None
    text = decode(data)[0]
    if not find_markers(text if text is not None else data.decode("utf-8", "replace")):
        return None
    return "shell" if text is not None and _reads_as_shell(base, text) else "unknown"  # (not UTF-8: extract says)


def _reads_as_shell(name: str, text: str) -> bool:
    """Is a text without a shebang or an extension clearly a shell script?  It is when bash parses all of it
    without an error (tree-sitter-bash, as pdlint parses scripts), no line of it is YAML or JSON (a ``key:``, a
    ``- `` item: YAML parses as shell commands too) and its name is not another tool's (``Jenkinsfile``).
    Python, JSON, logs and prose with a quote or a parenthesis fail the parse; what passes runs under ``sh
    FILE`` as pdlint reads it, so its findings are the script's.  Anything else stays PD020 (safe, not
    guessed)."""
    if _TOOL_FILE.fullmatch(name) or _DATA_LINE.search(text):
        return False
    from pdlint.formats.shell.syntax import ParserUnavailable, parser
    try:
        tree = parser().parse(text.encode("utf-8", "surrogatepass"))
    except (ParserUnavailable, ValueError):
        return False
    return not tree.root_node.has_error


def _head(path: str, boundary=None) -> bytes:
    """The first bytes of a file (to sniff a shebang), read inside the repository
    boundary: a FIFO, a device or a symlink out of the repository gives b"" (and
    its finding later, when the extract stage reads it)."""
    from pdlint.safeio import Boundary
    return (boundary or Boundary(os.path.dirname(os.path.abspath(path)))).head(path, 128)


#: git run on a scanned repository runs nothing that repository's own configuration names: `core.fsmonitor` is a
#: program git starts for `ls-files` (a `.git/config` written by whoever made the tree - an archive, a copied work
#: tree, a nested checkout - ran its command on `pdlint check`, field test rw20/h); no optional locks (a read only)
GIT = ("git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-optional-locks")


def _git_files(root: str, directory: str) -> Optional[list]:
    """Tracked and untracked-but-not-ignored files under ``directory``."""
    from pdlint.safeio import program
    git = program("git")  # (never a `git` the repository commits: an empty PATH entry, rw32/h P8)
    if git is None:
        return None
    try:
        out = subprocess.run(
            # (the work tree given: a `core.worktree` in the scanned tree's .git/config listed another
            # directory, whose file names reached the report; field test rw21/h)
            [git, *GIT[1:], "-C", root, f"--work-tree={root}", "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--",
             os.path.relpath(directory, root)],
            capture_output=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    # a path git lists that is not in the work tree - a sparse checkout's skip-worktree file, a file removed with
    # `rm` but not `git rm` - has nothing to check: it was a PD001 "not read" error each, exit 1 on a clean checkout
    # (rw28/h item 6); a dangling symlink is there (as a link) and stays a job
    listed = _Listing()
    dirs = listed.dirs
    for p in out.decode("utf-8", "surrogateescape").split("\0"):
        if not p:
            continue
        f = os.path.join(root, p)
        try:
            mode = os.lstat(f).st_mode
        except (OSError, ValueError):
            continue
        listed.append(f)
        if stat.S_ISDIR(mode):
            dirs.add(f)
    return listed


class _Listing(list):
    """The files git lists, and ``dirs``: those that are directories, not symlinks (a submodule, a nested
    repository), found by the one ``lstat`` each path gets here (discovery asked ``isdir`` of every file)."""

    __slots__ = ("dirs",)

    def __init__(self):
        super().__init__()
        self.dirs: set = set()


_SKIP_DIRS = (".git", ".pdlint_cache")  # outside git (which ignores the cache: its own .gitignore), by name


def _walk(directory: str) -> list:
    out = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for f in sorted(filenames):
            out.append(os.path.join(dirpath, f))
    return out


def repo_files(root: str, listings: Optional[dict] = None) -> Optional[list]:
    """Every file of the git work tree at ``root`` (tracked, and untracked but
    not ignored); listed once per run when ``listings`` (root -> files) is given."""
    if listings is not None and root in listings:
        return listings[root]
    files = _git_files(root, root)
    if listings is not None:
        listings[root] = files
    return files


def discover(paths: list, cwd: str, excluded=lambda p: False, force_exclude=lambda p: False,
             listings: Optional[dict] = None, boundary=None, notes: Optional[list] = None) -> tuple:
    """``(jobs, missing)``: the files to scan and the named paths that do not exist.

    ``excluded(abspath)`` filters the files found by walking a directory;
    a file named explicitly is filtered only when ``force_exclude(abspath)``
    says exclusion applies to it too.  ``listings`` (root -> files) keeps the
    listing of a whole repository when one was made.  ``boundary``
    (:class:`pdlint.safeio.Boundary`) gives each file its root.  Symlinks
    (git lists committed ones) and special files (a FIFO named ``x.yaml``)
    whose name makes them a launch file are jobs like any other: the extract
    stage refuses to read them, with a finding, and nothing here opens them.

    In a repository that is an engine's own source (:func:`engine_source`: a fork of SGLang or vLLM), a walk
    leaves out the Python files and notebooks of the engine's own tests and examples (launch text pdlint does
    not read, which were a PD020 each: 48 in benenzhu/sglang_P, field tests rw22/a and rw22/b) and says so in
    ``notes`` (a file named on the command line is scanned as always)."""
    from pdlint.safeio import Boundary
    boundary = boundary or Boundary(cwd, paths or ["."])
    jobs: dict = {}
    missing: list = []
    engine_repos: dict = {}  # git root -> (engine, its source file) or None
    left: dict = {}  # git root -> the engine's own Python files and notebooks with launch text a walk left out
    subs: list = []  # the git submodules (and nested repositories) a walk did not enter
    charts: dict = {}  # (directory, root) -> its chart directory or None (chart_root), for this run
    dir_roots: dict = {}  # directory of listed files -> their root
    for p in paths or ["."]:
        ap = os.path.abspath(os.path.join(cwd, p))
        if os.path.isdir(ap):
            git = boundary.git_root(ap)
            files = (repo_files(git, listings) if ap == git else _git_files(git, ap)) if git else None
            if files is None:
                files = _walk(ap)
            dirs = getattr(files, "dirs", ())  # (a walk lists no directory among its files)
            for f in files:
                if f in dirs:
                    if git and not excluded(f.rstrip("/")):
                        subs.append(f.rstrip("/"))  # (git lists a submodule, a repository of its own, as one path)
                    continue
                if excluded(f):
                    continue
                head = _head(f, boundary) if "." not in os.path.basename(f) else b""
                d = f[:f.rfind(os.sep)]
                root = dir_roots.get(d)
                if root is None:  # (a listed file's root is its directory's: asked once per directory)
                    root = dir_roots[d] = boundary.root_for(f, listed=True)
                kind = file_kind(f, root, head, charts)
                if kind is None and f.lower().endswith(SNIFF_SHELL_EXT) and not os.path.islink(f):
                    kind = sniffed_kind(f, boundary)
                    if kind == "unknown" and not _has_launch_text(f, boundary):
                        continue  # subtitles, a data file: not a file pdlint scans
                if kind is None:
                    kind = _other_text(f)
                    if kind is not None and not _has_launch_text(f, boundary):
                        continue  # a Python module, a JSON file with no launch in it: not a file pdlint scans
                    top = git or ap  # (a tree that is no git work tree: the directory named)
                    if kind is not None and f.endswith((".py", ".ipynb")):
                        if top not in engine_repos:
                            engine_repos[top] = next(((e, rel) for e in ENGINE_SOURCES
                                                      for rel in (engine_source(top, e),) if rel), None)
                        if engine_repos[top] is not None:
                            left[top] = left.get(top, 0) + 1
                            continue
                    if kind is not None and (_json_manifest(f, boundary) or _json_config(f, boundary)):
                        kind = "unknown"  # read as YAML, as when it is named (a JSON file of data stays PD020)
                    if kind is None and "." not in os.path.basename(f) and not os.path.islink(f):
                        kind = _unnamed_kind(f, boundary, head)
                if kind and f not in jobs:
                    jobs[f] = FileJob(f, display_path(f, cwd), root, kind)
        elif os.path.lexists(ap):
            if force_exclude(ap) and excluded(ap):
                continue
            # named explicitly: a kind pdlint reads, another text kind, else sniffed by the extract stage
            head = _head(ap, boundary)
            if is_baseline(ap, boundary) or is_report(ap, boundary):
                continue  # pdlint's own baseline (a commit that updates it names it) or report
            kind = file_kind(ap, boundary.root_for(ap), head) or _other_text(ap, named=True)
            if kind is None and ap.lower().endswith(SNIFF_SHELL_EXT):
                kind = sniffed_kind(ap, boundary)
                if kind is None and boundary.identity(ap) is not None:
                    continue  # binary, an installer, too large: not a file pdlint scans (as in a walk)
            if kind is None and "." not in os.path.basename(ap):
                kind = _unnamed_kind(ap, boundary, head, walked=False)
            kind = kind or "unknown"
            jobs[ap] = FileJob(ap, display_path(ap, cwd), boundary.root_for(ap), kind, explicit=True)
        else:
            missing.append(p)
    if notes is not None:
        names = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM"}
        for git, n in sorted(left.items()):
            engine, rel = engine_repos[git]
            notes.append(f"{display_path(git, cwd)} holds {names[engine]}'s own source ({rel}): {n} of its Python "
                         f"files and notebooks with launch text (the engine's tests and examples) were not scanned "
                         f"(name one to have its launch text reported)")
        # (a submodule's files were skipped without a word: `pdlint check .` passed while `pdlint check sub` reported
        # its launch; a pull request controls the submodule pointer, field report rw29/h P6)
        for sub in sorted(set(subs)):
            shown = display_path(sub, cwd)
            try:
                with os.scandir(sub) as it:
                    empty = not any(True for _ in it)
            except OSError:
                empty = False
            # the commands are for pasting into a shell, and the pull request names the submodule (rw30/h P7:
            # `vendor/x;touch PWNED` ran `touch`): quoted, and never read as an option
            import shlex
            arg = shlex.quote(shown if not shown.startswith("-") else "./" + shown)
            notes.append(f"{shown} is a git submodule{' that is not checked out' if empty else ''} (a repository of "
                         f"its own): the walk did not enter it, its files were not scanned; to check them, "
                         + (f"`git submodule update --init -- {arg}`, then " if empty else "")
                         + f"`pdlint check {arg}`")
    return sorted(jobs.values(), key=lambda j: j.display), missing


# words that make a mention of a file name a reference to it (include/import in
# templates, source in scripts, --config and engine config options in launches)
_REF_WORDS = lazyre.compile(rb"(include|import|extends|from|source|\.\s|--config|config|extra[-_]engine[-_]args|"
                        rb"extra_llm_api_options|values)[^\n]{0,120}$")


#: a ``#`` comment (shell, YAML) or a Jinja comment opened before a mention on its line
_COMMENTED = lazyre.compile(rb"(?:^|[ \t])#|\{#")


KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def _references(data: bytes, name: bytes, any_mention: bool = False) -> bool:
    """Does ``data`` refer to a file called ``name``?  In a kustomization every
    mention of the name is a reference (list items under resources/patches)."""
    if any_mention:
        return re.search(rb"(^|[\s/'\"])" + re.escape(name) + rb"($|[\s/'\"])", data, re.M) is not None
    start = 0
    while True:
        i = data.find(name, start)
        if i < 0:
            return False
        line_start = data.rfind(b"\n", 0, i) + 1
        before = data[i - 1:i]
        # the whole name (`decode.yaml`, not the tail of `sglang_decode.yaml`) after a reference word, not in a
        # comment: InferenceX's benchmark_lib.sh says "(from job.slurm)" in one, which pulled the 224 scripts
        # that source it into every pre-commit run of a file job.slurm names
        head = data[line_start:i]
        if not re.match(rb"[\w.-]", before) and _REF_WORDS.search(head) and not _COMMENTED.search(head):
            return True
        start = i + len(name)


#: an include / import / source whose file name is computed: a Jinja tag naming no string first, a shell `source`
#: or `.` of a word with an expansion in it
_COMPUTED_INCLUDE = lazyre.compile(
    rb"\{%[-+]?\s*(?:include|import|from|extends)\s+(?!(?:\"[^\"\n]*\"|'[^'\n]*')\s*(?:-?%\}|ignore\b|with\b|without\b|"
    rb"import\b|as\b))[^%\n]|"
    # (a sourced file whose last path part has an expansion: `$SCRIPT_DIR/common.sh` names common.sh, which the
    # textual search finds)
    # (after any separator or keyword a command may follow: `{ source ...; }`, `else source ...`, `! . x`: rw26/h)
    rb"(?:^|[;&|({!]|\b(?:then|do|else|elif|if|while|until|time|builtin|command|exec))[ \t]*(?:source|\.)[ \t]+[\"']?(?:[^\s;&|\"']*/)?[^\s;&|\"'/]*\$[^\s;&|\"'/]*"
    rb"(?=[\s;&|\"']|$)", re.M)


def _launches_itself(path: str, boundary) -> bool:
    """Does the file start a server of its own (a launcher in its text)?  Then it is no partial or sourced file
    whose includers must be searched for by computed names."""
    from pdlint.coverage import MARKER
    from pdlint.safeio import Refused
    try:
        text = boundary.read(path).decode("utf-8", "replace")
    except (Refused, OSError):
        return False
    # a launcher named in a comment (`{# used by: python -m sglang.launch_server #}`, `# sourced before: ...`) is no
    # launch of the file's own (rw26/h item 3: it switched the search for its includers off)
    text = _COMMENTS.sub("", text)
    return any(m.lastgroup == "launcher" for m in MARKER.finditer(text))


#: Jinja comments and whole-line `#` comments (shell, YAML, Python)
_COMMENTS = lazyre.compile(r"\{#(?s:.*?)#\}|^[ \t]*#[^\n]*", re.M)


def expand_units(jobs: list, cwd: str, excluded=lambda p: False, resolver=None,
                 listings: Optional[dict] = None, boundary=None) -> list:
    """Add the repository files whose launches read an explicitly named file
    (only inside a git work tree: the repository is the unit's boundary), so
    that a commit touching only an input of a launch checks that launch:

    * files that include, import, ``source`` or ``--config``-reference it, and
      the files that reference those in turn (a partial of a partial);
    * kustomizations that list it (a resource, a patch, a ConfigMap generator's
      file), and the kustomizations that include theirs;
    * for a ``ConfigMap``, the manifests that mount or reference it by name;
    * with ``resolver`` (pdlint's config resolver): for a values file named in a
      config's ``values`` (or the ``.pdlint.yaml`` itself), every template and
      script that config governs - they render with its variables.
    """
    explicit = [j for j in jobs if j.explicit]
    if not explicit:
        return jobs
    from pdlint.safeio import Boundary, Refused
    boundary = boundary or Boundary(cwd, [j.abspath for j in explicit])
    have = {j.abspath for j in jobs}
    by_root: dict = {}
    for j in explicit:
        if boundary.git_root(j.abspath):
            by_root.setdefault(j.root, []).append(j)
    extra: dict = {}
    for root, named in by_root.items():
        files = repo_files(root, listings)
        if files is None:
            continue
        files = [f for f in files if not excluded(f) and not os.path.isdir(f)]
        if resolver is not None:
            for f in _config_dependents(named, files, resolver, boundary, root):
                if f not in have and f not in extra:
                    kind = file_kind(f, root, _head(f, boundary)) or "unknown"
                    extra[f] = FileJob(f, display_path(f, cwd), root, kind)
        for f in _pair_siblings(named, files, root, boundary) + _compose_of_env_files(named, files) + \
                _sed_templates(named, files, boundary, root) + _servers_of_disagg_config(named, files, boundary, root):
            if f not in have and f not in extra:
                extra[f] = FileJob(f, display_path(f, cwd), root, file_kind(f, root, _head(f, boundary)) or "unknown")
        needles = {os.path.basename(j.abspath).encode() for j in named}
        needles |= {os.path.basename(f).encode() for f in extra if extra[f].kind in ("jinja", "tpl", "shell")}
        configmaps = set()
        for j in named:
            configmaps |= _configmap_names(j.abspath, boundary)
        # a kustomization found to include a named file is itself included by the
        # kustomizations that list its directory: follow those (a few rounds)
        dir_needles: set = set()
        kinds: dict = {}  # file -> its kind (each file's head is read once for all the rounds below)
        # a named partial or sourced file may be read through a name the includer computes (`{% include part ~
        # ".j2" %}`, `source "models/${MODEL}.env"`): its includers are the files that compute one (rw25/h item 8:
        # the hook run said "No launch text found" where the full scan reported SGL101 in that very file)
        computed = any((j.kind in ("jinja", "tpl") or j.abspath.endswith(SHELL_EXT + (".env",)))
                       and not _launches_itself(j.abspath, boundary) for j in named)
        for _ in range(8):
            new: dict = {}
            for f in files:
                if f in have or f in extra or f in new:
                    continue
                kind = kinds.get(f, False)
                if kind is False:
                    kind = kinds[f] = file_kind(f, root, _head(f, boundary) if "." not in os.path.basename(f) else b"")
                if not kind:
                    continue
                kust = os.path.basename(f) in KUSTOMIZATION_NAMES
                if not kust and not needles and not configmaps:
                    continue
                try:
                    data = boundary.read(f, root)
                except Refused:
                    continue
                if any(_references(data, n, kust) for n in needles) or \
                        (kust and any(_references(data, d, True) for d in dir_needles)) or \
                        (configmaps and _mounts_configmap(data, configmaps)) or \
                        (computed and _COMPUTED_INCLUDE.search(data)):
                    new[f] = FileJob(f, display_path(f, cwd), root, kind)
            if not new:
                break
            extra.update(new)
            dir_needles = {os.path.basename(os.path.dirname(f)).encode() for f in new
                           if os.path.basename(f) in KUSTOMIZATION_NAMES} - dir_needles
            # a partial's includer may itself be included (a partial of a partial)
            needles = {os.path.basename(f).encode() for f in new
                       if new[f].kind in ("jinja", "tpl") or os.path.basename(f).endswith(SHELL_EXT)} - needles
            configmaps = set()
            computed = False
            if not dir_needles and not needles:
                break
    return sorted(list(jobs) + list(extra.values()), key=lambda j: j.display)


def _pair_siblings(named: list, files: list, root: str, boundary) -> list:
    """The files of the repository that the pairing joins with a named file by their names alone
    (:func:`pdlint.pairing.role_word_keys`: ``run_prefill.sh`` beside ``run_decode.sh`` and its ``run_lb.sh``,
    ``prefill/x.yaml`` and ``decode/x.yaml``), of a kind pdlint reads: a commit that changes one file of a
    pair is judged with the other (its pair findings kept where they involve the named file), not as a
    launch with no partner (field test rw19/c: a decode's changed connector passed the hook that a scan
    failed).  Whether they really pair is the pairing's business (their flags, their roles)."""
    from pdlint.pairing import role_word_keys
    wanted: dict = {}  # key (the path with a role or router word taken out) -> the roles named files give it
    for j in named:
        for key, _, role in role_word_keys(os.path.relpath(j.abspath, root).replace(os.sep, "/")):
            wanted.setdefault(key, set()).add(role)
    if not wanted:
        return []
    out = []
    for f in files:
        rel = os.path.relpath(f, root).replace(os.sep, "/")
        if any(key in wanted and role not in wanted[key] for key, _, role in role_word_keys(rel)) and \
                file_kind(f, root, _head(f, boundary) if "." not in os.path.basename(f) else b""):
            out.append(f)
    if len(out) > MAX_SIBLINGS * len(named):
        # (names are matched in any case: a repository of 1,920 case variants of `run_decode.sh` pulled every one
        # into a commit's run, each with its own time budget, field test rw20/h) the nearest spellings are kept
        spelled = {os.path.relpath(j.abspath, root).replace(os.sep, "/") for j in named}
        out.sort(key=lambda f: (min(_spelling_distance(os.path.relpath(f, root).replace(os.sep, "/"), n)
                                    for n in spelled), f))
        out = sorted(out[:MAX_SIBLINGS * len(named)])
    return out


def _servers_of_disagg_config(named: list, files: list, boundary, root: str) -> list:
    """The scripts of a named TensorRT-LLM disaggregated config's directory that start ``trtllm-serve`` (at most
    :data:`MAX_SIBLINGS`): the config's servers are judged by the settings those scripts start them with when their
    URLs match (engines/trtllm ``_served_beside``), so a commit that changes only the config is judged as a scan of
    the directory judges it (field round rw34/a P7: a TRT005 only the pre-commit run gave)."""
    out: list = []
    for j, data in _named_holding(named, (".yaml", ".yml"), _DISAGG_KEYS, boundary, root):
        here = os.path.dirname(j.abspath)
        out += _first_holding((f for f in files if os.path.dirname(f) == here and f.endswith(SHELL_EXT)),
                              lambda text: b"trtllm-serve" in text, boundary, root)
    return out


def _named_holding(named: list, suffixes: tuple, pattern, boundary, root: str):
    """``(job, its bytes)`` of each named file whose name ends with one of ``suffixes`` and whose text ``pattern``
    finds (a file pdlint may not read is none)."""
    from pdlint.safeio import Refused
    for j in named:
        if not j.abspath.endswith(suffixes):
            continue
        try:
            data = boundary.read(j.abspath, root)
        except Refused:
            continue
        if pattern.search(data):
            yield j, data


def _first_holding(candidates, test, boundary, root: str) -> list:
    """The first :data:`MAX_SIBLINGS` of ``candidates`` (paths, taken in sorted order) whose bytes pass ``test``."""
    from pdlint.safeio import Refused
    found = []
    for f in sorted(candidates):
        try:
            if test(boundary.read(f, root)):
                found.append(f)
        except Refused:
            continue
        if len(found) >= MAX_SIBLINGS:
            break
    return found


_DISAGG_KEYS = lazyre.compile(rb"^(?:context|generation)_servers[ \t]*:", re.M)


def _sed_templates(named: list, files: list, boundary, root: str) -> list:
    """The YAML templates a named script renders with sed (``sed "s#{TP}#$TP#g" t.yaml | kubectl apply -f -``):
    the files of its directory or the one below it that it names and that hold a ``{NAME}`` placeholder, when it
    holds a ``s#{NAME}#`` substitution (:meth:`pdlint.extract.Extractor.sed_values` reads their values from the
    script).  A commit that changes only the script is judged with the launches it renders (rw33/h item 1: the
    hook said "No launch text found" where a scan of the template reported the script's bad value)."""
    out: list = []
    for j, data in _named_holding(named, (".sh", ".bash"), _SED_BRACE_BYTES, boundary, root):
        here = os.path.dirname(j.abspath)
        near = [f for f in files if f.endswith((".yaml", ".yml")) and
                (os.path.dirname(f) == here or os.path.dirname(os.path.dirname(f)) == here) and
                _mentions(data, os.path.basename(f).encode())]
        out += _first_holding(near, lambda text: _BRACE_BYTES.search(text) is not None, boundary, root)
    return out


def _mentions(data: bytes, name: bytes) -> bool:
    """Does ``data`` name a file called ``name`` (the whole name, outside a ``#`` comment)?"""
    for m in re.finditer(rb"(?<![\w.-])" + re.escape(name) + rb"(?![\w.-])", data):
        head = data[data.rfind(b"\n", 0, m.start()) + 1:m.start()]
        if not _COMMENTED.search(head):
            return True
    return False


#: a sed substitution of a template placeholder (``s#{NAME}#``, any delimiter), and such a placeholder
_SED_BRACE_BYTES = lazyre.compile(rb"\bs([#/|@,:%!])\{[A-Z][A-Z0-9_]*\}\1")
_BRACE_BYTES = lazyre.compile(rb"\{[A-Z][A-Z0-9_]*\}")

#: sibling files one named file brings into a run at most (a pair has a few: the other role's, a router's)
MAX_SIBLINGS = 16

#: Compose files of a project directory (Compose's default names and the variants teams give theirs)
_COMPOSE_NAME = lazyre.compile(r"(?:docker-)?compose(?:[._-][\w.-]+)?\.ya?ml")
#: environment files: the project's `.env` (Compose interpolates the file's `${VAR}` from it) and `env_file:` ones
_ENV_FILE_NAME = lazyre.compile(r"\.env(?:\.[\w.-]+)?|[\w.-]+\.env")


def _compose_of_env_files(named: list, files: list) -> list:
    """The Compose files beside a named override file or environment file (``.env``, ``prod.env``, ``.env.local``): Compose reads
    the project directory's ``.env`` without any file naming it, and ``env_file:`` lists its files in a
    Compose file of the same directory most often.  Field test rw22/a: SGL805 was reported at ``.env:2`` (the
    backend written there), but a commit changing only ``.env`` passed the hook ("No launch text found", exit
    0)."""
    dirs = {os.path.dirname(j.abspath) for j in named if _ENV_FILE_NAME.fullmatch(os.path.basename(j.abspath))}
    out = [f for f in files if os.path.dirname(f) in dirs and _COMPOSE_NAME.fullmatch(os.path.basename(f))]
    from pdlint.formats.compose import DEFAULT_FILES, OVERRIDE_FILES
    # a named override file (`docker-compose.override.yml`): its services are checked merged over the project
    # file beside it, in that file's launches
    dirs = {os.path.dirname(j.abspath) for j in named if os.path.basename(j.abspath) in OVERRIDE_FILES}
    return out + [f for f in files if os.path.dirname(f) in dirs and os.path.basename(f) in DEFAULT_FILES
                  and f not in out]


def _spelling_distance(a: str, b: str) -> int:
    """How far the case of ``a``'s letters is from ``b``'s (upper-case letters of one the other lacks): a sibling
    written like the named file (`run_decode.sh` beside `run_prefill.sh`) first."""
    return abs(sum(c.isupper() for c in a) - sum(c.isupper() for c in b))


_CONFIG_NAMES = (".pdlint.yaml", "pyproject.toml")


def _config_dependents(named: list, files: list, resolver, boundary=None, root: Optional[str] = None) -> list:
    """Templates and scripts that render with a named values file (a config's
    ``values``) or a named ``.pdlint.yaml``: every one that config governs."""
    targets = {os.path.normpath(j.abspath) for j in named}
    configs = []
    candidates = [f for f in files if os.path.basename(f) in _CONFIG_NAMES]
    if getattr(resolver, "explicit", None) is not None:
        configs.append(resolver.explicit)
    else:
        for f in candidates:
            cfg = resolver.for_file(f)
            if cfg.path and os.path.normpath(cfg.path) == os.path.normpath(f):
                configs.append(cfg)
    hit = [c for c in configs if targets & {os.path.normpath(v) for v in c.values_files}
           or (c.path and os.path.normpath(c.path) in targets)]
    if not hit:
        return []
    out = []
    for f in files:
        kind = file_kind(f, root or os.path.dirname(f), _head(f, boundary) if "." not in os.path.basename(f) else b"")
        if kind not in ("jinja", "tpl", "shell", "justfile", "systemd", "dockerfile", "makefile"):
            continue
        cfg = resolver.for_file(f)
        if any(cfg is c for c in hit):
            out.append(f)
    return out


_CONFIGMAP_DOC = lazyre.compile(rb"^kind:\s*[\"']?ConfigMap\b", re.M)
_METADATA_NAME = lazyre.compile(rb"^metadata:\s*\n(?:[ \t]+.*\n)*?[ \t]+name:\s*[\"']?([\w.-]+)", re.M)


def _configmap_names(path: str, boundary=None) -> set:
    """Names of the ConfigMaps a YAML file defines (``kind: ConfigMap`` documents)."""
    from pdlint.safeio import Boundary, Refused
    if not path.lower().endswith(YAML_EXT):
        return set()
    try:
        data = (boundary or Boundary(os.path.dirname(os.path.abspath(path)))).read(path)
    except Refused:
        return set()
    if b"ConfigMap" not in data:
        return set()
    out = set()
    for doc in re.split(rb"^---[^\n]*$", data, flags=re.M):
        if _CONFIGMAP_DOC.search(doc):
            m = _METADATA_NAME.search(doc)
            if m:
                out.add(m.group(1))
    return out


def _mounts_configmap(data: bytes, names: set) -> bool:
    """Does a manifest reference one of the ConfigMaps (a volume, envFrom, a key ref)?"""
    if b"configMap" not in data and b"configmap" not in data.lower():
        return False
    return any(re.search(rb"(?<![\w.-])" + re.escape(n) + rb"(?![\w.-])", data) for n in names)


#: a Python module a script runs by a name it computes (`python3 -m "$E.${S}_server"`, `$PY -m $MOD`): a launch
#: that need not spell an engine's name (hostile-input round rw27/h item P12b: such a script was checked when named
#: and skipped in a directory walk).  Searched only in a script without KEYWORDS: one pass, no backtracking.
_COMPUTED_MODULE = lazyre.compile(rb"[ \t]-m[ \t]+[\"']?[\w.]*\$")


def worth_parsing(kind: str, data: bytes) -> bool:
    """Cheap pre-filter: a YAML file or script that names no engine holds no launch (a script that runs a Python
    module by a computed name may: :data:`_COMPUTED_MODULE`)."""
    if kind in ("jinja", "tpl"):
        return True
    lower = data.lower()
    return any(k in lower for k in KEYWORDS) or (kind == "shell" and _COMPUTED_MODULE.search(data) is not None)
