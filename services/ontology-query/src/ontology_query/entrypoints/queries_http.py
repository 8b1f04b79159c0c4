"""Internal query API of ontology-query: networks, schema, instances, subgraphs."""

from __future__ import annotations

from fastapi import APIRouter

from ontology_query.service_layer.state import OntologyState


def router(state: OntologyState) -> APIRouter:
    return APIRouter(prefix="/internal/v1")
