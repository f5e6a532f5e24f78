"""SGLang's command line, parsed exactly as its ``argparse`` parser would.

Emulates CPython 3.11 ``argparse`` on the generated flag table: ``--flag=v``
and ``--flag v``; store_true flags take no value; ``nargs`` patterns; unique
prefixes (``--tp 4`` is ``--tp-size 4``) and ``ambiguous option`` errors; the
last occurrence wins; type conversion and ``choices``.  Where argparse stops
at the first error, this parser records every error and goes on, so one run
reports all of them.  Tokens are traced strings: every value keeps its origin.

Opaque tokens (values pdlint cannot see: ``$(POD_IP)``, an unknown shell
variable) are accepted as values without type checks; an opaque token where
an option could be makes the parse ``incomplete`` (it may hold any flags).
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from pdlint import lazyre
from pdlint.engines.sglang.flags import Flag, FlagTable
from pdlint.records import dataclass, field
from pdlint.text import TStr, shown_words

# Up to 0.5.9 the parallel sizes registered as --tensor-parallel-size/--tp-size,
# so argparse's dest was tensor_parallel_size (SGLang renamed it afterwards).
OLD_DESTS = {"tp_size": "tensor_parallel_size", "dp_size": "data_parallel_size",
             "pp_size": "pipeline_parallel_size", "ep_size": "expert_parallel_size"}
OPAQUE = type("Opaque", (), {"__repr__": lambda self: "<opaque>", "__bool__": lambda self: False})()
_NEG_NUMBER = lazyre.compile(r"^-\d+$|^-\d*\.\d+$")
UNREAD = object()  # a memo's "not computed yet" (None is a value)
HELP = ("-h", "--help")  # argparse's own help option (add_help): not in the generated tables
#: errors argparse stops at while it consumes the options in order (unknown options and stray words are said at the
#: end, after a help action ran)
_STOPPING = frozenset(("missing-value", "invalid-type", "invalid-choice", "explicit-ignored", "deprecated-action"))


class _TypeError(Exception):
    def __init__(self, message: str, argparse_style: bool = True):
        super().__init__(message)
        self.message = message
        self.argparse_style = argparse_style


@dataclass
class ArgError:
    kind: str
    token: TStr
    message: str  # argparse's (or SGLang's) exact message
    option: Optional[str] = None
    extra: dict = field(default_factory=dict)
    indexes: tuple = ()  # positions of the tokens it covers


@dataclass
class Occurrence:
    flag: Flag
    option: str  # the option string the token resolved to
    name_tok: TStr  # the text naming the flag (for --x=v, the --x part)
    values: list  # value tokens
    value: Any  # converted value, OPAQUE, or None when invalid
    index: int
    written: str  # the option as written (may be an abbreviation)
    from_config: bool = False
    indexes: tuple = ()  # positions of the flag token and its separate value tokens

    @property
    def dest(self) -> str:
        return self.flag.dest

    @property
    def value_tok(self) -> TStr:
        return self.values[0] if self.values else self.name_tok

    def value_text(self) -> str:
        return " ".join(v.text for v in self.values)


@dataclass
class Parsed:
    table: FlagTable
    tokens: list
    occurrences: list = field(default_factory=list)
    last: dict = field(default_factory=dict)  # dest -> Occurrence
    errors: list = field(default_factory=list)
    incomplete: bool = False
    config_path: Optional[str] = None
    merge_failed: bool = False  # SGLang's --config merge stopped the launch before argparse
    help: Optional[TStr] = None  # a -h / --help: argparse prints the help and exits 0 there (no server)
    _values: dict = field(default_factory=dict, repr=False)

    def dest(self, dest: str) -> str:
        """``dest`` as this release's table names it."""
        return table_dest(self.table, dest)

    def occurrence(self, dest: str) -> Optional[Occurrence]:
        return self.last.get(self.dest(dest))

    def explicit(self, dest: str) -> bool:
        return self.dest(dest) in self.last

    def value(self, dest: str) -> Any:
        """The effective value: last occurrence, else the default (OPAQUE when
        unknown: an opaque token could have set it)."""
        # a dict lookup with a default, not try/except: most dests are asked for once per launch (a
        # caught KeyError per first read cost more than the lookups)
        value = self._values.get(dest, UNREAD)
        if value is UNREAD:
            value = self._values[dest] = self._value(dest)
        return value

    def undecided(self) -> list:
        """The occurrences whose value a rule asked for and pdlint cannot see (a written value that is an
        environment variable, a template placeholder...): the checks that read them decided nothing."""
        out, seen = [], set()
        for dest, value in self._values.items():
            occ = self.last.get(self.dest(dest)) if value is OPAQUE else None
            if occ is not None and id(occ) not in seen and _any_opaque(occ.values):
                seen.add(id(occ))
                out.append(occ)
        return out

    def _value(self, dest: str) -> Any:
        dest = self.dest(dest)
        occ = self.last.get(dest)
        if occ is not None:
            return occ.value
        if self.incomplete:
            return OPAQUE
        flag = self.table.by_dest.get(dest)
        if flag is None:
            # a flag this release does not have: the feature it switches is absent, which is what the
            # reference release's default means (--dwdp-size 1, --disaggregation-decode-enable-radix-cache
            # off ...); rules apply to a release only where the flags they read are defined as there
            # (versions.same_inputs), so they read the value they were written for
            flag = _reference_flag(self.table, dest)
            if flag is None:
                return None
        default = flag.default
        if default == "==SUPPRESS==":
            return None
        if isinstance(default, str) and flag.type and flag.takes_value:
            try:
                return convert(flag, default)
            except _TypeError:
                return default
        return default


