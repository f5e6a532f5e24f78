"""The baseline: the stage after suppressions.

``pdlint --write-baseline FILE`` records the findings of a run;
``pdlint --baseline FILE`` then reports only the findings the file does not
hold (the exit code comes from those alone), so a repository that already has
findings can gate what is new.  The file::

    {
      "pdlint-baseline": 1,
      "findings": [
        {"path": "k8s/app.yaml", "code": "SGL101", "role": "prefill", "token": "--enable-linear-replayssm-spec", "count": 1},
        {"path": "scripts/run.sh", "code": "PD001", "role": null, "message": "...", "count": 1}
      ]
    }

A finding is keyed by its path (relative to the repository that holds the
baseline file, '/'-separated, so the file works from any working directory),
its code, its role and the text it points at (``token``: the flag, key or word
at the finding's location); a finding that points at no text is keyed by its
message with line and column numbers and the engine release taken out
(``message``).  Line numbers are never part of a key: moving lines,
re-ordering launches or editing other lines keeps a baselined finding
baselined.  ``count`` is how many findings have the key (an entry without it
counts 1, and two entries with one key add up); a run with more findings of a
key than the baseline holds reports the extra ones (which of them is the
"new" one cannot be told, so they are the last in report order).

Entries that no finding of the run matched are *stale* (the finding was fixed,
or its flag or file renamed).  As phpstan's and detekt's baselines, stale
entries never fail the run; they are said on stderr (a warning line per entry)
and in the JSON report's ``baseline`` object, and ``--write-baseline`` drops
them.  Only entries of files the run scanned (or of files that no longer exist
under a directory it scanned) can be stale: a pre-commit run on the staged
files says nothing about the others.

The file is deterministic and diff-friendly: JSON, one entry per key and per
line, sorted by path, code, role and text, with a final newline.  A file that is not valid JSON, is not a pdlint
baseline, has another format version or an entry of the wrong shape is a usage
error (exit 2).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections import Counter
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass, field

FORMAT_KEY = "pdlint-baseline"
VERSION = 1
MAX_BYTES = 50_000_000  # a baseline larger than this is refused (the file comes from the repository)
MAX_STALE_SHOWN = 20  # stale entries listed one per warning line; the rest are counted

_POSITION = lazyre.compile(r"(?<=[\w/.\-\]]):\d+(?::\d+)?")  # path:12 / path:12:5 -> path
_LINE_WORD = lazyre.compile(r"\b(line|lines|column|col|byte|offset)s?\s+\d+(?:\s*[-\u2013]\s*\d+)?", re.I)
_RELEASE = lazyre.compile(r"\s*\[(?:SGLang|vLLM|TRT-LLM|TensorRT-LLM|Dynamo)\s[^\]]*\]\s*$")
_SPACE = lazyre.compile(r"\s+")


class BaselineError(Exception):
    """The baseline file cannot be used (the CLI reports it as a usage error)."""


@dataclass(frozen=True)
class Key:
    path: str  # relative to the baseline's root, '/'-separated
    code: str
    role: Optional[str]
    kind: str  # "token" | "message"
    text: str

    def sort_key(self) -> tuple:
        return (self.path, self.code, self.role or "", self.kind, self.text)

    def as_dict(self, count: int) -> dict:
        return {"path": self.path, "code": self.code, "role": self.role, self.kind: self.text, "count": count}

    def describe(self) -> str:
        role = f" [{self.role}]" if self.role else ""
        text = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return f"{self.path}: {self.code}{role} {text}"


@dataclass
class Baseline:
    path: str  # as given on the command line
    root: str  # absolute: the directory baseline paths are relative to
    entries: Counter = field(default_factory=Counter)  # Key -> count


@dataclass
class Outcome:
    """What the baseline stage did to one run's findings."""

    file: str  # the baseline as given on the command line
    baselined: int = 0  # findings the baseline held (not reported)
    stale: list = field(default_factory=list)  # [(Key, count)] sorted

    def as_dict(self) -> dict:
        return {"file": self.file, "baselined": self.baselined,
                "stale": [k.as_dict(n) for k, n in self.stale]}

    def warnings(self, command: str = "pdlint --write-baseline") -> list:
        if not self.stale:
            return []
        n = sum(c for _, c in self.stale)
        out = [f"{self.file}: {n} baseline entr{'y' if n == 1 else 'ies'} no longer found (fixed or renamed); "
               f"`{command} {self.file}` drops {'it' if n == 1 else 'them'}"]
        for k, c in self.stale[:MAX_STALE_SHOWN]:
            out.append(f"{self.file}: stale: {k.describe()}" + (f" (x{c})" if c > 1 else ""))
        if len(self.stale) > MAX_STALE_SHOWN:
            out.append(f"{self.file}: ... and {len(self.stale) - MAX_STALE_SHOWN} more stale entries")
        return out


