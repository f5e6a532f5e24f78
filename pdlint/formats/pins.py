"""The engine release a script runs with, when a file beside it says so.

A launch's release is pinned by its container image's tag (``docker run vllm/vllm-openai:v0.17.0 ...``, a
Kubernetes ``image:``).  A script whose launches name no image often still runs with a pinned release, written
in a file next to it (field test rw7/a):

* **a Dockerfile that runs it**: ``FROM vllm/vllm-openai:v0.17.0`` ... ``COPY docker-entrypoint.sh
  /usr/local/bin/`` ... ``ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]`` (littlemex/
  pd-disaggregated-inference-on-aws): the script runs in the final stage's image.  The Dockerfile must name
  the script: a ``COPY``/``ADD`` of it by name, or an ``ENTRYPOINT``/``CMD`` that names it (``COPY . /app``
  with ``CMD ["bash", "start.sh"]``).  The image is the final stage's ``FROM`` (through the stages it is
  built on), its ``ARG`` defaults substituted.  A ``RUN pip install "sglang[all]==0.5.9"`` in that stage
  (or one it is built on) pins the engine's release too (a ``python:3.11`` base names no engine);
* **a pip pin**: ``vllm==0.7.3`` (``sglang[all]==0.4.8``, ``tensorrt_llm==1.0.0``) in a ``requirements*.txt``
  or in a ``pyproject.toml``'s ``[project] dependencies`` (wang-zr12/PD-Disaggregation-Eval).  Only an exact
  ``==`` pin is one; a range pins nothing.

The nearest directory that has such a file wins, from the script's own up to the repository root.  A launch's
own image (``docker run IMAGE``, ``srun --container-image``) always wins over these; the config's
``sglang-version`` / ``vllm-version`` over everything.  The files are read through the repository boundary and
recorded for the result cache, their absence too (``Dockerfile``, ``Containerfile``, ``requirements.txt``,
``pyproject.toml`` in each directory searched).

A script that installs the engine itself before it starts it (``pip install "sglang[all]==0.5.9"``, a SkyPilot
task's ``setup:``) pins the release of the launches it starts after that install (:func:`install_pins`,
``extract.Extractor.shell``): that pin wins over a file beside the script, a launch's own image over it.
"""

from __future__ import annotations

import json
import os
import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.formats.dockerfile import is_dockerfile

#: pip names -> the engine whose release they pin (launch.meta["pins"])
PACKAGES = {"vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "trtllm", "tensorrt_llm": "trtllm",
            "sglang-router": "sglang-router"}  # (the router's release: PD111 judges its flags)
#: names probed in every directory searched (recorded, present or not, for the result cache)
PROBED = ("Dockerfile", "Containerfile", "requirements.txt", "pyproject.toml")
_REQUIREMENTS = lazyre.compile(r"^requirements[\w.-]*\.txt$", re.I)
_PIN = lazyre.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*===?\s*(?P<version>[0-9][\w.+-]*)\s*(?:;.*)?$")
#: what separates the commands of a shell text (a ``RUN`` line, a SkyPilot ``setup:``): operators and newlines
_SHELL_LIST = lazyre.compile(r"&&|\|\||;|\||\n")
MAX_DIRS = 32  # directories searched above a script
MAX_LINES = 20_000  # lines of one Dockerfile or requirements file read
MAX_DEPENDENCIES = 1_000  # a pyproject.toml's dependencies read


def release_pins(script: str, root: str, read: Callable[[str], Optional[str]],
                 probe: Callable[[str], None], listdir: Callable[[str], list] = os.listdir) -> dict:
    """``{"image": (image, path, line)}`` and/or ``{"vllm"|"sglang"|"trtllm": (version, path, line)}`` for the
    script at ``script`` (absolute), from the nearest directory at or above it (up to ``root``) holding a
    Dockerfile that runs it, and the nearest holding a pip pin.  ``read``: the text of a file inside the
    repository, None when it cannot be read; ``probe``: called with every path looked at; ``listdir``: the
    names in a directory."""
    out: dict = {}
    name = os.path.basename(script)
    root = os.path.abspath(root)
    d = os.path.dirname(os.path.abspath(script))
    for _ in range(MAX_DIRS):
        if not (d == root or d.startswith(root.rstrip(os.sep) + os.sep)):
            break
        for p in PROBED:
            probe(os.path.join(d, p))
        try:
            names = sorted(listdir(d))
        except OSError:
            names = []
        if "image" not in out:
            for n in names:
                if is_dockerfile(n):
                    text = read(os.path.join(d, n))
                    found = dockerfile_release(text, name) if text else None
                    if found is not None:
                        out["image"] = (found[0], os.path.join(d, n), found[1])
                        for engine, (version, line) in found[2].items():  # (`RUN pip install sglang==X`)
                            out.setdefault(engine, (version, os.path.join(d, n), line))
                        break
        if not any(k in out for k in ("vllm", "sglang", "trtllm")):
            for n in names:
                if _REQUIREMENTS.match(n) or n == "pyproject.toml":
                    text = read(os.path.join(d, n))
                    if text:
                        for engine, (version, line) in pip_pins(text, n == "pyproject.toml").items():
                            out.setdefault(engine, (version, os.path.join(d, n), line))
        if d == root:
            break
        d = os.path.dirname(d)
    return out


