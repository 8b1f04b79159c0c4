"""The trace console at ``/console/``: server-rendered pages over the operator read API's
handlers (``service_layer.observability``)."""

from gateway.entrypoints.console.pages import CSP
from gateway.entrypoints.console.routes import COOKIE, ROOT, router

__all__ = ["COOKIE", "CSP", "ROOT", "router"]
