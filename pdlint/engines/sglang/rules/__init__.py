"""Every SGLang rule module; importing this package registers them all."""

from pdlint.engines.sglang.rules import cmdline, pd_core  # noqa: F401
