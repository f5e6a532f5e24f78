"""How SGLang prefill/decode pair rules are written, and the SGLang adapter's
pair stage (``pair_candidates``, ``link_candidates``, ``facts``).

A pair rule is rule data (registered in :mod:`pdlint.rules` like every rule,
with ``check=None`` so the single-launch stage never runs it) plus a predicate
over the two resolved :class:`~pdlint.engines.sglang.resolve.Args`::

    @sgl_pair_rule("SGL801", "page-size-mismatch", upstream="Page size mismatch: prefill server has "
                   "page_size={p}, but decode server has page_size={d}. ...",
                   source="disaggregation/common/conn.py:1321", upstream_id="xr-page-size",
                   why="...", fix="...",
                   fire=[px("--page-size 32", "--page-size 64")], quiet=[px("--page-size 64", "--page-size 64")])
    def _(p, d):
        if p.explicit("page_size") and d.explicit("page_size") and p.get("page_size") != d.get("page_size"):
            return PairHit("decode", "page_size", other=("page_size",), fmt={...})

A predicate returns None, a :class:`PairHit` or a list of hits.  ``PairHit.edit``
names the launch a human edits (``prefill`` or ``decode``); ``blame`` the
dests/tokens there (the first one written on its command line is the
location; none written: the launch itself), ``other`` those of the other
launch (``related``).  The message is SGLang's text (``upstream``) where
SGLang raises one, else the rule's ``message``; ``{placeholders}`` come from
``fmt``.  ``fire``/``quiet`` examples are pairs of command lines (the roles'
``--disaggregation-mode`` and ``--model-path`` are added) run by
``tests/test_pair_rules.py``.

Pair rules are not gated by release: a mismatch breaks the pair in every
release (newer ones detect it at the first request and fail loudly, older ones
run on with a broken KV hand-off), so each applies to all releases and the
message carries the decode's release.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Optional

from pdlint.engines.sglang.argv import OPAQUE
from pdlint.engines.sglang.rulebase import doc_argv, format_message
from pdlint.model import ERROR, WARNING, Candidate, Launch, Related
from pdlint.records import dataclass, field
from pdlint.rules import Rule, register
from pdlint.text import TStr

DEFAULT_BOOTSTRAP_PORT = 8998


@dataclass
class PairHit:
    edit: str
    blame: tuple = ()
    other: tuple = ()
    fmt: dict = field(default_factory=dict)
    note: str = ""
    lead: bool = False

    def __init__(self, edit: str, *blame, other: tuple = (), fmt: Optional[dict] = None, note: str = "",
                 lead: bool = False):
        assert edit in ("prefill", "decode"), edit
        self.edit = edit
        self.blame = blame
        self.other = tuple(other)
        self.fmt = dict(fmt or {})
        self.note = note
        self.lead = lead


@dataclass(frozen=True)
class PairExample:
    prefill: str
    decode: str
    fires: bool
    env_prefill: tuple = ()
    env_decode: tuple = ()
    version: Optional[str] = None


def px(prefill: str, decode: str, env_prefill: Optional[dict] = None, env_decode: Optional[dict] = None,
       version: Optional[str] = None) -> tuple:
    return (prefill, decode, tuple(sorted((env_prefill or {}).items())), tuple(sorted((env_decode or {}).items())),
            version)


@dataclass
class PairRule:
    rule: Rule
    fn: Callable
    message: str
    examples: tuple


PAIR_RULES: dict = {}


def sgl_pair_rule(code: str, name: str, *, why: str, fix: str, fire: list, quiet: list, summary: str,
                  upstream: str = "", message: str = "", source: str = "", upstream_id: str = "",
                  severity: str = ERROR, env: tuple = (), notes: str = "", category: str = "pair"):
    """Register an SGLang prefill/decode pair rule (see the module docstring)."""
    def deco(fn):
        examples = tuple(_example(e, True) for e in fire) + tuple(_example(e, False) for e in quiet)
        if not any(e.fires for e in examples) or not any(not e.fires for e in examples):
            raise ValueError(f"{code}: a pair rule needs at least one firing and one quiet example")
        if not (upstream or message):
            raise ValueError(f"{code}: a pair rule needs an upstream message or its own message")
        f, q = next(e for e in examples if e.fires), next(e for e in examples if not e.fires)
        rule = register(Rule(
            code=code, name=name, severity=severity, summary=summary, why=why, fix=fix,
            doc_examples=lambda: (_shell(f), _shell(q)), engine="sglang", roles=("prefill", "decode"),
            upstream=upstream, upstream_id=upstream_id,
            source=("sglang/srt/" + source) if source and not source.startswith(("sglang/", "sgl-project/"))
            else source,
            category=category, check=None, examples=(), env=env, notes=notes))
        PAIR_RULES[code] = PairRule(rule, fn, message, examples)
        return fn
    return deco


def _example(e, fires: bool) -> PairExample:
    p, d, ep, ed, v = e
    return PairExample(p, d, fires, ep, ed, v)


def _shell(e: PairExample) -> str:
    def line(role, argv, env):
        pre = " ".join(f"{k}={v}" for k, v in env)
        return (pre + " " if pre else "") + (f"python -m sglang.launch_server "
                                             f"{doc_argv(f'--disaggregation-mode {role} {argv}')}").rstrip()
    return "# prefill\n" + line("prefill", e.prefill, e.env_prefill) + " &\n# decode\n" + \
        line("decode", e.decode, e.env_decode)


# ---------------------------------------------------------------------------
# The adapter's pair stage
# ---------------------------------------------------------------------------

def _info(launch: Launch):
    info = launch.parsed
    return info if info is not None and hasattr(info, "args") else None


def pair_candidates(prefill: Launch, decode: Launch, enabled: Callable[[str], bool]) -> list:
    """Candidates of every enabled SGLang pair rule for one prefill/decode pair."""
    pi, di = _info(prefill), _info(decode)
    if pi is None or di is None:
        return []
    import pdlint.engines.sglang.rules  # noqa: F401  (registers the pair rules)
    out = []
    for code, pr in PAIR_RULES.items():
        if not enabled(code):
            continue
        try:
            result = pr.fn(pi.args, di.args)
        except Exception as e:  # a rule bug must not hide the other findings
            raise RuntimeError(f"pair rule {code} failed on {prefill.path}:{prefill.line} / "
                               f"{decode.path}:{decode.line}: {e!r}") from e
        if not result:
            continue
        for hit in (result if isinstance(result, list) else [result]):
            out.append(_candidate(pr, hit, prefill, decode, pi, di))
    return out


def _tok(args, b) -> Optional[TStr]:
    tok = b if isinstance(b, TStr) else args.token(b)
    return tok if tok is not None and tok.text else None


def _opt(args, b) -> str:
    if isinstance(b, TStr):
        return b.text
    if b.startswith("env:"):
        return b[4:]
    return args.option(b)


def show_value(args, dest: str) -> str:
    v = args.get(dest)
    if v is OPAQUE:
        return "<unknown>"
    if v is None:
        return "unset"
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


def _candidate(pr: PairRule, hit: PairHit, prefill: Launch, decode: Launch, pi, di) -> Candidate:
    rule = pr.rule
    edit, other = (prefill, decode) if hit.edit == "prefill" else (decode, prefill)
    ea, oa = (pi.args, di.args) if hit.edit == "prefill" else (di.args, pi.args)
    text = format_message(pr.message or rule.upstream, None, hit.fmt)
    if hit.note and hit.lead:
        message = f"{hit.note}. SGLang reports: \"{text}\"" if not pr.message else f"{hit.note}: {text}"
    elif hit.note:
        message = f"{text} ({hit.note})"
    else:
        message = text
    token = None
    for b in hit.blame:
        token = _env_tok(ea, b) if isinstance(b, str) and b.startswith("env:") else _tok(ea, b)
        if token is not None:
            break
    related = []
    orole = other.role_word()
    for b in hit.other:
        tok = _env_tok(oa, b) if isinstance(b, str) and b.startswith("env:") else _tok(oa, b)
        if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
            o = tok.origin
            value = tok.text if isinstance(b, TStr) or (isinstance(b, str) and b.startswith("env:")) else \
                show_value(oa, b)
            related.append(Related(o.path, o.line, o.column, f"the {orole} launch sets {_opt(oa, b)} {value} here"))
            break
    if not related:
        what = ""
        if hit.other and isinstance(hit.other[0], str) and not hit.other[0].startswith("env:"):
            what = f": {_opt(oa, hit.other[0])} is {show_value(oa, hit.other[0])}" + (
                "" if oa.explicit(hit.other[0]) else " (not on its command line)")
        related.append(Related(other.path, other.line, 1, f"the {orole} launch ({other.entrypoint}){what}"))
    return Candidate(rule.code, edit, token, message, True, di.version, related, rule.fix)


def _env_tok(args, b: str) -> Optional[TStr]:
    v = args.env.get(b[4:])
    return v if isinstance(v, TStr) and v.text else None


# ---------------------------------------------------------------------------
# Router links: the bootstrap port a router hands to the decode
# ---------------------------------------------------------------------------

def link_candidates(link, dep, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.sglang.rules.pair import ROUTER_BOOTSTRAP
    rule = ROUTER_BOOTSTRAP
    if not enabled(rule.code) or link.role != "prefill" or link.how != "url" or link.token is None \
            or any(p.opaque for p in link.token.pieces):
        return []  # (a URL pdlint stands in for - what a loop it did not count adds - may come with its port)
    if not any(t.text == "--pd-disaggregation" for t in link.router.argv) and "mini_lb" not in \
            link.router.entrypoint and "launch_lb" not in link.router.entrypoint:
        return []
    out = []
    given = link.bootstrap if link.bootstrap is not None and link.bootstrap.text.isdigit() and \
        not link.bootstrap.opaque else None
    decodes = [s for s in dep.servers if s.role == "decode" and s.engine == "sglang" and _info(s) is not None]
    for s in link.servers:
        info = _info(s)
        if s.engine != "sglang" or info is None or s.role != "prefill":
            continue
        a = info.args
        pport = a.get("disaggregation_bootstrap_port")
        if not isinstance(pport, int) or isinstance(pport, bool):
            continue
        ptok = a.token("disaggregation_bootstrap_port")
        prel = (Related(ptok.origin.path, ptok.origin.line, ptok.origin.column,
                        f"the prefill launch's bootstrap server listens on {pport} here")
                if ptok is not None and ptok.pieces and not ptok.origin.path.startswith("<")
                else Related(s.path, s.line, 1, f"the prefill launch ({s.entrypoint}) leaves "
                                                f"--disaggregation-bootstrap-port at {pport}"))
        if given is not None:
            if int(given.text) != pport:
                out.append(Candidate(rule.code, link.router, given,
                                     f"the router tells decode servers to fetch KV from bootstrap port {given.text} "
                                     f"for {link.token.text}, but that prefill's bootstrap server listens on "
                                     f"{pport}", True, info.version, [prel], rule.fix))
            continue
        for d in decodes:
            dport = _info(d).args.get("disaggregation_bootstrap_port")
            if not isinstance(dport, int) or isinstance(dport, bool) or dport == pport:
                continue
            dtok = _info(d).args.token("disaggregation_bootstrap_port")
            rel = [prel, Related(*(dtok.origin.key if dtok is not None and dtok.pieces and
                                   not dtok.origin.path.startswith("<") else (d.path, d.line, 1)),
                                 f"the decode launch uses its own --disaggregation-bootstrap-port {dport}")]
            out.append(Candidate(
                rule.code, link.router, link.token,
                f"the router passes no bootstrap port with {link.token.text}, so the decode server uses its own "
                f"--disaggregation-bootstrap-port ({dport}), but that prefill's bootstrap server listens on "
                f"{pport}", True, info.version, rel, rule.fix))
    return out


# ---------------------------------------------------------------------------
# Facts for the engine-independent rules
# ---------------------------------------------------------------------------

def facts(launch: Launch):
    from pdlint.pairing import Facts, Port
    info = _info(launch)
    if info is None:
        return None
    a = info.args
    dynamo = launch.entrypoint.startswith("python -m dynamo.")

    def known_int(dest):
        v = a.get(dest)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    f = Facts()
    ports = []
    port = known_int("port")
    if not dynamo and port is not None and a.known("port"):
        f.http_port, f.http_token = port, a.token("port")
        ports.append(Port(port, "--port", a.token("port")))
    if a.starts_bootstrap_server:
        bp = known_int("disaggregation_bootstrap_port")
        if bp is not None:
            ports.append(Port(bp, "--disaggregation-bootstrap-port", a.token("disaggregation_bootstrap_port")))
    dia = a.get("dist_init_addr")
    if isinstance(dia, str) and a.explicit("dist_init_addr"):
        m = re.search(r":(\d+)$", dia)
        tok = a.token("dist_init_addr")
        if m and tok is not None and not tok.opaque:
            ports.append(Port(int(m.group(1)), "--dist-init-addr port block", tok, 7))
    nccl = known_int("nccl_port")
    if nccl is not None and a.explicit("nccl_port"):
        ports.append(Port(nccl, "--nccl-port", a.token("nccl_port")))
    dsp = launch.env.get("DYN_SYSTEM_PORT")
    if dynamo and isinstance(dsp, TStr) and dsp.text.isdigit() and not dsp.opaque:
        ports.append(Port(int(dsp.text), "DYN_SYSTEM_PORT", dsp))
    f.ports = ports
    # GPUs
    device = a.get("device")
    f.uses_gpus = device in (None, "cuda") and not a.parsed.incomplete
    tp, pp, dp = known_int("tp_size"), known_int("pp_size"), known_int("dp_size")
    nnodes = known_int("nnodes")
    rank = known_int("node_rank")
    f.node_rank = rank if a.explicit("node_rank") else None
    f.rank_written = a.explicit("node_rank")
    f.multi_node = (nnodes is None or nnodes > 1) or (a.explicit("node_rank") and rank != 0) or \
        (a.explicit("node_rank") and not a.known("node_rank"))
    if tp is not None and pp is not None and dp is not None and nnodes:
        f.gpus_needed = max(1, tp * pp * dp // nnodes)
        parts = [f"{_spelled(a, 'tp_size')} {tp}"]
        if pp != 1 or a.explicit("pp_size"):
            parts.append(f"{_spelled(a, 'pp_size')} {pp}")
        if dp != 1:
            parts.append(f"{_spelled(a, 'dp_size')} {dp}")
        f.gpus_note = " x ".join(parts) + (f" / {nnodes} nodes" if nnodes > 1 else "")
        for dest in ("tp_size", "pp_size", "dp_size"):
            if a.explicit(dest):
                f.gpus_token = a.token(dest)
                break
    base, step = known_int("base_gpu_id"), known_int("gpu_id_step")
    if base is None or step is None:
        f.uses_gpus = False
    else:
        f.base_gpu, f.gpu_step, f.base_gpu_token = base, step, a.token("base_gpu_id")
    mf = a.get("mem_fraction_static")
    if a.explicit("mem_fraction_static"):
        f.mem_explicit, f.mem_token = True, a.token("mem_fraction_static")
        if isinstance(mf, (int, float)) and not isinstance(mf, bool):
            f.mem_fraction = float(mf)
    elif a.explicit("max_total_tokens"):
        # a KV pool capped in tokens is a memory budget of its own (ai-dynamo/dynamo's disagg_same_gpu.sh): its
        # share of the GPU is not the fraction's
        f.mem_explicit, f.mem_token = True, a.token("max_total_tokens")
    f.model = a.token("model_path")
    return f


def _spelled(a, dest: str) -> str:
    occ = a.parsed.occurrence(dest)
    return occ.written if occ is not None else a.option(dest)


# ---------------------------------------------------------------------------
# Tests and examples: judge a pair of bare command lines
# ---------------------------------------------------------------------------

@dataclass
class PairJudgement:
    codes: list
    errors: list
    messages: list
    candidates: list


def pair_judge(prefill_argv: str, decode_argv: str, env_prefill: Optional[dict] = None,
               env_decode: Optional[dict] = None, version: Optional[str] = None,
               add_mode: bool = True) -> PairJudgement:
    """Judge ``python -m sglang.launch_server`` PREFILL_ARGV / DECODE_ARGV as one
    pair (``--disaggregation-mode`` and ``--model-path`` added when absent)."""
    from pdlint.engines.sglang.engine import EngineContext, interpret
    from pdlint.rules import all_rules
    launches = []
    for role, argv, env in (("prefill", prefill_argv, env_prefill), ("decode", decode_argv, env_decode)):
        words = shlex.split(argv)
        if add_mode and "--disaggregation-mode" not in words:
            words = ["--disaggregation-mode", role] + words
        if not any(w in ("--model-path", "--model") or w.startswith(("--model-path=", "--model=")) for w in words):
            words = ["--model-path", "MODEL"] + words
        label = f"<{role}>"
        tokens = [TStr.synthetic(w, label) for w in words]
        env_t = {k: TStr.synthetic(str(v), label) for k, v in (env or {}).items()}
        launch = Launch(path=label, line=1, engine="sglang", entrypoint="python -m sglang.launch_server",
                        kind="server", command=[TStr.synthetic("python", label)], argv=tokens, env=env_t)
        interpret(launch, EngineContext(resolve_config=lambda tok, l: None, version=version))
        launches.append(launch)
    rules = all_rules()
    cands = pair_candidates(launches[0], launches[1], lambda code: True)
    return PairJudgement([c.code for c in cands], [c.code for c in cands if rules[c.code].severity == ERROR],
                         [c.message for c in cands], cands)


__all__ = ["PairHit", "PairExample", "px", "sgl_pair_rule", "pair_candidates", "link_candidates", "facts",
           "pair_judge", "PAIR_RULES", "ERROR", "WARNING"]
