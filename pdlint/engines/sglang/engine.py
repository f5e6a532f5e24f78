"""The SGLang engine adapter: interpret extracted launches, then judge them.

``interpret`` (extract stage) picks the flag table for the launch's SGLang
version, applies ``sglang serve``'s own argv handling, merges ``--config``
files and parses the argv; the launch's role is then its resolved
``--disaggregation-mode``.  ``candidates`` (check stage) turns parse errors
and rule hits into located candidate findings.
"""

from __future__ import annotations

import functools
import re
import shlex
from typing import Callable, Optional

from pdlint import engines, lazyre
from pdlint.engines.sglang import argv as argv_mod
from pdlint.engines.sglang import config_merge, fixes, flags, prefilter
from pdlint.engines.sglang.resolve import Args
from pdlint.engines.sglang.rulebase import Hit, format_message
from pdlint.engines.sglang.versions import rule_applies
from pdlint.launchers import ROUTER_SERVERS
from pdlint.model import SAFE, UNSAFE, Candidate, Launch, Related
from pdlint.records import dataclass
from pdlint.rules import engine_rules
from pdlint.text import TStr

#: (AMD's ROCm builds of SGLang are ``rocm/sgl-dev:v0.5.10.post1-rocm720-mi35x-...``: field test rw6/g)
#: an SGLang image whose tag names its release (``lmsysorg/sglang:v0.5.9``, ``lmsysorg/sglang-rocm:v0.5.9``): the
#: repository's last path component starts with ``sglang`` (``modelexpress-sglang:0.1.0`` is another project's)
_IMAGE_VERSION = lazyre.compile(r"(?:^|[/=\s\"'])(?:sglang|sgl-dev)[^:/\s]*:v?(\d+\.\d+\.\d+(?:\.post\d+)?)")
#: another project's image built on an SGLang release it names in its tag (lightseekorg/smg's
#: ``lightseekorg/smg:1.3.3-sglang-v0.5.9``)
_TAG_SGLANG_VERSION = lazyre.compile(r":(?:[\w.]*[-_])?sglang[-_]?v?(\d+\.\d+\.\d+(?:\.post\d+)?)(?![\w.])")
#: AMD's development builds named for the release they follow, not built from it (``rocm/sgl-dev:sglang-0.5.8-rocm700-
#: mi35x-mori-0210`` runs `--disaggregation-transfer-backend mori`, which came in 0.5.9: field test rw23/a,
#: sabreshao/sglang_disagg's committed server log): no release pinned (``rocm/sgl-dev:v0.5.10.post1-...`` tags name one)
_DEV_BUILD = lazyre.compile(r"(?:^|[/=\s\"'])sgl-dev:sglang[-_]")
#: an SGLang image tagged ``latest`` (``lmsysorg/sglang:latest``, ``:latest-cu130``): the newest release, whatever a launch's
#: flags suit, so a flag it no longer has is the error a pull of that image starts with
_IMAGE_LATEST = lazyre.compile(r"(?:^|[/=\s\"'])sglang[^:/\s]*:latest(?:-[\w.-]*)?(?![\w.])")
DYNAMO_ENTRYPOINTS = ("python -m dynamo.sglang", "python -m dynamo.sglang.worker",
                      "python -m dynamo.sglang.decode_worker")


@dataclass
class EngineContext:
    resolve_config: Callable  # (path_tok: TStr, launch: Launch) -> Optional[SourceFile]
    version: Optional[str] = None  # from config / --sglang-version
    vllm_version: Optional[str] = None  # from config (vllm-version): read by the vLLM adapter


@dataclass
class SglangInfo:
    parsed: argv_mod.Parsed
    args: Args
    version: str
    version_note: Optional[str]
    merge: config_merge.Merge
    virtual: bool = False
    wrapper: Optional[object] = None  # dynamo.Wrapped for python -m dynamo.sglang launches
    # (releases, token, newest, choice, also, ambiguous): no release pinned, flags the newest lacks; ambiguous:
    # (token, argparse's message) of the options the newest refuses as ambiguous abbreviations
    inferred: Optional[tuple] = None
    dynamo_inferred: Optional[tuple] = None  # the same for the Dynamo release of a dynamo.sglang launch
    disagg_unresolved: Optional[TStr] = None  # Dynamo's --disagg-config path, when pdlint could not read it
    pinned: bool = False  # a release was named (configuration, image tag, pip pin), not the newest table assumed


def version_hint(launch: Launch) -> Optional[str]:
    """An SGLang version named by the launch's image tag (``lmsysorg/sglang:v0.5.9``, or another image's tag
    naming the SGLang it is built on: ``lightseekorg/smg:1.3.3-sglang-v0.5.9``); a Dynamo runtime image
    (``ai-dynamo/sglang-runtime:0.4.1``) names Dynamo's version; else an exact pip pin beside the script."""
    texts = [launch.meta.get("image", "")] + [t.text for t in launch.command]
    for t in texts:
        if "dynamo" in (t or "").lower():
            continue
        m = _IMAGE_VERSION.search(t or "") or (_TAG_SGLANG_VERSION.search(t or "") if not _DEV_BUILD.search(t or "")
                                                else None)
        if m:
            return m.group(1)
        if _IMAGE_LATEST.search(t or ""):
            return flags.LATEST
    return (launch.meta.get("pins") or {}).get("sglang")  # (`sglang==0.4.8` beside the script: pdlint.formats.pins)


