"""Network bundles: the declarative YAML format, its validation and its events."""

from clctl.bundle.loader import Bundle, BundleError, Problem, load_bundle
from clctl.bundle.to_events import bundle_events

__all__ = ["Bundle", "BundleError", "Problem", "bundle_events", "load_bundle"]
