"""How vLLM rules are written (VLLM001-VLLM099).

A rule is rule data registered in :mod:`pdlint.rules` (``engine='vllm'``,
``check=None``) plus a predicate of one of three kinds:

* ``launch``: ``fn(launch, info)`` for every interpreted vLLM server launch;
* ``pair``: ``fn(prefill, decode, pinfo, dinfo)`` for every prefill/decode pair
  of one deployment (:mod:`pdlint.pairing`);
* ``unit``: ``fn(deployment)`` once per deployment.

A predicate returns None, a :class:`VHit` or a list of hits; ``VHit.launch`` is
the launch to edit (pair rules: ``edit='prefill'``/``'decode'``), ``token`` the
text there (None: the launch itself), ``related`` the other places.
"""

from __future__ import annotations

from typing import Callable, Optional

from pdlint.model import ERROR, WARNING, Candidate, Launch, Related
from pdlint.records import dataclass, field
from pdlint.rules import Rule, register
from pdlint.text import TStr


@dataclass
class VHit:
    message: str
    token: Optional[TStr] = None
    related: list = field(default_factory=list)
    edit: str = ""  # pair rules: prefill | decode
    launch: Optional[Launch] = None  # unit rules (and launch rules, implicitly)
    fix: str = ""  # this finding's help, when it names what only the finding knows (else the rule's)


@dataclass
class VRule:
    rule: Rule
    fn: Callable
    kind: str


V_RULES: dict = {}


def vllm_rule(code: str, name: str, *, kind: str, summary: str, why: str, fix: str, example: str = "",
              example_fixed: str = "", severity: str = ERROR, upstream: str = "", source: str = "",
              upstream_id: str = "", notes: str = "", env: tuple = (), engine: str = "vllm", roles: tuple = (),
              category: str = "vllm"):
    assert kind in ("launch", "pair", "unit")

    def deco(fn):
        rule = register(Rule(code=code, name=name, severity=severity, summary=summary, why=why, fix=fix,
                             example=example, example_fixed=example_fixed, engine=engine,
                             roles=roles or (("prefill", "decode") if kind != "launch" else ()),
                             upstream=upstream, upstream_id=upstream_id, source=source, category=category,
                             check=None, env=env, notes=notes))
        V_RULES[code] = VRule(rule, fn, kind)
        return fn
    return deco


def same_model(a: str, b: str) -> bool:
    """Do two model names or paths name one model (the same last path component, in any case: different mount
    points of one checkpoint)?  VLLM013 and TRT015."""
    a, b = a.rstrip("/"), b.rstrip("/")
    return a == b or a.rsplit("/", 1)[-1].lower() == b.rsplit("/", 1)[-1].lower()


def related_at(tok: Optional[TStr], launch: Launch, note: str) -> Related:
    if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
        o = tok.origin
        return Related(o.path, o.line, o.column, note)
    return Related(launch.path, launch.line, 1, note)


def _cand(vr: VRule, launch: Launch, hit: VHit) -> Candidate:
    tok = hit.token if hit.token is not None and hit.token.pieces and hit.token.text else None
    return Candidate(vr.rule.code, launch, tok, hit.message, True, None, list(hit.related),
                     hit.fix or vr.rule.fix)


def _hits(result) -> list:
    if not result:
        return []
    return result if isinstance(result, list) else [result]


def _rules(kind: str, engine: str) -> list:
    import importlib
    importlib.import_module(f"pdlint.engines.{engine}.rules")
    return [vr for vr in V_RULES.values() if vr.kind == kind and vr.rule.engine == engine]


def launch_candidates(launch: Launch, enabled, engine: str = "vllm") -> list:
    out = []
    for vr in _rules("launch", engine):
        if not enabled(vr.rule.code):
            continue
        for hit in _hits(vr.fn(launch, launch.parsed)):
            out.append(_cand(vr, hit.launch or launch, hit))
    return out


def pair_hits(prefill: Launch, decode: Launch, enabled, engine: str = "vllm") -> list:
    out = []
    for vr in _rules("pair", engine):
        if not enabled(vr.rule.code):
            continue
        for hit in _hits(vr.fn(prefill, decode, prefill.parsed, decode.parsed)):
            target = hit.launch or (prefill if hit.edit == "prefill" else decode)
            out.append(_cand(vr, target, hit))
    return out


def unit_hits(dep, enabled, engine: str = "vllm") -> list:
    out = []
    for vr in _rules("unit", engine):
        if not enabled(vr.rule.code):
            continue
        for hit in _hits(vr.fn(dep)):
            if hit.launch is not None:
                out.append(_cand(vr, hit.launch, hit))
    return out


__all__ = ["VHit", "vllm_rule", "related_at", "launch_candidates", "pair_hits", "unit_hits", "ERROR", "WARNING"]
