"""Engine adapters: ``pdlint.engines.<engine>.engine`` modules, found by name.

An adapter provides ``interpret(launch, ctx)`` (extract stage: parse the argv,
decide the role) and ``candidates(launch, enabled)`` (check stage: rule hits
and parse errors as located candidates); optionally ``pair_candidates``.  A
launch whose engine has no adapter is still extracted and shown, not judged.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Optional


@functools.lru_cache(maxsize=None)
def adapter(engine: str) -> Optional[object]:
    name = f"pdlint.engines.{engine}.engine"
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except (ImportError, ValueError):
        return None
    return importlib.import_module(name)


# facts an earlier run decided that depend on pdlint's code and tables only, per engine (pdlint.cache
# fills it from the result cache's index before a run; an engine reads its own when it is imported)
KNOWN: dict = {}
