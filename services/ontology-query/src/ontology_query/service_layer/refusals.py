"""Refusals shared by ontology-query's handlers (no state import: usable from every module)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bkn_common import events as ev
from bkn_common.errors import ApiError, ErrorCode
from ontology_query.domain.errors import NOT_FOUND_CODES, DomainError
from ontology_query.domain.store import OntologyStore

if TYPE_CHECKING:
    from ontology_query.service_layer.projection import OntologyState


def api_error(error: DomainError) -> ApiError:
    """The envelope form of a domain refusal."""
    status = 404 if error.code in NOT_FOUND_CODES else 400
    return ApiError(error.code, status, params=error.params, details=error.details)


def require_network(state: OntologyState, kn_id: str) -> ev.NetworkUpserted:
    """The network's record, or 404 when it does not exist."""
    network = state.access.networks.get(kn_id)
    if network is None:
        raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": f"knowledge network {kn_id}"},
                       details={"kn_id": kn_id})
    return network


def network_store(state: OntologyState, kn_id: str) -> OntologyStore:
    """The network's store, or 404 when the network does not exist."""
    require_network(state, kn_id)
    return state.stores.get(kn_id) or OntologyStore(kn_id)  # reads never create state