def interpret(launch: Launch, ctx: EngineContext) -> None:
    """Version: configured > image tag > (Dynamo launches) the SGLang release the
    Dynamo release installs > the newest table.  With no release pinned, a launch
    whose flags the newest release does not have is judged against the newest
    release that has them all (and told to pin it: SGL012); the same holds for the
    Dynamo release of a ``python -m dynamo.sglang`` launch (:func:`infer_dynamo`)."""
    requested = ctx.version or version_hint(launch)
    dynamo_launch = launch.entrypoint in DYNAMO_ENTRYPOINTS
    if requested is None and dynamo_launch:
        from pdlint.engines.sglang import dynamo
        requested = dynamo.sglang_pin(launch.meta.get("image", ""), launch.entrypoint)
    version, note = flags.pick(requested)
    info = _interpret_as(launch, ctx, version, note)
    if dynamo_launch and launch.entrypoint == "python -m dynamo.sglang":
        from pdlint.engines.sglang import dynamo
        if dynamo.image_version(launch.meta.get("image", "")) is None:
            info = infer_dynamo(launch, ctx, info, ctx.version or version_hint(launch)) or info
    if requested is None and not dynamo_launch:
        inferred = infer_releases(info.parsed)
        if inferred is not None:
            consistent, token, choice, also = inferred
            # the newest release's own words for an option it refuses as an abbreviation of several of its
            # flags (field test rw23/b: --cuda-graph-bs, "could match --cuda-graph-bs-decode, ...-prefill")
            refused = tuple((e.token, e.message) for e in info.parsed.errors if e.kind == "ambiguous")
            judged = max(consistent, key=flags.version_key)
            info = _interpret_as(launch, ctx, judged, None)
            info.inferred = (consistent, token, version, choice, also, refused)
    if ctx.version or version_hint(launch):
        info.pinned = True
    elif dynamo_launch:
        from pdlint.engines.sglang import dynamo
        info.pinned = dynamo.image_version(launch.meta.get("image", "")) is not None
    launch.parsed = info
    launch.incomplete = launch.incomplete or info.parsed.incomplete
    mode = info.parsed.value("disaggregation_mode")
    if mode in ("prefill", "decode", "null"):
        launch.role = mode
    elif launch.structural_role in ("prefill", "decode"):
        launch.role = launch.structural_role
    else:
        launch.role = None


def _interpret_as(launch: Launch, ctx: EngineContext, version: str, note: Optional[str],
                  dynamo_version: Optional[str] = None) -> "SglangInfo":
    table = flags.load(version)
    tokens = list(launch.argv)
    if launch.entrypoint == "sglang serve":
        tokens = _serve_argv(tokens)
    elif launch.entrypoint in ROUTER_SERVERS:
        # sglang_router.launch_server: its router's words (`--router-*`, `--worker-urls`) are PD111's
        from pdlint.engines.sglang.router_flags import split_server_argv
        tokens = split_server_argv(tokens)[0]
    wrapped = None
    if launch.entrypoint in DYNAMO_ENTRYPOINTS:
        from pdlint.engines.sglang import dynamo
        wrapped = dynamo.wrap(tokens, table, launch.meta.get("image", ""), launch.entrypoint, dynamo_version)
        tokens, table = wrapped.sglang_tokens, wrapped.table
    virtual = bool(launch.meta.get("virtual_config"))  # a standalone config file, not a real command line
    resolve = lambda tok: ctx.resolve_config(tok, launch)  # noqa: E731
    section = None
    if wrapped is not None and wrapped.disagg is None:
        wrapped.disagg = _disagg_from_env(launch)
    if wrapped is not None and wrapped.disagg is not None:  # Dynamo's --disagg-config section -> --config
        from pdlint.engines.sglang import dynamo
        section = dynamo.disagg_section(tokens, wrapped.disagg, resolve)
        tokens = section.tokens
        if section.file is not None:
            resolve = lambda tok, _r=resolve: section.file if tok is section.path_tok else _r(tok)  # noqa: E731
    merged = config_merge.merge(tokens, table, resolve, record_hop=not virtual)
    if section is not None:
        merged.errors = list(section.errors) + list(merged.errors)
        merged.unresolved = merged.unresolved or section.unresolved
    parsed = argv_mod.parse(table, merged.tokens, merged.config_count)
    parsed.errors = list(merged.errors) + parsed.errors  # the --config merge's own (SGL02x, PD008)
    parsed.config_path = merged.config.path if merged.config else None
    parsed.incomplete = parsed.incomplete or merged.unresolved or bool(wrapped and wrapped.incomplete)
    if merged.errors:
        # SGLang's merger runs before argparse: its errors come first, and a merge that
        # stopped SGLang leaves the file's flags unread (no "missing --model-path" from the
        # parse, no "given twice" for the two --config SGLang refused)
        fatal = merged.failed
        parsed.errors = list(merged.errors) + [
            e for e in parsed.errors
            if not (fatal and (e.kind == "required" or e.option == "--config" or e.token.text == "--config"))]
        if fatal:
            parsed.merge_failed = True
            if section is not None:  # what the worker would run is unknown: no pair check on it
                parsed.incomplete = True
    if launch.entrypoint == "sglang serve":
        asked = next((t for t in launch.argv if t.text in argv_mod.HELP), None)
        if asked is not None:
            # `sglang serve` prints the help when any word of its command line is -h or --help, a flag's value or
            # a word after `--` alike, before argparse reads anything (sglang/cli/serve.py: `if any(arg in
            # request.argv for arg in ("-h", "--help"))`): that is all that happens (hostile-input round rw30/h P11)
            parsed.errors = [argv_mod.ArgError(
                "help", asked, f"{asked.text}: `sglang serve` prints SGLang's help when a word of its command line "
                               f"is -h or --help and exits with status 0, so no server starts", "--help")]
            parsed.help = asked
    args = Args(parsed, launch.env, version)
    if wrapped is not None:
        parsed.errors = list(wrapped.errors) + parsed.errors
        if wrapped.bootstrap_port_overwritten:
            args._set("disaggregation_bootstrap_port", argv_mod.OPAQUE,
                      "Dynamo replaces the bootstrap port with a free port unless it is given")
    info = SglangInfo(parsed, args, version, note, merged, virtual, wrapped)
    if section is not None and section.unresolved:
        info.disagg_unresolved = wrapped.disagg[0]
    return info


