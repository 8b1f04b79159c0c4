"""Tool arguments: transport fields are dropped (and recorded), inputs hashed canonically."""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Fields the platform carries itself; in ``arguments`` they take no effect.
TRANSPORT_FIELDS = frozenset({
    "authorization", "access_token", "token", "api_key", "app_key", "cookie",
    "session_id", "mcp_session_id", "conversation_id", "interaction_id", "bkn_context",
    "server_url", "base_url", "url", "endpoint", "host", "proxy", "proxy_id",
    "headers", "timeout", "x-openbkn-client-invocation-id", "x-openbkn-host-conversation-key",
})


def split_transport_fields(arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Business arguments, and the names of transport fields that were removed."""
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in arguments.items():
        if key.lower() in TRANSPORT_FIELDS:
            dropped.append(key)
        else:
            kept[key] = value
    return kept, sorted(dropped)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def arguments_hash(arguments: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(arguments).encode()).hexdigest()
