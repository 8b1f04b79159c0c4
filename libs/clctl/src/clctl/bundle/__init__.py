"""Network bundles: the declarative YAML format, its validation and its events."""
