"""The ``ansible`` Jinja preset: the filters and tests Ansible adds to Jinja,
so that a template written for Ansible's ``template`` module renders in pdlint
as it does on the controller.

Filters that are pure functions of their input (``to_json``, ``to_yaml``,
``bool``, ``regex_replace``, ``ternary``, ``combine``, ``quote``,
``b64encode`` ...) are modelled.  Those whose result depends on the machine,
the inventory, time or chance (``lookup``, ``password_hash``, ``random``,
``json_query``, ``ipaddr``, ``strftime`` ...) return an :class:`Opaque` value:
it renders as a placeholder that downstream stages treat as a value pdlint
cannot see.  Facts and inventory variables (``hostvars``, ``groups``,
``inventory_hostname``, every ``ansible_*`` name) are :class:`Fact` values,
opaque too, instead of undefined variables.  Nothing here imports or runs
repository code; regular expressions run under the render's time limit.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shlex
import uuid
from typing import Any


class Opaque(str):
    """A value pdlint cannot compute at lint time; ``str`` is its placeholder."""

    __slots__ = ()


class Fact:
    """An Ansible fact or inventory variable (``hostvars[h].ansible_host``):
    its value exists only on the controller at deploy time.  Attribute and
    item access give deeper facts; as text it is an opaque placeholder."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> "Fact":
        if attr.startswith("_"):
            raise AttributeError(attr)
        return Fact(f"{self._name}.{attr}")

    def __getitem__(self, key) -> "Fact":
        return Fact(f"{self._name}.{_safe(str(key))}")

    def __str__(self) -> str:
        # one word in a shell line or a YAML scalar (`$a.b` parses in both), opaque downstream
        return "$" + self._name

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True

    def __eq__(self, other) -> bool:
        return isinstance(other, Fact) and other._name == self._name

    def __hash__(self) -> int:
        return hash(self._name)


#: names Ansible defines for every template besides the play's variables
FACT_NAMES = ("hostvars", "groups", "group_names", "inventory_hostname", "inventory_hostname_short",
              "inventory_dir", "inventory_file", "play_hosts", "playbook_dir", "role_path", "role_name",
              "omit", "vars", "environment",
              # the loop variable of the task that renders the template (`loop:` / `with_items:`)
              "item")
#: undefined names taken as facts (``ansible_default_ipv4``, ``ansible_host`` ...)
FACT_PREFIX = "ansible_"


def is_fact_name(name: str) -> bool:
    return name in FACT_NAMES or name.startswith(FACT_PREFIX)


