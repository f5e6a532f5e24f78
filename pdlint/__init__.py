"""pdlint: lint prefill/decode (PD-disaggregated) LLM-serving launch templates per role."""

__version__ = "0.1.0"
