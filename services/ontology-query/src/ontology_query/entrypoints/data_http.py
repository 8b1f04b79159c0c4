"""Internal API of the REST-only data tools: list_resources, describe_resource, run_sql.

The gateway exposes them only as REST (``/kn/run_sql`` …), never on MCP; the caller's account
comes in ``X-BKN-Account`` and decides which resources it may see.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import Field

from ontology_query.entrypoints.bodies import Account, StrictBody
from ontology_query.service_layer.data_tools import (
    ResourceQuery,
    SqlRequest,
    SqlRunner,
    describe_resource,
    list_resources,
)
from ontology_query.service_layer.projection import OntologyState


class ListBody(StrictBody):
    kn_id: str | None = None
    catalog_id: str | None = None
    type: str | None = None
    offset: int = Field(0, ge=0)
    limit: int = Field(20, ge=1, le=1000)


class DescribeBody(StrictBody):
    resource_id: str = Field(min_length=1)


class SqlBody(StrictBody):
    sql: str = Field(min_length=1, max_length=100_000)
    query_timeout: int = Field(60, ge=1, le=3600)
    resource_type: Literal["mysql", "mariadb", "postgresql", "sqlserver"] | None = None


def router(state: OntologyState, runner: SqlRunner) -> APIRouter:
    api = APIRouter(prefix="/internal/v1/data")

    @api.post("/resources/list")
    async def list_(body: ListBody, account: Account) -> dict[str, Any]:
        return list_resources(state, account, ResourceQuery(**body.model_dump()))

    @api.post("/resources/describe")
    async def describe(body: DescribeBody, account: Account) -> dict[str, Any]:
        return describe_resource(state, account, body.resource_id)

    @api.post("/sql")
    async def run_sql(body: SqlBody, account: Account) -> dict[str, Any]:
        return await runner.run(account, SqlRequest(**body.model_dump()))

    return api
