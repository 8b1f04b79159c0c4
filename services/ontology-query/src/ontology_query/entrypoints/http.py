"""Internal HTTP API of ontology-query (called by the gateway)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ontology_query.entrypoints.bodies import StrictBody
from ontology_query.service_layer.projection import OntologyState


class AccessBody(StrictBody):
    kn_id: str
    account: str


def router(state: OntologyState) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.post("/access")
    async def access(body: AccessBody) -> dict[str, Any]:
        """Whether the network exists and the account's permissions on the network itself."""
        return {
            "exists": state.access.exists(body.kn_id),
            "permissions": sorted(state.access.permissions(body.kn_id, body.account)),
        }

    return api
