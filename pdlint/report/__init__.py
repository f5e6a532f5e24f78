"""Report stage: one emitter module per output format."""
