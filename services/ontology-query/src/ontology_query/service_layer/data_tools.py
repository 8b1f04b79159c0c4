"""The REST-only data tools: list_resources, describe_resource and run_sql.

They answer from the caller's own data-resource grants (``DataResourceGrantsReplaced``) with
physical columns, outside the networks' property-level rules, which is why they are never on
MCP (seed 003). A network binds resources through its object types' ``data_source``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import decimal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from ontology_query.domain.sql_guard import SqlRefused, check_sql
from ontology_query.service_layer import data_messages as _messages  # noqa: F401  (registers)
from ontology_query.service_layer.data_ports import EngineError, QueryTimedOut, SqlEngine
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import require_network


def resource_entry(resource: ev.DataResourceUpserted) -> dict[str, Any]:
    return {"resource_id": resource.id, "name": resource.name, "type": resource.resource_type,
            "status": resource.status, "catalog_id": resource.catalog_id,
            "connector_type": resource.connector_type, "description": resource.description}


@dataclass(frozen=True)
class ResourceQuery:
    kn_id: str | None = None
    catalog_id: str | None = None
    type: str | None = None
    offset: int = 0
    limit: int = 20


def list_resources(state: OntologyState, account: str, query: ResourceQuery) -> dict[str, Any]:
    """With ``kn_id``: every resource its object types are bound to, at once (plus ``unbound``
    types and ``missing`` resources); otherwise the account's pool, paged and filtered."""
    data = state.data
    if query.kn_id is None:
        pool = [r for rid, r in sorted(data.resources.items()) if data.may_see(account, rid)
                and (query.catalog_id is None or r.catalog_id == query.catalog_id)
                and (query.type is None or r.resource_type == query.type)]
        window = pool[query.offset: query.offset + query.limit]
        return {"entries": [resource_entry(r) for r in window], "total_count": len(pool)}
    require_network(state, query.kn_id)
    extras = state.schema.get(query.kn_id)
    entries: dict[str, dict[str, Any]] = {}
    unbound: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for ot in (extras.object_types.values() if extras else ()):
        if ot.data_source is None:
            unbound.append({"object_type_id": ot.id})
            continue
        resource = data.resources.get(ot.data_source.id)
        if resource is None or not data.may_see(account, ot.data_source.id):
            reason = "not_found" if resource is None else "no_grant"
            missing.append({"object_type_id": ot.id, "resource_id": ot.data_source.id,
                            "reason": reason})
        elif query.type is None or resource.resource_type == query.type:
            entries.setdefault(resource.id, {**resource_entry(resource), "object_type_ids": []})
            entries[resource.id]["object_type_ids"].append(ot.id)
    return {"entries": list(entries.values()), "total_count": len(entries),
            "unbound": unbound, "missing": missing}


def describe_resource(state: OntologyState, account: str, resource_id: str) -> dict[str, Any]:
    resource = state.data.granted(account, resource_id)
    return {**resource_entry(resource),
            "columns": [c.model_dump(mode="json") for c in resource.columns]}


@dataclass(frozen=True)
class SqlRequest:
    sql: str
    query_timeout: int = 60
    resource_type: str | None = None


class SqlRunner:
    """run_sql: guard, grants, catalog, then the engine (off the event loop), bounded."""

    def __init__(self, state: OntologyState, engine: SqlEngine, max_rows: int) -> None:
        self._state = state
        self._engine = engine
        self._max_rows = max_rows

    async def run(self, account: str, request: SqlRequest) -> dict[str, Any]:
        try:
            checked = check_sql(request.sql)
        except SqlRefused as refusal:
            raise ApiError(refusal.code, refusal.status, params=dict(refusal.params),
                           details=dict(refusal.details)) from refusal
        data = self._state.data
        resources = [data.granted(account, rid) for rid in checked.resource_ids]
        warnings = _usable(resources, request.resource_type)
        self._engine.set_tables(data.tables())
        broken = await asyncio.to_thread(self._engine.unavailable, checked.resource_ids)
        for rid, reason in broken.items():
            raise ApiError("data_resource_unavailable", 409,
                           params={"resource_id": rid, "status": "unloadable"},
                           details={"resource_id": rid, "status": "unloadable", "reason": reason})
        sql = checked.render(lambda rid: rid)
        try:
            result = await asyncio.to_thread(self._engine.query, sql,
                                             timeout_seconds=request.query_timeout,
                                             max_rows=self._max_rows)
        except QueryTimedOut as exc:
            raise ApiError("sql_query_timeout", 504, params={"timeout": request.query_timeout},
                           details={"query_timeout": request.query_timeout}) from exc
        except EngineError as exc:
            raise ApiError("sql_execution_error", 400, params={"reason": str(exc)},
                           details={"reason": str(exc)}) from exc
        names = [name for name, _ in result.columns]
        entries = [dict(zip(names, (_plain(v) for v in row), strict=True)) for row in result.rows]
        answer: dict[str, Any] = {
            "columns": [{"name": n, "type": t.lower()} for n, t in result.columns],
            "entries": entries, "total_count": len(entries), "truncated": result.truncated,
        }
        if warnings:
            answer["warnings"] = warnings
        return answer


def _usable(resources: Iterable[ev.DataResourceUpserted], resource_type: str | None) -> list[str]:
    """Refuse disabled resources, cross-catalog queries and a mismatching ``resource_type``;
    warn about deprecated or stale ones."""
    resources = list(resources)
    warnings = []
    for r in resources:
        if r.status == "disabled":
            raise ApiError("data_resource_unavailable", 409,
                           params={"resource_id": r.id, "status": r.status},
                           details={"resource_id": r.id, "status": r.status})
        if r.status in ("deprecated", "stale"):
            warnings.append(f"resource {r.id} is {r.status}")
    catalogs = sorted({r.catalog_id for r in resources})
    if len(catalogs) > 1:
        raise ApiError("sql_cross_catalog", 400, params={"catalogs": ", ".join(catalogs)},
                       details={"catalogs": catalogs})
    connectors = sorted({r.connector_type for r in resources})
    if resource_type is not None and connectors != [resource_type]:
        raise ApiError("sql_resource_type_mismatch", 400,
                       params={"given": resource_type, "actual": ", ".join(connectors)},
                       details={"given": resource_type, "actual": connectors})
    return warnings


def _plain(value: Any) -> Any:
    """A JSON value for one cell."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)