def root_for(abspath: str) -> str:
    """The directory a baseline's paths are relative to: the git repository that holds it, else its directory."""
    from pdlint.discover import repo_root
    return repo_root(abspath, {}) or os.path.dirname(abspath)


def _rel(path: str, cwd: str, root: str) -> str:
    if path.startswith("<"):  # not a file ("<command line>")
        return path
    abspath = os.path.normpath(os.path.join(cwd, path))
    try:
        rel = os.path.relpath(abspath, root)
    except ValueError:  # another drive (Windows)
        return abspath.replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def normalise_message(message: str) -> str:
    """A message without the numbers that change when lines move (and without the engine release)."""
    m = _RELEASE.sub("", message)
    m = _POSITION.sub("", m)
    m = _LINE_WORD.sub(lambda x: x.group(1).lower() + " N", m)
    return _SPACE.sub(" ", m).strip()


def key_of(finding, cwd: str, root: str) -> Key:
    path = _rel(finding.path, cwd, root)
    token = finding.token
    if token is not None and token.strip():
        return Key(path, finding.code, finding.role, "token", _SPACE.sub(" ", token).strip())
    return Key(path, finding.code, finding.role, "message", normalise_message(finding.message))


# -- the file ----------------------------------------------------------------------------------------------

def load(path: str, cwd: str) -> Baseline:
    abspath = os.path.abspath(os.path.join(cwd, path))
    from pdlint.safeio import BIG, MISSING, Boundary, Refused
    try:  # a regular file inside its repository (pdlint.safeio): never a FIFO or a symlink out of it
        data = Boundary(cwd, [path]).read(abspath, limit=MAX_BYTES)
    except Refused as e:
        if e.kind == MISSING and not os.path.islink(abspath):
            raise BaselineError(f"{path}: baseline file not found (write one with `pdlint --write-baseline "
                                f"{path}`)") from None
        if e.kind == BIG:
            raise BaselineError(f"{path}: the baseline is larger than {MAX_BYTES} bytes") from None
        raise BaselineError(f"{path}: cannot read the baseline: {e.reason}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise BaselineError(f"{path}: not a pdlint baseline: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise BaselineError(f"{path}: not a pdlint baseline: invalid JSON at line {e.lineno} column {e.colno}: "
                            f"{e.msg}") from None
    except RecursionError:
        raise BaselineError(f"{path}: not a pdlint baseline: JSON nested too deeply") from None
    except ValueError as e:  # (after JSONDecodeError, its subclass) an integer of more than 4300 digits
        from pdlint.config import value_error
        raise BaselineError(f"{path}: not a pdlint baseline: {value_error(e)}") from None
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise BaselineError(f"{path}: not a pdlint baseline (no \"{FORMAT_KEY}\" key; write one with "
                            f"`pdlint --write-baseline {path}`)")
    version = doc[FORMAT_KEY]
    if version != VERSION or isinstance(version, bool):
        raise BaselineError(f"{path}: baseline format version {json.dumps(version)} is not supported (this pdlint "
                            f"reads version {VERSION}); regenerate it with `pdlint --write-baseline {path}`")
    items = doc.get("findings")
    if not isinstance(items, list):
        raise BaselineError(f"{path}: \"findings\" must be a list")
    entries: Counter = Counter()
    for i, item in enumerate(items):
        entries[_entry(item, i, path)] += _count(item, i, path)
    return Baseline(path, root_for(abspath), entries)


def _entry(item, i: int, path: str) -> Key:
    def bad(why: str) -> BaselineError:
        return BaselineError(f"{path}: findings[{i}]: {why}")

    if not isinstance(item, dict):
        raise bad("an entry must be an object")
    for k in ("path", "code"):
        if not isinstance(item.get(k), str) or not item[k]:
            raise bad(f"\"{k}\" must be a non-empty string")
    role = item.get("role")
    if role is not None and not isinstance(role, str):
        raise bad("\"role\" must be a string or null")
    kinds = [k for k in ("token", "message") if k in item]
    if len(kinds) != 1 or not isinstance(item[kinds[0]], str):
        raise bad("an entry needs a string \"token\" or a string \"message\" (one of them)")
    unknown = sorted(set(item) - {"path", "code", "role", "token", "message", "count"})
    if unknown:
        raise bad(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}")
    text = item[kinds[0]]
    text = _SPACE.sub(" ", text).strip() if kinds[0] == "token" else normalise_message(text)
    return Key(item["path"], item["code"], role, kinds[0], text)


def _count(item: dict, i: int, path: str) -> int:
    n = item.get("count", 1)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise BaselineError(f"{path}: findings[{i}]: \"count\" must be a positive integer")
    return n


def dumps(findings: list, cwd: str, root: str, kept: Optional[Counter] = None) -> str:
    """The baseline text for ``findings`` (plus the entries ``kept``), deterministic: one entry per key, sorted."""
    counts = Counter(key_of(f, cwd, root) for f in findings)
    counts.update(kept or {})
    rows = [json.dumps(k.as_dict(counts[k]), ensure_ascii=False) for k in sorted(counts, key=Key.sort_key)]
    body = "".join(f"    {r}{',' if i < len(rows) - 1 else ''}\n" for i, r in enumerate(rows))
    return f'{{\n  "{FORMAT_KEY}": {VERSION},\n  "findings": [' + (f"\n{body}  " if rows else "") + "]\n}\n"


def write(path: str, findings: list, cwd: str, scanned=(), scopes: list = ()) -> int:
    """Write the baseline of ``findings`` to ``path`` (a temporary file renamed into place); returns
    (entries written, entries kept from the existing file).  The entries an existing baseline holds for files outside the run (see
    :func:`apply`: not scanned, and not gone from a directory it walked) are kept, so that a run on some
    files (``pdlint --write-baseline b.json k8s/``) updates their entries only; an existing file that is
    not a valid baseline is replaced."""
    abspath = os.path.abspath(os.path.join(cwd, path))
    try:
        st = os.lstat(abspath)
    except OSError:
        st = None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        # (a device, a FIFO, a directory: renamed over, `--write-baseline /dev/full` replaced the device node with a
        # file and said "Wrote 1 finding" - hostile-input round rw27/h P27)
        raise BaselineError(f"{path}: cannot write the baseline: not a regular file")
    root = root_for(abspath)
    kept: Counter = Counter()
    if os.path.lexists(abspath):
        try:
            old = load(path, cwd)
        except BaselineError:
            old = None
        if old is not None:
            inside = _scope(old, findings, cwd, scanned, scopes)
            kept = Counter({k: n for k, n in old.entries.items() if not inside(k.path)})
    text = dumps(findings, cwd, root, kept)
    from pdlint.fix import replace_file
    try:
        mode = os.stat(abspath).st_mode & 0o7777 if os.path.isfile(abspath) else 0o644
        replace_file(abspath, text.encode("utf-8"), mode, ".pdlint-baseline-")
    except OSError as e:
        raise BaselineError(f"{path}: cannot write the baseline: {e.strerror or e}") from None
    return len(json.loads(text)["findings"]), len(kept)


# -- the stage ----------------------------------------------------------------------------------------------

def apply(findings: list, baseline: Baseline, cwd: str, scanned, scopes: list) -> tuple:
    """(findings not in the baseline, :class:`Outcome`).

    ``findings`` are in report order; ``scanned`` are the display paths of the
    files the run scanned, ``scopes`` the absolute directories it walked (an
    entry of a file that no longer exists under one of them is stale too).
    """
    left = Counter(baseline.entries)
    kept = []
    baselined = 0
    for f in findings:
        k = key_of(f, cwd, baseline.root)
        if left[k] > 0:
            left[k] -= 1
            baselined += 1
        else:
            kept.append(f)
    inside = _scope(baseline, findings, cwd, scanned, scopes)
    stale = sorted(((k, n) for k, n in left.items() if n > 0 and inside(k.path)), key=lambda kn: kn[0].sort_key())
    return kept, Outcome(baseline.path, baselined, stale)


def _scope(baseline: Baseline, findings: list, cwd: str, scanned, scopes):
    """Is a baseline path (relative to its root) one the run judged?  A file it scanned or placed a
    finding in, or a file that no longer exists under a directory it walked."""
    inside = {_rel(p, cwd, baseline.root) for p in scanned}
    inside |= {_rel(f.path, cwd, baseline.root) for f in findings}
    prefixes = tuple(s.rstrip(os.sep) + os.sep for s in scopes)

    def judged(rel: str) -> bool:
        if rel in inside:
            return True
        if rel.startswith("<") or not prefixes:
            return False
        abspath = os.path.normpath(os.path.join(baseline.root, rel))
        return abspath.startswith(prefixes) and not os.path.lexists(abspath)

    return judged
