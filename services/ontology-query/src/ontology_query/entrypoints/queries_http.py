"""Internal query API of ontology-query: networks, schema, instances, subgraphs.

Called by the gateway, which has already checked the caller's network-level permission; the
caller's account comes in ``X-BKN-Account`` (object-type grants are applied here), the
language in ``Accept-Language``. Handlers are ``async`` on purpose: they read the state the
projection mutates on the same event loop, so a query never sees a half-applied event.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from ontology_query.entrypoints.bodies import Account, PermissionRequestBody, StrictBody, caller
from ontology_query.service_layer import queries, schema_views
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.schema_search import ConceptKind


class _CallerBody(StrictBody):
    kn_id: str = Field(min_length=1)
    permission_request: PermissionRequestBody | None = None
    include_logic_params: bool = False


class ListNetworksBody(StrictBody):
    name_pattern: str | None = None
    limit: int = Field(20, ge=1, le=1000)
    offset: int = Field(0, ge=0)
    sort: Literal["update_time", "name", "id"] | None = None
    direction: Literal["asc", "desc"] | None = None


class DetailBody(StrictBody):
    kn_id: str = Field(min_length=1)
    detail_level: Literal["summary", "full"] = "summary"


class TypesBody(StrictBody):
    kn_id: str = Field(min_length=1)
    ids: list[str] | None = None
    offset: int | None = Field(None, ge=0)
    limit: int | None = Field(None, ge=1, le=200)


class SearchSchemaBody(StrictBody):
    kn_id: str = Field(min_length=1)
    query: str
    search_object_types: bool = True
    search_relation_types: bool = True
    search_action_types: bool = True
    search_metrics: bool = True
    concept_groups: list[str] | None = None
    max_concepts: int = Field(10, ge=1, le=100)
    schema_brief: bool = False
    enable_rerank: bool = False
    include_columns: bool = False


class InstancesBody(_CallerBody):
    ot_id: str
    condition: Any = None
    sort: list[Any] | None = None
    limit: Any = None
    offset: Any = None
    cursor: str | None = None
    need_total: bool = False
    properties: list[str] | None = None


class SubgraphBody(_CallerBody):
    relation_type_paths: list[Any] = Field(min_length=1)


class ExploreBody(_CallerBody):
    source_object_type_id: str
    direction: str
    path_length: Any = None
    condition: Any = None
    concept_groups: list[str] | None = None
    include_incomplete_path: bool = False
    limit: Any = None
    sort: list[Any] | None = None
    offset: Any = None
    search_after: list[Any] | None = None


_CALLER_FIELDS = {"kn_id", "permission_request"}


def router(state: OntologyState) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.post("/networks/list")
    async def list_networks(body: ListNetworksBody, account: Account) -> dict[str, Any]:
        return schema_views.list_networks(
            state, account, body.name_pattern, body.limit, body.offset, body.sort, body.direction
        )

    @api.post("/networks/detail")
    async def network_detail(body: DetailBody) -> dict[str, Any]:
        return schema_views.kn_detail(state, body.kn_id, body.detail_level)

    @api.post("/schema/object_types")
    async def object_types(body: TypesBody) -> dict[str, Any]:
        return schema_views.get_object_types(state, body.kn_id, body.ids, body.offset, body.limit)

    @api.post("/schema/relation_types")
    async def relation_types(body: TypesBody) -> dict[str, Any]:
        return schema_views.get_relation_types(state, body.kn_id, body.ids)

    @api.post("/schema/search")
    async def search_schema(body: SearchSchemaBody) -> dict[str, Any]:
        flags: dict[ConceptKind, bool] = {
            "object_type": body.search_object_types,
            "relation_type": body.search_relation_types,
            "action_type": body.search_action_types,
            "metric": body.search_metrics,
        }
        return schema_views.search_schema(
            state, body.kn_id, body.query,
            kinds=frozenset(k for k, on in flags.items() if on),
            concept_groups=body.concept_groups, max_concepts=body.max_concepts,
            shape=schema_views.SchemaShape(brief=body.schema_brief, rerank=body.enable_rerank,
                                           columns=body.include_columns),
        )  # fmt: skip

    @api.post("/instances/query")
    async def query_instances(
        body: InstancesBody, request: Request, account: Account
    ) -> dict[str, Any]:
        return queries.object_instances(
            state, body.kn_id, caller(request, account, body.permission_request),
            **body.model_dump(exclude=_CALLER_FIELDS),
        )

    @api.post("/subgraph/query")
    async def query_subgraph(
        body: SubgraphBody, request: Request, account: Account
    ) -> dict[str, Any]:
        return queries.instance_subgraph(
            state, body.kn_id, caller(request, account, body.permission_request),
            body.relation_type_paths, include_logic_params=body.include_logic_params,
        )  # fmt: skip

    @api.post("/subgraph/explore")
    async def explore(body: ExploreBody, request: Request, account: Account) -> dict[str, Any]:
        return queries.explore(
            state, body.kn_id, caller(request, account, body.permission_request),
            **body.model_dump(exclude=_CALLER_FIELDS),
        )

    return api
