"""The ``--format json`` contract: real outputs validate against docs/pdlint-json.schema.json (the demo, a
findings-heavy run over the corpus copies, coverage, a baseline run, ``show --format json``, ``--statistics``,
an empty run), and docs/json.md documents every field the schema names.

The validator is a small one written here for the JSON Schema keywords the schema uses (type, enum, const,
properties, required, additionalProperties, items, minimum, pattern, oneOf, $ref, dependentRequired): it
keeps the test extra to pytest and pre-commit.  ``test_the_validator_rejects`` shows it can fail."""

import json
import os
import re

import pytest

from pdlint.cli import main

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(REPO, "docs", "pdlint-json.schema.json")
DOC_PATH = os.path.join(REPO, "docs", "json.md")

with open(SCHEMA_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

_TYPES = {"object": dict, "array": list, "string": str, "null": type(None), "boolean": bool}


def _is(value, t: str) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def errors(value, schema: dict, path: str = "$", root: dict = SCHEMA) -> list:
    """Every way ``value`` breaks ``schema`` (empty: valid)."""
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return errors(value, root["$defs"][ref[len("#/$defs/"):]], path, root)
    out = []
    known = {"type", "enum", "const", "properties", "required", "additionalProperties", "items", "minimum",
             "pattern", "oneOf", "dependentRequired", "title", "description", "$schema", "$defs"}
    assert set(schema) <= known, f"the test validator does not know {set(schema) - known}"
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, t) for t in types):
            return [f"{path}: {type(value).__name__} is not {'/'.join(types)}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        out.append(f"{path}: {value} < {schema['minimum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        out.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for k in schema.get("required", ()):
            if k not in value:
                out.append(f"{path}: {k!r} is required")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                out += errors(v, props[k], f"{path}.{k}", root)
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: {k!r} is not in the schema")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(v, schema["additionalProperties"], f"{path}[{k!r}]", root)
        for k, needs in schema.get("dependentRequired", {}).items():
            if k in value:
                out += [f"{path}: {k!r} needs {n!r}" for n in needs if n not in value]
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += errors(v, schema["items"], f"{path}[{i}]", root)
    if "oneOf" in schema:
        results = [errors(value, s, path, root) for s in schema["oneOf"]]
        ok = sum(1 for r in results if not r)
        if ok != 1:
            best = min(results, key=len)
            out.append(f"{path}: matches {ok} of the oneOf alternatives" + (f" ({best[:3]})" if best else ""))
    return out


def run(capsys, *args) -> tuple:
    code = main(["--no-cache", *args]) if args[0] != "show" else main(list(args))
    out = capsys.readouterr().out
    return code, json.loads(out)


def valid(doc) -> None:
    problems = errors(doc, SCHEMA)
    assert problems == [], problems[:20]


def test_the_demo_report_validates(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, doc = run(capsys, "--format", "json", "fixtures")
    assert code == 1 and doc["findings"] and doc["coverage"]["files"]
    valid(doc)
    ends = [f for f in doc["findings"] if "end_column" in f]
    assert ends and all(f["end_line"] >= f["line"] for f in ends)  # the token's end is in the report


def test_a_findings_heavy_run_validates(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, doc = run(capsys, "--format", "json", "--extend-select", "ALL", "tests/data")
    assert len(doc["findings"]) > 100 and len(doc["launches"]) > 100 and doc["pairs"]
    assert any(r for d in doc["pairs"] for r in d["routers"])
    assert any(fc["unchecked"] for fc in doc["coverage"]["files"].values())  # coverage spots too
    valid(doc)


def test_show_and_statistics_validate(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, doc = run(capsys, "show", "--format", "json", "fixtures")
    assert code == 0 and doc["launches"] and "findings" not in doc
    valid(doc)
    code, doc = run(capsys, "--format", "json", "--statistics", "fixtures")
    assert isinstance(doc, list) and doc
    valid(doc)


def test_an_empty_run_and_a_baseline_run_validate(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, doc = run(capsys, "--format", "json", ".")
    assert code == 0 and doc["files"] == 0
    valid(doc)
    code, doc = run(capsys, "--format", "json", "--statistics", ".")
    assert doc == []
    valid(doc)
    (tmp_path / "run.sh").write_text("python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "
                                     "--enable-linear-replayssm-spec --tp-size 2 --tp-size 4\n")
    main(["--no-cache", "--write-baseline", "b.json", "."])
    (tmp_path / "run.sh").write_text("python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill "
                                     "--enable-linear-replayssm-spec\n")
    capsys.readouterr()
    code, doc = run(capsys, "--format", "json", "--baseline", "b.json", ".")
    assert doc["baseline"]["baselined"] == 1 and doc["baseline"]["stale"]
    valid(doc)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(version=2), "is not 1"),
    (lambda d: d["findings"][0].pop("code"), "'code' is required"),
    (lambda d: d["findings"][0].update(severity="info"), "is not one of"),
    (lambda d: d["findings"][0].update(line=0), "0 < 1"),
    (lambda d: d["findings"][0].update(surprise=1), "'surprise' is not in the schema"),
    (lambda d: d["findings"][0].pop("end_line"), "'end_column' needs 'end_line'"),
    (lambda d: d["launches"][0].update(kind="daemon"), "is not one of"),
    (lambda d: d.update(files="10"), "str is not integer"),
])
def test_the_validator_rejects(capsys, monkeypatch, mutate, message):
    monkeypatch.chdir(REPO)
    _, doc = run(capsys, "--format", "json", "fixtures")
    doc["findings"].sort(key=lambda f: "end_line" not in f)
    mutate(doc)
    assert any(message in p for p in errors(doc, SCHEMA)), errors(doc, SCHEMA)


def _schema_fields(schema: dict, out: set) -> set:
    if isinstance(schema, dict):
        for k, v in schema.get("properties", {}).items():
            out.add(k)
            _schema_fields(v, out)
        for k, v in schema.items():
            if k != "properties":
                _schema_fields(v, out)
    elif isinstance(schema, list):
        for v in schema:
            _schema_fields(v, out)
    return out


def test_docs_json_md_names_every_field_of_the_schema():
    with open(DOC_PATH, encoding="utf-8") as f:
        doc = f.read()
    missing = sorted(k for k in _schema_fields(SCHEMA, set()) if f"`{k}`" not in doc)
    assert missing == [], f"docs/json.md does not describe {missing}"
    from pdlint.report.jsonfmt import VERSION
    assert f"version {VERSION}" in doc
