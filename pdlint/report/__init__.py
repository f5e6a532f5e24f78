"""Report stage: one emitter module per output format."""


def role_label(role):
    """A role as text output shows it: SGLang's ``null`` (its ``--disaggregation-mode`` default, the JSON
    output's value for a server that is not disaggregated) reads ``non-PD``."""
    return "non-PD" if role == "null" else role

