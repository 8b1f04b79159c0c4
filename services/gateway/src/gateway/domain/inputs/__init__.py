"""Input models of the public tools: one model per tool, used by REST and MCP alike."""
