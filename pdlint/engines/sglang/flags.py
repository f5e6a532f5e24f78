"""SGLang flag tables, one per release, packed in ``data/sglang-flags.jsonl``
(:mod:`pdlint.engines.sglang.packed`).

The tables are produced by ``scripts/gen_sglang_flags.py`` from each release's
wheel (statically, with ``ast``); nothing here is typed by hand.  A table is
read the first time a launch is judged against its release.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
from typing import Any, Optional

from pdlint import lazyre
from pdlint.records import dataclass

DATA = os.path.join(os.path.dirname(__file__), "data")


@dataclass(frozen=True)
class Flag:
    dest: str
    option_strings: tuple
    action: str
    type: Optional[str]
    nargs: Any
    choices: Optional[tuple]
    default: Any
    const: Any
    required: bool
    deprecated: Optional[dict]
    hidden: bool
    help: str
    source: str

    @property
    def primary(self) -> str:
        return self.option_strings[0]

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", "append", "lora_path", "deprecated_alias_store") or (
            self.action == "deprecated_store_const" and self.nargs is None)

    @property
    def nargs_zero(self) -> bool:
        return not self.takes_value


class FlagTable:
    def __init__(self, version: str, flags: list, wheel: str = ""):
        self.version = version
        self.wheel = wheel
        self.flags = flags
        self.by_option: dict = {}
        self.by_dest: dict = {}
        for f in flags:
            for o in f.option_strings:
                self.by_option[o] = f
            self.by_dest.setdefault(f.dest, f)
        self.options = sorted(self.by_option)
        self.required = tuple(f for f in flags if f.required)  # argparse's required check, for every launch

    def lookup(self, option: str) -> Optional[Flag]:
        return self.by_option.get(option)

    def prefix_matches(self, prefix: str) -> list:
        """Option strings that start with ``prefix``, in registration order
        (argparse iterates its option dict in insertion order)."""
        return [o for o in self._ordered() if o.startswith(prefix)]

    @functools.lru_cache(maxsize=None)
    def _ordered(self) -> tuple:
        out = []
        for f in self.flags:
            out.extend(f.option_strings)
        return tuple(out)

    def default(self, dest: str) -> Any:
        f = self.by_dest.get(dest)
        return None if f is None else f.default

    def __hash__(self) -> int:
        return hash(self.version)


def available_versions() -> list:
    """Versions with a table, newest first."""
    return list(_available_versions())


@functools.lru_cache(maxsize=1)
def _available_versions() -> tuple:
    from pdlint.engines.sglang.packed import flag_store
    store = flag_store()
    return tuple(sorted(store.versions, key=version_key, reverse=True)) if store is not None else ()


_VERSION = lazyre.compile(r"^v?(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.?post(\d+))?(?:\.?dev(\d+))?")


@functools.lru_cache(maxsize=512)
def version_key(v: str) -> tuple:
    """A sort key for release names (PEP 440 order): 0.5.0rc2 < 0.5.0 < 0.5.0.post1 < 0.5.1."""
    m = _VERSION.match(v.strip())
    if m is None:
        return ((-1,), 0, 0, 0, 0)
    release = tuple(int(x) for x in m.group(1).split("."))
    release += (0,) * (4 - len(release))
    pre = {"a": -3, "b": -2, "rc": -1, None: 0}[m.group(2)]
    dev = -1 if m.group(5) is not None else 0  # a .dev release sorts before its release
    return (release, pre, int(m.group(3) or 0), int(m.group(4) or -1) if m.group(4) else -1, dev)


@functools.lru_cache(maxsize=None)
def load(version: str) -> FlagTable:
    from pdlint.engines.sglang.packed import flag_store
    store = flag_store()
    if store is None or version not in store:
        raise FileNotFoundError(f"no SGLang {version} flag table in {DATA}")
    flags = []
    for d in store.flags(version):
        flags.append(Flag(
            dest=d["dest"],
            option_strings=tuple(d["option_strings"]),
            action=d["action"],
            type=d.get("type"),
            nargs=d.get("nargs"),
            choices=tuple(d["choices"]) if d.get("choices") is not None else None,
            default=d.get("default"),
            const=d.get("const"),
            required=bool(d.get("required")),
            deprecated=d.get("deprecated"),
            hidden=bool(d.get("hidden")),
            help=d.get("help") or "",
            source=d.get("source") or "",
        ))
    rec = store.record(version)
    return FlagTable(rec.get("version", version), flags, rec.get("wheel", ""))


def newest() -> str:
    versions = available_versions()
    if not versions:
        raise FileNotFoundError("no SGLang flag tables in " + DATA)
    return versions[0]


LATEST = "latest"
_RELEASE = lazyre.compile(r"^\d+\.\d+\.\d+(?:(?:\.?post|rc|\.dev)\d+)*$")


class UnknownRelease(ValueError):
    """A release name that is neither ``latest`` nor an SGLang version."""


def is_release_name(name: str) -> bool:
    return bool(_RELEASE.match(name.strip().lstrip("vV")))


def known_releases_text() -> str:
    """Every release with a table, grouped by series (for error messages)."""
    by_series: dict = {}
    for v in reversed(available_versions()):
        by_series.setdefault(".".join(v.split(".")[:2]), []).append(v)
    return "; ".join(f"{s}: {' '.join(vs)}" for s, vs in by_series.items()) + f"; or {LATEST!r} (the newest)"


def check_release(name: str) -> str:
    """A configured release name (``--sglang-version``, ``engine-version``), normalised; raises
    :class:`UnknownRelease` (listing the known releases) for anything that is not ``latest`` or a
    release number from the oldest table on."""
    text = str(name).strip()
    if text.lower() == LATEST:
        return LATEST
    req = text.lstrip("vV")
    versions = available_versions()
    if req in versions:
        return req
    if not is_release_name(req):
        raise UnknownRelease(f"unknown SGLang release {text!r}; known releases: {known_releases_text()}")
    if versions and version_key(req) < version_key(versions[-1]):
        raise UnknownRelease(f"SGLang {req} is older than every release pdlint has a table for "
                             f"(the oldest is {versions[-1]}); known releases: {known_releases_text()}")
    return req


@functools.lru_cache(maxsize=64)
def pick(requested: Optional[str]) -> tuple:
    """The table to judge against: the requested release when there is a table for it (``latest``
    and nothing: the newest), else the nearest older table (a release between two tables, or newer
    than the newest), else the oldest.  Returns ``(version, note)``; ``note`` explains a
    substitution.  A name that is no release number raises :class:`UnknownRelease`."""
    versions = available_versions()
    if not versions:
        raise FileNotFoundError("no SGLang flag tables in " + DATA)
    if not requested or requested.strip().lower() == LATEST:
        return versions[0], None
    req = requested.strip().lstrip("vV")
    if req in versions:
        return req, None
    if not is_release_name(req):
        raise UnknownRelease(f"unknown SGLang release {requested!r}; known releases: {known_releases_text()}")
    older = [v for v in versions if version_key(v) <= version_key(req)]
    if older:
        how = "the newest table" if older[0] == versions[0] else "the nearest older release"
        return older[0], f"no table for SGLang {req}; judged against {older[0]} ({how})"
    return versions[-1], f"no table for SGLang {req}; judged against {versions[-1]} (the oldest table)"


def releases_accepting(option: str) -> frozenset:
    """The releases whose parser accepts ``option`` as written: the option itself, or (argparse's
    abbreviations) a prefix of exactly one of its options."""
    return _releases_accepting(option.partition("=")[0] if option.startswith("--") else option)


def release_accepts(version: str, option: str) -> bool:
    """``version in releases_accepting(option)``, from that one release's table (the index of every
    release's options is built only when a launch has an option the judged release lacks)."""
    return _release_accepts(version, option.partition("=")[0] if option.startswith("--") else option)


