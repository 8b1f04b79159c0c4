"""Internal API of ontology-query for logic properties and action executions."""

from __future__ import annotations

from fastapi import APIRouter

from ontology_query.service_layer.state import OntologyState


def router(state: OntologyState) -> APIRouter:
    return APIRouter(prefix="/internal/v1")
