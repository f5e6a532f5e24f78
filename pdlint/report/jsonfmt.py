"""Machine output (``--format json``), a stable contract::

    {"version": 1, "files": N, "findings": [...], "launches": [...], "pairs": [...], "coverage": {...}}

``docs/json.md`` documents every field (types, when present, the version policy: additions keep the
version, a changed field bumps it) and ``docs/pdlint-json.schema.json`` is its JSON Schema, which the test
suite validates real outputs against.  A finding: :meth:`pdlint.model.Finding.as_dict` (``end_line`` /
``end_column``: the token's exclusive end, when it points at one); a launch: :func:`launch_dict`; ``pairs``:
:func:`pdlint.pairing.as_dicts`; ``coverage``: :meth:`pdlint.coverage.Coverage.as_dict`; ``baseline`` (with
``--baseline``): :meth:`pdlint.baseline.Outcome.as_dict`.
"""

from __future__ import annotations

import json

VERSION = 1


def render(findings: list, launches: list, files: int, coverage=None, docs=None, baseline=None) -> str:
    """The report; ``docs`` (launch dicts, pair dicts) stand for ``launches`` when the result cache made them."""
    if docs is None:
        from pdlint.pairing import as_dicts, pair_launches
        docs = ([launch_dict(l) for l in launches], as_dicts(pair_launches(launches), launches))
    doc = {
        "version": VERSION,
        "files": files,
        "findings": [f.as_dict() for f in findings],
        "launches": docs[0],
        "pairs": docs[1],
    }
    if coverage is not None:
        doc["coverage"] = coverage.as_dict()
    if baseline is not None:  # --baseline: what it held back, its stale entries (pdlint.baseline.Outcome)
        doc["baseline"] = baseline.as_dict()
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def launch_dict(launch) -> dict:
    """A launch; ``argv`` is what the server's parser sees (``--config`` files merged)."""
    from pdlint.check import launch_tokens
    d = launch.as_dict()
    tokens = launch_tokens(launch)
    d["argv"] = [t.text for t in tokens]
    d["origins"] = [t.origin.as_dict() for t in tokens]
    info = launch.parsed
    if info is not None and hasattr(info, "version"):
        d["engine_version"] = info.version
    return d
