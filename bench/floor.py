#!/usr/bin/env python3
"""The work floor of a launch-file check: the parsing and rendering any tool that
checks these files must do, with the fastest libraries, in one process.

    python bench/floor.py ROOT FILE...

For every named file (paths relative to ROOT):

* ``*.yaml`` / ``*.yml``: composed with PyYAML's C loader (``yaml.compose_all``
  with ``CSafeLoader``: libyaml events and the node tree, positions included);
* ``*.j2`` templates: rendered once per role (``role=prefill``, ``role=decode``)
  with a plain ``jinja2.Environment`` (no sandbox, no tracing; includes resolve
  from the template's folder, then ROOT), the output of a YAML template composed
  as above and the output of a shell template parsed as below;
* shell scripts (``*.sh``, ``*.sh.j2`` output): parsed with tree-sitter-bash.

Nothing is checked: this is the cost of reading the input, the lower bound pdlint
is measured against (``bench/bench.py``'s "work floor" row).  Exits 0.
"""

from __future__ import annotations

import os
import sys


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    root, files = os.path.abspath(argv[0]), argv[1:]

    import jinja2
    import yaml
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    bash = Parser(Language(tree_sitter_bash.language()))
    envs: dict = {}

    def compose(text: str) -> None:
        for _ in yaml.compose_all(text, Loader=loader):
            pass

    def env_for(folder: str) -> jinja2.Environment:
        env = envs.get(folder)
        if env is None:
            env = envs[folder] = jinja2.Environment(
                loader=jinja2.FileSystemLoader([folder, root]), keep_trailing_newline=True)
        return env

    for rel in files:
        path = os.path.join(root, rel)
        name = os.path.basename(rel)
        if name.endswith(".j2"):
            folder = os.path.dirname(path)
            template = env_for(folder).get_template(os.path.relpath(path, folder))
            for role in ("prefill", "decode"):
                out = template.render(role=role)
                if name.endswith((".yaml.j2", ".yml.j2")):
                    compose(out)
                elif name.endswith(".sh.j2"):
                    bash.parse(out.encode("utf-8"))
            continue
        with open(path, "rb") as f:
            data = f.read()
        if name.endswith((".yaml", ".yml")):
            compose(data.decode("utf-8"))
        elif name.endswith(".sh"):
            bash.parse(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
