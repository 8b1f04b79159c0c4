"""GET /mcp/info and /mcp-compact/info: the tool catalogue and a client configuration."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from bkn_common.contracts.i18n import negotiate_language
from gateway.entrypoints.mcp_catalog import Endpoint, listing
from gateway.service_layer.ports import Authentication
from gateway.service_layer.registry import ToolRegistry

PATHS: dict[Endpoint, str] = {
    "full": "/api/agent-retrieval/v1/mcp",
    "compact": "/api/agent-retrieval/v1/mcp-compact",
}


def public_base(request: Request, configured: str | None) -> str:
    if configured:
        return configured.rstrip("/")
    host = request.headers.get("x-forwarded-host") or request.headers.get("host", "127.0.0.1")
    scheme = request.headers.get("x-forwarded-proto", request.url.scheme)
    return f"{scheme}://{host}"


def router(registry: ToolRegistry, authenticator: Authentication, public_url: str | None) -> APIRouter:
    api = APIRouter()

    def info(endpoint: Endpoint, request: Request) -> dict[str, Any]:
        authenticator.authenticate(request.headers.get("authorization"))
        language = negotiate_language(request.headers.get("accept-language"))
        url = public_base(request, public_url) + PATHS[endpoint]
        tools = listing(registry, endpoint, language)
        return {
            "name": f"context-loader{'' if endpoint == 'full' else '-compact'}",
            "transport": "streamable-http",
            "url": url,
            "protocol_versions": ["2025-06-18", "2025-11-25", "2026-07-28"],
            "authentication": "Authorization: Bearer <OAuth access token or bak_ AppKey>",
            "hints": {
                "headers": ["X-OpenBKN-Host-Conversation-Key", "X-OpenBKN-Client-Invocation-Id"],
                "_meta": ["openbkn.ai/host-conversation-key", "openbkn.ai/client-invocation-id"],
            },
            "tool_count": len(tools),
            "tools": tools,
            "client_config": {
                "mcpServers": {
                    "context-loader": {
                        "type": "streamable-http",
                        "url": url,
                        "headers": {"Authorization": "Bearer <your bak_ AppKey>"},
                    }
                }
            },
        }

    @api.get(PATHS["full"] + "/info")
    async def full_info(request: Request) -> dict[str, Any]:
        return info("full", request)

    @api.get(PATHS["compact"] + "/info")
    async def compact_info(request: Request) -> dict[str, Any]:
        return info("compact", request)

    return api
