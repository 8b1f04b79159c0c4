"""gateway: the public REST and MCP surface of the Context Loader mesh."""
