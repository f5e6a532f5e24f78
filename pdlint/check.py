"""Check stage: run every engine's rules on every launch, then place each
finding at the line a human must edit.

Shared-origin diagnosis: a role rule that fires on a token whose origin is
reached by launches of more than one role (a YAML anchor, a shell variable, a
Jinja ``{% set %}``/macro/include, a config variable, one template line
rendered for both roles, a ``--config`` file) is reported once, at that
origin, naming every launch and role that reaches it and which roles may keep
the flag.  Other findings are de-duplicated per (rule, origin, message), and per (rule, origin) over the
variants of one srt-slurm recipe (override sections, sweep jobs).

Pair stage: the launches are grouped into deployments and prefill/decode
pairs (:mod:`pdlint.pairing`); each pair goes to its engine adapter's
``pair_candidates(prefill, decode, enabled)``, each router link to the router
engine's ``link_candidates(link, deployment, enabled)``, each deployment to the
``unit_candidates(deployment, enabled)`` of the engines it runs and to the
engine-independent rules of :mod:`pdlint.pair_rules`.  A pair candidate
names the launch to edit (``Candidate.launch``, the token there) and points
at the other launch through ``related``.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import groupby
from typing import Callable, Optional

from pdlint import budget
from pdlint.model import ERROR, WARNING, Candidate, Finding, FixIntent, Launch, Related
from pdlint.rules import engine_rules, rule


def launch_tokens(launch: Launch) -> list:
    """The argv the server's parser sees: ``--config`` files merged (SGLang's, vLLM's), else as written."""
    read = _read_tokens(launch.parsed)
    return list(read) if read is not None else list(launch.argv)


def _read_tokens(info) -> Optional[list]:
    if info is None:
        return None
    if hasattr(info, "parsed"):
        return info.parsed.tokens if hasattr(info.parsed, "tokens") else None
    return getattr(info, "tokens", None)  # vLLM's VllmInfo


def written_tokens(launch: Launch) -> list:
    """Every token of the launch as written, for ``pdlint show``: ``[(token, consumed)]``.  The words
    that run the launcher (``srun ...``, ``docker run ... IMAGE``) and the launcher words first, then the
    argv, with the tokens the server's parser sees that are written elsewhere (``--config`` file keys, a
    wrapper's rewrites) in the parser's order.  ``consumed`` is None for a token the server's parser
    sees, else who takes it instead: ``wrapper``, ``launcher``, ``dynamo.sglang`` (a wrapper's own flags),
    ``dynamo.sglang rewrite`` (a token the wrapper replaces), ``--config merge`` (``--config`` when the
    file was not read), ``sglang serve``, ``not passed to the server``."""
    out = [(t, "wrapper") for t in launch.meta.get("wrapper_words", ())]
    out += [(t, "launcher") for t in launch.command]
    info = launch.parsed
    read = _read_tokens(info)
    if read is None:
        return out + [(t, None) for t in launch.argv]
    parsed = list(read)
    where = {id(t): i for i, t in enumerate(parsed)}
    written = {id(t) for t in launch.argv}
    wrapper = getattr(info, "wrapper", None)
    taken = {id(t) for t in getattr(wrapper, "consumed", None) or ()}
    name = launch.entrypoint[len("python -m "):] if launch.entrypoint.startswith("python -m ") else launch.entrypoint
    merge = getattr(info, "merge", None)
    done = 0  # parsed tokens emitted
    prev = ""
    for t in launch.argv:
        i = where.get(id(t))
        if i is not None:
            for e in parsed[done:i]:  # what the parser sees before it and is written elsewhere
                if id(e) not in written:
                    out.append((e, None))
            done = max(done, i + 1)
            out.append((t, None))
        elif id(t) in taken:
            out.append((t, name))
        elif t.text == "--config" or prev == "--config":
            out.append((t, name if wrapper is not None and getattr(wrapper, "disagg", None) else
                        "--config merge" if (merge is not None and merge.config is not None) or
                        getattr(info, "config_path", "") else "--config"))
        elif wrapper is not None:
            out.append((t, f"{name} rewrite"))  # the wrapper rewrites it (Dynamo's --disaggregation-mode agg|pd)
        else:
            out.append((t, name if name == "sglang serve" else "not passed to the server"))
        prev = t.text
    out += [(e, None) for e in parsed[done:] if id(e) not in written]
    return out


