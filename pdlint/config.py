"""Configuration: ``[tool.pdlint]`` in the nearest ``pyproject.toml`` (or a
``.pdlint.yaml`` with the same keys), found by walking up from each scanned
file to its repository root; ``--config FILE`` replaces discovery.

Keys (both files)::

    role-var = "role"                 # the template role variable (else auto-detected)
    values = ["deploy/values.yaml"]   # YAML files whose top-level keys become variables
    helm-values = {"deploy/chart" = ["envs/*.yaml"]}  # chart directory -> globs of values files to render it with
    engine-version = "0.5.23"         # SGLang version to judge against
    select = ["SGL", "PD"]            # rule codes or prefixes: replaces the default set
    extend-select = ["SGL139"]        # codes or prefixes added to the default set (or to select)
    ignore = ["SGL204"]               # codes or prefixes to disable (extend-ignore: the same)
    per-file-ignores = {"legacy/*" = ["SGL1"]}   # path glob -> codes or prefixes (ALL) disabled there
    exclude = ["vendor/**"]           # glob patterns (relative to the config file) not to scan
    force-exclude = true              # exclude applies to files named on the command line too
    render-timeout = 5                # seconds one template render may take
    time-per-file = 10                # seconds of work one file may take, all stages (only lowers the run's)
    memory-per-file = 512             # MB of memory one file's work may add (only lowers the run's)
    [tool.pdlint.vars]                # variables for every render
    [tool.pdlint.roles.decode.vars]   # per-role variables (roles.prefill.vars likewise)

String values keep their position in the config file, so a flag that comes
from a config variable is reported at the line that sets it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import Any, Optional

from pdlint import lazyre
from pdlint.records import dataclass, field
from pdlint.text import SourceFile, TStr

class ConfigError(Exception):
    """A config (or values) file pdlint cannot use: ``path`` (display), ``line`` (None: unknown), ``message``."""

    def __init__(self, message: str, path: Optional[str] = None, line: Optional[int] = None):
        self.message = message
        self.path = path
        self.line = line
        where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
        super().__init__(where + message)


@dataclass
class Selection:
    """One layer of rule selection (a config file's keys, or the command line's options)."""

    select: Optional[list] = None  # replaces what the layers before chose
    extend_select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)

    def apply(self, code: str, on: bool) -> bool:
        """Whether ``code`` is on after this layer, given whether it was on before."""
        chosen = max(_specificity(self.select or (), code), _specificity(self.extend_select, code))
        dropped = _specificity(self.ignore, code)
        if chosen < 0 and dropped < 0:
            return on if self.select is None else False
        return chosen > dropped

    def selectors(self) -> list:
        return list(self.select or ()) + list(self.extend_select) + list(self.ignore)

    def __bool__(self) -> bool:
        return self.select is not None or bool(self.extend_select) or bool(self.ignore)


def _specificity(selectors, code: str) -> int:
    """Length of the longest selector matching ``code`` (``ALL``: 0); -1 when none matches."""
    best = -1
    for s in selectors:
        if s == "ALL":
            best = max(best, 0)
        elif code.startswith(s):
            best = max(best, len(s))
    return best


def unknown_selectors(selectors) -> list:
    """Selectors that match no rule code (``ALL`` always matches)."""
    from pdlint.rules import all_rules
    codes = list(all_rules())
    return [s for s in selectors if s != "ALL" and not any(c.startswith(s) for c in codes)]


def parse_selectors(values) -> list:
    """``--select SGL1,PD005 --select PD1`` -> ``["SGL1", "PD005", "PD1"]`` (upper-cased)."""
    out = []
    for v in values or ():
        out += [x.strip().upper() for x in v.split(",") if x.strip()]
    return out


@dataclass
class Config:
    path: Optional[str] = None  # the file it came from (absolute), None for defaults
    root: Optional[str] = None  # directory of that file
    role_var: Optional[str] = None
    vars: dict = field(default_factory=dict)
    role_vars: dict = field(default_factory=dict)  # role -> {name: value}
    values_files: list = field(default_factory=list)  # absolute paths
    helm_values: dict = field(default_factory=dict)  # chart directory (absolute) -> absolute globs of its overlays
    engine_version: Optional[str] = None
    vllm_version: Optional[str] = None  # the vLLM release to judge vLLM launches against
    selection: Selection = field(default_factory=Selection)  # this file's select / extend-select / ignore
    overlay: Optional[Selection] = None  # the command line's, applied after this file's
    # the command line's per-file ignores: (whether they replace this file's, {glob: codes}) (--per-file-ignores,
    # --extend-per-file-ignores); None: none given
    cli_ignores: Optional[tuple] = None
    exclude: list = field(default_factory=list)
    force_exclude: Optional[bool] = None  # None: not set (the command line decides; default off)
    per_file_ignores: dict = field(default_factory=dict)
    render_timeout: Optional[float] = None
    time_per_file: Optional[float] = None  # seconds (pdlint.budget); None: the run's
    memory_per_file: Optional[float] = None  # MB
    jinja: Any = None  # pdlint.render.jinja.JinjaOptions ([tool.pdlint.jinja]); None: the defaults
    warnings: list = field(default_factory=list)
    # the file is invalid (a pdlint.model.Finding, PD012): pdlint does not check the files it governs
    error: Any = None
    _enabled: dict = field(default_factory=dict, repr=False)

    @property
    def select(self) -> Optional[list]:
        return self.selection.select

    @property
    def ignore(self) -> list:
        return self.selection.ignore

    def with_overlay(self, overlay: Optional[Selection], cli_ignores: Optional[tuple] = None) -> "Config":
        """This config with the command line's rule selection applied after its own (and its per-file
        ignores: ``(replace, {glob: codes})``)."""
        if not overlay and not cli_ignores:
            return self
        from pdlint.records import replace
        return replace(self, overlay=overlay or None, cli_ignores=cli_ignores, _enabled={})

    def enabled(self, code: str, path: Optional[str] = None) -> bool:
        """On in the default set, or chosen by ``select`` / ``extend-select``,
        and not ignored (``ignore``, ``per-file-ignores``); see the module docstring."""
        key = (code, path)
        hit = self._enabled.get(key)
        if hit is None:
            hit = self._enabled[key] = self._decide(code, path)
        return hit

    def _decide(self, code: str, path: Optional[str]) -> bool:
        on = self.selection.apply(code, _default_on(code))
        if self.overlay is not None:
            on = self.overlay.apply(code, on)
        if not on:
            return False
        if path is not None:
            table = list(self.per_file_ignores.items())
            if self.cli_ignores:
                replaces, given = self.cli_ignores
                table = (list(given.items()) if replaces else table + list(given.items()))
            for pattern, codes in table:
                # `ALL` disables every rule there, as in select / ignore (and ruff's per-file-ignores): it matched
                # no code and was silently a no-op (rw28/h item 9)
                if fnmatch.fnmatch(path, pattern) and any(c == "ALL" or code.startswith(c) for c in codes):
                    return False
        return True

    def excluded(self, abspath: str) -> bool:
        if not self.exclude or not self.root:
            return False
        return glob_match(os.path.relpath(abspath, self.root).replace(os.sep, "/"), self.exclude)


def glob_match(rel: str, patterns) -> bool:
    """Does the '/'-separated relative path ``rel`` match one of the ``exclude`` globs (a directory's glob
    covers what is under it)?"""
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*") for pat in patterns)


def _load_toml(text: str) -> dict:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - older Pythons
        import tomli as tomllib
    return tomllib.loads(text)


def load_config_file(path: str, display: str, boundary=None, data: Optional[bytes] = None) -> Config:
    """Read one config file (pyproject.toml or .pdlint.yaml), inside the
    repository boundary (:mod:`pdlint.safeio`); a bad file raises
    :class:`ConfigError` with the line where known."""
    from pdlint.safeio import Boundary, Refused, decode
    boundary = boundary or Boundary(os.path.dirname(os.path.abspath(path)))
    if data is None:
        try:
            data = boundary.read(path)
        except Refused as r:
            raise ConfigError(f"cannot read config ({r.message})", display) from None
    text, bad = decode(data)
    if bad is not None:
        raise ConfigError(f"config file is {bad[0]}" if not bad[0].startswith("file ") else
                          f"config {bad[0]}", display, bad[1])
    src = SourceFile(display, text, path)
    root = boundary.root_for(path)
    if path.endswith(".toml"):
        try:
            doc = _load_toml(text)
        except Exception as e:
            m = re.search(r"\(at line (\d+)", str(e))
            raise ConfigError(f"invalid TOML: {e}", display, int(m.group(1)) if m else None) from None
        tool = doc.get("tool", {})
        table = tool.get("pdlint") if isinstance(tool, dict) else None
        if table is None:
            table = {}
        if not isinstance(table, dict):
            raise ConfigError("[tool.pdlint] must be a table", display, _toml_key_line(src, (), "pdlint"))
        return _from_table(table, path, src, toml=True, root=root, boundary=boundary)
    import yaml
    try:
        doc = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        what = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"invalid YAML: {what}", display, mark.line + 1 if mark is not None else None) from None
    except RecursionError:
        raise ConfigError("invalid YAML: nested too deep", display) from None
    except (ValueError, OverflowError) as e:  # an integer of more than 4300 digits (field test rw20/h)
        raise ConfigError(f"invalid YAML: {value_error(e)}", display) from None
    if not isinstance(doc, dict):
        raise ConfigError("the config must be a mapping", display, 1)
    return _from_table(doc, path, src, toml=False, yroot=_yaml_root(src.text), root=root, boundary=boundary)


def value_error(e: Exception) -> str:
    """A ValueError of a parser as a message (Python's advice on its integer digit limit left out)."""
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    if "Exceeds the limit" in text and "digits" in text:
        return "an integer with too many digits (more than 4300)"
    return text[:200]


_TABLE_HEADER = lazyre.compile(rb"^\s*\[\s*tool\s*\.\s*pdlint\b", re.M)


def has_pdlint_table(pyproject, boundary=None) -> bool:
    """Does a pyproject.toml (its path, or its bytes) configure pdlint?  A loose
    match on purpose: a malformed ``[tool.pdlint]`` table is a config error, not
    "no config"; a file without the table does not matter at all (it may be
    vendored, not even UTF-8)."""
    if isinstance(pyproject, str):
        from pdlint.safeio import Boundary, Refused
        try:
            pyproject = (boundary or Boundary(os.path.dirname(os.path.abspath(pyproject)))).read(pyproject)
        except Refused:
            return False
    return _TABLE_HEADER.search(pyproject) is not None


def _yaml_root(text: str):
    """The composed root mapping of a YAML config (positions of its values), or None."""
    from pdlint.formats import yamltree as yt
    try:
        docs = yt.compose(text)
    except yt.YamlError:
        return None
    return yt.Ref(docs[0].root) if docs and docs[0].root is not None else None


# -- the schema: every key's type and range, checked in one place ----------------------------------

def _is_str(v) -> bool:
    return isinstance(v, str)


def _is_str_list(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _is_bool(v) -> bool:
    return isinstance(v, bool)


def _is_table(v) -> bool:
    return isinstance(v, dict)


def _limit(cap_name: str):
    """A resource limit (pdlint.budget): a finite positive number, at most the hard cap (nan, inf, zero, negative
    numbers, booleans and strings would switch a limit off or are typos)."""
    def ok(v) -> bool:
        from pdlint import budget
        try:
            budget.check_limit(v, "", "", getattr(budget, cap_name))
        except ValueError:
            return False
        return True
    return ok


def _cap(cap_name: str, unit: str):
    def text() -> str:
        from pdlint import budget
        return f"a positive number of {unit}, at most {getattr(budget, cap_name):g}"
    return text


def _is_roles(v) -> bool:
    return isinstance(v, dict) and all(isinstance(b, dict) and isinstance(b.get("vars", {}), dict)
                                       for b in v.values())


def _is_globs_to_codes(v) -> bool:
    return isinstance(v, dict) and all(_is_str_list(c) for c in v.values())


def _is_preset(v) -> bool:
    from pdlint.render.jinja import PRESETS
    return v in PRESETS


def _presets() -> str:
    from pdlint.render.jinja import PRESETS
    return "one of " + ", ".join(sorted(PRESETS))


_CODES = "a list of rule codes or prefixes"
#: key -> (what it must be, check).  A string where a list is expected is refused, as ruff does
#: (``extend-ignore = "SGL"`` is "invalid type: string, expected a sequence" there): it is not
#: split into characters, and not taken as one item either, so a typo never silences rules.
SCHEMA = {
    "role-var": ("a variable name", lambda v: isinstance(v, str) and v.isidentifier()),
    "values": ("a list of file names (relative to the config file, inside the repository)", _is_str_list),
    "vars": ("a table", _is_table),
    "roles": ("a table of role tables (roles.<role>.vars = {...})", _is_roles),
    "engine-version": ("a release string such as \"0.5.23\"", _is_str),
    "sglang-version": ("a release string such as \"0.5.23\"", _is_str),
    "vllm-version": ("a release string such as \"0.10.1\"", _is_str),
    "select": (_CODES, _is_str_list),
    "extend-select": (_CODES, _is_str_list),
    "ignore": (_CODES, _is_str_list),
    "extend-ignore": (_CODES, _is_str_list),
    "exclude": ("a list of glob patterns", _is_str_list),
    "force-exclude": ("true or false", _is_bool),
    "per-file-ignores": ("a table mapping globs to lists of rule codes or prefixes", _is_globs_to_codes),
    "helm-values": ("a table mapping chart directories to lists of globs of values files", _is_globs_to_codes),
    "render-timeout": (_cap("TIME_CAP", "seconds"), _limit("TIME_CAP")),
    "time-per-file": (_cap("TIME_CAP", "seconds"), _limit("TIME_CAP")),
    "memory-per-file": (_cap("MEMORY_CAP", "MB"), _limit("MEMORY_CAP")),
    "jinja": ("a table", _is_table),
}
JINJA_SCHEMA = {
    "preset": (_presets, _is_preset),
    "trim-blocks": ("true or false", _is_bool),
    "lstrip-blocks": ("true or false", _is_bool),
    "keep-trailing-newline": ("true or false", _is_bool),
    "extensions": ("a list of extension names", _is_str_list),
    "filters": ("a list of filter names", _is_str_list),
}
KNOWN_KEYS = set(SCHEMA)


def _got(v) -> str:
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, int):
        return f"an integer ({v})"
    if isinstance(v, float):
        return f"a number ({v})"
    if isinstance(v, str):
        return f"a string ({v[:40]!r})" if len(v) <= 40 else "a string"
    if isinstance(v, list):
        bad = next((x for x in v if not isinstance(x, str)), None)
        return f"a list holding {_got(bad)}" if bad is not None else "a list"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


def validate(table: dict, src: SourceFile, toml: bool, yroot=None, schema=None, section: tuple = ()) -> None:
    """Check every known key of a config table against :data:`SCHEMA`; the
    first bad one raises :class:`ConfigError` naming the key, what it must be,
    what it is, the file and the key's line."""
    schema = SCHEMA if schema is None else schema
    for key, value in table.items():
        spec = schema.get(key)
        if spec is None:
            continue
        expected, ok = spec
        if ok(value):
            continue
        name = ".".join(section + (key,))
        expected = expected() if callable(expected) else expected
        raise ConfigError(f"{name} must be {expected}, not {_got(value)}", src.path,
                          _key_line(src, toml, section, key, yroot))
    if schema is SCHEMA and isinstance(table.get("jinja"), dict):
        validate(table["jinja"], src, toml, yroot, JINJA_SCHEMA, ("jinja",))


def _key_line(src: SourceFile, toml: bool, section: tuple, key: str, yroot=None) -> Optional[int]:
    """The line a config key is written on (best effort), or None."""
    if not toml:
        from pdlint.formats import yamltree as yt
        node = yroot
        for name in section:
            node = yt.get(node, name) if node is not None and isinstance(yt.deref(node).node, yt.YMap) else None
        if node is None or not isinstance(yt.deref(node).node, yt.YMap):
            return None
        for k, v in yt.map_items(node):
            if k == key:
                return src.position(yt.deref(v).node.start)[0]
        return None
    return _toml_key_line(src, section, key)


def _toml_key_line(src: SourceFile, section: tuple, key: str) -> Optional[int]:
    text = src.text
    header = re.search(r"^\s*\[\s*tool\s*\.\s*pdlint" + "".join(r"\s*\.\s*" + re.escape(s) for s in section) +
                       r"\s*\]\s*$", text, re.M)
    start = header.end() if header else 0
    m = re.compile(r"^[ \t]*[\"']?" + re.escape(key) + r"[\"']?[ \t]*=", re.M).search(text, start)
    if m is None and section:
        m = re.compile(r"^[ \t]*" + re.escape(section[-1]) + r"[ \t]*=", re.M).search(text, start)
    return src.position(m.start())[0] if m else None


def _values_paths(vals: list, cfg: "Config", src: SourceFile, toml: bool, yroot, root: str, boundary) -> list:
    """The ``values`` files, each inside the root of the config's repository:
    an absolute path, a ``../`` escape or a symlink out of it is a config error."""
    out = []
    for v in vals:
        line = _key_line(src, toml, (), "values", yroot)
        if os.path.isabs(v) or v.startswith("~"):
            raise ConfigError(f"values file {v} is outside the repository (an absolute path); name it relative to "
                              f"the config file", src.path, line)
        full = os.path.normpath(os.path.join(cfg.root, v))
        from pdlint.safeio import inside
        if not inside(full, root) or (boundary is not None and not boundary.contains(full, root)):
            how = "through a symlink" if inside(full, root) else ""
            raise ConfigError(f"values file {v} is outside the repository{(' ' + how) if how else ''}; pdlint reads "
                              f"only files inside it", src.path, line)
        out.append(full)
    return out


def _helm_values(table: dict, cfg: "Config", src: SourceFile, toml: bool, yroot, root: str, boundary) -> dict:
    """``helm-values``: chart directory -> globs of the values files (overlays) each chart is also rendered with,
    both relative to the config's directory and inside the repository (an absolute path or a ``../`` escape is a
    config error, as for ``values``)."""
    from pdlint.safeio import inside
    out: dict = {}
    for chart, globs in table.items():
        line = _key_line(src, toml, (), "helm-values", yroot)
        for name in [chart] + list(globs):
            full = os.path.normpath(os.path.join(cfg.root, name))
            if os.path.isabs(name) or name.startswith("~") or not inside(full, root):
                raise ConfigError(f"helm-values: {name} is outside the repository; name it relative to the config "
                                  f"file", src.path, line)
        out[os.path.normpath(os.path.join(cfg.root, chart))] = [os.path.normpath(os.path.join(cfg.root, g))
                                                                 for g in globs]
    return out


def _from_table(table: dict, path: str, src: SourceFile, toml: bool, yroot=None, root: Optional[str] = None,
                boundary=None) -> Config:
    cfg = Config(path=path, root=os.path.dirname(path))
    for key in table:
        if key not in KNOWN_KEYS:
            cfg.warnings.append(f"{src.path}: unknown pdlint config key {key!r}")
    validate(table, src, toml, yroot)
    rv = table.get("role-var")
    if rv is not None:
        cfg.role_var = rv
    cfg.values_files = _values_paths(table.get("values", []), cfg, src, toml, yroot, root or cfg.root, boundary)
    cfg.helm_values = _helm_values(table.get("helm-values", {}), cfg, src, toml, yroot, root or cfg.root, boundary)
    cfg.vars = _positioned(table.get("vars", {}), src, toml, ("vars",), yroot)
    for role, body in table.get("roles", {}).items():
        cfg.role_vars[role] = _positioned(body.get("vars", {}), src, toml, ("roles", role, "vars"), yroot)
    for key, attr in (("render-timeout", "render_timeout"), ("time-per-file", "time_per_file"),
                      ("memory-per-file", "memory_per_file")):  # checked by SCHEMA (finite, positive, capped)
        v = table.get(key)
        if v is not None:
            setattr(cfg, attr, float(v))
    jt = table.get("jinja")
    if jt is not None:
        cfg.jinja = jinja_options(jt, src.path, cfg.warnings)
    ev = table.get("engine-version", table.get("sglang-version"))
    cfg.engine_version = ev
    cfg.vllm_version = table.get("vllm-version")
    if cfg.vllm_version is not None:
        from pdlint.engines.vllm.flags import UnknownRelease as UnknownVllm, check_release as check_vllm
        try:
            check_vllm(cfg.vllm_version)
        except UnknownVllm as e:
            raise ConfigError(f"vllm-version: {e}", src.path, _key_line(src, toml, (), "vllm-version", yroot)) \
                from None
    if cfg.engine_version is not None:
        from pdlint.engines.sglang.flags import UnknownRelease, check_release
        try:
            check_release(cfg.engine_version)
        except UnknownRelease as e:
            key = "engine-version" if "engine-version" in table else "sglang-version"
            raise ConfigError(f"{key}: {e}", src.path, _key_line(src, toml, (), key, yroot)) from None
    lists = {key: [x.strip().upper() for x in table[key]]
             for key in ("select", "extend-select", "ignore", "extend-ignore") if table.get(key) is not None}
    cfg.selection = Selection(lists.get("select"), lists.get("extend-select", []),
                              lists.get("ignore", []) + lists.get("extend-ignore", []))
    cfg.exclude = list(table.get("exclude", []))
    cfg.force_exclude = table.get("force-exclude")
    cfg.per_file_ignores = {k: list(v) for k, v in table.get("per-file-ignores", {}).items()}
    unknown = unknown_selectors(cfg.selection.selectors() + [c for v in cfg.per_file_ignores.values() for c in v])
    for s in unknown:
        cfg.warnings.append(f"{src.path}: rule selector {s!r} matches no rule (see `pdlint rules`)")
    return cfg


def jinja_options(table: dict, where: str, warnings: list):
    """``[tool.pdlint.jinja]`` (types checked by :data:`JINJA_SCHEMA`): how templates are rendered (as the
    deploy tool does)."""
    from pdlint.render.jinja import EXTENSIONS, JinjaOptions
    for key in table:
        if key not in JINJA_SCHEMA:
            warnings.append(f"{where}: unknown pdlint config key 'jinja.{key}'")
    opts = JinjaOptions.for_preset(table.get("preset"))
    for key, attr in (("trim-blocks", "trim_blocks"), ("lstrip-blocks", "lstrip_blocks"),
                      ("keep-trailing-newline", "keep_trailing_newline")):
        v = table.get(key)
        if v is not None:
            setattr(opts, attr, v)
    for e in table.get("extensions", []):
        name = EXTENSIONS.get(e)
        if name is None:
            # never imported: a repository's config must not make pdlint run code
            warnings.append(f"{where}: jinja extension {e!r} is not one pdlint can load (only Jinja's own: "
                            f"{', '.join(sorted(k for k in EXTENSIONS if '.' not in k))}); ignored, so templates "
                            f"using its tags or filters fail to render")
        elif name not in opts.extensions:
            opts.extensions = opts.extensions + (name,)
    # filters the deploy tool registers (PD016): rendered as values pdlint cannot see, never imported or run
    opts.filters = tuple(dict.fromkeys(opts.filters + tuple(table.get("filters", []))))
    return opts


def _positioned(table: Any, src: SourceFile, toml: bool, section: tuple, yroot=None) -> dict:
    if not isinstance(table, dict):
        raise ConfigError(f"{'.'.join(section)} must be a table", src.path)
    sec = yroot
    if sec is not None:
        from pdlint.formats import yamltree as yt
        for name in section:
            sec = yt.get(sec, name) if sec is not None and isinstance(yt.deref(sec).node, yt.YMap) else None
        if sec is not None and not isinstance(yt.deref(sec).node, yt.YMap):
            sec = None
    out = {}
    doc = None
    for k, v in table.items():
        ref = None
        if sec is not None:
            from pdlint.formats import yamltree as yt
            ref = yt.get(sec, k)
        if ref is not None:
            # a YAML config: every scalar at its exact place (strings, numbers; nested values too)
            doc = doc or TStr.from_source(src)
            out[k] = _positioned_value(doc, ref, [MAX_VALUES_NODES])
        else:
            out[k] = wrap_positioned(v, src, _locate(src, k, v, toml, section))
    return out


def _locate(src: SourceFile, key: str, value: Any, toml: bool, section: tuple) -> Optional[int]:
    """Offset of a string's or number's first character (best effort, by text search)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    if not isinstance(value, str):
        if not toml:
            return None
        m = re.search(r"^\s*" + re.escape(key) + r"\s*=\s*([-+0-9][\w.+-]*)", src.text[_section_start(src, section):],
                      re.M)
        return _section_start(src, section) + m.start(1) if m else None
    text = src.text
    start = 0
    if toml:
        header = re.search(r"^\s*\[tool\.pdlint\." + r"\.".join(re.escape(s) for s in section) + r"\]\s*$",
                           text, re.M)
        if header:
            start = header.end()
        pat = re.compile(r"^\s*" + re.escape(key) + r"\s*=\s*([\"'])", re.M)
    else:
        pat = re.compile(r"^\s*" + re.escape(key) + r"\s*:\s*([\"']?)", re.M)
    m = pat.search(text, start)
    if not m:
        return None
    i = m.end()
    if text.startswith(value, i):
        return i
    j = text.find(value, i)
    return j if 0 <= j - i < 8 else None


def _section_start(src: SourceFile, section: tuple) -> int:
    header = re.search(r"^\s*\[tool\.pdlint\." + r"\.".join(re.escape(s) for s in section) + r"\]\s*$",
                       src.text, re.M)
    return header.end() if header else 0


def wrap_positioned(value: Any, src: SourceFile, offset: Optional[int]):
    """A config string (or number) as an :class:`~pdlint.render.jinja.OStr`
    (``OInt``, ``OFloat``) that keeps its position."""
    if offset is None or isinstance(value, bool):
        return value
    from pdlint.render.jinja import OFloat, OInt, OStr
    if isinstance(value, str):
        return OStr(TStr.at(value, src, offset, exact=True))
    if isinstance(value, (int, float)):
        m = re.match(r"[-+0-9][\w.+-]*", src.text[offset:])
        written = m.group(0) if m else str(value)
        tstr = TStr.at(written, src, offset, exact=True)
        return OInt(value, tstr) if isinstance(value, int) else OFloat(value, tstr)
    return value


def load_values_file(path: str, display: str, bools: Optional[dict] = None, boundary=None,
                     root: Optional[str] = None) -> tuple:
    """Top-level keys of a YAML values file as variables: strings and numbers
    positioned (:class:`~pdlint.render.jinja.OStr`, ``OInt``, ``OFloat``);
    booleans (which cannot carry a position) go to ``bools`` as
    ``{(key, subkey, ...): TStr}`` when given.  Read inside ``root`` (default:
    the file's own root) through :mod:`pdlint.safeio`; any problem raises
    :class:`ConfigError` (at the values file, with the line where known)."""
    from pdlint.formats import yamltree as yt
    from pdlint.safeio import Boundary, Refused, decode
    boundary = boundary or Boundary(os.path.dirname(os.path.abspath(path)))
    try:
        data = boundary.read(path, root)
    except Refused as e:
        raise ConfigError(f"cannot read values file ({e.message})", display) from None
    text, bad = decode(data)
    if bad is not None:
        raise ConfigError(f"values file: {bad[0]}", display, bad[1])
    src = SourceFile(display, text, path)
    try:
        docs = yt.compose(text)
    except yt.YamlError as e:
        line, col = src.position(e.index)
        raise ConfigError(f"invalid YAML in values file: {e.message_in(TStr.from_source(src))}", display,
                          line) from None
    if not docs or docs[0].root is None:
        return {}, src
    root_ref = yt.Ref(docs[0].root)
    node = yt.deref(root_ref).node
    if isinstance(node, yt.YScalar) and yt.scalar_value(node) is None:
        return {}, src  # `---` and comments only (an `ansible-galaxy init` skeleton's vars/main.yml)
    if not isinstance(node, yt.YMap):
        raise ConfigError("a values file must be a mapping", display, 1)
    doc = TStr.from_source(src)
    budget = [MAX_VALUES_NODES]
    try:
        return {k: _positioned_value(doc, v, budget, (k,), bools) for k, v in yt.map_items(root_ref)}, src
    except yt.LimitError as e:
        line, col = src.position(e.index)
        raise ConfigError(e.message, display, line) from None
    except RecursionError:
        raise ConfigError("values file nested too deep", display) from None


#: values a values file may expand to through YAML aliases (a "billion laughs"
#: file is a few hundred bytes; each alias to a list is expanded into the variable)
MAX_VALUES_NODES = 50_000


def _positioned_value(doc: TStr, ref, budget: list, path: tuple = (), bools: Optional[dict] = None):
    from pdlint.formats import yamltree as yt
    from pdlint.render.jinja import OFloat, OInt, OStr
    node = yt.deref(ref).node
    budget[0] -= 1
    if budget[0] < 0:
        raise yt.LimitError(f"values file expands to more than {MAX_VALUES_NODES} values through YAML aliases",
                            node.start)
    if isinstance(node, yt.YScalar):
        value = yt.scalar_value(node)
        if isinstance(value, str):
            return OStr(yt.scalar_tstr(doc, ref))
        if isinstance(value, bool):
            if bools is not None:
                bools[path] = yt.scalar_tstr(doc, ref)
            return value
        if isinstance(value, int):
            return OInt(value, yt.scalar_tstr(doc, ref))
        if isinstance(value, float):
            return OFloat(value, yt.scalar_tstr(doc, ref))
        return value
    if isinstance(node, yt.YSeq):
        return [_positioned_value(doc, i, budget, path + (n,), bools) for n, i in enumerate(yt.seq_items(ref))]
    if isinstance(node, yt.YMap):
        return {k: _positioned_value(doc, v, budget, path + (k,), bools) for k, v in yt.map_items(ref)}
    return None


def _default_on(code: str) -> bool:
    from pdlint.rules import _REGISTRY, all_rules
    rule = _REGISTRY.get(code)  # the rules loaded so far, else every rule
    if rule is None:
        rule = all_rules().get(code)
    return rule is None or rule.default
