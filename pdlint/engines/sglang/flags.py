"""SGLang flag tables, one generated JSON file per release in ``data/``.

The tables are produced by ``scripts/gen_sglang_flags.py`` from each release's
wheel (statically, with ``ast``); nothing here is typed by hand.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Optional

DATA = os.path.join(os.path.dirname(__file__), "data")
_FILE = re.compile(r"^flags-(.+)\.json$")


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
    out = []
    try:
        names = os.listdir(DATA)
    except OSError:
        return ()
    for name in names:
        m = _FILE.match(name)
        if m:
            out.append(m.group(1))
    return tuple(sorted(out, key=version_key, reverse=True))


@functools.lru_cache(maxsize=256)
def version_key(v: str) -> tuple:
    parts = []
    for p in re.split(r"[.+-]", v):
        m = re.match(r"^(post|rc|dev)?(\d+)$", p)
        if m:
            tag = {"dev": -2, "rc": -1, None: 0, "post": 1}[m.group(1)]
            parts.append((tag, int(m.group(2))))
        else:
            parts.append((0, 0))
    # a bare release sorts before its .post releases
    return tuple(parts)


@functools.lru_cache(maxsize=None)
def load(version: str) -> FlagTable:
    path = os.path.join(DATA, f"flags-{version}.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    flags = []
    for d in data["flags"]:
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
    return FlagTable(data.get("version", version), flags, data.get("wheel", ""))


def newest() -> str:
    versions = available_versions()
    if not versions:
        raise FileNotFoundError("no SGLang flag tables in " + DATA)
    return versions[0]


@functools.lru_cache(maxsize=64)
def pick(requested: Optional[str]) -> tuple:
    """The table to judge against: the requested version when we have it, else
    the closest table of the same minor series (0.5.8 -> 0.5.9: flags change
    little within a series), else the newest older table, else the oldest.
    Returns ``(version, note)``; ``note`` explains a substitution."""
    versions = available_versions()
    if not versions:
        raise FileNotFoundError("no SGLang flag tables in " + DATA)
    if not requested:
        return versions[0], None
    req = requested.lstrip("v")
    if req in versions:
        return req, None
    series = lambda v: tuple(x for x in version_key(v)[:2])
    same = [v for v in versions if series(v) == series(req)]
    if same:
        rk = version_key(req)
        # closest patch level; on a tie a final release over a pre-release, then the older
        best = min(same, key=lambda v: (_distance(version_key(v), rk), "rc" in v or "dev" in v,
                                        version_key(v) > rk))
        return best, f"no table for SGLang {req}; judged against {best} (same release series)"
    older = [v for v in versions if version_key(v) <= version_key(req)]
    if older:
        return older[0], f"no table for SGLang {req}; judged against {older[0]}"
    return versions[-1], f"no table for SGLang {req}; judged against {versions[-1]} (the oldest)"


def _distance(a: tuple, b: tuple) -> tuple:
    """How far apart two version keys are, patch level first."""
    pa = a[2][1] if len(a) > 2 else 0
    pb = b[2][1] if len(b) > 2 else 0
    return (abs(pa - pb), a[3:] != b[3:])
