"""Machine output (``--format json``), a stable contract::

    {"version": 1, "files": N, "findings": [...], "launches": [...], "pairs": [...], "coverage": {...}}

``docs/json.md`` documents every field (types, when present, the version policy: additions keep the
version, a changed field bumps it) and ``docs/pdlint-json.schema.json`` is its JSON Schema, which the test
suite validates real outputs against.  A finding: :meth:`pdlint.model.Finding.as_dict` (``end_line`` /
``end_column``: the token's exclusive end, when it points at one); a launch: :func:`launch_dict`; ``pairs``:
:func:`pdlint.pairing.as_dicts`; ``coverage``: :meth:`pdlint.coverage.Coverage.as_dict`; ``baseline`` (with
``--baseline``): :meth:`pdlint.baseline.Outcome.as_dict`.

File names (every ``path``, the keys of ``coverage.files``) are written
reversibly as valid UTF-8 (:func:`pdlint.report.escape.name`): a name whose
bytes are not UTF-8 has each such byte as ``%XX`` and each ``%`` as ``%25``
(as has a name already holding ``%XX``); every other name is unchanged.  The
bytes of the name are ``urllib.parse.unquote_to_bytes(path)``.  Characters a
terminal or CI log could act on (C1 controls, bidi overrides, line
separators, ``##[``) are written as ``\\uNNNN`` escapes: the parsed value is
the same.
"""

from __future__ import annotations

import json

VERSION = 1


def render(findings: list, launches: list, files: int, coverage=None, docs=None, baseline=None) -> str:
    """The report; ``docs`` (launch dicts, pair dicts) stand for ``launches`` when the result cache made them."""
    if docs is None:
        from pdlint.pairing import as_dicts, pair_launches_isolated
        docs = ([launch_dict(l) for l in launches], as_dicts(pair_launches_isolated(launches), launches))
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
    return dumps(doc)


def dumps(doc) -> str:
    """The JSON text of a report: valid UTF-8 whatever the file names (see the module docstring)."""
    from pdlint.report import escape
    return escape.json_text(json.dumps(escape.json_doc(doc), indent=2, sort_keys=False, ensure_ascii=False)) + "\n"


def launch_dict(launch, written: bool = False) -> dict:
    """A launch; ``argv`` is what the server's parser sees (``--config`` files merged); with ``written``
    (``pdlint show``) also every token as written, those the parser does not see marked ``consumed``."""
    from pdlint.check import launch_tokens, written_tokens
    d = launch.as_dict()
    tokens = launch_tokens(launch)
    d["argv"] = [t.text for t in tokens]
    d["origins"] = [t.origin.as_dict() for t in tokens]
    if written:
        d["written"] = []
        for t, consumed in written_tokens(launch):
            w = {"text": t.text, "origin": t.origin.as_dict()}
            if consumed:
                w["consumed"] = consumed
            d["written"].append(w)
    info = launch.parsed
    if info is not None and hasattr(info, "version"):
        d["engine_version"] = info.version
    return d
