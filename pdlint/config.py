"""Configuration: ``[tool.pdlint]`` in the nearest ``pyproject.toml`` (or a
``.pdlint.yaml`` with the same keys), found by walking up from each scanned
file to its repository root; ``--config FILE`` replaces discovery.

Keys (both files)::

    role-var = "role"                 # the template role variable (else auto-detected)
    values = ["deploy/values.yaml"]   # YAML files whose top-level keys become variables
    engine-version = "0.5.23"         # SGLang version to judge against
    select = ["SGL", "PD"]            # rule codes or prefixes to enable (default: all)
    ignore = ["SGL204"]               # codes or prefixes to disable
    exclude = ["vendor/**"]           # glob patterns (relative to the config file) not to scan
    render-timeout = 5                # seconds one template render may take
    [tool.pdlint.vars]                # variables for every render
    [tool.pdlint.roles.decode.vars]   # per-role variables (roles.prefill.vars likewise)

String values keep their position in the config file, so a flag that comes
from a config variable is reported at the line that sets it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from pdlint.text import SourceFile, TStr

KNOWN_KEYS = {"render-timeout", "role-var", "values", "vars", "roles", "engine-version", "sglang-version", "select",
              "ignore", "extend-select", "extend-ignore", "exclude", "per-file-ignores"}


class ConfigError(Exception):
    pass


@dataclass
class Config:
    path: Optional[str] = None  # the file it came from (absolute), None for defaults
    root: Optional[str] = None  # directory of that file
    role_var: Optional[str] = None
    vars: dict = field(default_factory=dict)
    role_vars: dict = field(default_factory=dict)  # role -> {name: value}
    values_files: list = field(default_factory=list)  # absolute paths
    engine_version: Optional[str] = None
    select: Optional[list] = None
    ignore: list = field(default_factory=list)
    exclude: list = field(default_factory=list)
    per_file_ignores: dict = field(default_factory=dict)
    render_timeout: Optional[float] = None
    warnings: list = field(default_factory=list)
    _enabled: dict = field(default_factory=dict, repr=False)

    def enabled(self, code: str, path: Optional[str] = None) -> bool:
        """Selected (``select`` prefixes; default: every rule that is on by
        default) and not ignored (``ignore``, ``per-file-ignores``)."""
        key = (code, path)
        hit = self._enabled.get(key)
        if hit is None:
            hit = self._enabled[key] = self._decide(code, path)
        return hit

    def _decide(self, code: str, path: Optional[str]) -> bool:
        if self.select is not None:
            if not any(code.startswith(s) or s == "ALL" for s in self.select):
                return False
        elif not _default_on(code):
            return False
        if any(code.startswith(s) for s in self.ignore):
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores.items():
                if fnmatch.fnmatch(path, pattern) and any(code.startswith(c) for c in codes):
                    return False
        return True

    def excluded(self, abspath: str) -> bool:
        if not self.exclude or not self.root:
            return False
        rel = os.path.relpath(abspath, self.root).replace(os.sep, "/")
        return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*")
                   for pat in self.exclude)


def _load_toml(text: str) -> dict:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - older Pythons
        import tomli as tomllib
    return tomllib.loads(text)


def load_config_file(path: str, display: str) -> Config:
    """Read one config file (pyproject.toml or .pdlint.yaml)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(f"{display}: cannot read config: {e.strerror or e}") from None
    src = SourceFile(display, text.replace("\r\n", "\n"), path)
    if path.endswith(".toml"):
        try:
            data = _load_toml(text)
        except Exception as e:
            raise ConfigError(f"{display}: invalid TOML: {e}") from None
        table = data.get("tool", {}).get("pdlint")
        if table is None:
            table = {}
        return _from_table(table, path, src, toml=True)
    import yaml
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{display}: invalid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{display}: the config must be a mapping")
    return _from_table(data, path, src, toml=False)