def _disagg_from_env(launch: Launch) -> Optional[tuple]:
    """``DYN_SGL_DISAGG_CONFIG`` / ``DYN_SGL_DISAGG_CONFIG_KEY``: the defaults of Dynamo's two flags."""
    path, key = launch.env.get("DYN_SGL_DISAGG_CONFIG"), launch.env.get("DYN_SGL_DISAGG_CONFIG_KEY")
    if isinstance(path, TStr) and isinstance(key, TStr) and path.text and key.text:
        return path, key
    return None


def _written_options(parsed: argv_mod.Parsed) -> list:
    """(name as written, token) of every option token of the parse, in order."""
    out = []
    for occ in parsed.occurrences:
        out.append((occ.index, occ.written, occ.name_tok))
    for err in parsed.errors:
        if err.kind in ("unknown", "ambiguous") and err.option and err.option.startswith("-"):
            out.append((err.indexes[0] if err.indexes else len(parsed.tokens), err.option, err.token))
    return [(name, tok) for _, name, tok in sorted(out, key=lambda o: o[0])]


def infer_releases(parsed: argv_mod.Parsed) -> Optional[tuple]:
    """For a launch judged against the newest table with flags that table lacks, or a value that is none of
    a flag's choices there (``--reasoning-parser nano_v3``: 0.5.7-0.5.9, renamed ``nemotron_3`` since): the
    releases whose parser accepts every option written (exactly or as a unique prefix) and each such value,
    the first token the newest rejects, (option, value) when that token is a refused choice, and the other
    option tokens the newest rejects (each one a user updating the flags must change too); None when no
    release accepts them all."""
    newest = parsed.table.version
    bad = [tok for name, tok in _written_options(parsed) if not flags.release_accepts(newest, name)]
    choices = [(e.option, e.token) for e in parsed.errors
               if e.kind == "invalid-choice" and e.option and e.token.text and not e.token.opaque]
    if not bad and not choices:
        return None
    consistent = set(flags.available_versions())
    for name, _ in _written_options(parsed):
        consistent &= flags.releases_accepting(name)
        if not consistent:
            return None
    for option, tok in choices:
        consistent &= _releases_with_choice(option, tok.text)
        if not consistent:
            return None
    if bad:
        return frozenset(consistent), bad[0], None, tuple(bad[1:])
    option, tok = choices[0]
    return frozenset(consistent), tok, (option, tok.text), ()


@functools.lru_cache(maxsize=256)
def _releases_with_choice(option: str, text: str) -> frozenset:
    """The releases whose flag ``option`` lists the value ``text`` among its choices.  A release whose flag
    lists none is not one: it takes any word at parse time and tells nothing of the value (0.4.5's
    ``--disaggregation-transfer-backend`` took the typo ``moonkake``)."""
    out = set()
    for v in flags.available_versions():
        f = flags.load(v).lookup(option)
        if f is None or f.action == "deprecated" or f.choices is None:
            continue
        try:
            value = argv_mod.convert(f, text)
        except Exception:
            continue
        if value in f.choices:
            out.add(v)
    return frozenset(out)


def _rejected(parsed: argv_mod.Parsed) -> list:
    """(name, token) of every option the parsers refuse as unknown or ambiguous."""
    return [(e.option or e.token.text, e.token) for e in parsed.errors if e.kind in ("unknown", "ambiguous")]


def infer_dynamo(launch: Launch, ctx: EngineContext, info: "SglangInfo",
                 sglang: Optional[str]) -> Optional["SglangInfo"]:
    """A ``python -m dynamo.sglang`` launch whose Dynamo release no image tag names is judged against the
    newest Dynamo release.  When that release refuses a flag that only other releases' ``dynamo.sglang``
    parsers define (``--multimodal-worker``: 0.6-1.3, removed since), the launch as the newest release that
    accepts every flag written (with the SGLang release it installs, unless one is pinned), with
    ``dynamo_inferred`` = (those releases, the first such token, the newest) for SGL012; else None."""
    from pdlint.engines.sglang import dynamo
    newest = info.wrapper.version
    known = dynamo.wrapper_options()
    rejected = _rejected(info.parsed)
    # a Dynamo option first; else an SGLang flag the SGLang release the newest Dynamo installs no longer has
    # (``--cuda-graph-max-bs``, removed in SGLang 0.5.20: Dynamo 1.4.2 and older install releases that have it)
    # (a flag other SGLang releases define by that name: not a prefix one release happens to read as unique)
    pin = dynamo.pin_of(newest)
    first = next((tok for name, tok in rejected if name in known), None) or \
        (next((tok for name, tok in rejected if not_in_release(name, pin)), None) if sglang is None and pin else None)
    if first is None:
        return None
    fits: dict = {}
    for v in dynamo.versions():
        if v == newest:
            continue
        version, note = flags.pick(sglang or dynamo.pin_of(v))
        other = _interpret_as(launch, ctx, version, note, v)
        # (a flag the release still registers as a DeprecatedAction stops its server as surely: not a fit, as for
        # SGLang's own releases; field test rw21/a: --enable-deepep-moe "valid together only for Dynamo
        # 0.4.1-0.6.1", judged against 0.6.1, whose SGLang 0.5.3.post2 withdraws it, SGL009 on the same token)
        if not _rejected(other.parsed) and not any(e.kind == "deprecated-action" for e in other.parsed.errors):
            fits[v] = other
    if not fits:
        return None
    judged = fits[max(fits, key=flags.version_key)]
    judged.dynamo_inferred = (frozenset(fits), first, newest)
    return judged


