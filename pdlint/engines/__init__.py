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
import re
from typing import Optional

from pdlint import lazyre

#: the Dynamo release a runtime image's tag names (``nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.6.1``,
#: ``.../vllm-runtime:1.0.0.post1``)
_DYNAMO_IMAGE = lazyre.compile(r"(?:ai-dynamo|dynamo)[^:\s]*:v?(\d+\.\d+\.\d+(?:\.post\d+)?)", re.I)


def dynamo_image_release(image: Optional[str]) -> Optional[str]:
    """The Dynamo release an image tag names, or None (another image, no tag, a tag naming no release)."""
    m = _DYNAMO_IMAGE.search(image or "")
    return m.group(1) if m else None


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
