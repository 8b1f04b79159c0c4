"""Data resources and each account's grants on them, folded from the networks topic
(``data.resource.upserted`` / ``data.resource_grants.replaced``); the tools that answer
from them are ``data_tools.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from ontology_query.service_layer import data_messages as _messages  # noqa: F401  (registers)
from ontology_query.service_layer.data_ports import TableSpec

EVERY_RESOURCE = "*"


@dataclass
class DataResources:
    """Resources by id and each account's grants, folded from the networks topic."""

    resources: dict[str, ev.DataResourceUpserted] = field(default_factory=dict)
    grants: dict[str, frozenset[str]] = field(default_factory=dict)

    def apply(self, event: ev.Event) -> bool:
        match event:
            case ev.DataResourceUpserted():
                self.resources[event.id] = event
            case ev.DataResourceGrantsReplaced():
                self.grants[event.account] = frozenset(event.resource_ids)
            case _:
                return False
        return True

    def may_see(self, account: str, resource_id: str) -> bool:
        granted = self.grants.get(account, frozenset())
        return EVERY_RESOURCE in granted or resource_id in granted

    def granted(self, account: str, resource_id: str) -> ev.DataResourceUpserted:
        """The resource, or 404 when it does not exist and 403 (naming it) without a grant."""
        resource = self.resources.get(resource_id)
        if resource is None:
            raise ApiError("data_resource_not_found", 404, params={"resource_id": resource_id},
                           details={"resource_id": resource_id})
        if not self.may_see(account, resource_id):
            raise ApiError("data_resource_forbidden", 403, params={"resource_id": resource_id},
                           details={"resource_id": resource_id})
        return resource

    def tables(self) -> dict[str, TableSpec]:
        return {r.id: TableSpec(r.source.path, tuple((c.name, c.type) for c in r.columns))
                for r in self.resources.values()}

    def checkpoint_data(self) -> dict[str, Any]:
        return {"resources": [r.model_dump(mode="json") for r in self.resources.values()],
                "grants": {k: sorted(v) for k, v in self.grants.items()}}

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any]) -> DataResources:
        return cls(
            resources={r["id"]: ev.DataResourceUpserted.model_validate(r) for r in data["resources"]},
            grants={k: frozenset(v) for k, v in data["grants"].items()},
        )

    def snapshot(self) -> dict[str, Any]:
        return {
            "data_resources": {k: v.model_dump(mode="json") for k, v in self.resources.items()},
            "data_resource_grants": {k: sorted(v) for k, v in self.grants.items()},
        }
