"""How SGLang rules are written: data plus a small predicate over :class:`Args`.

::

    @sgl_rule("SGL101", "linear-replayssm-spec-on-prefill", roles=("prefill",),
              upstream="--enable-linear-replayssm-spec is not supported on a PD prefill server: ...",
              source="arg_groups/attention_hook.py:494", upstream_id="pd-linear-replayssm-spec-not-prefill",
              why="...", fix="...",
              fire=["--disaggregation-mode prefill --enable-linear-replayssm-spec"],
              quiet=["--disaggregation-mode decode --enable-linear-replayssm-spec"])
    def _(a):
        if a.role == "prefill" and a.is_true("enable_linear_replayssm_spec"):
            return Hit("enable_linear_replayssm_spec")

A predicate returns None, a :class:`Hit`, or a list of hits.  ``Hit.blame``
names what a human edits (dests or tokens; the first that is written on the
command line is the finding's location).  The message is the upstream text
with ``{placeholders}`` filled from ``Hit.fmt`` or the resolved flags, plus an
optional pdlint ``note`` where SGLang's own message misleads.  ``fire`` and
``quiet`` examples are command lines (``--model-path`` is added when absent)
that the tests and the SGLang conformance suite run.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from pdlint import lazyre
from pdlint.engines.sglang.argv import OPAQUE
from pdlint.model import ERROR, SAFE, UNSAFE, WARNING, AutoFix
from pdlint.records import dataclass, field
from pdlint.rules import Rule, register


@dataclass
class Hit:
    blame: tuple = ()
    fmt: dict = field(default_factory=dict)
    note: str = ""
    lead: bool = False  # the note explains what really happened: put it before SGLang's message

    def __init__(self, *blame, fmt: Optional[dict] = None, note: str = "", lead: bool = False):
        self.blame = blame
        self.fmt = dict(fmt or {})
        self.note = note
        self.lead = lead


@dataclass(frozen=True)
class Example:
    argv: str
    fires: bool
    env: tuple = ()  # (("NAME", "value"), ...)
    note: str = ""
    version: str = ""  # the SGLang release it is judged against ("": the reference release, 0.5.23)


def ex(argv: str, env: Optional[dict] = None, note: str = "", version: str = "") -> tuple:
    """An example with an environment, a note, or a release other than the reference (a check that applies
    to some releases only fires in an example of one of them)."""
    return (argv, tuple(sorted((env or {}).items())), note, version)


# code -> what pdlint cannot see that decides the rejection the warning reports (``sgl_rule(unseen=)``)
UNSEEN: dict = {}

_PLACEHOLDER = lazyre.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(![rs])?\}")


def format_message(template: str, args: Any, fmt: dict) -> str:
    def sub(m):
        name, conv = m.group(1), m.group(2)
        if name in fmt:
            v = fmt[name]
        else:
            v = args.get(name) if args is not None else None
        return repr(v) if conv == "!r" else str(v)
    return _PLACEHOLDER.sub(sub, template)


def sgl_rule(code: str, name: str, *, upstream: str, why: str, fix: str, fire: list, quiet: list,
             roles: tuple = (), severity: str = ERROR, source: str = "", upstream_id: str = "",
             category: str = "pd", summary: str = "", env: tuple = (), notes: str = "",
             versions: tuple = (), default: bool = True, autofix: Optional[AutoFix] = None, since: str = "",
             until: str = "", valueset: str = "", doc_fix: int = 0, unseen: str = ""):
    """Register an SGLang rule whose predicate is the decorated function.  ``since`` / ``until``: the first /
    last release that has the check, for checks whose message cannot date them (a bare ``assert``, a crash, a
    module the message corpus does not cover); ``valueset`` names the set of ``data/sglang-values.jsonl`` whose
    check the rule reports (generated from each release's source): the rule applies to the releases that have
    it. The release range is otherwise derived from each release's source (:mod:`pdlint.engines.sglang.versions`).
    The docs show the first firing example and the quiet example ``doc_fix`` (an index into ``quiet``; the
    examples keep their order, which names them in the recorded conformance verdicts): the quiet example that
    fixes the shown launch the way ``fix`` says, not one that only changes its role.  ``unseen`` (warnings
    only) says what pdlint cannot see that decides a rejection SGLang makes (the GPU that picks the default
    attention backend, an environment variable set elsewhere): the rule warns about a launch SGLang refuses
    unless that saves it, so its firing examples are refused by the oracle (emulated H200, no environment
    beyond the example's) - :data:`UNSEEN`, read by the conformance suite."""
    if unseen and severity != WARNING:
        raise ValueError(f"{code}: only a warning depends on what pdlint cannot see")

    def deco(fn):
        if unseen:
            UNSEEN[code] = unseen
        if valueset:
            from pdlint.engines.sglang.versions import VALUE_SETS
            VALUE_SETS[code] = valueset
        examples = tuple(_example(e, True) for e in fire) + tuple(_example(e, False) for e in quiet)
        if not any(e.fires for e in examples) or not any(not e.fires for e in examples):
            raise ValueError(f"{code}: a rule needs at least one firing and one quiet example")
        first_fire = next(e for e in examples if e.fires)
        first_quiet = [e for e in examples if not e.fires][doc_fix]
        register(Rule(
            code=code, name=name, severity=severity,
            summary=summary or _default_summary(upstream, roles, severity),
            why=why, fix=fix,
            doc_examples=lambda: (_shell(first_fire), _shell(first_quiet)),
            engine="sglang", roles=roles, versions=versions, since=since, until=until, upstream=upstream, upstream_id=upstream_id,
            source=("sglang/srt/" + source) if source and not source.startswith("sglang/") else source,
            category=category, check=fn, examples=examples, env=env, notes=notes, default=default,
            autofix=autofix))
        return fn
    return deco


def _example(e, fires: bool) -> Example:
    if isinstance(e, tuple):
        argv, env, note = e[:3]
        return Example(argv, fires, env, note, e[3] if len(e) > 3 else "")
    return Example(e, fires)


# The examples name the SGLang oracle's tiny config-only models (``@TINY@``: dense, ``@TINY_MOE@``: MoE,
# ``@TINY_HYBRID@``: Qwen3-Next hybrid) so that the conformance suite can run them; the rule docs show a
# real model of the same kind instead (field test rw22/b P6: `pdlint rule` printed the placeholders, and
# two --model-path).  ``@TINY@`` as a speculative draft (the target is MODEL) is DRAFT, as the served model
# the dense Llama it is.
DOC_MODELS = {"@TINY_MOE@": "Qwen/Qwen3-30B-A3B", "@TINY_HYBRID@": "Qwen/Qwen3-Next-80B-A3B-Instruct",
              "@TINY@": "DRAFT"}
DOC_DENSE_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
_DOC_MODEL_RE = lazyre.compile("|".join(re.escape(k) for k in sorted(DOC_MODELS, key=len, reverse=True)))
_HAS_MODEL = lazyre.compile(r"(^|\s)--model(-path)?[\s=]")
_MODEL_TINY = lazyre.compile(r"(--model(?:-path)?[\s=])@TINY@")


def doc_argv(argv: str) -> str:
    """An example's command line as the docs show it: a real model for an oracle placeholder, and
    ``--model-path MODEL`` first only when the example names no model."""
    argv = _MODEL_TINY.sub(lambda m: m.group(1) + DOC_DENSE_MODEL, argv)
    argv = _DOC_MODEL_RE.sub(lambda m: DOC_MODELS[m.group(0)], argv)
    return argv if _HAS_MODEL.search(argv) else "--model-path MODEL " + argv


def _shell(e: Example) -> str:
    env = " ".join(f"{k}={v}" for k, v in e.env)
    release = f"# SGLang {e.version}\n" if e.version else ""
    return release + (env + " " if env else "") + "python -m sglang.launch_server " + doc_argv(e.argv)


def _default_summary(upstream: str, roles: tuple, severity: str = ERROR) -> str:
    where = f" on {'/'.join(roles)} servers" if roles else ""
    # (a warning rule reports what SGLang logs and starts anyway: field test rw19/b read SGL154's "rejects" for
    # the "falling back to auto discovery" warning)
    verb = "rejects" if severity == ERROR else "starts with a warning"
    return f"Reports the launch SGLang {verb}{where}: {upstream.split(': ')[0] if len(upstream) > 160 else upstream}"


# the rule rejects the flag on some roles only, whatever else the launch carries: at a shared origin the fix
# is to move it (with its values) to the roles that accept it
MOVE = AutoFix("move", SAFE)
# moving fixes the finding, but the role that fails could also keep the flag another way (the rule's fix names it)
MOVE_UNSAFE = AutoFix("move", UNSAFE)

__all__ = ["Hit", "Example", "ex", "sgl_rule", "format_message", "ERROR", "WARNING", "MOVE", "MOVE_UNSAFE", "UNSEEN"]


# -- helpers the rule modules share -------------------------------------------------------------------

# serving_hook.handle_deprecated_args renames these attention backends before any check reads them
BACKEND_ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}


def at_least(a, release: str) -> bool:
    """The launch is judged against ``release`` or a newer one (no release: the newest), for a check whose
    condition changed while its message stayed."""
    from pdlint.engines.sglang.flags import version_key
    return a.version is None or version_key(a.version) >= version_key(release)


def given(a, dest):
    """The value written on the command line (None when absent or unknown)."""
    if not a.explicit(dest):
        return None
    v = a.get(dest)
    return None if v is OPAQUE else v


def attention_backend(a, dest):
    """An explicit attention backend after SGLang's deprecated-alias renames; None when unset or unknown.
    A renamed ``tokenspeed_mla`` on the prefill side becomes ``trtllm_mla`` (cutedsl_mla is decode-only);
    a literal ``cutedsl_mla`` stays."""
    v = given(a, dest)
    if v is None or v == "":
        return None
    if dest == "prefill_attention_backend" and v == "tokenspeed_mla":
        return "trtllm_mla"
    return BACKEND_ALIASES.get(v, v)


def attention_backends(a) -> tuple:
    """(prefill, decode) attention backends as fixed by the command line; None for a side the
    command line leaves to SGLang's platform/model default."""
    base = attention_backend(a, "attention_backend")
    return (attention_backend(a, "prefill_attention_backend") or base,
            attention_backend(a, "decode_attention_backend") or base)