def _serve_argv(tokens: list) -> list:
    """``sglang serve``: a leading positional is the model path; ``--model-type`` is its own."""
    out = list(tokens)
    i = 0
    while i < len(out):
        t = out[i].text
        if t == "--model-type":
            del out[i:i + 2]
            continue
        if t.startswith("--model-type="):
            del out[i]
            continue
        i += 1
    if out and not out[0].text.startswith("-"):
        model = out[0]
        out = [TStr.at("--model-path", model.pieces[0].src if model.pieces else None,
                       model.pieces[0].offset if model.pieces else 0, label="<sglang serve>"), model] + out[1:]
    return out


# ---------------------------------------------------------------------------
# Judging
# ---------------------------------------------------------------------------

_RULES_FOR: dict = {}  # (version, role) -> rules
KNOWN_SETS = "sglang rule sets"  # pdlint.engines.KNOWN: rule_sets() of an earlier run with the same code and data


def _set_key(version: str, role: Optional[str]) -> str:
    return f"{version}\t{role!r}"


def _rules_for(version: str, role: Optional[str]) -> tuple:
    """The SGLang rules that can fire on a ``role`` server of ``version``."""
    got = _RULES_FOR.get((version, role))
    if got is None:
        rules = engine_rules("sglang")
        codes = engines.KNOWN.get(KNOWN_SETS, {}).get(_set_key(version, role))
        if codes is not None and all(c in rules for c in codes):
            got = tuple(rules[c] for c in codes)
        else:
            got = tuple(r for r in _applicable(version) if not r.roles or role in r.roles)
        _RULES_FOR[(version, role)] = got
    return got


@functools.lru_cache(maxsize=None)
def _applicable(version: str) -> tuple:
    """The SGLang rules that apply to ``version``, any role (decided once a release: it reads the
    release's message corpus, :func:`rule_applies`)."""
    return tuple(r for r in engine_rules("sglang").values()
                 if r.check is not None and r.engine == "sglang" and rule_applies(r, version))


def rule_sets() -> dict:
    """The rule sets this process has decided, for a later run (``pdlint.engines.KNOWN``): which rules
    apply to a release is a function of pdlint's code and release tables only (deciding it reads each
    release's message corpus: tens of milliseconds a run)."""
    return {_set_key(v, r): [x.code for x in rules] for (v, r), rules in _RULES_FOR.items()}


@functools.lru_cache(maxsize=None)
def _codes_for(version: str, role: Optional[str]) -> tuple:
    return tuple(r.code for r in _rules_for(version, role))


def candidates(launch: Launch, enabled: Callable[[str], bool]) -> list:
    info: SglangInfo = launch.parsed
    if info is None:
        return []
    out: list = []
    out += _parse_candidates(launch, info, enabled)
    args = info.args
    rules = _rules_for(info.version, args.role)
    # only the rules whose inputs differ from the minimal launch of this role (prefilter.py)
    picked = prefilter.selected(args, info.version, args.role, _codes_for(info.version, args.role))
    for rule in (rules if picked is None else (rules[i] for i in picked)):
        if not enabled(rule.code):
            continue
        try:
            result = rule.check(args)
        except Exception as e:  # a rule bug must not hide the other findings
            raise RuntimeError(f"rule {rule.code} failed on {launch.path}:{launch.line}: {e!r}") from e
        if not result:
            continue
        for hit in (result if isinstance(result, list) else [result]):
            out.append(_hit_candidate(rule, hit, launch, args, info))
    return out


def _hit_candidate(rule, hit: Hit, launch: Launch, args: Args, info: SglangInfo) -> Candidate:
    upstream = format_message(rule.upstream, args, hit.fmt)
    if not upstream.strip():  # a bare assert or a crash: SGLang prints no message
        message = hit.note or rule.summary
    elif hit.note and hit.lead:
        message = f"{hit.note}. SGLang reports: \"{upstream}\""
    elif hit.note:
        message = f"{upstream} ({hit.note})"
    else:
        message = upstream
    token = None
    for b in hit.blame:
        tok = b if isinstance(b, TStr) else args.token(b)
        if tok is not None and tok.text:
            token = tok
            break
    if token is None:
        token = args.token("disaggregation_mode") if rule.roles else None
    related = []
    for b in hit.blame[1:]:
        tok = b if isinstance(b, TStr) else args.token(b)
        if tok is not None and tok is not token and tok.text:
            o = tok.origin
            related.append(Related(o.path, o.line, o.column, f"{_opt(args, b)} is set here"))
    return Candidate(rule.code, launch, token, message, bool(rule.roles), info.version, related, rule.fix)


def _opt(args: Args, b) -> str:
    return b.text if isinstance(b, TStr) else args.option(b)


#: findings of one kind of command-line error a launch gets one by one (the rest are one more finding)
MAX_PER_KIND = 32
#: command-line errors of one kind a launch gets judged one by one (suppressed ones and those of rules the file does
#: not show included, past the MAX_PER_KIND open ones); the rest are counted in one finding
MAX_JUDGED = 8 * MAX_PER_KIND