#: findings of one rule a launch gets one by one; past that, the rest are one finding
MAX_PER_CODE = 32


def place_state(code: str, launch: Launch, token) -> str:
    """The state of a finding of ``code`` about ``launch`` at ``token`` (None: the launch's line), where it will be
    reported: ``open``, ``covered`` by an inline suppression, or ``hidden`` by its file's rule selection (the check
    stage's :class:`pdlint.suppress.Scope`; without one, ``open``)."""
    from pdlint import suppress
    scope = suppress.current()
    if scope is None:
        return "open"
    path, line, _ = _where(token, launch)
    return scope.state(path, line, code)


def take_suppressed(code: str, launch: Launch, token, message: str) -> bool:
    """Suppress a finding of ``code`` at ``token`` now, when a directive covers it (its directive is used; the run
    counts it as suppressed): one past the limit of findings made one by one."""
    from pdlint import suppress
    scope = suppress.current()
    if scope is None:
        return False
    path, line, col = _where(token, launch)
    return scope.take(path, line, code, (code, line, col, message))


def _where(token, launch: Launch) -> tuple:
    """(path, line, column) a finding at ``token`` is reported at (as :func:`_location` places it)."""
    if token is not None and token.pieces:
        o = token.origin
        if not o.path.startswith("<"):
            return o.path, o.line, o.column
    return launch.path, launch.line, 1


def _fold(cands: list) -> list:
    """A launch's candidates with at most :data:`MAX_PER_CODE` + 1 of one rule reported: the ones past MAX_PER_CODE
    become one, listing their words (hostile-input round rw30/h P10: a rule reporting every word of an unbounded
    list - 120,000 bare words, 2,000 unknown options - made as many findings, and --format sarif ran out of
    memory, the whole run's report lost).  Only the open ones count and are folded (:func:`place_state`): a
    finding an inline suppression covers, or one its file's rule selection does not show, neither takes one of
    the MAX_PER_CODE places nor stands in the counting finding, which is placed at an open one (rw31/h P1: placed
    at the 33rd candidate's suppressed line, its directive hid every later finding of the rule); past
    MAX_PER_CODE of them, the covered ones are suppressed here and the hidden ones dropped."""
    count: dict = {}
    for c in cands:
        count[c.code] = count.get(c.code, 0) + 1
    if all(n <= MAX_PER_CODE + 1 for n in count.values()):
        return cands
    state: dict = {}  # id(candidate) -> its state, for the rules with more than MAX_PER_CODE + 1
    opened: dict = {}  # code -> its open candidates
    for c in cands:
        if count[c.code] > MAX_PER_CODE + 1:
            st = state[id(c)] = place_state(c.code, c.launch, c.token)
            if st == "open":
                opened[c.code] = opened.get(c.code, 0) + 1
    out, seen, rest = [], {}, {}
    for c in cands:
        st = state.get(id(c))
        if st is None:
            out.append(c)
            continue
        k = (c.code, st)
        seen[k] = seen.get(k, 0) + 1
        if seen[k] <= MAX_PER_CODE or (st == "open" and opened[c.code] <= MAX_PER_CODE + 1):
            out.append(c)
        elif st == "open":
            rest.setdefault(c.code, []).append(c)
        elif st == "covered":
            take_suppressed(c.code, c.launch, c.token, c.message)
        # (a hidden one past MAX_PER_CODE: its file does not show the rule, and it is not made)
    from pdlint.text import shown_words
    for code, group in rest.items():
        first = group[0]
        token = next((c.token for c in group if c.token is not None), None)
        words = [c.token.text for c in group if c.token is not None]
        out.append(Candidate(code, first.launch, token,
                             f"and {len(group)} more {code} findings on this launch, not reported one by one"
                             + (f": {shown_words(words)}" if words else ""),
                             first.role_specific, first.version, [], first.fix, None))
    return out


