"""SGLang's ``--config FILE.yaml`` merge, exactly as each release does it
(``sglang/srt/server_args_config_parser.py``, from 0.5.19 ``sglang/srt/utils/``;
:data:`MERGERS`), on traced tokens.

The merge runs only when the exact token ``--config`` is present (and the release
has a ``--config`` option: 0.5.3 and later); the result is ``config tokens + argv
before --config + argv after the path``, then the normal parser runs.  Each key
becomes ``--key`` written verbatim (so underscore keys fail), booleans on
store_true flags become a bare flag (or nothing), other booleans
``true``/``false``, lists their items, mappings one argument (JSON from 0.5.14,
``str(dict)`` before), ``null`` the string ``None``.  Keys the release's merger
refuses are rejected before parsing (each one an error; the file is still read,
such a key as the command line takes it, so that its role and values are judged
rather than an empty launch).
"""

from __future__ import annotations

import json
import os
from typing import Callable, Optional

from pdlint.engines.sglang.argv import ArgError
from pdlint.engines.sglang.flags import Flag, FlagTable
from pdlint.formats import yamltree as yt
from pdlint.model import Hop
from pdlint.records import dataclass
from pdlint.text import SourceFile, TStr

ACTION_CLASS = {
    "store": "_StoreAction", "store_true": "_StoreTrueAction", "store_false": "_StoreFalseAction",
    "store_const": "_StoreConstAction", "append": "_AppendAction", "count": "_CountAction",
    "boolean_optional": "BooleanOptionalAction", "deprecated_store_true": "DeprecatedStoreTrueAction",
    "deprecated_store_const": "DeprecatedStoreConstAction", "deprecated": "DeprecatedAction",
    "deprecated_alias_store": "DeprecatedAliasStoreAction", "lora_path": "LoRAPathAction",
}


@dataclass
class Merge:
    tokens: list  # merged argv
    config_count: int  # how many leading tokens came from the file
    errors: list  # ArgError
    config: Optional[SourceFile] = None
    unresolved: bool = False  # a --config file pdlint could not read

    @property
    def failed(self) -> bool:
        """SGLang stops in the merge (before argparse runs)."""
        return any(e.kind in FATAL for e in self.errors)


# merge errors that stop SGLang; the others are pdlint's warnings about a merge that ran
FATAL = frozenset({"config-multiple", "config-missing-path", "config-suffix", "config-yaml",
                   "config-not-mapping", "config-unsupported", "config-key-type", "disagg-key-missing"})


@dataclass(frozen=True)
class Merger:
    """One release line's ``ConfigArgumentMerger`` as ``prepare_server_args`` builds it."""
    first: str  # the first release with this merger
    keys: str  # "none": no key refused, every boolean a bare flag or nothing; "dest": keys are dests;
    #            "options": keys are dests and long option names (0.5.23's _config_keys / _takes_one_value)
    mapping_json: bool  # a mapping value is json.dumps(value) (else str(value), a Python repr)
    source: str


#: SGLang's ``--config`` merger per release: ``sglang/srt/server_args_config_parser.py`` (``sglang/srt/utils/`` from
#: 0.5.19) and its caller ``prepare_server_args`` read in every released wheel from 0.5.3 (the first release with
#: ``--config``) to 0.5.23 (field round rw35/b P1: 0.5.14's refused keys had been judged by 0.5.23's rules).  The
#: file has four versions (sha256 prefix): 9e23392d (0.5.3.x), 356fed9c (0.5.4-0.5.7, an import dropped),
#: ee1c7249 (0.5.8-0.5.13.post1), 3966b120 (0.5.14-0.5.22), 4dee1adc (0.5.23).  A release takes the last row
#: whose first release is not after it; a release without ``--config`` (before 0.5.3) has no merge.
MERGERS = (
    Merger("0.5.3", "none", False,
           "0.5.3-0.5.7: prepare_server_args collects boolean_actions by hasattr(action, 'action'), which no "
           "argparse action has, so ConfigArgumentMerger(boolean_actions=[]) refuses no key and writes every "
           "boolean as a bare --key (true) or nothing (false); a mapping is str(dict); keys are used as written"),
    Merger("0.5.8", "dest", False,
           "0.5.8-0.5.13.post1: ConfigArgumentMerger(parser); unsupported_actions = {a.dest: a} over every "
           "action with option strings that is no _StoreTrueAction or _StoreAction (the last one of a dest "
           "named), store_true_actions the dests of _StoreTrueAction; a mapping is str(dict)"),
    Merger("0.5.14", "dest", True,
           "0.5.14-0.5.22: as 0.5.8, a mapping is json.dumps(value)"),
    Merger("0.5.23", "options", True,
           "0.5.23: _config_keys (dest and every --long spelling), _takes_one_value (_StoreAction or nargs None); "
           "a key a supported action also reads stays usable"),
)