def has_pdlint_table(pyproject: str) -> bool:
    try:
        with open(pyproject, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    # a loose match on purpose: a malformed [tool.pdlint] table is a config error, not "no config"
    return re.search(r"^\s*\[\s*tool\s*\.\s*pdlint\b", text, re.M) is not None


def _from_table(table: dict, path: str, src: SourceFile, toml: bool) -> Config:
    cfg = Config(path=path, root=os.path.dirname(path))
    for key in table:
        if key not in KNOWN_KEYS:
            cfg.warnings.append(f"{src.path}: unknown pdlint config key {key!r}")
    rv = table.get("role-var")
    if rv is not None:
        if not isinstance(rv, str) or not rv.isidentifier():
            raise ConfigError(f"{src.path}: role-var must be a variable name")
        cfg.role_var = rv
    vals = table.get("values", [])
    if isinstance(vals, str):
        vals = [vals]
    if not isinstance(vals, list) or not all(isinstance(v, str) for v in vals):
        raise ConfigError(f"{src.path}: values must be a list of file names")
    cfg.values_files = [os.path.normpath(os.path.join(cfg.root, v)) for v in vals]
    cfg.vars = _positioned(table.get("vars", {}), src, toml, ("vars",))
    roles = table.get("roles", {})
    if not isinstance(roles, dict):
        raise ConfigError(f"{src.path}: roles must be a table")
    for role, body in roles.items():
        if not isinstance(body, dict):
            raise ConfigError(f"{src.path}: roles.{role} must be a table")
        cfg.role_vars[role] = _positioned(body.get("vars", {}), src, toml, ("roles", role, "vars"))
    rt = table.get("render-timeout")
    if rt is not None:
        if isinstance(rt, bool) or not isinstance(rt, (int, float)) or rt <= 0:
            raise ConfigError(f"{src.path}: render-timeout must be a positive number of seconds")
        cfg.render_timeout = float(rt)
    ev = table.get("engine-version", table.get("sglang-version"))
    cfg.engine_version = str(ev) if ev is not None else None
    for key, attr in (("select", "select"), ("ignore", "ignore")):
        v = table.get(key)
        if v is not None:
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{src.path}: {key} must be a list of rule codes or prefixes")
            setattr(cfg, attr, list(v))
    cfg.ignore += list(table.get("extend-ignore", []))
    if table.get("extend-select") and cfg.select is not None:
        cfg.select += list(table["extend-select"])
    ex = table.get("exclude", [])
    cfg.exclude = [ex] if isinstance(ex, str) else list(ex)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{src.path}: per-file-ignores must map globs to rule lists")
    cfg.per_file_ignores = {k: ([v] if isinstance(v, str) else list(v)) for k, v in pfi.items()}
    return cfg


def _positioned(table: Any, src: SourceFile, toml: bool, section: tuple) -> dict:
    if not isinstance(table, dict):
        raise ConfigError(f"{src.path}: {'.'.join(section)} must be a table")
    out = {}
    for k, v in table.items():
        out[k] = wrap_positioned(v, src, _locate(src, k, v, toml, section))
    return out


def _locate(src: SourceFile, key: str, value: Any, toml: bool, section: tuple) -> Optional[int]:
    """Offset of a string value's first character (best effort, by text search)."""
    if not isinstance(value, str):
        return None
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


def wrap_positioned(value: Any, src: SourceFile, offset: Optional[int]):
    """A config string as an :class:`~pdlint.render.jinja.OStr` (keeps its position)."""
    if isinstance(value, str) and offset is not None:
        from pdlint.render.jinja import OStr
        return OStr(TStr.at(value, src, offset, exact=True))
    return value


def load_values_file(path: str, display: str) -> tuple:
    """Top-level keys of a YAML values file as variables (strings positioned)."""
    from pdlint.formats import yamltree as yt
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().replace("\r\n", "\n")
    except OSError as e:
        raise ConfigError(f"{display}: cannot read values file: {e.strerror or e}") from None
    src = SourceFile(display, text, path)
    try:
        docs = yt.compose(text)
    except yt.YamlError as e:
        line, col = src.position(e.index)
        raise ConfigError(f"{display}:{line}:{col}: invalid YAML in values file: {e.message}") from None
    if not docs or docs[0].root is None:
        return {}, src
    root = yt.Ref(docs[0].root)
    if not isinstance(yt.deref(root).node, yt.YMap):
        raise ConfigError(f"{display}: a values file must be a mapping")
    doc = TStr.from_source(src)
    return {k: _positioned_value(doc, v) for k, v in yt.map_items(root)}, src


def _positioned_value(doc: TStr, ref):
    from pdlint.formats import yamltree as yt
    from pdlint.render.jinja import OStr
    node = yt.deref(ref).node
    if isinstance(node, yt.YScalar):
        value = yt.scalar_value(node)
        if isinstance(value, str):
            return OStr(yt.scalar_tstr(doc, ref))
        return value
    if isinstance(node, yt.YSeq):
        return [_positioned_value(doc, i) for i in yt.seq_items(ref)]
    if isinstance(node, yt.YMap):
        return {k: _positioned_value(doc, v) for k, v in yt.map_items(ref)}
    return None


def _default_on(code: str) -> bool:
    from pdlint.rules import all_rules
    rule = all_rules().get(code)
    return rule is None or rule.default