def table_dest(table: FlagTable, dest: str) -> str:
    """``dest`` (a ServerArgs field as the reference release names it) as ``table`` names it.  Up to
    0.5.9 the parallel sizes register as ``--tensor-parallel-size/--tp-size``,
    ``--attention-context-parallel-size/--attn-cp-size`` ... with the long dest, and
    ``ServerArgs.from_cli_args`` copies each to the field its short spelling names."""
    if dest in table.by_dest:
        return dest
    old = OLD_DESTS.get(dest)
    if old and old in table.by_dest:
        return old
    flag = table.by_option.get("--" + dest.replace("_", "-"))
    return flag.dest if flag is not None else dest


def _reference_flag(table: FlagTable, dest: str) -> Optional[Flag]:
    from pdlint.engines.sglang.flags import available_versions, load
    from pdlint.engines.sglang.versions import REFERENCE
    if table.version == REFERENCE or REFERENCE not in available_versions():
        return None
    return load(REFERENCE).by_dest.get(dest)


def convert(flag: Flag, text: str) -> Any:
    """Apply the flag's argparse ``type`` to one string (raises _TypeError)."""
    t = flag.type
    if t in (None, "str"):
        return text
    if t == "int":
        try:
            return int(text)
        except ValueError:
            raise _TypeError(f"invalid int value: {text!r}") from None
    if t == "float":
        try:
            return float(text)
        except ValueError:
            raise _TypeError(f"invalid float value: {text!r}") from None
    if t in ("json.loads", "loads"):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise _TypeError(f"invalid loads value: {text!r}") from None
    if t == "json_list_type":
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise _TypeError(f"Invalid JSON list: {text}. Please provide a valid JSON list.", False) from None
    if t == "nullable_str":
        return None if not text or text == "None" else text
    if t == "human_readable_int":
        return _human_readable_int(text)
    if t == "parse_cuda_graph_backend_arg":
        if text == "tc_piecewise":
            raise _TypeError("tc_piecewise was removed; select breakable, full, or disabled", False)
        return text
    if t == "parse_cuda_graph_config_arg":
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise _TypeError(f"--cuda-graph-config must be JSON: {e}", False) from None
        if not isinstance(parsed, dict):
            raise _TypeError(f"--cuda-graph-config must be a JSON object, got {type(parsed).__name__}", False)
        return parsed
    return text  # a type callable pdlint does not model: accept the string


