"""Configuration: ``[tool.pdlint]`` in the nearest ``pyproject.toml`` (or a
``.pdlint.yaml`` with the same keys), found by walking up from each scanned
file to its repository root; ``--config FILE`` replaces discovery.

Keys (both files)::

    role-var = "role"                 # the template role variable (else auto-detected)
    values = ["deploy/values.yaml"]   # YAML files whose top-level keys become variables
    engine-version = "0.5.23"         # SGLang version to judge against
    select = ["SGL", "PD"]            # rule codes or prefixes: replaces the default set
    extend-select = ["SGL139"]        # codes or prefixes added to the default set (or to select)
    ignore = ["SGL204"]               # codes or prefixes to disable (extend-ignore: the same)
    per-file-ignores = {"legacy/*" = ["SGL1"]}   # path glob -> codes or prefixes disabled there
    exclude = ["vendor/**"]           # glob patterns (relative to the config file) not to scan
    force-exclude = true              # exclude applies to files named on the command line too
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

KNOWN_KEYS = {"render-timeout", "role-var", "values", "vars", "roles", "engine-version", "sglang-version", "vllm-version",
              "select",
              "ignore", "extend-select", "extend-ignore", "exclude", "force-exclude", "per-file-ignores", "jinja"}


class ConfigError(Exception):
    pass


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
    engine_version: Optional[str] = None
    vllm_version: Optional[str] = None  # the vLLM release to judge vLLM launches against
    selection: Selection = field(default_factory=Selection)  # this file's select / extend-select / ignore
    overlay: Optional[Selection] = None  # the command line's, applied after this file's
    exclude: list = field(default_factory=list)
    force_exclude: Optional[bool] = None  # None: not set (the command line decides; default off)
    per_file_ignores: dict = field(default_factory=dict)
    render_timeout: Optional[float] = None
    jinja: Any = None  # pdlint.render.jinja.JinjaOptions ([tool.pdlint.jinja]); None: the defaults
    warnings: list = field(default_factory=list)
    _enabled: dict = field(default_factory=dict, repr=False)

    @property
    def select(self) -> Optional[list]:
        return self.selection.select

    @property
    def ignore(self) -> list:
        return self.selection.ignore

    def with_overlay(self, overlay: Optional[Selection]) -> "Config":
        """This config with the command line's rule selection applied after its own."""
        if not overlay:
            return self
        from dataclasses import replace
        return replace(self, overlay=overlay, _enabled={})

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
    return _from_table(data, path, src, toml=False, yroot=_yaml_root(src.text))