def check(launches: list, enabled_for: Callable[[str], Callable[[str], bool]], deps_kept=None) -> list:
    """Findings of the rules on ``launches``; ``deps_kept`` (:class:`pdlint.pairing.Paired`): keeps the
    deployments the pair stage made, for the coverage stage."""
    from pdlint.engines import adapter
    for e in sorted({l.engine for l in launches if isinstance(l.engine, str) and adapter(l.engine) is not None}):
        engine_rules(e)
    cands = []
    for path, group in groupby(enumerate(launches), key=lambda il: il[1].path):
        found: list = []
        try:  # one section per file's run of launches
            with budget.charged(path, "rules"):
                for i, launch in group:
                    engine = adapter(launch.engine)
                    if engine is not None and launch.kind == "server" and launch.parsed is not None:
                        found += [(i, c) for c in _fold(engine.candidates(launch, enabled_for(launch.path)))]
        except budget.OverBudget:
            continue  # the file is reported over its budget; its findings are dropped
        cands += found
    index = {id(l): i for i, l in enumerate(launches)}
    paired: set = set()  # pair candidates name their launch themselves: no shared-origin diagnosis
    b = budget.current()
    pairable = [l for l in launches if l.path not in b.over] if b is not None and b.over else launches
    for c in pair_stage(pairable, enabled_for, deps_kept):
        i = index.get(id(c.launch))
        if i is not None:
            cands.append((i, c))
            paired.add(id(c))
    reach = _reach(launches, {c.token.origin_key() for _, c in cands if c.token is not None and c.token.pieces})

    shared: "OrderedDict[tuple, list]" = OrderedDict()
    plain: list = []
    rejected: dict = {}  # origin key -> {launch index: codes of the role rules refusing the token there}
    for i, c in cands:
        key = c.token.origin_key() if c.token is not None and c.token.pieces else None
        if key is not None and id(c) not in paired and _role_rule(rule(c.code)):
            rejected.setdefault(key, {}).setdefault(i, set()).add(c.code)
        reached = reach.get(key, {}) if key else {}
        roles = {launches[j].role for j in reached}
        if id(c) not in paired and c.role_specific and key is not None and len(reached) > 1 and len(roles) > 1:
            shared.setdefault((c.code, key), []).append((i, c))
        else:
            plain.append((i, c))

    findings: "OrderedDict[tuple, Finding]" = OrderedDict()
    merged: dict = {}  # key -> _Merged: findings met more than once (linear, however many times)
    for i, c in plain:
        f = _finding(rule(c.code), c, launches[i], id(c) in paired)
        k = (f.code, f.path, f.line, f.column, f.message)
        if launches[i].meta.get("variant") is not None:
            # the variants of one srt-slurm recipe (override sections, sweep jobs) share its lines: a rule is
            # reported once at a line they share, whatever value each variant gives the other side of the check
            k = (f.code, f.path, f.line, f.column, "variants of", launches[i].path)
        if k in findings:
            m = merged.get(k)
            if m is None:
                m = merged[k] = _Merged(findings[k])
            m.add(f)
        else:
            findings[k] = f
    for k, m in merged.items():
        findings[k] = m.finding()
    for (code, key), group in shared.items():
        f = _shared_finding(rule(code), group, reach[key], launches, rejected.get(key, {}))
        findings[(f.code, f.path, f.line, f.column, f.message)] = f
    return list(findings.values())


def _reach(launches: list, keys: set) -> dict:
    """origin key -> {launch index: the launch's first token written there}, for ``keys`` (the places the
    candidates name) only: which launches reach a finding's place.  Text written nowhere (a default, the
    command line) is no shared line."""
    reach: dict = {}
    paths = {k[0] for k in keys if k is not None and k[1] >= 0}
    if not paths:
        return reach
    for i, launch in enumerate(launches):
        for tok in launch_tokens(launch) + list(launch.command):
            pieces = tok.pieces
            if not pieces:
                continue
            src = pieces[0].src
            if src is None or src.path not in paths:
                continue
            key = tok.origin_key()
            if key in keys:
                reach.setdefault(key, {}).setdefault(i, tok)
    return reach


