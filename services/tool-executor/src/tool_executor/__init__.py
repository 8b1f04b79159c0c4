"""tool-executor: runs function, OpenAPI and MCP tools and actions through the network's hosted proxy."""