def has_pdlint_table(pyproject: str) -> bool:
    try:
        with open(pyproject, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    # a loose match on purpose: a malformed [tool.pdlint] table is a config error, not "no config"
    return re.search(r"^\s*\[\s*tool\s*\.\s*pdlint\b", text, re.M) is not None


def _yaml_root(text: str):
    """The composed root mapping of a YAML config (positions of its values), or None."""
    from pdlint.formats import yamltree as yt
    try:
        docs = yt.compose(text)
    except yt.YamlError:
        return None
    return yt.Ref(docs[0].root) if docs and docs[0].root is not None else None


def _from_table(table: dict, path: str, src: SourceFile, toml: bool, yroot=None) -> Config:
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
    cfg.vars = _positioned(table.get("vars", {}), src, toml, ("vars",), yroot)
    roles = table.get("roles", {})
    if not isinstance(roles, dict):
        raise ConfigError(f"{src.path}: roles must be a table")
    for role, body in roles.items():
        if not isinstance(body, dict):
            raise ConfigError(f"{src.path}: roles.{role} must be a table")
        cfg.role_vars[role] = _positioned(body.get("vars", {}), src, toml, ("roles", role, "vars"), yroot)
    rt = table.get("render-timeout")
    if rt is not None:
        if isinstance(rt, bool) or not isinstance(rt, (int, float)) or rt <= 0:
            raise ConfigError(f"{src.path}: render-timeout must be a positive number of seconds")
        cfg.render_timeout = float(rt)
    jt = table.get("jinja")
    if jt is not None:
        cfg.jinja = jinja_options(jt, src.path, cfg.warnings)
    ev = table.get("engine-version", table.get("sglang-version"))
    cfg.engine_version = str(ev) if ev is not None else None
    vv = table.get("vllm-version")
    cfg.vllm_version = str(vv) if vv is not None else None
    if cfg.engine_version is not None:
        from pdlint.engines.sglang.flags import UnknownRelease, check_release
        try:
            check_release(cfg.engine_version)
        except UnknownRelease as e:
            key = "engine-version" if "engine-version" in table else "sglang-version"
            raise ConfigError(f"{src.path}: {key}: {e}") from None
    lists = {}
    for key in ("select", "extend-select", "ignore", "extend-ignore"):
        v = table.get(key)
        if v is not None:
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{src.path}: {key} must be a list of rule codes or prefixes")
            lists[key] = [x.strip().upper() for x in v]
    cfg.selection = Selection(lists.get("select"), lists.get("extend-select", []),
                              lists.get("ignore", []) + lists.get("extend-ignore", []))
    ex = table.get("exclude", [])
    cfg.exclude = [ex] if isinstance(ex, str) else list(ex)
    fe = table.get("force-exclude")
    if fe is not None:
        if not isinstance(fe, bool):
            raise ConfigError(f"{src.path}: force-exclude must be true or false")
        cfg.force_exclude = fe
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{src.path}: per-file-ignores must map globs to rule lists")
    cfg.per_file_ignores = {k: ([v] if isinstance(v, str) else list(v)) for k, v in pfi.items()}
    unknown = unknown_selectors(cfg.selection.selectors() + [c for v in cfg.per_file_ignores.values() for c in v])
    for s in unknown:
        cfg.warnings.append(f"{src.path}: rule selector {s!r} matches no rule (see `pdlint rules`)")
    return cfg


def jinja_options(table: Any, where: str, warnings: list):
    """``[tool.pdlint.jinja]``: how templates are rendered (as the deploy tool does)."""
    from pdlint.render.jinja import EXTENSIONS, PRESETS, JinjaOptions
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: jinja must be a table")
    known = {"preset", "trim-blocks", "lstrip-blocks", "keep-trailing-newline", "extensions"}
    for key in table:
        if key not in known:
            warnings.append(f"{where}: unknown pdlint config key 'jinja.{key}'")
    preset = table.get("preset")
    if preset is not None and preset not in PRESETS:
        raise ConfigError(f"{where}: jinja.preset must be one of {', '.join(sorted(PRESETS))}")
    opts = JinjaOptions.for_preset(preset)
    for key, attr in (("trim-blocks", "trim_blocks"), ("lstrip-blocks", "lstrip_blocks"),
                      ("keep-trailing-newline", "keep_trailing_newline")):
        v = table.get(key)
        if v is not None:
            if not isinstance(v, bool):
                raise ConfigError(f"{where}: jinja.{key} must be true or false")
            setattr(opts, attr, v)
    exts = table.get("extensions", [])
    if isinstance(exts, str):
        exts = [exts]
    if not isinstance(exts, list) or not all(isinstance(e, str) for e in exts):
        raise ConfigError(f"{where}: jinja.extensions must be a list of extension names")
    for e in exts:
        name = EXTENSIONS.get(e)
        if name is None:
            # never imported: a repository's config must not make pdlint run code
            warnings.append(f"{where}: jinja extension {e!r} is not one pdlint can load (only Jinja's own: "
                            f"{', '.join(sorted(k for k in EXTENSIONS if '.' not in k))}); ignored, so templates "
                            f"using its tags or filters fail to render")
        elif name not in opts.extensions:
            opts.extensions = opts.extensions + (name,)
    return opts


def _positioned(table: Any, src: SourceFile, toml: bool, section: tuple, yroot=None) -> dict:
    if not isinstance(table, dict):
        raise ConfigError(f"{src.path}: {'.'.join(section)} must be a table")
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


def load_values_file(path: str, display: str, bools: Optional[dict] = None) -> tuple:
    """Top-level keys of a YAML values file as variables: strings and numbers
    positioned (:class:`~pdlint.render.jinja.OStr`, ``OInt``, ``OFloat``);
    booleans (which cannot carry a position) go to ``bools`` as
    ``{(key, subkey, ...): TStr}`` when given."""
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
    budget = [MAX_VALUES_NODES]
    try:
        return {k: _positioned_value(doc, v, budget, (k,), bools) for k, v in yt.map_items(root)}, src
    except yt.LimitError as e:
        line, col = src.position(e.index)
        raise ConfigError(f"{display}:{line}:{col}: {e.message}") from None
    except RecursionError:
        raise ConfigError(f"{display}: values file nested too deep") from None


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
    from pdlint.rules import all_rules
    rule = all_rules().get(code)
    return rule is None or rule.default