def pair_stage(launches: list, enabled_for: Callable[[str], Callable[[str], bool]], deps_kept=None) -> list:
    """Candidates of the pair rules (engine adapters' ``pair_candidates`` and
    ``link_candidates``, then :mod:`pdlint.pair_rules`); ``deps_kept``: where to keep the deployments."""
    from pdlint.pairing import pair_launches
    out: list = []
    seen: set = set()

    def both(*ls):
        fns = [enabled_for(l.path) for l in ls]
        first = fns[0]
        if all(f == first for f in fns):  # one config for every file (the common case): ask it alone
            return first
        return lambda code: all(f(code) for f in fns)

    deps = pair_launches(launches)
    if deps_kept is not None:
        deps_kept.put(launches, deps)
    for dep in deps:
        try:  # charged to the file of the deployment's first launch
            with budget.charged(dep.launches[0].path, "pair stage"):
                found = _dep_candidates(dep, both, enabled_for, seen)
        except budget.OverBudget:
            continue
        for key, c in found:
            if key is None or key not in seen:
                if key is not None:
                    seen.add(key)
                out.append(c)
    return out


def _dep_candidates(dep, both, enabled_for, seen: set) -> list:
    """(dedup key or None, candidate) of one deployment's pair, link and unit rules."""
    from pdlint import pair_rules
    from pdlint.engines import adapter
    out: list = []
    local: set = set()
    for pair in dep.pairs:
        engine = adapter(pair.engine)
        if engine is None or not hasattr(engine, "pair_candidates"):
            continue
        for p, d in pair.combos():
            if p.parsed is None or d.parsed is None:
                continue
            for c in engine.pair_candidates(p, d, both(p, d)):
                other = d if c.launch is p else p
                run = other.meta.get("env_run")
                if run and run != c.launch.meta.get("env_run"):  # only that run of the script starts them so
                    c.related = list(c.related) + [Related(other.path, other.line, 1, _launch_note(other))]
                key = (c.code, id(c.launch), c.token.origin.key if c.token is not None and c.token.pieces
                       else None, c.message)
                if key not in seen and key not in local:
                    local.add(key)
                    out.append((key, c))
    for link in dep.links:
        engine = adapter(link.router.engine)
        if engine is None or not hasattr(engine, "link_candidates"):
            continue
        out += [(None, c) for c in engine.link_candidates(link, dep, both(link.router, *link.servers))]
    fns = [enabled_for(p) for p in dict.fromkeys(l.path for l in dep.launches)]  # each file once
    memo: dict = {}

    def unit_enabled(code: str) -> bool:
        on = memo.get(code)
        if on is None:
            on = memo[code] = all(f(code) for f in fns)
        return on

    for eng in sorted({l.engine for l in dep.launches}):
        engine = adapter(eng)
        if engine is not None and hasattr(engine, "unit_candidates"):
            out += [(None, c) for c in engine.unit_candidates(dep, unit_enabled)]
    out += [(None, c) for c in pair_rules.unit_candidates(dep, unit_enabled)]
    return out


def _location(c, launch: Launch) -> tuple:
    if c.token is not None and c.token.pieces:
        o = c.token.origin
        if not o.path.startswith("<"):
            return o.path, o.line, o.column, o.chain
    return launch.path, launch.line, 1, ()


def _via(chain) -> list:
    return [Related(h.path, h.line, h.column, f"via {h.note}") for h in chain]


def _finding(rule, c, launch: Launch, pair: bool = False) -> Finding:
    """``pair``: a pair rule's finding, tagged with the role the launch was paired as (a server of no role flag
    that its structure names, e.g. a values section's ``decode:``, is that role there, never ``non-PD``)."""
    path, line, col, chain = _location(c, launch)
    role = launch.role
    if pair and role in (None, "null"):
        from pdlint.pairing import pair_role
        paired_as = pair_role(launch)
        role = paired_as if paired_as in ("prefill", "decode") else role
    related = list(c.related) + _via(chain)
    if (launch.path, launch.line) != (path, line):
        related.append(Related(launch.path, launch.line, 1, _launch_note(launch)))
    message = c.message
    severity = rule.severity
    if rule.code in FORK_DEFINED and severity == ERROR:
        src = launch.meta.get("engine_source")
        if src is not None and _fork_may_define(launch, c.token):
            # a fork may define the flag or field: what pdlint knows is the released engine's
            severity = WARNING
            message += (f" (this repository holds {_ENGINE_NAMES.get(launch.engine, launch.engine)} source tree of "
                        f"its own, {src}: a launch that runs it may accept this)")
    if rule.code in CONFIG_MERGE_ONLY and severity == ERROR and launch.meta.get("virtual_config"):
        # a flag file no launch pdlint read gives to --config: its consumer may turn the keys into command-line
        # flags (AI-Hypercomputer/gpu-recipes' Dynamo workers: `while read key value; ARGS+=("--$key")`), which
        # SGLang accepts where its --config merger refuses (field test rw26/a: 8 false errors)
        severity = WARNING
        message += (" (if this file is given to --config: no launch pdlint read names it, and a script that turns "
                    "its keys into command-line flags passes them to SGLang's parser, which accepts them)")
    if c.version and rule.engine == "sglang":
        message += f" [SGLang {c.version}]"
    return Finding(path, line, col, rule.code, rule.name, severity,
                   role if c.role_specific else None, message, tuple(_uniq(related)), c.fix, c.version,
                   col + len(c.token.text) if c.token is not None and c.token.pieces else None, c.autofix,
                   token=c.token.text if c.token is not None and c.token.pieces else None)


