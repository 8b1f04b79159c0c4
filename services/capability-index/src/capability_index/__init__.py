"""capability-index: the ranked space of capabilities mounted on each network."""