def _human_readable_int(value: str) -> int:
    v = value.strip()
    si = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    iec = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", v)
    if m:
        from decimal import Decimal, InvalidOperation  # (here: a value with a size suffix is rare)
        number, suffix = m.groups()
        if suffix in iec:
            if "." in number:
                raise _TypeError(
                    f"Decimals are not allowed with IEC suffixes like '{suffix}'. "
                    f"Use an integer IEC value such as '{int(Decimal(number))}{suffix}', "
                    f"or an SI value such as '{number}{suffix[0]}'.", False)
            return int(number) * iec[suffix]
        try:
            return int(Decimal(number) * si[suffix])
        except InvalidOperation:  # pragma: no cover - regex guarantees digits
            pass
    try:
        return int(v)
    except ValueError:
        raise _TypeError(
            f"Invalid integer value: '{v}'. Use a plain integer, SI suffixes (1k, 1M), or IEC "
            "suffixes (1Ki, 1Mi). Suffixes are case-sensitive.", False) from None


def action_name(flag: Flag) -> str:
    return "/".join(flag.option_strings)


# (a list of unrecognized arguments is quoted cut: pdlint.text.shown_words)
_shown = shown_words


def _fully_opaque(tok: TStr) -> bool:
    pieces = tok.pieces
    if not pieces:
        return False
    for p in pieces:  # a loop, not all(generator): asked of every token of every launch
        if not p.opaque:
            return False
    return True


def _any_opaque(tokens: list) -> bool:
    """Does any of ``tokens`` hold a placeholder (``TStr.opaque``, without a generator per stored flag)?"""
    for tok in tokens:
        for p in tok.pieces:
            if p.opaque:
                return True
    return False


def _help_cluster(word: str) -> bool:
    """``-host``, ``-hunter2``: a single-dash word argparse reads as its help option ``-h`` with the rest attached
    (not ``-h=x``)."""
    return len(word) > 2 and word[:2] == "-h" and word[2] != "="


def _value_like(toks: list, kinds: list, j: int) -> Optional[TStr]:
    """The word at ``j`` when argparse reads it as an option but it is none of SGLang's and is written with one dash
    (``-hunter2``: -h with ``unter2`` attached, ``-secret``: unknown): after an option that lacks its value, the
    value that starts with ``-``; None for anything else (a flag, ``--``, a positional, ``--typo``)."""
    if j >= len(toks) or kinds[j] is None or kinds[j] == "--" or toks[j].text.startswith("--"):
        return None
    k = kinds[j]
    if k[0] == "unknown" or (k[0] == "help" and k[2] is not None and _help_cluster(toks[j].text)):
        return toks[j]
    return None