#: rules that refuse a flag, option, choice, key or value the released engine does not define, which the engine's
#: own source tree in the repository (a fork: its scripts run that tree) may define: warnings there that say so
#: (field tests rw20/f, deepgrove-ai/sglang's `--quantization ternary`; rw22/a, vLLM forks' KVTransferConfig fields)
FORK_DEFINED = frozenset({"SGL001", "SGL002", "SGL004", "SGL021", "VLLM018", "VLLM019", "VLLM029", "TRT011"})
_ENGINE_NAMES = {"sglang": "an SGLang", "vllm": "a vLLM", "trtllm": "a TensorRT-LLM"}
#: SGLang rules only its --config merger applies (the same key as a command-line flag is accepted)
CONFIG_MERGE_ONLY = frozenset({"SGL021"})


def _fork_may_define(launch: Launch, token) -> bool:
    """May the engine's own source tree in the repository define the name ``token`` writes?  Not when the launch
    runs a release it names (an image tag, a pip pin: the fork's tree is not what runs), nor when the tree's
    definition files do not write the name (``--bogus-flag`` as ``bogus-flag`` or ``bogus_flag``; a choice, a
    config field); field test rw23/h: any file at the marker's path downgraded every such error of the repository."""
    if getattr(launch.parsed, "pinned", False):
        return False
    words = launch.meta.get("engine_words") or frozenset()
    name = (token.text if token is not None else "").split("=", 1)[0].strip().strip("\"'").lstrip("-")
    return bool(name) and (name in words or name.replace("-", "_") in words or name.replace("_", "-") in words)


def _launch_note(launch: Launch) -> str:
    from pdlint.pairing import role_word
    role = role_word(launch, "router" if launch.kind == "router" else "unknown role")
    where = f" ({launch.context})" if launch.context else ""
    return f"{role} launch: {launch.entrypoint}{where}"


def _role_rule(r) -> bool:
    """A rule whose finding means "this flag belongs on another role" (its fix moves the flag there), not
    "this launch lacks something" (SGL108: offloading needs a storage backend)."""
    return r.autofix is not None and r.autofix.kind == "move"


