"""``python -m dynamo.sglang``: what NVIDIA Dynamo's SGLang wrapper does to the
argv before SGLang's own parser sees it (tables: ``data/dynamo-sglang-*.json``,
generated from the ai-dynamo wheels by ``scripts/gen_dynamo_flags.py``).

Dynamo 1.x runs its own parser and then the router-advertisement parser, each
with ``parse_known_args`` and prefix abbreviation over *their own* options
only; the remainder (in order) goes to SGLang's strict parser, after
``--disaggregation-mode agg|pd|encode`` is rewritten, ``--load-format`` gains
``gms`` and the compatibility flag ``--disable-piecewise-cuda-graph`` is
added where SGLang lacks it.  Dynamo 0.x runs one strict parser over its
options and SGLang's together.  Dynamo also overwrites
``--disaggregation-bootstrap-port`` with a free port unless some token starts
with that flag.

The release is the image tag's; with none, the newest, unless that release
refuses a flag only other releases' own parsers define (``--multimodal-worker``
and ``--durable-kv-events``, which Dynamo 1.4 removed): then the engine adapter
judges the launch as the newest release that accepts every flag written
(``infer_dynamo`` in :mod:`pdlint.engines.sglang.engine`, SGL012).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.engines.sglang import argv as argv_mod
from pdlint.engines.sglang.flags import DATA, Flag, FlagTable, version_key
from pdlint.records import dataclass, field, replace
from pdlint.text import TStr

_FILE = lazyre.compile(r"^dynamo-sglang-(.+)\.json$")


@dataclass
class Wrapped:
    """The result of Dynamo's pre-processing of one launch's argv."""

    version: str
    sglang_tokens: list  # what SGLang's parser sees
    table: FlagTable  # SGLang's table with Dynamo's overrides (or the union for 0.x)
    consumed: list = field(default_factory=list)  # Dynamo's own tokens
    errors: list = field(default_factory=list)  # ArgError from Dynamo's parsers
    bootstrap_port_overwritten: bool = False
    incomplete: bool = False
    disagg: Optional[tuple] = None  # (--disagg-config path token, --disagg-config-key token) Dynamo consumed


PINS_FILE = "dynamo-sglang-pins.json"


@functools.lru_cache(maxsize=1)
def versions() -> tuple:
    out = [m.group(1) for m in map(_FILE.match, os.listdir(DATA)) if m and m.group(1) != "pins"]
    return tuple(sorted(out, key=version_key, reverse=True))


@functools.lru_cache(maxsize=None)
def load(version: str) -> dict:
    with open(os.path.join(DATA, f"dynamo-sglang-{version}.json"), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=1)
def pins() -> dict:
    """Dynamo release -> the SGLang release its ``sglang`` extra installs, for every ai-dynamo release
    with a ``dynamo.sglang`` wrapper (``scripts/gen_dynamo_flags.py --pins``)."""
    try:
        with open(os.path.join(DATA, PINS_FILE), encoding="utf-8") as f:
            return json.load(f)["pins"]
    except FileNotFoundError:
        return {}


def image_version(image: str):
    """The Dynamo release an image tag names (``nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.0``)."""
    from pdlint.engines import dynamo_image_release
    return dynamo_image_release(image)


def _series(v: str) -> tuple:
    return version_key(v)[0][:2]


def _nearest(wanted: str, candidates) -> str:
    """The candidate for release ``wanted``: itself, else the nearest of its series (major.minor; the
    newest not newer than it, else the oldest newer one), else the newest older one, else the oldest."""
    candidates = sorted(candidates, key=version_key, reverse=True)
    if wanted in candidates:
        return wanted
    key = version_key(wanted)
    same = [v for v in candidates if _series(v) == _series(wanted)]
    if same:
        older = [v for v in same if version_key(v) <= key]
        return older[0] if older else same[-1]
    older = [v for v in candidates if version_key(v) <= key]
    return older[0] if older else candidates[-1]


def pick(image: str, entrypoint: str = "") -> str:
    """The Dynamo table for an entry point only old releases have (``dynamo.sglang.worker``), else
    for the image tag's release (itself, else a table of its series, else the nearest older one),
    else the newest."""
    all_versions = versions()
    if entrypoint and entrypoint != "python -m dynamo.sglang":
        having = [v for v in all_versions if entrypoint in load(v).get("entrypoint_aliases", [])]
        if having:
            return having[0]
    wanted = image_version(image)
    if wanted:
        return _nearest(wanted, all_versions)
    return all_versions[0]


def sglang_pin(image: str, entrypoint: str = ""):
    """The SGLang release a Dynamo launch runs: the pin of the image's Dynamo release (exact, else the
    nearest release of its series, else the nearest older one), else that of the table picked."""
    wanted = image_version(image)
    table = pick(image, entrypoint)
    known = pins()
    if wanted and known and (entrypoint in ("", "python -m dynamo.sglang") or table == wanted):
        return known[_nearest(wanted, known)]
    return load(table).get("sglang_pin")


def pin_of(version: str) -> Optional[str]:
    """The SGLang release Dynamo release ``version`` (a table's) installs."""
    return pins().get(version) or load(version).get("sglang_pin")


@functools.lru_cache(maxsize=1)
def wrapper_options() -> dict:
    """Option string -> the Dynamo releases (tables) whose own parsers (not SGLang's) define it."""
    out: dict = {}
    for v in versions():
        for d in load(v)["flags"]:
            if d.get("parser") != "sglang" and d["action"] not in ("help", "version"):
                for o in d["option_strings"]:
                    out.setdefault(o, set()).add(v)
    return {o: frozenset(vs) for o, vs in out.items()}


def describe(selected) -> str:
    """``0.6.1–1.3.1`` over the Dynamo releases pdlint has tables of (a run of one release is that release)."""
    chosen, out, start, prev = set(selected), [], None, None
    for v in reversed(versions()):  # oldest first
        if v in chosen:
            start, prev = start or v, v
        elif start is not None:
            out.append((start, prev))
            start = None
    if start is not None:
        out.append((start, prev))
    return ", ".join(a if a == b else f"{a}–{b}" for a, b in out)


def not_in_release(option: str, judged: str) -> Optional[str]:
    """Why ``option``, a ``dynamo.sglang`` flag of other Dynamo releases, is not one of ``judged``'s (removed
    or not added yet); None when no Dynamo release's own parsers define it."""
    having = wrapper_options().get(option)
    if not having or judged in having:
        return None
    key = version_key
    if all(key(v) < key(judged) for v in having):
        last = max(having, key=key)
        after = [v for v in reversed(versions()) if key(last) < key(v) <= key(judged)]
        gone = f"not of Dynamo {after[0]} and later" if after else f"not of Dynamo {judged}"
        return f"{option} is a dynamo.sglang flag of Dynamo {describe(having)}, {gone}"
    if all(key(v) > key(judged) for v in having):
        return f"{option} is a dynamo.sglang flag of Dynamo {describe(having)}, added after Dynamo {judged}"
    return f"{option} is a dynamo.sglang flag of Dynamo {describe(having)}, not of Dynamo {judged}"


def _flag(d: dict) -> Flag:
    return Flag(dest=d["dest"], option_strings=tuple(d["option_strings"]), action=d["action"], type=d.get("type"),
                nargs=d.get("nargs"), choices=tuple(d["choices"]) if d.get("choices") else None,
                default=d.get("default"), const=d.get("const"), required=bool(d.get("required")),
                deprecated=d.get("deprecated"), hidden=bool(d.get("hidden")), help=d.get("help") or "",
                source=d.get("source") or "")


def _sglang_table(base: FlagTable, data: dict) -> FlagTable:
    """SGLang's table as Dynamo's SGLang-only parser builds it."""
    flags = []
    for f in base.flags:
        ov = data.get("sglang_overrides", {}).get(f.dest)
        if ov and ov.get("extra_choices") and f.choices is not None:
            f = replace(f, choices=tuple(f.choices) + tuple(ov["extra_choices"]))
        flags.append(f)
    for d in data["flags"]:
        if d.get("parser") != "sglang":
            continue
        cond = d.get("condition") or {}
        if any(base.lookup(o) for o in cond.get("requires_absent", ())):
            continue
        if not all(base.lookup(o) for o in cond.get("requires_present", ())):
            continue
        flags.append(_flag(d))
    return FlagTable(base.version, flags, base.wheel)


def wrap(tokens: list, base: FlagTable, image: str = "", entrypoint: str = "",
         version: Optional[str] = None) -> Wrapped:
    """Dynamo's pre-processing of ``tokens`` for the release ``version`` (else the one :func:`pick` names)."""
    version = version or pick(image, entrypoint)
    data = load(version)
    parsers = data["parsers"]
    rest = list(tokens)
    out = Wrapped(version, rest, base)
    if len(parsers) == 1:  # 0.x: one strict parser over Dynamo's and SGLang's options
        union = [f for f in base.flags] + [_flag(d) for d in data["flags"] if d["action"] != "help"]
        out.table = FlagTable(base.version, union, base.wheel)
        out.sglang_tokens = rest
    else:
        for p in parsers:
            if p["name"] == "sglang":
                continue
            table = FlagTable(f"dynamo-{p['name']}", [_flag(d) for d in data["flags"]
                                                       if d.get("parser") == p["name"] and d["action"] != "help"])
            rest, consumed, errors = known_args(table, rest)
            out.consumed += consumed
            out.errors += errors
        rest = _rewrite_disaggregation_mode(rest, data)
        out.table = _sglang_table(base, data)
        out.sglang_tokens = rest
    out.bootstrap_port_overwritten = not any(t.text.startswith("--disaggregation-bootstrap-port") for t in tokens)
    path, key = _last_value(out.consumed, "--disagg-config"), _last_value(out.consumed, "--disagg-config-key")
    if path is not None and key is not None:
        out.disagg = (path, key)  # the engine adapter merges that section as Dynamo does
    out.incomplete = any(t.text.startswith("--disagg-config") for t in out.consumed) and out.disagg is None
    return out


def _last_value(tokens: list, flag: str) -> Optional[TStr]:
    """The value of the last ``flag V`` / ``flag=V`` among Dynamo's consumed tokens."""
    value = None
    for i, t in enumerate(tokens):
        if t.text == flag and i + 1 < len(tokens):
            value = tokens[i + 1]
        elif t.text.startswith(flag + "="):
            value = t[len(flag) + 1:]
    return value


SECTION_FILE = "dynamo_config.yaml"  # what Dynamo's temporary file is called here (it is a mkstemp name)


@dataclass
class Section:
    """What Dynamo's ``--disagg-config F --disagg-config-key K`` gives SGLang: the argv with every
    ``--config`` replaced by ``--config <temporary file>`` holding section K of F."""

    tokens: list
    file: Optional[object] = None  # config_merge.EmbeddedFile of the section, None when unresolved
    path_tok: Optional[TStr] = None  # the temporary file's token (the merge resolves it to ``file``)
    errors: list = field(default_factory=list)
    unresolved: bool = False


def disagg_section(tokens: list, disagg: tuple, resolve: Callable) -> Section:
    """Dynamo's ``_load_disagg_config_section`` + ``_dump_disagg_config_section`` on traced tokens:
    the file must be a mapping holding the key, and the section a mapping (else Dynamo stops with
    ValueError); the section's keys keep their lines in F."""
    from pdlint.engines.sglang.config_merge import EmbeddedFile
    from pdlint.formats import yamltree as yt
    path_tok, key_tok = disagg
    rest, skip = [], False
    for t in tokens:  # _remove_cli_flag_and_value(unknown, "--config")
        if skip:
            skip = False
            continue
        if t.text == "--config":
            skip = True
            continue
        if t.text.startswith("--config="):
            continue
        rest.append(t)
    if path_tok.opaque or key_tok.opaque:
        return Section(rest, unresolved=True)
    src = resolve(path_tok)
    if src is None:
        return Section(rest, unresolved=True)
    doc = src.doc if isinstance(src, EmbeddedFile) else TStr.from_source(src)
    try:
        docs = yt.compose(doc.text)
    except yt.YamlError as e:
        at = max(0, min(e.index, len(doc.text) - 1))
        return Section(rest, errors=[argv_mod.ArgError("config-yaml", doc[at:at + 1] if doc.text else path_tok,
                                                       f"invalid YAML in the disagg config file: "
                                                       f"{e.message_in(doc)}", "--disagg-config")])
    root = yt.Ref(docs[0].root) if docs and docs[0].root is not None else None
    if root is None or not isinstance(yt.deref(root).node, yt.YMap):
        got = "NoneType" if root is None else ("list" if isinstance(yt.deref(root).node, yt.YSeq) else "str")
        return Section(rest, errors=[argv_mod.ArgError(
            "config-not-mapping", doc[:1] if doc.text else path_tok,
            f"Disagg config file must contain a dictionary, got {got}", "--disagg-config")])
    keys = [k for k, _ in yt.map_items(root)]
    section = yt.get(root, key_tok.text)
    if section is None:
        return Section(rest, errors=[argv_mod.ArgError(
            "disagg-key-missing", key_tok,
            f"Disagg config key '{key_tok.text}' not found in {path_tok.text}. Available keys: {keys}",
            "--disagg-config-key")])
    node = yt.deref(section).node
    if not isinstance(node, yt.YMap):
        got = "list" if isinstance(node, yt.YSeq) else ("NoneType" if yt.scalar_value(node) is None else "str")
        return Section(rest, errors=[argv_mod.ArgError(
            "config-not-mapping", yt.node_tstr(doc, section),
            f"Disagg config section '{key_tok.text}' must be a dictionary, got {got}", "--disagg-config-key")])
    note = f"--disagg-config {path_tok.text} --disagg-config-key {key_tok.text}" + \
        (f" ({src.note})" if getattr(src, "note", "") else "")
    # the section as composed in F (anchors and merge keys of F resolved, as yaml.safe_load reads it), its
    # keys sorted as yaml.dump writes the temporary file
    file = EmbeddedFile(src.path, src.abspath, doc, note, root=section, sort_keys=True)
    p = path_tok.pieces[0] if path_tok.pieces else None
    tmp = TStr.at(SECTION_FILE, p.src if p else None, p.offset if p else 0, p.chain if p else (), label="<dynamo>")
    flag = TStr.at("--config", p.src if p else None, p.offset if p else 0, p.chain if p else (), label="<dynamo>")
    return Section(rest + [flag, tmp], file, tmp)


def known_args(table: FlagTable, tokens: list) -> tuple:
    """argparse ``parse_known_args`` over ``table``: (remainder, consumed, errors).
    Unknown options and stray words stay in the remainder, in order."""
    p = argv_mod.parse(table, tokens)
    taken = set()
    for occ in p.occurrences:
        taken.update(occ.indexes)
    errors = [e for e in p.errors if e.kind in ("ambiguous", "missing-value", "invalid-choice", "invalid-type",
                                                "explicit-ignored")]
    for e in errors:
        taken.update(e.indexes)
    remainder = [t for i, t in enumerate(tokens) if i not in taken]
    consumed = [t for i, t in enumerate(tokens) if i in taken]
    return remainder, consumed, errors


def _rewrite_disaggregation_mode(tokens: list, data: dict) -> list:
    """Dynamo reads exact ``--disaggregation-mode V`` / ``=V`` tokens (last wins);
    ``agg``/``pd`` become ``null`` appended at the end, ``encode`` is removed."""
    values = {v["value"]: v for v in data.get("disaggregation_mode_values", [])}
    if not values:
        return tokens
    found = []  # (index, value token, span)
    i = 0
    while i < len(tokens):
        t = tokens[i].text
        if t == "--disaggregation-mode" and i + 1 < len(tokens):
            found.append((i, tokens[i + 1], 2))
            i += 2
            continue
        if t.startswith("--disaggregation-mode="):
            found.append((i, tokens[i][len("--disaggregation-mode="):], 1))
        i += 1
    if not found:
        return tokens
    last_value = found[-1][1]
    rule = values.get(last_value.text)
    if rule is None:
        return tokens
    drop = set()
    for i, _, span in found:
        drop.update(range(i, i + span))
    kept = [t for i, t in enumerate(tokens) if i not in drop]
    if rule.get("removed"):
        return kept
    flag = TStr.at("--disaggregation-mode", *_at(last_value), label="<dynamo>")
    value = TStr.at(rule.get("sglang_receives") or "null", *_at(last_value), label="<dynamo>")
    return kept + [flag, value]


def _at(tok: TStr) -> tuple:
    p = tok.pieces[0] if tok.pieces else None
    return (p.src, p.offset, p.chain) if p else (None, 0, ())
