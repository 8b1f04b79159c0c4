"""The trace console at ``/console/``: server-rendered pages over the operator read API's
handlers (``service_layer.observability``)."""