def _shared_finding(rule, group: list, reached: dict, launches: list, rejected: dict) -> Finding:
    """One finding for a rule's candidates at one shared origin; ``rejected``: launch index -> the codes of
    the role rules that refuse the token in that launch (a role another role rule refuses is not one to keep:
    the flag is moved only where no role rule refuses it)."""
    i0, c0 = group[0]
    path, line, col, _ = _location(c0, launches[i0])
    failing = {i for i, _ in group}
    fail_roles = sorted({launches[i].role_word("unknown") for i in failing})
    all_roles = sorted({launches[j].role_word("unknown") for j in reached})
    refused = failing | {j for j in reached if j in rejected}  # by this rule or another
    refused_roles = {launches[j].role_word("unknown") for j in refused}
    keep = [r for r in all_roles if r not in refused_roles]
    others: dict = {}  # role -> the other rules that refuse it there
    for j in sorted(refused - failing):
        others.setdefault(launches[j].role_word("unknown"), set()).update(rejected[j] - {rule.code})
    related = []
    for j in sorted(reached, key=lambda j: (launches[j].path, launches[j].line, j)):
        launch, tok = launches[j], reached[j]
        hop = tok.origin.chain[0] if tok.origin.chain else None
        status = "fails" if j in failing else \
            f"fails with {', '.join(sorted(rejected[j]))}" if j in refused else "accepts it"
        note = f"{launch.role_word('unknown-role')} launch ({launch.entrypoint}) {status}"
        if launch.context:
            note += f"; {launch.context}"
        if hop is not None:
            related.append(Related(hop.path, hop.line, hop.column, f"{note}; reaches it via {hop.note}"))
        else:
            related.append(Related(launch.path, launch.line, 1, note))
    roles_txt = " and ".join(all_roles)
    if keep:
        advice = f"keep it only for {' and '.join(keep)}: move it out of the shared part into the " \
                 f"{' and '.join(keep)}-only part"
    else:
        advice = "no role that reaches it accepts it"
    if others:
        advice += "".join(f"; on {r} {', '.join(sorted(cs))} refuses it" for r, cs in sorted(others.items()))
    message = (f"{c0.message} (this line is shared by {len(reached)} launches ({roles_txt}); it fails on "
               f"{' and '.join(fail_roles)}; {advice})")
    if c0.version and rule.engine == "sglang":
        message += f" [SGLang {c0.version}]"
    role = fail_roles[0] if len(fail_roles) == 1 else None
    autofix = None
    if keep and "unknown" not in keep and rule.autofix is not None and rule.autofix.kind == "move":
        # pdlint.fix moves the flag occurrence out of the shared part into the keeping launches' own parts
        autofix = FixIntent("move", f"Move {c0.token.text} into the {' and '.join(keep)}-only part",
                            rule.autofix.applicability, c0.token,
                            source=tuple(launches[i] for i in sorted(failing)),
                            target=tuple(launches[j] for j in sorted(reached) if j not in refused))
    return Finding(path, line, col, rule.code, rule.name, rule.severity, role, message, tuple(_uniq(related)),
                   c0.fix, c0.version,
                   col + len(c0.token.text) if c0.token is not None else None, autofix,
                   token=c0.token.text if c0.token is not None else None)


#: related locations one finding lists; the rest are counted in a last "and N more" entry
MAX_RELATED = 24


class _Merged:
    """One finding met again and again (the same message at the same place, from several launches; or one rule
    at a line the variants of one srt-slurm recipe share, whatever values each has): the related locations of
    all of them, each once, in order; the role when they agree; the first fix; the first message, saying how
    many other messages there were."""

    def __init__(self, f: Finding):
        self.first = f
        self.related: list = []
        self.keys: set = set()
        self.more = None  # (the first location left out, how many)
        self.role = f.role
        self.autofix = f.autofix
        self.messages = {f.message}  # variants of one recipe line may say different values
        self._take(f.related)

    def _take(self, related) -> None:
        for r in related:
            k = (r.path, r.line, r.column, r.note)
            if k in self.keys:
                continue
            self.keys.add(k)
            if len(self.related) < MAX_RELATED:
                self.related.append(r)
            else:
                self.more = (self.more[0], self.more[1] + 1) if self.more else (r, 1)

    def add(self, f: Finding) -> None:
        self._take(f.related)
        self.messages.add(f.message)
        if self.role != f.role:
            self.role = None
        self.autofix = self.autofix or f.autofix

    def finding(self) -> Finding:
        a = self.first
        rel = list(self.related)
        if self.more is not None:
            r, n = self.more
            rel.append(Related(r.path, r.line, r.column, f"and {n} more place{'s' if n != 1 else ''} like these "
                                                         f"(not listed)"))
        message = a.message
        if len(self.messages) > 1:
            n = len(self.messages) - 1
            message += (f" (and {n} other finding{'s' if n != 1 else ''} of this rule here, in other variants of the "
                        f"recipe with other values: see the related places)")
        return Finding(a.path, a.line, a.column, a.code, a.name, a.severity, self.role, message, tuple(rel),
                       a.fix, a.engine_version, a.end_column, self.autofix, a.end_line, a.token)


def _uniq(items: list) -> list:
    seen, out = set(), []
    for r in items:
        k = (r.path, r.line, r.column, r.note)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out