def _parse_candidates(launch: Launch, info: SglangInfo, enabled) -> list:
    """The command-line errors' candidates: of each kind of error, :data:`MAX_PER_KIND` open ones (reported
    where no inline suppression covers them and their file shows the rule: :func:`pdlint.check.place_state`) one
    by one, and one more finding counting the rest (hostile-input round rw30/h P10: an unbounded list of words
    made as many findings).  A suppressed error, or one of a rule the file does not show, takes none of the
    MAX_PER_KIND places and is never counted in the counting finding (rw31/h P1: with 33 suppressed vendor flags
    the counting finding sat on the 33rd's ignored line and the directive hid the misspelt flag after it); the
    ones past the limit a directive covers are suppressed here."""
    from pdlint.check import place_state, take_suppressed
    from pdlint.engines.sglang.rules.cmdline import KIND_TO_RULE
    parsed, out = info.parsed, []
    total: dict = {}  # kind -> its errors
    for err in parsed.errors:
        total[err.kind] = total.get(err.kind, 0) + 1
    opened: dict = {}  # kind -> its errors reported one by one, open
    judged: dict = {}  # kind -> its errors judged one by one
    over: dict = {}  # kind -> the errors past those
    for err in parsed.errors:
        kind = err.kind
        if total[kind] > MAX_PER_KIND + 1 and (opened.get(kind, 0) >= MAX_PER_KIND or
                                                judged.get(kind, 0) >= MAX_JUDGED):
            over.setdefault(kind, []).append(err)
            continue
        judged[kind] = judged.get(kind, 0) + 1
        c = _error_candidate(err, launch, info, parsed, enabled, KIND_TO_RULE)
        if c is None:
            continue
        out.append(c)
        if total[kind] > MAX_PER_KIND + 1 and place_state(c.code, launch, c.token) == "open":
            opened[kind] = opened.get(kind, 0) + 1
    for kind, errs in sorted(over.items()):
        # (every kind of error is reported one finding per word at most MAX_PER_KIND times a launch, the rest
        # in one: hostile-input round rw30/h P10 - an unbounded list of words made as many findings)
        if len(errs) == 1:  # (a counting finding stands for two or more)
            c = _error_candidate(errs[0], launch, info, parsed, enabled, KIND_TO_RULE)
            out += [c] if c is not None else []
            continue
        rule = KIND_TO_RULE.get(kind)
        if rule is None or not enabled(rule.code):
            continue
        rest = []
        for e in errs:  # the counting finding stands for the open ones, and is placed at one (rw31/h P1)
            tok = e.token if e.token.text else None
            state = place_state(rule.code, launch, tok)
            if state == "open":
                rest.append(e)
            elif state == "covered":
                take_suppressed(rule.code, launch, tok, e.token.text)
        if len(rest) == 1:  # (the one open error past those judged: one by one)
            c = _error_candidate(rest[0], launch, info, parsed, enabled, KIND_TO_RULE)
            out += [c] if c is not None else []
        if len(rest) < 2:
            continue
        token = next((e.token for e in rest if e.token.text), None)
        shown = argv_mod._shown([e.token.text for e in rest])
        out.append(Candidate(rule.code, launch, token, f"and {len(rest)} more such errors in this launch, not "
                             f"reported one by one: {shown}", False, info.version, [], rule.fix, None))
    out += _repeats(launch, info, enabled)
    out += _deprecations(launch, info, enabled)
    out = _at_refused_keys(out, parsed)
    if info.inferred is not None:
        from pdlint.engines.sglang.rules.cmdline import UNPINNED
        from pdlint.engines.sglang.versions import describe
        releases, token, newest, choice, also, ambiguous = info.inferred

        def why_not(tok, name: str) -> str:
            # with argparse's message when the newest release reads the option as an ambiguous abbreviation: an
            # error there, whatever the option was in the releases that had it
            msg = next((m for t, m in ambiguous if t is tok), None)
            gone = not_in_release(name, newest)
            if msg is None:
                return gone or f"{name} is not a flag of SGLang {newest}"
            if gone is None:  # an abbreviation that was unique in older releases (a YAML key `page`)
                return f"SGLang {newest} refuses {name} as an ambiguous abbreviation (\"{msg}\")"
            return f"{gone} (SGLang {newest} stops at it: \"{msg}\")"

        if enabled(UNPINNED.code):
            name = token.text.partition("=")[0]
            if choice is not None:
                moved = f"{choice[0]} {choice[1]} is none of its choices in SGLang {newest}"
            else:
                moved = why_not(token, name)
            # every other flag the newest release refuses: updating only the first would still fail there
            # (field test rw16/k, liyuanzhe1991/sgl_pd_bench: --cuda-graph-bs and --prefill-round-robin-balance)
            others, related = [], []
            for tok in also:
                other = tok.text.partition("=")[0]
                others.append(why_not(tok, other))
                o = tok.origin
                related.append(Related(o.path, o.line, o.column, f"{other}: not a flag of SGLang {newest} either"))
            more = "".join(f"; and {o}" for o in others)
            lead = f"{choice[0]} {choice[1]}" if choice is not None else name
            why = launch.meta.get("unpinned_why")
            message = (f"{lead}: this launch's flags are valid together only for SGLang {describe(releases)}: no "
                       f"release is pinned{f' ({why})' if why else ''} and {moved}{more}; pin the release (image tag "
                       f"or `engine-version`); judged against {info.version}")
            # the flags' deprecation in the release judged (SGL008) is what this says already, with their removal
            # (by place, not identity: `--cuda-graph-max-bs=512`'s SGL008 names the option part of the word; field
            # test rw22/b, benenzhu/sglang_P run_server.sh had both warnings on one token)
            said = {t.origin_key() for t in (token, *also) if t is not None and t.pieces}
            out = [c for c in out if not (c.code == "SGL008" and c.token is not None and c.token.pieces
                                          and c.token.origin_key() in said)]
            out.append(Candidate(UNPINNED.code, launch, token, message, False, info.version, related, UNPINNED.fix))
    if info.dynamo_inferred is not None:
        unpinned = _dynamo_unpinned(launch, info, enabled)
        if unpinned:  # (as above: the deprecation in the release judged is said with the removal)
            out = [c for c in out if not (c.code == "SGL008" and c.token is info.dynamo_inferred[1])] + unpinned
    return out


