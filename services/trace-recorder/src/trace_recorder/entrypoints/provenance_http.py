"""trace-recorder's provenance routes (internal, mesh credential): an interaction's export
bundle, and the deployment's public keys as a JWKS. The gateway's operator API proxies the
bundle route as it is (``/api/agent-observability/v1/interactions/{id}/bundle``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header
from starlette.responses import Response

from bkn_common.contracts.errors import ApiError
from bkn_common.framework.http import json_response
from bkn_common.provenance.keys import KeySet
from trace_recorder.domain.errors import TraceCode
from trace_recorder.service_layer.bundle import interaction_bundle
from trace_recorder.service_layer.view_ports import SealReads

OptionalAccount = Annotated[str | None, Header(alias="X-BKN-Account")]


def provenance_router(store: SealReads, public_keys: KeySet, clock: Callable[[], datetime]) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.get("/interactions/{interaction_id}/bundle")
    async def bundle(interaction_id: str, account: OptionalAccount = None) -> Response:
        found = interaction_bundle(store, interaction_id, clock())
        if found is None or (account is not None and account != found["account"]):
            raise ApiError(TraceCode.INTERACTION_NOT_FOUND, 404, params={"interaction_id": interaction_id})
        return json_response(found)

    @api.get("/provenance/keys")
    async def keys() -> dict[str, Any]:
        return public_keys.jwks()

    return api
