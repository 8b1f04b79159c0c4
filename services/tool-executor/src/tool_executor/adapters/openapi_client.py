"""Calls OpenAPI upstreams with httpx (one pooled client per process)."""

from __future__ import annotations

from typing import Any

import httpx

from tool_executor.domain.openapi import HttpRequestPlan
from tool_executor.service_layer.ports import UpstreamResponse, UpstreamTimeout, UpstreamUnreachable


class OpenApiClient:
    """The :class:`~tool_executor.service_layer.ports.OpenApiUpstream` port over httpx."""

    def __init__(self, max_response_bytes: int) -> None:
        self._client = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=200, max_keepalive_connections=50),
            follow_redirects=False,
        )
        self._max = max_response_bytes

    async def call(
        self, plan: HttpRequestPlan, timeout: float, proxy_id: str, execution: dict[str, str] | None = None
    ) -> UpstreamResponse:
        """Send the request as the network's proxy identity (plus the execution's receipt and
        invocation ids). A timeout raises UpstreamTimeout, another transport failure
        UpstreamUnreachable."""
        headers = {**plan.headers, **(execution or {}), "X-BKN-Proxy-Identity": proxy_id}
        try:
            response = await self._client.request(
                plan.method,
                plan.url,
                params=plan.params or None,
                headers=headers,
                json=plan.json_body,
                timeout=timeout,
            )
        except httpx.TimeoutException as exc:
            raise UpstreamTimeout(str(exc)) from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnreachable(exc) from exc
        content = response.content[: self._max]
        content_type = response.headers.get("content-type", "")
        body: Any
        if "json" in content_type:
            try:
                body = response.json()
            except ValueError:
                body = content.decode(errors="replace")
        else:
            body = content.decode(errors="replace")
        return UpstreamResponse(response.status_code, body, content_type)

    async def aclose(self) -> None:
        await self._client.aclose()