def merger_of(version: str) -> Optional[Merger]:
    """The merger of release ``version`` (None before 0.5.3)."""
    from pdlint.engines.sglang.flags import version_key
    found = None
    for m in MERGERS:
        if version_key(m.first) <= version_key(version):
            found = m
    return found


def _config_keys(flag: Flag, merger: Merger) -> set:
    if merger.keys != "options":  # before 0.5.23 a key is matched against dests only
        return {flag.dest}
    return {flag.dest} | {o[2:].replace("-", "_") for o in flag.option_strings if o.startswith("--")}


def _supported(flag: Flag, merger: Merger) -> bool:
    if flag.action == "store_true":
        return True
    if flag.action == "store":  # argparse._StoreAction, any nargs
        return True
    if merger.keys != "options":  # before 0.5.23 SGLang's own actions (argparse.Action subclasses) are refused
        return False
    return flag.nargs is None and flag.takes_value  # _takes_one_value: nargs None


def key_classes(table: FlagTable) -> tuple:
    """(store_true keys, {unsupported key: flag}, merger) as the table's release's merger computes them
    (once per table: every config file of a release needs the same sets)."""
    cached = getattr(table, "_config_key_classes", None)
    if cached is None:
        cached = table._config_key_classes = _key_classes(table, merger_of(table.version) or MERGERS[0])
    return cached


def _key_classes(table: FlagTable, merger: Merger) -> tuple:
    if merger.keys == "none":
        return frozenset(), {}, merger
    store_true = set()
    supported_keys = set()
    for f in table.flags:
        if f.action == "store_true":
            store_true |= _config_keys(f, merger)
        if _supported(f, merger):
            supported_keys |= _config_keys(f, merger)
    unsupported = {}
    for f in table.flags:
        if _supported(f, merger) or "--config" in f.option_strings:
            continue
        for k in _config_keys(f, merger):
            if merger.keys == "dest":  # {a.dest: a}: refused even when a store action shares the dest
                unsupported[k] = f  # (the last action of a dest is the one named)
            elif k not in supported_keys:
                unsupported[k] = f
    return store_true, unsupported, merger


