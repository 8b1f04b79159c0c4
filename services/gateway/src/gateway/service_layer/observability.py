"""The operator read API's handlers: trace-recorder's views and the services' own stats, read
over the signed internal hops (no store of the gateway's own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language
from gateway.domain.identity import Principal
from gateway.domain.observability import (
    evidence_chain,
    require_operator,
    require_read,
    span_tree,
)
from gateway.service_layer.ports import InternalService


def _segment(value: str) -> str:
    """An id as one path segment of an internal URL (any character, percent-encoded)."""
    return quote(value, safe="")

FILTERS = ("account", "agent", "kn_id", "tool", "outcome", "evidence_status", "since", "until",
           "cursor", "limit")


class MeshStats(Protocol):
    """The services' own reports: ``/readyz`` progress, ``/metrics`` and their dead letters."""

    async def projections(self) -> list[dict[str, Any]]: ...

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Caller:
    principal: Principal
    language: Language
    request_id: str


class Observability:
    def __init__(self, trace: InternalService, stats: MeshStats) -> None:
        self._trace = trace
        self._stats = stats

    async def _get(self, caller: Caller, path: str, *, params: dict[str, Any] | None = None,
                   account: str | None = None) -> Any:
        return await self._trace.call("GET", path, params=params, account=account,
                                      language=caller.language, request_id=caller.request_id)

    async def _listing(self, caller: Caller, kind: str, filters: dict[str, Any]) -> dict[str, Any]:
        params = {k: v for k, v in filters.items() if k in FILTERS and v not in (None, "")}
        principal = caller.principal
        if not principal.operator:
            require_read(principal, params.get("account", principal.account), "the account asked for")
        account = None if principal.operator else principal.account
        found: dict[str, Any] = await self._get(caller, f"/internal/v1/observability/{kind}",
                                                params=params, account=account)
        return found

    async def interactions(self, caller: Caller, filters: dict[str, Any]) -> dict[str, Any]:
        return await self._listing(caller, "interactions", filters)

    async def conversations(self, caller: Caller, filters: dict[str, Any]) -> dict[str, Any]:
        return await self._listing(caller, "conversations", filters)

    async def conversation(self, caller: Caller, conversation_id: str) -> dict[str, Any]:
        found: dict[str, Any] = await self._get(caller, f"/internal/v1/conversations/{_segment(conversation_id)}")
        require_read(caller.principal, found.get("account"), f"conversation {conversation_id}")
        return found

    async def interaction(self, caller: Caller, interaction_id: str) -> dict[str, Any]:
        """The interaction whole: operations in begin order, receipts, evidence, the span tree."""
        found: dict[str, Any] = await self._get(caller, f"/internal/v1/interactions/{_segment(interaction_id)}")
        require_read(caller.principal, found.get("account"), f"interaction {interaction_id}")
        return {**found, "span_tree": span_tree(found.get("spans", []))}

    async def operations(self, caller: Caller, interaction_id: str) -> dict[str, Any]:
        found = await self.interaction(caller, interaction_id)
        return {"interaction_id": interaction_id, "items": found.get("operations", [])}

    async def evidence_chain(self, caller: Caller, interaction_id: str) -> dict[str, Any]:
        return evidence_chain(await self.interaction(caller, interaction_id))

    async def operation(self, caller: Caller, operation_id: str) -> dict[str, Any]:
        path = f"/internal/v1/observability/operations/{_segment(operation_id)}"
        found: dict[str, Any] = await self._get(caller, path)
        require_read(caller.principal, found.get("account"), f"operation {operation_id}")
        return found

    async def receipt(self, caller: Caller, receipt_id: str) -> dict[str, Any]:
        found: dict[str, Any] = await self._get(caller, f"/internal/v1/observability/receipts/{_segment(receipt_id)}")
        require_read(caller.principal, found.get("account"), f"receipt {receipt_id}")
        return found

    async def bundle(self, caller: Caller, interaction_id: str) -> Any:
        """trace-recorder's export bundle of the interaction, as it answers it."""
        await self.interaction(caller, interaction_id)  # exists, and the caller may read it
        try:
            return await self._get(caller, f"/internal/v1/interactions/{_segment(interaction_id)}/bundle")
        except ApiError as exc:
            details = exc.details if isinstance(exc.details, dict) else {}
            if exc.code == ErrorCode.DEPENDENCY_UNAVAILABLE and details.get("status") == 404:
                raise ApiError(ErrorCode.NOT_FOUND, 404, params={
                    "reason": f"no export bundle of interaction {interaction_id} (this "
                              "trace-recorder does not serve bundles)"}) from exc
            raise

    async def projections(self, caller: Caller) -> dict[str, Any]:
        require_operator(caller.principal, "projections")
        return {"items": await self._stats.projections()}

    async def dead_letters(self, caller: Caller, limit: int) -> dict[str, Any]:
        require_operator(caller.principal, "dead letters")
        return {"items": await self._stats.dead_letters(limit)}
