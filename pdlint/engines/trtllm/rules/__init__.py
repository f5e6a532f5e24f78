"""Every TensorRT-LLM rule module in this package; importing it registers them all."""

from pdlint.rules import import_submodules

import_submodules(__name__, __path__)