def merge(tokens: list, table: FlagTable, resolve: Callable[[TStr], Optional[SourceFile]],
          record_hop: bool = True) -> Merge:
    errors: list = []
    if table.lookup("--config") is None:  # before 0.5.3 SGLang has no --config and no merge: argparse judges it
        return Merge(list(tokens), 0, errors)
    idx = [i for i, t in enumerate(tokens) if t.text == "--config"]
    if not idx:
        for t in tokens:
            written = t.text.partition("=")[0]
            if t.text.startswith("--config="):
                errors.append(ArgError("config-equals", t,
                                       "--config=PATH is accepted by argparse but SGLang never reads the file "
                                       "(the merge only looks for the exact token --config)", "--config"))
            elif written.startswith("--co") and written != "--config" and "--config".startswith(written) \
                    and table.prefix_matches(written) == ["--config"]:
                # `--conf FILE` / `--confi=FILE`: argparse takes the unique prefix for --config, the merge never
                # sees it (differential round rw28/b P6: the oracle kept every default the file sets)
                errors.append(ArgError("config-equals", t,
                                       f"{written} is --config to argparse (a unique prefix) but SGLang never reads "
                                       f"the file: the merge only looks for the exact token --config", "--config"))
        return Merge(list(tokens), 0, errors)
    if len(idx) > 1:
        errors.append(ArgError("config-multiple", tokens[idx[1]], "Multiple config files specified! Only one allowed.",
                               "--config"))
        return Merge(list(tokens), 0, errors)
    at = idx[0]
    if at == len(tokens) - 1:
        errors.append(ArgError("config-missing-path", tokens[at], "No config file specified after --config flag!",
                               "--config"))
        return Merge(list(tokens), 0, errors)
    from pdlint.formats.shell.builtins import script_relative_token
    path_tok = script_relative_token(tokens[at + 1])  # ($SCRIPT_DIR/cfg.yaml: beside the script)
    rest = list(tokens[:at]) + list(tokens[at + 2:])
    if path_tok.opaque:
        return Merge(rest, 0, errors, unresolved=True)
    suffix = os.path.splitext(path_tok.text)[1]
    if suffix.lower() not in (".yaml", ".yml"):
        errors.append(ArgError("config-suffix", path_tok, f"Config file must be YAML format, got: {suffix}",
                               "--config"))
        return Merge(rest, 0, errors)
    src = resolve(path_tok)
    if src is None:
        return Merge(rest, 0, errors, unresolved=True)
    hop_note = f"--config {path_tok.text}"
    if isinstance(src, EmbeddedFile) and src.note:
        hop_note = src.note if src.note.startswith("-") else f"{hop_note} ({src.note})"
    ctoks, cerrs, ok = config_tokens(src, table, via=(path_tok, hop_note) if record_hop else None)
    errors.extend(cerrs)
    if not ok:  # a file over pdlint's limits was not read: what it sets is unknown
        return Merge(rest, 0, errors, config=src, unresolved=any(e.kind == "config-limit" for e in cerrs))
    return Merge(ctoks + rest, len(ctoks), errors, config=src)


class EmbeddedFile:
    """A config file whose text is written inside another file (a ConfigMap's ``data`` value, a
    section of a Dynamo ``--disagg-config`` file): ``doc`` traces every character to where it is
    written, so a key is reported at its line there.  ``path`` / ``abspath``: the file that holds it;
    ``note``: how the launch reaches it (a hop note of its own when it starts with ``-``)."""

    __slots__ = ("path", "abspath", "text", "doc", "note", "root", "sort_keys")

    def __init__(self, path: str, abspath: Optional[str], doc: TStr, note: str = "", root=None,
                 sort_keys: bool = False):
        self.path = path
        self.abspath = abspath
        self.text = doc.text
        self.doc = doc
        self.note = note
        self.root = root  # a mapping Ref of ``doc`` composed already (a section), else the text is composed
        self.sort_keys = sort_keys  # the keys reach SGLang sorted (Dynamo's yaml.dump of the section)


def config_tokens(src, table: FlagTable, via: Optional[tuple] = None) -> tuple:
    """The argv tokens SGLang makes of one config file (a :class:`SourceFile` or an
    :class:`EmbeddedFile`): (tokens, errors, ok)."""
    doc = TStr.from_source(src)  # an EmbeddedFile's traced doc
    try:
        return _config_tokens(src, doc, table, via)
    except (yt.LimitError, RecursionError) as e:  # an alias or merge-key bomb past compose
        where = doc[e.index:e.index + 1] if isinstance(e, yt.LimitError) and src.text else doc[:1]
        message = e.message if isinstance(e, yt.LimitError) else "config file nested too deep"
        return [], [ArgError("config-limit", where, f"config file not read: {message}", "--config")], False