def pip_pins(text: str, pyproject: bool = False) -> dict:
    """``{engine: (version, line)}`` of the exact pins of an engine package in a requirements file (or a
    pyproject.toml's ``[project] dependencies``)."""
    out: dict = {}
    lines = text.splitlines()[:MAX_LINES]
    if pyproject:
        items = _pyproject_dependencies(text)
    else:
        items = [(i + 1, ln.split(" #", 1)[0]) for i, ln in enumerate(lines) if not ln.lstrip().startswith("#")]
    for line, spec in items:
        m = _PIN.match(spec)
        if m is None:
            continue
        engine = PACKAGES.get(m.group("name").lower().replace(".", "-"))
        if engine is not None:
            out.setdefault(engine, (m.group("version"), line))
    return out


def install_pins(texts: list) -> dict:
    """``{engine: (version, index of its word)}`` of the exact engine pins a package install names (``pip install
    "sglang[all]==0.5.9"``, ``uv pip install vllm==0.11.0``, ``python3 -m pip install -U tensorrt_llm==1.0.0``),
    {} for any other command."""
    if not any("==" in t for t in texts):
        return {}
    from pdlint.launchers import basename, package_command, program_at
    out: dict = {}
    start = program_at(texts, 0) if texts else 0  # (the command's program: not `echo pip install ...`)
    if start + 2 < len(texts) and basename(texts[start]).startswith("python") and texts[start + 1] == "-m":
        start += 2  # `python3 -m pip install`
    if start >= len(texts) or not package_command(texts, start) or "install" not in texts[start + 1:start + 4]:
        return out  # (not `pip uninstall` / `pip download`)
    for k in range(start + 1, len(texts)):
        m = _PIN.match(texts[k]) if "==" in texts[k] else None
        engine = PACKAGES.get(m.group("name").lower().replace(".", "-")) if m else None
        if engine is not None:
            out.setdefault(engine, (m.group("version"), k))
    return out


def text_install_pins(text: str) -> dict:
    """``{engine: (version, start, end)}`` of the exact engine pins the package installs of a shell text name
    (a Dockerfile ``RUN`` line, a SkyPilot task's ``setup:``; a later install wins), the offsets of each pin's
    word in ``text``: each command between ``;``, ``&&``, ``||``, ``|`` and line ends (a ``\\`` continues the
    line), its words split at blanks and their quotes dropped (:func:`install_pins`)."""
    out: dict = {}
    if "==" not in text:
        return out
    flat = text.replace("\\\n", "  ")  # (same length: the offsets hold)
    start = 0
    for sep in list(_SHELL_LIST.finditer(flat)) + [None]:
        end = sep.start() if sep is not None else len(flat)
        if "==" in flat[start:end]:
            words = list(_BLANK_WORD.finditer(flat, start, end))
            for engine, (version, k) in install_pins([w.group().strip("\"'") for w in words]).items():
                out[engine] = (version, words[k].start(), words[k].end())
        start = sep.end() if sep is not None else end
    return out


_BLANK_WORD = lazyre.compile(r"\S+")


def _pyproject_dependencies(text: str) -> list:
    """(line, requirement) of a pyproject.toml's ``[project] dependencies``, each at the line it is written."""
    try:
        from pdlint.config import _load_toml
        doc = _load_toml(text)
    except Exception:  # noqa: BLE001 - any TOML error: no pins
        return []
    deps = doc.get("project", {}).get("dependencies") if isinstance(doc.get("project"), dict) else None
    if not isinstance(deps, list):
        return []
    lines = text.splitlines()[:MAX_LINES]
    out = []
    for dep in deps[:MAX_DEPENDENCIES]:
        m = _PIN.match(dep) if isinstance(dep, str) else None
        if m is None or m.group("name").lower().replace(".", "-") not in PACKAGES:
            continue  # (only an engine's pin is looked for in the text)
        line = next((i + 1 for i, ln in enumerate(lines) if json.dumps(dep) in ln or f"'{dep}'" in ln), 0)
        out.append((line, dep))
    return out


def dockerfile_image(text: str, script: str) -> Optional[tuple]:
    """``(image, line of its FROM)`` when the Dockerfile ``text`` puts the script named ``script`` (a base
    name) in its final stage and runs it there: see the module docstring; else None."""
    found = dockerfile_release(text, script)
    return found[:2] if found is not None else None


def dockerfile_release(text: str, script: str) -> Optional[tuple]:
    """:func:`dockerfile_image` and ``{engine: (version, line)}`` of the exact engine pins the ``RUN``
    instructions of the final stage (and the stages it is built on) install (``RUN pip install
    "sglang[all]==0.5.9"`` on a ``python:3.11`` base): ``(image, line, pins)``, else None.  The stages are
    :func:`pdlint.formats.dockerfile.parse`'s."""
    from pdlint.formats.dockerfile import parse
    from pdlint.text import SourceFile, TStr
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        text = "\n".join(lines[:MAX_LINES])
    stages = parse(TStr.from_source(SourceFile("Dockerfile", text)))
    if not stages:
        return None
    st = stages[-1]
    if script not in st.named or not st.image or st.image.lower() == "scratch":
        return None
    line = st.image_tok.origin.line if st.image_tok is not None and st.image_tok.pieces else st.line
    return st.image, line, {e: (v, o.line) for e, (v, o) in st.pins.items()}


__all__ = ["release_pins", "pip_pins", "install_pins", "text_install_pins", "dockerfile_image", "dockerfile_release",
           "PACKAGES", "PROBED"]
