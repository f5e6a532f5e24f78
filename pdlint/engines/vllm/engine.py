"""The vLLM engine adapter: ``vllm serve``, ``python -m
vllm.entrypoints.openai.api_server`` and Dynamo's ``python -m dynamo.vllm``.

``interpret`` (extract stage) reads the argv the way vLLM's
``FlexibleArgumentParser`` does where it matters here: ``--flag value`` and
``--flag=value``, underscores in option names read as dashes
(``--kv_transfer_config``), the last occurrence wins, ``vllm serve``'s
positional model.  ``--kv-transfer-config`` is parsed as JSON with every
value traced (:mod:`pdlint.engines.vllm.tjson`).  The role is, in order:
Dynamo's ``--disaggregation-mode`` (or its legacy ``--is-prefill-worker`` /
``--is-decode-worker``), the ``kv_role`` (``kv_producer`` prefill,
``kv_consumer`` decode), and for ``kv_both`` (or no KV connector) the role
the launch's structure names (a CRD role, a values section, a script branch).

``candidates`` runs the single-launch vLLM rules, ``pair_candidates`` the
prefill/decode pair rules, ``unit_candidates`` the deployment rules, and
``facts`` tells the engine-independent rules which ports and GPUs a launch
uses.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.engines.vllm import tjson
from pdlint.model import Launch
from pdlint.records import dataclass, field
from pdlint.text import TStr

KV_ROLES = {"kv_producer": "prefill", "kv_consumer": "decode"}
DYNAMO_MODES = {"prefill": "prefill", "decode": "decode", "agg": "null", "aggregated": "null", "pd": "null",
                "prefill_and_decode": "null"}
# switches that take no value (so a following word is not swallowed as their value)
SWITCHES = {
    "--trust-remote-code", "--enforce-eager", "--disable-log-requests", "--enable-log-requests", "--disable-log-stats",
    "--enable-prefix-caching", "--enable-chunked-prefill", "--disable-uvicorn-access-log", "--is-prefill-worker",
    "--is-decode-worker", "--enable-expert-parallel", "--disable-custom-all-reduce", "--enable-auto-tool-choice",
    "--skip-tokenizer-init", "--enable-lora", "--headless", "--disable-hybrid-kv-cache-manager",
    "--disable-frontend-multiprocessing", "--enable-sleep-mode", "--async-scheduling", "--enable-request-id-headers",
    "--enable-force-include-usage", "--enable-multimodal", "--multimodal-worker", "--multimodal-encode-worker",
    "--multimodal-decode-worker", "--use-vllm-tokenizer", "--enable-eplb", "--enable-dbo", "--disable-sliding-window",
    "--enable-prompt-embeds", "--enable-server-load-tracking", "--enable-tokenizer-info-endpoint",
    "--disable-fastapi-docs", "--enable-log-outputs", "--return-tokens-as-token-ids", "--enable-prompt-tokens-details",
    "--disable-cascade-attn", "--migration-limit-none", "--enable-local-indexer",
}
# (without a vLLM flag table only: with one, every short option string is keyed by its flag's long name)
ALIASES = {"-tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size", "-dp": "--data-parallel-size",
           "-q": "--quantization"}
DEFAULT_PORT = 8000
NIXL_PORT_DEFAULT = 5600
P2P_PORT_DEFAULT = 14579


@dataclass
class Opt:
    name: str  # normalised option (--kv-transfer-config)
    name_tok: TStr
    value: Optional[TStr]  # None for switches
    index: int
    extra: list = field(default_factory=list)  # further values of an nargs "+"/N option


@dataclass
class KVConfig:
    tok: TStr  # the whole JSON argument
    node: Optional[tjson.JNode] = None
    error: Optional[tjson.JSONError] = None

    def get(self, *path) -> Optional[tjson.JNode]:
        return self.node.get(*path) if self.node is not None else None

    def text(self, *path) -> Optional[str]:
        n = self.get(*path)
        return None if n is None or n.value is None else str(n.value)

    @property
    def connectors(self) -> list:
        """Connector names (MultiConnector, and Dynamo KVBM's PdConnector, which lists the same way: its members)."""
        name = self.text("kv_connector")
        if name is None:
            return []
        if name in ("MultiConnector", "PdConnector"):
            out = []
            sub = self.get("kv_connector_extra_config", "connectors")
            for c in (sub.value if sub is not None and isinstance(sub.value, list) else []):
                n = c.get("kv_connector")
                if n is not None and isinstance(n.value, str):
                    out.append(n.value)
            return out or [name]
        return [name]


@dataclass
class VllmInfo:
    opts: dict = field(default_factory=dict)  # name -> last Opt
    occurrences: list = field(default_factory=list)  # every Opt in order
    model: Optional[TStr] = None
    positional: list = field(default_factory=list)  # words that are no option's value
    #: the ``--`` that ends the options (the words after it are positional arguments), and the words argparse leaves
    #: over because of it (`vllm serve M --port 8100 -- --port 1`: ``-- --port 1``, "unrecognized arguments")
    dashdash: Optional[TStr] = None
    leftover: list = field(default_factory=list)
    kv: Optional[KVConfig] = None
    #: the ``--kv-transfer-config`` value vLLM keeps when it is ``''`` or ``None``: its converter
    #: (``optional_type(parse_dataclass)``) reads None, a server with no KV transfer (``kv`` is None then)
    kv_none: Optional[TStr] = None
    role_from: str = ""  # what decided launch.role
    dynamo: bool = False
    incomplete: bool = False
    version: Optional[str] = None  # the vLLM release judged against (a flag table)
    pinned: bool = False  # named by config or image tag (else the newest table)
    version_note: Optional[str] = None
    #: the table judged is another release's (no table for the one pinned): "older" / "newer" than it
    approximate: Optional[str] = None
    release: Optional[str] = None  # the release pinned (its table may be another release's: ``version``)
    #: the release pinned is named inside a build's tag (``vllm:vllm-x86_64-cu13-0.25.1-7a33ba9``): a build that
    #: may add options and choices of its own
    build: bool = False
    table: Optional[object] = None  # flags.FlagTable
    lmcache: Optional[dict] = None  # the LMCache config file LMCACHE_CONFIG_FILE names (top-level keys)
    lmcache_path: str = ""
    #: LMCache's per-rank PD port lists (``pd_peer_init_port: [7300, 7301]``, the environment's
    #: ``LMCACHE_PD_PEER_INIT_PORT=7300,7301`` over the file's): key -> (how many ports, where they are written)
    lmcache_ports: dict = field(default_factory=dict)
    config_path: str = ""  # the --config file whose flags are in the argv read
    config_unread: str = ""  # why the --config file was not read (PD022)
    #: (token, message) when vLLM crashes reading the --config file (empty, not a mapping: VLLM051)
    config_crash: Optional[tuple] = None
    tokens: list = field(default_factory=list)  # the argv read: the --config file's flags in their place
    asked: set = field(default_factory=set)  # options whose text a check asked for and pdlint cannot see
    #: option -> the first ``--OPTION.KEY`` name token: FlexibleArgumentParser passes the dotted keys as one more
    #: ``--OPTION JSON`` after every other argument, which replaces a JSON value written for the option
    dotted: dict = field(default_factory=dict)
    #: (Opt, how many keys) of each ``--OPTION.KEY.KEY...`` argument nested past what pdlint traces
    #: (``_DOTTED_TRACED`` keys; the rest of its value is taken as a value pdlint cannot see)
    dotted_deep: list = field(default_factory=list)

    def written_kv(self) -> list:
        """A :class:`KVConfig` for each ``--kv-transfer-config`` value written on the command line (or in the
        ``--config`` file) that is not the value vLLM keeps: argparse converts, and so validates, every
        occurrence (field test rw23/b: a JSON without kv_role stops vLLM although a later
        ``--kv-transfer-config.kv_role`` gives one)."""
        out = []
        for opt in self.occurrences:
            if opt.name != "--kv-transfer-config" or opt.value is None or opt.index < 0 or \
                    (self.kv is not None and opt.value is self.kv.tok) or none_value(opt.value):
                continue
            cfg = KVConfig(opt.value)
            try:
                cfg.node = tjson.parse(opt.value)
            except tjson.JSONError as e:
                cfg.error = e
            except tjson.TooDeep:
                pass
            out.append(cfg)
        return out

    def value(self, name: str) -> Optional[TStr]:
        o = self.opts.get(name)
        return o.value if o is not None else None

    def text(self, name: str) -> Optional[str]:
        v = self.value(name)
        if v is not None and v.opaque:
            self.asked.add(name)
            return None
        return None if v is None else v.text

    def undecided(self) -> list:
        """The options whose value a check asked for and pdlint cannot see (``--tensor-parallel-size $TP``):
        those checks decided nothing.  With them each written JSON config value whose object pdlint cannot see
        (:meth:`unseen_configs`): the KV transfer and config-key checks read every such value."""
        out = [self.opts[n] for n in sorted(self.asked) if n in self.opts]
        return out + [o for o in self.unseen_configs() if not any(o is x for x in out)]

    def unseen_configs(self) -> list:
        """Each written ``--kv-transfer-config`` (VLLM029 and the connector rules read every one) and each other
        option vLLM parses as a config class's JSON (the release's config spec names the class: the key and value
        checks read it) whose value pdlint cannot see as an object: ``--kv-transfer-config=$(KV_TRANSFER_CONFIG)``
        from a ConfigMap of another file (field round rw35/b P2: a clean pass with ``kv_role`` misspelt).  A value
        whose ``{`` is written is seen (its members beside an unseen one are checked)."""
        spec = None
        out = []
        for opt in self.occurrences:
            if opt.index < 0 or opt.value is None or not opt.value.opaque or none_value(opt.value):
                continue
            if opt.name != "--kv-transfer-config":
                if self.table is None or self.version is None or "." in opt.name_tok.text.partition("=")[0]:
                    continue
                if spec is None:
                    from pdlint.engines.vllm import flags
                    spec = flags.config_fields(self.version) or {}
                flag = self.table.resolve(opt.name)[0]
                if flag is None or not _config_option(spec, flag):
                    continue
            if _object_unseen(opt.value):
                out.append(opt)
        return out

    def has(self, name: str) -> bool:
        return name in self.opts

    def int(self, name: str, default: Optional[int] = None) -> Optional[int]:
        if name not in self.opts:
            return default
        t = self.text(name)
        try:
            return int(t) if t is not None else None
        except ValueError:
            return None

    def float(self, name: str) -> Optional[float]:
        t = self.text(name)
        try:
            return float(t) if t is not None else None
        except ValueError:
            return None

    def token(self, name: str) -> Optional[TStr]:
        o = self.opts.get(name)
        if o is None:
            return None
        return o.value if o.value is not None else o.name_tok

    @property
    def kv_role(self) -> Optional[str]:
        return self.kv.text("kv_role") if self.kv is not None else None


def _config_option(spec: dict, flag) -> bool:
    """Does the release's config spec name a config class ``flag``'s value becomes (its JSON is checked)?"""
    classes = spec.get("classes") or {}
    return any((spec.get(part) or {}).get(o) in classes for part in ("options", "engine_options")
               for o in flag.option_strings)


def _object_unseen(tok: TStr) -> bool:
    """Is the JSON object ``tok`` holds unseen: its first non-blank character is part of a value pdlint cannot
    see (``$(KV_TRANSFER_CONFIG)``, ``$KV_CFG``), or it is all blanks and such values?"""
    text = tok.text
    at = len(text) - len(text.lstrip())
    if at >= len(text):
        return tok.opaque
    return any(p.opaque and p.start <= at < p.end for p in tok.pieces)


def none_value(tok: TStr) -> bool:
    """A config option's value vLLM reads as None (vllm/engine/arg_utils.py ``optional_type``: ``""`` or
    ``"None"``, in every release pdlint has a table for)."""
    return not tok.opaque and tok.text in ("", "None")


def normalise(name: str) -> str:
    if name in ALIASES:
        return ALIASES[name]
    if name.startswith("--"):
        return "--" + name[2:].replace("_", "-")
    return name


def parse_argv(tokens: list, entrypoint: str, table=None) -> VllmInfo:
    """Read the argv; with a flag ``table`` (:mod:`pdlint.engines.vllm.flags`) whether an option takes a
    value comes from the release's own definition, else from the ``SWITCHES`` list."""
    info = VllmInfo(dynamo=entrypoint.startswith("python -m dynamo."))
    positional = []
    at: list = []  # the index of each positional word
    end = 0  # where the words after the last option start
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        text = t.text
        if text == "--" and not t.opaque and _argparse_table(table):
            # argparse: `--` ends the options, every word after it is a positional argument (field round rw28/b P3)
            positional = _after_end_of_options(info, positional, at, end, t, tokens[i + 1:])
            break
        if t.opaque and not text.startswith("-"):
            if positional:  # an unknown word after the model may hold any options
                info.incomplete = True
            positional.append(t)
            at.append(i)
            i += 1
            continue
        if text == "-O" and i + 1 < n and tokens[i + 1].text in ("0", "1", "2", "3") and table is not None and \
                table.lookup("--optimization-level"):
            # `-O 3`: FlexibleArgumentParser makes it `--optimization-level 3` (only for a level 0-3)
            opt = Opt("--optimization-level", t, tokens[i + 1], i)
            info.opts[opt.name] = opt
            info.occurrences.append(opt)
            i += 2
            end = i
            continue
        if text.startswith("-O") and len(text) > 2 and table is not None and (
                table.lookup("--optimization-level") or (table.lookup("-O") and text[2] != ".")):
            # `-O3`, `-O=3`, `-Odecode`: FlexibleArgumentParser splits it into `--optimization-level 3` (vLLM 0.12
            # and later; `-O 3`, the compilation config's short option, before): not an unknown option.  From
            # 0.12 `-O.cudagraph_mode=X` too is `--optimization-level .cudagraph_mode=X` (argparse_utils.py:395;
            # before, a dotted key of the compilation config: field test rw23/b)
            value = t[3:] if text[2] == "=" else t[2:]
            # (before 0.12, -O is --compilation-config's short option: keyed by that long name)
            norm = "--optimization-level" if table.lookup("--optimization-level") else table.lookup("-O").primary
            opt = Opt(norm, t[:2], value, i)
            info.opts[norm] = opt
            info.occurrences.append(opt)
            i += 1
            end = i
            continue
        if text.startswith("-") and len(text) > 1 and not _number(text):
            name, eq, _ = text.partition("=")
            norm = normalise(name)
            joined = False
            if _argparse_table(table) and "." not in name and table.lookup(norm) is None and \
                    not (info.dynamo and _dynamo_option(norm)):
                # a prefix (`--tensor-parallel 2`, `-t 2` for `-tp`): keyed by the option argparse resolves it to,
                # so the checks read its value (field round rw28/b P9); argparse matches a short option against
                # the whole word (`-t=2` abbreviates nothing) and takes a single-letter one's value joined (`-qfp8`)
                short = not name.startswith("--")
                flag, how, matched = table.match(text if short else name)
                if flag is not None and how == "abbrev":
                    joined = short and len(matched) == 2 and len(text) > 2
                    norm = matched if matched.startswith("--") else flag.primary
                elif short and eq:
                    norm = text  # (VLLM018 names the whole word, as argparse does)
            elif _argparse_table(table) and not name.startswith("--") and "." not in name and \
                    table.lookup(norm) is not None:
                # a short option string (`-ep`, `-dpl 2`, `-cc JSON`): keyed by its long name, the dest argparse
                # stores it under, so the checks that read the long name see it (rw28/b P9's follow-up)
                norm = table.lookup(norm).primary
            if joined:
                opt = Opt(norm, t[:2], t[2:], i)
                i += 1
            elif eq:
                opt = Opt(norm, t[:len(name)], t[len(name) + 1:], i)
                i += 1
            elif _switch(norm, table) or i + 1 >= n or \
                    _option_word(tokens[i + 1].text, table):
                opt = Opt(norm, t, None, i)
                i += 1
            else:
                opt = Opt(norm, t, tokens[i + 1], i)
                i += 2
                more = _extra_values(norm, table)
                while more and i < n and not _option_word(tokens[i].text, table):
                    opt.extra.append(tokens[i])  # nargs "+" / N: the following words are its values too
                    i += 1
                    more -= 1
            info.opts[norm] = opt
            info.occurrences.append(opt)
            end = i
            continue
        positional.append(t)
        at.append(i)
        i += 1
    info.positional = positional
    try:
        _dotted_json_args(info, table)
    except RecursionError:  # (bounded below; should it still overflow, the merged values are unseen, not a PD013)
        for opt in info.occurrences:
            base = opt.name_tok.text.partition(".")[0] if "." in opt.name_tok.text else ""
            if base.startswith("-") and opt.value is not None:
                info.opts[normalise(base)] = Opt(normalise(base), opt.name_tok,
                                                 TStr.synthetic("{}", "<argv>", opaque=True), -1)
    if "--model" in info.opts and info.value("--model") is not None:
        info.model = info.value("--model")
    elif positional and entrypoint == "vllm serve":
        info.model = positional[0]
    kv = info.value("--kv-transfer-config")
    if kv is not None and none_value(kv):
        info.kv_none = kv  # (`--kv-transfer-config "$KV_CFG"` with the variable empty: field round rw28/b P2)
    elif kv is not None:
        cfg = KVConfig(kv)
        try:
            cfg.node = tjson.parse(kv)
        except tjson.JSONError as e:
            cfg.error = e
        except tjson.TooDeep:
            pass  # valid JSON nested too deeply to trace: its values stay unknown
        info.kv = cfg
    return info


def _after_end_of_options(info: VllmInfo, positional: list, at: list, end: int, dashes: TStr, after: list) -> list:
    """The positional words of an argv with ``--`` in it, as CPython 3.11's argparse reads them against vLLM's one
    optional positional (``model_tag``, nargs ``?``; the api_server's parser has it too); sets ``info.dashdash`` and
    ``info.leftover``, the words argparse leaves over (``unrecognized arguments``).  argparse matches positionals
    greedily once, on the first run of words that are no option: when the model was taken before the last option,
    the words after that option, the ``--`` and what follows are left over; else the model's pattern (``-*A?-*``)
    takes the first word after the last option and a ``--`` right after it (or the ``--`` and the word after it),
    and the rest is left over.  Checked with vLLM 0.33.0's `vllm serve` parser: `M --port 8100 --` ->
    "unrecognized arguments: --", `M -- --port 1` -> "unrecognized arguments: --port 1", `-- M` and `--port 8100 --
    M` -> model M, `-- -- M` -> "unrecognized arguments: M"."""
    info.dashdash = dashes
    before = [tok for tok, k in zip(positional, at) if k < end]  # (words before the last option)
    final = [tok for tok, k in zip(positional, at) if k >= end]
    if before:
        info.leftover = final + [dashes] + after
        return before
    if not final:
        info.leftover = after[1:]
        return after[:1]
    info.leftover = after if len(final) == 1 else final[1:] + [dashes] + after
    return final[:1]


#: keys of one ``--OPTION.KEY.KEY...`` argument pdlint builds into the option's JSON value (vLLM nests each key in
#: a dict, and its json.dumps stops near Python's recursion limit: about 990 levels); deeper, the value is
#: unseen (1,000 keys overflowed pdlint's own recursion: a PD013 lost the launch, hostile-input test rw26/h)
_DOTTED_TRACED = 100


def _dotted_json_args(info: VllmInfo, table=None) -> None:
    """``--kv-transfer-config.kv_role kv_producer`` (``--OPTION.KEY[.KEY] VALUE``, ``KEY+`` for a comma list):
    FlexibleArgumentParser merges every dotted argument of one option into one JSON object and passes it after
    all other arguments (vllm/utils/argparse_utils.py), so it is the option's value.  Built here as JSON text
    whose keys and values are the written words (each value read as JSON, else as a string)."""
    import json
    merged: dict = {}  # base option -> (nested dict of (key, value TStr) leaves, first name token)
    for opt in info.occurrences:
        name = opt.name_tok.text
        if not name.startswith("-") or "." not in name or opt.value is None or opt.name_tok.opaque:
            continue
        base, _, rest = name.partition(".")
        keys = rest.split(".")
        if not all(keys):
            continue
        # (one JSON per base as written, `--kv-transfer` and `--kv-transfer-config` two, as in vLLM; each the value of
        # the option argparse resolves the base to: a prefix too, field round rw28/b P1)
        tree, _ = merged.setdefault(normalise(base), ({}, opt.name_tok))
        info.dotted.setdefault(_dotted_base(base, table), opt.name_tok)
        value = opt.value
        if len(keys) > _DOTTED_TRACED:
            info.dotted_deep.append((opt, len(keys)))
            keys, value = keys[:_DOTTED_TRACED], TStr.synthetic("{}", "<argv>", opaque=True)
        for k in keys[:-1]:
            tree = tree.setdefault(k, {}) if isinstance(tree.get(k, {}), dict) else {}
        tree[keys[-1]] = value
    lit = lambda text: TStr.synthetic(text, "<argv>")  # noqa: E731

    def dump(node) -> TStr:
        if isinstance(node, dict):
            parts = [lit("{")]
            for i, (k, v) in enumerate(node.items()):
                key = k[:-1] if k.endswith("+") and not isinstance(v, dict) else k
                parts += [lit(", ")] * bool(i) + [lit(json.dumps(key) + ": "), leaf(k, v) if not isinstance(v, dict)
                                                    else dump(v)]
            return TStr.join(parts + [lit("}")])
        return node

    def leaf(key: str, tok: TStr) -> TStr:
        if tok.opaque:
            return tok
        if key.endswith("+"):  # a comma-separated list
            return lit(json.dumps(tok.text.split(",")))
        try:
            json.loads(tok.text)
            return tok
        except (ValueError, RecursionError):
            return TStr.join([lit('"'), tok, lit('"')]) if json.dumps(tok.text) == f'"{tok.text}"' \
                else lit(json.dumps(tok.text))

    for base, (tree, name_tok) in merged.items():
        name = _dotted_base(base, table)
        opt = Opt(name, name_tok, dump(tree), -1)
        info.opts[name] = opt  # after every written occurrence: it wins, as in vLLM


def _dotted_base(base: str, table) -> str:
    """The option a dotted argument's base (``--kv-transfer`` of ``--kv-transfer.kv_role``) gives its JSON to: the
    one argparse resolves the base to (a prefix too), else the base as written."""
    name = table.canonical(base) if table is not None else None
    return name or normalise(base)


def _extra_values(norm: str, table) -> int:
    """How many more words an option may take after its first value (nargs "+"/"*": any, N: N - 1)."""
    if table is None:
        return 0
    flag, how = table.resolve(norm)
    if flag is None and how == "unknown" and norm.startswith("--"):
        # an option of another release (`--cuda-graph-sizes 1 2 4`, list-valued up to 0.11 and gone since):
        # its words are taken as that release took them, not as stray positionals (VLLM020 names the option)
        flag = _other_release_flag(norm)
    if flag is None or how == "dotted":
        return 0
    if flag.nargs in ("+", "*"):
        return 1 << 30
    return flag.nargs - 1 if isinstance(flag.nargs, int) and flag.nargs > 1 else 0


def _other_release_flag(norm: str):
    """The newest definition of an option the judged release lacks, from the release tables that have it."""
    from pdlint.engines.vllm import flags as vflags
    have = vflags.releases_with(norm)
    return vflags.load(have[-1]).lookup(norm) if have else None


def _switch(norm: str, table) -> bool:
    if table is not None:
        flag, how = table.resolve(norm)
        if flag is None and how == "unknown" and norm.startswith("--"):
            flag = _other_release_flag(norm)  # (an option of another release: as it was)
        if flag is not None and how != "dotted":
            return not flag.takes_value and not flag.optional_value
    return norm in SWITCHES or norm.startswith("--no-")


def _argparse_table(table) -> bool:
    """A vLLM flag table (argparse's rules: prefixes, option-like words); not another parser's (TensorRT-LLM's click
    commands pass a resolver of their own)."""
    from pdlint.engines.vllm.flags import FlagTable
    return isinstance(table, FlagTable)


def _dynamo_option(name: str) -> bool:
    """An option of Dynamo's vLLM worker (its parser reads it before vLLM's: `--kv-events` is not an abbreviation of
    vLLM's `--kv-events-config` there)."""
    from pdlint.engines.vllm.flags import dynamo_vllm_options
    return name in dynamo_vllm_options()


_NEGATIVE_NUMBER = lazyre.compile(r"^-\d+$|^-\d*\.\d+$")  # (argparse's _negative_number_matcher)


def _option_word(text: str, table) -> bool:
    """Does argparse read ``text`` as an option (which no option takes as its value) rather than as a value?  As
    ``_parse_optional`` decides it (CPython 3.11; vLLM's parser has no option that looks like a negative number):
    a word starting with ``-`` but a negative number (``-1``, ``-.5``; not ``-1e3``) or a word with a space that
    names no option before its ``=`` (a Kubernetes ``args:`` item ``-llama 8b`` is a value); ``--`` ends the
    options, so it is no value either.  Without a table, any ``-`` word that is no number."""
    if not text.startswith("-"):
        return False
    if not _argparse_table(table):
        return not _number(text)
    if len(text) == 1 or _NEGATIVE_NUMBER.match(text):
        return False
    if " " in text:
        if text[1] != "-":
            # (argparse's prefix matching comes before its "a word with a space is a value" rule: a single-dash
            # word whose first two characters are a short option is that option, its value joined - `"-q fp8"` is
            # -q with " fp8", and `--served-model-name "-q fp8"` has no name: "expected at least one argument"
            # (vLLM 0.33.0's parser, field report rw29/h P10); `"-tp 2"`, `"-e x"` are values)
            return table.resolve(text)[1] != "unknown"
        from pdlint.engines.vllm.flags import normalise as flag_name
        return table.lookup(flag_name(text.split("=", 1)[0])) is not None
    return True


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def release(launch: Launch, ctx) -> tuple:
    """``(version, pinned, note, approximate, release pinned)`` of the vLLM release to judge against: the config's
    ``vllm-version``, else the image tag (``vllm/vllm-openai:v0.10.2``), else the newest table (not pinned);
    ``approximate``: "older" / "newer" when the table is another release's than the one pinned, "unreleased" for
    an image whose tag names no release (a nightly or custom build, which may have options and choices no
    table has: only what looks like a typo of the table's is reported)."""
    from pdlint.engines.vllm import flags
    requested = getattr(ctx, "vllm_version", None) or flags.image_version(launch.meta.get("image", "") or "") \
        or (launch.meta.get("pins") or {}).get("vllm")  # (`vllm==0.7.3` beside the script: pdlint.formats.pins)
    dyn = None
    if not requested and (launch.entrypoint or "").endswith("dynamo.vllm"):
        dyn = flags.dynamo_pin(launch.meta.get("image", "") or "")  # the vLLM a Dynamo runtime image installs
        if dyn is not None:
            requested = dyn[1]
    version, pinned, note = flags.pick(requested)
    if dyn is not None:
        note = f"{note}; Dynamo {dyn[0]}'s image installs vLLM {dyn[1]}" if note else note
    elif note and not getattr(ctx, "vllm_version", None) and flags.ascend_image(launch.meta.get("image", "") or ""):
        image = launch.meta["image"]
        note = f"{note} (image {image} is vLLM Ascend's release for vLLM {flags.image_version(image)})"
    approximate = None
    if pinned and version and requested and version != requested.lstrip("v"):
        approximate = "older" if flags.version_key(version) < flags.version_key(requested.lstrip("v")) else "newer"
    elif not requested and flags.unreleased_image(launch.meta.get("image", "") or ""):
        approximate = "unreleased"
        note = (f"image {launch.meta['image']} names no vLLM release; judged against {version}, the newest table "
                f"(an option or value no table has is left to the build: VLLM047 names the options)")
    return version, pinned, note, approximate, (requested.lstrip("v") if pinned and requested else None)


#: a TPU build of vLLM (vllm/vllm-tpu, tpu-inference), its chip mask, or its KV connector: no CUDA GPU indices
_TPU_IMAGE = lazyre.compile(r"(?:^|/)(?:vllm-tpu|tpu-inference)(?:[:@]|$)")
_TPU_ENV = ("TPU_VISIBLE_CHIPS", "TPU_CHIPS_PER_PROCESS_BOUNDS", "TPU_PROCESS_BOUNDS")


def _tpu(launch: Launch, connectors) -> bool:
    """A launch on TPUs (vllm-project/tpu-inference's disagg examples, field test rw7/a): the GPU placement
    rules (PD151-PD153) do not apply."""
    return bool(_TPU_IMAGE.search(launch.meta.get("image", "") or "")) or "TPUConnector" in connectors or \
        any(k in launch.env for k in _TPU_ENV)


def _lmcache_config(launch: Launch, info: VllmInfo, ctx) -> None:
    """Read the LMCache config file ``LMCACHE_CONFIG_FILE`` names (a flat YAML mapping), when it is in the repo."""
    tok = launch.env.get("LMCACHE_CONFIG_FILE")
    if tok is not None and tok.opaque:
        # $SCRIPT_DIR/configs/x.yaml with SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)": the path
        # relative to the script (the shell front-end's script-directory idiom)
        from pdlint.formats.shell.builtins import script_relative_token
        tok = script_relative_token(tok)
    if tok is None or tok.opaque or ctx is None or not hasattr(ctx, "resolve_config"):
        return
    src = ctx.resolve_config(tok, launch)
    if src is None:
        return
    import yaml
    try:
        data = yaml.load(src.text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return
    if isinstance(data, dict):
        info.lmcache = {str(k): v for k, v in data.items() if not isinstance(v, (dict, list))}
        info.lmcache_path = src.path
        if any(k in data for k in LMCACHE_PORT_KEYS):
            _lmcache_port_lists(src, info, data)


#: LMCache's PD port lists, indexed by the worker's rank (lmcache/v1/storage_backend/pd_backend.py
#: PDConfig.from_cache_engine_config), with the older names its config still reads (lmcache/v1/config.py
#: _CONFIG_ALIASES): new name -> old name
LMCACHE_PORT_KEYS = {"pd_peer_init_port": "nixl_peer_init_port", "pd_peer_alloc_port": "nixl_peer_alloc_port",
                     "pd_peer_query_port": None}


def _lmcache_port_lists(src, info: VllmInfo, data: dict) -> None:
    """``info.lmcache_ports`` from the LMCache config file ``src``, whose mapping PyYAML read as ``data``: each port
    key's list (a number is a list of one, as LMCache's ``_to_int_list`` reads it; an older name only as a list),
    located at its value, or at the key's line where the file is too large to trace (over the node bound: one long
    unrelated list of 21,000 items, hostile-input test rw26/h, made the lists unknown and VLLM050 silent)."""
    from pdlint.formats import yamltree as yt
    from pdlint.text import TStr
    try:
        docs = yt.compose(src.text, max_nodes=20_000)
    except (yt.YamlError, RecursionError):
        docs = None
    if docs is not None and (not docs or docs[0].root is None
                             or not isinstance(yt.deref(yt.Ref(docs[0].root)).node, yt.YMap)):
        return
    doc = TStr.from_source(src)
    root = yt.Ref(docs[0].root) if docs is not None else None
    for key, old in LMCACHE_PORT_KEYS.items():
        for name in (key, old):
            if not name:
                continue
            if root is None:  # (the values PyYAML read, at the key's line)
                if name not in data:
                    continue
                value, at = data[name], _key_line(src, doc, name)
                if isinstance(value, list) and value:
                    info.lmcache_ports[key] = (len(value), at, name)
                elif name == key and not isinstance(value, bool) and re.fullmatch(r"\d+", str(value)):
                    info.lmcache_ports[key] = (1, at, name)
                break
            ref = yt.get(root, name)
            if ref is None:
                continue
            node = yt.deref(ref).node
            if isinstance(node, yt.YSeq) and node.items:
                info.lmcache_ports[key] = (len(node.items), yt.node_tstr(doc, ref), name)
            elif name == key and isinstance(node, yt.YScalar) and re.fullmatch(r"\d+", node.value or ""):
                info.lmcache_ports[key] = (1, yt.node_tstr(doc, ref), name)
            break


def _key_line(src, doc, name: str):
    """Where a top-level key ``name:`` of a YAML mapping is written (a line that starts with it, quoted or not),
    else the file's first line."""
    m = re.search(rf"""(?m)^(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')[ \t]*:""", src.text)
    if m is not None:
        return doc.span(m.start(), m.end() - 1)
    first = src.text.find("\n")
    return doc.span(0, first if first > 0 else len(src.text))


def _lmcache_env_ports(launch: Launch, info: VllmInfo) -> None:
    """The environment's port lists over the file's (LMCache's update_config_from_env):
    ``LMCACHE_PD_PEER_INIT_PORT=7300,7301``."""
    for key in LMCACHE_PORT_KEYS:
        tok = launch.env.get("LMCACHE_" + key.upper())
        if tok is None:
            continue
        if tok.opaque or not re.fullmatch(r"\s*\d+\s*(?:,\s*\d+\s*)*,?\s*", tok.text):
            info.lmcache_ports.pop(key, None)  # (a value pdlint cannot see replaces the file's)
            continue
        info.lmcache_ports[key] = (len([p for p in tok.text.split(",") if p.strip()]), tok,
                                   "LMCACHE_" + key.upper())


def _config_crash(src, path_tok: TStr) -> Optional[tuple]:
    """``(token, message)`` when vLLM's FlexibleArgumentParser.load_config_file crashes on a ``--config`` file that
    is valid YAML: an empty one (``yaml.safe_load`` gives None), a list or a scalar at the top (``config.items()``:
    AttributeError), a key YAML reads as no string (``"--" + key``: TypeError); None otherwise (a mapping of flags,
    or a file pdlint reads otherwise: invalid YAML, over its limits)."""
    from pdlint.formats import yamltree as yt
    try:
        docs = yt.compose(src.text)
        if len(docs) > 1 or yt.safe_load_refusal(docs) is not None:
            return None
    except (yt.YamlError, RecursionError):
        return None
    doc = TStr.from_source(src)
    root = docs[0].root if docs else None
    node = yt.deref(yt.Ref(root)).node if root is not None else None
    if node is None or (isinstance(node, yt.YScalar) and yt.scalar_value(node) is None):
        return (path_tok, f"{src.path} holds no YAML mapping (empty: yaml.safe_load reads None), and vLLM crashes "
                          f"reading it: AttributeError: 'NoneType' object has no attribute 'items'")
    if not isinstance(node, yt.YMap):
        kind = "list" if isinstance(node, yt.YSeq) else type(yt.scalar_value(node)).__name__
        return (doc[root.start:root.end] or path_tok,
                f"the top level of {src.path} is a {'list' if kind == 'list' else 'scalar'}, not a mapping of flags, "
                f"and vLLM crashes reading it: AttributeError: '{kind}' object has no attribute 'items'")
    from pdlint.engines.sglang.config_merge import loaded_pairs
    for knode, _ in loaded_pairs(yt.Ref(root)):
        typed = yt.scalar_value(knode)
        if not isinstance(typed, str):
            return (yt.scalar_tstr(doc, yt.Ref(knode)),
                    f"the key {knode.value} is read by YAML as {type(typed).__name__} {typed!r}, not a flag name, "
                    f"and vLLM crashes reading the file: TypeError: can only concatenate str (not "
                    f"\"{type(typed).__name__}\") to str")
    return None


def _with_config_file(launch: Launch, ctx, table, info_crash: Optional[list] = None) -> tuple:
    """``(argv, config path, why unread)``: the launch's argv with the flags of its ``--config PATH`` YAML
    file put where vLLM puts them (FlexibleArgumentParser._pull_args_from_config: after ``vllm serve``'s
    positional model, else first; the command line's own flags after them win), or the argv as written with
    the reason the file was not read (coverage's PD022)."""
    argv = list(launch.argv)
    at = next((i for i, t in enumerate(argv) if t.text == "--config"), None)
    if at is None:  # (`--config=PATH` is stored, not loaded: VLLM028)
        return argv, "", ""
    if at + 1 >= len(argv):
        return argv, "", "has no path after it"
    tok = argv[at + 1]
    if tok.opaque:
        return argv, "", "is a value pdlint cannot see"
    if ctx is None or not hasattr(ctx, "resolve_config"):
        return argv, "", "was not found in the repository"
    src = ctx.resolve_config(tok, launch)
    if src is None:
        from pdlint.coverage import not_found
        return argv, "", launch.meta.get("config_refused") or not_found(launch, tok.text)
    loader = _Loader(getattr(table, "version", None) or "")
    # `vllm serve`'s file is read by the top-level `vllm` parser, which knows no --no-FLAG: a false key adds
    # nothing there; the api_server's (and Dynamo's) own parser adds --no-FLAG where the release has one
    rest = argv[:at] + argv[at + 2:]
    crash = _config_crash(src, tok)
    if crash is not None:  # (vLLM stops reading it: VLLM051; the command line's own options are still read)
        if info_crash is not None:
            info_crash[:] = [crash]
        return rest, src.path, ""
    config = _config_args(src, table if loader.no_flags and launch.entrypoint != "vllm serve" else None, loader)
    if config is None:
        return argv, "", f"could not be read as vLLM reads it (a YAML mapping of flags): see {src.path}"
    if launch.entrypoint == "vllm serve" and rest and not rest[0].text.startswith("-"):
        return rest[:1] + config + rest[1:], src.path, ""  # the positional model stays first
    if launch.entrypoint != "vllm serve" and not loader.options_first and rest:
        return rest[:1] + config + rest[1:], src.path, ""  # 0.9.2: after the first word, whatever it is
    return config + rest, src.path, ""


class _Loader:
    """How a release's FlexibleArgumentParser turns a --config file into arguments (its source, per release):
    ``--no-FLAG`` for false (0.33.0 on; before, false adds nothing), list items as arguments (0.10.2 on; 0.9.2
    passes the list's Python repr), a mapping as JSON (0.20.0 on; before, its Python repr, which the JSON
    options then refuse), and for an entry point without a sub-command (the api_server) the file's flags first
    (0.10.2 on; 0.9.2 puts them after the first word)."""

    def __init__(self, version: str):
        from pdlint.engines.vllm.flags import version_key
        v = version_key(version) if version else ()
        newest = not v  # no table: the newest loader
        self.no_flags = newest or v >= version_key("0.33.0")
        self.list_items = newest or v >= version_key("0.10.2")
        self.json_maps = newest or v >= version_key("0.20.0")
        self.options_first = newest or v >= version_key("0.10.2")


def _config_args(src, table, loader: Optional["_Loader"] = None) -> Optional[list]:
    """The argv vLLM makes of a ``--config`` file (FlexibleArgumentParser.load_config_file): ``--key VALUE``
    per top-level key, ``--key`` for true (``--no-key`` for false when ``table``, the parser's, has it),
    ``--key ITEM...`` for a list, ``--key JSON`` for a mapping (as ``loader``, the release's, does them);
    every token positioned at its key or value.  None when the file is not a YAML mapping (vLLM stops) or is
    over pdlint's limits."""
    from pdlint.formats import yamltree as yt
    doc = TStr.from_source(src)  # (an EmbeddedFile's traced doc)
    try:
        docs = yt.compose(src.text)
        if len(docs) != 1 or docs[0].root is None or not isinstance(docs[0].root, yt.YMap):
            return None
        if yt.safe_load_refusal(docs) is not None:  # a tag or a list key yaml.safe_load stops on
            return None
        return mapping_args(doc, yt.Ref(docs[0].root), table, loader, src.path)
    except (yt.YamlError, RecursionError):  # invalid YAML, or over a limit (alias / merge-key bombs)
        return None


def mapping_args(doc: TStr, root, table, loader: Optional["_Loader"] = None, path: str = "") -> list:
    """The arguments of a YAML mapping of vLLM options (a ``--config`` file's, Ray Serve LLM's
    ``engine_kwargs``), as :func:`_config_args` makes them."""
    loader = loader or _Loader("")
    import json
    from pdlint.engines.sglang.config_merge import flag_token, list_tokens, loaded_pairs, placed
    from pdlint.formats import yamltree as yt
    out: list = []
    for knode, vref in loaded_pairs(root):
        ktok = yt.scalar_tstr(doc, yt.Ref(knode))
        flag = flag_token(ktok, knode.value, path)
        target = yt.deref(vref).node
        if isinstance(target, yt.YScalar):
            value = yt.scalar_value(target)
            vtok = yt.scalar_tstr(doc, vref)
            if value is True:
                out.append(flag)
            elif value is False:
                no = "--no-" + knode.value
                if table is not None and table.resolve(no)[1] == "exact":
                    out.append(placed(flag, no))
            else:
                out += [flag, placed(vtok, str(value), at=vtok if vtok.text else ktok)]
        elif isinstance(target, yt.YSeq) and not loader.list_items:
            out += [flag, placed(yt.node_tstr(doc, vref), str(yt.to_python(vref)))]
        elif isinstance(target, yt.YSeq):
            items = list_tokens(doc, vref)
            if items:
                out += [flag, *items]
        elif isinstance(target, yt.YMap) and not loader.json_maps:
            out += [flag, placed(yt.node_tstr(doc, vref), str(yt.to_python(vref)))]
        elif isinstance(target, yt.YMap):
            text = json.dumps(yt.to_python(vref))  # what vLLM passes (its limits: the document's budget)
            traced = _json_tstr(doc, vref, [_JSON_NODES])
            out += [flag, traced if traced is not None and traced.text == text
                    else placed(yt.node_tstr(doc, vref), text)]
    return out


_JSON_NODES = 2000  # nodes of one mapping value traced character by character (beyond: one position)


def _json_tstr(doc: TStr, ref, budget: list) -> Optional[TStr]:
    """``json.dumps`` of a YAML mapping / list / scalar as a traced string: every key and value written
    where it is in the file (a value vLLM then reads as JSON keeps its line); None past ``budget`` nodes."""
    import json
    from pdlint.engines.sglang.config_merge import placed
    from pdlint.formats import yamltree as yt
    budget[0] -= 1
    if budget[0] < 0:
        return None
    r = yt.deref(ref)
    node = r.node
    lit = lambda text: TStr.synthetic(text, "<config>")  # noqa: E731
    if isinstance(node, yt.YScalar):
        value = yt.scalar_value(node)
        vtok = yt.scalar_tstr(doc, ref)
        text = json.dumps(value)
        if isinstance(value, str) and text == f'"{value}"' and vtok.text == value:
            return TStr.join([lit('"'), vtok, lit('"')])
        return placed(vtok, text) if vtok.pieces else lit(text)
    parts: list = []
    at = doc[node.start:node.start + 1]  # the opening bracket stands where the mapping / list starts
    if isinstance(node, yt.YSeq):
        parts.append(placed(at, "[") if at.pieces else lit("["))
        for i, item in enumerate(yt.seq_items(ref)):
            sub = _json_tstr(doc, item, budget)
            if sub is None:
                return None
            parts += [lit(", ")] * bool(i) + [sub]
        parts.append(lit("]"))
    elif isinstance(node, yt.YMap):
        parts.append(placed(at, "{") if at.pieces else lit("{"))
        for i, (key, vref) in enumerate(yt.map_items(ref)):
            sub = _json_tstr(doc, vref, budget)
            if sub is None:
                return None
            knode = yt.key_node(ref, key)
            ktok = yt.scalar_tstr(doc, yt.Ref(knode)) if knode is not None else lit(key)
            ktext = json.dumps(str(key))
            kt = TStr.join([lit('"'), ktok, lit('"')]) if ktext == f'"{key}"' and ktok.text == key else lit(ktext)
            parts += [lit(", ")] * bool(i) + [kt, lit(": "), sub]
        parts.append(lit("}"))
    else:
        return None
    return TStr.join(parts)


def interpret(launch: Launch, ctx) -> None:
    from pdlint.engines.vllm import flags
    version, pinned, note, approximate, pinned_release = release(launch, ctx)
    table = flags.load(version) if version else None
    crash: list = []
    argv, config_path, config_unread = _with_config_file(launch, ctx, table, crash)
    info = parse_argv(argv, launch.entrypoint, table)
    info.config_crash = crash[0] if crash else None
    info.version, info.pinned, info.version_note, info.table = version, pinned, note, table
    info.approximate, info.release = approximate, pinned_release
    info.build = bool(pinned_release) and not getattr(ctx, "vllm_version", None) and \
        flags.build_tag(launch.meta.get("image", "") or "")
    info.config_path, info.config_unread, info.tokens = config_path, config_unread, argv
    if config_unread:
        # vLLM reads further flags from that YAML file (FlexibleArgumentParser's --config), which pdlint could
        # not read: what the command line lacks may be there (coverage: PD022)
        info.incomplete = True
    _lmcache_config(launch, info, ctx)
    _lmcache_env_ports(launch, info)
    launch.parsed = info
    launch.incomplete = launch.incomplete or info.incomplete
    role, how = None, ""
    if info.dynamo:
        mode = info.text("--disaggregation-mode")
        if mode is not None and mode.lower() in DYNAMO_MODES:
            role, how = DYNAMO_MODES[mode.lower()], "--disaggregation-mode"
        elif info.has("--is-prefill-worker") and not info.has("--is-decode-worker"):
            role, how = "prefill", "--is-prefill-worker"
        elif info.has("--is-decode-worker") and not info.has("--is-prefill-worker"):
            role, how = "decode", "--is-decode-worker"
    if role is None:
        kr = info.kv_role
        if kr in KV_ROLES:
            role, how = KV_ROLES[kr], f"kv_role {kr}"
    if role is None and launch.structural_role in ("prefill", "decode"):
        role, how = launch.structural_role, launch.meta.get("role_how") or "structure"
    if role is None and info.kv is None and not info.dynamo and not launch.incomplete:
        role, how = "null", "no KV connector"
    if role is None and info.dynamo and not info.has("--disaggregation-mode") and not launch.incomplete:
        role, how = "null", "Dynamo's default (aggregated)"
    if role is None and launch.role in ("prefill", "decode"):
        role, how = launch.role, launch.meta.get("role_how") or "structure"
    launch.role = role
    info.role_from = how


# ---------------------------------------------------------------------------
# check stage
# ---------------------------------------------------------------------------

def candidates(launch: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import launch_candidates
    return launch_candidates(launch, enabled)


def pair_candidates(prefill: Launch, decode: Launch, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import pair_hits
    return pair_hits(prefill, decode, enabled)


def unit_candidates(dep, enabled: Callable[[str], bool]) -> list:
    from pdlint.engines.vllm.rulebase import unit_hits
    return unit_hits(dep, enabled)


def facts(launch: Launch):
    from pdlint.pairing import Facts, Port
    info: VllmInfo = launch.parsed
    if not isinstance(info, VllmInfo):
        return None
    f = Facts()
    ports = []
    if not info.dynamo:
        # (no --port written and words pdlint cannot see that may hold one: the port is not known; minosfuture/
        # vllm's recipes take their flags from another justfile's variables - a toy proxy's 8087 was PD154)
        port = info.int("--port", None if (info.incomplete or launch.incomplete) else DEFAULT_PORT)
        if port is not None:
            f.http_port, f.http_token = port, info.token("--port")
            ports.append(Port(port, "--port", info.token("--port")))
    tp = info.int("--tensor-parallel-size", 1)
    pp = info.int("--pipeline-parallel-size", 1)
    dp = info.int("--data-parallel-size-local", None)
    if dp is None:
        dp = info.int("--data-parallel-size", 1)
    if info.has("--data-parallel-rank"):
        # external load balancing: the process is one DP rank (vllm/engine/arg_utils.py: with a data-parallel
        # rank, data_parallel_size_local = 1), TP x PP devices of its own (wjc129/vllm-ascend's xPyD scripts,
        # field test rw15/j: 24 false PD153)
        dp = 1
    conns = info.kv.connectors if info.kv is not None else []
    # the NIXL side channel opens only where --kv-transfer-config names the connector: Dynamo 1.0 and later
    # clear the legacy --connector list (vllm/args.py: "the default is no longer nixl") and, as vLLM, run none
    if "NixlConnector" in conns:
        env = launch.env.get("VLLM_NIXL_SIDE_CHANNEL_PORT")
        if env is None:
            ports.append(Port(NIXL_PORT_DEFAULT, "VLLM_NIXL_SIDE_CHANNEL_PORT", None, max(dp or 1, 1)))
        elif env.text.isdigit() and not env.opaque:
            ports.append(Port(int(env.text), "VLLM_NIXL_SIDE_CHANNEL_PORT", env, max(dp or 1, 1)))
    if "P2pNcclConnector" in conns and info.kv is not None:
        kp = info.kv.get("kv_port")
        if kp is None:
            ports.append(Port(P2P_PORT_DEFAULT, "P2P-NCCL kv_port", None, max((tp or 1) * (pp or 1), 1)))
        elif str(kp.value).isdigit() and not kp.tok.opaque:
            ports.append(Port(int(kp.value), "P2P-NCCL kv_port", kp.tok, max((tp or 1) * (pp or 1), 1)))
    dsp = launch.env.get("DYN_SYSTEM_PORT")
    if info.dynamo and isinstance(dsp, TStr) and dsp.text.isdigit() and not dsp.opaque:
        ports.append(Port(int(dsp.text), "DYN_SYSTEM_PORT", dsp))
    f.ports = ports
    device = info.text("--device")
    f.uses_gpus = device in (None, "cuda", "auto") and not (launch.incomplete and not launch.meta.get("gpus_known")) \
        and not _tpu(launch, conns)
    nnodes = info.int("--nnodes", 1)
    per_node = _gpus_per_node(tp, pp, dp, nnodes, info)
    if per_node is not None:
        f.gpus_needed = per_node
        parts = [f"--tensor-parallel-size {tp}"]
        if pp != 1:
            parts.append(f"--pipeline-parallel-size {pp}")
        if dp != 1:
            parts.append(f"--data-parallel-size {dp}")
        f.gpus_note = " x ".join(parts) + (f" / --nnodes {nnodes}" if nnodes > 1 else "")
        for name in ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"):
            if info.has(name):
                f.gpus_token = info.token(name)
                break
    else:
        f.uses_gpus = False
    if info.has("--gpu-memory-utilization"):
        f.mem_fraction, f.mem_token = info.float("--gpu-memory-utilization"), info.token("--gpu-memory-utilization")
        f.mem_explicit = True
    elif info.has("--kv-cache-memory-bytes"):  # a KV cache sized in bytes: a budget of its own, not a fraction
        f.mem_token, f.mem_explicit = info.token("--kv-cache-memory-bytes"), True
    f.multi_node = info.has("--headless") or (info.int("--data-parallel-start-rank", 0) or 0) > 0 or \
        info.has("--data-parallel-address") or info.has("--nnodes") or info.has("--node-rank")
    f.model = info.model
    return f


def _gpus_per_node(tp, pp, dp, nnodes, info: VllmInfo) -> Optional[int]:
    """GPUs one launch of the server uses on its node, as vLLM places them (config/parallel.py): a DP
    replica runs ``world_size`` = TP x PP ranks, spread over ``nnodes_within_dp`` nodes (``--nnodes``
    divided by the number of node groups of DP replicas), ``local_world_size`` = world_size //
    nnodes_within_dp of them on each, and a node runs its ``--data-parallel-size-local`` replicas.  None
    when a size is not known, or several nodes run DP replicas without a written local DP size."""
    if tp is None or pp is None or dp is None or nnodes is None or nnodes < 1:
        return None
    if info.text("--distributed-executor-backend") == "ray" and not info.has("--nnodes"):
        # a Ray cluster places the ranks on its nodes: one `vllm serve` on the head node with TP set to the
        # GPUs of the whole cluster (vLLM docs/serving/distributed_serving.md, "Running vLLM on a Ray
        # cluster"; omni-ai-npu/omni-infer, field test rw6/e): how many are on this node is the cluster's
        return None
    world = tp * pp
    if nnodes == 1:
        return max(1, world * dp)
    if dp == 1 and not info.has("--data-parallel-size-local"):
        return max(1, world // nnodes)  # one replica spans every node
    total = info.int("--data-parallel-size", 1)
    if not info.has("--data-parallel-size-local") or not total or total % dp:
        return None
    within = max(nnodes // (total // dp), 1)
    return max(1, dp * (world // within))


__all__ = ["interpret", "candidates", "pair_candidates", "unit_candidates", "facts", "parse_argv", "VllmInfo",
           "KVConfig"]
