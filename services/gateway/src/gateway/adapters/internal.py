"""HTTP clients for the internal services.

Refusals from an internal service arrive already in the envelope (rendered in the caller's
language, since ``Accept-Language`` is forwarded) and are relayed unchanged.
"""

from __future__ import annotations

from typing import Any

import httpx
from opentelemetry.propagate import inject

from bkn_common.errors import ApiError, ErrorCode, ErrorEnvelope
from bkn_common.i18n import Language


class RelayedError(ApiError):
    """An internal service's refusal, passed through as it came."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(str(body.get("code", ErrorCode.INTERNAL)), status, details=body.get("details"))
        self.body = body

    def envelope(self, language: Language, request_id: str | None = None) -> ErrorEnvelope:
        return ErrorEnvelope.model_validate({**self.body, "request_id": request_id})


class InternalService:
    """One internal service reached over HTTP."""

    def __init__(self, name: str, base_url: str, client: httpx.AsyncClient) -> None:
        self.name = name
        self._base = base_url.rstrip("/")
        self._client = client

    async def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        account: str | None = None,
        language: Language = "en-US",
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        headers: dict[str, str] = {"Accept-Language": language}
        if account is not None:
            headers["X-BKN-Account"] = account
        if request_id:
            headers["bkn-request-id"] = request_id
        inject(headers)
        try:
            response = await self._client.request(
                method, self._base + path, json=json, params=params, headers=headers,
                timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.HTTPError as exc:
            raise ApiError(
                ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": self.name},
                details={"dependency": self.name, "error": type(exc).__name__},
            ) from exc
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {}
            if isinstance(body, dict) and "code" in body:
                raise RelayedError(response.status_code, body)
            raise ApiError(
                ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": self.name},
                details={"dependency": self.name, "status": response.status_code},
            )
        return response.json()


class InternalServices:
    """The four internal services, sharing one connection pool."""

    def __init__(
        self,
        *,
        capability_index: str,
        tool_executor: str,
        trace_recorder: str,
        ontology_query: str,
        timeout: float,
    ) -> None:
        self._client = httpx.AsyncClient(
            timeout=timeout,
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
        )
        self.capability_index = InternalService("capability-index", capability_index, self._client)
        self.tool_executor = InternalService("tool-executor", tool_executor, self._client)
        self.trace_recorder = InternalService("trace-recorder", trace_recorder, self._client)
        self.ontology_query = InternalService("ontology-query", ontology_query, self._client)

    async def ready(self, service: InternalService) -> bool:
        try:
            await service.call("GET", "/readyz", timeout=2)
            return True
        except ApiError:
            return False

    async def close(self) -> None:
        await self._client.aclose()