def _error_candidate(err, launch: Launch, info: SglangInfo, parsed, enabled, KIND_TO_RULE) -> Optional[Candidate]:
    """One command-line error's candidate (None: not reported - a required option of a launch not read whole, a
    rule not enabled)."""
    kind = err.kind
    message = err.message
    token = err.token if err.token.text else None
    if kind == "required":
        if info.virtual or launch.incomplete:
            return None
        token = launch.command[-1] if launch.command else None
    autofix = None
    if kind == "unknown":
        kind, message = _explain_unknown(err, parsed, info, launch)
        autofix = _unknown_fix(kind, err, parsed, info)
    elif kind == "ambiguous":
        moved = not_in_release(err.option or "", info.version)
        if moved:  # a removed or renamed flag, not an abbreviation the user meant
            kind, message = "not-in-version", f"{moved}; SGLang {info.version} stops with \"{err.message}\""
        autofix = _renamed_fix(err, info)
    if kind == "deprecated-action":
        kind = "not-in-version"
        repl = (occ_flag_deprecated(parsed, err.option).get("replacement") or "")
        message = (f"{err.option} is withdrawn in SGLang {info.version}: the option is still registered, but "
                   f"giving it stops the server with ValueError: \"{_fill(err.message, err)}\"" +
                   (f"; use {repl}" if repl else ""))
    if kind == "value-for-flag":
        message = (f"{err.extra.get('flag')} takes no value; the stray {err.token.text!r} makes SGLang stop "
                   f"with \"unrecognized arguments: {err.token.text}\"")
    help_fix = None
    if kind == "explicit-ignored" and err.option == "--help" and argv_mod._help_cluster(err.token.text):
        # `-host`: a single-dash typo of --host (rw31/h P4: the did-you-mean vLLM's path gives, and no "remove
        # it" for a word the user meant as an option)
        from pdlint.suggest import hint as close_hint
        word = err.token.text
        near = close_hint(word, parsed.table.options)
        message = (f"{message} (SGLang reads {word}, no flag of it, as its help option -h with {word[2:]!r} "
                   f"attached, and stops{near})")
        help_fix = ("Write the option with its two dashes (a single-dash word that starts with -h is argparse's "
                    "help option -h with the rest attached, and -h/--help takes no value).")
    elif kind == "explicit-ignored" and err.option == "--help":
        message = (f"{message} (-h/--help takes no value, and written bare it prints the help and exits 0 with "
                   f"no server: remove it)")
        help_fix = "Remove it: -h/--help takes no value, and written bare it prints the help and starts no server."
    elif kind == "explicit-ignored":
        message = f"{message} ({err.option} is a switch: write it bare to enable it)"
    if kind == "invalid-choice" and err.option == "--disaggregation-mode" and \
            err.token.text.split("=", 1)[-1].strip("'\"") in ("encode", "language") \
            and parsed.table.lookup("--encoder-only") is not None:
        # an EPD fork's mode (coco-alen/sglang_assistance, field test rw16/k): prefill/decode would quietly turn
        # the encoder and the language model into a PD pair (arg_groups/fields/disagg.py: encoder_only)
        message += ("; SGLang runs an encoder / language-model split (EPD) with `--encoder-only` and "
                    "`--language-only`, not a --disaggregation-mode value")
    if kind == "missing-value" and err.extra.get("after"):
        after = err.extra["after"]
        message = (f"{message} (the next word, {after}, starts with '-', so argparse reads it as an option; if it "
                   f"is the value, write {err.token.text}={after})")
    rule = KIND_TO_RULE.get(kind)
    if rule is None or not enabled(rule.code):
        return None
    hint = help_fix or rule.fix
    if kind == "unknown" and "did you mean" not in message:  # (the rule's fix points at a suggestion)
        hint = ("No SGLang flag is spelled like it: remove it (flags of other engines, vLLM's "
                "`--kv-transfer-config`, Dynamo's wrapper flags, do not belong on an SGLang server), or, when the "
                "image runs a release or fork that defines it, name that release (`--sglang-version`).")
    return Candidate(rule.code, launch, token, message, False, info.version, [], hint,
                     autofix if token is not None else None)


def _at_refused_keys(out: list, parsed: argv_mod.Parsed) -> list:
    """Without the command-line findings on the line of a ``--config`` key SGLang's merger refuses (SGL021)
    but SGL021 itself: the key is read as the command line would take it (config_merge._unsupported), and
    what that flag is there (deprecated, given twice) is a second finding on the one line SGL021 already
    tells the user to move."""
    refused = {_line_of(e.token) for e in parsed.errors if e.kind == "config-unsupported"}
    if not refused:
        return out
    from pdlint.engines.sglang.rules.cmdline import CFG_UNSUPPORTED
    return [c for c in out if c.code == CFG_UNSUPPORTED.code or c.token is None or _line_of(c.token) not in refused]


def _line_of(tok: TStr) -> tuple:
    o = tok.origin
    return o.path, o.line


def _dynamo_unpinned(launch: Launch, info: SglangInfo, enabled) -> list:
    from pdlint.engines.sglang import dynamo
    from pdlint.engines.sglang.rules.cmdline import UNPINNED
    if not enabled(UNPINNED.code):
        return []
    releases, token, newest = info.dynamo_inferred
    name = token.text.partition("=")[0]
    if name in dynamo.wrapper_options():
        moved = dynamo.not_in_release(name, newest) or f"{name} is not a flag of Dynamo {newest}"
    else:  # an SGLang flag: the SGLang release the newest Dynamo installs does not have it
        pin = dynamo.pin_of(newest)
        moved = (f"SGLang {pin}, which Dynamo {newest} installs, does not have it: "
                 f"{not_in_release(name, pin) or f'{name} is not a flag of SGLang {pin}'}")
    # the flag first (field test rw19/b: it came after ~200 characters of releases)
    message = (f"{name}: this launch's flags are valid together only for Dynamo {dynamo.describe(releases)}: no "
               f"Dynamo release is pinned and "
               f"{moved}; pin the release (an image tag such as nvcr.io/nvidia/ai-dynamo/sglang-runtime:"
               f"{info.wrapper.version}); judged against Dynamo {info.wrapper.version} (SGLang {info.version})")
    return [Candidate(UNPINNED.code, launch, token, message, False, info.version, [], UNPINNED.fix)]


