#!/usr/bin/env bash
# Fill a wheelhouse so that `pip install .` of this project works offline.
#
#   bash scripts/build_wheelhouse.sh [DEST]        (DEST defaults to ./wheelhouse)
#
# Used by the end-to-end pre-commit tests (tests/test_precommit_e2e.py): they
# run the real `pre-commit try-repo`, whose hook venv does `pip install .`
# with PIP_NO_INDEX=1 and PIP_FIND_LINKS=<wheelhouse>.  That install needs
#   * the build backend of [build-system].requires (setuptools, plus wheel
#     for older setuptools), installed by pip into its isolated build env;
#   * every runtime dependency of [project].dependencies, transitively.
# Both lists are read from pyproject.toml, so the wheelhouse follows the
# project's dependencies without editing this script.  `pip wheel` of the
# project resolves the runtime closure; the build requirements are fetched
# separately (pip keeps them out of the wheel dir otherwise).
#
# Wheels are built for the interpreter that runs this script ($PYTHON, else the
# active virtualenv's python, else python3): it must be the Python that
# pre-commit will use for the hook venv (same minor version and platform),
# because PyYAML and MarkupSafe ship compiled wheels.
#
# Needs the package registry; run it while the registry is reachable.  At the
# end it checks the result: a fresh venv installs the project from the
# wheelhouse with --no-index and no pip configuration at all (set
# PDLINT_WHEELHOUSE_NO_VERIFY=1 to skip that step).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:-wheelhouse}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

if [ -n "${PYTHON:-}" ]; then
    py=$PYTHON
elif [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
    py=$VIRTUAL_ENV/bin/python
else
    py=python3
fi
command -v "$py" >/dev/null 2>&1 || { echo "build_wheelhouse: no Python interpreter '$py'" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pdlint-wheelhouse.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

# A clean copy of the project (working tree, without VCS data, build output or
# local environments): `pip wheel .` builds in-tree, and must not leave build/
# behind in a checkout that others are working in.
"$py" - "$here" "$work/src" <<'PY'
import shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(
    ".git", "wheelhouse", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
    ".ruff_cache", ".mypy_cache", ".venv", "venv", ".oracle-venv", "out"))
PY

# [build-system].requires, one requirement a line.
"$py" - "$work/src/pyproject.toml" >"$work/build-requires.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
try:
    import tomllib
    reqs = tomllib.loads(text).get("build-system", {}).get("requires", [])
except ImportError:  # Python < 3.11: a small parse of the one array we need
    m = re.search(r"^\[build-system\][^\[]*?requires\s*=\s*\[(.*?)\]", text, re.S | re.M)
    reqs = re.findall(r"""["']([^"']+)["']""", m.group(1)) if m else []
reqs = list(reqs) or ["setuptools>=40.8.0"]
print("\n".join(reqs + ["wheel"]))
PY

echo "build_wheelhouse: $("$py" --version 2>&1) -> $dest"
# Build requirements (setuptools, wheel).
"$py" -m pip wheel --quiet --wheel-dir "$dest" -r "$work/build-requires.txt"
# The project and its whole runtime dependency closure (pdlint's own wheel is
# dropped below: `pip install .` builds it from the source).
"$py" -m pip wheel --quiet --wheel-dir "$dest" "$work/src"
rm -f "$dest"/pdlint-*.whl
# ruamel.yaml's optional C loader, when the platform has a binary wheel
# (ruamel.yaml 0.19 no longer depends on it; pip ignores it unless asked).
"$py" -m pip wheel --quiet --no-deps --only-binary :all: --wheel-dir "$dest" ruamel.yaml.clib >/dev/null 2>&1 \
    || echo "build_wheelhouse: note: no binary wheel of ruamel.yaml.clib for this platform (optional)"

ls -1 "$dest"

if [ "${PDLINT_WHEELHOUSE_NO_VERIFY:-0}" = 1 ]; then
    exit 0
fi
# Verify: a fresh venv installs the project offline from the wheelhouse alone
# (no index, no pip configuration files, no other find-links).
echo "build_wheelhouse: verifying an offline install into a fresh venv"
"$py" -m venv "$work/venv"
PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_FIND_LINKS="$dest" PIP_CONSTRAINT='' \
    "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$work/src"
"$work/venv/bin/pdlint" --version
echo "build_wheelhouse: ok"
