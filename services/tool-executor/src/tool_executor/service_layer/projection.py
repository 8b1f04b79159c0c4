"""The execution factory's own records: catalogue, bindings, lifecycle and network grants
folded from Kafka (the checks every execution passes first read them:
:mod:`tool_executor.service_layer.execution_authorisation`)."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.access import NetworkAccess
from bkn_common.domain.catalog_state import CatalogState
from bkn_common.framework.rebuildable import Rebuildable

Refs = list[ev.CapabilityRef]
GatedMounts = tuple[int, Refs, Refs, Refs]  # catalogue version, mounted, filtered, passing


@dataclass
class FactoryState:
    """Catalogue, bindings, lifecycle and network grants, folded from Kafka."""

    catalog: CatalogState = field(default_factory=CatalogState)
    access: NetworkAccess = field(default_factory=NetworkAccess)
    gated_cache: dict[tuple[str, tuple[str, ...], str | None], GatedMounts] = field(
        default_factory=dict, repr=False
    )
    """Mounted / filtered / gate-passing capabilities per listing, valid for one catalogue version."""

    def apply(self, record: ev.EventRecord) -> None:
        if not self.catalog.apply(record):
            self.access.apply(record)

    def snapshot(self) -> dict[str, object]:
        return {**self.catalog.snapshot(), **self.access.snapshot()}

    # -- checkpoint (bkn_common.framework.checkpoint.Checkpointable) --------------------------------
    checkpoint_version = 1

    def checkpoint_data(self) -> dict[str, object]:
        return {"catalog": self.catalog.checkpoint_data(), "networks": self.access.checkpoint_data()}

    def restore_checkpoint(self, data: dict[str, Any]) -> None:
        catalog = CatalogState.from_checkpoint(data["catalog"])
        access = NetworkAccess.from_checkpoint(data["networks"])
        self.catalog, self.access = catalog, access
        self.gated_cache.clear()


REBUILDABLE = Rebuildable(
    consumer="tool-executor",
    open_store=lambda: nullcontext(FactoryState()),
    default_url="http://127.0.0.1:30782",
)
"""The ``bkn.replay`` entry point: what `clctl replay tool-executor` rebuilds (bkn_common.framework.rebuildable)."""
