"""Network access as derived state: who holds which permission on which network.

Folded from ``network.upserted`` events. Only grants on the network itself count for
network-level checks; grants on object types, tools or skills never stand in for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev


@dataclass
class NetworkAccess:
    networks: dict[str, ev.NetworkUpserted] = field(default_factory=dict)

    def apply(self, record: ev.EventRecord) -> bool:
        if isinstance(record.event, ev.NetworkUpserted):
            self.networks[record.event.kn_id] = record.event
            return True
        return False

    def snapshot(self) -> dict[str, Any]:
        return {"networks": {k: v.model_dump(mode="json") for k, v in self.networks.items()}}

    def checkpoint_data(self) -> list[dict[str, Any]]:
        return [v.model_dump(mode="json") for v in self.networks.values()]

    @classmethod
    def from_checkpoint(cls, data: list[dict[str, Any]]) -> NetworkAccess:
        return cls({e.kn_id: e for e in map(ev.NetworkUpserted.model_validate, data)})

    def exists(self, kn_id: str) -> bool:
        return kn_id in self.networks

    def permissions(self, kn_id: str, account: str) -> set[str]:
        network = self.networks.get(kn_id)
        if network is None:
            return set()
        return {p for g in network.grants if g.account == account for p in g.permissions}

    def has(self, kn_id: str, account: str, permission: str) -> bool:
        return permission in self.permissions(kn_id, account)

    def resource_grants(self, kn_id: str, account: str) -> list[ev.ResourceGrant]:
        network = self.networks.get(kn_id)
        if network is None:
            return []
        return [g for g in network.resource_grants if g.account == account]
