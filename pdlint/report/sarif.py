"""``--format sarif``: SARIF 2.1.0, what GitHub code scanning and other CI
dashboards read (``github/codeql-action/upload-sarif``).

One run; ``tool.driver.rules`` describes every rule that has a result (code,
kebab name, What it does / Why is this bad / Fix, the full rule docs as
``help.markdown``, default level).  A result carries the rule, the level
(``error`` / ``warning``), the message, the location to edit (relative to
``%SRCROOT%``: the git work tree pdlint ran in, else the directory it ran in),
and every ``related:`` location of the text output as a related location.
The prefill/decode role and the engine release checked are result
properties.  Output is deterministic: results in the order of the findings
(sorted), rules by code.  Always valid UTF-8 JSON: URIs percent-encode the
bytes of a name that is not UTF-8, and strings are made safe for a CI log as
in ``--format json`` (:mod:`pdlint.report.escape`).
"""

from __future__ import annotations

import json
import os
import urllib.parse

from pdlint import __version__
from pdlint.report import role_label
from pdlint.report import escape as esc

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def render(findings: list, cwd: str) -> str:
    from pdlint.rules import all_rules
    rules = all_rules()
    codes = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    descriptors = [_descriptor(rules[c]) if c in rules else {"id": c} for c in codes]
    results = [_result(f, index[f.code]) for f in findings]
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pdlint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": _dir_uri(cwd)}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return esc.json_text(json.dumps(esc.json_doc(doc), indent=2, ensure_ascii=False)) + "\n"


def _descriptor(rule) -> dict:
    d = {
        "id": rule.code,
        "name": rule.name,
        # SARIF: the short one a single sentence, the full one the whole (field test rw19/c: PD020's short was
        # the longer of the two)
        "shortDescription": {"text": _first_sentence(rule.summary)},
        "fullDescription": {"text": " ".join(t for t in (rule.summary, rule.why) if t)},
        "help": {"text": rule.fix or rule.summary, "markdown": rule.docs()},
        "defaultConfiguration": {"level": _level(rule.severity)},
        "properties": {"tags": list(dict.fromkeys(t for t in (rule.engine, rule.category) if t))},
    }
    return d


def _first_sentence(text: str) -> str:
    """Up to the first ". " outside backquotes and parentheses (the whole text when there is none)."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == "`":
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "." and not quoted and depth == 0 and text[i + 1:i + 2] in (" ", ""):
            return text[:i + 1]
    return text


def _result(f, rule_index: int) -> dict:
    r = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _level(f.severity),
        "message": {"text": (f"[{role_label(f.role)}] " if f.role else "") + f.message},
        "locations": [_location(f.path, f.line, f.column, f.end)],
    }
    if f.related:
        r["relatedLocations"] = [
            dict(_location(x.path, x.line, x.column), id=i, message={"text": x.note})
            for i, x in enumerate(f.related)]
    props = {}
    if f.role is not None:
        props["role"] = f.role
    if f.engine_version:
        props["engineVersion"] = f.engine_version
    if f.fix:
        props["fix"] = f.fix
    if props:
        r["properties"] = props
    return r


def _location(path: str, line: int, column: int, end=None) -> dict:
    region = {"startLine": max(1, line), "startColumn": max(1, column)}
    if end is not None:  # (end line, end column): exclusive, as SARIF's endColumn
        region["endLine"], region["endColumn"] = end
    # the URI of the name's bytes (os.fsencode): a name that is not UTF-8 is percent-encoded byte for byte
    if path.startswith("/"):  # outside the working directory: pdlint reports it absolute
        artifact = {"uri": "file://" + urllib.parse.quote(os.fsencode(path))}
    elif path.startswith("<"):  # not a file ("<command line>")
        artifact = {"uri": urllib.parse.quote(os.fsencode(path))}
    else:
        artifact = {"uri": urllib.parse.quote(os.fsencode(path)), "uriBaseId": SRCROOT}
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _dir_uri(path: str) -> str:
    p = os.path.abspath(path).replace(os.sep, "/")
    if not p.startswith("/"):
        p = "/" + p  # a Windows drive path
    return "file://" + urllib.parse.quote(os.fsencode(p.rstrip("/") + "/"))


def _level(severity: str) -> str:
    return "error" if severity == "error" else "warning"