def _config_tokens(src: SourceFile, doc: TStr, table: FlagTable, via: Optional[tuple]) -> tuple:
    errors: list = []
    section = src.root if isinstance(src, EmbeddedFile) else None
    if section is not None:  # a mapping inside a file composed already (its anchors and merge keys resolved)
        root = yt.deref(section).node
    else:
        try:
            docs = yt.compose(src.text)
        except yt.LimitError:
            raise
        except yt.YamlError as e:
            at = min(e.index, len(src.text.rstrip()) - 1)  # an error at the end: the last character written
            errors.append(ArgError("config-yaml", doc[at:at + 1] if at >= 0 else doc,
                                   f"invalid YAML in config file: {e.message_in(doc)}", "--config"))
            return [], errors, False
        refused = yt.safe_load_refusal(docs)  # a tag, a second document, a list key: safe_load stops too
        if refused is not None:
            at, message = refused
            errors.append(ArgError("config-yaml", doc[at:at + 1] if src.text else doc,
                                   f"invalid YAML in config file: {message} (yaml.safe_load refuses it)",
                                   "--config"))
            return [], errors, False
        root = docs[0].root if docs else None
    if root is None:
        return [], errors, True
    rref = section if section is not None else yt.Ref(root)
    if not isinstance(yt.deref(rref).node, yt.YMap):
        errors.append(ArgError("config-not-mapping", doc[root.start:root.end],
                               "Config file must contain a dictionary at root level", "--config"))
        return [], errors, False
    store_true, unsupported, merger = key_classes(table)
    out: list = []
    pairs = loaded_pairs(rref)
    if isinstance(src, EmbeddedFile) and src.sort_keys:  # yaml.dump's order (Dynamo writes the section so)
        pairs = sorted(pairs, key=lambda kv: kv[0].value)
    for knode, vref in pairs:
        key = knode.value
        ktok = yt.scalar_tstr(doc, yt.Ref(knode))
        typed = yt.scalar_value(knode)
        if not isinstance(typed, str) and merger.keys == "none":
            # before 0.5.8 the merger never calls key.replace: `1: 2` is `--1 2`, `~: x` `--None x` (argparse's
            # unrecognized arguments)
            key = str(typed)
        elif not isinstance(typed, str):
            # `1: 2`, `true: x`, `~: x`: yaml.safe_load makes the key an int / bool / None / float, and the merger's
            # `key.replace("-", "_")` crashes on it (field round rw28/b P10; SGLang 0.5.23's oracle: AttributeError)
            kind = type(typed).__name__
            read = "null (None)" if typed is None else f"{_KEY_TYPES.get(kind, 'a ' + kind)} ({typed!r})"
            errors.append(ArgError("config-key-type", ktok,
                                   f"config key {key} is read by YAML as {read}, not a flag name: SGLang's "
                                   f"config merger crashes on it (AttributeError: '{kind}' object has no attribute "
                                   f"'replace') before the server starts", "--config"))
            continue
        key_norm = key.replace("-", "_")
        refused = unsupported.get(key_norm)
        if refused is not None:
            errors.append(_unsupported(ktok, key_norm, refused))
        flag_tok = flag_token(ktok, key, src.path)
        if flag_tok.text != "--" + key:  # a key YAML reads as no string (`~`, `true`): --None, --True
            flag_tok = placed(flag_tok, "--" + key)
        target = yt.deref(vref).node
        if isinstance(target, yt.YScalar):
            value = yt.scalar_value(target)
            vtok = yt.scalar_tstr(doc, vref)
            if isinstance(value, bool):
                if merger.keys == "none" or key_norm in store_true or (
                        refused is not None and not refused.takes_value):
                    if value:
                        out.append(flag_tok)
                else:
                    out += [flag_tok, placed(vtok, str(value).lower())]
            elif value is None:
                out += [flag_tok, placed(vtok, "None", at=vtok if vtok.text else ktok)]
                errors.append(ArgError("config-null", vtok if vtok.text else ktok,
                                       f"null in a config file becomes the string 'None' (--{key} None); "
                                       "omit the key to keep SGLang's default", "--" + key))
            else:
                out += [flag_tok, placed(vtok, str(value))]
        elif isinstance(target, yt.YSeq):
            items = list_tokens(doc, vref)
            if items:
                out += [flag_tok, *items]
        elif isinstance(target, yt.YMap):
            mapping = yt.to_python(vref)  # before 0.5.14 str(dict), a Python repr no JSON reader takes
            out += [flag_tok, placed(yt.node_tstr(doc, vref), json.dumps(mapping) if merger.mapping_json
                                     else str(mapping))]
    if via is not None:
        use, note = via
        o = use.origin
        hop = Hop(o.path, o.line, o.column, note)
        out = [t.with_hop(hop, o.chain) for t in out]
    return out, errors, True


_KEY_TYPES = {"bool": "a boolean", "int": "an integer", "float": "a float"}


