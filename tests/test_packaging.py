"""The wheel carries every data file pdlint reads at run time."""

import fnmatch
import os
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_package_data_covers_every_data_file():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    missing = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "pdlint")):
        if os.path.basename(dirpath) != "data":
            continue
        package = os.path.relpath(os.path.dirname(dirpath), ROOT).replace(os.sep, ".")
        for name in filenames:
            if name.endswith(".md"):
                continue  # notes on how the tables were made, not read at run time
            rel = "data/" + name
            if not any(fnmatch.fnmatch(rel, p) for p in patterns.get(package, ())):
                missing.append(f"{package}: {rel}")
    assert missing == []


# the distribution each third-party top-level module comes from
DISTRIBUTIONS = {"jinja2": "jinja2", "yaml": "pyyaml", "ruamel": "ruamel.yaml", "tree_sitter": "tree-sitter",
                 "tree_sitter_bash": "tree-sitter-bash", "tomli": "tomli"}


def _requirement_name(req: str) -> str:
    import re
    return re.split(r"[\s<>=!~;\[]", req, 1)[0].lower().replace("_", "-")


def _imported_top_levels() -> set:
    import ast
    out = set()
    for dirpath, _, filenames in os.walk(os.path.join(ROOT, "pdlint")):
        for name in filenames:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    out |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    out.add(node.module.split(".")[0])
    return out - {"pdlint", "__future__"} - set(sys.stdlib_module_names)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="sys.stdlib_module_names")
def test_runtime_dependencies_are_exactly_what_pdlint_imports():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    runtime = {_requirement_name(r) for r in project["dependencies"]}
    imported = _imported_top_levels()
    assert imported <= set(DISTRIBUTIONS), f"map these modules to their distribution: {imported - set(DISTRIBUTIONS)}"
    assert runtime == {DISTRIBUTIONS[m] for m in imported}
    # pre-commit runs the end-to-end tests; nothing in pdlint/ or hooks/ imports it
    assert "pre-commit" not in runtime
    assert "pre-commit" in {_requirement_name(r) for r in project["optional-dependencies"]["test"]}
    for name in os.listdir(os.path.join(ROOT, "hooks")):
        with open(os.path.join(ROOT, "hooks", name), encoding="utf-8") as f:
            text = f.read()
        assert "import pre_commit" not in text and "from pre_commit" not in text, name


def test_a_check_run_does_not_import_ruamel_but_fix_does():
    """ruamel.yaml is for --fix only: a check run never loads it (python -X importtime shows the same)."""
    import subprocess
    probe = ("import sys; from pdlint.cli import main; main(sys.argv[1:]); "
             "sys.stderr.write('RUAMEL=%d\\n' % any(m.split('.')[0] == 'ruamel' for m in sys.modules))")
    for args, loaded in ((["--no-cache", "fixtures"], 0), (["--no-cache", "--diff", "fixtures"], 1)):
        r = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=300,
                           env={**os.environ, "PDLINT_NO_WORKER": "1"})  # sys.modules of this process
        assert f"RUAMEL={loaded}" in r.stderr, (args, r.stderr[-2000:])


def test_every_config_key_is_documented_in_the_readme():
    """README's Configuration table has a row for every key pdlint.config knows (and every jinja key)."""
    import re
    from pdlint.config import KNOWN_KEYS
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    m = re.search(r"^## Configuration\n(.*?)^## ", readme, re.S | re.M)
    assert m, "README has no Configuration section"
    section = m.group(1)
    rows = set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))
    assert sorted(set(KNOWN_KEYS) - rows) == []
    assert sorted(rows - set(KNOWN_KEYS)) == []  # no row for a key pdlint does not read
    for key in ("preset", "trim-blocks", "lstrip-blocks", "keep-trailing-newline", "extensions", "filters"):
        assert f"`{key}`" in section, key
