"""Machine output (``--format json``), a stable contract::

    {"version": 1, "files": N, "findings": [...], "launches": [...], "pairs": [...]}

A finding: path (relative to the working directory, '/'-separated), line,
column (1-based), code, name, severity, role, message, related[{path, line,
column, note}] (plus ``fix`` and ``engine_version`` when known).  A launch:
path, line, role, engine, entrypoint, argv (what the server's argument parser
sees: ``--config`` files merged), origins[{path, line, column}] (one per argv
token; ``via`` lists the references it was reached through).

``pairs`` (added in the same version; readers that do not know it ignore it)
lists the deployments pdlint paired (:mod:`pdlint.pairing`), each with at
least one pair or router link: ``unit`` (the deployment key), ``how`` (one
deployment unit, one file, or the sibling files that were joined), ``pairs``
[{engine, prefill, decode, prefill_variants, decode_variants}] and
``routers`` [{router, role, how (url | selector | discovery), target,
bootstrap_port, servers[]}].  A launch reference is {launch (index into
``launches``), path, line, role}.  ``pdlint show --format json`` carries the
same key.

``coverage`` (added in the same version) says what was checked
(:mod:`pdlint.coverage`): ``launches`` checked, by role (``prefill``,
``decode``, ``other``, ``routers``), ``files_with_launches``, ``unchecked``
(places with launch text no checked launch covers, plus launch gaps), and
``files``: per scanned file {status (checked | partial | unchecked | error |
none), launches (how many checked launches read it), unchecked [{line, column,
code, reason, hint, text, end_line}], error}.
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