@functools.lru_cache(maxsize=2048)
def _release_accepts(version: str, option: str) -> bool:
    opts = _release_options(version)
    i = bisect.bisect_left(opts, option)
    if i < len(opts) and opts[i] == option:
        return True
    if not option.startswith("--"):
        return False
    n = 0
    while i < len(opts) and opts[i].startswith(option):
        n += 1
        i += 1
    return n == 1


@functools.lru_cache(maxsize=None)
def _release_options(version: str) -> list:
    """The option strings ``version``'s parser registers, sorted."""
    from pdlint.engines.sglang.packed import flag_store
    store = flag_store()
    if store is None or version not in store:
        return []
    return sorted({o for f in store.flags(version) if f.get("action") != "deprecated" for o in f["option_strings"]})


@functools.lru_cache(maxsize=2048)
def _releases_accepting(option: str) -> frozenset:
    from pdlint.engines.sglang.packed import flag_store
    store = flag_store()
    if store is None:
        return frozenset()
    index = store.option_releases()
    exact = index.get(option, frozenset())
    if not option.startswith("--"):
        return exact
    counts: dict = {}
    for o in _options_starting(option):
        if o != option:
            for r in index[o]:
                counts[r] = counts.get(r, 0) + 1
    return exact | frozenset(r for r, n in counts.items() if n == 1)


def _options_starting(prefix: str) -> list:
    opts = _sorted_options()
    i = bisect.bisect_left(opts, prefix)
    out = []
    while i < len(opts) and opts[i].startswith(prefix):
        out.append(opts[i])
        i += 1
    return out


@functools.lru_cache(maxsize=1)
def _sorted_options() -> list:
    from pdlint.engines.sglang.packed import flag_store
    return sorted(flag_store().option_releases())
