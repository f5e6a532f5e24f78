"""The rule registry: every diagnostic pdlint can emit has an entry here.

A rule is data (code, kebab name, severity, documentation, upstream message
and source) plus, for engine rules, a small predicate registered next to it.
``pdlint rule CODE`` prints one entry, ``pdlint rules`` lists them all and
``docs/rules.md`` is generated from the same data.

Code prefixes: ``PD`` pdlint's own diagnostics (unreadable or unparsable input,
templates, structure), ``SGL`` SGLang (``SGL0xx`` the command line and
``--config`` files, ``SGL1xx`` role-dependent checks, ``SGL2xx``-``SGL7xx``
role-independent checks by area, ``SGL8xx`` prefill/decode pair checks).
"""

from __future__ import annotations

import functools
import importlib
from typing import Callable, Optional

from pdlint.model import ERROR, SAFE, WARNING, AutoFix
from pdlint.records import dataclass

def submodules(path: str) -> list:
    """``(name, is_package)`` of the modules in the directory ``path``, sorted (``pkgutil.iter_modules`` for
    a directory of ``.py`` files, without the import of :mod:`inspect` it costs every run)."""
    import os
    out = {}
    try:
        entries = list(os.scandir(path))
    except OSError:
        return []
    for e in entries:
        name = e.name
        if name.endswith(".py") and name != "__init__.py" and name[:-3].isidentifier():
            out.setdefault(name[:-3], False)
        elif name.isidentifier() and e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py")):
            out[name] = True
    return sorted(out.items())


def import_submodules(package_name: str, path: list) -> None:
    """Import every module of a package (a rules package's ``__init__``: importing registers its rules)."""
    import importlib
    for name, _ in submodules(path[0]):
        importlib.import_module(f"{package_name}.{name}")


@functools.lru_cache(maxsize=1)
def _rule_modules() -> list:
    """``pdlint/*_rules.py`` plus every engine's ``rules`` module or package."""
    import os
    import pdlint
    import pdlint.engines
    base = os.path.dirname(pdlint.__file__)
    mods = [f"pdlint.{name}" for name, _ in submodules(base) if name.endswith("_rules")]
    engines = os.path.dirname(pdlint.engines.__file__)
    for eng, is_pkg in submodules(engines):
        if is_pkg and any(name == "rules" for name, _ in submodules(os.path.join(engines, eng))):
            mods.append(f"pdlint.engines.{eng}.rules")
    return mods


@dataclass
class Rule:
    code: str
    name: str
    severity: str
    summary: str  # "What it does", one sentence
    why: str  # "Why is this bad"
    fix: str  # the fix, one or two sentences
    example: str = ""  # a launch that triggers it (an engine rule's is made by doc_examples: read doc_commands())
    example_fixed: str = ""  # the same launch, fixed
    engine: str = "pdlint"
    roles: tuple = ()  # roles it can fire on; () = not role-specific
    versions: tuple = ()  # engine versions it applies to; () = all
    since: str = ""  # SGLang rules: the first release whose source has the check (only where its message cannot tell)
    until: str = ""  # ... and the last
    upstream: str = ""  # the engine's exact message
    upstream_id: str = ""  # id in research/sglang-rules.md
    source: str = ""  # upstream file:line
    category: str = ""
    check: Optional[Callable] = None
    examples: tuple = ()  # engine rules: Example(...) cases that fire / stay quiet
    env: tuple = ()  # environment variables the rule reads
    notes: str = ""
    default: bool = True  # on unless deselected; False: informational, on only when selected
    autofix: Optional[AutoFix] = None  # what `pdlint --fix` can do for its findings (pdlint.fix)
    # () -> (example, example_fixed), made when the docs are: an engine rule's command lines from its first firing
    # and its fixing quiet example (451 SGLang rules wrote theirs at import, 27M instructions of every run's)
    doc_examples: Optional[Callable] = None

    def version_list(self) -> tuple:
        """Engine releases this rule applies to (from the releases' source); () = all."""
        if self.engine == "sglang" and self.check is not None:
            from pdlint.engines.sglang.versions import versions_of
            return versions_of(self)
        return tuple(self.versions)

    def version_text(self) -> str:
        """The releases this rule applies to, as ranges (``0.4.8.post1–0.5.9, 0.5.15–0.5.23``); "" = all."""
        versions = self.version_list()
        if self.engine == "sglang" and self.check is not None:
            from pdlint.engines.sglang.versions import describe
            return describe(versions)
        return ", ".join(versions)

    def doc_commands(self) -> tuple:
        """``(example, example_fixed)``: the written ones, or an engine rule's made from its examples now
        (:attr:`doc_examples`; its ``example`` fields stay empty)."""
        if self.doc_examples is not None:
            return self.doc_examples()
        return self.example, self.example_fixed

    def docs(self) -> str:
        """Markdown documentation in the What / Why / Example / Fix form."""
        lines = [f"# {self.code} {self.name}", ""]
        meta = [f"Severity: {self.severity}"]
        if self.engine != "pdlint":
            meta.append(f"Engine: {self.engine}")
        if self.roles:
            meta.append(f"Roles: {', '.join(self.roles)}")
        versions = self.version_text()
        if versions:
            meta.append(f"SGLang versions: {versions}")
        lines += [" · ".join(meta), "", "## What it does", "", self.summary, "", "## Why is this bad?", "", self.why]
        if self.upstream:
            lines += ["", "Upstream message:", "", "> " + self.upstream.replace("\n", "\n> ")]
        if self.source:
            lines += ["", f"Source: `{self.source}`" + (f" (`{self.upstream_id}`)" if self.upstream_id else "")]
        example, example_fixed = self.doc_commands()
        if example:
            lines += ["", "## Example", "", "```", example, "```"]
        lines += ["", "## Fix", "", self.fix]
        if self.autofix is not None:
            lines += ["", self.autofix_note()]
        if example_fixed:
            lines += ["", "```", example_fixed, "```"]
        if self.env:
            lines += ["", "Environment variables read: " + ", ".join(f"`{e}`" for e in self.env)]
        if not self.default:
            lines += ["", "Not enabled by default. Turn it on in addition to the default rules with "
                      f"`extend-select = [\"{self.code}\"]` under `[tool.pdlint]` (or `--extend-select "
                      f"{self.code}` on the command line); `select` would replace the default set and turn "
                      "every other rule off."]
        if self.notes:
            lines += ["", self.notes]
        return "\n".join(lines) + "\n"


    def autofix_note(self) -> str:
        """One line for the docs: when ``pdlint --fix`` fixes this rule's findings."""
        a = self.autofix
        how = {"replace": "replaces the flag with the one the message names (when exactly one is named)",
               "move": "moves the flag with its values out of a part shared by both roles into the part of "
                       "each role that accepts it (when that part can be found; a flag written for one role only "
                       "is left to you)"}[a.kind]
        opt = "`--fix`" if a.applicability == SAFE else "`--fix --unsafe-fixes` (an unsafe fix: review it)"
        return f"Fix is sometimes available: {opt} {how}."