class _Parser:
    def __init__(self, table: FlagTable, tokens: list, config_count: int):
        self.table = table
        self.tokens = tokens
        self.config_count = config_count  # leading tokens that came from --config
        self.out = Parsed(table, tokens)
        self.strays: list = []  # (index, token) of the words argparse could not place: one error at the end

    # argparse's _parse_optional
    def classify(self, tok: TStr):
        s = tok.text
        if not s or s[0] != "-" or _fully_opaque(tok):
            return None
        flag = self.table.by_option.get(s)
        if flag:
            return (flag, s, None, s)
        if len(s) == 1:
            return None
        if s in HELP:
            return ("help", s, None, s)
        if "=" in s:
            opt, explicit = s.split("=", 1)
            flag = self.table.by_option.get(opt)
            if flag:
                return (flag, opt, explicit, opt)
            if opt in HELP:
                return ("help", opt, explicit, opt)
        if s.startswith("--"):
            prefix, explicit = (s.split("=", 1) + [None])[:2] if "=" in s else (s, None)
            # (argparse's own -h/--help, which the tables leave out, is registered first: `--h` could match
            # --help, --host, ...; `--hel` is --help)
            matches = ["--help"] * "--help".startswith(prefix) + self.table.prefix_matches(prefix)
            if matches == ["--help"]:
                return ("help", "--help", explicit, prefix)
            if len(matches) > 1:
                return ("ambiguous", matches, explicit, prefix)
            if len(matches) == 1:
                return (self.table.lookup(matches[0]), matches[0], explicit, prefix)
        else:  # single dash: only exact short options exist in SGLang's parser
            if s[:2] == "-h":
                # `-hx`: argparse reads -h with `x` attached, and -h takes none: "argument -h/--help: ignored
                # explicit argument 'x'" - unless `-x` is a short option too, then the help runs first
                # (hostile-input round rw30/h P11: was SGL001 "unrecognized arguments: -hx")
                explicit = None if "-" + s[2] in self.table.by_option else s[2:]
                return ("help", "-h", explicit, "-h")
            if s[:2] in self.table.by_option:
                return (self.table.lookup(s[:2]), s[:2], s[2:] or None, s[:2])
        if _NEG_NUMBER.match(s):
            return None
        if " " in s:
            return None
        return ("unknown", None, None, s)

    def run(self) -> Parsed:
        toks = self.tokens
        kinds = []
        after_dd = False
        for t in toks:
            if after_dd:
                kinds.append(None)
            elif t.text == "--":
                kinds.append("--")
                after_dd = True
            else:
                kinds.append(self.classify(t))
        i = 0
        n = len(toks)
        prev_store_true: Optional[Occurrence] = None
        while i < n:
            k = kinds[i]
            tok = toks[i]
            if k == "--":
                # argparse reads every word after `--` as a positional, and SGLang has none: the `--` and those
                # words are "unrecognized arguments" (CPython 3.6-3.13 alike; rw28/b P3)
                rest = [t for t in toks[i + 1:]]
                if any(_fully_opaque(t) for t in rest):
                    self.out.incomplete = True
                self.strays.append((i, tok))
                self.strays += [(i + 1 + m, t) for m, t in enumerate(rest) if not _fully_opaque(t)]
                break
            if k is None:  # a positional: SGLang has none
                self._stray(tok, prev_store_true, i)
                prev_store_true = None
                i += 1
                continue
            prev_store_true = None
            if k[0] == "help":
                i = self._help(k, tok, i, kinds)
                continue
            if k[0].__class__ is str:  # "unknown" or "ambiguous" (else the Flag found)
                # the values written after it are the user's values for that
                # flag: argparse lists them with it ("unrecognized arguments:
                # --foo bar"), they are not separate mistakes
                j = i + 1
                while j < n and kinds[j] is None and not _fully_opaque(toks[j]):
                    j += 1
                values = toks[i + 1:j]
                span = tuple(range(i, j))
                if k[0] == "unknown" and tok.option_name_opaque():
                    # `"--$key" "$value"` (a flag name read at run time, AI-Hypercomputer/gpu-recipes): not a
                    # wrong flag but one pdlint cannot see, with its values
                    self.out.incomplete = True
                    i = j
                    continue
                if k[0] == "unknown":
                    name = tok.partition("=")[0] if "=" in tok.text else tok
                    shown = _shown([tok.text] + [v.text for v in values])
                    self.err("unknown", tok, f"unrecognized arguments: {shown}", name.text, span, values=values)
                else:
                    # (argparse names the word as written, `=value` included: "ambiguous option: --dis=nixl ...")
                    self.err("ambiguous", tok, f"ambiguous option: {tok.text} could match {', '.join(k[1])}",
                             k[3], span, matches=k[1], values=values)
                i = j
                continue
            flag, option, explicit, written = k
            name_tok = tok[:len(tok.text) - len(explicit) - 1] if explicit is not None else tok
            if explicit is not None:
                explicit_tok = tok[len(tok.text) - len(explicit):]
                if flag.nargs_zero:
                    self.err("explicit-ignored", tok,
                             f"argument {action_name(flag)}: ignored explicit argument {explicit!r}", option, (i,))
                    i += 1
                    continue
                self.store(flag, option, name_tok, [explicit_tok], i, written, (i,))
                i += 1
                continue
            # the arguments that follow, up to the next option or a `--` (argparse's 'A's: an option never takes
            # a value across `--`, `--tp-size -- 2` is "expected one argument")
            j = i + 1
            avail: list = []
            while j < n and kinds[j] is None:
                avail.append(j)
                j += 1
            if flag.nargs_zero:
                prev_store_true = self.store(flag, option, name_tok, [], i, written, (i,))
                i += 1
                continue
            nargs = flag.nargs
            if nargs is None:
                take = avail[:1]
                need, word = 1, "expected one argument"
            elif nargs == "?":
                take, need, word = avail[:1], 0, ""
            elif nargs == "+":
                take, need, word = avail, 1, "expected at least one argument"
            elif nargs == "*":
                take, need, word = avail, 0, ""
            else:
                take = avail[:int(nargs)]
                need = int(nargs)
                word = f"expected {nargs} argument" + ("" if nargs == 1 else "s")
            if len(take) < need:
                after = _value_like(toks, kinds, i + 1)
                self.err("missing-value", tok, f"argument {action_name(flag)}: {word}", option, (i,),
                         after=after.text if after is not None else None)
                # argparse stops here: the next word, when it is no option of SGLang's written with one dash
                # (`--api-key -hunter2`, `--api-key -secret`), is the value it left out - not an unknown option nor
                # `-h` with `unter2` attached, whose "remove it" would delete the key (hostile-input round rw31/h P4;
                # SGLang 0.5.23 oracle: "argument --api-key: expected one argument" and nothing else)
                i += 2 if after is not None else 1
                continue
            self.store(flag, option, name_tok, [toks[x] for x in take], i, written, (i,) + tuple(take))
            i = take[-1] + 1 if take else i + 1
        if self.strays:
            # argparse lists every word it could not place in one "unrecognized arguments" error, and SGLang stops
            # there once: one SGL011 per launch, the list cut (hostile-input round rw30/h P10: one finding per
            # word, and 120,000 bare words made --format sarif die with MemoryError, the run's report lost)
            first_at, first = self.strays[0]
            shown = _shown([t.text for _, t in self.strays])
            self.err("unknown-positional", first, f"unrecognized arguments: {shown}", None,
                     tuple(x for x, _ in self.strays), words=len(self.strays))
        self.required()
        return self.out

    def _help(self, k: tuple, tok: TStr, i: int, kinds: list) -> int:
        """``-h`` / ``--help`` (or a prefix, ``--hel``): argparse's help action prints the help and exits with
        status 0 where it stands, so no server starts; ``--help=x`` is "ignored explicit argument".  The words
        right after it (a config file's ``help: true`` is ``--help true``) are never read: not reported."""
        _, option, explicit, written = k
        if explicit is not None:
            self.err("explicit-ignored", tok, f"argument -h/--help: ignored explicit argument {explicit!r}",
                     "--help", (i,))
            i += 1
            if _help_cluster(tok.text):
                # `-host 0.0.0.0`: a misspelt option (--host) with its value; argparse stops at -host, so the value
                # is never an unrecognized argument (rw31/h P4; SGLang 0.5.23 oracle: only "argument -h/--help:
                # ignored explicit argument 'ost'")
                while i < len(kinds) and kinds[i] is None and not _fully_opaque(self.tokens[i]):
                    i += 1
            return i
        if any(e.kind in _STOPPING for e in self.out.errors) or any(
                k is not None and k != "--" and k[0] == "ambiguous" for k in kinds):
            # argparse stopped before it: at an earlier option's error, or at an ambiguous option anywhere (found
            # while it classifies the words, before any action): `--served-model-name -h` is "expected one
            # argument", not the help (hostile-input round rw30/h P11; the SGLang 0.5.23 oracle, launch_server)
            return i + 1
        self.out.help = tok
        if i < self.config_count:  # (a config file's `help` key: `--help VALUE` whatever the value)
            self.err("help", tok, f"the config file's `{tok.text[2:]}` key: SGLang's config merger passes it as "
                                  f"--help, and argparse prints SGLang's help there and exits with status 0 "
                                  f"(-h/--help), so no server starts", "--help", (i,))
        else:
            self.err("help", tok, f"{tok.text}: argparse prints SGLang's help here and exits with status 0 "
                                  f"(-h/--help), so no server starts", "--help", (i,))
        i += 1
        while i < len(kinds) and kinds[i] is None and not _fully_opaque(self.tokens[i]):
            i += 1
        return i

    def _stray(self, tok: TStr, prev: Optional[Occurrence], index: int) -> None:
        if _fully_opaque(tok):
            self.out.incomplete = True
            return
        if prev is not None and prev.flag.action in ("store_true", "store_false", "boolean_optional",
                                                     "deprecated_store_true", "store_const"):
            self.err("value-for-flag", tok, f"unrecognized arguments: {tok.text}", prev.option,
                     flag=prev.option, flag_tok=prev.name_tok)
            return
        self.strays.append((index, tok))

    def store(self, flag: Flag, option: str, name_tok: TStr, values: list, index: int, written: str,
              indexes: tuple = ()) -> Occurrence:
        value: Any
        if flag.action == "deprecated":
            # argparse calls a DeprecatedAction on the option, and it raises ValueError(help): the server stops
            self.err("deprecated-action", name_tok, (flag.deprecated or {}).get("message") or flag.help, option,
                     flag=option)
        if flag.nargs_zero:
            if flag.action == "boolean_optional":
                value = not option.startswith("--no-")
            elif flag.action in ("store_const", "deprecated_store_const"):
                value = flag.const
            elif flag.action == "store_false":
                value = False
            else:
                value = True
        elif _any_opaque(values):
            value = OPAQUE
        else:
            failed = len(self.out.errors)
            value = self.convert_values(flag, option, values)
            if len(self.out.errors) > failed:
                # SGLang stops at this value (invalid choice / type): what it would have been is unknown, so
                # no later rule reads the flag as unset (`--hicache-storage-backend umbp` is not "no backend")
                value = OPAQUE
        occ = Occurrence(flag, option, name_tok, values, value, index, written,
                         from_config=index < self.config_count, indexes=indexes or (index,))
        self.out.occurrences.append(occ)
        self.out.last[flag.dest] = occ
        return occ

    def convert_values(self, flag: Flag, option: str, values: list) -> Any:
        converted = []
        ok = True
        for v in values:
            text = v.text
            if flag.nargs is None and len(values) == 1 and text == "--":
                continue
            try:
                c = convert(flag, text)
            except _TypeError as e:
                msg = f"argument {action_name(flag)}: {e.message}"
                self.err("invalid-type", v, msg, option, type=flag.type)
                ok = False
                continue
            if flag.choices is not None and c not in flag.choices:
                choices = ", ".join(repr(x) for x in flag.choices)
                self.err("invalid-choice", v,
                         f"argument {action_name(flag)}: invalid choice: {c!r} (choose from {choices})",
                         option, choices=list(flag.choices))
                ok = False
                continue
            converted.append(c)
        if not ok:
            return None
        if flag.nargs in ("+", "*") or isinstance(flag.nargs, int):
            return converted
        return converted[0] if converted else (flag.const if flag.nargs == "?" else None)

    def err(self, kind: str, tok: TStr, message: str, option: Optional[str], indexes: tuple = (), **extra) -> None:
        self.out.errors.append(ArgError(kind, tok, message, option, extra, indexes))

    def required(self) -> None:
        if self.out.incomplete:
            return
        # a required flag given without its value is that flag's SGL003, not also SGL010 (argparse stops at the
        # first; field test rw21/b: `--model-path ${MODEL_PATH}` with MODEL_PATH empty gave both)
        valueless = {e.option for e in self.out.errors if e.kind == "missing-value"}
        for flag in self.table.required:
            if flag.dest not in self.out.last and not valueless.intersection(flag.option_strings):
                self.out.errors.append(ArgError(
                    "required", TStr("", ()),
                    f"the following arguments are required: {action_name(flag)}", flag.primary))


def parse(table: FlagTable, tokens: list, config_count: int = 0) -> Parsed:
    """Parse SGLang server argv tokens (after any ``--config`` merge)."""
    out = _Parser(table, tokens, config_count).run()
    if not out.incomplete:
        for t in tokens:
            if t.text.startswith("-") and _fully_opaque(t):
                out.incomplete = True
                break
    return out
