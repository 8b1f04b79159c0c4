"""Real upstream tools of the demo business knowledge network.

* :mod:`demo_upstreams.finance_api` – the "finance" OpenAPI service (FastAPI).
* :mod:`demo_upstreams.logistics_mcp` – the "logistics" MCP server (official ``mcp`` SDK,
  Streamable HTTP at ``/mcp``).

Both count their business executions per operation / tool (``GET /_stats``,
``POST /_stats/reset``) so tests can assert how often the mesh really reached the upstream.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