def _explain_unknown(err, parsed, info: SglangInfo, launch: Launch) -> tuple:
    name = err.option or err.token.text
    table = parsed.table
    from_config = any(_from_config(err.token, t) for t in parsed.tokens[:info.merge.config_count])
    dashed = name.replace("_", "-")
    if from_config and "_" in name and (table.lookup(dashed) or table.prefix_matches(dashed)):
        key = name[2:]
        return "config-underscore", (f"config key '{key}' is written with underscores: SGLang passes it verbatim as "
                                     f"{name}, which argparse rejects (unrecognized arguments); write "
                                     f"'{dashed[2:]}'")
    if info.wrapper is not None:
        from pdlint.engines.sglang import dynamo
        moved = dynamo.not_in_release(name, info.wrapper.version)
        if moved:
            return "not-in-version", (f"{moved}; the dynamo.sglang worker of Dynamo {info.wrapper.version} stops "
                                      f"with \"unrecognized arguments: {name}\"")
    moved = not_in_release(name, info.version)
    if moved:
        return "not-in-version", f"{moved}; SGLang {info.version} stops with \"unrecognized arguments: {name}\""
    hint = ""
    if "_" in name and (table.lookup(dashed) or len(table.prefix_matches(dashed)) == 1):
        hint = f"; did you mean {table.lookup(dashed).primary if table.lookup(dashed) else dashed}?"
    else:
        from pdlint.suggest import hint as close_hint
        hint = close_hint(name, table.options)
    if not hint and name.startswith("--"):
        hint = _elsewhere(name, info)
    return "unknown", f"{err.message} (not an SGLang {info.version} flag{hint})"


def _elsewhere(name: str, info: SglangInfo) -> str:
    """Where a flag that no SGLang release pdlint knows defines, and nothing known resembles, comes from: a vLLM
    release's flag, else (no release pinned) perhaps a build newer than pdlint's tables (Dynamo's
    ``--decode-migration-class`` from its main branch)."""
    from pdlint.engines.vllm import flags as vllm_flags
    vllm = vllm_flags.releases_with(name)
    if vllm:
        return f"; {name} is a flag of vLLM {vllm_flags.release_span(vllm)}"
    if info.pinned:
        return ""
    if info.wrapper is not None:
        from pdlint.engines.sglang import dynamo
        newest = f"Dynamo {dynamo.versions()[0]} and SGLang {flags.newest()}"
    else:
        newest = f"SGLang {flags.newest()}"
    return (f"; no release up to {newest} defines {name}: a newer build may, and pdlint has no table to check "
            f"it against")


def _unknown_fix(kind: str, err, parsed, info: SglangInfo):
    """The replacement of an unknown flag: the dash spelling of a config key, a flag renamed by an earlier
    release, or a typo's single close match."""
    name = err.option or err.token.text
    if kind == "config-underscore":
        dashed = name.replace("_", "-")
        hit = parsed.table.lookup(dashed)
        new = hit.primary if hit is not None and dashed in hit.option_strings else dashed
        return fixes.replace(err.token, name, (new,), f"Write the key as '{new[2:]}'")
    if kind == "not-in-version":
        return _renamed_fix(err, info)
    found = fixes.typo(name, parsed.table)
    if found is None:
        return None
    return fixes.replace(err.token, name, (found[0],), f"Replace {name} with {found[0]}", found[1])


def _renamed_fix(err, info: SglangInfo):
    name = err.option or err.token.text
    new = fixes.renamed(name, info.version)
    if new is None:
        return None
    return fixes.replace(err.token, name, new, f"Replace {name} with {' '.join(new)} (renamed)")


def _from_config(tok: TStr, other: TStr) -> bool:
    return tok is other


def not_in_release(option: str, judged: str) -> Optional[str]:
    """Why ``option``, a flag of other SGLang releases, is not one of ``judged``: removed (with the
    replacement its last release named, or the flag that now has its dest), renamed, or not added yet.
    None when no release has it."""
    from pdlint.engines.sglang.packed import flag_store
    from pdlint.engines.sglang.versions import describe
    store = flag_store()
    having = store.option_releases().get(option) if store is not None else None
    if not having or judged in having:
        return None
    key = flags.version_key
    older = sorted((v for v in having if key(v) < key(judged)), key=key)
    newer = sorted((v for v in having if key(v) > key(judged)), key=key)
    where = describe(having)
    if older and not newer:
        last = older[-1]
        after = [v for v in reversed(flags.available_versions()) if key(v) > key(last)]
        text = f"{option} was removed in SGLang {after[0]} (it exists in {where})" if after else \
            f"{option} is not a flag of SGLang {judged} (it exists in {where})"
        repl = _replacement(option, last, judged)
        return text + (f"; use {repl}" if repl else "")
    if newer and not older:
        return f"{option} is not a flag of SGLang {judged}: it was added in SGLang {newer[0]} (it exists in {where})"
    return f"{option} is not a flag of SGLang {judged} (it exists in {where})"


def _replacement(option: str, last: str, judged: str) -> Optional[str]:
    flag = flags.load(last).lookup(option)
    if flag is None:
        return None
    dep = flag.deprecated or {}
    if dep.get("replacement"):
        return dep["replacement"]
    now = flags.load(judged).by_dest.get(flag.dest)
    if now is not None and option not in now.option_strings:
        return now.primary
    key = flags.version_key
    for v in reversed(flags.available_versions()):  # the releases that kept it as a DeprecatedAction, oldest first
        if not key(last) < key(v) <= key(judged):
            continue
        kept = flags.load(v).lookup(option)
        dep = (kept.deprecated or {}) if kept is not None else {}
        found = dep.get("replacement") or _named_replacement(dep.get("message") or "")
        if found:
            return found
    return None


