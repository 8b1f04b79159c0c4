"""How a service exposes its rebuildable store to `clctl replay`: the ``bkn.replay`` entry points.

The contract. A service package registers one entry point in its ``pyproject.toml``::

    [project.entry-points."bkn.replay"]
    capability-index = "capability_index.service_layer.projection:REBUILDABLE"

* the entry point's **name** is the service's consumer name, a key of
  :data:`bkn_common.contracts.topics.CONSUMER_TOPICS` (which says the topics the store folds);
* its **object** is a :class:`Rebuildable`: ``open_store()`` returns a context manager yielding a
  fresh, empty store built by the same code the live service runs (an in-memory store:
  ``nullcontext(Store())``; a database-backed one: a new schema or file, which the context
  manager removes or keeps as it documents), and ``default_url`` is the live service's base URL
  on a default local mesh (``clctl replay --live-url`` overrides it);
* the store has ``apply(record)`` (idempotent; an exception rejects the record, which replay
  counts as poison, as the live runner dead-letters it) and ``snapshot()`` (the sections the live
  service digests at ``/internal/v1/state/digest``); if it also has ``flush()``, replay calls it
  after every fetched batch and before the snapshot (a store that writes batches in one
  transaction buffers in ``apply`` and writes in ``flush``).

`clctl` imports no service package: it finds the stores through these entry points, loading only
the one it replays.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol

from bkn_common.contracts.events import EventRecord
from bkn_common.contracts.topics import CONSUMER_TOPICS, TopicSpec

GROUP = "bkn.replay"


class ReplayStore(Protocol):
    def apply(self, record: EventRecord) -> None: ...

    def snapshot(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Rebuildable:
    """One service's rebuildable store (see the module docstring)."""

    consumer: str
    open_store: Callable[[], AbstractContextManager[ReplayStore]]
    default_url: str

    @property
    def topics(self) -> tuple[TopicSpec, ...]:
        return CONSUMER_TOPICS[self.consumer].projection


def registered() -> list[str]:
    """Names of the installed ``bkn.replay`` entry points (nothing is imported)."""
    return sorted({ep.name for ep in entry_points(group=GROUP)})


def load(name: str) -> Rebuildable:
    """The :class:`Rebuildable` registered as ``name`` (LookupError when none is installed)."""
    found = [ep for ep in entry_points(group=GROUP) if ep.name == name]
    if not found:
        raise LookupError(f"no {GROUP} entry point named {name!r}; installed: {', '.join(registered())}")
    target = found[0].load()
    if not isinstance(target, Rebuildable) or target.consumer != name:
        raise LookupError(f"{GROUP} entry point {name!r} is not a Rebuildable for {name!r}")
    if name not in CONSUMER_TOPICS:
        raise LookupError(f"{name!r} has no row in bkn_common.contracts.topics.CONSUMER_TOPICS")
    return target