def _plain(value: Any) -> Any:
    """Values as plain Python types (OStr -> str ...), for the serialisers."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {_plain_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def _plain_key(key: Any) -> Any:
    """A mapping key as :func:`_plain` gives it: a tuple stays a tuple (made a list, it stopped the render with
    "TypeError: unhashable type: 'list'"; the serialiser's own refusal of a tuple key is what Ansible prints)."""
    if isinstance(key, tuple):
        return tuple(_plain_key(k) for k in key)
    return _plain(key)


def to_json(value, *args, **kw) -> str:
    kw.pop("vault_to_text", None)
    kw.pop("preprocess_unsafe", None)
    return json.dumps(_plain(value), **{k: v for k, v in kw.items() if k in ("indent", "sort_keys", "separators",
                                                                           "ensure_ascii")})


def to_nice_json(value, indent=4, sort_keys=True, **kw) -> str:
    return json.dumps(_plain(value), indent=indent, sort_keys=sort_keys, separators=(",", ": "))


def to_yaml(value, *args, **kw) -> str:
    import yaml
    opts = {k: v for k, v in kw.items() if k in ("indent", "width", "default_flow_style", "sort_keys")}
    opts.setdefault("default_flow_style", None)
    return yaml.safe_dump(_plain(value), allow_unicode=True, **opts)


def to_nice_yaml(value, indent=4, *args, **kw) -> str:
    import yaml
    opts = {k: v for k, v in kw.items() if k in ("width", "sort_keys")}
    return yaml.safe_dump(_plain(value), indent=indent, allow_unicode=True, default_flow_style=False, **opts)


def from_json(value) -> Any:
    return json.loads(str(value))


def from_yaml(value) -> Any:
    import yaml
    return yaml.safe_load(str(value))


def to_bool(value) -> bool:
    """Ansible's ``bool``: yes/on/1/true (any case) are true."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    return str(value).strip().lower() in ("yes", "on", "1", "true", "y", "t")


def _flags(ignorecase=False, multiline=False) -> int:
    return (re.I if ignorecase else 0) | (re.M if multiline else 0)


def regex_replace(value="", pattern="", replacement="", ignorecase=False, multiline=False, count=0) -> str:
    return re.sub(str(pattern), str(replacement), str(value), count=count, flags=_flags(ignorecase, multiline))


def regex_search(value, regex, *args, ignorecase=False, multiline=False):
    m = re.search(str(regex), str(value), flags=_flags(ignorecase, multiline))
    if m is None:
        return None
    if not args:
        return m.group(0)
    out = []
    for a in args:
        a = str(a)
        if a.startswith("\\g<"):
            out.append(m.group(a[3:-1]))
        elif a.startswith("\\"):
            out.append(m.group(int(a[1:])))
    return out


def regex_findall(value, regex, ignorecase=False, multiline=False) -> list:
    return re.findall(str(regex), str(value), flags=_flags(ignorecase, multiline))


def regex_escape(value, re_type="python") -> str:
    return re.escape(str(value))


def ternary(value, true_val, false_val, none_val=None):
    if value is None and none_val is not None:
        return none_val
    return true_val if value else false_val


def combine(*terms, recursive=False, list_merge="replace") -> dict:
    out: dict = {}
    for t in terms:
        for d in (t if isinstance(t, (list, tuple)) else [t]):
            if not isinstance(d, dict):
                raise TypeError(f"combine expects dictionaries, got {type(d).__name__}")
            out = _merge(out, d, recursive, list_merge)
    return out


def _merge(a: dict, b: dict, recursive: bool, list_merge: str) -> dict:
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        if recursive and isinstance(old, dict) and isinstance(v, dict):
            out[k] = _merge(old, v, recursive, list_merge)
        elif isinstance(old, list) and isinstance(v, list) and list_merge != "replace":
            if list_merge == "keep":
                continue
            if list_merge in ("append", "append_rp"):
                out[k] = old + [x for x in v if list_merge == "append" or x not in old]
            elif list_merge in ("prepend", "prepend_rp"):
                out[k] = v + [x for x in old if list_merge == "prepend" or x not in v]
            else:
                out[k] = v
        else:
            out[k] = v
    return out


def mandatory(value, msg=None):
    # an undefined value is recorded (and reported) by pdlint's undefined type when used
    return value


def quote(value) -> str:
    return shlex.quote(str(value))


def b64encode(value, encoding="utf-8") -> str:
    return base64.b64encode(str(value).encode(encoding)).decode("ascii")


def b64decode(value, encoding="utf-8") -> str:
    try:
        return base64.b64decode(str(value)).decode(encoding, "replace")
    except ValueError as e:  # (binascii.Error: the render failure names the filter, as Ansible's does)
        raise ValueError(f"b64decode: the value is not base64 ({e})") from None


def dict2items(value, key_name="key", value_name="value") -> list:
    return [{key_name: k, value_name: v} for k, v in value.items()]


def items2dict(value, key_name="key", value_name="value") -> dict:
    return {item[key_name]: item[value_name] for item in value}


def flatten(value, levels=None, skip_nulls=True) -> list:
    out: list = []
    for item in value:
        if isinstance(item, (list, tuple)) and (levels is None or levels > 0):
            out.extend(flatten(item, None if levels is None else levels - 1, skip_nulls))
        elif not (skip_nulls and item in (None, "None", "null")):
            out.append(item)
    return out


def _uniq(seq) -> list:
    out: list = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def union(a, b) -> list:
    return _uniq(list(a) + list(b))


def intersect(a, b) -> list:
    return _uniq([x for x in a if x in b])


def difference(a, b) -> list:
    return _uniq([x for x in a if x not in b])


def symmetric_difference(a, b) -> list:
    return _uniq([x for x in list(a) + list(b) if (x in a) != (x in b)])


def zip_(*seqs) -> list:
    return [list(t) for t in zip(*seqs)]


def hash_(value, algorithm="sha1") -> str:
    if algorithm not in hashlib.algorithms_guaranteed:
        return Opaque("$hash_" + _safe(str(algorithm)))
    return hashlib.new(algorithm, str(value).encode("utf-8")).hexdigest()


def to_uuid(value, namespace="361E6D51-FAEC-444A-9079-341386DA8E2E") -> str:
    return str(uuid.uuid5(uuid.UUID(str(namespace)), str(value)))


def comment(value, style="plain", **kw) -> str:
    prefix = {"plain": "# ", "erlang": "% ", "c": "// ", "cblock": " * ", "xml": "   "}.get(style, "# ")
    return "\n".join(prefix + line if line else prefix.rstrip() for line in str(value).split("\n"))


def splitext(value) -> list:
    return list(os.path.splitext(str(value)))


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", text).strip("_") or "_"


def _opaque(name: str):
    def f(*args, **kw) -> Opaque:
        return Opaque("$" + name)
    f.__name__ = name
    f._pdl_opaque = True  # (a value made at deploy time: pdlint.render.jinja.through_unknown)
    return f


FILTERS = {
    "to_json": to_json, "to_nice_json": to_nice_json, "to_yaml": to_yaml, "to_nice_yaml": to_nice_yaml,
    "from_json": from_json, "from_yaml": from_yaml, "bool": to_bool, "regex_replace": regex_replace,
    "regex_search": regex_search, "regex_findall": regex_findall, "regex_escape": regex_escape,
    "ternary": ternary, "combine": combine, "mandatory": mandatory, "quote": quote, "b64encode": b64encode,
    "b64decode": b64decode, "dict2items": dict2items, "items2dict": items2dict, "flatten": flatten,
    "union": union, "intersect": intersect, "difference": difference,
    "symmetric_difference": symmetric_difference, "zip": zip_, "hash": hash_, "checksum": hash_,
    "to_uuid": to_uuid, "comment": comment, "splitext": splitext,
    "basename": lambda v: os.path.basename(str(v)), "dirname": lambda v: os.path.dirname(str(v)),
    "type_debug": lambda v: type(v).__name__, "strip": lambda v: str(v).strip(),
    # depend on the controller, the inventory, time or chance: opaque
    **{name: _opaque(name) for name in (
        "password_hash", "random", "shuffle", "json_query", "ipaddr", "ipv4", "ipv6", "ipwrap", "strftime",
        "to_datetime", "expanduser", "expandvars", "realpath", "relpath", "extract", "vault", "unvault",
        "human_readable", "human_to_bytes", "urlsplit", "win_basename", "win_dirname")},
}


def _match(value, pattern="", ignorecase=False, multiline=False) -> bool:
    return re.match(str(pattern), str(value), flags=_flags(ignorecase, multiline)) is not None


def _search(value, pattern="", ignorecase=False, multiline=False) -> bool:
    return re.search(str(pattern), str(value), flags=_flags(ignorecase, multiline)) is not None


def _version(value, version, operator="eq", strict=False, version_type=None) -> bool:
    def key(v):
        return [int(p) if p.isdigit() else p for p in re.split(r"[.\-+]", str(v))]
    a, b = key(value), key(version)
    try:
        op = {"eq": "==", "==": "==", "=": "==", "ne": "!=", "!=": "!=", "<>": "!=", "lt": "<", "<": "<",
              "le": "<=", "<=": "<=", "gt": ">", ">": ">", "ge": ">=", ">=": ">="}[operator]
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    except (KeyError, TypeError):
        return False


TESTS = {
    "match": _match, "search": _search, "regex": _search, "version": _version, "version_compare": _version,
    "subset": lambda a, b: all(x in b for x in a), "superset": lambda a, b: all(x in a for x in b),
    "contains": lambda seq, x: x in seq, "truthy": lambda v, convert_bool=False: bool(v),
    "falsy": lambda v, convert_bool=False: not bool(v), "any": lambda v: any(v), "all": lambda v: all(v),
}


def lookup(*args, **kw) -> Opaque:
    """``lookup()`` / ``query()``: read on the controller at deploy time."""
    what = _safe(str(args[0])) if args else "_"
    return Opaque("$lookup_" + what)


GLOBALS = {"lookup": lookup, "query": lambda *a, **k: [lookup(*a, **k)], "q": lambda *a, **k: [lookup(*a, **k)]}