def _unsupported(ktok: TStr, key_norm: str, flag: Flag) -> ArgError:
    """SGL021 for a key SGLang's merger refuses.  The merge stops SGLang (``Merge.failed``), but the
    file is still read, that key as the command line SGL021 advises takes it (a bare flag for
    ``true``): without it the file's role and every value it sets would be unknown, and the launch
    would be judged as an empty, role-less server (false PD105, pair rules against defaults)
    instead of reported for the one key to move to the command line."""
    action = ACTION_CLASS.get(flag.action, flag.action.partition("custom:")[2] or flag.action)
    return ArgError("config-unsupported", ktok, f"Unsupported config option '{key_norm}' with action '{action}'",
                    flag.primary)


def loaded_pairs(rref: yt.Ref) -> list:
    """(key node, value Ref) of a mapping as ``yaml.safe_load`` reads it: its own keys (duplicates too:
    the last wins in argparse as in the dict), then the keys ``<<`` merge keys bring that it does not set
    itself, each located at its key in the merged mapping."""
    node = yt.deref(rref).node
    own = [(k, yt.Ref(v)) for k, v in node.pairs
           if isinstance(k, yt.YScalar) and not (k.value == "<<" and k.style is None)]
    written = {k.value for k, _ in own}
    merged = []
    for key, vref in yt.map_items(rref):
        if key in written:
            continue
        written.add(key)
        knode = _merged_key(node, key, 0)
        if knode is not None:
            merged.append((knode, vref))
    return own + merged


def _merged_key(node, key: str, depth: int):
    """The key node of ``key`` among the mappings ``node`` merges (nearest first)."""
    if depth > 32:
        return None
    for src in yt._merge_sources(node):
        for k, _ in src.node.pairs:
            if isinstance(k, yt.YScalar) and k.value == key:
                return k
        found = _merged_key(src.node, key, depth + 1)
        if found is not None:
            return found
    return None


def flag_token(ktok: TStr, key: str, path: str) -> TStr:
    """``--KEY`` positioned at a config file's key (``--`` at its first character)."""
    if not ktok.pieces:
        return TStr.synthetic("--" + key, path)
    return TStr.join([TStr.at("--", ktok.pieces[0].src, ktok.pieces[0].offset), ktok])


def list_tokens(doc: TStr, vref: yt.Ref) -> list:
    """One argument per item of a YAML list, ``str()`` of its value (as SGLang's and vLLM's loaders write
    them), each at its item."""
    out = []
    for it in yt.seq_items(vref):
        inode = yt.deref(it).node
        if isinstance(inode, yt.YScalar):
            out.append(placed(yt.scalar_tstr(doc, it), str(yt.scalar_value(inode))))
        else:
            out.append(placed(yt.node_tstr(doc, it), str(yt.to_python(it))))
    return out


def placed(tok: TStr, text: str, at: Optional[TStr] = None) -> TStr:
    """``text`` positioned where ``tok`` is written (exact when identical)."""
    if tok.text == text:
        return tok
    base = at or tok
    p = base.pieces[0] if base.pieces else None
    if p is None:
        return TStr.synthetic(text, "<config>")
    return TStr.at(text, p.src, p.offset, p.chain, exact=False, label=p.label)


#: options of SGLang's benchmark programs (``sglang.bench_one_batch``'s BenchArgs, sglang/benchmark/one_batch.py
#: :246-306 in 0.5.23) that are no server flag: a ``--config`` file holding one is a benchmark's, not a server's
_BENCH_KEYS = frozenset({
    "run-name", "batch-size", "input-len", "output-len", "prompt-filename", "result-filename", "correctness-test",
    "cut-len", "log-decode-step", "profile-record-shapes", "profile-activities", "profile-stage", "profile-prefix",
    "profile-start-step", "profile-steps"})


def looks_like_config(keys: list, table: FlagTable) -> bool:
    """Is a top-level mapping with these keys an SGLang ``--config`` file?  Not when it also sets a benchmark
    option (``run-name``, ``batch-size``, ``input-len``: the config of a ``bench_one_batch``-style script, which
    takes server and benchmark arguments), unless it names a PD role."""
    if not keys:
        return False
    norm = [k.replace("_", "-") for k in keys]
    if "disaggregation-mode" in norm:
        return True
    if any(k in _BENCH_KEYS and ("--" + k) not in table.by_option for k in norm):
        return False
    known = sum(1 for k in norm if ("--" + k) in table.by_option)
    has_model = any(k in ("model-path", "model") for k in norm)
    return has_model and known >= max(2, (len(keys) + 1) // 2)