_REGISTRY: dict = {}
_LOADED = False


def register(rule: Rule) -> Rule:
    if rule.code in _REGISTRY:
        raise ValueError(f"duplicate rule code {rule.code}")
    if rule.severity not in (ERROR, WARNING):
        raise ValueError(f"{rule.code}: bad severity {rule.severity!r}")
    _REGISTRY[rule.code] = rule
    return rule


def all_rules() -> dict:
    """Every rule (every rule module imported, in :func:`_rule_modules` order)."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for mod in _rule_modules():
            importlib.import_module(mod)
    return _REGISTRY


_ENGINES_LOADED: set = set()


def engine_rules(engine: str) -> dict:
    """The registry with pdlint's own rules and ``engine``'s imported (a scan imports the rules of
    the engines its launches use only; :func:`all_rules` imports the others, in the same order as
    when it imports all at once: pdlint's own modules, then each engine's)."""
    if not _LOADED and engine not in _ENGINES_LOADED:
        _ENGINES_LOADED.add(engine)
        own = f"pdlint.engines.{engine}.rules"
        for mod in _rule_modules():
            if not mod.startswith("pdlint.engines.") or mod == own:
                importlib.import_module(mod)
    return _REGISTRY


#: categories of rules that judge no launch: whether the launch text was read and understood, inline suppressions
NOT_LAUNCH_CATEGORIES = frozenset(("coverage", "input", "suppression"))


def launch_rule_codes() -> list:
    """The codes of the loaded rules (pdlint's own and those of the engines this run's launches use) that judge
    launches: every category but coverage, input and suppression."""
    return [code for code, r in _REGISTRY.items() if r.category not in NOT_LAUNCH_CATEGORIES]


def rule(code: str) -> Rule:
    """The rule with this code (KeyError for none): the loaded registry first, else every rule."""
    r = _REGISTRY.get(code)
    return r if r is not None else all_rules()[code]


def get(code_or_name: str) -> Optional[Rule]:
    rules = all_rules()
    key = code_or_name.strip()
    if key.upper() in rules:
        return rules[key.upper()]
    for r in rules.values():
        if r.name == key:
            return r
    return None


def by_category() -> dict:
    out: dict = {}
    for r in sorted(all_rules().values(), key=lambda r: code_key(r.code)):
        out.setdefault(r.category or "general", []).append(r)
    return out


def code_key(code: str) -> tuple:
    head = code.rstrip("0123456789")
    return (head, int(code[len(head):] or 0))


def rules_markdown() -> str:
    """``docs/rules.md``: the whole catalogue, generated (a test keeps it fresh)."""
    rules = sorted(all_rules().values(), key=lambda r: code_key(r.code))
    out = ["# pdlint rules", "",
           "Generated from the rule registry by `python -m pdlint rules --format markdown`; do not edit.", "",
           f"{len(rules)} rules ({sum(1 for r in rules if not r.default)} off by default: turn one on with "
           "`extend-select`).", "",
           "| Code | Name | Severity | Default | Roles | Versions |", "|---|---|---|---|---|---|"]
    for r in rules:
        out.append(f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.severity} | "
                   f"{'on' if r.default else 'off'} | "
                   f"{', '.join(r.roles) or 'any'} | {r.version_text() or 'all'} |")
    out.append("")
    for r in rules:
        out.append(r.docs().replace("# ", "## ", 1).replace("\n## ", "\n### "))
    from pdlint.engines.sglang import unchecked
    out.append(unchecked.markdown(rules))
    return "\n".join(out)