#: the replacement a DeprecatedAction's message names: "Please set `--moe-a2a-backend` to 'deepep' instead"
#: (--enable-deepep-moe in 0.5.3-0.5.4), "use --X instead" (field test rw19/b: OME's runtimes still pass
#: --enable-deepep-moe, and SGL009 named no replacement)
_SET_TO = lazyre.compile(r"set\s+`?(--[\w-]+)`?\s+to\s+['\"`]([\w.-]+)['\"`]", re.I)
_USE = lazyre.compile(r"\buse\s+`?(--[\w-]+(?:[ =][\w.-]+)?)`?\s+instead", re.I)


def _named_replacement(message: str) -> Optional[str]:
    m = _SET_TO.search(message)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    m = _USE.search(message)
    return m.group(1) if m else None


def _repeats(launch: Launch, info: SglangInfo, enabled) -> list:
    from pdlint.engines.sglang.rules.cmdline import REPEATED
    if not enabled(REPEATED.code):
        return []
    by_dest: dict = {}
    refused = any(e.kind == "config-multiple" for e in info.merge.errors)  # SGL023 says it
    for occ in info.parsed.occurrences:
        if refused and "--config" in occ.flag.option_strings:
            continue
        by_dest.setdefault((occ.dest, occ.from_config), []).append(occ)
    out = []
    for (dest, _), occs in by_dest.items():
        if len(occs) < 2 or occs[0].flag.action in ("append", "count"):
            continue
        values = {o.value_text() for o in occs}
        last = occs[-1]
        first = occs[0]
        if len(values) > 1:
            msg = (f"{first.option} is given {len(occs)} times with different values; SGLang uses the last "
                   f"({last.value_text() or 'set'}) and ignores this one")
        else:
            msg = f"{first.option} is given {len(occs)} times; SGLang uses the last, this one is redundant"
        o = last.name_tok.origin
        out.append(Candidate(REPEATED.code, launch, first.name_tok, msg, False, info.version,
                             [Related(o.path, o.line, o.column, "the occurrence SGLang uses")], REPEATED.fix))
    return out


def _deprecations(launch: Launch, info: SglangInfo, enabled) -> list:
    from pdlint.engines.sglang.rules.cmdline import DEPRECATED
    if not enabled(DEPRECATED.code):
        return []
    out = []
    for occ in info.parsed.occurrences:
        dep = occ.flag.deprecated
        if not dep or occ.flag.action == "deprecated":  # (a DeprecatedAction stops the server: SGL009)
            continue
        repl = dep.get("replacement")
        msg = f"{occ.option} is deprecated in SGLang {info.version}"
        if repl:
            msg += f"; use {repl}"
        if dep.get("message"):
            msg += f" (SGLang: \"{_fill(dep['message'], occ)}\")"
        new = fixes.deprecated(occ, info.parsed.table)
        token = info.parsed.tokens[occ.index] if occ.index < len(info.parsed.tokens) else occ.name_tok
        # safe only for a pinned release: judged against a guessed one, the replacement may be missing from the
        # older releases the launch starts on today (field test rw19/c: a --fix on ai-dynamo/dynamo's
        # disagg_dp_attn.sh narrowed it from Dynamo 1.1.1-1.4.2 to 1.3.1-1.4.2)
        autofix = fixes.replace(token, occ.written, new, f"Replace {occ.written} with {' '.join(new)}"
                                + ("" if info.pinned else f" (no release is pinned: {' '.join(new)} may not exist in "
                                                          f"the release you run)"),
                                SAFE if info.pinned else UNSAFE) if new else None
        out.append(Candidate(DEPRECATED.code, launch, occ.name_tok, msg, False, info.version, [], DEPRECATED.fix,
                             autofix))
    return out


def _fill(message: str, occ) -> str:
    return message.replace("{option_string}", occ.option).replace("{replacement}", "")


def occ_flag_deprecated(parsed, option: Optional[str]) -> dict:
    """The deprecation record of the flag ``option`` names in the parsed table ({} when none)."""
    flag = parsed.table.lookup(option) if option else None
    return (flag.deprecated or {}) if flag is not None else {}


def occurrence_groups(launch: Launch) -> list:
    """``(dest, tokens)`` for each flag written on the launch's command line (not from a ``--config`` file), in
    order: the flag token and its separate value tokens (``pdlint --fix`` moves them together).

    Behind a wrapper (``python -m dynamo.sglang``) these are the flags SGLang's parser sees: Dynamo's own
    flags (``--endpoint``, ``--disagg-config``) are consumed before it and are no group; a flag Dynamo
    rewrites (``--disaggregation-mode agg`` -> ``null`` at the end) or adds (``--config`` for its
    ``--disagg-config`` section) is written nowhere in that form and is left out too."""
    info = launch.parsed
    if not isinstance(info, SglangInfo):
        return []
    parsed = info.parsed
    written = {id(t) for t in launch.argv} if info.wrapper is not None else None
    out = []
    for occ in sorted(parsed.occurrences, key=lambda o: o.index):
        if occ.from_config or any(k >= len(parsed.tokens) for k in occ.indexes):
            continue
        tokens = [parsed.tokens[k] for k in occ.indexes]
        if written is not None and any(id(t) not in written for t in tokens):
            continue
        out.append((occ.dest, tokens))
    return out


def split_argv(text: str) -> list:
    """Shell-split a command line into synthetic tokens (tests, examples, the conformance suite)."""
    return [TStr.synthetic(w, "<argv>") for w in shlex.split(text)]
from pdlint.engines.sglang.pairbase import facts, link_candidates, pair_candidates  # noqa: E402,F401  (pair stage)
