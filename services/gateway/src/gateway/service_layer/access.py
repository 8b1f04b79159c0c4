"""Network-level permission checks (grants come from ontology-query, cached briefly)."""

from __future__ import annotations

import time

from bkn_common.contracts.errors import ApiError, ErrorCode, network_permission_error
from gateway.domain.context import CallContext
from gateway.service_layer.ports import InternalService


class AccessChecker:
    def __init__(self, ontology: InternalService, ttl_seconds: float) -> None:
        self._ontology = ontology
        self._ttl = ttl_seconds
        self._cache: dict[tuple[str, str], tuple[float, bool, frozenset[str]]] = {}

    async def permissions(self, ctx: CallContext, kn_id: str) -> tuple[bool, frozenset[str]]:
        """(network exists, the caller's permissions on the network itself)."""
        key = (kn_id, ctx.principal.account)
        cached = self._cache.get(key)
        now = time.monotonic()
        if cached and now - cached[0] < self._ttl:
            return cached[1], cached[2]
        answer = await self._ontology.call(
            "POST", "/internal/v1/access",
            json={"kn_id": kn_id, "account": ctx.principal.account},
            language=ctx.language, request_id=ctx.request_id,
        )
        exists, perms = bool(answer["exists"]), frozenset(answer["permissions"])
        self._cache[key] = (now, exists, perms)
        return exists, perms

    async def require(self, ctx: CallContext, kn_id: str, permission: str) -> None:
        exists, perms = await self.permissions(ctx, kn_id)
        if not exists:
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": f"knowledge network {kn_id}"},
                           details={"kn_id": kn_id})
        if permission not in perms:
            raise network_permission_error(kn_id, permission)
