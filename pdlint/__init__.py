"""pdlint: lint prefill/decode (PD-disaggregated) LLM-serving launch templates per role."""

__version__ = "0.1.0"


def _seed_library_patterns() -> None:
    import sys
    if "yaml" not in sys.modules:  # (PyYAML's reader pattern, unused with its C loader: pdlint.lazyre.seed)
        from pdlint import lazyre
        lazyre.seed("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]")


_seed_library_patterns()
