"""Data resources: physical tables behind object types, and which accounts may query them.

A resource is not part of one network: object types name it as their ``data_source``; the
REST-only data tools (run_sql, list_resources, describe_resource) answer from the caller's
own resource grants. ``source`` says where the rows are (a CSV file the query engine loads).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts.event_types.base import Event, register_event


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DataColumn(_Frozen):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    # a SQL type: varchar, integer, bigint, double, decimal(18,2), date, timestamp, boolean
    type: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_ ]*(\(\d+(, ?\d+)?\))?$")
    description: str = ""


class DataFileSource(_Frozen):
    format: Literal["csv"] = "csv"
    path: str  # absolute, or relative to the query service's data resource directory


@register_event
class DataResourceUpserted(Event):
    type = "data.resource.upserted"
    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    description: str = ""
    resource_type: Literal["table"] = "table"
    catalog_id: str
    connector_type: str = "mysql"
    status: Literal["active", "stale", "disabled", "deprecated"] = "active"
    columns: tuple[DataColumn, ...] = Field(min_length=1)
    source: DataFileSource


@register_event
class DataResourceGrantsReplaced(Event):
    """The resources ``account`` may list, describe and query (``*``: every resource)."""

    type = "data.resource_grants.replaced"
    account: str
    resource_ids: tuple[str, ...]
